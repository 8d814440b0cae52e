// SPDX-License-Identifier: MIT OR Apache-2.0
//! The examples of MPI-3.1's chapter 11 (one-sided communications),
//! translated to rma and run on every core of the run, every value
//! checked: a conformance test of rma against the standard's own code.
//!
//! Each example keeps the standard's pattern of synchronisation and
//! operations; its function names it (`ex11_1` is Example 11.1) and says
//! what the translation adds: the harness that makes values checkable
//! (initial window contents, a barrier between repetitions, a read-back),
//! and where the standard names two processes A and B, which cores play
//! them. Most two-process examples run on every core at once, each core
//! being process A towards its right neighbour and process B for its own
//! window ("the ring"); the others run on pairs of cores (even core A, the
//! next odd core B) or on cores 0 and 1. A window holds what the
//! example's array or "window location" holds; since rma reaches window
//! memory through calls, a load of a window location is
//! [`Rma::local_read`], a store [`Rma::local_write`], and a get into an
//! array that lies in the window gets into a buffer that is stored into
//! the window once the get has completed.
//!
//! Covered, by their MPI-3.1 numbers (verified against the MPI Forum's
//! `mpi31-report.pdf`; section 11.8 is "Examples"):
//!
//! - 11.1: `A = B(map)` with one `MPI_Get` per process and indexed-block
//!   datatypes at both sides, under fence.
//! - 11.2: the same with one get per element.
//! - 11.3: `B(j) = sum of A(i) over map(i) = j` with one accumulate per
//!   element into a histogram (a map with collisions), and the variant
//!   its text describes: 11.1's datatypes with accumulate instead of get.
//! - 11.4: start, put, complete (a ring; the target posts late, so the put
//!   must wait for the post).
//! - 11.5: an exclusive lock, put, unlock; the origin reads the data back.
//! - 11.6: a store between lock and unlock of the own window, a barrier,
//!   a get under lock (separate model).
//! - 11.7: a store, a barrier, `lock_all`, get and `flush_local`, on an
//!   `MPI_WIN_UNIFIED` window (NCM), made legal as the standard's advice
//!   for the unified model prescribes: the writer calls `MPI_WIN_SYNC`
//!   (within a `lock_all` epoch, as rma and MPI require) before the
//!   barrier.
//! - 11.8: a put under an exclusive lock, a barrier, a load between lock
//!   and unlock of the own window; and the polling form the standard calls
//!   semantically correct (lock, load, unlock until the value changes).
//! - 11.9: `lock_all`, put and flush, a barrier and a load, on a unified
//!   window, with the reader's `MPI_WIN_SYNC` after the barrier that makes
//!   it legal; and the unified model's polling of a location for its change
//!   from zero (rule 2 of the unified model), with the platform's wait.
//! - 11.10: a store, a shared lock of the own window, a barrier and a get
//!   under a shared lock, with the `MPI_WIN_SYNC` before the barrier that
//!   the standard says guarantees the new value.
//! - 11.11: post/start/complete/wait with process A in its own groups (on
//!   pairs of cores), in the corrected form: A puts X into its own window
//!   instead of storing it; B gets X and Y under an exclusive lock after the
//!   barrier, and Y also inside its start epoch, as the text allows.
//! - 11.12: a put under lock, a barrier, then post/start on the own window
//!   with both corrections: a get of the own window inside the epoch, and
//!   the load after wait.
//! - 11.13, 11.14: the loosely synchronous fence loops (puts; gets
//!   overlapping the core update), halo exchange with both neighbours.
//! - 11.15, 11.16: the same with post/start/complete/wait.
//! - 11.17: the checkerboard (double buffer) with `MPI_MODE_NOCHECK`
//!   starts, checked against a serial run of all cores' arrays.
//! - 11.18: the counting semaphore (accumulate, then `get_accumulate` with
//!   `MPI_NO_OP` and flush until zero), with every core taking part (X
//!   starts at the number of cores); and the same with `MPI_Fetch_and_op`,
//!   the single-element form of `get_accumulate` (chapter 11 has no example
//!   of its own for it).
//! - 11.19: Peterson's algorithm between cores 0 and 1 (accumulate with
//!   `MPI_REPLACE`, `get_accumulate` with `MPI_NO_OP`, flush), repeated,
//!   with a counter incremented by get and put inside the critical region.
//! - 11.20: the critical region by compare and swap, every core, repeated,
//!   with the same counter.
//! - 11.21: stores and loads in a shared window synchronised by send and
//!   receive and `MPI_WIN_SYNC`, on a unified (NCM) shared window and on a
//!   separate-model (MPBT-WT) one (`MPI_F_SYNC_REG` is Fortran's only: the
//!   standard says C needs no equivalent).
//! - 11.22: request-based get and put in a `lock_all` epoch with `M`
//!   buffers (rma has no `MPI_Waitany`: the first request `test_request`
//!   finds complete is taken, in index order).
//!
//! - 11.23: the distributed linked list on a dynamic window: elements
//!   from `alloc_mem`, attached as they are made and reached by address
//!   (`MPI_Get_address`), appended by every core in one `lock_all` epoch
//!   with compare and swap, `MPI_REPLACE` and `get_accumulate`; then walked
//!   with gets and checked on every core, detached and freed. `nil`'s
//!   address is one no memory has rather than `MPI_BOTTOM`, which is an
//!   address in rma (the POPSHM's first byte).
//!
//! Examples that need two processes are skipped on one core, each with a
//! printed note.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use chip::MemoryType;
use rma::comm::{Element, Group};
use rma::{
    AccumulateOp, Assert, Datatype, LockType, MemoryModel, Request, Rma, Window, WindowOptions,
};

use crate::bench::Rng;
use crate::support::osc::{Checks, conclude, fail, open, value, values};
use kernel::Platform;

/// The program's name, as its summary starts.
const NAME: &str = "rma-mpi-examples";

/// Elements of `A`, `B` and `map` per process in examples 11.1 to 11.3
/// (the standard's `m`).
const M: u32 = 12;

/// Iterations of the loops of examples 11.13 to 11.17 (`converged` is
/// true after them).
const ITERATIONS: u32 = 3;

/// Elements of a halo and of a boundary in examples 11.13 to 11.17: a
/// cache line of `u32`, so no line holds two regions.
const H: u32 = 8;
/// Elements of the core in examples 11.13 to 11.16.
const CORE: u32 = 16;
/// Where each region of examples 11.13 to 11.16's array `A` starts: halo,
/// boundary, core, boundary, halo.
const HALO_L: u32 = 0;
const BOUND_L: u32 = H;
const CORE_AT: u32 = 2 * H;
const BOUND_R: u32 = 2 * H + CORE;
const HALO_R: u32 = 3 * H + CORE;
/// Elements of examples 11.13 to 11.16's array `A`.
const A_LEN: u32 = 4 * H + CORE;

/// Interior elements of example 11.17's arrays (between two halos of
/// [`H`]).
const INTERIOR: u32 = 16;

/// Repetitions of Peterson's algorithm (11.19) and of the compare and swap
/// critical region (11.20).
const ROUNDS: u32 = 3;

/// Messages of example 11.21's loop.
const EXCHANGES: u32 = 4;

/// Example 11.22's `NSTEPS`, `M` (buffers) and `N` (doubles per chunk).
const NSTEPS: u32 = 6;
const BUFFERS: usize = 3;
const CHUNK: u32 = 16;

/// Polls a polling loop makes before the program gives up.
const MAX_POLLS: u32 = 200_000;

/// µs a target of example 11.4 waits before it posts.
const LATE_POST_US: u64 = 20;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut rma = open(platform)?;
    let mut c = Checks::default();
    let rma = &mut rma;
    ex11_1(rma, &mut c)?;
    ex11_2(rma, &mut c)?;
    ex11_3(rma, &mut c)?;
    ex11_4(platform, rma, &mut c)?;
    ex11_5(rma, &mut c)?;
    ex11_6(rma, &mut c)?;
    ex11_7(rma, &mut c)?;
    ex11_8(rma, &mut c)?;
    ex11_9(platform, rma, &mut c)?;
    ex11_10(rma, &mut c)?;
    ex11_11(rma, &mut c)?;
    ex11_12(rma, &mut c)?;
    ex11_13(rma, &mut c)?;
    ex11_14(rma, &mut c)?;
    ex11_15(rma, &mut c)?;
    ex11_16(rma, &mut c)?;
    ex11_17(rma, &mut c)?;
    ex11_18(rma, &mut c, Semaphore::GetAccumulate)?;
    ex11_18(rma, &mut c, Semaphore::FetchAndOp)?;
    ex11_19(rma, &mut c)?;
    ex11_20(rma, &mut c)?;
    ex11_21(rma, &mut c)?;
    ex11_22(rma, &mut c)?;
    ex11_23(rma, &mut c)?;
    conclude(
        rma,
        &c,
        NAME,
        "MPI-3.1 chapter 11 examples 11.1 to 11.23 (fence, PSCW, locks, flush, sync, atomics, shared windows, requests, dynamic windows; separate and unified models)",
    )
}

type R<'a, 'h> = &'a mut Rma<'h, Platform>;

