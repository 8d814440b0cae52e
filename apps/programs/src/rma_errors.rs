// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every misuse of windows and epochs rma can detect, each checked for its
//! MPI error class and exact message, in the style of MPICH's `win_*`
//! error tests; then a put epoch on a fresh window, to show that nothing
//! the refused calls touched was left broken.
//!
//! The calls run on every core in the same order: synchronisation calls
//! that succeed between the refused ones (post to the left neighbour,
//! start to the right one, fences, window creation and freeing) match up
//! across cores.

use alloc::format;
use alloc::string::String;

use chip::EntryRange;
use rma::comm::Group;
use rma::{Assert, ErrorClass, Rma, Vector, Window, WindowOptions};

use crate::support::osc::{Checks, conclude, fail, open, value};
use kernel::Platform;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut rma = open(platform)?;
    let mut checks = Checks::default();
    let win = rma
        .allocate::<u32>(64, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    outside_epochs(&mut rma, &mut checks, win)?;
    in_pscw(&mut rma, &mut checks, win)?;
    in_fence(&mut rma, &mut checks, win)?;
    memory(&mut rma, &mut checks, win)?;
    after_misuse(&mut rma, &mut checks)?;
    conclude(
        &mut rma,
        &checks,
        "rma-errors",
        "every misuse refused with its class and message, then a working epoch",
    )
}

/// Calls without an epoch, assertions a call does not accept, ranks and
/// groups from elsewhere.
fn outside_epochs(rma: &mut Rma<'_, Platform>, c: &mut Checks, win: Window<u32>) -> Result<(), String> {
    use ErrorClass::{Assert as A, Group as G, Rank as R, RmaSync as S};
    let (n, me) = (rma.size(), rma.rank());
    let w = win.id();
    let world = Group::world(n, me).map_err(fail("group"))?;
    let right = (me + 1) % n;
    let no_epoch = |call: &str| {
        format!(
            "MPI_ERR_RMA_SYNC: {call} on window {w}: no access epoch is open (call fence or start)"
        )
    };
    c.error("put", rma.put(win, right, 0, &[1]), S, &no_epoch("put"));
    let mut buf = [0u32; 1];
    c.error("get", rma.get(win, right, 0, &mut buf), S, &no_epoch("get"));
    c.error(
        "complete",
        rma.complete(win),
        S,
        &format!(
            "MPI_ERR_RMA_SYNC: complete on window {w}: no access epoch is open (call start first)"
        ),
    );
    for (call, result) in [("wait", rma.wait(win)), ("test", rma.test(win).map(|_| ()))] {
        c.error(
            call,
            result,
            S,
            &format!("MPI_ERR_RMA_SYNC: {call} on window {w}: no exposure epoch is open (call post first)"),
        );
    }
    c.error(
        "fence(NOCHECK)",
        rma.fence(win, Assert::NOCHECK),
        A,
        "MPI_ERR_ASSERT: fence does not accept MPI_MODE_NOCHECK",
    );
    c.error(
        "post(NOPRECEDE)",
        rma.post(win, &world, Assert::NOPRECEDE),
        A,
        "MPI_ERR_ASSERT: post does not accept MPI_MODE_NOPRECEDE",
    );
    c.error(
        "start(NOPUT)",
        rma.start(win, &world, Assert::NOPUT),
        A,
        "MPI_ERR_ASSERT: start does not accept MPI_MODE_NOPUT",
    );
    c.error(
        "put to rank n",
        rma.put(win, n, 0, &[1]),
        R,
        &format!("MPI_ERR_RANK: put target {n} is not a rank of a group of {n}"),
    );
    c.error(
        "get from rank n",
        rma.get(win, n, 0, &mut buf),
        R,
        &format!("MPI_ERR_RANK: get target {n} is not a rank of a group of {n}"),
    );
    let elsewhere = Group::world(n + 1, me).map_err(fail("group"))?;
    let mismatch = format!(
        "MPI_ERR_GROUP: groups drawn from {} and from {n} processes cannot be compared",
        n + 1
    );
    c.error(
        "post",
        rma.post(win, &elsewhere, Assert::NONE),
        G,
        &mismatch,
    );
    c.error(
        "start",
        rma.start(win, &elsewhere, Assert::NONE),
        G,
        &mismatch,
    );
    // None of that opened an epoch.
    c.error("put", rma.put(win, right, 0, &[1]), S, &no_epoch("put"));
    Ok(())
}

