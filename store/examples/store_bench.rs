//! How fast is the run store? Side by side in one process, on a temporary SQLite file:
//!   1. adding 10,000 runs of 10 iterations, one transaction per run (`add_run`, what a
//!      recorder does per finished run), beside the same runs in one transaction and beside
//!      appending them as JSONL lines to a file (the hand-made history it replaces);
//!   2. streaming 100,000 runs out of the store into calibration (`runs()` to the JSONL text
//!      calibration reads, then `calibrate_loops`), beside the same calibration reading the
//!      same runs from a JSONL file.
//!
//! A benchmark prints figures; no test asserts a time.
//!
//! `cargo run --release -p earlyexit-store --example store_bench [-- --quick]`

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

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (adds, streamed) = if quick { (1_000, 10_000) } else { (10_000, 100_000) };
    let dir = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));

    // --- 1. adding runs
    let texts = synthetic_runs(adds, 10);
    let values: Vec<Value> = texts.iter().map(|t| parse(t)).collect();
    let mut store = open(dir.path(), "add.db");
    let start = Instant::now();
    for (i, run) in values.iter().enumerate() {
        let meta = RunMeta { run_id: Some(format!("r{i}")), run_label: Some("bench".into()), recorded_ms: None };
        store.add_run(run, &meta).unwrap_or_else(|e| fail(&e.to_string()));
    }
    let per_run = start.elapsed();
    let mut batched = open(dir.path(), "batch.db");
    let start = Instant::now();
    let items = values.iter().enumerate().map(|(i, run)| {
        Ok((run.clone(), RunMeta { run_id: Some(format!("r{i}")), run_label: Some("bench".into()), recorded_ms: None }))
    });
    batched.add_runs(items).unwrap_or_else(|e| fail(&e.to_string()));
    let one_tx = start.elapsed();
    let start = Instant::now();
    let mut file = std::fs::File::create(dir.path().join("add.jsonl")).unwrap_or_else(|e| fail(&e.to_string()));
    for text in &texts {
        // Each run read as the store reads it, then appended: the same validation cost.
        let value = parse(text);
        let _ = earlyexit::ReplayRun::from_value(&value, Naming::Js, "run");
        writeln!(file, "{}", value.to_json()).unwrap_or_else(|e| fail(&e.to_string()));
    }
    file.sync_all().unwrap_or_else(|e| fail(&e.to_string()));
    let jsonl = start.elapsed();
    println!("adding {adds} runs of 10 iterations from one process (target under 10 s for 10,000):");
    println!("  one transaction per run  {}  ({:.0} runs/s)", secs(per_run), adds as f64 / per_run.as_secs_f64());
    println!(
        "  all in one transaction   {}  (per-run transactions cost {:.1}x)",
        secs(one_tx),
        per_run.as_secs_f64() / one_tx.as_secs_f64()
    );
    println!(
        "  JSONL file appends       {}  (the store costs {:.1}x a file)",
        secs(jsonl),
        per_run.as_secs_f64() / jsonl.as_secs_f64()
    );

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
    let options = parse("{}");
    let calibrate = |text: &str| {
        earlyexit_calibrate::calibrate_loops(&Value::string(text), &options, Naming::Js, earlyexit_calibrate::now_ms())
            .unwrap_or_else(|e| fail(&e.to_string()))
    };

    let start = Instant::now();
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
    let streamed_in = start.elapsed();
    let from_store = calibrate(&text);
    let store_total = start.elapsed();

    let start = Instant::now();
    let file_text = std::fs::read_to_string(&jsonl_path).unwrap_or_else(|e| fail(&e.to_string()));
    let read_in = start.elapsed();
    let from_file = calibrate(&file_text);
    let file_total = start.elapsed();
    if from_store.get("corpusSha256") != from_file.get("corpusSha256") {
        fail("the store and the file gave calibration different corpora");
    }
    println!("streaming {n} runs from the store into calibration (target under 5 s for 100,000):");
    println!("  stream out of the store  {}  (file read: {})", secs(streamed_in), secs(read_in));
    println!(
        "  stream + calibrate       {}  (from the file: {}; the store adds {:.2}x)",
        secs(store_total),
        secs(file_total),
        store_total.as_secs_f64() / file_total.as_secs_f64()
    );
    let size = std::fs::metadata(dir.path().join("stream.db")).map(|m| m.len()).unwrap_or(0);
    let jsonl_size = std::fs::metadata(&jsonl_path).map(|m| m.len()).unwrap_or(0);
    println!("  store file {:.1} MB for {n} runs (JSONL: {:.1} MB)", size as f64 / 1e6, jsonl_size as f64 / 1e6);
}
