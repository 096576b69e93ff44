// loop_errors.json (every bad-input row for EarlyStopping) and loop_best.json
// (best-iteration extras and optional record fields). All `hand`.
import { rec, res, stop, call, ts } from './gen_util.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const H = (name, construct, calls, extra = {}) => ({ name, engine: 'EarlyStopping', source: 'hand', construct, calls, ...extra });
const T = (code, field, kind) => ({ throws: { code, field, kind } });
const proof = (i = 1) => [rec(i, 80, 0.5, 'failed', 0), stop(i), call('getConfig'), call('getIterationHistory')];

// [key, bad value, kind, only?]
const CONFIG_BAD = [
  ['highConfidenceThreshold', N('NaN'), 'range'], ['highConfidenceThreshold', N('Infinity'), 'range'],
  ['highConfidenceThreshold', 1.01, 'range'], ['highConfidenceThreshold', -0.01, 'range'],
  ['highConfidenceThreshold', '0.9', 'type'], ['highConfidenceThreshold', null, 'type', JS], ['highConfidenceThreshold', true, 'type'],
  ['plateauConsecutiveCount', 1, 'range'], ['plateauConsecutiveCount', 0, 'range'], ['plateauConsecutiveCount', 2.5, 'range'],
  ['plateauConsecutiveCount', -3, 'range'], ['plateauConsecutiveCount', N('Infinity'), 'range'], ['plateauConsecutiveCount', '3', 'type'],
  ['plateauConsecutiveCount', null, 'type', JS],
  ['plateauImprovementThreshold', -0.001, 'range'], ['plateauImprovementThreshold', 1.5, 'range'], ['plateauImprovementThreshold', N('NaN'), 'range'],
  ['plateauImprovementThreshold', '2%', 'type'],
  ['minQualityThreshold', 100.5, 'range'], ['minQualityThreshold', -1, 'range'], ['minQualityThreshold', N('-Infinity'), 'range'],
  ['minQualityThreshold', '70', 'type'], ['minQualityThreshold', null, 'type', JS],
  ['requireVerification', 1, 'type'], ['requireVerification', 'true', 'type'], ['requireVerification', null, 'type', JS],
  ['enablePlateauDetection', 0, 'type'], ['enablePlateauDetection', 'false', 'type'],
  ['enableDiminishingReturns', 'yes', 'type'], ['enableDiminishingReturns', null, 'type', JS],
];

