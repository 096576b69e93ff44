//! Calibration artifacts in the run store from the command: `calibrate loops --out
//! store:NAME`, `runs artifact(s)`, `promote|drift loops --artifact store:NAME` writing the
//! answer's artifact back, `loop record --policy store:NAME` enforcing exactly what the file
//! would (unpromoted and expired artifacts run their calibrated policy in shadow), and hostile
//! input: unknown and invalid names, the wrong kind, ten promotes at once, a damaged row.
//! The same on PostgreSQL when `EARLYEXIT_TEST_POSTGRES` names a server.

mod support;

use std::path::Path;
use std::process::Output;

use earlyexit::Value;

use support::{bin, code, code_field, json, parse, run, s, stderr, stdout, tmp};

/// `n` runs from task `from`, good from the first iteration on (JSONL), their ids tagged.
fn runs(tag: &str, from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| {
            format!(
                r#"{{"id":"{tag}t{i}","dataset":"d","iterations":[{{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}},{{"quality_score":95,"confidence":0.95,"verification_status":"passed","good":true}}]}}"#
            ) + "\n"
        })
        .collect()
}

fn record(store: &str, state: &Path, policy: &str) -> Output {
    run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(state),
        "--quality",
        "95",
        "--confidence",
        "0.99",
        "--verification",
        "passed",
        "--store",
        store,
        "--policy",
        policy,
    ])
}

