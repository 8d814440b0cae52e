// SPDX-License-Identifier: MIT OR Apache-2.0
//! Moving the kernel onto another stack for good.

use core::arch::asm;
use core::convert::Infallible;
use core::mem::ManuallyDrop;

/// Runs `f` on the stack whose top (first byte above it) is `top`, and
/// never comes back (`f` cannot return: it returns [`Infallible`]). What `f` captures is moved onto the new stack; what
/// it borrows from the old one stays valid, since the old stack is left
/// as it is and never unwinds.
///
/// # Safety
/// The memory below `top` must be mapped, writable and used by nothing
/// else, deep enough for everything `f` does (or guarded by an unmapped
/// page, so that an overflow faults); `top` must be 16-byte aligned; the
/// old stack must stay mapped while `f` borrows from it.
pub unsafe fn run_on<F: FnOnce() -> Infallible>(top: u32, f: F) -> ! {
    let f = ManuallyDrop::new(f);
    let f: *const F = &raw const *f;
    // SAFETY: the caller guarantees the new stack. The closure's pointer
    // is passed as the trampoline's one argument, 16-byte aligned at the
    // call as the i386 System V ABI wants; nothing returns here.
    unsafe {
        asm!(
            "mov esp, {top}",
            "sub esp, 12",
            "push {f}",
            "call {trampoline}",
            "ud2",
            top = in(reg) top,
            f = in(reg) f,
            trampoline = sym trampoline::<F>,
            options(noreturn),
        )
    }
}

/// Moves the closure at `f` onto this (the new) stack and runs it.
extern "C" fn trampoline<F: FnOnce() -> Infallible>(f: *const F) -> ! {
    // SAFETY: `run_on` passes its closure, which it never uses or drops
    // again, on the old stack, which is left untouched.
    let f = unsafe { f.read() };
    match f() {}
}
