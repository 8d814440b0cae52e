// SPDX-License-Identifier: GPL-2.0-or-later
//! A memory controller that serves one request at a time.
//!
//! Each SCC memory controller takes one line request after another, so
//! requests from many cores queue (the thesis's centralized window database
//! saturated one controller, thesis 1.9). The controller's state is the
//! modelled time it is busy until: a request arriving at `arrival` starts
//! at `max(arrival, busy_until)` and keeps the controller busy for one
//! service time. The run keeps one such word per controller in shared
//! memory ([`crate::timing`]); this module is the rule, and [`book`] the
//! step every core applies atomically.
//!
//! Under lax synchronisation a core may reach the controller with an
//! arrival time earlier than requests already booked by cores up to a
//! quantum ahead of it: it then queues behind them, and waits up to one
//! quantum longer than it would have with exact ordering. The error
//! vanishes as the quantum shrinks, and does not arise when one core at a
//! time uses a controller.

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
    use proptest::prelude::*;

    use super::*;

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
