//! `earlyexit mcp`: a stdio MCP server (rmcp) whose tools drive the engines. Sessions live in
//! the server's memory, keyed by an id, and export as the libraries' snapshot JSON. Every
//! tool has an input and an output JSON schema and answers with structured content; bad
//! input is a tool error naming the field (the core's code, field and message), never a
//! crash. When the client cancels a call or goes away (standard input ends) work in progress
//! stops and writes nothing; a server whose client left exits 0. Standard input is read by the
//! wire reader (`transport`), tools run on their own threads (`tool_thread`). Paths in tool
//! arguments are confined to the server's roots (`mcp_roots`); replays over files stream as
//! the command's do (`replay_cmd`), and their per-run rows are sent once, in the structured
//! content.

mod arguments;
mod behavior_args;
mod call;
mod flag_help;
#[cfg(test)]
mod flag_parity;
mod replays;
mod stateless;
mod store_rows;
mod store_tools;
mod tool_row;
mod tool_thread;
mod tools_table;
pub(crate) use flag_help::{flag_help, flag_names};
mod transport;
pub(crate) mod wording;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value as Json};

use crate::core_api::{self, EarlyStopping, EarlyStoppingConfig, ErrorCode, ExitConfig, LiveRun, Value, NAMING};
use crate::mcp_roots::{RootSet, Roots, PATH_ARGUMENTS};
use crate::output::{code, Failure};
use crate::replay_cmd;
use arguments::{options_of, type_error, Args};
use behavior_args::{COMPLETED, DONE};
use call::Call;
use stateless::{artifact_tool, junit_result, junit_tool, policy_decide, policy_update, receipts_verify};
use wording::EngineKind;

enum Session {
    Loop(Box<EarlyStopping>),
    Pyramid(Box<LiveRun>),
}

#[derive(Clone)]
struct Server {
    sessions: Arc<Mutex<HashMap<String, Session>>>,
    next_id: Arc<AtomicU64>,
    closed: Arc<AtomicBool>,
    tools: Arc<Vec<Tool>>,
    roots: Arc<Roots>,
}

