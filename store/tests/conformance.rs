//! The store's contract, one suite for both backends: runs (idempotent by id, filters,
//! streaming), receipt chains through the core, artifacts, models merged as a set union, the
//! schema's versions, the URL checks, and hostile input refused before anything is written.
//! Each case runs on SQLite (`sqlite::`) and on PostgreSQL (`postgres::`, when
//! `EARLYEXIT_TEST_POSTGRES` names a server and the tests are built with `--features
//! postgres`; otherwise each says it skipped). The file's own checks are SQLite's only.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod support;

use earlyexit::{ErrorCode, Value};
use earlyexit_store::{Added, RunFilter, RunMeta, Store, SCHEMA_VERSION};
use support::{learned_from, model_of, receipt, run, url, Fixture};

fn store(fx: &Fixture) -> Store {
    Store::open(&fx.fresh("store")).unwrap()
}

/// Each case as two tests: `sqlite::NAME` and `postgres::NAME`.
macro_rules! both_backends {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $case() { super::$case(&super::Fixture::sqlite()) })*
        }
        mod postgres {
            $(#[test] fn $case() { if let Some(fx) = super::Fixture::postgres() { super::$case(&fx) } })*
        }
    };
}

both_backends!(
    a_run_added_twice_is_one_run_and_another_run_under_its_id_is_refused,
    runs_stream_by_label_dataset_time_and_limit,
    bad_runs_are_refused_before_anything_is_written,
    hostile_runs_deep_huge_and_repeated_are_typed_errors,
    receipts_chain_per_log_idempotent_by_run_id,
    models_merge_as_a_set_union,
    artifacts_are_read_before_they_are_stored,
    another_programs_database_is_not_a_store,
    an_older_store_is_upgraded_in_place_and_a_newer_one_refused,
    a_run_row_another_program_edited_fails_the_check,
    a_store_only_read_is_never_created,
    batches_are_all_or_nothing_and_reads_stream,
    pyramid_runs_are_kept_apart_from_loop_runs,
    runs_page_after_a_sequence_number_and_cover_every_run_once,
    an_artifact_updates_in_one_transaction,
);

fn pyramid_runs_are_kept_apart_from_loop_runs(fx: &Fixture) {
    let mut s = store(fx);
    let lines: Vec<String> = (0..8).map(support::pyramid_run_line).collect();
    let meta = RunMeta { run_label: Some("ci".into()), ..Default::default() };
    for line in &lines {
        assert_eq!(s.add_pyramid_run(&Value::string(line.as_str()), &meta).unwrap(), Added::Added);
    }
    assert_eq!(s.add_pyramid_run(&Value::string(lines[0].as_str()), &meta).unwrap(), Added::AlreadyThere);
    s.add_run(&run("loop-1", &[50.0]), &meta).unwrap();
    // The same body as a loop run is not a loop run: refused by the loop reader.
    assert_eq!(s.add_run(&Value::string(lines[0].as_str()), &meta).unwrap_err().code(), "invalid_replay");
    let mut pyramids = Vec::new();
    s.pyramid_runs(&RunFilter { run_label: Some("ci".into()), ..Default::default() }, |r| {
        pyramids.push(r.body);
        Ok(())
    })
    .unwrap();
    assert_eq!(pyramids.len(), 8);
    let first = Value::parse_json(&lines[0], ErrorCode::InvalidReplay, "run").unwrap();
    assert_eq!(Value::parse_json(&pyramids[0], ErrorCode::InvalidReplay, "run").unwrap(), first);
    assert_eq!(all_runs(&s, &RunFilter::default()).len(), 1, "runs() streams loop runs only");
    let e = s.add_pyramid_run(&run("loop-2", &[1.0]), &meta).unwrap_err();
    assert_eq!(e.code(), "invalid_replay", "{}", e.message());
    let report = s.check().unwrap();
    assert_eq!((report.schema_version, report.runs), (SCHEMA_VERSION, 9));
    // A batch takes both kinds, all or nothing.
    let r: Result<(), earlyexit::Error> = s.in_one_transaction(|b| {
        b.add_run(&run("loop-3", &[1.0]), &RunMeta::default())?;
        b.add_pyramid_run(&Value::string("{\"id\": 1}"), &RunMeta::default())?;
        Ok(())
    });
    assert!(r.is_err());
    assert_eq!(s.run_count().unwrap(), 9);
}

