// SPDX-License-Identifier: MIT OR Apache-2.0
//! The hardware abstraction rma consumes, one trait per capability.
//!
//! rma defines what it needs and a platform provides it: the module `kernel`
//! implements these traits for `kernel::Platform` on the
//! guest (rma stands on the kernel, which knows nothing of rma), and
//! `mock` implements them with host threads so every algorithm runs
//! under `cargo test`. [`Hal`] bundles them; algorithms are generic over
//! `H: Hal`. The one-sided layer needs more: shareable DRAM mapped
//! through free LUT entries ([`SharedDram`]), uncached legacy shared
//! memory for its synchronisation data ([`Lsm`]) and an L1 write-back
//! ([`WriteBack`]); [`RmaHal`] bundles those with [`Hal`].
//!
//! Shared memory is never reached through a Rust reference: other cores
//! change it behind the compiler's back, so a reference would let the
//! compiler assume it stable. MPB contents are read and written by value,
//! through [`Mpb`] only.
//!
//! Caches are not coherent. A platform makes an MPB access go to its L1
//! and write-combine buffer exactly as the hardware does; the algorithm is
//! responsible for the coherence actions of [`CacheControl`] (see the
//! protocol in [`crate::comm`]). Getting them wrong gives wrong data, never
//! undefined behaviour in Rust's sense, which is why none of these traits
//! is `unsafe`.

#[cfg(target_arch = "x86")]
mod kernel;
#[cfg(any(test, feature = "mock"))]
pub mod mock;

use chip::{Chip, CoreId, MemoryType, TileId};

/// Who this core is and who takes part: the run's participants are cores
/// `0..cores()`, and a core's rank in the run is its core number.
pub trait Topology {
    /// The chip definition.
    fn chip(&self) -> &'static Chip;

    /// This core.
    fn core(&self) -> CoreId;

    /// How many cores take part in this run (at least 1, at most the chip's
    /// core count).
    fn cores(&self) -> u32;

    /// This core's rank among the participants, `0..cores()`.
    fn rank(&self) -> u32 {
        self.core().index() as u32
    }

    /// The core with rank `rank`.
    ///
    /// # Panics
    /// If `rank` is not below [`cores`](Topology::cores): callers check
    /// ranks they are given and report [`crate::RmaError::Rank`].
    fn participant(&self, rank: u32) -> CoreId {
        assert!(
            rank < self.cores(),
            "rank {rank} is not part of a run of {} cores",
            self.cores()
        );
        self.chip()
            .core(rank)
            .expect("the run has no more cores than the chip")
    }

    /// The tile `core` sits on.
    fn tile_of(&self, core: CoreId) -> TileId {
        self.chip().tile_of(core)
    }
}

/// Which core's half of a tile's message passing buffer an access goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpbHalf {
    /// This core's half, through the own-tile mapping (a local access).
    Own,
    /// The half of the given core (this one included), through its tile's
    /// mapping.
    Of(CoreId),
}

/// Access to the message passing buffers: each core owns
/// [`Chip::mpb_bytes_per_core`] bytes of its tile's MPB.
///
/// Accesses are plain loads and stores of the memory type the platform
/// maps MPBs with (MPBT on the SCC: cached in L1 only, writes combined in
/// the write-combine buffer). What another core wrote becomes visible only
/// after the writer flushed its write-combine buffer and the reader dropped
/// stale lines ([`CacheControl`]).
///
/// # Panics
/// Every method panics if the range lies outside the half or a word offset
/// is not a multiple of 4: offsets come from rma's layout, so that is a bug.
pub trait Mpb {
    /// Loads the 32-bit word at `offset` (a multiple of 4) of `half`.
    ///
    /// Return values: the word as one access sees it; a word is written
    /// and read whole, so it is never torn between two writers' values.
    fn mpb_read_u32(&self, half: MpbHalf, offset: u32) -> u32;

    /// Stores `value` at `offset` (a multiple of 4) of `half`, as one access.
    fn mpb_write_u32(&self, half: MpbHalf, offset: u32, value: u32);

