// The fail-fast and risk-bounded policies run live: EarlyExitController and PyramidRun with
// `{ policy, mode, model, policyConfig }`, on both builds. A live run decides as the replay of
// the same recorded run does (seeded runs here; the public CI builds in tests/python).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const result = (failed, durationMs) => ({ passRate: failed ? 0.5 : 1, coverage: 1, flakyRatio: 0, durationMs });
const layersOf = (names, fails, costs) => names.map((name, i) => ({ name, costMs: costs[i], run: () => result(fails[i], costs[i]) }));

// A model that has seen `n` green runs of the layers.
function greenModel(names, costs, n) {
  let model = null;
  const ran = names.map((name, i) => ({ name, failed: false, durationMs: costs[i] }));
  for (let i = 0; i < n; i++) model = ee.pyramidPolicyUpdate(model, ran, { config: { forgetting: 1 } });
  return model;
}

test('fail_fast: the given order, a stop at the failing layer, the report', async () => {
  const controller = new ee.EarlyExitController(undefined, 3, { policy: 'fail_fast' });
  const r = await controller.runWithEarlyExit(layersOf(['unit', 'integration', 'e2e'], [false, true, false], [10, 40, 90]));
  assert.deepEqual(r.layersExecuted, [0, 1]);
  assert.deepEqual([r.exitedEarly, r.exitLayer, r.exitReason, r.skippedLayers, r.confidence], [true, 1, 'layer_failed', 1, 1]);
  assert.deepEqual([r.speculations, r.verifiedLayers, r.mispredictions, r.computeSavedMs], [[], 0, 0, 90]);
  assert.equal(r.verdict, 'failed');
  assert.deepEqual(r.failingLayers, [{ layer: 1, name: 'integration' }]);
  assert.equal(r.layers.length, 2);
  assert.equal(r.layers[0].previousLambda, undefined, 'a policy run stamps no previousLambda');
  const p = r.policy;
  assert.deepEqual([p.policy, p.mode, p.risk, p.skipped], ['fail_fast', 'enforced', null, [2]]);
  assert.equal(p.config.riskBudget, 0);
  assert.deepEqual(p.steps, [{ layer: 0, risk: null }, { layer: 1, risk: null }]);
  assert.deepEqual(p.ran, [{ name: 'unit', failed: false, durationMs: 10 }, { name: 'integration', failed: true, durationMs: 40 }]);
  // The same controller without a failure: every layer, verdict passed, no early exit.
  const green = await controller.runWithEarlyExit(layersOf(['unit', 'integration', 'e2e'], [false, false, false], [10, 40, 90]));
  assert.deepEqual([green.exitedEarly, green.exitLayer, green.exitReason, green.verdict], [false, 2, 'completed', 'passed']);
});

test('risk_bounded: the model orders the layers and skips within the budget', async () => {
  const names = ['lint', 'unit', 'e2e'];
  const costs = [1, 10, 100];
  const model = greenModel(names, costs, 800);
  const controller = new ee.EarlyExitController(undefined, 3, { policy: 'risk_bounded', model, policyConfig: { forgetting: 1 } });
  const r = await controller.runWithEarlyExit(layersOf(names, [false, false, false], costs));
  assert.deepEqual([r.layersExecuted, r.exitReason, r.skippedLayers, r.exitedEarly, r.verdict], [[0], 'risk_bounded', 2, true, 'unverified']);
  assert.equal(r.computeSavedMs, 110);
  assert.ok(r.policy.risk <= r.policy.config.riskBudget, `${r.policy.risk}`);
  assert.equal(r.confidence, 1 - r.policy.risk);
  assert.equal(r.speculations.length, 2);
  assert.ok(r.speculations.every((s) => s.predicted === 'pass' && s.verified === false && s.confidence > 1 - r.policy.risk));
  assert.deepEqual(r.policy.counts.map((c) => [c.layer, c.name, c.trials, c.failures]), [[0, 'lint', 800, 0], [1, 'unit', 800, 0], [2, 'e2e', 800, 0]]);
  // A run's own options replace the controller's key by key: fail_fast never skips.
  const ff = await controller.runWithEarlyExit(layersOf(names, [false, false, false], costs), { policy: 'fail_fast' });
  assert.deepEqual([ff.layersExecuted, ff.exitReason], [[0, 1, 2], 'completed']);
  // ... and an empty model knows nothing, so nothing is skipped (null is "not given": the controller's).
  const empty = { version: 1, engine: 'PyramidOutcomeModel', layers: [] };
  const fresh = await controller.runWithEarlyExit(layersOf(names, [false, false, false], costs), { model: empty });
  assert.equal(fresh.exitReason, 'completed');
  const same = await controller.runWithEarlyExit(layersOf(names, [false, false, false], costs), { model: null });
  assert.equal(same.exitReason, 'risk_bounded');
  // policy 'adr' on the run: the ADR's result, unchanged (no `policy` key).
  const adr = await new ee.EarlyExitController(undefined, 3).runWithEarlyExit(layersOf(names, [false, false, false], costs));
  const asAdr = await new ee.EarlyExitController(undefined, 3, { policy: 'adr' }).runWithEarlyExit(layersOf(names, [false, false, false], costs));
  assert.deepEqual(asAdr, adr);
  assert.equal('policy' in adr, false);
});

