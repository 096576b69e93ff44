//! Node binding of earlyexit (napi-rs 3).
//!
//! Exports the shared native interface (`js/interface`, crate `earlyexit-js`) unchanged:
//! the class `NativeEngine` with `call(op, args)` and the function `exec(op, args)`, one
//! string in and one string out. The public API is the shared JS layer (`js/api.js`),
//! which the WebAssembly package wraps around the very same interface.

use napi_derive::napi;

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

/// Runs a stateless op.
#[napi(catch_unwind)]
pub fn exec(op: u32, args: String) -> String {
    earlyexit_js::exec(op, &args)
}
