//! The modules' layering (issue 45): no top-level module of `src/` depends on another in a
//! circle. Reads every `src/**/*.rs` (without its `#[cfg(test)]` part), maps each `crate::x`
//! path to the top-level module `x`, and fails on any cycle, naming the modules and one file
//! of each edge. lib.rs's Layout, which lists every module, says the same in prose.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`lib` and `main` for those files).
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_owned()
}

/// The top-level modules `text` names as `crate::x…`, outside comments.
fn uses(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            // `rccrawler::crate::` does not occur; a path like `foo_crate::` would.
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
            assert!(
                !rest.starts_with('{'),
                "a grouped `crate::{{…}}` import is not read by this test: {line}"
            );
        }
    }
    out
}

/// Edges `from → to` with one file that makes each.
fn edges() -> BTreeMap<(String, String), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut edges = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        let from = module_of(&rel);
        if from == "main" || from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        for to in uses(body) {
            if to != from {
                edges
                    .entry((from.clone(), to))
                    .or_insert_with(|| rel.display().to_string());
            }
        }
    }
    edges
}

/// A cycle through the graph, if there is one (depth-first search).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = path.iter().position(|n| n == node).unwrap();
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_owned(), Mark::Open);
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, marks, path) {
                return Some(c);
            }
        }
        path.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(c) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_top_level_module_depends_on_another_in_a_circle() {
    let edges = edges();
    assert!(
        edges.len() > 50,
        "the source tree was read: {} edges",
        edges.len()
    );
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from.clone()).or_default().insert(to.clone());
    }
    if let Some(cycle) = find_cycle(&graph) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| {
                format!(
                    "{} → {} ({})",
                    w[0],
                    w[1],
                    edges[&(w[0].clone(), w[1].clone())]
                )
            })
            .collect();
        panic!("a module cycle:\n  {}", steps.join("\n  "));
    }
}

#[test]
fn the_cycle_finder_finds_a_circle_and_passes_a_layering() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry((*a).to_owned())
                .or_default()
                .insert((*b).to_owned());
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        find_cycle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])),
        None
    );
    assert_eq!(
        uses("use crate::data::coord::Solo; // crate::report\nlet x = crate::stop::STOP_GRACE;"),
        ["data", "stop"].into_iter().map(String::from).collect()
    );
}

#[test]
fn lib_rs_lists_every_top_level_module_in_its_layout() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let layout = lib.split("# Layout").nth(1).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("pub(crate) mod "))
                .or_else(|| l.strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert!(declared.len() > 20, "{declared:?}");
    for m in declared {
        assert!(
            layout.contains(&format!("[`{m}`]")),
            "lib.rs's Layout does not list module {m}"
        );
    }
}


/// `src/` files as (path relative to src, text before `#[cfg(test)]`).
fn non_test_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().display().to_string();
            let text = std::fs::read_to_string(&f).unwrap();
            let body = text.split("#[cfg(test)]").next().unwrap_or("").to_owned();
            (rel, body)
        })
        .collect()
}

/// See: issue 45 — "no room over 600 lines": a file that grows past it is split by job.
#[test]
fn no_source_file_is_over_600_lines_outside_its_tests() {
    let big: Vec<(usize, String)> = non_test_sources()
        .into_iter()
        .filter(|(rel, _)| !rel.ends_with("tests.rs"))
        .map(|(rel, body)| (body.matches('\n').count(), rel))
        .filter(|(n, _)| *n > 600)
        .collect();
    assert!(big.is_empty(), "files over 600 non-test lines: {big:?}");
}

/// See: issue 45 — no function over 100 lines (brace-matched, strings and comments aside).
#[test]
fn no_function_is_over_100_lines() {
    let mut long = Vec::new();
    for (rel, body) in non_test_sources() {
        let lines: Vec<&str> = body.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let t = lines[i].trim_start();
            let starts = [
                "fn ",
                "pub fn ",
                "pub(crate) fn ",
                "pub(super) fn ",
                "const fn ",
            ]
            .iter()
            .any(|p| t.starts_with(p))
                || t.starts_with("pub(in ") && t.contains(") fn ");
            if !starts {
                i += 1;
                continue;
            }
            let (mut depth, mut opened, mut j) = (0i64, false, i);
            while j < lines.len() {
                let code = strip_strings(lines[j]);
                let code = code.split("//").next().unwrap_or("");
                let opens = code.matches('{').count() as i64;
                depth += opens - code.matches('}').count() as i64;
                opened |= opens > 0;
                if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                    break;
                }
                j += 1;
            }
            if opened && j - i + 1 > 100 {
                long.push(format!("{rel}:{} ({} lines)", i + 1, j - i + 1));
            }
            i = if opened { j + 1 } else { i + 1 };
        }
    }
    assert!(long.is_empty(), "functions over 100 lines: {long:?}");
}

/// A line with its string and char literals emptied (their braces are not code).
fn strip_strings(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str("\"\"");
            }
            '\'' => {
                // A char literal ('x', '\n', '{') or a lifetime ('a).
                let rest: String = chars.clone().take(3).collect();
                let lit = rest.starts_with('\\') || rest.chars().nth(1) == Some('\'');
                if lit {
                    while let Some(d) = chars.next() {
                        if d == '\\' {
                            chars.next();
                        } else if d == '\'' {
                            break;
                        }
                    }
                    out.push_str("''");
                } else {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}
