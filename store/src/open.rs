//! Opening a store: the URL read by the core, the file checked and created (mode 0600), the
//! connection set up (WAL, `synchronous=NORMAL`, a busy timeout so writers queue), the
//! schema checked and upgraded. SQLite's failures become the core's store errors.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use earlyexit::kit::host::store::{store_error, StoreProblem, DEFAULT_STORE_PATH};
use earlyexit::Error;
use rusqlite::{Connection, ErrorCode as SqliteCode, OpenFlags};

use crate::schema::{self, SchemaProblem, SCHEMA_VERSION};

/// How long a write waits for another process's transaction before giving up: long enough
/// for dozens of processes writing at once.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

pub fn connect(url: &str, path: &str) -> Result<Connection, Error> {
    connect_at(url, path, SCHEMA_VERSION)
}

/// [`connect`] to a store that must exist already (a command that only reads one).
pub fn connect_existing(url: &str, path: &str) -> Result<Connection, Error> {
    match std::fs::metadata(path) {
        Ok(_) => connect(url, path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(store_error(StoreProblem::Missing, url, "")),
        Err(e) => Err(store_error(StoreProblem::Io, url, &e.to_string())),
    }
}

pub fn connect_at(url: &str, path: &str, version: i64) -> Result<Connection, Error> {
    let path = Path::new(path);
    prepare_file(url, path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags).map_err(|e| sqlite_error(url, &e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| sqlite_error(url, &e))?;
    let mode = wal_mode(&conn).map_err(|e| sqlite_error(url, &e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(store_error(StoreProblem::Io, url, &format!("the journal mode stays {mode}, not WAL")));
    }
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;").map_err(|e| sqlite_error(url, &e))?;
    schema::ensure_version(&mut conn, version).map_err(|p| match p {
        SchemaProblem::NotStore => store_error(StoreProblem::NotStore, url, ""),
        SchemaProblem::Newer(v) => store_error(
            StoreProblem::NewerSchema,
            url,
            &format!("schema version {v}; this release reads up to {SCHEMA_VERSION}"),
        ),
        SchemaProblem::Corrupted(detail) => store_error(StoreProblem::Corrupted, url, &detail),
        SchemaProblem::Sqlite(e) => sqlite_error(url, &e),
    })?;
    Ok(conn)
}

/// Switches the connection to WAL. Changing the journal mode takes the database's exclusive
/// lock and SQLite answers "database is locked" at once, without the busy handler, while
/// another process holds any lock: many processes opening one new store at once met it. It
/// is retried for as long as a write would wait.
fn wal_mode(conn: &Connection) -> Result<String, rusqlite::Error> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
            Err(e)
                if matches!(e.sqlite_error_code(), Some(SqliteCode::DatabaseBusy | SqliteCode::DatabaseLocked))
                    && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            answer => return answer,
        }
    }
}

/// Checks what is at `path` and creates a new store file there (mode 0600) when nothing is.
fn prepare_file(url: &str, path: &Path) -> Result<(), Error> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(store_error(StoreProblem::Directory, url, "")),
        Ok(_) => return check_header(url, path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(store_error(StoreProblem::Io, url, &e.to_string())),
    }
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder {
        if !folder.is_dir() {
            if path != Path::new(DEFAULT_STORE_PATH) {
                return Err(store_error(StoreProblem::MissingFolder, url, ""));
            }
            std::fs::create_dir_all(folder).map_err(|e| store_error(StoreProblem::Io, url, &e.to_string()))?;
        }
        if path == Path::new(DEFAULT_STORE_PATH) {
            let ignore = folder.join(".gitignore");
            if !ignore.exists() {
                std::fs::write(&ignore, "*\n").map_err(|e| store_error(StoreProblem::Io, url, &e.to_string()))?;
            }
        }
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(path) {
        Ok(_) => Ok(()),
        // Another process created it first: it is a new store (or an empty file) either way.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => check_header(url, path),
        Err(e) => Err(store_error(StoreProblem::Io, url, &e.to_string())),
    }
}

/// An empty file is a new store; anything else must start with SQLite's header.
fn check_header(url: &str, path: &Path) -> Result<(), Error> {
    let mut file = std::fs::File::open(path).map_err(|e| store_error(StoreProblem::Io, url, &e.to_string()))?;
    let mut header = [0u8; 16];
    let mut read = 0;
    while read < header.len() {
        let Some(rest) = header.get_mut(read..) else { break };
        match file.read(rest) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) => return Err(store_error(StoreProblem::Io, url, &e.to_string())),
        }
    }
    if read == 0 || &header == SQLITE_HEADER {
        Ok(())
    } else {
        Err(store_error(StoreProblem::NotDatabase, url, ""))
    }
}

/// SQLite's failure as a store error: not a database, corrupted, or an I/O problem (with
/// SQLite's own words).
pub fn sqlite_error(url: &str, e: &rusqlite::Error) -> Error {
    let problem = match e.sqlite_error_code() {
        Some(SqliteCode::NotADatabase) => StoreProblem::NotDatabase,
        Some(SqliteCode::DatabaseCorrupt) => StoreProblem::Corrupted,
        _ => StoreProblem::Io,
    };
    store_error(problem, url, &e.to_string())
}
