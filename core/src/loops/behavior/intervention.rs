//! Interventions, exact to upstream's `intervention-system.mjs` for valid input: the level a
//! detection gets ([`determine_level`]), the warning and the strategy override written for
//! it, the prompt with a warning injected, and the [`Intervention`] itself (the time given
//! as a value: the core has no clock).

use crate::time;
use crate::value::{concat, Error, ErrorCode, ErrorKind, Naming, ObjectBuilder, Result, Value};

use super::detection::{Detection, DetectionType, Severity};

crate::value::named_enum! {
    /// How hard an intervention steps in, mildest first (upstream's `INTERVENTION_LEVELS`).
    pub enum InterventionLevel {
        /// Record only, no action.
        Log = "log",
        /// Inject a warning into the next prompt.
        Warn = "warn",
        /// Force a change of strategy.
        Redirect = "redirect",
        /// Halt for a human's approval.
        Pause = "pause",
        /// Cancel.
        Abort = "abort",
    }
}

/// upstream's `INTERVENTION_LEVELS`: each level under its constant's name.
pub const INTERVENTION_LEVELS: [(&str, InterventionLevel); 5] = [
    ("LOG", InterventionLevel::Log),
    ("WARN", InterventionLevel::Warn),
    ("REDIRECT", InterventionLevel::Redirect),
    ("PAUSE", InterventionLevel::Pause),
    ("ABORT", InterventionLevel::Abort),
];

/// upstream's `determineLevel`: critical pauses (aborts a resource burn or a regression),
/// high redirects a stuck or oscillating loop and warns otherwise, medium warns, low logs;
/// so does any other severity or none (upstream's default branch), and a type upstream does
/// not know takes the "otherwise" of its severity.
pub fn determine_level(detection: &Detection) -> InterventionLevel {
    let kind = detection.detection_type();
    match detection.severity_level() {
        Some(Severity::Critical) => match kind {
            Some(DetectionType::ResourceBurn | DetectionType::Regression) => InterventionLevel::Abort,
            _ => InterventionLevel::Pause,
        },
        Some(Severity::High) => match kind {
            Some(DetectionType::Stuck | DetectionType::Oscillation) => InterventionLevel::Redirect,
            _ => InterventionLevel::Warn,
        },
        Some(Severity::Medium) => InterventionLevel::Warn,
        Some(Severity::Low) | None => InterventionLevel::Log,
    }
}

/// `intervention.action` of a logged detection.
pub const LOGGED_ACTION: &str = "Logged detection for monitoring";

/// upstream's `buildWarning`: the message, the numbered recommendations, the type's guidance
/// (none for a type upstream does not know). The warning quotes the message, so a detection
/// without one is refused (upstream would write "undefined" into it): `invalid_detection`,
/// field `root.message`.
pub fn build_warning(detection: &Detection, root: &str) -> Result<String> {
    let Some(message) = detection.message.as_deref() else {
        let path = concat(&[root, ".message"]);
        let text = concat(&[&path, " must be a string (the warning quotes it), got nothing (missing)"]);
        return Err(Error::new(ErrorCode::InvalidDetection, ErrorKind::Type, path, text));
    };
    let mut warning = concat(&["⚠️ OVERSEER WARNING: ", message, "\n\n"]);
    if let Some(recommendations) = detection.recommendations.as_deref().filter(|r| !r.is_empty()) {
        warning.push_str("Recommended actions:\n");
        for (i, recommendation) in recommendations.iter().enumerate() {
            warning.push_str(&concat(&[&crate::num::uint_string(i as u64 + 1), ". ", recommendation, "\n"]));
        }
    }
    warning.push_str(match detection.detection_type() {
        Some(DetectionType::Stuck) => "\nYou are making the same error repeatedly. Stop and try a different approach.",
        Some(DetectionType::Oscillation) => {
            "\nYou are undoing and redoing changes. Pick one direction and commit to it."
        }
        Some(DetectionType::Deviation) => "\nYour recent work may have drifted from the original objective. Refocus.",
        Some(DetectionType::ResourceBurn) => {
            "\nYou are approaching your iteration budget. Focus on critical remaining work."
        }
        Some(DetectionType::Regression) => "\nTests or coverage are regressing. Fix the code, not the tests.",
        None => "",
    });
    Ok(warning)
}

