// The loop lifecycle through the JS API (native and wasm, by EARLYEXIT_IMPL): promoteLoopPolicy
// promotes on an audit split disjoint from calibration, checkLoopDrift demotes, and
// EarlyStopping.fromCalibration enforces the calibrated policy only once promoted and current
// (docs/lifecycle.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { ROOT } from './impl.mjs';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const good = () => ({ quality_score: 95, confidence: 0.95, verification_status: 'passed', good: true });
const runs = (from, n, dataset = 'd') => Array.from({ length: n }, (_, i) => ({
  id: `t${from + i}`, dataset, iterations: [good(), good()],
}));

const calibration = ee.calibrateLoopPolicy(runs(0, 150), { risk: 0.1, delta: 0.1 });
const conservative = calibration.artifact.body.frontier[0].policy.config;

test('an unpromoted artifact runs its conservative policy; promoted, its calibrated one', () => {
  assert.equal(calibration.status, 'certified');
  assert.notDeepEqual(calibration.policy.config, conservative);
  const unpromoted = ee.EarlyStopping.fromCalibration(calibration);
  assert.equal(unpromoted.getConfig().highConfidenceThreshold, conservative.highConfidenceThreshold);

  const promotion = ee.promoteLoopPolicy(calibration, runs(150, 100));
  assert.equal(promotion.promoted, true, promotion.reason);
  assert.equal(promotion.audit.tasks, 100);
  assert.equal(promotion.audit.prematureTasks, 0);
  assert.ok(promotion.audit.upperBound <= 0.1);
  assert.match(promotion.artifact.promotion.artifactSha256, /^[0-9a-f]{64}$/);
  const engine = ee.EarlyStopping.fromCalibration(promotion.artifact);
  assert.equal(engine.getConfig().highConfidenceThreshold, calibration.policy.config.highConfidenceThreshold);
  engine.recordIterationResult(1, { quality_score: 95, confidence: 0.99, verification_status: 'passed', quality_delta: 0 });
  assert.equal(engine.shouldStop().stop, true);
  // The same from the artifact's JSON text and from a file: URL.
  assert.equal(ee.promoteLoopPolicy(JSON.stringify(calibration), runs(150, 100), new Date(NOW)).promoted, true);
  const dir = mkdtempSync(path.join(tmpdir(), 'earlyexit-'));
  writeFileSync(path.join(dir, 'a.json'), JSON.stringify(calibration));
  assert.equal(ee.checkLoopDrift(pathToFileURL(path.join(dir, 'a.json')), runs(150, 10)).status, 'fresh');
});

test('checkLoopDrift demotes on a dataset calibration never saw, and when expired', () => {
  const promoted = ee.promoteLoopPolicy(calibration, runs(150, 100)).artifact;
  const fresh = ee.checkLoopDrift(promoted, runs(300, 20));
  assert.equal(fresh.status, 'fresh');
  assert.deepEqual(fresh.artifact, promoted);
  const drifted = ee.checkLoopDrift(promoted, runs(300, 20, 'elsewhere'));
  assert.equal(drifted.status, 'drifted');
  assert.deepEqual(drifted.reasons.map((r) => r.kind), ['dataset']);
  assert.equal(drifted.artifact.promotion, null);
  // The demoted artifact runs conservatively again.
  const engine = ee.EarlyStopping.fromCalibration(drifted.artifact);
  assert.equal(engine.getConfig().highConfidenceThreshold, conservative.highConfidenceThreshold);
  // Loop artifacts are valid 90 days: their own expiresAt decides.
  const later = Date.parse(promoted.expiresAt) + 1;
  const expired = ee.checkLoopDrift(promoted, runs(300, 5), later);
  assert.equal(expired.status, 'expired');
  assert.equal(expired.reasons[0].kind, 'expired');
});

test('bad input: the other kind, an overlapping audit split, a bad now', () => {
  const pyramid = { ...calibration.artifact, kind: 'pyramid' };
  assert.throws(() => ee.promoteLoopPolicy(pyramid, runs(150, 100)), (e) => e.code === 'invalid_artifact' && e.field === 'kind');
  assert.throws(() => ee.checkLoopDrift(pyramid, runs(150, 10)), (e) => e.code === 'invalid_artifact' && e.field === 'kind');
  assert.throws(() => ee.promoteLoopPolicy(calibration, runs(140, 100)), (e) => e.code === 'invalid_replay' && e.field.startsWith('auditRuns'));
  assert.throws(() => ee.checkLoopDrift(calibration, runs(150, 10), 'not a date'), (e) => e.field === 'now');
});

// tests/vectors/lifecycle/loop_lifecycle.json: the vectors the Rust and Python suites read too.
const DOC = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'lifecycle', 'loop_lifecycle.json'), 'utf8'));
const vectorRuns = (spec) => Array.from({ length: spec.n }, (_, i) => ({
  id: `t${spec.from + i}`, dataset: spec.dataset, iterations: DOC.iterations[spec.iterations],
}));

test('the shared vectors: promotion and drift', () => {
  const cal = ee.calibrateLoopPolicy(vectorRuns(DOC.calibration.runs), DOC.calibration.options);
  for (const c of DOC.promotion) {
    if (c.error) {
      assert.throws(() => ee.promoteLoopPolicy(cal, vectorRuns(c.audit)), (e) => e.code === c.error.code && e.field.startsWith(c.error.field), c.name);
      continue;
    }
    const answer = ee.promoteLoopPolicy(cal, vectorRuns(c.audit));
    assert.equal(answer.promoted, c.promoted, c.name);
    assert.deepEqual([answer.audit.tasks, answer.audit.prematureTasks], [c.tasks, c.prematureTasks], c.name);
    assert.ok(Math.abs(answer.audit.upperBound - c.upperBound) < 1e-9, c.name);
    assert.equal(answer.artifact.promotion === null, !c.promoted, c.name);
  }
  const promoted = ee.promoteLoopPolicy(cal, vectorRuns(DOC.promotion[0].audit)).artifact;
  for (const c of DOC.drift) {
    const artifact = c.promoted ? promoted : cal;
    const now = c.at === 'expiresAt' ? artifact.expiresAt : undefined;
    const report = ee.checkLoopDrift(artifact, vectorRuns(c.runs), now);
    assert.equal(report.status, c.status, c.name);
    assert.deepEqual(report.reasons.map((r) => r.kind), c.reasons, c.name);
    assert.equal(report.artifact.promotion === null, c.demoted, c.name);
  }
});
