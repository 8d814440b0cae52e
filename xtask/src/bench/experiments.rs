// SPDX-License-Identifier: MIT OR Apache-2.0
//! The registry of experiments, and the host-side ones.
//!
//! An experiment whose program prints `BENCH` lines is one entry of
//! [`REGISTRY`] with [`Kind::Lines`] (see the docs of [`super`]); the ones
//! here measure the emulator itself, from host time and the chip model's
//! reports.

use anyhow::Result;
use chip::{Chip, Mode};

use super::host::{self, Suite};
use super::samples::RawSample;
use super::stats::Summary;
use super::svg::Scale;
use super::table::{Table, num};
use super::{Ctx, Experiment, Kind, Measure, Plot, Run, Section, View, csv, svg};
use crate::run::RunConfig;

/// Every experiment, in the order `all` runs them.
pub static REGISTRY: &[Experiment] = &[
    Experiment {
        name: "put-latency",
        title: "Put latency",
        about: "osu_put_latency on 2 cores (origin core 0, target core 1, one tile): one put and its \
                epoch per sample (fence; start/complete against post/wait; exclusive lock/unlock), \
                1 B to 1 MiB, per window memory type (variant=rma), against the message-based \
                baseline (variant=msg: RCKMPI/CH3-style messages the target applies, default lock \
                mode) and two-sided send/recv over the MPB channel (half a \
                ping-pong). Every transfer is checked.",
        kind: Kind::Lines {
            runs: PUT_GET,
            view: SIZE_VIEW_LATENCY,
        },
    },
    Experiment {
        name: "put-bw",
        title: "Put bandwidth",
        about: "osu_put_bw on 2 cores: a window of puts (64, fewer above 4 KiB so a sample moves at \
                most 256 KiB) in one epoch per sample, \
                against the message-based baseline and a window of two-sided sends answered by one \
                byte.",
        kind: Kind::Lines {
            runs: PUT_GET,
            view: SIZE_VIEW_BANDWIDTH,
        },
    },
    Experiment {
        name: "get-latency",
        title: "Get latency",
        about: "osu_get_latency on 2 cores: one get and its epoch per sample, per epoch type and \
                window memory type, against the message-based baseline (variant=msg, whose get is a \
                request and a reply); every buffer checked.",
        kind: Kind::Lines {
            runs: PUT_GET,
            view: SIZE_VIEW_LATENCY,
        },
    },
    Experiment {
        name: "get-bw",
        title: "Get bandwidth",
        about: "osu_get_bw on 2 cores: a window of gets in one epoch per sample, against the \
                message-based baseline (variant=msg).",
        kind: Kind::Lines {
            runs: PUT_GET,
            view: SIZE_VIEW_BANDWIDTH,
        },
    },
    Experiment {
        name: "pscw-sync",
        title: "PSCW synchronisation latency",
        about: "The thesis's GATS micro-benchmark (Listing 3.5): rank 0 starts empty epochs to k \
                targets, each posting to rank 0, no barrier in the loop; start, complete, post and \
                wait timed one by one, pooled over the targets (1001 epochs per k; 101 with --quick).",
        kind: Kind::Lines {
            runs: &[Run {
                program: "bench-pscw",
                memory_mib: None,
                cores: &[48],
                quick_cores: &[17],
                params: FULL,
                quick_params: QUICK,
            }],
            view: View {
                x: "k",
                table: Measure::Latency,
                x_label: "targets k",
                x_scale: Scale::Linear,
                plots: &[Plot {
                    suffix: "",
                    measure: Measure::Latency,
                    y_scale: Scale::Log(10.0),
                    only: &[],
                }],
            },
        },
    },
    Experiment {
        name: "lock-unlock",
        title: "Lock/unlock latency",
        about: "The passive-target paper's micro-benchmark: empty lock/unlock pairs (1000 per \
                process, as in the paper; 100 with --quick) on random targets, self included, with \
                100 %, 50 % and 0 % shared locks, against the number of processes (each count booted \
                on that many cores, rank i on core i), per lock scheme; all processes' samples \
                pooled. The message-based baseline's two lock modes run the same pairs: \
                msg-default (CH3's deferred lock: an empty pair sends no message at all, so it \
                measures only bookkeeping) and msg-immediate (request, grant and unlock messages, \
                served by the target only inside its own calls into the layer). rma's windows are \
                uncached (memory=ncm), as the paper kept its lock data in uncached DRAM, so a lock \
                needs no cache action. A counter under exclusive locks is checked exact after each \
                scheme.",
        kind: Kind::Lines {
            runs: LOCK_RUNS,
            view: View {
                x: "procs",
                table: Measure::Latency,
                x_label: "processes",
                x_scale: Scale::Linear,
                plots: &[
                    Plot {
                        suffix: "-shared",
                        measure: Measure::Latency,
                        y_scale: Scale::Log(10.0),
                        only: &[("mix", "100")],
                    },
                    Plot {
                        suffix: "-mixed",
                        measure: Measure::Latency,
                        y_scale: Scale::Log(10.0),
                        only: &[("mix", "50")],
                    },
                    Plot {
                        suffix: "-exclusive",
                        measure: Measure::Latency,
                        y_scale: Scale::Log(10.0),
                        only: &[("mix", "0")],
                    },
                ],
            },
        },
    },
    Experiment {
        name: "dht-writer",
        title: "DHT writer impact",
        about: "The passive-target paper's DHT test: core 0 writes entries of its own part (exclusive \
                lock taken first, then put + unlock timed, 101 runs) while n readers look them up \
                under shared locks, readers in core 0's memory-controller domain (close: cores 1-5, \
                12-17 first) or in another (distant: cores 6-11, 18-23); GBH with back-off against \
                MCS-WP. The table's window is uncached (memory=ncm), as the paper kept its data in \
                uncached DRAM; rma's default write-combined MPBT-WT runs beside it at 512 bytes. \
                The writer holds the lock for a settle time before its timed put so that the readers \
                contend (the paper gives none: 10 us assumed, and 0 and 100 us run beside it). \
                Every value read is checked whole.",
        kind: Kind::Lines {
            runs: DHT_RUNS,
            view: View {
                x: "readers",
                table: Measure::Latency,
                x_label: "readers n",
                x_scale: Scale::Linear,
                plots: &[
                    Plot {
                        suffix: "",
                        measure: Measure::Latency,
                        y_scale: Scale::Linear,
                        only: &[("size", "512")],
                    },
                    Plot {
                        suffix: "-32",
                        measure: Measure::Latency,
                        y_scale: Scale::Linear,
                        only: &[("size", "32")],
                    },
                    Plot {
                        suffix: "-1024",
                        measure: Measure::Latency,
                        y_scale: Scale::Linear,
                        only: &[("size", "1024")],
                    },
                ],
            },
        },
    },
    Experiment {
        name: "load-store",
        title: "Load and store bandwidth per memory type",
        about: "The thesis's appendix B.1 method on core 0: a loop of 4-byte loads or stores over a \
                buffer of shareable DRAM from the top down, after a top-down prefetch, per memory \
                type; the median of up to 501 repetitions. Stores are read back.",
        kind: Kind::Lines {
            runs: &[Run {
                program: "bench-load-store",
                memory_mib: None,
                cores: &[1],
                quick_cores: &[1],
                params: FULL,
                quick_params: QUICK,
            }],
            view: View {
                x: "size",
                table: Measure::Bandwidth,
                x_label: "buffer size (bytes)",
                x_scale: Scale::Log(2.0),
                plots: &[
                    Plot {
                        suffix: "-load",
                        measure: Measure::Bandwidth,
                        y_scale: Scale::Log(10.0),
                        only: &[("op", "load")],
                    },
                    Plot {
                        suffix: "-store",
                        measure: Measure::Bandwidth,
                        y_scale: Scale::Log(10.0),
                        only: &[("op", "store")],
                    },
                ],
            },
        },
    },
    Experiment {
        name: "dram-bandwidth",
        title: "Memory controller bandwidth against streaming cores",
        about: "Cores 0..n-1 each read their own 16 KiB (8 KiB with --quick) of core 0's shareable \
                DRAM, behind controller 0, a 4-byte load at a time, mapped MPBT write-back and \
                invalidated before each sweep, so every line is a fill from the controller. A \
                sample is one round on core 0, from a barrier before the sweeps to a barrier \
                after them; its bandwidth counts what all n cores read: the controller's \
                bandwidth against the number of cores streaming from it. Every sweep's sum is \
                checked.",
        kind: Kind::Lines {
            runs: &[Run {
                program: "bench-dram-bandwidth",
                memory_mib: None,
                cores: &[1, 2, 4, 6, 8, 12, 16, 20, 24],
                quick_cores: &[1, 4, 12, 24],
                params: FULL,
                quick_params: QUICK,
            }],
            view: View {
                x: "procs",
                table: Measure::Bandwidth,
                x_label: "cores streaming from controller 0",
                x_scale: Scale::Linear,
                plots: &[Plot {
                    suffix: "",
                    measure: Measure::Bandwidth,
                    y_scale: Scale::Linear,
                    only: &[],
                }],
            },
        },
    },
    Experiment {
        name: "barrier",
        title: "Barrier latency",
        about: "Back-to-back barriers of rma's central (TSR counter) and dissemination algorithms, \
                each timed on every core and checked for a core let through early, against the \
                core count.",
        kind: Kind::Lines {
            runs: &[Run {
                program: "bench-barrier",
                memory_mib: None,
                cores: &[2, 4, 8, 16, 24, 32, 48],
                quick_cores: &[2, 8, 16],
                params: FULL,
                quick_params: QUICK,
            }],
            view: View {
                x: "procs",
                table: Measure::Latency,
                x_label: "cores",
                x_scale: Scale::Log(2.0),
                plots: &[Plot {
                    suffix: "",
                    measure: Measure::Latency,
                    y_scale: Scale::Log(10.0),
                    only: &[],
                }],
            },
        },
    },
    Experiment {
        name: "stencil-scaling",
        title: "Stencil strong scaling",
        about: "The thesis's cellular automaton (SCOSCo version, 4.4.5): its torus of 2400 rows of \
                8 KiB split by rows, halo rows put under post/start/complete/wait on the distributed \
                window database, 4 generations (the thesis ran 100; each sample is one generation, \
                and 100 would be some 10^11 emulated instructions per run; a 192x256 torus for 10 \
                generations with --quick), \
                the same grid on every process count, ranks filling memory controllers first \
                (rank i on core i, as the thesis placed them). Each sample is one generation's time on the slowest core; \
                speedup is the median at 1 process over the median at p (ideal: p). Every core's \
                rows are checked against a serial run of the rows they depend on.",
        kind: Kind::Lines {
            runs: STENCIL_RUNS,
            view: SCALING_VIEW,
        },
    },
    Experiment {
        name: "window-database",
        title: "Centralized against distributed window database",
        about: "The thesis's window-database study (3.4.5, Figures 3.12 and 3.13): the cellular \
                automaton with its puts removed, so only post/start/complete/wait and the \
                computation remain, on the thesis's grid for this study (1600 rows of 8 KiB; 4 \
                generations, the thesis ran 50), with every core's window records at controller 0 \
                (centralized) or each at its own controller (distributed). Each sample is one generation's time \
                on the slowest core; speedup against 1 process. Every core's rows are checked \
                against a serial run of them between zero halos.",
        kind: Kind::Lines {
            runs: WINDOW_DATABASE_RUNS,
            view: SCALING_VIEW,
        },
    },
    Experiment {
        name: "overlap",
        title: "Receiver-side overlap",
        about: "Core 0 computes a fixed piece of work while k origins put 4 KiB blocks into its window \
                under exclusive locks: its compute time against k (k = 0 is the reference; \
                normalised execution time is the median over that of k = 0), and each origin's \
                lock + put + unlock time as its throughput. With direct access (variant=rma) the \
                target takes no part in the transfers; the message-based baseline (variant=msg, \
                default lock mode, 5 repetitions, at most 16 origins) applies every put itself, \
                in a progress call after each of the work's 16 passes. Every slot is checked.",
        kind: Kind::Lines {
            runs: OVERLAP_RUNS,
            view: View {
                x: "origins",
                table: Measure::Latency,
                x_label: "origins k",
                x_scale: Scale::Linear,
                plots: &[
                    Plot {
                        suffix: "",
                        measure: Measure::Latency,
                        y_scale: Scale::Log(10.0),
                        only: &[("side", "target")],
                    },
                    Plot {
                        suffix: "-normalised",
                        measure: Measure::Normalised,
                        y_scale: Scale::Log(10.0),
                        only: &[("side", "target")],
                    },
                    Plot {
                        suffix: "-origins",
                        measure: Measure::Bandwidth,
                        y_scale: Scale::Log(10.0),
                        only: &[("side", "origin")],
                    },
                ],
            },
        },
    },
    Experiment {
        name: "random-access",
        title: "RandomAccess (GUPS)",
        about: "HPCC RandomAccess (the thesis's Ch. 7): each process XORs 64 values of HPCC's random \
                stream (lock-put 32; half as many with --quick) into random words of a table of 4096 u64 words per process, \
                spread over the processes' parts of one window; updates per second of all processes \
                together (MUP/s: Mops/s with one update per op) against the number of processes, per \
                variant: accumulate and fetch_and_op (BXOR) each under a shared lock, get + put under \
                an exclusive lock (lock-put), and accumulates batched per target (up to 64, 1024 \
                waiting in all) under one shared lock per batch. Every table word is checked exact \
                after every round.",
        kind: Kind::Lines {
            runs: &[Run {
                program: "bench-random-access",
                memory_mib: None,
                cores: &[48],
                quick_cores: &[16],
                params: FULL,
                quick_params: QUICK,
            }],
            view: View {
                x: "procs",
                table: Measure::TotalRate,
                x_label: "processes",
                x_scale: Scale::Linear,
                plots: &[Plot {
                    suffix: "",
                    measure: Measure::TotalRate,
                    y_scale: Scale::Linear,
                    only: &[],
                }],
            },
        },
    },
    Experiment {
        name: "accumulate",
        title: "Accumulate family against the process count",
        about: "Each of p processes calls accumulate or get_accumulate (MPI_SUM of 1 u64 and of 256, \
                four of rma's 64-element chunks) or fetch_and_op once on every rank, itself \
                included, in 2 sweeps (1 with --quick), all under one lock_all epoch, each origin \
                starting its sweep at its own rank; every call timed. Every target's elements are \
                checked exact after each round, and the old values get_accumulate and fetch_and_op \
                returned for an element are checked to be 0..p*sweeps once each (their sums over \
                all origins, and each origin's increasing).",
        kind: Kind::Lines {
            runs: &[Run {
                program: "bench-accumulate",
                memory_mib: None,
                cores: &[48],
                quick_cores: &[16],
                params: FULL,
                quick_params: QUICK,
            }],
            view: View {
                x: "procs",
                table: Measure::Latency,
                x_label: "processes",
                x_scale: Scale::Linear,
                plots: &[
                    Plot {
                        suffix: "-accumulate",
                        measure: Measure::Latency,
                        y_scale: Scale::Log(10.0),
                        only: &[("op", "accumulate")],
                    },
                    Plot {
                        suffix: "-get-accumulate",
                        measure: Measure::Latency,
                        y_scale: Scale::Log(10.0),
                        only: &[("op", "get-accumulate")],
                    },
                    Plot {
                        suffix: "-fetch-and-op",
                        measure: Measure::Latency,
                        y_scale: Scale::Log(10.0),
                        only: &[("op", "fetch-and-op")],
                    },
                ],
            },
        },
    },
    Experiment {
        name: "tsr-contention",
        title: "Test-and-set register contention",
        about: "One test-and-set register (core 0's, on tile 0) against the number of cores spinning \
                on it: cores 0..=n take it in turn, 20 times each (3 with --quick), each holding it for \
                a critical section of 400 cycles that adds one to a counter in controller 0's legacy \
                shared memory (behind the register's router); acquire (first attempt until taken) and \
                release (the freeing store) timed, every sample's queueing waits included. The SCC \
                literature reports \"exponential increasing latency when more than 24 cores compete \
                for a spin-lock\" (Reble et al., quoted by the SCC one-sided thesis); here the curve \
                comes from the register block's queue and its back-up into the router alone \
                (`emu::model::backpressure`). The counter is checked exact at every count.",
        kind: Kind::Lines {
            runs: &[Run {
                program: "bench-tsr",
                memory_mib: None,
                cores: &[48],
                quick_cores: &[48],
                params: FULL,
                quick_params: QUICK,
            }],
            view: View {
                x: "spinners",
                table: Measure::Latency,
                x_label: "spinners n",
                x_scale: Scale::Linear,
                plots: &[
                    Plot {
                        suffix: "-acquire",
                        measure: Measure::Latency,
                        y_scale: Scale::Linear,
                        only: &[("op", "acquire")],
                    },
                    Plot {
                        suffix: "-release",
                        measure: Measure::Latency,
                        y_scale: Scale::Linear,
                        only: &[("op", "release")],
                    },
                ],
            },
        },
    },
    Experiment {
        name: "emulator-speed",
        title: "Emulator speed",
        about: "How fast the emulator runs on this host: the host time until all 48 cores have booted \
                (each printed its first serial line) and until `identity` finished; emulated \
                instructions per host second (the plugin's per-core instruction counters over the run's \
                host time, boot included); and the plugin's cost per model level (none: plain QEMU; \
                the memory model without timing; the memory model with modelled time) as ratios to \
                plain QEMU within the same command.",
        kind: Kind::Host(emulator_speed),
    },
    Experiment {
        name: "mesh-heatmap",
        title: "Mesh traffic per router",
        about: "Bytes each tile's router forwarded over a whole run (every core's MPB, DRAM, LSM/POPSHM \
                and register traffic along its XY route, request for stores and write-backs, reply for \
                loads and fills), summed over the cores: where a program's traffic crowds the mesh. \
                Memory controllers (MC) and the system interface (SIF) are marked on the router \
                they hang off.",
        kind: Kind::Host(mesh_heatmap),
    },
    Experiment {
        name: "overhead",
        title: "Host-time overhead of the chip model",
        about: "The chip model's host-time cost against plain QEMU: a private-memory loop on 1 core and \
                the MPB ring on 2 and 48 cores, plain, modelled, modelled with timing and with the \
                coherence checker (also written as overhead.md).",
        kind: Kind::Host(overhead),
    },
    Experiment {
        name: "quantum",
        title: "Modelled time: speed and accuracy per quantum",
        about: "The 48-core MPB ring with modelled time for quanta of 1000 to 1000000 cycles: host \
                time, the slowest core's modelled cycles, their spread over runs and their difference \
                from the smallest quantum's (also written as quantum.md).",
        kind: Kind::Host(quantum),
    },
    Experiment {
        name: "calibrate",
        title: "Calibration: the timing model read back",
        about: "Each primitive's modelled cost (L1 and L2 hits, CL1INVMB, WBINVD, a clock read, \
                MPB loads and stores at every distance, DRAM behind each controller, a test-and-set \
                register's acquire and release), timed from inside the chip by the `timing` \
                program, against its entry in the timing table (`chip::Timing`); each one-sided \
                call on one core, its instructions and cycles against its access-only bound (the \
                accesses it must make at table cost); an uncontended lock/unlock pair broken into its accesses, each class against the table; and the \
                lock/unlock benchmark's medians across quanta of 1,000 to 100,000 cycles and beside \
                busy host processes, with their spread.",
        kind: Kind::Host(super::calibrate::calibrate),
    },
    super::irregular::CHASE,
    super::irregular::BFS,
    super::irregular::BC,
    super::nas_ft::NAS_FT,
];

