//! State files: read whole (up to the core's document limit), written atomically (a
//! temporary file in the same directory, flushed to disk, then renamed over the old one),
//! and changed only under an exclusive lock on a sibling `FILE.lock`, so two commands on one
//! state file never lose a record. The lock is on a sibling because the rename replaces the
//! state file itself; the lock file stays (empty) and may be deleted when nothing runs.
//!
//! A state path is resolved once, before anything is locked or renamed: its directory
//! canonicalized, then its last component followed while it is a symbolic link (a dangling
//! one included: its target becomes the state file). So every name of one file takes the
//! same lock and a rename replaces the file, never the link. The lock file is opened
//! without following a symbolic link, so it is never created through one.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use crate::core_api::{self, CoreError};
use crate::output::{with_file, Failure};

/// Symbolic links followed from one state path before giving up (Linux's own limit).
const MAX_LINK_HOPS: usize = 40;

/// An exclusive lock on a state file, held until dropped.
pub struct Locked {
    _lock: File,
    path: PathBuf,
    shown: String,
}

fn sibling(path: &Path, prefix: &str, suffix: &str) -> PathBuf {
    let mut name = std::ffi::OsString::from(prefix);
    name.push(path.file_name().unwrap_or_default());
    name.push(suffix);
    path.with_file_name(name)
}

fn lock_path(path: &Path) -> PathBuf {
    sibling(path, "", ".lock")
}

/// The one temporary file a locked write uses. Only the lock's holder writes it, so one
/// found when the lock is taken was left by a writer that died (`kill -9`): it is removed.
fn temporary_path(path: &Path) -> PathBuf {
    sibling(path, ".", ".earlyexit.tmp")
}

fn input(path: &Path, message: impl Into<String>) -> Failure {
    Failure::Input { path: path.display().to_string(), message: message.into() }
}

/// The file a state path names: its directory canonicalized, then its last component
/// followed while it is a symbolic link (a dangling one too: its target is the file to
/// create).
pub fn resolve(path: &Path) -> Result<PathBuf, Failure> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        let Some(name) = current.file_name().map(|n| n.to_os_string()) else {
            return Err(input(path, "not a file name"));
        };
        let parent = match current.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let parent = std::fs::canonicalize(&parent).map_err(|e| input(&parent, e.to_string()))?;
        let joined = parent.join(name);
        match std::fs::symlink_metadata(&joined) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&joined).map_err(|e| input(&joined, e.to_string()))?;
                current = parent.join(target); // an absolute target replaces the parent
            }
            _ => return Ok(joined),
        }
    }
    Err(input(path, "too many levels of symbolic links"))
}

/// Opens (creating it if needed) the lock file without following a symbolic link.
fn open_lock(lock_file: &Path) -> Result<File, Failure> {
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(lock_file).map_err(|e| {
        let link = std::fs::symlink_metadata(lock_file).is_ok_and(|m| m.file_type().is_symlink());
        if link {
            input(lock_file, "is a symbolic link; a lock file is never opened through one (remove it)")
        } else {
            input(lock_file, e.to_string())
        }
    })
}

/// Waits for the exclusive lock of `path` (std's `File::lock`: flock on Unix, LockFileEx on
/// Windows; released by the system when the process dies), then removes the temporary file
/// a writer that died left behind.
pub fn lock(path: &Path) -> Result<Locked, Failure> {
    let resolved = resolve(path)?;
    let lock_file = lock_path(&resolved);
    let file = open_lock(&lock_file)?;
    file.lock().map_err(|e| Failure::Internal(format!("locking {}: {e}", lock_file.display())))?;
    remove_if_present(&temporary_path(&resolved))?;
    Ok(Locked { _lock: file, path: resolved, shown: path.display().to_string() })
}

/// [`lock`] for a command that needs the state file to exist: a missing one is refused
/// before a lock file is made.
pub fn lock_existing(path: &Path, missing: &str) -> Result<Locked, Failure> {
    let resolved = resolve(path)?;
    if matches!(std::fs::symlink_metadata(&resolved), Err(e) if e.kind() == ErrorKind::NotFound) {
        return Err(input(path, missing));
    }
    lock(path)
}

fn remove_if_present(path: &Path) -> Result<(), Failure> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != ErrorKind::NotFound => {
            Err(Failure::Internal(format!("removing the stale {}: {e}", path.display())))
        }
        _ => Ok(()),
    }
}

impl Locked {
    /// The state's text, `None` when the file does not exist yet.
    pub fn read(&self) -> Result<Option<String>, Failure> {
        read_resolved(&self.path, &self.shown)
    }

    /// The state file this lock guards (resolved).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the state with `text` atomically, keeping an existing file's mode. A state
    /// that no reader could read back (over the core's document limit) is refused and the
    /// file is left as it was.
    pub fn write_state(&self, text: &str) -> Result<(), Failure> {
        // The file holds the text and a newline: both count toward the limit.
        core_api::check_snapshot_size(text.len() + 1).map_err(|e| with_file(e, &self.shown))?;
        self.write(text)
    }

