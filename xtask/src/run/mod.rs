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
//! an exit status means), [`diagnose`] (why a run stalled or was killed),
//! [`report`] (how the run ended, as text), [`symbols`] (where the code
//! addresses the report prints lie in the image).

mod config;
mod diagnose;
mod dir;
mod exit;
mod fleet;
mod report;
mod symbols;
pub mod trace;
mod unwind;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chip::Mode;
use emu::chipmem::ChipMemory;
use emu::launch::{self, Launch};

pub use config::RunConfig;
pub use diagnose::{Holder, Stall, Waiter};
pub use exit::CoreExit;
pub use report::{CoreReport, HostLoad, Outcome, RunReport};

use crate::build::Artifacts;
use crate::programs::Catalog;
use crate::qemu::Qemu;
use crate::{build, qemu};
use dir::RunDir;
use fleet::Fleet;
use report::{printed_code_addresses, read_reports, require_reports};
use symbols::CodeMap;

/// Checks `config`, builds, finds QEMU, and boots the chip. An interrupt
/// that comes during the build stops the run before it boots.
pub fn run(config: &RunConfig) -> Result<RunReport> {
    config.check()?;
    let artifacts = build::build_app(&config.app, !config.echo)?;
    let qemu = qemu::ensure()?;
    boot(config, &artifacts, &qemu)
}

/// Room a run of `cores` cores with `memory_mib` of RAM each may take in
/// its directory: with the chip model, each core's private RAM file at its
/// full size (the guest may touch all of it), and for every run
/// `SHARED_PER_CORE` per core for the shared files (chip memory, the
/// cores' views, directory, stamps, watchers).
pub fn room_needed(cores: u32, mode: Mode, memory_mib: u32) -> u64 {
    let ram = match mode {
        Mode::Plain => 0,
        Mode::Modelled(_) => u64::from(memory_mib) << 20,
    };
    u64::from(cores) * (ram + SHARED_PER_CORE)
}

/// The run's statistics as JSON (`--stats-json`): what ran, how it
/// ended, the host time and load, and each core's chip-model report (the fields of
/// `emu::report::CoreReport`, `null` for a core that wrote none).
fn stats_json(
    config: &RunConfig,
    program: &str,
    outcome: &Outcome,
    elapsed: std::time::Duration,
    load: HostLoad,
    reports: &[Option<emu::report::CoreReport>],
) -> String {
    #[derive(serde::Serialize)]
    struct Stats<'a> {
        chip: &'a str,
        program: &'a str,
        cores: u32,
        mode: String,
        outcome: String,
        success: bool,
        host_seconds: f64,
        host_load: HostLoad,
        core_mhz: u32,
        reports: &'a [Option<emu::report::CoreReport>],
    }
    let stats = Stats {
        chip: config.chip.name,
        program,
        cores: config.cores,
        mode: format!("{:?}", config.mode),
        outcome: format!("{outcome:?}"),
        success: outcome.succeeded(),
        host_seconds: elapsed.as_secs_f64(),
        host_load: load,
        core_mhz: config.chip.timing.core_mhz,
        reports,
    };
    serde_json::to_string_pretty(&stats).expect("statistics are plain data")
}

