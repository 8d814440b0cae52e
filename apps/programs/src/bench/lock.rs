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
//!
//! Empty locks move no data, so after each scheme's rounds a check round
//! runs with the same scheme on every core: each process adds one to a
//! counter on random targets under exclusive locks (get, add, put), and
//! every target compares its counter with the increments all processes
//! aimed at it (summed with an allreduce). Lost updates fail the run.
//!
//! The message-based baseline ([`rma::msg::MsgRma`]) runs first, with the
//! same pairs, in both lock modes: `scheme=msg-default` (CH3's deferred
//! lock: an empty lock/unlock pair sends nothing and waits for nothing,
//! exactly what CH3 does, so its samples are the layer's bookkeeping and
//! not a lock) and `scheme=msg-immediate` (lock request, grant and unlock
//! message: a real round trip to the target). A target serves requests
//! only inside calls into the layer, so a process that is done with its
//! pairs, and one that sits the round out, waits in a fence, which serves
//! every request as it arrives, until all are done. Its check round reads
//! the counter with a get and a flush, then puts it plus one, all in one
//! exclusive lock epoch, so a lock that does not exclude loses updates.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::ReduceOp;
use rma::msg::{LockMode, MsgRma, MsgWindow};
use rma::{Assert, LockScheme, LockType, Rma, Window, WindowOptions};

use super::{Layers, Rng, Scale, counts_up_to, emit, msg_layer, timed};
use crate::support::communicator;
use crate::support::osc::fail;
use kernel::Scc;
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

pub fn run(scc: &Scc, settings: Settings) -> Result<(), String> {
    let mut comm = communicator(scc)?;
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
        for &procs in &counts {
            for mix in MIXES {
                if me < procs {
                    let mut rng =
                        Rng::new(u64::from(me) << 32 | u64::from(procs) << 8 | u64::from(mix));
                    let samples = msg_pairs_timed(scc, &mut msg, win, procs, mix, pairs, &mut rng)?;
                    let keys = format!("procs={procs} mix={mix} scheme={name}");
                    emit("lock-unlock", &keys, None, &samples);
                }
                // Serves the requests of the processes still at their pairs.
                msg.fence(win).map_err(fail("fence"))?;
            }
        }
        msg_check_counter(&mut msg, win, name)?;
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
            .allocate::<u32>(1, WindowOptions::new().lock_scheme(scheme))
            .map_err(fail("allocating a window"))?;
        for &procs in &counts {
            for mix in MIXES {
                if me < procs {
                    let mut rng =
                        Rng::new(u64::from(me) << 32 | u64::from(procs) << 8 | u64::from(mix));
                    let samples = pairs_timed(&mut rma, win, procs, mix, pairs, &mut rng)?;
                    let keys = format!("procs={procs} mix={mix} scheme={name}");
                    emit("lock-unlock", &keys, None, &samples);
                }
                rma.comm().barrier();
            }
        }
        check_counter(&mut rma, win, name)?;
        rma.free(win).map_err(fail("freeing a window"))?;
    }
    if me == 0 {
        let names: Vec<&str> = (msg_schemes.iter().map(|(_, name)| *name))
            .chain(rma_schemes.iter().map(|(_, name)| *name))
            .collect();
        kernel::println!(
            "bench-lock: {pairs} lock/unlock pairs per process, {} process counts, mixes 100/50/0 % shared, schemes {}; counters exact under every scheme",
            counts.len(),
            names.join(", ")
        );
    }
    Ok(())
}

/// `pairs` empty lock/unlock pairs on random targets below `procs`, shared
/// with probability `mix` %: the time of each pair.
fn pairs_timed(
    rma: &mut Rma<'_, Scc>,
    win: Window<u32>,
    procs: u32,
    mix: u32,
    pairs: u32,
    rng: &mut Rng,
) -> Result<Vec<u64>, String> {
    let scc = rma.hal();
    let mut samples = Vec::with_capacity(pairs as usize);
    for _ in 0..pairs {
        let target = rng.below(procs);
        let kind = if rng.percent(mix) {
            LockType::Shared
        } else {
            LockType::Exclusive
        };
        let (result, cycles) = timed(scc, || {
            rma.lock(win, kind, target, Assert::NONE)?;
            rma.unlock(win, target)
        });
        result.map_err(fail("lock/unlock"))?;
        samples.push(cycles);
    }
    Ok(samples)
}

