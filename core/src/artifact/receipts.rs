//! The receipt log: shadow-mode receipts, one JSON object a line, each carrying the digest
//! of the line before it (`prevHash`, `null` on the first line) and its own (`sha256`, over
//! the canonical JSON of the receipt without `sha256`). A deleted, reordered, inserted or
//! edited line breaks the chain at that line; [`verify_receipts`] recomputes it and says
//! where. (Cutting lines off the end leaves a shorter valid chain: keep the last `sha256`
//! somewhere else, such as a CI artifact, and compare it with the report's `head`.)

use crate::artifact::digest::{digest, is_sha256_hex, Sha256};
use crate::num::uint_string;
use crate::pyramid::policy::RECEIPT_VERSION;
use crate::pyramid::policy::{read_label, PolicyConfig, ReceiptLabel, RunPolicy, StopReason, POLICY_CONFIG_FIELDS};
use crate::value::limits::MAX_LAYERS;
use crate::value::{add_to_total, index_path, nonempty_array, ObjectReader};
use crate::value::{concat, Error, ErrorCode, ErrorKind, FieldName, JsonReading, Naming, ObjectBuilder, Result, Value};
use std::collections::BTreeMap;

const CODE: ErrorCode = ErrorCode::InvalidReceipt;

/// Where a receipt log's chain breaks.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainBreak {
    /// The line (1-based) that does not verify.
    pub line: usize,
    /// The field at fault (`prevHash`, `sha256`, ...; empty for a line that is not JSON).
    pub field: String,
    /// Why, in words.
    pub reason: String,
}

/// What [`verify_receipts`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiptCheck {
    /// Receipts counted (up to the break): each run once.
    pub receipts: usize,
    /// Lines that repeat an earlier receipt of the same run, body and all (a retried step
    /// appended it again): verified, not counted.
    pub repeated: usize,
    /// The last verified receipt's `sha256` (`None` for an empty log).
    pub head: Option<String>,
    /// The first break, if any: nothing from that line on is trusted.
    pub broken: Option<ChainBreak>,
    /// Verified receipts by `label` (label, count), in first-seen order.
    pub labels: Vec<(String, usize)>,
    /// Per slice (the receipts' `policy`), in first-seen order: (slice, labels as above).
    pub slices: Vec<(String, Vec<(String, usize)>)>,
    /// Per user label (the receipts' `runLabel`: a branch, a runner pool), in first-seen
    /// order: (label, labels as above). Receipts without one are in none.
    pub run_labels: Vec<(String, Vec<(String, usize)>)>,
}

/// `{count, of, rate, wilson}`: `count` of `of`, the rate and its Wilson 95% interval (null
/// without cases).
fn rate_value(count: usize, of: usize) -> Value {
    let wilson = crate::num::stats::wilson_interval(count as u64, of as u64)
        .map_or(Value::Null, |(lo, hi)| Value::Array(vec![Value::Number(lo), Value::Number(hi)]));
    ObjectBuilder::new()
        .number("count", count as f64)
        .number("of", of as f64)
        .opt_number("rate", (of > 0).then(|| count as f64 / of as f64))
        .value("wilson", wilson)
        .build()
}

fn count_of(labels: &[(String, usize)], label: &str) -> usize {
    labels.iter().find(|(l, _)| l == label).map_or(0, |(_, n)| *n)
}

/// The rates of a set of receipts (docs/test-exit.md defines them): false passes among green
/// exits, needless runs among receipts.
fn rates_value(labels: &[(String, usize)]) -> Value {
    let (correct, false_pass, needless) =
        (count_of(labels, "correct_skip"), count_of(labels, "false_pass"), count_of(labels, "needless_run"));
    let total: usize = labels.iter().map(|(_, n)| n).sum();
    ObjectBuilder::new()
        .value("falsePass", rate_value(false_pass, correct + false_pass))
        .value("needlessRun", rate_value(needless, total))
        .build()
}

fn bump(labels: &mut Vec<(String, usize)>, label: &str) {
    match labels.iter_mut().find(|(l, _)| l == label) {
        Some((_, n)) => *n += 1,
        None => labels.push((label.to_string(), 1)),
    }
}