fn all_runs(s: &Store, filter: &RunFilter) -> Vec<earlyexit_store::StoredRun> {
    let mut out = Vec::new();
    s.runs(filter, |r| {
        out.push(r);
        Ok(())
    })
    .unwrap();
    out
}

fn a_run_added_twice_is_one_run_and_another_run_under_its_id_is_refused(fx: &Fixture) {
    let mut s = store(fx);
    let a = run("task-1", &[40.0, 95.0]);
    assert_eq!(s.add_run(&a, &RunMeta::default()).unwrap(), Added::Added);
    assert_eq!(s.add_run(&a, &RunMeta::default()).unwrap(), Added::AlreadyThere);
    let meta = RunMeta { run_id: Some("r-1".into()), ..Default::default() };
    assert_eq!(s.add_run(&a, &meta).unwrap(), Added::Added);
    let e = s.add_run(&run("task-1", &[50.0]), &meta).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "runId"));
    assert_eq!(s.run_count().unwrap(), 2);
    let runs = all_runs(&s, &RunFilter::default());
    assert_eq!(runs[1].run_id, "r-1");
    // The body is the replay form: it reads back as a run.
    let back = Value::parse_json(&runs[0].body, ErrorCode::InvalidReplay, "run").unwrap();
    assert_eq!(back, a);
}

fn runs_stream_by_label_dataset_time_and_limit(fx: &Fixture) {
    let mut s = store(fx);
    for i in 0..10 {
        let meta = RunMeta {
            run_label: Some(if i % 2 == 0 { "main" } else { "pr" }.into()),
            recorded_ms: Some(1_000 * i),
            ..Default::default()
        };
        s.add_run(&run(&format!("t{i}"), &[10.0 * i as f64]), &meta).unwrap();
    }
    let main = RunFilter { run_label: Some("main".into()), ..Default::default() };
    assert_eq!(all_runs(&s, &main).len(), 5);
    let since = RunFilter { since_ms: Some(7_000), ..Default::default() };
    assert_eq!(all_runs(&s, &since).iter().map(|r| r.recorded_ms).collect::<Vec<_>>(), [7_000, 8_000, 9_000]);
    let limit = RunFilter { limit: Some(3), dataset: Some("d".into()), ..Default::default() };
    assert_eq!(all_runs(&s, &limit).len(), 3);
    let none = RunFilter { dataset: Some("other".into()), ..Default::default() };
    assert!(all_runs(&s, &none).is_empty());
    assert_eq!(earlyexit_store::since_ms("1970-01-01T00:00:07Z").unwrap(), 7_000);
    let e = earlyexit_store::since_ms("yesterday").unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "since"));
}

fn bad_runs_are_refused_before_anything_is_written(fx: &Fixture) {
    let mut s = store(fx);
    let bad = Value::parse_json(
        r#"{"id": "x", "iterations": [{"quality_score": 101, "confidence": 0.5, "verification_status": "passed"}]}"#,
        ErrorCode::InvalidReplay,
        "run",
    )
    .unwrap();
    let e = s.add_run(&bad, &RunMeta::default()).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "run.iterations[0].quality_score"));
    let e = s.add_run(&Value::String("{not json".into()), &RunMeta::default()).unwrap_err();
    assert_eq!(e.code(), "invalid_replay");
    let e = s.add_run(&run("a", &[1.0]), &RunMeta { run_id: Some(String::new()), ..Default::default() }).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "runId"));
    let long = "x".repeat(257);
    let e = s.add_run(&run("a", &[1.0]), &RunMeta { run_label: Some(long), ..Default::default() }).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "runLabel"));
    // A batch with one bad run writes none of them.
    let batch = vec![
        Ok((run("ok-1", &[1.0]), RunMeta::default())),
        Ok((run("ok-2", &[2.0]), RunMeta::default())),
        Ok((bad, RunMeta::default())),
    ];
    assert!(s.add_runs(batch).is_err());
    assert_eq!(s.run_count().unwrap(), 0);
}

