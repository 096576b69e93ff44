//! Stop hooks of coding agents (Claude Code's `Stop` and `SubagentStop` events): what a hook
//! that drives an agent's loop decides and says. One event is one iteration of a [`Loop`];
//! this module holds the agent policy the hook decides by, the completion-promise rule, the
//! block-cap rule, the quality a check gives, and every message the hook writes (the
//! continuation prompt, the stop and cap messages). Reading the agent's transcript, running
//! git and the check, and the state file are the host's.
//!
//! [`Loop`]: crate::loops::Loop

use crate::loops::decision::StoppingDecision;
use crate::loops::records::IterationRecord;
use crate::loops::replay::LoopPolicy;
use crate::loops::vocabulary::{Trigger, VerificationStatus};
use crate::num;
use crate::value::{self, Error, ErrorCode, ErrorKind, Naming, Result, Value};

/// The iteration cap of the agent policy when none is given.
pub const DEFAULT_MAX_ITERATIONS: u64 = 25;
/// `unchanged(k)` of the agent policy: the fingerprint the same for `k + 1` events in a row.
pub const UNCHANGED_K: u64 = 3;
/// `revisit(window)` of the agent policy: the worktree back to a state of the last events.
pub const REVISIT_WINDOW: u64 = 4;
/// The `stuck` detector's window of the agent policy.
pub const STUCK_NO_PROGRESS_ITERATIONS: u64 = 5;
/// The `stuck` detector's repeat count of the agent policy: one tool error in that many events.
pub const STUCK_SAME_ERROR_COUNT: u64 = 3;
/// Claude Code ends a turn after this many consecutive blocks of its stop (unless
/// [`BLOCK_CAP_VARIABLE`] says otherwise).
pub const DEFAULT_BLOCK_CAP: u64 = 8;
/// The environment variable that sets Claude Code's block cap.
pub const BLOCK_CAP_VARIABLE: &str = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP";
/// Characters of the original task the default continuation prompt repeats.
pub const TASK_EXCERPT_CHARS: usize = 2000;
/// The check's timeout when none is given, in seconds.
pub const DEFAULT_CHECK_TIMEOUT_SECONDS: u64 = 300;
/// Characters of a tool error an iteration records (its first line, cut there).
pub const ERROR_CHARS: usize = 300;

/// The agent policy as a JSON policy (docs/loop-policies.md): `unchanged(3)`, `revisit(4)`,
/// `stuck` (5 events, one error 3 times, stopping from the `redirect` level), and a token
/// or cost budget when given; returns the best iteration. The loop itself adds `completed`
/// before it and `max_iterations` after it.
pub fn agent_policy_value(max_tokens: Option<f64>, max_cost_usd: Option<f64>) -> Value {
    let condition = |entries: Vec<(&str, Value)>| Value::object(entries);
    let mut any = vec![
        condition(vec![("condition", Value::string("unchanged")), ("k", Value::Number(UNCHANGED_K as f64))]),
        condition(vec![("condition", Value::string("revisit")), ("window", Value::Number(REVISIT_WINDOW as f64))]),
        condition(vec![
            ("condition", Value::string("stuck")),
            ("no_progress_iterations", Value::Number(STUCK_NO_PROGRESS_ITERATIONS as f64)),
            ("same_error_count", Value::Number(STUCK_SAME_ERROR_COUNT as f64)),
            ("stop_at", Value::string("redirect")),
        ]),
    ];
    if let Some(limit) = max_tokens {
        any.push(condition(vec![("condition", Value::string("max_total_tokens")), ("limit", Value::Number(limit))]));
    }
    if let Some(limit) = max_cost_usd {
        any.push(condition(vec![("condition", Value::string("max_total_cost_usd")), ("limit", Value::Number(limit))]));
    }
    Value::object(vec![("returns", Value::string("best")), ("any", Value::Array(any))])
}

/// [`agent_policy_value`] read as a loop policy (a bad budget is `invalid_config` naming
/// `policy.any[3].limit`).
pub fn agent_policy(max_tokens: Option<f64>, max_cost_usd: Option<f64>) -> Result<LoopPolicy> {
    LoopPolicy::engine_loop_policy(&agent_policy_value(max_tokens, max_cost_usd), Naming::Snake)
}

/// Whether a policy reads the quality score (a quality condition, or a config's tree,
/// which always holds `high_confidence`): without a check the hook has no quality, so such
/// a policy would decide on made-up scores.
pub fn reads_quality(policy: &LoopPolicy) -> bool {
    use crate::loops::policy::{ConditionKind, StopCondition};
    fn walk(c: &StopCondition) -> bool {
        match c {
            StopCondition::Any(of) | StopCondition::All(of) | StopCondition::KOf { of, .. } => of.iter().any(walk),
            StopCondition::NotBefore { then, .. } => walk(then),
            leaf => matches!(
                leaf.kind(),
                Some(
                    ConditionKind::HighConfidence
                        | ConditionKind::QualityPlateau
                        | ConditionKind::DiminishingReturns
                        | ConditionKind::QualityRegression
                        | ConditionKind::NoImprovement
                        | ConditionKind::FloorPatience
                )
            ),
        }
    }
    walk(&policy.stop_policy().when)
}

