// SPDX-License-Identifier: MIT OR Apache-2.0
//! The free LUT entries as a cache of mappings: each maps one 16 MiB page
//! of some core's POPSHM with one memory type. When all are taken, the
//! least-used mapping is evicted, usage counted by the RMA operations
//! (puts, gets and local accesses) that went through it (thesis 4.5).
//!
//! A mapping may be pinned ([`Slots::pin`]): while it is, it is never
//! evicted, so its addresses stay valid for a program that holds them (a
//! window's own part handed to C as a pointer).
//!
//! One page per entry, rather than a core's whole POPSHM per four entries
//! as in the thesis: a window rarely spans pages, so the 59 entries of the
//! SCC then hold 59 targets instead of 14.
#![forbid(unsafe_code)]

use alloc::vec::Vec;

use chip::{EntryRange, MemoryType};

use crate::RmaError;
use crate::coherence::{Actions, unmap_actions};
use crate::hal::{DramPages, RmaHal};
use crate::stats::WindowStats;

/// What one entry maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mapped {
    controller: usize,
    page: u16,
    ty: MemoryType,
    uses: u64,
    /// Pins held on it: while any is, it stays mapped.
    pins: u32,
}

/// The entries rma may use and what each maps.
#[derive(Debug)]
pub struct Slots {
    range: EntryRange,
    mapped: Vec<Option<Mapped>>,
    /// The entry [`Slots::entry_for`] found last: looked at first, as
    /// consecutive operations mostly reach the same target.
    last: usize,
}

impl Slots {
    /// All of `range`, nothing mapped.
    pub fn new(range: EntryRange) -> Self {
        Self {
            range,
            mapped: alloc::vec![None; range.len() as usize],
            last: 0,
        }
    }

    /// The entries in use.
    pub fn range(&self) -> EntryRange {
        self.range
    }

    /// How many entries hold a mapping.
    pub fn in_use(&self) -> usize {
        self.mapped.iter().flatten().count()
    }

    /// The entry mapping `page` of `controller` with `ty`, mapping it
    /// (evicting the least-used mapping if none is free) when there is
    /// none; counts one use.
    ///
    /// Return values: `Err(Map)` if the platform refuses the mapping.
    pub fn entry_for<H: RmaHal>(
        &mut self,
        hal: &H,
        controller: usize,
        page: u16,
        ty: MemoryType,
        stats: &mut WindowStats,
    ) -> Result<u8, RmaError> {
        let maps = |m: &Option<Mapped>| {
            m.is_some_and(|m| m.controller == controller && m.page == page && m.ty == ty)
        };
        let found = if self.mapped.get(self.last).is_some_and(maps) {
            Some(self.last)
        } else {
            self.mapped.iter().position(maps)
        };
        let index = match found {
            Some(index) => index,
            None => {
                let index = match self.mapped.iter().position(Option::is_none) {
                    Some(free) => free,
                    None => {
                        let victim = self.least_used().ok_or(RmaError::NoMemory {
                            what: "LUT entries not pinned",
                            requested: 1,
                            available: 0,
                        })?;
                        self.evict(hal, victim, stats);
                        victim
                    }
                };
                let pages = DramPages {
                    controller,
                    first: page,
                    count: 1,
                };
                hal.map_shared(self.slot(index), pages, ty)
                    .map_err(RmaError::Map)?;
                stats.mappings += 1;
                self.mapped[index] = Some(Mapped {
                    controller,
                    page,
                    ty,
                    uses: 0,
                    pins: 0,
                });
                index
            }
        };
        if let Some(m) = &mut self.mapped[index] {
            m.uses += 1;
        }
        self.last = index;
        Ok(self.slot(index))
    }

    /// Unmaps everything (e.g. before the range changes).
    pub fn clear<H: RmaHal>(&mut self, hal: &H, stats: &mut WindowStats) {
        for index in 0..self.mapped.len() {
            if self.mapped[index].is_some() {
                self.evict(hal, index, stats);
            }
        }
    }

    fn slot(&self, index: usize) -> u8 {
        self.range.first + index as u8
    }

    /// The entry to evict: the least used of those not pinned.
    fn least_used(&self) -> Option<usize> {
        (0..self.mapped.len())
            .filter(|&i| self.mapped[i].is_none_or(|m| m.pins == 0))
            .min_by_key(|&i| self.mapped[i].map_or(0, |m| m.uses))
    }

    /// [`Slots::entry_for`], and pins the mapping: it stays until
    /// [`Slots::unpin`] takes the pin back ([`Slots::clear`] aside).
    ///
    /// Return values: as [`Slots::entry_for`], plus `Err(NoMemory)` when
    /// every entry is pinned.
    pub fn pin<H: RmaHal>(
        &mut self,
        hal: &H,
        controller: usize,
        page: u16,
        ty: MemoryType,
        stats: &mut WindowStats,
    ) -> Result<u8, RmaError> {
        let slot = self.entry_for(hal, controller, page, ty, stats)?;
        if let Some(m) = &mut self.mapped[usize::from(slot - self.range.first)] {
            m.pins += 1;
        }
        Ok(slot)
    }

    /// Takes back a pin of [`Slots::pin`] on the mapping of `page` of
    /// `controller` with `ty`; the mapping stays until evicted.
    pub fn unpin(&mut self, controller: usize, page: u16, ty: MemoryType) {
        if let Some(m) = self
            .mapped
            .iter_mut()
            .flatten()
            .find(|m| m.controller == controller && m.page == page && m.ty == ty)
        {
            m.pins = m.pins.saturating_sub(1);
        }
    }

    /// Pushes out and drops what went through the entry, then unmaps it.
    /// CL1INVMB drops every MPBT line, so a write-back mapping anywhere
    /// makes it write back L1 first.
    fn evict<H: RmaHal>(&mut self, hal: &H, index: usize, stats: &mut WindowStats) {
        let Some(m) = self.mapped[index].take() else {
            return;
        };
        let mut actions = unmap_actions(m.ty);
        if actions.invalidate
            && self
                .mapped
                .iter()
                .flatten()
                .any(|o| o.ty == MemoryType::MpbtWb)
        {
            actions = actions.union(Actions {
                write_back: true,
                flush: true,
                invalidate: true,
            });
        }
        actions.run(hal, stats);
        hal.unmap_shared(self.slot(index));
        stats.evictions += 1;
    }
}
