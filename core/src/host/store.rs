//! The run store's rules that need no I/O (the host crate `earlyexit-store` opens the file):
//! what a store URL may be, the default place, and every error a store gives, worded here.
//! Code `invalid_config` for the URL itself (field `store`), `invalid_snapshot` for what the
//! file holds (field `store`: not a database, a newer schema, a corrupted store).

use crate::value::{concat, Error, ErrorCode, ErrorKind};

/// The field every store error names.
pub const STORE_FIELD: &str = "store";

/// Where a command keeps its store when none is given: `sqlite:` + this path, relative to
/// the working directory. Its folder gets a `.gitignore` holding `*`.
pub const DEFAULT_STORE_PATH: &str = ".earlyexit/store.db";

/// The environment variable a command reads its store URL from when `--store` is absent.
pub const STORE_ENV: &str = "EARLYEXIT_STORE";

/// A store URL, read ([`parse_store_url`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreUrl {
    /// `sqlite:PATH` (or `sqlite:///ABSOLUTE`): a SQLite file on this machine.
    Sqlite(String),
}

/// Reads a store URL: `sqlite:PATH` (`sqlite:///abs/path` too). `postgresql://` and
/// `postgres://` are refused (this build has no PostgreSQL backend), and so is any other
/// scheme, an empty path and a `sqlite://HOST/...` URL (SQLite has no host).
pub fn parse_store_url(url: &str) -> Result<StoreUrl, Error> {
    if let Some(rest) = url.strip_prefix("sqlite:") {
        let path = match rest.strip_prefix("//") {
            Some(after) if after.starts_with('/') => after,
            Some(_) => {
                return Err(store_url_error(
                    url,
                    "a sqlite URL names a file: sqlite:PATH or sqlite:///ABSOLUTE/PATH (SQLite has no host)",
                ))
            }
            None => rest,
        };
        if path.is_empty() {
            return Err(store_url_error(url, "the sqlite URL names no file: sqlite:PATH"));
        }
        if path.contains('\0') {
            return Err(store_url_error(url, "the path holds a NUL character"));
        }
        return Ok(StoreUrl::Sqlite(path.to_string()));
    }
    if url.starts_with("postgresql://") || url.starts_with("postgres://") {
        return Err(store_url_error(
            url,
            "PostgreSQL stores are not supported in this build of earlyexit: use a sqlite:PATH store",
        ));
    }
    Err(store_url_error(url, "unknown scheme: a store URL is sqlite:PATH"))
}

fn store_url_error(url: &str, why: &str) -> Error {
    Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, STORE_FIELD, concat(&["store ('", url, "'): ", why]))
}

/// What is wrong with a store that its URL reached ([`store_error`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreProblem {
    /// The path is a directory.
    Directory,
    /// The path's folder does not exist (a store is created in an existing folder, but for
    /// the default one).
    MissingFolder,
    /// No store at the path, where a command only reads one (it is never created empty).
    Missing,
    /// The file is not a SQLite database.
    NotDatabase,
    /// A SQLite database without the store's schema table.
    NotStore,
    /// A store written by a newer release (its schema version is above this release's).
    NewerSchema,
    /// The database fails SQLite's integrity check, or a table or row is not what the schema
    /// says: refused, never repaired.
    Corrupted,
    /// The file cannot be opened, read or written (permissions, disk full, locked too long).
    Io,
}

/// The error for `problem` at store `url`; `detail` adds what was found (SQLite's message,
/// the schema versions).
pub fn store_error(problem: StoreProblem, url: &str, detail: &str) -> Error {
    let (code, why) = match problem {
        StoreProblem::Directory => (ErrorCode::InvalidConfig, "the path is a directory, not a store file"),
        StoreProblem::MissingFolder => (ErrorCode::InvalidConfig, "the folder of the path does not exist"),
        StoreProblem::Missing => (ErrorCode::InvalidConfig, "no store at this path (a command that only reads a store never creates one)"),
        StoreProblem::NotDatabase => (ErrorCode::InvalidSnapshot, "the file is not a SQLite database"),
        StoreProblem::NotStore => (ErrorCode::InvalidSnapshot, "the database is not an earlyexit store (it has no schema table)"),
        StoreProblem::NewerSchema => (
            ErrorCode::InvalidSnapshot,
            "the store was written by a newer release of earlyexit (its schema is newer than this release reads): upgrade earlyexit",
        ),
        StoreProblem::Corrupted => (
            ErrorCode::InvalidSnapshot,
            "the store is corrupted (it is refused, never repaired: restore it from a copy or an export)",
        ),
        StoreProblem::Io => (ErrorCode::InvalidConfig, "the store cannot be read or written"),
    };
    let message = if detail.is_empty() {
        concat(&["store ('", url, "'): ", why])
    } else {
        concat(&["store ('", url, "'): ", why, " (", detail, ")"])
    };
    Error::new(code, ErrorKind::Range, STORE_FIELD, message)
}

