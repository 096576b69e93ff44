//! `earlyexit hook claude-code`: Claude Code's `Stop` / `SubagentStop` command hook. Each
//! event is one iteration of a loop kept per session: the transcript since the last event,
//! the fingerprint, the check, the promise, then the core's decision, answered as a block
//! (go on, with the continuation prompt) or a stop let through with a system message. The
//! hook never blocks on its own failure: it says why on stderr and exits 0 (docs/agents.md).

mod check;
mod fingerprint;
mod install;
mod payload;
mod session;
mod status;
mod transcript;

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::core_api::{self, agent_hook, Loop, LoopOptions, LoopPolicy, ResourceUsage, StepInput, Value};
use crate::output::Failure;
use crate::state;

pub use fingerprint::Kind as FingerprintKind;
use session::{Answered, Session};

#[derive(Subcommand, Debug)]
pub enum HookCommand {
    /// Claude Code's Stop / SubagentStop hook: one loop iteration per event (payload on stdin).
    #[command(name = "claude-code")]
    ClaudeCode(Box<ClaudeCodeArgs>),
}

#[derive(Args, Debug, Clone, Default)]
pub struct ClaudeCodeArgs {
    /// The state directory (default .earlyexit/claude-code/ under the payload's cwd).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// What tells iterations apart: git (the worktree; the default in a git worktree),
    /// message (the last assistant message; the default elsewhere) or none.
    #[arg(long, value_enum, value_name = "KIND")]
    pub fingerprint: Option<FingerprintKind>,
    /// A command run in the project at each event (sh -c): exit 0 passes (quality 100), else fails (0).
    #[arg(long, value_name = "CMD")]
    pub check: Option<String>,
    /// Seconds the check may run before its process group is killed (default 300).
    #[arg(long, value_name = "SECONDS")]
    pub check_timeout: Option<String>,
    /// A JUnit XML report the check writes: quality is 100 x its pass rate.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<String>,
    /// The completion promise: <promise>TEXT</promise> alone on the last line of the last message ends the loop.
    #[arg(long, value_name = "TEXT")]
    pub promise: Option<String>,
    /// A stop policy or loop calibration artifact (JSON text or a file) instead of the agent policy.
    #[arg(long, value_name = "FILE|JSON|ARTIFACT")]
    pub policy: Option<String>,
    /// A loop preset (seed, recommended) instead of the agent policy (needs --check).
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// The iteration cap (default 25).
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<String>,
    /// Stop once the loop's cost exceeds this (needs --usd-per-mtok).
    #[arg(long, value_name = "USD")]
    pub max_cost_usd: Option<String>,
    /// Stop once the loop's tokens exceed this.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<String>,
    /// Prices per million tokens: IN,OUT[,CACHE_READ,CACHE_WRITE].
    #[arg(long, value_name = "PRICES")]
    pub usd_per_mtok: Option<String>,
    /// The continuation prompt's text (default: the original task's first 2,000 characters).
    #[arg(long, value_name = "FILE")]
    pub prompt: Option<String>,
    /// Add this hook (with the options given) to .claude/settings.json, or --settings.
    #[arg(long, conflicts_with_all = ["uninstall", "status"])]
    pub install: bool,
    /// Remove this hook from .claude/settings.json, or --settings.
    #[arg(long, conflicts_with = "status")]
    pub uninstall: bool,
    /// The settings file for --install / --uninstall (default .claude/settings.json).
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,
    /// With --install: also run on SubagentStop (each subagent's own loop).
    #[arg(long)]
    pub subagents: bool,
    /// Print a session's iterations and last decision (the newest session without --session).
    #[arg(long)]
    pub status: bool,
    /// With --status: the session id.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// With --status: the subagent's id.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
}

pub fn run(command: HookCommand, json: bool) -> Result<u8, Failure> {
    let HookCommand::ClaudeCode(args) = command;
    if args.install || args.uninstall {
        return install::run(&args);
    }
    if args.status {
        return status::run(&args, json);
    }
    Ok(event(&args))
}

/// Bytes of a --prompt file read.
pub const MAX_PROMPT_BYTES: usize = 1 << 20;

/// The options, checked.
pub struct Options {
    /// The policy the loop enforces.
    pub policy: LoopPolicy,
    /// With a loop calibration artifact as `--policy`: its digest, the calibrated policy in
    /// shadow when the artifact is not trusted to act (unpromoted, expired or drifted), and
    /// what a new loop says once on stderr.
    pub artifact: Option<FromArtifact>,
    pub max_iterations: u64,
    pub prices: Option<[f64; 4]>,
    pub check_timeout: Duration,
}

