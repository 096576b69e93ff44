// The browser suite: the wasm web build in Debian's headless Chromium, driven
// by playwright-core (never a downloaded browser).
//
//   node --test tests/browser/          (scripts/test-browser.sh does this)
//
// - every conformance vector that applies to JS passes on tests/browser/vectors.html
//   (one test per tests/vectors/*.json file);
// - the dashboard (examples/dashboard/) shows, for every bundled example,
//   the stop point / exit decision its data file expects;
// - changing a config value in the page moves the stop point, and a bad value
//   shows the engine's error on the page;
// - malformed files show a clear error (JSON parse error with its line, the
//   engine's code and field) and never a blank page;
// - the live view follows a loop and a pyramid through the step API;
// - the replay module is fetched only on request: a page that calls init() (init-only.html)
//   and the dashboard at load never request earlyexit_replay_bg.wasm; a replay call before
//   init({ replay: true }) throws replay_not_loaded; a 404 for the module rejects that call
//   clearly, the engines still answer, and a retry loads it;
// - after a wasm trap, the call that trapped gets instance_trapped, later calls a fresh
//   instance, and objects made before it instance_reset;
// - screenshots go to test-output/dashboard.png (and dashboard-pyramid.png).
//
// Environment: CHROMIUM (default /usr/bin/chromium).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, REPO_ROOT } from './serve.mjs';
import { CHROMIUM, launchChromium } from './chromium.mjs';
const OUT_DIR = path.join(REPO_ROOT, 'test-output');
const VECTOR_DIR = path.join(REPO_ROOT, 'tests', 'vectors');
const DATA_DIR = path.join(REPO_ROOT, 'examples', 'data');

let server;
let context;
let browser;
let vectorResult = null;
const pageErrors = [];

const readJsonl = (file) =>
  fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
const loopRuns = readJsonl(path.join(DATA_DIR, 'loops.jsonl'))
  .filter((r) => Array.isArray(r.iterations) && r.expect && 'stop_at' in r.expect);
const pyramidRuns = readJsonl(path.join(DATA_DIR, 'pyramids.jsonl'))
  .filter((r) => Array.isArray(r.results) && r.expect && 'exitedEarly' in r.expect);
const vectorFiles = fs.readdirSync(VECTOR_DIR).filter((f) => f.endsWith('.json')).sort();

async function newPage() {
  const page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`${page.url()}: console error: ${msg.text()}`);
  });
  return page;
}

