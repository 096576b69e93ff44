//! The formatting: `toFixed`, `toString` (shortest round-tripping digits) and `toLocaleString`
//! as JavaScript computes them.

use crate::num::exact::{increment, push_digits, push_u64, Exact};
use crate::num::parse::from_digits;

/// Largest `fraction_digits` JavaScript's `toFixed` accepts (larger values throw `RangeError`).
const MAX_FRACTION_DIGITS: usize = 100;

/// Number of significant decimal digits that always identifies an `f64` uniquely.
const MAX_SIGNIFICANT_DIGITS: usize = 17;

/// `Number.prototype.toFixed(fraction_digits)` as JavaScript computes it.
///
/// Callers must pass `fraction_digits` in `0..=100` (JavaScript's accepted range). JavaScript
/// throws a `RangeError` for larger values; since this function cannot throw, it returns the
/// result for 100 fraction digits instead. It never panics.
///
/// ```
/// use earlyexit::kit::num::to_fixed;
/// assert_eq!(to_fixed(0.25, 1), "0.3");
/// assert_eq!(to_fixed(1.005, 2), "1.00");
/// assert_eq!(to_fixed(-0.01, 1), "-0.0");
/// ```
#[must_use]
pub fn to_fixed(value: f64, fraction_digits: u32) -> String {
    let mut out = String::new();
    push_fixed(&mut out, value, fraction_digits);
    out
}

/// `Number.prototype.toString()` (equivalently `String(x)` or `` `${x}` ``) as JavaScript
/// computes it: the shortest decimal that reads back as the same double, in plain or
/// exponential notation following ECMAScript's `Number::toString` rules.
///
/// ```
/// use earlyexit::kit::num::to_js_string;
/// assert_eq!(to_js_string(0.07 * 100.0), "7.000000000000001");
/// assert_eq!(to_js_string(1e21), "1e+21");
/// assert_eq!(to_js_string(1e-7), "1e-7");
/// assert_eq!(to_js_string(-0.0), "0");
/// ```
#[must_use]
pub fn to_js_string(value: f64) -> String {
    let mut out = String::new();
    push_js_string(&mut out, value);
    out
}

/// Appends [`to_fixed`]`(value, fraction_digits)` to `out` without an intermediate `String`.
///
/// Same contract as [`to_fixed`]: `fraction_digits` above 100 behaves like 100.
pub fn push_fixed(out: &mut String, value: f64, fraction_digits: u32) {
    let f = usize::try_from(fraction_digits).unwrap_or(MAX_FRACTION_DIGITS).min(MAX_FRACTION_DIGITS);
    // Step: non-finite values and |x| >= 1e21 use Number::toString (with the sign).
    if !value.is_finite() || value.abs() >= 1e21 {
        push_js_string(out, value);
        return;
    }
    // `-0` is not < 0 in the spec's mathematical comparison; `-0.01` is (and keeps its sign
    // even when it rounds to zero).
    if value < 0.0 {
        out.push('-');
    }
    let exact = Exact::of(value.abs());
    let digits = exact.digits.as_slice();

    // n = round_half_up(digits / 10^(frac - f)), as ASCII digits (possibly with leading zeros).
    let mut n: Vec<u8> = if f >= exact.frac {
        let mut n = digits.to_vec();
        n.resize(digits.len() + (f - exact.frac), b'0');
        n
    } else {
        let drop = exact.frac - f;
        match digits.len().checked_sub(drop) {
            // Every digit is below the rounding position and the first dropped digit is an
            // implicit leading zero: n = 0.
            None => Vec::new(),
            Some(keep_len) => {
                let (keep, dropped) = digits.split_at_checked(keep_len).unwrap_or((digits, &[]));
                let mut n = keep.to_vec();
                // Half away from zero on the exact value: round up iff the first dropped digit
                // is at least 5 (a tie, "pick the larger n", also rounds up).
                if dropped.first().is_some_and(|&d| d >= b'5') {
                    increment(&mut n);
                }
                n
            }
        }
    };
    let leading_zeros = n.iter().take_while(|&&d| d == b'0').count();
    n.drain(..leading_zeros);

    // m = digits of n ("0" for zero), left-padded with zeros to at least f + 1 digits.
    let len = n.len().max(1);
    let width = len.max(f + 1);
    let int_len = width - f;
    let mut pos = 0usize;
    for _ in 0..(width - len) {
        push_separator(out, pos, int_len, f);
        out.push('0');
        pos += 1;
    }
    if n.is_empty() {
        push_separator(out, pos, int_len, f);
        out.push('0');
    } else {
        for &d in &n {
            push_separator(out, pos, int_len, f);
            out.push(char::from(d));
            pos += 1;
        }
    }
}

