//! The digests of earlyexit's documents: SHA-256 (RustCrypto's `sha2`) over the RFC 8785
//! canonical JSON the core writes ([`Value::canonical_json`]). The core has no hash function
//! of its own (it depends on nothing); every binding and the command line take theirs from
//! here, so a receipt hashed in Python verifies in the browser.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![warn(missing_docs)]

use earlyexit::artifact::Sha256;
use earlyexit::{ErrorCode, Result, Value};
use sha2::Digest;

/// The SHA-256 [`earlyexit::artifact::Sha256`] implementation every binding passes to the core.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sha256Hasher;

impl Sha256 for Sha256Hasher {
    fn sha256_hex(&self, data: &[u8]) -> String {
        sha256_hex(data)
    }
}

/// SHA-256 of `data`, 64 lowercase hex digits.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&sha2::Sha256::digest(data))
}

/// SHA-256 fed in pieces, for data too large to hold at once (a diff, a tree of files).
#[derive(Clone, Default)]
pub struct Sha256Stream(sha2::Sha256);

impl Sha256Stream {
    /// An empty hash.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest of everything fed, 64 lowercase hex digits.
    pub fn finish_hex(self) -> String {
        hex(&self.0.finalize())
    }
}

fn hex(hash: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(64);
    for byte in hash.iter() {
        out.push(char::from(HEX.get(usize::from(byte >> 4)).copied().unwrap_or(b'0')));
        out.push(char::from(HEX.get(usize::from(byte & 15)).copied().unwrap_or(b'0')));
    }
    out
}

/// SHA-256 over the RFC 8785 canonical JSON of `value`; a value with no canonical form (a
/// non-finite number, a host object) is a range error (`code`) naming its path under `field`.
pub fn value_sha256(value: &Value, code: ErrorCode, field: &str) -> Result<String> {
    earlyexit::artifact::digest(value, &Sha256Hasher, code, field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_fips_180_examples() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let mut stream = Sha256Stream::new();
        stream.update(b"a");
        stream.update(b"bc");
        assert_eq!(stream.finish_hex(), sha256_hex(b"abc"));
    }

    #[test]
    fn value_digest_is_over_the_canonical_text() {
        let a =
            Value::parse_json(r#"{"b":[1.50,2e0],"a":"x"}"#, ErrorCode::InvalidArtifact, "a").unwrap_or(Value::Null);
        let b = Value::parse_json(r#"{"a":"x","b":[1.5,2]}"#, ErrorCode::InvalidArtifact, "b").unwrap_or(Value::Null);
        let digest = value_sha256(&a, ErrorCode::InvalidArtifact, "a").ok();
        assert_eq!(digest, value_sha256(&b, ErrorCode::InvalidArtifact, "b").ok());
        assert_eq!(digest, Some(sha256_hex(br#"{"a":"x","b":[1.5,2]}"#)));
        let nan = Value::object(vec![("x", Value::Number(f64::NAN))]);
        let err = value_sha256(&nan, ErrorCode::InvalidReceipt, "receipt").err();
        assert_eq!(err.map(|e| (e.code(), e.field().to_string())), Some(("invalid_receipt", "receipt.x".to_string())));
    }
}
