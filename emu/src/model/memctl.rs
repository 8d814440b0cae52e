// SPDX-License-Identifier: GPL-2.0-or-later
//! A memory controller that serves one request at a time.
//!
//! Each SCC memory controller takes one line request after another, so
//! requests from many cores queue (the thesis's centralized window database
//! saturated one controller, thesis 1.9). On its own, a controller is a
//! busy-until time: a request arriving at `arrival` starts at
//! `max(arrival, busy_until)` and keeps it busy for one service time
//! ([`book`], [`MemCtl`]).
//!
//! Under lax synchronisation, though, cores reach the controller out of
//! time order: a core a quantum behind would queue behind requests that,
//! in modelled time, come after its own. So the run keeps each
//! controller's bookings in a calendar ([`Calendar`]): modelled time cut
//! into buckets of [`BUCKET`] cycles, each bucket holding how far into it
//! the controller is booked. A request books the bucket of its arrival
//! time, or the next one with room: it waits behind requests booked in its
//! own bucket and those that spilled into it, never behind requests of
//! later buckets. Within one bucket the order is the order of booking, so
//! the error is at most a bucket, whatever the quantum. The calendar is a
//! ring of [`SLOTS`] buckets, shared through the run's clocks file
//! ([`crate::timing`]); it covers `SLOTS * BUCKET` cycles, far more than
//! cores drift apart.

/// Cycles per bucket of a memory controller's calendar: a few line services
/// (31 cycles on the SCC). Other resources pass their own ([`book_in`]).
pub const BUCKET: u64 = 128;
/// Buckets in a controller's calendar (a power of two): about 4 million
/// cycles, four times the largest quantum `cargo xtask bench` uses.
pub const SLOTS: u64 = 1 << 15;
/// Bits of a calendar word holding how far into its bucket the controller
/// is booked; the bits above hold the bucket's number.
const USED_BITS: u32 = 24;
const USED: u64 = (1 << USED_BITS) - 1;

/// The words of one controller's calendar: atomic in the run's clocks
/// file, plain cells in tests.
pub trait Calendar {
    /// Atomically replaces word `i` by `f` of it while `f` returns a value;
    /// `Ok` with the word replaced, or `Err` with the word `f` refused.
    fn update(&self, i: u64, f: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, u64>;
}

/// Books a request arriving at `arrival`, served in `service` cycles, in
/// `calendar` of buckets of `bucket` cycles: returns the cycles it waits
/// before its service starts.
pub fn book_in(calendar: &impl Calendar, arrival: u64, service: u64, bucket: u64) -> u64 {
    let mut k = arrival / bucket;
    // Not before the arrival, nor before the end of a full bucket passed.
    let mut not_before = arrival;
    loop {
        let begin = k * bucket;
        let mut start = 0;
        let mut full_until = 0;
        let mut forgotten = false;
        let booked = calendar.update(k % SLOTS, &mut |word| {
            let (epoch, used) = (word >> USED_BITS, word & USED);
            let used = match epoch.cmp(&k) {
                std::cmp::Ordering::Equal => used,
                // An older bucket in the slot: long past, free.
                std::cmp::Ordering::Less => 0,
                // A bucket a whole calendar later holds the slot: this
                // bucket's bookings are forgotten, as too far in the past
                // to matter, and the request does not wait.
                std::cmp::Ordering::Greater => {
                    forgotten = true;
                    return None;
                }
            };
            if used >= bucket {
                full_until = begin + used;
                return None; // full: the request spills into the next
            }
            start = not_before.max(begin + used);
            Some(k << USED_BITS | (start + service - begin))
        });
        if booked.is_ok() {
            return start - arrival;
        }
        if forgotten {
            return not_before - arrival;
        }
        not_before = not_before.max(full_until);
        k += 1;
    }
}

/// Books a request arriving at `arrival` on a controller busy until
/// `busy_until`, served in `service` cycles: returns when its service
/// starts and the new busy-until time.
pub const fn book(busy_until: u64, arrival: u64, service: u64) -> (u64, u64) {
    let start = if arrival > busy_until {
        arrival
    } else {
        busy_until
    };
    (start, start + service)
}

/// One controller on its own, for tests and single-core use.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MemCtl {
    busy_until: u64,
}