impl ReceiptCheck {
    /// Whether every line verified.
    pub fn valid(&self) -> bool {
        self.broken.is_none()
    }

    /// `{valid, receipts, repeated, head, brokenAt: {line, field, reason} | null, labels: {label: n},
    /// rates, slices, labelSlices}`.
    pub fn to_value(&self) -> Value {
        let broken = self.broken.as_ref().map_or(Value::Null, |b| {
            ObjectBuilder::new()
                .number("line", b.line as f64)
                .string("field", &b.field)
                .string("reason", &b.reason)
                .build()
        });
        let labels_of = |labels: &[(String, usize)]| {
            Value::Object(labels.iter().map(|(l, n)| (l.clone(), Value::Number(*n as f64))).collect())
        };
        let slices_of = |slices: &[(String, Vec<(String, usize)>)], key: &str| {
            let items = slices
                .iter()
                .map(|(slice, labels)| {
                    ObjectBuilder::new()
                        .string(key, slice)
                        .number("receipts", labels.iter().map(|(_, n)| *n).sum::<usize>() as f64)
                        .value("labels", labels_of(labels))
                        .value("rates", rates_value(labels))
                        .build()
                })
                .collect();
            Value::Array(items)
        };
        ObjectBuilder::new()
            .value("valid", Value::Bool(self.valid()))
            .number("receipts", self.receipts as f64)
            .number("repeated", self.repeated as f64)
            .value("head", self.head.as_deref().map_or(Value::Null, Value::string))
            .value("brokenAt", broken)
            .value("labels", labels_of(&self.labels))
            .value("rates", rates_value(&self.labels))
            .value("slices", slices_of(&self.slices, "slice"))
            .value("labelSlices", slices_of(&self.run_labels, "runLabel"))
            .build()
    }
}

fn line_text(line: usize) -> String {
    concat(&["line ", &uint_string(line as u64)])
}

/// Recomputes the chain of a JSONL receipt log (blank lines are skipped; line numbers count
/// them) and reads every receipt as [`append_receipts`] checks it. Never trusts a line it
/// could not verify: the report stops at the first break. A receipt that repeats an earlier
/// one (same `kind`, `policy` and `runId`, same body) verifies but is counted once
/// (`repeated`); one that states another body for the same run breaks the chain (`runId`).
pub fn verify_receipts(text: &str, sha256: &dyn Sha256) -> ReceiptCheck {
    read_log(text, sha256).0
}

/// The runs a log holds, by (`policy`, `runId`): the first receipt's line, `sha256` and
/// `prevHash`. Another receipt has the same body exactly when, chained after that same
/// `prevHash`, it has that `sha256`: one digest, taken only when a run repeats. Receipts
/// without a `runId` name no run and are not in it.
type SeenRuns = BTreeMap<(String, String), FirstReceipt>;

/// Where a run's first receipt is in a log (see [`SeenRuns`]).
struct FirstReceipt {
    line: usize,
    sha256: String,
    prev: Option<String>,
}

impl FirstReceipt {
    /// Whether `receipt` (its chain fields are left out) has the first receipt's body.
    fn same_body(&self, receipt: &[(String, Value)], sha256: &dyn Sha256, path: &str) -> Result<bool> {
        let mut entries: Vec<(String, Value)> =
            receipt.iter().filter(|(k, _)| k != "sha256" && k != "prevHash").cloned().collect();
        entries.push(("prevHash".into(), self.prev.as_deref().map_or(Value::Null, Value::string)));
        Ok(digest(&Value::Object(entries), sha256, CODE, path)? == self.sha256)
    }
}

