//! The keys, in order, of the results the JS layer assembles on its fast paths (a decision
//! and its details, a history record, the summary, the snapshot, a pyramid run's result),
//! so that the generated builders (`bindings/js/api/contract.generated.mjs`) write exactly
//! the objects the core's writers write. Each list is the core's own (the `KEYS` and
//! `OPTIONAL_KEYS` tables next to its writers); what this crate adds is how a stop's detail
//! crosses the slots ([`Kind`]). The tests below still hold each list against the writer's
//! output (`to_value`), and the generator refuses to render a builder that has no value for
//! a key.

use earlyexit::loops::analytics::IterationSelection;
use earlyexit::loops::STRICT_ITERATIONS_FROM;
use earlyexit::loops::{
    BudgetStatus, DiminishingReturnsReport, IterationRecord, PlateauStep, StoppingDecision, StoppingDetails,
    StoppingSummary, Trigger,
};
use earlyexit::pyramid::{FailingLayer, Speculation, TestPyramidResult};
use earlyexit::LayerSpec;

use crate::slots::{
    CODE_BUDGET, CODE_DIMINISHING, CODE_HIGH_CONFIDENCE, CODE_MAX_ITERATIONS, CODE_NO_IMPROVEMENT, CODE_PLATEAU,
    CODE_REGRESSION, DETAIL_SLOTS, STATUS_ABSENT,
};

/// One key of a result object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key as the JS API spells it.
    pub name: &'static str,
    /// Whether the writer leaves it out in some results (it is then absent, never `undefined`).
    pub optional: bool,
}

