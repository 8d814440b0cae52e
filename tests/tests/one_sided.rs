// SPDX-License-Identifier: MIT OR Apache-2.0
//! The benchmarks written once over `rma::OneSided` on booted cores, with
//! the coherence checker: each runs the same code on the memory-based
//! layer and the message-based baseline, checks every transfer, counter
//! and slot itself, and must read nothing stale.

use system_tests::{
    CHECKED, RunConfig, assert_clean_success, boot_with, lines_starting, timeout_for, transcript,
};

/// Boots `program` at quick scale on `cores` cores with the checker;
/// core 0 must print one summary line starting with `summary`, and both
/// layers result lines.
fn quick_checked(program: &str, cores: u32, summary: &str) {
    let report = boot_with(&RunConfig {
        mode: CHECKED,
        timeout: timeout_for(cores),
        params: vec![("scale".into(), "quick".into())],
        ..RunConfig::new(cores, program)
    });
    assert_clean_success(&report, cores);
    let lines = lines_starting(&report, 0, summary);
    assert_eq!(lines.len(), 1, "{}", transcript(&report));
    // Both layers gave result lines.
    let bench: Vec<&str> = (0..cores)
        .flat_map(|core| lines_starting(&report, core, "BENCH "))
        .collect();
    for layer in [
        "variant=rma",
        "variant=msg",
        "scheme=gbh",
        "scheme=msg-default",
    ] {
        let wanted = match program {
            "bench-lock" => layer.starts_with("scheme"),
            _ => layer.starts_with("variant"),
        };
        if wanted {
            assert!(
                bench.iter().any(|l| l.split(' ').any(|w| w == layer)),
                "no {layer} line\n{}",
                transcript(&report)
            );
        }
    }
}

#[test]
fn lock_pairs_and_counters_on_both_layers() {
    quick_checked(
        "bench-lock",
        4,
        "bench-lock: 100 lock/unlock pairs per process",
    );
}

#[test]
fn puts_and_gets_on_both_layers() {
    quick_checked("bench-put-get", 2, "bench-put-get: ");
}

#[test]
fn overlap_on_both_layers() {
    quick_checked("bench-overlap", 4, "bench-overlap: ");
}