/// Serves until the client disconnects; exit 0. `roots`: the `--root` directories.
pub fn serve(roots: &[String]) -> Result<u8, Failure> {
    let roots = Arc::new(Roots::new(roots)?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(tool_thread::MAX_TOOL_THREADS)
        .build()
        .map_err(|e| Failure::Internal(format!("starting the runtime: {e}")))?;
    let closed = Arc::new(AtomicBool::new(false));
    let server = Server {
        sessions: Arc::new(Mutex::new(HashMap::new())),
        next_id: Arc::new(AtomicU64::new(1)),
        closed: closed.clone(),
        tools: Arc::new(tools()),
        roots,
    };
    let stdio = transport::stdio(closed.clone()).map_err(|e| Failure::Internal(format!("starting the reader: {e}")))?;
    let writer = stdio.writer();
    let result = runtime.block_on(async move {
        match server.serve(stdio).await {
            Ok(running) => running.waiting().await.map(|_| ()).map_err(|e| e.to_string()),
            // The client left before the handshake completed: nothing to do.
            Err(_) if closed.load(Ordering::SeqCst) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    });
    // Work still running sees the flag and stops without writing.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    // The answers to the last lines the client sent before it closed standard input.
    writer.flush(std::time::Duration::from_secs(5));
    result.map(|()| code::GO_ON).map_err(Failure::Internal)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("earlyexit", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Loop stopping for agent refinement loops (loop_* tools: start a session, record each \
                 iteration, stop when the decision says stop) and test-pyramid early exit (pyramid_* tools), \
                 plus replay and calibration over recorded runs. Documents are the earlyexit libraries' JSON.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(format!("unknown tool '{name}'"), None));
        }
        // The arguments as the wire reader read them (the core's JSON reader); serde's when
        // the request came another way.
        let args = match context.extensions.get::<transport::ToolArguments>().and_then(transport::ToolArguments::take) {
            Some(args) => args,
            None => match to_core(&request.arguments.unwrap_or_default()) {
                Ok(args) => args,
                Err(failure) => return Ok(tool_error(&failure).into()),
            },
        };
        // The client is asked for its roots only by a call that names a file.
        let names_a_file = matches!(&args, Value::Object(entries)
            if entries.iter().any(|(k, _)| PATH_ARGUMENTS.contains(&k.as_str())));
        let roots = if names_a_file {
            match self.roots.for_call(&context.peer).await {
                Ok(roots) => roots,
                Err(failure) => return Ok(tool_error(&failure).into()),
            }
        } else {
            Arc::new(RootSet::default())
        };
        let (closed, cancelled) = (self.closed.clone(), context.ct.clone());
        let stopped = {
            let (closed, cancelled) = (closed.clone(), cancelled.clone());
            move || closed.load(Ordering::SeqCst) || cancelled.is_cancelled()
        };
        let stop = Box::new(move || closed.load(Ordering::SeqCst) || cancelled.is_cancelled());
        let server = self.clone();
        let tool = name.clone();
        // A thread of its own (a typed tool error when none can be made), at most
        // MAX_TOOL_THREADS at once; a panic in it is a typed tool error.
        let outcome = tool_thread::run(&name, tool_thread::TOOL_STACK_BYTES, move || {
            let call = Call { roots, stop };
            server.call(&tool, args, &call).and_then(answer_parts)
        })
        .await;
        let result = match outcome {
            Ok(parts) => {
                let mut structured = parts.structured;
                if let (Some(rows), Json::Object(entries)) = (parts.rows, &mut structured) {
                    // The rows stay in their file: the transport writes the answer around it.
                    // (Held only for an answer rmcp will send: a cancelled call's is dropped.)
                    if context.ct.is_cancelled() {
                        return Err(ErrorData::internal_error("cancelled", None));
                    }
                    entries.insert("runs".into(), Json::String(transport::hold_rows(rows)));
                }
                let mut result = CallToolResult::structured(structured);
                result.content = vec![ContentBlock::text(parts.text)];
                result
            }
            Err(failure) => {
                if stopped() {
                    eprintln!(
                        "earlyexit mcp: {name} stopped (the request was cancelled or the client left); nothing written"
                    );
                }
                tool_error(&failure)
            }
        };
        Ok(result.into())
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.roots.client_roots_changed();
    }
}

/// What a tool answers: a value, or a replay document whose per-run rows wait in a
/// temporary file (or were not kept: `summary_only`).
enum Answer {
    Whole(Value),
    /// A replay document given whole (runs given inline): the text leaves out `runs`.
    Listing(Value),
    Replay(replay_cmd::Document),
}

impl From<Value> for Answer {
    fn from(value: Value) -> Self {
        Answer::Whole(value)
    }
}

/// An answer as the server sends it: the structured content, the text, and the file of
/// per-run rows (comma-separated JSON) that goes under the structured content's `runs`.
struct Parts {
    structured: Json,
    text: String,
    rows: Option<std::fs::File>,
}

/// The parts of an answer. A value's text is its JSON in the libraries' exact bytes, as the
/// specification recommends for clients that read only text. A replay document's text is
/// the document without its per-run rows (`runs`), which only the structured content
/// carries: the rows can be tens of megabytes, and sending them twice doubled the answer.
/// A replay over files keeps its rows in their temporary file: they are never read into
/// memory, the transport copies them into the answer as it writes it.
fn answer_parts(answer: Answer) -> Result<Parts, Failure> {
    match answer {
        Answer::Whole(value) => Ok(Parts { structured: to_json(&value), text: value.to_json(), rows: None }),
        Answer::Listing(value) => {
            let text = match &value {
                Value::Object(entries) => {
                    Value::Object(entries.iter().filter(|(k, _)| k != "runs").cloned().collect()).to_json()
                }
                other => other.to_json(),
            };
            Ok(Parts { structured: to_json(&value), text, rows: None })
        }
        Answer::Replay(doc) => {
            let structured: Map<String, Json> =
                doc.parts.iter().filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), to_json(v)))).collect();
            let summary: Vec<(String, Value)> =
                doc.parts.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect();
            let text = Value::Object(summary).to_json();
            Ok(Parts { structured: Json::Object(structured), text, rows: doc.rows.into_file()? })
        }
    }
}

