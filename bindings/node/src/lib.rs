//! Node binding of earlyexit (napi-rs 3).
//!
//! Exports the shared native interface (`bindings/js/interface`, crate `earlyexit-js`) unchanged:
//! the class `NativeEngine` with `call(op, args)` and the function `exec(op, args)`, one
//! string in and one string out. The public API is the shared JS layer (`bindings/js/api/`),
//! which the WebAssembly package wraps around the very same interface.

use napi_derive::napi;

mod store;

/// The native object behind each stateful JS class.
#[napi]
pub struct NativeEngine {
    inner: earlyexit_js::Engine,
}

#[napi]
impl NativeEngine {
    /// An empty engine; the first op fills it.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeEngine { inner: earlyexit_js::Engine::new() }
    }

    /// Runs op `op` with the arguments in the wire format; answers in the wire format.
    #[napi(catch_unwind)]
    pub fn call(&mut self, op: u32, args: String) -> String {
        self.inner.call(op, &args)
    }
}

/// The native object behind an `EarlyStopping` under a stop policy: the parsed policy, the
/// merged config and the state, for the engine's lifetime.
#[napi]
pub struct PolicyEngine {
    inner: earlyexit_js::loop_replay::PolicyEngine,
}

#[napi]
impl PolicyEngine {
    /// An empty object; the first op fills it.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        PolicyEngine { inner: earlyexit_js::loop_replay::PolicyEngine::new() }
    }

    /// Runs op `op` with the arguments in the wire format; answers in the wire format.
    #[napi(catch_unwind)]
    pub fn call(&mut self, op: u32, args: String) -> String {
        self.inner.call(op, &args)
    }
}

/// Runs a stateless op.
#[napi(catch_unwind)]
pub fn exec(op: u32, args: String) -> String {
    earlyexit_js::exec(op, &args)
}

// --- the numeric fast path of EarlyStopping (bindings/js/fast/src/fast.rs) ------------------
//
// The JS layer hands its scratch `Float64Array` over once (`bindScratch`, again whenever it
// grows it) and keeps it alive; the calls below then take no argument and read and write
// its slots through the pointer. napi-rs pays per argument and per `this`, so a zero-arg
// free function is the cheapest crossing there is (see docs/internals/performance-notes.md).

use std::cell::Cell;

thread_local! {
    // Per thread: each worker thread loads its own JS layer with its own buffer.
    static SCRATCH: Cell<(*mut f64, usize)> = const { Cell::new((std::ptr::null_mut(), 0)) };
}

fn with_scratch<R>(otherwise: R, f: impl FnOnce(&mut [f64]) -> R) -> R {
    let (data, len) = SCRATCH.with(Cell::get);
    if data.is_null() {
        return otherwise;
    }
    // SAFETY: `data` points at the backing store of the Float64Array last bound on this
    // thread, which the JS layer keeps alive for as long as it is bound; a backing store
    // of that size lives off the V8 heap and does not move. JS does not run while this
    // call does, so nothing else touches the slots meanwhile.
    let slots = unsafe { std::slice::from_raw_parts_mut(data, len) };
    f(slots)
}

/// Binds the JS layer's scratch buffer (at least 512 slots).
#[napi(catch_unwind)]
pub fn bind_scratch(mut buffer: napi::bindgen_prelude::Float64ArraySlice<'_>) {
    // SAFETY: see `with_scratch`; only the pointer and length are kept.
    let slots = unsafe { buffer.as_mut() };
    SCRATCH.with(|cell| cell.set((slots.as_mut_ptr(), slots.len())));
}

/// Validates and folds the record in the input slots: 0 = done, 1 = ask the JSON path.
#[napi(catch_unwind)]
pub fn fast_fold() -> f64 {
    with_scratch(earlyexit_js::fast::INVALID, earlyexit_js::fast::fold)
}

/// Decides over the state slots; answers the decision's code.
#[napi(catch_unwind)]
pub fn fast_decide() -> f64 {
    with_scratch(earlyexit_js::fast::INVALID, earlyexit_js::fast::decide)
}

/// The reason text of the decision just made.
#[napi(catch_unwind)]
pub fn fast_reason() -> String {
    with_scratch(String::new(), earlyexit_js::fast::reason)
}

/// `'Diminishing returns detected: ' + reason`.
#[napi(catch_unwind)]
pub fn fast_diminishing_reason(reason: String) -> String {
    earlyexit_js::fast::diminishing_returns_reason(&reason)
}

/// Starts a test-pyramid run over the slots (`bindings/js/interface/src/fast_pyramid.rs`).
#[napi(catch_unwind)]
pub fn pyramid_start() -> f64 {
    with_scratch(1.0, earlyexit_js::fast_pyramid::start)
}

/// Submits the pending layer's result; answers the next action.
#[napi(catch_unwind)]
pub fn pyramid_submit() -> f64 {
    with_scratch(-1.0, earlyexit_js::fast_pyramid::submit)
}

/// Writes the finished run's result numbers.
#[napi(catch_unwind)]
pub fn pyramid_summary() -> f64 {
    with_scratch(-1.0, earlyexit_js::fast_pyramid::summary)
}
