//! A tool's arguments: the object a call gives, refused when it holds a key the tool does not
//! take or breaks a rule between its arguments (the tool's row in `tools_table` lists both),
//! and read by name with the core's errors.

use super::tools_table::{Kind, Rule, ToolRow};
use super::wording;
use crate::core_api::{self, ErrorCode, Value};
use crate::output::Failure;

/// A tool argument of the wrong type (`invalid_config`, the argument as field).
pub(super) fn type_error(field: &str, expected: &str, got: &Value) -> Failure {
    Failure::core(core_api::type_error(ErrorCode::InvalidConfig, field, expected, got))
}

pub(super) struct Args<'a> {
    pub(super) tool: &'a str,
    values: &'a [(String, Value)],
}

impl<'a> Args<'a> {
    /// The arguments of `row`'s tool (an object: the wire reader refuses others), refusing
    /// keys the tool does not take (the message lists them), then the first of its rules
    /// they break.
    pub(super) fn new(row: &'a ToolRow, args: &'a Value) -> Result<Self, Failure> {
        let values = match args {
            Value::Object(entries) => entries.as_slice(),
            _ => &[],
        };
        let known = row.known();
        for (key, _) in values {
            if !known.contains(&key.as_str()) {
                return Err(Failure::core(core_api::unknown_argument(row.name, key, &known)));
            }
        }
        let args = Args { tool: row.name, values };
        for rule in row.rules {
            args.keeps(row, *rule)?;
        }
        Ok(args)
    }

    /// Whether argument `key` of `row` is given: not null, and a list of files names one.
    fn given(&self, row: &ToolRow, key: &str) -> bool {
        let files = row.args.iter().any(|a| a.name == key && matches!(a.kind, Kind::Files));
        match self.get(key) {
            Some(Value::Array(items)) if files => !items.is_empty(),
            value => value.is_some(),
        }
    }

    fn keeps(&self, row: &ToolRow, rule: Rule) -> Result<(), Failure> {
        let broken = match rule {
            Rule::OneOf(names) => match names.iter().copied().filter(|n| self.given(row, n)).collect::<Vec<_>>()[..] {
                [] => Some(wording::one_argument_of(row.name, names)),
                [_] => None,
                [first, .., last] => Some(wording::one_argument_of(row.name, &[first, last])),
            },
            Rule::NotBoth(first, second) => {
                (self.given(row, first) && self.given(row, second)).then(|| wording::exclusive_arguments(first, second))
            }
            Rule::Needs(key, needed) => {
                (self.given(row, key) && !self.given(row, needed)).then(|| wording::argument_needs(key, needed))
            }
        };
        broken.map_or(Ok(()), |e| Err(Failure::core(e)))
    }

    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.values.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v).filter(|v| !matches!(v, Value::Null))
    }

    pub(super) fn required(&self, key: &str) -> Result<&Value, Failure> {
        self.get(key).ok_or_else(|| Failure::core(wording::missing_argument(self.tool, key)))
    }

    pub(super) fn string(&self, key: &str) -> Result<Option<String>, Failure> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(type_error(key, "a string", other)),
        }
    }

    pub(super) fn strings(&self, key: &str) -> Result<Vec<String>, Failure> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(type_error(&format!("{key}[{i}]"), "a string", other)),
                })
                .collect(),
            Some(other) => Err(type_error(key, "an array of strings", other)),
        }
    }

    pub(super) fn session(&self) -> Result<String, Failure> {
        self.string("session")?.ok_or_else(|| Failure::core(wording::missing_argument(self.tool, "session")))
    }
}

pub(super) fn options_of(args: &Args, keys: &[&str]) -> Value {
    Value::object(keys.iter().filter_map(|k| args.get(k).map(|v| (*k, v.clone()))).collect())
}

#[cfg(test)]
mod tests {
    use super::super::tools_table::row;
    use super::*;

    /// What `Args::new` answers for `tool` called with `json`: `None` when it takes them, else
    /// the field and message of its error.
    fn refusal(tool: &str, json: &str) -> Option<(String, String)> {
        let (Some(row), Ok(value)) = (row(tool), core_api::parse_json(json, "invalid_config", "arguments")) else {
            return Some(("no such tool, or not JSON".into(), format!("{tool} {json}")));
        };
        match Args::new(&row, &value) {
            Ok(_) => None,
            Err(Failure::Core { error, .. }) => Some((error.field().to_string(), error.message().to_string())),
            Err(other) => Some((String::new(), format!("{other:?}"))),
        }
    }

