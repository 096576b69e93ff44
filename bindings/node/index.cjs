'use strict';
// The `earlyexit` package, CommonJS entry: the shared JS layer (api.cjs, copied from
// bindings/js/api/ at build time) over the napi addon (native.cjs is napi-rs's platform loader,
// which finds the addon in this folder or in the platform's package, earlyexit-<platform>).
//
// On a platform with no addon (or one that fails to load), the package is earlyexit-wasm, a
// dependency with the same API, after a one-line notice on stderr. EARLYEXIT_NO_FALLBACK=1
// makes that case an error instead.
let native;
try {
  native = require('./native.cjs');
} catch (error) {
  if (process.env.EARLYEXIT_NO_FALLBACK === '1') throw error;
  const platform = `${process.platform}-${process.arch}`;
  // napi-rs's error chains one cause per place it looked, the last first: name the last
  // native one (the platform package, or why its addon would not load), not the WASI ones.
  const tried = [];
  for (let e = error && error.cause; e; e = e.cause) tried.unshift(String(e.message).split('\n')[0]);
  const why = tried.filter((message) => !/wasi/i.test(message)).pop() || String(error && error.message).split('\n')[0];
  console.warn(`earlyexit: no native addon for ${platform} (${why}); using earlyexit-wasm, the same API in WebAssembly (EARLYEXIT_NO_FALLBACK=1 makes this an error)`);
  module.exports = require('earlyexit-wasm');
  return;
}
const createApi = require('./api.cjs');
// The host's files: IterationAnalytics saves and loads aiwg's summary files through them.
const files = { fs: require('node:fs'), path: require('node:path'), byteLength: Buffer.byteLength };
const { api, ready } = createApi(native, files);
ready();

module.exports = api;
module.exports.default = api.EarlyStopping;
// Present in both packages so isomorphic code can always `await init()`; nothing to do here.
module.exports.init = async function init() {};
