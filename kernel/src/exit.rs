// SPDX-License-Identifier: MIT OR Apache-2.0
//! Ending the run through QEMU's `isa-debug-exit` device.
//!
//! A value `v` written to port 0xF4 makes QEMU exit with status `(v << 1) | 1`:
//! 0x10 gives 33 (success), 0x11 gives 35 (failure). The host treats every
//! other status, 0 included (a reset), as a failure.

use crate::arch::x86::instructions::halt;

/// I/O port of the `isa-debug-exit` device.
const DEBUG_EXIT_PORT: u16 = 0xF4;

/// How the core ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// The program did what it should.
    Success = 0x10,
    /// Something went wrong; the reason was printed before.
    Failure = 0x11,
}

/// Ends the run of this core.
pub fn exit(code: ExitCode) -> ! {
    // SAFETY: port 0xF4 is the debug-exit device, which only stops QEMU.
    unsafe { x86::io::outb(DEBUG_EXIT_PORT, code as u8) };
    // QEMU stops the machine from its main loop, a little after the write,
    // so the core must not do anything visible meanwhile. Without the device
    // (silicon) the core halts here and the host sees it never finish.
    loop {
        halt();
    }
}
