// bad_input.json: the bad-input matrix, one table of every invalid input of both engines.
//   node tests/vectors/gen_bad_input.mjs <reference-dir>
//
// Each row is one invalid value of one field of one input type, with the expectation derived
// from the rules of the design pages (docs/api-conventions.md "Errors"), not from any
// implementation: a non-number/non-string/non-boolean/null/missing required key is `type`;
// NaN, ±Infinity, out of range, non-integer counts, unknown enum strings, bad timestamps and
// inconsistent values are `range`; an unknown key is `unknown_option`/`type`.
// A row's `vector` is a runnable scenario in the vectors.md format: build an engine with some
// state, make the bad call, then prove nothing changed (the suites compare the engine's
// snapshot before and after; the probe calls after it must return what they would have
// returned had the bad call never happened). Rows that an existing error vector already
// exercises with the very same call carry `sameAs: "<file>#<vector name>"` instead of a
// scenario of their own, and the suites run that vector.
// Rows whose scenario the independent model in driver.mjs can run (everything except the
// loop's opt-in options, which the model does not implement) go through `finalize`, so the
// model must agree with the rule-derived expectation or generation fails.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReference } from './driver.mjs';
import { encode, decode } from './common.mjs';
import { finalize, rec, res, stop, call, ts } from './gen_util.mjs';
import { adrReceipt, chained, receipt, sha } from './receipt_doc.mjs';

const N = (s) => ({ $num: s });
const JS = ['js', 'rust'];
const MISSING = Symbol('missing');
const MAX_SAFE = 9007199254740991;
const clone = (v) => structuredClone(v);

// ---------------------------------------------------------------------------------------------
// Bad values per field kind: [case, value, kind, only?]. `null` is a value in JS and Rust; in
// Python `None` means "absent", so null rows of optional fields are JS/Rust only.

function numberCases({ min = -Infinity, max = Infinity, integer = false, required = false, valid = 1 } = {}) {
  const out = [
    ['NaN', N('NaN'), 'range'], ['Infinity', N('Infinity'), 'range'], ['-Infinity', N('-Infinity'), 'range'],
    ['number as a string', String(valid), 'type'], ['boolean', true, 'type'], ['object', {}, 'type'], ['array', [valid], 'type'],
    ['null', null, 'type', required ? undefined : JS],
  ];
  if (Number.isFinite(min)) out.push(['below the minimum', integer ? min - 1 : min - 0.001, 'range']);
  if (Number.isFinite(max)) out.push(['above the maximum', integer ? max + 1 : max + 0.001, 'range']);
  if (integer) {
    out.push(['non-integer', valid + 0.5, 'range'], ['unsafe integer (2^53)', MAX_SAFE + 1, 'range']);
  }
  if (required) out.push(['missing', MISSING, 'type']);
  return out;
}
function booleanCases({ required = false } = {}) {
  const out = [['number 1', 1, 'type'], ['number 0', 0, 'type'], ['string', 'true', 'type'], ['null', null, 'type', required ? undefined : JS]];
  if (required) out.push(['missing', MISSING, 'type']);
  return out;
}
function enumCases(values, { required = false } = {}) {
  const out = [
    ['unknown value', 'bogus', 'range'], ['wrong case', values[0].toUpperCase(), 'range'], ['empty string', '', 'range'],
    ['padded', ` ${values[0]}`, 'range'], ['number', 1, 'type'], ['boolean', true, 'type'], ['null', null, 'type', required ? undefined : JS],
  ];
  if (required) out.push(['missing', MISSING, 'type']);
  return out;
}
function stringCases({ required = false } = {}) {
  const out = [['number', 5, 'type'], ['boolean', false, 'type'], ['array', ['a'], 'type'], ['object', {}, 'type'], ['null', null, 'type', required ? undefined : JS]];
  if (required) out.push(['missing', MISSING, 'type']);
  return out;
}
function timestampCases({ required = false } = {}) {
  const out = [
    ['number', 1767225600000, 'type'], ['null', null, 'type', required ? undefined : JS], ['empty string', '', 'range'],
    ['not a date', 'yesterday', 'range'], ['month 13', '2026-13-01T00:00:00Z', 'range'], ['February 30', '2026-02-30T00:00:00Z', 'range'],
    ['space instead of T', '2026-01-01 00:00:00Z', 'range'], ['no zone', '2026-01-01T00:00:00', 'range'], ['hour 24', '2026-01-01T24:00:00Z', 'range'],
    ['offset +25:00', '2026-01-01T00:00:00+25:00', 'range'], ['trailing text', '2026-01-01T00:00:00Zx', 'range'], ['date only', '2026-01-01', 'range'],
    ['one-digit month', '2026-1-01T00:00:00Z', 'range'], ['empty fraction', '2026-01-01T00:00:00.Z', 'range'],
  ];
  if (required) out.push(['missing', MISSING, 'type']);
  return out;
}
// A positional argument left out: JS calls the function anyway; in Python the call itself
// fails before reaching the package (Python's own TypeError), so the row is JS and Rust only.
const MISSING_ARGUMENT = ['missing', MISSING, 'type', JS];
const notAnObject = (nullOnly = JS) => [
  ['number', 5, 'type'], ['string', 'x', 'type'], ['array', [], 'type'], ['boolean', true, 'type'], ['null', null, 'type', nullOnly],
];

const notAnArray = [['number', 5, 'type'], ['string', 'x', 'type'], ['object', {}, 'type'], ['boolean', true, 'type'], ['null', null, 'type']];

// Sets (or deletes) a key of a copy of `base`.
function patched(base, key, value) {
  const out = clone(base);
  if (value === MISSING) delete out[key]; else out[key] = value;
  return out;
}
const shown = (v) => (v === MISSING ? 'missing' : JSON.stringify(v));
// Python spells fields in snake_case; snapshot paths stay in the document's (JS) spelling.
const pyField = (field) => (field === 'iterationAnalytics' ? 'analytics'
  : field.split('.').map((p) => p.replace(/(?<=[a-z0-9])(?=[A-Z])/g, '_').toLowerCase()).join('.'));

// ---------------------------------------------------------------------------------------------
// Input types: each returns rows {input, via, field, case, value, code, kind, only?, spec, model}
// where `spec` is the scenario before finalize.

const rows = [];
function row(input, via, field, kase, value, code, kind, only, spec, model = true, errorField = field) {
  const r = { input, via, field: errorField, case: kase, code, kind };
  if (value !== MISSING) r.value = value;
  if (only) r.only = only;
  r.spec = { ...spec, name: `${input} via ${via}: ${field} ${kase} (${shown(value)})`, source: 'hand', ...(only ? { only } : {}) };
  r.model = model;
  rows.push(r);
}
const T = (code, field, kind) => ({ throws: { code, field, kind } });

// EarlyStopping config: [key, cases, opt-in?]
const LOOP_CONFIG = [
  ['highConfidenceThreshold', numberCases({ min: 0, max: 1, valid: 0.9 }), false],
  ['plateauConsecutiveCount', numberCases({ min: 2, integer: true, valid: 3 }), false],
  ['plateauImprovementThreshold', numberCases({ min: 0, max: 1, valid: 0.02 }), false],
  ['minQualityThreshold', numberCases({ min: 0, max: 100, valid: 70 }), false],
  ['requireVerification', booleanCases(), false],
  ['enablePlateauDetection', booleanCases(), false],
  ['enableDiminishingReturns', booleanCases(), false],
  ['plateauDeltaSource', enumCases(['reported', 'computed']), true],
  ['plateauMode', enumCases(['relative', 'absolute']), true],
  ['minIterations', numberCases({ min: 1, integer: true, valid: 2 }), true],
  ['maxIterations', numberCases({ min: 1, integer: true, valid: 10 }), true],
  ['maxTotalTokens', numberCases({ min: 0, valid: 1000 }), true],
  ['maxTotalCostUsd', numberCases({ min: 0, valid: 1.5 }), true],
  ['maxWallClockMs', numberCases({ min: 0, valid: 60000 }), true],
  ['regressionTolerance', numberCases({ min: 0, max: 100, valid: 5 }), true],
  ['regressionPatience', numberCases({ min: 1, integer: true, valid: 2 }), true],
  ['strictIterations', booleanCases(), true],
  ['floorPatience', numberCases({ min: 1, integer: true, valid: 4 }), true],
  ['floorQuality', numberCases({ min: 0, max: 100, valid: 10 }), true],
];
// A value that must accompany the key for the row to isolate that key's own check.
const COMPANION = { regressionPatience: { regressionTolerance: 5 }, floorQuality: { floorPatience: 4 } };
const loopProof = (i) => [rec(i, 80, 0.5, 'failed', 0), stop(i), call('getConfig'), call('getIterationHistory')];

function loopConfig() {
  for (const [key, cases, optIn] of LOOP_CONFIG) {
    for (const [kase, value, kind, only] of cases) {
      const cfg = { ...(COMPANION[key] ?? {}), [key]: value };
      row('EarlyStoppingConfig', 'new EarlyStopping', key, kase, value, 'invalid_config', kind, only,
        { engine: 'EarlyStopping', construct: { config: cfg, analytics: null }, calls: [], expectThrows: { code: 'invalid_config', field: key, kind } }, !optIn);
      const base = { plateauConsecutiveCount: 4, ...(COMPANION[key] ?? {}) };
      row('EarlyStoppingConfig', 'configure', key, kase, value, 'invalid_config', kind, only,
        { engine: 'EarlyStopping', construct: { config: base, analytics: null },
          calls: [rec(1, 80, 0.5, 'failed', 0), { ...call('configure', { [key]: value }), expect: T('invalid_config', key, kind) }, ...loopProof(2)] }, !optIn);
    }
  }
  for (const [kase, value, kind, only] of notAnObject(null)) {
    if (value === null) continue; // null config = defaults (the seed spreads it)
    row('EarlyStoppingConfig', 'new EarlyStopping', 'config', kase, value, 'invalid_config', kind, only,
      { engine: 'EarlyStopping', construct: { config: value, analytics: null }, calls: [], expectThrows: { code: 'invalid_config', field: 'config', kind } });
    row('EarlyStoppingConfig', 'configure', 'options', kase, value, 'invalid_config', kind, only,
      { engine: 'EarlyStopping', construct: { config: null, analytics: null },
        calls: [rec(1, 80, 0.5, 'failed', 0), { ...call('configure', value), expect: T('invalid_config', 'options', kind) }, ...loopProof(2)] });
  }
  // A snake_case key is the Python spelling of a valid option: unknown in JS only.
  for (const [kase, key, only] of [['misspelt key', 'plateauConsecutiveCnt'], ['snake_case key in JS', 'min_quality_threshold', JS], ['seed-unknown key', 'patience']]) {
    row('EarlyStoppingConfig', 'new EarlyStopping', key, kase, 1, 'unknown_option', 'type', only,
      { engine: 'EarlyStopping', construct: { config: { [key]: 1 }, analytics: null }, calls: [], expectThrows: { code: 'unknown_option', field: key, kind: 'type' } },
      true);
    row('EarlyStoppingConfig', 'configure', key, kase, 1, 'unknown_option', 'type', only,
      { engine: 'EarlyStopping', construct: { config: null, analytics: null },
        calls: [rec(1, 80, 0.5, 'failed', 0), { ...call('configure', { [key]: 1 }), expect: T('unknown_option', key, 'type') }, ...loopProof(2)] });
  }
  // Cross-field checks: reported on a field the caller gave in this call.
  const cross = [
    ['minIterations > maxIterations', { minIterations: 5, maxIterations: 3 }, null, 'minIterations'],
    ['maxIterations below the configured minIterations', { maxIterations: 2 }, { minIterations: 5 }, 'maxIterations'],
    ['minIterations above the configured maxIterations', { minIterations: 8 }, { maxIterations: 5 }, 'minIterations'],
    ['regressionPatience without regressionTolerance', { regressionPatience: 3 }, null, 'regressionPatience'],
    ['regressionPatience on an engine without regressionTolerance', { regressionPatience: 3 }, { minIterations: 1 }, 'regressionPatience'],
    ['floorQuality without floorPatience', { floorQuality: 10 }, null, 'floorQuality'],
    ['floorQuality on an engine without floorPatience', { floorQuality: 10 }, { minIterations: 1 }, 'floorQuality'],
    ['plateauImprovementThreshold > 1 in relative mode', { plateauImprovementThreshold: 5 }, null, 'plateauImprovementThreshold'],
    ['plateauImprovementThreshold > 1 with plateauMode relative', { plateauMode: 'relative', plateauImprovementThreshold: 1.5 }, null, 'plateauImprovementThreshold'],
    ['plateauMode relative with an absolute threshold configured', { plateauMode: 'relative' }, { plateauMode: 'absolute', plateauImprovementThreshold: 5 }, 'plateauMode'],
    ['plateauImprovementThreshold above 100 points in absolute mode', { plateauImprovementThreshold: 100.5 }, { plateauMode: 'absolute' }, 'plateauImprovementThreshold'],
  ];
  for (const [kase, options, existing, field] of cross) {
    if (existing === null) {
      row('EarlyStoppingConfig', 'new EarlyStopping', field, kase, options, 'invalid_config', 'range', undefined,
        { engine: 'EarlyStopping', construct: { config: options, analytics: null }, calls: [], expectThrows: { code: 'invalid_config', field, kind: 'range' } }, false);
    }
    row('EarlyStoppingConfig', 'configure', field, kase, options, 'invalid_config', 'range', undefined,
      { engine: 'EarlyStopping', construct: { config: existing, analytics: null },
        calls: [rec(1, 80, 0.5, 'failed', 0), { ...call('configure', options), expect: T('invalid_config', field, 'range') }, ...loopProof(2)] }, false);
  }
  for (const [kase, value, only] of [['number', 5], ['string', 'analytics'], ['array', []], ['object without detectDiminishingReturns', { detect: true }],
    ['boolean', true], ['method not a function', { detectDiminishingReturns: 1 }, ['js']]]) {
    row('iterationAnalytics', 'new EarlyStopping', 'iterationAnalytics', kase, value, 'invalid_config', 'type', only,
      { engine: 'EarlyStopping', construct: { config: null, analytics: value }, calls: [], expectThrows: { code: 'invalid_config', field: 'iterationAnalytics', kind: 'type' } }, !only);
  }
}

// IterationResult (recordIterationResult) and the iteration number.
const RESULT_FIELDS = [
  ['quality_score', numberCases({ min: 0, max: 100, required: true, valid: 75 })],
  ['confidence', numberCases({ min: 0, max: 1, required: true, valid: 0.9 })],
  ['verification_status', enumCases(['passed', 'failed', 'skipped'], { required: true })],
  ['quality_delta', numberCases({ required: true, valid: 0 })],
  ['timestamp', timestampCases()],
  ['tokens_used', numberCases({ min: 0, valid: 5 })],
  ['token_cost_usd', numberCases({ min: 0, valid: 0.01 })],
  ['execution_time_ms', numberCases({ min: 0, valid: 950 })],
];

