// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every core's LUT, read back through its tile's CRB, holds the default
//! layout the chip definition gives.

use system_tests::{CHIP, boot_ok, lines_starting, transcript};

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
