// SPDX-License-Identifier: MIT OR Apache-2.0
//! OpenSHMEM for C programs on the emulated cores: `include/shmem.h` and
//! the library behind it, built as `libshmem.a` for the guest.
//!
//! `libshmem.a` holds everything a C program's image needs but the
//! program: the kernel, the C runtime (`crt`, whose `main` program this
//! crate declares with `kernel::programs!`), rma, the dsm services and
//! the OpenSHMEM routines (`guest`). `cargo xtask oshcc` compiles a
//! program against the header and links it with the library;
//! `cargo xtask oshrun` (or `mpiexec`) boots it on every core.
//!
//! Each PE's symmetric heap is its part of one dsm region distributed in
//! blocks, so an object has the same offset on every PE; the allocator
//! that keeps the offsets the same (`dsm::heap`) is plain work on
//! numbers, tested on the host. `dsm::spmd` gives Rust programs the same
//! model, typed. The C routines run only on the guest.
#![cfg_attr(target_arch = "x86", no_std)]
#![warn(missing_docs)]

extern crate alloc;

#[cfg(target_arch = "x86")]
mod guest;

#[cfg(target_arch = "x86")]
kernel::programs! {
    /// the C program's main(argc, argv), linked against OpenSHMEM, the C runtime and the kernel
    "main" => crt::run_main,
}
