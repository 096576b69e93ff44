//! How things are named: the caller's convention ([`Naming`]), a field known under both
//! spellings ([`FieldName`]), and the closed sets of names the engines speak (triggers,
//! statuses, reasons, ...), each written once as a [`named_enum!`] table.

/// How the caller spells names: JS camelCase (upstream's API) or snake_case (Python, Rust).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Naming {
    /// `plateauConsecutiveCount`, `layers[2].passRate`: the only spelling JS input may use.
    Js,
    /// `plateau_consecutive_count`, `layers[2].pass_rate`: how output and error fields are
    /// spelled. Input may spell each field either way (a Python dict from `to_dict()`, or one
    /// loaded from JSON, carries the JS spelling), but not both ways in one object.
    Snake,
}

/// A field known under two spellings, stored as one static string: the camelCase spelling,
/// then (when it differs) a space and the snake_case one (`"passRate pass_rate"`); build
/// two-spelling names with `field_name!("passRate", "pass_rate")`.
///
/// Why one string: a `FieldName` is an argument of every field read, and one `&str` travels
/// as two plain values, where two `&str`s were built in memory at each of the ~170 call
/// sites in the WebAssembly module (~35 bytes each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldName {
    spellings: &'static str,
}

/// `field_name!("passRate", "pass_rate")`: a [`FieldName`] with distinct spellings (camelCase
/// first).
macro_rules! field_name {
    ($js:literal, $snake:literal) => {
        $crate::value::FieldName::pair(concat!($js, " ", $snake))
    };
}

pub(crate) use field_name;

impl FieldName {
    /// A field spelled the same in both conventions.
    pub const fn same(name: &'static str) -> Self {
        FieldName { spellings: name }
    }

    /// Fields spelled the same in both conventions, one per key of a writer's `KEYS` table:
    /// the fields its reader accepts.
    #[allow(clippy::indexing_slicing)] // `i < N` indexes two arrays of length N
    pub const fn same_all<const N: usize>(keys: [&'static str; N]) -> [FieldName; N] {
        let mut fields = [FieldName::same(""); N];
        let mut i = 0;
        while i < N {
            fields[i] = FieldName::same(keys[i]);
            i += 1;
        }
        fields
    }

    /// A field with distinct spellings, `"camelCase snake_case"` (the crate's `field_name!` macro writes it).
    pub const fn pair(spellings: &'static str) -> Self {
        FieldName { spellings }
    }

    /// The one spelling of a field spelled the same in both conventions; in a `const`, a
    /// field with two spellings fails the build.
    #[allow(clippy::indexing_slicing)] // `i < len`
    pub(crate) const fn same_spelling(&self) -> &'static str {
        let bytes = self.spellings.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            assert!(bytes[i] != b' ', "a field with two spellings");
            i += 1;
        }
        self.spellings
    }

    /// The camelCase spelling (upstream's).
    pub fn js(&self) -> &'static str {
        self.spelled(Naming::Js)
    }

    /// The snake_case spelling.
    pub fn snake(&self) -> &'static str {
        self.spelled(Naming::Snake)
    }

    /// The spelling for `naming`.
    pub fn spelled(&self, naming: Naming) -> &'static str {
        let both = self.spellings;
        match both.bytes().position(|b| b == b' ') {
            None => both,
            Some(space) => match naming {
                Naming::Js => both.get(..space).unwrap_or(both),
                Naming::Snake => both.get(space + 1..).unwrap_or(both),
            },
        }
    }
}

/// A key of an object the core writes in the caller's convention, spelled both ways: a
/// writer takes [`Key::spelled`] (a choice between two literals, nothing scanned at run time,
/// which keeps the size-budgeted WebAssembly module as it was with the literals inline) and
/// the matching reader takes [`Key::field`]. Make one with `key!("exitLayer", "exit_layer")`
/// or [`Key::same`]; a writer's `KEYS` table lists them in the order it writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The camelCase spelling.
    pub js: &'static str,
    /// The snake_case spelling.
    pub snake: &'static str,
    /// The same key as a reader's field.
    pub field: FieldName,
}

