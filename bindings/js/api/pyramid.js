// ADR-033's test-pyramid early exit: the signal, CoherenceEarlyExit, SpeculativeExecutor,
// EarlyExitController (its numeric fast path and its JSON path over PyramidRun) and PyramidRun.

import {
  ERROR_CODE, LIMITS, MESSAGES, OUTCOMES, PROBLEM, P_ACTION_DONE, P_ACTION_REFUSED, P_ACTION_RUN, P_BASE, P_COSTS,
  P_COST_GIVEN, P_COST_MS, P_COST_SLOTS, P_IN_COVERAGE, P_IN_FLAKY_RATIO, P_IN_LAYER, P_IN_PASS_RATE,
  P_IN_PREVIOUS_LAMBDA, P_LAYER_COUNT, P_MAX_LAYERS, P_OUT_ACTION, P_OUT_ACTUAL, P_OUT_CORRECT, P_OUT_FAILED,
  P_OUT_LAYER, P_OUT_STAMPED, P_PREDICTED, P_PREDICTED_CONFIDENCE, P_SPECULATIONS, P_START_OK, P_STATE_LEN,
  P_TOTAL_LAYERS, STEP_DONE, failingLayerOf, layerSpecOf, pyramidResultOf, speculationOf,
} from './contract.generated.mjs';
import {
  ABORT_SIGNAL, AS_LAYER_RESULT, AS_OPTIONS, AS_SNAPSHOT, AS_SPECULATIONS, FREED, RESTORE, asLayerResult, enc,
  encConfig, freedError, hostError, newNative, release, scalar, unwrap,
} from './codec.js';
import { scratchView } from './scratch.js';
import { modelOf, withModel } from './replay.js';
import {
  CE_ADAPTIVE, CE_CONFIG, CE_NEW, CE_SHOULD_EXIT, EXIT_CONTROLLER_CHECK, LAYER_KEY_CHECK, PR_FROM_JSON, PR_NEXT,
  PR_RESULT, PR_RESULT_CHECK, PR_START, PR_SUBMIT, PR_TO_JSON, PYRAMID_RUN_OPTIONS, PYRAMID_RUN_RESTORE,
  PYRAMID_RUN_RESULT, PYRAMID_RUN_START, PYRAMID_RUN_SUBMIT, RUNNER_ERROR, RUN_OPTIONS_CHECK, SIGNAL, SX_CLASSIFY,
  SX_CONFIG, SX_NEW, SX_PREDICT, SX_SPECULATE, SX_VERIFIED, SX_VERIFY_COUNT,
} from './calls.generated.mjs';

// ------------------------------------------------------------------------
// Engine 2: ADR-033's test-pyramid early exit

export function calculateQualitySignal(layerResult) {
  return SIGNAL(layerResult);
}

// ADR-033's `countQualityPartitions(r)`: the core computes it into every signal
// (`partitionCount`), validating the result as calculateQualitySignal does.
export function countQualityPartitions(layerResult) {
  return calculateQualitySignal(layerResult).partitionCount;
}

export class CoherenceEarlyExit {
  #native;

  constructor(config = undefined, totalLayers = undefined) {
    // RESTORE: a freed one (what a freed controller's `earlyExit` answers).
    this.#native = config === RESTORE ? FREED : CE_NEW(config, totalLayers);
  }

