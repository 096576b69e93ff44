//! The receipt log: shadow-mode receipts, one JSON object a line, each carrying the digest
//! of the line before it (`prevHash`, `null` on the first line) and its own (`sha256`, over
//! the canonical JSON of the receipt without `sha256`). A deleted, reordered, inserted or
//! edited line breaks the chain at that line; [`verify_receipts`] recomputes it and says
//! where. (Cutting lines off the end leaves a shorter valid chain: keep the last `sha256`
//! somewhere else, such as a CI artifact, and compare it with the report's `head`.)
//!
//! One implementation for every kind of receipt: the chain, the one-receipt-per-run rule and
//! the counts are the same; what a receipt of a kind holds, its labels and the rates built on
//! them are the kind's own, given as a [`ReceiptKind`] by the engine that writes them (the
//! pyramid's and the loop's), so this file depends on neither engine.

use crate::artifact::digest::{digest, is_sha256_hex, Sha256};
use crate::num::uint_string;
use crate::value::{concat, Error, ErrorCode, ErrorKind, FieldName, JsonReading, Naming, ObjectBuilder, ObjectReader};
use crate::value::{Result, Value};
use std::collections::BTreeMap;

const CODE: ErrorCode = ErrorCode::InvalidReceipt;

/// A rate a report gives over a kind's receipts: `count` of the receipts labelled `label`
/// among those labelled one of `of` (every receipt counted in that set of labels when `of`
/// is empty).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReceiptRate {
    /// The key of the rate in a report's `rates`.
    pub key: &'static str,
    /// The label counted.
    pub label: &'static str,
    /// The labels of the denominator (empty: every receipt of the set).
    pub of: &'static [&'static str],
}

/// What the log's rules read of a receipt: the run it is about and the labels a report
/// counts. A kind's reader ([`ReceiptKind::read`]) answers it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiptFacts {
    /// The receipt's `policy` (the slice a report counts it in).
    pub policy: String,
    /// The run's id, when the receipt names one.
    pub run_id: Option<String>,
    /// The receipt's label (one of its kind's).
    pub label: &'static str,
    /// The run's user label, when it has one.
    pub run_label: Option<String>,
}

impl std::fmt::Debug for ReceiptKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind)
    }
}

impl PartialEq for ReceiptKind {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

/// One kind of receipt: its `kind`, its labels, the rates built on them and the reader that
/// checks a receipt of the kind (without chain fields; with them when `chain`, which the
/// reader then accepts as keys too) and answers its facts, errors naming the field under `path`.
#[derive(Clone, Copy)]
pub struct ReceiptKind {
    /// The receipts' `kind`.
    pub kind: &'static str,
    /// Every label of the kind.
    pub labels: &'static [&'static str],
    /// The rates a report gives over the kind's labels.
    pub rates: &'static [ReceiptRate],
    /// The keys of a receipt of the kind (without the chain fields).
    pub fields: &'static [FieldName],
    /// Reads and checks one receipt of the kind.
    pub read: fn(value: &Value, path: &str, chain: bool) -> Result<ReceiptFacts>,
}

/// The chain fields a log line carries besides its receipt's own.
pub const CHAIN_FIELDS: [FieldName; 2] = FieldName::same_all(["prevHash", "sha256"]);

/// The keys of a receipt kind's log line: its receipt's keys, then the chain's. Called in a
/// constant, so an `L` other than `R` + 2 fails the build, never a run.
#[allow(clippy::indexing_slicing)]
pub(crate) const fn with_chain_fields<const R: usize, const L: usize>(receipt: &[FieldName; R]) -> [FieldName; L] {
    assert!(L == R + 2, "a log line holds the receipt's keys and the two chain fields");
    let mut fields = [CHAIN_FIELDS[0]; L];
    let mut i = 0;
    while i < R {
        fields[i] = receipt[i];
        i += 1;
    }
    fields[R] = CHAIN_FIELDS[0];
    fields[R + 1] = CHAIN_FIELDS[1];
    fields
}

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

