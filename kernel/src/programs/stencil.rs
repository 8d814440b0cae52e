// SPDX-License-Identifier: MIT OR Apache-2.0
//! A 2D cellular automaton (Conway's rule on the 9-point Moore stencil)
//! on a torus, split by rows across the cores, with the halo rows
//! exchanged by put under post/start/complete/wait: the thesis's SCOSCo
//! benchmark (4.4.5), verified against a serial run on core 0.
//!
//! Each core keeps its [`rows_per_core`] rows in private memory; a window
//! per core holds its two halo rows (above its first row, below its last).
//! In every generation a core exposes its window to its two neighbours and
//! starts an access epoch to them (both on the same window at once, as
//! the thesis does), puts its first row into the bottom halo of the core
//! above and its last row into the top halo of the core below, completes,
//! waits, reads its halos and computes the next generation. Two halo
//! windows take turns, like the thesis's two arrays. At the end every
//! core stores its rows into a result window, and core 0 gets them all
//! under fence and compares them with its own serial run of the whole
//! grid; it prints the result and the per-window statistics summed over
//! all cores.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::{Group, ReduceOp};
use rma::hal::Clock;
use rma::{Assert, Rma, Window, WindowOptions, WindowStats};

use super::ProgramResult;
use super::osc::{fail, open, stats_line};
use crate::platform::Scc;

/// Cells per row.
const WIDTH: u32 = 256;
/// At least this many rows in the grid: the rows split evenly, so the
/// grid has `rows_per_core * cores` rows.
const MIN_ROWS: u32 = 192;
/// Generations computed.
const GENERATIONS: u32 = 30;

/// Rows each core holds on `cores` cores.
fn rows_per_core(cores: u32) -> u32 {
    MIN_ROWS.div_ceil(cores)
}

/// The first generation: about a third of the cells alive, scattered.
fn seed(row: u32, col: u32) -> u8 {
    let x = row.wrapping_mul(0x9E37_79B9) ^ col.wrapping_mul(0x85EB_CA6B) ^ 0x5bd1_e995;
    let x = (x ^ (x >> 15)).wrapping_mul(0x2C1B_3C6D);
    u8::from((x >> 24).is_multiple_of(3))
}

/// One generation of rows `1..=rows` of `grid` (`rows + 2` rows of
/// [`WIDTH`] cells; rows 0 and `rows + 1` are the halos), written into
/// the same rows of `next`. Columns wrap around.
fn step(grid: &[u8], next: &mut [u8], rows: u32) {
    let w = WIDTH as usize;
    for r in 1..=rows as usize {
        for c in 0..w {
            let (west, east) = ((c + w - 1) % w, (c + 1) % w);
            let mut alive = 0;
            for row in [r - 1, r, r + 1] {
                let line = &grid[row * w..][..w];
                alive += line[west] + line[c] + line[east];
            }
            let me = grid[r * w + c];
            alive -= me;
            next[r * w + c] = u8::from(alive == 3 || (me == 1 && alive == 2));
        }
    }
}

/// Live cells in `cells`.
fn population(cells: &[u8]) -> u32 {
    cells.iter().map(|&c| u32::from(c)).sum()
}

pub fn run(scc: &Scc) -> ProgramResult {
    let mut rma = open(scc)?;
    let (n, me) = (rma.size(), rma.rank());
    let rows = rows_per_core(n);
    let w = WIDTH as usize;
    let (up, down) = ((me + n - 1) % n, (me + 1) % n);
    let mut neighbours = vec![up];
    if down != up {
        neighbours.push(down);
    }
    let group = Group::world(n, me)
        .and_then(|g| g.incl(&neighbours))
        .map_err(fail("neighbour group"))?;
    let halos = [
        rma.allocate::<u8>(2 * WIDTH, WindowOptions::new())
            .map_err(fail("allocating a halo window"))?,
        rma.allocate::<u8>(2 * WIDTH, WindowOptions::new())
            .map_err(fail("allocating a halo window"))?,
    ];

    // This core's rows with a halo row above and below.
    let mut grid = vec![0u8; (rows as usize + 2) * w];
    for r in 0..rows {
        for c in 0..WIDTH {
            grid[(r as usize + 1) * w + c as usize] = seed(me * rows + r, c);
        }
    }
    let mut next = grid.clone();
    let (mut compute, mut communicate) = (0u64, 0u64);
    for generation in 0..GENERATIONS {
        let t0 = scc.cycles();
        let win = halos[generation as usize % 2];
        exchange(&mut rma, win, &group, &grid, rows, up, down)?;
        rma.local_read(win, 0, &mut grid[..w])
            .map_err(fail("reading the top halo"))?;
        let bottom = (rows as usize + 1) * w;
        rma.local_read(win, WIDTH, &mut grid[bottom..bottom + w])
            .map_err(fail("reading the bottom halo"))?;
        let t1 = scc.cycles();
        step(&grid, &mut next, rows);
        core::mem::swap(&mut grid, &mut next);
        compute += scc.cycles() - t1;
        communicate += t1 - t0;
    }

    let verified = verify(&mut rma, &grid[w..(rows as usize + 1) * w], rows)?;
    let mut totals = Vec::new();
    for (k, &win) in halos.iter().enumerate() {
        let stats = rma.stats(win).map_err(fail("statistics"))?;
        totals.push(sum_over_cores(&mut rma, stats)?);
        if me == 0 {
            crate::println!("stencil window {k} (core 0): {}", stats_line(&stats));
        }
    }
    if me == 0 {
        let (cells, live) = verified;
        crate::println!(
            "stencil: {}x{WIDTH} torus, {GENERATIONS} generations on {n} cores, halo rows by put under post/start/complete/wait: verified against a serial run on core 0 ({live} of {cells} cells alive)",
            rows * n
        );
        for (k, total) in totals.iter().enumerate() {
            crate::println!("stencil window {k} (all cores): {}", stats_line(total));
        }
        crate::println!(
            "stencil core 0: {} kcycles computing, {} kcycles exchanging halos (its clock: modelled SCC time under the emulator's timing)",
            compute / 1000,
            communicate / 1000
        );
    }
    for win in halos {
        rma.free(win).map_err(fail("freeing a halo window"))?;
    }
    Ok(())
}

