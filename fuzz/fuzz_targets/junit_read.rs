//! cargo-fuzz target `junit_read`: see fuzz/harness/junit_read.rs for the input and the invariants.
#![no_main]

#[path = "../harness/junit_read.rs"]
mod junit_read;

libfuzzer_sys::fuzz_target!(|data: &[u8]| junit_read::run(data));
