// loop_options.json: the opt-in loop options of loop-stopping.md ("Beyond the seed";
// the long form, with the order of checks and every reason's wording, is
// docs/loop-options.md). All `hand`: expectations come from the independent model in
// options_model.mjs (via driver.mjs), and the key boundaries are also written out below
// (`expect`), so generation fails if the model and the design page disagree.
import { rec, stop, call, prng } from './gen_util.mjs';
import { OptionsLoop } from './options_model.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const H = (name, config, calls, extra = {}) =>
  ({ name, engine: 'EarlyStopping', source: 'hand', construct: { config, analytics: extra.analytics ?? null }, calls, ...extra.vector });
const T = (code, field, kind) => ({ throws: { code, field, kind } });
const R = (returns) => ({ returns });
const expectStop = (i, returns) => ({ ...stop(i), expect: R(returns) });
// A record that never triggers the seed's rules on its own (low confidence, failed).
const flat = (i, q, d = 0, extra = {}) => rec(i, q, 0.5, 'failed', d, extra);
const proof = (i) => [flat(i, 50, 0), stop(i), call('getConfig'), call('getIterationHistory')];
const go = (reason, confidence, best, quality, budgets) => {
  const d = { stop: false, reason, confidence, trigger: 'none', best_iteration: best, best_quality_score: quality };
  if (budgets) d.budgets = budgets;
  return d;
};
const budget = (name, limit, observed, without, exhausted) =>
  ({ budget: name, limit, observed, records_without_value: without, exhausted });

function maxIterations() {
  const v = [];
  const cfg = { maxIterations: 3, enablePlateauDetection: false };
  v.push(H('maxIterations fires exactly when the count reaches it, not one step before', cfg, [
    flat(1, 10, 10), flat(2, 30, 20), expectStop(2, go('Continuing iteration - no stopping criteria met', 0.7, 2, 30)),
    flat(3, 60, 30), expectStop(3, {
      stop: true, reason: 'Maximum iterations reached (3/3)', confidence: 1, trigger: 'max_iterations',
      details: { iterations: 3, max_iterations: 3 }, best_iteration: 3, best_quality_score: 60,
    }),
    call('getStoppingReason'), call('getStoppingDetails'), flat(4, 70, 10), stop(4), call('generateSummary'),
  ]));
  v.push(H('maxIterations 1 stops after the first record', { maxIterations: 1 }, [stop(1), flat(1, 40), stop(1)]));
  v.push(H('maxIterations counts recorded iterations, not iteration numbers', { maxIterations: 2, enablePlateauDetection: false },
    [flat(10, 40, 0), stop(10), flat(20, 50, 10), stop(20)]));
  v.push(H('maxIterations beats high confidence in the same step', { maxIterations: 2 },
    [flat(1, 50), rec(2, 95, 0.99, 'passed', 45), stop(2)]));
  v.push(H('maxIterations beats a plateau in the same step', { maxIterations: 3 },
    [flat(1, 50), flat(2, 50), flat(3, 50), stop(3)]));
  v.push(H('maxIterations hands back the best iteration, not the last', { maxIterations: 3, enablePlateauDetection: false },
    [rec(1, 70, 0.5, 'passed', 0), rec(2, 85, 0.5, 'passed', 15), rec(3, 60, 0.5, 'failed', -25), stop(3)]));
  return v;
}

