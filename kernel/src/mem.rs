// SPDX-License-Identifier: MIT OR Apache-2.0
//! The C memory functions the compiler calls (`memcpy`, `memset`, ...).
//!
//! The prebuilt i586 Linux target expects them from libc, which a bare-metal
//! image does not have. They are written with string instructions, so the
//! optimiser cannot turn their bodies back into calls to themselves, and
//! move words where they can: on the SCC neither cache allocates a line on
//! a store, so a store to memory not cached goes over the mesh on its own,
//! and a word takes one trip where four bytes would take four. ESI
//! cannot be an asm operand on 32-bit x86 (LLVM reserves it), so the copies
//! swap it in and out by hand, through a fixed register (a `reg` operand
//! may be given ESI itself, which the swap would then lose).

use core::arch::asm;

/// # Safety
/// C `memcpy`: `dst` and `src` valid for `n` bytes and not overlapping.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller guarantees both ranges; DF is clear by ABI.
    unsafe {
        asm!(
            "xchg esi, edx",
            "rep movsd",
            "mov ecx, eax",
            "rep movsb",
            "mov esi, edx",
            // Fixed registers: a register operand may be given ESI itself.
            inout("edx") src => _,
            in("eax") n % 4,
            inout("ecx") n / 4 => _,
            inout("edi") dst => _,
            options(nostack, preserves_flags),
        );
    }
    dst
}

/// # Safety
/// C `memmove`: `dst` and `src` valid for `n` bytes; they may overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    if (dst as usize).wrapping_sub(src as usize) >= n {
        // SAFETY: copying forward is safe when dst is below src or past its end.
        return unsafe { memcpy(dst, src, n) };
    }
    // SAFETY: dst overlaps the tail of src: copy backwards from the last byte,
    // with the direction flag set only for this instruction.
    unsafe {
        asm!(
            "xchg esi, edx",
            "std",
            "rep movsb",
            "cld",
            "mov esi, edx",
            inout("edx") src.add(n - 1) => _,
            inout("ecx") n => _,
            inout("edi") dst.add(n - 1) => _,
            options(nostack),
        );
    }
    dst
}

/// # Safety
/// C `memset`: `dst` valid for `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memset(dst: *mut u8, value: i32, n: usize) -> *mut u8 {
    let word = u32::from(value as u8) * 0x0101_0101;
    // Bytes up to the first aligned word, then words, then the rest.
    let head = dst.align_offset(4).min(n);
    let body = n - head;
    // SAFETY: the caller guarantees the range (head + 4 * words + tail =
    // n bytes from dst); DF is clear by ABI.
    unsafe {
        asm!(
            "rep stosb",
            "mov ecx, {words}",
            "rep stosd",
            "mov ecx, {tail}",
            "rep stosb",
            words = in(reg) body / 4,
            tail = in(reg) body % 4,
            inout("ecx") head => _,
            inout("edi") dst => _,
            in("eax") word,
            options(nostack, preserves_flags),
        );
    }
    dst
}

/// # Safety
/// C `memcmp`: `a` and `b` valid for `n` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    for i in 0..n {
        // SAFETY: i < n and the caller guarantees n readable bytes at both.
        let (x, y) = unsafe { (a.add(i).read(), b.add(i).read()) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
    }
    0
}

/// # Safety
/// C `bcmp`: as `memcmp`, only equality matters.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: same contract as memcmp.
    unsafe { memcmp(a, b, n) }
}