before(async () => {
  assert.ok(fs.existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: install Debian's chromium (scripts/setup.sh) or set CHROMIUM`);
  for (const f of ['bindings/wasm/web.mjs', 'bindings/wasm/api.mjs', 'bindings/wasm/pkg/web/earlyexit_wasm_bg.wasm', 'bindings/wasm/pkg/web/earlyexit_replay_bg.wasm', 'node_modules/uplot/dist/uPlot.esm.js']) {
    assert.ok(fs.existsSync(path.join(REPO_ROOT, f)), `${f} is missing: run scripts/build-wasm.sh and npm install (scripts/test-browser.sh does both)`);
  }
  server = await startServer({ port: 0 });
  browser = await launchChromium({ viewport: { width: 1360, height: 900 } });
  context = browser.context;
  fs.mkdirSync(OUT_DIR, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// ---------------------------------------------------------------------------
// Conformance vectors in the browser.

async function runVectorPage() {
  if (vectorResult) return vectorResult;
  const page = await newPage();
  await page.goto(`${server.url}/tests/browser/vectors.html`);
  await page.waitForSelector('body[data-done]', { timeout: 120_000 });
  vectorResult = JSON.parse(await page.textContent('#result'));
  vectorResult.status = await page.textContent('#status');
  await page.close();
  return vectorResult;
}

test('vector page runs in Chromium', async () => {
  const r = await runVectorPage();
  assert.equal(r.error, undefined, `the vector page failed to start: ${r.error}`);
  assert.ok(r.total > 0, 'no vector ran');
  console.log(`# vectors in Chromium: ${r.status}`);
  console.log(`# coverage: ${JSON.stringify(r.coverage)}`);
  // The seed's triggers and the opt-in options' (tests/vectors/loop_options.json).
  for (const t of ['none', 'high_confidence', 'quality_plateau', 'diminishing_returns', 'max_iterations', 'budget_exhausted', 'quality_regression']) {
    assert.ok(r.coverage.triggers[t] > 0, `no vector in Chromium expects trigger ${t}`);
  }
});

for (const file of vectorFiles) {
  test(`vectors in Chromium: ${file}`, async (t) => {
    const r = await runVectorPage();
    assert.equal(r.error, undefined, `the vector page failed to start: ${r.error}`);
    const row = r.byFile.find((f) => f.file === file);
    assert.ok(row, `${file} was not run by the page`);
    if (row.total === 0) {
      t.skip(`none of its ${row.skipped} vectors applies to JS`);
      return;
    }
    const failures = r.failures.filter((f) => f.file === file);
    assert.equal(
      row.failed,
      0,
      `${row.failed} of ${row.total} vectors failed:\n${failures.map((f) => `- ${f.name}\n    ${f.errors.join('\n    ')}`).join('\n')}`,
    );
    assert.equal(row.passed, row.total);
    if (file === 'bad_input.json') console.log(`bad-input matrix (browser): ${row.passed} cases passed, ${row.failed} failed, ${row.skipped} not for js`);
  });
}

// ---------------------------------------------------------------------------
// The replay module is fetched only on request (bindings/wasm/README.md "Two modules").

const REPLAY_FILE = 'earlyexit_replay_bg.wasm';
const REPLAY_GLUE = 'earlyexit_replay.js'; // wasm-bindgen's JS for it, imported on demand too
const ENGINES_FILE = 'earlyexit_wasm_bg.wasm';
const fileName = (url) => new URL(url).pathname.split('/').pop();

// A page of tests/browser/init-only.html (it calls init() and runs a loop), with every request
// it makes recorded. A fetch that is meant to fail logs a console error, so the pages whose
// replay fetch is routed to a 404 collect page errors only.
async function initOnlyPage({ failReplay = false } = {}) {
  const page = failReplay ? await context.newPage() : await newPage();
  if (failReplay) page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
  const requested = [];
  page.on('request', (req) => requested.push(fileName(req.url())));
  if (failReplay) await page.route(`**/${REPLAY_FILE}`, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
  await page.goto(`${server.url}/tests/browser/init-only.html`);
  await page.waitForSelector('body[data-done]');
  assert.equal(await page.getAttribute('body', 'data-done'), 'ready', await text(page, '#decision'));
  return { page, requested };
}

// Calls one replay function in the page; its answer, or the error it threw.
const tryReplay = (page) =>
  page.evaluate(() => {
    const it = (q, status = 'failed') => ({ quality_score: q, confidence: q / 100, verification_status: status });
    const runs = [{ id: 'zeros-then-pass', iterations: [it(0), it(0), it(0), it(0), it(100, 'passed')] }];
    try {
      return { outcome: window.earlyexit.replayLoops(runs, 'recommended').runs[0] };
    } catch (e) {
      return { error: { isError: e instanceof Error, name: e.constructor.name, code: e.code, field: e.field, message: e.message } };
    }
  });

// The engines answer (the page's own decision, and a fresh engine's).
async function assertEnginesAnswer(page) {
  const decision = JSON.parse(await text(page, '#decision'));
  assert.equal(decision.trigger, 'quality_plateau');
  assert.equal(decision.best_iteration, 4);
  const again = await page.evaluate(() => {
    const es = new window.earlyexit.EarlyStopping();
    es.recordIterationResult(1, { quality_score: 90, confidence: 0.99, verification_status: 'passed', quality_delta: 0 });
    return es.shouldStop(1).trigger;
  });
  assert.equal(again, 'high_confidence');
}

test('a page that only calls init() fetches the engines module and not the replay module', async () => {
  const { page, requested } = await initOnlyPage();
  await assertEnginesAnswer(page);
  assert.ok(requested.includes(ENGINES_FILE), `the engines module was not fetched: ${requested.join(', ')}`);
  assert.ok(!requested.includes(REPLAY_FILE), `init() fetched the replay module: ${requested.join(', ')}`);
  assert.ok(!requested.includes(REPLAY_GLUE), `init() fetched the replay module's glue: ${requested.join(', ')}`);
  await page.close();
});

test('replay before init({ replay: true }) throws replay_not_loaded; after it, replay works', async () => {
  const { page, requested } = await initOnlyPage();
  const before = await tryReplay(page);
  assert.ok(before.error, `replay answered without its module: ${JSON.stringify(before.outcome)}`);
  assert.deepEqual([before.error.isError, before.error.name, before.error.code, before.error.field], [true, 'Error', 'replay_not_loaded', 'replayLoops']);
  assert.match(before.error.message, /replayLoops needs the replay module \(earlyexit_replay_bg\.wasm\).*call await init\(\{ replay: true \}\) first/);
  assert.ok(!requested.includes(REPLAY_FILE), 'a replay call must not fetch the module by itself');

  await page.evaluate(() => window.earlyexit.init({ replay: true }));
  await page.evaluate(() => window.earlyexit.init({ replay: true })); // loaded once
  assert.equal(requested.filter((f) => f === REPLAY_FILE).length, 1, 'the replay module is fetched once');
  const after = await tryReplay(page);
  assert.equal(after.error, undefined, after.error?.message);
  assert.deepEqual([after.outcome.iterations_run, after.outcome.trigger, after.outcome.returned_iteration], [5, 'high_confidence', 5]);
  await assertEnginesAnswer(page);
  await page.close();
});

test('a replay module that fails to fetch rejects init({ replay: true }) clearly; the engines still answer; a retry works', async () => {
  const { page, requested } = await initOnlyPage({ failReplay: true });
  const notFound = (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
  const loadReplay = () =>
    page.evaluate(() =>
      window.earlyexit.init({ replay: true }).then(
        () => null,
        (e) => ({ isError: e instanceof Error, code: e.code, field: e.field, message: e.message, cause: String(e.cause?.message ?? e.cause) }),
      ));
  // First the glue (earlyexit_replay.js) cannot be fetched, then the .wasm: both reject the call.
  await page.route(`**/${REPLAY_GLUE}`, notFound);
  const glueFailed = await loadReplay();
  assert.deepEqual([glueFailed?.code, glueFailed?.field], ['replay_load_failed', 'replay']);
  assert.match(glueFailed.message, /could not load the replay module \(earlyexit_replay_bg\.wasm\): .*earlyexit_replay\.js/);
  await assertEnginesAnswer(page);
  await page.unroute(`**/${REPLAY_GLUE}`);

  const failed = await loadReplay(); // initOnlyPage routed the .wasm to a 404
  assert.ok(failed, 'init({ replay: true }) resolved although the module answered 404');
  assert.deepEqual([failed.isError, failed.code, failed.field], [true, 'replay_load_failed', 'replay']);
  assert.match(failed.message, /could not load the replay module \(earlyexit_replay_bg\.wasm\): .*404.*await init\(\{ replay: true \}\) tries again/);
  assert.match(failed.cause, /404/);
  await assertEnginesAnswer(page);
  const meanwhile = await tryReplay(page);
  assert.equal(meanwhile.error?.code, 'replay_not_loaded');
  assert.match(meanwhile.error.message, /did not load \(.*404.*\): call await init\(\{ replay: true \}\) first/);

  await page.unroute(`**/${REPLAY_FILE}`);
  assert.equal(await loadReplay(), null, 'the retry loads the module');
  assert.equal(requested.filter((f) => f === REPLAY_FILE).length, 2, 'the retry fetches the module again');
  assert.equal((await tryReplay(page)).outcome?.trigger, 'high_confidence');
  await assertEnginesAnswer(page);
  await page.close();
});

// ---------------------------------------------------------------------------
// A trap (bindings/wasm/README.md "Memory and traps"): the call that trapped gets a
// typed error, later calls a fresh instance, objects made before instance_reset.

test('after a trap: instance_trapped for that call, a fresh instance for later calls, instance_reset for old objects', async () => {
  const { page } = await initOnlyPage();
  const got = await page.evaluate(async () => {
    const ee = window.earlyexit;
    const glue = await import('/bindings/wasm/pkg/web/earlyexit_wasm.js'); // the instance web.mjs uses
    const errorOf = (call) => {
      try {
        call();
        return null;
      } catch (e) {
        return { name: e.constructor.name, code: e.code, field: e.field, cause: e.cause?.constructor?.name };
      }
    };
    const record = (i) => ({ quality_score: 50 + (i % 3), confidence: 0.6, verification_status: 'failed', quality_delta: i % 3 });
    const analytics = new ee.IterationAnalytics();
    analytics.recordIteration({ iteration_number: 1, quality_score: 60, verification_status: 'passed' });
    const loop = new ee.EarlyStopping({ plateauConsecutiveCount: 3 });
    const control = new ee.EarlyStopping({ plateauConsecutiveCount: 3 });
    for (let i = 1; i <= 3; i++) [loop, control].forEach((es) => es.recordIterationResult(i, record(i)));
    loop.shouldStop();
    // Exhaust the instance's memory (the wasm32 maximum), so the next large call traps.
    const memory = glue.wasmMemory();
    memory.grow(65536 - memory.buffer.byteLength / 65536);
    const text = JSON.stringify(new ee.EarlyStopping().toJSON()) + ' '.repeat(4 << 20);
    const trapped = errorOf(() => ee.EarlyStopping.fromJSON(text));
    const fresh = glue.wasmMemory() !== memory && glue.wasmMemory().buffer.byteLength < 64 << 20;
    const restored = ee.EarlyStopping.fromJSON(text).getIterationHistory().length;
    const reset = errorOf(() => analytics.generateSummary());
    analytics.free();
    const same = [4, 5, 6].every((i) => {
      loop.recordIterationResult(i, record(i));
      control.recordIterationResult(i, record(i));
      return JSON.stringify(loop.shouldStop()) === JSON.stringify(control.shouldStop());
    });
    const run = await new ee.EarlyExitController(null, 2).runWithEarlyExit([
      { name: 'unit', costMs: 1, run: () => ({ passRate: 1, coverage: 0.9, flakyRatio: 0 }) },
      { name: 'e2e', costMs: 9, run: () => ({ passRate: 1, coverage: 0.9, flakyRatio: 0 }) },
    ]);
    return { trapped, fresh, restored, reset, same, executed: run.layersExecuted };
  });
  assert.deepEqual(got.trapped, { name: 'Error', code: 'instance_trapped', field: 'instance', cause: 'RuntimeError' });
  assert.equal(got.fresh, true, 'later calls go to a fresh instance');
  assert.equal(got.restored, 0);
  assert.deepEqual(got.reset, { name: 'Error', code: 'instance_reset', field: 'this', cause: undefined });
  assert.equal(got.same, true, 'an EarlyStopping made before the trap decides as before');
  assert.deepEqual(got.executed, [0, 1]);
  await assertEnginesAnswer(page);
  await page.close();
});

// ---------------------------------------------------------------------------
// The dashboard.

let dash;

const dashRequests = [];

async function dashboard() {
  if (dash) return dash;
  dash = await newPage();
  dash.on('request', (req) => dashRequests.push(fileName(req.url())));
  await dash.goto(`${server.url}/examples/dashboard/`);
  await dash.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return dash;
}

const text = async (page, sel) => (await page.textContent(sel)).trim();

// Waits until the page has evaluated again after an action.
async function afterEvaluation(page, action) {
  const before = await page.evaluate(() => document.body.dataset.evaluated ?? '0');
  await action();
  await page.waitForFunction((b) => (document.body.dataset.evaluated ?? '0') !== b, before, { timeout: 10_000 });
}

async function selectExample(page, value) {
  await afterEvaluation(page, () => page.selectOption('#example-select', value));
}

test('dashboard loads the engine, uPlot and the bundled examples', async () => {
  const page = await dashboard();
  assert.equal(await page.getAttribute('#engine-status', 'data-state'), 'ready');
  await page.waitForSelector('#replay-view[data-ready="true"]');
  assert.ok(dashRequests.includes(ENGINES_FILE), 'the engines module was not fetched');
  assert.ok(!dashRequests.includes(REPLAY_FILE), 'the dashboard fetched the replay module at load');
  assert.ok(!dashRequests.includes(REPLAY_GLUE), 'the dashboard fetched the replay module\'s glue at load');
  const values = await page.$$eval('#example-select option', (os) => os.map((o) => o.value).filter(Boolean));
  for (const r of loopRuns) assert.ok(values.includes(`loops.jsonl:${r.id}`), `example ${r.id} is not offered`);
  for (const r of pyramidRuns) assert.ok(values.includes(`pyramids.jsonl:${r.id}`), `example ${r.id} is not offered`);
  assert.ok(await page.isHidden('#error'), `an error is shown: ${await text(page, '#error')}`);
  assert.ok(await page.$('#loop-chart canvas'), 'the quality chart (uPlot canvas) is missing');
});

test('dashboard shows the stop point each bundled loop expects', async () => {
  const page = await dashboard();
  assert.ok(loopRuns.length > 0, 'no loop example with an expectation in examples/data/loops.jsonl');
  for (const run of loopRuns) {
    await selectExample(page, `loops.jsonl:${run.id}`);
    assert.ok(await page.isHidden('#error'), `${run.id}: error shown: ${await text(page, '#error')}`);
    const want = run.expect;
    assert.equal(await text(page, '#stop-iteration'), want.stop_at === null ? 'none' : String(want.stop_at), `${run.id}: stop iteration`);
    assert.equal(await text(page, '#stop-trigger'), want.trigger, `${run.id}: trigger`);
    if ('best_iteration' in want) assert.equal(await text(page, '#best-iteration'), String(want.best_iteration), `${run.id}: best iteration`);
    const rows = await page.$$eval('#loop-table tbody tr', (trs) => trs.length);
    assert.equal(rows, run.iterations.length, `${run.id}: one table row per iteration`);
    const reason = await text(page, '#stop-reason');
    assert.ok(reason.length > 10 && reason !== '–', `${run.id}: a reason is shown`);
    if (want.stop_at !== null) {
      const stopRow = await page.$eval('#loop-table tr.is-stop', (tr) => tr.dataset.iteration);
      assert.equal(stopRow, String(want.stop_at), `${run.id}: the stop row is highlighted`);
    }
  }
});

test('dashboard shows the exit decision each bundled pyramid expects', async () => {
  const page = await dashboard();
  assert.ok(pyramidRuns.length > 0, 'no pyramid example with an expectation in examples/data/pyramids.jsonl');
  const verdicts = new Set();
  for (const run of pyramidRuns) {
    await selectExample(page, `pyramids.jsonl:${run.id}`);
    assert.ok(await page.isHidden('#error'), `${run.id}: error shown: ${await text(page, '#error')}`);
    const want = run.expect;
    assert.equal(await text(page, '#exit-reason'), want.exitReason, `${run.id}: exit reason`);
    const exitName = run.layers?.[want.exitLayer]?.name;
    assert.equal(await text(page, '#exit-decision'), want.exitedEarly ? `exit after ${exitName} (layer ${want.exitLayer})` : 'ran every layer', `${run.id}: exit decision`);
    if ('verifiedLayers' in want) assert.equal(await text(page, '#verified-layers'), String(want.verifiedLayers), `${run.id}: verified layers`);
    if ('mispredictions' in want) assert.equal(await text(page, '#mispredictions'), String(want.mispredictions), `${run.id}: mispredictions`);
    const statuses = await page.$$eval('#pyramid-table tbody tr', (trs) => trs.map((tr) => tr.dataset.status));
    assert.equal(statuses.length, run.results.length, `${run.id}: one row per layer`);
    if (Array.isArray(want.layersExecuted)) {
      const executed = statuses.map((s, i) => (s === 'skipped' ? null : i)).filter((i) => i !== null);
      assert.deepEqual(executed, want.layersExecuted, `${run.id}: executed layers (run or verified)`);
    }
    if (want.mispredictions > 0) assert.ok(statuses.includes('mispredicted'), `${run.id}: the misprediction is marked`);
    // The verdict comes first (docs/pyramid-verdict.md), by its rule over the layers that ran
    // or were verified: any with passRate < 1 fails the run; all observed and green passes it.
    const observed = statuses.map((s, i) => (s === 'skipped' ? null : i)).filter((i) => i !== null);
    const failing = observed.filter((i) => run.results[i].passRate < 1);
    const verdict = failing.length > 0 ? 'failed' : observed.length === run.results.length ? 'passed' : 'unverified';
    assert.equal(await page.$eval('#pyramid-view .cards > .stat', (card) => card.id), 'verdict-card', `${run.id}: the verdict is the first card`);
    assert.ok(await page.isVisible('#verdict-card'), `${run.id}: the verdict is shown`);
    assert.equal(await text(page, '#verdict'), verdict, `${run.id}: verdict`);
    assert.equal(await page.getAttribute('#verdict-card', 'data-verdict'), verdict, `${run.id}: the card is coloured by the verdict`);
    const names = failing.map((i) => `${run.layers[i].name} (layer ${i})`).join(', ');
    if (failing.length > 0) assert.equal(await text(page, '#failing-layers'), `failed layers: ${names}`, `${run.id}: failed layers`);
    const marked = await page.$$eval('#pyramid-table tbody tr', (trs) => trs.map((tr, i) => (tr.dataset.failing === 'true' ? i : null)).filter((i) => i !== null));
    assert.deepEqual(marked, failing, `${run.id}: the failing rows are marked`);
    verdicts.add(verdict);
    if (Array.isArray(want.decisions)) {
      const reasons = await page.$$eval('#pyramid-table tbody tr td.decision .pill', (ps) => ps.map((p) => p.textContent.trim()));
      assert.deepEqual(reasons, want.decisions, `${run.id}: the decision at each executed layer`);
    }
    assert.ok(await page.$('#pyramid-chart canvas'), `${run.id}: the lambda chart is missing`);
  }
  assert.deepEqual([...verdicts].sort(), ['failed', 'passed', 'unverified'], 'the bundled pyramids show every verdict');
  // A single hand-made signal is no run: no verdict card.
  await selectExample(page, 'pyramids.jsonl:signal/boundaries-concentrated');
  assert.ok(await page.isHidden('#verdict-card'), 'a signal line has no verdict');
});

test('changing a config value re-runs the engine and moves the stop point', async () => {
  const page = await dashboard();
  await selectExample(page, 'loops.jsonl:synthetic/quality-plateau');
  assert.equal(await text(page, '#stop-iteration'), '4');
  assert.equal(await text(page, '#stop-trigger'), 'quality_plateau');
  const input = '#loop-config input[name="plateauConsecutiveCount"]';
  assert.equal(await page.inputValue(input), '3');

  await afterEvaluation(page, () => page.fill(input, '2'));
  assert.equal(await text(page, '#stop-iteration'), '3', 'a shorter plateau stops earlier');
  assert.match(await text(page, '#stop-reason'), /2 consecutive iterations/);

  // A longer plateau: diminishing returns (the next check) fires first, at 4;
  // without it the plateau of 6 completes at iteration 7.
  await afterEvaluation(page, () => page.fill(input, '6'));
  assert.equal(await text(page, '#stop-iteration'), '4');
  assert.equal(await text(page, '#stop-trigger'), 'diminishing_returns');
  await afterEvaluation(page, () => page.uncheck('#loop-config input[name="enableDiminishingReturns"]'));
  assert.equal(await text(page, '#stop-iteration'), '7', 'a longer plateau stops later');
  assert.equal(await text(page, '#stop-trigger'), 'quality_plateau');

  // A value the engine rejects: its error, code and field on the page, the input marked.
  await afterEvaluation(page, () => page.fill('#loop-config input[name="highConfidenceThreshold"]', '1.5'));
  assert.ok(await page.isVisible('#error'), 'an invalid config shows an error');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'invalid_config');
  assert.equal(await page.getAttribute('#error', 'data-field'), 'highConfidenceThreshold');
  assert.match(await text(page, '#error-message'), /highConfidenceThreshold/);
  assert.equal(await page.getAttribute('#loop-config input[name="highConfidenceThreshold"]', 'aria-invalid'), 'true');

  await afterEvaluation(page, () => page.fill('#loop-config input[name="highConfidenceThreshold"]', '0.95'));
  assert.ok(await page.isHidden('#error'), 'the error goes away once the value is valid');
  assert.equal(await text(page, '#stop-iteration'), '7');

  // Turning plateau detection off: the engine goes on to diminishing returns.
  await afterEvaluation(page, () => page.click('#loop-reset'));
  assert.equal(await text(page, '#stop-iteration'), '4');
  await afterEvaluation(page, () => page.uncheck('#loop-config input[name="enablePlateauDetection"]'));
  assert.equal(await text(page, '#stop-trigger'), 'diminishing_returns');
  await afterEvaluation(page, () => page.click('#loop-reset'));
});

test('changing the exit config moves the pyramid exit', async () => {
  const page = await dashboard();
  await selectExample(page, 'pyramids.jsonl:default/regression-caught');
  assert.equal(await text(page, '#verified-layers'), '2');
  assert.equal(await text(page, '#mispredictions'), '1');
  await afterEvaluation(page, () => page.fill('#pyramid-config input[name="verificationLayers"]', '0'));
  assert.equal(await text(page, '#verified-layers'), '0', 'no verification with verificationLayers 0');
  assert.equal(await text(page, '#mispredictions'), '0', 'an unverified misprediction is not seen');
  await afterEvaluation(page, () => page.fill('#pyramid-config input[name="minLambdaForExit"]', '99'));
  assert.equal(await text(page, '#exit-decision'), 'ran every layer', 'a strict lambda never exits');
  await afterEvaluation(page, () => page.click('#pyramid-reset'));
  assert.equal(await text(page, '#exit-decision'), 'exit after unit (layer 0)');
});

async function loadFile(page, name, body) {
  await page.setInputFiles('#file-input', { name, mimeType: 'application/x-ndjson', buffer: Buffer.from(body) });
}

test('a malformed file shows the parse error with its line, not a blank page', async () => {
  const page = await dashboard();
  const good = '{"quality_score": 50, "confidence": 0.5, "verification_status": "failed", "quality_delta": 0}';
  await loadFile(page, 'broken.jsonl', `${good}\n${good}\n{"quality_score": 51, "confidence": 0.5,\n`);
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.getAttribute('#error', 'data-line'), '3');
  assert.match(await text(page, '#error-message'), /broken\.jsonl, line 3: not valid JSON/);
  assert.equal(await page.getAttribute('#error', 'data-code'), 'json_parse');
  assert.ok(await page.isVisible('#data-heading'), 'the page is still there');
  assert.ok(await page.isVisible('#example-select'));
  assert.ok(await page.isHidden('#loop-view'), 'no stale results next to the error');

  await loadFile(page, 'array.jsonl', `${good}\n[1, 2]\n`);
  await page.waitForFunction(() => document.querySelector('#error').dataset.line === '2');
  assert.match(await text(page, '#error-message'), /line 2: expected a JSON object, got an array/);

  await loadFile(page, 'empty.jsonl', '\n\n');
  await page.waitForFunction(() => document.querySelector('#error').dataset.code === 'empty_file');
  assert.match(await text(page, '#error-message'), /empty/);
});

test('a file the engine rejects shows its code, field and line', async () => {
  const page = await dashboard();
  const lines = [
    '{"quality_score": 50, "confidence": 0.5, "verification_status": "failed", "quality_delta": 0}',
    '{"quality_score": "high", "confidence": 0.6, "verification_status": "passed", "quality_delta": 1}',
  ];
  await loadFile(page, 'bad-value.jsonl', lines.join('\n'));
  await page.waitForFunction(() => document.querySelector('#error').dataset.field === 'quality_score');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'invalid_result');
  assert.equal(await page.getAttribute('#error', 'data-line'), '2');
  assert.match(await text(page, '#error-message'), /bad-value\.jsonl, line 2 \(iteration 2\)/);
  assert.match(await text(page, '#error-field'), /quality_score/);

  await loadFile(page, 'bad-status.jsonl', lines[0].replace('"failed"', '"maybe"'));
  await page.waitForFunction(() => document.querySelector('#error').dataset.field === 'verification_status');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'invalid_result');

  const layer = '{"name": "unit", "costMs": 1000, "passRate": 1.5, "coverage": 0.9, "flakyRatio": 0}';
  await loadFile(page, 'bad-layer.jsonl', layer);
  await page.waitForFunction(() => document.querySelector('#error').dataset.code === 'invalid_layer_result');
  assert.match(await page.getAttribute('#error', 'data-field'), /passRate/);
});

test('a file of several runs offers each of them', async () => {
  const page = await dashboard();
  const body = fs.readFileSync(path.join(DATA_DIR, 'loops.jsonl'));
  await afterEvaluation(page, () => page.setInputFiles('#file-input', { name: 'loops.jsonl', mimeType: 'application/x-ndjson', buffer: body }));
  assert.ok(await page.isVisible('#run-select'), 'a picker for the runs in the file');
  assert.equal(await page.$$eval('#run-select option', (os) => os.length), readJsonl(path.join(DATA_DIR, 'loops.jsonl')).length);
  const run = loopRuns.find((r) => r.id === 'synthetic/high-confidence');
  const index = readJsonl(path.join(DATA_DIR, 'loops.jsonl')).findIndex((r) => r.id === run.id);
  await afterEvaluation(page, () => page.selectOption('#run-select', String(index)));
  assert.equal(await text(page, '#stop-iteration'), String(run.expect.stop_at));
  assert.equal(await text(page, '#stop-trigger'), run.expect.trigger);
});

test('without the wasm build the page says so instead of going blank', async () => {
  const page = await context.newPage(); // no error listeners: the failed request is the point
  await page.route('**/*.wasm', (route) => route.abort());
  await page.goto(`${server.url}/examples/dashboard/`);
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await text(page, '#error-title'), /Could not load the WebAssembly build/);
  assert.match(await text(page, '#error-message'), /scripts\/build-wasm\.sh/);
  assert.equal(await page.getAttribute('#engine-status', 'data-state'), 'error');
  assert.ok(await page.isVisible('#data-heading'));
  await page.close();
});

test('a plain log of iteration results is replayed and can be followed live', async () => {
  const page = await dashboard();
  const scores = [40, 60, 75, 76, 76.5, 76.8];
  const log = scores
    .map((q, i) => JSON.stringify({ quality_score: q, confidence: q / 100, verification_status: q >= 70 ? 'passed' : 'failed', quality_delta: i === 0 ? 0 : Math.round((q - scores[i - 1]) * 10) / 10 }))
    .join('\n');
  await afterEvaluation(page, () => loadFile(page, 'my-loop.jsonl', log));
  assert.ok(await page.isHidden('#error'), `error shown: ${await text(page, '#error')}`);
  assert.equal(await text(page, '#stop-iteration'), '5');
  assert.equal(await text(page, '#stop-trigger'), 'quality_plateau');

  // Live: step through the same lines until the engine says stop.
  assert.ok(await page.isVisible('#live-view'));
  for (let i = 0; i < 4; i++) await page.click('#live-step');
  assert.match(await text(page, '#live-status'), /^Iteration 4 of 6: continue/);
  await page.click('#live-step');
  assert.match(await text(page, '#live-status'), /^Stopped at iteration 5 of 6: quality_plateau/);
  assert.ok(await page.isDisabled('#live-step'), 'no step after the stop');
  assert.equal(await page.$$eval('#live-log li', (li) => li.length), 5);
});

test('the live view drives a pyramid through the PyramidRun step API', async () => {
  const page = await dashboard();
  await selectExample(page, 'pyramids.jsonl:default/regression-caught');
  assert.match(await text(page, '#live-status'), /Next action: run layer 0 \(unit\)/);
  await page.click('#live-play');
  await page.waitForFunction(() => /^Done:/.test(document.querySelector('#live-status').textContent), null, { timeout: 20_000 });
  assert.match(await text(page, '#live-status'), /^Done: verdict failed; exited after unit \(layer 0\): confident_exit.*ran 2 to check, 1 prediction wrong/);
  const boxes = await page.$$eval('#live-pipeline .layer-box', (bs) => bs.map((b) => b.className.replace('layer-box', '').trim()));
  assert.deepEqual(boxes, ['exit', 'mispredicted', 'verified', 'skipped']);
  assert.ok(await page.isHidden('#error'));
});

// --- Loop replay view (examples/dashboard/replay.js, docs/replay.md) ---
test('the replay view loads a loop replay file and shows each run\'s decision', async () => {
  const page = await dashboard();
  await page.waitForSelector('#replay-view[data-ready="true"]');
  // Every view so far (loops, pyramids, live runs) ran without the replay module.
  assert.ok(!dashRequests.includes(REPLAY_FILE), 'the replay module was fetched before the replay view used it');
  const it = (q, status = 'failed') => ({ quality_score: q, confidence: q / 100, verification_status: status });
  const body = [
    { id: 'zeros-then-pass', dataset: 'demo', iterations: [it(0), it(0), it(0), it(0), it(100, 'passed')] },
    { id: 'good-plateau', dataset: 'demo', iterations: [it(50), it(80), it(80), it(80), it(80), it(80), it(80)] },
  ].map((r) => JSON.stringify(r)).join('\n');
  const replayed = async (action) => {
    const before = await page.getAttribute('#replay-view', 'data-replayed');
    await action();
    await page.waitForFunction((b) => (document.querySelector('#replay-view').dataset.replayed ?? null) !== b, before);
  };
  const row = (id) => page.$$eval(`#replay-table tr[data-run="${id}"] td`, (tds) => tds.map((td) => td.textContent.trim()));
  await replayed(() => page.setInputFiles('#replay-file', { name: 'runs.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(body) }));
  assert.equal(dashRequests.filter((f) => f === REPLAY_FILE).length, 1, 'the first replay file fetches the replay module once');
  assert.equal(await page.getAttribute('#replay-view', 'data-replay-module'), 'loaded');
  assert.equal(await page.$$eval('#replay-table tbody tr', (trs) => trs.length), 2);
  // recommended: three zeros are no plateau, the pass at 5 stops; a plateau of good work
  // stops after 5 flat records and returns the best (earliest 80), not the last.
  let [id, dataset, stop, trigger, returned, best, gap, flag] = await row('zeros-then-pass');
  assert.deepEqual([id, dataset, stop, trigger, returned, best, gap, flag], ['zeros-then-pass', 'demo', '5 / 5', 'high_confidence', '#5 (100)', '#5 (100)', '0', '']);
  [, , stop, trigger, returned, best] = await row('good-plateau');
  assert.deepEqual([stop, trigger, returned, best], ['6 / 7', 'quality_plateau', '#2 (80)', '#2 (80)']);
  assert.match(await text(page, '#replay-summary'), /^2 runs · 5\.50 iterations per run .* 0 premature stops/);
  // The seed's rules stop the zeros on a plateau before the pass: a premature stop.
  await replayed(() => page.selectOption('#replay-policy', 'seed'));
  [, , stop, trigger, returned, best, gap, flag] = await row('zeros-then-pass');
  assert.deepEqual([stop, trigger, returned, best, gap, flag], ['3 / 5', 'quality_plateau', '#3 (0)', '#5 (100)', '100', 'premature']);
  assert.ok(await page.$('#replay-table tr.premature[data-run="zeros-then-pass"]'));
  // A composed policy (docs/loop-policies.md): the plateau and the missing new best fire together.
  await replayed(() => page.selectOption('#replay-policy', 'composed'));
  let reason;
  [, , stop, trigger, returned, best, gap, flag, reason] = await row('good-plateau');
  assert.deepEqual([stop, trigger, returned], ['4 / 7', 'quality_plateau', '#2 (80)']);
  assert.match(reason, /^Quality plateau detected: .* AND No improvement: 2 consecutive iterations without a new best/);
  [, , stop, trigger] = await row('zeros-then-pass');
  assert.deepEqual([stop, trigger], ['5 / 5', 'high_confidence']);
  await replayed(() => page.selectOption('#replay-policy', 'seed'));
  await page.locator('#replay-view').screenshot({ path: path.join(OUT_DIR, 'dashboard-replay.png') });
  // A malformed run: the engine's code and path, no stale table.
  await replayed(() => page.setInputFiles('#replay-file', { name: 'bad.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${body}\n{"id": "x", "iterations": [{"quality_score": 150, "confidence": 1, "verification_status": "failed"}]}`) }));
  assert.match(await text(page, '#replay-error'), /invalid_replay: runs\[2\]\.iterations\[0\]\.quality_score/);
  assert.ok(await page.isHidden('#replay-results'));
});

test('the replay view shows the calibration frontier of the loaded runs', async () => {
  const page = await dashboard();
  await page.waitForSelector('#replay-view[data-ready="true"]');
  const it = (q, status = 'failed') => ({ quality_score: q, confidence: q / 100, verification_status: status });
  // 40 tasks: 30 pass at once, 10 pass after four zeros. Conservative candidates stop none
  // of them early (p = 0.9^40 = 0.015 <= 0.1: certified at risk 0.1); aggressive ones stop
  // all ten (not certified), so the chosen policy lies in between.
  const runs = [];
  for (let i = 0; i < 30; i += 1) runs.push({ id: `once-${i}`, iterations: [it(100, 'passed')] });
  for (let i = 0; i < 10; i += 1) runs.push({ id: `late-${i}`, iterations: [it(0), it(0), it(0), it(0), it(100, 'passed')] });
  const body = runs.map((r) => JSON.stringify(r)).join('\n');
  const step = async (action, attr) => {
    const before = await page.getAttribute('#replay-view', attr);
    await action();
    await page.waitForFunction(([a, b]) => (document.querySelector('#replay-view').getAttribute(a) ?? null) !== b, [attr, before]);
  };
  await step(() => page.setInputFiles('#replay-file', { name: 'runs.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(body) }), 'data-replayed');
  await page.fill('#calibration-risk', '0.1');
  await page.fill('#calibration-delta', '0.1');
  await step(() => page.click('#calibrate'), 'data-calibrated');
  assert.match(await text(page, '#calibration-message'), /^certified: the premature-stop rate of the chosen policy is at most 0\.1/);
  const rows = await page.$$eval('#calibration-frontier tbody tr', (trs) => trs.map((tr) => [tr.className, tr.lastChild.textContent]));
  assert.ok(rows.length > 20, `${rows.length} candidates`);
  assert.equal(rows.filter(([cls]) => cls.includes('chosen')).length, 1);
  const tests = rows.map(([, t]) => t);
  const firstFailed = tests.indexOf('not certified');
  assert.ok(firstFailed > 0 && tests.slice(0, firstFailed).every((t) => t === 'certified'), tests.join(','));
  assert.ok(tests.slice(firstFailed + 1).every((t) => t === 'not tested'), 'fixed sequence: nothing after the first failure is tested');
  await page.locator('#replay-view').screenshot({ path: path.join(OUT_DIR, 'dashboard-calibration.png') });
  // Too few tasks for risk 0.025: said so, the most conservative policy, nothing tested.
  await page.fill('#calibration-risk', '0.025');
  await step(() => page.click('#calibrate'), 'data-calibrated');
  assert.match(await text(page, '#calibration-message'), /^cannot certify: 40 tasks/);
  assert.equal(await page.$$eval('#calibration-frontier tr.chosen', (trs) => trs.length), 0);
  // A bad risk: the engine's code and field.
  await page.fill('#calibration-risk', '2');
  await step(() => page.click('#calibrate'), 'data-calibrated');
  assert.match(await text(page, '#calibration-error'), /invalid_config: risk/);
});

test('the replay view says when the replay module cannot be fetched, and the next file retries', async () => {
  const page = await context.newPage(); // the 404 logs a console error: collect page errors only
  page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
  await page.route(`**/${REPLAY_FILE}`, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
  await page.goto(`${server.url}/examples/dashboard/`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('#replay-view[data-ready="true"]');
  const body = JSON.stringify({ id: 'one', iterations: [{ quality_score: 100, confidence: 1, verification_status: 'passed' }] });
  const load = async () => {
    const before = await page.getAttribute('#replay-view', 'data-replayed');
    await page.setInputFiles('#replay-file', { name: 'runs.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(body) });
    await page.waitForFunction((b) => (document.querySelector('#replay-view').dataset.replayed ?? null) !== b, before);
  };
  await load();
  assert.equal(await page.getAttribute('#replay-view', 'data-replay-module'), 'failed');
  assert.match(await text(page, '#replay-error'), /replay_load_failed: replay\].*could not load the replay module \(earlyexit_replay_bg\.wasm\).*404/);
  assert.ok(await page.isHidden('#replay-results'));
  // The rest of the page still works.
  await selectExample(page, 'loops.jsonl:synthetic/quality-plateau');
  assert.equal(await text(page, '#stop-iteration'), '4');
  assert.ok(await page.isHidden('#error'), `error shown: ${await text(page, '#error')}`);

  await page.unroute(`**/${REPLAY_FILE}`);
  await load();
  assert.equal(await page.getAttribute('#replay-view', 'data-replay-module'), 'loaded');
  assert.ok(await page.isHidden('#replay-error'));
  assert.deepEqual(await page.$$eval('#replay-table tbody tr', (trs) => trs.map((tr) => tr.dataset.run)), ['one']);
  await page.close();
});
// --- end of loop replay view ---

test('the shadow-mode report checks a receipt log and shows its rates per slice', async () => {
  const page = await dashboard();
  await page.waitForSelector('#shadow-view[data-ready="true"]');
  // Receipts as the core writes them, chained here with Node's own SHA-256 over the canonical
  // JSON (tests/vectors/receipt_doc.mjs): an independent check of the digest the page verifies.
  const { chainLog, receipt } = await import('../vectors/receipt_doc.mjs');
  const runLabels = ['main', 'main', undefined, 'release'];
  const bodies = ['correct_skip', 'false_pass', 'correct_skip', 'needless_run'].map((label, i) => (
    { ...receipt(label, { runLabel: runLabels[i] }), policy: label === 'needless_run' ? 'fail_fast' : 'risk_bounded' }));
  const lines = chainLog(bodies).trimEnd().split('\n');
  const shown = async (body) => {
    const before = await page.getAttribute('#shadow-view', 'data-shown');
    await page.setInputFiles('#shadow-file', { name: 'receipts.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(body) });
    await page.waitForFunction((b) => (document.querySelector('#shadow-view').dataset.shown ?? null) !== b, before);
  };
  await shown(lines.join('\n') + '\n');
  assert.match(await text(page, '#shadow-chain'), /^chain valid: 4 receipts, head [0-9a-f]{64}$/);
  const rows = await page.$$eval('#shadow-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent.trim())));
  assert.deepEqual(rows[0].slice(0, 5), ['all receipts', '4', '2', '1', '1']);
  assert.match(rows[0][5], /^1\/3 = 33\.3% \[/);
  assert.deepEqual(rows.map((r) => r[0]), ['all receipts', 'risk_bounded', 'fail_fast', 'label main', 'label release']);
  assert.deepEqual(rows[3].slice(1, 5), ['2', '1', '1', '0']);
  assert.match(rows[3][5], /^1\/2 = 50\.0% \[/);
  // An edited line: where the chain breaks, nothing after it counted.
  await shown([lines[0], lines[1].replace('false_pass', 'correct_skip'), lines[2]].join('\n'));
  assert.match(await text(page, '#shadow-chain'), /BROKEN at line 2 \(sha256\)/);
});

test('screenshots of the dashboard', async () => {
  const page = await dashboard();
  await selectExample(page, 'pyramids.jsonl:default/regression-caught');
  await page.screenshot({ path: path.join(OUT_DIR, 'dashboard-pyramid.png'), fullPage: true });
  await selectExample(page, 'loops.jsonl:synthetic/quality-plateau');
  for (let i = 0; i < 4; i++) await page.click('#live-step');
  assert.ok(await page.isHidden('#error'), `an error is shown: ${await text(page, '#error')}`);
  await page.screenshot({ path: path.join(OUT_DIR, 'dashboard.png'), fullPage: true });
  assert.ok(fs.statSync(path.join(OUT_DIR, 'dashboard.png')).size > 10_000);
  console.log(`# screenshots: ${path.relative(REPO_ROOT, OUT_DIR)}/dashboard.png, dashboard-pyramid.png`);
});

test('no uncaught error or console error in any page', async () => {
  assert.deepEqual(pageErrors, []);
  if (dash) assert.notEqual(await dash.getAttribute('#error', 'data-scope'), 'page', 'the dashboard caught an unexpected error');
});

// Last: a policy's decisions load the replay module, which the tests above check is not
// fetched until the replay view needs it.
test('a loop run with a composed stop policy shows which conditions fired at each iteration', async () => {
  const page = await dashboard();
  const it = (q) => ({ quality_score: q, confidence: 0.5, verification_status: 'failed', quality_delta: 0 });
  const policy = { any: [{ condition: 'max_iterations', limit: 9 }, { all: ['quality_plateau', { condition: 'no_improvement', patience: 2 }] }] };
  const run = { id: 'composed', policy, iterations: [it(70), it(80), it(80), it(80), it(80)] };
  await afterEvaluation(page, () => loadFile(page, 'composed.jsonl', JSON.stringify(run)));
  assert.ok(await page.isHidden('#error'), `error shown: ${await text(page, '#error')}`);
  assert.equal(await text(page, '#stop-iteration'), '4');
  assert.equal(await text(page, '#stop-trigger'), 'quality_plateau');
  const reason = await text(page, '#loop-table tr[data-iteration="4"] td.reason');
  assert.match(reason, / AND No improvement: .*\[fired: quality_plateau at any\[1\]\.all\[0\], no_improvement at any\[1\]\.all\[1\]\]$/);
  assert.doesNotMatch(await text(page, '#loop-table tr[data-iteration="3"] td.reason'), /fired/);
});

// A run store read through its export (docs/store.md): the command's `earlyexit runs export`
// JSONL, given to the replay view as `?runs=URL`.
const COMMAND = [process.env.EARLYEXIT_COMMAND, path.join(REPO_ROOT, 'target/release/earlyexit'), path.join(REPO_ROOT, 'target/debug/earlyexit')]
  .find((p) => p && fs.existsSync(p));
test('the replay view reads a run store\'s export given as ?runs=', { skip: !COMMAND && 'skipped: no earlyexit command (cargo build -p earlyexit-cli, or set EARLYEXIT_COMMAND)' }, async () => {
  const { spawnSync } = await import('node:child_process');
  const dir = path.join(OUT_DIR, 'store-export');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const it = (q, status = 'failed') => ({ quality_score: q, confidence: q / 100, verification_status: status });
  const runs = [
    { id: 'stored-pass', dataset: 'store', iterations: [it(0), it(0), it(0), it(0), it(100, 'passed')] },
    { id: 'stored-plateau', dataset: 'store', iterations: [it(50), it(80), it(80), it(80), it(80), it(80), it(80)] },
    { id: 'other-label', dataset: 'store', iterations: [it(90, 'passed')] },
  ];
  fs.writeFileSync(path.join(dir, 'in.jsonl'), runs.slice(0, 2).map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'other.jsonl'), JSON.stringify(runs[2]) + '\n');
  const store = `sqlite:${path.join(dir, 'store.db')}`;
  for (const args of [
    ['runs', 'import', '--store', store, '--run-label', 'browser', path.join(dir, 'in.jsonl')],
    ['runs', 'import', '--store', store, '--run-label', 'other', path.join(dir, 'other.jsonl')],
    ['runs', 'export', '--store', store, '--run-label', 'browser', '--out', path.join(dir, 'runs.jsonl')],
  ]) {
    const ran = spawnSync(COMMAND, args, { encoding: 'utf8' });
    assert.equal(ran.status, 0, ran.stderr);
  }
  const page = await newPage();
  await page.goto(`${server.url}/examples/dashboard/?runs=/test-output/store-export/runs.jsonl`);
  await page.waitForSelector('#replay-view[data-replayed="1"]', { timeout: 30_000 });
  assert.ok(await page.isHidden('#replay-error'), `error shown: ${await text(page, '#replay-error')}`);
  const ids = await page.$$eval('#replay-table tbody tr', (trs) => trs.map((tr) => tr.dataset.run));
  assert.deepEqual(ids, ['stored-pass', 'stored-plateau'], 'the export of label `browser` only');
  const cells = await page.$$eval('#replay-table tr[data-run="stored-pass"] td', (tds) => tds.map((td) => td.textContent.trim()));
  assert.deepEqual(cells.slice(0, 4), ['stored-pass', 'store', '5 / 5', 'high_confidence']);
  assert.match(await text(page, '#replay-file-name'), /^runs\.jsonl \(from \?runs=\)$/);
  await page.locator('#replay-view').screenshot({ path: path.join(OUT_DIR, 'dashboard-store-export.png') });
  await page.close();
});