test('PyramidRun with a policy: the step API, toJSON and fromJSON mid-run', () => {
  const names = ['lint', 'unit', 'e2e'];
  const model = greenModel(names, [1, 10, 100], 100);
  const options = { policy: 'risk_bounded', model, policyConfig: { forgetting: 1, riskBudget: 0.05 } };
  const run = ee.PyramidRun.start(undefined, 3, names.map((name, i) => ({ name, costMs: [1, 10, 100][i] })), options);
  const first = run.next();
  assert.deepEqual(first, { action: 'run', layer: 0 });
  run.submit(0, result(false, 1));
  const snapshot = run.toJSON();
  assert.equal(snapshot.engine, 'PyramidPolicyRun');
  const restored = ee.PyramidRun.fromJSON(JSON.stringify(snapshot));
  assert.deepEqual(restored.next(), run.next());
  assert.deepEqual(restored.toJSON(), snapshot);
  while (run.next().action !== 'done') run.submit(run.next().layer, result(false, 5));
  while (restored.next().action !== 'done') restored.submit(restored.next().layer, result(false, 5));
  assert.deepEqual(restored.result(), run.result());
  // An ADR snapshot still restores as before.
  const adr = ee.PyramidRun.start(undefined, 2, [{ name: 'a' }, { name: 'b' }]);
  assert.deepEqual(ee.PyramidRun.fromJSON(adr.toJSON()).next(), { action: 'run', layer: 0 });
  assert.throws(() => run.submit(0, result(false, 1)), (e) => e.code === 'invalid_step' && e.field === 'layer');
  run.free();
  assert.throws(() => run.next(), /freed/);
});

// A seeded generator of recorded runs.
function recordedRuns(seed, count, profile) {
  let state = seed;
  const rand = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: count }, (_, r) => ({
    id: `run-${r}`,
    layers: profile.map(([name, ms, p]) => ({ name, durationMs: ms + (r % 7), failed: rand() < p })),
  }));
}

test('a live run decides as the replay of the same recorded run', async () => {
  const profiles = [
    [['unit', 10, 0.2], ['integration', 50, 0.002], ['e2e', 300, 0.001]],
    [['a', 5, 0.01], ['b', 6, 0.01], ['c', 7, 0.005], ['d', 8, 0]],
  ];
  let stops = 0;
  for (const [seed, profile] of profiles.entries()) {
    const runs = recordedRuns(seed + 3, 300, profile);
    for (const options of [{ policy: 'fail_fast' }, { policy: 'risk_bounded', config: { forgetting: 1, riskBudget: 0.05 } }]) {
      const replayed = ee.replayPyramids(runs, options);
      let model = null;
      for (const [i, run] of runs.entries()) {
        const controller = new ee.EarlyExitController(undefined, run.layers.length, { policy: options.policy, model, policyConfig: options.config });
        const r = await controller.runWithEarlyExit(layersOf(run.layers.map((l) => l.name), run.layers.map((l) => l.failed), run.layers.map((l) => l.durationMs)));
        const played = replayed.runs[i];
        assert.deepEqual([r.layersExecuted, r.exitReason, r.policy.risk], [played.executed, played.reason, played.risk], `${seed} ${options.policy} run ${i}`);
        model = ee.pyramidPolicyUpdate(model, r.policy.ran, { policy: options.policy, config: options.config });
      }
      assert.deepEqual(model, replayed.model);
      stops += replayed.summary.riskBoundedStops;
    }
  }
  assert.ok(stops > 50, `risk-bounded stops compared: ${stops}`);
});

