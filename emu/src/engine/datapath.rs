// SPDX-License-Identifier: GPL-2.0-or-later
//! The non-coherent data path: each access through the caches' model, and
//! the events that move bytes between the core's view and G (fills,
//! write-backs, write-throughs, WCB flushes, drops), published to the other
//! cores' views under the line's lock.

use super::checker::ReadPart;
use super::shared::FULL_LINE;
use super::traffic;
use chip::{CACHE_LINE, Chip, LUT_PAGE_SIZE, Target};

use super::lines::CoreSet;
use super::{Engine, GuestAccess, LINE, describe, time};
use crate::model::hierarchy::{Access, Event, Kind, Outcome, Part};
use crate::model::latency::Payload;
use crate::model::paging::PageType;
use crate::report::StaleRead;
use crate::{Error, Result};

impl Engine {
    pub(super) fn memory_access(&mut self, a: GuestAccess) -> Result<Access> {
        let page = self.translator.page_type(a.vaddr)?;
        let access = self.through_caches(&a, page);
        let value = a.value.to_le_bytes();
        // A store's parts that went into the WCB take their bytes there;
        // the first part of a store across a line boundary must have them
        // before the second part's write flushes its line out, so a part's
        // bytes go in before an event that flushes the part's line.
        let mut buffered = [false; 2];
        for e in access.events.iter() {
            if let Event::WcbFlush(f) = e
                && a.kind == Kind::Store
            {
                for (i, p) in access.parts().iter().enumerate() {
                    if p.outcome == Outcome::Wcb
                        && !buffered[i]
                        && p.addr & !(CACHE_LINE as u32 - 1) == f.line
                    {
                        self.buffer_part(&a, p, &value)?;
                        buffered[i] = true;
                    }
                }
            }
            self.apply(*e, a.paddr, &value)?;
        }
        if a.kind == Kind::Store {
            for (i, p) in access.parts().iter().enumerate() {
                if p.outcome == Outcome::Wcb && !buffered[i] {
                    self.buffer_part(&a, p, &value)?;
                }
            }
        }
        if a.kind == Kind::Load && self.checker.on() {
            self.check_load(&a, &access)?;
        }
        Ok(access)
    }

    /// Hands the checker each part of load `a` that the caches returned
    /// (a part read from memory is fresh by the invariant).
    fn check_load(&mut self, a: &GuestAccess, access: &Access) -> Result<()> {
        let value = a.value.to_le_bytes();
        for p in access.parts() {
            if !matches!(p.outcome, Outcome::L1 | Outcome::L2) {
                continue; // read from memory: fresh by the invariant
            }
            let line = p.addr & !(CACHE_LINE as u32 - 1);
            let dirty = [self.memory.l1().peek(line), self.memory.l2().peek(line)]
                .iter()
                .any(|s| s.is_some_and(|s| s.dirty));
            if dirty {
                continue; // the core's own newer data
            }
            let s = self.system_line(line)?;
            let mut memory = [0; CACHE_LINE];
            self.shared.g().read(s, &mut memory);
            let part = ReadPart {
                value: &value,
                from: (p.addr - a.paddr) as usize,
                at: (p.addr - line) as usize,
                len: p.len as usize,
                wcb: self.memory.wcb_mask(line),
                memory: &memory,
            };
            if !part.stale() {
                continue;
            }
            let describe = || {
                let t = self
                    .translator
                    .lut()
                    .translate(a.paddr)
                    .map_err(|e| Error::Model(format!("core {}: {e}", self.core.index())))?;
                Ok(StaleRead {
                    reader: self.core.index() as u32,
                    paddr: a.paddr,
                    target: describe(self.chip, t.target, t.offset),
                    insn: a.insn,
                    len: a.len,
                    read: a.value,
                    memory: part.held(),
                    writer: self.shared.writer(s),
                })
            };
            self.checker.found(describe)?;
        }
        Ok(())
    }

    /// Puts the bytes of store `a`'s part `p` into the WCB's data, and
    /// marks its line as held by this core.
    fn buffer_part(&mut self, a: &GuestAccess, p: &Part, value: &[u8; 8]) -> Result<()> {
        let from = (p.addr - a.paddr) as usize;
        let at = (p.addr % CACHE_LINE as u32) as usize;
        self.wcb[at..at + p.len as usize].copy_from_slice(&value[from..from + p.len as usize]);
        let s = self.system_line(p.addr)?;
        self.shared.hold(s);
        Ok(())
    }

    /// What the caches' model does with `a` on a page of type `page`
    /// (the events not yet applied).
    #[inline]
    pub(super) fn through_caches(&mut self, a: &GuestAccess, page: PageType) -> Access {
        match a.kind {
            Kind::Load => self.memory.load(a.paddr, a.len, page.memory_type),
            Kind::Store => self
                .memory
                .store(a.paddr, a.len, page.memory_type, page.write_through),
        }
    }

