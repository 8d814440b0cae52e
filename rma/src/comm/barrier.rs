// SPDX-License-Identifier: MIT OR Apache-2.0
//! Barriers: a central counter under a test-and-set register, and a
//! dissemination barrier on MPB flags, for the communicator of every core;
//! on any other communicator the same two algorithms with empty messages
//! of its context, which need no MPB line of their own.

use super::Comm;
use super::channel::Plane;
use super::layout::{CENTRAL_COUNT, CENTRAL_SENSE, DISSEMINATION, LINE};
use crate::hal::{Hal, MpbHalf};

/// How a barrier synchronises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarrierAlgorithm {
    /// Every core increments a count in rank 0's MPB while holding rank 0's
    /// TSR; the last to arrive resets it and writes the new sense (which
    /// flips every barrier) into every core's sense line, where the others
    /// poll locally. `n` serialised critical sections, one broadcast.
    Central,
    /// In round `k` (of `ceil(log2 n)`) each core writes the barrier's
    /// episode number into the round-`k` line of rank `me + 2^k` and waits
    /// for rank `me - 2^k` to do the same in its own half. No locks, no
    /// hot spot; `log2 n` rounds.
    Dissemination,
}

impl<H: Hal> Comm<'_, H> {
    /// Returns once every rank has called a barrier as often as this one.
    /// Uses [`BarrierAlgorithm::Dissemination`].
    pub fn barrier(&mut self) {
        self.barrier_with(BarrierAlgorithm::Dissemination);
    }

    /// A barrier with the given algorithm. All ranks must use the same
    /// algorithm for the same barrier; consecutive barriers may differ.
    /// On a communicator made from another, the algorithm's flags are
    /// empty messages: the central barrier's arrivals go to rank 0, which
    /// then releases every rank; the dissemination barrier's round `k`
    /// sends to rank `me + 2^k` and receives from `me - 2^k`.
    pub fn barrier_with(&mut self, algorithm: BarrierAlgorithm) {
        match (algorithm, self.is_world()) {
            (BarrierAlgorithm::Central, true) => self.central_barrier(),
            (BarrierAlgorithm::Dissemination, true) => self.dissemination_barrier(),
            (BarrierAlgorithm::Central, false) => self.central_message_barrier(),
            (BarrierAlgorithm::Dissemination, false) => self.dissemination_message_barrier(),
        }
        self.stats.barriers += 1;
    }

    fn central_message_barrier(&mut self) {
        let ranks = "a communicator's own ranks";
        if self.rank == 0 {
            for rank in 1..self.size {
                self.recv_in(Plane::Collective, rank, &mut []).expect(ranks);
            }
            for rank in 1..self.size {
                self.send_in(Plane::Collective, rank, &[]).expect(ranks);
            }
        } else {
            self.send_in(Plane::Collective, 0, &[]).expect(ranks);
            self.recv_in(Plane::Collective, 0, &mut []).expect(ranks);
        }
    }

    fn dissemination_message_barrier(&mut self) {
        let (n, me) = (self.size, self.rank);
        let mut distance = 1;
        while distance < n {
            let (to, from) = ((me + distance) % n, (me + n - distance) % n);
            self.sendrecv_in(Plane::Collective, to, &[], from, &mut [])
                .expect("a communicator's own ranks, empty messages");
            distance *= 2;
        }
    }

    fn central_barrier(&mut self) {
        let hal = self.hal;
        let root = self.cores[0];
        let count = MpbHalf::Of(root);
        self.sense = !self.sense;
        let sense = u32::from(self.sense);

        hal.tsr_acquire(root);
        hal.invalidate_mpbt();
        let arrived = hal.mpb_read_u32(count, CENTRAL_COUNT) + 1;
        let last = arrived == self.size;
        hal.invalidate_mpbt();
        hal.mpb_write_u32(count, CENTRAL_COUNT, if last { 0 } else { arrived });
        hal.flush_wcb();
        hal.tsr_release(root);

        if last {
            // The count is back at 0 before anyone is released, so a core
            // that races ahead into the next barrier counts from scratch.
            hal.invalidate_mpbt();
            for rank in 0..self.size {
                hal.mpb_write_u32(MpbHalf::Of(self.cores[rank as usize]), CENTRAL_SENSE, sense);
            }
            hal.flush_wcb();
        } else {
            self.wait(|_| {
                hal.invalidate_mpbt();
                (hal.mpb_read_u32(MpbHalf::Own, CENTRAL_SENSE) == sense).then_some(())
            });
        }
    }

    fn dissemination_barrier(&mut self) {
        let hal = self.hal;
        let (n, me) = (self.size, self.rank);
        self.episode = self.episode.wrapping_add(1);
        let episode = self.episode;
        let mut distance = 1;
        let mut round = 0;
        while distance < n {
            let flag = DISSEMINATION + round * LINE;
            let to = self.cores[((me + distance) % n) as usize];
            hal.invalidate_mpbt();
            hal.mpb_write_u32(MpbHalf::Of(to), flag, episode);
            hal.flush_wcb();
            // The partner writes this episode or, once it has passed this
            // barrier, the next one (it cannot pass the next without us):
            // anything not behind `episode` means it arrived.
            self.wait(|_| {
                hal.invalidate_mpbt();
                let seen = hal.mpb_read_u32(MpbHalf::Own, flag);
                (seen.wrapping_sub(episode) as i32 >= 0).then_some(())
            });
            distance *= 2;
            round += 1;
        }
    }
}
