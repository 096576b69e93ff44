// The op codes the replay module answers (js/interface/src/loop_replay.rs `exec_replay`):
// loop replay (80) and pyramid replay and policy (220..224). Every other op goes to the
// engines module. Same as replay-ops.cjs (the browser build cannot require it).
export function isReplayOp(op) {
  return op === 80 || (op >= 220 && op <= 224);
}