function loopResults() {
  const base = { config: null, analytics: null };
  const good = res(80, 0.5, 'failed', 0, { timestamp: ts(2) });
  for (const [field, cases] of RESULT_FIELDS) {
    for (const [kase, value, kind, only] of cases) {
      row('IterationResult', 'recordIterationResult', field, kase, value, 'invalid_result', kind, only,
        { engine: 'EarlyStopping', construct: base,
          calls: [rec(1, 60, 0.5, 'failed', 0), { call: 'recordIterationResult', args: [2, patched(good, field, value)], expect: T('invalid_result', field, kind) }, ...loopProof(2)] });
    }
  }
  // iteration_number: optional, must equal the iteration argument (inconsistent -> range).
  for (const [kase, value, kind, only] of [['not the iteration (3 for 2)', 3, 'range'], ['earlier iteration', 1, 'range'], ['as a string', '2', 'type'],
    ['null', null, 'type', JS], ['non-integer', 2.5, 'range'], ['NaN', N('NaN'), 'range'], ['boolean', true, 'type']]) {
    row('IterationResult', 'recordIterationResult', 'iteration_number', kase, value, 'invalid_result', kind, only,
      { engine: 'EarlyStopping', construct: base,
        calls: [rec(1, 60, 0.5, 'failed', 0), { call: 'recordIterationResult', args: [2, patched(good, 'iteration_number', value)], expect: T('invalid_result', 'iteration_number', kind) }, ...loopProof(2)] });
  }
  // Python's harness spells error fields in snake_case, which cannot express an unknown camelCase key.
  for (const [kase, key, only] of [['misspelt key', 'quality_scor'], ['camelCase key', 'qualityScore', JS], ['analytics-only key', 'quality']]) {
    row('IterationResult', 'recordIterationResult', key, kase, 1, 'unknown_option', 'type', only,
      { engine: 'EarlyStopping', construct: base,
        calls: [{ call: 'recordIterationResult', args: [1, { ...res(80, 0.5), [key]: 1 }], expect: T('unknown_option', key, 'type') }, ...loopProof(1)] });
  }
  for (const [kase, value, kind, only] of [...notAnObject(undefined), ['missing', MISSING, 'type']]) {
    const args = value === MISSING ? [1] : [1, value];
    row('IterationResult', 'recordIterationResult', 'result', kase, value, 'invalid_result', kind, only,
      { engine: 'EarlyStopping', construct: base, calls: [{ call: 'recordIterationResult', args, expect: T('invalid_result', 'result', kind) }, ...loopProof(1)] });
  }
  const iterationCases = [['zero', 0, 'range'], ['negative', -1, 'range'], ['non-integer', 1.5, 'range'], ['NaN', N('NaN'), 'range'],
    ['Infinity', N('Infinity'), 'range'], ['-Infinity', N('-Infinity'), 'range'], ['unsafe integer (2^53)', MAX_SAFE + 1, 'range'],
    ['number as a string', '1', 'type'], ['boolean', true, 'type'], ['null', null, 'type'], ['object', { n: 1 }, 'type'], ['array', [1], 'type']];
  for (const [kase, value, kind, only] of iterationCases) {
    row('iteration', 'recordIterationResult', 'iteration', kase, value, 'invalid_iteration', kind, only,
      { engine: 'EarlyStopping', construct: base,
        calls: [rec(1, 60, 0.5, 'failed', 0), { call: 'recordIterationResult', args: [value, res(80, 0.5, 'failed', 0)], expect: T('invalid_iteration', 'iteration', kind) }, ...loopProof(2)] });
  }
  // strictIterations: a number that does not follow the last one, or the last one with a
  // result that is not the same (docs/loop-options.md "Resume safety"); nothing changes.
  const strict = { config: { strictIterations: true }, analytics: null };
  const last = res(70, 0.5, 'failed', 10, { timestamp: ts(2), tokens_used: 5 });
  for (const [kase, iteration, result] of [
    ['earlier than the last', 1, res(80, 0.5, 'failed', 0, { timestamp: ts(3) })],
    ['the last again with another quality_score', 2, { ...last, quality_score: 71 }],
    ['the last again with another timestamp', 2, { ...last, timestamp: ts(3) }],
    ['the last again without its tokens_used', 2, patched(last, 'tokens_used', MISSING)],
  ]) {
    row('iteration', 'recordIterationResult (strictIterations)', 'iteration', kase, iteration, 'invalid_iteration', 'range', undefined,
      { engine: 'EarlyStopping', construct: strict,
        calls: [rec(1, 60, 0.5, 'failed', 0), { call: 'recordIterationResult', args: [2, last] },
          { call: 'recordIterationResult', args: [iteration, result], expect: T('invalid_iteration', 'iteration', 'range') }, ...loopProof(3)] });
  }
  // What an outside diminishing-returns source answers (shouldStop and generateSummary ask it).
  const answers = [
    ['not an object: number', 5, 'detectDiminishingReturns()', 'type'], ['not an object: null', null, 'detectDiminishingReturns()', 'type'],
    ['not an object: string', 'yes', 'detectDiminishingReturns()', 'type'], ['not an object: array', [], 'detectDiminishingReturns()', 'type'],
    ['detected missing', { iteration: 1, reason: 'r' }, 'detected', 'type'], ['detected a string', { detected: 'yes', iteration: 1, reason: 'r' }, 'detected', 'type'],
    ['detected a number', { detected: 1, iteration: 1, reason: 'r' }, 'detected', 'type'], ['detected null', { detected: null, iteration: 1, reason: 'r' }, 'detected', 'type'],
    ['iteration 0', { detected: true, iteration: 0, reason: 'r' }, 'iteration', 'range'], ['iteration negative', { detected: true, iteration: -2, reason: 'r' }, 'iteration', 'range'],
    ['iteration non-integer', { detected: true, iteration: 1.5, reason: 'r' }, 'iteration', 'range'],
    ['iteration NaN', { detected: true, iteration: N('NaN'), reason: 'r' }, 'iteration', 'range'],
    ['iteration Infinity', { detected: true, iteration: N('Infinity'), reason: 'r' }, 'iteration', 'range'],
    ['iteration a string', { detected: true, iteration: '2', reason: 'r' }, 'iteration', 'type'],
    ['iteration a boolean', { detected: true, iteration: true, reason: 'r' }, 'iteration', 'type'],
    ['reason missing', { detected: true, iteration: 2 }, 'reason', 'type'], ['reason a number', { detected: false, iteration: null, reason: 5 }, 'reason', 'type'],
    ['reason null', { detected: false, iteration: null, reason: null }, 'reason', 'type'],
  ];
  for (const [kase, answer, field, kind] of answers) {
    for (const via of ['shouldStop', 'generateSummary']) {
      const c = { config: null, analytics: { script: [answer, { detected: true, iteration: 1, reason: 'ok' }] } };
      const bad = via === 'shouldStop' ? stop(1) : call('generateSummary');
      row('DiminishingReturnsReport', via, field, kase, answer, 'invalid_analytics', kind, undefined,
        { engine: 'EarlyStopping', construct: c, calls: [rec(1, 60, 0.5, 'failed', 0), { ...bad, expect: T('invalid_analytics', field, kind) }, call('getStoppingReason'), call('getIterationHistory')] });
    }
  }
}

// The seed's public check methods (JS only: the drop-in's; Python and Rust have no such
// methods). checkHighConfidence takes a history record (`iteration`, the seed's parameter);
// checkDiminishingReturns words what the outside source answers as shouldStop does.
function loopChecks() {
  const base = { config: null, analytics: null };
  const record = { iteration_number: 2, ...res(80, 0.5, 'failed', 0, { timestamp: ts(2) }) };
  const proof = [rec(1, 60, 0.5, 'failed', 0)]; // raw rows (no model): no answers expected before the bad call
  const checkRow = (field, kase, value, code, kind, args) =>
    row('HistoryRecord', 'checkHighConfidence', field, kase, value, code, kind, ['js'],
      { engine: 'EarlyStopping', construct: base, calls: [...proof, { call: 'checkHighConfidence', args, expect: T(code, field, kind) }, ...loopProof(2)] }, false);
  for (const [field, cases] of RESULT_FIELDS) {
    for (const [kase, value, kind] of cases) checkRow(`iteration.${field}`, kase, value, 'invalid_result', kind, [patched(record, field, value)]);
  }
  for (const [kase, value, kind] of [['missing', MISSING, 'type'], ['zero', 0, 'range'], ['non-integer', 1.5, 'range'], ['as a string', '2', 'type']]) {
    checkRow('iteration.iteration_number', kase, value, 'invalid_result', kind, [patched(record, 'iteration_number', value)]);
  }
  checkRow('iteration.quality', 'unknown key', 1, 'unknown_option', 'type', [{ ...record, quality: 1 }]);
  for (const [kase, value, kind] of [...notAnObject(undefined), ['missing', MISSING, 'type']]) {
    checkRow('iteration', kase, value, 'invalid_result', kind, value === MISSING ? [] : [value]);
  }
  for (const [kase, answer, field, kind] of [
    ['not an object: number', 5, 'detectDiminishingReturns()', 'type'], ['detected a string', { detected: 'yes', iteration: 1, reason: 'r' }, 'detected', 'type'],
    ['iteration 0', { detected: true, iteration: 0, reason: 'r' }, 'iteration', 'range'], ['reason missing', { detected: true, iteration: 2 }, 'reason', 'type'],
  ]) {
    const c = { config: null, analytics: { script: [answer, { detected: true, iteration: 1, reason: 'ok' }] } };
    row('DiminishingReturnsReport', 'checkDiminishingReturns', field, kase, answer, 'invalid_analytics', kind, ['js'],
      { engine: 'EarlyStopping', construct: c, calls: [rec(1, 60, 0.5, 'failed', 0), { call: 'checkDiminishingReturns', args: [], expect: T('invalid_analytics', field, kind) }, call('getStoppingReason'), call('getIterationHistory')] }, false);
  }
}

// IterationAnalytics: upstream's constructor form and the config-object form, their config,
// records (upstream's fields too), the report's options, formatDuration and fromSummary. Every
// scenario gives its times (the project takes them as values where the reference reads the
// clock) and does not save (`persist: false`).
const A_TIMES = { startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T06:00:00.000Z' };
const aUpstream = (config = {}) => ({ loopId: 'loop-1', taskDescription: 'Fix the flaky tests', config: { persist: false, ...A_TIMES, ...config } });
const aConfigForm = (config = {}) => ({ config: { ...A_TIMES, ...config } });
const ANALYTICS_CONFIG = [
  ['storagePath', [...stringCases(), ['empty string', '', 'range']]],
  ['diminishingReturnsThreshold', numberCases({ min: 0, valid: 0.05 })],
  ['consecutiveCountThreshold', numberCases({ min: 1, integer: true, valid: 2 })],
  ['qualityThreshold', numberCases({ min: 0, max: 100, valid: 70 })],
  ['selectionCriteria', enumCases(['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold'])],
  ['persist', booleanCases()],
  ['startTime', timestampCases()],
  ['endTime', timestampCases().filter(([k]) => k !== 'null')], // null = not set yet, as upstream starts
];
const ANALYTICS_RECORD = [
  ['quality_score', numberCases({ min: 0, max: 100, required: true, valid: 75 }), 'invalid_result'],
  ['verification_status', enumCases(['passed', 'failed', 'skipped'], { required: true }), 'invalid_result'],
  ['tokens_used', numberCases({ min: 0, valid: 5 }), 'invalid_result'],
  ['token_cost_usd', numberCases({ min: 0, valid: 0.01 }), 'invalid_result'],
  ['execution_time_ms', numberCases({ min: 0, valid: 950 }), 'invalid_result'],
  ['output_snapshot_path', stringCases().filter(([k]) => k !== 'null'), 'invalid_result'], // null is kept, as upstream keeps it
  ['reflections', [...notAnArray.map(([k, v, kind]) => [k, v, kind, k === 'null' ? JS : undefined]), ['array with a number', ['ok', 3], 'type']], 'invalid_result'],
  ['quality_delta', numberCases({ valid: 3 }), 'invalid_result'],
  ['timestamp', timestampCases(), 'invalid_result'],
  ['iteration_number', numberCases({ min: 1, integer: true, required: true, valid: 2 }), 'invalid_iteration'],
];
const ri = (n, q, st = 'passed', extra = {}) => call('recordIteration', { iteration_number: n, quality_score: q, verification_status: st, timestamp: ts(n), ...extra });
const analyticsProof = (n) => [ri(n, 70), call('getRecords'), call('detectDiminishingReturns'), call('generateSummary')];
const A = (construct, calls) => ({ engine: 'IterationAnalytics', construct, calls });

function analytics() {
  // The constructor: upstream's positional strings, then the config object in either form.
  for (const [field, cases] of [['loopId', stringCases()], ['taskDescription', stringCases({ required: true })]]) {
    for (const [kase, value, kind, only] of cases) {
      const construct = { ...aUpstream(), [field]: value };
      if (value === MISSING) delete construct[field];
      // Python: a None loop_id means the config-object form, a missing task a missing argument.
      const py = value === null || value === MISSING ? JS : only;
      row('IterationAnalyticsArguments', 'new IterationAnalytics', field, kase, value, 'invalid_config', kind, py,
        { ...A(construct, []), expectThrows: { code: 'invalid_config', field, kind } });
    }
  }
  for (const [key, cases] of ANALYTICS_CONFIG) {
    for (const [kase, value, kind, only] of cases) {
      for (const [form, make] of [['upstream form', aUpstream], ['config-object form', aConfigForm]]) {
        if (key === 'persist' && form === 'config-object form') continue;
        const construct = make({ [key]: value });
        row('IterationAnalyticsConfig', `new IterationAnalytics (${form})`, key, kase, value, 'invalid_config', kind, only,
          { ...A(construct, []), expectThrows: { code: 'invalid_config', field: key, kind } });
      }
    }
  }
  row('IterationAnalyticsConfig', 'new IterationAnalytics (config-object form)', 'persist', 'true without a loopId to name the file', true, 'invalid_config', 'range', undefined,
    { ...A(aConfigForm({ persist: true }), []), expectThrows: { code: 'invalid_config', field: 'persist', kind: 'range' } });
  for (const [kase, value, kind, only] of notAnObject(null)) {
    if (value === null) continue;
    for (const [form, construct] of [['upstream form', { ...aUpstream(), config: value }], ['config-object form', { config: value }]]) {
      // A string as the only argument is upstream's loopId in JS and Python (then its
      // taskDescription is missing); only the Rust constructor names the form itself.
      const py = form === 'config-object form' && typeof value === 'string' ? ['rust'] : only;
      row('IterationAnalyticsConfig', `new IterationAnalytics (${form})`, 'config', kase, value, 'invalid_config', kind, py,
        { ...A(construct, []), expectThrows: { code: 'invalid_config', field: 'config', kind } });
    }
  }
  for (const [form, make] of [['upstream form', aUpstream], ['config-object form', aConfigForm]]) {
    row('IterationAnalyticsConfig', `new IterationAnalytics (${form})`, 'qualityThreshhold', 'misspelt key', 70, 'unknown_option', 'type', undefined,
      { ...A(make({ qualityThreshhold: 70 }), []), expectThrows: { code: 'unknown_option', field: 'qualityThreshhold', kind: 'type' } });
  }
  // recordIteration: every field of upstream's record.
  const good = { iteration_number: 2, quality_score: 62, verification_status: 'failed', timestamp: ts(2) };
  for (const [field, cases, code] of ANALYTICS_RECORD) {
    for (const [kase, value, kind, only] of cases) {
      const errorField = kase === 'array with a number' ? `${field}[1]` : field;
      row('AnalyticsRecord', 'recordIteration', field, kase, value, code, kind, only,
        A(aUpstream(), [ri(1, 60, 'passed'), { ...call('recordIteration', patched(good, field, value)), expect: T(code, errorField, kind) }, ...analyticsProof(2)]),
        true, errorField);
    }
  }
  for (const [kase, key] of [['misspelt key', 'quality_scor'], ['loop-only key confidence', 'confidence'], ['camelCase key', 'qualityScore']]) {
    row('AnalyticsRecord', 'recordIteration', key, kase, 1, 'unknown_option', 'type', key === 'qualityScore' ? JS : undefined,
      A(aUpstream(), [ri(1, 60), { ...call('recordIteration', { ...good, [key]: 1 }), expect: T('unknown_option', key, 'type') }, ...analyticsProof(2)]));
  }
  // getOptimalIteration(verifiedOnly): a boolean (absent = true; null is a value in JS).
  for (const [kase, value, kind, only] of booleanCases().concat([['object', {}, 'type']])) {
    row('verifiedOnly', 'getOptimalIteration', 'verifiedOnly', kase, value, 'invalid_config', kind, only,
      A(aConfigForm(), [ri(1, 60), ri(2, 75), { ...call('getOptimalIteration', value), expect: T('invalid_config', 'verifiedOnly', kind) }, call('getOptimalIteration', false), ...analyticsProof(3)]));
  }
  for (const [kase, value, kind, only] of [...notAnObject(undefined), MISSING_ARGUMENT]) {
    row('AnalyticsRecord', 'recordIteration', 'record', kase, value, 'invalid_result', kind, only,
      A(aUpstream(), [ri(1, 60), { call: 'recordIteration', args: value === MISSING ? [] : [value], expect: T('invalid_result', 'record', kind) }, ...analyticsProof(2)]));
  }
  // generateReport(options): {generatedAt}; Python takes keywords, so a non-object is JS only.
  const reportProof = [call('generateReport', { generatedAt: '2026-01-02T00:00:00.000Z' }), call('toJSON')];
  for (const [kase, value, kind] of notAnObject(undefined).filter(([k]) => k !== 'null')) {
    row('ReportOptions', 'generateReport', 'options', kase, value, 'invalid_config', kind, JS,
      A(aUpstream(), [ri(1, 60), { ...call('generateReport', value), expect: T('invalid_config', 'options', kind) }, ...reportProof]));
  }
  for (const [kase, value, kind, only] of timestampCases().filter(([k]) => k !== 'null')) {
    row('ReportOptions', 'generateReport', 'generatedAt', kase, value, 'invalid_config', kind, only,
      A(aUpstream(), [ri(1, 60), { ...call('generateReport', { generatedAt: value }), expect: T('invalid_config', 'generatedAt', kind) }, ...reportProof]));
  }
  row('ReportOptions', 'generateReport', 'at', 'unknown key', 1, 'unknown_option', 'type', undefined,
    A(aUpstream(), [ri(1, 60), { ...call('generateReport', { at: 1 }), expect: T('unknown_option', 'at', 'type') }, ...reportProof]));
  // formatDuration(ms): a finite number (any sign, as upstream prints it).
  for (const [kase, value, kind, only] of [...numberCases({ valid: 1000 }), MISSING_ARGUMENT]) {
    row('Duration', 'formatDuration', 'ms', kase, value, 'invalid_config', kind, value === null ? JS : only,
      A(aUpstream(), [{ call: 'formatDuration', args: value === MISSING ? [] : [value], expect: T('invalid_config', 'ms', kind) }, call('formatDuration', 61_000)]));
  }
  // fromSummary(summary, config): upstream's saved summary (its load, without the file).
  const setup = [ri(1, 50, 'passed', { tokens_used: 10 }), ri(2, 60, 'failed', { reflections: ['a'] }), ri(3, 61), { ...call('generateSummary'), saveAs: 'summary' }];
  const summaryProof = [call('getRecords'), call('toJSON')];
  const fromSummary = (patch, config = { persist: false }) => ({ call: 'fromSummary', args: [{ $saved: 'summary', patch }, config] });
  const SUMMARY_FIELDS = [
    ['loop_id', stringCases({ required: true }).filter(([k]) => k !== 'null')],
    ['task_description', stringCases({ required: true }).filter(([k]) => k !== 'null')],
    ['start_time', timestampCases({ required: true })],
    ['end_time', timestampCases({ required: true }).filter(([k]) => k !== 'null')],
    ['iterations', [...notAnArray, ['missing', MISSING, 'type']]],
    ['iterations[1]', notAnObject(undefined)],
    ['iterations[1].quality_score', numberCases({ min: 0, max: 100, required: true, valid: 60 }).slice(0, 5)],
    ['iterations[1].timestamp', timestampCases({ required: true }).slice(0, 5)],
    ['iterations[1].reflections', [...notAnArray, ['missing', MISSING, 'type'], ['array with a number', [1], 'type']]],
    ['iterations[1].quality_delta', [['NaN', N('NaN'), 'range'], ['string', '10', 'type'], ['missing', MISSING, 'type']]],
    ['iterations[1].iteration_number', numberCases({ min: 1, integer: true, required: true, valid: 2 }).slice(0, 5)],
  ];
  for (const [p, cases] of SUMMARY_FIELDS) {
    for (const [kase, value, kind, only] of cases) {
      const errorField = kase === 'array with a number' ? `${p}[0]` : p;
      const patch = [value === MISSING ? { path: p, delete: true } : { path: p, value }];
      row('AnalyticsSummary', 'fromSummary', p, kase, value, 'invalid_snapshot', kind, only,
        A(aUpstream(), [...setup, { ...fromSummary(patch), expect: T('invalid_snapshot', errorField, kind) }, ...summaryProof]), true, errorField);
    }
  }
  for (const [p, value] of [['extra', 1], ['iterations[0].note', 'x']]) {
    row('AnalyticsSummary', 'fromSummary', p, 'unknown key', value, 'invalid_snapshot', 'type', undefined,
      A(aUpstream(), [...setup, { ...fromSummary([{ path: p, value }]), expect: T('invalid_snapshot', p, 'type') }, ...summaryProof]));
  }
  for (const [kase, value, kind] of [['not JSON text', '{"loop_id":', 'range'], ['number', 5, 'type'], ['array', [], 'type']]) {
    row('AnalyticsSummary', 'fromSummary', 'summary', kase, value, 'invalid_snapshot', kind, undefined,
      A(aUpstream(), [...setup, { call: 'fromSummary', args: [value, null], expect: T('invalid_snapshot', 'summary', kind) }, ...summaryProof]));
  }
  row('AnalyticsSummary', 'fromSummary', 'persist', 'true with a null loop_id', true, 'invalid_config', 'range', undefined,
    A(aUpstream(), [...setup, { ...fromSummary([{ path: 'loop_id', value: null }], { persist: true }), expect: T('invalid_config', 'persist', 'range') }, ...summaryProof]));
  row('AnalyticsSummary', 'fromSummary', 'qualityThreshold', 'config value out of range', 101, 'invalid_config', 'range', undefined,
    A(aUpstream(), [...setup, { ...fromSummary([], { persist: false, qualityThreshold: 101 }), expect: T('invalid_config', 'qualityThreshold', 'range') }, ...summaryProof]));
}

// LayerResult (calculateQualitySignal; the controller's runners; PyramidRun.submit).
const LAYER_FIELDS = [
  ['passRate', numberCases({ min: 0, max: 1, required: true, valid: 0.9 })],
  ['coverage', numberCases({ min: 0, max: 1, required: true, valid: 0.8 })],
  ['flakyRatio', numberCases({ min: 0, max: 1, required: true, valid: 0.01 })],
  ['previousLambda', numberCases({ min: 0, max: 100, valid: 50 })],
  ['name', stringCases()],
  ['durationMs', numberCases({ min: 0, valid: 100 })],
  ['total', numberCases({ min: 0, integer: true, valid: 10 })],
  ['passed', numberCases({ min: 0, integer: true, valid: 9 })],
  ['failed', numberCases({ min: 0, integer: true, valid: 1 })],
  ['flaky', numberCases({ min: 0, integer: true, valid: 0 })],
];
const LAYER_INCONSISTENT = [
  ['passed + failed > total', { total: 10, passed: 8, failed: 3 }, 'passed'],
  ['passed > total', { total: 5, passed: 6 }, 'passed'],
  ['failed > total (passed absent)', { total: 5, failed: 6 }, 'failed'],
  ['flaky > total', { total: 5, passed: 5, flaky: 6 }, 'flaky'],
];
const GOOD_LAYER = { passRate: 1, coverage: 0.95, flakyRatio: 0 };
const OK_LAYER = { passRate: 0.99, coverage: 0.9, flakyRatio: 0.01 };
const layerCases = () => {
  const out = [];
  for (const [field, cases] of LAYER_FIELDS) for (const [kase, value, kind, only] of cases) out.push([field, kase, patched({ ...OK_LAYER, total: 100, passed: 99, failed: 1, flaky: 1 }, field, value), value, kind, only]);
  for (const [kase, counts, field] of LAYER_INCONSISTENT) out.push([field, kase, { ...OK_LAYER, ...counts }, counts, 'range', undefined]);
  return out;
};

function layerResults() {
  for (const [field, kase, lr, value, kind, only] of layerCases()) {
    row('LayerResult', 'calculateQualitySignal', field, kase, value, 'invalid_layer_result', kind, only,
      { engine: 'calculateQualitySignal', construct: {}, calls: [{ ...call('calculateQualitySignal', lr), expect: T('invalid_layer_result', field, kind) }, call('calculateQualitySignal', OK_LAYER)] });
    const f = `layers[0].${field}`;
    row('LayerResult', 'runWithEarlyExit', f, kase, value, 'invalid_layer_result', kind, only,
      { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2 },
        calls: [{ call: 'runWithEarlyExit', args: [], layers: [{ name: 'unit', costMs: 10, results: [lr] }, { name: 'e2e', costMs: 100, results: [] }], expect: T('invalid_layer_result', f, kind) },
          { call: 'runWithEarlyExit', args: [], layers: [{ name: 'unit', costMs: 10, results: [GOOD_LAYER] }, { name: 'e2e', costMs: 100, results: [GOOD_LAYER] }] }] });
    row('LayerResult', 'PyramidRun.submit', f, kase, value, 'invalid_layer_result', kind, only,
      { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: [{ name: 'unit', costMs: 10 }, { name: 'e2e', costMs: 100 }] },
        calls: [call('next'), { ...call('submit', 0, lr), expect: T('invalid_layer_result', f, kind) }, call('next'), call('submit', 0, GOOD_LAYER), call('next'), call('toJSON')] });
  }
  for (const [kase, value, kind, only] of [...notAnObject(undefined), MISSING_ARGUMENT]) {
    row('LayerResult', 'calculateQualitySignal', 'layerResult', kase, value, 'invalid_layer_result', kind, only,
      { engine: 'calculateQualitySignal', construct: {}, calls: [{ call: 'calculateQualitySignal', args: value === MISSING ? [] : [value], expect: T('invalid_layer_result', 'layerResult', kind) }] });
    if (value === MISSING) continue;
    row('LayerResult', 'runWithEarlyExit', 'layers[0]', kase, value, 'invalid_layer_result', kind, only,
      { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2 },
        calls: [{ call: 'runWithEarlyExit', args: [], layers: [{ name: 'unit', results: [value] }, { name: 'e2e', results: [] }], expect: T('invalid_layer_result', 'layers[0]', kind) }] });
  }
}

