// analytics.json: IterationAnalytics per docs/api-conventions.md (hand).
import { prng, call } from './gen_util.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const A = (name, config, calls, extra = {}) => ({ name, engine: 'IterationAnalytics', source: 'hand', construct: { config }, calls, ...extra });
const ri = (n, q, v = 'passed', extra = {}) => call('recordIteration', { iteration_number: n, quality_score: q, verification_status: v, ...extra });
const all = () => [call('detectDiminishingReturns'), call('getTrajectory'), call('getOptimalIteration'), call('getOptimalIteration', false),
  call('selectBestIteration'), call('generateSummary')];
const T = (code, field, kind) => ({ throws: { code, field, kind } });
const seq = (qs, v = 'passed') => qs.map((q, i) => ri(i + 1, q, Array.isArray(v) ? v[i] : v));

export function analytics() {
  const v = [];
  v.push(A('empty analytics: insufficient data, null selections', null, [...all(), call('getRecords'), call('getConfig')]));
  v.push(A('one record: delta 0, insufficient iterations', null, [ri(1, 50), ...all()]));
  v.push(A('two records: delta is the score difference', null, [ri(1, 50), ri(2, 57.5), ...all(), call('getRecords')]));
  v.push(A('record returns optional fields in the documented order', null,
    [ri(1, 50, 'passed', { execution_time_ms: 10, tokens_used: 100, token_cost_usd: 0.5 }), ri(2, 60, 'failed', { tokens_used: 5 }), call('generateSummary')]));
  v.push(A('diminishing returns: two consecutive small improvements detected at the second', null, [...seq([50, 51, 52]), ...all()]));
  v.push(A('diminishing returns: exactly 5% is not small', null, [...seq([100, 105, 110.25]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns: run resets on a big jump', null, [...seq([50, 51, 70, 71]), call('detectDiminishingReturns'), ri(5, 72), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns stays detected after later big jumps', null, [...seq([50, 50, 50, 90, 20]), ...all()]));
  v.push(A('diminishing returns: previous score 0 with delta 0 counts as 0%', null, [...seq([0, 0, 0]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns: previous score 0 with a rise is infinite improvement', null, [...seq([0, 10, 10.1]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns: declines count by absolute value', null, [...seq([80, 79, 78]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns reason prints threshold*100 as JS does (0.07)', { diminishingReturnsThreshold: 0.07 }, [...seq([50, 50, 50]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns reason with threshold 0.1 and count 3', { diminishingReturnsThreshold: 0.1, consecutiveCountThreshold: 3 }, [...seq([50, 52, 54, 56]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns with count 1 fires on the first small step', { consecutiveCountThreshold: 1 }, [...seq([50, 90, 91]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns threshold 0 never detects', { diminishingReturnsThreshold: 0 }, [...seq([50, 50, 50, 50]), call('detectDiminishingReturns')]));
  v.push(A('diminishing returns large threshold 2.5 prints 250%', { diminishingReturnsThreshold: 2.5 }, [...seq([10, 30, 60]), call('detectDiminishingReturns')]));
  v.push(A('trajectory improving: every delta > 2', null, [...seq([10, 20, 30, 40]), call('getTrajectory')]));
  v.push(A('trajectory declining', null, [...seq([90, 80, 70]), call('getTrajectory')]));
  v.push(A('trajectory stable: |delta| <= 2, exactly 2 counts as stable', null, [...seq([50, 52, 50]), call('getTrajectory')]));
  v.push(A('trajectory fluctuating', null, [...seq([50, 60, 50, 60, 50]), call('getTrajectory')]));
  v.push(A('trajectory: 2 of 3 deltas is 0.666 < 0.67 -> fluctuating', null, [...seq([50, 60, 70, 70]), call('getTrajectory')]));
  v.push(A('trajectory counts the first record (delta 0) in the denominator', null, [...seq([50, 60, 70]), call('getTrajectory')]));
  v.push(A('optimal: verified candidates above threshold, highest quality', null,
    [ri(1, 95, 'failed'), ri(2, 80, 'passed'), ri(3, 85, 'passed'), ri(4, 85, 'passed'), call('getOptimalIteration'), call('getOptimalIteration', false)]));
  v.push(A('optimal: no candidate falls back to highest overall', null, [ri(1, 60, 'passed'), ri(2, 65, 'failed'), call('getOptimalIteration'), call('getOptimalIteration', false)]));
  v.push(A('optimal: quality exactly at qualityThreshold is a candidate', { qualityThreshold: 80 }, [ri(1, 80, 'passed'), ri(2, 79, 'passed'), call('getOptimalIteration')]));
  for (const crit of ['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold']) {
    v.push(A(`selection ${crit}: mixed records`, { selectionCriteria: crit },
      [ri(1, 72, 'passed'), ri(2, 91, 'failed'), ri(3, 88, 'passed'), ri(4, 75, 'skipped'), ri(5, 60, 'passed'), call('selectBestIteration'), call('generateSummary')]));
    v.push(A(`selection ${crit}: nothing above threshold`, { selectionCriteria: crit },
      [ri(1, 40, 'passed'), ri(2, 65, 'failed'), ri(3, 50, 'passed'), call('selectBestIteration'), call('generateSummary')]));
    v.push(A(`selection ${crit}: fractional quality printed as JS prints it`, { selectionCriteria: crit },
      [ri(1, 70.1, 'passed'), ri(2, 99.99999999999999, 'passed'), call('selectBestIteration')]));
  }
  v.push(A('summary totals skip records without the field', null,
    [ri(1, 50, 'passed', { tokens_used: 100, token_cost_usd: 0.1 }), ri(2, 60, 'passed', { token_cost_usd: 0.2 }), ri(3, 70, 'passed', { execution_time_ms: 5 }), call('generateSummary')]));
  v.push(A('summary totals are 0 when no record has the field', null, [ri(1, 50), call('generateSummary')]));
  v.push(A('summary total cost sums as floating point (0.1 + 0.2)', null, [ri(1, 50, 'passed', { token_cost_usd: 0.1 }), ri(2, 50, 'passed', { token_cost_usd: 0.2 }), call('generateSummary')]));
  v.push(A('reset clears records and keeps config', { qualityThreshold: 50 }, [...seq([50, 51, 52]), call('reset'), ...all(), call('getConfig'), ri(1, 40), call('getRecords')]));
  v.push(A('getConfig merges over defaults', { consecutiveCountThreshold: 4 }, [call('getConfig')]));
  v.push(A('iteration numbers need not be contiguous', null, [ri(10, 50), ri(3, 50), ri(7, 50), call('detectDiminishingReturns'), call('getRecords')]));
  // random sequences
  const r = prng(0xa11a);
  for (let n = 0; n < 25; n++) {
    const cfg = r.chance(0.3) ? null : { diminishingReturnsThreshold: r.pick([0.01, 0.05, 0.1, 0.07, 0.2]), consecutiveCountThreshold: r.int(1, 4),
      qualityThreshold: r.pick([50, 70, 80, 90]), selectionCriteria: r.pick(['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold']) };
    let q = r.int(0, 90);
    const calls = [];
    for (let i = 1; i <= r.int(1, 9); i++) {
      q = Math.max(0, Math.min(100, r.round(q + (r.next() - 0.4) * r.pick([2, 6, 20]), r.int(0, 2))));
      const extra = {};
      if (r.chance(0.3)) extra.tokens_used = r.int(0, 5000);
      if (r.chance(0.3)) extra.token_cost_usd = r.round(r.next(), 4);
      if (r.chance(0.3)) extra.execution_time_ms = r.int(0, 10000);
      calls.push(ri(i, q, r.pick(['passed', 'passed', 'failed', 'skipped']), extra));
      if (r.chance(0.3)) calls.push(call('detectDiminishingReturns'));
    }
    v.push(A(`analytics random sequence ${n}`, cfg, [...calls, ...all(), call('getRecords')]));
  }
  // bad input
  const CFG = [['diminishingReturnsThreshold', -0.1, 'range'], ['diminishingReturnsThreshold', N('NaN'), 'range'], ['diminishingReturnsThreshold', '0.05', 'type'],
    ['consecutiveCountThreshold', 0, 'range'], ['consecutiveCountThreshold', 1.5, 'range'], ['consecutiveCountThreshold', null, 'type', JS],
    ['qualityThreshold', 101, 'range'], ['qualityThreshold', -1, 'range'], ['selectionCriteria', 'best', 'range'], ['selectionCriteria', 1, 'type']];
  for (const [k, val, kind, only] of CFG) {
    v.push({ ...A(`IterationAnalytics rejects ${k} = ${JSON.stringify(val)}`, { [k]: val }, []), expectThrows: { code: 'invalid_config', field: k, kind }, ...(only ? { only } : {}) });
  }
  v.push({ ...A('IterationAnalytics rejects an unknown config key', { qualityThreshhold: 70 }, []), expectThrows: { code: 'unknown_option', field: 'qualityThreshhold', kind: 'type' } });
  v.push({ ...A('IterationAnalytics rejects a config that is not an object', 7, []), expectThrows: { code: 'invalid_config', field: 'config', kind: 'type' } });
  const REC = [
    [{ quality_score: 50, verification_status: 'passed' }, 'invalid_iteration', 'iteration_number', 'type'],
    [{ iteration_number: 0, quality_score: 50, verification_status: 'passed' }, 'invalid_iteration', 'iteration_number', 'range'],
    [{ iteration_number: '1', quality_score: 50, verification_status: 'passed' }, 'invalid_iteration', 'iteration_number', 'type'],
    [{ iteration_number: 2.5, quality_score: 50, verification_status: 'passed' }, 'invalid_iteration', 'iteration_number', 'range'],
    [{ iteration_number: 2, verification_status: 'passed' }, 'invalid_result', 'quality_score', 'type'],
    [{ iteration_number: 2, quality_score: N('NaN'), verification_status: 'passed' }, 'invalid_result', 'quality_score', 'range'],
    [{ iteration_number: 2, quality_score: 101, verification_status: 'passed' }, 'invalid_result', 'quality_score', 'range'],
    [{ iteration_number: 2, quality_score: 50, verification_status: 'ok' }, 'invalid_result', 'verification_status', 'range'],
    [{ iteration_number: 2, quality_score: 50 }, 'invalid_result', 'verification_status', 'type'],
    [{ iteration_number: 2, quality_score: 50, verification_status: 'passed', tokens_used: -1 }, 'invalid_result', 'tokens_used', 'range'],
    [{ iteration_number: 2, quality_score: 50, verification_status: 'passed', token_cost_usd: '1' }, 'invalid_result', 'token_cost_usd', 'type'],
    [{ iteration_number: 2, quality_score: 50, verification_status: 'passed', execution_time_ms: N('Infinity') }, 'invalid_result', 'execution_time_ms', 'range'],
    [{ iteration_number: 2, quality_score: 50, verification_status: 'passed', confidence: 0.5 }, 'unknown_option', 'confidence', 'type'],
    [{ iteration_number: 2, quality_score: 50, verification_status: 'passed', quality_delta: 3 }, 'unknown_option', 'quality_delta', 'type'],
  ];
  for (const [r0, code, field, kind] of REC) {
    v.push(A(`recordIteration rejects ${JSON.stringify(r0)}`, null,
      [ri(1, 50), { ...call('recordIteration', r0), expect: T(code, field, kind) }, call('getRecords'), ri(2, 51), call('detectDiminishingReturns')]));
  }
  v.push(A('recordIteration rejects a record that is null', null, [{ ...call('recordIteration', null), expect: T('invalid_result', 'record', 'type') }, call('getRecords')]));
  v.push(A('recordIteration rejects tokens_used null (JS null is a value)', null,
    [{ ...call('recordIteration', { iteration_number: 1, quality_score: 50, verification_status: 'passed', tokens_used: null }), expect: T('invalid_result', 'tokens_used', 'type') }, call('getRecords')], { only: JS }));
  return v;
}
