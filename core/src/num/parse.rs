//! Correctly rounded decimal-to-double conversion without lookup tables.
//!
//! Why not `str::parse::<f64>`: core's implementation (Eisel-Lemire) carries an 11 KB table of
//! 128-bit powers of five plus ~4 KB of code, which compresses badly and was a fifth of the
//! WebAssembly module's gzipped size. This module gives the same results (IEEE round to
//! nearest, ties to even; checked against `str::parse` on millions of inputs in the tests)
//! with two small pieces:
//!
//! * Clinger's fast path: when the significand fits 53 bits and the power of ten is at most
//!   `10^22` (both exact as doubles) one IEEE multiplication or division rounds correctly.
//!   That covers the numbers JSON usually carries (up to 15-16 significant digits).
//! * Otherwise an approximation refined by exact comparison: the input is compared with the
//!   exact decimal expansion of the midpoint between two neighbouring doubles (the big-integer
//!   expansion `exact` gives, which the formatting uses for `toFixed`); the answer is the double whose two
//!   midpoints bracket the input. A gallop-then-bisect search over the bit patterns (which
//!   are ordered like the values) finds it in two comparisons when the approximation is right
//!   and in a few dozen in the worst case (deep subnormals).

use std::cmp::Ordering;

use crate::num::exact::exact_decimal;

/// Bit pattern of positive infinity; every finite positive double's pattern is below it.
const INF_BITS: u64 = 0x7ff0_0000_0000_0000;

/// Exact powers of ten as doubles (10^22 is the largest one a double holds exactly).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`) into the nearest
/// double, as `str::parse::<f64>` does for that syntax. `None` for anything else.
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    let mut bytes = text.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    if matches!(bytes.first(), Some(b'-' | b'+')) {
        bytes = bytes.get(1..)?;
    }
    let int_len = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int, rest) = bytes.split_at_checked(int_len)?;
    let (frac, rest) = match rest.split_first() {
        Some((b'.', after)) => {
            let n = after.iter().take_while(|b| b.is_ascii_digit()).count();
            after.split_at_checked(n)?
        }
        _ => (&[][..], rest),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let exp = match rest.split_first() {
        None => 0,
        Some((b'e' | b'E', after)) => {
            let (exp_negative, digits) = match after.split_first() {
                Some((b'-', d)) => (true, d),
                Some((b'+', d)) => (false, d),
                _ => (false, after),
            };
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            // Saturate: any exponent beyond ±10^15 already means zero or infinity.
            let magnitude = digits.iter().fold(0i64, |acc, &d| (acc * 10 + i64::from(d - b'0')).min(1 << 50));
            if exp_negative {
                -magnitude
            } else {
                magnitude
            }
        }
        Some(_) => return None,
    };
    // Significant digits: `int ++ frac` without leading and trailing zeros; the value is
    // 0.digits × 10^point.
    // (Index loops over the two slices: chained iterators cost ~1.3 KB of WebAssembly.)
    let total = int.len() + frac.len();
    let at = |i: usize| if i < int.len() { int.get(i) } else { frac.get(i - int.len()) }.copied().unwrap_or(b'0');
    let leading = (0..total).take_while(|&i| at(i) == b'0').count();
    let end = (leading..total).rev().find(|&i| at(i) != b'0').map_or(leading, |i| i + 1);
    let point = i64::try_from(int.len()).unwrap_or(0) - i64::try_from(leading).unwrap_or(0) + exp;
    let split = int.len().clamp(leading, end);
    let head = int.get(leading..split).unwrap_or_default();
    let tail = frac.get(split - int.len().min(split)..end.saturating_sub(int.len())).unwrap_or_default();
    let magnitude = from_parts(head, tail, point);
    Some(if negative { -magnitude } else { magnitude })
}

/// The double nearest to `0.digits × 10^point`, for ASCII `digits` without leading zeros.
pub(crate) fn from_digits(digits: &[u8], point: i64) -> f64 {
    from_parts(digits, &[], point)
}

