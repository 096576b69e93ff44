// Shared by generate.mjs and check_corpus.mjs: reads a vector (the format in
// README.md), runs its calls and reports what each call returned or threw.
//
// Where the reference files define the behaviour (EarlyStopping decisions, the
// quality signal, the exit decision, speculation, the pyramid controller) the
// calls go to the reference modules, loaded from a directory given by the
// caller. Where they do not (validation and error codes, IterationAnalytics,
// best-iteration tracking, snapshots, the pyramid step API's bookkeeping) a
// small model written from docs/api-conventions.md and the design pages
// answers instead. The model is deliberately plain (a full rescan where the
// core is incremental) so that it is an independent check of the hand-written
// expectations, not a copy of the core.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OptionsLoop, OPTION_KEYS, hasOptions } from './options_model.mjs';
import { compare, decode, encode, isPlainObject, NO_EXTRAS } from './common.mjs';

export async function loadReference(dir) {
  if (!dir) throw new Error('the reference directory is a required argument');
  const es = await import(pathToFileURL(path.resolve(dir, 'early-stopping.mjs')).href);
  const adr = await import(pathToFileURL(path.resolve(dir, 'early-exit-adr.mjs')).href);
  const ia = await import(pathToFileURL(path.resolve(dir, 'iteration-analytics.mjs')).href);
  return { es, adr, ia };
}

const clone = (v) => (v === undefined ? undefined : structuredClone(v));
const own = (o, k) => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

const fmt = (v) => JSON.stringify(encode(v));

// ---------------------------------------------------------------------------
// Errors the model predicts.

export class ValidationError extends Error {
  constructor(code, field, kind) {
    super(`${code} at ${field} (${kind})`);
    this.code = code; this.field = field; this.kind = kind;
  }
}
class RunnerError extends Error {}
const typeErr = (code, field) => new ValidationError(code, field, 'type');
const rangeErr = (code, field) => new ValidationError(code, field, 'range');

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

// A number field: absent is fine unless required; a non-number (null, string,
// boolean) is a type error; NaN, infinities, non-integers and out-of-range
// values are range errors.
function checkNumber(obj, key, code, field, { required = false, min = -Infinity, max = Infinity, integer = false } = {}) {
  const v = own(obj, key);
  if (v === undefined) { if (required) throw typeErr(code, field); return; }
  if (typeof v !== 'number') throw typeErr(code, field);
  if (!Number.isFinite(v)) throw rangeErr(code, field);
  if (integer && !Number.isInteger(v)) throw rangeErr(code, field);
  // Counts beyond 2^53-1 cannot be held exactly: rejected like any out-of-range count.
  if (integer && Math.abs(v) > MAX_SAFE) throw rangeErr(code, field);
  if (v < min || v > max) throw rangeErr(code, field);
}
function checkBoolean(obj, key, code, field, required = false) {
  const v = own(obj, key);
  if (v === undefined) { if (required) throw typeErr(code, field); return; }
  if (typeof v !== 'boolean') throw typeErr(code, field);
}
function checkEnum(obj, key, values, code, field, required = false) {
  const v = own(obj, key);
  if (v === undefined) { if (required) throw typeErr(code, field); return; }
  if (typeof v !== 'string') throw typeErr(code, field);
  if (!values.includes(v)) throw rangeErr(code, field);
}
function checkUnknown(obj, known, prefix, code = 'unknown_option') {
  for (const k of Object.keys(obj)) if (!known.includes(k)) throw typeErr(code, prefix + k);
}

// RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM).
function isRfc3339(s) {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
  const dim = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > dim[mo - 1] || h > 23 || mi > 59 || se > 60) return false;
  if (m[9] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  return true;
}

// --- Engine 1 -------------------------------------------------------------

export const LOOP_DEFAULTS = {
  highConfidenceThreshold: 0.95, plateauConsecutiveCount: 3, plateauImprovementThreshold: 0.02,
  minQualityThreshold: 70, requireVerification: true, enablePlateauDetection: true, enableDiminishingReturns: true,
};
const LOOP_KEYS = Object.keys(LOOP_DEFAULTS);
const STATUSES = ['passed', 'failed', 'skipped'];
const RESULT_KEYS = ['quality_score', 'confidence', 'verification_status', 'quality_delta', 'timestamp',
  'tokens_used', 'token_cost_usd', 'execution_time_ms', 'iteration_number'];
const OPTIONAL_RECORD_KEYS = ['tokens_used', 'token_cost_usd', 'execution_time_ms'];

// `whole` names the argument when it is not an object; `prefix` prefixes
// field names (snapshots); `code` is invalid_config or invalid_snapshot; `base`
// is the config the object is merged over (the cross-field rules of the opt-in
// options judge the merged result, reported on a key this call gave).
function validateLoopConfig(cfg, whole, prefix = '', code = 'invalid_config', unknownCode = 'unknown_option', base = LOOP_DEFAULTS) {
  if (cfg === undefined || cfg === null) return;
  if (!isPlainObject(cfg)) throw typeErr(code, whole);
  checkUnknown(cfg, [...LOOP_KEYS, ...OPTION_KEYS], prefix, unknownCode);
  checkNumber(cfg, 'highConfidenceThreshold', code, prefix + 'highConfidenceThreshold', { min: 0, max: 1 });
  checkNumber(cfg, 'plateauConsecutiveCount', code, prefix + 'plateauConsecutiveCount', { min: 2, integer: true });
  // 0..=100 here; above 1 only with plateauMode 'absolute' (checked on the merged config below)
  checkNumber(cfg, 'plateauImprovementThreshold', code, prefix + 'plateauImprovementThreshold', { min: 0, max: 100 });
  checkNumber(cfg, 'minQualityThreshold', code, prefix + 'minQualityThreshold', { min: 0, max: 100 });
  for (const k of ['requireVerification', 'enablePlateauDetection', 'enableDiminishingReturns']) checkBoolean(cfg, k, code, prefix + k);
  // the opt-in options (loop-stopping.md, "Beyond the seed"), in the table's order
  checkEnum(cfg, 'plateauDeltaSource', ['reported', 'computed'], code, prefix + 'plateauDeltaSource');
  checkEnum(cfg, 'plateauMode', ['relative', 'absolute'], code, prefix + 'plateauMode');
  for (const k of ['minIterations', 'maxIterations']) checkNumber(cfg, k, code, prefix + k, { min: 1, max: MAX_SAFE, integer: true });
  for (const k of ['maxTotalTokens', 'maxTotalCostUsd', 'maxWallClockMs']) checkNumber(cfg, k, code, prefix + k, { min: 0 });
  checkNumber(cfg, 'regressionTolerance', code, prefix + 'regressionTolerance', { min: 0, max: 100 });
  checkNumber(cfg, 'regressionPatience', code, prefix + 'regressionPatience', { min: 1, max: MAX_SAFE, integer: true });
  checkBoolean(cfg, 'strictIterations', code, prefix + 'strictIterations');
  const m = { ...base };
  for (const [k, v] of Object.entries(cfg)) if (v !== undefined) m[k] = v;
  // A cross-field error names a key this call gave: the first of the pair when given, else the second.
  const given = (k) => cfg[k] !== undefined;
  if (m.plateauMode !== 'absolute' && m.plateauImprovementThreshold > 1) {
    const field = given('plateauImprovementThreshold') || !given('plateauMode') ? 'plateauImprovementThreshold' : 'plateauMode';
    throw rangeErr(code, prefix + field);
  }
  if (m.minIterations !== undefined && m.maxIterations !== undefined && m.minIterations > m.maxIterations) {
    throw rangeErr(code, prefix + (given('minIterations') || !given('maxIterations') ? 'minIterations' : 'maxIterations'));
  }
  if (m.regressionPatience !== undefined && m.regressionTolerance === undefined) throw rangeErr(code, prefix + 'regressionPatience');
}

