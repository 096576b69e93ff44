//! Loop replay and loop presets for the JS layer (`replayLoops`, `EarlyStopping.fromPreset`):
//! stateless ops answered by the core in one call, so JS replays a whole batch of runs per
//! crossing, never one iteration at a time.

#[cfg(feature = "replay")]
use earlyexit::kit;
use earlyexit::{EarlyStoppingConfig, ErrorCode, Naming, Value};

use super::Answer;
use crate::args;
use crate::op::{
    LOOP_CALIBRATE, LOOP_CALIBRATION_PLAN, LOOP_FROM_CALIBRATION, LOOP_POLICY_CHECK, LOOP_POLICY_OPEN,
    LOOP_POLICY_STEP, LOOP_PRESET, LOOP_REPLAY, LOOP_SHADOW_OPEN, LOOP_SHADOW_STEP,
};

/// The replay ops this module answers, beside `LOOP_PRESET` (which every build answers).
const REPLAY_OPS: [u32; 9] = [
    LOOP_REPLAY,
    LOOP_CALIBRATE,
    LOOP_CALIBRATION_PLAN,
    LOOP_FROM_CALIBRATION,
    LOOP_POLICY_CHECK,
    LOOP_POLICY_STEP,
    LOOP_POLICY_OPEN,
    LOOP_SHADOW_OPEN,
    LOOP_SHADOW_STEP,
];

/// Whether `op` is one of this module's.
pub fn handles(op: u32) -> bool {
    op == LOOP_PRESET || (cfg!(feature = "replay") && REPLAY_OPS.contains(&op))
}

/// The stateless entry of the wasm replay module: answers loop replay (`LOOP_REPLAY`),
/// pyramid replay and policy (`pyramid_replay_ops`), IterationAnalytics's occasional ops
/// (`analytics_text_ops`) and the behaviour detectors and interventions (`behavior_ops`): the ops `contract::OPS` routes to the replay module, and nothing else (any other op is an unknown op), so
/// the module links only the replay code paths and the engines they drive.
#[cfg(feature = "replay")]
pub fn exec_replay(op: u32, args: &str) -> String {
    super::finish(exec_replay_inner(op, args))
}

#[cfg(feature = "replay")]
fn exec_replay_inner(op: u32, text: &str) -> Answer {
    let args = super::args_of(op, text)?;
    match op {
        op if REPLAY_OPS.contains(&op) => exec(op, &args),
        op if super::pyramid_replay_ops::handles(op) => Ok(Some(super::pyramid_replay_ops::exec(op, &args)?)),
        op if super::analytics_text_ops::handles(op) => Ok(super::analytics_text_ops::exec(op, &args)?),
        op if super::behavior_ops::handles(op) => Ok(super::behavior_ops::exec(op, &args)?),
        op if super::artifact_ops::handles(op) => Ok(Some(super::artifact_ops::exec(op, &args)?)),
        op if super::refine_ops::handles(op) => Err(super::not_ready()), // ops of a `PolicyEngine`
        op if super::junit_ops::handles(op) => Ok(Some(super::junit_ops::exec(op, &args)?)),
        _ => Err(super::unknown_op(op)),
    }
}

