//! Replaying a fuzz target's committed inputs on the stable toolchain: the corpus the fuzzer
//! kept (fuzz/corpus/<target>/) and its past findings (fuzz/regressions/<target>/). One copy,
//! included with `#[path]` by each crate's `tests/fuzz_corpus.rs` (the core's, the JUnit
//! reader's and the MCP message reader's), each linking only what its targets need.

#![allow(dead_code, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

/// Runs every file of `fuzz/<kind>/<target>/` (`kind`: `corpus` or `regressions`) through
/// `run`, sorted by name, and asserts that none panics (a panic is a broken invariant; its
/// message is printed above). Returns how many files ran.
pub fn replay(kind: &str, target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz").join(kind).join(target);
    let mut inputs = files(&dir);
    // A fuzzer running on the same corpus meanwhile may delete files it has reduced.
    inputs.retain(|path| path.exists());
    for path in &inputs {
        let Ok(data) = fs::read(path) else { continue };
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{target}: {} broke an invariant (see the panic above)", path.display());
    }
    println!("fuzz {kind}: {target}: replayed {} files", inputs.len());
    inputs.len()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

/// `len` deterministic bytes (xorshift64 from `seed`), so depth checks need no corpus.
pub fn pseudo_random(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}
