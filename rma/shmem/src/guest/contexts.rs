// SPDX-License-Identifier: MIT OR Apache-2.0
//! Communication contexts, the routines that take one (`shmem_ctx_*`),
//! the non-blocking atomics, signals (`put_signal`, `signal_fetch`,
//! `signal_wait_until`) and the multi-variable waits and tests
//! (`wait_until_all`/`any`/`some`, their `_vector` forms and the `test_`
//! ones).
//!
//! Every put, get and atomic is complete when it returns, on any context,
//! so a context only has to exist: the routines that take one check it
//! (`SHMEM_CTX_DEFAULT`, or one `shmem_ctx_create` or
//! `shmem_team_create_ctx` made and `shmem_ctx_destroy` did not end), then
//! do what the routine without the context does. `shmem_ctx_quiet` and
//! `shmem_ctx_fence` are `shmem_quiet`. The `_nbi` atomics are the
//! blocking ones, their result stored through `fetch` on return.

use core::ffi::{c_int, c_long};

use super::collectives::{INVALID, Team, WORLD};
use super::routines::{Bytes16, LongDouble, amo, cswap, g, get, iget, iput, p, put, wait_until};
use super::*;

/// `shmem_ctx_t`: a handle, 0 `SHMEM_CTX_INVALID`, 1 `SHMEM_CTX_DEFAULT`,
/// `k + 2` the `k`-th context this PE made.
pub type Ctx = usize;
/// `SHMEM_CTX_INVALID`.
const CTX_INVALID: Ctx = 0;
/// `SHMEM_CTX_DEFAULT`.
const CTX_DEFAULT: Ctx = 1;
/// The options `shmem_ctx_create` knows: `SHMEM_CTX_SERIALIZED` (1),
/// `SHMEM_CTX_PRIVATE` (2), `SHMEM_CTX_NOSTORE` (4).
const CTX_OPTIONS: c_long = 7;
/// Contexts a PE may hold at once (`shmem_ctx_create` fails past it).
const MAX_CONTEXTS: usize = 1024;

impl State {
    /// `Err` unless `ctx` is a context of this PE.
    fn context(&self, ctx: Ctx) -> Outcome<Team> {
        match ctx {
            CTX_DEFAULT => Ok(WORLD),
            CTX_INVALID => Err(String::from("ctx is SHMEM_CTX_INVALID")),
            _ => self
                .contexts
                .get(ctx - 2)
                .copied()
                .flatten()
                .ok_or_else(|| {
                    format!("ctx {ctx:#x} is not a context of this PE (never made, or destroyed)")
                }),
        }
    }
}

/// Ends the run naming `routine` unless `ctx` is a context of this PE.
fn check(routine: &str, ctx: Ctx) {
    with(routine, |s| s.context(ctx).map(|_| ()));
}

/// Makes a context on `team`; 0 and the handle through `ctx`, or -1 and
/// `SHMEM_CTX_INVALID`.
fn create(routine: &str, team: Team, options: c_long, ctx: *mut Ctx) -> c_int {
    if ctx.is_null() {
        fail(format_args!("{routine}: ctx is NULL"));
    }
    let made = with(routine, |s| {
        if options & !CTX_OPTIONS != 0 {
            return Err(format!(
                "options {options:#x} are not SHMEM_CTX_SERIALIZED, _PRIVATE or _NOSTORE"
            ));
        }
        if team == INVALID || s.team(team).is_err() {
            return Ok(None);
        }
        let k = match s.contexts.iter().position(Option::is_none) {
            Some(k) => k,
            None if s.contexts.len() < MAX_CONTEXTS => {
                s.contexts.push(None);
                s.contexts.len() - 1
            }
            None => return Ok(None),
        };
        s.contexts[k] = Some(team);
        Ok(Some(k + 2))
    });
    // SAFETY: C passes a pointer to its shmem_ctx_t (checked not NULL).
    unsafe { ctx.write(made.unwrap_or(CTX_INVALID)) };
    if made.is_some() { 0 } else { -1 }
}