/// The settings of the full and the quick runs of benchmark programs.
const FULL: &[(&str, &str)] = &[("scale", "full")];
const QUICK: &[(&str, &str)] = &[("scale", "quick")];

/// One stencil configuration's runs: per process count (1, 2, 4, 8, 12,
/// 16, 24, 32, 48), a 48-core run whose processes fill memory controllers
/// first as the thesis placed them; with `--quick`, one run per core count
/// of `$quick`, rank i on core i. The thesis's grids need more than the
/// default 32 MiB of RAM (half of it heap) on the core of rank 0 up to 4
/// processes: a core keeps two copies of its rows while it runs, then its
/// rows and two copies of those they depend on to check them (at 1
/// process, the whole 19 MiB grid three times).
macro_rules! stencil_runs {
    ($database:literal, $puts:literal, $quick:expr) => {
        [
            stencil_runs!(@full $database, $puts, "1", Some(256)),
            stencil_runs!(@full $database, $puts, "2", Some(128)),
            stencil_runs!(@full $database, $puts, "4", Some(64)),
            stencil_runs!(@full $database, $puts, "8", None),
            stencil_runs!(@full $database, $puts, "12", None),
            stencil_runs!(@full $database, $puts, "16", None),
            stencil_runs!(@full $database, $puts, "24", None),
            stencil_runs!(@full $database, $puts, "32", None),
            stencil_runs!(@full $database, $puts, "48", None),
            Run {
                program: "stencil",
                memory_mib: None,
                cores: &[],
                quick_cores: $quick,
                params: &[],
                quick_params: &[
                    ("scale", "quick"),
                    ("database", $database),
                    ("puts", $puts),
                ],
            },
        ]
    };
    (@full $database:literal, $puts:literal, $procs:literal, $memory:expr) => {
        Run {
            program: "stencil",
            memory_mib: $memory,
            cores: &[48],
            quick_cores: &[],
            params: &[
                ("scale", "full"),
                ("database", $database),
                ("puts", $puts),
                ("procs", $procs),
                ("placement", "controllers"),
            ],
            quick_params: &[],
        }
    };
}

