// SPDX-License-Identifier: MIT OR Apache-2.0
//! The kernel's on-target checks (frames, paging, heap and its guard
//! words, MPB access, CL1INVMB, timer, TSR), run by every core of the chip;
//! and the heap's size following the RAM a run gives each core.

use system_tests::{
    RunConfig, assert_clean_success, boot_ok, boot_with, lines_starting, transcript,
};

/// Checks the `selftest` program runs; it prints one line for each.
const CHECKS: usize = 9;

#[test]
fn selftest_on_48_cores() {
    let cores = 48;
    let report = boot_ok(cores, "selftest");
    let all = transcript(&report);
    for core in 0..cores {
        let passed: Vec<_> = lines_starting(&report, core, "selftest ")
            .into_iter()
            .filter(|line| line.ends_with(" ... ok"))
            .collect();
        assert_eq!(passed.len(), CHECKS, "core {core}:\n{all}");
        // Half of the default 32 MiB of RAM.
        assert_eq!(
            lines_starting(&report, core, "selftest heap: "),
            ["selftest heap: 16 MiB"],
            "core {core}:\n{all}"
        );
    }
    assert_eq!(
        lines_starting(&report, 0, "selftest:"),
        [format!("selftest: {CHECKS} checks passed")],
        "{all}"
    );
}

/// `--memory-mib 96`: each core's heap is 48 MiB, and one block of 47 MiB
/// of it is allocated.
#[test]
fn the_heap_is_half_of_the_ram_a_run_asks_for() {
    let cores = 2;
    let report = boot_with(&RunConfig {
        memory_mib: 96,
        ..RunConfig::new(cores, "selftest")
    });
    assert_clean_success(&report, cores);
    for core in 0..cores {
        assert_eq!(
            lines_starting(&report, core, "selftest heap: "),
            ["selftest heap: 48 MiB"],
            "{}",
            transcript(&report)
        );
    }
}
