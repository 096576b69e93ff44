//! The numeric fast path of the loop engine under earlyexit's shared JS layer (`bindings/js/api/`):
//! zero-argument calls over a scratch buffer of f64 slots, so a JS engine needs no native
//! object and no JSON per call. Both JS bindings export it through `earlyexit-js` (which
//! also holds the test pyramid's fast path, called a few times per run rather than twice
//! per iteration, so it stays optimized for size).
//!
//! A crate of its own because it runs on every call: the wasm build optimizes it (and the
//! core functions it inlines) for speed and everything else for size; see the
//! `wasm-release` profile in the workspace's Cargo.toml and docs/internals/performance-notes.md.

pub mod fast;
pub mod keys;
pub mod slots;
