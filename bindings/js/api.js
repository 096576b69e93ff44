// The public JS API of earlyexit, shared by the `earlyexit` (napi-rs) and
// `earlyexit-wasm` (wasm-bindgen) packages, which copy this file in at build time
// (scripts/build-node.sh, scripts/build-wasm.sh, via bindings/js/build.mjs).
//
// It is a drop-in for the seed's `early-stopping.mjs` and for ADR-033's engine:
// same classes, methods, returned objects and strings. Every rule, every string
// and every error comes from the Rust core; this layer only
//   - converts arguments to one string in the wire format of bindings/js/interface/src/wire.rs
//     (JSON plus a tag for NaN, the infinities, functions and `undefined`),
//   - turns answers back into plain objects, and `!` answers into real
//     TypeError / RangeError objects with `.code` and `.field`,
//   - asks an outside diminishing-returns source when the core answers `?`
//     (the core decides whether to ask, exactly when the seed asks), and
//   - runs the async test-pyramid loop over the core's step API (PyramidRun).
//
// `native` is the module both bindings export: `new native.NativeEngine()` with
// `.call(op, args)`, and `native.exec(op, args)`. `host` is `{fs, path, byteLength}` where
// there are files (Node: `node:fs`, `node:path`, `Buffer.byteLength`), absent in browsers;
// only IterationAnalytics's saves and load use it.
//
// Op codes, slots, codes, the core's names by code and its constant answers come from one
// generated module, bindings/js/api/contract.generated.mjs (written from the Rust tables by
// `cargo run -p earlyexit-js --bin gen-js-contract`), this file's one `import`: the build
// inlines it into the same scope. Keep this file free of any other `import` and of every
// `export` but the createApi line: the build turns it into CommonJS by rewriting that line.
import {
  CONTRACT, OP, ERROR_CODE, PROBLEM, LIMITS, WIRE_TAG, ANSWER_ERROR, ANSWER_TAGGED,
  STATUSES, BUDGETS, CODE_TRIGGER, EXIT_REASONS, OUTCOMES, VERDICTS, LOOP_PRESETS,
  RECORD_FIELDS, ANALYTICS_RECORD_FIELDS, REASON_NO_ITERATIONS, REASON_CONTINUE, EMPTY_SUMMARY, SNAPSHOT,
  IN_ITERATION, IN_QUALITY, IN_CONFIDENCE, IN_STATUS, IN_DELTA, IN_FLAGS, IN_TOKENS, IN_COST, IN_TIME,
  IN_ITERATION_NUMBER, IN_SOURCE, IN_DETECTED, IN_REPORT_ITERATION_KIND, IN_REPORT_ITERATION, IN_TIMESTAMP_LEN,
  IN_DELEGATE, IN_TIMESTAMP, MAX_FAST_TIMESTAMP, OUT_CODE, OUT_CONFIDENCE, OUT_DETAIL, OUT_BEST_PRESENT,
  OUT_BUDGET_COUNT, OUT_BUDGETS, OUT_IMPROVEMENTS_AT, BUDGET_STATUS_SLOTS, IMPROVEMENT_SLOTS, STATE, COUNTERS,
  USAGE_SUMS, WINDOW_LEN, WINDOW, OBSERVATION_SLOTS,
  FLAG_TOKENS, FLAG_COST, FLAG_TIME, FLAG_ITERATION_NUMBER, FLAG_TIMESTAMP, FLAG_ACCEPTED,
  SOURCE_NONE, SOURCE_ATTACHED, SOURCE_REPORT, REPORT_ITERATION_ABSENT, REPORT_ITERATION_NULL, REPORT_ITERATION_NUMBER,
  DELEGATE_NONE, PLATEAU_ANSWER, HIGH_CONFIDENCE_ANSWER, DIMINISHING_RETURNS_ANSWER,
  CHECK_HIGH_CONFIDENCE, CHECK_QUALITY_PLATEAU, CHECK_DIMINISHING_RETURNS, DELEGATE_RESUME,
  DELEGATED_HIGH_CONFIDENCE, DELEGATED_QUALITY_PLATEAU, STATUS_ABSENT, FOLD_OK,
  CODE_NO_ITERATIONS, CODE_WARM_UP, CODE_CONTINUE, CODE_HIGH_CONFIDENCE, CODE_PLATEAU, CODE_DIMINISHING,
  CODE_MAX_ITERATIONS, CODE_BUDGET, CODE_REGRESSION, CODE_NEED_SOURCE, CODE_INVALID_REPORT, CODE_NO_IMPROVEMENT,
  CODE_DELEGATE, CODE_GO_ON,
  P_BASE, P_STATE_LEN, P_LAYER_COUNT, P_TOTAL_LAYERS, P_SPECULATIONS, P_PREDICTED, P_PREDICTED_CONFIDENCE,
  P_IN_PASS_RATE, P_IN_COVERAGE, P_IN_FLAKY_RATIO, P_IN_PREVIOUS_LAMBDA, P_IN_LAYER, P_OUT_ACTION, P_OUT_LAYER,
  P_OUT_STAMPED, P_OUT_ACTUAL, P_OUT_EXITED, P_OUT_EXIT_LAYER, P_OUT_REASON, P_OUT_CONFIDENCE, P_OUT_SKIPPED,
  P_OUT_VERIFIED, P_OUT_MISPREDICTIONS, P_OUT_SAVED, P_OUT_CORRECT, P_OUT_FAILED, P_OUT_VERDICT, P_COSTS,
  P_COST_SLOTS, P_MAX_LAYERS, P_ACTION_RUN, P_ACTION_DONE, P_ACTION_REFUSED, P_START_OK,
} from './api/contract.generated.mjs';