// Exit configs (CoherenceEarlyExit, SpeculativeExecutor, EarlyExitController, PyramidRun.start).
const EXIT_CONFIG = [
  ['exitLayer', numberCases({ min: 0, integer: true, valid: 1 })],
  ['minLambdaForExit', numberCases({ min: 0, max: 100, valid: 80 })],
  ['minLambdaStability', numberCases({ min: 0, max: 1, valid: 0.9 })],
  ['maxBoundaryConcentration', numberCases({ min: 0, max: 1, valid: 0.5 })],
  ['speculativeTests', numberCases({ min: 0, integer: true, valid: 3 })],
  ['verificationLayers', numberCases({ min: 0, integer: true, valid: 1 })],
  ['adaptiveExitLayer', booleanCases()],
  ['minConfidence', numberCases({ min: 0, max: 1, valid: 0.8 })],
];
const SPECS = [{ name: 'unit', costMs: 10 }, { name: 'e2e', costMs: 100 }];
const SIGNAL = { lambda: 90, lambdaPrev: 88, boundaryEdges: 0, boundaryConcentration: 0.1, partitionCount: 0, flags: 0 };
const goodRun = () => ({ call: 'runWithEarlyExit', args: [], layers: [{ name: 'unit', costMs: 10, results: [GOOD_LAYER] }, { name: 'e2e', costMs: 100, results: [GOOD_LAYER] }] });
const exitCtors = (config, totalLayers = 2) => [
  ['new CoherenceEarlyExit', { engine: 'CoherenceEarlyExit', construct: { config, totalLayers } }],
  ['new SpeculativeExecutor', { engine: 'SpeculativeExecutor', construct: { config } }],
  ['new EarlyExitController', { engine: 'EarlyExitController', construct: { config, totalLayers } }],
  ['PyramidRun.start', { engine: 'PyramidRun', construct: { config, totalLayers, layers: SPECS } }],
];

function exitConfigs() {
  for (const [key, cases] of EXIT_CONFIG) {
    for (const [kase, value, kind, only] of cases) {
      for (const [via, spec] of exitCtors({ [key]: value })) {
        row('ExitConfig', via, key, kase, value, 'invalid_config', kind, only, { ...spec, calls: [], expectThrows: { code: 'invalid_config', field: key, kind } });
      }
    }
  }
  for (const [kase, value, kind, only] of notAnObject(null)) {
    if (value === null) continue;
    for (const [via, spec] of exitCtors(value)) {
      row('ExitConfig', via, 'config', kase, value, 'invalid_config', kind, only, { ...spec, calls: [], expectThrows: { code: 'invalid_config', field: 'config', kind } });
    }
  }
  for (const [via, spec] of exitCtors({ exitLayr: 1 })) {
    row('ExitConfig', via, 'exitLayr', 'misspelt key', 1, 'unknown_option', 'type', undefined, { ...spec, calls: [], expectThrows: { code: 'unknown_option', field: 'exitLayr', kind: 'type' } });
  }
  const totalCases = [...numberCases({ min: 1, integer: true, required: true, valid: 3 }).filter(([k]) => k !== 'missing' && k !== 'null'), ['null', null, 'type', JS]];
  for (const [kase, value, kind, only] of totalCases) {
    for (const [via, spec] of exitCtors(null, value).filter(([v]) => v !== 'new SpeculativeExecutor')) {
      row('totalLayers', via, 'totalLayers', kase, value, 'invalid_config', kind, only, { ...spec, calls: [], expectThrows: { code: 'invalid_config', field: 'totalLayers', kind } });
    }
  }
}

// A hand-made QualitySignal and the layer index for shouldExit.
const SIGNAL_FIELDS = [
  ['lambda', numberCases({ min: 0, max: 100, required: true, valid: 90 })],
  ['lambdaPrev', numberCases({ min: 0, max: 100, required: true, valid: 88 })],
  ['boundaryEdges', numberCases({ min: 0, max: 3, integer: true, valid: 1 })],
  ['boundaryConcentration', numberCases({ min: 0, max: 1, required: true, valid: 0.1 })],
  ['partitionCount', numberCases({ min: 0, max: 3, integer: true, valid: 1 })],
  ['flags', numberCases({ min: 0, integer: true, valid: 1 }).filter(([k]) => k !== 'unsafe integer (2^53)').concat([['above 2^32-1', 4294967296, 'range']])],
];

function signals() {
  const construct = { config: null, totalLayers: 4 };
  const probe = call('shouldExit', SIGNAL, 1);
  for (const [field, cases] of SIGNAL_FIELDS) {
    for (const [kase, value, kind, only] of cases) {
      row('QualitySignal', 'shouldExit', field, kase, value, 'invalid_signal', kind, only,
        { engine: 'CoherenceEarlyExit', construct, calls: [{ ...call('shouldExit', patched(SIGNAL, field, value), 1), expect: T('invalid_signal', field, kind) }, probe] });
    }
  }
  // lambda_prev is the Python spelling of lambdaPrev: unknown in JS only.
  row('QualitySignal', 'shouldExit', 'lambda_prev', 'unknown key', 1, 'unknown_option', 'type', JS,
    { engine: 'CoherenceEarlyExit', construct, calls: [{ ...call('shouldExit', { ...SIGNAL, lambda_prev: 1 }, 1), expect: T('unknown_option', 'lambda_prev', 'type') }, probe] });
  for (const [kase, value, kind, only] of [...notAnObject(undefined), MISSING_ARGUMENT]) {
    row('QualitySignal', 'shouldExit', 'signal', kase, value, 'invalid_signal', kind, only,
      { engine: 'CoherenceEarlyExit', construct, calls: [{ call: 'shouldExit', args: value === MISSING ? [] : [value, 1], expect: T('invalid_signal', 'signal', kind) }, probe] });
  }
  const layerCasesList = [['negative', -1, 'range'], ['non-integer', 1.5, 'range'], ['NaN', N('NaN'), 'range'], ['Infinity', N('Infinity'), 'range'],
    ['unsafe integer (2^53)', MAX_SAFE + 1, 'range'], ['number as a string', '1', 'type'], ['boolean', true, 'type'], ['null', null, 'type'], MISSING_ARGUMENT];
  for (const [kase, value, kind, only] of layerCasesList) {
    row('layer', 'shouldExit', 'layer', kase, value, 'invalid_signal', kind, only,
      { engine: 'CoherenceEarlyExit', construct, calls: [{ call: 'shouldExit', args: value === MISSING ? [SIGNAL] : [SIGNAL, value], expect: T('invalid_signal', 'layer', kind) }, probe] });
  }
  // speculate(decision, skippedLayers): only decision.confidence and the array's length are read.
  const decision = { canExit: true, confidence: 0.9, exitLayer: 1, reason: 'confident_exit', enableSpeculation: true, explanation: 'x' };
  for (const [kase, value, kind, only] of numberCases({ min: 0, max: 1, required: true, valid: 0.9 })) {
    row('EarlyExitDecision', 'speculate', 'decision.confidence', kase, value, 'invalid_signal', kind, only,
      { engine: 'SpeculativeExecutor', construct: { config: null },
        calls: [{ ...call('speculate', patched(decision, 'confidence', value), [2, 3]), expect: T('invalid_signal', 'decision.confidence', kind) }, call('speculate', decision, [2, 3])] });
  }
  for (const [kase, value, kind, only] of notAnObject(undefined)) {
    row('EarlyExitDecision', 'speculate', 'decision', kase, value, 'invalid_signal', kind, only,
      { engine: 'SpeculativeExecutor', construct: { config: null },
        calls: [{ ...call('speculate', value, [2, 3]), expect: T('invalid_signal', 'decision', kind) }, call('speculate', decision, [2, 3])] });
  }
}

// Layer specs given to runWithEarlyExit and PyramidRun.start, and the step API's arguments.
function pyramidInputs() {
  const specCases = [
    ...stringCases({ required: true }).map(([k, v, kind, only]) => ['name', k, v, kind, only]),
    ...numberCases({ min: 0, valid: 10 }).map(([k, v, kind, only]) => ['costMs', k, v, kind, only]),
  ];
  for (const [field, kase, value, kind, only] of specCases) {
    const f = `layers[1].${field}`;
    const specs = [{ name: 'unit', costMs: 10 }, patched({ name: 'e2e', costMs: 100 }, field, value)];
    row('LayerSpec', 'runWithEarlyExit', f, kase, value, 'invalid_config', kind, only,
      { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2 },
        calls: [{ call: 'runWithEarlyExit', args: [], layers: specs.map((s) => ({ ...s, results: [GOOD_LAYER] })), expect: T('invalid_config', f, kind), runnerCalls: [0, 0] }, goodRun()] });
    row('LayerSpec', 'PyramidRun.start', f, kase, value, 'invalid_config', kind, only,
      { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: specs }, calls: [], expectThrows: { code: 'invalid_config', field: f, kind } });
  }
  // A key that nearly spells a layer key (another binding's spelling, or within edit distance
  // 2, letter case aside) would be ignored: unknown_option, with a did-you-mean. Python reads
  // `cost_ms` (and its vectors respell `costMS` to it): those rows are JS's and Rust's.
  for (const [key, only] of [['cost_ms', ['js', 'rust']], ['costMS', ['js', 'rust']], ['cost', undefined], ['nmae', undefined]]) {
    const f = `layers[1].${key}`;
    const specs = [{ name: 'unit', costMs: 10 }, { name: 'e2e', [key]: 100 }];
    row('LayerSpec', 'PyramidRun.start', f, 'a near-miss key', 100, 'unknown_option', 'type', only,
      { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: specs }, calls: [], expectThrows: { code: 'unknown_option', field: f, kind: 'type' } }, false);
  }
  // In Python a layer mapping reads `cost_ms` only (the exception to its either-spelling
  // rule): the JS spellings are near misses there, passed as written (`keys: 'as given'`).
  for (const key of ['costMs', 'costMS']) {
    const f = `layers[1].${key}`;
    const specs = [{ name: 'unit', cost_ms: 10 }, { name: 'e2e', [key]: 100 }];
    row('LayerSpec', 'PyramidRun.start', f, 'a near-miss key (Python)', 100, 'unknown_option', 'type', PYTHON,
      { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: specs }, calls: [], expectThrows: { code: 'unknown_option', field: f, kind: 'type' }, keys: 'as given' }, false);
    row('LayerSpec', 'runWithEarlyExit', f, 'a near-miss key (Python)', 100, 'unknown_option', 'type', PYTHON,
      { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2 }, keys: 'as given',
        calls: [{ call: 'runWithEarlyExit', args: [], layers: specs.map((s) => ({ ...s, results: [GOOD_LAYER] })), expect: T('unknown_option', f, 'type'), runnerCalls: [0, 0] }] }, false);
  }
  for (const [kase, value, kind, only] of notAnObject(undefined)) {
    row('LayerSpec', 'PyramidRun.start', 'layers[0]', kase, value, 'invalid_config', kind, only,
      { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: [value, { name: 'e2e' }] }, calls: [], expectThrows: { code: 'invalid_config', field: 'layers[0]', kind } });
  }
  for (const [kase, value, kind, only] of [['number', 5, 'type'], ['string', 'unit', 'type'], ['object', { name: 'unit' }, 'type'], ['null', null, 'type', JS]]) {
    row('LayerSpec', 'PyramidRun.start', 'layers', kase, value, 'invalid_config', kind, only,
      { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: value }, calls: [], expectThrows: { code: 'invalid_config', field: 'layers', kind } });
  }
  // Costs whose sum would overflow (docs/limits.md, "Running totals"): the one that crosses it
  // (the project's rule: the reference sums to Infinity).
  const huge = [{ name: 'unit', costMs: 1e308 }, { name: 'e2e', costMs: 1e308 }];
  const overflow = 'sum with the costs before it overflows';
  row('LayerSpec', 'runWithEarlyExit', 'layers[1].costMs', overflow, 1e308, 'invalid_config', 'range', undefined,
    { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2 },
      calls: [{ call: 'runWithEarlyExit', args: [], layers: huge.map((s) => ({ ...s, results: [GOOD_LAYER] })), expect: T('invalid_config', 'layers[1].costMs', 'range'), runnerCalls: [0, 0] }, goodRun()] }, false);
  row('LayerSpec', 'PyramidRun.start', 'layers[1].costMs', overflow, 1e308, 'invalid_config', 'range', undefined,
    { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: huge }, calls: [], expectThrows: { code: 'invalid_config', field: 'layers[1].costMs', kind: 'range' } }, false);
  const policyRun = { config: null, totalLayers: 2, layers: [{ name: 'unit', costMs: 1 }, { name: 'e2e', costMs: 1e308 }], options: { policy: 'fail_fast', mode: 'shadow' } };
  const hugeDuration = { ...GOOD_LAYER, durationMs: 1e308 };
  row('LayerResult', 'PyramidRun.submit', 'layers[0].durationMs', 'with the other layers\' costs, overflows', 1e308, 'invalid_layer_result', 'range', undefined,
    { engine: 'PyramidRun', construct: policyRun,
      calls: [{ ...call('next'), returns: { action: 'run', layer: 0 } }, { ...call('submit', 0, hugeDuration), expect: T('invalid_layer_result', 'layers[0].durationMs', 'range') }, { ...call('next'), returns: { action: 'run', layer: 0 } }] }, false);
  const construct = { config: null, totalLayers: 2, layers: SPECS };
  const after = [call('next'), call('submit', 0, GOOD_LAYER), call('next'), call('toJSON')];
  const submitLayer = [['not the pending layer', 1, 'range'], ['negative', -1, 'range'], ['non-integer', 0.5, 'range'], ['NaN', N('NaN'), 'range'],
    ['past the last layer', 7, 'range'], ['number as a string', '0', 'type'], ['boolean', false, 'type'], ['null', null, 'type']];
  for (const [kase, value, kind, only] of submitLayer) {
    row('step', 'PyramidRun.submit', 'layer', kase, value, 'invalid_step', kind, only,
      { engine: 'PyramidRun', construct, calls: [call('next'), { ...call('submit', value, GOOD_LAYER), expect: T('invalid_step', 'layer', kind) }, ...after] });
  }
  const done = [call('next'), call('submit', 0, GOOD_LAYER), call('next'), call('submit', 1, GOOD_LAYER), call('next')];
  row('step', 'PyramidRun.submit', 'layer', 'after done', 1, 'invalid_step', 'range', undefined,
    { engine: 'PyramidRun', construct, calls: [...done, { ...call('submit', 1, GOOD_LAYER), expect: T('invalid_step', 'layer', 'range') }, call('result'), call('toJSON')] });
  row('step', 'PyramidRun.result', 'result', 'before done', null, 'invalid_step', 'range', undefined,
    { engine: 'PyramidRun', construct, calls: [call('next'), { ...call('result'), expect: T('invalid_step', 'result', 'range') }, ...after] });
}