    /// Copies `buf.len()` bytes starting at `offset` of `half` into `buf`.
    ///
    /// Only bytes are guaranteed whole: a concurrent writer may leave some
    /// bytes old and some new, so protocols read data only after a flag said
    /// it is complete.
    fn mpb_read(&self, half: MpbHalf, offset: u32, buf: &mut [u8]);

    /// Copies `data` to `offset` of `half`. Bytes outside the range are not
    /// touched (the write-combine buffer writes with byte enables).
    fn mpb_write(&self, half: MpbHalf, offset: u32, data: &[u8]);
}

/// The per-core test-and-set registers: one lock per core, usable by all.
pub trait Tsr {
    /// Takes `owner`'s register, waiting until it is free.
    ///
    /// Returns holding it: no other core's `tsr_acquire(owner)` returns
    /// until this core calls [`tsr_release`](Tsr::tsr_release). Acquiring
    /// does not order MPB accesses by itself; invalidate after it and flush
    /// before releasing.
    fn tsr_acquire(&self, owner: CoreId);

    /// Frees `owner`'s register. The caller must hold it.
    fn tsr_release(&self, owner: CoreId);
}

/// The cache idioms of MPB communication.
///
/// `core::sync::atomic::fence` is not enough on the SCC: it orders this
/// core's accesses, but L1 lines tagged MPBT are not kept coherent and the
/// write-combine buffer holds up to one line of writes. Those need
/// CL1INVMB and a write that pushes the buffer out.
pub trait CacheControl {
    /// Drops every MPBT line from this core's L1 (CL1INVMB), so the next
    /// MPB reads fetch what other cores wrote. Modified MPBT data in L1 is
    /// lost, not written back, so call it also before writing a line this
    /// core may hold: the write then misses L1 and goes to memory.
    fn invalidate_mpbt(&self);

    /// Pushes this core's write-combine buffer out, so every MPB write
    /// issued before becomes visible to other cores before any issued after.
    fn flush_wcb(&self);
}

/// How the platform idles while a condition is not yet true.
pub trait Wait {
    /// Calls `ready` until it returns `Some`, and returns that value.
    ///
    /// The platform decides what happens between calls (the kernel halts
    /// the core for a growing pause, the mock yields its thread). `ready`
    /// does its own coherence actions (e.g. CL1INVMB before reading a flag).
    fn wait_for<T>(&self, ready: impl FnMut() -> Option<T>) -> T;

    /// Runs `read` once, as a wait whose first poll finds what it reads:
    /// for loads that race with other cores' stores outside any wait (a
    /// flag read once, a test for messages). Where waits are ordered among
    /// the cores (the emulator's modelled time), the loads then are too,
    /// instead of seeing whatever the host had run; inside a wait's
    /// `ready` they are part of its poll.
    fn read_ordered<T>(&self, read: impl FnOnce() -> T) -> T {
        let mut read = Some(read);
        self.wait_for(|| read.take().map(|read| read()))
    }
}

/// A monotonic per-core cycle count.
pub trait Clock {
    /// Cycles since some fixed point in this core's past; never decreases.
    /// On the kernel it is the time-stamp counter (host time under QEMU),
    /// so only differences on one core mean anything.
    fn cycles(&self) -> u64;

    /// Lets `cycles` of this clock pass, as a spin on the clock would
    /// (back-off). By default it waits for the clock to move on; the
    /// kernel under the emulator's modelled time lets exactly `cycles`
    /// pass without spinning.
    fn pause(&self, cycles: u64)
    where
        Self: Wait + Sized,
    {
        let start = self.cycles();
        self.wait_for(|| (self.cycles().saturating_sub(start) >= cycles).then_some(()));
    }
}

/// The pages a mapping of shareable DRAM covers, and why a platform
/// refuses one: the chip's terms, kept in [`chip`].
pub use chip::{DramPages, MapError};

/// Everything rma's two-sided layer ([`crate::comm`]) needs from a platform.
pub trait Hal: Topology + Mpb + Tsr + CacheControl + Wait + Clock {}

impl<T: Topology + Mpb + Tsr + CacheControl + Wait + Clock> Hal for T {}

