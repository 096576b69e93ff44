//! What a binding checks on the host side before (or instead of) handing a value to the core,
//! worded here so every message and code still comes from the core: a value the binding
//! cannot convert (a cycle, nesting or size beyond the limits), a count given where a list is
//! accepted, the options of the JS `runWithEarlyExit`, and a layer list that changed while a
//! run awaited a runner; the named arguments a binding and the command's MCP server share
//! (an unknown one, one under another spelling). What only the MCP server says (its missing
//! and exclusive arguments, its sessions, its confined paths) it words itself, on the core's
//! [`Error`] with the core's codes and kinds ([`host_error`]).
//!
//! The limits are the core's (`crate::limits`, `docs/limits.md`).

pub mod store;
pub mod wire;

use crate::limits::{MAX_DOCUMENT_BYTES, MAX_VALUE_DEPTH};
use crate::value::{self, concat, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// What a binding found itself, for [`problem`] (the JS layer sends the number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A value that contains itself at `path` (`runs[0].meta.self`): it has no JSON form.
    Cycle = 0,
    /// A value nested deeper than [`MAX_VALUE_DEPTH`] at `path`.
    Depth = 1,
    /// An argument (`path` is its name) whose JSON text would be over [`MAX_DOCUMENT_BYTES`].
    Size = 2,
    /// The layer list of a run changed (length, or the layer about to run) while the run
    /// awaited a runner: a run reads the list once, when it starts.
    LayersChanged = 3,
    /// `verify` needs layer `path` (`layers[2]`: one layer per verified speculation) and the
    /// list ends before it.
    MissingLayer = 4,
    /// `verify(speculations, layers)` when `layers` (`got`) is not an array.
    NotLayers = 5,
}

impl Problem {
    /// Every problem, by number.
    pub const ALL: [Problem; 6] = [
        Problem::Cycle,
        Problem::Depth,
        Problem::Size,
        Problem::LayersChanged,
        Problem::MissingLayer,
        Problem::NotLayers,
    ];
}

/// The error for `problem`, with code `code` (for `Cycle`, `Depth`, `Size`: the code of the
/// argument the value was in), at `path` (the root's name when it is empty), about `got`.
pub fn problem(problem: Problem, code: ErrorCode, path: &str, got: &Value) -> Error {
    let field = if path.is_empty() { "value" } else { path };
    let (code, kind, field, text) = match problem {
        Problem::Cycle => (code, ErrorKind::Type, field, " is a cyclic reference (the value contains itself)"),
        // Worded as the core's own readers word a limit (`over the limits: ...`).
        Problem::Depth => {
            let text = value::over_limit("a value nested deeper than ", MAX_VALUE_DEPTH, " levels");
            return Error::new(code, ErrorKind::Range, field, concat(&[field, " is ", &text]));
        }
        Problem::Size => {
            let text = value::over_limit("a document of more than ", MAX_DOCUMENT_BYTES, " bytes");
            return Error::new(code, ErrorKind::Range, field, concat(&[field, " is ", &text]));
        }
        Problem::LayersChanged => (
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            "layers",
            " changed while a runner was awaited (a run reads the list once, when it starts)",
        ),
        Problem::MissingLayer => (
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            field,
            " must be a layer (one per verified speculation), got nothing (missing)",
        ),
        // The error a run gives a layer list that is not an array (one message for both).
        Problem::NotLayers => match crate::pyramid::parse_layers(got, Naming::Js) {
            Err(error) => return error,
            Ok(_) => (ErrorCode::InvalidConfig, ErrorKind::Type, "layers", " must be an array"),
        },
    };
    Error::new(code, kind, field, concat(&[field, text]))
}

/// A type error for an argument the core has no reader for (a layer result's `extra`, the
/// `skipped` of `speculate`): `field must be expected, got ...`, as the core's readers word it.
pub fn type_error(code: ErrorCode, field: &str, expected: &str, got: &Value) -> Error {
    Error::new(code, ErrorKind::Type, field, concat(&[field, " must be ", expected, ", got ", &got.describe()]))
}

/// Text a person typed where a number is taken (a command-line flag), as a host passes it
/// on: a JSON number is that number (to the nearest f64, as any JSON); an integer written
/// out that no f64 holds exactly (beyond 2^53, such as 9007199254740993) stays as written,
/// so the error that refuses it quotes the caller instead of a neighbouring number (every
/// integer the engines take is at most 2^53 - 1, and a measurement this large is no
/// measurement); any other text is a string, which the field's own check refuses by name.
pub fn number_text(text: &str) -> Value {
    let trimmed = text.trim();
    match Value::parse_json(trimmed, ErrorCode::InvalidConfig, "") {
        Ok(Value::Number(n)) if !exact_integer_text(trimmed, n) => {
            Value::Other(concat(&[trimmed, " (an integer beyond 2^53, which a number cannot hold exactly)"]))
        }
        Ok(Value::Number(n)) => Value::Number(n),
        _ => Value::string(text),
    }
}

