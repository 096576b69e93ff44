//! What the store's tests share: runs, receipts and models built through the core.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::replay::LoopPolicy;
use earlyexit::loops::shadow::ShadowCandidate;
use earlyexit::loops::{Loop, LoopOptions, StepInput};
use earlyexit::{ErrorCode, Naming, Value};

/// A store URL in `dir`.
pub fn url(dir: &std::path::Path, name: &str) -> String {
    format!("sqlite:{}", dir.join(name).display())
}

/// A run of the replay form: `id`, with one iteration per quality.
pub fn run(id: &str, qualities: &[f64]) -> Value {
    let iterations: Vec<String> = qualities
        .iter()
        .map(|q| {
            let status = if *q >= 90.0 { "passed" } else { "failed" };
            format!(r#"{{"quality_score": {q}, "confidence": 0.5, "verification_status": "{status}"}}"#)
        })
        .collect();
    let text = format!(r#"{{"id": "{id}", "dataset": "d", "iterations": [{}]}}"#, iterations.join(", "));
    Value::parse_json(&text, ErrorCode::InvalidReplay, "run").unwrap()
}

/// A loop receipt of run `run_id`, from a shadow candidate that stops at the second iteration.
pub fn receipt(run_id: &str) -> Value {
    let policy =
        Value::parse_json(r#"{"any": [{"condition": "max_iterations", "limit": 2}]}"#, ErrorCode::InvalidConfig, "")
            .unwrap();
    let candidate = ShadowCandidate::from_value(&policy, Naming::Js, 0, &earlyexit_digest::Sha256Hasher).unwrap();
    let options = LoopOptions { max_iterations: Some(4), task: Some("t-1".into()), ..Default::default() };
    let mut l = Loop::with_shadow(&LoopPolicy::recommended(), options, candidate).unwrap();
    for i in 0..4 {
        let input = StepInput { good: (i == 3).then_some(true), ..Default::default() };
        let d =
            l.step(format!("out {i}"), 40.0 + i as f64 * 10.0, input, || "2026-01-01T00:00:00.000Z".into()).unwrap();
        if d.stop {
            break;
        }
    }
    l.finish(None, run_id);
    l.receipt(run_id).unwrap()
}

/// A model that learned build `id` (sequence `seq`) where layer `unit` failed when `failed`.
pub fn model_of(id: &str, seq: u64, failed: bool) -> Value {
    let ran = Value::parse_json(
        &format!(r#"[{{"name": "unit", "failed": {failed}}}, {{"name": "e2e", "failed": false}}]"#),
        ErrorCode::InvalidConfig,
        "ran",
    )
    .unwrap();
    let build =
        Value::parse_json(&format!(r#"{{"id": "{id}", "seq": {seq}}}"#), ErrorCode::InvalidConfig, "build").unwrap();
    earlyexit::kit::pyramid::policy::learn_value(&Value::Null, &ran, &build, Naming::Js).unwrap()
}

/// The model learned from all of `builds` (id, seq, failed), in one process.
pub fn learned_from(builds: &[(String, u64, bool)]) -> Value {
    let mut model = Value::Null;
    for (id, seq, failed) in builds {
        model = earlyexit::kit::pyramid::policy::merge_value(&model, &model_of(id, *seq, *failed)).unwrap();
    }
    model
}

/// Where a test's stores live: SQLite files in a temporary folder, or databases made on the
/// PostgreSQL server `EARLYEXIT_TEST_POSTGRES` names (each dropped when the fixture is).
pub enum Fixture {
    Sqlite(tempfile::TempDir),
    #[cfg(feature = "postgres")]
    Postgres {
        base: String,
        made: std::cell::RefCell<Vec<String>>,
    },
}

/// The variable naming a PostgreSQL server's URL for the PostgreSQL half of the suites.
pub const POSTGRES_ENV: &str = "EARLYEXIT_TEST_POSTGRES";

impl Fixture {
    pub fn sqlite() -> Fixture {
        Fixture::Sqlite(tempfile::tempdir().unwrap())
    }

    /// The PostgreSQL fixture, or `None` (the test skips, saying why) without a server.
    pub fn postgres() -> Option<Fixture> {
        let base = std::env::var(POSTGRES_ENV).ok().filter(|v| !v.is_empty());
        #[cfg(feature = "postgres")]
        if let Some(base) = base {
            return Some(Fixture::Postgres { base, made: std::cell::RefCell::new(Vec::new()) });
        }
        #[cfg(not(feature = "postgres"))]
        if base.is_some() {
            panic!("{POSTGRES_ENV} is set but the tests are built without --features postgres");
        }
        eprintln!("skipped: no PostgreSQL server ({POSTGRES_ENV} unset; make test-integrations starts one)");
        None
    }

    pub fn is_postgres(&self) -> bool {
        !matches!(self, Fixture::Sqlite(_))
    }

    /// The URL of a new, empty store named `name`.
    pub fn fresh(&self, name: &str) -> String {
        match self {
            Fixture::Sqlite(dir) => url(dir.path(), &format!("{name}.db")),
            #[cfg(feature = "postgres")]
            Fixture::Postgres { base, made } => {
                static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
                let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let db = format!("earlyexit_test_{}_{n}_{}", std::process::id(), name.replace(['-', '.'], "_"));
                let mut admin = pg_client(base);
                admin.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
                made.borrow_mut().push(db.clone());
                with_dbname(base, &db)
            }
        }
    }

    /// Runs `sql` on the store at `url` directly (another program writing to it).
    pub fn exec(&self, url: &str, sql: &str) {
        match self {
            Fixture::Sqlite(_) => {
                let conn = rusqlite::Connection::open(url.strip_prefix("sqlite:").unwrap()).unwrap();
                conn.execute_batch(sql).unwrap();
            }
            #[cfg(feature = "postgres")]
            Fixture::Postgres { .. } => pg_client(url).batch_execute(sql).unwrap(),
        }
    }
}

#[cfg(feature = "postgres")]
impl Drop for Fixture {
    fn drop(&mut self) {
        if let Fixture::Postgres { base, made } = self {
            let mut admin = pg_client(base);
            for db in made.borrow().iter() {
                let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
            }
        }
    }
}

/// A client of the server `url` names (the tests' own connection, not the store's).
#[cfg(feature = "postgres")]
pub fn pg_client(url: &str) -> postgres::Client {
    let earlyexit::kit::host::store::StoreUrl::Postgres(u) = earlyexit::kit::host::store::parse_store_url(url).unwrap()
    else {
        panic!("{url} is not a PostgreSQL URL")
    };
    let mut config = postgres::Config::new();
    config.host(&u.host).user(u.user.as_deref().unwrap_or("postgres"));
    if let Some(p) = &u.password {
        config.password(p);
    }
    if let Some(p) = u.port {
        config.port(p);
    }
    if let Some(d) = &u.dbname {
        config.dbname(d);
    }
    config.connect(postgres::NoTls).unwrap()
}

/// `url` with its database replaced by `db`.
#[cfg(feature = "postgres")]
pub fn with_dbname(url: &str, db: &str) -> String {
    let earlyexit::kit::host::store::StoreUrl::Postgres(u) = earlyexit::kit::host::store::parse_store_url(url).unwrap()
    else {
        panic!("{url} is not a PostgreSQL URL")
    };
    let user = u.user.map(|x| format!("{x}@")).unwrap_or_default();
    let port = u.port.map(|p| format!("&port={p}")).unwrap_or_default();
    let password = u.password.map(|p| format!("&password={p}")).unwrap_or_default();
    let host = u.host.replace(' ', "%20");
    format!("postgresql://{user}/{db}?host={host}{port}{password}")
}

/// A recorded pyramid run (the form `replay pyramids` and `calibrate pyramids` read): four
/// layers, some failed.
pub fn pyramid_run_line(r: usize) -> String {
    let layers: Vec<String> = (0..4)
        .map(|j| {
            format!(
                r#"{{"name":"l{j}","durationMs":{},"failed":{}}}"#,
                100 * (j + 1),
                (r * 7 + j * 3).is_multiple_of(13)
            )
        })
        .collect();
    format!(r#"{{"id":"p{r}","layers":[{}]}}"#, layers.join(","))
}
