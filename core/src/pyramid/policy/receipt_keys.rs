//! The keys of a pyramid receipt, once for both of its readers: a policy's receipt
//! (`receipt`) and the ADR's (`adr_receipt`), which share every key but a few of their own.

use crate::value::FieldName;

pub(super) const KIND: FieldName = FieldName::same("kind");
pub(super) const VERSION: FieldName = FieldName::same("receiptVersion");
pub(super) const RUN_ID: FieldName = FieldName::same("runId");
pub(super) const RUN_LABEL: FieldName = FieldName::same("runLabel");
pub(super) const LAYER: FieldName = FieldName::same("layer");
pub(super) const LAYER_NAME: FieldName = FieldName::same("layerName");
pub(super) const LAYERS_RUN: FieldName = FieldName::same("layersRun");
pub(super) const POLICY: FieldName = FieldName::same("policy");
pub(super) const CONFIG: FieldName = FieldName::same("config");
pub(super) const TOTAL_LAYERS: FieldName = FieldName::same("totalLayers");
pub(super) const EXIT_REASON: FieldName = FieldName::same("exitReason");
pub(super) const SIGNAL: FieldName = FieldName::same("signal");
pub(super) const DECISION: FieldName = FieldName::same("decision");
pub(super) const FAILING_LAYERS: FieldName = FieldName::same("failingLayers");
pub(super) const SPECULATIONS: FieldName = FieldName::same("speculations");
pub(super) const VERIFICATION: FieldName = FieldName::same("verification");
pub(super) const SKIPPED: FieldName = FieldName::same("skipped");
pub(super) const FIRST_MISSED: FieldName = FieldName::same("firstMissedFailure");
pub(super) const LABEL: FieldName = FieldName::same("label");
pub(super) const SAVED: FieldName = FieldName::same("computeSavedMs");
pub(super) const NAME: FieldName = FieldName::same("name");
pub(super) const PREDICTED: FieldName = FieldName::same("predicted");
pub(super) const CONFIDENCE: FieldName = FieldName::same("confidence");
pub(super) const ACTUAL: FieldName = FieldName::same("actual");
pub(super) const COST_MS: FieldName = FieldName::same("costMs");
