// SPDX-License-Identifier: MIT OR Apache-2.0
//! Benchmark programs of `cargo xtask bench`, measured in modeled SCC time.
//!
//! Each program times what it measures with the chip's clock (the global
//! timestamp: modeled core cycles under the emulator's timing) and prints
//! its samples as result lines the host pools and turns into tables and
//! plots:
//!
//! ```text
//! BENCH <experiment> <key>=<value> ... [bytes=<n>] cycles=<c1>,<c2>,...
//! ```
//!
//! The keys name the measurement (size, epoch, memory type, ...); samples
//! of lines with the same experiment and keys are pooled over lines and
//! cores. `bytes` is what one sample moved, for bandwidths. Lines stay
//! under [`LINE_LIMIT`] characters: a long series is split over several.
//!
//! Every program checks the data it moves, outside the timed part, and
//! fails the run on the first wrong value: a benchmark that goes fast
//! because it goes wrong must not count.
//!
//! The message-based baseline ([`rma::msg::MsgRma`], RCKMPI/CH3 style)
//! runs beside the memory-based layer where a program compares them
//! (`variant=msg` or `scheme=msg-*` in the keys), on the same
//! communicator before the memory-based part ([`msg_layer`]).
//!
//! Each program takes the setting `scale` ([`Scale`], in [`Scaled`] or
//! its own settings): `full` for the figures in the report, `quick` for
//! `cargo xtask bench --quick` (fewer sizes, counts and iterations, same
//! code).

pub mod accumulate;
pub mod barrier;
pub mod dram_bandwidth;
pub mod load_store;
pub mod lock;
pub mod overlap;
pub mod pscw;
pub mod put_get;
pub mod random_access;
pub mod tsr;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;
use kernel::chip::settings::{Choice, choice};

use rma::comm::Comm;
use rma::msg::{LockMode, MsgOptions, MsgRma};

use kernel::Platform;

/// Longest result line printed, in characters.
pub const LINE_LIMIT: usize = 3800;

/// Cycles a wait of the message-based baseline may see no message arrive
/// before it fails as a deadlock (about 8 s of modelled time, far more
/// than any benchmark round a core may sit out in a fence), so a stuck
/// run ends with an error.
pub const MSG_STALL_LIMIT: u64 = 1 << 32;

/// The message-based baseline on `comm` with lock mode `mode`. Its
/// windows are private heap memory of their targets, and it owns the
/// channel while they exist: take the communicator back with
/// [`MsgRma::into_comm`] once they are freed.
pub fn msg_layer(comm: Comm<'_, Platform>, mode: LockMode) -> MsgRma<'_, Platform> {
    MsgRma::new(
        comm,
        MsgOptions {
            mode,
            stall_limit: Some(MSG_STALL_LIMIT),
            ..MsgOptions::default()
        },
    )
}

/// How much a benchmark measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// The report's sizes and iterations.
    Full,
    /// A few of each.
    Quick,
}

impl Choice for Scale {
    const ALL: &'static [Self] = &[Self::Full, Self::Quick];
    const NAMES: &'static [&'static str] = &["full", "quick"];
}

impl Scale {
    /// `quick` at the quick scale, `full` at the full one.
    pub fn pick<T>(self, quick: T, full: T) -> T {
        match self {
            Self::Quick => quick,
            Self::Full => full,
        }
    }
}

/// Which layers a comparing benchmark runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layers {
    /// The memory-based layer and the message-based baseline.
    All,
    /// The memory-based layer alone.
    Rma,
    /// The message-based baseline alone.
    Msg,
}

impl Choice for Layers {
    const ALL: &'static [Self] = &[Self::All, Self::Rma, Self::Msg];
    const NAMES: &'static [&'static str] = &["all", "rma", "msg"];
}

impl Layers {
    /// Whether the memory-based layer runs.
    pub fn rma(self) -> bool {
        self != Self::Msg
    }

    /// Whether the message-based baseline runs.
    pub fn msg(self) -> bool {
        self != Self::Rma
    }
}

kernel::chip::settings! {
    /// The settings of a benchmark that takes only its scale.
    pub struct Scaled {
        /// full: the report's sizes and iterations; quick: a few of each (cargo xtask bench --quick)
        scale: Scale = choice::<Scale>("full"),
    }
}

/// Prints `samples` of `experiment` at `keys` (`"k=v k=v"`) as result
/// lines; `bytes`, if any, is what each sample moved.
pub fn emit(experiment: &str, keys: &str, bytes: Option<u64>, samples: &[u64]) {
    let mut head = String::new();
    let _ = write!(head, "BENCH {experiment} {keys}");
    if let Some(bytes) = bytes {
        let _ = write!(head, " bytes={bytes}");
    }
    head.push_str(" cycles=");
    let mut line = head.clone();
    let mut empty = true;
    for s in samples {
        if line.len() + 21 > LINE_LIMIT && !empty {
            kernel::println!("{line}");
            line.clone_from(&head);
            empty = true;
        }
        if !empty {
            line.push(',');
        }
        let _ = write!(line, "{s}");
        empty = false;
    }
    if !empty {
        kernel::println!("{line}");
    }
}

/// The counts of `quick` or `full` (as `scale` says) up to `limit`, and
/// `limit` itself at the end if `with_limit`: the process or target counts
/// a benchmark steps through on the cores it has.
pub fn counts_up_to(
    scale: Scale,
    quick: &[u32],
    full: &[u32],
    limit: u32,
    with_limit: bool,
) -> Vec<u32> {
    let wanted = scale.pick(quick, full);
    let mut counts: Vec<u32> = wanted.iter().copied().filter(|&k| k <= limit).collect();
    if with_limit && counts.last() != Some(&limit) {
        counts.push(limit);
    }
    counts
}

/// Times `f` on the chip's clock: its result and the cycles it took.
pub fn timed<R>(platform: &Platform, f: impl FnOnce() -> R) -> (R, u64) {
    let start = platform.now();
    let r = f();
    (r, platform.now().saturating_sub(start))
}

/// A deterministic generator (xorshift64*): the same sequence on every
/// run, different per seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// True with probability `percent` / 100.
    pub fn percent(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

/// The byte a benchmark writes at `index` in round `round` from `origin`:
/// different for neighbouring rounds, origins and indices.
pub fn pattern(round: u32, origin: u32, index: usize) -> u8 {
    (round.wrapping_mul(31) ^ origin.wrapping_mul(7) ^ index as u32 ^ (index as u32 >> 8)) as u8
}

/// Fills `buf` with [`pattern`].
pub fn fill(buf: &mut [u8], round: u32, origin: u32) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern(round, origin, i);
    }
}

/// `Err` naming the first byte of `buf` that is not [`pattern`].
pub fn verify(buf: &[u8], round: u32, origin: u32, what: &str) -> Result<(), String> {
    match buf
        .iter()
        .enumerate()
        .find(|&(i, &b)| b != pattern(round, origin, i))
    {
        None => Ok(()),
        Some((i, &b)) => Err(alloc::format!(
            "{what}: byte {i} of {} is {b:#x}, expected {:#x}",
            buf.len(),
            pattern(round, origin, i)
        )),
    }
}