/// A detection whose strategy override needs evidence it does not have: upstream reads
/// `evidence.repeatedError` (stuck) or `evidence.originalObjective` (deviation) and fails.
fn missing_evidence(root: &str, field: &str, expected: &str) -> Error {
    let path = if field.is_empty() { concat(&[root, ".evidence"]) } else { concat(&[root, ".evidence.", field]) };
    let message = concat(&[&path, " must be ", expected, ", got nothing (missing)"]);
    Error::new(ErrorCode::InvalidDetection, ErrorKind::Type, path, message)
}

/// upstream's `buildStrategyOverride` (the default override for a type upstream does not
/// know). A stuck or deviation detection needs its `evidence`
/// (upstream reads it and throws without it), and a stuck one that names its
/// `repeatedError` needs `occurrences` (upstream would print "undefined times"); errors
/// name `root.evidence...` (code `invalid_detection`).
pub fn build_strategy_override(detection: &Detection, root: &str) -> Result<String> {
    let evidence = || detection.evidence.as_ref().ok_or_else(|| missing_evidence(root, "", "an object"));
    let text = match detection.detection_type() {
        Some(DetectionType::Stuck) => {
            let evidence = evidence()?;
            let mut strategy = "OVERRIDE: Change approach immediately. The current method is not working. ".to_string();
            if let Some(error) = evidence.get("repeatedError").and_then(Value::as_str).filter(|e| !e.is_empty()) {
                let Some(occurrences) = evidence.get("occurrences").and_then(Value::as_f64) else {
                    return Err(missing_evidence(root, "occurrences", "a number"));
                };
                let times = crate::num::to_js_string(occurrences);
                strategy.push_str(&concat(&["You have hit \"", error, "\" ", &times, " times. "]));
            }
            strategy.push_str("Try a completely different solution strategy.");
            strategy
        }
        Some(DetectionType::Oscillation) => "OVERRIDE: Stop alternating between approaches. \
             Analyze which approach is better and commit to it. No more back-and-forth changes."
            .to_string(),
        Some(DetectionType::Deviation) => {
            let evidence = evidence()?;
            let mut strategy = "OVERRIDE: Return to original objective. ".to_string();
            if let Some(objective) = evidence.get("originalObjective").and_then(Value::as_str).filter(|o| !o.is_empty())
            {
                strategy.push_str(&concat(&["Original objective: \"", objective, "\". "]));
            }
            strategy.push_str("All work must align with this goal.");
            strategy
        }
        Some(DetectionType::ResourceBurn | DetectionType::Regression) | None => {
            "OVERRIDE: Reassess current approach and adjust strategy.".to_string()
        }
    };
    Ok(text)
}

/// upstream's `injectWarning(prompt, warning)`: the warning, a rule of 80 `=`, the task.
pub fn inject_warning(prompt: &str, warning: &str) -> String {
    concat(&[warning, "\n\n", &"=".repeat(80), "\n\nORIGINAL TASK:\n", prompt])
}

/// What an intervention does, by level, with the keys upstream adds for it.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// `action` (`LOGGED_ACTION` for the interventions made here).
    Log {
        /// `action`.
        action: String,
    },
    /// `warning` ([`build_warning`]).
    Warn {
        /// `warning`.
        warning: String,
    },
    /// `strategyOverride` ([`build_strategy_override`]).
    Redirect {
        /// `strategyOverride`.
        strategy_override: String,
    },
    /// `requiresApproval: true`; the host pauses.
    Pause {
        /// `requiresApproval`.
        requires_approval: bool,
    },
    /// `requiresApproval: true`, `abortReason` (the detection's message; absent without one).
    Abort {
        /// `requiresApproval`.
        requires_approval: bool,
        /// `abortReason`.
        abort_reason: Option<String>,
    },
}

