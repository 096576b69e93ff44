// The public JS API of earlyexit, shared by the `earlyexit` (napi-rs) and
// `earlyexit-wasm` (wasm-bindgen) packages, which copy this file in at build time
// (scripts/build-node.sh, scripts/build-wasm.sh, via js/build.mjs).
//
// It is a drop-in for the seed's `early-stopping.mjs` and for ADR-033's engine:
// same classes, methods, returned objects and strings. Every rule, every string
// and every error comes from the Rust core; this layer only
//   - converts arguments to one string in the wire format of js/interface/src/wire.rs
//     (JSON plus a tag for NaN, the infinities, functions and `undefined`),
//   - turns answers back into plain objects, and `!` answers into real
//     TypeError / RangeError objects with `.code` and `.field`,
//   - asks an outside diminishing-returns source when the core answers `?`
//     (the core decides whether to ask, exactly when the seed asks), and
//   - runs the async test-pyramid loop over the core's step API (PyramidRun).
//
// `native` is the module both bindings export: `new native.NativeEngine()` with
// `.call(op, args)`, and `native.exec(op, args)`.
//
// Keep this file free of `import` and of every `export` but the one below: the
// build turns it into CommonJS by rewriting that single line.

export default function createApi(native) {
  'use strict';

  // Op codes: the same table as `op` in js/interface/src/lib.rs.
  const PROTOCOL = 2;
  const OP = {
    HELLO: 0, SIGNAL: 1, PRESETS: 2, ANALYTICS_SOURCE_ERROR: 3, RUNNER_ERROR: 4,
    LOOP_CONSTANTS: 6, ES_CONFIG_CHECK: 7, ES_RECORD_CHECK: 9, ES_REPORT_CHECK: 24,
    ES_SNAPSHOT_CHECK: 25, PR_RESULT_CHECK: 26, EXIT_CONFIG_SLOTS: 27,
    IA_NEW: 30, IA_RECORD: 31, IA_DETECT: 32, IA_TRAJECTORY: 33, IA_OPTIMAL: 34, IA_SELECT: 35,
    IA_SUMMARY: 36, IA_CONFIG: 37, IA_RECORDS: 38, IA_RESET: 39, IA_TO_JSON: 40, IA_FROM_JSON: 41,
    CE_NEW: 50, CE_SHOULD_EXIT: 51, CE_ADAPTIVE: 52, CE_CONFIG: 53,
    SX_NEW: 60, SX_SPECULATE: 61, SX_PREDICT: 62, SX_VERIFY_COUNT: 63, SX_CLASSIFY: 64, SX_VERIFIED: 65,
    SX_CONFIG: 66,
    PR_START: 70, PR_NEXT: 71, PR_SUBMIT: 72, PR_RESULT: 73, PR_TO_JSON: 74, PR_FROM_JSON: 75,
  };

  // ------------------------------------------------------------------------
  // Wire format (see js/interface/src/wire.rs).

  const MAX_DEPTH = 200; // the core's JSON reader allows 256 levels
  const tag = (what) => '{"\\u0000":' + JSON.stringify(what) + '}';
  const TAG_NAN = tag('NaN');
  const TAG_INFINITY = tag('Infinity');
  const TAG_NEG_INFINITY = tag('-Infinity');
  const TAG_UNDEFINED = tag('undefined');

  function encode(value, depth) {
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
      case 'object': {
        if (value === null) return 'null';
        if (depth >= MAX_DEPTH) return tag('object nested too deeply');
        if (Array.isArray(value)) {
          let out = '[';
          for (let i = 0; i < value.length; i++) {
            if (i > 0) out += ',';
            out += encode(value[i], depth + 1);
          }
          return out + ']';
        }
        let out = '{';
        let first = true;
        for (const key of Object.keys(value)) {
          const item = value[key];
          if (item === undefined) continue; // an undefined key is an absent key
          if (!first) out += ',';
          first = false;
          out += JSON.stringify(key.charCodeAt(0) === 0 ? '\u0000' + key : key) + ':' + encode(item, depth + 1);
        }
        return out + '}';
      }
      default: // function, symbol, bigint
        return tag(typeof value);
    }
  }

  const enc = (value) => encode(value, 0);
  // A config or options argument: `undefined` means "none", as the seed's default parameters do.
  const encConfig = (value) => (value === undefined ? 'null' : encode(value, 0));

  const SPECIAL = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

  function untag(value) {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = untag(value[i]);
      return value;
    }
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '\u0000') return SPECIAL[value['\u0000']]; // else undefined
    const out = {};
    for (const key of keys) {
      const item = untag(value[key]);
      if (item === undefined) continue;
      const name = key.charCodeAt(0) === 0 ? key.slice(1) : key;
      if (name === '__proto__') Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true });
      else out[name] = item;
    }
    return out;
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
    if (first === 33) throw makeError(answer); // !
    if (first === 126) return untag(JSON.parse(answer.slice(1))); // ~
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
    if (answer.charCodeAt(0) === 33) {
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
  function sourceOf(analytics) {
    if (analytics === null || analytics === undefined) return null;
    if ((typeof analytics === 'object' || typeof analytics === 'function') && typeof analytics.detectDiminishingReturns === 'function') {
      return analytics;
    }
    return unwrap(native.exec(OP.ANALYTICS_SOURCE_ERROR, args1(enc(analytics))));
  }

  // ------------------------------------------------------------------------
  // Engine 1: the seed's EarlyStopping, on the numeric fast path
  //
  // No native object per engine and no JSON per call (docs/performance-notes.md). Each
  // engine keeps its history (the seed's record objects) and its compact decision state
  // (config, counters, the last plateauConsecutiveCount observations: a Float64Array)
  // here; the core's stateless functions (js/interface/src/fast.rs over
  // core/src/loop_state.rs) validate and fold a record in, and decide, over that state in
  // a scratch buffer shared with the native side. The most recently used engine's state
  // stays in the scratch buffer, so a loop over one engine copies nothing. Calls answer a
  // number code; this layer builds the returned object in one step. Reason strings come
  // from the core, cached per distinct value. Anything the fast path does not take (an
  // unusual argument, an invalid value) goes to the JSON path, which gives the core's
  // full typed error.

  // Slots: the same table as js/interface/src/fast.rs.
  const LAYOUT = 4;
  const IN_ITERATION = 0, IN_QUALITY = 1, IN_CONFIDENCE = 2, IN_STATUS = 3, IN_DELTA = 4, IN_FLAGS = 5;
  const IN_TOKENS = 6, IN_COST = 7, IN_TIME = 8, IN_ITERATION_NUMBER = 9;
  const IN_SOURCE = 10, IN_DETECTED = 11, IN_REPORT_ITERATION_KIND = 12, IN_REPORT_ITERATION = 13;
  const IN_TIMESTAMP_LEN = 14, IN_TIMESTAMP = 48, MAX_FAST_TIMESTAMP = 64;
  const OUT_CODE = 16, OUT_CONFIDENCE = 17, OUT_DETAIL = 18, OUT_BEST = 24, OUT_BUDGET_COUNT = 27, OUT_BUDGETS = 28;
  const OUT_IMPROVEMENTS_AT = 44;
  const STATE = 256, COUNTERS = STATE + 18, WINDOW_LEN = STATE + 36, WINDOW = STATE + 37;
  const CODE_NO_ITERATIONS = 0, CODE_WARM_UP = 1, CODE_CONTINUE = 2, CODE_HIGH_CONFIDENCE = 3, CODE_PLATEAU = 4;
  const CODE_DIMINISHING = 5, CODE_MAX_ITERATIONS = 6, CODE_BUDGET = 7, CODE_REGRESSION = 8;
  const CODE_NEED_SOURCE = 9, CODE_INVALID_REPORT = 10, CODE_NO_IMPROVEMENT = 11;
  // A stop's trigger by code: codes 3..8 are Trigger::ALL[1..6] in order; no_improvement is ALL[7].
  const triggerIndex = (code) => (code === CODE_NO_IMPROVEMENT ? 7 : code - 2);

  // Filled by ready() from the core (op LOOP_CONSTANTS): names by code and constant answers.
  const LOOP = { triggers: [], budgets: [], statuses: [], noIterations: '', continue: '', emptySummary: {}, snapshot: {}, exitReasons: [], outcomes: [] };

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
  const fast = home[SHARED] || (home[SHARED] = { scratch: new Float64Array(0), owner: null, evict: null });
  let decidedBy = null; // the engine whose decision (over its current state) is in the output slots

  function growScratch(min) {
    const size = Math.max(4096, 2 * min);
    if (typeof native.scratchReserve === 'function') {
      const address = native.scratchReserve(size);
      fast.scratch = new Float64Array(native.wasmMemory().buffer, address, size);
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

  // Slots needed to fold one more observation into a window of `len` (state, then the
  // plateau's improvements after it).
  const slotsFor = (len) => WINDOW + 8 * (len + 1) + 8;

  function freedError() {
    return new Error('earlyexit: this object was freed (free() or Symbol.dispose) and cannot be used');
  }

  // A validated config: its object (as getConfig() returns it), its slots, and reason
  // strings cached per value. Shared by every engine with the same config.
  const configs = new Map();
  function configEntry(key, answer) {
    const [value, slots] = answer;
    return { key, value, slots: Float64Array.from(slots), highConfidence: new Map(), maxIterations: new Map(), plateau: null };
  }
  function configFor(config) {
    const key = config === undefined || config === null ? 'null' : enc(config);
    let entry = configs.get(key);
    if (entry === undefined) {
      entry = configEntry(key, unwrap(native.exec(OP.ES_CONFIG_CHECK, '[null,' + key + ',"config"]')));
      if (configs.size >= 256) configs.clear();
      configs.set(key, entry);
    }
    return entry;
  }

  const drReasons = new Map();
  function cached(map, key, make) {
    let text = map.get(key);
    if (text === undefined) {
      text = make();
      if (map.size >= 1024) map.clear();
      map.set(key, text);
    }
    return text;
  }
  const fetchReason = () => native.fastReason();

  // Plain data (details objects): a deep copy, so callers cannot reach the engine's own.
  function copyData(value) {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(copyData);
    const out = {};
    for (const key of Object.keys(value)) out[key] = copyData(value[key]);
    return out;
  }
  // A history record as the seed stores it: a timestamp the clock gave is formatted on
  // first read (kept as the time in ms until then).
  function copyRecord(record) {
    if (typeof record.timestamp === 'number') record.timestamp = new Date(record.timestamp).toISOString();
    return { ...record };
  }

  class EarlyStopping {
    #config = null;
    #state = null; // this engine's slots from STATE on while another engine is active; null = fresh
    #history = [];
    #source = null;
    #reason = null;
    #details = null;

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
      const need = slotsFor(state === null ? 0 : (state.length - (WINDOW - STATE)) / 5);
      if (s.length < need) s = growScratch(need);
      if (state === null) {
        s.set(config.slots, STATE);
        s.fill(0, COUNTERS, WINDOW);
      } else {
        s.set(state, STATE);
      }
      fast.owner = this;
      fast.evict = () => this.#save();
      return s;
    }

    #save() {
      const s = view();
      this.#state = s.slice(STATE, WINDOW + 5 * s[WINDOW_LEN]);
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
      // Unpacks the seed's object into numbers. Only a conversion: a key, type or status
      // this does not recognise sends the call to the JSON path, where the core decides.
      let fast = typeof iteration === 'number' && typeof result === 'object' && result !== null && !Array.isArray(result);
      let quality, confidence, delta, timestamp, tokens, cost, time, iterationNumber;
      let status = -1;
      let flags = 0;
      if (fast) {
        const keys = Object.keys(result);
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          const value = result[key];
          if (value === undefined) continue; // an undefined key is an absent key
          switch (key) {
            case 'quality_score': quality = value; break;
            case 'confidence': confidence = value; break;
            case 'verification_status': status = LOOP.statuses.indexOf(value); break;
            case 'quality_delta': delta = value; break;
            case 'timestamp': timestamp = value; break;
            case 'tokens_used': tokens = value; flags |= 1; break;
            case 'token_cost_usd': cost = value; flags |= 2; break;
            case 'execution_time_ms': time = value; flags |= 4; break;
            case 'iteration_number': iterationNumber = value; flags |= 8; break;
            default: fast = false;
          }
        }
        fast = fast && typeof quality === 'number' && typeof confidence === 'number' && status >= 0 && typeof delta === 'number' &&
          (flags === 0 || ((!(flags & 1) || typeof tokens === 'number') && (!(flags & 2) || typeof cost === 'number') &&
            (!(flags & 4) || typeof time === 'number') && (!(flags & 8) || typeof iterationNumber === 'number'))) &&
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
        s[IN_SOURCE] = this.#source === null ? 0 : 1;
        if (timestamp !== undefined) {
          // The string crosses as code units; the core checks it.
          const length = timestamp.length;
          for (let i = 0; i < length; i++) s[IN_TIMESTAMP + i] = timestamp.charCodeAt(i);
          s[IN_TIMESTAMP_LEN] = length;
          flags |= 16;
        }
        s[IN_FLAGS] = flags;
        if (flags !== 0) {
          s[IN_TOKENS] = tokens;
          s[IN_COST] = cost;
          s[IN_TIME] = time;
          s[IN_ITERATION_NUMBER] = iterationNumber;
        }
        const folded = native.fastFold() === 0;
        // The fold also decided (for the shouldStop() that usually follows).
        decidedBy = folded ? this : null;
        if (folded) {
          // Without a timestamp, the clock is read now and formatted only when the history
          // is read (the same string; formatting costs more than the rest of the call).
          const record = {
            iteration_number: iteration,
            quality_score: quality,
            confidence,
            verification_status: LOOP.statuses[status],
            quality_delta: delta,
            timestamp: timestamp === undefined ? Date.now() : timestamp,
          };
          if (flags & 1) record.tokens_used = tokens;
          if (flags & 2) record.token_cost_usd = cost;
          if (flags & 4) record.execution_time_ms = time;
          this.#history.push(record);
          return;
        }
      } else if (this.#config === null) {
        throw freedError();
      }
      // The JSON path: throws the core's typed error, or answers the stored record.
      // With the engine's usage totals, so a record that would overflow one is refused too.
      const t = this.#load();
      const totals = '[' + encode(t[COUNTERS + 7], 0) + ',' + encode(t[COUNTERS + 8], 0) + ',' + encode(t[COUNTERS + 9], 0) + ']';
      const record = unwrap(native.exec(OP.ES_RECORD_CHECK, '[' + enc(iteration) + ',' + enc(result) + ',' + totals + ']'));
      if (record.timestamp === '') record.timestamp = Date.now(); // none given: the clock's, as above
      this.#fold(record);
      this.#history.push(record);
    }

    // Folds a record the core already accepted (the JSON path, fromJSON, configure).
    #fold(record) {
      let s = this.#load();
      if (s.length < slotsFor(s[WINDOW_LEN])) s = growScratch(slotsFor(s[WINDOW_LEN]));
      s[IN_ITERATION] = record.iteration_number;
      s[IN_QUALITY] = record.quality_score;
      s[IN_CONFIDENCE] = record.confidence;
      s[IN_STATUS] = LOOP.statuses.indexOf(record.verification_status);
      s[IN_DELTA] = record.quality_delta;
      let flags = 0;
      if (record.tokens_used !== undefined) { flags |= 1; s[IN_TOKENS] = record.tokens_used; }
      if (record.token_cost_usd !== undefined) { flags |= 2; s[IN_COST] = record.token_cost_usd; }
      if (record.execution_time_ms !== undefined) { flags |= 4; s[IN_TIME] = record.execution_time_ms; }
      s[IN_FLAGS] = flags;
      s[IN_SOURCE] = this.#source === null ? 0 : 1;
      const folded = native.fastFold() === 0;
      decidedBy = folded ? this : null;
      if (!folded) throw new Error('earlyexit: internal error: the core refused a record it had accepted');
    }

    // The iteration argument is accepted and ignored, as in the seed.
    shouldStop(iteration) {
      return this.#decide();
    }

    #decide() {
      let s = this.#load();
      let code;
      if (decidedBy === this) {
        code = s[OUT_CODE]; // decided by the last fold, over the same state
      } else {
        s[IN_SOURCE] = this.#source === null ? 0 : 1;
        code = native.fastDecide();
        decidedBy = this;
      }
      let report = null;
      if (code === CODE_NEED_SOURCE) {
        // The core decided that the source must be asked, exactly when the seed asks it
        // (and it is asked again on every call, so this decision is not kept).
        report = this.#source.detectDiminishingReturns();
        code = this.#decideWith(report);
        decidedBy = null;
      }
      s = view();
      const confidence = s[OUT_CONFIDENCE];
      const config = this.#config;
      let stop = true;
      let reason;
      let details;
      switch (code) {
        case CODE_NO_ITERATIONS:
          stop = false;
          reason = LOOP.noIterations;
          break;
        case CODE_CONTINUE:
          stop = false;
          reason = LOOP.continue;
          break;
        case CODE_WARM_UP:
          stop = false;
          reason = fetchReason();
          break;
        case CODE_HIGH_CONFIDENCE: {
          const status = s[OUT_DETAIL + 2];
          details = status < 0
            ? { confidence: s[OUT_DETAIL], quality_score: s[OUT_DETAIL + 1] }
            : { confidence: s[OUT_DETAIL], quality_score: s[OUT_DETAIL + 1], verification_status: LOOP.statuses[status] };
          reason = cached(config.highConfidence, details.confidence, fetchReason);
          break;
        }
        case CODE_PLATEAU: {
          const count = s[OUT_DETAIL + 3];
          const at = s[OUT_IMPROVEMENTS_AT];
          const improvements = new Array(count);
          for (let i = 0; i < count; i++) {
            const j = at + 3 * i;
            improvements[i] = { iteration: s[j], improvement: s[j + 1], delta: s[j + 2] };
          }
          details = { consecutive_count: s[OUT_DETAIL], improvements, average_quality: s[OUT_DETAIL + 1], threshold: s[OUT_DETAIL + 2] };
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
          details = { budget: LOOP.budgets[s[OUT_DETAIL]], limit: s[OUT_DETAIL + 1], observed: s[OUT_DETAIL + 2], records_without_value: s[OUT_DETAIL + 3] };
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
      const trigger = LOOP.triggers[stop ? triggerIndex(code) : 0];
      const best = s[OUT_BEST] !== 0;
      const decision = details === undefined
        ? { stop, reason, confidence, trigger, best_iteration: best ? s[OUT_BEST + 1] : null, best_quality_score: best ? s[OUT_BEST + 2] : null }
        : { stop, reason, confidence, trigger, details, best_iteration: best ? s[OUT_BEST + 1] : null, best_quality_score: best ? s[OUT_BEST + 2] : null };
      const budgetCount = s[OUT_BUDGET_COUNT];
      if (budgetCount !== 0) {
        const budgets = new Array(budgetCount);
        for (let i = 0; i < budgetCount; i++) {
          const j = OUT_BUDGETS + 5 * i;
          budgets[i] = { budget: LOOP.budgets[s[j]], limit: s[j + 1], observed: s[j + 2], records_without_value: s[j + 3], exhausted: s[j + 4] !== 0 };
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
    // path does not take goes to the JSON path for the typed error).
    #decideWith(report) {
      let detected, reason, given;
      let kind = 0;
      let fast = typeof report === 'object' && report !== null && !Array.isArray(report);
      if (fast) {
        const keys = Object.keys(report);
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          if (key === 'detected') detected = report[key];
          else if (key === 'reason') reason = report[key];
          else if (key === 'iteration') {
            given = report[key];
            kind = given === undefined ? 0 : given === null ? 1 : 2;
          }
        }
        fast = typeof detected === 'boolean' && typeof reason === 'string' && (kind !== 2 || typeof given === 'number');
      }
      if (fast) {
        // The source may have used another engine meanwhile.
        const s = this.#load();
        s[IN_SOURCE] = 2;
        s[IN_DETECTED] = detected ? 1 : 0;
        s[IN_REPORT_ITERATION_KIND] = kind;
        s[IN_REPORT_ITERATION] = kind === 2 ? given : 0;
        decidedBy = null;
        const code = native.fastDecide();
        if (code !== CODE_INVALID_REPORT) return code;
      }
      unwrap(native.exec(OP.ES_REPORT_CHECK, args1(enc(report))));
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
      const key = enc(config.value);
      const answer = unwrap(native.exec(OP.ES_CONFIG_CHECK, '[' + key + ',' + encConfig(options) + ',"options"]'));
      this.#config = configFor(answer[0]);
      // The window's length, the quality bar and the regression tolerance shape the
      // state, so it is folded again from the history, as the Rust engine does.
      this.#unload();
      for (const record of this.#history) this.#fold(record);
    }

    getConfig() {
      if (this.#config === null) throw freedError();
      return { ...this.#config.value };
    }

    getIterationHistory() {
      if (this.#config === null) throw freedError();
      return this.#history.map(copyRecord);
    }

    reset() {
      if (this.#config === null) throw freedError();
      this.#unload();
      this.#history = [];
      this.#reason = null;
      this.#details = null;
    }

    generateSummary() {
      if (this.#config === null) throw freedError();
      const history = this.#history;
      if (history.length === 0) return { ...LOOP.emptySummary };
      const decision = this.#decide();
      const last = history[history.length - 1];
      const summary = {
        total_iterations: history.length,
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
      if (this.#config === null) throw freedError();
      return {
        version: LOOP.snapshot.version,
        engine: LOOP.snapshot.engine,
        config: { ...this.#config.value },
        history: this.#history.map(copyRecord),
        stoppingReason: this.#reason,
        stoppingDetails: this.#details === null ? null : copyData(this.#details),
      };
    }

    /** Restores a snapshot (object or JSON text); the analytics source is not part of it. */
    static fromJSON(snapshot, iterationAnalytics = null) {
      const checked = unwrap(native.exec(OP.ES_SNAPSHOT_CHECK, args1(enc(snapshot))));
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
    }

    // The seed's public fields, read-only.
    get config() {
      return this.getConfig();
    }

    get iterationHistory() {
      return this.getIterationHistory();
    }

    get iterationAnalytics() {
      return this.#source;
    }

    get stoppingReason() {
      return this.getStoppingReason();
    }

    get stoppingDetails() {
      return this.getStoppingDetails();
    }
  }

  // ------------------------------------------------------------------------
  // The built-in diminishing-returns source

  class IterationAnalytics {
    #native;

    constructor(config = undefined) {
      this.#native = config === RESTORE ? FREED : filled(OP.IA_NEW, args1(encConfig(config)));
    }

    recordIteration(record) {
      return unwrap(this.#native.call(OP.IA_RECORD, args1(enc(record))));
    }

    detectDiminishingReturns() {
      return unwrap(this.#native.call(OP.IA_DETECT, '[]'));
    }

    getTrajectory() {
      return unwrap(this.#native.call(OP.IA_TRAJECTORY, '[]'));
    }

    getOptimalIteration(verifiedOnly = true) {
      return unwrap(this.#native.call(OP.IA_OPTIMAL, args1(enc(verifiedOnly))));
    }

    selectBestIteration() {
      return unwrap(this.#native.call(OP.IA_SELECT, '[]'));
    }

    generateSummary() {
      return unwrap(this.#native.call(OP.IA_SUMMARY, '[]'));
    }

    getConfig() {
      return unwrap(this.#native.call(OP.IA_CONFIG, '[]'));
    }

    getRecords() {
      return unwrap(this.#native.call(OP.IA_RECORDS, '[]'));
    }

    reset() {
      unwrap(this.#native.call(OP.IA_RESET, '[]'));
    }

    toJSON() {
      return unwrap(this.#native.call(OP.IA_TO_JSON, '[]'));
    }

    static fromJSON(snapshot) {
      const engine = filled(OP.IA_FROM_JSON, args1(enc(snapshot)));
      const restored = new IterationAnalytics(RESTORE);
      restored.#native = engine;
      return restored;
    }

    free() {
      release(this.#native);
      this.#native = FREED;
    }
  }

  // ------------------------------------------------------------------------
  // Engine 2: ADR-033's test-pyramid early exit

  function calculateQualitySignal(layerResult) {
    return unwrap(native.exec(OP.SIGNAL, args1(enc(layerResult))));
  }

  class CoherenceEarlyExit {
    #native;

    constructor(config = undefined, totalLayers = undefined) {
      this.#native = filled(OP.CE_NEW, args2(encConfig(config), enc(totalLayers)));
    }

    shouldExit(signal, layer) {
      return unwrap(this.#native.call(OP.CE_SHOULD_EXIT, args2(enc(signal), enc(layer))));
    }

    calculateAdaptiveExitLayer(signal) {
      return unwrap(this.#native.call(OP.CE_ADAPTIVE, args1(enc(signal))));
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

  // The number of layers `speculate` predicts: the seed iterates the argument.
  function countOf(layers) {
    return Array.isArray(layers) ? layers.length : [...layers].length;
  }

  class SpeculativeExecutor {
    #native;

    constructor(config = undefined) {
      this.#native = filled(OP.SX_NEW, args1(encConfig(config)));
    }

    async speculate(exitDecision, skippedLayers) {
      return unwrap(this.#native.call(OP.SX_SPECULATE, args2(enc(exitDecision), countOf(skippedLayers))));
    }

    async predictLayerOutcome(layer, decision) {
      return unwrap(this.#native.call(OP.SX_PREDICT, args1(enc(decision))));
    }

    /** Runs the first `verificationLayers` skipped layers, in order, and records what they did. */
    async verify(speculations, skippedLayers) {
      const engine = this.#native;
      const given = enc(speculations);
      const count = unwrap(engine.call(OP.SX_VERIFY_COUNT, args1(given)));
      const outcomes = [];
      for (let i = 0; i < count; i++) {
        const result = await skippedLayers[i].run();
        outcomes.push(unwrap(engine.call(OP.SX_CLASSIFY, args2(i, enc(result)))));
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
  // The numeric fast path of runWithEarlyExit (js/interface/src/fast_pyramid.rs): one
  // zero-argument native call per layer, no native object and no JSON per run. A run's
  // progress lives in a small Float64Array of its own between layers (runners may be
  // async and runs may interleave) and in the scratch buffer during a call. Anything the
  // fast path does not take goes to the step API over JSON (PyramidRun), which words the
  // core's typed errors.

  const PB = 112; // the same slots as fast_pyramid.rs
  const P_STATE_LEN = 24, P_LAYER_COUNT = PB + 9, P_TOTAL_LAYERS = PB + 8, P_SPECULATIONS = PB + 20;
  const P_PREDICTED = PB + 18, P_PREDICTED_CONFIDENCE = PB + 19;
  const P_IN_PASS_RATE = PB + 24, P_IN_COVERAGE = PB + 25, P_IN_FLAKY_RATIO = PB + 26, P_IN_PREVIOUS_LAMBDA = PB + 27;
  const P_IN_LAYER = PB + 28, P_OUT_ACTION = PB + 32, P_OUT_LAYER = PB + 33, P_OUT_STAMPED = PB + 34;
  const P_OUT_ACTUAL = PB + 35, P_OUT_EXITED = PB + 36, P_OUT_EXIT_LAYER = PB + 37, P_OUT_REASON = PB + 38;
  const P_OUT_CONFIDENCE = PB + 39, P_OUT_SKIPPED = PB + 40, P_OUT_VERIFIED = PB + 41, P_OUT_MISPREDICTIONS = PB + 42;
  const P_OUT_SAVED = PB + 43, P_OUT_CORRECT = PB + 44, P_COSTS = PB + 48, P_MAX_LAYERS = 40;

  // Whether the layers are ones the fast path takes (names, costs and runners of the
  // usual types; the core still checks the values).
  function fastLayers(layers) {
    if (!Array.isArray(layers) || layers.length > P_MAX_LAYERS) return false;
    for (let i = 0; i < layers.length; i++) {
      const layer = layers[i];
      if (layer === null || typeof layer !== 'object' || typeof layer.run !== 'function' || typeof layer.name !== 'string') return false;
      const cost = layer.costMs;
      if (cost !== undefined && typeof cost !== 'number') return false;
    }
    return true;
  }

  // Writes a layer result's numbers to the input slots; false when the fast path does not
  // take it as is (the JSON check then throws the error, or passes a richer result).
  function putLayerResult(s, result) {
    if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
    let passRate, coverage, flakyRatio;
    let previous = NaN;
    let plain = true;
    const keys = Object.keys(result);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const value = result[key];
      if (value === undefined) return false;
      switch (key) {
        case 'passRate': passRate = value; break;
        case 'coverage': coverage = value; break;
        case 'flakyRatio': flakyRatio = value; break;
        case 'previousLambda':
          if (typeof value !== 'number') return false;
          previous = value;
          break;
        default: plain = false;
      }
    }
    if (typeof passRate !== 'number' || typeof coverage !== 'number' || typeof flakyRatio !== 'number') return false;
    s[P_IN_PASS_RATE] = passRate;
    s[P_IN_COVERAGE] = coverage;
    s[P_IN_FLAKY_RATIO] = flakyRatio;
    s[P_IN_PREVIOUS_LAMBDA] = previous;
    return plain ? true : null; // null: also check the other fields over JSON
  }

  function copyState(from, fromAt, to, toAt) {
    for (let i = 0; i < P_STATE_LEN; i++) to[toAt + i] = from[fromAt + i];
  }

  async function runFast(exitSlots, totalLayers, layers, signal) {
    let s = view();
    s.set(exitSlots, PB);
    s[P_TOTAL_LAYERS] = totalLayers;
    const count = layers.length;
    s[P_LAYER_COUNT] = count;
    for (let i = 0; i < count; i++) {
      const cost = layers[i].costMs;
      s[P_COSTS + 2 * i] = cost === undefined ? 0 : 1;
      s[P_COSTS + 2 * i + 1] = cost === undefined ? 0 : cost;
    }
    if (native.pyramidStart() !== 0) return undefined; // a bad cost: the JSON path words it
    s = view();
    const state = new Float64Array(P_STATE_LEN);
    copyState(s, PB, state, 0);
    let action = s[P_OUT_ACTION];
    let index = s[P_OUT_LAYER];
    const results = [];
    const executed = [];
    const verified = []; // [actual, correct] of each verified layer
    while (action !== 2) {
      const pending = layers[index].run();
      const result = signal ? await abortable(pending, signal) : await pending;
      if (signal && signal.aborted) throw signal.reason;
      s = view();
      const taken = putLayerResult(s, result);
      if (taken === null) unwrap(native.exec(OP.PR_RESULT_CHECK, args2(index, enc(result))));
      let next = -1;
      if (taken !== false) {
        copyState(state, 0, s, PB);
        s[P_IN_LAYER] = index;
        s[P_OUT_ACTION] = action;
        s[P_OUT_LAYER] = index;
        next = native.pyramidSubmit();
      }
      if (next < 0) {
        unwrap(native.exec(OP.PR_RESULT_CHECK, args2(index, enc(result))));
        throw new Error('earlyexit: internal error: the core accepted a layer result its fast check refused');
      }
      s = view();
      copyState(s, PB, state, 0);
      executed.push(index);
      if (action === 0) {
        const copy = { ...result };
        const stamped = s[P_OUT_STAMPED];
        if (stamped === stamped) copy.previousLambda = stamped; // not NaN: stamped
        results.push(copy);
      } else {
        verified.push(s[P_OUT_ACTUAL], s[P_OUT_CORRECT]);
      }
      action = next;
      index = s[P_OUT_LAYER];
    }
    copyState(state, 0, s, PB);
    native.pyramidSummary();
    s = view();
    const speculationCount = state[P_SPECULATIONS - PB];
    const predicted = LOOP.outcomes[state[P_PREDICTED - PB]];
    const confidence = state[P_PREDICTED_CONFIDENCE - PB];
    const speculations = new Array(speculationCount);
    for (let i = 0; i < speculationCount; i++) {
      speculations[i] = 2 * i < verified.length
        ? { predicted, confidence, verified: true, actual: LOOP.outcomes[verified[2 * i]], correct: verified[2 * i + 1] !== 0 }
        : { predicted, confidence, verified: false };
    }
    const saved = s[P_OUT_SAVED];
    return {
      layers: results,
      exitedEarly: s[P_OUT_EXITED] !== 0,
      exitLayer: s[P_OUT_EXIT_LAYER],
      exitReason: LOOP.exitReasons[s[P_OUT_REASON]],
      confidence: s[P_OUT_CONFIDENCE],
      speculations,
      skippedLayers: s[P_OUT_SKIPPED],
      layersExecuted: executed,
      verifiedLayers: s[P_OUT_VERIFIED],
      mispredictions: s[P_OUT_MISPREDICTIONS],
      computeSavedMs: saved === saved ? saved : null,
    };
  }

  class EarlyExitController {
    #exit;
    #config;
    #totalLayers;
    #totalLayerCount;
    #exitSlots;
    #speculator = null;

    constructor(config = undefined, totalLayers = undefined) {
      this.#exit = new CoherenceEarlyExit(config, totalLayers);
      // The validated, merged config: each run starts a PyramidRun from it.
      this.#config = enc(this.#exit.config);
      this.#totalLayers = enc(this.#exit.totalLayers);
      this.#totalLayerCount = this.#exit.totalLayers;
      this.#exitSlots = Float64Array.from(unwrap(native.exec(OP.EXIT_CONFIG_SLOTS, args1(this.#config))));
    }

    /** The controller's CoherenceEarlyExit, as the ADR's class has it. */
    get earlyExit() {
      return this.#exit;
    }

    get speculator() {
      if (this.#speculator === null) this.#speculator = new SpeculativeExecutor(this.#exit.config);
      return this.#speculator;
    }

    /**
     * Runs the layers in order until the exit decision lets the rest be skipped, then
     * verifies the first skipped ones. Each layer is `{name, run, costMs?}`; `run()` may
     * return a result or a Promise of one. A runner's error rejects this call with that
     * same error; an aborted `signal` rejects it with the signal's reason.
     */
    async runWithEarlyExit(layers, options = undefined) {
      const signal = options === undefined || options === null ? undefined : options.signal;
      if (signal && signal.aborted) throw signal.reason;
      if (fastLayers(layers)) {
        const result = await runFast(this.#exitSlots, this.#totalLayerCount, layers, signal);
        if (result !== undefined) return result;
      }
      const specs = layerSpecs(layers);
      let badRunner = -1;
      if (Array.isArray(layers)) {
        badRunner = layers.findIndex((l) => l !== null && typeof l === 'object' && typeof l.run !== 'function');
      }
      const given = badRunner < 0 ? specs : specs.slice(0, badRunner + 1);
      const engine = filled(OP.PR_START, '[' + this.#config + ',' + this.#totalLayers + ',' + enc(given) + ']');
      try {
        if (badRunner >= 0) {
          unwrap(native.exec(OP.RUNNER_ERROR, args2(badRunner, enc(layers[badRunner].run))));
        }
        for (;;) {
          const next = unwrap(engine.call(OP.PR_NEXT, '[]'));
          if (next.action === 'done') return unwrap(engine.call(OP.PR_RESULT, '[]'));
          const index = next.layer;
          const pending = layers[index].run();
          const result = signal ? await abortable(pending, signal) : await pending;
          if (signal && signal.aborted) throw signal.reason;
          unwrap(engine.call(OP.PR_SUBMIT, args2(index, enc(result))));
        }
      } finally {
        release(engine);
      }
    }

    free() {
      this.#exit.free();
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
      this.#native = filled(OP.PR_START, '[' + encConfig(config) + ',' + enc(totalLayers) + ',' + enc(layerSpecs(layers)) + ']');
    }

    static start(config, totalLayers, layers) {
      return new PyramidRun(config, totalLayers, layers);
    }

    /** `{action: 'run' | 'verify', layer}` or `{action: 'done'}`; advances nothing. */
    next() {
      return unwrap(this.#native.call(OP.PR_NEXT, '[]'));
    }

    submit(layer, result) {
      unwrap(this.#native.call(OP.PR_SUBMIT, args2(enc(layer), enc(result))));
    }

    result() {
      return unwrap(this.#native.call(OP.PR_RESULT, '[]'));
    }

    toJSON() {
      return unwrap(this.#native.call(OP.PR_TO_JSON, '[]'));
    }

    static fromJSON(snapshot) {
      const engine = filled(OP.PR_FROM_JSON, args1(enc(snapshot)));
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

  function ready() {
    const hello = unwrap(native.exec(OP.HELLO, '[]'));
    if (hello.protocol !== PROTOCOL) {
      throw new Error(`earlyexit: the native module speaks protocol ${hello.protocol}, this JS layer ${PROTOCOL}; rebuild the package`);
    }
    const loop = unwrap(native.exec(OP.LOOP_CONSTANTS, '[]'));
    if (loop.layout !== LAYOUT) {
      throw new Error(`earlyexit: the native module's slot layout is ${loop.layout}, this JS layer's ${LAYOUT}; rebuild the package`);
    }
    Object.assign(LOOP, loop);
    growScratch(0);
    const [defaults, aggressive, conservative] = unwrap(native.exec(OP.PRESETS, '[]'));
    Object.assign(DEFAULT_EXIT_CONFIG, defaults);
    Object.assign(AGGRESSIVE_EXIT_CONFIG, aggressive);
    Object.assign(CONSERVATIVE_EXIT_CONFIG, conservative);
    if (!Object.isFrozen(LIMITS)) Object.freeze(Object.assign(LIMITS, loop.limits)); // the core's size limits (docs/limits.md)
  }

  const LIMITS = {};

  const api = {
    EarlyStopping,
    IterationAnalytics,
    calculateQualitySignal,
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
  // Pyramid replay and the risk-bounded policy (batch, stateless: op codes
  // 220..224 in js/interface/src/pyramid_replay_ops.rs). Begin.
  const PYRAMID_OP = { REPLAY: 220, SHADOW: 221, CALIBRATE: 222, DECIDE: 223, UPDATE: 224 };
  const encOpt = (value) => (value === undefined || value === null ? 'null' : encode(value, 0));
  Object.assign(api, {
    replayPyramids(runs, options) {
      return unwrap(native.exec(PYRAMID_OP.REPLAY, args2(enc(runs), encOpt(options))));
    },
    shadowPyramids(runs, options) {
      return unwrap(native.exec(PYRAMID_OP.SHADOW, args2(enc(runs), encOpt(options))));
    },
    calibratePyramidPolicy(runs, risk, delta, options) {
      const base = options === undefined || options === null ? {} : options;
      const all = typeof base === 'object' && !Array.isArray(base) ? Object.assign({}, base, { risk, delta }) : base;
      return unwrap(native.exec(PYRAMID_OP.CALIBRATE, args2(enc(runs), enc(all))));
    },
    pyramidPolicyDecide(model, layers, outcomes, options) {
      return unwrap(native.exec(PYRAMID_OP.DECIDE,
        '[' + encOpt(model) + ',' + enc(layers) + ',' + enc(outcomes) + ',' + encOpt(options) + ']'));
    },
    pyramidPolicyUpdate(model, ran, options) {
      return unwrap(native.exec(PYRAMID_OP.UPDATE, '[' + encOpt(model) + ',' + enc(ran) + ',' + encOpt(options) + ']'));
    },
  });
  // Pyramid replay and the risk-bounded policy. End.
  // ------------------------------------------------------------------------
  // ------------------------------------------------------------------------
  // Loop replay and loop presets (docs/replay.md). Op codes 80/81: `loop_replay` in
  // js/interface/src/loop_replay.rs. One native call per batch of runs.
  const OP_LOOP_REPLAY = 80;
  const OP_LOOP_PRESET = 81;

  /**
   * Replays a loop policy over recorded runs.
   * @param {object[]|string} runs run objects, or JSONL text (one run per line)
   * @param {string|object} [policy] a preset name or `{preset, config, returns, analytics}`
   */
  function replayLoops(runs, policy = undefined) {
    // One encoder for every argument of every call: the same runs get the same verdict
    // whatever else the batch holds (the core reads an array of runs run by run).
    return unwrap(native.exec(OP_LOOP_REPLAY, args2(enc(runs), encConfig(policy))));
  }

  /** A named preset's config (`'seed'`, the default, or `'recommended'`), with overrides merged. */
  function loopPreset(name, overrides = undefined) {
    return unwrap(native.exec(OP_LOOP_PRESET, args2(enc(name), encConfig(overrides))));
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
  api.LOOP_PRESETS = Object.freeze(['seed', 'recommended']);
  // ------------------------------------------------------------------------ end of loop replay

  return { api, ready };
}
