// Calibration artifacts are cross-checked wherever they are read (native and wasm, by
// EARLYEXIT_IMPL): a promotion is the artifact's own (`artifactSha256`) and its figures hold,
// the copies of a policy inside one artifact agree, a certified flag follows from the
// certificate; and an OutcomeModel never learns or merges past the layer limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const NOW = '2026-01-02T00:00:00Z';
const loopDoc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'replay', 'loop_calibration.json'), 'utf8'));
const runs = (n, unitEvery, offset) => Array.from({ length: n }, (_, j) => {
  const i = j + offset;
  return { layers: [
    { name: 'unit', durationMs: 10, failed: i % unitEvery === 0 },
    { name: 'integration', durationMs: 40, failed: false },
    { name: 'e2e', durationMs: 90, failed: i % 97 === 3 },
  ] };
});
const envelope = (artifact) => JSON.parse(JSON.stringify(artifact));
const refusedAt = (field) => (e) => e.code === 'invalid_artifact' && e.field === field;
const controller = (policy) => new ee.EarlyExitController(undefined, 3, { policy, now: NOW });
const layers = ['unit', 'integration', 'e2e'].map((name) => ({ name, costMs: 1, run: () => ({ passRate: 1, coverage: 1, flakyRatio: 0 }) }));

const calibrated = ee.calibratePyramidPolicy(runs(600, 5, 0), 0.2, 0.1, { createdAt: '2026-01-01T00:00:00Z' });
const out = ee.promotePyramidPolicy(calibrated, runs(400, 5, 600), NOW);
const promoted = envelope(out.artifact);

test('a promotion records the digest of the artifact it promotes', async () => {
  assert.equal(out.promoted, true, out.reason);
  assert.equal(promoted.schemaVersion, 2);
  assert.match(promoted.promotion.artifactSha256, /^[0-9a-f]{64}$/);
  assert.equal((await controller(promoted).runWithEarlyExit(layers)).shadow, undefined);
});

test("another artifact's promotion pasted in, or an artifact edited after promotion, is refused", () => {
  const other = envelope(ee.calibratePyramidPolicy(runs(600, 4, 1), 0.2, 0.1, { createdAt: '2026-01-01T00:00:00Z' }));
  const pasted = { ...other, promotion: promoted.promotion };
  assert.throws(() => controller(pasted), refusedAt('policy.promotion.artifactSha256'));
  assert.throws(() => ee.PyramidRun.start(null, 3, layers.map(({ name }) => ({ name })), { policy: pasted, now: NOW }),
    refusedAt('policy.promotion.artifactSha256'));
  assert.throws(() => ee.checkPyramidDrift(pasted, runs(10, 5, 600), NOW), refusedAt('promotion.artifactSha256'));
  assert.throws(() => controller({ ...promoted, risk: 0.3 }), refusedAt('policy.promotion.artifactSha256'));
});

test('a promotion whose upper bound exceeds the risk is refused', () => {
  const high = { ...promoted, promotion: { ...promoted.promotion, upperBound: 0.99 } };
  assert.throws(() => controller(high), refusedAt('policy.promotion.upperBound'));
});

test('a risk budget above the certified one is refused', () => {
  const raised = { ...promoted, promotion: null, policy: { ...promoted.policy, config: { ...promoted.policy.config, riskBudget: 0.99 } } };
  assert.throws(() => controller(raised), refusedAt('policy.policy.config.riskBudget'));
});

test('a version 1 artifact reads as unpromoted', async () => {
  const r = await controller({ ...promoted, schemaVersion: 1 }).runWithEarlyExit(layers);
  assert.match(r.shadow.reason, /not promoted/);
});

test("a loop artifact's policy copies must agree, and certified follow from the certificate", () => {
  const artifact = envelope(ee.calibrateLoopPolicy(loopDoc.runs, loopDoc.cases[0].options).artifact);
  const tampered = { ...artifact, policy: { ...artifact.policy, config: { ...artifact.policy.config, maxIterations: 1000 } } };
  assert.throws(() => ee.EarlyStopping.fromCalibration(tampered), refusedAt('policy.config.maxIterations'));
  const few = envelope(ee.calibrateLoopPolicy(loopDoc.runs.slice(0, 50)).artifact);
  assert.equal(few.body.status, 'too_few_runs');
  assert.throws(() => ee.EarlyStopping.fromCalibration({ ...few, body: { ...few.body, certified: true } }), refusedAt('body.certified'));
});

test('an OutcomeModel never learns or merges past the layer limit, and is left unchanged', () => {
  const named = (prefix, n) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, failed: false }));
  const full = new ee.OutcomeModel().learn(named('l', 10000), { id: 'a', seq: 1 }).learn(named('l', 3), { id: 'b', seq: 2 });
  const before = JSON.stringify(full);
  assert.throws(() => full.learn(named('new', 1), { id: 'c', seq: 3 }), (e) => e.code === 'invalid_config' && e.field === 'ran');
  const other = new ee.OutcomeModel().learn(named('other', 1), { id: 'd', seq: 4 });
  assert.throws(() => full.merge(other), (e) => e.code === 'invalid_snapshot' && e.field === 'other');
  assert.equal(JSON.stringify(full), before);
  assert.equal(full.statistics().layers.length, 10000);
});
