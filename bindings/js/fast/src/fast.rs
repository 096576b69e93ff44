//! The numeric fast path of `EarlyStopping` for the JS layer: no native object per engine
//! and no JSON per call (measured in `../shared/design/performance.md` and
//! `docs/internals/performance-notes.md`).
//!
//! Each JS engine owns its compact decision state (config, counters and window, see
//! `earlyexit::loops`) as a `Float64Array`. The most recently used engine's state
//! sits in one scratch buffer of f64 slots shared with the native side (a `Float64Array`
//! the napi addon reads through a pointer; a region of wasm memory), next to a few input
//! and output slots. [`fold`] validates a record given as numbers and folds it in;
//! [`decide`] runs the core's decision and writes its numbers out. Both answer a number
//! code; the JS layer builds the returned objects in one step and asks [`reason`] for a
//! reason text only on a cache miss. Every rule and every string is the core's: these
//! functions only move numbers between slots and the core's types. A record or report
//! that the fast check refuses goes to the JSON path (`lib.rs`), which produces the full
//! typed error.
//!
//! The slots, flags and codes are the contract tables of [`crate::slots`]; the JS layer
//! imports them from the module generated from those tables, and checks on load that the
//! native module was built from the same tables (its fingerprint).

use earlyexit::kit;
use earlyexit::loops::{
    self, Budget, DiminishingReturnsReport, EarlyStoppingConfig, LoopCounters, ObservationWindow, ObservationWindowMut,
    ReportedIteration, ResourceUsage, SeedCheck, Step, StoppingDetails, Verdict,
};
use earlyexit::{Observation, VerificationStatus};

use crate::keys::{budget_code, detail_numbers, status_code};

use crate::slots::*;
pub use crate::slots::{CONFIG_SLOTS, MAX_FAST_TIMESTAMP, STATE};

/// `fold`: the record was folded in.
pub const OK: f64 = FOLD_OK;
/// `fold` / `decide`: the fast check refused the input; ask the JSON path for the error.
pub const INVALID: f64 = FOLD_INVALID;

#[inline(always)]
fn at(slots: &[f64], i: usize) -> f64 {
    slots.get(i).copied().unwrap_or(f64::NAN)
}

fn put(slots: &mut [f64], i: usize, v: f64) {
    if let Some(slot) = slots.get_mut(i) {
        *slot = v;
    }
}

/// A status from its code (`keys::status_code`).
#[inline(always)]
fn status_of(code: f64) -> Option<VerificationStatus> {
    match code as i64 {
        0 if code == 0.0 => Some(VerificationStatus::Passed),
        1 if code == 1.0 => Some(VerificationStatus::Failed),
        2 if code == 2.0 => Some(VerificationStatus::Skipped),
        _ => None,
    }
}

/// The config as the slots the JS layer caches per distinct config (NaN = not set): the
/// core's encoding (`kit::loops::to_slots`, one slot per row of `loop_config_fields!`).
pub fn config_slots(c: &EarlyStoppingConfig) -> [f64; CONFIG_SLOTS] {
    kit::loops::to_slots(c)
}

fn config_of(s: &[f64]) -> EarlyStoppingConfig {
    kit::loops::from_slots(s.get(CONFIG..).unwrap_or(&[]))
}

fn pair_of(s: &[f64], i: usize) -> Option<(u64, f64)> {
    (at(s, i) != 0.0).then(|| (at(s, i + 1) as u64, at(s, i + 2)))
}

fn put_pair(s: &mut [f64], i: usize, pair: Option<(u64, f64)>) {
    let (present, iteration, quality) = pair.map_or((0.0, 0.0, 0.0), |(it, q)| (1.0, it as f64, q));
    put(s, i, present);
    put(s, i + 1, iteration);
    put(s, i + 2, quality);
}