function configErrors() {
  const v = [];
  for (const [k, val, kind, only] of CONFIG_BAD) {
    const shown = JSON.stringify(val);
    v.push({ ...H(`constructor rejects ${k} = ${shown}`, { config: { [k]: val }, analytics: null }, []), expectThrows: { code: 'invalid_config', field: k, kind }, ...(only ? { only } : {}) });
    v.push({ ...H(`configure rejects ${k} = ${shown} and changes nothing`, { config: { plateauConsecutiveCount: 4 }, analytics: null },
      [rec(1, 80, 0.5, 'failed', 0), { ...call('configure', { [k]: val }), expect: T('invalid_config', k, kind) }, ...proof(2)]), ...(only ? { only } : {}) });
  }
  for (const bad of [5, 'strict', [], true]) {
    v.push({ ...H(`constructor rejects a config that is ${JSON.stringify(bad)}`, { config: bad, analytics: null }, []), expectThrows: { code: 'invalid_config', field: 'config', kind: 'type' } });
    v.push(H(`configure rejects options that are ${JSON.stringify(bad)}`, { config: null, analytics: null }, [{ ...call('configure', bad), expect: T('invalid_config', 'options', 'type') }, ...proof()]));
  }
  v.push(H('constructor with a null config uses the defaults', { config: null, analytics: null }, [call('getConfig')]));
  v.push(H('configure(null) is an empty configure', { config: { minQualityThreshold: 60 }, analytics: null }, [call('configure', null), call('getConfig')], { only: JS }));
  v.push({ ...H('constructor rejects an unknown key with unknown_option', { config: { plateauConsecutiveCnt: 3 }, analytics: null }, []), expectThrows: { code: 'unknown_option', field: 'plateauConsecutiveCnt', kind: 'type' } });
  v.push(H('configure rejects an unknown key with unknown_option', { config: null, analytics: null }, [{ ...call('configure', { highConfidence: 0.9 }), expect: T('unknown_option', 'highConfidence', 'type') }, ...proof()]));
  v.push({ ...H('unknown keys are reported before bad known values', { config: { highConfidenceThreshold: N('NaN'), foo: 1 }, analytics: null }, []), expectThrows: { code: 'unknown_option', field: 'foo', kind: 'type' } });
  v.push({ ...H('the first unknown key in object order is reported', { config: { zeta: 1, alpha: 2 }, analytics: null }, []), expectThrows: { code: 'unknown_option', field: 'zeta', kind: 'type' } });
  v.push({ ...H('known fields are checked in the table order, not object order', { config: { minQualityThreshold: -1, highConfidenceThreshold: 2 }, analytics: null }, []), expectThrows: { code: 'invalid_config', field: 'highConfidenceThreshold', kind: 'range' } });
  v.push(H('configure with one good and one bad key changes nothing at all', { config: null, analytics: null },
    [{ ...call('configure', { minQualityThreshold: 10, plateauConsecutiveCount: 1 }), expect: T('invalid_config', 'plateauConsecutiveCount', 'range') }, call('getConfig'), rec(1, 50, 0.99), stop(1)]));
  for (const bad of [5, 'analytics', [], { detect: true }]) {
    v.push({ ...H(`constructor rejects an analytics source ${JSON.stringify(bad)} without detectDiminishingReturns`, { config: null, analytics: bad }, []), expectThrows: { code: 'invalid_config', field: 'iterationAnalytics', kind: 'type' } });
  }
  return v;
}

// [field, value, kind, only?]; undefined value = key removed
const RESULT_BAD = [
  ['quality_score', undefined, 'type'], ['quality_score', null, 'type'], ['quality_score', '75', 'type'], ['quality_score', true, 'type'],
  ['quality_score', N('NaN'), 'range'], ['quality_score', N('Infinity'), 'range'], ['quality_score', N('-Infinity'), 'range'],
  ['quality_score', -0.001, 'range'], ['quality_score', 100.0001, 'range'],
  ['confidence', undefined, 'type'], ['confidence', '0.9', 'type'], ['confidence', N('NaN'), 'range'], ['confidence', 1.01, 'range'], ['confidence', -0.1, 'range'],
  ['verification_status', undefined, 'type'], ['verification_status', 1, 'type'], ['verification_status', null, 'type'],
  ['verification_status', 'PASSED', 'range'], ['verification_status', 'pass', 'range'], ['verification_status', '', 'range'],
  ['quality_delta', undefined, 'type'], ['quality_delta', '0', 'type'], ['quality_delta', N('NaN'), 'range'], ['quality_delta', N('-Infinity'), 'range'],
  ['timestamp', null, 'type', JS], ['timestamp', 12345, 'type'], ['timestamp', '', 'range'], ['timestamp', 'yesterday', 'range'],
  ['timestamp', '2026-13-01T00:00:00Z', 'range'], ['timestamp', '2026-02-30T00:00:00Z', 'range'], ['timestamp', '2026-01-01 00:00:00Z', 'range'],
  ['timestamp', '2026-01-01T24:00:00Z', 'range'], ['timestamp', '2026-01-01T00:00:61Z', 'range'], ['timestamp', '2026-01-01T00:00:00', 'range'],
  ['timestamp', '2026-01-01T00:00:00+25:00', 'range'], ['timestamp', '2026-01-01T00:60:00Z', 'range'], ['timestamp', '2025-02-29T00:00:00Z', 'range'],
  ['tokens_used', -1, 'range'], ['tokens_used', '5', 'type'], ['tokens_used', null, 'type', JS], ['tokens_used', N('NaN'), 'range'],
  ['token_cost_usd', -0.01, 'range'], ['token_cost_usd', N('Infinity'), 'range'], ['token_cost_usd', null, 'type', JS],
  ['execution_time_ms', -5, 'range'], ['execution_time_ms', 'fast', 'type'],
  ['iteration_number', 3, 'range'], ['iteration_number', 1, 'range'], ['iteration_number', '1', 'type'], ['iteration_number', null, 'type', JS], ['iteration_number', 1.5, 'range'],
];

