//! `earlyexit loop record|status|best|reset`: an `EarlyStopping` engine kept in a state file
//! (its snapshot JSON, the same document `toJSON()` / `to_json()` write).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::core_api::{self, EarlyStopping, EarlyStoppingConfig, ErrorCode, Value, NAMING};
use crate::output::{self, code, with_file, with_flag, Answer, Failure};
use crate::state;

#[derive(Subcommand, Debug)]
pub enum LoopCommand {
    /// Record one iteration, decide, save the state and print the decision (exit 0 go on, 10 stop).
    Record(Box<RecordArgs>),
    /// Print the loop's summary (generateSummary) without changing it (exit 0 go on, 10 stop).
    Status(StatusArgs),
    /// Print the best iteration so far and its record.
    Best(StateArg),
    /// Clear the history and the stopping state; the config stays.
    Reset(StateArg),
    /// End a shadow-mode run: print its receipt (where the shadow candidate would have
    /// stopped, and its label) and append it to a receipt log.
    Finish(crate::loop_finish::FinishArgs),
}

#[derive(Args, Debug)]
pub struct StateArg {
    /// The state file (the engine's snapshot JSON).
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The state file (the engine's snapshot JSON).
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// A stop policy (docs/loop-policies.md) to decide under: JSON text, or a file holding it
    /// (`-` = standard input). Only for a state file without one: a state file keeps the
    /// policy it was started with, and another one is an error.
    #[arg(long, value_name = "FILE|JSON")]
    policy: Option<String>,
}

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// A stop policy (docs/loop-policies.md) to decide under: JSON text, or a file holding it
    /// (`-` = standard input); the state file keeps it, so later calls need not give it again
    /// (another policy is an error). Or a loop calibration artifact (`earlyexit calibrate
    /// loops --out FILE`, kind loop, not expired) whose policy a new state file runs (the state
    /// file keeps its digest).
    /// store:NAME reads the artifact NAME of the store (--store).
    #[arg(long, value_name = "FILE|JSON|ARTIFACT|store:NAME")]
    policy: Option<String>,
    /// The store of --policy / --shadow store:NAME (sqlite:PATH or postgresql://...;
    /// default the EARLYEXIT_STORE environment variable, else sqlite:.earlyexit/store.db).
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The state file; created on first use from --preset / --config.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// A candidate policy to run in shadow beside the loop's (it decides, never stops the
    /// loop; the decision's would_stop says where it would have): JSON text (a policy, a
    /// preset name in quotes) or a file holding a policy or a loop calibration artifact
    /// (store:NAME: the store's artifact NAME). For a new state file (kept in it); the loop's policy must hold a hard cap.
    #[arg(long, value_name = "FILE|JSON")]
    shadow: Option<String>,
    /// Loop preset for a new state file: seed (the default) or recommended.
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
    /// JSON file with a partial config (camelCase keys) merged over the preset, for a new state file.
    #[arg(long, value_name = "FILE")]
    config: Option<String>,
    /// Accept iteration numbers that do not increase (turns strictIterations off in a new state file).
    #[arg(long)]
    no_strict_iterations: bool,
    #[arg(long, value_name = "Q", allow_hyphen_values = true, help = record_help("quality_score"))]
    quality: String,
    #[arg(long, value_name = "C", allow_hyphen_values = true, help = record_help("confidence"))]
    confidence: String,
    #[arg(long, value_name = "STATUS", help = record_help("verification_status"))]
    verification: String,
    /// quality_delta (default: this quality minus the previous iteration's, 0 for the first).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: Option<String>,
    /// tokens_used by this iteration.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    tokens: Option<String>,
    /// token_cost_usd of this iteration.
    #[arg(long, value_name = "USD", allow_hyphen_values = true)]
    cost: Option<String>,
    /// execution_time_ms of this iteration.
    #[arg(long, value_name = "MS", allow_hyphen_values = true)]
    time_ms: Option<String>,
    /// The iteration number (default: the last recorded one + 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    iteration: Option<String>,
    /// The behaviour fields, a flag each (`behavior_flags`, from the core's table).
    #[command(flatten)]
    behavior: crate::behavior_flags::BehaviorArgs,
}

