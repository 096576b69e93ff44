//! Placeholder: the wasm binding is being written.
