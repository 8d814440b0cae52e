// SPDX-License-Identifier: MIT OR Apache-2.0
//! MPI for C programs on the emulated cores: `include/mpi.h` and the
//! library behind it, built as `libmpi.a` for the guest.
//!
//! `libmpi.a` holds everything a C program's image needs but the program:
//! the kernel, the C runtime (`crt`, whose `main` program this crate
//! declares with `kernel::programs!`), rma, and the MPI calls
//! (`guest`, over rma's communicator and windows). `cargo xtask run --c
//! FILE.c` compiles the program with the system's gcc for the 32-bit
//! freestanding target and links it against the library and the kernel's
//! linker script.
//!
//! The numbers C sees (error classes, predefined handles) are declared in
//! [`codes`] and in `mpi.h` alike; a host test compares the two.
//! `MPI_MINLOC` and `MPI_MAXLOC` ([`loc`]) are plain work on bytes, tested
//! on the host too, and so is the bookkeeping of a window's two copies of
//! program memory ([`copies`]). The rest of the library runs only on the guest.
#![cfg_attr(target_arch = "x86", no_std)]
#![warn(missing_docs)]
// MPI's names are C's.
#![cfg_attr(target_arch = "x86", allow(non_snake_case))]

extern crate alloc;

pub mod codes;
pub mod copies;
#[cfg(target_arch = "x86")]
mod guest;
pub mod loc;

#[cfg(target_arch = "x86")]
kernel::programs! {
    /// the C program's main(argc, argv), linked against MPI, the C runtime and the kernel
    "main" => crt::run_main,
}