/// The help of a flag giving `loop_record`'s argument `name`: the name, then its names or
/// bounds from the tools' table (the core's).
fn record_help(name: &str) -> String {
    crate::mcp::flag_help("loop_record", name, "")
}

pub fn run(command: LoopCommand, json: bool) -> Result<u8, Failure> {
    let answer = match command {
        LoopCommand::Record(args) => record(&args)?,
        LoopCommand::Status(args) => status(&args.state, args.policy.as_deref())?,
        LoopCommand::Best(args) => best(&args.state)?,
        LoopCommand::Reset(args) => reset(&args.state)?,
        LoopCommand::Finish(args) => crate::loop_finish::finish(&args)?,
    };
    output::print(&answer, json)?;
    Ok(answer.code)
}

/// The result fields and the flag each comes from.
const RESULT_FLAGS: [(&str, &str); 7] = [
    ("quality_score", "--quality"),
    ("confidence", "--confidence"),
    ("verification_status", "--verification"),
    ("quality_delta", "--delta"),
    ("tokens_used", "--tokens"),
    ("token_cost_usd", "--cost"),
    ("execution_time_ms", "--time-ms"),
];

/// The flag that gave the field a core error names.
pub(crate) fn flag_of(field: &str) -> Option<&'static str> {
    if field == "iteration" {
        return Some("--iteration");
    }
    if let Some((_, flag)) = RESULT_FLAGS.iter().find(|(f, _)| *f == field) {
        return Some(flag);
    }
    // A behaviour field, or an item of a list one (`artifacts_modified[1]`).
    crate::behavior_flags::flag_of(field.split('[').next().unwrap_or(field))
}

fn core_failure(error: core_api::CoreError) -> Failure {
    match flag_of(error.field()) {
        Some(flag) => with_flag(error, flag),
        None => Failure::core(error),
    }
}

/// The config a new state file starts with: the preset, strictIterations on (a command is
/// what gets restarted: docs/loop-options.md, "Resume safety") unless turned off, then the
/// config file merged over it.
fn new_config(args: &RecordArgs, given: &PolicyGiven) -> Result<EarlyStoppingConfig, Failure> {
    let base = match given {
        PolicyGiven::Artifact(artifact, source) => {
            if args.preset.is_some() {
                return Err(Failure::Usage(
                    "--preset and a calibration artifact in --policy both set up the config: give one".into(),
                ));
            }
            core_api::calibrated(artifact).map_err(|e| in_source(e, source.as_deref()))?.config
        }
        _ => {
            let preset = args.preset.as_deref().unwrap_or("seed");
            EarlyStoppingConfig::preset_value(&Value::string(preset), "preset").map_err(|e| with_flag(e, "--preset"))?
        }
    };
    let strict = Value::object(vec![("strictIterations", Value::Bool(!args.no_strict_iterations))]);
    let base = base.merged(&strict, NAMING, "config", ErrorCode::InvalidConfig).map_err(Failure::core)?;
    match &args.config {
        None => Ok(base),
        Some(path) => {
            let text = state::read_input(path)?;
            let value = core_api::parse_json(&text, "invalid_config", "config").map_err(|e| with_file(e, path))?;
            base.merged(&value, NAMING, "config", ErrorCode::InvalidConfig).map_err(|e| with_file(e, path))
        }
    }
}

/// What `--policy` gave: nothing, a composed stop policy, or a loop calibration artifact
/// (an object with the artifact envelope's `kind`, a key no stop policy has) and the file
/// it came from.
enum PolicyGiven {
    None,
    Stop(core_api::StopPolicy),
    Artifact(Value, Option<String>),
}

impl PolicyGiven {
    fn stop_policy(self) -> Option<core_api::StopPolicy> {
        match self {
            PolicyGiven::Stop(policy) => Some(policy),
            _ => None,
        }
    }
}

/// Where `--policy`'s document came from: a file (or `store:NAME`), or None for JSON text.
fn source_of(given: &str) -> Option<&str> {
    let trimmed = given.trim_start();
    (!(trimmed.starts_with('{') || trimmed.starts_with('"'))).then_some(given)
}