function validateIteration(it, code = 'invalid_iteration', field = 'iteration') {
  if (typeof it !== 'number') throw typeErr(code, field);
  if (!Number.isFinite(it) || !Number.isInteger(it) || it < 1 || it > MAX_SAFE) throw rangeErr(code, field);
}

function validateTimestamp(obj, code, field, required) {
  const v = own(obj, 'timestamp');
  if (v === undefined) { if (required) throw typeErr(code, field); return; }
  if (typeof v !== 'string') throw typeErr(code, field);
  if (!isRfc3339(v)) throw rangeErr(code, field);
}

// An iteration result (recordIterationResult) or, with `snapshot`, a history
// record inside a snapshot (iteration_number and timestamp then required).
function validateResult(result, iteration, { prefix = '', code = 'invalid_result', whole = 'result', snapshot = false } = {}) {
  if (!isPlainObject(result)) throw typeErr(code, whole);
  checkUnknown(result, RESULT_KEYS, prefix, snapshot ? code : 'unknown_option');
  checkNumber(result, 'quality_score', code, prefix + 'quality_score', { required: true, min: 0, max: 100 });
  checkNumber(result, 'confidence', code, prefix + 'confidence', { required: true, min: 0, max: 1 });
  checkEnum(result, 'verification_status', STATUSES, code, prefix + 'verification_status', true);
  checkNumber(result, 'quality_delta', code, prefix + 'quality_delta', { required: true });
  validateTimestamp(result, code, prefix + 'timestamp', snapshot);
  for (const k of OPTIONAL_RECORD_KEYS) checkNumber(result, k, code, prefix + k, { min: 0 });
  if (snapshot) {
    const it = own(result, 'iteration_number');
    if (it === undefined) throw typeErr(code, prefix + 'iteration_number');
    validateIteration(it, code, prefix + 'iteration_number');
  } else {
    const it = own(result, 'iteration_number');
    if (it !== undefined) {
      if (typeof it !== 'number') throw typeErr(code, 'iteration_number');
      if (!Object.is(it, iteration) && it !== iteration) throw rangeErr(code, 'iteration_number');
    }
  }
}

function validateAnalyticsReturn(r) {
  const code = 'invalid_analytics';
  if (!isPlainObject(r)) throw typeErr(code, 'detectDiminishingReturns()');
  if (typeof own(r, 'detected') !== 'boolean') throw typeErr(code, 'detected');
  const it = own(r, 'iteration');
  if (it !== undefined && it !== null) {
    if (typeof it !== 'number') throw typeErr(code, 'iteration');
    if (!Number.isFinite(it) || !Number.isInteger(it) || it < 1 || it > MAX_SAFE) throw rangeErr(code, 'iteration');
  }
  if (typeof own(r, 'reason') !== 'string') throw typeErr(code, 'reason');
}

// Best-iteration rule (api-conventions.md): highest quality among passed
// records reaching minQualityThreshold, else highest overall; earliest on ties.
export function bestIteration(history, minQuality) {
  let best = null;
  for (const r of history) if (r.verification_status === 'passed' && r.quality_score >= minQuality && (best === null || r.quality_score > best.quality_score)) best = r;
  if (best === null) for (const r of history) if (best === null || r.quality_score > best.quality_score) best = r;
  return best === null ? { best_iteration: null, best_quality_score: null } : { best_iteration: best.iteration_number, best_quality_score: best.quality_score };
}

const DECISION_EXTRAS = new Set(['best_iteration', 'best_quality_score', 'budgets']);
const RECORD_EXTRAS = new Set(OPTIONAL_RECORD_KEYS);

class LoopEngine {
  static construct(ctx, c) {
    const config = c.config === null ? undefined : c.config;
    validateLoopConfig(config, 'config');
    let analytics = null;
    if (c.analytics !== undefined && c.analytics !== null) {
      if (!isPlainObject(c.analytics) || !Array.isArray(c.analytics.script)) {
        // {"value": X}: X itself is passed, and no JSON value has the method.
        throw typeErr('invalid_config', 'iterationAnalytics');
      }
      const script = c.analytics.script;
      let next = 0;
      analytics = {
        detectDiminishingReturns() {
          ctx.analyticsCalls++;
          const r = next < script.length ? clone(script[next]) : null;
          next++;
          validateAnalyticsReturn(r);
          return r;
        },
      };
    }
    // A config with an opt-in option runs on the independent model (options_model.mjs).
    const es = hasOptions(config) ? new OptionsLoop(clone(config), analytics) : new ctx.ref.es.EarlyStopping(config, analytics);
    return new LoopEngine(ctx, es, []);
  }

  constructor(ctx, es, optional) { this.ctx = ctx; this.es = es; this.optional = optional; }

  history() {
    return this.es.getIterationHistory().map((r, i) => ({ ...r, ...this.optional[i] }));
  }

  decisionExtras() { return bestIteration(this.es.iterationHistory, this.es.config.minQualityThreshold); }

  async call(name, args) {
    const es = this.es;
    switch (name) {
      case 'recordIterationResult': {
        validateIteration(args[0]);
        validateResult(args[1], args[0]);
        // strictIterations (an option, so the model's engine): judged after the values.
        const order = es instanceof OptionsLoop ? es.iterationOrder(args[0], args[1]) : 'add';
        if (order === 'invalid') throw rangeErr('invalid_iteration', 'iteration');
        if (order === 'duplicate') return { ref: { duplicate: true } };
        es.recordIterationResult(args[0], clone(args[1]));
        const extra = {};
        for (const k of OPTIONAL_RECORD_KEYS) if (own(args[1], k) !== undefined) extra[k] = args[1][k];
        this.optional.push(extra);
        return { ref: undefined };
      }
      case 'shouldStop': {
        const d = clone(es.shouldStop(args[0]));
        return { ref: d, full: { ...d, ...this.decisionExtras() }, extras: DECISION_EXTRAS };
      }
      case 'generateSummary': return { ref: clone(es.generateSummary()) };
      case 'getStoppingReason': return { ref: es.getStoppingReason() };
      case 'getStoppingDetails': return { ref: clone(es.getStoppingDetails()) };
      case 'getConfig': return { ref: clone(es.getConfig()) };
      case 'getIterationHistory': return { ref: clone(es.getIterationHistory()), full: clone(this.history()), extras: RECORD_EXTRAS };
      case 'configure': {
        validateLoopConfig(args[0], 'options', '', 'invalid_config', 'unknown_option', es.config);
        if (hasOptions(args[0]) && !(es instanceof OptionsLoop)) {
          // the first option set: the model takes the engine's state over
          this.es = OptionsLoop.from(es.config, es.iterationAnalytics, this.history(), es.stoppingReason, es.stoppingDetails);
        }
        this.es.configure(clone(args[0]) ?? {});
        return { ref: undefined };
      }
      case 'reset': es.reset(); this.optional = []; return { ref: undefined };
      case 'toJSON': return { ref: this.snapshot(), extras: RECORD_EXTRAS };
      default: throw new Error(`EarlyStopping has no call ${name}`);
    }
  }

