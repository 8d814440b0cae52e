// SPDX-License-Identifier: MIT OR Apache-2.0
//! MPI one-sided communication for non-cache-coherent many-core chips.
//!
//! rma stands on the kernel and consumes the hardware through the
//! traits in [`hal`], which it implements for the kernel's platform and `hal::mock` (feature `mock`)
//! implements with host threads. On top of them, [`comm`] provides ranks
//! and groups, communicators (the run's, and `split`, `create` and `dup`
//! of it, each with a context of its own), a two-sided channel through the
//! message passing buffers and the collectives the one-sided layers need.
//! The one-sided layer follows MPI's OSC split: [`window`] (creation, on
//! any communicator; dynamic windows, with memory attached and detached
//! and reached by address; the window database, distributed
//! or centralized as [`WindowOptions`] say ([`Database`]); remote mappings
//! through free LUT entries), [`ops`] (put and get), [`datatype`]
//! (MPI's derived datatypes over one element type, committed into runs
//! that every operation copies as blocks),
//! [`epoch`] (access and exposure state machines), [`active`] (fence and
//! post/start/complete/wait), [`passive`] (lock/unlock, lock_all, flush
//! and sync with GBH, GBH with back-off or MCS-WP), [`accumulate`]
//! (accumulate, get_accumulate, fetch_and_op and compare_and_swap, atomic
//! per element under the target's test-and-set register), [`request`]
//! (rput, rget, raccumulate and rget_accumulate in passive-target epochs),
//! [`dht`] (a distributed hash table on passive-target locks),
//! [`coherence`] (the cache actions each call needs per memory type) and
//! [`stats`]. [`msg`] is a separate, message-based one-sided layer in the
//! style of RCKMPI (MPICH CH3): ops and synchronisation travel as MPB
//! messages and the target applies them while it progresses; it is the
//! baseline the memory-based layers are compared with. [`OneSided`]
//! ([`one_sided`]) is the interface both implement, so a program written
//! once over it runs on either. The chip definition every layer
//! shares is re-exported as [`chip`].
//!
//! The crate is `no_std` with `alloc`; its only `unsafe` code is the two
//! `asm!` blocks of the x87's sum and product of `long double`s (`x87`).
#![cfg_attr(not(test), no_std)]
#![warn(missing_docs)]
#![deny(missing_debug_implementations)]

extern crate alloc;

pub mod accumulate;
pub mod active;
pub mod coherence;
pub mod comm;
pub mod datatype;
pub mod dht;
pub mod epoch;
mod error;
pub mod hal;
#[cfg(test)]
mod loom;
pub mod msg;
pub mod one_sided;
pub mod ops;
pub mod passive;
pub mod request;
pub mod stats;
pub mod window;
mod x87;

pub use accumulate::{Accumulable, AccumulateOp, Loc, ShortLoc, X87};
pub use chip;
pub use coherence::Coherence;
pub use datatype::{Block, Committed, Counted, Datatype, Run, Shape, StructBlock, Vector};
pub use epoch::{Assert, LockType};
pub use error::{ErrorClass, RmaError};
pub use one_sided::OneSided;
pub use ops::PROC_NULL;
pub use passive::LockScheme;
pub use request::Request;
pub use stats::WindowStats;
pub use window::database::Database;
pub use window::{
    AccumulateOps, AccumulateOrdering, Flavor, LocalMapping, LocalView, Memory, MemoryModel, Rma,
    SharedPart, Window, WindowAttributes, WindowOptions,
};