impl Effect {
    /// upstream's `intervene(detection)`'s level and keys for `detection` (errors as
    /// [`build_strategy_override`]'s, named under `root`).
    pub fn of(detection: &Detection, root: &str) -> Result<Effect> {
        Ok(match determine_level(detection) {
            InterventionLevel::Log => Effect::Log { action: LOGGED_ACTION.to_string() },
            InterventionLevel::Warn => Effect::Warn { warning: build_warning(detection, root)? },
            InterventionLevel::Redirect => {
                Effect::Redirect { strategy_override: build_strategy_override(detection, root)? }
            }
            InterventionLevel::Pause => Effect::Pause { requires_approval: true },
            InterventionLevel::Abort => {
                Effect::Abort { requires_approval: true, abort_reason: detection.message.clone() }
            }
        })
    }

    /// The level this effect belongs to.
    pub fn level(&self) -> InterventionLevel {
        match self {
            Effect::Log { .. } => InterventionLevel::Log,
            Effect::Warn { .. } => InterventionLevel::Warn,
            Effect::Redirect { .. } => InterventionLevel::Redirect,
            Effect::Pause { .. } => InterventionLevel::Pause,
            Effect::Abort { .. } => InterventionLevel::Abort,
        }
    }

    /// Appends the effect's keys, upstream's spelling for `naming`.
    pub(crate) fn push_keys(&self, out: &mut ObjectBuilder, naming: Naming) {
        let snake = naming == Naming::Snake;
        let approval = if snake { "requires_approval" } else { "requiresApproval" };
        match self {
            Effect::Log { action } => out.string("action", action),
            Effect::Warn { warning } => out.string("warning", warning),
            Effect::Redirect { strategy_override } => {
                out.string(if snake { "strategy_override" } else { "strategyOverride" }, strategy_override)
            }
            Effect::Pause { requires_approval } => out.boolean(approval, *requires_approval),
            Effect::Abort { requires_approval, abort_reason } => {
                out.boolean(approval, *requires_approval);
                if let Some(reason) = abort_reason {
                    out.string(if snake { "abort_reason" } else { "abortReason" }, reason);
                }
                out
            }
        };
    }
}

/// One intervention (upstream's `Intervention`): `{level, reason, detection, timestamp}`
/// and the keys of its level.
#[derive(Clone, Debug, PartialEq)]
pub struct Intervention {
    /// `reason`: the detection's message (absent without one, as upstream's `undefined`).
    pub reason: Option<String>,
    /// `detection`: the detection intervened on.
    pub detection: Detection,
    /// `timestamp`: when (RFC 3339, the host's clock or a time given).
    pub timestamp: String,
    /// The level and its keys.
    pub effect: Effect,
}

/// A `timestamp` argument: RFC 3339 text (code `invalid_config`, field `field`).
pub fn check_timestamp(value: &str, field: &str) -> Result<()> {
    if time::is_rfc3339(value) {
        return Ok(());
    }
    let got = Value::String(value.to_string()).describe();
    let message = concat(&[field, " must be an RFC 3339 timestamp, got ", &got]);
    Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, field, message))
}

impl Intervention {
    /// upstream's `intervene(detection)` without its side effects (the host pauses on a
    /// pause, calls its callbacks and keeps the log): the level, the reason, the time
    /// (`timestamp`, RFC 3339) and the level's keys. Errors: a bad timestamp
    /// (`invalid_config`), a stuck detection redirected without its evidence
    /// (`invalid_detection`, named under `root`), a warning for a detection without a message
    /// (the same).
    pub fn new(detection: Detection, timestamp: &str, root: &str) -> Result<Intervention> {
        check_timestamp(timestamp, "timestamp")?;
        let effect = Effect::of(&detection, root)?;
        Ok(Intervention { reason: detection.message.clone(), detection, timestamp: timestamp.to_string(), effect })
    }

