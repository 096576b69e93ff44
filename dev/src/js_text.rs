//! Text helpers for the JS files the generator writes: literals, keys and doc comments.

use std::fmt::Write as _;

use earlyexit::Value;
use earlyexit_js_fast::slots::Table;

/// A JS string literal in single quotes.
pub(crate) fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A number as JS writes it (the contract's values are integers).
pub(crate) fn number(n: f64) -> String {
    earlyexit::kit::num::to_js_string(n)
}

/// A value as a JS literal (JSON with single-quoted strings: the values here are plain).
pub(crate) fn literal(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(*n),
        Value::String(s) => string(s),
        Value::Array(items) => format!("[{}]", items.iter().map(literal).collect::<Vec<_>>().join(", ")),
        Value::Object(entries) => format!(
            "{{ {} }}",
            entries.iter().map(|(k, v)| format!("{}: {}", key(k), literal(v))).collect::<Vec<_>>().join(", ")
        ),
        Value::Other(other) => panic!("no JS literal for {other}"),
    }
}

/// An object key: bare when it is an identifier.
pub(crate) fn key(k: &str) -> String {
    let ident = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        k.to_string()
    } else {
        string(k)
    }
}

pub(crate) fn strings<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    format!("[{}]", names.into_iter().map(string).collect::<Vec<_>>().join(", "))
}

/// Rust doc text as a JS comment's text: intra-doc link targets dropped.
pub(crate) fn doc_text(doc: &str) -> Vec<String> {
    doc.lines()
        .map(|line| {
            let line = line.strip_prefix(' ').unwrap_or(line);
            let mut out = String::new();
            let mut rest = line;
            while let Some(at) = rest.find("](crate::") {
                let before = &rest[..at];
                let open = before.rfind('[').unwrap_or(0);
                out.push_str(&before[..open]);
                out.push_str(&before[open + 1..]);
                rest = &rest[at + 1..];
                rest = rest.find(')').map_or("", |close| &rest[close + 1..]);
            }
            out.push_str(rest);
            out.replace("[`", "`").replace("`]", "`").trim_end().to_string()
        })
        .collect()
}

/// A `/** ... */` comment at `indent`, or nothing for an empty doc.
pub(crate) fn comment(out: &mut String, indent: &str, doc: &str) {
    let lines = doc_text(doc);
    match lines.as_slice() {
        [] => {}
        [one] => {
            let _ = writeln!(out, "{indent}/** {one} */");
        }
        many => {
            let _ = writeln!(out, "{indent}/**");
            for line in many {
                let _ = writeln!(out, "{indent} *{}{line}", if line.is_empty() { "" } else { " " });
            }
            let _ = writeln!(out, "{indent} */");
        }
    }
}

/// `CYCLE` for `Cycle`, `LAYERS_CHANGED` for `LayersChanged`.
pub(crate) fn screaming(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

pub(crate) fn export_const(out: &mut String, doc: &str, name: &str, value: &str) {
    comment(out, "", doc);
    let _ = writeln!(out, "export const {name} = {value};");
}

pub(crate) fn frozen_list(out: &mut String, doc: &str, name: &str, names: &[&str]) {
    export_const(out, doc, name, &format!("Object.freeze({})", strings(names.iter().copied())));
}

pub(crate) fn table(out: &mut String, table: &Table) {
    let _ = writeln!(out, "\n// --- {} ({})", table.name, doc_text(table.doc).join(" "));
    for entry in table.entries {
        export_const(out, entry.doc, entry.js, &number(entry.value));
    }
}
