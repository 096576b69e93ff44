// The subpath entries through `require` (CommonJS), type-checked with typed-usage.ts: the
// module's `default` and its named export are the class.
import earlyStopping = require('earlyexit/early-stopping');
import iterationAnalytics = require('earlyexit/iteration-analytics');
import wasmEarlyStopping = require('earlyexit-wasm/early-stopping');

const stopper = new earlyStopping.default({ minQualityThreshold: 60 }, new iterationAnalytics.default());
const Named: typeof earlyStopping.default = earlyStopping.EarlyStopping;
const Wasm: typeof wasmEarlyStopping.EarlyStopping = wasmEarlyStopping.default;
void [stopper.shouldStop().trigger, Named, Wasm, iterationAnalytics.IterationAnalytics];