/// A core value as serde's: the same numbers (exact f64; integral ones as integers, as the
/// core prints them), keys in the core's order.
fn to_json(value: &Value) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => {
            if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
                Json::from(*n as i64)
            } else {
                serde_json::Number::from_f64(*n).map_or(Json::Null, Json::Number)
            }
        }
        Value::String(s) => Json::String(s.clone()),
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Object(entries) => Json::Object(entries.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
        Value::Other(_) => Json::Null,
    }
}

fn tool_error(failure: &Failure) -> CallToolResult {
    let doc = failure.to_json();
    let mut result = CallToolResult::structured_error(doc.clone());
    result.content = vec![ContentBlock::text(doc.to_string())];
    result
}

/// The tool's arguments as a core value (numbers read as the core reads JSON).
fn to_core(args: &Map<String, Json>) -> Result<Value, Failure> {
    let text = serde_json::to_string(args).map_err(|e| Failure::Internal(e.to_string()))?;
    core_api::parse_json(&text, "invalid_config", "arguments").map_err(Failure::core)
}

impl Server {
    fn new_id(&self, kind: &str) -> String {
        format!("{kind}-{}", self.next_id.fetch_add(1, Ordering::SeqCst))
    }

    fn with_session<T>(&self, id: &str, f: impl FnOnce(&mut Session) -> Result<T, Failure>) -> Result<T, Failure> {
        // A tool that panicked (a bug, answered as a tool error) while it held the table
        // leaves it poisoned: the other sessions go on.
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        match sessions.get_mut(id) {
            Some(session) => f(session),
            None => Err(Failure::core(wording::unknown_session(id))),
        }
    }

