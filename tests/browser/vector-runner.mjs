// Runs conformance vectors (tests/vectors/*.json, format in tests/vectors/README.md
// and ../shared/design/vectors.md) against an earlyexit JS API object: the
// wasm web build in the browser (vectors.js), or any module with the same
// exports in Node. No DOM, no Node built-ins: it runs anywhere.
//
// For every call: the listed keys of `returns` compared (numbers with
// Object.is, so bit for bit, -0 and NaN included; keys in the listed order;
// any other key must be a listed extra), `throws` compared as {code, field,
// kind} (kind: TypeError = "type", RangeError = "range", and the error must be
// a real Error) or, for a scripted runner's error, {message} plus identity
// (the very error the runner threw), `runnerCalls` and `analyticsCalls`.
// After a rejected call the engine's snapshot (toJSON; a BehaviorDetector's thresholds, an
// InterventionSystem's exported state) must be unchanged. An InterventionSystem's clock
// answers each call's `now`, and its callbacks are counted (`callbacks` on the vector).
// The codec and the comparison are tests/vectors/common.mjs (shared with the
// generators and the Node suites).

import { compare, decode, isPlainObject, NO_EXTRAS, normalize, show } from '../vectors/common.mjs';

export { compare, decode };

// The listed extra keys a call's result may carry beyond the reference's.
const DECISION_EXTRAS = new Set(['best_iteration', 'best_quality_score', 'budgets']);
const RECORD_EXTRAS = new Set(['tokens_used', 'token_cost_usd', 'execution_time_ms']);
const PYRAMID_EXTRAS = new Set(['layersExecuted', 'verifiedLayers', 'mispredictions', 'computeSavedMs', 'verdict', 'failingLayers']);
function extrasFor(engine, call) {
  if (call === 'shouldStop') return DECISION_EXTRAS;
  if (engine === 'EarlyStopping' && (call === 'getIterationHistory' || call === 'toJSON')) return RECORD_EXTRAS;
  if (call === 'runWithEarlyExit' || (engine === 'PyramidRun' && call === 'result')) return PYRAMID_EXTRAS;
  return NO_EXTRAS;
}

// ---------------------------------------------------------------------------
// Engines.

/** Whether a vector applies to the JS suites (no `only`, or `only` lists "js"). */
export const appliesToJs = (vector) => !Array.isArray(vector.only) || vector.only.includes('js');

const clone = (v) => (v === undefined ? undefined : structuredClone(v));

// A scripted diminishing-returns source: the next element per call, null past the end.
function scriptedAnalytics(ctx, spec) {
  if (spec === undefined || spec === null) return spec;
  if (isPlainObject(spec) && Array.isArray(spec.script)) {
    const script = spec.script;
    let next = 0;
    return {
      detectDiminishingReturns() {
        ctx.analyticsCalls++;
        const r = next < script.length ? clone(script[next]) : null;
        next++;
        return r;
      },
    };
  }
  if (isPlainObject(spec) && 'value' in spec) return spec.value; // passed as itself
  return spec;
}

// Scripted runners: each call returns a fresh copy of the layer's next
// result; {"$throw": msg} throws an Error the caller must see unchanged.
function scriptedLayers(ctx, specs, counts) {
  return specs.map((spec, i) => {
    const layer = {};
    for (const [k, v] of Object.entries(spec)) if (k !== 'results') layer[k] = v;
    layer.run = async () => {
      const k = counts[i]++;
      const results = spec.results ?? [];
      if (k >= results.length) throw new Error(`runner script of layer ${i} exhausted`);
      const el = results[k];
      if (isPlainObject(el) && Object.keys(el).length === 1 && typeof el.$throw === 'string') {
        const err = new Error(el.$throw);
        ctx.thrown.add(err);
        throw err;
      }
      return clone(el);
    };
    return layer;
  });
}

