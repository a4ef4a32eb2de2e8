//! The layers point down (docs/ARCHITECTURE.md "Layers"). Each layer is a crate under `crates/`, so Cargo already
//! refuses a cycle; what it cannot refuse is a crate depending on one that the architecture puts above it (a
//! new edge that happens to make no cycle), a crate that no layer names, or a drawing in docs/ARCHITECTURE.md
//! that no longer matches the manifests. This test reads the manifests and the page as text, so it needs no
//! build of the crates. It also keeps the runtime families apart: each stands on the plug-in interface
//! (`runtime-api`) alone, and only the registry (`runtime-registry`) names them all.

use std::path::Path;

/// The crates of the workspace, lowest first (the directory names under `crates/`; the package is
/// `overhead-NAME`). A crate may depend on those before it; the `overhead` binary sits on top of all.
const LAYERS: &[&str] = &[
    "machine",
    "clock",
    "convert",
    "humanize",
    "stats",
    "schema",
    "harness",
    "record",
    "protocol",
    "launch",
    "timerq",
    "grpc",
    "runtime-api",
    "runtime-os",
    "runtime-fibers",
    "runtime-async",
    "runtime-parallel",
    "runtime-external",
    "runtime-registry",
    "experiments",
    "analysis",
    "history",
    "probe",
    "orchestrator",
    "crosscheck",
    "render",
    "report",
];

/// The runtime families: peers on one layer, each a crate over the plug-in interface, none depending on
/// another, so that adding or editing a runtime rebuilds its family and the crates above.
const RUNTIME_FAMILIES: &[&str] =
    &["runtime-os", "runtime-fibers", "runtime-async", "runtime-parallel", "runtime-external"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|&m| m == layer)
}

/// The workspace crates (`overhead-NAME` → `NAME`) named as dependencies in a manifest's `[dependencies]`
/// and `[dev-dependencies]` tables: `(table, NAME)`.
fn workspace_dependencies(manifest: &str) -> Vec<(String, String)> {
    let mut table = String::new();
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            table = line.trim_matches(|c| c == '[' || c == ']').to_string();
        } else if table.ends_with("dependencies") && !table.starts_with("build") {
            if let Some(name) = line.strip_prefix("overhead-") {
                let name: String = name.chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
                out.push((table.clone(), name));
            }
        }
    }
    out
}

#[test]
fn every_crate_has_a_layer() {
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if rank(&name).is_none() {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "crates without a layer in tests/it/layers.rs: {missing:?}");
}

#[test]
fn no_crate_depends_on_a_layer_above_it() {
    let mut upward = Vec::new();
    for layer in LAYERS {
        let manifest = std::fs::read_to_string(root().join("crates").join(layer).join("Cargo.toml")).unwrap();
        let deps = workspace_dependencies(&manifest);
        for (table, dep) in deps {
            let below = rank(&dep).zip(rank(layer)).is_some_and(|(d, own)| d < own);
            if !below {
                upward.push(format!("{layer} [{table}] -> {dep}"));
            }
        }
    }
    assert!(upward.is_empty(), "dependencies that point up the layers: {upward:#?}");
}

/// The table of layers in docs/ARCHITECTURE.md lists the crates in the order Cargo enforces.
#[test]
fn the_architecture_page_lists_the_layers_in_order() {
    let page = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let section = &page[page.find("## Layers").expect("a Layers section")..];
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .filter(|name| rank(name).is_some())
        .collect();
    assert_eq!(listed, LAYERS, "docs/ARCHITECTURE.md's layer table");
}

#[test]
fn a_runtime_family_stands_on_the_plugin_interface_alone() {
    let mut crossing = Vec::new();
    for family in RUNTIME_FAMILIES {
        let manifest = std::fs::read_to_string(root().join("crates").join(family).join("Cargo.toml")).unwrap();
        for (table, dep) in workspace_dependencies(&manifest) {
            if dep.starts_with("runtime") && dep != "runtime-api" {
                crossing.push(format!("{family} [{table}] -> {dep}"));
            }
        }
    }
    assert!(crossing.is_empty(), "runtime families that depend on another: {crossing:#?}");
}

#[test]
fn the_manifest_scan_reads_both_dependency_tables_and_skips_build_ones() {
    let manifest =
        "[package]\nname = \"overhead-x\"\n[dependencies]\noverhead-machine.workspace = true\nserde = \"1\"\n\
                    [build-dependencies]\noverhead-clock = { path = \"../clock\" }\n[dev-dependencies]\n\
                    overhead-record = { workspace = true, features = [\"testing\"] }\n";
    let found = workspace_dependencies(manifest);
    assert_eq!(
        found,
        [("dependencies".to_string(), "machine".to_string()), ("dev-dependencies".into(), "record".into())]
    );
}

/// What measures: the harness's timed loops, the runtimes under test and their registry, the experiments, the
/// timer queues, the gRPC stack, and the crates of the runtimes themselves (OpenMP's C code through `cc`).
const MEASURING: &[&str] = &[
    "overhead-harness",
    "overhead-runtime-api",
    "overhead-runtime-os",
    "overhead-runtime-fibers",
    "overhead-runtime-async",
    "overhead-runtime-parallel",
    "overhead-runtime-external",
    "overhead-runtime-registry",
    "overhead-experiments",
    "overhead-timerq",
    "overhead-grpc",
    "tokio",
    "smol",
    "rayon",
    "tonic",
    "hyper",
    "corosensei",
    "cc",
];

