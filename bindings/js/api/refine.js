// Loop, the refine loop an agent is written with (docs/loop-helper.md), over the core's loop
// (bindings/js/interface/src/refine_ops.rs, ops REFINE_*): it counts iterations, maps scores
// on `scale` to the engine's 0..100, computes quality_delta, stops on `done` before its policy,
// and keeps only the best, the last and the completed output.
//
// The native object is the one an EarlyStopping's stop policy uses (`PolicyEngine`: in the
// wasm package, the replay module's). The outputs stay here, by the handle the core gives
// each one: every answer says which handles the core still keeps, so at most three outputs
// are held (O(1) memory in iterations). What this layer adds is JS's own: the automatic
// fingerprint's input (a string, a Uint8Array's bytes, or a plain JSON value; hashed by the
// core's SHA-256), `fingerprintOf`, the scale notice printed once, and a random run id.

import { LIMITS, OP } from './contract.generated.mjs';
import { AS_RESULT, AS_STEP, enc, freedError, makeError, release, unwrap } from './codec.js';
import { LoopCalibration } from './replay.js';
import { Store, checkStoreName, defaultLoopReceiptLog, hasStore } from './store.js';
import {
  REFINE_FINISH, REFINE_FROM_JSON, REFINE_HISTORY, REFINE_OPEN, REFINE_RECEIPT, REFINE_RUN, REFINE_TO_JSON,
} from './calls.generated.mjs';

const AS_OUTPUT = { code: AS_RESULT.code, root: 'output', name: 'output' };
// The keys of Loop's options that are not the core loop's options.
const LOOP_POLICY_KEYS = ['preset', 'policy', 'artifact', 'shadow', 'store', 'receiptLog'];
let scaleNoticeShown = false; // the scale notice is printed once per process

// The automatic fingerprint's kinds (REFINE_STEP's third argument).
const FINGERPRINT_NONE = 0;
const FINGERPRINT_VALUE = 1;
const FINGERPRINT_BYTES = 2;

const HEX = [];
for (let i = 0; i < 256; i++) HEX.push((i < 16 ? '0' : '') + i.toString(16));

