//! Tidy check: no module cycles inside a crate.
//!
//! **Layer:** tooling, one of the tidy checks (`tidy.rs` calls [`check_module_cycles`]). It reads
//! the sources of every crate under `crates/` and of the xtask as text; it never builds,
//! changes or runs anything, and it must never know any product crate's types or module names
//! (the only crate names it may hold are those of [`CYCLE_EXEMPT`], none today).
//!
//! The graph: for each crate, the nodes are its top-level modules (a file `src/x.rs`, or a
//! directory `src/x/` with everything below it; the crate root `lib.rs`/`main.rs` is not a
//! node). There is an edge `a -> b` when code in module `a` names `crate::b` (in a `use`, braces
//! and all, or in a path in code), `super::b` from a file directly in `src/`, or an item the
//! crate root re-exports from `b` (`crate::Item` where `lib.rs` has `pub use b::Item`). The same
//! graph is built inside every directory module among its submodules, where the directory's own
//! file (`mod.rs`, or `x.rs` beside `x/`) is the node `mod`. Comments, doc comments, string
//! literals and items under `#[cfg(test)]` (test modules may reach anywhere) do not count. An
//! inline module (`mod name { … }`) is part of its file's node, and `self` and `super` inside it
//! are relative to it, as the compiler has them.
//!
//! A cycle means two modules each need the other: neither can be read, tested or moved alone.
//! The fix is to move the shared item down to the module where it belongs (or to a small new
//! module both use), never to hide the path from this check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Crates not checked yet, by directory name under `crates/`: a crate listed here may have
/// module cycles until they are broken and it is taken off the list. None today.
const CYCLE_EXEMPT: &[&str] = &[];

/// Checks every crate under `crates/` (found by listing the directory, so a new crate is checked
/// without being named here) and the xtask, but those in [`CYCLE_EXEMPT`]; returns one problem
/// per cycle found.
pub(crate) fn check_module_cycles(root: &Path) -> Vec<String> {
    check_module_cycles_except(root, CYCLE_EXEMPT)
}

/// [`check_module_cycles`] with the crates of `exempt` left out.
fn check_module_cycles_except(root: &Path, exempt: &[&str]) -> Vec<String> {
    let mut crates: Vec<(String, std::path::PathBuf)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root.join("crates")) {
        for entry in entries.flatten() {
            let src = entry.path().join("src");
            if src.is_dir() {
                crates.push((entry.file_name().to_string_lossy().into_owned(), src));
            }
        }
    }
    crates.sort();
    crates.push(("xtask".to_owned(), root.join("xtask").join("src")));

    let mut problems = Vec::new();
    for (name, src) in crates {
        if exempt.contains(&name.as_str()) {
            continue;
        }
        let mut files = Vec::new();
        collect_sources(&src, &src, &mut files);
        files.sort();
        problems.extend(cycles_in_crate(&name, &files));
    }
    problems
}

/// Every `.rs` file below `dir`, as (path relative to `src` with `/` separators, text). The
/// `bin/` folder holds separate crates (each its own root) and is left out.
fn collect_sources(src: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path
            .strip_prefix(src)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            if relative != "bin" {
                collect_sources(src, &path, files);
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            // An unreadable file is reported by the other tidy checks; here it has no edges.
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            files.push((relative, text));
        }
    }
}

/// A module path below the crate root: `["http", "legacy"]` is `crate::http::legacy`.
type ModPath = Vec<String>;

/// The node of a directory module's own file (`mod.rs`, or `x.rs` beside `x/`).
const MOD_NODE: &str = "mod";

/// One source file, as the check sees it.
struct SourceFile {
    /// Its path relative to `src/`, for messages.
    path: String,
    /// The module it is.
    module: ModPath,
    /// The paths it names, resolved to module paths from the crate root, with their lines.
    references: Vec<(ModPath, usize)>,
    /// Names it imports with `use` (re-exports included): name to the path it stands for.
    imports: BTreeMap<String, ModPath>,
}

/// Where an edge was seen: file and line.
type Evidence = (String, usize);

/// Module graphs by level (the parent module, empty for the top level): each edge with the
/// first place it was seen.
type Graphs = BTreeMap<ModPath, BTreeMap<(String, String), Evidence>>;