/// Misuse inside post and start epochs: post to the left neighbour, start
/// to the right one.
fn in_pscw(rma: &mut Rma<'_, Platform>, c: &mut Checks, win: Window<u32>) -> Result<(), String> {
    use ErrorClass::{Arg, RmaRange, RmaSync as S};
    let (n, me) = (rma.size(), rma.rank());
    let w = win.id();
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);
    let world = Group::world(n, me).map_err(fail("group"))?;
    let origins = world.incl(&[left]).map_err(fail("group"))?;
    let targets = world.incl(&[right]).map_err(fail("group"))?;
    let sync =
        |call: &str, problem: &str| format!("MPI_ERR_RMA_SYNC: {call} on window {w}: {problem}");
    let post_open = "a post exposure epoch is open (call wait first)";
    let start_open = "a start access epoch is open (call complete first)";

    rma.post(win, &origins, Assert::NONE)
        .map_err(fail("post"))?;
    c.error(
        "post twice",
        rma.post(win, &origins, Assert::NONE),
        S,
        &sync(
            "post",
            "a post exposure epoch is already open (call wait first)",
        ),
    );
    c.error(
        "fence",
        rma.fence(win, Assert::NONE),
        S,
        &sync("fence", post_open),
    );
    c.error("free", rma.free(win), S, &sync("free", post_open));

    rma.start(win, &targets, Assert::NONE)
        .map_err(fail("start"))?;
    c.error(
        "start twice",
        rma.start(win, &targets, Assert::NONE),
        S,
        &sync(
            "start",
            "a start access epoch is already open (call complete first)",
        ),
    );
    c.error(
        "fence",
        rma.fence(win, Assert::NONE),
        S,
        &sync("fence", start_open),
    );
    c.error("free", rma.free(win), S, &sync("free", start_open));
    c.error(
        "put outside the start group",
        rma.put(win, me, 0, &[1]),
        S,
        &format!("MPI_ERR_RMA_SYNC: put on window {w}: rank {me} is not in the start group"),
    );
    c.error(
        "put past the window",
        rma.put(win, right, 60, &[1; 5]),
        RmaRange,
        &format!(
            "MPI_ERR_RMA_RANGE: put on window {w}: bytes 240..260 of rank {right}'s window of 256 bytes"
        ),
    );
    c.error(
        "get past the window",
        rma.get(win, right, 64, &mut [0u32; 1]),
        RmaRange,
        &format!(
            "MPI_ERR_RMA_RANGE: get on window {w}: bytes 256..260 of rank {right}'s window of 256 bytes"
        ),
    );
    c.error(
        "put with overlapping blocks",
        rma.put_vector(
            win,
            right,
            0,
            &[1; 6],
            Vector::contiguous(6),
            Vector::new(2, 3, 2),
        ),
        Arg,
        "MPI_ERR_ARG: put target layout: blocks overlap (stride below blocklen)",
    );
    c.error(
        "put with layouts of different sizes",
        rma.put_vector(
            win,
            right,
            0,
            &[1; 4],
            Vector::contiguous(3),
            Vector::contiguous(4),
        ),
        Arg,
        "MPI_ERR_ARG: target layout elements (as the origin layout picks) has length 4, expected 3",
    );
    c.error(
        "get into a buffer the layout overruns",
        rma.get_vector(
            win,
            right,
            0,
            &mut [0; 2],
            Vector::new(2, 1, 5),
            Vector::contiguous(2),
        ),
        Arg,
        "MPI_ERR_ARG: origin buffer elements (as the origin layout spans) has length 2, expected 6",
    );
    // The refused operations moved nothing: one put that is allowed.
    rma.put(win, right, 1, &[value(1, me, right, 1)])
        .map_err(fail("put"))?;
    rma.complete(win).map_err(fail("complete"))?;
    rma.wait(win).map_err(fail("wait"))?;
    c.error(
        "complete twice",
        rma.complete(win),
        S,
        &sync("complete", "no access epoch is open (call start first)"),
    );
    let mut got = [0u32; 3];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let want = [0, value(1, left, me, 1), 0];
    c.same(&got, &want, || {
        format!("window after refused PSCW calls, put by core {left}")
    });
    Ok(())
}

/// Misuse inside a fence epoch.
fn in_fence(rma: &mut Rma<'_, Platform>, c: &mut Checks, win: Window<u32>) -> Result<(), String> {
    use ErrorClass::RmaSync as S;
    let (n, me) = (rma.size(), rma.rank());
    let w = win.id();
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);
    let world = Group::world(n, me).map_err(fail("group"))?;
    let sync =
        |call: &str, problem: &str| format!("MPI_ERR_RMA_SYNC: {call} on window {w}: {problem}");
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    c.error(
        "complete in a fence epoch",
        rma.complete(win),
        S,
        &sync(
            "complete",
            "the access epoch was opened by a fence, not by start",
        ),
    );
    c.error(
        "wait in a fence epoch",
        rma.wait(win),
        S,
        &sync(
            "wait",
            "the exposure epoch was opened by a fence, not by post",
        ),
    );
    rma.put(win, right, 2, &[value(2, me, right, 2)])
        .map_err(fail("put"))?;
    c.error(
        "start after a put in a fence epoch",
        rma.start(win, &world, Assert::NONE),
        S,
        &sync(
            "start",
            "a fence access epoch with operations is open (close it with a fence first)",
        ),
    );
    c.error(
        "free after a put in a fence epoch",
        rma.free(win),
        S,
        &sync(
            "free",
            "a fence access epoch with operations is open (fence first)",
        ),
    );
    c.error(
        "fence(NOPRECEDE) after a put",
        rma.fence(win, Assert::NOPRECEDE),
        S,
        &format!(
            "MPI_ERR_RMA_SYNC: fence on window {w} asserts MPI_MODE_NOPRECEDE, but 1 operations precede it"
        ),
    );
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut got = [0u32; 3];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let want = [0, value(1, left, me, 1), value(2, left, me, 2)];
    c.same(&got, &want, || {
        format!("window after refused fence-epoch calls, put by core {left}")
    });
    Ok(())
}

