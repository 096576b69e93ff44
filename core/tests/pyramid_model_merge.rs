//! The mergeable outcome model (version 2, [`BuildHistory`]): merge is commutative,
//! associative and idempotent, merging the parts gives the model learned from the whole, and
//! the statistics are version 1's fold of the kept builds. Property tests over a small seeded
//! generator (the core has no dependencies; the Python and Node suites run the same laws with
//! Hypothesis and fast-check).

use earlyexit::kit::pyramid::policy::{history_argument, model_argument, read_model};
use earlyexit::pyramid::policy::{
    BuildHistory, BuildRecord, Model, ObservedLayer, OutcomeModel, PolicyConfig, CONVERTED_NOTE, DEFAULT_WINDOW,
};
use earlyexit::{Naming, Value};

mod policy_vectors;

/// A seeded generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
}

const NAMES: [&str; 4] = ["lint", "unit", "e2e", "perf"];
const IDS: [&str; 3] = ["pr-1#7", "pr-2#7", "main#7"];

/// The record of build `(seq, id)`: a function of its key, so builds drawn twice agree.
fn record(seq: u64, id: &str) -> BuildRecord {
    let mut rng = Rng(seq.wrapping_mul(31) ^ id.len() as u64 ^ (id.as_bytes()[0] as u64) << 8);
    let count = 1 + rng.below(NAMES.len() as u64) as usize;
    let mut names = NAMES.to_vec();
    rng.shuffle(&mut names);
    let layers = names[..count]
        .iter()
        .map(|name| ObservedLayer {
            name: (*name).into(),
            failed: rng.below(5) == 0,
            duration_ms: (rng.below(4) != 0).then(|| (1 + rng.below(1000)) as f64 / 8.0),
        })
        .collect();
    BuildRecord { id: id.into(), seq, layers }
}

fn universe(rng: &mut Rng, n: usize) -> Vec<BuildRecord> {
    let mut out: Vec<BuildRecord> = Vec::new();
    while out.len() < n {
        let (seq, id) = (rng.below(40), IDS[rng.below(3) as usize]);
        if !out.iter().any(|b| b.seq == seq && b.id == id) {
            out.push(record(seq, id));
        }
    }
    out
}

/// A model that learned `builds` in the given order.
fn learned(window: usize, builds: &[BuildRecord]) -> BuildHistory {
    let mut model = BuildHistory::new(window).unwrap();
    for b in builds {
        model.learn(&b.id, b.seq, &b.layers).unwrap();
    }
    model
}

fn random_model(rng: &mut Rng, all: &[BuildRecord]) -> BuildHistory {
    let window = [3, 8, 20, DEFAULT_WINDOW][rng.below(4) as usize];
    let mut some: Vec<BuildRecord> = all.iter().filter(|_| rng.below(2) == 0).cloned().collect();
    rng.shuffle(&mut some);
    learned(window, &some)
}

#[test]
fn merge_is_commutative_associative_and_idempotent() {
    let mut rng = Rng(20_261_202);
    for round in 0..300 {
        let n = 12 + rng.below(20) as usize;
        let all = universe(&mut rng, n);
        let (a, b, c) = (random_model(&mut rng, &all), random_model(&mut rng, &all), random_model(&mut rng, &all));
        let ab = a.merge(&b).unwrap();
        assert_eq!(ab, b.merge(&a).unwrap(), "round {round}: commutative");
        assert_eq!(ab.merge(&c).unwrap(), a.merge(&b.merge(&c).unwrap()).unwrap(), "round {round}: associative");
        assert_eq!(a.merge(&a).unwrap(), a, "round {round}: idempotent");
        assert_eq!(ab.merge(&a).unwrap(), ab, "round {round}: absorbs a part it holds");
        // The document round-trips, and reads back as the same model.
        assert_eq!(BuildHistory::from_value(&ab.to_value()).unwrap(), ab);
    }
}

