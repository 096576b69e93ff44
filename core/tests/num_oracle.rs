//! A second, independent oracle for the number formatting: `earlyexit::kit::num` against
//! `ryu-js` (boa's ECMAScript port of Ryu, a dev-dependency only; the core itself stays
//! dependency-free and does its own formatting for the wasm size budget).
//!
//! * `to_js_string(x)` equals `ryu_js::Buffer::format(x)` (`Number.prototype.toString`) for
//!   every double, special values included;
//! * `to_fixed(x, d)` equals `ryu_js::Buffer::format_to_fixed(x, d)` (`toFixed`) for every
//!   double and every `d` in `0..=100` (the range JavaScript accepts) where ryu-js is right:
//!   everywhere except |x| < 2^-43 with `d` > 8, an upstream bug explained at
//!   `to_fixed_is_reliable` in fuzz/harness/ryu_oracle.rs (shared with the fuzz harness).
//!
//! The other oracles are Node itself (tests/jsnum_node.rs, fixed cases) and the fuzz
//! harness's exact-expansion reference (fuzz/harness/jsnum_format.rs, which also asks
//! ryu-js). Here proptest draws doubles by bit pattern (every exponent equally likely),
//! as short decimals (the ties of `toFixed`) and as integers near 2^53 and 1e21, from a
//! fixed seed so `make test` is repeatable; `PROPTEST_CASES` raises the count.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit::num::{to_fixed, to_js_string};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use ryu_oracle::TWO_POW_MINUS_43;

#[path = "../../fuzz/harness/ryu_oracle.rs"]
mod ryu_oracle;

fn assert_same(x: f64, d: Option<u8>) {
    match d {
        None => assert_eq!(to_js_string(x), ryu_oracle::to_string(x), "toString of {x:?} (bits {:#018x})", x.to_bits()),
        Some(d) if !ryu_oracle::to_fixed_is_reliable(x, d) => {}
        Some(d) => assert_eq!(
            to_fixed(x, u32::from(d)),
            ryu_oracle::to_fixed(x, d),
            "toFixed({d}) of {x:?} (bits {:#018x})",
            x.to_bits()
        ),
    }
}

/// Doubles a formatter gets wrong first: both zeros, the ends of the subnormal and normal
/// ranges, powers of two and ten at the notation switches, toFixed ties and near-ties.
const SPECIAL: &[f64] = &[
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    2.225_073_858_507_201e-308, // largest subnormal
    f64::MIN_POSITIVE,
    f64::MAX,
    f64::MIN,
    f64::EPSILON,
    1e-7,
    1e-6,
    f64::from_bits(0x3eb0_c6f7_a0b5_ed8c), // the double just below 1e-6
    1e20,
    1e21,
    -1e21,
    999_999_999_999_999_900_000.0, // just below 1e21
    9_007_199_254_740_992.0,       // 2^53
    9_007_199_254_740_993.0,
    123_456_789_012_345_680_000.0,
    0.1,
    0.2,
    0.3,
    0.07 * 100.0,
    0.5,
    1.5,
    2.5,
    -2.5,
    0.25,
    0.125,
    1.005,
    1.45,
    8.345,
    -0.0001,
    -1e-10,
    4.35,
    1.0 / 3.0,
    2.0 / 3.0,
    1e-300,
    1e300,
    5e-310,
    1.7976931348623155e308,
    0.000_001_234_5,
    1.234_5e-7,
];

#[test]
fn special_values_agree_for_every_digit_count() {
    for &x in SPECIAL {
        for x in [x, -x] {
            assert_same(x, None);
            for d in 0..=100 {
                assert_same(x, Some(d));
            }
        }
    }
}