/// Answers a replay or preset op.
#[cfg_attr(not(feature = "replay"), allow(unused_variables))]
pub(crate) fn exec(op: u32, args: &[Value]) -> Answer {
    #[cfg(feature = "replay")]
    if op == LOOP_REPLAY {
        let a = args::LOOP_REPLAY::read(args);
        return Ok(Some(kit::loops::replay::replay_value(a.runs, a.policy, Naming::Js)?));
    }
    #[cfg(feature = "replay")]
    if op == LOOP_CALIBRATE {
        let a = args::LOOP_CALIBRATE::read(args);
        let now = now_ms(a.now_ms)?;
        return Ok(Some(earlyexit_calibrate::calibrate_loops(a.runs, a.options, Naming::Js, now)?));
    }
    #[cfg(feature = "replay")]
    if op == LOOP_CALIBRATION_PLAN {
        return Ok(Some(kit::loops::replay::calibration_plan_value(
            args::LOOP_CALIBRATION_PLAN::read(args).options,
            Naming::Js,
        )?));
    }
    #[cfg(feature = "replay")]
    if op == LOOP_FROM_CALIBRATION {
        let a = args::LOOP_FROM_CALIBRATION::read(args);
        let mut engine = kit::loops::replay::engine_from_artifact_value(
            a.artifact,
            now_ms(a.now_ms)?,
            &earlyexit_digest::Sha256Hasher,
        )?;
        let notice = kit::loops::replay::uncertified_notice(a.artifact).map_or(Value::Null, Value::string);
        if let Value::Object(entries) = &mut engine {
            entries.push(("notice".into(), notice));
        }
        return Ok(Some(engine));
    }
    #[cfg(feature = "replay")]
    if op == LOOP_POLICY_CHECK {
        let a = args::LOOP_POLICY_CHECK::read(args);
        return Ok(Some(match a.snapshot_policy {
            Value::Null => earlyexit::kit::loops::policy::engine_policy_value(a.policy, Naming::Js)?,
            restored => earlyexit::kit::loops::policy::restored_policy_value(a.policy, restored, Naming::Js)?,
        }));
    }
    #[cfg(feature = "replay")]
    if matches!(op, LOOP_POLICY_STEP | LOOP_POLICY_OPEN | LOOP_SHADOW_OPEN | LOOP_SHADOW_STEP) {
        return Err(super::not_ready()); // ops of a `PolicyEngine`, not stateless
    }
    let a = args::LOOP_PRESET::read(args);
    let preset = EarlyStoppingConfig::preset_value(a.name, "name")?;
    Ok(Some(preset.merged(a.overrides, Naming::Js, "overrides", ErrorCode::InvalidConfig)?.to_value(Naming::Js)))
}

/// The native object behind an `EarlyStopping` under a stop policy (a class of its own, in
/// the replay module in wasm, where the policy code is): holds the core's
/// [`PolicyDecider`](earlyexit::loops::policy::PolicyDecider), filled by `LOOP_POLICY_OPEN`,
/// deciding by `LOOP_POLICY_STEP` over the new records only.
#[cfg(feature = "replay")]
#[derive(Default)]
pub struct PolicyEngine {
    decider: Option<earlyexit::loops::policy::PolicyDecider>,
    /// When the object is an `EarlyStopping`'s shadow (`LOOP_SHADOW_OPEN`).
    shadow: Option<Box<earlyexit::loops::shadow::LoopShadow>>,
    /// When the object is a `Loop` (the `REFINE_*` ops: `refine_ops`).
    refine: Option<super::refine_ops::RefineLoop>,
}

#[cfg(feature = "replay")]
impl PolicyEngine {
    /// An empty object; `LOOP_POLICY_OPEN` fills it.
    pub fn new() -> Self {
        PolicyEngine::default()
    }

    /// Answers an op on this object. A failed op leaves the object as it was.
    pub fn call(&mut self, op: u32, args: &str) -> String {
        super::finish(self.call_inner(op, args))
    }

    fn call_inner(&mut self, op: u32, text: &str) -> Answer {
        let args = super::args_of(op, text)?;
        match op {
            LOOP_POLICY_OPEN => {
                let a = args::LOOP_POLICY_OPEN::read(&args);
                let decider = earlyexit::loops::policy::PolicyDecider::from_values(a.policy, a.config)?;
                self.decider = Some(decider);
                Ok(None)
            }
            LOOP_POLICY_STEP => {
                let decider = self.decider.as_mut().ok_or_else(super::not_ready)?;
                let a = args::LOOP_POLICY_STEP::read(&args);
                let source = a.source_attached.as_bool() == Some(true);
                Ok(Some(decider.step_value(a.records, a.report, source)?))
            }
            LOOP_SHADOW_OPEN => {
                let a = args::LOOP_SHADOW_OPEN::read(&args);
                let restored = a.restored.as_bool() == Some(true);
                let now = now_ms(a.now_ms)?;
                let shadow = earlyexit::loops::shadow::host_shadow(
                    a.shadow,
                    restored,
                    a.policy,
                    a.config,
                    now,
                    &earlyexit_digest::Sha256Hasher,
                )?;
                let candidate = shadow.candidate().to_value();
                self.shadow = Some(Box::new(shadow));
                Ok(Some(candidate))
            }
            LOOP_SHADOW_STEP => {
                let shadow = self.shadow.as_mut().ok_or_else(super::not_ready)?;
                let a = args::LOOP_SHADOW_STEP::read(&args);
                Ok(Some(shadow.observe_values(a.records)?))
            }
            op if super::refine_ops::handles(op) => super::refine_ops::call(&mut self.refine, op, &args),
            op => Err(super::unknown_op(op)),
        }
    }
}

