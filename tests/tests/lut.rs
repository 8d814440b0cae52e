// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every core's LUT, read back through its tile's CRB, holds the default
//! layout the chip definition gives.

use system_tests::{
    CHIP, CoreExit, assert_failed_because_of, boot, boot_ok, lines_starting, transcript,
};

#[test]
fn lut_on_48_cores_reads_back_the_default_layout() {
    let report = boot_ok(48, "lut");
    for core in 0..CHIP.cores() {
        assert_eq!(
            lines_starting(&report, core, "lut: "),
            ["lut: 256 entries match the default layout"],
            "core {core}:\n{}",
            transcript(&report)
        );
    }
}

#[test]
fn a_read_through_a_lut_entry_that_reaches_nothing_stops_the_core_naming_it() {
    let report = boot(1, "lut-unset");
    assert_failed_because_of(
        &report,
        0,
        CoreExit::StoppedByModel,
        "core 0 failed: the chip model stopped it (its reason is below)",
    );
    assert_eq!(
        report.cores[0].stderr,
        [
            "emu: core 0: core-physical 0x96000000: LUT entry 150 (0x000000) names core port \
          Core0 of router (0, 0), which has no memory behind it (an unused entry)"
        ],
        "{}",
        transcript(&report)
    );
}
