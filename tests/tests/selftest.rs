// SPDX-License-Identifier: MIT OR Apache-2.0
//! The kernel's on-target checks (frames, paging, heap and its guard
//! words, MPB access, CL1INVMB, timer, TSR), run by every core of the chip.

use system_tests::{boot_ok, lines_starting, transcript};

/// Checks the `selftest` program runs; it prints one line for each.
const CHECKS: usize = 8;

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
    }
    assert_eq!(
        lines_starting(&report, 0, "selftest:"),
        [format!("selftest: {CHECKS} checks passed")],
        "{all}"
    );
}
