// SPDX-License-Identifier: MIT OR Apache-2.0
//! What one core did with one window.
#![forbid(unsafe_code)]

/// Counts of one window on one core, since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowStats {
    /// Put calls.
    pub puts: u64,
    /// Get calls.
    pub gets: u64,
    /// Bytes written into target windows.
    pub bytes_put: u64,
    /// Bytes read from target windows.
    pub bytes_got: u64,
    /// Fences.
    pub fences: u64,
    /// Posts.
    pub posts: u64,
    /// Starts.
    pub starts: u64,
    /// Completes.
    pub completes: u64,
    /// Waits, and tests that found the exposure epoch over.
    pub waits: u64,
    /// Uncached reads of synchronisation data that found the condition
    /// not yet true (match bits, completion counter, MCS-WP queue nodes).
    pub polls: u64,
    /// Clock cycles spent waiting for other cores (match bits, completion
    /// counter, TSRs and the fence barrier).
    pub wait_cycles: u64,
    /// Write-combine buffer flushes issued for this window.
    pub flushes: u64,
    /// CL1INVMB issued for this window.
    pub invalidations: u64,
    /// L1 write-backs (WBINVD) issued for this window.
    pub write_backs: u64,
    /// LUT entries mapped for this window's accesses.
    pub mappings: u64,
    /// Mappings evicted to make room for this window's accesses.
    pub evictions: u64,
    /// Passive-target locks taken: `lock` and `lock_all` calls.
    pub locks: u64,
    /// Passive-target unlocks: `unlock` and `unlock_all` calls.
    pub unlocks: u64,
    /// Passive-target flush calls (`flush`, `flush_local`, `flush_all`,
    /// `flush_local_all`) and `sync`; the write-combine flushes they issue
    /// count in [`flushes`](WindowStats::flushes).
    pub flush_calls: u64,
    /// Back-off waits of GBH with back-off after a failed lock attempt.
    pub backoffs: u64,
    /// Accumulate calls: `accumulate`, `get_accumulate` and their
    /// request-based forms.
    pub accumulates: u64,
    /// Single-element atomics: `fetch_and_op` and `compare_and_swap`.
    pub atomics: u64,
    /// Bytes of target elements that accumulates and atomics read and
    /// updated under the target's guard.
    pub bytes_accumulated: u64,
    /// Request-based operations (`rput`, `rget`, `raccumulate`,
    /// `rget_accumulate`); each also counts as its blocking form.
    pub requests: u64,
}

impl WindowStats {
    /// Number of counters, for [`WindowStats::to_array`].
    pub const COUNTERS: usize = 24;

    /// The counters in declaration order: to sum them over cores with a
    /// reduction, or print them in a table.
    pub fn to_array(&self) -> [u64; Self::COUNTERS] {
        [
            self.puts,
            self.gets,
            self.bytes_put,
            self.bytes_got,
            self.fences,
            self.posts,
            self.starts,
            self.completes,
            self.waits,
            self.polls,
            self.wait_cycles,
            self.flushes,
            self.invalidations,
            self.write_backs,
            self.mappings,
            self.evictions,
            self.locks,
            self.unlocks,
            self.flush_calls,
            self.backoffs,
            self.accumulates,
            self.atomics,
            self.bytes_accumulated,
            self.requests,
        ]
    }

    /// The counters back from [`WindowStats::to_array`]'s order.
    pub fn from_array(counters: [u64; Self::COUNTERS]) -> Self {
        let [
            puts,
            gets,
            bytes_put,
            bytes_got,
            fences,
            posts,
            starts,
            completes,
            waits,
            polls,
            wait_cycles,
            flushes,
            invalidations,
            write_backs,
            mappings,
            evictions,
            locks,
            unlocks,
            flush_calls,
            backoffs,
            accumulates,
            atomics,
            bytes_accumulated,
            requests,
        ] = counters;
        Self {
            puts,
            gets,
            bytes_put,
            bytes_got,
            fences,
            posts,
            starts,
            completes,
            waits,
            polls,
            wait_cycles,
            flushes,
            invalidations,
            write_backs,
            mappings,
            evictions,
            locks,
            unlocks,
            flush_calls,
            backoffs,
            accumulates,
            atomics,
            bytes_accumulated,
            requests,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WindowStats;

    #[test]
    fn counters_round_trip_through_an_array_in_order() {
        let counters: [u64; WindowStats::COUNTERS] = core::array::from_fn(|i| i as u64 + 1);
        let stats = WindowStats::from_array(counters);
        assert_eq!((stats.puts, stats.evictions, stats.backoffs), (1, 16, 20));
        assert_eq!((stats.accumulates, stats.requests), (21, 24));
        assert_eq!(stats.to_array(), counters);
    }
}