impl MemCtl {
    /// Serves a request arriving at `arrival`; returns the cycles it waited
    /// before its service started.
    pub fn serve(&mut self, arrival: u64, service: u64) -> u64 {
        let (start, busy) = book(self.busy_until, arrival, service);
        self.busy_until = busy;
        start - arrival
    }

    /// When the controller is free again.
    pub fn busy_until(&self) -> u64 {
        self.busy_until
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use proptest::prelude::*;

    use super::*;

    struct Cells(RefCell<Vec<u64>>);

    impl Cells {
        fn new() -> Self {
            Self(RefCell::new(vec![0; SLOTS as usize]))
        }
    }

    impl Calendar for Cells {
        fn update(&self, i: u64, f: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, u64> {
            let mut words = self.0.borrow_mut();
            let w = words[i as usize];
            match f(w) {
                Some(new) => {
                    words[i as usize] = new;
                    Ok(w)
                }
                None => Err(w),
            }
        }
    }

    #[test]
    fn the_calendar_queues_like_a_busy_controller_in_time_order() {
        let c = Cells::new();
        let waits: Vec<u64> = (0..6).map(|_| book_in(&c, 1000, 31, BUCKET)).collect();
        // Six at once: each waits for those before; the fifth and sixth
        // spill into the next bucket and still queue behind the fourth.
        assert_eq!(waits[..4], [0, 31, 62, 93]);
        assert!(waits[4] >= 124 && waits[5] >= waits[4] + 31, "{waits:?}");
        // Later on, idle again.
        assert_eq!(book_in(&c, 100_000, 31, BUCKET), 0);
    }

    #[test]
    fn a_request_earlier_in_time_does_not_queue_behind_later_ones() {
        let c = Cells::new();
        // A core ahead books far in the future first...
        for _ in 0..10 {
            book_in(&c, 50_000, 31, BUCKET);
        }
        // ...a core behind is not delayed by it.
        assert_eq!(book_in(&c, 10_000, 31, BUCKET), 0);
        assert_eq!(book_in(&c, 10_010, 31, BUCKET), 21);
    }

    #[test]
    fn requests_at_once_queue_one_service_apart() {
        let mut mc = MemCtl::default();
        let waits: Vec<u64> = (0..4).map(|_| mc.serve(100, 31)).collect();
        assert_eq!(waits, [0, 31, 62, 93]);
        assert_eq!(mc.busy_until(), 100 + 4 * 31);
        // An idle controller serves at once.
        assert_eq!(mc.serve(1000, 31), 0);
    }

    proptest! {
        #[test]
        fn in_order_the_calendar_matches_busy_until_within_a_bucket(
            gaps in proptest::collection::vec(0u64..100, 1..50),
        ) {
            let c = Cells::new();
            let mut mc = MemCtl::default();
            let mut arrival = 0;
            for gap in gaps {
                arrival += gap;
                let exact = mc.serve(arrival, 31);
                let calendar = book_in(&c, arrival, 31, BUCKET);
                prop_assert!(calendar >= exact.saturating_sub(BUCKET));
                prop_assert!(calendar <= exact + BUCKET);
            }
        }

        #[test]
        fn in_order_arrivals_never_overlap_and_idle_never_waits(
            gaps in proptest::collection::vec(0u64..100, 1..50),
            service in 1u64..60,
        ) {
            let mut mc = MemCtl::default();
            let mut arrival = 0;
            let mut last_end = 0;
            for gap in gaps {
                arrival += gap;
                let free = mc.busy_until() <= arrival;
                let wait = mc.serve(arrival, service);
                let start = arrival + wait;
                prop_assert!(start >= last_end, "one request at a time");
                prop_assert_eq!(wait == 0, free);
                last_end = start + service;
                prop_assert_eq!(mc.busy_until(), last_end);
            }
        }
    }
}
