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
  const PROTOCOL = 1;
  const OP = {
    HELLO: 0, SIGNAL: 1, PRESETS: 2, ANALYTICS_SOURCE_ERROR: 3, RUNNER_ERROR: 4, ISO_TIMESTAMP: 5,
    ES_NEW: 10, ES_RECORD: 11, ES_DECIDE: 12, ES_DECIDE_WITH: 13, ES_SUMMARY: 14, ES_SUMMARY_WITH: 15,
    ES_REASON: 16, ES_DETAILS: 17, ES_CONFIGURE: 18, ES_CONFIG: 19, ES_HISTORY: 20, ES_RESET: 21,
    ES_TO_JSON: 22, ES_FROM_JSON: 23,
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
  // Engine 1: the seed's EarlyStopping

  class EarlyStopping {
    #native;
    #source = null;

    /**
     * @param {object} [config] partial config merged over the seed's defaults
     * @param {{detectDiminishingReturns(): object}} [iterationAnalytics]
     */
    constructor(config = undefined, iterationAnalytics = null) {
      if (config === RESTORE) {
        this.#native = FREED;
        return;
      }
      const engine = filled(OP.ES_NEW, args1(encConfig(config)));
      try {
        this.#source = sourceOf(iterationAnalytics);
      } catch (error) {
        release(engine);
        throw error;
      }
      this.#native = engine;
    }

    recordIterationResult(iteration, result) {
      unwrap(this.#native.call(OP.ES_RECORD, '[' + enc(iteration) + ',' + enc(result) + ',' + Date.now() + ']'));
    }

    // The iteration argument is accepted and ignored, as in the seed.
    shouldStop(iteration) {
      let answer = this.#native.call(OP.ES_DECIDE, this.#source === null ? '[false]' : '[true]');
      if (answer === '?') {
        answer = this.#native.call(OP.ES_DECIDE_WITH, args1(enc(this.#source.detectDiminishingReturns())));
      }
      return unwrap(answer);
    }

    getStoppingReason() {
      return unwrap(this.#native.call(OP.ES_REASON, '[]'));
    }

    getStoppingDetails() {
      return unwrap(this.#native.call(OP.ES_DETAILS, '[]'));
    }

    configure(options) {
      unwrap(this.#native.call(OP.ES_CONFIGURE, args1(encConfig(options))));
    }

    getConfig() {
      return unwrap(this.#native.call(OP.ES_CONFIG, '[]'));
    }

    getIterationHistory() {
      return unwrap(this.#native.call(OP.ES_HISTORY, '[]'));
    }

    reset() {
      unwrap(this.#native.call(OP.ES_RESET, '[]'));
    }

    generateSummary() {
      let answer = this.#native.call(OP.ES_SUMMARY, this.#source === null ? '[false]' : '[true]');
      if (answer === '?') {
        answer = this.#native.call(OP.ES_SUMMARY_WITH, args1(enc(this.#source.detectDiminishingReturns())));
      }
      return unwrap(answer);
    }

    /** The portable snapshot (the same JSON document in Python and wasm). */
    toJSON() {
      return unwrap(this.#native.call(OP.ES_TO_JSON, '[]'));
    }

    /** Restores a snapshot (object or JSON text); the analytics source is not part of it. */
    static fromJSON(snapshot, iterationAnalytics = null) {
      const engine = filled(OP.ES_FROM_JSON, args1(enc(snapshot)));
      const restored = new EarlyStopping(RESTORE);
      try {
        restored.#source = sourceOf(iterationAnalytics);
      } catch (error) {
        release(engine);
        throw error;
      }
      restored.#native = engine;
      return restored;
    }

    /** Releases the native memory now (wasm); the object cannot be used afterwards. */
    free() {
      release(this.#native);
      this.#native = FREED;
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

  class EarlyExitController {
    #exit;
    #config;
    #totalLayers;
    #speculator = null;

    constructor(config = undefined, totalLayers = undefined) {
      this.#exit = new CoherenceEarlyExit(config, totalLayers);
      // The validated, merged config: each run starts a PyramidRun from it.
      this.#config = enc(this.#exit.config);
      this.#totalLayers = enc(this.#exit.totalLayers);
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
    const [defaults, aggressive, conservative] = unwrap(native.exec(OP.PRESETS, '[]'));
    Object.assign(DEFAULT_EXIT_CONFIG, defaults);
    Object.assign(AGGRESSIVE_EXIT_CONFIG, aggressive);
    Object.assign(CONSERVATIVE_EXIT_CONFIG, conservative);
  }

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
    const lines = linesOf(runs);
    const args = lines === null ? args2(enc(runs), encConfig(policy)) : '[' + JSON.stringify(lines) + ',' + encConfig(policy) + ',true]';
    return unwrap(native.exec(OP_LOOP_REPLAY, args));
  }

  // An array of runs goes over as one run per line: the engine's JSON.stringify is several
  // times faster than the general encoder, and the core reads plain lines without building a
  // value tree. Only what JSON cannot hold (NaN, the infinities, functions, undefined) needs
  // the general encoder's tags; then, and for anything not an array, this answers null.
  function linesOf(runs) {
    if (!Array.isArray(runs)) return null;
    let plain = true;
    const replacer = function replacer(key, value) {
      switch (typeof value) {
        case 'number':
          if (value - value !== 0) plain = false;
          return value;
        case 'function':
        case 'symbol':
        case 'bigint':
        case 'undefined':
          if (typeof value !== 'undefined' || Array.isArray(this) || key === '') plain = false;
          return typeof value === 'undefined' ? value : null;
        default:
          return value;
      }
    };
    let text = '';
    for (let i = 0; i < runs.length && plain; i++) {
      const line = JSON.stringify(runs[i], replacer);
      if (line === undefined) plain = false;
      else text += (i > 0 ? '\n' : '') + line;
    }
    return plain ? text : null;
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