function budgets() {
  const v = [];
  const tok = (i, q, t) => flat(i, q, 10, { tokens_used: t });
  v.push(H('maxTotalTokens: a sum equal to the limit goes on, one token more stops', { maxTotalTokens: 1000 }, [
    tok(1, 10, 600), tok(2, 20, 400),
    expectStop(2, go('Continuing iteration - no stopping criteria met', 0.7, 2, 20, [budget('tokens', 1000, 1000, 0, false)])),
    tok(3, 30, 1), expectStop(3, {
      stop: true, reason: 'Budget exhausted: total tokens_used 1001 > limit 1000', confidence: 1, trigger: 'budget_exhausted',
      details: { budget: 'tokens', limit: 1000, observed: 1001, records_without_value: 0 }, best_iteration: 3, best_quality_score: 30,
      budgets: [budget('tokens', 1000, 1001, 0, true)],
    }),
    call('getStoppingDetails'),
  ]));
  v.push(H('maxTotalCostUsd: exceeding the limit stops', { maxTotalCostUsd: 0.05 }, [
    flat(1, 10, 10, { token_cost_usd: 0.02 }), flat(2, 20, 10, { token_cost_usd: 0.03 }), stop(2),
    flat(3, 30, 10, { token_cost_usd: 0.001 }), stop(3),
  ]));
  v.push(H('maxTotalCostUsd compares the floating-point sum as summed (0.1 + 0.2 > 0.3)', { maxTotalCostUsd: 0.3 }, [
    flat(1, 10, 10, { token_cost_usd: 0.1 }), stop(1), flat(2, 20, 10, { token_cost_usd: 0.2 }), stop(2),
  ]));
  v.push(H('maxWallClockMs: exceeding the limit stops', { maxWallClockMs: 5000 }, [
    flat(1, 10, 10, { execution_time_ms: 2500 }), flat(2, 20, 10, { execution_time_ms: 2500 }), stop(2),
    flat(3, 30, 10, { execution_time_ms: 0.5 }), stop(3),
  ]));
  v.push(H('a budget of 0 allows zero use and stops at any use', { maxTotalTokens: 0 }, [
    tok(1, 10, 0), stop(1), tok(2, 20, 0.5), stop(2),
  ]));
  v.push(H('a record without tokens_used counts as unknown, not zero', { maxTotalTokens: 100 }, [
    tok(1, 10, 60), flat(2, 20, 10),
    expectStop(2, go('Continuing iteration - no stopping criteria met', 0.7, 2, 20, [budget('tokens', 100, 60, 1, false)])),
    tok(3, 30, 50), expectStop(3, {
      stop: true, reason: 'Budget exhausted: total tokens_used 110 > limit 100 (1 records without tokens_used not counted)',
      confidence: 1, trigger: 'budget_exhausted', details: { budget: 'tokens', limit: 100, observed: 110, records_without_value: 1 },
      best_iteration: 3, best_quality_score: 30, budgets: [budget('tokens', 100, 110, 1, true)],
    }),
  ]));
  v.push(H('a budget nothing reports never stops and says how many records were unknown', { maxTotalTokens: 1, enablePlateauDetection: false },
    [flat(1, 10, 10), flat(2, 20, 10), flat(3, 30, 10, { token_cost_usd: 5 }), stop(3), call('generateSummary')]));
  v.push(H('every budget is listed, in the order tokens, cost, wall clock', { maxWallClockMs: 100, maxTotalTokens: 100, maxTotalCostUsd: 1 },
    [stop(1), flat(1, 10, 10, { tokens_used: 5, execution_time_ms: 7 }), stop(1)]));
  v.push(H('two budgets exhausted in the same step: tokens is checked first', { maxTotalTokens: 10, maxTotalCostUsd: 0.01 },
    [flat(1, 10, 10, { tokens_used: 11, token_cost_usd: 0.02 }), stop(1)]));
  v.push(H('cost is checked before wall clock', { maxWallClockMs: 10, maxTotalCostUsd: 0.01 },
    [flat(1, 10, 10, { execution_time_ms: 11, token_cost_usd: 0.02 }), stop(1)]));
  v.push(H('a budget beats maxIterations in the same step', { maxTotalTokens: 10, maxIterations: 2 },
    [tok(1, 10, 5), tok(2, 20, 6), stop(2)]));
  // Budget and plateau in the same step: hard limits come first, because they bound cost
  // whatever the quality says (docs/loop-options.md, order of checks).
  v.push(H('budget and plateau in the same step: the budget wins', { maxTotalTokens: 100 }, [
    flat(1, 50, 0, { tokens_used: 10 }), flat(2, 50, 0, { tokens_used: 10 }), stop(2), flat(3, 50, 0, { tokens_used: 90 }),
    expectStop(3, {
      stop: true, reason: 'Budget exhausted: total tokens_used 110 > limit 100', confidence: 1, trigger: 'budget_exhausted',
      details: { budget: 'tokens', limit: 100, observed: 110, records_without_value: 0 }, best_iteration: 1, best_quality_score: 50,
      budgets: [budget('tokens', 100, 110, 0, true)],
    }),
  ]));
  v.push(H('the same plateau without the budget stops on the plateau', { maxTotalTokens: 1000 }, [
    flat(1, 50, 0, { tokens_used: 10 }), flat(2, 50, 0, { tokens_used: 10 }), flat(3, 50, 0, { tokens_used: 90 }), stop(3),
  ]));
  v.push(H('budget and high confidence in the same step: the budget wins', { maxTotalTokens: 100 },
    [rec(1, 95, 0.99, 'passed', 0, { tokens_used: 101 }), stop(1)]));
  v.push(H('budget and an outside diminishing-returns source: the source is not asked', { maxTotalTokens: 10 },
    [flat(1, 50, 0, { tokens_used: 11 }), stop(1)], { analytics: { script: [{ detected: true, iteration: 1, reason: 'r' }] } }));
  v.push(H('budgets survive reset() as config and restart from zero', { maxTotalTokens: 10 },
    [tok(1, 10, 11), stop(1), call('reset'), stop(1), tok(1, 10, 5), stop(1)]));
  return v;
}

