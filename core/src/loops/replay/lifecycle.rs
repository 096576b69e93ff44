//! The pyramid's lifecycle for loop policies: promotion on an audit split disjoint from the
//! calibration corpus by task ([`promote_loop_value`]), and the drift check that demotes an
//! artifact whose recent runs no longer look like its calibration ([`loop_drift_value`]).
//! The promotion is recorded in the shared envelope ([`Promotion`], with `artifactSha256`),
//! its bound is the exact Clopper-Pearson bound the pyramid's uses.
//!
//! A loop artifact lists its calibration tasks (`body.tasks`: `[dataset or null, id]`, sorted,
//! written by calibration), so an audit split that shares a task with calibration is refused.

use crate::artifact::{digest, document, Artifact, ArtifactKind, Sha256};
use crate::artifact::{drift_answer, promotion_answer, AuditTerms};
use crate::loops::replay::artifact::{check_body, corpus_value};
use crate::loops::replay::input::runs_from_value;
use crate::loops::replay::play::replay_run;
use crate::loops::replay::policy::LoopPolicy;
use crate::loops::replay::runs::{task_keys, ReplayRun, TaskKey, TASKS_KEY};
use crate::num::stats::wilson_interval;
use crate::num::{to_js_string, uint_string};
use crate::time::now_argument;
use crate::value::{concat, Error, ErrorCode, ErrorKind, Naming, ObjectBuilder, Result, Value};

