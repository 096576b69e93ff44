//! The command's flags held against the MCP tools' table (`tools_table`): each subcommand
//! that does what a tool does lists here which tool argument each of its flags gives, and
//! the test checks, for every flag of those subcommands, that the argument exists, that its
//! help names it (when the flag is spelled otherwise), lists every name of its enum (the
//! core's names) and states its bounds (the core's ranges); and that every argument of the
//! tools has a flag or is listed as the server's own. A second test (`rules`) holds clap's
//! checks between those flags (conflicts, requirements, groups) against the rules of the
//! tools' rows, both ways. On a mismatch each prints what to paste (a table argument or rule,
//! a flag or clap attribute, or the help's words).
//!
//! Why a check and not flags built from the table: the command's flags read files where the
//! tools take documents (`--config FILE`, `--policy FILE|JSON`), name fields shorter
//! (`--quality` for `quality_score`), state the command's own defaults and exit codes in
//! their help, and clap's derive keeps each subcommand's values typed for its handler; a
//! generated flag would change the `--help` text of every subcommand and each handler's
//! reading. The check keeps the two surfaces from drifting apart instead: a new tool
//! argument fails it until the subcommand has the flag or the pair lists it as MCP-only.
//! The one exception: `loop record`'s behaviour flags and `loop_record`'s behaviour
//! arguments are both built from the core's `BehaviorIteration::RESULT_TYPES`
//! (`behavior_flags.rs`, `behavior_args.rs`), which this check still holds to each other.

mod rules;

use clap::CommandFactory;
use serde_json::Value as Json;

use super::flag_help::{arg_schema, flag_help};
use super::tools_table::{rows, Rule};

/// A subcommand and the tools it corresponds to.
struct Pair {
    command: &'static [&'static str],
    tools: &'static [&'static str],
    /// Flag (its long name, or a positional's id) to the argument it gives, for a flag whose
    /// name is not the argument's (`quality` gives `quality_score`); `arg.key` is a key of an
    /// object argument (`result.passRate`).
    renamed: &'static [(&'static str, &'static str)],
    /// The subcommand's own map from a core error's field to the flag it names
    /// (`loop_cmd::flag_of`): the flags it names give those arguments, so its renames are
    /// not listed twice.
    flag_of: Option<fn(&str) -> Option<&'static str>>,
    /// Flags of the command alone (files it reads or writes, its own output), with no tool argument.
    cli_only: &'static [&'static str],
    /// Tool arguments no flag gives (the session a tool names; documents the command reads from files).
    mcp_only: &'static [&'static str],
    /// Rules of the tools the command keeps otherwise on purpose (`rules`; the comment above
    /// the pair says why).
    unheld: &'static [Rule],
}

/// A pair without an error map: `command`, its `tools`, then `renamed`, `cli_only`, `mcp_only`.
const fn pair(
    command: &'static [&'static str],
    tools: &'static [&'static str],
    renamed: &'static [(&'static str, &'static str)],
    cli_only: &'static [&'static str],
    mcp_only: &'static [&'static str],
) -> Pair {
    Pair { command, tools, renamed, flag_of: None, cli_only, mcp_only, unheld: &[] }
}

