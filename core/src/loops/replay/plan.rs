//! Guardrails around a loop calibration: how many tasks a certificate needs before any run
//! is recorded ([`calibration_plan`]), and the notice a host prints when it loads an
//! artifact that certifies nothing ([`uncertified_notice`]).
//!
//! **The plan.** The calibration's test certifies a policy whose tasks were stopped
//! prematurely `k` times out of `n` when `P(Binomial(n, risk) <= k) <= delta` (see
//! [`calibrate`](super::calibrate)). The fewest tasks that can certify with `k` premature
//! stops is the smallest such `n`, found by the same test (so the plan and the certificate
//! never disagree); with `k = 0` it is `min_tasks`, which an artifact
//! records as `minimumToCertify`. A plan lists `k` = 0 to [`PLAN_PREMATURE_STOPS`].

use crate::artifact::{Artifact, ArtifactKind};
use crate::num::stats::binomial_cdf;
use crate::num::{to_js_string, uint_string};
use crate::value::{
    concat, Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectBuilder, ObjectReader, Result, Value,
};

const RISK: FieldName = FieldName::same("risk");
const DELTA: FieldName = FieldName::same("delta");
const MINIMUM_TO_CERTIFY: FieldName = FieldName::pair("minimumToCertify minimum_to_certify");
const TASKS_NEEDED: FieldName = FieldName::pair("tasksNeeded tasks_needed");
const PREMATURE_STOPS: FieldName = FieldName::pair("prematureStops premature_stops");
const TASKS: FieldName = FieldName::same("tasks");

/// The plan lists the tasks needed with 0 to this many premature stops.
pub const PLAN_PREMATURE_STOPS: u64 = 3;

/// The most tasks a plan or a certificate may need (2^53, the largest count every language
/// holds exactly): a risk so small that even zero premature stops need more is refused.
pub const MAX_TASKS_TO_CERTIFY: u64 = 1 << 53;

/// The default risk and delta of a calibration (and of a plan asked without them).
pub const DEFAULT_RISK: f64 = 0.025;
/// See [`DEFAULT_RISK`].
pub const DEFAULT_DELTA: f64 = 0.1;

/// The fewest tasks `n` for which `k` premature stops still certify `risk` at `delta`
/// (`P(Binomial(n, risk) <= k) <= delta`); `None` above [`MAX_TASKS_TO_CERTIFY`]. Expects
/// `0 < risk < 1` and `0 < delta < 1` ([`check_risk_delta`]). O(k log n).
pub fn tasks_to_certify(k: u64, risk: f64, delta: f64) -> Option<u64> {
    let certifies = |n: u64| binomial_cdf(k, n, risk) <= delta;
    // A first guess from the closed form of k = 0 ((1 - risk)^n <= delta), then doubling
    // until the test certifies; the answer lies between the last two guesses.
    let guess = (delta.ln() / (-risk).ln_1p()).ceil();
    let mut high = if guess.is_finite() && guess >= 1.0 && guess < MAX_TASKS_TO_CERTIFY as f64 {
        (guess as u64).max(k.saturating_add(1))
    } else {
        k.saturating_add(1)
    };
    let mut low = k; // never certifies: k >= n is a probability of 1
    while !certifies(high) {
        if high >= MAX_TASKS_TO_CERTIFY {
            return None;
        }
        low = high;
        high = high.saturating_mul(2).min(MAX_TASKS_TO_CERTIFY);
    }
    // The guess may overshoot: narrow from below too.
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if certifies(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

/// Checks a calibration's `risk` and `delta` (`invalid_config` naming the one at fault):
/// finite, strictly between 0 and 1, and a risk a certificate can reach within
/// [`MAX_TASKS_TO_CERTIFY`] tasks.
pub fn check_risk_delta(risk: f64, delta: f64) -> Result<()> {
    let open = |x: f64| x.is_finite() && x > 0.0 && x < 1.0;
    if !open(risk) {
        return Err(range("risk", "risk must be a finite number > 0 and < 1".to_string()));
    }
    if !open(delta) {
        return Err(range("delta", "delta must be a finite number > 0 and < 1".to_string()));
    }
    if tasks_to_certify(0, risk, delta).is_none() {
        return Err(range(
            "risk",
            concat(&[
                "risk ",
                &to_js_string(risk),
                " at delta ",
                &to_js_string(delta),
                " needs more than ",
                &uint_string(MAX_TASKS_TO_CERTIFY),
                " tasks to certify even with no premature stop: choose a larger risk",
            ]),
        ));
    }
    Ok(())
}

fn range(field: &str, message: String) -> Error {
    Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, field, message)
}

/// How many tasks a loop calibration needs to certify `risk` at `delta`.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationPlan {
    /// The premature-stop rate to certify.
    pub risk: f64,
    /// The probability that the certificate is wrong.
    pub delta: f64,
    /// `tasks[k]`: the fewest tasks that certify with `k` premature stops (k = 0..=3);
    /// `tasks[0]` is `min_tasks`, an artifact's `minimumToCertify`.
    pub tasks: [u64; PLAN_PREMATURE_STOPS as usize + 1],
}