fn counters_of(s: &[f64]) -> LoopCounters {
    let c = |offset: usize| COUNTERS + offset;
    let mut counters = LoopCounters { recorded: at(s, c(COUNTER_RECORDED)) as u64, ..LoopCounters::default() };
    counters.best.verified = pair_of(s, c(COUNTER_BEST_VERIFIED));
    counters.best.overall = pair_of(s, c(COUNTER_BEST_OVERALL));
    // The sums' slots are in the budgets' order, as the tally's arrays are.
    for i in 0..Budget::ALL.len() {
        if let (Some(sum), Some(without)) = (counters.tally.sums.get_mut(i), counters.tally.without.get_mut(i)) {
            *sum = at(s, c(COUNTER_SUMS) + i);
            *without = at(s, c(COUNTER_WITHOUT) + i) as u64;
        }
    }
    counters.tally.peak = pair_of(s, c(COUNTER_PEAK));
    counters.tally.regression_streak = at(s, c(COUNTER_REGRESSION_STREAK)) as u64;
    counters.tally.since_peak = at(s, c(COUNTER_SINCE_PEAK)) as u64;
    counters
}

fn put_counters(s: &mut [f64], counters: &LoopCounters) {
    let c = |offset: usize| COUNTERS + offset;
    put(s, c(COUNTER_RECORDED), counters.recorded as f64);
    put_pair(s, c(COUNTER_BEST_VERIFIED), counters.best.verified);
    put_pair(s, c(COUNTER_BEST_OVERALL), counters.best.overall);
    for i in 0..Budget::ALL.len() {
        put(s, c(COUNTER_SUMS) + i, counters.tally.sums.get(i).copied().unwrap_or(0.0));
        put(s, c(COUNTER_WITHOUT) + i, counters.tally.without.get(i).copied().unwrap_or(0) as f64);
    }
    put_pair(s, c(COUNTER_PEAK), counters.tally.peak);
    put(s, c(COUNTER_REGRESSION_STREAK), counters.tally.regression_streak as f64);
    put(s, c(COUNTER_SINCE_PEAK), counters.tally.since_peak as f64);
}

/// The window as slots: a length, then the observations oldest first.
struct SlotWindow<'a> {
    slots: &'a mut [f64],
}

impl ObservationWindow for SlotWindow<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        at(self.slots, WINDOW_LEN) as usize
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Option<Observation> {
        if i >= self.len() {
            return None;
        }
        let base = WINDOW + i * OBSERVATION_SLOTS;
        Some(Observation {
            iteration: at(self.slots, base) as u64,
            quality_score: at(self.slots, base + 1),
            confidence: at(self.slots, base + 2),
            quality_delta: at(self.slots, base + 3),
            verification_status: status_of(at(self.slots, base + 4))?,
        })
    }
}

impl ObservationWindowMut for SlotWindow<'_> {
    fn push(&mut self, o: Observation, capacity: usize) {
        let mut len = self.len();
        if len >= capacity.max(1) {
            // Oldest first: shift the rest down one observation (windows are short).
            let from = WINDOW + (len + 1 - capacity.max(1)) * OBSERVATION_SLOTS;
            let end = WINDOW + len * OBSERVATION_SLOTS;
            if end <= self.slots.len() && from <= end {
                self.slots.copy_within(from..end, WINDOW);
            }
            len = capacity.max(1) - 1;
        }
        let base = WINDOW + len * OBSERVATION_SLOTS;
        put(self.slots, base, o.iteration as f64);
        put(self.slots, base + 1, o.quality_score);
        put(self.slots, base + 2, o.confidence);
        put(self.slots, base + 3, o.quality_delta);
        put(self.slots, base + 4, status_code(o.verification_status));
        put(self.slots, WINDOW_LEN, (len + 1) as f64);
    }
}

/// How many slots the engine's state takes (from [`STATE`]) with `window_len` observations.
pub fn state_len(window_len: usize) -> usize {
    WINDOW - STATE + window_len * OBSERVATION_SLOTS
}

