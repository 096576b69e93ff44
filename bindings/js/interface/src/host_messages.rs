//! The messages of the errors only the JS host meets, worded once for the JS layer and the
//! wasm package's glue: the generator renders them into the contract module as `MESSAGES`
//! (a template becomes a function of its `{placeholders}`) and `HOST_CODES`, and the union
//! type `LoadErrorCode` of `index.d.ts` from [`LOAD_ERROR_CODES`].
//!
//! Why here and not in the core, which words every error about a value (`earlyexit::kit::host`
//! included): none of these is about a value the caller passed, and the core cannot see any
//! of them. An object the JS layer freed never reaches the core; after a WebAssembly trap no
//! core is left to ask (the instance is gone, and the message must not need a new one); a
//! wasm module that did not load, or was not loaded yet, has no core to word anything; the
//! file system is the host's; a native module built from another contract cannot be trusted
//! to word the mismatch; and the "internal error" checks are the JS layer's consistency
//! checks of its own fast paths. Only `ANALYTICS_FILE_NOT_FOUND` is upstream's (aiwg's
//! `load` throws it before reading). TODO(core host): should the core grow a table of host
//! messages, render these from it.

/// One message: its name (`MESSAGES.<name>` in JS), the error's `code` when it has one, its
/// text (`{name}` marks a value the JS layer fills in), and what it is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// The name.
    pub name: &'static str,
    /// The error's `.code` (empty: a plain Error without one, or a fragment of another message).
    pub code: &'static str,
    /// The text or template.
    pub text: &'static str,
    /// When it is thrown.
    pub doc: &'static str,
}

