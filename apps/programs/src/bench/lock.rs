// SPDX-License-Identifier: MIT OR Apache-2.0
//! The lock/unlock micro-benchmark of the passive-target paper (3.4):
//! every process takes and gives back empty locks (1000 per process at full
//! scale, as in the paper; settings `layer` and `scheme` pick the schemes), each
//! on a random target (itself included) and of a random type drawn by the
//! mix (the share of shared locks: 100 %, 50 %, 0 %), and times each lock +
//! unlock pair. Process counts 2..48 (rank `i` on core `i`; ranks beyond
//! the count sit the round out in the barrier between rounds), one window
//! per lock scheme; with `sweep=off`, only the run's core count, so that
//! a suite can boot one process count per run and no idle core polls a
//! barrier meanwhile. Result lines `BENCH lock-unlock procs=<p> mix=<m>
//! scheme=<s>`; the host pools all processes' samples, as the paper does.
//! rma's windows are uncached (`memory=ncm`) unless the setting says
//! otherwise: the paper keeps its lock data in uncached DRAM, so a lock
//! there needs no cache action; other types add theirs (an invalidation
//! on lock, a write-combine buffer flush on unlock).
//!
//! Empty locks move no data, so after each scheme's rounds a check round
//! runs with the same scheme on every core: each process adds one to a
//! counter on random targets in exclusive lock epochs (get and flush, add,
//! put), and every target compares its counter with the increments all
//! processes aimed at it (summed with an allreduce). Lost updates fail the
//! run.
//!
//! The message-based baseline ([`rma::msg::MsgRma`]) runs first, with the
//! same pairs, in both lock modes: `scheme=msg-default` (CH3's deferred
//! lock: an empty lock/unlock pair sends nothing and waits for nothing,
//! exactly what CH3 does, so its samples are the layer's bookkeeping and
//! not a lock) and `scheme=msg-immediate` (lock request, grant and unlock
//! message: a real round trip to the target). A target serves requests
//! only inside calls into the layer, so a process that is done with its
//! pairs, and one that sits the round out, waits in a fence, which serves
//! every request as it arrives, until all are done (on rma's schemes, in a
//! barrier). The rounds and the check are the same code for both layers,
//! written once over [`rma::OneSided`].

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::chip::MemoryType;
use rma::comm::ReduceOp;
use rma::msg::LockMode;
use rma::{Assert, LockScheme, LockType, OneSided, Rma, RmaError, WindowOptions};

use super::{Layers, Rng, Scale, counts_up_to, emit, msg_layer, timed};
use crate::support::communicator;
use crate::support::osc::fail;
use kernel::Platform;
use kernel::chip::settings::{Choice, choice, name_of};

/// The schemes measured, with their names in the keys.
pub const SCHEMES: [(LockScheme, &str); 3] = [
    (LockScheme::Gbh, "gbh"),
    (LockScheme::GbhBackoff, "gbh-backoff"),
    (LockScheme::McsWp, "mcs-wp"),
];

/// The message-based baseline's lock modes, with their names in the keys.
pub const MSG_SCHEMES: [(LockMode, &str); 2] = [
    (LockMode::Default, "msg-default"),
    (LockMode::Immediate, "msg-immediate"),
];

/// Pairs per process at full scale: the paper's 1000.
const FULL_PAIRS: u32 = 1000;

/// Pairs per process at quick scale.
const QUICK_PAIRS: u32 = 100;

/// Shares of shared locks, in percent.
const MIXES: [u32; 3] = [100, 50, 0];

/// Increments per process in the check round.
const CHECK_INCREMENTS: u32 = 20;

/// The process counts of a run on `cores` cores.
fn process_counts(scale: Scale, cores: u32) -> Vec<u32> {
    let full = [2, 4, 6, 8, 12, 16, 24, 32, 40, 48];
    counts_up_to(scale, &[2, 8, 48], &full, cores, true)
}

kernel::chip::settings! {
    /// bench-lock's settings.
    pub struct Settings {
        /// full: the report's sizes and iterations; quick: a few of each (cargo xtask bench --quick)
        scale: Scale = choice::<Scale>("full"),
        /// which schemes run: rma's (GBH, GBH with back-off, MCS-WP), the message-based baseline's two lock modes, or both
        layer: Layers = choice::<Layers>("all"),
        /// one scheme of the chosen layers, or all of them
        scheme: Scheme = choice::<Scheme>("all"),
        /// on: every process count up to the core count; off: the core count only
        sweep: bool = choice::<bool>("on"),
        /// the memory type of rma's windows: ncm (uncached, as the reference keeps lock data and window data) or another of dcm, ncm-wcb, mpbt-wb, mpbt-wt
        memory: MemoryType = choice::<MemoryType>("ncm"),
    }
}