fn hostile_runs_deep_huge_and_repeated_are_typed_errors(fx: &Fixture) {
    let mut s = store(fx);
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let e = s.add_run(&Value::String(deep), &RunMeta::default()).unwrap_err();
    assert_eq!(e.code(), "invalid_replay");
    // A run over the document limit (256 MiB) is refused by the reader; one of 100,000
    // iterations (about 8 MB) is a run like any other.
    let big: Vec<f64> = (0..100_000).map(|i| (i % 100) as f64).collect();
    assert_eq!(s.add_run(&run("big", &big), &RunMeta::default()).unwrap(), Added::Added);
    let mut n = 0;
    for _ in 0..3 {
        if s.add_run(&run("same", &[1.0]), &RunMeta::default()).unwrap() == Added::Added {
            n += 1;
        }
    }
    assert_eq!(n, 1);
    assert_eq!(s.check().unwrap().runs, 2);
}

fn receipts_chain_per_log_idempotent_by_run_id(fx: &Fixture) {
    let mut s = store(fx);
    let a = receipt("run-a");
    assert_eq!(s.append_receipts("main", std::slice::from_ref(&a)).unwrap(), 1);
    assert_eq!(
        s.append_receipts("main", std::slice::from_ref(&a)).unwrap(),
        0,
        "the same receipt again appends nothing"
    );
    assert_eq!(s.append_receipts("main", &[receipt("run-b"), receipt("run-c")]).unwrap(), 2);
    assert_eq!(s.append_receipts("nightly", std::slice::from_ref(&a)).unwrap(), 1, "each log is its own chain");
    let check = s.verify_receipts("main").unwrap();
    assert!(check.valid(), "{:?}", check.broken);
    assert_eq!(check.receipts, 3);
    // The stored log is the file the command writes: the same lines.
    let file = earlyexit::receipt_log::append_receipts(
        "",
        &[a, receipt("run-b"), receipt("run-c")],
        &earlyexit_digest::Sha256Hasher,
    )
    .unwrap();
    assert_eq!(s.receipt_log("main").unwrap(), file);
    // Another receipt of run-a (a different run label) is refused; nothing appended.
    let mut other = receipt("run-a");
    if let Value::Object(entries) = &mut other {
        entries.push(("runLabel".into(), Value::string("pr")));
    }
    let e = s.append_receipts("main", &[receipt("run-d"), other]).unwrap_err();
    assert_eq!(e.code(), "invalid_receipt");
    assert_eq!(s.verify_receipts("main").unwrap().receipts, 3);
    assert_eq!(s.receipt_logs().unwrap(), [("main".to_string(), 3), ("nightly".to_string(), 1)]);
    let e = s.append_receipts("", &[receipt("x")]).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "log"));
}

fn models_merge_as_a_set_union(fx: &Fixture) {
    let mut s = store(fx);
    let builds: Vec<(String, u64, bool)> = (0..6).map(|i| (format!("b{i}"), i, i % 3 == 0)).collect();
    for (id, seq, failed) in builds.iter().rev() {
        s.merge_model("ci", &model_of(id, *seq, *failed)).unwrap();
    }
    // Merging a build already there again changes nothing.
    s.merge_model("ci", &model_of("b2", 2, false)).unwrap();
    assert_eq!(s.model("ci").unwrap(), Some(learned_from(&builds)));
    // The same build with another outcome is refused, and the model is unchanged.
    let e = s.merge_model("ci", &model_of("b2", 2, true)).unwrap_err();
    assert_eq!(e.code(), "invalid_snapshot");
    assert_eq!(s.model("ci").unwrap(), Some(learned_from(&builds)));
    let e = s.merge_model("ci", &Value::string("not a model")).unwrap_err();
    assert_eq!(e.code(), "invalid_snapshot");
    assert_eq!(s.model("absent").unwrap(), None);
}