function construct(api, engine, c, ctx) {
  switch (engine) {
    case 'EarlyStopping':
      // A shadow candidate is the third argument's `shadow`, beside the policy it does not replace.
      return new api.EarlyStopping(c.config, scriptedAnalytics(ctx, c.analytics),
        'shadow' in c ? { shadow: c.shadow, ...(c.policy == null ? {} : { policy: c.policy }) } : c.policy);
    case 'IterationAnalytics':
      // upstream's form `(loopId, taskDescription, config)` when the vector gives `loopId`.
      if ('loopId' in c) return new api.IterationAnalytics(c.loopId, c.taskDescription, c.config);
      return new api.IterationAnalytics(c.config);
    case 'CoherenceEarlyExit':
      return new api.CoherenceEarlyExit(c.config, c.totalLayers);
    case 'SpeculativeExecutor':
      return new api.SpeculativeExecutor(c.config);
    case 'EarlyExitController':
      return new api.EarlyExitController(c.config, c.totalLayers, c.options);
    case 'PyramidRun':
      return api.PyramidRun.start(c.config, c.totalLayers, c.layers, c.options);
    case 'BehaviorDetector':
      return new api.BehaviorDetector(c.options);
    case 'InterventionSystem':
      return new api.InterventionSystem('options' in c ? c.options : {
        onIntervention: () => ctx.callbacks.onIntervention++,
        onPause: () => ctx.callbacks.onPause++,
        onAbort: () => ctx.callbacks.onAbort++,
        clock: () => ctx.now,
      });
    case 'receipts':
      // The receipt log's functions (stateless).
      return { appendReceipts: (...a) => api.appendReceipts(...a), verifyReceipts: (...a) => api.verifyReceipts(...a) };
    case 'calibrateLoopPolicy':
      // Only its errors are vectors (the bad-input matrix): the answer is not compared.
      return { calibrateLoopPolicy: (...a) => { api.calibrateLoopPolicy(...a); } };
    case 'loopLifecycle':
      // The loop lifecycle (stateless): only errors and the answer's verdict are vectors.
      return {
        promoteLoopPolicy: (...a) => ({ promoted: api.promoteLoopPolicy(...a).promoted }),
        checkLoopDrift: (...a) => ({ status: api.checkLoopDrift(...a).status }),
      };
    case 'readJunit':
      // The JUnit reader (stateless; in earlyexit-wasm the replay module's): only errors and
      // the layer result's pass rate and count are vectors.
      return {
        readJunit: (...a) => {
          const r = api.readJunit(...a);
          return { passRate: r.passRate, total: r.total };
        },
      };
    case 'Loop':
      return new api.Loop(c.options);
    case 'calculateQualitySignal':
      return {
        calculateQualitySignal: (...a) => api.calculateQualitySignal(...a),
        countQualityPartitions: (...a) => api.countQualityPartitions(...a),
      };
    default:
      throw new Error(`engine ${engine} is not part of the JS API`);
  }
}

const SNAPSHOT_ENGINES = new Set(['EarlyStopping', 'IterationAnalytics', 'PyramidRun', 'Loop']);

function snapshotOf(engine, inst) {
  if (engine === 'BehaviorDetector') return show(inst.getThresholds());
  if (engine === 'InterventionSystem') return show(inst.exportState());
  if (!SNAPSHOT_ENGINES.has(engine) || !inst || typeof inst.toJSON !== 'function') return undefined;
  try {
    return show(inst.toJSON());
  } catch (err) {
    return `<toJSON threw: ${err?.message}>`;
  }
}

function freeAll(objs) {
  for (const o of objs) {
    try {
      o?.free?.();
    } catch {
      // freed twice: nothing to do
    }
  }
}

function errorShape(err, ctx) {
  if (ctx.thrown.has(err)) return { message: err.message };
  return {
    code: err?.code,
    field: err?.field,
    kind: err instanceof TypeError ? 'type' : err instanceof RangeError ? 'range' : `not a TypeError/RangeError (${err?.name ?? typeof err})`,
  };
}

/**
 * Runs one vector against `api`; resolves to a list of mismatch strings
 * (empty = pass). Never throws for a failing vector.
 */