/// The bytes of each controller's LSM page that rma uses (8 MiB to 12
/// MiB); programs and the platform keep the rest.
pub const LSM_RMA: core::ops::Range<u32> = 0x0080_0000..0x00C0_0000;

/// Shareable DRAM (each core's POPSHM pages) seen through the free LUT
/// entries, with a memory type per mapping.
///
/// A mapping occupies `pages.count` consecutive free LUT entries starting
/// at `slot` (an entry index, e.g. 132..=190 on the SCC): entry `slot + k`
/// points at page `pages.first + k` of `pages.controller`, and the
/// core-physical range of those entries is mapped with one memory type.
/// Offsets into a mapping run from 0 at the first byte of its first page.
///
/// Data is read and written by value, never through a Rust reference, and
/// each access goes through the mapping's memory type exactly as a load or
/// store would: with MPBT types it may hit a stale L1 line or wait in the
/// write-combine buffer, so the caller does the coherence actions of
/// [`CacheControl`] and [`WriteBack`]. On the SCC an implementation writes
/// the LUT entries ([`chip::LutEntry::new`] with the controller's port) and
/// maps their pages with the type; the LUT write takes effect at the next
/// access.
///
/// # Panics
/// The access methods panic if `slot` does not start a mapping or the
/// range runs past it: slots and offsets come from rma's own bookkeeping,
/// so that is a bug.
pub trait SharedDram: Topology {
    /// This core's shareable pages, which its windows are allocated from.
    ///
    /// Return values: by default [`DramPages::popshm`] of this core; a
    /// platform that places POPSHM elsewhere overrides it.
    fn popshm(&self) -> DramPages {
        DramPages::popshm(self.chip(), self.core())
    }

    /// Points the free LUT entries `slot..slot + pages.count` at `pages`
    /// and maps them with memory type `ty`.
    ///
    /// Return values: `Err(NotFree)` if the entries are not all free
    /// entries of the chip's map; `Err(InUse)` if one of them holds a
    /// mapping (unmap it first); `Err(NotShareable)` if the pages are not
    /// shareable DRAM; `Err(NoMemory)` if page tables cannot be had. On
    /// error nothing is mapped.
    fn map_shared(&self, slot: u8, pages: DramPages, ty: MemoryType) -> Result<(), MapError>;

    /// Copies `buf.len()` bytes at `offset` of the mapping at `slot` into
    /// `buf`, with loads of the mapping's memory type.
    fn shared_read(&self, slot: u8, offset: u32, buf: &mut [u8]);

    /// Copies `data` to `offset` of the mapping at `slot`, with stores of
    /// the mapping's memory type. Bytes outside the range are not touched.
    fn shared_write(&self, slot: u8, offset: u32, data: &[u8]);

    /// Removes the mapping that starts at `slot`, freeing its entries.
    ///
    /// The caller first pushes out what it wrote through the mapping
    /// (flush the write-combine buffer, write back L1 for write-back
    /// types) and drops what it read (CL1INVMB): a line left cached would
    /// be read, or written back, through whatever the entries point at
    /// next. Unmapping a slot that starts no mapping panics.
    fn unmap_shared(&self, slot: u8);
}

/// The legacy shared memory (LSM): one 16 MiB page per memory controller
/// at a fixed address, mapped uncached (NCM), where rma keeps its
/// synchronisation data (the distributed window database). Every access
/// reaches memory at once, so no coherence action is needed; a word access
/// is one load or store.
///
/// rma uses the bytes [`LSM_RMA`] of each page; the rest belongs to
/// programs and the platform.
///
/// # Panics
/// Every method panics if the range lies outside the page or a word offset
/// is not a multiple of 4.
pub trait Lsm {
    /// Loads the 32-bit word at `offset` of controller `controller`'s page.
    fn lsm_read_u32(&self, controller: usize, offset: u32) -> u32;

    /// Stores `value` at `offset` of controller `controller`'s page.
    fn lsm_write_u32(&self, controller: usize, offset: u32, value: u32);

    /// Copies `buf.len()` bytes at `offset` into `buf`.
    fn lsm_read(&self, controller: usize, offset: u32, buf: &mut [u8]);