const fn key(name: &'static str) -> Key {
    Key { name, optional: false }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A writer's keys (`names`, in its order), those in `optional` marked optional.
const fn keys<const N: usize>(names: [&'static str; N], optional: &[&'static str]) -> [Key; N] {
    let mut out = [key(""); N];
    let mut i = 0;
    while i < N {
        let mut j = 0;
        while j < optional.len() {
            if same(names[i], optional[j]) {
                out[i].optional = true;
            }
            j += 1;
        }
        out[i].name = names[i];
        i += 1;
    }
    out
}

/// The camelCase spellings of the core's two-spelling keys.
const fn js<const N: usize>(keys: [earlyexit::value::Key; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = keys[i].js;
        i += 1;
    }
    out
}

/// A stop's detail keys (`names`, in the writer's order) with how each crosses.
const fn details<const N: usize>(names: [&'static str; N], kinds: [Kind; N]) -> [DetailKey; N] {
    let mut out = [DetailKey { name: "", kind: Kind::Number }; N];
    let mut i = 0;
    while i < N {
        out[i] = DetailKey { name: names[i], kind: kinds[i] };
        i += 1;
    }
    out
}

/// `StoppingDecision::to_value`: the seed's keys, then the extras.
pub const DECISION: [Key; StoppingDecision::KEYS.len()] =
    keys(StoppingDecision::KEYS, &StoppingDecision::OPTIONAL_KEYS);

/// What a check method answers (`checkHighConfidence()` and the others): the decision
/// without the extras.
pub const CHECK_ANSWER: [Key; 5] = [DECISION[0], DECISION[1], DECISION[2], DECISION[3], DECISION[4]];

/// One entry of a decision's `budgets`: key `i` is in slot `i` of its `BUDGET_STATUS_SLOTS`.
pub const BUDGET_STATUS: [DetailKey; 5] =
    details(BudgetStatus::KEYS, [Kind::Budget, Kind::Number, Kind::Number, Kind::Number, Kind::Bool]);

/// One step of a plateau's `improvements`: key `i` is in slot `i` of its `IMPROVEMENT_SLOTS`.
pub const PLATEAU_STEP: [DetailKey; 3] = details(PlateauStep::KEYS, [Kind::Number; 3]);

/// `IterationAnalytics::select_best_iteration_value`: `selectBestIteration()`'s answer (the
/// JS layer puts its own record object in `selected`).
pub const SELECTION: [Key; IterationSelection::KEYS.len()] = keys(IterationSelection::KEYS, &[]);

/// `IterationRecord::to_value`: a history record (the usage fields when given).
pub const RECORD: [Key; IterationRecord::KEYS.len()] = keys(IterationRecord::KEYS, &IterationRecord::OPTIONAL_KEYS);

/// `StoppingSummary::to_value` over a non-empty history.
pub const SUMMARY: [Key; StoppingSummary::KEYS.len()] = keys(StoppingSummary::KEYS, &StoppingSummary::OPTIONAL_KEYS);

/// `EarlyStopping::to_snapshot` (the keys a snapshot without a stop policy has, with
/// `strictIterationsFrom` only where strict checking began after records that do not
/// increase; the core's snapshot writer names them in place: the test below holds the two
/// together).
pub const SNAPSHOT: [Key; 7] = keys(
    ["version", "engine", "config", "history", "stoppingReason", "stoppingDetails", STRICT_ITERATIONS_FROM],
    &[STRICT_ITERATIONS_FROM],
);

/// `TestPyramidResult::to_value` (camelCase, as every language's JSON has it).
pub const PYRAMID_RESULT: [Key; TestPyramidResult::KEYS.len()] =
    keys(js(TestPyramidResult::KEYS), &js(TestPyramidResult::OPTIONAL_KEYS));

/// `Speculation::to_value`: `actual` and `correct` once verified.
pub const SPECULATION: [Key; Speculation::KEYS.len()] = keys(Speculation::KEYS, &Speculation::OPTIONAL_KEYS);

/// `FailingLayer::to_value`.
pub const FAILING_LAYER: [Key; FailingLayer::KEYS.len()] = keys(js(FailingLayer::KEYS), &[]);

/// What the core reads of a pyramid's layer (`LayerSpec::from_value`: `{name, costMs?}`;
/// the runner stays in JS).
pub const LAYER_SPEC: [Key; LayerSpec::KEYS.len()] = keys(js(LayerSpec::KEYS), &js(LayerSpec::OPTIONAL_KEYS));

/// A diminishing-returns source's report (`DiminishingReturnsReport::to_value`): the keys the
/// core reads of what `detectDiminishingReturns()` answers.
pub const REPORT: [Key; DiminishingReturnsReport::KEYS.len()] =
    keys(DiminishingReturnsReport::KEYS, &DiminishingReturnsReport::OPTIONAL_KEYS);

/// `calibratePyramidPolicy(runs, risk, delta, options)`: the positional arguments as the
/// options keys the core reads (`pyramid_replay::calibrate_value`; the test below holds them
/// against the reader).
pub const CALIBRATE_ARGUMENTS: [Key; 2] = [key("risk"), key("delta")];

/// How one key of a stop's details crosses the detail slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number, in its slot.
    Number,
    /// A verification status: its index in `STATUSES`, or `STATUS_ABSENT` (the key is then absent).
    Status,
    /// A budget: its index in `BUDGETS`.
    Budget,
    /// A boolean (0/1).
    Bool,
    /// The plateau's steps: their count in the slot, the steps themselves from the slot
    /// `OUT_IMPROVEMENTS_AT` names (`PLATEAU_STEP`).
    Steps,
    /// The source's `iteration`, which the JS layer holds (absent when the report has none).
    ReportIteration,
    /// The source's `reason`, which the JS layer holds.
    ReportReason,
}

/// One key of a stop's details.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetailKey {
    /// The key.
    pub name: &'static str,
    /// How its value crosses.
    pub kind: Kind,
}

/// The details of one kind of stop: its trigger, its code and its keys (`StoppingDetails::to_value`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StopDetails {
    /// The trigger.
    pub trigger: Trigger,
    /// The fast path's code for it.
    pub code: f64,
    /// The keys, in the writer's order; key `i` is in detail slot `i`.
    pub keys: &'static [DetailKey],
}

