//! Processes sharing one store: 20 writers adding 50 runs each (1,000 runs, none lost, none
//! doubled), 20 merging models (the union of all their builds), and writers killed with
//! SIGKILL mid-transaction (the store opens and checks; each run whole or absent).
//!
//! The children are this test binary run again with `STORE_CHILD` set: each test function
//! is a child's body when that variable names it. Each runs on SQLite, and as `postgres_*`
//! on the PostgreSQL server `EARLYEXIT_TEST_POSTGRES` names (built with `--features
//! postgres`; otherwise they say they skipped).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

use earlyexit_store::{RunFilter, RunMeta, Store};
use support::{learned_from, model_of, run, Fixture};

const PROCESSES: usize = 20;
const RUNS_EACH: usize = 50;
const BUILDS_EACH: u64 = 3;

fn child(test: &str, store: &str, index: usize) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--quiet", "--test-threads=1", "--nocapture"])
        .env("STORE_CHILD", test)
        .env("STORE_URL", store)
        .env("STORE_INDEX", index.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// The child's store and index when this process is the child `test`.
fn as_child(test: &str) -> Option<(String, usize)> {
    (std::env::var("STORE_CHILD").ok()? == test)
        .then(|| (std::env::var("STORE_URL").unwrap(), std::env::var("STORE_INDEX").unwrap().parse().unwrap()))
}

/// The next line the child said with [`say`], skipping what the test harness prints.
fn heard(reader: &mut impl BufRead) -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(said) = line.trim_end().strip_prefix("@child ") {
            return Some(said.to_string());
        }
    }
}

/// A line for the parent ([`heard`]), flushed at once.
fn say(what: &str) {
    println!("@child {what}");
    std::io::stdout().flush().unwrap();
}

fn is_child() -> bool {
    std::env::var_os("STORE_CHILD").is_some()
}

#[test]
fn twenty_processes_add_a_thousand_runs_none_lost_none_doubled() {
    add_a_thousand("twenty_processes_add_a_thousand_runs_none_lost_none_doubled", Some(Fixture::sqlite()));
}

#[test]
fn postgres_twenty_processes_add_a_thousand_runs() {
    add_a_thousand("postgres_twenty_processes_add_a_thousand_runs", postgres_fixture());
}

/// The PostgreSQL fixture in the parent; in a child, none is needed (it has its URL).
fn postgres_fixture() -> Option<Fixture> {
    if is_child() {
        None
    } else {
        Fixture::postgres()
    }
}

fn add_a_thousand(test: &str, fx: Option<Fixture>) {
    if let Some((u, index)) = as_child(test) {
        let mut s = Store::open(&u).unwrap();
        for j in 0..RUNS_EACH {
            let meta = RunMeta {
                run_id: Some(format!("p{index}-r{j}")),
                run_label: Some(format!("p{index}")),
                ..Default::default()
            };
            s.add_run(&run(&format!("task-{j}"), &[10.0, 20.0, (index + j) as f64 % 100.0]), &meta).unwrap();
        }
        return;
    }
    let (false, Some(fx)) = (is_child(), fx) else { return };
    // Nobody creates the store first: the children race to create it too.
    let u = fx.fresh("runs");
    let children: Vec<Child> = (0..PROCESSES).map(|i| child(test, &u, i)).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let s = Store::open(&u).unwrap();
    let mut ids = std::collections::BTreeSet::new();
    s.runs(&RunFilter::default(), |r| {
        assert!(ids.insert(r.run_id.clone()), "{} doubled", r.run_id);
        Ok(())
    })
    .unwrap();
    assert_eq!(ids.len(), PROCESSES * RUNS_EACH);
    for i in 0..PROCESSES {
        for j in 0..RUNS_EACH {
            assert!(ids.contains(&format!("p{i}-r{j}")), "p{i}-r{j} lost");
        }
    }
    assert_eq!(s.check().unwrap().runs, 1_000);
}

fn builds_of(index: usize) -> Vec<(String, u64, bool)> {
    (0..BUILDS_EACH)
        .map(|k| {
            let seq = index as u64 * BUILDS_EACH + k;
            (format!("build-{seq}"), seq, seq.is_multiple_of(4))
        })
        .collect()
}

#[test]
fn twenty_processes_merging_models_end_with_all_their_builds() {
    merge_twenty("twenty_processes_merging_models_end_with_all_their_builds", Some(Fixture::sqlite()));
}

#[test]
fn postgres_twenty_processes_merging_models_end_with_all_their_builds() {
    merge_twenty("postgres_twenty_processes_merging_models_end_with_all_their_builds", postgres_fixture());
}

fn merge_twenty(test: &str, fx: Option<Fixture>) {
    if let Some((u, index)) = as_child(test) {
        let mut s = Store::open(&u).unwrap();
        for (id, seq, failed) in builds_of(index) {
            s.merge_model("ci", &model_of(&id, seq, failed)).unwrap();
        }
        return;
    }
    let (false, Some(fx)) = (is_child(), fx) else { return };
    let u = fx.fresh("models");
    Store::open(&u).unwrap();
    let children: Vec<Child> = (0..PROCESSES).map(|i| child(test, &u, i)).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let all: Vec<(String, u64, bool)> = (0..PROCESSES).flat_map(builds_of).collect();
    let s = Store::open(&u).unwrap();
    assert_eq!(s.model("ci").unwrap(), Some(learned_from(&all)));
}