/// `shmem_ctx_create`: a context on `SHMEM_TEAM_WORLD`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_create(options: c_long, ctx: *mut Ctx) -> c_int {
    create("shmem_ctx_create", WORLD, options, ctx)
}

/// `shmem_team_create_ctx`: a context on `team` (-1 and
/// `SHMEM_CTX_INVALID` for `SHMEM_TEAM_INVALID`).
#[unsafe(no_mangle)]
pub extern "C" fn shmem_team_create_ctx(team: Team, options: c_long, ctx: *mut Ctx) -> c_int {
    create("shmem_team_create_ctx", team, options, ctx)
}

/// `shmem_ctx_destroy`: quiet, then the context is gone;
/// `SHMEM_CTX_INVALID` does nothing.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_destroy(ctx: Ctx) {
    if ctx == CTX_INVALID {
        return;
    }
    with("shmem_ctx_destroy", |s| {
        if ctx == CTX_DEFAULT {
            return Err(String::from("SHMEM_CTX_DEFAULT cannot be destroyed"));
        }
        s.context(ctx)?;
        s.quiet()?;
        s.contexts[ctx - 2] = None;
        Ok(())
    })
}

/// `shmem_ctx_get_team`: the team of `ctx` through `team` and 0;
/// `SHMEM_TEAM_INVALID` and -1 for `SHMEM_CTX_INVALID`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_get_team(ctx: Ctx, team: *mut Team) -> c_int {
    if team.is_null() {
        fail(format_args!("shmem_ctx_get_team: team is NULL"));
    }
    let found = if ctx == CTX_INVALID {
        None
    } else {
        Some(with("shmem_ctx_get_team", |s| s.context(ctx)))
    };
    // SAFETY: C passes a pointer to its shmem_team_t (checked not NULL).
    unsafe { team.write(found.unwrap_or(INVALID)) };
    if found.is_some() { 0 } else { -1 }
}

/// `shmem_ctx_quiet`: `shmem_quiet`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_quiet(ctx: Ctx) {
    check("shmem_ctx_quiet", ctx);
    with("shmem_ctx_quiet", |s| s.quiet())
}

/// `shmem_ctx_fence`: `shmem_quiet`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_fence(ctx: Ctx) {
    check("shmem_ctx_fence", ctx);
    with("shmem_ctx_fence", |s| s.quiet())
}

/// `SHMEM_SIGNAL_SET`.
const SIGNAL_SET: c_int = 0;
/// `SHMEM_SIGNAL_ADD`.
const SIGNAL_ADD: c_int = 1;

/// Puts `n` elements, then (once they are delivered) sets or adds
/// `signal` at `sig_addr` of `pe`.
#[allow(clippy::too_many_arguments)] // OpenSHMEM's parameters
fn put_signal<T>(
    routine: &str,
    dest: *mut T,
    source: *const T,
    n: usize,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: c_int,
    pe: c_int,
) {
    let op = match sig_op {
        SIGNAL_SET => AccumulateOp::Replace,
        SIGNAL_ADD => AccumulateOp::Sum,
        _ => fail(format_args!(
            "{routine}: sig_op {sig_op} is not SHMEM_SIGNAL_SET (0) or SHMEM_SIGNAL_ADD (1)"
        )),
    };
    put(routine, dest, source, n, pe);
    amo(routine, sig_addr.cast_const(), signal, op, pe);
}

/// `shmem_signal_fetch`: the signal at `sig_addr` of this PE, read fresh.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_signal_fetch(sig_addr: *const u64) -> u64 {
    with("shmem_signal_fetch", |s| s.read_fresh(sig_addr))
}

