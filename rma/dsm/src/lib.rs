// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared-memory services on a non-cache-coherent chip, in the layered
//! style of HAMSTER (Schulz 2001): the services a shared-memory
//! programming model needs, each small and explicit, over rma's HAL,
//! communicator and windows, so that a model (OpenSHMEM in `rma/shmem`)
//! is a thin layer that combines them.
//!
//! | service | what it gives |
//! |---|---|
//! | [`region`] | collective allocation of shared regions, distributed on one core, in blocks, cyclically or hashed at line granularity, with a requested coherency attribute and the one granted |
//! | [`consistency`] | scopes allocated at run time, `sync_write` (release), `sync_read` (acquire) and `sync`, with the timestamp scheme that skips an invalidation when nothing in the scope was released since this core last invalidated |
//! | [`sync`] | locks: a ticket lock over a fetch-and-increment, rma's GBH and MCS-WP locks (a test-and-set register, queues), a hierarchical lock (a ticket lock per tile in front of a global one); barriers (rma's, on arrival flags in the cores' MPBs); counters |
//! | task control | [`Dsm::rank`], [`Dsm::size`], [`Dsm::core`], [`Dsm::tile`] |
//! | [`stats`] | per-service calls, total and longest time, lock waits, cache actions and skipped invalidations |
//!
//! On them, [`spmd`] is OpenSHMEM's model for Rust programs (a symmetric
//! heap whose allocator, [`heap`], C's `libshmem.a` uses too).
//!
//! No synchronisation primitive flushes or invalidates on its own: a lock
//! or a barrier orders cores, a scope's `sync_write`/`sync_read` moves
//! data between caches and memory, and a model combines them. The two
//! recipes, written once here: acquire = take the lock (or pass the
//! barrier), then [`Dsm::sync_read`]; release = [`Dsm::sync_write`], then
//! give the lock up (or enter the barrier).
//!
//! Every shared word the services keep (scope timestamps, tickets,
//! counters) lies in one uncached control region on rank 0, one word per
//! 32-byte line, changed only by rma's atomics under the owner's
//! test-and-set register. Scopes, locks and counters are allocated by
//! every core in the same order (as OpenSHMEM's symmetric objects are), so
//! the same call gets the same one everywhere without a message.
//!
//! The crate is `no_std` with `alloc` and has no `unsafe` code; its
//! algorithms run on the host under rma's mock HAL (`cargo test -p dsm`).
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(missing_debug_implementations)]

extern crate alloc;

use alloc::vec::Vec;
use core::fmt;

use chip::{CoreId, MemoryType, TileId};
use rma::hal::RmaHal;
use rma::{Assert, Rma, RmaError, Window, WindowOptions};

pub mod consistency;
pub mod heap;
pub mod region;
pub mod spmd;
pub mod stats;
pub mod sync;
#[cfg(test)]
mod tests;

pub use consistency::{Enforcement, Scope};
pub use region::{Attribute, Distribution, Granted, Region};
pub use stats::{ServiceStats, Stats};
pub use sync::{Counter, Lock, LockKind};

/// Bytes of one cache line: the unit of the cyclic and hashed
/// distributions and of the control words' padding.
pub const LINE: u32 = 32;

/// Scopes one run may allocate.
pub const MAX_SCOPES: u32 = 64;
/// Locks one run may allocate.
pub const MAX_LOCKS: u32 = 64;
/// Counters one run may allocate.
pub const MAX_COUNTERS: u32 = 64;

/// Words of the control region, one per line: scope timestamps, then two
/// per lock (next ticket, ticket served), then counters.
const CONTROL_WORDS: u32 = MAX_SCOPES + 2 * MAX_LOCKS + MAX_COUNTERS;
/// `u32`s per line: a control word's index times this is its element.
const WORD_STRIDE: u32 = LINE / 4;

/// What went wrong in a service call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DsmError {
    /// rma refused or failed the operation underneath.
    Rma(RmaError),
    /// Every scope, lock or counter of the run is allocated.
    Exhausted {
        /// "scope", "lock" or "counter".
        what: &'static str,
        /// How many a run has.
        max: u32,
    },
    /// Bytes outside a region.
    Range {
        /// The call.
        call: &'static str,
        /// The first byte.
        offset: u64,
        /// The bytes asked for.
        len: u64,
        /// The region's bytes.
        size: u64,
    },
    /// An atomic on an element that is not aligned to its size.
    Unaligned {
        /// The call.
        call: &'static str,
        /// The offset given.
        offset: u32,
        /// The element's size.
        size: u32,
    },
    /// A region handle that was freed or never allocated here.
    UnknownRegion(u32),
    /// A distribution that names a core outside the run.
    Distribution {
        /// The rank named.
        rank: u32,
        /// The run's cores.
        size: u32,
    },
    /// A lock given up that is not held: a lock's handle, or a lock
    /// word's offset.
    NotHeld(u32),
    /// A call a kind of lock does not have.
    Unsupported {
        /// The call.
        call: &'static str,
        /// The kind of lock.
        what: &'static str,
    },
}

impl From<RmaError> for DsmError {
    fn from(e: RmaError) -> Self {
        DsmError::Rma(e)
    }
}