fn number(flag: &str, text: &str, min: f64) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= min => Ok(n),
        _ => Err(format!("{flag} must be a number >= {min}, got '{text}'")),
    }
}

fn integer(flag: &str, text: &str, min: u64) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= min && n as f64 <= 9_007_199_254_740_991.0 => Ok(n),
        _ => Err(format!("{flag} must be an integer >= {min}, got '{text}'")),
    }
}

/// Reads and checks the options (a bad one is reported; for an event the stop goes through).
pub fn options(args: &ClaudeCodeArgs) -> Result<Options, String> {
    let max_iterations = match &args.max_iterations {
        Some(t) => integer("--max-iterations", t, 1)?,
        None => agent_hook::DEFAULT_MAX_ITERATIONS,
    };
    let check_timeout = match &args.check_timeout {
        Some(t) => {
            let seconds = number("--check-timeout", t, 0.0)?;
            if seconds <= 0.0 || seconds > 86_400.0 {
                return Err(format!("--check-timeout must be a number of seconds in (0, 86400], got '{t}'"));
            }
            Duration::from_secs_f64(seconds)
        }
        None => Duration::from_secs(agent_hook::DEFAULT_CHECK_TIMEOUT_SECONDS),
    };
    let prices = match &args.usd_per_mtok {
        None => None,
        Some(text) => {
            let parts: Vec<&str> = text.split(',').collect();
            let values =
                parts.iter().map(|p| number("--usd-per-mtok", p, 0.0)).collect::<Result<Vec<f64>, String>>()?;
            match values.as_slice() {
                // Anthropic's cache prices: reads at 0.1 x input, 5-minute writes at 1.25 x.
                [input, output] => Some([*input, *output, input * 0.1, input * 1.25]),
                [input, output, read, write] => Some([*input, *output, *read, *write]),
                _ => return Err(format!("--usd-per-mtok takes IN,OUT or IN,OUT,CACHE_READ,CACHE_WRITE, got '{text}'")),
            }
        }
    };
    let max_tokens = args.max_tokens.as_deref().map(|t| number("--max-tokens", t, 0.0)).transpose()?;
    let max_cost = args.max_cost_usd.as_deref().map(|t| number("--max-cost-usd", t, 0.0)).transpose()?;
    if max_cost.is_some() && prices.is_none() {
        return Err("--max-cost-usd needs --usd-per-mtok (the transcript holds no prices)".into());
    }
    if args.junit.is_some() && args.check.is_none() {
        return Err("--junit names the report --check writes: give --check too".into());
    }
    let (policy, artifact): (LoopPolicy, Option<FromArtifact>) = match (&args.policy, &args.preset) {
        (Some(_), Some(_)) => return Err("--policy and --preset both set the policy: give one".into()),
        (None, None) => (agent_hook::agent_policy(max_tokens, max_cost).map_err(|e| e.message().to_string())?, None),
        (policy, preset) => {
            if max_tokens.is_some() || max_cost.is_some() {
                return Err(
                    "--max-tokens and --max-cost-usd belong to the agent policy: with --policy or --preset, put \
                            budgets in the policy"
                        .into(),
                );
            }
            match (policy, preset) {
                (_, Some(name)) => {
                    (core_api::loop_policy(&Value::string(name.as_str())).map_err(|e| e.message().to_string())?, None)
                }
                (Some(given), _) => policy_arg(given)?,
                _ => return Err("no policy".into()),
            }
        }
    };
    if args.check.is_none() && agent_hook::reads_quality(&policy) {
        return Err(agent_hook::QUALITY_WITHOUT_CHECK.to_string());
    }
    Ok(Options { policy, artifact, max_iterations, prices, check_timeout })
}

/// What a loop calibration artifact given as `--policy` sets up, beside the policy it enforces.
pub struct FromArtifact {
    /// The artifact's SHA-256, which the loop records as `policyArtifact`.
    pub digest: String,
    /// The calibrated policy in shadow, when the artifact is not trusted to act.
    pub shadow: Option<core_api::ShadowCandidate>,
    /// Said once per loop on stderr: why the calibrated policy is not enforced, and that the
    /// calibration certified nothing.
    pub notices: Vec<String>,
}

