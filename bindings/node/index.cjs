'use strict';
// The `earlyexit` package, CommonJS entry: the shared JS layer (api.cjs, copied from
// bindings/js/api/ at build time) over the napi addon (native.cjs is napi-rs's platform loader).
const createApi = require('./api.cjs');
// The host's files: IterationAnalytics saves and loads aiwg's summary files through them.
const files = { fs: require('node:fs'), path: require('node:path'), byteLength: Buffer.byteLength };
const { api, ready } = createApi(require('./native.cjs'), files);
ready();

module.exports = api;
module.exports.default = api.EarlyStopping;
// Present in both packages so isomorphic code can always `await init()`; nothing to do here.
module.exports.init = async function init() {};
