// SPDX-License-Identifier: MIT OR Apache-2.0
//! The programs a kernel image can run, by name.
//!
//! This file has no dependencies on purpose: the kernel uses it to pick the
//! program named on its command line, and xtask includes it to check
//! `--program NAME` before anything boots.

/// A program every booted core runs.
#[derive(Debug, Clone, Copy)]
pub struct ProgramInfo {
    /// Name given to `cargo xtask run --program`.
    pub name: &'static str,
    /// One line on what it shows.
    pub about: &'static str,
    /// The settings it takes (`cargo xtask run --param NAME=VALUE`).
    pub params: &'static [Param],
}

/// A setting a program takes on the command line, with its default.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Its name.
    pub name: &'static str,
    /// The values it accepts.
    pub values: &'static [&'static str],
    /// The value when none is given; one of `values`.
    pub default: &'static str,
    /// One line on what it changes.
    pub about: &'static str,
}

impl ProgramInfo {
    /// The setting called `name`.
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Whether `value` is one `param` accepts: `Ok`, or why not.
    pub fn check_param(&self, name: &str, value: &str) -> Result<&'static Param, ParamError> {
        let param = self.param(name).ok_or(ParamError::Unknown)?;
        if param.values.contains(&value) {
            Ok(param)
        } else {
            Err(ParamError::BadValue(param))
        }
    }
}

