//! The iteration's fingerprint: `git` hashes the worktree (SHA-256 of `HEAD`'s id, `git diff
//! --binary HEAD`, and the paths and contents of untracked files that are not ignored),
//! `message` the last assistant message, `none` nothing. Data is streamed into the hash,
//! never held whole.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use earlyexit_digest::Sha256Stream;

/// The fingerprint kinds (`--fingerprint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    Git,
    Message,
    None,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Git => "git",
            Kind::Message => "message",
            Kind::None => "none",
        }
    }
}

/// A git fingerprint and where it leaves the work.
pub struct GitState {
    pub sha256: String,
    pub head: Option<String>,
    pub dirty: bool,
}

fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    // No index.lock taken while the agent may be running git itself.
    command.current_dir(dir).env("GIT_OPTIONAL_LOCKS", "0").stdin(Stdio::null()).stderr(Stdio::null());
    command
}

/// Whether `dir` is inside a git worktree (false when git is missing).
pub fn in_worktree(dir: &Path) -> bool {
    git(dir)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"true"))
}

/// Runs git with `args`, feeding its standard output to `each` in pieces; fails on a
/// non-zero exit.
fn stream(dir: &Path, args: &[&str], mut each: impl FnMut(&[u8])) -> Result<(), String> {
    let mut child = git(dir).args(args).stdout(Stdio::piped()).spawn().map_err(|e| format!("cannot run git: {e}"))?;
    let mut out = child.stdout.take().ok_or("git gave no output pipe")?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match out.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => each(buf.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("reading git {}: {e}", args.join(" ")));
            }
        }
    }
    let status = child.wait().map_err(|e| format!("waiting for git: {e}"))?;
    if !status.success() {
        return Err(format!("git {} failed ({status})", args.join(" ")));
    }
    Ok(())
}

/// The git fingerprint of the worktree at `dir`.
pub fn git_state(dir: &Path) -> Result<GitState, String> {
    let mut hash = Sha256Stream::new();
    let head =
        git(dir).args(["rev-parse", "--verify", "-q", "HEAD"]).output().map_err(|e| format!("cannot run git: {e}"))?;
    let head = head.status.success().then(|| String::from_utf8_lossy(&head.stdout).trim().to_string());
    hash.update(b"head\0");
    hash.update(head.as_deref().unwrap_or("").as_bytes());
    hash.update(b"\0diff\0");
    let mut diff_bytes = 0u64;
    let mut feed = |bytes: &[u8]| {
        diff_bytes += bytes.len() as u64;
        hash.update(bytes);
    };
    match &head {
        Some(_) => stream(dir, &["diff", "--binary", "--no-ext-diff", "--no-color", "HEAD"], &mut feed)?,
        // No commit yet: what is staged, then what is not.
        None => {
            stream(dir, &["diff", "--binary", "--no-ext-diff", "--no-color", "--cached"], &mut feed)?;
            stream(dir, &["diff", "--binary", "--no-ext-diff", "--no-color"], &mut feed)?;
        }
    }
    hash.update(b"\0untracked\0");
    let mut untracked = 0u64;
    let mut child = git(dir)
        .args(["ls-files", "--others", "--exclude-standard", "-z"])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let out = child.stdout.take().ok_or("git gave no output pipe")?;
    let mut paths = BufReader::new(out);
    let mut path = Vec::new();
    let mut failure = None;
    loop {
        path.clear();
        match paths.read_until(0, &mut path) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                failure = Some(format!("reading git ls-files: {e}"));
                break;
            }
        }
        if path.last() == Some(&0) {
            path.pop();
        }
        untracked += 1;
        hash.update(&path);
        hash.update(b"\0");
        let name = String::from_utf8_lossy(&path).into_owned();
        hash_file(&dir.join(&name), &mut hash);
        hash.update(b"\0");
    }
    if failure.is_some() {
        let _ = child.kill();
    }
    let status = child.wait().map_err(|e| format!("waiting for git: {e}"))?;
    if let Some(failure) = failure {
        return Err(failure);
    }
    if !status.success() {
        return Err(format!("git ls-files failed ({status})"));
    }
    Ok(GitState { sha256: hash.finish_hex(), head, dirty: diff_bytes > 0 || untracked > 0 })
}

/// Feeds a file's contents (a symbolic link's target; a file that vanished or cannot be
/// read feeds a marker, so it still differs from an empty one).
fn hash_file(path: &Path, hash: &mut Sha256Stream) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            hash.update(b"link\0");
            if let Ok(target) = std::fs::read_link(path) {
                hash.update(target.to_string_lossy().as_bytes());
            }
        }
        Ok(meta) if meta.is_file() => match std::fs::File::open(path) {
            Ok(mut file) => {
                hash.update(b"file\0");
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    match file.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => hash.update(buf.get(..n).unwrap_or_default()),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => {
                            hash.update(b"\0unreadable");
                            break;
                        }
                    }
                }
            }
            Err(_) => hash.update(b"unreadable\0"),
        },
        _ => hash.update(b"other\0"),
    }
}

/// The message fingerprint: SHA-256 of the text.
pub fn message(text: &str) -> String {
    earlyexit_digest::sha256_hex(text.as_bytes())
}