export default function createApi(native, hostFiles) {
  'use strict';
  const host = hostFiles ?? null;

  // ------------------------------------------------------------------------
  // Wire format (see bindings/js/interface/src/wire.rs).

  const tag = (what) => '{' + JSON.stringify(WIRE_TAG) + ':' + JSON.stringify(what) + '}';
  const TAG_CODE = WIRE_TAG.charCodeAt(0); // a key that starts with it is escaped by one more
  const TAG_NAN = tag('NaN');
  const TAG_INFINITY = tag('Infinity');
  const TAG_NEG_INFINITY = tag('-Infinity');
  const TAG_UNDEFINED = tag('undefined');

  // The core's size limits (docs/limits.md, `LIMITS` of the generated module), exported as
  // `LIMITS`. The encoder checks nesting (valueDepth) and text size (documentBytes) before
  // anything reaches native memory; the core checks the rest.

  // What an argument is, for the encoder's errors: the code the core gives that argument's
  // problems, the root of paths inside it, and its name when the whole of it is at fault.
  const AS_VALUE = { code: ERROR_CODE.INVALID_CONFIG, root: '', name: 'value' };
  const AS_CONFIG = { code: ERROR_CODE.INVALID_CONFIG, root: '', name: 'config' };
  const AS_OPTIONS = { code: ERROR_CODE.INVALID_CONFIG, root: '', name: 'options' };
  const AS_SNAPSHOT = { code: ERROR_CODE.INVALID_SNAPSHOT, root: '', name: 'snapshot' };
  const AS_RESULT = { code: ERROR_CODE.INVALID_RESULT, root: '', name: 'result' };
  const AS_REPORT = { code: ERROR_CODE.INVALID_ANALYTICS, root: '', name: 'detectDiminishingReturns()' };
  const AS_LAYER_RESULT = { code: ERROR_CODE.INVALID_LAYER_RESULT, root: '', name: 'layerResult' };
  const AS_SIGNAL = { code: ERROR_CODE.INVALID_SIGNAL, root: '', name: 'signal' };
  const AS_DECISION = { code: ERROR_CODE.INVALID_SIGNAL, root: 'decision', name: 'decision' };
  const AS_LAYERS = { code: ERROR_CODE.INVALID_CONFIG, root: 'layers', name: 'layers' };
  const AS_SPECULATIONS = { code: ERROR_CODE.INVALID_SIGNAL, root: 'speculations', name: 'speculations' };
  // Runs (replay): the size limit applies to each run, or each line of JSONL text, which the
  // core reads one at a time, never to the whole batch, so large replays stay possible.
  const AS_RUNS = { code: ERROR_CODE.INVALID_REPLAY, root: 'runs', name: 'runs', lines: true };
  const asLayerResult = (index) => {
    const root = 'layers[' + index + ']';
    return { code: ERROR_CODE.INVALID_LAYER_RESULT, root, name: root };
  };

  function scalar(value) {
    switch (typeof value) {
      case 'number':
        if (value === 0) return 1 / value < 0 ? '-0' : '0';
        if (value - value === 0) return '' + value; // finite
        return value !== value ? TAG_NAN : value > 0 ? TAG_INFINITY : TAG_NEG_INFINITY;
      case 'string':
        return JSON.stringify(value);
      case 'boolean':
        return value ? 'true' : 'false';
      case 'undefined':
        return TAG_UNDEFINED;
      default: // function, symbol, bigint
        return tag(typeof value);
    }
  }

  // The encoder. Each object and array is read once (its keys, then each value once) and
  // encoded once, however often it occurs: a shared sub-object's text is reused, so the work
  // is linear in the input (tests/node/reliability.test.mjs counts the visits). Shared
  // sub-objects are valid JS values (one result object given for two layers, say), so the
  // text holds them once per occurrence, as JSON.stringify writes them, within the size limit.
  // A cycle, nesting deeper than the limit, or text over the size limit is the core's typed
  // error (op HOST_ERROR) with the argument's code and the path where it was found.
  const ENCODING = {}; // the memo's mark of an object whose text is being written
  const ABORT_SIGNAL = {}; // stands for an AbortSignal: encoded as that host type's tag
  const TAG_ABORT_SIGNAL = tag('AbortSignal');
  let lastVisits = 0; // values visited by the last top-level encode (for the tests)

  // `copied`: the host object `value` is a copy of (the values read from it once), so that a
  // cycle back to it is found where it is in the caller's object.
  function encode(value, where = AS_VALUE, copied = undefined) {
    if (typeof value !== 'object' || value === null) {
      lastVisits = 1;
      if (typeof value !== 'string') return value === null ? 'null' : scalar(value);
      if (where.lines === true) return JSON.stringify(value); // JSONL: the core bounds each line
      // A whole argument given as text (a snapshot's JSON, say) is a document: its length in
      // code units is at most its UTF-8 bytes, so a longer one is over the core's limit.
      if (value.length > LIMITS.documentBytes) throw hostError(PROBLEM.SIZE, where.code, where.name);
      return JSON.stringify(value);
    }
    const walk = { where, memo: new Map(), keys: [], height: 0, visits: 1 };
    if (copied !== undefined && copied !== value) walk.memo.set(copied, ENCODING);
    const text = encodeObject(value, 1, walk);
    lastVisits = walk.visits;
    return text;
  }

  function encodeItem(value, depth, walk) {
    walk.visits++;
    if (typeof value === 'object' && value !== null) return encodeObject(value, depth, walk);
    walk.height = 0;
    if (typeof value === 'string' && value.length > LIMITS.documentBytes) throw hostError(PROBLEM.SIZE, walk.where.code, sizeField(walk));
    return value === null ? 'null' : scalar(value);
  }

  // `depth`: the nesting level of `value` (1 at the top). `walk.height` is set to the levels
  // of `value` itself (1 for an object holding no object).
  function encodeObject(value, depth, walk) {
    if (value === ABORT_SIGNAL) {
      walk.height = 1;
      return TAG_ABORT_SIGNAL;
    }
    const known = walk.memo.get(value);
    if (known !== undefined) {
      if (known === ENCODING) throw hostError(PROBLEM.CYCLE, walk.where.code, pathOf(walk));
      if (depth - 1 + known.height > LIMITS.valueDepth) throw hostError(PROBLEM.DEPTH, walk.where.code, pathOf(walk));
      walk.height = known.height;
      return known.text;
    }
    if (depth > LIMITS.valueDepth) throw hostError(PROBLEM.DEPTH, walk.where.code, pathOf(walk));
    walk.memo.set(value, ENCODING);
    const limit = LIMITS.documentBytes;
    let height = 0;
    let out;
    if (Array.isArray(value)) {
      out = '[';
      const length = value.length;
      for (let i = 0; i < length; i++) {
        walk.keys.push(i);
        const text = encodeItem(value[i], depth + 1, walk);
        walk.keys.pop();
        if (walk.height > height) height = walk.height;
        if (depth === 1 && walk.where.lines === true) { // a batch of runs: each run is bounded
          if (text.length >= limit) throw hostError(PROBLEM.SIZE, walk.where.code, walk.where.root + '[' + i + ']');
        } else if (out.length + text.length >= limit) {
          throw hostError(PROBLEM.SIZE, walk.where.code, sizeField(walk));
        }
        out += i > 0 ? ',' + text : text;
      }
      out += ']';
    } else {
      out = '{';
      const keys = Object.keys(value);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        walk.keys.push(key);
        const item = value[key];
        if (item === undefined) { // an undefined key is an absent key
          walk.keys.pop();
          continue;
        }
        const text = encodeItem(item, depth + 1, walk);
        walk.keys.pop();
        if (walk.height > height) height = walk.height;
        const entry = JSON.stringify(key.charCodeAt(0) === TAG_CODE ? WIRE_TAG + key : key) + ':' + text;
        if (out.length + entry.length >= limit) throw hostError(PROBLEM.SIZE, walk.where.code, sizeField(walk));
        out += out.length > 1 ? ',' + entry : entry;
      }
      out += '}';
    }
    height += 1;
    walk.memo.set(value, { text: out, height });
    walk.height = height;
    return out;
  }

  // What a size error names: the argument, or in a batch of runs the run (`runs[3]`).
  function sizeField(walk) {
    return walk.where.lines === true && walk.keys.length > 0 ? walk.where.root + '[' + walk.keys[0] + ']' : walk.where.name;
  }

  // Where the encoder is: `root.key[2]...`. A key is cut to 64 characters, so that what
  // crosses to the core for the message stays small whatever the keys are.
  function pathOf(walk) {
    let path = walk.where.root;
    for (const key of walk.keys) {
      if (typeof key === 'number') path += '[' + key + ']';
      else path += (path === '' ? '' : '.') + (key.length > 64 ? key.slice(0, 64) + '...' : key);
    }
    return path;
  }

  // The core's error for what this layer found itself (`PROBLEM`, by number), in an
  // argument whose errors have `code`, at `path`; `got` is an encoded value.
  function hostError(problem, code, path, got = 'null') {
    return makeError(native.exec(OP.HOST_ERROR, '[' + problem + ',' + JSON.stringify(code) + ',' + JSON.stringify(path) + ',' + got + ']'));
  }

  const enc = (value, where, copied) => encode(value, where, copied);
  // A config or options argument: `undefined` means "none", as the seed's default parameters do.
  const encConfig = (value, where = AS_CONFIG) => (value === undefined ? 'null' : encode(value, where));

  const SPECIAL = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

  function untag(value) {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = untag(value[i]);
      return value;
    }
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === WIRE_TAG) return SPECIAL[value[WIRE_TAG]]; // else undefined
    const out = {};
    for (const key of keys) {
      const item = untag(value[key]);
      if (item === undefined) continue;
      const name = key.charCodeAt(0) === TAG_CODE ? key.slice(1) : key;
      if (name === '__proto__') Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true });
      else out[name] = item;
    }
    return out;
  }

  // For `catch (error)`: whether `error` is one of this package's bad-input errors, a
  // TypeError or RangeError carrying string `.code` and `.field` (whichever package or build
  // threw it, so the shape is checked, not a class).
  function isEarlyExitError(error) {
    return (error instanceof TypeError || error instanceof RangeError) && typeof error.code === 'string' && typeof error.field === 'string';
  }

  function makeError(answer) {
    const e = JSON.parse(answer.slice(1));
    const error = e.kind === 'type' ? new TypeError(e.message) : new RangeError(e.message);
    error.code = e.code;
    error.field = e.field;
    return error;
  }

  // Reads an answer: '' is undefined, '!' an error, '~' JSON with tags, else JSON.
  function unwrap(answer) {
    const first = answer.charCodeAt(0);
    if (first === 123 || first === 91 || first === 34) return JSON.parse(answer); // { [ "
    if (answer === '') return undefined;
    if (first === ANSWER_ERROR) throw makeError(answer);
    if (first === ANSWER_TAGGED) return untag(JSON.parse(answer.slice(1)));
    return JSON.parse(answer);
  }

  const args1 = (a) => '[' + a + ']';
  const args2 = (a, b) => '[' + a + ',' + b + ']';

  // ------------------------------------------------------------------------
  // Native objects

  // Every stateful class holds one native object. After free() it holds this one,
  // so a use after free is a clear error rather than a crash.
  const FREED = {
    call() {
      throw new Error('earlyexit: this object was freed (free() or Symbol.dispose) and cannot be used');
    },
  };
  // A private token: the static fromJSON methods build an object without running
  // the constructor's validation.
  const RESTORE = Symbol('restore');

  function newNative() {
    return new native.NativeEngine();
  }

  function release(engine) {
    if (engine !== FREED && typeof engine.free === 'function') engine.free(); // wasm; napi objects are GC'd
  }

  // Fills a fresh native object with `op`; frees it and rethrows if the core refuses.
  function filled(op, args) {
    const engine = newNative();
    const answer = engine.call(op, args);
    if (answer.charCodeAt(0) === ANSWER_ERROR) {
      release(engine);
      throw makeError(answer);
    }
    return engine;
  }

  function addDispose(cls) {
    if (typeof Symbol.dispose === 'symbol') {
      Object.defineProperty(cls.prototype, Symbol.dispose, {
        value: function dispose() {
          this.free();
        },
        writable: true,
        configurable: true,
      });
    }
  }

  // The outside diminishing-returns source: absent, or any object with the method.
  const AS_SOURCE = { code: ERROR_CODE.INVALID_CONFIG, root: 'iterationAnalytics', name: 'iterationAnalytics' };
  function sourceOf(analytics) {
    if (analytics === null || analytics === undefined) return null;
    if ((typeof analytics === 'object' || typeof analytics === 'function') && typeof analytics.detectDiminishingReturns === 'function') {
      return analytics;
    }
    return unwrap(native.exec(OP.ANALYTICS_SOURCE_ERROR, args1(enc(analytics, AS_SOURCE))));
  }

  // ------------------------------------------------------------------------
  // Engine 1: the seed's EarlyStopping, on the numeric fast path
  //
  // No native object per engine and no JSON per call (docs/performance-notes.md). Each
  // engine keeps its history (the seed's record objects) and its compact decision state
  // (config, counters, the last plateauConsecutiveCount observations: a Float64Array)
  // here; the core's stateless functions (bindings/js/fast/src/fast.rs over
  // core/src/loop_state.rs) validate and fold a record in, and decide, over that state in
  // a scratch buffer shared with the native side. The most recently used engine's state
  // stays in the scratch buffer, so a loop over one engine copies nothing. Calls answer a
  // number code; this layer builds the returned object in one step. Reason strings come
  // from the core, cached per distinct value. Anything the fast path does not take (an
  // unusual argument, an invalid value) goes to the JSON path, which gives the core's
  // full typed error.

  // Slots, flags and codes: the contract's (bindings/js/fast/src/slots.rs), imported above.

  // The scratch buffer. napi: a Float64Array this layer owns and binds once (the addon
  // keeps a pointer); wasm: a view of wasm memory, viewed again when the memory grows.
  // Shared by every copy of this layer over the same native module: a test runner may load
  // the package more than once in one thread, and the native side has one buffer per
  // thread, so the buffer and which engine's state is in it must be known to all copies.
  // Kept on the module's `fastFold` function, which every copy sees as the same object even
  // when a package entry hands this layer a wrapper of the module (the wasm package routes
  // replay ops through one).
  const SHARED = Symbol.for('earlyexit.scratch');
  const home = typeof native.fastFold === 'function' ? native.fastFold : native;
  const fast = home[SHARED] || (home[SHARED] = {
    scratch: new Float64Array(0), owner: null, evict: null, timestampFor: null, timestampBytes: null, memory: null, address: 0, size: 0,
  });
  let decidedBy = null; // the engine whose decision (over its current state) is in the output slots

  function growScratch(min) {
    const size = Math.max(4096, 2 * min);
    if (typeof native.scratchReserve === 'function') {
      const address = native.scratchReserve(size);
      fast.memory = native.wasmMemory(); // kept: after a trap, the last engine's state is read from it
      fast.address = address;
      fast.size = size;
      fast.scratch = new Float64Array(fast.memory.buffer, address, size);
    } else {
      const grown = new Float64Array(size);
      grown.set(fast.scratch);
      native.bindScratch(grown);
      fast.scratch = grown;
    }
    return fast.scratch;
  }

  // The scratch view after a native call (a wasm call that allocated may have grown the
  // memory, which detaches the old view).
  function view() {
    const s = fast.scratch;
    return s.length !== 0 ? s : growScratch(0);
  }

  // The timestamp's bytes in scratch buffer `s` (slots IN_TIMESTAMP on), viewed again
  // whenever the scratch view is another (grown, or wasm memory grown).
  function timestampBytes(s) {
    if (fast.timestampFor === s) return fast.timestampBytes;
    fast.timestampFor = s;
    return (fast.timestampBytes = new Uint8Array(s.buffer, s.byteOffset + s.BYTES_PER_ELEMENT * IN_TIMESTAMP, MAX_FAST_TIMESTAMP));
  }

  // Slots needed to fold one more observation into a window of `len` (state, then the
  // plateau's improvements after it).
  const slotsFor = (len) => WINDOW + (OBSERVATION_SLOTS + IMPROVEMENT_SLOTS) * (len + 2);

  function freedError() {
    return new Error('earlyexit: this object was freed (free() or Symbol.dispose) and cannot be used');
  }

  // A validated config: its object (as getConfig() returns it), its slots, and reason
  // strings cached per value. Shared by every engine with the same config.
  const configs = new Map();
  const CACHE_ENTRIES = 64; // per cache (configs, and each config's reason caches)
  const CACHE_TEXT = 256; // longer reasons are not cached
  function configEntry(key, answer) {
    const [value, slots] = answer;
    return { key, value, slots: Float64Array.from(slots), highConfidence: new Map(), maxIterations: new Map(), plateau: null };
  }
  function configFor(config) {
    const key = config === undefined || config === null ? 'null' : enc(config, AS_CONFIG);
    let entry = configs.get(key);
    if (entry === undefined) {
      entry = configEntry(key, unwrap(native.exec(OP.ES_CONFIG_CHECK, '[null,' + key + ',"config"]')));
      if (configs.size >= CACHE_ENTRIES) configs.clear();
      configs.set(key, entry);
    }
    return entry;
  }

  // Reason strings are cached per value (per config, and module-wide for an outside source's
  // reasons), so a repeated decision costs no native call. Bounded in entries and in length:
  // a source's reason can be any size, and the caches outlive the engines that filled them.
  const drReasons = new Map();
  function cached(map, key, make) {
    let text = map.get(key);
    if (text === undefined) {
      text = make();
      if (text.length > CACHE_TEXT) return text;
      if (map.size >= CACHE_ENTRIES) map.clear();
      map.set(key, text);
    }
    return text;
  }
  const fetchReason = () => native.fastReason();

  // The fields of a loop result the fast path reads, in the order readBack() takes them.
  // (The core's RECORD_FIELDS: the variables recordIterationResult reads are in its order.)
  const RESULT_FIELDS = RECORD_FIELDS;
  const AS_ITERATION = { code: ERROR_CODE.INVALID_ITERATION, root: '', name: 'iteration' };

  // A result object as the values already read from it (`known` by RESULT_FIELDS, `others`
  // by key), in its key order: what the JSON path encodes instead of reading it again.
  function readBack(keys, others, known) {
    const given = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const at = RESULT_FIELDS.indexOf(key);
      const value = at >= 0 ? known[at] : others === null ? undefined : others.get(key);
      if (value !== undefined) Object.defineProperty(given, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return given;
  }

  // A source's report as the values read from it, each once: `{detected, iteration, reason}`
  // (the only keys the core reads; `iteration` only when given). Anything but an object is
  // passed on as it is, for the core's error.
  function readReport(report) {
    if (typeof report !== 'object' || report === null || Array.isArray(report)) return report;
    const read = {};
    const keys = Object.keys(report);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === 'detected' || key === 'iteration' || key === 'reason') {
        const value = report[key];
        if (value !== undefined) read[key] = value;
      }
    }
    return read;
  }

  // Plain data (details objects): a deep copy, so callers cannot reach the engine's own.
  function copyData(value) {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(copyData);
    const out = {};
    for (const key of Object.keys(value)) out[key] = copyData(value[key]);
    return out;
  }
  // Whether for-in over `object` sees exactly its own enumerable keys (what Object.keys,
  // the wire encoder and so the core see): its prototype is Object.prototype with nothing
  // enumerable on it, or null. Anything else takes the general path.
  const NO_KEYS = Object.freeze({}); // for-in over nothing
  function inheritsNothing(object) {
    const proto = Object.getPrototypeOf(object);
    if (proto === null) return true;
    if (proto !== Object.prototype) return false;
    for (const key in proto) return false; // (the loop runs only if something is enumerable)
    return true;
  }

  // A history record as the seed stores it: a timestamp the clock gave is formatted on
  // first read (kept as the time in ms until then).
  function copyRecord(record) {
    if (typeof record.timestamp === 'number') record.timestamp = new Date(record.timestamp).toISOString();
    return { ...record };
  }

  // The seed's public fields are plain data its users write to (`stopper.config.x = v`,
  // `stopper.iterationHistory.push(r)`), and the seed honours the writes. Here the history
  // and the config are handed out as live views (Proxies) whose writes the engine sees:
  // a config write and a write to a recorded record are checked by the core at the write
  // (a typed error, nothing written); records put into the history from outside are checked
  // by the core when the engine next uses its history (a typed error naming
  // `iterationHistory[i]`). The state is then folded again lazily, so the normal loop
  // (recordIterationResult + shouldStop) keeps its fast path: one flag test per call.

  // Record views (any engine's) -> { engine, record }.
  const RECORD_OF = new WeakMap();
  // History views -> the array they show.
  const HISTORY_OF = new WeakMap();

  // The array index a property key names, or -1.
  function arrayIndex(key) {
    if (typeof key !== 'string') return -1;
    const n = Number(key);
    return Number.isInteger(n) && n >= 0 && n < 4294967295 && String(n) === key ? n : -1;
  }

  // What a record the caller gave held when the core checked it (every field a record may
  // have): a later change to the object is seen by comparing.
  const recordValues = (object) => RECORD_FIELDS.map((field) => object[field]);
  // A record the caller gave, read once (own keys), so that what the core checks, what the
  // state folds and what is compared later are the same values; non-records as they are.
  function readRecord(entry) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
    const plain = {};
    for (const key of Object.keys(entry)) {
      const value = entry[key];
      if (key === '__proto__') Object.defineProperty(plain, key, { value, enumerable: true, writable: true, configurable: true });
      else plain[key] = value;
    }
    return plain;
  }
  // A checked record (readRecord's) in the shape recordIterationResult stores.
  function storedRecord(plain, timestamp) {
    const record = {
      iteration_number: plain.iteration_number,
      quality_score: plain.quality_score,
      confidence: plain.confidence,
      verification_status: plain.verification_status,
      quality_delta: plain.quality_delta,
      timestamp: plain.timestamp === undefined ? timestamp : plain.timestamp,
    };
    if (plain.tokens_used !== undefined) record.tokens_used = plain.tokens_used;
    if (plain.token_cost_usd !== undefined) record.token_cost_usd = plain.token_cost_usd;
    if (plain.execution_time_ms !== undefined) record.execution_time_ms = plain.execution_time_ms;
    return record;
  }
  function sameValues(object, values) {
    const fields = RECORD_FIELDS;
    for (let i = 0; i < fields.length; i++) if (!Object.is(object[fields[i]], values[i])) return false;
    return true;
  }
  // An object's own keys and values (the object assigned to `config`).
  function entriesOf(object) {
    const keys = Object.keys(object);
    return { keys, values: keys.map((key) => object[key]) };
  }
  function sameEntries(object, seen) {
    const keys = Object.keys(object);
    if (keys.length !== seen.keys.length) return false;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== seen.keys[i] || !Object.is(object[keys[i]], seen.values[i])) return false;
    return true;
  }
  // `{"key":value}` in the wire format, `undefined` kept (an object literal would drop it).
  const encEntry = (key, value) => '{' + JSON.stringify(key.charCodeAt(0) === 0 ? '\u0000' + key : key) + ':' + encode(value, AS_CONFIG) + '}';

  // A plateau stop's details from the output slots.
  function plateauDetails(s) {
    const count = s[OUT_DETAIL + 1];
    const at = s[OUT_IMPROVEMENTS_AT];
    const improvements = new Array(count);
    for (let i = 0; i < count; i++) {
      const j = at + IMPROVEMENT_SLOTS * i;
      improvements[i] = { iteration: s[j], improvement: s[j + 1], delta: s[j + 2] };
    }
    return { consecutive_count: s[OUT_DETAIL], improvements, average_quality: s[OUT_DETAIL + 2], threshold: s[OUT_DETAIL + 3] };
  }

  // A check method's answer: the decision the core made, without its extras.
  function checkAnswer(decision) {
    const { stop, reason, confidence, trigger, details } = decision;
    return details === undefined ? { stop, reason, confidence, trigger } : { stop, reason, confidence, trigger, details };
  }

  class EarlyStopping {
    #config = null;
    #state = null; // this engine's slots from COUNTERS on while another engine is active; null = fresh
    #history = [];
    #source = null;
    #reason = null;
    #details = null;
    // Writes from outside (the seed's public fields; see RECORD_OF above):
    #outside = false; // something may have changed from outside: catch up before the next use
    #stale = false; // a change other than appended records: fold the whole history again
    #folded = 0; // how many history entries the state holds (kept while #outside)
    #given = null; // WeakSet of objects put into the history through its view
    #foreign = null; // Map: such an object -> { values, record } as the core checked it
    #adopted = null; // an array assigned to iterationHistory: its entries as last folded
    #configGiven = null; // an object assigned to config: { object, keys, values }
    #historyView = null;
    #configView = null;
    #configTarget = null; // what the config view shows (replaced by configure, as in the seed)
    #views = null; // WeakMap: this engine's record -> its view

    /**
     * @param {object} [config] partial config merged over the seed's defaults
     * @param {{detectDiminishingReturns(): object}} [iterationAnalytics]
     */
    constructor(config = undefined, iterationAnalytics = null) {
      if (config === RESTORE) return;
      this.#config = configFor(config);
      this.#source = sourceOf(iterationAnalytics);
    }

    // Puts this engine's state into the scratch buffer (saving the previous engine's).
    #load() {
      if (fast.owner === this) return view(); // (a wasm call may have grown the memory since)
      const config = this.#config;
      if (config === null) throw freedError();
      if (fast.evict !== null) fast.evict(); // saves the previous engine's state with it
      decidedBy = null; // the outputs (the plateau's improvements above all) were another engine's
      const state = this.#state;
      let s = view();
      const need = slotsFor(state === null ? 0 : (state.length - (WINDOW - COUNTERS)) / OBSERVATION_SLOTS);
      if (s.length < need) s = growScratch(need);
      s.set(config.slots, STATE);
      if (state === null) {
        s.fill(0, COUNTERS, WINDOW);
      } else {
        for (let i = 0; i < state.length; i++) s[COUNTERS + i] = state[i];
      }
      fast.owner = this;
      fast.evict = () => this.#save();
      return s;
    }

    // Saves the counters and the window (the config slots are the config entry's) into a
    // plain array: a Float64Array per save costs several times more (its backing store is
    // allocated off the heap), and every fresh engine is saved once when the next one loads.
    #save() {
      const s = view();
      const length = WINDOW - COUNTERS + OBSERVATION_SLOTS * s[WINDOW_LEN];
      const state = new Array(length);
      for (let i = 0; i < length; i++) state[i] = s[COUNTERS + i];
      this.#state = state;
    }

    #unload() {
      if (fast.owner === this) {
        fast.owner = null;
        fast.evict = null;
      }
      if (decidedBy === this) decidedBy = null;
      this.#state = null;
    }

    recordIterationResult(iteration, result) {
      if (this.#outside) this.#catchUp();
      // Unpacks the seed's object into numbers. Only a conversion: a key, type or status
      // this does not recognise sends the call to the JSON path, where the core decides.
      let fast = typeof iteration === 'number' && typeof result === 'object' && result !== null && !Array.isArray(result);
      let quality, confidence, statusName, delta, timestamp, tokens, cost, time, iterationNumber;
      let status = -1;
      let flags = 0;
      let read = false; // whether the result's values were read into the variables above
      let others = null; // the values of keys the fast path does not take
      if (fast) {
        // for-in rather than Object.keys (no array per call, and V8 reads each value by its
        // slot): the same keys when nothing enumerable is inherited, which it checks first.
        // Otherwise nothing is read here: the JSON path reads the result, once.
        fast = inheritsNothing(result);
        read = fast;
        for (const key in (fast ? result : NO_KEYS)) {
          const value = result[key];
          if (value === undefined) continue; // an undefined key is an absent key
          switch (key) {
            case 'quality_score': quality = value; break;
            case 'confidence': confidence = value; break;
            case 'verification_status': statusName = value; status = STATUSES.indexOf(value); break;
            case 'quality_delta': delta = value; break;
            case 'timestamp': timestamp = value; break;
            case 'tokens_used': tokens = value; flags |= FLAG_TOKENS; break;
            case 'token_cost_usd': cost = value; flags |= FLAG_COST; break;
            case 'execution_time_ms': time = value; flags |= FLAG_TIME; break;
            case 'iteration_number': iterationNumber = value; flags |= FLAG_ITERATION_NUMBER; break;
            default:
              fast = false;
              (others === null ? (others = new Map()) : others).set(key, value);
          }
        }
        fast = fast && typeof quality === 'number' && typeof confidence === 'number' && status >= 0 && typeof delta === 'number' &&
          (flags === 0 || ((!(flags & FLAG_TOKENS) || typeof tokens === 'number') && (!(flags & FLAG_COST) || typeof cost === 'number') &&
            (!(flags & FLAG_TIME) || typeof time === 'number') && (!(flags & FLAG_ITERATION_NUMBER) || typeof iterationNumber === 'number'))) &&
          (timestamp === undefined || (typeof timestamp === 'string' && timestamp.length <= MAX_FAST_TIMESTAMP));
      }
      if (fast) {
        let s = this.#load();
        if (s.length < slotsFor(s[WINDOW_LEN])) s = growScratch(slotsFor(s[WINDOW_LEN]));
        s[IN_ITERATION] = iteration;
        s[IN_QUALITY] = quality;
        s[IN_CONFIDENCE] = confidence;
        s[IN_STATUS] = status;
        s[IN_DELTA] = delta;
        s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
        if (timestamp !== undefined) {
          // The string crosses as bytes (the slots' own, through a byte view); the core
          // checks it. One that does not fit bytes is sent as too long: the JSON path decides.
          const bytes = timestampBytes(s);
          const length = timestamp.length;
          let units = 0;
          for (let i = 0; i < length; i++) {
            const unit = timestamp.charCodeAt(i);
            units |= unit;
            bytes[i] = unit;
          }
          s[IN_TIMESTAMP_LEN] = units < 256 ? length : MAX_FAST_TIMESTAMP + 1;
          flags |= FLAG_TIMESTAMP;
        }
        s[IN_FLAGS] = flags;
        if (flags !== 0) {
          s[IN_TOKENS] = tokens;
          s[IN_COST] = cost;
          s[IN_TIME] = time;
          s[IN_ITERATION_NUMBER] = iterationNumber;
        }
        const folded = native.fastFold() === FOLD_OK;
        // The fold also decided (for the shouldStop() that usually follows).
        decidedBy = folded ? this : null;
        if (folded) {
          // Without a timestamp, the clock is read now and formatted only when the history
          // is read (the same string; formatting costs more than the rest of the call).
          const record = {
            iteration_number: iteration,
            quality_score: quality,
            confidence,
            verification_status: STATUSES[status],
            quality_delta: delta,
            timestamp: timestamp === undefined ? Date.now() : timestamp,
          };
          if (flags & FLAG_TOKENS) record.tokens_used = tokens;
          if (flags & FLAG_COST) record.token_cost_usd = cost;
          if (flags & FLAG_TIME) record.execution_time_ms = time;
          if (this.#outside) this.#append(record);
          else this.#history.push(record);
          return;
        }
      } else if (this.#config === null) {
        throw freedError();
      }
      // The JSON path: throws the core's typed error, or answers the stored record.
      // With the engine's usage totals, so a record that would overflow one is refused too,
      // and (strictIterations) the last record, which a re-record must repeat. A result read
      // above goes over as the values read (each host value is read once).
      const given = read ? readBack(Object.keys(result), others, [quality, confidence, statusName, delta, timestamp, tokens, cost, time, iterationNumber]) : result;
      const encoded = enc(given, AS_RESULT, result);
      const totals = this.#totals();
      const strict = this.#config.value.strictIterations === true;
      const history = this.#history;
      const last = strict && history.length > 0 ? enc(copyRecord(history[history.length - 1])) : 'null';
      const record = unwrap(native.exec(OP.ES_RECORD_CHECK, '[' + enc(iteration, AS_ITERATION) + ',' + encoded + ',' + totals + ',' + strict + ',' + last + ']'));
      if (record === true) return { duplicate: true }; // an accepted re-record: nothing changes (Recorded::Duplicate)
      if (record.timestamp === '') record.timestamp = Date.now(); // none given: the clock's, as above
      this.#fold(record);
      if (this.#outside) this.#append(record);
      else this.#history.push(record);
    }

    // A recorded record joins a history that was written to from outside.
    #append(record) {
      const adopted = this.#adopted;
      // The caller holds an assigned array: it gets the record's view, never the record.
      const entry = adopted === null ? record : this.#viewOf(record);
      this.#history.push(entry);
      if (adopted !== null) adopted.push(entry);
      this.#folded++;
    }

    // Folds a record the core already accepted (the JSON path, fromJSON, configure).
    #fold(record) {
      if (!this.#tryFold(record)) throw new Error('earlyexit: internal error: the core refused a record it had accepted');
    }

    // Folds a valid record; false (nothing changed) when a usage total would overflow.
    #tryFold(record) {
      let s = this.#load();
      if (s.length < slotsFor(s[WINDOW_LEN])) s = growScratch(slotsFor(s[WINDOW_LEN]));
      s[IN_ITERATION] = record.iteration_number;
      s[IN_QUALITY] = record.quality_score;
      s[IN_CONFIDENCE] = record.confidence;
      s[IN_STATUS] = STATUSES.indexOf(record.verification_status);
      s[IN_DELTA] = record.quality_delta;
      let flags = 0;
      if (record.tokens_used !== undefined) { flags |= FLAG_TOKENS; s[IN_TOKENS] = record.tokens_used; }
      if (record.token_cost_usd !== undefined) { flags |= FLAG_COST; s[IN_COST] = record.token_cost_usd; }
      if (record.execution_time_ms !== undefined) { flags |= FLAG_TIME; s[IN_TIME] = record.execution_time_ms; }
      s[IN_FLAGS] = flags | FLAG_ACCEPTED; // accepted already: its iteration order was judged when recorded
      s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
      const folded = native.fastFold() === FOLD_OK;
      decidedBy = folded ? this : null;
      return folded;
    }

    // Usage totals so far, in the wire format (the core refuses a record that overflows one).
    #totals() {
      const t = this.#load();
      return '[' + scalar(t[USAGE_SUMS]) + ',' + scalar(t[USAGE_SUMS + 1]) + ',' + scalar(t[USAGE_SUMS + 2]) + ']';
    }

    // Brings the state up to date with what changed from outside: the object assigned to
    // config, the array assigned to iterationHistory, the objects put into the history.
    // Appended entries are checked and folded in; anything else folds the whole history
    // again. A bad entry throws the core's typed error and is checked again at the next use.
    #catchUp() {
      if (this.#config === null) throw freedError();
      const given = this.#configGiven;
      if (given !== null && !sameEntries(given.object, given)) {
        this.#config = configFor(given.object);
        Object.assign(given, entriesOf(given.object));
        this.#refreshConfigView();
        this.#stale = true;
      }
      const history = this.#history;
      const adopted = this.#adopted;
      if (adopted !== null && !this.#stale) {
        if (history.length < this.#folded) this.#stale = true;
        else for (let i = 0; i < this.#folded; i++) if (history[i] !== adopted[i]) { this.#stale = true; break; }
      }
      if (!this.#stale && this.#foreign !== null) {
        for (const [object, seen] of this.#foreign) {
          if (!sameValues(object, seen.values)) {
            this.#stale = true;
            break;
          }
        }
      }
      if (this.#stale) {
        this.#unload();
        this.#folded = 0;
        this.#foreign = null;
      } else if (history.length < this.#folded) {
        this.#stale = true; // cannot happen through the view (a shorter length marks it stale)
        return this.#catchUp();
      }
      for (let i = this.#folded; i < history.length; i++) {
        this.#foldEntry(history[i], i);
        this.#folded = i + 1;
      }
      if (adopted !== null) this.#adopted = history.slice();
      this.#stale = false;
      this.#outside = given !== null || adopted !== null || (this.#foreign !== null && this.#foreign.size !== 0);
    }

    // The record behind a history entry: this engine's own (possibly through its view), or
    // null for an entry given from outside.
    #ownRecord(entry) {
      const viewed = RECORD_OF.get(entry);
      if (viewed !== undefined) return viewed.engine === this ? viewed.record : null;
      if (this.#adopted !== null || entry === null || typeof entry !== 'object') return null;
      return this.#given !== null && this.#given.has(entry) ? null : entry;
    }

    // Folds history entry `i`: a record of this engine's as it is (its fields were checked
    // when they were written), anything else checked by the core first.
    #foldEntry(entry, i) {
      let record = this.#ownRecord(entry);
      if (record === null) {
        const plain = readRecord(entry);
        unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(plain) + '],' + i + ',' + this.#totals() + ']'));
        // No timestamp given: the clock's when first seen (in copies; the object is the caller's).
        record = storedRecord(plain, this.#foreign?.get(entry)?.record.timestamp ?? Date.now());
        (this.#foreign ??= new Map()).set(entry, { values: recordValues(plain), record });
      }
      if (!this.#tryFold(record)) {
        unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(copyRecord(record)) + '],' + i + ',' + this.#totals() + ']'));
        throw new Error('earlyexit: internal error: the core refused a record it had accepted');
      }
    }

    // The record to read for history entry `i` (after #catchUp): its fields as checked.
    #recordAt(i) {
      const entry = this.#history[i];
      return this.#ownRecord(entry) ?? this.#foreign.get(entry).record;
    }

    // A view of one of this engine's records: writes are checked at the write and fold the
    // history again; a record no longer in the history is the caller's alone, as in the seed.
    #viewOf(record) {
      const views = (this.#views ??= new WeakMap());
      let view = views.get(record);
      if (view === undefined) {
        if (typeof record.timestamp === 'number') record.timestamp = new Date(record.timestamp).toISOString();
        const engine = this;
        const write = (key, value, present) => {
          if (typeof key === 'symbol') return present ? Reflect.set(record, key, value) : Reflect.deleteProperty(record, key);
          const at = engine.#history.indexOf(engine.#adopted === null ? record : view);
          if (at >= 0) {
            const candidate = { ...record };
            if (present) candidate[key] = value;
            else delete candidate[key];
            unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(candidate) + '],' + at + ',null]'));
            engine.#changed(true);
          }
          if (present) record[key] = value;
          else delete record[key];
          return true;
        };
        view = new Proxy(record, {
          set: (target, key, value) => write(key, value, true),
          deleteProperty: (target, key) => write(key, undefined, false),
          defineProperty: (target, key, descriptor) => write(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, true),
        });
        views.set(record, view);
        RECORD_OF.set(view, { engine: this, record });
      }
      return view;
    }

    // Notes a write from outside; `whole`: not an append, so fold everything again.
    #changed(whole) {
      if (!this.#outside) {
        this.#folded = this.#history.length; // up to now, the state held every entry
        this.#outside = true;
      }
      if (whole) this.#stale = true;
    }

    // The seed's `iterationHistory`, live: the history array behind a Proxy that sees writes.
    #historyProxy() {
      const target = this.#history;
      if (this.#adopted !== null) return target; // the caller's own array, as in the seed
      let view = this.#historyView;
      if (view !== null && HISTORY_OF.get(view) === target) return view;
      const engine = this;
      const live = () => engine.#history === target; // after reset() it is the caller's alone
      const shown = (value) => (value !== null && typeof value === 'object' && live() ? engine.#shown(value) : value);
      const written = (key, value) => {
        if (!live()) return value;
        const index = arrayIndex(key);
        const folded = engine.#outside ? engine.#folded : target.length; // entries the state holds
        if (key === 'length') engine.#changed(!(value >= folded)); // shorter: not an append
        else if (index >= 0) engine.#changed(index < folded);
        else return value;
        // This engine's own record (through its view) goes back in as itself.
        const viewed = RECORD_OF.get(value);
        if (viewed !== undefined && viewed.engine === engine) return viewed.record;
        if (value !== null && typeof value === 'object') (engine.#given ??= new WeakSet()).add(value);
        return value;
      };
      view = new Proxy(target, {
        get: (t, key) => shown(t[key]),
        getOwnPropertyDescriptor: (t, key) => {
          const descriptor = Reflect.getOwnPropertyDescriptor(t, key);
          if (descriptor !== undefined && 'value' in descriptor) descriptor.value = shown(descriptor.value);
          return descriptor;
        },
        set: (t, key, value) => Reflect.set(t, key, written(key, value)),
        defineProperty: (t, key, descriptor) =>
          Reflect.defineProperty(t, key, 'value' in descriptor ? { ...descriptor, value: written(key, descriptor.value) } : (written(key, undefined), descriptor)),
        deleteProperty: (t, key) => {
          if (live() && arrayIndex(key) >= 0) engine.#changed(true);
          return Reflect.deleteProperty(t, key);
        },
      });
      HISTORY_OF.set(view, target);
      this.#historyView = view;
      return view;
    }

    // How a history entry is shown: this engine's records through their views.
    #shown(entry) {
      if (RECORD_OF.has(entry) || (this.#given !== null && this.#given.has(entry))) return entry;
      return this.#viewOf(entry);
    }

    // The seed's `config`, live: its writes are checked by the core at the write.
    #configProxy() {
      if (this.#configView !== null) return this.#configView;
      const target = { ...this.#config.value };
      const engine = this;
      const write = (key, value, apply) => {
        if (engine.#configTarget !== target || typeof key === 'symbol') return apply();
        engine.#writeConfig(key, value);
        return true;
      };
      this.#configTarget = target;
      this.#configView = new Proxy(target, {
        set: (t, key, value) => write(key, value, () => Reflect.set(t, key, value)),
        deleteProperty: (t, key) => write(key, undefined, () => Reflect.deleteProperty(t, key)),
        defineProperty: (t, key, descriptor) =>
          write(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, () => Reflect.defineProperty(t, key, descriptor)),
      });
      return this.#configView;
    }

    // One config key written from outside: checked over the current config by the core
    // (undefined or a deleted key is refused: the seed would read undefined).
    #writeConfig(key, value) {
      if (this.#config === null) throw freedError();
      const answer = unwrap(native.exec(OP.ES_CONFIG_CHECK, '[' + enc(this.#config.value) + ',' + encEntry(key, value) + ',"config"]'));
      this.#config = configFor(answer[0]);
      const given = this.#configGiven;
      if (given !== null) {
        // The object assigned to config is the config, as in the seed: it takes the write too.
        given.object[key] = value;
        Object.assign(given, entriesOf(given.object));
      }
      this.#refreshConfigView();
      if (decidedBy === this) decidedBy = null;
      this.#changed(true);
    }

    // The config view shows the config as it now is.
    #refreshConfigView() {
      const target = this.#configTarget;
      if (target === null) return;
      for (const key of Object.keys(target)) delete target[key];
      Object.assign(target, this.#config.value);
    }

    // The iteration argument is accepted and ignored, as in the seed.
    shouldStop(iteration) {
      return this.#decide();
    }

    #decide() {
      if (this.#outside) this.#catchUp();
      // The seed's shouldStop calls its check methods, which a subclass may override.
      const overridden = (this.checkHighConfidence === SEED_CHECKS.highConfidence ? 0 : CHECK_HIGH_CONFIDENCE) |
        (this.checkQualityPlateau === SEED_CHECKS.qualityPlateau ? 0 : CHECK_QUALITY_PLATEAU) |
        (this.checkDiminishingReturns === SEED_CHECKS.diminishingReturns ? 0 : CHECK_DIMINISHING_RETURNS);
      if (overridden !== 0) return this.#decideOverridden(overridden);
      let s = this.#load();
      let code;
      if (decidedBy === this) {
        code = s[OUT_CODE]; // decided by the last fold, over the same state
      } else {
        s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
        code = native.fastDecide();
        decidedBy = this;
      }
      let report = null;
      if (code === CODE_NEED_SOURCE) {
        // The core decided that the source must be asked, exactly when the seed asks it
        // (and it is asked again on every call, so this decision is not kept).
        const answer = this.#source.detectDiminishingReturns();
        report = readReport(answer);
        code = this.#decideWith(report, 0, answer);
        decidedBy = null;
      }
      return this.#decision(code, report);
    }

    // The seed's order with overridden check methods called in their places: the core hands
    // each overridden check back (CODE_DELEGATE) with where to resume; an answer that stops is
    // the decision, as the seed returns it.
    #decideOverridden(overridden) {
      let resume = 0;
      for (;;) {
        if (this.#outside) this.#catchUp(); // an override may have written to the history
        const delegate = overridden + DELEGATE_RESUME * resume;
        let s = this.#load();
        s[IN_SOURCE] = this.#source === null ? SOURCE_NONE : SOURCE_ATTACHED;
        s[IN_DELEGATE] = delegate;
        decidedBy = null;
        let code = native.fastDecide();
        s = view();
        s[IN_DELEGATE] = DELEGATE_NONE; // never left set while other code runs (a fold decides too)
        if (code === CODE_DELEGATE) {
          const check = s[OUT_DETAIL];
          resume = s[OUT_DETAIL + 1];
          const history = this.iterationHistory;
          const answer = check === DELEGATED_HIGH_CONFIDENCE ? this.checkHighConfidence(history[history.length - 1])
            : check === DELEGATED_QUALITY_PLATEAU ? this.checkQualityPlateau() : this.checkDiminishingReturns();
          if (answer.stop) {
            this.#reason = answer.reason;
            this.#details = answer.details;
            return answer;
          }
          continue;
        }
        let report = null;
        if (code === CODE_NEED_SOURCE) {
          const answer = this.#source.detectDiminishingReturns();
          report = readReport(answer);
          code = this.#decideWith(report, delegate, answer);
        }
        view()[IN_DELEGATE] = delegate; // a reason text is made again over the same slots
        try {
          return this.#decision(code, report);
        } finally {
          view()[IN_DELEGATE] = DELEGATE_NONE;
          decidedBy = null;
        }
      }
    }

    // The decision object for the code the core answered (its numbers in the output slots);
    // `answer`: a check method's answer (no extras, and the stopping reason is not set).
    #decision(code, report, answer = false) {
      const s = view();
      const confidence = s[OUT_CONFIDENCE];
      const config = this.#config;
      let stop = true;
      let reason;
      let details;
      switch (code) {
        case CODE_NO_ITERATIONS:
          stop = false;
          reason = REASON_NO_ITERATIONS;
          break;
        case CODE_CONTINUE:
          stop = false;
          reason = REASON_CONTINUE;
          break;
        case CODE_WARM_UP:
        case CODE_GO_ON:
          stop = false;
          reason = fetchReason();
          break;
        case CODE_HIGH_CONFIDENCE: {
          const status = s[OUT_DETAIL + 2];
          details = status === STATUS_ABSENT
            ? { confidence: s[OUT_DETAIL], quality_score: s[OUT_DETAIL + 1] }
            : { confidence: s[OUT_DETAIL], quality_score: s[OUT_DETAIL + 1], verification_status: STATUSES[status] };
          reason = cached(config.highConfidence, details.confidence, fetchReason);
          break;
        }
        case CODE_PLATEAU: {
          details = plateauDetails(s);
          reason = config.plateau === null ? (config.plateau = fetchReason()) : config.plateau;
          break;
        }
        case CODE_DIMINISHING: {
          // The source's own values, as the seed copies them (validated by the core).
          const given = report.iteration;
          details = given === undefined
            ? { analytics_reason: report.reason }
            : { detected_at_iteration: given, analytics_reason: report.reason };
          reason = cached(drReasons, report.reason, () => native.fastDiminishingReason(report.reason));
          break;
        }
        case CODE_MAX_ITERATIONS:
          details = { iterations: s[OUT_DETAIL], max_iterations: s[OUT_DETAIL + 1] };
          reason = cached(config.maxIterations, details.iterations, fetchReason);
          break;
        case CODE_BUDGET:
          details = { budget: BUDGETS[s[OUT_DETAIL]], limit: s[OUT_DETAIL + 1], observed: s[OUT_DETAIL + 2], records_without_value: s[OUT_DETAIL + 3] };
          reason = fetchReason();
          break;
        case CODE_REGRESSION:
          details = { best_iteration: s[OUT_DETAIL], best_quality_score: s[OUT_DETAIL + 1], tolerance: s[OUT_DETAIL + 2], patience: s[OUT_DETAIL + 3] };
          reason = fetchReason();
          break;
        case CODE_NO_IMPROVEMENT:
          details = {
            best_iteration: s[OUT_DETAIL],
            best_quality_score: s[OUT_DETAIL + 1],
            iterations_without_improvement: s[OUT_DETAIL + 2],
            patience: s[OUT_DETAIL + 3],
          };
          reason = fetchReason();
          break;
        default:
          throw new Error('earlyexit: internal error: unknown decision code ' + code);
      }
      const trigger = CODE_TRIGGER[code];
      if (answer) return details === undefined ? { stop, reason, confidence, trigger } : { stop, reason, confidence, trigger, details };
      const best = s[OUT_BEST_PRESENT] !== 0;
      const decision = details === undefined
        ? { stop, reason, confidence, trigger, best_iteration: best ? s[OUT_BEST_PRESENT + 1] : null, best_quality_score: best ? s[OUT_BEST_PRESENT + 2] : null }
        : { stop, reason, confidence, trigger, details, best_iteration: best ? s[OUT_BEST_PRESENT + 1] : null, best_quality_score: best ? s[OUT_BEST_PRESENT + 2] : null };
      const budgetCount = s[OUT_BUDGET_COUNT];
      if (budgetCount !== 0) {
        const budgets = new Array(budgetCount);
        for (let i = 0; i < budgetCount; i++) {
          const j = OUT_BUDGETS + BUDGET_STATUS_SLOTS * i;
          budgets[i] = { budget: BUDGETS[s[j]], limit: s[j + 1], observed: s[j + 2], records_without_value: s[j + 3], exhausted: s[j + 4] !== 0 };
        }
        decision.budgets = budgets;
      }
      if (stop) {
        this.#reason = reason;
        this.#details = details;
      }
      return decision;
    }

    // Decides again with the source's report (validated by the core; anything the fast
    // path does not take goes to the JSON path for the typed error); `delegate`: IN_DELEGATE.
    // `report` is what readReport() made of the source's `answer`.
    #decideWith(report, delegate, answer) {
      let fast = typeof report === 'object' && report !== null && !Array.isArray(report);
      const { detected, reason, iteration: given } = fast ? report : {};
      const kind = given === undefined ? REPORT_ITERATION_ABSENT : given === null ? REPORT_ITERATION_NULL : REPORT_ITERATION_NUMBER;
      fast = fast && typeof detected === 'boolean' && typeof reason === 'string' && (kind !== REPORT_ITERATION_NUMBER || typeof given === 'number');
      if (fast) {
        // The source may have used another engine meanwhile.
        const s = this.#load();
        s[IN_SOURCE] = SOURCE_REPORT;
        s[IN_DETECTED] = detected ? 1 : 0;
        s[IN_REPORT_ITERATION_KIND] = kind;
        s[IN_REPORT_ITERATION] = kind === REPORT_ITERATION_NUMBER ? given : 0;
        s[IN_DELEGATE] = delegate;
        decidedBy = null;
        const code = native.fastDecide();
        view()[IN_DELEGATE] = DELEGATE_NONE;
        if (code !== CODE_INVALID_REPORT) return code;
      }
      unwrap(native.exec(OP.ES_REPORT_CHECK, args1(enc(report, AS_REPORT, answer))));
      throw new Error('earlyexit: internal error: the core accepted a report its fast check refused');
    }

    getStoppingReason() {
      if (this.#config === null) throw freedError();
      return this.#reason;
    }

    getStoppingDetails() {
      if (this.#config === null) throw freedError();
      return this.#details === null || this.#details === undefined ? null : copyData(this.#details);
    }

    configure(options) {
      const config = this.#config;
      if (config === null) throw freedError();
      if (this.#outside) this.#catchUp(); // a bad record from outside throws before any change
      const key = enc(this.#config.value);
      const answer = unwrap(native.exec(OP.ES_CONFIG_CHECK, '[' + key + ',' + encConfig(options, AS_OPTIONS) + ',"options"]'));
      this.#config = configFor(answer[0]);
      // A new config object, as the seed's configure makes: an object assigned to `config`
      // before, and the old view of it, are the caller's alone from now on.
      this.#configGiven = null;
      this.#configView = null;
      this.#configTarget = null;
      // The window's length, the quality bar and the regression tolerance shape the
      // state, so it is folded again from the history, as the Rust engine does.
      this.#changed(true);
      this.#catchUp();
    }

    getConfig() {
      if (this.#config === null) throw freedError();
      if (this.#configGiven !== null) this.#catchUp();
      return { ...this.#config.value };
    }

    getIterationHistory() {
      if (this.#config === null) throw freedError();
      if (this.#outside) this.#catchUp();
      const history = this.#history;
      const copies = new Array(history.length);
      for (let i = 0; i < history.length; i++) copies[i] = copyRecord(this.#outside ? this.#recordAt(i) : history[i]);
      return copies;
    }

    reset() {
      if (this.#config === null) throw freedError();
      this.#unload();
      this.#history = []; // a new array, as in the seed: the old one is the caller's alone
      this.#given = null;
      this.#foreign = null;
      this.#adopted = null;
      this.#stale = false;
      this.#outside = this.#configGiven !== null;
      this.#reason = null;
      this.#details = null;
    }

    generateSummary() {
      if (this.#config === null) throw freedError();
      if (this.#outside) this.#catchUp();
      const history = this.#history;
      if (history.length === 0) return { ...EMPTY_SUMMARY };
      const last = this.#outside ? this.#recordAt(history.length - 1) : history[history.length - 1];
      // As the seed: through shouldStop, which a subclass may override.
      const decision = this.shouldStop(last.iteration_number);
      const summary = {
        total_iterations: this.#history.length,
        stopped_early: decision.stop,
        stopping_trigger: decision.trigger,
        stopping_reason: decision.reason,
        stopping_confidence: decision.confidence,
        final_quality: last.quality_score,
        final_confidence: last.confidence,
        final_verification: last.verification_status,
        config: { ...this.#config.value },
      };
      if (decision.details !== undefined) summary.details = decision.details;
      return summary;
    }

    /** The portable snapshot (the same JSON document in Python and wasm). */
    toJSON() {
      const history = this.getIterationHistory();
      return {
        version: SNAPSHOT.version,
        engine: SNAPSHOT.engine,
        config: { ...this.#config.value },
        history,
        stoppingReason: this.#reason,
        stoppingDetails: this.#details === null || this.#details === undefined ? null : copyData(this.#details),
      };
    }

    /** Restores a snapshot (object or JSON text); the analytics source is not part of it. */
    static fromJSON(snapshot, iterationAnalytics = null) {
      const checked = unwrap(native.exec(OP.ES_SNAPSHOT_CHECK, args1(enc(snapshot, AS_SNAPSHOT))));
      const restored = new EarlyStopping(RESTORE);
      restored.#config = configFor(checked.config);
      restored.#source = sourceOf(iterationAnalytics);
      for (const record of checked.history) restored.#fold(record);
      restored.#history = checked.history;
      restored.#reason = checked.stoppingReason;
      restored.#details = checked.stoppingDetails;
      return restored;
    }

    /** Nothing native to release any more; the object cannot be used afterwards. */
    free() {
      this.#unload();
      this.#config = null;
      this.#history = [];
      this.#given = null;
      this.#foreign = null;
      this.#adopted = null;
      this.#configGiven = null;
      this.#outside = false;
      this.#stale = false;
    }

    // ----------------------------------------------------------------------
    // The seed's check methods: public, and a subclass may override them (shouldStop then
    // calls the override in its place in the order, as the seed's shouldStop does).

    /** The seed's `checkHighConfidence(iteration)` on a history record, answered whole. */
    checkHighConfidence(iteration) {
      if (this.#config === null) throw freedError();
      // This engine's records were checked when written; anything else is checked by the core.
      const viewed = RECORD_OF.get(iteration);
      let record;
      if (viewed !== undefined && viewed.engine === this) record = viewed.record;
      else {
        record = readRecord(iteration);
        unwrap(native.exec(OP.ES_HISTORY_CHECK, '[[' + enc(record) + '],"iteration",null]'));
      }
      const s = this.#load();
      s[IN_QUALITY] = record.quality_score;
      s[IN_CONFIDENCE] = record.confidence;
      s[IN_STATUS] = STATUSES.indexOf(record.verification_status);
      return this.#answer(HIGH_CONFIDENCE_ANSWER, null);
    }

    /** The seed's `checkQualityPlateau()` over the history, answered whole. */
    checkQualityPlateau() {
      if (this.#config === null) throw freedError();
      if (this.#outside) this.#catchUp();
      this.#load();
      return this.#answer(PLATEAU_ANSWER, null);
    }

    /** The seed's `checkDiminishingReturns()`: asks the source, answered whole. */
    checkDiminishingReturns() {
      if (this.#config === null) throw freedError();
      const source = this.#source;
      if (source === null) {
        this.#load()[IN_SOURCE] = SOURCE_NONE;
        return this.#answer(DIMINISHING_RETURNS_ANSWER, null);
      }
      const answer = source.detectDiminishingReturns();
      return this.#answer(DIMINISHING_RETURNS_ANSWER, readReport(answer), answer);
    }

    // Asks the core for a check method's answer over the state and the input slots.
    #answer(mode, report, answer) {
      decidedBy = null;
      try {
        const code = report === null ? ((view()[IN_DELEGATE] = mode), native.fastDecide()) : this.#decideWith(report, mode, answer);
        view()[IN_DELEGATE] = mode; // a reason text is made again over the same slots
        return this.#decision(code, report, true);
      } finally {
        view()[IN_DELEGATE] = DELEGATE_NONE;
        decidedBy = null;
      }
    }

    // ----------------------------------------------------------------------
    // The seed's public fields. Writes do what they do in the seed, checked by the core.

    /** The config, live: `stopper.config.x = v` is checked by the core and takes effect. */
    get config() {
      if (this.#config === null) throw freedError();
      if (this.#configGiven !== null) this.#catchUp();
      return this.#configProxy();
    }

    /** A new config, merged over the defaults as the constructor's (later writes to it count too). */
    set config(value) {
      if (this.#config === null) throw freedError();
      this.#config = configFor(value);
      this.#configGiven = value !== null && typeof value === 'object' ? { object: value, ...entriesOf(value) } : null;
      this.#configView = null;
      this.#configTarget = null;
      if (decidedBy === this) decidedBy = null;
      this.#changed(true);
    }

    /** The history array, live: entries pushed or changed are checked when next used. */
    get iterationHistory() {
      if (this.#config === null) throw freedError();
      return this.#historyProxy();
    }

    /** Another history: the array itself becomes the engine's, as in the seed. */
    set iterationHistory(value) {
      if (this.#config === null) throw freedError();
      const array = HISTORY_OF.get(value) ?? value;
      if (array === this.#history) return;
      if (!Array.isArray(array)) unwrap(native.exec(OP.ES_HISTORY_CHECK, '[' + enc(value) + ',0,null]'));
      this.#history = array === value ? value : [...value]; // another engine's view: its entries
      this.#adopted = [];
      this.#given = null;
      this.#foreign = null;
      this.#historyView = null;
      this.#changed(true);
      this.#folded = 0;
    }

    get iterationAnalytics() {
      return this.#source;
    }

    /** Another diminishing-returns source (null: none); checked as the constructor's. */
    set iterationAnalytics(value) {
      if (this.#config === null) throw freedError();
      this.#source = sourceOf(value);
      if (decidedBy === this) decidedBy = null;
    }

    get stoppingReason() {
      if (this.#config === null) throw freedError();
      return this.#reason;
    }

    set stoppingReason(value) {
      if (this.#config === null) throw freedError();
      this.#reason = value;
    }

    get stoppingDetails() {
      if (this.#config === null) throw freedError();
      return this.#details;
    }

    set stoppingDetails(value) {
      if (this.#config === null) throw freedError();
      this.#details = value;
    }
  }

  // What shouldStop compares against to see that a check method is overridden.
  const SEED_CHECKS = {
    highConfidence: EarlyStopping.prototype.checkHighConfidence,
    qualityPlateau: EarlyStopping.prototype.checkQualityPlateau,
    diminishingReturns: EarlyStopping.prototype.checkDiminishingReturns,
  };

  // ------------------------------------------------------------------------
  // The built-in diminishing-returns source: a drop-in for aiwg's iteration-analytics.mjs
  //
  // Two constructor forms: upstream's `new IterationAnalytics(loopId, taskDescription, config)`,
  // which saves its summary after every record as upstream does (unless `persist: false`), and
  // `new IterationAnalytics(config)`, which never writes by itself. Rules, strings, the chart and
  // the report come from the core; this layer reads the clock (where upstream does) and writes
  // the files. The summary file is upstream's `JSON.stringify(summary, null, 2)`, byte for byte;
  // an autosave appends the new record instead of rewriting the whole history (see #saveSummary).
  //
  // upstream's `iterations` and `config` are plain data its users write to
  // (`analytics.iterations.push(r)`, `analytics.iterations[2].quality_score = 80`,
  // `analytics.config.qualityThreshold = 60`), and upstream honours the writes. Here, as with
  // EarlyStopping's fields, they are live views (Proxies) over this layer's copy of the history
  // (the records as the caller sees them: the objects the core answered, and objects put in from
  // outside): a config write and a write to a field of one of this object's records are checked
  // by the core at the write (a typed error, nothing written); anything else (an object put into
  // the history, an array assigned to `iterations`, an element of a `reflections` array) is
  // checked when the object next uses its records, when the core takes the history whole
  // (O(records)). Until then a bad entry throws the core's typed error at every use and nothing
  // changes. The normal loop (recordIteration, detectDiminishingReturns) pays one flag test.

  const clockNow = () => JSON.stringify(new Date().toISOString());

  // Where there is no file system (browsers): a plain Error, as a loading error is.
  function noFileSystem(what) {
    const error = new Error(`earlyexit: ${what} needs a file system (Node); in a browser, saveAnalytics(), saveReport() and export() return the text`);
    error.code = 'no_file_system';
    error.field = what;
    return error;
  }

  // The saved summary from its pieces (IA_SAVE), as JSON.stringify(summary, null, 2) writes it:
  // the head ends with `"iterations": [`, each record follows its separator, the tail follows
  // the records' closing bracket.
  const summaryHead = (head) => JSON.stringify(head, null, 2).slice(0, -2) + ',\n  "iterations": [';
  const summaryRecord = (record) => '\n    ' + JSON.stringify(record, null, 2).replace(/\n/g, '\n    ');
  const summaryClose = (total) => (total === 0 ? ']' : '\n  ]');
  const summaryTail = (tail) => ',' + JSON.stringify(tail, null, 2).slice(1);
  // IA_SAVE's `from` that asks for no records (this layer writes its own copies).
  const NO_RECORDS = '9007199254740991';

  // A snapshot with one of upstream's fields assigned (IA_TEXT_ASSIGN: the core checks the
  // value; a bad one throws its typed error), as JSON text for IA_FROM_JSON.
  function assigned(snapshot, field, valueText) {
    const answer = native.exec(OP.IA_TEXT_ASSIGN, '[' + snapshot + ',' + JSON.stringify(field) + ',' + valueText + ']');
    if (answer.charCodeAt(0) === ANSWER_ERROR) throw makeError(answer);
    return answer.charCodeAt(0) === ANSWER_TAGGED ? JSON.stringify(unwrap(answer)) : answer;
  }

  // An object's wire text with `key` set to `value`, `undefined` kept (a config write the core
  // must see: upstream would read `undefined` there).
  function encWith(object, key, value, present) {
    const rest = { ...object };
    delete rest[key];
    const text = enc(rest);
    if (!present) value = undefined;
    return text.slice(0, -1) + (text.length > 2 ? ',' : '') + encEntry(key, value).slice(1);
  }

  // A record view answers these (and only these) with its record and its IterationAnalytics:
  // no lookup table on the record path (a WeakMap entry per record costs microseconds in GC).
  const VIEW_TARGET = Symbol('earlyexit.analyticsRecord');
  const VIEW_OWNER = Symbol('earlyexit.analyticsOwner');
  // What a history entry holds as data: a record view's record, anything else itself.
  const dataOf = (entry) => (entry !== null && typeof entry === 'object' ? entry[VIEW_TARGET] ?? entry : entry);
  // `iterations` views -> their array; `reflections` views -> their array.
  const ITERATIONS_OF = new WeakMap();
  const REFLECTIONS_OF = new WeakMap();

  class IterationAnalytics {
    #native;
    #persist = false;
    // upstream's scalar public fields, as the core last answered them: {loopId,
    // taskDescription, startTime, endTime, storagePath}. They change only by assignment
    // (which replaces the native state from a snapshot) and endTime by the first summary.
    #fields = null;
    // What the last save to `path` wrote: enough to append the next record in place.
    #file = null;
    // upstream's `iterations`: the records as the caller sees them (the core holds the same
    // values): this object's records, each behind its view (a Proxy over a plain object), and
    // objects put in from outside, kept as they are, as upstream keeps them.
    #records = [];
    #adopted = null; // an array assigned to `iterations` (#records is it): its entries as last checked
    #borrowed = null; // WeakSet: this object's records whose `reflections` was assigned an array
    #normalized = null; // WeakSet: recorded records given upstream's full key set (at their first write)
    #watched = null; // Map: what the caller can change unseen (its objects, borrowed arrays' records) -> wire text as checked
    #outside = false; // something may have changed from outside: catch up before the next use
    #stale = false; // the core does not hold #records: it takes them whole at the next use
    #reflectionViews = null; // WeakMap: a reflections array of this object's records -> its view
    #recordedHandler = null; // the record views' handlers: recordIteration's records, and loaded ones
    #loadedHandler = null;
    #iterationsView = null;
    #configView = null;
    #configTarget = null; // what the config view shows
    #configGiven = null; // an object assigned to config: { object, keys, values }

    /**
     * `new IterationAnalytics(loopId, taskDescription, config)` (upstream's form; saves after
     * every record unless `config.persist` is false) or `new IterationAnalytics(config)`.
     */
    constructor(loopIdOrConfig = undefined, taskDescription = undefined, config = undefined) {
      if (loopIdOrConfig === RESTORE) {
        this.#native = FREED;
        return;
      }
      const upstream = typeof loopIdOrConfig === 'string' || arguments.length >= 2;
      const args = upstream
        ? '[true,' + enc(loopIdOrConfig) + ',' + enc(taskDescription) + ',' + encConfig(config)
        : '[false,null,null,' + encConfig(loopIdOrConfig);
      const engine = newNative();
      const answer = engine.call(OP.IA_NEW, args + ',' + clockNow() + ',' + (host !== null) + ']');
      if (answer.charCodeAt(0) === ANSWER_ERROR) {
        release(engine);
        throw makeError(answer);
      }
      this.#native = engine;
      this.#adopt(unwrap(answer));
    }

    // After the native object is filled: read its fields once; upstream's form (persist)
    // creates its folder at once, as upstream's constructor does.
    #adopt(persist) {
      this.#readFields();
      this.#persist = persist;
      if (persist) this.ensureStorageDir();
    }

    #readFields() {
      const snapshot = unwrap(this.#snapshot());
      this.#fields = {
        loopId: snapshot.loopId, taskDescription: snapshot.taskDescription, startTime: snapshot.startTime,
        endTime: snapshot.endTime, storagePath: snapshot.config.storagePath,
      };
    }

    // Replaces the native state with a snapshot the core checked (an assignment, a catch-up).
    #replaceNative(snapshot) {
      const engine = filled(OP.IA_FROM_JSON, args1(snapshot));
      release(this.#native);
      this.#native = engine;
      this.#readFields();
    }

    /** Creates the storage folder (what upstream's constructor does). */
    ensureStorageDir() {
      if (host === null) throw noFileSystem('ensureStorageDir');
      host.fs.mkdirSync(this.#fields.storagePath, { recursive: true });
    }

    /** Records one iteration's metrics; saves the summary when this object persists. */
    recordIteration(metrics) {
      if (this.#outside) this.#catchUp();
      const record = unwrap(this.#native.call(OP.IA_RECORD, args2(enc(metrics, AS_RESULT), clockNow())));
      const view = new Proxy(record, (this.#recordedHandler ??= this.#recordHandler(true)));
      this.#records.push(view);
      if (this.#adopted !== null) this.#adopted.push(view);
      if (this.#persist) this.saveAnalytics();
      return view; // the stored record itself, as upstream returns it
    }

    detectDiminishingReturns() {
      if (this.#outside) this.#catchUp();
      return unwrap(this.#native.call(OP.IA_DETECT, '[]'));
    }

    getTrajectory() {
      if (this.#outside) this.#catchUp();
      return unwrap(this.#native.call(OP.IA_TRAJECTORY, '[]'));
    }

    /** The best record (upstream's stored object, as `iterations` shows it), or null. */
    getOptimalIteration(verifiedOnly = true) {
      if (this.#outside) this.#catchUp();
      const index = unwrap(this.#native.call(OP.IA_OPTIMAL, args1(enc(verifiedOnly))));
      return index === null ? null : this.#records[index];
    }

    selectBestIteration() {
      if (this.#outside) this.#catchUp();
      const [index, reason] = unwrap(this.#native.call(OP.IA_SELECT, '[]'));
      return { selected: index === null ? null : this.#records[index], reason };
    }

    /**
     * upstream's summary; the first call sets `endTime` (to now, unless it was given). Its
     * `iterations` is `this.iterations` itself, as upstream's is.
     */
    generateSummary() {
      if (this.#outside) this.#catchUp();
      const [head, , tail] = unwrap(this.#native.call(OP.IA_SAVE, args2(clockNow(), NO_RECORDS)));
      this.#fields.endTime = head.end_time;
      head.iterations = this.#iterationsProxy();
      return Object.assign(head, tail); // upstream's keys in upstream's order
    }

    // The snapshot, for the stateless ops (it holds everything the chart and report read).
    #snapshot() {
      return this.#native.call(OP.IA_TO_JSON, '[]');
    }

    generateQualityChart() {
      if (this.#outside) this.#catchUp();
      return unwrap(native.exec(OP.IA_TEXT_CHART, args1(this.#snapshot())));
    }

    /** The markdown report; `options.generatedAt` fixes its last line's time (default: now). */
    generateReport(options = undefined) {
      if (this.#outside) this.#catchUp();
      const now = clockNow();
      // The summary's end time first, as upstream's report sets it.
      this.#fields.endTime = unwrap(this.#native.call(OP.IA_SETTLE, args1(now)));
      return unwrap(native.exec(OP.IA_TEXT_REPORT, '[' + this.#snapshot() + ',' + encConfig(options) + ',' + now + ']'));
    }

    #target(filename, kind) {
      const fields = this.#fields;
      const target = unwrap(native.exec(OP.IA_TEXT_FILE,
        '[' + enc(fields.loopId) + ',' + enc(fields.storagePath) + ',' + enc(filename) + ',' + kind + ']'));
      if (target.path !== undefined) return target.path;
      // upstream's default file: its folder exists once the constructor ran (upstream creates
      // it there; an object that does not save by itself creates it on its first save).
      host.fs.mkdirSync(target.dir, { recursive: true });
      return host.path.join(target.dir, target.name);
    }

    /** Saves the summary (JSON) and returns its path; in a browser, returns the JSON text. */
    saveAnalytics(filename = null) {
      if (this.#outside) this.#catchUp();
      if (host === null) {
        if (filename !== null && filename !== undefined) throw noFileSystem('saveAnalytics(filename)');
        const [head, , tail, total] = unwrap(this.#native.call(OP.IA_SAVE, args2(clockNow(), NO_RECORDS)));
        this.#fields.endTime = head.end_time;
        return summaryHead(head) + this.#records.map((entry) => summaryRecord(dataOf(entry))).join(',') + summaryClose(total) + summaryTail(tail);
      }
      const path = this.#target(filename, '"json"');
      this.#saveSummary(path);
      return path;
    }

    // Writes the summary to `path`. When this object wrote `path` last and the file is as it
    // left it (same size and modification time) with the same head, only what changed is
    // written: the file is cut after its last record and the new records, the closing bracket
    // and the new tail follow. The bytes are those of a full rewrite; the work per record is
    // the record's, not the history's. The records are written from this layer's copy (the
    // objects upstream's `iterations` holds, keys in their own order, as upstream writes them).
    #saveSummary(path) {
      const { fs } = host;
      const last = this.#file !== null && this.#file.path === path ? this.#file : null;
      const [head, , tail, total] = unwrap(this.#native.call(OP.IA_SAVE, args2(clockNow(), NO_RECORDS)));
      this.#fields.endTime = head.end_time;
      const records = this.#records;
      const headText = summaryHead(head);
      if (last !== null && last.head === headText && total >= last.count) {
        let fd = -1;
        try {
          fd = fs.openSync(path, 'r+');
          const stat = fs.fstatSync(fd);
          if (stat.size === last.size && stat.mtimeMs === last.mtimeMs) {
            let text = '';
            let end = last.end;
            for (let i = last.count; i < total; i++) {
              const piece = (i > 0 ? ',' : '') + summaryRecord(dataOf(records[i]));
              text += piece;
              end += host.byteLength(piece);
            }
            text += summaryClose(total) + summaryTail(tail);
            fs.ftruncateSync(fd, last.end);
            fs.writeSync(fd, text, last.end);
            const after = fs.fstatSync(fd);
            this.#file = { path, head: headText, count: total, end, size: after.size, mtimeMs: after.mtimeMs };
            return;
          }
        } catch (error) {
          if (error.code !== 'ENOENT') throw error; // gone: write it whole
        } finally {
          if (fd !== -1) fs.closeSync(fd);
        }
      }
      let text = headText;
      for (let i = 0; i < total; i++) text += (i > 0 ? ',' : '') + summaryRecord(dataOf(records[i]));
      const end = host.byteLength(text);
      text += summaryClose(total) + summaryTail(tail);
      fs.writeFileSync(path, text);
      const after = fs.statSync(path);
      this.#file = { path, head: headText, count: total, end, size: after.size, mtimeMs: after.mtimeMs };
    }

    /** Saves the markdown report and returns its path; in a browser, returns the text. */
    saveReport(filename = null) {
      if (host === null) {
        if (filename !== null && filename !== undefined) throw noFileSystem('saveReport(filename)');
        return this.generateReport();
      }
      if (this.#outside) this.#catchUp();
      const path = this.#target(filename, '"report"');
      host.fs.writeFileSync(path, this.generateReport());
      return path;
    }

    /** Both files: `{json, markdown}` paths (in a browser, the texts). */
    export() {
      return { json: this.saveAnalytics(), markdown: this.saveReport() };
    }

    /** upstream's load: an analytics object from a saved summary file (Node). */
    static load(filepath, config = undefined) {
      if (host === null) throw noFileSystem('load');
      unwrap(native.exec(OP.IA_TEXT_PATH_CHECK, args1(enc(filepath))));
      if (!host.fs.existsSync(filepath)) {
        const error = new Error(`Analytics file not found: ${filepath}`);
        error.code = 'ENOENT';
        error.path = filepath;
        throw error;
      }
      return IterationAnalytics.#restore(host.fs.readFileSync(filepath, 'utf8'), config, host.path.join(filepath, '..'));
    }

    /** An analytics object from a saved summary (the object or its JSON text), as `load` reads it. */
    static fromSummary(summary, config = undefined) {
      return IterationAnalytics.#restore(summary, config, null);
    }

    static #restore(summary, config, folder) {
      const [snapshot, persist] = unwrap(native.exec(OP.IA_TEXT_FROM_SUMMARY,
        '[' + enc(summary) + ',' + encConfig(config) + ',' + enc(folder) + ',' + (host !== null) + ']'));
      const restored = new IterationAnalytics(RESTORE);
      restored.#native = filled(OP.IA_FROM_JSON, args1(JSON.stringify(snapshot)));
      // The summary's records as it lists them (upstream's load assigns them: their keys keep
      // their order in later saves); the core checked the same values.
      const records = typeof summary === 'string' ? JSON.parse(summary).iterations : copyData(summary.iterations);
      restored.#records = restored.#viewsOf(records);
      // A snapshot does not say whether to save: upstream's load does, unless told otherwise.
      restored.#adopt(persist);
      return restored;
    }

    /** upstream's `formatDuration(ms)`: `1h 2m 3s`, `2m 3s` or `3s`. */
    static formatDuration(ms) {
      return unwrap(native.exec(OP.IA_TEXT_DURATION, args1(enc(ms))));
    }

    getConfig() {
      if (this.#configGiven !== null) this.#catchUp(false);
      return unwrap(this.#native.call(OP.IA_CONFIG, '[]'));
    }

    /** Every record, as plain copies (upstream's key order). */
    getRecords() {
      if (this.#outside) this.#catchUp();
      return unwrap(this.#native.call(OP.IA_RECORDS, '[]'));
    }

    /** Clears the records (a new `iterations` array: the old one is the caller's alone). */
    reset() {
      unwrap(this.#native.call(OP.IA_RESET, '[]'));
      this.#file = null; // the file's records are no longer this object's: the next save writes it whole
      this.#records = [];
      this.#adopted = null;
      this.#watched = null;
      this.#stale = false;
      this.#outside = this.#configGiven !== null;
    }

    toJSON() {
      if (this.#outside) this.#catchUp();
      return unwrap(this.#native.call(OP.IA_TO_JSON, '[]'));
    }

    /** Restores a snapshot (object or JSON text); a restored object never saves by itself. */
    static fromJSON(snapshot) {
      const engine = filled(OP.IA_FROM_JSON, args1(enc(snapshot, AS_SNAPSHOT)));
      const restored = new IterationAnalytics(RESTORE);
      restored.#native = engine;
      restored.#records = restored.#viewsOf(unwrap(engine.call(OP.IA_RECORDS, '[]')));
      restored.#adopt(false);
      return restored;
    }

    free() {
      release(this.#native);
      this.#native = FREED;
      this.#records = [];
      this.#adopted = null;
      this.#watched = null;
      this.#configGiven = null;
      this.#outside = false;
      this.#stale = false;
    }

    // ----------------------------------------------------------------------
    // upstream's public data, live (see the top of this section).

    // Notes a change to the history from outside: the core takes it whole at the next use.
    #changed() {
      this.#stale = true;
      this.#outside = true;
      this.#file = null; // the next save writes the file whole
    }

    // Brings the core up to date with what changed from outside: the object assigned to
    // config, then (`records`) the history. Both are checked by the core on a copy of its
    // state, which replaces it only when both are good: a bad value throws its typed error,
    // changes nothing, and is checked again at the next use.
    #catchUp(records = true) {
      const given = this.#configGiven;
      const configChanged = given !== null && !sameEntries(given.object, given);
      const history = this.#records;
      if (records && !this.#stale) {
        const adopted = this.#adopted;
        if (adopted !== null) {
          if (history.length !== adopted.length) this.#stale = true;
          else for (let i = 0; i < history.length; i++) if (history[i] !== adopted[i]) { this.#stale = true; break; }
        }
        if (!this.#stale && this.#watched !== null) {
          for (const [object, text] of this.#watched) {
            if (enc(dataOf(object)) !== text) {
              this.#stale = true;
              break;
            }
          }
        }
      }
      const stale = records && this.#stale;
      if (configChanged || stale) {
        let snapshot = this.#snapshot();
        if (configChanged) snapshot = assigned(snapshot, 'config', enc(given.object));
        let texts = null;
        if (stale) {
          texts = new Array(history.length);
          for (let i = 0; i < history.length; i++) texts[i] = enc(dataOf(history[i]));
          snapshot = assigned(snapshot, 'iterations', '[' + texts.join(',') + ']');
        }
        this.#replaceNative(snapshot);
        if (configChanged) {
          Object.assign(given, entriesOf(given.object));
          this.#refreshConfigView();
        }
        if (stale) this.#checked(texts);
      }
      if (records) this.#outside = given !== null || this.#adopted !== null || this.#watched !== null;
    }

    // The core holds the history as it now is (each entry's wire text in `texts`): what the
    // caller can change unseen is compared with these texts at every use from now on.
    #checked(texts) {
      const history = this.#records;
      let watched = null;
      for (let i = 0; i < history.length; i++) {
        const own = this.#ownRecord(history[i]);
        if (own === null) (watched ??= new Map()).set(history[i], texts[i]);
        else if (this.#borrowed !== null && this.#borrowed.has(own)) (watched ??= new Map()).set(own, texts[i]);
      }
      this.#watched = watched;
      if (this.#adopted !== null) this.#adopted = history.slice();
      this.#stale = false;
      this.#file = null;
    }

    // The record behind a history entry: this object's own (the entry is its view), or null
    // for an entry given from outside.
    #ownRecord(entry) {
      return entry !== null && typeof entry === 'object' && entry[VIEW_OWNER] === this ? entry[VIEW_TARGET] : null;
    }

    // Views of records a restore read (upstream's load keeps its file's records as they are).
    #viewsOf(records) {
      const handler = (this.#loadedHandler ??= this.#recordHandler(false));
      for (let i = 0; i < records.length; i++) records[i] = new Proxy(records[i], handler);
      return records;
    }

    // The handler of this object's record views (`recorded`: records recordIteration made,
    // whose keys upstream's object literal fixes). A field write is checked by the core at the
    // write (when the record is in the history; one that left it is the caller's alone, as in
    // upstream), and `reflections` is a view whose writes count.
    #recordHandler(recorded) {
      const owner = this;
      const shown = (record, key, value) =>
        key === 'reflections' && Array.isArray(value) && (owner.#borrowed === null || !owner.#borrowed.has(record))
          ? owner.#reflectionsView(value)
          : value;
      return {
        get: (record, key, receiver) => {
          if (typeof key === 'symbol') return key === VIEW_TARGET ? record : key === VIEW_OWNER ? owner : Reflect.get(record, key, receiver);
          return shown(record, key, record[key]);
        },
        getOwnPropertyDescriptor: (record, key) => {
          const descriptor = Reflect.getOwnPropertyDescriptor(record, key);
          if (descriptor !== undefined && 'value' in descriptor) descriptor.value = shown(record, key, descriptor.value);
          return descriptor;
        },
        set: (record, key, value, receiver) => owner.#writeRecord(record, receiver, recorded, key, value, true),
        deleteProperty: (record, key) => owner.#writeRecord(record, null, recorded, key, undefined, false),
        defineProperty: (record, key, descriptor) =>
          owner.#writeRecord(record, null, recorded, key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, true),
      };
    }

    // Where one of this object's records is in the history (-1: not there any more).
    #indexOfRecord(record, view) {
      const history = this.#records;
      if (view !== null) {
        const at = history.indexOf(view);
        if (at >= 0 || view[VIEW_TARGET] === record) return at;
      }
      for (let i = 0; i < history.length; i++) if (this.#ownRecord(history[i]) === record) return i;
      return -1;
    }

    // A field of one of this object's records written: checked by the core as a record at
    // its place in the history (`iterations[i].field`), then written.
    #writeRecord(record, view, recorded, key, value, present) {
      if (typeof key !== 'symbol') {
        const reflections = REFLECTIONS_OF.get(value);
        if (reflections !== undefined) value = reflections; // another record's array: shared, as in upstream
        const at = this.#indexOfRecord(record, view);
        if (at >= 0) {
          const candidate = { ...record };
          if (present) candidate[key] = value;
          else delete candidate[key];
          unwrap(native.exec(OP.IA_TEXT_RECORD_CHECK, '[' + enc(candidate) + ',"iterations[' + at + ']"]'));
          this.#changed();
        }
        if (recorded) this.#normalize(record);
        // An array the caller gave is the caller's too: compared at every use from now on.
        if (key === 'reflections' && present) (this.#borrowed ??= new WeakSet()).add(record);
      }
      if (present) record[key] = value;
      else delete record[key];
      return true;
    }

    // upstream's recordIteration builds its record as an object literal: every field is a key,
    // in that order, an absent one holding `undefined`. Before its first write, a record
    // recordIteration made takes that shape (ANALYTICS_RECORD_FIELDS), so a field written
    // later keeps upstream's place in the saved summary.
    #normalize(record) {
      const done = (this.#normalized ??= new WeakSet());
      if (done.has(record)) return;
      done.add(record);
      const values = { ...record };
      for (const key of Object.keys(record)) delete record[key];
      for (const key of ANALYTICS_RECORD_FIELDS) record[key] = values[key];
    }

    // A view of a `reflections` array of one of this object's records: its writes count
    // (checked at the next use, as array methods pass through states no record may have).
    #reflectionsView(array) {
      const views = (this.#reflectionViews ??= new WeakMap());
      let view = views.get(array);
      if (view === undefined) {
        const owner = this;
        const written = (key) => {
          if (typeof key !== 'symbol') owner.#changed();
        };
        view = new Proxy(array, {
          set: (t, key, value) => (written(key), Reflect.set(t, key, value)),
          deleteProperty: (t, key) => (written(key), Reflect.deleteProperty(t, key)),
          defineProperty: (t, key, descriptor) => (written(key), Reflect.defineProperty(t, key, descriptor)),
        });
        views.set(array, view);
        REFLECTIONS_OF.set(view, array);
      }
      return view;
    }

    // upstream's `iterations`, live: the history array behind a Proxy that sees writes (its
    // entries are what the caller sees: this object's record views, and the caller's objects).
    #iterationsProxy() {
      const target = this.#records;
      if (this.#adopted !== null) return target; // the caller's own array, as in upstream
      let view = this.#iterationsView;
      if (view !== null && ITERATIONS_OF.get(view) === target) return view;
      const owner = this;
      // After reset() the old array is the caller's alone.
      const written = (key) => {
        if (owner.#records === target && (key === 'length' || arrayIndex(key) >= 0)) owner.#changed();
      };
      view = new Proxy(target, {
        set: (t, key, value) => (written(key), Reflect.set(t, key, value)),
        defineProperty: (t, key, descriptor) => (written(key), Reflect.defineProperty(t, key, descriptor)),
        deleteProperty: (t, key) => (written(key), Reflect.deleteProperty(t, key)),
      });
      ITERATIONS_OF.set(view, target);
      this.#iterationsView = view;
      return view;
    }

    // upstream's `config`, live: its writes are checked by the core at the write.
    #configProxy() {
      if (this.#configView !== null) return this.#configView;
      const target = unwrap(this.#native.call(OP.IA_CONFIG, '[]'));
      const owner = this;
      const write = (key, value, present, apply) => {
        if (owner.#configTarget !== target || typeof key === 'symbol') return apply();
        owner.#writeConfig(key, value, present);
        return true;
      };
      this.#configTarget = target;
      this.#configView = new Proxy(target, {
        set: (t, key, value) => write(key, value, true, () => Reflect.set(t, key, value)),
        deleteProperty: (t, key) => write(key, undefined, false, () => Reflect.deleteProperty(t, key)),
        defineProperty: (t, key, descriptor) =>
          write(key, 'value' in descriptor ? descriptor.value : descriptor.get ?? descriptor.set, true, () => Reflect.defineProperty(t, key, descriptor)),
      });
      return this.#configView;
    }

    // One config key written: checked by the core over the config as it is (an object
    // assigned to config is the config: it is checked whole, and takes the write too);
    // `undefined` or a deleted key is refused (upstream would read undefined).
    #writeConfig(key, value, present) {
      const given = this.#configGiven;
      const base = given !== null ? given.object : unwrap(this.#native.call(OP.IA_CONFIG, '[]'));
      this.#replaceNative(assigned(this.#snapshot(), 'config', encWith(base, key, value, present)));
      if (given !== null) {
        if (present) given.object[key] = value;
        else delete given.object[key];
        Object.assign(given, entriesOf(given.object));
      }
      this.#refreshConfigView();
    }

    // The config view shows the config as it now is.
    #refreshConfigView() {
      const target = this.#configTarget;
      if (target === null) return;
      for (const key of Object.keys(target)) delete target[key];
      Object.assign(target, unwrap(this.#native.call(OP.IA_CONFIG, '[]')));
    }

    // A scalar field assignment: the core checks the value and answers the changed snapshot,
    // which replaces this object's state (O(records), as upstream's own writes are rare).
    #assign(field, value) {
      this.#replaceNative(assigned(this.#snapshot(), field, enc(value)));
    }

    // upstream's public fields, read and written through the core (a write is validated; a
    // bad one throws and changes nothing). `iterations` and `config` are live views.
    get loopId() {
      return this.#fields.loopId;
    }

    set loopId(value) {
      this.#assign('loopId', value);
    }

    get taskDescription() {
      return this.#fields.taskDescription;
    }

    set taskDescription(value) {
      this.#assign('taskDescription', value);
    }

    get startTime() {
      return this.#fields.startTime;
    }

    set startTime(value) {
      this.#assign('startTime', value);
    }

    get endTime() {
      return this.#fields.endTime;
    }

    set endTime(value) {
      this.#assign('endTime', value);
    }

    /** The records, live: writes to the array and its records count, checked by the core. */
    get iterations() {
      if (this.#native === FREED) throw freedError();
      return this.#iterationsProxy();
    }

    /** Another history, checked now: the array itself becomes the object's, as in upstream. */
    set iterations(value) {
      if (this.#native === FREED) throw freedError();
      const array = ITERATIONS_OF.get(value) ?? value;
      if (array === this.#records) return;
      // Another object's view: its entries, as that view shows them.
      const history = Array.isArray(array) && array !== value ? [...value] : value;
      let texts = null;
      let text;
      if (Array.isArray(history)) {
        texts = new Array(history.length);
        for (let i = 0; i < history.length; i++) texts[i] = enc(dataOf(history[i]));
        text = '[' + texts.join(',') + ']';
      } else {
        text = enc(history); // the core's error
      }
      this.#replaceNative(assigned(this.#snapshot(), 'iterations', text));
      this.#records = history;
      this.#adopted = [];
      this.#iterationsView = null;
      this.#checked(texts);
      this.#outside = true;
    }

    /** The config, live: `analytics.config.qualityThreshold = 60` is checked by the core and takes effect. */
    get config() {
      if (this.#native === FREED) throw freedError();
      if (this.#configGiven !== null) this.#catchUp(false);
      return this.#configProxy();
    }

    /** A new config, merged over the defaults (later writes to the object count too). */
    set config(value) {
      this.#assign('config', value);
      this.#configGiven = value !== null && typeof value === 'object' ? { object: value, ...entriesOf(value) } : null;
      this.#configView = null;
      this.#configTarget = null;
      if (this.#configGiven !== null) this.#outside = true;
    }
  }

  // ------------------------------------------------------------------------
  // Engine 2: ADR-033's test-pyramid early exit

  function calculateQualitySignal(layerResult) {
    return unwrap(native.exec(OP.SIGNAL, args1(enc(layerResult, AS_LAYER_RESULT))));
  }

  // ADR-033's `countQualityPartitions(r)`: the core computes it into every signal
  // (`partitionCount`), validating the result as calculateQualitySignal does.
  function countQualityPartitions(layerResult) {
    return calculateQualitySignal(layerResult).partitionCount;
  }

  class CoherenceEarlyExit {
    #native;

    constructor(config = undefined, totalLayers = undefined) {
      // RESTORE: a freed one (what a freed controller's `earlyExit` answers).
      this.#native = config === RESTORE ? FREED : filled(OP.CE_NEW, args2(encConfig(config), enc(totalLayers)));
    }

    shouldExit(signal, layer) {
      return unwrap(this.#native.call(OP.CE_SHOULD_EXIT, args2(enc(signal, AS_SIGNAL), enc(layer))));
    }

    calculateAdaptiveExitLayer(signal) {
      return unwrap(this.#native.call(OP.CE_ADAPTIVE, args1(enc(signal, AS_SIGNAL))));
    }

    /** The config, merged over DEFAULT_EXIT_CONFIG. */
    get config() {
      return unwrap(this.#native.call(OP.CE_CONFIG, '[]'))[0];
    }

    get totalLayers() {
      return unwrap(this.#native.call(OP.CE_CONFIG, '[]'))[1];
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

  class SpeculativeExecutor {
    #native;

    constructor(config = undefined) {
      this.#native = filled(OP.SX_NEW, args1(encConfig(config)));
    }

    async speculate(exitDecision, skippedLayers) {
      return unwrap(this.#native.call(OP.SX_SPECULATE, args2(enc(exitDecision, AS_DECISION), countOf(skippedLayers))));
    }

    async predictLayerOutcome(layer, decision) {
      return unwrap(this.#native.call(OP.SX_PREDICT, args1(enc(decision, AS_DECISION))));
    }

    /** Runs the first `verificationLayers` skipped layers, in order, and records what they did. */
    async verify(speculations, skippedLayers) {
      const engine = this.#native;
      const given = enc(speculations, AS_SPECULATIONS);
      const count = unwrap(engine.call(OP.SX_VERIFY_COUNT, args1(given)));
      if (count > 0 && !Array.isArray(skippedLayers)) throw hostError(PROBLEM.NOT_LAYERS, ERROR_CODE.INVALID_CONFIG, 'layers', enc(skippedLayers));
      const outcomes = [];
      for (let i = 0; i < count; i++) {
        // One layer per verified speculation, its runner read once (as a run reads them).
        if (i >= skippedLayers.length) throw hostError(PROBLEM.MISSING_LAYER, ERROR_CODE.INVALID_CONFIG, 'layers[' + i + ']');
        const layer = skippedLayers[i];
        const run = layer !== null && (typeof layer === 'object' || typeof layer === 'function') ? layer.run : undefined;
        if (typeof run !== 'function') unwrap(native.exec(OP.RUNNER_ERROR, args2(i, enc(run))));
        const result = await run.call(layer);
        outcomes.push(unwrap(engine.call(OP.SX_CLASSIFY, args2(i, enc(result, asLayerResult(i))))));
      }
      return unwrap(engine.call(OP.SX_VERIFIED, args2(given, enc(outcomes))));
    }

    get config() {
      return unwrap(this.#native.call(OP.SX_CONFIG, '[]'));
    }

    free() {
      release(this.#native);
      this.#native = FREED;
    }
  }

  // What the core reads of a layer: its name and expected cost (runners stay in JS).
  function layerSpecs(layers) {
    if (!Array.isArray(layers)) return layers;
    return layers.map((layer) =>
      // An array is not a layer object: pass it on whole, so the core names `layers[i]`.
      layer !== null && typeof layer === 'object' && !Array.isArray(layer) ? { name: layer.name, costMs: layer.costMs } : layer,
    );
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
    const state = fast ? new Float64Array(P_STATE_LEN + 2 * count) : null;
    for (let i = 0; i < count; i++) {
      const layer = layers[i];
      const at = READ * i;
      reads[at] = layer;
      if (layer === null || typeof layer !== 'object' || Array.isArray(layer)) {
        fast = false;
        continue;
      }
      const name = (reads[at + 1] = layer.name);
      const cost = (reads[at + 2] = layer.costMs);
      const run = (reads[at + 3] = layer.run);
      if (typeof run !== 'function' && badRunner < 0) badRunner = i;
      if (typeof name !== 'string' || (cost !== undefined && typeof cost !== 'number')) fast = false;
      else if (fast && cost !== undefined) {
        state[P_STATE_LEN + P_COST_SLOTS * i] = 1;
        state[P_STATE_LEN + P_COST_SLOTS * i + 1] = cost;
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
        : { name: read.reads[READ * i + 1], costMs: read.reads[READ * i + 2] };
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

  // The AbortSignal of runWithEarlyExit's options (undefined: none). The options are an
  // object whose only key is `signal`; anything else goes to the core for its typed error,
  // with the values read here (a signal crossing as the host type "AbortSignal").
  function runSignal(options) {
    if (options === undefined || options === null) return undefined;
    let read = options;
    if (typeof options === 'object' && !Array.isArray(options)) {
      read = {};
      let signal;
      let others = 0;
      const keys = Object.keys(options);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        let value = options[key];
        if (value === undefined) continue; // an undefined key is an absent key
        if (key === 'signal') {
          signal = value;
          if (isAbortSignal(value)) value = ABORT_SIGNAL;
        } else {
          others++;
        }
        Object.defineProperty(read, key, { value, enumerable: true, writable: true, configurable: true });
      }
      if (others === 0 && (signal === undefined || signal === null)) return undefined;
      if (others === 0 && isAbortSignal(signal)) return signal;
    }
    unwrap(native.exec(OP.RUN_OPTIONS_CHECK, args1(enc(read, AS_OPTIONS, options))));
    throw new Error('earlyexit: internal error: the core accepted options this layer refused');
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

  async function runFast(exitSlots, totalLayers, layers, read, signal) {
    const state = read.state; // the run's state slots, then its costs
    let s = view();
    s.set(exitSlots, P_BASE);
    s[P_TOTAL_LAYERS] = totalLayers;
    const count = read.count;
    s[P_LAYER_COUNT] = count;
    putCosts(s, state);
    if (native.pyramidStart() !== P_START_OK) return undefined; // a bad cost: the JSON path words it
    s = view();
    copyState(s, P_BASE, state, 0);
    let action = s[P_OUT_ACTION];
    let index = s[P_OUT_LAYER];
    const results = [];
    const executed = [];
    const verified = []; // [actual, correct] of each verified layer
    const failing = []; // the failing layers run or verified, in run order
    while (action !== P_ACTION_DONE) {
      const pending = runLayer(layers, read, index, signal);
      const returned = signal ? await abortable(pending, signal) : await pending;
      if (signal && signal.aborted) throw signal.reason;
      // Read once, before the slots are viewed: a getter may use the API, even grow wasm memory.
      const result = readResult(returned);
      const kind = layerResultKind(result);
      if (kind === null) unwrap(native.exec(OP.PR_RESULT_CHECK, args2(index, enc(result, asLayerResult(index), returned))));
      let next = P_ACTION_REFUSED;
      s = view();
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
        unwrap(native.exec(OP.PR_RESULT_CHECK, args2(index, enc(result, asLayerResult(index), returned))));
        throw new Error('earlyexit: internal error: the core accepted a layer result its fast check refused');
      }
      s = view();
      copyState(s, P_BASE, state, 0);
      executed.push(index);
      if (s[P_OUT_FAILED] !== 0) failing.push({ layer: index, name: layers[index].name });
      if (action === P_ACTION_RUN) {
        const stamped = s[P_OUT_STAMPED];
        if (stamped === stamped) result.previousLambda = stamped; // not NaN: stamped
        results.push(result);
      } else {
        verified.push(s[P_OUT_ACTUAL], s[P_OUT_CORRECT]);
      }
      action = next;
      index = s[P_OUT_LAYER];
    }
    s = view();
    putCosts(s, state); // this run's costs, whatever other runs wrote meanwhile
    copyState(state, 0, s, P_BASE);
    native.pyramidSummary();
    s = view();
    const speculationCount = state[P_SPECULATIONS - P_BASE];
    const predicted = OUTCOMES[state[P_PREDICTED - P_BASE]];
    const confidence = state[P_PREDICTED_CONFIDENCE - P_BASE];
    const speculations = new Array(speculationCount);
    for (let i = 0; i < speculationCount; i++) {
      speculations[i] = 2 * i < verified.length
        ? { predicted, confidence, verified: true, actual: OUTCOMES[verified[2 * i]], correct: verified[2 * i + 1] !== 0 }
        : { predicted, confidence, verified: false };
    }
    const saved = s[P_OUT_SAVED];
    return {
      layers: results,
      exitedEarly: s[P_OUT_EXITED] !== 0,
      exitLayer: s[P_OUT_EXIT_LAYER],
      exitReason: EXIT_REASONS[s[P_OUT_REASON]],
      confidence: s[P_OUT_CONFIDENCE],
      speculations,
      skippedLayers: s[P_OUT_SKIPPED],
      layersExecuted: executed,
      verifiedLayers: s[P_OUT_VERIFIED],
      mispredictions: s[P_OUT_MISPREDICTIONS],
      computeSavedMs: saved === saved ? saved : null,
      verdict: VERDICTS[s[P_OUT_VERDICT]],
      failingLayers: failing,
    };
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
      const setup = exitSetupOf(unwrap(native.exec(OP.EXIT_CONTROLLER_CHECK, args2('null', enc(totalLayers)))));
      if (typeof totalLayers === 'number') defaultExitSetup = { totalLayers, setup };
      return setup;
    }
    if (typeof config !== 'object' || Array.isArray(config)) {
      return exitSetupOf(unwrap(native.exec(OP.EXIT_CONTROLLER_CHECK, args2(enc(config), enc(totalLayers)))));
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
    const setup = exitSetupOf(unwrap(native.exec(OP.EXIT_CONTROLLER_CHECK, args2(enc(read), enc(totalLayers)))));
    if (primitive && typeof totalLayers === 'number') exitSetups.set(config, { keys, values, totalLayers, setup });
    return setup;
  }

  class EarlyExitController {
    #exit = null; // made on first use of `earlyExit`: a run needs no native object
    #config;
    #totalLayers;
    #totalLayerCount;
    #exitSlots;
    #speculator = null;
    #setup;
    #freed = false;

    constructor(config = undefined, totalLayers = undefined) {
      // The validated, merged config: each run starts from it (the fast path's slots, or a
      // PyramidRun over JSON).
      const setup = exitSetup(config, totalLayers);
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
      const signal = runSignal(options);
      if (signal !== undefined && signal.aborted) throw signal.reason;
      const read = readLayers(layers);
      if (read.fast && fastRuns) {
        const result = await runFast(this.#exitSlots, this.#totalLayerCount, layers, read, signal);
        if (result !== undefined) return result;
      }
      const badRunner = read.badRunner;
      const given = specsOf(layers, read, badRunner < 0 ? read.count : badRunner + 1);
      const engine = filled(OP.PR_START, '[' + this.#config + ',' + this.#totalLayers + ',' + enc(given, AS_LAYERS) + ']');
      try {
        if (badRunner >= 0) {
          unwrap(native.exec(OP.RUNNER_ERROR, args2(badRunner, enc(read.reads[READ * badRunner + 3]))));
        }
        for (;;) {
          const next = unwrap(engine.call(OP.PR_NEXT, '[]'));
          if (next.action === 'done') return unwrap(engine.call(OP.PR_RESULT, '[]'));
          const index = next.layer;
          const pending = runLayer(layers, read, index, signal);
          const returned = signal ? await abortable(pending, signal) : await pending;
          if (signal && signal.aborted) throw signal.reason;
          unwrap(engine.call(OP.PR_SUBMIT, args2(index, enc(readResult(returned), asLayerResult(index), returned))));
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

  /** The core's step API: the host runs each layer and feeds its result back. */
  class PyramidRun {
    #native;

    constructor(config = undefined, totalLayers = undefined, layers = undefined) {
      if (config === RESTORE) {
        this.#native = FREED;
        return;
      }
      this.#native = filled(OP.PR_START, '[' + encConfig(config) + ',' + enc(totalLayers) + ',' + enc(layerSpecs(layers), AS_LAYERS) + ']');
    }

    static start(config, totalLayers, layers) {
      return new PyramidRun(config, totalLayers, layers);
    }

    /** `{action: 'run' | 'verify', layer}` or `{action: 'done'}`; advances nothing. */
    next() {
      return unwrap(this.#native.call(OP.PR_NEXT, '[]'));
    }

    submit(layer, result) {
      unwrap(this.#native.call(OP.PR_SUBMIT, args2(enc(layer), enc(result, typeof layer === 'number' ? asLayerResult(layer) : AS_LAYER_RESULT))));
    }

    result() {
      return unwrap(this.#native.call(OP.PR_RESULT, '[]'));
    }

    toJSON() {
      return unwrap(this.#native.call(OP.PR_TO_JSON, '[]'));
    }

    static fromJSON(snapshot) {
      const engine = filled(OP.PR_FROM_JSON, args1(enc(snapshot, AS_SNAPSHOT)));
      const restored = new PyramidRun(RESTORE);
      restored.#native = engine;
      return restored;
    }

    free() {
      release(this.#native);
      this.#native = FREED;
    }
  }

  for (const cls of [EarlyStopping, IterationAnalytics, CoherenceEarlyExit, SpeculativeExecutor, EarlyExitController, PyramidRun]) {
    addDispose(cls);
  }

  // Filled by ready() (at load in Node, by init() in the browser): the core's presets.
  const DEFAULT_EXIT_CONFIG = {};
  const AGGRESSIVE_EXIT_CONFIG = {};
  const CONSERVATIVE_EXIT_CONFIG = {};

  // ------------------------------------------------------------------------
  // WebAssembly only (the package entry gives `native.resetInstance(op)`, which replaces the
  // instance that answers `op` by a fresh one of the same module and says whether that was
  // the engines module). A trap (out of memory, say) leaves an instance unusable, so: the
  // call that trapped throws `instance_trapped`, later calls go to the fresh instance, and
  // the native objects made on the old one (IterationAnalytics, CoherenceEarlyExit,
  // SpeculativeExecutor, PyramidRun and a controller's earlyExit) throw `instance_reset`.
  // EarlyStopping and runs keep their state in JS and carry on. Not about a value the caller
  // passed as such, and no core is left to word them: plain Errors with `.code` and `.field`.
  let generation = 0; // of the engines instance

  function instanceError(code, message, cause) {
    const error = cause === undefined ? new Error(message) : new Error(message, { cause });
    error.code = code;
    error.field = code === 'instance_reset' ? 'this' : 'instance';
    return error;
  }

  function guardInstance() {
    const reset = native.resetInstance;
    // Only a trap: a RangeError for an exhausted JS stack may come from the glue before the
    // instance was entered, and the instance is then intact.
    const isTrap = (error) => typeof WebAssembly === 'object' && error instanceof WebAssembly.RuntimeError;
    function recover(error, op) {
      if (!isTrap(error)) return error;
      if (reset(op)) {
        generation += 1;
        // The engine whose state was in the scratch slots saves it from the old memory (its
        // contents outlive the instance); the slots are then reserved on the new one.
        if (fast.evict !== null && fast.memory !== null) {
          fast.scratch = new Float64Array(fast.memory.buffer, fast.address, fast.size);
          fast.evict();
        }
        fast.owner = null;
        fast.evict = null;
        decidedBy = null;
        fast.scratch = new Float64Array(0);
        growScratch(fast.size / 2);
      }
      return instanceError('instance_trapped', 'earlyexit-wasm: the WebAssembly instance trapped during this call (' + error.message +
        '), so a fresh instance answers from now on: this call changed nothing, and objects made before it other than ' +
        'EarlyStopping throw instance_reset', error);
    }
    const raw = {};
    for (const name of ['exec', 'fastFold', 'fastDecide', 'fastReason', 'fastDiminishingReason', 'scratchReserve', 'wasmMemory',
      'pyramidStart', 'pyramidSubmit', 'pyramidSummary', 'NativeEngine']) raw[name] = native[name];
    // One wrapper per arity, so the hot zero-argument calls stay plain calls.
    const guard0 = (f) => function guarded() {
      try {
        return f();
      } catch (error) {
        throw recover(error);
      }
    };
    const guard1 = (f) => function guarded(a) {
      try {
        return f(a);
      } catch (error) {
        throw recover(error);
      }
    };
    native.exec = function exec(op, args) {
      try {
        return raw.exec(op, args);
      } catch (error) {
        throw recover(error, op);
      }
    };
    for (const name of ['fastFold', 'fastDecide', 'fastReason', 'wasmMemory', 'pyramidStart', 'pyramidSubmit', 'pyramidSummary']) {
      native[name] = guard0(raw[name]);
    }
    native.fastDiminishingReason = guard1(raw.fastDiminishingReason);
    native.scratchReserve = guard1(raw.scratchReserve);
    native.NativeEngine = class NativeEngine {
      constructor() {
        this.generation = generation;
        try {
          this.inner = new raw.NativeEngine();
        } catch (error) {
          throw recover(error);
        }
      }

      call(op, args) {
        if (this.generation !== generation) {
          throw instanceError('instance_reset', 'earlyexit-wasm: this object was made on a WebAssembly instance that trapped and was ' +
            'replaced, so its state is gone: make it again (or restore it from a snapshot taken before)');
        }
        try {
          return this.inner.call(op, args);
        } catch (error) {
          throw recover(error, op);
        }
      }

      free() {
        if (this.generation === generation) this.inner.free(); // the old instance's memory went with it
      }
    };
  }

  function ready() {
    if (typeof native.resetInstance === 'function') guardInstance();
    // The native module must have been built from the tables this layer was generated from.
    const hello = unwrap(native.exec(OP.HELLO, '[]'));
    if (hello.contract !== CONTRACT) {
      throw new Error(`earlyexit: the native module was built from another contract (fingerprint ${hello.contract}, this JS layer's ${CONTRACT}); rebuild the package`);
    }
    growScratch(0);
    const [defaults, aggressive, conservative] = unwrap(native.exec(OP.PRESETS, '[]'));
    Object.assign(DEFAULT_EXIT_CONFIG, defaults);
    Object.assign(AGGRESSIVE_EXIT_CONFIG, aggressive);
    Object.assign(CONSERVATIVE_EXIT_CONFIG, conservative);
  }

  const api = {
    EarlyStopping,
    IterationAnalytics,
    calculateQualitySignal,
    countQualityPartitions,
    isEarlyExitError,
    CoherenceEarlyExit,
    SpeculativeExecutor,
    EarlyExitController,
    PyramidRun,
    DEFAULT_EXIT_CONFIG,
    AGGRESSIVE_EXIT_CONFIG,
    CONSERVATIVE_EXIT_CONFIG,
    LIMITS,
  };

  // ------------------------------------------------------------------------
  // Pyramid replay and the risk-bounded policy (batch, stateless: ops PYRAMID_*,
  // bindings/js/interface/src/pyramid_replay_ops.rs). Begin.
  const encOpt = (value) => (value === undefined || value === null ? 'null' : encode(value, AS_OPTIONS));
  Object.assign(api, {
    replayPyramids(runs, options) {
      return unwrap(native.exec(OP.PYRAMID_REPLAY, args2(enc(runs, AS_RUNS), encOpt(options))));
    },
    shadowPyramids(runs, options) {
      return unwrap(native.exec(OP.PYRAMID_SHADOW, args2(enc(runs, AS_RUNS), encOpt(options))));
    },
    calibratePyramidPolicy(runs, risk, delta, options) {
      const base = options === undefined || options === null ? {} : options;
      const all = typeof base === 'object' && !Array.isArray(base) ? Object.assign({}, base, { risk, delta }) : base;
      return unwrap(native.exec(OP.PYRAMID_CALIBRATE, args2(enc(runs, AS_RUNS), enc(all, AS_OPTIONS))));
    },
    pyramidPolicyDecide(model, layers, outcomes, options) {
      return unwrap(native.exec(OP.PYRAMID_DECIDE,
        '[' + encOpt(model) + ',' + enc(layers, AS_LAYERS) + ',' + enc(outcomes) + ',' + encOpt(options) + ']'));
    },
    pyramidPolicyUpdate(model, ran, options) {
      return unwrap(native.exec(OP.PYRAMID_UPDATE, '[' + encOpt(model) + ',' + enc(ran) + ',' + encOpt(options) + ']'));
    },
  });
  // Pyramid replay and the risk-bounded policy. End.
  // ------------------------------------------------------------------------
  // ------------------------------------------------------------------------
  // Loop replay and loop presets (docs/replay.md). Ops LOOP_REPLAY and LOOP_PRESET:
  // `loop_replay` in bindings/js/interface/src/loop_replay.rs. One native call per batch of runs.

  /**
   * Replays a loop policy over recorded runs.
   * @param {object[]|string} runs run objects, or JSONL text (one run per line)
   * @param {string|object} [policy] a preset name or `{preset, config, returns, analytics}`
   */
  function replayLoops(runs, policy = undefined) {
    // One encoder for every argument of every call: the same runs get the same verdict
    // whatever else the batch holds (the core reads an array of runs run by run; the size
    // limit applies to each run).
    return unwrap(native.exec(OP.LOOP_REPLAY, args2(enc(runs, AS_RUNS), encConfig(policy))));
  }

  /** A named preset's config (`'seed'`, the default, or `'recommended'`), with overrides merged. */
  function loopPreset(name, overrides = undefined) {
    return unwrap(native.exec(OP.LOOP_PRESET, args2(enc(name), encConfig(overrides))));
  }

  Object.defineProperty(EarlyStopping, 'fromPreset', {
    value: function fromPreset(name, overrides = undefined, iterationAnalytics = null) {
      return new EarlyStopping(loopPreset(name, overrides), iterationAnalytics);
    },
    writable: true,
    configurable: true,
  });
  api.replayLoops = replayLoops;
  api.loopPreset = loopPreset;
  api.LOOP_PRESETS = LOOP_PRESETS;
  // ------------------------------------------------------------------------ end of loop replay

  // For the tests only (tests/node reaches it by loading the layer over the native module
  // again, as test runners may): the encoder with its visit count, the caches' sizes, and a
  // switch that sends every run to the JSON path.
  const testing = {
    encode(value, as = undefined) {
      const text = encode(value, as === 'runs' ? AS_RUNS : AS_VALUE);
      return { text, visits: lastVisits };
    },
    caches() {
      const maps = [drReasons];
      for (const entry of configs.values()) maps.push(entry.highConfidence, entry.maxIterations);
      let entries = configs.size;
      let chars = 0;
      for (const map of maps) {
        entries += map.size;
        for (const [key, text] of map) chars += text.length + (typeof key === 'string' ? key.length : 0);
      }
      for (const entry of configs.values()) chars += entry.key.length + (entry.plateau === null ? 0 : entry.plateau.length);
      return { entries, chars };
    },
    setFastRuns(on) {
      fastRuns = on;
    },
  };

  return { api, ready, testing };
}
