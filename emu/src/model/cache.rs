// SPDX-License-Identifier: GPL-2.0-or-later
//! A set-associative cache *tag* model: which lines a cache holds, and in
//! what state, but not their bytes.
//!
//! The bytes of a cached line live in the core's view of memory (see
//! [`super::hierarchy`]); this model only decides hits, misses and victims,
//! so the plugin knows when to copy a line between the view and global
//! memory. Its shape follows QEMU's `contrib/plugins/cache.c` (sets,
//! associativity, block shift, set mask; a geometry refused up front with a
//! readable reason), with the eviction policy an enum chosen once at
//! construction instead of global function pointers, and an MPBT bit per
//! line so CL1INVMB can find the message-buffer lines.
//!
//! Lines are named by their core-physical base address (the address with
//! the low `log2(line)` bits clear): the SCC's caches work on physical
//! addresses (thesis 1.3), before the LUT.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// Size, associativity and line size of one cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Total bytes of data the cache holds.
    pub size: usize,
    /// Ways per set.
    pub assoc: usize,
    /// Bytes per line.
    pub line: usize,
}

impl Geometry {
    /// Number of sets; meaningful once [`Geometry::check`] passed.
    pub const fn sets(&self) -> usize {
        self.size / (self.assoc * self.line)
    }

    /// Number of lines the cache holds.
    pub const fn lines(&self) -> usize {
        self.size / self.line
    }

    /// Whether the geometry describes a cache this model can build; the
    /// error says why not, in the words of `cache.c`'s `cache_config_error`.
    pub fn check(&self) -> Result<(), GeometryError> {
        let g = *self;
        if g.line == 0 || !g.line.is_power_of_two() {
            return Err(GeometryError::LineSize(g));
        }
        if g.line < MIN_LINE {
            return Err(GeometryError::ShortLine(g));
        }
        if g.assoc == 0 {
            return Err(GeometryError::Assoc(g));
        }
        let set_bytes = g.assoc.checked_mul(g.line);
        if g.size == 0 || set_bytes.is_none_or(|s| !g.size.is_multiple_of(s)) {
            return Err(GeometryError::SetSize(g));
        }
        if !g.sets().is_power_of_two() {
            return Err(GeometryError::SetCount(g));
        }
        Ok(())
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bytes, {}-way, {}-byte lines",
            self.size, self.assoc, self.line
        )
    }
}

/// Why a [`Geometry`] cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// The line size is 0 or not a power of two.
    #[error("cache of {0}: the line size must be a power of two")]
    LineSize(Geometry),
    /// Lines shorter than [`MIN_LINE`] bytes.
    #[error("cache of {0}: the line size must be at least 8 bytes")]
    ShortLine(Geometry),
    /// No ways.
    #[error("cache of {0}: the associativity must be at least 1")]
    Assoc(Geometry),
    /// The size is 0 or not a multiple of `assoc * line`.
    #[error(
        "cache of {0}: the cache size must be a non-zero multiple of the set size (ways x line size)"
    )]
    SetSize(Geometry),
    /// The number of sets is not a power of two, so no address bits select a set.
    #[error("cache of {0}: the number of sets must be a power of two")]
    SetCount(Geometry),
}

/// Which line of a full set makes room for a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replacement {
    /// Least recently used: every hit and every fill makes a line the
    /// youngest; the oldest goes. What the P54C's 2-way L1 does exactly
    /// (one bit per set); see [`super::hierarchy::Config::SCC`] for why the
    /// model uses it for both SCC levels.
    Lru,
    /// First in, first out: hits do not matter, the line filled longest ago
    /// goes. Useful to show how much a program depends on LRU.
    Fifo,
}

/// What the model knows about a cached line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineState {
    /// Modified since it was filled: leaving the cache must write it back.
    pub dirty: bool,
    /// Filled from a message-buffer (PMB) page: CL1INVMB drops it.
    pub mpbt: bool,
}

/// A line that left the cache, with its state at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Victim {
    /// Base address of the line.
    pub line: u32,
    /// Its state when it left.
    pub state: LineState,
}

/// A way's tag ([`Cache`]): the base address of the line it holds, with
/// the line's state in the bits below (a line has at least
/// [`MIN_LINE`] bytes); 0 for a free way.
const TAG_VALID: u32 = 1;
const TAG_DIRTY: u32 = 2;
const TAG_MPBT: u32 = 4;
const TAG_FLAGS: u32 = TAG_VALID | TAG_DIRTY | TAG_MPBT;