/// The cycles of one crate, from its `(path relative to src/, text)` pairs, as problems.
fn cycles_in_crate(krate: &str, files: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (level, edges) in &module_graphs(files) {
        for component in cyclic_components(edges) {
            let cycle = a_cycle_through(&component, edges);
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|pair| {
                    let (file, line) = &edges[&(pair[0].clone(), pair[1].clone())];
                    format!("{} -> {} (src/{file}:{line})", pair[0], pair[1])
                })
                .collect();
            let place = if level.is_empty() {
                "its top-level modules".to_owned()
            } else {
                format!("the submodules of `crate::{}`", level.join("::"))
            };
            problems.push(format!(
                "{krate}: module cycle among {place} {{{}}}: {}",
                component.iter().cloned().collect::<Vec<_>>().join(", "),
                steps.join(", ")
            ));
        }
    }
    problems
}

/// The module graphs of one crate, from its `(path relative to src/, text)` pairs.
fn module_graphs(files: &[(String, String)]) -> Graphs {
    let modules: Vec<(&String, &String, ModPath)> = files
        .iter()
        .filter_map(|(path, text)| Some((path, text, module_of(path)?)))
        .collect();
    // Every module that exists, with all its ancestors.
    let mut all: BTreeSet<ModPath> = BTreeSet::new();
    for (_, _, module) in &modules {
        for end in 0..=module.len() {
            all.insert(module[..end].to_vec());
        }
    }
    let children = |parent: &[String]| -> BTreeSet<String> {
        all.iter()
            .filter(|m| m.len() == parent.len() + 1 && m.starts_with(parent))
            .map(|m| m[parent.len()].clone())
            .collect()
    };

    let mut sources = Vec::new();
    for (path, text, module) in modules {
        let tokens = strip_test_items(tokenize(text));
        let (references, imports) = find_paths(&tokens, &module, &children(&module));
        sources.push(SourceFile {
            path: path.clone(),
            module,
            references,
            imports,
        });
    }
    // What each module's own file imports (for re-exports): module to its imports.
    let mut imports_of: BTreeMap<ModPath, BTreeMap<String, ModPath>> = BTreeMap::new();
    for source in &sources {
        imports_of
            .entry(source.module.clone())
            .or_default()
            .extend(source.imports.clone());
    }

    // The graphs: level (the parent module) to edges with the first place each was seen.
    let mut graphs = Graphs::new();
    for source in &sources {
        for (target, line) in &source.references {
            let common = source
                .module
                .iter()
                .zip(target)
                .take_while(|(a, b)| a == b)
                .count();
            for depth in 0..=common {
                let level = &source.module[..depth];
                let from = if source.module.len() > depth {
                    source.module[depth].clone()
                } else if depth == 0 {
                    continue; // The crate root is no node.
                } else {
                    MOD_NODE.to_owned()
                };
                let level_children = children(level);
                let empty = BTreeMap::new();
                let level_imports = imports_of.get(level).unwrap_or(&empty);
                let Some(to) = node_named(level, target, &level_children, level_imports) else {
                    continue;
                };
                if from != to {
                    graphs
                        .entry(level.to_vec())
                        .or_default()
                        .entry((from, to))
                        .or_insert_with(|| (source.path.clone(), *line));
                }
            }
        }
    }

    graphs
}

/// The module a file under `src/` is: `lib.rs`/`main.rs` the root, `a/mod.rs` and `a.rs` the
/// module `a`, `a/b.rs` the module `a::b`. `None` for what is not a Rust file.
fn module_of(path: &str) -> Option<ModPath> {
    let stem = path.strip_suffix(".rs")?;
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|last| last == "mod")
        || (parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main"))
    {
        parts.pop();
    }
    Some(parts)
}

