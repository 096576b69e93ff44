//! The seed's check methods for bindings that let users call or override them: the
//! decision hands each delegated check back at its place in the order and resumes after it
//! exactly where the undelegated decision would have gone on; the checks' whole answers
//! (including the ones that do not stop) are the seed's words; records written to the history
//! from outside are checked with their path.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit;
use earlyexit::loops::{
    BestIteration, DiminishingReturnsReport, LoopCounters, LoopTally, ReportedIteration, SeedCheck, Step, Trigger,
    Verdict,
};
use earlyexit::{EarlyStoppingConfig, ErrorCode, Observation, Value, VerificationStatus};

fn observation(iteration: u64, quality_score: f64, confidence: f64, passed: bool, quality_delta: f64) -> Observation {
    let verification_status = if passed { VerificationStatus::Passed } else { VerificationStatus::Failed };
    Observation { iteration, quality_score, confidence, quality_delta, verification_status }
}

fn counters(config: &EarlyStoppingConfig, history: &[Observation]) -> LoopCounters {
    let mut best = BestIteration::default();
    let mut tally = LoopTally::default();
    for o in history {
        best.observe(o, config.min_quality_threshold);
        tally.observe(o, None, config.regression_tolerance);
    }
    LoopCounters { recorded: history.len() as u64, best, tally }
}

type NoSource = fn() -> Result<DiminishingReturnsReport, ()>;

fn report(detected: bool) -> Result<DiminishingReturnsReport, ()> {
    Ok(DiminishingReturnsReport { detected, iteration: ReportedIteration::At(2), reason: "flat".into() })
}

/// Runs the decision with `mask` delegated, answering each delegated check "go on" (or what
/// `answer` says), the way a binding drives it; returns the checks handed back and the verdict.
fn drive(
    config: &EarlyStoppingConfig,
    history: &[Observation],
    detected: Option<bool>,
    mask: u8,
    answer: impl Fn(SeedCheck) -> bool,
) -> (Vec<SeedCheck>, Option<Verdict>) {
    let c = counters(config, history);
    let mut handed = Vec::new();
    let mut start = 0;
    loop {
        let source = detected.map(|d| move || report(d));
        match kit::loops::verdict_from(config, &c, history, source, mask, start).unwrap() {
            Step::Done(verdict) => return (handed, Some(verdict)),
            Step::Delegate { check, resume } => {
                handed.push(check);
                if answer(check) {
                    return (handed, None);
                }
                start = resume;
            }
        }
    }
}

fn histories() -> Vec<Vec<Observation>> {
    let flat = |n: u64| (1..=n).map(|i| observation(i, 75.0, 0.5, false, 0.0)).collect::<Vec<_>>();
    vec![
        vec![],
        vec![observation(1, 96.0, 0.97, true, 0.0)],
        vec![observation(1, 96.0, 0.97, false, 0.0)],
        flat(2),
        flat(3),
        flat(6),
        vec![
            observation(1, 50.0, 0.5, false, 0.0),
            observation(2, 70.0, 0.6, false, 20.0),
            observation(3, 90.0, 0.99, true, 20.0),
        ],
    ]
}

fn configs() -> Vec<EarlyStoppingConfig> {
    vec![
        EarlyStoppingConfig::default(),
        EarlyStoppingConfig { enable_plateau_detection: false, ..EarlyStoppingConfig::default() },
        EarlyStoppingConfig { enable_diminishing_returns: false, ..EarlyStoppingConfig::default() },
        EarlyStoppingConfig { max_iterations: Some(3), ..EarlyStoppingConfig::default() },
        EarlyStoppingConfig { min_iterations: Some(3), ..EarlyStoppingConfig::default() },
        EarlyStoppingConfig { no_improvement_patience: Some(2), ..EarlyStoppingConfig::default() },
        EarlyStoppingConfig::recommended(),
    ]
}

