//! RFC 3339 date-time validation for iteration timestamps, and formatting of "now" the way
//! JavaScript's `new Date().toISOString()` does. The core has no clock: a binding passes the
//! current time in milliseconds since the Unix epoch.

/// Whether `s` is an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS[.fraction]` then `Z` or
/// `±HH:MM` (`T`/`Z` in either case). Calendar-checked (Feb 29 only in leap years).
pub fn is_rfc3339(s: &str) -> bool {
    is_rfc3339_bytes(s.as_bytes())
}

/// [`is_rfc3339`] over bytes (a date-time is ASCII), for a caller that holds the text as
/// bytes: the JS fast path, which would otherwise check its bytes are UTF-8 first (~0.7 KB of
/// WebAssembly for a check that cannot fail on ASCII).
pub fn is_rfc3339_bytes(b: &[u8]) -> bool {
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(range)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(part.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0')))
    };
    let at = |i: usize| b.get(i).copied();
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) =
        (digits(0..4), digits(5..7), digits(8..10), digits(11..13), digits(14..16), digits(17..19))
    else {
        return false;
    };
    if at(4) != Some(b'-') || at(7) != Some(b'-') || !matches!(at(10), Some(b'T' | b't')) {
        return false;
    }
    if at(13) != Some(b':') || at(16) != Some(b':') {
        return false;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    // RFC 3339 allows second 60 (a leap second).
    if day == 0 || day > days_in_month || hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 19;
    if at(i) == Some(b'.') {
        i += 1;
        let start = i;
        while at(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match at(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let (Some(oh), Some(om)) = (digits(i + 1..i + 3), digits(i + 4..i + 6)) else {
                return false;
            };
            at(i + 3) == Some(b':') && oh <= 23 && om <= 59 && i + 6 == b.len()
        }
        _ => false,
    }
}

/// Milliseconds since the Unix epoch of an RFC 3339 date-time ([`is_rfc3339`]), the offset
/// applied; a fraction beyond milliseconds is cut (as `Date.parse` does), a leap second
/// counts as second 59. `None` when `s` is not RFC 3339.
pub fn millis_from_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if !is_rfc3339_bytes(b) {
        return None;
    }
    let number = |range: std::ops::Range<usize>| -> i64 {
        b.get(range).map_or(0, |part| part.iter().fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')))
    };
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let (hour, minute, second) = (number(11..13), number(14..16), number(17..19).min(59));
    let mut i = 19;
    let mut millis = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let mut scale = 100;
        while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
            millis += i64::from(d - b'0') * scale;
            scale /= 10;
            i += 1;
        }
    }
    let offset_minutes = match b.get(i) {
        Some(b'+') => number(i + 1..i + 3) * 60 + number(i + 4..i + 6),
        Some(b'-') => -(number(i + 1..i + 3) * 60 + number(i + 4..i + 6)),
        _ => 0,
    };
    // Days-from-civil (Howard Hinnant's algorithm), the inverse of `iso_from_millis`'s.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

/// Formats milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.sssZ`, exactly as
/// `new Date(ms).toISOString()` does for years 0..=9999 (outside that range JS uses
/// six-digit years; so does this).
pub fn iso_from_millis(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    // Civil-from-days (Howard Hinnant's algorithm), proleptic Gregorian.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut out = String::with_capacity(24);
    if (0..=9999).contains(&year) {
        push_padded(&mut out, year, 4);
    } else {
        out.push(if year < 0 { '-' } else { '+' });
        push_padded(&mut out, year.abs(), 6);
    }
    out.push('-');
    push_padded(&mut out, month, 2);
    out.push('-');
    push_padded(&mut out, day, 2);
    out.push('T');
    push_padded(&mut out, in_day / 3_600_000, 2);
    out.push(':');
    push_padded(&mut out, in_day / 60_000 % 60, 2);
    out.push(':');
    push_padded(&mut out, in_day / 1000 % 60, 2);
    out.push('.');
    push_padded(&mut out, in_day % 1000, 3);
    out.push('Z');
    out
}