// Whether `value` is a plain JSON value: primitives, arrays, and objects whose prototype is
// Object.prototype or null, all the way down (a Date, a Map or a class instance is not).
function plainJson(value, depth) {
  if (value === null || typeof value !== 'object') return true; // the core refuses the rest
  if (depth > LIMITS.valueDepth) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!plainJson(value[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) if (!plainJson(value[key], depth + 1)) return false;
  return true;
}

// The automatic fingerprint's input for `output`: `[kind, data in the wire format]`.
function fingerprintInput(output) {
  if (typeof output === 'string') {
    // A lone surrogate hashes as U+FFFD, as TextEncoder writes it.
    const text = typeof output.toWellFormed === 'function' ? output.toWellFormed() : output;
    return FINGERPRINT_VALUE + ',' + JSON.stringify(text);
  }
  if (output instanceof Uint8Array) {
    // The bytes as the code points 0..=255 of a string (the core takes each back as a byte).
    let text = '';
    for (let i = 0; i < output.length; i += 8192) text += String.fromCharCode.apply(null, output.subarray(i, i + 8192));
    return FINGERPRINT_BYTES + ',' + JSON.stringify(text);
  }
  if (typeof output === 'function' || typeof output === 'symbol' || typeof output === 'bigint' || output === undefined) {
    return FINGERPRINT_NONE + ',null';
  }
  if (!plainJson(output, 1)) return FINGERPRINT_NONE + ',null';
  try {
    return FINGERPRINT_VALUE + ',' + enc(output, AS_OUTPUT);
  } catch {
    return FINGERPRINT_NONE + ',null'; // a cycle, or over the size limits: not a JSON value
  }
}

function randomId() {
  const crypto = globalThis.crypto;
  if (crypto !== undefined && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const hex = [];
  for (let i = 0; i < 16; i++) hex.push(HEX[(Math.random() * 256) | 0]);
  hex[6] = '4' + hex[6][1];
  hex[8] = '89ab'[(Math.random() * 4) | 0] + hex[8][1];
  const h = hex.join('');
  return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
}

function showNotice(notice) {
  if (scaleNoticeShown) return;
  scaleNoticeShown = true;
  const process = globalThis.process;
  if (process !== undefined && typeof process.emitWarning === 'function') process.emitWarning(notice, 'EarlyExitWarning');
  else if (globalThis.console !== undefined) globalThis.console.warn(notice);
}

/**
 * The refine loop: `new Loop({ preset, policy, artifact, shadow, scale, maxIterations, task,
 * dataset, runLabel, fingerprintOf })`, then `loop.step(output, { quality, ... })` per
 * iteration. `shadow` runs a candidate (a preset name, a policy, a `LoopCalibration` or a loop
 * artifact) beside the policy without letting it stop the loop: decisions carry `would_stop`,
 * and `finish()` gives the run's receipt. An `artifact` not promoted or expired runs its
 * calibration's most conservative policy with the calibrated one in shadow (`shadowReason`).
 */
export class Loop {
  #engine = null; // the native object (null after free())
  #outputs = new Map(); // handle -> output, for the handles the core keeps
  #fingerprintOf = null;
  // The core's state: the last decision, and the kept outputs as [iteration, quality, handle] (or null).
  #decision = null;
  #best = null;
  #last = null;
  #output = null;
  #runId = null;
  #shadowReason = null;
  #store = null; // a Store: finish() writes the run and its receipt there
  #runLabel = null;
  #receiptLog = null; // the store's receipt log finish() appends to (null: the default one)

  constructor(options = undefined) {
    if (options === Loop) return; // fromJSON
    let policy = null;
    let artifact = null;
    let shadow = null;
    let store = null;
    let receiptLog = null;
    let rest = options;
    if (options !== null && typeof options === 'object' && !Array.isArray(options)) {
      rest = {};
      for (const key of Object.keys(options)) if (!LOOP_POLICY_KEYS.includes(key)) rest[key] = options[key];
      policy = options.policy ?? options.preset ?? null;
      artifact = options.artifact ?? null;
      if (policy instanceof LoopCalibration) {
        artifact = policy.artifact;
        policy = null;
      }
      if (artifact instanceof LoopCalibration) artifact = artifact.artifact;
      shadow = options.shadow ?? null;
      if (shadow instanceof LoopCalibration) shadow = shadow.artifact;
      store = options.store ?? null;
      if (store !== null && !(store instanceof Store)) throw notAStore(store);
      receiptLog = options.receiptLog ?? null;
      if (receiptLog !== null) {
        if (store === null) throw receiptLogWithoutStore();
        checkStoreName('receiptLog', receiptLog);
      }
    }
    const engine = new native.PolicyEngine();
    try {
      this.#shadowReason = REFINE_OPEN(engine, policy, rest === undefined ? {} : rest, artifact, Date.now(), shadow) ?? null;
    } catch (error) {
      release(engine);
      throw error;
    }
    this.#engine = engine;
    this.#fingerprintOf = rest === undefined ? null : (rest.fingerprintOf ?? null);
    this.#store = store;
    if (store !== null) {
      this.#runLabel = rest.runLabel ?? null;
      this.#receiptLog = receiptLog;
    }
  }

  #native() {
    if (this.#engine === null) throw freedError();
    return this.#engine;
  }

  /**
   * Records one iteration (numbered for you) and returns the engine's decision: `{ quality,
   * confidence, verified, done, good, tokens, costUsd, timeMs, error, files, fingerprint }`.
   */
  step(output, args = undefined) {
    const engine = this.#native();
    let source = FINGERPRINT_NONE + ',null';
    let step = args;
    if (args === null || typeof args !== 'object' || args.fingerprint === undefined || args.fingerprint === null) {
      if (this.#fingerprintOf !== null) {
        const given = this.#fingerprintOf(output);
        if (given !== undefined && given !== null && args !== null && typeof args === 'object') step = { ...args, fingerprint: given };
      } else {
        source = fingerprintInput(output);
      }
    }
    const [handle, notice, ...state] = unwrap(engine.call(OP.REFINE_STEP, '[' + enc(step, AS_STEP) + ',' + Date.now() + ',' + source + ']'));
    this.#outputs.set(handle, output);
    this.#mirror(state);
    if (notice !== null) showNotice(notice);
    return this.#decision;
  }

  // Takes the core's state and drops the outputs it no longer keeps.
  #mirror([decision, best, last, completed, output]) {
    this.#decision = decision;
    this.#best = best;
    this.#last = last;
    this.#output = output;
    const outputs = this.#outputs;
    if (outputs.size <= 3) return;
    const kept = new Set();
    for (const k of [best, last, completed, output]) if (k !== null) kept.add(handleOf(k));
    for (const handle of outputs.keys()) if (!kept.has(handle)) outputs.delete(handle);
  }

  #kept(k) {
    if (k === null) return null;
    const [iteration, quality, handle] = k;
    return { iteration, output: this.#outputs.get(handle), quality };
  }

  /** The best output so far (the engine's best-iteration rule), quality on the loop's scale; null before the first step. */
  get best() {
    this.#native();
    return this.#kept(this.#best);
  }

  /** The last output, or null. */
  get last() {
    this.#native();
    return this.#kept(this.#last);
  }

  /** What to hand back: the completed output on a `completed` stop, else the policy's `returns` (the best for `recommended`); null before the first step. */
  get output() {
    this.#native();
    const k = this.#output;
    return k === null ? null : this.#outputs.get(handleOf(k));
  }

  /** The last decision, or null before the first step. */
  get decision() {
    this.#native();
    const d = this.#decision;
    return d === null ? null : JSON.parse(JSON.stringify(d));
  }

  /** The recorded iterations (history records, copies). */
  get history() {
    return REFINE_HISTORY(this.#native());
  }

  #id() {
    if (this.#runId === null) this.#runId = randomId();
    return this.#runId;
  }

  /** The run in the replay and calibration JSONL form: `{ id, dataset?, iterations }` (`id`: `task`, else a random UUID, the same for this loop). */
  run() {
    return REFINE_RUN(this.#native(), this.#id());
  }

  /**
   * Closes the run; `good` (when given) is set on the iteration `output` came from. Returns the
   * run, which also carries (not enumerable, so JSON and spreads see the run alone) `run` and
   * `receipt`: `const { run, receipt } = loop.finish(true)` (`receipt` null without a shadow).
   * With a `store`, it returns a Promise of that run, resolved once the run (under the loop's
   * run id, the receipt's `runId`, and `runLabel`) and its receipt (in `receiptLog`, else the
   * store's loop receipt log) are stored; finishing again stores nothing more (a different
   * `good` then is refused by the store: `invalid_replay` naming `runId`).
   */
  finish(good = undefined) {
    const run = REFINE_FINISH(this.#native(), good === undefined ? null : good, this.#id());
    const receipt = REFINE_RECEIPT(this.#native(), this.#id());
    Object.defineProperty(run, 'run', { value: run, configurable: true, writable: true });
    Object.defineProperty(run, 'receipt', { value: receipt, configurable: true, writable: true });
    return this.#store === null ? run : this.#stored(run, receipt);
  }

  async #stored(run, receipt) {
    const store = this.#store;
    // Under the loop's run id (the receipt's `runId`): the run and its receipt share one key.
    await store.addRun(run, { runLabel: this.#runLabel, runId: this.#id() });
    if (receipt !== null) await store.appendReceipts(this.#receiptLog ?? defaultLoopReceiptLog(), [receipt]);
    return run;
  }

  /** The run's shadow receipt so far (null without a shadow); call it after `finish()` so that `good` counts. */
  receipt() {
    return REFINE_RECEIPT(this.#native(), this.#id());
  }

  /**
   * Why the shadow candidate runs in shadow rather than enforced, when the loop put it there
   * itself (an `artifact` not promoted, or demoted, or expired); null otherwise.
   */
  get shadowReason() {
    return this.#shadowReason;
  }

  /** The engine's snapshot plus the kept outputs (`{ outputs: false }` leaves them out). */
  toJSON(options = undefined) {
    const engine = this.#native();
    // JSON.stringify calls toJSON(key) with a string: the default then. Anything but a
    // boolean `outputs` is the core's error naming `outputs`.
    let outputs = true;
    if (options !== undefined && options !== null && typeof options === 'object' && !Array.isArray(options)) {
      if (options.outputs !== undefined) outputs = options.outputs;
    } else if (options !== undefined && typeof options !== 'string') {
      outputs = options;
    }
    let given = '[';
    if (outputs === true) {
      for (const [handle, output] of this.#outputs) {
        const text = plainJson(output, 1) ? safeEnc(output) : null;
        if (text !== null) given += (given.length > 1 ? ',' : '') + '[' + handle + ',' + text + ']';
      }
    }
    return REFINE_TO_JSON(engine, outputs, given + ']');
  }

  /** A loop from `toJSON()`'s document (object or JSON text); `{ fingerprintOf }` as the constructor's. */
  static fromJSON(snapshot, options = undefined) {
    const fingerprintOf = options !== null && typeof options === 'object' ? (options.fingerprintOf ?? null) : null;
    if (fingerprintOf !== null && typeof fingerprintOf !== 'function') {
      // The constructor's check (the core's error naming `fingerprintOf`).
      const probe = new native.PolicyEngine();
      try {
        REFINE_OPEN(probe, null, { fingerprintOf }, null, 0, null);
      } finally {
        release(probe);
      }
    }
    const engine = new native.PolicyEngine();
    let answer;
    try {
      answer = REFINE_FROM_JSON(engine, snapshot);
    } catch (error) {
      release(engine);
      throw error;
    }
    const loop = new Loop(Loop);
    loop.#engine = engine;
    loop.#fingerprintOf = fingerprintOf;
    const [state, outputs] = answer;
    loop.#mirror(state);
    for (const [handle, output] of outputs) loop.#outputs.set(handle, output);
    return loop;
  }

  /** Releases the native object; the loop cannot be used afterwards. */
  free() {
    if (this.#engine !== null) release(this.#engine);
    this.#engine = null;
    this.#outputs.clear();
  }
}

// The error for a `store` option that is not a Store (the wasm package has none).
function notAStore(given) {
  const got = given === null ? 'null' : Array.isArray(given) ? 'an array' : typeof given === 'object' ? 'an object' : 'a ' + typeof given;
  return makeError('!' + JSON.stringify({
    code: 'invalid_config', kind: 'type', field: 'store', message: 'store must be a Store (await Store.open(url); the earlyexit package, not earlyexit-wasm), got ' + got,
  }));
}

// The error for a `receiptLog` option without a `store` (in the wasm package, which has no
// store, always).
function receiptLogWithoutStore() {
  const why = hasStore() ? '' : '; the wasm package has no store (the earlyexit package has)';
  return makeError('!' + JSON.stringify({
    code: 'invalid_config', kind: 'type', field: 'receiptLog', message: 'receiptLog is given without store (where would it go?)' + why,
  }));
}

// The handle of a kept output `[iteration, quality, handle]`.
const handleOf = ([, , handle]) => handle;

// An output's wire text, or null when it cannot be one (a cycle, over the limits).
function safeEnc(output) {
  try {
    return enc(output, AS_OUTPUT);
  } catch {
    return null;
  }
}