    fn insert(&self, id: &str, session: Session) -> Result<(), Failure> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.insert(id.to_string(), session);
        Ok(())
    }

    /// `session_close`: forgets a session (its memory is freed).
    fn session_close(&self, args: &Args) -> Result<Value, Failure> {
        let id = args.session()?;
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        match sessions.remove(&id) {
            Some(_) => Ok(Value::object(vec![("session", Value::string(id)), ("closed", Value::Bool(true))])),
            None => Err(Failure::core(wording::unknown_session(&id))),
        }
    }

    fn call(&self, tool: &str, args: Value, call: &Call) -> Result<Answer, Failure> {
        let Some(row) = tools_table::row(tool) else {
            return Err(Failure::Usage(format!("unknown tool '{tool}'")));
        };
        let args = &Args::new(&row, &args)?;
        let value = match tool {
            "loop_start" => self.loop_start(args, call),
            "loop_record" => self.loop_record(args),
            "loop_decide" => self.loop_decide(args),
            "loop_best" => self.loop_best(args),
            "loop_finish" => self.loop_finish(args),
            "session_export" => self.session_export(args, call),
            "session_import" => self.session_import(args),
            "session_close" => self.session_close(args),
            "pyramid_start" => self.pyramid_start(args),
            "pyramid_submit" => self.pyramid_submit(args, call),
            "pyramid_result" => self.pyramid_result(args, call),
            "runs_list" => store_tools::runs_list(args, call),
            "runs_export" => store_tools::runs_export(args, call),
            "runs_import" => store_tools::runs_import(args, call),
            "runs_check" => store_tools::runs_check(args, call),
            "runs_model" | "runs_artifact" => store_tools::runs_named(tool, args, call),
            "runs_artifacts" => store_tools::runs_artifacts(args, call),
            "pyramid_policy_decide" => policy_decide(args, call),
            "pyramid_policy_update" => policy_update(args),
            "replay_loops" => return self.replay_loops(args, call),
            "replay_pyramids" => return self.replay_pyramids(args, call),
            "calibrate_pyramids" => self.calibrate(args, call),
            "calibrate_loops" => self.calibrate_loops(args, call),
            "calibration_plan" => {
                core_api::calibration_plan(&options_of(args, &["risk", "delta"])).map_err(Failure::core)
            }
            "junit_layer_result" => junit_tool(args, call),
            "receipts_verify" => receipts_verify(args, call),
            "pyramid_drift" | "pyramid_promote" | "loop_drift" | "loop_promote" => artifact_tool(tool, args, call),
            _ => Err(Failure::Usage(format!("unknown tool '{tool}'"))),
        };
        value.map(Answer::from)
    }

    fn loop_start(&self, args: &Args, call: &Call) -> Result<Value, Failure> {
        let mut calibrated = None;
        let mut warning = None;
        // policy_artifact or shadow store:NAME: the store argument's artifact NAME.
        stateless::store_unused(args, &["policy_artifact", "shadow"])?;
        let stored_policy = stateless::stored_artifact(args, call, "policy_artifact")?.map(|(a, _, _)| a);
        let stored_shadow = stateless::stored_artifact(args, call, "shadow")?.map(|(a, _, _)| a);
        let policy_artifact = stored_policy.as_ref().or(args.get("policy_artifact"));
        let shadow_given = stored_shadow.as_ref().or(args.get("shadow"));
        // Not both (the tool's rules).
        let base = match (policy_artifact, args.get("preset")) {
            (Some(artifact), _) => {
                let c = core_api::calibrated(artifact)?;
                calibrated = Some((c.policy, c.digest, c.shadow));
                warning = core_api::uncertified_notice(artifact);
                c.config
            }
            (None, preset) => {
                let preset = preset.cloned().unwrap_or_else(|| Value::string("seed"));
                EarlyStoppingConfig::preset_value(&preset, "preset")?
            }
        };
        let strict = args.get("strict_iterations").cloned().unwrap_or(Value::Bool(true));
        let base = base
            .merged(&Value::object(vec![("strictIterations", strict)]), NAMING, "", ErrorCode::InvalidConfig)
            .map_err(|e| rename_field(e, "strictIterations", "strict_iterations"))?;
        let config = match args.get("config") {
            Some(config) => base.merged(config, NAMING, "config", ErrorCode::InvalidConfig)?,
            None => base,
        };
        let mut engine = EarlyStopping::new(config)?;
        let mut auto_shadow = None;
        if let Some((policy, digest, shadow)) = calibrated {
            engine.set_policy(policy);
            engine.set_policy_artifact(Some(digest))?;
            auto_shadow = shadow;
        }
        if let Some(policy) = args.get("policy") {
            engine.adopt_policy(Some(core_api::engine_policy(policy)?))?;
        }
        match (shadow_given, auto_shadow) {
            (Some(_), Some(_)) => return Err(Failure::core(core_api::shadow_taken())),
            (Some(shadow), None) => engine.set_shadow(Some(core_api::shadow_candidate(shadow)?))?,
            (None, auto) => engine.set_shadow(auto)?,
        }
        let config = engine.config().to_value(NAMING);
        let engine_reason = engine.shadow_reason().map(str::to_string);
        let id = self.new_id("loop");
        self.insert(&id, Session::Loop(Box::new(engine)))?;
        let mut answer = vec![("session", Value::string(id)), ("config", config)];
        // An uncertified artifact runs, and the answer says so (the command prints it on stderr).
        if let Some(warning) = warning {
            answer.push(("warning", Value::string(warning)));
        }
        // An artifact not promoted or expired: its calibrated policy runs in shadow, and why.
        if let Some(reason) = engine_reason {
            answer.push(("shadow_reason", Value::string(reason)));
        }
        Ok(Value::object(answer))
    }

    fn loop_record(&self, args: &Args) -> Result<Value, Failure> {
        let id = args.session()?;
        let mut result: Vec<(&str, Value)> =
            result_keys().into_iter().filter_map(|k| args.get(k).map(|v| (k, v.clone()))).collect();
        // `done` is the contract's name of the completion signal, `completed` (the record's
        // field) its alias: not both (the tool's rules).
        let done = args.get(DONE);
        if let Some(done) = done {
            result.push((COMPLETED, done.clone()));
        }
        let respell = |e: core_api::CoreError| match done {
            Some(_) => rename_field(e, COMPLETED, DONE),
            None => Failure::core(e),
        };
        let result = Value::object(result);
        let iteration = args.get("iteration").cloned();
        self.with_session(&id, |session| {
            let Session::Loop(engine) = session else {
                return Err(wrong_session(&id, EngineKind::Loop));
            };
            let iteration = iteration
                .unwrap_or_else(|| Value::Number(core_api::last_iteration(engine).map_or(1, |n| n + 1) as f64));
            let result = match (&result, result.get("quality_delta")) {
                (Value::Object(entries), None) => {
                    let quality = result.get("quality_score").unwrap_or(&Value::Null);
                    let mut entries = entries.clone();
                    if let Some(delta) = core_api::implied_delta(engine, &iteration, quality) {
                        entries.push(("quality_delta".into(), delta));
                    }
                    Value::Object(entries)
                }
                _ => result.clone(),
            };
            // A refused record changes nothing (the core's rule), so the session stays as it was.
            let recorded = engine.record_value(&iteration, &result, NAMING, core_api::now_iso).map_err(respell)?;
            let decision = engine.should_stop();
            Ok(Value::object(vec![
                ("iteration", iteration),
                ("duplicate", Value::Bool(recorded.is_duplicate())),
                ("decision", decision.to_value()),
            ]))
        })
    }

    fn loop_decide(&self, args: &Args) -> Result<Value, Failure> {
        let id = args.session()?;
        self.with_session(&id, |session| match session {
            Session::Loop(engine) => Ok(engine.should_stop().to_value()),
            _ => Err(wrong_session(&id, EngineKind::Loop)),
        })
    }

    fn loop_best(&self, args: &Args) -> Result<Value, Failure> {
        let id = args.session()?;
        self.with_session(&id, |session| {
            let Session::Loop(engine) = session else {
                return Err(wrong_session(&id, EngineKind::Loop));
            };
            let best = core_api::best_iteration(engine);
            Ok(Value::object(vec![
                ("best_iteration", best.map_or(Value::Null, |b| Value::Number(b.0 as f64))),
                ("best_quality_score", best.map_or(Value::Null, |b| Value::Number(b.1))),
                ("record", best.and_then(|b| core_api::record_value(engine, b.0)).unwrap_or(Value::Null)),
            ]))
        })
    }

    fn loop_finish(&self, args: &Args) -> Result<Value, Failure> {
        let id = args.session()?;
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        let good = args.get("good").and_then(Value::as_bool);
        let (run_id, task, dataset, label) = (text("run_id"), text("task"), text("dataset"), text("label"));
        self.with_session(&id, |session| {
            let Session::Loop(engine) = session else {
                return Err(wrong_session(&id, EngineKind::Loop));
            };
            let names = earlyexit::loops::shadow::RunNames {
                run_id: Some(run_id.as_deref().unwrap_or(&id)),
                task: task.as_deref(),
                dataset: dataset.as_deref(),
                run_label: label.as_deref(),
            };
            let Some(receipt) = core_api::loop_receipt(engine, good, &names) else {
                return Err(Failure::Usage(format!(
                    "session {id} has no shadow: start it with shadow to get a receipt"
                )));
            };
            Ok(Value::object(vec![("receipt", receipt)]))
        })
    }

    fn session_export(&self, args: &Args, call: &Call) -> Result<Value, Failure> {
        let id = args.session()?;
        let target = args.string("path")?.map(|path| call.roots.write("path", &path)).transpose()?;
        let snapshot = self.with_session(&id, |session| {
            Ok(match session {
                Session::Loop(engine) => engine.to_snapshot(),
                Session::Pyramid(run) => run.to_snapshot(),
            })
        })?;
        if let Some(target) = &target {
            if call.stopped() {
                return Err(Failure::Internal("cancelled".into()));
            }
            target.write(&snapshot.to_json())?;
        }
        Ok(Value::object(vec![("session", Value::string(id)), ("snapshot", snapshot)]))
    }

    fn session_import(&self, args: &Args) -> Result<Value, Failure> {
        let snapshot = match args.required("snapshot")? {
            Value::String(text) => core_api::parse_snapshot(text)?,
            other => other.clone(),
        };
        let engine = snapshot.get("engine").and_then(Value::as_str).unwrap_or("");
        let (kind, session) = if engine == "PyramidRun" || engine == "PyramidPolicyRun" {
            ("pyramid", Session::Pyramid(Box::new(LiveRun::from_snapshot(&snapshot)?)))
        } else {
            ("loop", Session::Loop(Box::new(EarlyStopping::from_snapshot(&snapshot)?)))
        };
        let id = self.new_id(kind);
        self.insert(&id, session)?;
        Ok(Value::object(vec![("session", Value::string(id)), ("engine", Value::string(kind))]))
    }

    fn pyramid_start(&self, args: &Args) -> Result<Value, Failure> {
        let preset = args.string("preset")?.unwrap_or_else(|| "default".into());
        let config = ExitConfig::preset_named(&preset, "preset")?;
        let config = match args.get("config") {
            Some(partial) => config.merged(partial, NAMING, "config", ErrorCode::InvalidConfig)?,
            None => config,
        };
        let layers = args.required("layers")?;
        let total = match args.get("total_layers") {
            Some(total) => total.clone(),
            None => match layers {
                Value::Array(items) => Value::Number(items.len() as f64),
                _ => Value::Number(0.0),
            },
        };
        // mode 'shadow': the ADR's exit decision never exits; its would-be exit is a receipt.
        let mut options = Vec::new();
        for (arg, key) in [("mode", "mode"), ("run_id", "runId"), ("label", "label")] {
            if let Some(value) = args.get(arg) {
                options.push((key, value.clone()));
            }
        }
        let options = if options.is_empty() { Value::Null } else { Value::object(options) };
        let run = LiveRun::start_value(&config.to_value(NAMING), &total, layers, &options, &Value::Null, NAMING)
            .map_err(|e| match e.field() {
                "runId" => rename_field(e, "runId", "run_id"),
                _ => rename_field(e, "totalLayers", "total_layers"),
            })?;
        let next = step_value(&run);
        let id = self.new_id("pyramid");
        self.insert(&id, Session::Pyramid(Box::new(run)))?;
        Ok(Value::object(vec![("session", Value::string(id)), ("next", next)]))
    }

    fn pyramid_submit(&self, args: &Args, call: &Call) -> Result<Value, Failure> {
        let id = args.session()?;
        let layer = args.required("layer")?.clone();
        let junit_paths = args.strings("junit")?;
        // One of them (the tool's rules).
        let result = match args.get("result") {
            Some(result) => result.clone(),
            None => junit_result(args, &junit_paths, call)?,
        };
        self.with_session(&id, |session| {
            let Session::Pyramid(run) = session else {
                return Err(wrong_session(&id, EngineKind::Pyramid));
            };
            let layer = match &layer {
                Value::String(name) => Value::Number(run.layer_named(name)? as f64),
                other => other.clone(),
            };
            let decision = run.submit_value(&layer, &result, NAMING)?;
            let index = layer.as_f64().unwrap_or(0.0) as usize;
            Ok(Value::object(vec![
                ("layer", Value::Number(index as f64)),
                ("name", Value::string(run.layers().get(index).map_or("", |l| l.name.as_str()))),
                ("result", result.clone()),
                ("decision", decision.as_ref().map_or(Value::Null, |d| d.to_value(NAMING))),
                ("next", step_value(run)),
            ]))
        })
    }

    /// The session's TestPyramidResult; with `store`, its shadow receipts appended to `log`
    /// and the run merged into `merge_model` (`store_tools::result_to_store`), answered under
    /// `stored`.
    fn pyramid_result(&self, args: &Args, call: &Call) -> Result<Value, Failure> {
        let id = args.session()?;
        let (value, shadow) = self.with_session(&id, |session| match session {
            Session::Pyramid(run) => {
                let shadow = run.result()?.shadow;
                Ok((run.result_value(NAMING)?, shadow))
            }
            _ => Err(wrong_session(&id, EngineKind::Pyramid)),
        })?;
        match store_tools::result_to_store(args, call, shadow.as_ref(), &value)? {
            Some(stored) => match value {
                Value::Object(mut entries) => {
                    entries.push(("stored".into(), stored));
                    Ok(Value::Object(entries))
                }
                other => Ok(other),
            },
            None => Ok(value),
        }
    }
}

