//! State files: read whole, written atomically (a temporary file in the same directory,
//! flushed to disk, then renamed over the old one), and changed only under an exclusive lock
//! on a sibling `FILE.lock`, so two commands on one state file never lose a record. The lock
//! is on a sibling because the rename replaces the state file itself; the lock file stays
//! (empty) and may be deleted when nothing runs.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::output::Failure;

/// An exclusive lock on a state file, held until dropped.
pub struct Locked {
    _lock: File,
    path: PathBuf,
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// Waits for the exclusive lock of `path` (std's `File::lock`: flock on Unix, LockFileEx on
/// Windows; released by the system when the process dies).
pub fn lock(path: &Path) -> Result<Locked, Failure> {
    let lock_file = lock_path(path);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_file)
        .map_err(|e| Failure::Input { path: lock_file.display().to_string(), message: e.to_string() })?;
    file.lock().map_err(|e| Failure::Internal(format!("locking {}: {e}", lock_file.display())))?;
    Ok(Locked { _lock: file, path: path.to_path_buf() })
}

impl Locked {
    /// The state's text, `None` when the file does not exist yet.
    pub fn read(&self) -> Result<Option<String>, Failure> {
        read(&self.path)
    }

    /// Replaces the state atomically.
    pub fn write(&self, text: &str) -> Result<(), Failure> {
        write_atomic(&self.path, text)
    }
}

/// A state file's text without taking the lock (readers never see a half-written file:
/// writes are renames). `None` when it does not exist.
pub fn read(path: &Path) -> Result<Option<String>, Failure> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| Failure::Input { path: path.display().to_string(), message: format!("not UTF-8 text: {e}") }),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Failure::Input { path: path.display().to_string(), message: e.to_string() }),
    }
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
    // A state file is an ordinary file (a CI artifact), not a secret: rw-r--r-- under the
    // umask, as any file the user writes, not the temporary file's private 0600.
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
