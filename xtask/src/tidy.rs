//! Tidy checks: the project's structural rules, checked by reading the tree and `cargo metadata`.
//!
//! **Layer:** tooling. These checks run as ordinary tests inside `cargo test --workspace` (see the
//! `tests` module below) and on demand as `cargo xtask tidy`. They read files and run
//! `cargo metadata`; they never build or change anything.
//!
//! What they keep true:
//! - every Rust file of every crate (and of the bench programs and fuzz targets) opens with a
//!   `//!` doc;
//! - library code never prints (`println!`, `eprintln!`, `print!`, `eprint!`, `dbg!`): stdout
//!   belongs to the stdio transport, and logs go through `tracing`;
//! - every workspace crate has a layer ([`LAYERS`]), and the dependency graph is the
//!   architecture (`STYLE.md`): no async runtime below the server and the providers; the
//!   adapters independent of each other; the core free of wire types and JSON; the wire types
//!   free of async; providers on the core alone; only the binary names a provider; the server
//!   built without its features has no HTTP stack and without `auth` no JWT crate; nothing
//!   depends on `xtask`;
//! - no module cycles inside a crate (`cycles.rs`, the top-level modules and each directory's);
//! - `ARCHITECTURE.md` names every crate of the workspace;
//! - no library crate has a build script (a user who links one runs nothing at build time).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Where a crate sits; the rules below are written per layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layer {
    /// Wire types of every protocol version: plain data.
    Types,
    /// The engine: no wire types, no runtime, no I/O.
    Core,
    /// The one conversion from the core's values to the wire types, shared by the adapters.
    Wire,
    /// A sans-io protocol adapter of one era.
    Adapter,
    /// The server library: transports, era selection; names no provider.
    Server,
    /// A provider: the core's seams over its own I/O; knows no server, adapter or wire type.
    Provider,
    /// A change feed between instances (Redis): the core's feed seam over its own I/O, held
    /// to the providers' rules.
    Feed,
    /// A front end over another SDK (rmcp): the server library's service behind that SDK's
    /// handler; names no provider.
    Bridge,
    /// The `mcp-resources` binary: wires everything together.
    Binary,
    /// Tooling that nothing depends on.
    Tooling,
}

/// Every crate of the workspace and its layer. A crate missing here is a tidy problem, so a new
/// crate is placed before it lands.
const LAYERS: &[(&str, Layer)] = &[
    ("mcp-types", Layer::Types),
    ("mcp-resources-core", Layer::Core),
    ("mcp-resources-wire", Layer::Wire),
    ("mcp-legacy-2025", Layer::Adapter),
    ("mcp-2026", Layer::Adapter),
    ("mcp-resources-server", Layer::Server),
    ("mcp-resources-fs", Layer::Provider),
    ("mcp-resources-git", Layer::Provider),
    ("mcp-resources-sql", Layer::Provider),
    ("mcp-resources-redis", Layer::Feed),
    ("mcp-resources-rmcp", Layer::Bridge),
    ("mcp-server-bin", Layer::Binary),
    ("xtask", Layer::Tooling),
];

/// The server library: its feature-dependent graph is checked with `cargo tree`.
const SERVER_CRATE: &str = "mcp-resources-server";

/// Async runtimes and HTTP stacks: never in the wire types, the core or the adapters.
const RUNTIME_PACKAGES: &[&str] = &["tokio", "hyper", "axum", "mio", "tower", "reqwest"];

/// What the server's `http` feature brings: never in a provider, nor in the server without it.
const HTTP_PACKAGES: &[&str] = &["hyper", "axum", "tower", "jsonwebtoken"];

/// The crates of `layer`, in [`LAYERS`] order.
fn crates_of(layer: Layer) -> impl Iterator<Item = &'static str> {
    LAYERS
        .iter()
        .filter(move |(_, of)| *of == layer)
        .map(|(name, _)| *name)
}

/// The library crates: no printing in their `src/`, no build script.
fn library_crates() -> impl Iterator<Item = &'static str> {
    LAYERS
        .iter()
        .filter(|(_, layer)| !matches!(layer, Layer::Binary | Layer::Tooling))
        .map(|(name, _)| *name)
}

