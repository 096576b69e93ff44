//! Exact JavaScript number formatting: `Number.prototype.toString()` and
//! `Number.prototype.toFixed()`.
//!
//! Why this exists: the strings this crate produces (reports, reasons, keys) must match the
//! JavaScript implementations the engines reproduce, byte for byte, and Rust's float formatting does not agree
//! with JavaScript's:
//!
//! * `toFixed` rounds the *exact* binary value of the double half away from zero, so
//!   `(0.25).toFixed(1)` is `"0.3"` and `(2.5).toFixed(0)` is `"3"`, whereas Rust's
//!   `format!("{:.1}", 0.25)` gives `"0.2"` (ties to even). Non-ties agree only because both
//!   use the exact value (`(1.005).toFixed(2)` is `"1.00"` in both).
//! * `toString` switches to exponential notation at `1e21` and below `1e-6` (`"1e+21"`,
//!   `"1e-7"`, `"1.5e-7"`), prints `-0` as `"0"`, and prints integers in plain decimal,
//!   none of which Rust's `Display` for `f64` does.
//!
//! The implementation deliberately avoids `core::fmt` float formatting (it is the largest part of
//! `core::fmt` and this code ships in a size-budgeted WebAssembly build). Instead it computes the
//! exact decimal expansion of the double (`mantissa × 2^exponent`) with a tiny base-10⁹ big
//! integer. `toFixed` rounds that expansion directly; `toString` rounds it to `p` significant
//! digits and takes the smallest `p` whose result reads back (via the correctly rounded
//! parser in `parse`) as the same double, preferring the candidate closest to the value, which
//! is exactly the ECMAScript `Number::toString` choice of `n`, `k` and `s`.
//!
//! The files, lowest first: `exact` (the exact decimal digits of integers and doubles),
//! `parse` (correctly rounded decimal-to-double, comparing against `exact` on its slow path)
//! and `format` (the JavaScript formatting, which reads its candidates back with `parse`).

mod exact;
mod format;
mod parse;
pub mod stats;

pub use format::{push_fixed, push_js_string, to_fixed, to_js_string, to_locale_string, uint_string};
pub(crate) use parse::parse_f64;
