// SPDX-License-Identifier: MIT OR Apache-2.0
//! Communicators on booted cores, with the chip model and its coherence
//! checker: `rma-comm` splits the cores into the rows and columns of a
//! grid, runs collectives on each, and fence, lock and PSCW epochs on row
//! and column windows that exist at the same time; every value is checked
//! on the core that reads it, and no read may be stale.
//!
//! Grids: 2 cores are 2 rows of 1, 8 cores 4 rows of 2, 12 cores 4 rows
//! of 3, 48 cores 8 rows of 6.

use std::time::Duration;

use system_tests::{RunConfig, assert_clean_success, assert_summary, boot_with};

/// Per core: the row and the column (2); allreduce, bcast and allgather
/// on each (6); per fence round the row window, a get and the column sums
/// (3 × 3); the row window after the PSCW epoch, the window groups, two
/// refusals (4); the two lock counters (2); the communicator by create (1).
const CHECKS: u32 = 2 + 6 + 3 * 3 + 4 + 2 + 1;

fn comm_on(cores: u32) {
    let report = boot_with(&RunConfig {
        mode: system_tests::CHECKED,
        timeout: Duration::from_secs(if cores > 12 { 900 } else { 240 }),
        ..RunConfig::new(cores, "rma-comm")
    });
    assert_clean_success(&report, cores);
    assert_summary(
        &report,
        &format!(
            "rma-comm: {cores} cores, {} checks, 0 failed: rows and columns by split, collectives on each, fence epochs with puts, gets and accumulates on row and column windows at once, lock epochs, a PSCW epoch, window groups, misuse refused, create, dup and free",
            cores * CHECKS
        ),
    );
}

#[test]
fn communicators_on_2_cores() {
    comm_on(2);
}

#[test]
fn communicators_on_8_cores() {
    comm_on(8);
}

#[test]
fn communicators_on_12_cores() {
    comm_on(12);
}

#[test]
fn communicators_on_48_cores() {
    comm_on(48);
}