/// The plan for `risk` and `delta` (see the module's doc): 91, 155, 212 and 266 tasks at
/// 0, 1, 2 and 3 premature stops for risk 0.025 at delta 0.1. `invalid_config` naming
/// `risk` or `delta` when out of range ([`check_risk_delta`]).
pub fn calibration_plan(risk: f64, delta: f64) -> Result<CalibrationPlan> {
    check_risk_delta(risk, delta)?;
    let mut tasks = [0u64; PLAN_PREMATURE_STOPS as usize + 1];
    for (k, slot) in tasks.iter_mut().enumerate() {
        // More premature stops need more tasks; past the limit a row holds the limit's
        // sentinel, which no count reaches (the first row is checked above).
        *slot = tasks_to_certify(k as u64, risk, delta).unwrap_or(u64::MAX);
    }
    Ok(CalibrationPlan { risk, delta, tasks })
}

impl CalibrationPlan {
    /// `{risk, delta, minimumToCertify, tasksNeeded: [{prematureStops, tasks}, ...]}`
    /// (snake_case keys with [`Naming::Snake`]); a row past [`MAX_TASKS_TO_CERTIFY`] has
    /// `tasks: null`.
    pub fn to_value(&self, naming: Naming) -> Value {
        let count = |n: u64| if n <= MAX_TASKS_TO_CERTIFY { Value::Number(n as f64) } else { Value::Null };
        let rows = self
            .tasks
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let mut b = ObjectBuilder::new();
                b.number(PREMATURE_STOPS.spelled(naming), k as f64).value(TASKS.spelled(naming), count(*n));
                b.build()
            })
            .collect();
        let mut b = ObjectBuilder::new();
        b.number(RISK.spelled(naming), self.risk)
            .number(DELTA.spelled(naming), self.delta)
            .value(MINIMUM_TO_CERTIFY.spelled(naming), count(self.tasks.first().copied().unwrap_or(u64::MAX)))
            .value(TASKS_NEEDED.spelled(naming), Value::Array(rows));
        b.build()
    }
}

/// The binding entry: the plan for `options` (`{risk?, delta?}`, defaults 0.025 and 0.1;
/// `null` for both defaults) as a value spelled by `naming`. Unknown keys and values that
/// are not numbers in range are `invalid_config` (or `unknown_option`) naming the field.
pub fn calibration_plan_value(options: &Value, naming: Naming) -> Result<Value> {
    let (risk, delta) = match options {
        Value::Null => (DEFAULT_RISK, DEFAULT_DELTA),
        _ => {
            let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
            reader.reject_unknown(&[RISK, DELTA])?;
            (
                reader.opt_number(RISK, f64::MIN, f64::MAX)?.unwrap_or(DEFAULT_RISK),
                reader.opt_number(DELTA, f64::MIN, f64::MAX)?.unwrap_or(DEFAULT_DELTA),
            )
        }
    };
    Ok(calibration_plan(risk, delta)?.to_value(naming))
}

