// Behaviour detectors as stop conditions through the JS API (native and wasm, by
// EARLYEXIT_IMPL): the builders, a stuck loop paused, an oscillating loop redirected without
// stopping, bad behaviour fields refused with the field named and nothing recorded, and a
// live differential: each detector condition's detection and level equal aiwg's
// behavior-detector.mjs and intervention-system.mjs over the whole history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ee, { REFERENCE_DIR, NO_REFERENCE } from './impl.mjs';
import { rng } from './support.mjs';

const { EarlyStopping, policy: p } = ee;
const referenceFiles = ['behavior-detector.mjs', 'intervention-system.mjs'].map((f) => path.join(REFERENCE_DIR, f));
const haveReference = referenceFiles.every(existsSync);
const BASE = { quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0, timestamp: '2026-01-01T00:00:00.000Z' };

test('builders write the JSON form', () => {
  assert.deepStrictEqual(p.stuck(5, { same_error_count: 2 }), { condition: 'stuck', no_progress_iterations: 5, same_error_count: 2 });
  assert.deepStrictEqual(p.oscillation({ stop_at: 'redirect' }), { condition: 'oscillation', stop_at: 'redirect' });
  assert.deepStrictEqual(p.resourceBurn({ max_iterations: 4 }), { condition: 'resource_burn', max_iterations: 4 });
  assert.deepStrictEqual(p.testRegression(), { condition: 'test_regression' });
  assert.deepStrictEqual(p.deviation({ objective: 'o' }), { condition: 'deviation', objective: 'o' });
});

test('a stuck loop is redirected, then paused', () => {
  const es = new EarlyStopping(null, null, p.stopPolicy(p.anyOf(p.stuck(5), p.maxIterations(50))));
  let d;
  for (let i = 1; i <= 4; i++) {
    es.recordIterationResult(i, { ...BASE, error: 'E1', completion_percentage: 10 });
    d = es.shouldStop();
    assert.equal(d.stop, false);
  }
  assert.equal(d.interventions[0].level, 'redirect');
  assert.match(d.interventions[0].strategy_override, /^OVERRIDE: Change approach immediately\./);
  es.recordIterationResult(5, { ...BASE, error: 'E1', completion_percentage: 10 });
  d = es.shouldStop();
  assert.equal(d.stop, true);
  assert.equal(d.trigger, 'behavior_pause');
  assert.equal(d.reason, 'Loop stuck: Same error repeated 5 times with minimal progress');
  assert.equal(d.details.level, 'pause');
  assert.deepStrictEqual(d.fired.map((f) => [f.condition, f.path]), [['stuck', 'any[0]']]);
  assert.equal(es.getIterationHistory()[4].error, 'E1');
});

test('an oscillating loop is redirected without stopping', () => {
  const es = new EarlyStopping(null, null, p.stopPolicy(p.oscillation()));
  ['a.js', 'b.js', 'a.js', 'b.js', 'a.js', 'b.js'].forEach((f, i) => es.recordIterationResult(i + 1, { ...BASE, artifacts_modified: [f] }));
  const d = es.shouldStop();
  assert.equal(d.stop, false);
  assert.equal(d.trigger, 'none');
  assert.deepStrictEqual(d.interventions.map((x) => [x.condition, x.level, x.stop]), [['oscillation', 'redirect', false]]);
});

test('without a detector condition the decision has no interventions key', () => {
  const es = new EarlyStopping(null, null, p.stopPolicy(p.maxIterations(9)));
  es.recordIterationResult(1, { ...BASE, tests_passing: true });
  assert.equal('interventions' in es.shouldStop(), false);
});

test('bad behaviour fields are refused with the field named, nothing recorded', () => {
  const es = new EarlyStopping(null, null, p.stopPolicy(p.testRegression()));
  es.recordIterationResult(1, BASE);
  const cases = [
    [{ tests_passing: null }, 'tests_passing', TypeError],
    [{ completion_percentage: 101 }, 'completion_percentage', RangeError],
    [{ artifacts_modified: ['a', 1] }, 'artifacts_modified[1]', TypeError],
    [{ coverage_percent: NaN }, 'coverage_percent', RangeError],
    [{ testsPassing: true }, 'testsPassing', TypeError],
  ];
  for (const [extra, field, kind] of cases) {
    assert.throws(() => es.recordIterationResult(2, { ...BASE, ...extra }), (e) => e instanceof kind && e.field === field && (e.code === 'invalid_result' || e.code === 'unknown_option'), field);
    assert.equal(es.getIterationHistory().length, 1);
  }
  assert.throws(() => new EarlyStopping(null, null, { any: ['stuck'] }), (e) => e.field === 'policy.any[0].no_progress_iterations');
});

