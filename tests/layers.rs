//! The layers of `src/` (issue 65): six folders, each a layer, in the order [`ORDER`] names. A
//! module may use its own layer and those below it; an import that points to a higher layer
//! fails here, naming the file and the line. Inside each layer, no two modules depend on
//! each other in a circle. Reads every `src/**/*.rs` without its `#[cfg(test)]` part; every
//! path into the crate is written `crate::layer::module…` (a path that is not is a failure
//! too). lib.rs and each layer's `mod.rs` say the same in prose.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first.
const ORDER: [&str; 6] = ["base", "model", "formats", "analysis", "crawl", "face"];

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

/// A place in the crate: its layer and the module in it (`("crawl", "data")`).
type Place = (String, String);

/// The place a file of `src/` is in (`None` for lib.rs, main.rs and a layer's own mod.rs).
fn place_of(rel: &str) -> Option<Place> {
    let mut parts = rel.split('/');
    let layer = parts.next()?;
    let module = parts.next()?.trim_end_matches(".rs");
    (module != "mod").then(|| (layer.to_owned(), module.to_owned()))
}

/// The places `text` names as `crate::layer::module…` outside comments, with their line
/// (from 1); a `crate::x` whose `x` is no layer comes back as `("", x)`.
fn uses(text: &str) -> Vec<(Place, usize)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            // `$crate::` is the crate too; `foo_crate::` is not.
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let name = |s: &str| -> String {
                s.chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect()
            };
            assert!(
                !rest.starts_with('{'),
                "a grouped `crate::{{…}}` import is not read by this test: {line}"
            );
            let layer = name(rest);
            if !ORDER.contains(&layer.as_str()) {
                out.push(((String::new(), layer), n + 1));
                continue;
            }
            let after = &rest[layer.len()..];
            let module = after.strip_prefix("::").map(name).unwrap_or_default();
            out.push(((layer, module), n + 1));
        }
    }
    out
}