/// The stencil-scaling runs.
const STENCIL_RUNS: &[Run] = &stencil_runs!("distributed", "on", &[1, 8, 16]);

/// The window-database runs: centralized, then distributed.
const WINDOW_DATABASE_RUNS: &[Run] = [
    stencil_runs!("centralized", "off", &[1, 16]),
    stencil_runs!("distributed", "off", &[1, 16]),
]
.as_flattened();

/// Speedup and time per generation against the process count.
const SCALING_VIEW: View = View {
    x: "procs",
    table: Measure::Speedup,
    x_label: "processes",
    x_scale: Scale::Linear,
    plots: &[
        Plot {
            suffix: "",
            measure: Measure::Speedup,
            y_scale: Scale::Linear,
            only: &[],
        },
        Plot {
            suffix: "-time",
            measure: Measure::Latency,
            y_scale: Scale::Log(10.0),
            only: &[],
        },
    ],
};

/// The put/get program's run, shared by the four put/get experiments.
const PUT_GET: &[Run] = &[Run {
    program: "bench-put-get",
    memory_mib: None,
    cores: &[2],
    quick_cores: &[2],
    params: FULL,
    quick_params: QUICK,
}];

/// Latency against message size: each epoch type on MPBT-WT windows, the
/// message-based baseline's (no `type`) and the two-sided baseline; and
/// each memory type under lock epochs, with both baselines.
const SIZE_VIEW_LATENCY: View = View {
    x: "size",
    table: Measure::Latency,
    x_label: "message size (bytes)",
    x_scale: Scale::Log(2.0),
    plots: &[
        Plot {
            suffix: "",
            measure: Measure::Latency,
            y_scale: Scale::Log(10.0),
            only: &[("type", "mpbt-wt")],
        },
        Plot {
            suffix: "-types",
            measure: Measure::Latency,
            y_scale: Scale::Log(10.0),
            only: &[("epoch", "lock")],
        },
    ],
};

