//! How fast is the run store? Side by side in one process, on a temporary SQLite file:
//!   1. adding 10,000 runs of 10 iterations, one transaction per run (`add_run`, what a
//!      recorder does per finished run), beside the same runs in one transaction and beside
//!      appending them as JSONL lines to a file (the hand-made history it replaces);
//!   2. streaming 100,000 runs out of the store into calibration (`runs()` to the JSONL text
//!      calibration reads, then `calibrate_loops`), the stream beside reading the same runs
//!      from a JSONL file (both calibrations must see the same corpus).
//!
//! Each figure is wall-clock time (what a user waits, I/O included) and the thread's CPU time
//! (which a shared machine does not inflate). A benchmark prints figures; no test asserts a
//! time.
//!
//! With `--features postgres` and `EARLYEXIT_BENCH_POSTGRES` naming a PostgreSQL store
//! (`postgresql://...`), step 1's one-transaction-per-run adds go to it too, beside SQLite's
//! (run ids unique to the run: the store may hold others); without either, that line says it
//! skipped.
//!
//! `cargo run --release -p earlyexit-store --example store_bench [-- --quick]`

#[path = "../../core/benches/support/cpu_time.rs"]
mod cpu_time;

use std::io::Write;
use std::time::{Duration, Instant};

use earlyexit::{ErrorCode, Naming, Value};
use earlyexit_store::{RunFilter, RunMeta, Store};

/// xorshift: every round writes the same runs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` runs of `length` iterations in the replay form (JSON text, one run each).
fn synthetic_runs(n: usize, length: usize) -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|r| {
            let mut quality: f64 = 0.0;
            let iterations: Vec<String> = (0..length)
                .map(|_| {
                    quality = (quality + (rng.next() * 30.0 - 8.0).round()).clamp(0.0, 100.0);
                    let status = if quality >= 100.0 || rng.next() < 0.02 { "passed" } else { "failed" };
                    format!(
                        r#"{{"quality_score":{quality},"confidence":{},"verification_status":"{status}"}}"#,
                        quality / 100.0
                    )
                })
                .collect();
            format!(r#"{{"id":"task-{r}","dataset":"bench","iterations":[{}]}}"#, iterations.join(","))
        })
        .collect()
}

