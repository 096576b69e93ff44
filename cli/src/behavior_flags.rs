//! `loop record`'s behaviour flags, one per field of the core's typed table
//! (`BehaviorIteration::RESULT_TYPES`), matched by the core's name: [`OVERRIDES`] keeps the
//! command's spelling and help of the fields it had; any other field gets `--` + its name
//! (`_` as `-`), a repeatable flag for a list, `true`/`false` for a boolean, and its help
//! from the MCP tool's argument (the core's doc line, names and bounds). A field the core
//! adds is a flag with nothing edited here.

use std::sync::OnceLock;

use clap::{Arg, ArgAction, ArgMatches, Command};
use earlyexit::kit::shape::{FieldType, TypedField};

use crate::core_api::{self, BehaviorIteration, Value};

/// What a flag takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Takes {
    /// One value, read as the field's type.
    One,
    /// A value per use (a list field).
    Repeated,
    /// No value: given, it records `true`.
    Switch,
}

/// The command's own flag of a behaviour field (keyed by the core's name).
struct Override {
    field: &'static str,
    /// The flag, with its dashes.
    flag: &'static str,
    value_name: &'static str,
    takes: Takes,
    /// The help; `None`: the MCP tool argument's (its name and bounds).
    help: Option<&'static str>,
}

const fn over(field: &'static str, flag: &'static str, value_name: &'static str, help: &'static str) -> Override {
    Override { field, flag, value_name, takes: Takes::One, help: Some(help) }
}

/// The flags the command spelled before they came from the core's table, in its order.
const OVERRIDES: [Override; 10] = [
    over(
        "failure_class",
        "--failure-class",
        "TEXT",
        "failure_class of this iteration (behaviour detectors; read before --error)",
    ),
    over(
        "error",
        "--error",
        "TEXT",
        "error of this iteration (behaviour detectors: the stuck detector counts repeats)",
    ),
    Override {
        takes: Takes::Repeated,
        ..over("blockers", "--blocker", "TEXT", "A blocker of this iteration (blockers; repeat for several)")
    },
    Override { help: None, ..over("completion_percentage", "--completion", "P", "") },
    Override {
        takes: Takes::Repeated,
        ..over(
            "artifacts_modified",
            "--file",
            "PATH",
            "A file this iteration changed (artifacts_modified; repeat for several)",
        )
    },
    over(
        "learnings",
        "--learnings",
        "TEXT",
        "learnings of this iteration (compared with a deviation condition's objective)",
    ),
    over("tests_passing", "--tests-passing", "BOOL", "tests_passing: true or false"),
    Override { help: None, ..over("coverage_percent", "--coverage", "P", "") },
    over(
        "fingerprint",
        "--fingerprint",
        "TEXT",
        "fingerprint of this iteration: a hash of what it produced (at most 256 characters), which the unchanged \
         and revisit conditions compare",
    ),
    Override {
        takes: Takes::Switch,
        ..over(
            "completed",
            "--done",
            "",
            "The loop's own completion signal (tests green): records completed: true, which the completed condition \
             stops on",
        )
    },
];

/// The flag of one behaviour field.
#[derive(Debug)]
struct Flag {
    field: &'static str,
    ty: FieldType,
    /// With its dashes (`--failure-class`).
    flag: &'static str,
    value_name: &'static str,
    takes: Takes,
    help: Option<&'static str>,
    /// The core's doc line of a field without an override (its help beside the name).
    doc: &'static str,
}

impl Flag {
    fn of(field: &TypedField) -> Flag {
        let name = field.name.snake();
        if let Some(o) = OVERRIDES.iter().find(|o| o.field == name) {
            let Override { flag, value_name, takes, help, .. } = *o;
            return Flag { field: name, ty: field.ty, flag, value_name, takes, help, doc: "" };
        }
        // Built once per process (`flags`): a field's flag lives as long as the command.
        let flag: &'static str = Box::leak(format!("--{}", name.replace('_', "-")).into_boxed_str());
        let (value_name, takes) = match field.ty {
            FieldType::Number | FieldType::Integer => ("N", Takes::One),
            FieldType::Boolean => ("BOOL", Takes::One),
            FieldType::Text => ("TEXT", Takes::One),
            FieldType::Texts => ("TEXT", Takes::Repeated),
            FieldType::Names(_) => ("NAME", Takes::One),
        };
        Flag { field: name, ty: field.ty, flag, value_name, takes, help: None, doc: field.doc }
    }

    fn long(&self) -> &'static str {
        self.flag.trim_start_matches('-')
    }

    fn arg(&self) -> Arg {
        let doc = self.doc.trim_end_matches('.');
        let help = match self.help {
            Some(help) => help.to_string(),
            // An integer's bounds are a JSON number's (no news); a count's doc says more.
            None if self.ty == FieldType::Integer => format!("{}: {doc}", self.field),
            None if doc.is_empty() => crate::mcp::flag_help("loop_record", self.field, ""),
            // The tool argument's names or bounds, then the core's doc line.
            None => crate::mcp::flag_help("loop_record", self.field, &format!(" ({doc})")),
        };
        let arg = Arg::new(self.field).long(self.long()).help(help);
        match self.takes {
            Takes::Switch => arg.action(ArgAction::SetTrue),
            Takes::Repeated => arg.action(ArgAction::Append).value_name(self.value_name).allow_hyphen_values(true),
            // A boolean's value is true or false, never a hyphen's.
            Takes::One => arg
                .action(ArgAction::Set)
                .value_name(self.value_name)
                .allow_hyphen_values(self.ty != FieldType::Boolean),
        }
    }

    /// The field's value from what the flag was given (`None` when not given).
    fn value(&self, matches: &ArgMatches) -> Option<Value> {
        match self.takes {
            Takes::Switch => matches.get_flag(self.field).then_some(Value::Bool(true)),
            Takes::Repeated => {
                let items: Vec<Value> =
                    matches.get_many::<String>(self.field)?.map(|t| Value::string(t.as_str())).collect();
                Some(Value::Array(items))
            }
            Takes::One => {
                let text = matches.get_one::<String>(self.field)?;
                Some(match (self.ty, text.as_str()) {
                    (FieldType::Number | FieldType::Integer, text) => core_api::number_arg(text),
                    (FieldType::Boolean, "true") => Value::Bool(true),
                    (FieldType::Boolean, "false") => Value::Bool(false),
                    // Anything else goes on as text: the core refuses it, naming the field.
                    (_, text) => Value::string(text),
                })
            }
        }
    }
}

