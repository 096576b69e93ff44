// The JS idioms of the package: ESM and CJS loading, real TypeError / RangeError objects
// with .code and .field for every kind of bad input (and nothing changed after one), the
// outside diminishing-returns source (asked lazily, its errors propagated unchanged),
// timestamps, snapshots, free() and Symbol.dispose.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import ee, { IMPL, PACKAGE, ROOT } from './impl.mjs';

const EXPORTS = [
  'AGGRESSIVE_EXIT_CONFIG', 'CONSERVATIVE_EXIT_CONFIG', 'CoherenceEarlyExit', 'DEFAULT_EXIT_CONFIG', 'EarlyExitController',
  'EarlyStopping', 'IterationAnalytics', 'PyramidRun', 'SpeculativeExecutor', 'calculateQualitySignal', 'default', 'init',
  'countQualityPartitions', 'isEarlyExitError',
  // pyramid replay and the risk-bounded policy
  'calibratePyramidPolicy', 'pyramidPolicyDecide', 'pyramidPolicyUpdate', 'replayPyramids', 'shadowPyramids', 'OutcomeModel',
  'verifyReceipts', 'appendReceipts', 'checkPyramidDrift', 'promotePyramidPolicy', 'checkLoopDrift', 'promoteLoopPolicy',
  'readJunit',
  // loop replay and loop presets (docs/replay.md)
  'LOOP_PRESETS', 'loopPreset', 'replayLoops', 'calibrateLoopPolicy', 'LoopCalibration', 'calibrationPlan',
  // composable stop policies (docs/loop-policies.md)
  'policy',
  // the refine-loop helper (docs/loop-helper.md)
  'Loop',
  // the size limits (docs/limits.md)
  'LIMITS',
  // behaviour detectors and interventions (docs/behavior.md)
  'BehaviorDetector', 'THRESHOLDS', 'InterventionSystem', 'INTERVENTION_LEVELS',
  // the run store (docs/store.md): the native package only, the wasm one has no SQLite
  ...(IMPL === 'native' ? ['Store'] : []),
].sort();

const valid = (extra = {}) => ({ quality_score: 75, confidence: 0.8, verification_status: 'passed', quality_delta: 1, timestamp: '2026-01-01T00:00:00.000Z', ...extra });

function node(args, input) {
  const out = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', input });
  assert.equal(out.status, 0, `node ${args.join(' ')} failed:\n${out.stderr}`);
  return out.stdout.trim();
}

describe(`loading (${IMPL})`, () => {
  test('ESM import: named exports and the default export', () => {
    const out = node(['--input-type=module', '-e', `
      import * as m from '${PACKAGE}';
      import EarlyStopping from '${PACKAGE}';
      console.log(JSON.stringify({ names: Object.keys(m).sort(), same: EarlyStopping === m.EarlyStopping }));`]);
    const { names, same } = JSON.parse(out);
    assert.deepEqual(names, EXPORTS);
    assert.equal(same, true);
  });

  test('CJS require gives the very same classes as import', () => {
    const out = node(['--input-type=module', '-e', `
      import { createRequire } from 'node:module';
      import * as m from '${PACKAGE}';
      const c = createRequire(import.meta.url + '/')('${PACKAGE}');
      console.log(JSON.stringify({ same: c.EarlyStopping === m.EarlyStopping && c.PyramidRun === m.PyramidRun, dflt: c.default === c.EarlyStopping, names: Object.keys(c).sort() }));`]);
    const { same, dflt, names } = JSON.parse(out);
    assert.equal(same, true);
    assert.equal(dflt, true);
    assert.deepEqual(names, EXPORTS);
  });

  test('a plain CommonJS script can require it and use it at once', () => {
    const out = node(['-e', `
      const { EarlyStopping } = require('${PACKAGE}');
      const es = new EarlyStopping();
      es.recordIterationResult(1, { quality_score: 96, confidence: 0.97, verification_status: 'passed', quality_delta: 0 });
      console.log(es.shouldStop(1).trigger);`]);
    assert.equal(out, 'high_confidence');
  });

  test('init() resolves at once in Node (both packages are ready at load)', async () => {
    assert.equal(await ee.init(), undefined);
  });

  test('the presets are the ADR values', () => {
    assert.deepEqual(ee.DEFAULT_EXIT_CONFIG, { exitLayer: 1, minLambdaForExit: 80, minLambdaStability: 0.85, maxBoundaryConcentration: 0.5, speculativeTests: 4, verificationLayers: 2, adaptiveExitLayer: true, minConfidence: 0.8 });
    assert.deepEqual(ee.AGGRESSIVE_EXIT_CONFIG, { exitLayer: 0, minLambdaForExit: 60, minLambdaStability: 0.75, maxBoundaryConcentration: 0.6, speculativeTests: 8, verificationLayers: 1, adaptiveExitLayer: true, minConfidence: 0.7 });
    assert.deepEqual(ee.CONSERVATIVE_EXIT_CONFIG, { exitLayer: 2, minLambdaForExit: 95, minLambdaStability: 0.92, maxBoundaryConcentration: 0.35, speculativeTests: 2, verificationLayers: 4, adaptiveExitLayer: false, minConfidence: 0.9 });
  });
});