fn read_log(text: &str, sha256: &dyn Sha256) -> (ReceiptCheck, SeenRuns, usize) {
    let mut check = ReceiptCheck {
        receipts: 0,
        repeated: 0,
        head: None,
        broken: None,
        labels: Vec::new(),
        slices: Vec::new(),
        run_labels: Vec::new(),
    };
    let mut seen = SeenRuns::new();
    let mut lines = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        lines = line;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        match verify_line(raw, line, check.head.as_deref(), sha256) {
            Ok(verified) => {
                let facts = verified.facts;
                if let Some(key) = facts.run_key() {
                    match seen.get(&key) {
                        Some(first) => {
                            let at = line_text(line);
                            if first.same_body(&verified.line, sha256, &at).unwrap_or(false) {
                                check.head = Some(verified.hash);
                                check.repeated += 1;
                                continue;
                            }
                            let reason = concat(&[&at, ": ", &conflict_text(&facts, "", first.line)]);
                            check.broken = Some(ChainBreak { line, field: "runId".to_string(), reason });
                            break;
                        }
                        None => {
                            let first = FirstReceipt { line, sha256: verified.hash.clone(), prev: check.head.clone() };
                            seen.insert(key, first);
                        }
                    }
                }
                check.head = Some(verified.hash);
                check.receipts += 1;
                let label = facts.label.as_str();
                bump(&mut check.labels, label);
                bump_slice(&mut check.slices, facts.policy, label);
                if let Some(run_label) = facts.run_label {
                    bump_slice(&mut check.run_labels, run_label, label);
                }
            }
            Err((field, reason)) => {
                check.broken = Some(ChainBreak { line, field, reason });
                break;
            }
        }
    }
    (check, seen, lines)
}

/// "runId 'x' of policy 'p' is already in the log (line n) with another receipt ...".
fn conflict_text(facts: &ReceiptFacts, path: &str, first: usize) -> String {
    let field = if path.is_empty() { "runId".to_string() } else { concat(&[path, ".runId"]) };
    concat(&[
        &field,
        " ",
        &Value::string(facts.run_id.as_deref().unwrap_or_default()).describe(),
        " of policy '",
        &facts.policy,
        "' is already in the log (",
        &line_text(first),
        ") with another receipt: a run has one receipt, and a retried step appends the same one",
    ])
}

fn bump_slice(slices: &mut Vec<(String, Vec<(String, usize)>)>, slice: String, label: &str) {
    match slices.iter_mut().find(|(s, _)| *s == slice) {
        Some((_, labels)) => bump(labels, label),
        None => slices.push((slice, vec![(label.to_string(), 1)])),
    }
}

/// A verified line: its digest, the digest of its body (without the chain fields) and what
/// the report reads of it.
struct VerifiedLine {
    hash: String,
    line: Vec<(String, Value)>,
    facts: ReceiptFacts,
}

type LineResult = std::result::Result<VerifiedLine, (String, String)>;

fn verify_line(raw: &str, line: usize, previous: Option<&str>, sha256: &dyn Sha256) -> LineResult {
    let at = line_text(line);
    let reading = JsonReading::DOCUMENT.refusing_repeated_keys();
    let value = Value::parse_json_as(raw, CODE, &at, reading)
        .map_err(|e| (String::new(), concat(&[&at, " is not JSON: ", e.message()])))?;
    let Value::Object(entries) = &value else {
        return Err((String::new(), concat(&[&at, " is not a JSON object"])));
    };
    let claimed = match value.get("sha256") {
        Some(Value::String(s)) if is_sha256_hex(s) => s.clone(),
        _ => {
            let reason = concat(&[&at, ": sha256 must be a SHA-256 digest (64 lowercase hex digits)"]);
            return Err(("sha256".to_string(), reason));
        }
    };
    let prev = match value.get("prevHash") {
        Some(Value::Null) => None,
        Some(Value::String(s)) if is_sha256_hex(s) => Some(s.as_str()),
        _ => return Err(("prevHash".to_string(), concat(&[&at, ": prevHash must be null or a SHA-256 digest"]))),
    };
    if prev != previous {
        let reason = match previous {
            None => concat(&[&at, ": prevHash must be null on the first receipt (a line before it was deleted?)"]),
            Some(_) => concat(&[
                &at,
                ": prevHash is not the sha256 of the receipt before it (a line deleted, reordered or inserted)",
            ]),
        };
        return Err(("prevHash".to_string(), reason));
    }
    let hashed: Vec<(String, Value)> = entries.iter().filter(|(k, _)| k != "sha256").cloned().collect();
    let computed =
        digest(&Value::Object(hashed), sha256, CODE, &at).map_err(|e| (String::new(), e.message().to_string()))?;
    if computed != claimed {
        return Err(("sha256".to_string(), concat(&[&at, ": sha256 does not match the receipt's content (edited)"])));
    }
    let facts = read_receipt(&value, "", &LINE_FIELDS)
        .map_err(|e| (e.field().to_string(), concat(&[&at, ": ", e.message()])))?;
    let Value::Object(line) = value else { return Err((String::new(), concat(&[&at, " is not a JSON object"]))) };
    Ok(VerifiedLine { hash: claimed, line, facts })
}

