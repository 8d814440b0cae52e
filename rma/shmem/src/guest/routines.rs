// SPDX-License-Identifier: MIT OR Apache-2.0
//! Remote memory access, ordering, point-to-point synchronisation,
//! atomics and distributed locks. Each typed family is one generic
//! function, instantiated for every type of OpenSHMEM 1.5's tables by a
//! macro that names each C routine in full.

use core::ffi::{c_int, c_long};

use super::*;

/// Bytes of `n` elements of `T`, or an error naming the overflow.
fn span<T>(n: usize) -> Outcome<usize> {
    n.checked_mul(core::mem::size_of::<T>())
        .ok_or_else(|| format!("{n} elements overflow the address space"))
}

/// Puts `n` elements from `source` (any memory) into `dest` (symmetric)
/// of `pe`.
pub(super) fn put<T>(routine: &str, dest: *mut T, source: *const T, n: usize, pe: c_int) {
    with(routine, |s| {
        let len = span::<T>(n)?;
        let pe = s.pe(pe)?;
        let at = s.offset(dest.cast_const().cast(), len, "dest")?;
        // SAFETY: OpenSHMEM says `source` holds `n` elements.
        let data = unsafe { bytes(source.cast(), len, "source") }?;
        s.put(pe, at, data)
    })
}

/// Gets `n` elements of `source` (symmetric) of `pe` into `dest` (any
/// memory).
pub(super) fn get<T>(routine: &str, dest: *mut T, source: *const T, n: usize, pe: c_int) {
    with(routine, |s| {
        let len = span::<T>(n)?;
        let pe = s.pe(pe)?;
        let at = s.offset(source.cast(), len, "source")?;
        // SAFETY: OpenSHMEM says `dest` has room for `n` elements.
        let out = unsafe { bytes_mut(dest.cast(), len, "dest") }?;
        s.get(pe, at, out)
    })
}

/// Strided put: element `i * sst` of `source` to element `i * dst` of
/// `dest` on `pe`, for `i` below `n`.
pub(super) fn iput<T>(
    routine: &str,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    n: usize,
    pe: c_int,
) {
    with(routine, |s| {
        let pe = s.pe(pe)?;
        let size = core::mem::size_of::<T>();
        for i in 0..n {
            let d = dest.wrapping_offset(i as isize * dst);
            let at = s.offset(d.cast_const().cast(), size, "dest element")?;
            // SAFETY: OpenSHMEM says `source` holds element `i * sst`.
            let data = unsafe {
                bytes(
                    source.wrapping_offset(i as isize * sst).cast(),
                    size,
                    "source",
                )
            }?;
            s.put(pe, at, data)?;
        }
        Ok(())
    })
}

/// Strided get, as [`iput`] puts.
pub(super) fn iget<T>(
    routine: &str,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    n: usize,
    pe: c_int,
) {
    with(routine, |s| {
        let pe = s.pe(pe)?;
        let size = core::mem::size_of::<T>();
        for i in 0..n {
            let from = source.wrapping_offset(i as isize * sst);
            let at = s.offset(from.cast(), size, "source element")?;
            // SAFETY: OpenSHMEM says `dest` has room for element `i * dst`.
            let out =
                unsafe { bytes_mut(dest.wrapping_offset(i as isize * dst).cast(), size, "dest") }?;
            s.get(pe, at, out)?;
        }
        Ok(())
    })
}

/// `shmem_TYPE_p`.
pub(super) fn p<T: Copy>(routine: &str, dest: *mut T, value: T, pe: c_int) {
    put(routine, dest, &value, 1, pe);
}

/// `shmem_TYPE_g`.
pub(super) fn g<T: Copy + Default>(routine: &str, source: *const T, pe: c_int) -> T {
    let mut value = T::default();
    get(routine, &mut value, source, 1, pe);
    value
}

