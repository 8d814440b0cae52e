// SPDX-License-Identifier: MIT OR Apache-2.0
//! Single instructions the rest of the kernel needs, each behind a safe
//! wrapper where it cannot break memory safety on its own.

use core::arch::asm;

/// Encoding of CL1INVMB, the SCC's only instruction-set extension.
pub const CL1INVMB_OPCODE: [u8; 2] = [0x0F, 0x0A];

/// Invalidates every MPBT-tagged line in this core's L1, dropping modified
/// data without writing it back (thesis 1.5). Under QEMU it raises #UD
/// after the chip model has done the work; the #UD handler steps over it.
#[inline]
pub fn cl1invmb() {
    // SAFETY: only discards MPBT cache lines; memory that is not MPBT-typed is
    // unaffected. The asm is a compiler barrier, so no access moves across it.
    unsafe { asm!(".byte 0x0f, 0x0a", options(nostack, preserves_flags)) };
}

/// Writes back and invalidates this core's L1 (WBINVD). On the SCC it does
/// not reach L2, which has no flush: a modified MPBT line goes to memory, a
/// modified DCM line only to L2 (thesis 1.5).
#[inline]
pub fn wbinvd() {
    // SAFETY: writing back and invalidating caches never loses data, so it
    // cannot break memory safety; no `nomem`, so the asm is a compiler
    // barrier and no access moves across it.
    unsafe { asm!("wbinvd", options(nostack, preserves_flags)) };
}

/// Drops the TLB entry of the page at `addr`, so the next access reads the
/// page tables again.
#[inline]
pub fn invlpg(addr: u32) {
    // SAFETY: a TLB flush only makes the CPU follow the page tables as they
    // are; it changes no mapping. Not `nomem`: the page-table store before it
    // must not move after it.
    unsafe { asm!("invlpg [{}]", in(reg) addr, options(nostack, preserves_flags)) };
}

/// The faulting address of the last page fault.
#[inline]
pub fn read_cr2() -> u32 {
    // SAFETY: reading CR2 has no side effect; the kernel runs at CPL 0.
    unsafe { x86::controlregs::cr2() as u32 }
}

/// The time-stamp counter (RDTSC): core cycles on silicon, host time under
/// QEMU's TCG.
pub fn rdtsc() -> u64 {
    let (low, high): (u32, u32);
    // SAFETY: rdtsc only reads the time-stamp counter (the P54C has it, and
    // CR4.TSD is clear, so it is allowed at any privilege level).
    unsafe {
        asm!("rdtsc", out("eax") low, out("edx") high, options(nomem, nostack, preserves_flags))
    };
    u64::from(high) << 32 | u64::from(low)
}
