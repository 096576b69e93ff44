// The async test-pyramid loop (runWithEarlyExit) and the step API: sync and async runners,
// runner errors (the same object, no result made up), AbortSignal, runner call counts,
// concurrent runs, snapshots of a run in progress.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import ee, { IMPL } from './impl.mjs';

const PASS = { passRate: 1, coverage: 0.95, flakyRatio: 0 };
const SHAKY = { passRate: 0.7, coverage: 0.6, flakyRatio: 0.2 };
const NAMES = ['unit', 'integration', 'contract', 'e2e', 'performance'];

// Layers whose runners answer `results[i]`, counting calls; `mode` picks sync or async.
function layers(results, mode = 'sync', costs = []) {
  const calls = results.map(() => 0);
  const list = results.map((result, i) => ({
    name: NAMES[i],
    ...(costs[i] === undefined ? {} : { costMs: costs[i] }),
    run() {
      calls[i] += 1;
      const value = typeof result === 'function' ? result(calls[i]) : structuredClone(result);
      if (mode === 'sync') return value;
      if (mode === 'promise') return Promise.resolve(value);
      return sleep(1).then(() => value);
    },
  }));
  return { list, calls };
}

describe(`runWithEarlyExit (${IMPL})`, () => {
  test('sync, Promise-returning and truly async runners give the same result', async () => {
    const results = [PASS, PASS, PASS, PASS];
    const outcomes = [];
    for (const mode of ['sync', 'promise', 'async']) {
      const { list, calls } = layers(results, mode, [10, 20, 30, 40]);
      const result = await new ee.EarlyExitController(null, 4).runWithEarlyExit(list);
      outcomes.push(result);
      // Exit after layer 0 of four: layers 1 and 2 are verified (verificationLayers 2), 3 never runs.
      assert.deepEqual(calls, [1, 1, 1, 0]);
      assert.deepEqual(result.layersExecuted, [0, 1, 2]);
      assert.equal(result.computeSavedMs, 40);
    }
    assert.deepEqual(outcomes[1], outcomes[0]);
    assert.deepEqual(outcomes[2], outcomes[0]);
    assert.equal(outcomes[0].exitedEarly, true);
    assert.equal(outcomes[0].exitReason, 'confident_exit');
    assert.equal(outcomes[0].skippedLayers, 3);
    assert.equal(outcomes[0].verifiedLayers, 2);
  });

  test('no exit: every layer runs once, previousLambda stamped from layer 1 on, the caller\'s objects untouched', async () => {
    const given = [SHAKY, SHAKY, SHAKY];
    const { list, calls } = layers(given);
    const result = await new ee.EarlyExitController(ee.CONSERVATIVE_EXIT_CONFIG, 3).runWithEarlyExit(list);
    assert.deepEqual(calls, [1, 1, 1]);
    assert.equal(result.exitedEarly, false);
    assert.equal(result.exitReason, 'forced_continue');
    assert.equal(result.layers[0].previousLambda, undefined);
    assert.equal(result.layers[1].previousLambda, 60);
    assert.deepEqual(given[1], SHAKY);
    assert.equal(result.computeSavedMs, 0);
  });

  test('runners are called as methods of their layer', async () => {
    let self = null;
    const layer = { name: 'unit', run() { self = this; return PASS; } };
    await new ee.EarlyExitController(null, 1).runWithEarlyExit([layer]);
    assert.equal(self, layer);
  });

  test('a runner that throws rejects the run with that same error, and no later layer runs', async () => {
    for (const mode of ['sync', 'promise', 'async']) {
      const boom = new Error(`integration crashed (${mode})`);
      const { list, calls } = layers([SHAKY, () => { throw boom; }, PASS], mode);
      if (mode !== 'sync') list[1].run = () => (calls[1] += 1, mode === 'promise' ? Promise.reject(boom) : sleep(1).then(() => { throw boom; }));
      await assert.rejects(new ee.EarlyExitController(null, 3).runWithEarlyExit(list), (e) => e === boom);
      assert.deepEqual(calls, [1, 1, 0]);
    }
  });

  test('a runner that fails during verification rejects the run with its error', async () => {
    const boom = new TypeError('e2e environment gone');
    const { list, calls } = layers([PASS, (n) => { throw boom; }, PASS]);
    await assert.rejects(new ee.EarlyExitController(null, 3).runWithEarlyExit(list), (e) => e === boom);
    assert.deepEqual(calls, [1, 1, 0]);
  });

  test('non-Error throwables propagate too', async () => {
    const { list } = layers([() => { throw 'plain string'; }]);
    await assert.rejects(new ee.EarlyExitController(null, 1).runWithEarlyExit(list), (e) => e === 'plain string');
  });

  test('an invalid runner result is a typed error naming the layer', async () => {
    const { list, calls } = layers([SHAKY, { passRate: 1.5, coverage: 1, flakyRatio: 0 }, PASS]);
    await assert.rejects(new ee.EarlyExitController(null, 3).runWithEarlyExit(list),
      (e) => e instanceof RangeError && e.code === 'invalid_layer_result' && e.field === 'layers[1].passRate');
    assert.deepEqual(calls, [1, 1, 0]);
  });

  test('an aborted signal: nothing runs', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by user'));
    const { list, calls } = layers([PASS, PASS]);
    await assert.rejects(new ee.EarlyExitController(null, 2).runWithEarlyExit(list, { signal: controller.signal }), /cancelled by user/);
    assert.deepEqual(calls, [0, 0]);
  });

  test('aborting during a slow runner rejects at once with the signal\'s reason; no further layer starts', async () => {
    const controller = new AbortController();
    const calls = [0, 0, 0];
    const slow = (i, ms) => ({ name: NAMES[i], run: () => (calls[i] += 1, sleep(ms).then(() => SHAKY)) });
    const started = Date.now();
    const run = new ee.EarlyExitController(null, 3).runWithEarlyExit([slow(0, 1), slow(1, 800), slow(2, 1)], { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await assert.rejects(run, (e) => e.name === 'AbortError');
    assert.ok(Date.now() - started < 500, 'the run did not wait for the slow runner');
    assert.deepEqual(calls, [1, 1, 0]);
  });

  test('a runner that aborts the signal itself stops the run after its layer', async () => {
    const controller = new AbortController();
    const { list, calls } = layers([SHAKY, () => (controller.abort('stop here'), SHAKY), SHAKY]);
    await assert.rejects(new ee.EarlyExitController(null, 3).runWithEarlyExit(list, { signal: controller.signal }), (e) => e === 'stop here');
    assert.deepEqual(calls, [1, 1, 0]);
  });

  test('a signal that never fires changes nothing', async () => {
    const { list } = layers([PASS, PASS, PASS], 'async');
    const plain = await new ee.EarlyExitController(null, 3).runWithEarlyExit(layers([PASS, PASS, PASS]).list);
    const withSignal = await new ee.EarlyExitController(null, 3).runWithEarlyExit(list, { signal: new AbortController().signal });
    assert.deepEqual(withSignal, plain);
  });

  test('concurrent runs on one controller share nothing', async () => {
    const controller = new ee.EarlyExitController(ee.AGGRESSIVE_EXIT_CONFIG, 3);
    const a = layers([SHAKY, PASS, PASS], 'async');
    const b = layers([PASS, SHAKY, PASS], 'async');
    const [ra, rb] = await Promise.all([controller.runWithEarlyExit(a.list), controller.runWithEarlyExit(b.list)]);
    assert.deepEqual(ra, await controller.runWithEarlyExit(layers([SHAKY, PASS, PASS]).list));
    assert.deepEqual(rb, await controller.runWithEarlyExit(layers([PASS, SHAKY, PASS]).list));
  });

  test('an empty pyramid', async () => {
    const result = await new ee.EarlyExitController(null, 1).runWithEarlyExit([]);
    assert.deepEqual({ ...result }, {
      layers: [], exitedEarly: false, exitLayer: -1, exitReason: 'forced_continue', confidence: 1, speculations: [], skippedLayers: 0,
      layersExecuted: [], verifiedLayers: 0, mispredictions: 0, computeSavedMs: 0,
    });
  });
});

describe(`SpeculativeExecutor (${IMPL})`, () => {
  test('speculate and verify, with the runners of the skipped layers', async () => {
    const speculator = new ee.SpeculativeExecutor({ verificationLayers: 1 });
    const predictions = await speculator.speculate({ confidence: 0.9 }, ['a', 'b']);
    assert.deepEqual(predictions, [{ predicted: 'pass', confidence: 0.9, verified: false }, { predicted: 'pass', confidence: 0.9, verified: false }]);
    const { list, calls } = layers([{ passRate: 0.5, coverage: 0.9, flakyRatio: 0.3 }, PASS], 'async');
    const verified = await speculator.verify(predictions, list);
    assert.deepEqual(calls, [1, 0]);
    assert.deepEqual(verified[0], { predicted: 'pass', confidence: 0.9, verified: true, actual: 'flaky', correct: false });
    assert.deepEqual(verified[1], predictions[1]);
    assert.deepEqual(await speculator.predictLayerOutcome(null, { confidence: 0.5 }), { predicted: 'fail', confidence: 0.5, verified: false });
  });
});

describe(`PyramidRun, the step API (${IMPL})`, () => {
  const specs = [{ name: 'unit', costMs: 5 }, { name: 'integration', costMs: 50 }, { name: 'e2e', costMs: 500 }];

  test('next() / submit() / result() drive a run the way runWithEarlyExit does', async () => {
    const run = ee.PyramidRun.start(null, 3, specs);
    const seen = [];
    for (let action = run.next(); action.action !== 'done'; action = run.next()) {
      assert.deepEqual(run.next(), action, 'next() advances nothing');
      seen.push(`${action.action} ${action.layer}`);
      run.submit(action.layer, PASS);
    }
    assert.deepEqual(seen, ['run 0', 'verify 1', 'verify 2']);
    const { list } = layers([PASS, PASS, PASS], 'sync', [5, 50, 500]);
    assert.deepEqual(run.result(), await new ee.EarlyExitController(null, 3).runWithEarlyExit(list));
    assert.throws(() => run.submit(0, PASS), (e) => e instanceof RangeError && e.code === 'invalid_step' && e.field === 'layer');
  });

  test('a run in progress survives a snapshot (as a CI job would hand it on)', () => {
    const run = new ee.PyramidRun(ee.CONSERVATIVE_EXIT_CONFIG, 3, specs);
    run.submit(0, SHAKY);
    const text = JSON.stringify(run.toJSON());
    run.free();
    const resumed = ee.PyramidRun.fromJSON(text);
    assert.deepEqual(resumed.next(), { action: 'run', layer: 1 });
    resumed.submit(1, SHAKY);
    resumed.submit(2, PASS);
    assert.deepEqual(resumed.next(), { action: 'done' });
    const result = resumed.result();
    assert.deepEqual(result.layersExecuted, [0, 1, 2]);
    assert.deepEqual(ee.PyramidRun.fromJSON(resumed.toJSON()).result(), result);
  });

  test('every run is its own value', () => {
    const a = ee.PyramidRun.start(null, 3, specs);
    const b = ee.PyramidRun.start(null, 3, specs);
    a.submit(0, SHAKY);
    assert.deepEqual(b.next(), { action: 'run', layer: 0 });
    assert.deepEqual(a.next(), { action: 'run', layer: 1 });
  });
});