    /// The offset in G (and every view) of the line of `paddr`.
    pub(super) fn system_line(&self, paddr: u32) -> Result<u64> {
        self.translator.system_line(paddr)
    }

    /// Whether this core's caches hold `line` (system line `s`), directly
    /// or through another LUT entry mapping the same page (the own-MPB
    /// alias of the tile's MPB).
    pub(super) fn cached(&self, line: u32, s: u64) -> bool {
        if self.memory.holds(line) {
            return true;
        }
        let entry = Chip::lut_index(line) as u8;
        let offset = line % LUT_PAGE_SIZE;
        self.translator.aliases_of(entry).any(|e| {
            let alias = u32::from(e) * LUT_PAGE_SIZE + offset;
            self.memory.holds(alias) && self.system_line(alias).is_ok_and(|a| a == s)
        })
    }

    /// The bytes of system line `s` the write-combine buffer holds, under
    /// whichever core-physical alias it was written.
    pub(super) fn wcb_bytes(&self, s: u64) -> u32 {
        self.memory
            .wcb_held()
            .filter(|f| self.system_line(f.line).is_ok_and(|held| held == s))
            .map_or(0, |f| f.mask)
    }

    pub(super) fn apply(&mut self, e: Event, paddr: u32, value: &[u8; 8]) -> Result<()> {
        let line = match e {
            Event::Fill { line } | Event::WriteBack { line } | Event::Drop { line, .. } => line,
            Event::WriteThrough { addr, .. } => addr & !(CACHE_LINE as u32 - 1),
            Event::WcbFlush(f) => f.line,
        };
        let shared = self.shared(line);
        // A store to a shared line orders before it leaves
        // ([`Time::order_store`]): ordering charges the waits of earlier
        // requests, which may move the clock, and the store leaves after
        // them. So its time through the write buffer is taken after: a
        // time taken before would wake a waiter at a moment the others,
        // ordered past the later clock, have judged final already.
        let waiters = match e {
            Event::WriteThrough { .. } | Event::WcbFlush(_) if shared => {
                let s = self.system_line(line)?;
                self.order_store(s)
            }
            _ => CoreSet::default(),
        };
        // A store written through or uncached, and a line the WCB writes
        // out, leave through a write buffer: others see them when they
        // reach their target.
        let reach = match e {
            Event::WriteThrough { addr, len } => self.buffer_write(addr, len),
            Event::WcbFlush(f) => self.buffer_write(f.line, LINE as u32),
            Event::Fill { .. } | Event::WriteBack { .. } | Event::Drop { .. } => None,
        };
        if !shared {
            // A private line: its bytes are in QEMU's RAM already, and only
            // its traffic on the mesh is counted.
            match e {
                Event::Fill { .. } => self.count_line(line, LINE, true),
                Event::WriteBack { .. } => self.count_line(line, LINE, false),
                Event::WcbFlush(f) => self.count_line(line, u64::from(f.mask.count_ones()), false),
                Event::Drop { .. } | Event::WriteThrough { .. } => {}
            }
            return Ok(());
        }
        match e {
            Event::Fill { line } => {
                let s = self.system_line(line)?;
                self.shared.hold(s);
                self.count_line(line, LINE, true);
            }
            Event::WriteBack { line } => {
                let s = self.system_line(line)?;
                self.count_line(line, LINE, false);
                let data = self.shared.own_line(s);
                self.publish(s, &data, FULL_LINE, None);
                self.release(line, s, 0);
            }
            Event::Drop { line, keep } => {
                // A clean line whose LUT entry now reaches nothing leaves
                // without a trace, as on silicon: nothing goes on the mesh.
                // (A modified one is a write-back, which must reach memory.)
                if let Ok(s) = self.system_line(line) {
                    self.release(line, s, keep);
                }
            }
            Event::WriteThrough { addr, len } => {
                let line = addr & !(CACHE_LINE as u32 - 1);
                let s = self.system_line(line)?;
                let mut data = [0; CACHE_LINE];
                let at = (addr - line) as usize;
                let from = (addr - paddr) as usize;
                data[at..at + len as usize].copy_from_slice(&value[from..from + len as usize]);
                let mask = (((1u64 << len) - 1) << at) as u32;
                self.publish_ordered(s, &data, mask, reach, waiters);
            }
            Event::WcbFlush(f) => {
                let s = self.system_line(f.line)?;
                self.count_line(f.line, u64::from(f.mask.count_ones()), false);
                let data = self.wcb;
                self.publish_ordered(s, &data, f.mask, reach, waiters);
                self.release(f.line, s, 0);
            }
        }
        Ok(())
    }

    /// The bytes `mask` of `data` go to G at line `s` and into the view of
    /// every core that does not hold the line: in modelled-time order if a
    /// poll ever read the line, waking the cores that wait on it. They
    /// reach the line at `at` (`None`: now): the bytes move at once, and
    /// a core that reads them before `at` in modelled time waits until
    /// then ([`Time::observe`]).
    pub(super) fn publish(&mut self, s: u64, data: &[u8; CACHE_LINE], mask: u32, at: Option<u64>) {
        let waiters = self.order_store(s);
        self.publish_ordered(s, data, mask, at, waiters);
    }