fn artifacts_are_read_before_they_are_stored(fx: &Fixture) {
    let mut s = store(fx);
    let mut runs = String::new();
    for i in 0..5 {
        runs.push_str(&run(&format!("t{i}"), &[40.0, 95.0]).to_json());
        runs.push('\n');
    }
    let options = Value::parse_json(r#"{"risk": 0.2, "delta": 0.2}"#, ErrorCode::InvalidConfig, "options").unwrap();
    let artifact = earlyexit_calibrate_like(&Value::String(runs), &options);
    let stored = s.put_artifact("agent", &artifact).unwrap();
    assert_eq!(stored.kind, "loop");
    assert!(!stored.promoted);
    let back = s.artifact("agent").unwrap().unwrap();
    assert_eq!(back, stored);
    assert_eq!(back.sha256, earlyexit_digest::value_sha256(&artifact, ErrorCode::InvalidArtifact, "artifact").unwrap());
    let e = s.put_artifact("agent", &Value::string("{}")).unwrap_err();
    assert_eq!(e.code(), "invalid_artifact");
    assert_eq!(s.artifact("agent").unwrap().unwrap(), stored, "the refused one replaced nothing");
    assert_eq!(s.artifact("none").unwrap(), None);
    assert_eq!(s.check().unwrap().artifacts, 1);
}

/// `update_artifact` reads, updates and writes in one transaction: a missing name or a refused
/// update writes nothing, and eight threads updating at once lose no update (each reads what
/// the one before wrote: the counter they raise ends at the number of updates).
fn an_artifact_updates_in_one_transaction(fx: &Fixture) {
    let url = fx.fresh("store");
    let mut s = Store::open(&url).unwrap();
    let mut runs = String::new();
    for i in 0..5 {
        runs.push_str(&run(&format!("t{i}"), &[40.0, 95.0]).to_json());
        runs.push('\n');
    }
    let options = Value::parse_json(r#"{"risk": 0.2, "delta": 0.2}"#, ErrorCode::InvalidConfig, "options").unwrap();
    let artifact = earlyexit_calibrate_like(&Value::String(runs), &options);
    let stored = s.put_artifact("agent", &artifact).unwrap();
    let e = s.update_artifact("none", |_| -> Result<(Option<Value>, ()), _> { panic!("not called") }).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "name"));
    let e = s.update_artifact("", |_| -> Result<(Option<Value>, ()), _> { panic!("not called") }).unwrap_err();
    assert_eq!(e.field(), "name");
    let e = s.update_artifact("agent", |_| Ok::<_, earlyexit::Error>((Some(Value::string("{}")), ()))).unwrap_err();
    assert_eq!(e.code(), "invalid_artifact");
    assert_eq!(s.update_artifact("agent", |a| Ok((None, a.sha256))).unwrap(), stored.sha256);
    assert_eq!(s.artifact("agent").unwrap().unwrap(), stored, "nothing written");
    let names: Vec<String> = s.artifacts().unwrap().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["agent"]);

    let count = |a: &Value| a.get("body").and_then(|b| b.get("updates")).and_then(Value::as_f64).unwrap_or(0.0);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut s = Store::open(&url).unwrap();
                for _ in 0..5 {
                    s.update_artifact("agent", |stored| {
                        let mut doc = stored.artifact;
                        let n = count(&doc) + 1.0;
                        if let Value::Object(entries) = &mut doc {
                            for (key, value) in entries.iter_mut() {
                                if let (true, Value::Object(body)) = (key == "body", value) {
                                    body.retain(|(k, _)| k != "updates");
                                    body.push(("updates".to_string(), Value::Number(n)));
                                }
                            }
                        }
                        Ok((Some(doc), ()))
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let after = s.artifact("agent").unwrap().unwrap();
    assert_eq!(count(&after.artifact), 40.0, "no update lost");
    assert_eq!(s.check().unwrap().artifacts, 1);
}

/// A loop calibration artifact, made by the core as the command makes one (single-threaded).
fn earlyexit_calibrate_like(runs: &Value, options: &Value) -> Value {
    earlyexit_calibrate::calibrate_loops(runs, options, earlyexit::Naming::Js, earlyexit_calibrate::now_ms()).unwrap()
}

#[test]
fn the_file_is_private_and_wal() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&url(dir.path(), "store.db")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.path().join("store.db")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    drop(s);
    assert!(dir.path().join("store.db").exists());
}

#[test]
fn the_default_store_folder_ignores_itself() {
    let dir = tempfile::tempdir().unwrap();
    // The default path is relative to the working directory: run in a child process there.
    if std::env::var_os("STORE_DEFAULT_CHILD").is_some() {
        Store::open("sqlite:.earlyexit/store.db").unwrap();
        return;
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "the_default_store_folder_ignores_itself", "--quiet"])
        .env("STORE_DEFAULT_CHILD", "1")
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(dir.path().join(".earlyexit/.gitignore")).unwrap(), "*\n");
    assert!(dir.path().join(".earlyexit/store.db").is_file());
}