/// The lines that append `receipts` (receipt documents without chain fields, such as a
/// shadow-mode result's `shadow.receipts`) to the log `log` (its text; empty for a new log),
/// each chained to the one before: JSONL text, one line per receipt, each ending in a
/// newline (and a newline first when `log` does not end in one); empty when there is
/// nothing to append. A log whose chain is broken is refused (`invalid_receipt`, naming the
/// line): nothing is appended to it. Each receipt is read as the core writes it (the rules
/// are in docs/test-exit.md, "Receipts"); a receipt whose `kind`, `policy` and `runId` are
/// already in the log (or earlier in `receipts`) is left out when its body is equal (a
/// retried step), and refused (field `receipts[i].runId`) when it differs.
pub fn append_receipts(log: &str, receipts: &[Value], sha256: &dyn Sha256) -> Result<String> {
    let (check, mut seen, mut line) = read_log(log, sha256);
    if let Some(b) = check.broken {
        let message = concat(&["the receipt log does not verify, nothing appended: ", &b.reason]);
        return Err(Error::new(CODE, ErrorKind::Range, concat(&["log.", &line_text(b.line)]), message));
    }
    // The text ends after line `line` (which is empty when the log ends in a newline).
    let unterminated = !log.is_empty() && !log.ends_with('\n');
    if !unterminated {
        line = line.saturating_sub(1);
    }
    let mut previous = check.head;
    let mut out = String::new();
    for (i, receipt) in receipts.iter().enumerate() {
        let path = crate::value::index_path("receipts", i);
        let Value::Object(entries) = receipt else {
            let message = concat(&[&path, " must be an object, got ", &receipt.describe()]);
            return Err(Error::new(CODE, ErrorKind::Type, path, message));
        };
        if let Some((key, _)) = entries.iter().find(|(k, _)| k == "sha256" || k == "prevHash") {
            let field = concat(&[&path, ".", key]);
            let message = concat(&[&field, " is a chain field: give receipts as a result holds them"]);
            return Err(Error::new(CODE, ErrorKind::Range, field, message));
        }
        let facts = read_receipt(receipt, &path, &RECEIPT_FIELDS)?;
        let key = facts.run_key();
        if let Some(first) = key.as_ref().and_then(|k| seen.get(k)) {
            if first.same_body(entries, sha256, &path)? {
                continue;
            }
            let field = concat(&[&path, ".runId"]);
            return Err(Error::new(CODE, ErrorKind::Range, field, conflict_text(&facts, &path, first.line)));
        }
        let mut body = entries.clone();
        body.push(("prevHash".into(), previous.as_deref().map_or(Value::Null, Value::string)));
        let hash = digest(&Value::Object(body.clone()), sha256, CODE, &path)?;
        if let Some(key) = key {
            seen.insert(key, FirstReceipt { line: line + 1, sha256: hash.clone(), prev: previous.clone() });
        }
        body.push(("sha256".into(), Value::string(hash.as_str())));
        if out.is_empty() && unterminated {
            out.push('\n');
        }
        out.push_str(&Value::Object(body).to_json());
        out.push('\n');
        line += 1;
        previous = Some(hash);
    }
    Ok(out)
}

/// What the log's rules read of a receipt: the run it is about and the labels a report
/// counts.
struct ReceiptFacts {
    policy: String,
    run_id: Option<String>,
    label: ReceiptLabel,
    run_label: Option<String>,
}

impl ReceiptFacts {
    /// The run a receipt is about (its `kind` is always `pyramid`): `None` without a `runId`.
    fn run_key(&self) -> Option<(String, String)> {
        self.run_id.as_ref().map(|id| (self.policy.clone(), id.clone()))
    }
}