/// Every file of `src/` as (path relative to src, its non-test text).
fn tree() -> Vec<(String, String)> {
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

/// What breaks the layering in `files`: an import that points up, a path around the layers.
fn upward(files: &[(String, String)]) -> Vec<String> {
    let rank = |l: &str| ORDER.iter().position(|o| *o == l);
    let mut bad = Vec::new();
    for (rel, text) in files {
        let Some((layer, _)) = place_of(rel) else {
            continue;
        };
        for ((to_layer, to_module), line) in uses(text) {
            match (rank(&layer), rank(&to_layer)) {
                (Some(from), Some(to)) if to <= from => {}
                (Some(_), Some(_)) => bad.push(format!(
                    "{rel}:{line}: {layer} uses {to_layer}::{to_module}, a higher layer"
                )),
                _ => bad.push(format!(
                    "{rel}:{line}: crate::{to_module} is not in a layer of {ORDER:?}"
                )),
            }
        }
    }
    bad
}

/// Edges `module → module` inside each layer, with one file that makes each.
fn edges_in_layers(files: &[(String, String)]) -> BTreeMap<(String, String), String> {
    let mut edges = BTreeMap::new();
    for (rel, text) in files {
        let Some((layer, module)) = place_of(rel) else {
            continue;
        };
        for ((to_layer, to_module), _) in uses(text) {
            if to_layer == layer && to_module != module && !to_module.is_empty() {
                edges
                    .entry((
                        format!("{layer}::{module}"),
                        format!("{layer}::{to_module}"),
                    ))
                    .or_insert_with(|| rel.clone());
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

/// The first cycle among the modules of one layer, its steps with a file each.
fn cycle_in_layers(files: &[(String, String)]) -> Option<String> {
    let edges = edges_in_layers(files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from.clone()).or_default().insert(to.clone());
    }
    let cycle = find_cycle(&graph)?;
    let steps: Vec<String> = cycle
        .windows(2)
        .map(|w| {
            let file = &edges[&(w[0].clone(), w[1].clone())];
            format!("{} → {} ({file})", w[0], w[1])
        })
        .collect();
    Some(steps.join("\n  "))
}

#[test]
fn no_import_points_to_a_higher_layer() {
    let files = tree();
    let imports: usize = files.iter().map(|(_, t)| uses(t).len()).sum();
    assert!(imports > 500, "the source tree was read: {imports} paths");
    let bad = upward(&files);
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_two_modules_of_a_layer_depend_on_each_other_in_a_circle() {
    let files = tree();
    assert!(edges_in_layers(&files).len() > 30);
    if let Some(steps) = cycle_in_layers(&files) {
        panic!("a module cycle inside a layer:\n  {steps}");
    }
}

/// The checks themselves, on made-up files: an upward import is caught (and named), a
/// downward one passes, a circle inside a layer is found, one across layers is not a layer's.
#[test]
fn the_checks_catch_an_upward_import_and_a_circle() {
    let file = |rel: &str, text: &str| (rel.to_owned(), text.to_owned());
    let up = [
        file("base/ids.rs", "use crate::base::utc::Now;\n"),
        file(
            "model/site.rs",
            "use crate::base::ids::SiteId;\n// crate::face::cli\nuse crate::crawl::data::Pages;\n",
        ),
        file(
            "formats/warc/mod.rs",
            "#[cfg(test)]\nuse crate::face::cli::x;\n",
        ),
    ];
    let cut = |files: &[(String, String)]| -> Vec<(String, String)> {
        files
            .iter()
            .map(|(r, t)| {
                (
                    r.clone(),
                    t.split("#[cfg(test)]").next().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(
        upward(&cut(&up)),
        ["model/site.rs:3: model uses crawl::data, a higher layer"]
    );
    let around = [file("model/site.rs", "let x = crate::data::X;\n")];
    assert_eq!(upward(&around).len(), 1);
    let circle = [
        file("crawl/app/mod.rs", "use crate::crawl::engine::run;\n"),
        file("crawl/engine/mod.rs", "use crate::crawl::data::D;\n"),
        file("crawl/data/x.rs", "use crate::crawl::app::A;\n"),
        file("face/cli.rs", "use crate::crawl::app::A;\n"),
    ];
    let steps = cycle_in_layers(&circle).unwrap();
    assert!(
        steps.contains("crawl::data → crawl::app (crawl/data/x.rs)"),
        "{steps}"
    );
    assert!(cycle_in_layers(&circle[1..]).is_none());
    assert_eq!(
        uses("use crate::crawl::data::coord::Solo; // crate::analysis::report\nlet x = $crate::base::stop::GRACE;")
            .into_iter()
            .map(|((l, m), n)| format!("{l}::{m}@{n}"))
            .collect::<Vec<_>>(),
        ["crawl::data@1", "base::stop@2"]
    );
}

#[test]
fn src_has_the_layers_and_at_most_ten_entries() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut entries: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert!(entries.len() <= 10, "{entries:?}");
    for layer in ORDER {
        assert!(src.join(layer).join("mod.rs").is_file(), "{layer}/mod.rs");
    }
}

/// lib.rs names every layer; each layer's mod.rs lists every module it declares.
#[test]
fn the_docs_list_every_layer_and_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let declared = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| {
                l.strip_prefix("pub mod ")
                    .or_else(|| l.strip_prefix("pub(crate) mod "))
                    .or_else(|| l.strip_prefix("mod "))
            })
            .map(|l| l.trim_end_matches(';').to_owned())
            .collect()
    };
    assert_eq!(declared(&lib).len(), ORDER.len(), "{:?}", declared(&lib));
    let layers = lib.split("# Layers").nth(1).unwrap();
    for (i, layer) in ORDER.iter().enumerate() {
        assert!(
            layers.contains(&format!("{}. [`{layer}`]", i + 1)),
            "lib.rs's Layers do not list {layer} as number {}",
            i + 1
        );
        let text = std::fs::read_to_string(src.join(layer).join("mod.rs")).unwrap();
        let modules = declared(&text);
        assert!(!modules.is_empty(), "{layer}");
        for m in modules {
            assert!(
                text.contains(&format!("[`{m}`]")),
                "{layer}/mod.rs does not list module {m}"
            );
        }
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

/// The files of one module folder (`crawl/fetch`) as units (a subfolder is one), and which
/// use which: through `super::file::…`, `crate::crawl::fetch::file::…`, and the names the
/// folder's mod.rs re-exports (`super::FetchError` is fetch_error.rs's). A name mod.rs
/// itself defines makes an edge to `mod`.
fn folder_edges(folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let dir = src.join(folder);
    let module = format!("crate::{}::", folder.replace('/', "::"));
    let mut files = Vec::new();
    sources(&dir, &mut files);
    let unit_of = |f: &Path| -> String {
        let rel = f.strip_prefix(&dir).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_owned()
    };
    let units: BTreeSet<String> = files.iter().map(|f| unit_of(f)).collect();
    let text = |f: &Path| {
        let t = std::fs::read_to_string(f).unwrap();
        t.split("#[cfg(test)]").next().unwrap_or("").to_owned()
    };
    // `pub use file::{A, B};` and `pub use file::A;` in mod.rs: name → file.
    let mut reexported = BTreeMap::new();
    let mod_rs = text(&dir.join("mod.rs")).replace('\n', " ");
    for part in mod_rs.split("use ").skip(1) {
        let stmt = part.split(';').next().unwrap_or("");
        let Some((file, names)) = stmt.split_once("::") else {
            continue;
        };
        if !units.contains(file) {
            continue;
        }
        for name in names
            .trim_matches(|c| c == '{' || c == '}' || c == ' ')
            .split(',')
        {
            let name = name.split(" as ").last().unwrap_or("").trim();
            if !name.is_empty() && name != "self" {
                reexported.insert(name.to_owned(), file.to_owned());
            }
        }
    }
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let unit = unit_of(f);
        if unit == "mod" {
            continue;
        }
        let top_level = f.parent() == Some(dir.as_path());
        let body = text(f);
        let mut names = Vec::new();
        for line in body.lines() {
            let code = line.split("//").next().unwrap_or("");
            let mut prefixes = vec![module.as_str()];
            if top_level {
                prefixes.push("super::");
            }
            for p in prefixes {
                for (at, _) in code.match_indices(p) {
                    let rest = &code[at + p.len()..];
                    if let Some(group) = rest.strip_prefix('{') {
                        let group = group.split('}').next().unwrap_or("");
                        names.extend(group.split(',').map(|n| ident(n.trim())));
                    } else {
                        names.push(ident(rest));
                    }
                }
            }
        }
        for name in names {
            let to = if units.contains(&name) {
                name
            } else if let Some(file) = reexported.get(&name) {
                file.clone()
            } else if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                "mod".to_owned()
            } else {
                continue;
            };
            if to != unit {
                edges.entry(unit.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// See: issue 65 — the fetch/ knot (eleven files importing each other in a circle) untied:
/// the archive is a transport beside the network, answers and heads have files of their own.
#[test]
fn the_files_of_fetch_do_not_use_each_other_in_a_circle() {
    let edges = folder_edges("crawl/fetch");
    assert!(edges.len() > 10, "{edges:?}");
    assert!(edges["client"].contains("transport"), "{edges:?}");
    if let Some(cycle) = find_cycle(&edges) {
        panic!("files of crawl/fetch in a circle: {}", cycle.join(" → "));
    }
    // The archive is not named by the client: it is a transport.
    assert!(!edges["client"].contains("from_archive"), "{edges:?}");
}
