//! cargo-fuzz target `pyramid_run`: see fuzz/harness/pyramid_run.rs for the input and the invariants.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::pyramid_run::run(data));