  snapshot() {
    return clone({
      version: 1, engine: 'EarlyStopping', config: this.es.getConfig(), history: this.history(),
      stoppingReason: this.es.stoppingReason, stoppingDetails: this.es.stoppingDetails,
    });
  }

  static fromJSON(ctx, arg) {
    const s = parseSnapshot(arg, 'EarlyStopping');
    const code = 'invalid_snapshot';
    if (!isPlainObject(own(s, 'config'))) throw typeErr(code, 'config');
    validateLoopConfig(s.config, 'config', 'config.', code, code);
    const history = own(s, 'history');
    if (!Array.isArray(history)) throw typeErr(code, 'history');
    history.forEach((r, i) => validateResult(r, undefined, { prefix: `history[${i}].`, code, whole: `history[${i}]`, snapshot: true }));
    const reason = own(s, 'stoppingReason');
    if (reason !== null && typeof reason !== 'string') throw typeErr(code, 'stoppingReason');
    const details = own(s, 'stoppingDetails');
    if (details !== null && !isPlainObject(details)) throw typeErr(code, 'stoppingDetails');
    if (hasOptions(s.config)) return new LoopEngine(ctx, OptionsLoop.from(clone(s.config), null, history, reason, details), history.map(() => ({})));
    const es = new ctx.ref.es.EarlyStopping(clone(s.config), null);
    const optional = [];
    for (const r of history) {
      es.iterationHistory.push({
        iteration_number: r.iteration_number, quality_score: r.quality_score, confidence: r.confidence,
        verification_status: r.verification_status, quality_delta: r.quality_delta, timestamp: r.timestamp,
      });
      const extra = {};
      for (const k of OPTIONAL_RECORD_KEYS) if (own(r, k) !== undefined) extra[k] = r[k];
      optional.push(extra);
    }
    es.stoppingReason = reason;
    es.stoppingDetails = clone(details);
    return new LoopEngine(ctx, es, optional);
  }
}

const SNAPSHOT_FIELDS = {
  EarlyStopping: ['config', 'history', 'stoppingReason', 'stoppingDetails'],
  IterationAnalytics: ['config', 'loopId', 'taskDescription', 'startTime', 'endTime', 'records'],
  PyramidRun: ['config', 'totalLayers', 'layers', 'submitted'],
};

function parseSnapshot(arg, engine) {
  const code = 'invalid_snapshot';
  let s = arg;
  if (typeof s === 'string') {
    try { s = JSON.parse(s); } catch { throw rangeErr(code, 'snapshot'); }
  }
  if (!isPlainObject(s)) throw typeErr(code, 'snapshot');
  checkUnknown(s, ['version', 'engine', ...SNAPSHOT_FIELDS[engine]], '', code);
  const version = own(s, 'version');
  if (typeof version !== 'number') throw typeErr(code, 'version');
  if (version !== 1) throw rangeErr(code, 'version');
  const eng = own(s, 'engine');
  if (typeof eng !== 'string') throw typeErr(code, 'engine');
  if (eng !== engine) throw rangeErr(code, 'engine');
  return s;
}

// --- IterationAnalytics: the reference, iteration-analytics.mjs --------------
//
// Every answer comes from the reference itself, with three things put around it:
//   - validation (the model's, like the other engines'): the reference takes anything;
//   - time: the project takes times as values (`startTime`/`endTime` options, a record's
//     `timestamp`, `generateReport({generatedAt})`) where the reference reads the clock, so
//     each reference call runs with `Date` replaced by a clock that answers the time the
//     vector gives and throws when the vector gives none (a generated vector never depends
//     on the clock);
//   - the deliberate differences (docs/api-conventions.md "IterationAnalytics"), as a
//     subclass of the reference (`projectClass`) overriding exactly those spots. A call whose
//     answer the overrides changed, or where the reference throws, makes its vector `hand`.
// The reference saves after every record: it runs in a temporary working directory.

export const ANALYTICS_DEFAULTS = {
  storagePath: '.aiwg/ralph/analytics', diminishingReturnsThreshold: 0.05, consecutiveCountThreshold: 2,
  qualityThreshold: 70, selectionCriteria: 'highest_quality_verified',
};
const CRITERIA = ['highest_quality_verified', 'highest_quality', 'most_recent_above_threshold'];
const ANALYTICS_OPTIONS = [...Object.keys(ANALYTICS_DEFAULTS), 'persist', 'startTime', 'endTime'];
const ANALYTICS_RECORD_KEYS = ['iteration_number', 'timestamp', 'quality_score', 'quality_delta', ...OPTIONAL_RECORD_KEYS,
  'verification_status', 'output_snapshot_path', 'reflections'];
const SUMMARY_KEYS = ['loop_id', 'task_description', 'start_time', 'end_time', 'iterations', 'total_iterations',
  'optimal_iteration', 'final_iteration', 'selected_iteration', 'selection_reason', 'total_tokens', 'total_cost_usd',
  'total_time_ms', 'diminishing_returns_detected', 'diminishing_returns_iteration', 'quality_trajectory'];

function checkString(obj, key, code, field, { required = false, nonEmpty = false, nullable = false } = {}) {
  const v = own(obj, key);
  if (v === undefined) { if (required) throw typeErr(code, field); return; }
  if (v === null && nullable) return;
  if (typeof v !== 'string') throw typeErr(code, field);
  if (nonEmpty && v === '') throw rangeErr(code, field);
}
function checkTime(obj, key, code, field, { required = false, nullable = false } = {}) {
  const v = own(obj, key);
  if (v === undefined) { if (required) throw typeErr(code, field); return; }
  if (v === null && nullable) return;
  if (typeof v !== 'string') throw typeErr(code, field);
  if (!isRfc3339(v)) throw rangeErr(code, field);
}

