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
    /// `postgresql://` (or `postgres://`): a database on a PostgreSQL server, which the
    /// command and its MCP server open (the bindings' builds refuse it).
    Postgres(PostgresUrl),
}

/// Where a PostgreSQL store is, read from a `postgresql://USER:PASSWORD@HOST:PORT/DBNAME?...`
/// URL. Its `Debug` form never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl {
    /// The role to connect as (absent: the server's default, the OS user's name).
    pub user: Option<String>,
    /// The password, if the URL holds one (never in an error message).
    pub password: Option<String>,
    /// A host name or address, or a folder holding the server's Unix socket (an absolute
    /// path: `?host=/run/postgresql`).
    pub host: String,
    /// The port (absent: 5432); with a socket folder, the socket's number.
    pub port: Option<u16>,
    /// The database (absent: the user's name, as PostgreSQL does).
    pub dbname: Option<String>,
    /// How long to wait for the server to answer a connection, in seconds (`connect_timeout`,
    /// default [`DEFAULT_CONNECT_TIMEOUT_S`]).
    pub connect_timeout_s: u64,
    /// `application_name`, shown in the server's activity view.
    pub application_name: Option<String>,
}

impl core::fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PostgresUrl")
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("host", &self.host)
            .field("port", &self.port)
            .field("dbname", &self.dbname)
            .field("connect_timeout_s", &self.connect_timeout_s)
            .field("application_name", &self.application_name)
            .finish()
    }
}

/// How long opening a PostgreSQL store waits for the server when the URL does not say
/// (`connect_timeout`): an unreachable server is an error after this, never a hang.
pub const DEFAULT_CONNECT_TIMEOUT_S: u64 = 10;

/// The longest `connect_timeout` a URL may ask for, in seconds.
pub const MAX_CONNECT_TIMEOUT_S: u64 = 600;

/// Reads a store URL: `sqlite:PATH` (`sqlite:///abs/path` too), or
/// `postgresql://[USER[:PASSWORD]@]HOST[:PORT][/DBNAME][?PARAM=VALUE&...]` (`postgres://`
/// too; for a Unix socket, `postgresql://USER@/DBNAME?host=/SOCKET/FOLDER`). Refused, each by
/// an `invalid_config` error naming `store` (a password never shown): any other scheme, an
/// empty path, a `sqlite://HOST/...` URL (SQLite has no host), a PostgreSQL URL without a
/// host, with several, with a bad port, percent-escape or parameter, and one asking for TLS
/// (`sslmode=require`, `verify-ca`, `verify-full`: this build connects without TLS).
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
    if let Some(rest) = url.strip_prefix("postgresql://").or_else(|| url.strip_prefix("postgres://")) {
        return parse_postgres(url, rest).map(StoreUrl::Postgres);
    }
    Err(store_url_error(url, "unknown scheme: a store URL is sqlite:PATH or postgresql://HOST/DBNAME"))
}

/// The longest PostgreSQL store URL read, in bytes.
pub const MAX_POSTGRES_URL_BYTES: usize = 4096;

