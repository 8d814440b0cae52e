// SPDX-License-Identifier: MIT OR Apache-2.0
//! MPI one-sided communication for non-cache-coherent many-core chips.
//!
//! rma stands on the kernel. It reaches the hardware through the traits
//! in [`hal`]: it implements them for the kernel's platform, and
//! `hal::mock` (feature `mock`) implements them with host threads for the
//! tests.
//!
//! # Modules, bottom up
//!
//! - [`comm`]: ranks, groups and communicators (the run's, and `split`,
//!   `create` and `dup` of it), a two-sided channel through the message
//!   passing buffers, and the collectives the one-sided layers need.
//! - [`window`]: windows on any communicator, dynamic windows, the window
//!   database ([`Database`], distributed or centralized as
//!   [`WindowOptions`] say), remote mappings through free LUT entries.
//! - [`datatype`]: MPI's derived datatypes over one element type,
//!   committed into runs that every operation copies as blocks.
//! - [`transfer`]: [`Transfer`], one description of a put, get or
//!   accumulate that every form of them goes through.
//! - [`ops`] (put and get), [`accumulate`] (the accumulate family,
//!   atomic per element under the target's test-and-set register), each
//!   with its request forms; [`request`] (requests, their waits and
//!   tests).
//! - [`epoch`] (access and exposure states), [`active`] (fence and
//!   post/start/complete/wait), [`passive`] (lock/unlock, lock_all, flush
//!   and sync with GBH, GBH with back-off or MCS-WP).
//! - [`coherence`]: the cache actions each call needs per memory type.
//! - [`dht`]: a distributed hash table on passive-target locks;
//!   [`stats`]: counters per window.
//! - [`msg`]: a separate, message-based one-sided layer in the style of
//!   RCKMPI (MPICH CH3). Operations travel as MPB messages and the target
//!   applies them. It is the baseline the memory-based layer is compared
//!   with. [`OneSided`] is the interface both implement.
//!
//! # [`Rma`]'s calls by concern
//!
//! | concern | calls |
//! |---|---|
//! | the run | `new`, `comm`, `rank`, `size`, `hal` |
//! | memory | `alloc_mem`, `free_mem`, `memory_read`, `memory_write`, `popshm`, `popshm_left`, `pin_memory`, `pin_part` |
//! | windows | `allocate`, `allocate_on`, `create`, `create_on`, `allocate_shared`, `allocate_shared_on`, `create_dynamic`, `create_dynamic_on`, `free` |
//! | dynamic windows | `attach`, `attach_at`, `detach`, `address` |
//! | a window's facts | `size_of`, `disp_unit_of`, `attributes`, `options`, `group`, `rank_in`, `size_in`, `stats`, `window_memory` |
//! | this core's part | `local`, `local_read`, `local_write`, `shared_query`, `shared_load`, `shared_store`, `contiguous_block` |
//! | put and get | `put_with`, `get_with`; `put`, `get`, `put_vector`, `get_vector`, `put_typed`, `get_typed` |
//! | accumulate | `accumulate_with`, `get_accumulate_with`; `accumulate`, `accumulate_vector`, `accumulate_typed`, `get_accumulate`, `get_accumulate_typed`, `fetch_and_op`, `compare_and_swap` |
//! | requests | `rput`, `rget`, `raccumulate`, `rget_accumulate` and their `_typed` forms; `wait_request`, `test_request`, `wait_all`, `test_all` |
//! | active target | `fence`, `post`, `start`, `complete`, `wait`, `test` |
//! | passive target | `lock`, `unlock`, `lock_all`, `unlock_all`, `flush`, `flush_local`, `flush_all`, `flush_local_all`, `sync` |
//! | the LUT | `set_lut_entries`, `lut_entries_in_use` |
//!
//! The `_with` calls take a [`Transfer`]; every other put, get and
//! accumulate form builds one and calls the same code.
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
pub mod transfer;
pub mod window;
mod x87;

pub use accumulate::{Accumulable, AccumulateOp, Loc, ShortLoc, X87};
pub use chip;
pub use coherence::Coherence;
pub use datatype::{Block, Committed, Counted, Datatype, Run, Shape, StructBlock, Vector};
pub use epoch::{Assert, LockType};
pub use error::{ErrorClass, RmaError};
pub use one_sided::OneSided;
pub use passive::LockScheme;
pub use request::Request;
pub use stats::WindowStats;
pub use transfer::{Completion, PROC_NULL, Transfer};
pub use window::database::Database;
pub use window::{
    AccumulateOps, AccumulateOrdering, Flavor, LocalMapping, LocalView, Memory, MemoryModel, Rma,
    SharedPart, Window, WindowAttributes, WindowOptions,
};
