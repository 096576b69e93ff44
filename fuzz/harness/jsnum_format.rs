//! Target `jsnum_format`: JavaScript number formatting and the JSON reader/writer against
//! independent reference properties.
//!
//! * `to_js_string(x)` reads back (Rust's correctly rounded `str::parse::<f64>`) as `x`
//!   bit for bit (except -0, printed "0"), and it equals the ECMAScript `Number::toString`
//!   of a reference built from Rust's formatting: as many digits as Rust's shortest
//!   round-trip form (`{:e}`), chosen as the closest to the exact value (`{:.1100e}`) with
//!   ties to even, laid out by the spec's rules.
//! * `to_fixed(x, f)` for f in 0..=100 equals rounding the exact decimal expansion of `x`
//!   (Rust's `{:.1074}`, exact for every f64) half away from zero at `f` digits, and the
//!   ECMAScript fallbacks (`ToString` at |x| >= 1e21 or non-finite, no "-" for -0).
//! * Both equal ryu-js's `Buffer::format` / `format_to_fixed` (a second, independent
//!   implementation; its toFixed is left out where it is wrong, see `ryu_oracle`).
//! * JSON: any value tree written and read back equals the tree as `JSON.stringify` sees
//!   it, the writer is idempotent, and text `serde_json` accepts is accepted here too and
//!   round-trips.

use super::{gen, ryu_oracle};
use arbitrary::{Result, Unstructured};
use earlyexit::kit::num::{to_fixed, to_js_string};
use earlyexit::{ErrorCode, Value};

/// Runs one input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = drive(&mut u);
}

fn drive(u: &mut Unstructured) -> Result<()> {
    let count = u.int_in_range(1usize..=8)?;
    for _ in 0..count {
        let x = gen::number(u)?;
        check_to_string(x);
        check_to_fixed(x, u.int_in_range(0u32..=100)?);
    }
    match u.int_in_range(0u8..=2)? {
        0 => check_json_value(&gen::value(u, 4)?),
        1 => check_json_text(&u.arbitrary::<String>()?),
        _ => {
            // text made of JSON-ish tokens gets much further than arbitrary characters
            let len = u.int_in_range(0usize..=64)?;
            let mut text = String::new();
            for _ in 0..len {
                text.push_str(u.choose(&[
                    "{", "}", "[", "]", ",", ":", "\"", "\"a\"", "\\u", "\\ud800", "\\udc00", "d83d", "\\n", "0", "-",
                    "1", "9", ".", "e", "E", "+", "1e400", "-0", "5e-324", "true", "false", "null", " ", "\t",
                    "\u{e9}",
                ])?);
            }
            check_json_text(&text);
        }
    }
    Ok(())
}

/// The ECMAScript layout of a shortest decimal `0.d1d2..dk × 10^n`.
fn js_layout(digits: &str, n: i32) -> String {
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        [digits, &"0".repeat((n - k) as usize)].concat()
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        [int, ".", frac].concat()
    } else if -6 < n && n <= 0 {
        ["0.", &"0".repeat((-n) as usize), digits].concat()
    } else {
        let e = n - 1;
        let sign = if e < 0 { "-" } else { "+" };
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() { first.to_string() } else { [first, ".", rest].concat() };
        format!("{mantissa}e{sign}{}", e.abs())
    }
}

/// `Number::toString` as the spec defines it, with Rust's shortest digits.
fn reference_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    // k, the fewest significant digits that read back as x, from Rust's shortest formatting.
    let sci = format!("{:e}", x.abs());
    let (mantissa, _) = sci.split_once('e').unwrap_or_else(|| panic!("{sci}"));
    let k = mantissa.chars().filter(char::is_ascii_digit).count();
    // The digits: of the two k-digit decimals around x (the exact expansion `{:.1100e}`
    // cut, and cut plus one unit), those that read back as x; of those the closer, ties to
    // even (ECMAScript's rule; Rust's shortest formatting breaks such ties the other way).
    // Near a power of two the read-back interval is lopsided, so the closer one may not
    // read back: hence the filter.
    let exact = format!("{:.1100e}", x.abs());
    let (mantissa, exponent) = exact.split_once('e').unwrap_or_else(|| panic!("{exact}"));
    let exponent: i32 = exponent.parse().unwrap_or_else(|_| panic!("{exact}"));
    let all: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let down = all[..k].to_vec();
    let rest = &all[k..];
    let mut up = down.clone();
    let up_exponent = if increment(&mut up) { exponent + 1 } else { exponent };
    let reads_back = |digits: &[u8], e: i32| {
        let text = format!("0.{}e{}", String::from_utf8_lossy(digits), e + 1);
        text.parse::<f64>().is_ok_and(|y| y == x.abs())
    };
    let exact_tail = rest.iter().any(|d| *d != b'0');
    let prefer_up = match rest.first() {
        Some(b'6'..=b'9') => true,
        Some(b'5') => rest[1..].iter().any(|d| *d != b'0') || down[k - 1] % 2 == 1,
        _ => false,
    };
    let (mut digits, exponent) = match (exact_tail && reads_back(&down, exponent), reads_back(&up, up_exponent)) {
        _ if !exact_tail => (down, exponent),
        (true, true) => {
            if prefer_up {
                (up, up_exponent)
            } else {
                (down, exponent)
            }
        }
        (true, false) => (down, exponent),
        (false, true) => (up, up_exponent),
        (false, false) => panic!("no {k}-digit form of {x:e} reads back"),
    };
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    let digits = String::from_utf8(digits).unwrap_or_default();
    let sign = if x < 0.0 { "-" } else { "" };
    [sign, &js_layout(&digits, exponent + 1)].concat()
}