// The policy options of a live run (`{policy, mode, model, policyConfig}`: the third argument of
// `new EarlyExitController` / the fourth of `PyramidRun.start`, Python's keywords). Not the ADR's:
// the model does not run them (hand rows). `null` is "not given" in every language, so no null rows.
function policyOptions() {
  const FF = { policy: 'fail_fast' };
  const cases = [
    ...enumCases(['adr', 'fail_fast', 'risk_bounded']).filter(([k]) => k !== 'null').map(([k, v, kind]) => ['policy', k, { policy: v }, kind]),
    ...enumCases(['enforced', 'shadow']).filter(([k]) => k !== 'null').map(([k, v, kind]) => ['mode', k, { mode: v }, kind]),
    ['model', 'with the ADR (it reads none)', { model: { version: 1, engine: 'PyramidOutcomeModel', layers: [] } }, 'range'],
    ['policyConfig', 'with the ADR (it reads none)', { policyConfig: {} }, 'range'],
    ...numberCases({ min: 0, max: 1, valid: 0.01 }).filter(([k]) => k !== 'null')
      .map(([k, v, kind]) => ['policyConfig.riskBudget', k, { policy: 'risk_bounded', policyConfig: { riskBudget: v } }, kind]),
    ...booleanCases().filter(([k]) => k !== 'null').map(([k, v, kind]) => ['policyConfig.reorder', k, { policy: 'risk_bounded', policyConfig: { reorder: v } }, kind]),
    ...notAnObject(undefined).filter(([k]) => k !== 'null' && k !== 'string')
      .map(([k, v, kind]) => ['policyConfig', k, { policy: 'risk_bounded', policyConfig: v }, kind]),
  ];
  const modelCases = [
    ['model', 'number', { ...FF, model: 5 }, 'type', 'invalid_snapshot'],
    ['model', 'array', { ...FF, model: [] }, 'type', 'invalid_snapshot'],
    ['model', 'boolean', { ...FF, model: true }, 'type', 'invalid_snapshot'],
    ['model', 'not JSON text', { ...FF, model: '{"version": 1,' }, 'range', 'invalid_snapshot'],
    ['model.version', 'unknown version', { ...FF, model: { version: 9, engine: 'PyramidOutcomeModel', layers: [] } }, 'range', 'invalid_snapshot'],
    ['model.layers[0].failures', 'above the trials', { ...FF, model: { version: 1, engine: 'PyramidOutcomeModel', layers: [{ name: 'unit', trials: 1, failures: 2, costMs: null, costWeight: 0 }] } }, 'range', 'invalid_snapshot'],
    // Version 2 (the model that merges: docs/test-exit.md "Models that merge").
    ['model.window', 'version 2, window 0', { ...FF, model: { version: 2, engine: 'PyramidOutcomeModel', window: 0, builds: [] } }, 'range', 'invalid_snapshot'],
    ['model.builds[1]', 'version 2, builds out of key order', { ...FF, model: { version: 2, engine: 'PyramidOutcomeModel', window: 5, builds: [{ id: 'a', seq: 2, layers: [] }, { id: 'a', seq: 1, layers: [] }] } }, 'range', 'invalid_snapshot'],
    ['model.builds', 'version 2, more builds than the window', { ...FF, model: { version: 2, engine: 'PyramidOutcomeModel', window: 1, builds: [{ id: 'a', seq: 1, layers: [] }, { id: 'a', seq: 2, layers: [] }] } }, 'range', 'invalid_snapshot'],
    ['model.builds[0].seq', 'version 2, negative seq', { ...FF, model: { version: 2, engine: 'PyramidOutcomeModel', window: 5, builds: [{ id: 'a', seq: -1, layers: [] }] } }, 'range', 'invalid_snapshot'],
    ['model.builds[0].layers[0].failed', 'version 2, a layer without failed', { ...FF, model: { version: 2, engine: 'PyramidOutcomeModel', window: 5, builds: [{ id: 'a', seq: 1, layers: [{ name: 'unit' }] }] } }, 'type', 'invalid_snapshot'],
  ];
  // A misspelt keyword is Python's own TypeError (the options are keywords there): JS and Rust only.
  const all = [...cases.map((c) => [...c, 'invalid_config']), ...modelCases, ['polcy', 'misspelt key', { polcy: 'fail_fast' }, 'type', 'unknown_option', JS]];
  for (const [field, kase, options, kind, code, only] of all) {
    const value = field.includes('.') || field === 'polcy' || kase.startsWith('with the ADR') ? options : options[field];
    for (const [via, spec] of [
      ['new EarlyExitController', { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2, options } }],
      ['PyramidRun.start', { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: SPECS, options } }],
    ]) {
      row('PolicyRunOptions', via, field, kase, value, code, kind, only, { ...spec, calls: [], expectThrows: { code, field, kind } }, false);
    }
  }
}

// One field under both spellings (Python only: a Python dict may use either spelling, the
// JS one being what to_dict() returns, but not both; in JS a snake_case key is unknown or a
// runner's own extra). The Python suite passes these objects as written (`keys: 'as given'`).
const PYTHON = ['python'];
function bothSpellings() {
  const both = (js, snake, value) => ({ [js]: value, [snake]: value });
  const add = (input, via, field, value, code, spec) =>
    row(input, via, field, 'both spellings', value, code, 'type', PYTHON, { ...spec, keys: 'as given' }, false);
  const loopCfg = both('plateauConsecutiveCount', 'plateau_consecutive_count', 4);
  add('EarlyStoppingConfig', 'new EarlyStopping', 'plateauConsecutiveCount', loopCfg, 'invalid_config',
    { engine: 'EarlyStopping', construct: { config: loopCfg, analytics: null }, calls: [], expectThrows: { code: 'invalid_config', field: 'plateauConsecutiveCount', kind: 'type' } });
  add('EarlyStoppingConfig', 'configure', 'plateauConsecutiveCount', loopCfg, 'invalid_config',
    { engine: 'EarlyStopping', construct: { config: null, analytics: null },
      calls: [rec(1, 80, 0.5, 'failed', 0), { ...call('configure', loopCfg), expect: T('invalid_config', 'plateauConsecutiveCount', 'type') }, ...loopProof(2)] });
  const analyticsCfg = both('qualityThreshold', 'quality_threshold', 60);
  add('IterationAnalyticsConfig', 'new IterationAnalytics', 'qualityThreshold', analyticsCfg, 'invalid_config',
    { engine: 'IterationAnalytics', construct: { config: analyticsCfg }, calls: [], expectThrows: { code: 'invalid_config', field: 'qualityThreshold', kind: 'type' } });
  const lr = { ...OK_LAYER, pass_rate: OK_LAYER.passRate };
  add('LayerResult', 'calculateQualitySignal', 'passRate', lr, 'invalid_layer_result',
    { engine: 'calculateQualitySignal', construct: {}, calls: [{ ...call('calculateQualitySignal', lr), expect: T('invalid_layer_result', 'passRate', 'type') }] });
  add('LayerResult', 'runWithEarlyExit', 'layers[0].passRate', lr, 'invalid_layer_result',
    { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2 },
      calls: [{ call: 'runWithEarlyExit', args: [], layers: [{ name: 'unit', cost_ms: 10, results: [lr] }, { name: 'e2e', cost_ms: 100, results: [] }], expect: T('invalid_layer_result', 'layers[0].passRate', 'type') }] });
  // (Layer specs as Python spells them: a Python layer reads `cost_ms` only.)
  add('LayerResult', 'PyramidRun.submit', 'layers[0].passRate', lr, 'invalid_layer_result',
    { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: SPECS.map(({ costMs, ...s }) => (costMs === undefined ? s : { ...s, cost_ms: costMs })) },
      calls: [{ ...call('next'), returns: { action: 'run', layer: 0 } }, { ...call('submit', 0, lr), expect: T('invalid_layer_result', 'layers[0].passRate', 'type') }] });
  const exitCfg = both('exitLayer', 'exit_layer', 1);
  for (const [via, spec] of exitCtors(exitCfg)) {
    add('ExitConfig', via, 'exitLayer', exitCfg, 'invalid_config', { ...spec, calls: [], expectThrows: { code: 'invalid_config', field: 'exitLayer', kind: 'type' } });
  }
  const signal = { ...SIGNAL, lambda_prev: SIGNAL.lambdaPrev };
  add('QualitySignal', 'shouldExit', 'lambdaPrev', signal, 'invalid_signal',
    { engine: 'CoherenceEarlyExit', construct: { config: null, totalLayers: 4 }, calls: [{ ...call('shouldExit', signal, 1), expect: T('invalid_signal', 'lambdaPrev', 'type') }] });
  // (A layer's `costMs` beside `cost_ms` is no longer a both-spellings case: a Python layer
  // mapping reads `cost_ms` only, and `costMs` is a near miss: see pyramidInputs.)
}

// Malformed snapshots: patches of a valid snapshot of each engine (taken from snapshots.json).
function snapshotBase(engine) {
  const { vectors } = JSON.parse(fs.readFileSync(path.join(here, 'snapshots.json'), 'utf8'));
  for (const v of vectors) {
    if (v.engine !== engine || v.throws) continue;
    for (const c of v.calls) if (c.call === 'toJSON' && c.returns && (c.returns.history?.length || c.returns.records?.length || c.returns.submitted?.length)) return { vector: v, snapshot: c.returns };
  }
  throw new Error(`snapshots.json has no non-empty ${engine} snapshot`);
}
function setPath(obj, p, value) {
  const segs = p.split('.').flatMap((part) => { const m = /^([^[]+)((?:\[\d+\])*)$/.exec(part); return [m[1], ...[...m[2].matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]))]; });
  let t = obj;
  for (const s of segs.slice(0, -1)) t = t[s];
  if (value === MISSING) delete t[segs.at(-1)]; else t[segs.at(-1)] = value;
}

function snapshots() {
  const plans = {
    EarlyStopping: {
      fields: [
        ['version', numberCases({ min: 1, max: 1, integer: true, required: true, valid: 1 })],
        ['engine', enumCases(['EarlyStopping'], { required: true }).filter(([k]) => k !== 'null').concat([['another engine', 'IterationAnalytics', 'range']])],
        ['config', [...notAnObject(undefined).filter(([k]) => k !== 'null'), ['missing', MISSING, 'type']]],
        ['config.plateauConsecutiveCount', numberCases({ min: 2, integer: true, valid: 3 })],
        ['config.plateauMode', enumCases(['relative', 'absolute'])],
        ['config.maxIterations', numberCases({ min: 1, integer: true, valid: 3 }).slice(0, 4)],
        ['history', [...notAnArray, ['missing', MISSING, 'type']]],
        ['history[0]', notAnObject(undefined)],
        ['history[1].quality_score', numberCases({ min: 0, max: 100, required: true, valid: 70 })],
        ['history[1].confidence', numberCases({ min: 0, max: 1, required: true, valid: 0.5 }).slice(0, 4)],
        ['history[1].verification_status', enumCases(['passed', 'failed', 'skipped'], { required: true })],
        ['history[1].timestamp', timestampCases({ required: true })],
        ['history[1].iteration_number', numberCases({ min: 1, integer: true, required: true, valid: 2 })],
        ['history[0].tokens_used', numberCases({ min: 0, valid: 5 }).slice(0, 4)],
        ['stoppingReason', [['number', 5, 'type'], ['object', {}, 'type']]],
        ['stoppingDetails', [['string', 'x', 'type'], ['number', 5, 'type'], ['array', [], 'type']]],
      ],
      unknown: [['extra', 1], ['config.plateauCount', 3], ['history[0].note', 'x']],
    },
    IterationAnalytics: {
      fields: [
        ['version', numberCases({ min: 1, max: 1, integer: true, required: true, valid: 1 }).slice(0, 5)],
        ['engine', [['another engine', 'EarlyStopping', 'range'], ['number', 5, 'type']]],
        ['config.selectionCriteria', enumCases(['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold'])],
        ['config.consecutiveCountThreshold', numberCases({ min: 1, integer: true, valid: 2 })],
        ['records', [...notAnArray, ['missing', MISSING, 'type']]],
        ['records[1].quality_score', numberCases({ min: 0, max: 100, required: true, valid: 51 })],
        ['records[1].iteration_number', numberCases({ min: 1, integer: true, required: true, valid: 2 })],
        ['records[1].quality_delta', [['NaN', N('NaN'), 'range'], ['string', '1', 'type'], ['missing', MISSING, 'type']]],
        ['records[1].timestamp', timestampCases({ required: true }).slice(0, 6)],
        ['records[1].reflections', [...notAnArray, ['missing', MISSING, 'type']]],
        ['records[1].output_snapshot_path', stringCases().filter(([k]) => k !== 'null').slice(0, 3)],
        ['loopId', stringCases().filter(([k]) => k !== 'null').slice(0, 3)],
        ['startTime', timestampCases().filter(([k]) => k !== 'null').slice(0, 4)],
        ['endTime', timestampCases().filter(([k]) => k !== 'null').slice(0, 4)],
        ['config.storagePath', [['number', 5, 'type'], ['empty string', '', 'range']]],
      ],
      unknown: [['history', []], ['records[0].conf', 1], ['config.persist', false]],
    },
    PyramidRun: {
      fields: [
        ['version', [['2', 2, 'range'], ['string', '1', 'type']]],
        ['engine', [['another engine', 'EarlyStopping', 'range']]],
        ['totalLayers', numberCases({ min: 1, integer: true, required: true, valid: 2 }).slice(0, 8)],
        ['config.minConfidence', numberCases({ min: 0, max: 1, valid: 0.8 }).slice(0, 5)],
        ['submitted[0].layer', [['not the layer run', 3, 'range'], ['NaN', N('NaN'), 'range'], ['string', '0', 'type']]],
        ['submitted[0].result.passRate', [['NaN', N('NaN'), 'range'], ['above the maximum', 1.5, 'range'], ['string', '1', 'type']]],
      ],
      unknown: [['extra', 1]],
    },
  };
  for (const [engine, plan] of Object.entries(plans)) {
    const { vector, snapshot } = snapshotBase(engine);
    const setup = vector.calls.slice(0, vector.calls.findIndex((c) => c.call === 'toJSON' && c.returns === snapshot) + 1).map(({ saveAs, ...c }) => c);
    const probe = [call('toJSON')];
    const cases = [];
    for (const [p, list] of plan.fields) for (const [kase, value, kind, only] of list) cases.push([p, kase, value, kind, only, 'invalid_snapshot']);
    for (const [p, value] of plan.unknown) cases.push([p, 'unknown key', value, 'type', undefined, 'invalid_snapshot']);
    for (const [p, kase, value, kind, only, code] of cases) {
      const snap = clone(snapshot);
      try { setPath(snap, p, value); } catch { throw new Error(`${engine} snapshot has no ${p}`); }
      row('Snapshot', `${engine}.fromJSON`, p, kase, value, code, kind, only,
        { engine, construct: vector.construct, calls: [...setup, { ...call('fromJSON', snap), expect: T(code, p, kind) }, ...probe] }, engine !== 'EarlyStopping' || !p.includes('plateauMode') && !p.includes('maxIterations'));
    }
    for (const [kase, value, kind] of [['not JSON text', '{"version": 1,', 'range'], ['empty text', '', 'range'], ['JSON text of a number', '5', 'type'], ['number', 5, 'type'], ['array', [], 'type']]) {
      row('Snapshot', `${engine}.fromJSON`, 'snapshot', kase, value, 'invalid_snapshot', kind, undefined,
        { engine, construct: vector.construct, calls: [...setup, { ...call('fromJSON', value), expect: T('invalid_snapshot', 'snapshot', kind) }, ...probe] });
    }
    // Another engine's whole snapshot: named by its engine before its own keys are checked.
    const other = snapshotBase(engine === 'PyramidRun' ? 'EarlyStopping' : 'PyramidRun').snapshot;
    row('Snapshot', `${engine}.fromJSON`, 'engine', 'another engine\'s whole snapshot', other.engine, 'invalid_snapshot', 'range', undefined,
      { engine, construct: vector.construct, calls: [...setup, { ...call('fromJSON', clone(other)), expect: T('invalid_snapshot', 'engine', 'range') }, ...probe] }, false);
  }
  strictSnapshots();
}

