//! WebAssembly binding of earlyexit (wasm-bindgen).
//!
//! Exports the shared native interface (`js/interface`, crate `earlyexit-js`) unchanged:
//! the class `NativeEngine` with `call(op, args)` and the function `exec(op, args)`, one
//! string in and one string out, exactly as the napi addon does. The core returns errors
//! and never panics, so no call can poison the instance (built with `panic = "abort"`).
//! The public API is the shared JS layer (`js/api.js`).
//!
//! Built twice (scripts/build-wasm.sh): by default the engines module (everything but
//! replay, within the package's size budget); with the feature `replay-module` the replay
//! module, which exports only `exec` for the replay ops (80 and 220..224). The package's
//! entry files route those ops to it; see README.md.

#[cfg(feature = "replay-module")]
use wasm_bindgen::prelude::wasm_bindgen;

#[cfg(target_arch = "wasm32")]
mod allocator;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: allocator::SizeClassAllocator = allocator::SizeClassAllocator::new();

#[cfg(not(feature = "replay-module"))]
pub use engines::*;

#[cfg(not(feature = "replay-module"))]
mod engines {
    use wasm_bindgen::prelude::wasm_bindgen;

    /// The native object behind each stateful JS class. Freed by the JS wrapper's `free()`
    /// (or its `Symbol.dispose`), else by wasm-bindgen's FinalizationRegistry.
    #[wasm_bindgen]
    pub struct NativeEngine {
        inner: earlyexit_js::Engine,
    }

    #[wasm_bindgen]
    impl NativeEngine {
        /// An empty engine; the first op fills it.
        #[wasm_bindgen(constructor)]
        #[allow(clippy::new_without_default)]
        pub fn new() -> NativeEngine {
            NativeEngine { inner: earlyexit_js::Engine::new() }
        }

        /// Runs op `op` with the arguments in the wire format; answers in the wire format.
        pub fn call(&mut self, op: u32, args: &str) -> String {
            self.inner.call(op, args)
        }
    }

    /// Runs a stateless op.
    #[wasm_bindgen]
    pub fn exec(op: u32, args: &str) -> String {
        earlyexit_js::exec(op, args)
    }
}

/// Runs a replay op (the replay module's only export).
#[cfg(feature = "replay-module")]
#[wasm_bindgen]
pub fn exec(op: u32, args: &str) -> String {
    earlyexit_js::loop_replay::exec_replay(op, args)
}