/// `Number.prototype.toLocaleString()` in the `en-US` locale with `Intl.NumberFormat`'s
/// defaults, as Node prints it: the shortest round-tripping decimal (what ICU formats, not
/// the exact binary value), rounded half away from zero to at most 3 fraction digits,
/// trailing zeros dropped, the integer part grouped by commas; `-0` keeps its sign, and the
/// infinities print as `∞`.
///
/// aiwg's analytics report prints its token total this way. Its output depends on the host's
/// locale there (`1.234.567` in `de-DE`); this is always `en-US`, the default of Node with no
/// locale set.
///
/// ```
/// use earlyexit::kit::num::to_locale_string;
/// assert_eq!(to_locale_string(1234567.891), "1,234,567.891");
/// assert_eq!(to_locale_string(1.0005), "1.001");
/// assert_eq!(to_locale_string(999.9995), "1,000");
/// ```
#[must_use]
pub fn to_locale_string(value: f64) -> String {
    let mut out = String::new();
    if value.is_nan() {
        out.push_str("NaN");
        return out;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    let magnitude = value.abs();
    if magnitude.is_infinite() {
        out.push('∞');
        return out;
    }
    // Integer digits and up to 3 fraction digits of the shortest decimal `0.s × 10^n`.
    let (s, n) = if magnitude == 0.0 { (Vec::new(), 0) } else { shortest(magnitude) };
    let digit = |i: i64| -> u8 { usize::try_from(i).ok().and_then(|i| s.get(i)).copied().unwrap_or(b'0') };
    // Digit i of s has weight 10^(n - 1 - i): keep every digit from the units (or the first
    // of s) down to 10^-3, then round half away from zero on the next one. Indices outside
    // s read as '0'.
    let last = n + 2; // the 10^-3 digit
    let mut kept: Vec<u8> = Vec::new();
    let mut i = n.min(0);
    while i <= last {
        kept.push(digit(i));
        i += 1;
    }
    if digit(last + 1) >= b'5' {
        increment(&mut kept);
    }
    // kept holds the digits of round(value × 1000): the last 3 are the fraction.
    let (int_part, frac_part) = kept.split_at(kept.len().saturating_sub(3));
    let int_digits: &[u8] = {
        let nonzero = int_part.iter().position(|&d| d != b'0').unwrap_or(int_part.len());
        int_part.get(nonzero..).unwrap_or(&[])
    };
    if int_digits.is_empty() {
        out.push('0');
    } else {
        for (k, d) in int_digits.iter().enumerate() {
            if k > 0 && (int_digits.len() - k) % 3 == 0 {
                out.push(',');
            }
            out.push(char::from(*d));
        }
    }
    let mut frac_end = frac_part.len();
    while frac_end > 0 && frac_part.get(frac_end - 1) == Some(&b'0') {
        frac_end -= 1;
    }
    if frac_end > 0 {
        out.push('.');
        push_digits(&mut out, frac_part.get(..frac_end).unwrap_or(&[]));
    }
    out
}

/// Pushes the decimal point before the digit at `pos` when it is the first fraction digit.
fn push_separator(out: &mut String, pos: usize, int_len: usize, f: usize) {
    if f != 0 && pos == int_len {
        out.push('.');
    }
}

/// Appends [`to_js_string`]`(value)` to `out` without an intermediate `String`.
pub fn push_js_string(out: &mut String, value: f64) {
    if value.is_nan() {
        out.push_str("NaN");
        return;
    }
    if value == 0.0 {
        out.push('0');
        return;
    }
    if value < 0.0 {
        out.push('-');
    }
    if value.is_infinite() {
        out.push_str("Infinity");
        return;
    }
    // Fast path: an integer below 2^53 prints as its decimal digits. Every integer that
    // small is a double, so no shorter decimal reads back as it (a shorter one is another
    // integer), which is what the round-trip search below would conclude, far more slowly.
    // Counts, iteration numbers and many qualities are such integers.
    let magnitude = value.abs();
    if magnitude.fract() == 0.0 && magnitude < 9_007_199_254_740_992.0 {
        push_integer(out, magnitude as u64);
        return;
    }
    // Not in WebAssembly: the engines module's size is budgeted (docs/internals/wasm-size.md),
    // and this path is a speed-up only.
    #[cfg(not(target_arch = "wasm32"))]
    if let Some((digits, len, n)) = short_decimal(magnitude) {
        push_number_string(out, digits.get(..len).unwrap_or_default(), n);
        return;
    }
    let (s, n) = shortest(magnitude);
    push_number_string(out, &s, n);
}

/// Powers of ten that are exact doubles (`10^0..=10^22`).
#[cfg(not(target_arch = "wasm32"))]
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// [`shortest`] for a value with few decimals (qualities like 89.6 or 0.85), without the exact
/// search: `(digits, how many, n)` as `shortest` answers, or `None` to leave it to `shortest`.
///
/// For `f` = 1, 2, ... fraction digits, the candidates are the integers `r` next to
/// `abs × 10^f`; `r / 10^f` is then computed with both operands exact doubles (`r` below
/// 2^50, `10^f` for `f <= 22`), so the division is IEEE's correctly rounded quotient, and it
/// equals `abs` exactly when the decimal `r × 10^-f` reads back as `abs`. The product is
/// within 1/8 of the exact `abs × 10^f` below 2^50, so every round-tripping `r` is one of
/// the three next to it. The first `f` with one is the fewest fraction digits, hence (the
/// value not being an integer) the fewest significant digits; when two round-trip there,
/// `shortest` picks the nearer. Exact ties are never reached: the integer path took them.
#[cfg(not(target_arch = "wasm32"))]
fn short_decimal(abs: f64) -> Option<([u8; 20], usize, i64)> {
    const LIMIT: f64 = (1u64 << 50) as f64;
    for (f, power) in EXACT_POWERS.iter().enumerate().skip(1) {
        let scaled = abs * power;
        if scaled >= LIMIT {
            return None;
        }
        // Round half up: `scaled` is not an integer's half here in any case that matters,
        // since both neighbours are tried.
        let nearest = (scaled + 0.5) as u64;
        let mut found = None;
        for r in [nearest.wrapping_sub(1), nearest, nearest + 1] {
            if r == u64::MAX || (r as f64) / power != abs {
                continue;
            }
            if found.is_some() {
                return None;
            }
            found = Some(r);
        }
        let Some(r) = found else { continue };
        // The digits of r (without trailing zeros: a shorter f would have found it).
        let mut buf = [0u8; 20];
        let mut start = buf.len();
        let mut v = r;
        while v > 0 {
            start -= 1;
            if let Some(slot) = buf.get_mut(start) {
                *slot = b'0' + (v % 10) as u8;
            }
            v /= 10;
        }
        let len = buf.len() - start;
        let mut digits = [0u8; 20];
        digits.get_mut(..len)?.copy_from_slice(buf.get(start..)?);
        let mut used = len;
        while used > 0 && digits.get(used - 1) == Some(&b'0') {
            used -= 1;
        }
        // 0.s × 10^n = r × 10^-f, with s the len digits of r.
        let n = i64::try_from(len).ok()? - i64::try_from(f).ok()?;
        return Some((digits, used, n));
    }
    None
}

/// Appends the decimal digits of `n`.
fn push_integer(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        start -= 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in digits.iter().skip(start) {
        out.push(char::from(*d));
    }
}

/// Lays out `s × 10^(n - k)` (with `k = s.len()`, `s` without trailing zeros) as ECMAScript's
/// `Number::toString` steps 6–10 prescribe.
fn push_number_string(out: &mut String, s: &[u8], n: i64) {
    let k = i64::try_from(s.len()).unwrap_or(i64::MAX);
    if k <= n && n <= 21 {
        push_digits(out, s);
        for _ in 0..(n - k) {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        let (int_part, frac_part) = s.split_at_checked(usize::try_from(n).unwrap_or(0)).unwrap_or((s, &[]));
        push_digits(out, int_part);
        out.push('.');
        push_digits(out, frac_part);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in 0..(-n) {
            out.push('0');
        }
        push_digits(out, s);
    } else {
        let (first, rest) = s.split_at_checked(1).unwrap_or((s, &[]));
        push_digits(out, first);
        if !rest.is_empty() {
            out.push('.');
            push_digits(out, rest);
        }
        out.push('e');
        let e = n - 1;
        out.push(if e < 0 { '-' } else { '+' });
        push_u64(out, e.unsigned_abs());
    }
}

/// The decimal digits of an unsigned integer, as `n.to_string()` gives them.
///
/// Why not `to_string`: integer `Display` pulls `core::fmt`'s integer formatter and digit
/// table into the size-budgeted WebAssembly build; this reuses the digit loop `toFixed` needs.
///
/// ```
/// assert_eq!(earlyexit::kit::num::uint_string(1234567890123), "1234567890123");
/// ```
#[must_use]
pub fn uint_string(n: u64) -> String {
    let mut out = String::new();
    push_u64(&mut out, n);
    out
}

/// Shortest round-tripping digits of a finite positive double: `(s, n)` with the value
/// `0.s × 10^n` (`s` without trailing zeros), as in ECMAScript's `Number::toString`.
fn shortest(abs: f64) -> (Vec<u8>, i64) {
    let target = abs.to_bits();
    let exact = Exact::of(abs);
    let digits = exact.digits.as_slice();
    let point = i64::try_from(digits.len()).unwrap_or(0) - i64::try_from(exact.frac).unwrap_or(0);
    // Whether some p-digit decimal round-trips is monotone in p (the p-digit neighbours of the
    // value only get closer as p grows), so binary search for the smallest p.
    let (mut lo, mut hi) = (1usize, MAX_SIGNIFICANT_DIGITS);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if round_trip_at(digits, point, mid, target).is_some() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    round_trip_at(digits, point, lo, target).unwrap_or_else(|| {
        // Unreachable in practice: 17 significant digits always round-trip.
        let [nearest, _] = neighbours(digits, point, MAX_SIGNIFICANT_DIGITS);
        nearest
    })
}

/// The p-significant-digit decimal that reads back as `target`, closest to the exact value
/// (`digits`, `point`), if any.
fn round_trip_at(digits: &[u8], point: i64, p: usize, target: u64) -> Option<(Vec<u8>, i64)> {
    neighbours(digits, point, p).into_iter().find(|(s, n)| parses_to(s, *n, target))
}

/// The two p-digit decimals bracketing the exact value, nearest first (ties: even last digit
/// first), each as `(s, n)` with trailing zeros removed. If the value has at most p significant
/// digits both entries are the exact value.
fn neighbours(digits: &[u8], point: i64, p: usize) -> [(Vec<u8>, i64); 2] {
    let Some((head, tail)) = digits.split_at_checked(p) else {
        let exact = trimmed(digits.to_vec(), point);
        return [exact.clone(), exact];
    };
    let first = tail.first().copied().unwrap_or(b'0');
    let rest_nonzero = tail.iter().skip(1).any(|&d| d != b'0');
    if first == b'0' && !rest_nonzero {
        let exact = trimmed(head.to_vec(), point);
        return [exact.clone(), exact];
    }
    let floor = head.to_vec();
    let mut ceil = head.to_vec();
    increment(&mut ceil);
    let ceil_point = if ceil.len() > head.len() {
        ceil.truncate(head.len());
        point + 1
    } else {
        point
    };
    let ceil_first = if first > b'5' || (first == b'5' && rest_nonzero) {
        true
    } else if first == b'5' {
        // An exact tie between the two neighbours: prefer the even one.
        head.last().is_some_and(|&d| (d - b'0') % 2 == 1)
    } else {
        false
    };
    let floor = trimmed(floor, point);
    let ceil = trimmed(ceil, ceil_point);
    if ceil_first {
        [ceil, floor]
    } else {
        [floor, ceil]
    }
}

fn trimmed(mut s: Vec<u8>, n: i64) -> (Vec<u8>, i64) {
    while s.last() == Some(&b'0') {
        s.pop();
    }
    (s, n)
}

/// Whether `0.s × 10^n` reads back (correctly rounded) as the double with bits `target`.
fn parses_to(s: &[u8], n: i64, target: u64) -> bool {
    from_digits(s, n).to_bits() == target
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn to_fixed_ties_round_half_away_from_zero() {
        assert_eq!(to_fixed(0.25, 1), "0.3");
        assert_eq!(to_fixed(2.5, 0), "3");
        assert_eq!(to_fixed(-2.5, 0), "-3");
        assert_eq!(to_fixed(0.5, 0), "1");
        assert_eq!(to_fixed(1.5, 0), "2");
        assert_eq!(to_fixed(10.5, 0), "11");
        assert_eq!(to_fixed(0.125, 2), "0.13");
        assert_eq!(to_fixed(0.0625, 3), "0.063");
        assert_eq!(to_fixed(-0.125, 2), "-0.13");
    }

    #[test]
    fn to_fixed_uses_exact_binary_value() {
        assert_eq!(to_fixed(1.005, 2), "1.00");
        assert_eq!(to_fixed(1.45, 1), "1.4");
        assert_eq!(to_fixed(8.345, 2), "8.35");
        assert_eq!(to_fixed(0.1, 20), "0.10000000000000000555");
        assert_eq!(to_fixed(123.456, 0), "123");
        assert_eq!(to_fixed(99.99, 1), "100.0");
        assert_eq!(to_fixed(0.07 * 100.0, 2), "7.00");
    }

    #[test]
    fn to_fixed_signs_and_zero() {
        assert_eq!(to_fixed(-0.0, 1), "0.0");
        assert_eq!(to_fixed(0.0, 0), "0");
        assert_eq!(to_fixed(0.0, 3), "0.000");
        assert_eq!(to_fixed(-0.01, 1), "-0.0");
        assert_eq!(to_fixed(-0.04, 1), "-0.0");
        assert_eq!(to_fixed(-0.05, 1), "-0.1");
        assert_eq!(to_fixed(-1e-300, 0), "-0");
        assert_eq!(to_fixed(0.001, 2), "0.00");
        assert_eq!(to_fixed(0.009, 2), "0.01");
    }

    #[test]
    fn to_fixed_non_finite_and_large() {
        assert_eq!(to_fixed(f64::NAN, 2), "NaN");
        assert_eq!(to_fixed(f64::INFINITY, 2), "Infinity");
        assert_eq!(to_fixed(f64::NEG_INFINITY, 0), "-Infinity");
        assert_eq!(to_fixed(1e21, 2), "1e+21");
        assert_eq!(to_fixed(-1e21, 2), "-1e+21");
        assert_eq!(to_fixed(f64::MAX, 5), "1.7976931348623157e+308");
        assert_eq!(to_fixed(999_999_999_999_999_900_000.0, 1), "999999999999999868928.0");
        assert_eq!(to_fixed(5e-324, 2), "0.00");
        assert_eq!(to_fixed(5e-324, 100), format!("0.{}", "0".repeat(100)));
        // Out-of-range fraction digits behave like 100 (JavaScript would throw).
        assert_eq!(to_fixed(1.0, 101), to_fixed(1.0, 100));
        assert_eq!(to_fixed(1.0, u32::MAX), to_fixed(1.0, 100));
    }

    #[test]
    fn short_decimals_take_the_fast_path() {
        for (x, text) in [(89.6, "89.6"), (0.85, "0.85"), (72.35, "72.35"), (1.5e-7, "1.5e-7"), (0.1, "0.1")] {
            assert!(short_decimal(x).is_some(), "{x}");
            assert_eq!(to_js_string(x), text);
            assert_eq!(to_js_string(-x), format!("-{text}"));
        }
        // 17 significant digits: the exact search.
        assert_eq!(to_js_string(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn to_js_string_basics() {
        assert_eq!(to_js_string(0.0), "0");
        assert_eq!(to_js_string(-0.0), "0");
        assert_eq!(to_js_string(f64::NAN), "NaN");
        assert_eq!(to_js_string(f64::INFINITY), "Infinity");
        assert_eq!(to_js_string(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(to_js_string(100.0), "100");
        assert_eq!(to_js_string(-42.0), "-42");
        assert_eq!(to_js_string(0.1), "0.1");
        assert_eq!(to_js_string(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(to_js_string(0.07 * 100.0), "7.000000000000001");
        assert_eq!(to_js_string(123_456_789_012_345_680_000.0), "123456789012345680000");
        assert_eq!(to_js_string(9_007_199_254_740_993.0), "9007199254740992");
    }

    #[test]
    fn to_js_string_exponent_boundaries() {
        assert_eq!(to_js_string(1e21), "1e+21");
        assert_eq!(to_js_string(999_999_999_999_999_900_000.0), "999999999999999900000");
        assert_eq!(to_js_string(1.5e300), "1.5e+300");
        assert_eq!(to_js_string(1e-6), "0.000001");
        assert_eq!(to_js_string(1.5e-6), "0.0000015");
        assert_eq!(to_js_string(1e-7), "1e-7");
        assert_eq!(to_js_string(1.5e-7), "1.5e-7");
        assert_eq!(to_js_string(-1.5e-7), "-1.5e-7");
        assert_eq!(to_js_string(5e-324), "5e-324");
        assert_eq!(to_js_string(2.225_073_858_507_201_4e-308), "2.2250738585072014e-308");
        assert_eq!(to_js_string(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(to_js_string(f64::MIN), "-1.7976931348623157e+308");
    }

    #[test]
    fn push_variants_append() {
        let mut s = String::from("x=");
        push_js_string(&mut s, 2.5);
        s.push(' ');
        push_fixed(&mut s, 2.5, 0);
        assert_eq!(s, "x=2.5 3");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn to_js_string_round_trips(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            let s = to_js_string(x);
            if x.is_nan() {
                prop_assert_eq!(s, "NaN");
            } else if x == 0.0 {
                prop_assert_eq!(s, "0");
            } else {
                let back: f64 = s.parse().unwrap();
                prop_assert_eq!(back.to_bits(), bits, "{} -> {}", bits, s);
            }
        }

        #[test]
        fn short_decimals_match_the_exact_search(bits in any::<u64>()) {
            let x = f64::from_bits(bits).abs();
            if x.is_finite() && x > 0.0 {
                if let Some((digits, len, n)) = short_decimal(x) {
                    prop_assert_eq!((digits[..len].to_vec(), n), shortest(x), "{}", x);
                }
            }
        }

        #[test]
        fn short_decimals_of_few_digits_match(r in 1u64..100_000_000_000, f in 1usize..=12) {
            let x = r as f64 / EXACT_POWERS[f];
            if x.fract() != 0.0 {
                let fast = short_decimal(x).map(|(digits, len, n)| (digits[..len].to_vec(), n));
                prop_assert_eq!(fast.clone().unwrap_or_else(|| shortest(x)), shortest(x), "{} {:?}", x, fast);
            }
        }

        #[test]
        fn to_fixed_never_panics(bits in any::<u64>(), digits in 0u32..=120) {
            let x = f64::from_bits(bits);
            let s = to_fixed(x, digits);
            prop_assert!(!s.is_empty());
            if x.is_finite() && x.abs() < 1e21 {
                let f = digits.min(100) as usize;
                let frac_len = s.rsplit_once('.').map_or(0, |(_, b)| b.len());
                prop_assert_eq!(frac_len, f);
            }
        }

        #[test]
        fn to_fixed_of_moderate_values_parses_close(x in -1e6f64..1e6, digits in 0u32..=10) {
            let s = to_fixed(x, digits);
            let back: f64 = s.parse().unwrap();
            prop_assert!((back - x).abs() <= 0.5 * 10f64.powi(-i32::try_from(digits).unwrap()) * (1.0 + 1e-9) + 1e-9);
        }
    }
}
