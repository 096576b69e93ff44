//! What calibration hands to a deployment, and what a deployment can prove it did: the
//! kind-generic calibration [`Artifact`] envelope (a pyramid policy's, a loop policy's) and
//! the digest seam both it and the shadow-mode receipt log are checked with.
//!
//! The core has no hash function (it depends on nothing): a digest is SHA-256 over the RFC
//! 8785 canonical JSON of a value ([`Value::canonical_json`](crate::Value::canonical_json)),
//! and the SHA-256 comes from the caller through [`Sha256`]. The crate `earlyexit-digest`
//! implements it for every binding and the command line, so all of them hash alike.

mod digest;
mod envelope;
mod promotion;
mod receipts;

pub use digest::{digest, is_sha256_hex, HostServices, Sha256};
pub use envelope::{
    clopper_pearson_upper, document, is_artifact, Artifact, ArtifactKind, Certificate, Hypothesis, Promotion,
    ARTIFACT_FIELDS, PROMOTION_METHOD, SCHEMA_VERSION, SCHEMA_VERSIONS_READ,
};
pub(crate) use envelope::{disagreeing_copy, first_difference};
pub(crate) use promotion::{drift_answer, interval_value, promotion_answer, AuditTerms};
pub use promotion::{DRIFT_STATUSES, PROMOTION_KEYS};
pub use receipts::{
    append_receipts_of, verify_receipts_of, ChainBreak, ReceiptCheck, ReceiptFacts, ReceiptKind, ReceiptRate,
    CHAIN_FIELDS,
};
pub(crate) use receipts::{missing, nullable, with_chain_fields};
