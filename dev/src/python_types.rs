//! `bindings/python/earlyexit/_literals.py`: every string-literal type of the Python package
//! (`Literal[...]`), each rendered from the core's list of names. The package's modules
//! import them from there (`from ._literals import Trigger`), so no list is written in Python.
//! And `bindings/python/earlyexit/types.py`, the package's types for annotations in one
//! public module: those literals, and the TypedDicts and aliases the package's modules
//! define ([`TYPING_NAMES`]), imported back from where they are.

use std::fmt::Write as _;

use earlyexit::loops::analytics::{SelectionCriteria, Trajectory};
use earlyexit::loops::behavior::{DetectionType, InterventionLevel, Severity, RESUME_LEVEL};
use earlyexit::loops::{Budget, PlateauDeltaSource, PlateauMode, ReturnPolicy, Trigger, LOOP_PRESETS};
use earlyexit::pyramid::policy::{ReceiptLabel, RunMode, RunPolicy};
use earlyexit::pyramid::replay::{Learn, POLICY_NAMES};
use earlyexit::pyramid::{Action, Outcome, Verdict};
use earlyexit::{ErrorCode, ExitReason, VerificationStatus};

/// The generated literals, relative to the repository.
pub const LITERALS_PATH: &str = "bindings/python/earlyexit/_literals.py";

/// The generated public module of types, relative to the repository.
pub const PATH: &str = "bindings/python/earlyexit/types.py";

/// The typing names (TypedDicts and aliases) of the package's modules, by module: what
/// `earlyexit.types` imports back besides the literals. A name added to a module's typing
/// section of `earlyexit/__init__.py` goes here too (`tests/python/test_types.py` checks that
/// every typing name of the top level is in `earlyexit.types`).
pub const TYPING_NAMES: &[(&str, &[&str])] = &[
    ("_loops", &["EarlyStoppingOptions", "IterationResultDict", "IterationRecordDict", "EarlyStoppingConfigDict"]),
    (
        "_decision",
        &[
            "HighConfidenceDetails",
            "PlateauStepDict",
            "PlateauDetails",
            "DiminishingReturnsDetails",
            "MaxIterationsDetails",
            "BudgetExhaustedDetails",
            "QualityRegressionDetails",
            "NoImprovementDetails",
            "StoppingDetails",
            "BudgetStatusDict",
            "StoppingDecisionDict",
            "StoppingSummaryDict",
        ],
    ),
    (
        "_analytics",
        &[
            "AnalyticsOptions",
            "AnalyticsConfigOptions",
            "IterationAnalyticsOptions",
            "ReportOptions",
            "AnalyticsConfigDict",
            "AnalyticsRecordDict",
            "DiminishingReturnsDict",
            "IterationSelectionDict",
            "AnalyticsSummaryDict",
        ],
    ),
    ("_replay", &["LoopPolicyDict", "ReplayRunOutcomeDict", "ReplaySummaryDict"]),
    (
        "_behavior",
        &[
            "ThresholdsOptions",
            "BehaviorIterationDict",
            "History",
            "DetectionDict",
            "InterventionDict",
            "InterventionSummaryDict",
            "PauseStatusDict",
            "InterventionStateDict",
        ],
    ),
    (
        "_pyramid",
        &[
            "ExitOptions",
            "LayerResultDict",
            "QualitySignalDict",
            "ExitConfigDict",
            "ExitDecisionDict",
            "SpeculationDict",
            "FailingLayerDict",
            "TestPyramidResultDict",
            "PyramidActionDict",
            "PolicyReportDict",
            "PolicyStepDict",
            "LayerCountsDict",
            "RanLayerDict",
        ],
    ),
    ("_controller", &["Layer", "LayerDict", "LayerOutcome", "Runner", "AsyncRunner"]),
    ("_store", &["StoredArtifactDict", "StoreCheckDict"]),
];

/// Where a line is wrapped (the package's style: 120 columns).
const WIDTH: usize = 120;

/// One `Literal` alias: its name, its `#:` doc and its members.
struct Union {
    name: &'static str,
    doc: &'static str,
    names: Vec<&'static str>,
}

