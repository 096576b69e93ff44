//! Learn-then-Test calibration of a loop policy on recorded runs of one task family: the
//! most aggressive policy on a path fixed in advance (the [`family`](super::family)'s, or
//! one the caller gives) whose premature-stop rate is at most `risk` with probability at
//! least `1 - delta`. Every candidate is a stop policy ([`LoopPolicy::stop_policy`]): a
//! config stands for its tree ([`StopCondition::from_config`](crate::loops::StopCondition::from_config)),
//! replayed by the engine's fixed order (the tree's compiled form, the faster path for the
//! family), and a composed candidate is its own tree, replayed by it.
//!
//! **Risk.** A run is stopped prematurely when no iteration up to the stop was good and a
//! later one was (the replay's `premature`); good = the recorded ground truth `good`, else a
//! passed verification (the proxy for runs without it). The risk is the probability that a
//! new task of the family is stopped prematurely. Runs are grouped into tasks by `dataset`
//! and `id` (runs repeating a task are not independent): a task counts as stopped
//! prematurely when any of its runs was, and the denominator is the number of tasks, the
//! effective sample size. Without repeated ids, tasks are runs.
//!
//! **Test.** For each policy on the path, most conservative first, H0 "risk > `risk`" is
//! rejected when the binomial tail `P(Binomial(n, risk) <= k) <= delta` (n tasks, k of them
//! stopped prematurely). Testing stops at the first policy not rejected; the chosen policy
//! is the last rejected one (fixed-sequence testing controls the family-wise error at
//! `delta`, so the chosen policy's risk is at most `risk` with probability >= `1 - delta`
//! over the draw of the calibration tasks). Zero failures among n tasks certify only when
//! `(1 - risk)^n <= delta`, so fewer tasks than [`min_tasks`] certify nothing: the answer
//! then says so and carries the most conservative policy, uncertified.
//!
//! **Speed.** Every candidate replays every run through the replay's hot path
//! ([`kernel::play`]); the per-run facts that do not depend on the policy (first good
//! iteration, best quality, task) are computed once. [`LoopCalibrationPlan::evaluate`] is a
//! pure function of the candidate's index, so a host may evaluate candidates on several
//! threads and hand the figures to [`LoopCalibrationPlan::finish`] (the core stays
//! single-threaded; the answer does not depend on how the work was split).

use crate::loops::replay::family::{family_path, DEFAULT_PATH_STEPS, MAX_PATH_STEPS};
use crate::loops::replay::kernel;
use crate::loops::replay::policy::LoopPolicy;
use crate::loops::replay::runs::{ReplayIteration, ReplayRun};
use crate::num::stats::{binomial_cdf, wilson_interval};
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const RISK: FieldName = FieldName::same("risk");
const DELTA: FieldName = FieldName::same("delta");
const STEPS: FieldName = FieldName::same("steps");
const CANDIDATES: FieldName = FieldName::same("candidates");
const VALID_DAYS: FieldName = FieldName::same("validDays");

/// How long a calibration's artifact is trusted when the request does not say: 90 days.
pub const DEFAULT_VALID_DAYS: u64 = 90;

/// What a calibration was asked: the risk, the confidence and the path.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopCalibrationRequest {
    /// The premature-stop rate to certify (0 < risk < 1).
    pub risk: f64,
    /// The probability the certificate may be wrong (0 < delta < 1).
    pub delta: f64,
    /// The path, most conservative first, each with its aggressiveness (0..=1).
    pub path: Vec<(f64, LoopPolicy)>,
    /// Whether the path is the built-in family's.
    pub family: bool,
    /// How many days the artifact is trusted (>= 1).
    pub valid_days: u64,
}

impl LoopCalibrationRequest {
    /// The built-in family's path at [`DEFAULT_PATH_STEPS`] points.
    pub fn new(risk: f64, delta: f64) -> Self {
        LoopCalibrationRequest {
            risk,
            delta,
            path: family_path(DEFAULT_PATH_STEPS),
            family: true,
            valid_days: DEFAULT_VALID_DAYS,
        }
    }