function warmUp() {
  const v = [];
  const verified = (i) => rec(i, 95, 0.99, 'passed', 0);
  v.push(H('warm-up blocks high confidence until minIterations, then it fires at once', { minIterations: 3 }, [
    stop(1),
    verified(1), expectStop(1, go('Warm-up: iteration 1 of 3', 1, 1, 95)),
    verified(2), expectStop(2, go('Warm-up: iteration 2 of 3', 1, 1, 95)),
    verified(3), stop(3), call('getStoppingReason'),
  ]));
  v.push(H('warm-up blocks a plateau', { minIterations: 4 },
    [flat(1, 50), flat(2, 50), flat(3, 50), stop(3), flat(4, 50), stop(4)]));
  v.push(H('warm-up blocks the regression guard', { minIterations: 4, regressionTolerance: 5, regressionPatience: 1, enablePlateauDetection: false },
    [flat(1, 80), flat(2, 60, -20), stop(2), flat(3, 60), stop(3), flat(4, 60), stop(4)]));
  v.push(H('warm-up does not ask the outside source', { minIterations: 2 },
    [flat(1, 50), stop(1), flat(2, 60, 10), stop(2)], { analytics: { script: [{ detected: true, iteration: 2, reason: 'flat' }] } }));
  v.push(H('warm-up does not hold back a budget', { minIterations: 5, maxTotalTokens: 10 }, [
    flat(1, 95, 0, { tokens_used: 11 }), expectStop(1, {
      stop: true, reason: 'Budget exhausted: total tokens_used 11 > limit 10', confidence: 1, trigger: 'budget_exhausted',
      details: { budget: 'tokens', limit: 10, observed: 11, records_without_value: 0 }, best_iteration: 1, best_quality_score: 95,
      budgets: [budget('tokens', 10, 11, 0, true)],
    }),
  ]));
  v.push(H('warm-up does not hold back maxIterations (minIterations equal to maxIterations)', { minIterations: 2, maxIterations: 2 },
    [verified(1), stop(1), verified(2), stop(2)]));
  v.push(H('warm-up of 1 changes nothing', { minIterations: 1 }, [verified(1), stop(1)]));
  v.push(H('the summary of a warm-up says so', { minIterations: 3 }, [verified(1), call('generateSummary')]));
  return v;
}

function plateauVariants() {
  const v = [];
  v.push(H('computed deltas: flat scores plateau whatever delta the caller reports', { plateauDeltaSource: 'computed' },
    [flat(1, 50, 25), flat(2, 50, 25), flat(3, 50, 25), stop(3)]));
  v.push(H('reported deltas (the seed) trust the caller on the same records', { plateauDeltaSource: 'reported' },
    [flat(1, 50, 25), flat(2, 50, 25), flat(3, 50, 25), stop(3)]));
  v.push(H('computed deltas: rising scores with zero reported deltas do not plateau', { plateauDeltaSource: 'computed' },
    [flat(1, 50, 0), flat(2, 60, 0), flat(3, 70, 0), stop(3), flat(4, 70.5, 0), flat(5, 71, 0), stop(5)]));
  v.push(H('absolute plateau: a step of exactly the threshold is not flat, one below is', { plateauMode: 'absolute', plateauImprovementThreshold: 2 }, [
    flat(1, 50, 0), flat(2, 52, 2), flat(3, 53, 1), expectStop(3, go('Continuing iteration - no stopping criteria met', 0.7, 3, 53)),
    flat(4, 54, 1), expectStop(4, {
      stop: true, reason: 'Quality plateau detected: 3 consecutive iterations with <2 points improvement', confidence: 0.85,
      trigger: 'quality_plateau', details: { consecutive_count: 3, improvements: [{ iteration: 3, improvement: 1, delta: 1 }, { iteration: 4, improvement: 1, delta: 1 }], average_quality: 53, threshold: 2 },
      best_iteration: 4, best_quality_score: 54,
    }),
  ]));
  v.push(H('absolute plateau ignores the previous score (low scores are not magnified)', { plateauMode: 'absolute', plateauImprovementThreshold: 1 },
    [flat(1, 2, 0), flat(2, 2.5, 0.5), flat(3, 3, 0.5), stop(3)]));
  v.push(H('relative plateau on the same low scores does not stop', { plateauMode: 'relative', plateauImprovementThreshold: 0.02 },
    [flat(1, 2, 0), flat(2, 2.5, 0.5), flat(3, 3, 0.5), stop(3)]));
  v.push(H('absolute and computed together', { plateauMode: 'absolute', plateauDeltaSource: 'computed', plateauImprovementThreshold: 0.5 },
    [flat(1, 70, 9), flat(2, 70.25, 9), flat(3, 70, 9), stop(3), call('getStoppingDetails')]));
  v.push(H('absolute plateau with a fractional threshold prints it as a number', { plateauMode: 'absolute', plateauImprovementThreshold: 0.25, plateauConsecutiveCount: 2 },
    [flat(1, 40, 0), flat(2, 40.125, 0.125), stop(2)]));
  v.push(H('absolute plateau with threshold 0 never stops', { plateauMode: 'absolute', plateauImprovementThreshold: 0 },
    [flat(1, 50), flat(2, 50), flat(3, 50), stop(3)]));
  v.push(H('an absolute threshold of 100 is allowed', { plateauMode: 'absolute', plateauImprovementThreshold: 100 },
    [flat(1, 0, 0), flat(2, 100, 100), flat(3, 0, -100), stop(3)]));
  v.push(H('configure switches a running engine to absolute points', null, [
    flat(1, 50, 0), flat(2, 51, 1), flat(3, 52, 1), stop(3),
    call('configure', { plateauMode: 'absolute', plateauImprovementThreshold: 1.5 }), stop(3), call('getConfig'),
  ]));
  return v;
}

