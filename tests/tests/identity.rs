// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every core learns who it is from MYTILEID and says so, exactly once, on
//! 1, 2, 8 and all 48 cores of the SCC, and 64 cores of the 8x8 chip
//! (three to a tile, so core numbers 2, 5, ... are each tile's z=2); then
//! all of them pass a barrier.

use chip::Chip;
use system_tests::{CHIP, assert_identities, boot_ok_on, lines_starting, transcript};

fn identity_on(cores: u32) {
    identity_of(CHIP, cores);
}

fn identity_of(chip: &'static Chip, cores: u32) {
    let report = boot_ok_on(chip, cores, "identity");
    assert_identities(&report);
    assert_eq!(
        lines_starting(&report, 0, "barrier passed"),
        [format!("barrier passed by {cores} cores")],
        "{}",
        transcript(&report)
    );
}

#[test]
fn identity_on_1_core() {
    identity_on(1);
}

#[test]
fn identity_on_2_cores() {
    identity_on(2);
}

#[test]
fn identity_on_8_cores() {
    identity_on(8);
}

#[test]
fn identity_on_48_cores() {
    identity_on(48);
}

#[test]
fn identity_on_64_cores_of_the_8x8_chip() {
    identity_of(&chip::MESH8X8, 64);
}