    /// Reads `{risk?, delta?, steps?, candidates?, validDays?}` (defaults 0.025, 0.1, the
    /// family's path at 100 points, 90 days); `candidates` is a path of policies, most
    /// conservative first.
    pub fn from_options(options: &Value, naming: Naming) -> Result<Self> {
        if matches!(options, Value::Null) {
            return Ok(Self::new(0.025, 0.1));
        }
        let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
        reader.reject_unknown(&[RISK, DELTA, STEPS, CANDIDATES, VALID_DAYS])?;
        let risk = reader.opt_number(RISK, 0.0, 1.0)?.unwrap_or(0.025);
        let delta = reader.opt_number(DELTA, 0.0, 1.0)?.unwrap_or(0.1);
        let steps = match reader.get(STEPS) {
            None | Some(Value::Null) => None,
            Some(_) => Some(reader.integer(STEPS, 1, MAX_PATH_STEPS as u64)? as usize),
        };
        let mut request = Self::new(risk, delta);
        if reader.get(VALID_DAYS).is_some() {
            request.valid_days = reader.integer(VALID_DAYS, 1, 36_500)?;
        }
        match reader.get(CANDIDATES) {
            None | Some(Value::Null) => {
                if let Some(steps) = steps {
                    request.path = family_path(steps);
                }
            }
            Some(Value::Array(items)) => {
                if steps.is_some() {
                    return Err(range("steps", "steps applies to the built-in family only, not with candidates"));
                }
                let mut path = Vec::with_capacity(items.len());
                let last = items.len().saturating_sub(1).max(1) as f64;
                for (i, item) in items.iter().enumerate() {
                    let at = value::index_path("candidates", i);
                    let policy = LoopPolicy::from_option(item, naming)
                        .map_err(|e| crate::loops::replay::policy::nested_at(e, ErrorCode::InvalidConfig, &at))?;
                    path.push((i as f64 / last, policy));
                }
                request.path = path;
                request.family = false;
            }
            Some(other) => {
                return Err(Error::new(
                    ErrorCode::InvalidConfig,
                    ErrorKind::Type,
                    "candidates",
                    value::concat(&["candidates must be an array of loop policies, got ", &other.describe()]),
                ))
            }
        }
        Ok(request)
    }

    /// Checks risk, delta and the path (`invalid_config` naming the field).
    pub fn validate(&self) -> Result<()> {
        super::plan::check_risk_delta(self.risk, self.delta)?;
        if self.path.is_empty() {
            return Err(range("candidates", "candidates must hold at least one loop policy (an empty family)"));
        }
        for (i, (_, policy)) in self.path.iter().enumerate() {
            policy.validate().map_err(|e| e.nested(ErrorCode::InvalidConfig, &value::index_path("candidates", i)))?;
        }
        Ok(())
    }
}

fn range(field: &str, message: &str) -> Error {
    Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, field, message)
}

/// The fewest tasks that can certify `risk` at `delta` (zero failures among n certify only
/// when `(1 - risk)^n <= delta`): 91 at risk 0.025 and delta 0.1.
pub fn min_tasks(risk: f64, delta: f64) -> u64 {
    // The same test as the certificate's (plan.rs); a risk too small to reach within 2^53
    // tasks is refused by `validate` before a calibration asks.
    super::plan::tasks_to_certify(0, risk, delta).unwrap_or(u64::MAX)
}

/// One candidate's figures on the calibration runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CandidateFigures {
    /// Iterations the policy ran over all runs.
    pub iterations_used: u64,
    /// Sum of the returned quality, in run order.
    pub returned_quality_sum: f64,
    /// Runs stopped prematurely.
    pub premature_runs: u64,
    /// Tasks with a run stopped prematurely (the certificate's k).
    pub premature_tasks: u64,
    /// Runs whose returned iteration is good.
    pub returned_good: u64,
    /// Decisions made (iterations run; what a throughput figure counts).
    pub decisions: u64,
}

/// A run's facts that do not depend on the policy.
#[derive(Clone, Debug)]
struct RunFacts {
    first_good: Option<usize>,
    task: usize,
}