/// The crates that read records and history (the schema under them, the record, the analysis, the history
/// store, the renderer) build without anything that measures ([`MEASURING`]), in their builds or their test
/// binaries: reading a record links no timed loop. The crates that hold timed loops depend on no table, plot
/// or template crate.
const KEPT_APART: &[(&str, &[&str])] = &[
    ("schema", MEASURING),
    ("record", MEASURING),
    ("analysis", MEASURING),
    ("history", MEASURING),
    ("render", MEASURING),
    ("clock", &["comfy-table", "plotters", "minijinja", "pulldown-cmark", "overhead-render"]),
    ("convert", &["comfy-table", "plotters", "minijinja", "pulldown-cmark", "overhead-render"]),
    ("harness", &["comfy-table", "plotters", "minijinja", "pulldown-cmark", "overhead-render"]),
    ("grpc", &["comfy-table", "plotters", "minijinja", "pulldown-cmark", "overhead-render"]),
    ("timerq", &["comfy-table", "plotters", "minijinja", "pulldown-cmark", "overhead-render"]),
    ("runtime-registry", &["comfy-table", "plotters", "minijinja", "pulldown-cmark", "overhead-render"]),
    // The plug-in interface holds no runtime; each family reaches only the runtimes it holds.
    ("runtime-api", &["tokio", "smol", "rayon", "corosensei", "tonic", "cc", "crossbeam-channel", "flume", "kanal"]),
    ("runtime-os", &["tokio", "smol", "rayon", "corosensei", "tonic", "cc"]),
    ("runtime-fibers", &["tokio", "smol", "rayon", "tonic", "cc", "crossbeam-channel", "flume", "kanal"]),
    ("runtime-async", &["rayon", "corosensei", "tonic", "cc", "crossbeam-channel"]),
    ("runtime-parallel", &["tokio", "smol", "corosensei", "tonic", "crossbeam-channel", "flume", "kanal"]),
    ("runtime-external", &["tokio", "smol", "rayon", "corosensei", "tonic", "cc"]),
    ("experiments", &["comfy-table", "plotters", "minijinja", "pulldown-cmark", "overhead-render"]),
];

/// Every package name (`overhead-NAME` for the workspace's) in the `[dependencies]` and `[dev-dependencies]`
/// tables of `layer` and, through the workspace crates it names, of everything below it; build scripts'
/// dependencies too, since they are built. A crates.io package's own dependencies are not followed: the
/// names listed here are the edges this workspace chooses.
fn reachable_packages(layer: &str) -> Vec<String> {
    reachable(layer, true)
}

/// As [`reachable_packages`], through the `[dependencies]` tables only (what `cargo tree -e normal` shows):
/// what the crate's build links, without what its tests need.
fn reachable_in_build(layer: &str) -> Vec<String> {
    reachable(layer, false)
}

fn reachable(layer: &str, with_dev: bool) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut todo = vec![layer.to_string()];
    let mut out: Vec<String> = Vec::new();
    while let Some(crate_name) = todo.pop() {
        if seen.contains(&crate_name) {
            continue;
        }
        seen.push(crate_name.clone());
        let manifest = std::fs::read_to_string(root().join("crates").join(&crate_name).join("Cargo.toml")).unwrap();
        let mut table = String::new();
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                table = line.trim_matches(|c| c == '[' || c == ']').to_string();
                continue;
            }
            if !table.ends_with("dependencies") || (!with_dev && table.ends_with("dev-dependencies")) {
                continue;
            }
            let name: String =
                line.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
            if name.is_empty() {
                continue;
            }
            if let Some(inner) = name.strip_prefix("overhead-") {
                todo.push(inner.to_string());
            }
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn readers_reach_nothing_that_measures_and_timed_loops_draw_nothing() {
    let mut found = Vec::new();
    for (layer, forbidden) in KEPT_APART {
        for package in reachable_packages(layer) {
            if forbidden.contains(&package.as_str()) {
                found.push(format!("{layer} reaches {package}"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    assert!(reachable_packages("orchestrator").contains(&"tokio".to_string()), "the scan follows workspace edges");
}

/// The report's build reaches nothing that measures: it renders what the analysis put in the record
/// (the registries' answers included, `RunRecord::catalog`). Its tests analyse fixtures with the
/// registries, so its dev-dependencies may reach them; `cargo tree -p overhead-report -e normal` may not.
#[test]
fn the_report_builds_without_anything_that_measures() {
    let reached = reachable_in_build("report");
    let found: Vec<&String> = reached.iter().filter(|p| MEASURING.contains(&p.as_str())).collect();
    assert!(found.is_empty(), "the report's build reaches {found:?}");
    assert!(reachable_packages("report").contains(&"overhead-experiments".to_string()), "its tests may");
    assert!(!reachable_in_build("report").contains(&"overhead-experiments".to_string()));
}
