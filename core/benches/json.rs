//! JSON reading figures, printed as plain text; no criterion.
//!
//! `cargo bench -p earlyexit --bench json -- [ROUNDS]`: the time to parse one object of
//! 10,000, 100,000 and 200,000 keys (what `fromJSON` / `from_json`, every JS call and every
//! JSONL line pass through), and to read a layer result carrying that many extra keys (the
//! result reader keeps extra keys, so it checks them for repeats too). The best of ROUNDS
//! (default 3) runs, in the thread's CPU time (as the other benches, see docs/benchmarks.md). Both searches for repeated keys were linear scans before, so the
//! figures grew with the square of the keys (docs/benchmarks.md has the before and after).

use std::hint::black_box;
use std::time::Duration;

#[path = "support/cpu_time.rs"]
mod cpu_time;

use earlyexit::{ErrorCode, LayerResult, Naming, Value};

fn object_text(keys: usize, prefix: &str) -> String {
    let mut text = String::with_capacity(keys * 16 + prefix.len() + 2);
    text.push('{');
    text.push_str(prefix);
    for i in 0..keys {
        if i > 0 || !prefix.is_empty() {
            text.push(',');
        }
        text.push_str(&format!("\"key{i}\":{i}"));
    }
    text.push('}');
    text
}

fn best_of(rounds: usize, mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..rounds {
        let t0 = cpu_time::now();
        f();
        best = best.min(cpu_time::now() - t0);
    }
    best
}

fn main() {
    let rounds = std::env::args().skip(1).find(|a| !a.starts_with('-')).and_then(|a| a.parse().ok()).unwrap_or(3);
    println!("JSON reading, best of {rounds}, CPU time (release build)");
    println!("{:>9}  {:>9}  {:>14}  {:>16}", "keys", "text MB", "parse object", "read as result");
    for keys in [10_000, 100_000, 200_000] {
        let text = object_text(keys, "");
        let parse = best_of(rounds, || {
            black_box(Value::parse_json(black_box(&text), ErrorCode::InvalidSnapshot, "snapshot").ok());
        });
        let result = Value::parse_json(
            &object_text(keys, r#""passRate":1,"coverage":0.9,"flakyRatio":0"#),
            ErrorCode::InvalidLayerResult,
            "result",
        )
        .unwrap_or(Value::Null);
        let read = best_of(rounds, || {
            black_box(LayerResult::from_value(black_box(&result), Naming::Js, "").ok());
        });
        println!(
            "{keys:>9}  {:>9.1}  {:>11.1} ms  {:>13.1} ms",
            text.len() as f64 / 1e6,
            parse.as_secs_f64() * 1e3,
            read.as_secs_f64() * 1e3
        );
    }
}