const PAIRS: &[Pair] = &[
    // --policy takes an artifact too (told apart by its kind); the command stamps now;
    // completed is done's other spelling.
    Pair {
        flag_of: Some(crate::loop_cmd::flag_of),
        ..pair(
            &["loop", "record"],
            &["loop_start", "loop_record"],
            &[("no-strict-iterations", "strict_iterations")],
            &["state"],
            &["session", "policy_artifact", "timestamp", "completed"],
        )
    },
    pair(&["loop", "status"], &["loop_decide"], &[], &["state", "policy"], &["session"]),
    pair(&["loop", "best"], &["loop_best"], &[], &["state"], &["session"]),
    pair(&["loop", "finish"], &["loop_finish"], &[], &["state", "receipts", "runs"], &["session"]),
    // The policy runs: the tool starts the ADR's exit decision only.
    pair(
        &["pyramid", "start"],
        &["pyramid_start"],
        &[("layer", "layers")],
        &["state", "force", "policy", "risk-budget", "policy-config", "model", "now", "store"],
        &[],
    ),
    // durationMs goes into the result the flags build (its schema names the required keys).
    // Without --junit, --coverage and --coverage-xml give the result's coverage.
    Pair {
        unheld: &[Rule::Needs("coverage", "junit"), Rule::Needs("coverage_xml", "junit")],
        ..pair(
            &["pyramid", "submit"],
            &["pyramid_submit"],
            &[("pass-rate", "result.passRate"), ("flaky", "result.flakyRatio")],
            &["state", "duration-ms"],
            &["session"],
        )
    },
    // The command's --log and --merge-model use the default store (EARLYEXIT_STORE, else the
    // default file) without --store; the tool names its store, always.
    Pair {
        unheld: &[Rule::Needs("log", "store"), Rule::Needs("merge_model", "store")],
        ..pair(
            &["pyramid", "result"],
            &["pyramid_result"],
            &[],
            &["state", "allow-unverified", "receipts"],
            &["session"],
        )
    },
    pair(
        &["replay", "loops"],
        &["replay_loops"],
        &[("files", "paths"), ("policy-file", "policy")],
        &["quiet"],
        &["runs", "summary_only"],
    ),
    pair(&["replay", "pyramids"], &["replay_pyramids"], &[("files", "paths")], &["quiet"], &["runs", "summary_only"]),
    // --plan answers calibration_plan's question.
    pair(
        &["calibrate", "loops"],
        &["calibrate_loops", "calibration_plan"],
        &[("files", "paths")],
        &["plan", "allow-uncertified"],
        &["runs"],
    ),
    pair(&["calibrate", "pyramids"], &["calibrate_pyramids"], &[("files", "paths")], &["quiet"], &["runs"]),
    // --log without --store reads the store EARLYEXIT_STORE names, else the default one.
    Pair {
        unheld: &[Rule::Needs("log", "store")],
        ..pair(&["receipts", "verify"], &["receipts_verify"], &[("file", "path")], &[], &["text"])
    },
    // The store subcommands: --store defaults to EARLYEXIT_STORE, else the default file; the
    // tools require store (the server has no default store), so it is listed on both sides.
    pair(&["runs", "list"], &["runs_list"], &[], &["store"], &["store"]),
    pair(&["runs", "export"], &["runs_export"], &[], &["store"], &["store"]),
    // text: the runs inline (the command reads standard input as the file -).
    Pair {
        unheld: &[Rule::OneOf(&["paths", "text"])],
        ..pair(&["runs", "import"], &["runs_import"], &[("files", "paths")], &["store"], &["store", "text"])
    },
    pair(&["runs", "check"], &["runs_check"], &[], &["store"], &["store"]),
    pair(&["runs", "model"], &["runs_model"], &[], &["store"], &["store"]),
    pair(&["runs", "artifact"], &["runs_artifact"], &[], &["store"], &["store"]),
    pair(&["runs", "artifacts"], &["runs_artifacts"], &[], &["store"], &["store"]),
    pair(&["promote", "loops"], &["loop_promote"], &[("files", "runs")], &["out"], &["now"]),
    pair(&["drift", "loops"], &["loop_drift"], &[("files", "runs")], &["out"], &["now"]),
];

/// A flag as the check reads it.
struct Flag {
    /// The long name, or a positional's id.
    name: String,
    positional: bool,
    /// Whether clap requires it (`required = true`, or a field that is not an `Option`).
    required: bool,
    /// The help, the value names and the possible values, lower-cased without `_`.
    text: String,
    help: String,
}

