// SPDX-License-Identifier: MIT OR Apache-2.0
//! Receiver-side overlap (the InfiniBand thesis's method): rank 0 computes
//! a fixed piece of work, timed, while `k` origins put into its window
//! under locks as fast as they can; `k` from 0 (no traffic: the reference)
//! to 47. With direct one-sided access the target takes no part in the
//! transfers, so its computation should not slow down beyond what the
//! shared memory controller costs it. Result lines `BENCH overlap
//! origins=<k> variant=rma`: the target's compute times; the host divides
//! by the `k = 0` median (normalised execution time).
//!
//! Origins stop when the target raises a flag in its MPB. Checks: the
//! work's result is the same in every repetition, and after each round
//! every origin's slot in the target's window holds the pattern of the
//! last put the origin reports (through the channel) having made.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::layout::PROGRAM_LINES;
use rma::{Assert, LockType, Rma, Window, WindowOptions};

use super::super::ProgramResult;
use super::super::osc::{fail, open};
use super::{counts_up_to, emit, fill, quick, verify};
use crate::platform::Scc;

/// Bytes each origin puts per operation, into its own slot.
const SLOT: usize = 4096;

/// The target's flag line in its MPB: the round that is over.
const DONE: u32 = PROGRAM_LINES;

/// The origin counts of a run on `cores` cores (all but core 0 at most).
fn origin_counts(cores: u32) -> Vec<u32> {
    let full = [0, 1, 2, 4, 8, 16, 24, 32, 47];
    counts_up_to(&[0, 1, 8, 47], &full, cores - 1, false)
}

pub fn run(scc: &Scc) -> ProgramResult {
    let mut rma = open(scc)?;
    let (n, me) = (rma.size(), rma.rank());
    let reps: u32 = if quick() { 5 } else { 21 };
    let win = rma
        .allocate::<u8>(SLOT as u32 * n, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    let counts = origin_counts(n);
    let mut reference = None;
    for (round, &k) in counts.iter().enumerate() {
        let round = round as u32 + 1;
        if me == 0 {
            let samples = compute(scc, reps, &mut reference)?;
            // Tell the origins to stop, through the MPB.
            scc.invalidate_mpbt();
            scc.own_mpb().write_u32(DONE, round);
            scc.flush_wcb();
            emit(
                "overlap",
                &format!("origins={k} variant=rma"),
                None,
                &samples,
            );
            check_slots(&mut rma, win, k)?;
        } else if me <= k {
            let puts = origin(&mut rma, win, round)?;
            rma.comm()
                .send(0, &puts.to_le_bytes())
                .map_err(fail("sending the put count"))?;
        }
        rma.comm().barrier();
    }
    rma.free(win).map_err(fail("freeing the window"))?;
    if me == 0 {
        crate::println!(
            "bench-overlap: {reps} timed computations per origin count {counts:?}, every slot checked"
        );
    }
    Ok(())
}

/// `reps` timed runs of the target's work; each must give the result the
/// first gave.
fn compute(scc: &Scc, reps: u32, reference: &mut Option<u32>) -> Result<Vec<u64>, String> {
    let mut data = vec![0u32; 4096];
    let mut samples = Vec::new();
    for _ in 0..reps {
        let start = scc.now();
        let result = work(&mut data);
        samples.push(scc.now() - start);
        match *reference {
            None => *reference = Some(result),
            Some(r) if r != result => {
                return Err(format!("the target's work gave {result:#x}, once {r:#x}"));
            }
            Some(_) => {}
        }
    }
    Ok(samples)
}

/// The target's computation: passes of arithmetic over private memory.
#[inline(never)]
fn work(data: &mut [u32]) -> u32 {
    for (i, d) in data.iter_mut().enumerate() {
        *d = i as u32;
    }
    let mut acc = 0u32;
    for pass in 0..16u32 {
        for d in data.iter_mut() {
            *d = d.wrapping_mul(1_664_525).wrapping_add(1_013_904_223 ^ pass);
            acc = acc.rotate_left(5) ^ *d;
        }
    }
    core::hint::black_box(acc)
}

/// An origin's side: lock, put a pattern into its slot, unlock, until the
/// target's flag says `round` is over. The number of puts made.
fn origin(rma: &mut Rma<'_, Scc>, win: Window<u8>, round: u32) -> Result<u32, String> {
    let me = rma.rank();
    let scc = rma.hal();
    let mut buf = vec![0u8; SLOT];
    let mut puts = 0u32;
    loop {
        scc.invalidate_mpbt();
        if scc.mpb(scc.participant(0)).read_u32(DONE) >= round {
            return Ok(puts);
        }
        puts += 1;
        fill(&mut buf, puts, me);
        rma.lock(win, LockType::Exclusive, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.put(win, 0, me * SLOT as u32, &buf)
            .map_err(fail("put"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
    }
}

/// The target checks each origin's slot against the last put it reports.
fn check_slots(rma: &mut Rma<'_, Scc>, win: Window<u8>, k: u32) -> Result<(), String> {
    for origin in 1..=k {
        let mut count = [0u8; 4];
        rma.comm()
            .recv(origin, &mut count)
            .map_err(fail("receiving a put count"))?;
        let puts = u32::from_le_bytes(count);
        if puts == 0 {
            continue;
        }
        let mut slot = vec![0u8; SLOT];
        rma.lock(win, LockType::Exclusive, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.local_read(win, origin * SLOT as u32, &mut slot)
            .map_err(fail("local read"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
        verify(
            &slot,
            puts,
            origin,
            &format!("origin {origin}'s slot after {puts} puts"),
        )?;
    }
    Ok(())
}