function recordErrors() {
  const v = [];
  const base = { config: null, analytics: null };
  for (const [f, val, kind, only] of RESULT_BAD) {
    const r = res(80, 0.5, 'failed', 0, { timestamp: ts(2) });
    if (val === undefined) delete r[f]; else r[f] = val;
    const what = val === undefined ? 'missing' : JSON.stringify(val);
    v.push(H(`recordIterationResult rejects ${f} ${what}`, base,
      [rec(1, 60, 0.5, 'failed', 0), { call: 'recordIterationResult', args: [2, r], expect: T('invalid_result', f, kind) }, ...proof(2)], only ? { only } : {}));
  }
  for (const [it, kind, only] of [[0, 'range'], [-1, 'range'], [1.5, 'range'], [N('NaN'), 'range'], [N('Infinity'), 'range'], ['1', 'type'], [true, 'type'],
    [null, 'type'], [9007199254740992, 'range'], [{ n: 1 }, 'type']]) {
    v.push(H(`recordIterationResult rejects iteration ${JSON.stringify(it)}`, base,
      [{ call: 'recordIterationResult', args: [it, res(80, 0.5, 'failed', 0)], expect: T('invalid_iteration', 'iteration', kind) }, ...proof()], only ? { only } : {}));
  }
  v.push(H('recordIterationResult accepts iteration 2^53-1', base, [rec(9007199254740991, 60, 0.5, 'failed', 0), call('getIterationHistory')]));
  for (const bad of [null, 5, 'result', [], true]) {
    v.push(H(`recordIterationResult rejects a result that is ${JSON.stringify(bad)}`, base,
      [{ call: 'recordIterationResult', args: [1, bad], expect: T('invalid_result', 'result', 'type') }, ...proof()]));
  }
  v.push(H('recordIterationResult rejects a missing result', base, [{ call: 'recordIterationResult', args: [1], expect: T('invalid_result', 'result', 'type') }, ...proof()]));
  v.push(H('recordIterationResult rejects an unknown result key', base,
    [{ call: 'recordIterationResult', args: [1, { ...res(80, 0.5), quality_scor: 80 }], expect: T('unknown_option', 'quality_scor', 'type') }, ...proof()]));
  v.push(H('unknown result keys come before bad known fields', base,
    [{ call: 'recordIterationResult', args: [1, { ...res(N('NaN'), 0.5), extra: 1 }], expect: T('unknown_option', 'extra', 'type') }, ...proof()]));
  v.push(H('result fields are checked in table order', base,
    [{ call: 'recordIterationResult', args: [1, { confidence: 7, quality_score: 700, verification_status: 'x', quality_delta: 0, timestamp: ts(1) }], expect: T('invalid_result', 'quality_score', 'range') }, ...proof()]));
  v.push(H('the iteration is checked before the result', base,
    [{ call: 'recordIterationResult', args: [0, null], expect: T('invalid_iteration', 'iteration', 'range') }, ...proof()]));
  v.push(H('iteration_number equal to the iteration is accepted', base,
    [{ call: 'recordIterationResult', args: [3, { ...res(80, 0.5), iteration_number: 3 }] }, call('getIterationHistory')]));
  v.push(H('a rejected record leaves a stopping decision intact', base,
    [rec(1, 90, 0.99), stop(1), { call: 'recordIterationResult', args: [2, res(N('NaN'), 0.5)], expect: T('invalid_result', 'quality_score', 'range') },
      call('getStoppingReason'), call('getIterationHistory'), stop(1)]));
  return v;
}

