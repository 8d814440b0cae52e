// SPDX-License-Identifier: MIT OR Apache-2.0
//! Ending the run through QEMU's `isa-debug-exit` device.
//!
//! A byte written to `chip::EXIT_PORT` makes QEMU exit with status
//! `(byte << 1) | 1`: `GUEST_SUCCESS` gives 33, `GUEST_FAILURE` 35 and
//! `GUEST_ENDS_RUN` 37. The host
//! treats every other status, 0 included (a reset), as a failure.
//!
//! Like the console, this module stands below `arch` and uses only the
//! `x86` crate and the console, so that the exception handlers can end the
//! run.

use core::fmt::{self, Write};

use chip::{EXIT_PORT, GUEST_ENDS_RUN, GUEST_FAILURE, GUEST_SUCCESS};

use crate::console;

/// How the core ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// The program did what it should.
    Success = GUEST_SUCCESS,
    /// Something went wrong; the reason was printed before.
    Failure = GUEST_FAILURE,
    /// The program ends the run of every core successfully, wherever the
    /// others are (`shmem_global_exit(0)`); the run tool stops them.
    EndsRun = GUEST_ENDS_RUN,
}

/// Ends the run of this core.
pub fn exit(code: ExitCode) -> ! {
    // SAFETY: the exit port is the debug-exit device, which only stops QEMU.
    unsafe { x86::io::outb(EXIT_PORT, code as u8) };
    // QEMU stops the machine from its main loop, a little after the write,
    // so the core must not do anything visible meanwhile. Without the device
    // (silicon) the core halts here and the host sees it never finish.
    loop {
        // SAFETY: the kernel runs at CPL 0, where hlt only stops the core
        // until the next interrupt; it has no effect on memory.
        unsafe { x86::halt() };
    }
}

/// Reports a failure of this core (`FAILED: reason`, the line the run
/// tool looks for) and ends its run.
pub fn fail(reason: fmt::Arguments<'_>) -> ! {
    let _ = writeln!(console::emergency_writer(), "FAILED: {reason}");
    exit(ExitCode::Failure)
}
