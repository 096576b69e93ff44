// analytics.json: IterationAnalytics, generated from the reference iteration-analytics.mjs
// (driver.mjs runs it with the times each vector gives). A vector whose answers one of the
// listed deliberate differences changes is marked `hand` by gen_util.mjs's finalize; error
// vectors are `hand` (the reference takes anything).
import { prng, call, ts } from './gen_util.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const START = '2026-01-01T00:00:00.000Z';
const END = '2026-01-01T06:00:00.000Z';
const GENERATED = '2026-01-02T00:00:00.000Z';
const TIMES = { startTime: START, endTime: END };

// upstream's form, not saving (`persist: false`), and the config-object form.
const U = (name, config, calls, extra = {}) => ({
  name, engine: 'IterationAnalytics', source: 'reference',
  construct: { loopId: 'loop-1', taskDescription: 'Fix the flaky tests', config: { persist: false, ...TIMES, ...config } }, calls, ...extra,
});
const C = (name, config, calls, extra = {}) => ({
  name, engine: 'IterationAnalytics', source: 'reference', construct: { config: { ...TIMES, ...config } }, calls, ...extra,
});
const ri = (n, q, v = 'passed', extra = {}) =>
  call('recordIteration', { iteration_number: n, quality_score: q, verification_status: v, timestamp: ts(n), ...extra });
const usage = (i) => ({ tokens_used: 1000 + 250 * i, token_cost_usd: 0.01 * i, execution_time_ms: 5000 + i });
const full = (n, q, v = 'passed', extra = {}) => ri(n, q, v, { ...usage(n), ...extra });
const report = () => call('generateReport', { generatedAt: GENERATED });
const all = () => [call('detectDiminishingReturns'), call('getTrajectory'), call('getOptimalIteration'), call('getOptimalIteration', false),
  call('selectBestIteration'), call('generateSummary'), call('generateQualityChart'), report()];
const seq = (qs, v = 'passed') => qs.map((q, i) => full(i + 1, q, Array.isArray(v) ? v[i] : v));
const T = (code, field, kind) => ({ throws: { code, field, kind } });
const E = (name, construct, calls, extra = {}) => ({ name, engine: 'IterationAnalytics', source: 'hand', construct, calls, ...extra });

