//! A calibration artifact as a pyramid policy: the envelope ([`crate::artifact::Artifact`])
//! of kind `pyramid`, with its policy, calibrated config and trained model read
//! ([`read_pyramid_artifact`]). A live run takes one as its `policy`.
//!
//! Read, an artifact is cross-checked: its promotion is its own (the host's SHA-256), the
//! calibrated `riskBudget` is within the budget the certificate certifies, and the copies a
//! calibration answer carries beside the envelope (`riskBudget`, `config`, `steps`, `model`)
//! agree with it.

use crate::artifact::{disagreeing_copy, first_difference, Artifact, ArtifactKind, Sha256};
use crate::pyramid::policy::config::PolicyConfig;
use crate::pyramid::policy::history::model_argument;
use crate::pyramid::policy::label::read_label;
use crate::pyramid::policy::model::OutcomeModel;
use crate::value::{concat, Error, ErrorCode, ErrorKind, Naming, Result, Value};

/// A pyramid artifact, with its policy, config and model read.
pub struct PyramidArtifact {
    /// The envelope.
    pub artifact: Artifact,
    /// The policy preset's name.
    pub policy: String,
    /// Its calibrated config.
    pub config: PolicyConfig,
    /// The model calibration trained.
    pub model: OutcomeModel,
}

/// The keys a calibration answer has besides the envelope's (its figures, kept so the answer
/// reads as it did): dropped when the answer is read back as an artifact.
const CALIBRATION_KEYS: [&str; 4] = ["riskBudget", "config", "steps", "model"];

/// Reads a pyramid artifact (or a calibration answer, whose extra keys are its figures):
/// `invalid_artifact` errors naming the path. The promotion, if any, is checked with the
/// host's `sha256` ([`Artifact::check_promotion`]).
pub fn read_pyramid_artifact(value: &Value, sha256: &dyn Sha256) -> Result<PyramidArtifact> {
    let artifact = read_unchecked(value)?;
    artifact.artifact.check_promotion(sha256)?;
    Ok(artifact)
}

/// [`read_pyramid_artifact`] without the promotion's digest check (the caller checks it, or
/// refuses a promotion it cannot check).
pub(crate) fn read_unchecked(value: &Value) -> Result<PyramidArtifact> {
    let envelope = match value {
        Value::Object(entries) => {
            let snake = ["risk_budget"];
            let kept: Vec<(String, Value)> = entries
                .iter()
                .filter(|(k, _)| !CALIBRATION_KEYS.contains(&k.as_str()) && !snake.contains(&k.as_str()))
                .cloned()
                .collect();
            Value::Object(kept)
        }
        Value::String(_) => return read_unchecked(&*crate::artifact::document(value)?),
        other => other.clone(),
    };
    let artifact = Artifact::from_value(&envelope)?;
    let bad = |field: &str, message: &str| {
        Error::new(ErrorCode::InvalidArtifact, ErrorKind::Range, field, concat(&[field, " ", message]))
    };
    if artifact.kind != ArtifactKind::Pyramid {
        return Err(bad("kind", "must be 'pyramid' for a pyramid policy"));
    }
    let policy = match artifact.policy.get("policy").and_then(Value::as_str) {
        Some(name @ ("fail_fast" | "risk_bounded")) => name.to_string(),
        _ => return Err(bad("policy.policy", "must be 'fail_fast' or 'risk_bounded'")),
    };
    let preset = PolicyConfig::preset(&policy).unwrap_or(PolicyConfig::FAIL_FAST);
    let config = preset
        .merged(artifact.policy.get("config").unwrap_or(&Value::Null), Naming::Js, "policy.config")
        .map_err(|e| e.nested(ErrorCode::InvalidArtifact, ""))?;
    // The label slices' labels, read as runs' labels are (the drift check matches by them).
    if let Some(slices) = artifact.body.get("slices") {
        let Value::Array(items) = slices else {
            let message = concat(&["body.slices must be an array, got ", &slices.describe()]);
            return Err(Error::new(ErrorCode::InvalidArtifact, ErrorKind::Type, "body.slices", message));
        };
        for (i, slice) in items.iter().enumerate() {
            if let Some(label) = slice.get("label") {
                let path = concat(&[&crate::value::index_path("body.slices", i), ".label"]);
                read_label(label, &path, ErrorCode::InvalidArtifact)?;
            }
        }
    }
    let model = match artifact.body.get("model") {
        None | Some(Value::Null) => OutcomeModel::new(),
        Some(doc) => model_argument(doc, &config).map_err(|e| e.nested(ErrorCode::InvalidArtifact, "body.model"))?,
    };
    check_budget(&artifact, &config)?;
    if let Value::Object(_) = value {
        check_answer_copies(value, &artifact, &config)?;
    }
    Ok(PyramidArtifact { artifact, policy, config, model })
}