/// Whether JSON number text `text` read as `n` is not an integer literal beyond 2^53, or
/// is one that `n` holds exactly.
fn exact_integer_text(text: &str, n: f64) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if !digits.bytes().all(|b| b.is_ascii_digit()) || n.abs() <= value::MAX_SAFE_INTEGER as f64 {
        return true;
    }
    // Up to 38 digits fit u128, which holds every f64 integer below 2^127 exactly.
    match digits.parse::<u128>() {
        Ok(written) if n.abs() < 2f64.powi(127) => n.abs() as u128 == written,
        _ => false,
    }
}

/// `engine` names no engine whose snapshot a binding can restore (Python's pickle support).
pub fn unknown_engine(engine: &str) -> Error {
    Error::new(
        ErrorCode::InvalidSnapshot,
        ErrorKind::Range,
        "engine",
        concat(&["snapshot is of unknown engine '", engine, "'"]),
    )
}

/// `class` names no result class a binding can rebuild (Python's pickle support).
pub fn unknown_result_class(class: &str) -> Error {
    Error::new(
        ErrorCode::InvalidSnapshot,
        ErrorKind::Range,
        "class",
        concat(&["class must name a result class, got '", class, "'"]),
    )
}

/// How a JS binding's native call can be malformed: only a JS layer and a native module
/// built from different sources get here (the contract's fingerprint is checked on load).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The arguments were not a JSON array.
    Arguments,
    /// The native object holds another kind of engine than the op asks for.
    Engine,
    /// The op code is unknown.
    Op(u32),
}

/// The error for a malformed native call (see [`Mismatch`]).
pub fn mismatch(mismatch: Mismatch) -> Error {
    match mismatch {
        Mismatch::Arguments => Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "arguments",
            "the JS layer must pass an array of arguments",
        ),
        Mismatch::Engine => Error::new(
            ErrorCode::InvalidStep,
            ErrorKind::Type,
            "this",
            "the native object does not hold this kind of engine",
        ),
        Mismatch::Op(op) => Error::new(
            ErrorCode::InvalidStep,
            ErrorKind::Range,
            "op",
            concat(&[
                "unknown native op ",
                &crate::num::uint_string(u64::from(op)),
                " (the JS layer and the native module do not match)",
            ]),
        ),
    }
}

// ---- A host whose calls take named arguments (a binding's options object, the MCP
// ---- server's tools): what they share.

/// An error a host words itself (the command's MCP server: its arguments, sessions and
/// paths), with the core's `code` and `kind`; `message` names `field`. The rules and the
/// words the libraries share stay in the core.
pub fn host_error(code: ErrorCode, kind: ErrorKind, field: &str, message: String) -> Error {
    Error::new(code, kind, field, message)
}

/// `tool` has no argument `key`: code `unknown_option`, listing the arguments it has.
pub fn unknown_argument(tool: &str, key: &str, known: &[&str]) -> Error {
    Error::new(
        ErrorCode::UnknownOption,
        ErrorKind::Type,
        key,
        concat(&[tool, " has no argument '", key, "'; its arguments: ", &value::join(known, ", ")]),
    )
}

/// A key of the policy's config found in an exit config document (the command's
/// `--config`, which reads only the ADR's exit config): `unknown_option` naming
/// `path.key`, with a did-you-mean naming `instead` (where the key goes, e.g. the command's
/// `--risk-budget`). `None` when `key` is not a policy config key, or is an exit config key too.
pub fn policy_key_in_exit_config(path: &str, key: &str, instead: &str) -> Option<Error> {
    use crate::pyramid::policy::POLICY_CONFIG_FIELDS;
    let in_policy = POLICY_CONFIG_FIELDS.iter().any(|f| f.js() == key);
    let in_exit = crate::pyramid::EXIT_CONFIG_FIELDS.iter().any(|f| f.js() == key);
    if !in_policy || in_exit {
        return None;
    }
    let field = if path.is_empty() { key.to_string() } else { concat(&[path, ".", key]) };
    let message =
        concat(&[&field, " is not an exit config key: it belongs to the policy's config; did you mean ", instead, "?"]);
    Some(Error::new(ErrorCode::UnknownOption, ErrorKind::Type, field, message))
}

/// `error`, about an argument a host takes under another spelling (`strict_iterations` for
/// the config's `strictIterations`): its field `from` and the first mention of it in the
/// message read `to`. Any other error is returned as it is.
pub fn respelled(error: Error, from: &str, to: &str) -> Error {
    if error.field() != from {
        return error;
    }
    // std's `replacen`, not the crate's `replace_first`: a second caller of that helper kept
    // it out of line in `PyramidRun::from_snapshot` (+52 B in the wasm engines module, which
    // never calls this function).
    let message = error.message().replacen(from, to, 1);
    Error::new(error.error_code(), error.kind(), to, message)
}

const SIGNAL: FieldName = FieldName::same("signal");

