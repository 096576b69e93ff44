//! The project's generator room (not published): every file rendered from the core's tables
//! and the JS contract's, written by `generate` and checked by `generate --check`
//! (`make generate`; `make test-rust` runs the check through this crate's tests).
//!
//! | file | from |
//! |---|---|
//! | `bindings/js/api/contract.generated.mjs` | the JS contract's ops, slot tables and key lists; the core's names, limits and constant answers ([`js_contract`], [`js_builders`]) |
//! | `bindings/js/api/calls.generated.mjs` | the declared ops of the JS contract: one typed function per op ([`js_calls`]) |
//! | `bindings/js/index.d.ts`, its `export type X = '...'` unions | the core's name lists ([`js_contract::types`]; the rest of the file is hand-written) |
//! | `bindings/python/earlyexit/_literals.py` | the core's name lists ([`python_types`]) |
//! | `bindings/python/earlyexit/types.py` | those literals and the package's TypedDicts and aliases, imported back ([`python_types`]) |
//!
//! The shapes it does not write yet (TypedDicts, interfaces) are held against the core's
//! key tables ([`shapes`]): both commands fail on a difference and print the keys to paste.
//!
//! Native only; the binding crates never depend on it.

pub mod diff;
pub mod js_builders;
pub mod js_calls;
pub mod js_contract;
mod js_text;
pub mod python_types;
pub mod shapes;

use std::path::{Path, PathBuf};

/// The repository's root, from this crate's manifest (`dev/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// Every generated file: its path under `root` and its text. Files generated in part are
/// rendered from their current text.
pub fn files(root: &Path) -> std::io::Result<Vec<(PathBuf, String)>> {
    let types_path = root.join("bindings/js/index.d.ts");
    let types = js_contract::types(&std::fs::read_to_string(&types_path)?);
    Ok(vec![
        (root.join("bindings/js/api/contract.generated.mjs"), js_contract::module()),
        (root.join(js_calls::PATH), js_calls::module()),
        (types_path, types),
        (root.join(python_types::LITERALS_PATH), python_types::render()),
        (root.join(python_types::PATH), python_types::render_types()),
    ])
}

/// What `generate` finds for one file.
#[derive(Debug, PartialEq, Eq)]
pub enum Status {
    /// The file holds what the tables give.
    Current,
    /// The file differs (or is missing): the unified diff that makes it current.
    Stale(String),
}

/// Each generated file with its status, compared with what is on disk under `root`.
pub fn check(root: &Path) -> std::io::Result<Vec<(PathBuf, String, Status)>> {
    let mut out = Vec::new();
    for (path, text) in files(root)? {
        let found = std::fs::read_to_string(&path).unwrap_or_default();
        let status = if found == text {
            Status::Current
        } else {
            let name = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            Status::Stale(diff::unified(&name, &found, &text))
        };
        out.push((path, text, status));
    }
    Ok(out)
}
