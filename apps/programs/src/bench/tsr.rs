// SPDX-License-Identifier: MIT OR Apache-2.0
//! One test-and-set register against the number of cores spinning on it:
//! cores 0..=n take core 0's TSR in turn, [`ROUNDS`] times each (fewer
//! with `scale=quick`), so that while one holds it the n others spin. The
//! holder's critical section adds one to a counter in the legacy shared
//! memory of controller 0 (uncached, behind router (0,0), the router of
//! the TSR's tile) and lasts [`CRITICAL`] cycles in all; then it releases.
//! Each acquire (from the first attempt until the register is taken) and
//! each release (the store that frees it) is timed. Result lines
//! `BENCH tsr-contention spinners=<n> op=acquire|release`, pooled over the
//! cores; the cores beyond n sit the round out in a barrier.
//!
//! Check: the counter must hold every increment of every round: a lock
//! that let two cores in at once would lose some.
//!
//! Under modelled time the waits of an access for busy resources are
//! charged once every core has passed them (`emu`'s timing): each timed
//! operation is followed by a pause of [`SETTLE`] cycles, long enough for
//! the calendar buckets of its packets to end, and an ordered empty read
//! ([`Platform::read_ordered`]) that charges them, so that each sample holds its
//! own waits; the pause is taken off the sample.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Scale, Scaled, counts_up_to, emit, timed};
use crate::support::communicator;
use kernel::Platform;

/// Acquire/release rounds per core and spinner count at full scale.
const ROUNDS: u32 = 20;
/// At quick scale.
const QUICK_ROUNDS: u32 = 3;

/// Cycles the holder keeps the register, counter update included: the
/// update's two uncached DRAM accesses (some 80 cycles each uncontended)
/// and a few more register accesses' worth (a choice of the benchmark,
/// short so that the register's own costs show, not of the chip).
const CRITICAL: u64 = 400;

/// Cycles after a timed operation before its waits are charged: a
/// calendar bucket of a register block and of a link is 32 cycles, of a
/// memory controller 128 (`emu::model::latency`).
const SETTLE: u64 = 128;

/// Offset of the counter in the LSM page of controller 0 (past the words
/// `tsr-counter` uses: programs run alone, but the offset says whose it is).
const COUNTER: u32 = 64;

/// The spinner counts of a run on `cores` cores (spinners = cores - 1 at
/// most).
fn spinner_counts(scale: Scale, cores: u32) -> Vec<u32> {
    let full = [1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 47];
    counts_up_to(scale, &[1, 8, 16, 24, 32, 47], &full, cores - 1, true)
}

/// Lets the waits of what this core just did be charged (the module's
/// docs): under modelled time, a pause and an ordered empty read; on
/// silicon the pause alone.
fn settle(platform: &Platform) {
    platform.pause(SETTLE);
    platform.read_ordered(|| ());
}

pub fn run(platform: &Platform, settings: Scaled) -> Result<(), String> {
    let mut comm = communicator(platform)?;
    let (n, me) = (comm.size(), comm.rank());
    if n < 2 {
        return Err(format!("bench-tsr needs at least 2 cores, not {n}"));
    }
    let rounds = settings.scale.pick(QUICK_ROUNDS, ROUNDS);
    let owner = platform.participant(0);
    let counter = platform.lsm(0);
    let counts = spinner_counts(settings.scale, n);
    for &spinners in &counts {
        if me == 0 {
            counter.write_u32(COUNTER, 0);
        }
        comm.barrier();
        if me <= spinners {
            let mut acquire = Vec::with_capacity(rounds as usize);
            let mut release = Vec::with_capacity(rounds as usize);
            for _ in 0..rounds {
                let ((), cycles) = timed(platform, || {
                    platform.tsr_acquire(owner);
                    settle(platform);
                });
                acquire.push(cycles - SETTLE);
                let start = platform.now();
                let value = counter.read_u32(COUNTER);
                counter.write_u32(COUNTER, value + 1);
                let spent = platform.now() - start;
                platform.pause(CRITICAL.saturating_sub(spent));
                platform.read_ordered(|| ());
                let ((), cycles) = timed(platform, || {
                    platform.tsr_release(owner);
                    settle(platform);
                });
                release.push(cycles - SETTLE);
            }
            let keys = format!("spinners={spinners}");
            emit(
                "tsr-contention",
                &format!("{keys} op=acquire"),
                None,
                &acquire,
            );
            emit(
                "tsr-contention",
                &format!("{keys} op=release"),
                None,
                &release,
            );
        }
        comm.barrier();
        if me == 0 {
            let total = counter.read_u32(COUNTER);
            let expected = (spinners + 1) * rounds;
            if total != expected {
                return Err(format!(
                    "{spinners} spinners: the counter holds {total}, but {expected} increments \
                     were made under the TSR"
                ));
            }
        }
    }
    if me == 0 {
        kernel::println!(
            "bench-tsr: {rounds} rounds per core, spinner counts {counts:?}, a critical section of \
             {CRITICAL} cycles; counter exact at every count"
        );
    }
    Ok(())
}
