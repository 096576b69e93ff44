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

/// The fields of a typed table, as its reader takes them (the table is the key list's source).
#[allow(clippy::indexing_slicing)] // `i < N` indexes two arrays of length N
pub const fn names<const N: usize>(fields: [TypedField; N]) -> [FieldName; N] {
    let mut out = [FieldName::same(""); N];
    let mut i = 0;
    while i < N {
        out[i] = fields[i].name;
        i += 1;
    }
    out
}

/// The keys of a typed table whose keys are spelled the same in both conventions, in its
/// order (a writer's `KEYS`); a field with two spellings fails the build.
#[allow(clippy::indexing_slicing)] // `i < N` indexes two arrays of length N
pub(crate) const fn same_keys<const N: usize>(fields: [TypedField; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = fields[i].name.same_spelling();
        i += 1;
    }
    out
}

impl TypedField {
    /// Whether `value` is of this key's type (`null` only when nullable): what the core's
    /// tests hold each writer against.
    #[cfg(test)]
    pub(crate) fn holds(&self, value: &crate::value::Value) -> bool {
        use crate::value::Value;
        match (self.ty, value) {
            (_, Value::Null) => self.nullable,
            (FieldType::Number, Value::Number(n)) => n.is_finite(),
            (FieldType::Integer, Value::Number(n)) => n.is_finite() && n.fract() == 0.0 && *n >= 0.0,
            (FieldType::Boolean, Value::Bool(_)) => true,
            (FieldType::Text, Value::String(_)) => true,
            (FieldType::Texts, Value::Array(items)) => items.iter().all(|i| matches!(i, Value::String(_))),
            (FieldType::Names(names), Value::String(s)) => names.contains(&s.as_str()),
            _ => false,
        }
    }
}
