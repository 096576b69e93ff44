// Pyramid replay, the risk-bounded policy, calibration and shadow mode (batch calls), run
// against both builds; the policy vectors come from the independent model in
// tests/vectors/gen_pyramid_policy.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const run = (...layers) => ({ layers: layers.map(([name, durationMs, failed]) => ({ name, durationMs, failed })) });
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(b), 1e-3), `${what}: ${a} vs ${b}`);

test('fail-fast replay: recall, savings, Wilson interval', () => {
  const out = ee.replayPyramids(
    [run(['unit', 1, false], ['e2e', 9, false]), run(['unit', 1, true], ['e2e', 9, true]), run(['unit', 1, false], ['e2e', 9, true])],
    { policy: 'fail_fast' },
  );
  const s = out.summary;
  assert.deepEqual([s.failingRuns, s.caught, s.missed, s.declaredGreen], [2, 2, 0, 1]);
  assert.equal(s.savedActual, 9 / 30);
  assert.equal(s.falsePassCi[0], 0);
  assert.ok(Math.abs(s.falsePassCi[1] - 0.7934507) < 1e-6, 'upper');
  assert.deepEqual(out.runs.map((r) => r.reason), ['completed', 'layer_failed', 'layer_failed']);
});

test('JSONL text, the ADR default and its verification', () => {
  const text = JSON.stringify(run(['unit', 1, false], ['int', 2, false], ['e2e', 3, false], ['perf', 4, true])) + '\n\n';
  const r = ee.replayPyramids(text).runs[0];
  assert.deepEqual([r.reason, r.exitLayer, r.executed, r.verifiedLayers], ['confident_exit', 0, [0, 1, 2], 2]);
  assert.deepEqual([r.savedNominalMs, r.savedActualMs, r.missed], [9, 4, true]);
});

test('malformed runs name the path', () => {
  const good = run(['a', 1, false]);
  const bad = run(['a', 1, false], ['b', -1, false]);
  assert.throws(() => ee.replayPyramids([good, good, good, bad]), (e) => e instanceof RangeError
    && e.code === 'invalid_replay' && e.field === 'runs[3].layers[1].durationMs');
  assert.throws(() => ee.replayPyramids([{ layers: [{ name: 'a', durationMs: 1 }] }]), (e) => e instanceof TypeError
    && e.field === 'runs[0].layers[0].failed');
  assert.throws(() => ee.replayPyramids([good], { policy: 'fastest' }), (e) => e.field === 'policy');
  assert.throws(() => ee.calibratePyramidPolicy([good], 0, 0.1), (e) => e.field === 'risk');
});

test('model: update, serialize, decide', () => {
  let model = null;
  for (let i = 0; i < 600; i++) {
    model = ee.pyramidPolicyUpdate(model, [{ name: 'fast', failed: false, durationMs: 1 }, { name: 'slow', failed: false }]);
  }
  assert.equal(model.engine, 'PyramidOutcomeModel');
  const layers = [{ name: 'fast', costMs: 1 }, { name: 'slow', costMs: 10 }];
  const d = ee.pyramidPolicyDecide(JSON.stringify(model), layers, [{ layer: 0, failed: false }]);
  assert.equal(d.action, 'stop');
  assert.equal(d.reason, 'risk_bounded');
  assert.ok(d.risk <= 0.01);
  assert.deepEqual(ee.pyramidPolicyDecide(model, layers, [{ layer: 0, failed: false }], { policy: 'fail_fast' }),
    { action: 'run', layer: 1, risk: null });
  assert.throws(() => ee.pyramidPolicyDecide({ ...model, version: 3 }, layers, []), (e) => e.code === 'invalid_snapshot'
    && e.field === 'model.version');
  assert.throws(() => ee.pyramidPolicyUpdate(model, [{ name: 'a', failed: false }, { name: 'a', failed: true }]),
    (e) => e.field === 'ran[1].name');
});

test('shadow mode and calibration', () => {
  const runs = [];
  for (let i = 0; i < 400; i++) runs.push(run(['fast', 1, i % 4 === 0], ['slow', 10, false]));
  runs.push(run(['fast', 1, false], ['slow', 10, true]));
  const out = ee.shadowPyramids(runs);
  assert.equal(out.runs.at(-1).reason, 'risk_bounded');
  assert.equal(out.summary.missed, 1);
  const cal = ee.calibratePyramidPolicy(runs, 0.05, 0.1, { grid: [0.001, 0.01, 0.05] });
  assert.equal(cal.config.riskBudget, cal.riskBudget);
  assert.ok(cal.steps.slice(0, -1).every((s) => s.certified));
});

test('policy vectors (independent JS model)', () => {
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'policy', 'pyramid_policy.json'), 'utf8'));
  assert.ok(doc.decide.length >= 30 && doc.replay.length >= 10);
  for (const c of doc.decide) {
    const got = ee.pyramidPolicyDecide(c.model, c.layers, c.outcomes, { config: c.config });
    assert.equal(got.action, c.expected.action, c.name);
    assert.equal(got.layer, c.expected.layer, c.name);
    assert.equal(got.reason, c.expected.reason, c.name);
    if (c.expected.risk === null) assert.equal(got.risk, null, c.name);
    else close(got.risk, c.expected.risk, c.name);
  }
  for (const c of doc.replay) {
    const out = ee.replayPyramids(c.runs, { policy: c.policy, config: c.config });
    assert.deepEqual(out.runs.map((r) => r.executed), c.executed, c.name);
    for (const [key, want] of Object.entries(c.expected)) {
      const got = out.summary[key];
      if (Array.isArray(want)) want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) < 1e-12, `${c.name} ${key}`));
      else if (typeof want === 'number') close(got, want, `${c.name} ${key}`);
      else assert.equal(got, want, `${c.name} ${key}`);
    }
  }
});