#[test]
fn bad_urls_and_files_name_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let not_db = dir.path().join("notes.txt");
    std::fs::write(&not_db, "hello, this is not a database at all").unwrap();
    let cases = [
        ("mysql://h/db".to_string(), "invalid_config", "unknown scheme"),
        (format!("sqlite:{}", dir.path().display()), "invalid_config", "directory"),
        (format!("sqlite:{}/missing/s.db", dir.path().display()), "invalid_config", "folder"),
        (format!("sqlite:{}", not_db.display()), "invalid_snapshot", "not a SQLite database"),
    ];
    for (u, code, words) in cases {
        let e = Store::open(&u).err().unwrap_or_else(|| panic!("{u} opened"));
        assert_eq!((e.code(), e.field()), (code, "store"), "{u}: {}", e.message());
        assert!(e.message().contains(words), "{u}: {}", e.message());
    }
    assert_eq!(std::fs::read_to_string(&not_db).unwrap(), "hello, this is not a database at all", "left as it was");
    // A store only read is never created empty.
    let missing = dir.path().join("absent.db");
    let e = Store::open_existing(&format!("sqlite:{}", missing.display())).err().unwrap();
    assert_eq!((e.code(), e.field()), ("invalid_config", "store"));
    assert!(e.message().contains("no store at this path"), "{}", e.message());
    assert!(!missing.exists());
    // Hostile URLs: a NUL, a host, an empty path, a huge path.
    let huge = format!("sqlite:{}/{}", dir.path().display(), "x".repeat(100_000));
    for u in ["sqlite:a\0b", "sqlite://host/x.db", "sqlite:", "SQLITE:x.db", " sqlite:x.db", huge.as_str()] {
        let e = Store::open(u).err().unwrap_or_else(|| panic!("{u} opened"));
        assert_eq!(e.field(), "store", "{u}: {}", e.message());
    }
}

fn another_programs_database_is_not_a_store(fx: &Fixture) {
    let u = fx.fresh("other");
    fx.exec(&u, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
    let e = Store::open(&u).err().unwrap();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "store"));
    assert!(e.message().contains("not an earlyexit store"), "{}", e.message());
}

