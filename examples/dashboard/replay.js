// The replay view: loads a loop replay file (JSONL, one run per line, docs/replay.md),
// replays a policy over every run in one call of the WebAssembly build's `replayLoops`,
// and lists what the policy decided per run: where it stopped, why, which iteration it
// returns and how that compares with the best the run reached. Every figure comes from
// earlyexit; this file only reads the file and fills the table. Below it, the calibration
// frontier of the same runs (calibrateLoopPolicy): each candidate policy's figures and test.
//
// The replay functions live in the package's second wasm module (bindings/wasm/README.md
// "Two modules"), which the page does not fetch at load: the first replay file loaded here
// fetches it (`init({ replay: true })`), so a visit that never replays downloads only the
// engines module. `#replay-view[data-replay-module]` says where that stands
// (absent, `loading`, `loaded`, `failed`).

const $ = (sel) => document.querySelector(sel);

// The simple baseline of docs/replay.md: stop at the first verified pass, else give up
// after k iterations without a new best, returning the best iteration.
const simpleRule = (k) => ({
  config: { highConfidenceThreshold: 0, minQualityThreshold: 0, enablePlateauDetection: false, enableDiminishingReturns: false, noImprovementPatience: k },
  returns: 'best',
  analytics: false,
});

// A composed stop policy (docs/loop-policies.md): a confident verified pass, or a plateau of
// good work that also brought no new best for 2 iterations, or 4 iterations without a new
// best; the reason column then joins the reasons of the conditions that fired.
const COMPOSED = {
  returns: 'best',
  any: [
    { condition: 'high_confidence', threshold: 0.9 },
    { all: [
      { condition: 'quality_plateau', count: 3, delta_source: 'computed', mode: 'absolute', threshold: 1, min_quality: 70 },
      { condition: 'no_improvement', patience: 2 },
    ] },
    { condition: 'no_improvement', patience: 4 },
  ],
};

const POLICIES = {
  recommended: 'recommended',
  seed: 'seed',
  'simple-3': simpleRule(3),
  'simple-5': simpleRule(5),
  composed: COMPOSED,
};

const state = { ee: null, text: null, name: '', replays: 0 };

function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

const fmt = (n, digits = 1) => (Number.isInteger(n) ? String(n) : n.toFixed(digits));

function showError(err) {
  const box = $('#replay-error');
  box.hidden = false;
  const where = err?.field ? ` [${err.code}: ${err.field}]` : '';
  box.textContent = `Could not replay ${state.name}${where}: ${err?.message ?? err}`;
  $('#replay-results').hidden = true;
}

// Loads the replay module on first use; a failed load shows its error, and the next file
// (or policy change) tries again.
async function loadReplayModule() {
  const view = $('#replay-view');
  if (view.dataset.replayModule === 'loaded') return;
  view.dataset.replayModule = 'loading';
  try {
    await state.ee.init({ replay: true });
  } catch (err) {
    view.dataset.replayModule = 'failed';
    throw err;
  }
  view.dataset.replayModule = 'loaded';
}

async function render() {
  if (state.text === null || state.ee === null) return;
  try {
    await loadReplayModule();
  } catch (err) {
    showError(err);
    finish();
    return;
  }
  let replay;
  try {
    replay = state.ee.replayLoops(state.text, POLICIES[$('#replay-policy').value]);
  } catch (err) {
    showError(err);
    finish();
    return;
  }
  $('#replay-error').hidden = true;
  $('#replay-results').hidden = false;
  const s = replay.summary;
  $('#replay-summary').textContent = `${s.runs} runs · ${fmt(s.mean_iterations, 2)} iterations per run `
    + `(${(s.share_of_available * 100).toFixed(1)}% of those recorded) · returned quality ${fmt(s.mean_returned_quality)} `
    + `vs best reachable ${fmt(s.mean_best_quality)} (gap ${s.mean_quality_gap.toFixed(2)} points) · `
    + `${s.premature_stops} premature stops · ${s.wasted_iterations} wasted iterations`;
  const rows = replay.runs.map((r) => {
    const tr = document.createElement('tr');
    tr.dataset.run = r.id;
    if (r.premature) tr.classList.add('premature');
    if (r.quality_gap > 0) tr.classList.add('has-gap');
    tr.append(
      cell(r.id, 'run-id'),
      cell(r.dataset ?? ''),
      cell(`${r.iterations_run} / ${r.iterations_available}`, 'num stop'),
      cell(r.trigger, 'trigger'),
      cell(`#${r.returned_iteration} (${fmt(r.returned_quality)})`, 'num returned'),
      cell(`#${r.best_iteration} (${fmt(r.best_quality)})`, 'num best'),
      cell(r.quality_gap === 0 ? '0' : fmt(r.quality_gap), 'num gap'),
      cell(r.premature ? 'premature' : r.wasted_iterations > 0 ? `${r.wasted_iterations} wasted` : '', 'flag'),
      cell(r.reason ?? 'the recording ended first', 'reason'),
    );
    return tr;
  });
  $('#replay-table tbody').replaceChildren(...rows);
  finish();
}

