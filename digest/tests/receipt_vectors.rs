//! tests/vectors/policy/pyramid_slices.json `receipts` (tests/vectors/gen_pyramid_slices.mjs):
//! receipt logs chained with node:crypto's SHA-256 verify here, and `verify_receipts` answers
//! the label slices derived there from docs/test-exit.md.

use earlyexit::receipt_log::verify_receipts;
use earlyexit::{ErrorCode, Value};
use earlyexit_digest::Sha256Hasher;

#[test]
fn verify_receipts_answers_the_label_slices() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/policy/pyramid_slices.json");
    let text = std::fs::read_to_string(path).expect("the vectors");
    let doc = Value::parse_json(&text, ErrorCode::InvalidReceipt, "vectors").expect("JSON");
    let Some(Value::Array(cases)) = doc.get("receipts") else { panic!("no receipts vectors") };
    assert!(!cases.is_empty());
    for v in cases {
        let log = v.get("log").and_then(Value::as_str).expect("a log");
        let check = verify_receipts(log, &Sha256Hasher);
        assert!(check.valid(), "{:?}: {:?}", v.get("name"), check.broken);
        assert_eq!(check.to_value().get("labelSlices"), v.get("labelSlices"), "{:?}", v.get("name"));
    }
}