/// Adds one unit in the last place of a decimal digit string; true when it carried out of
/// the first digit (the string is then "1" followed by zeros, one digit longer).
fn increment(digits: &mut Vec<u8>) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    digits.insert(0, b'1');
    digits.pop();
    true
}

/// Checks `to_js_string` against the reference properties.
pub fn check_to_string(x: f64) {
    let s = to_js_string(x);
    if x.is_finite() {
        let back: f64 = s.parse().unwrap_or_else(|_| panic!("to_js_string({x:e}) = {s:?} does not parse"));
        if x == 0.0 {
            assert_eq!(s, "0", "zero (either sign) prints as 0");
        } else {
            assert_eq!(back.to_bits(), x.to_bits(), "to_js_string({x:e}) = {s:?} reads back as {back:e}");
        }
    }
    assert_eq!(s, reference_to_string(x), "to_js_string({:?} bits {:#x})", x, x.to_bits());
    assert_eq!(s, ryu_oracle::to_string(x), "to_js_string({:?} bits {:#x}) against ryu-js", x, x.to_bits());
}

/// `Number.prototype.toFixed(f)` from the exact decimal expansion.
fn reference_to_fixed(x: f64, f: u32) -> String {
    if !x.is_finite() {
        return reference_to_string(x);
    }
    let negative = x < 0.0;
    let a = x.abs();
    if a >= 1e21 {
        return [if negative { "-" } else { "" }, &reference_to_string(a)].concat();
    }
    let exact = format!("{a:.1074}");
    let (int, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let f = f as usize;
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes().take(f)).collect();
    if frac.as_bytes().get(f).is_some_and(|d| *d >= b'5') {
        // half away from zero: any tail starting with 5 or more rounds up
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - f;
    let (int, frac) = digits.split_at(split);
    let mut out = String::from(if negative { "-" } else { "" });
    out.push_str(std::str::from_utf8(int).unwrap_or("?"));
    if f > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(frac).unwrap_or("?"));
    }
    out
}

/// Checks `to_fixed` against the reference and its digit properties.
pub fn check_to_fixed(x: f64, f: u32) {
    let s = to_fixed(x, f);
    assert_eq!(s, reference_to_fixed(x, f), "to_fixed({:?} bits {:#x}, {f})", x, x.to_bits());
    if let Ok(d) = u8::try_from(f) {
        if d <= 100 && ryu_oracle::to_fixed_is_reliable(x, d) {
            assert_eq!(s, ryu_oracle::to_fixed(x, d), "to_fixed({:?} bits {:#x}, {f}) against ryu-js", x, x.to_bits());
        }
    }
    if x.is_finite() && x.abs() < 1e21 {
        let fraction = s.split_once('.').map_or(0, |(_, frac)| frac.len());
        assert_eq!(fraction, f as usize, "to_fixed({x:e}, {f}) = {s:?} has the wrong number of digits");
    }
}

/// A value as `JSON.stringify` then `JSON.parse` give it back.
fn as_json_sees_it(value: &Value) -> Value {
    match value {
        Value::Number(n) if !n.is_finite() => Value::Null,
        Value::Number(n) if *n == 0.0 => Value::Number(0.0),
        Value::Other(_) => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(as_json_sees_it).collect()),
        Value::Object(entries) => Value::Object(
            entries
                .iter()
                .filter(|(_, v)| !matches!(v, Value::Other(_)))
                .map(|(k, v)| (k.clone(), as_json_sees_it(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Writer then reader: the tree comes back as JSON sees it, and the text is stable.
pub fn check_json_value(value: &Value) {
    let text = value.to_json();
    let parsed = Value::parse_json(&text, ErrorCode::InvalidSnapshot, "snapshot")
        .unwrap_or_else(|e| panic!("the writer's output does not parse: {e:?}\n{text}"));
    assert!(gen::identical(&parsed, &as_json_sees_it(value)), "JSON round trip changed the value\n{text}");
    assert_eq!(parsed.to_json(), text, "JSON writer not idempotent");
}

fn depth(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        serde_json::Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Reader then writer on arbitrary text; differential acceptance against `serde_json`.
pub fn check_json_text(text: &str) {
    let ours = Value::parse_json(text, ErrorCode::InvalidSnapshot, "snapshot");
    if let Ok(theirs) = serde_json::from_str::<serde_json::Value>(text) {
        assert!(
            ours.is_ok() || depth(&theirs) > 256,
            "serde_json accepts what this parser rejects: {text:?}: {:?}",
            ours.as_ref().err()
        );
    }
    match ours {
        Ok(value) => {
            check_json_value(&value);
            if let Value::Number(n) = value {
                let expected: f64 = text.trim_matches([' ', '\t', '\n', '\r']).parse().unwrap_or(f64::NAN);
                assert_eq!(n.to_bits(), expected.to_bits(), "number {text:?} parsed as {n:e}");
            }
        }
        Err(e) => {
            assert_eq!(e.error_code(), ErrorCode::InvalidSnapshot);
            assert_eq!(e.field(), "snapshot");
        }
    }
}
