//! The texts aiwg's `iteration-analytics.mjs` writes, built from the analytics' state: the
//! ASCII quality chart (`generateQualityChart()`), the markdown report (`generateReport()`),
//! the saved summary file (`JSON.stringify(summary, null, 2)`, in pieces so a binding can
//! append a record instead of rewriting the file) and `formatDuration(ms)`.
//!
//! Numbers print as upstream's template literals print them ([`num`](crate::num)); the token total
//! prints as Node's `toLocaleString()` does with no locale set (`en-US`). Where upstream's
//! report reads a field a record may lack (`tokens_used`, `token_cost_usd`), it prints
//! `undefined` or throws; this prints `N/A` (a listed difference).

use crate::loops::analytics::{AnalyticsRecord, IterationAnalytics, Trajectory};
use crate::loops::VerificationStatus;
use crate::num;
use crate::value::{self, field_name, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const GENERATED_AT: FieldName = field_name!("generatedAt", "generated_at");

/// Rows of the chart above its axis, minus one (upstream's `height`).
const CHART_HEIGHT: u32 = 10;

impl IterationAnalytics {
    /// `generateQualityChart()`: scores on 11 rows from the highest to the lowest, `●` for a
    /// passed record and `○` otherwise, then the axis and each iteration number's last digit.
    pub fn quality_chart(&self) -> String {
        let records = self.records();
        let Some(first) = records.first() else {
            return "No data".to_string();
        };
        let (mut max_score, mut min_score) = (first.quality_score, first.quality_score);
        for r in records {
            max_score = max_score.max(r.quality_score);
            min_score = min_score.min(r.quality_score);
        }
        let range = max_score - min_score;
        if range == 0.0 {
            return value::concat(&["Quality: ", &num::to_js_string(max_score), " (constant)"]);
        }
        let height = f64::from(CHART_HEIGHT);
        let mut out = String::new();
        for row in (0..=CHART_HEIGHT).rev() {
            let threshold = min_score + (range * f64::from(row) / height);
            let label = num::to_fixed(threshold, 0);
            for _ in label.chars().count()..3 {
                out.push(' ');
            }
            out.push_str(&label);
            out.push_str(" |");
            for r in records {
                out.push(if (r.quality_score - threshold).abs() < range / (height * 2.0) {
                    if r.verification_status == VerificationStatus::Passed {
                        '●'
                    } else {
                        '○'
                    }
                } else {
                    ' '
                });
            }
            out.push('\n');
        }
        out.push_str("    +");
        for _ in records {
            out.push('-');
        }
        out.push_str("\n     ");
        for r in records {
            out.push(char::from(b'0' + (r.iteration_number % 10) as u8));
        }
        out
    }

    /// `generateReport()`: sets `endTime` to `now` unless set (as the summary does), then the
    /// markdown report; `generated_at` is the time on its last line (upstream reads the clock
    /// there: a binding passes `now` unless the caller gave one).
    pub fn report(&mut self, now: &str, generated_at: &str) -> Result<String> {
        self.settle_end_time(now)?;
        if !crate::time::is_rfc3339(generated_at) {
            return Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                "generatedAt",
                value::concat(&[
                    "generatedAt must be an RFC 3339 date-time, got ",
                    &Value::string(generated_at).describe(),
                ]),
            ));
        }
        Ok(self.report_text(generated_at))
    }

    /// `generateReport(options)` on a host value: `options` is absent/`null` or
    /// `{generatedAt}` (an RFC 3339 date-time; default `now`).
    pub fn report_value(&mut self, options: &Value, naming: Naming, now: &str) -> Result<String> {
        let generated_at = match options {
            Value::Null => None,
            Value::Other(t) if t == "undefined" => None,
            _ => {
                let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
                reader.reject_unknown(&[GENERATED_AT])?;
                match reader.get(GENERATED_AT) {
                    None => None,
                    Some(v) => {
                        let s = reader.string(GENERATED_AT)?;
                        if !crate::time::is_rfc3339(s) {
                            return Err(reader.range_error(GENERATED_AT, "an RFC 3339 date-time", v));
                        }
                        Some(s.to_string())
                    }
                }
            }
        };
        let generated_at = generated_at.unwrap_or_else(|| now.to_string());
        self.report(now, &generated_at)
    }

    fn report_text(&self, generated_at: &str) -> String {
        let records = self.records();
        let or_null = |s: Option<&str>| s.unwrap_or("null").to_string();
        let iteration = |index: Option<usize>| -> Option<&AnalyticsRecord> { index.and_then(|i| records.get(i)) };
        let number_or_null =
            |r: Option<&AnalyticsRecord>| r.map_or("null".to_string(), |r| num::uint_string(r.iteration_number));
        let selection = self.select_best_iteration();
        let selected = iteration(selection.selected);
        let optimal = iteration(self.optimal_iteration(false));
        let final_iteration = records.last().map_or(0, |r| r.iteration_number);
        let report = self.detect_diminishing_returns();
        let [tokens, cost, _] = self.totals();
        let trajectory = self.trajectory();
        let quality_or_na =
            |r: Option<&AnalyticsRecord>| r.map_or("N/A".to_string(), |r| num::to_fixed(r.quality_score, 1));

        let mut out = String::new();
        let mut line = |parts: &[&str]| {
            for p in parts {
                out.push_str(p);
            }
            out.push('\n');
        };
        line(&["# Ralph Loop Analytics: ", &or_null(self.loop_id())]);
        line(&[]);
        line(&["**Task:** ", &or_null(self.task_description())]);
        line(&["**Duration:** ", &or_null(self.start_time()), " → ", &or_null(self.end_time())]);
        line(&[]);
        line(&["## Summary"]);
        line(&[]);
        line(&["| Metric | Value |"]);
        line(&["|--------|-------|"]);
        line(&["| Total Iterations | ", &num::uint_string(records.len() as u64), " |"]);
        line(&["| Selected Iteration | ", &number_or_null(selected), " |"]);
        line(&["| Final Quality Score | ", &quality_or_na(records.last()), " |"]);
        line(&["| Total Tokens | ", &num::to_locale_string(tokens.unwrap_or(0.0)), " |"]);
        line(&["| Total Cost | $", &num::to_fixed(cost.unwrap_or(0.0), 4), " |"]);
        line(&[]);
        line(&["## Iteration History"]);
        line(&[]);
        line(&["| # | Quality | Delta | Tokens | Cost | Verified |"]);
        line(&["|---|---------|-------|--------|------|----------|"]);
        let mut rows = String::new();
        for (i, r) in records.iter().enumerate() {
            if i > 0 {
                rows.push('\n');
            }
            let delta = num::to_fixed(r.quality_delta, 1);
            let tokens = r.usage.tokens_used.map_or("N/A".to_string(), num::to_js_string);
            let cost =
                r.usage.token_cost_usd.map_or("N/A".to_string(), |c| value::concat(&["$", &num::to_fixed(c, 4)]));
            let verified = match r.verification_status {
                VerificationStatus::Passed => "✓",
                VerificationStatus::Failed => "✗",
                VerificationStatus::Skipped => "-",
            };
            rows.push_str(&value::concat(&[
                "| ",
                &num::uint_string(r.iteration_number),
                " | ",
                &num::to_fixed(r.quality_score, 1),
                " | ",
                if r.quality_delta >= 0.0 { "+" } else { "" },
                &delta,
                " | ",
                &tokens,
                " | ",
                &cost,
                " | ",
                verified,
                " |",
            ]));
        }
        line(&[&rows]);
        line(&[]);
        line(&["## Quality Trajectory"]);
        line(&[]);
        line(&["```"]);
        line(&[&self.quality_chart()]);
        line(&["```"]);
        line(&[]);
        line(&["**Trajectory:** ", trajectory.as_str()]);
        line(&[]);
        line(&["## Analysis"]);
        line(&[]);
        line(&["**Best Output:** Iteration ", &number_or_null(optimal), " (quality: ", &quality_or_na(optimal), ")"]);
        line(&["**Selected:** Iteration ", &number_or_null(selected), " (", &selection.reason, ")"]);
        line(&[]);
        let detected_at = match report.iteration {
            crate::loops::ReportedIteration::At(n) => num::uint_string(n),
            _ => "null".to_string(),
        };
        if report.detected {
            line(&["**Diminishing Returns Detected:** At iteration ", &detected_at]);
            line(&[&report.reason]);
        } else {
            line(&["**Diminishing Returns:** Not detected - iterations continue to show improvement"]);
        }
        line(&[]);
        line(&["## Recommendations"]);
        line(&[]);
        let mut recommendations: Vec<String> = Vec::new();
        // upstream compares the selected iteration number (null with no records) with the final
        // one (0 with no records), so an empty loop recommends "Selected iteration null ...".
        if selected.map(|r| r.iteration_number) != Some(final_iteration) {
            recommendations.push(value::concat(&[
                "- Selected iteration ",
                &number_or_null(selected),
                " over final iteration ",
                &num::uint_string(final_iteration),
                " due to higher quality",
            ]));
        }
        if report.detected {
            recommendations.push(value::concat(&[
                "- Consider stopping at iteration ",
                &detected_at,
                " to save tokens/cost",
            ]));
        }
        match trajectory {
            Trajectory::Declining => {
                recommendations.push("- Quality is declining - review feedback mechanism".to_string())
            }
            Trajectory::Fluctuating => {
                recommendations.push("- Quality is fluctuating - consider more stable evaluation criteria".to_string())
            }
            _ => {}
        }
        if recommendations.is_empty() {
            recommendations.push("- Loop performed well with consistent improvement".to_string());
        }
        let recommendations: Vec<&str> = recommendations.iter().map(String::as_str).collect();
        line(&[&value::join(&recommendations, "\n")]);
        line(&[]);
        line(&["---"]);
        line(&[]);
        line(&["*Generated: ", generated_at, "*"]);
        out
    }

    /// The saved summary as upstream writes it (`JSON.stringify(summary, null, 2)`), in three
    /// pieces: `head` ends with `"iterations": [`, `records` are the records from index
    /// `from` on, each as it appears in the file (without the separator before it), and
    /// `tail` starts after the records' closing bracket. The whole file is
    /// [`SummaryPieces::text`]; a binding that wrote the file before can instead cut it after
    /// its last record and write `,` and the new records, the closing bracket and the new
    /// tail ([`SummaryPieces::append_text`]), which gives the same bytes. Sets `endTime` to
    /// `now` unless set, as `generateSummary()` does.
    pub fn summary_file(&mut self, now: &str, from: usize) -> Result<SummaryPieces> {
        self.settle_end_time(now)?;
        let head = self.summary_head();
        let mut head_text = pretty(&head, 0);
        // `...\n}` -> `...,\n  "iterations": [`
        head_text.truncate(head_text.len().saturating_sub(2));
        head_text.push_str(",\n  \"iterations\": [");
        let mut records = Vec::new();
        for r in self.records().get(from..).unwrap_or(&[]) {
            let mut text = String::from("\n    ");
            text.push_str(&pretty(&r.to_value(), 2));
            records.push(text);
        }
        let mut tail = pretty(&self.summary_tail(), 0);
        // `{\n  "total_iterations": ...` -> `,\n  "total_iterations": ...`
        tail.replace_range(..1, ",");
        Ok(SummaryPieces { head: head_text, records, tail, total: self.records().len() })
    }

    /// upstream's static `formatDuration(ms)`: `1h 2m 3s`, `2m 3s` or `3s` (floored; `ms` a
    /// finite number).
    pub fn format_duration(ms: &Value) -> Result<String> {
        let ms = match ms {
            Value::Number(n) if n.is_finite() => *n,
            Value::Number(_) => {
                return Err(Error::new(
                    ErrorCode::InvalidConfig,
                    ErrorKind::Range,
                    "ms",
                    value::concat(&["ms must be a finite number, got ", &ms.describe()]),
                ))
            }
            other => {
                return Err(Error::new(
                    ErrorCode::InvalidConfig,
                    ErrorKind::Type,
                    "ms",
                    value::concat(&["ms must be a number, got ", &other.describe()]),
                ))
            }
        };
        let seconds = (ms / 1000.0).floor();
        let minutes = (seconds / 60.0).floor();
        let hours = (minutes / 60.0).floor();
        let n = num::to_js_string;
        Ok(if hours > 0.0 {
            value::concat(&[&n(hours), "h ", &n(minutes % 60.0), "m ", &n(seconds % 60.0), "s"])
        } else if minutes > 0.0 {
            value::concat(&[&n(minutes), "m ", &n(seconds % 60.0), "s"])
        } else {
            value::concat(&[&n(seconds), "s"])
        })
    }
}

