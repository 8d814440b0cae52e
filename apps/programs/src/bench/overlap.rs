// SPDX-License-Identifier: MIT OR Apache-2.0
//! Receiver-side overlap (the InfiniBand thesis's method): rank 0 computes
//! a fixed piece of work, timed, while `k` origins put into its window
//! under exclusive locks as fast as they can; `k` from 0 (no traffic: the
//! reference) to 47. With direct one-sided access (`variant=rma`) the
//! target takes no part in the transfers, so its computation should not
//! slow down beyond what the shared memory controller costs it.
//!
//! The message-based baseline (`variant=msg`, [`rma::msg::MsgRma`] in
//! CH3's default lock mode: lock, put and unlock travel as one message
//! and the target answers it) runs first. Its target applies puts only
//! inside calls into the layer, so, as an MPI application must, rank 0
//! calls `progress` in its compute loop: after each of the work's
//! [`PASSES`] passes (every 4096 element updates), which adds the cost of
//! polling the channel (`origins=0 variant=msg` against `origins=0
//! variant=rma`), of applying the puts, and makes the origins wait for
//! the next poll.
//!
//! Result lines `BENCH overlap origins=<k> variant=<v> side=target`: the
//! target's compute times (normalised execution time: over the `k = 0`
//! median); `side=origin bytes=4096`: the time of each origin's lock, put
//! and unlock, pooled over the origins (their achieved throughput per
//! origin).
//!
//! Origins stop when the target raises a flag in its MPB. Checks: the
//! work's result is the same in every repetition and variant, and after
//! each round every origin's slot in the target's window holds the
//! pattern of the last put the origin reports (through the channel)
//! having made. The origins' loop and the target's check are the same
//! code for both variants, written once over [`rma::OneSided`]; the
//! message-based target's polling and the fence that ends its rounds are
//! its own.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::Comm;
use rma::comm::PROGRAM_LINES;
use rma::msg::LockMode;
use rma::{Assert, LockType, OneSided, Rma, RmaError, WindowOptions};

use super::{Layers, Scale, counts_up_to, emit, fill, msg_layer, timed, verify};
use crate::support::communicator;
use crate::support::osc::fail;
use kernel::Platform;
use kernel::chip::settings::choice;

/// Bytes each origin puts per operation, into its own slot.
const SLOT: usize = 4096;

/// The target's flag line in its MPB: the round that is over.
const DONE: u32 = PROGRAM_LINES;

/// Passes of the target's work over its data; the message-based target
/// polls after each.
const PASSES: u32 = 16;

/// The most origins the message-based variant runs with at full scale: its
/// target applies every put itself, so a round with more origins takes
/// longer than the suite's time limit allows.
const MSG_MAX_ORIGINS: u32 = 16;

/// The origin counts of a run on `cores` cores (all but core 0 at most).
fn origin_counts(scale: Scale, cores: u32) -> Vec<u32> {
    let full = [0, 1, 2, 4, 8, 16, 24, 32, 47];
    counts_up_to(scale, &[0, 1, 8, 47], &full, cores - 1, false)
}

kernel::chip::settings! {
    /// bench-overlap's settings.
    pub struct Settings {
        /// full: the report's sizes and iterations; quick: a few of each (cargo xtask bench --quick)
        scale: Scale = choice::<Scale>("full"),
        /// which variants run: direct access, the message-based baseline (at most 16 origins at full scale), or both
        variant: Layers = choice::<Layers>("all"),
    }
}

