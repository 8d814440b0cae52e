// SPDX-License-Identifier: MIT OR Apache-2.0
//! Fence epochs, in the style of MPICH's `putfence1`, `getfence1` and
//! `epochtest`, every value checked on every core.
//!
//! For each memory type a window can be mapped with (MPBT-WT, MPBT-WB,
//! NCM, NCM+WCB), one window lives through consecutive epochs: in each of
//! [`SIZES`] put epochs every core puts to both neighbours (the right one
//! gets it in the window's first half, the left one in its second) and
//! reads what its neighbours put after the closing fence; then in as many
//! get epochs every core stores new values into its own window, and after
//! the fence gets both neighbours' from them. Then [`SMALL_PUTS`] puts of
//! one element each, in a scrambled order, into the right neighbour in one
//! epoch, and as many single bytes at odd places of a byte window. Then
//! [`EMPTY_EPOCHS`] fences without operations, with every assertion mix a
//! fence accepts, after which a put epoch must still work, and the
//! statistics must count exactly what happened.

use alloc::format;
use alloc::string::String;
use alloc::vec;

use chip::{EntryRange, MemoryType};
use rma::{AccumulateOp, Assert, Flavor, MemoryModel, PROC_NULL, Rma, WindowOptions};

use crate::support::osc::{Checks, conclude, fail, open, value, values};
use kernel::Platform;

/// Elements per put or get in consecutive epochs: one, a line's worth and
/// one more, and many lines crossing a 4 KiB page. Together they fit in
/// half a window.
const SIZES: [u32; 3] = [1, 9, 1500];
const _: () = assert!(1 + 9 + 1500 <= HALF);
/// Elements in each half of a window.
const HALF: u32 = 2048;
/// Single-element puts into the right neighbour in one epoch.
const SMALL_PUTS: u32 = 1000;
/// Fences without operations.
const EMPTY_EPOCHS: u32 = 40;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut rma = open(platform)?;
    let mut checks = Checks::default();
    for ty in [
        MemoryType::MpbtWt,
        MemoryType::MpbtWb,
        MemoryType::Ncm,
        MemoryType::NcmWcb,
    ] {
        neighbours(&mut rma, &mut checks, ty)?;
    }
    small_puts(&mut rma, &mut checks)?;
    empty_epochs(&mut rma, &mut checks)?;
    one_lut_entry(&mut rma, &mut checks)?;
    proc_null(&mut rma, &mut checks)?;
    conclude(
        &mut rma,
        &checks,
        "rma-fence",
        "neighbour puts and gets in consecutive epochs (MPBT-WT, MPBT-WB, NCM, NCM+WCB), many small puts, empty epochs, one LUT entry for all mappings, operations on PROC_NULL, no_locks",
    )
}