// The constructor's config object (upstream's keys, then persist and the times).
function validateAnalyticsConfig(cfg, { hasLoopId = false, prefix = '', code = 'invalid_config', unknownCode = 'unknown_option', keys = ANALYTICS_OPTIONS } = {}) {
  if (cfg === undefined || cfg === null) return;
  if (!isPlainObject(cfg)) throw typeErr(code, prefix ? prefix.slice(0, -1) : 'config');
  checkUnknown(cfg, keys, prefix, unknownCode);
  checkString(cfg, 'storagePath', code, prefix + 'storagePath', { nonEmpty: true });
  checkNumber(cfg, 'diminishingReturnsThreshold', code, prefix + 'diminishingReturnsThreshold', { min: 0 });
  checkNumber(cfg, 'consecutiveCountThreshold', code, prefix + 'consecutiveCountThreshold', { min: 1, integer: true });
  checkNumber(cfg, 'qualityThreshold', code, prefix + 'qualityThreshold', { min: 0, max: 100 });
  checkEnum(cfg, 'selectionCriteria', CRITERIA, code, prefix + 'selectionCriteria');
  checkBoolean(cfg, 'persist', code, prefix + 'persist');
  if (own(cfg, 'persist') === true && !hasLoopId) throw rangeErr(code, prefix + 'persist');
  checkTime(cfg, 'startTime', code, prefix + 'startTime');
  checkTime(cfg, 'endTime', code, prefix + 'endTime', { nullable: true });
}

// A record: `recordIteration`'s argument, or (stored) one inside a snapshot or a summary.
function validateAnalyticsRecord(r, { prefix = '', stored = false } = {}) {
  const resCode = stored ? 'invalid_snapshot' : 'invalid_result';
  const itCode = stored ? 'invalid_snapshot' : 'invalid_iteration';
  if (!isPlainObject(r)) throw typeErr(resCode, stored ? prefix.slice(0, -1) : 'record');
  checkUnknown(r, ANALYTICS_RECORD_KEYS, prefix, stored ? resCode : 'unknown_option');
  const it = own(r, 'iteration_number');
  if (it === undefined) throw typeErr(itCode, prefix + 'iteration_number');
  validateIteration(it, itCode, prefix + 'iteration_number');
  checkNumber(r, 'quality_score', resCode, prefix + 'quality_score', { required: true, min: 0, max: 100 });
  checkEnum(r, 'verification_status', STATUSES, resCode, prefix + 'verification_status', true);
  for (const k of OPTIONAL_RECORD_KEYS) checkNumber(r, k, resCode, prefix + k, { min: 0 });
  checkString(r, 'output_snapshot_path', resCode, prefix + 'output_snapshot_path', { nullable: true });
  const reflections = own(r, 'reflections');
  if (reflections !== undefined || stored) {
    if (!Array.isArray(reflections)) throw typeErr(resCode, prefix + 'reflections');
    reflections.forEach((x, i) => { if (typeof x !== 'string') throw typeErr(resCode, `${prefix}reflections[${i}]`); });
  }
  checkNumber(r, 'quality_delta', resCode, prefix + 'quality_delta', { required: stored });
  checkTime(r, 'timestamp', resCode, prefix + 'timestamp', { required: stored });
}

// Stored records: each keeps its quality_delta (any finite number), as upstream's do.
function validateStoredRecords(records, path) {
  if (!Array.isArray(records)) throw typeErr('invalid_snapshot', path);
  records.forEach((r, i) => validateAnalyticsRecord(r, { prefix: `${path}[${i}].`, stored: true }));
}

// The reference's clock, and its working directory.
export class ClockRead extends Error {}
let analyticsDir = null;
// Runs `fn` with `Date` answering `now` (undefined: reading the clock throws ClockRead) in a
// temporary working directory (the reference writes files where it is told to).
export function referenceCall(now, fn) {
  const RealDate = globalThis.Date;
  class VectorClock extends RealDate {
    constructor(...args) {
      if (args.length > 0) { super(...args); return; }
      if (now === undefined) throw new ClockRead('the reference read the clock where the vector gives no time');
      super(now);
    }
    static now() {
      if (now === undefined) throw new ClockRead('the reference read the clock where the vector gives no time');
      return RealDate.parse(now);
    }
  }
  if (analyticsDir === null) {
    analyticsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'earlyexit-vectors-'));
    process.on('exit', () => fs.rmSync(analyticsDir, { recursive: true, force: true }));
  }
  const cwd = process.cwd();
  globalThis.Date = VectorClock;
  process.chdir(analyticsDir);
  try {
    return fn();
  } finally {
    globalThis.Date = RealDate;
    process.chdir(cwd);
  }
}
// A time the reference will print: the vectors give times as `toISOString()` writes them.
function canonical(t) {
  if (t !== undefined && t !== null && new Date(t).toISOString() !== t) throw new Error(`give times as toISOString() writes them: ${t}`);
  return t;
}

// The reference with the deliberate differences (docs/api-conventions.md), one override each.
const PROJECT_CLASSES = new WeakMap();
export function projectClass(Reference) {
  if (PROJECT_CLASSES.has(Reference)) return PROJECT_CLASSES.get(Reference);
  const NA = '\u0000N/A';
  class ProjectAnalytics extends Reference {
    // Totals sum the records that have the field (upstream: NaN once one lacks it).
    generateSummary() {
      const summary = super.generateSummary();
      for (const [total, key] of [['total_tokens', 'tokens_used'], ['total_cost_usd', 'token_cost_usd'], ['total_time_ms', 'execution_time_ms']]) {
        summary[total] = this.iterations.reduce((sum, it) => (it[key] === undefined ? sum : sum + it[key]), 0);
      }
      return summary;
    }

    // highest_quality_verified with no passed record reaching qualityThreshold says so
    // (upstream's fallback branch cannot be reached: it names the unverified record "verified").
    selectBestIteration() {
      const selection = super.selectBestIteration();
      if (this.config.selectionCriteria === 'highest_quality_verified' && selection.selected !== null
        && !this.iterations.some((it) => it.verification_status === 'passed' && it.quality_score >= this.config.qualityThreshold)) {
        selection.reason = 'No verified iterations above threshold, selected highest quality overall';
      }
      return selection;
    }

    // A record without tokens_used or token_cost_usd shows N/A in its row (upstream prints
    // `undefined`, or throws on the missing cost).
    generateReport() {
      const summary = this.generateSummary();
      const saved = this.iterations;
      this.iterations = saved.map((it) => ({
        ...it,
        tokens_used: it.tokens_used === undefined ? 'N/A' : it.tokens_used,
        token_cost_usd: it.token_cost_usd === undefined ? { toFixed: () => NA } : it.token_cost_usd,
      }));
      this.generateSummary = () => summary;
      try {
        return super.generateReport().split(`$${NA}`).join('N/A');
      } finally {
        this.iterations = saved;
        delete this.generateSummary;
      }
    }
  }
  PROJECT_CLASSES.set(Reference, ProjectAnalytics);
  return ProjectAnalytics;
}

class AnalyticsEngine {
  static construct(ctx, c) {
    const upstream = own(c, 'loopId') !== undefined;
    if (upstream) {
      if (typeof c.loopId !== 'string') throw typeErr('invalid_config', 'loopId');
      if (typeof own(c, 'taskDescription') !== 'string') throw typeErr('invalid_config', 'taskDescription');
    }
    const config = c.config === null ? undefined : c.config;
    validateAnalyticsConfig(config, { hasLoopId: upstream });
    return AnalyticsEngine.make(ctx, upstream ? c.loopId : null, upstream ? c.taskDescription : null, config ?? {});
  }

