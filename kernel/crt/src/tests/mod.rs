// SPDX-License-Identifier: MIT OR Apache-2.0
//! Host tests of the C runtime: the renamed library (`crt_*`) against the
//! host's C library, and against the specification where they differ.
//!
//! The library keeps global state (errno, stdout's buffer, getopt's scan,
//! the random state, the hooks' records), so every test holds
//! [`hooks::lock`] while it runs. Tests of functions that end the program
//! run in a child process ([`hooks::run_child`]).

mod complex;
mod ctype;
mod ffi;
mod format;
mod getopt;
mod hooks;
mod i386;
mod math;
mod memory;
mod misc;
mod process;
mod pthread;
mod scanf;
mod stdio;
mod string;
mod strtod;
mod strtol;
mod time;
