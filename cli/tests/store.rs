//! The run store from the command: `runs import|list|export|check --store URL` (and
//! `EARLYEXIT_STORE`), `calibrate loops --store` reading what a file would give it,
//! `pyramid result --store --log` and `receipts verify --store --log`, twenty `pyramid result
//! --merge-model` steps at once merging one model (`runs model`), and every bad store
//! URL or file a typed error naming `store`, nothing created or changed.

mod support;

use std::path::Path;

use earlyexit::Value;

use support::{bin, code, error_of, finished_shadow_run, json, parse, parse_bytes, run, s, stderr, stdout, tmp};

/// The hand-checked calibration corpus's first `n` runs as a JSONL file.
fn corpus(dir: &Path, n: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/replay/loop_calibration.json");
    let doc = parse_bytes(&std::fs::read(path).expect("the vector file"));
    let Some(Value::Array(all)) = doc.get("runs") else { panic!("runs") };
    let lines: Vec<String> = all.iter().take(n).map(Value::to_json).collect();
    let file = dir.join(format!("runs-{n}.jsonl"));
    std::fs::write(&file, lines.join("\n") + "\n").expect("write runs");
    s(&file).to_string()
}

/// `n` recorded pyramid runs (four layers, some failed) as a JSONL file; their ids start
/// with `tag`.
fn pyramid_corpus(dir: &Path, n: usize, tag: &str) -> String {
    let lines: Vec<String> = (0..n)
        .map(|r| {
            let layers: Vec<String> = (0..4)
                .map(|j| {
                    format!(
                        r#"{{"name":"l{j}","durationMs":{},"failed":{}}}"#,
                        100 * (j + 1),
                        (r * 7 + j * 3) % 13 == 0
                    )
                })
                .collect();
            format!(r#"{{"id":"{tag}p{r}","layers":[{}]}}"#, layers.join(","))
        })
        .collect();
    let file = dir.join(format!("pyramids-{n}.jsonl"));
    std::fs::write(&file, lines.join("\n") + "\n").expect("write runs");
    s(&file).to_string()
}

/// `calibrate pyramids --store` equals `calibrate pyramids FILE` on the same runs.
fn calibrate_pyramids_from(store: &str, label: &str, file: &str) {
    let out = run(&["--json", "runs", "import", "--pyramid", "--store", store, "--run-label", label, file]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(number(&json(&out), "added"), 60.0);
    let flags = ["--risk", "0.2", "--delta", "0.2", "--quiet"];
    let from_file = run(&[&["--json", "calibrate", "pyramids", file][..], &flags].concat());
    assert_eq!(code(&from_file), 0, "{}", stderr(&from_file));
    let from_store =
        run(&[&["--json", "calibrate", "pyramids", "--store", store, "--run-label", label][..], &flags].concat());
    assert_eq!(code(&from_store), 0, "{}", stderr(&from_store));
    assert_eq!(parse_bytes(&from_store.stdout), parse_bytes(&from_file.stdout));
    // Pyramid runs are not loop runs: list and calibrate loops do not see them.
    let listed = run(&["runs", "list", "--store", store, "--run-label", label]);
    assert_eq!((code(&listed), stdout(&listed)), (0, String::new()));
    // A pyramid file imported as loop runs is refused, nothing added; --run-label needs --store.
    let wrong = run(&["--json", "runs", "import", "--store", store, "--run-label", label, file]);
    assert_eq!(error_of(&wrong).0, "invalid_replay", "{}", stderr(&wrong));
    let bare = run(&["calibrate", "pyramids", "--run-label", label, "--risk", "0.2", "--delta", "0.2"]);
    assert_eq!(code(&bare), 2, "{}", stderr(&bare));
}

#[test]
fn calibrating_pyramids_from_the_store_equals_calibrating_from_the_file() {
    let dir = tmp();
    let file = pyramid_corpus(dir.path(), 60, "");
    let store = url(dir.path(), "pyramids.db");
    calibrate_pyramids_from(&store, "ci", &file);
    let check = json(&run(&["--json", "runs", "check", "--store", &store]));
    assert_eq!((number(&check, "runs"), number(&check, "schemaVersion")), (60.0, 3.0));
}

fn url(dir: &Path, name: &str) -> String {
    format!("sqlite:{}", dir.join(name).display())
}

fn number(doc: &Value, key: &str) -> f64 {
    doc.get(key).and_then(Value::as_f64).unwrap_or_else(|| panic!("{key} in {}", doc.to_json()))
}

#[test]
fn import_list_export_check_round_trip() {
    let dir = tmp();
    let runs = corpus(dir.path(), 100);
    let store = url(dir.path(), "runs.db");
    let out = run(&["--json", "runs", "import", "--store", &store, "--run-label", "main", &runs]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!((number(&doc, "read"), number(&doc, "added")), (100.0, 100.0));
    // Imported again: the same runs, nothing added.
    let again = json(&run(&["--json", "runs", "import", "--store", &store, "--run-label", "main", &runs]));
    assert_eq!((number(&again, "read"), number(&again, "added")), (100.0, 0.0));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("runs.db")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the store file is private");
    }

    let listed = run(&["--json", "runs", "list", "--store", &store, "--run-label", "main", "--limit", "3"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    let rows: Vec<Value> = stdout(&listed).lines().map(parse).collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0].get("runLabel").and_then(Value::as_str), Some("main"));
    let none = run(&["runs", "list", "--store", &store, "--run-label", "other"]);
    assert_eq!((code(&none), stdout(&none)), (0, String::new()));
    let future = run(&["runs", "list", "--store", &store, "--since", "2999-01-01T00:00:00Z"]);
    assert_eq!((code(&future), stdout(&future)), (0, String::new()));

    // The export is the imported runs, line for line (the form replay reads).
    let exported = dir.path().join("export.jsonl");
    let out = run(&["runs", "export", "--store", &store, "--out", s(&exported)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let original: Vec<Value> = std::fs::read_to_string(&runs).unwrap().lines().map(parse).collect();
    let back: Vec<Value> = std::fs::read_to_string(&exported).unwrap().lines().map(parse).collect();
    assert_eq!(back, original);

    let check = run(&["--json", "runs", "check", "--store", &store]);
    assert_eq!(code(&check), 0, "{}", stderr(&check));
    let doc = json(&check);
    assert_eq!(doc.get("valid"), Some(&Value::Bool(true)));
    assert_eq!(number(&doc, "runs"), 100.0);
}

#[test]
fn calibrating_from_the_store_equals_calibrating_from_the_file() {
    let dir = tmp();
    let runs = corpus(dir.path(), 100);
    let store = url(dir.path(), "runs.db");
    assert_eq!(code(&run(&["runs", "import", "--store", &store, "--run-label", "nightly", &runs])), 0);
    let from_file = run(&["calibrate", "loops", &runs, "--allow-uncertified"]);
    let from_store = run(&["calibrate", "loops", "--store", &store, "--run-label", "nightly", "--allow-uncertified"]);
    assert_eq!(code(&from_store), 0, "{}", stderr(&from_store));
    let (a, b) = (parse_bytes(&from_file.stdout), parse_bytes(&from_store.stdout));
    assert_eq!(a.get("corpusSha256"), b.get("corpusSha256"));
    assert_eq!(a.get("policy"), b.get("policy"));
    assert_eq!(a.get("certificate"), b.get("certificate"));
    // A label with no runs calibrates on nothing: the core's error, not an empty artifact.
    let empty = run(&["--json", "calibrate", "loops", "--store", &store, "--run-label", "absent"]);
    assert_ne!(code(&empty), 0);
    // A bad --since is a typed error naming since.
    let bad = run(&["--json", "calibrate", "loops", "--store", &store, "--since", "yesterday"]);
    assert_eq!(error_of(&bad).1, "since", "{}", stderr(&bad));
}

#[test]
fn the_environment_names_the_store() {
    let dir = tmp();
    let runs = corpus(dir.path(), 5);
    let store = url(dir.path(), "env.db");
    let out = bin().args(["--json", "runs", "import", &runs]).env("EARLYEXIT_STORE", &store).output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(dir.path().join("env.db").is_file());
    let out = bin().args(["runs", "list"]).env("EARLYEXIT_STORE", &store).output().unwrap();
    assert_eq!(stdout(&out).lines().count(), 5);
    // No flag, no variable: the default store in the working directory, its folder ignored.
    let out =
        bin().args(["runs", "import", &runs]).env_remove("EARLYEXIT_STORE").current_dir(dir.path()).output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.path().join(".earlyexit/.gitignore")).unwrap(), "*\n");
    assert!(dir.path().join(".earlyexit/store.db").is_file());
}

#[test]
fn an_import_with_a_bad_line_adds_nothing() {
    let dir = tmp();
    let good = corpus(dir.path(), 10);
    let bad = dir.path().join("bad.jsonl");
    let mut text = std::fs::read_to_string(&good).unwrap();
    text.push_str("{\"id\": \"x\", \"iterations\": [{\"quality_score\": \"high\"}]}\n");
    std::fs::write(&bad, text).unwrap();
    let store = url(dir.path(), "runs.db");
    let out = run(&["--json", "runs", "import", "--store", &store, s(&bad)]);
    assert_ne!(code(&out), 0);
    assert_eq!(error_of(&out).0, "invalid_replay", "{}", stderr(&out));
    let check = json(&run(&["--json", "runs", "check", "--store", &store]));
    assert_eq!(number(&check, "runs"), 0.0, "all or nothing");
}

#[test]
fn receipts_go_to_the_store_and_verify_there() {
    let dir = tmp();
    let store = url(dir.path(), "ci.db");
    let builds = [finished_shadow_run(dir.path(), "build-1", "0.5"), finished_shadow_run(dir.path(), "build-2", "0.5")];
    // build-2's result step is retried.
    for state in [&builds[0], &builds[1], &builds[1]] {
        let out = run(&["--json", "pyramid", "result", "--state", s(state), "--store", &store, "--log", "ci"]);
        assert_eq!(code(&out), 12, "{}", stderr(&out));
    }
    let verify = run(&["--json", "receipts", "verify", "--store", &store, "--log", "ci"]);
    assert_eq!(code(&verify), 0, "{}", stderr(&verify));
    let doc = json(&verify);
    assert_eq!(doc.get("valid"), Some(&Value::Bool(true)));
    assert_eq!(number(&doc, "receipts"), 2.0, "a retried build appends once");
    let check = json(&run(&["--json", "runs", "check", "--store", &store]));
    assert_eq!((number(&check, "receiptLogs"), number(&check, "receipts")), (1.0, 2.0));
}

#[test]
fn bad_stores_are_typed_errors_naming_store() {
    let dir = tmp();
    let not_db = dir.path().join("notes.db");
    std::fs::write(&not_db, "not a database").unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let cases = [
        ("mysql://h/db".to_string(), "unknown scheme"),
        (format!("postgresql://ci:hunter2@127.0.0.1:{closed}/db?connect_timeout=2"), "cannot be reached"),
        ("postgresql://ci:hunter2@db/earlyexit?sslmode=require".to_string(), "without TLS"),
        ("postgresql://ci:hunter2@/earlyexit".to_string(), "names no host"),
        (format!("sqlite:{}", dir.path().display()), "directory"),
        (format!("sqlite:{}", dir.path().join("absent.db").display()), "no store at this path"),
        (format!("sqlite:{}", not_db.display()), "not a SQLite database"),
        ("sqlite:".to_string(), "names no file"),
    ];
    for (store, words) in &cases {
        for args in [
            vec!["--json", "runs", "list", "--store", store],
            vec!["--json", "runs", "check", "--store", store],
            vec!["--json", "calibrate", "loops", "--store", store],
            vec!["--json", "receipts", "verify", "--store", store, "--log", "ci"],
        ] {
            let out = run(&args);
            assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
            let (_, field, message) = error_of(&out);
            assert_eq!(field, "store", "{args:?}: {message}");
            assert!(message.contains(words), "{args:?}: {message}");
            assert!(!message.contains("hunter2"), "{args:?}: {message}");
        }
    }
    assert!(!dir.path().join("absent.db").exists(), "a store only read is never created");
    assert_eq!(std::fs::read_to_string(&not_db).unwrap(), "not a database", "left as it was");
}

#[test]
fn twenty_result_steps_merge_one_model_in_the_store() {
    let dir = tmp();
    let store = url(dir.path(), "fleet.db");
    let states: Vec<_> = (0..20)
        .map(|i| finished_shadow_run(dir.path(), &format!("build-{i}"), if i % 3 == 0 { "0.5" } else { "1" }))
        .collect();
    let step = |i: usize| {
        let seq = (100 + i).to_string();
        bin()
            .args(["--json", "pyramid", "result", "--state", s(&states[i]), "--store", &store])
            .args(["--merge-model", "ci", "--build-id", &format!("build-{i}"), "--build-seq", &seq])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn")
    };
    // All twenty at once: each merge is a transaction, none lost.
    let children: Vec<_> = (0..20).map(step).collect();
    for mut child in children {
        assert!(matches!(child.wait().unwrap().code(), Some(0 | 12)));
    }
    // A retried step merges a build already there: nothing changes.
    assert!(matches!(step(7).wait().unwrap().code(), Some(0 | 12)));
    let out = run(&["runs", "model", "ci", "--store", &store]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let model = parse(&stdout(&out));
    let Some(Value::Array(builds)) = model.get("builds") else { panic!("{}", model.to_json()) };
    let mut ids: Vec<&str> = builds.iter().filter_map(|b| b.get("id").and_then(Value::as_str)).collect();
    ids.sort_unstable();
    let mut want: Vec<String> = (0..20).map(|i| format!("build-{i}")).collect();
    want.sort_unstable();
    assert_eq!(ids, want.iter().map(String::as_str).collect::<Vec<_>>());
    // The file pyramid start --model reads.
    let file = dir.path().join("model.json");
    assert_eq!(code(&run(&["runs", "model", "ci", "--store", &store, "--out", s(&file)])), 0);
    assert_eq!(parse(&std::fs::read_to_string(&file).unwrap()), model);
    let absent = run(&["--json", "runs", "model", "nightly", "--store", &store]);
    assert_eq!(error_of(&absent).1, "name", "{}", stderr(&absent));
    // --merge-model without its build, or --store with nothing to write: usage errors.
    let bare = run(&["pyramid", "result", "--state", s(&states[0]), "--merge-model", "ci"]);
    assert_eq!(code(&bare), 2);
    let nothing = run(&["pyramid", "result", "--state", s(&states[0]), "--store", &store]);
    assert_eq!(code(&nothing), 2, "{}", stderr(&nothing));
}

/// The same commands on a PostgreSQL store (skipped without `EARLYEXIT_TEST_POSTGRES`):
/// import twice, list, export, check, calibrate from it, receipts and twenty concurrent
/// model merges; a password in the URL never printed.
#[test]
fn the_commands_on_a_postgresql_store() {
    let Some((base, tag)) = support::postgres_store("cli") else { return };
    // The test server trusts its socket: the password is ignored there, never shown here.
    let store = base.replacen("postgresql://postgres@", "postgresql://postgres:hunter2@", 1);
    let dir = tmp();
    let runs = corpus(dir.path(), 100);
    let label = format!("{tag}-main");
    // Runs of this test only (a run's id in the store is its SHA-256): the task ids tagged.
    let tagged = std::fs::read_to_string(&runs).unwrap().replace("\"id\":\"", &format!("\"id\":\"{tag}-"));
    std::fs::write(&runs, tagged).unwrap();
    let no_password = |out: &std::process::Output| {
        assert!(!stdout(out).contains("hunter2") && !stderr(out).contains("hunter2"), "{}", stderr(out));
    };
    let out = run(&["--json", "runs", "import", "--store", &store, "--run-label", &label, &runs]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Run ids are the runs' SHA-256: another test's import of the corpus may hold them.
    let again = json(&run(&["--json", "runs", "import", "--store", &store, "--run-label", &label, &runs]));
    assert_eq!((number(&again, "read"), number(&again, "added")), (100.0, 0.0));
    let listed = run(&["--json", "runs", "list", "--store", &store, "--run-label", &label, "--limit", "3"]);
    assert_eq!(stdout(&listed).lines().count(), 3, "{}", stderr(&listed));
    let exported = dir.path().join("export.jsonl");
    let out = run(&["runs", "export", "--store", &store, "--run-label", &label, "--out", s(&exported)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let original: Vec<Value> = std::fs::read_to_string(&runs).unwrap().lines().map(parse).collect();
    let back: Vec<Value> = std::fs::read_to_string(&exported).unwrap().lines().map(parse).collect();
    assert_eq!(back, original);
    let check = run(&["--json", "runs", "check", "--store", &store]);
    assert_eq!(code(&check), 0, "{}", stderr(&check));
    assert!(number(&json(&check), "runs") >= 100.0);
    no_password(&check);
    let human = run(&["runs", "check", "--store", &store]);
    assert!(stdout(&human).starts_with("valid: schema 3"), "{}", stdout(&human));
    no_password(&human);

    let from_file = run(&["calibrate", "loops", &runs, "--allow-uncertified"]);
    let from_store = run(&["calibrate", "loops", "--store", &store, "--run-label", &label, "--allow-uncertified"]);
    assert_eq!(code(&from_store), 0, "{}", stderr(&from_store));
    let (a, b) = (parse_bytes(&from_file.stdout), parse_bytes(&from_store.stdout));
    assert_eq!((a.get("corpusSha256"), a.get("policy")), (b.get("corpusSha256"), b.get("policy")));

    // Receipts: a retried step appends once; the chain verifies.
    let log = format!("{tag}-ci");
    let builds = [finished_shadow_run(dir.path(), "build-1", "0.5"), finished_shadow_run(dir.path(), "build-2", "0.5")];
    for state in [&builds[0], &builds[1], &builds[1]] {
        let out = run(&["--json", "pyramid", "result", "--state", s(state), "--store", &store, "--log", &log]);
        assert_eq!(code(&out), 12, "{}", stderr(&out));
        no_password(&out);
    }
    let verify = json(&run(&["--json", "receipts", "verify", "--store", &store, "--log", &log]));
    assert_eq!((verify.get("valid"), number(&verify, "receipts")), (Some(&Value::Bool(true)), 2.0));

    // Twenty result steps at once merge one model: every build in it.
    let model = format!("{tag}-model");
    let states: Vec<_> = (0..20)
        .map(|i| finished_shadow_run(dir.path(), &format!("m-{i}"), if i % 3 == 0 { "0.5" } else { "1" }))
        .collect();
    let children: Vec<_> = (0..20)
        .map(|i| {
            bin()
                .args(["--json", "pyramid", "result", "--state", s(&states[i]), "--store", &store])
                .args(["--merge-model", &model, "--build-id", &format!("m-{i}"), "--build-seq", &(100 + i).to_string()])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut child in children {
        assert!(matches!(child.wait().unwrap().code(), Some(0 | 12)));
    }
    let out = run(&["runs", "model", &model, "--store", &store]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let Some(Value::Array(merged)) = parse(&stdout(&out)).get("builds").cloned() else { panic!("builds") };
    assert_eq!(merged.len(), 20);

    // Pyramid runs, and a calibration from them.
    let pyramids = pyramid_corpus(dir.path(), 60, &tag);
    calibrate_pyramids_from(&store, &format!("{tag}-pyramids"), &pyramids);

    // A database that does not exist, and a server that is not there: typed, naming store.
    let missing = store.replacen("/earlyexit?", "/earlyexit_absent?", 1);
    let out = run(&["--json", "runs", "list", "--store", &missing]);
    assert_eq!((code(&out), error_of(&out).1), (2, "store".to_string()), "{}", stderr(&out));
    assert!(error_of(&out).2.contains("does not exist"), "{}", stderr(&out));
    no_password(&out);
}