const KIND: FieldName = FieldName::same("kind");
const VERSION: FieldName = FieldName::same("receiptVersion");
const RUN_ID: FieldName = FieldName::same("runId");
const RUN_LABEL: FieldName = FieldName::same("runLabel");
const LAYER: FieldName = FieldName::same("layer");
const LAYER_NAME: FieldName = FieldName::same("layerName");
const LAYERS_RUN: FieldName = FieldName::same("layersRun");
const POLICY: FieldName = FieldName::same("policy");
const CONFIG: FieldName = FieldName::same("config");
const EXIT_REASON: FieldName = FieldName::same("exitReason");
const SIGNAL: FieldName = FieldName::same("signal");
const THRESHOLDS: FieldName = FieldName::same("thresholds");
const SKIPPED: FieldName = FieldName::same("skipped");
const FIRST_MISSED: FieldName = FieldName::same("firstMissedFailure");
const LABEL: FieldName = FieldName::same("label");
const SAVED: FieldName = FieldName::same("computeSavedMs");
const RISK: FieldName = FieldName::same("risk");
const RISK_BUDGET: FieldName = FieldName::same("riskBudget");
const CONFIDENCE: FieldName = FieldName::same("confidence");
const NAME: FieldName = FieldName::same("name");
const PREDICTED: FieldName = FieldName::same("predicted");
const ACTUAL: FieldName = FieldName::same("actual");
const COST_MS: FieldName = FieldName::same("costMs");

/// The keys of a receipt, as [`ShadowReceipt::to_value`] writes them.
const RECEIPT_FIELDS: [FieldName; 16] = [
    KIND,
    VERSION,
    RUN_ID,
    RUN_LABEL,
    LAYER,
    LAYER_NAME,
    LAYERS_RUN,
    POLICY,
    CONFIG,
    EXIT_REASON,
    SIGNAL,
    THRESHOLDS,
    SKIPPED,
    FIRST_MISSED,
    LABEL,
    SAVED,
];

/// The keys of a log line: a receipt's and its chain fields. (Indexing in a constant: an
/// index out of range fails the build, never a run.)
#[allow(clippy::indexing_slicing)]
const LINE_FIELDS: [FieldName; 18] = {
    let mut fields = [FieldName::same("prevHash"); 18];
    let mut i = 0;
    while i < RECEIPT_FIELDS.len() {
        fields[i] = RECEIPT_FIELDS[i];
        i += 1;
    }
    fields[17] = FieldName::same("sha256");
    fields
};

/// A nullable field: `None` for `null`; a missing key is a type error.
fn nullable<'v>(reader: &ObjectReader<'v>, field: FieldName) -> Result<Option<&'v Value>> {
    match reader.get(field) {
        Some(Value::Null) => Ok(None),
        Some(v) => Ok(Some(v)),
        None => Err(missing(reader, field)),
    }
}

fn missing(reader: &ObjectReader<'_>, field: FieldName) -> Error {
    let path = reader.path_of(field);
    let message = concat(&[&path, " is missing (every receipt field is written, null when it has no value)"]);
    Error::new(CODE, ErrorKind::Type, path, message)
}

/// Another code's error (a policy config's) as the receipt's own.
fn as_receipt_error(e: Error) -> Error {
    Error::new(CODE, e.kind(), e.field().to_string(), e.message().to_string())
}

