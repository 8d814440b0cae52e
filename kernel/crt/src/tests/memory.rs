// SPDX-License-Identifier: MIT OR Apache-2.0
//! malloc, calloc, realloc, free, aligned_alloc and posix_memalign on the
//! allocation hooks.

use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::vec::Vec;

use super::ffi::*;
use super::hooks::{FAIL_ALLOC, live_allocation, live_count, lock, take_bad_frees};

/// Fills n bytes at p with a pattern starting at seed.
fn fill(p: *mut c_void, n: usize, seed: u8) {
    for i in 0..n {
        // SAFETY: the caller passes n writable bytes.
        unsafe { p.cast::<u8>().add(i).write(seed.wrapping_add(i as u8)) };
    }
}

/// Whether n bytes at p hold the pattern starting at seed.
fn holds(p: *const c_void, n: usize, seed: u8) -> bool {
    // SAFETY: the caller passes n readable bytes.
    (0..n).all(|i| unsafe { p.cast::<u8>().add(i).read() } == seed.wrapping_add(i as u8))
}

#[test]
fn malloc_aligns_to_16_and_free_returns_the_same_block() {
    let _g = lock();
    let before = live_count();
    let mut blocks = Vec::new();
    for size in [0usize, 1, 7, 8, 15, 16, 17, 100, 4096, 100_000] {
        // SAFETY: plain allocation.
        let p = unsafe { crt_malloc(size) };
        assert!(!p.is_null());
        assert_eq!(p as usize % 16, 0, "malloc({size})");
        fill(p, size, size as u8);
        blocks.push((p, size));
    }
    assert_eq!(live_count(), before + blocks.len());
    for &(p, size) in &blocks {
        assert!(holds(p, size, size as u8), "blocks do not overlap");
        // SAFETY: from crt_malloc, freed once.
        unsafe { crt_free(p) };
    }
    assert_eq!(live_count(), before);
    assert_eq!(
        take_bad_frees(),
        Vec::<usize>::new(),
        "free passes the allocation's size and alignment"
    );
    // SAFETY: free(NULL) does nothing.
    unsafe { crt_free(std::ptr::null_mut()) };
    assert_eq!(live_count(), before);
}

#[test]
fn malloc_asks_the_hook_for_room_for_its_header() {
    let _g = lock();
    // SAFETY: plain allocation.
    let p = unsafe { crt_malloc(100) };
    let (size, align) = live_allocation(p as usize - 16).expect("the block starts 16 bytes below");
    assert_eq!((size, align), (116, 16));
    // SAFETY: from crt_malloc.
    unsafe { crt_free(p) };
}

#[test]
fn aligned_alloc_and_posix_memalign_honour_the_alignment() {
    let _g = lock();
    for align in [1usize, 2, 8, 16, 32, 64, 256, 4096, 65536] {
        // SAFETY: plain allocation.
        let p = unsafe { crt_aligned_alloc(align, 40) };
        assert!(!p.is_null());
        assert_eq!(p as usize % align.max(16), 0, "aligned_alloc({align})");
        fill(p, 40, 3);
        // realloc keeps the alignment.
        // SAFETY: p is live.
        let q = unsafe { crt_realloc(p, 5000) };
        assert_eq!(
            q as usize % align.max(16),
            0,
            "realloc of aligned_alloc({align})"
        );
        assert!(holds(q, 40, 3));
        // SAFETY: q is live.
        unsafe { crt_free(q) };
        let mut r: *mut c_void = std::ptr::null_mut();
        if align >= 8 {
            // SAFETY: a place for the pointer.
            assert_eq!(unsafe { crt_posix_memalign(&raw mut r, align, 10) }, 0);
            assert_eq!(r as usize % align, 0);
            // SAFETY: r is live.
            unsafe { crt_free(r) };
        }
    }
    set_errno(0);
    // SAFETY: invalid alignments are refused.
    unsafe {
        assert!(crt_aligned_alloc(24, 10).is_null());
        assert_eq!(errno(), 22);
        assert!(crt_aligned_alloc(0, 10).is_null());
        let mut r: *mut c_void = std::ptr::null_mut();
        assert_eq!(crt_posix_memalign(&raw mut r, 4, 10), 22);
        assert_eq!(crt_posix_memalign(&raw mut r, 48, 10), 22);
        assert!(r.is_null());
    }
    assert_eq!(take_bad_frees(), Vec::<usize>::new());
}

#[test]
fn calloc_zeroes_and_checks_overflow() {
    let _g = lock();
    // SAFETY: plain allocations; the blocks are freed once.
    unsafe {
        let dirty = crt_malloc(4000);
        fill(dirty, 4000, 0xaa);
        crt_free(dirty);
        let p = crt_calloc(1000, 4).cast::<u8>();
        assert!(!p.is_null());
        assert!((0..4000).all(|i| p.add(i).read() == 0));
        crt_free(p.cast());
        set_errno(0);
        assert!(crt_calloc(usize::MAX / 2, 3).is_null());
        assert_eq!(errno(), 12);
        set_errno(0);
        assert!(crt_calloc(1 << 33, 1 << 31).is_null());
        assert_eq!(errno(), 12);
        let z = crt_calloc(0, 5);
        assert!(!z.is_null());
        crt_free(z);
    }
}

#[test]
fn realloc_keeps_contents_and_handles_null_and_zero() {
    let _g = lock();
    let before = live_count();
    // SAFETY: every pointer passed is live; each block is freed once.
    unsafe {
        let p = crt_realloc(std::ptr::null_mut(), 10);
        assert!(!p.is_null());
        fill(p, 10, 7);
        let q = crt_realloc(p, 100_000);
        assert!(holds(q, 10, 7));
        assert_eq!(q as usize % 16, 0);
        fill(q, 100_000, 1);
        let r = crt_realloc(q, 50);
        assert!(holds(r, 50, 1), "shrinking keeps the start");
        assert!(crt_realloc(r, 0).is_null(), "realloc(p, 0) frees p");
    }
    assert_eq!(live_count(), before);
    assert_eq!(take_bad_frees(), Vec::<usize>::new());
}

#[test]
fn out_of_memory_is_null_and_enomem() {
    let _g = lock();
    // SAFETY: plain allocation calls.
    unsafe {
        let p = crt_malloc(64);
        fill(p, 64, 9);
        FAIL_ALLOC.store(true, Ordering::Relaxed);
        set_errno(0);
        assert!(crt_malloc(1).is_null());
        assert_eq!(errno(), 12);
        set_errno(0);
        assert!(crt_realloc(p, 1000).is_null());
        assert_eq!(errno(), 12);
        assert!(crt_strdup(c"abc".as_ptr()).is_null());
        FAIL_ALLOC.store(false, Ordering::Relaxed);
        assert!(holds(p, 64, 9), "a failed realloc leaves the block alone");
        crt_free(p);
        set_errno(0);
        assert!(
            crt_malloc(usize::MAX - 8).is_null(),
            "size plus header overflows"
        );
        assert_eq!(errno(), 12);
    }
}
