// SPDX-License-Identifier: MIT OR Apache-2.0
//! The SCC's non-coherent memory system, shown by programs on booted cores:
//! stale MPBT lines until CL1INVMB, stores held in the write-combine buffer
//! until flushed, write-back lines unseen until written back or evicted,
//! uncached memory that needs none of that, live LUT remaps, and a ring
//! that fails when its waiting cores leave out CL1INVMB.
//!
//! Each program checks every value it reads on the target and fails the
//! run naming what it read and what it expected; the tests check that the
//! runs end as they must and print the expected summary. They run the chip
//! model with its coherence checker, which lists every read that returned
//! data other than memory held and whose write the reader missed: the
//! stale-line programs must show exactly such reads, the correct ones none.
//! Each runs on the SCC and on the 8x8 chip (`chip::MESH8X8`).

use chip::{Chip, MESH8X8, SCC};
use system_tests::{
    CoreExit, RunReport, assert_failed_because_of, assert_no_stale_reads, boot_on, lines_starting,
    transcript,
};

/// Boots `program` with the chip model and its checker, and expects every
/// core to succeed (stale reads are each test's to judge).
fn boot_checked_ok(chip: &'static Chip, cores: u32, program: &str) -> RunReport {
    let report = boot_on(chip, cores, program);
    assert!(report.success(), "{}", transcript(&report));
    assert_eq!(report.cores.len(), cores as usize);
    report
}

/// The one line starting with `prefix` that core `core` printed.
fn summary(report: &RunReport, core: u32, prefix: &str) -> String {
    let lines = lines_starting(report, core, prefix);
    assert_eq!(
        lines.len(),
        1,
        "core {core} printed {} lines starting {prefix:?}:\n{}",
        lines.len(),
        transcript(report)
    );
    lines[0].to_owned()
}

/// A stale read as the checker lists it: (reader, core-physical address,
/// value read, value in memory, writer whose write the reader missed).
type Stale = (u32, u32, u64, u64, Option<u32>);

/// The stale reads core `core` counted, and those its report lists.
fn stale_reads(report: &RunReport, core: u32) -> (u64, Vec<Stale>) {
    let model = report.reports[core as usize].as_ref().unwrap_or_else(|| {
        panic!(
            "core {core} left no chip-model report:\n{}",
            transcript(report)
        )
    });
    assert!(
        model.checker,
        "core {core} ran without the coherence checker"
    );
    let listed = model
        .stale
        .iter()
        .map(|s| (s.reader, s.paddr, s.read, s.memory, s.writer))
        .collect();
    (model.stale_reads, listed)
}

/// Where the checker's stale reads in these programs are: the load in the
/// kernel's shared-memory accessor, named by the debug information whether
/// or not it was inlined into the program.
const READ_U32: &str = "kernel::platform::scc::SharedBytes::read_u32 (kernel/src/platform/scc.rs:";

/// The lines of the coherence summary that list core `core`'s stale reads
/// (each distinct read once), each with the lines under it that say where
/// its instruction lies.
fn listed_reads(summary: &str, core: u32) -> Vec<(String, Vec<String>)> {
    let mut reads: Vec<(String, Vec<String>)> = Vec::new();
    for line in summary.lines() {
        if line.starts_with(&format!("core {core} read ")) {
            reads.push((line.to_owned(), Vec::new()));
        } else if let (Some(indented), Some((_, place))) =
            (line.strip_prefix("  "), reads.last_mut())
        {
            place.push(indented.to_owned());
        } else if !reads.is_empty() {
            break;
        }
    }
    reads
}

/// Core-physical address of `offset` in core 1's MPB half through the
/// own-MPB entry, where core 1 reads it.
fn own_mpb_of_core_1(chip: &Chip, offset: u32) -> u32 {
    let core = chip.core(1).unwrap();
    chip.own_mpb_base() + u32::from(chip.z_of(core)) * chip.mpb_bytes_per_core() + offset
}

