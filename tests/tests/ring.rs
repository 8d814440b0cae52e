// SPDX-License-Identifier: MIT OR Apache-2.0
//! The default program on the whole chip: a token visits every core through
//! the MPBs, each adding its rank + 1, and everyone meets in a barrier.

use system_tests::{assert_identities, boot_ok, lines_starting, transcript};

#[test]
fn ring_on_48_cores() {
    let cores = 48;
    let report = boot_ok(cores, "ring");
    assert_identities(&report);
    let sum = cores * (cores + 1) / 2;
    assert_eq!(
        lines_starting(&report, 0, "ring summary"),
        [format!(
            "ring summary: {cores} cores, token made {cores} hops, sum {sum} (expected {sum}), barrier passed"
        )],
        "{}",
        transcript(&report)
    );
}