test('records put into the history from outside keep their behaviour fields, checked', () => {
  const stuck = () => p.stopPolicy(p.anyOf(p.stuck(5), p.maxIterations(50)));
  const recorded = new EarlyStopping(null, null, stuck());
  const pushed = new EarlyStopping(null, null, stuck());
  const given = [];
  for (let i = 1; i <= 5; i++) {
    const result = { ...BASE, error: 'E1', completion_percentage: 10, blockers: ['ci'] };
    recorded.recordIterationResult(i, result);
    const entry = { iteration_number: i, ...result };
    given.push(entry);
    pushed.iterationHistory.push(entry);
  }
  // The same history and the same pause, whichever way the records came in.
  assert.deepStrictEqual(pushed.getIterationHistory(), recorded.getIterationHistory());
  assert.equal(pushed.getIterationHistory()[0].error, 'E1');
  const decision = pushed.shouldStop();
  assert.equal(decision.trigger, 'behavior_pause');
  assert.deepStrictEqual(decision, recorded.shouldStop());
  // The caller's object is theirs: a list changed afterwards is not the history's.
  given[0].blockers.push('later');
  assert.deepStrictEqual(pushed.getIterationHistory()[0].blockers, ['ci']);
  // A bad value written into a pushed record afterwards is refused at the next use, by name.
  given[1].error = 42;
  assert.throws(() => pushed.shouldStop(), { code: 'invalid_result', field: 'iterationHistory[1].error' });
  given[1].error = 'E1';
  assert.equal(pushed.shouldStop().trigger, 'behavior_pause');
});

test('each detector condition detects what the reference detects over the whole history', { skip: haveReference ? false : NO_REFERENCE }, async () => {
  const [bd, is] = await Promise.all(referenceFiles.map((f) => import(pathToFileURL(f).href)));
  const r = rng(2026);
  const next = (n) => r.int(0, n - 1);
  const pick = (items) => r.pick(items);
  const maybe = (f) => (next(4) === 0 ? undefined : f());
  const conditions = [
    ['stuck', 'detectStuck', p.stuck(4, { same_error_count: 2 }), { stuck: { sameErrorCount: 2, noProgressIterations: 4 } }],
    ['oscillation', 'detectOscillation', p.oscillation(), {}],
    ['deviation', 'detectDeviation', p.deviation({ objective: 'fix the parser' }), {}],
    ['resource_burn', 'detectResourceBurn', p.resourceBurn({ max_iterations: 4 }), {}],
    ['test_regression', 'detectRegression', p.testRegression(), {}],
  ];
  const system = new is.InterventionSystem();
  let detections = 0;
  for (let run = 0; run < 40; run++) {
    for (const [name, method, condition, thresholds] of conditions) {
      const es = new EarlyStopping(null, null, p.stopPolicy(condition));
      const detector = new bd.BehaviorDetector({ thresholds });
      const history = [];
      for (let i = 1; i <= 14; i++) {
        const fields = {
          error: maybe(() => pick(['E1', 'E2', '404'])),
          completion_percentage: maybe(() => pick([0, 0.01, 0.5, 40])),
          artifacts_modified: maybe(() => [pick(['a.js', 'b.js', 'c.js'])]),
          learnings: maybe(() => pick(['fix the parser', 'refactor ui', 'parser tests'])),
          tests_passing: maybe(() => next(2) === 0),
          coverage_percent: maybe(() => pick([30, 55, 80])),
        };
        const result = { ...BASE };
        for (const [k, v] of Object.entries(fields)) if (v !== undefined) result[k] = v;
        es.recordIterationResult(i, result);
        const analysis = {
          error: fields.error, completionPercentage: fields.completion_percentage, artifactsModified: fields.artifacts_modified,
          learnings: fields.learnings, testsPassing: fields.tests_passing, coveragePercent: fields.coverage_percent,
        };
        history.push({ number: i, analysis, context: i === 1 ? { objective: 'fix the parser', maxIterations: 4 } : undefined });
        const expected = detector[method](history);
        const d = es.shouldStop();
        const got = d.interventions?.[0];
        if (expected === null) {
          assert.equal(got, undefined, `${name} run ${run} at ${i}`);
          continue;
        }
        detections++;
        const level = system.determineLevel(expected);
        assert.deepStrictEqual([got.detection.type, got.detection.severity, got.reason, got.level], [expected.type, expected.severity, expected.message, level], `${name} run ${run} at ${i}`);
        assert.equal(d.stop, level === 'pause' || level === 'abort');
        assert.equal(d.trigger, level === 'abort' ? 'behavior_abort' : d.stop ? 'behavior_pause' : 'none');
      }
    }
  }
  assert.ok(detections > 100, `${detections} detections`);
});