test('bad options are typed errors naming the key; nothing runs', async () => {
  let ran = 0;
  const layers = [{ name: 'a', run: () => { ran++; return result(false, 1); } }];
  const refused = (options, check) => assert.throws(() => new ee.EarlyExitController(undefined, 1, options), check);
  refused({ mode: 'shade' }, (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'mode');
  refused({ mode: 'shadow', policyConfig: { riskBudget: 0.1 } }, (e) => e.code === 'invalid_config' && e.field === 'policyConfig');
  refused({ policy: 'fastest' }, (e) => e instanceof RangeError && e.field === 'policy');
  refused({ model: {} }, (e) => e.code === 'invalid_config' && e.field === 'model');
  refused({ policy: 'fail_fast', model: { version: 9 } }, (e) => e.code === 'invalid_snapshot' && e.field.startsWith('model'));
  refused({ policy: 'risk_bounded', policyConfig: { riskBudget: 2 } }, (e) => e.field === 'policyConfig.riskBudget');
  refused({ polcy: 'fail_fast' }, (e) => e.code === 'unknown_option' && e.field === 'polcy' && /policy/.test(e.message));
  refused(7, (e) => e instanceof TypeError && e.field === 'options');
  const controller = new ee.EarlyExitController(undefined, 1);
  await assert.rejects(controller.runWithEarlyExit(layers, { mode: 'shade' }), (e) => e.field === 'mode');
  await assert.rejects(controller.runWithEarlyExit(layers, { polcy: 'x' }), (e) => e.code === 'unknown_option' && /did you mean 'policy'/.test(e.message));
  await assert.rejects(controller.runWithEarlyExit([{ name: 'a', run: layers[0].run }, { name: 'a', run: layers[0].run }], { policy: 'risk_bounded' }),
    (e) => e.code === 'invalid_config' && e.field === 'layers[1].name');
  assert.throws(() => ee.PyramidRun.start(undefined, 1, [{ name: 'a' }], { mode: 'shade' }), (e) => e.field === 'mode');
  assert.equal(ran, 0);
  // The ADR's shadow run takes what its enforced run takes (names need not be distinct).
  const twice = [{ name: 'a', run: layers[0].run }, { name: 'a', run: layers[0].run }];
  assert.deepEqual((await new ee.EarlyExitController(undefined, 2).runWithEarlyExit(twice, { mode: 'shadow' })).layersExecuted, [0, 1]);
  assert.equal(ran, 2);
});

// Numbers within a relative 1e-9 (the independent model's special functions are other algorithms).
function assertClose(got, want, what) {
  if (typeof want === 'number') {
    assert.ok(typeof got === 'number' && Math.abs(got - want) <= 1e-9 * Math.max(Math.abs(want), 1e-3), `${what}: ${got} vs ${want}`);
  } else if (Array.isArray(want)) {
    assert.equal(got.length, want.length, `${what}: length`);
    want.forEach((w, i) => assertClose(got[i], w, `${what}[${i}]`));
  } else if (want !== null && typeof want === 'object') {
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${what}: keys`);
    for (const k of Object.keys(want)) assertClose(got[k], want[k], `${what}.${k}`);
  } else {
    assert.equal(got, want, what);
  }
}

test('live vectors (independent JS model)', async () => {
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'policy', 'pyramid_policy.json'), 'utf8'));
  assert.ok(doc.live.length >= 4);
  for (const c of doc.live) {
    let model = null;
    for (const [i, run] of c.runs.entries()) {
      const controller = new ee.EarlyExitController(null, run.layers.length, { policy: c.policy, model, policyConfig: c.config });
      const r = await controller.runWithEarlyExit(layersOf(run.layers.map((l) => l.name), run.layers.map((l) => l.failed), run.layers.map((l) => l.durationMs)));
      const want = c.expected[i];
      for (const key of ['layersExecuted', 'exitReason', 'exitLayer', 'exitedEarly', 'skippedLayers', 'verdict', 'confidence', 'computeSavedMs']) {
        assertClose(r[key], want[key], `${c.name} run ${i}: ${key}`);
      }
      assertClose(r.policy.risk, want.risk, `${c.name} run ${i}: risk`);
      assertClose(r.policy.steps.map((s) => s.risk), want.steps, `${c.name} run ${i}: steps`);
      assertClose(r.speculations.map((s) => s.confidence), want.speculations, `${c.name} run ${i}: speculations`);
      model = ee.pyramidPolicyUpdate(model, r.policy.ran, { policy: c.policy, config: c.config });
    }
    assertClose(model, c.model, `${c.name}: model`);
  }
});