/// [`from_digits`] of the digits `a ++ b`.
fn from_parts(a: &[u8], b: &[u8], point: i64) -> f64 {
    let count = a.len() + b.len();
    if count == 0 {
        return 0.0;
    }
    // 0.d × 10^point < 10^-324 rounds to zero (the smallest subnormal is 4.9e-324 and half of
    // it 2.47e-324); >= 10^309 is past the largest double (1.8e308).
    if point < -324 {
        return 0.0;
    }
    if point > 310 {
        return f64::INFINITY;
    }
    // The first (up to) 19 digits as an integer: `head × 10^(point - used)`.
    let used = count.min(19);
    let digit = |i: usize| if i < a.len() { a.get(i) } else { b.get(i - a.len()) }.copied().unwrap_or(b'0');
    let head = (0..used).fold(0u64, |acc, i| acc * 10 + u64::from(digit(i) - b'0'));
    let e = point - i64::try_from(used).unwrap_or(0);
    if used == count && head <= 1 << 53 {
        // Clinger's fast path: both operands exact, so the one rounding is the right one.
        if (0..=22).contains(&e) {
            return head as f64 * pow10(e);
        }
        if (-22..0).contains(&e) {
            return head as f64 / pow10(-e);
        }
    }
    if used == count {
        if let Some(x) = exact_u128(head, e) {
            return x;
        }
    }
    let approx = approximate(head, e);
    let mut digits = a.to_vec();
    digits.extend_from_slice(b);
    nearest(&digits, point, approx)
}

/// `head × 10^e` correctly rounded with 128-bit integer arithmetic, for `e` in `-21..=19`:
/// the typical 17-digit JSON number (`0.30000000000000004`) takes this path, not the search.
fn exact_u128(head: u64, e: i64) -> Option<f64> {
    if e >= 0 {
        // head < 2^64 and 10^19 < 2^64: the product is exact.
        let ten = 10u64.checked_pow(u32::try_from(e).ok()?)?;
        return Some(round_u128(u128::from(head) * u128::from(ten), false, 0));
    }
    if e < -21 {
        return None;
    }
    // Shift the dividend to the top so the quotient keeps >= 58 bits (10^21 < 2^70); the
    // remainders only matter as "something below the last bit". Long division by 10^k in
    // steps of at most 10^9 over 32-bit limbs (a 128-bit division would pull ~1 KB of
    // compiler builtins into the WebAssembly module).
    let shift = u128::from(head).leading_zeros();
    let dividend = u128::from(head) << shift;
    let mut limbs = [(dividend >> 96) as u32, (dividend >> 64) as u32, (dividend >> 32) as u32, dividend as u32];
    let mut sticky = false;
    let mut k = e.unsigned_abs();
    while k > 0 {
        let step = k.min(9);
        let divisor = 10u64.pow(u32::try_from(step).ok()?);
        let mut rem = 0u64;
        for limb in &mut limbs {
            let cur = (rem << 32) | u64::from(*limb);
            *limb = (cur / divisor) as u32;
            rem = cur % divisor;
        }
        sticky |= rem != 0;
        k -= step;
    }
    let quotient = limbs.iter().fold(0u128, |acc, &l| (acc << 32) | u128::from(l));
    Some(round_u128(quotient, sticky, -i32::try_from(shift).ok()?))
}

/// `(q + f) × 2^scale` rounded to nearest, ties to even, where `0 <= f < 1` and `sticky` says
/// whether `f > 0`. Callers keep the result a normal double.
fn round_u128(q: u128, sticky: bool, scale: i32) -> f64 {
    let bits = 128 - q.leading_zeros();
    let (mut mantissa, mut exp) = (q, scale);
    if bits > 53 {
        let drop = bits - 53;
        mantissa = q >> drop;
        let rest = q & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        if rest > half || (rest == half && (sticky || mantissa & 1 == 1)) {
            mantissa += 1;
        }
        exp += i32::try_from(drop).unwrap_or(0);
    }
    // mantissa <= 2^53 is exact as a double; scaling by a power of two in range is exact.
    (mantissa as f64) * pow2(exp)
}

/// `2^exp` for `exp` in the normal range.
fn pow2(exp: i32) -> f64 {
    f64::from_bits(u64::try_from(exp + 1023).unwrap_or(0) << 52)
}

fn pow10(e: i64) -> f64 {
    POW10.get(usize::try_from(e).unwrap_or(0)).copied().unwrap_or(1.0)
}

/// `head × 10^e` in floating point: within a few units in the last place for normal results,
/// which is all the search needs (it corrects any error, only more slowly).
fn approximate(head: u64, mut e: i64) -> f64 {
    let mut x = head as f64;
    while e > 22 {
        x *= 1e22;
        e -= 22;
    }
    while e < -22 {
        x /= 1e22;
        e += 22;
    }
    if e >= 0 {
        x * pow10(e)
    } else {
        x / pow10(-e)
    }
}

