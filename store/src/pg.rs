//! The PostgreSQL backend (feature `postgres`, the command's only): the same tables, schema
//! versions and rules as the SQLite file, over the synchronous rust-postgres client, without
//! TLS. Every write is one transaction (`BEGIN` ... `COMMIT`, rolled back on any error or a
//! lost connection); a model merge locks its row (`SELECT ... FOR UPDATE`, the row first
//! inserted empty with `ON CONFLICT DO NOTHING` so that the first mergers queue too), a
//! receipt append its log (a transaction-scoped advisory lock on the log's name), and the
//! schema's creation or upgrade the whole store (another advisory lock).

use std::time::Duration;

use earlyexit::kit::host::store::{store_error, PostgresUrl, StoreProblem};
use earlyexit::Error;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{Client, Config, IsolationLevel, NoTls};

use crate::schema::SCHEMA_VERSION;
use crate::{CheckReport, RunFilter, RunRow, StoredRun};

/// The advisory lock every schema creation or upgrade takes (any number; this one spells
/// "eexit" in ASCII).
const SCHEMA_LOCK: i64 = 0x65_65_78_69_74;

/// Migration `i` takes a store from version `i` to version `i + 1`: the SQLite schema's
/// versions, in PostgreSQL's types.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    "CREATE TABLE earlyexit_store (version BIGINT NOT NULL);
     INSERT INTO earlyexit_store (version) VALUES (0);
     CREATE TABLE runs (
         seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
         run_id TEXT NOT NULL UNIQUE,
         run_label TEXT,
         recorded_ms BIGINT NOT NULL,
         body TEXT NOT NULL
     );
     CREATE TABLE receipts (
         log TEXT NOT NULL,
         line BIGINT NOT NULL,
         body TEXT NOT NULL,
         PRIMARY KEY (log, line)
     );
     CREATE TABLE artifacts (
         name TEXT PRIMARY KEY,
         body TEXT NOT NULL,
         sha256 TEXT NOT NULL,
         updated_ms BIGINT NOT NULL
     );
     CREATE TABLE models (
         name TEXT PRIMARY KEY,
         body TEXT NOT NULL,
         updated_ms BIGINT NOT NULL
     );",
    "ALTER TABLE runs ADD COLUMN dataset TEXT;
     UPDATE runs SET dataset = body::json ->> 'dataset';
     CREATE INDEX runs_by_label ON runs (run_label, recorded_ms);
     CREATE INDEX runs_by_time ON runs (recorded_ms);
     CREATE INDEX runs_by_dataset ON runs (dataset);
     ALTER TABLE artifacts ADD COLUMN kind TEXT NOT NULL DEFAULT '';
     ALTER TABLE artifacts ADD COLUMN expires_at TEXT NOT NULL DEFAULT '';
     ALTER TABLE artifacts ADD COLUMN promoted BOOLEAN NOT NULL DEFAULT false;
     UPDATE artifacts SET kind = coalesce(body::json ->> 'kind', ''),
                          expires_at = coalesce(body::json ->> 'expiresAt', ''),
                          promoted = coalesce(body::json -> 'promotion', 'null'::json)::text <> 'null';",
    "ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'loop';
     CREATE INDEX runs_by_kind ON runs (kind, seq);",
];

/// PostgreSQL's failure as a store error: a refused login or a missing database (SQLSTATE
/// classes 28 and 3D) and a server not reached are [`StoreProblem::Connect`]; data the
/// schema refuses is [`StoreProblem::Corrupted`]; the rest [`StoreProblem::Io`], with the
/// server's words (never the URL's password: the URL is shown without it).
pub fn pg_error(url: &str, e: &postgres::Error) -> Error {
    match e.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            let problem =
                if code.starts_with("28") || code.starts_with("3D") { StoreProblem::Connect } else { StoreProblem::Io };
            store_error(problem, url, &format!("{}: {}", db.severity(), db.message()))
        }
        None if e.is_closed() => store_error(StoreProblem::Io, url, "the connection to the server was lost"),
        None => store_error(StoreProblem::Io, url, &e.to_string()),
    }
}

fn connect_error(url: &str, e: &postgres::Error) -> Error {
    match e.as_db_error() {
        Some(_) => pg_error(url, e),
        None => store_error(StoreProblem::Connect, url, &e.to_string()),
    }
}

