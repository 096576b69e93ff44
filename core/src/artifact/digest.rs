//! The digest seam: SHA-256 given by the caller ([`Sha256`]) over the RFC 8785 canonical
//! JSON the core writes.

use crate::value::{concat, Error, ErrorCode, ErrorKind, Result, Value};

/// A SHA-256 implementation, given by the caller (the core has none of its own).
pub trait Sha256 {
    /// The SHA-256 of `data` as 64 lowercase hex digits.
    fn sha256_hex(&self, data: &[u8]) -> String;
}

/// The digest of a value: SHA-256 over its RFC 8785 canonical JSON, lowercase hex. A value
/// with no canonical form (a non-finite number) is a range error (`code`) naming its path
/// under `field`.
pub fn digest(value: &Value, sha256: &dyn Sha256, code: ErrorCode, field: &str) -> Result<String> {
    let text = value.canonical_json(code, field)?;
    Ok(sha256.sha256_hex(text.as_bytes()))
}

/// Whether `s` is a SHA-256 digest as the project writes one: 64 lowercase hex digits.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A range error for a field that must be a digest.
pub(crate) fn not_a_digest(code: ErrorCode, path: &str, got: &str) -> Error {
    Error::new(
        code,
        ErrorKind::Range,
        path,
        concat(&[path, " must be a SHA-256 digest (64 lowercase hex digits), got ", &Value::string(got).describe()]),
    )
}

/// What a host lends the core where it reads an artifact policy: its clock (an enforced
/// artifact's expiry is checked at it) and its SHA-256 (a promotion is checked with it). The
/// core has neither; a host without one passes `None`, and an artifact that needs it is
/// refused, saying which.
#[derive(Clone, Copy, Default)]
pub struct HostServices<'a> {
    /// The host's clock, milliseconds since the Unix epoch.
    pub clock_ms: Option<i64>,
    /// The host's SHA-256.
    pub sha256: Option<&'a dyn Sha256>,
}

impl<'a> HostServices<'a> {
    /// A host with both a clock reading and a SHA-256.
    pub fn new(clock_ms: i64, sha256: &'a dyn Sha256) -> Self {
        HostServices { clock_ms: Some(clock_ms), sha256: Some(sha256) }
    }
}
