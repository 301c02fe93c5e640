//! No two modules of ply-core import each other. Two such circles were
//! taken apart (`tier::build` and `tier::together` now share `tier::job`;
//! `solve::octal::dense` and `solve::octal::x86` share `octal::lanes`);
//! this test reads the sources as text and fails if any circle of two
//! returns. A module and its own parent or child do not count: a parent
//! naming its children's re-exports is how the crate is built.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module of `src` by path (`tier::build`), with its source.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("the source directory reads") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("below src");
            let mut parts: Vec<String> = relative
                .with_extension("")
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).expect("a source file reads");
            found.insert(parts.join("::"), text);
        }
    }
    found
}

/// The text without its `//` comments (doc comments link freely).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths named after each `super::` or `crate::` in `code`, each as
/// (which of the two, its segments); a `{...}` group gives one path per
/// name in it.
fn named_paths(code: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut paths = Vec::new();
    for start in ["super::", "crate::"] {
        let root = if start == "super::" { "super" } else { "crate" };
        let mut from = 0;
        while let Some(at) = code[from..].find(start) {
            let begin = from + at;
            from = begin + start.len();
            if code[..begin].chars().next_back().is_some_and(is_ident) {
                continue;
            }
            let rest = &code[from..];
            let mut prefix = Vec::new();
            let mut i = 0;
            loop {
                let len = rest[i..]
                    .find(|c: char| !is_ident(c))
                    .unwrap_or(rest.len() - i);
                if len == 0 {
                    break;
                }
                prefix.push(rest[i..i + len].to_string());
                i += len;
                if rest[i..].starts_with("::") {
                    i += 2;
                } else {
                    break;
                }
            }
            if rest[i..].starts_with('{') {
                let mut depth = 0;
                let mut group = String::new();
                for c in rest[i..].chars() {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    group.push(c);
                    if depth == 0 {
                        break;
                    }
                }
                for name in group
                    .split(|c: char| !is_ident(c))
                    .filter(|n| !n.is_empty())
                {
                    let mut path = prefix.clone();
                    path.push(name.to_string());
                    paths.push((root, path));
                }
            } else if !prefix.is_empty() {
                paths.push((root, prefix));
            }
        }
    }
    paths
}

/// The other modules that module `name` names.
fn uses(name: &str, text: &str, all: &BTreeMap<String, String>) -> BTreeSet<String> {
    // `super` is the parent, of a file module and of a `mod.rs` alike
    // (`tier/build.rs` is `tier::build`, `tier/mod.rs` is `tier`).
    let own: Vec<&str> = name.split("::").filter(|s| !s.is_empty()).collect();
    let parent = &own[..own.len().saturating_sub(1)];
    let mut found = BTreeSet::new();
    for (root, path) in named_paths(&code(text)) {
        let base: Vec<String> = if root == "super" {
            parent.iter().map(|s| s.to_string()).collect()
        } else {
            Vec::new()
        };
        for len in (1..=path.len()).rev() {
            let full = base
                .iter()
                .chain(&path[..len])
                .cloned()
                .collect::<Vec<_>>()
                .join("::");
            if all.contains_key(&full) {
                if full != name {
                    found.insert(full);
                }
                break;
            }
        }
    }
    found
}

#[test]
fn no_two_modules_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = modules(&src);
    let graph: BTreeMap<&String, BTreeSet<String>> = all
        .iter()
        .map(|(name, text)| (name, uses(name, text, &all)))
        .collect();
    let mut circles = Vec::new();
    for (a, used) in &graph {
        for b in used {
            let related = b.starts_with(&format!("{a}::")) || a.starts_with(&format!("{b}::"));
            if a.as_str() < b.as_str() && !related && graph[b].contains(a.as_str()) {
                circles.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules that import each other: {circles:?}"
    );
    // The checker sees imports at all: the ones the circles were made of.
    assert!(graph[&"tier::build".to_string()].contains("tier::job"));
    assert!(graph[&"tier::together".to_string()].contains("tier::job"));
    assert!(graph[&"solve::octal::x86".to_string()].contains("solve::octal::lanes"));
    assert!(graph[&"solve::octal::dense".to_string()].contains("solve::octal::x86"));
}

/// `text` without its `#[cfg(test)] mod tests { ... }` blocks: what a
/// test module imports is not the crate's structure.
fn without_tests(text: &str) -> String {
    let mut kept = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]\nmod tests {") {
        kept.push_str(&rest[..at]);
        let block = &rest[at..];
        let mut depth = 0;
        let mut end = block.len();
        for (i, c) in block.char_indices() {
            depth += i32::from(c == '{') - i32::from(c == '}');
            if c == '}' && depth == 0 {
                end = i + 1;
                break;
            }
        }
        rest = &block[end..];
    }
    kept.push_str(rest);
    kept
}