/// Every stop the fast path answers.
pub const DETAILS: [StopDetails; 7] = [
    StopDetails {
        trigger: Trigger::HighConfidence,
        code: CODE_HIGH_CONFIDENCE,
        keys: &details(StoppingDetails::HIGH_CONFIDENCE_KEYS, [Kind::Number, Kind::Number, Kind::Status]),
    },
    StopDetails {
        trigger: Trigger::QualityPlateau,
        code: CODE_PLATEAU,
        keys: &details(StoppingDetails::QUALITY_PLATEAU_KEYS, [Kind::Number, Kind::Steps, Kind::Number, Kind::Number]),
    },
    StopDetails {
        trigger: Trigger::DiminishingReturns,
        code: CODE_DIMINISHING,
        keys: &details(StoppingDetails::DIMINISHING_RETURNS_KEYS, [Kind::ReportIteration, Kind::ReportReason]),
    },
    StopDetails {
        trigger: Trigger::MaxIterations,
        code: CODE_MAX_ITERATIONS,
        keys: &details(StoppingDetails::MAX_ITERATIONS_KEYS, [Kind::Number; 2]),
    },
    StopDetails {
        trigger: Trigger::BudgetExhausted,
        code: CODE_BUDGET,
        keys: &details(
            StoppingDetails::BUDGET_EXHAUSTED_KEYS,
            [Kind::Budget, Kind::Number, Kind::Number, Kind::Number],
        ),
    },
    StopDetails {
        trigger: Trigger::QualityRegression,
        code: CODE_REGRESSION,
        keys: &details(StoppingDetails::QUALITY_REGRESSION_KEYS, [Kind::Number; 4]),
    },
    StopDetails {
        trigger: Trigger::NoImprovement,
        code: CODE_NO_IMPROVEMENT,
        keys: &details(StoppingDetails::NO_IMPROVEMENT_KEYS, [Kind::Number; 4]),
    },
];

/// A stop's details as the detail slots carry them: its code and the numbers in key order
/// (`DETAILS`; a plateau's steps go after the state, the source's values stay in JS).
/// `None` for a stop [`DETAILS`] does not list (the JS layer then throws).
#[inline]
pub fn detail_numbers(details: &StoppingDetails) -> Option<(f64, [f64; DETAIL_SLOTS])> {
    let mut n = [0.0; DETAIL_SLOTS];
    let code = match details {
        StoppingDetails::HighConfidence { confidence, quality_score, verification_status } => {
            n[0] = *confidence;
            n[1] = *quality_score;
            n[2] = verification_status.map_or(STATUS_ABSENT, status_code);
            CODE_HIGH_CONFIDENCE
        }
        StoppingDetails::QualityPlateau { consecutive_count, improvements, average_quality, threshold } => {
            n[0] = *consecutive_count as f64;
            n[1] = improvements.len() as f64;
            n[2] = *average_quality;
            n[3] = *threshold;
            CODE_PLATEAU
        }
        StoppingDetails::DiminishingReturns { .. } => CODE_DIMINISHING,
        StoppingDetails::MaxIterations { iterations, max_iterations } => {
            n[0] = *iterations as f64;
            n[1] = *max_iterations as f64;
            CODE_MAX_ITERATIONS
        }
        StoppingDetails::BudgetExhausted { budget, limit, observed, records_without_value } => {
            n[0] = budget_code(*budget);
            n[1] = *limit;
            n[2] = *observed;
            n[3] = *records_without_value as f64;
            CODE_BUDGET
        }
        StoppingDetails::QualityRegression { best_iteration, best_quality_score, tolerance, patience } => {
            n[0] = *best_iteration as f64;
            n[1] = *best_quality_score;
            n[2] = *tolerance;
            n[3] = *patience as f64;
            CODE_REGRESSION
        }
        StoppingDetails::NoImprovement {
            best_iteration,
            best_quality_score,
            iterations_without_improvement,
            patience,
        } => {
            n[0] = *best_iteration as f64;
            n[1] = *best_quality_score;
            n[2] = *iterations_without_improvement as f64;
            n[3] = *patience as f64;
            CODE_NO_IMPROVEMENT
        }
        _ => return None,
    };
    Some((code, n))
}

/// A status's code: its index in `VerificationStatus::ALL` (a test holds the two together).
#[inline(always)]
pub fn status_code(status: earlyexit::VerificationStatus) -> f64 {
    use earlyexit::VerificationStatus;
    match status {
        VerificationStatus::Passed => 0.0,
        VerificationStatus::Failed => 1.0,
        VerificationStatus::Skipped => 2.0,
    }
}

