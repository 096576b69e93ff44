//! What the MCP server says itself, on the core's `Error` (its codes and kinds): a tool's
//! arguments (missing, exclusive, needing another), its sessions kept by id, and the paths
//! it confines to its roots. What the libraries share (an unknown argument, one under
//! another spelling) the core words (`core_api::unknown_argument`, `core_api::respelled`).

use crate::core_api::{host_error, CoreError, ErrorCode, ErrorKind};

// ---- A tool's named arguments: code `invalid_config` naming the argument.

/// `key` is absent and `tool` requires it.
pub(crate) fn missing_argument(tool: &str, key: &str) -> CoreError {
    invalid_argument(key, format!("{key} is required by {tool}"))
}

/// `tool` takes exactly one of `names` (`a or b`, `a, b or c`), and got two of them (those
/// two named) or none (field the first named).
pub(crate) fn one_argument_of(tool: &str, names: &[&str]) -> CoreError {
    let field = names.first().copied().unwrap_or_default();
    let listed = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => field.to_string(),
    };
    invalid_argument(field, format!("{tool} takes {listed}, exactly one of them"))
}

/// `first` and `second` were both given, and only one of them may be (field `first`).
pub(crate) fn exclusive_arguments(first: &str, second: &str) -> CoreError {
    invalid_argument(first, format!("give {first} or {second}, not both"))
}

/// `key` was given without `needed`, the argument it goes with.
pub(crate) fn argument_needs(key: &str, needed: &str) -> CoreError {
    invalid_argument(key, format!("{key} needs {needed}"))
}

/// `key` lies outside what the tool takes (`message` says what it takes).
pub(crate) fn argument_out_of_range(key: &str, message: String) -> CoreError {
    host_error(ErrorCode::InvalidConfig, ErrorKind::Range, key, message)
}

fn invalid_argument(field: &str, message: String) -> CoreError {
    host_error(ErrorCode::InvalidConfig, ErrorKind::Type, field, message)
}

// ---- The engines the server keeps by id: code `invalid_step`, field `session`.

/// The kinds of engine the server keeps by id, as `session_import` answers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EngineKind {
    /// An `EarlyStopping`.
    Loop,
    /// A `PyramidRun`.
    Pyramid,
}

impl EngineKind {
    /// Every kind's name, in order.
    pub(crate) const NAMES: [&'static str; 2] = ["loop", "pyramid"];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EngineKind::Loop => Self::NAMES[0],
            EngineKind::Pyramid => Self::NAMES[1],
        }
    }
}

/// No engine is kept under `id`.
pub(crate) fn unknown_session(id: &str) -> CoreError {
    session_error(format!("no session '{id}' (start one with loop_start or pyramid_start, or session_import)"))
}

/// The engine kept under `id` is not of the kind `wanted`.
pub(crate) fn wrong_session(id: &str, wanted: EngineKind) -> CoreError {
    session_error(format!("session '{id}' is not a {} session", wanted.as_str()))
}

fn session_error(message: String) -> CoreError {
    host_error(ErrorCode::InvalidStep, ErrorKind::Range, "session", message)
}

// ---- Paths confined to the server's roots: code `invalid_config`, field the argument
// ---- (`junit[0]`, `outcomes[1].junit[0]`, `model_out`).

/// The server has no root directory, so it refuses every path: it was started in `/` or the
/// home directory, without `--root`, and the client offers no roots.
pub(crate) fn path_without_root(field: &str, path: &str) -> CoreError {
    path_error(
        field,
        format!(
            "{field} is a path ('{path}') and the server has no root directory to confine paths to (it was \
             started in / or the home directory, and the client offers no roots): start it with --root DIR"
        ),
    )
}

/// `path` (argument `field`) resolves (symbolic links followed) to `resolved`, which is in
/// none of the server's `roots`.
pub(crate) fn path_outside_roots(field: &str, path: &str, resolved: &str, roots: &[&str]) -> CoreError {
    let roots = roots.join(", ");
    path_error(
        field,
        format!(
            "{field} ('{path}') resolves to '{resolved}', outside the server's roots ({roots}): give a path inside \
             them, or start the server with --root DIR"
        ),
    )
}

/// The file `path` (argument `field`) is to be written and is a symbolic link: a write never
/// goes through one nor replaces one.
pub(crate) fn path_is_symlink(field: &str, path: &str) -> CoreError {
    path_error(field, format!("{field} ('{path}') is a symbolic link: the server never writes through or replaces one"))
}

fn path_error(field: &str, message: String) -> CoreError {
    host_error(ErrorCode::InvalidConfig, ErrorKind::Range, field, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_arguments_and_sessions_are_worded_here() {
        let e = missing_argument("loop_record", "session");
        assert_eq!(
            (e.code(), e.field(), e.message()),
            ("invalid_config", "session", "session is required by loop_record")
        );
        let e = one_argument_of("replay_loops", &["runs", "paths"]);
        assert_eq!((e.field(), e.message()), ("runs", "replay_loops takes runs or paths, exactly one of them"));
        let e = one_argument_of("calibrate_loops", &["runs", "paths", "store"]);
        assert_eq!(
            (e.field(), e.message()),
            ("runs", "calibrate_loops takes runs, paths or store, exactly one of them")
        );
        assert_eq!(
            exclusive_arguments("coverage", "coverage_xml").message(),
            "give coverage or coverage_xml, not both"
        );
        assert_eq!(argument_needs("model_out", "paths").message(), "model_out needs paths");
        let e = unknown_session("loop-9");
        assert_eq!((e.code(), e.field(), e.kind()), ("invalid_step", "session", ErrorKind::Range));
        assert_eq!(e.message(), "no session 'loop-9' (start one with loop_start or pyramid_start, or session_import)");
        assert_eq!(wrong_session("loop-1", EngineKind::Pyramid).message(), "session 'loop-1' is not a pyramid session");
        assert_eq!(EngineKind::Loop.as_str(), "loop");
    }

    #[test]
    fn confined_paths_are_worded_here() {
        let e = path_without_root("junit[0]", "r.xml");
        assert_eq!((e.code(), e.field(), e.kind()), ("invalid_config", "junit[0]", ErrorKind::Range));
        assert_eq!(
            e.message(),
            "junit[0] is a path ('r.xml') and the server has no root directory to confine paths to (it was started \
             in / or the home directory, and the client offers no roots): start it with --root DIR"
        );
        let e = path_outside_roots("out", "../a.json", "/home/a.json", &["/work", "/data"]);
        assert_eq!((e.code(), e.field()), ("invalid_config", "out"));
        assert_eq!(
            e.message(),
            "out ('../a.json') resolves to '/home/a.json', outside the server's roots (/work, /data): give a path \
             inside them, or start the server with --root DIR"
        );
        let e = path_is_symlink("model_out", "m.json");
        assert_eq!((e.code(), e.field(), e.kind()), ("invalid_config", "model_out", ErrorKind::Range));
        assert_eq!(
            e.message(),
            "model_out ('m.json') is a symbolic link: the server never writes through or replaces one"
        );
    }
}