fn an_older_store_is_upgraded_in_place_and_a_newer_one_refused(fx: &Fixture) {
    let u = fx.fresh("old");
    {
        let old = Store::open_at_version(&u, 1).unwrap();
        assert_eq!(old.schema_version().unwrap(), 1);
    }
    // A version-1 store has no dataset column: write a run as version 1 did.
    let body = run("t", &[50.0]).to_json().replace('\'', "''");
    fx.exec(&u, &format!("INSERT INTO runs (run_id, run_label, recorded_ms, body) VALUES ('r', 'main', 5, '{body}')"));
    let s = Store::open(&u).unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    let by_dataset = RunFilter { dataset: Some("d".into()), ..Default::default() };
    assert_eq!(all_runs(&s, &by_dataset).len(), 1, "the upgrade filled the dataset column");
    assert_eq!(s.check().unwrap().runs, 1);
    drop(s);
    fx.exec(&u, &format!("UPDATE earlyexit_store SET version = {}", SCHEMA_VERSION + 1));
    let e = Store::open(&u).err().unwrap();
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "store"));
    assert!(e.message().contains("newer release"), "{}", e.message());
    let e = Store::open_existing(&u).err().unwrap();
    assert!(e.message().contains("newer release"), "{}", e.message());
}

fn a_store_only_read_is_never_created(fx: &Fixture) {
    let u = fx.fresh("absent");
    let e = Store::open_existing(&u).err().unwrap();
    assert_eq!((e.code(), e.field()), ("invalid_config", "store"), "{}", e.message());
    assert!(e.message().contains("no store"), "{}", e.message());
    // Still nothing there: open() creates it, and then open_existing() opens it.
    let e = Store::open_existing(&u).err().unwrap();
    assert_eq!(e.field(), "store");
    Store::open(&u).unwrap();
    assert_eq!(Store::open_existing(&u).unwrap().run_count().unwrap(), 0);
}

fn batches_are_all_or_nothing_and_reads_stream(fx: &Fixture) {
    let mut s = store(fx);
    let added = s
        .in_one_transaction(|batch| {
            for i in 0..50 {
                batch.add_run(&run(&format!("b{i}"), &[10.0]), &RunMeta::default())?;
            }
            Ok::<_, earlyexit::Error>(batch.added())
        })
        .unwrap();
    assert_eq!(added, 50);
    let failed: Result<(), earlyexit::Error> = s.in_one_transaction(|batch| {
        batch.add_run(&run("c1", &[10.0]), &RunMeta::default())?;
        Err(earlyexit::kit::host::store::bad_since("x"))
    });
    assert!(failed.is_err());
    assert_eq!(s.run_count().unwrap(), 50, "the failed batch wrote nothing");
    // The store takes writes after a rolled-back batch, and a stream stops when told to.
    s.add_run(&run("c2", &[10.0]), &RunMeta::default()).unwrap();
    let mut seen = 0;
    let stopped = s.runs(&RunFilter::default(), |_| {
        seen += 1;
        if seen == 3 {
            return Err(earlyexit::kit::host::store::bad_since("stop"));
        }
        Ok(())
    });
    assert_eq!((stopped.unwrap_err().field(), seen), ("since", 3));
    assert_eq!(s.run_count().unwrap(), 51);
    assert_eq!(s.check().unwrap().runs, 51);
}

#[test]
fn a_corrupted_store_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let u = url(dir.path(), "c.db");
    {
        let mut s = Store::open(&u).unwrap();
        for i in 0..200 {
            s.add_run(&run(&format!("t{i}"), &[10.0, 20.0, 30.0]), &RunMeta::default()).unwrap();
        }
        // Checkpoint the WAL into the file, so the damage below hits the runs' pages.
        let conn = rusqlite::Connection::open(dir.path().join("c.db")).unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    }
    let path = dir.path().join("c.db");
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    // Overwrite the middle pages (not the header) with garbage.
    for b in &mut bytes[len / 3..len / 3 + 8192] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let result = Store::open(&u).and_then(|s| s.check());
    let e = result.expect_err("a damaged store is refused");
    assert_eq!((e.code(), e.field()), ("invalid_snapshot", "store"), "{}", e.message());
    assert!(e.message().contains("corrupted"), "{}", e.message());
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "never repaired");
}

