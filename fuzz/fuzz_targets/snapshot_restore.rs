//! cargo-fuzz target `snapshot_restore`: see fuzz/harness/snapshot_restore.rs for the input and the invariants.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::snapshot_restore::run(data));
