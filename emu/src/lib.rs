// SPDX-License-Identifier: GPL-2.0-or-later
//! The SCC chip model for QEMU, on the host side.
//!
//! Each emulated core is one QEMU process; this crate holds what the tool
//! that starts them (xtask) and the plugin loaded into each of them must
//! agree on, without depending on QEMU itself:
//!
//! - [`chipmem`]: the chip's shared memory, one sparse file every instance
//!   maps, with the configuration registers at their reset values, plus
//!   each core's view of it and the directory of cached lines;
//! - [`launch`]: one core's QEMU command line, which shows that memory to
//!   the guest as PCI devices in the order the chip definition gives;
//! - [`options`]: the plugin's options ([`chip::PluginOptions`]) with the
//!   chip memory they name opened, checked before the core starts;
//! - [`model`]: the pure models of the chip's memory system (caches,
//!   write-combine buffer, LUT, test-and-set registers, statistics) and of
//!   its timing (mesh routes, memory controllers, latencies, a core's
//!   clock) that the plugin drives;
//! - [`engine`]: one core's models at work on the run's files: what the
//!   plugin calls on every shared access and cache instruction;
//! - [`timing`]: modelled time across cores: the run's clocks file, lax
//!   synchronisation within a quantum, the controllers' shared queues;
//! - [`shm`]: the mapped files, the one place with `unsafe` access to
//!   memory other processes share;
//! - [`report`]: what each core's plugin reports at exit, the file that
//!   carries it to xtask, and the tables printed from it.
//!
//! The chips it knows are listed in [`chip::CHIPS`]; their definitions live
//! in the `chip` crate, shared with the kernel.
#![warn(missing_docs)]

pub mod chipmem;
pub mod engine;
mod error;
pub mod launch;
pub mod model;
pub mod options;
pub mod report;
pub mod shm;
pub mod timing;

pub use error::{Error, Result};