/// One lock scheme of either layer, or every one: setting `scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Every scheme of the chosen layers.
    All,
    /// rma's GBH.
    Gbh,
    /// rma's GBH with back-off.
    GbhBackoff,
    /// rma's MCS-WP.
    McsWp,
    /// The message-based baseline's deferred locks.
    MsgDefault,
    /// The message-based baseline's immediate locks.
    MsgImmediate,
}

impl Choice for Scheme {
    const ALL: &'static [Self] = &[
        Self::All,
        Self::Gbh,
        Self::GbhBackoff,
        Self::McsWp,
        Self::MsgDefault,
        Self::MsgImmediate,
    ];
    const NAMES: &'static [&'static str] = &[
        "all",
        "gbh",
        "gbh-backoff",
        "mcs-wp",
        "msg-default",
        "msg-immediate",
    ];
}

impl Scheme {
    /// Whether the scheme named `name` runs.
    fn admits(self, name: &str) -> bool {
        self == Self::All || name_of(self) == name
    }
}

pub fn run(platform: &Platform, settings: Settings) -> Result<(), String> {
    let mut comm = communicator(platform)?;
    let (n, me) = (comm.size(), comm.rank());
    let counts = if settings.sweep {
        process_counts(settings.scale, n)
    } else {
        vec![n]
    };
    let wanted = |layer: bool, name: &str| layer && settings.scheme.admits(name);
    let msg_schemes: Vec<_> = (MSG_SCHEMES.iter())
        .filter(|(_, name)| wanted(settings.layer.msg(), name))
        .collect();
    let rma_schemes: Vec<_> = (SCHEMES.iter())
        .filter(|(_, name)| wanted(settings.layer.rma(), name))
        .collect();
    if msg_schemes.is_empty() && rma_schemes.is_empty() {
        return Err(format!(
            "scheme={} is not a scheme of layer={}",
            name_of(settings.scheme),
            name_of(settings.layer)
        ));
    }
    let pairs = settings.scale.pick(QUICK_PAIRS, FULL_PAIRS);
    for &&(mode, name) in &msg_schemes {
        let mut msg = msg_layer(comm, mode);
        let win = msg
            .create(4)
            .map_err(fail("creating a message-based window"))?;
        // A round ends in a fence, which serves the requests of the
        // processes still at their pairs.
        rounds(&mut msg, win, name, &counts, pairs, |msg, win| {
            msg.fence(win)
        })?;
        msg.free(win)
            .map_err(fail("freeing a message-based window"))?;
        comm = msg.into_comm();
        // A core still waiting in `free` would take the next layer's
        // messages as the old one's.
        comm.barrier();
    }
    let mut rma = Rma::new(comm).map_err(|e| format!("rma: {e}"))?;
    for &&(scheme, name) in &rma_schemes {
        let win = rma
            .allocate::<u8>(
                4,
                WindowOptions::new()
                    .lock_scheme(scheme)
                    .memory_type(settings.memory),
            )
            .map_err(fail("allocating a window"))?;
        rounds(&mut rma, win, name, &counts, pairs, |rma, _| {
            rma.comm().barrier();
            Ok(())
        })?;
        rma.free(win).map_err(fail("freeing a window"))?;
    }
    if me == 0 {
        let names: Vec<&str> = (msg_schemes.iter().map(|(_, name)| *name))
            .chain(rma_schemes.iter().map(|(_, name)| *name))
            .collect();
        kernel::println!(
            "bench-lock: {pairs} lock/unlock pairs per process, {} process counts, mixes 100/50/0 % shared, schemes {} (rma's windows {}); counters exact under every scheme",
            counts.len(),
            names.join(", "),
            name_of(settings.memory)
        );
    }
    Ok(())
}