fn parse(text: &str) -> Value {
    match Value::parse_json(text, ErrorCode::InvalidReplay, "run") {
        Ok(v) => v,
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(why: &str) -> ! {
    eprintln!("store_bench: {why}");
    std::process::exit(1)
}

fn open(dir: &std::path::Path, name: &str) -> Store {
    Store::open(&format!("sqlite:{}", dir.join(name).display())).unwrap_or_else(|e| fail(&e.to_string()))
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// `f`'s result, its wall-clock time and the thread's CPU time.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (wall, cpu) = (Instant::now(), cpu_time::now());
    let out = f();
    (out, wall.elapsed(), cpu_time::now().saturating_sub(cpu))
}

fn both(wall: Duration, cpu: Duration) -> String {
    format!("{} wall, {} CPU", secs(wall), secs(cpu))
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (adds, streamed) = if quick { (1_000, 10_000) } else { (10_000, 100_000) };
    let dir = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));

    // --- 1. adding runs
    let values: Vec<Value> = synthetic_runs(adds, 10).iter().map(|t| parse(t)).collect();
    let meta = |i: usize| RunMeta { run_id: Some(format!("r{i}")), run_label: Some("bench".into()), recorded_ms: None };
    let mut store = open(dir.path(), "add.db");
    let ((), per_run, per_run_cpu) = timed(|| {
        for (i, run) in values.iter().enumerate() {
            store.add_run(run, &meta(i)).unwrap_or_else(|e| fail(&e.to_string()));
        }
    });
    let mut batched = open(dir.path(), "batch.db");
    let (_, one_tx, one_tx_cpu) = timed(|| {
        let items = values.iter().enumerate().map(|(i, run)| Ok((run.clone(), meta(i))));
        batched.add_runs(items).unwrap_or_else(|e| fail(&e.to_string()))
    });
    let ((), jsonl, jsonl_cpu) = timed(|| {
        let mut file = std::fs::File::create(dir.path().join("add.jsonl")).unwrap_or_else(|e| fail(&e.to_string()));
        for value in &values {
            // Each run read as the store reads it, then appended and flushed: a file of runs
            // written as they finish, with the same validation.
            if let Err(e) = earlyexit::ReplayRun::from_value(value, Naming::Js, "run") {
                fail(&e.to_string());
            }
            writeln!(file, "{}", value.to_json()).unwrap_or_else(|e| fail(&e.to_string()));
        }
        file.sync_all().unwrap_or_else(|e| fail(&e.to_string()));
    });
    println!("adding {adds} runs of 10 iterations from one process (target under 10 s for 10,000):");
    println!(
        "  one transaction per run  {}  ({:.0} runs/s wall)",
        both(per_run, per_run_cpu),
        adds as f64 / per_run.as_secs_f64()
    );
    println!(
        "  all in one transaction   {}  (per-run transactions: {:.1}x wall, {:.1}x CPU)",
        both(one_tx, one_tx_cpu),
        ratio(per_run, one_tx),
        ratio(per_run_cpu, one_tx_cpu)
    );
    println!(
        "  JSONL file appends       {}  (the store: {:.1}x wall, {:.1}x CPU)",
        both(jsonl, jsonl_cpu),
        ratio(per_run, jsonl),
        ratio(per_run_cpu, jsonl_cpu)
    );
    postgres_adds(&values, per_run, per_run_cpu);

    // --- 2. streaming into calibration
    let texts = synthetic_runs(streamed, 10);
    let mut big = open(dir.path(), "stream.db");
    let items = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Ok((parse(t), RunMeta { run_id: Some(format!("r{i}")), run_label: None, recorded_ms: None })));
    big.add_runs(items).unwrap_or_else(|e| fail(&e.to_string()));
    drop(big);
    let jsonl_path = dir.path().join("stream.jsonl");
    std::fs::write(&jsonl_path, texts.join("\n") + "\n").unwrap_or_else(|e| fail(&e.to_string()));
    drop(texts);
    let options = parse("{}");
    let calibrate = |text: &str| {
        earlyexit_calibrate::calibrate_loops(&Value::string(text), &options, Naming::Js, earlyexit_calibrate::now_ms())
            .unwrap_or_else(|e| fail(&e.to_string()))
    };

    let ((text, n), streamed_in, streamed_cpu) = timed(|| {
        let store = open(dir.path(), "stream.db");
        let mut text = String::new();
        let mut n = 0u64;
        store
            .runs(&RunFilter::default(), |run| {
                text.push_str(&run.body);
                text.push('\n');
                n += 1;
                Ok(())
            })
            .unwrap_or_else(|e| fail(&e.to_string()));
        (text, n)
    });
    let (file_text, read_in, read_cpu) =
        timed(|| std::fs::read_to_string(&jsonl_path).unwrap_or_else(|e| fail(&e.to_string())));
    let (from_store, calibrate_store, _) = timed(|| calibrate(&text));
    if from_store.get("corpusSha256") != calibrate(&file_text).get("corpusSha256") {
        fail("the store and the file gave calibration different corpora");
    }
    println!("streaming {n} runs from the store into calibration (target under 5 s for 100,000):");
    println!(
        "  stream out of the store  {}  (the same runs read from a JSONL file: {})",
        both(streamed_in, streamed_cpu),
        both(read_in, read_cpu)
    );
    println!(
        "  stream + calibrate_loops {} wall (the calibration itself on every core, default path: {})",
        secs(streamed_in + calibrate_store),
        secs(calibrate_store)
    );
    let size = std::fs::metadata(dir.path().join("stream.db")).map(|m| m.len()).unwrap_or(0);
    let jsonl_size = std::fs::metadata(&jsonl_path).map(|m| m.len()).unwrap_or(0);
    println!("  store file {:.1} MB for {n} runs (JSONL: {:.1} MB)", size as f64 / 1e6, jsonl_size as f64 / 1e6);
}

/// Step 1's one-transaction-per-run adds on the PostgreSQL store `EARLYEXIT_BENCH_POSTGRES`
/// names, beside SQLite's (`sqlite`, `sqlite_cpu`).
fn postgres_adds(values: &[Value], sqlite: Duration, sqlite_cpu: Duration) {
    let url = std::env::var("EARLYEXIT_BENCH_POSTGRES").ok().filter(|u| !u.is_empty());
    let Some(url) = url.filter(|_| cfg!(feature = "postgres")) else {
        println!(
            "  PostgreSQL, one per run  skipped (EARLYEXIT_BENCH_POSTGRES unset, or built without --features postgres)"
        );
        return;
    };
    let mut store = Store::open(&url).unwrap_or_else(|e| fail(&e.to_string()));
    let tag = format!("bench-{}-{}", std::process::id(), earlyexit_calibrate::now_ms());
    let ((), wall, cpu) = timed(|| {
        for (i, run) in values.iter().enumerate() {
            let meta = RunMeta { run_id: Some(format!("{tag}-{i}")), run_label: Some(tag.clone()), recorded_ms: None };
            store.add_run(run, &meta).unwrap_or_else(|e| fail(&e.to_string()));
        }
    });
    println!(
        "  PostgreSQL, one per run  {}  ({:.0} runs/s wall; against SQLite's: {:.1}x wall, {:.1}x CPU)",
        both(wall, cpu),
        values.len() as f64 / wall.as_secs_f64(),
        ratio(wall, sqlite),
        ratio(cpu, sqlite_cpu)
    );
}
