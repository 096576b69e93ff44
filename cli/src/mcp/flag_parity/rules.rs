//! The command's checks between flags held against the tools' rules (`tools_table::Rule`).
//! Where a subcommand has flags for the arguments of a rule, clap refuses what the server
//! refuses: "not both" is a conflict (`conflicts_with`), "one of" a conflict and a flag
//! required unless another is given (`required_unless_present`, `required`, a required
//! group), "needs" a flag that requires another (`requires`). And every such relation clap
//! keeps between flags that give tool arguments is a rule of the tools. A rule the command
//! keeps otherwise on purpose is listed in the pair's `unheld`.
//!
//! Clap's conflicts are read from the command (`get_arg_conflicts_with`, groups included);
//! what it requires is read by parsing: the flags it wants and lacks with none given, and with
//! each flag given alone.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, Command, CommandFactory};

use super::{argument_of, Pair};
use crate::mcp::tools_table::{rows, Rule, ToolRow};

/// A flag of the subcommand that gives a tool argument.
struct Given<'c> {
    arg: &'c Arg,
    /// Its long name, or a positional's id.
    name: String,
    /// The top-level argument it gives (`result` for `--pass-rate`).
    argument: String,
}

impl Given<'_> {
    fn id(&self) -> &str {
        self.arg.get_id().as_str()
    }

    fn shown(&self) -> String {
        if self.arg.is_positional() {
            self.name.to_uppercase()
        } else {
            format!("--{}", self.name)
        }
    }
}

/// The subcommand at `path`, built (its flags as clap shows them).
fn subcommand(path: &[&str]) -> Option<Command> {
    let mut command = crate::Cli::command();
    command.build();
    for name in path {
        command = command.find_subcommand(name)?.clone();
    }
    Some(command)
}

/// The ids of the flags of `command` (at `path`) clap wants and lacks when `present` alone
/// are given; an error when it refuses them otherwise.
fn wanted(path: &[&str], command: &Command, present: &[&Arg]) -> Result<Vec<String>, String> {
    let value = |a: &Arg| a.get_possible_values().first().map_or_else(|| "1".to_string(), |v| v.get_name().to_string());
    let mut argv: Vec<String> = std::iter::once("earlyexit").chain(path.iter().copied()).map(String::from).collect();
    argv.extend(present.iter().filter(|a| a.is_positional()).map(|a| value(a)));
    for a in present.iter().filter(|a| !a.is_positional()) {
        argv.push(format!("--{}", a.get_long().unwrap_or_default()));
        if a.get_action().takes_values() {
            argv.push(value(a));
        }
    }
    let error = match crate::Cli::command().try_get_matches_from(&argv) {
        Ok(_) => return Ok(Vec::new()),
        Err(error) if error.kind() == ErrorKind::MissingRequiredArgument => error,
        Err(error) => return Err(format!("`{}`: {}", argv.join(" "), error.kind())),
    };
    let Some(ContextValue::Strings(missing)) = error.get(ContextKind::InvalidArg) else {
        return Err(format!("`{}`: clap names no missing flag", argv.join(" ")));
    };
    // A flag shows as `--name <VALUE>`, `<NAME>...` (`[NAME]...` when not required), a
    // required group as `<a|b>`.
    let plain = |shown: &str| shown.chars().filter(|c| !"[]<>".contains(*c)).collect::<String>();
    let arg_shown = |m: &str| command.get_arguments().find(|a| plain(&a.to_string()) == plain(m)).map(Arg::get_id);
    let ids = missing.iter().flat_map(|m| match arg_shown(m) {
        Some(id) => vec![id.to_string()],
        None => {
            let group = m.strip_prefix('<').and_then(|m| m.strip_suffix('>')).unwrap_or_default();
            group.split('|').filter_map(arg_shown).map(ToString::to_string).collect()
        }
    });
    Ok(ids.collect())
}

/// A subcommand's flags that give tool arguments, with what clap requires of them.
struct Flags<'c> {
    cmd: String,
    command: &'c Command,
    given: Vec<Given<'c>>,
    /// The ids of the flags clap wants with none given.
    base: Vec<String>,
    /// The ids of the flags clap wants with each of `given` alone.
    alone: Vec<Vec<String>>,
}

