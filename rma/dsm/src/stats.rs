// SPDX-License-Identifier: MIT OR Apache-2.0
//! What each service did on one core: calls, total and longest time (in
//! the HAL's clock cycles: modelled SCC cycles on the emulator), lock
//! waits, cache actions and the invalidations the timestamps saved.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use chip::stats::Row;

/// One service's calls and their time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServiceStats {
    /// Calls.
    pub calls: u64,
    /// Cycles in them, all together.
    pub total_cycles: u64,
    /// Cycles of the longest.
    pub max_cycles: u64,
}

impl ServiceStats {
    /// Counts a call that ran from `start` to `end`.
    pub fn record(&mut self, start: u64, end: u64) {
        let took = end.saturating_sub(start);
        self.calls += 1;
        self.total_cycles += took;
        self.max_cycles = self.max_cycles.max(took);
    }
}

/// Every service's statistics on one core.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Region allocations.
    pub alloc: ServiceStats,
    /// Region writes.
    pub write: ServiceStats,
    /// Region reads.
    pub read: ServiceStats,
    /// Atomics on regions.
    pub atomic: ServiceStats,
    /// Releases.
    pub sync_write: ServiceStats,
    /// Acquires.
    pub sync_read: ServiceStats,
    /// Lock acquisitions (and attempts).
    pub lock: ServiceStats,
    /// Lock releases.
    pub unlock: ServiceStats,
    /// Barriers.
    pub barrier: ServiceStats,
    /// Counter operations.
    pub counter: ServiceStats,
    /// Lock acquisitions that found the lock held and waited.
    pub lock_waits: u64,
    /// Cycles those waited, all together.
    pub lock_wait_cycles: u64,
    /// Hierarchical locks whose global lock this core handed to another
    /// core of its tile with the tile's lock.
    pub lock_handoffs: u64,
    /// CL1INVMB the consistency service issued.
    pub invalidations: u64,
    /// `sync_read`s whose invalidation the timestamps made unnecessary.
    pub skipped_invalidations: u64,
    /// Write-combine buffer flushes it issued.
    pub flushes: u64,
    /// L1 write-backs it issued.
    pub write_backs: u64,
}

impl Stats {
    /// The services by name, in the order [`fmt::Display`] lists them.
    pub fn services(&self) -> [(&'static str, ServiceStats); 10] {
        [
            ("alloc", self.alloc),
            ("write", self.write),
            ("read", self.read),
            ("atomic", self.atomic),
            ("sync_write", self.sync_write),
            ("sync_read", self.sync_read),
            ("lock", self.lock),
            ("unlock", self.unlock),
            ("barrier", self.barrier),
            ("counter", self.counter),
        ]
    }
}

impl Stats {
    /// The rows of the `dsm` table of `cargo xtask run --stats`
    /// ([`chip::stats`]): one per service that was called (calls, total
    /// and longest cycles), then `consistency` (lock waits and their
    /// cycles, hand-offs, invalidations, skipped ones, flushes,
    /// write-backs).
    pub fn lines(&self) -> Vec<String> {
        let mut rows: Vec<(&str, Vec<(&str, u64)>)> = self
            .services()
            .into_iter()
            .filter(|(_, s)| s.calls > 0)
            .map(|(name, s)| {
                (
                    name,
                    alloc::vec![
                        ("calls", s.calls),
                        ("cycles", s.total_cycles),
                        ("longest", s.max_cycles),
                    ],
                )
            })
            .collect();
        rows.push((
            "consistency",
            alloc::vec![
                ("lock_waits", self.lock_waits),
                ("lock_wait_cycles", self.lock_wait_cycles),
                ("lock_handoffs", self.lock_handoffs),
                ("invalidations", self.invalidations),
                ("skipped_invalidations", self.skipped_invalidations),
                ("flushes", self.flushes),
                ("write_backs", self.write_backs),
            ],
        ));
        rows.into_iter()
            .map(|(row, values)| {
                Row {
                    table: "dsm",
                    row,
                    values,
                }
                .line()
                .expect("the names are words")
            })
            .collect()
    }
}

impl fmt::Display for Stats {
    /// One line per service that was called (`name: calls, total, max
    /// cycles`), then the lock waits and cache actions.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, s) in self.services() {
            if s.calls > 0 {
                writeln!(
                    f,
                    "{name}: {} calls, {} cycles, longest {}",
                    s.calls, s.total_cycles, s.max_cycles
                )?;
            }
        }
        write!(
            f,
            "lock waits: {} ({} cycles), handed on in a tile: {}; invalidations: {} (skipped {}); flushes: {}; write-backs: {}",
            self.lock_waits,
            self.lock_wait_cycles,
            self.lock_handoffs,
            self.invalidations,
            self.skipped_invalidations,
            self.flushes,
            self.write_backs
        )
    }
}
