// SPDX-License-Identifier: GPL-2.0-or-later
//! One core's memory system: L1 data cache, L2, write-combine buffer.
//!
//! [`CoreMemory`] decides, for each access of its core, what each level
//! does, and answers with an [`Access`]: per line touched, what L1 and L2
//! did and where the access completed ([`Part`], [`Outcome`]), plus the
//! [`Event`]s the plugin must carry out on the data. It holds no data.
//!
//! # The data protocol
//!
//! The plugin keeps global memory G and, per core c, a view V_c that the
//! guest's loads and stores hit directly (DESIGN.md section 4). The
//! invariant is: every line of V_c that c's caches do not hold equals G at
//! the line's system address, except for the bytes c's write-combine
//! buffer holds. The plugin calls [`CoreMemory`] *after* the guest's access
//! touched V_c (QEMU's memory callbacks run after the access), then applies
//! the events in order:
//!
//! | event | plugin does |
//! |---|---|
//! | [`Event::Fill`] | nothing to the bytes (V_c equals G there by the invariant; any bytes of the line in the WCB were flushed by an earlier event of the same access); mark c a sharer of the line: from now on other cores' writes must not update this line of V_c |
//! | [`Event::WriteBack`] | copy the whole line V_c -> G and publish it; c is no longer a sharer |
//! | [`Event::Drop`] | copy the line G -> V_c, except the `keep` bytes (those c's WCB holds); c is no longer a sharer; modifications are lost |
//! | [`Event::WriteThrough`] | copy those bytes V_c -> G and publish them |
//! | [`Event::WcbFlush`] | copy the masked bytes V_c -> G and publish them |
//!
//! *Publish* means: copy the bytes just written to G into every other view
//! that maps the same system line and whose core does not cache that line
//! ([`CoreMemory::holds`]), skipping the bytes that core's WCB holds for it.
//!
//! Lines and addresses in events are core-physical; the plugin translates
//! them with the core's LUT *when it applies the event*, so a line evicted
//! after a LUT write goes to the new target, as on silicon (thesis 1.3).
//!
//! # Semantics (thesis 1.2, 1.5)
//!
//! - No write-allocate at either level: only loads fill lines.
//! - DCM: L1 and L2 write-back. With PWT (DCM+PWT) L1 is write-through into
//!   L2, which stays write-back.
//! - NCM (PCD): no allocation; loads and stores go to memory.
//! - NCM+WCB: loads uncached, stores through the WCB.
//! - MPBT-WB (PMB): loads fill L1 only, tagged MPBT; a store hit stays dirty
//!   in L1, a store miss goes to the WCB.
//! - MPBT-WT (PMB+PWT): loads as MPBT-WB; a store hit updates L1 and goes
//!   through the WCB, a store miss goes to the WCB. The thesis measured that
//!   on silicon these loads behave as uncached (a suspected hardware
//!   malfunction, never confirmed, thesis 1.5);
//!   [`Config::mpbt_wt_reads_uncached`] reproduces that, on in
//!   [`Config::SCC`]; off, they fill L1 as documented (the plugin's
//!   `wt-reads=ideal`).
//! - L1 is looked up by every access and L2 by every load that misses L1,
//!   whatever the type; the type decides allocation and the write policy.
//!   So an access through an alias of another type (a guest bug on silicon
//!   too) sees the cached copy instead of splitting the line into two
//!   copies a single view could not hold. Such a line keeps its class: a
//!   line L2 holds is never MPBT-tagged in L1.
//! - CL1INVMB drops every MPBT line of L1 without write-back.
//! - WBINVD writes back and invalidates L1 only: an MPBT line goes to
//!   memory (or is dropped if clean), a DCM line goes to L2, which has no
//!   flush on the SCC.
//! - INVD invalidates L1 only: MPBT lines are dropped, modified data lost.
//!   For a modified DCM line, silicon would fall back to the older copy in
//!   L2; one view per core cannot keep that older copy, so the model keeps
//!   the modification in L2 (as WBINVD does). Only a program that discards
//!   its own DCM writes with INVD could tell.
//! - An access across a line boundary is modelled as its two line parts in
//!   order. The guest has already touched both lines of the view when the
//!   model runs, which is exact except in one case: a misaligned store
//!   through the WCB whose first part flushes a WCB holding the second
//!   part's line publishes that line's new bytes with the flush, one step
//!   early (the old bytes are gone from the view). Aligned stores never
//!   cross a line.
//! - A load that reaches memory for the line the WCB holds flushes the WCB
//!   first: the P54C does not let a read pass a buffered write to the same
//!   address, and it keeps a core's own writes visible to it.
//!
//! # Hierarchy choices
//!
//! - L1: 16 KiB, 4-way, 128 sets of 32-byte lines ([`Config::SCC`]). The
//!   P54C's L1 was 8 KiB 2-way: 128 sets, so that the set index stays within
//!   the 4 KiB page offset. The SCC doubled the size; doubling the ways
//!   keeps that property, which is how the Pentium MMX grew the same L1 to
//!   16 KiB 4-way.
//! - L2: 256 KiB, 4-way, 2048 sets, write-back only. The thesis gives no
//!   associativity; 4 ways is an assumption (as many ways as L1, so L2
//!   conflicts, which back-invalidate L1 lines, stay rarer than L1's own),
//!   kept in [`Config`] so it can change in one place.
//! - Replacement: LRU at both levels. The P54C's 2-way L1 is exactly LRU;
//!   for 4 ways, hardware uses pseudo-LRU, which differs only in which line
//!   of a full set goes first, never in what a program may observe about
//!   coherence.
//! - Inclusion: every non-MPBT line in L1 is also in L2 (a DCM load fills
//!   both); when L2 evicts a line, L1 loses it too (back-invalidation, as
//!   external L2 controllers of Pentium systems did with inquire cycles), and the line is
//!   written back if either copy was modified. MPBT lines never enter L2.
//!   This keeps one copy per core, so one view per core is enough.
//! - A modified DCM line leaving L1 goes into L2 (dirty there, held by
//!   inclusion), not to memory; a modified MPBT line leaving L1 goes to
//!   memory; a clean MPBT line leaving L1 is dropped.

