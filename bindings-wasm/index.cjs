'use strict';
// The `earlyexit-wasm` package in Node, CommonJS entry: the shared JS layer (api.cjs,
// copied from js/api.js at build time) over wasm-bindgen's `--target nodejs` glue,
// which instantiates the module synchronously, so no init() call is needed.
const createApi = require('./api.cjs');
const { api, ready } = createApi(require('./pkg/nodejs/earlyexit_wasm.js'));
ready();

module.exports = api;
module.exports.default = api.EarlyStopping;
// The browser build needs `await init()`; in Node the module is ready at load.
module.exports.init = async function init() {};