/// `shmem_signal_wait_until`: waits until the signal at `sig_addr` of
/// this PE compares with `value` as `cmp` says; the signal then.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_signal_wait_until(sig_addr: *mut u64, cmp: c_int, value: u64) -> u64 {
    let routine = "shmem_signal_wait_until";
    wait_until(routine, sig_addr, cmp, value);
    with(routine, |s| s.read_fresh(sig_addr.cast_const()))
}

/// Writes `value` through `fetch`, which C gives.
fn store<T>(routine: &str, fetch: *mut T, value: T) {
    if fetch.is_null() {
        fail(format_args!("{routine}: fetch is NULL"));
    }
    // SAFETY: C passes a pointer to its variable (checked not NULL).
    unsafe { fetch.write(value) };
}

/// Which elements of `nelems` a multi-variable wait or test looks at:
/// those whose `status` entry is 0 (all when `status` is NULL).
fn watched(status: *const c_int, nelems: usize) -> Vec<bool> {
    (0..nelems)
        .map(|i| {
            // SAFETY: OpenSHMEM says `status`, when given, has `nelems`
            // entries.
            status.is_null() || unsafe { status.add(i).read() } == 0
        })
        .collect()
}

/// The elements of `ivars` (of this PE's symmetric memory) that are
/// watched and compare with their value (`values[i]`, or `value` when
/// `values` is NULL) as `cmp` says, read fresh; `None` until `enough` of
/// them do, polled until then when `wait`.
#[allow(clippy::too_many_arguments)] // the routine's parameters
fn scan<T: Copy + PartialOrd>(
    routine: &str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    value: T,
    values: *const T,
    wait: bool,
    enough: impl Fn(usize, usize) -> bool,
) -> Vec<usize> {
    let watch = watched(status, nelems);
    let want = watch.iter().filter(|w| **w).count();
    if want == 0 {
        return Vec::new();
    }
    let compare = |v: T, i: usize| {
        let target = if values.is_null() {
            value
        } else {
            // SAFETY: OpenSHMEM says `values`, when given, has `nelems`
            // entries.
            unsafe { values.add(i).read() }
        };
        super::routines::compare(routine, cmp, v, target)
    };
    with(routine, |s| {
        if nelems > 0 {
            let len = nelems
                .checked_mul(core::mem::size_of::<T>())
                .ok_or_else(|| format!("{nelems} elements overflow the address space"))?;
            s.offset(ivars.cast_const().cast(), len, "ivars")?;
        }
        let look = |dsm: &mut Dsm<'static, Platform>| {
            dsm.invalidate();
            let hits: Vec<usize> = (0..nelems)
                .filter(|&i| {
                    // SAFETY: the elements lie in this PE's mapped
                    // symmetric memory (checked above); volatile, as other
                    // cores change them.
                    watch[i] && compare(unsafe { ivars.add(i).read_volatile() }, i)
                })
                .collect();
            enough(hits.len(), want).then_some(hits)
        };
        if !wait {
            return Ok(look(&mut s.dsm).unwrap_or_default());
        }
        let hal = s.dsm.rma().hal();
        let dsm = &mut s.dsm;
        Ok(hal.wait_for(|| look(dsm)))
    })
}

/// `size_t`'s largest value: "no element" of `wait_until_any` and
/// `test_any`.
const SIZE_MAX: usize = usize::MAX;

