//! The store's schema: its versions (each a migration from the one before), the check every
//! open makes, and the upgrade of an older store in place, in one transaction.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

/// The schema version this release writes. An older store is upgraded to it on open; a
/// newer one is refused.
pub const SCHEMA_VERSION: i64 = 3;

/// The name of the one-row table that holds the schema version.
pub const VERSION_TABLE: &str = "earlyexit_store";

/// Migration `i` takes a store from version `i` to version `i + 1` (version 0: an empty
/// database). Each runs in the transaction that writes the new version.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    // Version 1: runs, receipt chains, artifacts, models.
    "CREATE TABLE earlyexit_store (version INTEGER NOT NULL);
     INSERT INTO earlyexit_store (version) VALUES (0);
     CREATE TABLE runs (
         seq INTEGER PRIMARY KEY AUTOINCREMENT,
         run_id TEXT NOT NULL UNIQUE,
         run_label TEXT,
         recorded_ms INTEGER NOT NULL,
         body TEXT NOT NULL
     );
     CREATE TABLE receipts (
         log TEXT NOT NULL,
         line INTEGER NOT NULL,
         body TEXT NOT NULL,
         PRIMARY KEY (log, line)
     ) WITHOUT ROWID;
     CREATE TABLE artifacts (
         name TEXT PRIMARY KEY,
         body TEXT NOT NULL,
         sha256 TEXT NOT NULL,
         updated_ms INTEGER NOT NULL
     );
     CREATE TABLE models (
         name TEXT PRIMARY KEY,
         body TEXT NOT NULL,
         updated_ms INTEGER NOT NULL
     );",
    // Version 2: the run's dataset as a column (the `dataset` filter), indexes for the label
    // and time filters, and each artifact's lifecycle (kind, expiry, promoted) as columns.
    "ALTER TABLE runs ADD COLUMN dataset TEXT;
     UPDATE runs SET dataset = json_extract(body, '$.dataset');
     CREATE INDEX runs_by_label ON runs (run_label, recorded_ms);
     CREATE INDEX runs_by_time ON runs (recorded_ms);
     CREATE INDEX runs_by_dataset ON runs (dataset);
     ALTER TABLE artifacts ADD COLUMN kind TEXT NOT NULL DEFAULT '';
     ALTER TABLE artifacts ADD COLUMN expires_at TEXT NOT NULL DEFAULT '';
     ALTER TABLE artifacts ADD COLUMN promoted INTEGER NOT NULL DEFAULT 0;
     UPDATE artifacts SET kind = json_extract(body, '$.kind'),
                          expires_at = json_extract(body, '$.expiresAt'),
                          promoted = json_extract(body, '$.promotion') IS NOT NULL;",
    // Version 3: the run's kind (`loop`, the replay form of loops; `pyramid`, a recorded
    // pyramid run as `replay pyramids` and `calibrate pyramids` read it).
    "ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'loop';
     CREATE INDEX runs_by_kind ON runs (kind, seq);",
];

/// The tables of the current schema and their columns, as `PRAGMA table_info` lists them.
pub(crate) const TABLES: [(&str, &[&str]); 5] = [
    (VERSION_TABLE, &["version"]),
    ("runs", &["seq", "run_id", "run_label", "recorded_ms", "body", "dataset", "kind"]),
    ("receipts", &["log", "line", "body"]),
    ("artifacts", &["name", "body", "sha256", "updated_ms", "kind", "expires_at", "promoted"]),
    ("models", &["name", "body", "updated_ms"]),
];

/// What the schema check found wrong.
#[derive(Debug)]
pub enum SchemaProblem {
    /// A database with tables but no version table: not a store.
    NotStore,
    /// A version above [`SCHEMA_VERSION`].
    Newer(i64),
    /// A version table that does not hold one version in range, or a table or column of the
    /// schema missing.
    Corrupted(String),
    /// SQLite failed.
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for SchemaProblem {
    fn from(e: rusqlite::Error) -> Self {
        SchemaProblem::Sqlite(e)
    }
}

fn version_of(conn: &Connection) -> Result<Option<i64>, SchemaProblem> {
    // One statement, so one snapshot: read as two, another process creating the store
    // between them made a new store look like a database with other tables ("not a store").
    let (has_table, tables): (bool, i64) = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1), \
         (SELECT count(*) FROM sqlite_master)",
        [VERSION_TABLE],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    if !has_table {
        return if tables == 0 { Ok(None) } else { Err(SchemaProblem::NotStore) };
    }
    let mut statement = conn.prepare("SELECT version FROM earlyexit_store")?;
    let versions: Vec<rusqlite::types::Value> = statement.query_map([], |row| row.get(0))?.collect::<Result<_, _>>()?;
    match versions.as_slice() {
        [rusqlite::types::Value::Integer(v)] if *v >= 1 => Ok(Some(*v)),
        _ => Err(SchemaProblem::Corrupted("the version table does not hold one schema version".into())),
    }
}

/// Brings the store at `conn` to [`SCHEMA_VERSION`] (creating it in an empty database),
/// in one write transaction; then checks every table and column. Another process opening
/// the same new store at once waits for the write lock and finds it done.
pub fn ensure(conn: &mut Connection) -> Result<(), SchemaProblem> {
    ensure_version(conn, SCHEMA_VERSION)
}

/// [`ensure`] up to `target` only: how the tests make a store of an older version.
pub fn ensure_version(conn: &mut Connection, target: i64) -> Result<(), SchemaProblem> {
    let current = version_of(conn)?.unwrap_or(0);
    if current > SCHEMA_VERSION {
        return Err(SchemaProblem::Newer(current));
    }
    if current < target {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again under the write lock: another process may have upgraded meanwhile.
        let current = version_of(&tx)?.unwrap_or(0);
        if current > SCHEMA_VERSION {
            return Err(SchemaProblem::Newer(current));
        }
        let mut version = current;
        while version < target {
            let Some(step) = MIGRATIONS.get(version as usize) else { break };
            tx.execute_batch(step)?;
            version += 1;
            tx.execute("UPDATE earlyexit_store SET version = ?1", [version])?;
        }
        tx.commit()?;
    }
    if target == SCHEMA_VERSION {
        check_tables(conn)?;
    }
    Ok(())
}

fn check_tables(conn: &Connection) -> Result<(), SchemaProblem> {
    for (table, columns) in TABLES {
        let mut statement = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
        let found: Vec<String> = statement.query_map([table], |row| row.get(0))?.collect::<Result<_, _>>()?;
        for column in columns {
            if !found.iter().any(|f| f == column) {
                return Err(SchemaProblem::Corrupted(format!("table {table} lacks column {column}")));
            }
        }
    }
    Ok(())
}

/// The schema version of the store at `conn`, if it has one.
pub fn version(conn: &Connection) -> Result<Option<i64>, rusqlite::Error> {
    conn.query_row("SELECT version FROM earlyexit_store", [], |row| row.get(0)).optional()
}
