//! The hand-written shapes the generator does not write yet (it writes those of
//! [`crate::typed_blocks`]), held against the core's tables:
//! each TypedDict of the Python package and each interface of `bindings/js/index.d.ts`
//! listed in [`shapes`] must have exactly the core's keys (and, where the core says which
//! are optional, exactly those optional). `generate --check` fails on a difference and
//! prints the keys to paste.

use std::path::Path;

use earlyexit::loops::analytics::IterationSelection;
use earlyexit::loops::{StoppingDecision, StoppingDetails, StoppingSummary};
use earlyexit::pyramid::{FailingLayer, Speculation};

/// Where a shape is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// A `class Name(TypedDict)` (with its `_NameRequired` base) in a Python module.
    Python,
    /// An `export interface Name` in a `.d.ts` file.
    TypeScript,
    /// The `@property` getters of a `class Name` in a stub (`_native.pyi`).
    PythonProperties,
}

/// One hand-written shape and the core's keys for it.
pub struct Shape {
    /// The file, from the repository's root.
    pub file: &'static str,
    /// How it is declared.
    pub lang: Lang,
    /// The type's name.
    pub name: &'static str,
    /// The core's keys, in the writer's order.
    pub keys: Vec<&'static str>,
    /// The keys that may be absent, when the core says (else only the key set is checked).
    pub optional: Option<Vec<&'static str>>,
}

/// Every checked shape.
pub fn shapes() -> Vec<Shape> {
    use Lang::{Python, TypeScript};
    let shape = |file, lang, name, keys: Vec<&'static str>, optional: Option<Vec<&'static str>>| Shape {
        file,
        lang,
        name,
        keys,
        optional,
    };
    let written_last =
        vec![StoppingDecision::FIRED_KEY, StoppingDecision::INTERVENTIONS_KEY, StoppingDecision::WOULD_STOP_KEY];
    let decision = [StoppingDecision::KEYS.to_vec(), written_last.clone()].concat();
    // A summary over no record has its own keys (`reason` among them).
    let mut summary = StoppingSummary::KEYS.to_vec();
    summary.extend(StoppingSummary::EMPTY_KEYS.iter().filter(|k| !StoppingSummary::KEYS.contains(k)));
    let decision_optional = [StoppingDecision::OPTIONAL_KEYS.to_vec(), written_last].concat();
    let decisions = "bindings/python/earlyexit/_decision.py";
    let pyramid = "bindings/python/earlyexit/_pyramid.py";
    let dts = "bindings/js/index.d.ts";
    let js_keys = |keys: &[earlyexit::value::Key]| keys.iter().map(|k| k.js).collect::<Vec<_>>();
    vec![
        shape(decisions, Python, "StoppingDecisionDict", decision, Some(decision_optional)),
        shape(decisions, Python, "PlateauDetails", StoppingDetails::QUALITY_PLATEAU_KEYS.to_vec(), None),
        shape(decisions, Python, "StoppingSummaryDict", summary, None),
        shape(
            "bindings/python/earlyexit/_analytics.py",
            Python,
            "IterationSelectionDict",
            IterationSelection::KEYS.to_vec(),
            None,
        ),
        shape(
            pyramid,
            Python,
            "SpeculationDict",
            Speculation::KEYS.to_vec(),
            Some(Speculation::OPTIONAL_KEYS.to_vec()),
        ),
        shape(dts, TypeScript, "Speculation", Speculation::KEYS.to_vec(), Some(Speculation::OPTIONAL_KEYS.to_vec())),
        shape(pyramid, Python, "FailingLayerDict", js_keys(&FailingLayer::KEYS), Some(Vec::new())),
        shape(dts, TypeScript, "FailingLayer", js_keys(&FailingLayer::KEYS), Some(Vec::new())),
        shape(dts, TypeScript, "Limits", earlyexit::limits::ALL.iter().map(|l| l.js).collect(), Some(Vec::new())),
    ]
}

/// A declared shape's keys, each with whether it may be absent, or `None` when the file has
/// no such type.
pub fn declared(text: &str, lang: Lang, name: &str) -> Option<Vec<(String, bool)>> {
    match lang {
        Lang::Python => python_keys(text, name, false),
        Lang::TypeScript => typescript_keys(text, name),
        Lang::PythonProperties => python_properties(text, name),
    }
}

/// The line that declares `name`: `export interface NAME` (TypeScript), `class NAME(` or
/// `class NAME:` (Python).
pub fn declaration<S: AsRef<str>>(lines: &[S], lang: Lang, name: &str) -> Option<usize> {
    match lang {
        Lang::TypeScript => lines.iter().position(|l| {
            l.as_ref()
                .strip_prefix("export interface ")
                .and_then(|r| r.strip_prefix(name))
                .is_some_and(|r| r.starts_with([' ', '<']))
        }),
        Lang::Python | Lang::PythonProperties => lines.iter().position(|l| {
            l.as_ref()
                .strip_prefix("class ")
                .and_then(|r| r.strip_prefix(name))
                .is_some_and(|r| r.starts_with(['(', ':']))
        }),
    }
}

/// The getters of `class NAME` (`@property` then `def key(self)`), none of them optional.
fn python_properties(text: &str, name: &str) -> Option<Vec<(String, bool)>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = declaration(&lines, Lang::PythonProperties, name)?;
    let mut keys = Vec::new();
    let body = lines[at + 1..].iter().take_while(|l| l.is_empty() || l.starts_with(' '));
    let mut getter = false;
    for line in body {
        if line.trim() == "@property" {
            getter = true;
        } else if let Some(rest) = line.trim().strip_prefix("def ").filter(|_| getter) {
            keys.push((rest.split('(').next().unwrap_or(rest).to_string(), false));
            getter = false;
        }
    }
    Some(keys)
}

