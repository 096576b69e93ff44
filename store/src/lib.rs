//! The run store of earlyexit: recorded loop runs (the JSONL form replay and calibration
//! read), shadow-mode receipt chains (one append-only chain per log name), calibration
//! artifacts and mergeable pyramid outcome models, in one SQLite file (`sqlite:PATH`), or
//! with the feature `postgres` (the command's), in a PostgreSQL database
//! (`postgresql://...`: the module `pg`, the same schema and promises in the server's terms).
//!
//! Every rule is the core's: runs are read by the replay's reader, receipts chained by the
//! core's receipt log, artifacts read by its envelope reader, models merged by its set
//! union; this crate does the I/O. Every write is one transaction (`BEGIN IMMEDIATE`), so
//! processes sharing a store serialize their writes and a read-merge-write of a model is
//! atomic. The file is in WAL mode with `synchronous=NORMAL`: a committed write survives a
//! crash of the process, not a power loss (the last commits may be lost, the file stays
//! whole).

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
// Without the `postgres` feature the backend has one variant: its matches stay as they are.
#![cfg_attr(not(feature = "postgres"), allow(clippy::infallible_destructuring_match, clippy::match_single_binding))]

pub mod host;
mod open;
#[cfg(feature = "postgres")]
mod pg;
pub mod schema;

use earlyexit::kit::host::store::{self as rules, StoreProblem};
use earlyexit::{Error, ErrorCode, Naming, Value};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

pub use earlyexit::artifact::ReceiptCheck;
pub use earlyexit::kit::host::store::{DEFAULT_STORE_PATH, STORE_ENV};
pub use schema::SCHEMA_VERSION;

/// The receipt log a loop's shadow receipts go to when a binding's `Loop` is given a store
/// and no log name (Python's `Loop(store=...)` and JS's `new Loop({ store })` alike): the
/// core's name, re-exported.
pub use earlyexit::kit::host::store::DEFAULT_LOOP_RECEIPT_LOG;

/// A store, open.
pub struct Store {
    backend: Backend,
    /// The URL as errors show it (a PostgreSQL password replaced by `***`).
    url: String,
}

enum Backend {
    Sqlite(Connection),
    #[cfg(feature = "postgres")]
    Postgres(Box<std::cell::RefCell<postgres::Client>>),
}

/// How [`Store::open`] treats a store that is not there yet.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opening {
    Create(i64),
    Existing,
}

/// What the caller says of a run besides the run itself.
#[derive(Clone, Debug, Default)]
pub struct RunMeta {
    /// The run's id in the store; absent: the SHA-256 of the run's canonical JSON, so the
    /// same run added twice (an import repeated) is one run.
    pub run_id: Option<String>,
    /// A label to select runs by (a branch, an agent version, a runner pool).
    pub run_label: Option<String>,
    /// When it was recorded (milliseconds since the epoch); absent: now.
    pub recorded_ms: Option<i64>,
}

/// Whether [`Store::add_run`] wrote the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// A new run.
    Added,
    /// The same run under the same id was already there: nothing written.
    AlreadyThere,
}

/// Which runs [`Store::runs`] streams.
#[derive(Clone, Debug, Default)]
pub struct RunFilter {
    /// Only runs with this label.
    pub run_label: Option<String>,
    /// Only runs of this dataset.
    pub dataset: Option<String>,
    /// Only runs recorded at or after this time (milliseconds since the epoch).
    pub since_ms: Option<i64>,
    /// At most this many runs (the oldest first).
    pub limit: Option<u64>,
}

/// One stored run.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRun {
    /// The store's sequence number (insertion order).
    pub seq: i64,
    /// The run's id in the store.
    pub run_id: String,
    /// Its label, if it has one.
    pub run_label: Option<String>,
    /// When it was recorded (milliseconds since the epoch).
    pub recorded_ms: i64,
    /// The run: one line of the JSONL form replay and calibration read.
    pub body: String,
}

/// A stored artifact with its lifecycle.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredArtifact {
    /// The artifact document.
    pub artifact: Value,
    /// Its SHA-256 (RFC 8785 canonical JSON), as a loop records it in `policyArtifact`.
    pub sha256: String,
    /// `loop` or `pyramid`.
    pub kind: String,
    /// When it stops being trusted (RFC 3339).
    pub expires_at: String,
    /// Whether it carries a promotion.
    pub promoted: bool,
}

/// What [`Store::check`] counted in a store that passed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// The schema version.
    pub schema_version: i64,
    /// Runs, each read back as a run.
    pub runs: u64,
    /// Receipt logs, each chain verified.
    pub receipt_logs: u64,
    /// Receipt lines over all logs.
    pub receipts: u64,
    /// Artifacts, each read back.
    pub artifacts: u64,
    /// Models, each read back.
    pub models: u64,
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Reads `since` (RFC 3339) as milliseconds since the epoch: `invalid_config` naming `since`.
pub fn since_ms(since: &str) -> Result<i64, Error> {
    earlyexit::time::millis_from_rfc3339(since).ok_or_else(|| rules::bad_since(since))
}