fn a_run_row_another_program_edited_fails_the_check(fx: &Fixture) {
    let u = fx.fresh("edited");
    let mut s = Store::open(&u).unwrap();
    s.add_run(&run("t", &[10.0]), &RunMeta::default()).unwrap();
    s.append_receipts("main", &[receipt("a"), receipt("b")]).unwrap();
    assert_eq!(s.check().unwrap().receipts, 2);
    // Reordered lines: the chain breaks where the order changed.
    fx.exec(&u, "UPDATE receipts SET line = line + 10 WHERE line = 1");
    let e = s.check().unwrap_err();
    assert!(e.message().contains("receipt log 'main'"), "{}", e.message());
    fx.exec(&u, "DELETE FROM receipts; UPDATE runs SET body = '{\"id\": 1}'");
    let e = s.check().unwrap_err();
    assert!(e.message().contains("corrupted") && e.message().contains("run '"), "{}", e.message());
}

#[test]
fn a_truncated_store_and_a_bare_header_are_refused_naming_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let u = url(dir.path(), "t.db");
    {
        let mut s = Store::open(&u).unwrap();
        for i in 0..200 {
            s.add_run(&run(&format!("t{i}"), &[10.0, 20.0, 30.0]), &RunMeta::default()).unwrap();
        }
        let conn = rusqlite::Connection::open(dir.path().join("t.db")).unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    }
    let path = dir.path().join("t.db");
    let bytes = std::fs::read(&path).unwrap();
    // Cut the file in half (a copy interrupted half way).
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let e = Store::open(&u).and_then(|s| s.check()).expect_err("a truncated store is refused");
    assert_eq!(e.field(), "store", "{}", e.message());
    assert_eq!(std::fs::read(&path).unwrap().len(), bytes.len() / 2, "left as it was");
    // SQLite's header and nothing else.
    let header = dir.path().join("h.db");
    std::fs::write(&header, b"SQLite format 3\0").unwrap();
    let Err(e) = Store::open(&url(dir.path(), "h.db")) else { panic!("a bare header is not a store") };
    assert_eq!(e.field(), "store", "{}", e.message());
    assert_eq!(std::fs::read(&header).unwrap(), b"SQLite format 3\0");
}

/// A build without the `postgres` feature (the bindings') refuses a PostgreSQL URL, naming
/// the command; malformed ones are the URL's errors in every build; a password is never shown.
#[test]
fn postgres_urls_without_the_feature_or_malformed_are_typed_errors() {
    #[cfg(not(feature = "postgres"))]
    for u in ["postgresql://ci:hunter2@db/earlyexit", "postgres://db/earlyexit", "postgresql://u@/db?host=/tmp"] {
        let e = Store::open(u).err().unwrap();
        assert_eq!((e.code(), e.field()), ("invalid_config", "store"), "{u}");
        assert!(e.message().contains("use the earlyexit command or its MCP server"), "{}", e.message());
        assert!(!e.message().contains("hunter2"), "{}", e.message());
    }
    for u in [
        "postgresql://",
        "postgresql://ci:hunter2@/db",
        "postgresql://ci:hunter2@h:0/db",
        "postgresql://ci:hunter2@h/db?sslmode=require",
        "postgresql://ci:hunter2@h/db?sslmode=verify-full",
        "postgresql://a,b/db",
        "postgresql://h/db?connect_timeout=-1",
        "postgresql://h/db?bogus=1",
    ] {
        let e = Store::open(u).err().unwrap_or_else(|| panic!("{u} opened"));
        assert_eq!((e.code(), e.field()), ("invalid_config", "store"), "{u}: {}", e.message());
        assert!(!e.message().contains("hunter2"), "{}", e.message());
    }
}

