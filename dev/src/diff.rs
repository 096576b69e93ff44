//! A unified diff of two texts by lines (what `generate --check` prints: apply it with
//! `git apply` or `patch -p1`, or run `make generate`).

use std::fmt::Write as _;

/// Lines of context around each change.
const CONTEXT: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Keep,
    Remove,
    Add,
}

/// The edit script from `old` to `new`: a longest common subsequence over the lines
/// between their common head and tail.
fn edits(old: &[&str], new: &[&str]) -> Vec<Edit> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..].iter().rev().zip(new[head..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut out = vec![Edit::Keep; head];
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(Edit::Keep);
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(Edit::Remove);
            i += 1;
        } else {
            out.push(Edit::Add);
            j += 1;
        }
    }
    out.extend(std::iter::repeat_n(Edit::Keep, tail));
    out
}

/// `--- a/NAME` / `+++ b/NAME` and one `@@` hunk per group of changes, or an empty string
/// when the texts are equal.
pub fn unified(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let script = edits(&old_lines, &new_lines);
    // Each edit with the old and new line it stands at.
    let mut at = Vec::with_capacity(script.len());
    let (mut i, mut j) = (0, 0);
    for e in &script {
        at.push((*e, i, j));
        match e {
            Edit::Keep => {
                i += 1;
                j += 1;
            }
            Edit::Remove => i += 1,
            Edit::Add => j += 1,
        }
    }
    let changed: Vec<usize> = (0..at.len()).filter(|&k| at[k].0 != Edit::Keep).collect();
    let mut out = format!("--- a/{name}\n+++ b/{name}\n");
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(at.len());
        let hunk = &at[start..end];
        let old_count = hunk.iter().filter(|(e, _, _)| *e != Edit::Add).count();
        let new_count = hunk.iter().filter(|(e, _, _)| *e != Edit::Remove).count();
        let (_, i0, j0) = hunk[0];
        let from = |n: usize, count: usize| if count == 0 { n } else { n + 1 };
        let _ = writeln!(out, "@@ -{},{old_count} +{},{new_count} @@", from(i0, old_count), from(j0, new_count));
        for (e, i, j) in hunk {
            let _ = match e {
                Edit::Keep => writeln!(out, " {}", old_lines[*i]),
                Edit::Remove => writeln!(out, "-{}", old_lines[*i]),
                Edit::Add => writeln!(out, "+{}", new_lines[*j]),
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn a_changed_line_is_one_hunk_with_its_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(unified("x", old, new), "--- a/x\n+++ b/x\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n");
    }

    #[test]
    fn far_changes_are_separate_hunks_and_equal_texts_no_diff() {
        let old: String = (0..20).map(|i| format!("{i}\n")).collect();
        let mut lines: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        lines[2] = "two".into();
        lines.remove(17);
        lines.push("20".into());
        let new: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let diff = unified("y", &old, &new);
        assert_eq!(diff.matches("@@ -").count(), 2, "{diff}");
        assert!(diff.contains("-2\n+two\n") && diff.contains("-17\n") && diff.contains("+20\n"), "{diff}");
        assert_eq!(unified("y", &old, &old), "");
        assert!(unified("z", "", "new\n").contains("@@ -0,0 +1,1 @@\n+new\n"));
    }
}