// `strictIterations` on restore (docs/loop-options.md): the history follows the engine's rule
// (each iteration greater than the one before it) from `strictIterationsFrom` on, or
// throughout without that key; the key is an integer within the history's length, only with
// the option on. The reference has no such option (hand rows).
function strictSnapshots() {
  const { vector, snapshot } = snapshotBase('EarlyStopping');
  const setup = vector.calls.slice(0, vector.calls.findIndex((c) => c.call === 'toJSON' && c.returns === snapshot) + 1).map(({ saveAs, ...c }) => c);
  const strict = clone(snapshot);
  strict.config.strictIterations = true;
  const n = strict.history.length;
  const last = `history[${n - 1}].iteration_number`;
  const add = (field, kase, value, kind, snap) =>
    row('Snapshot', 'EarlyStopping.fromJSON', field, kase, value, 'invalid_snapshot', kind, undefined,
      { engine: 'EarlyStopping', construct: vector.construct, calls: [...setup, { ...call('fromJSON', snap), expect: T('invalid_snapshot', field, kind) }, call('toJSON')] }, false);
  const patched = (iteration, from) => {
    const snap = clone(strict);
    if (iteration !== undefined) snap.history[n - 1].iteration_number = iteration;
    if (from !== undefined) snap.strictIterationsFrom = from;
    return snap;
  };
  const before = strict.history[n - 2].iteration_number;
  add(last, 'repeats the one before it under strictIterations', before, 'range', patched(before));
  add(last, 'goes back under strictIterations', 1, 'range', patched(1));
  add(last, 'repeats after strictIterationsFrom', before, 'range', patched(before, n - 1));
  for (const [kase, value, kind] of [['string', String(n), 'type'], ['boolean', true, 'type'], ['object', {}, 'type'], ['non-integer', 1.5, 'range'],
    ['negative', -1, 'range'], ['past the history', n + 1, 'range'], ['NaN', N('NaN'), 'range'], ['Infinity', N('Infinity'), 'range']]) {
    add('strictIterationsFrom', kase, value, kind, patched(undefined, value));
  }
  add('strictIterationsFrom', 'without strictIterations', n, 'range', { ...clone(snapshot), strictIterationsFrom: n });
}

// Stop policies (docs/loop-policies.md): a bad policy given to the engine, and a bad policy
// (or artifact digest) in a snapshot. The model does not run policies (hand rows). Fields are
// the path inside the policy under `policy`, spelt alike in every language (the tree's keys
// are snake_case everywhere). `null` is "no policy" in every language, so no null rows.
const HC = { condition: 'high_confidence' };
const BAD_POLICIES = [
  // An unknown key is `unknown_option` (as in a config), `invalid_snapshot` in a snapshot.
  ['unknown key', 'policy.anny', { any: [HC], anny: 1 }, 'type', 'unknown_option'],
  ['unknown key in a condition', 'policy.any[0].limt', { any: [{ condition: 'max_iterations', limit: 3, limt: 1 }] }, 'type', 'unknown_option'],
  ['string for an integer, nested', 'policy.any[1].patience', { any: [HC, { condition: 'no_improvement', patience: '3' }] }, 'type'],
  ['boolean for an integer, two levels down', 'policy.all[0].any[0].limit', { all: [{ any: [{ condition: 'max_iterations', limit: true }] }] }, 'type'],
  ['patience 0', 'policy.any[1].patience', { any: [HC, { condition: 'no_improvement', patience: 0 }] }, 'range'],
  ['missing setting', 'policy.any[0].limit', { any: [{ condition: 'max_iterations' }] }, 'type'],
  ['k_of above the children', 'policy.k_of', { k_of: 3, of: [HC, { condition: 'max_iterations', limit: 3 }] }, 'range'],
  ['k_of 0', 'policy.k_of', { k_of: 0, of: [HC] }, 'range'],
  ['k_of non-integer', 'policy.k_of', { k_of: 1.5, of: [HC] }, 'range'],
  ['k_of as a string', 'policy.k_of', { k_of: '1', of: [HC] }, 'type'],
  ['not_before below 0', 'policy.not_before', { not_before: -1, then: HC }, 'range'],
  ['not_before non-integer', 'policy.not_before', { not_before: 1.5, then: HC }, 'range'],
  ['not_before without then', 'policy.then', { not_before: 2 }, 'type'],
  ['unknown condition', 'policy.any[0].condition', { any: [{ condition: 'bogus' }] }, 'range'],
  ['unknown condition name', 'policy.any[0]', { any: ['bogus'] }, 'range'],
  ['condition without a kind', 'policy.any[0]', { any: [{ limit: 3 }] }, 'type'],
  ['unknown returns', 'policy.returns', { returns: 'worst', any: [HC] }, 'range'],
  ['returns a number', 'policy.returns', { returns: 5, any: [HC] }, 'type'],
  ['any not an array', 'policy.any', { any: 5 }, 'type'],
  ['analytics (replay only)', 'policy.analytics', { any: [HC], analytics: true }, 'range'],
  ['number', 'policy', 5, 'type'],
  ['array', 'policy', [], 'type'],
];
function stopPolicies() {
  for (const [kase, field, policy, kind, code = 'invalid_config'] of BAD_POLICIES) {
    row('StopPolicy', 'new EarlyStopping', field, kase, policy, code, kind, undefined,
      { engine: 'EarlyStopping', construct: { config: null, analytics: null, policy }, calls: [], expectThrows: { code, field, kind } }, false);
  }
  // In a snapshot: the same paths under invalid_snapshot (what `toJSON()` of an engine under a
  // policy writes, with one value broken), and the artifact digest the command's state file keeps.
  const { vector, snapshot } = snapshotBase('EarlyStopping');
  const setup = vector.calls.slice(0, vector.calls.findIndex((c) => c.call === 'toJSON' && c.returns === snapshot) + 1).map(({ saveAs, ...c }) => c);
  const inSnapshot = [
    ...BAD_POLICIES.filter(([kase]) => kase !== 'analytics (replay only)').map(([kase, field, policy, kind]) => [kase, field, { policy }, kind]),
    ['not a digest', 'policyArtifact', { policyArtifact: 'abc' }, 'range'],
    ['upper-case digest', 'policyArtifact', { policyArtifact: 'AB'.repeat(32) }, 'range'],
    ['number', 'policyArtifact', { policyArtifact: 5 }, 'type'],
  ];
  for (const [kase, field, extra, kind] of inSnapshot) {
    const snap = { ...clone(snapshot), ...clone(extra) };
    row('Snapshot', 'EarlyStopping.fromJSON', field, kase, Object.values(extra)[0], 'invalid_snapshot', kind, undefined,
      { engine: 'EarlyStopping', construct: vector.construct, calls: [...setup, { ...call('fromJSON', snap), expect: T('invalid_snapshot', field, kind) }, call('toJSON')] }, false);
  }
}

// The progress signals (docs/loop-policies.md "Progress signals"): a record's `fingerprint`
// (a string of at most 256 characters) and `completed` (a boolean), and the settings of the
// conditions that read them. Hand rows (the model does not run policies), for every binding.
const PROGRESS_ONLY = ['rust', 'python', 'js'];
function progressSignals() {
  const base = { config: null, analytics: null };
  const good = res(80, 0.5, 'failed', 0, { timestamp: ts(2) });
  for (const [field, kase, value, kind] of [
    ['fingerprint', 'over 256 characters', 'x'.repeat(257), 'range'],
    ['fingerprint', 'number', 5, 'type'], ['fingerprint', 'boolean', true, 'type'],
    ['fingerprint', 'array', ['a'], 'type'], ['fingerprint', 'object', {}, 'type'],
    ['completed', 'string', 'yes', 'type'], ['completed', 'number', 1, 'type'],
  ]) {
    row('IterationResult', 'recordIterationResult', field, kase, value, 'invalid_result', kind, PROGRESS_ONLY,
      { engine: 'EarlyStopping', construct: base,
        calls: [rec(1, 60, 0.5, 'failed', 0), { call: 'recordIterationResult', args: [2, { ...good, [field]: value }], expect: T('invalid_result', field, kind) }, ...loopProof(2)] }, false);
  }
  for (const [kase, field, policy, kind] of [
    ['unchanged k 0', 'policy.any[0].k', { any: [{ condition: 'unchanged', k: 0 }] }, 'range'],
    ['unchanged k non-integer', 'policy.any[0].k', { any: [{ condition: 'unchanged', k: 1.5 }] }, 'range'],
    ['unchanged without k', 'policy.any[0].k', { any: [{ condition: 'unchanged' }] }, 'type'],
    ['unchanged k as a string', 'policy.any[0].k', { any: [{ condition: 'unchanged', k: '3' }] }, 'type'],
    ['revisit window 1', 'policy.any[0].window', { any: [{ condition: 'revisit', window: 1 }] }, 'range'],
    ['revisit window non-integer', 'policy.any[0].window', { any: [{ condition: 'revisit', window: 2.5 }] }, 'range'],
    ['revisit without window', 'policy.any[0].window', { any: ['revisit'] }, 'type'],
  ]) {
    row('StopPolicy', 'new EarlyStopping', field, kase, policy, 'invalid_config', kind, PROGRESS_ONLY,
      { engine: 'EarlyStopping', construct: { config: null, analytics: null, policy }, calls: [], expectThrows: { code: 'invalid_config', field, kind } }, false);
  }
}

// Loop, the refine-loop helper (docs/loop-helper.md): its options and each step's arguments,
// JS spellings. Hand rows for the JS suites (the model does not run the helper); each bad call
// follows a good step, and the suites' snapshot comparison proves the loop unchanged.
const LOOP_HELPER_ONLY = ['js'];
const LOOP_FIRST_DECISION = {
  stop: false, reason: 'Continuing iteration - no stopping criteria met', confidence: 0.7, trigger: 'none',
  best_iteration: 1, best_quality_score: 50, fired: [],
};
function loopHelper() {
  const options = (field, value) => (value === MISSING ? {} : { [field]: value });
  const optionCases = [
    ['scale', 'not 1 or 100', 10, 'range'], ['scale', 'zero', 0, 'range'], ['scale', 'NaN', N('NaN'), 'range'],
    ['scale', 'number as a string', '1', 'type'], ['scale', 'boolean', true, 'type'],
    ['maxIterations', 'zero', 0, 'range'], ['maxIterations', 'non-integer', 2.5, 'range'], ['maxIterations', 'string', '3', 'type'],
    ['task', 'number', 17, 'type'], ['task', 'object', {}, 'type'],
    ['dataset', 'number', 1, 'type'], ['dataset', 'array', ['d'], 'type'],
    ['runLabel', 'boolean', false, 'type'],
    ['fingerprintOf', 'string', 'sha256', 'type'], ['fingerprintOf', 'number', 1, 'type'],
  ];
  for (const [field, kase, value, kind] of optionCases) {
    row('LoopOptions', 'new Loop', field, kase, value, 'invalid_config', kind, LOOP_HELPER_ONLY,
      { engine: 'Loop', construct: { options: options(field, value) }, calls: [], expectThrows: { code: 'invalid_config', field, kind } }, false);
  }
  row('LoopOptions', 'new Loop', 'maxIteration', 'unknown key', 3, 'unknown_option', 'type', LOOP_HELPER_ONLY,
    { engine: 'Loop', construct: { options: { maxIteration: 3 } }, calls: [], expectThrows: { code: 'unknown_option', field: 'maxIteration', kind: 'type' } }, false);
  const stepCases = [
    ['quality', 'above the scale', 100.5, 'range'], ['quality', 'below 0', -1, 'range'], ['quality', 'NaN', N('NaN'), 'range'],
    ['quality', 'string', '50', 'type'], ['quality', 'missing', MISSING, 'type'],
    ['fingerprint', 'over 256 characters', 'x'.repeat(257), 'range'], ['fingerprint', 'number', 5, 'type'], ['fingerprint', 'object', {}, 'type'],
    ['confidence', 'above 1', 1.5, 'range'], ['verified', 'unknown status', 'green', 'range'], ['done', 'string', 'yes', 'type'],
    ['good', 'number', 1, 'type'], ['tokens', 'negative', -1, 'range'], ['costUsd', 'Infinity', N('Infinity'), 'range'],
    ['timeMs', 'string', '5', 'type'], ['error', 'number', 3, 'type'], ['files', 'string', 'a.py', 'type'],
  ];
  for (const [field, kase, value, kind] of stepCases) {
    const args = value === MISSING ? {} : { quality: 60, [field]: value };
    row('LoopStep', 'Loop.step', field, kase, value, 'invalid_result', kind, LOOP_HELPER_ONLY,
      { engine: 'Loop', construct: { options: {} },
        calls: [{ ...call('step', 'first', { quality: 50 }), returns: LOOP_FIRST_DECISION }, { call: 'step', args: ['second', args], expect: T('invalid_result', field, kind) }] }, false);
  }
  row('LoopStep', 'Loop.step', 'cost_usd', 'snake_case spelling', 1, 'unknown_option', 'type', LOOP_HELPER_ONLY,
    { engine: 'Loop', construct: { options: {} },
      calls: [{ ...call('step', 'first', { quality: 50 }), returns: LOOP_FIRST_DECISION }, { call: 'step', args: ['second', { quality: 60, cost_usd: 1 }], expect: T('unknown_option', 'cost_usd', 'type') }] }, false);
  row('LoopFinish', 'Loop.finish', 'good', 'string', 'yes', 'invalid_result', 'type', LOOP_HELPER_ONLY,
    { engine: 'Loop', construct: { options: {} },
      calls: [{ ...call('step', 'first', { quality: 50 }), returns: LOOP_FIRST_DECISION }, { call: 'finish', args: ['yes'], expect: T('invalid_result', 'good', 'type') }] }, false);
}

// Composed candidates of a loop calibration (`calibrateLoopPolicy(runs, {candidates})`): the
// same bad trees as the second candidate, after a good one, named under `candidates[1]`.
const CALIBRATION_RUNS = [{ id: 'a', iterations: [
  { quality_score: 0, confidence: 0, verification_status: 'failed' },
  { quality_score: 100, confidence: 1, verification_status: 'passed' },
] }];
function calibrationCandidates() {
  const good = { returns: 'best', any: [HC, { condition: 'no_improvement', patience: 3 }] };
  for (const [kase, field, policy, kind, code = 'invalid_config'] of BAD_POLICIES) {
    if (kase === 'analytics (replay only)') continue; // a replay policy may attach the analytics
    const at = field === 'policy' ? 'candidates[1]' : field.replace(/^policy\./, 'candidates[1].');
    const options = { risk: 0.05, delta: 0.1, candidates: [good, policy] };
    row('LoopCalibrationOptions', 'calibrateLoopPolicy', at, kase, policy, code, kind, undefined,
      { engine: 'calibrateLoopPolicy', construct: {}, calls: [{ ...call('calibrateLoopPolicy', CALIBRATION_RUNS, options), expect: T(code, at, kind) }] }, false);
  }
}

// A risk no count of tasks up to 2^53 certifies (1 - risk rounds to 1): refused naming `risk`
// (docs/limits.md), never a count without end.
function calibrationRisk() {
  const options = { risk: 1e-17, delta: 0.1 };
  row('LoopCalibrationOptions', 'calibrateLoopPolicy', 'risk', 'too small to certify', 1e-17, 'invalid_config', 'range', undefined,
    { engine: 'calibrateLoopPolicy', construct: {}, calls: [{ ...call('calibrateLoopPolicy', CALIBRATION_RUNS, options), expect: T('invalid_config', 'risk', 'range') }] }, false);
}

