// The dashboard: picks or loads a data file, runs the engines of the
// earlyexit WebAssembly build over it, and shows what they decided.
// Plain ES modules, no bundler: `earlyexit-wasm` and `uplot` come from the
// import map in index.html.

import { DataError, readRuns, filesInListing } from './data.js';
import { evaluateLoop, evaluatePyramid, evaluateSignal, LoopReplay, LivePyramid, ConfigError, presets } from './engine.js';
import { LoopChart, PyramidChart } from './charts.js';

const $ = (sel, root = document) => root.querySelector(sel);
// The bundled examples: index.html names their folder (examples/data/ in the repository,
// dashboard/data/ in the earlyexit-wasm package), relative to the page's folder.
const DATA_DIR = new URL(document.querySelector('meta[name="earlyexit-data"]')?.content ?? '../data/', import.meta.url);
const FALLBACK_FILES = ['loops.jsonl', 'pyramids.jsonl'];

// ---------------------------------------------------------------------------
// Errors: one banner; each error belongs to a scope so that a later success in
// that scope clears it and nothing else does.

let errorScope = null;

function errorInfo(err) {
  if (err == null) return { message: 'unknown error' };
  if (typeof err !== 'object') return { message: String(err) };
  return {
    message: err.message || String(err),
    code: err.code ?? null,
    field: err.field ?? null,
    line: err.line ?? null,
    kind: err.kind ?? (err.cause instanceof TypeError || err instanceof TypeError ? 'TypeError' : err.cause instanceof RangeError || err instanceof RangeError ? 'RangeError' : null),
  };
}

function showError(scope, title, err) {
  const info = errorInfo(err);
  errorScope = scope;
  const box = $('#error');
  $('#error-title').textContent = title;
  $('#error-message').textContent = info.message;
  const code = $('#error-code');
  code.hidden = !info.code;
  code.textContent = info.code ? `code: ${info.code}` : '';
  const field = $('#error-field');
  field.hidden = !info.field;
  field.textContent = info.field ? `field: ${info.field}` : '';
  box.dataset.scope = scope;
  box.dataset.code = info.code ?? '';
  box.dataset.field = info.field ?? '';
  box.dataset.line = info.line ?? '';
  box.hidden = false;
}

function clearError(scope) {
  if (errorScope !== scope) return;
  errorScope = null;
  const box = $('#error');
  box.hidden = true;
  for (const k of ['scope', 'code', 'field', 'line']) delete box.dataset[k];
}

window.addEventListener('error', (e) => {
  // Chromium reports a benign ResizeObserver notice as an error event; not ours to show.
  if (!e.error && /ResizeObserver loop/.test(e.message)) return;
  showError('page', 'Unexpected error in the page', e.error ?? e.message);
});
window.addEventListener('unhandledrejection', (e) => showError('page', 'Unexpected error in the page', e.reason));
$('#error-dismiss').addEventListener('click', () => clearError(errorScope));

// ---------------------------------------------------------------------------
// Formatting.

const num = (x, digits = 3) => {
  if (x === null || x === undefined) return '–';
  if (typeof x !== 'number') return String(x);
  if (Number.isNaN(x)) return 'NaN';
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toFixed(digits)));
};
const pct = (x) => (typeof x === 'number' ? `${num(x * 100, 1)}%` : '–');
const ms = (x) => {
  if (x === null) return 'unknown';
  if (x === undefined) return '–';
  if (x >= 1000) return `${num(x / 1000, 1)} s`;
  return `${num(x, 0)} ms`;
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k in node && typeof v !== 'string') node[k] = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}
const pill = (text, cls = text) => el('span', { class: `pill ${cls}`, text });

// ---------------------------------------------------------------------------
// Config forms, built from a schema so that every input has the option's
// name (`input[name=plateauConsecutiveCount]`). Values are handed to the
// engine as typed; the engine validates them and its error is shown.

const LOOP_FIELDS = [
  { name: 'highConfidenceThreshold', label: 'High confidence threshold', hint: 'confidence to stop, 0–1', step: 0.01 },
  { name: 'plateauConsecutiveCount', label: 'Plateau length', hint: 'iterations in a row, ≥ 2', step: 1 },
  { name: 'plateauImprovementThreshold', label: 'Plateau improvement below', hint: 'fraction (0.02 = 2%)', step: 0.005 },
  { name: 'minQualityThreshold', label: 'Minimum quality', hint: 'to stop on confidence, 0–100', step: 1 },
  { name: 'requireVerification', label: 'Require verification', hint: 'to stop on confidence', type: 'checkbox' },
  { name: 'enablePlateauDetection', label: 'Plateau detection', type: 'checkbox' },
  { name: 'enableDiminishingReturns', label: 'Diminishing returns', hint: 'needs the analytics below', type: 'checkbox' },
  {
    group: 'More options (beyond early-stopping.mjs)',
    fields: [
      { name: 'plateauDeltaSource', label: 'Plateau delta', hint: 'reported or computed', type: 'select', options: ['', 'reported', 'computed'] },
      { name: 'plateauMode', label: 'Plateau mode', hint: 'relative or absolute', type: 'select', options: ['', 'relative', 'absolute'] },
      { name: 'minIterations', label: 'Min iterations', hint: 'warm-up', step: 1 },
      { name: 'maxIterations', label: 'Max iterations', step: 1 },
      { name: 'maxTotalTokens', label: 'Token budget', step: 1000 },
      { name: 'maxTotalCostUsd', label: 'Cost budget (USD)', step: 0.01 },
      { name: 'maxWallClockMs', label: 'Time budget (ms)', step: 1000 },
      { name: 'regressionTolerance', label: 'Regression tolerance', hint: 'points below the best', step: 1 },
      { name: 'regressionPatience', label: 'Regression patience', hint: 'iterations', step: 1 },
      { name: 'plateauMinQuality', label: 'Plateau quality gate', hint: 'every record of the window, 0–100', step: 1 },
      { name: 'noImprovementPatience', label: 'Give up after', hint: 'iterations without a new best', step: 1 },
    ],
  },
];

