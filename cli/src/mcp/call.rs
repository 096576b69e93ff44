//! What one tool call runs with.

use std::sync::Arc;

use crate::mcp_roots::RootSet;

/// What one tool call runs with: the roots its paths are confined to, and whether it should
/// stop (the client cancelled the request, or went away).
pub(super) struct Call {
    pub(super) roots: Arc<RootSet>,
    pub(super) stop: Box<dyn Fn() -> bool + Send>,
}

impl Call {
    pub(super) fn stopped(&self) -> bool {
        (self.stop)()
    }
}