fn parse_postgres(url: &str, rest: &str) -> Result<PostgresUrl, Error> {
    if url.len() > MAX_POSTGRES_URL_BYTES {
        let head: String = url.chars().take(40).collect();
        return Err(store_url_error(&head, "the PostgreSQL URL is longer than 4096 bytes"));
    }
    let bad = |why: &str| store_url_error(url, why);
    if rest.contains('#') {
        return Err(bad("a PostgreSQL URL has no fragment ('#')"));
    }
    let (main, query) = match rest.split_once('?') {
        Some((m, q)) => (m, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match main.split_once('/') {
        Some((a, p)) => (a, p),
        None => (main, ""),
    };
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let mut out = PostgresUrl {
        user: None,
        password: None,
        host: String::new(),
        port: None,
        dbname: None,
        connect_timeout_s: DEFAULT_CONNECT_TIMEOUT_S,
        application_name: None,
    };
    if let Some(info) = userinfo {
        let (user, password) = match info.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (info, None),
        };
        if !user.is_empty() {
            out.user = Some(decode(user).ok_or_else(|| bad("the user name holds a bad percent-escape"))?);
        }
        if let Some(p) = password {
            out.password = Some(decode(p).ok_or_else(|| bad("the password holds a bad percent-escape"))?);
        }
    }
    if hostport.contains(',') {
        return Err(bad("a store URL names one PostgreSQL host, not several"));
    }
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let Some((addr, after)) = v6.split_once(']') else {
            return Err(bad("an IPv6 host lacks its closing ']'"));
        };
        match after.strip_prefix(':') {
            Some(p) => (addr, Some(p)),
            None if after.is_empty() => (addr, None),
            None => return Err(bad("characters after the IPv6 host ']'")),
        }
    } else {
        match hostport.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    out.host = decode(host).ok_or_else(|| bad("the host holds a bad percent-escape"))?;
    if let Some(p) = port {
        out.port = Some(parse_port(p).ok_or_else(|| bad("the port must be a number from 1 to 65535"))?);
    }
    if !path.is_empty() {
        let name = decode(path).ok_or_else(|| bad("the database name holds a bad percent-escape"))?;
        if name.contains('/') {
            return Err(bad("the database name holds a '/'"));
        }
        out.dbname = Some(name);
    }
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = decode(value).ok_or_else(|| bad("a parameter holds a bad percent-escape"))?;
        match key {
            "host" => {
                if !out.host.is_empty() {
                    return Err(bad("the host is given twice (before the path and as ?host=)"));
                }
                if value.contains(',') {
                    return Err(bad("a store URL names one PostgreSQL host, not several"));
                }
                out.host = value;
            }
            "port" => {
                if out.port.is_some() {
                    return Err(bad("the port is given twice"));
                }
                out.port = Some(parse_port(&value).ok_or_else(|| bad("the port must be a number from 1 to 65535"))?);
            }
            "user" if out.user.is_none() => out.user = Some(value),
            "password" if out.password.is_none() => out.password = Some(value),
            "dbname" if out.dbname.is_none() => out.dbname = Some(value),
            "user" | "password" | "dbname" => return Err(bad(&concat(&["the ", key, " is given twice"]))),
            "sslmode" => match value.as_str() {
                "disable" | "allow" | "prefer" => {}
                "require" | "verify-ca" | "verify-full" => {
                    return Err(bad(
                        "this build of earlyexit connects to PostgreSQL without TLS: sslmode=require, verify-ca and verify-full are refused (connect over a Unix socket, a private network or a tunnel, with sslmode=disable or none)",
                    ))
                }
                _ => return Err(bad("sslmode must be disable, allow or prefer (this build has no TLS)")),
            },
            "connect_timeout" => {
                out.connect_timeout_s = value
                    .parse::<u64>()
                    .ok()
                    .filter(|s| (1..=MAX_CONNECT_TIMEOUT_S).contains(s))
                    .ok_or_else(|| bad("connect_timeout must be a whole number of seconds from 1 to 600"))?;
            }
            "application_name" => out.application_name = Some(value),
            _ => {
                return Err(bad(&concat(&[
                    "unknown parameter '",
                    key,
                    "' (known: host, port, user, password, dbname, sslmode, connect_timeout, application_name)",
                ])))
            }
        }
    }
    // A host name is at most 255 bytes (DNS); a socket folder leaves room for the socket's
    // name within the 108 bytes of a Unix socket path.
    if out.host.len() > if out.host.starts_with('/') { 90 } else { 255 } {
        return Err(bad("the host is too long (a host name: 255 bytes; a socket folder: 90)"));
    }
    if out.host.is_empty() {
        return Err(bad(
            "the PostgreSQL URL names no host: postgresql://HOST/DBNAME, or for a Unix socket postgresql://USER@/DBNAME?host=/SOCKET/FOLDER",
        ));
    }
    let texts =
        [Some(&out.host), out.user.as_ref(), out.password.as_ref(), out.dbname.as_ref(), out.application_name.as_ref()];
    if texts.iter().flatten().any(|t| t.chars().any(|c| c == '\0')) {
        return Err(bad("the URL holds a NUL character"));
    }
    if out.dbname.as_deref() == Some("") || out.user.as_deref() == Some("") {
        return Err(bad("the user or database name is empty"));
    }
    Ok(out)
}

