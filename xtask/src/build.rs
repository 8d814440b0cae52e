// SPDX-License-Identifier: MIT OR Apache-2.0
//! Building the two things a run boots: the kernel image and the plugin.

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, ensure};

/// The guest's target: the prebuilt 32-bit target builds a bare-metal P54C
/// kernel on the stable toolchain (see `.cargo/config.toml`).
pub const KERNEL_TARGET: &str = "i586-unknown-linux-gnu";

/// What [`build`] produced.
#[derive(Debug, Clone)]
pub struct Artifacts {
    /// The kernel ELF, for QEMU's `-kernel`.
    pub kernel: PathBuf,
    /// The plugin shared object, for QEMU's `-plugin`.
    pub plugin: PathBuf,
}

/// The workspace this xtask belongs to.
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
}

/// The workspace's target directory, where nested builds put their output.
pub fn target_dir() -> PathBuf {
    workspace_root().join("target")
}

/// A `cargo` command that runs in the workspace root with the environment
/// of the cargo that started this xtask removed.
///
/// The outer cargo exports `CARGO_*` and `RUST*` variables (target
/// directory, flags, the package being built) that would leak into a nested
/// build and change what it builds or where: `RUSTFLAGS`, say, would replace
/// the kernel's flags from `.cargo/config.toml`. What describes the
/// installation is kept: `CARGO_HOME` and every `RUSTUP_*` variable. Above
/// all `RUSTUP_TOOLCHAIN`: rustc runs in each dependency's source directory,
/// outside this workspace, where `rust-toolchain.toml` cannot be found, so
/// without it the nested build would use the default toolchain, which may
/// lack the guest target.
pub fn cargo() -> Command {
    let program = env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(program);
    command.current_dir(workspace_root());
    for (key, _) in env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let installation = key == "CARGO_HOME" || key.starts_with("RUSTUP_");
        if (key.starts_with("CARGO") || key.starts_with("RUST")) && !installation {
            command.env_remove(key);
        }
    }
    command
}

/// Runs `command`, failing with `what` if it does not succeed.
pub(crate) fn run_command(mut command: Command, what: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("{what}: could not start {:?}", command.get_program()))?;
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

/// Builds the kernel for the guest target and the plugin for the host,
/// both in release mode (a debug kernel boots 48 cores far slower). With
/// `quiet`, cargo prints only errors.
pub fn build(quiet: bool) -> Result<Artifacts> {
    let quiet = quiet.then_some("--quiet");
    let mut kernel = cargo();
    kernel.args([
        "build",
        "-p",
        "kernel",
        "--release",
        "--target",
        KERNEL_TARGET,
    ]);
    kernel.args(quiet);
    run_command(kernel, "building the kernel")?;
    let mut plugin = cargo();
    plugin.args(["build", "-p", "emu-plugin", "--release"]);
    plugin.args(quiet);
    run_command(plugin, "building the plugin")?;

    let target = target_dir();
    let artifacts = Artifacts {
        kernel: target.join(KERNEL_TARGET).join("release/kernel"),
        plugin: target.join("release/libemu_plugin.so"),
    };
    for path in [&artifacts.kernel, &artifacts.plugin] {
        ensure!(
            path.is_file(),
            "the build did not produce {}",
            path.display()
        );
    }
    Ok(artifacts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"));
    }

    #[test]
    fn nested_cargo_does_not_inherit_the_outer_build() {
        // Cargo runs this test with CARGO_MANIFEST_DIR, CARGO_PKG_NAME, ... set.
        assert!(env::var_os("CARGO_PKG_NAME").is_some());
        let command = cargo();
        let removed: Vec<_> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(key, _)| key.to_str().unwrap().to_owned())
            .collect();
        assert!(removed.iter().any(|k| k == "CARGO_PKG_NAME"), "{removed:?}");
        assert!(removed.iter().any(|k| k == "CARGO_MANIFEST_DIR"));
        assert!(
            !removed
                .iter()
                .any(|k| k == "CARGO_HOME" || k.starts_with("RUSTUP_"))
        );
        assert!(
            removed
                .iter()
                .all(|k| k.starts_with("CARGO") || k.starts_with("RUST"))
        );
        assert_eq!(command.get_current_dir(), Some(workspace_root()));
    }
}
