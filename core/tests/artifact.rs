//! The calibration artifact envelope: read back what it writes, refuse what it cannot read
//! with `invalid_artifact` naming the field, and name the schema versions it reads.

use earlyexit::artifact::{Artifact, ArtifactKind, SCHEMA_VERSIONS_READ};

const DIGEST: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

fn sample() -> String {
    format!(
        r#"{{"kind":"pyramid","schemaVersion":1,"policy":{{"policy":"risk_bounded","config":{{"riskBudget":0.01}}}},
        "risk":0.05,"delta":0.1,"certificate":{{"method":"learn-then-test","hypotheses":[
        {{"parameter":0.001,"trials":40,"events":0,"pValue":0.128,"rejected":false}}],
        "sampleSizes":{{"calibration":120,"warmup":24}}}},"corpusSha256":"{DIGEST}",
        "createdAt":"2026-01-01T00:00:00.000Z","expiresAt":"2026-02-01T00:00:00Z","promotion":null,"body":{{"slices":[]}}}}"#
    )
}

fn error_of(text: &str) -> (String, String, String) {
    match Artifact::parse(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => (e.code().to_string(), e.field().to_string(), e.message().to_string()),
    }
}

#[test]
fn an_artifact_reads_back_what_it_writes() {
    let artifact = Artifact::parse(&sample()).expect("valid");
    assert_eq!(artifact.kind, ArtifactKind::Pyramid);
    assert_eq!(artifact.certificate.sample_sizes, vec![("calibration".to_string(), 120), ("warmup".to_string(), 24)]);
    assert_eq!(artifact.certificate.hypotheses.len(), 1);
    let again = Artifact::parse(&artifact.to_json()).expect("round trip");
    assert_eq!(again, artifact);
    assert!(!artifact.is_expired(1_767_225_600_000));
    assert!(artifact.is_expired(1_769_904_000_000)); // 2026-02-01T00:00:00Z exactly
}

#[test]
fn a_loop_artifact_is_the_same_envelope() {
    let text = sample().replace(r#""kind":"pyramid""#, r#""kind":"loop""#);
    assert_eq!(Artifact::parse(&text).map(|a| a.kind).ok(), Some(ArtifactKind::Loop));
}

#[test]
fn an_unknown_schema_version_names_the_versions_read() {
    assert_eq!(SCHEMA_VERSIONS_READ, [1]);
    // Checked before the rest, so a future document's new keys do not hide the reason.
    let text = sample().replace(r#""schemaVersion":1"#, r#""schemaVersion":2,"newKey":true"#);
    let (code, field, message) = error_of(&text);
    assert_eq!((code.as_str(), field.as_str()), ("invalid_artifact", "schemaVersion"));
    assert_eq!(message, "artifact schema version 2 is not supported (this build reads version 1)");
}

#[test]
fn bad_fields_are_refused_by_path() {
    let cases: Vec<(&str, &str, &str)> = vec![
        (r#""kind":"pyramid""#, r#""kind":"pyramids""#, "kind"),
        (r#""risk":0.05"#, r#""risk":0"#, "risk"),
        (r#""delta":0.1"#, r#""delta":"0.1""#, "delta"),
        (r#""pValue":0.128"#, r#""pValue":1.5"#, "certificate.hypotheses[0].pValue"),
        (r#""events":0"#, r#""events":41"#, "certificate.hypotheses[0].events"),
        (r#""warmup":24"#, r#""warmup":-1"#, "certificate.sampleSizes.warmup"),
        (r#""createdAt":"2026-01-01T00:00:00.000Z""#, r#""createdAt":"yesterday""#, "createdAt"),
        (r#""expiresAt":"2026-02-01T00:00:00Z""#, r#""expiresAt":"2025-12-31T00:00:00Z""#, "expiresAt"),
        (r#""promotion":null"#, r#""promotion":{"promotedAt":"2026-01-02T00:00:00Z"}"#, "promotion.auditCorpusSha256"),
        (r#""body":{"slices":[]}"#, r#""body":[]"#, "body"),
        (r#""policy":{"#, r#""polcy":{"#, "polcy"),
    ];
    for (from, to, field) in cases {
        let text = sample().replace(from, to);
        assert_ne!(text, sample(), "{from}");
        let (code, got, message) = error_of(&text);
        assert_eq!((code.as_str(), got.as_str()), ("invalid_artifact", field), "{to}: {message}");
    }
    let text = sample().replace(DIGEST, &DIGEST.to_uppercase());
    assert_eq!(error_of(&text).1, "corpusSha256");
    assert_eq!(error_of("[1]").0, "invalid_artifact");
    assert_eq!(error_of("{").1, "artifact");
}

#[test]
fn a_promotion_is_kept() {
    let promotion = format!(
        r#""promotion":{{"promotedAt":"2026-01-02T00:00:00Z","auditCorpusSha256":"{DIGEST}","auditRuns":50,
        "trials":12,"events":0,"upperBound":0.22,"method":"clopper-pearson"}}"#
    );
    let text = sample().replace(r#""promotion":null"#, &promotion);
    let artifact = Artifact::parse(&text).expect("valid");
    assert_eq!(artifact.promotion.as_ref().map(|p| (p.audit_runs, p.trials)), Some((50, 12)));
    assert_eq!(Artifact::from_value(&artifact.to_value()).ok(), Some(artifact));
}