/// The message for a policy that reads quality given without a check.
pub const QUALITY_WITHOUT_CHECK: &str =
    "this policy reads the quality score, which only a check gives: add --check CMD \
     (and --junit PATH for a pass rate), or use a policy of progress conditions (completed, unchanged, revisit, \
     stuck, budgets)";

/// The completion tag for `promise`: `<promise>TEXT</promise>`.
pub fn promise_tag(promise: &str) -> String {
    value::concat(&["<promise>", promise, "</promise>"])
}

/// Whether `message` completes the loop: its last non-empty line, trimmed, is the tag of
/// `promise` and nothing else. The tag quoted inside a sentence, or on an earlier line, is
/// not a completion (a hook that matched it as a substring ended loops on prose about it).
pub fn promise_met(message: &str, promise: &str) -> bool {
    let last = message.lines().rev().map(str::trim).find(|line| !line.is_empty());
    last == Some(promise_tag(promise).as_str())
}

/// Whether an event completes the loop (its `completed` signal). `promise_met`: `None`
/// without a promise, else whether the event's message gave it ([`promise_met`]);
/// `check_passed`: `None` without a check. With a promise, the promise decides, and a check
/// must pass too (a promise over failing tests is no completion); without one, a passing
/// check completes the loop; with neither, nothing does (the progress conditions end it).
pub fn completes(promise_met: Option<bool>, check_passed: Option<bool>) -> bool {
    match (promise_met, check_passed) {
        (Some(met), check) => met && check != Some(false),
        (None, Some(passed)) => passed,
        (None, None) => false,
    }
}

/// The block cap from its environment variable's value: unset is [`DEFAULT_BLOCK_CAP`];
/// else an integer >= 1 (`invalid_config` naming [`BLOCK_CAP_VARIABLE`]).
pub fn block_cap(text: Option<&str>) -> Result<u64> {
    let Some(text) = text else { return Ok(DEFAULT_BLOCK_CAP) };
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            BLOCK_CAP_VARIABLE,
            value::concat(&[BLOCK_CAP_VARIABLE, " must be an integer >= 1, got '", text, "'"]),
        )),
    }
}

/// Whether one more block is allowed after `blocks_in_a_row` blocks after which the agent
/// used no tool: the hook lets the stop through one before Claude Code's cap, so the cap
/// never ends the turn for it (and the hook can say why).
pub fn may_block(blocks_in_a_row: u64, cap: u64) -> bool {
    blocks_in_a_row.saturating_add(1) < cap
}

/// The system message of a stop let through before the block cap.
pub fn cap_message(blocks_in_a_row: u64, cap: u64, iteration: u64) -> String {
    value::concat(&[
        "earlyexit let the stop through at iteration ",
        &num::uint_string(iteration),
        ": the agent used no tool after the last ",
        &num::uint_string(blocks_in_a_row),
        " continuations, and Claude Code ends the turn after ",
        &num::uint_string(cap),
        " blocks in a row; the loop was not finished (prompt again to start a new one)",
    ])
}

/// The quality and verification a check gives: exit 0 passes, anything else fails; the
/// quality is 100 x the report's pass rate (0..=1) when there is one, else 100 for a pass
/// and 0 for a failure.
pub fn check_quality(passed: bool, pass_rate: Option<f64>) -> (f64, VerificationStatus) {
    let status = if passed { VerificationStatus::Passed } else { VerificationStatus::Failed };
    let quality = match pass_rate {
        Some(rate) => rate * 100.0,
        _ if passed => 100.0,
        _ => 0.0,
    };
    (quality, status)
}

/// The first [`TASK_EXCERPT_CHARS`] characters of the task.
pub fn task_excerpt(task: &str) -> &str {
    match task.char_indices().nth(TASK_EXCERPT_CHARS) {
        Some((end, _)) => task.get(..end).unwrap_or(task),
        None => task,
    }
}

/// A tool error as an iteration records it: its first non-empty line, at most
/// [`ERROR_CHARS`] characters (so one failure repeated reads as one error).
pub fn error_text(error: &str) -> String {
    let line = error.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    match line.char_indices().nth(ERROR_CHARS) {
        Some((end, _)) => line.get(..end).unwrap_or(line).to_string(),
        None => line.to_string(),
    }
}

