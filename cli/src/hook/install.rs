//! `--install` / `--uninstall`: the hook's entry in Claude Code's settings
//! (`.claude/settings.json`, or `--settings PATH`), merged with what is there: a backup
//! first, keys kept in their order, a file that is not a JSON object refused unchanged.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::core_api::{self, Value};
use crate::output::{code, Failure};

use super::ClaudeCodeArgs;

/// The events the hook is installed for.
const STOP: &str = "Stop";
const SUBAGENT_STOP: &str = "SubagentStop";
/// Seconds Claude Code gives the hook beyond the check's timeout.
const HOOK_TIMEOUT_MARGIN: f64 = 60.0;
/// The line `--install` adds to `.git/info/exclude`.
const EXCLUDE_LINE: &str = "/.earlyexit/";

fn quote(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_alphanumeric() || b"_./:=,@%+-".contains(&b));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// The command line Claude Code runs: this subcommand with the options given.
fn hook_command(args: &ClaudeCodeArgs) -> String {
    let mut words = vec!["earlyexit".to_string(), "hook".to_string(), "claude-code".to_string()];
    let mut push = |flag: &str, value: Option<String>| {
        if let Some(value) = value {
            words.push(flag.to_string());
            words.push(quote(&value));
        }
    };
    push("--dir", args.dir.as_ref().map(|d| d.to_string_lossy().into_owned()));
    push("--fingerprint", args.fingerprint.map(|k| k.as_str().to_string()));
    push("--check", args.check.clone());
    push("--check-timeout", args.check_timeout.clone());
    push("--junit", args.junit.clone());
    push("--promise", args.promise.clone());
    push("--policy", args.policy.clone());
    push("--preset", args.preset.clone());
    push("--max-iterations", args.max_iterations.clone());
    push("--max-cost-usd", args.max_cost_usd.clone());
    push("--max-tokens", args.max_tokens.clone());
    push("--usd-per-mtok", args.usd_per_mtok.clone());
    push("--prompt", args.prompt.clone());
    words.join(" ")
}

/// Whether a hook entry is this hook's: its command runs `earlyexit hook claude-code`.
fn is_ours(hook: &Value) -> bool {
    let Some(command) = hook.get("command").and_then(Value::as_str) else { return false };
    let mut words = command.split_whitespace();
    let program = words.next().unwrap_or("");
    let name = program.rsplit('/').next().unwrap_or(program);
    name == "earlyexit" && words.next() == Some("hook") && words.next() == Some("claude-code")
}

fn refuse(path: &Path, message: impl Into<String>) -> Failure {
    Failure::Input { path: path.display().to_string(), message: message.into() }
}

/// Removes this hook's entries from `hooks[event]`; whether one was removed. A group left
/// empty goes, and so does the event's list.
fn remove_ours(hooks: &mut Vec<(String, Value)>, event: &str, path: &Path) -> Result<bool, Failure> {
    let Some(index) = hooks.iter().position(|(k, _)| k == event) else { return Ok(false) };
    let Some((_, Value::Array(groups))) = hooks.get_mut(index) else {
        return Err(refuse(path, format!("hooks.{event} is not an array; the file is left as it is")));
    };
    let mut removed = false;
    groups.retain_mut(|group| {
        let Value::Object(entries) = group else { return true };
        let Some((_, Value::Array(list))) = entries.iter_mut().find(|(k, _)| k == "hooks") else { return true };
        let before = list.len();
        list.retain(|h| !is_ours(h));
        if list.len() == before {
            return true;
        }
        removed = true;
        !list.is_empty()
    });
    if removed && groups.is_empty() {
        hooks.remove(index);
    }
    Ok(removed)
}

fn settings_path(args: &ClaudeCodeArgs) -> PathBuf {
    args.settings.clone().unwrap_or_else(|| PathBuf::from(".claude").join("settings.json"))
}

