//! `loop_record`'s behaviour arguments, one per field of the core's typed table
//! (`BehaviorIteration::RESULT_TYPES`): the field's type gives the argument's kind, its doc
//! line the description unless [`OVERRIDES`] keeps the tool's own wording (and bounds) for
//! it, so a field the core adds is an argument with nothing edited here.

use crate::core_api::{BehaviorIteration, MAX_SAFE_INTEGER};
use earlyexit::kit::shape::{FieldType, TypedField};

use super::tool_row::{Arg, Kind};

/// A behaviour field's argument as the tool words it: the core's name, the description, and
/// the bounds of a number (the core's range).
struct Override {
    field: &'static str,
    description: &'static str,
    bounds: Option<(f64, f64)>,
}

const fn wording(field: &'static str, description: &'static str) -> Override {
    Override { field, description, bounds: None }
}

/// The tool's wording of the fields it had before they came from the core's table.
const OVERRIDES: [Override; 10] = [
    wording("failure_class", "its class of failure (read before error)"),
    wording("error", "the iteration's error (behaviour detectors; absent = unknown)"),
    wording("blockers", "what blocked it"),
    Override {
        field: "completion_percentage",
        description: "how complete the task is",
        bounds: Some(BehaviorIteration::PERCENT_RANGE),
    },
    wording("artifacts_modified", "the files it changed"),
    wording("learnings", "what it learned (compared with a deviation condition's objective)"),
    wording("tests_passing", "whether the tests passed"),
    Override {
        field: "coverage_percent",
        description: "test coverage",
        bounds: Some(BehaviorIteration::PERCENT_RANGE),
    },
    wording(
        "fingerprint",
        "a hash of what the iteration produced, at most 256 characters (the unchanged and revisit conditions read it)",
    ),
    wording("completed", "the same as done (the record's field name); give one of them"),
];

/// `done`: the completion signal every surface names, the argument of the core's `completed`.
pub(super) const DONE: &str = "done";
/// The core's field `done` gives.
pub(super) const COMPLETED: &str = "completed";

/// The argument of one of the core's behaviour fields.
fn argument(field: &TypedField) -> Arg {
    let name = field.name.snake();
    let given = OVERRIDES.iter().find(|o| o.field == name);
    let kind = match field.ty {
        FieldType::Number => Kind::Number(given.and_then(|o| o.bounds)),
        FieldType::Integer => Kind::Integer((0, MAX_SAFE_INTEGER)),
        FieldType::Boolean => Kind::Boolean,
        FieldType::Text => Kind::String,
        FieldType::Texts => Kind::Strings,
        FieldType::Names(names) => Kind::Names(names),
    };
    Arg { name, kind, description: given.map_or(field.doc, |o| o.description), required: false }
}

/// `loop_record`'s behaviour arguments, in the core's order, `done` before `completed`.
pub(super) fn arguments() -> Vec<Arg> {
    let mut args = Vec::new();
    for field in &BehaviorIteration::RESULT_TYPES {
        if field.name.snake() == COMPLETED {
            args.push(Arg {
                name: DONE,
                kind: Kind::Boolean,
                description: "the loop's own completion signal (tests green, a completion promise): records \
                    completed: true",
                required: false,
            });
        }
        args.push(argument(field));
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each override names a field of the core's table (a renamed field leaves none behind).
    #[test]
    fn every_override_is_a_core_field() {
        for o in &OVERRIDES {
            assert!(BehaviorIteration::RESULT_TYPES.iter().any(|f| f.name.snake() == o.field), "{}", o.field);
        }
    }

    /// A field without an override is an argument of its type, described by the core's doc line.
    #[test]
    fn a_field_without_override_takes_the_core_s_type_and_doc() {
        let field = TypedField::nullable(earlyexit::value::FieldName::same("tool_calls"), FieldType::Integer, "Calls.");
        let arg = argument(&field);
        assert_eq!((arg.name, arg.description, arg.required), ("tool_calls", "Calls.", false));
        assert!(matches!(arg.kind, Kind::Integer((0, MAX_SAFE_INTEGER))));
        let names =
            argument(&TypedField::new(earlyexit::value::FieldName::same("mode"), FieldType::Names(&["a", "b"]), ""));
        assert!(matches!(names.kind, Kind::Names(["a", "b"])));
    }
}
