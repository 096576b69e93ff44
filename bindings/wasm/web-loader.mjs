// The `earlyexit-wasm` package for browsers and bundlers (the entry web.mjs, which bindings/js/build.mjs
// writes, re-exports from here): the shared JS layer (api.mjs, built from bindings/js/api/ at build
// time) over wasm-bindgen's `--target web` glue.
//
//   import { init, EarlyStopping, replayLoops } from 'earlyexit-wasm';
//   await init();                 // fetches and instantiates the engines module once
//   await init({ replay: true }); // only where the page replays: fetches the replay module once
//
// Two wasm modules (README.md "Two modules"): the engines module (earlyexit_wasm_bg.wasm, every
// class and function but replay; under the size budget, since every page loads it) and the
// replay module (earlyexit_replay_bg.wasm: replayLoops, replayPyramids, shadowPyramids,
// calibratePyramidPolicy, pyramidPolicyDecide, pyramidPolicyUpdate, OutcomeModel, pyramid runs
// decided by a policy, BehaviorDetector, InterventionSystem). `init()` loads the
// engines only; a page that never replays never downloads the replay module. The JS layer's
// calls are synchronous, so a replay call cannot fetch the module itself: before
// `init({ replay: true })` has resolved it throws an Error with code `replay_not_loaded`.
//
// The replay module's wasm-bindgen glue (earlyexit_replay.js, 2 KB gzipped) is imported
// dynamically too, so a page that never replays fetches neither file (bundlers split it off).
//
// The forms of init (calling again is cheap: what is loaded stays loaded; a failed load is retried):
//   init()                          the engines, from earlyexit_wasm_bg.wasm next to the glue
//   init(input)                     the engines from `input` (what wasm-bindgen's init takes:
//                                   a URL or string, a Response or a promise of one, bytes,
//                                   a WebAssembly.Module)
//   init(input, replayInput)        the engines and the replay module (the older form: passing
//                                   a replayInput means "load replay too")
//   init({ module?, replay? })      the engines (from `module`), and the replay module when
//                                   `replay` is `true` (its default place) or its source
// A failed engines load rejects with an Error (code `engines_load_failed`, field `module`: the
// file, where it was looked for and the cause in its message, the cause as `.cause`; a later
// init() tries again). A failed replay load rejects that call with an Error (code
// `replay_load_failed`, the file and the cause in its message, the cause as `.cause`); the
// engines keep working, and a later `init({ replay: true })` tries again. The preset constants are filled in once the engines load.
import initEngines, * as wasm from './pkg/web/earlyexit_wasm.js';
import createApi from './api.mjs';
// The ops the replay module answers and the public function behind each, and the texts and
// codes of the loading errors: the generated contract's (bindings/js/build.mjs copies it here;
// the messages are worded in bindings/js/interface/src/host_messages.rs: no core has loaded
// when they are thrown).
import { HOST_CODES, MESSAGES, OP, REPLAY_OPS } from './contract.mjs';

const isReplayOp = (op) => REPLAY_OPS[op] !== undefined;
const notReady = () => new Error(MESSAGES.NOT_INITIALIZED);
// Until init() has run, every native call fails with a clear message.
const native = {
  NativeEngine: class {
    constructor() {
      throw notReady();
    }
  },
  exec() {
    throw notReady();
  },
};
// What the JS layer calls: the JSON interface and the loop's numeric fast path.
const NATIVE_EXPORTS = ['NativeEngine', 'exec', 'fastFold', 'fastDecide', 'fastReason', 'fastDiminishingReason',
  'scratchReserve', 'wasmMemory', 'pyramidStart', 'pyramidSubmit', 'pyramidSummary'];
const { api, ready } = createApi(native);

const REPLAY_FILE = 'earlyexit_replay_bg.wasm';
const LOAD_REPLAY = 'await init({ replay: true })';

// A loading or ordering error: not about a value the caller passed, so a plain Error (not a
// TypeError/RangeError), with the package's `.code` and `.field`.
function loadError(message, code, field, cause) {
  const error = cause === undefined ? new Error(message) : new Error(message, { cause });
  error.code = code;
  error.field = field;
  return error;
}

const describe = (cause) => String(cause?.message ?? cause);

let engines = null; // the engines' load, shared by every init() call; null before and after a failure
let replay = null; // the replay module's load, likewise
let replayExec = null; // the replay module's exec once it is loaded
let replayReset = null; // and its reset (a fresh instance after a trap)
let replayPolicyEngine = null; // and its class PolicyEngine (an EarlyStopping's stop policy)
let replayFailure = null; // why the last replay load failed (for the not-loaded message)