/// Every core adds one to random targets' counters under exclusive locks;
/// each target's counter must equal the increments aimed at it.
fn check_counter(rma: &mut Rma<'_, Scc>, win: Window<u32>, scheme: &str) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    rma.local_write(win, 0, &[0]).map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut aimed = vec![0u32; n as usize];
    let mut rng = Rng::new(0xC0FFEE ^ u64::from(me));
    for _ in 0..CHECK_INCREMENTS {
        let target = rng.below(n);
        rma.lock(win, LockType::Exclusive, target, Assert::NONE)
            .map_err(fail("lock"))?;
        let mut value = [0u32];
        rma.get(win, target, 0, &mut value).map_err(fail("get"))?;
        rma.put(win, target, 0, &[value[0] + 1])
            .map_err(fail("put"))?;
        rma.unlock(win, target).map_err(fail("unlock"))?;
        aimed[target as usize] += 1;
    }
    rma.comm()
        .allreduce(&mut aimed, ReduceOp::Sum)
        .map_err(fail("allreduce"))?;
    // Every increment is done; read this core's counter under its own lock.
    let mut value = [0u32];
    rma.lock(win, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_read(win, 0, &mut value)
        .map_err(fail("local read"))?;
    rma.unlock(win, me).map_err(fail("unlock"))?;
    if value[0] != aimed[me as usize] {
        return Err(format!(
            "{scheme}: core {me}'s counter is {}, but {} increments were aimed at it",
            value[0], aimed[me as usize]
        ));
    }
    rma.comm().barrier();
    Ok(())
}

/// [`pairs_timed`] on the message-based baseline.
fn msg_pairs_timed(
    scc: &Scc,
    msg: &mut MsgRma<'_, Scc>,
    win: MsgWindow,
    procs: u32,
    mix: u32,
    pairs: u32,
    rng: &mut Rng,
) -> Result<Vec<u64>, String> {
    let mut samples = Vec::with_capacity(pairs as usize);
    for _ in 0..pairs {
        let target = rng.below(procs);
        let kind = if rng.percent(mix) {
            LockType::Shared
        } else {
            LockType::Exclusive
        };
        let (result, cycles) = timed(scc, || {
            msg.lock(win, kind, target)?;
            msg.unlock(win, target)
        });
        result.map_err(fail("message-based lock/unlock"))?;
        samples.push(cycles);
    }
    Ok(samples)
}

/// [`check_counter`] on the message-based baseline: the read-modify-write
/// is get, flush, put in one exclusive lock epoch.
fn msg_check_counter(
    msg: &mut MsgRma<'_, Scc>,
    win: MsgWindow,
    scheme: &str,
) -> Result<(), String> {
    let (n, me) = (msg.size(), msg.rank());
    // The window is fresh (zeroed) and the pairs moved no data.
    let mut aimed = vec![0u32; n as usize];
    let mut rng = Rng::new(0xC0FFEE ^ u64::from(me));
    for _ in 0..CHECK_INCREMENTS {
        let target = rng.below(n);
        increment(msg, win, target).map_err(|e| format!("{scheme} increment: {e}"))?;
        aimed[target as usize] += 1;
    }
    // Serves the others' increments until every process is done. Once
    // every core has left it (the barrier, which does not use the
    // channel), no core takes channel messages as the layer's.
    msg.fence(win).map_err(fail("fence"))?;
    msg.comm().barrier();
    msg.comm()
        .allreduce(&mut aimed, ReduceOp::Sum)
        .map_err(fail("allreduce"))?;
    let value = counter(msg.local(win).map_err(fail("local window"))?)?;
    if value != aimed[me as usize] {
        return Err(format!(
            "{scheme}: core {me}'s counter is {value}, but {} increments were aimed at it",
            aimed[me as usize]
        ));
    }
    Ok(())
}

/// Adds one to `target`'s counter under its exclusive lock.
fn increment(msg: &mut MsgRma<'_, Scc>, win: MsgWindow, target: u32) -> Result<(), String> {
    msg.lock(win, LockType::Exclusive, target)
        .map_err(fail("lock"))?;
    let get = msg.get(win, target, 0, 4).map_err(fail("get"))?;
    msg.flush(win, target).map_err(fail("flush"))?;
    let value = counter(&msg.take(get).map_err(fail("take"))?)?;
    msg.put(win, target, 0, &(value + 1).to_le_bytes())
        .map_err(fail("put"))?;
    msg.unlock(win, target).map_err(fail("unlock"))
}

/// The counter in the first 4 bytes of `bytes`.
fn counter(bytes: &[u8]) -> Result<u32, String> {
    match bytes {
        [a, b, c, d, ..] => Ok(u32::from_le_bytes([*a, *b, *c, *d])),
        _ => Err(format!("a counter of {} bytes, not 4", bytes.len())),
    }
}