fn read_tasks(body: &Value) -> Result<Vec<TaskKey>> {
    let bad = |message: &str| {
        Error::new(ErrorCode::InvalidArtifact, ErrorKind::Range, "body.tasks", concat(&["body.tasks ", message]))
    };
    let Some(Value::Array(items)) = body.get(TASKS_KEY) else {
        return Err(bad(
            "must list the calibration tasks ([dataset or null, id] pairs): an artifact without it cannot show an \
             audit split disjoint from calibration; calibrate again",
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::Array(pair) if pair.len() == 2 => match (pair.first(), pair.get(1)) {
                (Some(Value::Null), Some(Value::String(id))) => out.push((None, id.clone())),
                (Some(Value::String(d)), Some(Value::String(id))) => out.push((Some(d.clone()), id.clone())),
                _ => return Err(bad("must hold [dataset or null, id] pairs of strings")),
            },
            _ => return Err(bad("must hold [dataset or null, id] pairs of strings")),
        }
    }
    out.sort();
    Ok(out)
}

/// A loop artifact as the lifecycle reads it: the envelope (kind `loop`, another kind refused
/// by `kind`), its promotion its own, its body's copies agreeing, and its policy.
fn read_loop_artifact(artifact: &Value, sha256: &dyn Sha256) -> Result<(Artifact, LoopPolicy)> {
    let document = document(artifact)?;
    let value = document.as_ref();
    let wrong = |kind: &str| {
        Error::new(
            ErrorCode::InvalidArtifact,
            ErrorKind::Range,
            "kind",
            concat(&["kind must be 'loop' for a loop policy, got '", kind, "'"]),
        )
    };
    if value.get("kind").and_then(Value::as_str) == Some(ArtifactKind::Pyramid.as_str()) {
        return Err(wrong(ArtifactKind::Pyramid.as_str()));
    }
    let a = Artifact::from_value(value)?;
    if a.kind != ArtifactKind::Loop {
        return Err(wrong(a.kind.as_str()));
    }
    a.check_promotion(sha256)?;
    check_body(&a)?;
    let policy =
        LoopPolicy::from_value(&a.policy, Naming::Js).map_err(|e| e.nested(ErrorCode::InvalidArtifact, "policy"))?;
    Ok((a, policy))
}

/// Premature tasks of `runs` under `policy`: (tasks, tasks with a run stopped prematurely).
fn premature_tasks(runs: &[ReplayRun], policy: &LoopPolicy) -> Result<(u64, u64)> {
    let keys = task_keys(runs);
    let mut premature = vec![false; keys.len()];
    for run in runs {
        let outcome = replay_run(run, policy)?;
        if outcome.premature {
            let key = (run.dataset.clone(), run.id.clone());
            if let Ok(i) = keys.binary_search(&key) {
                if let Some(flag) = premature.get_mut(i) {
                    *flag = true;
                }
            }
        }
    }
    Ok((keys.len() as u64, premature.iter().filter(|p| **p).count() as u64))
}

fn task_name(key: &TaskKey) -> String {
    match &key.0 {
        Some(dataset) => concat(&[dataset, "/", &key.1]),
        None => key.1.clone(),
    }
}

/// `promote_loop_policy(artifact, audit_runs)`: replays the audit runs with the artifact's
/// policy and promotes when the exact Clopper-Pearson upper bound of the premature-stop rate
/// (tasks stopped prematurely / tasks, at the artifact's `delta`) is within its `risk`. The
/// audit split must share no task with calibration (`invalid_replay` at `auditRuns`), and an
/// expired artifact is never promoted. Answers `{promoted, reason, audit, artifact}`.
pub fn promote_loop_value(
    artifact: &Value,
    audit_runs: &Value,
    sha256: &dyn Sha256,
    now: &Value,
    naming: Naming,
) -> Result<Value> {
    let now_ms = now_argument(now)?;
    let (a, policy) = read_loop_artifact(artifact, sha256)?;
    let calibration = read_tasks(&a.body)?;
    let audit = runs_from_value(audit_runs, naming)?;
    let audit_sha = digest(&corpus_value(&audit), sha256, ErrorCode::InvalidReplay, "auditRuns")?;
    if let Some(shared) = task_keys(&audit).iter().find(|k| calibration.binary_search(k).is_ok()) {
        let message = concat(&[
            "auditRuns shares task '",
            &task_name(shared),
            "' with the calibration corpus: promotion needs an audit split disjoint from calibration by task",
        ]);
        return Err(Error::new(ErrorCode::InvalidReplay, ErrorKind::Range, "auditRuns", message));
    }
    let counts = premature_tasks(&audit, &policy)?;
    promotion_answer(&a, (audit.len(), audit_sha), counts, &AUDIT_TERMS, sha256, now_ms)
}

/// A loop promotion's audit counts tasks, and the tasks stopped prematurely.
const AUDIT_TERMS: AuditTerms = AuditTerms {
    rate: "premature-stop rate",
    no_trial: "no audit task: the premature-stop rate cannot be bounded",
    keys: ["tasks", "prematureTasks", "prematureRate"],
};

fn reason(kind: &str, message: &str) -> Value {
    ObjectBuilder::new().string("kind", kind).string("message", message).build()
}

/// The calibration's premature-stop figures of the chosen policy: (tasks, premature tasks),
/// from the certificate's hypothesis at the chosen point (the last rejected one, else the first).
fn calibration_rate(a: &Artifact) -> Option<(u64, u64)> {
    let hypotheses = &a.certificate.hypotheses;
    let chosen = hypotheses.iter().take_while(|h| h.rejected).last().or(hypotheses.first())?;
    Some((chosen.trials, chosen.events))
}

/// `check_loop_drift(artifact, runs, now=None)`: `fresh`, `expired` (now at or after its own
/// `expiresAt`) or `drifted`, with `reasons` (`{kind, message}`): a dataset the calibration
/// tasks did not have (`dataset`), a premature-stop rate over the recent tasks whose Wilson 95%
/// interval does not overlap the calibration's (`premature_rate`), or, for a promoted
/// artifact, a recent premature stop (`premature_stop`). The answer's `artifact` is the one to
/// run with now: unchanged when fresh, else demoted (`promotion: null`).
pub fn loop_drift_value(
    artifact: &Value,
    runs: &Value,
    sha256: &dyn Sha256,
    now: &Value,
    naming: Naming,
) -> Result<Value> {
    let now_ms = now_argument(now)?;
    let (a, policy) = read_loop_artifact(artifact, sha256)?;
    let recent = runs_from_value(runs, naming)?;
    let mut reasons = Vec::new();
    let expired = a.is_expired(now_ms);
    if expired {
        reasons.push(reason("expired", &concat(&["the artifact expired at ", &a.expires_at])));
    }
    if let Ok(calibration) = read_tasks(&a.body) {
        let mut seen: Vec<Option<String>> = Vec::new();
        for run in &recent {
            if !seen.contains(&run.dataset) && !calibration.iter().any(|(d, _)| *d == run.dataset) {
                seen.push(run.dataset.clone());
                let name = run.dataset.as_deref().unwrap_or("(none)");
                reasons.push(reason("dataset", &concat(&["dataset '", name, "' was not in the calibration corpus"])));
            }
        }
    }
    let (tasks, premature) = premature_tasks(&recent, &policy)?;
    if let (Some((n, k)), Some((rlo, rhi))) = (calibration_rate(&a), wilson_interval(premature, tasks)) {
        if let Some((lo, hi)) = wilson_interval(k, n) {
            if rhi < lo || rlo > hi {
                let message = concat(&[
                    &uint_string(premature),
                    " of ",
                    &uint_string(tasks),
                    " recent tasks stopped prematurely, outside the calibration interval [",
                    &to_js_string(lo),
                    ", ",
                    &to_js_string(hi),
                    "] (",
                    &uint_string(k),
                    " of ",
                    &uint_string(n),
                    ")",
                ]);
                reasons.push(reason("premature_rate", &message));
            }
        }
    }
    if a.promotion.is_some() && premature > 0 {
        let message = concat(&[&uint_string(premature), " recent tasks stopped prematurely under the promoted policy"]);
        reasons.push(reason("premature_stop", &message));
    }
    let counts = [("runs", recent.len() as f64), ("tasks", tasks as f64), ("prematureTasks", premature as f64)];
    Ok(drift_answer(&a, expired, reasons, &counts, now_ms))
}