  // Both sides from validated arguments: the reference as upstream builds it, then the
  // project's options (times) written to its public fields.
  static make(ctx, loopId, taskDescription, config, restore = null) {
    const { persist, startTime, endTime, ...upstreamConfig } = config;
    const made = [];
    for (const Class of [ctx.ref.ia.IterationAnalytics, projectClass(ctx.ref.ia.IterationAnalytics)]) {
      const a = referenceCall(canonical(restore ? restore.startTime : startTime), () => new Class(loopId, taskDescription, clone(upstreamConfig)));
      if (restore) {
        a.startTime = restore.startTime;
        a.endTime = restore.endTime;
        a.iterations = clone(restore.iterations);
      }
      if (startTime !== undefined) a.startTime = canonical(startTime);
      if (endTime !== undefined && endTime !== null) a.endTime = canonical(endTime);
      made.push(a);
    }
    return new AnalyticsEngine(ctx, made[0], made[1]);
  }

  constructor(ctx, reference, project) { this.ctx = ctx; this.reference = reference; this.project = project; }

  // Calls `method` on both; `ref` is the reference's answer (or its throw), `full` the project's.
  both(now, method, ...args) {
    const full = clone(referenceCall(now, () => this.project[method](...args)));
    let ref;
    try {
      ref = clone(referenceCall(now, () => this.reference[method](...args)));
    } catch (e) {
      if (e instanceof ClockRead) throw e;
      return { ref: full, full, differs: true };
    }
    const differs = JSON.stringify(encode(ref)) !== JSON.stringify(encode(full));
    return { ref: full, full, differs };
  }

  config() {
    const out = {};
    for (const k of Object.keys(ANALYTICS_DEFAULTS)) out[k] = this.project.config[k];
    return out;
  }

  async call(name, args) {
    const p = this.project;
    switch (name) {
      case 'recordIteration': {
        validateAnalyticsRecord(args[0]);
        // The reference saves after every record, and its first save sets endTime; the
        // vectors' objects do not save (persist: false or the config-object form), so
        // endTime stays as it was.
        const ends = [this.reference.endTime, p.endTime];
        const out = this.both(canonical(args[0].timestamp), 'recordIteration', clone(args[0]));
        [this.reference.endTime, p.endTime] = ends;
        return out;
      }
      case 'detectDiminishingReturns': return this.both(undefined, 'detectDiminishingReturns');
      case 'getTrajectory': return this.both(undefined, 'getTrajectory');
      case 'getOptimalIteration':
        if (args[0] !== undefined && typeof args[0] !== 'boolean') throw typeErr('invalid_config', 'verifiedOnly');
        return this.both(undefined, 'getOptimalIteration', args[0] ?? true);
      case 'selectBestIteration': return this.both(undefined, 'selectBestIteration');
      case 'generateSummary': return this.both(undefined, 'generateSummary');
      case 'generateQualityChart': return this.both(undefined, 'generateQualityChart');
      case 'generateReport': {
        const options = args[0] ?? {};
        if (!isPlainObject(options)) throw typeErr('invalid_config', 'options');
        checkUnknown(options, ['generatedAt'], '');
        checkTime(options, 'generatedAt', 'invalid_config', 'generatedAt');
        return this.both(canonical(options.generatedAt), 'generateReport');
      }
      case 'formatDuration': {
        const ms = args[0];
        if (typeof ms !== 'number') throw typeErr('invalid_config', 'ms');
        if (!Number.isFinite(ms)) throw rangeErr('invalid_config', 'ms');
        return { ref: this.ctx.ref.ia.IterationAnalytics.formatDuration(ms) };
      }
      case 'getConfig': return { ref: this.config() };
      case 'getRecords': return { ref: clone(p.iterations) };
      case 'reset':
        this.reference.iterations = [];
        p.iterations = [];
        return { ref: undefined };
      case 'toJSON': return { ref: this.snapshot() };
      case 'fromSummary': {
        const [summary, config] = args;
        let s = summary;
        if (typeof s === 'string') {
          try { s = JSON.parse(s); } catch { throw rangeErr('invalid_snapshot', 'summary'); }
        }
        if (!isPlainObject(s)) throw typeErr('invalid_snapshot', 'summary');
        checkUnknown(s, SUMMARY_KEYS, '', 'invalid_snapshot');
        for (const k of ['loop_id', 'task_description']) checkString(s, k, 'invalid_snapshot', k, { required: true, nullable: true });
        checkTime(s, 'start_time', 'invalid_snapshot', 'start_time', { required: true });
        checkTime(s, 'end_time', 'invalid_snapshot', 'end_time', { required: true, nullable: true });
        const cfg = config === null ? undefined : config;
        validateAnalyticsConfig(cfg, { hasLoopId: s.loop_id !== null });
        validateStoredRecords(own(s, 'iterations'), 'iterations');
        const engine = AnalyticsEngine.make(this.ctx, s.loop_id, s.task_description, { ...(cfg ?? {}) },
          { startTime: s.start_time, endTime: s.end_time, iterations: s.iterations });
        Object.assign(this, { reference: engine.reference, project: engine.project });
        return { ref: undefined };
      }
      default: throw new Error(`IterationAnalytics has no call ${name}`);
    }
  }

  snapshot() {
    const p = this.project;
    return clone({
      version: 1, engine: 'IterationAnalytics', config: this.config(), loopId: p.loopId, taskDescription: p.taskDescription,
      startTime: p.startTime, endTime: p.endTime, records: p.iterations,
    });
  }

  static fromJSON(ctx, arg) {
    const s = parseSnapshot(arg, 'IterationAnalytics');
    const code = 'invalid_snapshot';
    if (!isPlainObject(own(s, 'config'))) throw typeErr(code, 'config');
    validateAnalyticsConfig(s.config, { prefix: 'config.', code, unknownCode: code, keys: Object.keys(ANALYTICS_DEFAULTS) });
    for (const k of ['loopId', 'taskDescription']) checkString(s, k, code, k, { nullable: true });
    for (const k of ['startTime', 'endTime']) checkTime(s, k, code, k, { nullable: true });
    const records = own(s, 'records');
    if (!Array.isArray(records)) throw typeErr(code, 'records');
    validateStoredRecords(records, 'records');
    return AnalyticsEngine.make(ctx, s.loopId ?? null, s.taskDescription ?? null, { ...s.config },
      { startTime: s.startTime, endTime: s.endTime ?? null, iterations: records });
  }
}

// --- Engine 2 --------------------------------------------------------------

const EXIT_KEYS = ['exitLayer', 'minLambdaForExit', 'minLambdaStability', 'maxBoundaryConcentration',
  'speculativeTests', 'verificationLayers', 'adaptiveExitLayer', 'minConfidence'];

