// SPDX-License-Identifier: MIT OR Apache-2.0
//! A one-shot wake-up timer: the local APIC timer.
//!
//! A core that waits for another halts until the timer fires instead of
//! spinning. On silicon that only saves power; under QEMU, where 48 cores
//! share a few host CPUs, a spinning core takes host time from the core it
//! is waiting for, while a halted one gives it back.
//!
//! The P54C's local APIC sits at its architectural address; the kernel
//! maps it uncached (LUT entry 254, one of the entries the chip definition
//! leaves to the platform).

use core::arch::asm;
use core::ptr::NonNull;

use volatile::VolatilePtr;
use volatile::access::WriteOnly;

/// Physical (and, identity-mapped, virtual) base of the local APIC.
/// It must lie in a LUT entry the chip leaves to the platform
/// (`platform::check_chip`).
pub const LOCAL_APIC_BASE: u32 = 0xFEE0_0000;

/// Vector of the timer interrupt (the CPU reserves 0..32 for exceptions).
pub const TIMER_VECTOR: u8 = 32;

/// Spurious-interrupt register: bit 8 enables the APIC.
const SPURIOUS: u32 = 0xF0;
const END_OF_INTERRUPT: u32 = 0xB0;
const LVT_TIMER: u32 = 0x320;
const INITIAL_COUNT: u32 = 0x380;
const CURRENT_COUNT: u32 = 0x390;
const DIVIDE_CONFIG: u32 = 0x3E0;
/// Divide the bus clock by 16.
const DIVIDE_BY_16: u32 = 0x3;
/// Timer ticks per microsecond: QEMU's APIC bus runs at 1 GHz, divided by 16.
const TICKS_PER_US: u32 = 1000 / 16;

// The interrupt only has to end: the wake-up is the point.
core::arch::global_asm!(
    ".section .text.timer, \"ax\"",
    ".global timer_interrupt_stub",
    "timer_interrupt_stub:",
    "    mov dword ptr [{eoi}], 0",
    "    iretd",
    eoi = const LOCAL_APIC_BASE + END_OF_INTERRUPT,
);

unsafe extern "C" {
    /// Entry of the timer interrupt handler above.
    pub fn timer_interrupt_stub();
}

/// Timer ticks left before the next wake-up; 0 once it has fired.
pub fn remaining_ticks() -> u32 {
    let address =
        NonNull::new((LOCAL_APIC_BASE + CURRENT_COUNT) as *mut u32).expect("non-zero address");
    // SAFETY: as for `write`; reading the current count has no side effect.
    unsafe { VolatilePtr::new_read_only(address) }.read()
}

fn write(register: u32, value: u32) {
    let address = NonNull::new((LOCAL_APIC_BASE + register) as *mut u32).expect("non-zero address");
    // SAFETY: the local APIC page is identity-mapped uncached (or paging is
    // off) whenever this runs, and these registers belong to this module.
    unsafe { VolatilePtr::new_restricted(WriteOnly, address) }.write(value);
}

/// Enables the local APIC with a one-shot timer on [`TIMER_VECTOR`].
/// Interrupts stay disabled except while halted in [`halt_for`].
///
/// The local APIC page must be mapped.
pub fn init() {
    write(SPURIOUS, 0x100 | 0xFF);
    write(DIVIDE_CONFIG, DIVIDE_BY_16);
    write(LVT_TIMER, u32::from(TIMER_VECTOR));
}

/// Halts this core for about `micros` microseconds.
pub fn halt_for(micros: u32) {
    write(INITIAL_COUNT, micros.saturating_mul(TICKS_PER_US).max(1));
    // SAFETY: `sti; hlt` cannot lose the wake-up: interrupts are recognised
    // only after the instruction that follows `sti`, so the tick cannot slip
    // in before `hlt`. Interrupts are off again afterwards.
    unsafe { asm!("sti", "hlt", "cli", options(nomem, nostack)) };
}
