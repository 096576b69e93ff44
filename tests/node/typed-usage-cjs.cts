// The same packages through `require` (CommonJS), type-checked with typed-usage.ts.
import earlyexit = require('earlyexit');
import earlyexitWasm = require('earlyexit-wasm');

const es = new earlyexit.EarlyStopping({ highConfidenceThreshold: 0.9 });
const Default: typeof earlyexit.EarlyStopping = earlyexit.default;
const decision: earlyexit.StoppingDecision = es.shouldStop();
const wasmDecision: earlyexitWasm.StoppingDecision = new earlyexitWasm.EarlyStopping().shouldStop();
void [Default, decision.stop, wasmDecision.trigger, earlyexitWasm.DEFAULT_EXIT_CONFIG.exitLayer];