fn an_mpbt_line_stays_stale_until_cl1invmb_on(chip: &'static Chip) {
    let report = boot_checked_ok(chip, 2, "stale-mpbt");
    assert_eq!(
        summary(&report, 1, "stale-mpbt:"),
        "stale-mpbt: core 1 read 0x11111111 from its cached MPB line after core 0 wrote 0x22222222 (stale), and 0x22222222 after CL1INVMB",
        "{}",
        transcript(&report)
    );
    // Exactly the one read without CL1INVMB, of the word core 0 wrote.
    assert_eq!(
        stale_reads(&report, 1),
        (
            1,
            vec![(
                1,
                own_mpb_of_core_1(chip, 0x20),
                0x1111_1111,
                0x2222_2222,
                Some(0)
            )]
        ),
        "{}",
        report.coherence_summary()
    );
    assert_eq!(report.stale_reads(), 1, "{}", report.coherence_summary());
    // The summary names where the read was, under its instruction.
    let summary = report.coherence_summary();
    let reads = listed_reads(&summary, 1);
    assert_eq!(reads.len(), 1, "{summary}");
    let (line, place) = &reads[0];
    assert!(!line.ends_with(" times)"), "{summary}");
    assert!(place[0].starts_with("at "), "{summary}");
    assert!(
        place.iter().any(|frame| frame.contains(READ_U32)),
        "{summary}"
    );
}

fn a_store_waits_in_the_write_combine_buffer_until_flushed_on(chip: &'static Chip) {
    let report = boot_checked_ok(chip, 2, "wcb");
    assert_eq!(
        summary(&report, 1, "wcb:"),
        "wcb: core 1 read 0x33333333 while core 0's write of 0x44444444 sat in its write-combine buffer, and 0x44444444 after the flush",
        "{}",
        transcript(&report)
    );
    // The buffered value had not reached memory: core 1 read what memory held.
    assert_no_stale_reads(&report);
}

fn a_cached_store_is_unseen_until_written_back_or_evicted_on(chip: &'static Chip) {
    let report = boot_checked_ok(chip, 2, "write-back");
    assert_eq!(
        summary(&report, 1, "write-back:"),
        "write-back: MPBT-WB line: core 1 read 0x55555555 while core 0's L1 held 0x66666666 modified, 0x66666666 after its WBINVD; \
         DCM line: 0x77777777 while core 0's caches held 0x88888888 modified, still 0x77777777 after its WBINVD (L2 keeps it), 0x88888888 once evicted from L2",
        "{}",
        transcript(&report)
    );
    // The modified lines had not reached memory: core 1 read what memory held.
    assert_no_stale_reads(&report);
}

fn uncached_stores_are_seen_at_once_on(chip: &'static Chip) {
    let report = boot_checked_ok(chip, 2, "ncm-fresh");
    assert_eq!(
        summary(&report, 0, "ncm-fresh:"),
        "ncm-fresh: 1000 round trips of 8-word messages, every value seen at once, no cache maintenance",
        "{}",
        transcript(&report)
    );
    assert_no_stale_reads(&report);
}

fn a_lut_write_reroutes_the_next_access_on(chip: &'static Chip) {
    let report = boot_checked_ok(chip, 2, "lut-remap");
    assert_eq!(
        summary(&report, 0, "lut-remap:"),
        format!(
            "lut-remap: entry {} to tile 0's MPB: core 1 read 0x99999999 written through it; \
         remapped to tile 1's MPB: the next read returned 0xaaaaaaaa, the write of 0xbbbbbbbb landed there, tile 0 kept 0x99999999",
            chip.address_map.shareable.first + 8
        ),
        "{}",
        transcript(&report)
    );
    assert_no_stale_reads(&report);
}