/// Waits until `socket` exists (QEMU made its gdb stub's socket), at most
/// [`GDB_SOCKET_WAIT`]: past that, the run goes on and whatever stopped
/// QEMU shows in how it ends.
fn wait_for_socket(socket: &Path) {
    let until = Instant::now() + GDB_SOCKET_WAIT;
    while !socket.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Longest wait for QEMU's gdb socket ([`wait_for_socket`]).
const GDB_SOCKET_WAIT: Duration = Duration::from_secs(60);

/// The `gdb` command that attaches to the stub on `socket` with the
/// symbols of `image`.
pub fn gdb_command(socket: &Path, image: &Path) -> String {
    format!(
        "gdb -ex {} {}",
        quote(&format!("target remote {}", socket.display())),
        quote(&image.display().to_string())
    )
}

/// `program` and `args` as one line a POSIX shell reads back as they are.
fn shell_words(program: &Path, args: &[std::ffi::OsString]) -> String {
    std::iter::once(program.as_os_str())
        .chain(args.iter().map(|a| a.as_os_str()))
        .map(|word| quote(&word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `word` quoted for a POSIX shell when it needs it.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Room per core for the run's shared files: 48-core runs of `comm`,
/// `dht`, `stencil` and `bench-load-store` (and a 2-core `bench-put-get`)
/// took 0.4 to 1.2 MiB per core (`du` of the run directory, sampled during
/// the run; the book's "Getting started", `docs/getting-started.md`); an assumption with room for programs
/// that write more shared memory than these.
const SHARED_PER_CORE: u64 = 8 << 20;

/// Host memory per core of a run with the chip model, its run directory
/// in `/dev/shm` included: while `cargo xtask run --chip mesh8x8 --cores
/// 128 --program comm` ran, the memory in use rose by 8884 MiB and the
/// run directory held 1521 MiB, 81 MiB per core (`docs/getting-started.md`, "Memory and disk").
const MEMORY_PER_CORE: u64 = 81 << 20;

/// Host memory a run of `cores` cores with `memory_mib` of RAM each may
/// take (with the chip model; a plain run is not checked): what was
/// measured with the default RAM, and the RAM asked for beyond it.
pub fn memory_needed(cores: u32, mode: Mode, memory_mib: u32) -> u64 {
    let extra = u64::from(memory_mib.saturating_sub(launch::DEFAULT_MEMORY_MIB)) << 20;
    match mode {
        Mode::Plain => 0,
        Mode::Modelled(_) => u64::from(cores) * (MEMORY_PER_CORE + extra),
    }
}

/// Refuses a run that needs `need` bytes of memory on a host with
/// `available` (`MemAvailable`; `None`: unknown, not checked).
fn check_memory(cores: u32, need: u64, available: Option<u64>) -> Result<()> {
    match available {
        Some(available) if available < need => bail!(
            "not enough memory for {cores} cores: the run may need {} MiB ({} MiB per core), \
             but the host has {} MiB available; boot fewer cores",
            need.div_ceil(1 << 20),
            (need / u64::from(cores.max(1))) >> 20,
            available >> 20
        ),
        _ => Ok(()),
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes, if it can be read.
fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

/// Boots `config.cores` cores from already built `artifacts`.
pub fn boot(config: &RunConfig, artifacts: &Artifacts, qemu: &Qemu) -> Result<RunReport> {
    config.check()?;
    if config.interrupted() {
        bail!("interrupted before booting");
    }
    let start = Instant::now();
    let load_start = HostLoad::now();
    let parents = dir::candidates(config.run_dir.as_deref());
    let removed = dir::remove_dead_dirs(&parents);
    if config.echo && removed > 0 {
        println!("removed the chip memory left by {removed} killed run(s)");
    }
    let mode = config.mode;
    check_memory(
        config.cores,
        memory_needed(config.cores, mode, config.memory_mib),
        available_memory(),
    )?;
    let need = room_needed(config.cores, mode, config.memory_mib);
    let free: Vec<(PathBuf, Option<u64>)> = parents
        .iter()
        .map(|p| (p.clone(), dir::free_bytes(p).ok()))
        .collect();
    let parent = dir::choose(&free, need)?;
    if config.echo && parent != parents[0] {
        println!(
            "{} has too little room for this run ({} MiB may be needed): the chip memory goes to {}",
            parents[0].display(),
            need.div_ceil(1 << 20),
            parent.display()
        );
    }
    // Declared before the instances so that it is dropped (removed) after
    // they are killed.
    let dir = RunDir::create_in(parent)?;
    // The run's own copy: what it boots and reads symbols from, whatever
    // is rebuilt meanwhile.
    let image = launch::copy_image(&artifacts.kernel, dir.path()).with_context(|| {
        format!(
            "cannot copy the image {} into the run's directory {}",
            artifacts.kernel.display(),
            dir.path().display()
        )
    })?;
    let catalog = Catalog::read(&image)?;
    let program = catalog.check(config.program.as_deref(), &config.params, config.cores)?;
    let boot_args = config.boot_args(Some(&program))?;
    let memory = ChipMemory::create(dir.path(), config.chip, config.cores)?;
    let chip_memory = memory.path().to_owned();
    let socket = dir.path().join("gdb.sock");
    let gdb = config
        .gdb
        .map(|n| config.chip.core(n).map(|core| (core, socket.as_path())))
        .transpose()?;
    let launch = Launch {
        chip: config.chip,
        boot: &boot_args,
        gdb,
        entry: catalog.entry(),
        plugin: &artifacts.plugin,
        bios: &qemu.bios,
        mem: memory.path(),
        memory_mib: config.memory_mib,
        mode,
    };
    if config.echo {
        let model = match mode.model() {
            None => "without the chip model",
            Some(model) if model.check => "with the chip model and its coherence checker",
            Some(_) => "with the chip model",
        };
        println!(
            "booting {} cores {model}, program {}, chip memory {}",
            config.cores,
            program,
            memory.path().display()
        );
    }

    if config.print_qemu {
        for core in config.chip.all_cores().take(config.cores as usize) {
            println!(
                "core {:02}: cd {} && {}",
                core.index(),
                quote(&launch.dir().to_string_lossy()),
                shell_words(&qemu.binary, &launch.args(core))
            );
        }
    }
    let oom_before = diagnose::oom_kills();
    let mut fleet = Fleet::new(start);
    for core in config.chip.all_cores().take(config.cores as usize) {
        fleet.spawn(qemu, &launch, core)?;
    }
    if let Some((core, socket)) = gdb {
        // Said once QEMU listens, so that a debugger started on the
        // message finds the socket (QEMU may take a while on a busy host).
        wait_for_socket(socket);
        println!(
            "core {} is paused for gdb; the run has no timeout while it is debugged. Attach with:\n  {}",
            core.index(),
            gdb_command(socket, &image)
        );
    }
    let timed = mode.quantum().is_some();
    // A timeout too long for the clock never comes; under a debugger
    // there is none.
    let deadline = match gdb {
        Some(_) => None,
        None => start.checked_add(config.timeout),
    };
    let outcome = fleet.watch(config, deadline, timed.then(|| dir.path()));
    let elapsed = start.elapsed();
    let load = HostLoad::ending_now(load_start);
    let stall = match outcome {
        Outcome::TimedOut { .. } | Outcome::Deadlock { .. } => fleet.stall().map(|mut stall| {
            // Read while the cores still watch: stopping them ends their waits.
            let layout = emu::chipmem::Layout::new(config.chip);
            let image = std::fs::read(&image).unwrap_or_default();
            for w in &mut stall.waits {
                w.watched = emu::chipmem::watched_lines(dir.path(), config.chip, w.core)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|line| layout.describe(line))
                    .collect();
                let ram = config.chip.core(w.core).ok().and_then(|core| {
                    std::fs::File::open(emu::chipmem::ram_path(dir.path(), core)).ok()
                });
                if let Some(ram) = ram {
                    w.calls = unwind::call_sites(&image, &ram, w.pc, w.sp).unwrap_or_default();
                }
            }
            stall
        }),
        _ => None,
    };
    if timed {
        // Cores waiting in modelled time sleep in the plugin, where QEMU
        // cannot stop them: wake them first. Without the file (a core
        // never started) there is nobody to wake.
        let _ = emu::timing::stop_waiting(dir.path());
    }
    fleet.stop();
    fleet.drain(config.echo);
    let notes = match outcome {
        Outcome::CoreFailed {
            exit: CoreExit::Crashed { signal },
            ..
        } => diagnose::killed_note(
            signal,
            oom_before,
            diagnose::oom_kills(),
            dir::free_bytes(dir.path()).ok(),
        )
        .into_iter()
        .collect(),
        _ => Vec::new(),
    };
    // Every instance is gone, so every report that will come is complete;
    // the directory is still there.
    let (reports, report_errors) = read_reports(dir.path(), config.cores, mode);
    let mut output_errors = Vec::new();
    if let Some(file) = &config.trace {
        match trace::write(dir.path(), config.chip, config.cores, file) {
            Ok(events) if config.echo => {
                println!(
                    "trace: {events} events in {} (open it in https://ui.perfetto.dev)",
                    file.display()
                );
            }
            Ok(_) => {}
            Err(e) => output_errors.push(format!("--trace {}: {e:#}", file.display())),
        }
    }
    let wanted = config.stats || config.stats_json.is_some() || config.checks_coherence();
    let outcome = require_reports(outcome, &reports, wanted);
    if let Some(file) = &config.stats_json {
        let json = stats_json(config, &program, &outcome, elapsed, load, &reports);
        if let Err(e) = std::fs::write(file, json) {
            output_errors.push(format!(
                "--stats-json {}: cannot write it: {e}",
                file.display()
            ));
        }
    }
    let cores = fleet.reports();
    let addresses = printed_code_addresses(&cores, &reports, stall.as_ref());
    let code = code_map(&image, addresses, config.echo);
    let kept = if config.keep_run_dir {
        drop(memory);
        Some(dir.keep()?)
    } else {
        None
    };
    Ok(RunReport {
        chip: config.chip,
        kept,
        outcome,
        cores,
        elapsed,
        load,
        chip_memory,
        mode,
        reports,
        report_errors,
        output_errors,
        stall,
        notes,
        code,
    })
}

/// Where `addresses` lie in `image`, loaded only if there are any. An
/// image whose symbols cannot be read leaves them raw, with a warning when
/// the run `echo`es.
fn code_map(image: &Path, addresses: Vec<u64>, echo: bool) -> CodeMap {
    if addresses.is_empty() {
        return CodeMap::default();
    }
    CodeMap::load(image, crate::workspace_root(), addresses).unwrap_or_else(|e| {
        if echo {
            eprintln!("warning: code addresses are printed without their place: {e:#}");
        }
        CodeMap::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_the_host_cannot_hold_is_refused_before_booting() {
        let need = memory_needed(128, Mode::default(), launch::DEFAULT_MEMORY_MIB);
        assert_eq!(need, (128 * 81) << 20);
        assert_eq!(memory_needed(128, Mode::Plain, 256), 0);
        // RAM beyond the default counts whole.
        assert_eq!(
            memory_needed(2, Mode::default(), 256),
            (2 * (81 + 224)) << 20
        );
        assert!(check_memory(128, need, Some(need)).is_ok());
        assert!(check_memory(128, need, None).is_ok());
        assert_eq!(
            check_memory(128, need, Some(4 << 30))
                .unwrap_err()
                .to_string(),
            "not enough memory for 128 cores: the run may need 10368 MiB (81 MiB per core), \
             but the host has 4096 MiB available; boot fewer cores"
        );
        assert!(available_memory().is_some_and(|a| a > 0));
    }
}