/// Validates the record in the input slots and folds it into the state slots.
/// Answers [`OK`], or [`INVALID`] (nothing changed) when the JSON path must produce the error.
pub fn fold(slots: &mut [f64]) -> f64 {
    let flags = at(slots, IN_FLAGS) as u32;
    let given = |bit: u32, i: usize| (flags & bit != 0).then(|| at(slots, i));
    let usage = ResourceUsage {
        tokens_used: given(FLAG_TOKENS, IN_TOKENS),
        token_cost_usd: given(FLAG_COST, IN_COST),
        execution_time_ms: given(FLAG_TIME, IN_TIME),
    };
    let iteration = at(slots, IN_ITERATION);
    let numbers = [at(slots, IN_QUALITY), at(slots, IN_CONFIDENCE), at(slots, IN_DELTA)];
    let Some(status) = status_of(at(slots, IN_STATUS)) else { return INVALID };
    if !kit::loops::record_is_valid(iteration, numbers, &usage, given(FLAG_ITERATION_NUMBER, IN_ITERATION_NUMBER)) {
        return INVALID;
    }
    if flags & FLAG_TIMESTAMP != 0 && !timestamp_in_slots_is_valid(slots) {
        return INVALID;
    }
    // A window longer than the buffer can hold is refused here; the JS layer grows the
    // buffer before the call, so this only guards against a JS layer bug.
    if WINDOW + (at(slots, WINDOW_LEN) as usize + 1) * OBSERVATION_SLOTS > slots.len() {
        return INVALID;
    }
    let config = config_of(slots);
    // `strictIterations`: a number that does not follow the last one is a re-record or an
    // error, which the JSON path tells apart (it compares the whole last record).
    let last = SlotWindow { slots }.last().map(|o| o.iteration);
    if flags & FLAG_ACCEPTED == 0 && !kit::loops::iteration_follows(config.strict(), last, iteration as u64) {
        return INVALID;
    }
    let observation = Observation {
        iteration: iteration as u64,
        quality_score: numbers[0],
        confidence: numbers[1],
        quality_delta: numbers[2],
        verification_status: status,
    };
    let mut counters = counters_of(slots);
    // A total that would overflow is refused by the JSON path, with the core's error.
    let totals = [usage.tokens_used, usage.token_cost_usd, usage.execution_time_ms];
    for (sum, value) in counters.tally.sums.iter().zip(totals) {
        if value.is_some_and(|v| !(sum + v).is_finite()) {
            return INVALID;
        }
    }
    let usage = (flags & FLAG_USAGE != 0).then_some(&usage);
    kit::loops::fold(&config, &mut counters, &mut SlotWindow { slots }, observation, usage);
    put_counters(slots, &counters);
    // The decision is made right away, so the `shouldStop()` that usually follows needs no
    // native call of its own (the JS layer knows whether the outputs are still this engine's).
    decide_over(slots, &config, &counters);
    OK
}

/// Whether the timestamp given as bytes in the input slots is an RFC 3339 date-time.
fn timestamp_in_slots_is_valid(slots: &[f64]) -> bool {
    let len = at(slots, IN_TIMESTAMP_LEN) as usize;
    let Some(units) = slots.get(IN_TIMESTAMP..IN_TIMESTAMP + MAX_FAST_TIMESTAMP / 8) else { return false };
    if len > MAX_FAST_TIMESTAMP {
        return false;
    }
    // The slots' bytes as they are in memory (to_ne_bytes is a bit copy, NaN patterns
    // included), where the JS layer's byte view wrote them.
    let mut bytes = [0u8; MAX_FAST_TIMESTAMP];
    for (chunk, unit) in bytes.chunks_exact_mut(8).zip(units) {
        chunk.copy_from_slice(&unit.to_ne_bytes());
    }
    bytes.get(..len).is_some_and(earlyexit::time::is_rfc3339_bytes)
}

/// The decision over the state slots; writes its numbers to the output slots and answers
/// its code (also in `OUT_CODE`).
pub fn decide(slots: &mut [f64]) -> f64 {
    let config = config_of(slots);
    let counters = counters_of(slots);
    decide_over(slots, &config, &counters)
}