/// Shortest line a [`Cache`] keeps: its tags hold a line's state below the
/// line's base address.
pub const MIN_LINE: usize = 8;

/// The tag of `line` in `state`.
#[inline(always)]
fn tag(line: u32, state: LineState) -> u32 {
    line | TAG_VALID
        | if state.dirty { TAG_DIRTY } else { 0 }
        | if state.mpbt { TAG_MPBT } else { 0 }
}

/// The state a (valid) tag holds.
#[inline(always)]
fn tag_state(tag: u32) -> LineState {
    LineState {
        dirty: tag & TAG_DIRTY != 0,
        mpbt: tag & TAG_MPBT != 0,
    }
}

/// The line a (valid) tag names.
#[inline(always)]
fn tag_line(tag: u32) -> u32 {
    tag & !TAG_FLAGS
}

/// One cache's tags. All memory is allocated in [`Cache::new`]; no method
/// allocates.
///
/// Ways are numbered set by set (set `s` has ways `s * assoc` to
/// `s * assoc + assoc - 1`), and each has a tag and a stamp in two arrays:
/// a lookup reads a set's tags, which lie side by side, and nothing else.
#[derive(Debug, Clone)]
pub struct Cache {
    geometry: Geometry,
    replacement: Replacement,
    line_shift: u32,
    set_mask: u32,
    /// Per way: its tag ([`tag`]), 0 if free.
    tags: Box<[u32]>,
    /// Per way: under LRU the tick of its line's last use, under FIFO of
    /// its fill; 0 if free (ticks start at 1).
    stamps: Box<[u64]>,
    tick: u64,
    mru: Option<Mru>,
}

/// Per set, the line a cache used last and its state, readable through a
/// shared handle without the cache ([`Cache::with_mru`]).
///
/// A load of that line, or a store to it, changes nothing in the cache's
/// order: it already is its set's most recently used line (under FIFO a
/// hit changes nothing anyway). A load changes no state either; a store
/// to a clean line makes it modified, which the table records in the
/// entry itself (marked, [`MruLines::hit`]), and the cache takes that mark
/// into its line before it next looks at the set (`Cache::absorb`). So
/// whoever finds an access here may skip the model and count an L1 hit:
/// the emulator's fast path for private memory. Lines filled from
/// message-buffer pages are never found (their loads and stores go
/// through the model). The entries are atomics only so that the handle
/// can live outside the model's lock; the one thread of a core uses both.
///
/// The entries lie in the table itself, so that a table kept at a fixed
/// address (a `static`, [`Cache::share_mru`]) is found without following
/// a pointer: what the fast path of every private access costs.
#[derive(Debug)]
pub struct MruLines {
    line_shift: u32,
    set_mask: u32,
    sets: [AtomicU32; MRU_MAX_SETS],
}

/// Most sets a cache with an MRU table may have ([`MruLines`] holds its
/// entries inline). The SCC core's L1 has 128.
pub const MRU_MAX_SETS: usize = 128;

/// An entry's flags, below the line's base address.
const MRU_VALID: u32 = 1;
const MRU_DIRTY: u32 = 2;
const MRU_MPBT: u32 = 4;
/// Made modified by [`MruLines::hit`], not yet taken into the cache's line.
const MRU_MARKED: u32 = 8;

impl MruLines {
    /// An empty table for a cache of `geometry`, which must have been
    /// checked ([`Geometry::check`]).
    ///
    /// # Panics
    ///
    /// If lines are shorter than 16 bytes (an entry keeps its flags below
    /// the line's base address), or there are more than [`MRU_MAX_SETS`]
    /// sets.
    pub const fn new(geometry: Geometry) -> Self {
        assert!(geometry.line >= 16, "MRU table: lines of at least 16 bytes");
        assert!(
            geometry.sets() <= MRU_MAX_SETS,
            "MRU table: at most MRU_MAX_SETS sets"
        );
        Self {
            line_shift: geometry.line.trailing_zeros(),
            set_mask: (geometry.sets() - 1) as u32,
            sets: [const { AtomicU32::new(0) }; MRU_MAX_SETS],
        }
    }

    /// The set of `addr`.
    #[inline(always)]
    fn set_of(&self, addr: u32) -> usize {
        // Within the table whatever the mask: no bounds check.
        ((addr >> self.line_shift) & self.set_mask) as usize % MRU_MAX_SETS
    }