/// The calibration's runs, prepared once, and its request: candidates are evaluated one by
/// one ([`LoopCalibrationPlan::evaluate`], pure), then [`LoopCalibrationPlan::finish`]ed.
#[derive(Clone, Debug)]
pub struct LoopCalibrationPlan {
    request: LoopCalibrationRequest,
    runs: Vec<ReplayRun>,
    facts: Vec<RunFacts>,
    tasks: usize,
    iterations_available: u64,
    best_quality_sum: f64,
    reachable_good: u64,
    with_ground_truth: u64,
    warnings: Vec<String>,
}

impl LoopCalibrationPlan {
    /// Checks the request and the runs (`invalid_replay` naming `runs[i]...`), and computes
    /// each run's facts. Runs none of which ever reach a good iteration are refused: no
    /// premature stop could be observed on them.
    pub fn new(runs: Vec<ReplayRun>, request: LoopCalibrationRequest) -> Result<Self> {
        request.validate()?;
        for (i, run) in runs.iter().enumerate() {
            run.validate(&value::index_path("runs", i))?;
        }
        if runs.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidReplay,
                ErrorKind::Range,
                "runs",
                "runs must hold at least one recorded run to calibrate on",
            ));
        }
        let mut keys: Vec<(&str, &str)> = Vec::with_capacity(runs.len());
        let mut facts = Vec::with_capacity(runs.len());
        let (mut iterations_available, mut best_quality_sum, mut reachable_good, mut with_ground_truth) =
            (0u64, 0.0, 0u64, 0u64);
        for run in &runs {
            let key = (run.dataset.as_deref().unwrap_or(""), run.id.as_str());
            // Tasks in order of first appearance (a linear scan per new key would be
            // quadratic: sort an index instead once all keys are known).
            keys.push(key);
            let first_good = run.iterations.iter().position(ReplayIteration::is_good);
            reachable_good += u64::from(first_good.is_some());
            with_ground_truth += u64::from(run.iterations.iter().any(|it| it.good.is_some()));
            iterations_available += run.iterations.len() as u64;
            best_quality_sum +=
                run.iterations.iter().map(|it| it.observation.quality_score).fold(f64::NEG_INFINITY, f64::max);
            facts.push(RunFacts { first_good, task: 0 });
        }
        if reachable_good == 0 {
            return Err(Error::new(
                ErrorCode::InvalidReplay,
                ErrorKind::Range,
                "runs",
                "no run reaches a good iteration (recorded `good`, or a passed verification): a premature stop cannot be observed, so no risk can be certified",
            ));
        }
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by(|a, b| keys.get(*a).cmp(&keys.get(*b)).then(a.cmp(b)));
        let mut tasks = 0;
        let mut previous: Option<(&str, &str)> = None;
        for i in order {
            let key = keys.get(i).copied();
            if key != previous {
                tasks += 1;
                previous = key;
            }
            if let Some(f) = facts.get_mut(i) {
                f.task = tasks - 1;
            }
        }
        let mut warnings = Vec::new();
        if tasks < runs.len() {
            warnings.push(value::concat(&[
                "runs repeat task ids: ",
                &crate::num::uint_string(runs.len() as u64),
                " runs of ",
                &crate::num::uint_string(tasks as u64),
                " tasks; the certificate counts tasks (a task is stopped prematurely when any of its runs is)",
            ]));
        }
        if let Some(warning) = mixture_warning(&runs, &facts) {
            warnings.push(warning);
        }
        if with_ground_truth < runs.len() as u64 {
            warnings.push(value::concat(&[
                &crate::num::uint_string(runs.len() as u64 - with_ground_truth),
                " runs record no `good`: a passed verification stands in for it there",
            ]));
        }
        Ok(LoopCalibrationPlan {
            request,
            runs,
            facts,
            tasks,
            iterations_available,
            best_quality_sum,
            reachable_good,
            with_ground_truth,
            warnings,
        })
    }

    /// How many candidates the path holds.
    pub fn candidates(&self) -> usize {
        self.request.path.len()
    }

    /// The request.
    pub fn request(&self) -> &LoopCalibrationRequest {
        &self.request
    }

    /// Replays candidate `index` over every run (`None` past the path's end).
    pub fn evaluate(&self, index: usize) -> Option<CandidateFigures> {
        let (_, policy) = self.request.path.get(index)?;
        let mut f = CandidateFigures::default();
        let mut premature_task = vec![false; self.tasks];
        for (run, facts) in self.runs.iter().zip(&self.facts) {
            let played = kernel::play(run, policy);
            f.decisions += played.stop_index as u64 + 1;
            f.iterations_used += played.stop_index as u64 + 1;
            let returned = run.iterations.get((played.returned_iteration as usize).saturating_sub(1));
            f.returned_quality_sum += returned.map_or(0.0, |r| r.observation.quality_score);
            f.returned_good += u64::from(returned.is_some_and(ReplayIteration::is_good));
            if facts.first_good.is_some_and(|g| g > played.stop_index) {
                f.premature_runs += 1;
                if let Some(flag) = premature_task.get_mut(facts.task) {
                    *flag = true;
                }
            }
        }
        f.premature_tasks = premature_task.iter().filter(|p| **p).count() as u64;
        Some(f)
    }

    /// Every candidate, one after the other (what [`calibrate_loop_policy`] does).
    pub fn evaluate_all(&self) -> Vec<CandidateFigures> {
        (0..self.candidates()).filter_map(|i| self.evaluate(i)).collect()
    }

    /// The calibration from every candidate's figures, in path order (`figures.len()` must
    /// equal [`LoopCalibrationPlan::candidates`]).
    pub fn finish(&self, figures: Vec<CandidateFigures>) -> Result<LoopCalibration> {
        if figures.len() != self.candidates() {
            return Err(range("candidates", "the figures must cover every candidate of the path"));
        }
        let (risk, delta) = (self.request.risk, self.request.delta);
        let n = self.tasks as u64;
        let min_tasks = min_tasks(risk, delta);
        let testable = n >= min_tasks;
        let mut frontier = Vec::with_capacity(figures.len());
        let mut chosen = None;
        let mut testing = testable;
        for (i, (f, (a, policy))) in figures.into_iter().zip(&self.request.path).enumerate() {
            let p_value = binomial_cdf(f.premature_tasks, n, risk);
            let tested = testing;
            let rejected = tested && p_value <= delta;
            if tested && !rejected {
                testing = false;
            }
            if rejected {
                chosen = Some(i);
            }
            frontier.push(FrontierRow {
                index: i,
                aggressiveness: *a,
                policy: policy.clone(),
                figures: f,
                p_value,
                tested,
                rejected,
            });
        }
        let status = match (testable, chosen) {
            (false, _) => CalibrationStatus::TooFewRuns,
            (true, None) => CalibrationStatus::NotCertified,
            (true, Some(_)) => CalibrationStatus::Certified,
        };
        let index = chosen.unwrap_or(0);
        let policy = self.request.path.get(index).map(|p| p.1.clone()).unwrap_or_else(LoopPolicy::recommended);
        Ok(LoopCalibration {
            risk,
            delta,
            status,
            chosen: index,
            policy,
            runs: self.runs.len() as u64,
            tasks: n,
            min_tasks,
            iterations_available: self.iterations_available,
            best_quality_sum: self.best_quality_sum,
            reachable_good: self.reachable_good,
            runs_with_ground_truth: self.with_ground_truth,
            family: self.request.family,
            frontier,
            warnings: self.warnings.clone(),
        })
    }
}