fn parse_port(text: &str) -> Option<u16> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|p| *p != 0)
}

/// Percent-decoding (`%2F`), UTF-8 required; `None` on a bad escape.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A store URL as errors and reports show it: a PostgreSQL URL's password (before the host,
/// or as `password=`) replaced by `***`; any other URL as it is. Works on malformed URLs too.
pub fn display_store_url(url: &str) -> String {
    let Some(scheme_end) = ["postgresql://", "postgres://"].iter().find(|s| url.starts_with(**s)).map(|s| s.len())
    else {
        return url.to_string();
    };
    let (head, rest) = url.split_at(scheme_end);
    let (main, query) = match rest.split_once('?') {
        Some((m, q)) => (m, Some(q)),
        None => (rest, None),
    };
    let authority_end = main.find('/').unwrap_or(main.len());
    let (authority, path) = main.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((info, host)) => match info.split_once(':') {
            Some((user, _)) => concat(&[user, ":***@", host]),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let mut out = concat(&[head, &authority, path]);
    if let Some(q) = query {
        out.push('?');
        let pairs: Vec<String> = q
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key == "password" => concat(&[key, "=***"]),
                _ => pair.to_string(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    out
}

/// A `postgresql://` store opened by a build without PostgreSQL (a binding's): the command
/// and its MCP server open those.
pub fn postgres_not_in_this_build(url: &str) -> Error {
    store_url_error(
        url,
        "PostgreSQL stores are opened by the earlyexit command only: use the earlyexit command or its MCP server, or a sqlite:PATH store here",
    )
}

fn store_url_error(url: &str, why: &str) -> Error {
    let shown = display_store_url(url);
    Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, STORE_FIELD, concat(&["store ('", &shown, "'): ", why]))
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
    /// The PostgreSQL server cannot be reached in time, or refuses the connection (a wrong
    /// password, a database that does not exist, no such role).
    Connect,
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
        StoreProblem::Connect => (
            ErrorCode::InvalidConfig,
            "the PostgreSQL server cannot be reached or refuses the connection (check the host, the port, the user, the password and that the database exists)",
        ),
    };
    let url = display_store_url(url);
    let message = if detail.is_empty() {
        concat(&["store ('", &url, "'): ", why])
    } else {
        concat(&["store ('", &url, "'): ", why, " (", detail, ")"])
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

/// A count a store call takes (`limit`): a whole number from 0 to 2^53-1. Another type is
/// a `type` error; NaN, ±infinity, a negative, fractional or larger number `range`.
pub fn check_count(field: &str, value: &crate::Value) -> Result<u64, Error> {
    match value {
        crate::Value::Number(n)
            if n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= crate::value::MAX_SAFE_INTEGER as f64 =>
        {
            Ok(*n as u64)
        }
        crate::Value::Number(n) => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            field,
            concat(&[field, " must be a whole number from 0 to 9007199254740991, got ", &crate::num::to_js_string(*n)]),
        )),
        other => Err(crate::host::type_error(ErrorCode::InvalidConfig, field, "a whole number >= 0", other)),
    }
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
        for bad in ["sqlite:", "sqlite://host/r.db", "mysql://h", "r.db", ""] {
            let e = parse_store_url(bad).err().map(|e| (e.code(), e.field().to_string()));
            assert_eq!(e, Some(("invalid_config", "store".to_string())), "{bad}");
        }
    }

    #[test]
    fn postgres_urls_are_read_and_bad_ones_refused() {
        let Ok(StoreUrl::Postgres(u)) =
            parse_store_url("postgresql://ci:s%40cret@db.example:6432/earlyexit?connect_timeout=3")
        else {
            panic!("not read")
        };
        assert_eq!(
            (
                u.user.as_deref(),
                u.password.as_deref(),
                u.host.as_str(),
                u.port,
                u.dbname.as_deref(),
                u.connect_timeout_s
            ),
            (Some("ci"), Some("s@cret"), "db.example", Some(6432), Some("earlyexit"), 3)
        );
        assert!(!format!("{u:?}").contains("s@cret"));
        let Ok(StoreUrl::Postgres(u)) = parse_store_url("postgres://postgres@/earlyexit?host=/tmp/pg%20dir") else {
            panic!("not read")
        };
        assert_eq!((u.host.as_str(), u.port, u.connect_timeout_s), ("/tmp/pg dir", None, DEFAULT_CONNECT_TIMEOUT_S));
        let Ok(StoreUrl::Postgres(u)) = parse_store_url("postgresql://[::1]:5433") else { panic!("not read") };
        assert_eq!((u.host.as_str(), u.port, u.dbname), ("::1", Some(5433), None));
        for bad in [
            "postgresql://",
            "postgresql:///db",
            "postgresql://u:pw@/db",
            "postgresql://h1,h2/db",
            "postgresql://h:0/db",
            "postgresql://h:99999/db",
            "postgresql://h:x/db",
            "postgresql://h/db?sslmode=require",
            "postgresql://h/db?sslmode=verify-full",
            "postgresql://h/db?sslmode=bogus",
            "postgresql://h/db?connect_timeout=0",
            "postgresql://h/db?connect_timeout=1e9",
            "postgresql://h/db?nope=1",
            "postgresql://h/db?host=/tmp",
            "postgresql://h/a/b",
            "postgresql://h/%zz",
            "postgresql://h/%ff",
            "postgresql://h/db#x",
            "postgresql://[::1/db",
            &format!("postgresql://{}/db", "h".repeat(256)),
            &format!("postgresql://u@/db?host=/{}", "d".repeat(100)),
            &format!("postgresql://h/db?application_name={}", "a".repeat(5000)),
        ] {
            let e = parse_store_url(bad).err().map(|e| (e.code(), e.field().to_string()));
            assert_eq!(e, Some(("invalid_config", "store".to_string())), "{bad}");
        }
    }

    #[test]
    fn passwords_are_never_shown() {
        assert_eq!(display_store_url("postgresql://ci:hunter2@h/db"), "postgresql://ci:***@h/db");
        assert_eq!(display_store_url("postgres://h/db?user=u&password=hunter2"), "postgres://h/db?user=u&password=***");
        assert_eq!(display_store_url("sqlite:a:b@c"), "sqlite:a:b@c");
        for url in [
            "postgresql://ci:hunter2@h:x/db",
            "postgresql://ci:hunter2@/db",
            "postgresql://u@h/db?password=hunter2&sslmode=require",
        ] {
            let e = parse_store_url(url).unwrap_err();
            assert!(!e.message().contains("hunter2"), "{}", e.message());
        }
        let e = store_error(StoreProblem::Connect, "postgresql://ci:hunter2@h/db", "refused");
        assert!(!e.message().contains("hunter2") && e.field() == "store", "{}", e.message());
        let e = postgres_not_in_this_build("postgresql://ci:hunter2@h/db");
        assert!(
            e.message().contains("use the earlyexit command or its MCP server") && !e.message().contains("hunter2")
        );
    }

    #[test]
    fn names_are_bounded() {
        assert!(check_store_name("log", "main").is_ok());
        assert!(check_store_name("log", "").is_err());
        assert!(check_store_name("log", &"x".repeat(257)).is_err());
        assert!(check_run_id(&"é".repeat(256)).is_ok());
    }

    #[test]
    fn counts_are_whole_numbers_up_to_2_pow_53_minus_1() {
        use crate::Value;
        assert_eq!(check_count("limit", &Value::Number(3.0)).ok(), Some(3));
        assert_eq!(check_count("limit", &Value::Number(9007199254740991.0)).ok(), Some(9007199254740991));
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1.5, 9007199254740992.0] {
            let e = check_count("limit", &Value::Number(bad)).unwrap_err();
            assert_eq!((e.code(), e.field(), e.kind()), ("invalid_config", "limit", ErrorKind::Range), "{bad}");
        }
        let e = check_count("limit", &Value::string("3")).unwrap_err();
        assert_eq!((e.field(), e.kind()), ("limit", ErrorKind::Type));
    }
}
