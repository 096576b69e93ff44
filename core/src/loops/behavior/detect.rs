//! The five detectors, exact to upstream's `behavior-detector.mjs` for valid input: every
//! check, number (computed in upstream's order), message, evidence key (in upstream's order)
//! and recommendation. Each reads a bounded window of the history (stuck: the last
//! `noProgressIterations`, or all of it when that is absent; oscillation: 6; deviation: the
//! first and the last 3; resource burn: the first and the last; regression: 5).

use crate::num;
use crate::value::{concat, ObjectBuilder, Value};

use super::detection::{Detection, DetectionType, Severity};
use super::history::BehaviorIteration;
use super::thresholds::Thresholds;

/// Which detector (the JS layer's `detect*` methods by number: 0 is `detect`, all five).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detector {
    /// `detectStuck`.
    Stuck,
    /// `detectOscillation`.
    Oscillation,
    /// `detectDeviation`.
    Deviation,
    /// `detectResourceBurn`.
    ResourceBurn,
    /// `detectRegression`.
    Regression,
}

impl Detector {
    /// Every detector, in upstream's order (`detect` runs them so).
    pub const ALL: [Detector; 5] =
        [Detector::Stuck, Detector::Oscillation, Detector::Deviation, Detector::ResourceBurn, Detector::Regression];

    /// Runs this detector over `history`.
    pub fn run(self, history: &[BehaviorIteration], thresholds: &Thresholds) -> Option<Detection> {
        self.run_view(&HistoryView::whole(history), thresholds)
    }

    /// Runs this detector over a view of a history ([`HistoryView`]: its `recent` entries
    /// must hold at least [`Detector::window`] of them, or the whole history).
    pub fn run_view(self, view: &HistoryView<'_>, thresholds: &Thresholds) -> Option<Detection> {
        match self {
            Detector::Stuck => stuck(view, thresholds),
            Detector::Oscillation => oscillation(view, thresholds),
            Detector::Deviation => deviation(view, thresholds),
            Detector::ResourceBurn => resource_burn(view, thresholds),
            Detector::Regression => regression(view, thresholds),
        }
    }

    /// How many of the last entries this detector reads (besides the first entry and the
    /// count): `None` for a stuck detector without `noProgressIterations` (the whole history).
    pub fn window(self, thresholds: &Thresholds) -> Option<u64> {
        match self {
            Detector::Stuck => thresholds.stuck.no_progress_iterations,
            Detector::Oscillation => Some(6),
            Detector::Deviation => Some(3),
            Detector::ResourceBurn => Some(1),
            Detector::Regression => Some(5),
        }
    }
}

/// upstream's `detect(history)`: every detector's detection, in order (none for an empty history).
pub fn detect(history: &[BehaviorIteration], thresholds: &Thresholds) -> Vec<Detection> {
    let mut out = Vec::new();
    if history.is_empty() {
        return out;
    }
    for detector in Detector::ALL {
        if let Some(detection) = detector.run(history, thresholds) {
            out.push(detection);
        }
    }
    out
}

/// `history.slice(-n)`: the last `n` (all when there are fewer).
fn last(history: &[BehaviorIteration], n: usize) -> &[BehaviorIteration] {
    history.get(history.len().saturating_sub(n)..).unwrap_or(history)
}

/// What a detector reads of a history: its first entry, its length and its last entries.
/// A whole history is one ([`HistoryView::whole`]); a stop condition keeps only the first
/// entry, the count and a ring of the last `window` entries ([`Detector::window`]), so a
/// detection over it costs O(window), never O(history).
#[derive(Clone, Copy, Debug)]
pub struct HistoryView<'a> {
    /// The history's first entry (`None`: an empty history).
    pub first: Option<&'a BehaviorIteration>,
    /// The last entries, oldest first: all of them, or at least the detector's window.
    pub recent: &'a [BehaviorIteration],
    /// How many entries the history holds.
    pub len: usize,
}

impl<'a> HistoryView<'a> {
    /// A whole history.
    pub fn whole(history: &'a [BehaviorIteration]) -> Self {
        HistoryView { first: history.first(), recent: history, len: history.len() }
    }

