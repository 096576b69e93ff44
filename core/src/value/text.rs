//! Text helpers that build strings as JavaScript does, in the smallest code the
//! size-budgeted WebAssembly module allows: the ground every message is built on.

/// The pieces joined, as `[a, b, c].concat()` gives them: one small loop instead of std's
/// generic `join`, whose specialized copy loops are ~0.9 KB of WebAssembly.
pub fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `text.replacen(from, to, 1)`: the first occurrence of `from` replaced by `to`. A byte
/// scan instead of std's two-way substring searcher (~1.5 KB of WebAssembly).
pub(crate) fn replace_first(text: &str, from: &str, to: &str) -> String {
    let (bytes, needle) = (text.as_bytes(), from.as_bytes());
    for start in 0..=bytes.len().saturating_sub(needle.len()) {
        if bytes.get(start..start + needle.len()) == Some(needle) {
            if let (Some(head), Some(tail)) = (text.get(..start), text.get(start + needle.len()..)) {
                return concat(&[head, to, tail]);
            }
        }
    }
    text.to_string()
}

/// The pieces with `separator` between them, as `parts.join(separator)` gives them.
pub(crate) fn join(parts: &[&str], separator: &str) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_first_is_replacen_once() {
        for (text, from, to) in [
            ("layers[2].passRate must be a number", "layers[2].passRate", "result.passRate"),
            ("a a a", "a", "bb"),
            ("no match", "xyz", "q"),
            ("", "", "x"),
            ("abc", "", "x"),
            ("short", "much longer needle", "q"),
            ("é layers[0] é", "layers[0]", "r"),
        ] {
            assert_eq!(replace_first(text, from, to), text.replacen(from, to, 1));
        }
    }
}
