//! A flag's help built from the MCP tools' rows (`tools_table`): the command's flags that give
//! a tool's argument state its names and bounds (the core's) from there, never retyped.

use serde_json::Value as Json;

use super::tools_table::row;

/// The input schema of argument `path` of `tool` (`arg`, or `arg.key` inside an object
/// argument), `Null` when it has none.
pub(super) fn arg_schema(tool: &str, path: &str) -> Json {
    let (arg, key) = path.split_once('.').map_or((path, None), |(a, k)| (a, Some(k)));
    let schema = row(tool).and_then(|r| r.tool().input_schema.get("properties")?.get(arg).cloned());
    match (schema, key) {
        (Some(schema), None) => schema,
        (Some(schema), Some(key)) => schema.get("properties").and_then(|p| p.get(key)).cloned().unwrap_or_default(),
        (None, _) => Json::Null,
    }
}

/// The names argument `path` of `tool` takes, as a flag's help lists them (`passed, failed
/// or skipped`): the core's names, which the command's help so never retypes.
pub(crate) fn flag_names(tool: &str, path: &str) -> String {
    let schema = arg_schema(tool, path);
    let names: Vec<&str> =
        schema.get("enum").and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str).collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The help of a flag giving argument `path` of `tool`: the argument's name, then the names
/// it takes (`verification_status: passed, failed or skipped`) or its bounds (`quality_score,
/// 0..=100`), the core's, then `tail`.
pub(crate) fn flag_help(tool: &str, path: &str, tail: &str) -> String {
    let name = path.rsplit('.').next().unwrap_or(path);
    let names = flag_names(tool, path);
    if !names.is_empty() {
        return format!("{name}: {names}{tail}");
    }
    let schema = arg_schema(tool, path);
    let bound = |key: &str| schema.get(key).and_then(Json::as_f64).map(crate::core_api::js_number);
    match (bound("minimum"), bound("maximum")) {
        (Some(min), Some(max)) => format!("{name}, {min}..={max}{tail}"),
        _ => format!("{name}{tail}"),
    }
}