use std::sync::Arc;

use chip::{CACHE_LINE, MemoryType};

use super::cache::{Cache, Geometry, GeometryError, LineState, MruLines, Replacement, Victim};
use super::stats::CoreStats;
use super::wcb::{Wcb, WcbFlush};

/// Geometry and options of one core's memory system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// L1 data cache.
    pub l1: Geometry,
    /// L1 replacement.
    pub l1_replacement: Replacement,
    /// L2 cache.
    pub l2: Geometry,
    /// L2 replacement.
    pub l2_replacement: Replacement,
    /// MPBT-WT loads bypass L1, as the thesis measured on silicon (1.5).
    pub mpbt_wt_reads_uncached: bool,
}

impl Config {
    /// The SCC core, with MPBT-WT loads uncached as the thesis measured on
    /// silicon (module docs say why these geometries and policies).
    pub const SCC: Config = Config {
        l1: Geometry {
            size: 16 * 1024,
            assoc: 4,
            line: CACHE_LINE,
        },
        l1_replacement: Replacement::Lru,
        l2: Geometry {
            size: 256 * 1024,
            assoc: 4,
            line: CACHE_LINE,
        },
        l2_replacement: Replacement::Lru,
        mpbt_wt_reads_uncached: true,
    };

    /// Whether the configuration can be built; the error names the cache.
    ///
    /// Each cache needs at least two sets: the guest has read (or written)
    /// both lines of an access that crosses a line boundary before the
    /// model sees it, so the model must not let the first line's fill evict
    /// the second; neighbouring lines in different sets guarantee that.
    pub fn check(&self) -> Result<(), ConfigError> {
        for (level, g) in [("L1", self.l1), ("L2", self.l2)] {
            g.check()
                .map_err(|error| ConfigError::Geometry { level, error })?;
            if g.line != CACHE_LINE {
                return Err(ConfigError::LineSize { level, geometry: g });
            }
            if g.sets() < 2 {
                return Err(ConfigError::OneSet { level, geometry: g });
            }
        }
        Ok(())
    }
}