impl Key {
    /// A key spelled the same in both conventions.
    pub const fn same(name: &'static str) -> Key {
        Key { js: name, snake: name, field: FieldName::same(name) }
    }

    /// The spelling for `naming`. (The core's writers use `spelled!(KEY, naming)` instead:
    /// passing a `const` key to a function, even one inlined, puts the whole key and its
    /// reader's field text into the WebAssembly module's data, ~40 bytes a key.)
    #[inline]
    pub const fn spelled(self, naming: Naming) -> &'static str {
        match naming {
            Naming::Js => self.js,
            Naming::Snake => self.snake,
        }
    }

    /// The fields of a writer's `KEYS` table, as its reader takes them.
    #[allow(clippy::indexing_slicing)] // `i < N` indexes two arrays of length N
    pub const fn fields<const N: usize>(keys: [Key; N]) -> [FieldName; N] {
        let mut fields = [FieldName::same(""); N];
        let mut i = 0;
        while i < N {
            fields[i] = keys[i].field;
            i += 1;
        }
        fields
    }
}

/// `key!("exitLayer", "exit_layer")`: a [`Key`] with distinct spellings (camelCase first).
macro_rules! key {
    ($js:literal, $snake:literal) => {
        $crate::value::Key { js: $js, snake: $snake, field: $crate::value::FieldName::pair(concat!($js, " ", $snake)) }
    };
}

pub(crate) use key;

/// `spelled!(KEY, naming)`: a `const` [`Key`]'s spelling for `naming`, picked where the
/// const is named (see [`Key::spelled`] for why not the method).
macro_rules! spelled {
    ($key:expr, $naming:expr) => {
        if matches!($naming, $crate::value::Naming::Js) {
            $key.js
        } else {
            $key.snake
        }
    };
}

pub(crate) use spelled;

/// Whether two keys name one field: equal, or one is the camelCase spelling of the other
/// (`plateauConsecutiveCount`, `plateau_consecutive_count`; every [`FieldName`] pair is
/// spelled so). A binding that merges keyword arguments over a mapping drops the mapping's
/// entry for a field the keywords give, whichever spelling the mapping used.
pub fn same_field(a: &str, b: &str) -> bool {
    a == b || snake_spelling(a) == b || snake_spelling(b) == a
}

/// `plateauConsecutiveCount` -> `plateau_consecutive_count` (an `_` before each ASCII
/// capital, which is lowered).
fn snake_spelling(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A closed set of names, written once as a table of `Variant = "name"` rows:
///
/// ```ignore
/// named_enum! {
///     /// The verification outcome an iteration reports.
///     pub enum VerificationStatus {
///         /// Verification ran and passed.
///         Passed = "passed",
///         /// Verification ran and failed.
///         Failed = "failed",
///     }
/// }
/// ```
///
/// makes the enum (`Clone, Copy, Debug, PartialEq, Eq, Hash`, attributes passed through)
/// and, from the same rows, `ALL` (every variant, in the table's order), `NAMES` (their
/// names, in that order), `as_str` and `parse` (a variant's name and back) and `index` (a
/// variant's position in `ALL`). Every list a binding or a reader needs derives from these,
/// so a new name is one new row.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $name {
            /// Every variant, in the table's order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// Every variant's name, in the order of [`Self::ALL`].
            pub const NAMES: [&'static str; [$($text),+].len()] = [$($text),+];

            /// The variant's name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The variant named `name`, if any.
            pub fn parse(name: &str) -> Option<Self> {
                match name {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }

            /// The variant's position in [`Self::ALL`] and [`Self::NAMES`].
            pub const fn index(self) -> usize {
                self as usize
            }
        }
    };
}

pub(crate) use named_enum;