impl fmt::Display for DsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DsmError::Rma(e) => write!(f, "{e}"),
            DsmError::Exhausted { what, max } => {
                write!(f, "every {what} is allocated already ({max} per run)")
            }
            DsmError::Range {
                call,
                offset,
                len,
                size,
            } => write!(
                f,
                "{call}: bytes {offset}..{} lie outside the region of {size} bytes",
                offset + len
            ),
            DsmError::Unaligned { call, offset, size } => write!(
                f,
                "{call}: offset {offset} is not a multiple of the element's {size} bytes"
            ),
            DsmError::UnknownRegion(id) => write!(f, "region {id} does not exist (freed?)"),
            DsmError::Distribution { rank, size } => write!(
                f,
                "a region on rank {rank}: the run has ranks 0 to {}",
                size - 1
            ),
            DsmError::NotHeld(id) => write!(f, "lock {id} is not held"),
            DsmError::Unsupported { call, what } => {
                write!(f, "{call}: {what} locks have no such call")
            }
        }
    }
}

impl core::error::Error for DsmError {}

/// The services on one core: every core of the run makes one
/// ([`Dsm::new`], collectively) and calls the collective services in the
/// same order.
#[derive(Debug)]
pub struct Dsm<'h, H: RmaHal> {
    rma: Rma<'h, H>,
    /// The control words, on rank 0, uncached.
    control: Window<u32>,
    /// Regions by id (`None` once freed).
    regions: Vec<Option<region::RegionState>>,
    /// The timestamp of each allocated scope this core last invalidated
    /// at, and the memory types the scope covers.
    scopes: Vec<consistency::ScopeState>,
    /// Locks allocated: how each is taken, and whether this core holds
    /// it.
    locks: Vec<sync::LockState>,
    /// Counters allocated.
    counters: u32,
    /// Whether the consistency service acts.
    enforcement: Enforcement,
    stats: Stats,
}

impl<'h, H: RmaHal> Dsm<'h, H> {
    /// Starts the services on this core, collectively over `rma`'s
    /// communicator: allocates the control region on rank 0 and opens the
    /// passive access epoch every later service call runs in.
    ///
    /// Return values: `Err(Rma(..))` if the control region cannot be
    /// allocated.
    pub fn new(mut rma: Rma<'h, H>) -> Result<Self, DsmError> {
        let words = if rma.rank() == 0 {
            CONTROL_WORDS * WORD_STRIDE
        } else {
            0
        };
        let control =
            rma.allocate::<u32>(words, WindowOptions::new().memory_type(MemoryType::Ncm))?;
        if rma.rank() == 0 {
            let zeros = alloc::vec![0u32; words as usize];
            rma.local_write(control, 0, &zeros)?;
        }
        rma.comm().barrier();
        rma.lock_all(control, Assert::NONE)?;
        Ok(Self {
            rma,
            control,
            regions: Vec::new(),
            scopes: Vec::new(),
            locks: Vec::new(),
            counters: 0,
            enforcement: Enforcement::On,
            stats: Stats::default(),
        })
    }

    /// The layer underneath, for what the services do not cover (e.g.
    /// the communicator's collectives).
    pub fn rma(&mut self) -> &mut Rma<'h, H> {
        &mut self.rma
    }

    /// This core's rank in the run.
    pub fn rank(&self) -> u32 {
        self.rma.rank()
    }

    /// The run's cores.
    pub fn size(&self) -> u32 {
        self.rma.size()
    }

    /// The core this rank runs on.
    pub fn core(&self) -> CoreId {
        rma::hal::Topology::core(self.rma.hal())
    }

    /// The tile of the core of `rank`.
    ///
    /// Return values: `Err(Distribution)` for a rank outside the run.
    pub fn tile(&self, rank: u32) -> Result<TileId, DsmError> {
        if rank >= self.size() {
            return Err(DsmError::Distribution {
                rank,
                size: self.size(),
            });
        }
        let hal = self.rma.hal();
        let core = rma::hal::Topology::participant(hal, rank);
        Ok(rma::hal::Topology::tile_of(hal, core))
    }

    /// What each service has done on this core so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Ends the services on this core, collectively: closes the access
    /// epochs, frees every region still allocated (a hierarchical
    /// lock's too), rma's locks' windows and the control region, and gives
    /// back the layer underneath.
    ///
    /// Return values: `Err(Rma(..))` if a free fails.
    pub fn finish(mut self) -> Result<Rma<'h, H>, DsmError> {
        for id in 0..self.regions.len() {
            if self.regions[id].is_some() {
                self.free(Region(id as u32))?;
            }
        }
        for window in self.locks.iter().filter_map(|l| l.window()) {
            self.rma.free(window)?;
        }
        self.rma.unlock_all(self.control)?;
        self.rma.free(self.control)?;
        Ok(self.rma)
    }

    /// The clock, for the statistics.
    fn now(&self) -> u64 {
        rma::hal::Clock::cycles(self.rma.hal())
    }

    /// The element of control word `word`.
    const fn control_at(word: u32) -> u32 {
        word * WORD_STRIDE
    }
}
