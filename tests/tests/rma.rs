// SPDX-License-Identifier: MIT OR Apache-2.0
//! rma's one-sided layer on 2, 8 and 48 cores of the SCC, and on 8 and 24
//! cores of the 8x8 chip (`chip::MESH8X8`: three cores per tile, 24 cores
//! span four of its memory controllers), with the chip model and its
//! coherence checker: a correct program must read nothing stale, and every
//! value a program reads is checked on the target, which prints each
//! failed check and makes the run fail.
//!
//! - `shared-dram`: the kernel's HAL for windows (POPSHM mapped through
//!   free LUT entries with a memory type, page by page as accesses reach
//!   it, each refusal with its error and message; the LSM).
//! - `rma-fence`: neighbour puts and gets in consecutive fence epochs on
//!   one window per memory type, 1000 small puts in one epoch, empty
//!   epochs (MPICH's `putfence1`, `getfence1`, `epochtest`).
//! - `rma-pscw`: post/start/complete/wait with overlapping groups, an
//!   epoch without operations, empty groups (`test2`, `wintest`); and
//!   `rma-pscw-stale`, the same program with its coherence actions off,
//!   which must read stale data.
//! - `rma-transpose`: strided puts and gets (`transpose1`, `transpose3`).
//! - `rma-errors`: every misuse, with its MPI error class and message.
//! - `stencil`: the cellular automaton example, verified against a serial
//!   run, and its variant without puts on a centralized window database.

use std::time::Duration;

use chip::{Chip, MESH8X8, SCC};
use system_tests::{
    CoreExit, Outcome, RunConfig, RunReport, assert_clean_success, assert_summary, boot_with,
    lines_starting, transcript,
};

/// Boots `program` on `cores` cores with the chip model (its timing
/// included) and the coherence checker. With modelled time, 48 cores
/// synchronising often take minutes of host time, hence the long timeout.
fn boot(chip: &'static Chip, cores: u32, program: &str) -> RunReport {
    boot_with(&RunConfig {
        mode: system_tests::CHECKED,
        timeout: Duration::from_secs(if cores > 8 { 600 } else { 120 }),
        ..RunConfig::new(cores, program).on(chip)
    })
}

/// As [`boot`], and expects every core to succeed without a single stale
/// read.
fn boot_ok(chip: &'static Chip, cores: u32, program: &str) -> RunReport {
    let report = boot(chip, cores, program);
    assert_clean_success(&report, cores);
    report
}

/// Boots `program` on `cores` cores, expects success without a stale
/// read, and core 0's summary of `checks_per_core` checks on every core.
fn checked_run(
    chip: &'static Chip,
    cores: u32,
    program: &str,
    checks_per_core: u32,
    what: &str,
) -> RunReport {
    let report = boot_ok(chip, cores, program);
    assert_summary(
        &report,
        &format!(
            "{program}: {cores} cores, {} checks, 0 failed: {what}",
            cores * checks_per_core
        ),
    );
    report
}

fn shared_dram_on(chip: &'static Chip, cores: u32) {
    let report = boot_ok(chip, cores, "shared-dram");
    assert_summary(
        &report,
        &format!(
            "shared-dram: {cores} cores mapped their own and a neighbour's POPSHM (MPBT-WT, then NCM), every pattern, reply and LSM word read back"
        ),
    );
}

#[test]
fn shared_dram_on_2_cores() {
    shared_dram_on(&SCC, 2);
}

#[test]
fn shared_dram_on_8_cores() {
    shared_dram_on(&SCC, 8);
}

#[test]
fn shared_dram_on_48_cores() {
    shared_dram_on(&SCC, 48);
}

/// Per memory type: the window's attributes and group, 3 put epochs and 3
/// get epochs with 2 checks each, and the statistics; 1000 small puts,
/// their count, the bytes; empty epochs and their statistics; puts through
/// one LUT entry and its evictions; operations on PROC_NULL, and lock_all
/// refused on a no_locks window.
const FENCE_CHECKS: u32 = 4 * (2 + 6 + 6 + 1) + 3 + 2 + 2 + 1 + 1;

fn fence_on(chip: &'static Chip, cores: u32) {
    checked_run(
        chip,
        cores,
        "rma-fence",
        FENCE_CHECKS,
        "neighbour puts and gets in consecutive epochs (MPBT-WT, MPBT-WB, NCM, NCM+WCB), many small puts, empty epochs, one LUT entry for all mappings, operations on PROC_NULL, no_locks",
    );
}

#[test]
fn fence_on_2_cores() {
    fence_on(&SCC, 2);
}

#[test]
fn fence_on_8_cores() {
    fence_on(&SCC, 8);
}

#[test]
fn fence_on_48_cores() {
    fence_on(&SCC, 48);
}

/// Six epochs, one without operations: each checks every origin's slot
/// before post and after wait, and each get; then the empty-group test
/// and the statistics. On 2 cores each core has one origin and one target.
fn pscw_checks(cores: u32) -> u32 {
    let peers = if cores == 2 { 1 } else { 2 };
    6 * 3 * peers - peers + 2
}