fn unions() -> Vec<Union> {
    let union = |name, doc, names: Vec<&'static str>| Union { name, doc, names };
    let mut log_levels = InterventionLevel::NAMES.to_vec();
    log_levels.push(RESUME_LEVEL);
    vec![
        union("ErrorCode", "``EarlyExitError.code``.", ErrorCode::ALL.map(ErrorCode::as_str).to_vec()),
        union(
            "Trigger",
            "Which criterion stopped the loop (``\"none\"`` when it goes on).",
            Trigger::ALL.map(Trigger::as_str).to_vec(),
        ),
        union(
            "Budget",
            "Which opt-in budget a ``budget_exhausted`` stop or a ``budgets`` entry names.",
            Budget::NAMES.to_vec(),
        ),
        union(
            "PlateauDeltaSource",
            "Opt-in ``plateau_delta_source``: the caller's ``quality_delta`` (the default) or the score difference.",
            PlateauDeltaSource::NAMES.to_vec(),
        ),
        union(
            "PlateauMode",
            "Opt-in ``plateau_mode``: threshold as a fraction of the previous score (the default) or in points.",
            PlateauMode::NAMES.to_vec(),
        ),
        union("VerificationStatus", "An iteration's verification outcome.", VerificationStatus::NAMES.to_vec()),
        union(
            "ReturnPolicy",
            "Which record a stop returns: the last one (the default) or the best one.",
            ReturnPolicy::NAMES.to_vec(),
        ),
        union(
            "LoopPresetName",
            "The named loop presets; ``\"seed\"`` (``early-stopping.mjs``'s defaults) is the default everywhere.",
            LOOP_PRESETS.to_vec(),
        ),
        union("Trajectory", "``IterationAnalytics.trajectory()``.", Trajectory::NAMES.to_vec()),
        union(
            "SelectionCriteria",
            "How ``IterationAnalytics.select_best_iteration()`` chooses.",
            SelectionCriteria::NAMES.to_vec(),
        ),
        union("ExitReason", "Why ``CoherenceEarlyExit.should_exit()`` answered as it did.", ExitReason::NAMES.to_vec()),
        union("Outcome", "A layer outcome, predicted or observed.", Outcome::NAMES.to_vec()),
        union(
            "Verdict",
            "A pyramid run's verdict: a layer that ran or was verified failed; every layer ran or was\n\
             verified and passed; or no failure seen but some layers were skipped unverified.",
            Verdict::NAMES.to_vec(),
        ),
        union("ActionKind", "What ``PyramidRun.next()`` asks for.", Action::NAMES.to_vec()),
        union(
            "RunPolicy",
            "Who decides a live run: the ADR's exit decision (the default), or the policy's.",
            RunPolicy::NAMES.to_vec(),
        ),
        union(
            "RunMode",
            "Whether the policy's decisions are acted on (``'shadow'``: every layer runs; the would-be exit is a receipt).",
            RunMode::NAMES.to_vec(),
        ),
        union(
            "PyramidPolicyName",
            "The pyramid replay's policies (``replay_pyramids(policy=...)``).",
            POLICY_NAMES.to_vec(),
        ),
        union(
            "LearnMode",
            "Which layers a pyramid replay's outcome model learns from (``learn=``).",
            Learn::NAMES.to_vec(),
        ),
        union("ReceiptLabel", "What a shadow-mode receipt's skip turned out to be.", ReceiptLabel::NAMES.to_vec()),
        union("DetectionType", "What a detector finds (``Detection.type``).", DetectionType::NAMES.to_vec()),
        union("Severity", "How serious a detection is, mildest first.", Severity::NAMES.to_vec()),
        union("InterventionLevel", "How hard an intervention steps in, mildest first.", InterventionLevel::NAMES.to_vec()),
        union("LogLevel", "A log entry's level: an intervention's, or ``\"resume\"``.", log_levels),
    ]
}

/// The `Literal` alias whose members are `names` (a core name list), if the package has one.
pub(crate) fn literal_for(names: &[&str]) -> Option<&'static str> {
    unions().into_iter().find(|u| u.names == names).map(|u| u.name)
}

/// `types.py`: the literals and the typing names, imported back.
pub fn render_types() -> String {
    let unions = unions();
    let mut out = String::from(
        "# Generated by `make generate` (dev/, crate earlyexit-dev) from the core's lists of names and\n\
         # dev/src/python_types.rs: edit those and run it again, never this file (`make test-rust` runs\n\
         # `generate --check`, which fails when it is stale).\n\
         \"\"\"The package's types for annotations: every string-literal type (the list of names the core\n\
         accepts and answers), and every TypedDict and alias the package takes and answers. Import\n\
         them from here or, as before, from ``earlyexit``. ``__all__`` (a star import) lists the\n\
         string-literal types.\n\
         \"\"\"\n\n",
    );
    for u in &unions {
        let _ = writeln!(out, "from ._literals import {0} as {0}", u.name);
    }
    for (module, names) in TYPING_NAMES {
        for name in *names {
            let _ = writeln!(out, "from .{module} import {name} as {name}");
        }
    }
    out.push_str("\n__all__ = [\n");
    for u in &unions {
        let _ = writeln!(out, "    \"{}\",", u.name);
    }
    out.push_str("]\n");
    out
}

/// `_literals.py`: every `Literal` alias.
pub fn render() -> String {
    let unions = unions();
    let mut out = String::from(
        "# Generated by `make generate` (dev/, crate earlyexit-dev) from the core's lists of names: edit\n\
         # those (or dev/src/python_types.rs) and run it again, never this file (`make test-rust` runs\n\
         # `generate --check`, which fails when it is stale).\n\
         \"\"\"The string-literal types of the package, each the list of names the core accepts and\n\
         answers. Import them from ``earlyexit.types`` or ``earlyexit``.\n\
         \"\"\"\n\n\
         from typing import Literal\n",
    );
    // No `__all__`: nothing star-imports this private module; `types.py` lists the names.
    for u in &unions {
        out.push('\n');
        for line in u.doc.lines() {
            let _ = writeln!(out, "#: {line}");
        }
        let members: Vec<String> = u.names.iter().map(|n| format!("\"{n}\"")).collect();
        let one_line = format!("{} = Literal[{}]", u.name, members.join(", "));
        if one_line.len() <= WIDTH {
            let _ = writeln!(out, "{one_line}");
        } else {
            let _ = writeln!(out, "{} = Literal[", u.name);
            for m in &members {
                let _ = writeln!(out, "    {m},");
            }
            out.push_str("]\n");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_is_named_once_and_nonempty() {
        let mut seen = std::collections::BTreeSet::new();
        for u in unions() {
            assert!(seen.insert(u.name), "{} twice", u.name);
            assert!(!u.names.is_empty(), "{} has no member", u.name);
        }
        let text = render();
        assert!(text.starts_with("# Generated by"));
        assert!(text.contains("\nOutcome = Literal[\"pass\", \"flaky\", \"fail\"]\n"), "{text}");
    }
}
