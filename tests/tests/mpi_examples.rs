// SPDX-License-Identifier: MIT OR Apache-2.0
//! The examples of MPI-3.1's chapter 11 (one-sided communications) on 2
//! and 8 cores of the SCC, with the chip model and its coherence checker:
//! `rma-mpi-examples` translates each to rma and checks every value on the
//! core that reads it; a correct program must read nothing stale, and any
//! failed check makes the run fail. By the standard's numbers:
//!
//! - 11.1 to 11.3: `A = B(map)` with gets (indexed-block datatypes, then
//!   one get per element) and `B(j) = sum of A(i)` with accumulates (a
//!   histogram, and 11.1's datatypes), under fence.
//! - 11.4, 11.5: start/put/complete against a late post; lock/put/unlock.
//! - 11.6 to 11.12: the memory-model examples of section 11.7 in their
//!   legal forms: separate-model windows with lock, unlock, sync and PSCW
//!   (B loads or gets what A put or stored), unified (NCM) windows with
//!   `MPI_WIN_SYNC` around a barrier, and polling for a change.
//! - 11.13 to 11.17: the fence and PSCW halo loops and the checkerboard
//!   with `NOCHECK` starts, against a serial run.
//! - 11.18 to 11.20: the counting semaphore (also with fetch_and_op),
//!   Peterson's algorithm, the compare and swap critical region, with
//!   `lock_all` and flush.
//! - 11.21, 11.22: shared windows with send, receive and sync; request-based
//!   get and put with several buffers.
//! - 11.23: the distributed linked list on a dynamic window (attach,
//!   addresses, compare and swap), walked and checked on every core.

use std::time::Duration;

use system_tests::{
    RunConfig, assert_clean_success, assert_summary, boot_with, lines_starting, transcript,
};

/// Checks every core makes, example by example: 11.1 and 11.2 (1 each),
/// 11.3 (2), 11.4 and 11.5 (1 each), 11.6 (1), 11.7 (the model and X: 2),
/// 11.8 (after a barrier and by polling: 2), 11.9 (the model and both: 3),
/// 11.10 (1), 11.12 (the get and the load: 2), 11.13 to 11.16 (3
/// iterations each), 11.17 (`A0` and `A1` per iteration: 6), 11.18 and
/// its fetch_and_op form (1 each), 11.20 (3 rounds), 11.21 (the model of
/// both windows: 2), 11.22 (2), 11.23 (the window's attributes, the
/// list's length and ends, its values per core, the core's own elements
/// in order: 4).
const PER_CORE: u32 = 1 + 1 + 2 + 1 + 1 + 1 + 2 + 2 + 3 + 1 + 2 + 4 * 3 + 6 + 2 + 3 + 2 + 2 + 4;

/// Repetitions of 11.19 and 11.20, and exchanges of 11.21.
const ROUNDS: u32 = 3;
const EXCHANGES: u32 = 4;

/// Every check of a run of `cores` cores (at least 2): [`PER_CORE`] on
/// each, and those of particular cores: per pair of cores (core `2k` and
/// `2k + 1`) 3 in 11.11 and one per exchange and window in 11.21; on core
/// 0 the final value of 11.18's two semaphores and 11.20's counter; on
/// cores 0 and 1 one per round of 11.19, and core 0 its counter.
fn checks(cores: u32) -> u32 {
    let pairs = cores / 2;
    PER_CORE * cores + pairs * (3 + 2 * EXCHANGES) + 2 + 1 + (2 * ROUNDS + 1)
}

fn examples_on(cores: u32) {
    let report = boot_with(&RunConfig {
        mode: system_tests::CHECKED,
        timeout: Duration::from_secs(120),
        ..RunConfig::new(cores, "rma-mpi-examples")
    });
    assert_clean_success(&report, cores);
    assert_summary(
        &report,
        &format!(
            "rma-mpi-examples: {cores} cores, {} checks, 0 failed: MPI-3.1 chapter 11 examples 11.1 to 11.23 (fence, PSCW, locks, flush, sync, atomics, shared windows, requests, dynamic windows; separate and unified models)",
            checks(cores)
        ),
    );
    // No example is skipped.
    assert_eq!(
        lines_starting(&report, 0, "example "),
        Vec::<&str>::new(),
        "{}",
        transcript(&report)
    );
}

#[test]
fn mpi_examples_on_2_cores() {
    examples_on(2);
}

#[test]
fn mpi_examples_on_8_cores() {
    examples_on(8);
}