    #[inline(always)]
    fn slot(&self, addr: u32) -> &AtomicU32 {
        &self.sets[self.set_of(addr)]
    }

    #[inline(always)]
    fn line_of(&self, addr: u32) -> u32 {
        addr & !((1u32 << self.line_shift) - 1)
    }

    /// Whether a load (or with `store`, a store) at `addr`, within one
    /// line, hits the set's most recently used line, which is not a
    /// message-buffer line. A store that hits a clean line makes it
    /// modified here, marked for the cache to take in (`Cache::absorb`):
    /// whoever counts the store as an L1 hit has then done all it does.
    #[inline(always)]
    pub fn hit(&self, addr: u32, store: bool) -> bool {
        self.hit_in_set(self.set_of(addr), self.line_of(addr), store)
    }

    /// [`MruLines::hit`] for an access to `line` (a line's base address),
    /// whose set the caller knows to be `set`.
    #[inline(always)]
    pub fn hit_in_set(&self, set: usize, line: u32, store: bool) -> bool {
        debug_assert_eq!(set, self.set_of(line), "the set of {line:#x}");
        let slot = &self.sets[set % MRU_MAX_SETS];
        let entry = slot.load(Ordering::Relaxed);
        let line = line | MRU_VALID;
        let found = entry & !(MRU_DIRTY | MRU_MARKED) == line;
        if store && found && entry & MRU_DIRTY == 0 {
            slot.store(line | MRU_DIRTY | MRU_MARKED, Ordering::Relaxed);
        }
        found
    }

    /// The line of set `set` that [`MruLines::hit`] made modified, if any,
    /// with the mark taken off.
    #[inline(always)]
    fn take_marked(&self, set: usize) -> Option<u32> {
        let slot = &self.sets[set];
        let entry = slot.load(Ordering::Relaxed);
        if entry & MRU_MARKED == 0 {
            return None;
        }
        slot.store(entry & !MRU_MARKED, Ordering::Relaxed);
        Some(self.line_of(entry))
    }

    /// The line of set `set` that [`MruLines::hit`] made modified and the
    /// cache has not taken in yet, if any.
    #[inline]
    fn marked(&self, set: usize) -> Option<u32> {
        let entry = self.sets[set].load(Ordering::Relaxed);
        (entry & MRU_MARKED != 0).then(|| self.line_of(entry))
    }

    /// `line` is now its set's most recently used line, in `state`.
    #[inline]
    fn note(&self, line: u32, state: LineState) {
        let flags = MRU_VALID
            | if state.dirty { MRU_DIRTY } else { 0 }
            | if state.mpbt { MRU_MPBT } else { 0 };
        self.slot(line).store(line | flags, Ordering::Relaxed);
    }

    /// Whether `line`'s set has it as its most recently used line.
    #[inline]
    fn names(&self, line: u32) -> bool {
        let entry = self.slot(line).load(Ordering::Relaxed);
        entry & MRU_VALID != 0 && self.line_of(entry) == line
    }

    /// `line` left the cache.
    fn forget(&self, line: u32) {
        if self.names(line) {
            self.slot(line).store(0, Ordering::Relaxed);
        }
    }
}

/// A cache's MRU table (a clone of the cache gets a copy of its own), and
/// per set the way its entry names, so that a mark is taken in without a
/// lookup.
#[derive(Debug)]
struct Mru {
    lines: MruTable,
    ways: Box<[u32]>,
}

/// Where a cache's MRU table lives.
#[derive(Debug)]
enum MruTable {
    /// Its own, handed out as [`Cache::mru`].
    Own(Arc<MruLines>),
    /// One its keeper holds at a fixed address ([`Cache::share_mru`]).
    Fixed(&'static MruLines),
}

impl std::ops::Deref for MruTable {
    type Target = MruLines;

