// SPDX-License-Identifier: MIT OR Apache-2.0
//! Windows: memory of each core that the others may put into and get
//! from, created collectively by every rank of a communicator.
//!
//! [`Rma`] is one core's one-sided state: the communicator it synchronises
//! with, its POPSHM (the shareable DRAM pages it owns, thesis 4.5), the
//! free LUT entries it maps other cores' POPSHM through, and its windows.
//! A window is reached through a [`Window`] handle, typed by its element
//! ([`Element`]: `u8` for byte windows); all calls go through [`Rma`].
//!
//! - Memory: [`Rma::alloc_mem`] takes window memory from the POPSHM with a
//!   bump allocator (4 KiB aligned, so each window has pages of its own
//!   memory type); [`Rma::free_mem`] gives it back only when it lies on top.
//!   [`Rma::allocate`] does both for one window, [`Rma::create`] makes a
//!   window on memory from `alloc_mem`.
//! - Memory types: [`WindowOptions`]: the type this core maps its own
//!   window with and the type origins map it with; MPBT-WT by default, as
//!   in the thesis. See [`crate::coherence`] for what each type costs.
//! - The window database ([`database`]): each core publishes its POPSHM
//!   location in the LSM of its own controller and, per window,
//!   `{offset, size, disp_unit}` and the synchronisation data of PSCW and
//!   locks in a record, at its own controller (distributed, the default)
//!   or at controller 0 (centralized), as the window's options say.
//!   Creating a window exchanges only where each core's record lies.
//! - Remote windows are mapped on first use through the free LUT entries,
//!   one 16 MiB page per entry, with least-used eviction ([`slots`]).
//! - Dynamic windows ([`dynamic`]): [`Rma::create_dynamic`] makes a window
//!   without memory; each rank attaches memory from `alloc_mem` to its
//!   part and detaches it, locally ([`Rma::attach`], [`Rma::detach`]),
//!   and others reach it by address ([`Rma::address`]: its offset in the
//!   rank's POPSHM).
//! - Communicators: [`Rma::allocate`], [`Rma::create`] and
//!   [`Rma::allocate_shared`] make a window over the communicator `Rma`
//!   was made with; [`Rma::allocate_on`], [`Rma::create_on`] and
//!   [`Rma::allocate_shared_on`] over any communicator of this core
//!   ([`Comm::split`], [`Comm::create`]). Such a window spans that
//!   communicator's ranks only: its target ranks are ranks of the
//!   communicator, translated once, at creation, to core ids and POPSHM
//!   locations; its fences and its free synchronise those ranks only,
//!   through a duplicate of the communicator the window keeps (as MPI
//!   implementations do), so the program's own messages and collectives on
//!   the communicator never meet the window's.
#![forbid(unsafe_code)]

#[cfg(test)]
mod comm_tests;
pub mod database;
pub mod dynamic;
#[cfg(test)]
mod dynamic_tests;
mod local;
pub mod slots;
#[cfg(test)]
mod tests;

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use chip::{CoreId, EntryRange, LUT_PAGE_SIZE, MemoryType};
use database::{Database, Record, WindowInfo};
use slots::Slots;

pub use local::LocalView;

use crate::RmaError;
use crate::coherence::Coherence;
use crate::comm::{Comm, Element, Group};
use crate::epoch::{AccessEpoch, Check, ExposureEpoch};
use crate::hal::{DramPages, RmaHal};
use crate::passive::LockScheme;
use crate::stats::WindowStats;

/// Alignment of window memory: a page, the unit memory types apply to.
pub const MEMORY_ALIGN: u32 = 4096;

/// Memory from [`Rma::alloc_mem`], for [`Rma::create`] and
/// [`Rma::attach`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    id: u32,
    len: u32,
}

impl Memory {
    /// Bytes.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether it holds no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The handle's number, as errors name it.
    pub fn id(&self) -> u32 {
        self.id
    }
}

/// A window of elements `T`, as a handle into [`Rma`].
pub struct Window<T> {
    id: u32,
    _element: PhantomData<fn() -> T>,
}

impl<T> Window<T> {
    /// The handle's number, as errors name it.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The same window with its memory taken as elements `U` (MPI's
    /// windows are untyped memory); displacements still count its unit.
    pub fn retype<U>(self) -> Window<U> {
        Window {
            id: self.id,
            _element: PhantomData,
        }
    }
}

impl<T> Clone for Window<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Window<T> {}

impl<T> PartialEq for Window<T> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl<T> fmt::Debug for Window<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Window({})", self.id)
    }
}

/// How a window is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowOptions {
    /// Bytes per displacement; `None` for the element's size.
    pub disp_unit: Option<u32>,
    /// The type this core maps its own window with (the thesis's
    /// `RCKMPI_LOCAL_MAP_MODE`).
    pub local_type: MemoryType,
    /// The type this core maps other cores' windows with
    /// (`RCKMPI_REMOTE_MAP_MODE`).
    pub remote_type: MemoryType,
    /// Whether synchronisation performs the coherence actions.
    pub coherence: Coherence,
    /// How passive-target locks are taken.
    pub lock_scheme: LockScheme,
    /// Where the window's records (description, PSCW and lock data) lie.
    pub database: Database,
    /// MPI's `no_locks` info key: the window is never locked, so its lock
    /// words are not set up, and lock and lock_all are refused.
    pub no_locks: bool,
    /// MPI's `accumulate_ordering` info key: the orderings of
    /// accumulate-family calls from one origin to one target location the
    /// program relies on. rma keeps all four whatever it says: each call
    /// runs whole under its target's guard, in the order the origin made
    /// the calls.
    pub accumulate_ordering: AccumulateOrdering,
    /// MPI's `accumulate_ops` info key: which operations concurrent
    /// accumulate-family calls to one target location use. rma makes any
    /// mix atomic (the guard), so it needs neither promise.
    pub accumulate_ops: AccumulateOps,
    /// MPI's `alloc_shared_noncontig` info key, for
    /// [`Rma::allocate_shared`]: `false` (the default, as in MPI) puts
    /// every rank's part in one block of rank 0's POPSHM, each part where
    /// the previous rank's ends, so a process reaching them by address
    /// finds them contiguous (the whole window behind rank 0's memory
    /// controller); `true` puts each part in its own rank's POPSHM,
    /// behind that rank's controller.
    pub alloc_shared_noncontig: bool,
}

/// MPI's `accumulate_ordering` info key: orderings of accumulate-family
/// calls from one origin to one target location, as read-after-read,
/// read-after-write, write-after-read and write-after-write; they combine
/// with `|`. [`AccumulateOrdering::NONE`] is MPI's `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AccumulateOrdering(u8);

impl AccumulateOrdering {
    /// `none`: no ordering is relied on.
    pub const NONE: Self = Self(0);
    /// `rar`: a read after a read.
    pub const RAR: Self = Self(1);
    /// `raw`: a read after a write.
    pub const RAW: Self = Self(2);
    /// `war`: a write after a read.
    pub const WAR: Self = Self(4);
    /// `waw`: a write after a write.
    pub const WAW: Self = Self(8);
    /// `rar,raw,war,waw`, MPI's default.
    pub const ALL: Self = Self(15);

    /// Whether every ordering of `other` is relied on.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// The key's value as MPI writes it (`rar,raw,war,waw`, or `none`).
    pub fn value(self) -> alloc::string::String {
        let names = [
            (Self::RAR, "rar"),
            (Self::RAW, "raw"),
            (Self::WAR, "war"),
            (Self::WAW, "waw"),
        ];
        let kept: Vec<&str> = names
            .iter()
            .filter(|(o, _)| self.contains(*o))
            .map(|(_, name)| *name)
            .collect();
        if kept.is_empty() {
            "none".into()
        } else {
            kept.join(",")
        }
    }
}

impl Default for AccumulateOrdering {
    fn default() -> Self {
        Self::ALL
    }
}

impl core::ops::BitOr for AccumulateOrdering {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

/// MPI's `accumulate_ops` info key: what concurrent accumulate-family
/// calls to one target location may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AccumulateOps {
    /// `same_op_no_op`, MPI's default: the same operation, or `MPI_NO_OP`.
    #[default]
    SameOpNoOp,
    /// `same_op`: the same operation only.
    SameOp,
}