impl Flags<'_> {
    /// Whether clap refuses `f` with `g`: a conflict of either, or a group holding both that
    /// takes one of its flags only.
    fn conflict(&self, f: usize, g: usize) -> bool {
        let with = |a: &Arg, b: &Arg| self.command.get_arg_conflicts_with(a).iter().any(|c| c.get_id() == b.get_id());
        let (f, g) = (self.given[f].arg, self.given[g].arg);
        let grouped = self.command.get_groups().any(|group| {
            let holds = |id: &clap::Id| group.get_args().any(|m| m == id);
            !group.clone().is_multiple() && holds(f.get_id()) && holds(g.get_id())
        });
        with(f, g) || with(g, f) || grouped
    }

    /// Whether clap wants `g` when `f` alone is given.
    fn wants(&self, f: usize, g: usize) -> bool {
        self.alone[f].iter().any(|w| w == self.given[g].id())
    }

    /// Whether clap wants `f` when no flag is given.
    fn required(&self, f: usize) -> bool {
        self.base.iter().any(|w| w == self.given[f].id())
    }

    /// The flags giving top-level argument `argument`.
    fn of(&self, argument: &str) -> Vec<usize> {
        (0..self.given.len()).filter(|i| self.given[*i].argument == argument).collect()
    }

    fn shown(&self, flags: &[usize]) -> String {
        flags.iter().map(|&f| self.given[f].shown()).collect::<Vec<_>>().join(", ")
    }

    /// What is wrong with `rule` of `tool` in the command's flags (pushed to `problems`);
    /// whether the command has flags for it.
    fn keeps(&self, tool: &str, rule: Rule, problems: &mut Vec<String>) -> bool {
        let cmd = &self.cmd;
        match rule {
            Rule::NotBoth(a, b) => self.exclusive(tool, &[self.of(a), self.of(b)], problems),
            Rule::OneOf(names) => {
                let sides: Vec<Vec<usize>> = names.iter().map(|n| self.of(n)).filter(|s| !s.is_empty()).collect();
                self.exclusive(tool, &sides, problems);
                for (i, side) in sides.iter().enumerate() {
                    let others: Vec<usize> =
                        sides.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, s)| s.clone()).collect();
                    // One of them alone is enough.
                    for (f, g) in pairs(side, &others).into_iter().filter(|(f, g)| self.wants(*f, *g)) {
                        problems.push(format!(
                            "`{cmd}` with {} wants {} too, and {tool} takes one of {}: add required_unless_present = \
                             \"{}\" to {}",
                            self.given[f].shown(),
                            self.given[g].shown(),
                            names.join(", "),
                            self.given[f].id(),
                            self.given[g].shown()
                        ));
                    }
                }
                // None of them is refused.
                let all: Vec<usize> = sides.concat();
                if let (Some(side), false) = (sides.first(), all.iter().any(|&f| self.required(f))) {
                    let others: Vec<String> = all
                        .iter()
                        .filter(|g| !side.contains(g))
                        .map(|&g| format!("\"{}\"", self.given[g].id()))
                        .collect();
                    let attribute = match others.is_empty() {
                        true => "required = true".to_string(),
                        false => format!("required_unless_present_any = [{}]", others.join(", ")),
                    };
                    problems.push(format!(
                        "`{cmd}` runs with none of {}, and {tool} takes one of {}: add {attribute} to {}",
                        self.shown(&all),
                        names.join(", "),
                        self.shown(side)
                    ));
                }
                !sides.is_empty()
            }
            Rule::Needs(a, b) => {
                let needed = self.of(b);
                let always = needed.iter().any(|&g| self.required(g));
                for f in self.of(a).into_iter().filter(|&f| !always && !needed.iter().any(|&g| self.wants(f, g))) {
                    let paste = match needed.first() {
                        Some(&g) => format!("add requires = \"{}\" to {}", self.given[g].id(), self.given[f].shown()),
                        None => format!("give `{cmd}` a flag for {b}"),
                    };
                    problems.push(format!(
                        "`{cmd}` takes {} without {b}, which {tool} refuses ({a} needs {b}): {paste}, or list \
                         Rule::Needs(\"{a}\", \"{b}\") in the pair's unheld (flag_parity.rs) and say why",
                        self.given[f].shown()
                    ));
                }
                !self.of(a).is_empty()
            }
        }
    }

    /// The flags of different `sides` conflict; whether two sides have flags.
    fn exclusive(&self, tool: &str, sides: &[Vec<usize>], problems: &mut Vec<String>) -> bool {
        let mut some = false;
        for (i, side) in sides.iter().enumerate() {
            for (f, g) in sides.iter().skip(i + 1).flat_map(|other| pairs(side, other)) {
                some = true;
                if !self.conflict(f, g) {
                    let (f, g) = (&self.given[f], &self.given[g]);
                    problems.push(format!(
                        "`{}` takes {} and {} together, and {tool} refuses {} with {}: add conflicts_with = \"{}\" \
                         to {}",
                        self.cmd,
                        f.shown(),
                        g.shown(),
                        f.argument,
                        g.argument,
                        g.id(),
                        f.shown()
                    ));
                }
            }
        }
        some
    }

    /// Every relation clap keeps between flags of two arguments is a rule of `rules`
    /// (pushed to `problems` when not); answers how many it found.
    fn ruled(&self, pair: &Pair, rules: &[(&str, Rule)], problems: &mut Vec<String>) -> usize {
        let mut found = 0;
        for (f, flag) in self.given.iter().enumerate() {
            for (g, other) in self.given.iter().enumerate().filter(|(g, o)| *g != f && o.argument != flag.argument) {
                let (a, b) = (flag.argument.as_str(), other.argument.as_str());
                let relations = [
                    (f < g && self.conflict(f, g), "conflicts with", false, format!("Rule::NotBoth(\"{a}\", \"{b}\")")),
                    (self.wants(f, g) && !self.required(g), "requires", true, format!("Rule::Needs(\"{a}\", \"{b}\")")),
                    (
                        self.required(f) && !self.wants(g, f),
                        "is required unless",
                        false,
                        format!("Rule::OneOf(&[\"{a}\", \"{b}\"])"),
                    ),
                ];
                for (_, relation, needs, rule) in relations.into_iter().filter(|r| r.0) {
                    found += 1;
                    if !rules.iter().any(|(_, r)| relates(*r, a, b, needs)) {
                        let has = |r: &&ToolRow| r.known().contains(&a) && r.known().contains(&b);
                        let tools = rows();
                        let tool = tools.iter().filter(|r| pair.tools.contains(&r.name)).find(has);
                        problems.push(format!(
                            "`{}` {} {relation} {}, and {} has no such rule between {a} and {b}: add to its rules \
                             (tools_table.rs)\n        {rule},",
                            self.cmd,
                            flag.shown(),
                            other.shown(),
                            tool.map_or("the tool", |t| t.name)
                        ));
                    }
                }
            }
        }
        found
    }
}

