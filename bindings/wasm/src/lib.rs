//! WebAssembly binding of earlyexit (wasm-bindgen).
//!
//! Exports the shared native interface (`bindings/js/interface`, crate `earlyexit-js`) unchanged:
//! the class `NativeEngine` with `call(op, args)` and the function `exec(op, args)`, one
//! string in and one string out, exactly as the napi addon does. The core returns errors
//! and never panics, so no call can poison the instance (built with `panic = "abort"`).
//! The public API is the shared JS layer (`bindings/js/api/`).
//!
//! Built twice (scripts/build-wasm.sh): by default the engines module (everything but
//! replay, within the package's size budget); with the feature `replay-module` the replay
//! module, which exports `exec` for the replay ops and the class `PolicyEngine` (an
//! `EarlyStopping`'s stop policy). The package's entry files route those to it; see README.md.

use wasm_bindgen::prelude::wasm_bindgen;

/// Runs when an instance starts: nothing to do, but the glue's `__wbg_reset_state` (which the
/// package calls after a trap, to start a fresh instance) expects a start function.
#[wasm_bindgen(start)]
pub fn start() {}

#[cfg(target_arch = "wasm32")]
mod allocator;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: allocator::SizeClassAllocator = allocator::SizeClassAllocator::new();

#[cfg(not(feature = "replay-module"))]
pub use engines::*;

#[cfg(not(feature = "replay-module"))]
mod engines {
    use super::wasm_bindgen;

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

/// Runs a replay op (the replay module's one function).
#[cfg(feature = "replay-module")]
#[wasm_bindgen]
pub fn exec(op: u32, args: &str) -> String {
    earlyexit_js::loop_replay::exec_replay(op, args)
}

/// The native object behind an `EarlyStopping` under a stop policy (the replay module's one
/// class, as the policy code is here): the parsed policy, the merged config and the state.
/// Freed by the JS layer, else by wasm-bindgen's FinalizationRegistry.
#[cfg(feature = "replay-module")]
#[wasm_bindgen]
pub struct PolicyEngine {
    inner: earlyexit_js::loop_replay::PolicyEngine,
}

#[cfg(feature = "replay-module")]
#[wasm_bindgen]
impl PolicyEngine {
    /// An empty object; the first op fills it.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> PolicyEngine {
        PolicyEngine { inner: earlyexit_js::loop_replay::PolicyEngine::new() }
    }

    /// Runs op `op` with the arguments in the wire format; answers in the wire format.
    pub fn call(&mut self, op: u32, args: &str) -> String {
        self.inner.call(op, args)
    }
}

// --- the numeric fast path of EarlyStopping (bindings/js/fast/src/fast.rs) ------------------
//
// The scratch slots live in wasm memory; the JS layer views them as a Float64Array
// (`scratchReserve` answers their address, `wasmMemory` the memory) and the calls below
// take no argument. wasm number arguments are nearly free, but one path for both
// bindings keeps the JS layer single.

#[cfg(not(feature = "replay-module"))]
pub use fast_path::*;

/// The engines module's fast-path exports (the replay module has none).
#[cfg(not(feature = "replay-module"))]
mod fast_path {
    use std::cell::UnsafeCell;
    use wasm_bindgen::prelude::wasm_bindgen;

    /// The scratch slots. A plain static, not a `thread_local!`: on this target a thread local
    /// costs ~60 ns per access (measured), more than a whole decision.
    struct Scratch(UnsafeCell<Vec<f64>>);

    // SAFETY: wasm32-unknown-unknown is built without atomics here, so there is one thread.
    unsafe impl Sync for Scratch {}

    static SCRATCH: Scratch = Scratch(UnsafeCell::new(Vec::new()));

    fn with_scratch<R>(f: impl FnOnce(&mut Vec<f64>) -> R) -> R {
        // SAFETY: one thread, and no call below re-enters this module (nothing calls into JS),
        // so this is the only reference to the Vec while `f` runs.
        f(unsafe { &mut *SCRATCH.0.get() })
    }

    /// Makes the scratch buffer at least `len` slots long (contents kept); answers its address.
    /// Growing may grow the memory, so the JS layer views it again afterwards.
    #[wasm_bindgen(js_name = scratchReserve)]
    pub fn scratch_reserve(len: usize) -> usize {
        with_scratch(|slots| {
            if slots.len() < len {
                slots.resize(len, 0.0);
            }
            slots.as_ptr() as usize
        })
    }

    /// The module's memory, for the JS layer's view of the scratch slots.
    #[wasm_bindgen(js_name = wasmMemory)]
    pub fn wasm_memory() -> wasm_bindgen::JsValue {
        wasm_bindgen::memory()
    }

    /// Validates and folds the record in the input slots: 0 = done, 1 = ask the JSON path.
    #[wasm_bindgen(js_name = fastFold)]
    pub fn fast_fold() -> f64 {
        with_scratch(|slots| earlyexit_js::fast::fold(slots))
    }

    /// Decides over the state slots; answers the decision's code.
    #[wasm_bindgen(js_name = fastDecide)]
    pub fn fast_decide() -> f64 {
        with_scratch(|slots| earlyexit_js::fast::decide(slots))
    }

    /// The reason text of the decision just made.
    #[wasm_bindgen(js_name = fastReason)]
    pub fn fast_reason() -> String {
        with_scratch(|slots| earlyexit_js::fast::reason(slots))
    }

    /// `'Diminishing returns detected: ' + reason`.
    #[wasm_bindgen(js_name = fastDiminishingReason)]
    pub fn fast_diminishing_reason(reason: &str) -> String {
        earlyexit_js::fast::diminishing_returns_reason(reason)
    }

    /// Starts a test-pyramid run over the slots (`bindings/js/interface/src/fast_pyramid.rs`).
    #[wasm_bindgen(js_name = pyramidStart)]
    pub fn pyramid_start() -> f64 {
        with_scratch(|slots| earlyexit_js::fast_pyramid::start(slots))
    }

    /// Submits the pending layer's result; answers the next action.
    #[wasm_bindgen(js_name = pyramidSubmit)]
    pub fn pyramid_submit() -> f64 {
        with_scratch(|slots| earlyexit_js::fast_pyramid::submit(slots))
    }

    /// Writes the finished run's result numbers.
    #[wasm_bindgen(js_name = pyramidSummary)]
    pub fn pyramid_summary() -> f64 {
        with_scratch(|slots| earlyexit_js::fast_pyramid::summary(slots))
    }
}
