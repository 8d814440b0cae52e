// SPDX-License-Identifier: MIT OR Apache-2.0
//! rma's two-sided layer on every core: the MPB channel, both barriers and
//! the collectives, each with its results checked.
//!
//! In order: a neighbour exchange around the ring in sizes from 0 bytes to
//! many data buffers; a pairwise all-to-all; [`BARRIERS`] barriers
//! alternating the two algorithms, each checked against episode marks the
//! cores leave in their MPB; a broadcast from the first and from the last
//! rank; an allgather; allreduce of u32, u64 and f64 with sum, min and max.
//! A wrong byte or value is reported by the core that saw it and counted;
//! the counts are summed at the end and core 0 prints the summary.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::PROGRAM_LINES;
use rma::comm::{BarrierAlgorithm, Comm, ReduceOp};
use rma::hal::Clock;

use crate::support::communicator;
use kernel::Platform;

/// Barriers in the barrier check, alternating algorithms.
const BARRIERS: u32 = 200;
/// Message sizes of the neighbour exchange: around a line, around the
/// 6 KiB data buffer, a whole MPB half, and many chunks.
const SIZES: [usize; 8] = [0, 1, 31, 32, 33, 6 * 1024 + 1, 8 * 1024, 100 * 1024];
/// Message sizes of the all-to-all: one chunk, and two.
const ALL_TO_ALL_SIZES: [usize; 2] = [100, 7000];
/// Where each core marks the barrier episode it entered: the second of
/// the MPB lines rma leaves to programs, one word for odd episodes and one
/// for even ones ([`episode_mark`]).
const EPISODE_MARK: u32 = PROGRAM_LINES + 32;

/// The word of [`EPISODE_MARK`]'s line that marks `episode`. A core marks
/// the same word again only two episodes later, after the barrier between
/// that every core must enter after reading it: the reads after a barrier
/// never race with a mark.
fn episode_mark(episode: u32) -> u32 {
    EPISODE_MARK + 4 * (episode % 2)
}