/// The multi-variable waits and tests of one type.
macro_rules! multi_wait {
    ($t:ty: $all:ident $any:ident $some:ident $allv:ident $anyv:ident $somev:ident
     $tall:ident $tany:ident $tsome:ident $tallv:ident $tanyv:ident $tsomev:ident) => {
        #[doc = concat!("`", stringify!($all), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $all(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            value: $t,
        ) {
            scan(
                stringify!($all),
                ivars,
                nelems,
                status,
                cmp,
                value,
                core::ptr::null(),
                true,
                |h, w| h == w,
            );
        }
        #[doc = concat!("`", stringify!($any), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $any(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            value: $t,
        ) -> usize {
            any(scan(
                stringify!($any),
                ivars,
                nelems,
                status,
                cmp,
                value,
                core::ptr::null(),
                true,
                |h, _| h > 0,
            ))
        }
        #[doc = concat!("`", stringify!($some), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $some(
            ivars: *mut $t,
            nelems: usize,
            indices: *mut usize,
            status: *const c_int,
            cmp: c_int,
            value: $t,
        ) -> usize {
            some(
                indices,
                scan(
                    stringify!($some),
                    ivars,
                    nelems,
                    status,
                    cmp,
                    value,
                    core::ptr::null(),
                    true,
                    |h, _| h > 0,
                ),
            )
        }
        #[doc = concat!("`", stringify!($allv), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $allv(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            values: *const $t,
        ) {
            scan(
                stringify!($allv),
                ivars,
                nelems,
                status,
                cmp,
                <$t>::default(),
                nonnull(stringify!($allv), values, nelems),
                true,
                |h, w| h == w,
            );
        }
        #[doc = concat!("`", stringify!($anyv), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $anyv(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            values: *const $t,
        ) -> usize {
            any(scan(
                stringify!($anyv),
                ivars,
                nelems,
                status,
                cmp,
                <$t>::default(),
                nonnull(stringify!($anyv), values, nelems),
                true,
                |h, _| h > 0,
            ))
        }
        #[doc = concat!("`", stringify!($somev), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $somev(
            ivars: *mut $t,
            nelems: usize,
            indices: *mut usize,
            status: *const c_int,
            cmp: c_int,
            values: *const $t,
        ) -> usize {
            some(
                indices,
                scan(
                    stringify!($somev),
                    ivars,
                    nelems,
                    status,
                    cmp,
                    <$t>::default(),
                    nonnull(stringify!($somev), values, nelems),
                    true,
                    |h, _| h > 0,
                ),
            )
        }
        #[doc = concat!("`", stringify!($tall), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $tall(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            value: $t,
        ) -> c_int {
            test_all(
                stringify!($tall),
                ivars,
                nelems,
                status,
                cmp,
                value,
                core::ptr::null(),
            )
        }
        #[doc = concat!("`", stringify!($tany), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $tany(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            value: $t,
        ) -> usize {
            any(scan(
                stringify!($tany),
                ivars,
                nelems,
                status,
                cmp,
                value,
                core::ptr::null(),
                false,
                |h, _| h > 0,
            ))
        }
        #[doc = concat!("`", stringify!($tsome), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $tsome(
            ivars: *mut $t,
            nelems: usize,
            indices: *mut usize,
            status: *const c_int,
            cmp: c_int,
            value: $t,
        ) -> usize {
            some(
                indices,
                scan(
                    stringify!($tsome),
                    ivars,
                    nelems,
                    status,
                    cmp,
                    value,
                    core::ptr::null(),
                    false,
                    |h, _| h > 0,
                ),
            )
        }
        #[doc = concat!("`", stringify!($tallv), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $tallv(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            values: *const $t,
        ) -> c_int {
            test_all(
                stringify!($tallv),
                ivars,
                nelems,
                status,
                cmp,
                <$t>::default(),
                nonnull(stringify!($tallv), values, nelems),
            )
        }
        #[doc = concat!("`", stringify!($tanyv), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $tanyv(
            ivars: *mut $t,
            nelems: usize,
            status: *const c_int,
            cmp: c_int,
            values: *const $t,
        ) -> usize {
            any(scan(
                stringify!($tanyv),
                ivars,
                nelems,
                status,
                cmp,
                <$t>::default(),
                nonnull(stringify!($tanyv), values, nelems),
                false,
                |h, _| h > 0,
            ))
        }
        #[doc = concat!("`", stringify!($tsomev), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $tsomev(
            ivars: *mut $t,
            nelems: usize,
            indices: *mut usize,
            status: *const c_int,
            cmp: c_int,
            values: *const $t,
        ) -> usize {
            some(
                indices,
                scan(
                    stringify!($tsomev),
                    ivars,
                    nelems,
                    status,
                    cmp,
                    <$t>::default(),
                    nonnull(stringify!($tsomev), values, nelems),
                    false,
                    |h, _| h > 0,
                ),
            )
        }
    };
}