/// Why a [`Config`] cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A cache's geometry is impossible.
    #[error("{level}: {error}")]
    Geometry {
        /// `"L1"` or `"L2"`.
        level: &'static str,
        /// What is wrong.
        error: GeometryError,
    },
    /// A cache has a single set, so the two lines of an access that
    /// crosses a line boundary could evict each other.
    #[error(
        "{level}: cache of {geometry}: needs at least two sets, so that neighbouring lines never share one"
    )]
    OneSet {
        /// `"L1"` or `"L2"`.
        level: &'static str,
        /// Its geometry.
        geometry: Geometry,
    },
    /// A cache's lines are not the chip's line size.
    #[error(
        "{level}: cache of {geometry}: lines must be {CACHE_LINE} bytes, the chip's line and write-combine buffer size"
    )]
    LineSize {
        /// `"L1"` or `"L2"`.
        level: &'static str,
        /// Its geometry.
        geometry: Geometry,
    },
}

/// What the plugin must do to the data; see the module docs for the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The line entered the core's caches from memory.
    Fill {
        /// Base core-physical address.
        line: u32,
    },
    /// The whole line goes from the view to memory; it left the core's caches.
    WriteBack {
        /// Base core-physical address.
        line: u32,
    },
    /// The line left the core's caches without write-back: the view takes
    /// memory's bytes again, except those the WCB holds.
    Drop {
        /// Base core-physical address.
        line: u32,
        /// Bytes the WCB held for the line when it left (bit i: byte i):
        /// the view keeps them. Carried in the event because a later event
        /// of the same access may flush the WCB.
        keep: u32,
    },
    /// A store reached memory at once (uncached, or written through every
    /// level that could hold it).
    WriteThrough {
        /// Core-physical address of the first byte.
        addr: u32,
        /// Bytes (within one line).
        len: u32,
    },
    /// The write-combine buffer wrote these bytes to memory.
    WcbFlush(WcbFlush),
}

/// Most events one load or store can cause. Per line part: a WCB flush, an
/// L2 victim, an L1 victim and a fill; an access touches at most two lines
/// and flushes the WCB at most once.
pub const MAX_EVENTS: usize = 8;

/// A short list of events, kept inline (no allocation, and no
/// initialisation of the unused room, per access).
#[derive(Clone)]
pub struct Events(heapless::Vec<Event, MAX_EVENTS>);

impl Events {
    #[inline]
    const fn new() -> Self {
        Self(heapless::Vec::new())
    }

    #[inline]
    fn push(&mut self, e: Event) {
        self.0
            .push(e)
            .expect("at most MAX_EVENTS events per access");
    }

    /// The events, in the order the plugin must apply them.
    #[inline]
    pub fn as_slice(&self) -> &[Event] {
        &self.0
    }
}

impl std::ops::Deref for Events {
    type Target = [Event];
    #[inline]
    fn deref(&self) -> &[Event] {
        self.as_slice()
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl PartialEq for Events {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// What one cache level did for one line of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The level held the line.
    Hit,
    /// The level was asked and did not hold it.
    Miss,
    /// The level was not involved (the access completed above it, or its
    /// type bypasses it).
    Skipped,
}

/// Where one line's part of an access completed: the class a latency is
/// attached to. Memory traffic caused on the way (fills, write-backs of
/// victims, WCB flushes) is in the [`Event`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Served or absorbed by L1 (load hit; write-back store hit).
    L1,
    /// Served or absorbed by L2 (load L1 miss, L2 hit; DCM store reaching L2).
    L2,
    /// Went to memory: a load that filled a line or was uncached, a store
    /// written through or uncached.
    Memory,
    /// A store taken by the write-combine buffer (an L1 hit of MPBT-WT also
    /// updated L1: see [`Part::l1`]).
    Wcb,
}

/// One line's part of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// Core-physical address of the part's first byte.
    pub addr: u32,
    /// Bytes of the part.
    pub len: u32,
    /// What L1 did.
    pub l1: Lookup,
    /// What L2 did.
    pub l2: Lookup,
    /// Where it completed.
    pub outcome: Outcome,
}

