//! The shape of the MCP tools' table (`tools_table.rs`): a tool row, its arguments with their
//! JSON types and the core's bounds or names, the rules between them, and how a row becomes
//! the tool `tools/list` answers (input and output schemas, annotations).

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{json, Map, Value as Json};

/// What a tool does to the world outside its answer.
#[derive(Clone, Copy)]
pub(super) enum Effect {
    /// Reads only: no session changes, no file written.
    ReadOnly,
    /// Creates or changes a session, or writes a file when asked; `destructive`: it may
    /// remove or overwrite something (a session, a file); `idempotent`: calling it twice with
    /// the same arguments does no more than once.
    Writes { destructive: bool, idempotent: bool },
}

/// The JSON type of an argument, with the core's bounds or names where it has them.
pub(super) enum Kind {
    /// A session id (`loop_start`, `pyramid_start` or `session_import` answers one).
    Session,
    String,
    Boolean,
    /// An integer, `(min, max)` from the core.
    Integer((u64, u64)),
    /// A number, `(min, max)` from the core (`f64::MAX` is no bound).
    Number(Option<(f64, f64)>),
    /// One of the core's names.
    Names(&'static [&'static str]),
    /// A document (an object).
    Object,
    /// An array of strings.
    Strings,
    /// A file inside the server's roots (a relative path is taken from the first root).
    File,
    /// Files inside the server's roots.
    Files,
    /// Any of these JSON types.
    Types(&'static [&'static str]),
    /// An array of objects.
    Objects,
    /// A schema of its own (a layer result, the layers of a pyramid).
    Schema(fn() -> Json),
}

/// One argument of a tool.
pub(super) struct Arg {
    pub name: &'static str,
    pub kind: Kind,
    pub description: &'static str,
    pub required: bool,
}

/// A rule between a tool's arguments. `Args::new` checks a row's rules in order before the
/// tool runs (an argument is given when it is not null; a list of files, when it names one);
/// `flag_parity` holds the command's flags to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rule {
    /// Exactly one of these is given.
    OneOf(&'static [&'static str]),
    /// Not both of these.
    NotBoth(&'static str, &'static str),
    /// The first only with the second.
    Needs(&'static str, &'static str),
}

/// One MCP tool.
pub(super) struct ToolRow {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub args: Vec<Arg>,
    /// The rules between its arguments, checked in this order.
    pub rules: &'static [Rule],
    pub output: fn() -> Json,
}

impl ToolRow {
    /// The argument names the tool accepts, in the table's order (an unknown argument's error
    /// lists them so).
    pub fn known(&self) -> Vec<&'static str> {
        self.args.iter().map(|a| a.name).collect()
    }

    /// The tool as `tools/list` answers it.
    pub fn tool(&self) -> Tool {
        let mut properties = Map::new();
        for arg in &self.args {
            properties.insert(arg.name.to_string(), arg.schema());
        }
        let required: Vec<&str> = self.args.iter().filter(|a| a.required).map(|a| a.name).collect();
        let mut input = json!({"type": "object", "properties": properties, "additionalProperties": false});
        if !required.is_empty() {
            input["required"] = json!(required);
        }
        let mut tool = Tool::new(self.name, self.description, object(input));
        tool.title = Some(self.title.to_string());
        tool.output_schema = Some(object((self.output)()));
        let mut annotations = ToolAnnotations::with_title(self.title);
        annotations = match self.effect {
            Effect::ReadOnly => annotations.read_only(true),
            Effect::Writes { destructive, idempotent } => {
                annotations.read_only(false).destructive(destructive).idempotent(idempotent)
            }
        };
        tool.annotations = Some(annotations.open_world(false));
        tool
    }
}

impl Arg {
    fn schema(&self) -> Json {
        let mut schema = match &self.kind {
            Kind::Session => json!({"type": "string"}),
            Kind::String => json!({"type": "string"}),
            Kind::Boolean => json!({"type": "boolean"}),
            Kind::Integer((min, max)) => json!({"type": "integer", "minimum": min, "maximum": max}),
            Kind::Number(bounds) => {
                let mut schema = json!({"type": "number"});
                if let Some((min, max)) = bounds {
                    schema["minimum"] = json!(min);
                    if *max < f64::MAX {
                        schema["maximum"] = json!(max);
                    }
                }
                schema
            }
            Kind::Names(names) => json!({"type": "string", "enum": names}),
            Kind::Object => json!({"type": "object"}),
            Kind::Strings => json!({"type": "array", "items": {"type": "string"}}),
            Kind::File => json!({"type": "string"}),
            Kind::Files => json!({"type": "array", "items": {"type": "string"}}),
            Kind::Types(types) => json!({"type": types}),
            Kind::Objects => json!({"type": "array", "items": {"type": "object"}}),
            Kind::Schema(schema) => schema(),
        };
        let description = match self.kind {
            Kind::Session => {
                format!("{} (a session id from loop_start, pyramid_start or session_import)", self.description)
            }
            Kind::File | Kind::Files => {
                format!(
                    "{} (inside the server's roots; a relative path is taken from the first root)",
                    self.description
                )
            }
            _ => self.description.to_string(),
        };
        schema["description"] = Json::String(description);
        schema
    }
}

pub(super) fn object(value: Json) -> std::sync::Arc<Map<String, Json>> {
    match value {
        Json::Object(map) => std::sync::Arc::new(map),
        _ => std::sync::Arc::new(Map::new()),
    }
}
