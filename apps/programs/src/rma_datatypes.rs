// SPDX-License-Identifier: MIT OR Apache-2.0
//! rma's derived datatypes at both sides of put, get, accumulate and
//! get_accumulate on every core, every element checked:
//!
//! 1. **Transpose**: the `N x N` matrix of `rma-transpose` (`N` =
//!    [`ROWS`] times the run's size, spread by rows) transposed with one
//!    put per pair of cores: a `ROWS x ROWS` subarray of the origin's rows
//!    lands as an hvector of columns (vectors) in the target's rows, and a
//!    get per pair brings it back the same way.
//! 2. **Halo exchange**: on a periodic 2D grid of the cores, each core's
//!    block with a halo of one cell is its window; edges go to the
//!    neighbours' halos as subarrays at both sides, by put, then again by
//!    get.
//! 3. **Struct records**: records of nested blocks with gaps between them
//!    packed into the right neighbour's window and unpacked back.
//! 4. **Accumulate**: every core adds (SUM) into every core's window
//!    through a contiguous run of subarrays, and one origin element into
//!    three corners through an indexed_block (an origin that picks one
//!    element three times), in a lock_all epoch; the sums are exact.
//! 5. **get_accumulate and requests**: under an exclusive lock on the
//!    right neighbour, get_accumulate through a subarray with the old
//!    values landing strided, MPI_NO_OP through the same type, and the
//!    request forms.
//! 6. **Misuse**: sizes that differ, a byte stride that is not whole
//!    elements, overlapping target places, targets outside the window, an
//!    origin outside its buffer, a subarray part outside its array; each
//!    checked for its class and exact message.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::Element;
use rma::{
    AccumulateOp, Assert, Block, Committed, Datatype, ErrorClass, LockType, Rma, RmaError,
    StructBlock, WindowOptions,
};

use crate::support::osc::{Checks, conclude, fail, open, value};
use kernel::Platform;

/// Rows of the transposed matrix each core holds.
const ROWS: u32 = 4;
/// Interior rows and columns of each core's block in the halo exchange.
const HALO_ROWS: u32 = 4;
const HALO_COLS: u32 = 6;
/// Records each core packs.
const RECORDS: u32 = 4;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut rma = open(platform)?;
    let mut checks = Checks::default();
    transpose(&mut rma, &mut checks)?;
    halo(&mut rma, &mut checks)?;
    records(&mut rma, &mut checks)?;
    accumulate(&mut rma, &mut checks)?;
    get_accumulate(&mut rma, &mut checks)?;
    misuse(&mut rma, &mut checks)?;
    conclude(
        &mut rma,
        &checks,
        "rma-datatypes",
        "a transpose through hvectors of vectors, a subarray halo exchange, struct records, SUM accumulates and get_accumulate through nested types, every misuse refused",
    )
}

/// Commits a datatype the program builds.
fn commit<T: Element>(ty: Result<Datatype<T>, RmaError>) -> Result<Committed<T>, String> {
    ty.and_then(|t| t.commit())
        .map_err(fail("building a datatype"))
}