/// What [`verify_receipts_of`] found.
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
    /// The kinds of receipt the log was read with (a report's rates are those of the kinds
    /// present, else the first kind's).
    pub kinds: &'static [ReceiptKind],
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

/// The rates of a set of receipts: each kind's rates (docs/test-exit.md and docs/lifecycle.md
/// define them) for every kind with a label in the set, in the kinds' order; the first
/// kind's for a set without receipts.
fn rates_value(labels: &[(String, usize)], kinds: &[ReceiptKind]) -> Value {
    let total: usize = labels.iter().map(|(_, n)| n).sum();
    let mut out = ObjectBuilder::new();
    let present: Vec<&ReceiptKind> =
        kinds.iter().filter(|k| labels.iter().any(|(l, _)| k.labels.contains(&l.as_str()))).collect();
    let shown = if present.is_empty() { kinds.first().into_iter().collect() } else { present };
    for kind in shown {
        for rate in kind.rates {
            let of = if rate.of.is_empty() { total } else { rate.of.iter().map(|l| count_of(labels, l)).sum() };
            out.value(rate.key, rate_value(count_of(labels, rate.label), of));
        }
    }
    out.build()
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
                        .value("rates", rates_value(labels, self.kinds))
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
            .value("rates", rates_value(&self.labels, self.kinds))
            .value("slices", slices_of(&self.slices, "slice"))
            .value("labelSlices", slices_of(&self.run_labels, "runLabel"))
            .build()
    }
}

fn line_text(line: usize) -> String {
    concat(&["line ", &uint_string(line as u64)])
}

/// Recomputes the chain of a JSONL receipt log (blank lines are skipped; line numbers count
/// them) and reads every receipt as [`append_receipts_of`] checks it, by its kind's reader
/// among `kinds`. Never trusts a line it
/// could not verify: the report stops at the first break. A receipt that repeats an earlier
/// one (same `kind`, `policy` and `runId`, same body) verifies but is counted once
/// (`repeated`); one that states another body for the same run breaks the chain (`runId`).
pub fn verify_receipts_of(text: &str, sha256: &dyn Sha256, kinds: &'static [ReceiptKind]) -> ReceiptCheck {
    read_log(text, sha256, kinds).0
}

