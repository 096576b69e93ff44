//! The MCP server's root directories: every path a tool argument names is confined to them.
//! They are, in this order of precedence, the `--root DIR` flags; else the client's MCP roots
//! (`roots/list`), when the client declares the `roots` capability; else the working
//! directory, unless it is `/` or the home directory (a desktop client starts servers in
//! `/`), in which case the server has no root and refuses every path (naming `--root`).
//!
//! A path is resolved with its symbolic links followed (`canonicalize`; for a file to write,
//! its directory) and refused unless it lies in a root. A relative path is taken from the
//! first root. A file is written through a temporary file in the same (resolved) directory,
//! renamed over the destination, and never when the destination is a symbolic link, so a
//! write cannot leave the roots nor replace a link. Refusals are the core's errors (code
//! `invalid_config`, field the argument).

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{Peer, RoleServer};

use crate::mcp::wording;
use crate::output::Failure;

/// The tool arguments that name files (read or written), anywhere in a tool's arguments:
/// a call with none of them never asks the client for its roots.
pub const PATH_ARGUMENTS: [&str; 8] =
    ["junit", "coverage_xml", "paths", "path", "outcomes", "out", "model_out", "store"];

/// How long the server waits for the client's answer to `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a server's roots come from (fixed when it starts, but the client's, which are asked
/// for when a call first needs them and again after `notifications/roots/list_changed`).
pub struct Roots {
    /// The `--root` directories, resolved.
    flags: Vec<PathBuf>,
    /// The working directory, when it may serve as the root.
    cwd: Option<PathBuf>,
    /// The client's roots, once asked for.
    client: Mutex<Option<Arc<RootSet>>>,
}

/// The directories paths are confined to; none means every path is refused.
#[derive(Debug, Default)]
pub struct RootSet {
    dirs: Vec<PathBuf>,
}

fn input(path: &str, message: impl std::fmt::Display) -> Failure {
    Failure::Input { path: path.to_string(), message: message.to_string() }
}

fn utf8(path: &Path) -> Result<String, Failure> {
    path.to_str().map(str::to_string).ok_or_else(|| input(&path.display().to_string(), "the path is not UTF-8"))
}

impl Roots {
    /// The roots of a server started with `flags` (`--root`, each an existing directory) in
    /// the current working directory.
    pub fn new(flags: &[String]) -> Result<Self, Failure> {
        let mut dirs = Vec::with_capacity(flags.len());
        for flag in flags {
            let dir = std::fs::canonicalize(flag).map_err(|e| Failure::Usage(format!("--root {flag}: {e}")))?;
            if !dir.is_dir() {
                return Err(Failure::Usage(format!("--root {flag}: not a directory")));
            }
            dirs.push(dir);
        }
        let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok().filter(|dir| !is_home_or_root(dir));
        Ok(Roots { flags: dirs, cwd, client: Mutex::new(None) })
    }

    /// Forgets the client's roots (they changed); the next call that needs them asks again.
    pub fn client_roots_changed(&self) {
        if let Ok(mut client) = self.client.lock() {
            *client = None;
        }
    }

    /// The roots for a call from `peer`: the flags', else the client's (asked for once and
    /// kept), else the working directory, else none. Roots are deprecated in the newest
    /// protocol drafts, not removed: clients still offer them, and rmcp still asks for them.
    #[allow(deprecated)]
    pub async fn for_call(&self, peer: &Peer<RoleServer>) -> Result<Arc<RootSet>, Failure> {
        if !self.flags.is_empty() {
            return Ok(Arc::new(RootSet { dirs: self.flags.clone() }));
        }
        let offers_roots = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if !offers_roots {
            return Ok(Arc::new(RootSet { dirs: self.cwd.iter().cloned().collect() }));
        }
        if let Some(known) = self.client.lock().ok().and_then(|c| c.clone()) {
            return Ok(known);
        }
        let asked = tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await;
        let listed = match asked {
            Ok(Ok(listed)) => listed,
            Ok(Err(e)) => return Err(Failure::Internal(format!("asking the client for its roots (roots/list): {e}"))),
            Err(_) => {
                return Err(Failure::Internal(format!(
                    "asking the client for its roots (roots/list): no answer in {} s",
                    ROOTS_TIMEOUT.as_secs()
                )))
            }
        };
        // A root that is not a local directory (another URI scheme, a directory that does not
        // exist here) confines nothing and is left out.
        let dirs = listed
            .roots
            .iter()
            .filter_map(|root| file_uri_path(&root.uri))
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .filter(|dir| dir.is_dir())
            .collect();
        let set = Arc::new(RootSet { dirs });
        if let Ok(mut client) = self.client.lock() {
            *client = Some(set.clone());
        }
        Ok(set)
    }
}

