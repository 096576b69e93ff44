//! ryu-js (boa's ECMAScript port of Ryu) as a second, independent oracle for
//! `earlyexit::kit::num`: shared by the fuzz target `jsnum_format` and by
//! core/tests/num_oracle.rs (which includes this file with `#[path]`). A dev-dependency of the
//! core and a dependency of the fuzz crate only; the core formats on its own (std only, and
//! small enough for the wasm size budget).

/// `Number.prototype.toString` by ryu-js.
pub fn to_string(x: f64) -> String {
    ryu_js::Buffer::new().format(x).to_owned()
}

/// `Number.prototype.toFixed(d)` by ryu-js, `d` in 0..=100; right only where
/// [`to_fixed_is_reliable`] says so.
pub fn to_fixed(x: f64, d: u8) -> String {
    ryu_js::Buffer::new().format_to_fixed(x, d).to_owned()
}

/// 2^-43 = 1.1368683772161603e-13: below it ryu-js's toFixed has leading zero blocks.
pub const TWO_POW_MINUS_43: f64 = 1.0 / 8_796_093_022_208.0;

/// Where ryu-js 1.0.3's `format_to_fixed` is right. Its port of Ryu's `d2fixed` lacks the C
/// original's skip of the leading all-zero blocks of nine fraction digits (`if (i <
/// MIN_BLOCK_2[idx]) { i = MIN_BLOCK_2[idx]; memset(..., '0', 9 * i); }`), so its loop starts
/// at block 0 and reads other exponents' table rows there: `(-2.4021504744033922e-57)
/// .toFixed(54)` comes out as "-0.7267..." where Node and the core say "-0.000...0". Those
/// blocks exist (`MIN_BLOCK_2[-e2 / 16] > 0`) only for binary exponents e2 <= -96, i.e.
/// |x| < 2^-43, and matter only when `d` reaches past the first block (d >= 9). Measured on
/// 3,000,000 doubles with exponents 2^-123..2^77 and random d: 0 disagreements outside that
/// region, 56% inside it, and Node agreed with the core on every disagreement checked
/// (1,999). There the core is held to Node by core/tests/jsnum_node.rs and to the exact
/// decimal expansion by the fuzz harness.
pub fn to_fixed_is_reliable(x: f64, d: u8) -> bool {
    x.abs() >= TWO_POW_MINUS_43 || d <= 8
}