    #[inline(always)]
    fn deref(&self) -> &MruLines {
        match self {
            MruTable::Own(table) => table,
            MruTable::Fixed(table) => table,
        }
    }
}

impl Mru {
    /// `line`, in way `way`, is now its set's most recently used line, in
    /// `state`.
    #[inline]
    fn note(&mut self, way: usize, line: u32, state: LineState) {
        let set = self.lines.set_of(line);
        self.ways[set] = way as u32;
        self.lines.note(line, state);
    }
}

impl Clone for Mru {
    fn clone(&self) -> Self {
        let table = &*self.lines;
        Self {
            lines: MruTable::Own(Arc::new(MruLines {
                line_shift: table.line_shift,
                set_mask: table.set_mask,
                sets: std::array::from_fn(|i| {
                    AtomicU32::new(table.sets[i].load(Ordering::Relaxed))
                }),
            })),
            ways: self.ways.clone(),
        }
    }
}

impl Cache {
    /// An empty cache, or the reason the geometry cannot be one.
    pub fn new(geometry: Geometry, replacement: Replacement) -> Result<Self, GeometryError> {
        geometry.check()?;
        Ok(Self {
            geometry,
            replacement,
            line_shift: geometry.line.trailing_zeros(),
            set_mask: (geometry.sets() - 1) as u32,
            tags: vec![0; geometry.lines()].into_boxed_slice(),
            stamps: vec![0; geometry.lines()].into_boxed_slice(),
            tick: 0,
            mru: None,
        })
    }

    /// The same cache, keeping an [`MruLines`] table of its sets.
    ///
    /// # Panics
    ///
    /// As [`MruLines::new`].
    pub fn with_mru(mut self) -> Self {
        self.mru = Some(Mru {
            lines: MruTable::Own(Arc::new(MruLines::new(self.geometry))),
            ways: vec![0; self.geometry.sets()].into_boxed_slice(),
        });
        self
    }

    /// The cache's own MRU table, if it keeps one ([`Cache::with_mru`]);
    /// none once it keeps it in a shared one ([`Cache::share_mru`]), whose
    /// keeper has it.
    pub fn mru(&self) -> Option<Arc<MruLines>> {
        match &self.mru.as_ref()?.lines {
            MruTable::Own(table) => Some(Arc::clone(table)),
            MruTable::Fixed(_) => None,
        }
    }