fn flags(path: &[&str]) -> Option<Vec<Flag>> {
    let mut command = crate::Cli::command();
    for name in path {
        command = command.find_subcommand(name)?.clone();
    }
    let flags = command
        .get_arguments()
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "json" | "version"))
        .map(|a| {
            let help = a.get_help().map(ToString::to_string).unwrap_or_default();
            let mut text = help.clone();
            for name in a.get_value_names().unwrap_or_default() {
                text.push(' ');
                text.push_str(name.as_str());
            }
            for value in a.get_possible_values() {
                text.push(' ');
                text.push_str(value.get_name());
            }
            let name = a.get_long().map_or_else(|| a.get_id().to_string(), str::to_string);
            Flag { name, positional: a.is_positional(), required: a.is_required_set(), text: squash(&text), help }
        })
        .collect();
    Some(flags)
}

/// Lower case without `_` and `-`: `passRate`, `pass_rate` and `pass-rate` alike.
fn squash(text: &str) -> String {
    text.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

/// The schema of `path` (`arg` or `arg.key`) among the tools' input schemas.
fn schema_of(tools: &[&str], path: &str) -> Option<Json> {
    tools.iter().map(|tool| arg_schema(tool, path)).find(|schema| !schema.is_null())
}

fn number(value: &Json) -> Option<String> {
    value.as_f64().map(crate::core_api::js_number)
}

/// The argument flag `name` of `pair` gives: listed as renamed, else the argument of its name,
/// else the one the subcommand's error map names it for, else its name (which no tool has).
fn argument_of(pair: &Pair, name: &str) -> String {
    if let Some((_, arg)) = pair.renamed.iter().find(|(f, _)| *f == name) {
        return (*arg).to_string();
    }
    let snake = name.replace('-', "_");
    let args: Vec<&'static str> =
        rows().iter().filter(|r| pair.tools.contains(&r.name)).flat_map(|r| r.known()).collect();
    if args.contains(&snake.as_str()) {
        return snake;
    }
    let long = format!("--{name}");
    let named = pair.flag_of.and_then(|flag_of| args.into_iter().find(|a| flag_of(a) == Some(long.as_str())));
    named.map_or(snake, str::to_string)
}

/// What is wrong with `flag` as the flag of `path` (empty when nothing).
fn check_flag(pair: &Pair, flag: &Flag, path: &str, problems: &mut Vec<String>) {
    let command = pair.command.join(" ");
    let Some(schema) = schema_of(pair.tools, path) else {
        let snake = flag.name.replace('-', "_");
        problems.push(format!(
            "`{command}` --{} gives no argument of {}: add one to tools_table.rs, e.g.\n        arg(\"{snake}\", \
             Kind::String, \"{}\"),\n    or list it in the pair's cli_only (flag_parity.rs)",
            flag.name,
            pair.tools.join("/"),
            flag.help.trim_end_matches('.').to_lowercase(),
        ));
        return;
    };
    let field = path.rsplit('.').next().unwrap_or(path);
    let renamed = squash(&flag.name) != squash(field) && squash(&flag.name) + "s" != squash(field);
    if !flag.positional && renamed && !flag.text.contains(&squash(field)) {
        problems.push(format!("`{command}` --{}'s help should name {field}: \"{field}, {}\"", flag.name, flag.help));
    }
    if let Some(names) = schema.get("enum").and_then(Json::as_array) {
        let names: Vec<&str> = names.iter().filter_map(Json::as_str).collect();
        let missing: Vec<&str> = names.iter().copied().filter(|n| !flag.text.contains(&squash(n))).collect();
        if !missing.is_empty() {
            problems.push(format!(
                "`{command}` --{} takes {} ({path}): its help lacks {}; list them all: \"{}\"",
                flag.name,
                names.join(", "),
                missing.join(", "),
                names.join(", ")
            ));
        }
    }
    if let (Some(min), Some(max)) = (schema.get("minimum"), schema.get("maximum")) {
        let small = max.as_f64().is_some_and(|m| m < 9_007_199_254_740_991.0);
        if let (true, Some(min), Some(max)) = (small, number(min), number(max)) {
            let bounds = format!("{min}..={max}");
            if !flag.help.contains(&bounds) {
                problems.push(format!("`{command}` --{}'s help should state {path}'s bounds: \"{bounds}\"", flag.name));
            }
        }
    }
}

/// Every flag of the subcommands that do what a tool does gives an argument of it (or is the
/// command's own), with the argument's names and bounds in its help; every argument of the
/// tools has a flag (or is the server's own).
#[test]
fn flags_match_the_tools_table() {
    let mut problems = Vec::new();
    let mut checked = 0usize;
    for pair in PAIRS {
        let command = pair.command.join(" ");
        let Some(flags) = flags(pair.command) else {
            problems.push(format!("no subcommand `{command}`"));
            continue;
        };
        // The argument each flag gives, and whether the flag is required.
        let mut given: Vec<(String, bool)> = Vec::new();
        for flag in &flags {
            if pair.cli_only.contains(&flag.name.as_str()) {
                continue;
            }
            let path = argument_of(pair, &flag.name);
            check_flag(pair, flag, &path, &mut problems);
            given.push((path.split('.').next().unwrap_or(&path).to_string(), flag.required && !path.contains('.')));
            checked += 1;
        }
        for row in rows().iter().filter(|r| pair.tools.contains(&r.name)) {
            for arg in &row.args {
                let flags: Vec<bool> = given.iter().filter(|(g, _)| g == arg.name).map(|(_, r)| *r).collect();
                if flags.is_empty() && !pair.mcp_only.contains(&arg.name) {
                    problems.push(missing_flag(&command, row.name, arg.name, arg.description));
                }
                // One flag giving the whole argument of a tool that requires it is required too
                // (the command may require more: files where the tool also takes runs).
                if let ([false], true) = (&flags[..], arg.required) {
                    problems.push(format!(
                        "{} requires {}: its flag in `{command}` wants required = true",
                        row.name, arg.name
                    ));
                }
            }
        }
        for listed in pair.cli_only {
            if !flags.iter().any(|f| f.name == *listed) {
                problems.push(format!("`{command}` has no flag --{listed} (listed in cli_only)"));
            }
        }
    }
    assert!(problems.is_empty(), "{} mismatches:\n{}", problems.len(), problems.join("\n"));
    assert!(checked >= 70, "{checked} flags checked");
}

/// What to paste for argument `name` of `tool` that `command` has no flag for: a flag whose
/// help comes from the table when the argument has names or bounds, else a doc comment.
fn missing_flag(command: &str, tool: &str, name: &str, description: &str) -> String {
    let value_name = name.to_uppercase();
    let help = flag_help(tool, name, "");
    let attribute = if help == name {
        format!("/// {}.\n        #[arg(long, value_name = \"{value_name}\")]", capitalized(description))
    } else {
        format!(
            "#[arg(long, value_name = \"{value_name}\", help = crate::mcp::flag_help(\"{tool}\", \"{name}\", \"\"))]"
        )
    };
    format!(
        "{tool}'s argument {name} has no flag in `{command}`: add one, e.g.\n        {attribute}\n        \
         {name}: Option<String>,\n    or list it in the pair's mcp_only (flag_parity.rs)"
    )
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The command's checks between flags (conflicts, requirements) keep the tools' rules, and
/// every such check is a rule of the tools (`rules`).
#[test]
fn flags_keep_the_tools_rules() {
    let mut problems = Vec::new();
    let checked: usize = PAIRS.iter().map(|pair| rules::check(pair, &mut problems)).sum();
    assert!(problems.is_empty(), "{} mismatches:\n{}", problems.len(), problems.join("\n"));
    assert!(checked >= 24, "{checked} rules and relations checked");
}
