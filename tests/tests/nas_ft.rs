// SPDX-License-Identifier: MIT OR Apache-2.0
//! NAS FT in C (`apps/nas-ft/ft.c`), built with the C toolchain `mpicc`
//! uses, on 4 cores under the coherence checker: class S (64x64x64, 6
//! iterations) with two-sided transposes and with puts in PSCW epochs on
//! MPBT-WT and on message-based windows must reproduce NPB's reference
//! checksums with no stale read; a bad argument is refused, naming it.

use std::path::Path;
use std::time::Duration;

use system_tests::{CHECKED, RunConfig, RunReport, assert_clean_success, boot_with, transcript};

/// FT on `cores` cores with `args` after its name.
fn run_ft(cores: u32, args: &[&str]) -> RunReport {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../apps/nas-ft/ft.c");
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let (app, params) = xtask::app_of(None, vec![file], &args, Vec::new())
        .unwrap_or_else(|e| panic!("apps/nas-ft/ft.c: {e:#}"));
    boot_with(&RunConfig {
        mode: CHECKED,
        timeout: Duration::from_secs(600),
        app,
        params,
        ..RunConfig::new(cores, "main")
    })
}

/// Core 0's lines that contain `text`.
fn lines_with<'r>(report: &'r RunReport, text: &str) -> Vec<&'r str> {
    report
        .serial(0)
        .iter()
        .map(String::as_str)
        .filter(|l| l.contains(text))
        .collect()
}

/// Class S verifies with `variant` on 4 cores, every iteration's checksum
/// within NPB's tolerance, and no core read stale data.
fn class_s_verifies(variant: &str) {
    let report = run_ft(4, &["S", variant]);
    assert_clean_success(&report, 4);
    let sums = lines_with(&report, " checksum = ");
    assert_eq!(sums.len(), 6, "{}", transcript(&report));
    assert!(
        sums.iter().all(|l| l.contains(" ok (")),
        "{}",
        transcript(&report)
    );
    assert_eq!(
        lines_with(&report, "VERIFIED"),
        [format!("VERIFIED: class S, {variant}, 4 processes")],
        "{}",
        transcript(&report)
    );
    assert_eq!(lines_with(&report, "MFLOPS: ").len(), 1);
    let results = lines_with(&report, "BENCH nas-ft ");
    let parts = ["total", "computation", "communication", "synchronisation"];
    assert_eq!(results.len(), parts.len(), "{}", transcript(&report));
    for (line, part) in results.iter().zip(parts) {
        let head =
            format!("BENCH nas-ft class=S variant={variant} cores=4 verified=yes part={part} ");
        assert!(line.starts_with(&head), "{line}");
    }
    // The total's cycles are the printed time at 533 MHz, and its ops
    // NPB's count for class S (the printed MFLOPS times the time).
    let field = |line: &str, key: &str| -> f64 {
        line.split_once(key)
            .and_then(|(_, rest)| rest.split(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in {line}"))
    };
    let seconds = field(lines_with(&report, "time: ")[0], "time: ");
    let cycles = field(results[0], "cycles=");
    assert!(
        (cycles / 533e6 - seconds).abs() < 1e-5,
        "{cycles} cycles, {seconds} s"
    );
    let mflops = field(lines_with(&report, "MFLOPS: ")[0], "MFLOPS: ");
    let ops = field(results[0], "ops=");
    assert!(
        (ops * 1e-6 / seconds - mflops).abs() < 0.01,
        "{ops} ops, {mflops} MFLOPS"
    );
}

#[test]
fn class_s_verifies_with_two_sided_transposes_on_4_cores() {
    class_s_verifies("two-sided");
}

#[test]
fn class_s_verifies_with_pscw_puts_on_mpbt_wt_windows_on_4_cores() {
    class_s_verifies("pscw-mpbt-wt");
}

#[test]
fn class_s_verifies_with_pscw_puts_on_message_based_windows_on_4_cores() {
    class_s_verifies("pscw-messages");
}

#[test]
fn a_bad_argument_is_named() {
    for (args, why) in [
        (&["X", "two-sided"][..], "ft: unknown class X"),
        (&["S", "fence"], "ft: unknown variant fence"),
        (
            &["S", "two-sided", "go"],
            "ft: unknown third argument go (only keep-going)",
        ),
    ] {
        let report = run_ft(1, args);
        assert!(!report.success(), "{}", transcript(&report));
        assert_eq!(
            lines_with(&report, "ft: "),
            [why],
            "{}",
            transcript(&report)
        );
    }
}

/// With `keep-going` a run whose checksums are wrong still ends with
/// status 0, and its result lines say `verified=no`: the DCM window on 4
/// cores with class T (128 KiB windows, half of L2) reads stale lines.
#[test]
fn keep_going_reports_wrong_checksums_without_failing() {
    let report = run_ft(4, &["T", "pscw-dcm", "keep-going"]);
    assert!(report.success(), "{}", transcript(&report));
    assert_eq!(
        lines_with(&report, "UNSUCCESSFUL"),
        ["UNSUCCESSFUL: class T, pscw-dcm, 4 processes"],
        "{}",
        transcript(&report)
    );
    let results = lines_with(&report, "BENCH nas-ft ");
    assert_eq!(results.len(), 4, "{}", transcript(&report));
    assert!(results.iter().all(|l| l.contains(" verified=no ")));
}
