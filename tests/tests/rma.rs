// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one-sided layer's platform and programs on 2, 8 and 48 cores, with
//! the chip model and its coherence checker: a correct program must read
//! nothing stale, and every value a program reads is checked on the
//! target.
//!
//! `shared-dram` exercises the kernel's HAL for windows: POPSHM mapped
//! through free LUT entries with a memory type, page by page as accesses
//! reach it, each refusal with its error and message, and the LSM.

use system_tests::{RunReport, boot_ok, lines_starting, transcript};

/// Checks that no core printed a failed check, and that core 0 printed
/// `summary` exactly once.
fn assert_summary(report: &RunReport, summary: &str) {
    for core in 0..report.cores.len() as u32 {
        assert!(
            lines_starting(report, core, "check failed").is_empty(),
            "{}",
            transcript(report)
        );
    }
    let prefix = summary.split(':').next().expect("a summary has a name");
    assert_eq!(
        lines_starting(report, 0, &format!("{prefix}:")),
        [summary],
        "{}",
        transcript(report)
    );
}

fn shared_dram_on(cores: u32) {
    let report = boot_ok(cores, "shared-dram");
    assert_summary(
        &report,
        &format!(
            "shared-dram: {cores} cores mapped their own and a neighbour's POPSHM (MPBT-WT, then NCM), every pattern, reply and LSM word read back"
        ),
    );
}

#[test]
fn shared_dram_on_2_cores() {
    shared_dram_on(2);
}

#[test]
fn shared_dram_on_8_cores() {
    shared_dram_on(8);
}

#[test]
fn shared_dram_on_48_cores() {
    shared_dram_on(48);
}