impl AccumulateOps {
    /// The key's value as MPI writes it.
    pub const fn value(self) -> &'static str {
        match self {
            Self::SameOpNoOp => "same_op_no_op",
            Self::SameOp => "same_op",
        }
    }
}

impl Default for WindowOptions {
    fn default() -> Self {
        Self {
            disp_unit: None,
            local_type: MemoryType::MpbtWt,
            remote_type: MemoryType::MpbtWt,
            coherence: Coherence::Enabled,
            lock_scheme: LockScheme::GbhBackoff,
            database: Database::Distributed,
            no_locks: false,
            accumulate_ordering: AccumulateOrdering::ALL,
            accumulate_ops: AccumulateOps::SameOpNoOp,
            alloc_shared_noncontig: false,
        }
    }
}

impl WindowOptions {
    /// MPBT-WT mappings, the element size as displacement unit, coherence
    /// on, GBH with back-off for locks, the distributed database.
    pub fn new() -> Self {
        Self::default()
    }

    /// Maps the window with `ty`, locally and remotely.
    pub fn memory_type(self, ty: MemoryType) -> Self {
        Self {
            local_type: ty,
            remote_type: ty,
            ..self
        }
    }

    /// Sets the displacement unit in bytes.
    pub fn disp_unit(self, bytes: u32) -> Self {
        Self {
            disp_unit: Some(bytes),
            ..self
        }
    }

    /// Sets whether synchronisation performs the coherence actions.
    pub fn coherence(self, coherence: Coherence) -> Self {
        Self { coherence, ..self }
    }

    /// Sets how passive-target locks are taken.
    pub fn lock_scheme(self, lock_scheme: LockScheme) -> Self {
        Self {
            lock_scheme,
            ..self
        }
    }

    /// Sets where the window's records lie.
    pub fn database(self, database: Database) -> Self {
        Self { database, ..self }
    }

    /// Sets MPI's `no_locks` info key: with `true` the window is never
    /// locked (passive-target epochs are refused) and its lock words are
    /// not set up.
    pub fn no_locks(self, no_locks: bool) -> Self {
        Self { no_locks, ..self }
    }

    /// Sets MPI's `accumulate_ordering` info key
    /// ([`WindowOptions::accumulate_ordering`]).
    pub fn accumulate_ordering(self, accumulate_ordering: AccumulateOrdering) -> Self {
        Self {
            accumulate_ordering,
            ..self
        }
    }

    /// Sets MPI's `alloc_shared_noncontig` info key
    /// ([`WindowOptions::alloc_shared_noncontig`]).
    pub fn alloc_shared_noncontig(self, alloc_shared_noncontig: bool) -> Self {
        Self {
            alloc_shared_noncontig,
            ..self
        }
    }

    /// Sets MPI's `accumulate_ops` info key
    /// ([`WindowOptions::accumulate_ops`]).
    pub fn accumulate_ops(self, accumulate_ops: AccumulateOps) -> Self {
        Self {
            accumulate_ops,
            ..self
        }
    }
}

/// How a window's memory came to be (`MPI_WIN_CREATE_FLAVOR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// [`Rma::allocate`] took it with the window (`MPI_WIN_FLAVOR_ALLOCATE`).
    Allocate,
    /// [`Rma::create`] was given it (`MPI_WIN_FLAVOR_CREATE`).
    Create,
    /// [`Rma::allocate_shared`] took it, and every process loads and
    /// stores every part directly (`MPI_WIN_FLAVOR_SHARED`).
    Shared,
    /// [`Rma::create_dynamic`] made the window without memory; each
    /// process attaches memory to its part and detaches it
    /// (`MPI_WIN_FLAVOR_DYNAMIC`).
    Dynamic,
}

impl Flavor {
    /// Whether the window took its memory, and frees it with itself.
    pub const fn owns_memory(self) -> bool {
        matches!(self, Self::Allocate | Self::Shared)
    }
}

/// Where a part of a window stays mapped ([`Rma::pin_part`]):
/// `len` bytes from byte `offset` of the mapping that starts at LUT entry
/// `slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalMapping {
    /// The LUT entry (the platform maps entry `e` at `e` × 16 MiB).
    pub slot: u8,
    /// Where the part starts in the entry's page.
    pub offset: u32,
    /// Its bytes.
    pub len: u32,
}

/// A process's part of a shared window, as [`Rma::shared_query`] gives it
/// (`MPI_Win_shared_query`): reached with [`Rma::shared_load`] and
/// [`Rma::shared_store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedPart {
    /// Whose part.
    pub rank: u32,
    /// Its bytes.
    pub size: u32,
    /// Its displacement unit.
    pub disp_unit: u32,
}

/// How a window's public and private copies relate (`MPI_WIN_MODEL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryModel {
    /// `MPI_WIN_SEPARATE`: what a core caches or buffers of the window is
    /// private until a synchronisation call reconciles it
    /// ([`crate::coherence`]).
    Separate,
    /// `MPI_WIN_UNIFIED`: one copy; an NCM window, which nothing caches.
    Unified,
}

/// A window's attributes as MPI's `MPI_Win_get_attr` gives them, for this
/// core's part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowAttributes {
    /// Bytes of this core's part (`MPI_WIN_SIZE`); 0 for a dynamic window,
    /// as in MPI, whatever memory is attached.
    pub size: u32,
    /// Bytes per displacement of this core's part (`MPI_WIN_DISP_UNIT`); 1
    /// for a dynamic window, whose displacements are addresses.
    pub disp_unit: u32,
    /// How the memory came to be (`MPI_WIN_CREATE_FLAVOR`).
    pub flavor: Flavor,
    /// The memory model (`MPI_WIN_MODEL`).
    pub model: MemoryModel,
    /// Where this core's part lies in the POPSHM holding it (its own, or
    /// rank 0's for a contiguous shared window), in bytes (MPI's
    /// `MPI_WIN_BASE` is an address; window memory here is reached through
    /// rma's calls, so its place is given instead). 0 for a dynamic window:
    /// its displacements count from the POPSHM's first byte, as MPI's
    /// count from `MPI_BOTTOM`, its `MPI_WIN_BASE`.
    pub offset: u32,
}

/// One rank's part of a window, as this core knows it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Remote {
    pub record: Record,
    pub info: WindowInfo,
}

/// The ranks of a window: its communicator's, translated once, when the
/// window is made.
#[derive(Debug, Clone)]
pub(crate) struct Ranks {
    /// This core's rank in the window.
    pub rank: u32,
    /// World rank of each rank.
    pub world: Vec<u32>,
    /// Core of each rank.
    pub cores: Vec<CoreId>,
    /// POPSHM of each rank.
    pub popshm: Vec<DramPages>,
}

impl Ranks {
    /// Number of ranks.
    pub fn size(&self) -> u32 {
        self.cores.len() as u32
    }
}

/// One window, as this core keeps it.
#[derive(Debug)]
pub(crate) struct WindowState {
    /// Its ranks.
    pub ranks: Ranks,
    /// The memory of this core's part; `None` for a dynamic window.
    pub memory: Option<u32>,
    /// How its memory came to be: it owns it unless it was given it.
    pub flavor: Flavor,
    pub options: WindowOptions,
    /// Every rank's part, this core's included.
    pub remotes: Vec<Remote>,
    pub access: AccessEpoch,
    pub exposure: ExposureEpoch,
    /// The local cacheable copy of this core's match vector: targets whose
    /// post was seen in the current access epoch.
    pub seen: Vec<u32>,
    /// Lists of ranks ended epochs left, for the next ones.
    pub spare: crate::epoch::Spare,
    pub stats: WindowStats,
    /// Request-based operations not yet waited for.
    pub requests: crate::request::Requests,
    /// A dynamic window's attachments, this core's and others'.
    pub dynamic: Option<dynamic::Dynamic>,
    /// The mappings of parts pinned by [`Rma::pin_part`]: the controller,
    /// page and memory type each maps.
    pub pinned: Vec<(usize, u16, MemoryType)>,
}