impl Store {
    /// Opens the store at `url` (`sqlite:PATH`, or with the `postgres` feature, the
    /// command's, `postgresql://...`), creating it when it does not exist (a SQLite file with
    /// mode 0600; for the default `.earlyexit/store.db`, the folder too, with a `.gitignore`
    /// holding `*`; in a PostgreSQL database, the tables). The schema is checked; an older
    /// store is upgraded in place, a newer or a damaged one refused (`store` in every error).
    /// A build without the `postgres` feature refuses a `postgresql://` URL (`store`: use the
    /// earlyexit command or its MCP server).
    pub fn open(url: &str) -> Result<Store, Error> {
        Store::open_as(url, Opening::Create(SCHEMA_VERSION))
    }

    /// Opens the store at `url` as [`Store::open`] does, but only when it exists: a missing
    /// file (or a PostgreSQL database without the store's tables) is an error naming `store`
    /// (commands that only read a store never create one).
    pub fn open_existing(url: &str) -> Result<Store, Error> {
        Store::open_as(url, Opening::Existing)
    }

    /// Opens `url` without upgrading it past schema version `version` (tests make older
    /// stores with it).
    #[doc(hidden)]
    pub fn open_at_version(url: &str, version: i64) -> Result<Store, Error> {
        Store::open_as(url, Opening::Create(version))
    }

    fn open_as(url: &str, opening: Opening) -> Result<Store, Error> {
        let shown = rules::display_store_url(url);
        let backend = match rules::parse_store_url(url)? {
            rules::StoreUrl::Sqlite(path) => Backend::Sqlite(match opening {
                Opening::Create(version) => open::connect_at(url, &path, version)?,
                Opening::Existing => open::connect_existing(url, &path)?,
            }),
            #[cfg(feature = "postgres")]
            rules::StoreUrl::Postgres(target) => {
                let mut client = pg::connect(&shown, &target)?;
                let (version, existing) = match opening {
                    Opening::Create(version) => (version, false),
                    Opening::Existing => (SCHEMA_VERSION, true),
                };
                pg::ensure_version(&mut client, version, existing).map_err(|p| match p {
                    pg::Problem::NotStore => rules::store_error(StoreProblem::NotStore, &shown, ""),
                    pg::Problem::Missing => {
                        rules::store_error(StoreProblem::Missing, &shown, "the database holds no store's tables")
                    }
                    pg::Problem::Newer(v) => rules::store_error(
                        StoreProblem::NewerSchema,
                        &shown,
                        &format!("schema version {v}; this release reads up to {SCHEMA_VERSION}"),
                    ),
                    pg::Problem::Corrupted(detail) => rules::store_error(StoreProblem::Corrupted, &shown, &detail),
                    pg::Problem::Pg(e) => pg::pg_error(&shown, &e),
                })?;
                Backend::Postgres(Box::new(std::cell::RefCell::new(client)))
            }
            #[cfg(not(feature = "postgres"))]
            rules::StoreUrl::Postgres(_) => return Err(rules::postgres_not_in_this_build(url)),
        };
        Ok(Store { backend, url: shown })
    }