/// Why [`verdict_of`] has no verdict.
enum NoVerdict {
    NeedSource,
    InvalidReport,
    Delegate(SeedCheck, usize),
    /// The answer of one of the seed's check methods (`PLATEAU_ANSWER`).
    Answer(Box<loops::StoppingDecision>),
}

/// The core's verdict over the slots; the source's report, when one was asked, is in the
/// input slots.
fn verdict_of(slots: &mut [f64], config: &EarlyStoppingConfig, counters: &LoopCounters) -> Result<Verdict, NoVerdict> {
    let delegate = at(slots, IN_DELEGATE);
    if delegate == PLATEAU_ANSWER {
        return Err(NoVerdict::Answer(Box::new(kit::loops::plateau_answer(
            config,
            &SlotWindow { slots },
            counters.recorded,
        ))));
    }
    if delegate == HIGH_CONFIDENCE_ANSWER {
        let Some(verification_status) = status_of(at(slots, IN_STATUS)) else { return Err(NoVerdict::InvalidReport) };
        let record = Observation {
            iteration: 0, // not read by the rule, nor the delta below
            quality_score: at(slots, IN_QUALITY),
            confidence: at(slots, IN_CONFIDENCE),
            quality_delta: 0.0,
            verification_status,
        };
        return Err(NoVerdict::Answer(Box::new(kit::loops::high_confidence_answer(config, &record))));
    }
    let source_mode = at(slots, IN_SOURCE);
    let kind = at(slots, IN_REPORT_ITERATION_KIND);
    let report = (source_mode == SOURCE_REPORT).then(|| DiminishingReturnsReport {
        detected: at(slots, IN_DETECTED) != 0.0,
        iteration: if kind == REPORT_ITERATION_ABSENT {
            ReportedIteration::Absent
        } else if kind == REPORT_ITERATION_NULL {
            ReportedIteration::Null
        } else {
            ReportedIteration::At(at(slots, IN_REPORT_ITERATION) as u64)
        },
        reason: String::new(), // the JS layer holds the source's text
    });
    if source_mode == SOURCE_REPORT
        && kind == REPORT_ITERATION_NUMBER
        && !kit::loops::report_iteration_is_valid(at(slots, IN_REPORT_ITERATION))
    {
        return Err(NoVerdict::InvalidReport);
    }
    if delegate == DIMINISHING_RETURNS_ANSWER {
        return Err(NoVerdict::Answer(Box::new(kit::loops::diminishing_returns_answer(report.as_ref()))));
    }
    // Without a report, asking the source means answering NEED_SOURCE: the JS layer asks
    // it (the core decided that it must, exactly when the seed would) and calls again.
    let source = (source_mode != SOURCE_NONE).then_some(move || report.ok_or(NoVerdict::NeedSource));
    let resume_at = DELEGATE_RESUME as u32;
    let (mask, resume) = if delegate > DELEGATE_NONE {
        ((delegate as u32 % resume_at) as u8, (delegate as u32 / resume_at) as usize)
    } else {
        (0, 0)
    };
    match kit::loops::verdict_from(config, counters, &SlotWindow { slots }, source, mask, resume)? {
        Step::Done(verdict) => Ok(verdict),
        Step::Delegate { check, resume } => Err(NoVerdict::Delegate(check, resume)),
    }
}

