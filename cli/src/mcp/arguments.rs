//! A tool's arguments: the object a call gives, refused when it holds a key the tool does not
//! take (the tool's row in `tools_table` lists them), and read by name with the core's errors.

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
    /// The arguments (an object: the wire reader refuses others), refusing keys the tool
    /// does not take (the message lists them).
    pub(super) fn new(tool: &'a str, args: &'a Value, known: &[&str]) -> Result<Self, Failure> {
        let values = match args {
            Value::Object(entries) => entries.as_slice(),
            _ => &[],
        };
        for (key, _) in values {
            if !known.contains(&key.as_str()) {
                return Err(Failure::core(core_api::unknown_argument(tool, key, known)));
            }
        }
        Ok(Args { tool, values })
    }

    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.values.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v).filter(|v| !matches!(v, Value::Null))
    }

    pub(super) fn required(&self, key: &str) -> Result<&Value, Failure> {
        self.get(key).ok_or_else(|| Failure::core(super::wording::missing_argument(self.tool, key)))
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
        self.string("session")?.ok_or_else(|| Failure::core(super::wording::missing_argument(self.tool, "session")))
    }
}

pub(super) fn options_of(args: &Args, keys: &[&str]) -> Value {
    Value::object(keys.iter().filter_map(|k| args.get(k).map(|v| (*k, v.clone()))).collect())
}
