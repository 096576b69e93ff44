//! The run store from the MCP server: `calibrate_loops` and `receipts_verify` take a `store`
//! argument (`sqlite:PATH`) whose file must exist inside the server's roots (symbolic links
//! followed); every other store is a tool error naming `store`, and nothing is created.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value as Json};

use support::{code, finished_shadow_run, run, s, stderr, tmp};

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_earlyexit"))
            .args(["mcp", "--root", s(root)])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server { child, stdin, stdout };
        server.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
        server.answer();
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Json) {
        writeln!(self.stdin, "{message}").expect("write");
        self.stdin.flush().expect("flush");
    }

    fn answer(&mut self) -> Json {
        let mut line = String::new();
        assert!(self.stdout.read_line(&mut line).expect("read") > 0, "the server left");
        serde_json::from_str(&line).expect("JSON")
    }

    /// The tool's structured answer: `Ok` for a result, `Err` for a tool error's `error`.
    fn call(&mut self, id: u64, tool: &str, arguments: Json) -> Result<Json, Json> {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        let answer = self.answer();
        assert_eq!(answer["id"], id, "{answer}");
        let result = &answer["result"];
        if result["isError"] == true {
            Err(result["structuredContent"]["error"].clone())
        } else {
            Ok(result["structuredContent"].clone())
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first `n` runs of the hand-checked calibration corpus as a JSONL file.
fn corpus(dir: &Path, n: usize) -> std::path::PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/replay/loop_calibration.json");
    let doc: Json = serde_json::from_slice(&std::fs::read(path).expect("the vectors")).expect("JSON");
    let lines: Vec<String> = doc["runs"].as_array().expect("runs").iter().take(n).map(Json::to_string).collect();
    let file = dir.join("runs.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    file
}

#[test]
fn calibrate_and_verify_from_a_store_inside_the_roots() {
    let root = tmp();
    let runs = corpus(root.path(), 100);
    let store = format!("sqlite:{}", root.path().join("runs.db").display());
    let out = run(&["runs", "import", "--store", &store, "--run-label", "main", s(&runs)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let state = finished_shadow_run(root.path(), "build-1", "0.5");
    let out = run(&["pyramid", "result", "--state", s(&state), "--store", &store, "--log", "ci"]);
    assert_eq!(code(&out), 12, "{}", stderr(&out));

    let mut server = Server::start(root.path());
    let from_store =
        server.call(1, "calibrate_loops", json!({"store": store, "run_label": "main"})).expect("calibrated");
    let from_paths = server.call(2, "calibrate_loops", json!({"paths": [s(&runs)]})).expect("calibrated");
    assert_eq!(from_store["corpusSha256"], from_paths["corpusSha256"]);
    assert_eq!(from_store["policy"], from_paths["policy"]);
    // A relative path is taken from the root, as every path argument is.
    let relative = server.call(3, "calibrate_loops", json!({"store": "sqlite:runs.db"})).expect("calibrated");
    assert_eq!(relative["corpusSha256"], from_paths["corpusSha256"]);
    let verified = server.call(4, "receipts_verify", json!({"store": store, "log": "ci"})).expect("verified");
    assert_eq!((verified["valid"].clone(), verified["receipts"].clone()), (json!(true), json!(1)));
    // Both sources at once, or a store's selection or log without the other: refused naming
    // the argument (before, the last two were usage errors naming none).
    let refused = [
        (
            5,
            "calibrate_loops",
            json!({"store": store, "paths": [s(&runs)]}),
            "paths",
            "calibrate_loops takes paths or store, exactly one of them",
        ),
        (6, "calibrate_loops", json!({"paths": [s(&runs)], "run_label": "main"}), "run_label", "run_label needs store"),
        (7, "receipts_verify", json!({"store": store}), "store", "store needs log"),
        (8, "receipts_verify", json!({"log": "ci"}), "log", "log needs store"),
    ];
    for (id, tool, args, field, message) in refused {
        let error = server.call(id, tool, args).expect_err(message);
        assert_eq!(
            (&error["code"], &error["field"], &error["message"]),
            (&json!("invalid_config"), &json!(field), &json!(message))
        );
    }
}

#[test]
fn stores_outside_the_roots_or_not_stores_are_refused_naming_store() {
    let root = tmp();
    let outside = tmp();
    let elsewhere = format!("sqlite:{}", outside.path().join("other.db").display());
    let runs = corpus(outside.path(), 5);
    assert_eq!(code(&run(&["runs", "import", "--store", &elsewhere, s(&runs)])), 0);
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("other.db"), root.path().join("link.db")).expect("a link");
    std::fs::write(root.path().join("notes.db"), "not a database").expect("write");

    let mut server = Server::start(root.path());
    let cases = [
        (elsewhere.clone(), "outside"),
        (format!("sqlite:{}", root.path().join("link.db").display()), "outside"),
        ("sqlite:../escape.db".to_string(), "outside"),
        (format!("sqlite:{}", root.path().join("absent.db").display()), "no store at this path"),
        (format!("sqlite:{}", root.path().join("notes.db").display()), "not a SQLite database"),
        (format!("sqlite:{}", root.path().display()), "directory"),
        ("postgresql://ci:hunter2@/earlyexit".to_string(), "names no host"),
        ("https://example.com/x.db".to_string(), "unknown scheme"),
    ];
    for (i, (store, words)) in cases.iter().enumerate() {
        for (tool, extra) in [("calibrate_loops", json!({})), ("receipts_verify", json!({"log": "ci"}))] {
            let mut args = extra.clone();
            args["store"] = json!(store);
            let error = server.call(10 + i as u64, tool, args).expect_err(store);
            let message = error["message"].as_str().unwrap_or("");
            assert_eq!(error["field"], "store", "{tool} {store}: {error}");
            let words_found = message.contains(words) || (*words == "outside" && message.contains("root"));
            assert!(words_found, "{tool} {store}: {message}");
        }
    }
    assert!(!root.path().join("absent.db").exists(), "never created");
    assert_eq!(std::fs::read_to_string(root.path().join("notes.db")).unwrap(), "not a database");
}

/// A `postgresql://` store argument (a database: the roots do not apply to it), skipped
/// without `EARLYEXIT_TEST_POSTGRES`.
#[test]
fn calibrate_and_verify_from_a_postgresql_store() {
    let Some((store, tag)) = support::postgres_store("mcp") else { return };
    let root = tmp();
    let runs = corpus(root.path(), 100);
    let label = format!("{tag}-main");
    // Runs of this test only (a run's id in the store is its SHA-256): the task ids tagged.
    let tagged = std::fs::read_to_string(&runs).unwrap().replace("\"id\":\"", &format!("\"id\":\"{tag}-"));
    std::fs::write(&runs, tagged).unwrap();
    let out = run(&["runs", "import", "--store", &store, "--run-label", &label, s(&runs)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let log = format!("{tag}-ci");
    let state = finished_shadow_run(root.path(), "build-1", "0.5");
    let out = run(&["pyramid", "result", "--state", s(&state), "--store", &store, "--log", &log]);
    assert_eq!(code(&out), 12, "{}", stderr(&out));
    let mut server = Server::start(root.path());
    let from_store =
        server.call(1, "calibrate_loops", json!({"store": store, "run_label": label})).expect("calibrated");
    let from_paths = server.call(2, "calibrate_loops", json!({"paths": [s(&runs)]})).expect("calibrated");
    assert_eq!(from_store["corpusSha256"], from_paths["corpusSha256"]);
    let verified = server.call(3, "receipts_verify", json!({"store": store, "log": log})).expect("verified");
    assert_eq!((verified["valid"].clone(), verified["receipts"].clone()), (json!(true), json!(1)));
    let missing = store.replacen("/earlyexit?", "/earlyexit_absent?", 1).replacen("postgres@", "postgres:hunter2@", 1);
    let e = server.call(4, "calibrate_loops", json!({"store": missing})).expect_err("no such database");
    assert_eq!(e["field"], "store", "{e}");
    assert!(!e.to_string().contains("hunter2"), "{e}");
}

/// `n` recorded pyramid runs (the form `calibrate_pyramids` reads) as a JSONL file.
fn pyramid_corpus(dir: &Path, n: usize, tag: &str) -> std::path::PathBuf {
    let lines: Vec<String> = (0..n)
        .map(|r| {
            let layers: Vec<String> = (0..4)
                .map(|j| {
                    let failed = (r * 7 + j * 3).is_multiple_of(13);
                    format!(r#"{{"name":"l{j}","durationMs":{},"failed":{failed}}}"#, 100 * (j + 1))
                })
                .collect();
            format!(r#"{{"id":"{tag}p{r}","layers":[{}]}}"#, layers.join(","))
        })
        .collect();
    let file = dir.join("pyramids.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    file
}

/// `calibrate_pyramids` on a store's pyramid runs answers what it answers on the file; with
/// paths too, or run_label without store, the tool's rules refuse it.
fn calibrate_pyramids_from(root: &Path, store: &str, label: &str) {
    let runs = pyramid_corpus(root, 60, label);
    let out = run(&["runs", "import", "--pyramid", "--store", store, "--run-label", label, s(&runs)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut server = Server::start(root);
    let knobs = json!({"risk": 0.2, "delta": 0.2});
    let with = |extra: Json| {
        let mut args = knobs.clone();
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        args
    };
    let from_store =
        server.call(1, "calibrate_pyramids", with(json!({"store": store, "run_label": label}))).expect("calibrated");
    let from_paths = server.call(2, "calibrate_pyramids", with(json!({"paths": [s(&runs)]}))).expect("calibrated");
    assert_eq!(from_store, from_paths);
    let both = server.call(3, "calibrate_pyramids", with(json!({"store": store, "paths": [s(&runs)]})));
    assert!(both.is_err());
    let bare = server.call(4, "calibrate_pyramids", with(json!({"paths": [s(&runs)], "run_label": label})));
    assert_eq!(bare.expect_err("run_label needs store")["field"], "run_label");
}

#[test]
fn calibrate_pyramids_from_a_store_inside_the_roots() {
    let root = tmp();
    let store = format!("sqlite:{}", root.path().join("p.db").display());
    calibrate_pyramids_from(root.path(), &store, "ci");
}

#[test]
fn calibrate_pyramids_from_a_postgresql_store() {
    let Some((store, tag)) = support::postgres_store("mcp-pyramids") else { return };
    let root = tmp();
    calibrate_pyramids_from(root.path(), &store, &tag);
}

/// `n` good loop runs from task `from` as JSONL text, their ids tagged.
fn good_runs(tag: &str, from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| {
            format!(
                r#"{{"id":"{tag}t{i}","dataset":"d","iterations":[{{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}},{{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}}]}}"#
            ) + "\n"
        })
        .collect()
}

/// The state of artifact `name` as `earlyexit runs artifacts` lists it.
fn artifact_state(store: &str, name: &str) -> String {
    let out = run(&["--json", "runs", "artifacts", "--store", store]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let rows: Vec<Json> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    rows.iter().find(|r| r["name"] == name).map(|r| r["state"].as_str().unwrap_or("").to_string()).unwrap_or_default()
}

/// Artifacts through the tools' store argument: calibrate_loops out store:NAME, loop_promote
/// writing the promoted artifact back, loop_start running the stored artifact (in shadow
/// until promoted), and the hostile cases naming the argument.
fn artifacts_through_the_tools(root: &Path, store: &str, tag: &str) {
    let corpus = root.join("runs.jsonl");
    std::fs::write(&corpus, good_runs(tag, 0, 150)).unwrap();
    let label = format!("{tag}mcp");
    let out = run(&["runs", "import", "--store", store, "--run-label", &label, s(&corpus)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let name = format!("{tag}nightly");
    let stored = format!("store:{name}");
    let mut server = Server::start(root);
    let artifact = server
        .call(
            1,
            "calibrate_loops",
            json!({"store": store, "run_label": label, "risk": 0.1, "delta": 0.1, "out": stored}),
        )
        .expect("calibrated");
    assert_eq!(artifact_state(store, &name), "shadow");
    let printed = run(&["runs", "artifact", &name, "--store", store]);
    assert_eq!(serde_json::from_slice::<Json>(&printed.stdout).unwrap(), artifact);

    // Unpromoted: the loop runs its calibration's conservative policy, the calibrated in shadow.
    let started = server.call(2, "loop_start", json!({"policy_artifact": stored, "store": store})).expect("started");
    assert!(started["shadow_reason"].as_str().unwrap_or("").contains("not promoted"), "{started}");
    // Promoted in place: the answer's artifact is what the store holds now.
    let audit = good_runs(tag, 150, 100);
    let promoted =
        server.call(3, "loop_promote", json!({"artifact": stored, "store": store, "runs": audit})).expect("promoted");
    assert_eq!(promoted["promoted"], json!(true), "{promoted}");
    assert_eq!(artifact_state(store, &name), "promoted");
    let printed = run(&["runs", "artifact", &name, "--store", store]);
    assert_eq!(serde_json::from_slice::<Json>(&printed.stdout).unwrap(), promoted["artifact"]);
    let enforced = server.call(4, "loop_start", json!({"policy_artifact": stored, "store": store})).expect("started");
    assert!(enforced.get("shadow_reason").is_none(), "{enforced}");

    // Hostile: each a tool error naming the argument; nothing written.
    let long = format!("store:{}", "n".repeat(300));
    let refused = [
        (5, "loop_promote", json!({"artifact": stored, "runs": audit}), "artifact"),
        (6, "loop_promote", json!({"artifact": artifact, "store": store, "runs": audit}), "store"),
        (7, "loop_drift", json!({"artifact": format!("store:{tag}absent"), "store": store, "runs": audit}), "artifact"),
        (8, "loop_drift", json!({"artifact": "store:", "store": store, "runs": audit}), "artifact"),
        (9, "loop_start", json!({"policy_artifact": long, "store": store}), "policy_artifact"),
        (10, "loop_start", json!({"store": store}), "store"),
        (11, "calibrate_loops", json!({"runs": audit, "out": "store:x"}), "out"),
        (12, "loop_promote", json!({"artifact": stored, "store": "sqlite:/elsewhere/s.db", "runs": audit}), "store"),
    ];
    for (id, tool, args, field) in refused {
        let error = server.call(id, tool, args).expect_err(tool);
        assert_eq!(error["field"], json!(field), "{tool}: {error}");
    }
    // A loop artifact where a pyramid artifact is read: the core's kind error.
    let error = server
        .call(13, "pyramid_promote", json!({"artifact": stored, "store": store, "runs": "[]"}))
        .expect_err("the wrong kind");
    assert_eq!(error["code"], json!("invalid_artifact"), "{error}");
    assert_eq!(artifact_state(store, &name), "promoted");
}

#[test]
fn artifacts_through_the_tools_store_argument() {
    let root = tmp();
    let store = format!("sqlite:{}", root.path().join("runs.db").display());
    artifacts_through_the_tools(root.path(), &store, "");
}

#[test]
fn artifacts_through_the_tools_on_a_postgresql_store() {
    let Some((store, tag)) = support::postgres_store("mcp-artifacts") else { return };
    let root = tmp();
    artifacts_through_the_tools(root.path(), &store, &tag);
}

/// The artifact tools write (with store:NAME): not annotated read-only.
#[test]
fn the_artifact_tools_are_not_read_only() {
    let root = tmp();
    let mut server = Server::start(root.path());
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let answer = server.answer();
    let tools = answer["result"]["tools"].as_array().expect("tools").clone();
    for name in ["loop_promote", "loop_drift", "pyramid_promote", "pyramid_drift"] {
        let tool = tools.iter().find(|t| t["name"] == name).expect(name);
        assert_eq!(tool["annotations"]["readOnlyHint"], json!(false), "{name}");
        assert_eq!(tool["annotations"]["destructiveHint"], json!(true), "{name}");
        assert!(tool["inputSchema"]["properties"]["store"].is_object(), "{name}");
    }
}
