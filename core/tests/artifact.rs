//! The calibration artifact envelope: read back what it writes, refuse what it cannot read
//! with `invalid_artifact` naming the field, and name the schema versions it reads.

use earlyexit::artifact::{
    clopper_pearson_upper, is_artifact, Artifact, ArtifactKind, SCHEMA_VERSION, SCHEMA_VERSIONS_READ,
};

mod test_sha256;
use test_sha256::TestSha256;

const DIGEST: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

fn sample() -> String {
    format!(
        r#"{{"kind":"pyramid","schemaVersion":2,"policy":{{"policy":"risk_bounded","config":{{"riskBudget":0.01}}}},
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

/// A document given where a policy or an artifact is taken is an artifact by its `kind`
/// alone: no stop policy has one (the command's `--policy`, its hook and every shadow read it so).
#[test]
fn an_artifact_is_told_from_a_policy_by_its_kind() {
    let parse = |t: &str| earlyexit::Value::parse_json(t, earlyexit::ErrorCode::InvalidConfig, "").expect("json");
    assert!(is_artifact(&parse(&sample())));
    assert!(is_artifact(&parse(r#"{"kind":"loop"}"#)));
    assert!(!is_artifact(&parse(r#"{"any":[{"max_iterations":3}],"returns":"best"}"#)));
    assert!(!is_artifact(&parse(r#"{"preset":"recommended"}"#)));
    assert!(!is_artifact(&parse(r#""seed""#)));
    assert!(!is_artifact(&earlyexit::Value::Null));
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
    assert_eq!((SCHEMA_VERSION, SCHEMA_VERSIONS_READ), (2, [1, 2]));
    // Checked before the rest, so a future document's new keys do not hide the reason.
    let text = sample().replace(r#""schemaVersion":2"#, r#""schemaVersion":3,"newKey":true"#);
    let (code, field, message) = error_of(&text);
    assert_eq!((code.as_str(), field.as_str()), ("invalid_artifact", "schemaVersion"));
    assert_eq!(message, "artifact schema version 3 is not supported (this build reads versions 1 and 2)");
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

const AUDIT: &str = "a3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// The sample with a promotion (12 failing audit runs, none missed: the
/// exact bound at delta 0.1 is 0.1746, within the risk once the risk is 0.2), its
/// `artifactSha256` computed over the artifact with `promotion` null.
fn promoted(edit: impl Fn(String) -> String) -> String {
    let unpromoted = edit(sample().replace(r#""risk":0.05"#, r#""risk":0.2"#));
    let artifact = Artifact::parse(&unpromoted).expect("valid");
    let digest = artifact.unpromoted_sha256(&TestSha256).unwrap();
    let upper = clopper_pearson_upper(0, 12, 0.1);
    let promotion = format!(
        r#""promotion":{{"promotedAt":"2026-01-02T00:00:00Z","auditCorpusSha256":"{AUDIT}","auditRuns":50,
        "trials":12,"events":0,"upperBound":{upper},"method":"clopper-pearson","artifactSha256":"{digest}"}}"#
    );
    unpromoted.replace(r#""promotion":null"#, &promotion)
}

#[test]
fn a_promotion_is_kept_and_checked_against_its_artifact() {
    let text = promoted(|t| t);
    let artifact = Artifact::parse(&text).expect("valid");
    assert_eq!(artifact.promotion.as_ref().map(|p| (p.audit_runs, p.trials)), Some((50, 12)));
    assert_eq!(Artifact::from_value(&artifact.to_value()).ok(), Some(artifact.clone()));
    assert!(artifact.check_promotion(&TestSha256).is_ok());
    // Another artifact's promotion pasted in (here: the same one, the corpus since changed).
    let other = Artifact::parse(&promoted(|t| t.replace(DIGEST, &"b".repeat(64)))).unwrap();
    let pasted = Artifact { promotion: other.promotion.clone(), ..artifact.clone() };
    let err = pasted.check_promotion(&TestSha256).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "promotion.artifactSha256"), "{}", err.message());
    // The artifact edited after its promotion.
    let edited = Artifact { risk: 0.3, ..artifact };
    assert_eq!(edited.check_promotion(&TestSha256).unwrap_err().field(), "promotion.artifactSha256");
}

#[test]
fn a_promotion_is_refused_when_its_figures_contradict_the_envelope() {
    let upper = clopper_pearson_upper(0, 12, 0.1).to_string();
    let cases: Vec<(String, String, &str)> = vec![
        // The bound above the risk (the bound of 12 of 12 missed is 1).
        (r#""trials":12,"events":0"#.into(), r#""trials":12,"events":12"#.into(), "promotion.upperBound"),
        (format!(r#""upperBound":{upper}"#), r#""upperBound":0.99"#.into(), "promotion.upperBound"),
        (format!(r#""upperBound":{upper}"#), r#""upperBound":0.01"#.into(), "promotion.upperBound"),
        (r#""trials":12,"events":0"#.into(), r#""trials":0,"events":0"#.into(), "promotion.trials"),
        (r#""method":"clopper-pearson""#.into(), r#""method":"wilson""#.into(), "promotion.method"),
        (
            r#""promotedAt":"2026-01-02T00:00:00Z""#.into(),
            r#""promotedAt":"2026-03-01T00:00:00Z""#.into(),
            "promotion.promotedAt",
        ),
        (
            format!(r#""auditCorpusSha256":"{AUDIT}""#),
            format!(r#""auditCorpusSha256":"{DIGEST}""#),
            "promotion.auditCorpusSha256",
        ),
        (r#","artifactSha256":""#.into(), r#","artifactSha25":""#.into(), "promotion.artifactSha25"),
    ];
    for (from, to, field) in cases {
        let text = promoted(|t| t).replace(&from, &to);
        assert_ne!(text, promoted(|t| t), "{from}");
        let (code, got, message) = error_of(&text);
        assert_eq!((code.as_str(), got.as_str()), ("invalid_artifact", field), "{to}: {message}");
    }
    let text = promoted(|t| t);
    let key = r#","artifactSha256":""#;
    let start = text.find(key).unwrap();
    let missing = format!("{}{}", &text[..start], &text[start + key.len() + 65..]);
    assert_eq!(error_of(&missing).1, "promotion.artifactSha256", "{missing}");
}

#[test]
fn a_version_1_artifact_reads_as_unpromoted() {
    // Written before promotions carried the artifact's digest: its promotion is not trusted.
    let text = promoted(|t| t).replace(r#""schemaVersion":2"#, r#""schemaVersion":1"#);
    let artifact = Artifact::parse(&text).expect("valid");
    assert_eq!(artifact.schema_version, 1);
    assert_eq!(artifact.promotion, None);
    assert!(artifact.to_json().contains(r#""schemaVersion":2"#));
}