// [what, () => call, kind, code, field, engine whose snapshot must not change]
function badInputs() {
  const es = new ee.EarlyStopping({ plateauConsecutiveCount: 3 });
  es.recordIterationResult(1, valid());
  const throwingSource = new ee.EarlyStopping({ highConfidenceThreshold: 1 }, { detectDiminishingReturns: () => ({ detected: 'yes', reason: 'x' }) });
  throwingSource.recordIterationResult(1, valid({ confidence: 0.5 }));
  const analytics = new ee.IterationAnalytics();
  analytics.recordIteration({ iteration_number: 1, quality_score: 70, verification_status: 'passed' });
  const exit = new ee.CoherenceEarlyExit(null, 4);
  const run = ee.PyramidRun.start(null, 2, [{ name: 'unit' }, { name: 'e2e' }]);
  const signal = { lambda: 90, lambdaPrev: 90, boundaryEdges: 0, boundaryConcentration: 0, partitionCount: 0, flags: 0 };
  const layerResult = { passRate: 1, coverage: 0.9, flakyRatio: 0 };
  const cyclic = { quality_score: 70 };
  cyclic.self = cyclic;
  return [
    ['config not an object', () => new ee.EarlyStopping('strict'), TypeError, 'invalid_config', 'config'],
    ['config value out of range', () => new ee.EarlyStopping({ highConfidenceThreshold: 1.5 }), RangeError, 'invalid_config', 'highConfidenceThreshold'],
    ['config NaN', () => new ee.EarlyStopping({ minQualityThreshold: NaN }), RangeError, 'invalid_config', 'minQualityThreshold'],
    ['config wrong type', () => new ee.EarlyStopping({ requireVerification: 'yes' }), TypeError, 'invalid_config', 'requireVerification'],
    ['config non-integer count', () => new ee.EarlyStopping({ plateauConsecutiveCount: 2.5 }), RangeError, 'invalid_config', 'plateauConsecutiveCount'],
    ['unknown option', () => new ee.EarlyStopping({ plateauConsecutivCount: 3 }), TypeError, 'unknown_option', 'plateauConsecutivCount'],
    ['analytics without the method', () => new ee.EarlyStopping(null, { detect: () => 1 }), TypeError, 'invalid_config', 'iterationAnalytics'],
    ['analytics a number', () => new ee.EarlyStopping(undefined, 5), TypeError, 'invalid_config', 'iterationAnalytics'],
    ['iteration 0', () => es.recordIterationResult(0, valid()), RangeError, 'invalid_iteration', 'iteration', es],
    ['iteration 1.5', () => es.recordIterationResult(1.5, valid()), RangeError, 'invalid_iteration', 'iteration', es],
    ['iteration a string', () => es.recordIterationResult('2', valid()), TypeError, 'invalid_iteration', 'iteration', es],
    ['iteration missing', () => es.recordIterationResult(), TypeError, 'invalid_iteration', 'iteration', es],
    ['result missing', () => es.recordIterationResult(2), TypeError, 'invalid_result', 'result', es],
    ['result null', () => es.recordIterationResult(2, null), TypeError, 'invalid_result', 'result', es],
    ['result an array', () => es.recordIterationResult(2, []), TypeError, 'invalid_result', 'result', es],
    ['quality NaN', () => es.recordIterationResult(2, valid({ quality_score: NaN })), RangeError, 'invalid_result', 'quality_score', es],
    ['quality Infinity', () => es.recordIterationResult(2, valid({ quality_score: Infinity })), RangeError, 'invalid_result', 'quality_score', es],
    ['quality 101', () => es.recordIterationResult(2, valid({ quality_score: 101 })), RangeError, 'invalid_result', 'quality_score', es],
    ['quality a string', () => es.recordIterationResult(2, valid({ quality_score: '75' })), TypeError, 'invalid_result', 'quality_score', es],
    ['quality a bigint', () => es.recordIterationResult(2, valid({ quality_score: 75n })), TypeError, 'invalid_result', 'quality_score', es],
    ['confidence missing', () => es.recordIterationResult(2, { quality_score: 1, verification_status: 'passed', quality_delta: 0 }), TypeError, 'invalid_result', 'confidence', es],
    ['confidence -0.1', () => es.recordIterationResult(2, valid({ confidence: -0.1 })), RangeError, 'invalid_result', 'confidence', es],
    ['status unknown', () => es.recordIterationResult(2, valid({ verification_status: 'ok' })), RangeError, 'invalid_result', 'verification_status', es],
    ['status a function', () => es.recordIterationResult(2, valid({ verification_status: () => 'passed' })), TypeError, 'invalid_result', 'verification_status', es],
    ['delta -Infinity', () => es.recordIterationResult(2, valid({ quality_delta: -Infinity })), RangeError, 'invalid_result', 'quality_delta', es],
    ['timestamp not a date', () => es.recordIterationResult(2, valid({ timestamp: 'yesterday' })), RangeError, 'invalid_result', 'timestamp', es],
    ['timestamp empty', () => es.recordIterationResult(2, valid({ timestamp: '' })), RangeError, 'invalid_result', 'timestamp', es],
    ['timestamp a Date object', () => es.recordIterationResult(2, valid({ timestamp: new Date() })), TypeError, 'invalid_result', 'timestamp', es],
    ['tokens negative', () => es.recordIterationResult(2, valid({ tokens_used: -1 })), RangeError, 'invalid_result', 'tokens_used', es],
    ['unknown result key', () => es.recordIterationResult(2, valid({ qualityScore: 1 })), TypeError, 'unknown_option', 'qualityScore', es],
    ['iteration_number mismatch', () => es.recordIterationResult(2, valid({ iteration_number: 3 })), RangeError, 'invalid_result', 'iteration_number', es],
    // Found while the result is encoded, before any rule of the call: the cycle's own error.
    ['a cyclic result', () => es.recordIterationResult(2, cyclic), TypeError, 'invalid_result', 'self', es],
    ['configure not an object', () => es.configure(7), TypeError, 'invalid_config', 'options', es],
    ['configure out of range', () => es.configure({ plateauConsecutiveCount: 1 }), RangeError, 'invalid_config', 'plateauConsecutiveCount', es],
    ['configure unknown key', () => es.configure({ maxIteration: 5 }), TypeError, 'unknown_option', 'maxIteration', es],
    ['source answers a bad type', () => throwingSource.shouldStop(), TypeError, 'invalid_analytics', 'detected', throwingSource],
    ['snapshot not JSON', () => ee.EarlyStopping.fromJSON('{"version": 1,'), RangeError, 'invalid_snapshot', 'snapshot'],
    ['snapshot of another engine', () => ee.EarlyStopping.fromJSON({ ...es.toJSON(), engine: 'IterationAnalytics' }), RangeError, 'invalid_snapshot', 'engine'],
    ['snapshot with an unknown key', () => ee.EarlyStopping.fromJSON({ ...es.toJSON(), loopId: 'x' }), TypeError, 'invalid_snapshot', 'loopId'],
    ['another engine\'s whole snapshot', () => ee.EarlyStopping.fromJSON(analytics.toJSON()), RangeError, 'invalid_snapshot', 'engine'],
    ['snapshot version 2', () => ee.EarlyStopping.fromJSON({ ...es.toJSON(), version: 2 }), RangeError, 'invalid_snapshot', 'version'],
    ['snapshot record out of range', () => ee.EarlyStopping.fromJSON({ ...es.toJSON(), history: [{ ...es.toJSON().history[0], quality_score: 300 }] }), RangeError, 'invalid_snapshot', 'history[0].quality_score'],
    ['analytics config', () => new ee.IterationAnalytics({ selectionCriteria: 'best' }), RangeError, 'invalid_config', 'selectionCriteria'],
    ['analytics record without iteration', () => analytics.recordIteration({ quality_score: 70, verification_status: 'passed' }), TypeError, 'invalid_iteration', 'iteration_number', analytics],
    ['analytics record quality', () => analytics.recordIteration({ iteration_number: 2, quality_score: -3, verification_status: 'passed' }), RangeError, 'invalid_result', 'quality_score', analytics],
    ['verifiedOnly not a boolean', () => analytics.getOptimalIteration('yes'), TypeError, 'invalid_config', 'verifiedOnly', analytics],
    ['signal passRate 2', () => ee.calculateQualitySignal({ passRate: 2, coverage: 1, flakyRatio: 0 }), RangeError, 'invalid_layer_result', 'passRate'],
    ['signal not an object', () => ee.calculateQualitySignal(null), TypeError, 'invalid_layer_result', 'layerResult'],
    ['signal counts inconsistent', () => ee.calculateQualitySignal({ ...layerResult, total: 3, passed: 2, failed: 2 }), RangeError, 'invalid_layer_result', 'passed'],
    ['exit totalLayers 0', () => new ee.CoherenceEarlyExit(null, 0), RangeError, 'invalid_config', 'totalLayers'],
    ['exit totalLayers missing', () => new ee.CoherenceEarlyExit({}), TypeError, 'invalid_config', 'totalLayers'],
    ['exit config', () => new ee.CoherenceEarlyExit({ minConfidence: 2 }, 3), RangeError, 'invalid_config', 'minConfidence'],
    ['exit config unknown key', () => new ee.CoherenceEarlyExit({ exitLayers: 2 }, 3), TypeError, 'unknown_option', 'exitLayers'],
    ['shouldExit lambda 101', () => exit.shouldExit({ ...signal, lambda: 101 }, 0), RangeError, 'invalid_signal', 'lambda'],
    ['shouldExit layer -1', () => exit.shouldExit(signal, -1), RangeError, 'invalid_signal', 'layer'],
    ['shouldExit no signal', () => exit.shouldExit(undefined, 0), TypeError, 'invalid_signal', 'signal'],
    ['step: submit the wrong layer', () => run.submit(1, layerResult), RangeError, 'invalid_step', 'layer', run],
    ['step: result before done', () => run.result(), RangeError, 'invalid_step', 'result', run],
    ['step: bad result', () => run.submit(0, { ...layerResult, flakyRatio: NaN }), RangeError, 'invalid_layer_result', 'layers[0].flakyRatio', run],
    ['step: bad layer spec', () => ee.PyramidRun.start(null, 2, [{ name: 'a', costMs: -5 }]), RangeError, 'invalid_config', 'layers[0].costMs'],
  ];
}

