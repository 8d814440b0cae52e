// SPDX-License-Identifier: MIT OR Apache-2.0
//! A global address space over rma windows, for irregular applications.
//!
//! - [`dist`]: global pointers ([`GlobalPtr`]: owner and offset) and how
//!   a global array's elements are spread over the owners
//!   ([`Distribution`]: block, cyclic or hashed, at the granularity of a
//!   cache line; the owners taken in rank order or interleaved over the
//!   memory controllers, [`Spread`]). Pure functions.
//! - [`counters`]: remote requests per target and per memory controller,
//!   and their relative standard deviation: where the hot spots are.
//! - [`space`]: [`Gas`], global arrays allocated over one rma window each,
//!   read and written with get, put, fetch-and-add and compare-and-swap
//!   through rma inside one passive-target epoch (`lock_all`), blocking
//!   or split-phase ([`space::Handle`]), and per-owner exclusive locks.
//! - [`exec`]: a cooperative executor of `async` tasks on one core, so a
//!   core keeps several remote operations in flight and runs another
//!   task while one waits for a lock.
//! - [`graph`]: SSCA#2's R-MAT graph (any edge made alone from the seed
//!   and its number), adjacency in compressed rows, and serial Brandes
//!   betweenness in fixed point and in `f64`, to check a parallel one.
//!
//! The crate is `no_std` with `alloc` and contains no `unsafe` code.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(missing_debug_implementations)]

extern crate alloc;

pub mod counters;
pub mod dist;
pub mod exec;
pub mod graph;
pub mod space;

pub use counters::{Counters, relative_std_dev};
pub use dist::{Distribution, GlobalPtr, Layout, Spread};
pub use exec::{Executor, yield_now};
pub use space::{Gas, GlobalArray, Handle};
