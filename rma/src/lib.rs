// SPDX-License-Identifier: MIT OR Apache-2.0
//! MPI one-sided communication for non-cache-coherent many-core chips.
//!
//! rma consumes the hardware through the traits in [`hal`], which the
//! kernel implements for the SCC and [`hal::mock`] (feature `mock`)
//! implements with host threads. On top of them, [`comm`] provides ranks
//! and groups, a two-sided channel through the message passing buffers and
//! the collectives the one-sided layers need. For the one-sided layer,
//! [`epoch`] has the access and exposure state machines, [`coherence`] the
//! cache actions each call needs per memory type, and [`stats`] the
//! per-window counts. The chip definition every layer
//! shares is re-exported as [`chip`].
//!
//! The crate is `no_std` with `alloc`; it contains no `unsafe` code.
#![cfg_attr(not(test), no_std)]
#![warn(missing_docs)]
#![deny(missing_debug_implementations)]

extern crate alloc;

pub mod coherence;
pub mod comm;
pub mod epoch;
mod error;
pub mod hal;
pub mod stats;

pub use chip;
pub use coherence::Coherence;
pub use epoch::Assert;
pub use error::{ErrorClass, RmaError};
pub use stats::WindowStats;