pub fn run(platform: &Platform, settings: Settings) -> Result<(), String> {
    let comm = communicator(platform)?;
    let (n, me) = (comm.size(), comm.rank());
    let reps: u32 = settings.scale.pick(5, 21);
    // The message-based target applies every put itself, which makes its
    // computation up to k times as long: fewer repetitions keep the full
    // run within the suite's time limit.
    let msg_reps = reps.min(5);
    let counts = origin_counts(settings.scale, n);
    let msg_counts: Vec<u32> = match settings.variant.msg() {
        false => Vec::new(),
        true => (counts.iter().copied())
            .filter(|&k| settings.scale == Scale::Quick || k <= MSG_MAX_ORIGINS)
            .collect(),
    };
    let rma_counts: Vec<u32> = match settings.variant.rma() {
        false => Vec::new(),
        true => counts.clone(),
    };
    let mut reference = None;
    // The flag's rounds count on over both variants.
    let mut round = 0;
    let mut msg = msg_layer(comm, LockMode::Default);
    // Only the target's window holds slots (it lives on the heap).
    let msg_win = msg
        .create(if me == 0 { SLOT as u32 * n } else { 0 })
        .map_err(fail("creating a message-based window"))?;
    for &k in &msg_counts {
        round += 1;
        let mut puts = None;
        if me == 0 {
            let samples = compute(platform, msg_reps, &mut reference, || msg.progress())?;
            raise_flag(platform, round);
            emit_target(k, "msg", &samples);
        } else if me <= k {
            let (made, samples) = origin(&mut msg, msg_win, round)?;
            emit_origin(k, "msg", &samples);
            puts = Some(made);
        } else {
            // Joins the fence only once the round is over: a fence that sees
            // no message for the whole round would be taken for a deadlock.
            platform.wait_for(|| round_over(platform, round).then_some(()));
        }
        // Serves the origins' last epochs. Once every core has left it (the
        // barrier, which does not use the channel), no core takes channel
        // messages as the layer's, and the channel carries the put counts.
        msg.fence(msg_win).map_err(fail("fence"))?;
        msg.comm().barrier();
        if let Some(made) = puts {
            msg.comm()
                .send(0, &made.to_le_bytes())
                .map_err(fail("sending the put count"))?;
        }
        if me == 0 {
            check_slots(&mut msg, msg_win, k)?;
        }
        msg.comm().barrier();
    }
    msg.free(msg_win)
        .map_err(fail("freeing a message-based window"))?;
    let mut rma = Rma::new(msg.into_comm()).map_err(|e| format!("rma: {e}"))?;
    let win = rma
        .allocate::<u8>(SLOT as u32 * n, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    for &k in &rma_counts {
        round += 1;
        if me == 0 {
            let samples = compute(platform, reps, &mut reference, || Ok(()))?;
            raise_flag(platform, round);
            emit_target(k, "rma", &samples);
            check_slots(&mut rma, win, k)?;
        } else if me <= k {
            let (puts, samples) = origin(&mut rma, win, round)?;
            emit_origin(k, "rma", &samples);
            rma.comm()
                .send(0, &puts.to_le_bytes())
                .map_err(fail("sending the put count"))?;
        }
        rma.comm().barrier();
    }
    rma.free(win).map_err(fail("freeing the window"))?;
    if me == 0 {
        kernel::println!(
            "bench-overlap: {msg_reps} message-based timed computations (polling after each of {PASSES} passes) per origin count {msg_counts:?}, {reps} direct ones per origin count {rma_counts:?}; every slot checked"
        );
    }
    Ok(())
}

/// Tells the origins that `round` is over, through the MPB.
fn raise_flag(platform: &Platform, round: u32) {
    platform.invalidate_mpbt();
    platform.own_mpb().write_u32(DONE, round);
    platform.flush_wcb();
}

/// Prints the target's compute times of a round.
fn emit_target(k: u32, variant: &str, samples: &[u64]) {
    let keys = format!("origins={k} variant={variant} side=target");
    emit("overlap", &keys, None, samples);
}

/// Prints an origin's lock + put + unlock times of a round.
fn emit_origin(k: u32, variant: &str, samples: &[u64]) {
    let keys = format!("origins={k} variant={variant} side=origin");
    emit("overlap", &keys, Some(SLOT as u64), samples);
}

/// `reps` timed runs of the target's work, calling `poll` after each
/// pass; each must give the result the first gave.
fn compute(
    platform: &Platform,
    reps: u32,
    reference: &mut Option<u32>,
    mut poll: impl FnMut() -> Result<(), RmaError>,
) -> Result<Vec<u64>, String> {
    let mut data = vec![0u32; 4096];
    let mut samples = Vec::new();
    for _ in 0..reps {
        let (result, cycles) = timed(platform, || work(&mut data, &mut poll));
        let result = result.map_err(fail("progress while computing"))?;
        samples.push(cycles);
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

/// The target's computation: [`PASSES`] passes of arithmetic over private
/// memory, with `poll` after each.
#[inline(never)]
fn work(
    data: &mut [u32],
    poll: &mut impl FnMut() -> Result<(), RmaError>,
) -> Result<u32, RmaError> {
    for (i, d) in data.iter_mut().enumerate() {
        *d = i as u32;
    }
    let mut acc = 0u32;
    for pass in 0..PASSES {
        for d in data.iter_mut() {
            *d = d.wrapping_mul(1_664_525).wrapping_add(1_013_904_223 ^ pass);
            acc = acc.rotate_left(5) ^ *d;
        }
        poll()?;
    }
    Ok(core::hint::black_box(acc))
}

/// An origin's side: lock, put a pattern into its slot, unlock, until the
/// target's flag says `round` is over. The number of puts made and the
/// time of each.
fn origin<'h, L: OneSided<'h, Hal = Platform>>(
    layer: &mut L,
    win: L::Window,
    round: u32,
) -> Result<(u32, Vec<u64>), String> {
    let me = layer.rank();
    let platform = layer.hal();
    let mut buf = vec![0u8; SLOT];
    let mut puts = 0u32;
    let mut samples = Vec::new();
    while !round_over(platform, round) {
        puts += 1;
        fill(&mut buf, puts, me);
        let (result, cycles) = timed(platform, || {
            layer.lock(win, LockType::Exclusive, 0, Assert::NONE)?;
            layer.put(win, 0, me * SLOT as u32, &buf)?;
            layer.unlock(win, 0)
        });
        result.map_err(fail("lock, put and unlock"))?;
        samples.push(cycles);
    }
    Ok((puts, samples))
}

/// Whether the target's flag says `round` is over: a read that races with
/// the target's store, so ordered ([`Platform::read_ordered`]).
fn round_over(platform: &Platform, round: u32) -> bool {
    platform.read_ordered(|| {
        platform.invalidate_mpbt();
        platform.mpb(platform.participant(0)).read_u32(DONE) >= round
    })
}

/// The number of puts `origin` reports having made.
fn put_count(comm: &mut Comm<'_, Platform>, origin: u32) -> Result<u32, String> {
    let mut count = [0u8; 4];
    comm.recv(origin, &mut count)
        .map_err(fail("receiving a put count"))?;
    Ok(u32::from_le_bytes(count))
}

/// Checks `origin`'s `slot` against the last of its `puts`.
fn check_slot(slot: &[u8], origin: u32, puts: u32) -> Result<(), String> {
    verify(
        slot,
        puts,
        origin,
        &format!("origin {origin}'s slot after {puts} puts"),
    )
}

/// The target checks each origin's slot against the last put it reports,
/// under a lock of its own window (which acquires what the origins'
/// unlocks released).
fn check_slots<'h, L: OneSided<'h, Hal = Platform>>(
    layer: &mut L,
    win: L::Window,
    k: u32,
) -> Result<(), String> {
    for origin in 1..=k {
        let puts = put_count(layer.comm(), origin)?;
        if puts == 0 {
            continue;
        }
        let mut slot = vec![0u8; SLOT];
        layer
            .lock(win, LockType::Exclusive, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        layer
            .local_read(win, origin * SLOT as u32, &mut slot)
            .map_err(fail("local read"))?;
        layer.unlock(win, 0).map_err(fail("unlock"))?;
        check_slot(&slot, origin, puts)?;
    }
    Ok(())
}
