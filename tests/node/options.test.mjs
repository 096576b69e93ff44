// The opt-in loop options ("Beyond the seed", docs/loop-options.md) through the JS API, for
// the napi addon and the wasm build alike (EARLYEXIT_IMPL): camelCase options in the
// constructor and configure(), getConfig(), the new triggers at their boundaries, warm-up,
// the documented order of checks, unknown usage, the decision's best-iteration and budget
// fields, snapshots, and bad values rejected with code and field and nothing changed.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import ee, { IMPL } from './impl.mjs';

const { EarlyStopping } = ee;
const TS = '2026-01-01T00:00:00.000Z';
// A record that cannot stop the seed's rules by itself: low confidence, failed verification.
const flat = (q, d = 0, extra = {}) => ({ quality_score: q, confidence: 0.5, verification_status: 'failed', quality_delta: d, timestamp: TS, ...extra });
const verified = (q = 95) => ({ quality_score: q, confidence: 0.99, verification_status: 'passed', quality_delta: 0, timestamp: TS });
function engine(config, rows = [], source = null) {
  const es = new EarlyStopping(config, source);
  rows.forEach((r, i) => es.recordIterationResult(i + 1, r));
  return es;
}

describe(`loop options (${IMPL})`, () => {
  test('every option is accepted in camelCase and listed by getConfig() after the seed keys', () => {
    const options = {
      regressionPatience: 3, regressionTolerance: 4, maxWallClockMs: 60000, maxTotalCostUsd: 1.5, maxTotalTokens: 20000,
      maxIterations: 12, minIterations: 2, plateauMode: 'absolute', plateauDeltaSource: 'computed',
    };
    const es = new EarlyStopping({ ...options, plateauImprovementThreshold: 1 });
    const config = es.getConfig();
    assert.deepEqual(Object.keys(config), [
      'highConfidenceThreshold', 'plateauConsecutiveCount', 'plateauImprovementThreshold', 'minQualityThreshold',
      'requireVerification', 'enablePlateauDetection', 'enableDiminishingReturns',
      'plateauDeltaSource', 'plateauMode', 'minIterations', 'maxIterations', 'maxTotalTokens', 'maxTotalCostUsd',
      'maxWallClockMs', 'regressionTolerance', 'regressionPatience',
    ]);
    for (const [k, v] of Object.entries(options)) assert.equal(config[k], v, k);
    assert.deepEqual(es.config, config, 'the seed\'s public field agrees');
  });

  test('defaults: no option key in getConfig(), no budgets in a decision', () => {
    const es = engine(undefined, [flat(50, 0, { tokens_used: 10 })]);
    assert.equal(Object.keys(es.getConfig()).length, 7);
    const d = es.shouldStop();
    assert.deepEqual(Object.keys(d), ['stop', 'reason', 'confidence', 'trigger', 'best_iteration', 'best_quality_score']);
  });

  test('configure() adds options to a running engine; the next decision uses them', () => {
    const es = engine(null, [flat(50, 10, { tokens_used: 40 }), flat(60, 10, { tokens_used: 40 })]);
    assert.equal(es.shouldStop().stop, false);
    es.configure({ maxTotalTokens: 50 });
    const d = es.shouldStop();
    assert.equal(d.trigger, 'budget_exhausted');
    assert.equal(es.getStoppingReason(), 'Budget exhausted: total tokens_used 80 > limit 50');
    assert.equal(es.getConfig().maxTotalTokens, 50);
  });

  test('maxIterations fires exactly at the limit, not one step before', () => {
    const es = engine({ maxIterations: 3, enablePlateauDetection: false }, [flat(10, 10), flat(30, 20)]);
    assert.equal(es.shouldStop().stop, false);
    es.recordIterationResult(3, flat(60, 30));
    assert.deepEqual(es.shouldStop(), {
      stop: true, reason: 'Maximum iterations reached (3/3)', confidence: 1, trigger: 'max_iterations',
      details: { iterations: 3, max_iterations: 3 }, best_iteration: 3, best_quality_score: 60,
    });
  });

  for (const [option, field, budget] of [
    ['maxTotalTokens', 'tokens_used', 'tokens'], ['maxTotalCostUsd', 'token_cost_usd', 'cost_usd'], ['maxWallClockMs', 'execution_time_ms', 'wall_clock_ms'],
  ]) {
    test(`${option}: equal to the limit goes on, above it stops (${budget})`, () => {
      const es = engine({ [option]: 8 }, [flat(10, 10, { [field]: 5 }), flat(20, 10, { [field]: 3 })]);
      const before = es.shouldStop();
      assert.equal(before.stop, false);
      assert.deepEqual(before.budgets, [{ budget, limit: 8, observed: 8, records_without_value: 0, exhausted: false }]);
      es.recordIterationResult(3, flat(30, 10, { [field]: 0.5 }));
      const d = es.shouldStop();
      assert.equal(d.trigger, 'budget_exhausted');
      assert.equal(d.reason, `Budget exhausted: total ${field} 8.5 > limit 8`);
      assert.deepEqual(d.details, { budget, limit: 8, observed: 8.5, records_without_value: 0 });
      assert.equal(d.budgets[0].exhausted, true);
    });
  }

  test('a result without tokens_used counts as unknown, not zero, and the decision says so', () => {
    const es = engine({ maxTotalTokens: 100 }, [flat(10, 10, { tokens_used: 60 }), flat(20, 10)]);
    const d = es.shouldStop();
    assert.equal(d.stop, false);
    assert.deepEqual(d.budgets, [{ budget: 'tokens', limit: 100, observed: 60, records_without_value: 1, exhausted: false }]);
    es.recordIterationResult(3, flat(30, 10, { tokens_used: 50 }));
    const stop = es.shouldStop();
    assert.equal(stop.reason, 'Budget exhausted: total tokens_used 110 > limit 100 (1 records without tokens_used not counted)');
    assert.equal(stop.details.records_without_value, 1);
    // An explicit undefined is an absent key, so it is unknown as well.
    const other = engine({ maxTotalTokens: 1 }, [flat(10, 0, { tokens_used: undefined })]);
    assert.equal(other.shouldStop().budgets[0].records_without_value, 1);
  });

  test('warm-up blocks quality triggers, says so, and ends exactly at minIterations', () => {
    const es = engine({ minIterations: 3 }, [verified()]);
    assert.deepEqual(es.shouldStop(), {
      stop: false, reason: 'Warm-up: iteration 1 of 3', confidence: 1, trigger: 'none', best_iteration: 1, best_quality_score: 95,
    });
    es.recordIterationResult(2, verified());
    assert.equal(es.shouldStop().reason, 'Warm-up: iteration 2 of 3');
    es.recordIterationResult(3, verified());
    assert.equal(es.shouldStop().trigger, 'high_confidence');
  });

  test('warm-up does not hold back hard limits, and does not ask the outside source', () => {
    let asked = 0;
    const source = { detectDiminishingReturns: () => { asked += 1; return { detected: true, iteration: 1, reason: 'r' }; } };
    const es = engine({ minIterations: 5, maxTotalTokens: 10 }, [flat(50, 0, { tokens_used: 5 })], source);
    assert.equal(es.shouldStop().reason, 'Warm-up: iteration 1 of 5');
    assert.equal(asked, 0);
    es.recordIterationResult(2, flat(50, 0, { tokens_used: 6 }));
    assert.equal(es.shouldStop().trigger, 'budget_exhausted');
    const capped = engine({ minIterations: 2, maxIterations: 2 }, [verified(), verified()]);
    assert.equal(capped.shouldStop().trigger, 'max_iterations');
  });

  test('budget and plateau in the same step: the budget wins (hard limits come first)', () => {
    const rows = [flat(50, 0, { tokens_used: 10 }), flat(50, 0, { tokens_used: 10 }), flat(50, 0, { tokens_used: 90 })];
    assert.equal(engine({ maxTotalTokens: 100 }, rows).shouldStop().trigger, 'budget_exhausted');
    assert.equal(engine({ maxTotalTokens: 1000 }, rows).shouldStop().trigger, 'quality_plateau');
  });

  test('maxIterations beats high confidence; plateau beats regression in the same step', () => {
    assert.equal(engine({ maxIterations: 1 }, [verified()]).shouldStop().trigger, 'max_iterations');
    const es = engine({ regressionTolerance: 5, regressionPatience: 2 }, [flat(90), flat(80, 0), flat(80, 0)]);
    assert.equal(es.shouldStop().trigger, 'quality_plateau');
  });

  test('computed deltas ignore the reported delta; absolute mode counts points', () => {
    const rows = [flat(50, 25), flat(50, 25), flat(50, 25)];
    assert.equal(engine(null, rows).shouldStop().stop, false, 'the seed trusts the reported delta');
    assert.equal(engine({ plateauDeltaSource: 'computed' }, rows).shouldStop().trigger, 'quality_plateau');
    const abs = engine({ plateauMode: 'absolute', plateauImprovementThreshold: 2 }, [flat(50), flat(52, 2), flat(53, 1)]);
    assert.equal(abs.shouldStop().stop, false, 'a 2-point step is not below 2 points');
    abs.recordIterationResult(4, flat(54, 1));
    const d = abs.shouldStop();
    assert.equal(d.reason, 'Quality plateau detected: 3 consecutive iterations with <2 points improvement');
    assert.equal(d.details.threshold, 2);
  });

  test('regression fires after patience iterations more than tolerance below the best', () => {
    const es = engine({ regressionTolerance: 5, regressionPatience: 2, enablePlateauDetection: false }, [flat(80), flat(74, -6)]);
    assert.equal(es.shouldStop().stop, false);
    es.recordIterationResult(3, flat(75, 1)); // exactly 5 below: not more than 5
    assert.equal(es.shouldStop().stop, false);
    es.recordIterationResult(4, flat(70, -5));
    es.recordIterationResult(5, flat(60, -10));
    const d = es.shouldStop();
    assert.equal(d.trigger, 'quality_regression');
    assert.deepEqual(d.details, { best_iteration: 1, best_quality_score: 80, tolerance: 5, patience: 2 });
    assert.equal(d.best_iteration, 1, 'the loop can hand back its best output');
  });

  test('a snapshot with options and usage round-trips and the restored engine decides the same', () => {
    const config = { maxTotalTokens: 100, regressionTolerance: 5, plateauMode: 'absolute', plateauImprovementThreshold: 2 };
    const es = engine(config, [flat(50, 0, { tokens_used: 30 }), flat(51, 1, { tokens_used: 30 }), flat(51.5, 0.5)]);
    assert.equal(es.shouldStop().trigger, 'quality_plateau');
    const text = JSON.stringify(es.toJSON());
    const restored = EarlyStopping.fromJSON(text);
    assert.deepEqual(restored.toJSON(), es.toJSON());
    assert.deepEqual(restored.getStoppingDetails(), es.getStoppingDetails());
    for (const e of [es, restored]) e.recordIterationResult(4, flat(40, -11.5, { tokens_used: 50 }));
    assert.deepEqual(restored.shouldStop(), es.shouldStop());
    assert.equal(es.shouldStop().trigger, 'budget_exhausted');
  });

  test('generateSummary carries the options and the option trigger', () => {
    const s = engine({ maxIterations: 2 }, [flat(40), flat(50, 10)]).generateSummary();
    assert.equal(s.stopping_trigger, 'max_iterations');
    assert.equal(s.config.maxIterations, 2);
  });

  const BAD = [
    ['plateauDeltaSource', 'score', RangeError], ['plateauDeltaSource', true, TypeError], ['plateauMode', 'percent', RangeError],
    ['plateauMode', null, TypeError], ['minIterations', 0, RangeError], ['minIterations', 2.5, RangeError], ['minIterations', '3', TypeError],
    ['maxIterations', 0, RangeError], ['maxIterations', Infinity, RangeError], ['maxTotalTokens', -1, RangeError], ['maxTotalTokens', NaN, RangeError],
    ['maxTotalCostUsd', '5', TypeError], ['maxWallClockMs', -0.5, RangeError], ['regressionTolerance', 101, RangeError],
    ['regressionTolerance', null, TypeError],
  ];
  for (const [key, value, kind] of BAD) {
    test(`${key} = ${String(value)} is rejected with code and field, and configure() changes nothing`, () => {
      const check = (e) => e instanceof kind && e.code === 'invalid_config' && e.field === key;
      assert.throws(() => new EarlyStopping({ [key]: value }), check);
      const es = engine({ maxIterations: 50, regressionTolerance: 5 }, [flat(50)]);
      const before = JSON.stringify(es.toJSON());
      assert.throws(() => es.configure({ minIterations: 1, [key]: value }), check);
      assert.equal(JSON.stringify(es.toJSON()), before);
    });
  }

  test('cross-field rules: rejected on a key the call gave, nothing changed', () => {
    const range = (field) => (e) => e instanceof RangeError && e.code === 'invalid_config' && e.field === field;
    assert.throws(() => new EarlyStopping({ minIterations: 4, maxIterations: 3 }), range('minIterations'));
    assert.throws(() => new EarlyStopping({ regressionPatience: 3 }), range('regressionPatience'));
    assert.throws(() => new EarlyStopping({ plateauImprovementThreshold: 5 }), range('plateauImprovementThreshold'));
    assert.throws(() => new EarlyStopping({ regressionPatience: 0, regressionTolerance: 1 }), range('regressionPatience'));
    const es = engine({ minIterations: 3, plateauMode: 'absolute', plateauImprovementThreshold: 4 }, [flat(50)]);
    const before = JSON.stringify(es.toJSON());
    assert.throws(() => es.configure({ maxIterations: 2 }), range('maxIterations'));
    assert.throws(() => es.configure({ plateauMode: 'relative' }), range('plateauMode'));
    assert.throws(() => es.configure({ maxIterantions: 2 }), (e) => e instanceof TypeError && e.code === 'unknown_option' && e.field === 'maxIterantions');
    assert.equal(JSON.stringify(es.toJSON()), before);
  });

  test('fromJSON rejects a bad option inside the snapshot with its path', () => {
    const snap = engine({ maxIterations: 5 }).toJSON();
    snap.config.minIterations = 6;
    assert.throws(() => EarlyStopping.fromJSON(snap), (e) => e.code === 'invalid_snapshot' && e.field === 'config.minIterations');
  });
});

