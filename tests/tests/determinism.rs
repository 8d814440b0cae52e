// SPDX-License-Identifier: MIT OR Apache-2.0
//! Modelled time does not depend on the host: cores that contend for
//! locks meet in modelled-time order and wait in modelled time, so a run
//! gives the same modelled cycles alone and beside busy host processes.
//!
//! The runs leave the resource queues out (`--no-queues`): with them,
//! runs beside busy processes still differ now and then by a few cycles in
//! some samples (see `emu::timing`, "What stays nondeterministic").

use std::num::NonZeroU64;
use std::process::{Child, Command};

use system_tests::{Mode, Model, RunConfig, Time, assert_clean_success, boot_with, lines_starting};

/// Two cores contend for GBH and MCS-WP locks (every mix of shared and
/// exclusive): each core's BENCH lines, the modelled cycles of every
/// lock/unlock pair.
fn lock_samples() -> Vec<Vec<String>> {
    let config = RunConfig {
        mode: Mode::Modelled(Model {
            time: Time::On {
                quantum: NonZeroU64::new(chip::DEFAULT_QUANTUM).unwrap(),
                queues: false,
            },
            ..Model::DEFAULT
        }),
        params: vec![
            ("scale".to_owned(), "quick".to_owned()),
            ("layer".to_owned(), "rma".to_owned()),
        ],
        ..RunConfig::new(2, "bench-lock")
    };
    let report = boot_with(&config);
    assert_clean_success(&report, 2);
    (0..2)
        .map(|core| {
            let lines: Vec<String> = lines_starting(&report, core, "BENCH lock-unlock")
                .into_iter()
                .map(str::to_owned)
                .collect();
            assert_eq!(lines.len(), 9, "core {core}: three schemes, three mixes");
            lines
        })
        .collect()
}

/// Processes that keep host CPUs busy until dropped.
struct Busy(Vec<Child>);

impl Busy {
    fn start(n: usize) -> Self {
        Self(
            (0..n)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("sh starts")
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn contended_locks_take_the_same_modelled_cycles_beside_busy_host_processes() {
    let alone = lock_samples();
    let busy = Busy::start(2);
    let loaded = lock_samples();
    drop(busy);
    for core in 0..2 {
        for (a, b) in alone[core].iter().zip(&loaded[core]) {
            assert_eq!(a, b, "core {core}: alone, then beside two busy processes");
        }
    }
}