/// `/` or the home directory: too wide to be a root by default.
fn is_home_or_root(dir: &Path) -> bool {
    if dir.parent().is_none() {
        return true;
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
    home.and_then(|h| std::fs::canonicalize(h).ok()).is_some_and(|home| home == dir)
}

/// The local path of a `file://` URI (`file:///home/me/project`, `file://localhost/...`),
/// percent-decoded; `None` for any other URI.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(rest).decode_utf8().ok()?;
    // Windows: file:///C:/dir is the path C:/dir.
    #[cfg(windows)]
    let decoded = {
        let text = decoded.into_owned();
        let drive = text.get(1..3).is_some_and(|d| d.ends_with(':'));
        if drive {
            text.get(1..).unwrap_or_default().to_string()
        } else {
            text
        }
    };
    Some(PathBuf::from(&*decoded))
}

/// `path` with `.` and `..` taken out without touching the file system (for a path that
/// does not exist, whose error must still say where it points).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl RootSet {
    /// Roots given directly (tests).
    #[cfg(test)]
    fn of(dirs: Vec<PathBuf>) -> Self {
        RootSet { dirs }
    }

    fn refuse(&self, field: &str, path: &str, resolved: &Path) -> Failure {
        let roots: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
        let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
        Failure::core(wording::path_outside_roots(field, path, &resolved.display().to_string(), &roots))
    }

    fn inside(&self, path: &Path) -> bool {
        self.dirs.iter().any(|root| path.starts_with(root))
    }

    /// `path` as given, absolute: a relative one is taken from the first root.
    fn absolute(&self, field: &str, path: &str) -> Result<PathBuf, Failure> {
        let first = self.dirs.first().ok_or_else(|| Failure::core(wording::path_without_root(field, path)))?;
        Ok(first.join(path))
    }

    /// The file to read for argument `field`: its resolved path (symbolic links followed),
    /// refused when outside every root. A file that does not exist is an input error.
    pub fn read(&self, field: &str, path: &str) -> Result<String, Failure> {
        let absolute = self.absolute(field, path)?;
        match std::fs::canonicalize(&absolute) {
            Ok(resolved) if self.inside(&resolved) => utf8(&resolved),
            Ok(resolved) => Err(self.refuse(field, path, &resolved)),
            Err(_) if !self.inside(&lexical(&absolute)) => Err(self.refuse(field, path, &lexical(&absolute))),
            Err(e) => Err(input(path, e)),
        }
    }

    /// Each of `paths` (argument `field`, an array) resolved for reading.
    pub fn read_all(&self, field: &str, paths: &[String]) -> Result<Vec<String>, Failure> {
        paths.iter().enumerate().map(|(i, p)| self.read(&format!("{field}[{i}]"), p)).collect()
    }

    /// The file to write for argument `field`: its directory resolved and inside a root, the
    /// file itself not a symbolic link.
    pub fn write(&self, field: &str, path: &str) -> Result<WriteTarget, Failure> {
        let absolute = self.absolute(field, path)?;
        let (Some(dir), Some(name)) = (absolute.parent(), absolute.file_name()) else {
            return Err(input(path, "names no file"));
        };
        let dir = match std::fs::canonicalize(dir) {
            Ok(dir) => dir,
            Err(_) if !self.inside(&lexical(dir)) => return Err(self.refuse(field, path, &lexical(&absolute))),
            Err(e) => return Err(input(path, format!("its directory: {e}"))),
        };
        let destination = dir.join(name);
        if !self.inside(&destination) {
            return Err(self.refuse(field, path, &destination));
        }
        let target = WriteTarget { field: field.to_string(), given: path.to_string(), dir, destination };
        target.check_not_a_link()?;
        Ok(target)
    }
}

/// A file to write, resolved inside the roots.
#[derive(Debug)]
pub struct WriteTarget {
    field: String,
    given: String,
    dir: PathBuf,
    destination: PathBuf,
}

impl WriteTarget {
    /// The file to write, resolved (its directory inside a root).
    pub fn path(&self) -> &Path {
        &self.destination
    }