/// The one-line notice a host prints (once) when it loads a loop calibration artifact that
/// certifies nothing (no hypothesis of its certificate rejected), else `None` (a certified
/// artifact, another kind, or a value that is no artifact: loading refuses those itself).
/// It names the artifact's status, its tasks against the fewest that certify, and what the
/// engine runs.
pub fn uncertified_notice(artifact: &Value) -> Option<String> {
    let document = crate::artifact::document(artifact).ok()?;
    let artifact = Artifact::from_value(document.as_ref()).ok()?;
    if artifact.kind != ArtifactKind::Loop || artifact.certificate.hypotheses.iter().any(|h| h.rejected) {
        return None;
    }
    let sizes = &artifact.certificate.sample_sizes;
    let size = |name: &str| sizes.iter().find(|(n, _)| n == name).map(|(_, v)| uint_string(*v));
    let status = artifact.body.get("status").and_then(Value::as_str).unwrap_or("not_certified");
    let tasks = match (size("effectiveSampleSize"), size("minimumToCertify")) {
        (Some(n), Some(min)) => concat(&["; ", &n, " tasks, ", &min, " needed with no premature stop"]),
        _ => String::new(),
    };
    Some(concat(&[
        "earlyexit: loading an uncertified loop calibration (",
        status,
        tasks.as_str(),
        "): its premature-stop rate is not bounded by risk ",
        &to_js_string(artifact.risk),
        " at delta ",
        &to_js_string(artifact.delta),
        "; the engine runs the path's most conservative policy; calibrate on more tasks (the calibration plan \
         says how many)",
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_at_the_default_risk_starts_at_91_tasks() {
        let plan = calibration_plan(0.025, 0.1).unwrap();
        assert_eq!(plan.tasks, [91, 155, 212, 266]);
        assert_eq!(plan.tasks[0], crate::kit::loops::replay::min_tasks(0.025, 0.1));
        for (k, n) in plan.tasks.iter().enumerate() {
            let k = k as u64;
            assert!(binomial_cdf(k, *n, 0.025) <= 0.1, "{k} at {n}");
            assert!(binomial_cdf(k, n - 1, 0.025) > 0.1, "{k} at {}", n - 1);
        }
        assert!(plan.tasks.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn risks_and_deltas_out_of_range_are_refused_naming_them() {
        for (risk, delta, field) in [
            (0.0, 0.1, "risk"),
            (1.0, 0.1, "risk"),
            (f64::NAN, 0.1, "risk"),
            (-0.1, 0.1, "risk"),
            (0.1, 0.0, "delta"),
            (0.1, 1.0, "delta"),
            (0.1, f64::INFINITY, "delta"),
            // So small that no count a language holds exactly certifies it.
            (1e-17, 0.1, "risk"),
            (1e-300, 0.5, "risk"),
        ] {
            let e = calibration_plan(risk, delta).unwrap_err();
            assert_eq!((e.code(), e.field()), ("invalid_config", field), "{risk} {delta}");
        }
    }

    #[test]
    fn a_tiny_risk_that_still_fits_is_planned() {
        let plan = calibration_plan(1e-12, 0.1).unwrap();
        assert!(plan.tasks[0] > 1_000_000_000_000 && plan.tasks[0] <= MAX_TASKS_TO_CERTIFY);
    }

    #[test]
    fn the_value_entry_reads_options_and_spells_keys_per_language() {
        let js = calibration_plan_value(&Value::Null, Naming::Js).unwrap();
        assert_eq!(js.get("minimumToCertify").and_then(Value::as_f64), Some(91.0));
        let snake = calibration_plan_value(&Value::Null, Naming::Snake).unwrap();
        assert!(snake.get("tasks_needed").is_some());
        let e = calibration_plan_value(&Value::object(vec![("risk", Value::string("x"))]), Naming::Js).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "risk"));
        let e = calibration_plan_value(&Value::object(vec![("steps", Value::Number(3.0))]), Naming::Js).unwrap_err();
        assert_eq!(e.code(), "unknown_option");
    }

    /// The calibration's own check (a risk so small that 1 - risk rounds to 1 made
    /// `min_tasks` count up without end: an overflow, or a hang in a release build).
    #[test]
    fn a_calibration_at_a_risk_no_count_certifies_is_refused_not_a_hang() {
        let e = super::super::LoopCalibrationRequest::new(1e-17, 0.1).validate().unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "risk"));
        assert_eq!(crate::kit::loops::replay::min_tasks(1e-17, 0.1), u64::MAX);
    }
}