/// The saved summary in pieces (see [`IterationAnalytics::summary_file`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryPieces {
    /// Everything up to and including `"iterations": [`.
    pub head: String,
    /// The requested records, each preceded by its line break and indentation.
    pub records: Vec<String>,
    /// Everything after the records' closing bracket.
    pub tail: String,
    /// How many records the analytics holds.
    pub total: usize,
}

impl SummaryPieces {
    /// The whole file (when the pieces hold every record).
    pub fn text(&self) -> String {
        let mut out = self.head.clone();
        out.push_str(&self.records.join(","));
        out.push_str(if self.total == 0 { "]" } else { "\n  ]" });
        out.push_str(&self.tail);
        out
    }

    /// What follows the first `written` records of a file written before: the new records
    /// (with `,` before each one after the first record of the file), the closing bracket
    /// and the tail.
    pub fn append_text(&self, written: usize) -> String {
        let mut out = String::new();
        for (i, r) in self.records.iter().enumerate() {
            if written + i > 0 {
                out.push(',');
            }
            out.push_str(r);
        }
        out.push_str(if self.total == 0 { "]" } else { "\n  ]" });
        out.push_str(&self.tail);
        out
    }
}

/// `JSON.stringify(value, null, 2)`, as if `value` sat `depth` levels deep.
fn pretty(value: &Value, depth: usize) -> String {
    let mut out = String::new();
    write_pretty(value, depth, &mut out);
    out
}