export function analytics() {
  const v = [];
  // --- construction, empty and small ---------------------------------------------------
  v.push(U('empty analytics, upstream form: insufficient data, null selections', {}, [...all(), call('getRecords'), call('getConfig'), call('toJSON')]));
  v.push(C('empty analytics, config-object form: loop id and task are null', {}, [...all(), call('getRecords'), call('getConfig'), call('toJSON')]));
  v.push(U('upstream form with a storagePath and every rule key', { storagePath: 'runs/analytics', diminishingReturnsThreshold: 0.1,
    consecutiveCountThreshold: 3, qualityThreshold: 80, selectionCriteria: 'most_recent_above_threshold' }, [call('getConfig'), ...seq([50, 52, 53, 54]), ...all()]));
  v.push(U('one record: delta 0, insufficient iterations', {}, [full(1, 50), ...all()]));
  v.push(U('two records: delta is the score difference', {}, [full(1, 50), full(2, 57.5), ...all(), call('getRecords')]));
  v.push(U('a record with every field upstream keeps, in upstream\'s key order', {},
    [ri(1, 50, 'passed', { execution_time_ms: 10, reflections: ['too terse', 'missed a case'], output_snapshot_path: '/tmp/out/1', token_cost_usd: 0.5, tokens_used: 100 }),
      ri(2, 60, 'failed', { ...usage(2), reflections: [] }), call('getRecords'), call('generateSummary'), report()]));
  // JS null is a value (Python's None means absent): upstream keeps it, and aiwg's callers pass it.
  v.push(U('output_snapshot_path null is kept as null', {}, [ri(1, 50, 'passed', { ...usage(1), output_snapshot_path: null }), call('getRecords')], { only: JS }));
  v.push(U('a given quality_delta is recomputed, as upstream does', {}, [full(1, 50, 'passed', { quality_delta: 12 }), full(2, 60, 'passed', { quality_delta: -3.5 }), call('getRecords')]));
  // --- diminishing returns ---------------------------------------------------------------
  v.push(U('diminishing returns: two consecutive small improvements detected at the second', {}, [...seq([50, 51, 52]), ...all()]));
  v.push(U('diminishing returns: exactly 5% is not small', {}, [...seq([20, 21, 22.05]), call('detectDiminishingReturns')]));
  v.push(U('diminishing returns: run resets on a big jump', {}, [...seq([50, 51, 70, 71]), call('detectDiminishingReturns'), full(5, 72), call('detectDiminishingReturns')]));
  v.push(U('diminishing returns stays detected after later big jumps', {}, [...seq([50, 50, 50, 90, 20]), ...all()]));
  v.push(U('diminishing returns: previous score 0 with delta 0 counts as 0%', {}, [...seq([0, 0, 0]), call('detectDiminishingReturns'), report()]));
  v.push(U('diminishing returns: a rise from a previous score of 0 counts as no change (upstream)', {}, [...seq([0, 10, 10.1]), call('detectDiminishingReturns'), call('generateSummary')]));
  v.push(U('diminishing returns: a jump from 0 to 100 counts as no change (upstream)', { consecutiveCountThreshold: 1 }, [...seq([0, 100]), call('detectDiminishingReturns')]));
  v.push(U('diminishing returns: declines count by absolute value', {}, [...seq([80, 79, 78]), call('detectDiminishingReturns')]));
  v.push(U('diminishing returns reason prints threshold*100 as JS does (0.07)', { diminishingReturnsThreshold: 0.07 }, [...seq([50, 50, 50]), call('detectDiminishingReturns'), report()]));
  v.push(U('diminishing returns reason with threshold 0.1 and count 3', { diminishingReturnsThreshold: 0.1, consecutiveCountThreshold: 3 }, [...seq([50, 52, 54, 56]), call('detectDiminishingReturns')]));
  v.push(U('diminishing returns with count 1 fires on the first small step', { consecutiveCountThreshold: 1 }, [...seq([50, 90, 91]), call('detectDiminishingReturns')]));
  v.push(U('diminishing returns threshold 0 never detects', { diminishingReturnsThreshold: 0 }, [...seq([50, 50, 50, 50]), call('detectDiminishingReturns')]));
  v.push(U('diminishing returns large threshold 2.5 prints 250%', { diminishingReturnsThreshold: 2.5 }, [...seq([10, 30, 60]), call('detectDiminishingReturns')]));
  // --- trajectory ------------------------------------------------------------------------
  v.push(U('trajectory improving: every delta > 2', {}, [...seq([10, 20, 30, 40]), call('getTrajectory'), report()]));
  v.push(U('trajectory declining', {}, [...seq([90, 80, 70]), call('getTrajectory'), report()]));
  v.push(U('trajectory stable: |delta| <= 2, exactly 2 counts as stable', {}, [...seq([50, 52, 50]), call('getTrajectory'), report()]));
  v.push(U('trajectory fluctuating', {}, [...seq([50, 60, 50, 60, 50]), call('getTrajectory'), report()]));
  v.push(U('trajectory: 2 of 3 deltas is 0.666 < 0.67 -> fluctuating', {}, [...seq([50, 60, 70, 70]), call('getTrajectory')]));
  v.push(U('trajectory counts the first record (delta 0) in the denominator', {}, [...seq([50, 60, 70]), call('getTrajectory')]));
  // --- optimal and selection ---------------------------------------------------------------
  v.push(U('optimal: verified candidates above threshold, highest quality, earliest on ties', {},
    [full(1, 95, 'failed'), full(2, 80, 'passed'), full(3, 85, 'passed'), full(4, 85, 'passed'), call('getOptimalIteration'), call('getOptimalIteration', false), call('generateSummary')]));
  v.push(U('optimal: no candidate falls back to highest overall', {}, [full(1, 60, 'passed'), full(2, 65, 'failed'), call('getOptimalIteration'), call('getOptimalIteration', false)]));
  v.push(U('optimal: quality exactly at qualityThreshold is a candidate', { qualityThreshold: 80 }, [full(1, 80, 'passed'), full(2, 79, 'passed'), call('getOptimalIteration')]));
  for (const crit of ['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold']) {
    v.push(U(`selection ${crit}: mixed records`, { selectionCriteria: crit },
      [full(1, 72, 'passed'), full(2, 91, 'failed'), full(3, 88, 'passed'), full(4, 75, 'skipped'), full(5, 60, 'passed'), call('selectBestIteration'), call('generateSummary'), report()]));
    v.push(U(`selection ${crit}: nothing above threshold`, { selectionCriteria: crit },
      [full(1, 40, 'passed'), full(2, 65, 'failed'), full(3, 50, 'passed'), call('selectBestIteration'), call('generateSummary'), report()]));
    v.push(U(`selection ${crit}: fractional quality printed as JS prints it`, { selectionCriteria: crit },
      [full(1, 70.1, 'passed'), full(2, 99.99999999999999, 'passed'), call('selectBestIteration'), report()]));
  }
  v.push(U('selection highest_quality_verified: passed records exist but none reaches the threshold', {},
    [full(1, 69, 'passed'), full(2, 90, 'failed'), call('selectBestIteration'), call('generateSummary')]));
  // --- totals --------------------------------------------------------------------------
  v.push(U('summary totals skip records without the field (upstream: NaN)', {},
    [ri(1, 50, 'passed', { tokens_used: 100, token_cost_usd: 0.1 }), ri(2, 60, 'passed', { token_cost_usd: 0.2 }), ri(3, 70, 'passed', { execution_time_ms: 5 }), call('generateSummary')]));
  v.push(U('summary totals are 0 when no record has the field', {}, [ri(1, 50), call('generateSummary')]));
  v.push(U('summary total cost sums as floating point (0.1 + 0.2)', {}, [full(1, 50, 'passed', { token_cost_usd: 0.1 }), full(2, 50, 'passed', { token_cost_usd: 0.2 }), call('generateSummary'), report()]));
  v.push(U('report: a record without tokens_used or token_cost_usd shows N/A (upstream: undefined, or a throw)', {},
    [ri(1, 50, 'passed', { token_cost_usd: 0.25 }), ri(2, 60, 'failed', { tokens_used: 1200 }), ri(3, 65, 'skipped'), report()]));
  v.push(U('report: the token total grouped as en-US toLocaleString', {},
    [ri(1, 50, 'passed', { tokens_used: 1234567.891, token_cost_usd: 12.34565 }), ri(2, 55, 'passed', { tokens_used: 999.9995, token_cost_usd: 0.00005 }), report()]));
  v.push(U('report: a huge token total prints every digit', {}, [ri(1, 50, 'passed', { tokens_used: 1e21, token_cost_usd: 1e21 }), report()]));
  // --- chart -----------------------------------------------------------------------------
  v.push(U('chart: constant quality', {}, [...seq([70.5, 70.5, 70.5]), call('generateQualityChart')]));
  v.push(U('chart: two scores, passed and not', {}, [full(1, 50, 'passed'), full(12, 100, 'failed'), call('generateQualityChart')]));
  v.push(U('chart: fractional scores between rows, labels rounded as toFixed(0)', {},
    [...seq([61.25, 62.5, 63.75, 64.95, 60.05], ['passed', 'failed', 'skipped', 'passed', 'passed']), call('generateQualityChart')]));
  v.push(U('chart: iteration numbers past 9 show their last digit', {}, [...[7, 8, 9, 10, 11, 19, 20, 105].map((n, i) => full(n, 20 + 10 * i)), call('generateQualityChart'), report()]));
  v.push(U('chart: a tiny range', {}, [...seq([50, 50.001, 50.002]), call('generateQualityChart')]));
  // --- lifecycle -------------------------------------------------------------------------
  v.push(U('reset clears records and keeps config and times', { qualityThreshold: 50 }, [...seq([50, 51, 52]), call('reset'), ...all(), call('getConfig'), full(1, 40), call('getRecords')]));
  v.push(U('iteration numbers need not be contiguous or unique', {}, [full(10, 50), full(3, 50), full(7, 60), full(7, 55), call('detectDiminishingReturns'), call('getRecords'), report()]));
  v.push(U('the summary keeps the end time given; the report prints both times', {}, [full(1, 80), call('generateSummary'), report()]));
  v.push(U('snapshot round trip', { qualityThreshold: 60 },
    [...seq([50, 65, 66]), { ...call('toJSON'), saveAs: 'snap' }, call('fromJSON', { $saved: 'snap' }), ...all(), call('toJSON'), full(4, 90), call('getRecords')]));
  v.push(C('snapshot round trip of the config-object form, as text', {},
    [...seq([50, 65]), { ...call('toJSON'), saveAs: 'snap' }, call('fromJSON', { $saved: 'snap', as: 'string' }), call('toJSON'), call('generateSummary')]));
  v.push(U('fromSummary restores a saved summary (upstream\'s load) with the default config', { qualityThreshold: 90 },
    [...seq([50, 65, 66]), { ...call('generateSummary'), saveAs: 'summary' }, call('fromSummary', { $saved: 'summary' }, { persist: false }),
      call('getConfig'), ...all(), full(4, 91), call('getRecords')]));
  v.push(U('fromSummary reads the summary as JSON text, with a config', {},
    [...seq([50, 55]), { ...call('generateSummary'), saveAs: 'summary' }, call('fromSummary', { $saved: 'summary', as: 'string' }, { persist: false, qualityThreshold: 52 }),
      call('getConfig'), call('selectBestIteration'), call('toJSON')]));
  v.push(C('fromSummary of a config-object summary (null loop id)', {},
    [...seq([50, 55]), { ...call('generateSummary'), saveAs: 'summary' }, call('fromSummary', { $saved: 'summary' }, null), call('toJSON')]));
  for (const ms of [0, 999, 1000, 59_999, 60_000, 61_500, 3_599_999, 3_600_000, 3_723_000, 90_061_001, 1.5, -1500, -61_000, 1e21]) {
    v.push(U(`formatDuration(${ms})`, {}, [call('formatDuration', ms)]));
  }
  // --- random sequences ------------------------------------------------------------------
  const r = prng(0xa11a);
  for (let n = 0; n < 30; n++) {
    const cfg = r.chance(0.3) ? {} : { diminishingReturnsThreshold: r.pick([0.01, 0.05, 0.1, 0.07, 0.2]), consecutiveCountThreshold: r.int(1, 4),
      qualityThreshold: r.pick([50, 70, 80, 90]), selectionCriteria: r.pick(['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold']) };
    let q = r.int(0, 90);
    const calls = [];
    for (let i = 1; i <= r.int(1, 12); i++) {
      q = Math.max(0, Math.min(100, r.round(q + (r.next() - 0.4) * r.pick([2, 6, 20]), r.int(0, 2))));
      if (r.chance(0.08)) q = 0;
      const extra = {};
      if (r.chance(0.9)) extra.tokens_used = r.int(0, 50000);
      if (r.chance(0.9)) extra.token_cost_usd = r.round(r.next(), 4);
      if (r.chance(0.9)) extra.execution_time_ms = r.int(0, 100000);
      if (r.chance(0.3)) extra.output_snapshot_path = `/snapshots/${i}.md`;
      if (r.chance(0.3)) extra.reflections = Array.from({ length: r.int(0, 2) }, (_, k) => `note ${k}`);
      calls.push(ri(i, q, r.pick(['passed', 'passed', 'failed', 'skipped']), extra));
      if (r.chance(0.3)) calls.push(call('detectDiminishingReturns'));
    }
    const make = r.chance(0.2) ? C : U;
    v.push(make(`analytics random sequence ${n}`, cfg, [...calls, ...all(), call('getRecords')]));
  }
  // --- errors (hand; the bad-input matrix has a row for every field) --------------------------
  const upstream = (config) => ({ loopId: 'loop-1', taskDescription: 'task', config: { persist: false, ...TIMES, ...config } });
  const rejects = (name, construct, code, field, kind, only) =>
    ({ ...E(name, construct, []), expectThrows: { code, field, kind }, ...(only ? { only } : {}) });
  v.push(rejects('IterationAnalytics rejects a loopId that is not a string', { loopId: 42, taskDescription: 'task', config: null }, 'invalid_config', 'loopId', 'type'));
  v.push(rejects('IterationAnalytics rejects a missing taskDescription', { loopId: 'loop-1', config: null }, 'invalid_config', 'taskDescription', 'type', JS));
  v.push(rejects('IterationAnalytics rejects an empty storagePath', upstream({ storagePath: '' }), 'invalid_config', 'storagePath', 'range'));
  v.push(rejects('IterationAnalytics rejects persist: true in the config-object form', { config: { persist: true } }, 'invalid_config', 'persist', 'range'));
  v.push(rejects('IterationAnalytics rejects a startTime that is not a date-time', upstream({ startTime: 'yesterday' }), 'invalid_config', 'startTime', 'range'));
  v.push(rejects('IterationAnalytics rejects an unknown config key', upstream({ qualityThreshhold: 70 }), 'unknown_option', 'qualityThreshhold', 'type'));
  v.push(rejects('IterationAnalytics rejects a config that is not an object', { config: 7 }, 'invalid_config', 'config', 'type'));
  const good = { iteration_number: 2, quality_score: 51, verification_status: 'passed', timestamp: ts(2) };
  for (const [bad, code, field, kind] of [
    [{ reflections: 'one note' }, 'invalid_result', 'reflections', 'type'],
    [{ reflections: ['ok', 7] }, 'invalid_result', 'reflections[1]', 'type'],
    [{ output_snapshot_path: 5 }, 'invalid_result', 'output_snapshot_path', 'type'],
    [{ quality_delta: N('NaN') }, 'invalid_result', 'quality_delta', 'range'],
    [{ timestamp: '2026-13-01T00:00:00Z' }, 'invalid_result', 'timestamp', 'range'],
    [{ confidence: 0.5 }, 'unknown_option', 'confidence', 'type'],
  ]) {
    v.push(E(`recordIteration rejects ${JSON.stringify(bad)}`, upstream({}),
      [full(1, 50), { ...call('recordIteration', { ...good, ...bad }), expect: T(code, field, kind) }, call('getRecords'), full(2, 51), call('detectDiminishingReturns')]));
  }
  v.push(E('generateReport rejects an unknown option', upstream({}),
    [full(1, 50), { ...call('generateReport', { generatedAt: GENERATED, at: 1 }), expect: T('unknown_option', 'at', 'type') }, report()]));
  v.push(E('formatDuration rejects NaN and a string', upstream({}),
    [{ ...call('formatDuration', N('NaN')), expect: T('invalid_config', 'ms', 'range') }, { ...call('formatDuration', '5'), expect: T('invalid_config', 'ms', 'type') }, call('formatDuration', 5000)]));
  // upstream's records are data its users change (a score written afterwards leaves the deltas
  // as they were), so a saved summary may hold any finite quality_delta: kept, and read by
  // detection and the trajectory, as upstream's load reads them.
  v.push(U('fromSummary keeps a record\'s quality_delta as saved', {},
    [full(1, 50), full(2, 60), full(3, 61), { ...call('generateSummary'), saveAs: 's' },
      { call: 'fromSummary', args: [{ $saved: 's', patch: [{ path: 'iterations[1].quality_delta', value: 9 }, { path: 'iterations[2].quality_delta', value: 30 }] }, { persist: false }] },
      call('getRecords'), call('detectDiminishingReturns'), call('getTrajectory'), full(4, 61.5), call('generateSummary')]));
  return v;
}
