// SPDX-License-Identifier: MIT OR Apache-2.0
//! Modelled time does not depend on the host: cores that contend for
//! locks meet in modelled-time order, wait in modelled time and queue at
//! the resources by calendars whose contents do not depend on host order,
//! so a run gives the same modelled cycles alone, beside busy host
//! processes, and with another quantum. Every benchmark program, at quick
//! scale on a few cores, prints the same BENCH lines and ends at the same
//! modelled cycles alone and beside busy host processes, and sixteen
//! cores in fence epochs end at the same cycles run after run.

use std::num::NonZeroU64;
use std::time::Instant;

use system_tests::{Mode, Model, RunConfig, Time, assert_clean_success, boot_with, lines_starting};
use xtask::bench::calibrate::Busy;

/// Cores that contend.
const CORES: u32 = 4;

/// Four cores contend for GBH, GBH with back-off and MCS-WP locks (every
/// mix of shared and exclusive, on 2 and 4 processes), with the resource
/// queues, within `quantum`, the chip's variation drawn from `seed`: each
/// core's BENCH lines, the modelled cycles of every lock/unlock pair.
fn lock_samples(quantum: u64, seed: u64) -> Vec<Vec<String>> {
    let config = RunConfig {
        mode: Mode::Modelled(Model {
            time: Time::On {
                quantum: NonZeroU64::new(quantum).unwrap(),
                queues: true,
                seed,
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
fn contended_locks_take_the_same_cycles_for_a_seed_beside_busy_processes_and_in_any_quantum() {
    let seed = 1;
    let alone = lock_samples(chip::DEFAULT_QUANTUM, seed);
    let busy = Busy::start(2).expect("sh starts");
    let loaded = lock_samples(chip::DEFAULT_QUANTUM, seed);
    drop(busy);
    let finer = lock_samples(chip::DEFAULT_QUANTUM / 10, seed);
    // Another seed: other clock phases, releases from reset and
    // arbitration, so other cycles somewhere.
    let other = lock_samples(chip::DEFAULT_QUANTUM, seed + 1);
    assert_ne!(alone, other, "seeds {seed} and {}", seed + 1);
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

/// A benchmark program's run: the program, its cores and its settings,
/// each at quick scale where it has one.
struct Bench {
    program: &'static str,
    cores: u32,
    params: &'static [(&'static str, &'static str)],
}

const QUICK: &[(&str, &str)] = &[("scale", "quick")];

/// Every program `cargo xtask programs` names `bench-*`, and those the
/// benchmark suite runs besides (`xtask/src/bench/experiments.rs`: the
/// DHT's writer and the stencil), each on the fewest cores that take
/// every path of its synchronisation: more than one target or origin
/// where it has them (so cores contend at a lock, a PSCW group, a
/// barrier), both layers where it has two.
const BENCHES: &[Bench] = &[
    // One core: loads and stores through every memory type.
    Bench {
        program: "bench-load-store",
        cores: 1,
        params: QUICK,
    },
    // No BENCH lines (a host-speed benchmark): its cycles at exit.
    Bench {
        program: "bench-private",
        cores: 1,
        params: &[],
    },
    Bench {
        program: "bench-mpb",
        cores: 2,
        params: &[],
    },
    // Fence, PSCW and lock epochs, both layers, and the two-sided channel.
    Bench {
        program: "bench-put-get",
        cores: 2,
        params: QUICK,
    },
    Bench {
        program: "bench-pscw",
        cores: 4,
        params: QUICK,
    },
    // Every scheme of both layers, on 2, 3 and 4 processes.
    Bench {
        program: "bench-lock",
        cores: 4,
        params: QUICK,
    },
    Bench {
        program: "bench-barrier",
        cores: 4,
        params: QUICK,
    },
    // Both variants, with no origin and one; the third core waits out
    // each round.
    // Cores streaming from one controller, each round between barriers.
    Bench {
        program: "bench-dram-bandwidth",
        cores: 4,
        params: QUICK,
    },
    Bench {
        program: "bench-overlap",
        cores: 3,
        params: QUICK,
    },
    Bench {
        program: "bench-random-access",
        cores: 4,
        params: QUICK,
    },
    Bench {
        program: "bench-accumulate",
        cores: 4,
        params: QUICK,
    },
    // One holder and one and three spinners on core 0's TSR.
    Bench {
        program: "bench-tsr",
        cores: 4,
        params: QUICK,
    },
    Bench {
        program: "dht",
        cores: 4,
        params: &[("mode", "bench"), ("readers", "3")],
    },
    Bench {
        program: "stencil",
        cores: 4,
        params: QUICK,
    },
];

/// What a run of `bench` measured: per core, its BENCH lines and its
/// modelled cycles and instructions at exit.
fn measured(bench: &Bench) -> Vec<(Vec<String>, u64, u64)> {
    let config = RunConfig {
        params: bench
            .params
            .iter()
            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
        ..RunConfig::new(bench.cores, bench.program)
    };
    let report = boot_with(&config);
    assert_clean_success(&report, bench.cores);
    (0..bench.cores)
        .map(|core| {
            let lines = lines_starting(&report, core, "BENCH ")
                .into_iter()
                .map(str::to_owned)
                .collect();
            let stats = &report.reports[core as usize]
                .as_ref()
                .expect("every core reports")
                .stats;
            (lines, stats.cycles, stats.insns)
        })
        .collect()
}

#[test]
fn every_benchmark_program_measures_the_same_modelled_cycles_beside_busy_host_processes() {
    let started = Instant::now();
    let alone: Vec<_> = BENCHES.iter().map(measured).collect();
    let busy = Busy::start(2).expect("sh starts");
    let loaded: Vec<_> = BENCHES.iter().map(measured).collect();
    drop(busy);
    let mut differences = Vec::new();
    for ((bench, alone), loaded) in BENCHES.iter().zip(&alone).zip(&loaded) {
        let what = format!("{} on {} cores", bench.program, bench.cores);
        for (core, (a, b)) in alone.iter().zip(loaded).enumerate() {
            let differing = a.0.iter().zip(&b.0).filter(|(x, y)| x != y).count()
                + a.0.len().abs_diff(b.0.len());
            if differing > 0 {
                let first = a.0.iter().zip(&b.0).find(|(x, y)| x != y);
                differences.push(format!(
                    "{what}, core {core}: {differing} of {} BENCH lines differ; first:\n  alone:  {:?}\n  loaded: {:?}",
                    a.0.len(),
                    first.map(|f| f.0),
                    first.map(|f| f.1)
                ));
            }
            if (a.1, a.2) != (b.1, b.2) {
                differences.push(format!(
                    "{what}, core {core}: {} cycles and {} instructions at exit alone, {} and {} loaded",
                    a.1, a.2, b.1, b.2
                ));
            }
        }
        let lines: usize = alone.iter().map(|c| c.0.len()).sum();
        assert!(
            lines > 0 || matches!(bench.program, "bench-private" | "bench-mpb"),
            "{what} printed no BENCH line"
        );
    }
    eprintln!(
        "{} benchmark runs, twice: {:.0} s",
        BENCHES.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        differences.is_empty(),
        "alone, then beside two busy processes:\n{}",
        differences.join("\n")
    );
}

/// Sixteen cores through fence epochs, twice: many wait at once, and a
/// store that wakes one orders first, which charges the queueing of its
/// core's earlier requests. Every core ends at the same modelled cycles
/// and instructions in both runs: a store timed from before its order
/// woke its waiters in buckets the other cores had judged final, and the
/// runs differed.
#[test]
fn sixteen_cores_through_fence_epochs_end_at_the_same_cycles_in_every_run() {
    let fence = Bench {
        program: "rma-fence",
        cores: 16,
        params: &[],
    };
    let first = measured(&fence);
    let second = measured(&fence);
    for (core, (a, b)) in first.iter().zip(&second).enumerate() {
        assert_eq!(
            (a.1, a.2),
            (b.1, b.2),
            "core {core}: cycles and instructions at exit, run after run"
        );
    }
}
