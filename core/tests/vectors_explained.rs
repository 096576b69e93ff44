//! The pyramid vectors were regenerated when results gained `layersBeforeExit`,
//! `layersVerified`, `layersNotRun`, `note` and each prediction its `layer` and `name`
//! (docs/test-exit.md). Every other key must be byte-identical to the files before that
//! change: with those keys taken out, each file's JSON hashes to what the old file did.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "test_sha256/mod.rs"]
mod test_sha256;

use earlyexit::artifact::Sha256;
use earlyexit::{ErrorCode, Value};

/// The keys a result gained, and those a prediction in a run's result gained.
const RESULT_KEYS: [&str; 4] = ["layersBeforeExit", "layersVerified", "layersNotRun", "note"];
const PREDICTION_KEYS: [&str; 2] = ["layer", "name"];

fn strip(value: &mut Value) {
    match value {
        Value::Object(entries) => {
            let has = |k: &str| entries.iter().any(|(key, _)| key == k);
            let drop: &[&str] = if has("layersExecuted") {
                &RESULT_KEYS
            } else if has("predicted") && has("verified") {
                &PREDICTION_KEYS
            } else {
                &[]
            };
            entries.retain(|(k, _)| !drop.contains(&k.as_str()));
            entries.iter_mut().for_each(|(_, v)| strip(v));
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

/// SHA-256 of each file's JSON (as the core writes it back) before the new keys.
/// `bad_input.json` was checked the same way when the keys landed (stripped, it hashed to the
/// file before them) and is not held here: every new bad-input row changes its hash.
const BEFORE: [(&str, &str); 3] = [
    ("pyramid_reference.json", "fed7e123d9d412322f4d4a917d0c0833af3a343ff892f5773916cbe19f1b8d0c"),
    ("pyramid_steps.json", "0c1397f55080e848657ccf9ad40055ab7036b5ce6b7c08320979f4aabb656c54"),
    ("snapshots.json", "39abe4f16d1230c84638446436811fe060727737a2f63583606f39341d5ba5fa"),
];

#[test]
fn pyramid_vectors_keep_every_other_key_byte_identical() {
    let mut failures = Vec::new();
    for (file, expected) in BEFORE {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors").join(file),
        )
        .unwrap();
        let mut value = Value::parse_json(&text, ErrorCode::InvalidReplay, file).unwrap();
        strip(&mut value);
        let got = test_sha256::TestSha256.sha256_hex(value.to_json().as_bytes());
        if got != expected {
            failures.push(format!("{file}: {got}"));
        }
    }
    assert!(failures.is_empty(), "changed beyond the new keys: {failures:?}");
}