/// An unreachable server, one that accepts and never answers, a wrong password and a
/// missing database: each a typed error naming `store`, within the connect timeout.
#[cfg(feature = "postgres")]
#[test]
fn unreachable_servers_and_refused_logins_are_typed_errors_never_hangs() {
    // A port nobody listens on (bound, then closed), and a listener that never answers.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    for u in [
        format!("postgresql://ci:hunter2@127.0.0.1:{closed}/db?connect_timeout=2"),
        format!("postgresql://ci:hunter2@127.0.0.1:{silent_port}/db?connect_timeout=1"),
        format!("postgresql://ci:hunter2@/db?host={}&connect_timeout=1", dir.path().display()),
    ] {
        let e = Store::open(&u).err().unwrap_or_else(|| panic!("{u} opened"));
        assert_eq!((e.code(), e.field()), ("invalid_config", "store"), "{u}: {}", e.message());
        assert!(e.message().contains("cannot be reached"), "{}", e.message());
        assert!(!e.message().contains("hunter2"), "{}", e.message());
    }
    drop(silent);
    let Some(fx) = Fixture::postgres() else { return };
    let support::Fixture::Postgres { base, .. } = &fx else { unreachable!() };
    let missing = support::with_dbname(base, "earlyexit_no_such_database");
    let e = Store::open(&missing).err().unwrap();
    assert_eq!((e.code(), e.field()), ("invalid_config", "store"), "{}", e.message());
    assert!(e.message().contains("does not exist"), "{}", e.message());
    // A role that does not exist (the test server trusts every role it has).
    let stranger = fx.fresh("stranger").replacen("postgresql://postgres@", "postgresql://nobody_here:hunter2@", 1);
    let e = Store::open(&stranger).err().unwrap();
    assert_eq!((e.code(), e.field()), ("invalid_config", "store"), "{}", e.message());
    assert!(!e.message().contains("hunter2"), "{}", e.message());
    // A wrong password: the role `earlyexit_pw` logs in with a password (the server of
    // make test-integrations asks it for one: scripts/postgres-test-server.sh).
    let u = fx.fresh("login");
    fx.exec(&u, "DO $$ BEGIN CREATE ROLE earlyexit_pw LOGIN PASSWORD 'right'; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    let wrong = u.replacen("postgresql://postgres@", "postgresql://earlyexit_pw:hunter2@", 1);
    let e = Store::open(&wrong).err().expect("a wrong password is refused");
    assert_eq!((e.code(), e.field()), ("invalid_config", "store"), "{}", e.message());
    assert!(e.message().contains("password authentication failed"), "{}", e.message());
    assert!(!e.message().contains("hunter2") && e.message().contains(":***@"), "{}", e.message());
}

fn runs_page_after_a_sequence_number_and_cover_every_run_once(fx: &Fixture) {
    let mut s = store(fx);
    for i in 0..7 {
        let label = if i % 2 == 0 { "even" } else { "odd" };
        let meta = RunMeta { run_label: Some(label.into()), ..Default::default() };
        s.add_run(&run(&format!("p{i}"), &[50.0]), &meta).unwrap();
    }
    let page = |after: Option<i64>| {
        let mut out = Vec::new();
        let filter = RunFilter { run_label: Some("even".into()), limit: Some(2), ..Default::default() };
        s.runs_after(&filter, after, |r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
        out
    };
    let (mut after, mut ids) = (None, Vec::new());
    loop {
        let got = page(after);
        ids.extend(got.iter().map(|r| r.run_id.clone()));
        match got.last() {
            Some(last) if got.len() == 2 => after = Some(last.seq),
            _ => break,
        }
    }
    let every: Vec<String> = all_runs(&s, &RunFilter { run_label: Some("even".into()), ..Default::default() })
        .into_iter()
        .map(|r| r.run_id)
        .collect();
    assert_eq!(ids, every);
    assert_eq!(ids.len(), 4);
    assert_eq!(earlyexit_store::DEFAULT_LOOP_RECEIPT_LOG, "loops");
}