/// Puts and gets, typed and sized: `shmem_TYPE_{put,put_nbi,get,get_nbi,
/// iput,iget}` (the non-blocking ones complete before they return).
macro_rules! rma_routines {
    ($t:ty: $put:ident $put_nbi:ident $get:ident $get_nbi:ident $iput:ident $iget:ident) => {
        #[doc = concat!("`", stringify!($put), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $put(dest: *mut $t, source: *const $t, nelems: usize, pe: c_int) {
            put(stringify!($put), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($put_nbi), "`: complete when it returns.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $put_nbi(dest: *mut $t, source: *const $t, nelems: usize, pe: c_int) {
            put(stringify!($put_nbi), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($get), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $get(dest: *mut $t, source: *const $t, nelems: usize, pe: c_int) {
            get(stringify!($get), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($get_nbi), "`: complete when it returns.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $get_nbi(dest: *mut $t, source: *const $t, nelems: usize, pe: c_int) {
            get(stringify!($get_nbi), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($iput), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $iput(
            dest: *mut $t,
            source: *const $t,
            dst: isize,
            sst: isize,
            nelems: usize,
            pe: c_int,
        ) {
            iput(stringify!($iput), dest, source, dst, sst, nelems, pe)
        }
        #[doc = concat!("`", stringify!($iget), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $iget(
            dest: *mut $t,
            source: *const $t,
            dst: isize,
            sst: isize,
            nelems: usize,
            pe: c_int,
        ) {
            iget(stringify!($iget), dest, source, dst, sst, nelems, pe)
        }
    };
}

/// `shmem_TYPE_p` and `shmem_TYPE_g`.
macro_rules! single_routines {
    ($t:ty: $p:ident $g:ident) => {
        #[doc = concat!("`", stringify!($p), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $p(dest: *mut $t, value: $t, pe: c_int) {
            p(stringify!($p), dest, value, pe)
        }
        #[doc = concat!("`", stringify!($g), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $g(source: *const $t, pe: c_int) -> $t {
            g(stringify!($g), source, pe)
        }
    };
}

/// `long double` as i386 gcc lays it out: moved as bytes.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(4))]
pub struct LongDouble(pub(super) [u8; 12]);

/// Bytes moved by the sized routines `shmem_put128` and kin.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct Bytes16([u8; 16]);

/// `shmem_putmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_putmem(dest: *mut c_void, source: *const c_void, nelems: usize, pe: c_int) {
    put(
        "shmem_putmem",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

/// `shmem_putmem_nbi`: complete when it returns.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_putmem_nbi(
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    pe: c_int,
) {
    put(
        "shmem_putmem_nbi",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

/// `shmem_getmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_getmem(dest: *mut c_void, source: *const c_void, nelems: usize, pe: c_int) {
    get(
        "shmem_getmem",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

/// `shmem_getmem_nbi`: complete when it returns.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_getmem_nbi(
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    pe: c_int,
) {
    get(
        "shmem_getmem_nbi",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

/// `shmem_quiet`: every put, `p` and atomic this PE issued is complete
/// and visible; releases the heap's scope.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_quiet() {
    with("shmem_quiet", |s| s.quiet())
}

/// `shmem_fence`: as `shmem_quiet` (ordering by completion).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_fence() {
    with("shmem_fence", |s| s.quiet())
}

/// `shmem_barrier_all`: quiet, then every PE arrives, then each sees what
/// the others wrote.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_barrier_all() {
    with("shmem_barrier_all", |s| s.barrier_all())
}

/// `shmem_sync_all`: every PE arrives; then each sees what the others
/// released (with `shmem_quiet`) before arriving. Without a release
/// nothing is made visible: the invalidation is skipped.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_sync_all() {
    with("shmem_sync_all", |s| s.sync_all())
}

/// `SHMEM_CMP_*`.
pub(super) fn compare<T: PartialOrd>(routine: &str, cmp: c_int, a: T, b: T) -> bool {
    match cmp {
        0 => a == b,
        1 => a != b,
        2 => a > b,
        3 => a <= b,
        4 => a < b,
        5 => a >= b,
        _ => fail(format_args!(
            "{routine}: comparison {cmp} is not one of SHMEM_CMP_EQ, NE, GT, LE, LT, GE (0 to 5)"
        )),
    }
}

/// `shmem_TYPE_wait_until`.
pub(super) fn wait_until<T: Copy + PartialOrd>(routine: &str, ivar: *mut T, cmp: c_int, value: T) {
    compare(routine, cmp, value, value);
    with(routine, |s| {
        s.wait(ivar.cast_const(), |v| compare(routine, cmp, v, value))
            .map(|_| ())
    })
}

/// `shmem_TYPE_test`.
pub(super) fn test<T: Copy + PartialOrd>(
    routine: &str,
    ivar: *mut T,
    cmp: c_int,
    value: T,
) -> c_int {
    compare(routine, cmp, value, value);
    with(routine, |s| {
        let v = s.read_fresh(ivar.cast_const())?;
        Ok(c_int::from(compare(routine, cmp, v, value)))
    })
}

/// `shmem_TYPE_wait_until` and `shmem_TYPE_test`.
macro_rules! wait_routines {
    ($t:ty: $wait:ident $test:ident) => {
        #[doc = concat!("`", stringify!($wait), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $wait(ivar: *mut $t, cmp: c_int, value: $t) {
            wait_until(stringify!($wait), ivar, cmp, value)
        }
        #[doc = concat!("`", stringify!($test), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $test(ivar: *mut $t, cmp: c_int, value: $t) -> c_int {
            test(stringify!($test), ivar, cmp, value)
        }
    };
}