export async function runVector(api, vector) {
  const errs = [];
  const ctx = { analyticsCalls: 0, thrown: new Set(), now: undefined, callbacks: { onIntervention: 0, onPause: 0, onAbort: 0 } };
  const made = [];
  const engine = vector.engine;
  let inst;
  try {
    try {
      inst = construct(api, engine, decode(vector.construct ?? {}), ctx);
      made.push(inst);
    } catch (err) {
      if (!('throws' in vector)) return [`constructor threw ${err?.name}: ${err?.message} (code ${err?.code}, field ${err?.field})`];
      if (!(err instanceof Error)) return [`constructor threw a non-Error ${show(err)}`];
      return compare(vector.throws, errorShape(err, ctx), NO_EXTRAS, 'throws');
    }
    if ('throws' in vector) return [`expected the constructor to throw ${show(vector.throws)}`];

    for (const [i, call] of vector.calls.entries()) {
      const at = `call ${i} (${call.call})`;
      const args = (call.args ?? []).map(decode);
      ctx.now = call.now;
      const before = 'throws' in call ? snapshotOf(engine, inst) : undefined;
      let counts = null;
      let value;
      let thrown = null;
      try {
        if (call.call === 'new') {
          inst = construct(api, engine, decode(call.construct ?? {}), ctx);
          made.push(inst);
        } else if (call.call === 'fromJSON') {
          const cls = engine === 'EarlyStopping' ? api.EarlyStopping : engine === 'IterationAnalytics' ? api.IterationAnalytics : api.PyramidRun;
          inst = cls.fromJSON(...args);
          made.push(inst);
        } else if (call.call === 'fromSummary') {
          inst = api.IterationAnalytics.fromSummary(...args);
          made.push(inst);
        } else if (call.call === 'formatDuration') {
          value = api.IterationAnalytics.formatDuration(...args);
        } else if (call.call === 'runWithEarlyExit') {
          const specs = decode(call.layers);
          counts = specs.map(() => 0);
          value = await inst.runWithEarlyExit(scriptedLayers(ctx, specs, counts));
        } else if (call.call === 'verify' && call.layers) {
          const specs = decode(call.layers);
          counts = specs.map(() => 0);
          value = await inst.verify(args[0], scriptedLayers(ctx, specs, counts));
        } else {
          if (typeof inst[call.call] !== 'function') throw new Error(`${engine} has no method ${call.call}`);
          value = await inst[call.call](...args);
        }
      } catch (err) {
        thrown = { err };
      }

      if ('throws' in call) {
        if (!thrown) {
          errs.push(`${at}: expected throws ${show(call.throws)}, got ${show(value)}`);
        } else {
          const err = thrown.err;
          if (!(err instanceof Error)) errs.push(`${at}: threw a non-Error ${show(err)}`);
          errs.push(...compare(call.throws, errorShape(err, ctx), NO_EXTRAS, `${at}.throws`));
          if (!ctx.thrown.has(err)) {
            const after = snapshotOf(engine, inst);
            if (before !== after) errs.push(`${at}: the snapshot changed after a rejected call:\n  before ${before}\n  after  ${after}`);
          }
        }
      } else if (thrown) {
        const e = thrown.err;
        errs.push(`${at}: unexpected throw ${e?.name}: ${e?.message} (code ${e?.code}, field ${e?.field})`);
      } else if ('returns' in call) {
        errs.push(...compare(decode(call.returns), normalize(value), extrasFor(engine, call.call), `${at}.returns`));
      } else if (value !== undefined && call.call !== 'new' && call.call !== 'fromJSON' && call.call !== 'fromSummary') {
        errs.push(`${at}: expected undefined, got ${show(value)}`);
      }
      if ('runnerCalls' in call) errs.push(...compare(call.runnerCalls, counts, NO_EXTRAS, `${at}.runnerCalls`));
      if ('analyticsCalls' in call && call.analyticsCalls !== ctx.analyticsCalls) errs.push(`${at}: analyticsCalls ${call.analyticsCalls} != ${ctx.analyticsCalls}`);
      if (errs.length > 20) {
        errs.push('(stopped after 20 mismatches)');
        break;
      }
    }
    if ('analyticsCalls' in vector && vector.analyticsCalls !== ctx.analyticsCalls) errs.push(`analyticsCalls ${vector.analyticsCalls} != ${ctx.analyticsCalls}`);
    if ('callbacks' in vector) errs.push(...compare(vector.callbacks, ctx.callbacks, NO_EXTRAS, 'callbacks'));
    return errs;
  } catch (err) {
    return [...errs, `the runner failed: ${err?.stack ?? err}`];
  } finally {
    freeAll(made);
  }
}

