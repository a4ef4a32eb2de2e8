//! The layers point down (docs/ARCHITECTURE.md "Layers"): no module of `src/` uses a top-level module that
//! sits above its own in [`LAYERS`]. Reads the sources as text, so it needs no build of the crate's internals:
//! every `crate::NAME` path, including the names inside a grouped `use crate::{…}`, outside comments and
//! outside test code (`tests.rs`, `testing.rs`, `fixture.rs` and a file's trailing `#[cfg(test)] mod tests`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The top-level modules of `src/`, lowest first. A module may use those before it and itself.
const LAYERS: &[&str] = &[
    "machine",
    "clock",
    "units",
    "stats",
    "harness",
    "record",
    "render",
    "protocol",
    "hosts",
    "runtimes",
    "experiments",
    "analysis",
    "history",
    "orchestrator",
    "report",
    "cli",
];

/// Pairs of sibling modules inside one layer where the first must not use the second (a circle once
/// stood there): the plug-in trait knows nothing of the runtimes that implement it.
const SIBLINGS_APART: &[(&str, &str)] = &[("runtimes/plugin.rs", "runtimes::external::")];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|&m| m == module)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's text without its trailing test module and without `//` comments.
fn code_of(text: &str) -> String {
    let text = text.find("#[cfg(test)]\nmod tests").map_or(text, |i| &text[..i]);
    text.lines().map(|line| line.find("//").map_or(line, |i| &line[..i])).collect::<Vec<_>>().join("\n")
}

/// Every top-level module named by a `crate::` path in `code`.
fn crate_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let word = |s: &str| s.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect::<String>();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b::{Y, Z}}`: the first word of each top-level item of the group.
            for item in split_top_level(group) {
                let name = word(item.trim_start());
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name = word(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// The items of a `{…}` group (the text after the opening brace), split at its top-level commas.
fn split_top_level(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_str().unwrap();
    matches!(name, "tests.rs" | "testing.rs" | "fixture.rs") || path.components().any(|c| c.as_os_str() == "tests")
}

/// Every `(file, module it uses)` where the module sits above the file's own layer.
fn upward_imports(src: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = Vec::new();
    for path in files.iter().filter(|p| !is_test_file(p)) {
        let rel = path.strip_prefix(src).unwrap().to_str().unwrap().to_string();
        let top = rel.split('/').next().unwrap().trim_end_matches(".rs");
        let Some(own) = rank(top) else { continue };
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        for used in crate_modules(&code) {
            if rank(&used).is_some_and(|r| r > own) {
                out.push((rel.clone(), used));
            }
        }
        for (file, forbidden) in SIBLINGS_APART {
            if rel == *file && code.contains(forbidden) {
                out.push((rel.clone(), forbidden.to_string()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_top_level_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if !matches!(name.as_str(), "lib" | "main") && (path.is_dir() || name != "mod") && rank(&name).is_none() {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "top-level modules without a layer in tests/layers.rs: {missing:?}");
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let upward = upward_imports(&src);
    assert!(upward.is_empty(), "imports that point up the layers (file, module above it): {upward:#?}");
}

#[test]
fn the_scan_finds_plain_and_grouped_paths_and_skips_comments_and_tests() {
    let code = code_of(
        "use crate::record::X;\nuse crate::{report::Y, cli::{A, B}};\n// crate::orchestrator::Z\nlet a = \
         crate::history::f();\n#[cfg(test)]\nmod tests {\n    use crate::analysis::W;\n}\n",
    );
    let found: Vec<String> = crate_modules(&code).into_iter().collect();
    assert_eq!(found, ["cli", "history", "record", "report"]);
}
