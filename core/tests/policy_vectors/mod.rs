//! Shared by the tests that read tests/vectors/policy/pyramid_policy.json (`pyramid_live.rs`,
//! `pyramid_model_merge.rs`): the cases of one section, and a comparison of values whose
//! numbers come from the independent JS model.

use earlyexit::Value;

/// The cases of `section` in pyramid_policy.json (at least four: an empty section would make
/// the tests that walk it vacuous).
pub fn cases(section: &str) -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/policy/pyramid_policy.json");
    let doc =
        Value::parse_json(&std::fs::read_to_string(path).unwrap(), earlyexit::ErrorCode::InvalidReplay, "doc").unwrap();
    let Some(Value::Array(cases)) = doc.get(section) else { panic!("no {section} cases") };
    assert!(cases.len() >= 4, "{section}: {} cases", cases.len());
    cases.clone()
}

/// `got` equals `want` but for numbers, which agree within `relative` of the expected
/// magnitude (never less than `floor`); arrays and objects are compared item by item.
pub fn assert_close(got: &Value, want: &Value, what: &str, relative: f64, floor: f64) {
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => {
            assert!((a - b).abs() <= relative * b.abs().max(floor), "{what}: {a} vs {b}")
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{what}: length");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_close(x, y, &format!("{what}[{i}]"), relative, floor);
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(a.len(), b.len(), "{what}: keys");
            for (k, y) in b {
                assert_close(got.get(k).unwrap_or(&Value::Null), y, &format!("{what}.{k}"), relative, floor);
            }
        }
        _ => assert_eq!(got, want, "{what}"),
    }
}
