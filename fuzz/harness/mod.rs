//! The fuzz harness: one function per target, taking raw bytes, shared by the cargo-fuzz
//! targets (fuzz/fuzz_targets/) and by the stable test that replays the committed corpora
//! (core/tests/fuzz_corpus.rs includes this directory with `#[path]`).
//!
//! Every function turns the bytes into a structured input with `arbitrary`, drives the
//! core with it and asserts the target's invariants; a panic is a finding.

#![allow(dead_code, clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod gen;
pub mod jsnum_format;
pub mod json_read;
pub mod loop_ops;
pub mod pyramid_run;
pub mod ryu_oracle;
pub mod snapshot_restore;

/// A target: its name (the corpus directory's) and its entry.
pub type Target = (&'static str, fn(&[u8]));

/// The targets by name.
pub const TARGETS: &[Target] = &[
    ("loop_ops", loop_ops::run),
    ("pyramid_run", pyramid_run::run),
    ("snapshot_restore", snapshot_restore::run),
    ("jsnum_format", jsnum_format::run),
    ("json_read", json_read::run),
];