// strictIterations (docs/loop-options.md "Resume safety"): iteration numbers must increase;
// re-recording the last iteration with the same result is accepted, changes nothing and says
// so; anything else is invalid_iteration with nothing changed.
describe(`strictIterations: resume safety (${IMPL})`, () => {
  const STRICT = { strictIterations: true };
  const snap = (es) => JSON.stringify(es.toJSON());
  const invalid = (e) => e instanceof RangeError && e.code === 'invalid_iteration' && e.field === 'iteration';

  test('off by default: 5, 3, 5 are all recorded, as the seed records them', () => {
    const es = new EarlyStopping();
    for (const i of [5, 3, 5]) assert.equal(es.recordIterationResult(i, flat(50)), undefined);
    assert.deepEqual(es.getIterationHistory().map((r) => r.iteration_number), [5, 3, 5]);
    assert.equal('strictIterations' in es.getConfig(), false);
  });

  test('iteration numbers must increase: an earlier number is invalid_iteration and changes nothing', () => {
    const es = engine(STRICT);
    assert.equal(es.recordIterationResult(5, flat(50)), undefined);
    const before = snap(es);
    assert.throws(() => es.recordIterationResult(3, flat(50)), (e) => invalid(e) && /greater than the last recorded iteration \(5\)/.test(e.message));
    assert.equal(snap(es), before);
    assert.equal(es.recordIterationResult(9, flat(60, 10)), undefined);
    assert.deepEqual(es.getIterationHistory().map((r) => r.iteration_number), [5, 9]);
  });

  test('re-recording the last iteration with the same result changes nothing and says so', () => {
    const es = engine({ ...STRICT, maxTotalTokens: 100 });
    es.recordIterationResult(1, flat(50, 0, { tokens_used: 60 }));
    const before = snap(es);
    const decision = es.shouldStop();
    assert.deepEqual(es.recordIterationResult(1, flat(50, 0, { tokens_used: 60 })), { duplicate: true });
    assert.deepEqual(es.recordIterationResult(1, { ...flat(50, 0, { tokens_used: 60 }), quality_delta: -0, iteration_number: 1 }), { duplicate: true });
    assert.equal(snap(es), before);
    assert.deepEqual(es.shouldStop(), decision);
    assert.equal(es.shouldStop().budgets[0].observed, 60, 'tokens counted once');
  });

  test('the same number with another result is invalid_iteration naming what differs', () => {
    const es = engine(STRICT);
    es.recordIterationResult(1, flat(50, 0, { tokens_used: 60 }));
    const before = snap(es);
    for (const [changed, field] of [
      [flat(51, 0, { tokens_used: 60 }), 'quality_score'], [{ ...flat(50, 0, { tokens_used: 60 }), confidence: 0.6 }, 'confidence'],
      [{ ...flat(50, 0, { tokens_used: 60 }), verification_status: 'passed' }, 'verification_status'], [flat(50, 1, { tokens_used: 60 }), 'quality_delta'],
      [flat(50, 0, { tokens_used: 61 }), 'tokens_used'], [flat(50, 0), 'tokens_used'], [flat(50, 0, { tokens_used: 60, execution_time_ms: 5 }), 'execution_time_ms'],
      [flat(50, 0, { tokens_used: 60, timestamp: '2026-01-01T00:00:01.000Z' }), 'timestamp'],
    ]) {
      assert.throws(() => es.recordIterationResult(1, changed), (e) => invalid(e) && e.message.endsWith(`got 1 with a different ${field}`), field);
    }
    assert.equal(snap(es), before);
  });

  test('a clock-filled timestamp: a re-record without one, or with the one the history shows, is a duplicate', () => {
    const es = engine(STRICT);
    const result = { quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0 };
    es.recordIterationResult(1, result);
    assert.deepEqual(es.recordIterationResult(1, result), { duplicate: true });
    const clock = es.getIterationHistory()[0].timestamp;
    assert.deepEqual(es.recordIterationResult(1, { ...result, timestamp: clock }), { duplicate: true });
    assert.throws(() => es.recordIterationResult(1, { ...result, timestamp: '1999-01-01T00:00:00.000Z' }), invalid);
    assert.equal(es.getIterationHistory().length, 1);
  });

  test('the resume recipe: record, snapshot, crash, restore, re-record the last iteration: budgets count it once', () => {
    const config = { ...STRICT, maxTotalTokens: 100 };
    const es = engine(config);
    es.recordIterationResult(1, flat(50, 0, { tokens_used: 40 }));
    es.recordIterationResult(2, flat(52, 2, { tokens_used: 40 }));
    const saved = JSON.stringify(es.toJSON()); // then the process dies before it learns the save finished
    const resumed = EarlyStopping.fromJSON(saved);
    assert.equal(resumed.getConfig().strictIterations, true);
    assert.deepEqual(resumed.recordIterationResult(2, flat(52, 2, { tokens_used: 40 })), { duplicate: true });
    const after = resumed.shouldStop();
    assert.deepEqual([after.stop, after.budgets[0].observed], [false, 80]);
    assert.deepEqual(resumed.toJSON(), es.toJSON());
    // Without the option the same resume counts iteration 2 twice and stops on a budget never spent.
    const loose = EarlyStopping.fromJSON(JSON.stringify({ ...JSON.parse(saved), config: { maxTotalTokens: 100 } }));
    loose.recordIterationResult(2, flat(52, 2, { tokens_used: 40 }));
    assert.deepEqual([loose.shouldStop().trigger, loose.shouldStop().budgets[0].observed], ['budget_exhausted', 120]);
  });

  test('the recommended preset has it on; an override turns it off', () => {
    const es = EarlyStopping.fromPreset('recommended');
    assert.equal(es.getConfig().strictIterations, true);
    es.recordIterationResult(2, flat(50));
    assert.throws(() => es.recordIterationResult(1, flat(50)), invalid);
    const off = EarlyStopping.fromPreset('recommended', { strictIterations: false });
    assert.equal(off.getConfig().strictIterations, false);
    off.recordIterationResult(2, flat(50));
    assert.equal(off.recordIterationResult(1, flat(50)), undefined);
  });

  test('turned on later, it judges each new record against the last one; the history stays', () => {
    const es = engine(undefined);
    for (const i of [5, 9, 2]) es.recordIterationResult(i, flat(50));
    es.configure(STRICT);
    assert.deepEqual(es.getIterationHistory().map((r) => r.iteration_number), [5, 9, 2]);
    assert.throws(() => es.recordIterationResult(1, flat(50)), invalid);
    es.recordIterationResult(3, flat(50));
    const restored = EarlyStopping.fromJSON(es.toJSON());
    assert.throws(() => restored.recordIterationResult(3, flat(51)), invalid);
    assert.deepEqual(restored.recordIterationResult(3, flat(50)), { duplicate: true });
    // Its snapshot says where strict checking began (the history's length then), and only then.
    assert.equal(es.toJSON().strictIterationsFrom, 3);
    assert.deepEqual(restored.toJSON(), es.toJSON());
    assert.equal(JSON.stringify(EarlyStopping.fromJSON(JSON.stringify(es.toJSON())).toJSON()), JSON.stringify(es.toJSON()));
    const always = engine(STRICT);
    for (const i of [1, 2]) always.recordIterationResult(i, flat(50));
    assert.equal('strictIterationsFrom' in always.toJSON(), false);
  });

  test('a snapshot whose history repeats or goes back under it is refused on restore', () => {
    const loose = engine(undefined);
    for (const i of [1, 2, 2]) loose.recordIterationResult(i, flat(50));
    const snapshot = loose.toJSON();
    const refused = (s, field, kind = RangeError) => assert.throws(() => EarlyStopping.fromJSON(s),
      (e) => e instanceof kind && e.code === 'invalid_snapshot' && e.field === field);
    refused({ ...snapshot, config: { ...snapshot.config, strictIterations: true } }, 'history[2].iteration_number');
    refused(JSON.stringify({ ...snapshot, config: { ...snapshot.config, strictIterations: true } }), 'history[2].iteration_number');
    // The key: an integer within the history's length, only with the option on, and checked from there.
    const strict = { ...snapshot, config: { ...snapshot.config, strictIterations: true } };
    assert.equal(EarlyStopping.fromJSON({ ...strict, strictIterationsFrom: 3 }).toJSON().strictIterationsFrom, 3);
    refused({ ...strict, strictIterationsFrom: 2 }, 'history[2].iteration_number');
    refused({ ...strict, strictIterationsFrom: 4 }, 'strictIterationsFrom');
    refused({ ...strict, strictIterationsFrom: 1.5 }, 'strictIterationsFrom');
    refused({ ...strict, strictIterationsFrom: '3' }, 'strictIterationsFrom', TypeError);
    refused({ ...snapshot, strictIterationsFrom: 3 }, 'strictIterationsFrom');
    // Without the option the same history restores, as before.
    assert.deepEqual(EarlyStopping.fromJSON(snapshot).toJSON(), snapshot);
  });

  test('the JSON path (an unusual argument) judges re-records as the fast path does', () => {
    const long = `2026-01-01T00:00:00.${'0'.repeat(70)}Z`; // longer than the fast path takes
    const es = engine(STRICT);
    es.recordIterationResult(1, { ...flat(50), timestamp: long });
    assert.deepEqual(es.recordIterationResult(1, { ...flat(50), timestamp: long }), { duplicate: true });
    assert.deepEqual(es.recordIterationResult(1, { ...flat(50), timestamp: undefined }), { duplicate: true });
    assert.throws(() => es.recordIterationResult(1, { ...flat(50), timestamp: TS }), invalid);
    assert.throws(() => es.recordIterationResult(0.5 + 0.5, { ...flat(50), timestamp: long, quality_delta: 1 }), invalid);
    assert.equal(es.getIterationHistory().length, 1);
  });

  for (const [value, kind] of [[1, TypeError], ['true', TypeError], [null, TypeError]]) {
    test(`strictIterations = ${JSON.stringify(value)} is rejected with code and field`, () => {
      assert.throws(() => new EarlyStopping({ strictIterations: value }), (e) => e instanceof kind && e.code === 'invalid_config' && e.field === 'strictIterations');
    });
  }
});

test(`the vector suite picks up loop_options.json and its JS vectors expect every new trigger (${IMPL})`, async () => {
  const { readFileSync } = await import('node:fs');
  const path = await import('node:path');
  const { ROOT } = await import('./impl.mjs');
  const { vectors } = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'vectors', 'loop_options.json'), 'utf8'));
  const seen = new Set();
  for (const v of vectors) {
    if (Array.isArray(v.only) && !v.only.includes('js')) continue;
    for (const c of v.calls) if (c.call === 'shouldStop' && c.returns?.trigger) seen.add(c.returns.trigger);
  }
  for (const t of ['max_iterations', 'budget_exhausted', 'quality_regression', 'quality_plateau', 'high_confidence', 'diminishing_returns', 'none']) {
    assert.ok(seen.has(t), `no loop_options vector expects ${t}`);
  }
});
