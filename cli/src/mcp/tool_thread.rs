//! Where a tool runs: on a blocking thread of the server's runtime, with a stack sized for
//! the documented limits, and with a panic (a bug) turned into a typed tool error, so the
//! server, and every other session in it, goes on.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::output::Failure;

/// Each tool thread's stack: 64 MiB. The deepest work a tool does on valid input walks a
/// document of 256 nested levels (the core's document depth) a few times over (reading,
/// converting, writing); a JUnit report's elements nest as deep as the file says. At about
/// 2 KB a level, 64 MiB holds 30,000 levels; the default 2 MiB stack overflowed (which aborts
/// the process, losing every session) on a report nested 10,000 deep.
pub const TOOL_STACK_BYTES: usize = 64 << 20;

/// Tools running at once (more wait): their stacks are address space the process holds
/// while they run (8 × 64 MiB).
pub const MAX_TOOL_THREADS: usize = 8;

/// Runs a tool's body; a panic becomes an `internal` failure naming the tool. The release
/// builds unwind (no `panic = "abort"` in the command's profiles), so this catches.
pub fn contained<T>(tool: &str, body: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(outcome) => outcome,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            super::transport::log(&format!("the tool {tool} panicked: {what}"));
            Err(Failure::Internal(format!(
                "the tool {tool} failed: {what} (a bug in the server; its other sessions are intact)"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    fn server() -> Server {
        Server {
            sessions: Arc::new(Mutex::new(HashMap::new())),
            next_id: Arc::new(AtomicU64::new(1)),
            closed: Arc::new(AtomicBool::new(false)),
            tools: Arc::new(tools()),
            roots: Arc::new(Roots::new(&[]).unwrap_or_else(|e| panic!("roots: {e:?}"))),
        }
    }

    /// One call with no roots and no cancellation; the answer's value.
    fn call(server: &Server, tool: &str, args: Value) -> Result<Value, Failure> {
        let call = Call { roots: Arc::new(RootSet::default()), stop: Box::new(|| false) };
        match server.call(tool, args, &call)? {
            Answer::Whole(value) | Answer::Listing(value) => Ok(value),
            Answer::Replay(_) => panic!("{tool}: a replay answer"),
        }
    }

    fn args(text: &str) -> Value {
        core_api::parse_json(text, "invalid_config", "arguments").unwrap_or(Value::Null)
    }

    /// A tool that panics while it holds the session table: a typed tool error, and the other
    /// sessions still answer (before: the table stayed poisoned and every later call failed).
    #[test]
    fn a_panic_in_a_tool_is_a_typed_error_and_the_other_sessions_go_on() {
        let server = server();
        let started = call(&server, "loop_start", args("{}"));
        let first = match started.as_ref().map(|v| v.get("session")) {
            Ok(Some(Value::String(id))) => id.clone(),
            other => panic!("loop_start: {other:?}"),
        };
        let second = call(&server, "loop_start", args("{}"));
        assert!(second.is_ok());
        let outcome: Result<(), Failure> = contained("loop_record", || server.with_session(&first, |_| panic!("boom")));
        match outcome {
            Err(Failure::Internal(message)) => {
                assert!(message.contains("the tool loop_record failed: boom"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        let decided = call(&server, "loop_decide", args(r#"{"session":"loop-2"}"#));
        assert!(decided.is_ok(), "{decided:?}");
        let again = call(&server, "loop_decide", args(&format!(r#"{{"session":"{first}"}}"#)));
        assert!(again.is_ok(), "{again:?}");
    }
}