fn pscw_on(chip: &'static Chip, cores: u32) {
    checked_run(
        chip,
        cores,
        "rma-pscw",
        pscw_checks(cores),
        "PSCW epochs with overlapping groups (origins +1 and +2, targets -1 and -2), puts and gets checked, an epoch without operations, empty groups",
    );
}

#[test]
fn pscw_on_2_cores() {
    pscw_on(&SCC, 2);
}

#[test]
fn pscw_on_8_cores() {
    pscw_on(&SCC, 8);
}

#[test]
fn pscw_on_48_cores() {
    pscw_on(&SCC, 48);
}

/// The PSCW program without coherence actions: targets keep the lines of
/// their window they read before post in L1, so after wait they read them
/// again instead of what the origins put. The run fails on the program's
/// own data checks, and the checker names the origins whose writes the
/// readers missed.
fn pscw_stale_on(chip: &'static Chip, cores: u32) {
    let report = boot(chip, cores, "rma-pscw-stale");
    let all = transcript(&report);
    assert!(
        matches!(
            report.outcome,
            Outcome::CoreFailed {
                exit: CoreExit::GuestFailure,
                ..
            }
        ),
        "{all}"
    );
    let failed = (0..cores)
        .flat_map(|c| lines_starting(&report, c, "FAILED: program failed: "))
        .count();
    assert!(failed >= 1, "{all}");
    let after_wait = (0..cores)
        .flat_map(|c| {
            lines_starting(
                &report,
                c,
                "check failed: epoch 0, after wait: slot of core ",
            )
        })
        .count();
    assert!(after_wait >= 1, "{all}");
    assert!(
        report.stale_reads() > 0,
        "{}\n{all}",
        report.coherence_summary()
    );
    // Every stale read is of a line a ring neighbour (an origin or a
    // target, at most 2 away) wrote.
    let mut listed = 0;
    for model in report.reports.iter().flatten() {
        for s in &model.stale {
            listed += 1;
            let writer = s.writer.unwrap_or_else(|| {
                panic!(
                    "a stale read without its writer\n{}",
                    report.coherence_summary()
                )
            });
            let distance = (s.reader + cores - writer) % cores;
            let distance = distance.min(cores - distance);
            assert!(
                (1..=2).contains(&distance),
                "core {} read a line core {writer} wrote\n{}",
                s.reader,
                report.coherence_summary()
            );
        }
    }
    assert!(listed > 0, "{}", report.coherence_summary());
}

#[test]
fn pscw_without_coherence_reads_stale_data_on_2_cores() {
    pscw_stale_on(&SCC, 2);
}

#[test]
fn pscw_without_coherence_reads_stale_data_on_8_cores() {
    pscw_stale_on(&SCC, 8);
}

fn transpose_on(chip: &'static Chip, cores: u32) {
    checked_run(
        chip,
        cores,
        "rma-transpose",
        3,
        &format!(
            "a {n}x{n} matrix transposed with strided puts and back with strided gets",
            n = 4 * cores
        ),
    );
}

#[test]
fn transpose_on_2_cores() {
    transpose_on(&SCC, 2);
}

#[test]
fn transpose_on_8_cores() {
    transpose_on(&SCC, 8);
}

#[test]
fn transpose_on_48_cores() {
    transpose_on(&SCC, 48);
}

/// Refusals checked on every core: 13 outside epochs, 14 in PSCW epochs
/// and the data after them, 6 in a fence epoch and the data, 11 about
/// memory, then the working epoch.
const ERROR_CHECKS: u32 = 13 + 14 + 6 + 11 + 1;

fn errors_on(chip: &'static Chip, cores: u32) {
    checked_run(
        chip,
        cores,
        "rma-errors",
        ERROR_CHECKS,
        "every misuse refused with its class and message, then a working epoch",
    );
}

#[test]
fn errors_on_2_cores() {
    errors_on(&SCC, 2);
}

#[test]
fn errors_on_8_cores() {
    errors_on(&SCC, 8);
}

#[test]
fn errors_on_48_cores() {
    errors_on(&SCC, 48);
}

/// Boots `stencil` at quick scale (a 192x256 torus, 10 generations) with
/// `params` as [`boot_ok`] does.
fn stencil_ok(chip: &'static Chip, cores: u32, params: &[(&str, &str)]) -> RunReport {
    let report = boot_with(&RunConfig {
        mode: system_tests::CHECKED,
        timeout: Duration::from_secs(if cores > 8 { 600 } else { 120 }),
        params: [("scale", "quick")]
            .iter()
            .chain(params)
            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
        ..RunConfig::new(cores, "stencil").on(chip)
    });
    assert_clean_success(&report, cores);
    report
}

