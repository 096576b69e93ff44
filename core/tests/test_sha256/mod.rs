//! The core's tests' SHA-256: RustCrypto's `sha2` (a dev-dependency; the core itself has no
//! hash, and `earlyexit-digest` is the one every binding uses), so artifacts, corpus digests
//! and receipt chains in these tests are the real ones. Shared by every test file that needs
//! a digest (`mod test_sha256;`).

/// [`earlyexit::artifact::Sha256`] by `sha2`, as lowercase hex.
pub struct TestSha256;

impl earlyexit::artifact::Sha256 for TestSha256 {
    fn sha256_hex(&self, data: &[u8]) -> String {
        use sha2::Digest;
        sha2::Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
    }
}