/// The flags of the core's behaviour fields, in its order.
fn flags() -> &'static [Flag] {
    static FLAGS: OnceLock<Vec<Flag>> = OnceLock::new();
    FLAGS.get_or_init(|| BehaviorIteration::RESULT_TYPES.iter().map(Flag::of).collect())
}

/// The flag that gives the behaviour field `field` (the core's name).
pub(crate) fn flag_of(field: &str) -> Option<&'static str> {
    flags().iter().find(|f| f.field == field).map(|f| f.flag)
}

/// The behaviour fields `loop record`'s flags gave, keyed by the core's names.
#[derive(Debug, Default)]
pub struct BehaviorArgs {
    pub entries: Vec<(&'static str, Value)>,
}

impl clap::FromArgMatches for BehaviorArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let entries = flags().iter().filter_map(|f| f.value(matches).map(|v| (f.field, v))).collect();
        Ok(BehaviorArgs { entries })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = BehaviorArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for BehaviorArgs {
    fn augment_args(command: Command) -> Command {
        flags().iter().fold(command, |command, flag| command.arg(flag.arg()))
    }

    fn augment_args_for_update(command: Command) -> Command {
        BehaviorArgs::augment_args(command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    /// Each override names a field of the core's table (a renamed field leaves none behind).
    #[test]
    fn every_override_is_a_core_field() {
        for o in &OVERRIDES {
            assert!(BehaviorIteration::RESULT_TYPES.iter().any(|f| f.name.snake() == o.field), "{}", o.field);
        }
    }

    /// Every behaviour field of the core has a flag of `loop record` that records it, and
    /// errors on it name that flag.
    #[test]
    fn every_core_field_has_a_flag_that_records_it() {
        let mut command = crate::Cli::command();
        let record = command.find_subcommand_mut("loop").and_then(|c| c.find_subcommand_mut("record")).cloned();
        let record = record.expect("loop record");
        for field in &BehaviorIteration::RESULT_TYPES {
            let name = field.name.snake();
            let flag = flag_of(name).unwrap_or_else(|| panic!("no flag for {name}"));
            assert_eq!(crate::loop_cmd::flag_of(name), Some(flag));
            let arg = record.get_arguments().find(|a| a.get_long() == flag.strip_prefix("--"));
            assert!(arg.is_some(), "`loop record --help` lacks {flag} ({name})");
            let value = match field.ty {
                FieldType::Boolean => "true",
                FieldType::Number | FieldType::Integer => "3",
                FieldType::Names(names) => names.first().copied().unwrap_or("x"),
                FieldType::Text | FieldType::Texts => "x",
            };
            let mut argv = vec!["record", "--state", "s", "--quality", "1", "--confidence", "1"];
            argv.extend(["--verification", "passed", flag]);
            if name != "completed" {
                argv.push(value);
            }
            let matches = record.clone().try_get_matches_from(&argv);
            let matches = matches.unwrap_or_else(|e| panic!("{argv:?}: {e}"));
            let given = BehaviorArgs::from_arg_matches(&matches).map(|b| b.entries).unwrap_or_default();
            assert_eq!(given.len(), 1, "{argv:?} gave {given:?}");
            assert_eq!(given[0].0, name);
        }
    }

    /// A field without an override: `--` + its name, repeatable for a list, typed values.
    #[test]
    fn a_field_without_override_gets_a_flag_of_its_name() {
        let name = earlyexit::value::FieldName::same;
        let calls = Flag::of(&TypedField::nullable(name("tool_calls"), FieldType::Integer, "Calls made."));
        assert_eq!((calls.flag, calls.takes, calls.value_name), ("--tool-calls", Takes::One, "N"));
        assert_eq!(calls.arg().get_help().map(ToString::to_string).as_deref(), Some("tool_calls: Calls made"));
        let tags = Flag::of(&TypedField::nullable(name("tags_seen"), FieldType::Texts, ""));
        assert_eq!((tags.flag, tags.takes), ("--tags-seen", Takes::Repeated));
        let ok = Flag::of(&TypedField::nullable(name("lint_ok"), FieldType::Boolean, ""));
        let command = Command::new("t").arg(calls.arg()).arg(tags.arg()).arg(ok.arg());
        let matches = command
            .try_get_matches_from([
                "t",
                "--tool-calls",
                "3",
                "--tags-seen",
                "a",
                "--tags-seen",
                "-b",
                "--lint-ok",
                "maybe",
            ])
            .expect("parses");
        assert_eq!(calls.value(&matches), Some(Value::Number(3.0)));
        let tags = Value::Array(vec![Value::string("a"), Value::string("-b")]);
        assert_eq!(ok.value(&matches), Some(Value::string("maybe")));
        assert_eq!(
            Flag::of(&TypedField::nullable(name("tags_seen"), FieldType::Texts, "")).value(&matches),
            Some(tags)
        );
    }
}