/// The runs a log holds, by (`kind`, `policy`, `runId`): the first receipt's line, `sha256` and
/// `prevHash`. Another receipt has the same body exactly when, chained after that same
/// `prevHash`, it has that `sha256`: one digest, taken only when a run repeats. Receipts
/// without a `runId` name no run and are not in it.
type SeenRuns = BTreeMap<(&'static str, String, String), FirstReceipt>;

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

fn read_log(text: &str, sha256: &dyn Sha256, kinds: &'static [ReceiptKind]) -> (ReceiptCheck, SeenRuns, usize) {
    let mut check = ReceiptCheck {
        receipts: 0,
        repeated: 0,
        head: None,
        broken: None,
        labels: Vec::new(),
        kinds,
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
        match verify_line(raw, line, check.head.as_deref(), sha256, kinds) {
            Ok(verified) => {
                let facts = verified.facts;
                if let Some(key) = run_key(verified.kind, &facts) {
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
                let label = facts.label;
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

/// The run a receipt is about: `None` without a `runId`.
fn run_key(kind: &'static str, facts: &ReceiptFacts) -> Option<(&'static str, String, String)> {
    facts.run_id.as_ref().map(|id| (kind, facts.policy.clone(), id.clone()))
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
    kind: &'static str,
    hash: String,
    line: Vec<(String, Value)>,
    facts: ReceiptFacts,
}

type LineResult = std::result::Result<VerifiedLine, (String, String)>;

fn verify_line(
    raw: &str,
    line: usize,
    previous: Option<&str>,
    sha256: &dyn Sha256,
    kinds: &'static [ReceiptKind],
) -> LineResult {
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
    let (kind, facts) =
        read_any(&value, "", true, kinds).map_err(|e| (e.field().to_string(), concat(&[&at, ": ", e.message()])))?;
    let Value::Object(line) = value else { return Err((String::new(), concat(&[&at, " is not a JSON object"]))) };
    Ok(VerifiedLine { kind, hash: claimed, line, facts })
}

/// Reads a receipt by its kind's reader (`kind` must name one of `kinds`).
fn read_any(
    value: &Value,
    path: &str,
    chain: bool,
    kinds: &'static [ReceiptKind],
) -> Result<(&'static str, ReceiptFacts)> {
    let r = ObjectReader::new(value, path, "receipt", Naming::Js, CODE)?;
    let names: Vec<&str> = kinds.iter().map(|k| k.kind).collect();
    let name = r.choice(FieldName::same("kind"), &names)?;
    let kind = kinds.iter().find(|k| k.kind == name).ok_or_else(|| {
        Error::new(CODE, ErrorKind::Range, r.path_of(FieldName::same("kind")), concat(&["unknown kind ", name]))
    })?;
    // A receipt of another kind relabelled: refused by its kind, before its keys are.
    if let Value::Object(entries) = value {
        let own = |key: &str| kind.fields.iter().chain(&CHAIN_FIELDS).any(|f| f.js() == key);
        for (key, _) in entries.iter().filter(|(key, _)| !own(key)) {
            if let Some(other) = kinds.iter().find(|k| k.fields.iter().any(|f| f.js() == key)) {
                let message = concat(&[
                    &r.path_of(FieldName::same("kind")),
                    " is '",
                    kind.kind,
                    "', but the receipt has '",
                    key,
                    "', a key of a ",
                    other.kind,
                    " receipt: a receipt is read as the kind it is",
                ]);
                return Err(Error::new(CODE, ErrorKind::Range, r.path_of(FieldName::same("kind")), message));
            }
        }
    }
    Ok((kind.kind, (kind.read)(value, path, chain)?))
}

/// The lines that append `receipts` (receipt documents without chain fields, such as a
/// shadow-mode result's `shadow.receipts`) to the log `log` (its text; empty for a new log),
/// each chained to the one before: JSONL text, one line per receipt, each ending in a
/// newline (and a newline first when `log` does not end in one); empty when there is
/// nothing to append. A log whose chain is broken is refused (`invalid_receipt`, naming the
/// line): nothing is appended to it. Each receipt is read as the core writes it (the rules
/// are in docs/test-exit.md, "Receipts"); a receipt whose `kind`, `policy` and `runId` are
/// already in the log (or earlier in `receipts`) is left out when its body is equal (a
/// retried step), and refused (field `receipts[i].runId`) when it differs. `kinds` are the
/// kinds of receipt the log may hold, each read by its own reader.
pub fn append_receipts_of(
    log: &str,
    receipts: &[Value],
    sha256: &dyn Sha256,
    kinds: &'static [ReceiptKind],
) -> Result<String> {
    let (check, mut seen, mut line) = read_log(log, sha256, kinds);
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
        let (kind, facts) = read_any(receipt, &path, false, kinds)?;
        let key = run_key(kind, &facts);
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

/// A nullable field of a receipt: `None` for `null`; a missing key is a type error (every
/// receipt field is written, null when it has no value).
pub(crate) fn nullable<'v>(reader: &ObjectReader<'v>, field: FieldName) -> Result<Option<&'v Value>> {
    match reader.get(field) {
        Some(Value::Null) => Ok(None),
        Some(v) => Ok(Some(v)),
        None => Err(missing(reader, field)),
    }
}

/// The error for a receipt field that is missing.
pub(crate) fn missing(reader: &ObjectReader<'_>, field: FieldName) -> Error {
    let path = reader.path_of(field);
    let message = concat(&[&path, " is missing (every receipt field is written, null when it has no value)"]);
    Error::new(CODE, ErrorKind::Type, path, message)
}