function regression() {
  const v = [];
  const cfg = { regressionTolerance: 5, regressionPatience: 2, enablePlateauDetection: false };
  v.push(H('regression fires after patience iterations more than tolerance below the best', cfg, [
    flat(1, 80, 0), flat(2, 74, -6), expectStop(2, go('Continuing iteration - no stopping criteria met', 0.7, 1, 80)),
    flat(3, 75, 1), expectStop(3, go('Continuing iteration - no stopping criteria met', 0.7, 1, 80)),
    flat(4, 70, -5), stop(4),
    flat(5, 60, -10), expectStop(5, {
      stop: true, reason: 'Quality regression: 2 consecutive iterations more than 5 points below the best (80 at iteration 1)',
      confidence: 0.8, trigger: 'quality_regression',
      details: { best_iteration: 1, best_quality_score: 80, tolerance: 5, patience: 2 }, best_iteration: 1, best_quality_score: 80,
    }),
    call('getStoppingDetails'),
  ]));
  v.push(H('regression patience defaults to 2 once a tolerance is set', { regressionTolerance: 0, enablePlateauDetection: false },
    [flat(1, 80), flat(2, 79, -1), stop(2), flat(3, 79), stop(3), call('getConfig')]));
  v.push(H('regression with patience 1 fires on the first drop', { regressionTolerance: 10, regressionPatience: 1, enablePlateauDetection: false },
    [flat(1, 90), flat(2, 80, -10), stop(2), flat(3, 79.5, -0.5), stop(3)]));
  v.push(H('a new best resets the regression', { regressionTolerance: 3, regressionPatience: 2, enablePlateauDetection: false },
    [flat(1, 60), flat(2, 50, -10), stop(2), flat(3, 70, 20), flat(4, 66, -4), stop(4), flat(5, 66), stop(5)]));
  v.push(H('the regression guard measures from the highest quality, verified or not', { regressionTolerance: 5, regressionPatience: 2, enablePlateauDetection: false },
    [rec(1, 90, 0.5, 'failed', 0), rec(2, 75, 0.5, 'passed', -15), rec(3, 76, 0.5, 'passed', 1), stop(3)]));
  v.push(H('regression and plateau in the same step: the plateau (checked first) wins', { regressionTolerance: 5, regressionPatience: 2 },
    [flat(1, 90), flat(2, 80, 0), flat(3, 80, 0), stop(3)]));
  v.push(H('regression is checked before the outside source, which is then not asked', { regressionTolerance: 5, regressionPatience: 1, enablePlateauDetection: false },
    [flat(1, 90), flat(2, 80, -10), stop(2)], { analytics: { script: [{ detected: true, iteration: 2, reason: 'r' }] } }));
  v.push(H('without a regression the outside source is still asked', { regressionTolerance: 50, enablePlateauDetection: false },
    [flat(1, 90), flat(2, 80, -10), stop(2)], { analytics: { script: [{ detected: true, iteration: 2, reason: 'flat' }] } }));
  v.push(H('configure(regressionTolerance) judges the history already recorded', { enablePlateauDetection: false },
    [flat(1, 90), flat(2, 70, -20), flat(3, 70), stop(3), call('configure', { regressionTolerance: 10 }), stop(3)]));
  return v;
}