// The loop lifecycle (docs/lifecycle.md): `promoteLoopPolicy(artifact, auditRuns, now)` and
// `checkLoopDrift(artifact, runs, now)` (engine `loopLifecycle`, stateless; the suites answer
// `{promoted}` / `{status}` only), and a shadow candidate given to `new Loop({..., shadow})`.
// Hand rows, run by every suite; each bad lifecycle call is followed by the same call with good
// arguments, whose answer must be the one it has without the bad call. Paths name the
// documents as written (`auditRuns` and a run's snake_case keys in every language).
const LOOP_ARTIFACT = {
  kind: 'loop', schemaVersion: 1, policy: { config: { maxIterations: 5 }, returns: 'best' }, risk: 0.1, delta: 0.1,
  certificate: { method: 'learn-then-test', hypotheses: [], sampleSizes: { runs: 3 } }, corpusSha256: 'a'.repeat(64),
  createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-04-01T00:00:00.000Z', promotion: null,
  body: { tasks: [['d', 't0'], ['d', 't1'], ['d', 't2']] },
};
const GOOD_ITERATIONS = [
  { quality_score: 95, confidence: 0.95, verification_status: 'passed', good: true },
  { quality_score: 96, confidence: 0.96, verification_status: 'passed', good: true },
];
const lifecycleRun = (id, extra = {}) => ({ id, dataset: 'd', iterations: GOOD_ITERATIONS, ...extra });
// Two audit tasks no calibration task shares: not promoted (the exact bound of 0 of 2 at delta
// 0.1 is 0.68, above the risk 0.1); the drift check on them is fresh.
const AUDIT = [lifecycleRun('t3'), lifecycleRun('t4')];
const LIFECYCLE_NOW = '2026-01-02T00:00:00Z';
function loopLifecycle() {
  const probes = {
    promoteLoopPolicy: { ...call('promoteLoopPolicy', LOOP_ARTIFACT, AUDIT, LIFECYCLE_NOW), returns: { promoted: false } },
    checkLoopDrift: { ...call('checkLoopDrift', LOOP_ARTIFACT, AUDIT, LIFECYCLE_NOW), returns: { status: 'fresh' } },
  };
  const artifactCases = [
    ['kind', 'a pyramid artifact', ARTIFACT, 'invalid_artifact', 'range'],
    ['kind', 'unknown kind', { ...LOOP_ARTIFACT, kind: 'bogus' }, 'invalid_artifact', 'range'],
    ['kind', 'kind a number', { ...LOOP_ARTIFACT, kind: 1 }, 'invalid_artifact', 'type'],
    ['artifact', 'a number', 5, 'invalid_artifact', 'type'],
    ['artifact', 'JSON text cut short', '{"kind": "loop"', 'invalid_artifact', 'range'],
    ['risk', 'risk as a string', { ...LOOP_ARTIFACT, risk: '0.1' }, 'invalid_artifact', 'type'],
    ['policy.bogus', 'a policy with an unknown key', { ...LOOP_ARTIFACT, policy: { bogus: 1 } }, 'invalid_artifact', 'type'],
  ];
  const promoteOnly = [
    // Promotion needs the calibration tasks to show the audit split disjoint (the drift check
    // reads them only for its dataset reason).
    ['body.tasks', 'no calibration tasks', { ...LOOP_ARTIFACT, body: {} }, 'invalid_artifact', 'range'],
    ['body.tasks', 'a task not a [dataset, id] pair of strings', { ...LOOP_ARTIFACT, body: { tasks: [[1, 2]] } }, 'invalid_artifact', 'range'],
  ];
  const runsCases = [
    ['runs', 'a number', 5, 'type'],
    ['runs', 'an object', {}, 'type'],
    ['runs[0]', 'a run not an object', [5], 'type'],
    ['runs[0]', 'JSONL text cut short', '{"id":', 'range'],
    ['runs[0].id', 'a run without id', [{ iterations: GOOD_ITERATIONS }], 'type'],
    ['runs[0].dataset', 'dataset a number', [lifecycleRun('t5', { dataset: 4 })], 'type'],
    ['runs[0].iterations', 'iterations a string', [lifecycleRun('t5', { iterations: 'a' })], 'type'],
    ['runs[0].iterations[0].quality_score', 'quality_score a string', [lifecycleRun('t5', { iterations: [{ ...GOOD_ITERATIONS[0], quality_score: '95' }] })], 'type'],
    ['runs[0].iterations[0].quality_score', 'quality_score NaN', [lifecycleRun('t5', { iterations: [{ ...GOOD_ITERATIONS[0], quality_score: N('NaN') }] })], 'range'],
    ['runs[0].iterations[0].good', 'good a string', [lifecycleRun('t5', { iterations: [{ ...GOOD_ITERATIONS[0], good: 'yes' }] })], 'type'],
    ['runs[0].bogus', 'an unknown key', [lifecycleRun('t5', { bogus: 1 })], 'type'],
  ];
  const nowCases = [
    ['not a date', 'tomorrow', 'range'], ['boolean', true, 'type'], ['non-integer milliseconds', 1.5, 'range'], ['an object', {}, 'type'],
  ];
  const add = (via, field, kase, args, value, code, kind) => {
    row('LoopLifecycle', via, field, kase, value, code, kind, undefined,
      { engine: 'loopLifecycle', construct: {}, calls: [{ ...call(via, ...args), expect: T(code, field, kind) }, probes[via]] }, false);
  };
  for (const via of ['promoteLoopPolicy', 'checkLoopDrift']) {
    for (const [field, kase, artifact, code, kind] of via === 'promoteLoopPolicy' ? artifactCases.concat(promoteOnly) : artifactCases) {
      add(via, field, kase, [artifact, AUDIT, LIFECYCLE_NOW], artifact, code, kind);
    }
    for (const [field, kase, runs, kind] of runsCases) add(via, field, kase, [LOOP_ARTIFACT, runs, LIFECYCLE_NOW], runs, 'invalid_replay', kind);
    for (const [kase, now, kind] of nowCases) add(via, 'now', kase, [LOOP_ARTIFACT, AUDIT, now], now, 'invalid_config', kind);
  }
  // An audit split that shares a task (d/t1) with the calibration corpus.
  const overlapping = [lifecycleRun('t3'), lifecycleRun('t1')];
  add('promoteLoopPolicy', 'auditRuns', 'shares a task with calibration', [LOOP_ARTIFACT, overlapping, LIFECYCLE_NOW], overlapping, 'invalid_replay', 'range');

  // A shadow candidate (`new Loop({policy, shadow})`, Python `Loop(policy=..., shadow=...)`).
  const capped = { any: [{ condition: 'max_iterations', limit: 5 }] };
  // An artifact current until 2099 (the loop reads the clock), not promoted: its calibrated
  // policy runs in shadow itself, so no other candidate may.
  const current = { ...LOOP_ARTIFACT, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2099-01-01T00:00:00.000Z' };
  const shadowCases = [
    ['shadow', 'an enforced policy without a hard cap', { policy: { any: [{ condition: 'no_improvement', patience: 3 }] }, shadow: 'recommended' }, 'invalid_config', 'range'],
    ['shadow', 'the default policy (no hard cap)', { shadow: 'recommended' }, 'invalid_config', 'range'],
    ['shadow', "the 'seed' preset enforced (no hard cap)", { preset: 'seed', shadow: 'recommended' }, 'invalid_config', 'range'],
    ['shadow', 'a number', { policy: capped, shadow: 5 }, 'invalid_config', 'type'],
    ['shadow', 'a boolean', { policy: capped, shadow: true }, 'invalid_config', 'type'],
    ['shadow', 'an array', { policy: capped, shadow: [] }, 'invalid_config', 'type'],
    ['shadow', 'an unknown preset', { policy: capped, shadow: 'bogus' }, 'invalid_config', 'range'],
    ['shadow.kind', 'a pyramid artifact', { policy: capped, shadow: ARTIFACT }, 'invalid_artifact', 'range'],
    ['shadow.any[0].condition', 'a policy with an unknown condition', { policy: capped, shadow: { any: [{ condition: 'bogus' }] } }, 'invalid_config', 'range'],
    ['shadow', 'beside an artifact not promoted', { artifact: current, shadow: 'recommended' }, 'invalid_config', 'range'],
  ];
  for (const [field, kase, options, code, kind] of shadowCases) {
    row('LoopShadow', 'new Loop', field, kase, options.shadow, code, kind, undefined,
      { engine: 'Loop', construct: { options }, calls: [], expectThrows: { code, field, kind } }, false);
  }
  // The engine's shadow candidate (Python `EarlyStopping(shadow=...)`, JS the third argument's
  // `shadow`; construct key `shadow`).
  const cappedConfig = { maxIterations: 10 };
  const engineCases = [
    ['shadow', 'the default config (no hard cap)', { config: null }, 'recommended', 'invalid_config', 'range'],
    ['shadow', 'a policy without a hard cap beside a capped config', { config: cappedConfig, policy: { any: [{ condition: 'no_improvement', patience: 3 }] } }, 'recommended', 'invalid_config', 'range'],
    ['shadow', 'a number', { config: cappedConfig }, 5, 'invalid_config', 'type'],
    ['shadow', 'an array', { config: cappedConfig }, [], 'invalid_config', 'type'],
    ['shadow', 'an unknown preset', { config: cappedConfig }, 'bogus', 'invalid_config', 'range'],
    ['shadow.kind', 'a pyramid artifact', { config: cappedConfig }, ARTIFACT, 'invalid_artifact', 'range'],
    ['shadow.any[0].condition', 'a policy with an unknown condition', { config: cappedConfig }, { any: [{ condition: 'bogus' }] }, 'invalid_config', 'range'],
  ];
  for (const [field, kase, construct, shadow, code, kind] of engineCases) {
    row('LoopShadow', 'new EarlyStopping', field, kase, shadow, code, kind, undefined,
      { engine: 'EarlyStopping', construct: { analytics: null, ...construct, shadow }, calls: [], expectThrows: { code, field, kind } }, false);
  }
}

// The JUnit / Cobertura reader's arguments: `readJunit(text, { coverageXml })` (engine
// `readJunit`, stateless; Python `read_junit(source, coverage_xml=None)`). The reader is the
// command's crate (earlyexit-junit), which the core's harness cannot link: the rows are the
// bindings' (`only` without "rust"). JS names the report `text`, Python `source`
// (`JUNIT_PY_FIELD`). Each bad call is followed by a good one, whose answer must be unchanged.
// Python has no options object (keywords: a misspelt one is Python's own TypeError) and reads
// `bytes` and paths besides text (a file that cannot be opened is Python's own OSError, outside
// this matrix, as docs/limits.md says).
const JUNIT_REPORT = '<testsuite name="unit"><testcase name="a"/><testcase name="b"><failure/></testcase></testsuite>';
const JUNIT_PY_FIELD = { text: 'source', coverageXml: 'coverage_xml' };
const BINDINGS = ['js', 'python'];
function junitArguments() {
  const probe = { ...call('readJunit', JUNIT_REPORT, null), returns: { passRate: 0.5, total: 2 } };
  const add = (field, kase, args, value, code, kind, only) => {
    row('JunitArguments', 'readJunit', field, kase, value, code, kind, only,
      { engine: 'readJunit', construct: {}, calls: [{ ...call('readJunit', ...args), expect: T(code, field, kind) }, probe] }, false);
  };
  const LAYER = 'invalid_layer_result';
  for (const [kase, text, only] of [['number', 5, BINDINGS], ['boolean', true, BINDINGS], ['object', {}, BINDINGS],
    ['array', [JUNIT_REPORT], BINDINGS], ['null', null, BINDINGS]]) {
    add('text', kase, [text, null], text, LAYER, 'type', only);
  }
  // The report left out: Python's own TypeError (a positional argument).
  row('JunitArguments', 'readJunit', 'text', 'missing', MISSING, LAYER, 'type', ['js'],
    { engine: 'readJunit', construct: {}, calls: [{ ...call('readJunit'), expect: T(LAYER, 'text', 'type') }, probe] }, false);
  // Bytes that are not UTF-8 (Latin-1 'é'): Python only (a JS string is text already).
  const latin1 = { $bytes: Buffer.from('<testsuite name="caf\u00e9"><testcase name="a"/></testsuite>', 'latin1').toString('hex') };
  add('text', 'bytes not UTF-8', [latin1, null], latin1, LAYER, 'range', ['python']);
  for (const [kase, options] of [['number', 5], ['string', 'x'], ['boolean', true], ['array', []]]) {
    add('options', kase, [JUNIT_REPORT, options], options, 'invalid_config', 'type', ['js']);
  }
  for (const [kase, xml] of [['number', 0.5], ['boolean', true], ['object', {}], ['array', ['<coverage/>']]]) {
    add('coverageXml', kase, [JUNIT_REPORT, { coverageXml: xml }], xml, LAYER, 'type', BINDINGS);
  }
  for (const key of ['coverageXML', 'coverage_xml', 'coverage']) {
    add(key, 'an unknown option', [JUNIT_REPORT, { [key]: '<coverage line-rate="0.5"/>' }], '<coverage line-rate="0.5"/>', 'unknown_option', 'type', ['js']);
  }
  // Reports the reader refuses (its rules: docs/cli.md, docs/limits.md), named by the argument.
  const refused = [
    ['text', 'not a JUnit report', '<html><body/></html>'],
    ['text', 'not well-formed XML', '<testsuite name="unit"><testcase name="a">'],
    ['text', 'only skipped tests', '<testsuite name="unit"><testcase name="a"><skipped/></testcase></testsuite>'],
    ['text', 'a DOCTYPE declaring an entity', '<!DOCTYPE t [<!ENTITY a "aaaa">]><testsuite name="&a;"><testcase name="a"/></testsuite>'],
    ['text', 'empty', ''],
  ];
  for (const [field, kase, text] of refused) add(field, kase, [text, null], text, LAYER, 'range', BINDINGS);
  for (const [kase, xml] of [['a line-rate above 1', '<coverage line-rate="1.5"/>'], ['not a Cobertura file', '<testsuite/>'], ['not well-formed XML', '<coverage line-rate="0.5">']]) {
    add('coverageXml', kase, [JUNIT_REPORT, { coverageXml: xml }], xml, LAYER, 'range', BINDINGS);
  }
}

// ---------------------------------------------------------------------------------------------
// The run store (docs/store.md): `Store.open(url)`, `addRun`, `runs`, the receipt logs,
// artifacts, models and a `Loop`'s store options (engine `Store`; Python `earlyexit.Store`
// with snake_case methods and keywords, `Loop(store=..., run_label=..., receipt_log=...)`).
// The wasm build has no Store, and the core's suite no SQLite: the rows are the native
// bindings' (`only` "node" and "python"; "node" is the napi addon, which every Store method
// answers through a Promise). Each scenario opens a fresh store in a temporary folder and
// adds one run (`construct.runs`), makes the bad call and then its good twin, which answers
// as it would have; the suites also compare the store's `check()` counts around the bad
// call. Placeholders: "$dir" inside an `open` URL is the temporary folder, the string
// "$store" as a Loop's `store` is the open store. Expectations follow docs/api-conventions.md
// ("Errors"): an argument that is not a name (log, artifact and model names, `runLabel`,
// `runId`, `dataset`) is `invalid_config`, a run `invalid_replay` at its path under `run`.
const NATIVE = ['node', 'python'];
const STORE_RUN_IT = [{ quality_score: 95, confidence: 0.9, verification_status: 'passed' }];
const STORE_SEED = { runs: [{ run: { id: 'seed', iterations: STORE_RUN_IT }, runLabel: 'seed' }] };
const STORE_MODEL = { version: 2, engine: 'PyramidOutcomeModel', window: 5, builds: [{ id: 'a', seq: 1, layers: [{ name: 'unit', failed: false }] }] };
const STORE_TWIN = {
  open: { ...call('open', 'sqlite:$dir/other.db'), returns: { opened: true } },
  addRun: { ...call('addRun', { id: 'good', iterations: STORE_RUN_IT }, { runLabel: 'good' }), returns: true },
  runs: { ...call('runs', { runLabel: 'seed' }), returns: { count: 1 } },
  appendReceipts: { ...call('appendReceipts', 'good', [receipt('correct_skip', { runId: 'b1' })]), returns: 1 },
  verifyReceipts: { ...call('verifyReceipts', 'good'), returns: { valid: true, receipts: 0 } },
  receiptLog: { ...call('receiptLog', 'good'), returns: { lines: 0 } },
  putArtifact: { ...call('putArtifact', 'good', LOOP_ARTIFACT), returns: { kind: 'loop' } },
  artifact: { ...call('artifact', 'good'), returns: { found: false } },
  mergeModel: { ...call('mergeModel', 'good', STORE_MODEL), returns: { builds: 1 } },
  model: { ...call('model', 'good'), returns: { found: false } },
  newLoop: { ...call('newLoop', { store: '$store', runLabel: 'good' }), returns: { made: true } },
};
function storeRows() {
  const add = (input, via, field, kase, value, args, code, kind, only = NATIVE) => {
    const method = via.replace(/^Store\.|^store\./, '').replace('new Loop', 'newLoop');
    row(input, via, field, kase, value, code, kind, only,
      { engine: 'Store', construct: STORE_SEED, calls: [{ ...call(method, ...args), expect: T(code, field, kind) }, STORE_TWIN[method]] }, false);
  };
  const CONFIG = 'invalid_config';
  const REPLAY = 'invalid_replay';
  // Store.open(url): every bad URL names `store`.
  for (const [kase, url, kind, only] of [
    ['empty', '', 'range'], ['unknown scheme', 'mysql://db.example/runs', 'range'], ['sqlite: with no path', 'sqlite:', 'range'],
    ['a directory', 'sqlite:$dir', 'range'], ['a folder that does not exist', 'sqlite:$dir/none/runs.db', 'range'],
    ['postgresql:// (the command serves PostgreSQL)', 'postgresql://ci:secret@db.example/runs', 'range'],
    ['postgres:// (the command serves PostgreSQL)', 'postgres://db.example/runs', 'range'],
    ['huge (a 5,000-character file name)', `sqlite:$dir/${'a'.repeat(5000)}.db`, 'range'],
    ['number', 5, 'type'], ['boolean', true, 'type'], ['object', {}, 'type'], ['array', ['sqlite:runs.db'], 'type'], ['null', null, 'type', ['node']],
  ]) add('StoreUrl', 'Store.open', 'store', kase, url, [url], CONFIG, kind, only);
  add('StoreUrl', 'Store.open', 'store', 'missing', MISSING, [], CONFIG, 'type', ['node']);

  // addRun(run, {runLabel, runId}) / add_run(run, run_label=, dataset=, run_id=).
  const RUN = { id: 'new', iterations: STORE_RUN_IT };
  const runCases = [
    ['run', 'number', 5, 'type'], ['run', 'array', [RUN], 'type'], ['run', 'boolean', true, 'type'], ['run', 'null', null, 'type', ['node']],
    ['run', 'not JSON text', '{"id": "new",', 'range'],
    ['run.id', 'missing', patched(RUN, 'id', MISSING), 'type'], ['run.id', 'boolean', patched(RUN, 'id', true), 'type'],
    ['run.iterations', 'missing', patched(RUN, 'iterations', MISSING), 'type'], ['run.iterations', 'object', patched(RUN, 'iterations', {}), 'type'],
    // A run is a JSONL document: every problem in it, an unknown key too, is `invalid_replay`.
    ['run.bogus', 'an unknown key', { ...RUN, bogus: 1 }, 'type'],
  ];
  for (const [f, kase, value, kind] of [
    ['quality_score', 'NaN', N('NaN'), 'range'], ['quality_score', 'above the maximum', 100.5, 'range'], ['quality_score', 'number as a string', '95', 'type'],
    ['confidence', 'above the maximum', 1.5, 'range'], ['verification_status', 'unknown value', 'bogus', 'range'],
    ['verification_status', 'wrong case', 'PASSED', 'range'], ['verification_status', 'missing', MISSING, 'type'],
  ]) runCases.push([`run.iterations[0].${f}`, kase, { ...RUN, iterations: [patched(STORE_RUN_IT[0], f, value)] }, kind]);
  for (const [field, kase, value, kind, only = NATIVE, code = REPLAY] of runCases) {
    add('StoreRun', 'store.addRun', field, kase, value, [value], code, kind, only);
  }
  // null is "not given" in an options object (a Loop without a runLabel passes one).
  for (const [kase, label, kind, only] of [['empty', '', 'range'], ['257 characters', 'x'.repeat(257), 'range'], ['number', 5, 'type'],
    ['boolean', true, 'type'], ['object', {}, 'type']]) {
    add('StoreRun', 'store.addRun', 'runLabel', kase, label, [RUN, { runLabel: label }], CONFIG, kind, only);
    add('StoreRun', 'store.addRun', 'runId', kase, label, [RUN, { runId: label }], CONFIG, kind, only);
    // Python's add_run takes the run's dataset beside it (Node's addRun has no `dataset`).
    add('StoreRun', 'store.addRun', 'dataset', kase, label, [RUN, { dataset: label }], CONFIG, kind, ['python']);
  }
  add('StoreRun', 'store.addRun', 'dataset', "another than the run's", 'other', [{ ...RUN, dataset: 'mine' }, { dataset: 'other' }], REPLAY, 'range', ['python']);
  add('StoreRun', 'store.addRun', 'runId', 'the id of another run', '$seedId', [RUN, { runId: '$seedId' }], REPLAY, 'range');
  for (const [kase, options] of [['number', 5], ['string', 'x'], ['array', []]]) {
    add('StoreRun', 'store.addRun', 'options', kase, options, [RUN, options], CONFIG, 'type', ['node']);
  }
  add('StoreRun', 'store.addRun', 'run_label', 'an unknown option (another spelling)', 'x', [RUN, { run_label: 'x' }], 'unknown_option', 'type', ['node']);

  // runs({runLabel, dataset, since, limit}) / runs(run_label=, dataset=, since=, limit=).
  for (const [kase, value, kind, only] of timestampCases().filter(([k]) => k !== 'null')) {
    // A number is milliseconds in Node (`since`: RFC 3339, a Date or milliseconds).
    const who = kase === 'number' ? ['python'] : only ? ['node'] : NATIVE;
    add('StoreFilter', 'store.runs', 'since', kase, value, [{ since: value }], CONFIG, kind, who);
  }
  for (const [kase, value, kind, only] of numberCases({ min: 0, integer: true, valid: 3 })) {
    if (kase === 'null') continue; // null = no limit
    add('StoreFilter', 'store.runs', 'limit', kase, value, [{ limit: value }], CONFIG, kind, only ? ['node'] : NATIVE);
  }
  for (const field of ['runLabel', 'dataset']) {
    for (const [kase, label, kind] of [['empty', '', 'range'], ['257 characters', 'x'.repeat(257), 'range'], ['number', 5, 'type'], ['array', ['seed'], 'type']]) {
      add('StoreFilter', 'store.runs', field, kase, label, [{ [field]: label }], CONFIG, kind);
    }
  }
  for (const [kase, options] of [['number', 5], ['string', 'seed'], ['array', []]]) add('StoreFilter', 'store.runs', 'options', kase, options, [options], CONFIG, 'type', ['node']);
  add('StoreFilter', 'store.runs', 'label', 'an unknown option', 'seed', [{ label: 'seed' }], 'unknown_option', 'type', ['node']);

  // Names: receipt logs, artifacts, models (1 to 256 characters).
  const nameCases = [['empty', '', 'range'], ['257 characters', 'x'.repeat(257), 'range'], ['number', 5, 'type'], ['boolean', false, 'type'],
    ['array', ['log'], 'type'], ['null', null, 'type', ['node']]];
  const good = receipt('correct_skip', { runId: 'b1' });
  for (const [kase, name, kind, only = NATIVE] of nameCases) {
    add('StoreName', 'store.appendReceipts', 'log', kase, name, [name, [good]], CONFIG, kind, only);
    add('StoreName', 'store.verifyReceipts', 'log', kase, name, [name], CONFIG, kind, only);
    add('StoreName', 'store.receiptLog', 'log', kase, name, [name], CONFIG, kind, only);
    add('StoreName', 'store.putArtifact', 'name', kase, name, [name, LOOP_ARTIFACT], CONFIG, kind, only);
    add('StoreName', 'store.artifact', 'name', kase, name, [name], CONFIG, kind, only);
    add('StoreName', 'store.mergeModel', 'name', kase, name, [name, STORE_MODEL], CONFIG, kind, only);
    add('StoreName', 'store.model', 'name', kase, name, [name], CONFIG, kind, only);
  }
  // Receipts that are not receipts (the log's chain is not touched).
  for (const [field, kase, receipts, kind, only = NATIVE] of [
    ['receipts', 'number', 5, 'type'], ['receipts', 'object', { 0: good }, 'type'], ['receipts', 'null', null, 'type', ['node']],
    ['receipts[0]', 'not an object', [5], 'type'], ['receipts[0].kind', 'an empty object', [{}], 'type'],
    ['receipts[1]', 'a good one, then not an object', [good, 'x'], 'type'],
    ['receipts[0].label', 'label not a receipt label', [{ ...good, label: 'maybe' }], 'range'],
    ['receipts[0].sha256', 'a chain field given', [{ ...good, sha256: 'a'.repeat(64) }], 'range'],
    ['receipts[0].bogus', 'an unknown key', [{ ...good, bogus: 1 }], 'type'],
    ['receipts[1].runId', 'one run twice, with different bodies', [receipt('correct_skip', { runId: 'b7' }), receipt('needless_run', { runId: 'b7' })], 'range'],
  ]) add('StoreReceipt', 'store.appendReceipts', field, kase, receipts, ['good', receipts], 'invalid_receipt', kind, only);

  // Artifacts: not an artifact, the wrong kind fields (the reader's paths, as calibration names them).
  const ARTIFACT_CODE = 'invalid_artifact';
  for (const [field, kase, artifact, kind, only = NATIVE] of [
    ['artifact', 'number', 5, 'type'], ['artifact', 'array', [LOOP_ARTIFACT], 'type'], ['artifact', 'boolean', true, 'type'], ['artifact', 'null', null, 'type', ['node']],
    ['artifact', 'not JSON text', '{"kind":', 'range'],
    ['kind', 'missing', patched(LOOP_ARTIFACT, 'kind', MISSING), 'type'], ['kind', 'unknown kind', patched(LOOP_ARTIFACT, 'kind', 'bogus'), 'range'],
    ['kind', 'number', patched(LOOP_ARTIFACT, 'kind', 1), 'type'],
    ['schemaVersion', 'unknown version', patched(LOOP_ARTIFACT, 'schemaVersion', 9), 'range'],
    ['expiresAt', 'not a date', patched(LOOP_ARTIFACT, 'expiresAt', 'next month'), 'range'],
    ['corpusSha256', 'not a digest', patched(LOOP_ARTIFACT, 'corpusSha256', 'abc'), 'range'],
  ]) add('StoreArtifact', 'store.putArtifact', field, kase, artifact, ['good', artifact], ARTIFACT_CODE, kind, only);

  // Models: the pyramid models the policy-options rows refuse (PolicyRunOptions), merged.
  for (const [field, kase, model, kind, only = NATIVE] of [
    ['model', 'number', 5, 'type'], ['model', 'array', [], 'type'], ['model', 'boolean', true, 'type'], ['model', 'null', null, 'type', ['node']],
    ['model', 'not JSON text', '{"version": 1,', 'range'],
    ['model.version', 'unknown version', { version: 9, engine: 'PyramidOutcomeModel', layers: [] }, 'range'],
    ['model.layers[0].failures', 'above the trials', { version: 1, engine: 'PyramidOutcomeModel', layers: [{ name: 'unit', trials: 1, failures: 2, costMs: null, costWeight: 0 }] }, 'range'],
    ['model.window', 'version 2, window 0', { version: 2, engine: 'PyramidOutcomeModel', window: 0, builds: [] }, 'range'],
    ['model.builds[1]', 'version 2, builds out of key order', { version: 2, engine: 'PyramidOutcomeModel', window: 5, builds: [{ id: 'a', seq: 2, layers: [] }, { id: 'a', seq: 1, layers: [] }] }, 'range'],
    ['model.builds', 'version 2, more builds than the window', { version: 2, engine: 'PyramidOutcomeModel', window: 1, builds: [{ id: 'a', seq: 1, layers: [] }, { id: 'a', seq: 2, layers: [] }] }, 'range'],
    ['model.builds[0].seq', 'version 2, negative seq', { version: 2, engine: 'PyramidOutcomeModel', window: 5, builds: [{ id: 'a', seq: -1, layers: [] }] }, 'range'],
    ['model.builds[0].layers[0].failed', 'version 2, a layer without failed', { version: 2, engine: 'PyramidOutcomeModel', window: 5, builds: [{ id: 'a', seq: 1, layers: [{ name: 'unit' }] }] }, 'type'],
  ]) add('StoreModel', 'store.mergeModel', field, kase, model, ['good', model], 'invalid_snapshot', kind, only);

  // A Loop's store options. Node takes an open Store only (opening is asynchronous); Python a
  // Store or a URL (opened at once) and `receipt_log`.
  for (const [kase, store, kind, only = NATIVE] of [['number', 5, 'type'], ['object', {}, 'type'], ['array', ['$store'], 'type'], ['boolean', true, 'type']]) {
    add('LoopStore', 'new Loop', 'store', kase, store, [{ store }], CONFIG, kind, only);
  }
  add('LoopStore', 'new Loop', 'store', 'a URL (Node: not a Store)', 'sqlite:runs.db', [{ store: 'sqlite:runs.db' }], CONFIG, 'type', ['node']);
  add('LoopStore', 'new Loop', 'store', 'a URL of an unknown scheme', 'mysql://db.example/runs', [{ store: 'mysql://db.example/runs' }], CONFIG, 'range', ['python']);
  add('LoopStore', 'new Loop', 'store', 'a postgresql:// URL', 'postgresql://db.example/runs', [{ store: 'postgresql://db.example/runs' }], CONFIG, 'range', ['python']);
  for (const [kase, label, kind, only] of [['empty', '', 'range'], ['257 characters', 'x'.repeat(257), 'range'], ['number', 5, 'type'], ['array', ['a'], 'type']]) {
    add('LoopStore', 'new Loop', 'runLabel', kase, label, [{ store: '$store', runLabel: label }], CONFIG, kind, only);
  }
  add('LoopStore', 'new Loop', 'receiptLog', 'without store', 'loops', [{ receiptLog: 'loops' }], CONFIG, 'type', ['python']);
  for (const [kase, log, kind] of [['empty', '', 'range'], ['257 characters', 'x'.repeat(257), 'range'], ['number', 5, 'type'], ['array', ['loops'], 'type']]) {
    add('LoopStore', 'new Loop', 'receiptLog', kase, log, [{ store: '$store', receiptLog: log }], CONFIG, kind, ['python']);
  }
}

// ---------------------------------------------------------------------------------------------
// Build, cross-reference the existing error vectors, write.

const here = path.dirname(fileURLToPath(import.meta.url));
// Inputs whose paths are a document's own (camelCase in every language).
const KEEP_SPELLING = new Set(['Snapshot', 'CalibrationArtifact', 'ReceiptLog', 'Receipt', 'LoopLifecycle', 'StoreReceipt', 'StoreArtifact', 'StoreModel']);
const EXISTING = ['loop_errors', 'analytics', 'signal', 'exit_decision', 'speculation', 'pyramid_errors', 'pyramid_steps', 'snapshots'];

// The bad call of a finished vector, as a key: engine + constructor or call + arguments + expected error.
// Calibration artifacts given as a live run's policy (`{policy: artifact}`: read strictly on
// load, code `invalid_artifact`, the path under `policy.`), a run's label, and receipt logs
// (`appendReceipts(log, receipts)` verifies the log first and refuses a broken one, naming
// the line; a receipt whose report fields have the wrong type is refused, naming the field).
// Hand rows (the model runs no policy); the expectations follow docs/test-exit.md.
const ARTIFACT = {
  kind: 'pyramid', schemaVersion: 1, policy: { policy: 'fail_fast', config: {} }, risk: 0.05, delta: 0.1,
  certificate: { method: 'learn-then-test', hypotheses: [{ parameter: 0.01, trials: 40, events: 0, pValue: 0.13, rejected: true }], sampleSizes: { calibration: 120 } },
  corpusSha256: 'a'.repeat(64), createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-02-01T00:00:00.000Z',
  promotion: null, body: { slices: [{ label: 'main', runs: 10, failingRuns: 1, failureInterval: [0.01, 0.4] }] },
};
function artifactsAndReceipts() {
  const set = (doc, dotted, value) => {
    const out = clone(doc);
    const keys = dotted.split(/\.|\[(\d+)\]\.?/).filter((k) => k !== undefined && k !== '');
    let at = out;
    for (const k of keys.slice(0, -1)) at = at[k];
    const last = keys[keys.length - 1];
    if (value === MISSING) delete at[last]; else at[last] = value;
    return out;
  };
  const cases = [
    ['schemaVersion', 'unknown version', 3, 'range'], ['schemaVersion', 'version 0', 0, 'range'], ['schemaVersion', 'string', '1', 'type'],
    ['schemaVersion', 'missing', MISSING, 'type'],
    ['kind', "wrong kind ('loop')", 'loop', 'range'], ['kind', 'unknown kind', 'bogus', 'range'], ['kind', 'number', 1, 'type'],
    ['certificate', 'missing', MISSING, 'type'], ['certificate', 'array', [], 'type'],
    ['certificate.method', 'missing', MISSING, 'type'], ['certificate.hypotheses', 'missing', MISSING, 'type'],
    ['certificate.sampleSizes', 'missing', MISSING, 'type'], ['certificate.hypotheses[0].pValue', 'missing', MISSING, 'type'],
    ['certificate.hypotheses[0].events', 'above the trials', 41, 'range'], ['certificate.sampleSizes.calibration', 'negative', -1, 'range'],
    ['corpusSha256', 'not a digest', 'abc', 'range'],
    ['expiresAt', 'not a date', 'next month', 'range'], ['expiresAt', 'before createdAt', '2025-12-31T00:00:00Z', 'range'],
    ['expiresAt', 'equal to createdAt', '2026-01-01T00:00:00Z', 'range'], ['expiresAt', 'missing', MISSING, 'type'], ['expiresAt', 'number', 1767225600000, 'type'],
    ['body.slices[0].label', 'empty label', '', 'range'], ['body.slices[0].label', 'blank label', '  ', 'range'],
    ['body.slices[0].label', 'label with a newline', 'a\nb', 'range'], ['body.slices[0].label', 'number label', 7, 'type'],
    ['body.slices', 'slices not an array', {}, 'type'],
    ['policy.policy', 'unknown policy', 'adr', 'range'],
    ['policy.config.riskBudget', 'above the certified budget', 0.99, 'range'],
  ];
  const vias = (options) => [
    ['new EarlyExitController', { engine: 'EarlyExitController', construct: { config: null, totalLayers: 2, options } }],
    ['PyramidRun.start', { engine: 'PyramidRun', construct: { config: null, totalLayers: 2, layers: SPECS, options } }],
  ];
  // A promoted artifact (schema version 2): its promotion carries the digest of the artifact
  // with `promotion` null (SHA-256 over its RFC 8785 canonical JSON, as the reader writes it),
  // and its figures must hold against the envelope (the exact bound of 0 of 50 at delta 0.1,
  // 1 - 0.1^(1/50), is within the risk 0.05).
  const sortedDeep = (v) => (Array.isArray(v) ? v.map(sortedDeep)
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedDeep(v[k])])) : v);
  const unpromoted = { ...ARTIFACT, schemaVersion: 2 };
  const digest = sha(JSON.stringify(sortedDeep(unpromoted)));
  const PROMOTED = { ...unpromoted, promotion: {
    promotedAt: '2026-01-02T00:00:00.000Z', auditCorpusSha256: 'b'.repeat(64), auditRuns: 80, trials: 50, events: 0,
    upperBound: 1 - Math.pow(0.1, 1 / 50), method: 'clopper-pearson', artifactSha256: digest,
  } };
  const promotedCases = [
    ['promotion.artifactSha256', "another artifact's digest", 'c'.repeat(64), 'range'],
    ['promotion.artifactSha256', 'missing', MISSING, 'type'],
    ['promotion.upperBound', 'above the risk', 0.99, 'range'],
    ['promotion.upperBound', 'not the exact bound of its counts', 0.01, 'range'],
    ['promotion.trials', 'no failing audit run', 0, 'range'],
    ['promotion.method', 'another method', 'wilson', 'range'],
    ['promotion.auditCorpusSha256', 'the calibration corpus', 'a'.repeat(64), 'range'],
  ];
  for (const [path, kase, value, kind] of promotedCases) {
    const field = `policy.${path}`;
    const options = { policy: set(PROMOTED, path, value), now: '2026-01-03T00:00:00Z' };
    for (const [via, spec] of vias(options)) {
      row('CalibrationArtifact', via, field, kase, value, 'invalid_artifact', kind, undefined,
        { ...spec, calls: [], expectThrows: { code: 'invalid_artifact', field, kind } }, false);
    }
  }
  for (const [path, kase, value, kind] of cases) {
    const field = `policy.${path}`;
    const options = { policy: set(ARTIFACT, path, value) };
    for (const [via, spec] of vias(options)) {
      row('CalibrationArtifact', via, field, kase, value, 'invalid_artifact', kind, undefined,
        { ...spec, calls: [], expectThrows: { code: 'invalid_artifact', field, kind } }, false);
    }
  }
  // A live run's label and now (docs/test-exit.md "Choosing").
  const FF = { policy: 'fail_fast' };
  const optionCases = [
    ['label', 'empty', { ...FF, label: '' }, 'range'], ['label', 'blank', { ...FF, label: ' \t ' }, 'range'],
    ['label', 'control character', { ...FF, label: 'main\u0007' }, 'range'], ['label', 'over 128 characters', { ...FF, label: 'x'.repeat(129) }, 'range'],
    ['label', 'number', { ...FF, label: 3 }, 'type'], ['label', 'array', { ...FF, label: ['main'] }, 'type'],
    ['now', 'with a policy that is not an artifact', { ...FF, now: 1767225600000 }, 'range'],
    ['now', 'not a date', { policy: ARTIFACT, now: 'tomorrow' }, 'range'], ['now', 'non-integer', { policy: ARTIFACT, now: 1.5 }, 'range'],
    ['now', 'boolean', { policy: ARTIFACT, now: true }, 'type'],
  ];
  for (const [field, kase, options, kind] of optionCases) {
    for (const [via, spec] of vias(options)) {
      row('PolicyRunOptions', via, field, kase, options[field], 'invalid_config', kind, undefined,
        { ...spec, calls: [], expectThrows: { code: 'invalid_config', field, kind } }, false);
    }
  }
  // Receipt logs: a valid two-line chain of receipts as the core writes them (receipt_doc.mjs),
  // then one fault per row; a receipt's label must follow from its own outcomes, its indices
  // and numbers be in range, its keys unique, and a run (kind, policy, runId) have one receipt.
  const first = chained(receipt('correct_skip', { runLabel: 'main', runId: 'build-1' }), null);
  const second = chained(receipt('false_pass', { runId: 'build-2' }), first.sha256);
  const jsonl = (...lines) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
  const edited = (edit) => { const body = receipt('correct_skip', { runId: 'build-1' }); edit(body); return body; };
  const lying = edited((r) => { r.skipped[0].actual = 'fail'; r.firstMissedFailure = { layer: 1, name: 'e2e' }; });
  const farLayer = edited((r) => { r.skipped[0].layer = 50; });
  const hugeSaving = edited((r) => { r.computeSavedMs = 1e308; });
  const negativeRisk = edited((r) => { r.signal.risk = -0.1; });
  const hiddenMiss = edited((r) => { r.skipped[0].actual = 'fail'; r.label = 'false_pass'; });
  const overflow = edited((r) => {
    r.skipped = [{ ...r.skipped[0], costMs: 1e308 }, { ...r.skipped[0], layer: 2, name: 'smoke', costMs: 1e308 }];
    r.computeSavedMs = null;
  });
  // A line that states `label` twice: the hash covers JSON.parse's reading (the last one).
  const repeatedKey = (() => {
    const line = chained(receipt('false_pass'), null);
    return JSON.stringify(line).replace('"label":"false_pass"', '"label":"correct_skip","label":"false_pass"');
  })();
  const rechained = (body) => chained(body, null);
  const otherBody = chained(receipt('needless_run', { runId: 'build-1' }), first.sha256);
  const logCases = [
    ['log.line 1', 'tampered hash (a label edited)', jsonl({ ...first, label: 'false_pass' }, second)],
    ['log.line 1', 'sha256 not a digest', jsonl({ ...first, sha256: 'x' })],
    ['log.line 1', 'broken chain (the first line deleted)', jsonl(second)],
    ['log.line 1', 'broken chain (lines reordered)', jsonl(second, first)],
    ['log.line 2', 'broken chain (prevHash of another line)', jsonl(first, { ...second, prevHash: 'b'.repeat(64) })],
    ['log.line 2', 'not JSON', jsonl(first, '{"kind":')],
    ['log.line 1', 'runLabel of the wrong type (hash recomputed)', jsonl(rechained({ ...receipt('correct_skip'), runLabel: 5 }))],
    ['log.line 1', 'label not a receipt label (hash recomputed)', jsonl(rechained({ ...receipt('correct_skip'), label: 'maybe' }))],
    ['log.line 1', 'correct_skip while a skipped layer failed (hash recomputed)', jsonl(rechained(lying))],
    ['log.line 1', 'a skipped layer outside the receipt (hash recomputed)', jsonl(rechained(farLayer))],
    ['log.line 1', 'computeSavedMs not the skipped costs (hash recomputed)', jsonl(rechained(hugeSaving))],
    ['log.line 1', 'negative risk (hash recomputed)', jsonl(rechained(negativeRisk))],
    ['log.line 1', 'a key stated twice (hash over the last)', jsonl(repeatedKey)],
    ['log.line 2', 'a run with a second, different receipt', jsonl(first, otherBody)],
    ['log.line 1', 'a loop receipt whose label lies (hash recomputed)', jsonl(chained({
      kind: 'loop', receiptVersion: 1, runId: 'run-1', task: 't-1', dataset: null, policy: 'custom',
      candidate: { any: [{ condition: 'max_iterations', limit: 2 }] }, artifactSha256: null, iterations: 3,
      stoppedAt: 2, trigger: 'max_iterations', reason: 'r', returnedIteration: 2, returnedQuality: 50,
      finalBestIteration: 3, finalBestQuality: 60, iterationsSaved: 1, firstGood: 3, groundTruth: true,
      label: 'correct_stop',
    }, null))],
  ];
  for (const [field, kase, log] of logCases) {
    row('ReceiptLog', 'appendReceipts', field, kase, log, 'invalid_receipt', 'range', undefined,
      { engine: 'receipts', construct: {}, calls: [{ ...call('appendReceipts', log, []), expect: T('invalid_receipt', field, 'range') }] }, false);
  }
  const valid = receipt('correct_skip');
  // A loop receipt as the core writes it (docs/lifecycle.md): the candidate would have stopped
  // at iteration 2 of 3, before the first good iteration (3).
  const loopValid = {
    kind: 'loop', receiptVersion: 1, runId: 'run-1', task: 't-1', dataset: null, policy: 'custom',
    candidate: { any: [{ condition: 'max_iterations', limit: 2 }] }, artifactSha256: null, iterations: 3,
    stoppedAt: 2, trigger: 'max_iterations', reason: 'Maximum iterations reached (2/2)', returnedIteration: 2,
    returnedQuality: 50, finalBestIteration: 3, finalBestQuality: 60, iterationsSaved: 1, firstGood: 3,
    groundTruth: true, label: 'premature_stop',
  };
  const receiptCases = [
    ['receipts[0].label', 'loop: correct_stop while it stopped before the first good iteration', [{ ...loopValid, label: 'correct_stop' }], 'range'],
    ['receipts[0].iterationsSaved', 'loop: not iterations - stoppedAt', [{ ...loopValid, iterationsSaved: 2 }], 'range'],
    ['receipts[0].stoppedAt', 'loop: beyond the run', [{ ...loopValid, stoppedAt: 9 }], 'range'],
    ['receipts[0].trigger', 'loop: a trigger without a stop', [{ ...loopValid, stoppedAt: null, returnedIteration: null, returnedQuality: null, reason: null, iterationsSaved: 0, label: 'no_stop' }], 'range'],
    ['receipts[0].kind', 'a loop receipt relabelled pyramid', [{ ...loopValid, kind: 'pyramid' }], 'range'],
    ['receipts[0].label', 'label of the wrong type', [{ ...valid, label: 5 }], 'type'],
    ['receipts[0].label', 'label not a receipt label', [{ ...valid, label: 'maybe' }], 'range'],
    ['receipts[0].runLabel', 'runLabel empty', [{ ...valid, runLabel: '' }], 'range'],
    ['receipts[0].policy', 'policy not a string', [{ ...valid, policy: [] }], 'type'],
    ['receipts[0].sha256', 'a chain field given', [{ ...valid, sha256: 'a'.repeat(64) }], 'range'],
    ['receipts[1]', 'not an object', [valid, 5], 'type'],
    ['receipts[0].label', 'correct_skip while a skipped layer failed', [lying], 'range'],
    ['receipts[0].firstMissedFailure', 'null while a skipped layer failed', [hiddenMiss], 'range'],
    ['receipts[0].skipped[0].layer', 'outside the receipt (50 of 2 layers)', [farLayer], 'range'],
    ['receipts[0].layer', 'outside the receipt (50 of 2 layers)', [{ ...valid, layer: 50 }], 'range'],
    ['receipts[0].computeSavedMs', '1e308, not the skipped costs', [hugeSaving], 'range'],
    ['receipts[0].signal.risk', 'negative', [negativeRisk], 'range'],
    ['receipts[0].skipped[1].costMs', 'costs whose sum overflows', [overflow], 'range'],
    ['receipts[0].skipped', 'missing', [{ ...valid, skipped: undefined }], 'type'],
    ['receipts[0].bogus', 'an unknown key', [{ ...valid, bogus: 1 }], 'type'],
    ['receipts[0].kind', 'not a pyramid receipt', [{ ...valid, kind: 'loop' }], 'range'],
    ['receipts[1].runId', 'one run twice, with different bodies', [receipt('correct_skip', { runId: 'b7' }), receipt('needless_run', { runId: 'b7' })], 'range'],
    // The ADR's receipts (shadow mode with the ADR's policy): what follows from the rest is checked.
    ...adrCases(),
  ];
  for (const [field, kase, receipts, kind] of receiptCases) {
    row('Receipt', 'appendReceipts', field, kase, receipts, 'invalid_receipt', kind, undefined,
      { engine: 'receipts', construct: {}, calls: [{ ...call('appendReceipts', '', receipts), expect: T('invalid_receipt', field, kind) }] }, false);
  }
}

