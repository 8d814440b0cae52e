// SPDX-License-Identifier: MIT OR Apache-2.0
//! The project's one entry point, as a library: build the kernel and the
//! plugin, boot the emulated chip, run the tests, measure the emulator.
//!
//! The `xtask` binary (`cargo xtask ...`) is a thin command line over this;
//! the system tests call [`run`] directly and assert on the [`RunReport`].

pub mod bench;
pub mod build;
pub mod new;
pub mod programs;
pub mod qemu;
mod run;

use anyhow::Result;

pub use build::{App, Artifacts, build, build_app, cargo, workspace_root};
pub use chip::{Mode, Model, Time, WtReads};
pub use programs::{Catalog, app_in, app_of, check_cores, parse_chip, parse_param};
pub use run::{
    CoreExit, CoreReport, Holder, Outcome, RunConfig, RunReport, Stall, Waiter, boot, room_needed,
    run,
};

/// `cargo xtask test`: the host tests of every default member, then a
/// release build, then the system tests booted on QEMU, stopping at the
/// first failure.
pub fn test() -> Result<()> {
    let mut host = cargo();
    host.arg("test");
    build::run_command(host, "the host tests")?;
    build(false)?;
    qemu::ensure()?;
    // One at a time: each boots up to 48 QEMUs on a machine with few cores.
    let mut system = cargo();
    system.args(["test", "-p", "system-tests", "--", "--test-threads=1"]);
    build::run_command(system, "the system tests")
}