/// `class NAME(BASES):` and its `key: type` lines; keys of bases in the same text first
/// (`total=False` makes the class's own keys optional).
fn python_keys(text: &str, name: &str, _inherited: bool) -> Option<Vec<(String, bool)>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = declaration(&lines, Lang::Python, name)?;
    let bases_text = lines[at]["class (".len() + name.len()..].split("):").next().unwrap_or("");
    let mut keys = Vec::new();
    let mut total = true;
    for base in bases_text.split(',').map(str::trim) {
        if base.replace(' ', "") == "total=False" {
            total = false;
        } else if base != "TypedDict" {
            keys.extend(python_keys(text, base, true).unwrap_or_default());
        }
    }
    let mut in_doc = false;
    for line in &lines[at + 1..] {
        if !line.is_empty() && !line.starts_with(' ') {
            break;
        }
        let body = line.trim();
        let quotes = body.matches("\"\"\"").count();
        if in_doc {
            in_doc = quotes % 2 == 0;
            continue;
        }
        if quotes > 0 {
            in_doc = quotes % 2 == 1;
            continue;
        }
        if line.starts_with("    ") && !line.starts_with("     ") {
            if let Some((key, _)) = body.split_once(':') {
                if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !key.is_empty() {
                    keys.push((key.to_string(), !total));
                }
            }
        }
    }
    Some(keys)
}

/// `export interface NAME [extends A, B] {` and its `  key[?]: type;` lines; keys of the
/// interfaces it extends (in the same text) first.
fn typescript_keys(text: &str, name: &str) -> Option<Vec<(String, bool)>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = declaration(&lines, Lang::TypeScript, name)?;
    let mut keys = Vec::new();
    if let Some((_, parents)) = lines[at].split_once(" extends ") {
        for parent in parents.trim_end_matches('{').split(',').map(str::trim) {
            keys.extend(typescript_keys(text, parent).unwrap_or_default());
        }
    }
    for line in &lines[at + 1..] {
        if line.starts_with('}') {
            break;
        }
        let Some(rest) = line.strip_prefix("  ") else { continue };
        if rest.starts_with(' ') {
            continue;
        }
        let rest = rest.strip_prefix("readonly ").unwrap_or(rest);
        if let Some((key, _)) = rest.split_once(':') {
            let (key, optional) = match key.strip_suffix('?') {
                Some(k) => (k, true),
                None => (key, false),
            };
            let key = key.trim_matches('\'');
            if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                keys.push((key.to_string(), optional));
            }
        }
    }
    Some(keys)
}

/// Each shape that differs from the core's keys: what to change, with the keys to paste.
pub fn problems(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for shape in shapes() {
        let text = std::fs::read_to_string(root.join(shape.file)).unwrap_or_default();
        let Some(found) = declared(&text, shape.lang, shape.name) else {
            out.push(format!("{}: no {} declared", shape.file, shape.name));
            continue;
        };
        let mut names: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
        let mut expected = shape.keys.clone();
        names.sort_unstable();
        expected.sort_unstable();
        let optional_ok = shape.optional.as_ref().is_none_or(|optional| {
            let mut found_optional: Vec<&str> = found.iter().filter(|(_, o)| *o).map(|(k, _)| k.as_str()).collect();
            let mut optional = optional.clone();
            found_optional.sort_unstable();
            optional.sort_unstable();
            found_optional == optional
        });
        if names != expected || !optional_ok {
            let wanted: Vec<String> = shape
                .keys
                .iter()
                .map(|k| {
                    let optional = shape.optional.as_ref().is_some_and(|o| o.contains(k));
                    format!("{k}{}", if optional { " (optional)" } else { "" })
                })
                .collect();
            let missing: Vec<&&str> = shape.keys.iter().filter(|k| !names.contains(k)).collect();
            let extra: Vec<&&str> = names.iter().filter(|k| !shape.keys.contains(k)).collect();
            out.push(format!(
                "{}: {} differs from the core's keys (missing {missing:?}, not the core's {extra:?}{}); the core's, in order:\n    {}",
                shape.file,
                shape.name,
                if optional_ok { "" } else { ", optional keys differ" },
                wanted.join("\n    ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_and_typescript_declarations_are_read() {
        let py = "class _AR(TypedDict):\n    a: int\n\n\nclass A(_AR, total=False):\n    \"\"\"Doc\n    x: not a key\n    \"\"\"\n\n    b: str  # c\n    # d: e\n\n\nclass B(TypedDict):\n    z: int\n";
        assert_eq!(declared(py, Lang::Python, "A"), Some(vec![("a".to_string(), false), ("b".to_string(), true)]));
        let ts = "export interface P {\n  p: number;\n}\nexport interface Q extends P {\n  /** q: doc */\n  q?: string;\n  nested: {\n    inner: number;\n  };\n}\n";
        assert_eq!(
            declared(ts, Lang::TypeScript, "Q"),
            Some(vec![("p".to_string(), false), ("q".to_string(), true), ("nested".to_string(), false)])
        );
        assert_eq!(declared(ts, Lang::TypeScript, "R"), None);
        let stub = "class C:\n    def __init__(self) -> None: ...\n    @property\n    def a(self) -> int:\n        \"\"\"Doc.\"\"\"\n    def to_dict(self) -> dict: ...\n\nclass D:\n    @property\n    def z(self) -> int: ...\n";
        assert_eq!(declared(stub, Lang::PythonProperties, "C"), Some(vec![("a".to_string(), false)]));
    }
}