/// One halo exchange on `win`: expose to both neighbours, put the first
/// row up and the last row down, close both epochs.
fn exchange(
    rma: &mut Rma<'_, Scc>,
    win: Window<u8>,
    group: &Group,
    grid: &[u8],
    rows: u32,
    up: u32,
    down: u32,
) -> ProgramResult {
    let w = WIDTH as usize;
    rma.post(win, group, Assert::NOSTORE)
        .map_err(fail("post"))?;
    rma.start(win, group, Assert::NONE).map_err(fail("start"))?;
    // The core above gets this core's first row below its last.
    rma.put(win, up, WIDTH, &grid[w..2 * w])
        .map_err(fail("put up"))?;
    let last = rows as usize * w;
    rma.put(win, down, 0, &grid[last..last + w])
        .map_err(fail("put down"))?;
    rma.complete(win).map_err(fail("complete"))?;
    rma.wait(win).map_err(fail("wait"))
}

/// Core 0 gets every core's rows and compares them with its serial run;
/// returns (cells, live cells) on core 0. Fails on every core if a cell
/// differs.
fn verify(
    rma: &mut Rma<'_, Scc>,
    mine: &[u8],
    rows: u32,
) -> Result<(u32, u32), alloc::string::String> {
    let (n, me) = (rma.size(), rma.rank());
    let w = WIDTH as usize;
    let result = rma
        .allocate::<u8>(rows * WIDTH, WindowOptions::new())
        .map_err(fail("allocating the result window"))?;
    rma.local_write(result, 0, mine)
        .map_err(fail("storing the result"))?;
    rma.fence(result, Assert::NOPRECEDE)
        .map_err(fail("fence"))?;
    let mut wrong = 0u32;
    let mut counts = (0, 0);
    if me == 0 {
        let total = (rows * n) as usize;
        let mut all = vec![0u8; total * w];
        for core in 0..n {
            let at = (core * rows) as usize * w;
            rma.get(result, core, 0, &mut all[at..at + rows as usize * w])
                .map_err(fail("getting a core's rows"))?;
        }
        let serial = serial(total as u32);
        if let Some(k) = (0..all.len()).find(|&k| all[k] != serial[k]) {
            let row = k / w;
            crate::println!(
                "check failed: cell ({row}, {}) of core {} is {}, the serial run has {}",
                k % w,
                row as u32 / rows,
                all[k],
                serial[k]
            );
            wrong = all.iter().zip(&serial).filter(|(a, b)| a != b).count() as u32;
        }
        let first: Vec<u8> = (0..total as u32 * WIDTH)
            .map(|k| seed(k / WIDTH, k % WIDTH))
            .collect();
        if serial == first || population(&serial) == 0 {
            crate::println!("check failed: the automaton did not evolve");
            wrong += 1;
        }
        counts = (total as u32 * WIDTH, population(&serial));
    }
    rma.fence(result, Assert::NOSUCCEED | Assert::NOSTORE)
        .map_err(fail("fence"))?;
    let mut flag = [wrong];
    rma.comm()
        .allreduce(&mut flag, ReduceOp::Sum)
        .map_err(|e| format!("allreduce: {e}"))?;
    rma.free(result)
        .map_err(fail("freeing the result window"))?;
    if flag[0] > 0 {
        return Err(format!("{} cells differ from the serial run", flag[0]));
    }
    Ok(counts)
}

/// The whole grid of `rows` rows after [`GENERATIONS`] generations, on one
/// core: halos are copies of the other end's rows.
fn serial(rows: u32) -> Vec<u8> {
    let w = WIDTH as usize;
    let r = rows as usize;
    let mut grid = vec![0u8; (r + 2) * w];
    for row in 0..rows {
        for c in 0..WIDTH {
            grid[(row as usize + 1) * w + c as usize] = seed(row, c);
        }
    }
    let mut next = grid.clone();
    for _ in 0..GENERATIONS {
        grid.copy_within(r * w..(r + 1) * w, 0);
        grid.copy_within(w..2 * w, (r + 1) * w);
        step(&grid, &mut next, rows);
        core::mem::swap(&mut grid, &mut next);
    }
    grid[w..(r + 1) * w].to_vec()
}

/// A window's statistics summed over all cores.
fn sum_over_cores(
    rma: &mut Rma<'_, Scc>,
    s: WindowStats,
) -> Result<WindowStats, alloc::string::String> {
    let mut v = s.to_array();
    rma.comm()
        .allreduce(&mut v, ReduceOp::Sum)
        .map_err(|e| format!("allreduce: {e}"))?;
    Ok(WindowStats::from_array(v))
}