#[test]
fn a_delegated_check_that_goes_on_leaves_the_decision_as_it_was() {
    // Delegating a check and answering "go on" where the check itself would not stop gives
    // the undelegated verdict: the resume position continues the order exactly.
    for config in configs() {
        for history in histories() {
            for detected in [None, Some(false), Some(true)] {
                let c = counters(&config, &history);
                let source = detected.map(|d| move || report(d));
                let expected = kit::loops::verdict(&config, &c, history.as_slice(), source).unwrap();
                for mask in 0..8u8 {
                    // The answer an override that calls the seed's method would give.
                    let (handed, verdict) = drive(&config, &history, detected, mask, |check| match check {
                        SeedCheck::HighConfidence => {
                            kit::loops::high_confidence_answer(&config, history.last().unwrap()).stop
                        }
                        SeedCheck::QualityPlateau => {
                            kit::loops::plateau_answer(&config, history.as_slice(), history.len() as u64).stop
                        }
                        SeedCheck::DiminishingReturns => detected == Some(true),
                    });
                    let stopped_by_delegate = verdict.is_none();
                    if stopped_by_delegate {
                        // The override stopped exactly where the seed's check stops.
                        let Verdict::Stop(details) = &expected else {
                            panic!("{config:?} {history:?} mask {mask}: {expected:?}")
                        };
                        let trigger = kit::loops::stop_trigger(details);
                        let last = *handed.last().unwrap();
                        let want = match last {
                            SeedCheck::HighConfidence => Trigger::HighConfidence,
                            SeedCheck::QualityPlateau => Trigger::QualityPlateau,
                            SeedCheck::DiminishingReturns => Trigger::DiminishingReturns,
                        };
                        assert_eq!(trigger, want);
                    } else {
                        assert_eq!(verdict.unwrap(), expected, "{config:?} {history:?} mask {mask}");
                    }
                    for check in &handed {
                        assert_ne!(mask & check.bit(), 0, "only delegated checks are handed back");
                    }
                }
            }
        }
    }
}

#[test]
fn delegated_checks_come_back_in_the_seeds_order_and_only_when_the_seed_calls_them() {
    let config = EarlyStoppingConfig::default();
    let history = vec![observation(1, 60.0, 0.5, false, 0.0)];
    let (handed, _) = drive(&config, &history, Some(false), 7, |_| false);
    assert_eq!(handed, [SeedCheck::HighConfidence, SeedCheck::QualityPlateau, SeedCheck::DiminishingReturns]);
    // No source: the seed does not call checkDiminishingReturns.
    let (handed, _) = drive(&config, &history, None, 7, |_| false);
    assert_eq!(handed, [SeedCheck::HighConfidence, SeedCheck::QualityPlateau]);
    // Plateau detection off: nor checkQualityPlateau.
    let off = EarlyStoppingConfig { enable_plateau_detection: false, ..config.clone() };
    let (handed, _) = drive(&off, &history, Some(false), 7, |_| false);
    assert_eq!(handed, [SeedCheck::HighConfidence, SeedCheck::DiminishingReturns]);
    // An empty history, a hard limit or the warm-up decide before any check is called.
    assert_eq!(drive(&config, &[], Some(true), 7, |_| false).0, []);
    let capped = EarlyStoppingConfig { max_iterations: Some(1), ..config.clone() };
    let (handed, verdict) = drive(&capped, &history, Some(true), 7, |_| false);
    assert!(handed.is_empty());
    assert!(matches!(verdict, Some(Verdict::Stop(_))));
    let warm = EarlyStoppingConfig { min_iterations: Some(2), ..config };
    assert!(drive(&warm, &history, Some(true), 7, |_| false).0.is_empty());
}

#[test]
fn resuming_after_the_diminishing_returns_check_never_asks_the_source_again() {
    let config = EarlyStoppingConfig::default();
    let history = [observation(1, 60.0, 0.5, false, 0.0)];
    let c = counters(&config, &history);
    let asked = std::cell::Cell::new(0);
    let source = Some(|| {
        asked.set(asked.get() + 1);
        report(true)
    });
    let step = kit::loops::verdict_from(&config, &c, history.as_slice(), source, 4, 8).unwrap();
    assert_eq!(step, Step::Done(Verdict::Continue));
    assert_eq!(asked.get(), 0);
    let none: Option<NoSource> = None;
    let step = kit::loops::verdict_from(&config, &c, history.as_slice(), none, 4, 0).unwrap();
    assert_eq!(step, Step::Done(Verdict::Continue), "without a source nothing is delegated");
}

