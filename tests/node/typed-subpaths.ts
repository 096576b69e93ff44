// The subpath entries (`<package>/early-stopping`, `<package>/iteration-analytics`) as aiwg's
// files import them, type-checked as an ES module with typed-usage.ts: each default export
// is the class, and the named export is the same class. Then the bundler recipe's init().
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

// aiwg's behaviour modules: the class as the default, the constant by name.
import BehaviorDetector, { THRESHOLDS } from 'earlyexit/behavior-detector';
import InterventionSystem, { INTERVENTION_LEVELS, InterventionSystem as NamedSystem } from 'earlyexit/intervention-system';
import WasmBehaviorDetector from 'earlyexit-wasm/behavior-detector';
import type { Detection, Intervention, InterventionLevel } from 'earlyexit';

const found: Detection[] = new BehaviorDetector({ thresholds: { stuck: { sameErrorCount: THRESHOLDS.stuck.sameErrorCount } } }).detect([]);
const overseer: NamedSystem = new InterventionSystem({ onPause: (i: Intervention) => void i.reason });
const level: InterventionLevel = INTERVENTION_LEVELS.WARN;
void [found, overseer, level, new WasmBehaviorDetector().getThresholds().regression.coverageDropPercent];

// The bundler recipe (bindings/wasm/README.md "Bundlers"): the module's URL to init(), and the
// loading error's code when a bundler left the .wasm file out.
import { init as initWasm, type EarlyExitLoadError, type LoadErrorCode } from 'earlyexit-wasm';

export async function loadBundled(enginesPath: string, replayPath: string, base: string): Promise<LoadErrorCode | null> {
  try {
    await initWasm({ module: new URL(enginesPath, base), replay: new URL(replayPath, base) });
    return null;
  } catch (error) {
    const code: LoadErrorCode = (error as EarlyExitLoadError).code; // 'engines_load_failed', field 'module'
    return code === 'engines_load_failed' ? code : null;
  }
}
