// SPDX-License-Identifier: MIT OR Apache-2.0
//! The emulator's modelled time, measured from inside on the whole chip:
//! every core reads back the latencies of the chip's timing table (L1, L2,
//! loads from and stores to its own and remote MPBs at every distance;
//! core 0 also DRAM behind each controller and a test-and-set register
//! round trip) through the global timestamp, exactly, and core 0 times an
//! uncontended lock/unlock pair.

use system_tests::{boot_ok, lines_starting, transcript};

#[test]
fn every_core_reads_back_the_timing_table_on_48_cores() {
    let report = boot_ok(48, "timing");
    for core in 0..48 {
        let passed = lines_starting(&report, core, "timing self-check passed");
        assert_eq!(passed.len(), 1, "core {core}\n{}", transcript(&report));
    }
    let core0 = lines_starting(&report, 0, "latency ");
    for what in [
        "L1 hit",
        "L2 hit",
        "MPB 0 hops",
        "MPB 8 hops",
        "MPB store 0 hops",
        "MPB store 8 hops",
        "DRAM controller 0 (0 hops)",
        "DRAM controller 1 (5 hops)",
        "DRAM controller 2 (2 hops)",
        "DRAM controller 3 (7 hops)",
        "MPB store alone",
        "DRAM store alone",
        "DRAM store then load",
        "DRAM stores in a row",
        "WCB flush",
        "TSR round trip",
    ] {
        assert!(
            core0
                .iter()
                .any(|l| l.starts_with(&format!("latency {what}"))),
            "core 0 measured no {what}\n{}",
            transcript(&report)
        );
    }
    let pair = lines_starting(&report, 0, "lock/unlock pair (GBH, exclusive, uncontended");
    assert_eq!(pair.len(), 1, "{}", transcript(&report));
}