/// Warns when the share of late successes (first good iteration after the first) differs
/// between datasets beyond sampling error (disjoint Wilson 95% intervals, 10+ runs each):
/// the runs look like more than one task family, and one certificate over them all may not
/// hold for either.
fn mixture_warning(runs: &[ReplayRun], facts: &[RunFacts]) -> Option<String> {
    let mut datasets: Vec<(&str, u64, u64)> = Vec::new();
    for (run, f) in runs.iter().zip(facts) {
        let name = run.dataset.as_deref()?;
        let late = u64::from(f.first_good.is_some_and(|g| g > 0));
        match datasets.iter_mut().find(|d| d.0 == name) {
            Some(d) => {
                d.1 += late;
                d.2 += 1;
            }
            None => datasets.push((name, late, 1)),
        }
    }
    let intervals: Vec<(&str, f64, (f64, f64))> = datasets
        .iter()
        .filter(|d| d.2 >= 10)
        .filter_map(|d| Some((d.0, d.1 as f64 / d.2 as f64, wilson_interval(d.1, d.2)?)))
        .collect();
    let low = intervals.iter().min_by(|a, b| a.2 .1.total_cmp(&b.2 .1))?;
    let high = intervals.iter().max_by(|a, b| a.2 .0.total_cmp(&b.2 .0))?;
    if high.2 .0 <= low.2 .1 {
        return None;
    }
    let percent = |x: f64| crate::num::to_fixed(x * 100.0, 1);
    Some(value::concat(&[
        "the runs look like more than one task family: late successes (first good iteration after the first) are ",
        &percent(low.1),
        "% of the runs in dataset '",
        low.0,
        "' and ",
        &percent(high.1),
        "% in '",
        high.0,
        "' (95% intervals disjoint); calibrate each family on its own runs",
    ]))
}