/// Connects to the server `target` names (over TCP or its Unix socket), without TLS, within
/// its connect timeout: the whole handshake runs on a thread the caller stops waiting for
/// when the time is up, so a server that accepts and never answers is an error, not a hang.
pub fn connect(url: &str, target: &PostgresUrl) -> Result<Client, Error> {
    let mut config = Config::new();
    let user = match &target.user {
        Some(user) => user.clone(),
        None => std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .map_err(|_| store_error(StoreProblem::Connect, url, "the URL names no user and USER is not set"))?,
    };
    config.user(&user).host(&target.host).ssl_mode(postgres::config::SslMode::Disable);
    if let Some(password) = &target.password {
        config.password(password);
    }
    if let Some(port) = target.port {
        config.port(port);
    }
    if let Some(dbname) = &target.dbname {
        config.dbname(dbname);
    }
    config.application_name(target.application_name.as_deref().unwrap_or("earlyexit"));
    // A write waits for another's lock (a model's row, a receipt log, the schema) up to 60 s,
    // as SQLite's busy timeout does, then fails naming the store; never forever.
    config.options("-c lock_timeout=60000");
    let timeout = Duration::from_secs(target.connect_timeout_s);
    config.connect_timeout(timeout);
    let (send, receive) = std::sync::mpsc::channel();
    let shown = url.to_string();
    std::thread::Builder::new()
        .name("earlyexit-store-connect".into())
        .spawn(move || {
            let _ = send.send(config.connect(NoTls).map_err(|e| connect_error(&shown, &e)));
        })
        .map_err(|e| store_error(StoreProblem::Io, url, &e.to_string()))?;
    match receive.recv_timeout(timeout + Duration::from_secs(1)) {
        Ok(result) => result,
        Err(_) => Err(store_error(
            StoreProblem::Connect,
            url,
            &format!("no answer within connect_timeout ({} s)", target.connect_timeout_s),
        )),
    }
}

/// What the schema check found wrong (as [`crate::schema::SchemaProblem`]).
pub enum Problem {
    NotStore,
    Newer(i64),
    Corrupted(String),
    Missing,
    Pg(postgres::Error),
}

impl From<postgres::Error> for Problem {
    fn from(e: postgres::Error) -> Self {
        Problem::Pg(e)
    }
}

/// The schema version, read in one snapshot (a process creating the store at the same time
/// is seen either not at all or done, never half: the table checks are two statements).
fn version_of(client: &mut Client) -> Result<Option<i64>, Problem> {
    let mut tx = client.build_transaction().isolation_level(IsolationLevel::RepeatableRead).read_only(true).start()?;
    if !table_exists_tx(&mut tx)? {
        let tables: i64 = tx
            .query_one("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()", &[])?
            .try_get(0)?;
        tx.commit()?;
        return if tables == 0 { Ok(None) } else { Err(Problem::NotStore) };
    }
    let rows = tx.query("SELECT version FROM earlyexit_store", &[])?;
    tx.commit()?;
    match rows.as_slice() {
        [row] => match row.try_get::<_, i64>(0)? {
            v if v >= 1 => Ok(Some(v)),
            _ => Err(Problem::Corrupted("the version table does not hold one schema version".into())),
        },
        _ => Err(Problem::Corrupted("the version table does not hold one schema version".into())),
    }
}

/// Brings the store to `target` (creating it in an empty database unless `existing`), in
/// one transaction under the schema lock, then checks every table and column.
pub fn ensure_version(client: &mut Client, target: i64, existing: bool) -> Result<(), Problem> {
    let current = version_of(client)?;
    if existing && current.is_none() {
        return Err(Problem::Missing);
    }
    let current = current.unwrap_or(0);
    if current > SCHEMA_VERSION {
        return Err(Problem::Newer(current));
    }
    if current < target {
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])?;
        // Read again under the lock: another process may have created or upgraded it.
        let current = if table_exists_tx(&mut tx)? {
            tx.query_one("SELECT version FROM earlyexit_store", &[])?.try_get::<_, i64>(0)?
        } else {
            0
        };
        if current > SCHEMA_VERSION {
            return Err(Problem::Newer(current));
        }
        let mut version = current;
        while version < target {
            let Some(step) = MIGRATIONS.get(version as usize) else { break };
            tx.batch_execute(step)?;
            version += 1;
            tx.execute("UPDATE earlyexit_store SET version = $1", &[&version])?;
        }
        tx.commit()?;
    }
    if target == SCHEMA_VERSION {
        check_tables(client)?;
    }
    Ok(())
}