fn a_ring_polling_without_cl1invmb_fails_on_a_stale_line_on(chip: &'static Chip) {
    let report = boot_on(chip, 8, "ring-stale");
    // Core 1 is the first core whose predecessor (core 0) passed the token
    // it cannot see; the others wait longer for tokens never passed.
    assert_failed_because_of(
        &report,
        1,
        CoreExit::GuestFailure,
        "core 1 failed: the guest reported failure",
    );
    let failed = summary(&report, 1, "FAILED:");
    assert!(
        failed.starts_with(
            "FAILED: program failed: stale: the token from core 0 (hop 1) is in this core's MPB"
        ),
        "{}",
        transcript(&report)
    );
    // Core 1 kept reading its cached empty token line after core 0 wrote
    // the token (hop count 1) there.
    let (count, listed) = stale_reads(&report, 1);
    assert!(
        count >= 1 && !listed.is_empty(),
        "{}",
        report.coherence_summary()
    );
    for read in &listed {
        assert_eq!(
            *read,
            (1, own_mpb_of_core_1(chip, 0), 0, 1, Some(0)),
            "{}",
            report.coherence_summary()
        );
    }
    // Every kept read was the same poll of the same word: one line per
    // instruction the compiler made of the poll's read (its count when
    // more than one), each at the poll's place in the program.
    let summary = report.coherence_summary();
    let reads = listed_reads(&summary, 1);
    assert!(!reads.is_empty(), "{summary}");
    let times = |line: &str| {
        line.rsplit_once(" (")
            .and_then(|(_, n)| n.strip_suffix(" times)"))
            .map_or(1, |n| n.parse::<usize>().unwrap())
    };
    assert_eq!(
        reads.iter().map(|(line, _)| times(line)).sum::<usize>(),
        listed.len(),
        "{summary}"
    );
    for (_, place) in &reads {
        assert!(
            place.iter().any(|frame| frame.contains(READ_U32)),
            "{summary}"
        );
        assert!(
            place
                .iter()
                .any(|frame| frame.contains("programs::ring_stale::run")),
            "{summary}"
        );
    }
}

fn the_ring_reads_nothing_stale_on(chip: &'static Chip) {
    let report = boot_checked_ok(chip, 8, "ring");
    assert_no_stale_reads(&report);
}

#[test]
fn an_mpbt_line_stays_stale_until_cl1invmb() {
    an_mpbt_line_stays_stale_until_cl1invmb_on(&SCC);
}

#[test]
fn a_store_waits_in_the_write_combine_buffer_until_flushed() {
    a_store_waits_in_the_write_combine_buffer_until_flushed_on(&SCC);
}

#[test]
fn a_cached_store_is_unseen_until_written_back_or_evicted() {
    a_cached_store_is_unseen_until_written_back_or_evicted_on(&SCC);
}

#[test]
fn uncached_stores_are_seen_at_once() {
    uncached_stores_are_seen_at_once_on(&SCC);
}

#[test]
fn a_lut_write_reroutes_the_next_access() {
    a_lut_write_reroutes_the_next_access_on(&SCC);
}

#[test]
fn a_ring_polling_without_cl1invmb_fails_on_a_stale_line() {
    a_ring_polling_without_cl1invmb_fails_on_a_stale_line_on(&SCC);
}

#[test]
fn the_ring_reads_nothing_stale() {
    the_ring_reads_nothing_stale_on(&SCC);
}

/// The same on the 8x8 chip: three cores per tile (cores 0 and 1 share
/// tile 0's MPB, whose halves are 16 KiB), its own LUT entries.
mod mesh8x8 {
    use super::*;

    #[test]
    fn an_mpbt_line_stays_stale_until_cl1invmb() {
        an_mpbt_line_stays_stale_until_cl1invmb_on(&MESH8X8);
    }

    #[test]
    fn a_store_waits_in_the_write_combine_buffer_until_flushed() {
        a_store_waits_in_the_write_combine_buffer_until_flushed_on(&MESH8X8);
    }

    #[test]
    fn a_cached_store_is_unseen_until_written_back_or_evicted() {
        a_cached_store_is_unseen_until_written_back_or_evicted_on(&MESH8X8);
    }

    #[test]
    fn uncached_stores_are_seen_at_once() {
        uncached_stores_are_seen_at_once_on(&MESH8X8);
    }

    #[test]
    fn a_lut_write_reroutes_the_next_access() {
        a_lut_write_reroutes_the_next_access_on(&MESH8X8);
    }

    #[test]
    fn a_ring_polling_without_cl1invmb_fails_on_a_stale_line() {
        a_ring_polling_without_cl1invmb_fails_on_a_stale_line_on(&MESH8X8);
    }

    #[test]
    fn the_ring_reads_nothing_stale() {
        the_ring_reads_nothing_stale_on(&MESH8X8);
    }
}