/// Every process count and mix on one scheme's window: the processes
/// below the count time their pairs and print them, and every core ends
/// the round in `settle`, where the processes that are done wait for the
/// others; then the check round.
fn rounds<'h, L: OneSided<'h, Hal = Platform>>(
    layer: &mut L,
    win: L::Window,
    scheme: &str,
    counts: &[u32],
    pairs: u32,
    mut settle: impl FnMut(&mut L, L::Window) -> Result<(), RmaError>,
) -> Result<(), String> {
    let me = layer.rank();
    for &procs in counts {
        for mix in MIXES {
            if me < procs {
                let mut rng =
                    Rng::new(u64::from(me) << 32 | u64::from(procs) << 8 | u64::from(mix));
                let samples = pairs_timed(layer, win, procs, mix, pairs, &mut rng)?;
                let keys = format!("procs={procs} mix={mix} scheme={scheme}");
                emit("lock-unlock", &keys, None, &samples);
            }
            settle(layer, win).map_err(fail("ending a round"))?;
        }
    }
    check_counter(layer, win, scheme)
}

/// `pairs` empty lock/unlock pairs on random targets below `procs`, shared
/// with probability `mix` %: the time of each pair.
fn pairs_timed<'h, L: OneSided<'h, Hal = Platform>>(
    layer: &mut L,
    win: L::Window,
    procs: u32,
    mix: u32,
    pairs: u32,
    rng: &mut Rng,
) -> Result<Vec<u64>, String> {
    let platform = layer.hal();
    let mut samples = Vec::with_capacity(pairs as usize);
    for _ in 0..pairs {
        let target = rng.below(procs);
        let kind = if rng.percent(mix) {
            LockType::Shared
        } else {
            LockType::Exclusive
        };
        let (result, cycles) = timed(platform, || {
            layer.lock(win, kind, target, Assert::NONE)?;
            layer.unlock(win, target)
        });
        result.map_err(fail("lock/unlock"))?;
        samples.push(cycles);
    }
    Ok(samples)
}

/// Every core adds one to random targets' counters under exclusive locks;
/// each target's counter must equal the increments aimed at it.
fn check_counter<'h, L: OneSided<'h>>(
    layer: &mut L,
    win: L::Window,
    scheme: &str,
) -> Result<(), String> {
    let (n, me) = (layer.size(), layer.rank());
    layer
        .local_write(win, 0, &0u32.to_le_bytes())
        .map_err(fail("local write"))?;
    layer.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut aimed = vec![0u32; n as usize];
    let mut rng = Rng::new(0xC0FFEE ^ u64::from(me));
    for _ in 0..CHECK_INCREMENTS {
        let target = rng.below(n);
        increment(layer, win, target).map_err(|e| format!("{scheme} increment: {e}"))?;
        aimed[target as usize] += 1;
    }
    // Serves the others' increments until every process is done (the
    // message-based target applies them only inside its calls). Once every
    // core has left it (the barrier, which does not use the channel), no
    // core takes channel messages as the message-based layer's.
    layer.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    layer.comm().barrier();
    layer
        .comm()
        .allreduce(&mut aimed, ReduceOp::Sum)
        .map_err(fail("allreduce"))?;
    // Every increment is done; read this core's counter under its own lock.
    let mut value = [0u8; 4];
    layer
        .lock(win, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    layer
        .local_read(win, 0, &mut value)
        .map_err(fail("local read"))?;
    layer.unlock(win, me).map_err(fail("unlock"))?;
    let value = u32::from_le_bytes(value);
    if value != aimed[me as usize] {
        return Err(format!(
            "{scheme}: core {me}'s counter is {value}, but {} increments were aimed at it",
            aimed[me as usize]
        ));
    }
    layer.comm().barrier();
    Ok(())
}

/// Adds one to `target`'s counter in one exclusive lock epoch: get and
/// flush, then put.
fn increment<'h, L: OneSided<'h>>(
    layer: &mut L,
    win: L::Window,
    target: u32,
) -> Result<(), String> {
    layer
        .lock(win, LockType::Exclusive, target, Assert::NONE)
        .map_err(fail("lock"))?;
    let mut value = [0u8; 4];
    layer
        .get_flushed(win, target, 0, &mut value)
        .map_err(fail("get and flush"))?;
    let value = u32::from_le_bytes(value);
    layer
        .put(win, target, 0, &(value + 1).to_le_bytes())
        .map_err(fail("put"))?;
    layer.unlock(win, target).map_err(fail("unlock"))
}
