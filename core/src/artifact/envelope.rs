//! The calibration artifact envelope: one versioned JSON document per calibrated policy,
//! of either engine. The envelope is the same for every kind (what was certified, on which
//! corpus, until when, whether promoted); `policy` and `body` are the kind's own, read by
//! the kind's engine (`crate::pyramid` for `"pyramid"`).
//!
//! ```json
//! {"kind":"pyramid","schemaVersion":1,"policy":{...},"risk":0.05,"delta":0.1,
//!  "certificate":{"method":"...","hypotheses":[{"parameter":0.01,"trials":40,"events":0,
//!  "pValue":0.13,"rejected":true}],"sampleSizes":{"calibration":120}},
//!  "corpusSha256":"<64 hex>","createdAt":"2026-01-01T00:00:00.000Z",
//!  "expiresAt":"2026-02-01T00:00:00.000Z","promotion":null,"body":{...}}
//! ```
//!
//! A promotion (schema version 2) carries `artifactSha256`, the digest of the artifact with
//! `promotion` set to null: a promotion pasted from another artifact, or an artifact edited
//! after it was promoted, no longer matches ([`Artifact::check_promotion`], given the host's
//! SHA-256). Its figures are checked against the envelope on read: at least one failing audit
//! run, an upper bound that is the exact bound of its counts at `delta` and within `risk`.
//! A version 1 artifact (written before promotions carried the digest) reads as unpromoted.

use crate::artifact::digest::{digest, is_sha256_hex, not_a_digest, Sha256};
use crate::num;
use crate::time::millis_from_rfc3339;
use crate::value::{
    concat, index_path, join, named_enum, Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectReader, Result, Value,
    MAX_SAFE_INTEGER,
};

/// The schema version this build writes (2: a promotion carries `artifactSha256`).
pub const SCHEMA_VERSION: u64 = 2;

/// Every schema version this build reads (a version 1 artifact reads as unpromoted).
pub const SCHEMA_VERSIONS_READ: [u64; 2] = [1, 2];

/// The schema version whose promotions carry `artifactSha256`: an older artifact's
/// promotion is not read (it reads as unpromoted).
const FIRST_DIGESTED_PROMOTION: u64 = 2;

/// How far a promotion's `upperBound` may be from the exact bound recomputed from its
/// counts (the same computation gives the same bits; this only absorbs a bound written by
/// another implementation's last digit).
const UPPER_BOUND_TOLERANCE: f64 = 1e-9;

/// The method a promotion's bound is computed by.
pub const PROMOTION_METHOD: &str = "clopper-pearson";

named_enum! {
    /// Which engine's policy an artifact calibrates.
    pub enum ArtifactKind {
        /// A test-pyramid policy.
        Pyramid = "pyramid",
        /// A loop-stopping policy.
        Loop = "loop",
    }
}

/// The envelope's keys, in the order they are written.
pub const ARTIFACT_FIELDS: [FieldName; 11] = FieldName::same_all([
    "kind",
    "schemaVersion",
    "policy",
    "risk",
    "delta",
    "certificate",
    "corpusSha256",
    "createdAt",
    "expiresAt",
    "promotion",
    "body",
]);

/// Whether a document given where a policy or a calibration artifact is taken (a loop's
/// policy in the command and its hook, a shadow candidate in every binding) is an artifact:
/// it has the envelope's `kind`, a key no policy has. The one rule every surface tells them by.
pub fn is_artifact(value: &Value) -> bool {
    value.get(ARTIFACT_FIELDS[0].js()).is_some()
}

const CERTIFICATE_FIELDS: [FieldName; 3] = FieldName::same_all(["method", "hypotheses", "sampleSizes"]);
const HYPOTHESIS_FIELDS: [FieldName; 5] = FieldName::same_all(["parameter", "trials", "events", "pValue", "rejected"]);
const PROMOTION_FIELDS: [FieldName; 8] = FieldName::same_all([
    "promotedAt",
    "auditCorpusSha256",
    "auditRuns",
    "trials",
    "events",
    "upperBound",
    "method",
    "artifactSha256",
]);