/// Whether `rule` relates arguments `a` and `b`: not both, one of, or (`needs`) a needs b.
fn relates(rule: Rule, a: &str, b: &str, needs: bool) -> bool {
    match rule {
        Rule::NotBoth(x, y) => !needs && ((x, y) == (a, b) || (x, y) == (b, a)),
        Rule::OneOf(names) => !needs && names.contains(&a) && names.contains(&b),
        Rule::Needs(x, y) => needs && (x, y) == (a, b),
    }
}

/// Every pair of one index of `left` and one of `right`.
fn pairs(left: &[usize], right: &[usize]) -> Vec<(usize, usize)> {
    left.iter().flat_map(|&f| right.iter().map(move |&g| (f, g))).collect()
}

/// What is wrong between the flags of `pair` and its tools' rules (pushed to `problems`);
/// answers how many rules and clap relations were checked.
pub(super) fn check(pair: &Pair, problems: &mut Vec<String>) -> usize {
    let cmd = pair.command.join(" ");
    let Some(command) = subcommand(pair.command) else {
        problems.push(format!("no subcommand `{cmd}`"));
        return 0;
    };
    let given: Vec<Given> = command
        .get_arguments()
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "json" | "version"))
        .filter_map(|arg| {
            let name = arg.get_long().map_or_else(|| arg.get_id().to_string(), str::to_string);
            let argument = argument_of(pair, &name).split('.').next().unwrap_or_default().to_string();
            (!pair.cli_only.contains(&name.as_str())).then_some(Given { arg, name, argument })
        })
        .collect();
    let mut probe = |present: &[&Arg]| {
        wanted(pair.command, &command, present).unwrap_or_else(|e| {
            problems.push(format!("`{cmd}`: cannot read what clap requires: {e}"));
            Vec::new()
        })
    };
    let base = probe(&[]);
    let alone = given.iter().map(|f| probe(&[f.arg])).collect();
    let flags = Flags { cmd: cmd.clone(), command: &command, given, base, alone };
    let rules: Vec<(&'static str, Rule)> = rows()
        .iter()
        .filter(|r| pair.tools.contains(&r.name))
        .flat_map(|r| r.rules.iter().map(move |rule| (r.name, *rule)))
        .collect();
    let mut checked = 0usize;
    for (tool, rule) in rules.iter().filter(|(_, rule)| !pair.unheld.contains(rule)) {
        checked += usize::from(flags.keeps(tool, *rule, problems));
    }
    checked += flags.ruled(pair, &rules, problems);
    for rule in pair.unheld.iter().filter(|u| !rules.iter().any(|(_, r)| r == *u)) {
        problems.push(format!("`{cmd}` lists {rule:?} in unheld, and no tool of it has that rule"));
    }
    checked
}