/// The options of JS `runWithEarlyExit(layers, options)`: absent, `null`, or an object whose
/// keys are `signal`, an `AbortSignal` (the binding passes one as the host type
/// `"AbortSignal"`), `null` or absent, and the run's policy options
/// ([`RUN_OPTION_FIELDS`](crate::pyramid::policy::RUN_OPTION_FIELDS), whose values the
/// policy checks when the run starts).
pub fn run_options(options: &Value, naming: Naming) -> Result<()> {
    if matches!(options, Value::Null) {
        return Ok(());
    }
    let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
    let [policy, mode, model, policy_config, run_id, shadow_reason, label, now] =
        crate::pyramid::policy::RUN_OPTION_FIELDS;
    reader.reject_unknown(&[SIGNAL, policy, mode, model, policy_config, run_id, shadow_reason, label, now])?;
    match reader.get(SIGNAL) {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Other(kind)) if kind == "AbortSignal" => Ok(()),
        Some(other) => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "signal",
            concat(&["signal must be an AbortSignal, got ", &other.describe()]),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::uint_string;

    #[test]
    fn options_are_checked_with_their_field() {
        assert!(run_options(&Value::Null, Naming::Js).is_ok());
        let signal = Value::object(vec![("signal", Value::Other("AbortSignal".into()))]);
        assert!(run_options(&signal, Naming::Js).is_ok());
        let e = run_options(&Value::object(vec![("signal", Value::Number(1.0))]), Naming::Js).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "signal"));
        let e = run_options(&Value::object(vec![("signl", Value::Null)]), Naming::Js).unwrap_err();
        assert_eq!((e.code(), e.field()), ("unknown_option", "signl"));
        assert!(e.message().contains("did you mean 'signal'"), "{}", e.message());
        let e = run_options(&Value::Number(3.0), Naming::Js).unwrap_err();
        assert_eq!(e.field(), "options");
    }

    #[test]
    fn binding_side_errors_are_worded_here() {
        let e = type_error(ErrorCode::InvalidConfig, "skipped", "a count", &Value::Bool(true));
        assert_eq!(
            (e.code(), e.field(), e.message()),
            ("invalid_config", "skipped", "skipped must be a count, got true")
        );
        assert_eq!(unknown_engine("x").field(), "engine");
        assert_eq!(unknown_result_class("X").message(), "class must name a result class, got 'X'");
        assert_eq!(mismatch(Mismatch::Arguments).field(), "arguments");
        assert_eq!(mismatch(Mismatch::Engine).code(), "invalid_step");
        assert!(mismatch(Mismatch::Op(77)).message().starts_with("unknown native op 77 "));
    }

    #[test]
    fn shared_argument_errors_are_worded_here() {
        let e = unknown_argument("loop_decide", "sesion", &["session"]);
        assert_eq!(
            (e.code(), e.field(), e.message()),
            ("unknown_option", "sesion", "loop_decide has no argument 'sesion'; its arguments: session")
        );
        // A config field under the tool's spelling: field and message respelled, nothing else.
        let e = type_error(ErrorCode::InvalidConfig, "totalLayers", "an integer", &Value::Bool(true));
        let e = respelled(e, "totalLayers", "total_layers");
        assert_eq!((e.field(), e.message()), ("total_layers", "total_layers must be an integer, got true"));
        let other = respelled(e, "totalLayers", "layers");
        assert_eq!(other.field(), "total_layers");
        let e = host_error(ErrorCode::InvalidStep, ErrorKind::Range, "session", "no session 'x'".into());
        assert_eq!(
            (e.code(), e.field(), e.kind(), e.message()),
            ("invalid_step", "session", ErrorKind::Range, "no session 'x'")
        );
    }

    #[test]
    fn problems_name_their_path_and_code() {
        let none = Value::Null;
        let e = problem(Problem::Cycle, ErrorCode::InvalidReplay, "runs[0].self", &none);
        assert_eq!((e.code(), e.field(), e.kind()), ("invalid_replay", "runs[0].self", ErrorKind::Type));
        let e = problem(Problem::Depth, ErrorCode::InvalidSnapshot, "", &none);
        assert_eq!((e.code(), e.field(), e.kind()), ("invalid_snapshot", "value", ErrorKind::Range));
        // The limits in the messages are the constants'.
        assert!(e.message().contains(&concat(&[" ", &uint_string(MAX_VALUE_DEPTH as u64), " levels"])));
        let e = problem(Problem::Size, ErrorCode::InvalidSnapshot, "snapshot", &none);
        assert!(e.message().contains(&concat(&[" ", &uint_string(MAX_DOCUMENT_BYTES as u64), " bytes"])));
        let e = problem(Problem::MissingLayer, ErrorCode::InvalidSnapshot, "layers[2]", &none);
        assert_eq!((e.code(), e.field()), ("invalid_config", "layers[2]"));
        let e = problem(Problem::LayersChanged, ErrorCode::InvalidSnapshot, "", &none);
        assert_eq!((e.code(), e.field()), ("invalid_config", "layers"));
        assert!(e.message().starts_with("layers changed"));
        let e = problem(Problem::NotLayers, ErrorCode::InvalidSnapshot, "", &Value::Number(3.0));
        assert_eq!((e.code(), e.field(), e.message()), ("invalid_config", "layers", "layers must be an array, got 3"));
        for (n, p) in Problem::ALL.into_iter().enumerate() {
            assert_eq!(p as usize, n);
        }
    }
}