/// Bandwidth against message size, split as [`SIZE_VIEW_LATENCY`].
const SIZE_VIEW_BANDWIDTH: View = View {
    x: "size",
    table: Measure::Bandwidth,
    x_label: "message size (bytes)",
    x_scale: Scale::Log(2.0),
    plots: &[
        Plot {
            suffix: "",
            measure: Measure::Bandwidth,
            y_scale: Scale::Log(10.0),
            only: &[("type", "mpbt-wt")],
        },
        Plot {
            suffix: "-types",
            measure: Measure::Bandwidth,
            y_scale: Scale::Log(10.0),
            only: &[("epoch", "lock")],
        },
    ],
};

/// One run of `dht --param mode=bench` with the given scheme, readers,
/// value size and placement, on `cores` cores (`quick` with `--quick`).
/// One run of `program` on 48 cores (`quick` with `--quick`) per value of
/// its setting `key`: the memory-based layer and the message-based
/// baseline apart, each within a run's time limit.
macro_rules! runs_per_layer {
    ($program:literal, $quick:literal, $key:literal) => {
        &[
            runs_per_layer!(@run $program, $quick, $key, "rma"),
            runs_per_layer!(@run $program, $quick, $key, "msg"),
        ]
    };
    (@run $program:literal, $quick:literal, $key:literal, $value:literal) => {
        Run {
            program: $program,
            memory_mib: None,
            cores: &[48],
            quick_cores: &[$quick],
            params: &[("scale", "full"), ($key, $value)],
            quick_params: &[("scale", "quick"), ($key, $value)],
        }
    };
}

