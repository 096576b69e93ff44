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

  test('a runner that answers the abort with a result: the run still rejects, no further layer starts', async () => {
    const controller = new AbortController();
    const calls = [0, 0, 0];
    const swallowing = (i) => ({
      name: NAMES[i],
      // Stops its work on abort but resolves with a result instead of rejecting.
      run: ({ signal }) => (calls[i] += 1, new Promise((resolve) => {
        if (i === 1) {
          signal.addEventListener('abort', () => resolve(SHAKY), { once: true });
          setTimeout(() => controller.abort(new Error('cancelled')), 1);
        } else resolve(SHAKY);
      })),
    });
    const run = new ee.EarlyExitController(null, 3).runWithEarlyExit([0, 1, 2].map(swallowing), { signal: controller.signal });
    await assert.rejects(run, /cancelled/);
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
      layersExecuted: [], verifiedLayers: 0, mispredictions: 0, computeSavedMs: 0, verdict: 'passed', failingLayers: [],
      layersBeforeExit: [], layersVerified: [], layersNotRun: [],
    });
  });

  // Results that explain themselves (docs/test-exit.md): the layers split three ways, each
  // prediction names its layer, and an exit that saved nothing says so.
  test('three layers under the default preset: exit, verify both, and a note that nothing was saved', async () => {
    const { list } = layers([PASS, PASS, PASS], 'sync', [5, 50, 500]);
    const r = await new ee.EarlyExitController(null, 3).runWithEarlyExit(list);
    assert.deepEqual([r.exitedEarly, r.skippedLayers, r.computeSavedMs], [true, 2, 0]);
    assert.deepEqual([r.layersBeforeExit, r.layersVerified, r.layersNotRun], [[0], [1, 2], []]);
    assert.match(r.note, /^nothing saved: /);
    assert.deepEqual(r.speculations.map((s) => [s.layer, s.name]), [[1, 'integration'], [2, 'contract']]);
    assert.deepEqual(Object.keys(r).slice(13), ['layersBeforeExit', 'layersVerified', 'layersNotRun', 'note']);
    // Five layers: two never run, no note; the JSON path answers the same as the fast path.
    const five = layers([PASS, PASS, PASS, PASS, PASS], 'sync', [1, 2, 3, 4, 5]);
    const r5 = await new ee.EarlyExitController(null, 5).runWithEarlyExit(five.list);
    assert.deepEqual([r5.layersBeforeExit, r5.layersVerified, r5.layersNotRun, 'note' in r5], [[0], [1, 2], [3, 4], false]);
    assert.deepEqual(r5.speculations.map((s) => s.layer), [1, 2, 3, 4]);
    const run = ee.PyramidRun.start(null, 5, five.list.map(({ name, costMs }) => ({ name, costMs })));
    for (let a = run.next(); a.action !== 'done'; a = run.next()) run.submit(a.layer, PASS);
    assert.deepEqual(run.result(), r5);
  });
});