    /// Copies `data` to `offset`; bytes outside the range are not touched
    /// (a single byte is written with one byte store).
    fn lsm_write(&self, controller: usize, offset: u32, data: &[u8]);
}

/// Writing back the L1 cache, for memory types that keep modified lines.
pub trait WriteBack {
    /// Writes back and invalidates this core's L1 (WBINVD). Modified MPBT
    /// lines go to memory (through the write-combine buffer: flush it
    /// afterwards); on the SCC modified DCM lines only reach L2, which no
    /// instruction writes back, so DCM data shared between cores can stay
    /// invisible until an L2 eviction.
    fn write_back_l1(&self);
}

pub use chip::{AtomicOp, RauCommand};

/// A remote atomic unit at the memory controllers
/// ([`chip::RemoteAtomics`]), where the platform has one: an optional
/// capability. The defaults say there is none, which is the SCC's case;
/// rma then guards its atomics with the test-and-set registers.
pub trait RemoteAtomic: SharedDram {
    /// Whether [`RemoteAtomic::shared_atomic`] works: the chip has a unit at
    /// each memory controller, and it answers.
    fn dram_atomics(&self) -> bool {
        false
    }

    /// Has the unit of the word's controller do `command` on the word at
    /// byte `offset` of the mapping that starts at `slot`, with `operand`
    /// (and `compare`, for a compare-swap), and returns the word's old
    /// value; `None` where [`RemoteAtomic::dram_atomics`] is false. The
    /// word is aligned to its width (4 or 8 bytes). The operation reaches
    /// memory, not this core's caches: no other core's operation on the
    /// word comes between its read and its write, and a core that holds
    /// the line cached keeps its copy until it drops it. It orders none of
    /// this core's own earlier accesses (a write still in the
    /// write-combine buffer).
    ///
    /// # Panics
    /// If `slot` starts no mapping, or the word runs past it.
    fn shared_atomic(
        &self,
        slot: u8,
        offset: u32,
        command: RauCommand,
        operand: u64,
        compare: u64,
    ) -> Option<u64> {
        let _ = (slot, offset, command, operand, compare);
        None
    }
}

/// Everything rma's one-sided layer needs from a platform: [`Hal`] plus
/// shareable DRAM, the LSM, L1 write-back and, where the chip has one, the
/// remote atomic unit.
pub trait RmaHal: Hal + SharedDram + Lsm + WriteBack + Trace + RemoteAtomic {}

impl<T: Hal + SharedDram + Lsm + WriteBack + Trace + RemoteAtomic> RmaHal for T {}

/// Where one-sided calls are traced in modelled time ([`chip::trace`]).
pub trait Trace {
    /// Records `event`, with the bytes the op moves (0 if none). By
    /// default nothing is recorded; the kernel records under the
    /// emulator when the run asks for a trace.
    fn trace(&self, event: chip::trace::Event, bytes: u32) {
        let _ = (event, bytes);
    }
}

/// A span of a traced call: its begin is recorded when made, its end when
/// dropped, on every way out of the call.
pub(crate) struct Span<'h, H: Trace> {
    hal: &'h H,
    event: chip::trace::Event,
}

impl<'h, H: Trace> Span<'h, H> {
    /// Begins `op` on `window` (its id) and `target` (a rank, if the op has
    /// one), moving `bytes`.
    pub(crate) fn begin(
        hal: &'h H,
        op: chip::trace::Op,
        window: u32,
        target: Option<u32>,
        bytes: u64,
    ) -> Self {
        use chip::trace::{Event, Phase};
        let event = Event {
            op,
            phase: Phase::Begin,
            window: u8::try_from(window).unwrap_or(Event::NONE8),
            target: target
                .and_then(|t| u16::try_from(t).ok())
                .unwrap_or(Event::NONE16),
        };
        hal.trace(event, u32::try_from(bytes).unwrap_or(u32::MAX));
        Self { hal, event }
    }
}

impl<H: Trace> Drop for Span<'_, H> {
    fn drop(&mut self) {
        let end = chip::trace::Event {
            phase: chip::trace::Phase::End,
            ..self.event
        };
        self.hal.trace(end, 0);
    }
}