    /// From now on the cache keeps its MRU table in `table`, which takes
    /// the entries of the one it kept so far: for a caller that holds the
    /// table at a fixed address (a `static`), where its fast path finds an
    /// entry without following a pointer. No other cache may use `table`.
    ///
    /// # Panics
    ///
    /// If the cache keeps no MRU table ([`Cache::with_mru`]), or `table`
    /// was made for another geometry.
    pub fn share_mru(&mut self, table: &'static MruLines) {
        let mru = self.mru.as_mut().expect("the cache keeps an MRU table");
        assert!(
            (table.line_shift, table.set_mask) == (mru.lines.line_shift, mru.lines.set_mask),
            "MRU table for another geometry"
        );
        for (to, from) in table.sets.iter().zip(&mru.lines.sets) {
            to.store(from.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        mru.lines = MruTable::Fixed(table);
    }

    /// The geometry the cache was built with.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The replacement policy the cache was built with.
    pub fn replacement(&self) -> Replacement {
        self.replacement
    }

    /// Base address of the line holding `addr`.
    #[inline]
    pub fn line_of(&self, addr: u32) -> u32 {
        addr & !((1u32 << self.line_shift) - 1)
    }

    #[inline]
    fn set_of(&self, addr: u32) -> usize {
        ((addr >> self.line_shift) & self.set_mask) as usize
    }

    #[inline]
    fn set_range(&self, addr: u32) -> std::ops::Range<usize> {
        let set = self.set_of(addr);
        let a = self.geometry.assoc;
        set * a..set * a + a
    }

    /// Takes into the line it names the modified state that a store found
    /// in the MRU table gave it ([`MruLines::hit`]), for the set of `addr`.
    /// Every method that looks at or changes a set's lines calls it first.
    #[inline(always)]
    fn absorb(&mut self, addr: u32) {
        self.absorb_set(self.set_of(addr));
    }

    #[inline(always)]
    fn absorb_set(&mut self, set: usize) {
        if let Some(m) = &self.mru
            && let Some(line) = m.lines.take_marked(set)
        {
            // The entry names a line only while it holds it: the way it
            // was noted in.
            let tag = &mut self.tags[m.ways[set] as usize];
            debug_assert!(
                *tag & TAG_VALID != 0 && tag_line(*tag) == line,
                "MRU entry of set {set}"
            );
            *tag |= TAG_DIRTY;
        }
    }

    /// [`Cache::absorb`] for every set.
    fn absorb_all(&mut self) {
        if self.mru.is_some() {
            for set in 0..self.geometry.sets() {
                self.absorb_set(set);
            }
        }
    }

    /// The state of way `i`'s line, with the modified state a store found
    /// in the MRU table gave it and the cache has not taken in yet.
    #[inline]
    fn state(&self, i: usize) -> LineState {
        let line = tag_line(self.tags[i]);
        let mut state = tag_state(self.tags[i]);
        if let Some(m) = &self.mru
            && m.lines.marked(self.set_of(line)) == Some(line)
        {
            state.dirty = true;
        }
        state
    }

    /// The way holding the line of `addr`, if one does.
    #[inline]
    fn find(&self, addr: u32) -> Option<usize> {
        let want = self.line_of(addr) | TAG_VALID;
        let range = self.set_range(addr);
        let first = range.start;
        self.tags[range]
            .iter()
            .position(|&t| t & !(TAG_DIRTY | TAG_MPBT) == want)
            .map(|i| first + i)
    }

    #[inline]
    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Looks `addr` up as an access would: on a hit the line becomes the
    /// youngest (under LRU) and its state is returned.
    #[inline]
    pub fn access(&mut self, addr: u32) -> Option<LineState> {
        self.absorb(addr);
        let i = self.find(addr)?;
        let tag = self.tags[i];
        if self.replacement == Replacement::Lru {
            self.stamps[i] = self.next_tick();
            if let Some(m) = &mut self.mru {
                m.note(i, tag_line(tag), tag_state(tag));
            }
        }
        Some(tag_state(tag))
    }

    /// The state of the line holding `addr`, without counting as a use.
    pub fn peek(&self, addr: u32) -> Option<LineState> {
        self.find(addr).map(|i| self.state(i))
    }

    /// Whether the line holding `addr` is cached.
    #[inline]
    pub fn contains(&self, addr: u32) -> bool {
        self.find(addr).is_some()
    }

    /// Marks the cached line holding `addr` modified; false if it is not cached.
    /// Not a use: the replacement order does not change.
    #[inline]
    pub fn set_dirty(&mut self, addr: u32) -> bool {
        self.absorb(addr);
        match self.find(addr) {
            Some(i) => {
                self.tags[i] |= TAG_DIRTY;
                let tag = self.tags[i];
                if let Some(m) = &mut self.mru
                    && m.lines.names(tag_line(tag))
                {
                    m.note(i, tag_line(tag), tag_state(tag));
                }
                true
            }
            None => false,
        }
    }

    /// Puts the line holding `addr` into the cache with `state`, as the
    /// youngest line of its set; returns the line that had to make room.
    ///
    /// The line must not be cached already (the caller looked it up first).
    pub fn fill(&mut self, addr: u32, state: LineState) -> Option<Victim> {
        debug_assert!(!self.contains(addr), "{addr:#x} filled twice");
        self.absorb(addr);
        let range = self.set_range(addr);
        let first = range.start;
        // The first free way, else the first of the oldest: in one pass,
        // a free way's stamp (0) being older than any line's.
        let stamps = &self.stamps[range];
        let mut slot = 0;
        let mut oldest = stamps[0];
        for (i, &stamp) in stamps.iter().enumerate().skip(1) {
            if oldest == 0 {
                break;
            }
            if stamp < oldest {
                (slot, oldest) = (i, stamp);
            }
        }
        let slot = first + slot;
        let old = self.tags[slot];
        let line = self.line_of(addr);
        self.tags[slot] = tag(line, state);
        self.stamps[slot] = self.next_tick();
        if let Some(m) = &mut self.mru {
            m.note(slot, line, state);
        }
        (old != 0).then(|| Victim {
            line: tag_line(old),
            state: tag_state(old),
        })
    }

    /// Removes the line holding `addr`; its state, if it was cached.
    pub fn remove(&mut self, addr: u32) -> Option<LineState> {
        self.absorb(addr);
        let i = self.find(addr)?;
        let tag = self.tags[i];
        (self.tags[i], self.stamps[i]) = (0, 0);
        if let Some(m) = &self.mru {
            m.lines.forget(tag_line(tag));
        }
        Some(tag_state(tag))
    }

    /// Removes every line for which `select` is true, handing each to `gone`.
    pub fn remove_where(
        &mut self,
        mut select: impl FnMut(u32, LineState) -> bool,
        mut gone: impl FnMut(Victim),
    ) {
        self.absorb_all();
        for (tag, stamp) in self.tags.iter_mut().zip(self.stamps.iter_mut()) {
            let (line, state) = (tag_line(*tag), tag_state(*tag));
            if *tag != 0 && select(line, state) {
                (*tag, *stamp) = (0, 0);
                if let Some(m) = &self.mru {
                    m.lines.forget(line);
                }
                gone(Victim { line, state });
            }
        }
    }

    /// Every cached line with its state, in no particular order.
    pub fn lines(&self) -> impl Iterator<Item = Victim> + '_ {
        (0..self.tags.len())
            .filter(|&i| self.tags[i] != 0)
            .map(|i| Victim {
                line: tag_line(self.tags[i]),
                state: self.state(i),
            })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const TINY: Geometry = Geometry {
        size: 128,
        assoc: 2,
        line: 32,
    };

    fn clean() -> LineState {
        LineState::default()
    }

    #[test]
    fn bad_geometries_are_refused_with_the_reason() {
        let g = |size, assoc, line| Geometry { size, assoc, line };
        assert_eq!(
            g(128, 2, 24).check(),
            Err(GeometryError::LineSize(g(128, 2, 24)))
        );
        assert_eq!(
            g(16, 2, 4).check(),
            Err(GeometryError::ShortLine(g(16, 2, 4)))
        );
        assert_eq!(
            g(128, 0, 32).check(),
            Err(GeometryError::Assoc(g(128, 0, 32)))
        );
        assert_eq!(
            g(100, 2, 32).check(),
            Err(GeometryError::SetSize(g(100, 2, 32)))
        );
        assert_eq!(
            g(0, 2, 32).check(),
            Err(GeometryError::SetSize(g(0, 2, 32)))
        );
        assert_eq!(
            g(192, 2, 32).check(),
            Err(GeometryError::SetCount(g(192, 2, 32)))
        );
        assert!(Cache::new(g(100, 2, 32), Replacement::Lru).is_err());
        assert_eq!(
            GeometryError::SetSize(g(100, 2, 32)).to_string(),
            "cache of 100 bytes, 2-way, 32-byte lines: the cache size must be a non-zero multiple of the set size (ways x line size)"
        );
        assert_eq!(g(16384, 4, 32).check(), Ok(()));
        assert_eq!(g(16384, 4, 32).sets(), 128);
    }

    #[test]
    fn lru_evicts_the_least_recently_used_line_of_the_set() {
        let mut c = Cache::new(TINY, Replacement::Lru).unwrap();
        // Two sets of two ways: lines 0x00, 0x40, 0x80 share set 0.
        assert_eq!(c.fill(0x00, clean()), None);
        assert_eq!(c.fill(0x40, clean()), None);
        assert_eq!(c.fill(0x20, clean()), None); // set 1: no effect on set 0
        assert!(c.access(0x05).is_some()); // 0x00 is now younger than 0x40
        let v = c.fill(0x80, clean()).unwrap();
        assert_eq!(v.line, 0x40);
        assert!(c.contains(0x00) && c.contains(0x80) && c.contains(0x20));
    }

    #[test]
    fn fifo_ignores_hits() {
        let mut c = Cache::new(TINY, Replacement::Fifo).unwrap();
        c.fill(0x00, clean());
        c.fill(0x40, clean());
        c.access(0x00);
        assert_eq!(c.fill(0x80, clean()).unwrap().line, 0x00);
    }

    #[test]
    fn victims_carry_their_state_and_removal_frees_the_way() {
        let mut c = Cache::new(TINY, Replacement::Lru).unwrap();
        c.fill(
            0x00,
            LineState {
                dirty: false,
                mpbt: true,
            },
        );
        c.fill(0x40, clean());
        assert!(c.set_dirty(0x01));
        assert!(!c.set_dirty(0x1000));
        assert_eq!(
            c.fill(0x80, clean()),
            Some(Victim {
                line: 0x00,
                state: LineState {
                    dirty: true,
                    mpbt: true
                }
            })
        );
        assert_eq!(c.remove(0x40), Some(clean()));
        assert_eq!(
            c.fill(0xC0, clean()),
            None,
            "the removed line left a free way"
        );
        let mut gone = Vec::new();
        c.remove_where(|line, _| line == 0x80, |v| gone.push(v.line));
        assert_eq!(gone, [0x80]);
        assert_eq!(c.lines().count(), 1);
        assert_eq!(c.peek(0xC0), Some(clean()));
    }

    #[test]
    fn a_shared_mru_table_takes_over_from_the_own_one() {
        static TABLE: MruLines = MruLines::new(TINY);
        let mut c = Cache::new(TINY, Replacement::Lru).unwrap().with_mru();
        // Two sets of two ways: lines 0x00, 0x40, 0x80 share set 0.
        c.fill(0x00, clean());
        let own = c.mru().unwrap();
        assert!(own.hit(0x04, false));
        c.share_mru(&TABLE);
        assert!(c.mru().is_none(), "the keeper of the shared table has it");
        // The shared table took the entries; a store found there marks the
        // line modified, and the cache takes the mark in.
        assert!(TABLE.hit(0x08, true));
        c.fill(0x40, clean());
        assert!(TABLE.hit(0x44, false) && !own.hit(0x44, false));
        let victim = c.fill(0x80, clean()).unwrap();
        assert_eq!((victim.line, victim.state.dirty), (0x00, true));
        // A clone keeps a table of its own, a copy.
        let copy = c.clone();
        assert!(copy.mru().unwrap().hit(0x80, false));
    }

    #[test]
    #[should_panic(expected = "at most MRU_MAX_SETS sets")]
    fn an_mru_table_has_room_for_a_limited_number_of_sets() {
        let sets = MRU_MAX_SETS * 2;
        let geometry = Geometry {
            size: sets * 32,
            assoc: 1,
            line: 32,
        };
        let _ = Cache::new(geometry, Replacement::Lru).unwrap().with_mru();
    }

    /// The plainest cache there is: per set, a list of lines, youngest first.
    struct RefCache {
        sets: Vec<Vec<(u32, bool)>>,
        assoc: usize,
        lru: bool,
    }

    impl RefCache {
        fn set(&mut self, addr: u32) -> &mut Vec<(u32, bool)> {
            let n = self.sets.len() as u32;
            &mut self.sets[((addr / 32) % n) as usize]
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Access(u32),
        Fill(u32),
        Dirty(u32),
        Remove(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        let addr = 0u32..2048;
        prop_oneof![
            addr.clone().prop_map(Op::Access),
            addr.clone().prop_map(Op::Fill),
            addr.clone().prop_map(Op::Dirty),
            addr.prop_map(Op::Remove),
        ]
    }

    proptest! {
        /// Hits, victims and dirty bits agree with a list-per-set cache, for
        /// several geometries and both policies.
        #[test]
        fn tags_match_a_list_per_set_reference(
            assoc in prop::sample::select(vec![1usize, 2, 4]),
            sets in prop::sample::select(vec![1usize, 2, 8]),
            lru in any::<bool>(),
            ops in prop::collection::vec(op(), 1..300),
        ) {
            let geometry = Geometry { size: sets * assoc * 32, assoc, line: 32 };
            let policy = if lru { Replacement::Lru } else { Replacement::Fifo };
            let mut c = Cache::new(geometry, policy).unwrap();
            let mut r = RefCache { sets: vec![Vec::new(); sets], assoc, lru };
            for op in ops {
                match op {
                    Op::Access(a) => {
                        let line = a & !31;
                        let lru = r.lru;
                        let set = r.set(a);
                        let want = set.iter().position(|l| l.0 == line).map(|i| {
                            let l = if lru { set.remove(i) } else { set[i] };
                            if lru { set.insert(0, l); }
                            l.1
                        });
                        prop_assert_eq!(c.access(a).map(|s| s.dirty), want);
                    }
                    Op::Fill(a) => {
                        let line = a & !31;
                        if c.contains(a) { continue; }
                        let assoc = r.assoc;
                        let set = r.set(a);
                        let want = (set.len() == assoc).then(|| set.pop().unwrap());
                        set.insert(0, (line, false));
                        let got = c.fill(a, clean()).map(|v| (v.line, v.state.dirty));
                        prop_assert_eq!(got, want);
                    }
                    Op::Dirty(a) => {
                        let line = a & !31;
                        let set = r.set(a);
                        let found = set.iter_mut().find(|l| l.0 == line).map(|l| l.1 = true).is_some();
                        prop_assert_eq!(c.set_dirty(a), found);
                    }
                    Op::Remove(a) => {
                        let line = a & !31;
                        let set = r.set(a);
                        let want = set.iter().position(|l| l.0 == line).map(|i| set.remove(i).1);
                        prop_assert_eq!(c.remove(a).map(|s| s.dirty), want);
                    }
                }
            }
        }
    }
}