#[test]
fn merging_the_parts_gives_the_model_learned_from_the_whole() {
    let mut rng = Rng(7);
    let config = PolicyConfig::RISK_BOUNDED;
    for round in 0..300 {
        let n = 5 + rng.below(30) as usize;
        let mut all = universe(&mut rng, n);
        let window = [4, 10, DEFAULT_WINDOW][rng.below(3) as usize];
        rng.shuffle(&mut all);
        let whole = learned(window, &all);
        // Any partition, each part learned in any order, merged in any order and grouping.
        let parts = 1 + rng.below(5) as usize;
        let mut buckets: Vec<Vec<BuildRecord>> = vec![Vec::new(); parts];
        for b in &all {
            buckets[rng.below(parts as u64) as usize].push(b.clone());
            if rng.below(6) == 0 {
                // Two runners saw the same build: it still counts once.
                buckets[rng.below(parts as u64) as usize].push(b.clone());
            }
        }
        let mut models: Vec<BuildHistory> = buckets.iter().map(|bucket| learned(window, bucket)).collect();
        rng.shuffle(&mut models);
        while models.len() > 1 {
            let i = rng.below(models.len() as u64 - 1) as usize;
            let right = models.remove(i + 1);
            models[i] = models[i].merge(&right).unwrap();
        }
        let merged = models.pop().unwrap();
        assert_eq!(merged, whole, "round {round}");
        // The statistics are version 1's fold of the kept builds in key order.
        let mut kept = all.clone();
        kept.sort_by(|x, y| (x.seq, &x.id).cmp(&(y.seq, &y.id)));
        let mut v1 = OutcomeModel::new();
        for b in kept.iter().skip(kept.len().saturating_sub(window)) {
            v1.update(&config, &b.layers).unwrap();
        }
        assert_eq!(merged.stats(&config).unwrap(), v1, "round {round}: statistics");
    }
}

#[test]
fn one_key_is_one_build() {
    let a = learned(10, &[record(1, "x"), record(2, "x")]);
    let mut other = record(2, "x");
    other.layers[0].failed = !other.layers[0].failed;
    let b = learned(10, &[other.clone()]);
    for err in [a.merge(&b).unwrap_err(), b.merge(&a).unwrap_err()] {
        assert_eq!((err.code(), err.field()), ("invalid_snapshot", "builds"));
        assert!(err.message().contains("build 'x' (seq 2)"), "{}", err.message());
    }
    let mut c = a.clone();
    let err = c.learn("x", 2, &other.layers).unwrap_err();
    assert_eq!(err.field(), "ran");
    assert_eq!(c, a, "a refused build changes nothing");
    c.learn("x", 2, &record(2, "x").layers).unwrap();
    assert_eq!(c, a, "the same build again changes nothing");
}

#[test]
fn version_1_models_convert_with_a_note_and_merge_only_with_their_base() {
    let config = PolicyConfig::RISK_BOUNDED;
    let mut v1 = OutcomeModel::new();
    v1.update(&config, &record(1, "old").layers).unwrap();
    let doc = v1.to_value(Naming::Js);
    let converted = history_argument(&doc, None).unwrap();
    assert_eq!((converted.window, converted.note()), (DEFAULT_WINDOW, Some(CONVERTED_NOTE)));
    assert_eq!(converted.to_value().get("note").and_then(Value::as_str), Some(CONVERTED_NOTE));
    // Its statistics start from the version-1 counts: learning a build after converting is
    // learning it after the version-1 model.
    let mut after = converted.clone();
    after.learn("new", 5, &record(5, "new").layers).unwrap();
    let mut expected = v1.clone();
    expected.update(&config, &record(5, "new").layers).unwrap();
    assert_eq!(after.stats(&config).unwrap(), expected);
    // The same base, or none, merges; another base is refused.
    let fresh = learned(DEFAULT_WINDOW, &[record(6, "x")]);
    assert_eq!(after.merge(&fresh).unwrap(), fresh.merge(&after).unwrap());
    assert_eq!(after.merge(&fresh).unwrap().base, v1);
    let mut other_v1 = v1.clone();
    other_v1.update(&config, &record(2, "other").layers).unwrap();
    let other = BuildHistory::converted(other_v1, DEFAULT_WINDOW).unwrap();
    assert_eq!(after.merge(&other).unwrap_err().field(), "base");
    // Everywhere a model is read, either version reads (a version-2 one as its statistics).
    assert_eq!(model_argument(&after.to_value(), &config).unwrap(), expected);
    assert!(matches!(read_model(&doc).unwrap(), Model::Stats(_)));
}