#[test]
fn the_check_methods_answer_in_the_seeds_words() {
    let config = EarlyStoppingConfig::default();
    let hc = |q, c, passed| kit::loops::high_confidence_answer(&config, &observation(1, q, c, passed, 0.0));
    let answer = hc(96.0, 0.97, true);
    assert!(answer.stop);
    assert_eq!(answer.reason, "High confidence (97.0%) AND verification passed");
    let answer = hc(96.0, 0.97, false);
    assert!(!answer.stop);
    assert_eq!(answer.reason, "High confidence but verification status: failed");
    assert_eq!(answer.confidence, 0.97 * 0.8);
    assert_eq!(answer.trigger, Trigger::None);
    let answer = hc(50.0, 0.97, true);
    assert_eq!(
        (answer.stop, answer.reason.as_str(), answer.confidence),
        (false, "High confidence threshold not met", 0.97)
    );

    let window = [observation(1, 75.0, 0.5, false, 0.0), observation(2, 75.0, 0.5, false, 0.0)];
    let answer = kit::loops::plateau_answer(&config, &window[..], 2);
    assert_eq!(
        (answer.stop, answer.reason.as_str(), answer.confidence),
        (false, "Insufficient iterations for plateau detection (2/3)", 0.5)
    );
    let three = [window[0], window[1], observation(3, 75.0, 0.5, false, 0.0)];
    let answer = kit::loops::plateau_answer(&config, &three[..], 3);
    assert!(answer.stop);
    assert_eq!(answer.reason, "Quality plateau detected: 3 consecutive iterations with <2% improvement");
    let rising = [window[0], window[1], observation(3, 90.0, 0.5, false, 15.0)];
    let answer = kit::loops::plateau_answer(&config, &rising[..], 3);
    assert_eq!(
        (answer.stop, answer.reason.as_str(), answer.confidence),
        (false, "Quality still improving above threshold", 0.7)
    );

    let answer = kit::loops::diminishing_returns_answer(None);
    assert_eq!(
        (answer.stop, answer.reason.as_str(), answer.confidence),
        (false, "Iteration analytics not available", 0.5)
    );
    let answer = kit::loops::diminishing_returns_answer(Some(&report(false).unwrap()));
    assert_eq!(
        (answer.stop, answer.reason.as_str(), answer.confidence),
        (false, "Diminishing returns not detected", 0.7)
    );
    let answer = kit::loops::diminishing_returns_answer(Some(&report(true).unwrap()));
    assert_eq!(
        (answer.stop, answer.reason.as_str(), answer.confidence),
        (true, "Diminishing returns detected: flat", 0.8)
    );
}

fn json(text: &str) -> Value {
    Value::parse_json(text, ErrorCode::InvalidResult, "test").unwrap()
}

const RECORD: &str =
    r#"{"iteration_number":1,"quality_score":75,"confidence":0.5,"verification_status":"failed","quality_delta":0}"#;

#[test]
fn records_written_to_the_history_are_checked_with_their_path() {
    let check = |records: &str, sums: [f64; 3]| {
        kit::loops::check_history(&json(records), |i| kit::loops::history_path(4 + i), sums)
    };
    assert!(check(&format!("[{RECORD}]"), [0.0; 3]).is_ok(), "the timestamp is optional");
    let cases = [
        (
            r#"[{"iteration_number":1,"quality_score":75,"confidence":1.5,"verification_status":"failed","quality_delta":0}]"#,
            "iterationHistory[4].confidence",
            ErrorCode::InvalidResult,
        ),
        (
            r#"[{"quality_score":75,"confidence":0.5,"verification_status":"failed","quality_delta":0}]"#,
            "iterationHistory[4].iteration_number",
            ErrorCode::InvalidResult,
        ),
        (
            r#"[{"iteration_number":1,"quality_score":75,"confidence":0.5,"verification_status":"failed","quality_delta":0,"note":1}]"#,
            "iterationHistory[4].note",
            ErrorCode::UnknownOption,
        ),
        ("[5]", "iterationHistory[4]", ErrorCode::InvalidResult),
        ("5", "iterationHistory", ErrorCode::InvalidResult),
    ];
    for (records, field, code) in cases {
        let error = check(records, [0.0; 3]).unwrap_err();
        assert_eq!((error.field(), error.error_code()), (field, code), "{records}: {}", error.message());
    }
    let tokens = r#"[{"iteration_number":1,"quality_score":75,"confidence":0.5,"verification_status":"failed","quality_delta":0,"tokens_used":1e308}]"#;
    let error = check(tokens, [f64::MAX, 0.0, 0.0]).unwrap_err();
    assert_eq!(error.field(), "iterationHistory[4].tokens_used", "{}", error.message());
    let error = kit::loops::check_history(&json("[{}]"), |_| "iteration".to_string(), [0.0; 3]).unwrap_err();
    assert_eq!(error.field(), "iteration.iteration_number");
}