/// Load or store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A read.
    Load,
    /// A write.
    Store,
}

/// Everything one load or store did.
#[derive(Debug, Clone)]
pub struct Access {
    /// Read or write.
    pub kind: Kind,
    /// The page's memory type.
    pub ty: MemoryType,
    parts: [Part; 2],
    nparts: usize,
    /// What the plugin must do, in order.
    pub events: Events,
}

/// Equal when they did the same: the room for a second part an access
/// of one line leaves unused is not looked at.
impl PartialEq for Access {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.ty == other.ty
            && self.parts() == other.parts()
            && self.events == other.events
    }
}

impl Access {
    /// The lines touched, in address order: one, or two for an access
    /// that crosses a line boundary.
    #[inline]
    pub fn parts(&self) -> &[Part] {
        &self.parts[..self.nparts]
    }
}

/// What [`CoreMemory::access_in_caches`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum InCaches {
    /// The access stayed in one line and completed in L1 or L2 (the
    /// outcome), with nothing for the plugin to do.
    Yes(Outcome),
    /// Any other access, whole.
    No(Access),
}

/// One core's L1, L2 and WCB, with its statistics.
#[derive(Debug, Clone)]
pub struct CoreMemory {
    l1: Cache,
    l2: Cache,
    wcb: Wcb,
    mpbt_wt_reads_uncached: bool,
    stats: CoreStats,
}

impl CoreMemory {
    /// An empty memory system, or why `config` cannot be one.
    pub fn new(config: Config) -> Result<Self, ConfigError> {
        config.check()?;
        let cache =
            |level, g, r| Cache::new(g, r).map_err(|error| ConfigError::Geometry { level, error });
        Ok(Self {
            l1: cache("L1", config.l1, config.l1_replacement)?.with_mru(),
            l2: cache("L2", config.l2, config.l2_replacement)?,
            wcb: Wcb::new(),
            mpbt_wt_reads_uncached: config.mpbt_wt_reads_uncached,
            stats: CoreStats::default(),
        })
    }

    /// A load of `len` bytes (1..=32) at `paddr` from a page of type `ty`.
    /// PWT does not change a load.
    #[inline]
    pub fn load(&mut self, paddr: u32, len: u32, ty: MemoryType) -> Access {
        self.access(Kind::Load, paddr, len, ty, false)
    }

    /// A store of `len` bytes (1..=32) at `paddr` to a page of type `ty`;
    /// `pwt` is the page's PWT bit, which matters for DCM (L1 write-through).
    #[inline]
    pub fn store(&mut self, paddr: u32, len: u32, ty: MemoryType, pwt: bool) -> Access {
        self.access(Kind::Store, paddr, len, ty, pwt)
    }

    /// A load or store (`kind`) of `len` bytes at `paddr` on a page of type
    /// `ty` (with PWT `pwt`), as [`CoreMemory::load`] and
    /// [`CoreMemory::store`] make it, answered in short when it stays in
    /// one line and completes in L1 or L2 with no event: most private
    /// accesses that reach the model. It then is only where it completed;
    /// otherwise the whole [`Access`].
    #[inline]
    pub fn access_in_caches(
        &mut self,
        kind: Kind,
        paddr: u32,
        len: u32,
        ty: MemoryType,
        pwt: bool,
    ) -> InCaches {
        if paddr % CACHE_LINE as u32 + len > CACHE_LINE as u32 {
            return InCaches::No(self.access(kind, paddr, len, ty, pwt));
        }
        let mut events = Events::new();
        let part = self.part(kind, paddr, len, ty, pwt, &mut events);
        self.stats
            .record_parts(kind, ty, std::slice::from_ref(&part), events.as_slice());
        if events.is_empty() && matches!(part.outcome, Outcome::L1 | Outcome::L2) {
            return InCaches::Yes(part.outcome);
        }
        InCaches::No(Access {
            kind,
            ty,
            parts: [part; 2],
            nparts: 1,
            events,
        })
    }