    /// Calls and what `Args::new` answers, one a line: `tool {arguments} -> field: message`,
    /// or `-> taken`. The first fifteen are worded as each tool worded them when it checked its
    /// own (the same bytes); the others were usage errors naming no field, one naming two of
    /// three sources, or (pyramid_submit's coverage beside a result) silently ignored.
    const CASES: &str = r#"
loop_start {"preset":"seed","policy_artifact":{}} -> preset: give preset or policy_artifact, not both
loop_record {"session":"s","done":true,"completed":true} -> done: give done or completed, not both
pyramid_submit {"session":"s","layer":0} -> result: pyramid_submit takes result or junit, exactly one of them
pyramid_submit {"result":{},"junit":["r.xml"]} -> result: pyramid_submit takes result or junit, exactly one of them
pyramid_submit {"junit":["r.xml"],"coverage":1,"coverage_xml":"c.xml"} -> coverage: give coverage or coverage_xml, not both
junit_layer_result {"junit":["r.xml"],"coverage":1,"coverage_xml":"c.xml"} -> coverage: give coverage or coverage_xml, not both
replay_loops {} -> runs: replay_loops takes runs or paths, exactly one of them
replay_loops {"runs":"","paths":["a.jsonl"]} -> runs: replay_loops takes runs or paths, exactly one of them
replay_pyramids {"runs":[],"model_out":"m.json"} -> model_out: model_out needs paths
calibrate_pyramids {"runs":"","paths":["a.jsonl"]} -> runs: calibrate_pyramids takes runs or paths, exactly one of them
calibrate_pyramids {"runs":"","model_out":"m.json"} -> model_out: model_out needs paths
calibrate_loops {"runs":"","store":"sqlite:s.db"} -> runs: calibrate_loops takes runs or store, exactly one of them
calibrate_loops {"paths":["a.jsonl"],"store":"sqlite:s.db"} -> paths: calibrate_loops takes paths or store, exactly one of them
calibrate_loops {"runs":"","paths":["a.jsonl"],"store":"s"} -> runs: calibrate_loops takes runs or store, exactly one of them
calibrate_loops {"runs":"","paths":["a.jsonl"]} -> runs: calibrate_loops takes runs or paths, exactly one of them
calibrate_loops {} -> runs: calibrate_loops takes runs, paths or store, exactly one of them
calibrate_loops {"runs":"","since":"2026-01-01T00:00:00Z"} -> since: since needs store
receipts_verify {} -> text: receipts_verify takes text, path or log, exactly one of them
receipts_verify {"text":"","path":"r.jsonl"} -> text: receipts_verify takes text or path, exactly one of them
receipts_verify {"store":"sqlite:s.db"} -> store: store needs log
receipts_verify {"log":"ci"} -> log: log needs store
pyramid_submit {"result":{},"coverage":0.5} -> coverage: coverage needs junit
pyramid_submit {"result":{},"coverage_xml":"c.xml"} -> coverage_xml: coverage_xml needs junit
pyramid_submit {"result":{},"junit":[]} -> taken
pyramid_submit {"junit":["r.xml"],"coverage":null,"coverage_xml":"c.xml"} -> taken
replay_loops {"runs":"","paths":[]} -> taken
replay_loops {"paths":"runs.jsonl"} -> taken
replay_pyramids {"paths":["a.jsonl"],"model_out":"m.json"} -> taken
calibrate_loops {"store":"s","run_label":"main","since":"2026-01-01T00:00:00Z"} -> taken
receipts_verify {"store":"sqlite:s.db","log":"ci"} -> taken
"#;

    /// A tool's rules are checked before it runs: null is not given, nor an empty list of
    /// files; a wrong type is the tool's to refuse.
    #[test]
    fn the_rows_rules_refuse_with_the_tools_words() {
        let mut checked = 0;
        for line in CASES.lines().filter(|l| !l.is_empty()) {
            let (call, expected) = line.split_once(" -> ").unwrap_or_default();
            let (tool, json) = call.split_once(' ').unwrap_or_default();
            let expected = expected.split_once(": ").map(|(f, m)| (f.to_string(), m.to_string()));
            assert_eq!(refusal(tool, json), expected, "{line}");
            checked += 1;
        }
        assert_eq!(checked, 30);
    }
}