/// Freed windows, memory handles, sizes, displacement units, LUT entries.
fn memory(rma: &mut Rma<'_, Platform>, c: &mut Checks, win: Window<u32>) -> Result<(), String> {
    use ErrorClass::{Arg, Base, Disp, NoMem, Win};
    let me = rma.rank();
    let w = win.id();
    rma.free(win).map_err(fail("freeing the window"))?;
    let gone = format!("MPI_ERR_WIN: window {w} does not exist (freed or never created)");
    c.error(
        "put to a freed window",
        rma.put(win, 0, 0, &[1]),
        Win,
        &gone,
    );
    c.error(
        "fence on a freed window",
        rma.fence(win, Assert::NONE),
        Win,
        &gone,
    );
    c.error("free a freed window", rma.free(win), Win, &gone);

    let mem = rma.alloc_mem(4096).map_err(fail("alloc_mem"))?;
    let made = rma
        .create::<u32>(mem, WindowOptions::new())
        .map_err(fail("create"))?;
    let in_use = format!(
        "MPI_ERR_ARG: memory {} is in use by window {}",
        mem.id(),
        made.id()
    );
    c.error(
        "free_mem of a window's memory",
        rma.free_mem(mem),
        Arg,
        &in_use,
    );
    // Windows may overlap: a second window over the same memory is
    // another view of the same bytes, and the memory stays in use until
    // both are freed.
    let overlap = rma
        .create::<u32>(mem, WindowOptions::new())
        .map_err(fail("create over a window's memory"))?;
    let (a, b) = (
        rma.attributes(made).map_err(fail("attributes"))?,
        rma.attributes(overlap).map_err(fail("attributes"))?,
    );
    rma.free(overlap).map_err(fail("free"))?;
    c.check(a.offset == b.offset && rma.free_mem(mem).is_err(), || {
        format!("overlapping windows: {a:?} and {b:?}, or the memory freed under one")
    });
    rma.free(made).map_err(fail("free"))?;
    rma.free_mem(mem).map_err(fail("free_mem"))?;
    c.error(
        "free_mem twice",
        rma.free_mem(mem),
        Base,
        &format!(
            "MPI_ERR_BASE: memory {} does not exist (freed or never allocated)",
            mem.id()
        ),
    );
    let left = rma.popshm_left();
    let too_much = u32::try_from(left + 1).unwrap_or(u32::MAX);
    c.error(
        "alloc_mem beyond the POPSHM",
        rma.alloc_mem(too_much),
        NoMem,
        &format!("MPI_ERR_NO_MEM: POPSHM bytes: {too_much} asked for, {left} left"),
    );
    c.error(
        "allocate with displacement unit 0",
        rma.allocate::<u32>(16, WindowOptions::new().disp_unit(0)),
        Disp,
        "MPI_ERR_DISP: displacement unit 0 (it must be at least 1)",
    );
    // Only rank 0 gives 0: the others learn that it failed there.
    let unit = if me == 0 { 0 } else { 4 };
    let result = rma.allocate::<u32>(16, WindowOptions::new().disp_unit(unit));
    if me == 0 {
        c.error(
            "allocate with displacement unit 0 on rank 0",
            result,
            Disp,
            "MPI_ERR_DISP: displacement unit 0 (it must be at least 1)",
        );
    } else {
        c.error(
            "allocate while rank 0 fails",
            result,
            Win,
            "MPI_ERR_WIN: allocate failed on rank 0",
        );
    }
    c.check(rma.popshm_left() == left, || {
        format!(
            "refused allocations kept POPSHM: {} bytes left, {left} before",
            rma.popshm_left()
        )
    });
    c.error(
        "LUT entries outside the free ones",
        rma.set_lut_entries(EntryRange::new(120, 140)),
        Arg,
        "MPI_ERR_ARG: LUT entries for windows: not inside the chip's free entries",
    );
    Ok(())
}

/// A fresh window works after all that: a neighbour put under fence.
fn after_misuse(rma: &mut Rma<'_, Platform>, c: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);
    let win = rma
        .allocate::<u32>(8, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    let data: alloc::vec::Vec<u32> = (0..8).map(|i| value(9, me, right, i)).collect();
    rma.put(win, right, 0, &data).map_err(fail("put"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut got = [0u32; 8];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let want: alloc::vec::Vec<u32> = (0..8).map(|i| value(9, left, me, i)).collect();
    c.same(&got, &want, || {
        format!("a put from core {left} after the misuse")
    });
    rma.free(win).map_err(fail("freeing the window"))?;
    Ok(())
}