    // Inlined into the caller's frame: returning the access from a call of
    // its own copies it whole.
    #[inline(always)]
    fn access(&mut self, kind: Kind, paddr: u32, len: u32, ty: MemoryType, pwt: bool) -> Access {
        assert!(
            (1..=CACHE_LINE as u32).contains(&len),
            "access of {len} bytes: 1..={CACHE_LINE}"
        );
        // Built in place, each part written once: copying a part or the
        // events after building them field by field costs more than the
        // rest of an L1 hit.
        let mut a = Access {
            kind,
            ty,
            parts: [Part {
                addr: paddr,
                len,
                l1: Lookup::Skipped,
                l2: Lookup::Skipped,
                outcome: Outcome::L1,
            }; 2],
            nparts: 1,
            events: Events::new(),
        };
        let first_len = len.min(CACHE_LINE as u32 - paddr % CACHE_LINE as u32);
        a.parts[0] = self.part(kind, paddr, first_len, ty, pwt, &mut a.events);
        // An access that crosses a line boundary has a second part, in the
        // next line; otherwise the second entry is not looked at.
        if first_len < len {
            let (addr, rest) = (paddr.wrapping_add(first_len), len - first_len);
            a.parts[1] = self.part(kind, addr, rest, ty, pwt, &mut a.events);
            a.nparts = 2;
        }
        self.stats.record(&a);
        a
    }

    /// The part of a load or store (`kind`) in one line.
    #[inline(always)]
    fn part(
        &mut self,
        kind: Kind,
        addr: u32,
        len: u32,
        ty: MemoryType,
        pwt: bool,
        ev: &mut Events,
    ) -> Part {
        match kind {
            Kind::Load => self.load_part(addr, len, ty, ev),
            Kind::Store => self.store_part(addr, len, ty, pwt, ev),
        }
    }

    fn flush_wcb_for(&mut self, line: u32, ev: &mut Events) {
        if self.wcb.mask_for(line) != 0 {
            ev.push(Event::WcbFlush(self.wcb.flush().expect("held")));
        }
    }

    fn load_part(&mut self, addr: u32, len: u32, ty: MemoryType, ev: &mut Events) -> Part {
        let line = self.l1.line_of(addr);
        let mut part = Part {
            addr,
            len,
            l1: Lookup::Hit,
            l2: Lookup::Skipped,
            outcome: Outcome::L1,
        };
        if self.l1.access(addr).is_some() {
            return part;
        }
        part.l1 = Lookup::Miss;
        let (fill_l2, fill_l1) = match ty {
            MemoryType::Dcm => (true, true),
            MemoryType::MpbtWb => (false, true),
            MemoryType::MpbtWt => (false, !self.mpbt_wt_reads_uncached),
            MemoryType::Ncm | MemoryType::NcmWcb => (false, false),
        };
        // L2 is asked whatever the type (see the module docs on aliases);
        // PMB pages bypass it on silicon, so an MPBT access only finds a
        // line there through a DCM alias.
        if self.l2.access(addr).is_some() {
            part.l2 = Lookup::Hit;
            part.outcome = Outcome::L2;
            if fill_l1 {
                // The line belongs to L2, so it is not MPBT-tagged in L1.
                self.fill_l1(line, LineState::default(), ev);
            }
            return part;
        }
        part.l2 = if fill_l2 {
            Lookup::Miss
        } else {
            Lookup::Skipped
        };
        part.outcome = Outcome::Memory;
        self.flush_wcb_for(line, ev);
        if fill_l2 && let Some(v) = self.l2.fill(line, LineState::default()) {
            // Back-invalidation keeps L1 within L2.
            let l1 = self.l1.remove(v.line).unwrap_or_default();
            let dirty = v.state.dirty || l1.dirty;
            ev.push(if dirty {
                Event::WriteBack { line: v.line }
            } else {
                Event::Drop {
                    line: v.line,
                    keep: self.wcb.mask_for(v.line),
                }
            });
        }
        if fill_l1 {
            let state = LineState {
                dirty: false,
                mpbt: ty != MemoryType::Dcm,
            };
            self.fill_l1(line, state, ev);
        }
        if fill_l1 || fill_l2 {
            ev.push(Event::Fill { line });
        }
        part
    }

