'use strict';
// The op codes the replay module answers (js/interface/src/loop_replay.rs `exec_replay`):
// loop replay (80) and pyramid replay and policy (220..224). Every other op goes to the
// engines module. tests/node/wasm.test.mjs checks each module answers exactly its ops.
function isReplayOp(op) {
  return op === 80 || (op >= 220 && op <= 224);
}
module.exports = { isReplayOp };