/// Puts, gets and accumulates to `PROC_NULL` in a fence epoch: they return
/// at once and touch no window or buffer; the window is made with
/// `no_locks`, which refuses lock_all.
fn proc_null(rma: &mut Rma<'_, Platform>, checks: &mut Checks) -> Result<(), String> {
    // A window that is never locked (MPI's no_locks): fence epochs only.
    let win = rma
        .allocate::<u32>(4, WindowOptions::new().no_locks(true))
        .map_err(fail("allocating a window"))?;
    let refused = rma.lock_all(win, Assert::NONE);
    checks.check(refused.is_err(), || {
        format!("lock_all on a no_locks window: {refused:?}")
    });
    rma.local_write(win, 0, &[7; 4])
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    rma.put(win, PROC_NULL, 0, &[1; 4]).map_err(fail("put"))?;
    let mut got = [9; 4];
    rma.get(win, PROC_NULL, 0, &mut got).map_err(fail("get"))?;
    rma.accumulate(win, PROC_NULL, 0, &[1; 4], AccumulateOp::Sum)
        .map_err(fail("accumulate"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut mine = [0; 4];
    rma.local_read(win, 0, &mut mine)
        .map_err(fail("local read"))?;
    checks.check(got == [9; 4] && mine == [7; 4], || {
        format!("operations on PROC_NULL changed something: got {got:?}, window {mine:?}")
    });
    rma.free(win).map_err(fail("freeing a window"))
}

/// Puts, then gets, to and from both neighbours, one epoch per size.
fn neighbours(rma: &mut Rma<'_, Platform>, checks: &mut Checks, ty: MemoryType) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);
    let name = ty.name();
    let win = rma
        .allocate::<u32>(2 * HALF, WindowOptions::new().memory_type(ty))
        .map_err(fail("allocating a window"))?;
    // The window's attributes and group, as MPI_Win_get_attr and
    // MPI_Win_get_group give them.
    let attributes = rma.attributes(win).map_err(fail("attributes"))?;
    let model = if ty == MemoryType::Ncm {
        MemoryModel::Unified
    } else {
        MemoryModel::Separate
    };
    checks.check(
        (attributes.size, attributes.disp_unit) == (2 * HALF * 4, 4)
            && attributes.flavor == Flavor::Allocate
            && attributes.model == model,
        || format!("{name} window attributes: {attributes:?}"),
    );
    let group = rma.group(win).map_err(fail("group"))?;
    checks.check(group.size() == n && group.rank() == Some(me), || {
        format!("{name} window group: {group:?}")
    });
    rma.fence(win, Assert::NOPRECEDE)
        .map_err(fail("first fence"))?;
    let mut epoch = 0;
    // A fence ends one epoch and opens the next at once: a neighbour's
    // puts of the next epoch may land while this core still reads, so
    // each epoch puts into a region of its own.
    let mut at = 0;
    for len in SIZES {
        epoch += 1;
        rma.put(win, right, at, &values(epoch, me, right, at, len))
            .map_err(fail("put to the right"))?;
        rma.put(
            win,
            left,
            HALF + at,
            &values(epoch, me, left, HALF + at, len),
        )
        .map_err(fail("put to the left"))?;
        rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
        let mut got = vec![0; len as usize];
        rma.local_read(win, at, &mut got)
            .map_err(fail("local read"))?;
        checks.same(&got, &values(epoch, left, me, at, len), || {
            format!("{name} put epoch {epoch}: {len} elements from the left, core {left}")
        });
        rma.local_read(win, HALF + at, &mut got)
            .map_err(fail("local read"))?;
        checks.same(&got, &values(epoch, right, me, HALF + at, len), || {
            format!("{name} put epoch {epoch}: {len} elements from the right, core {right}")
        });
        at += len;
    }
    for len in SIZES {
        epoch += 1;
        // Local stores, published by the fence, then read by the neighbours.
        rma.local_write(win, 0, &values(epoch, me, me, 0, 2 * HALF))
            .map_err(fail("local write"))?;
        rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
        let (mut from_left, mut from_right) = (vec![0; len as usize], vec![0; len as usize]);
        rma.get(win, left, HALF - len, &mut from_left)
            .map_err(fail("get from the left"))?;
        rma.get(win, right, 2 * HALF - len, &mut from_right)
            .map_err(fail("get from the right"))?;
        rma.fence(win, Assert::NOSTORE).map_err(fail("fence"))?;
        checks.same(
            &from_left,
            &values(epoch, left, left, HALF - len, len),
            || format!("{name} get epoch {epoch}: {len} elements of core {left}"),
        );
        checks.same(
            &from_right,
            &values(epoch, right, right, 2 * HALF - len, len),
            || format!("{name} get epoch {epoch}: {len} elements of core {right}"),
        );
    }
    rma.fence(win, Assert::NOSUCCEED)
        .map_err(fail("last fence"))?;
    let stats = rma.stats(win).map_err(fail("statistics"))?;
    // Two operations per epoch; one fence per put epoch, two per get
    // epoch, the first and the last.
    let ops = 2 * SIZES.len() as u64;
    let bytes = 2 * 4 * SIZES.iter().map(|&s| u64::from(s)).sum::<u64>();
    let fences = 3 * SIZES.len() as u64 + 2;
    checks.check(
        (
            stats.puts,
            stats.gets,
            stats.bytes_put,
            stats.bytes_got,
            stats.fences,
        ) == (ops, ops, bytes, bytes, fences),
        || format!("{name} window statistics: {stats:?}"),
    );
    rma.free(win).map_err(fail("freeing the window"))?;
    Ok(())
}

/// Many one-element puts in one epoch, in a scrambled order; then single
/// bytes at odd places of a byte window.
fn small_puts(rma: &mut Rma<'_, Platform>, checks: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);
    let win = rma
        .allocate::<u32>(SMALL_PUTS, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    for k in 0..SMALL_PUTS {
        // 997 is prime, so this visits every element once.
        let at = (k * 997) % SMALL_PUTS;
        rma.put(win, right, at, &[value(k, me, right, at)])
            .map_err(fail("small put"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    let mut got = vec![0; SMALL_PUTS as usize];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let mut want = vec![0; SMALL_PUTS as usize];
    for k in 0..SMALL_PUTS {
        let at = (k * 997) % SMALL_PUTS;
        want[at as usize] = value(k, left, me, at);
    }
    checks.same(&got, &want, || {
        format!("{SMALL_PUTS} single-element puts from core {left}")
    });
    let stats = rma.stats(win).map_err(fail("statistics"))?;
    checks.check(stats.puts == u64::from(SMALL_PUTS), || {
        format!("{} puts counted, {SMALL_PUTS} made", stats.puts)
    });
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.free(win).map_err(fail("freeing the window"))?;

    // Bytes: every odd byte from the right neighbour, every even one stays 0.
    let bytes = 4 * 64 + 3;
    let win = rma
        .allocate::<u8>(bytes, WindowOptions::new())
        .map_err(fail("allocating a byte window"))?;
    // Window memory comes as the last window left it: clear it first.
    rma.local_write(win, 0, &vec![0; bytes as usize])
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    for at in (1..bytes).step_by(2) {
        rma.put(win, left, at, &[value(0, me, left, at) as u8 | 1])
            .map_err(fail("byte put"))?;
    }
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut got = vec![0u8; bytes as usize];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let want: alloc::vec::Vec<u8> = (0..bytes)
        .map(|at| {
            if at % 2 == 1 {
                value(0, right, me, at) as u8 | 1
            } else {
                0
            }
        })
        .collect();
    checks.same(&got, &want, || {
        format!("single bytes at odd places from core {right}")
    });
    rma.free(win).map_err(fail("freeing the byte window"))?;
    Ok(())
}

/// Fences that neither complete nor start operations, then one that does.
fn empty_epochs(rma: &mut Rma<'_, Platform>, checks: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let right = (me + 1) % n;
    let left = (me + n - 1) % n;
    let win = rma
        .allocate::<u32>(16, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    rma.local_write(win, 0, &[0; 16])
        .map_err(fail("local write"))?;
    let asserts = [
        Assert::NONE,
        Assert::NOPRECEDE,
        Assert::NOSTORE,
        Assert::NOPUT,
        Assert::NOSTORE | Assert::NOPUT,
        Assert::NOPRECEDE | Assert::NOSTORE | Assert::NOPUT,
    ];
    for k in 0..EMPTY_EPOCHS {
        rma.fence(win, asserts[k as usize % asserts.len()])
            .map_err(fail("empty fence"))?;
    }
    // NOPRECEDE | NOSUCCEED on every rank neither ends nor opens an epoch.
    rma.fence(win, Assert::NOPRECEDE | Assert::NOSUCCEED)
        .map_err(fail("fence outside any epoch"))?;
    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    rma.put(win, right, 3, &values(7, me, right, 3, 5))
        .map_err(fail("put after empty epochs"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut got = [0; 16];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let mut want = [0; 16];
    want[3..8].copy_from_slice(&values(7, left, me, 3, 5));
    checks.same(&got, &want, || {
        format!("a put after {EMPTY_EPOCHS} empty epochs, from core {left}")
    });
    let stats = rma.stats(win).map_err(fail("statistics"))?;
    checks.check(
        (stats.puts, stats.gets, stats.fences) == (1, 0, u64::from(EMPTY_EPOCHS) + 3),
        || format!("window statistics after empty epochs: {stats:?}"),
    );
    rma.free(win).map_err(fail("freeing the window"))?;
    Ok(())
}

/// Puts to both neighbours and reads of the own window through a single
/// LUT entry: each switch between the pages evicts the mapping before
/// (pushing out and dropping its lines), and the data must not suffer.
fn one_lut_entry(rma: &mut Rma<'_, Platform>, checks: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);
    let free = rma.hal().chip().address_map.shareable;
    rma.set_lut_entries(EntryRange::new(free.first, free.first))
        .map_err(fail("one LUT entry"))?;
    let win = rma
        .allocate::<u32>(64, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    for k in 0..4 {
        rma.put(win, right, 8 * k, &values(k, me, right, 8 * k, 8))
            .map_err(fail("put to the right"))?;
        rma.put(win, left, 32 + 8 * k, &values(k, me, left, 32 + 8 * k, 8))
            .map_err(fail("put to the left"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    let mut got = [0; 64];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let want: alloc::vec::Vec<u32> = (0..64)
        .map(|i| {
            let (from, epoch) = if i < 32 {
                (left, i / 8)
            } else {
                (right, (i - 32) / 8)
            };
            value(epoch, from, me, i)
        })
        .collect();
    checks.same(&got, &want, || {
        format!("puts from cores {left} and {right} through one LUT entry")
    });
    let stats = rma.stats(win).map_err(fail("statistics"))?;
    checks.check(stats.evictions > 0, || {
        format!("one LUT entry for two pages evicted nothing: {stats:?}")
    });
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.free(win).map_err(fail("freeing the window"))?;
    rma.set_lut_entries(free)
        .map_err(fail("all free LUT entries"))?;
    Ok(())
}
