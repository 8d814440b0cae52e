// SPDX-License-Identifier: MIT OR Apache-2.0
//! The per-core kernel, as a library: it boots one SCC core and hands it to
//! the app the image was built from.
//!
//! An app is a binary crate that depends on this one and declares its
//! programs with [`programs!`]; the kernel knows no program. Start-up order:
//! console, GDT and IDT (so every later fault is reported), boot
//! information, heap, command line ([`chip::args::BootArgs`]), paging with
//! the SCC memory types and the shared regions placed at their SCC
//! addresses (code and read-only data read-only), the switch to a stack of
//! the size the command line asks for with an unmapped guard page below
//! it, identity from MYTILEID, then the program the command line names,
//! with its settings parsed. The run ends through `isa-debug-exit`.
//!
//! What an app uses: [`Platform`] (the core: its identity, MPBs, TSRs,
//! caches and memory mapping), [`println!`], [`AppResult`], and the
//! lower layers in [`arch`], [`mm`] and [`platform`].
//!
//! The library is built for the 32-bit guest target (`cargo xtask
//! build`). Built for the host it holds only its pure parts, for their
//! unit tests (`cargo test -p kernel`): page-table entries and address
//! splits, frame bookkeeping, LUT slot bookkeeping, the shared regions'
//! memory types, and the program table. Everything that runs
//! instructions of its own, touches devices or writes memory through raw
//! pointers is `#[cfg(target_arch = "x86")]`.
//!
//! The chip is not built in: the run names it on the command line
//! (`chip::args::BootArgs`), so one image boots on every chip of
//! `chip::CHIPS`, and every number of the hardware comes from that chip.
//!
//! Modules depend on each other one way: `console` and `exit`
//! at the bottom (they use no other module of the kernel), then `arch`,
//! `mm`, `platform`, `app` and `start`, each using only those before it.
//!
//! # Safety
//! The kernel runs at CPL 0 with interrupts off on a single core, with all
//! memory it touches identity-mapped; shared memory is only ever accessed
//! through raw pointers with volatile or atomic instructions.
#![no_std]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod app;
pub mod arch;
#[cfg(target_arch = "x86")]
pub mod console;
#[cfg(target_arch = "x86")]
pub mod exit;
#[cfg(target_arch = "x86")]
mod mem;
pub mod mm;
pub mod platform;
#[cfg(target_arch = "x86")]
mod start;

pub use app::{AppError, AppResult, Program};
/// The chip crate the kernel is built on, for apps and [`programs!`].
pub use chip;
#[cfg(target_arch = "x86")]
pub use platform::Platform;
