// The subpath entries (`<package>/early-stopping`, `<package>/iteration-analytics`) as aiwg's
// files import them, type-checked as an ES module with typed-usage.ts: each default export
// is the class, and the named export is the same class.
import EarlyStopping, { EarlyStopping as Named } from 'earlyexit/early-stopping';
import IterationAnalytics, { IterationAnalytics as NamedAnalytics } from 'earlyexit/iteration-analytics';
import WasmEarlyStopping from 'earlyexit-wasm/early-stopping';
import WasmIterationAnalytics from 'earlyexit-wasm/iteration-analytics';
import { EarlyStopping as Main, type StoppingDecision } from 'earlyexit';

const stopper: Main = new EarlyStopping({ highConfidenceThreshold: 0.9 }, new IterationAnalytics());
const decision: StoppingDecision = stopper.shouldStop(1);
const same: typeof Named = EarlyStopping;
const sameAnalytics: typeof NamedAnalytics = IterationAnalytics;
const wasmDecision: StoppingDecision = new WasmEarlyStopping(undefined, new WasmIterationAnalytics()).shouldStop();
void [decision.stop, same, sameAnalytics, wasmDecision.trigger];