  shouldExit(signal, layer) {
    return CE_SHOULD_EXIT(this.#native, signal, layer);
  }

  calculateAdaptiveExitLayer(signal) {
    return CE_ADAPTIVE(this.#native, signal);
  }

  /** The config, merged over DEFAULT_EXIT_CONFIG. */
  get config() {
    return CE_CONFIG(this.#native)[0];
  }

  get totalLayers() {
    return CE_CONFIG(this.#native)[1];
  }

  free() {
    release(this.#native);
    this.#native = FREED;
  }
}

// The number of layers `speculate` predicts: a list's length (the seed iterates the
// argument: any iterable), or a count given as a number (as in Python); anything else
// goes over encoded, for the core's error. An iterable is counted up to the core's limit.
function countOf(layers) {
  if (Array.isArray(layers) || typeof layers === 'number') return Array.isArray(layers) ? layers.length : scalar(layers);
  if (layers === null || layers === undefined || typeof layers[Symbol.iterator] !== 'function' || typeof layers === 'string') {
    return enc(layers, AS_SKIPPED);
  }
  let count = 0;
  for (const _ of layers) if (++count > LIMITS.layers) break;
  return count;
}
const AS_SKIPPED = { code: ERROR_CODE.INVALID_CONFIG, root: 'skippedLayers', name: 'skippedLayers' };

export class SpeculativeExecutor {
  #native;

  constructor(config = undefined) {
    this.#native = SX_NEW(config);
  }

  async speculate(exitDecision, skippedLayers) {
    return SX_SPECULATE(this.#native, exitDecision, countOf(skippedLayers));
  }

  async predictLayerOutcome(layer, decision) {
    return SX_PREDICT(this.#native, decision);
  }

  /** Runs the first `verificationLayers` skipped layers, in order, and records what they did. */
  async verify(speculations, skippedLayers) {
    const engine = this.#native;
    const given = enc(speculations, AS_SPECULATIONS);
    const count = SX_VERIFY_COUNT(engine, given);
    if (count > 0 && !Array.isArray(skippedLayers)) throw hostError(PROBLEM.NOT_LAYERS, ERROR_CODE.INVALID_CONFIG, 'layers', enc(skippedLayers));
    const outcomes = [];
    for (let i = 0; i < count; i++) {
      // One layer per verified speculation, its runner read once (as a run reads them).
      if (i >= skippedLayers.length) throw hostError(PROBLEM.MISSING_LAYER, ERROR_CODE.INVALID_CONFIG, 'layers[' + i + ']');
      const layer = skippedLayers[i];
      const run = layer !== null && (typeof layer === 'object' || typeof layer === 'function') ? layer.run : undefined;
      if (typeof run !== 'function') RUNNER_ERROR(i, run);
      const result = await run.call(layer);
      outcomes.push(SX_CLASSIFY(engine, i, enc(result, asLayerResult(i))));
    }
    return SX_VERIFIED(engine, given, outcomes);
  }

  get config() {
    return SX_CONFIG(this.#native);
  }

  free() {
    release(this.#native);
    this.#native = FREED;
  }
}

// A layer object's own keys beside `name`, `costMs` and `run` are the caller's, except one
// that nearly spells one of those (`cost_ms`, `cost`, `costMS`: it would be ignored), which
// the core refuses (op LAYER_KEY_CHECK, its rule). Each key is asked once: the answer
// depends on the key alone (the keys found fine are kept, up to a bound).
const LAYER_KEYS_FINE = new Set();
function checkLayerKeys(layer, index) {
  for (const key in layer) {
    if (key === 'name' || key === 'costMs' || key === 'run' || LAYER_KEYS_FINE.has(key)) continue;
    if (!Object.prototype.hasOwnProperty.call(layer, key)) continue;
    LAYER_KEY_CHECK(index, key);
    if (LAYER_KEYS_FINE.size < 256) LAYER_KEYS_FINE.add(key);
  }
}

// What the core reads of a layer: its name and expected cost (runners stay in JS).
function layerSpecs(layers) {
  if (!Array.isArray(layers)) return layers;
  return layers.map((layer, i) => {
    // An array is not a layer object: pass it on whole, so the core names `layers[i]`.
    if (layer === null || typeof layer !== 'object' || Array.isArray(layer)) return layer;
    checkLayerKeys(layer, i);
    return layerSpecOf(layer.name, layer.costMs);
  });
}

// A run's layers, each read once when the run starts: per layer, the layer object (to
// notice a list that changes while a runner is awaited), its name, cost and runner, four
// slots each in `reads`; the first layer without a runner; whether the fast path takes them
// (names, costs and runners of the usual types; the core still checks the values); and for
// the fast path the run's own state slots, its layers' costs after them (present 0/1,
// value), which no other run writes. Few allocations: this is on every run's path.
const READ = 4;
function readLayers(layers) {
  if (!Array.isArray(layers)) return { count: 0, reads: null, badRunner: -1, fast: false, state: null };
  const count = layers.length;
  const reads = new Array(READ * count);
  let badRunner = -1;
  let fast = count <= P_MAX_LAYERS;
  const state = fast ? new Float64Array(P_STATE_LEN + P_COST_SLOTS * count) : null;
  for (let i = 0; i < count; i++) {
    const layer = layers[i];
    const at = READ * i;
    reads[at] = layer;
    if (layer === null || typeof layer !== 'object' || Array.isArray(layer)) {
      fast = false;
      continue;
    }
    checkLayerKeys(layer, i);
    const name = (reads[at + 1] = layer.name);
    const cost = (reads[at + 2] = layer.costMs);
    const run = (reads[at + 3] = layer.run);
    if (typeof run !== 'function' && badRunner < 0) badRunner = i;
    if (typeof name !== 'string' || (cost !== undefined && typeof cost !== 'number')) fast = false;
    else if (fast && cost !== undefined) {
      state[P_STATE_LEN + P_COST_SLOTS * i + P_COST_GIVEN] = 1;
      state[P_STATE_LEN + P_COST_SLOTS * i + P_COST_MS] = cost;
    }
  }
  return { count, reads, badRunner, fast: fast && badRunner < 0, state };
}

// What the core reads of the first `count` layers read: `{name, costMs}` for a layer object,
// anything else whole (so the core names `layers[i]`); `layers` itself when not an array.
function specsOf(layers, read, count) {
  if (read.reads === null) return layers;
  const specs = new Array(count);
  for (let i = 0; i < count; i++) {
    const item = read.reads[READ * i];
    specs[i] = item === null || typeof item !== 'object' || Array.isArray(item)
      ? item
      : layerSpecOf(read.reads[READ * i + 1], read.reads[READ * i + 2]);
  }
  return specs;
}

// Calls layer `index`'s runner (read once, as its layer's method), with `{ signal }` when
// the run has one, after checking that the list is still the one the run started with.
function runLayer(layers, read, index, signal) {
  const layer = read.reads[READ * index];
  if (layers.length !== read.count || layers[index] !== layer) throw hostError(PROBLEM.LAYERS_CHANGED, ERROR_CODE.INVALID_CONFIG, 'layers');
  const run = read.reads[READ * index + 3];
  return signal === undefined ? run.call(layer) : run.call(layer, { signal });
}

// A runner's result, read once: a plain copy of an object's own enumerable properties (the
// seed copies it with `{...result}` too); anything else as it is, for the core's error.
function readResult(returned) {
  return typeof returned === 'object' && returned !== null && !Array.isArray(returned) ? { ...returned } : returned;
}

const isAbortSignal = (x) => x !== null && typeof x === 'object' && typeof x.aborted === 'boolean'
  && typeof x.addEventListener === 'function' && typeof x.removeEventListener === 'function';

// The keys of a run's policy options (`{policy, mode, model, policyConfig, runId, shadowReason,
// label, now}`): read here, checked by the core (op PYRAMID_RUN_START).
const POLICY_KEYS = ['policy', 'mode', 'model', 'policyConfig', 'runId', 'shadowReason', 'label', 'now'];
const NO_RUN_OPTIONS = { signal: undefined, policy: undefined };

// runWithEarlyExit's options, each read once: the AbortSignal (undefined: none) and the
// policy options given (an object of the policy keys, undefined: none). The options are
// an object whose keys are `signal` and the policy keys; anything else goes to the core
// for its typed error, with the values read here (a signal crossing as the host type
// "AbortSignal").
function runOptions(options) {
  if (options === undefined || options === null) return NO_RUN_OPTIONS;
  let read = options;
  if (typeof options === 'object' && !Array.isArray(options)) {
    read = {};
    let signal;
    let policy;
    let others = 0;
    const keys = Object.keys(options);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      let value = options[key];
      if (value === undefined) continue; // an undefined key is an absent key
      if (key === 'signal') {
        signal = value;
        if (isAbortSignal(value)) value = ABORT_SIGNAL;
      } else if (POLICY_KEYS.includes(key)) {
        if (policy === undefined) policy = {};
        policy[key] = key === 'model' ? modelOf(value) : key === 'now' && value instanceof Date ? value.getTime() : value;
      } else {
        others++;
      }
      Object.defineProperty(read, key, { value, enumerable: true, writable: true, configurable: true });
    }
    if (others === 0 && (signal === undefined || signal === null)) return { signal: undefined, policy };
    if (others === 0 && isAbortSignal(signal)) return { signal, policy };
  }
  RUN_OPTIONS_CHECK(enc(read, AS_OPTIONS, options));
  throw new Error(MESSAGES.INTERNAL_OPTIONS_ACCEPTED);
}

// ------------------------------------------------------------------------
// Runs decided by a policy (`fail_fast`, `risk_bounded`): stateless ops (the replay module
// in the wasm package), the run's state being its snapshot, which this layer keeps and hands
// back at each step (`bindings/js/interface/src/pyramid_replay_ops.rs`).

// Starts a policy run: `{state, next}`, or null when the options leave the ADR deciding. The
// clock goes along: an artifact policy's expiry is checked at it when the options give no `now`.
function policyStart(config, totalLayers, specs, options, overrides) {
  return PYRAMID_RUN_START(config, totalLayers, specs, options, overrides, Date.now());
}

function policySubmit(step, layer, result, returned) {
  const given = typeof layer === 'number' ? asLayerResult(layer) : AS_LAYER_RESULT;
  return PYRAMID_RUN_SUBMIT(step.state, layer, enc(result, given, returned));
}

const policyResult = (step) => PYRAMID_RUN_RESULT(step.state);

// runWithEarlyExit over a policy run; undefined when the options leave the ADR deciding.
async function runPolicy(setup, options, overrides, layers, read, signal) {
  const badRunner = read.badRunner;
  const given = specsOf(layers, read, badRunner < 0 ? read.count : badRunner + 1);
  let step = policyStart(setup.wire, setup.totalLayers, given, options, overrides);
  if (step === null) return undefined;
  if (badRunner >= 0) RUNNER_ERROR(badRunner, read.reads[READ * badRunner + 3]);
  for (;;) {
    if (step.next.action === STEP_DONE) return policyResult(step);
    const index = step.next.layer;
    const pending = runLayer(layers, read, index, signal);
    const returned = signal ? await abortable(pending, signal) : await pending;
    if (signal && signal.aborted) throw signal.reason;
    step = policySubmit(step, index, readResult(returned), returned);
  }
}

function abortable(pending, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(pending).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

// ------------------------------------------------------------------------
// The numeric fast path of runWithEarlyExit (bindings/js/interface/src/fast_pyramid.rs): one
// zero-argument native call per layer, no native object and no JSON per run. A run's
// progress lives in a small Float64Array of its own between layers (runners may be
// async and runs may interleave) and in the scratch buffer during a call. Anything the
// fast path does not take goes to the step API over JSON (PyramidRun), which words the
// core's typed errors.

// Slots and codes: the contract's (fast_pyramid.rs), imported above.

// Whether the fast path takes a layer result (already read: readResult's copy) as it is:
// true; null when it also has other keys, which the JSON check looks at first; false when
// it does not take it (the JSON check then throws the error). A `previousLambda` of NaN
// is not "absent" (the slot's mark for it): the JSON check refuses it, as submit() does.
// A key whose value is undefined is an absent key (as on the JSON path): dropped from the copy.
function layerResultKind(result) {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
  let plain = true;
  const keys = Object.keys(result);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const value = result[key];
    if (value === undefined) {
      delete result[key];
      continue;
    }
    switch (key) {
      case 'passRate':
      case 'coverage':
      case 'flakyRatio':
        break;
      case 'previousLambda':
        if (typeof value !== 'number' || value !== value) return false;
        break;
      default:
        plain = false;
    }
  }
  if (typeof result.passRate !== 'number' || typeof result.coverage !== 'number' || typeof result.flakyRatio !== 'number') return false;
  return plain ? true : null;
}

function putLayerResult(s, result) {
  s[P_IN_PASS_RATE] = result.passRate;
  s[P_IN_COVERAGE] = result.coverage;
  s[P_IN_FLAKY_RATIO] = result.flakyRatio;
  const previous = result.previousLambda;
  s[P_IN_PREVIOUS_LAMBDA] = previous === undefined ? NaN : previous;
}

// The costs kept after a run's state slots (readLayers) into the scratch slots.
function putCosts(s, state) {
  for (let i = P_STATE_LEN; i < state.length; i++) s[P_COSTS + i - P_STATE_LEN] = state[i];
}

function copyState(from, fromAt, to, toAt) {
  for (let i = 0; i < P_STATE_LEN; i++) to[toAt + i] = from[fromAt + i];
}

let fastRuns = true; // off only in tests that compare the fast path with the JSON path

// For the tests: sends every run to the JSON path (false) or lets the fast path take them.
export function setFastRuns(on) {
  fastRuns = on;
}

async function runFast(exitSlots, totalLayers, layers, read, signal) {
  const state = read.state; // the run's state slots, then its costs
  let s = scratchView();
  s.set(exitSlots, P_BASE);
  s[P_TOTAL_LAYERS] = totalLayers;
  const count = read.count;
  s[P_LAYER_COUNT] = count;
  putCosts(s, state);
  if (native.pyramidStart() !== P_START_OK) return undefined; // a bad cost: the JSON path words it
  s = scratchView();
  copyState(s, P_BASE, state, 0);
  let action = s[P_OUT_ACTION];
  let index = s[P_OUT_LAYER];
  const results = [];
  const executed = [];
  const beforeExit = []; // the layers run before the exit, then the verified ones
  const verified = [];
  const actuals = []; // each verified layer's outcome
  const corrects = []; // and whether it was the predicted one
  const failing = []; // the failing layers run or verified, in run order
  while (action !== P_ACTION_DONE) {
    const pending = runLayer(layers, read, index, signal);
    const returned = signal ? await abortable(pending, signal) : await pending;
    if (signal && signal.aborted) throw signal.reason;
    // Read once, before the slots are viewed: a getter may use the API, even grow wasm memory.
    const result = readResult(returned);
    const kind = layerResultKind(result);
    if (kind === null) PR_RESULT_CHECK(index, enc(result, asLayerResult(index), returned));
    let next = P_ACTION_REFUSED;
    s = scratchView();
    if (kind !== false) {
      // Other runs may have used the slots while this one awaited its runner.
      putLayerResult(s, result);
      copyState(state, 0, s, P_BASE);
      s[P_IN_LAYER] = index;
      s[P_OUT_ACTION] = action;
      s[P_OUT_LAYER] = index;
      next = native.pyramidSubmit();
    }
    if (next === P_ACTION_REFUSED) {
      PR_RESULT_CHECK(index, enc(result, asLayerResult(index), returned));
      throw new Error(MESSAGES.INTERNAL_LAYER_RESULT_ACCEPTED);
    }
    s = scratchView();
    copyState(s, P_BASE, state, 0);
    executed.push(index);
    if (s[P_OUT_FAILED] !== 0) failing.push(failingLayerOf(index, layers[index].name));
    if (action === P_ACTION_RUN) {
      beforeExit.push(index);
      const stamped = s[P_OUT_STAMPED];
      if (stamped === stamped) result.previousLambda = stamped; // not NaN: stamped
      results.push(result);
    } else {
      verified.push(index);
      actuals.push(OUTCOMES[s[P_OUT_ACTUAL]]);
      corrects.push(s[P_OUT_CORRECT] !== 0);
    }
    action = next;
    index = s[P_OUT_LAYER];
  }
  s = scratchView();
  putCosts(s, state); // this run's costs, whatever other runs wrote meanwhile
  copyState(state, 0, s, P_BASE);
  native.pyramidSummary();
  s = scratchView();
  const speculationCount = state[P_SPECULATIONS - P_BASE];
  const predicted = OUTCOMES[state[P_PREDICTED - P_BASE]];
  const confidence = state[P_PREDICTED_CONFIDENCE - P_BASE];
  const speculations = new Array(speculationCount);
  // The fast path runs layers in order: the predictions are about the layers after the
  // ones run before the exit, and the layers never run are those after the executed ones.
  for (let i = 0; i < speculationCount; i++) {
    const layer = beforeExit.length + i;
    const name = read.reads[READ * layer + 1];
    speculations[i] = i < actuals.length
      ? speculationOf(predicted, confidence, true, actuals[i], corrects[i], layer, name)
      : speculationOf(predicted, confidence, false, undefined, undefined, layer, name);
  }
  const notRun = [];
  for (let i = executed.length; i < count; i++) notRun.push(i);
  return pyramidResultOf(s, results, speculations, executed, failing, beforeExit, verified, notRun);
}

// The validated setup of an EarlyExitController (the merged config, as an object and in
// the wire format, totalLayers, the fast path's slots), reused while the same config
// object reads the same. Validation is the core's (op EXIT_CONTROLLER_CHECK, one native
// call, no native object); a controller per CI run over a preset would otherwise pay it
// every time, which cost more than the run. The seed reads its config at each use, so a
// config object mutated since must be validated again: the cache keeps the own keys and
// values the core validated and a lookup compares them with what the object reads now
// (the same Object.keys and reads the wire encoder makes), so it hits only when encoding
// the object again would give the same text. Only configs whose values are all primitives
// are kept (every valid one: the options are numbers and booleans); anything else is
// validated on each construction, as before.
const exitSetups = new WeakMap(); // config object -> { keys, values, totalLayers, setup }
let defaultExitSetup = null; // config undefined or null: { totalLayers, setup }

function exitSetupOf(answer) {
  const [value, totalLayerCount, slots] = answer;
  return { value, wire: enc(value), totalLayerCount, totalLayers: enc(totalLayerCount), slots: Float64Array.from(slots) };
}

function exitSetup(config, totalLayers) {
  if (config === undefined || config === null) {
    const known = defaultExitSetup;
    if (known !== null && Object.is(known.totalLayers, totalLayers)) return known.setup;
    const setup = exitSetupOf(EXIT_CONTROLLER_CHECK(null, totalLayers));
    if (typeof totalLayers === 'number') defaultExitSetup = { totalLayers, setup };
    return setup;
  }
  if (typeof config !== 'object' || Array.isArray(config)) {
    return exitSetupOf(EXIT_CONTROLLER_CHECK(config, totalLayers));
  }
  // Each value is read once per construction (a getter answers what the core validates).
  const keys = Object.keys(config);
  const values = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) values[i] = config[keys[i]];
  const known = exitSetups.get(config);
  if (known !== undefined && Object.is(known.totalLayers, totalLayers) && keys.length === known.keys.length) {
    let same = true;
    for (let i = 0; same && i < keys.length; i++) same = keys[i] === known.keys[i] && Object.is(values[i], known.values[i]);
    if (same) return known.setup;
  }
  // Validate what was read: a copy with the same own keys in the same order (no prototype,
  // so a `__proto__` key stays a key), which encodes as the object would have.
  const read = Object.create(null);
  let primitive = true;
  for (let i = 0; i < keys.length; i++) {
    const value = values[i];
    read[keys[i]] = value;
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') primitive = false;
  }
  const setup = exitSetupOf(EXIT_CONTROLLER_CHECK(read, totalLayers));
  if (primitive && typeof totalLayers === 'number') exitSetups.set(config, { keys, values, totalLayers, setup });
  return setup;
}

export class EarlyExitController {
  #exit = null; // made on first use of `earlyExit`: a run needs no native object
  #config;
  #totalLayers;
  #totalLayerCount;
  #exitSlots;
  #speculator = null;
  #setup;
  #policy = 'null'; // the policy options as given, in the wire format ('null': the ADR decides)
  #freed = false;

  constructor(config = undefined, totalLayers = undefined, options = undefined) {
    // The validated, merged config: each run starts from it (the fast path's slots, or a
    // PyramidRun over JSON).
    const setup = exitSetup(config, totalLayers);
    if (options !== undefined && options !== null) {
      // `{policy, mode, model, policyConfig}`, read once and checked now; kept as given, so a
      // run's own options replace its keys one by one.
      const given = enc(withModel(options), AS_OPTIONS);
      if (PYRAMID_RUN_OPTIONS(given, Date.now()) !== null) this.#policy = given;
    }
    this.#setup = setup;
    this.#config = setup.wire;
    this.#totalLayers = setup.totalLayers;
    this.#totalLayerCount = setup.totalLayerCount;
    this.#exitSlots = setup.slots; // read only: runs copy it into the scratch buffer
  }

  /** The controller's CoherenceEarlyExit, as the ADR's class has it. */
  get earlyExit() {
    if (this.#exit === null) {
      this.#exit = this.#freed
        ? new CoherenceEarlyExit(RESTORE)
        : new CoherenceEarlyExit(this.#setup.value, this.#setup.totalLayerCount);
    }
    return this.#exit;
  }

  get speculator() {
    if (this.#speculator === null) {
      if (this.#freed) throw freedError();
      this.#speculator = new SpeculativeExecutor(this.#setup.value);
    }
    return this.#speculator;
  }

  /**
   * Runs the layers in order until the exit decision lets the rest be skipped, then
   * verifies the first skipped ones. Each layer is `{name, run, costMs?}`; `run()` may
   * return a result or a Promise of one (with a `signal` in the options, each runner is
   * called as `run({ signal })`, so it can stop its own work on abort). A runner's error
   * rejects this call with that same error; an aborted `signal` rejects it with the
   * signal's reason. The list is read once, when the run starts.
   */
  async runWithEarlyExit(layers, options = undefined) {
    const { signal, policy } = runOptions(options);
    if (signal !== undefined && signal.aborted) throw signal.reason;
    const read = readLayers(layers);
    if (this.#policy !== 'null' || policy !== undefined) {
      const result = await runPolicy(this.#setup, this.#policy, policy, layers, read, signal);
      if (result !== undefined) return result;
    }
    if (read.fast && fastRuns) {
      const result = await runFast(this.#exitSlots, this.#totalLayerCount, layers, read, signal);
      if (result !== undefined) return result;
    }
    const badRunner = read.badRunner;
    const given = specsOf(layers, read, badRunner < 0 ? read.count : badRunner + 1);
    const engine = PR_START(this.#config, this.#totalLayers, given);
    try {
      if (badRunner >= 0) {
        RUNNER_ERROR(badRunner, read.reads[READ * badRunner + 3]);
      }
      for (;;) {
        const next = PR_NEXT(engine);
        if (next.action === STEP_DONE) return PR_RESULT(engine);
        const index = next.layer;
        const pending = runLayer(layers, read, index, signal);
        const returned = signal ? await abortable(pending, signal) : await pending;
        if (signal && signal.aborted) throw signal.reason;
        PR_SUBMIT(engine, index, enc(readResult(returned), asLayerResult(index), returned));
      }
    } finally {
      release(engine);
    }
  }

  free() {
    this.#freed = true;
    if (this.#exit !== null) this.#exit.free();
    if (this.#speculator !== null) this.#speculator.free();
  }
}

/**
 * The core's step API: the host runs each layer and feeds its result back. With policy
 * options (`{policy: 'fail_fast' | 'risk_bounded', mode, model, policyConfig}`) the policy
 * decides; its state lives here as its snapshot (stateless ops, see runPolicy).
 */
export class PyramidRun {
  #native;
  #step = null; // a policy run's `{state, next}`

  constructor(config = undefined, totalLayers = undefined, layers = undefined, options = undefined) {
    if (config === RESTORE) {
      this.#native = FREED;
      return;
    }
    const specs = layerSpecs(layers);
    if (options !== undefined && options !== null) {
      const step = policyStart(encConfig(config), enc(totalLayers), specs, enc(withModel(options), AS_OPTIONS), undefined);
      if (step !== null) {
        this.#native = FREED;
        this.#step = step;
        return;
      }
    }
    this.#native = PR_START(encConfig(config), enc(totalLayers), specs);
  }

  static start(config, totalLayers, layers, options = undefined) {
    return new PyramidRun(config, totalLayers, layers, options);
  }

  /** `{action: 'run' | 'verify', layer}` or `{action: 'done'}`; advances nothing. */
  next() {
    if (this.#step !== null) return { ...this.#step.next };
    return PR_NEXT(this.#native);
  }

  submit(layer, result) {
    if (this.#step !== null) {
      this.#step = policySubmit(this.#step, layer, result);
      return;
    }
    PR_SUBMIT(this.#native, enc(layer), enc(result, typeof layer === 'number' ? asLayerResult(layer) : AS_LAYER_RESULT));
  }

  result() {
    if (this.#step !== null) return policyResult(this.#step);
    return PR_RESULT(this.#native);
  }

  toJSON() {
    // A fresh copy of the policy run's snapshot, read back by the core.
    if (this.#step !== null) return PYRAMID_RUN_RESTORE(enc(this.#step.state, AS_SNAPSHOT)).state;
    return PR_TO_JSON(this.#native);
  }

  static fromJSON(snapshot) {
    const given = enc(snapshot, AS_SNAPSHOT);
    const restored = new PyramidRun(RESTORE);
    const engine = newNative();
    // The engines' op answers nothing for an ADR run's snapshot, and the engine's name for a
    // policy run's, which the policy op restores.
    const answer = PR_FROM_JSON(engine, given);
    if (answer === '') {
      restored.#native = engine;
      return restored;
    }
    release(engine);
    unwrap(answer); // an error: thrown
    restored.#step = PYRAMID_RUN_RESTORE(given);
    return restored;
  }

  free() {
    release(this.#native);
    this.#native = FREED;
    if (this.#step !== null) this.#step = FREED_STEP;
  }
}

// A freed policy run: any use throws as a freed native object does.
const FREED_STEP = {
  get state() {
    throw freedError();
  },
  get next() {
    throw freedError();
  },
};

// Filled by ready() (at load in Node, by init() in the browser): the core's presets.
export const DEFAULT_EXIT_CONFIG = {};
export const AGGRESSIVE_EXIT_CONFIG = {};
export const CONSERVATIVE_EXIT_CONFIG = {};

