//! The ground floor both engines stand on: the dynamic [`Value`] every binding converts its
//! host objects to, and the validation helpers over it. Keeping parsing here means every
//! rule, every field name and every message comes from the core, whichever language called.
//!
//! Nothing here knows an engine. The files, lowest first:
//!
//! * `text`: [`concat()`] and the other string helpers every message is built with;
//! * `error`: [`Error`], [`ErrorCode`], [`ErrorKind`], [`Result`];
//! * `names`: [`Naming`] (camelCase or snake_case) and [`FieldName`];
//! * `tree`: [`Value`] and the builders of result objects;
//! * `json`, `parser`: JSON text in and out ([`Value::to_json`], [`Value::parse_json`]);
//! * `canonical`: RFC 8785 canonical JSON ([`Value::canonical_json`]), what digests are taken over;
//! * `reader`: reading objects and arguments with typed, field-naming errors;
//! * [`limits`]: what one call, one document and one JSONL line may hold;
//! * [`snapshot`]: the checks every engine's portable snapshot shares;
//! * [`jsonl`]: replay input, one run per line, for both replays.

mod canonical;
mod error;
pub(crate) mod json;
pub mod jsonl;
pub mod limits;
pub(crate) mod names;
mod parser;
mod reader;
#[cfg(feature = "serde")]
mod serde;
pub(crate) mod shape;
pub mod snapshot;
pub(crate) mod text;
mod tree;

pub use error::{Error, ErrorCode, ErrorKind, Result};
pub(crate) use json::utf8_text;
pub(crate) use names::{field_name, key, named_enum, spelled};
pub use names::{FieldName, Key, Naming};
pub(crate) use parser::dedupe_last_wins;
pub use parser::JsonReading;
pub(crate) use parser::{over_limit, OVER_THE_LIMITS};
pub use reader::MAX_SAFE_INTEGER;
pub(crate) use reader::{
    add_to_total, check_integer, check_range, index_path, integer_argument, integer_text, join_path, near_miss,
    nonempty_array, range_text, unknown_key, ObjectReader,
};
pub(crate) use text::concat;
pub(crate) use text::{join, replace_first};
pub use tree::Value;
pub(crate) use tree::{array_of, ObjectBuilder};