/// Whether the run has the `needs` processes an example needs; core 0
/// prints a note when it has not.
fn runs_on(rma: &Rma<'_, Platform>, example: &str, needs: u32) -> bool {
    let n = rma.size();
    if n >= needs {
        return true;
    }
    if rma.rank() == 0 {
        kernel::println!("example {example} skipped: it needs {needs} processes, the run has {n}");
    }
    false
}

/// This core's left and right neighbours in the ring of all cores.
fn neighbours(rma: &Rma<'_, Platform>) -> (u32, u32) {
    let (n, me) = (rma.size(), rma.rank());
    ((me + n - 1) % n, (me + 1) % n)
}

/// The group of `ranks` (each once), as MPI_Group_incl makes it.
fn group(rma: R<'_, '_>, ranks: &[u32]) -> Result<Group, String> {
    let mut distinct = Vec::new();
    for &r in ranks {
        if !distinct.contains(&r) {
            distinct.push(r);
        }
    }
    rma.comm().group().incl(&distinct).map_err(fail("a group"))
}

/// A window of `init.len()` elements holding `init` on every core, made
/// public by a fence that opens no epoch (window memory comes as earlier
/// windows left it; MPI's arrays hold their values before the example).
fn window<T: Element>(
    rma: R<'_, '_>,
    options: WindowOptions,
    init: &[T],
) -> Result<Window<T>, String> {
    let win = rma
        .allocate::<T>(init.len() as u32, options)
        .map_err(fail("allocating a window"))?;
    rma.local_write(win, 0, init)
        .map_err(fail("initialising a window"))?;
    rma.fence(win, Assert::NOSUCCEED)
        .map_err(fail("publishing a window"))?;
    Ok(win)
}

/// `len` zeros of `T` (the zero of every element type here is its
/// default).
fn zeros<T: Element + Default>(len: u32) -> Vec<T> {
    vec![T::default(); len as usize]
}

/// Checks that the window reports the memory model `want` (`MPI_WIN_MODEL`):
/// `MPI_WIN_UNIFIED` where examples 11.7, 11.9 and 11.21 require it.
fn check_model<T>(
    rma: R<'_, '_>,
    c: &mut Checks,
    win: Window<T>,
    want: MemoryModel,
    example: &str,
) -> Result<(), String> {
    let model = rma.attributes(win).map_err(fail("attributes"))?.model;
    c.check(model == want, || {
        format!("example {example}: the window's memory model is {model:?}, expected {want:?}")
    });
    Ok(())
}

// ---------------------------------------------------------------------
// 11.3.3 and 11.3.4: examples for communication calls
// ---------------------------------------------------------------------

/// `B`'s value at global index `g` (exact in `f32`).
fn b_value(g: u32) -> f32 {
    (g * 7 % 1000 + 1) as f32
}

/// `A`'s value at global index `g` (exact in `f32`, and so are its sums).
fn a_value(g: u32) -> f32 {
    (g % 13 + 1) as f32
}

/// A permutation of `0..len`, the same on every core (Fisher-Yates).
fn permutation(len: u32, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    let mut p: Vec<u32> = (0..len).collect();
    for i in (1..len).rev() {
        let j = rng.below(i + 1);
        p.swap(i as usize, j as usize);
    }
    p
}

/// This core's part of `map` (global index `me * m + i` for `i` in
/// `0..m`).
fn my_part(rma: &Rma<'_, Platform>, map: &[u32]) -> Vec<u32> {
    let me = rma.rank();
    map[(me * M) as usize..((me + 1) * M) as usize].to_vec()
}

/// Example 11.1's origin and target datatypes, one pair per process:
/// entry `i` of this core's `A` comes from entry `k` of process `j`'s
/// `B`, where `map(i) = j * m + k`.
#[allow(clippy::type_complexity)]
fn map_types(
    n: u32,
    map: &[u32],
) -> Result<(Vec<rma::Committed<f32>>, Vec<rma::Committed<f32>>), String> {
    // Compute the number of entries to be received from each process.
    let mut count = vec![0usize; n as usize];
    for &g in map {
        count[(g / M) as usize] += 1;
    }
    let mut total = vec![0usize; n as usize];
    for i in 1..n as usize {
        total[i] = total[i - 1] + count[i - 1];
    }
    count.iter_mut().for_each(|c| *c = 0);
    // Compute origin and target indices of entries.
    let mut oindex = vec![0i64; map.len()];
    let mut tindex = vec![0i64; map.len()];
    for (i, &g) in map.iter().enumerate() {
        let (j, k) = ((g / M) as usize, g % M);
        oindex[total[j] + count[j]] = i as i64;
        tindex[total[j] + count[j]] = i64::from(k);
        count[j] += 1;
    }
    // Create origin and target datatypes for each get operation.
    let element = Datatype::<f32>::element();
    let mut otype = Vec::new();
    let mut ttype = Vec::new();
    for j in 0..n as usize {
        let range = total[j]..total[j] + count[j];
        for (types, index) in [(&mut otype, &oindex), (&mut ttype, &tindex)] {
            let ty = Datatype::indexed_block(1, &index[range.clone()], &element)
                .and_then(|t| t.commit())
                .map_err(fail("an indexed-block datatype"))?;
            types.push(ty);
        }
    }
    Ok((otype, ttype))
}

