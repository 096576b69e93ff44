//! `--status`: a session's loop, iterations and last decision, read without the lock
//! (writes are renames, so a reader never sees half a file).

use std::path::{Path, PathBuf};

use crate::core_api::{self, Value};
use crate::output::{self, code, Answer, Failure};
use crate::state;

use super::session::{self, Session};
use super::ClaudeCodeArgs;

/// The newest state file in `dir` (by modification time).
fn newest(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max_by_key(|(time, _)| *time)
        .map(|(_, path)| path)
}

pub fn run(args: &ClaudeCodeArgs, json: bool) -> Result<u8, Failure> {
    let project = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let dir = super::state_dir(args, &project);
    let path = match &args.session {
        Some(id) => session::state_path(&dir, id, args.agent.as_deref()),
        None => newest(&dir).ok_or_else(|| Failure::Input {
            path: dir.display().to_string(),
            message: "no session state here yet (give --dir, or --session ID)".into(),
        })?,
    };
    let text = state::read(&path)?
        .ok_or_else(|| Failure::Input { path: path.display().to_string(), message: "no such session state".into() })?;
    let session =
        Session::from_text(&text).map_err(|message| Failure::Input { path: path.display().to_string(), message })?;
    let iterations = session.run.as_ref().map_or(0, |r| r.history().len());
    let decision = session.run.as_ref().and_then(|r| r.decision());
    let answered = session.to_value().ok().and_then(|v| v.get("answered").cloned()).unwrap_or(Value::Null);
    let best = session.run.as_ref().and_then(|r| r.best()).filter(|_| session.quality_known);
    let doc = Value::object(vec![
        ("session", Value::string(session.session.as_str())),
        ("agent", session.agent.as_deref().map_or(Value::Null, Value::string)),
        ("state", Value::string(path.display().to_string())),
        ("loop", Value::Number(session.loops as f64)),
        ("iterations", Value::Number(iterations as f64)),
        ("answered", answered.clone()),
        ("decision", decision.map_or(Value::Null, |d| d.to_value())),
        ("best_iteration", best.map_or(Value::Null, |b| Value::Number(b.iteration as f64))),
        ("tokens", Value::Number(session.tokens.total() as f64)),
        ("cost_usd", session.cost_usd.map_or(Value::Null, Value::Number)),
        ("files", Value::Array(session.files.iter().map(|f| Value::string(f.as_str())).collect())),
    ]);
    let mut human = format!(
        "session {}{}: loop {}, {} iterations; last answer: {}",
        session.session,
        session.agent.as_deref().map(|a| format!(" (agent {a})")).unwrap_or_default(),
        session.loops,
        iterations,
        answered.as_str().unwrap_or("none yet"),
    );
    if let Some(d) = decision {
        human.push_str(&format!(
            "\n  decision: {} ({}): {}",
            if d.stop { "stop" } else { "go on" },
            d.trigger.as_str(),
            d.reason
        ));
    }
    if let Some(b) = best {
        human.push_str(&format!("\n  best iteration: {} (quality {})", b.iteration, core_api::js_number(b.quality)));
    }
    human.push_str(&format!("\n  tokens: {}", session.tokens.total()));
    if let Some(cost) = session.cost_usd {
        human.push_str(&format!("; cost: {} USD", core_api::js_number(cost)));
    }
    output::print(&Answer { json: output::json(&doc), human, code: code::GO_ON }, json)?;
    Ok(code::GO_ON)
}
