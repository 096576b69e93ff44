// The `earlyexit-wasm` package for browsers and bundlers (the entry web.mjs, which js/build.mjs
// writes, re-exports from here): the shared JS layer (api.mjs, copied from js/api.js at build
// time) over wasm-bindgen's `--target web` glue.
//
//   import { init, EarlyStopping } from 'earlyexit-wasm';
//   await init();            // fetches and instantiates earlyexit_wasm_bg.wasm once
//
// init(input?, replayInput?) take what wasm-bindgen's init takes (a URL, a Response, bytes or
// a WebAssembly.Module) for the engines and the replay module; without them the .wasm files
// next to pkg/web/earlyexit_wasm.js and pkg/web/earlyexit_replay.js are fetched.
// The preset constants are filled in by init().
//
// Two wasm modules (README.md "Size"): the engines module and the replay module (loop and
// pyramid replay, the risk-bounded policy); init() instantiates both, in parallel, and
// replay ops go to the replay module. init(input, replayInput) locates each .wasm.
import initWasm, * as wasm from './pkg/web/earlyexit_wasm.js';
import initReplay, * as replayWasm from './pkg/web/earlyexit_replay.js';
import createApi from './api.mjs';
import { isReplayOp } from './replay-ops.mjs';

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

export function init(input, replayInput) {
  if (started === null) {
    const options = (x) => (x === undefined ? undefined : { module_or_path: x });
    // The engines work without the replay module: if it cannot be loaded, replay calls
    // throw a clear error naming the cause instead of init() failing.
    const replay = initReplay(options(replayInput)).then(
      () => replayWasm.exec,
      (cause) => () => {
        throw new Error(`earlyexit-wasm: the replay module (earlyexit_replay_bg.wasm) did not load: ${cause?.message ?? cause}; pass it as init(input, replayInput)`);
      },
    );
    started = Promise.all([initWasm(options(input)), replay]).then(([, replayExec]) => {
      for (const name of NATIVE_EXPORTS) native[name] = wasm[name];
      native.exec = (op, args) => (isReplayOp(op) ? replayExec(op, args) : wasm.exec(op, args));
      ready();
    });
    started.catch(() => {
      started = null; // let a later call retry (a failed fetch, say)
    });
  }
  return started;
}

// web.mjs (written by js/build.mjs) re-exports the API's names from here.
export { api };
