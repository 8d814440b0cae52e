// SPDX-License-Identifier: GPL-2.0-or-later
//! Modelled time on the engine: one core's clock, what each access costs,
//! and the sync points with the other cores ([`crate::timing`]).

use super::*;
use crate::model::stats::CoreStats;

/// The modelled clock and what it needs (timing on).
#[derive(Debug)]
pub(super) struct Time {
    pub(super) latencies: Latencies,
    pub(super) clock: CoreClock,
    pub(super) clocks: Clocks,
    /// Per line of G, when it was last written (see [`crate::timing`]).
    pub(super) stamps: Mapping,
    /// Clock at which the next access syncs.
    pub(super) next_sync: u64,
    /// Address of the last instruction the engine heard of, published at
    /// each sync point so that a run tool can say where a core stopped.
    pub(super) pc: u32,
    /// Cycles waited at each resource (only the statistics' wait counters
    /// are used).
    pub(super) waits: CoreStats,
}

impl Time {
    /// The core stalls for one access to `target` (or a store of a line
    /// there), as `class` if given, else the target's own class.
    pub(super) fn charge(&mut self, target: Target, class: Option<Class>) {
        let Some(cost) = self.latencies.target(target) else {
            return;
        };
        let l1 = u64::from(self.latencies.timing().l1_hit);
        let now = self.clock.now();
        if let Some(q) = cost.queue {
            let wait = self.clocks.book(q.resource, now + q.arrival, q.service);
            if wait > 0 {
                self.clock.stall(q.resource.wait_class(), wait);
                *self.waits.wait_mut(q.resource) += wait;
            }
        }
        self.clock
            .stall(class.unwrap_or(cost.class), cost.cycles.saturating_sub(l1));
    }

    /// A load read line `s` of G: it completes no earlier than the write
    /// it may have read.
    pub(super) fn observe(&mut self, s: u64) {
        let written = self.stamps.load(dir_word(s));
        self.clock.idle_until(written);
    }

    /// A write reaches line `s` of G now.
    pub(super) fn stamp(&self, s: u64) {
        self.stamps.store(dir_word(s), self.clock.now());
    }

    pub(super) fn sync(&mut self) {
        let now = self.clock.now();
        self.clocks.publish_pc(self.pc);
        self.clocks.keep_within_quantum(now);
        self.next_sync = now + self.clocks.quantum() / 2;
    }
}

impl Engine {
    /// Adds the latency of `access` (to `target`) to the clock.
    pub(super) fn time_access(&mut self, access: &Access, target: Target) {
        let mut read = [None; 2];
        if access.kind == Kind::Load {
            for (slot, p) in read.iter_mut().zip(access.parts()) {
                if p.outcome == Outcome::Memory {
                    *slot = self.system_line(p.addr).ok();
                }
            }
        }
        let mut lines = [None; 2];
        for (slot, e) in lines
            .iter_mut()
            .zip(access.events.iter().filter_map(|e| match *e {
                Event::WriteBack { line } => Some(line),
                Event::WcbFlush(f) => Some(f.line),
                _ => None,
            }))
        {
            *slot = self.lut.translate(e).ok().map(|t| t.target);
        }
        let Some(time) = &mut self.time else { return };
        let t = *time.latencies.timing();
        for s in read.into_iter().flatten() {
            time.observe(s);
        }
        for p in access.parts() {
            match p.outcome {
                Outcome::L1 => time.clock.stall(Class::L1, 0),
                Outcome::Wcb => time.clock.stall(Class::Wcb, 0),
                Outcome::L2 => time
                    .clock
                    .stall(Class::L2, u64::from(t.l2_hit.saturating_sub(t.l1_hit))),
                Outcome::Memory => time.charge(target, None),
            }
        }
        for target in lines.into_iter().flatten() {
            time.charge(target, Some(Class::WriteBack));
        }
    }

    /// Syncs with the other cores once the clock passed the next point.
    pub(super) fn after_timed_access(&mut self) {
        if let Some(time) = &mut self.time
            && time.clock.now() >= time.next_sync
        {
            time.sync();
        }
    }
}