/// The node of graph `level` that a reference to `target` (below `level`) lands on: the child
/// module named, the child an import of the level's own file points into (a re-export), or
/// [`MOD_NODE`] for an item of the level's own file. `None` at the crate root for an item of
/// the root itself.
fn node_named(
    level: &[String],
    target: &[String],
    children: &BTreeSet<String>,
    imports: &BTreeMap<String, ModPath>,
) -> Option<String> {
    let mut target = target.to_vec();
    // A bounded walk: re-exports of re-exports resolve, a loop of imports does not hang.
    for _ in 0..8 {
        let Some(name) = target.get(level.len()) else {
            break;
        };
        if children.contains(name) {
            return Some(name.clone());
        }
        match imports.get(name) {
            Some(next) if next.starts_with(level) && *next != target => target = next.clone(),
            _ => break,
        }
    }
    (!level.is_empty()).then(|| MOD_NODE.to_owned())
}

/// A token of Rust source, enough to follow paths.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    /// An identifier, keyword or number.
    Word(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
}

/// Splits source into tokens with their line numbers, leaving out comments (doc comments too),
/// string, byte-string and raw-string literals, character literals and lifetimes.
fn tokenize(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Advances over chars[from..to], counting lines.
    let skip = |from: usize, to: usize, line: &mut usize| {
        *line += chars[from..to.min(chars.len())]
            .iter()
            .filter(|&&c| c == '\n')
            .count();
        to
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest.
            let mut depth = 0;
            let mut j = i;
            while j < chars.len() {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            i = skip(i, j, &mut line);
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            i = skip(i, j + 1, &mut line);
        } else if let Some(end) = raw_string_end(&chars, i) {
            i = skip(i, end, &mut line);
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a, 'static).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' && chars[j] != '\n' {
                    j += 1;
                }
                i = j + 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && is_word(chars[i]) {
                    i += 1;
                }
            }
        } else if is_word(c) {
            let start = i;
            while i < chars.len() && is_word(chars[i]) {
                i += 1;
            }
            tokens.push((Token::Word(chars[start..i].iter().collect()), line));
        } else if c == ':' && next == Some(':') {
            tokens.push((Token::PathSep, line));
            i += 2;
        } else {
            tokens.push((Token::Punct(c), line));
            i += 1;
        }
    }
    tokens
}

