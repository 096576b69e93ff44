//! Replays the committed corpus of the fuzz target `mcp_wire` (fuzz/corpus/mcp_wire/) and its
//! past findings (fuzz/regressions/mcp_wire/) through the same harness the target uses, on
//! the stable toolchain: every input must run without a panic or a broken invariant.

#[path = "../../fuzz/harness/mcp_wire.rs"]
mod mcp_wire;

#[path = "../../fuzz/harness/replay.rs"]
mod replay;

fn replay(kind: &str) -> usize {
    replay::replay(kind, "mcp_wire", mcp_wire::run)
}

#[test]
fn the_corpus_replays_cleanly() {
    assert!(replay("corpus") >= 8, "the committed corpus is missing");
}

#[test]
fn past_findings_stay_fixed() {
    replay("regressions");
}