const ANALYTICS_FIELDS = [
  { name: 'attachAnalytics', label: 'Attach IterationAnalytics', hint: 'the diminishing-returns source', type: 'checkbox', local: true },
  { name: 'diminishingReturnsThreshold', label: 'Improvement below', hint: 'fraction (0.05 = 5%)', step: 0.01 },
  { name: 'consecutiveCountThreshold', label: 'Consecutive small steps', hint: 'integer ≥ 1', step: 1 },
  { name: 'qualityThreshold', label: 'Quality threshold', hint: 'for the best-iteration pick', step: 1 },
  { name: 'selectionCriteria', label: 'Selection', type: 'select', options: ['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold'] },
];

const PYRAMID_FIELDS = [
  { name: 'preset', label: 'Preset', type: 'select', options: ['default', 'aggressive', 'conservative'], local: true },
  { name: 'exitLayer', label: 'Exit layer', hint: 'earliest layer to exit after', step: 1 },
  { name: 'minLambdaForExit', label: 'Min lambda to exit', hint: 'quality signal, 0–100', step: 1 },
  { name: 'minLambdaStability', label: 'Min lambda stability', hint: 'how little lambda may move, 0–1', step: 0.01 },
  { name: 'maxBoundaryConcentration', label: 'Max mean shortfall', hint: 'of the weak measures (boundary concentration), 0–1', step: 0.05 },
  { name: 'minConfidence', label: 'Min confidence', hint: '0–1', step: 0.01 },
  { name: 'speculativeTests', label: 'Speculative tests', hint: '0 = no speculation', step: 1 },
  { name: 'verificationLayers', label: 'Verification layers', hint: 'skipped layers run to check', step: 1 },
  { name: 'adaptiveExitLayer', label: 'Adaptive exit layer', type: 'checkbox' },
  { name: 'totalLayers', label: 'Total layers', hint: 'bounds the adaptive exit layer', step: 1, local: true },
];

const flatFields = (fields) => fields.flatMap((f) => (f.group ? f.fields : [f]));

function fieldRow(f) {
  const id = `cfg-${f.name}`;
  const label = el('label', { for: id }, f.label, f.hint ? el('small', { text: f.hint }) : null);
  let input;
  if (f.type === 'checkbox') input = el('input', { id, name: f.name, type: 'checkbox' });
  else if (f.type === 'select') input = el('select', { id, name: f.name }, f.options.map((o) => el('option', { value: o, text: o === '' ? '(default)' : o })));
  else input = el('input', { id, name: f.name, type: 'number', step: String(f.step ?? 'any'), inputmode: 'decimal' });
  return [label, input];
}

function buildForm(form, fields) {
  form.replaceChildren();
  for (const f of fields) {
    if (f.group) {
      const inner = el('div', { class: 'inner' }, f.fields.flatMap(fieldRow));
      form.append(el('details', {}, el('summary', { text: f.group }), inner));
    } else {
      form.append(...fieldRow(f));
    }
  }
}

function setForm(form, fields, values) {
  for (const f of flatFields(fields)) {
    const input = form.elements.namedItem(f.name);
    const v = values[f.name];
    if (f.type === 'checkbox') input.checked = v === true;
    else input.value = v === undefined || v === null ? '' : String(v);
    input.removeAttribute('aria-invalid');
  }
}

// Reads a form: {values, local}. An empty input is an absent option (the
// engine's default); text that is not a number is reported here, everything
// else the engine checks.
function readForm(form, fields) {
  const values = {};
  const local = {};
  for (const f of flatFields(fields)) {
    const input = form.elements.namedItem(f.name);
    let v;
    if (f.type === 'checkbox') v = input.checked;
    else if (f.type === 'select') v = input.value === '' ? undefined : input.value;
    else if (input.validity?.badInput) {
      throw new ConfigError(form.id.replace('-config', ''), Object.assign(new TypeError(`${f.name}: "${input.value}" is not a number`), { code: 'invalid_config', field: f.name }));
    } else v = input.value.trim() === '' ? undefined : Number(input.value);
    if (v === undefined) continue;
    (f.local ? local : values)[f.name] = v;
  }
  return { values, local };
}