    /// The level.
    pub fn level(&self) -> InterventionLevel {
        self.effect.level()
    }

    /// upstream's object: `{level, reason, detection, timestamp, <the level's keys>}`;
    /// without `detection` when `with_detection` is false (the JS layer puts the caller's
    /// own object there).
    pub fn to_value(&self, naming: Naming, with_detection: bool) -> Value {
        let mut out = ObjectBuilder::new();
        out.string("level", self.level().as_str());
        if let Some(reason) = &self.reason {
            out.string("reason", reason);
        }
        if with_detection {
            out.value("detection", self.detection.to_value(naming));
        }
        out.string("timestamp", &self.timestamp);
        self.effect.push_keys(&mut out, naming);
        out.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detection(kind: DetectionType, severity: Severity) -> Detection {
        Detection {
            kind: kind.as_str().to_string(),
            severity: Some(severity.as_str().to_string()),
            message: Some("m".to_string()),
            evidence: Some(Value::object(vec![
                ("repeatedError", Value::string("E")),
                ("occurrences", Value::Number(3.0)),
            ])),
            recommendations: Some(vec!["a".to_string(), "b".to_string()]),
            others: Vec::new(),
        }
    }

    #[test]
    fn levels_follow_upstreams_table() {
        use DetectionType::*;
        use InterventionLevel::*;
        let expected = [
            (Stuck, [Log, Warn, Redirect, Pause]),
            (Oscillation, [Log, Warn, Redirect, Pause]),
            (Deviation, [Log, Warn, Warn, Pause]),
            (ResourceBurn, [Log, Warn, Warn, Abort]),
            (Regression, [Log, Warn, Warn, Abort]),
        ];
        for (kind, levels) in expected {
            for (severity, level) in Severity::ALL.into_iter().zip(levels) {
                assert_eq!(determine_level(&detection(kind, severity)), level, "{kind:?} {severity:?}");
            }
        }
        // Upstream's default branches: a type it does not know, a severity it does not know
        // or none.
        let other = |kind: &str, severity: Option<&str>| Detection {
            kind: kind.to_string(),
            severity: severity.map(str::to_string),
            ..detection(Stuck, Severity::Low)
        };
        assert_eq!(determine_level(&other("any", Some("critical"))), Pause);
        assert_eq!(determine_level(&other("test", Some("high"))), Warn);
        assert_eq!(determine_level(&other("info", Some("medium"))), Warn);
        assert_eq!(determine_level(&other("stuck", Some("severe"))), Log);
        assert_eq!(determine_level(&other("stuck", None)), Log);
    }

    #[test]
    fn texts_are_upstreams() {
        let stuck = detection(DetectionType::Stuck, Severity::High);
        assert_eq!(
            build_warning(&stuck, "detection").ok().as_deref(),
            Some("⚠️ OVERSEER WARNING: m\n\nRecommended actions:\n1. a\n2. b\n\nYou are making the same error repeatedly. Stop and try a different approach.")
        );
        assert_eq!(
            build_strategy_override(&stuck, "detection").ok().as_deref(),
            Some("OVERRIDE: Change approach immediately. The current method is not working. You have hit \"E\" 3 times. Try a completely different solution strategy.")
        );
        let bare = Detection { evidence: None, ..stuck.clone() };
        let error = build_strategy_override(&bare, "detection").err();
        assert_eq!(error.map(|e| e.field().to_string()).as_deref(), Some("detection.evidence"));
        let silent = Detection { message: None, ..stuck };
        let error = build_warning(&silent, "detection").err();
        assert_eq!(error.map(|e| e.field().to_string()).as_deref(), Some("detection.message"));
        assert!(inject_warning("task", "w").starts_with("w\n\n========"));
    }
}