/// Why a setting was refused.
#[derive(Debug, Clone, Copy)]
pub enum ParamError {
    /// The program takes no setting of that name.
    Unknown,
    /// The setting does not take that value.
    BadValue(&'static Param),
}

/// The setting every benchmark program of `cargo xtask bench` takes.
pub const SCALE: Param = Param {
    name: "scale",
    values: &["full", "quick"],
    default: "full",
    about: "full: the report's sizes and iterations; quick: a few of each (cargo xtask bench --quick)",
};

/// The program run when none is named.
pub const DEFAULT_PROGRAM: &str = "ring";

/// Every program, in the order `--help` lists them.
pub const PROGRAMS: &[ProgramInfo] = &[
    ProgramInfo {
        name: "ring",
        about: "identity, a token around a ring of all cores through the MPBs, a barrier, a summary",
        params: &[],
    },
    ProgramInfo {
        name: "identity",
        about: "each core prints its id and tile coordinates, then meets the others in a barrier",
        params: &[],
    },
    ProgramInfo {
        name: "comm",
        about: "rma's MPB channel, both barriers, bcast, allgather and allreduce on every core, results checked",
        params: &[],
    },
    ProgramInfo {
        name: "tsr-counter",
        about: "every core adds 1 to a shared uncached counter 1000 times under a test-and-set register",
        params: &[],
    },
    ProgramInfo {
        name: "lut",
        about: "each core reads its LUT back through the CRB and checks the default layout",
        params: &[],
    },
    ProgramInfo {
        name: "selftest",
        about: "each core checks kernel parts that only run on the target: frames, paging, heap, MPB access, CL1INVMB, timer, TSR, command line",
        params: &[],
    },
    ProgramInfo {
        name: "stale-mpbt",
        about: "core 1 caches an MPB line, core 0 writes it: core 1 reads the stale value until CL1INVMB",
        params: &[],
    },
    ProgramInfo {
        name: "wcb",
        about: "core 0's MPB store waits in its write-combine buffer, unseen by core 1, until flushed",
        params: &[],
    },
    ProgramInfo {
        name: "write-back",
        about: "core 0's store into a cached line stays unseen by core 1 until WBINVD (MPBT) or an L2 eviction (DCM)",
        params: &[],
    },
    ProgramInfo {
        name: "ncm-fresh",
        about: "cores 0 and 1 ping-pong 1000 uncached messages without cache maintenance, data checked",
        params: &[],
    },
    ProgramInfo {
        name: "lut-remap",
        about: "core 0 points a free LUT entry at one tile's MPB, then another's: each access goes where the entry points",
        params: &[],
    },
    ProgramInfo {
        name: "lut-unset",
        about: "core 0 reads through a LUT entry that reaches nothing: the emulator must stop it, naming the entry",
        params: &[],
    },
    ProgramInfo {
        name: "ring-stale",
        about: "the ring with its waiting cores polling without CL1INVMB: must fail, reporting a stale line",
        params: &[],
    },
    ProgramInfo {
        name: "shared-dram",
        about: "each core maps its own and its neighbour's POPSHM through free LUT entries (MPBT-WT, then NCM) and the LSM: every refusal, pattern and reply checked",
        params: &[],
    },
    ProgramInfo {
        name: "rma-fence",
        about: "rma windows under fence: neighbour puts and gets in consecutive epochs for each memory type, 1000 small puts in one epoch, empty epochs; every value checked",
        params: &[],
    },
    ProgramInfo {
        name: "rma-pscw",
        about: "rma post/start/complete/wait with overlapping groups (origins +1 and +2, targets -1 and -2), an epoch without operations, empty groups; every value checked",
        params: &[],
    },
    ProgramInfo {
        name: "rma-pscw-stale",
        about: "rma-pscw with the coherence actions disabled: must fail, the target's cached lines hiding what origins put",
        params: &[],
    },
    ProgramInfo {
        name: "rma-transpose",
        about: "a distributed matrix transposed with strided puts under fence and back with strided gets; every element checked",
        params: &[],
    },
    ProgramInfo {
        name: "rma-errors",
        about: "every misuse of rma windows and epochs, each checked for its MPI error class and message, then a working epoch",
        params: &[],
    },
    ProgramInfo {
        name: "rma-passive",
        about: "passive target on every core: a random lock mix without torn blocks, a fetch_and_op counter, a compare_and_swap mutex and lock-free list, accumulate from every core, misuse errors; every value checked",
        params: &[Param {
            name: "scheme",
            values: &["gbh", "gbh-backoff", "mcs-wp"],
            default: "gbh-backoff",
            about: "the lock scheme of every window",
        }],
    },
    ProgramInfo {
        name: "stencil",
        about: "a 2D cellular automaton (9-point stencil, a 480x256 torus whatever the core count) with halo rows exchanged by put under PSCW, verified against a serial run on core 0, with per-window statistics; benchmark lines: each generation's time on the slowest core",
        params: &[
            SCALE,
            Param {
                name: "database",
                values: &["distributed", "centralized"],
                default: "distributed",
                about: "where the halo windows' records lie: each core's at its own memory controller, or all at controller 0",
            },
            Param {
                name: "puts",
                values: &["on", "off"],
                default: "on",
                about: "off: the halo puts removed, only the synchronisation left (the thesis's window-database study); each core's rows are then checked against a serial run of them between zero halos",
            },
        ],
    },
    ProgramInfo {
        name: "dht",
        about: "the passive-target distributed hash table: inserts under exclusive locks, lookups under shared ones, every value checked (mode=verify), or core 0's write times while readers look up its entries (mode=bench, BENCH lines)",
        params: &[
            Param {
                name: "scheme",
                values: &["gbh", "gbh-backoff", "mcs-wp"],
                default: "gbh-backoff",
                about: "how the window's locks are taken: GBH, GBH with exponential back-off, or MCS-WP (queue lock, writer preference)",
            },
            Param {
                name: "mode",
                values: &["verify", "bench"],
                default: "verify",
                about: "verify: every core inserts keys and checks every other core's; bench: core 0 writes 101 entries of its part while readers look them up, printing the put+unlock cycles",
            },
            Param {
                name: "size",
                values: &["32", "512", "1024"],
                default: "32",
                about: "bytes per value",
            },
            Param {
                name: "readers",
                values: &["0", "1", "11", "47"],
                default: "11",
                about: "bench: cores that look up core 0's entries while it writes",
            },
            Param {
                name: "placement",
                values: &["close", "distant"],
                default: "close",
                about: "bench: readers on cores 1-5 and 12-17 (core 0's memory controller) or on cores 6-11 and 18-23 (the next one); no difference for 0 or 47 readers",
            },
        ],
    },
    ProgramInfo {
        name: "timing",
        about: "each core times L1, L2 and MPB accesses at every distance (core 0 also near and far DRAM and a TSR round trip) with the global timestamp and checks them against the chip's timing table",
        params: &[],
    },
    ProgramInfo {
        name: "page-fault",
        about: "the highest-numbered core touches unmapped memory: the run must fail naming it",
        params: &[],
    },
    ProgramInfo {
        name: "hang",
        about: "the highest-numbered core loops forever while the others wait for it: the run must time out naming it",
        params: &[],
    },
    ProgramInfo {
        name: "triple-fault",
        about: "the highest-numbered core shuts its CPU down without reporting: the run must fail naming it",
        params: &[],
    },
    ProgramInfo {
        name: "bench-private",
        about: "benchmark: about 500 million loads and stores over 64 KiB of private memory, every word checked",
        params: &[],
    },
    ProgramInfo {
        name: "bench-mpb",
        about: "benchmark: a 64-byte token around the ring through the MPBs, 10000 laps on 2 cores to 50 on 48, every payload checked",
        params: &[],
    },
    ProgramInfo {
        name: "bench-put-get",
        about: "benchmark on 2 cores: put and get latency and bandwidth, 1 B to 1 MiB, under fence, PSCW and lock epochs for each window memory type, and two-sided send/recv; every transfer checked",
        params: &[SCALE],
    },
    ProgramInfo {
        name: "bench-pscw",
        about: "benchmark: PSCW synchronisation latency, one origin and k targets, empty epochs, each of start, complete, post and wait timed",
        params: &[SCALE],
    },
    ProgramInfo {
        name: "bench-lock",
        about: "benchmark: empty lock/unlock pairs on random targets, 100/50/0 % shared, 2..N processes, per lock scheme; a counter under each scheme checked exact",
        params: &[
            SCALE,
            Param {
                name: "layer",
                values: &["all", "rma", "msg"],
                default: "all",
                about: "which schemes run: rma's (GBH, GBH with back-off, MCS-WP), the message-based baseline's two lock modes, or both",
            },
        ],
    },
    ProgramInfo {
        name: "bench-load-store",
        about: "benchmark on core 0: 4-byte load and store loops over buffers of 1 KiB to 1 MiB of shareable DRAM, for each memory type; stores read back",
        params: &[SCALE],
    },
    ProgramInfo {
        name: "bench-barrier",
        about: "benchmark: back-to-back barriers of each algorithm, each timed and checked for a core let through early",
        params: &[SCALE],
    },
    ProgramInfo {
        name: "bench-overlap",
        about: "benchmark: core 0 computes while k origins put into its window under locks; its compute time against k, every slot checked",
        params: &[
            SCALE,
            Param {
                name: "variant",
                values: &["all", "rma", "msg"],
                default: "all",
                about: "which variants run: direct access, the message-based baseline (at most 16 origins at full scale), or both",
            },
        ],
    },
    ProgramInfo {
        name: "bench-random-access",
        about: "benchmark: HPCC RandomAccess, XOR updates of random words of a table spread over 1..N processes' windows, per update variant; every table word checked exact after every round",
        params: &[
            SCALE,
            Param {
                name: "variant",
                values: &[
                    "all",
                    "accumulate",
                    "fetch-and-op",
                    "lock-put",
                    "accumulate-batched",
                ],
                default: "all",
                about: "how an update reaches its word: accumulate or fetch_and_op (BXOR) under a shared lock, get + put under an exclusive lock, or accumulates batched per target (up to 64, 1024 waiting in all); all: each in turn",
            },
        ],
    },
];

/// The program called `name`, if there is one.
pub fn find(name: &str) -> Option<&'static ProgramInfo> {
    PROGRAMS.iter().find(|p| p.name == name)
}
