// The `earlyexit-wasm` package in Node, ES module entry: the same objects as the
// CommonJS entry (one wasm instance, whichever way the package is loaded).
import earlyexit from './index.cjs';

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
  init,
} = earlyexit;
export default earlyexit.EarlyStopping;
