//! Where a tool runs: on a thread of its own, with a stack sized for the documented limits,
//! at most [`MAX_TOOL_THREADS`] at once; a thread that cannot be made (no address space for
//! its stack) and a panic (a bug) are typed tool errors, so the server, and every other
//! session in it, goes on.

use std::panic::{catch_unwind, AssertUnwindSafe};

use tokio::sync::{oneshot, Semaphore};

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

/// The tool threads' places: a call waits for one.
static TOOL_THREADS: Semaphore = Semaphore::const_new(MAX_TOOL_THREADS);

/// Runs `body` on a new thread with `stack` bytes of stack (once fewer than
/// [`MAX_TOOL_THREADS`] tools run), [`contained`]; its outcome. A thread that cannot be made
/// is an `internal` failure naming the tool: the call is answered and the server goes on. A
/// call whose answer is no longer awaited (cancelled) leaves its thread to finish (its work
/// polls the call's stop) and hold its place until then.
pub async fn run<T: Send + 'static>(
    tool: &str,
    stack: usize,
    body: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> Result<T, Failure> {
    let place =
        TOOL_THREADS.acquire().await.map_err(|e| Failure::Internal(format!("the tool {tool} could not start: {e}")))?;
    let (answer, answered) = oneshot::channel();
    let name = tool.to_string();
    let spawned = std::thread::Builder::new().name(format!("tool {tool}")).stack_size(stack).spawn(move || {
        let _place = place;
        let _ = answer.send(contained(&name, body));
    });
    if let Err(e) = spawned {
        super::transport::log(&format!("the tool {tool} could not start: no thread with a {stack}-byte stack: {e}"));
        return Err(Failure::Internal(format!(
            "the tool {tool} could not start: the server could not make a thread with a {} MiB stack for it ({e}); \
             nothing was done, the server and its sessions go on (try again, or give the server more memory)",
            stack >> 20
        )));
    }
    answered.await.unwrap_or_else(|_| Err(Failure::Internal(format!("the tool {tool} ended without an answer"))))
}

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

    /// `loop_start` with `shadow`: decisions carry would_stop, `loop_finish` answers the
    /// receipt; without a cap in the loop's own config the shadow is refused.
    #[test]
    fn a_shadow_loop_session_gives_its_receipt() {
        let server = server();
        let shadow = r#""shadow":{"any":[{"condition":"max_iterations","limit":1}]}"#;
        let refused = call(&server, "loop_start", args(&format!("{{{shadow}}}")));
        assert!(matches!(&refused, Err(Failure::Core { error, .. }) if error.field() == "shadow"), "{refused:?}");
        let started = call(&server, "loop_start", args(&format!(r#"{{"config":{{"maxIterations":3}},{shadow}}}"#)));
        let id = match started.as_ref().map(|v| v.get("session")) {
            Ok(Some(Value::String(id))) => id.clone(),
            other => panic!("loop_start: {other:?}"),
        };
        let record =
            format!(r#"{{"session":"{id}","quality_score":50,"confidence":0.5,"verification_status":"passed"}}"#);
        let decided = call(&server, "loop_record", args(&record)).unwrap_or(Value::Null);
        let would = decided.get("decision").and_then(|d| d.get("would_stop")).or_else(|| decided.get("would_stop"));
        assert!(would.is_some(), "{decided:?}");
        let finished = call(&server, "loop_finish", args(&format!(r#"{{"session":"{id}","task":"t"}}"#)));
        let receipt = finished.ok().and_then(|v| v.get("receipt").cloned()).unwrap_or(Value::Null);
        assert_eq!(receipt.get("label").and_then(Value::as_str), Some("correct_stop"), "{receipt:?}");
        // loop_drift and loop_promote refuse another kind's artifact by kind.
        for tool in ["loop_drift", "loop_promote"] {
            let refused = call(&server, tool, args(r#"{"artifact":{"kind":"pyramid"},"runs":[]}"#));
            assert!(
                matches!(&refused, Err(Failure::Core { error, .. }) if error.field() == "kind"),
                "{tool}: {refused:?}"
            );
        }
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

    /// A tool thread that cannot be made (a stack bigger than the address space) is a typed
    /// tool error, and the next call runs (before: `spawn_blocking` panicked on the server's
    /// thread with "OS can't spawn worker thread", which ended the server).
    #[test]
    fn a_tool_thread_that_cannot_be_made_is_a_typed_error_and_the_next_call_runs() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| panic!("{e}"));
        let failed = runtime.block_on(run("loop_start", 1 << 50, || Ok(1)));
        match failed {
            Err(Failure::Internal(message)) => {
                assert!(message.contains("the tool loop_start could not start"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        let ran = runtime.block_on(run("loop_start", TOOL_STACK_BYTES, || Ok(2)));
        assert!(matches!(ran, Ok(2)), "{ran:?}");
        // A panic on the tool's thread is contained there.
        let panicked: Result<(), Failure> = runtime.block_on(run("loop_best", TOOL_STACK_BYTES, || panic!("boom")));
        assert!(matches!(panicked, Err(Failure::Internal(_))), "{panicked:?}");
    }
}
