// SPDX-License-Identifier: MIT OR Apache-2.0
//! The lock/unlock micro-benchmark of the passive-target paper (3.4):
//! every process takes and gives back empty locks (1000 per process), each
//! on a random target (itself included) and of a random type drawn by the
//! mix (the share of shared locks: 100 %, 50 %, 0 %), and times each lock +
//! unlock pair. Process counts 2..48 (rank `i` on core `i`; ranks beyond
//! the count sit the round out in the barrier between rounds), one window
//! per lock scheme. Result lines `BENCH lock-unlock procs=<p> mix=<m>
//! scheme=<s>`; the host pools all processes' samples, as the paper does.
//!
//! Empty locks move no data, so after each scheme's rounds a check round
//! runs with the same scheme on every core: each process adds one to a
//! counter on random targets under exclusive locks (get, add, put), and
//! every target compares its counter with the increments all processes
//! aimed at it (summed with an allreduce). Lost updates fail the run.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::ReduceOp;
use rma::{Assert, LockScheme, LockType, Rma, Window, WindowOptions};

use super::super::ProgramResult;
use super::super::osc::{fail, open};
use super::{Rng, counts_up_to, emit, quick, timed};
use crate::platform::Scc;

/// The schemes measured, with their names in the keys.
pub const SCHEMES: [(LockScheme, &str); 3] = [
    (LockScheme::Gbh, "gbh"),
    (LockScheme::GbhBackoff, "gbh-backoff"),
    (LockScheme::McsWp, "mcs-wp"),
];

/// Shares of shared locks, in percent.
const MIXES: [u32; 3] = [100, 50, 0];

/// Increments per process in the check round.
const CHECK_INCREMENTS: u32 = 20;

/// The process counts of a run on `cores` cores.
fn process_counts(cores: u32) -> Vec<u32> {
    let full = [2, 4, 6, 8, 12, 16, 24, 32, 40, 48];
    counts_up_to(&[2, 8, 48], &full, cores, true)
}

pub fn run(scc: &Scc) -> ProgramResult {
    let mut rma = open(scc)?;
    let (n, me) = (rma.size(), rma.rank());
    let pairs: u32 = if quick() { 100 } else { 1000 };
    let counts = process_counts(n);
    for (scheme, name) in SCHEMES {
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
        crate::println!(
            "bench-lock: {pairs} lock/unlock pairs per process, {} process counts, mixes 100/50/0 % shared, schemes {}; counters exact under every scheme",
            counts.len(),
            SCHEMES.map(|(_, name)| name).join(", ")
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