/**
 * Runs every JS-applicable vector of `files` ({name, vectors}[]); returns
 * {total, passed, failed, skipped, byFile, failures, coverage}. `onProgress`
 * is called after each file.
 */
export async function runAll(api, files, { onProgress } = {}) {
  const out = { total: 0, passed: 0, failed: 0, skipped: 0, byFile: [], failures: [], coverage: { triggers: {}, exitReasons: {}, errorCodes: {} } };
  const bump = (m, k) => { m[k] = (m[k] ?? 0) + 1; };
  for (const file of files) {
    const row = { file: file.name, total: 0, passed: 0, failed: 0, skipped: 0 };
    for (const vector of file.vectors) {
      if (!appliesToJs(vector)) {
        row.skipped++;
        continue;
      }
      row.total++;
      const errs = await runVector(api, vector);
      if (errs.length === 0) row.passed++;
      else {
        row.failed++;
        out.failures.push({ file: file.name, name: vector.name, errors: errs });
      }
      // What the vectors exercise (from the expectations, pass or fail).
      const seen = { triggers: new Set(), exitReasons: new Set(), errorCodes: new Set() };
      if (vector.throws?.code) seen.errorCodes.add(vector.throws.code);
      for (const c of vector.calls) {
        if (c.throws?.code) seen.errorCodes.add(c.throws.code);
        const r = c.returns;
        if (isPlainObject(r) && typeof r.trigger === 'string') seen.triggers.add(r.trigger);
        if (isPlainObject(r) && typeof r.reason === 'string' && 'canExit' in r) seen.exitReasons.add(r.reason);
        if (isPlainObject(r) && typeof r.exitReason === 'string') seen.exitReasons.add(r.exitReason);
      }
      for (const k of Object.keys(seen)) for (const v of seen[k]) bump(out.coverage[k], v);
    }
    out.byFile.push(row);
    for (const k of ['total', 'passed', 'failed', 'skipped']) out[k] += row[k];
    onProgress?.(row, out);
  }
  return out;
}

/**
 * The bad-input matrix (tests/vectors/bad_input.json, `{about, cases}`) as runnable vectors:
 * each row's own `vector`, or the existing vector its `sameAs` ("<file>#<name>") names, looked
 * up in `files` ({name, vectors}[]). The row's `only` applies; its name is the row's id. Throws
 * when a row's columns (code, field, kind) are not what its scenario expects.
 */
export function matrixVectors(doc, files) {
  const byName = new Map(files.map((f) => [f.name, f.vectors]));
  return doc.cases.map((row) => {
    let vector = row.vector;
    if (!vector) {
      const [file, ...rest] = row.sameAs.split('#');
      vector = byName.get(file)?.find((v) => v.name === rest.join('#'));
      if (!vector) throw new Error(`${row.id}: sameAs ${row.sameAs} names no vector`);
    }
    const throws = vector.throws ?? vector.calls.find((c) => c.throws?.code)?.throws;
    for (const key of ['code', 'field', 'kind']) {
      if (throws?.[key] !== row[key]) throw new Error(`${row.id}: the row says ${key} ${row[key]}, its scenario ${throws?.[key]}`);
    }
    const out = { ...vector, name: row.id };
    if (row.only) out.only = row.only;
    else delete out.only;
    return out;
  });
}
