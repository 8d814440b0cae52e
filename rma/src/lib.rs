// SPDX-License-Identifier: MIT OR Apache-2.0
//! MPI one-sided communication for non-cache-coherent many-core chips.
//!
//! rma consumes the hardware through the traits in [`hal`], which the
//! kernel implements for the SCC and [`hal::mock`] (feature `mock`)
//! implements with host threads. On top of them, [`comm`] provides ranks
//! and groups, a two-sided channel through the message passing buffers and
//! the collectives the one-sided layers need. The one-sided layer follows
//! MPI's OSC split: [`window`] (creation, the distributed window database,
//! remote mappings through free LUT entries), [`ops`] (put and get),
//! [`epoch`] (access and exposure state machines), [`active`] (fence and
//! post/start/complete/wait), [`passive`] (lock/unlock, lock_all, flush
//! and sync with GBH), [`accumulate`] (accumulate, get_accumulate,
//! fetch_and_op and compare_and_swap, atomic per element under the
//! target's test-and-set register), [`request`] (rput, rget, raccumulate
//! and rget_accumulate in passive-target epochs), [`coherence`] (the cache
//! actions each call needs per memory type) and [`stats`]. The chip definition every layer
//! shares is re-exported as [`chip`].
//!
//! The crate is `no_std` with `alloc`; it contains no `unsafe` code.
#![cfg_attr(not(test), no_std)]
#![warn(missing_docs)]
#![deny(missing_debug_implementations)]

extern crate alloc;

pub mod accumulate;
pub mod active;
pub mod coherence;
pub mod comm;
pub mod dht;
pub mod epoch;
mod error;
pub mod hal;
pub mod ops;
pub mod passive;
pub mod request;
pub mod stats;
pub mod window;

pub use accumulate::{Accumulable, AccumulateOp};
pub use chip;
pub use coherence::Coherence;
pub use epoch::{Assert, LockType};
pub use error::{ErrorClass, RmaError};
pub use ops::Vector;
pub use passive::LockScheme;
pub use request::Request;
pub use stats::WindowStats;
pub use window::{Memory, Rma, Window, WindowOptions};