    /// [`Engine::publish`] once ordered: `waiters` are those
    /// [`Engine::order_store`] gave.
    fn publish_ordered(
        &mut self,
        s: u64,
        data: &[u8; CACHE_LINE],
        mask: u32,
        at: Option<u64>,
        waiters: CoreSet,
    ) {
        self.publish_now(s, data, mask, at);
        self.wake_waiters(s, waiters, at);
    }

    fn publish_now(&self, s: u64, data: &[u8; CACHE_LINE], mask: u32, at: Option<u64>) {
        self.shared.publish(s, data, mask, || {
            if let Some(time) = &self.time {
                // Before the bytes: whoever sees them sees when they came.
                time.stamp_bytes(s, mask, at);
            }
        });
    }

    /// Line `paddr` (system line `s`) left this core's caches or WCB. If a
    /// cache (through an alias) still holds it, the view keeps the cached
    /// bytes. Otherwise the view takes G's bytes again, except `keep` and
    /// whatever the WCB still holds, and once nothing holds the line the
    /// core stops being a holder.
    pub(super) fn release(&self, paddr: u32, s: u64, keep: u32) {
        let line = paddr & !(CACHE_LINE as u32 - 1);
        if self.cached(line, s) {
            return;
        }
        let keep = keep | self.wcb_bytes(s);
        self.shared.refresh(s, keep);
    }

    /// Before a store reaches line `s` of G, with timing on: the waiters
    /// to wake once it is in ([`Time::order_store`]).
    pub(super) fn order_store(&mut self, s: u64) -> CoreSet {
        match &mut self.time {
            Some(time) => time.order_store(s),
            None => CoreSet::default(),
        }
    }

    /// After a store reached line `s` of G at `at` (`None`: now), with
    /// timing on: wakes `waiters` and whoever waits on it since
    /// ([`Time::wake_waiters`]).
    pub(super) fn wake_waiters(&self, s: u64, waiters: CoreSet, at: Option<u64>) {
        if let Some(time) = &self.time {
            time.wake_waiters(s, waiters, at);
        }
    }

    /// A write of `bytes` at core-physical `addr` leaves the core through
    /// a write buffer ([`Time::buffer_write`]): when it reaches its
    /// target, with timing on.
    pub(super) fn buffer_write(&mut self, addr: u32, bytes: u32) -> Option<u64> {
        let target = self.translator.lut().translate(addr).ok()?.target;
        let time = self.time.as_mut()?;
        time.buffer_write(Some(target), Payload::store(bytes))
    }

    /// Adds the latency of `access` (to `target`) to the clock, with
    /// timing on ([`Time::access`]).
    pub(super) fn time_access(&mut self, access: &Access, target: Target) {
        let mut read = [None; 2];
        if access.kind == Kind::Load {
            for (slot, p) in read.iter_mut().zip(access.parts()) {
                if p.outcome == Outcome::Memory && self.shared(p.addr) {
                    let words = time::words_reached(p.addr % LINE as u32, p.len);
                    *slot = self.system_line(p.addr).ok().map(|s| (s, words));
                }
            }
        }
        // Victims' write-backs; the WCB's lines went into the write
        // buffers as they left ([`Engine::apply`]).
        let mut victims = [None; 2];
        for (slot, e) in victims
            .iter_mut()
            .zip(access.events.iter().filter_map(|e| match *e {
                Event::WriteBack { line } => Some(line),
                _ => None,
            }))
        {
            *slot = self.translator.lut().translate(e).ok().map(|t| t.target);
        }
        if let Some(time) = &mut self.time {
            time.access(access, target, read, victims);
        }
    }

    /// Counts `bytes` at every router between this core's tile and the
    /// router serving `target`: on the reply's route if `inbound`, else on
    /// the request's ([`Routes::count`]).
    pub(super) fn count_route(&mut self, target: Target, bytes: u64, inbound: bool) {
        let counters = &mut self.memory.stats_mut().router_bytes;
        self.routes.count(counters, target, bytes, inbound);
    }

    /// Counts the mesh traffic of the parts of `access` that went to
    /// `target` without filling a line ([`traffic::uncached_parts`]).
    pub(super) fn count_uncached_parts(&mut self, access: &Access, target: Target) {
        let inbound = access.kind == Kind::Load;
        for len in traffic::uncached_parts(access) {
            self.count_route(target, u64::from(len), inbound);
        }
    }

    /// Counts the mesh traffic of a line that enters or leaves the caches
    /// (`inbound` for a fill), going to wherever the LUT maps it now.
    pub(super) fn count_line(&mut self, line: u32, bytes: u64, inbound: bool) {
        if let Ok(t) = self.translator.lut().translate(line) {
            self.count_route(t.target, bytes, inbound);
        }
    }
}