/// The process counts of the lock/unlock benchmark: those the paper names
/// (2, 6, 8, 24, 32, 48) and the steps between.
const LOCK_COUNTS: &[u32] = &[2, 4, 6, 8, 12, 16, 24, 32, 40, 48];

/// One lock scheme's runs: one per process count, on that many cores
/// (`sweep=off`), none with `--quick`.
macro_rules! lock_run {
    ($layer:literal, $scheme:literal) => {
        Run {
            program: "bench-lock",
            memory_mib: None,
            cores: LOCK_COUNTS,
            quick_cores: &[],
            params: &[
                ("scale", "full"),
                ("layer", $layer),
                ("scheme", $scheme),
                ("sweep", "off"),
            ],
            quick_params: &[],
        }
    };
}

/// The lock/unlock runs: per scheme, rma's, then the baseline's lock
/// modes, each process count a run of its own; with `--quick`, one
/// 16-core run per layer sweeping 2, 8 and 16 processes.
const LOCK_RUNS: &[Run] = &[
    lock_run!("rma", "gbh"),
    lock_run!("rma", "gbh-backoff"),
    lock_run!("rma", "mcs-wp"),
    lock_run!("msg", "msg-default"),
    lock_run!("msg", "msg-immediate"),
    Run {
        program: "bench-lock",
        memory_mib: None,
        cores: &[],
        quick_cores: &[16],
        params: &[],
        quick_params: &[("scale", "quick"), ("layer", "rma")],
    },
    Run {
        program: "bench-lock",
        memory_mib: None,
        cores: &[],
        quick_cores: &[16],
        params: &[],
        quick_params: &[("scale", "quick"), ("layer", "msg")],
    },
];

/// The overlap runs: direct access, then the baseline.
const OVERLAP_RUNS: &[Run] = runs_per_layer!("bench-overlap", 9, "variant");

macro_rules! dht_run {
    ($cores:expr, $quick:expr, $scheme:literal, $readers:literal, $size:literal, $placement:literal) => {
        dht_run!($cores, $quick, $scheme, $readers, $size, $placement, "ncm", "10")
    };
    ($cores:expr, $quick:expr, $scheme:literal, $readers:literal, $size:literal, $placement:literal, $memory:literal, $settle:literal) => {
        Run {
            program: "dht",
            memory_mib: None,
            cores: $cores,
            quick_cores: $quick,
            params: dht_run!(@settings $scheme, $readers, $size, $placement, $memory, $settle),
            quick_params: dht_run!(@settings $scheme, $readers, $size, $placement, $memory, $settle),
        }
    };
    (@settings $scheme:literal, $readers:literal, $size:literal, $placement:literal, $memory:literal, $settle:literal) => {
        &[
            ("mode", "bench"),
            ("scheme", $scheme),
            ("readers", $readers),
            ("size", $size),
            ("placement", $placement),
            ("memory", $memory),
            ("settle", $settle),
        ]
    };
}

/// The DHT writer runs: the reference's grid per scheme, entry sizes 32,
/// 512 and 1024 bytes with 0, 1, 11 and 47 readers, 1 and 11 both close
/// and distant (0 and 47 have no placement), on uncached windows with a
/// 10 µs settle time; then the settle time swept (0 and 100 µs) and rma's
/// default MPBT-WT windows, at 512 bytes; with `--quick`, 11 distant
/// readers on 24 cores (an empty core list: no run in that mode).
const DHT_RUNS: &[Run] = &[
    dht_run!(&[48], &[], "gbh-backoff", "0", "32", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "1", "32", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "1", "32", "distant"),
    dht_run!(&[48], &[], "gbh-backoff", "11", "32", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "11", "32", "distant"),
    dht_run!(&[48], &[], "gbh-backoff", "47", "32", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "0", "512", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "1", "512", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "1", "512", "distant"),
    dht_run!(&[48], &[], "gbh-backoff", "11", "512", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "11", "512", "distant"),
    dht_run!(&[48], &[], "gbh-backoff", "47", "512", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "0", "1024", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "1", "1024", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "1", "1024", "distant"),
    dht_run!(&[48], &[], "gbh-backoff", "11", "1024", "close"),
    dht_run!(&[48], &[], "gbh-backoff", "11", "1024", "distant"),
    dht_run!(&[48], &[], "gbh-backoff", "47", "1024", "close"),
    dht_run!(&[48], &[], "mcs-wp", "0", "32", "close"),
    dht_run!(&[48], &[], "mcs-wp", "1", "32", "close"),
    dht_run!(&[48], &[], "mcs-wp", "1", "32", "distant"),
    dht_run!(&[48], &[], "mcs-wp", "11", "32", "close"),
    dht_run!(&[48], &[], "mcs-wp", "11", "32", "distant"),
    dht_run!(&[48], &[], "mcs-wp", "47", "32", "close"),
    dht_run!(&[48], &[], "mcs-wp", "0", "512", "close"),
    dht_run!(&[48], &[], "mcs-wp", "1", "512", "close"),
    dht_run!(&[48], &[], "mcs-wp", "1", "512", "distant"),
    dht_run!(&[48], &[], "mcs-wp", "11", "512", "close"),
    dht_run!(&[48], &[], "mcs-wp", "11", "512", "distant"),
    dht_run!(&[48], &[], "mcs-wp", "47", "512", "close"),
    dht_run!(&[48], &[], "mcs-wp", "0", "1024", "close"),
    dht_run!(&[48], &[], "mcs-wp", "1", "1024", "close"),
    dht_run!(&[48], &[], "mcs-wp", "1", "1024", "distant"),
    dht_run!(&[48], &[], "mcs-wp", "11", "1024", "close"),
    dht_run!(&[48], &[], "mcs-wp", "11", "1024", "distant"),
    dht_run!(&[48], &[], "mcs-wp", "47", "1024", "close"),
    // The settle time has no source: swept at 47 readers, 512 bytes.
    dht_run!(&[48], &[], "gbh-backoff", "47", "512", "close", "ncm", "0"),
    dht_run!(
        &[48],
        &[],
        "gbh-backoff",
        "47",
        "512",
        "close",
        "ncm",
        "100"
    ),
    dht_run!(&[48], &[], "mcs-wp", "47", "512", "close", "ncm", "0"),
    dht_run!(&[48], &[], "mcs-wp", "47", "512", "close", "ncm", "100"),
    // rma's default window type, write-combined MPBT-WT, against the
    // reference's uncached memory.
    dht_run!(
        &[48],
        &[],
        "gbh-backoff",
        "11",
        "512",
        "close",
        "mpbt-wt",
        "10"
    ),
    dht_run!(
        &[48],
        &[],
        "gbh-backoff",
        "47",
        "512",
        "close",
        "mpbt-wt",
        "10"
    ),
    dht_run!(&[48], &[], "mcs-wp", "11", "512", "close", "mpbt-wt", "10"),
    dht_run!(&[48], &[], "mcs-wp", "47", "512", "close", "mpbt-wt", "10"),
    dht_run!(&[], &[24], "gbh-backoff", "11", "512", "distant"),
    dht_run!(&[], &[24], "mcs-wp", "11", "512", "distant"),
];

