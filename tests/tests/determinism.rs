// SPDX-License-Identifier: MIT OR Apache-2.0
//! Modelled time does not depend on the host: cores that contend for
//! locks meet in modelled-time order, wait in modelled time and queue at
//! the resources by calendars whose contents do not depend on host order,
//! so a run gives the same modelled cycles alone, beside busy host
//! processes, and with another quantum.

use std::num::NonZeroU64;

use system_tests::{Mode, Model, RunConfig, Time, assert_clean_success, boot_with, lines_starting};
use xtask::bench::calibrate::Busy;

/// Cores that contend.
const CORES: u32 = 4;

/// Four cores contend for GBH, GBH with back-off and MCS-WP locks (every
/// mix of shared and exclusive, on 2 and 4 processes), with the resource
/// queues, within `quantum`: each core's BENCH lines, the modelled cycles
/// of every lock/unlock pair.
fn lock_samples(quantum: u64) -> Vec<Vec<String>> {
    let config = RunConfig {
        mode: Mode::Modelled(Model {
            time: Time::On {
                quantum: NonZeroU64::new(quantum).unwrap(),
                queues: true,
            },
            ..Model::DEFAULT
        }),
        params: vec![
            ("scale".to_owned(), "quick".to_owned()),
            ("layer".to_owned(), "rma".to_owned()),
        ],
        ..RunConfig::new(CORES, "bench-lock")
    };
    let report = boot_with(&config);
    assert_clean_success(&report, CORES);
    (0..CORES)
        .map(|core| {
            let lines: Vec<String> = lines_starting(&report, core, "BENCH lock-unlock")
                .into_iter()
                .map(str::to_owned)
                .collect();
            // Every core takes part at 4 processes; cores 0 and 1 at 2 too.
            let expected = if core < 2 { 18 } else { 9 };
            assert_eq!(
                lines.len(),
                expected,
                "core {core}: three schemes, three mixes"
            );
            lines
        })
        .collect()
}

#[test]
fn contended_locks_take_the_same_modelled_cycles_beside_busy_host_processes_and_in_any_quantum() {
    let alone = lock_samples(chip::DEFAULT_QUANTUM);
    let busy = Busy::start(2).expect("sh starts");
    let loaded = lock_samples(chip::DEFAULT_QUANTUM);
    drop(busy);
    let finer = lock_samples(chip::DEFAULT_QUANTUM / 10);
    for core in 0..CORES as usize {
        for ((a, b), c) in alone[core].iter().zip(&loaded[core]).zip(&finer[core]) {
            assert_eq!(a, b, "core {core}: alone, then beside two busy processes");
            assert_eq!(
                a,
                c,
                "core {core}: quantum {}, then {}",
                chip::DEFAULT_QUANTUM,
                chip::DEFAULT_QUANTUM / 10
            );
        }
    }
}
