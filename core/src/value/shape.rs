//! What a result key or an option holds, told once for the bindings' generated types: the
//! generator (`dev/`, `make generate`) writes each binding's TypedDict, interface and stub
//! property from these rows, so a new key touches the core's table and nothing else by hand.

use crate::value::FieldName;

/// The type of a key, as every binding spells it (Python / TypeScript).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// A finite number (`float` / `number`).
    Number,
    /// A whole count (`int` / `number`).
    Integer,
    /// `bool` / `boolean`.
    Boolean,
    /// `str` / `string`.
    Text,
    /// A list of strings (`List[str]` / `string[]`).
    Texts,
    /// One name of a core name list (a `named_enum!`'s `NAMES`): the generator finds the
    /// literal type whose list this is (`PlateauMode`, `VerificationStatus`, ...).
    Names(&'static [&'static str]),
}

/// One key of a shape: its spellings, its type, whether a given `null` means "unknown" (a
/// result's analysis fields), and one line for the bindings' docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypedField {
    /// The key's spellings (camelCase and snake_case).
    pub name: FieldName,
    /// What it holds.
    pub ty: FieldType,
    /// Whether the key takes `null` (typed `Optional[...]` / `... | null`).
    pub nullable: bool,
    /// One line for the bindings' docs (a TypeScript doc comment, a stub docstring).
    pub doc: &'static str,
}

impl TypedField {
    /// A key that never takes `null`.
    pub const fn new(name: FieldName, ty: FieldType, doc: &'static str) -> TypedField {
        TypedField { name, ty, nullable: false, doc }
    }

    /// A key that takes `null` for "unknown".
    pub const fn nullable(name: FieldName, ty: FieldType, doc: &'static str) -> TypedField {
        TypedField { name, ty, nullable: true, doc }
    }
}
