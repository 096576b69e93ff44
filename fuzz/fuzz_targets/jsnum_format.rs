//! cargo-fuzz target `jsnum_format`: see fuzz/harness/jsnum_format.rs for the input and the invariants.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::jsnum_format::run(data));