/// One tested hypothesis of a certificate: at `parameter` (a risk budget, a threshold), of
/// `trials` relevant cases `events` went wrong; H0 "the error rate exceeds the risk" has
/// p-value `p_value` and was `rejected` (p <= delta, in the method's testing order).
#[derive(Clone, Debug, PartialEq)]
pub struct Hypothesis {
    /// The tested parameter value.
    pub parameter: f64,
    /// The cases the error rate is over.
    pub trials: u64,
    /// Of those, the errors.
    pub events: u64,
    /// The exact p-value of H0.
    pub p_value: f64,
    /// Whether H0 was rejected.
    pub rejected: bool,
}

/// What the calibration proved, and on how much data.
#[derive(Clone, Debug, PartialEq)]
pub struct Certificate {
    /// How the hypotheses were tested, in words (`"learn-then-test, fixed sequence, exact binomial"`).
    pub method: String,
    /// Every tested hypothesis, in testing order.
    pub hypotheses: Vec<Hypothesis>,
    /// Named sample sizes (`calibration`, `warmup`, `heldOut`, ...), in the order given.
    pub sample_sizes: Vec<(String, u64)>,
}

/// The record of a promotion from shadow to enforced: the audit it passed.
#[derive(Clone, Debug, PartialEq)]
pub struct Promotion {
    /// When (RFC 3339).
    pub promoted_at: String,
    /// The digest of the audit runs (disjoint from the calibration corpus).
    pub audit_corpus_sha256: String,
    /// How many audit runs.
    pub audit_runs: u64,
    /// The cases the audited error rate is over (failing audit runs, for a pyramid).
    pub trials: u64,
    /// Of those, the errors (false passes).
    pub events: u64,
    /// The exact upper confidence bound of the error rate at the artifact's delta.
    pub upper_bound: f64,
    /// How the bound was computed (`"clopper-pearson"`).
    pub method: String,
    /// The digest of the artifact it promotes, with `promotion` set to null
    /// ([`Artifact::unpromoted_sha256`]).
    pub artifact_sha256: String,
}

/// A calibration artifact: the envelope, with the kind's `policy` and `body` as values.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifact {
    /// Which engine.
    pub kind: ArtifactKind,
    /// The schema version it was read as (one of [`SCHEMA_VERSIONS_READ`]).
    pub schema_version: u64,
    /// The calibrated policy and its config (the kind's own object).
    pub policy: Value,
    /// The risk the certificate bounds.
    pub risk: f64,
    /// 1 - the confidence it holds with.
    pub delta: f64,
    /// What was certified.
    pub certificate: Certificate,
    /// SHA-256 of the calibration corpus.
    pub corpus_sha256: String,
    /// When it was made (RFC 3339; given by the caller).
    pub created_at: String,
    /// When it stops being trusted (RFC 3339, after `created_at`).
    pub expires_at: String,
    /// The promotion, once promoted.
    pub promotion: Option<Promotion>,
    /// The kind's statistics (an object).
    pub body: Value,
}

fn artifact_error(kind: ErrorKind, path: &str, message: String) -> Error {
    Error::new(ErrorCode::InvalidArtifact, kind, path, message)
}

fn reader<'a>(value: &'a Value, path: &'a str, fields: &[FieldName]) -> Result<ObjectReader<'a>> {
    let reader = ObjectReader::new(value, path, "artifact", Naming::Js, ErrorCode::InvalidArtifact)?;
    reader.reject_unknown(fields)?;
    Ok(reader)
}

fn object_field<'a>(reader: &ObjectReader<'a>, field: FieldName) -> Result<&'a Value> {
    match reader.get(field) {
        Some(v @ Value::Object(_)) => Ok(v),
        other => {
            let path = reader.path_of(field);
            let got = other.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
            Err(artifact_error(ErrorKind::Type, &path.clone(), concat(&[&path, " must be an object, got ", &got])))
        }
    }
}

fn timestamp(reader: &ObjectReader<'_>, field: FieldName) -> Result<(String, i64)> {
    let text = reader.string(field)?;
    match millis_from_rfc3339(text) {
        Some(ms) => Ok((text.to_string(), ms)),
        None => Err(reader.range_error(field, "an RFC 3339 date-time", &Value::string(text))),
    }
}