// The verdict (docs/pyramid-verdict.md): a layer that ran or was verified with passRate < 1
// makes the run `failed`, whatever the exit decision or the ADR's 0.99 grading says.
describe(`the verdict: a red build never looks green (${IMPL})`, () => {
  const RED = { passRate: 0, coverage: 0.9, flakyRatio: 0 };
  const ALMOST = { passRate: 0.995, coverage: 0.95, flakyRatio: 0 }; // one test in 200 failed
  const NO_EXIT = { exitLayer: 99, adaptiveExitLayer: false }; // every layer runs
  const run = (config, results, total = results.length) => new ee.EarlyExitController(config, total).runWithEarlyExit(layers(results).list);

  test('a failing unit layer then a green one exits as confident_exit, and the verdict says failed', async () => {
    const result = await run(null, [RED, PASS, PASS]);
    assert.equal(result.exitReason, 'confident_exit');
    assert.ok(result.confidence > 0.9);
    assert.equal(result.verdict, 'failed');
    assert.deepEqual(result.failingLayers, [{ layer: 0, name: 'unit' }]);
  });

  test('a failing layer found by verification makes the run failed, not only a misprediction', async () => {
    const result = await run(ee.AGGRESSIVE_EXIT_CONFIG, [PASS, RED, PASS]);
    assert.deepEqual([result.exitedEarly, result.exitLayer, result.mispredictions], [true, 0, 1]);
    assert.equal(result.verdict, 'failed');
    assert.deepEqual(result.failingLayers, [{ layer: 1, name: 'integration' }]);
  });

  test('green layers with skipped, never-run layers are unverified; every layer run and green is passed', async () => {
    const skipped = await run({ exitLayer: 0, verificationLayers: 0 }, [PASS, PASS, PASS]);
    assert.deepEqual([skipped.exitedEarly, skipped.layersExecuted, skipped.verdict, skipped.failingLayers], [true, [0], 'unverified', []]);
    const verified = await run({ exitLayer: 0, verificationLayers: 5 }, [PASS, PASS, PASS]);
    assert.deepEqual([verified.exitedEarly, verified.layersExecuted, verified.verdict], [true, [0, 1, 2], 'passed']);
    const all = await run(NO_EXIT, [PASS, PASS, PASS]);
    assert.deepEqual([all.exitedEarly, all.verdict, all.failingLayers], [false, 'passed', []]);
  });

  test('passRate 0.995 is failing, though verification grades it pass (>= 0.99) and correct', async () => {
    const result = await run(ee.AGGRESSIVE_EXIT_CONFIG, [PASS, ALMOST, PASS]);
    assert.deepEqual([result.speculations[0].actual, result.speculations[0].correct, result.mispredictions], ['pass', true, 0]);
    assert.equal(result.verdict, 'failed');
    assert.deepEqual(result.failingLayers, [{ layer: 1, name: 'integration' }]);
  });

  test('every failing layer is listed, in run order, run and verified ones alike', async () => {
    const result = await run(NO_EXIT, [SHAKY, PASS, RED, ALMOST]);
    assert.deepEqual(result.failingLayers, [{ layer: 0, name: 'unit' }, { layer: 2, name: 'contract' }, { layer: 3, name: 'e2e' }]);
  });

  test('the fast path, the step API, a restored snapshot and the JSON path agree on every verdict', async () => {
    // runWithEarlyExit takes the numeric fast path for these layers; PyramidRun goes through
    // the core over JSON; a run restored from a snapshot mid-way replays its submissions.
    const kinds = [PASS, PASS, PASS, RED, ALMOST, SHAKY, { passRate: 1, coverage: 0.4, flakyRatio: 0.3 }];
    const configs = [ee.DEFAULT_EXIT_CONFIG, ee.AGGRESSIVE_EXIT_CONFIG, ee.CONSERVATIVE_EXIT_CONFIG, NO_EXIT, { exitLayer: 0, verificationLayers: 1 }];
    let seed = 7;
    const next = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n; // a fixed sequence
    const seen = new Set();
    for (let k = 0; k < 150; k++) {
      const n = 1 + next(5);
      const results = Array.from({ length: n }, () => kinds[next(kinds.length)]);
      const config = configs[k % configs.length];
      const fast = await run(config, results);
      const steps = ee.PyramidRun.start(config, n, results.map((_, i) => ({ name: NAMES[i] })));
      let snapshot = null;
      for (let action = steps.next(); action.action !== 'done'; action = steps.next()) {
        steps.submit(action.layer, structuredClone(results[action.layer]));
        if (snapshot === null) snapshot = steps.toJSON();
      }
      assert.deepEqual(fast, steps.result(), `step API, case ${k}`);
      const restored = ee.PyramidRun.fromJSON(snapshot);
      for (let action = restored.next(); action.action !== 'done'; action = restored.next()) {
        restored.submit(action.layer, structuredClone(results[action.layer]));
      }
      assert.deepEqual(restored.result(), fast, `restored, case ${k}`);
      // A layer object the fast path does not take (a numeric name) sends the run over JSON.
      const odd = layers(results).list.map((l, i) => (i === 0 ? { ...l, name: 0, run: l.run } : l));
      await assert.rejects(new ee.EarlyExitController(config, n).runWithEarlyExit(odd), (e) => e.field === 'layers[0].name');
      seen.add(fast.verdict);
    }
    assert.deepEqual([...seen].sort(), ['failed', 'passed', 'unverified']);
  });

  test('more layers than the fast path takes give the same verdict over JSON', async () => {
    const many = Array.from({ length: 45 }, (_, i) => (i === 44 ? RED : PASS));
    const names = Array.from({ length: 45 }, (_, i) => `l${i}`);
    const list = many.map((r, i) => ({ name: names[i], run: () => structuredClone(r) }));
    const result = await new ee.EarlyExitController(NO_EXIT, 45).runWithEarlyExit(list);
    assert.deepEqual([result.verdict, result.failingLayers], ['failed', [{ layer: 44, name: 'l44' }]]);
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
  const specs = [{ name: 'unit', costMs: 5 }, { name: 'integration', costMs: 50 }, { name: 'contract', costMs: 500 }];

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

// Layer objects: a key that nearly spells `name`, `costMs` or `run` (another binding's
// spelling, or within edit distance 2, letter case aside) is refused with a did-you-mean,
// where it would be ignored and `computeSavedMs` come back null; other keys are the caller's.
describe(`layer keys (${IMPL})`, () => {
  const run = () => PASS;
  for (const [key, suggestion] of [['cost_ms', 'costMs'], ['costMS', 'costMs'], ['cost', 'costMs'], ['nmae', 'name'], ['runs', 'run']]) {
    test(`${key}: unknown_option, did you mean '${suggestion}'`, async () => {
      const list = [{ name: 'unit', run, costMs: 1 }, { name: 'e2e', run, [key]: 9 }];
      const check = (e) => e instanceof TypeError && e.code === 'unknown_option' && e.field === `layers[1].${key}`
        && e.message.includes(`did you mean '${suggestion}'`);
      await assert.rejects(new ee.EarlyExitController(null, 2).runWithEarlyExit(list), check);
      await assert.rejects(new ee.EarlyExitController(null, 2).runWithEarlyExit(list, { policy: 'fail_fast' }), check);
      assert.throws(() => ee.PyramidRun.start(null, 2, list), check);
    });
  }

  test('other keys are the caller\'s own, and the costs count', async () => {
    const list = [{ name: 'unit', run, costMs: 1, timeout: 30, owner: 'ci' }, { name: 'e2e', run, costMs: 9, tags: ['slow'] }];
    const result = await new ee.EarlyExitController(ee.AGGRESSIVE_EXIT_CONFIG, 2).runWithEarlyExit(list);
    assert.notEqual(result.computeSavedMs, null);
    assert.equal(ee.PyramidRun.start(null, 2, list).next().action, 'run');
  });
});
