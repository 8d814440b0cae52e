// SPDX-License-Identifier: MIT OR Apache-2.0
//! The irregular applications on the global address space (`gas-chase`
//! and `gas-bfs`): references or edges per second against cores and tasks
//! per core.

use super::svg::Scale;
use super::{Experiment, Kind, Measure, Plot, Run, View};

/// The runs of one BFS variant at some tasks per core, full and quick.
macro_rules! bfs_run {
    ($variant:literal, $tasks:literal) => {
        Run {
            program: "gas-bfs",
            memory_mib: None,
            cores: &[4, 16, 48],
            quick_cores: &[4],
            params: &[
                ("variant", $variant),
                ("tasks", $tasks),
                ("vertices", "2048"),
            ],
            quick_params: &[
                ("variant", $variant),
                ("tasks", $tasks),
                ("vertices", "512"),
            ],
        }
    };
}

/// Pointer chasing: every task walks the whole chain; the program sweeps
/// tasks per core up to 8 (4 with --quick) in each run.
pub const CHASE: Experiment = Experiment {
    name: "gas-chase",
    title: "Pointer chasing on the global address space",
    about: "gas-chase: one chain of 4096 u32 elements (1024 with --quick) shuffled by log2(length) \
            riffle passes, hashed over the cores' windows at line granularity; every task of every \
            core walks the whole chain by split-phase gets, each checked against the serial chain. \
            Total references per second of all cores against tasks per core, per core count.",
    kind: Kind::Lines {
        runs: &[Run {
            program: "gas-chase",
            memory_mib: None,
            cores: &[4, 16, 48],
            quick_cores: &[4],
            params: &[("length", "4096"), ("tasks", "8")],
            quick_params: &[("length", "1024"), ("tasks", "4")],
        }],
        view: View {
            x: "tasks",
            table: Measure::TotalRate,
            x_label: "tasks per core",
            x_scale: Scale::Linear,
            plots: &[Plot {
                suffix: "",
                measure: Measure::TotalRate,
                y_scale: Scale::Linear,
                only: &[],
            }],
        },
    },
};

/// BFS, atomic and lock variants, 1 and 4 tasks per core.
pub const BFS: Experiment = Experiment {
    name: "gas-bfs",
    title: "BFS on the global address space",
    about: "gas-bfs: a uniform random graph of 2048 vertices (512 with --quick), out-degrees \
            uniform in 1..=80, levels claimed by compare-and-swap (atomic) or by get and put under \
            a lock per block of 16 vertices (lock); levels checked against a serial BFS. Total \
            edges per second of all cores against the core count, per variant and tasks per core; \
            the run logs give lock spins per acquisition and lock attempts per target.",
    kind: Kind::Lines {
        runs: &[
            bfs_run!("atomic", "1"),
            bfs_run!("atomic", "4"),
            bfs_run!("lock", "1"),
            bfs_run!("lock", "4"),
        ],
        view: View {
            x: "cores",
            table: Measure::TotalRate,
            x_label: "cores",
            x_scale: Scale::Linear,
            plots: &[Plot {
                suffix: "",
                measure: Measure::TotalRate,
                y_scale: Scale::Linear,
                only: &[],
            }],
        },
    },
};