function markInvalid(form, field) {
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  if (!field) return;
  const name = String(field).split(/[.[]/)[0];
  const input = form.elements.namedItem(name);
  if (input && input.setAttribute) {
    input.setAttribute('aria-invalid', 'true');
    input.closest('details')?.setAttribute('open', '');
  }
}

// ---------------------------------------------------------------------------
// State.

const state = {
  ee: null,
  uPlot: null,
  examples: new Map(), // option value -> run
  fileRuns: [], // the runs of the file on screen
  run: null,
  loopDefaults: {},
  analyticsDefaults: {},
  loopExtra: {}, // keys of the run's config the form has no input for
  generation: 0,
  live: null,
};

let loopChart = null;
let pyramidChart = null;
let liveChart = null;

// ---------------------------------------------------------------------------
// Boot.

async function boot() {
  const status = $('#engine-status');
  try {
    // The web build: `init()` fetches and instantiates the engines module once (the replay
    // module waits until the replay view needs it, replay.js).
    const mod = await import('earlyexit-wasm');
    await mod.init();
    state.ee = mod;
  } catch (err) {
    status.dataset.state = 'error';
    status.textContent = 'engine not loaded';
    showError('boot', 'Could not load the WebAssembly build of earlyexit', {
      message: `${err?.message ?? err}\n\nBuild it with scripts/build-wasm.sh, then serve the repository root with node tests/browser/serve.mjs and open /examples/dashboard/.`,
    });
    return;
  }
  try {
    state.uPlot = (await import('uplot')).default;
  } catch (err) {
    showError('boot', 'Could not load uPlot', { message: `${err?.message ?? err}\n\nRun npm install in the repository root (uPlot is a devDependency).` });
  }
  status.dataset.state = 'ready';
  status.textContent = 'engine ready (WebAssembly)';
  const version = state.ee.version ?? state.ee.VERSION;
  $('#engine-version').textContent = `earlyexit-wasm${typeof version === 'string' ? ` ${version}` : ''}`;

  initForms();
  initLive();
  wireData();
  await loadExamples();
  document.body.dataset.ready = 'true';
}

function initForms() {
  const ee = state.ee;
  const probe = new ee.EarlyStopping();
  state.loopDefaults = probe.getConfig();
  probe.free?.();
  const probeA = new ee.IterationAnalytics();
  state.analyticsDefaults = probeA.getConfig();
  probeA.free?.();

  buildForm($('#loop-config'), LOOP_FIELDS);
  buildForm($('#analytics-config'), ANALYTICS_FIELDS);
  buildForm($('#pyramid-config'), PYRAMID_FIELDS);

  const rerun = () => evaluate();
  $('#loop-config').addEventListener('input', rerun);
  $('#analytics-config').addEventListener('input', rerun);
  $('#pyramid-config').addEventListener('input', (e) => {
    if (e.target.name === 'preset') applyPreset(e.target.value, {});
    evaluate();
  });
  for (const id of ['#loop-config', '#analytics-config', '#pyramid-config']) $(id).addEventListener('submit', (e) => e.preventDefault());
  $('#loop-reset').addEventListener('click', () => { applyRunConfig(state.run); evaluate(); });
  $('#pyramid-reset').addEventListener('click', () => { applyRunConfig(state.run); evaluate(); });
}

function applyPreset(name, overrides) {
  const preset = presets(state.ee)[name] ?? presets(state.ee).default;
  const totalLayers = readForm($('#pyramid-config'), PYRAMID_FIELDS).local.totalLayers;
  setForm($('#pyramid-config'), PYRAMID_FIELDS, { ...preset, ...overrides, preset: name in presets(state.ee) ? name : 'default', totalLayers });
}

// Puts a run's own config into the forms.
function applyRunConfig(run) {
  if (!run) return;
  if (run.kind === 'loop') {
    const config = run.config && typeof run.config === 'object' ? run.config : {};
    const known = new Set(flatFields(LOOP_FIELDS).map((f) => f.name));
    state.loopExtra = Object.fromEntries(Object.entries(config).filter(([k]) => !known.has(k)));
    setForm($('#loop-config'), LOOP_FIELDS, { ...state.loopDefaults, ...config });
    const analytics = run.analytics && typeof run.analytics === 'object' ? run.analytics : {};
    setForm($('#analytics-config'), ANALYTICS_FIELDS, { ...state.analyticsDefaults, ...analytics, attachAnalytics: run.analytics !== null && run.analytics !== undefined });
  } else {
    const config = run.config && typeof run.config === 'object' ? run.config : {};
    const name = typeof run.preset === 'string' ? run.preset : 'default';
    const preset = presets(state.ee)[name] ?? presets(state.ee).default;
    setForm($('#pyramid-config'), PYRAMID_FIELDS, { ...preset, ...config, preset: name in presets(state.ee) ? name : 'default', totalLayers: run.totalLayers });
  }
}

// ---------------------------------------------------------------------------
// Data: bundled examples and files.

async function listDataFiles() {
  try {
    const res = await fetch(DATA_DIR, { cache: 'no-store' });
    if (res.ok) {
      const files = filesInListing(await res.text(), '.jsonl');
      if (files.length) return files;
    }
  } catch {
    // no listing: fall back to the known files
  }
  return FALLBACK_FILES;
}

async function loadExamples() {
  const select = $('#example-select');
  const files = await listDataFiles();
  const groups = [];
  const problems = [];
  for (const file of files) {
    let runs;
    try {
      const res = await fetch(new URL(file, DATA_DIR), { cache: 'no-store' });
      if (!res.ok) throw new DataError(`${file}: HTTP ${res.status}`);
      runs = readRuns(await res.text(), file);
    } catch (err) {
      problems.push(err);
      continue;
    }
    const group = el('optgroup', { label: file });
    for (const run of runs) {
      const value = `${file}:${run.id}`;
      state.examples.set(value, { run, runs });
      group.append(el('option', { value, text: `${run.title}` }));
    }
    groups.push(group);
  }
  select.replaceChildren(el('option', { value: '', text: '— choose an example —' }), ...groups);
  if (problems.length) showError('data', 'A bundled example file could not be read', problems[0]);
  if (state.examples.size === 0) {
    if (!problems.length) showError('data', 'No bundled examples found', { message: `Nothing in ${DATA_DIR.pathname}` });
    return;
  }
  const wanted = new URLSearchParams(location.search).get('example');
  let value = wanted && [...state.examples.keys()].find((k) => k === wanted || k.endsWith(`:${wanted}`));
  if (!value) {
    // By default the longest loop that stops: the most to look at.
    let best = null;
    for (const [k, { run }] of state.examples) {
      if (run.kind === 'loop' && run.expect?.stop_at != null && (best === null || run.iterations.length > best[1])) best = [k, run.iterations.length];
    }
    value = best?.[0] ?? state.examples.keys().next().value;
  }
  select.value = value;
  selectExample(value);
}

function selectExample(value) {
  const entry = state.examples.get(value);
  if (!entry) return;
  $('#file-input').value = '';
  clearError('data');
  showRunPicker([]);
  selectRun(entry.run);
}

function showRunPicker(runs) {
  const wrap = $('.run-field');
  const select = $('#run-select');
  state.fileRuns = runs;
  wrap.hidden = runs.length < 2;
  select.replaceChildren(...runs.map((r, i) => el('option', { value: String(i), text: r.title })));
}

async function loadFile(file) {
  stopPlaying();
  let text;
  try {
    text = await file.text();
  } catch (err) {
    showError('data', `Could not read ${file.name}`, err);
    return;
  }
  let runs;
  try {
    runs = readRuns(text, file.name);
  } catch (err) {
    hideViews();
    showError('data', `Could not load ${file.name}`, err);
    return;
  }
  clearError('data');
  $('#example-select').value = '';
  showRunPicker(runs);
  selectRun(runs[0]);
}

function wireData() {
  $('#example-select').addEventListener('change', (e) => selectExample(e.target.value));
  $('#file-input').addEventListener('change', (e) => {
    const file = e.target.files?.[0];
    if (file) loadFile(file);
  });
  $('#run-select').addEventListener('change', (e) => selectRun(state.fileRuns[Number(e.target.value)]));
  document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
  document.addEventListener('dragleave', (e) => { if (e.target === document.documentElement || e.relatedTarget === null) document.body.classList.remove('dragging'); });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    const file = e.dataTransfer?.files?.[0];
    if (file) loadFile(file);
  });
}

