//! What every binding's store (Python's `earlyexit.Store`, Node's) shares beyond the
//! command's API: the URLs a binding opens, the default receipt log names a loop and a test
//! session record into, the error of a closed store, a run's `dataset` given beside it, runs
//! read in pages (a binding's iterator holds one page, never the whole store) and a JSONL
//! import streamed from a reader in one transaction.

use std::io::{BufRead, Write};

use earlyexit::kit::host::store::{self as rules, StoreProblem};
use earlyexit::value::jsonl::JsonlLines;
use earlyexit::{Error, ErrorCode, Naming, Value};

use crate::{RunFilter, RunMeta, Store, StoredRun};

pub use earlyexit::kit::host::store::{DEFAULT_LOOP_RECEIPT_LOG, DEFAULT_PYRAMID_RECEIPT_LOG};

/// How many runs a binding's iterator reads per page: memory is one page of runs.
pub const RUNS_PAGE: usize = 256;

/// Checks a URL a binding opens: a binding opens `sqlite:PATH` stores; a PostgreSQL URL is
/// refused with the command's name (the command is what serves a shared database), and the
/// URL is not echoed (it may hold a password). Anything else is read as the command reads it.
pub fn check_binding_url(url: &str) -> Result<(), Error> {
    let lower = url.get(..13).unwrap_or(url).to_ascii_lowercase();
    if lower.starts_with("postgresql://") || lower.starts_with("postgres://") {
        return Err(rules::binding_refuses_postgres());
    }
    rules::parse_store_url(url).map(|_| ())
}

/// The error of a call on a store that was closed (`store.close()`).
pub fn closed_error(url: &str) -> Error {
    rules::store_closed(url)
}

/// A file the caller named (an import's source, an export's target) that cannot be read or
/// written: `invalid_config` naming `path`, with what the system said.
pub fn file_error(path: &str, e: &std::io::Error) -> Error {
    earlyexit::kit::host::respelled(rules::store_error(StoreProblem::Io, path, &e.to_string()), "store", "path")
}

/// A run with the `dataset` the caller gave beside it: set when the run has none, the same
/// when it has one; another dataset is refused (`invalid_replay` naming `dataset`).
pub fn with_dataset(run: Value, dataset: &str) -> Result<Value, Error> {
    rules::check_store_name("dataset", dataset)?;
    let mut run = match run {
        Value::String(text) => Value::parse_json(&text, ErrorCode::InvalidReplay, "run")?,
        other => other,
    };
    let Value::Object(entries) = &mut run else {
        // Not an object: the run reader words the error.
        earlyexit::ReplayRun::from_value(&run, Naming::Js, "run")?;
        return Ok(run);
    };
    match entries.iter().find(|(k, _)| k == "dataset").map(|(_, v)| v) {
        None | Some(Value::Null) => {
            entries.retain(|(k, _)| k != "dataset");
            entries.push(("dataset".to_string(), Value::string(dataset)));
        }
        Some(Value::String(have)) if have == dataset => {}
        Some(other) => {
            let have: String = other.to_json().chars().take(60).collect();
            return Err(rules::dataset_differs(dataset, &have));
        }
    }
    Ok(run)
}

impl Store {
    /// At most `page` of the runs `filter` selects whose sequence number is above
    /// `after_seq`, oldest first (`filter.limit` is the caller's to count). A binding's
    /// iterator calls it again with the last `seq` it got until a page comes back short.
    pub fn runs_page(&self, filter: &RunFilter, after_seq: i64, page: usize) -> Result<Vec<StoredRun>, Error> {
        let page_filter = RunFilter { limit: Some(u64::try_from(page).unwrap_or(u64::MAX)), ..filter.clone() };
        let mut out = Vec::new();
        self.runs_after(&page_filter, Some(after_seq), |run| {
            out.push(run);
            Ok(())
        })?;
        Ok(out)
    }

    /// Adds the runs of a JSONL stream (the form replay reads, one run a line, blank lines
    /// skipped) in one transaction: all of them, or none when a line is not a run (its error
    /// names `runs[i]` and the line). Memory is one line. Returns (lines read as runs, runs
    /// new to the store): importing the same stream twice adds nothing the second time.
    pub fn import_jsonl(&mut self, mut input: impl BufRead, meta: &RunMeta) -> Result<(u64, u64), Error> {
        if let Some(label) = &meta.run_label {
            rules::check_store_name("runLabel", label)?;
        }
        let url = self.url.clone();
        self.in_one_transaction(|batch| {
            let mut lines = JsonlLines::new();
            lines.start_text();
            let mut buf = Vec::new();
            let mut read = 0u64;
            loop {
                buf.clear();
                let n = std::io::Read::take(&mut input, JsonlLines::READ_LIMIT as u64)
                    .read_until(b'\n', &mut buf)
                    .map_err(|e| rules::store_error(StoreProblem::Io, &url, &e.to_string()))?;
                if n == 0 {
                    break;
                }
                if n == JsonlLines::READ_LIMIT && buf.last() != Some(&b'\n') {
                    return Err(lines.line_too_long());
                }
                let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
                let run = lines.line_bytes(line, |text, path| {
                    let value = Value::parse_json(text, ErrorCode::InvalidReplay, path)?;
                    earlyexit::ReplayRun::from_value(&value, Naming::Js, path)?;
                    Ok(value)
                })?;
                if let Some(run) = run {
                    read += 1;
                    batch.add_run(&run, meta)?;
                }
            }
            Ok((read, batch.added()))
        })
    }