fn digest_field(reader: &ObjectReader<'_>, field: FieldName) -> Result<String> {
    let text = reader.string(field)?;
    if is_sha256_hex(text) {
        Ok(text.to_string())
    } else {
        Err(not_a_digest(ErrorCode::InvalidArtifact, &reader.path_of(field), text))
    }
}

fn probability(reader: &ObjectReader<'_>, field: FieldName) -> Result<f64> {
    let p = reader.number(field, 0.0, 1.0)?;
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(reader.range_error(field, "a finite number > 0 and < 1", &Value::Number(p)))
    }
}

fn hypothesis(value: &Value, path: &str) -> Result<Hypothesis> {
    let r = reader(value, path, &HYPOTHESIS_FIELDS)?;
    let [parameter, trials, events, p_value, rejected] = HYPOTHESIS_FIELDS;
    let parameter = r.number(parameter, f64::MIN, f64::MAX)?;
    let trials = r.integer(trials, 0, MAX_SAFE_INTEGER)?;
    let events = r.integer(events, 0, trials)?;
    let p_value = r.number(p_value, 0.0, 1.0)?;
    let rejected = r.boolean(rejected)?;
    Ok(Hypothesis { parameter, trials, events, p_value, rejected })
}

fn certificate(value: &Value, path: &str) -> Result<Certificate> {
    let r = reader(value, path, &CERTIFICATE_FIELDS)?;
    let [method, hypotheses_field, sample_sizes_field] = CERTIFICATE_FIELDS;
    let method = r.string(method)?.to_string();
    let hypotheses_path = r.path_of(hypotheses_field);
    let hypotheses = match r.get(hypotheses_field) {
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(hypothesis(item, &index_path(&hypotheses_path, i))?);
            }
            out
        }
        other => {
            let got = other.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
            let message = concat(&[&hypotheses_path, " must be an array, got ", &got]);
            return Err(artifact_error(ErrorKind::Type, &hypotheses_path.clone(), message));
        }
    };
    let sizes_path = r.path_of(sample_sizes_field);
    let Value::Object(entries) = object_field(&r, sample_sizes_field)? else {
        return Err(artifact_error(ErrorKind::Type, &sizes_path.clone(), concat(&[&sizes_path, " must be an object"])));
    };
    let mut sample_sizes = Vec::with_capacity(entries.len());
    for (name, size) in entries {
        let path = concat(&[&sizes_path, ".", name]);
        match size {
            Value::Number(n) if n.is_finite() && n.fract() == 0.0 && *n >= 0.0 && *n <= MAX_SAFE_INTEGER as f64 => {
                sample_sizes.push((name.clone(), *n as u64));
            }
            other => {
                let message = concat(&[&path, " must be an integer >= 0, got ", &other.describe()]);
                return Err(artifact_error(ErrorKind::Range, &path.clone(), message));
            }
        }
    }
    Ok(Certificate { method, hypotheses, sample_sizes })
}

/// The exact (Clopper-Pearson) upper confidence bound of a rate, `events` of `trials`, at
/// confidence 1 - `delta` (one-sided); 1 without trials.
pub fn clopper_pearson_upper(events: u64, trials: u64, delta: f64) -> f64 {
    if trials == 0 || events >= trials {
        return 1.0;
    }
    crate::num::stats::beta_quantile(events as f64 + 1.0, (trials - events) as f64, 1.0 - delta)
}