function hideViews() {
  $('#loop-view').hidden = true;
  $('#pyramid-view').hidden = true;
  $('#live-view').hidden = true;
  $('#run-info').hidden = true;
  state.run = null;
  resetLive();
}

function describeSource(source) {
  if (!source) return '';
  if (typeof source === 'string') return source;
  const parts = [];
  if (source.citation) parts.push(`${source.citation}${source.where ? `, ${source.where}` : ''}`);
  if (source.task) parts.push(`task: ${source.task}`);
  if (source.scaling) parts.push(`scaling: ${source.scaling}`);
  if (source.derived) parts.push(source.derived);
  for (const k of ['costs', 'flakiness', 'note']) if (source[k]) parts.push(source[k]);
  if (!parts.length) parts.push(JSON.stringify(source));
  return `${source.kind ? `[${source.kind}] ` : ''}${parts.join(' · ')}`;
}

function selectRun(run) {
  stopPlaying();
  clearError('run');
  state.run = run;
  $('#run-info').hidden = false;
  $('#run-title').textContent = run.title;
  $('#run-source').textContent = describeSource(run.source);
  $('#loop-view').hidden = run.kind !== 'loop';
  $('#pyramid-view').hidden = run.kind === 'loop';
  $('#pyramid-chart-card').hidden = run.kind === 'signal';
  applyRunConfig(run);
  evaluate();
}

// ---------------------------------------------------------------------------
// Evaluation (every config change lands here).

function loopConfig() {
  const { values } = readForm($('#loop-config'), LOOP_FIELDS);
  const a = readForm($('#analytics-config'), ANALYTICS_FIELDS);
  return { config: { ...values, ...state.loopExtra }, analytics: a.local.attachAnalytics ? a.values : null };
}

function pyramidConfig() {
  const { values, local } = readForm($('#pyramid-config'), PYRAMID_FIELDS);
  return { config: values, totalLayers: local.totalLayers };
}

async function evaluate() {
  const run = state.run;
  if (!run || !state.ee) return;
  const gen = ++state.generation;
  const view = run.kind === 'loop' ? $('#loop-view') : $('#pyramid-view');
  const form = run.kind === 'loop' ? null : $('#pyramid-config');
  try {
    if (run.kind === 'loop') {
      const cfg = loopConfig();
      // Decisions under a stop policy are answered by the package's replay module.
      if (run.policy !== null && run.policy !== undefined) await state.ee.init({ replay: true });
      if (gen !== state.generation) return;
      const report = evaluateLoop(state.ee, run, cfg.config, cfg.analytics);
      if (gen !== state.generation) return;
      renderLoop(run, report);
    } else if (run.kind === 'pyramid') {
      const cfg = pyramidConfig();
      const out = await evaluatePyramid(state.ee, run, cfg.config, cfg.totalLayers);
      if (gen !== state.generation) return;
      renderPyramid(run, out, cfg);
    } else {
      const cfg = pyramidConfig();
      const out = evaluateSignal(state.ee, run, cfg.config, cfg.totalLayers);
      if (gen !== state.generation) return;
      renderSignal(run, out);
    }
    markInvalid($('#loop-config'));
    markInvalid($('#analytics-config'));
    if (form) markInvalid(form);
    view.querySelector('.main-col').classList.remove('stale');
    clearError('run');
    document.body.dataset.evaluated = String(gen);
  } catch (err) {
    if (gen !== state.generation) return;
    if (err instanceof ConfigError) {
      const target = err.form === 'analytics' ? $('#analytics-config') : err.form === 'pyramid' ? $('#pyramid-config') : $('#loop-config');
      markInvalid(target, err.field);
      showError('run', `Invalid ${err.form} config`, err);
    } else {
      showError('run', 'The engine rejected this run', err);
    }
    view.querySelector('.main-col').classList.add('stale');
    document.body.dataset.evaluated = String(gen);
  }
  resetLive();
}