fn table_exists_tx(tx: &mut postgres::Transaction<'_>) -> Result<bool, postgres::Error> {
    tx.query_one(
        "SELECT EXISTS (SELECT 1 FROM information_schema.tables
                        WHERE table_schema = current_schema() AND table_name = $1)",
        &[&crate::schema::VERSION_TABLE],
    )?
    .try_get(0)
}

fn check_tables(client: &mut Client) -> Result<(), Problem> {
    for (table, columns) in crate::schema::TABLES {
        let found: Vec<String> = client
            .query(
                "SELECT column_name::text FROM information_schema.columns
                 WHERE table_schema = current_schema() AND table_name = $1",
                &[&table],
            )?
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()?;
        for column in columns {
            if !found.iter().any(|f| f == column) {
                return Err(Problem::Corrupted(format!("table {table} lacks column {column}")));
            }
        }
    }
    Ok(())
}

pub fn schema_version(client: &mut Client) -> Result<Option<i64>, postgres::Error> {
    Ok(match client.query_opt("SELECT version FROM earlyexit_store", &[])? {
        Some(row) => Some(row.try_get(0)?),
        None => None,
    })
}

/// Runs `f` in one transaction: committed when it returns `Ok`, rolled back otherwise.
pub fn write<T>(client: &mut Client, url: &str, f: impl FnOnce(&mut Client) -> Result<T, Error>) -> Result<T, Error> {
    client.batch_execute("BEGIN").map_err(|e| pg_error(url, &e))?;
    match f(client) {
        Ok(out) => {
            client.batch_execute("COMMIT").map_err(|e| pg_error(url, &e))?;
            Ok(out)
        }
        Err(e) => {
            // A failed rollback leaves the connection broken; the error said is `f`'s.
            let _ = client.batch_execute("ROLLBACK");
            Err(e)
        }
    }
}

pub fn insert_run(client: &mut Client, url: &str, row: &RunRow) -> Result<crate::Added, Error> {
    let changed = client
        .execute(
            "INSERT INTO runs (run_id, run_label, dataset, recorded_ms, body, kind) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (run_id) DO NOTHING",
            &[&row.run_id, &row.run_label, &row.dataset, &row.recorded_ms, &row.body, &row.kind],
        )
        .map_err(|e| pg_error(url, &e))?;
    if changed == 1 {
        return Ok(crate::Added::Added);
    }
    let found = client
        .query_one("SELECT body, run_label, kind FROM runs WHERE run_id = $1", &[&row.run_id])
        .map_err(|e| pg_error(url, &e))?;
    let body: String = found.try_get(0).map_err(|e| pg_error(url, &e))?;
    let label: Option<String> = found.try_get(1).map_err(|e| pg_error(url, &e))?;
    let kind: String = found.try_get(2).map_err(|e| pg_error(url, &e))?;
    if body == row.body && label == row.run_label && kind == row.kind {
        Ok(crate::Added::AlreadyThere)
    } else {
        Err(earlyexit::kit::host::store::run_id_taken(&row.run_id))
    }
}