pub(super) fn experiment(name: &str) -> &'static Experiment {
    REGISTRY
        .iter()
        .find(|e| e.name == name)
        .expect("a registered experiment")
}

fn suite(ctx: &mut Ctx<'_>, name: &str, suite: Suite) -> Result<Section> {
    let mut section = Section::new(experiment(name));
    let (overhead, path) = host::run(suite, ctx.quick, ctx.out, ctx.interrupt())?;
    let table = overhead.table();
    section.csv = Some(csv::write(&table.header, &table.rows));
    section.host.push(table);
    section.failures = overhead.failures.clone();
    section.runs = overhead.log.clone();
    section.samples = overhead.samples();
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
    section.notes.push(format!(
        "The table is also written as Markdown to `{}` beside the CSV.",
        file.unwrap_or_default()
    ));
    Ok(section)
}

fn overhead(ctx: &mut Ctx<'_>) -> Result<Section> {
    suite(ctx, "overhead", Suite::Overhead)
}

fn quantum(ctx: &mut Ctx<'_>) -> Result<Section> {
    suite(ctx, "quantum", Suite::Quantum)
}

/// The model levels of the emulator-speed runs: plain QEMU, the memory
/// model without timing, with timing at the default quantum.
const LEVELS: [(Mode, &str); 3] = [
    (Mode::Plain, "none (plain QEMU)"),
    (Mode::Modelled(host::UNTIMED), "memory model"),
    (
        host::timed(emu::timing::DEFAULT_QUANTUM),
        "memory model + timing",
    ),
];

/// Programs and core counts of the instruction-rate and overhead runs.
const SPEED_CASES_QUICK: &[(&str, u32)] = &[("bench-private", 1), ("bench-mpb", 2)];
const SPEED_CASES: &[(&str, u32)] = &[
    ("bench-private", 1),
    ("bench-mpb", 2),
    ("bench-mpb", 48),
    ("comm", 48),
];

/// Runs per measurement (the median counts).
const RUNS: usize = 3;

/// What the boot table times, in host seconds from creating the chip
/// memory.
const BOOT_EVENTS: [&str; 3] = [
    "first core's first line",
    "every core's first line",
    "identity finished on every core",
];

