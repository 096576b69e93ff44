// The op codes the replay module answers (bindings/js/interface/src/loop_replay.rs `exec_replay`):
// loop replay (80), pyramid replay and policy (220..224) and IterationAnalytics's occasional
// ops (230..237). Every other op goes to the engines module. Same ops as replay-ops.cjs (the
// browser build cannot require it).

// The public function behind each replay op, which the browser's not-loaded error names.
export const REPLAY_FUNCTIONS = {
  80: 'replayLoops',
  220: 'replayPyramids',
  221: 'shadowPyramids',
  222: 'calibratePyramidPolicy',
  223: 'pyramidPolicyDecide',
  224: 'pyramidPolicyUpdate',
  230: 'IterationAnalytics.generateReport',
  231: 'IterationAnalytics.generateQualityChart',
  232: 'IterationAnalytics.formatDuration',
  233: 'IterationAnalytics.fromSummary',
  234: "IterationAnalytics's field setters",
  235: 'IterationAnalytics.saveAnalytics',
  236: 'IterationAnalytics.load',
  237: "IterationAnalytics's field setters",
};

export function isReplayOp(op) {
  return REPLAY_FUNCTIONS[op] !== undefined;
}