/// The host's clock as the JS layer sends it (`Date.now()`): a finite number of milliseconds.
#[cfg(feature = "replay")]
fn now_ms(value: &Value) -> Result<i64, earlyexit::Error> {
    match value {
        Value::Number(n) if n.is_finite() => Ok(*n as i64),
        other => Err(earlyexit::kit::host::type_error(
            ErrorCode::InvalidConfig,
            "nowMs",
            "a finite number of milliseconds",
            other,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "replay")]
    fn replay_and_presets_answer_in_one_call() {
        let runs = r#"[[{"id":"a","iterations":[{"quality_score":0,"confidence":0,"verification_status":"failed"}]}],"recommended"]"#;
        let answer = crate::exec(LOOP_REPLAY, runs);
        assert!(answer.contains(r#""trigger":"end_of_run""#), "{answer}");
        let bad = crate::exec(LOOP_REPLAY, r#"[[{"id":"a","iterations":[]}],null]"#);
        assert!(bad.starts_with(r#"!{"code":"invalid_replay","kind":"range","field":"runs[0].iterations""#), "{bad}");
        let preset = crate::exec(LOOP_PRESET, r#"["recommended",{"noImprovementPatience":3}]"#);
        assert!(preset.contains(r#""noImprovementPatience":3"#), "{preset}");
        let unknown = crate::exec(LOOP_PRESET, r#"["fast",null]"#);
        assert!(unknown.starts_with(r#"!{"code":"invalid_config","kind":"range","field":"name""#), "{unknown}");
    }

    /// A `PolicyEngine` holds the policy, the config and the state: each step takes only the
    /// new records; a bad record changes nothing; the stateless ops say it needs the object.
    #[test]
    #[cfg(feature = "replay")]
    fn a_policy_engine_keeps_its_state_between_steps() {
        let policy = crate::exec(LOOP_POLICY_CHECK, r#"[{"any":[{"condition":"max_iterations","limit":3}]},null]"#);
        let mut engine = PolicyEngine::new();
        let unopened = engine.call(LOOP_POLICY_STEP, "[[],null,false]");
        assert!(unopened.starts_with(r#"!{"code":"invalid_step","kind":"type","field":"this""#), "{unopened}");
        assert_eq!(engine.call(LOOP_POLICY_OPEN, &format!("[{policy},null]")), "");
        let record = r#"{"quality_score":50,"confidence":0.5,"verification_status":"failed","quality_delta":1}"#;
        let first = engine.call(LOOP_POLICY_STEP, &format!("[[{record},{record}],null,false]"));
        assert!(first.contains(r#""stop":false"#), "{first}");
        let bad = engine.call(LOOP_POLICY_STEP, &format!(r#"[[{record},{{"quality_score":"x"}}],null,false]"#));
        assert!(bad.starts_with(r#"!{"code":"invalid_result""#) && bad.contains("records[1]"), "{bad}");
        // The bad batch folded nothing: the third record is the one that reaches the limit.
        let third = engine.call(LOOP_POLICY_STEP, &format!("[[{record}],null,false]"));
        assert!(third.contains(r#""stop":true"#) && third.contains(r#""trigger":"max_iterations""#), "{third}");
        for op in [LOOP_POLICY_OPEN, LOOP_POLICY_STEP] {
            assert!(crate::exec(op, "[]").contains(r#""field":"this""#));
        }
    }

    /// A `PolicyEngine` holding an `EarlyStopping`'s shadow: the cap is checked against the
    /// enforced policy or config, each step takes the new records, `would_stop` is the first
    /// firing (kept after), a bad record changes nothing, and the snapshot's form reopens it.
    #[test]
    #[cfg(feature = "replay")]
    fn a_policy_engine_runs_a_shadow() {
        let shadow = r#"{"any":[{"condition":"max_iterations","limit":2}]}"#;
        let mut engine = PolicyEngine::new();
        let unopened = engine.call(LOOP_SHADOW_STEP, "[[]]");
        assert!(unopened.starts_with(r#"!{"code":"invalid_step","kind":"type","field":"this""#), "{unopened}");
        let uncapped = engine.call(LOOP_SHADOW_OPEN, &format!("[{shadow},false,null,null,0]"));
        assert!(uncapped.starts_with(r#"!{"code":"invalid_config","kind":"range","field":"shadow""#), "{uncapped}");
        let candidate = engine.call(LOOP_SHADOW_OPEN, &format!(r#"[{shadow},false,null,{{"maxIterations":4}},0]"#));
        assert!(candidate.contains(r#""name":"custom""#), "{candidate}");
        let record = |n: u32| {
            format!(
                r#"{{"iteration_number":{n},"quality_score":50,"confidence":0.5,"verification_status":"failed","quality_delta":1}}"#
            )
        };
        assert_eq!(engine.call(LOOP_SHADOW_STEP, &format!("[[{}]]", record(1))), "null");
        let bad = engine.call(LOOP_SHADOW_STEP, &format!(r#"[[{},{{"quality_score":"x"}}]]"#, record(2)));
        assert!(bad.starts_with(r#"!{"code":"invalid_result""#) && bad.contains("records[1]"), "{bad}");
        let fired = engine.call(LOOP_SHADOW_STEP, &format!("[[{}]]", record(2)));
        assert!(fired.contains(r#""iteration":2"#) && fired.contains(r#""trigger":"max_iterations""#), "{fired}");
        assert_eq!(engine.call(LOOP_SHADOW_STEP, &format!("[[{}]]", record(3))), fired, "kept after");
        let mut again = PolicyEngine::new();
        let reopened = again.call(LOOP_SHADOW_OPEN, &format!(r#"[{candidate},true,null,{{"maxIterations":4}},0]"#));
        assert_eq!(reopened, candidate);
        for op in [LOOP_SHADOW_OPEN, LOOP_SHADOW_STEP] {
            assert!(crate::exec(op, "[]").contains(r#""field":"this""#));
        }
    }

    /// The wasm replay module's entry answers the replay ops exactly as `exec` does, and
    /// every other op as unknown (the package routes only replay ops to it).
    #[test]
    #[cfg(feature = "replay")]
    fn exec_replay_answers_only_replay_ops() {
        let runs = r#"[[{"id":"a","iterations":[{"quality_score":0,"confidence":0,"verification_status":"failed"}]}],"recommended"]"#;
        assert_eq!(exec_replay(LOOP_REPLAY, runs), crate::exec(LOOP_REPLAY, runs));
        let pyramid = r#"[[{"id":"r","layers":[{"name":"unit","failed":false,"durationMs":5}]}],null]"#;
        let answer = exec_replay(crate::op::PYRAMID_REPLAY, pyramid);
        assert_eq!(answer, crate::exec(crate::op::PYRAMID_REPLAY, pyramid));
        assert!(!answer.starts_with('!'), "{answer}");
        for op in [crate::op::HELLO, crate::op::SIGNAL, LOOP_PRESET, 219, 999] {
            let answer = exec_replay(op, "[]");
            assert!(answer.starts_with(r#"!{"code":"invalid_step","kind":"range","field":"op""#), "{op}: {answer}");
        }
    }
}