    /// The URL it was opened with, as errors and reports show it: a PostgreSQL URL's
    /// password replaced by `***`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Which database holds the store: `sqlite` or `postgresql`.
    pub fn backend(&self) -> &'static str {
        match &self.backend {
            Backend::Sqlite(_) => "sqlite",
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => "postgresql",
        }
    }

    /// The schema version of the open store.
    pub fn schema_version(&self) -> Result<i64, Error> {
        match &self.backend {
            Backend::Sqlite(conn) => Ok(schema::version(conn).map_err(|e| self.sqlite(e))?.unwrap_or(0)),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => {
                let url = self.url.clone();
                self.with_pg(|c| Ok(pg::schema_version(c).map_err(|e| pg::pg_error(&url, &e))?.unwrap_or(0)))
            }
        }
    }

    fn sqlite(&self, e: rusqlite::Error) -> Error {
        open::sqlite_error(&self.url, &e)
    }

    /// The PostgreSQL client, for a method that only reads (`&self`): one statement at a
    /// time, so a read started inside another read's callback is an error, not a deadlock.
    #[cfg(feature = "postgres")]
    fn with_pg<T>(&self, f: impl FnOnce(&mut postgres::Client) -> Result<T, Error>) -> Result<T, Error> {
        let Backend::Postgres(cell) = &self.backend else {
            return Err(rules_error(StoreProblem::Io, &self.url, "not a PostgreSQL store"));
        };
        let mut client = cell.try_borrow_mut().map_err(|_| {
            rules_error(StoreProblem::Io, &self.url, "the store is busy with a read this one was started inside")
        })?;
        f(&mut client)
    }

    fn write<T>(&mut self, f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, Error>) -> Result<T, Error> {
        let url = self.url.clone();
        let conn = match &mut self.backend {
            Backend::Sqlite(conn) => conn,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => return Err(rules_error(StoreProblem::Io, &url, "not a SQLite store")),
        };
        let tx =
            conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| open::sqlite_error(&url, &e))?;
        let out = f(&tx)?; // dropping `tx` rolls back
        tx.commit().map_err(|e| open::sqlite_error(&url, &e))?;
        Ok(out)
    }

    // ---- runs

    /// Adds one run (a run object, or its JSON text) in its own transaction. The run is read
    /// as replay reads a line (`invalid_replay` naming `run...`) before anything is written.
    /// The same id with the same run again writes nothing ([`Added::AlreadyThere`]); the same
    /// id with another run is refused (`runId`).
    pub fn add_run(&mut self, run: &Value, meta: &RunMeta) -> Result<Added, Error> {
        let row = prepare_run(run, meta)?;
        self.insert_one(row)
    }

    /// Adds one recorded pyramid run (an object of the JSONL form `replay pyramids` and
    /// `calibrate pyramids` read, or its JSON text) in its own transaction, as
    /// [`Store::add_run`] adds a loop run: read by the core's pyramid run reader first
    /// (`invalid_replay` naming `run...`), idempotent by run id. Pyramid runs are kept apart
    /// from loop runs: [`Store::pyramid_runs`] streams them, [`Store::runs`] never does.
    pub fn add_pyramid_run(&mut self, run: &Value, meta: &RunMeta) -> Result<Added, Error> {
        let row = prepare_pyramid_run(run, meta)?;
        self.insert_one(row)
    }

    fn insert_one(&mut self, row: RunRow) -> Result<Added, Error> {
        match &mut self.backend {
            Backend::Sqlite(_) => self.write(|tx| insert_run(tx, &row)),
            #[cfg(feature = "postgres")]
            Backend::Postgres(cell) => {
                let url = &self.url;
                pg::write(cell.get_mut(), url, |c| pg::insert_run(c, url, &row))
            }
        }
    }

    /// Adds many runs in one transaction: all of them or, on the first that fails, none.
    /// Returns how many were new.
    pub fn add_runs(&mut self, runs: impl IntoIterator<Item = Result<(Value, RunMeta), Error>>) -> Result<u64, Error> {
        self.in_one_transaction(|batch| {
            for item in runs {
                let (run, meta) = item?;
                batch.add_run(&run, &meta)?;
            }
            Ok(batch.added())
        })
    }

    /// Runs `f` with a [`Batch`] whose runs are written in one transaction: committed when
    /// `f` returns `Ok`, rolled back (nothing written) when it returns an error. How an
    /// import streams a file of any size into the store, all or nothing.
    pub fn in_one_transaction<T, E: From<Error>>(
        &mut self,
        f: impl FnOnce(&mut Batch<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let url = self.url.clone();
        match &mut self.backend {
            Backend::Sqlite(conn) => {
                let tx = conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)
                    .map_err(|e| open::sqlite_error(&url, &e))?;
                let mut batch = Batch { tx: BatchTx::Sqlite(&tx), added: 0, url: &url };
                let out = f(&mut batch)?;
                tx.commit().map_err(|e| open::sqlite_error(&url, &e))?;
                Ok(out)
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(cell) => {
                let client = cell.get_mut();
                client.batch_execute("BEGIN").map_err(|e| pg::pg_error(&url, &e))?;
                let mut batch = Batch { tx: BatchTx::Postgres(client), added: 0, url: &url };
                match f(&mut batch) {
                    Ok(out) => {
                        let BatchTx::Postgres(client) = batch.tx else {
                            return Err(rules_error(StoreProblem::Io, &url, "the batch lost its transaction").into());
                        };
                        client.batch_execute("COMMIT").map_err(|e| pg::pg_error(&url, &e))?;
                        Ok(out)
                    }
                    Err(e) => {
                        if let BatchTx::Postgres(client) = batch.tx {
                            let _ = client.batch_execute("ROLLBACK");
                        }
                        Err(e)
                    }
                }
            }
        }
    }

    /// Streams the loop runs `filter` selects, oldest first, to `each` (one row in memory at
    /// a time); `each` may stop the stream by returning an error.
    pub fn runs(&self, filter: &RunFilter, each: impl FnMut(StoredRun) -> Result<(), Error>) -> Result<(), Error> {
        self.runs_of(LOOP, filter, None, each)
    }

    /// [`Store::runs`] from the run after sequence number `after_seq` on (`None`: from the
    /// first): how a binding pages through the runs without holding a statement open between
    /// pages (`filter.limit` is then the page's size; the next page starts after the last
    /// `seq` it got).
    pub fn runs_after(
        &self,
        filter: &RunFilter,
        after_seq: Option<i64>,
        each: impl FnMut(StoredRun) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.runs_of(LOOP, filter, after_seq, each)
    }

    /// Streams the pyramid runs ([`Store::add_pyramid_run`]) `filter` selects, oldest first,
    /// as [`Store::runs`] streams loop runs.
    pub fn pyramid_runs(
        &self,
        filter: &RunFilter,
        each: impl FnMut(StoredRun) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.runs_of(PYRAMID, filter, None, each)
    }

    fn runs_of(
        &self,
        kind: &str,
        filter: &RunFilter,
        after_seq: Option<i64>,
        mut each: impl FnMut(StoredRun) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let conn = match &self.backend {
            Backend::Sqlite(conn) => conn,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => {
                return self.with_pg(|c| pg::runs(c, &self.url, kind, filter, after_seq, &mut each))
            }
        };
        let mut sql = String::from("SELECT seq, run_id, run_label, recorded_ms, body FROM runs WHERE kind = ?");
        let mut args: Vec<rusqlite::types::Value> = vec![kind.to_string().into()];
        if let Some(after) = after_seq {
            sql.push_str(" AND seq > ?");
            args.push(after.into());
        }
        if let Some(label) = &filter.run_label {
            sql.push_str(" AND run_label = ?");
            args.push(label.clone().into());
        }
        if let Some(dataset) = &filter.dataset {
            sql.push_str(" AND dataset = ?");
            args.push(dataset.clone().into());
        }
        if let Some(since) = filter.since_ms {
            sql.push_str(" AND recorded_ms >= ?");
            args.push(since.into());
        }
        sql.push_str(" ORDER BY seq");
        if let Some(limit) = filter.limit {
            sql.push_str(" LIMIT ?");
            args.push(i64::try_from(limit).unwrap_or(i64::MAX).into());
        }
        let mut statement = conn.prepare(&sql).map_err(|e| self.sqlite(e))?;
        let mut rows = statement.query(rusqlite::params_from_iter(args)).map_err(|e| self.sqlite(e))?;
        while let Some(row) = rows.next().map_err(|e| open::sqlite_error(&self.url, &e))? {
            let run = read_run_row(row).map_err(|e| open::sqlite_error(&self.url, &e))?;
            each(run)?;
        }
        Ok(())
    }

    /// How many runs the store holds (loop and pyramid runs).
    pub fn run_count(&self) -> Result<u64, Error> {
        let n: i64 = match &self.backend {
            Backend::Sqlite(conn) => {
                conn.query_row("SELECT count(*) FROM runs", [], |r| r.get(0)).map_err(|e| self.sqlite(e))?
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => self.with_pg(|c| pg::count(c, &self.url, "SELECT count(*) FROM runs"))?,
        };
        Ok(u64::try_from(n).unwrap_or(0))
    }

    // ---- receipts

    /// Appends receipts to the chain of log `log` in one transaction, through the core's
    /// receipt log: each chained to the one before; a receipt of a run already in the log
    /// appends nothing when equal and is refused (`receipts[i].runId`) when it differs.
    /// Returns how many lines were appended.
    pub fn append_receipts(&mut self, log: &str, receipts: &[Value]) -> Result<u64, Error> {
        rules::check_store_name("log", log)?;
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(cell) = &mut self.backend {
            return pg::append_receipts(cell.get_mut(), &self.url, log, receipts);
        }
        self.write(|tx| {
            let (text, lines) = log_text(tx, log).map_err(|e| open::sqlite_error("", &e))?;
            let appended = earlyexit::receipt_log::append_receipts(&text, receipts, &earlyexit_digest::Sha256Hasher)?;
            let mut n = 0u64;
            for (i, line) in appended.lines().filter(|l| !l.is_empty()).enumerate() {
                tx.execute(
                    "INSERT INTO receipts (log, line, body) VALUES (?1, ?2, ?3)",
                    params![log, lines + i as i64 + 1, line],
                )
                .map_err(|e| open::sqlite_error("", &e))?;
                n += 1;
            }
            Ok(n)
        })
    }

    /// The receipt log `log` as JSONL text (empty when there is none): what
    /// `verify_receipts` reads.
    pub fn receipt_log(&self, log: &str) -> Result<String, Error> {
        rules::check_store_name("log", log)?;
        match &self.backend {
            Backend::Sqlite(conn) => Ok(log_text(conn, log).map_err(|e| self.sqlite(e))?.0),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Ok(self.with_pg(|c| pg::log_text(c, &self.url, log))?.0),
        }
    }

    /// Recomputes the chain of log `log` and counts its receipts (the core's
    /// `verify_receipts`).
    pub fn verify_receipts(&self, log: &str) -> Result<ReceiptCheck, Error> {
        let text = self.receipt_log(log)?;
        Ok(earlyexit::receipt_log::verify_receipts(&text, &earlyexit_digest::Sha256Hasher))
    }

    /// The names of the receipt logs, with their line counts.
    pub fn receipt_logs(&self) -> Result<Vec<(String, u64)>, Error> {
        let conn = match &self.backend {
            Backend::Sqlite(conn) => conn,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => return self.with_pg(|c| pg::receipt_logs(c, &self.url)),
        };
        let mut statement =
            conn.prepare("SELECT log, count(*) FROM receipts GROUP BY log ORDER BY log").map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map([], |r| Ok((r.get::<_, String>(0)?, u64::try_from(r.get::<_, i64>(1)?).unwrap_or(0))))
            .map_err(|e| self.sqlite(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sqlite(e))
    }

    // ---- artifacts

    /// Stores a calibration artifact (a document or its JSON text) under `name`, replacing
    /// the one there; it is read by the core's envelope reader first (`invalid_artifact`).
    pub fn put_artifact(&mut self, name: &str, artifact: &Value) -> Result<StoredArtifact, Error> {
        rules::check_store_name("name", name)?;
        let stored = checked_artifact(artifact)?;
        let body = stored.artifact.to_json();
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(cell) = &mut self.backend {
            pg::put_artifact(cell.get_mut(), &self.url, name, &body, &stored)?;
            return Ok(stored);
        }
        self.write(|tx| {
            tx.execute(
                "INSERT INTO artifacts (name, body, sha256, updated_ms, kind, expires_at, promoted)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (name) DO UPDATE SET body = excluded.body, sha256 = excluded.sha256,
                   updated_ms = excluded.updated_ms, kind = excluded.kind,
                   expires_at = excluded.expires_at, promoted = excluded.promoted",
                params![name, body, stored.sha256, now_ms(), stored.kind, stored.expires_at, stored.promoted],
            )
            .map_err(|e| open::sqlite_error("", &e))?;
            Ok(())
        })?;
        Ok(stored)
    }

    /// The artifact stored under `name`, if any.
    pub fn artifact(&self, name: &str) -> Result<Option<StoredArtifact>, Error> {
        rules::check_store_name("name", name)?;
        let row: Option<(String, String, String, String, bool)> = match &self.backend {
            Backend::Sqlite(conn) => conn
                .query_row(
                    "SELECT body, sha256, kind, expires_at, promoted FROM artifacts WHERE name = ?1",
                    [name],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .optional()
                .map_err(|e| self.sqlite(e))?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => self.with_pg(|c| pg::artifact(c, &self.url, name))?,
        };
        let Some((body, sha256, kind, expires_at, promoted)) = row else { return Ok(None) };
        let artifact = Value::parse_json(&body, ErrorCode::InvalidSnapshot, "store")
            .map_err(|e| self.corrupted(&format!("artifact '{name}': {}", e.message())))?;
        Ok(Some(StoredArtifact { artifact, sha256, kind, expires_at, promoted }))
    }

    /// Updates the artifact stored under `name` in one transaction: reads it, hands it to
    /// `update`, and stores the artifact `update` answers (checked as [`Store::put_artifact`]
    /// checks one) before the transaction ends, so that processes updating one artifact at
    /// once queue, each reading what the one before wrote: on SQLite the write lock is taken
    /// first (`BEGIN IMMEDIATE`), on PostgreSQL the artifact's row is locked (`SELECT ... FOR
    /// UPDATE`). `update` answers the artifact to store (`None`: leave it) and a value of its
    /// own, returned. A name the store does not hold is `invalid_config` naming `name`; an
    /// error of `update` writes nothing.
    pub fn update_artifact<T>(
        &mut self,
        name: &str,
        update: impl FnOnce(StoredArtifact) -> Result<(Option<Value>, T), Error>,
    ) -> Result<T, Error> {
        rules::check_store_name("name", name)?;
        let url = self.url.clone();
        let mut out = None;
        let step = |row: Option<(String, String, String, String, bool)>| -> Result<Option<StoredArtifact>, Error> {
            let Some((body, sha256, kind, expires_at, promoted)) = row else {
                return Err(rules::not_in_store("artifact", name));
            };
            let artifact = Value::parse_json(&body, ErrorCode::InvalidSnapshot, "store").map_err(|e| {
                rules_error(StoreProblem::Corrupted, &url, &format!("artifact '{name}': {}", e.message()))
            })?;
            let (new, answer) = update(StoredArtifact { artifact, sha256, kind, expires_at, promoted })?;
            out = Some(answer);
            new.map(|a| checked_artifact(&a)).transpose()
        };
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(cell) = &mut self.backend {
            pg::update_artifact(cell.get_mut(), &self.url, name, step)?;
            return out.ok_or_else(|| rules::not_in_store("artifact", name));
        }
        self.write(|tx| {
            let row = tx
                .query_row(
                    "SELECT body, sha256, kind, expires_at, promoted FROM artifacts WHERE name = ?1",
                    [name],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .optional()
                .map_err(|e| open::sqlite_error(&url, &e))?;
            if let Some(stored) = step(row)? {
                tx.execute(
                    "UPDATE artifacts SET body = ?2, sha256 = ?3, updated_ms = ?4, kind = ?5, expires_at = ?6,
                       promoted = ?7 WHERE name = ?1",
                    params![
                        name,
                        stored.artifact.to_json(),
                        stored.sha256,
                        now_ms(),
                        stored.kind,
                        stored.expires_at,
                        stored.promoted
                    ],
                )
                .map_err(|e| open::sqlite_error(&url, &e))?;
            }
            Ok(())
        })?;
        out.ok_or_else(|| rules::not_in_store("artifact", name))
    }

    /// Every artifact the store holds, by name (in name order), with its lifecycle; an
    /// artifact whose row is not JSON is the store's `invalid_snapshot` error.
    pub fn artifacts(&self) -> Result<Vec<(String, StoredArtifact)>, Error> {
        let mut names: Vec<String> = self.name_bodies("artifacts")?.into_iter().map(|(name, _)| name).collect();
        names.sort();
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            if let Some(stored) = self.artifact(&name)? {
                out.push((name, stored));
            }
        }
        Ok(out)
    }

    // ---- models

    /// Merges `model` (a pyramid outcome model document, either version) into the model
    /// stored under `name` in one transaction (read, the core's set union, write), so that
    /// any number of processes merging at once end with the union of all they merged: on
    /// SQLite the write lock is taken first (`BEGIN IMMEDIATE`), on PostgreSQL the model's
    /// row is locked (`SELECT ... FOR UPDATE`). Returns the merged document.
    pub fn merge_model(&mut self, name: &str, model: &Value) -> Result<Value, Error> {
        rules::check_store_name("name", name)?;
        // A model to merge is a document: null is not one (merging it would be a silent no-op).
        if matches!(model, Value::Null) {
            return Err(earlyexit::kit::host::type_error(
                ErrorCode::InvalidSnapshot,
                "model",
                "a model document",
                model,
            ));
        }
        // Read before the transaction: a model that fails costs no lock.
        earlyexit::kit::pyramid::policy::merge_value(&Value::Null, model)?;
        let url = self.url.clone();
        let merge = |stored: Option<String>| -> Result<Value, Error> {
            let current = match stored {
                Some(text) => Value::parse_json(&text, ErrorCode::InvalidSnapshot, "store").map_err(|e| {
                    rules_error(StoreProblem::Corrupted, &url, &format!("model '{name}': {}", e.message()))
                })?,
                None => Value::Null,
            };
            earlyexit::kit::pyramid::policy::merge_value(&current, model)
        };
        #[cfg(feature = "postgres")]
        if let Backend::Postgres(cell) = &mut self.backend {
            let mut out = Value::Null;
            pg::merge_model(cell.get_mut(), &self.url, name, |stored| {
                out = merge(stored)?;
                Ok(out.to_json())
            })?;
            return Ok(out);
        }
        self.write(|tx| {
            let stored: Option<String> = tx
                .query_row("SELECT body FROM models WHERE name = ?1", [name], |r| r.get(0))
                .optional()
                .map_err(|e| open::sqlite_error(&url, &e))?;
            let merged = merge(stored)?;
            tx.execute(
                "INSERT INTO models (name, body, updated_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (name) DO UPDATE SET body = excluded.body, updated_ms = excluded.updated_ms",
                params![name, merged.to_json(), now_ms()],
            )
            .map_err(|e| open::sqlite_error(&url, &e))?;
            Ok(merged)
        })
    }

    /// The model stored under `name`, if any.
    pub fn model(&self, name: &str) -> Result<Option<Value>, Error> {
        rules::check_store_name("name", name)?;
        let text: Option<String> = match &self.backend {
            Backend::Sqlite(conn) => conn
                .query_row("SELECT body FROM models WHERE name = ?1", [name], |r| r.get(0))
                .optional()
                .map_err(|e| self.sqlite(e))?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => self.with_pg(|c| pg::model_body(c, &self.url, name))?,
        };
        text.map(|t| {
            Value::parse_json(&t, ErrorCode::InvalidSnapshot, "store")
                .map_err(|e| self.corrupted(&format!("model '{name}': {}", e.message())))
        })
        .transpose()
    }

    // ---- integrity

    /// The whole store checked (O(size)): on SQLite its integrity check, on PostgreSQL the
    /// schema again (the server keeps its pages whole); then every run, receipt chain,
    /// artifact and model read back by the core's readers. The first problem is a
    /// `Corrupted` error naming it; nothing is repaired.
    pub fn check(&self) -> Result<CheckReport, Error> {
        match &self.backend {
            Backend::Sqlite(conn) => {
                let mut statement = conn.prepare("PRAGMA integrity_check").map_err(|e| self.sqlite(e))?;
                let findings: Vec<String> = statement
                    .query_map([], |r| r.get(0))
                    .map_err(|e| self.sqlite(e))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| self.sqlite(e))?;
                if findings.as_slice() != ["ok"] {
                    let first = findings.first().cloned().unwrap_or_default();
                    return Err(self.corrupted(&format!("integrity check: {first}")));
                }
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => {
                self.with_pg(|c| pg::integrity(c, &self.url))?;
            }
        }
        let mut report = CheckReport { schema_version: self.schema_version()?, ..CheckReport::default() };
        self.runs(&RunFilter::default(), |run| {
            let value = Value::parse_json(&run.body, ErrorCode::InvalidReplay, "run")
                .and_then(|v| earlyexit::ReplayRun::from_value(&v, Naming::Js, "run").map(|_| ()));
            if let Err(e) = value {
                return Err(self.corrupted(&format!("run '{}': {}", run.run_id, e.message())));
            }
            report.runs += 1;
            Ok(())
        })?;
        self.pyramid_runs(&RunFilter::default(), |run| {
            if let Err(e) = earlyexit::kit::pyramid::replay::read_run_line(&run.body, Naming::Js, "run") {
                return Err(self.corrupted(&format!("pyramid run '{}': {}", run.run_id, e.message())));
            }
            report.runs += 1;
            Ok(())
        })?;
        for (log, lines) in self.receipt_logs()? {
            let check = self.verify_receipts(&log)?;
            if let Some(b) = &check.broken {
                return Err(self.corrupted(&format!("receipt log '{log}' line {}: {}", b.line, b.reason)));
            }
            report.receipt_logs += 1;
            report.receipts += lines;
        }
        for (name, body) in self.name_bodies("artifacts")? {
            let read = Value::parse_json(&body, ErrorCode::InvalidArtifact, "artifact")
                .and_then(|v| earlyexit::artifact::Artifact::from_value(&v).map(|_| ()));
            if let Err(e) = read {
                return Err(self.corrupted(&format!("artifact '{name}': {}", e.message())));
            }
            report.artifacts += 1;
        }
        for (name, body) in self.name_bodies("models")? {
            let read = Value::parse_json(&body, ErrorCode::InvalidSnapshot, "model")
                .and_then(|v| earlyexit::kit::pyramid::policy::merge_value(&Value::Null, &v).map(|_| ()));
            if let Err(e) = read {
                return Err(self.corrupted(&format!("model '{name}': {}", e.message())));
            }
            report.models += 1;
        }
        Ok(report)
    }

    /// Every `(name, body)` of `artifacts` or `models`.
    fn name_bodies(&self, table: &str) -> Result<Vec<(String, String)>, Error> {
        let conn = match &self.backend {
            Backend::Sqlite(conn) => conn,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => return self.with_pg(|c| pg::name_bodies(c, &self.url, table)),
        };
        let sql =
            if table == "artifacts" { "SELECT name, body FROM artifacts" } else { "SELECT name, body FROM models" };
        let mut statement = conn.prepare(sql).map_err(|e| self.sqlite(e))?;
        let rows: Vec<(String, String)> = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sqlite(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sqlite(e))?;
        Ok(rows)
    }

    fn corrupted(&self, detail: &str) -> Error {
        rules_error(StoreProblem::Corrupted, &self.url, detail)
    }
}

/// An artifact (a document or its JSON text) read by the core's envelope reader, its
/// promotion checked, with its lifecycle columns: what the store writes.
fn checked_artifact(artifact: &Value) -> Result<StoredArtifact, Error> {
    let document = earlyexit::artifact::document(artifact)?.into_owned();
    let read = earlyexit::artifact::Artifact::from_value(&document)?;
    read.check_promotion(&earlyexit_digest::Sha256Hasher)?;
    let sha256 = earlyexit_digest::value_sha256(&document, ErrorCode::InvalidArtifact, "artifact")?;
    Ok(StoredArtifact {
        kind: read.kind.as_str().to_string(),
        expires_at: read.expires_at.clone(),
        promoted: read.promotion.is_some(),
        sha256,
        artifact: document,
    })
}

fn rules_error(problem: StoreProblem, url: &str, detail: &str) -> Error {
    rules::store_error(problem, url, detail)
}

/// Runs written in one transaction ([`Store::in_one_transaction`]).
pub struct Batch<'t> {
    tx: BatchTx<'t>,
    added: u64,
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    url: &'t str,
}

enum BatchTx<'t> {
    Sqlite(&'t rusqlite::Transaction<'t>),
    #[cfg(feature = "postgres")]
    Postgres(&'t mut postgres::Client),
}

impl Batch<'_> {
    /// Adds a run as [`Store::add_run`] does, inside the batch's transaction.
    pub fn add_run(&mut self, run: &Value, meta: &RunMeta) -> Result<Added, Error> {
        let row = prepare_run(run, meta)?;
        self.insert(row)
    }

    /// Adds a pyramid run as [`Store::add_pyramid_run`] does, inside the batch's transaction.
    pub fn add_pyramid_run(&mut self, run: &Value, meta: &RunMeta) -> Result<Added, Error> {
        let row = prepare_pyramid_run(run, meta)?;
        self.insert(row)
    }

    fn insert(&mut self, row: RunRow) -> Result<Added, Error> {
        let added = match &mut self.tx {
            BatchTx::Sqlite(tx) => insert_run(tx, &row)?,
            #[cfg(feature = "postgres")]
            BatchTx::Postgres(client) => pg::insert_run(client, self.url, &row)?,
        };
        if added == Added::Added {
            self.added += 1;
        }
        Ok(added)
    }

    /// How many new runs the batch added so far.
    pub fn added(&self) -> u64 {
        self.added
    }
}

pub(crate) struct RunRow {
    pub(crate) run_id: String,
    pub(crate) run_label: Option<String>,
    pub(crate) dataset: Option<String>,
    pub(crate) recorded_ms: i64,
    pub(crate) body: String,
    pub(crate) kind: &'static str,
}

/// The kind of a loop run in the `runs` table.
const LOOP: &str = "loop";
/// The kind of a pyramid run in the `runs` table.
const PYRAMID: &str = "pyramid";

/// A run given as a document or as its JSON text, as a document.
fn run_document(run: &Value) -> Result<std::borrow::Cow<'_, Value>, Error> {
    match run {
        Value::String(text) => Ok(std::borrow::Cow::Owned(Value::parse_json(text, ErrorCode::InvalidReplay, "run")?)),
        other => Ok(std::borrow::Cow::Borrowed(other)),
    }
}