/// How many events in a row, ending at the last, saw the last event's fingerprint, less one:
/// the turns without a change.
pub fn unchanged_turns(history: &[IterationRecord]) -> u64 {
    let fingerprint = |r: &IterationRecord| r.behavior.as_ref().and_then(|b| b.fingerprint.clone());
    let Some(last) = history.last().and_then(fingerprint) else { return 0 };
    let run = history.iter().rev().take_while(|r| fingerprint(r).as_deref() == Some(last.as_str())).count();
    run.saturating_sub(1) as u64
}

/// What the check of the last event showed.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckSeen {
    /// No check is configured.
    None,
    /// The check passed.
    Passed,
    /// The check failed with this exit code (`None`: killed by a signal).
    Failed(Option<i32>),
    /// The check's report counted `failed` failing tests of `total`.
    Tests {
        /// Failing tests.
        failed: u64,
        /// All tests.
        total: u64,
        /// The check's exit status.
        passed: bool,
    },
}

/// What the engine saw at one event, for the continuation prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    /// The event's iteration.
    pub iteration: u64,
    /// The loop's cap.
    pub max_iterations: Option<u64>,
    /// The check's outcome.
    pub check: CheckSeen,
    /// Events without a change of the fingerprint ([`unchanged_turns`]).
    pub unchanged_turns: u64,
    /// The fingerprint's kind (`git` says "the worktree", else "your last message").
    pub worktree: bool,
    /// Tool calls that failed in the event's turn.
    pub tool_errors: u64,
    /// The last of them ([`error_text`]).
    pub last_error: Option<String>,
    /// The warning of an intervention that did not stop (a detector's redirect or warning).
    pub warning: Option<String>,
    /// The completion promise, when one ends the loop.
    pub promise: Option<String>,
    /// The end of a failing check's output.
    pub check_output: Option<String>,
}

fn plural(n: u64, one: &str, many: &str) -> String {
    value::concat(&[&num::uint_string(n), " ", if n == 1 { one } else { many }])
}

/// "iteration 3 of at most 25: tests still failing: 3 of 41; no change in the worktree
/// for 2 turns": what the engine saw, one line per fact.
pub fn seen_text(seen: &Seen) -> String {
    let mut facts = Vec::new();
    match &seen.check {
        CheckSeen::None => {}
        CheckSeen::Passed => facts.push("the check passes".to_string()),
        CheckSeen::Failed(Some(code)) => {
            facts.push(value::concat(&["the check still fails (exit code ", &num::to_js_string(f64::from(*code)), ")"]))
        }
        CheckSeen::Failed(None) => facts.push("the check still fails (killed by a signal)".to_string()),
        CheckSeen::Tests { failed, total, passed } => {
            if *failed > 0 {
                facts.push(value::concat(&[
                    "tests still failing: ",
                    &num::uint_string(*failed),
                    " of ",
                    &num::uint_string(*total),
                ]));
            } else if *passed {
                facts.push(value::concat(&["all ", &num::uint_string(*total), " tests pass"]));
            } else {
                facts.push("the check fails, though its report counts no failing test".to_string());
            }
        }
    }
    if seen.unchanged_turns > 0 {
        let what = if seen.worktree { "no change in the worktree for " } else { "the same last message for " };
        facts.push(value::concat(&[what, &plural(seen.unchanged_turns, "turn", "turns")]));
    }
    if seen.tool_errors > 0 {
        let mut fact = value::concat(&[&plural(seen.tool_errors, "tool call", "tool calls"), " failed"]);
        if let Some(error) = &seen.last_error {
            fact.push_str(&value::concat(&[" (last: ", error, ")"]));
        }
        facts.push(fact);
    }
    if let Some(warning) = &seen.warning {
        facts.push(warning.clone());
    }
    let mut head = value::concat(&["earlyexit, iteration ", &num::uint_string(seen.iteration)]);
    if let Some(cap) = seen.max_iterations {
        head.push_str(&value::concat(&[" of at most ", &num::uint_string(cap)]));
    }
    if facts.is_empty() {
        facts.push("the loop goes on".to_string());
    }
    value::concat(&[&head, ": ", &facts.join("; ")])
}

/// The continuation prompt: `prompt` (the user's prompt file, or the original task cut to
/// [`TASK_EXCERPT_CHARS`]), what the engine saw, and how to end the loop when a promise does.
pub fn continuation_prompt(prompt: &str, seen: &Seen) -> String {
    let mut text = String::new();
    if !prompt.trim().is_empty() {
        text.push_str(prompt.trim_end());
        text.push_str("\n\n");
    }
    text.push_str(&seen_text(seen));
    text.push('.');
    if let Some(output) = seen.check_output.as_deref().map(str::trim_end).filter(|o| !o.is_empty()) {
        text.push_str("\nThe check's output ended with:\n");
        text.push_str(output);
    }
    text.push_str("\nKeep working on the task.");
    if let Some(promise) = &seen.promise {
        text.push_str(&value::concat(&[
            " When it is done, end your reply with ",
            &promise_tag(promise),
            " alone on its last line.",
        ]));
    }
    text
}