// ---------------------------------------------------------------------------
// (1) Loop view.

function decisionPill(d, isStop) {
  if (!d) return pill('–', 'skipped');
  if (d.stop) return pill(isStop ? 'stop' : 'would stop', 'stop');
  return pill('continue', 'continue');
}

function loopChartView(steps, stop, config, xRange = null) {
  return {
    xRange,
    iterations: steps.map((s) => s.iteration),
    quality: steps.map((s) => s.result.quality_score),
    confidence: steps.map((s) => s.result.confidence),
    status: steps.map((s) => s.result.verification_status),
    minQuality: config.minQualityThreshold,
    confidenceThreshold: config.highConfidenceThreshold,
    stopIteration: stop?.iteration ?? null,
    stopTrigger: stop?.decision.trigger ?? null,
  };
}

// Under a stop policy, which conditions fired and where they sit in its tree.
const firedText = (decision) => (decision.fired?.length ? ` [fired: ${decision.fired.map((f) => `${f.condition} at ${f.path}`).join(', ')}]` : '');

function renderLoop(run, report) {
  const { steps, stop, last, config } = report;
  const n = steps.length;
  const shown = stop ? stop.decision : last;
  $('#stop-iteration').textContent = stop ? String(stop.iteration) : 'none';
  // What the loop would have produced had it gone on (as `make demo` reports it).
  const later = stop ? steps.slice(stop.index + 1).map((s) => s.result.quality_score) : [];
  const laterBest = later.length ? Math.max(...later) : null;
  $('#stop-of').textContent = n ? (stop ? `of ${n} recorded${laterBest === null ? '' : `; best quality after it ${num(laterBest)}`}` : `ran all ${n} recorded`) : 'no iterations';
  $('#stop-trigger').textContent = stop ? stop.decision.trigger : (last?.trigger ?? 'none');
  $('#stop-confidence').textContent = shown ? `decision confidence ${num(shown.confidence)}` : '';
  $('#stop-reason').textContent = shown ? (stop ? shown.reason : `Did not stop. Last decision: ${shown.reason}`) : 'No iterations in this run.';
  $('#best-iteration').textContent = shown?.best_iteration == null ? '–' : String(shown.best_iteration);
  $('#best-quality').textContent = shown?.best_quality_score == null ? '' : `quality ${num(shown.best_quality_score)}`;
  $('#iterations-saved').textContent = stop ? String(n - stop.index - 1) : '0';
  $('.stat-stop', $('#loop-view')).classList.toggle('no-stop', !stop);

  const exp = run.expect;
  if (exp && 'stop_at' in exp) {
    const matches = (exp.stop_at ?? null) === (stop?.iteration ?? null) && (exp.trigger ?? 'none') === (stop?.decision.trigger ?? 'none');
    $('#expect-check').textContent = `file expects ${exp.stop_at == null ? 'no stop' : `stop at ${exp.stop_at} (${exp.trigger})`} ${matches ? '✓' : '≠ now'}`;
  } else {
    $('#expect-check').textContent = '';
  }

  const rows = steps.map((s, k) => {
    const isStop = stop && k === stop.index;
    const r = s.result;
    return el(
      'tr',
      { class: isStop ? 'is-stop' : s.afterStop ? 'after-stop' : '', 'data-iteration': String(s.iteration) },
      el('td', { class: 'num', text: String(s.iteration) }),
      el('td', { class: 'num', text: num(r.quality_score) }),
      el('td', { class: 'num', text: num(r.quality_delta) }),
      el('td', { class: 'num', text: num(r.confidence) }),
      el('td', {}, pill(String(r.verification_status), String(r.verification_status))),
      el('td', {}, decisionPill(s.decision, isStop)),
      el('td', { class: 'mono', text: s.decision.trigger }),
      el('td', { class: 'reason', text: `${s.decision.reason}${firedText(s.decision)}${s.afterStop ? ' (after the stop: would not have run)' : ''}` }),
    );
  });
  $('#loop-table tbody').replaceChildren(...rows);

  const a = report.analytics;
  $('#analytics-summary').textContent = a
    ? `IterationAnalytics: trajectory ${a.trajectory}; diminishing returns: ${a.diminishing.reason}${a.diminishing.detected ? ` (at iteration ${a.diminishing.iteration})` : ''}; best pick: ${a.selection.selected ? `iteration ${a.selection.selected.iteration_number}` : 'none'} (${a.selection.reason}).`
    : 'No analytics attached: the diminishing-returns check is off.';

  if (state.uPlot) {
    loopChart ??= new LoopChart(state.uPlot, $('#loop-chart'));
    loopChart.render(loopChartView(steps, stop, config));
  }
}

// ---------------------------------------------------------------------------
// (2) Pyramid view.

// One word per question: how a layer ran (ran / ran to check / not run), its own outcome
// (passed / failed: any failing test), and a prediction's (correct / wrong).
const STATUS_TEXT = { run: 'ran', exit: 'ran, exit here', verified: 'ran to check', mispredicted: 'ran to check', skipped: 'not run' };

// The verdict first: whether the build is red, green or not known (docs/pyramid-verdict.md).
const VERDICT_NOTE = {
  failed: 'a layer that ran or was verified has failing tests',
  passed: 'every layer ran or was verified, every test passed',
  unverified: 'no failure seen, but skipped layers never ran',
};

function renderVerdict(result) {
  const card = $('#verdict-card');
  card.hidden = result === null;
  if (result === null) return;
  card.dataset.verdict = result.verdict;
  $('#verdict').textContent = result.verdict;
  const failing = result.failingLayers ?? [];
  $('#failing-layers').textContent = failing.length > 0
    ? `failed layers: ${failing.map((f) => `${f.name} (layer ${f.layer})`).join(', ')}`
    : VERDICT_NOTE[result.verdict] ?? '';
}

