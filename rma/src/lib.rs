// SPDX-License-Identifier: MIT OR Apache-2.0
//! MPI one-sided communication for non-cache-coherent many-core chips.
//!
//! The chip definition every layer shares is re-exported as [`chip`].
#![cfg_attr(not(test), no_std)]
#![warn(missing_docs)]

pub use chip;