function validateExitConfig(cfg, prefix = '', code = 'invalid_config', unknownCode = 'unknown_option') {
  if (cfg === undefined || cfg === null) return;
  if (!isPlainObject(cfg)) throw typeErr(code, 'config');
  checkUnknown(cfg, EXIT_KEYS, prefix, unknownCode);
  checkNumber(cfg, 'exitLayer', code, prefix + 'exitLayer', { min: 0, integer: true });
  checkNumber(cfg, 'minLambdaForExit', code, prefix + 'minLambdaForExit', { min: 0, max: 100 });
  checkNumber(cfg, 'minLambdaStability', code, prefix + 'minLambdaStability', { min: 0, max: 1 });
  checkNumber(cfg, 'maxBoundaryConcentration', code, prefix + 'maxBoundaryConcentration', { min: 0, max: 1 });
  checkNumber(cfg, 'speculativeTests', code, prefix + 'speculativeTests', { min: 0, integer: true });
  checkNumber(cfg, 'verificationLayers', code, prefix + 'verificationLayers', { min: 0, integer: true });
  checkBoolean(cfg, 'adaptiveExitLayer', code, prefix + 'adaptiveExitLayer');
  checkNumber(cfg, 'minConfidence', code, prefix + 'minConfidence', { min: 0, max: 1 });
}

function validateTotalLayers(n, code = 'invalid_config', field = 'totalLayers') {
  if (typeof n !== 'number') throw typeErr(code, field);
  if (!Number.isFinite(n) || !Number.isInteger(n) || n < 1 || n > MAX_SAFE) throw rangeErr(code, field);
}

// `prefix` is '' for calculateQualitySignal and 'layers[i].' for a runner's result.
function validateLayerResult(r, prefix = '', code = 'invalid_layer_result') {
  if (!isPlainObject(r)) throw typeErr(code, prefix ? prefix.slice(0, -1) : 'layerResult');
  for (const k of ['passRate', 'coverage', 'flakyRatio']) checkNumber(r, k, code, prefix + k, { required: true, min: 0, max: 1 });
  checkNumber(r, 'previousLambda', code, prefix + 'previousLambda', { min: 0, max: 100 });
  const name = own(r, 'name');
  if (name !== undefined && typeof name !== 'string') throw typeErr(code, prefix + 'name');
  checkNumber(r, 'durationMs', code, prefix + 'durationMs', { min: 0 });
  for (const k of ['total', 'passed', 'failed', 'flaky']) checkNumber(r, k, code, prefix + k, { min: 0, integer: true });
  const total = own(r, 'total');
  if (total !== undefined) {
    // Reported on a field the caller gave: passed when present, else failed.
    if (own(r, 'passed') !== undefined && own(r, 'passed') + (own(r, 'failed') ?? 0) > total) throw rangeErr(code, prefix + 'passed');
    if ((own(r, 'failed') ?? 0) > total) throw rangeErr(code, prefix + 'failed');
    if ((own(r, 'flaky') ?? 0) > total) throw rangeErr(code, prefix + 'flaky');
  }
}

function validateSignal(s, layer) {
  const code = 'invalid_signal';
  if (!isPlainObject(s)) throw typeErr(code, 'signal');
  checkUnknown(s, ['lambda', 'lambdaPrev', 'boundaryEdges', 'boundaryConcentration', 'partitionCount', 'flags'], '');
  checkNumber(s, 'lambda', code, 'lambda', { required: true, min: 0, max: 100 });
  checkNumber(s, 'lambdaPrev', code, 'lambdaPrev', { required: true, min: 0, max: 100 });
  checkNumber(s, 'boundaryEdges', code, 'boundaryEdges', { required: true, min: 0, max: 3, integer: true });
  checkNumber(s, 'boundaryConcentration', code, 'boundaryConcentration', { required: true, min: 0, max: 1 });
  checkNumber(s, 'partitionCount', code, 'partitionCount', { required: true, min: 0, max: 3, integer: true });
  // flags is a bit set: 32 bits (docs/api-conventions.md).
  checkNumber(s, 'flags', code, 'flags', { required: true, min: 0, max: 4294967295, integer: true });
  if (typeof layer !== 'number') throw typeErr(code, 'layer');
  if (!Number.isFinite(layer) || !Number.isInteger(layer) || layer < 0 || layer > MAX_SAFE) throw rangeErr(code, 'layer');
}

// Layer specs: {name, costMs?} (+ run in JS). In a vector, `results` is the
// script and not part of the spec.
function validateLayerSpecs(layers) {
  const code = 'invalid_config';
  if (!Array.isArray(layers)) throw typeErr(code, 'layers');
  layers.forEach((spec, i) => {
    if (!isPlainObject(spec)) throw typeErr(code, `layers[${i}]`);
    const name = own(spec, 'name');
    if (typeof name !== 'string') throw typeErr(code, `layers[${i}].name`);
    checkNumber(spec, 'costMs', code, `layers[${i}].costMs`, { min: 0 });
  });
}

function mergedExitConfig(ctx, cfg) { return { ...ctx.ref.adr.DEFAULT_EXIT_CONFIG, ...(cfg ?? {}) }; }

// The verdict (docs/pyramid-verdict.md), from what was observed: a layer that ran or was
// verified is failing when passRate < 1; any failing layer: failed; every layer observed:
// passed; else unverified. `observed[k]` is the result of the layer `order[k]`.
function verdictOf(order, observed, specs) {
  const failingLayers = [];
  order.forEach((i, k) => { if (observed[k].passRate < 1) failingLayers.push({ layer: i, name: specs[i].name }); });
  const verdict = failingLayers.length > 0 ? 'failed' : specs.every((_, i) => order.includes(i)) ? 'passed' : 'unverified';
  return { verdict, failingLayers };
}

// Honest accounting, from what happened: the order of runner calls, the
// verified speculations and the layers never run.
function accounting(result, order, specs, observed) {
  const ran = new Set(order);
  let saved = 0;
  for (let i = 0; i < specs.length; i++) {
    if (ran.has(i)) continue;
    const cost = own(specs[i], 'costMs');
    if (cost === undefined) { saved = null; break; }
    saved += cost;
  }
  // Results that explain themselves (docs/test-exit.md): each prediction names its layer
  // (the layers after the exit, in order); the layers run before the exit are the first
  // `layers.length` runner calls, the verified ones the rest; a note when an exit saved nothing.
  const before = order.slice(0, result.layers.length);
  const verifiedOrder = order.slice(result.layers.length);
  const notRun = specs.map((_, i) => i).filter((i) => !ran.has(i));
  const explained = {
    layersBeforeExit: before,
    layersVerified: verifiedOrder,
    layersNotRun: notRun,
  };
  if (result.exitedEarly && result.skippedLayers > 0 && notRun.length === 0) explained.note = NOTE_NOTHING_SAVED;
  return {
    ...result,
    speculations: result.speculations.map((s, k) => {
      const layer = result.exitLayer + 1 + k;
      return { ...s, layer, name: specs[layer].name };
    }),
    layersExecuted: [...order],
    verifiedLayers: result.speculations.filter((s) => s.verified === true).length,
    mispredictions: result.speculations.filter((s) => s.verified === true && s.correct !== true).length,
    computeSavedMs: saved,
    ...verdictOf(order, observed, specs),
    ...explained,
  };
}
// The note of a result whose exit saved nothing (the core's `NOTE_NOTHING_SAVED`).
const NOTE_NOTHING_SAVED = 'nothing saved: the run exited early, but verification then ran every skipped layer, '
  + 'so every layer ran; an exit saves compute only when more layers follow it than verificationLayers';
