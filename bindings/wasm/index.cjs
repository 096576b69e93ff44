'use strict';
// The `earlyexit-wasm` package in Node, CommonJS entry: the shared JS layer (api.cjs,
// built from bindings/js/api/ at build time) over wasm-bindgen's `--target nodejs` glue,
// which instantiates the module synchronously, so no init() call is needed.
//
// Two wasm modules (README.md "Two modules"): the engines module, loaded here, and the replay
// module (loop and pyramid replay, the risk-bounded policy), loaded on the first replay
// call. Replay ops go to the replay module; the JS layer sees one `exec`.
const createApi = require('./api.cjs');
const engines = require('./pkg/nodejs/earlyexit_wasm.js');
// The ops the replay module answers: the generated contract's (bindings/js/build.mjs copies it here).
const { REPLAY_OPS } = require('./contract.cjs');
const isReplayOp = (op) => REPLAY_OPS[op] !== undefined;

let replay = null;
const loadReplay = () => replay ?? (replay = require('./pkg/nodejs/earlyexit_replay.js'));
// Everything the engines module exports (the JSON interface and the loop's numeric fast
// path), with `exec` routing replay ops to the replay module, and the replay module's
// `PolicyEngine` (an EarlyStopping's stop policy).
const native = Object.assign({}, engines, {
  exec(op, args) {
    if (!isReplayOp(op)) return engines.exec(op, args);
    return loadReplay().exec(op, args);
  },
  PolicyEngine: function PolicyEngine() {
    return new (loadReplay().PolicyEngine)();
  },
  // After a trap (the JS layer's guard, bindings/js/api/instance.js): a fresh instance of the module that answers
  // `op` (both glues are built with wasm-bindgen's reset function); true for the engines.
  resetInstance(op) {
    if (op !== undefined && isReplayOp(op)) {
      if (replay !== null) replay.__wbg_reset_state();
      return false;
    }
    engines.__wbg_reset_state();
    return true;
  },
});
// The host's files: IterationAnalytics saves and loads aiwg's summary files through them.
const files = { fs: require('node:fs'), path: require('node:path'), byteLength: Buffer.byteLength };
const { api, ready } = createApi(native, files);
ready();

module.exports = api;
module.exports.default = api.EarlyStopping;
// The browser build needs `await init()`; in Node the module is ready at load.
module.exports.init = async function init() {};
