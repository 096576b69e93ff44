//! Calibration artifacts kept in the run store (docs/store.md, "Artifacts"): wherever the
//! command or an MCP tool names an artifact file (`calibrate loops --out`, `promote|drift
//! loops --artifact|--out`, `loop record --policy|--shadow`, `pyramid start --policy`, `hook
//! claude-code --policy`; MCP: `calibrate_loops`' `out`, `loop_start`'s `policy_artifact` and
//! `shadow`, the artifact tools' `artifact`, with `store`), the name
//! `store:NAME` names the artifact `NAME` of the store instead (`--store`, else
//! `EARLYEXIT_STORE`, else the default store). The artifact's rules are the core's: it is read
//! back exactly as a file's text would be, so an unpromoted or expired artifact behaves the
//! same from a store as from a file.

use crate::core_api::{store_rules, CoreError, Value};
use crate::output::{with_flag, Failure};
use earlyexit_store::{Store, StoredArtifact};

/// What an artifact's file name starts with when it names an artifact of the store.
pub const PREFIX: &str = "store:";

/// The store artifact's name when `given` is `store:NAME`.
pub fn name_of(given: &str) -> Option<&str> {
    given.strip_prefix(PREFIX)
}

/// A core error about the artifact's name or content, named by the flag that gave it.
fn named(e: CoreError, flag: &str) -> Failure {
    with_flag(e, flag)
}

/// The artifact `name` of an opened store, or the core's "the store holds no artifact named"
/// (`invalid_config` naming `name`); a name the store refuses (empty, too long) is refused
/// before any read.
pub fn get(store: &Store, name: &str) -> Result<StoredArtifact, CoreError> {
    store_rules::check_store_name("name", name)?;
    store.artifact(name)?.ok_or_else(|| store_rules::not_in_store("artifact", name))
}

/// [`get`], its errors named by the command's flag (a damaged store names `store`).
pub fn read_in(store: &Store, name: &str, flag: &str) -> Result<StoredArtifact, Failure> {
    get(store, name).map_err(|e| if e.field() == "name" { named(e, flag) } else { Failure::core(e) })
}

/// The artifact document of `store:NAME` (`name`), read from the store `--store` names.
pub fn read(store_flag: &Option<String>, name: &str, flag: &str) -> Result<Value, Failure> {
    store_rules::check_store_name("name", name).map_err(|e| named(e, flag))?;
    let store = crate::store_open::open_existing(store_flag)?;
    Ok(read_in(&store, name, flag)?.artifact)
}

/// Stores `artifact` under `name` (one transaction, replacing the one there), in the store
/// `--store` names (created when missing).
pub fn write(store_flag: &Option<String>, name: &str, artifact: &Value, flag: &str) -> Result<StoredArtifact, Failure> {
    store_rules::check_store_name("name", name).map_err(|e| named(e, flag))?;
    let mut store = crate::store_open::open(store_flag)?;
    store.put_artifact(name, artifact).map_err(|e| if e.field() == "store" { Failure::core(e) } else { named(e, flag) })
}

/// Reads the artifact `name` of the store `--store` names, hands it to `update` and stores the
/// artifact `update` answers, in one transaction ([`Store::update_artifact`]); answers what
/// `update` answered. The core's errors about the name name `flag`; those of `update` (about
/// the artifact's content) name `store:NAME` as the file they came from.
pub fn update<T>(
    store_flag: &Option<String>,
    name: &str,
    flag: &str,
    update: impl FnOnce(&Value) -> Result<(Option<Value>, T), CoreError>,
) -> Result<T, Failure> {
    store_rules::check_store_name("name", name).map_err(|e| named(e, flag))?;
    let mut store = crate::store_open::open_existing(store_flag)?;
    let mut named_by_content = false;
    let result = store.update_artifact(name, |stored| {
        named_by_content = true;
        update(&stored.artifact)
    });
    result.map_err(|e| {
        if !named_by_content && e.field() == "name" {
            named(e, flag)
        } else if e.field() == "store" {
            Failure::core(e)
        } else {
            crate::output::with_file(e, &format!("{PREFIX}{name}"))
        }
    })
}

/// The artifact's state now: `expired` (its expiry is past), `promoted` (it carries a
/// promotion) or `shadow` (it runs beside, never enforced).
pub fn state(stored: &StoredArtifact, now_ms: i64) -> &'static str {
    let expired = earlyexit::artifact::Artifact::from_value(&stored.artifact).map_or(true, |a| a.is_expired(now_ms));
    if expired {
        "expired"
    } else if stored.promoted {
        "promoted"
    } else {
        "shadow"
    }
}

/// The artifact's lifecycle as `runs artifact(s)` and the MCP tools answer it.
pub fn lifecycle(name: &str, stored: &StoredArtifact, now_ms: i64) -> Value {
    Value::object(vec![
        ("name", Value::string(name)),
        ("kind", Value::string(stored.kind.as_str())),
        ("expiresAt", Value::string(stored.expires_at.as_str())),
        ("promoted", Value::Bool(stored.promoted)),
        ("state", Value::string(state(stored, now_ms))),
        ("sha256", Value::string(stored.sha256.as_str())),
    ])
}
