// SPDX-License-Identifier: GPL-2.0-or-later
//! The P54C's write buffers: where a store that leaves the core waits
//! while the core goes on ([`chip::Timing::write_buffers`], with the
//! sources).
//!
//! - A store that leaves the core (to L2, or over the mesh to DRAM or an
//!   MPB, or a line the write-combine buffer writes out) takes a free
//!   buffer and costs the core nothing more; with every buffer taken, the
//!   core first waits until the oldest write completes.
//! - The buffered writes go out in the order they came, one at a time: a
//!   write starts when the one before it completes (or when it comes, if
//!   the bus is idle), and keeps the bus for its whole access, as the
//!   table gives it, beyond the instruction's own cycle.
//! - An access that must follow every buffered write (a load that leaves
//!   L1, a write-back, a register access, a locked exchange, a serialising
//!   instruction) first waits until the last of them completes: the
//!   buffers are empty after it ([`WriteBuffers::drain`]).
//!
//! Times are the core's modelled clock, in core cycles; the model holds
//! only when each buffered write completes.

use std::collections::VecDeque;

/// Where a write that entered the buffers stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buffered {
    /// Cycles the core waited for a free buffer.
    pub stall: u64,
    /// When the write goes out on the bus (it leaves the core).
    pub start: u64,
    /// When its access completes and its buffer is free again.
    pub done: u64,
}

/// One core's write buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteBuffers {
    /// When each buffered write completes, oldest first; never more than
    /// `depth`.
    pending: VecDeque<u64>,
    depth: usize,
}

impl WriteBuffers {
    /// `depth` empty buffers.
    ///
    /// # Panics
    ///
    /// If `depth` is 0: a store would have nowhere to go
    /// ([`chip::Timing::is_valid`] refuses such a table).
    pub fn new(depth: u32) -> Self {
        assert!(depth > 0, "a core needs at least one write buffer");
        let depth = depth as usize;
        Self {
            pending: VecDeque::with_capacity(depth),
            depth,
        }
    }

    /// Frees the buffers whose writes completed by `now`.
    fn retire(&mut self, now: u64) {
        while self.pending.front().is_some_and(|&done| done <= now) {
            self.pending.pop_front();
        }
    }

    /// A write enters the buffers at `now`; once it goes out at `start`,
    /// its access keeps the bus `cycles(start)` cycles (a cost that may
    /// depend on when it goes out, a DRAM refresh's).
    pub fn write(&mut self, now: u64, cycles: impl FnOnce(u64) -> u64) -> Buffered {
        self.retire(now);
        let mut at = now;
        if self.pending.len() == self.depth {
            at = self.pending[0].max(now);
            self.retire(at);
        }
        let start = self.pending.back().map_or(at, |&last| last.max(at));
        let done = start + cycles(start);
        self.pending.push_back(done);
        Buffered {
            stall: at - now,
            start,
            done,
        }
    }

    /// An access at `now` that must follow every buffered write: the
    /// cycles it waits until the last completes. The buffers are empty
    /// after.
    pub fn drain(&mut self, now: u64) -> u64 {
        let wait = self
            .pending
            .back()
            .map_or(0, |&last| last.saturating_sub(now));
        self.pending.clear();
        wait
    }

    /// Whether some write may still be under way (the buffers are freed
    /// only as the core looks at them).
    pub fn busy(&self) -> bool {
        !self.pending.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_store_alone_costs_the_core_nothing_and_goes_out_at_once() {
        let mut b = WriteBuffers::new(2);
        let w = b.write(100, |_| 75);
        assert_eq!(
            w,
            Buffered {
                stall: 0,
                start: 100,
                done: 175
            }
        );
        assert!(b.busy());
        // Long after, nothing is left to wait for.
        assert_eq!(b.drain(1000), 0);
        assert!(!b.busy());
    }

    #[test]
    fn back_to_back_stores_go_out_in_order_and_the_third_waits_for_the_first() {
        let mut b = WriteBuffers::new(2);
        let first = b.write(0, |_| 75);
        let second = b.write(1, |_| 75);
        assert_eq!((second.stall, second.start, second.done), (0, 75, 150));
        // Both buffers taken: the third waits until the first completes,
        // then goes out after the second.
        let third = b.write(2, |_| 75);
        assert_eq!(third.stall, first.done - 2);
        assert_eq!((third.start, third.done), (150, 225));
        // A fourth, right after the third: the second completes at 150.
        let fourth = b.write(75, |_| 75);
        assert_eq!((fourth.stall, fourth.start), (150 - 75, 225));
    }

    #[test]
    fn a_load_waits_until_the_last_buffered_write_completes() {
        let mut b = WriteBuffers::new(2);
        b.write(10, |_| 50);
        b.write(11, |_| 50);
        assert_eq!(b.drain(20), 110 - 20);
        assert_eq!(b.drain(20), 0, "empty after a drain");
        assert_eq!(b.drain(5), 0);
    }

    #[test]
    fn a_write_pays_what_its_start_costs() {
        let mut b = WriteBuffers::new(1);
        b.write(0, |_| 40);
        let w = b.write(5, |start| if start == 40 { 7 } else { 1000 });
        assert_eq!((w.stall, w.start, w.done), (35, 40, 47));
    }

    #[test]
    #[should_panic(expected = "at least one write buffer")]
    fn no_buffer_is_refused() {
        WriteBuffers::new(0);
    }

    proptest! {
        /// Against a plain reference: writes complete one after the other
        /// in the order they came, never more than `depth` are under way
        /// when one enters, and the core waits only for a full buffer.
        #[test]
        fn writes_drain_in_order_one_at_a_time(
            depth in 1u32..4,
            steps in proptest::collection::vec((0u64..100, 1u64..100), 1..40),
        ) {
            let mut b = WriteBuffers::new(depth);
            let mut now = 0;
            let mut done: Vec<u64> = Vec::new();
            let mut bus_free = 0;
            for (gap, cycles) in steps {
                now += gap;
                let w = b.write(now, |_| cycles);
                let at = now + w.stall;
                let under_way = done.iter().filter(|&&d| d > at).count();
                prop_assert!(under_way < depth as usize);
                if w.stall > 0 {
                    // It waited exactly until a buffer came free.
                    prop_assert_eq!(done.iter().filter(|&&d| d > at - 1).count(), depth as usize);
                }
                prop_assert_eq!(w.start, at.max(bus_free));
                prop_assert_eq!(w.done, w.start + cycles);
                bus_free = w.done;
                done.push(w.done);
                now = at;
            }
            prop_assert_eq!(b.drain(now), bus_free - now.min(bus_free));
        }
    }
}