/// Reads a promotion and checks it against the envelope it is in (`risk`, `delta`, the
/// times and the calibration corpus): what promotion wrote, and nothing it would not have.
fn promotion(value: &Value, path: &str, envelope: &Envelope<'_>) -> Result<Promotion> {
    let r = reader(value, path, &PROMOTION_FIELDS)?;
    let [promoted_at_field, audit_digest, audit_runs, trials_field, events, upper_field, method_field, artifact_digest] =
        PROMOTION_FIELDS;
    let (promoted_at, promoted_ms) = timestamp(&r, promoted_at_field)?;
    // An expired artifact is never promoted (hosts' clocks may differ, so a promotion
    // stamped before createdAt is not refused).
    if promoted_ms >= envelope.expires_ms {
        let path = r.path_of(promoted_at_field);
        let message = concat(&[&path, " must be before expiresAt (", envelope.expires_at, "), got ", &promoted_at]);
        return Err(artifact_error(ErrorKind::Range, &path.clone(), message));
    }
    let audit_corpus_sha256 = digest_field(&r, audit_digest)?;
    if audit_corpus_sha256 == envelope.corpus_sha256 {
        let path = r.path_of(audit_digest);
        let message = concat(&[&path, " is the calibration corpus's digest: a promotion audits a disjoint split"]);
        return Err(artifact_error(ErrorKind::Range, &path.clone(), message));
    }
    let audit_runs = r.integer(audit_runs, 0, MAX_SAFE_INTEGER)?;
    let trials = r.integer(trials_field, 0, audit_runs)?;
    if trials == 0 {
        let path = r.path_of(trials_field);
        let message = concat(&[&path, " must be at least 1 (no failing audit run bounds no rate)"]);
        return Err(artifact_error(ErrorKind::Range, &path.clone(), message));
    }
    let events = r.integer(events, 0, trials)?;
    let upper_bound = r.number(upper_field, 0.0, 1.0)?;
    let exact = clopper_pearson_upper(events, trials, envelope.delta);
    let upper_path = r.path_of(upper_field);
    if (upper_bound - exact).abs() > UPPER_BOUND_TOLERANCE {
        let message = concat(&[
            &upper_path,
            " must be the exact upper bound of its events of trials at delta (",
            &num::to_js_string(exact),
            "), got ",
            &num::to_js_string(upper_bound),
        ]);
        return Err(artifact_error(ErrorKind::Range, &upper_path.clone(), message));
    }
    if upper_bound > envelope.risk {
        let message = concat(&[
            &upper_path,
            " must be at most the risk (",
            &num::to_js_string(envelope.risk),
            ") for a promotion, got ",
            &num::to_js_string(upper_bound),
        ]);
        return Err(artifact_error(ErrorKind::Range, &upper_path.clone(), message));
    }
    let method = r.string(method_field)?.to_string();
    if method != PROMOTION_METHOD {
        return Err(r.range_error(method_field, "'clopper-pearson'", &Value::string(method.as_str())));
    }
    let artifact_sha256 = digest_field(&r, artifact_digest)?;
    Ok(Promotion { promoted_at, audit_corpus_sha256, audit_runs, trials, events, upper_bound, method, artifact_sha256 })
}

/// The envelope fields a promotion is checked against.
struct Envelope<'a> {
    risk: f64,
    delta: f64,
    corpus_sha256: &'a str,
    expires_at: &'a str,
    expires_ms: i64,
}

/// `version 1` or `versions 1 and 2` (or `versions 1, 2 and 3`): the versions this build reads.
fn versions_read() -> String {
    let mut names = Vec::with_capacity(SCHEMA_VERSIONS_READ.len());
    for v in SCHEMA_VERSIONS_READ {
        names.push(num::uint_string(v));
    }
    match names.split_last() {
        Some((last, [])) => concat(&["version ", last]),
        Some((last, rest)) => {
            let refs: Vec<&str> = rest.iter().map(String::as_str).collect();
            concat(&["versions ", &join(&refs, ", "), " and ", last])
        }
        None => String::new(),
    }
}

