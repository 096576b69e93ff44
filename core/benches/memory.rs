//! Memory and scaling figures of the core (issue 7), printed as plain text; no criterion.
//!
//! `cargo bench -p earlyexit --bench memory -- MODE [N]`:
//! * `retained [N]`: heap bytes still held per recorded iteration after N records (a counting
//!   global allocator; target: at most 64 B plus the timestamp string);
//! * `scaling [ROUNDS]`: time per `should_stop` with 10 records recorded vs 1,000,000,
//!   alternating the two engines over several rounds (decisions read the last window only);
//! * `rss [N]`: one engine, N iterations of `record` + `should_stop`, then the peak resident
//!   set of this process (VmHWM from /proc/self/status). `scripts/bench.sh` runs it alone in
//!   its own process, with N = 0 for the process's own baseline.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use earlyexit::{EarlyStopping, EarlyStoppingConfig, IterationRecord, IterationResult, VerificationStatus};

#[path = "support/workload.rs"]
mod workload;

#[path = "support/cpu_time.rs"]
mod cpu_time;
use workload::TIMESTAMP;

/// Counts the bytes currently allocated (requested sizes; the allocator's own rounding and
/// headers come on top and are not the core's to choose).
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn engine() -> EarlyStopping {
    match EarlyStopping::new(EarlyStoppingConfig::default()) {
        Ok(engine) => engine,
        Err(e) => panic!("default config rejected: {e:?}"),
    }
}

/// Records `n` iterations of the workload, ordered so that the last ones are the same
/// whatever `n` is (the last record is always the workload's first step, and so on back).
fn fill(es: &mut EarlyStopping, n: usize, decide: bool) {
    let steps: Vec<_> = workload::trajectories(256, 3).iter().flatten().copied().collect();
    for i in 0..n {
        let step = steps[(n - 1 - i) % steps.len()];
        if es.record(i as u64 + 1, step.result(), || TIMESTAMP.to_string()).is_err() {
            panic!("valid record rejected");
        }
        if decide {
            black_box(es.should_stop());
        }
    }
}

fn retained(n: usize) {
    let mut es = engine();
    let before = LIVE.load(Ordering::Relaxed);
    fill(&mut es, n, true);
    let after = LIVE.load(Ordering::Relaxed);
    let per = (after - before) as f64 / n as f64;
    let capacity = es.history().len(); // Vec doubling: report the slack apart
    black_box(capacity);
    let record = std::mem::size_of::<IterationRecord>();
    let stamp = TIMESTAMP.len();
    println!("core: bytes retained per recorded iteration after {n} records: {per:.1} B");
    println!(
        "core:   = {record} B record (size_of IterationRecord) + {stamp} B timestamp string + {:.1} B spare capacity of the history Vec (it doubles)",
        per - (record + stamp) as f64
    );
    let status = if record <= 64 { "met" } else { "MISSED" };
    println!("core:   target <= 64 B + timestamp string: {status} ({record} B + {stamp} B)");
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 0 {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

/// Median and median absolute deviation.
fn median_mad(values: &[f64]) -> (f64, f64) {
    let mut v = values.to_vec();
    let m = median(&mut v);
    let mut deviations: Vec<f64> = values.iter().map(|x| (x - m).abs()).collect();
    (m, median(&mut deviations))
}

/// ns of thread CPU time per `should_stop`.
fn time_decisions(es: &mut EarlyStopping, calls: usize) -> f64 {
    let start = cpu_time::now();
    for _ in 0..calls {
        black_box(es.should_stop());
    }
    (cpu_time::now() - start).as_nanos() as f64 / calls as f64
}

fn scaling(rounds: usize) {
    let mut small = engine();
    fill(&mut small, 10, false);
    let mut large = engine();
    fill(&mut large, 1_000_000, false);
    let calls = 200_000;
    let (mut at_small, mut at_large, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternate which side goes first, so drift on a shared machine hits both alike.
        let (s, l) = if round % 2 == 0 {
            let s = time_decisions(&mut small, calls);
            (s, time_decisions(&mut large, calls))
        } else {
            let l = time_decisions(&mut large, calls);
            (time_decisions(&mut small, calls), l)
        };
        at_small.push(s);
        at_large.push(l);
        ratios.push(l / s);
    }
    let (s, s_mad) = median_mad(&at_small);
    let (l, l_mad) = median_mad(&at_large);
    let (r, r_mad) = median_mad(&ratios);
    println!("core: should_stop at history 10:        {s:7.1} ns median (± {s_mad:.1} MAD, {rounds} rounds)");
    println!("core: should_stop at history 1,000,000: {l:7.1} ns median (± {l_mad:.1} MAD)");
    println!(
        "core: ratio history 1,000,000 / 10: {r:.2} (± {r_mad:.2}); 1.0 = O(window), O(history) would be ~100,000"
    );
}

fn rss(n: usize) {
    let mut es = engine();
    let start = Instant::now();
    let mut score = 50.0;
    for i in 1..=n as u64 {
        // A saw-tooth between 50 and 95 that never stops the loop, as in Python and Node.
        let step = if i % 10 == 0 { -45.0 } else { 5.0 };
        score += step;
        let result = IterationResult::new(score, 0.5, VerificationStatus::Passed, step);
        if es.record(i, result, || TIMESTAMP.to_string()).is_err() {
            panic!("valid record rejected");
        }
        black_box(es.should_stop());
    }
    let seconds = start.elapsed().as_secs_f64();
    black_box(es.history().len());
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: ? kB");
    let kb: f64 = hwm.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
    println!("rss rust n={n} peak_kb={kb} seconds={seconds:.2}");
}

fn main() {
    // cargo bench passes `--bench`; ignore flags, read MODE and N.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let number = |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    match args.first().map(String::as_str) {
        Some("retained") => retained(number(1, 1_000_000)),
        Some("scaling") => scaling(number(1, 7)),
        Some("rss") => rss(number(1, 1_000_000)),
        _ => {
            retained(1_000_000);
            scaling(7);
        }
    }
}