fn prepare_pyramid_run(run: &Value, meta: &RunMeta) -> Result<RunRow, Error> {
    let run = &*run_document(run)?;
    earlyexit::pyramid::replay::RecordedRun::from_value(run, Naming::Js, "run")?;
    let mut row = row_of(run, meta, None)?;
    row.dataset = match run.get("dataset") {
        Some(Value::String(d)) => Some(d.clone()),
        _ => None,
    };
    row.kind = PYRAMID;
    Ok(row)
}

fn prepare_run(run: &Value, meta: &RunMeta) -> Result<RunRow, Error> {
    let run = &*run_document(run)?;
    let read = earlyexit::ReplayRun::from_value(run, Naming::Js, "run")?;
    row_of(run, meta, read.dataset)
}

fn row_of(run: &Value, meta: &RunMeta, dataset: Option<String>) -> Result<RunRow, Error> {
    let body = run.to_json();
    if body.len() > earlyexit::limits::MAX_DOCUMENT_BYTES {
        return Err(earlyexit::kit::host::problem(
            earlyexit::kit::host::Problem::Size,
            ErrorCode::InvalidReplay,
            "run",
            run,
        ));
    }
    let run_id = match &meta.run_id {
        Some(id) => {
            rules::check_run_id(id)?;
            id.clone()
        }
        None => earlyexit_digest::value_sha256(run, ErrorCode::InvalidReplay, "run")?,
    };
    if let Some(label) = &meta.run_label {
        rules::check_store_name("runLabel", label)?;
    }
    Ok(RunRow {
        run_id,
        run_label: meta.run_label.clone(),
        dataset,
        recorded_ms: meta.recorded_ms.unwrap_or_else(now_ms),
        body,
        kind: LOOP,
    })
}