/// `values`, which must be given when there are elements.
fn nonnull<T>(routine: &str, values: *const T, nelems: usize) -> *const T {
    if values.is_null() && nelems > 0 {
        fail(format_args!("{routine}: cmp_values is NULL"));
    }
    values
}

/// The first element found, or `SIZE_MAX`.
fn any(hits: Vec<usize>) -> usize {
    hits.first().copied().unwrap_or(SIZE_MAX)
}

/// Writes the elements found through `indices`; their count.
fn some(indices: *mut usize, hits: Vec<usize>) -> usize {
    if !hits.is_empty() && indices.is_null() {
        fail(format_args!(
            "wait_until_some or test_some: indices is NULL"
        ));
    }
    for (k, i) in hits.iter().enumerate() {
        // SAFETY: OpenSHMEM says `indices` has room for `nelems` entries,
        // at least as many as the elements found.
        unsafe { indices.add(k).write(*i) };
    }
    hits.len()
}

/// 1 when every watched element compares as `cmp` says (or none is
/// watched), else 0.
fn test_all<T: Copy + PartialOrd>(
    routine: &str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    value: T,
    values: *const T,
) -> c_int {
    let want = watched(status, nelems).iter().filter(|w| **w).count();
    let hits = scan(
        routine,
        ivars,
        nelems,
        status,
        cmp,
        value,
        values,
        false,
        |h, w| h == w,
    );
    c_int::from(hits.len() == want)
}