pub fn runs(
    client: &mut Client,
    url: &str,
    kind: &str,
    filter: &RunFilter,
    after_seq: Option<i64>,
    each: &mut dyn FnMut(StoredRun) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut sql = String::from("SELECT seq, run_id, run_label, recorded_ms, body FROM runs WHERE kind = $1");
    let mut args: Vec<Box<dyn ToSql + Sync>> = vec![Box::new(kind.to_string())];
    if let Some(after) = after_seq {
        args.push(Box::new(after));
        sql.push_str(&format!(" AND seq > ${}", args.len()));
    }
    if let Some(label) = &filter.run_label {
        args.push(Box::new(label.clone()));
        sql.push_str(&format!(" AND run_label = ${}", args.len()));
    }
    if let Some(dataset) = &filter.dataset {
        args.push(Box::new(dataset.clone()));
        sql.push_str(&format!(" AND dataset = ${}", args.len()));
    }
    if let Some(since) = filter.since_ms {
        args.push(Box::new(since));
        sql.push_str(&format!(" AND recorded_ms >= ${}", args.len()));
    }
    sql.push_str(" ORDER BY seq");
    if let Some(limit) = filter.limit {
        args.push(Box::new(i64::try_from(limit).unwrap_or(i64::MAX)));
        sql.push_str(&format!(" LIMIT ${}", args.len()));
    }
    let refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
    let mut rows = client.query_raw(sql.as_str(), refs).map_err(|e| pg_error(url, &e))?;
    while let Some(row) = rows.next().map_err(|e| pg_error(url, &e))? {
        let run = (|| {
            Ok::<_, postgres::Error>(StoredRun {
                seq: row.try_get(0)?,
                run_id: row.try_get(1)?,
                run_label: row.try_get(2)?,
                recorded_ms: row.try_get(3)?,
                body: row.try_get(4)?,
            })
        })()
        .map_err(|e| pg_error(url, &e))?;
        each(run)?;
    }
    Ok(())
}

pub fn count(client: &mut Client, url: &str, sql: &str) -> Result<i64, Error> {
    client.query_one(sql, &[]).and_then(|r| r.try_get(0)).map_err(|e| pg_error(url, &e))
}

pub fn log_text(client: &mut Client, url: &str, log: &str) -> Result<(String, i64), Error> {
    let rows = client
        .query("SELECT body FROM receipts WHERE log = $1 ORDER BY line", &[&log])
        .map_err(|e| pg_error(url, &e))?;
    let mut text = String::new();
    for row in &rows {
        let line: String = row.try_get(0).map_err(|e| pg_error(url, &e))?;
        text.push_str(&line);
        text.push('\n');
    }
    Ok((text, rows.len() as i64))
}

pub fn append_receipts(client: &mut Client, url: &str, log: &str, receipts: &[earlyexit::Value]) -> Result<u64, Error> {
    write(client, url, |c| {
        c.execute("SELECT pg_advisory_xact_lock(hashtextextended('earlyexit receipts ' || $1, 0))", &[&log])
            .map_err(|e| pg_error(url, &e))?;
        let (text, lines) = log_text(c, url, log)?;
        let appended = earlyexit::receipt_log::append_receipts(&text, receipts, &earlyexit_digest::Sha256Hasher)?;
        let mut n = 0i64;
        for line in appended.lines().filter(|l| !l.is_empty()) {
            n += 1;
            c.execute("INSERT INTO receipts (log, line, body) VALUES ($1, $2, $3)", &[&log, &(lines + n), &line])
                .map_err(|e| pg_error(url, &e))?;
        }
        Ok(u64::try_from(n).unwrap_or(0))
    })
}

pub fn receipt_logs(client: &mut Client, url: &str) -> Result<Vec<(String, u64)>, Error> {
    let rows = client
        .query("SELECT log, count(*) FROM receipts GROUP BY log ORDER BY log", &[])
        .map_err(|e| pg_error(url, &e))?;
    rows.iter()
        .map(|r| {
            let log: String = r.try_get(0)?;
            let n: i64 = r.try_get(1)?;
            Ok((log, u64::try_from(n).unwrap_or(0)))
        })
        .collect::<Result<_, postgres::Error>>()
        .map_err(|e| pg_error(url, &e))
}

pub fn put_artifact(
    client: &mut Client,
    url: &str,
    name: &str,
    body: &str,
    a: &crate::StoredArtifact,
) -> Result<(), Error> {
    write(client, url, |c| {
        c.execute(
            "INSERT INTO artifacts (name, body, sha256, updated_ms, kind, expires_at, promoted)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (name) DO UPDATE SET body = excluded.body, sha256 = excluded.sha256,
               updated_ms = excluded.updated_ms, kind = excluded.kind,
               expires_at = excluded.expires_at, promoted = excluded.promoted",
            &[&name, &body, &a.sha256, &crate::now_ms(), &a.kind, &a.expires_at, &a.promoted],
        )
        .map_err(|e| pg_error(url, &e))?;
        Ok(())
    })
}

pub type ArtifactRow = (String, String, String, String, bool);