/// The budget the certificate certifies: the tested budgets are rejected in order (fixed
/// sequence), and the last of the leading rejected ones is certified (0 when none is).
fn certified_budget(artifact: &Artifact) -> f64 {
    artifact.certificate.hypotheses.iter().take_while(|h| h.rejected).last().map_or(0.0, |h| h.parameter)
}

/// The calibrated config's `riskBudget` must be within the certified budget: a larger one
/// skips more than the certificate covers.
fn check_budget(artifact: &Artifact, config: &PolicyConfig) -> Result<()> {
    let certified = certified_budget(artifact);
    if config.risk_budget <= certified {
        return Ok(());
    }
    let field = "policy.config.riskBudget";
    let message = concat(&[
        field,
        " must be at most the budget the certificate certifies (",
        &crate::num::to_js_string(certified),
        ", the last of certificate.hypotheses rejected in order), got ",
        &crate::num::to_js_string(config.risk_budget),
    ]);
    Err(Error::new(ErrorCode::InvalidArtifact, ErrorKind::Range, field, message))
}

/// A calibration answer's figures beside the envelope are copies of it: `riskBudget` and
/// `config` of `policy.config`, `steps` of `certificate.hypotheses`, `model` of `body.model`
/// (in the answer's spelling: `risk_budget` marks a Python answer).
fn check_answer_copies(answer: &Value, artifact: &Artifact, config: &PolicyConfig) -> Result<()> {
    let naming = if answer.get("risk_budget").is_some() { Naming::Snake } else { Naming::Js };
    let key = |js: &'static str, snake: &'static str| if naming == Naming::Js { js } else { snake };
    let budget_key = key("riskBudget", "risk_budget");
    if let Some(budget) = answer.get(budget_key) {
        if budget.as_f64() != Some(config.risk_budget) {
            return Err(disagreeing_copy(budget_key, "policy.config.riskBudget"));
        }
    }
    if let Some(copy) = answer.get("config") {
        let written = config.to_value(naming);
        if let Some(path) = first_difference(copy, &written, "config") {
            return Err(disagreeing_copy(&path, "policy.config"));
        }
    }
    if let Some(copy) = answer.get("model") {
        let body_model = artifact.body.get("model").unwrap_or(&Value::Null);
        if let Some(path) = first_difference(copy, body_model, "model") {
            return Err(disagreeing_copy(&path, "body.model"));
        }
    }
    if let Some(steps) = answer.get("steps") {
        let hypotheses = &artifact.certificate.hypotheses;
        let Value::Array(items) = steps else {
            return Err(disagreeing_copy("steps", "certificate.hypotheses"));
        };
        if items.len() != hypotheses.len() {
            return Err(disagreeing_copy("steps", "certificate.hypotheses"));
        }
        for (i, (step, h)) in items.iter().zip(hypotheses).enumerate() {
            let copies: [(&str, Value); 5] = [
                (budget_key, Value::Number(h.parameter)),
                (key("failingRuns", "failing_runs"), Value::Number(h.trials as f64)),
                ("missed", Value::Number(h.events as f64)),
                (key("pValue", "p_value"), Value::Number(h.p_value)),
                ("certified", Value::Bool(h.rejected)),
            ];
            for (name, expected) in copies {
                if step.get(name) != Some(&expected) {
                    let path = concat(&[&crate::value::index_path("steps", i), ".", name]);
                    let copied = concat(&[&crate::value::index_path("certificate.hypotheses", i), " (", name, ")"]);
                    return Err(disagreeing_copy(&path, &copied));
                }
            }
        }
    }
    Ok(())
}