describe(`bad input throws TypeError / RangeError with .code and .field, and changes nothing (${IMPL})`, () => {
  for (const [what, call, kind, code, field, engine] of badInputs()) {
    test(what, () => {
      const before = engine ? JSON.stringify(engine.toJSON()) : null;
      assert.throws(call, (error) => {
        assert.ok(error instanceof kind, `${error?.constructor?.name}: ${error?.message}`);
        assert.equal(error.code, code, error.message);
        assert.equal(error.field, field, error.message);
        assert.ok(error.message.length > 0);
        return true;
      });
      if (engine) assert.equal(JSON.stringify(engine.toJSON()), before);
    });
  }

  test('an unknown key names the closest valid one', () => {
    assert.throws(() => new ee.EarlyStopping({ highConfidenceTreshold: 0.9 }), /did you mean 'highConfidenceThreshold'/);
  });

  test('async entry points reject with the same kinds of error', async () => {
    const speculator = new ee.SpeculativeExecutor();
    await assert.rejects(speculator.speculate({ confidence: 2 }, []), (e) => e instanceof RangeError && e.code === 'invalid_signal' && e.field === 'decision.confidence');
    const controller = new ee.EarlyExitController(null, 2);
    await assert.rejects(controller.runWithEarlyExit('unit'), (e) => e instanceof TypeError && e.code === 'invalid_config' && e.field === 'layers');
    await assert.rejects(controller.runWithEarlyExit([{ name: 5, run: () => ({}) }]), (e) => e instanceof TypeError && e.field === 'layers[0].name');
    await assert.rejects(controller.runWithEarlyExit([{ name: 'unit', costMs: -1, run: () => ({}) }]), (e) => e instanceof RangeError && e.field === 'layers[0].costMs');
    await assert.rejects(controller.runWithEarlyExit([{ name: 'unit', run: () => ({}) }, { name: 'e2e', run: 'npm test' }]), (e) => e instanceof TypeError && e.code === 'invalid_config' && e.field === 'layers[1].run');
    await assert.rejects(controller.runWithEarlyExit([{ name: 'unit', run: () => ({ passRate: '1', coverage: 1, flakyRatio: 0 }) }]), (e) => e instanceof TypeError && e.code === 'invalid_layer_result' && e.field === 'layers[0].passRate');
  });

  test('isEarlyExitError: every bad-input error of the package, and nothing else', async () => {
    let caught = 0;
    for (const [what, call] of badInputs()) {
      try {
        call();
      } catch (error) {
        caught += 1;
        assert.equal(ee.isEarlyExitError(error), true, what);
      }
    }
    assert.ok(caught >= 30, `only ${caught} errors`);
    await assert.rejects(new ee.EarlyExitController(null, 2).runWithEarlyExit('unit'), (e) => ee.isEarlyExitError(e));
    const runnerError = new TypeError('the runner failed');
    await assert.rejects(new ee.EarlyExitController(null, 2).runWithEarlyExit([{ name: 'a', run: () => { throw runnerError; } }]), (e) => e === runnerError && !ee.isEarlyExitError(e));
    const nodeError = (() => { try { Buffer.alloc(-1); } catch (e) { return e; } })(); // code ERR_OUT_OF_RANGE, no field
    for (const other of [nodeError, new Error('x'), Object.assign(new Error('x'), { code: 'invalid_config', field: 'a' }), { code: 'invalid_config', field: 'a' }, null, undefined, 'invalid_config']) {
      assert.equal(ee.isEarlyExitError(other), false, String(other));
    }
  });

  test('countQualityPartitions: the ADR\'s count, validated as calculateQualitySignal validates', () => {
    for (const [r, n] of [[{ passRate: 1, coverage: 1, flakyRatio: 0 }, 0], [{ passRate: 0.89, coverage: 0.69, flakyRatio: 0.051 }, 3], [{ passRate: 0.9, coverage: 0.7, flakyRatio: 0.05 }, 0]]) {
      assert.equal(ee.countQualityPartitions(r), n);
      assert.equal(ee.countQualityPartitions(r), ee.calculateQualitySignal(r).partitionCount);
    }
    assert.throws(() => ee.countQualityPartitions({ passRate: NaN, coverage: 1, flakyRatio: 0 }), (e) => e instanceof RangeError && e.code === 'invalid_layer_result' && e.field === 'passRate');
    assert.throws(() => ee.countQualityPartitions(null), (e) => e instanceof TypeError && e.field === 'layerResult');
  });

  test('hostile values are typed errors, not crashes', () => {
    const es = new ee.EarlyStopping();
    for (const value of [Symbol('s'), 10n, () => 1, new Map(), new Proxy({}, {}), Object.create(null), new Date(0), [1, 2], Number.MAX_VALUE, -0]) {
      assert.throws(() => es.recordIterationResult(1, value), (e) => (e instanceof TypeError || e instanceof RangeError) && typeof e.code === 'string');
      assert.throws(() => es.recordIterationResult(value, valid()), (e) => (e instanceof TypeError || e instanceof RangeError) && e.field === 'iteration');
    }
    let deep = {};
    for (let i = 0; i < 10_000; i++) deep = { next: deep };
    // Refused at the depth limit (200 levels), naming where: the path holds 200 `next`s.
    assert.throws(() => es.configure(deep), (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === Array(200).fill('next').join('.'));
    const getter = { get quality_score() { throw new Error('getter failed'); } };
    assert.throws(() => es.recordIterationResult(1, getter), /getter failed/);
    assert.deepEqual(es.getIterationHistory(), []);
  });
});

describe(`the diminishing-returns source (${IMPL})`, () => {
  const counting = (answer) => {
    const source = { calls: 0, detectDiminishingReturns() { source.calls += 1; return typeof answer === 'function' ? answer() : answer; } };
    return source;
  };

  test('is asked only when high confidence and the plateau did not stop', () => {
    const source = counting({ detected: false, iteration: null, reason: 'no' });
    const es = new ee.EarlyStopping({ plateauConsecutiveCount: 2 }, source);
    assert.equal(es.shouldStop().reason, 'No iterations completed yet');
    assert.equal(source.calls, 0);
    es.recordIterationResult(1, valid({ quality_score: 50, confidence: 0.5 }));
    assert.equal(es.shouldStop().trigger, 'none');
    assert.equal(source.calls, 1);
    es.recordIterationResult(2, valid({ quality_score: 99, confidence: 0.99 }));
    assert.equal(es.shouldStop().trigger, 'high_confidence');
    assert.equal(source.calls, 1);
    es.recordIterationResult(3, valid({ quality_score: 99, confidence: 0.5, quality_delta: 0 }));
    assert.equal(es.shouldStop().trigger, 'quality_plateau');
    assert.equal(source.calls, 1);
    es.configure({ enableDiminishingReturns: false, enablePlateauDetection: false });
    es.shouldStop();
    assert.equal(source.calls, 1);
  });

  test('a detection stops the loop with the source\'s words', () => {
    const es = new ee.EarlyStopping(null, counting({ detected: true, iteration: 4, reason: 'flat since 4' }));
    es.recordIterationResult(1, valid({ confidence: 0.5 }));
    const decision = es.shouldStop();
    assert.deepEqual({ ...decision }, {
      stop: true, reason: 'Diminishing returns detected: flat since 4', confidence: 0.8, trigger: 'diminishing_returns',
      details: { detected_at_iteration: 4, analytics_reason: 'flat since 4' }, best_iteration: 1, best_quality_score: 75,
    });
    assert.equal(es.getStoppingReason(), 'Diminishing returns detected: flat since 4');
  });

  test('its error propagates unchanged and the engine stays as it was', () => {
    const boom = new Error('analytics backend down');
    const es = new ee.EarlyStopping(null, counting(() => { throw boom; }));
    es.recordIterationResult(1, valid({ confidence: 0.5 }));
    const before = JSON.stringify(es.toJSON());
    assert.throws(() => es.shouldStop(), (e) => e === boom);
    assert.throws(() => es.generateSummary(), (e) => e === boom);
    assert.equal(JSON.stringify(es.toJSON()), before);
    es.configure({ enableDiminishingReturns: false });
    assert.equal(es.shouldStop().trigger, 'none');
  });

  test('the package\'s own IterationAnalytics works as the source', () => {
    const analytics = new ee.IterationAnalytics({ consecutiveCountThreshold: 2 });
    const es = new ee.EarlyStopping({ enablePlateauDetection: false }, analytics);
    for (const [i, q] of [[1, 60], [2, 61], [3, 61.5], [4, 61.6]].entries()) {
      es.recordIterationResult(q[0], valid({ quality_score: q[1], confidence: 0.5, quality_delta: i === 0 ? 0 : 1 }));
      analytics.recordIteration({ iteration_number: q[0], quality_score: q[1], verification_status: 'passed' });
    }
    const decision = es.shouldStop();
    assert.equal(decision.trigger, 'diminishing_returns');
    assert.equal(decision.details.detected_at_iteration, 3);
    assert.equal(es.iterationAnalytics, analytics);
  });
});

describe(`state (${IMPL})`, () => {
  test('a missing timestamp is the current time, as new Date().toISOString() writes it', () => {
    const es = new ee.EarlyStopping();
    const before = Date.now();
    es.recordIterationResult(1, { quality_score: 70, confidence: 0.5, verification_status: 'failed', quality_delta: 0 });
    const after = Date.now();
    const { timestamp } = es.getIterationHistory()[0];
    assert.match(timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Date.parse(timestamp) >= before && Date.parse(timestamp) <= after);
    assert.equal(new Date(timestamp).toISOString(), timestamp);
  });

  test('toJSON / fromJSON round-trip exactly, as objects and as text', () => {
    const es = new ee.EarlyStopping({ plateauConsecutiveCount: 2, maxTotalTokens: 1000 });
    es.recordIterationResult(1, valid({ tokens_used: 10, quality_delta: -0 }));
    es.recordIterationResult(2, valid({ quality_delta: 0.1 }));
    es.shouldStop();
    const snapshot = es.toJSON();
    // JSON text cannot hold -0 (JSON.stringify writes 0); the object keeps it.
    for (const [copy, expected] of [[ee.EarlyStopping.fromJSON(snapshot), snapshot], [ee.EarlyStopping.fromJSON(JSON.stringify(es)), JSON.parse(JSON.stringify(snapshot))]]) {
      assert.deepEqual(copy.toJSON(), expected);
      assert.deepEqual(copy.getStoppingDetails(), es.getStoppingDetails());
      assert.deepEqual(copy.shouldStop(), es.shouldStop());
    }
    assert.ok(Object.is(ee.EarlyStopping.fromJSON(snapshot).getIterationHistory()[0].quality_delta, -0));
    const analytics = new ee.IterationAnalytics();
    analytics.recordIteration({ iteration_number: 1, quality_score: 70, verification_status: 'passed', tokens_used: 3 });
    assert.deepEqual(ee.IterationAnalytics.fromJSON(JSON.stringify(analytics)).toJSON(), analytics.toJSON());
  });

  test('the seed\'s public fields read through', () => {
    const es = new ee.EarlyStopping({ minQualityThreshold: 60 });
    es.recordIterationResult(1, valid({ quality_score: 99, confidence: 0.99 }));
    es.shouldStop();
    assert.equal(es.config.minQualityThreshold, 60);
    assert.equal(es.iterationHistory.length, 1);
    assert.equal(es.iterationAnalytics, null);
    assert.match(es.stoppingReason, /^High confidence \(99\.0%\) AND verification passed$/);
    assert.equal(es.stoppingDetails.quality_score, 99);
  });

  test('returned objects are plain and the caller\'s objects are never written to', () => {
    const es = new ee.EarlyStopping();
    const result = valid();
    es.recordIterationResult(1, result);
    assert.deepEqual(result, valid());
    const history = es.getIterationHistory();
    history[0].quality_score = 0;
    assert.equal(es.getIterationHistory()[0].quality_score, 75);
    assert.equal(Object.getPrototypeOf(es.shouldStop()), Object.prototype);
  });

  test('free() and Symbol.dispose release an engine; using it afterwards is a clear error', () => {
    for (const make of [() => new ee.EarlyStopping(), () => new ee.IterationAnalytics(), () => new ee.CoherenceEarlyExit(null, 2), () => ee.PyramidRun.start(null, 1, [{ name: 'u' }])]) {
      const a = make();
      a.free();
      assert.throws(() => a.toJSON?.() ?? a.shouldExit({ lambda: 1, lambdaPrev: 1, boundaryConcentration: 0 }, 0), /was freed/);
      a.free(); // twice is harmless
      const b = make();
      assert.equal(typeof b[Symbol.dispose], 'function');
      b[Symbol.dispose]();
      assert.throws(() => b.toJSON?.() ?? b.shouldExit({ lambda: 1, lambdaPrev: 1, boundaryConcentration: 0 }, 0), /was freed/);
    }
  });

  test('many engines created and freed in a loop', () => {
    for (let i = 0; i < 20_000; i++) {
      const es = new ee.EarlyStopping({ plateauConsecutiveCount: 2 });
      es.recordIterationResult(1, valid());
      es.recordIterationResult(2, valid({ quality_delta: 0 }));
      assert.equal(es.shouldStop().trigger, 'quality_plateau');
      es.free();
    }
  });
});
