// SPDX-License-Identifier: MIT OR Apache-2.0
//! The per-core kernel: boots one SCC core and runs the program its command
//! line names.
//!
//! Start-up order: console, GDT and IDT (so every later fault is reported),
//! boot information, heap, command line, paging with the SCC memory types
//! and the shared regions placed at their SCC addresses, identity from
//! MYTILEID, then the program. The run ends through `isa-debug-exit`.
//!
//! # Safety
//! The kernel runs at CPL 0 with interrupts off on a single core, with all
//! memory it touches identity-mapped; shared memory is only ever accessed
//! through raw pointers with volatile or atomic instructions.
#![cfg_attr(target_arch = "x86", no_std, no_main)]
#![warn(missing_docs)]

#[cfg(target_arch = "x86")]
extern crate alloc;

#[cfg(target_arch = "x86")]
mod arch;
#[cfg(target_arch = "x86")]
mod console;
#[cfg(target_arch = "x86")]
mod exit;
#[cfg(target_arch = "x86")]
mod mem;
#[cfg(target_arch = "x86")]
mod mm;
#[cfg(target_arch = "x86")]
mod platform;
#[cfg(target_arch = "x86")]
mod programs;
#[cfg(target_arch = "x86")]
mod start;

/// Built for the host (e.g. by `cargo test --workspace`), the kernel is
/// only this message: it is a 32-bit bare-metal image.
#[cfg(not(target_arch = "x86"))]
fn main() {
    eprintln!(
        "the kernel runs on emulated SCC cores: build it with `cargo xtask build`, run it with `cargo xtask run`"
    );
    std::process::exit(2);
}
