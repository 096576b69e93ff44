//! Target `snapshot_restore`: restoring the three engines (`EarlyStopping`,
//! `IterationAnalytics`, `PyramidRun`) from arbitrary bytes, from valid snapshots mutated
//! structurally (values replaced, keys dropped, added or renamed, arrays cut, numbers
//! nudged by one ulp), and from the JSON text of valid snapshots mutated byte by byte.
//!
//! Invariants: nothing panics; what restores is self-consistent: its own snapshot restores
//! to an equal engine (restore is a fixpoint after one round).

use super::gen;
use super::{loop_ops, pyramid_run};
use arbitrary::{Result, Unstructured};
use earlyexit::{EarlyStopping, ErrorCode, IterationAnalytics, PyramidRun, Value};

/// Runs one input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = drive(&mut u);
}

/// Tries the document as each engine's snapshot; whatever restores must round-trip.
pub fn restore_all(document: &Value) {
    match EarlyStopping::from_snapshot(document) {
        Ok(engine) => loop_ops::check_snapshot(&engine),
        Err(e) => assert_eq!(e.error_code(), ErrorCode::InvalidSnapshot, "{e:?}"),
    }
    match IterationAnalytics::from_snapshot(document) {
        Ok(analytics) => loop_ops::check_analytics_snapshot(&analytics),
        Err(e) => assert_eq!(e.error_code(), ErrorCode::InvalidSnapshot, "{e:?}"),
    }
    match PyramidRun::from_snapshot(document) {
        Ok(run) => {
            pyramid_run::check_consistent(&run);
            pyramid_run::check_snapshot(&run);
        }
        Err(e) => assert_eq!(e.error_code(), ErrorCode::InvalidSnapshot, "{e:?}"),
    }
}

fn restore_text(text: &str) {
    match earlyexit::snapshot::parse(text) {
        Ok(document) => restore_all(&document),
        Err(e) => assert_eq!(e.error_code(), ErrorCode::InvalidSnapshot, "{e:?}"),
    }
}

fn drive(u: &mut Unstructured) -> Result<()> {
    match u.int_in_range(0u8..=5)? {
        0 => {
            // arbitrary bytes as snapshot text
            let bytes: &[u8] = u.arbitrary()?;
            restore_text(&String::from_utf8_lossy(bytes));
        }
        1 => {
            // an arbitrary value tree as a snapshot
            restore_all(&gen::value(u, 4)?);
        }
        mode => {
            let mut document = valid_snapshot(u)?;
            if mode == 5 {
                let mut text = document.to_json().into_bytes();
                mutate_bytes(u, &mut text)?;
                restore_text(&String::from_utf8_lossy(&text));
            } else {
                let mutations = u.int_in_range(1usize..=4)?;
                for _ in 0..mutations {
                    mutate(u, &mut document, 0)?;
                }
                restore_all(&document);
            }
        }
    }
    Ok(())
}

/// A valid snapshot of one of the engines, built by a short arbitrary call sequence.
fn valid_snapshot(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0u8..=2)? {
        0 => loop_ops::build(u)?.0.to_snapshot(),
        1 => loop_ops::build(u)?.1.to_snapshot(),
        _ => {
            let mut run = pyramid_run::start(u)?;
            let _ = pyramid_run::steps(u, &mut run);
            run.to_snapshot()
        }
    })
}

/// One structural mutation somewhere in the tree.
fn mutate(u: &mut Unstructured, value: &mut Value, depth: u32) -> Result<()> {
    let descend = depth < 6 && u.ratio(2u8, 3u8)?;
    match value {
        Value::Object(entries) if descend && !entries.is_empty() => {
            let i = u.choose_index(entries.len())?;
            if let Some((_, child)) = entries.get_mut(i) {
                return mutate(u, child, depth + 1);
            }
        }
        Value::Array(items) if descend && !items.is_empty() => {
            let i = u.choose_index(items.len())?;
            if let Some(child) = items.get_mut(i) {
                return mutate(u, child, depth + 1);
            }
        }
        _ => {}
    }
    match (u.int_in_range(0u8..=6)?, &mut *value) {
        (0, Value::Object(entries)) if !entries.is_empty() => {
            let i = u.choose_index(entries.len())?;
            entries.remove(i);
        }
        (1, Value::Object(entries)) => {
            let (k, v) = (gen::key(u)?, gen::value(u, 2)?);
            gen::set(entries, k, v);
        }
        (2, Value::Object(entries)) if !entries.is_empty() => {
            let i = u.choose_index(entries.len())?;
            let k = gen::key(u)?;
            if !entries.iter().any(|(existing, _)| *existing == k) {
                if let Some(entry) = entries.get_mut(i) {
                    entry.0 = k;
                }
            }
        }
        (3, Value::Array(items)) => {
            let keep = u.int_in_range(0..=items.len())?;
            if u.arbitrary()? {
                items.truncate(keep);
            } else if let Some(item) = items.get(keep.min(items.len().saturating_sub(1))).cloned() {
                items.insert(keep, item); // duplicate an entry
            }
        }
        (4, Value::Number(n)) => {
            *n = match u.int_in_range(0u8..=3)? {
                0 => f64::from_bits(n.to_bits().wrapping_add(1)),
                1 => f64::from_bits(n.to_bits().wrapping_sub(1)),
                2 => -*n,
                _ => gen::number(u)?,
            };
        }
        (5, Value::String(s)) => *s = gen::string(u)?,
        _ => *value = gen::value(u, 2)?,
    }
    Ok(())
}

/// Byte-level mutations of JSON text: flips, inserts, deletes, truncation.
fn mutate_bytes(u: &mut Unstructured, text: &mut Vec<u8>) -> Result<()> {
    let count = u.int_in_range(1usize..=4)?;
    for _ in 0..count {
        if text.is_empty() {
            break;
        }
        let at = u.choose_index(text.len())?;
        match u.int_in_range(0u8..=3)? {
            0 => {
                if let Some(b) = text.get_mut(at) {
                    *b ^= 1 << u.int_in_range(0u8..=7)?;
                }
            }
            1 => text.insert(at, *u.choose(b"{}[]\",:0123456789.eE+-nulltrefals \\")?),
            2 => {
                text.remove(at);
            }
            _ => text.truncate(at),
        }
    }
    Ok(())
}