impl Artifact {
    /// Reads and validates an artifact; every error has code `invalid_artifact` and names
    /// the field's path (`certificate.hypotheses[2].pValue`). The kind and the schema
    /// version are checked first: an artifact of a version this build does not read is
    /// refused by a message listing the versions it reads, whatever else it holds.
    pub fn from_value(value: &Value) -> Result<Artifact> {
        let r = ObjectReader::new(value, "", "artifact", Naming::Js, ErrorCode::InvalidArtifact)?;
        let [kind, version, policy, risk, delta, certificate_field, corpus, created, expires, promotion_field, body] =
            ARTIFACT_FIELDS;
        let kind_name = r.choice(kind, &ArtifactKind::NAMES)?;
        let kind = if kind_name == ArtifactKind::Loop.as_str() { ArtifactKind::Loop } else { ArtifactKind::Pyramid };
        let schema_version = r.integer(version, 0, MAX_SAFE_INTEGER)?;
        if !SCHEMA_VERSIONS_READ.contains(&schema_version) {
            let message = concat(&[
                "artifact schema version ",
                &num::uint_string(schema_version),
                " is not supported (this build reads ",
                &versions_read(),
                ")",
            ]);
            return Err(artifact_error(ErrorKind::Range, "schemaVersion", message));
        }
        r.reject_unknown(&ARTIFACT_FIELDS)?;
        let policy = object_field(&r, policy)?.clone();
        let risk = probability(&r, risk)?;
        let delta = probability(&r, delta)?;
        let certificate = certificate(object_field(&r, certificate_field)?, "certificate")?;
        let corpus_sha256 = digest_field(&r, corpus)?;
        let (created_at, created_ms) = timestamp(&r, created)?;
        let (expires_at, expires_ms) = timestamp(&r, expires)?;
        if expires_ms <= created_ms {
            let message = concat(&["expiresAt must be after createdAt (", &created_at, "), got ", &expires_at]);
            return Err(artifact_error(ErrorKind::Range, "expiresAt", message));
        }
        let envelope = Envelope { risk, delta, corpus_sha256: &corpus_sha256, expires_at: &expires_at, expires_ms };
        let promotion = match r.get(promotion_field) {
            None | Some(Value::Null) => None,
            // Written before promotions carried the artifact's digest: not trusted, not read.
            Some(_) if schema_version < FIRST_DIGESTED_PROMOTION => None,
            Some(v) => Some(promotion(v, "promotion", &envelope)?),
        };
        let body = object_field(&r, body)?.clone();
        Ok(Artifact {
            kind,
            schema_version,
            policy,
            risk,
            delta,
            certificate,
            corpus_sha256,
            created_at,
            expires_at,
            promotion,
            body,
        })
    }

    /// Parses artifact JSON text (a document within the limits) and reads it.
    pub fn parse(text: &str) -> Result<Artifact> {
        Artifact::from_value(&Value::parse_json(text, ErrorCode::InvalidArtifact, "artifact")?)
    }

    /// The artifact as a value, keys in [`ARTIFACT_FIELDS`] order (written at
    /// [`SCHEMA_VERSION`], whatever version it was read as).
    pub fn to_value(&self) -> Value {
        let hypotheses = self
            .certificate
            .hypotheses
            .iter()
            .map(|h| {
                Value::object(vec![
                    ("parameter", Value::Number(h.parameter)),
                    ("trials", Value::Number(h.trials as f64)),
                    ("events", Value::Number(h.events as f64)),
                    ("pValue", Value::Number(h.p_value)),
                    ("rejected", Value::Bool(h.rejected)),
                ])
            })
            .collect();
        let sizes =
            self.certificate.sample_sizes.iter().map(|(name, n)| (name.clone(), Value::Number(*n as f64))).collect();
        let promotion = self.promotion.as_ref().map_or(Value::Null, |p| {
            Value::object(vec![
                ("promotedAt", Value::string(p.promoted_at.as_str())),
                ("auditCorpusSha256", Value::string(p.audit_corpus_sha256.as_str())),
                ("auditRuns", Value::Number(p.audit_runs as f64)),
                ("trials", Value::Number(p.trials as f64)),
                ("events", Value::Number(p.events as f64)),
                ("upperBound", Value::Number(p.upper_bound)),
                ("method", Value::string(p.method.as_str())),
                ("artifactSha256", Value::string(p.artifact_sha256.as_str())),
            ])
        });
        Value::object(vec![
            ("kind", Value::string(self.kind.as_str())),
            ("schemaVersion", Value::Number(SCHEMA_VERSION as f64)),
            ("policy", self.policy.clone()),
            ("risk", Value::Number(self.risk)),
            ("delta", Value::Number(self.delta)),
            (
                "certificate",
                Value::object(vec![
                    ("method", Value::string(self.certificate.method.as_str())),
                    ("hypotheses", Value::Array(hypotheses)),
                    ("sampleSizes", Value::Object(sizes)),
                ]),
            ),
            ("corpusSha256", Value::string(self.corpus_sha256.as_str())),
            ("createdAt", Value::string(self.created_at.as_str())),
            ("expiresAt", Value::string(self.expires_at.as_str())),
            ("promotion", promotion),
            ("body", self.body.clone()),
        ])
    }