const PYRAMID_EXTRAS = new Set(['layersExecuted', 'verifiedLayers', 'mispredictions', 'computeSavedMs', 'verdict', 'failingLayers',
  'layersBeforeExit', 'layersVerified', 'layersNotRun', 'note']);

// Scripted runners: each call returns a fresh copy of the next element;
// {"$throw": msg} throws; a result that is not a valid LayerResult is the
// typed error the project raises (validated before the reference sees it).
function scriptedLayers(specs, counts, order, observed = []) {
  return specs.map((spec, i) => {
    const layer = { name: spec.name };
    if (own(spec, 'costMs') !== undefined) layer.costMs = spec.costMs;
    layer.run = async () => {
      const k = counts[i]++;
      order.push(i);
      const results = spec.results ?? [];
      if (k >= results.length) throw new Error(`runner script of layer ${i} exhausted`);
      const el = clone(results[k]);
      if (isPlainObject(el) && Object.keys(el).length === 1 && typeof el.$throw === 'string') throw new RunnerError(el.$throw);
      validateLayerResult(el, `layers[${i}].`);
      observed.push(clone(el));
      return el;
    };
    return layer;
  });
}

class SignalEngine {
  static construct(ctx) { return new SignalEngine(ctx); }
  constructor(ctx) { this.ctx = ctx; }
  async call(name, args) {
    if (name !== 'calculateQualitySignal' && name !== 'countQualityPartitions') throw new Error(`no call ${name}`);
    validateLayerResult(args[0]);
    return { ref: clone(this.ctx.ref.adr[name](clone(args[0]))) };
  }
}

class ExitEngine {
  static construct(ctx, c) {
    validateExitConfig(c.config);
    validateTotalLayers(c.totalLayers);
    return new ExitEngine(new ctx.ref.adr.CoherenceEarlyExit(mergedExitConfig(ctx, c.config), c.totalLayers));
  }
  constructor(e) { this.e = e; }
  async call(name, args) {
    if (name !== 'shouldExit') throw new Error(`no call ${name}`);
    validateSignal(args[0], args[1]);
    return { ref: clone(this.e.shouldExit(clone(args[0]), args[1])) };
  }
}

class SpeculationEngine {
  static construct(ctx, c) {
    validateExitConfig(c.config);
    return new SpeculationEngine(new ctx.ref.adr.SpeculativeExecutor(mergedExitConfig(ctx, c.config)));
  }
  constructor(s) { this.s = s; }
  async call(name, args, call) {
    if (name === 'speculate') {
      const d = args[0];
      if (!isPlainObject(d)) throw typeErr('invalid_signal', 'decision');
      checkNumber(d, 'confidence', 'invalid_signal', 'decision.confidence', { required: true, min: 0, max: 1 });
      return { ref: clone(await this.s.speculate(clone(d), clone(args[1]))) };
    }
    if (name === 'verify') {
      const counts = call.layers.map(() => 0);
      const order = [];
      const layers = scriptedLayers(call.layers, counts, order);
      const out = clone(await this.s.verify(clone(args[0]), layers));
      return { ref: out, runnerCalls: counts };
    }
    throw new Error(`no call ${name}`);
  }
}

class ControllerEngine {
  static construct(ctx, c) {
    validateExitConfig(c.config);
    validateTotalLayers(c.totalLayers);
    return new ControllerEngine(new ctx.ref.adr.EarlyExitController(mergedExitConfig(ctx, c.config), c.totalLayers));
  }
  constructor(ctrl) { this.ctrl = ctrl; }
  async call(name, args, call) {
    if (name !== 'runWithEarlyExit') throw new Error(`no call ${name}`);
    const specs = call.layers;
    const counts = specs.map(() => 0);
    try {
      validateLayerSpecs(specs.map(({ results, ...spec }) => spec));
      const order = [];
      const observed = [];
      const res = await this.ctrl.runWithEarlyExit(scriptedLayers(specs, counts, order, observed));
      return { ref: clone(accounting(res, order, specs, observed)), extras: PYRAMID_EXTRAS, runnerCalls: counts };
    } catch (e) {
      e.runnerCalls = counts;
      throw e;
    }
  }
}

// The step API, answered by replaying the reference controller over the
// results submitted so far: the first runner call that has no submitted
// result yet is the pending action (a `verify` once the exit decision said
// canExit, else a `run`).
class Pending extends Error { constructor(action) { super('pending'); this.action = action; } }

async function replay(ctx, st) {
  const ctrl = new ctx.ref.adr.EarlyExitController(st.config, st.totalLayers);
  let exited = false;
  const shouldExit = ctrl.earlyExit.shouldExit.bind(ctrl.earlyExit);
  ctrl.earlyExit.shouldExit = (signal, layer) => {
    const d = shouldExit(signal, layer);
    if (d.canExit) exited = true;
    return d;
  };
  let k = 0;
  const order = [];
  const layers = st.layers.map((spec, i) => ({
    name: spec.name,
    run: async () => {
      if (k < st.submitted.length) {
        const sub = st.submitted[k++];
        if (sub.layer !== i) throw new Error('replay diverged');
        order.push(i);
        return clone(sub.result);
      }
      throw new Pending({ action: exited ? 'verify' : 'run', layer: i });
    },
  }));
  try {
    const res = await ctrl.runWithEarlyExit(layers);
    return { done: true, result: accounting(res, order, st.layers, st.submitted.map((s) => s.result)) };
  } catch (e) {
    if (e instanceof Pending) return { done: false, action: e.action };
    throw e;
  }
}