function renderPyramid(run, { result, rows }, cfg) {
  renderVerdict(result);
  const exitName = rows[result.exitLayer]?.name;
  $('#exit-decision').textContent = result.exitedEarly ? `exit after ${exitName ? `${exitName} (layer ${result.exitLayer})` : `layer ${result.exitLayer}`}` : 'ran every layer';
  $('#exit-layer').textContent = result.exitedEarly ? `${result.exitLayer + 1} of ${rows.length} layers before the exit` : `${result.layers.length} of ${rows.length} layers run`;
  $('#exit-reason').textContent = result.exitReason;
  $('#exit-confidence').textContent = `confidence ${num(result.confidence)}`;
  $('#skipped-layers').textContent = String(result.skippedLayers);
  $('#verified-layers').textContent = String(result.verifiedLayers ?? result.speculations.filter((s) => s.verified).length);
  $('#mispredictions').textContent = String(result.mispredictions ?? '–');
  $('#compute-saved').textContent = result.computeSavedMs === undefined ? '' : `compute saved: ${ms(result.computeSavedMs)}`;
  $('.stat-stop', $('#pyramid-view')).classList.toggle('no-stop', !result.exitedEarly);
  const exitRow = rows[result.exitLayer];
  $('#exit-explanation').textContent = exitRow?.decision?.explanation ?? '–';

  const exp = run.expect;
  if (exp && 'exitedEarly' in exp) {
    const same = exp.exitedEarly === result.exitedEarly && exp.exitLayer === result.exitLayer && exp.exitReason === result.exitReason && (exp.mispredictions === undefined || exp.mispredictions === result.mispredictions);
    $('#pyramid-expect').textContent = `The file expects ${exp.exitedEarly ? `an exit after ${rows[exp.exitLayer]?.name ?? 'layer'} (layer ${exp.exitLayer}): ${exp.exitReason}` : 'no early exit'}${exp.mispredictions !== undefined ? `, ${exp.mispredictions} wrong prediction${exp.mispredictions === 1 ? '' : 's'}` : ''}: ${same ? 'matches ✓' : 'differs with this config'}.`;
  } else {
    $('#pyramid-expect').textContent = '';
  }

  const failing = new Set((result.failingLayers ?? []).map((f) => f.layer));
  const trs = rows.map((row) => {
    const r = row.status === 'skipped' ? row.recorded : (row.result ?? row.recorded);
    const sig = row.signal;
    const spec = row.speculation;
    const prediction = spec
      ? el('span', {}, `${spec.predicted} (${num(spec.confidence)})`, spec.verified ? el('span', {}, ' ', pill(spec.correct ? 'correct' : 'wrong', spec.correct ? 'correct' : 'mispredicted')) : ' · not checked')
      : '–';
    const decision = row.decision
      ? el('span', {}, pill(row.decision.reason, row.decision.canExit ? 'exit' : 'continue'), el('div', { class: 'reason', text: row.decision.explanation }))
      : '–';
    const o = r && typeof r === 'object' ? r : {};
    return el(
      'tr',
      { class: row.status === 'skipped' ? 'not-run' : row.status === 'exit' ? 'is-stop' : '', 'data-layer': String(row.index), 'data-status': row.status, 'data-failing': String(failing.has(row.index)) },
      el('td', { class: 'num', text: String(row.index) }),
      el('td', { text: row.name }),
      el('td', {}, pill(STATUS_TEXT[row.status], row.status === 'verified' || row.status === 'mispredicted' ? 'checked' : row.status)),
      el('td', { class: 'outcome' }, row.status === 'skipped' ? '–' : failing.has(row.index) ? pill('failed', 'failed') : pill('passed', 'passed')),
      el('td', { class: 'num', text: pct(o.passRate) }),
      el('td', { class: 'num', text: pct(o.coverage) }),
      el('td', { class: 'num', text: pct(o.flakyRatio) }),
      el('td', { class: 'num', text: sig ? num(sig.lambda, 1) : row.recordedSignal ? `(${num(row.recordedSignal.lambda, 1)})` : '–' }),
      el('td', { class: 'num', text: sig && row.decision ? num(sig.lambdaPrev, 1) : '–' }),
      el('td', { class: 'decision' }, decision),
      el('td', { class: 'prediction' }, prediction),
      el('td', { class: 'num', text: ms(row.costMs) }),
    );
  });
  $('#pyramid-table tbody').replaceChildren(...trs);

  if (state.uPlot) {
    pyramidChart ??= new PyramidChart(state.uPlot, $('#pyramid-chart'));
    const lam = (row, which) => (row.status === which || (which === 'run' && row.status === 'exit') ? (row.signal?.lambda ?? null) : null);
    pyramidChart.render({
      names: rows.map((r) => r.name),
      ran: rows.map((r) => lam(r, 'run')),
      verified: rows.map((r) => (r.status === 'verified' ? (r.signal?.lambda ?? null) : null)),
      mispredicted: rows.map((r) => (r.status === 'mispredicted' ? (r.signal?.lambda ?? null) : null)),
      notRun: rows.map((r) => (r.status === 'skipped' ? (r.recordedSignal?.lambda ?? null) : null)),
      minLambda: cfg.config.minLambdaForExit,
      exitLayer: result.exitedEarly ? result.exitLayer : null,
    });
  }
}