#[derive(Debug, Clone, Copy)]
struct MemoryState {
    /// Where it lies in the POPSHM that holds it.
    offset: u32,
    /// Bytes asked for.
    size: u32,
    /// Bytes of this core's POPSHM the bump allocator holds for it from
    /// `offset` on: `size` (rounded up to [`MEMORY_ALIGN`]), or, for
    /// rank 0's part of a contiguous shared window, the whole window's.
    reserved: u32,
    /// The core whose POPSHM holds it, and that POPSHM, if not this
    /// core's: a part of a contiguous shared window of another rank 0.
    /// This core's allocator holds none of it.
    home: Option<(CoreId, DramPages)>,
    /// A window made on it.
    window: Option<u32>,
    /// The window that allocated it was freed while another window
    /// spanned it: it is freed with the last window over it.
    orphaned: bool,
    /// The mapping [`Rma::pin_memory`] pinned for it: controller, page and
    /// memory type.
    pinned: Option<(usize, u16, MemoryType)>,
}

/// One core's one-sided communication: the communicator, its POPSHM, the
/// LUT entries it maps windows through, and its windows.
#[derive(Debug)]
pub struct Rma<'h, H: RmaHal> {
    pub(crate) hal: &'h H,
    pub(crate) comm: Comm<'h, H>,
    popshm: DramPages,
    /// Per window, the communicator it synchronises over when it is not
    /// `comm`: its own duplicate of the one it was made on.
    window_comms: Vec<Option<Comm<'h, H>>>,
    next_free: u32,
    memories: Vec<Option<MemoryState>>,
    pub(crate) windows: Vec<Option<WindowState>>,
    pub(crate) slots: Slots,
    /// Records of freed windows, for reuse by windows whose placement
    /// puts the record at the same controller.
    free_records: Vec<Record>,
    /// Mappings undone outside any window's accesses.
    other: WindowStats,
    /// Whether a get may have left lines of a target's window in this
    /// core's L1 since this layer last ran CL1INVMB: the next get drops
    /// them first ([`Rma::fresh_get`](crate::ops)).
    pub(crate) remote_lines: bool,
}

impl<'h, H: RmaHal> Rma<'h, H> {
    /// One-sided communication over `comm`, collectively on its ranks:
    /// publishes this core's POPSHM in the window database and checks
    /// every other rank's after a barrier. `comm` is the communicator of
    /// [`Rma::allocate`] and the other calls without a communicator; any
    /// communicator of this core whose ranks all made an `Rma` serves
    /// [`Rma::allocate_on`] and its kin.
    ///
    /// Return values: `Err(NoMemory)` if the chip has more cores than the
    /// database has room for; `Err(Database)` if a rank's POPSHM entry is
    /// missing (it did not call `new`).
    pub fn new(mut comm: Comm<'h, H>) -> Result<Self, RmaError> {
        let hal = comm.hal();
        database::check_fits(hal.chip(), hal.cores())?;
        let popshm = hal.popshm();
        database::publish_popshm(hal, popshm);
        comm.barrier();
        for rank in 0..comm.size() {
            database::read_popshm(hal, comm.core(rank)?)?;
        }
        Ok(Self {
            hal,
            comm,
            popshm,
            window_comms: Vec::new(),
            next_free: 0,
            memories: Vec::new(),
            windows: Vec::new(),
            slots: Slots::new(hal.chip().address_map.shareable),
            free_records: Vec::new(),
            other: WindowStats::default(),
            remote_lines: false,
        })
    }