/// A core error about `--policy`'s document: named by its file, or by the flag for JSON text.
fn in_source(e: core_api::CoreError, source: Option<&str>) -> Failure {
    match source {
        Some(path) => with_file(e, path),
        None => with_flag(e, "--policy"),
    }
}

/// The `--policy` argument: JSON text when it starts with `{` or `"`, else a file to read;
/// an artifact only where `artifacts` (`loop record`, for a new state file).
fn policy_arg(given: Option<&str>, artifacts: bool, store: &Option<String>) -> Result<PolicyGiven, Failure> {
    let Some(given) = given else { return Ok(PolicyGiven::None) };
    let trimmed = given.trim_start();
    let value = if let Some(name) = crate::store_artifact::name_of(given) {
        // store:NAME: the store's artifact, read as the file's text would be.
        crate::store_artifact::read(store, name, "--policy")?
    } else {
        let text = if trimmed.starts_with('{') || trimmed.starts_with('"') {
            given.to_string()
        } else {
            state::read_input(given)?
        };
        core_api::parse_json(&text, "invalid_config", "policy").map_err(|e| in_source(e, source_of(given)))?
    };
    let source = source_of(given);
    if artifacts && core_api::is_artifact(&value) {
        return Ok(PolicyGiven::Artifact(value, source.map(str::to_string)));
    }
    core_api::engine_policy(&value).map(PolicyGiven::Stop).map_err(|e| in_source(e, source))
}

/// Loads the engine of an existing state file (a corrupt one is reported and left as it is).
fn load(path: &Path, text: &str) -> Result<EarlyStopping, Failure> {
    let file = path.display().to_string();
    let snapshot = core_api::parse_snapshot(text).map_err(|e| with_file(e, &file))?;
    EarlyStopping::from_snapshot(&snapshot).map_err(|e| with_file(e, &file))
}

fn load_existing(path: &Path) -> Result<EarlyStopping, Failure> {
    match state::read(path)? {
        Some(text) => load(path, &text),
        None => Err(Failure::Input { path: path.display().to_string(), message: "no such state file".into() }),
    }
}

