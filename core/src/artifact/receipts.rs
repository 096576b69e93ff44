//! The receipt log: shadow-mode receipts, one JSON object a line, each carrying the digest
//! of the line before it (`prevHash`, `null` on the first line) and its own (`sha256`, over
//! the canonical JSON of the receipt without `sha256`). A deleted, reordered, inserted or
//! edited line breaks the chain at that line; [`verify_receipts`] recomputes it and says
//! where. (Cutting lines off the end leaves a shorter valid chain: keep the last `sha256`
//! somewhere else, such as a CI artifact, and compare it with the report's `head`.)

use crate::artifact::digest::{digest, is_sha256_hex, Sha256};
use crate::num::uint_string;
use crate::value::{concat, Error, ErrorCode, ErrorKind, ObjectBuilder, Result, Value};

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
    /// Receipts read (up to the break).
    pub receipts: usize,
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

    /// `{valid, receipts, head, brokenAt: {line, field, reason} | null, labels: {label: n}}`.
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
/// them). Never trusts a line it could not verify: the report stops at the first break.
pub fn verify_receipts(text: &str, sha256: &dyn Sha256) -> ReceiptCheck {
    let mut check = ReceiptCheck {
        receipts: 0,
        head: None,
        broken: None,
        labels: Vec::new(),
        slices: Vec::new(),
        run_labels: Vec::new(),
    };
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        match verify_line(raw, line, check.head.as_deref(), sha256) {
            Ok(verified) => {
                check.receipts += 1;
                check.head = Some(verified.hash);
                if let Some(label) = verified.label {
                    bump(&mut check.labels, &label);
                    bump_slice(&mut check.slices, verified.policy.unwrap_or_default(), &label);
                    if let Some(run_label) = verified.run_label {
                        bump_slice(&mut check.run_labels, run_label, &label);
                    }
                }
            }
            Err((field, reason)) => {
                check.broken = Some(ChainBreak { line, field: field.to_string(), reason });
                break;
            }
        }
    }
    check
}

fn bump_slice(slices: &mut Vec<(String, Vec<(String, usize)>)>, slice: String, label: &str) {
    match slices.iter_mut().find(|(s, _)| *s == slice) {
        Some((_, labels)) => bump(labels, label),
        None => slices.push((slice, vec![(label.to_string(), 1)])),
    }
}

/// A verified line: its digest, outcome label, slice (its `policy`) and user label.
struct VerifiedLine {
    hash: String,
    label: Option<String>,
    policy: Option<String>,
    run_label: Option<String>,
}

type LineResult = std::result::Result<VerifiedLine, (&'static str, String)>;

/// A field the report reads, when present: a string (`label` one of the receipt labels,
/// `runLabel` a user label as runs take it); a line whose field has another type or value is
/// reported (never counted under a made-up slice).
fn text_field(
    value: &Value,
    field: &'static str,
    at: &str,
) -> std::result::Result<Option<String>, (&'static str, String)> {
    match value.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let known = crate::pyramid::policy::ReceiptLabel::parse(s).is_some();
            if field == "label" && !known {
                let message = concat(&[
                    at,
                    ": label must be 'correct_skip', 'false_pass' or 'needless_run', got ",
                    &Value::string(s.as_str()).describe(),
                ]);
                return Err((field, message));
            }
            if field == "runLabel" {
                crate::pyramid::policy::read_label(&Value::string(s.as_str()), field, CODE)
                    .map_err(|e| (field, concat(&[at, ": ", e.message()])))?;
            }
            Ok(Some(s.clone()))
        }
        Some(other) => Err((field, concat(&[at, ": ", field, " must be a string, got ", &other.describe()]))),
    }
}

fn verify_line(raw: &str, line: usize, previous: Option<&str>, sha256: &dyn Sha256) -> LineResult {
    let at = line_text(line);
    let value = Value::parse_json(raw, CODE, &at).map_err(|e| ("", concat(&[&at, " is not JSON: ", e.message()])))?;
    let Value::Object(entries) = &value else {
        return Err(("", concat(&[&at, " is not a JSON object"])));
    };
    let claimed = match value.get("sha256") {
        Some(Value::String(s)) if is_sha256_hex(s) => s.clone(),
        _ => return Err(("sha256", concat(&[&at, ": sha256 must be a SHA-256 digest (64 lowercase hex digits)"]))),
    };
    let prev = match value.get("prevHash") {
        Some(Value::Null) => None,
        Some(Value::String(s)) if is_sha256_hex(s) => Some(s.as_str()),
        _ => return Err(("prevHash", concat(&[&at, ": prevHash must be null or a SHA-256 digest"]))),
    };
    if prev != previous {
        let reason = match previous {
            None => concat(&[&at, ": prevHash must be null on the first receipt (a line before it was deleted?)"]),
            Some(_) => concat(&[
                &at,
                ": prevHash is not the sha256 of the receipt before it (a line deleted, reordered or inserted)",
            ]),
        };
        return Err(("prevHash", reason));
    }
    let body: Vec<(String, Value)> = entries.iter().filter(|(k, _)| k != "sha256").cloned().collect();
    let computed = digest(&Value::Object(body), sha256, CODE, &at).map_err(|e| ("", e.message().to_string()))?;
    if computed != claimed {
        return Err(("sha256", concat(&[&at, ": sha256 does not match the receipt's content (edited)"])));
    }
    let label = text_field(&value, "label", &at)?;
    let policy = text_field(&value, "policy", &at)?;
    let run_label = text_field(&value, "runLabel", &at)?;
    Ok(VerifiedLine { hash: claimed, label, policy, run_label })
}

/// The lines that append `receipts` (receipt documents without chain fields, such as a
/// shadow-mode result's `shadow.receipts`) to the log `log` (its text; empty for a new log),
/// each chained to the one before: JSONL text ending in a newline. A log whose chain is
/// broken is refused (`invalid_receipt`, naming the line): nothing is appended to it.
pub fn append_receipts(log: &str, receipts: &[Value], sha256: &dyn Sha256) -> Result<String> {
    let check = verify_receipts(log, sha256);
    if let Some(b) = check.broken {
        let message = concat(&["the receipt log does not verify, nothing appended: ", &b.reason]);
        return Err(Error::new(CODE, ErrorKind::Range, concat(&["log.", &line_text(b.line)]), message));
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
        let mut body = entries.clone();
        body.push(("prevHash".into(), previous.as_deref().map_or(Value::Null, Value::string)));
        let hash = digest(&Value::Object(body.clone()), sha256, CODE, &path)?;
        let receipt = Value::Object(body);
        // The fields a report reads are checked as verification checks them (a receipt that
        // would break the log is refused, not written).
        for field in ["label", "policy", "runLabel"] {
            if let Err((field, reason)) = text_field(&receipt, field, &path) {
                let kind = match receipt.get(field) {
                    Some(Value::String(_)) => ErrorKind::Range,
                    _ => ErrorKind::Type,
                };
                return Err(Error::new(CODE, kind, concat(&[&path, ".", field]), reason));
            }
        }
        let Value::Object(mut body) = receipt else { continue };
        body.push(("sha256".into(), Value::string(hash.as_str())));
        out.push_str(&Value::Object(body).to_json());
        out.push('\n');
        previous = Some(hash);
    }
    Ok(out)
}
