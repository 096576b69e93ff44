//! The module graph of a Rust crate, from its source text: one node per source file
//! (`lib.rs` is `crate`, `a/mod.rs` is `a`, `a/b.rs` is `a::b`) and an edge for each path
//! into another file's module (see the layout guard's docs in `main.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
}

/// Splits Rust source into identifiers and punctuation, dropping comments, string, byte and
/// char literals and whitespace. Lifetimes become a `'` and an identifier.
fn tokenize(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if at(i) == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                tokens.push(Token { tok: Tok::Punct('\''), line });
                i += 1;
            }
        } else if is_ident(c) {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Raw strings: r"..", r#".."#, br".." (b".." and b'..' fall to the cases above).
            if (word == "r" || word == "br") && (at(i) == '"' || at(i) == '#') {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                if at(i) == '"' {
                    i += 1;
                    loop {
                        if i >= chars.len() {
                            break;
                        }
                        if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                            i += 1 + hashes;
                            break;
                        }
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    continue;
                }
                // `r#ident`: a raw identifier.
                let start = i;
                while i < chars.len() && is_ident(chars[i]) {
                    i += 1;
                }
                tokens.push(Token { tok: Tok::Ident(chars[start..i].iter().collect()), line });
                continue;
            }
            tokens.push(Token { tok: Tok::Ident(word), line });
        } else if c == ':' && at(i + 1) == ':' {
            tokens.push(Token { tok: Tok::PathSep, line });
            i += 2;
        } else {
            tokens.push(Token { tok: Tok::Punct(c), line });
            i += 1;
        }
    }
    tokens
}

fn is_ident(tok: Option<&Token>, name: &str) -> bool {
    matches!(tok, Some(Token { tok: Tok::Ident(w), .. }) if w == name)
}

fn is_punct(tok: Option<&Token>, c: char) -> bool {
    matches!(tok, Some(Token { tok: Tok::Punct(p), .. }) if *p == c)
}

