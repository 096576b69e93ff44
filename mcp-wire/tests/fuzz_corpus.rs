//! Replays the committed corpus of the fuzz target `mcp_wire` (fuzz/corpus/mcp_wire/) and its
//! past findings (fuzz/regressions/mcp_wire/) through the same harness the target uses, on
//! the stable toolchain: every input must run without a panic or a broken invariant.

#[path = "../../fuzz/harness/mcp_wire.rs"]
mod mcp_wire;

use std::fs;
use std::path::Path;

fn replay(kind: &str) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz").join(kind).join("mcp_wire");
    let mut inputs: Vec<_> = match fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    inputs.sort();
    for path in &inputs {
        let Ok(data) = fs::read(path) else { continue };
        let outcome = std::panic::catch_unwind(|| mcp_wire::run(&data));
        assert!(outcome.is_ok(), "{} broke an invariant (see the panic above)", path.display());
    }
    println!("fuzz {kind}: mcp_wire: replayed {} files", inputs.len());
    inputs.len()
}

#[test]
fn the_corpus_replays_cleanly() {
    assert!(replay("corpus") >= 8, "the committed corpus is missing");
}

#[test]
fn past_findings_stay_fixed() {
    replay("regressions");
}
