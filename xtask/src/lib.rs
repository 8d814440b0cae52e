// SPDX-License-Identifier: MIT OR Apache-2.0
//! The project's one entry point, as a library: build the kernel and the
//! plugin, boot the emulated chip, run the tests, measure the emulator.
//!
//! The `xtask` binary (`cargo xtask ...`) is a thin command line over this;
//! the system tests call [`run`] directly and assert on the [`RunReport`].

pub mod bench;
pub mod book;
pub mod build;
pub mod conformance;
pub mod mpicc;
pub mod new;
pub mod programs;
pub mod qemu;
mod run;

use anyhow::Result;

pub use build::{App, Artifacts, build, build_app, cargo, workspace_root};
pub use chip::{Mode, Model, Time, WtReads};
pub use programs::{Catalog, app_in, app_of, argv_param, check_cores, parse_chip, parse_param};
pub use run::{
    CoreExit, CoreReport, Holder, Outcome, RunConfig, RunReport, Stall, Waiter, boot, room_needed,
    run,
};

/// `cargo xtask test`: the host tests of every default member, a release
/// build (which makes sure the guest target is there), the project's
/// habits checked ([`lint`]), then the system tests booted on QEMU. Each
/// step stops the command if it fails, but inside the last every test
/// file runs, so that one run names every failing system test.
pub fn test() -> Result<()> {
    let mut host = cargo();
    host.arg("test");
    build::run_command(host, "the host tests")?;
    build(false)?;
    lint()?;
    qemu::ensure()?;
    // One at a time: each boots up to 48 QEMUs on a machine with few cores.
    let mut system = cargo();
    system.args([
        "test",
        "-p",
        "system-tests",
        "--no-fail-fast",
        "--",
        "--test-threads=1",
    ]);
    build::run_command(system, "the system tests")
}

/// The habits the project keeps, checked before the tests: formatting
/// (`cargo fmt --check`), clippy without warnings on the whole workspace
/// for the host with its tests, as `cargo clippy --workspace` (the guest
/// programs are only a `main` there), and on the guest crates for the
/// guest target, and rustdoc
/// without warnings (broken or private links) on both.
pub fn lint() -> Result<()> {
    let guest = [
        "-p", "kernel", "-p", "crt", "-p", "mpi", "-p", "programs", "-p", "shmem", "-p", "dsm",
        "-p", "gas",
    ];
    let steps: [(&str, Vec<&str>); 5] = [
        (
            "formatting (cargo fmt --all -- --check)",
            vec!["fmt", "--all", "--", "--check"],
        ),
        (
            "clippy on the workspace for the host (cargo clippy --workspace --all-targets)",
            vec![
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        ),
        (
            "clippy on the guest crates",
            [
                &["clippy", "--release", "--target", build::KERNEL_TARGET][..],
                &guest,
                &["--", "-D", "warnings"],
            ]
            .concat(),
        ),
        (
            "rustdoc on the host crates",
            vec![
                "doc",
                "--no-deps",
                "-p",
                "chip",
                "-p",
                "rma",
                "-p",
                "gas",
                "-p",
                "emu",
                "-p",
                "xtask",
            ],
        ),
        (
            "rustdoc on the guest crates",
            [
                &["doc", "--no-deps", "--target", build::KERNEL_TARGET][..],
                &guest[..6],
            ]
            .concat(),
        ),
    ];
    for (what, args) in steps {
        let mut command = cargo();
        command.args(args).env("RUSTDOCFLAGS", "-D warnings");
        build::run_command(command, what)?;
    }
    Ok(())
}
