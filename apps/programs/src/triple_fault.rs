// SPDX-License-Identifier: MIT OR Apache-2.0
//! A crash the kernel cannot report: the highest-numbered core loads an
//! empty IDT and raises an exception, which the CPU can deliver neither
//! directly nor as a double fault, so it shuts down (a triple fault). The
//! others wait in a barrier that never completes. The host must still end
//! the run naming that core, from how its QEMU exited.

use alloc::string::String;
use core::arch::asm;

use crate::support::communicator;
use kernel::Platform;

/// An IDT descriptor of limit 0: no vector is present.
#[repr(C, packed)]
struct EmptyIdt {
    limit: u16,
    base: u32,
}

static EMPTY_IDT: EmptyIdt = EmptyIdt { limit: 0, base: 0 };

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    if platform.core().index() as u32 == platform.cores() - 1 {
        kernel::println!("loading an empty IDT and raising an exception");
        // SAFETY: deliberately ends this core: with no IDT, int3 becomes a
        // triple fault and the CPU shuts down; nothing runs afterwards.
        unsafe { asm!("lidt [{}]", "int3", in(reg) &raw const EMPTY_IDT, options(nostack)) };
        return Err("the core went on after a triple fault".into());
    }
    communicator(platform)?.barrier();
    Err("the barrier passed although one core crashed".into())
}