function replayNotLoaded(op) {
  const name = REPLAY_OPS[op] ?? 'replay';
  const why = replayFailure === null ? MESSAGES.REPLAY_NEVER_LOADED : MESSAGES.REPLAY_FAILED_EARLIER(describe(replayFailure));
  return loadError(MESSAGES.REPLAY_NOT_LOADED(name, REPLAY_FILE, why, LOAD_REPLAY), HOST_CODES.REPLAY_NOT_LOADED, name);
}

function wasmInit(load, source) {
  return load(source === undefined ? undefined : { module_or_path: source });
}

// Without a source, wasm-bindgen's init fetches the engines module next to the script that holds
// its glue: in a bundle, next to the bundle, where a bundler that does not emit the file (esbuild,
// which does not follow `new URL(..., import.meta.url)`) left nothing.
const ENGINES_FILE = 'earlyexit_wasm_bg.wasm';

function loadEngines(source) {
  if (engines === null) {
    engines = wasmInit(initEngines, source).then(() => {
      for (const name of NATIVE_EXPORTS) native[name] = wasm[name];
      native.exec = (op, args) => {
        if (!isReplayOp(op)) return wasm.exec(op, args);
        if (replayExec === null) throw replayNotLoaded(op);
        return replayExec(op, args);
      };
      // After a trap (the JS layer's guard, bindings/js/api/instance.js): a fresh instance of the module that
      // answers `op`, from the module already compiled; true for the engines.
      native.PolicyEngine = function PolicyEngine() {
        if (replayPolicyEngine === null) throw replayNotLoaded(OP.LOOP_POLICY_OPEN);
        return new replayPolicyEngine();
      };
      native.resetInstance = (op) => {
        if (op !== undefined && isReplayOp(op)) {
          if (replayReset !== null) replayReset();
          return false;
        }
        wasm.__wbg_reset_state();
        return true;
      };
      ready();
    }, (cause) => {
      const where = source === undefined ? MESSAGES.NEXT_TO_SCRIPT : typeof source === 'string' || source instanceof URL ? MESSAGES.FROM_SOURCE(source) : '';
      throw loadError(MESSAGES.ENGINES_LOAD_FAILED(ENGINES_FILE, where, describe(cause)), HOST_CODES.ENGINES_LOAD_FAILED, 'module', cause);
    });
    engines.catch(() => {
      engines = null; // let a later call retry (a failed fetch, say)
    });
  }
  return engines;
}

function loadReplay(source) {
  if (replayExec !== null) return Promise.resolve();
  if (replay === null) {
    const from = typeof source === 'string' || source instanceof URL ? MESSAGES.FROM_SOURCE(source) : '';
    replay = import('./pkg/web/earlyexit_replay.js')
      .then((glue) => wasmInit(glue.default, source).then(() => glue))
      .then(
        (glue) => {
          replayExec = glue.exec;
          replayReset = glue.__wbg_reset_state;
          replayPolicyEngine = glue.PolicyEngine;
          replayFailure = null;
        },
        (cause) => {
          replay = null; // a later init({ replay: true }) tries again
          replayFailure = cause;
          throw loadError(MESSAGES.REPLAY_LOAD_FAILED(REPLAY_FILE, from, describe(cause), LOAD_REPLAY), HOST_CODES.REPLAY_LOAD_FAILED, 'replay', cause);
        },
      );
  }
  return replay;
}

const OPTIONS = ['module', 'replay'];
const isOptions = (x) => x !== null && typeof x === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(x));

// What to load: { engines: source or undefined, replay: false | { source } }.
function plan(args) {
  const [first, replayInput] = args;
  if (replayInput !== undefined) return { engines: first, replay: { source: replayInput } };
  // No wasm source is a plain object (wasm-bindgen's own `{ module_or_path }` form was never
  // accepted here), so a plain object is the options form.
  if (!isOptions(first)) return { engines: first, replay: false };
  for (const key of Object.keys(first)) {
    if (!OPTIONS.includes(key)) {
      const error = new TypeError(MESSAGES.INIT_UNKNOWN_OPTION(key, OPTIONS.join(', ')));
      Object.assign(error, { code: HOST_CODES.INIT_UNKNOWN_OPTION, field: key });
      throw error;
    }
  }
  const wanted = first.replay;
  const replayPlan = wanted === undefined || wanted === null || wanted === false ? false : { source: wanted === true ? undefined : wanted };
  return { engines: first.module, replay: replayPlan };
}

export function init(...args) {
  let what;
  try {
    what = plan(args);
  } catch (error) {
    return Promise.reject(error);
  }
  const enginesLoaded = loadEngines(what.engines);
  if (what.replay === false) return enginesLoaded;
  return Promise.all([enginesLoaded, loadReplay(what.replay.source)]).then(() => undefined);
}

// web.mjs (written by bindings/js/build.mjs) re-exports the API's names from here.
export { api };