    /// [`Store::import_jsonl`] from the file at `path`, read as a stream (memory is one
    /// line); a file that cannot be opened is [`file_error`].
    pub fn import_file(&mut self, path: &str, meta: &RunMeta) -> Result<(u64, u64), Error> {
        let file = std::fs::File::open(path).map_err(|e| file_error(path, &e))?;
        self.import_jsonl(std::io::BufReader::with_capacity(1 << 16, file), meta)
    }

    /// Writes the runs `filter` selects to `path` as JSONL (the form replay, calibration and
    /// [`Store::import_jsonl`] read), streamed one run at a time into `PATH.partial`, synced,
    /// then renamed over `path`: a reader never sees half an export, and a failed one leaves
    /// `path` as it was. Returns how many runs were written.
    pub fn export_file(&self, path: &str, filter: &RunFilter) -> Result<u64, Error> {
        let partial = std::path::PathBuf::from(format!("{path}.partial"));
        let io = |e: std::io::Error| file_error(path, &e);
        let file = std::fs::File::create(&partial).map_err(io)?;
        let mut out = std::io::BufWriter::new(file);
        let mut count = 0u64;
        let written = self.runs(filter, |run| {
            count += 1;
            writeln!(out, "{}", run.body).map_err(io)
        });
        let finished = written.and_then(|()| {
            let file = out.into_inner().map_err(|e| io(e.into_error()))?;
            file.sync_all().map_err(io)?;
            std::fs::rename(&partial, path).map_err(io)
        });
        if let Err(e) = finished {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn line(id: &str) -> String {
        format!(
            r#"{{"id":"{id}","iterations":[{{"quality_score":50,"confidence":0.5,"verification_status":"failed"}}]}}"#
        )
    }

    #[test]
    fn pages_and_a_streamed_import_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("s.db").display());
        let mut store = Store::open(&url).unwrap();
        let text: String = (0..10).map(|i| line(&format!("r{i}")) + "\n").collect();
        assert_eq!(store.import_jsonl(text.as_bytes(), &RunMeta::default()).unwrap(), (10, 10));
        assert_eq!(store.import_jsonl(text.as_bytes(), &RunMeta::default()).unwrap(), (10, 0));
        let bad = format!("{}\n\n{{}}\n", line("new"));
        let e = store.import_jsonl(bad.as_bytes(), &RunMeta::default()).unwrap_err();
        assert!(e.field().starts_with("runs[1]"), "{}", e.field());
        assert_eq!(store.run_count().unwrap(), 10);
        let filter = RunFilter::default();
        let first = store.runs_page(&filter, 0, 4).unwrap();
        let second = store.runs_page(&filter, first[3].seq, 4).unwrap();
        let last = store.runs_page(&filter, second[3].seq, 4).unwrap();
        assert_eq!((first.len(), second.len(), last.len()), (4, 4, 2));
        assert!(last[1].body.contains("\"r9\""));
        // A file out and in again: the same runs, nothing new; a missing file names `path`.
        let out = dir.path().join("out.jsonl").display().to_string();
        assert_eq!(store.export_file(&out, &filter).unwrap(), 10);
        assert!(!std::path::Path::new(&format!("{out}.partial")).exists());
        assert_eq!(store.import_file(&out, &RunMeta::default()).unwrap(), (10, 0));
        let e = store.import_file(&format!("{out}.missing"), &RunMeta::default()).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "path"));
        let e = store.export_file(&dir.path().join("no/such/out.jsonl").display().to_string(), &filter).unwrap_err();
        assert_eq!(e.field(), "path");
    }

    #[test]
    fn binding_urls_and_datasets() {
        let e = check_binding_url("postgresql://u:secret@h/db").unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "store"));
        assert!(e.message().contains("earlyexit command") && !e.message().contains("secret"));
        assert!(check_binding_url("sqlite:x.db").is_ok() && check_binding_url("mysql://h").is_err());
        let run = Value::parse_json(&line("a"), ErrorCode::InvalidReplay, "run").unwrap();
        let with = with_dataset(run.clone(), "d").unwrap();
        assert_eq!(with.get("dataset"), Some(&Value::string("d")));
        assert_eq!(with_dataset(with.clone(), "d").unwrap(), with);
        assert_eq!(with_dataset(with, "e").unwrap_err().field(), "dataset");
    }
}
