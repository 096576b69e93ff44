//! `earlyexit`: the engines from a shell loop, a CI job and an MCP client. Every rule,
//! message and validation is the core's; this crate reads files and flags, converts them to
//! the core's values, writes state files and prints (docs/cli.md).

mod behavior_flags;
mod core_api;
mod hook;
mod junit;
mod lifecycle_cmd;
mod loop_cmd;
mod loop_finish;
mod mcp;
mod mcp_roots;
mod output;
mod pyramid_cmd;
mod replay_cmd;
mod run_lines;
mod state;
mod store_artifact;
mod store_cmd;
mod store_open;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use output::Failure;

/// Decide when an agent loop should stop and which test layers still need to run.
#[derive(Parser, Debug)]
#[command(name = "earlyexit", version, about, long_about = None, disable_help_subcommand = true)]
#[command(after_help = "Exit codes: 0 go on / run the printed layer; 10 stop / nothing more to run; \
11 verify the printed layer; 2 bad input or usage; 1 internal error; \
12 and 13 `pyramid result` verdicts failed and unverified; 14 `calibrate loops` could not certify. \
Full reference: docs/cli.md.")]
pub struct Cli {
    /// Print JSON on stdout (and errors as JSON on stderr) instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// An agent loop kept in a state file: record an iteration, ask whether to stop.
    #[command(name = "loop", subcommand)]
    Loop(loop_cmd::LoopCommand),
    /// A test pyramid across CI jobs, kept in a state file: which layer next, submit, result.
    #[command(subcommand)]
    Pyramid(pyramid_cmd::PyramidCommand),
    /// Replay a policy over recorded runs (JSONL files of any size, streamed).
    #[command(subcommand)]
    Replay(replay_cmd::ReplayCommand),
    /// Calibrate the risk-bounded pyramid policy on recorded runs.
    #[command(subcommand)]
    Calibrate(replay_cmd::CalibrateCommand),
    /// Promote a calibration artifact on an audit split (exit 0 promoted, 10 not).
    #[command(subcommand)]
    Promote(lifecycle_cmd::PromoteCommand),
    /// Check a calibration artifact against recent runs (exit 0 fresh, 10 expired or drifted).
    #[command(subcommand)]
    Drift(lifecycle_cmd::DriftCommand),
    /// Shadow-mode receipt logs: verify a log's hash chain.
    #[command(subcommand)]
    Receipts(pyramid_cmd::ReceiptsCommand),
    /// The run store (sqlite:PATH or postgresql://...): list, export, import and check recorded runs.
    #[command(subcommand)]
    Runs(store_cmd::RunsCommand),
    /// Serve the engines to an MCP client over standard input and output.
    Mcp(McpArgs),
    /// Coding agents' hooks: `hook claude-code` stops Claude Code's loops when they stop making progress.
    #[command(subcommand)]
    Hook(hook::HookCommand),
}

#[derive(Args, Debug)]
struct McpArgs {
    /// A directory the tools may read and write files in (repeatable); without it, the
    /// client's roots, else the working directory unless it is / or the home directory.
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<String>,
}

fn run(cli: Cli) -> Result<u8, Failure> {
    let json = cli.json;
    match cli.command {
        Command::Loop(command) => loop_cmd::run(command, json),
        Command::Pyramid(command) => pyramid_cmd::run(command, json),
        Command::Replay(command) => replay_cmd::replay(command, json),
        Command::Calibrate(command) => replay_cmd::calibrate(command, json),
        Command::Receipts(command) => pyramid_cmd::receipts(command, json),
        Command::Promote(command) => lifecycle_cmd::promote(command, json),
        Command::Drift(command) => lifecycle_cmd::drift(command, json),
        Command::Runs(command) => store_cmd::run(command, json),
        Command::Mcp(args) => mcp::serve(&args.roots),
        Command::Hook(command) => hook::run(command, json),
    }
}

fn main() -> ExitCode {
    // `--json` is known before clap reads the rest, so a usage error can be JSON too.
    let json = std::env::args_os().skip(1).any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if json {
                Failure::Usage(e.render().to_string().trim_end().to_string()).report(true);
            } else {
                let _ = e.print();
            }
            // A hook's exit 2 would block Claude Code's stop: a hook's usage error is exit 1.
            if std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
                return ExitCode::from(output::code::INTERNAL);
            }
            return ExitCode::from(output::code::BAD_INPUT);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            failure.report(json);
            ExitCode::from(failure.exit_code())
        }
    }
}