/// A store's run id must be 1 to 256 characters: `run_id` when the caller gave one.
pub fn check_run_id(run_id: &str) -> Result<(), Error> {
    if run_id.is_empty() || run_id.chars().count() > MAX_STORE_NAME_CHARS {
        return Err(name_error("runId", run_id));
    }
    Ok(())
}

/// The longest run id, log name, artifact name or model name a store takes, in characters.
pub const MAX_STORE_NAME_CHARS: usize = 256;

/// A name of a store entry (`log`, `name`, `runLabel`): 1 to [`MAX_STORE_NAME_CHARS`]
/// characters.
pub fn check_store_name(field: &str, name: &str) -> Result<(), Error> {
    if name.is_empty() || name.chars().count() > MAX_STORE_NAME_CHARS {
        return Err(name_error(field, name));
    }
    Ok(())
}

fn name_error(field: &str, name: &str) -> Error {
    let shown: String = name.chars().take(40).collect();
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        field,
        concat(&[
            field,
            " must be 1 to 256 characters, got '",
            &shown,
            if shown.len() < name.len() { "...'" } else { "'" },
        ]),
    )
}

/// `runId` names a run the store holds with a different body: a run id is one run.
pub fn run_id_taken(run_id: &str) -> Error {
    Error::new(
        ErrorCode::InvalidReplay,
        ErrorKind::Range,
        "runId",
        concat(&[
            "runId '",
            run_id,
            "' is already in the store with a different run or run label (a run id names one run)",
        ]),
    )
}

/// A pyramid run without an exit policy has nothing to learn into an outcome model.
pub fn nothing_to_learn() -> Error {
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        "model",
        concat(&["the run has no exit policy (pyramid start --policy): there is nothing to learn into a model"]),
    )
}

/// The store holds no entry `name` of this kind (`what`: "model", "artifact").
pub fn not_in_store(what: &str, name: &str) -> Error {
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        "name",
        concat(&["the store holds no ", what, " named '", name, "'"]),
    )
}

/// `since` is not an RFC 3339 timestamp (`2026-01-31T00:00:00Z`).
pub fn bad_since(since: &str) -> Error {
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        "since",
        concat(&["since must be an RFC 3339 timestamp (2026-01-31T00:00:00Z), got '", since, "'"]),
    )
}

/// The receipt log a loop's shadow receipts go to when it records into a store and names no
/// log (a binding's `Loop(store=...)`).
pub const DEFAULT_LOOP_RECEIPT_LOG: &str = "loops";

/// The receipt log a test session's (pyramid) shadow receipts go to when it records into a
/// store and names no log (the pytest plugin's `--earlyexit-store`).
pub const DEFAULT_PYRAMID_RECEIPT_LOG: &str = "pyramids";

/// A PostgreSQL URL given to a binding (Python, Node), which opens `sqlite:PATH` stores: the
/// command serves a shared database. The URL is not echoed (it may hold a password).
pub fn binding_refuses_postgres() -> Error {
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Range,
        STORE_FIELD,
        concat(&[
            "store: a PostgreSQL store is read and written by the earlyexit command (earlyexit runs import, ",
            "earlyexit runs export, earlyexit pyramid result --store postgresql://...); this package opens ",
            "sqlite:PATH stores",
        ]),
    )
}

/// A call on a store that was closed.
pub fn store_closed(url: &str) -> Error {
    store_error(StoreProblem::Io, url, "the store is closed")
}

/// A `dataset` given beside a run that has another dataset of its own.
pub fn dataset_differs(dataset: &str, run_has: &str) -> Error {
    Error::new(
        ErrorCode::InvalidReplay,
        ErrorKind::Range,
        "dataset",
        concat(&["dataset '", dataset, "' differs from the run's own dataset ", run_has, " (give one or the other)"]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_name_a_file() {
        assert_eq!(parse_store_url("sqlite:runs.db"), Ok(StoreUrl::Sqlite("runs.db".into())));
        assert_eq!(parse_store_url("sqlite:///tmp/r.db"), Ok(StoreUrl::Sqlite("/tmp/r.db".into())));
        for bad in ["sqlite:", "sqlite://host/r.db", "postgresql://u@h/db", "postgres://h/db", "mysql://h", "r.db", ""]
        {
            let e = parse_store_url(bad).err().map(|e| (e.code(), e.field().to_string()));
            assert_eq!(e, Some(("invalid_config", "store".to_string())), "{bad}");
        }
    }

    #[test]
    fn names_are_bounded() {
        assert!(check_store_name("log", "main").is_ok());
        assert!(check_store_name("log", "").is_err());
        assert!(check_store_name("log", &"x".repeat(257)).is_err());
        assert!(check_run_id(&"é".repeat(256)).is_ok());
    }
}
