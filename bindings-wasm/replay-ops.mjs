// The op codes the replay module answers (js/interface/src/loop_replay.rs `exec_replay`):
// loop replay (80) and pyramid replay and policy (220..224). Every other op goes to the
// engines module. Same ops as replay-ops.cjs (the browser build cannot require it).

// The public function behind each replay op, which the browser's not-loaded error names.
export const REPLAY_FUNCTIONS = {
  80: 'replayLoops',
  220: 'replayPyramids',
  221: 'shadowPyramids',
  222: 'calibratePyramidPolicy',
  223: 'pyramidPolicyDecide',
  224: 'pyramidPolicyUpdate',
};

export function isReplayOp(op) {
  return REPLAY_FUNCTIONS[op] !== undefined;
}