pub fn run(args: &ClaudeCodeArgs) -> Result<u8, Failure> {
    if args.install {
        super::options(args).map_err(Failure::Usage)?;
    }
    let path = settings_path(args);
    let original = match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(refuse(&path, e.to_string())),
    };
    let mut root = match &original {
        None => Vec::new(),
        Some(bytes) => {
            let text =
                std::str::from_utf8(bytes).map_err(|_| refuse(&path, "not UTF-8 text; the file is left as it is"))?;
            let value = if text.trim().is_empty() {
                Value::Object(Vec::new())
            } else {
                core_api::parse_json(text, "invalid_config", "settings")
                    .map_err(|e| refuse(&path, format!("{}; the file is left as it is", e.message())))?
            };
            match value {
                Value::Object(entries) => entries,
                _ => return Err(refuse(&path, "is not a JSON object; the file is left as it is")),
            }
        }
    };
    let hooks_index = root.iter().position(|(k, _)| k == "hooks");
    let mut hooks = match hooks_index.and_then(|i| root.get(i)).map(|(_, v)| v.clone()) {
        None => Vec::new(),
        Some(Value::Object(entries)) => entries,
        Some(_) => return Err(refuse(&path, "its hooks key is not an object; the file is left as it is")),
    };
    let mut removed = false;
    for event in [STOP, SUBAGENT_STOP] {
        removed |= remove_ours(&mut hooks, event, &path)?;
    }
    let command = hook_command(args);
    if args.install {
        let mut entry = vec![("type", Value::string("command")), ("command", Value::string(command.as_str()))];
        if args.check.is_some() {
            let check = super::options(args).map_err(Failure::Usage)?.check_timeout.as_secs_f64();
            entry.push(("timeout", Value::Number((check + HOOK_TIMEOUT_MARGIN).ceil())));
        }
        let group = Value::object(vec![("hooks", Value::Array(vec![Value::object(entry)]))]);
        let events: &[&str] = if args.subagents { &[STOP, SUBAGENT_STOP] } else { &[STOP] };
        for event in events {
            match hooks.iter_mut().find(|(k, _)| k == event) {
                Some((_, Value::Array(groups))) => groups.push(group.clone()),
                Some(_) => {
                    return Err(refuse(&path, format!("hooks.{event} is not an array; the file is left as it is")))
                }
                None => hooks.push((event.to_string(), Value::Array(vec![group.clone()]))),
            }
        }
    } else if !removed {
        println!("{}: no earlyexit hook to remove; the file is left as it is", path.display());
        return Ok(code::GO_ON);
    }
    match hooks_index {
        Some(i) if hooks.is_empty() && !args.install => {
            root.remove(i);
        }
        Some(i) => {
            if let Some(slot) = root.get_mut(i) {
                slot.1 = Value::Object(hooks);
            }
        }
        None => root.push(("hooks".to_string(), Value::Object(hooks))),
    }
    let text = pretty(&Value::Object(root));
    if let Some(bytes) = &original {
        let backup = backup_path(&path);
        std::fs::write(&backup, bytes)
            .map_err(|e| Failure::Internal(format!("writing the backup {}: {e}", backup.display())))?;
    } else if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::Internal(format!("creating {}: {e}", parent.display())))?;
    }
    crate::state::write_atomic(&path, &text)?;
    if args.install {
        if args.dir.is_none() {
            exclude_state_dir();
        }
        println!("{}: the Stop hook runs `{command}`", path.display());
    } else {
        println!("{}: the earlyexit hook was removed", path.display());
    }
    Ok(code::GO_ON)
}

/// The backup beside the settings file.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".earlyexit-backup");
    path.with_file_name(name)
}

/// Adds the state directory to `.git/info/exclude` when the working directory is in a git
/// worktree (a failure is only reported: the directory's own .gitignore ignores it anyway).
fn exclude_state_dir() {
    let Ok(out) = Command::new("git")
        .args(["rev-parse", "--git-path", "info/exclude"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    else {
        return;
    };
    if !out.status.success() {
        return;
    }
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    if existing.lines().any(|l| l.trim() == EXCLUDE_LINE) {
        return;
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(EXCLUDE_LINE);
    text.push('\n');
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("earlyexit: could not add {EXCLUDE_LINE} to {}: {e}", path.display());
    }
}

/// JSON with two-space indents, keys in their order (as Claude Code writes settings).
pub fn pretty(value: &Value) -> String {
    let mut out = String::new();
    write_pretty(value, 0, &mut out);
    out
}

fn write_pretty(value: &Value, depth: usize, out: &mut String) {
    let indent = |n: usize| "  ".repeat(n);
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&indent(depth + 1));
                write_pretty(item, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&indent(depth));
            out.push(']');
        }
        Value::Object(entries) if !entries.is_empty() => {
            out.push_str("{\n");
            for (i, (key, item)) in entries.iter().enumerate() {
                out.push_str(&indent(depth + 1));
                out.push_str(&Value::string(key.as_str()).to_json());
                out.push_str(": ");
                write_pretty(item, depth + 1, out);
                out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
            }
            out.push_str(&indent(depth));
            out.push('}');
        }
        other => out.push_str(&other.to_json()),
    }
}