/// The non-blocking fetching atomics of the extended table: fetch and
/// swap, complete on return.
macro_rules! extended_nbi {
    ($t:ty: $fetch:ident $swap:ident) => {
        #[doc = concat!("`", stringify!($fetch), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fetch(fetch: *mut $t, source: *const $t, pe: c_int) {
            store(
                stringify!($fetch),
                fetch,
                amo(
                    stringify!($fetch),
                    source,
                    <$t>::default(),
                    AccumulateOp::NoOp,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($swap), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $swap(fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            store(
                stringify!($swap),
                fetch,
                amo(
                    stringify!($swap),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Replace,
                    pe,
                ),
            )
        }
    };
}

/// The non-blocking fetching atomics of the standard table:
/// compare_swap, fetch_inc, fetch_add.
macro_rules! standard_nbi {
    ($t:ty: $cswap:ident $finc:ident $fadd:ident) => {
        #[doc = concat!("`", stringify!($cswap), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $cswap(fetch: *mut $t, dest: *mut $t, cond: $t, value: $t, pe: c_int) {
            store(
                stringify!($cswap),
                fetch,
                cswap(stringify!($cswap), dest, cond, value, pe),
            )
        }
        #[doc = concat!("`", stringify!($finc), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $finc(fetch: *mut $t, dest: *mut $t, pe: c_int) {
            store(
                stringify!($finc),
                fetch,
                amo(
                    stringify!($finc),
                    dest.cast_const(),
                    1,
                    AccumulateOp::Sum,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($fadd), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fadd(fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            store(
                stringify!($fadd),
                fetch,
                amo(
                    stringify!($fadd),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Sum,
                    pe,
                ),
            )
        }
    };
}

/// The non-blocking fetching atomics of the bitwise table: fetch_and,
/// fetch_or, fetch_xor.
macro_rules! bitwise_nbi {
    ($t:ty: $fand:ident $for:ident $fxor:ident) => {
        #[doc = concat!("`", stringify!($fand), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fand(fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            store(
                stringify!($fand),
                fetch,
                amo(
                    stringify!($fand),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Band,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($for), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $for(fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            store(
                stringify!($for),
                fetch,
                amo(
                    stringify!($for),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Bor,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($fxor), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fxor(fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            store(
                stringify!($fxor),
                fetch,
                amo(
                    stringify!($fxor),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Bxor,
                    pe,
                ),
            )
        }
    };
}

/// `put_signal` and `put_signal_nbi` of one type (or size), without and
/// with a context.
macro_rules! signal_routines {
    ($t:ty: $ps:ident $psn:ident $cps:ident $cpsn:ident) => {
        #[doc = concat!("`", stringify!($ps), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $ps(
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            sig_addr: *mut u64,
            signal: u64,
            sig_op: c_int,
            pe: c_int,
        ) {
            put_signal(
                stringify!($ps),
                dest,
                source,
                nelems,
                sig_addr,
                signal,
                sig_op,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($psn), "`: complete when it returns.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $psn(
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            sig_addr: *mut u64,
            signal: u64,
            sig_op: c_int,
            pe: c_int,
        ) {
            put_signal(
                stringify!($psn),
                dest,
                source,
                nelems,
                sig_addr,
                signal,
                sig_op,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($cps), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $cps(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            sig_addr: *mut u64,
            signal: u64,
            sig_op: c_int,
            pe: c_int,
        ) {
            check(stringify!($cps), ctx);
            put_signal(
                stringify!($cps),
                dest,
                source,
                nelems,
                sig_addr,
                signal,
                sig_op,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($cpsn), "`: complete when it returns.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $cpsn(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            sig_addr: *mut u64,
            signal: u64,
            sig_op: c_int,
            pe: c_int,
        ) {
            check(stringify!($cpsn), ctx);
            put_signal(
                stringify!($cpsn),
                dest,
                source,
                nelems,
                sig_addr,
                signal,
                sig_op,
                pe,
            )
        }
    };
}

/// The puts and gets of one type (or size) on a context.
macro_rules! ctx_rma {
    ($t:ty: $put:ident $put_nbi:ident $get:ident $get_nbi:ident $iput:ident $iget:ident) => {
        #[doc = concat!("`", stringify!($put), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $put(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            pe: c_int,
        ) {
            check(stringify!($put), ctx);
            put(stringify!($put), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($put_nbi), "`: complete when it returns.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $put_nbi(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            pe: c_int,
        ) {
            check(stringify!($put_nbi), ctx);
            put(stringify!($put_nbi), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($get), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $get(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            pe: c_int,
        ) {
            check(stringify!($get), ctx);
            get(stringify!($get), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($get_nbi), "`: complete when it returns.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $get_nbi(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            pe: c_int,
        ) {
            check(stringify!($get_nbi), ctx);
            get(stringify!($get_nbi), dest, source, nelems, pe)
        }
        #[doc = concat!("`", stringify!($iput), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $iput(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            dst: isize,
            sst: isize,
            nelems: usize,
            pe: c_int,
        ) {
            check(stringify!($iput), ctx);
            iput(stringify!($iput), dest, source, dst, sst, nelems, pe)
        }
        #[doc = concat!("`", stringify!($iget), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $iget(
            ctx: Ctx,
            dest: *mut $t,
            source: *const $t,
            dst: isize,
            sst: isize,
            nelems: usize,
            pe: c_int,
        ) {
            check(stringify!($iget), ctx);
            iget(stringify!($iget), dest, source, dst, sst, nelems, pe)
        }
    };
}

/// `p` and `g` of one type on a context.
macro_rules! ctx_single {
    ($t:ty: $p:ident $g:ident) => {
        #[doc = concat!("`", stringify!($p), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $p(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($p), ctx);
            p(stringify!($p), dest, value, pe)
        }
        #[doc = concat!("`", stringify!($g), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $g(ctx: Ctx, source: *const $t, pe: c_int) -> $t {
            check(stringify!($g), ctx);
            g(stringify!($g), source, pe)
        }
    };
}

/// The extended atomics of one type on a context, and their `_nbi` forms.
macro_rules! ctx_extended {
    ($t:ty: $fetch:ident $set:ident $swap:ident $fetch_nbi:ident $swap_nbi:ident) => {
        #[doc = concat!("`", stringify!($fetch), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fetch(ctx: Ctx, source: *const $t, pe: c_int) -> $t {
            check(stringify!($fetch), ctx);
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
        pub extern "C" fn $set(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($set), ctx);
            amo(
                stringify!($set),
                dest.cast_const(),
                value,
                AccumulateOp::Replace,
                pe,
            );
        }
        #[doc = concat!("`", stringify!($swap), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $swap(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) -> $t {
            check(stringify!($swap), ctx);
            amo(
                stringify!($swap),
                dest.cast_const(),
                value,
                AccumulateOp::Replace,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($fetch_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fetch_nbi(ctx: Ctx, fetch: *mut $t, source: *const $t, pe: c_int) {
            check(stringify!($fetch_nbi), ctx);
            store(
                stringify!($fetch_nbi),
                fetch,
                amo(
                    stringify!($fetch_nbi),
                    source,
                    <$t>::default(),
                    AccumulateOp::NoOp,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($swap_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $swap_nbi(ctx: Ctx, fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($swap_nbi), ctx);
            store(
                stringify!($swap_nbi),
                fetch,
                amo(
                    stringify!($swap_nbi),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Replace,
                    pe,
                ),
            )
        }
    };
}

/// The standard atomics of one type on a context, and their `_nbi`
/// forms.
macro_rules! ctx_standard {
    ($t:ty: $cswap:ident $finc:ident $inc:ident $fadd:ident $add:ident
     $cswap_nbi:ident $finc_nbi:ident $fadd_nbi:ident) => {
        #[doc = concat!("`", stringify!($cswap), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $cswap(ctx: Ctx, dest: *mut $t, cond: $t, value: $t, pe: c_int) -> $t {
            check(stringify!($cswap), ctx);
            cswap(stringify!($cswap), dest, cond, value, pe)
        }
        #[doc = concat!("`", stringify!($finc), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $finc(ctx: Ctx, dest: *mut $t, pe: c_int) -> $t {
            check(stringify!($finc), ctx);
            amo(
                stringify!($finc),
                dest.cast_const(),
                1,
                AccumulateOp::Sum,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($inc), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $inc(ctx: Ctx, dest: *mut $t, pe: c_int) {
            check(stringify!($inc), ctx);
            amo(
                stringify!($inc),
                dest.cast_const(),
                1,
                AccumulateOp::Sum,
                pe,
            );
        }
        #[doc = concat!("`", stringify!($fadd), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fadd(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) -> $t {
            check(stringify!($fadd), ctx);
            amo(
                stringify!($fadd),
                dest.cast_const(),
                value,
                AccumulateOp::Sum,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($add), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $add(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($add), ctx);
            amo(
                stringify!($add),
                dest.cast_const(),
                value,
                AccumulateOp::Sum,
                pe,
            );
        }
        #[doc = concat!("`", stringify!($cswap_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $cswap_nbi(
            ctx: Ctx,
            fetch: *mut $t,
            dest: *mut $t,
            cond: $t,
            value: $t,
            pe: c_int,
        ) {
            check(stringify!($cswap_nbi), ctx);
            store(
                stringify!($cswap_nbi),
                fetch,
                cswap(stringify!($cswap_nbi), dest, cond, value, pe),
            )
        }
        #[doc = concat!("`", stringify!($finc_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $finc_nbi(ctx: Ctx, fetch: *mut $t, dest: *mut $t, pe: c_int) {
            check(stringify!($finc_nbi), ctx);
            store(
                stringify!($finc_nbi),
                fetch,
                amo(
                    stringify!($finc_nbi),
                    dest.cast_const(),
                    1,
                    AccumulateOp::Sum,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($fadd_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fadd_nbi(ctx: Ctx, fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($fadd_nbi), ctx);
            store(
                stringify!($fadd_nbi),
                fetch,
                amo(
                    stringify!($fadd_nbi),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Sum,
                    pe,
                ),
            )
        }
    };
}

/// The bitwise atomics of one type on a context, and their `_nbi` forms.
macro_rules! ctx_bitwise {
    ($t:ty: $fand:ident $and:ident $for:ident $or:ident $fxor:ident $xor:ident
     $fand_nbi:ident $for_nbi:ident $fxor_nbi:ident) => {
        #[doc = concat!("`", stringify!($fand), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fand(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) -> $t {
            check(stringify!($fand), ctx);
            amo(
                stringify!($fand),
                dest.cast_const(),
                value,
                AccumulateOp::Band,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($and), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $and(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($and), ctx);
            amo(
                stringify!($and),
                dest.cast_const(),
                value,
                AccumulateOp::Band,
                pe,
            );
        }
        #[doc = concat!("`", stringify!($for), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $for(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) -> $t {
            check(stringify!($for), ctx);
            amo(
                stringify!($for),
                dest.cast_const(),
                value,
                AccumulateOp::Bor,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($or), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $or(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($or), ctx);
            amo(
                stringify!($or),
                dest.cast_const(),
                value,
                AccumulateOp::Bor,
                pe,
            );
        }
        #[doc = concat!("`", stringify!($fxor), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fxor(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) -> $t {
            check(stringify!($fxor), ctx);
            amo(
                stringify!($fxor),
                dest.cast_const(),
                value,
                AccumulateOp::Bxor,
                pe,
            )
        }
        #[doc = concat!("`", stringify!($xor), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $xor(ctx: Ctx, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($xor), ctx);
            amo(
                stringify!($xor),
                dest.cast_const(),
                value,
                AccumulateOp::Bxor,
                pe,
            );
        }
        #[doc = concat!("`", stringify!($fand_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fand_nbi(ctx: Ctx, fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($fand_nbi), ctx);
            store(
                stringify!($fand_nbi),
                fetch,
                amo(
                    stringify!($fand_nbi),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Band,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($for_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $for_nbi(ctx: Ctx, fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($for_nbi), ctx);
            store(
                stringify!($for_nbi),
                fetch,
                amo(
                    stringify!($for_nbi),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Bor,
                    pe,
                ),
            )
        }
        #[doc = concat!("`", stringify!($fxor_nbi), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $fxor_nbi(ctx: Ctx, fetch: *mut $t, dest: *mut $t, value: $t, pe: c_int) {
            check(stringify!($fxor_nbi), ctx);
            store(
                stringify!($fxor_nbi),
                fetch,
                amo(
                    stringify!($fxor_nbi),
                    dest.cast_const(),
                    value,
                    AccumulateOp::Bxor,
                    pe,
                ),
            )
        }
    };
}

/// `shmem_ctx_putmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_putmem(
    ctx: Ctx,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    pe: c_int,
) {
    check("shmem_ctx_putmem", ctx);
    put(
        "shmem_ctx_putmem",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

/// `shmem_ctx_putmem_nbi`: complete when it returns.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_putmem_nbi(
    ctx: Ctx,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    pe: c_int,
) {
    check("shmem_ctx_putmem_nbi", ctx);
    put(
        "shmem_ctx_putmem_nbi",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

/// `shmem_ctx_getmem`.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_getmem(
    ctx: Ctx,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    pe: c_int,
) {
    check("shmem_ctx_getmem", ctx);
    get(
        "shmem_ctx_getmem",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

/// `shmem_ctx_getmem_nbi`: complete when it returns.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_getmem_nbi(
    ctx: Ctx,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    pe: c_int,
) {
    check("shmem_ctx_getmem_nbi", ctx);
    get(
        "shmem_ctx_getmem_nbi",
        dest.cast::<u8>(),
        source.cast::<u8>(),
        nelems,
        pe,
    )
}

include!("context_typed.rs");
