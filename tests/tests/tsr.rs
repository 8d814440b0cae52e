// SPDX-License-Identifier: MIT OR Apache-2.0
//! Test-and-set registers give mutual exclusion across all 48 QEMU
//! processes: 48 cores each add 1 to a shared uncached counter 1000 times,
//! and not one increment is lost.

use system_tests::{boot_ok, lines_starting, transcript};

#[test]
fn tsr_counter_on_48_cores_is_exact() {
    let report = boot_ok(48, "tsr-counter");
    let lines = lines_starting(&report, 0, "tsr counter = ");
    assert_eq!(lines.len(), 1, "{}", transcript(&report));
    let value: u32 = lines[0]
        .strip_prefix("tsr counter = ")
        .and_then(|rest| rest.split_once(' '))
        .and_then(|(value, _)| value.parse().ok())
        .unwrap_or_else(|| panic!("unreadable: {}", lines[0]));
    assert_eq!(value, 48_000);
    assert_eq!(lines[0], "tsr counter = 48000 (expected 48000)");
}