fn insert_run(tx: &rusqlite::Transaction<'_>, row: &RunRow) -> Result<Added, Error> {
    let changed = tx
        .execute(
            "INSERT INTO runs (run_id, run_label, dataset, recorded_ms, body, kind) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (run_id) DO NOTHING",
            params![row.run_id, row.run_label, row.dataset, row.recorded_ms, row.body, row.kind],
        )
        .map_err(|e| open::sqlite_error("", &e))?;
    if changed == 1 {
        return Ok(Added::Added);
    }
    let (body, label, kind): (String, Option<String>, String) = tx
        .query_row("SELECT body, run_label, kind FROM runs WHERE run_id = ?1", [&row.run_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .map_err(|e| open::sqlite_error("", &e))?;
    if body == row.body && label == row.run_label && kind == row.kind {
        Ok(Added::AlreadyThere)
    } else {
        Err(rules::run_id_taken(&row.run_id))
    }
}

fn read_run_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRun> {
    Ok(StoredRun {
        seq: row.get(0)?,
        run_id: row.get(1)?,
        run_label: row.get(2)?,
        recorded_ms: row.get(3)?,
        body: row.get(4)?,
    })
}

fn log_text(conn: &Connection, log: &str) -> rusqlite::Result<(String, i64)> {
    let mut statement = conn.prepare("SELECT body FROM receipts WHERE log = ?1 ORDER BY line")?;
    let mut rows = statement.query([log])?;
    let mut text = String::new();
    let mut lines = 0i64;
    while let Some(row) = rows.next()? {
        let line: String = row.get(0)?;
        text.push_str(&line);
        text.push('\n');
        lines += 1;
    }
    Ok((text, lines))
}