/// Appends `n` (>= 0) in decimal, zero-padded to `width` digits. Written digit by digit
/// rather than through `to_string()`: bindings stamp every record with the clock, and seven
/// temporary strings per timestamp were most of a Python `record` call (docs/benchmarks.md).
fn push_padded(out: &mut String, n: i64, width: usize) {
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut rest = n.unsigned_abs();
    while len < digits.len() {
        if let Some(d) = digits.get_mut(len) {
            *d = b'0' + (rest % 10) as u8;
        }
        len += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for _ in len..width {
        out.push('0');
    }
    for d in digits.iter().take(len).rev() {
        out.push(char::from(*d));
    }
}

/// A `now` argument: milliseconds since the Unix epoch (an integer) or an RFC 3339
/// date-time; a binding passes its clock when the caller gives none.
pub fn now_argument(now: &crate::value::Value) -> crate::value::Result<i64> {
    use crate::value::{concat, Error, ErrorCode, ErrorKind, Value};
    let bad = |kind: ErrorKind| {
        Error::new(
            ErrorCode::InvalidConfig,
            kind,
            "now",
            concat(&["now must be milliseconds since the Unix epoch or an RFC 3339 date-time, got ", &now.describe()]),
        )
    };
    match now {
        Value::Number(n) if n.is_finite() && n.fract() == 0.0 && n.abs() <= 8.64e15 => Ok(*n as i64),
        Value::Number(_) => Err(bad(ErrorKind::Range)),
        Value::String(s) => millis_from_rfc3339(s).ok_or_else(|| bad(ErrorKind::Range)),
        _ => Err(bad(ErrorKind::Type)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_from_rfc3339_inverts_iso_from_millis() {
        for ms in [0i64, 1, 999, 86_399_999, 951_782_400_000, 1_767_225_601_123, -1, -86_400_001, 253_402_300_799_999] {
            assert_eq!(millis_from_rfc3339(&iso_from_millis(ms)), Some(ms), "{ms}");
        }
        assert_eq!(millis_from_rfc3339("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(millis_from_rfc3339("1970-01-01T00:00:00.1239-00:30"), Some(1_800_123));
        assert_eq!(millis_from_rfc3339("2026-02-29T00:00:00Z"), None);
        assert_eq!(millis_from_rfc3339("yesterday"), None);
    }

    #[test]
    fn accepts_rfc3339_forms() {
        for ok in [
            "2026-01-01T00:00:01.000Z",
            "2026-01-01T00:00:01Z",
            "2024-02-29T23:59:59.123456+05:30",
            "2026-12-31t10:00:00z",
            "2026-06-15T12:00:00-00:00",
        ] {
            assert!(is_rfc3339(ok), "{ok}");
        }
    }

    #[test]
    fn rejects_everything_else() {
        for bad in [
            "",
            "yesterday",
            "2026-01-01",
            "2026-01-01 00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00+0530",
            "2026-01-01T00:00:00Zjunk",
            "２026-01-01T00:00:00Z",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    #[test]
    fn formats_like_to_iso_string() {
        assert_eq!(iso_from_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_from_millis(1_767_225_601_000), "2026-01-01T00:00:01.000Z");
        assert_eq!(iso_from_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso_from_millis(-1), "1969-12-31T23:59:59.999Z");
        assert!(is_rfc3339(&iso_from_millis(1_700_000_000_000)));
        // Padding and signs as Node's Date#toISOString prints them (checked with node).
        assert_eq!(iso_from_millis(86_399_999), "1970-01-01T23:59:59.999Z");
        assert_eq!(iso_from_millis(253_402_300_800_000), "+010000-01-01T00:00:00.000Z");
        assert_eq!(iso_from_millis(-62_198_755_200_000), "-000001-01-01T00:00:00.000Z");
        assert_eq!(iso_from_millis(8_640_000_000_000_000), "+275760-09-13T00:00:00.000Z");
        assert_eq!(iso_from_millis(-8_640_000_000_000_000), "-271821-04-20T00:00:00.000Z");
    }
}