/// A budget's code: its index in `Budget::ALL` (a test holds the two together).
#[inline(always)]
pub fn budget_code(budget: earlyexit::loops::Budget) -> f64 {
    use earlyexit::loops::Budget;
    match budget {
        Budget::Tokens => 0.0,
        Budget::CostUsd => 1.0,
        Budget::WallClockMs => 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use earlyexit::loops::{
        Budget, BudgetStatus, EarlyStoppingConfig, FinalRecord, IterationRecord, PlateauStep, ReportedIteration,
        ResourceUsage, StoppingDecision, StoppingSummary,
    };
    use earlyexit::{Observation, Value, VerificationStatus};

    fn keys_of(value: &Value) -> Vec<&str> {
        match value {
            Value::Object(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
            other => panic!("not an object: {other:?}"),
        }
    }

    /// The writer's keys are the list's: all of them for `full`, the required ones for `bare`.
    fn assert_keys(keys: &[Key], full: &Value, bare: &Value) {
        assert_eq!(keys_of(full), keys.iter().map(|k| k.name).collect::<Vec<_>>());
        assert_eq!(keys_of(bare), keys.iter().filter(|k| !k.optional).map(|k| k.name).collect::<Vec<_>>());
    }

    fn samples() -> Vec<StoppingDetails> {
        let step = PlateauStep { iteration: 4, improvement: 0.01, delta: 0.5 };
        vec![
            StoppingDetails::HighConfidence {
                confidence: 0.97,
                quality_score: 91.0,
                verification_status: Some(VerificationStatus::Skipped),
            },
            StoppingDetails::HighConfidence { confidence: 0.97, quality_score: 91.0, verification_status: None },
            StoppingDetails::QualityPlateau {
                consecutive_count: 3,
                improvements: vec![step.clone(), step],
                average_quality: 80.5,
                threshold: 0.02,
            },
            StoppingDetails::DiminishingReturns {
                detected_at_iteration: ReportedIteration::At(3),
                analytics_reason: "flat".into(),
            },
            StoppingDetails::DiminishingReturns {
                detected_at_iteration: ReportedIteration::Absent,
                analytics_reason: "flat".into(),
            },
            StoppingDetails::MaxIterations { iterations: 9, max_iterations: 9 },
            StoppingDetails::BudgetExhausted {
                budget: Budget::WallClockMs,
                limit: 10.0,
                observed: 12.5,
                records_without_value: 2,
            },
            StoppingDetails::QualityRegression {
                best_iteration: 2,
                best_quality_score: 70.0,
                tolerance: 5.0,
                patience: 2,
            },
            StoppingDetails::NoImprovement {
                best_iteration: 1,
                best_quality_score: 0.0,
                iterations_without_improvement: 5,
                patience: 5,
            },
        ]
    }

    /// What the generated builder makes of the detail slots (the same reading, in Rust):
    /// the core's own details object.
    #[test]
    fn detail_slots_rebuild_the_core_s_details() {
        for details in samples() {
            let (code, numbers) = detail_numbers(&details).expect("a listed stop");
            let stop = DETAILS.iter().find(|d| d.code == code).expect("a code in DETAILS");
            assert_eq!(stop.trigger, earlyexit::kit::loops::stop_trigger(&details));
            let written = details.to_value();
            let mut rebuilt = Vec::new();
            for (i, key) in stop.keys.iter().enumerate() {
                let value = match key.kind {
                    Kind::Number => Value::Number(numbers[i]),
                    Kind::Status if numbers[i] == STATUS_ABSENT => continue,
                    Kind::Status => Value::string(VerificationStatus::NAMES[numbers[i] as usize]),
                    Kind::Budget => Value::string(Budget::ALL[numbers[i] as usize].as_str()),
                    Kind::Bool => Value::Bool(numbers[i] != 0.0),
                    Kind::Steps => {
                        let StoppingDetails::QualityPlateau { improvements, .. } = &details else { unreachable!() };
                        assert_eq!(numbers[i], improvements.len() as f64);
                        written.get(key.name).cloned().expect("improvements")
                    }
                    Kind::ReportIteration | Kind::ReportReason => match written.get(key.name) {
                        Some(v) => v.clone(),
                        None => continue,
                    },
                };
                rebuilt.push((key.name.to_string(), value));
            }
            assert_eq!(Value::Object(rebuilt), written, "{details:?}");
        }
    }

    #[test]
    fn plateau_steps_are_written_in_the_listed_order() {
        let step = PlateauStep { iteration: 4, improvement: 0.01, delta: 0.5 };
        let details = StoppingDetails::QualityPlateau {
            consecutive_count: 2,
            improvements: vec![step],
            average_quality: 1.0,
            threshold: 1.0,
        };
        let Some(Value::Array(steps)) = details.to_value().get("improvements").cloned() else { panic!() };
        assert_eq!(keys_of(&steps[0]), PLATEAU_STEP.map(|k| k.name));
        assert_eq!(PLATEAU_STEP.len(), crate::slots::IMPROVEMENT_SLOTS);
    }

    #[test]
    fn codes_match_the_core_s_name_tables() {
        for (i, name) in VerificationStatus::NAMES.iter().enumerate() {
            assert_eq!(status_code(VerificationStatus::parse(name).unwrap()), i as f64);
        }
        for (i, budget) in Budget::ALL.iter().enumerate() {
            assert_eq!(budget_code(*budget), i as f64);
        }
    }

    fn decision(details: Option<StoppingDetails>, budgets: bool) -> StoppingDecision {
        StoppingDecision {
            stop: details.is_some(),
            reason: "r".into(),
            confidence: 1.0,
            trigger: details.as_ref().map_or(Trigger::None, earlyexit::kit::loops::stop_trigger),
            details,
            best: Some((1, 50.0)),
            budgets: if budgets {
                vec![BudgetStatus {
                    budget: Budget::Tokens,
                    limit: 1.0,
                    observed: 2.0,
                    records_without_value: 0,
                    exhausted: true,
                }]
            } else {
                Vec::new()
            },
            fired: None,
            interventions: Vec::new(),
            would_stop: None,
        }
    }

    #[test]
    fn decisions_budgets_records_summaries_and_snapshots_have_the_listed_keys() {
        let stop = samples().swap_remove(5);
        let full = decision(Some(stop.clone()), true).to_value();
        assert_keys(&DECISION, &full, &decision(None, false).to_value());
        let Some(Value::Array(budgets)) = full.get("budgets").cloned() else { panic!() };
        assert_eq!(keys_of(&budgets[0]), BUDGET_STATUS.map(|k| k.name));
        assert_eq!(BUDGET_STATUS.len(), crate::slots::BUDGET_STATUS_SLOTS);

        let observation = Observation {
            iteration: 1,
            quality_score: 50.0,
            confidence: 0.5,
            quality_delta: 0.0,
            verification_status: VerificationStatus::Failed,
        };
        let usage = ResourceUsage { tokens_used: Some(1.0), token_cost_usd: Some(0.1), execution_time_ms: Some(5.0) };
        let record = |usage: Option<ResourceUsage>| IterationRecord {
            observation,
            timestamp: "2026-01-01T00:00:00Z".into(),
            usage: usage.map(Box::new),
            behavior: None,
        };
        assert_keys(&RECORD, &record(Some(usage)).to_value(), &record(None).to_value());

        let last =
            FinalRecord { quality_score: 50.0, confidence: 0.5, verification_status: VerificationStatus::Failed };
        let summary = |details: Option<StoppingDetails>| StoppingSummary::Full {
            total_iterations: 1,
            decision: decision(details, false),
            last,
            config: EarlyStoppingConfig::default(),
        };
        assert_keys(&SUMMARY, &summary(Some(stop)).to_value(), &summary(None).to_value());

        let snapshot = earlyexit::EarlyStopping::fresh_snapshot(&EarlyStoppingConfig::default());
        // A loop made strict after a repeated record: its snapshot says where checking began.
        let mut later = earlyexit::EarlyStopping::new(EarlyStoppingConfig::default()).expect("an engine");
        let result = earlyexit::IterationResult::new(50.0, 0.5, VerificationStatus::Failed, 1.0);
        for i in [1, 1, 2] {
            if i == 2 {
                let on = Value::object(vec![("strictIterations", Value::Bool(true))]);
                later.configure_value(&on, earlyexit::Naming::Js).expect("strict");
            }
            later.record(i, result.clone(), String::new).expect("a record");
        }
        assert_keys(&SNAPSHOT, &later.to_snapshot(), &snapshot);

        use earlyexit::loops::DiminishingReturnsReport;
        let report = |iteration| DiminishingReturnsReport { detected: true, iteration, reason: "flat".into() };
        assert_keys(
            &REPORT,
            &report(ReportedIteration::At(2)).to_value(),
            &report(ReportedIteration::Absent).to_value(),
        );

        let analytics = earlyexit::IterationAnalytics::new(earlyexit::AnalyticsConfig::default()).expect("defaults");
        let selection = analytics.select_best_iteration_value();
        assert_keys(&SELECTION, &selection, &selection);
    }

    #[test]
    fn pyramid_results_have_the_listed_keys() {
        use earlyexit::pyramid::{Outcome, Speculation};
        let predicted =
            Speculation { predicted: Outcome::Pass, confidence: 0.9, actual: None, layer: None, name: None };
        let verified = Speculation { actual: Some(Outcome::Fail), ..predicted.clone() }.about(1, "e2e");
        assert_keys(&SPECULATION, &verified.to_value(), &predicted.to_value());
        let failing = earlyexit::pyramid::FailingLayer { layer: 1, name: "e2e".into() };
        assert_keys(&FAILING_LAYER, &failing.to_value(), &failing.to_value());
        let result = earlyexit::pyramid::TestPyramidResult {
            layers: Vec::new(),
            exited_early: false,
            exit_layer: -1,
            exit_reason: earlyexit::ExitReason::ForcedContinue,
            confidence: 1.0,
            speculations: vec![predicted.about(1, "e2e")],
            skipped_layers: 0,
            layers_executed: Vec::new(),
            verified_layers: 0,
            mispredictions: 0,
            compute_saved_ms: None,
            verdict: earlyexit::pyramid::Verdict::Passed,
            failing_layers: vec![failing],
            layers_before_exit: Vec::new(),
            layers_verified: Vec::new(),
            layers_not_run: Vec::new(),
            note: Some(earlyexit::pyramid::NOTE_NOTHING_SAVED),
            policy: None,
            shadow: None,
        };
        let value = result.to_value(earlyexit::Naming::Js);
        let bare =
            earlyexit::pyramid::TestPyramidResult { note: None, ..result.clone() }.to_value(earlyexit::Naming::Js);
        assert_keys(&PYRAMID_RESULT, &value, &bare);
        // calibratePyramidPolicy's arguments: the core reads the listed keys (a bad value is
        // named by its key).
        let runs = Value::Array(Vec::new());
        for (i, name) in CALIBRATE_ARGUMENTS.map(|k| k.name).iter().enumerate() {
            let mut entries: Vec<(&str, Value)> =
                CALIBRATE_ARGUMENTS.iter().map(|k| (k.name, Value::Number(0.1))).collect();
            entries[i].1 = Value::string("x");
            let error =
                earlyexit::kit::pyramid::replay::calibrate_value(&runs, &Value::object(entries), earlyexit::Naming::Js)
                    .expect_err("a string risk or delta");
            assert_eq!(error.field(), *name);
        }
        // A layer spec: the core reads the listed keys.
        let [name, cost] = LAYER_SPEC.map(|k| k.name);
        let spec = Value::object(vec![(name, Value::string("unit")), (cost, Value::Number(1.0))]);
        let read = earlyexit::LayerSpec::from_value(&spec, earlyexit::Naming::Js, "layers[0]").expect("read");
        assert_eq!((read.name.as_str(), read.cost_ms), ("unit", Some(1.0)));
    }
}