fn transpose(rma: &mut Rma<'_, Platform>, c: &mut Checks) -> Result<(), String> {
    let (p, me) = (rma.size(), rma.rank());
    let n = ROWS * p;
    let a = |i: u32, j: u32| i * n + j + 1;
    // This core's rows of A, row-major.
    let mine: Vec<u32> = (0..ROWS * n).map(|k| a(me * ROWS + k / n, k % n)).collect();
    let e = Datatype::<u32>::element();
    // The ROWS x ROWS block of this core's rows from a column on.
    let block = |col: u32| commit(Datatype::subarray(&[ROWS, n], &[ROWS, ROWS], &[0, col], &e));
    // The same block laid down transposed in rows of n elements: a column,
    // and ROWS columns one element apart.
    let transposed = commit(
        Datatype::vector(ROWS, 1, i64::from(n), &e)
            .and_then(|col| Datatype::hvector(ROWS, 1, 4, &col)),
    )?;
    let win = rma
        .allocate::<u32>(ROWS * n, WindowOptions::new())
        .map_err(fail("allocating a window"))?;

    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    for t in 0..p {
        // Columns t*ROWS.. of this core's rows are, transposed, columns
        // me*ROWS.. of t's rows of B.
        let origin = block(t * ROWS)?;
        rma.put_typed(
            win,
            t,
            me * ROWS,
            &mine,
            origin.times(1),
            transposed.times(1),
        )
        .map_err(fail("typed put"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    let mut b = vec![0; (ROWS * n) as usize];
    rma.local_read(win, 0, &mut b).map_err(fail("local read"))?;
    let want: Vec<u32> = (0..ROWS * n).map(|k| a(k % n, me * ROWS + k / n)).collect();
    c.same(&b, &want, || {
        format!("rows {}..{} of the transpose", me * ROWS, (me + 1) * ROWS)
    });

    let mut back = vec![0; (ROWS * n) as usize];
    for t in 0..p {
        let origin = block(t * ROWS)?;
        rma.get_typed(
            win,
            t,
            me * ROWS,
            &mut back,
            origin.times(1),
            transposed.times(1),
        )
        .map_err(fail("typed get"))?;
    }
    rma.fence(win, Assert::NOSUCCEED | Assert::NOSTORE)
        .map_err(fail("fence"))?;
    c.same(&back, &mine, || "rows got back from the transpose".into());
    let stats = rma.stats(win).map_err(fail("statistics"))?;
    let bytes = u64::from(p * ROWS * ROWS * 4);
    c.check(
        (stats.puts, stats.gets, stats.bytes_put, stats.bytes_got)
            == (u64::from(p), u64::from(p), bytes, bytes),
        || format!("transpose window statistics: {stats:?}"),
    );
    rma.free(win).map_err(fail("freeing the window"))
}

/// The cores as a periodic grid of `rows x columns`, as square as the
/// core count allows.
fn grid(p: u32) -> (u32, u32) {
    let rows = (1..=p)
        .filter(|&r| r * r <= p && p.is_multiple_of(r))
        .max()
        .unwrap_or(1);
    (rows, p / rows)
}

fn halo(rma: &mut Rma<'_, Platform>, c: &mut Checks) -> Result<(), String> {
    const R: u32 = HALO_ROWS;
    const C: u32 = HALO_COLS;
    const COLS: u32 = C + 2;
    let (p, me) = (rma.size(), rma.rank());
    let (gr, gc) = grid(p);
    let (r0, c0) = (me / gc, me % gc);
    let at = |r: u32, c: u32| (r % gr) * gc + c % gc;
    let (up, down) = (at(r0 + gr - 1, c0), at(r0 + 1, c0));
    let (left, right) = (at(r0, c0 + gc - 1), at(r0, c0 + 1));
    let e = Datatype::<u32>::element();
    let part = |sub: [u32; 2], start: [u32; 2]| {
        commit(Datatype::subarray(&[R + 2, COLS], &sub, &start, &e))
    };
    let (first_row, last_row) = (part([1, C], [1, 1])?, part([1, C], [R, 1])?);
    let (top, bottom) = (part([1, C], [0, 1])?, part([1, C], [R + 1, 1])?);
    let (first_col, last_col) = (part([R, 1], [1, 1])?, part([R, 1], [1, C])?);
    let (west, east) = (part([R, 1], [1, 0])?, part([R, 1], [1, C + 1])?);
    let inside = |r: u32, c: u32| (1..=R).contains(&r) && (1..=C).contains(&c);
    let cell = |owner: u32, k: u32| value(2, owner, 0, k);
    let cells: Vec<u32> = (0..(R + 2) * COLS)
        .map(|k| {
            if inside(k / COLS, k % COLS) {
                cell(me, k)
            } else {
                0
            }
        })
        .collect();
    let win = rma
        .allocate::<u32>((R + 2) * COLS, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    rma.local_write(win, 0, &cells)
        .map_err(fail("local write"))?;

    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    for (to, edge, halo) in [
        (up, &first_row, &bottom),
        (down, &last_row, &top),
        (left, &first_col, &east),
        (right, &last_col, &west),
    ] {
        rma.put_typed(win, to, 0, &cells, edge.times(1), halo.times(1))
            .map_err(fail("halo put"))?;
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    let mut got = vec![0; ((R + 2) * COLS) as usize];
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    let want: Vec<u32> = (0..(R + 2) * COLS)
        .map(|k| {
            let (r, col) = (k / COLS, k % COLS);
            match (r, col) {
                _ if inside(r, col) => cell(me, k),
                (0, 1..=C) => cell(up, R * COLS + col),
                (r, 1..=C) if r == R + 1 => cell(down, COLS + col),
                (1..=R, 0) => cell(left, r * COLS + C),
                (1..=R, col) if col == C + 1 => cell(right, r * COLS + 1),
                _ => 0,
            }
        })
        .collect();
    c.same(&got, &want, || {
        format!("block and halo of grid cell ({r0}, {c0}) after puts")
    });

    let mut fetched = vec![0; ((R + 2) * COLS) as usize];
    for (from, edge, halo) in [
        (up, &last_row, &top),
        (down, &first_row, &bottom),
        (left, &last_col, &west),
        (right, &first_col, &east),
    ] {
        rma.get_typed(win, from, 0, &mut fetched, halo.times(1), edge.times(1))
            .map_err(fail("halo get"))?;
    }
    rma.fence(win, Assert::NOSUCCEED | Assert::NOSTORE)
        .map_err(fail("fence"))?;
    let want: Vec<u32> = (0..(R + 2) * COLS)
        .map(|k| {
            if inside(k / COLS, k % COLS) {
                0
            } else {
                want[k as usize]
            }
        })
        .collect();
    c.same(&fetched, &want, || "halo fetched by gets".into());
    rma.free(win).map_err(fail("freeing the window"))
}

fn records(rma: &mut Rma<'_, Platform>, c: &mut Checks) -> Result<(), String> {
    let (p, me) = (rma.size(), rma.rank());
    let (left, right) = ((me + p - 1) % p, (me + 1) % p);
    let e = Datatype::<f64>::element();
    let three = Datatype::contiguous(3, &e).map_err(fail("building a datatype"))?;
    // A record of 9 elements: position (3) at byte 0, velocity (3) at
    // byte 32, mass at byte 64; elements 3 and 7 are gaps.
    let record = commit(Datatype::structure(&[
        StructBlock::new(1, 0, &three),
        StructBlock::new(1, 32, &three),
        StructBlock::new(1, 64, &e),
    ]))?;
    let one = commit(Ok(e.clone()))?;
    let picked = |k: u32| k % 9 != 3 && k % 9 != 7;
    let field = |owner: u32, k: u32| f64::from(value(3, owner, 0, k) >> 8);
    let mine: Vec<f64> = (0..9 * RECORDS)
        .map(|k| if picked(k) { field(me, k) } else { -1.0 })
        .collect();
    let win = rma
        .allocate::<f64>(7 * RECORDS, WindowOptions::new())
        .map_err(fail("allocating a window"))?;

    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    rma.put_typed(
        win,
        right,
        0,
        &mine,
        record.times(RECORDS),
        one.times(7 * RECORDS),
    )
    .map_err(fail("packing put"))?;
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    let mut packed = vec![0.0; (7 * RECORDS) as usize];
    rma.local_read(win, 0, &mut packed)
        .map_err(fail("local read"))?;
    let want: Vec<f64> = (0..9 * RECORDS)
        .filter(|&k| picked(k))
        .map(|k| field(left, k))
        .collect();
    c.same(&packed, &want, || {
        "records packed by the left neighbour".into()
    });
    let mut unpacked = vec![-1.0; (9 * RECORDS) as usize];
    rma.get_typed(
        win,
        right,
        0,
        &mut unpacked,
        record.times(RECORDS),
        one.times(7 * RECORDS),
    )
    .map_err(fail("unpacking get"))?;
    rma.fence(win, Assert::NOSUCCEED | Assert::NOSTORE)
        .map_err(fail("fence"))?;
    c.same(&unpacked, &mine, || {
        "records unpacked from the right neighbour".into()
    });
    rma.free(win).map_err(fail("freeing the window"))
}

fn accumulate(rma: &mut Rma<'_, Platform>, c: &mut Checks) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let e = Datatype::<u64>::element();
    // The middle 2x2 of each of 3 tiles of 4x4.
    let middle = Datatype::subarray(&[4, 4], &[2, 2], &[1, 1], &e);
    let tiles = commit(middle.and_then(|m| Datatype::contiguous(3, &m)))?;
    let corners = commit(Datatype::indexed_block(1, &[0, 16, 32], &e))?;
    let thrice = commit(Datatype::vector(3, 1, 0, &e))?;
    let one = commit(Ok(e))?;
    let win = rma
        .allocate::<u64>(48, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    rma.local_write(win, 0, &[0; 48])
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mine = u64::from(me) + 1;
    let data: Vec<u64> = (1..=12).map(|k| mine * k).collect();
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    for k in 0..n {
        let target = (me + k) % n;
        rma.accumulate_typed(
            win,
            target,
            0,
            &data,
            one.times(12),
            tiles.times(1),
            AccumulateOp::Sum,
        )
        .map_err(fail("accumulate through subarrays"))?;
        rma.accumulate_typed(
            win,
            target,
            0,
            &[mine],
            thrice.times(1),
            corners.times(1),
            AccumulateOp::Sum,
        )
        .map_err(fail("accumulate into corners"))?;
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    let mut got = vec![0u64; 48];
    rma.lock(win, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    rma.unlock(win, me).map_err(fail("unlock"))?;
    let sum = u64::from(n) * (u64::from(n) + 1) / 2;
    let want: Vec<u64> = (0..48u64)
        .map(|k| {
            let (tile, r, col) = (k / 16, k % 16 / 4, k % 4);
            if (1..=2).contains(&r) && (1..=2).contains(&col) {
                sum * (tile * 4 + (r - 1) * 2 + col)
            } else if k % 16 == 0 {
                sum
            } else {
                0
            }
        })
        .collect();
    c.same(&got, &want, || {
        "SUM accumulated through nested types from every core".into()
    });
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the window"))
}

fn get_accumulate(rma: &mut Rma<'_, Platform>, c: &mut Checks) -> Result<(), String> {
    let (p, me) = (rma.size(), rma.rank());
    let right = (me + 1) % p;
    let e = Datatype::<u32>::element();
    // A 2x3 block of a 4x8 array (elements 10..13 and 18..21), and every
    // other element of a buffer.
    let block = commit(Datatype::subarray(&[4, 8], &[2, 3], &[1, 2], &e))?;
    let places = [10u32, 11, 12, 18, 19, 20];
    let every_other = commit(Datatype::vector(6, 1, 2, &e))?;
    let broadcast = commit(Datatype::vector(6, 1, 0, &e))?;
    let one = commit(Ok(e))?;
    let initial = |owner: u32| -> Vec<u32> { (0..32).map(|k| value(5, owner, 0, k)).collect() };
    let win = rma
        .allocate::<u32>(32, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    rma.local_write(win, 0, &initial(me))
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;

    let old: Vec<u32> = places.iter().map(|&k| initial(right)[k as usize]).collect();
    let data: Vec<u32> = (1..=6).map(|k| k * (me + 1)).collect();
    rma.lock(win, LockType::Exclusive, right, Assert::NONE)
        .map_err(fail("lock"))?;
    let mut result = vec![u32::MAX; 12];
    rma.get_accumulate_typed(
        win,
        right,
        0,
        &data,
        one.times(6),
        &mut result,
        every_other.times(1),
        block.times(1),
        AccumulateOp::Sum,
    )
    .map_err(fail("get_accumulate"))?;
    let want: Vec<u32> = (0..12)
        .map(|k| if k % 2 == 0 { old[k / 2] } else { u32::MAX })
        .collect();
    c.same(&result, &want, || {
        "old values from get_accumulate, strided".into()
    });
    let mut now = vec![0; 6];
    rma.get_accumulate_typed(
        win,
        right,
        0,
        &[],
        one.times(0),
        &mut now,
        one.times(6),
        block.times(1),
        AccumulateOp::NoOp,
    )
    .map_err(fail("get_accumulate (MPI_NO_OP)"))?;
    let summed: Vec<u32> = old
        .iter()
        .zip(&data)
        .map(|(o, d)| o.wrapping_add(*d))
        .collect();
    c.same(&now, &summed, || {
        "values after get_accumulate, read with MPI_NO_OP".into()
    });

    // The request forms: the old values put back, got back, 7 added to
    // each, then replaced by the data with the values before returned.
    let r = rma
        .rput_typed(win, right, 0, &result, every_other.times(1), block.times(1))
        .map_err(fail("rput"))?;
    rma.wait_request(win, r).map_err(fail("wait_request"))?;
    let mut back = vec![0; 6];
    let r = rma
        .rget_typed(win, right, 0, &mut back, one.times(6), block.times(1))
        .map_err(fail("rget"))?;
    rma.wait_request(win, r).map_err(fail("wait_request"))?;
    let r = rma
        .raccumulate_typed(
            win,
            right,
            0,
            &[7],
            broadcast.times(1),
            block.times(1),
            AccumulateOp::Sum,
        )
        .map_err(fail("raccumulate"))?;
    rma.wait_request(win, r).map_err(fail("wait_request"))?;
    let mut last = vec![0; 12];
    let r = rma
        .rget_accumulate_typed(
            win,
            right,
            0,
            &data,
            one.times(6),
            &mut last,
            every_other.times(1),
            block.times(1),
            AccumulateOp::Replace,
        )
        .map_err(fail("rget_accumulate"))?;
    rma.wait_request(win, r).map_err(fail("wait_request"))?;
    rma.unlock(win, right).map_err(fail("unlock"))?;
    let seven: Vec<u32> = old.iter().map(|o| o.wrapping_add(7)).collect();
    let evens: Vec<u32> = last.iter().step_by(2).copied().collect();
    c.check(back == old && evens == seven, || {
        format!(
            "requests: got {back:?} back (expected {old:?}), then {evens:?} (expected {seven:?})"
        )
    });

    // This core's block holds what its left neighbour replaced it with.
    rma.comm().barrier();
    let left = (me + p - 1) % p;
    let mut got = vec![0; 32];
    rma.lock(win, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_read(win, 0, &mut got)
        .map_err(fail("local read"))?;
    rma.unlock(win, me).map_err(fail("unlock"))?;
    let mut want = initial(me);
    for (&k, d) in places.iter().zip(1..) {
        want[k as usize] = d * (left + 1);
    }
    c.same(&got, &want, || {
        "window after the left neighbour's requests".into()
    });
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the window"))
}

fn misuse(rma: &mut Rma<'_, Platform>, c: &mut Checks) -> Result<(), String> {
    use ErrorClass::{Arg, RmaRange, Type};
    let (p, me) = (rma.size(), rma.rank());
    let right = (me + 1) % p;
    let e = Datatype::<u32>::element();
    let one = commit(Ok(e.clone()))?;
    let twice = commit(Datatype::indexed(&[Block::new(2, 0), Block::new(2, 1)], &e))?;
    let below = commit(Datatype::hindexed(&[Block::new(2, -8)], &e))?;
    let win = rma
        .allocate::<u32>(8, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    let w = win.id();
    c.error(
        "hvector",
        Datatype::hvector(2, 1, 6, &e),
        Type,
        "MPI_ERR_TYPE: hvector stride of 6 bytes is not a multiple of the element size (4 bytes)",
    );
    c.error(
        "subarray",
        Datatype::subarray(&[4, 4], &[2, 3], &[1, 2], &e),
        Arg,
        "MPI_ERR_ARG: subarray dimension 1: 3 elements from 2 reach past its 4",
    );
    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    c.error(
        "put with sizes that differ",
        rma.put_typed(win, right, 0, &[1; 4], one.times(3), one.times(4)),
        Arg,
        "MPI_ERR_ARG: target layout elements (as the origin layout picks) has length 4, expected 3",
    );
    c.error(
        "get_accumulate with a result of another size",
        rma.get_accumulate_typed(
            win,
            right,
            0,
            &[1; 3],
            one.times(3),
            &mut [0; 4],
            one.times(2),
            one.times(3),
            AccumulateOp::Sum,
        ),
        Arg,
        "MPI_ERR_ARG: result layout elements (as the target layout picks) has length 2, expected 3",
    );
    c.error(
        "put to overlapping places",
        rma.put_typed(win, right, 0, &[1; 4], one.times(4), twice.times(1)),
        Arg,
        "MPI_ERR_ARG: put target layout: places overlap (some element picked twice)",
    );
    c.error(
        "put past the window",
        rma.put_typed(win, right, 6, &[1; 3], one.times(3), one.times(3)),
        RmaRange,
        &format!("MPI_ERR_RMA_RANGE: put on window {w}: bytes 24..36 of rank {right}'s window of 32 bytes"),
    );
    c.error(
        "get below the window",
        rma.get_typed(win, right, 1, &mut [0; 2], one.times(2), below.times(1)),
        RmaRange,
        &format!(
            "MPI_ERR_RMA_RANGE: get on window {w}: bytes -4..4 of rank {right}'s window of 32 bytes"
        ),
    );
    c.error(
        "put from past the origin buffer",
        rma.put_typed(win, right, 0, &[1; 2], twice.times(1), one.times(4)),
        Arg,
        "MPI_ERR_ARG: origin buffer elements (as the origin layout spans) has length 2, expected 3",
    );
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.free(win).map_err(fail("freeing the window"))
}