class PyramidRunEngine {
  static construct(ctx, c) {
    validateExitConfig(c.config);
    validateTotalLayers(c.totalLayers);
    validateLayerSpecs(c.layers);
    return new PyramidRunEngine(ctx, { config: mergedExitConfig(ctx, c.config), totalLayers: c.totalLayers, layers: clone(c.layers), submitted: [] });
  }
  constructor(ctx, st) { this.ctx = ctx; this.st = st; }
  async call(name, args) {
    const r = await replay(this.ctx, this.st);
    switch (name) {
      case 'next': return { ref: r.done ? { action: 'done' } : clone(r.action) };
      case 'submit': {
        if (typeof args[0] !== 'number') throw typeErr('invalid_step', 'layer');
        if (r.done || args[0] !== r.action.layer) throw rangeErr('invalid_step', 'layer');
        validateLayerResult(args[1], `layers[${args[0]}].`);
        this.st.submitted.push({ layer: args[0], result: clone(args[1]) });
        return { ref: undefined };
      }
      case 'result':
        if (!r.done) throw rangeErr('invalid_step', 'result');
        return { ref: clone(r.result), extras: PYRAMID_EXTRAS };
      case 'toJSON': return { ref: clone({ version: 1, engine: 'PyramidRun', ...this.st }) };
      default: throw new Error(`PyramidRun has no call ${name}`);
    }
  }
  static async fromJSON(ctx, arg) {
    const s = parseSnapshot(arg, 'PyramidRun');
    const code = 'invalid_snapshot';
    if (!isPlainObject(own(s, 'config'))) throw typeErr(code, 'config');
    validateExitConfig(s.config, 'config.', code, code);
    validateTotalLayers(own(s, 'totalLayers'), code, 'totalLayers');
    const st = { config: mergedExitConfig(ctx, s.config), totalLayers: s.totalLayers, layers: clone(s.layers), submitted: [] };
    const e = new PyramidRunEngine(ctx, st);
    for (const [k, sub] of (s.submitted ?? []).entries()) {
      const r = await replay(ctx, st);
      if (typeof own(sub, 'layer') !== 'number') throw typeErr(code, `submitted[${k}].layer`);
      if (r.done || r.action.layer !== sub.layer) throw rangeErr(code, `submitted[${k}].layer`);
      validateLayerResult(own(sub, 'result'), `submitted[${k}].result.`, code);
      st.submitted.push(clone(sub));
    }
    return e;
  }
}

class JsnumEngine {
  static construct() { return new JsnumEngine(); }
  async call(name, args) {
    if (name === 'toFixed') return { ref: Number.prototype.toFixed.call(args[0], args[1]) };
    if (name === 'toString') return { ref: String(args[0]) };
    throw new Error(`jsnum has no call ${name}`);
  }
}

export const ENGINES = {
  EarlyStopping: LoopEngine, IterationAnalytics: AnalyticsEngine, calculateQualitySignal: SignalEngine,
  CoherenceEarlyExit: ExitEngine, SpeculativeExecutor: SpeculationEngine, EarlyExitController: ControllerEngine,
  PyramidRun: PyramidRunEngine, jsnum: JsnumEngine,
};

// --- Saved snapshots in arguments --------------------------------------------

function parsePath(p) {
  const out = [];
  for (const part of p.split('.')) {
    const m = /^([^[\]]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) throw new Error(`bad patch path ${p}`);
    out.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

function resolveArg(ctx, a) {
  if (isPlainObject(a) && typeof a.$saved === 'string') {
    if (!ctx.saved.has(a.$saved)) throw new Error(`nothing saved as ${a.$saved}`);
    const v = clone(ctx.saved.get(a.$saved));
    for (const p of a.patch ?? []) {
      const segs = parsePath(p.path);
      let o = v;
      for (const s of segs.slice(0, -1)) o = o[s];
      const last = segs[segs.length - 1];
      if (p.delete) delete o[last];
      else o[last] = decode(p.value);
    }
    return a.as === 'string' ? JSON.stringify(v) : v;
  }
  return decode(a);
}

// Runs one vector. Per call: {ref, full, extras, runnerCalls} or {throws, runnerCalls}.
// `ref` is what the reference returns (plus the pyramid's accounting facts),
// `full` adds the listed extras the model knows (best_iteration, optional record fields).
export async function evaluate(vector, ref) {
  const Engine = ENGINES[vector.engine];
  if (!Engine) throw new Error(`unknown engine ${vector.engine}`);
  const ctx = { ref, saved: new Map(), analyticsCalls: 0 };
  let inst;
  try {
    inst = Engine.construct(ctx, decode(vector.construct ?? {}));
  } catch (e) {
    if (e instanceof ValidationError) return { constructThrows: { code: e.code, field: e.field, kind: e.kind }, calls: [], analyticsCalls: 0 };
    throw e;
  }
  const out = [];
  for (const call of vector.calls) {
    let res;
    let args;
    try {
      args = (call.args ?? []).map((a) => resolveArg(ctx, a));
      if (call.call === 'new') { inst = Engine.construct(ctx, decode(call.construct)); res = { ref: undefined }; }
      else if (call.call === 'fromJSON') { inst = await Engine.fromJSON(ctx, args[0]); res = { ref: undefined }; }
      else res = await inst.call(call.call, args, { ...call, layers: call.layers && decode(call.layers) });
      if (call.saveAs) ctx.saved.set(call.saveAs, res.ref);
    } catch (e) {
      if (e instanceof ValidationError) res = { throws: { code: e.code, field: e.field, kind: e.kind } };
      else if (e instanceof RunnerError) res = { throws: { message: e.message } };
      else throw e;
      if (e.runnerCalls) res.runnerCalls = e.runnerCalls;
    }
    if (!('throws' in res)) {
      if (!('full' in res)) res.full = res.ref;
      // a key the reference leaves undefined is absent
      res.ref = decode(encode(res.ref));
      res.full = decode(encode(res.full));
      if (!res.extras) res.extras = NO_EXTRAS;
    }
    res.args = args;
    res.analyticsCalls = ctx.analyticsCalls;
    out.push(res);
  }
  return { calls: out, analyticsCalls: ctx.analyticsCalls };
}

// Compares a vector's recorded expectations with an evaluation; returns mismatch strings.
export function checkVector(vector, ev) {
  const errs = [];
  if ('throws' in vector || ev.constructThrows) {
    if (!ev.constructThrows) return ['expected the constructor to throw'];
    if (!('throws' in vector)) return [`constructor threw ${fmt(ev.constructThrows)}`];
    return compare(vector.throws, ev.constructThrows, NO_EXTRAS, 'throws');
  }
  vector.calls.forEach((call, i) => {
    const r = ev.calls[i];
    const at = `call ${i} (${call.call})`;
    if ('throws' in call) {
      if (!r.throws) errs.push(`${at}: expected throws ${fmt(call.throws)}, got ${fmt(r.full)}`);
      else errs.push(...compare(call.throws, r.throws, NO_EXTRAS, `${at}.throws`));
    } else if (r.throws) {
      errs.push(`${at}: unexpected throw ${fmt(r.throws)}`);
    } else if ('returns' in call) {
      errs.push(...compare(decode(call.returns), r.full, r.extras, `${at}.returns`));
    }
    if ('analyticsCalls' in call && call.analyticsCalls !== r.analyticsCalls) errs.push(`${at}: analyticsCalls ${call.analyticsCalls} != ${r.analyticsCalls}`);
    if ('runnerCalls' in call) errs.push(...compare(call.runnerCalls, r.runnerCalls, NO_EXTRAS, `${at}.runnerCalls`));
  });
  if ('analyticsCalls' in vector && vector.analyticsCalls !== ev.analyticsCalls) errs.push(`analyticsCalls ${vector.analyticsCalls} != ${ev.analyticsCalls}`);
  return errs;
}