function renderSignal(run, { decision }) {
  renderVerdict(null); // one signal: no run, so no verdict
  $('#exit-decision').textContent = decision.canExit ? 'can exit' : 'continue';
  $('#exit-layer').textContent = `one signal at layer ${run.layer}`;
  $('#exit-reason').textContent = decision.reason;
  $('#exit-confidence').textContent = `confidence ${num(decision.confidence)}`;
  $('#skipped-layers').textContent = '–';
  $('#verified-layers').textContent = '–';
  $('#mispredictions').textContent = '–';
  $('#compute-saved').textContent = '';
  $('.stat-stop', $('#pyramid-view')).classList.toggle('no-stop', !decision.canExit);
  $('#exit-explanation').textContent = decision.explanation;
  const exp = run.expect;
  $('#pyramid-expect').textContent = exp && 'reason' in exp ? `The file expects ${exp.reason}: ${exp.reason === decision.reason ? 'matches ✓' : 'differs with this config'}.` : '';
  const s = run.signal ?? {};
  $('#pyramid-table tbody').replaceChildren(
    el(
      'tr',
      { 'data-layer': String(run.layer) },
      el('td', { class: 'num', text: String(run.layer) }),
      el('td', { text: 'hand-made signal' }),
      el('td', {}, pill('signal', 'run')),
      el('td', { text: '–' }),
      el('td', { text: '–' }),
      el('td', { text: '–' }),
      el('td', { text: '–' }),
      el('td', { class: 'num', text: num(s.lambda, 1) }),
      el('td', { class: 'num', text: num(s.lambdaPrev, 1) }),
      el('td', { class: 'decision' }, pill(decision.reason, decision.canExit ? 'exit' : 'continue'), el('div', { class: 'reason', text: `${decision.explanation} (mean shortfall ${num(s.boundaryConcentration)})` })),
      el('td', { text: '–' }),
      el('td', { text: '–' }),
    ),
  );
}

// ---------------------------------------------------------------------------
// (3) Live run: the same data fed one record at a time.

function initLive() {
  $('#live-step').addEventListener('click', () => liveStep());
  $('#live-play').addEventListener('click', () => (state.live?.timer ? stopPlaying() : play()));
  $('#live-reset').addEventListener('click', () => resetLive());
}

function stopPlaying() {
  if (state.live?.timer) {
    clearInterval(state.live.timer);
    state.live.timer = null;
  }
  $('#live-play').textContent = '▶ Play';
}

function play() {
  if (!state.live || state.live.finished) resetLive();
  if (!state.live || state.live.finished) return;
  $('#live-play').textContent = '⏸ Pause';
  state.live.timer = setInterval(() => {
    if (!liveStep()) stopPlaying();
  }, Number($('#live-speed').value));
}

function disposeLive() {
  if (!state.live) return;
  stopPlaying();
  state.live.engine?.dispose();
  state.live = null;
}

function liveLog(text, cls) {
  const log = $('#live-log');
  log.append(el('li', { class: cls, text }));
  log.scrollTop = log.scrollHeight;
}

function setLiveStatus(text, cls = '') {
  const s = $('#live-status');
  s.textContent = text;
  s.className = `live-status ${cls}`;
}

function finishLive() {
  state.live.finished = true;
  stopPlaying();
  $('#live-step').disabled = true;
}

function resetLive() {
  disposeLive();
  const run = state.run;
  const view = $('#live-view');
  $('#live-log').replaceChildren();
  $('#live-step').disabled = false;
  clearError('live');
  if (!run || run.kind === 'signal' || !state.ee) {
    view.hidden = true;
    return;
  }
  view.hidden = false;
  let engine;
  try {
    if (run.kind === 'loop') {
      const cfg = loopConfig();
      engine = new LoopReplay(state.ee, run, cfg.config, cfg.analytics);
    } else {
      const cfg = pyramidConfig();
      engine = new LivePyramid(state.ee, run, cfg.config, cfg.totalLayers);
    }
  } catch {
    // The config error is already on the page (evaluate); nothing to follow.
    setLiveStatus('Fix the config to follow this run live.');
    $('#live-step').disabled = true;
    $('#live-pipeline').hidden = true;
    $('#live-chart').hidden = true;
    return;
  }
  state.live = { engine, kind: run.kind, timer: null, finished: false, fed: 0 };
  if (run.kind === 'loop') {
    $('#live-explain').textContent = 'Feeds the iterations one by one to EarlyStopping (recordIterationResult, then shouldStop), as an agent loop would, and stops where the engine says stop.';
    $('#live-pipeline').hidden = true;
    $('#live-chart').hidden = false;
    if (state.uPlot) {
      liveChart ??= new LoopChart(state.uPlot, $('#live-chart'), { height: 220 });
      liveChart.render(loopChartView([], null, cfgOf(engine), liveRange(run)));
    }
    setLiveStatus(`Ready: ${run.iterations.length} iterations to feed. Press Step or Play.`);
  } else {
    $('#live-explain').textContent = 'Drives the PyramidRun step API: next() says which layer to run or verify, submit() feeds that layer\'s recorded result, result() assembles the outcome.';
    $('#live-chart').hidden = true;
    $('#live-pipeline').hidden = false;
    renderPipeline();
    const next = engine.next();
    setLiveStatus(`Ready. Next action: ${describeAction(next, run)}.`);
  }
}

// The live chart spans the whole run from the start.
function liveRange(run) {
  const its = run.iterations.map((it) => it.iteration).filter((n) => typeof n === 'number' && Number.isFinite(n));
  if (its.length === 0) return null;
  const lo = Math.min(...its);
  const hi = Math.max(...its);
  return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
}

function cfgOf(replay) {
  try {
    return replay.es.getConfig();
  } catch {
    return {};
  }
}

function describeAction(action, run) {
  if (action.action === 'done') return 'done';
  return `${action.action} layer ${action.layer} (${run.layers[action.layer]?.name ?? '?'})`;
}