#[test]
fn bad_documents_are_named_by_path() {
    let good = learned(5, &[record(1, "a"), record(2, "a")]).to_value();
    let text = good.to_json();
    let check = |tampered: &str, field: &str| {
        let doc = Value::parse_json(tampered, earlyexit::ErrorCode::InvalidSnapshot, "t").unwrap();
        let err = read_model(&doc).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_snapshot", field), "{tampered}: {}", err.message());
        err
    };
    let err = check(&text.replacen(r#""version":2"#, r#""version":3"#, 1), "model.version");
    assert!(err.message().contains("reads versions 1 and 2"), "{}", err.message());
    check(&text.replacen(r#""seq":2"#, r#""seq":1"#, 1), "model.builds[1]");
    check(&text.replacen(r#""window":5"#, r#""window":1"#, 1), "model.builds");
    check(&text.replacen(r#""window":5"#, r#""window":0"#, 1), "model.window");
    check(&text.replacen(r#""seq":1"#, r#""seq":-1"#, 1), "model.builds[0].seq");
    check(&text.replacen(r#""builds":["#, r#""extra":1,"builds":["#, 1), "model.extra");
    let twice = r#"{"version":2,"engine":"PyramidOutcomeModel","window":5,"builds":[{"id":"a","seq":1,"layers":[{"name":"u","failed":false},{"name":"u","failed":true}]}]}"#;
    check(twice, "model.builds[0].layers[1].name");
}

/// Numbers within a relative 1e-12 (the independent model folds in the same order, so the
/// statistics agree to the last bits but for the order of float operations in the mean).
fn assert_close(got: &Value, want: &Value, what: &str) {
    policy_vectors::assert_close(got, want, what, 1e-12, 1.0);
}

/// tests/vectors/policy/pyramid_policy.json `models`: runners learn builds under their keys,
/// their models merge; the merged document and its statistics from the independent JS model.
#[test]
fn model_vectors_match_the_independent_model() {
    use earlyexit::kit::pyramid::policy::{build_arg, ran_arg};
    for case in &policy_vectors::cases("models") {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let window = case.get("window").and_then(Value::as_f64).unwrap() as usize;
        let Some(Value::Array(runners)) = case.get("runners") else { panic!() };
        let mut merged: Option<BuildHistory> = None;
        for runner in runners {
            let mut model = history_argument(case.get("start").unwrap(), Some(window)).unwrap();
            let Value::Array(builds) = runner else { panic!() };
            for b in builds {
                let key =
                    Value::object(vec![("id", b.get("id").unwrap().clone()), ("seq", b.get("seq").unwrap().clone())]);
                let (id, seq) = build_arg(&key, Naming::Js).unwrap();
                model.learn(&id, seq, &ran_arg(b.get("ran").unwrap(), Naming::Js).unwrap()).unwrap();
            }
            merged = Some(match merged {
                None => model,
                Some(m) => m.merge(&model).unwrap(),
            });
        }
        let merged = merged.unwrap();
        let expected = case.get("expected").unwrap();
        assert_eq!(&merged.to_value(), expected.get("merged").unwrap(), "{name}: merged");
        let config = PolicyConfig::RISK_BOUNDED.merged(case.get("config").unwrap(), Naming::Js, "config").unwrap();
        let stats = merged.stats(&config).unwrap().to_value(Naming::Js);
        assert_close(&stats, expected.get("statistics").unwrap(), &format!("{name}: statistics"));
    }
}

/// `pyramid_policy_update` with and without a build key, on the host-value API.
#[test]
fn update_learns_version_2_with_a_build_key_and_version_1_without() {
    use earlyexit::kit::pyramid::replay::update_value;
    let parse = |t: &str| Value::parse_json(t, earlyexit::ErrorCode::InvalidConfig, "t").unwrap();
    let ran = parse(r#"[{"name":"unit","failed":false,"durationMs":3}]"#);
    let keyed = parse(r#"{"build":{"id":"pr-1#2","seq":7}}"#);
    let v1 = update_value(&Value::Null, &ran, &Value::Null, Naming::Js).unwrap();
    assert_eq!(v1.get("version"), Some(&Value::Number(1.0)));
    let v2 = update_value(&Value::Null, &ran, &keyed, Naming::Js).unwrap();
    assert_eq!(v2.get("version"), Some(&Value::Number(2.0)));
    assert_eq!(update_value(&v2, &ran, &keyed, Naming::Js).unwrap(), v2, "the same build again changes nothing");
    let converted = update_value(&v1, &ran, &keyed, Naming::Js).unwrap();
    assert_eq!(converted.get("note").and_then(Value::as_str), Some(CONVERTED_NOTE));
    let err = update_value(&v2, &ran, &Value::Null, Naming::Js).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "build"));
    for (bad, field) in [
        (r#"{"build":{"id":"a"}}"#, "build.seq"),
        (r#"{"build":{"id":1,"seq":1}}"#, "build.id"),
        (r#"{"build":3}"#, "build"),
    ] {
        assert_eq!(update_value(&Value::Null, &ran, &parse(bad), Naming::Js).unwrap_err().field(), field, "{bad}");
    }
}

fn layers_named(prefix: &str, count: usize) -> Vec<ObservedLayer> {
    (0..count).map(|i| ObservedLayer { name: format!("{prefix}{i}"), failed: false, duration_ms: None }).collect()
}

#[test]
fn learn_and_merge_refuse_to_cross_the_layer_limit_and_change_nothing() {
    use earlyexit::limits::MAX_LAYERS;
    let mut full = BuildHistory::default();
    full.learn("a", 1, &layers_named("l", MAX_LAYERS)).unwrap();
    // The same names again: still MAX_LAYERS distinct layers.
    full.learn("b", 2, &layers_named("l", 3)).unwrap();
    let before = full.clone();
    let err = full.learn("c", 3, &layers_named("new", 1)).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "ran"), "{}", err.message());
    assert!(err.message().contains("10000"), "{}", err.message());
    assert_eq!(full, before, "a refused learn changes nothing");

    let mut other = BuildHistory::default();
    other.learn("d", 4, &layers_named("other", 1)).unwrap();
    let err = full.merge(&other).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_snapshot", "other"), "{}", err.message());
    assert_eq!(full, before);
    let err = other.merge(&full).unwrap_err();
    assert_eq!(err.field(), "other");

    // A document already past the limit (written before the check) is refused when read,
    // once, under `model` (not `model.model.layers`).
    let mut poisoned = before.clone();
    poisoned.builds.push(BuildRecord { id: "c".into(), seq: 3, layers: layers_named("new", 1) });
    let err = BuildHistory::from_value(&poisoned.to_value()).unwrap_err();
    assert_eq!(err.field(), "builds", "{}", err.message());
    let err = model_argument(&poisoned.to_value(), &PolicyConfig::RISK_BOUNDED).unwrap_err();
    assert_eq!(err.field(), "model.builds", "{}", err.message());
    let err = poisoned.stats(&PolicyConfig::RISK_BOUNDED).unwrap_err();
    assert_eq!(err.field(), "layers", "{}", err.message());
}