/// The stored artifacts (`runs artifacts --json`): name -> lifecycle.
fn listed(store: &str) -> Vec<Value> {
    let out = run(&["--json", "runs", "artifacts", "--store", store]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stdout(&out).lines().map(parse).collect()
}

fn lifecycle(store: &str, name: &str) -> Value {
    listed(store)
        .into_iter()
        .find(|a| a.get("name").and_then(Value::as_str) == Some(name))
        .unwrap_or_else(|| panic!("{name} listed"))
}

fn state_of(store: &str, name: &str) -> String {
    lifecycle(store, name).get("state").and_then(Value::as_str).unwrap_or_default().to_string()
}

/// Calibrate into the store, read it back, run it unpromoted (shadow, as the file), promote
/// it in place, run it enforced; an expired one behaves as its file.
fn round_trip(store: &str, tag: &str) {
    let dir = tmp();
    let (corpus, audit) = (dir.path().join("runs.jsonl"), dir.path().join("audit.jsonl"));
    std::fs::write(&corpus, runs(tag, 0, 150)).unwrap();
    std::fs::write(&audit, runs(tag, 150, 100)).unwrap();
    let label = format!("{tag}runs");
    let name = format!("{tag}nightly");
    let stored = format!("store:{name}");
    let import = run(&["runs", "import", "--store", store, "--run-label", &label, s(&corpus)]);
    assert_eq!(code(&import), 0, "{}", stderr(&import));
    let out = run(&[
        "calibrate",
        "loops",
        "--store",
        store,
        "--run-label",
        &label,
        "--risk",
        "0.1",
        "--delta",
        "0.1",
        "--out",
        &stored,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains(&format!("artifact written to {stored}")), "{}", stdout(&out));
    let fresh = lifecycle(store, &name);
    assert_eq!(fresh.get("kind").and_then(Value::as_str), Some("loop"));
    assert_eq!(fresh.get("state").and_then(Value::as_str), Some("shadow"));
    assert_eq!(fresh.get("promoted"), Some(&Value::Bool(false)));

    // `runs artifact NAME --out FILE`: the file the store holds, the same document.
    let file = dir.path().join("a.json");
    let out = run(&["runs", "artifact", &name, "--store", store, "--out", s(&file)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc = parse(&std::fs::read_to_string(&file).unwrap());
    let printed = run(&["runs", "artifact", &name, "--store", store]);
    assert_eq!(parse(&stdout(&printed)), doc);

    // Not promoted: from the store exactly as from the file (conservative, calibrated in shadow).
    let (from_file, from_store) = (dir.path().join("f.json"), dir.path().join("s.json"));
    let a = run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(&from_file),
        "--quality",
        "95",
        "--confidence",
        "0.99",
        "--verification",
        "passed",
        "--policy",
        s(&file),
    ]);
    let b = record(store, &from_store, &stored);
    assert_eq!((code(&a), code(&b)), (0, 0), "{}", stderr(&b));
    assert_eq!(json(&a), json(&b));
    assert_eq!(stderr(&a), stderr(&b));
    assert!(stderr(&b).contains("not promoted"), "{}", stderr(&b));
    let snapshot = parse(&std::fs::read_to_string(&from_store).unwrap());
    assert!(snapshot.get("shadow").is_some(), "the calibrated policy runs in shadow");

    // Promoted in place: one write, the state visible in the listing and in `runs check`.
    let out = run(&["--json", "promote", "loops", "--store", store, "--artifact", &stored, s(&audit)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let promoted = json(&out).get("artifact").cloned().expect("the answer's artifact");
    let back = run(&["runs", "artifact", &name, "--store", store]);
    assert_eq!(parse(&stdout(&back)), promoted);
    assert_eq!(state_of(store, &name), "promoted");
    let check = json(&run(&["--json", "runs", "check", "--store", store]));
    assert_eq!(check.get("valid"), Some(&Value::Bool(true)));
    assert!(check.get("artifacts").and_then(Value::as_f64).unwrap_or(0.0) >= 1.0);
    let enforced = record(store, &dir.path().join("e.json"), &stored);
    assert_eq!(code(&enforced), 10, "the calibrated policy stops at once: {}", stderr(&enforced));
    assert_eq!(stderr(&enforced), "");

    // EARLYEXIT_STORE names the store when --store is not given.
    let env = bin()
        .args(["--json", "loop", "record", "--state", s(&dir.path().join("env.json")), "--quality", "95"])
        .args(["--confidence", "0.99", "--verification", "passed", "--policy", &stored])
        .env("EARLYEXIT_STORE", store)
        .output()
        .unwrap();
    assert_eq!(code(&env), 10, "{}", stderr(&env));

    // Expired (and unpromoted): stored by `drift loops --out store:NAME`, it behaves as its file.
    let mut expired = doc.clone();
    if let Value::Object(entries) = &mut expired {
        for (key, value) in entries.iter_mut() {
            match key.as_str() {
                "createdAt" => *value = Value::string("2000-01-01T00:00:00.000Z"),
                "expiresAt" => *value = Value::string("2001-01-01T00:00:00.000Z"),
                _ => {}
            }
        }
    }
    let old_file = dir.path().join("old.json");
    std::fs::write(&old_file, expired.to_json()).unwrap();
    let old = format!("{tag}old");
    let out = run(&[
        "--json",
        "drift",
        "loops",
        "--store",
        store,
        "--artifact",
        s(&old_file),
        "--out",
        &format!("store:{old}"),
        s(&audit),
    ]);
    assert_eq!(code(&out), 10, "{}", stderr(&out));
    assert_eq!(json(&out).get("status").and_then(Value::as_str), Some("expired"));
    assert_eq!(state_of(store, &old), "expired");
    let a = run(&[
        "--json",
        "loop",
        "record",
        "--state",
        s(&dir.path().join("of.json")),
        "--quality",
        "95",
        "--confidence",
        "0.99",
        "--verification",
        "passed",
        "--policy",
        s(&old_file),
    ]);
    let b = record(store, &dir.path().join("os.json"), &format!("store:{old}"));
    assert_eq!((code(&a), json(&a), stderr(&a)), (code(&b), json(&b), stderr(&b)));
    assert!(stderr(&b).contains("expired"), "{}", stderr(&b));
    // Promoting an expired artifact refuses, as for a file, and leaves it expired.
    let out = run(&["--json", "promote", "loops", "--store", store, "--artifact", &format!("store:{old}"), s(&audit)]);
    assert_eq!(code(&out), 10, "{}", stderr(&out));
    assert_eq!(state_of(store, &old), "expired");

    // Hostile names and kinds: typed errors naming the field, nothing written.
    let before = listed(store);
    let unknown =
        run(&["--json", "promote", "loops", "--store", store, "--artifact", &format!("store:{tag}absent"), s(&audit)]);
    assert_eq!(code(&unknown), 2, "{}", stderr(&unknown));
    assert_eq!(code_field(&unknown), ("invalid_config".into(), "name".into()));
    let long = format!("store:{}", "n".repeat(300));
    for bad in ["store:", long.as_str()] {
        let out = run(&["--json", "promote", "loops", "--store", store, "--artifact", bad, s(&audit)]);
        assert_eq!((code(&out), code_field(&out)), (2, ("invalid_config".into(), "name".into())), "{}", stderr(&out));
        let out = record(store, &dir.path().join("bad.json"), bad);
        assert_eq!((code(&out), code_field(&out)), (2, ("invalid_config".into(), "name".into())), "{}", stderr(&out));
        let out = run(&["--json", "runs", "artifact", bad.trim_start_matches("store:"), "--store", store]);
        assert_eq!((code(&out), code_field(&out)), (2, ("invalid_config".into(), "name".into())), "{}", stderr(&out));
    }
    assert!(!dir.path().join("bad.json").exists());
    // A loop artifact where a pyramid policy is read: the core's kind error, as for the file.
    let pyramid = run(&[
        "--json",
        "pyramid",
        "start",
        "--state",
        s(&dir.path().join("p.json")),
        "--layer",
        "unit=1",
        "--store",
        store,
        "--policy",
        &stored,
    ]);
    assert_eq!(code(&pyramid), 2, "{}", stderr(&pyramid));
    assert_eq!(code_field(&pyramid), ("invalid_artifact".into(), "policy.kind".into()));
    // --store with no store:NAME to read or write: a usage error.
    let stray = run(&["promote", "loops", "--store", store, "--artifact", s(&file), s(&audit)]);
    assert_eq!(code(&stray), 2, "{}", stderr(&stray));
    assert_eq!(listed(store), before, "nothing written");

    // Ten promotes of the same artifact at once: each answers, the store ends whole with one
    // of their promoted documents.
    let again = format!("{tag}again");
    let out =
        run(&["calibrate", "loops", "--store", store, "--run-label", &label, "--risk", "0.1", "--delta", "0.1"]).stdout;
    let fresh_file = dir.path().join("again.json");
    std::fs::write(&fresh_file, out).unwrap();
    let seed = run(&[
        "drift",
        "loops",
        "--store",
        store,
        "--artifact",
        s(&fresh_file),
        "--out",
        &format!("store:{again}"),
        s(&audit),
    ]);
    assert_eq!(code(&seed), 0, "{}", stderr(&seed));
    let children: Vec<_> = (0..10)
        .map(|_| {
            bin()
                .args([
                    "--json",
                    "promote",
                    "loops",
                    "--store",
                    store,
                    "--artifact",
                    &format!("store:{again}"),
                    s(&audit),
                ])
                .stderr(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let answers: Vec<Value> = children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            json(&out).get("artifact").cloned().expect("an artifact")
        })
        .collect();
    let kept = parse(&stdout(&run(&["runs", "artifact", &again, "--store", store])));
    assert!(answers.contains(&kept), "the stored artifact is one promote's whole answer");
    assert_eq!(state_of(store, &again), "promoted");
    let check = run(&["runs", "check", "--store", store]);
    assert_eq!(code(&check), 0, "{}", stderr(&check));
}

#[test]
fn artifacts_round_trip_through_a_sqlite_store() {
    let dir = tmp();
    round_trip(&format!("sqlite:{}", dir.path().join("store.db").display()), "");
}

#[test]
fn artifacts_round_trip_through_a_postgresql_store() {
    let Some((store, tag)) = support::postgres_store("artifacts") else { return };
    round_trip(&store, &tag);
}

/// A row another program damaged (not JSON, or JSON that is not an artifact) is refused
/// with a typed error, never run.
#[test]
fn a_damaged_artifact_row_is_a_typed_error() {
    let dir = tmp();
    let path = dir.path().join("store.db");
    let store = format!("sqlite:{}", path.display());
    let corpus = dir.path().join("runs.jsonl");
    std::fs::write(&corpus, runs("", 0, 150)).unwrap();
    let out = run(&["calibrate", "loops", s(&corpus), "--risk", "0.1", "--delta", "0.1", "--store", &store]);
    // The store must exist to be read from: create it by an import first.
    assert_ne!(code(&out), 0);
    assert_eq!(code(&run(&["runs", "import", "--store", &store, s(&corpus)])), 0);
    let out = run(&["calibrate", "loops", "--store", &store, "--risk", "0.1", "--delta", "0.1", "--out", "store:a"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute("UPDATE artifacts SET body = '{\"kind\": \"loop\", ' WHERE name = 'a'", []).unwrap();
    db.execute(
        "INSERT INTO artifacts (name, body, sha256, updated_ms, kind, expires_at, promoted) VALUES ('b', '{\"kind\":\"loop\"}', '', 0, 'loop', '', 0)",
        [],
    )
    .unwrap();
    drop(db);
    let state = dir.path().join("loop.json");
    let torn = record(&store, &state, "store:a");
    assert_eq!((code(&torn), code_field(&torn)), (2, ("invalid_snapshot".into(), "store".into())), "{}", stderr(&torn));
    let listing = run(&["--json", "runs", "artifacts", "--store", &store]);
    assert_eq!(code_field(&listing), ("invalid_snapshot".into(), "store".into()), "{}", stderr(&listing));
    let promote = run(&["--json", "promote", "loops", "--store", &store, "--artifact", "store:a", s(&corpus)]);
    assert_eq!(code_field(&promote), ("invalid_snapshot".into(), "store".into()), "{}", stderr(&promote));
    // JSON, but not an artifact: the core's artifact reader refuses it, as it would the file.
    let hollow = record(&store, &state, "store:b");
    assert_eq!(code(&hollow), 2, "{}", stderr(&hollow));
    assert_eq!(code_field(&hollow).0, "invalid_artifact", "{}", stderr(&hollow));
    let check = run(&["--json", "runs", "check", "--store", &store]);
    assert_eq!(code_field(&check), ("invalid_snapshot".into(), "store".into()), "{}", stderr(&check));
    assert!(!state.exists());
}