    /// The digest a promotion of this artifact records: SHA-256 (the host's `sha256`) over
    /// the canonical JSON of the artifact as written ([`Artifact::to_value`]) with
    /// `promotion` set to null.
    pub fn unpromoted_sha256(&self, sha256: &dyn Sha256) -> Result<String> {
        let unpromoted = Artifact { promotion: None, ..self.clone() };
        digest(&unpromoted.to_value(), sha256, ErrorCode::InvalidArtifact, "artifact")
    }

    /// Checks that the promotion, if any, is this artifact's: its `artifactSha256` is
    /// [`Artifact::unpromoted_sha256`] (code `invalid_artifact` at
    /// `promotion.artifactSha256` otherwise: a promotion pasted from another artifact, or an
    /// artifact edited after it was promoted).
    pub fn check_promotion(&self, sha256: &dyn Sha256) -> Result<()> {
        let Some(promotion) = &self.promotion else { return Ok(()) };
        let expected = self.unpromoted_sha256(sha256)?;
        if promotion.artifact_sha256 == expected {
            return Ok(());
        }
        let message = concat(&[
            "promotion.artifactSha256 is not this artifact's digest (",
            &expected,
            "), got ",
            &promotion.artifact_sha256,
            ": the promotion is another artifact's, or the artifact changed after it was promoted",
        ]);
        Err(artifact_error(ErrorKind::Range, "promotion.artifactSha256", message))
    }

    /// The artifact as JSON text.
    pub fn to_json(&self) -> String {
        self.to_value().to_json()
    }

    /// Whether the artifact has expired at `now_ms` (milliseconds since the Unix epoch,
    /// given by the caller: the core has no clock). It expires at `expires_at` exactly.
    pub fn is_expired(&self, now_ms: i64) -> bool {
        millis_from_rfc3339(&self.expires_at).is_none_or(|expires| now_ms >= expires)
    }
}

/// An artifact as callers hand it over: a document value, or its JSON text (parsed within
/// the document limits; `invalid_artifact` at `artifact` when it is not JSON). Every reader
/// of an artifact takes either form through this.
pub fn document(artifact: &Value) -> Result<std::borrow::Cow<'_, Value>> {
    match artifact {
        Value::String(text) => {
            Value::parse_json(text, ErrorCode::InvalidArtifact, "artifact").map(std::borrow::Cow::Owned)
        }
        other => Ok(std::borrow::Cow::Borrowed(other)),
    }
}

/// The path of the first place where two copies of one value differ (`None` when they
/// agree): objects compare key by key whatever their order, arrays item by item, numbers
/// by value. `path` is `a`'s.
pub(crate) fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, item) in x {
                let at = concat(&[path, ".", key]);
                match b.get(key) {
                    Some(other) => {
                        if let Some(found) = first_difference(item, other, &at) {
                            return Some(found);
                        }
                    }
                    None => return Some(at),
                }
            }
            y.iter().find(|(key, _)| a.get(key).is_none()).map(|(key, _)| concat(&[path, ".", key]))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (item, other)) in x.iter().zip(y).enumerate() {
                if let Some(found) = first_difference(item, other, &index_path(path, i)) {
                    return Some(found);
                }
            }
            (x.len() != y.len()).then(|| index_path(path, x.len().min(y.len())))
        }
        _ => (a != b).then(|| path.to_string()),
    }
}

/// The error for a copy of a value that disagrees with the one it copies, at `path`.
pub(crate) fn disagreeing_copy(path: &str, copied: &str) -> Error {
    artifact_error(
        ErrorKind::Range,
        path,
        concat(&[path, " must equal ", copied, " (copies of one value in an artifact must agree)"]),
    )
}