    /// Replaces the file with `text` atomically, keeping an existing file's mode (a receipt
    /// log: not a snapshot, so no document limit).
    pub fn write(&self, text: &str) -> Result<(), Failure> {
        let tmp = temporary_path(&self.path);
        let result = write_temporary(&tmp, &self.path, text);
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

fn write_temporary(tmp: &Path, path: &Path, text: &str) -> Result<(), Failure> {
    let internal = |what: &str, e: std::io::Error| Failure::Internal(format!("{what} {}: {e}", tmp.display()));
    // A dead writer's temporary file was removed when the lock was taken; removing again
    // keeps `create_new` from failing on a name someone made meanwhile.
    remove_if_present(tmp)?;
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A new state file is an ordinary file (a CI artifact), not a secret: rw-r--r--
        // under the umask, as any file the user writes.
        options.mode(0o644).custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = options.open(tmp).map_err(|e| internal("creating", e))?;
    // An existing state file keeps its mode (a 0600 state stays private).
    if let Ok(meta) = std::fs::metadata(path) {
        file.set_permissions(meta.permissions()).map_err(|e| internal("setting the mode of", e))?;
    }
    file.write_all(text.as_bytes()).map_err(|e| internal("writing", e))?;
    file.write_all(b"\n").map_err(|e| internal("writing", e))?;
    file.sync_all().map_err(|e| internal("flushing", e))?;
    drop(file);
    std::fs::rename(tmp, path)
        .map_err(|e| Failure::Internal(format!("renaming {} over {}: {e}", tmp.display(), path.display())))
}

/// A state file's text without taking the lock (readers never see a half-written file:
/// writes are renames). `None` when it does not exist.
pub fn read(path: &Path) -> Result<Option<String>, Failure> {
    read_resolved(&resolve(path)?, &path.display().to_string())
}

/// Reads at most one byte more than the core's document limit: a longer file is refused
/// (`invalid_snapshot`) without being read whole.
fn read_resolved(path: &Path, shown: &str) -> Result<Option<String>, Failure> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Failure::Input { path: shown.to_string(), message: e.to_string() }),
    };
    let bytes = read_bounded(file, core_api::MAX_DOCUMENT_BYTES)
        .map_err(|e| Failure::Input { path: shown.to_string(), message: e.to_string() })?
        .ok_or_else(|| with_file(core_api::snapshot_too_large(), shown))?;
    core_api::snapshot_text(bytes).map(Some).map_err(|e| with_file(e, shown))
}

/// Reads all of `source` when it holds at most `limit` bytes; `None` (after reading
/// `limit + 1` bytes, no more) when it holds more.
pub fn read_bounded(source: impl Read, limit: usize) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    source.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() <= limit).then_some(bytes))
}

/// Writes `text` to `path` atomically: whole or not at all, never a truncated file.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), Failure> {
    let internal = |what: &str, e: std::io::Error| Failure::Internal(format!("{what} {}: {e}", path.display()));
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".earlyexit-").suffix(".tmp");
    // An ordinary file (a CI artifact), not a secret: rw-r--r-- under the umask, as any
    // file the user writes, not the temporary file's private 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let mut tmp = builder.tempfile_in(&dir).map_err(|e| internal("creating a temporary file beside", e))?;
    tmp.write_all(text.as_bytes()).map_err(|e| internal("writing", e))?;
    tmp.write_all(b"\n").map_err(|e| internal("writing", e))?;
    tmp.as_file().sync_all().map_err(|e| internal("flushing", e))?;
    tmp.persist(path).map_err(|e| internal("renaming over", e.error))?;
    Ok(())
}

/// Reads a whole input file (`-` = standard input) as UTF-8 text.
pub fn read_input(path: &str) -> Result<String, Failure> {
    let bytes = if path == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| Failure::Input { path: "-".into(), message: e.to_string() })?;
        buf
    } else {
        std::fs::read(path).map_err(|e| Failure::Input { path: path.to_string(), message: e.to_string() })?
    };
    String::from_utf8(bytes)
        .map_err(|e| Failure::Input { path: path.to_string(), message: format!("not UTF-8 text: {e}") })
}

/// A state file a command cannot read (`loop reset` moves it aside).
pub fn unreadable_path(path: &Path) -> PathBuf {
    sibling(path, "", ".unreadable")
}

/// Moves an unreadable state file aside (renamed to `FILE.unreadable`, replacing an
/// earlier one), under the lock.
pub fn move_aside(locked: &Locked) -> Result<PathBuf, Failure> {
    let to = unreadable_path(locked.path());
    std::fs::rename(locked.path(), &to)
        .map_err(|e| Failure::Internal(format!("moving {} aside: {e}", locked.path().display())))?;
    Ok(to)
}

/// The core error a failure carries, if any.
pub fn core_error(failure: &Failure) -> Option<&CoreError> {
    match failure {
        Failure::Core { error, .. } => Some(error),
        _ => None,
    }
}