fn policy_arg(given: &str) -> Result<(LoopPolicy, Option<FromArtifact>), String> {
    let trimmed = given.trim_start();
    let value = if let Some(name) = crate::store_artifact::name_of(given) {
        // store:NAME: the artifact of the store EARLYEXIT_STORE names (else the default one).
        crate::store_artifact::read(&None, name, "--policy").map_err(|f| f.to_text())?
    } else {
        let text = if trimmed.starts_with('{') || trimmed.starts_with('"') {
            given.to_string()
        } else {
            state::read_input(given).map_err(|f| f.to_text())?
        };
        core_api::parse_json(&text, "invalid_config", "policy").map_err(|e| e.message().to_string())?
    };
    if core_api::is_artifact(&value) {
        let enforced = core_api::enforced_loop(&value).map_err(|e| e.message().to_string())?;
        let notices =
            enforced.shadow_reason().map(str::to_string).into_iter().chain(core_api::uncertified_notice(&value));
        let artifact = FromArtifact { notices: notices.collect(), digest: enforced.sha256, shadow: enforced.shadow };
        return Ok((enforced.policy, Some(artifact)));
    }
    core_api::loop_policy(&value).map(|p| (p, None)).map_err(|e| e.message().to_string())
}

/// The project directory: the payload's cwd, else the working directory.
fn project_dir(cwd: Option<&str>) -> PathBuf {
    match cwd.filter(|c| !c.is_empty()) {
        Some(cwd) => PathBuf::from(cwd),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    }
}

/// The state directory: --dir, else .earlyexit/claude-code under the project.
pub fn state_dir(args: &ClaudeCodeArgs, project: &Path) -> PathBuf {
    args.dir.clone().unwrap_or_else(|| project.join(".earlyexit").join("claude-code"))
}

/// One event, failing open: whatever goes wrong, the stop goes through (exit 0) and stderr
/// says why.
fn event(args: &ClaudeCodeArgs) -> u8 {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let payload = payload::read(std::io::stdin().lock())?;
        iteration(args, &payload)
    }));
    let message = match outcome {
        Ok(Ok(answer)) => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{answer}").and_then(|()| out.flush());
            return 0;
        }
        Ok(Err(message)) => message,
        Err(_) => "internal error (a bug: please report it)".to_string(),
    };
    eprintln!("earlyexit hook claude-code: {message}; letting the stop through");
    0
}

fn cost(tokens: &transcript::Tokens, prices: &[f64; 4]) -> f64 {
    let [input, output, read, write] = *prices;
    (tokens.input as f64 * input
        + tokens.output as f64 * output
        + tokens.cache_read as f64 * read
        + tokens.cache_write as f64 * write)
        / 1_000_000.0
}

/// The whereabouts an iteration keeps as its output.
fn whereabouts_value(head: Option<&str>, dirty: bool, files: &[String]) -> Value {
    Value::object(vec![
        ("commit", head.map_or(Value::Null, Value::string)),
        ("dirty", Value::Bool(dirty)),
        ("files", Value::Array(files.iter().map(|f| Value::string(f.as_str())).collect())),
    ])
}

fn whereabouts(value: &Value) -> agent_hook::Whereabouts {
    agent_hook::Whereabouts {
        commit: value.get("commit").and_then(Value::as_str).map(str::to_string),
        dirty: value.get("dirty").and_then(Value::as_bool).unwrap_or(false),
        files: match value.get("files") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        },
    }
}