function configAndSnapshots() {
  const v = [];
  v.push(H('getConfig lists the options that are set after the seed keys, in the table order', { regressionTolerance: 4, maxIterations: 9, plateauMode: 'absolute', minIterations: 2 },
    [call('getConfig'), call('configure', { maxTotalCostUsd: 2.5, plateauDeltaSource: 'computed' }), call('getConfig')]));
  v.push(H('options added by configure() on a running engine take effect at the next decision', null, [
    flat(1, 50, 10, { tokens_used: 40 }), flat(2, 60, 10, { tokens_used: 40 }), stop(2),
    call('configure', { maxTotalTokens: 50 }), stop(2), call('getStoppingReason'),
  ]));
  v.push(H('generateSummary carries the options in its config', { maxIterations: 2, maxTotalTokens: 500 },
    [flat(1, 40, 0, { tokens_used: 100 }), flat(2, 50, 10, { tokens_used: 100 }), call('generateSummary')]));
  v.push(H('a snapshot keeps the options and the usage, and the restored engine decides the same', { maxTotalTokens: 100, regressionTolerance: 5, plateauMode: 'absolute', plateauImprovementThreshold: 3 }, [
    flat(1, 80, 0, { tokens_used: 30 }), flat(2, 70, -10, { tokens_used: 30 }), stop(2),
    { ...call('toJSON'), saveAs: 's' }, { call: 'fromJSON', args: [{ $saved: 's', as: 'string' }] },
    call('getConfig'), flat(3, 60, -10, { tokens_used: 50 }), stop(3), call('toJSON'),
  ]));
  v.push(H('a stopped engine in absolute plateau mode round-trips through a snapshot', { plateauMode: 'absolute', plateauImprovementThreshold: 2 }, [
    flat(1, 50, 0), flat(2, 51, 1), flat(3, 51.5, 0.5), stop(3),
    { ...call('toJSON'), saveAs: 's' }, { call: 'fromJSON', args: [{ $saved: 's' }] }, call('getStoppingDetails'), call('toJSON'),
  ]));
  v.push(H('budget and regression stop details round-trip through a snapshot', { maxTotalTokens: 10, regressionTolerance: 1, regressionPatience: 1 }, [
    flat(1, 50, 0), flat(2, 40, -10), stop(2), { ...call('toJSON'), saveAs: 'r' }, { call: 'fromJSON', args: [{ $saved: 'r' }] }, call('getStoppingDetails'),
    flat(3, 40, 0, { tokens_used: 11 }), stop(3), { ...call('toJSON'), saveAs: 'b' }, { call: 'fromJSON', args: [{ $saved: 'b' }] }, call('getStoppingDetails'),
  ]));
  v.push(H('a max_iterations stop round-trips through a snapshot', { maxIterations: 1 },
    [flat(1, 50), stop(1), { ...call('toJSON'), saveAs: 's' }, { call: 'fromJSON', args: [{ $saved: 's' }] }, call('getStoppingReason'), call('getStoppingDetails')]));
  const bad = [
    ['config.maxIterations', 0, 'range'], ['config.maxTotalTokens', -1, 'range'], ['config.plateauMode', 'points', 'range'],
    ['config.regressionPatience', '2', 'type'], ['config.nope', 1, 'type'],
  ];
  for (const [path, value, kind] of bad) {
    v.push(H(`fromJSON rejects ${path} = ${JSON.stringify(value)}`, { maxIterations: 5 }, [
      flat(1, 50), { ...call('toJSON'), saveAs: 's' },
      { call: 'fromJSON', args: [{ $saved: 's', patch: [{ path, value }] }], expect: T('invalid_snapshot', path, kind) }, stop(1),
    ]));
  }
  v.push(H('fromJSON rejects a snapshot whose minIterations exceeds maxIterations', { maxIterations: 5 }, [
    { ...call('toJSON'), saveAs: 's' },
    { call: 'fromJSON', args: [{ $saved: 's', patch: [{ path: 'config.minIterations', value: 6 }] }], expect: T('invalid_snapshot', 'config.minIterations', 'range') },
  ]));
  v.push(H('fromJSON rejects a relative plateau threshold above 1', { plateauMode: 'absolute', plateauImprovementThreshold: 5 }, [
    { ...call('toJSON'), saveAs: 's' },
    { call: 'fromJSON', args: [{ $saved: 's', patch: [{ path: 'config.plateauMode', delete: true }] }], expect: T('invalid_snapshot', 'config.plateauImprovementThreshold', 'range') },
  ]));
  return v;
}

