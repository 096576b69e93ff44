'use strict';
// The op codes the replay module answers (bindings/js/interface/src/loop_replay.rs `exec_replay`):
// loop replay (80), pyramid replay and policy (220..224) and IterationAnalytics's report,
// chart, formatDuration, load, field assignment, file names and record checks (230..237).
// Every other op goes to the engines module. tests/node/wasm.test.mjs checks each module
// answers exactly its ops.
function isReplayOp(op) {
  return op === 80 || (op >= 220 && op <= 224) || (op >= 230 && op <= 237);
}
module.exports = { isReplayOp };
