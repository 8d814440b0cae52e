// SPDX-License-Identifier: MIT OR Apache-2.0
//! rma's two-sided layer on 2, 8 and 48 cores: the MPB channel (neighbour
//! exchange up to 100 KiB, pairwise all-to-all), 200 barriers alternating
//! the central and the dissemination algorithm, bcast, allgather and
//! allreduce, every result checked on every core.

use system_tests::{assert_no_failed_checks, boot_ok, lines_starting, transcript};

/// Checks each core makes in the `comm` program on `cores` cores: 8
/// exchange sizes, 2 all-to-all sizes per peer, one mark per core and
/// barrier, 2 broadcasts, one allgather block per core, 6 allreduces.
fn checks_per_core(cores: u32) -> u32 {
    8 + 2 * (cores - 1) + 200 * cores + 2 + cores + 6
}

fn comm_on(cores: u32) {
    let report = boot_ok(cores, "comm");
    let checks = cores * checks_per_core(cores);
    assert_eq!(
        lines_starting(&report, 0, "comm summary"),
        [format!(
            "comm summary: {cores} cores, {checks} checks, 0 failed: neighbour exchange, all-to-all, 200 barriers, bcast, allgather, allreduce"
        )],
        "{}",
        transcript(&report)
    );
    assert_no_failed_checks(&report);
    // Core 0 reports its own traffic and the barriers it passed.
    let stats = lines_starting(&report, 0, "comm core 0: ");
    assert_eq!(stats.len(), 1, "{}", transcript(&report));
    assert!(
        stats[0].contains("; 200 barriers;"),
        "{}",
        transcript(&report)
    );
    // Its cycles are the core's modelled ones: the run models time.
    assert!(
        stats[0].ends_with("Mcycles waiting (modelled cycles)"),
        "{}",
        transcript(&report)
    );
}

#[test]
fn comm_on_2_cores() {
    comm_on(2);
}

#[test]
fn comm_on_8_cores() {
    comm_on(8);
}

#[test]
fn comm_on_48_cores() {
    comm_on(48);
}