/// Where a calibration got to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CalibrationStatus {
    /// A policy's risk is certified.
    Certified,
    /// Enough tasks, but even the most conservative policy's risk could not be certified.
    NotCertified,
    /// Fewer tasks than [`min_tasks`]: nothing can be certified.
    TooFewRuns,
}

impl CalibrationStatus {
    /// `certified`, `not_certified`, `too_few_runs`.
    pub fn as_str(self) -> &'static str {
        match self {
            CalibrationStatus::Certified => "certified",
            CalibrationStatus::NotCertified => "not_certified",
            CalibrationStatus::TooFewRuns => "too_few_runs",
        }
    }
}

/// One candidate of the path with its figures and its test.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontierRow {
    /// Its position on the path (0 = most conservative).
    pub index: usize,
    /// Its aggressiveness (0..=1).
    pub aggressiveness: f64,
    /// The policy.
    pub policy: LoopPolicy,
    /// Its figures on the calibration runs.
    pub figures: CandidateFigures,
    /// `P(Binomial(tasks, risk) <= premature tasks)`.
    pub p_value: f64,
    /// Whether the fixed sequence reached it.
    pub tested: bool,
    /// Whether H0 (risk above the target) was rejected: its risk is certified.
    pub rejected: bool,
}

/// A calibration's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopCalibration {
    /// The risk asked.
    pub risk: f64,
    /// The delta asked.
    pub delta: f64,
    /// Certified, or why not.
    pub status: CalibrationStatus,
    /// The chosen candidate's index (0 when nothing is certified).
    pub chosen: usize,
    /// The chosen policy: the last certified on the path, else the most conservative.
    pub policy: LoopPolicy,
    /// Runs calibrated on.
    pub runs: u64,
    /// Distinct tasks (the effective sample size).
    pub tasks: u64,
    /// The fewest tasks that can certify at this risk and delta.
    pub min_tasks: u64,
    /// Iterations recorded over all runs.
    pub iterations_available: u64,
    /// Sum of each run's best quality (run order).
    pub best_quality_sum: f64,
    /// Runs with a good iteration.
    pub reachable_good: u64,
    /// Runs that record `good` at least once.
    pub runs_with_ground_truth: u64,
    /// Whether the path is the built-in family's.
    pub family: bool,
    /// Every candidate, in path order.
    pub frontier: Vec<FrontierRow>,
    /// What to be careful about (repeated ids, mixed families, proxies).
    pub warnings: Vec<String>,
}

impl LoopCalibration {
    /// Whether the chosen policy's risk is certified.
    pub fn certified(&self) -> bool {
        self.status == CalibrationStatus::Certified
    }

    /// The calibration's plain-words conclusion.
    pub fn message(&self) -> String {
        let u = |n: u64| crate::num::uint_string(n);
        let risk = crate::num::to_js_string(self.risk);
        let delta = crate::num::to_js_string(self.delta);
        match self.status {
            CalibrationStatus::Certified => value::concat(&[
                "certified: the premature-stop rate of the chosen policy is at most ",
                &risk,
                " with probability at least 1 - ",
                &delta,
                " (",
                &u(self.tasks),
                " tasks)",
            ]),
            CalibrationStatus::NotCertified => value::concat(&[
                "cannot certify: even the most conservative policy stops too many of the ",
                &u(self.tasks),
                " tasks prematurely to show a rate at most ",
                &risk,
                "; the most conservative policy is returned, uncertified",
            ]),
            CalibrationStatus::TooFewRuns => value::concat(&[
                "cannot certify: ",
                &u(self.tasks),
                " tasks, and a premature-stop rate at most ",
                &risk,
                " with probability 1 - ",
                &delta,
                " needs at least ",
                &u(self.min_tasks),
                " even with no premature stop; the most conservative policy is returned, uncertified",
            ]),
        }
    }