/// If a raw string (`r"…"`, `r#"…"#`, `br#"…"#`) starts at `i`, the index just past its end.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut j = i;
    if chars[j] == 'b' {
        j += 1;
    }
    if chars.get(j) != Some(&'r') || (i > 0 && is_word(chars[i - 1])) {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && chars[j + 1..].iter().take_while(|&&c| c == '#').count() >= hashes {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// Leaves out every item under `#[cfg(test)]` or `#[cfg(all(test, …))]` (the attribute, any
/// further attributes, and the item up to its `;` or its closing brace), and everything after
/// `#![cfg(test)]`.
fn strip_test_items(tokens: Vec<(Token, usize)>) -> Vec<(Token, usize)> {
    let word = |s: &str| Token::Word(s.to_owned());
    let outer = [
        Token::Punct('#'),
        Token::Punct('['),
        word("cfg"),
        Token::Punct('('),
        word("test"),
        Token::Punct(')'),
        Token::Punct(']'),
    ];
    let mut inner = outer.to_vec();
    inner.insert(1, Token::Punct('!'));
    let all = [
        Token::Punct('#'),
        Token::Punct('['),
        word("cfg"),
        Token::Punct('('),
        word("all"),
        Token::Punct('('),
        word("test"),
    ];
    let starts_with = |at: usize, pattern: &[Token]| {
        tokens.len() >= at + pattern.len()
            && tokens[at..at + pattern.len()]
                .iter()
                .zip(pattern)
                .all(|((token, _), expected)| token == expected)
    };

    let mut kept = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if starts_with(i, &inner) {
            break;
        }
        let skipped = if starts_with(i, &outer) {
            outer.len()
        } else if starts_with(i, &all) {
            all.len()
        } else {
            kept.push(tokens[i].clone());
            i += 1;
            continue;
        };
        // Skip the item: up to a `;` outside brackets, or the end of its first `{…}` block (the
        // rest of an `all(…)` attribute closes brackets it did not count: they count as none).
        i += skipped;
        let mut depth = 0usize;
        while i < tokens.len() {
            match tokens[i].0 {
                Token::Punct('(' | '[' | '{') => depth += 1,
                Token::Punct(')' | ']') => depth = depth.saturating_sub(1),
                Token::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    kept
}

/// One leaf of a path or `use` tree: its segments, the name it is imported as (for a `use`), and
/// whether it ends in a glob.
struct Leaf {
    segments: Vec<String>,
    alias: Option<String>,
    glob: bool,
}

/// The paths the tokens of a file of module `module` name inside the crate (resolved from the
/// crate root, with lines), and the names its `use` items import inside the crate. Inside an
/// inline module (`mod name { … }`), `self` and `super` are that module's, and its own imports
/// are not the file's.
fn find_paths(
    tokens: &[(Token, usize)],
    module: &[String],
    children: &BTreeSet<String>,
) -> (Vec<(ModPath, usize)>, BTreeMap<String, ModPath>) {
    let mut references = Vec::new();
    let mut imports = BTreeMap::new();
    // The inline modules the tokens at `i` are inside, each with the brace depth inside it.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0_usize;
    let no_children = BTreeSet::new();
    let mut i = 0;
    while i < tokens.len() {
        let in_use = matches!(&tokens[i].0, Token::Word(w) if w == "use");
        let start = if in_use { i + 1 } else { i };
        let starts_path = matches!(tokens.get(start), Some((Token::Word(_), _)))
            && (in_use || matches!(tokens.get(start + 1), Some((Token::PathSep, _))))
            && !(start > 0 && tokens[start - 1].0 == Token::PathSep);
        if !starts_path {
            match (&tokens[i].0, tokens.get(i + 1), tokens.get(i + 2)) {
                (Token::Word(word), Some((Token::Word(name), _)), Some((Token::Punct('{'), _)))
                    if word == "mod" =>
                {
                    depth += 1;
                    inline.push((name.clone(), depth));
                    i += 3;
                    continue;
                }
                (Token::Punct('{'), _, _) => depth += 1,
                (Token::Punct('}'), _, _) => {
                    if inline.last().is_some_and(|(_, inside)| *inside == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let here: ModPath = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(name, _)| name.clone()))
            .collect();
        // An inline module's children are items of the file, not files.
        let here_children = if inline.is_empty() {
            children
        } else {
            &no_children
        };
        let line = tokens[start].1;
        let mut leaves = Vec::new();
        i = parse_tree(tokens, start, Vec::new(), &mut leaves);
        for leaf in leaves {
            let Some(path) = resolve(&leaf.segments, &here, here_children) else {
                continue;
            };
            if in_use && !leaf.glob && inline.is_empty() {
                let name = leaf.alias.or_else(|| leaf.segments.last().cloned());
                if let Some(name) = name.filter(|n| n != "self" && n != "_") {
                    imports.insert(name, path.clone());
                }
            }
            references.push((path, line));
        }
    }
    (references, imports)
}

/// Parses a path or `use` tree starting at `i` (after `prefix`), pushing its leaves; returns the
/// index after it.
fn parse_tree(
    tokens: &[(Token, usize)],
    mut i: usize,
    prefix: Vec<String>,
    leaves: &mut Vec<Leaf>,
) -> usize {
    let mut segments = prefix;
    loop {
        match tokens.get(i).map(|(token, _)| token) {
            Some(Token::Word(word)) => {
                segments.push(word.clone());
                i += 1;
            }
            Some(Token::Punct('*')) => {
                leaves.push(Leaf {
                    segments,
                    alias: None,
                    glob: true,
                });
                return i + 1;
            }
            Some(Token::Punct('{')) => {
                i += 1;
                while let Some((token, _)) = tokens.get(i) {
                    match token {
                        Token::Punct('}') => return i + 1,
                        Token::Punct(',') => i += 1,
                        Token::Word(_) | Token::Punct('*' | '{') => {
                            let before = i;
                            i = parse_tree(tokens, i, segments.clone(), leaves);
                            if i == before {
                                i += 1;
                            }
                        }
                        _ => i += 1,
                    }
                }
                return i;
            }
            _ => return i,
        }
        if tokens.get(i).map(|(token, _)| token) == Some(&Token::PathSep) {
            i += 1;
            continue;
        }
        // The end of a leaf, perhaps renamed with `as`.
        let mut alias = None;
        if let (Some((Token::Word(as_), _)), Some((Token::Word(name), _))) =
            (tokens.get(i), tokens.get(i + 1))
        {
            if as_ == "as" {
                alias = Some(name.clone());
                i += 2;
            }
        }
        if segments.last().is_some_and(|last| last == "self") {
            segments.pop();
            if alias.is_none() {
                alias = segments.last().cloned();
            }
        }
        leaves.push(Leaf {
            segments,
            alias,
            glob: false,
        });
        return i;
    }
}

/// The path from the crate root that `segments`, written in a file of module `module`, names;
/// `None` for a path outside the crate (another crate, a local type, a variant).
fn resolve(segments: &[String], module: &[String], children: &BTreeSet<String>) -> Option<ModPath> {
    let first = segments.first()?;
    let resolved: Vec<String> = match first.as_str() {
        "crate" => segments[1..].to_vec(),
        "self" => module.iter().chain(&segments[1..]).cloned().collect(),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = module.len().checked_sub(ups)?;
            module[..base]
                .iter()
                .chain(&segments[ups..])
                .cloned()
                .collect()
        }
        name if children.contains(name) => module.iter().chain(segments).cloned().collect(),
        _ => return None,
    };
    Some(resolved)
}

/// The strongly connected components with more than one node (Tarjan's algorithm, iterative).
fn cyclic_components(edges: &BTreeMap<(String, String), Evidence>) -> Vec<BTreeSet<String>> {
    let mut nodes: BTreeSet<&str> = BTreeSet::new();
    let mut out: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        nodes.insert(from);
        nodes.insert(to);
        out.entry(from).or_default().push(to);
    }
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut low: BTreeMap<&str, usize> = BTreeMap::new();
    let mut on_stack: BTreeSet<&str> = BTreeSet::new();
    let mut stack: Vec<&str> = Vec::new();
    let mut components = Vec::new();
    for &root in &nodes {
        if index.contains_key(root) {
            continue;
        }
        // Each frame: a node and how many of its successors were visited.
        let mut frames: Vec<(&str, usize)> = vec![(root, 0)];
        index.insert(root, index.len());
        low.insert(root, index[root]);
        stack.push(root);
        on_stack.insert(root);
        while let Some(&mut (node, ref mut next)) = frames.last_mut() {
            let successors = out.get(node).map(Vec::as_slice).unwrap_or_default();
            if let Some(&successor) = successors.get(*next) {
                *next += 1;
                if !index.contains_key(successor) {
                    index.insert(successor, index.len());
                    low.insert(successor, index[successor]);
                    stack.push(successor);
                    on_stack.insert(successor);
                    frames.push((successor, 0));
                } else if on_stack.contains(successor) {
                    let lowest = low[node].min(index[successor]);
                    low.insert(node, lowest);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                let lowest = low[parent].min(low[node]);
                low.insert(parent, lowest);
            }
            if low[node] == index[node] {
                let mut component = BTreeSet::new();
                while let Some(member) = stack.pop() {
                    on_stack.remove(member);
                    component.insert(member.to_owned());
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    components.push(component);
                }
            }
        }
    }
    components
}

/// A shortest cycle through the first node of `component`, as its nodes with the first repeated
/// at the end (`[a, b, a]`).
fn a_cycle_through(
    component: &BTreeSet<String>,
    edges: &BTreeMap<(String, String), Evidence>,
) -> Vec<String> {
    let start = component.first().expect("a component has nodes").clone();
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for (from, to) in edges.keys() {
            if *from != node || !component.contains(to) {
                continue;
            }
            if *to == start {
                // Walk back from `node` to `start` (which has no parent), then close the loop.
                let mut cycle = vec![node.clone()];
                while let Some(previous) = parent.get(&cycle[cycle.len() - 1]) {
                    cycle.push(previous.clone());
                }
                cycle.reverse();
                cycle.push(start);
                return cycle;
            }
            if !parent.contains_key(to) && *to != start {
                parent.insert(to.clone(), node.clone());
                queue.push_back(to.clone());
            }
        }
    }
    vec![start.clone(), start]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The problems of a crate made of `(path under src/, text)` files.
    fn check(files: &[(&str, &str)]) -> Vec<String> {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect();
        cycles_in_crate("demo", &files)
    }

    /// The edges of the graph at `level` (`""` for the top level), as `a -> b`.
    fn edges(files: &[(&str, &str)], level: &str) -> Vec<String> {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect();
        let level: ModPath = level
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        module_graphs(&files)
            .get(&level)
            .map(|edges| edges.keys().map(|(a, b)| format!("{a} -> {b}")).collect())
            .unwrap_or_default()
    }

    /// The rule holds in this workspace (besides the exempt crates), as the other tidy checks do.
    #[test]
    fn the_workspace_has_no_module_cycles() {
        let problems = check_module_cycles(&crate::tidy::workspace_root());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn a_cycle_is_reported_with_its_modules_and_where() {
        let problems = check(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "//! A.\nuse crate::b::Thing;\n"),
            ("b.rs", "//! B.\n\nfn f() -> crate::c::Other { todo!() }\n"),
            ("c.rs", "//! C.\nuse super::a;\n"),
        ]);
        assert_eq!(
            problems,
            ["demo: module cycle among its top-level modules {a, b, c}: \
                 a -> b (src/a.rs:2), b -> c (src/b.rs:3), c -> a (src/c.rs:2)"]
        );
    }

    #[test]
    fn a_dag_passes() {
        let files = [
            ("lib.rs", "mod a;\nmod b;\nmod c;\npub use crate::a::Top;\n"),
            ("a.rs", "use crate::b::B;\nuse crate::c::C;\n"),
            ("b.rs", "use crate::c::C;\n"),
            ("c.rs", "use std::fmt;\n"),
        ];
        assert_eq!(check(&files), Vec::<String>::new());
        assert_eq!(edges(&files, ""), ["a -> b", "a -> c", "b -> c"]);
    }

    #[test]
    fn comments_strings_and_tests_do_not_count() {
        let files = [
            ("a.rs", "use crate::b::B;\n"),
            (
                "b.rs",
                "//! See [`crate::a::A`].\n\
                 /// Like [`crate::a::A`].\n\
                 // use crate::a::A;\n\
                 /* crate::a::A /* nested */ crate::a::A */\n\
                 const S: &str = \"crate::a::A\";\n\
                 const R: &str = r#\"crate::a::A \" still\"#;\n\
                 const C: char = '\"'; fn f<'a>(x: &'a str) {}\n\
                 #[cfg(test)]\n\
                 mod tests {\n    use crate::a::A;\n    fn g() { crate::a::f(); }\n}\n\
                 #[cfg(test)]\n\
                 use crate::a::Helper;\n\
                 #[cfg(all(test, feature = \"x\"))]\n\
                 mod feature_tests {\n    use crate::a::A;\n}\n",
            ),
        ];
        assert_eq!(edges(&files, ""), ["a -> b"]);
        assert_eq!(check(&files), Vec::<String>::new());
    }

    #[test]
    fn code_after_a_test_module_still_counts() {
        let files = [
            ("a.rs", "use crate::b::B;\n"),
            (
                "b.rs",
                "#[cfg(test)]\nmod tests { fn t() {} }\nfn after() { crate::a::f(); }\n",
            ),
        ];
        assert_eq!(check(&files).len(), 1);
    }

    #[test]
    fn use_trees_with_nested_braces_are_followed() {
        let files = [
            ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
            (
                "a.rs",
                "use crate::{\n    b::{self, Thing as Other},\n    c::{deep::{X, Y}, *},\n};\nuse std::{fmt, io};\n",
            ),
            ("b.rs", ""),
            ("c.rs", ""),
            ("d.rs", "pub(crate) fn f() {}\n"),
        ];
        assert_eq!(edges(&files, ""), ["a -> b", "a -> c"]);
    }

    #[test]
    fn root_re_exports_lead_to_the_module_that_defines_them() {
        let files = [
            (
                "lib.rs",
                "mod a;\nmod b;\npub use b::Thing;\npub use crate::a::{Other as Renamed};\n",
            ),
            ("a.rs", "fn f(_: crate::Thing) {}\n"),
            ("b.rs", "use crate::Renamed;\n"),
        ];
        assert_eq!(edges(&files, ""), ["a -> b", "b -> a"]);
        assert_eq!(check(&files).len(), 1);
    }

    #[test]
    fn submodules_of_a_directory_form_a_graph_with_mod() {
        let files = [
            ("lib.rs", "mod http;\nmod other;\n"),
            ("other.rs", "use crate::http::reply::Reply;\n"),
            (
                "http/mod.rs",
                "mod legacy;\nmod reply;\npub(crate) use reply::Reply;\nstruct Shared;\nfn f() { legacy::serve(); }\n",
            ),
            (
                "http/legacy.rs",
                "use super::Shared;\nuse crate::http::Reply;\n",
            ),
            ("http/reply.rs", "use crate::other::Thing;\n"),
        ];
        // At the top: `http` and `other` need each other.
        assert_eq!(edges(&files, ""), ["http -> other", "other -> http"]);
        // Inside `http`: `mod` and `legacy` need each other; `Reply` is `reply`'s, re-exported.
        assert_eq!(
            edges(&files, "http"),
            [
                "legacy -> mod",
                "legacy -> reply",
                "mod -> legacy",
                "mod -> reply"
            ]
        );
        let problems = check(&files);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[1].starts_with(
                "demo: module cycle among the submodules of `crate::http` {legacy, mod}"
            ),
            "{problems:?}"
        );
    }

    #[test]
    fn a_module_file_beside_its_directory_is_its_mod() {
        let files = [
            ("main.rs", "mod bench;\n"),
            (
                "bench.rs",
                "mod pages;\nconst X: u8 = 1;\nfn run() { pages::measure(); }\n",
            ),
            ("bench/pages.rs", "use super::X;\n"),
        ];
        assert_eq!(edges(&files, "bench"), ["mod -> pages", "pages -> mod"]);
        assert_eq!(check(&files).len(), 1);
    }

    #[test]
    fn super_from_a_nested_file_stays_inside_its_directory() {
        let files = [
            ("a/mod.rs", "mod x;\nmod y;\n"),
            (
                "a/x.rs",
                "use super::y::Y;\nfn f() { super::super::b::g(); }\n",
            ),
            ("a/y.rs", ""),
            ("b.rs", ""),
        ];
        assert_eq!(edges(&files, ""), ["a -> b"]);
        // Declaring a submodule (`mod x;`) is no use of it.
        assert_eq!(edges(&files, "a"), ["x -> y"]);
    }

    #[test]
    fn super_inside_an_inline_module_is_relative_to_it() {
        let files = [
            (
                "a/mod.rs",
                "mod x;\nmod y;\npub(crate) use x::Input;\nstruct Top;\n",
            ),
            (
                "a/x.rs",
                "pub(crate) struct Input;\n\
                 mod reactor {\n    use super::Input;\n    fn f() -> super::Input { self::g() }\n\
                 \x20   mod deeper { use super::super::Input; }\n    fn g() {}\n}\n\
                 fn after() {}\n",
            ),
            // Once the inline module is closed, `super` is the file's parent again.
            (
                "a/y.rs",
                "mod inner { fn f() { let _ = [0]; } }\nfn g() { let _ = super::Top; }\n",
            ),
        ];
        assert_eq!(edges(&files, "a"), ["mod -> x", "y -> mod"]);
        assert_eq!(check(&files), Vec::<String>::new());
    }

    #[test]
    fn new_crates_are_found_and_the_exempt_ones_skipped() {
        let root = std::env::temp_dir().join(format!("xtask-cycles-{}", std::process::id()));
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("crates/fresh/src/lib.rs", "mod a;\nmod b;\n");
        write("crates/fresh/src/a.rs", "use crate::b::B;\n");
        write("crates/fresh/src/b.rs", "use crate::a::A;\n");
        write("crates/exempt-one/src/a.rs", "use crate::b::B;\n");
        write("crates/exempt-one/src/b.rs", "use crate::a::A;\n");
        write("xtask/src/main.rs", "mod one;\n");
        let problems = check_module_cycles_except(&root, &["exempt-one"]);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("fresh: "), "{problems:?}");
    }
}