/// Example 11.1: `A = B(map)`, `map` a permutation, with one get per
/// process through indexed-block datatypes, between two fences.
fn ex11_1(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let map = my_part(rma, &permutation(M * n, 0x1101));
    let b: Vec<f32> = (0..M).map(|k| b_value(me * M + k)).collect();
    let win = window(rma, WindowOptions::new(), &b)?;
    let (otype, ttype) = map_types(n, &map)?;
    // This part does the assignment itself.
    let mut a = zeros::<f32>(M);
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    for j in 0..n {
        let (o, t) = (&otype[j as usize], &ttype[j as usize]);
        rma.get_typed(win, j, 0, &mut a, o.times(1), t.times(1))
            .map_err(fail("get with indexed-block types"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    rma.free(win).map_err(fail("freeing the window"))?;
    let want: Vec<f32> = map.iter().map(|&g| b_value(g)).collect();
    c.same(&a, &want, || {
        "example 11.1: A = B(map) by one get per process".into()
    });
    Ok(())
}

/// Example 11.2: `A = B(map)` with one get per element.
fn ex11_2(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let map = my_part(rma, &permutation(M * n, 0x1102));
    let b: Vec<f32> = (0..M).map(|k| b_value(me * M + k)).collect();
    let win = window(rma, WindowOptions::new(), &b)?;
    let mut a = zeros::<f32>(M);
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    for (i, &g) in map.iter().enumerate() {
        let (j, disp) = (g / M, g % M);
        rma.get(win, j, disp, &mut a[i..=i])
            .map_err(fail("get of one element"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    rma.free(win).map_err(fail("freeing the window"))?;
    let want: Vec<f32> = map.iter().map(|&g| b_value(g)).collect();
    c.same(&a, &want, || {
        "example 11.2: A = B(map) by one get per element".into()
    });
    Ok(())
}

/// Example 11.3: `B(j) = sum of A(i) over map(i) = j` with one accumulate
/// per element (the map has collisions: a histogram); then, as its text
/// describes, example 11.1 with accumulate in place of get (one
/// communication per pair of processes; `map` a permutation, so
/// `B = A(map⁻¹)`).
fn ex11_3(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let all = M * n;
    let mut rng = Rng::new(0x1103);
    let histogram: Vec<u32> = (0..all).map(|_| rng.below(all)).collect();
    let map = my_part(rma, &histogram);
    let a: Vec<f32> = (0..M).map(|i| a_value(me * M + i)).collect();
    let win = window(rma, WindowOptions::new(), &zeros::<f32>(M))?;
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    for (i, &g) in map.iter().enumerate() {
        let (j, disp) = (g / M, g % M);
        rma.accumulate(win, j, disp, &a[i..=i], AccumulateOp::Sum)
            .map_err(fail("accumulate"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    let mut b = zeros::<f32>(M);
    rma.local_read(win, 0, &mut b).map_err(fail("local read"))?;
    let mut want = zeros::<f32>(M);
    for (g, &to) in (0..).zip(&histogram) {
        if to / M == me {
            want[(to % M) as usize] += a_value(g);
        }
    }
    c.same(&b, &want, || {
        "example 11.3: B(j) = sum of A(i) over map(i) = j, one accumulate per element".into()
    });

    // Example 11.1's datatypes, accumulate in place of get.
    let perm = permutation(all, 0x1101);
    let map = my_part(rma, &perm);
    let (otype, ttype) = map_types(n, &map)?;
    rma.local_write(win, 0, &zeros::<f32>(M))
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    for j in 0..n {
        let (o, t) = (&otype[j as usize], &ttype[j as usize]);
        rma.accumulate_typed(win, j, 0, &a, o.times(1), t.times(1), AccumulateOp::Sum)
            .map_err(fail("accumulate with indexed-block types"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    rma.local_read(win, 0, &mut b).map_err(fail("local read"))?;
    let mut want = zeros::<f32>(M);
    for (g, &to) in (0..).zip(&perm) {
        if to / M == me {
            want[(to % M) as usize] = a_value(g);
        }
    }
    c.same(&b, &want, || {
        "example 11.3: 11.1's datatypes with accumulate, B = A(map^-1)".into()
    });
    rma.free(win).map_err(fail("freeing the window"))
}

// ---------------------------------------------------------------------
// 11.5: synchronisation calls
// ---------------------------------------------------------------------

/// Example 11.4: `start`, `put`, `complete`, around a ring: each core
/// puts into its right neighbour. Even cores post late (after a pause), so
/// their left neighbours' puts must wait for the post ("the target window
/// will be accessed by the put operation only after the call to
/// MPI_WIN_START has matched a call to MPI_WIN_POST by the target"): each
/// target stores 0 into the slot just before it posts, and finds the put
/// value after wait.
fn ex11_4(platform: &Platform, rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.4", 2) {
        return Ok(());
    }
    let me = rma.rank();
    let (left, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &[u32::MAX])?;
    let origins = group(rma, &[left])?;
    let targets = group(rma, &[right])?;
    if me.is_multiple_of(2) {
        platform.pause(u64::from(platform.chip().timing.core_mhz) * LATE_POST_US);
    }
    rma.local_write(win, 0, &[0]).map_err(fail("local write"))?;
    rma.post(win, &origins, Assert::NONE)
        .map_err(fail("post"))?;
    rma.start(win, &targets, Assert::NONE)
        .map_err(fail("start"))?;
    rma.put(win, right, 0, &[value(4, me, right, 0)])
        .map_err(fail("put"))?;
    rma.complete(win).map_err(fail("complete"))?;
    rma.wait(win).map_err(fail("wait"))?;
    let mut got = [0];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    c.check(got[0] == value(4, left, me, 0), || {
        format!(
            "example 11.4: core {left}'s put after start found {:#x}, expected {:#x}",
            got[0],
            value(4, left, me, 0)
        )
    });
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.5: an exclusive lock, a put and unlock, into the right
/// neighbour; "the call to MPI_WIN_UNLOCK will not return until the put
/// transfer has completed at the origin and at the target": the origin
/// reads the value back under a shared lock.
fn ex11_5(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let me = rma.rank();
    let (_, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &[0u32])?;
    let v = value(5, me, right, 0);
    rma.lock(win, LockType::Exclusive, right, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.put(win, right, 0, &[v]).map_err(fail("put"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    let mut got = [0];
    rma.lock(win, LockType::Shared, right, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.get(win, right, 0, &mut got).map_err(fail("get"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    c.check(got[0] == v, || {
        format!(
            "example 11.5: core {right} holds {:#x} after lock, put, unlock of {v:#x}",
            got[0]
        )
    });
    rma.free(win).map_err(fail("freeing the window"))
}

// ---------------------------------------------------------------------
// 11.7: semantics and correctness
// ---------------------------------------------------------------------

/// Example 11.6 (separate model), on the ring: process B (every core, its
/// own window) stores X between lock and unlock of its own window; after
/// the barrier process A (its left neighbour) gets X under an exclusive
/// lock.
fn ex11_6(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.6", 2) {
        return Ok(());
    }
    let me = rma.rank();
    let (_, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &[0u32])?;
    // Process B.
    rma.lock(win, LockType::Exclusive, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_write(win, 0, &[value(6, me, me, 0)])
        .map_err(fail("store X"))?;
    rma.unlock(win, me).map_err(fail("unlock"))?;
    rma.comm().barrier();
    // Process A.
    let mut x = [0];
    rma.lock(win, LockType::Exclusive, right, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.get(win, right, 0, &mut x).map_err(fail("get X"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    let want = value(6, right, right, 0);
    c.check(x[0] == want, || {
        format!(
            "example 11.6: get of core {right}'s X gave {:#x}, expected {want:#x}",
            x[0]
        )
    });
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.7 on a unified window (NCM), on the ring: B stores X, A
/// gets it after the barrier in a `lock_all` epoch and reads it after
/// `flush_local`. As the standard says the store might otherwise not have
/// happened before the barrier, B calls `MPI_WIN_SYNC` before it (the
/// unified model's advice), in a `lock_all` epoch (the one A's get needs
/// too: a core is A and B at once).
fn ex11_7(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.7", 2) {
        return Ok(());
    }
    let me = rma.rank();
    let (_, right) = neighbours(rma);
    let win = window(
        rma,
        WindowOptions::new().memory_type(MemoryType::Ncm),
        &[0u32],
    )?;
    check_model(rma, c, win, MemoryModel::Unified, "11.7")?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    rma.local_write(win, 0, &[value(7, me, me, 0)])
        .map_err(fail("store X"))?;
    rma.sync(win).map_err(fail("sync"))?;
    rma.comm().barrier();
    let mut x = [0];
    rma.get(win, right, 0, &mut x).map_err(fail("get X"))?;
    rma.flush_local(win, right).map_err(fail("flush_local"))?;
    let want = value(7, right, right, 0);
    c.check(x[0] == want, || {
        format!(
            "example 11.7: get of core {right}'s X gave {:#x}, expected {want:#x}",
            x[0]
        )
    });
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.8 (separate model), on the ring: A puts X into its right
/// neighbour under an exclusive lock; after the barrier B loads X between
/// lock and unlock of its own window. Then the polling form the text calls
/// semantically correct: no barrier, B locks, loads and unlocks until X
/// changes.
fn ex11_8(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.8", 2) {
        return Ok(());
    }
    let me = rma.rank();
    let (left, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &[0u32; 2])?;
    // Process A.
    rma.lock(win, LockType::Exclusive, right, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.put(win, right, 0, &[value(8, me, right, 0)])
        .map_err(fail("put X"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    rma.comm().barrier();
    // Process B.
    let mut x = [0];
    rma.lock(win, LockType::Exclusive, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_read(win, 0, &mut x).map_err(fail("load X"))?;
    rma.unlock(win, me).map_err(fail("unlock"))?;
    let want = value(8, left, me, 0);
    c.check(x[0] == want, || {
        format!(
            "example 11.8: load of X put by core {left} gave {:#x}, expected {want:#x}",
            x[0]
        )
    });

    // The polling form, on a second location.
    rma.lock(win, LockType::Exclusive, right, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.put(win, right, 1, &[value(8, me, right, 1)])
        .map_err(fail("put X"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    let mut polls = 0;
    loop {
        rma.lock(win, LockType::Exclusive, me, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.local_read(win, 1, &mut x).map_err(fail("load X"))?;
        rma.unlock(win, me).map_err(fail("unlock"))?;
        polls += 1;
        if x[0] != 0 {
            break;
        }
        if polls == MAX_POLLS {
            return Err(format!(
                "example 11.8: X unchanged after {polls} polls with lock, load, unlock"
            ));
        }
    }
    let want = value(8, left, me, 1);
    c.check(x[0] == want, || {
        format!(
            "example 11.8: polling found X = {:#x} from core {left}, expected {want:#x}",
            x[0]
        )
    });
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.9 on a unified window (NCM), on the ring: A puts X into its
/// right neighbour and flushes in a `lock_all` epoch; B loads X after the
/// barrier. The standard calls the load unsafe without more
/// synchronisation; B calls `MPI_WIN_SYNC` after the barrier (the unified
/// model's advice), in a `lock_all` epoch. Then the unified model's
/// polling (its rule 2: "this permits polling on a location for a change
/// from zero to non-zero"): no barrier, B loads X until it is not zero,
/// each load a poll of the platform's wait.
fn ex11_9(platform: &Platform, rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.9", 2) {
        return Ok(());
    }
    let me = rma.rank();
    let (left, right) = neighbours(rma);
    let win = window(
        rma,
        WindowOptions::new().memory_type(MemoryType::Ncm),
        &[0u32; 2],
    )?;
    check_model(rma, c, win, MemoryModel::Unified, "11.9")?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    rma.put(win, right, 0, &[value(9, me, right, 0)])
        .map_err(fail("put X"))?;
    rma.flush(win, right).map_err(fail("flush"))?;
    rma.comm().barrier();
    rma.sync(win).map_err(fail("sync"))?;
    let mut x = [0];
    rma.local_read(win, 0, &mut x).map_err(fail("load X"))?;
    let want = value(9, left, me, 0);
    c.check(x[0] == want, || {
        format!(
            "example 11.9: load of X put by core {left} gave {:#x}, expected {want:#x}",
            x[0]
        )
    });
    rma.unlock_all(win).map_err(fail("unlock_all"))?;

    // Polling for the change from zero, on a second location.
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    rma.put(win, right, 1, &[value(9, me, right, 1)])
        .map_err(fail("put X"))?;
    rma.flush(win, right).map_err(fail("flush"))?;
    let mut error = None;
    let x = platform.wait_for(|| {
        let mut x = [0];
        match rma.local_read(win, 1, &mut x) {
            Ok(()) => (x[0] != 0).then_some(x[0]),
            Err(e) => {
                error = Some(e);
                Some(0)
            }
        }
    });
    if let Some(e) = error {
        return Err(fail("load X")(e));
    }
    let want = value(9, left, me, 1);
    c.check(x == want, || {
        format!("example 11.9: polling found X = {x:#x} from core {left}, expected {want:#x}")
    });
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.10 (separate model), on the ring: B stores X and locks its
/// own window shared; A gets X under a shared lock after the barrier. With
/// the `MPI_WIN_SYNC` before the barrier that, the text says, "would
/// guarantee process A would see the updated value of X".
fn ex11_10(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.10", 2) {
        return Ok(());
    }
    let me = rma.rank();
    let (_, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &[0u32])?;
    // Process B.
    rma.local_write(win, 0, &[value(10, me, me, 0)])
        .map_err(fail("store X"))?;
    rma.lock(win, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.sync(win).map_err(fail("sync"))?;
    rma.comm().barrier();
    // Process A.
    let mut x = [0];
    rma.lock(win, LockType::Shared, right, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.get(win, right, 0, &mut x).map_err(fail("get X"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    // Process B.
    rma.unlock(win, me).map_err(fail("unlock"))?;
    let want = value(10, right, right, 0);
    c.check(x[0] == want, || {
        format!(
            "example 11.10: get of core {right}'s X under a shared lock gave {:#x}, expected {want:#x}",
            x[0]
        )
    });
    rma.free(win).map_err(fail("freeing the window"))
}

/// Who a core is in a two-process example run on pairs of cores.
enum Role {
    /// Process A, with its B.
    A(u32),
    /// Process B, with its A.
    B(u32),
    /// The last core of an odd run.
    Idle,
}

/// Even cores are process A of the next odd core.
fn role(rma: &Rma<'_, Platform>) -> Role {
    let (n, me) = (rma.size(), rma.rank());
    if me % 2 == 1 {
        Role::B(me - 1)
    } else if me + 1 < n {
        Role::A(me + 1)
    } else {
        Role::Idle
    }
}

/// Example 11.11 (separate model) on pairs of cores, corrected as its text
/// says: A stores Y and posts to itself and B, and puts X into its own
/// window inside its own start epoch (a store would not be guaranteed in
/// the public copy); after wait, A's load finds X. B's start epoch has
/// the get of Y the text allows to move there; after the barrier B gets
/// X and Y under an exclusive lock.
fn ex11_11(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.11", 2) {
        return Ok(());
    }
    let me = rma.rank();
    // X at 0, Y at 1.
    let win = window(rma, WindowOptions::new(), &[0u32; 2])?;
    let x_of = |a: u32| value(11, a, a, 0);
    let y_of = |a: u32| value(11, a, a, 1);
    match role(rma) {
        Role::A(b) => {
            let both = group(rma, &[me, b])?;
            let itself = group(rma, &[me])?;
            rma.local_write(win, 1, &[y_of(me)])
                .map_err(fail("store Y"))?;
            rma.post(win, &both, Assert::NONE).map_err(fail("post"))?;
            rma.start(win, &itself, Assert::NONE)
                .map_err(fail("start"))?;
            rma.put(win, me, 0, &[x_of(me)]).map_err(fail("put X"))?;
            rma.complete(win).map_err(fail("complete"))?;
            rma.wait(win).map_err(fail("wait"))?;
            let mut x = [0];
            rma.local_read(win, 0, &mut x).map_err(fail("load X"))?;
            c.check(x[0] == x_of(me), || {
                format!(
                    "example 11.11: A's load of X after wait gave {:#x}, expected {:#x}",
                    x[0],
                    x_of(me)
                )
            });
            rma.comm().barrier();
        }
        Role::B(a) => {
            let origin = group(rma, &[a])?;
            let mut y = [0];
            rma.start(win, &origin, Assert::NONE)
                .map_err(fail("start"))?;
            rma.get(win, a, 1, &mut y).map_err(fail("get Y"))?;
            rma.complete(win).map_err(fail("complete"))?;
            c.check(y[0] == y_of(a), || {
                format!(
                    "example 11.11: get of core {a}'s Y in the start epoch gave {:#x}, expected {:#x}",
                    y[0],
                    y_of(a)
                )
            });
            rma.comm().barrier();
            let mut xy = [0; 2];
            rma.lock(win, LockType::Exclusive, a, Assert::NONE)
                .map_err(fail("lock"))?;
            rma.get(win, a, 0, &mut xy[..1]).map_err(fail("get X"))?;
            rma.get(win, a, 1, &mut xy[1..]).map_err(fail("get Y"))?;
            rma.unlock(win, a).map_err(fail("unlock"))?;
            c.same(&xy, &[x_of(a), y_of(a)], || {
                format!("example 11.11: X and Y of core {a} under an exclusive lock")
            });
        }
        Role::Idle => rma.comm().barrier(),
    }
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.12 (separate model), on the ring: A puts X into its right
/// neighbour under an exclusive lock; after the barrier B posts to and
/// starts on itself. With both corrections the text gives: B gets X from
/// its own window inside the epoch, and loads it after wait.
fn ex11_12(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.12", 2) {
        return Ok(());
    }
    let me = rma.rank();
    let (left, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &[0u32])?;
    // Process A.
    rma.lock(win, LockType::Exclusive, right, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.put(win, right, 0, &[value(12, me, right, 0)])
        .map_err(fail("put X"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    rma.comm().barrier();
    // Process B.
    let itself = group(rma, &[me])?;
    let (mut got, mut loaded) = ([0], [0]);
    rma.post(win, &itself, Assert::NONE).map_err(fail("post"))?;
    rma.start(win, &itself, Assert::NONE)
        .map_err(fail("start"))?;
    rma.get(win, me, 0, &mut got).map_err(fail("get X"))?;
    rma.complete(win).map_err(fail("complete"))?;
    rma.wait(win).map_err(fail("wait"))?;
    rma.local_read(win, 0, &mut loaded)
        .map_err(fail("load X"))?;
    let want = value(12, left, me, 0);
    c.check(got[0] == want, || {
        format!(
            "example 11.12: B's get of its own X gave {:#x}, expected core {left}'s {want:#x}",
            got[0]
        )
    });
    c.check(loaded[0] == want, || {
        format!(
            "example 11.12: B's load of X after wait gave {:#x}, expected core {left}'s {want:#x}",
            loaded[0]
        )
    });
    rma.free(win).map_err(fail("freeing the window"))
}

// ---------------------------------------------------------------------
// 11.8: examples
// ---------------------------------------------------------------------

/// What `owner`'s array holds at `first..first + len` in iteration `it`
/// of example `example` (its boundaries and core).
fn region(example: u32, it: u32, owner: u32, first: u32, len: u32) -> Vec<u32> {
    values(example * 100 + it, owner, owner, first, len)
}

/// `update(A)` of examples 11.13 and 11.15, `update_boundary(A)` of 11.14
/// and 11.16 (with `core` false): new values in the boundaries (and the
/// core).
fn update(
    rma: R<'_, '_>,
    win: Window<u32>,
    example: u32,
    it: u32,
    core: bool,
) -> Result<(), String> {
    let me = rma.rank();
    let parts: &[(u32, u32)] = if core {
        &[(BOUND_L, H), (CORE_AT, CORE), (BOUND_R, H)]
    } else {
        &[(BOUND_L, H), (BOUND_R, H)]
    };
    for &(at, len) in parts {
        rma.local_write(win, at, &region(example, it, me, at, len))
            .map_err(fail("update"))?;
    }
    Ok(())
}

/// `update_core(A)` of examples 11.14 and 11.16.
fn update_core(rma: R<'_, '_>, win: Window<u32>, example: u32, it: u32) -> Result<(), String> {
    let me = rma.rank();
    rma.local_write(win, CORE_AT, &region(example, it, me, CORE_AT, CORE))
        .map_err(fail("update_core"))
}

/// The frombuf of a put to a neighbour (the left one with `left_side`):
/// this core's boundary on that side, loaded from the window.
fn boundary_towards(rma: R<'_, '_>, win: Window<u32>, left_side: bool) -> Result<Vec<u32>, String> {
    let mut buf = zeros::<u32>(H);
    let at = if left_side { BOUND_L } else { BOUND_R };
    rma.local_read(win, at, &mut buf)
        .map_err(fail("load of a boundary"))?;
    Ok(buf)
}

/// After iteration `it` of a halo example: the halos hold the
/// neighbours' boundaries of this iteration (and with `whole`, the array
/// holds this core's boundaries and core too).
fn check_array(
    rma: R<'_, '_>,
    c: &mut Checks,
    win: Window<u32>,
    example: u32,
    it: u32,
    whole: bool,
) -> Result<(), String> {
    let me = rma.rank();
    let (left, right) = neighbours(rma);
    let mut got = zeros::<u32>(A_LEN);
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let mut want = got.clone();
    want[HALO_L as usize..][..H as usize].copy_from_slice(&region(example, it, left, BOUND_R, H));
    want[HALO_R as usize..][..H as usize].copy_from_slice(&region(example, it, right, BOUND_L, H));
    if whole {
        for (at, len) in [(BOUND_L, H), (CORE_AT, CORE), (BOUND_R, H)] {
            want[at as usize..][..len as usize].copy_from_slice(&region(example, it, me, at, len));
        }
    }
    c.same(&got, &want, || {
        format!(
            "example 11.{example}, iteration {it}: halos from cores {left} and {right}{}",
            if whole { ", boundaries and core" } else { "" }
        )
    });
    Ok(())
}

/// Example 11.13: the loosely synchronous loop with fences: update `A`,
/// `fence(NOPRECEDE)`, put the boundaries into both neighbours' halos,
/// `fence(NOSTORE | NOSUCCEED)`.
fn ex11_13(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let (left, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &zeros::<u32>(A_LEN))?;
    for it in 0..ITERATIONS {
        update(rma, win, 13, it, true)?;
        rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
        let to_left = boundary_towards(rma, win, true)?;
        let to_right = boundary_towards(rma, win, false)?;
        rma.put(win, left, HALO_R, &to_left).map_err(fail("put"))?;
        rma.put(win, right, HALO_L, &to_right)
            .map_err(fail("put"))?;
        rma.fence(win, Assert::NOSTORE | Assert::NOSUCCEED)
            .map_err(fail("fence"))?;
        check_array(rma, c, win, 13, it, false)?;
    }
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.14: the same with gets, the core update overlapping them:
/// update the boundaries, `fence(NOPUT | NOPRECEDE)`, get both
/// neighbours' boundaries, update the core, `fence(NOSUCCEED)`.
fn ex11_14(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let (left, right) = neighbours(rma);
    let win = window(rma, WindowOptions::new(), &zeros::<u32>(A_LEN))?;
    for it in 0..ITERATIONS {
        update(rma, win, 14, it, false)?;
        rma.fence(win, Assert::NOPUT | Assert::NOPRECEDE)
            .map_err(fail("fence"))?;
        let (mut from_left, mut from_right) = (zeros::<u32>(H), zeros::<u32>(H));
        rma.get(win, left, BOUND_R, &mut from_left)
            .map_err(fail("get"))?;
        rma.get(win, right, BOUND_L, &mut from_right)
            .map_err(fail("get"))?;
        update_core(rma, win, 14, it)?;
        rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
        store_halos(rma, win, &from_left, &from_right)?;
        check_array(rma, c, win, 14, it, true)?;
    }
    rma.free(win).map_err(fail("freeing the window"))
}

/// The gets' tobuf: the halos, stored once the gets completed.
fn store_halos(
    rma: R<'_, '_>,
    win: Window<u32>,
    left: &[u32],
    right: &[u32],
) -> Result<(), String> {
    rma.local_write(win, HALO_L, left)
        .map_err(fail("store of a halo"))?;
    rma.local_write(win, HALO_R, right)
        .map_err(fail("store of a halo"))
}

/// Example 11.15: example 11.13 with post/start/complete/wait, the
/// neighbours as both groups.
fn ex11_15(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.15", 2) {
        return Ok(());
    }
    let (left, right) = neighbours(rma);
    let both = group(rma, &[left, right])?;
    let win = window(rma, WindowOptions::new(), &zeros::<u32>(A_LEN))?;
    for it in 0..ITERATIONS {
        update(rma, win, 15, it, true)?;
        rma.post(win, &both, Assert::NONE).map_err(fail("post"))?;
        rma.start(win, &both, Assert::NONE).map_err(fail("start"))?;
        let to_left = boundary_towards(rma, win, true)?;
        let to_right = boundary_towards(rma, win, false)?;
        rma.put(win, left, HALO_R, &to_left).map_err(fail("put"))?;
        rma.put(win, right, HALO_L, &to_right)
            .map_err(fail("put"))?;
        rma.complete(win).map_err(fail("complete"))?;
        rma.wait(win).map_err(fail("wait"))?;
        check_array(rma, c, win, 15, it, false)?;
    }
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.16: example 11.14 with post (`NOPUT`)/start/complete/wait.
fn ex11_16(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.16", 2) {
        return Ok(());
    }
    let (left, right) = neighbours(rma);
    let both = group(rma, &[left, right])?;
    let win = window(rma, WindowOptions::new(), &zeros::<u32>(A_LEN))?;
    for it in 0..ITERATIONS {
        update(rma, win, 16, it, false)?;
        rma.post(win, &both, Assert::NOPUT).map_err(fail("post"))?;
        rma.start(win, &both, Assert::NONE).map_err(fail("start"))?;
        let (mut from_left, mut from_right) = (zeros::<u32>(H), zeros::<u32>(H));
        rma.get(win, left, BOUND_R, &mut from_left)
            .map_err(fail("get"))?;
        rma.get(win, right, BOUND_L, &mut from_right)
            .map_err(fail("get"))?;
        update_core(rma, win, 16, it)?;
        rma.complete(win).map_err(fail("complete"))?;
        rma.wait(win).map_err(fail("wait"))?;
        store_halos(rma, win, &from_left, &from_right)?;
        check_array(rma, c, win, 16, it, true)?;
    }
    rma.free(win).map_err(fail("freeing the window"))
}

/// Elements of one of example 11.17's arrays: halo, interior, halo.
const CB_LEN: u32 = 2 * H + INTERIOR;

/// `update2(X, Y)` of example 11.17: a local update of `X`'s interior that
/// depends on `X` (its halos included) and `Y`.
fn update2(x: &mut [u32], y: &[u32]) {
    let old = x.to_vec();
    for i in H as usize..(H + INTERIOR) as usize {
        x[i] = old[i - 1]
            .wrapping_add(old[i + 1])
            .wrapping_add(y[i].wrapping_mul(3))
            .wrapping_add(1);
    }
}

/// `update1(X)` of example 11.17: a local update of `X`'s interior that
/// depends on `X` only.
fn update1(x: &mut [u32], it: u32) {
    for (i, e) in (H..).zip(&mut x[H as usize..(H + INTERIOR) as usize]) {
        *e = e.rotate_left(5) ^ (i << 8) ^ it;
    }
}

/// The halos of every core's array from its neighbours' interiors, as the
/// gets of example 11.17 fetch them.
fn exchange(arrays: &mut [Vec<u32>]) {
    let n = arrays.len();
    let (h, last) = (H as usize, (H + INTERIOR - H) as usize);
    let old: Vec<Vec<u32>> = arrays.to_vec();
    for r in 0..n {
        let (left, right) = (&old[(r + n - 1) % n], &old[(r + 1) % n]);
        arrays[r][..h].copy_from_slice(&left[last..last + h]);
        arrays[r][(H + INTERIOR) as usize..].copy_from_slice(&right[h..2 * h]);
    }
}

/// One array of example 11.17 on every core.
type Arrays = Vec<Vec<u32>>;

/// Example 11.17's arrays on every core (`A0`, `A1`), serially, after
/// each iteration.
fn checkerboard_serial(n: u32) -> Vec<(Arrays, Arrays)> {
    let mut a0: Arrays = (0..n).map(checkerboard_init).collect();
    let mut a1: Arrays = vec![zeros::<u32>(CB_LEN); n as usize];
    let mut after = Vec::new();
    for it in 0..ITERATIONS {
        for (x, y) in a1.iter_mut().zip(&a0) {
            update2(x, y);
        }
        exchange(&mut a0);
        a1.iter_mut().for_each(|x| update1(x, it));
        for (x, y) in a0.iter_mut().zip(&a1) {
            update2(x, y);
        }
        exchange(&mut a1);
        a0.iter_mut().for_each(|x| update1(x, it));
        after.push((a0.clone(), a1.clone()));
    }
    after
}

/// Example 11.17's `A0` on core `r` at the start: its interior set, its
/// halos 0.
fn checkerboard_init(r: u32) -> Vec<u32> {
    let mut a = zeros::<u32>(CB_LEN);
    a[H as usize..(H + INTERIOR) as usize].copy_from_slice(&values(17, r, r, 0, INTERIOR));
    a
}

/// Applies `f` to the array in `win`, through loads and stores of the
/// interior (the halos are only read).
fn local_update(
    rma: R<'_, '_>,
    win: Window<u32>,
    other: Option<Window<u32>>,
    f: impl FnOnce(&mut [u32], &[u32]),
) -> Result<(), String> {
    let mut x = zeros::<u32>(CB_LEN);
    rma.local_read(win, 0, &mut x).map_err(fail("local read"))?;
    let mut y = zeros::<u32>(CB_LEN);
    if let Some(other) = other {
        rma.local_read(other, 0, &mut y)
            .map_err(fail("local read"))?;
    }
    f(&mut x, &y);
    rma.local_write(win, H, &x[H as usize..(H + INTERIOR) as usize])
        .map_err(fail("local write"))
}

/// Gets both neighbours' boundaries of the array in `win` (what the
/// halos need).
fn get_halos(rma: R<'_, '_>, win: Window<u32>) -> Result<(Vec<u32>, Vec<u32>), String> {
    let (left, right) = neighbours(rma);
    let (mut from_left, mut from_right) = (zeros::<u32>(H), zeros::<u32>(H));
    rma.get(win, left, INTERIOR, &mut from_left)
        .map_err(fail("get"))?;
    rma.get(win, right, H, &mut from_right)
        .map_err(fail("get"))?;
    Ok((from_left, from_right))
}

/// Example 11.17: the checkerboard (double buffer) pattern: `A0` is
/// updated from `A1` and the other way round, each exchange of one array's
/// halos (gets in an epoch whose start asserts `NOCHECK`) overlapping the
/// update of the other; checked against [`checkerboard_serial`] after each
/// iteration.
fn ex11_17(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.17", 2) {
        return Ok(());
    }
    let (n, me) = (rma.size(), rma.rank());
    let (left, right) = neighbours(rma);
    let nb = group(rma, &[left, right])?;
    let serial = checkerboard_serial(n);
    let win0 = window(rma, WindowOptions::new(), &checkerboard_init(me))?;
    let win1 = window(rma, WindowOptions::new(), &zeros::<u32>(CB_LEN))?;
    let expose = Assert::NOCHECK | Assert::NOPUT;
    let h_right = H + INTERIOR;
    // converged(A0, A1) is true after ITERATIONS iterations.
    rma.post(win0, &nb, expose).map_err(fail("post"))?;
    rma.comm().barrier();
    for it in 0..ITERATIONS {
        // Communication on A0 and computation on A1.
        local_update(rma, win1, Some(win0), update2)?;
        rma.start(win0, &nb, Assert::NOCHECK)
            .map_err(fail("start"))?;
        let (l0, r0) = get_halos(rma, win0)?;
        local_update(rma, win1, None, |x, _| update1(x, it))?;
        rma.post(win1, &nb, expose).map_err(fail("post"))?;
        rma.complete(win0).map_err(fail("complete"))?;
        rma.wait(win0).map_err(fail("wait"))?;
        rma.local_write(win0, 0, &l0)
            .map_err(fail("store of a halo"))?;
        rma.local_write(win0, h_right, &r0)
            .map_err(fail("store of a halo"))?;

        // Communication on A1 and computation on A0.
        local_update(rma, win0, Some(win1), update2)?;
        rma.start(win1, &nb, Assert::NOCHECK)
            .map_err(fail("start"))?;
        let (l1, r1) = get_halos(rma, win1)?;
        local_update(rma, win0, None, |x, _| update1(x, it))?;
        if it + 1 < ITERATIONS {
            rma.post(win0, &nb, expose).map_err(fail("post"))?;
        }
        rma.complete(win1).map_err(fail("complete"))?;
        rma.wait(win1).map_err(fail("wait"))?;
        rma.local_write(win1, 0, &l1)
            .map_err(fail("store of a halo"))?;
        rma.local_write(win1, h_right, &r1)
            .map_err(fail("store of a halo"))?;

        let (want0, want1) = &serial[it as usize];
        for (name, win, want) in [("A0", win0, want0), ("A1", win1, want1)] {
            let mut got = zeros::<u32>(CB_LEN);
            rma.local_read(win, 0, &mut got)
                .map_err(fail("local read"))?;
            c.same(&got, &want[me as usize], || {
                format!("example 11.17, iteration {it}: {name} against a serial run")
            });
        }
    }
    rma.free(win1).map_err(fail("freeing the window"))?;
    rma.free(win0).map_err(fail("freeing the window"))
}

/// Which calls example 11.18's semaphore uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Semaphore {
    /// The standard's: accumulate, then get_accumulate with MPI_NO_OP.
    GetAccumulate,
    /// fetch_and_op with MPI_SUM, then with MPI_NO_OP.
    FetchAndOp,
}

/// Example 11.18: a naive counting semaphore. Process A (core 0) holds X,
/// sets it to the number of processes (the example's 2 for its two) and
/// makes the store public with `MPI_WIN_SYNC`; after the barrier every
/// core decrements X and polls it until it is zero, flushing after each
/// read. Every value a core reads must be between 0 and its last; core 0
/// then finds X zero.
fn ex11_18(rma: R<'_, '_>, c: &mut Checks, calls: Semaphore) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let name = match calls {
        Semaphore::GetAccumulate => "11.18",
        Semaphore::FetchAndOp => "11.18 with fetch_and_op",
    };
    let win = window(rma, WindowOptions::new(), &[0i32])?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    if me == 0 {
        rma.local_write(win, 0, &[n as i32])
            .map_err(fail("store X"))?;
        rma.sync(win).map_err(fail("sync"))?;
    }
    rma.comm().barrier();
    match calls {
        Semaphore::GetAccumulate => rma
            .accumulate(win, 0, 0, &[-1], AccumulateOp::Sum)
            .map_err(fail("accumulate"))?,
        Semaphore::FetchAndOp => {
            rma.fetch_and_op(win, 0, 0, -1, AccumulateOp::Sum)
                .map_err(fail("fetch_and_op"))?;
        }
    }
    let (mut last, mut ordered, mut polls) = (n as i32, true, 0);
    loop {
        let z = match calls {
            Semaphore::GetAccumulate => {
                let mut z = [0];
                rma.get_accumulate(win, 0, 0, &[], &mut z, AccumulateOp::NoOp)
                    .map_err(fail("get_accumulate"))?;
                z[0]
            }
            Semaphore::FetchAndOp => rma
                .fetch_and_op(win, 0, 0, 0, AccumulateOp::NoOp)
                .map_err(fail("fetch_and_op"))?,
        };
        rma.flush(win, 0).map_err(fail("flush"))?;
        ordered &= (0..=last).contains(&z);
        last = z;
        polls += 1;
        if z == 0 {
            break;
        }
        if polls == MAX_POLLS {
            return Err(format!(
                "example {name}: X is still {z} after {polls} polls"
            ));
        }
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    c.check(ordered, || {
        format!("example {name}: a value of X out of order (last read {last})")
    });
    rma.comm().barrier();
    if me == 0 {
        let mut x = [-1];
        rma.lock(win, LockType::Shared, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.local_read(win, 0, &mut x).map_err(fail("load X"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
        c.check(x[0] == 0, || {
            format!("example {name}: X is {} at the end, expected 0", x[0])
        });
    }
    rma.free(win).map_err(fail("freeing the window"))
}

/// The critical region of examples 11.19 and 11.20: increments core 0's
/// counter at `at` with a get and a put (not atomic: only the region
/// keeps other cores out), and returns the count it found.
fn critical_region(rma: R<'_, '_>, win: Window<i32>, at: u32) -> Result<i32, String> {
    let mut count = [0];
    rma.get(win, 0, at, &mut count).map_err(fail("get"))?;
    rma.flush(win, 0).map_err(fail("flush"))?;
    rma.put(win, 0, at, &[count[0] + 1]).map_err(fail("put"))?;
    rma.flush(win, 0).map_err(fail("flush"))?;
    Ok(count[0])
}

/// Core 0's counter at `at` of `win` after every core left the critical
/// region: it must be `want`.
fn check_counter(
    rma: R<'_, '_>,
    c: &mut Checks,
    win: Window<i32>,
    at: u32,
    want: i32,
    example: &str,
) -> Result<(), String> {
    rma.comm().barrier();
    if rma.rank() == 0 {
        let mut count = [0];
        rma.lock(win, LockType::Shared, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.local_read(win, at, &mut count)
            .map_err(fail("local read"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
        c.check(count[0] == want, || {
            format!(
                "example {example}: {} entries into the critical region counted, expected {want}",
                count[0]
            )
        });
    }
    Ok(())
}

/// A single element `get_accumulate` with `MPI_NO_OP`: the standard's
/// `z = MPI_Get_accumulate(loc, MPI_NO_OP, 0)`.
fn read(rma: R<'_, '_>, win: Window<i32>, target: u32, disp: u32) -> Result<i32, String> {
    let mut z = [0];
    rma.get_accumulate(win, target, disp, &[], &mut z, AccumulateOp::NoOp)
        .map_err(fail("get_accumulate"))?;
    Ok(z[0])
}

/// Example 11.19: Peterson's algorithm between processes A (core 0, which
/// holds X and T) and B (core 1, which holds Y), repeated [`ROUNDS`]
/// times (a barrier ends each repetition). In the critical region each
/// increments a counter on core 0 by get and put: it must find the number
/// of entries before its own, and the count must be exact at the end;
/// every flag and turn read must be 0 or 1.
fn ex11_19(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.19", 2) {
        return Ok(());
    }
    let me = rma.rank();
    // Core 0's part: X, T, the counter; core 1's: Y.
    const X: u32 = 0;
    const T: u32 = 1;
    const COUNT: u32 = 2;
    const Y: u32 = 0;
    let win = window(rma, WindowOptions::new(), &[0i32; 3])?;
    for round in 0..ROUNDS {
        let count = match me {
            0 => {
                rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
                rma.local_write(win, X, &[1]).map_err(fail("store X"))?;
                rma.sync(win).map_err(fail("sync"))?;
                rma.comm().barrier();
                rma.accumulate(win, 0, T, &[1], AccumulateOp::Replace)
                    .map_err(fail("accumulate"))?;
                let mut t = 1;
                let mut y = read(rma, win, 1, Y)?;
                let mut flags = y | t;
                let mut polls = 0;
                while y == 1 && t == 1 {
                    y = read(rma, win, 1, Y)?;
                    t = read(rma, win, 0, T)?;
                    rma.flush_all(win).map_err(fail("flush_all"))?;
                    flags |= y | t;
                    polls += 1;
                    if polls == MAX_POLLS {
                        return Err(format!("example 11.19: A waited {polls} polls"));
                    }
                }
                let count = critical_region(rma, win, COUNT)?;
                rma.accumulate(win, 0, X, &[0], AccumulateOp::Replace)
                    .map_err(fail("accumulate"))?;
                rma.unlock_all(win).map_err(fail("unlock_all"))?;
                Some((count, flags))
            }
            1 => {
                rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
                rma.local_write(win, Y, &[1]).map_err(fail("store Y"))?;
                rma.sync(win).map_err(fail("sync"))?;
                rma.comm().barrier();
                rma.accumulate(win, 0, T, &[0], AccumulateOp::Replace)
                    .map_err(fail("accumulate"))?;
                let mut t = 0;
                let mut x = read(rma, win, 0, X)?;
                let mut flags = x | t;
                let mut polls = 0;
                while x == 1 && t == 0 {
                    x = read(rma, win, 0, X)?;
                    t = read(rma, win, 0, T)?;
                    rma.flush(win, 0).map_err(fail("flush"))?;
                    flags |= x | t;
                    polls += 1;
                    if polls == MAX_POLLS {
                        return Err(format!("example 11.19: B waited {polls} polls"));
                    }
                }
                let count = critical_region(rma, win, COUNT)?;
                rma.accumulate(win, 1, Y, &[0], AccumulateOp::Replace)
                    .map_err(fail("accumulate"))?;
                rma.unlock_all(win).map_err(fail("unlock_all"))?;
                Some((count, flags))
            }
            _ => {
                rma.comm().barrier();
                None
            }
        };
        if let Some((count, flags)) = count {
            let before = 2 * round as i32;
            c.check((count == before || count == before + 1) && flags & !1 == 0, || {
                format!(
                    "example 11.19, round {round}: the critical region found {count} entries before, expected {before} or {}; flags and turn read {flags:#x} (0 or 1 each)",
                    before + 1
                )
            });
        }
        rma.comm().barrier();
    }
    check_counter(rma, c, win, COUNT, 2 * ROUNDS as i32, "11.19")?;
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.20: a critical region between all cores with compare and
/// swap on core 0's location A (set to 0 and made public with
/// `MPI_WIN_SYNC`), entered [`ROUNDS`] times by every core in one
/// `lock_all` epoch. The swaps that enter must find 0 or 1, the swap that
/// leaves 1; the counter in the region must be exact at the end.
fn ex11_20(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    // Core 0's part: A, the counter.
    const A: u32 = 0;
    const COUNT: u32 = 1;
    let win = window(rma, WindowOptions::new(), &[-1i32, 0])?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    if me == 0 {
        rma.local_write(win, A, &[0]).map_err(fail("store A"))?;
        rma.sync(win).map_err(fail("sync"))?;
    }
    rma.comm().barrier();
    for round in 0..ROUNDS {
        let mut r = 1;
        let mut seen = 0;
        let mut polls = 0;
        while r != 0 {
            r = rma
                .compare_and_swap(win, 0, A, 1, 0)
                .map_err(fail("compare_and_swap"))?;
            rma.flush(win, 0).map_err(fail("flush"))?;
            seen |= r;
            polls += 1;
            if r != 0 && polls == MAX_POLLS {
                return Err(format!(
                    "example 11.20, round {round}: A still {r} after {polls} compare and swaps"
                ));
            }
        }
        critical_region(rma, win, COUNT)?;
        let r = rma
            .compare_and_swap(win, 0, A, 0, 1)
            .map_err(fail("compare_and_swap"))?;
        c.check(r == 1 && seen & !1 == 0, || {
            format!(
                "example 11.20, round {round}: leaving, compare and swap found A = {r}, expected 1; entering it found {seen:#x} (0 or 1 each)"
            )
        });
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    check_counter(rma, c, win, COUNT, (n * ROUNDS) as i32, "11.20")?;
    rma.free(win).map_err(fail("freeing the window"))
}

/// Example 11.21 on pairs of cores: X lies in A's part of a shared window;
/// in a `lock_all(NOCHECK)` epoch A stores X, calls `MPI_WIN_SYNC` and
/// sends; B receives, calls `MPI_WIN_SYNC`, loads X (the standard prints
/// it) and sends back. On an NCM window (unified, as the standard's text
/// has it) and on an MPBT-WT one (separate: `MPI_WIN_SYNC` reconciles the
/// copies there).
fn ex11_21(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    if !runs_on(rma, "11.21", 2) {
        return Ok(());
    }
    for ty in [MemoryType::Ncm, MemoryType::MpbtWt] {
        shared_exchange(rma, c, ty)?;
    }
    Ok(())
}

/// Example 11.21 on a shared window of memory type `ty`.
fn shared_exchange(rma: R<'_, '_>, c: &mut Checks, ty: MemoryType) -> Result<(), String> {
    let name = ty.name();
    let win = rma
        .allocate_shared::<u32>(1, WindowOptions::new().memory_type(ty))
        .map_err(fail("allocating a shared window"))?;
    let model = if ty == MemoryType::Ncm {
        MemoryModel::Unified
    } else {
        MemoryModel::Separate
    };
    check_model(rma, c, win, model, "11.21")?;
    rma.lock_all(win, Assert::NOCHECK)
        .map_err(fail("lock_all"))?;
    let x_of = |a: u32, k: u32| value(21, a, a, k);
    let mut token = [0u8; 4];
    match role(rma) {
        Role::A(b) => {
            let me = rma.rank();
            let x = rma.shared_query(win, me).map_err(fail("shared_query"))?;
            for k in 0..EXCHANGES {
                rma.shared_store(win, x, 0, &[x_of(me, k)])
                    .map_err(fail("store X"))?;
                rma.sync(win).map_err(fail("sync"))?;
                rma.comm().send(b, &k.to_le_bytes()).map_err(fail("send"))?;
                rma.comm().recv(b, &mut token).map_err(fail("recv"))?;
            }
        }
        Role::B(a) => {
            let x = rma.shared_query(win, a).map_err(fail("shared_query"))?;
            for k in 0..EXCHANGES {
                rma.comm().recv(a, &mut token).map_err(fail("recv"))?;
                rma.sync(win).map_err(fail("sync"))?;
                let mut got = [0];
                rma.shared_load(win, x, 0, &mut got)
                    .map_err(fail("load X"))?;
                c.check(got[0] == x_of(a, k), || {
                    format!(
                        "example 11.21 ({name}), exchange {k}: X in core {a}'s part is {:#x}, expected {:#x}",
                        got[0],
                        x_of(a, k)
                    )
                });
                rma.comm().send(a, &k.to_le_bytes()).map_err(fail("send"))?;
            }
        }
        Role::Idle => {}
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.free(win).map_err(fail("freeing the window"))
}

/// Element `at` of core `r`'s window in example 11.22 at the start.
fn chunk_init(r: u32, at: u32) -> f64 {
    f64::from(r * 1000 + at)
}

/// Example 11.22's `compute(i, data[j])`.
fn compute(i: u32, data: &mut [f64]) {
    data.iter_mut().for_each(|d| *d = *d * 2.0 + f64::from(i));
}

/// `MPI_Waitany` over `requests` (inactive entries `None`): rma completes
/// every request when its call returns, so the first active one tests
/// complete; it is retired and its entry made inactive.
fn wait_any(
    rma: R<'_, '_>,
    win: Window<f64>,
    requests: &mut [Option<Request>],
) -> Result<usize, String> {
    loop {
        for (j, slot) in requests.iter_mut().enumerate() {
            if let Some(request) = *slot
                && rma
                    .test_request(win, request)
                    .map_err(fail("test_request"))?
            {
                *slot = None;
                return Ok(j);
            }
        }
    }
}

/// Example 11.22: in a `lock_all` epoch each core fetches [`NSTEPS`]
/// chunks of its right neighbour's window with `MPI_Rget`, computes on
/// them and writes them back with `MPI_Rput`, through [`BUFFERS`] buffers
/// (a buffer is reused once `MPI_Waitany` returned its put). Every chunk
/// fetched must hold the target's initial data, and every core's window
/// the computed chunks at the end.
fn ex11_22(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let me = rma.rank();
    let (left, target) = neighbours(rma);
    let len = NSTEPS * CHUNK;
    let init: Vec<f64> = (0..len).map(|at| chunk_init(me, at)).collect();
    let win = window(rma, WindowOptions::new(), &init)?;
    let mut put_req: [Option<Request>; BUFFERS] = [None; BUFFERS];
    let mut data = vec![zeros::<f64>(CHUNK); BUFFERS];
    let mut fetched = true;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    for i in 0..NSTEPS {
        let j = if (i as usize) < BUFFERS {
            i as usize
        } else {
            wait_any(rma, win, &mut put_req)?
        };
        let get_req = rma
            .rget(win, target, i * CHUNK, &mut data[j])
            .map_err(fail("rget"))?;
        rma.wait_request(win, get_req)
            .map_err(fail("wait_request"))?;
        fetched &= data[j]
            .iter()
            .zip(i * CHUNK..)
            .all(|(&d, at)| d == chunk_init(target, at));
        compute(i, &mut data[j]);
        put_req[j] = Some(
            rma.rput(win, target, i * CHUNK, &data[j])
                .map_err(fail("rput"))?,
        );
    }
    let pending: Vec<Request> = put_req.iter().flatten().copied().collect();
    rma.wait_all(&pending).map_err(fail("wait_all"))?;
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    c.check(fetched, || {
        format!("example 11.22: a chunk fetched from core {target} did not hold its initial data")
    });
    rma.comm().barrier();
    let mut got = zeros::<f64>(len);
    rma.lock(win, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    rma.unlock(win, me).map_err(fail("unlock"))?;
    let mut want = init;
    for i in 0..NSTEPS {
        compute(i, &mut want[(i * CHUNK) as usize..][..CHUNK as usize]);
    }
    c.same(&got, &want, || {
        format!("example 11.22: chunks core {left} computed and put back")
    });
    rma.free(win).map_err(fail("freeing the window"))
}

// ---------------------------------------------------------------------
// 11.23: dynamic windows
// ---------------------------------------------------------------------

/// Example 11.23's `llist_ptr_t`: where a list element lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ListPtr {
    /// Its address in its owner's POPSHM (`MPI_Aint disp`).
    disp: u32,
    /// Its owner.
    rank: u32,
}

/// Example 11.23's `llist_elem_t` as `i32` words of a dynamic window of
/// `i32`, by byte offset: `value`, then `next` (its `disp`, as the bits of
/// a `u32` address, and its `rank`).
const VALUE: u32 = 0;
const NEXT_DISP: u32 = 4;
const NEXT_RANK: u32 = 8;
const ELEM_BYTES: u32 = 12;

/// `nil`'s rank, as the standard's.
const NIL_RANK: i32 = -1;
/// `nil`'s address. The standard's is `MPI_BOTTOM`, which no allocated
/// memory has; rma's addresses count from the POPSHM's first byte, so 0
/// may be an element's, and `nil` takes one no memory can have instead.
const NIL_DISP: i32 = -1;

/// Elements each core appends in example 11.23 (the standard's loop runs
/// `while (!stop_condition)`).
const LIST_ELEMS: u32 = 4;

/// Example 11.23's `alloc_elem`: memory from `alloc_mem` holding an
/// element of `value` whose `next` is `nil` (stored before anyone can
/// reach it), attached to `win`, remembered in `elems` to be freed later;
/// returns its address (`MPI_Get_address`).
fn alloc_elem(
    rma: R<'_, '_>,
    win: Window<i32>,
    value: i32,
    elems: &mut Vec<rma::Memory>,
) -> Result<u32, String> {
    let elem = rma.alloc_mem(ELEM_BYTES).map_err(fail("alloc_mem"))?;
    let words: Vec<u8> = [value, NIL_DISP, NIL_RANK]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    rma.memory_write(elem, VALUE, &words)
        .map_err(fail("storing an element"))?;
    rma.attach(win, elem).map_err(fail("attach"))?;
    elems.push(elem);
    rma.address(elem).map_err(fail("address"))
}

/// Example 11.23: a distributed linked list on a dynamic window. Core 0
/// makes the head (value -1) and broadcasts its address; in one
/// `lock_all` epoch every core appends [`LIST_ELEMS`] elements of its own
/// (value: its rank), each attached when it is made, by compare and swap
/// of the tail's `next.rank` from `nil`, then `MPI_REPLACE` of its
/// `next.disp`; a core whose tail is stale follows `next` with
/// `get_accumulate` (`MPI_NO_OP`) until the address arrives. Then, after
/// a barrier, every core walks the list with gets and checks it: the head
/// and `nil` at the end of `n * LIST_ELEMS + 1` elements, each element's
/// value its owner, [`LIST_ELEMS`] of each core, and its own elements in
/// the order it appended them; then detaches and frees its elements and
/// the window, as the standard's end does.
fn ex11_23(rma: R<'_, '_>, c: &mut Checks) -> Result<(), String> {
    let me = rma.rank();
    let win = rma
        .create_dynamic::<i32>(WindowOptions::new())
        .map_err(fail("create_dynamic"))?;
    let a = rma.attributes(win).map_err(fail("attributes"))?;
    c.check(
        a.flavor == rma::Flavor::Dynamic && a.size == 0 && a.disp_unit == 1,
        || format!("example 11.23: the dynamic window's attributes are {a:?}"),
    );
    let mut elems = Vec::new();
    // Process 0 creates the head node.
    let mut head_disp = [0u8; 4];
    if me == 0 {
        head_disp = alloc_elem(rma, win, -1, &mut elems)?.to_le_bytes();
    }
    // Broadcast the head pointer to everyone.
    rma.comm().bcast(0, &mut head_disp).map_err(fail("bcast"))?;
    let head = ListPtr {
        disp: u32::from_le_bytes(head_disp),
        rank: 0,
    };
    let mut tail = head;
    let mut appended = Vec::new();
    // All processes append LIST_ELEMS elements to the list.
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    for _ in 0..LIST_ELEMS {
        // Create a new list element and register it with the window.
        let new_elem = ListPtr {
            disp: alloc_elem(rma, win, me as i32, &mut elems)?,
            rank: me,
        };
        appended.push(new_elem);
        // Append the new node to the list. This might take multiple
        // attempts if others have already appended and our tail pointer
        // is stale.
        loop {
            let next_tail_rank = rma
                .compare_and_swap(
                    win,
                    tail.rank,
                    tail.disp + NEXT_RANK,
                    new_elem.rank as i32,
                    NIL_RANK,
                )
                .map_err(fail("compare_and_swap"))?;
            rma.flush(win, tail.rank).map_err(fail("flush"))?;
            if next_tail_rank == NIL_RANK {
                rma.accumulate(
                    win,
                    tail.rank,
                    tail.disp + NEXT_DISP,
                    &[new_elem.disp as i32],
                    AccumulateOp::Replace,
                )
                .map_err(fail("accumulate"))?;
                rma.flush(win, tail.rank).map_err(fail("flush"))?;
                tail = new_elem;
                break;
            }
            // Tail pointer is stale, fetch the displacement. May take
            // multiple tries if it is being updated.
            let mut polls = 0;
            let disp = loop {
                let disp = read(rma, win, tail.rank, tail.disp + NEXT_DISP)?;
                rma.flush(win, tail.rank).map_err(fail("flush"))?;
                if disp != NIL_DISP {
                    break disp;
                }
                polls += 1;
                if polls == MAX_POLLS {
                    return Err(format!(
                        "example 11.23: core {}'s element at {:#x} has next.rank {next_tail_rank} but no next.disp after {polls} polls",
                        tail.rank, tail.disp
                    ));
                }
            };
            tail = ListPtr {
                disp: disp as u32,
                rank: next_tail_rank as u32,
            };
        }
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    check_list(rma, c, win, head, &appended)?;
    rma.comm().barrier();
    // Free all the elements in the list.
    while let Some(elem) = elems.pop() {
        rma.detach(win, elem).map_err(fail("detach"))?;
        rma.free_mem(elem).map_err(fail("free_mem"))?;
    }
    rma.free(win).map_err(fail("freeing the window"))
}

/// Walks example 11.23's list from `head` with gets in a `lock_all`
/// epoch and checks it (see [`ex11_23`]); `appended` are this core's
/// elements in the order it appended them.
fn check_list(
    rma: R<'_, '_>,
    c: &mut Checks,
    win: Window<i32>,
    head: ListPtr,
    appended: &[ListPtr],
) -> Result<(), String> {
    let (me, n) = (rma.rank(), rma.size());
    let want = (n * LIST_ELEMS + 1) as usize;
    let mut list: Vec<(ListPtr, i32)> = Vec::new();
    let mut at = Some(head);
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    // At most one element more than it should have: a cycle or a lost
    // nil shows as a list too long.
    while let Some(ptr) = at.filter(|_| list.len() <= want) {
        let mut elem = [0i32; 3];
        rma.get(win, ptr.rank, ptr.disp + VALUE, &mut elem)
            .map_err(fail("get"))?;
        rma.flush(win, ptr.rank).map_err(fail("flush"))?;
        list.push((ptr, elem[0]));
        let [_, disp, rank] = elem;
        at = (rank != NIL_RANK).then_some(ListPtr {
            disp: disp as u32,
            rank: rank as u32,
        });
        if at.is_none() && disp != NIL_DISP {
            return Err(format!(
                "example 11.23: the last element has next.rank nil but next.disp {disp:#x}"
            ));
        }
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    c.check(list.len() == want && list[0].1 == -1 && at.is_none(), || {
        format!(
            "example 11.23: the list from the head (value {}) has {} elements{}, expected {want} ending in nil",
            list.first().map_or(0, |e| e.1),
            list.len(),
            if at.is_some() { " and goes on" } else { "" }
        )
    });
    let mut per_rank = vec![0u32; n as usize];
    let mut values_ok = true;
    for (ptr, value) in &list[1..] {
        values_ok &= *value == ptr.rank as i32 && ptr.rank < n;
        if let Some(count) = per_rank.get_mut(ptr.rank as usize) {
            *count += 1;
        }
    }
    c.check(
        values_ok && per_rank.iter().all(|&k| k == LIST_ELEMS),
        || {
            format!(
                "example 11.23: elements per core {per_rank:?}, expected {LIST_ELEMS} each, every value its owner's rank: {}",
                if values_ok { "yes" } else { "no" }
            )
        },
    );
    let mine: Vec<ListPtr> = list
        .iter()
        .map(|(ptr, _)| *ptr)
        .filter(|ptr| ptr.rank == me && *ptr != head)
        .collect();
    c.same(&mine, appended, || {
        "example 11.23: this core's elements in the list, in the order it appended them".into()
    });
    Ok(())
}
