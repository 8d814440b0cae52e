// SPDX-License-Identifier: MIT OR Apache-2.0
//! The folders show the layers (`docs/layout.md`): every crate of the
//! workspace has a place in the table below, and uses only crates placed
//! below it. A dependency back up a layer (the kernel on rma, say) fails
//! here, naming both crates.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The two stacks: the guest's (what runs on the cores) and the host's
/// (the chip model and the commands). The chip is the floor of both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stack {
    Floor,
    Guest,
    Host,
    /// The system tests, which may use anything.
    Top,
}

/// Each crate's folder, its stack and its layer: a crate may use a crate
/// of a lower layer in its own stack or on the floor.
const LAYERS: &[(&str, Stack, u32)] = &[
    ("kernel/chip", Stack::Floor, 0),
    ("kernel", Stack::Guest, 1),
    ("kernel/crt", Stack::Guest, 2),
    ("rma", Stack::Guest, 3),
    ("rma/dsm", Stack::Guest, 4),
    ("rma/gas", Stack::Guest, 4),
    ("rma/mpi", Stack::Guest, 5),
    ("rma/shmem", Stack::Guest, 5),
    ("apps/*", Stack::Guest, 6),
    ("emu", Stack::Host, 1),
    ("emu/plugin", Stack::Host, 2),
    ("xtask", Stack::Host, 3),
    ("tests", Stack::Top, u32::MAX),
];

/// The folder of `manifest` relative to the workspace root, as
/// [`LAYERS`] names it (`apps/*` for any app).
fn folder(root: &Path, manifest: &str) -> String {
    let dir = Path::new(manifest)
        .parent()
        .expect("a manifest has a folder");
    let relative = dir
        .strip_prefix(root)
        .unwrap_or_else(|_| panic!("{manifest} is outside the workspace {}", root.display()));
    let relative = relative.to_str().expect("folders are UTF-8").to_owned();
    match relative.strip_prefix("apps/") {
        Some(_) => "apps/*".to_owned(),
        None => relative,
    }
}

fn place(folder: &str) -> (Stack, u32) {
    LAYERS
        .iter()
        .find(|(f, _, _)| *f == folder)
        .map(|&(_, stack, layer)| (stack, layer))
        .unwrap_or_else(|| panic!("{folder} has no place in LAYERS: give it one"))
}

#[test]
fn every_crate_uses_only_crates_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace root");
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
    let packages = metadata["packages"].as_array().expect("a package list");
    assert!(
        packages.len() >= LAYERS.len(),
        "too few crates: {packages:?}"
    );
    let mut checked = 0;
    for package in packages {
        let from = folder(root, package["manifest_path"].as_str().unwrap());
        let (stack, layer) = place(&from);
        for dependency in package["dependencies"].as_array().unwrap() {
            let Some(path) = dependency["path"].as_str() else {
                continue;
            };
            let to = folder(root, &format!("{path}/Cargo.toml"));
            let (dep_stack, dep_layer) = place(&to);
            let allowed = dep_layer < layer
                && (dep_stack == stack || dep_stack == Stack::Floor || stack == Stack::Top);
            assert!(
                allowed,
                "{from} ({stack:?}, layer {layer}) uses {to} ({dep_stack:?}, layer {dep_layer}): \
                 an import back up or across the layers"
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} dependencies were checked");
}

/// The top-level modules of the crate whose sources are in `src`: each
/// `NAME.rs` or `NAME/` beside `lib.rs`, with the files that make it up
/// (test files left out: a test may use anything).
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if ["lib", "main"].contains(&name.as_str()) || name.ends_with("tests") {
            continue;
        }
        let files = modules.entry(name).or_default();
        if path.is_dir() {
            let mut stack = vec![path];
            while let Some(dir) = stack.pop() {
                for entry in fs::read_dir(dir).unwrap() {
                    let path = entry.unwrap().path();
                    if path.is_dir() {
                        if path.file_name().unwrap() != "tests" {
                            stack.push(path);
                        }
                    } else if path.extension().is_some_and(|e| e == "rs")
                        && !path.to_str().unwrap().ends_with("tests.rs")
                    {
                        files.push(path);
                    }
                }
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    modules
}

/// The code of a source file without comments and without its unit-test
/// module (`#[cfg(test)] mod tests` to the end, as the crates write it).
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    text.lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The items `lib.rs` re-exports from each module (`pub use m::{A, B}`),
/// so that `crate::A` counts as a use of `m`.
fn reexports(lib: &str, modules: &BTreeMap<String, Vec<PathBuf>>) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = rest.split("::").next().unwrap().trim();
        if !modules.contains_key(module) {
            continue;
        }
        for word in rest.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if word.starts_with(|c: char| c.is_ascii_uppercase()) {
                items.insert(word.to_owned(), module.to_owned());
            }
        }
    }
    items
}

/// The first path segment of each name a `crate::` path starting `rest`
/// reaches: `m` of `crate::m::x`, or `m` and `Item` of
/// `crate::{m::{x, y}, Item}`.
fn first_segments(rest: &str) -> Vec<&str> {
    let ident = |s: &str| -> usize {
        s.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![&rest[..ident(rest)]];
    };
    let mut names = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                names.push(group[start..i].trim());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.push(group[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    names.into_iter().map(|n| &n[..ident(n)]).collect()
}

/// Which top-level modules each module of the crate at `src` uses through
/// `crate::`.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let lib = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .find(|p| p.is_file())
        .map(|p| code(&p))
        .unwrap_or_default();
    let items = reexports(&lib, &modules);
    let mut graph = BTreeMap::new();
    for (module, files) in &modules {
        let mut uses = BTreeSet::new();
        for file in files {
            let code = code(file);
            for (at, _) in code.match_indices("crate::") {
                for name in first_segments(&code[at + "crate::".len()..]) {
                    let target = if modules.contains_key(name) {
                        Some(name.to_owned())
                    } else {
                        items.get(name).cloned()
                    };
                    if let Some(target) = target.filter(|t| t != module) {
                        uses.insert(target);
                    }
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// A cycle of `graph`, if it has one, as the modules along it.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search; a module met again while still on the path
    // closes a cycle.
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut cycle = path[at..].to_vec();
            cycle.push(module.to_owned());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_owned());
        for next in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_has_a_cycle_of_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut crates = 0;
    for (folder, _, _) in LAYERS {
        let dirs: Vec<PathBuf> = match folder.strip_suffix("/*") {
            Some(parent) => fs::read_dir(root.join(parent))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect(),
            None => vec![root.join(folder)],
        };
        for dir in dirs {
            let src = dir.join("src");
            if !src.is_dir() {
                continue;
            }
            crates += 1;
            let graph = module_graph(&src);
            if let Some(cycle) = cycle(&graph) {
                panic!(
                    "{}: its modules use each other in a cycle: {}",
                    dir.display(),
                    cycle.join(" -> ")
                );
            }
        }
    }
    assert!(crates > 10, "only {crates} crates were read");
}

#[test]
fn a_cycle_of_modules_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c"][..]),
        ("c", &["a"][..]),
        ("d", &["a"][..]),
    ]
    .into_iter()
    .map(|(m, uses)| (m.to_owned(), uses.iter().map(|u| u.to_string()).collect()))
    .collect();
    assert_eq!(cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
    assert_eq!(first_segments("{a::{B, C}, Item, d};"), ["a", "Item", "d"]);
    assert_eq!(first_segments("window::Rma;"), ["window"]);
}