/// The double whose rounding interval holds `0.digits × 10^point`, searching from `approx`.
fn nearest(digits: &[u8], point: i64, approx: f64) -> f64 {
    // `rounds_to_at_most(b)`: the input rounds to the double with bits <= b. Monotone in b.
    let at_most = |bits: u64| -> bool {
        if bits >= INF_BITS {
            return true;
        }
        match compare(digits, point, bits) {
            Ordering::Less => true,
            Ordering::Equal => bits % 2 == 0,
            Ordering::Greater => false,
        }
    };
    let start = if approx.is_finite() { approx.to_bits() } else { INF_BITS - 1 };
    // Bracket the answer in (lo, hi] with at_most(hi) true and at_most(lo) false (or lo
    // "below zero"), galloping away from the start.
    let (mut lo, mut hi): (Option<u64>, u64);
    let mut step = 1u64;
    if at_most(start) {
        hi = start;
        loop {
            match hi.checked_sub(step) {
                None => {
                    lo = None;
                    break;
                }
                Some(candidate) if at_most(candidate) => {
                    hi = candidate;
                    step *= 2;
                }
                Some(candidate) => {
                    lo = Some(candidate);
                    break;
                }
            }
        }
    } else {
        let mut below = start;
        loop {
            let candidate = below.saturating_add(step).min(INF_BITS);
            if at_most(candidate) {
                hi = candidate;
                lo = Some(below);
                break;
            }
            below = candidate;
            step *= 2;
        }
    }
    // Bisect: the answer is the smallest b with at_most(b).
    loop {
        let floor = lo.map_or(0, |l| l + 1);
        if floor >= hi {
            return f64::from_bits(hi);
        }
        let mid = floor + (hi - floor) / 2;
        if at_most(mid) {
            hi = mid;
        } else {
            lo = Some(mid);
        }
    }
}