// Returns whether another step is possible.
function liveStep() {
  if (!state.live) resetLive();
  const live = state.live;
  if (!live || live.finished) return false;
  const run = state.run;
  try {
    if (live.kind === 'loop') return liveLoopStep(live, run);
    return livePyramidStep(live, run);
  } catch (err) {
    showError('live', 'Live run stopped by an error', err);
    setLiveStatus(`Stopped by an error${err.line ? ` at line ${err.line}` : ''}.`, 'stopped');
    finishLive();
    return false;
  }
}

function liveLoopStep(live, run) {
  const replay = live.engine;
  if (replay.done) {
    finishLive();
    return false;
  }
  const s = replay.step();
  const d = s.decision;
  const r = s.result;
  const stopped = d.stop;
  liveLog(`Iteration ${s.iteration}: quality ${num(r.quality_score)}, confidence ${num(r.confidence)}, verification ${r.verification_status} → ${stopped ? `STOP (${d.trigger})` : 'continue'}: ${d.reason}${firedText(d)}`, stopped ? 'stop' : '');
  if (liveChart) liveChart.render(loopChartView(replay.steps, replay.stop, cfgOf(replay), liveRange(run)));
  if (stopped) {
    setLiveStatus(`Stopped at iteration ${s.iteration} of ${run.iterations.length}: ${d.trigger}. ${d.reason}.`, 'stopped');
    finishLive();
    return false;
  }
  if (replay.done) {
    setLiveStatus(`All ${run.iterations.length} iterations fed; the engine never said stop. ${d.reason}.`, 'done');
    finishLive();
    return false;
  }
  setLiveStatus(`Iteration ${s.iteration} of ${run.iterations.length}: continue. ${d.reason}.`);
  return true;
}

function renderPipeline(final = null, log = []) {
  const run = state.run;
  const done = new Map(log.map((e) => [e.action.layer, e]));
  const next = state.live && !final ? state.live.engine.next() : null;
  const boxes = run.layers.map((spec, i) => {
    let cls = 'pending';
    let detail = spec?.costMs !== undefined ? `cost ${ms(spec.costMs)}` : 'not run yet';
    const e = done.get(i);
    if (e) {
      cls = e.action.action === 'verify' ? 'verified' : 'run';
      detail = `${e.action.action === 'verify' ? 'ran to check' : 'ran'} · lambda ${e.signal ? num(e.signal.lambda, 1) : '–'}`;
    }
    if (final) {
      if (final.exitedEarly && i === final.exitLayer) { cls = 'exit'; detail += ` · exit: ${final.exitReason}`; }
      const spec2 = final.exitedEarly ? final.speculations[i - final.exitLayer - 1] : null;
      if (spec2) {
        if (spec2.verified) { cls = spec2.correct ? 'verified' : 'mispredicted'; detail = `predicted ${spec2.predicted}, was ${spec2.actual}: ${spec2.correct ? 'correct' : 'wrong'}`; }
        else { cls = 'skipped'; detail = `skipped · predicted ${spec2.predicted}`; }
      } else if (final.exitedEarly && i > final.exitLayer) {
        cls = 'skipped';
        detail = 'skipped';
      }
    }
    if (next && next.action !== 'done' && next.layer === i) cls += ' next';
    return el('div', { class: `layer-box ${cls}`, 'data-layer': String(i) }, el('div', { class: 'name', text: `${i} · ${spec?.name ?? '?'}` }), el('div', { class: 'detail', text: detail }));
  });
  $('#live-pipeline').replaceChildren(...boxes);
}

function livePyramidStep(live, run) {
  const engine = live.engine;
  const out = engine.step();
  if (out.action.action === 'done') {
    const f = out.final;
    liveLog(`done → result(): verdict ${f.verdict}${f.failingLayers?.length ? ` (failed: ${f.failingLayers.map((l) => l.name).join(', ')})` : ''}; ${f.exitedEarly ? `exited after ${run.layers[f.exitLayer]?.name ?? 'layer'} (layer ${f.exitLayer}): ${f.exitReason}` : 'no early exit'}; layers executed [${(f.layersExecuted ?? []).join(', ')}], verified ${f.verifiedLayers ?? '–'}, mispredictions ${f.mispredictions ?? '–'}, compute saved ${ms(f.computeSavedMs)}`, f.verdict === 'failed' || f.mispredictions ? 'stop' : '');
    setLiveStatus(`Done: verdict ${f.verdict}; ${f.exitedEarly ? `exited after ${run.layers[f.exitLayer]?.name ?? 'layer'} (layer ${f.exitLayer}): ${f.exitReason}, skipping ${f.skippedLayers}` : 'ran every layer'}${f.verifiedLayers ? `; ran ${f.verifiedLayers} to check, ${f.mispredictions} prediction${f.mispredictions === 1 ? '' : 's'} wrong` : ''}.`, 'done');
    renderPipeline(f, engine.log);
    finishLive();
    return false;
  }
  const { action, signal } = out;
  const next = engine.next();
  liveLog(`${action.action} layer ${action.layer} (${run.layers[action.layer]?.name}): submit(${action.layer}, {passRate ${num(out.result.passRate)}, coverage ${num(out.result.coverage)}, flakyRatio ${num(out.result.flakyRatio)}})${signal ? `, λ ${num(signal.lambda, 1)}` : ''} → next: ${describeAction(next, run)}`);
  renderPipeline(null, engine.log);
  setLiveStatus(`Next action: ${describeAction(next, run)}.`);
  return true;
}

boot().catch((err) => showError('boot', 'The dashboard failed to start', err));
