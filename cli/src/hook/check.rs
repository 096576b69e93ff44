//! `--check CMD`: the user's own command, run in the project by `sh -c` in a process group
//! of its own, killed with its whole group when it outlives `--check-timeout`. Its output
//! goes to a temporary file (never to the hook's standard output, which Claude Code reads).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Bytes of the check's output kept for the continuation prompt (its end).
pub const OUTPUT_TAIL_BYTES: u64 = 1500;

/// How a check ended.
pub struct CheckRun {
    /// Exit 0.
    pub passed: bool,
    /// The exit code (`None`: ended by a signal).
    pub code: Option<i32>,
    /// The end of its output (standard output and error).
    pub tail: String,
}

/// Runs `command` in `dir`; an error when it cannot start or outlives `timeout` (its
/// process group is then killed).
pub fn run(command: &str, dir: &Path, timeout: Duration) -> Result<CheckRun, String> {
    let output = tempfile::tempfile().map_err(|e| format!("cannot make the check's output file: {e}"))?;
    let err = output.try_clone().map_err(|e| format!("cannot make the check's output file: {e}"))?;
    let mut process = Command::new("sh");
    process
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(output.try_clone().map_err(|e| e.to_string())?)
        .stderr(err);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        process.process_group(0);
    }
    let mut child = process.spawn().map_err(|e| format!("the check could not start: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                kill_group(&mut child);
                return Err(format!("waiting for the check: {e}"));
            }
        }
        if started.elapsed() >= timeout {
            kill_group(&mut child);
            return Err(format!(
                "the check ran longer than --check-timeout ({} s); its process group was killed",
                timeout.as_secs_f64()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ok(CheckRun { passed: status.success(), code: status.code(), tail: tail(output) })
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals the process group the child leads
            // (made with process_group(0)); no memory is touched.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn tail(mut file: std::fs::File) -> String {
    let len = file.seek(SeekFrom::End(0)).unwrap_or(0);
    let from = len.saturating_sub(OUTPUT_TAIL_BYTES);
    if file.seek(SeekFrom::Start(from)).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    let _ = file.take(OUTPUT_TAIL_BYTES).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}
