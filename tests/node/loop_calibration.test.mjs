// Loop calibration through the JS API (native and wasm, by EARLYEXIT_IMPL): the hand-checked
// vectors of tests/vectors/replay/loop_calibration.json, both call styles, the artifact
// loading back into EarlyStopping.fromCalibration, and the errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ee, { ROOT } from './impl.mjs';

const doc = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'replay', 'loop_calibration.json'), 'utf8'));
const close = (a, b) => Math.abs(a - b) < 1e-12;

test('every hand-checked calibration vector', () => {
  for (const c of doc.cases) {
    const got = ee.calibrateLoopPolicy(doc.runs, c.options);
    const e = c.expect;
    assert.equal(got.certified, e.certified, c.name);
    assert.equal(got.status, e.status, c.name);
    assert.equal(got.artifact.kind, 'loop');
    assert.equal(got.artifact.body.certificate.chosenIndex, e.chosenIndex, c.name);
    assert.equal(got.policy.config.noImprovementPatience, e.policyPatience, c.name);
    assert.deepEqual(got.artifact.certificate.sampleSizes, e.sampleSizes, c.name);
    const hyps = got.artifact.certificate.hypotheses;
    assert.equal(hyps.length, e.hypotheses.length, c.name);
    hyps.forEach((h, i) => {
      const want = e.hypotheses[i];
      assert.deepEqual([h.trials, h.events, h.rejected], [want.trials, want.events, want.rejected], c.name);
      assert.ok(close(h.pValue, want.pValue), `${c.name}: ${h.pValue} vs ${want.pValue}`);
    });
    assert.deepEqual(got.frontier.map((r) => r.prematureTasks), e.frontierPrematureTasks, c.name);
    assert.deepEqual(got.frontier.map((r) => r.tested), e.frontierTested, c.name);
    assert.match(got.artifact.corpusSha256, /^[0-9a-f]{64}$/);
  }
});

test('both call styles, JSONL text and objects give the same certificate and digest', () => {
  const c = doc.cases[0];
  const a = ee.calibrateLoopPolicy(doc.runs, c.options);
  const { risk, delta, ...rest } = c.options;
  const b = ee.calibrateLoopPolicy(doc.runs.map((r) => JSON.stringify(r)).join('\n'), risk, delta, rest);
  assert.deepEqual(b.artifact.certificate, a.artifact.certificate);
  assert.equal(b.artifact.corpusSha256, a.artifact.corpusSha256);
  assert.deepEqual(JSON.parse(JSON.stringify(b)).policy, a.policy);
});

test('the artifact runs live: fromCalibration and replayLoops take its policy', () => {
  const cal = ee.calibrateLoopPolicy(doc.runs, doc.cases[0].options);
  for (const source of [cal, cal.artifact, JSON.stringify(cal)]) {
    // Not promoted: the calibration's most conservative candidate (patience 4) is enforced.
    const engine = ee.EarlyStopping.fromCalibration(source);
    assert.equal(engine.getConfig().noImprovementPatience, 4);
  }
  const replay = ee.replayLoops(doc.runs, cal.policy);
  assert.equal(replay.summary.premature_stops, 0);
  const expired = { ...cal.artifact, createdAt: '2020-01-01T00:00:00.000Z', expiresAt: '2020-02-01T00:00:00.000Z' };
  // Expired: enforced conservatively too.
  assert.equal(ee.EarlyStopping.fromCalibration(expired).getConfig().noImprovementPatience, 4);
  assert.throws(() => ee.EarlyStopping.fromCalibration({ ...cal.artifact, kind: 'pyramid' }), (e) => e.code === 'invalid_artifact' && e.field === 'kind');
});

test('the built-in family by default, with too few runs it says so', () => {
  const few = doc.runs.slice(0, 50);
  const cal = ee.calibrateLoopPolicy(few);
  assert.equal(cal.certified, false);
  assert.equal(cal.status, 'too_few_runs');
  assert.match(cal.message, /needs at least 91/);
  assert.equal(cal.artifact.risk, 0.025);
  assert.equal(cal.artifact.body.certificate.path, 'family');
});

test('bad input: typed errors naming the field', () => {
  for (const v of doc.errors) {
    assert.throws(() => ee.calibrateLoopPolicy(v.runs ?? doc.runs, v.options), (e) => {
      const kind = e instanceof TypeError ? 'type' : e instanceof RangeError ? 'range' : 'other';
      assert.deepEqual({ code: e.code, field: e.field, kind }, v.throws, v.name);
      return true;
    }, v.name);
  }
});

test('composed candidates: the trees of the configs certify alike, and the engine runs the chosen tree', () => {
  const c = doc.cases[0];
  // Each config candidate written as a tree: the simple rule's two checks.
  const trees = c.options.candidates.map((p) => ({
    ...p,
    any: [{ condition: 'high_confidence', threshold: 0, min_quality: 0, require_verification: true }, { condition: 'no_improvement', patience: p.config.noImprovementPatience }],
  }));
  const configs = ee.calibrateLoopPolicy(doc.runs, c.options);
  const composed = ee.calibrateLoopPolicy(doc.runs, { ...c.options, candidates: trees });
  assert.deepEqual(composed.artifact.certificate, configs.artifact.certificate);
  assert.deepEqual(composed.policy.any, trees[1].any);
  // Not promoted: the most conservative tree (patience 4) decides.
  const engine = ee.EarlyStopping.fromCalibration(composed);
  assert.deepEqual(engine.policy.any, trees[0].any);
  assert.equal(ee.EarlyStopping.fromCalibration(configs).policy, null);
  for (let i = 1; i <= 5; i++) engine.recordIterationResult(i, { quality_score: 10, confidence: 0.1, verification_status: 'failed', quality_delta: 0 });
  const decision = engine.shouldStop();
  assert.equal(decision.stop, true);
  assert.deepEqual(decision.fired.map((f) => f.path), ['any[1]']);
  // The snapshot keeps the tree.
  assert.deepEqual(ee.EarlyStopping.fromJSON(engine.toJSON()).policy, engine.policy);
  // A bad tree among the candidates names its path.
  const bad = [trees[0], { any: [{ condition: 'no_improvement', patience: 0 }] }];
  assert.throws(() => ee.calibrateLoopPolicy(doc.runs, { candidates: bad }),
    (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === 'candidates[1].any[0].patience');
});