fn decide_over(slots: &mut [f64], config: &EarlyStoppingConfig, counters: &LoopCounters) -> f64 {
    let verdict = match verdict_of(slots, config, counters) {
        Ok(verdict) => verdict,
        Err(NoVerdict::NeedSource) => return out_code(slots, CODE_NEED_SOURCE),
        Err(NoVerdict::InvalidReport) => return out_code(slots, CODE_INVALID_REPORT),
        Err(NoVerdict::Delegate(check, resume)) => {
            let index = match check {
                SeedCheck::HighConfidence => DELEGATED_HIGH_CONFIDENCE,
                SeedCheck::QualityPlateau => DELEGATED_QUALITY_PLATEAU,
                SeedCheck::DiminishingReturns => DELEGATED_DIMINISHING_RETURNS,
            };
            put(slots, OUT_DELEGATE_CHECK, index);
            put(slots, OUT_DELEGATE_RESUME, resume as f64);
            return out_code(slots, CODE_DELEGATE);
        }
        Err(NoVerdict::Answer(answer)) => match answer.details {
            Some(details) => Verdict::Stop(details),
            None => {
                put(slots, OUT_CONFIDENCE, answer.confidence);
                return out_code(slots, CODE_GO_ON);
            }
        },
    };
    put(slots, OUT_CONFIDENCE, kit::loops::verdict_confidence(&verdict));
    // (present, iteration, quality: OUT_BEST_PRESENT, OUT_BEST_ITERATION, OUT_BEST_QUALITY)
    put_pair(slots, OUT_BEST_PRESENT, counters.best.get());
    let budgets = counters.tally.budgets(config);
    put(slots, OUT_BUDGET_COUNT, budgets.len() as f64);
    for (i, status) in budgets.iter().enumerate() {
        let base = OUT_BUDGETS + i * BUDGET_STATUS_SLOTS;
        put(slots, base, budget_code(status.budget));
        put(slots, base + 1, status.limit);
        put(slots, base + 2, status.observed);
        put(slots, base + 3, status.records_without_value as f64);
        put(slots, base + 4, f64::from(u8::from(status.exhausted)));
    }
    let code = match &verdict {
        Verdict::NoIterations => CODE_NO_ITERATIONS,
        Verdict::Continue => CODE_CONTINUE,
        Verdict::WarmUp { recorded, min } => {
            put(slots, OUT_DETAIL, *recorded as f64);
            put(slots, OUT_DETAIL + 1, *min as f64);
            CODE_WARM_UP
        }
        // The details' numbers in the order of their keys (`keys::DETAILS`); a stop the
        // table does not know yet (the details are non-exhaustive) answers
        // CODE_UNKNOWN_STOP, and the JS layer throws rather than answer a made-up decision.
        Verdict::Stop(details) => match detail_numbers(details) {
            Some((code, numbers)) => {
                for (i, n) in numbers.into_iter().enumerate() {
                    put(slots, OUT_DETAIL + i, n);
                }
                if let StoppingDetails::QualityPlateau { improvements, .. } = details {
                    let start = STATE + state_len(at(slots, WINDOW_LEN) as usize);
                    put(slots, OUT_IMPROVEMENTS_AT, start as f64);
                    for (i, step) in improvements.iter().enumerate() {
                        let base = start + IMPROVEMENT_SLOTS * i;
                        put(slots, base, step.iteration as f64);
                        put(slots, base + 1, step.improvement);
                        put(slots, base + 2, step.delta);
                    }
                }
                code
            }
            None => CODE_UNKNOWN_STOP,
        },
    };
    out_code(slots, code)
}

fn out_code(slots: &mut [f64], code: f64) -> f64 {
    put(slots, OUT_CODE, code);
    code
}

/// The reason text of the decision [`decide`] just wrote (not for diminishing returns,
/// whose text is [`diminishing_returns_reason`] of the source's reason). The JS layer asks
/// only when its cache misses, so the verdict is simply made again over the same slots.
pub fn reason(slots: &mut [f64]) -> String {
    let config = config_of(slots);
    let counters = counters_of(slots);
    match verdict_of(slots, &config, &counters) {
        Ok(verdict) => kit::loops::verdict_reason(&config, &verdict),
        Err(NoVerdict::Answer(answer)) => answer.reason,
        Err(_) => String::new(),
    }
}

/// `'Diminishing returns detected: ' + reason`.
pub fn diminishing_returns_reason(analytics_reason: &str) -> String {
    kit::loops::diminishing_returns_reason(analytics_reason)
}

/// Whether a record's timestamp is an RFC 3339 date-time (the record check's rule).
pub fn is_timestamp(text: &str) -> bool {
    earlyexit::time::is_rfc3339(text)
}