    fn fill_l1(&mut self, line: u32, state: LineState, ev: &mut Events) {
        if let Some(v) = self.l1.fill(line, state) {
            self.l1_victim(v, ev);
        }
    }

    /// A line leaving L1 by eviction or WBINVD.
    fn l1_victim(&mut self, v: Victim, ev: &mut Events) {
        // Inclusion: a DCM line stays in the core, in L2 (modified there if
        // it was in L1).
        let in_l2 = !v.state.mpbt
            && if v.state.dirty {
                self.l2.set_dirty(v.line)
            } else {
                self.l2.contains(v.line)
            };
        if in_l2 {
            return;
        }
        if v.state.dirty {
            ev.push(Event::WriteBack { line: v.line });
        } else {
            ev.push(Event::Drop {
                line: v.line,
                keep: self.wcb.mask_for(v.line),
            });
        }
    }

    fn store_part(
        &mut self,
        addr: u32,
        len: u32,
        ty: MemoryType,
        pwt: bool,
        ev: &mut Events,
    ) -> Part {
        let mut part = Part {
            addr,
            len,
            l1: Lookup::Miss,
            l2: Lookup::Skipped,
            outcome: Outcome::Memory,
        };
        let l1 = self.l1.access(addr);
        if l1.is_some() {
            part.l1 = Lookup::Hit;
        }
        match ty {
            MemoryType::Dcm => {
                if l1.is_some() && !pwt {
                    self.l1.set_dirty(addr);
                    part.outcome = Outcome::L1;
                } else if self.l2.access(addr).is_some() {
                    // Write-through L1 hit, or L1 miss: L2 takes the write.
                    part.l2 = Lookup::Hit;
                    self.l2.set_dirty(addr);
                    part.outcome = Outcome::L2;
                } else {
                    // No write-allocate: straight to memory. (An L1 hit can
                    // only miss L2 here for an MPBT line written through a
                    // DCM alias.)
                    part.l2 = Lookup::Miss;
                    ev.push(Event::WriteThrough { addr, len });
                }
            }
            MemoryType::Ncm => ev.push(Event::WriteThrough { addr, len }),
            MemoryType::MpbtWb if l1.is_some() => {
                self.l1.set_dirty(addr);
                part.outcome = Outcome::L1;
            }
            MemoryType::NcmWcb | MemoryType::MpbtWb | MemoryType::MpbtWt => {
                if let Some(f) = self.wcb.write(addr, len) {
                    ev.push(Event::WcbFlush(f));
                }
                part.outcome = Outcome::Wcb;
            }
        }
        part
    }

    /// CL1INVMB: every MPBT line of L1 is dropped, modified or not (its
    /// modifications are lost, as on silicon). Returns the lines dropped.
    pub fn cl1invmb(&mut self, mut sink: impl FnMut(Event)) -> u32 {
        let mut n = 0;
        let wcb = self.wcb;
        self.l1.remove_where(
            |_, s| s.mpbt,
            |v| {
                n += 1;
                let e = Event::Drop {
                    line: v.line,
                    keep: wcb.mask_for(v.line),
                };
                self.stats.count_event(&e);
                sink(e);
            },
        );
        self.stats.cl1invmb += 1;
        n
    }