/// `old op value` on `dest` of `pe`, atomically.
pub(super) fn amo<T: Accumulable>(
    routine: &str,
    dest: *const T,
    value: T,
    op: AccumulateOp,
    pe: c_int,
) -> T {
    with(routine, |s| {
        let pe = s.pe(pe)?;
        let at = s.offset(dest.cast(), core::mem::size_of::<T>(), "dest")?;
        let old = s.atomic(pe, at, value, op)?;
        s.dsm.rma().hal().flush_wcb();
        Ok(old)
    })
}

/// Compare-and-swap on `dest` of `pe`.
pub(super) fn cswap<T: Accumulable>(
    routine: &str,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) -> T {
    with(routine, |s| {
        let pe = s.pe(pe)?;
        let at = s.offset(dest.cast_const().cast(), core::mem::size_of::<T>(), "dest")?;
        let old = s.compare_swap(pe, at, cond, value)?;
        s.dsm.rma().hal().flush_wcb();
        Ok(old)
    })
}

/// The atomics every type of OpenSHMEM's extended AMO table has:
/// fetch, set, swap.
macro_rules! extended_amo {
    ($t:ty: $fetch:ident $set:ident $swap:ident) => {
        #[doc = concat!("`", stringify!($fetch), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fetch(source: *const $t, pe: c_int) -> $t {
            amo(
                stringify!($fetch),
                source,
                <$t>::default(),
                AccumulateOp::NoOp,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($set), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $set(dest: *mut $t, value: $t, pe: c_int) {
            amo(stringify!($set), dest, value, AccumulateOp::Replace, pe);
        }
        #[doc = concat!("`", stringify!($swap), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $swap(dest: *mut $t, value: $t, pe: c_int) -> $t {
            amo(stringify!($swap), dest, value, AccumulateOp::Replace, pe)
        }
    };
}