/// Reads a receipt (without chain fields) as [`ShadowReceipt::to_value`] writes it: every key
/// present with its type, indices within the receipt's own layers (`layersRun` plus the
/// skipped ones), numbers in range, and what follows from its outcomes (`predicted`,
/// `confidence`, `firstMissedFailure`, `label`, `computeSavedMs`) equal to what they make
/// it. Errors name the field under `path`.
fn read_receipt(value: &Value, path: &str, fields: &[FieldName]) -> Result<ReceiptFacts> {
    let r = ObjectReader::new(value, path, "receipt", Naming::Js, CODE)?;
    r.reject_unknown(fields)?;
    r.choice(KIND, &["pyramid"])?;
    r.integer(VERSION, RECEIPT_VERSION, RECEIPT_VERSION)?;
    let run_id = match nullable(&r, RUN_ID)? {
        None => None,
        Some(_) => Some(r.string(RUN_ID)?.to_string()),
    };
    let run_label = match r.get(RUN_LABEL) {
        None => None,
        Some(v) => Some(read_label(v, &r.path_of(RUN_LABEL), CODE)?),
    };
    let policy = r.choice(POLICY, &[RunPolicy::FailFast.as_str(), RunPolicy::RiskBounded.as_str()])?.to_string();
    let config_path = r.path_of(CONFIG);
    let config_value = r.get(CONFIG).ok_or_else(|| missing(&r, CONFIG))?;
    let config_reader = ObjectReader::new(config_value, &config_path, "config", Naming::Js, CODE)?;
    for field in POLICY_CONFIG_FIELDS {
        if config_reader.get(field).is_none() {
            return Err(missing(&config_reader, field));
        }
    }
    let config = PolicyConfig::FAIL_FAST.merged(config_value, Naming::Js, &config_path).map_err(as_receipt_error)?;
    let thresholds_path = r.path_of(THRESHOLDS);
    let thresholds_value = r.get(THRESHOLDS).ok_or_else(|| missing(&r, THRESHOLDS))?;
    let thresholds = ObjectReader::new(thresholds_value, &thresholds_path, "thresholds", Naming::Js, CODE)?;
    thresholds.reject_unknown(&[RISK_BUDGET, CONFIDENCE])?;
    for (field, expected) in [(RISK_BUDGET, config.risk_budget), (CONFIDENCE, config.confidence)] {
        let got = thresholds.number(field, 0.0, 1.0)?;
        if got != expected {
            let requirement = concat(&[&crate::num::to_js_string(expected), " (the config's)"]);
            return Err(thresholds.range_error(field, &requirement, &Value::Number(got)));
        }
    }
    let reason = r.choice(EXIT_REASON, &[StopReason::RiskBounded.as_str(), StopReason::LayerFailed.as_str()])?;
    let green = reason == StopReason::RiskBounded.as_str();
    let signal_path = r.path_of(SIGNAL);
    let signal_value = r.get(SIGNAL).ok_or_else(|| missing(&r, SIGNAL))?;
    let signal = ObjectReader::new(signal_value, &signal_path, "signal", Naming::Js, CODE)?;
    signal.reject_unknown(&[RISK])?;
    if nullable(&signal, RISK)?.is_some() {
        signal.number(RISK, 0.0, 1.0)?;
    }
    let layers_run = r.integer(LAYERS_RUN, 0, MAX_LAYERS as u64)?;
    let skipped_path = r.path_of(SKIPPED);
    let skipped = nonempty_array(r.get(SKIPPED), &skipped_path, CODE, "an array of skipped layers", "skipped layer")?;
    let total = usize::try_from(layers_run).unwrap_or(usize::MAX).saturating_add(skipped.len());
    if total > MAX_LAYERS {
        let message = concat(&[
            &skipped_path,
            " and layersRun make a receipt of more than ",
            &uint_string(MAX_LAYERS as u64),
            " layers",
        ]);
        return Err(Error::new(CODE, ErrorKind::Range, skipped_path, message));
    }
    let last_index = total.saturating_sub(1) as u64;
    let (layer, layer_name) = match nullable(&r, LAYER)? {
        None => {
            if layers_run > 0 {
                return Err(r.range_error(LAYER, "the index of the last layer run (layersRun is not 0)", &Value::Null));
            }
            if nullable(&r, LAYER_NAME)?.is_some() {
                return Err(r.range_error(
                    LAYER_NAME,
                    "null (layer is null)",
                    r.get(LAYER_NAME).unwrap_or(&Value::Null),
                ));
            }
            (None, None)
        }
        Some(got) => {
            if layers_run == 0 {
                return Err(r.range_error(LAYER, "null (layersRun is 0)", got));
            }
            (Some(r.integer(LAYER, 0, last_index)?), Some(r.string(LAYER_NAME)?))
        }
    };
    let mut indices: Vec<u64> = layer.into_iter().collect();
    let mut names: Vec<String> = layer_name.into_iter().map(str::to_string).collect();
    let mut first_missed: Option<(u64, String)> = None;
    let mut saved = Some(0.0);
    for (i, item) in skipped.iter().enumerate() {
        let item_path = index_path(&skipped_path, i);
        let s = ObjectReader::new(item, &item_path, "skipped layer", Naming::Js, CODE)?;
        s.reject_unknown(&[LAYER, NAME, PREDICTED, CONFIDENCE, ACTUAL, COST_MS])?;
        let index = s.integer(LAYER, 0, last_index)?;
        if indices.contains(&index) {
            return Err(s.range_error(
                LAYER,
                "a layer of the receipt named once (each layer runs once)",
                &Value::Number(index as f64),
            ));
        }
        indices.push(index);
        let name = s.string(NAME)?.to_string();
        if names.contains(&name) {
            let requirement = "a name of the receipt given once (layer names are distinct)";
            return Err(s.range_error(NAME, requirement, &Value::string(name.as_str())));
        }
        let predicted = s.choice(PREDICTED, &["pass", "fail"])?;
        let expected = if green { "pass" } else { "fail" };
        if predicted != expected {
            let requirement = concat(&["'", expected, "' (what a ", reason, " exit predicts)"]);
            return Err(s.range_error(PREDICTED, &requirement, &Value::string(predicted)));
        }
        match (green, nullable(&s, CONFIDENCE)?) {
            (true, Some(_)) => {
                s.number(CONFIDENCE, 0.0, 1.0)?;
            }
            (true, None) => {
                return Err(s.range_error(CONFIDENCE, "a number between 0 and 1 (a green exit's)", &Value::Null));
            }
            (false, Some(got)) => return Err(s.range_error(CONFIDENCE, "null (a red exit has no confidence)", got)),
            (false, None) => {}
        }
        let failed = s.choice(ACTUAL, &["pass", "fail"])? == "fail";
        if green && failed && first_missed.is_none() {
            first_missed = Some((index, name.clone()));
        }
        names.push(name);
        let cost = match nullable(&s, COST_MS)? {
            None => None,
            Some(_) => Some(s.number(COST_MS, 0.0, f64::MAX)?),
        };
        saved = match (saved, cost) {
            (Some(sum), Some(cost)) => Some(add_to_total(sum, cost, &s.path_of(COST_MS), CODE)?),
            _ => None,
        };
    }
    let missed_path = r.path_of(FIRST_MISSED);
    let stated_missed = match nullable(&r, FIRST_MISSED)? {
        None => None,
        Some(v) => {
            let m = ObjectReader::new(v, &missed_path, "firstMissedFailure", Naming::Js, CODE)?;
            m.reject_unknown(&[LAYER, NAME])?;
            Some((m.integer(LAYER, 0, last_index)?, m.string(NAME)?.to_string()))
        }
    };
    if stated_missed != first_missed {
        let requirement = match first_missed {
            None => "null (no skipped layer of a green exit failed)".to_string(),
            Some((index, ref name)) => concat(&[
                "{layer: ",
                &uint_string(index),
                ", name: ",
                &Value::string(name).describe(),
                "} (the first skipped layer that failed)",
            ]),
        };
        return Err(r.range_error(FIRST_MISSED, &requirement, r.get(FIRST_MISSED).unwrap_or(&Value::Null)));
    }
    let label = match (green, first_missed) {
        (false, _) => ReceiptLabel::NeedlessRun,
        (true, Some(_)) => ReceiptLabel::FalsePass,
        (true, None) => ReceiptLabel::CorrectSkip,
    };
    let labels =
        [ReceiptLabel::CorrectSkip.as_str(), ReceiptLabel::FalsePass.as_str(), ReceiptLabel::NeedlessRun.as_str()];
    let stated = r.choice(LABEL, &labels)?;
    if stated != label.as_str() {
        let requirement = concat(&["'", label.as_str(), "' (what its exitReason and skipped layers make it)"]);
        return Err(r.range_error(LABEL, &requirement, &Value::string(stated)));
    }
    let stated_saved = match nullable(&r, SAVED)? {
        None => None,
        Some(_) => Some(r.number(SAVED, 0.0, f64::MAX)?),
    };
    if stated_saved != saved {
        let requirement = match saved {
            None => "null (a skipped layer has no cost)".to_string(),
            Some(sum) => concat(&[&crate::num::to_js_string(sum), " (the skipped layers' summed costMs)"]),
        };
        return Err(r.range_error(SAVED, &requirement, r.get(SAVED).unwrap_or(&Value::Null)));
    }
    Ok(ReceiptFacts { policy, run_id, label, run_label })
}