    /// The communicator, for two-sided calls between one-sided ones.
    pub fn comm(&mut self) -> &mut Comm<'h, H> {
        &mut self.comm
    }

    /// This core's rank in the communicator `Rma` was made with.
    pub fn rank(&self) -> u32 {
        self.comm.rank()
    }

    /// Number of ranks of the communicator `Rma` was made with.
    pub fn size(&self) -> u32 {
        self.comm.size()
    }

    /// The communicator window `id` synchronises over.
    pub(crate) fn window_comm(&mut self, id: u32) -> &mut Comm<'h, H> {
        match self
            .window_comms
            .get_mut(id as usize)
            .and_then(Option::as_mut)
        {
            Some(comm) => comm,
            None => &mut self.comm,
        }
    }

    /// Window `id`'s ranks.
    pub(crate) fn ranks(&self, id: u32) -> &Ranks {
        &self.window(id).expect("callers checked the window").ranks
    }

    /// This core's rank in window `id`.
    pub(crate) fn window_rank(&self, id: u32) -> u32 {
        self.ranks(id).rank
    }

    /// Number of ranks of window `id`.
    pub(crate) fn window_size(&self, id: u32) -> u32 {
        self.ranks(id).size()
    }

    /// The core of rank `rank` of window `id`.
    pub(crate) fn core_of(&self, id: u32, rank: u32) -> CoreId {
        self.ranks(id).cores[rank as usize]
    }

    /// The platform.
    pub fn hal(&self) -> &'h H {
        self.hal
    }

    /// This core's POPSHM.
    pub fn popshm(&self) -> DramPages {
        self.popshm
    }

    /// Bytes of POPSHM not yet handed out.
    pub fn popshm_left(&self) -> u64 {
        self.popshm.bytes() - u64::from(self.next_free)
    }

    /// Restricts the LUT entries rma maps windows through to `range`
    /// (e.g. to leave some to the program, or to see eviction at work).
    /// Everything mapped so far is unmapped.
    ///
    /// Return values: `Err(BadLayout)` if `range` is not inside the chip's
    /// free entries.
    pub fn set_lut_entries(&mut self, range: EntryRange) -> Result<(), RmaError> {
        let free = self.hal.chip().address_map.shareable;
        if !(free.contains(range.first) && free.contains(range.last) && range.first <= range.last) {
            return Err(RmaError::BadLayout {
                what: "LUT entries for windows",
                problem: "not inside the chip's free entries",
            });
        }
        self.slots.clear(self.hal, &mut self.other);
        self.slots = Slots::new(range);
        Ok(())
    }

    /// LUT entries now holding a window mapping.
    pub fn lut_entries_in_use(&self) -> usize {
        self.slots.in_use()
    }

    /// Takes `bytes` of this core's POPSHM for a window (`MPI_Alloc_mem`).
    ///
    /// Return values: `Err(NoMemory)` if the POPSHM has not that much left.
    pub fn alloc_mem(&mut self, bytes: u32) -> Result<Memory, RmaError> {
        let offset = self.next_free;
        let end = u64::from(offset) + u64::from(bytes).next_multiple_of(MEMORY_ALIGN.into());
        if end > self.popshm.bytes() {
            return Err(RmaError::NoMemory {
                what: "POPSHM bytes",
                requested: bytes.into(),
                available: self.popshm_left(),
            });
        }
        self.next_free = end as u32;
        let id = self.memories.len() as u32;
        self.memories.push(Some(MemoryState {
            offset,
            size: bytes,
            reserved: bytes,
            home: None,
            window: None,
            orphaned: false,
            pinned: None,
        }));
        Ok(Memory { id, len: bytes })
    }

    /// Gives memory back (`MPI_Free_mem`). As in the thesis, the bump
    /// allocator reuses it only once everything above it is freed too.
    ///
    /// Return values: `Err(UnknownMemory)` if it was freed already;
    /// `Err(MemoryInUse)` while a window uses it or it is attached to a
    /// dynamic window.
    pub fn free_mem(&mut self, memory: Memory) -> Result<(), RmaError> {
        let state = self.memory(memory.id)?;
        if let Some(window) = state.window.or_else(|| self.attached_to(memory.id)) {
            return Err(RmaError::MemoryInUse {
                memory: memory.id,
                window,
            });
        }
        if let Some((controller, page, ty)) = state.pinned {
            self.slots.unpin(controller, page, ty);
        }
        self.memories[memory.id as usize] = None;
        self.next_free = self
            .memories
            .iter()
            .flatten()
            .filter(|m| m.home.is_none())
            .map(|m| m.offset + m.reserved.next_multiple_of(MEMORY_ALIGN))
            .max()
            .unwrap_or(0);
        Ok(())
    }

    /// Reads `buf.len()` bytes of `memory` from byte `offset`, as the
    /// program's loads of memory it allocated (`MPI_Alloc_mem`) and no
    /// window uses: before a window is made on it, or after the window is
    /// freed (legal MPI). Uncached (NCM), so it reads what memory holds.
    /// Memory attached to a dynamic window is read and written with these
    /// calls too, as MPI's loads and stores of it (the separate model's
    /// rules apply: another process's accesses show after the
    /// synchronisation that completes them).
    ///
    /// Return values: `Err(UnknownMemory)` once freed; `Err(MemoryInUse)`
    /// while a window made on it uses it (its calls reach it then, e.g.
    /// [`Rma::local_read`]); `Err(MemoryRange)` past its end.
    pub fn memory_read(
        &mut self,
        memory: Memory,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<(), RmaError> {
        let len = buf.len();
        self.memory_pieces(
            "memory_read",
            memory,
            offset,
            len,
            |hal, slot, at, pos, n| {
                hal.shared_read(slot, at, &mut buf[pos..pos + n]);
            },
        )
    }

    /// Writes `data` into `memory` from byte `offset`, as the program's
    /// stores (see [`Rma::memory_read`]): uncached, so a window made on it
    /// afterwards finds them in memory.
    ///
    /// Return values: as [`Rma::memory_read`].
    pub fn memory_write(
        &mut self,
        memory: Memory,
        offset: u32,
        data: &[u8],
    ) -> Result<(), RmaError> {
        let len = data.len();
        self.memory_pieces(
            "memory_write",
            memory,
            offset,
            len,
            |hal, slot, at, pos, n| {
                hal.shared_write(slot, at, &data[pos..pos + n]);
            },
        )
    }

    /// Visits `len` bytes of `memory` from byte `offset`, mapped uncached,
    /// as [`pieces_of`] does, if they lie inside it and no window uses it.
    fn memory_pieces(
        &mut self,
        call: &'static str,
        memory: Memory,
        offset: u32,
        len: usize,
        visit: impl FnMut(&H, u8, u32, usize, usize),
    ) -> Result<(), RmaError> {
        let state = self.memory(memory.id)?;
        if let Some(window) = state.window {
            return Err(RmaError::MemoryInUse {
                memory: memory.id,
                window,
            });
        }
        if u64::from(offset) + len as u64 > u64::from(state.size) {
            return Err(RmaError::MemoryRange {
                call,
                memory: memory.id,
                offset,
                len: len as u64,
                size: state.size,
            });
        }
        let base = u64::from(state.offset) + u64::from(offset);
        let mut stats = WindowStats::default();
        pieces_of(
            self.hal,
            &mut self.slots,
            state.home.map_or(self.popshm, |(_, popshm)| popshm),
            (base, len),
            MemoryType::Ncm,
            &mut stats,
            visit,
        )
    }

    fn memory(&self, id: u32) -> Result<MemoryState, RmaError> {
        self.memories
            .get(id as usize)
            .copied()
            .flatten()
            .ok_or(RmaError::UnknownMemory { memory: id })
    }

    /// Allocates `len` elements of this core's POPSHM and makes them a
    /// window, collectively (`MPI_Win_allocate`). Sizes may differ between
    /// ranks. The memory is freed with the window.
    ///
    /// Return values: as [`Rma::create`], plus `Err(NoMemory)` if the
    /// POPSHM is exhausted.
    pub fn allocate<T: Element>(
        &mut self,
        len: u32,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.allocate_as(None, len, options, Flavor::Allocate)
    }

    /// [`Rma::allocate`] over `comm`, collectively on its ranks: the
    /// window spans them only, its target ranks are `comm`'s ranks, and
    /// its fences and free synchronise them only (through a duplicate of
    /// `comm` the window keeps, so `comm` may be used and freed as before).
    /// Ranks outside `comm` take no part. Windows on disjoint
    /// communicators may be made and used at the same time.
    ///
    /// Return values: as [`Rma::allocate`]; `Err(Database)` if a rank of
    /// `comm` has made no `Rma`; `Err(NoContext)` if `comm` cannot be
    /// duplicated.
    pub fn allocate_on<T: Element>(
        &mut self,
        comm: &mut Comm<'h, H>,
        len: u32,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.allocate_as(Some(comm), len, options, Flavor::Allocate)
    }

    /// [`Rma::allocate_shared`] over `comm`, as [`Rma::allocate_on`] is
    /// [`Rma::allocate`] over it: the processes of `comm` share the window.
    ///
    /// Return values: as [`Rma::allocate_on`].
    pub fn allocate_shared_on<T: Element>(
        &mut self,
        comm: &mut Comm<'h, H>,
        len: u32,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.allocate_as(Some(comm), len, options, Flavor::Shared)
    }

    /// [`Rma::create`] over `comm`, as [`Rma::allocate_on`] is
    /// [`Rma::allocate`] over it.
    ///
    /// Return values: as [`Rma::create`] and [`Rma::allocate_on`].
    pub fn create_on<T: Element>(
        &mut self,
        comm: &mut Comm<'h, H>,
        memory: Memory,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.create_window(
            "create",
            Some(comm),
            Ok(Some(memory)),
            Flavor::Create,
            options,
        )
    }

    /// [`Rma::allocate`] or [`Rma::allocate_shared`], as `flavor` says,
    /// over `comm` or the communicator `Rma` was made with.
    fn allocate_as<T: Element>(
        &mut self,
        comm: Option<&mut Comm<'h, H>>,
        len: u32,
        options: WindowOptions,
        flavor: Flavor,
    ) -> Result<Window<T>, RmaError> {
        let bytes = u64::from(len) * T::BYTES as u64;
        let bytes = u32::try_from(bytes).map_err(|_| RmaError::NoMemory {
            what: "POPSHM bytes",
            requested: bytes,
            available: self.popshm_left(),
        });
        if flavor == Flavor::Shared && !options.alloc_shared_noncontig {
            return self.allocate_contiguous(comm, bytes, options);
        }
        let memory = bytes.and_then(|bytes| self.alloc_mem(bytes)).map(Some);
        let call = match flavor {
            Flavor::Shared => "allocate_shared",
            Flavor::Allocate | Flavor::Create | Flavor::Dynamic => "allocate",
        };
        self.create_window(call, comm, memory, flavor, options)
    }

    /// [`Rma::allocate_shared`] without `alloc_shared_noncontig`: rank 0
    /// of `comm` (or of the communicator `Rma` was made with) takes one
    /// block of its POPSHM for every rank's `bytes`, and each rank's part
    /// is the slice of it after the lower ranks' parts. Collective: the
    /// sizes are gathered first, then where the block lies (or that rank 0
    /// failed to take it).
    fn allocate_contiguous<T: Element>(
        &mut self,
        mut comm: Option<&mut Comm<'h, H>>,
        bytes: Result<u32, RmaError>,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        const CALL: &str = "allocate_shared";
        // Every rank's size, or that it failed here (first word 0).
        let mine = match &bytes {
            Ok(b) => [1u32.to_le_bytes(), b.to_le_bytes()].concat(),
            Err(_) => alloc::vec![0; 8],
        };
        let words = |all: &[u8]| -> Vec<(bool, u32)> {
            all.chunks_exact(8)
                .map(|c| {
                    let word = |i: usize| u32::from_le_bytes(c[i..i + 4].try_into().expect("4"));
                    (word(0) != 0, word(4))
                })
                .collect()
        };
        let gather = |rma: &mut Self, comm: &mut Option<&mut Comm<'h, H>>, mine: &[u8]| {
            let c: &mut Comm<'h, H> = match comm {
                Some(c) => c,
                None => &mut rma.comm,
            };
            let mut all = alloc::vec![0; mine.len() * c.size() as usize];
            c.allgather(mine, &mut all).map(|()| (all, c.rank()))
        };
        let (all, rank) = gather(self, &mut comm, &mine)?;
        let sizes = words(&all);
        let bytes = bytes?;
        if let Some(failed) = sizes.iter().position(|&(ok, _)| !ok) {
            return Err(RmaError::PeerFailed {
                call: CALL,
                rank: failed as u32,
            });
        }
        let total: u64 = sizes.iter().map(|&(_, b)| u64::from(b)).sum();
        let before: u64 = sizes[..rank as usize]
            .iter()
            .map(|&(_, b)| u64::from(b))
            .sum();
        // Rank 0 takes the block and says where it lies.
        let block = (rank == 0).then(|| {
            u32::try_from(total)
                .map_err(|_| RmaError::NoMemory {
                    what: "POPSHM bytes (a contiguous shared window's, all in rank 0's)",
                    requested: total,
                    available: self.popshm_left(),
                })
                .and_then(|total| self.alloc_mem(total))
        });
        let said = match &block {
            Some(Ok(memory)) => {
                let offset = self.memory(memory.id)?.offset;
                [1u32.to_le_bytes(), offset.to_le_bytes()].concat()
            }
            _ => alloc::vec![0; 8],
        };
        let (all, _) = gather(self, &mut comm, &said)?;
        let (ok, base) = words(&all)[0];
        let memory = match block {
            Some(Err(e)) => return Err(e),
            Some(Ok(memory)) => {
                // Rank 0's part starts the block; its allocation holds all.
                let m = self.memories[memory.id as usize]
                    .as_mut()
                    .expect("just allocated");
                m.size = bytes;
                m.reserved = total as u32;
                Memory {
                    id: memory.id,
                    len: bytes,
                }
            }
            None if !ok => {
                return Err(RmaError::PeerFailed {
                    call: CALL,
                    rank: 0,
                });
            }
            None => {
                let owner = match comm.as_deref() {
                    Some(c) => c.core(0)?,
                    None => self.comm.core(0)?,
                };
                let home = database::read_popshm(self.hal, owner)?;
                let id = self.memories.len() as u32;
                self.memories.push(Some(MemoryState {
                    offset: base + before as u32,
                    size: bytes,
                    reserved: 0,
                    home: Some((owner, home)),
                    window: None,
                    orphaned: false,
                    pinned: None,
                }));
                Memory { id, len: bytes }
            }
        };
        self.create_window(CALL, comm, Ok(Some(memory)), Flavor::Shared, options)
    }

    /// Makes `memory` a window, collectively (`MPI_Win_create`): every
    /// rank's record offset is exchanged, and each reads the others'
    /// window descriptions from the database.
    ///
    /// Windows may overlap: memory already given to a window may be given
    /// to another (MPI lets them overlap; accessing the same bytes through
    /// both in one epoch is the program's race).
    ///
    /// Return values: `Err(UnknownMemory)`,
    /// `Err(DispUnit)` for a displacement unit of 0, `Err(NoMemory)` if the
    /// window database is full; `Err(PeerFailed)` on the ranks whose own
    /// part succeeded when another rank's failed (nothing is created on
    /// any rank then).
    pub fn create<T: Element>(
        &mut self,
        memory: Memory,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.create_window("create", None, Ok(Some(memory)), Flavor::Create, options)
    }

    /// Makes a window, collectively over `comm` (a duplicate of it the
    /// window keeps) or over the communicator `Rma` was made with: on
    /// `memory`, or without memory (`None`: a dynamic window, with an
    /// attachment table next to its record).
    fn create_window<T: Element>(
        &mut self,
        call: &'static str,
        comm: Option<&mut Comm<'h, H>>,
        memory: Result<Option<Memory>, RmaError>,
        flavor: Flavor,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        let element = T::BYTES as u32;
        let id = self.windows.len() as u32;
        let given = memory.as_ref().ok().copied().flatten();
        let mut own = match comm.map(Comm::dup).transpose() {
            Ok(own) => own,
            Err(e) => {
                self.undo_memory(flavor, given);
                return Err(e);
            }
        };
        let local = memory.and_then(|memory| {
            // Windows may overlap, as MPI allows: a second window over the
            // same memory is another view of it.
            let (info, table) = match memory {
                Some(memory) => {
                    let state = self.memory(memory.id)?;
                    let disp_unit = options.disp_unit.unwrap_or(element);
                    if disp_unit == 0 {
                        return Err(RmaError::DispUnit {
                            disp_unit,
                            allowed: "it must be at least 1",
                        });
                    }
                    let info = WindowInfo {
                        offset: state.offset,
                        size: state.size,
                        disp_unit,
                        table: 0,
                        home: state.home.map_or(0, |(core, _)| core.index() as u32 + 1),
                    };
                    (info, None)
                }
                None => {
                    let disp_unit = options.disp_unit.unwrap_or(1);
                    if disp_unit != 1 {
                        return Err(RmaError::DispUnit {
                            disp_unit,
                            allowed: "a dynamic window's displacements are addresses: it must be 1",
                        });
                    }
                    let table = self.take_record(options.database)?;
                    let room = database::first_table_entries(self.hal.cores());
                    database::clear_table(self.hal, table, room, 0);
                    let info = WindowInfo {
                        offset: 0,
                        size: 0,
                        disp_unit,
                        table: table.offset,
                        home: 0,
                    };
                    (info, Some(table))
                }
            };
            let record = match self.take_record(options.database) {
                Ok(record) => record,
                Err(e) => {
                    self.free_records.extend(table);
                    return Err(e);
                }
            };
            database::write_record(self.hal, record, info, !options.no_locks);
            Ok((memory, record, table))
        });
        // Exchange where each record lies; 0 says "failed here".
        let mine = match &local {
            Ok((_, r, _)) => [(r.controller as u32).to_le_bytes(), r.offset.to_le_bytes()].concat(),
            Err(_) => alloc::vec![0; 8],
        };
        let comm = own.as_ref().unwrap_or(&self.comm);
        let (rank, size) = (comm.rank(), comm.size());
        let mut all = alloc::vec![0; 8 * size as usize];
        let gathered = match own.as_mut() {
            Some(own) => own.allgather(&mine, &mut all),
            None => self.comm.allgather(&mine, &mut all),
        };
        gathered?;
        let records: Vec<Option<Record>> = all
            .chunks_exact(8)
            .map(|c| {
                let word = |i: usize| u32::from_le_bytes(c[i..i + 4].try_into().expect("4 bytes"));
                (word(4) != 0).then(|| Record {
                    controller: word(0) as usize,
                    offset: word(4),
                })
            })
            .collect();
        let failed = records.iter().position(Option::is_none);
        let (memory, record, table) = match (local, failed) {
            (Err(e), _) => {
                self.undo_memory(flavor, given);
                return Err(e);
            }
            (Ok((memory, record, table)), Some(rank)) => {
                database::clear_record(self.hal, record);
                self.free_records.push(record);
                self.free_records.extend(table);
                self.undo_memory(flavor, memory);
                return Err(RmaError::PeerFailed {
                    call,
                    rank: rank as u32,
                });
            }
            (Ok(local), None) => local,
        };
        let comm = own.as_ref().unwrap_or(&self.comm);
        let cores: Vec<CoreId> = (0..size).map(|r| comm.core(r)).collect::<Result<_, _>>()?;
        let remotes = records
            .iter()
            .zip(&cores)
            .map(|(r, &core)| {
                let record = r.expect("every rank succeeded");
                let info = database::read_record(self.hal, core, record)?;
                Ok(Remote { record, info })
            })
            .collect::<Result<Vec<_>, RmaError>>()?;
        // Each part lies in its rank's POPSHM, or in the one its record
        // names (a contiguous shared window's, rank 0's).
        let popshm = remotes
            .iter()
            .zip(&cores)
            .map(|(remote, &core)| {
                let home = match remote.info.home {
                    0 => core,
                    n => self
                        .hal
                        .chip()
                        .core(n - 1)
                        .map_err(|_| RmaError::Database {
                            what: "window record (the core holding its part)",
                            core: core.index() as u32,
                        })?,
                };
                database::read_popshm(self.hal, home)
            })
            .collect::<Result<_, RmaError>>()?;
        let ranks = Ranks {
            rank,
            world: comm.members().to_vec(),
            cores,
            popshm,
        };
        debug_assert_eq!(remotes[rank as usize].record, record);
        if let Some(memory) = memory
            && let Some(m) = &mut self.memories[memory.id as usize]
        {
            m.window = Some(id);
        }
        let words = size.div_ceil(32) as usize;
        self.window_comms.resize_with(id as usize, || None);
        self.window_comms.push(own);
        self.windows.push(Some(WindowState {
            ranks,
            memory: memory.map(|m| m.id),
            flavor,
            options,
            remotes,
            access: AccessEpoch::None,
            exposure: ExposureEpoch::None,
            seen: alloc::vec![0; words],
            spare: Default::default(),
            stats: WindowStats::default(),
            requests: Default::default(),
            dynamic: table.map(|table| {
                let room = database::first_table_entries(self.hal.cores());
                dynamic::Dynamic::new(table, room, size)
            }),
            pinned: Vec::new(),
        }));
        Ok(Window {
            id,
            _element: PhantomData,
        })
    }

    /// A record of this core at the controller `placement` names: a freed
    /// one lying there, or a fresh one.
    fn take_record(&mut self, placement: Database) -> Result<Record, RmaError> {
        let controller = placement.controller(self.hal.chip(), self.hal.core());
        match self
            .free_records
            .iter()
            .rposition(|r| r.controller == controller)
        {
            Some(k) => Ok(self.free_records.swap_remove(k)),
            None => database::allocate_record(self.hal, placement),
        }
    }

    fn undo_memory(&mut self, flavor: Flavor, memory: Option<Memory>) {
        if let (true, Some(memory)) = (flavor.owns_memory(), memory) {
            let _ = self.free_mem(memory);
        }
    }

    /// Frees a window, collectively (`MPI_Win_free`): after a barrier, so
    /// no rank still accesses it. Memory from [`Rma::allocate`] is freed
    /// with it, or, while a window [`Rma::create`] made on it
    /// ([`Rma::window_memory`]) still spans it, with the last such window; memory given to [`Rma::create`] is the caller's again, and
    /// so is memory attached to a dynamic window (detached with it).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Sync)` while an epoch is
    /// open (a fence epoch without operations may be open, as in MPI).
    /// Either returns before the barrier.
    pub fn free<T>(&mut self, window: Window<T>) -> Result<(), RmaError> {
        let w = self.window(window.id)?;
        Check {
            call: "free",
            window: window.id,
        }
        .free(&w.access, &w.exposure)?;
        self.window_comm(window.id).barrier();
        if let Some(own) = self.window_comms.get_mut(window.id as usize) {
            // Every rank passed the barrier: nothing of it is under way.
            drop(own.take());
        }
        let w = self.windows[window.id as usize]
            .take()
            .expect("checked above");
        for &(controller, page, ty) in &w.pinned {
            self.slots.unpin(controller, page, ty);
        }
        let record = w.remotes[w.ranks.rank as usize].record;
        database::clear_record(self.hal, record);
        self.free_records.push(record);
        // A dynamic window's attachments go with it.
        self.free_records.extend(w.dynamic.map(|d| d.first_table()));
        let Some(memory) = w.memory else {
            return Ok(());
        };
        // Another window over the same memory still uses it.
        let other = (0u32..)
            .zip(&self.windows)
            .find(|(_, other)| other.as_ref().is_some_and(|o| o.memory == w.memory))
            .map(|(id, _)| id);
        let Some(m) = &mut self.memories[memory as usize] else {
            return Ok(());
        };
        m.window = other;
        if w.flavor.owns_memory() || m.orphaned {
            if other.is_some() {
                // `MPI_Win_create` on a part of this window made another
                // view of it, not freed yet: the memory goes with the last.
                m.orphaned = true;
            } else {
                let len = m.size;
                self.free_mem(Memory { id: memory, len })?;
            }
        }
        Ok(())
    }

    pub(crate) fn window(&self, id: u32) -> Result<&WindowState, RmaError> {
        self.windows
            .get(id as usize)
            .and_then(Option::as_ref)
            .ok_or(RmaError::UnknownWindow { window: id })
    }

    pub(crate) fn window_mut(&mut self, id: u32) -> Result<&mut WindowState, RmaError> {
        self.windows
            .get_mut(id as usize)
            .and_then(Option::as_mut)
            .ok_or(RmaError::UnknownWindow { window: id })
    }

    /// Bytes of `rank`'s part of the window (0 for a dynamic window).
    ///
    /// Return values: `Err(UnknownWindow)`, `Err(Rank)`.
    pub fn size_of<T>(&self, window: Window<T>, rank: u32) -> Result<u32, RmaError> {
        let w = self.window(window.id)?;
        crate::comm::check_rank("window rank", rank, w.ranks.size())?;
        Ok(w.remotes[rank as usize].info.size)
    }

    /// The displacement unit of `rank`'s part of the window.
    ///
    /// Return values: `Err(UnknownWindow)`, `Err(Rank)`.
    pub fn disp_unit_of<T>(&self, window: Window<T>, rank: u32) -> Result<u32, RmaError> {
        let w = self.window(window.id)?;
        crate::comm::check_rank("window rank", rank, w.ranks.size())?;
        Ok(w.remotes[rank as usize].info.disp_unit)
    }

    /// What this core did with the window.
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn stats<T>(&self, window: Window<T>) -> Result<WindowStats, RmaError> {
        Ok(self.window(window.id)?.stats)
    }

    /// The memory of this core's part of `window`: `None` for a dynamic
    /// window, which has none of its own. [`Rma::create`] makes another
    /// window on it, a second view of the same bytes (`MPI_Win_create` on
    /// the memory of a shared window: a put through the new window lands
    /// where loads through the shared one read).
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn window_memory<T>(&self, window: Window<T>) -> Result<Option<Memory>, RmaError> {
        let Some(id) = self.window(window.id)?.memory else {
            return Ok(None);
        };
        let state = self.memory(id)?;
        Ok(Some(Memory {
            id,
            len: state.size,
        }))
    }

    /// The window's attributes for this core's part
    /// (`MPI_Win_get_attr`).
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn attributes<T>(&self, window: Window<T>) -> Result<WindowAttributes, RmaError> {
        let w = self.window(window.id)?;
        let info = w.remotes[w.ranks.rank as usize].info;
        let unified =
            w.options.local_type == MemoryType::Ncm && w.options.remote_type == MemoryType::Ncm;
        Ok(WindowAttributes {
            size: info.size,
            disp_unit: info.disp_unit,
            flavor: w.flavor,
            model: if unified {
                MemoryModel::Unified
            } else {
                MemoryModel::Separate
            },
            offset: info.offset,
        })
    }

    /// The group of the processes that share the window
    /// (`MPI_Win_get_group`), with this core's rank in it: the group of
    /// the communicator it was made on.
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn group<T>(&self, window: Window<T>) -> Result<Group, RmaError> {
        let w = self.window(window.id)?;
        Ok(Group::of(
            self.hal.cores(),
            self.hal.rank(),
            w.ranks.world.clone(),
        ))
    }

    /// This core's rank in the window (the rank of its communicator).
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn rank_in<T>(&self, window: Window<T>) -> Result<u32, RmaError> {
        Ok(self.window(window.id)?.ranks.rank)
    }

    /// Number of ranks of the window (of its communicator).
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn size_in<T>(&self, window: Window<T>) -> Result<u32, RmaError> {
        Ok(self.window(window.id)?.ranks.size())
    }

    /// The options the window was made with, its info keys among them
    /// (`MPI_Win_get_info`).
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn options<T>(&self, window: Window<T>) -> Result<WindowOptions, RmaError> {
        Ok(self.window(window.id)?.options)
    }

    /// Reads elements of this core's own part of the window, from element
    /// `index` on, as loads through the local mapping (the program's
    /// loads and stores of MPI's window memory). MPI's rules apply: read
    /// what others put only after the epoch that exposed it ended.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Flavor)` for a dynamic
    /// window (its memory is read with [`Rma::memory_read`]);
    /// `Err(Range)` past the end.
    pub fn local_read<T: Element>(
        &mut self,
        window: Window<T>,
        index: u32,
        buf: &mut [T],
    ) -> Result<(), RmaError> {
        let me = self.window_with_memory("local_read", window.id)?.ranks.rank;
        let start = u64::from(index) * T::BYTES as u64;
        let len = (buf.len() * T::BYTES) as u64;
        self.check_range("local_read", window.id, me, start as i64, len)?;
        let ty = self.window(window.id)?.options.local_type;
        self.read_elements(window.id, me, ty, start, buf)
    }

    /// Maps `memory` for good, for a program that loads and stores it by
    /// address (MPI's `MPI_Alloc_mem` in C, whose memory a later
    /// `MPI_Win_create` makes a window): the LUT entry mapping it with the
    /// local memory type of [`WindowOptions::new`] is pinned until the
    /// memory is freed. A window made on it with that local type (the
    /// default) reaches it through the same entry, so the program's loads
    /// and stores and the window's calls meet in the same caches; MPI's
    /// rules on window memory apply once the window exists. Calling it
    /// again returns the same mapping.
    ///
    /// Return values: `Err(UnknownMemory)` once freed; `Err(NoMemory)` as
    /// for [`Rma::pin_part`].
    pub fn pin_memory(&mut self, memory: Memory) -> Result<LocalMapping, RmaError> {
        let state = self.memory(memory.id)?;
        let ty = WindowOptions::new().local_type;
        let page = state.offset / LUT_PAGE_SIZE;
        let within = state.offset % LUT_PAGE_SIZE;
        if u64::from(within) + u64::from(state.size) > u64::from(LUT_PAGE_SIZE) {
            return Err(RmaError::NoMemory {
                what: "bytes left in the 16 MiB LUT page where the memory starts (memory reached by address must lie in one page)",
                requested: state.size.into(),
                available: (LUT_PAGE_SIZE - within).into(),
            });
        }
        let popshm = state.home.map_or(self.popshm, |(_, popshm)| popshm);
        let mapping = (popshm.controller, popshm.first + page as u16, ty);
        let (controller, page, ty) = mapping;
        let slot = if state.pinned == Some(mapping) {
            self.slots
                .entry_for(self.hal, controller, page, ty, &mut self.other)?
        } else {
            let slot = self
                .slots
                .pin(self.hal, controller, page, ty, &mut self.other)?;
            if let Some(m) = &mut self.memories[memory.id as usize] {
                m.pinned = Some(mapping);
            }
            slot
        };
        Ok(LocalMapping {
            slot,
            offset: within,
            len: state.size,
        })
    }

    /// Maps `rank`'s part of `window` for good, for a program that loads
    /// and stores it by address (MPI's window memory in C: the pointer
    /// `MPI_Win_allocate` hands out for this core's own part, and those
    /// `MPI_Win_shared_query` hands out for any part of a shared window).
    /// The LUT entry mapping the part (this core's own with the window's
    /// local memory type, another's with the remote type) is pinned until
    /// the window is freed, so the part stays at [`LocalMapping::slot`]'s
    /// addresses. The program's loads and stores through it are what
    /// [`Rma::local_read`] and [`Rma::local_write`] (or
    /// [`Rma::shared_load`] and [`Rma::shared_store`]) do, and MPI's rules
    /// on window memory apply to them the same way (see
    /// the `window::local` module). Calling it again for the same part
    /// returns the same mapping.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Flavor)` for a dynamic
    /// window, or for another rank's part of a window that is not shared;
    /// `Err(Rank)` for a rank outside the window; `Err(NoMemory)` if the
    /// part crosses a 16 MiB LUT page (one entry maps one page) or every
    /// free LUT entry is pinned already.
    pub fn pin_part<T>(&mut self, window: Window<T>, rank: u32) -> Result<LocalMapping, RmaError> {
        let w = self.window_with_memory("pin_part", window.id)?;
        crate::comm::check_rank("pin_part rank", rank, w.ranks.size())?;
        let me = w.ranks.rank;
        if rank != me && w.flavor != Flavor::Shared {
            return Err(RmaError::Flavor {
                call: "pin_part",
                window: window.id,
                needs: "a shared window (another rank's part is reached by address only there)",
            });
        }
        let ty = if rank == me {
            w.options.local_type
        } else {
            w.options.remote_type
        };
        let (info, popshm) = (w.remotes[rank as usize].info, w.ranks.popshm[rank as usize]);
        if w.flavor == Flavor::Shared && !w.options.alloc_shared_noncontig {
            // The parts follow each other at their addresses only if the
            // whole window lies in the page one entry maps.
            let first = u64::from(w.remotes[0].info.offset);
            let end = w
                .remotes
                .last()
                .map_or(first, |r| u64::from(r.info.offset) + u64::from(r.info.size));
            let page = u64::from(LUT_PAGE_SIZE);
            if end > first && first / page != (end - 1) / page {
                return Err(RmaError::NoMemory {
                    what: "bytes left in the 16 MiB LUT page where the contiguous shared window starts (its parts reached by address must lie in one page; alloc_shared_noncontig=true puts each in its own rank's memory)",
                    requested: end - first,
                    available: page - first % page,
                });
            }
        }
        let page = info.offset / LUT_PAGE_SIZE;
        let within = info.offset % LUT_PAGE_SIZE;
        if u64::from(within) + u64::from(info.size) > u64::from(LUT_PAGE_SIZE) {
            return Err(RmaError::NoMemory {
                what: "bytes left in the 16 MiB LUT page where the window's part starts (a part reached by address must lie in one page)",
                requested: info.size.into(),
                available: (LUT_PAGE_SIZE - within).into(),
            });
        }
        let mapping = (popshm.controller, popshm.first + page as u16, ty);
        let w = self.windows[window.id as usize]
            .as_mut()
            .expect("checked above");
        let (controller, page, ty) = mapping;
        let slot = if w.pinned.contains(&mapping) {
            self.slots
                .entry_for(self.hal, controller, page, ty, &mut w.stats)?
        } else {
            let slot = self
                .slots
                .pin(self.hal, controller, page, ty, &mut w.stats)?;
            w.pinned.push(mapping);
            slot
        };
        Ok(LocalMapping {
            slot,
            offset: within,
            len: info.size,
        })
    }

    /// Allocates `len` elements of this core's POPSHM as a shared window,
    /// collectively (`MPI_Win_allocate_shared`): every process then loads
    /// and stores any process's part directly ([`Rma::shared_load`],
    /// [`Rma::shared_store`]), outside epochs as MPI allows, and makes what
    /// it stored visible with [`Rma::sync`] (and a barrier or another
    /// synchronisation to order it). On the SCC every core reaches every
    /// POPSHM through a LUT entry, so any process group can share one.
    ///
    /// Where the parts lie is [`WindowOptions::alloc_shared_noncontig`]'s
    /// to say: by default (MPI's), one block of rank 0's POPSHM holds them
    /// all, each rank's after the lower ranks' (so [`Rma::pin_part`] maps
    /// them one after the other, as MPI promises a C program); with it
    /// set, each rank's part lies in its own POPSHM, behind its own
    /// memory controller.
    ///
    /// Return values: as [`Rma::allocate`]; a contiguous window's rank 0
    /// needs room for every part (`Err(NoMemory)` there, `Err(PeerFailed)`
    /// on the others).
    pub fn allocate_shared<T: Element>(
        &mut self,
        len: u32,
        options: WindowOptions,
    ) -> Result<Window<T>, RmaError> {
        self.allocate_as(None, len, options, Flavor::Shared)
    }

    /// Where `rank`'s part of a shared window is (`MPI_Win_shared_query`).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Rank)`; `Err(Flavor)` for
    /// a window not made by [`Rma::allocate_shared`].
    pub fn shared_query<T>(&self, window: Window<T>, rank: u32) -> Result<SharedPart, RmaError> {
        let w = self.shared_window("shared_query", window.id)?;
        crate::comm::check_rank("shared_query rank", rank, w.ranks.size())?;
        let info = w.remotes[rank as usize].info;
        Ok(SharedPart {
            rank,
            size: info.size,
            disp_unit: info.disp_unit,
        })
    }

    /// Loads elements of `part` from element `index` on: plain loads
    /// through this core's mapping of it (its own part with the window's
    /// local memory type, another's with the remote type). What another
    /// process stored shows after its [`Rma::sync`] and this core's.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Flavor)` unless the
    /// window is shared; `Err(Range)` past the part's end.
    pub fn shared_load<T: Element>(
        &mut self,
        window: Window<T>,
        part: SharedPart,
        index: u32,
        buf: &mut [T],
    ) -> Result<(), RmaError> {
        let (ty, start) =
            self.shared_access::<T>("shared_load", window.id, part, index, buf.len())?;
        self.read_elements(window.id, part.rank, ty, start, buf)
    }

    /// Stores elements into `part` from element `index` on, as
    /// [`Rma::shared_load`] loads.
    ///
    /// Return values: as [`Rma::shared_load`].
    pub fn shared_store<T: Element>(
        &mut self,
        window: Window<T>,
        part: SharedPart,
        index: u32,
        data: &[T],
    ) -> Result<(), RmaError> {
        let (ty, start) =
            self.shared_access::<T>("shared_store", window.id, part, index, data.len())?;
        self.write_elements(window.id, part.rank, ty, start, data)
    }

    /// Where the block holding every part of a contiguous shared window
    /// lies in the 16 MiB LUT page [`Rma::pin_part`] maps its parts
    /// through: (offset, bytes), rank 0's part first. `None` for any other
    /// window (its parts, if shared, lie each in its own rank's memory). A
    /// program that reaches one part by address reaches the others after
    /// it ([`WindowOptions::alloc_shared_noncontig`]), so the whole block
    /// must be mapped.
    ///
    /// Return values: `Err(UnknownWindow)`.
    pub fn contiguous_block<T>(&self, window: Window<T>) -> Result<Option<(u32, u32)>, RmaError> {
        let w = self.window(window.id)?;
        if w.flavor != Flavor::Shared || w.options.alloc_shared_noncontig {
            return Ok(None);
        }
        let first = w.remotes[0].info.offset;
        let end = w
            .remotes
            .last()
            .map_or(first, |r| r.info.offset + r.info.size);
        Ok(Some((first % LUT_PAGE_SIZE, end - first)))
    }

    /// Window `id` if it is shared, else `Err(Flavor)` naming `call`.
    fn shared_window(&self, call: &'static str, id: u32) -> Result<&WindowState, RmaError> {
        let w = self.window(id)?;
        if w.flavor == Flavor::Shared {
            Ok(w)
        } else {
            Err(RmaError::Flavor {
                call,
                window: id,
                needs: "a window made by allocate_shared",
            })
        }
    }

    /// Window `id` unless it is dynamic (`Err(Flavor)` naming `call`): a
    /// window with memory of its own, which its local accesses reach.
    fn window_with_memory(&self, call: &'static str, id: u32) -> Result<&WindowState, RmaError> {
        let w = self.window(id)?;
        if w.flavor == Flavor::Dynamic {
            Err(RmaError::Flavor {
                call,
                window: id,
                needs: "a window with memory of its own (a dynamic window's attached memory is \
                        reached by address, or with memory_read and memory_write)",
            })
        } else {
            Ok(w)
        }
    }

    /// Where `call` reaches `elements` elements of `part` of shared window
    /// `id` from element `index` on: the memory type of the mapping and
    /// the byte offset, once the range is checked.
    fn shared_access<T: Element>(
        &self,
        call: &'static str,
        id: u32,
        part: SharedPart,
        index: u32,
        elements: usize,
    ) -> Result<(MemoryType, u64), RmaError> {
        let w = self.shared_window(call, id)?;
        crate::comm::check_rank("shared part rank", part.rank, w.ranks.size())?;
        let ty = if part.rank == w.ranks.rank {
            w.options.local_type
        } else {
            w.options.remote_type
        };
        let start = u64::from(index) * T::BYTES as u64;
        let len = (elements * T::BYTES) as u64;
        self.check_range(call, id, part.rank, start as i64, len)?;
        Ok((ty, start))
    }

    /// Writes elements into this core's own part of the window, from
    /// element `index` on, as stores through the local mapping. Others see
    /// them after the next post or fence (which release them).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Flavor)` for a dynamic
    /// window (its memory is written with [`Rma::memory_write`]);
    /// `Err(Range)` past the end.
    pub fn local_write<T: Element>(
        &mut self,
        window: Window<T>,
        index: u32,
        data: &[T],
    ) -> Result<(), RmaError> {
        let me = self
            .window_with_memory("local_write", window.id)?
            .ranks
            .rank;
        let start = u64::from(index) * T::BYTES as u64;
        let len = (data.len() * T::BYTES) as u64;
        self.check_range("local_write", window.id, me, start as i64, len)?;
        let ty = self.window(window.id)?.options.local_type;
        self.write_elements(window.id, me, ty, start, data)
    }

    /// `Err(Range)` unless `len` bytes at `offset` lie in `target`'s part;
    /// in a dynamic window, unless `len` bytes at address `offset` lie in
    /// `target`'s POPSHM (whether they lie in memory it attached is
    /// [`Rma::check_attached`]'s to say).
    pub(crate) fn check_range(
        &self,
        call: &'static str,
        id: u32,
        target: u32,
        offset: i64,
        len: u64,
    ) -> Result<(), RmaError> {
        let w = self.window(id)?;
        let size = if w.dynamic.is_some() {
            w.ranks.popshm[target as usize].bytes()
        } else {
            u64::from(w.remotes[target as usize].info.size)
        };
        if offset < 0 || i128::from(offset) + i128::from(len) > i128::from(size) {
            return Err(RmaError::Range {
                call,
                window: id,
                target,
                offset,
                len,
                size,
            });
        }
        Ok(())
    }

    /// Visits the mapped pieces of `len` bytes at `offset` of `target`'s
    /// part of window `id`, mapped with `ty`: `visit(slot, offset in the
    /// mapping, position in the range, bytes)`.
    pub(crate) fn pieces(
        &mut self,
        id: u32,
        target: u32,
        ty: MemoryType,
        offset: u64,
        len: usize,
        visit: impl FnMut(&H, u8, u32, usize, usize),
    ) -> Result<(), RmaError> {
        let w = self.windows[id as usize]
            .as_mut()
            .expect("callers checked the window");
        let popshm = w.ranks.popshm[target as usize];
        let base = u64::from(w.remotes[target as usize].info.offset) + offset;
        pieces_of(
            self.hal,
            &mut self.slots,
            popshm,
            (base, len),
            ty,
            &mut w.stats,
            visit,
        )
    }

    /// Writes `data` as little-endian bytes at `offset` of `target`'s part.
    pub(crate) fn write_elements<T: Element>(
        &mut self,
        id: u32,
        target: u32,
        ty: MemoryType,
        offset: u64,
        data: &[T],
    ) -> Result<(), RmaError> {
        if let Some(bytes) = T::le_bytes(data) {
            return self.pieces(
                id,
                target,
                ty,
                offset,
                bytes.len(),
                |hal, slot, within, pos, n| {
                    hal.shared_write(slot, within, &bytes[pos..pos + n]);
                },
            );
        }
        let mut chunk = [0u8; STAGING];
        let per = STAGING / T::BYTES;
        for (k, elements) in data.chunks(per).enumerate() {
            let bytes = elements.len() * T::BYTES;
            for (e, out) in elements.iter().zip(chunk.chunks_exact_mut(T::BYTES)) {
                e.write_le(out);
            }
            let at = offset + (k * per * T::BYTES) as u64;
            self.pieces(id, target, ty, at, bytes, |hal, slot, within, pos, n| {
                hal.shared_write(slot, within, &chunk[pos..pos + n]);
            })?;
        }
        Ok(())
    }

    /// Reads elements from `offset` of `target`'s part into `buf`.
    pub(crate) fn read_elements<T: Element>(
        &mut self,
        id: u32,
        target: u32,
        ty: MemoryType,
        offset: u64,
        buf: &mut [T],
    ) -> Result<(), RmaError> {
        if let Some(bytes) = T::le_bytes_mut(buf) {
            let len = bytes.len();
            return self.pieces(id, target, ty, offset, len, |hal, slot, within, pos, n| {
                hal.shared_read(slot, within, &mut bytes[pos..pos + n]);
            });
        }
        let mut chunk = [0u8; STAGING];
        let per = STAGING / T::BYTES;
        for (k, elements) in buf.chunks_mut(per).enumerate() {
            let bytes = elements.len() * T::BYTES;
            let at = offset + (k * per * T::BYTES) as u64;
            self.pieces(id, target, ty, at, bytes, |hal, slot, within, pos, n| {
                hal.shared_read(slot, within, &mut chunk[pos..pos + n]);
            })?;
            for (e, bytes) in elements.iter_mut().zip(chunk.chunks_exact(T::BYTES)) {
                *e = T::read_le(bytes);
            }
        }
        Ok(())
    }
}

/// Bytes staged on the stack between elements and window memory, for
/// elements that memory does not hold as their little-endian bytes.
const STAGING: usize = 512;

/// Visits the bytes `base..base + len` of the POPSHM `popshm`, mapped
/// with `ty` (a LUT entry per page, counted in `stats`), a page at a
/// time: `visit(hal, slot, offset in the slot, position in the bytes,
/// bytes)`.
fn pieces_of<H: RmaHal>(
    hal: &H,
    slots: &mut Slots,
    popshm: DramPages,
    (base, len): (u64, usize),
    ty: MemoryType,
    stats: &mut WindowStats,
    mut visit: impl FnMut(&H, u8, u32, usize, usize),
) -> Result<(), RmaError> {
    let mut done = 0;
    while done < len {
        let at = base + done as u64;
        let page = (at / u64::from(LUT_PAGE_SIZE)) as u16;
        let within = (at % u64::from(LUT_PAGE_SIZE)) as u32;
        let n = (len - done).min((LUT_PAGE_SIZE - within) as usize);
        let slot = slots.entry_for(hal, popshm.controller, popshm.first + page, ty, stats)?;
        visit(hal, slot, within, done, n);
        done += n;
    }
    Ok(())
}
