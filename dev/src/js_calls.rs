//! The JS layer's typed calls, `bindings/js/api/calls.generated.mjs`: one function per declared
//! op of the contract (`ops!` in `bindings/js/interface/src/contract.rs`, a row with
//! `via(arg: Kind, ...) -> answer`), named as the op, which encodes its named arguments, calls
//! the native module and reads the answer. The handler reads the same arguments by name
//! (`args::NAME::read`), so a reader follows a fragment's `ES_RECORD_CHECK(...)` to
//! `op::ES_RECORD_CHECK` and `args::ES_RECORD_CHECK` in the interface crate. An op without the
//! declaration is still called by hand and gets no function here.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use earlyexit_js::contract::{Arg, Call, OPS};

use crate::js_text::comment;

/// Where the generated module is, under the repository's root.
pub const PATH: &str = "bindings/js/api/calls.generated.mjs";

/// `usage_totals` -> `usageTotals`.
fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The JS expression that writes one argument into the call's text.
fn encoded(arg: &Arg, codec: &mut BTreeSet<&'static str>) -> String {
    let name = camel(arg.name);
    let with_where = |function: &'static str, codec: &mut BTreeSet<&'static str>| {
        codec.insert(function);
        if arg.where_.is_empty() {
            format!("{function}({name})")
        } else {
            codec.insert(arg.where_);
            format!("{function}({name}, {})", arg.where_)
        }
    };
    match arg.kind {
        "Value" => with_where("enc", codec),
        "Config" => with_where("encConfig", codec),
        "Opt" => with_where("encOpt", codec),
        "Str" => format!("JSON.stringify({name})"),
        "Text" | "Num" | "Bool" => name,
        other => panic!("op argument {}: unknown kind {other} (Value, Config, Opt, Text, Num, Bool, Str)", arg.name),
    }
}

fn function(out: &mut String, name: &str, doc: &str, call: &Call, codec: &mut BTreeSet<&'static str>) {
    let mut params: Vec<String> = call.args.iter().map(|a| camel(a.name)).collect();
    let text = if call.args.is_empty() {
        "'[]'".to_string()
    } else {
        let parts: Vec<String> = call.args.iter().map(|a| encoded(a, codec)).collect();
        format!("'[' + {} + ']'", parts.join(" + ',' + "))
    };
    let target = match call.via {
        "exec" => format!("native.exec(OP.{name}, {text})"),
        "call" => {
            params.insert(0, "engine".into());
            format!("engine.call(OP.{name}, {text})")
        }
        "fill" => {
            codec.insert("filled");
            format!("filled(OP.{name}, {text})")
        }
        other => panic!("op {name}: unknown call {other} (exec, call, fill)"),
    };
    let body = match (call.via, call.answer) {
        ("fill", "engine") => target,
        ("fill", other) => panic!("op {name}: a `fill` op answers `engine`, not {other}"),
        (_, "unwrap") => {
            codec.insert("unwrap");
            format!("unwrap({target})")
        }
        (_, "raw") => target,
        (_, "error") => {
            codec.insert("makeError");
            format!("makeError({target})")
        }
        (_, other) => panic!("op {name}: unknown answer {other} (unwrap, raw, error; engine for fill)"),
    };
    let answers = match (call.via, call.answer) {
        ("fill", _) => "Answers the filled native object (freed again when the core refuses)",
        (_, "raw") => "Answers the answer's text, which the caller reads",
        (_, "error") => "Answers the error the answer holds",
        _ => "Answers the value (an error answer is thrown)",
    };
    let handler = if call.args.is_empty() {
        format!("`op::{name}` (no arguments)")
    } else {
        format!("`op::{name}`, which reads them as `args::{name}`")
    };
    let mut doc = format!("{}\n{answers}.\nHandler: {handler} (bindings/js/interface).\n", doc.trim_end());
    if call.via == "call" {
        doc.push_str("@param {object} engine the native object\n");
    }
    for arg in call.args {
        let (ty, what) = match arg.kind {
            "Value" => ("*", "a value, encoded here"),
            "Config" => ("*", "a value, encoded here (`undefined`: none)"),
            "Opt" => ("*", "a value, encoded here (`undefined` or `null`: none)"),
            "Text" => ("string|number", "wire text the caller encoded (a number is its own text)"),
            "Num" => ("number", "a number"),
            "Bool" => ("boolean", "a boolean"),
            _ => ("string", "a string"),
        };
        let _ = writeln!(doc, "@param {{{ty}}} {} {what}", camel(arg.name));
    }
    comment(out, "", &doc);
    let _ = writeln!(out, "export function {name}({}) {{\n  return {body};\n}}", params.join(", "));
}

/// The generated module's text.
pub fn module() -> String {
    let mut codec = BTreeSet::new();
    let mut functions = String::new();
    for op in OPS {
        if let Some(call) = op.call.as_ref().filter(|call| call.via != "codec") {
            functions.push('\n');
            function(&mut functions, op.name, op.doc, call, &mut codec);
        }
    }
    let mut out = String::new();
    out.push_str(
        "// Generated by `make generate` (dev/, crate earlyexit-dev) from the declared ops of the JS\n\
         // contract (`ops!` in bindings/js/interface/src/contract.rs): edit that table and run it\n\
         // again, never this file (`make test-rust` runs `generate --check`).\n\
         //\n\
         // One function per declared op, named as the op: it encodes the op's named arguments into\n\
         // the wire format, calls the native module and reads the answer. Its handler reads the same\n\
         // arguments by name (`args::NAME` in the interface crate). An op without the declaration is\n\
         // still called by hand (`native.exec(OP.NAME, '[' + ... + ']')`).\n\n",
    );
    if !codec.is_empty() {
        let names: Vec<&str> = codec.into_iter().collect();
        let _ = writeln!(out, "import {{ {} }} from './codec.js';", names.join(", "));
    }
    out.push_str("import { OP } from './contract.generated.mjs';\n");
    out.push_str(&functions);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_camel_case() {
        assert_eq!(camel("usage_totals"), "usageTotals");
        assert_eq!(camel("runs"), "runs");
    }
}