/// Drops every item under `#[cfg(test)]`: the attribute, any attributes after it, and the
/// item up to its `;` or the end of its braced body.
fn without_test_code(tokens: Vec<Token>) -> Vec<Token> {
    let attr = [Tok::Punct('#'), Tok::Punct('['), Tok::Ident("cfg".into()), Tok::Punct('(')];
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let is_cfg_test = tokens.len() > i + 6
            && (0..4).all(|k| tokens[i + k].tok == attr[k])
            && is_ident(tokens.get(i + 4), "test")
            && is_punct(tokens.get(i + 5), ')')
            && is_punct(tokens.get(i + 6), ']');
        if !is_cfg_test {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        i += 7;
        // Further attributes on the same item.
        while is_punct(tokens.get(i), '#') && is_punct(tokens.get(i + 1), '[') {
            let mut depth = 0;
            while i < tokens.len() {
                match tokens[i].tok {
                    Tok::Punct('[') => depth += 1,
                    Tok::Punct(']') => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        // The item: up to a `;` outside brackets, or through its braced body.
        let mut depth = 0;
        while i < tokens.len() {
            match tokens[i].tok {
                Tok::Punct('(') | Tok::Punct('[') => depth += 1,
                Tok::Punct(')') | Tok::Punct(']') => depth -= 1,
                Tok::Punct(';') if depth == 0 => {
                    i += 1;
                    break;
                }
                Tok::Punct('{') => {
                    let mut braces = 0;
                    while i < tokens.len() {
                        match tokens[i].tok {
                            Tok::Punct('{') => braces += 1,
                            Tok::Punct('}') => {
                                braces -= 1;
                                if braces == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        i += 1;
                    }
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// One path of an expanded `use` tree: its segments, and the name it brings into scope
/// (`None` for a glob `*`).
#[derive(Debug, Clone)]
struct UsePath {
    segments: Vec<String>,
    name: Option<String>,
}

/// Expands a `use` tree (the tokens between `use` and `;`) into full paths.
fn expand_use_tree(tokens: &[Token], pos: &mut usize, prefix: &[String], out: &mut Vec<UsePath>) {
    let mut segments = prefix.to_vec();
    let mut name = None;
    let mut glob = false;
    loop {
        match tokens.get(*pos).map(|t| &t.tok) {
            Some(Tok::PathSep) => *pos += 1,
            Some(Tok::Ident(word)) if word == "as" => {
                if let Some(Tok::Ident(alias)) = tokens.get(*pos + 1).map(|t| &t.tok) {
                    name = Some(alias.clone());
                }
                *pos += 2;
            }
            Some(Tok::Ident(word)) => {
                segments.push(word.clone());
                *pos += 1;
            }
            Some(Tok::Punct('*')) => {
                glob = true;
                *pos += 1;
            }
            Some(Tok::Punct('{')) => {
                *pos += 1;
                loop {
                    match tokens.get(*pos).map(|t| &t.tok) {
                        Some(Tok::Punct('}')) => {
                            *pos += 1;
                            break;
                        }
                        Some(Tok::Punct(',')) => *pos += 1,
                        None => break,
                        _ => expand_use_tree(tokens, pos, &segments, out),
                    }
                }
                return;
            }
            _ => {
                // `,`, `}` or the end: this branch is complete.
                if segments.last().is_some_and(|s| s == "self") {
                    segments.pop();
                }
                if !glob {
                    name = name.or_else(|| segments.last().cloned());
                }
                out.push(UsePath { segments, name });
                return;
            }
        }
    }
}

/// A path found in one file: its segments as written, the inline module it was written
/// in (relative to the file's module), and its line.
#[derive(Debug, Clone)]
struct FoundPath {
    segments: Vec<String>,
    inline_module: Vec<String>,
    /// Paths in `use` trees may start with a child module's name; inline paths may not
    /// (there a bare first segment is a local name).
    in_use: bool,
    /// For a `pub use` at the file's top level: the name it re-exports (`None`: a glob).
    reexports: Option<Option<String>>,
    line: usize,
}

/// What one file holds: the paths it uses, and the names of the items it defines at its
/// top level (functions, types, constants, macros, ...).
#[derive(Debug, Default)]
struct FileScan {
    paths: Vec<FoundPath>,
    items: BTreeSet<String>,
}

fn is_pub_before(tokens: &[Token], i: usize) -> bool {
    let Some(mut k) = i.checked_sub(1) else { return false };
    if is_punct(tokens.get(k), ')') {
        // pub(crate), pub(super), pub(in path)
        while k > 0 && !is_punct(tokens.get(k), '(') {
            k -= 1;
        }
        let Some(before) = k.checked_sub(1) else { return false };
        k = before;
    }
    is_ident(tokens.get(k), "pub")
}

/// The module paths and top-level item names of one file's non-test code.
fn scan(src: &str) -> FileScan {
    const ITEM_KEYWORDS: [&str; 9] = ["fn", "struct", "enum", "union", "trait", "type", "const", "static", "mod"];
    let tokens = without_test_code(tokenize(src));
    let mut scan = FileScan::default();
    // Open braces: `Some(name)` for an inline `mod name {`.
    let mut braces: Vec<Option<String>> = Vec::new();
    let inline = |braces: &Vec<Option<String>>| braces.iter().flatten().cloned().collect::<Vec<_>>();
    let mut i = 0;
    while i < tokens.len() {
        let prev = if i > 0 { tokens.get(i - 1) } else { None };
        match &tokens[i].tok {
            Tok::Punct('{') => {
                let name = match (i.checked_sub(2).map(|k| &tokens[k].tok), prev.map(|t| &t.tok)) {
                    (Some(Tok::Ident(kw)), Some(Tok::Ident(name))) if kw == "mod" => Some(name.clone()),
                    _ => None,
                };
                braces.push(name);
                i += 1;
            }
            Tok::Punct('}') => {
                braces.pop();
                i += 1;
            }
            Tok::Ident(word)
                if braces.is_empty() && (ITEM_KEYWORDS.contains(&word.as_str()) || word == "macro_rules") =>
            {
                let name_at = if word == "macro_rules" { i + 2 } else { i + 1 };
                if let Some(Tok::Ident(name)) = tokens.get(name_at).map(|t| &t.tok) {
                    scan.items.insert(name.clone());
                }
                i += 1;
            }
            Tok::Ident(word) if word == "use" && !matches!(prev.map(|t| &t.tok), Some(Tok::PathSep)) => {
                let line = tokens[i].line;
                let public = braces.is_empty() && is_pub_before(&tokens, i);
                let end = (i..tokens.len()).find(|&k| is_punct(tokens.get(k), ';')).unwrap_or(tokens.len());
                let mut paths = Vec::new();
                let mut pos = 0;
                let tree = &tokens[i + 1..end];
                while pos < tree.len() {
                    let before = pos;
                    expand_use_tree(tree, &mut pos, &[], &mut paths);
                    if pos == before {
                        pos += 1;
                    }
                }
                for path in paths {
                    scan.paths.push(FoundPath {
                        segments: path.segments,
                        inline_module: inline(&braces),
                        in_use: true,
                        reexports: public.then_some(path.name),
                        line,
                    });
                }
                i = end + 1;
            }
            Tok::Ident(word)
                if (word == "crate" || word == "super" || word == "self")
                    && matches!(tokens.get(i + 1).map(|t| &t.tok), Some(Tok::PathSep))
                    && !is_punct(prev, '$')
                    && !matches!(prev.map(|t| &t.tok), Some(Tok::PathSep)) =>
            {
                let line = tokens[i].line;
                let mut segments = vec![word.clone()];
                let mut k = i + 1;
                while matches!(tokens.get(k).map(|t| &t.tok), Some(Tok::PathSep)) {
                    match tokens.get(k + 1).map(|t| &t.tok) {
                        Some(Tok::Ident(next)) => {
                            segments.push(next.clone());
                            k += 2;
                        }
                        _ => break,
                    }
                }
                scan.paths.push(FoundPath {
                    segments,
                    inline_module: inline(&braces),
                    in_use: false,
                    reexports: None,
                    line,
                });
                i = k;
            }
            _ => i += 1,
        }
    }
    scan
}

/// The crate as the graph sees it: its module files, what each defines and re-exports.
struct Crate {
    modules: BTreeMap<Vec<String>, FileScan>,
}

impl Crate {
    fn new(files: &[(PathBuf, String)]) -> Crate {
        Crate { modules: files.iter().map(|(path, src)| (module_of(path), scan(src))).collect() }
    }

    /// Where a path leads: the deepest module file among its prefixes and the segments
    /// after it, or `None` for a path outside the crate (`std::…`, `serde::…`).
    fn locate(&self, file_module: &[String], found: &FoundPath) -> Option<(Vec<String>, Vec<String>)> {
        let mut here: Vec<String> = file_module.iter().chain(&found.inline_module).cloned().collect();
        let mut rest = found.segments.as_slice();
        match rest.first().map(String::as_str) {
            Some("crate") => {
                here.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().is_some_and(|s| s == "super") {
                    here.pop();
                    rest = &rest[1..];
                }
            }
            Some(first) if found.in_use => {
                let mut child = here.clone();
                child.push(first.to_string());
                if !self.modules.contains_key(&child) {
                    return None; // an external crate, or a local name
                }
            }
            _ => return None,
        }
        // Inline modules are part of their file: climb to the nearest module file.
        let mut target = here.clone();
        while !self.modules.contains_key(&target) && target.pop().is_some() {}
        let mut taken = 0;
        let mut candidate = here;
        for (n, segment) in rest.iter().enumerate() {
            candidate.push(segment.clone());
            if self.modules.contains_key(&candidate) {
                target = candidate.clone();
                taken = n + 1;
            }
        }
        Some((target, rest[taken..].to_vec()))
    }

    /// The module that defines what `rest` names in `module`, following `pub use`
    /// re-exports (named and glob); `found` is false when no definition was seen (then the
    /// module itself is the answer).
    fn settle(&self, module: Vec<String>, rest: &[String], depth: usize) -> (Vec<String>, bool) {
        let Some(name) = rest.first() else { return (module, true) };
        let Some(scan) = self.modules.get(&module) else { return (module, false) };
        if scan.items.contains(name) || depth > 16 {
            return (module, true);
        }
        let reexports = scan.paths.iter().filter(|p| p.reexports.is_some());
        for path in reexports.clone().filter(|p| p.reexports.as_ref().is_some_and(|n| n.as_ref() == Some(name))) {
            if let Some((target, mut tail)) = self.locate(&module, path) {
                tail.extend(rest[1..].iter().cloned());
                return self.settle(target, &tail, depth + 1);
            }
        }
        for path in reexports.filter(|p| p.reexports == Some(None)) {
            if let Some((target, tail)) = self.locate(&module, path) {
                if tail.is_empty() && target != module {
                    let (found, ok) = self.settle(target, rest, depth + 1);
                    if ok {
                        return (found, true);
                    }
                }
            }
        }
        (module, false)
    }

    /// The module a path depends on, or `None` outside the crate.
    fn resolve(&self, file_module: &[String], found: &FoundPath) -> Option<Vec<String>> {
        let (target, rest) = self.locate(file_module, found)?;
        if found.reexports.is_some() {
            return Some(target); // the re-export itself depends on the module it names
        }
        Some(self.settle(target, &rest, 0).0)
    }
}

fn module_name(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

/// The module a file under `src/` defines.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    let at_root = parts.is_empty();
    if !(stem == "mod" || (at_root && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// One edge of the graph with the place that makes it.
pub(crate) type Edges = BTreeMap<(String, String), String>;

/// Builds the module graph of a set of files given as (path under `core/src/`, source).
pub(crate) fn graph(files: &[(PathBuf, String)]) -> Edges {
    graph_in(files, "core/src/")
}

/// The same for the crate whose `src/` is `src` (a path from the repository's root, ending
/// with `/`), which the places of the edges name.
pub(crate) fn graph_in(files: &[(PathBuf, String)], src: &str) -> Edges {
    let krate = Crate::new(files);
    let mut edges = Edges::new();
    for (path, _) in files {
        let from = module_of(path);
        for found in &krate.modules[&from].paths {
            let Some(to) = krate.resolve(&from, found) else { continue };
            if to != from {
                edges
                    .entry((module_name(&from), module_name(&to)))
                    .or_insert_with(|| format!("{src}{}:{}", path.display(), found.line));
            }
        }
    }
    edges
}

/// The strongly connected components of more than one module (Tarjan).
pub(crate) fn cycles(edges: &Edges) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        next: BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.next.get(v).cloned().unwrap_or_default() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        next: BTreeMap::new(),
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for (from, to) in edges.keys() {
        t.next.entry(from.as_str()).or_default().push(to.as_str());
        t.next.entry(to.as_str()).or_default();
    }
    let nodes: Vec<&str> = t.next.keys().copied().collect();
    for v in nodes {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.found
}
