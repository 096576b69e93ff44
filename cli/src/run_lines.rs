//! The input and output plumbing of replay and calibration: JSONL files of runs read line by
//! line through the core's reader (memory bounded by the longest line the core allows), a
//! progress bar over their bytes, and the per-run rows of a replay document spilled to a
//! temporary file until the summary is known.

use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Read, Seek, Write};

use crate::core_api::{self, JsonlLines, Value};
use crate::output::{with_file, Failure};

/// A progress bar over the bytes of the input files, on stderr when it is a terminal.
pub fn progress(files: &[String], quiet: bool) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let total: u64 =
        files.iter().filter(|f| *f != "-").filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {eta}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Feeds every line of `files` (in order) to `each(line, path)` through one [`JsonlLines`],
/// stopping at the first error, which names the file. `cancelled` is polled per line.
pub fn for_each_run<T>(
    files: &[String],
    bar: &indicatif::ProgressBar,
    cancelled: &dyn Fn() -> bool,
    mut read: impl FnMut(&str, &str) -> Result<T, core_api::CoreError>,
    mut each: impl FnMut(T) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut lines = JsonlLines::new();
    let mut buf = Vec::new();
    for file in files {
        bar.set_message(file.clone());
        let input: Box<dyn Read> = if file == "-" {
            Box::new(std::io::stdin())
        } else {
            Box::new(File::open(file).map_err(|e| Failure::Input { path: file.clone(), message: e.to_string() })?)
        };
        let mut reader = BufReader::with_capacity(1 << 16, input);
        lines.start_text();
        loop {
            if cancelled() {
                return Err(Failure::Internal("cancelled".into()));
            }
            buf.clear();
            // A line is read no further than the core's limit allows (plus its terminator): a
            // longer one is refused without being held whole.
            let n = (&mut reader)
                .take(JsonlLines::READ_LIMIT as u64)
                .read_until(b'\n', &mut buf)
                .map_err(|e| Failure::Input { path: file.clone(), message: e.to_string() })?;
            if n == 0 {
                break;
            }
            if n == JsonlLines::READ_LIMIT && buf.last() != Some(&b'\n') {
                return Err(with_file(lines.line_too_long(), file));
            }
            bar.inc(n as u64);
            let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
            if let Some(run) = lines.line_bytes(line, &mut read).map_err(|e| with_file(e, file))? {
                each(run)?;
            }
        }
    }
    bar.finish_and_clear();
    Ok(())
}

/// The per-run rows of a replay document: spilled to an anonymous temporary file as they
/// come (the command line and the MCP server), or not kept.
pub enum Rows {
    /// Comma-separated JSON rows in a temporary file.
    Spill { file: std::io::BufWriter<File>, count: u64 },
    /// Rows not wanted (a text summary, MCP's `summary_only`).
    Discard,
}

impl Rows {
    /// Rows spilled to a temporary file.
    pub fn spill() -> Result<Self, Failure> {
        let file = tempfile::tempfile().map_err(|e| Failure::Internal(format!("creating a temporary file: {e}")))?;
        Ok(Rows::Spill { file: std::io::BufWriter::new(file), count: 0 })
    }

    pub(crate) fn push(&mut self, row: Value) -> Result<(), Failure> {
        match self {
            Rows::Spill { file, count } => {
                let io = |e: std::io::Error| Failure::Internal(format!("writing a temporary file: {e}"));
                if *count > 0 {
                    file.write_all(b",").map_err(io)?;
                }
                file.write_all(row.to_json().as_bytes()).map_err(io)?;
                *count += 1;
            }
            Rows::Discard => {}
        }
        Ok(())
    }

    /// The file of rows (comma-separated JSON), read from its start; `None` when the rows
    /// were not kept. The MCP server writes its answer around it without reading it whole.
    pub fn into_file(self) -> Result<Option<File>, Failure> {
        let io = |e: std::io::Error| Failure::Internal(format!("reading the rows back: {e}"));
        match self {
            Rows::Spill { file, .. } => {
                let mut file = file.into_inner().map_err(|e| io(e.into_error()))?;
                file.rewind().map_err(io)?;
                Ok(Some(file))
            }
            Rows::Discard => Ok(None),
        }
    }

    /// Copies the rows (comma-separated JSON) to `out`.
    pub(crate) fn copy_to(self, out: &mut impl Write) -> Result<(), Failure> {
        let io = |e: std::io::Error| Failure::Internal(format!("copying the rows: {e}"));
        match self {
            Rows::Spill { file, .. } => {
                let mut file = file.into_inner().map_err(|e| io(e.into_error()))?;
                file.rewind().map_err(io)?;
                std::io::copy(&mut file, out).map_err(io)?;
            }
            Rows::Discard => {}
        }
        Ok(())
    }
}