/// Where an iteration left the work, so the user can get back to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Whereabouts {
    /// The commit `HEAD` named (git fingerprints only).
    pub commit: Option<String>,
    /// Whether the worktree had changes beyond that commit.
    pub dirty: bool,
    /// The files the loop's edits changed up to it.
    pub files: Vec<String>,
}

/// Files a message names before it says "and N more".
const FILES_SHOWN: usize = 10;

fn whereabouts_text(at: &Whereabouts) -> String {
    let mut parts = Vec::new();
    if let Some(commit) = &at.commit {
        let mut part = value::concat(&["the worktree was at commit ", commit]);
        if at.dirty {
            part.push_str(" with uncommitted changes");
        }
        parts.push(part);
    }
    if !at.files.is_empty() {
        let shown: Vec<&str> = at.files.iter().take(FILES_SHOWN).map(String::as_str).collect();
        let mut part = value::concat(&["files changed by then: ", &shown.join(", ")]);
        if at.files.len() > FILES_SHOWN {
            part.push_str(&value::concat(&[
                " and ",
                &num::uint_string((at.files.len() - FILES_SHOWN) as u64),
                " more",
            ]));
        }
        parts.push(part);
    }
    parts.join("; ")
}

/// The system message of a stop: why, after how many iterations, the best iteration (when a
/// check gave qualities) and where it left the work.
pub fn stop_message(
    decision: &StoppingDecision,
    iterations: u64,
    quality_known: bool,
    best: Option<&Whereabouts>,
) -> String {
    let mut text = value::concat(&[
        "earlyexit stopped the loop after ",
        &plural(iterations, "iteration", "iterations"),
        " (",
        decision.trigger.as_str(),
        "): ",
        &decision.reason,
        ".",
    ]);
    if decision.trigger == Trigger::Completed {
        return text;
    }
    match (quality_known, decision.best) {
        (true, Some((iteration, quality))) => {
            text.push_str(&value::concat(&[
                " Best iteration: ",
                &num::uint_string(iteration),
                " (quality ",
                &num::to_js_string(quality),
                ")",
            ]));
            let at = best.map(whereabouts_text).unwrap_or_default();
            if at.is_empty() {
                text.push('.');
            } else {
                text.push_str(&value::concat(&["; ", &at, ". To get back to it, restore that state."]));
            }
        }
        _ => text.push_str(" No check ran, so no iteration is known to be better than the last."),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_promise_counts_only_alone_on_the_last_line() {
        assert!(promise_met("All green.\n\n<promise>DONE</promise>\n  \n", "DONE"));
        assert!(!promise_met("I will print <promise>DONE</promise> when done.", "DONE"));
        assert!(!promise_met("<promise>DONE</promise>\nnot yet", "DONE"));
        assert!(!promise_met("", "DONE"));
    }

    #[test]
    fn a_promise_needs_a_passing_check_and_a_check_alone_completes() {
        assert!(completes(Some(true), None));
        assert!(completes(Some(true), Some(true)));
        assert!(!completes(Some(true), Some(false)));
        assert!(!completes(Some(false), Some(true)));
        assert!(completes(None, Some(true)));
        assert!(!completes(None, Some(false)));
        assert!(!completes(None, None));
    }

    #[test]
    fn the_cap_leaves_one_block() {
        assert!(may_block(6, 8));
        assert!(!may_block(7, 8));
        assert!(!may_block(0, 1));
        assert_eq!(block_cap(None).ok(), Some(8));
        assert_eq!(block_cap(Some("3")).ok(), Some(3));
        assert_eq!(block_cap(Some("0")).err().map(|e| e.field().to_string()).as_deref(), Some(BLOCK_CAP_VARIABLE));
    }

    #[test]
    fn the_agent_policy_reads_no_quality() {
        let policy = agent_policy(Some(1000.0), Some(2.5));
        assert!(policy.as_ref().is_ok_and(|p| !reads_quality(p)));
        assert!(agent_policy(Some(-1.0), None).is_err());
        assert!(reads_quality(&LoopPolicy::recommended()));
    }

    #[test]
    fn excerpts_cut_on_characters() {
        let long = "é".repeat(TASK_EXCERPT_CHARS + 5);
        assert_eq!(task_excerpt(&long).chars().count(), TASK_EXCERPT_CHARS);
        assert_eq!(error_text("\n  boom: x\nmore"), "boom: x");
    }
}