/// Checks core 0's summary of `stencil` on `cores` cores (`database`,
/// and what was checked), both windows' totals (`puts_per_epoch` puts of
/// a row in each of a window's epochs) and its one result line.
fn assert_stencil(
    report: &RunReport,
    cores: u32,
    database: &str,
    checked: &str,
    puts_per_epoch: u32,
) {
    let summary = lines_starting(report, 0, "stencil: ");
    let expected = format!(
        "stencil: 192x256 torus, 10 generations on {cores} cores, {database} window database, {checked}"
    );
    assert!(
        summary.len() == 1 && summary[0].starts_with(&expected),
        "{}",
        transcript(report)
    );
    // Each window serves every other generation: 5 epochs per core.
    let epochs = 5 * cores;
    let puts = puts_per_epoch * epochs;
    for window in 0..2 {
        let totals = lines_starting(report, 0, &format!("stencil window {window} (all cores): "));
        let expected = format!(
            "stencil window {window} (all cores): {puts} puts ({} bytes), 0 gets (0 bytes), 0 fences, {epochs} posts, {epochs} starts, {epochs} completes, {epochs} waits, ",
            puts * 256
        );
        assert!(
            totals.len() == 1 && totals[0].starts_with(&expected),
            "{}",
            transcript(report)
        );
        assert_eq!(
            lines_starting(report, 0, &format!("stencil window {window} (core 0): ")).len(),
            1,
            "{}",
            transcript(report)
        );
    }
    // One sample per generation, from the slowest core only.
    let (experiment, puts) = if puts_per_epoch > 0 {
        ("stencil-scaling", "on")
    } else {
        ("window-database", "off")
    };
    let head = format!("BENCH {experiment} procs={cores} database={database} puts={puts} cycles=");
    let bench: Vec<&str> = (0..cores)
        .flat_map(|core| lines_starting(report, core, "BENCH"))
        .collect();
    assert!(
        bench.len() == 1 && bench[0].starts_with(&head) && bench[0].split(',').count() == 10,
        "{}",
        transcript(report)
    );
}

fn stencil_on(chip: &'static Chip, cores: u32) {
    let report = stencil_ok(chip, cores, &[]);
    assert_stencil(
        &report,
        cores,
        "distributed",
        "halo rows by put under post/start/complete/wait: every core's rows verified against a serial run of the rows they depend on (11218 of 49152 cells alive)",
        2,
    );
}

/// One core's rows depend on the whole torus: checked against a serial
/// run of all of it.
#[test]
fn stencil_on_1_core() {
    stencil_on(&SCC, 1);
}

#[test]
fn stencil_on_2_cores() {
    stencil_on(&SCC, 2);
}

#[test]
fn stencil_on_8_cores() {
    stencil_on(&SCC, 8);
}

#[test]
fn stencil_on_48_cores() {
    stencil_on(&SCC, 48);
}

#[test]
fn stencil_without_puts_on_a_centralized_database_on_8_cores() {
    let report = stencil_ok(&SCC, 8, &[("database", "centralized"), ("puts", "off")]);
    assert_stencil(
        &report,
        8,
        "centralized",
        "puts removed, only post/start/complete/wait: every core's rows verified against a serial run of them between zero halos",
        0,
    );
}

/// Per memory type: the flavor and the values found; the refusal on an
/// allocated window.
const SHARED_CHECKS: u32 = 4 * 2 + 1;

fn shared_on(chip: &'static Chip, cores: u32) {
    checked_run(
        chip,
        cores,
        "rma-shared",
        SHARED_CHECKS,
        "shared windows on MPBT-WT, MPBT-WB, NCM and NCM+WCB: stores into every part, sync, loads",
    );
}

#[test]
fn shared_windows_on_4_cores() {
    shared_on(&SCC, 4);
}

#[test]
fn shared_windows_on_16_cores() {
    shared_on(&SCC, 16);
}

/// The same programs on the 8x8 chip: three cores per tile, 16 KiB of MPB
/// per core, its own address map and LUT entries, two POPSHM pages per
/// core; 8 cores span two memory controllers, 24 span four.
mod mesh8x8 {
    use super::*;

    #[test]
    fn shared_dram_on_8_cores() {
        shared_dram_on(&MESH8X8, 8);
    }

    #[test]
    fn fence_on_8_cores() {
        fence_on(&MESH8X8, 8);
    }

    #[test]
    fn fence_on_24_cores() {
        fence_on(&MESH8X8, 24);
    }

    #[test]
    fn pscw_on_8_cores() {
        pscw_on(&MESH8X8, 8);
    }

    #[test]
    fn pscw_on_24_cores() {
        pscw_on(&MESH8X8, 24);
    }

    #[test]
    fn pscw_without_coherence_reads_stale_data_on_8_cores() {
        pscw_stale_on(&MESH8X8, 8);
    }

    #[test]
    fn transpose_on_8_cores() {
        transpose_on(&MESH8X8, 8);
    }

    #[test]
    fn errors_on_8_cores() {
        errors_on(&MESH8X8, 8);
    }

    #[test]
    fn stencil_on_8_cores() {
        stencil_on(&MESH8X8, 8);
    }

    #[test]
    fn shared_windows_on_4_cores() {
        shared_on(&MESH8X8, 4);
    }
}