/// The child holds a write transaction with a run inserted, says so, and waits to be killed.
#[test]
fn a_writer_killed_mid_transaction_leaves_no_trace() {
    killed_mid_transaction("a_writer_killed_mid_transaction_leaves_no_trace", Some(Fixture::sqlite()));
}

#[test]
fn postgres_a_writer_killed_mid_transaction_leaves_no_trace() {
    killed_mid_transaction("postgres_a_writer_killed_mid_transaction_leaves_no_trace", postgres_fixture());
}

fn killed_mid_transaction(test: &str, fx: Option<Fixture>) {
    #[cfg(feature = "postgres")]
    if let Some((u, _)) = as_child(test).filter(|(u, _)| u.starts_with("postgresql://")) {
        let mut client = support::pg_client(&u);
        let mut tx = client.transaction().unwrap();
        let body = run("half", &[1.0; 20_000]).to_json();
        tx.execute("INSERT INTO runs (run_id, recorded_ms, body) VALUES ('half', 0, $1)", &[&body]).unwrap();
        say("inside");
        std::thread::sleep(std::time::Duration::from_secs(600));
        return;
    }
    if let Some((u, _)) = as_child(test) {
        let path = u.strip_prefix("sqlite:").unwrap();
        let mut conn = rusqlite::Connection::open(path).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;").unwrap();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        tx.execute(
            "INSERT INTO runs (run_id, recorded_ms, body) VALUES ('half', 0, ?1)",
            [run("half", &[1.0; 20_000]).to_json()],
        )
        .unwrap();
        say("inside");
        std::thread::sleep(std::time::Duration::from_secs(600));
        return;
    }
    let (false, Some(fx)) = (is_child(), fx) else { return };
    let u = fx.fresh("killed");
    let mut s = Store::open(&u).unwrap();
    s.add_run(&run("before", &[5.0]), &RunMeta::default()).unwrap();
    drop(s);
    let mut c = child(test, &u, 0);
    let said = heard(&mut BufReader::new(c.stdout.take().unwrap()));
    assert_eq!(said.as_deref(), Some("inside"));
    c.kill().unwrap(); // SIGKILL
    c.wait().unwrap();
    let mut s = Store::open(&u).unwrap();
    assert_eq!(s.run_count().unwrap(), 1, "the uncommitted run is absent");
    assert_eq!(s.check().unwrap().runs, 1);
    // And the store takes writes again (the killed writer's lock is gone).
    s.add_run(&run("after", &[5.0]), &RunMeta::default()).unwrap();
    assert_eq!(s.run_count().unwrap(), 2);
}

/// The child adds large runs one transaction each and reports every commit; it is killed at
/// some point of its work, most likely inside a transaction.
#[test]
fn a_writer_killed_while_adding_leaves_every_run_whole_or_absent() {
    killed_while_adding("a_writer_killed_while_adding_leaves_every_run_whole_or_absent", Some(Fixture::sqlite()));
}

#[test]
fn postgres_a_writer_killed_while_adding_leaves_every_run_whole_or_absent() {
    killed_while_adding("postgres_a_writer_killed_while_adding_leaves_every_run_whole_or_absent", postgres_fixture());
}

fn killed_while_adding(test: &str, fx: Option<Fixture>) {
    if let Some((u, _)) = as_child(test) {
        let mut s = Store::open(&u).unwrap();
        for j in 0.. {
            s.add_run(&run(&format!("big-{j}"), &[50.0; 5_000]), &RunMeta::default()).unwrap();
            say(&(j + 1).to_string());
        }
        return;
    }
    let (false, Some(fx)) = (is_child(), fx) else { return };
    let u = fx.fresh("adding");
    Store::open(&u).unwrap();
    let mut c = child(test, &u, 0);
    let mut reader = BufReader::new(c.stdout.take().unwrap());
    let mut committed = 0u64;
    while committed < 5 {
        committed = heard(&mut reader).expect("the writer ended early").parse().unwrap();
    }
    c.kill().unwrap();
    c.wait().unwrap();
    // Commits it reported after the fifth, still in the pipe.
    while let Some(said) = heard(&mut reader) {
        committed = said.parse().unwrap();
    }
    let s = Store::open(&u).unwrap();
    let report = s.check().unwrap();
    assert!(report.runs == committed || report.runs == committed + 1, "{} runs, {committed} reported", report.runs);
    s.runs(&RunFilter::default(), |r| {
        assert_eq!(r.body.matches("quality_score").count(), 5_000, "{} is whole", r.run_id);
        Ok(())
    })
    .unwrap();
}

/// Sixteen threads opening one new store at the same moment, round after round: each open
/// succeeds. Creating the schema while another opener read the version in two statements
/// made the new store look like a database with other tables ("not a store"), and switching
/// to WAL while another held a lock answered "database is locked" without waiting.
#[test]
fn sixteen_openers_of_one_new_store_all_succeed() {
    for round in 0..80 {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("new.db").display());
        let start = std::sync::Arc::new(std::sync::Barrier::new(16));
        let openers: Vec<_> = (0..16)
            .map(|_| {
                let (url, start) = (url.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    Store::open(&url).map(|_| ()).map_err(|e| e.message().to_string())
                })
            })
            .collect();
        for opener in openers {
            let opened = opener.join().unwrap();
            assert!(opened.is_ok(), "round {round}: {opened:?}");
        }
    }
}