/// Compares `0.digits × 10^point` with the midpoint between the finite double with bits
/// `bits` and the next one up, exactly.
fn compare(digits: &[u8], point: i64, bits: u64) -> Ordering {
    let biased = (bits >> 52) & 0x7ff;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exp) = if biased == 0 { (fraction, -1074) } else { (fraction | (1 << 52), biased as i32 - 1075) };
    // The midpoint is (2m + 1) × 2^(exp - 1).
    let (mid_digits, mid_point) = exact_decimal(2 * mantissa + 1, exp - 1);
    point.cmp(&mid_point).then_with(|| {
        let len = digits.len().max(mid_digits.len());
        let pad = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(b'0');
        // A plain loop (no Map/find iterator instantiation in the wasm module).
        for i in 0..len {
            let order = pad(digits, i).cmp(&pad(&mid_digits, i));
            if order.is_ne() {
                return order;
            }
        }
        Ordering::Equal
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// Cases per generated family; `EARLYEXIT_FLOAT_PARSE_CASES` raises it (the size pass ran
    /// it with 1,000,000 in release mode, ~8 million inputs: all agreed with `str::parse`).
    fn cases() -> u64 {
        std::env::var("EARLYEXIT_FLOAT_PARSE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000)
    }

    /// xorshift64*: deterministic, dependency-free.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[track_caller]
    fn agrees(text: &str) {
        let want = text.parse::<f64>().unwrap();
        let got = parse_f64(text).unwrap_or_else(|| panic!("rejected {text}"));
        assert_eq!(got.to_bits(), want.to_bits(), "{text}: got {got:e}, want {want:e}");
    }

    /// A random finite double, biased to cover every exponent evenly.
    fn random_double(rng: &mut Rng) -> f64 {
        loop {
            let x = f64::from_bits(rng.next() & !(1 << 63));
            if x.is_finite() {
                return x;
            }
        }
    }

    /// The exact midpoint between `x` and the next double up, as decimal text.
    fn midpoint_text(x: f64) -> String {
        let bits = x.to_bits();
        let biased = (bits >> 52) & 0x7ff;
        let fraction = bits & ((1u64 << 52) - 1);
        let (m, e) = if biased == 0 { (fraction, -1074) } else { (fraction | (1 << 52), biased as i32 - 1075) };
        let (digits, point) = exact_decimal(2 * m + 1, e - 1);
        format!("0.{}e{}", std::str::from_utf8(&digits).unwrap(), point)
    }

    #[test]
    fn edge_cases_agree_with_str_parse() {
        for text in [
            "0",
            "-0",
            "0.0",
            "-0.0e-5",
            "0e999999999999999999",
            "1",
            "-1",
            "1.5",
            ".5",
            "5.",
            "+7",
            "000123.4500e-2",
            "1e22",
            "1e23",
            "9007199254740992",
            "9007199254740993",
            "9007199254740995",
            "123456789012345678901234567890",
            "0.30000000000000004",
            "0.1",
            "0.2",
            "0.3",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "4.9406564584124654e-324",
            "5e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.47032822920623272e-324",
            "1e-324",
            "1e-400",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1.797693134862315807e308",
            "1.797693134862315808e308",
            "1e309",
            "1e400",
            "1e-999999999999999999999",
            "1e999999999999999999999",
            "7.038531e-26",
            "8.98846567431158e307",
            "4503599627370496.5",
            "4503599627370497.5",
            "9007199254740993.0000000000000000000000001",
            "0.000000000000000000000000000000000000000000001e45",
        ] {
            agrees(text);
        }
        agrees(&format!("1{}e-400", "0".repeat(400)));
        agrees(&format!("0.{}1e330", "0".repeat(700)));
        // Exact ties: half the smallest subnormal (rounds to 0), the overflow threshold (to
        // infinity), and the tie just above the smallest normal.
        agrees(&midpoint_text(0.0));
        agrees(&midpoint_text(f64::MAX));
        agrees(&midpoint_text(f64::MIN_POSITIVE));
        assert_eq!(parse_f64(""), None);
        assert_eq!(parse_f64("-"), None);
        assert_eq!(parse_f64("."), None);
        assert_eq!(parse_f64("1e"), None);
        assert_eq!(parse_f64("1e+"), None);
        assert_eq!(parse_f64("1x"), None);
        assert_eq!(parse_f64("e5"), None);
    }

    #[test]
    fn random_doubles_round_trip_in_every_notation() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..cases() {
            let x = random_double(&mut rng);
            agrees(&format!("{x}"));
            agrees(&format!("{x:e}"));
            agrees(&format!("{x:.16e}"));
            agrees(&format!("{x:.15e}"));
            agrees(&format!("{:.4e}", x));
        }
    }

    #[test]
    fn near_halfway_inputs_agree_with_str_parse() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..cases() / 4 {
            let x = random_double(&mut rng);
            let mid = midpoint_text(x);
            agrees(&mid);
            // Just above the midpoint, and the midpoint cut to fewer digits (just below it).
            let (digits, exp) = mid.split_once('e').unwrap();
            agrees(&format!("{digits}1e{exp}"));
            let cut = 3 + usize::try_from(rng.below(30)).unwrap();
            if cut < digits.len() {
                agrees(&format!("{}e{exp}", &digits[..cut]));
            }
        }
    }

    #[test]
    fn moderate_magnitudes_agree_with_str_parse() {
        // 2^-70 .. 2^80: the range of everyday numbers, where the 128-bit path decides.
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        for _ in 0..cases() {
            let exp = 1023 - 70 + rng.below(150);
            let x = f64::from_bits((exp << 52) | (rng.next() >> 12));
            agrees(&format!("{x}"));
            agrees(&format!("{x:.16e}"));
            agrees(&format!("{x:.17e}"));
            agrees(&format!("{x:.18e}"));
            let mid = midpoint_text(x);
            agrees(&mid);
            let (digits, exp) = mid.split_once('e').unwrap();
            agrees(&format!("{digits}1e{exp}"));
            for cut in [19, 20, 21] {
                if cut < digits.len() {
                    agrees(&format!("{}e{exp}", &digits[..cut]));
                }
            }
        }
    }

    #[test]
    fn random_digit_strings_agree_with_str_parse() {
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        for _ in 0..cases() {
            let long = rng.below(10) == 0;
            let len = 1 + rng.below(if long { 60 } else { 22 });
            let digits: String = (0..len).map(|_| char::from(b'0' + rng.below(10) as u8)).collect();
            let exp = i64::try_from(rng.below(700)).unwrap() - 360;
            agrees(&format!("{digits}e{exp}"));
            let split = usize::try_from(rng.below(len)).unwrap();
            agrees(&format!("-{}.{}e{exp}", &digits[..split], &digits[split..]));
            // Small exponents: the fast path and its edges.
            let small = i64::try_from(rng.below(60)).unwrap() - 30;
            agrees(&format!("{digits}e{small}"));
        }
    }
}