    /// `history.slice(-n)` (needs `n` <= `recent.len()` unless `recent` is the whole history).
    fn last(&self, n: usize) -> &'a [BehaviorIteration] {
        last(self.recent, n)
    }
}

/// `x || 0`: NaN and -0 become 0.
fn or_zero(x: f64) -> f64 {
    if x == 0.0 || x.is_nan() {
        0.0
    } else {
        x
    }
}

fn strings(items: &[String]) -> Value {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(Value::String(item.clone()));
    }
    Value::Array(out)
}

fn recommendations(items: &[&str]) -> Option<Vec<String>> {
    Some(items.iter().map(|s| s.to_string()).collect())
}

/// Whether `key` is an array index to JavaScript (`"0"`, `"12"`, up to `2^32 - 2`, no leading
/// zero): `Object.entries` lists those keys first, ascending, then the others in insertion order.
fn array_index(key: &str) -> Option<u64> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes.first() == Some(&b'0') {
        return None;
    }
    let n = bytes.iter().fold(0u64, |n, b| n * 10 + u64::from(b - b'0'));
    (n < u64::from(u32::MAX)).then_some(n)
}

/// `items` sorted, without repeats: a set that answers membership by binary search. (Sorted
/// slices of `&str`, one sort for every set here: each `BTreeSet` or `sort_by` key type would
/// add its own copy of the generic code to the WebAssembly module.)
fn sorted_set(mut items: Vec<&str>) -> Vec<&str> {
    items.sort_unstable();
    items.dedup();
    items
}

fn has(set: &[&str], item: &str) -> bool {
    set.binary_search(&item).is_ok()
}

/// upstream's `errorCounts` as `Object.entries` lists it: array-index keys first (ascending),
/// then the other errors in the order they first occur; each with its count. O(n log n) in
/// the window (which is the whole history when `noProgressIterations` is absent).
fn error_counts(recent: &[BehaviorIteration]) -> Vec<(&str, u64)> {
    let mut messages: Vec<&str> = Vec::with_capacity(recent.len());
    for iteration in recent {
        let message = iteration.error_message();
        if !message.is_empty() {
            messages.push(message);
        }
    }
    let mut sorted = messages.clone();
    sorted.sort_unstable();
    let count = |m: &str| (sorted.partition_point(|s| *s <= m) - sorted.partition_point(|s| *s < m)) as u64;
    // Array indices ascending: shorter first, then by their digits (they have no leading zero).
    let distinct = sorted_set(messages.clone());
    let mut out: Vec<(&str, u64)> = Vec::new();
    for &message in &distinct {
        if array_index(message).is_some() {
            let at = out.partition_point(|(m, _)| (m.len(), *m) < (message.len(), message));
            out.insert(at, (message, count(message)));
        }
    }
    // Then the others, as they first occur.
    let mut listed = vec![false; distinct.len()];
    for message in messages {
        let first = distinct.binary_search(&message).ok().and_then(|i| listed.get_mut(i)).filter(|seen| !**seen);
        if let (Some(seen), None) = (first, array_index(message)) {
            *seen = true;
            out.push((message, count(message)));
        }
    }
    out
}

/// upstream's `detectStuck`.
pub fn detect_stuck(history: &[BehaviorIteration], thresholds: &Thresholds) -> Option<Detection> {
    stuck(&HistoryView::whole(history), thresholds)
}

