//! cargo-fuzz target `mcp_wire`: see fuzz/harness/mcp_wire.rs for the input and the invariants.
#![no_main]

#[path = "../harness/mcp_wire.rs"]
mod mcp_wire;

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_wire::run(data));
