//! The one error type of the crate: a stable machine-readable [`ErrorCode`], the offending
//! field as the caller spelled it, whether it is a type or a value problem, and a message.

use std::fmt;

use crate::value::names::named_enum;
use crate::value::text::concat;

named_enum! {
    /// Stable error codes (`Error::code()` returns their snake_case string).
    pub enum ErrorCode {
        /// A config value out of range or of the wrong type.
        InvalidConfig = "invalid_config",
        /// A key that does not exist (the message suggests the closest one).
        UnknownOption = "unknown_option",
        /// A loop iteration result.
        InvalidResult = "invalid_result",
        /// The iteration number.
        InvalidIteration = "invalid_iteration",
        /// A test layer's result.
        InvalidLayerResult = "invalid_layer_result",
        /// A quality signal handed to the exit decision.
        InvalidSignal = "invalid_signal",
        /// What an outside diminishing-returns source returned.
        InvalidAnalytics = "invalid_analytics",
        /// A snapshot that cannot be restored.
        InvalidSnapshot = "invalid_snapshot",
        /// The pyramid step API used out of order.
        InvalidStep = "invalid_step",
        /// Malformed replay input.
        InvalidReplay = "invalid_replay",
        /// A detection handed to the intervention system.
        InvalidDetection = "invalid_detection",
    }
}

impl ErrorCode {
    /// The code spelled `name` (`"invalid_snapshot"`), if there is one: [`ErrorCode::parse`]
    /// as a loop over the table (the smaller code in the WebAssembly module, where the JS
    /// layer's host errors name their code).
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|code| code.as_str() == name)
    }
}

named_enum! {
    /// Whether the caller passed a value of the wrong type (JS `TypeError`, Python
    /// `EarlyExitTypeError`) or a value of the right type that is not allowed (JS `RangeError`,
    /// Python `EarlyExitError`). The names are `"type"` and `"range"`, as the conformance
    /// vectors spell them.
    pub enum ErrorKind {
        /// Wrong type, missing required key, unknown key.
        Type = "type",
        /// NaN, infinities, out of range, non-integer, unknown enum value, inconsistent state.
        Range = "range",
    }
}

/// A rejected input. Whatever call returned it changed nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    // Boxed: every fallible function returns `Result<_, Error>`, and a one-pointer error keeps
    // each `?` a pointer move instead of a 28-byte copy (a sizeable share of the WebAssembly
    // module's code). Errors are rare, so the allocation costs nothing that matters.
    inner: Box<Inner>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    code: ErrorCode,
    kind: ErrorKind,
    field: String,
    message: String,
}

impl Error {
    /// Builds an error; `message` should name the field and what was wrong with it. Crate-only:
    /// every message is worded in the core (bindings call the constructors of `crate::host`).
    pub(crate) fn new(code: ErrorCode, kind: ErrorKind, field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::make(code, kind, field.into(), message.into())
    }

    /// The one non-generic constructor, so the generic `new` adds no code per caller type.
    fn make(code: ErrorCode, kind: ErrorKind, field: String, message: String) -> Self {
        Error { inner: Box::new(Inner { code, kind, field, message }) }
    }

    /// The stable code, e.g. `"invalid_result"`.
    pub fn code(&self) -> &'static str {
        self.inner.code.as_str()
    }

    /// The code as an enum.
    pub fn error_code(&self) -> ErrorCode {
        self.inner.code
    }

    /// Type or range problem.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The offending field as the caller spelled it, with a path where nested
    /// (`layers[2].passRate` in JS, `layers[2].pass_rate` in Python and Rust).
    pub fn field(&self) -> &str {
        &self.inner.field
    }

    /// A human-readable sentence.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The same error re-coded and re-rooted under `prefix`: used when an embedded value
    /// (a config inside a snapshot, say) fails with its own code.
    pub(crate) fn nested(self, code: ErrorCode, prefix: &str) -> Self {
        let Inner { kind, field, message, .. } = *self.inner;
        let field = if prefix.is_empty() {
            field
        } else if field.is_empty() {
            prefix.to_string()
        } else if field.starts_with('[') {
            concat(&[prefix, &field])
        } else {
            concat(&[prefix, ".", &field])
        };
        let message = if prefix.is_empty() { message } else { concat(&[prefix, ": ", &message]) };
        Self::make(code, kind, field, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}: {})", self.inner.message, self.inner.code.as_str(), self.inner.field)
    }
}

impl std::error::Error for Error {}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_and_found_by_name() {
        for code in ErrorCode::ALL {
            // Exhaustive: a new code fails to compile here until it is listed in `ALL` too.
            let listed = match code {
                ErrorCode::InvalidConfig
                | ErrorCode::UnknownOption
                | ErrorCode::InvalidResult
                | ErrorCode::InvalidIteration
                | ErrorCode::InvalidLayerResult
                | ErrorCode::InvalidSignal
                | ErrorCode::InvalidAnalytics
                | ErrorCode::InvalidSnapshot
                | ErrorCode::InvalidStep
                | ErrorCode::InvalidReplay
                | ErrorCode::InvalidDetection => ErrorCode::ALL.iter().filter(|c| **c == code).count(),
            };
            assert_eq!(listed, 1);
            assert_eq!(ErrorCode::from_name(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::from_name("no_such_code"), None);
    }
}
