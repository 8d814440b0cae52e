// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every core learns who it is from MYTILEID and says so, exactly once, on
//! 1, 2, 8 and all 48 cores; then all of them pass a barrier.

use system_tests::{assert_identities, boot_ok, lines_starting, transcript};

fn identity_on(cores: u32) {
    let report = boot_ok(cores, "identity");
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
