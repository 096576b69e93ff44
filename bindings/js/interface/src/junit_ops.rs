//! `readJunit(text, { coverageXml })`: a JUnit / xUnit report's text (and a Cobertura file's)
//! read into a layer result by the command's reader, `earlyexit-junit`, with its rules,
//! limits and errors. Only the replay module links it (feature `replay`): the wasm engines
//! module stays without an XML reader.

use earlyexit::{Result, Value};

use crate::op::JUNIT_READ;

/// Whether `op` is this file's (never without the `replay` feature).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay") && op == JUNIT_READ
}

/// Answers `JUNIT_READ`: `[text, options or null]`.
#[cfg(feature = "replay")]
pub fn exec(_op: u32, args: &[Value]) -> Result<Value> {
    use earlyexit::kit::host::{respelled, type_error, unknown_argument};
    use earlyexit::ErrorCode;

    let args = crate::args::JUNIT_READ::read(args);
    let expected = "a string (the report's XML text)";
    let text = match args.text {
        Value::String(s) => s.as_str(),
        other => return Err(type_error(ErrorCode::InvalidLayerResult, "text", expected, other)),
    };
    let mut coverage_xml = None;
    match args.options {
        Value::Null => {}
        Value::Object(entries) => {
            for (key, value) in entries {
                if key != "coverageXml" {
                    return Err(unknown_argument("readJunit's options", key, &["coverageXml"]));
                }
                match value {
                    Value::Null => {}
                    Value::String(xml) => coverage_xml = Some(xml.as_str()),
                    other => {
                        let expected = "a string (a Cobertura file's XML text)";
                        return Err(type_error(ErrorCode::InvalidLayerResult, "coverageXml", expected, other));
                    }
                }
            }
        }
        other => return Err(type_error(ErrorCode::InvalidConfig, "options", "an object ({ coverageXml })", other)),
    }
    let coverage = match coverage_xml {
        None => None,
        Some(xml) => Some(
            earlyexit_junit::read_cobertura("<coverageXml>", xml)
                .map_err(|e| respelled(e, "coverage_xml", "coverageXml"))?,
        ),
    };
    // The reader names the i-th report `junit[i]` (the command takes several); here it is `text`.
    let named = |e: earlyexit::Error| {
        let field = e.field().to_string();
        let renamed = if field == "junit[0]" || field == "junit" { "text" } else { field.as_str() };
        respelled(e, &field, renamed)
    };
    let mut reports = earlyexit_junit::JunitReports::new();
    reports.add("<text>", text).map_err(named)?;
    reports.layer_result(coverage).map_err(named)
}

/// Without the `replay` feature nothing calls it (`handles` is false).
#[cfg(not(feature = "replay"))]
pub fn exec(_op: u32, args: &[Value]) -> Result<Value> {
    Ok(args.first().cloned().unwrap_or(Value::Null))
}