/// The workspace root (the parent of this crate's directory).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// Runs every check and collects all problems found.
pub(crate) fn run_all() -> Result<(), Vec<String>> {
    let root = workspace_root();
    let mut problems = Vec::new();
    problems.extend(check_module_docs(&root));
    problems.extend(check_no_printing_in_libraries(&root));
    problems.extend(check_no_build_scripts(&root));
    problems.extend(crate::cycles::check_module_cycles(&root));
    match Metadata::load(&root) {
        Ok(metadata) => {
            problems.extend(check_every_crate_has_a_layer(&metadata));
            problems.extend(check_dependency_graph(&metadata));
            problems.extend(check_server_features(&root));
            problems.extend(check_architecture_names_every_crate(&root, &metadata));
        }
        Err(error) => problems.push(error),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// Every `.rs` file under the crates and the xtask opens with a `//!` doc comment.
fn check_module_docs(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for file in rust_files(root) {
        let text = read(&file);
        let first = text.lines().map(str::trim).find(|line| !line.is_empty());
        if !first.is_some_and(|line| line.starts_with("//!")) {
            problems.push(format!(
                "{} does not open with a `//!` doc saying what it is, its layer and what it must never know",
                relative(root, &file)
            ));
        }
    }
    problems
}

/// No print macros in the `src/` of library crates (binary entry points excepted).
fn check_no_printing_in_libraries(root: &Path) -> Vec<String> {
    const MACROS: &[&str] = &["println!", "eprintln!", "print!", "eprint!", "dbg!"];
    let mut problems = Vec::new();
    for krate in library_crates() {
        let src = root.join("crates").join(krate).join("src");
        for file in rust_files_under(&src) {
            let rel = relative(&src, &file);
            if rel == "main.rs" || rel.starts_with("bin/") {
                continue;
            }
            for (number, line) in read(&file).lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                for name in MACROS {
                    if contains_macro_call(code, name) {
                        problems.push(format!(
                            "{}:{}: `{name}` in a library crate (log through `tracing` instead)",
                            relative(root, &file),
                            number + 1
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// Whether `code` calls macro `name` (e.g. `print!`), not merely a longer name ending in it.
/// No library crate has a build script: neither a `build.rs` beside its manifest nor a `build`
/// key naming another.
fn check_no_build_scripts(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for krate in library_crates() {
        let dir = root.join("crates").join(krate);
        if dir.join("build.rs").exists() {
            problems.push(format!("{krate} has a build script (build.rs)"));
        }
        let manifest = read(&dir.join("Cargo.toml"));
        if manifest.lines().any(|line| {
            line.trim_start().starts_with("build ") || line.trim_start().starts_with("build=")
        }) {
            problems.push(format!("{krate} names a build script in its Cargo.toml"));
        }
    }
    problems
}

fn contains_macro_call(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The dependency rules of `STYLE.md`, on normal (non-dev) dependencies unless said otherwise.
fn check_dependency_graph(metadata: &Metadata) -> Vec<String> {
    let mut problems = Vec::new();
    let forbid = |problems: &mut Vec<String>, krate: &str, forbidden: &str, why: &str| {
        if metadata.workspace_member(krate).is_none() {
            problems.push(format!("the workspace has no crate `{krate}`"));
            return;
        }
        if let Some(path) = metadata.path_to(krate, forbidden) {
            problems.push(format!(
                "`{krate}` depends on `{forbidden}` ({}): {why}",
                path.join(" -> ")
            ));
        }
    };

    let sans_io = [Layer::Types, Layer::Core, Layer::Wire, Layer::Adapter];
    for krate in sans_io.into_iter().flat_map(crates_of) {
        for runtime in RUNTIME_PACKAGES {
            forbid(
                &mut problems,
                krate,
                runtime,
                "the wire types, the core, the wire conversion and the adapters are sans-io: no runtime, no HTTP stack",
            );
        }
    }
    for provider in crates_of(Layer::Provider).chain(crates_of(Layer::Feed)) {
        let above = crates_of(Layer::Types)
            .chain(crates_of(Layer::Wire))
            .chain(crates_of(Layer::Adapter))
            .chain(crates_of(Layer::Server));
        for forbidden in above.chain(HTTP_PACKAGES.iter().copied()) {
            forbid(
                &mut problems,
                provider,
                forbidden,
                "a provider or a feed stands on the core's seams and its own I/O crates only",
            );
        }
    }
    for (name, layer) in LAYERS {
        if *layer == Layer::Binary || metadata.workspace_member(name).is_none() {
            continue;
        }
        for provider in crates_of(Layer::Provider).chain(crates_of(Layer::Feed)) {
            forbid(
                &mut problems,
                name,
                provider,
                "only the binary names a provider or a feed",
            );
        }
    }
    forbid(
        &mut problems,
        "mcp-legacy-2025",
        "mcp-2026",
        "the adapters are independent of each other",
    );
    for krate in ["mcp-resources-server", "mcp-server-bin"] {
        forbid(
            &mut problems,
            krate,
            "rmcp",
            "another SDK is the rmcp bridge's business alone",
        );
    }
    forbid(
        &mut problems,
        "mcp-2026",
        "mcp-legacy-2025",
        "the adapters are independent of each other",
    );
    for conversion in crates_of(Layer::Wire) {
        for adapter in crates_of(Layer::Adapter) {
            forbid(
                &mut problems,
                conversion,
                adapter,
                "the wire conversion is shared by the adapters and knows neither",
            );
        }
    }
    for wire in ["mcp-types", "serde_json", "mcp-legacy-2025", "mcp-2026"] {
        forbid(
            &mut problems,
            "mcp-resources-core",
            wire,
            "the core knows no wire types and no JSON",
        );
    }
    for asynchronous in [
        "async-trait",
        "futures",
        "futures-core",
        "mcp-resources-core",
    ] {
        forbid(
            &mut problems,
            "mcp-types",
            asynchronous,
            "the wire types are plain data: no async and no engine",
        );
    }
    // The core's tests must not bring a runtime in through the back door either.
    for dev in metadata.direct_dev_dependencies("mcp-resources-core") {
        if RUNTIME_PACKAGES.contains(&dev.as_str()) {
            problems.push(format!(
                "`mcp-resources-core` has the dev-dependency `{dev}`: the core is tested without an async runtime"
            ));
        }
    }
    for (name, id) in &metadata.members {
        if name != "xtask" && metadata.path_to_id(id, "xtask").is_some() {
            problems.push(format!("`{name}` depends on `xtask`: nothing may"));
        }
    }
    problems
}

/// Every workspace crate is placed in [`LAYERS`], and every crate there exists.
fn check_every_crate_has_a_layer(metadata: &Metadata) -> Vec<String> {
    let placed: BTreeSet<&str> = LAYERS.iter().map(|(name, _)| *name).collect();
    let members: BTreeSet<&str> = metadata.members.keys().map(String::as_str).collect();
    let unplaced = members.difference(&placed).map(|name| {
        format!("the crate `{name}` has no layer: add it to LAYERS in xtask/src/tidy.rs")
    });
    let gone = placed
        .difference(&members)
        .map(|name| format!("LAYERS names `{name}`, which is not a workspace crate"));
    unplaced.chain(gone).collect()
}

/// The server's graph as a library user builds it: with no features it has no HTTP stack, and
/// with `http` alone no JWT crate. `cargo tree -p` resolves the features of that package alone
/// (the binary turns both on, so the workspace-wide graph cannot tell).
fn check_server_features(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for (features, forbidden) in [("", HTTP_PACKAGES), ("http", &["jsonwebtoken"][..])] {
        let packages = match tree_packages(root, SERVER_CRATE, features) {
            Ok(packages) => packages,
            Err(error) => return vec![error],
        };
        for package in forbidden {
            if packages.contains(*package) {
                let built = if features.is_empty() {
                    "without features".to_owned()
                } else {
                    format!("with only `{features}`")
                };
                problems.push(format!(
                    "`{SERVER_CRATE}` built {built} builds `{package}`: it belongs behind a feature"
                ));
            }
        }
    }
    problems
}

/// The names of the packages `krate` builds as normal dependencies with only `features` on.
fn tree_packages(root: &Path, krate: &str, features: &str) -> Result<BTreeSet<String>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let host = host_triple()?;
    let mut command = Command::new(cargo);
    command.current_dir(root).args([
        "tree",
        "--package",
        krate,
        "--edges",
        "normal",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "--target",
        &host,
    ]);
    if !features.is_empty() {
        command.args(["--features", features]);
    }
    let output = command
        .output()
        .map_err(|error| format!("cannot run cargo tree: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo tree -p {krate} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect())
}

/// `ARCHITECTURE.md` names every workspace crate.
fn check_architecture_names_every_crate(root: &Path, metadata: &Metadata) -> Vec<String> {
    let path = root.join("ARCHITECTURE.md");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return vec!["ARCHITECTURE.md is missing".to_owned()];
    };
    metadata
        .members
        .keys()
        .filter(|name| !text.contains(&format!("`{name}`")))
        .map(|name| format!("ARCHITECTURE.md does not name the crate `{name}` (in backticks)"))
        .collect()
}

/// The target triple of this machine, as `rustc -vV` names it.
fn host_triple() -> Result<String, String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = Command::new(rustc)
        .arg("-vV")
        .output()
        .map_err(|error| format!("cannot run rustc -vV: {error}"))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "rustc -vV names no host".to_owned())
}

/// The parts of `cargo metadata` the checks need.
struct Metadata {
    /// Workspace members by package name, to package id.
    members: BTreeMap<String, String>,
    /// Package id to package name.
    names: BTreeMap<String, String>,
    /// Package id to the ids of its normal (non-dev, non-build) dependencies.
    normal: BTreeMap<String, Vec<String>>,
    /// Package id to the ids of its dev dependencies.
    dev: BTreeMap<String, Vec<String>>,
}

impl Metadata {
    fn load(root: &Path) -> Result<Metadata, String> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        // The graph of what is built here: a dependency only some other platform takes (the
        // browser bindings `jsonwebtoken` and `getrandom` use on wasm32, say) is not built
        // with the product.
        let host = host_triple()?;
        let output = Command::new(cargo)
            .current_dir(root)
            .args([
                "metadata",
                "--format-version",
                "1",
                "--filter-platform",
                &host,
            ])
            .output()
            .map_err(|error| format!("cannot run cargo metadata: {error}"))?;
        if !output.status.success() {
            return Err(format!(
                "cargo metadata failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let json: Value = serde_json::from_slice(&output.stdout)
            .map_err(|error| format!("cargo metadata printed invalid JSON: {error}"))?;
        Ok(Metadata::from_json(&json))
    }

    fn from_json(json: &Value) -> Metadata {
        let mut names = BTreeMap::new();
        for package in json["packages"].as_array().into_iter().flatten() {
            if let (Some(id), Some(name)) = (package["id"].as_str(), package["name"].as_str()) {
                names.insert(id.to_owned(), name.to_owned());
            }
        }
        let members = json["workspace_members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter_map(|id| Some((names.get(id)?.clone(), id.to_owned())))
            .collect();
        let mut normal = BTreeMap::new();
        let mut dev = BTreeMap::new();
        for node in json["resolve"]["nodes"].as_array().into_iter().flatten() {
            let Some(id) = node["id"].as_str() else {
                continue;
            };
            let (mut normal_deps, mut dev_deps) = (Vec::new(), Vec::new());
            for dep in node["deps"].as_array().into_iter().flatten() {
                let Some(dep_id) = dep["pkg"].as_str() else {
                    continue;
                };
                for kind in dep["dep_kinds"].as_array().into_iter().flatten() {
                    match kind["kind"].as_str() {
                        None => normal_deps.push(dep_id.to_owned()),
                        Some("dev") => dev_deps.push(dep_id.to_owned()),
                        Some(_) => {}
                    }
                }
            }
            normal.insert(id.to_owned(), normal_deps);
            dev.insert(id.to_owned(), dev_deps);
        }
        Metadata {
            members,
            names,
            normal,
            dev,
        }
    }

    fn workspace_member(&self, name: &str) -> Option<&String> {
        self.members.get(name)
    }

    /// The chain of package names from workspace crate `from` to a package named `to`, if any.
    fn path_to(&self, from: &str, to: &str) -> Option<Vec<String>> {
        self.path_to_id(self.workspace_member(from)?, to)
    }

    /// Breadth-first search over normal dependencies, so the reported chain is a shortest one.
    fn path_to_id(&self, from_id: &str, to: &str) -> Option<Vec<String>> {
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut seen = BTreeSet::from([from_id]);
        let mut queue = std::collections::VecDeque::from([from_id]);
        while let Some(id) = queue.pop_front() {
            if id != from_id && self.names.get(id).is_some_and(|name| name == to) {
                let mut chain = vec![id];
                while let Some(previous) = parent.get(chain[chain.len() - 1]) {
                    chain.push(previous);
                }
                chain.reverse();
                return Some(chain.iter().map(|id| self.names[*id].clone()).collect());
            }
            for dep in self.normal.get(id).into_iter().flatten() {
                if seen.insert(dep) {
                    parent.insert(dep, id);
                    queue.push_back(dep);
                }
            }
        }
        None
    }

    fn direct_dev_dependencies(&self, name: &str) -> Vec<String> {
        let Some(id) = self.workspace_member(name) else {
            return Vec::new();
        };
        self.dev
            .get(id)
            .into_iter()
            .flatten()
            .map(|dep| self.names[dep].clone())
            .collect()
    }
}

/// All `.rs` files of the crates (sources, tests, benches, examples), of the xtask, of the
/// bench-only programs under `bench/` and of the fuzz targets under `fuzz/`.
fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut files = rust_files_under(&root.join("crates"));
    files.extend(rust_files_under(&root.join("xtask").join("src")));
    files.extend(rust_files_under(&root.join("bench")));
    files.extend(rust_files_under(&root.join("fuzz")));
    files
}

fn rust_files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                // Build output and snapshot folders hold no sources of ours.
                if !matches!(
                    name.to_str(),
                    Some("target" | "snapshots" | "fixtures" | "corpus" | "artifacts")
                ) {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("cannot read {path:?}: {error}"))
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_clean(problems: Vec<String>) {
        assert!(
            problems.is_empty(),
            "tidy problems:\n{}",
            problems.join("\n")
        );
    }

    fn metadata() -> Metadata {
        Metadata::load(&workspace_root()).expect("cargo metadata")
    }

    #[test]
    fn every_module_opens_with_a_doc() {
        assert_clean(check_module_docs(&workspace_root()));
    }

    #[test]
    fn libraries_never_print() {
        assert_clean(check_no_printing_in_libraries(&workspace_root()));
    }

    #[test]
    fn no_library_crate_has_a_build_script() {
        assert_clean(check_no_build_scripts(&workspace_root()));
    }

    #[test]
    fn dependency_graph_is_the_architecture() {
        assert_clean(check_every_crate_has_a_layer(&metadata()));
        assert_clean(check_dependency_graph(&metadata()));
    }

    #[test]
    fn the_server_builds_its_http_stack_only_behind_features() {
        assert_clean(check_server_features(&workspace_root()));
    }

    #[test]
    fn architecture_md_names_every_crate() {
        assert_clean(check_architecture_names_every_crate(
            &workspace_root(),
            &metadata(),
        ));
    }

    #[test]
    fn macro_detection_ignores_longer_names() {
        assert!(contains_macro_call("println!(\"x\")", "println!"));
        assert!(contains_macro_call("let _ = dbg!(x);", "dbg!"));
        assert!(!contains_macro_call("eprintln!(\"x\")", "println!"));
        assert!(!contains_macro_call("my_print!(x)", "print!"));
    }

    /// The graph check itself must notice a violation, or it proves nothing.
    #[test]
    fn dependency_check_notices_a_forbidden_edge() {
        let json = serde_json::json!({
            "packages": [
                {"id": "core", "name": "mcp-resources-core"},
                {"id": "wire", "name": "mcp-resources-wire"},
                {"id": "glue", "name": "glue"},
                {"id": "tokio", "name": "tokio"},
                {"id": "axum", "name": "axum"},
                {"id": "types", "name": "mcp-types"},
                {"id": "legacy", "name": "mcp-legacy-2025"},
                {"id": "modern", "name": "mcp-2026"},
                {"id": "server", "name": "mcp-resources-server"},
                {"id": "fs", "name": "mcp-resources-fs"},
                {"id": "git", "name": "mcp-resources-git"},
                {"id": "sql", "name": "mcp-resources-sql"},
                {"id": "bin", "name": "mcp-server-bin"},
                {"id": "feed", "name": "mcp-resources-redis"},
                {"id": "bridge", "name": "mcp-resources-rmcp"},
                {"id": "rmcp", "name": "rmcp"},
                {"id": "xtask", "name": "xtask"}
            ],
            "workspace_members": ["core", "wire", "types", "legacy", "modern", "server", "fs", "git", "sql", "bin", "feed", "bridge", "xtask"],
            "resolve": {"nodes": [
                {"id": "core", "deps": [
                    {"pkg": "glue", "dep_kinds": [{"kind": null}]},
                    {"pkg": "tokio", "dep_kinds": [{"kind": "dev"}]}
                ]},
                {"id": "glue", "deps": [{"pkg": "tokio", "dep_kinds": [{"kind": null}]}]},
                {"id": "wire", "deps": [{"pkg": "types", "dep_kinds": [{"kind": null}]}]},
                {"id": "legacy", "deps": [{"pkg": "modern", "dep_kinds": [{"kind": null}]}]},
                {"id": "types", "deps": []},
                {"id": "modern", "deps": []},
                {"id": "server", "deps": [
                    {"pkg": "tokio", "dep_kinds": [{"kind": null}]},
                    {"pkg": "fs", "dep_kinds": [{"kind": null}]},
                    {"pkg": "rmcp", "dep_kinds": [{"kind": null}]}
                ]},
                {"id": "bridge", "deps": [{"pkg": "rmcp", "dep_kinds": [{"kind": null}]}]},
                {"id": "rmcp", "deps": []},
                {"id": "feed", "deps": []},
                {"id": "fs", "deps": [
                    {"pkg": "tokio", "dep_kinds": [{"kind": null}]},
                    {"pkg": "axum", "dep_kinds": [{"kind": null}]}
                ]},
                {"id": "git", "deps": [
                    {"pkg": "core", "dep_kinds": [{"kind": null}]},
                    {"pkg": "fs", "dep_kinds": [{"kind": null}]}
                ]},
                {"id": "sql", "deps": [{"pkg": "core", "dep_kinds": [{"kind": null}]}]},
                {"id": "bin", "deps": [
                    {"pkg": "server", "dep_kinds": [{"kind": null}]},
                    {"pkg": "fs", "dep_kinds": [{"kind": null}]},
                    {"pkg": "git", "dep_kinds": [{"kind": null}]}
                ]},
                {"id": "xtask", "deps": []},
                {"id": "tokio", "deps": []},
                {"id": "axum", "deps": []}
            ]}
        });
        let metadata = Metadata::from_json(&json);
        assert_clean(check_every_crate_has_a_layer(&metadata));
        let problems = check_dependency_graph(&metadata);
        let joined = problems.join("\n");
        for expected in [
            "`mcp-resources-core` depends on `tokio` (mcp-resources-core -> glue -> tokio)",
            "`mcp-legacy-2025` depends on `mcp-2026`",
            "dev-dependency `tokio`",
            "`mcp-resources-fs` depends on `axum` (mcp-resources-fs -> axum)",
            "`mcp-resources-server` depends on `mcp-resources-fs` (mcp-resources-server -> mcp-resources-fs): only the binary names a provider",
            "`mcp-resources-git` depends on `mcp-resources-fs` (mcp-resources-git -> mcp-resources-fs): only the binary names a provider",
            "`mcp-resources-server` depends on `rmcp` (mcp-resources-server -> rmcp): another SDK",
        ] {
            assert!(joined.contains(expected), "{expected} in:\n{joined}");
        }
        // The binary may name providers (its only problem is rmcp, through the server).
        assert!(
            !problems
                .iter()
                .any(|p| p.starts_with("`mcp-server-bin`") && !p.contains("rmcp")),
            "{joined}"
        );
        assert_eq!(problems.len(), 9, "{joined}");
    }

    #[test]
    fn a_crate_without_a_layer_is_a_problem() {
        let json = serde_json::json!({
            "packages": [{"id": "new", "name": "mcp-resources-new"}],
            "workspace_members": ["new"],
            "resolve": {"nodes": [{"id": "new", "deps": []}]}
        });
        let problems = check_every_crate_has_a_layer(&Metadata::from_json(&json));
        assert!(
            problems
                .iter()
                .any(|p| p.contains("`mcp-resources-new` has no layer")),
            "{problems:?}"
        );
    }
}
