// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `dht` program, rma's distributed hash table under passive-target
//! locks, with the chip model and its coherence checker:
//! - `mode=verify` with each lock scheme (GBH with back-off and MCS-WP on 48 cores,
//!   GBH on 16 to save host time): every core inserts
//!   its keys, every other core finds each with every value byte right,
//!   twice (the second time after every value was replaced, which a
//!   reader keeping stale lines would miss), and keys never inserted stay
//!   absent; no read anywhere is stale.
//! - `mode=bench` on 8 cores with one reader, close and distant, each
//!   scheme: core 0 prints one well-formed `BENCH dht-writer` line of 101
//!   samples, and every value the reader read was whole.
//! - both again on the 8x8 chip (`chip::MESH8X8`), at 24 and 8 cores.

use std::time::Duration;

use chip::{Chip, MESH8X8, SCC};
use system_tests::{
    RunConfig, RunReport, assert_clean_success, assert_no_failed_checks, boot_with, lines_starting,
    transcript,
};

/// Keys each core inserts (`KEYS_PER_CORE` in the program).
const KEYS_PER_CORE: u32 = 8;
/// Timed writes per BENCH line.
const RUNS: usize = 101;

/// Boots `dht` on `cores` cores with `params`, the chip model (its timing
/// included) and the coherence checker, and expects every core to succeed
/// without a stale read and no core to print a failed check.
fn dht_ok(chip: &'static Chip, cores: u32, params: &[(&str, &str)]) -> RunReport {
    let report = boot_with(&RunConfig {
        mode: system_tests::CHECKED,
        timeout: Duration::from_secs(if cores > 8 { 300 } else { 120 }),
        params: params
            .iter()
            .map(|&(n, v)| (n.to_owned(), v.to_owned()))
            .collect(),
        ..RunConfig::new(cores, "dht").on(chip)
    });
    assert_clean_success(&report, cores);
    assert_no_failed_checks(&report);
    report
}

fn verify_on(chip: &'static Chip, cores: u32, scheme: &str) {
    verify_in(chip, cores, scheme, "ncm");
}

/// `verify` with `scheme` on a window of memory type `memory`.
fn verify_in(chip: &'static Chip, cores: u32, scheme: &str, memory: &str) {
    let report = dht_ok(chip, cores, &[("scheme", scheme), ("memory", memory)]);
    // Twice every other core's keys, then this core's absent keys.
    let checks = cores * (2 * (cores - 1) * KEYS_PER_CORE + KEYS_PER_CORE);
    assert_eq!(
        lines_starting(&report, 0, "dht:"),
        [format!(
            "dht: {cores} cores, {checks} checks, 0 failed: scheme={scheme} size=32 memory={memory}: {KEYS_PER_CORE} keys inserted per core in 32 slots per core, every other core's found with every value byte right, twice (the second time replaced); keys never inserted absent"
        )],
        "{}",
        transcript(&report)
    );
    let stats = lines_starting(&report, 0, "dht core 0: ");
    assert_eq!(stats.len(), 1, "{}", transcript(&report));
    assert!(
        stats[0].starts_with(&format!(
            "dht core 0: {} inserts ({KEYS_PER_CORE} updates, 0 refused as full), {} lookups ({} found)",
            2 * KEYS_PER_CORE,
            (2 * (cores - 1) + 1) * KEYS_PER_CORE,
            2 * (cores - 1) * KEYS_PER_CORE
        )),
        "{}",
        stats[0]
    );
}

#[test]
fn verify_with_gbh_backoff_on_48_cores() {
    verify_on(&SCC, 48, "gbh-backoff");
}

/// A 48-core run takes about 40 s of host time, so the second scheme
/// runs on 16 cores (both passed on 48).
#[test]
fn verify_with_gbh_on_16_cores() {
    verify_on(&SCC, 16, "gbh");
}

#[test]
fn verify_with_mcs_wp_on_48_cores() {
    verify_on(&SCC, 48, "mcs-wp");
}

/// The table on rma's default window type, cached in L1 and written
/// through the write-combine buffer: a lock must drop the reader's stale
/// lines and an unlock flush the writer's buffer.
#[test]
fn verify_with_gbh_backoff_on_mpbt_wt_windows_on_16_cores() {
    verify_in(&SCC, 16, "gbh-backoff", "mpbt-wt");
}

/// The samples of core 0's one `BENCH dht-writer` line, checked against
/// the settings it names.
fn bench_samples(report: &RunReport, settings: &str) -> Vec<u64> {
    let lines = lines_starting(report, 0, "BENCH ");
    assert_eq!(lines.len(), 1, "{}", transcript(report));
    let prefix = format!("BENCH dht-writer {settings} cycles=");
    let samples = lines[0]
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{:?} does not start with {prefix:?}", lines[0]));
    assert!(lines[0].len() < 4000, "{} characters", lines[0].len());
    samples
        .split(',')
        .map(|s| s.parse().unwrap_or_else(|_| panic!("sample {s:?}")))
        .collect()
}

fn bench_on_8_cores(chip: &'static Chip, scheme: &str, size: &str, placement: &str) {
    let report = dht_ok(
        chip,
        8,
        &[
            ("mode", "bench"),
            ("scheme", scheme),
            ("readers", "1"),
            ("size", size),
            ("placement", placement),
        ],
    );
    let samples = bench_samples(
        &report,
        &format!(
            "scheme={scheme} readers=1 size={size} placement={placement} memory=ncm settle=10"
        ),
    );
    assert_eq!(samples.len(), RUNS);
    // Modelled time: a put and an unlock take at least some cycles.
    assert!(samples.iter().all(|&c| c > 0), "{samples:?}");
    // The reader read each run's key at least once.
    let summary = lines_starting(&report, 0, "dht:");
    assert_eq!(summary.len(), 1, "{}", transcript(&report));
    let checks: u32 = summary[0]
        .strip_prefix("dht: 8 cores, ")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", summary[0]));
    assert!(checks >= RUNS as u32, "{}", summary[0]);
    assert!(summary[0].contains(" 0 failed: bench: "), "{}", summary[0]);
}

#[test]
fn bench_with_one_close_reader_prints_101_samples() {
    bench_on_8_cores(&SCC, "gbh-backoff", "32", "close");
}

#[test]
fn bench_with_one_distant_reader_prints_101_samples() {
    bench_on_8_cores(&SCC, "gbh", "1024", "distant");
}

#[test]
fn bench_with_mcs_wp_prints_101_samples() {
    bench_on_8_cores(&SCC, "mcs-wp", "512", "close");
}

/// On the 8x8 chip: 24 cores span four memory controllers' POPSHM.
mod mesh8x8 {
    use super::*;

    #[test]
    fn verify_with_gbh_backoff_on_24_cores() {
        verify_on(&MESH8X8, 24, "gbh-backoff");
    }

    #[test]
    fn verify_with_mcs_wp_on_8_cores() {
        verify_on(&MESH8X8, 8, "mcs-wp");
    }

    #[test]
    fn bench_with_one_distant_reader_prints_101_samples() {
        bench_on_8_cores(&MESH8X8, "gbh", "1024", "distant");
    }
}