#[test]
fn every_power_of_two_and_ten_agrees() {
    // 2^e for e in -1074..=1023, built from its bits (subnormals have one mantissa bit)
    for bits in (0..52).map(|b| 1u64 << b).chain((1..=2046).map(|e| e << 52)) {
        let x = f64::from_bits(bits);
        assert_same(x, None);
        assert_same(x, Some(20));
        // the neighbours, where the rounding interval is lopsided
        assert_same(f64::from_bits(x.to_bits() + 1), None);
        assert_same(f64::from_bits(x.to_bits() - 1), None);
    }
    for e in -324..=308 {
        let x: f64 = format!("1e{e}").parse().unwrap();
        assert_same(x, None);
        assert_same(x, Some(100));
    }
}

/// Any double, by bit pattern: every exponent is as likely as any other.
fn any_bits() -> impl Strategy<Value = f64> {
    any::<u64>().prop_map(f64::from_bits)
}

/// Short decimals, as a caller writes them: `m / 10^k`, where `toFixed` meets its ties.
fn short_decimal() -> impl Strategy<Value = f64> {
    (-10_000_000i64..=10_000_000, 0u32..=8).prop_map(|(m, k)| m as f64 / 10f64.powi(k as i32))
}

/// Integers around 2^53 and just below and above 1e21 (toFixed's switch to toString).
fn big_integer() -> impl Strategy<Value = f64> {
    prop_oneof![(-(1i64 << 54)..=(1i64 << 54)).prop_map(|n| n as f64), (9.9e20f64..1.01e21).prop_map(f64::trunc),]
}

fn any_double() -> impl Strategy<Value = f64> {
    prop_oneof![3 => any_bits(), 2 => short_decimal(), 1 => big_integer(), 1 => any::<f64>()]
}

/// A fixed seed: the same cases on every run. `PROPTEST_CASES` overrides the count.
fn config(default_cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(default_cases);
    Config { cases, rng_seed: RngSeed::Fixed(0x6e75_6d5f_6f72_6163), failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config(20_000))]

    #[test]
    fn to_js_string_agrees_with_ryu_js(x in any_double()) {
        prop_assert_eq!(to_js_string(x), ryu_oracle::to_string(x), "toString of {:?} (bits {:#018x})", x, x.to_bits());
    }
}

/// A double and a digit count ryu-js formats right: below 2^-43 the count is cut to d % 9.
fn fixed_case() -> impl Strategy<Value = (f64, u8)> {
    (any_double(), 0u8..=100)
        .prop_map(|(x, d)| if ryu_oracle::to_fixed_is_reliable(x, d) { (x, d) } else { (x, d % 9) })
}

/// The one region ryu-js is left out of is its bug, not ours: the core gives Node's string
/// (`node -e 'console.log((-2.4021504744033922e-57).toFixed(54))'`) and ryu-js does not. If
/// this fails because ryu-js now agrees, the bug is fixed upstream: drop the exclusion.
#[test]
fn ryu_js_to_fixed_misses_leading_zero_blocks_below_2_pow_minus_43() {
    let x = -2.402_150_474_403_392_2e-57;
    let node = "-0.000000000000000000000000000000000000000000000000000000";
    assert_eq!(to_fixed(x, 54), node);
    assert_ne!(
        ryu_oracle::to_fixed(x, 54),
        node,
        "ryu-js is fixed: drop the exclusion in ryu_oracle::to_fixed_is_reliable"
    );
    assert!(!ryu_oracle::to_fixed_is_reliable(x, 54));
    // just above the bound ryu-js is relied on for every digit count
    let above = TWO_POW_MINUS_43;
    assert_eq!(above.to_bits(), (1023u64 - 43) << 52);
    assert!((0..=100).all(|d| ryu_oracle::to_fixed_is_reliable(above, d)));
}

proptest! {
    #![proptest_config(config(5_000))]

    #[test]
    fn to_fixed_agrees_with_ryu_js((x, d) in fixed_case()) {
        prop_assert_eq!(
            to_fixed(x, u32::from(d)),
            ryu_oracle::to_fixed(x, d),
            "toFixed({}) of {:?} (bits {:#018x})", d, x, x.to_bits()
        );
    }
}
