// SPDX-License-Identifier: MIT OR Apache-2.0
//! The hardware abstraction rma consumes, one trait per capability.
//!
//! rma defines what it needs and a platform provides it: the kernel
//! implements these traits for its SCC platform (`kernel/src/platform`),
//! and [`mock`] implements them with host threads so every algorithm runs
//! under `cargo test`. [`Hal`] bundles them; algorithms are generic over
//! `H: Hal`.
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

#[cfg(test)]
mod loom;
#[cfg(any(test, feature = "mock"))]
pub mod mock;

use chip::{Chip, CoreId, TileId};

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
}

/// A monotonic per-core cycle count.
pub trait Clock {
    /// Cycles since some fixed point in this core's past; never decreases.
    /// On the kernel it is the time-stamp counter (host time under QEMU),
    /// so only differences on one core mean anything.
    fn cycles(&self) -> u64;
}

/// Everything rma needs from a platform.
pub trait Hal: Topology + Mpb + Tsr + CacheControl + Wait + Clock {}

impl<T: Topology + Mpb + Tsr + CacheControl + Wait + Clock> Hal for T {}