fn emulator_speed(ctx: &mut Ctx<'_>) -> Result<Section> {
    let mut section = Section::new(experiment("emulator-speed"));
    let runs = if ctx.quick { 1 } else { RUNS };
    let cores = chip::DEFAULT_CHIP.cores();

    // Boot: every core's first serial line, then the end of `identity`.
    let mut all_up = Vec::new();
    let mut first_up = Vec::new();
    let mut whole = Vec::new();
    for run in 1..=runs {
        let report = ctx.boot(RunConfig::new(cores, "identity"))?;
        let what = format!("identity on {cores} cores, run {run}/{runs}");
        if !section.record(&what, &report) {
            continue;
        }
        let firsts: Vec<f64> = report
            .cores
            .iter()
            .filter_map(|c| c.first_line.map(|d| d.as_secs_f64()))
            .collect();
        let mut events = Vec::new();
        if firsts.len() == cores as usize {
            let (first, all) = (
                firsts.iter().copied().reduce(f64::min),
                firsts.iter().copied().reduce(f64::max),
            );
            first_up.extend(first);
            all_up.extend(all);
            events.extend(first.map(|s| (BOOT_EVENTS[0], s)));
            events.extend(all.map(|s| (BOOT_EVENTS[1], s)));
        }
        whole.push(report.elapsed.as_secs_f64());
        events.push((BOOT_EVENTS[2], report.elapsed.as_secs_f64()));
        for (event, seconds) in events {
            section.samples.push(RawSample {
                keys: vec![("event".into(), event.into())],
                values: vec![("host s".into(), seconds.to_string())],
                run: section.last_run(),
                core: None,
            });
        }
    }
    let mut boot = Table::new(
        format!("Boot Time Test, {cores} cores (host time)"),
        &["event", "runs", "median (s)", "min (s)", "max (s)"],
    );
    boot.notes
        .push("host seconds from creating the chip memory; chip model with timing on".into());
    for (event, values) in BOOT_EVENTS.into_iter().zip([&first_up, &all_up, &whole]) {
        if let Some(s) = Summary::of(values.iter().copied()) {
            boot.rows.push(vec![
                event.to_owned(),
                s.n.to_string(),
                num(s.median, 2),
                num(s.min, 2),
                num(s.max, 2),
            ]);
        }
    }
    section.host.push(boot);

    // Instruction rate and the cost of each model level.
    let cases = if ctx.quick {
        SPEED_CASES_QUICK
    } else {
        SPEED_CASES
    };
    // Per case and level: host seconds and instructions of each run.
    let mut seconds = vec![vec![Vec::new(); LEVELS.len()]; cases.len()];
    let mut insns = vec![vec![Vec::new(); LEVELS.len()]; cases.len()];
    for run in 1..=runs {
        for (c, &(program, n)) in cases.iter().enumerate() {
            for (l, &(mode, level)) in LEVELS.iter().enumerate() {
                let config = host::config(program, n, mode, None);
                let report = ctx.boot(config)?;
                let what = format!("{program} on {n} core(s), {level}, run {run}/{runs}");
                if !section.record(&what, &report) {
                    continue;
                }
                seconds[c][l].push(report.elapsed.as_secs_f64());
                let mut values = vec![(
                    "host s".to_owned(),
                    report.elapsed.as_secs_f64().to_string(),
                )];
                if mode != Mode::Plain {
                    let total: u64 = report.reports.iter().flatten().map(|r| r.stats.insns).sum();
                    insns[c][l].push(total as f64);
                    values.push(("instructions".to_owned(), total.to_string()));
                }
                section.samples.push(RawSample {
                    keys: vec![
                        ("program".into(), program.into()),
                        ("cores".into(), n.to_string()),
                        ("model level".into(), level.into()),
                    ],
                    values,
                    run: section.last_run(),
                    core: None,
                });
            }
        }
    }
    let mut speed = Table::new(
        "Emulator Speed Test (host time)",
        &[
            "program",
            "cores",
            "model level",
            "host s",
            "ratio to plain",
            "instructions (M)",
            "MIPS",
        ],
    );
    speed.notes.push(format!(
        "median of {runs} run(s); host seconds from boot to the last core's exit; instructions summed over the cores"
    ));
    speed.notes.push(
        "MIPS = emulated instructions per host second, boot included; plain QEMU has no counter: \
         its row (~) divides the memory-model run's count by the plain run's time"
            .into(),
    );
    let median = |v: &[f64]| Summary::of(v.iter().copied()).map_or(f64::NAN, |s| s.median);
    for (c, &(program, n)) in cases.iter().enumerate() {
        let plain = median(&seconds[c][0]);
        for (l, &(_, level)) in LEVELS.iter().enumerate() {
            let s = median(&seconds[c][l]);
            let (count, approx) = if l == 0 {
                (median(&insns[c][1]), "~")
            } else {
                (median(&insns[c][l]), "")
            };
            let count_cell = if l == 0 {
                String::new()
            } else {
                num(count / 1e6, 1)
            };
            let mips = count / 1e6 / s;
            let mips = if mips.is_finite() {
                format!("{approx}{}", num(mips, 1))
            } else {
                String::new()
            };
            speed.rows.push(vec![
                program.to_owned(),
                n.to_string(),
                level.to_owned(),
                num(s, 2),
                num(s / plain, 2),
                count_cell,
                mips,
            ]);
        }
    }
    section.csv = Some(csv::write(&speed.header, &speed.rows));
    section.host.push(speed);
    Ok(section)
}

/// The programs whose traffic the heatmap shows, with their settings,
/// with `--quick` and without.
const HEATMAP_QUICK: &[(&str, &[(&str, &str)])] = &[("stencil", &[("scale", "quick")])];
const HEATMAP: &[(&str, &[(&str, &str)])] = &[("stencil", &[]), ("comm", &[])];

/// The routers where memory controllers and the system interface hang.
pub fn mesh_marks(chip: &Chip) -> Vec<(usize, usize, String)> {
    let mut marks: Vec<(usize, usize, String)> = chip
        .memory_controllers
        .iter()
        .enumerate()
        .map(|(i, mc)| {
            (
                usize::from(mc.port.tile.x),
                usize::from(mc.port.tile.y),
                format!("MC{i}"),
            )
        })
        .collect();
    let sif = chip.system_interface.tile;
    marks.push((usize::from(sif.x), usize::from(sif.y), "SIF".into()));
    marks
}

/// The bytes of each router, summed over `stats`, one per tile.
pub fn router_totals<'a>(
    chip: &Chip,
    stats: impl IntoIterator<Item = &'a emu::model::stats::CoreStats>,
) -> Vec<u64> {
    let tiles = chip.tiles() as usize;
    let mut total = vec![0u64; tiles];
    for s in stats {
        for (t, b) in total.iter_mut().zip(&s.router_bytes) {
            *t += b;
        }
    }
    total
}

/// The columns of the heatmap's CSV rows.
const MESH_COLUMNS: [&str; 6] = ["program", "tile", "x", "y", "bytes", "attached"];

/// The heatmap's table (top row the highest y), CSV rows (as
/// `MESH_COLUMNS`) and SVG.
pub fn heatmap_outputs(
    chip: &Chip,
    program: &str,
    cores: u32,
    totals: &[u64],
) -> (Table, Vec<Vec<String>>, String) {
    let (w, h) = (usize::from(chip.mesh_x), usize::from(chip.mesh_y));
    let marks = mesh_marks(chip);
    let mut header: Vec<String> = vec!["y \\ x".into()];
    header.extend((0..w).map(|x| format!("x={x}")));
    let mut table = Table::new(
        format!("Mesh Traffic Test, {program} on {cores} cores"),
        &[],
    );
    table.header = header;
    table.notes.push(
        "bytes forwarded by each tile's router, all cores, modelled chip; rows as the mesh lies (y up)"
            .into(),
    );
    let mark_of = |x: usize, y: usize| {
        let m: Vec<&str> = marks
            .iter()
            .filter(|(mx, my, _)| (*mx, *my) == (x, y))
            .map(|(_, _, m)| m.as_str())
            .collect();
        m.join(" ")
    };
    let mut rows = Vec::new();
    for y in (0..h).rev() {
        let mut row = vec![format!("y={y}")];
        for x in 0..w {
            let v = totals.get(x + w * y).copied().unwrap_or(0);
            let m = mark_of(x, y);
            row.push(if m.is_empty() {
                v.to_string()
            } else {
                format!("{v} ({m})")
            });
        }
        table.rows.push(row);
    }
    for y in 0..h {
        for x in 0..w {
            let tile = x + w * y;
            rows.push(vec![
                program.to_owned(),
                tile.to_string(),
                x.to_string(),
                y.to_string(),
                totals.get(tile).copied().unwrap_or(0).to_string(),
                mark_of(x, y),
            ]);
        }
    }
    let svg = svg::heatmap(&svg::Heatmap {
        title: format!("Bytes through each router: {program} on {cores} cores"),
        width: w,
        height: h,
        values: totals.to_vec(),
        marks,
        legend: "white: 0 bytes; dark red: the most".into(),
    });
    (table, rows, svg)
}

