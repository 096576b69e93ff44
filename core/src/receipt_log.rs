//! The receipt log of both engines: the kinds of receipt it holds ([`RECEIPT_KINDS`], the
//! pyramid's and the loop's, each with its labels, rates and reader) over the one chain
//! implementation ([`crate::artifact::verify_receipts_of`]). It sits above both engines so
//! that the chain depends on neither.

use crate::artifact::{append_receipts_of, verify_receipts_of, ReceiptCheck, ReceiptKind, Sha256};
use crate::loops::shadow::LOOP_RECEIPTS;
use crate::pyramid::policy::PYRAMID_RECEIPTS;
use crate::value::{Result, Value};

/// Every kind of receipt a log may hold, the pyramid's first (a report without receipts
/// gives its rates, as it always did).
pub static RECEIPT_KINDS: [ReceiptKind; 2] = [PYRAMID_RECEIPTS, LOOP_RECEIPTS];

/// Recomputes the chain of a JSONL receipt log of either engine and counts its receipts by
/// label, with each kind's rates and their Wilson intervals, overall, per slice (`policy`)
/// and per run label ([`verify_receipts_of`]).
pub fn verify_receipts(text: &str, sha256: &dyn Sha256) -> ReceiptCheck {
    verify_receipts_of(text, sha256, &RECEIPT_KINDS)
}

/// Appends receipts of either engine to a log ([`append_receipts_of`]).
pub fn append_receipts(log: &str, receipts: &[Value], sha256: &dyn Sha256) -> Result<String> {
    append_receipts_of(log, receipts, sha256, &RECEIPT_KINDS)
}