fn write_pretty(value: &Value, depth: usize, out: &mut String) {
    let indent = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                write_pretty(item, depth + 1, out);
            }
            indent(out, depth);
            out.push(']');
        }
        Value::Object(entries) if entries.iter().any(|(_, v)| !matches!(v, Value::Other(_))) => {
            out.push('{');
            let mut first = true;
            for (key, item) in entries {
                if matches!(item, Value::Other(_)) {
                    continue; // JSON.stringify drops functions and undefined
                }
                if !first {
                    out.push(',');
                }
                first = false;
                indent(out, depth + 1);
                out.push_str(&Value::string(key.as_str()).to_json());
                out.push_str(": ");
                write_pretty(item, depth + 1, out);
            }
            indent(out, depth);
            out.push('}');
        }
        other => out.push_str(&other.to_json()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    const NOW: &str = "2026-01-01T00:00:00.000Z";

    fn analytics(records: &[(u64, f64, &str)]) -> IterationAnalytics {
        let mut a = IterationAnalytics::construct(
            Some(&Value::string("loop-1")),
            &Value::string("task"),
            &Value::Null,
            NOW,
            Naming::Js,
            true,
        )
        .unwrap();
        for (n, q, v) in records {
            let record = Value::object(vec![
                ("iteration_number", Value::Number(*n as f64)),
                ("quality_score", Value::Number(*q)),
                ("verification_status", Value::string(*v)),
            ]);
            a.record_value(&record, Naming::Js, NOW).unwrap();
        }
        a
    }

    #[test]
    fn pretty_is_json_stringify_with_two_spaces() {
        let v = Value::parse_json(
            r#"{"a":[],"b":{},"c":[1,{"d":"x\ny"}],"e":null,"f":-0,"g":1e21}"#,
            ErrorCode::InvalidSnapshot,
            "",
        )
        .unwrap();
        assert_eq!(
            pretty(&v, 0),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": \"x\\ny\"\n    }\n  ],\n  \"e\": null,\n  \"f\": 0,\n  \"g\": 1e+21\n}"
        );
    }

    #[test]
    fn the_file_appended_record_by_record_equals_the_file_written_whole() {
        let mut a = analytics(&[]);
        let mut file = a.summary_file(NOW, 0).unwrap().text();
        let mut cut = a.summary_file(NOW, 0).unwrap().head.len();
        for (i, q) in [50.0, 60.0, 55.0].iter().enumerate() {
            let record = Value::object(vec![
                ("iteration_number", Value::Number(i as f64 + 1.0)),
                ("quality_score", Value::Number(*q)),
                ("verification_status", Value::string("passed")),
                ("reflections", Value::Array(vec![Value::string("a\"b")])),
            ]);
            a.record_value(&record, Naming::Js, NOW).unwrap();
            let pieces = a.summary_file(NOW, i).unwrap();
            file.truncate(cut);
            let added = pieces.append_text(i);
            cut += added.len() - (if pieces.total == 0 { 1 } else { 4 }) - pieces.tail.len();
            file.push_str(&added);
            assert_eq!(file, a.summary_file(NOW, 0).unwrap().text());
        }
    }

    #[test]
    fn chart_and_duration_match_upstream_by_hand() {
        assert_eq!(analytics(&[]).quality_chart(), "No data");
        assert_eq!(analytics(&[(1, 70.5, "passed"), (2, 70.5, "failed")]).quality_chart(), "Quality: 70.5 (constant)");
        let chart = analytics(&[(1, 50.0, "passed"), (12, 100.0, "failed")]).quality_chart();
        let lines: Vec<&str> = chart.lines().collect();
        assert_eq!(lines[0], "100 | ○");
        assert_eq!(lines[10], " 50 |● ");
        assert_eq!(lines[11], "    +--");
        assert_eq!(lines[12], "     12");
        let d = |ms: f64| IterationAnalytics::format_duration(&Value::Number(ms)).unwrap();
        assert_eq!(d(3_723_000.0), "1h 2m 3s");
        assert_eq!(d(123_456.0), "2m 3s");
        assert_eq!(d(999.0), "0s");
        assert_eq!(d(-1500.0), "-2s");
        assert!(IterationAnalytics::format_duration(&Value::Number(f64::NAN)).is_err());
    }
}
