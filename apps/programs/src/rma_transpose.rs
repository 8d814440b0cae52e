// SPDX-License-Identifier: MIT OR Apache-2.0
//! A distributed matrix transpose with strided layouts, in the style of
//! MPICH's `transpose1` and `transpose3`, every element checked.
//!
//! The `N x N` matrix `A` (`N` = [`ROWS`] times the run's size, `A[i][j]`
//! = `i * N + j + 1`) is spread by rows: each core holds [`ROWS`] rows.
//! In one fence epoch every core puts each of its rows, cut into one piece
//! per core, into the owners of the transposed rows: a contiguous piece
//! lands as a column, a vector of one-element blocks `N` apart. After the
//! fence each core checks its rows of `B = A^T`. In a second epoch every
//! core gets its rows of `A` back from the others' parts of `B`, this time
//! with the strided layout on its own side, and checks them.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::{Assert, Vector, WindowOptions};

use crate::support::osc::{Checks, conclude, fail, open};
use kernel::Platform;

/// Rows of the matrix each core holds.
const ROWS: u32 = 4;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut rma = open(platform)?;
    let (p, me) = (rma.size(), rma.rank());
    let n = ROWS * p;
    let a = |i: u32, j: u32| i * n + j + 1;
    // This core's rows of A, row-major.
    let mine: Vec<u32> = (0..ROWS * n).map(|k| a(me * ROWS + k / n, k % n)).collect();
    let win = rma
        .allocate::<u32>(ROWS * n, WindowOptions::new())
        .map_err(fail("allocating a window"))?;
    let mut checks = Checks::default();

    rma.fence(win, Assert::NOPRECEDE).map_err(fail("fence"))?;
    let column = Vector::new(ROWS, 1, n);
    for t in 0..p {
        for li in 0..ROWS {
            // Row i's piece for t: A[i][t*ROWS..], which is column i of
            // t's rows of B.
            let i = me * ROWS + li;
            let piece = &mine[(li * n + t * ROWS) as usize..][..ROWS as usize];
            rma.put_vector(win, t, i, piece, Vector::contiguous(ROWS), column)
                .map_err(fail("strided put"))?;
        }
    }
    rma.fence(win, Assert::NONE).map_err(fail("fence"))?;
    let mut b = vec![0; (ROWS * n) as usize];
    rma.local_read(win, 0, &mut b).map_err(fail("local read"))?;
    let want: Vec<u32> = (0..ROWS * n).map(|k| a(k % n, me * ROWS + k / n)).collect();
    checks.same(&b, &want, || {
        format!("rows {}..{} of the transpose", me * ROWS, (me + 1) * ROWS)
    });

    // Back: B's rows of core t hold, in columns me*ROWS.., the pieces of
    // this core's rows; each lands strided in this core's buffer.
    let mut back = vec![0; (ROWS * n) as usize];
    for t in 0..p {
        for lj in 0..ROWS {
            let at = (t * ROWS + lj) as usize;
            rma.get_vector(
                win,
                t,
                lj * n + me * ROWS,
                &mut back[at..],
                column,
                Vector::contiguous(ROWS),
            )
            .map_err(fail("strided get"))?;
        }
    }
    rma.fence(win, Assert::NOSUCCEED | Assert::NOSTORE)
        .map_err(fail("fence"))?;
    checks.same(&back, &mine, || {
        format!(
            "rows {}..{} got back from the transpose",
            me * ROWS,
            (me + 1) * ROWS
        )
    });
    let stats = rma.stats(win).map_err(fail("statistics"))?;
    let ops = u64::from(p * ROWS);
    checks.check(
        (stats.puts, stats.gets, stats.bytes_put, stats.bytes_got)
            == (
                ops,
                ops,
                ops * 4 * u64::from(ROWS),
                ops * 4 * u64::from(ROWS),
            ),
        || format!("window statistics: {stats:?}"),
    );
    rma.free(win).map_err(fail("freeing the window"))?;
    conclude(
        &mut rma,
        &checks,
        "rma-transpose",
        &format!("a {n}x{n} matrix transposed with strided puts and back with strided gets"),
    )
}