fn record(args: &RecordArgs) -> Result<Answer, Failure> {
    // Flags first: a bad flag changes nothing, not even the lock file.
    let mut result = Vec::new();
    let given = [
        Some(&args.quality),
        Some(&args.confidence),
        None,
        args.delta.as_ref(),
        args.tokens.as_ref(),
        args.cost.as_ref(),
        args.time_ms.as_ref(),
    ];
    for ((field, _), text) in RESULT_FLAGS.iter().zip(given) {
        if *field == "verification_status" {
            result.push((*field, Value::string(args.verification.as_str())));
        } else if let Some(text) = text {
            result.push((*field, core_api::number_arg(text)));
        }
    }
    result.extend(args.behavior.entries.iter().cloned());
    let result = Value::object(result);
    core_api::check_behavior_fields(&result).map_err(core_failure)?;
    let names_store = |given: &Option<String>| given.as_deref().and_then(crate::store_artifact::name_of).is_some();
    if args.store.is_some() && !names_store(&args.policy) && !names_store(&args.shadow) {
        return Err(Failure::Usage("--store needs --policy or --shadow store:NAME (an artifact of the store)".into()));
    }
    let given = policy_arg(args.policy.as_deref(), true, &args.store)?;
    let shadow = crate::loop_finish::shadow_arg(args.shadow.as_deref(), &args.store)?;
    let config = new_config(args, &given)?;
    let (policy, artifact, notice, auto_shadow) = match given {
        PolicyGiven::Artifact(value, source) => {
            let calibrated = core_api::calibrated(&value).map_err(|e| in_source(e, source.as_deref()))?;
            (calibrated.policy, Some(calibrated.digest), core_api::uncertified_notice(&value), calibrated.shadow)
        }
        given => (given.stop_policy(), None, None, None),
    };
    // An artifact not trusted to act runs its calibrated policy in shadow itself.
    if auto_shadow.is_some() && shadow.is_some() {
        return Err(with_flag(core_api::shadow_taken(), "--shadow"));
    }

    let locked = state::lock(&args.state)?;
    let (mut engine, created) = match locked.read()? {
        Some(text) => {
            let mut engine = load(&args.state, &text)?;
            let other_config = (args.preset.is_some() || args.config.is_some() || args.no_strict_iterations)
                && *engine.config() != config;
            // The same artifact again is fine; a state file from before digests were kept
            // takes the digest of an artifact whose config it holds.
            let other_artifact = match (&artifact, engine.policy_artifact()) {
                (Some(given), Some(kept)) => given != kept,
                (Some(_), None) => engine.policy().is_some() || *engine.config() != config,
                (None, _) => false,
            };
            if other_config || other_artifact {
                return Err(Failure::Usage(format!(
                    "{} holds a loop with another config or policy; --preset, --policy ARTIFACT, --config \
                     and --no-strict-iterations only set up a new state file (delete it, or use another one)",
                    args.state.display()
                )));
            }
            engine.adopt_policy(policy).map_err(|e| with_flag(e, "--policy"))?;
            crate::loop_finish::adopt_shadow(&args.state, &engine, shadow)?;
            (engine, false)
        }
        None => {
            let mut engine = EarlyStopping::new(config).map_err(Failure::core)?;
            engine.set_policy(policy);
            engine.set_shadow(shadow.or(auto_shadow)).map_err(|e| with_flag(e, "--shadow"))?;
            (engine, true)
        }
    };
    if artifact.is_some() {
        engine.set_policy_artifact(artifact).map_err(Failure::core)?;
    }
    let iteration = match &args.iteration {
        Some(text) => core_api::number_arg(text),
        None => Value::Number(core_api::last_iteration(&engine).map_or(1, |n| n + 1) as f64),
    };
    let result = match (&args.delta, &result) {
        (None, Value::Object(entries)) => {
            let quality = result.get("quality_score").unwrap_or(&Value::Null);
            let mut entries = entries.clone();
            if let Some(delta) = core_api::implied_delta(&engine, &iteration, quality) {
                entries.insert(3, ("quality_delta".into(), delta));
            }
            Value::Object(entries)
        }
        _ => result,
    };
    let recorded = engine.record_value(&iteration, &result, NAMING, core_api::now_iso).map_err(core_failure)?;
    let duplicate = recorded.is_duplicate();
    let decision = engine.should_stop();
    locked.write_state(&output::json(&engine.to_snapshot()))?;
    // Once per loop: when its state file is set up from an uncertified artifact.
    if let (true, Some(notice)) = (created, &notice) {
        eprintln!("{notice}");
    }
    // Once per loop too: why the artifact's calibrated policy runs in shadow.
    if let (true, Some(reason)) = (created, engine.shadow_reason()) {
        eprintln!("{reason}");
    }
    let number = iteration.as_f64().unwrap_or(0.0);
    let doc = Value::object(vec![
        ("iteration", Value::Number(number)),
        ("duplicate", Value::Bool(duplicate)),
        ("created", Value::Bool(created)),
        ("decision", decision.to_value()),
    ]);
    let mut human = format!(
        "iteration {}{}: {} ({}, confidence {})\n  {}",
        core_api::js_number(number),
        if duplicate { " (already recorded, nothing changed)" } else { "" },
        if decision.stop { "stop" } else { "go on" },
        decision.trigger.as_str(),
        core_api::js_number(decision.confidence),
        decision.reason
    );
    for intervention in &decision.interventions {
        human.push_str(&format!(
            "\n  {} ({}{}): {}",
            intervention.level().as_str(),
            intervention.condition.as_str(),
            if intervention.stop { ", stops" } else { "" },
            intervention.detection.message.as_deref().unwrap_or_default()
        ));
    }
    if let Some(w) = &decision.would_stop {
        human.push_str(&format!(
            "\n  shadow would stop at iteration {} ({}): {}",
            core_api::js_number(w.iteration as f64),
            w.trigger.as_str(),
            w.reason
        ));
    }
    if let Some((best, quality)) = core_api::best_iteration(&engine) {
        human.push_str(&format!(
            "\n  best so far: iteration {} (quality {})",
            core_api::js_number(best as f64),
            core_api::js_number(quality)
        ));
    }
    Ok(Answer { json: output::json(&doc), human, code: if decision.stop { code::STOP } else { code::GO_ON } })
}