fn stuck(history: &HistoryView<'_>, thresholds: &Thresholds) -> Option<Detection> {
    let same_error_count = thresholds.stuck.same_error_count;
    // `history.length < undefined` is false: go on.
    if let Some(count) = same_error_count {
        if (history.len as u64) < count {
            return None;
        }
    }
    let recent = match thresholds.stuck.no_progress_iterations {
        Some(n) => history.last(usize::try_from(n).unwrap_or(usize::MAX)),
        None => history.recent, // `slice(-undefined)`: the whole history
    };
    let mut max_count = 0;
    let mut repeated_error = None;
    for (error, count) in error_counts(recent) {
        if count > max_count {
            max_count = count;
            repeated_error = Some(error);
        }
    }
    // `maxCount >= undefined` is false.
    if max_count < same_error_count? {
        return None;
    }
    let mut sum = 0.0;
    let mut deltas = 0usize;
    for pair in recent.windows(2) {
        if let [previous, current] = pair {
            let delta = match (current.completion_percentage, previous.completion_percentage) {
                (Some(c), Some(p)) => or_zero(c - p),
                _ => 0.0, // `undefined - x` is NaN, and `NaN || 0` is 0
            };
            sum += delta;
            deltas += 1;
        }
    }
    let avg_progress = sum / deltas as f64; // NaN for one iteration: no detection
    if avg_progress.abs() >= 0.02 || avg_progress.is_nan() {
        return None;
    }
    let mut blockers = Vec::new();
    for iteration in recent {
        for blocker in iteration.blockers.iter().flatten() {
            if blockers.len() < 5 {
                blockers.push(blocker.clone());
            }
        }
    }
    let mut evidence = ObjectBuilder::new();
    evidence
        .value("repeatedError", repeated_error.map_or(Value::Null, Value::string))
        .number("occurrences", max_count as f64)
        .number("avgProgressRate", avg_progress)
        .value("recentBlockers", strings(&blockers));
    Some(Detection {
        kind: DetectionType::Stuck.as_str().to_string(),
        severity: Some(Severity::as_str(if max_count >= 5 { Severity::Critical } else { Severity::High }).to_string()),
        message: Some(concat(&[
            "Loop stuck: Same error repeated ",
            &num::uint_string(max_count),
            " times with minimal progress",
        ])),
        evidence: Some(evidence.build()),
        recommendations: recommendations(&[
            "Change approach or strategy",
            "Break task into smaller sub-tasks",
            "Request human intervention",
            "Review and address root cause of repeated error",
        ]),
        others: Vec::new(),
    })
}

/// `new Set(artifactsModified)`: the distinct files (only membership and size are read).
fn file_set(iteration: &BehaviorIteration) -> Vec<&str> {
    sorted_set(iteration.artifacts_modified.iter().flatten().map(String::as_str).collect())
}

/// upstream's `detectOscillation`.
pub fn detect_oscillation(history: &[BehaviorIteration], thresholds: &Thresholds) -> Option<Detection> {
    oscillation(&HistoryView::whole(history), thresholds)
}

fn oscillation(history: &HistoryView<'_>, thresholds: &Thresholds) -> Option<Detection> {
    if history.len < 4 {
        return None;
    }
    let recent = history.last(6);
    let sets: Vec<Vec<&str>> = recent.iter().map(file_set).collect();
    let mut cycles = 0u64;
    for step in sets.windows(3) {
        let [before, previous, current] = step else { continue };
        let reverted = before.iter().filter(|f| has(current, f) && !has(previous, f)).count();
        if !before.is_empty() {
            let ratio = reverted as f64 / before.len() as f64;
            if thresholds.oscillation.file_churn_threshold.is_some_and(|t| ratio >= t) {
                cycles += 1;
            }
        }
    }
    if thresholds.oscillation.undo_redo_cycles.is_none_or(|c| cycles < c) {
        return None;
    }
    let mut changes = Vec::with_capacity(recent.len());
    for iteration in recent {
        changes.push(strings(iteration.artifacts_modified.as_deref().unwrap_or_default()));
    }
    let mut evidence = ObjectBuilder::new();
    evidence.number("undoRedoCycles", cycles as f64).value("recentFileChanges", Value::Array(changes));
    Some(Detection {
        kind: DetectionType::Oscillation.as_str().to_string(),
        severity: Some(Severity::as_str(Severity::High).to_string()),
        message: Some(concat(&[
            "Oscillation detected: ",
            &num::uint_string(cycles),
            " undo/redo cycles in recent iterations",
        ])),
        evidence: Some(evidence.build()),
        recommendations: recommendations(&[
            "Commit to one approach instead of alternating",
            "Review feedback quality - may be conflicting",
            "Pause and assess which approach is better",
            "Request human decision on direction",
        ]),
        others: Vec::new(),
    })
}