// Rows over the ADR's shadow receipt (receipt_doc.mjs adrReceipt): one fault each.
function adrCases() {
  const edit = (change) => { const r = adrReceipt(); change(r); return [r]; };
  const missedSmoke = (r) => { r.skipped[2].actual = 'fail'; };
  return [
    ['receipts[0].label', 'ADR: correct_skip while a never-run layer failed', edit((r) => { missedSmoke(r); r.firstMissedFailure = { layer: 3, name: 'smoke' }; }), 'range'],
    ['receipts[0].firstMissedFailure', 'ADR: null while a never-run layer failed', edit((r) => { missedSmoke(r); r.label = 'false_pass'; }), 'range'],
    ['receipts[0].decision', 'ADR: a decision its signal does not make', edit((r) => { r.signal.lambda = 50; }), 'range'],
    ['receipts[0].decision.confidence', 'ADR: confidence above 1', edit((r) => { r.decision.confidence = 2; }), 'range'],
    ['receipts[0].skipped[2].verified', 'ADR: verification beyond verificationLayers', edit((r) => { r.skipped[2].verified = true; }), 'range'],
    ['receipts[0].speculations', 'ADR: a prediction missing', edit((r) => { r.speculations.pop(); }), 'range'],
    ['receipts[0].speculations[0].layer', 'ADR: a prediction about another layer', edit((r) => { r.speculations[0].layer = 2; }), 'range'],
    ['receipts[0].verification[0].correct', 'ADR: correct while the outcome is not the prediction', edit((r) => { r.verification[0].outcome = 'fail'; r.skipped[0].actual = 'fail'; r.label = 'needless_run'; }), 'range'],
    ['receipts[0].computeSavedMs', 'ADR: counting verified layers as saved', edit((r) => { r.computeSavedMs = 90; }), 'range'],
    ['receipts[0].totalLayers', 'ADR: zero', edit((r) => { r.totalLayers = 0; }), 'range'],
    ['receipts[0].config.verificationLayers', 'ADR: negative', edit((r) => { r.config.verificationLayers = -1; }), 'range'],
    ['receipts[0].config.riskBudget', 'ADR: a policy config', edit((r) => { r.config = { riskBudget: 0.01 }; }), 'type'],
    ['receipts[0].skipped', 'ADR: layersRun and skipped over the layer limit', edit((r) => { r.layersRun = 10000; r.layer = 9999; }), 'range'],
    ['receipts[0].signal.flags', 'ADR: a signal key missing', edit((r) => { delete r.signal.flags; }), 'type'],
    ['receipts[0].layer', 'ADR: not layersRun - 1', edit((r) => { r.layer = 1; }), 'range'],
  ];
}