/// Flags mean nothing to an MCP client: keep the core's field.
fn strip_flag(failure: Failure) -> Failure {
    match failure {
        Failure::Core { error, file, .. } => Failure::Core { error, flag: None, file },
        other => other,
    }
}

fn rename_field(e: core_api::CoreError, from: &str, to: &str) -> Failure {
    Failure::core(core_api::respelled(e, from, to))
}

fn wrong_session(id: &str, wanted: EngineKind) -> Failure {
    Failure::core(wording::wrong_session(id, wanted))
}

fn step_value(run: &LiveRun) -> Value {
    let action = run.next();
    let mut doc = core_api::action_value(action);
    if let core_api::Action::Run(i) | core_api::Action::Verify(i) = action {
        if let Value::Object(entries) = &mut doc {
            entries.push(("name".into(), Value::string(run.layers().get(i).map_or("", |l| l.name.as_str()))));
        }
    }
    doc
}

/// The keys of an iteration result `loop_record` takes: the core's result fields (but
/// `iteration_number`, which `iteration` gives) and the behaviour fields detector conditions
/// read, from the core's tables. `loop_record`'s completion signal is `done` (the name every
/// surface uses), or the record's own field `completed`.
fn result_keys() -> Vec<&'static str> {
    let mut keys: Vec<&'static str> =
        earlyexit::loops::RESULT_FIELDS.iter().map(|f| f.snake()).filter(|k| *k != "iteration_number").collect();
    keys.extend(earlyexit::loops::behavior::BehaviorIteration::result_fields().iter().map(|f| f.snake()));
    keys
}

/// Every tool with its input and output schemas (docs/cli.md, "MCP server"), from the table.
fn tools() -> Vec<Tool> {
    tools_table::rows().iter().map(tools_table::ToolRow::tool).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `loop_record` takes exactly the session, the iteration and the core's result fields.
    #[test]
    fn loop_record_takes_the_core_result_fields() {
        let mut listed = tools_table::row("loop_record").map(|r| r.known()).unwrap_or_default();
        let mut args = vec!["session", "iteration", DONE];
        args.extend(result_keys());
        listed.sort_unstable();
        args.sort_unstable();
        assert_eq!(listed, args);
        assert!(args.contains(&"tests_passing"));
    }
}
