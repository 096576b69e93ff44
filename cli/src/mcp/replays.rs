//! The MCP tools that replay and calibrate over runs (given whole or as files under the
//! roots): their rows stream as the command's do, and are sent once.

use super::*;

impl Server {
    /// `summary_only`: answer without the per-run rows (the rows of a replay over `paths`
    /// are then never kept, so memory is bounded by the largest run).
    pub(super) fn summary_only(args: &Args) -> Result<bool, Failure> {
        match args.get("summary_only") {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(type_error("summary_only", "a boolean", other)),
        }
    }

    /// The rows of a replay over `paths`: spilled to a temporary file as they come, or not kept.
    pub(super) fn rows(summary_only: bool) -> Result<replay_cmd::Rows, Failure> {
        if summary_only {
            Ok(replay_cmd::Rows::Discard)
        } else {
            replay_cmd::Rows::spill()
        }
    }

    /// A document of runs given whole, without its rows when `summary_only`.
    pub(super) fn without_rows(value: Value, summary_only: bool) -> Answer {
        match value {
            Value::Object(entries) if summary_only => {
                Answer::Whole(Value::Object(entries.into_iter().filter(|(k, _)| k != "runs").collect()))
            }
            value => Answer::Listing(value),
        }
    }

    pub(super) fn replay_loops(&self, args: &Args, call: &Call) -> Result<Answer, Failure> {
        let policy = args.get("policy").cloned().unwrap_or(Value::Null);
        let summary_only = Self::summary_only(args)?;
        // runs or paths, one of them (the tool's rules).
        let paths = args.strings("paths")?;
        if let Some(runs) = args.get("runs") {
            return Ok(Self::without_rows(core_api::replay_loops_value(runs, &policy)?, summary_only));
        }
        let paths = call.roots.read_all("paths", &paths)?;
        let rows = Self::rows(summary_only)?;
        let doc = replay_cmd::loop_replay_document(&paths, &policy, true, rows, &|| call.stopped())?;
        Ok(Answer::Replay(doc))
    }

    pub(super) fn replay_pyramids(&self, args: &Args, call: &Call) -> Result<Answer, Failure> {
        let options = options_of(args, &["policy", "config", "model", "learn"]);
        let model_out = args.string("model_out")?;
        let summary_only = Self::summary_only(args)?;
        // runs or paths, one of them, and model_out with paths (the tool's rules).
        let paths = args.strings("paths")?;
        if let Some(runs) = args.get("runs") {
            return Ok(Self::without_rows(core_api::replay_pyramids_value(runs, &options)?, summary_only));
        }
        let paths = call.roots.read_all("paths", &paths)?;
        let target = model_out.map(|path| call.roots.write("model_out", &path)).transpose()?;
        let write = |text: &str| target.as_ref().map_or(Ok(()), |t| t.write(text));
        let doc = replay_cmd::pyramid_replay_document(
            &paths,
            &options,
            true,
            Self::rows(summary_only)?,
            &|| call.stopped(),
            target.as_ref().map(|_| &write as &dyn Fn(&str) -> Result<(), Failure>),
        )
        .map_err(strip_flag)?;
        Ok(Answer::Replay(doc))
    }

    /// Calibrates a loop policy on `runs` (JSONL text or an array) or the runs of `paths`;
    /// `out` writes the artifact (atomically), unless the call was cancelled or the client
    /// left meanwhile. Answers the artifact.
    pub(super) fn calibrate_loops(&self, args: &Args, call: &Call) -> Result<Value, Failure> {
        let mut options = options_of(args, &["risk", "delta", "steps", "candidates"]);
        if let (Value::Object(entries), Some(days)) = (&mut options, args.get("valid_days")) {
            entries.push(("validDays".to_string(), days.clone()));
        }
        // runs, paths or store, one of them (the tool's rules).
        let paths = args.strings("paths")?;
        let runs = match stateless::store_runs(args, call)? {
            Some(text) => Some(text),
            None => args.get("runs").cloned(),
        };
        let paths = call.roots.read_all("paths", &paths)?;
        // out store:NAME: the artifact stored under NAME in the store the runs came from.
        let out = args.string("out")?;
        let to_store = match out.as_deref().and_then(crate::store_artifact::name_of) {
            Some(name) => {
                crate::core_api::store_rules::check_store_name("out", name).map_err(Failure::core)?;
                match stateless::store_of(args, call)? {
                    Some(store) => Some((store, name.to_string())),
                    None => return Err(Failure::core(super::wording::argument_needs("out", "store"))),
                }
            }
            None => None,
        };
        let target = match to_store {
            Some(_) => None,
            None => out.map(|out| call.roots.write("out", &out)).transpose()?,
        };
        let runs = match runs {
            Some(runs) => runs,
            None => {
                let mut text = String::new();
                for path in &paths {
                    if call.stopped() {
                        return Err(Failure::Internal("cancelled".into()));
                    }
                    text.push_str(&crate::state::read_input(path)?);
                    text.push('\n');
                }
                Value::string(text.as_str())
            }
        };
        let artifact = core_api::calibrate_loops(&runs, &options)
            .map_err(|e| Failure::core(core_api::respelled(e, "validDays", "valid_days")))?;
        if let Some(target) = &target {
            // Nothing is written for a request the client cancelled or a client that left.
            if call.stopped() {
                return Err(Failure::Internal("cancelled".into()));
            }
            target.write(&artifact.to_json())?;
        }
        if let Some((mut store, name)) = to_store {
            if call.stopped() {
                return Err(Failure::Internal("cancelled".into()));
            }
            store.put_artifact(&name, &artifact).map_err(|e| Failure::core(core_api::respelled(e, "name", "out")))?;
        }
        Ok(artifact)
    }

    pub(super) fn calibrate(&self, args: &Args, call: &Call) -> Result<Value, Failure> {
        let options = options_of(args, &["policy", "config", "model", "risk", "delta", "grid", "warmup"]);
        let model_out = args.string("model_out")?;
        // runs, paths or store, one of them, and model_out with paths (the tool's rules).
        let paths = args.strings("paths")?;
        if let Some(runs) = stateless::store_pyramid_runs(args, call)? {
            return Ok(core_api::calibrate_value(&runs, &options)?);
        }
        if let Some(runs) = args.get("runs") {
            return Ok(core_api::calibrate_value(runs, &options)?);
        }
        let paths = call.roots.read_all("paths", &paths)?;
        let target = model_out.map(|path| call.roots.write("model_out", &path)).transpose()?;
        let write = |text: &str| target.as_ref().map_or(Ok(()), |t| t.write(text));
        replay_cmd::calibrate_document(
            &paths,
            &options,
            true,
            &|| call.stopped(),
            target.as_ref().map(|_| &write as &dyn Fn(&str) -> Result<(), Failure>),
        )
        .map_err(strip_flag)
    }
}