function analyticsErrors() {
  const v = [];
  const bad = [
    [5, 'detectDiminishingReturns()', 'type'], [null, 'detectDiminishingReturns()', 'type'],
    [{ detected: 'yes', iteration: 1, reason: 'r' }, 'detected', 'type'], [{ iteration: 1, reason: 'r' }, 'detected', 'type'],
    [{ detected: true, iteration: 0, reason: 'r' }, 'iteration', 'range'], [{ detected: true, iteration: 1.5, reason: 'r' }, 'iteration', 'range'],
    [{ detected: true, iteration: '2', reason: 'r' }, 'iteration', 'type'], [{ detected: true, iteration: 2 }, 'reason', 'type'],
    [{ detected: false, iteration: null, reason: 5 }, 'reason', 'type'],
  ];
  for (const [answer, field, kind] of bad) {
    const c = { config: null, analytics: { script: [answer, { detected: true, iteration: 1, reason: 'ok' }] } };
    v.push(H(`shouldStop rejects an analytics answer ${JSON.stringify(answer)}`, c,
      [rec(1, 60, 0.5, 'failed', 0), { ...stop(1), expect: T('invalid_analytics', field, kind) }, call('getStoppingReason'), stop(1)]));
  }
  v.push(H('generateSummary rejects a bad analytics answer', { config: null, analytics: { script: [{ detected: 1, reason: 'r' }, { detected: false, iteration: null, reason: 'ok' }] } },
    [rec(1, 60, 0.5, 'failed', 0), { ...call('generateSummary'), expect: T('invalid_analytics', 'detected', 'type') }, call('generateSummary')]));
  return v;
}

export function loopErrors() {
  return [...configErrors(), ...recordErrors(), ...analyticsErrors()];
}

export function loopBest() {
  const v = [];
  const B = (name, config, calls, extra) => H(name, { config, analytics: null }, calls, extra);
  v.push(B('best iteration is null on an empty history', null, [stop(1)]));
  v.push(B('best iteration: highest passed record reaching minQualityThreshold', null,
    [rec(1, 95, 0.5, 'failed', 0), rec(2, 80, 0.5, 'passed', -15), rec(3, 85, 0.5, 'passed', 5), rec(4, 60, 0.5, 'passed', -25), stop(4)]));
  v.push(B('best iteration: no passed record reaching the threshold falls back to highest overall', null,
    [rec(1, 65, 0.5, 'passed', 0), rec(2, 90, 0.5, 'failed', 25), rec(3, 90, 0.5, 'skipped', 0), stop(3)]));
  v.push(B('best iteration: earliest on ties', null, [rec(1, 80, 0.5, 'passed', 0), rec(2, 80, 0.5, 'passed', 0), stop(2)]));
  v.push(B('best iteration follows configure(minQualityThreshold)', null,
    [rec(1, 75, 0.5, 'passed', 0), rec(2, 90, 0.5, 'failed', 15), stop(2), call('configure', { minQualityThreshold: 80 }), stop(2)]));
  v.push(B('best iteration on a plateau stop is the best, not the last', null,
    [rec(1, 80, 0.5, 'passed', 0), rec(2, 79.5, 0.5, 'passed', -0.5), rec(3, 79, 0.5, 'passed', -0.5), stop(3)]));
  v.push(B('best iteration resets with reset()', null, [rec(1, 80, 0.5, 'passed', 0), stop(1), call('reset'), stop(1)]));
  v.push(B('best iteration with minQualityThreshold 0 counts every passed record', { minQualityThreshold: 0 },
    [rec(1, 10, 0.5, 'passed', 0), rec(2, 50, 0.5, 'failed', 40), stop(2)]));
  v.push(B('optional record fields are kept in the history', null,
    [rec(1, 60, 0.5, 'failed', 0, { tokens_used: 1200, token_cost_usd: 0.03, execution_time_ms: 950.5 }), rec(2, 62, 0.5, 'failed', 2, { tokens_used: 0 }), call('getIterationHistory')]));
  v.push(B('optional record fields do not change decisions', null,
    [rec(1, 90, 0.99, 'passed', 0, { tokens_used: 10 }), stop(1), call('generateSummary')]));
  return v;
}