/// Bytes that differ with sender, receiver, size and position.
fn payload(from: u32, to: u32, len: usize) -> Vec<u8> {
    let seed = from.wrapping_mul(0x9E37_79B9) ^ to.wrapping_mul(0x85EB_CA6B) ^ len as u32;
    (0..len as u32)
        .map(|i| ((i ^ seed).wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect()
}

/// Checks a core makes, and what failed.
struct Checks {
    made: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.made += 1;
        if !ok {
            self.failed += 1;
            kernel::println!("check failed: {}", what());
        }
    }
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut comm = communicator(platform)?;
    let (n, me) = (comm.size(), comm.rank());
    let mut checks = Checks { made: 0, failed: 0 };
    let start = platform.cycles();
    let e = |e: rma::RmaError| e.to_string();

    // Neighbour exchange: send right, receive from the left, at once.
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    for len in SIZES {
        let mut buf = vec![0; len];
        let got = comm
            .sendrecv(right, &payload(me, right, len), left, &mut buf)
            .map_err(e)?;
        checks.check(got == len && buf == payload(left, me, len), || {
            format!("neighbour exchange of {len} bytes from {left}")
        });
    }

    // Pairwise all-to-all: in step s, send to me + s and receive from me - s.
    for len in ALL_TO_ALL_SIZES {
        for step in 1..n {
            let (to, from) = ((me + step) % n, (me + n - step) % n);
            let mut buf = vec![0; len];
            let got = comm
                .sendrecv(to, &payload(me, to, len), from, &mut buf)
                .map_err(e)?;
            checks.check(got == len && buf == payload(from, me, len), || {
                format!("all-to-all: {len} bytes from {from}")
            });
        }
    }

    // Barriers: nobody leaves episode k before everyone has entered it.
    for episode in 1..=BARRIERS {
        platform.invalidate_mpbt();
        platform.own_mpb().write_u32(episode_mark(episode), episode);
        platform.flush_wcb();
        let algorithm = if episode % 2 == 0 {
            BarrierAlgorithm::Central
        } else {
            BarrierAlgorithm::Dissemination
        };
        comm.barrier_with(algorithm);
        platform.invalidate_mpbt();
        for rank in 0..n {
            let mark = platform
                .mpb(platform.participant(rank))
                .read_u32(episode_mark(episode));
            checks.check(mark == episode, || {
                format!("left barrier {episode} ({algorithm:?}) while rank {rank} marked {mark}")
            });
        }
    }

    // Broadcasts from the first and the last rank.
    for root in [0, n - 1] {
        let len = 10 * 1024;
        let mut buf = if me == root {
            payload(root, n, len)
        } else {
            vec![0; len]
        };
        comm.bcast(root, &mut buf).map_err(e)?;
        checks.check(buf == payload(root, n, len), || {
            format!("bcast of {len} bytes from {root}")
        });
    }

    // Allgather of a 64-byte block from each rank.
    let mut all = vec![0; 64 * n as usize];
    comm.allgather(&payload(me, 0, 64), &mut all).map_err(e)?;
    for rank in 0..n {
        checks.check(
            all[64 * rank as usize..][..64] == payload(rank, 0, 64),
            || format!("allgather block of rank {rank}"),
        );
    }

    allreduce_checks(&mut comm, &mut checks).map_err(e)?;

    // Every core's failures, summed: each core knows whether all passed.
    let mut totals = [checks.made, checks.failed];
    comm.allreduce(&mut totals, ReduceOp::Sum).map_err(e)?;
    let [made, failed] = totals;
    let cycles = platform.cycles() - start;
    if me == 0 {
        let stats = comm.stats();
        kernel::println!(
            "comm summary: {n} cores, {made} checks, {failed} failed: neighbour exchange, all-to-all, {BARRIERS} barriers, bcast, allgather, allreduce"
        );
        kernel::println!(
            "comm core 0: {} messages, {} bytes, {} chunks sent; {} barriers; {} Mcycles, {} Mcycles waiting ({})",
            stats.messages_sent,
            stats.bytes_sent,
            stats.chunks_sent,
            stats.barriers,
            cycles / 1_000_000,
            stats.wait_cycles / 1_000_000,
            if platform.clock_is_modelled() {
                "modelled cycles"
            } else {
                "time-stamp counter, host time"
            }
        );
    }
    if failed > 0 {
        return Err(format!("{failed} of {made} checks failed"));
    }
    Ok(())
}

/// Allreduce of every element type and operation, checked against the
/// closed forms.
fn allreduce_checks(comm: &mut Comm<'_, Platform>, checks: &mut Checks) -> Result<(), rma::RmaError> {
    let (n, r) = (comm.size(), comm.rank());

    let mut v = [r + 1, 1000 - r];
    comm.allreduce(&mut v, ReduceOp::Sum)?;
    let want = [n * (n + 1) / 2, 1000 * n - n * (n - 1) / 2];
    checks.check(v == want, || format!("u32 sum {v:?}, expected {want:?}"));

    let mut v = [u64::from(r) << 40, u64::MAX - u64::from(r)];
    comm.allreduce(&mut v, ReduceOp::Max)?;
    let want = [u64::from(n - 1) << 40, u64::MAX];
    checks.check(v == want, || format!("u64 max {v:?}, expected {want:?}"));

    let mut v = [u64::from(r) + 7];
    comm.allreduce(&mut v, ReduceOp::Min)?;
    checks.check(v == [7], || format!("u64 min {v:?}, expected [7]"));

    // Halves add up exactly, so the sum is known to the last bit.
    let mut v = [f64::from(r) + 0.5];
    comm.allreduce(&mut v, ReduceOp::Sum)?;
    let want = f64::from(n * (n - 1) / 2) + 0.5 * f64::from(n);
    checks.check(v == [want], || format!("f64 sum {v:?}, expected {want}"));

    let mut v = [f64::from(r) * -1.5, f64::from(r) * 1.5];
    comm.allreduce(&mut v, ReduceOp::Min)?;
    let want = [f64::from(n - 1) * -1.5, 0.0];
    checks.check(v == want, || format!("f64 min {v:?}, expected {want:?}"));

    let mut v = [f64::from(r) * -1.5];
    comm.allreduce(&mut v, ReduceOp::Max)?;
    checks.check(v == [0.0], || format!("f64 max {v:?}, expected [0.0]"));
    Ok(())
}
