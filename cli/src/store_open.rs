//! The run store a command or an MCP tool names: its URL (`--store`, `EARLYEXIT_STORE`, the
//! default file), opened for writing or only for reading, the run filter of the flags, and
//! the selected runs as the JSONL text calibration reads.

use crate::output::Failure;
use earlyexit_store::{RunFilter, Store};

/// The store URL: `--store`, else `EARLYEXIT_STORE`, else the default file.
pub fn store_url(flag: &Option<String>) -> String {
    flag.clone()
        .or_else(|| std::env::var(earlyexit_store::STORE_ENV).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| format!("sqlite:{}", earlyexit_store::DEFAULT_STORE_PATH))
}

/// Opens the store a command names.
pub fn open(flag: &Option<String>) -> Result<Store, Failure> {
    Store::open(&store_url(flag)).map_err(|e| crate::output::with_flag(e, "--store"))
}

/// Opens the store a command only reads: it must exist (never created empty).
pub fn open_existing(flag: &Option<String>) -> Result<Store, Failure> {
    Store::open_existing(&store_url(flag)).map_err(|e| crate::output::with_flag(e, "--store"))
}

/// The filter of `--run-label`, `--dataset`, `--since`, `--limit`.
pub fn filter(
    run_label: &Option<String>,
    dataset: &Option<String>,
    since: &Option<String>,
    limit: Option<u64>,
) -> Result<RunFilter, Failure> {
    let since_ms = match since {
        Some(text) => Some(earlyexit_store::since_ms(text).map_err(|e| crate::output::with_flag(e, "--since"))?),
        None => None,
    };
    Ok(RunFilter { run_label: run_label.clone(), dataset: dataset.clone(), since_ms, limit })
}

/// The stored runs `filter` selects as JSONL text (what calibration reads).
pub fn runs_text(store: &Store, filter: &RunFilter) -> Result<String, Failure> {
    let mut text = String::new();
    store.runs(filter, |run| {
        text.push_str(&run.body);
        text.push('\n');
        Ok(())
    })?;
    Ok(text)
}