function finish() {
  state.replays += 1;
  $('#replay-view').dataset.replayed = String(state.replays);
}

// The calibration frontier: every candidate of the path with its figures on the loaded
// runs, the certified ones marked, the chosen one highlighted (calibrateLoopPolicy).
async function calibrate() {
  if (state.text === null || state.ee === null) return;
  const box = $('#calibration-error');
  try {
    await loadReplayModule();
    const cal = state.ee.calibrateLoopPolicy(state.text, {
      risk: Number($('#calibration-risk').value),
      delta: Number($('#calibration-delta').value),
    });
    box.hidden = true;
    $('#calibration-results').hidden = false;
    $('#calibration-message').textContent = cal.message;
    $('#calibration-warnings').replaceChildren(...cal.warnings.map((w) => {
      const li = document.createElement('li');
      li.textContent = w;
      return li;
    }));
    const chosen = cal.artifact.body.certificate.chosenIndex;
    const rows = cal.frontier.map((r) => {
      const tr = document.createElement('tr');
      tr.dataset.index = String(r.index);
      if (r.rejected) tr.classList.add('certified');
      if (cal.certified && r.index === chosen) tr.classList.add('chosen');
      const c = r.policy.config;
      tr.append(
        cell(String(r.index), 'num'),
        cell(r.aggressiveness.toFixed(2), 'num'),
        cell(`${c.noImprovementPatience} (${c.floorPatience})`, 'num'),
        cell(r.meanIterations.toFixed(2), 'num'),
        cell(`${(r.shareOfAvailable * 100).toFixed(1)}%`, 'num'),
        cell(r.meanQualityGap.toFixed(2), 'num gap'),
        cell(`${(r.prematureRate * 100).toFixed(1)}%`, 'num'),
        cell(r.tested ? r.pValue.toPrecision(3) : '', 'num'),
        cell(!r.tested ? 'not tested' : r.rejected ? 'certified' : 'not certified', 'flag'),
      );
      return tr;
    });
    $('#calibration-frontier tbody').replaceChildren(...rows);
  } catch (err) {
    box.hidden = false;
    const where = err?.field ? ` [${err.code}: ${err.field}]` : '';
    box.textContent = `Could not calibrate${where}: ${err?.message ?? err}`;
    $('#calibration-results').hidden = true;
  }
  state.calibrations = (state.calibrations ?? 0) + 1;
  $('#replay-view').dataset.calibrated = String(state.calibrations);
}

async function loadReplayFile(file) {
  state.name = file.name;
  try {
    state.text = await file.text();
  } catch (err) {
    showError(err);
    finish();
    return;
  }
  $('#replay-file-name').textContent = file.name;
  await render();
}

// `?runs=URL`: a run store's export (`earlyexit runs export --out runs.jsonl`, or the Node
// package's `store.exportRuns`: the same JSONL, one run per line) fetched and replayed at
// load, as if picked with the file input (a URL relative to the page, same origin or CORS).
async function loadReplayUrl(url) {
  state.name = url;
  try {
    const res = await fetch(new URL(url, location.href), { cache: 'no-store' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    state.text = await res.text();
  } catch (err) {
    showError(err);
    finish();
    return;
  }
  state.name = new URL(url, location.href).pathname.split('/').pop() || url;
  $('#replay-file-name').textContent = `${state.name} (from ?runs=)`;
  await render();
}

async function boot() {
  const view = $('#replay-view');
  try {
    const mod = await import('earlyexit-wasm');
    await mod.init(); // the engines only (app.js makes the same call; it is done once)
    state.ee = mod;
  } catch {
    view.dataset.ready = 'false'; // the main view reports the loading error
    return;
  }
  $('#replay-file').addEventListener('change', (e) => {
    const file = e.target.files?.[0];
    if (file) loadReplayFile(file);
  });
  $('#replay-policy').addEventListener('change', render);
  $('#calibrate').addEventListener('click', calibrate);
  view.dataset.ready = 'true';
  const runs = new URLSearchParams(location.search).get('runs');
  if (runs) await loadReplayUrl(runs);
}

boot();