pub fn artifact(client: &mut Client, url: &str, name: &str) -> Result<Option<ArtifactRow>, Error> {
    let row = client
        .query_opt("SELECT body, sha256, kind, expires_at, promoted FROM artifacts WHERE name = $1", &[&name])
        .map_err(|e| pg_error(url, &e))?;
    row.map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?)))
        .transpose()
        .map_err(|e: postgres::Error| pg_error(url, &e))
}

/// The read-update-write of an artifact ([`crate::Store::update_artifact`]), its row locked
/// (`SELECT ... FOR UPDATE`) for the whole transaction: concurrent updaters queue.
pub fn update_artifact(
    client: &mut Client,
    url: &str,
    name: &str,
    step: impl FnOnce(Option<ArtifactRow>) -> Result<Option<crate::StoredArtifact>, Error>,
) -> Result<(), Error> {
    write(client, url, |c| {
        let row = c
            .query_opt(
                "SELECT body, sha256, kind, expires_at, promoted FROM artifacts WHERE name = $1 FOR UPDATE",
                &[&name],
            )
            .map_err(|e| pg_error(url, &e))?;
        let row: Option<ArtifactRow> = row
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?)))
            .transpose()
            .map_err(|e: postgres::Error| pg_error(url, &e))?;
        if let Some(a) = step(row)? {
            let body = a.artifact.to_json();
            c.execute(
                "UPDATE artifacts SET body = $2, sha256 = $3, updated_ms = $4, kind = $5, expires_at = $6,
                   promoted = $7 WHERE name = $1",
                &[&name, &body, &a.sha256, &crate::now_ms(), &a.kind, &a.expires_at, &a.promoted],
            )
            .map_err(|e| pg_error(url, &e))?;
        }
        Ok(())
    })
}

/// The read-merge-write of a model, its row locked (`SELECT ... FOR UPDATE`) for the whole
/// transaction: concurrent mergers of one model queue, each reading the one before's result.
pub fn merge_model(
    client: &mut Client,
    url: &str,
    name: &str,
    merge: impl FnOnce(Option<String>) -> Result<String, Error>,
) -> Result<(), Error> {
    write(client, url, |c| {
        // The row exists (empty) before it is locked, so the first two mergers queue too;
        // the empty body is never committed: this transaction writes the merged one.
        c.execute(
            "INSERT INTO models (name, body, updated_ms) VALUES ($1, '', 0) ON CONFLICT (name) DO NOTHING",
            &[&name],
        )
        .map_err(|e| pg_error(url, &e))?;
        let body: String = c
            .query_one("SELECT body FROM models WHERE name = $1 FOR UPDATE", &[&name])
            .and_then(|r| r.try_get(0))
            .map_err(|e| pg_error(url, &e))?;
        let merged = merge(if body.is_empty() { None } else { Some(body) })?;
        c.execute("UPDATE models SET body = $2, updated_ms = $3 WHERE name = $1", &[&name, &merged, &crate::now_ms()])
            .map_err(|e| pg_error(url, &e))?;
        Ok(())
    })
}

pub fn name_bodies(client: &mut Client, url: &str, table: &str) -> Result<Vec<(String, String)>, Error> {
    let sql = match table {
        "artifacts" => "SELECT name, body FROM artifacts ORDER BY name",
        _ => "SELECT name, body FROM models ORDER BY name",
    };
    let rows = client.query(sql, &[]).map_err(|e| pg_error(url, &e))?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect::<Result<_, postgres::Error>>()
        .map_err(|e| pg_error(url, &e))
}

pub fn model_body(client: &mut Client, url: &str, name: &str) -> Result<Option<String>, Error> {
    let row = client.query_opt("SELECT body FROM models WHERE name = $1", &[&name]).map_err(|e| pg_error(url, &e))?;
    row.map(|r| r.try_get(0)).transpose().map_err(|e| pg_error(url, &e))
}

/// What PostgreSQL offers in place of SQLite's integrity check: the schema checked again,
/// and every index readable (the server keeps its pages whole; data checksums are its own).
pub fn integrity(client: &mut Client, url: &str) -> Result<CheckReport, Error> {
    check_tables(client).map_err(|p| match p {
        Problem::Corrupted(d) => store_error(StoreProblem::Corrupted, url, &d),
        Problem::Pg(e) => pg_error(url, &e),
        _ => store_error(StoreProblem::Corrupted, url, "the schema check failed"),
    })?;
    Ok(CheckReport::default())
}
