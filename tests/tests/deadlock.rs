// SPDX-License-Identifier: MIT OR Apache-2.0
//! A deadlock ends the run as soon as it is seen, not at the timeout:
//! every core left waits in modelled time for a store no core can make,
//! and the report names each one, the calls it waits in (unwound from its
//! stack, out to the C program's line) and the lines it watches.

use system_tests::{Outcome, boot_c, transcript};

/// Boots `tests/c/deadlock.c` on two cores with `case` and checks that the
/// run ended in a deadlock of `cores`, each named with its wait; the report
/// shows each of `calls` (an MPI call, then its line in the program).
fn deadlocks(case: &str, cores: &[u32], calls: &[&str]) {
    let report = boot_c(2, "deadlock", &[case]);
    let text = transcript(&report);
    assert_eq!(
        report.outcome,
        Outcome::Deadlock {
            cores: cores.to_vec()
        },
        "{case}: {text}"
    );
    let stall = report.stall.as_ref().expect("a deadlock has its waits");
    assert_eq!(
        stall.waits.iter().map(|w| w.core).collect::<Vec<_>>(),
        cores,
        "{case}: {text}"
    );
    let said = report.to_string();
    for &core in cores {
        assert!(
            said.contains(&format!("core {core} waits since modelled cycle")),
            "{case}: {said}"
        );
    }
    // Two-sided messages and barriers go through the MPBs.
    assert!(
        said.contains("for a store to the MPB of tile 0"),
        "{case}: {said}"
    );
    assert!(
        said.contains("kernel::platform::scc::Platform::poll_call"),
        "{case}: {said}"
    );
    // The calls each core waits in, from its stack, out to the program's line.
    for call in calls {
        assert!(
            said.contains(&format!("\n  called from {call}")),
            "{case}: {said}"
        );
    }
    assert_eq!(report.exit_code(), 1);
}

#[test]
fn a_skipped_barrier_is_a_deadlock_named_at_once() {
    // Rank 1's barrier meets rank 0's in MPI_Finalize; then rank 1 waits
    // in its own MPI_Finalize, and rank 0 has ended.
    deadlocks(
        "barrier",
        &[1],
        &["MPI_Finalize (", "main (tests/c/deadlock.c:34)"],
    );
}

#[test]
fn a_broadcast_against_a_barrier_is_a_deadlock_named_at_once() {
    // Rank 1's two barriers pass against rank 0's broadcast and its
    // MPI_Finalize; then rank 1 waits in its own MPI_Finalize.
    deadlocks(
        "bcast",
        &[1],
        &["MPI_Finalize (", "main (tests/c/deadlock.c:34)"],
    );
}

#[test]
fn a_receive_never_sent_is_a_deadlock_named_at_once() {
    deadlocks(
        "recv",
        &[0, 1],
        &[
            "MPI_Barrier (",
            "MPI_Recv (",
            "main (tests/c/deadlock.c:27)",
        ],
    );
}