// strictIterations (docs/loop-options.md "Resume safety"): numbers must increase; the last
// iteration again with the same result is accepted, changes nothing and returns
// {duplicate: true}; anything else is invalid_iteration with nothing changed.
function strictIterations() {
  const v = [];
  const S = { strictIterations: true };
  const DUP = R({ duplicate: true });
  const bad = T('invalid_iteration', 'iteration', 'range');
  const again = (i, q, d = 0, extra = {}) => ({ ...flat(i, q, d, extra), expect: DUP });
  const refused = (i, q, d = 0, extra = {}) => ({ ...flat(i, q, d, extra), expect: bad });
  v.push(H('strictIterations off (the seed): 5, 3, 5 are all recorded', { strictIterations: false },
    [flat(5, 50), flat(3, 50), flat(5, 50), call('getIterationHistory'), stop(5)]));
  v.push(H('strictIterations: an earlier number is invalid_iteration and changes nothing', S,
    [flat(5, 50), refused(3, 50), refused(1, 50), flat(6, 55, 5), call('getIterationHistory'), stop(6)]));
  v.push(H('strictIterations: the last iteration again with the same result is a duplicate', { ...S, maxTotalTokens: 100 }, [
    flat(1, 50, 0, { tokens_used: 60 }), stop(1), again(1, 50, 0, { tokens_used: 60 }), again(1, 50, 0, { tokens_used: 60 }),
    stop(1), call('getIterationHistory'), flat(2, 55, 5, { tokens_used: 30 }), stop(2),
  ]));
  const last = (extra) => ({ call: 'recordIterationResult', args: [1, { quality_score: 50, confidence: 0.5, verification_status: 'failed', quality_delta: 0, ...extra }] });
  v.push(H('strictIterations: a duplicate compares every caller-given field', S, [
    flat(1, 50, 0, { tokens_used: 60 }),
    { ...last({ tokens_used: 60, quality_delta: N('-0'), iteration_number: 1 }), expect: DUP },
    { ...last({ tokens_used: 60 }), expect: DUP }, // no timestamp: not compared (the clock's would differ)
    { ...last({ tokens_used: 60, timestamp: '2026-01-01T00:16:41.000Z' }), expect: DUP }, // the one recorded (ts(1))
    { ...last({ tokens_used: 60, timestamp: '2026-01-01T00:16:42.000Z' }), expect: bad },
    { ...last({ tokens_used: 61 }), expect: bad }, { ...last({}), expect: bad },
    { ...last({ tokens_used: 60, token_cost_usd: 0 }), expect: bad }, { ...last({ tokens_used: 60, quality_score: 51 }), expect: bad },
    { ...last({ tokens_used: 60, confidence: 0.6 }), expect: bad }, { ...last({ tokens_used: 60, verification_status: 'skipped' }), expect: bad },
    { ...last({ tokens_used: 60, quality_delta: 1 }), expect: bad },
    call('getIterationHistory'), stop(1),
  ]));
  v.push(H('strictIterations: the resume recipe (record, snapshot, restore, re-record) counts tokens once', { ...S, maxTotalTokens: 100 }, [
    flat(1, 50, 0, { tokens_used: 40 }), flat(2, 52, 2, { tokens_used: 40 }),
    { ...call('toJSON'), saveAs: 's' }, { call: 'fromJSON', args: [{ $saved: 's', as: 'string' }] },
    again(2, 52, 2, { tokens_used: 40 }), stop(2), call('toJSON'), flat(3, 54, 2, { tokens_used: 10 }), stop(3),
  ]));
  v.push(H('strictIterations turned on by configure() judges each new record against the last one', null, [
    flat(5, 50), flat(9, 50), flat(2, 50), call('configure', S), call('getConfig'),
    refused(1, 50), again(2, 50), flat(3, 50), call('getIterationHistory'),
  ]));
  v.push(H('strictIterations: reset() starts over from any number', S, [flat(5, 50), call('reset'), flat(1, 50), call('getIterationHistory')]));
  return v;
}

