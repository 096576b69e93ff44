//! cargo-fuzz target `json_read`: see fuzz/harness/json_read.rs for the input and the invariants.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::json_read::run(data));