fn mesh_heatmap(ctx: &mut Ctx<'_>) -> Result<Section> {
    let mut section = Section::new(experiment("mesh-heatmap"));
    let cores = chip::DEFAULT_CHIP.cores();
    let programs = if ctx.quick { HEATMAP_QUICK } else { HEATMAP };
    let mut csv_rows = Vec::new();
    for &(program, params) in programs {
        let mut config = RunConfig::new(cores, program);
        config.params = params
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        config.stats = true;
        config.timeout = super::TIMEOUT;
        let report = ctx.boot(config)?;
        let what = format!("{program} on {cores} cores");
        if !section.record(&what, &report) {
            continue;
        }
        let missing = report.missing_reports();
        if !missing.is_empty() {
            section.failures.push(format!(
                "{what}: no chip-model report from core(s) {missing:?}"
            ));
        }
        let totals = router_totals(
            chip::DEFAULT_CHIP,
            report.reports.iter().flatten().map(|r| &r.stats),
        );
        if totals.iter().all(|&b| b == 0) {
            section
                .failures
                .push(format!("{what}: no router counted any byte"));
        }
        let (table, rows, svg) = heatmap_outputs(chip::DEFAULT_CHIP, program, cores, &totals);
        for row in &rows {
            // Every column a key but the router's bytes, the sample.
            let (mut keys, mut values) = (Vec::new(), Vec::new());
            for (column, cell) in MESH_COLUMNS.iter().zip(row) {
                let pair = ((*column).to_owned(), cell.clone());
                if *column == "bytes" {
                    values.push(pair);
                } else if !cell.is_empty() {
                    keys.push(pair);
                }
            }
            section.samples.push(RawSample {
                keys,
                values,
                run: section.last_run(),
                core: None,
            });
        }
        section.modeled.push(table);
        csv_rows.extend(rows);
        section
            .svgs
            .push((format!("mesh-heatmap-{program}.svg"), svg));
        section.notes.push(format!(
            "{program}: {} forwarded in all (each byte counted at every router it crossed).",
            svg::bytes(totals.iter().sum())
        ));
    }
    let header: Vec<String> = MESH_COLUMNS.map(String::from).to_vec();
    section.csv = Some(csv::write(&header, &csv_rows));
    Ok(section)
}

#[cfg(test)]
mod tests {
    use chip::SCC;
    use emu::model::stats::CoreStats;

    use super::*;

    #[test]
    fn the_heatmap_draws_an_8x8_mesh_with_its_controllers() {
        let chip = &chip::MESH8X8;
        let mut a = CoreStats::default();
        a.router_bytes[63] = 7;
        let totals = router_totals(chip, [&a]);
        assert_eq!(totals.len(), 64);
        let (table, rows, svg) = heatmap_outputs(chip, "comm", 128, &totals);
        assert_eq!(table.header.len(), 1 + 8);
        assert_eq!(table.rows.len(), 8);
        assert_eq!(table.rows[0][0], "y=7");
        // Tile (7,7) holds the bytes; controllers 4-7 hang off the top row.
        assert_eq!(table.rows[0][8], "7");
        assert_eq!(table.rows[0][1], "0 (MC4)");
        assert_eq!(table.rows[7][2], "0 (MC0)");
        assert_eq!(table.rows[7][1], "0 (SIF)");
        assert_eq!(rows.len(), 64);
        assert!(svg.contains(">MC7<") && svg.contains(">y=7<"));
    }

    #[test]
    fn the_heatmap_follows_the_chip_and_sums_the_cores() {
        let mut a = CoreStats::default();
        let mut b = CoreStats::default();
        a.router_bytes[0] = 64;
        a.router_bytes[5] = 32;
        b.router_bytes[5] = 32;
        b.router_bytes[23] = 4;
        b.router_bytes[40] = 1; // beyond the chip's tiles: not shown
        let totals = router_totals(&SCC, [&a, &b]);
        assert_eq!(totals.len(), 24);
        assert_eq!((totals[0], totals[5], totals[23]), (64, 64, 4));
        let (table, rows, svg) = heatmap_outputs(&SCC, "stencil", 48, &totals);
        assert_eq!(table.header.len(), 1 + SCC.mesh_x as usize);
        assert_eq!(table.rows.len(), SCC.mesh_y as usize);
        // The top row is the highest y; MCs are marked where they hang.
        assert_eq!(table.rows[0][0], "y=3");
        assert_eq!(table.rows[0][6], "4");
        let bottom = &table.rows[3];
        assert_eq!(bottom[1], "64 (MC0)");
        assert_eq!(bottom[6], "64 (MC1)");
        assert_eq!(table.rows[1][1], "0 (MC2)");
        assert_eq!(table.rows[1][6], "0 (MC3)");
        assert_eq!(bottom[4], "0 (SIF)");
        assert_eq!(rows.len(), 24);
        assert_eq!(rows[5], ["stencil", "5", "5", "0", "64", "MC1"]);
        assert!(svg.contains(">MC0<") && svg.contains(">64 B<"));
        let text = table.to_string();
        assert!(text.starts_with("# OSU MPI-style Mesh Traffic Test, stencil on 48 cores\n"));
    }
}