// [key, bad value, kind, only?]: every new option, each kind of bad value.
const OPTION_BAD = [
  ['plateauDeltaSource', 'score', 'range'], ['plateauDeltaSource', 'Computed', 'range'], ['plateauDeltaSource', true, 'type'],
  ['plateauDeltaSource', null, 'type', JS],
  ['plateauMode', 'percent', 'range'], ['plateauMode', '', 'range'], ['plateauMode', 1, 'type'], ['plateauMode', null, 'type', JS],
  ['minIterations', 0, 'range'], ['minIterations', -2, 'range'], ['minIterations', 2.5, 'range'], ['minIterations', N('NaN'), 'range'],
  ['minIterations', N('Infinity'), 'range'], ['minIterations', 9007199254740992, 'range'], ['minIterations', '3', 'type'], ['minIterations', null, 'type', JS],
  ['maxIterations', 0, 'range'], ['maxIterations', 1.5, 'range'], ['maxIterations', N('Infinity'), 'range'], ['maxIterations', '10', 'type'],
  ['maxIterations', false, 'type'], ['maxIterations', null, 'type', JS],
  ['maxTotalTokens', -1, 'range'], ['maxTotalTokens', N('NaN'), 'range'], ['maxTotalTokens', N('Infinity'), 'range'], ['maxTotalTokens', '1000', 'type'],
  ['maxTotalTokens', null, 'type', JS],
  ['maxTotalCostUsd', -0.01, 'range'], ['maxTotalCostUsd', N('-Infinity'), 'range'], ['maxTotalCostUsd', '$5', 'type'], ['maxTotalCostUsd', null, 'type', JS],
  ['maxWallClockMs', -1, 'range'], ['maxWallClockMs', N('NaN'), 'range'], ['maxWallClockMs', true, 'type'], ['maxWallClockMs', null, 'type', JS],
  ['regressionTolerance', -0.5, 'range'], ['regressionTolerance', 100.5, 'range'], ['regressionTolerance', N('NaN'), 'range'],
  ['regressionTolerance', '5', 'type'], ['regressionTolerance', null, 'type', JS],
  ['strictIterations', 1, 'type'], ['strictIterations', 'true', 'type'], ['strictIterations', null, 'type', JS],
];

function optionErrors() {
  const v = [];
  for (const [k, val, kind, only] of OPTION_BAD) {
    const shown = JSON.stringify(val);
    const o = only ? { vector: { only } } : {};
    v.push({ ...H(`constructor rejects ${k} = ${shown}`, { [k]: val }, [], o), expectThrows: { code: 'invalid_config', field: k, kind } });
    v.push(H(`configure rejects ${k} = ${shown} and changes nothing`, { maxIterations: 50, regressionTolerance: 5 },
      [flat(1, 50), { ...call('configure', { [k]: val }), expect: T('invalid_config', k, kind) }, ...proof(2)], o));
  }
  // regressionPatience: its own values, with a tolerance so the cross-field rule holds
  for (const [val, kind, only] of [[0, 'range'], [1.5, 'range'], ['2', 'type'], [N('NaN'), 'range'], [null, 'type', JS]]) {
    const o = only ? { vector: { only } } : {};
    v.push({ ...H(`constructor rejects regressionPatience = ${JSON.stringify(val)}`, { regressionTolerance: 5, regressionPatience: val }, [], o),
      expectThrows: { code: 'invalid_config', field: 'regressionPatience', kind } });
  }
  const cross = (name, config, field) => ({ ...H(`constructor rejects ${name}`, config, []), expectThrows: { code: 'invalid_config', field, kind: 'range' } });
  v.push(cross('minIterations above maxIterations (reported on minIterations)', { minIterations: 4, maxIterations: 3 }, 'minIterations'));
  v.push(cross('regressionPatience without regressionTolerance', { regressionPatience: 3 }, 'regressionPatience'));
  v.push(cross('a plateau threshold above 1 without plateauMode absolute', { plateauImprovementThreshold: 5 }, 'plateauImprovementThreshold'));
  v.push(cross('a plateau threshold above 1 with plateauMode relative', { plateauMode: 'relative', plateauImprovementThreshold: 1.01 }, 'plateauImprovementThreshold'));
  v.push(cross('an absolute plateau threshold above 100', { plateauMode: 'absolute', plateauImprovementThreshold: 100.5 }, 'plateauImprovementThreshold'));
  v.push({ ...H('unknown option keys are reported first, with the closest-name code', { maxIteration: 3 }, []), expectThrows: { code: 'unknown_option', field: 'maxIteration', kind: 'type' } });
  v.push({ ...H('single-field checks come before cross-field rules', { minIterations: 4, maxIterations: 3, maxTotalTokens: -1 }, []),
    expectThrows: { code: 'invalid_config', field: 'maxTotalTokens', kind: 'range' } });
  // configure: the rules judge the merged config; a refusal changes nothing at all
  const base = { minIterations: 3, plateauMode: 'absolute', plateauImprovementThreshold: 4, regressionTolerance: 2, regressionPatience: 3 };
  for (const [name, options, field] of [
    ['a maxIterations below the configured minIterations', { maxIterations: 2 }, 'maxIterations'],
    ['switching back to relative with a threshold above 1', { plateauMode: 'relative' }, 'plateauMode'],
    ['a good key together with a cross-field violation', { maxTotalTokens: 10, minIterations: 9, maxIterations: 8 }, 'minIterations'],
  ]) {
    v.push(H(`configure rejects ${name} and changes nothing`, base,
      [flat(1, 50), { ...call('configure', options), expect: T('invalid_config', field, 'range') }, ...proof(2)]));
  }
  v.push(H('configure may set maxIterations equal to minIterations', base, [call('configure', { maxIterations: 3 }), call('getConfig')]));
  return v;
}

