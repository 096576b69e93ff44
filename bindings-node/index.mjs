// The `earlyexit` package, ES module entry: the same objects as the CommonJS entry
// (one copy of each class, whichever way the package is loaded).
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