/// The standard AMO table: compare_swap, fetch_inc, inc, fetch_add, add.
macro_rules! standard_amo {
    ($t:ty: $cswap:ident $finc:ident $inc:ident $fadd:ident $add:ident) => {
        #[doc = concat!("`", stringify!($cswap), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $cswap(dest: *mut $t, cond: $t, value: $t, pe: c_int) -> $t {
            cswap(stringify!($cswap), dest, cond, value, pe)
        }
        #[doc = concat!("`", stringify!($finc), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $finc(dest: *mut $t, pe: c_int) -> $t {
            amo(stringify!($finc), dest, 1, AccumulateOp::Sum, pe)
        }
        #[doc = concat!("`", stringify!($inc), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $inc(dest: *mut $t, pe: c_int) {
            amo(stringify!($inc), dest, 1, AccumulateOp::Sum, pe);
        }
        #[doc = concat!("`", stringify!($fadd), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fadd(dest: *mut $t, value: $t, pe: c_int) -> $t {
            amo(stringify!($fadd), dest, value, AccumulateOp::Sum, pe)
        }
        #[doc = concat!("`", stringify!($add), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $add(dest: *mut $t, value: $t, pe: c_int) {
            amo(stringify!($add), dest, value, AccumulateOp::Sum, pe);
        }
    };
}

/// The bitwise AMO table: fetch_and, and, fetch_or, or, fetch_xor, xor.
macro_rules! bitwise_amo {
    ($t:ty: $fand:ident $and:ident $for:ident $or:ident $fxor:ident $xor:ident) => {
        #[doc = concat!("`", stringify!($fand), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fand(dest: *mut $t, value: $t, pe: c_int) -> $t {
            amo(stringify!($fand), dest, value, AccumulateOp::Band, pe)
        }
        #[doc = concat!("`", stringify!($and), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $and(dest: *mut $t, value: $t, pe: c_int) {
            amo(stringify!($and), dest, value, AccumulateOp::Band, pe);
        }
        #[doc = concat!("`", stringify!($for), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $for(dest: *mut $t, value: $t, pe: c_int) -> $t {
            amo(stringify!($for), dest, value, AccumulateOp::Bor, pe)
        }
        #[doc = concat!("`", stringify!($or), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $or(dest: *mut $t, value: $t, pe: c_int) {
            amo(stringify!($or), dest, value, AccumulateOp::Bor, pe);
        }
        #[doc = concat!("`", stringify!($fxor), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fxor(dest: *mut $t, value: $t, pe: c_int) -> $t {
            amo(stringify!($fxor), dest, value, AccumulateOp::Bxor, pe)
        }
        #[doc = concat!("`", stringify!($xor), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $xor(dest: *mut $t, value: $t, pe: c_int) {
            amo(stringify!($xor), dest, value, AccumulateOp::Bxor, pe);
        }
    };
}

/// The region offset of the distributed lock `lock`: a symmetric `long`
/// (zero when free), used on PE 0 only as a dsm lock word (a ticket
/// lock: first come, first served).
fn lock_at(s: &State, lock: *mut c_long) -> Outcome<u32> {
    let at = s.offset(
        lock.cast_const().cast(),
        core::mem::size_of::<c_long>(),
        "lock",
    )?;
    Ok(s.at(0, at))
}

/// `shmem_set_lock`: waits for this PE's turn, then acquires (what the
/// last holder released is visible).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_set_lock(lock: *mut c_long) {
    with("shmem_set_lock", |s| {
        let at = lock_at(s, lock)?;
        s.dsm.lock_word(s.heap, at).map_err(|e| format!("{e}"))?;
        s.dsm.sync_read(s.scope).map_err(|e| format!("{e}"))
    })
}

/// `shmem_clear_lock`: releases, then serves the next ticket.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_clear_lock(lock: *mut c_long) {
    with("shmem_clear_lock", |s| {
        let at = lock_at(s, lock)?;
        s.quiet()?;
        s.dsm.unlock_word(s.heap, at).map_err(|e| format!("{e}"))
    })
}

/// `shmem_test_lock`: takes the lock if it is free and returns 0 (then
/// acquires, as `shmem_set_lock`), else returns 1 at once.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_test_lock(lock: *mut c_long) -> c_int {
    with("shmem_test_lock", |s| {
        let at = lock_at(s, lock)?;
        if !s
            .dsm
            .try_lock_word(s.heap, at)
            .map_err(|e| format!("{e}"))?
        {
            return Ok(1);
        }
        s.dsm.sync_read(s.scope).map_err(|e| format!("{e}"))?;
        Ok(0)
    })
}

include!("typed.rs");
