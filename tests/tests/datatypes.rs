// SPDX-License-Identifier: MIT OR Apache-2.0
//! rma's derived datatypes on 4 and 16 emulated cores, with the chip
//! model and its coherence checker: `rma-datatypes` transposes a matrix
//! with a subarray at the origin and an hvector of vectors at the target,
//! exchanges halos as subarrays, packs and unpacks struct records, sums
//! through nested types with accumulate and get_accumulate (and their
//! request forms), and checks every misuse error. Every value is checked
//! on the core that reads it, and no read may be stale.

use std::time::Duration;

use system_tests::{RunConfig, assert_clean_success, assert_summary, boot_with, timeout_for};

/// Checks made on every core: the transpose and its way back and the
/// statistics (3), the halos after puts and after gets (2), packed and
/// unpacked records (2), the accumulated sums (1), get_accumulate's old
/// values, MPI_NO_OP's read, the requests and the window after them (4),
/// and 8 misuses.
const CHECKS: u32 = 3 + 2 + 2 + 1 + 4 + 8;

/// Boots `rma-datatypes` on `cores` cores with the checker; success on
/// every core without a stale read, no failed check, and core 0's
/// summary. Runs of few cores get 2 minutes, as `tests/tests/rma.rs`
/// gives its programs.
fn datatypes_on(cores: u32) {
    let report = boot_with(&RunConfig {
        mode: system_tests::CHECKED,
        timeout: timeout_for(cores).max(Duration::from_secs(120)),
        ..RunConfig::new(cores, "rma-datatypes")
    });
    assert_clean_success(&report, cores);
    assert_summary(
        &report,
        &format!(
            "rma-datatypes: {cores} cores, {} checks, 0 failed: a transpose through hvectors of vectors, a subarray halo exchange, struct records, SUM accumulates and get_accumulate through nested types, every misuse refused",
            cores * CHECKS
        ),
    );
}

#[test]
fn datatypes_on_4_cores() {
    datatypes_on(4);
}

#[test]
fn datatypes_on_16_cores() {
    datatypes_on(16);
}