    /// WBINVD: every line of L1 leaves it as a victim would (module docs);
    /// L2 is untouched, as on the SCC. Returns the lines L1 held.
    pub fn wbinvd(&mut self, mut sink: impl FnMut(Event)) -> u32 {
        self.stats.wbinvd += 1;
        self.empty_l1(false, &mut sink)
    }

    /// INVD: L1 only; MPBT lines are dropped, modified DCM lines go to L2
    /// (a deliberate difference, see the module docs). Returns the lines L1 held.
    pub fn invd(&mut self, mut sink: impl FnMut(Event)) -> u32 {
        self.stats.invd += 1;
        self.empty_l1(true, &mut sink)
    }

    fn empty_l1(&mut self, lose_mpbt: bool, sink: &mut impl FnMut(Event)) -> u32 {
        let mut n = 0;
        // Victims are handled one at a time so no list of them is needed.
        loop {
            let first = self.l1.lines().next();
            let Some(mut v) = first else { break };
            self.l1.remove(v.line);
            n += 1;
            if lose_mpbt && v.state.mpbt {
                v.state.dirty = false;
            }
            let mut ev = Events::new();
            self.l1_victim(v, &mut ev);
            for e in ev.iter() {
                self.stats.count_event(e);
                sink(*e);
            }
        }
        n
    }

    /// Empties the write-combine buffer (the model's own flush; the guest
    /// flushes by writing to another line).
    pub fn flush_wcb(&mut self) -> Option<Event> {
        let e = self.wcb.flush().map(Event::WcbFlush);
        if let Some(e) = &e {
            self.stats.count_event(e);
        }
        e
    }

    /// Whether any level holds the line of `addr`: while it does, other
    /// cores' writes must not reach this core's view of it.
    pub fn holds(&self, addr: u32) -> bool {
        self.l1.contains(addr) || self.l2.contains(addr)
    }

    /// The bytes of the line of `addr` the WCB holds (bit i: byte i).
    pub fn wcb_mask(&self, addr: u32) -> u32 {
        self.wcb.mask_for(addr & !(CACHE_LINE as u32 - 1))
    }

    /// The line the write-combine buffer holds and its bytes, if any.
    pub fn wcb_held(&self) -> Option<WcbFlush> {
        self.wcb.held()
    }

    /// L1's most recently used line per set: a DCM load found there, or a
    /// DCM store without PWT, changes nothing in the model but the counts
    /// ([`CoreMemory::count_l1_hits`]), so it may skip the model.
    pub fn l1_mru(&self) -> Arc<MruLines> {
        self.l1.mru().expect("L1 keeps its own MRU table")
    }

    /// L1 keeps its MRU table in `table` from now on
    /// ([`Cache::share_mru`]), and [`CoreMemory::l1_mru`] has none to give.
    pub fn share_l1_mru(&mut self, table: &'static MruLines) {
        self.l1.share_mru(table);
    }

    /// Counts `loads` and `stores` of DCM pages that hit L1's most
    /// recently used line ([`CoreMemory::l1_mru`]) without the model.
    pub fn count_l1_hits(&mut self, loads: u64, stores: u64) {
        let i = super::stats::type_index(MemoryType::Dcm);
        self.stats.loads[i] += loads;
        self.stats.stores[i] += stores;
        self.stats.l1_hits += loads + stores;
    }

    /// L1's tags.
    pub fn l1(&self) -> &Cache {
        &self.l1
    }

    /// L2's tags.
    pub fn l2(&self) -> &Cache {
        &self.l2
    }

    /// The counters so far.
    pub fn stats(&self) -> &CoreStats {
        &self.stats
    }

    /// The counters, for what the core model does not see itself (TSR operations).
    pub fn stats_mut(&mut self) -> &mut CoreStats {
        &mut self.stats
    }
}
