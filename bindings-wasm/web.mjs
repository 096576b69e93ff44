// The `earlyexit-wasm` package for browsers and bundlers: the shared JS layer (api.mjs,
// copied from js/api.js at build time) over wasm-bindgen's `--target web` glue.
//
//   import { init, EarlyStopping } from 'earlyexit-wasm';
//   await init();            // fetches and instantiates earlyexit_wasm_bg.wasm once
//
// init(input?) takes what wasm-bindgen's init takes (a URL, a Response, bytes or a
// WebAssembly.Module); without it the .wasm next to pkg/web/earlyexit_wasm.js is fetched.
// The preset constants are filled in by init().
import initWasm, * as wasm from './pkg/web/earlyexit_wasm.js';
import createApi from './api.mjs';

const notReady = () => new Error("earlyexit-wasm: call and await init() before using the API (import { init } from 'earlyexit-wasm')");
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
let started = null;

export function init(input) {
  if (started === null) {
    started = initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => {
      for (const name of NATIVE_EXPORTS) native[name] = wasm[name];
      ready();
    });
    started.catch(() => {
      started = null; // let a later call retry (a failed fetch, say)
    });
  }
  return started;
}

export const {
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
  // pyramid replay and the risk-bounded policy
  replayPyramids, shadowPyramids, calibratePyramidPolicy, pyramidPolicyDecide, pyramidPolicyUpdate,
  replayLoops,
  loopPreset,
  LOOP_PRESETS,
} = api;
export default api.EarlyStopping;