    fn check_not_a_link(&self) -> Result<(), Failure> {
        match std::fs::symlink_metadata(&self.destination) {
            Ok(meta) if meta.file_type().is_symlink() => {
                Err(Failure::core(wording::path_is_symlink(&self.field, &self.given)))
            }
            _ => Ok(()),
        }
    }

    /// Writes `text` and a newline: a temporary file created in the resolved directory
    /// (`O_CREAT | O_EXCL`: never through a link), flushed, checked again that the destination
    /// is no link, and renamed over it. Whole or not at all.
    pub fn write(&self, text: &str) -> Result<(), Failure> {
        let internal =
            |what: &str, e: std::io::Error| Failure::Internal(format!("{what} {}: {e}", self.destination.display()));
        let mut builder = tempfile::Builder::new();
        builder.prefix(".earlyexit-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o644));
        }
        let mut tmp = builder.tempfile_in(&self.dir).map_err(|e| internal("creating a temporary file beside", e))?;
        tmp.write_all(text.as_bytes()).map_err(|e| internal("writing", e))?;
        tmp.write_all(b"\n").map_err(|e| internal("writing", e))?;
        tmp.as_file().sync_all().map_err(|e| internal("flushing", e))?;
        // Checked again just before the rename (a link may have appeared while writing); the
        // temporary file is removed when `tmp` drops.
        self.check_not_a_link()?;
        tmp.persist(&self.destination).map_err(|e| internal("renaming over", e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(failure: &Failure) -> (String, String) {
        match failure {
            Failure::Core { error, .. } => (error.code().to_string(), error.field().to_string()),
            Failure::Input { .. } => ("input".into(), String::new()),
            other => (format!("{other:?}"), String::new()),
        }
    }

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(file_uri_path("file:///home/me/a%20b"), Some(PathBuf::from("/home/me/a b")));
        assert_eq!(file_uri_path("file://localhost/srv"), Some(PathBuf::from("/srv")));
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file://server/share"), None);
    }

    #[test]
    fn no_root_refuses_every_path_naming_the_flag() {
        let none = RootSet::default();
        let e = none.read("junit[0]", "r.xml").unwrap_err();
        assert_eq!(field_of(&e), ("invalid_config".into(), "junit[0]".into()));
        assert!(e.to_text().contains("--root"), "{}", e.to_text());
        assert!(none.write("out", "/tmp/x.json").is_err());
    }

    #[test]
    fn paths_are_confined_to_the_roots() {
        let base = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(base.path()).unwrap().join("root");
        let outside = root.parent().unwrap().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("in.txt"), "in").unwrap();
        std::fs::write(outside.join("secret.txt"), "secret").unwrap();
        let set = RootSet::of(vec![root.clone()]);
        // Relative paths are taken from the first root.
        assert_eq!(set.read("path", "in.txt").unwrap(), root.join("in.txt").to_str().unwrap());
        for escape in ["../outside/secret.txt", "../outside/missing.txt", outside.join("secret.txt").to_str().unwrap()]
        {
            let e = set.read("path", escape).unwrap_err();
            assert_eq!(field_of(&e), ("invalid_config".into(), "path".into()), "{escape}");
            let e = set.write("out", escape).unwrap_err();
            assert_eq!(field_of(&e), ("invalid_config".into(), "out".into()), "{escape}");
        }
        assert_eq!(field_of(&set.read("path", "missing.txt").unwrap_err()).0, "input");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link.txt")).unwrap();
            std::os::unix::fs::symlink(&outside, root.join("dir")).unwrap();
            assert_eq!(field_of(&set.read("path", "link.txt").unwrap_err()).1, "path");
            assert_eq!(field_of(&set.write("out", "dir/new.json").unwrap_err()).1, "out");
            // A link inside the root to a file inside the root: read it, never write over it.
            std::os::unix::fs::symlink(root.join("in.txt"), root.join("alias.txt")).unwrap();
            assert!(set.read("path", "alias.txt").is_ok());
            let e = set.write("out", "alias.txt").unwrap_err();
            assert!(e.to_text().contains("symbolic link"), "{}", e.to_text());
            assert_eq!(std::fs::read_to_string(root.join("in.txt")).unwrap(), "in");
        }
        set.write("out", "new.json").unwrap().write("{}").unwrap();
        assert_eq!(std::fs::read_to_string(root.join("new.json")).unwrap(), "{}\n");
        assert_eq!(std::fs::read_to_string(outside.join("secret.txt")).unwrap(), "secret");
    }
}