/// The event's iteration: returns the answer's JSON text.
fn iteration(args: &ClaudeCodeArgs, payload: &payload::Payload) -> Result<String, String> {
    let options = options(args)?;
    let transcript_path = payload.transcript()?.to_string();
    if payload.session_id.is_empty() {
        return Err("the payload's session_id is empty".into());
    }
    let cap = agent_hook::block_cap(std::env::var(agent_hook::BLOCK_CAP_VARIABLE).ok().as_deref())
        .map_err(|e| e.message().to_string())?;
    let project = project_dir(payload.cwd.as_deref());
    let dir = state_dir(args, &project);
    session::prepare_dir(&dir)?;
    let agent = if payload.is_subagent() {
        payload.agent_id.as_deref().or(payload.agent_type.as_deref()).or(Some("subagent"))
    } else {
        None
    };
    let path = session::state_path(&dir, &payload.session_id, agent);
    let locked = state::lock(&path).map_err(|f| f.to_text())?;
    let mut session = match locked.read() {
        Ok(Some(text)) => match Session::from_text(&text) {
            Ok(session) => session,
            Err(why) => {
                let moved = state::move_aside(&locked).map_err(|f| f.to_text())?;
                eprintln!(
                    "earlyexit hook claude-code: {} was unreadable ({why}); moved to {}, starting a new loop",
                    path.display(),
                    moved.display()
                );
                Session::new(&payload.session_id, agent)
            }
        },
        Ok(None) => Session::new(&payload.session_id, agent),
        Err(failure) => return Err(failure.to_text()),
    };

    // A stop let through ends that loop: the next event is the user's next prompt. So is a
    // stop that no block of ours caused.
    let resumed_by_user = session.answered == Some(Answered::Block) && payload.stop_hook_active == Some(false);
    if matches!(session.answered, Some(Answered::Stop | Answered::Cap)) || resumed_by_user {
        session.new_loop();
    }
    if session.transcript.as_deref() != Some(transcript_path.as_str()) {
        session.transcript = Some(transcript_path.clone());
        session.offset = 0;
    }

    let turn =
        transcript::read_since(&transcript_path, session.offset, &project.to_string_lossy(), payload.is_subagent())?;
    session.offset = turn.end;
    if (turn.unknown_lines > 0 || turn.long_lines > 0) && !session.warned_unknown {
        session.warned_unknown = true;
        eprintln!(
            "earlyexit hook claude-code: skipped {} transcript lines of a kind this version does not read and {} \
             over {} bytes in {transcript_path} (said once per session)",
            turn.unknown_lines,
            turn.long_lines,
            transcript::MAX_LINE_BYTES
        );
    }
    if turn.tool_uses > 0 {
        session.blocks_in_a_row = 0; // Claude Code resets its count when a continuation ran a tool
    }
    if session.task.is_none() {
        // The conversation's first loop: its first prompt. A later loop: the prompt that
        // started it, the last one the user typed since the previous stop.
        let prompt = if session.loops == 0 { &turn.first_prompt } else { &turn.last_prompt };
        session.task = prompt.as_deref().map(|t| agent_hook::task_excerpt(t).to_string());
    }
    let message = payload.last_assistant_message.as_deref().or(turn.last_assistant_text.as_deref());
    if let Some(message) = message {
        session.set_message(message);
    }
    session.tokens.input = session.tokens.input.saturating_add(turn.tokens.input);
    session.tokens.output = session.tokens.output.saturating_add(turn.tokens.output);
    session.tokens.cache_read = session.tokens.cache_read.saturating_add(turn.tokens.cache_read);
    session.tokens.cache_write = session.tokens.cache_write.saturating_add(turn.tokens.cache_write);
    session.add_files(&turn.files);

    let kind = args.fingerprint.unwrap_or_else(|| {
        if fingerprint::in_worktree(&project) {
            FingerprintKind::Git
        } else {
            FingerprintKind::Message
        }
    });
    let (fingerprint, head, dirty) = match kind {
        FingerprintKind::Git => {
            let git = fingerprint::git_state(&project)?;
            (Some(git.sha256), git.head, git.dirty)
        }
        FingerprintKind::Message => (session.message_sha256.clone(), None, false),
        FingerprintKind::None => (None, None, false),
    };

    let (quality, verification, check_seen, check_output, check_passed) = match &args.check {
        None => (0.0, None, agent_hook::CheckSeen::None, None, None),
        Some(command) => {
            let ran = check::run(command, &project, options.check_timeout)?;
            let report = match &args.junit {
                Some(report) => {
                    let path = if Path::new(report).is_absolute() {
                        report.clone()
                    } else {
                        project.join(report).to_string_lossy().into_owned()
                    };
                    Some(crate::junit::layer_result(&[path], None, None).map_err(|f| f.to_text())?)
                }
                None => None,
            };
            let rate = report.as_ref().and_then(|r| r.get("passRate")).and_then(Value::as_f64);
            let (quality, status) = agent_hook::check_quality(ran.passed, rate);
            let seen = match &report {
                Some(r) => agent_hook::CheckSeen::Tests {
                    failed: r.get("failed").and_then(Value::as_f64).unwrap_or(0.0) as u64,
                    total: r.get("total").and_then(Value::as_f64).unwrap_or(0.0) as u64,
                    passed: ran.passed,
                },
                None if ran.passed => agent_hook::CheckSeen::Passed,
                None => agent_hook::CheckSeen::Failed(ran.code),
            };
            session.quality_known = true;
            let output = (!ran.passed && !ran.tail.trim().is_empty()).then_some(ran.tail);
            (quality, Some(status), seen, output, Some(ran.passed))
        }
    };
    // This event's message whole; without one, the last line kept from an earlier event.
    let promise_met = match (&args.promise, message, &session.message_last_line) {
        (Some(promise), Some(text), _) => Some(agent_hook::promise_met(text, promise)),
        (Some(promise), None, Some(line)) => Some(agent_hook::promise_met(line, promise)),
        (Some(_), None, None) => Some(false),
        (None, _, _) => None,
    };
    let done = agent_hook::completes(promise_met, check_passed);

    let mut run = match session.run.take() {
        Some(run) => run,
        None => {
            session.loops = session.loops.saturating_add(1);
            let loop_options = LoopOptions {
                max_iterations: Some(options.max_iterations),
                task: Some(format!("claude-code:{}", payload.session_id)),
                ..LoopOptions::default()
            };
            let run = match &options.artifact {
                None => Loop::new(&options.policy, loop_options),
                Some(artifact) => {
                    // Once per loop, as `loop record --policy` says it once per state file.
                    for notice in &artifact.notices {
                        eprintln!("{notice}");
                    }
                    let enforced = core_api::EnforcedArtifact {
                        policy: options.policy.clone(),
                        shadow: artifact.shadow.clone(),
                        sha256: artifact.digest.clone(),
                    };
                    Loop::from_enforced(enforced, loop_options, None).and_then(|mut run| {
                        run.set_policy_artifact(Some(artifact.digest.clone()))?;
                        Ok(run)
                    })
                }
            };
            run.map_err(|e| e.message().to_string())?
        }
    };
    let cost_usd = options.prices.as_ref().map(|p| cost(&turn.tokens, p));
    if let Some(c) = cost_usd {
        session.cost_usd = Some(session.cost_usd.unwrap_or(0.0) + c);
    }
    let input = StepInput {
        verification,
        done,
        usage: ResourceUsage {
            tokens_used: Some(turn.tokens.total() as f64),
            token_cost_usd: cost_usd,
            execution_time_ms: None,
        },
        error: turn.last_error.as_deref().map(agent_hook::error_text),
        files: (!turn.files.is_empty()).then(|| turn.files.clone()),
        fingerprint,
        ..StepInput::default()
    };
    let output = whereabouts_value(head.as_deref(), dirty, &session.files);
    let decision = run.step(output, quality, input, core_api::now_iso).map_err(|e| e.message().to_string())?.clone();
    let iteration = run.history().len() as u64;

    let answer = if decision.stop {
        session.answered = Some(Answered::Stop);
        let best = run.best().map(|k| whereabouts(&k.output));
        let text = agent_hook::stop_message(&decision, iteration, session.quality_known, best.as_ref());
        serde_json::json!({ "systemMessage": text })
    } else if agent_hook::may_block(session.blocks_in_a_row, cap) {
        session.answered = Some(Answered::Block);
        session.blocks_in_a_row += 1;
        let seen = agent_hook::Seen {
            iteration,
            max_iterations: Some(options.max_iterations),
            check: check_seen,
            unchanged_turns: agent_hook::unchanged_turns(run.history()),
            worktree: kind == FingerprintKind::Git,
            tool_errors: turn.tool_errors,
            last_error: turn.last_error.as_deref().map(agent_hook::error_text),
            warning: decision.interventions.iter().find(|i| !i.stop).and_then(|i| i.detection.message.clone()),
            promise: args.promise.clone(),
            check_output,
        };
        let base = match &args.prompt {
            Some(file) => prompt_file(file, &project)?,
            None => session.task.clone().unwrap_or_default(),
        };
        let reason = agent_hook::continuation_prompt(&base, &seen);
        serde_json::json!({ "decision": "block", "reason": reason })
    } else {
        session.answered = Some(Answered::Cap);
        let text = agent_hook::cap_message(session.blocks_in_a_row, cap, iteration);
        serde_json::json!({ "systemMessage": text })
    };
    session.run = Some(run);
    let doc = session.to_value()?;
    locked.write_state(&doc.to_json()).map_err(|f| f.to_text())?;
    Ok(answer.to_string())
}

fn prompt_file(file: &str, project: &Path) -> Result<String, String> {
    let path = if Path::new(file).is_absolute() { PathBuf::from(file) } else { project.join(file) };
    let handle = std::fs::File::open(&path).map_err(|e| format!("cannot read --prompt {}: {e}", path.display()))?;
    let bytes = state::read_bounded(handle, MAX_PROMPT_BYTES)
        .map_err(|e| format!("cannot read --prompt {}: {e}", path.display()))?
        .ok_or_else(|| format!("--prompt {} is over {MAX_PROMPT_BYTES} bytes", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("--prompt {} is not UTF-8 text", path.display()))
}
