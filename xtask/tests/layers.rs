// SPDX-License-Identifier: MIT OR Apache-2.0
//! The folders show the layers (`docs/layout.md`): every crate of the
//! workspace has a place in the table below, and uses only crates placed
//! below it. A dependency back up a layer (the kernel on rma, say) fails
//! here, naming both crates.

use std::path::Path;
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