    /// One frontier row as the bindings return it (portable camelCase keys).
    fn row_value(&self, row: &FrontierRow) -> Value {
        let f = &row.figures;
        let runs = self.runs.max(1) as f64;
        let mut b = ObjectBuilder::new();
        b.number("index", row.index as f64)
            .number("aggressiveness", row.aggressiveness)
            .value("policy", row.policy.to_value(Naming::Js))
            .number("iterationsUsed", f.iterations_used as f64)
            .number("meanIterations", f.iterations_used as f64 / runs)
            .number(
                "shareOfAvailable",
                if self.iterations_available == 0 {
                    0.0
                } else {
                    f.iterations_used as f64 / self.iterations_available as f64
                },
            )
            .number("meanQualityGap", (self.best_quality_sum - f.returned_quality_sum) / runs)
            .number("prematureRuns", f.premature_runs as f64)
            .number("prematureRate", f.premature_runs as f64 / runs)
            .number("prematureTasks", f.premature_tasks as f64)
            .number("returnedGood", f.returned_good as f64)
            .number("pValue", row.p_value)
            .boolean("tested", row.tested)
            .boolean("rejected", row.rejected);
        b.build()
    }

    /// The certificate: the test, its sample, and each tested hypothesis.
    pub fn certificate_value(&self) -> Value {
        let tested: Vec<Value> = self
            .frontier
            .iter()
            .filter(|r| r.tested)
            .map(|r| {
                let mut b = ObjectBuilder::new();
                b.number("index", r.index as f64)
                    .number("prematureTasks", r.figures.premature_tasks as f64)
                    .number("tasks", self.tasks as f64)
                    .number("pValue", r.p_value)
                    .boolean("rejected", r.rejected);
                b.build()
            })
            .collect();
        let mut b = ObjectBuilder::new();
        b.string("method", "learn-then-test")
            .string("test", "fixed-sequence, binomial tail P(Binomial(n, risk) <= k) <= delta")
            .string("risk", "premature stop: no good iteration up to the stop, a good one later")
            .string("path", if self.family { "family" } else { "candidates" })
            .number("riskTarget", self.risk)
            .number("delta", self.delta)
            .string("status", self.status.as_str())
            .boolean("certified", self.certified())
            .number("chosenIndex", self.chosen as f64)
            .number("runs", self.runs as f64)
            .number("effectiveSampleSize", self.tasks as f64)
            .number("minSampleSize", self.min_tasks as f64)
            .number("runsWithGroundTruth", self.runs_with_ground_truth as f64)
            .number("reachableGood", self.reachable_good as f64)
            .value("hypotheses", Value::Array(tested));
        b.build()
    }

    /// The answer as the bindings return it: `{certified, status, message, policy, risk,
    /// delta, certificate, frontier, warnings}` (portable camelCase keys; the policy's config
    /// in JS spelling, which every binding reads).
    pub fn to_value(&self) -> Value {
        let frontier: Vec<Value> = self.frontier.iter().map(|r| self.row_value(r)).collect();
        let warnings: Vec<Value> = self.warnings.iter().map(|w| Value::string(w.as_str())).collect();
        let mut b = ObjectBuilder::new();
        b.boolean("certified", self.certified())
            .string("status", self.status.as_str())
            .string("message", &self.message())
            .value("policy", self.policy.to_value(Naming::Js))
            .number("risk", self.risk)
            .number("delta", self.delta)
            .value("certificate", self.certificate_value())
            .value("frontier", Value::Array(frontier))
            .value("warnings", Value::Array(warnings));
        b.build()
    }
}

/// Calibrates on `runs` (see the module doc), one candidate after the other.
pub fn calibrate_loop_policy(runs: &[ReplayRun], request: &LoopCalibrationRequest) -> Result<LoopCalibration> {
    let plan = LoopCalibrationPlan::new(runs.to_vec(), request.clone())?;
    let figures = plan.evaluate_all();
    plan.finish(figures)
}