function badCallKey(v) {
  if (v.throws) return JSON.stringify([v.engine, 'new', v.construct, v.throws]);
  const c = v.calls.find((x) => x.throws && x.throws.code);
  if (!c) return null;
  return JSON.stringify([v.engine, c.call, c.args, c.layers ?? null, c.throws]);
}

function encodeRaw(spec) {
  // Scenarios the model cannot run (opt-in loop options): the hand expectation stands as written.
  const v = { name: spec.name, engine: spec.engine, source: 'hand' };
  if (spec.only) v.only = spec.only;
  if (spec.keys) v.keys = spec.keys;
  v.construct = spec.construct;
  if (spec.expectThrows) return { ...v, throws: spec.expectThrows, calls: [] };
  // Without a model there are no expected answers: the calls after the bad one are those that
  // answer nothing (a valid record must still be accepted) or whose answer the row writes out
  // (`returns`: a stateless call's probe); the suites' snapshot comparison around the bad call
  // proves the state unchanged.
  const bad = spec.calls.findIndex((c) => c.expect);
  v.calls = spec.calls
    .filter((c, i) => i <= bad || c.call === 'recordIterationResult' || 'returns' in c)
    .map(({ expect, ...c }) => (expect ? { ...c, ...expect } : c));
  return v;
}

export async function badInputMatrix(ref) {
  rows.length = 0;
  loopConfig(); loopResults(); loopChecks(); analytics(); layerResults(); exitConfigs(); signals(); pyramidInputs(); policyOptions(); bothSpellings(); snapshots(); stopPolicies(); calibrationCandidates();
  artifactsAndReceipts();
  progressSignals();
  calibrationRisk();
  loopHelper();
  loopLifecycle();
  junitArguments();
  storeRows();
  const existing = new Map();
  for (const file of EXISTING) {
    const { vectors } = JSON.parse(fs.readFileSync(path.join(here, `${file}.json`), 'utf8'));
    for (const v of vectors) {
      const k = badCallKey(v);
      if (k && !existing.has(k)) existing.set(k, { ref: `${file}.json#${v.name}`, only: v.only });
    }
  }
  const out = [];
  const problems = [];
  const ids = new Set();
  for (const r of rows) {
    const { spec, model, ...table } = r;
    if (ids.has(spec.name)) throw new Error(`duplicate matrix row ${spec.name}`);
    ids.add(spec.name);
    let vector;
    try {
      vector = model ? await finalize(spec, ref) : encodeRaw(spec);
    } catch (err) {
      problems.push(err.message);
      continue;
    }
    const same = existing.get(badCallKey(vector));
    const entry = { id: spec.name, input: table.input, via: table.via, field: table.field, pyField: KEEP_SPELLING.has(table.input) ? table.field
      : table.input === 'JunitArguments' ? JUNIT_PY_FIELD[table.field] ?? pyField(table.field) : pyField(table.field), case: table.case };
    if ('value' in table) entry.value = encode(decode(table.value));
    Object.assign(entry, { code: table.code, kind: table.kind });
    // A row that reuses a vector applies where both the row and that vector do.
    const only = table.only && same?.only ? table.only.filter((x) => same.only.includes(x)) : table.only ?? same?.only;
    if (only) entry.only = only;
    if (same) entry.sameAs = same.ref; else entry.vector = vector;
    out.push(entry);
  }
  if (problems.length) throw new Error(`${problems.length} rows disagree with the model:\n  ${problems.join('\n  ')}`);
  return out.concat(behaviorRows());
}

// The behaviour drop-ins' bad inputs: each error vector of behavior/behavior.json (written by
// behavior/gen_behavior.mjs, one bad call each, its expectation from docs/behavior.md) is one
// row, run through `sameAs`. The input type is named after what the bad call hands over.
const BEHAVIOR_FILE = 'behavior/behavior.json';
function behaviorRows() {
  const { vectors } = JSON.parse(fs.readFileSync(path.join(here, BEHAVIOR_FILE), 'utf8'));
  const rows = [];
  for (const v of vectors) {
    const bad = v.throws ? { call: 'new', throws: v.throws } : v.calls.find((c) => c.throws);
    if (v.source !== 'hand' || !bad) continue;
    const { code, field, kind } = bad.throws;
    const via = bad.call === 'new' ? `new ${v.engine}` : bad.call;
    const input = bad.call === 'new' ? `${v.engine}Options`
      : field.startsWith('history') ? 'BehaviorHistory'
        : bad.call === 'updateThresholds' ? 'BehaviorThresholds'
          : field.startsWith('detection') ? 'Detection'
            : bad.call === 'importState' || field.startsWith('interventionLog') ? 'InterventionState' : 'InterventionArguments';
    const what = v.name.replace(/^error: /, '');
    const row = { id: `${input} via ${via}: ${field} (${what})`, input, via, field, pyField: pyField(field), case: what, code, kind };
    if (v.only) row.only = v.only;
    row.sameAs = `${BEHAVIOR_FILE}#${v.name}`;
    rows.push(row);
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node tests/vectors/gen_bad_input.mjs <reference-dir>');
    process.exit(2);
  }
  const cases = await badInputMatrix(await loadReference(dir));
  // One row per line: the file reads (and diffs) as a table.
  const about = 'The bad-input matrix: every invalid input of both engines, one row each. Format: tests/vectors/README.md "Bad-input matrix".';
  const text = `{"about": ${JSON.stringify(about)},\n "cases": [\n${cases.map((c) => '  ' + JSON.stringify(c)).join(',\n')}\n ]\n}\n`;
  fs.writeFileSync(path.join(here, 'bad_input.json'), text);
  const by = {};
  for (const c of cases) by[c.input] = (by[c.input] ?? 0) + 1;
  console.log(`bad_input.json: ${cases.length} cases (${cases.filter((c) => c.sameAs).length} run an existing vector)`);
  for (const [k, n] of Object.entries(by)) console.log(`  ${String(n).padStart(4)}  ${k}`);
}