fn status(path: &Path, policy: Option<&str>) -> Result<Answer, Failure> {
    let policy = policy_arg(policy, false, &None)?.stop_policy();
    let mut engine = load_existing(path)?;
    // Decides under the state file's policy; one given must be the same (or the file has none).
    engine.adopt_policy(policy).map_err(|e| with_flag(e, "--policy"))?;
    let decision = engine.should_stop();
    let stop = decision.stop;
    let summary = core_api::summary_value(&mut engine);
    let human = match engine.history().len() {
        0 => "no iterations recorded yet".to_string(),
        n => format!("{} iterations recorded; {}\n  {}", n, if stop { "stop" } else { "go on" }, decision.reason),
    };
    Ok(Answer { json: output::json(&summary), human, code: if stop { code::STOP } else { code::GO_ON } })
}

fn best(path: &Path) -> Result<Answer, Failure> {
    let engine = load_existing(path)?;
    let best = core_api::best_iteration(&engine);
    let doc = Value::object(vec![
        ("best_iteration", best.map_or(Value::Null, |b| Value::Number(b.0 as f64))),
        ("best_quality_score", best.map_or(Value::Null, |b| Value::Number(b.1))),
        ("record", best.and_then(|b| core_api::record_value(&engine, b.0)).unwrap_or(Value::Null)),
    ]);
    let human = match best {
        Some((iteration, quality)) => {
            format!(
                "best: iteration {} (quality {})",
                core_api::js_number(iteration as f64),
                core_api::js_number(quality)
            )
        }
        None => "no iterations recorded yet".to_string(),
    };
    Ok(Answer { json: output::json(&doc), human, code: code::GO_ON })
}

/// Clears the history under the lock. A state file that cannot be read back (over the
/// document limit, not UTF-8, not JSON, or a loop's snapshot whose content is corrupt) is
/// moved aside to `FILE.unreadable`, so a reset always gets the loop going again; any other
/// JSON document (another engine's state, a file that is no state) is refused unchanged.
fn reset(path: &Path) -> Result<Answer, Failure> {
    let file = path.display().to_string();
    let locked = state::lock_existing(path, "no such state file")?;
    let loaded = match locked.read() {
        Ok(Some(text)) => match core_api::parse_snapshot(&text) {
            Ok(snapshot) => {
                if snapshot.get("engine").and_then(Value::as_str) != Some(core_api::LOOP_ENGINE) {
                    // Not a loop's state: refused with the core's own error.
                    EarlyStopping::from_snapshot(&snapshot).map_err(|e| with_file(e, &file))?;
                }
                EarlyStopping::from_snapshot(&snapshot).map_err(|e| with_file(e, &file))
            }
            Err(e) => Err(with_file(e, &file)),
        },
        Ok(None) => return Err(Failure::Input { path: file, message: "no such state file".into() }),
        // Over the size limit or not UTF-8 (the core's refusal): unreadable. Anything else
        // (a permission denied) is no reason to move the file.
        Err(failure) if state::core_error(&failure).is_some() => Err(failure),
        Err(failure) => return Err(failure),
    };
    let failure = match loaded {
        Ok(mut engine) => {
            engine.reset();
            locked.write_state(&output::json(&engine.to_snapshot()))?;
            return Ok(Answer {
                json: output::json(&Value::object(vec![("reset", Value::Bool(true))])),
                human: format!("{file}: history cleared, config kept"),
                code: code::GO_ON,
            });
        }
        Err(failure) => failure,
    };
    let moved = state::move_aside(&locked)?.display().to_string();
    let reason = failure.to_text();
    Ok(Answer {
        json: output::json(&Value::object(vec![
            ("reset", Value::Bool(true)),
            ("movedTo", Value::string(moved.as_str())),
            ("reason", Value::string(reason.as_str())),
        ])),
        human: format!("{file}: unreadable ({reason}); moved to {moved}; the next `loop record` starts a new loop"),
        code: code::GO_ON,
    })
}