macro_rules! messages {
    ($( $(#[doc = $doc:literal])* $name:ident $([$code:literal])? = $text:literal; )*) => {
        /// Every message, in the order the generated module lists them.
        pub const MESSAGES: &[Message] = &[$(Message {
            name: stringify!($name),
            code: concat!($($code)?),
            text: $text,
            doc: concat!($($doc, "\n"),*),
        }),*];
    };
}

messages! {
    /// Any use of an object after `free()` (or `Symbol.dispose`).
    FREED = "earlyexit: this object was freed (free() or Symbol.dispose) and cannot be used";
    /// The core refused a record it had accepted before (the JS layer's state is inconsistent).
    INTERNAL_RECORD_REFUSED = "earlyexit: internal error: the core refused a record it had accepted";
    /// The core accepted a diminishing-returns report the fast check had refused.
    INTERNAL_REPORT_ACCEPTED = "earlyexit: internal error: the core accepted a report its fast check refused";
    /// The fast path answered a decision code the JS layer does not know.
    INTERNAL_DECISION_CODE = "earlyexit: internal error: unknown decision code {code}";
    /// The core accepted `runWithEarlyExit` options the JS layer had refused.
    INTERNAL_OPTIONS_ACCEPTED = "earlyexit: internal error: the core accepted options this layer refused";
    /// The core accepted a layer result the pyramid's fast check had refused.
    INTERNAL_LAYER_RESULT_ACCEPTED =
        "earlyexit: internal error: the core accepted a layer result its fast check refused";
    /// `ready()`: the native module's fingerprint is not the one the JS layer was generated with.
    CONTRACT_MISMATCH = "earlyexit: the native module was built from another contract (fingerprint {native}, this JS layer's {js}); rebuild the package";
    /// A file operation of IterationAnalytics where there is no file system (a browser).
    NO_FILE_SYSTEM["no_file_system"] = "earlyexit: {what} needs a file system (Node); in a browser, saveAnalytics(), saveReport() and export() return the text";
    /// `IterationAnalytics.load(filepath)` of a file that does not exist (upstream's text and Node's code).
    ANALYTICS_FILE_NOT_FOUND["ENOENT"] = "Analytics file not found: {filepath}";
    /// The call during which the WebAssembly instance trapped (wasm only).
    INSTANCE_TRAPPED["instance_trapped"] = "earlyexit-wasm: the WebAssembly instance trapped during this call ({cause}), so a fresh instance answers from now on: this call changed nothing, and objects made before it other than EarlyStopping throw instance_reset";
    /// Any use of an object made on an instance that trapped since (wasm only).
    INSTANCE_RESET["instance_reset"] = "earlyexit-wasm: this object was made on a WebAssembly instance that trapped and was replaced, so its state is gone: make it again (or restore it from a snapshot taken before)";
    /// The browser build before `init()`.
    NOT_INITIALIZED = "earlyexit-wasm: call and await init() before using the API (import { init } from 'earlyexit-wasm')";
    /// A replay function before the replay module is loaded (browser build); `why` is one of
    /// the two that follow.
    REPLAY_NOT_LOADED["replay_not_loaded"] = "earlyexit-wasm: {name} needs the replay module ({file}), which {why}: call {call} first";
    /// `REPLAY_NOT_LOADED`'s `why` before any load.
    REPLAY_NEVER_LOADED = "is not loaded (init() loads only the engines)";
    /// `REPLAY_NOT_LOADED`'s `why` after a failed load.
    REPLAY_FAILED_EARLIER = "did not load ({cause})";
    /// `init()` could not fetch or instantiate the engines module; `where` is one of the two
    /// that follow, or empty.
    ENGINES_LOAD_FAILED["engines_load_failed"] = "earlyexit-wasm: could not load the engines module ({file}{where}): {cause}; a bundler that does not emit the .wasm file needs its URL or bytes passed: init({ module: url }) (the package's README, \"Bundlers\")";
    /// `ENGINES_LOAD_FAILED`'s `where` without a source.
    NEXT_TO_SCRIPT = ", next to the script that loaded it";
    /// Where a module was loaded from, when the source is a URL or a path.
    FROM_SOURCE = " from {source}";
    /// `init({ replay: true })` could not load the replay module.
    REPLAY_LOAD_FAILED["replay_load_failed"] = "earlyexit-wasm: could not load the replay module ({file}{from}): {cause}; the engines are unaffected, and {call} tries again (or pass the module's location: init({ replay: url }))";
    /// `init(options)` with a key it does not know (a TypeError, the core's code for it).
    INIT_UNKNOWN_OPTION["unknown_option"] = "earlyexit-wasm: init: unknown option '{key}' (the options are {options})";
}

/// The codes of `LoadErrorCode` in `index.d.ts`: the wasm package's errors about loading and
/// trap recovery.
pub const LOAD_ERROR_CODES: [&str; 5] =
    ["engines_load_failed", "replay_not_loaded", "replay_load_failed", "instance_trapped", "instance_reset"];

/// The `{placeholders}` of a template, in order of first use (a brace not followed by a
/// name and `}` is text: `init({ module: url })`).
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        let name_len = rest.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len());
        let name = &rest[..name_len];
        if !name.is_empty() && name.starts_with(|c: char| c.is_ascii_lowercase()) && rest[name_len..].starts_with('}') {
            if !names.contains(&name) {
                names.push(name);
            }
            rest = &rest[name_len + 1..];
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_load_codes_are_messages_codes() {
        let mut names = std::collections::BTreeSet::new();
        for m in MESSAGES {
            assert!(names.insert(m.name), "{} twice", m.name);
            assert!(!m.doc.trim().is_empty(), "{}", m.name);
        }
        for code in LOAD_ERROR_CODES {
            assert!(MESSAGES.iter().any(|m| m.code == code), "{code}");
        }
    }

    #[test]
    fn placeholders_are_names_in_braces() {
        assert_eq!(placeholders("a {what} b {x1} {what} init({ module: url }) {Bad} {}"), ["what", "x1"]);
        let replay = MESSAGES.iter().find(|m| m.name == "REPLAY_NOT_LOADED").map(|m| placeholders(m.text));
        assert_eq!(replay, Some(vec!["name", "file", "why", "call"]));
    }
}
