// SPDX-License-Identifier: MIT OR Apache-2.0
//! Booting a chip: one QEMU per core, watched until all succeed or one
//! does not.
//!
//! A run creates the chip memory in a private directory, starts one QEMU
//! per core, prints every serial line as it arrives, and ends as soon as
//! the outcome is known: every core exited successfully, or one core
//! failed, or the time ran out, or the user interrupted. Whatever the
//! outcome, every instance is killed and waited for, and the directory is
//! removed, before [`boot`] returns: both are owned by guards whose `Drop`
//! does the cleanup, so an error or a panic half-way cleans up too.
//!
//! With the chip model (the plugin), each core that reaches its exit leaves
//! a report in the directory ([`emu::report`]); they are read after the
//! instances are gone and before the directory is.
//!
//! One file per concern: [`config`] (what to run), [`dir`] (the run
//! directory), [`fleet`] (the instances and their output), [`exit`] (what
//! an exit status means), [`report`] (how the run ended, as text).

mod config;
mod dir;
mod exit;
mod fleet;
mod report;

use std::time::Instant;

use anyhow::Result;
use emu::chipmem::ChipMemory;
use emu::launch::{self, Launch, Mode};

pub use config::RunConfig;
pub use exit::CoreExit;
pub use report::{CoreReport, Outcome, RunReport};

use crate::build::Artifacts;
use crate::qemu::Qemu;
use crate::{CHIP, build, qemu};
use dir::{private_dir, remove_orphaned_dirs};
use fleet::Fleet;
use report::read_reports;

/// Checks `config`, builds, finds QEMU, and boots the chip.
pub fn run(config: &RunConfig) -> Result<RunReport> {
    config.check()?;
    let artifacts = build::build(!config.echo)?;
    let qemu = qemu::ensure()?;
    boot(config, &artifacts, &qemu)
}

/// Boots `config.cores` cores from already built `artifacts`.
pub fn boot(config: &RunConfig, artifacts: &Artifacts, qemu: &Qemu) -> Result<RunReport> {
    config.check()?;
    let start = Instant::now();
    let orphans = remove_orphaned_dirs();
    if config.echo && orphans > 0 {
        println!("removed the chip memory left by {orphans} killed run(s)");
    }
    // Declared before the instances so that it is dropped (removed) after
    // they are killed.
    let dir = private_dir()?;
    let memory = ChipMemory::create(dir.path(), &CHIP, config.cores)?;
    let mode = config.mode();
    let launch = Launch {
        chip: &CHIP,
        cores: config.cores,
        program: &config.program,
        params: &config.params,
        kernel: &artifacts.kernel,
        plugin: &artifacts.plugin,
        bios: &qemu.bios,
        mem: memory.path(),
        memory_mib: launch::DEFAULT_MEMORY_MIB,
        mode,
        quantum: config.quantum,
    };
    if config.echo {
        let model = match mode {
            Mode::Plain => "without the chip model",
            Mode::Modeled { check: false } => "with the chip model",
            Mode::Modeled { check: true } => "with the chip model and its coherence checker",
        };
        println!(
            "booting {} cores {model}, program {}, chip memory {}",
            config.cores,
            config.program,
            memory.path().display()
        );
    }

    let mut fleet = Fleet::new(start);
    for core in CHIP.all_cores().take(config.cores as usize) {
        fleet.spawn(qemu, &launch, core)?;
    }
    let outcome = fleet.watch(config, start + config.timeout);
    let elapsed = start.elapsed();
    fleet.stop();
    fleet.drain(config.echo);
    // Every instance is gone, so every report that will come is complete;
    // the directory is still there.
    let (reports, report_errors) = read_reports(dir.path(), config.cores, mode);
    Ok(RunReport {
        outcome,
        cores: fleet.reports(),
        elapsed,
        chip_memory: memory.path().to_owned(),
        mode,
        reports,
        report_errors,
    })
}