/// JavaScript's `\s`: the white space and line terminators of ECMAScript (not U+0085, which
/// Rust's `char::is_whitespace` includes; U+FEFF, which it does not).
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// `new Set(lower.split(/\s+/))` of a lowercased text: the distinct words, with the empty
/// word where the text is empty or starts or ends with white space (only membership and size
/// are read).
fn word_set(lower: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut rest = lower;
    loop {
        let Some(at) = rest.find(js_space) else {
            words.push(rest);
            return sorted_set(words);
        };
        let (word, tail) = rest.split_at(at);
        words.push(word);
        rest = tail.trim_start_matches(js_space);
    }
}

/// upstream's `detectDeviation`.
pub fn detect_deviation(history: &[BehaviorIteration], thresholds: &Thresholds) -> Option<Detection> {
    deviation(&HistoryView::whole(history), thresholds)
}

fn deviation(history: &HistoryView<'_>, thresholds: &Thresholds) -> Option<Detection> {
    let first = history.first?;
    if history.len < 2 {
        return None;
    }
    let recent = history.last(3);
    let offset = history.len - recent.len();
    let objective = first.objective.as_deref().unwrap_or_default();
    let objective_lower = objective.to_lowercase();
    let original_words = word_set(&objective_lower);
    let mut examples = Vec::new();
    let mut similarities = Vec::new();
    for (i, iteration) in recent.iter().enumerate() {
        let learnings = iteration.learnings.as_deref().unwrap_or_default().to_lowercase();
        let learning_words = word_set(&learnings);
        let common = original_words.iter().filter(|w| has(&learning_words, w)).count();
        // `originalWords.size` is never 0: split always answers at least one word.
        let similarity = if original_words.is_empty() { 1.0 } else { common as f64 / original_words.len() as f64 };
        if thresholds.deviation.objective_similarity.is_some_and(|t| similarity < t) {
            // `iter.number || history.indexOf(iter)`: the entry's own index when it has no number.
            let number = iteration.number.filter(|n| *n > 0).unwrap_or((offset + i) as u64);
            let mut example = ObjectBuilder::new();
            example
                .number("iteration", number as f64)
                .number("similarity", similarity)
                .value("artifacts", strings(iteration.artifacts_modified.as_deref().unwrap_or_default()));
            examples.push(example.build());
            similarities.push(similarity);
        }
    }
    if examples.len() < 2 {
        return None;
    }
    let average = similarities.iter().fold(0.0, |sum, s| sum + s) / similarities.len() as f64;
    let mut evidence = ObjectBuilder::new();
    evidence
        .string("originalObjective", objective)
        .value("deviationExamples", Value::Array(examples))
        .number("averageSimilarity", average);
    Some(Detection {
        kind: DetectionType::Deviation.as_str().to_string(),
        severity: Some(Severity::as_str(Severity::Medium).to_string()),
        message: Some("Objective deviation: Recent work may have drifted from original objective".to_string()),
        evidence: Some(evidence.build()),
        recommendations: recommendations(&[
            "Review original objective and criteria",
            "Realign current work with stated goals",
            "Confirm scope with human if uncertain",
            "Document any necessary scope changes",
        ]),
        others: Vec::new(),
    })
}

/// upstream's `detectResourceBurn`.
pub fn detect_resource_burn(history: &[BehaviorIteration], thresholds: &Thresholds) -> Option<Detection> {
    resource_burn(&HistoryView::whole(history), thresholds)
}

fn resource_burn(history: &HistoryView<'_>, thresholds: &Thresholds) -> Option<Detection> {
    let (first, current) = (history.first?, history.recent.last()?);
    let estimated = first.max_iterations.unwrap_or(10) as f64;
    let actual = history.len as f64;
    let ratio = actual / estimated;
    if !thresholds.resource.iteration_multiplier.is_some_and(|m| ratio >= m) {
        return None;
    }
    let progress = or_zero(current.completion_percentage.unwrap_or(0.0));
    let mut evidence = ObjectBuilder::new();
    evidence
        .number("estimatedIterations", estimated)
        .number("actualIterations", actual)
        .number("iterationRatio", ratio)
        .number("completionPercent", progress)
        .number("efficiency", progress / actual);
    Some(Detection {
        kind: DetectionType::ResourceBurn.as_str().to_string(),
        severity: Some(Severity::as_str(if ratio >= 2.5 { Severity::Critical } else { Severity::High }).to_string()),
        message: Some(concat(&[
            "Resource burn: Used ",
            &num::to_js_string(actual),
            "/",
            &num::to_js_string(estimated),
            " iterations (",
            &num::to_fixed(ratio * 100.0, 0),
            "% of budget)",
        ])),
        evidence: Some(evidence.build()),
        recommendations: recommendations(&[
            if progress < 0.5 {
                "Consider aborting if little progress made"
            } else {
                "Increase iteration budget if task is viable"
            },
            "Analyze why estimates were incorrect",
            "Break remaining work into smaller tasks",
            "Request human decision on continuation",
        ]),
        others: Vec::new(),
    })
}