// Options set to the seed's behaviour (or out of reach) decide exactly as the seed does;
// generation also checks each decision against the reference itself (see loopOptions).
const SEED_EQUIVALENT = [
  { plateauDeltaSource: 'reported', plateauMode: 'relative' },
  { maxTotalTokens: 1e12, maxTotalCostUsd: 1e9, maxWallClockMs: 1e12, maxIterations: 1000 },
  { minIterations: 1, regressionTolerance: 100 },
];

function randomRows(r, n) {
  const rows = [];
  let q = r.int(30, 80);
  for (let i = 1; i <= n; i++) {
    const d = r.pick([0, 0.5, -0.5, 1, 3, -3, 8]);
    q = Math.min(100, Math.max(0, q + d));
    rows.push([q, r.pick([0.5, 0.8, 0.9, 0.96, 0.99]), r.pick(['passed', 'failed', 'skipped']), d,
      { tokens_used: r.int(0, 500), execution_time_ms: r.int(10, 900) }]);
  }
  return rows;
}

function defaults(ref) {
  const v = [];
  const r = prng(9091);
  for (let k = 0; k < 12; k++) {
    const config = SEED_EQUIVALENT[k % SEED_EQUIVALENT.length];
    const rows = randomRows(r, r.int(3, 9));
    const calls = [];
    rows.forEach((row, i) => { calls.push(rec(i + 1, ...row)); calls.push(stop(i + 1)); });
    calls.push(call('generateSummary'));
    // The seed's answers for the same records: the decisions must match key for key (the
    // options only add `budgets` to a decision and their keys to getConfig()).
    const seed = new ref.es.EarlyStopping(null, null);
    const model = new OptionsLoop(config, null);
    rows.forEach((row, i) => {
      const [q, c, s, d, extra] = row;
      const result = { quality_score: q, confidence: c, verification_status: s, quality_delta: d, timestamp: '2026-01-01T00:00:00.000Z', ...extra };
      seed.recordIterationResult(i + 1, { ...result });
      model.recordIterationResult(i + 1, { ...result });
      const a = seed.shouldStop(i + 1);
      const { best_iteration, best_quality_score, budgets, ...b } = model.shouldStop(i + 1);
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`seed-equivalent options ${JSON.stringify(config)} differ from the seed: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    });
    v.push(H(`seed-equivalent options decide as the seed (${k + 1}: ${Object.keys(config).join(', ')})`, config, calls));
  }
  return v;
}

// The model with no option set must be the seed: checked on random sequences against the
// reference before any vector is written (so the model's seed rules are not guesses).
function checkModelAgainstSeed(ref) {
  const r = prng(4242);
  for (let k = 0; k < 300; k++) {
    const seed = new ref.es.EarlyStopping(null, null);
    const model = new OptionsLoop(null, null);
    for (const [i, row] of randomRows(r, r.int(1, 12)).entries()) {
      const [q, c, s, d] = row;
      const result = { quality_score: q, confidence: c, verification_status: s, quality_delta: d, timestamp: '2026-01-01T00:00:00.000Z' };
      seed.recordIterationResult(i + 1, { ...result });
      model.recordIterationResult(i + 1, { ...result });
      const a = JSON.stringify(seed.shouldStop(i + 1));
      const { best_iteration, best_quality_score, ...b } = model.shouldStop(i + 1);
      if (a !== JSON.stringify(b)) throw new Error(`options model differs from the seed: ${a} vs ${JSON.stringify(b)}`);
    }
    if (JSON.stringify(seed.generateSummary()) !== JSON.stringify(model.generateSummary())) throw new Error('options model summary differs from the seed');
  }
}

export function loopOptions(ref) {
  checkModelAgainstSeed(ref);
  return [
    ...maxIterations(), ...budgets(), ...warmUp(), ...plateauVariants(), ...regression(), ...configAndSnapshots(),
    ...strictIterations(), ...optionErrors(), ...defaults(ref),
  ];
}
