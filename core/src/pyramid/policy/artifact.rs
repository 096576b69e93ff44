//! A calibration artifact as a pyramid policy: the envelope ([`crate::artifact::Artifact`])
//! of kind `pyramid`, with its policy, calibrated config and trained model read
//! ([`read_pyramid_artifact`]). A live run takes one as its `policy`.

use crate::artifact::{Artifact, ArtifactKind};
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
/// `invalid_artifact` errors naming the path.
pub fn read_pyramid_artifact(value: &Value) -> Result<PyramidArtifact> {
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
        Value::String(_) => return read_pyramid_artifact(&*crate::artifact::document(value)?),
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
    Ok(PyramidArtifact { artifact, policy, config, model })
}