/// upstream's `detectRegression`.
pub fn detect_regression(history: &[BehaviorIteration], thresholds: &Thresholds) -> Option<Detection> {
    regression(&HistoryView::whole(history), thresholds)
}

fn regression(history: &HistoryView<'_>, thresholds: &Thresholds) -> Option<Detection> {
    if history.len < 2 {
        return None;
    }
    let recent = history.last(5);
    let mut regressions = Vec::new();
    for (i, pair) in recent.windows(2).enumerate() {
        let [previous, current] = pair else { continue };
        // `iteration`: the position in the window of five, as upstream reports it.
        let at = (i + 1) as f64;
        if previous.tests_passing == Some(true) && current.tests_passing == Some(false) {
            let mut regression = ObjectBuilder::new();
            regression.number("iteration", at).string("message", "Tests went from passing to failing");
            regressions.push(regression.build());
        }
        // Truthiness: a coverage of 0 reads as unknown.
        if let (Some(from), Some(to)) = (previous.coverage_percent, current.coverage_percent) {
            if from != 0.0 && to != 0.0 {
                let drop = from - to;
                if thresholds.regression.coverage_drop_percent.is_some_and(|t| drop >= t) {
                    let mut regression = ObjectBuilder::new();
                    regression
                        .number("iteration", at)
                        .string("message", &concat(&["Coverage dropped ", &num::to_fixed(drop, 1), "%"]))
                        .number("from", from)
                        .number("to", to);
                    regressions.push(regression.build());
                }
            }
        }
    }
    if regressions.is_empty() {
        return None;
    }
    let count = regressions.len() as u64;
    let mut evidence = ObjectBuilder::new();
    evidence.value("regressions", Value::Array(regressions));
    Some(Detection {
        kind: DetectionType::Regression.as_str().to_string(),
        severity: Some(Severity::as_str(if count >= 2 { Severity::Critical } else { Severity::High }).to_string()),
        message: Some(concat(&[
            "Regression detected: ",
            &num::uint_string(count),
            " quality regressions in recent iterations",
        ])),
        evidence: Some(evidence.build()),
        recommendations: recommendations(&[
            "Stop making changes that break tests",
            "Fix tests instead of deleting or disabling them",
            "Review anti-laziness rules (@.claude/rules/anti-laziness.md)",
            "Restore previous working state if needed",
        ]),
        others: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_entries_order_puts_array_indices_first() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("4294967294"), Some(4_294_967_294));
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("01"), None);
        assert_eq!(array_index("-1"), None);
        let it = |e: &str| BehaviorIteration { error: Some(e.to_string()), ..BehaviorIteration::default() };
        let recent = [it("timeout"), it("404"), it("timeout"), it("b"), it("404"), it("12"), it("9"), it("a"), it("b")];
        assert_eq!(error_counts(&recent), vec![("9", 1), ("12", 1), ("404", 2), ("timeout", 2), ("b", 2), ("a", 1)]);
    }

    #[test]
    fn words_split_as_javascript_splits_them() {
        let words = |text: &str| word_set(&text.to_lowercase()).iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(words(""), [""]);
        assert_eq!(words(" A  b a\u{feff}"), ["", "a", "b"]);
        assert_eq!(words("a  b"), ["a", "b"]);
        assert_eq!(words("x\u{85}y"), ["x\u{85}y"]);
        assert_eq!(words("ΟΔΟΣ"), ["οδος"]);
    }
}
