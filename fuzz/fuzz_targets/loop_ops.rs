//! cargo-fuzz target `loop_ops`: see fuzz/harness/loop_ops.rs for the input and the invariants.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::loop_ops::run(data));