/// The modules compiled for tests alone (`#[cfg(... test ...)] mod x;`),
/// by path.
fn test_modules(all: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (name, text) in all {
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.windows(2) {
            let gated = pair[0].starts_with("#[cfg(") && pair[0].contains("test");
            let declared = pair[1]
                .trim_start_matches("pub(crate) ")
                .strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(';'));
            if let (true, Some(module)) = (gated, declared) {
                found.insert(match name.as_str() {
                    "" => module.to_string(),
                    parent => format!("{parent}::{module}"),
                });
            }
        }
    }
    found
}

/// The top-level modules of the crate (`tier`, `solve`, `team`, ...) and
/// which others each names outside its tests.
fn top_level_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = modules(&src);
    let tests = test_modules(&all);
    let top = |name: &str| name.split("::").next().unwrap_or_default().to_string();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, text) in &all {
        if name.is_empty()
            || tests
                .iter()
                .any(|t| name == t || name.starts_with(&format!("{t}::")))
        {
            continue;
        }
        let from = top(name);
        let used = uses(name, &without_tests(text), &all);
        let entry = graph.entry(from.clone()).or_default();
        entry.extend(
            used.iter()
                .map(|u| top(u))
                .filter(|u| *u != from && !u.is_empty()),
        );
    }
    graph
}

/// A circle through `start` in `graph`, if there is one.
fn circle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![start.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().expect("a path is never empty");
        for next in graph.get(last).into_iter().flatten() {
            if next == start {
                let mut circle = path.clone();
                circle.push(start.to_string());
                return Some(circle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

/// The circle review found (db -> solution -> solve::sparse ->
/// solve::table_team -> tier::peers -> db, with tier -> solve besides):
/// team coordination lived in `tier` and was used by `solve`. It now
/// lives in `team`, which knows no solver; `solve` never names `tier`.
#[test]
fn the_solvers_and_the_team_make_no_circle() {
    let graph = top_level_graph();
    // The checker sees imports at all.
    assert!(graph["tier"].contains("team"), "{graph:?}");
    assert!(graph["solve"].contains("team"), "{graph:?}");
    assert!(graph["db"].contains("solution"), "{graph:?}");
    assert!(
        !graph["solve"].contains("tier"),
        "solve/ imports from tier/: a table team reaches its peers through team/ alone"
    );
    for solver in ["solve", "tier", "dist"] {
        assert!(
            !graph["team"].contains(solver),
            "team/ imports from {solver}/: the team knows no solver"
        );
    }
    for module in ["db", "solution", "solve", "tier", "team", "dist"] {
        if let Some(circle) = circle_through(&graph, module) {
            panic!("an import circle: {}", circle.join(" -> "));
        }
    }
}

/// There is one heartbeat, `team::Heartbeat` over TCP, and no heartbeat
/// file: no code (but tests) outside `team/` defines a heartbeat or
/// reaches into the team's insides, and none anywhere names a heartbeat
/// file (`GAME.process-I.heartbeat`, which the table team kept before it
/// moved to TCP).
#[test]
fn only_the_team_keeps_heartbeats() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = modules(&src);
    let tests = test_modules(&all);
    let mut found = Vec::new();
    for (name, text) in &all {
        if tests.contains(name) {
            continue;
        }
        let code = code(text);
        let inside = name == "team" || name.starts_with("team::");
        for mark in [".heartbeat\"", "heartbeat_path"] {
            if code.contains(mark) {
                found.push(format!("{name}: {mark}"));
            }
        }
        if !inside {
            for mark in [".heartbeat", "heartbeat\"", "struct Heartbeat", "peers::"] {
                if code.contains(mark) {
                    found.push(format!("{name}: {mark}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "heartbeats kept outside team/: {found:?}");
    let team = code(&all["team::heartbeat"]);
    assert!(team.contains("struct Heartbeat") && team.contains("fn over"));
}