/// Folds a whole state the slow way, for tests: the owning engine's window type.
#[cfg(test)]
fn reference_window(observations: &[Observation], capacity: usize) -> std::collections::VecDeque<Observation> {
    let mut window = std::collections::VecDeque::new();
    for o in observations {
        ObservationWindowMut::push(&mut window, *o, capacity);
    }
    window
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(slots: &mut [f64], iteration: f64, quality: f64, confidence: f64, status: f64, delta: f64) -> f64 {
        slots[IN_ITERATION] = iteration;
        slots[IN_QUALITY] = quality;
        slots[IN_CONFIDENCE] = confidence;
        slots[IN_STATUS] = status;
        slots[IN_DELTA] = delta;
        slots[IN_FLAGS] = 0.0;
        fold(slots)
    }

    #[test]
    fn folds_and_decides_like_the_owning_engine() {
        let mut slots = vec![0.0; 1024];
        let config = EarlyStoppingConfig::default();
        slots[CONFIG..CONFIG + CONFIG_SLOTS].copy_from_slice(&config_slots(&config));
        assert_eq!(decide(&mut slots), CODE_NO_ITERATIONS);
        assert_eq!(record(&mut slots, 1.0, 50.0, 0.5, 1.0, 0.0), OK);
        assert_eq!(record(&mut slots, 2.0, 80.0, 0.99, 1.0, 30.0), OK);
        assert_eq!(decide(&mut slots), CODE_CONTINUE);
        assert_eq!(record(&mut slots, 3.0, 80.5, 0.9, 1.0, 0.5), OK);
        assert_eq!(record(&mut slots, 4.0, 81.0, 0.9, 1.0, 0.5), OK);
        assert_eq!(at(&slots, WINDOW_LEN), 3.0);
        assert_eq!(decide(&mut slots), CODE_PLATEAU);
        assert_eq!(reason(&mut slots), "Quality plateau detected: 3 consecutive iterations with <2% improvement");
        let window = SlotWindow { slots: &mut slots };
        let observations: Vec<_> = (0..window.len()).filter_map(|i| window.get(i)).collect();
        assert_eq!(observations.iter().map(|o| o.iteration).collect::<Vec<_>>(), vec![2, 3, 4]);
        assert_eq!(reference_window(&observations, 3).len(), 3);
        // A bad record changes nothing.
        let bits = |s: &[f64]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let before = bits(&slots[STATE..]);
        assert_eq!(record(&mut slots, 5.0, f64::NAN, 0.9, 1.0, 0.0), INVALID);
        assert_eq!(record(&mut slots, 5.5, 50.0, 0.9, 1.0, 0.0), INVALID);
        assert_eq!(record(&mut slots, 5.0, 50.0, 0.9, 7.0, 0.0), INVALID);
        assert_eq!(bits(&slots[STATE..]), before);
        slots[IN_SOURCE] = 1.0;
        assert_eq!(record(&mut slots, 5.0, 99.0, 0.99, 0.0, 18.0), OK);
        assert_eq!(decide(&mut slots), CODE_HIGH_CONFIDENCE);
        assert_eq!(reason(&mut slots), "High confidence (99.0%) AND verification passed");
    }

    /// What the generated builders read (`keys::BUDGET_STATUS`, `keys::PLATEAU_STEP`, the
    /// best record's slots) is what the owning engine's decision holds.
    #[test]
    fn budgets_steps_and_best_are_in_the_slots_of_their_keys() {
        use crate::keys::{DetailKey, Kind, BUDGET_STATUS, PLATEAU_STEP};
        use earlyexit::Value;
        let read = |s: &[f64], keys: &[DetailKey], at: usize| {
            let entries = keys.iter().enumerate().map(|(i, key)| {
                let n = s[at + i];
                let value = match key.kind {
                    Kind::Number => Value::Number(n),
                    Kind::Bool => Value::Bool(n != 0.0),
                    Kind::Budget => Value::string(Budget::ALL[n as usize].as_str()),
                    other => panic!("{other:?} in a nested list"),
                };
                (key.name.to_string(), value)
            });
            Value::Object(entries.collect())
        };
        let config = EarlyStoppingConfig { max_total_tokens: Some(100.0), ..EarlyStoppingConfig::default() };
        let mut slots = vec![0.0; 1024];
        slots[CONFIG..CONFIG + CONFIG_SLOTS].copy_from_slice(&config_slots(&config));
        let mut engine = earlyexit::EarlyStopping::new(config).unwrap();
        for (i, quality) in [80.0, 80.5, 81.0].into_iter().enumerate() {
            slots[IN_ITERATION] = i as f64 + 1.0;
            slots[IN_QUALITY] = quality;
            slots[IN_CONFIDENCE] = 0.5;
            slots[IN_STATUS] = 0.0;
            slots[IN_DELTA] = 0.5;
            slots[IN_FLAGS] = f64::from(FLAG_TOKENS);
            slots[IN_TOKENS] = 10.0;
            assert_eq!(fold(&mut slots), OK);
            let mut result = earlyexit::loops::IterationResult::new(quality, 0.5, VerificationStatus::Passed, 0.5);
            result.usage.tokens_used = Some(10.0);
            engine.record(i as u64 + 1, result, || "2026-01-01T00:00:00.000Z".to_string()).unwrap();
        }
        assert_eq!(decide(&mut slots), CODE_PLATEAU);
        let decision = engine.should_stop().to_value();
        let budgets: Vec<Value> = (0..slots[OUT_BUDGET_COUNT] as usize)
            .map(|i| read(&slots, &BUDGET_STATUS, OUT_BUDGETS + BUDGET_STATUS_SLOTS * i))
            .collect();
        assert_eq!(Some(Value::Array(budgets)), decision.get("budgets").cloned());
        let at = slots[OUT_IMPROVEMENTS_AT] as usize;
        let steps: Vec<Value> = (0..slots[OUT_DETAIL + 1] as usize)
            .map(|i| read(&slots, &PLATEAU_STEP, at + IMPROVEMENT_SLOTS * i))
            .collect();
        let details = decision.get("details").cloned().unwrap_or(Value::Null);
        assert_eq!(Some(Value::Array(steps)), details.get("improvements").cloned());
        assert_eq!(slots[OUT_BEST_PRESENT], 1.0);
        assert_eq!(decision.get("best_iteration"), Some(&Value::Number(slots[OUT_BEST_ITERATION])));
        assert_eq!(decision.get("best_quality_score"), Some(&Value::Number(slots[OUT_BEST_QUALITY])));
    }

    #[test]
    fn timestamps_cross_as_the_slots_bytes() {
        let mut slots = vec![0.0; 1024];
        slots[CONFIG..CONFIG + CONFIG_SLOTS].copy_from_slice(&config_slots(&EarlyStoppingConfig::default()));
        let stamped = |slots: &mut [f64], iteration: f64, text: &[u8], len: usize| {
            let mut bytes = [0u8; MAX_FAST_TIMESTAMP];
            bytes[..text.len()].copy_from_slice(text);
            for (slot, chunk) in slots[IN_TIMESTAMP..].iter_mut().zip(bytes.chunks_exact(8)) {
                *slot = f64::from_ne_bytes(chunk.try_into().unwrap());
            }
            slots[IN_TIMESTAMP_LEN] = len as f64;
            slots[IN_ITERATION] = iteration;
            slots[IN_QUALITY] = 50.0;
            slots[IN_CONFIDENCE] = 0.5;
            slots[IN_STATUS] = 1.0;
            slots[IN_DELTA] = 0.0;
            slots[IN_FLAGS] = 16.0;
            fold(slots)
        };
        assert_eq!(stamped(&mut slots, 1.0, b"2026-01-01T00:00:00.000Z", 24), OK);
        assert_eq!(stamped(&mut slots, 2.0, b"2026-02-30T00:00:00Z", 20), INVALID);
        // Latin-1 bytes are never ASCII digits or separators; too long is the JS layer's
        // signal for a string that does not fit bytes.
        assert_eq!(stamped(&mut slots, 2.0, b"2026-01-01T00:00:00\xe9Z", 21), INVALID);
        assert_eq!(stamped(&mut slots, 2.0, b"2026-01-01T00:00:00Z", MAX_FAST_TIMESTAMP + 1), INVALID);
        assert_eq!(stamped(&mut slots, 2.0, b"2026-01-01T00:00:00Z", 20), OK);
        assert_eq!(at(&slots, COUNTERS), 2.0);
    }

    #[test]
    fn strict_iterations_send_a_number_that_does_not_follow_to_the_json_path() {
        let mut slots = vec![0.0; 1024];
        let config = EarlyStoppingConfig { strict_iterations: Some(true), ..EarlyStoppingConfig::default() };
        slots[CONFIG..CONFIG + CONFIG_SLOTS].copy_from_slice(&config_slots(&config));
        assert_eq!(config_of(&slots), config);
        assert_eq!(record(&mut slots, 5.0, 50.0, 0.5, 1.0, 0.0), OK);
        let before: Vec<u64> = slots[STATE..].iter().map(|v| v.to_bits()).collect();
        // The same number (a re-record or an error) and an earlier one: nothing folded.
        assert_eq!(record(&mut slots, 5.0, 50.0, 0.5, 1.0, 0.0), INVALID);
        assert_eq!(record(&mut slots, 4.0, 50.0, 0.5, 1.0, 0.0), INVALID);
        assert_eq!(slots[STATE..].iter().map(|v| v.to_bits()).collect::<Vec<_>>(), before);
        assert_eq!(record(&mut slots, 6.0, 50.0, 0.5, 1.0, 0.0), OK);
        // A record accepted before (folded again after configure or a restore) is not judged.
        slots[IN_ITERATION] = 2.0;
        slots[IN_FLAGS] = 32.0;
        assert_eq!(fold(&mut slots), OK);
        assert_eq!(at(&slots, COUNTERS), 3.0);
    }

    #[test]
    fn recommended_preset_gives_up_and_gates_the_plateau_like_the_owning_engine() {
        // A run stuck at 0: the plateau gate (plateauMinQuality 70) keeps the flat window
        // from counting, so the give-up rule (noImprovementPatience 5) stops it.
        let config = EarlyStoppingConfig::recommended();
        let mut slots = vec![0.0; 1024];
        slots[CONFIG..CONFIG + CONFIG_SLOTS].copy_from_slice(&config_slots(&config));
        let mut engine = earlyexit::EarlyStopping::new(config).unwrap();
        let mut codes = Vec::new();
        for i in 1u32..=6 {
            assert_eq!(record(&mut slots, f64::from(i), 0.0, 0.5, 1.0, 0.0), OK);
            codes.push(decide(&mut slots));
            let result = earlyexit::loops::IterationResult::new(0.0, 0.5, VerificationStatus::Failed, 0.0);
            engine.record(u64::from(i), result, || "2026-01-01T00:00:00.000Z".to_string()).unwrap();
        }
        assert_eq!(codes, [2.0, 2.0, 2.0, 2.0, 2.0, CODE_NO_IMPROVEMENT]);
        let decision = engine.should_stop();
        assert_eq!(decision.trigger, earlyexit::loops::Trigger::NoImprovement);
        assert_eq!(reason(&mut slots), decision.reason);
        assert_eq!(
            reason(&mut slots),
            "No improvement: 5 consecutive iterations without a new best (0 at iteration 1)"
        );
        assert_eq!(&slots[OUT_DETAIL..OUT_DETAIL + 4], &[1.0, 0.0, 5.0, 5.0]);
        // The same flat window at good quality is a plateau (the gate passes).
        let mut slots = vec![0.0; 1024];
        slots[CONFIG..CONFIG + CONFIG_SLOTS].copy_from_slice(&config_slots(&EarlyStoppingConfig::recommended()));
        for i in 1u32..=5 {
            assert_eq!(record(&mut slots, f64::from(i), 80.0 + 0.1 * f64::from(i), 0.5, 1.0, 0.1), OK);
        }
        assert_eq!(decide(&mut slots), CODE_PLATEAU);
    }
}
