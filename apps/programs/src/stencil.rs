// SPDX-License-Identifier: MIT OR Apache-2.0
//! A 2D cellular automaton (Conway's rule on the 9-point Moore stencil)
//! on a torus, split by rows across the cores, with the halo rows
//! exchanged by put under post/start/complete/wait: the thesis's SCOSCo
//! benchmark (4.4.5), verified against a serial run, and its Chapter 3
//! window-database study (3.4.5: the same program with the puts removed).
//!
//! The grid is the same on every core count (strong scaling): its rows
//! split as evenly as they go, the first `rows % cores` cores taking one
//! more. Each core keeps its rows in private memory; a window per core
//! holds its two halo rows (above its first row, below its last). In every
//! generation a core exposes its window to its two neighbours and starts
//! an access epoch to them (both on the same window at once, as the thesis
//! does), puts its first row into the bottom halo of the core above and
//! its last row into the top halo of the core below, completes, waits,
//! reads its halos and computes the next generation. Two halo windows take
//! turns, like the thesis's two arrays.
//!
//! Settings: `scale` (the grid and generations), `database` (where the
//! halo windows' records lie, [`rma::Database`]) and `puts`. With
//! `puts=on` every core compares its rows at the end with a serial run of
//! the rows they depend on (its own and as many more on each side as there
//! were generations, around the torus), which only halos that arrived
//! right in every generation can match. With `puts=off` only the synchronisation
//! remains: the halos stay zero, so each core checks its rows against a
//! serial run of its own rows between zero halos, which shows that the
//! epochs neither wrote into the halos nor lost a generation.
//!
//! Result lines, printed by the slowest core (the one whose generations
//! took longest in all, the lowest rank of a tie): the time of each of
//! its generations, halo exchange and computation:
//!
//! ```text
//! BENCH stencil-scaling procs=<p> database=<d> puts=on cycles=...
//! BENCH window-database procs=<p> database=<d> puts=off cycles=...
//! ```
//!
//! Core 0 also prints the result and the per-window statistics summed
//! over all cores.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::comm::{Group, ReduceOp};
use rma::hal::Clock;
use rma::{Assert, Database, Rma, Window, WindowOptions, WindowStats};

use crate::bench::{Scale, emit};
use crate::support::communicator;
use crate::support::osc::{fail, stats_line};
use kernel::Platform;
use kernel::chip::settings::{Choice, choice, cores, name_of};

/// The problem: the same on every core count.
#[derive(Debug, Clone, Copy)]
struct Size {
    /// Rows of the grid.
    rows: u32,
    /// Cells per row.
    width: u32,
    /// Generations computed.
    generations: u32,
}

/// The scaling study's grid at full scale: the thesis's 2400 rows of
/// 8 KiB (8192 one-byte cells), so that at 48 processes a core's 50 rows
/// (400 KiB) do not fit its 256 KiB L2 and the memory controllers are
/// busy, as on the chip. The thesis ran 100 generations; each sample is
/// one generation, so 4 are run (some 10^9 emulated instructions each
/// at this size). One process needs 128 MiB of heap for it, so the
/// suite boots these runs with more RAM (`--memory-mib`).
const FULL_SCALING: Size = Size {
    rows: 2400,
    width: 8192,
    generations: 4,
};
/// The window-database study's grid at full scale: the thesis's 1600 rows
/// of 8 KiB (it ran 50 generations; 4 here, as [`FULL_SCALING`]).
const FULL_DATABASE: Size = Size {
    rows: 1600,
    width: 8192,
    generations: 4,
};
/// `scale=quick`.
const QUICK: Size = Size {
    rows: 192,
    width: 256,
    generations: 10,
};

/// The rows of core `k` of `n`: the first and how many.
fn rows_of(size: Size, n: u32, k: u32) -> (u32, u32) {
    let (base, extra) = (size.rows / n, size.rows % n);
    (k * base + k.min(extra), base + u32::from(k < extra))
}

/// The first generation: about a third of the cells alive, scattered.
fn seed(row: u32, col: u32) -> u8 {
    let x = row.wrapping_mul(0x9E37_79B9) ^ col.wrapping_mul(0x85EB_CA6B) ^ 0x5bd1_e995;
    let x = (x ^ (x >> 15)).wrapping_mul(0x2C1B_3C6D);
    u8::from((x >> 24).is_multiple_of(3))
}

/// Rows `first..first + rows` of the first generation, with an empty halo
/// row above and below.
fn seeded(size: Size, first: u32, rows: u32) -> Vec<u8> {
    let w = size.width as usize;
    let mut grid = vec![0u8; (rows as usize + 2) * w];
    for r in 0..rows {
        for c in 0..size.width {
            grid[(r as usize + 1) * w + c as usize] = seed(first + r, c);
        }
    }
    grid
}

/// One generation of rows `1..=rows` of `grid` (`rows + 2` rows of
/// `w` cells; rows 0 and `rows + 1` are the halos), written into the same
/// rows of `next`. Columns wrap around.
fn step(grid: &[u8], next: &mut [u8], rows: u32, w: usize) {
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

/// A core's neighbours in the ring of cores: the group both epochs of a
/// generation name, and the ranks above and below.
struct Ring {
    group: Group,
    up: u32,
    down: u32,
}

kernel::chip::settings! {
    /// stencil's settings.
    pub struct Settings {
        /// full: the report's sizes and iterations; quick: a few of each (cargo xtask bench --quick)
        scale: Scale = choice::<Scale>("full"),
        /// where the halo windows' records lie: each core's at its own memory controller, or all at controller 0
        database: Database = choice::<Database>("distributed"),
        /// off: the halo puts removed, only the synchronisation left (the thesis's window-database study); each core's rows are then checked against a serial run of them between zero halos
        puts: bool = choice::<bool>("on"),
        /// processes, 0 for every core; the other cores take no part
        procs: u32 = cores(0..=255, "0"),
        /// which cores the processes run on: cores: rank i on core i; controllers: each memory controller's cores (lowest first) before the next controller's, as the thesis placed them
        placement: Placement = choice::<Placement>("cores"),
    }
}

/// Where the processes run: setting `placement`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Rank `i` on core `i`.
    Cores,
    /// Ranks fill each memory controller's cores, lowest core first,
    /// before the next controller's.
    Controllers,
}

impl Choice for Placement {
    const ALL: &'static [Self] = &[Self::Cores, Self::Controllers];
    const NAMES: &'static [&'static str] = &["cores", "controllers"];
}

/// The booted cores' ranks in the order `placement` fills them: a rank of
/// the world for each process.
fn placed(platform: &Platform, placement: Placement) -> Vec<u32> {
    let chip = platform.chip();
    let mut ranks: Vec<u32> = (0..platform.cores()).collect();
    if placement == Placement::Controllers {
        ranks.sort_by_key(|&r| {
            let core = platform.participant(r);
            (chip.controller_of(chip.tile_of(core)), core.index())
        });
    }
    ranks
}

/// The processes' communicator, as `procs` and `placement` choose them:
/// `None` on a core that takes no part.
fn processes(platform: &Platform, procs: u32, placement: Placement) -> Result<Option<Rma<'_, Platform>>, String> {
    let mut world = communicator(platform)?;
    let n = world.size();
    let procs = if procs == 0 { n } else { procs };
    if procs > n {
        return Err(format!("procs={procs} but only {n} cores run"));
    }
    let order = placed(platform, placement);
    let me = world.rank();
    let place = order
        .iter()
        .position(|&r| r == me)
        .expect("every rank is placed");
    let color = (place < procs as usize).then_some(0);
    let comm = world
        .split(color, place as i32)
        .map_err(fail("splitting off the processes"))?;
    comm.map(|c| Rma::new(c).map_err(|e| format!("rma: {e}")))
        .transpose()
}

pub fn run(platform: &Platform, settings: Settings) -> Result<(), String> {
    let full = if settings.puts {
        FULL_SCALING
    } else {
        FULL_DATABASE
    };
    let size = settings.scale.pick(QUICK, full);
    let database = settings.database;
    let puts = settings.puts;
    let Some(mut rma) = processes(platform, settings.procs, settings.placement)? else {
        return Ok(());
    };
    let (n, me) = (rma.size(), rma.rank());
    if size.rows < n {
        return Err(format!(
            "the grid's {} rows cannot be split over {n} cores",
            size.rows
        ));
    }
    let (first, rows) = rows_of(size, n, me);
    let w = size.width as usize;
    let (up, down) = ((me + n - 1) % n, (me + 1) % n);
    let mut neighbours = vec![up];
    if down != up {
        neighbours.push(down);
    }
    let ring = Ring {
        group: (rma.comm().group().incl(&neighbours)).map_err(fail("neighbour group"))?,
        up,
        down,
    };
    let options = WindowOptions::new().database(database);
    let halos = [
        rma.allocate::<u8>(2 * size.width, options)
            .map_err(fail("allocating a halo window"))?,
        rma.allocate::<u8>(2 * size.width, options)
            .map_err(fail("allocating a halo window"))?,
    ];

    // This core's rows with a halo row above and below.
    let mut grid = seeded(size, first, rows);
    let mut next = grid.clone();
    let (mut compute, mut communicate) = (0u64, 0u64);
    let mut generation_cycles = vec![0u64; size.generations as usize];
    rma.comm().barrier();
    for (generation, cycles) in generation_cycles.iter_mut().enumerate() {
        let t0 = platform.cycles();
        let win = halos[generation % 2];
        exchange(&mut rma, win, &ring, &grid, rows, w, puts)?;
        rma.local_read(win, 0, &mut grid[..w])
            .map_err(fail("reading the top halo"))?;
        let bottom = (rows as usize + 1) * w;
        rma.local_read(win, size.width, &mut grid[bottom..bottom + w])
            .map_err(fail("reading the bottom halo"))?;
        let t1 = platform.cycles();
        step(&grid, &mut next, rows, w);
        core::mem::swap(&mut grid, &mut next);
        let t2 = platform.cycles();
        compute += t2 - t1;
        communicate += t1 - t0;
        *cycles = t2 - t0;
    }
    drop(next);
    let slowest = slowest_rank(&mut rma, generation_cycles.iter().sum())?;

    let mine = &grid[w..(rows as usize + 1) * w];
    let checked = if puts {
        verify_cone(&mut rma, mine, size)?
    } else {
        verify_alone(&mut rma, mine, size)?
    };
    let mut totals = Vec::new();
    for (k, &win) in halos.iter().enumerate() {
        let stats = rma.stats(win).map_err(fail("statistics"))?;
        totals.push(sum_over_cores(&mut rma, stats)?);
        if me == 0 {
            kernel::println!("stencil window {k} (core 0): {}", stats_line(&stats));
        }
    }
    let database = name_of(database);
    if me == 0 {
        kernel::println!(
            "stencil: {}x{} torus, {} generations on {n} cores, {database} window database, {checked}",
            size.rows,
            size.width,
            size.generations,
        );
        for (k, total) in totals.iter().enumerate() {
            kernel::println!("stencil window {k} (all cores): {}", stats_line(total));
        }
        kernel::println!(
            "stencil core 0: {} kcycles computing, {} kcycles exchanging halos (its clock: modelled SCC time under the emulator's timing)",
            compute / 1000,
            communicate / 1000
        );
    }
    if me == slowest {
        let (experiment, puts) = if puts {
            ("stencil-scaling", "on")
        } else {
            ("window-database", "off")
        };
        emit(
            experiment,
            &format!("procs={n} database={database} puts={puts}"),
            None,
            &generation_cycles,
        );
    }
    for win in halos {
        rma.free(win).map_err(fail("freeing a halo window"))?;
    }
    Ok(())
}

/// One halo exchange on `win`: expose to both neighbours, put the first
/// row up and the last row down (rows of `w` cells) if `puts`, close both
/// epochs.
fn exchange(
    rma: &mut Rma<'_, Platform>,
    win: Window<u8>,
    ring: &Ring,
    grid: &[u8],
    rows: u32,
    w: usize,
    puts: bool,
) -> Result<(), String> {
    rma.post(win, &ring.group, Assert::NOSTORE)
        .map_err(fail("post"))?;
    rma.start(win, &ring.group, Assert::NONE)
        .map_err(fail("start"))?;
    if puts {
        // The core above gets this core's first row below its last.
        rma.put(win, ring.up, w as u32, &grid[w..2 * w])
            .map_err(fail("put up"))?;
        let last = rows as usize * w;
        rma.put(win, ring.down, 0, &grid[last..last + w])
            .map_err(fail("put down"))?;
    }
    rma.complete(win).map_err(fail("complete"))?;
    rma.wait(win).map_err(fail("wait"))
}

/// The rank whose generations took the most cycles in all (`mine` on this
/// core), the lowest of a tie, as every core learns it.
fn slowest_rank(rma: &mut Rma<'_, Platform>, mine: u64) -> Result<u32, String> {
    let mut most = [mine];
    rma.comm()
        .allreduce(&mut most, ReduceOp::Max)
        .map_err(|e| format!("allreduce: {e}"))?;
    let mut rank = [if mine == most[0] {
        rma.rank()
    } else {
        rma.size()
    }];
    rma.comm()
        .allreduce(&mut rank, ReduceOp::Min)
        .map_err(|e| format!("allreduce: {e}"))?;
    Ok(rank[0])
}

/// `Err` on every core if any core counted a wrong cell in `wrong`.
fn agree(rma: &mut Rma<'_, Platform>, wrong: u32, against: &str) -> Result<(), String> {
    let mut flag = [wrong];
    rma.comm()
        .allreduce(&mut flag, ReduceOp::Sum)
        .map_err(|e| format!("allreduce: {e}"))?;
    if flag[0] > 0 {
        return Err(format!("{} cells differ from {against}", flag[0]));
    }
    Ok(())
}

/// The number of cells where `got` and `expected` (rows of `w` cells)
/// differ, printing the first (`first_row`: the grid row of `got`'s first
/// cell).
fn differences(got: &[u8], expected: &[u8], first_row: u32, w: usize) -> u32 {
    let Some(k) = (0..got.len()).find(|&k| got[k] != expected[k]) else {
        return 0;
    };
    kernel::println!(
        "check failed: cell ({}, {}) is {}, the serial run has {}",
        first_row as usize + k / w,
        k % w,
        got[k],
        expected[k]
    );
    got.iter().zip(expected).filter(|(a, b)| a != b).count() as u32
}

/// Each core compares its rows with a serial run of the rows they depend
/// on ([`serial_cone`]); returns what was checked. Fails on every core if
/// a cell differs anywhere or the automaton did not evolve.
fn verify_cone(rma: &mut Rma<'_, Platform>, mine: &[u8], size: Size) -> Result<String, String> {
    let (first, rows) = rows_of(size, rma.size(), rma.rank());
    let w = size.width as usize;
    let wrong = differences(mine, &serial_cone(size, first, rows), first, w);
    let changed = (mine.iter().enumerate())
        .filter(|&(k, &cell)| cell != seed(first + (k / w) as u32, (k % w) as u32))
        .count() as u32;
    let mut counts = [population(mine), changed];
    rma.comm()
        .allreduce(&mut counts, ReduceOp::Sum)
        .map_err(|e| format!("allreduce: {e}"))?;
    let [live, changed] = counts;
    let still = u32::from(live == 0 || changed == 0);
    if still > 0 && rma.rank() == 0 {
        kernel::println!("check failed: the automaton did not evolve");
    }
    agree(rma, wrong + still, "the serial run")?;
    Ok(format!(
        "halo rows by put under post/start/complete/wait: every core's rows verified against a serial run of the rows they depend on ({live} of {} cells alive)",
        size.rows * size.width
    ))
}

/// Rows `first..first + rows` of the torus after the generations of
/// `size`, on one core, from the rows they depend on: a cell after `g`
/// generations depends only on the cells within `g` rows of it, so the
/// run starts from the seeded rows `g` beyond each end (wrapping around
/// the torus) between zero halos, whose wrong values reach no wanted row
/// in time. When that span is the whole torus, the whole torus is run.
fn serial_cone(size: Size, first: u32, rows: u32) -> Vec<u8> {
    let g = size.generations;
    if rows + 2 * g >= size.rows {
        let whole = serial(size, 0, size.rows, true);
        if rows == size.rows {
            return whole;
        }
        let w = size.width as usize;
        return whole[first as usize * w..][..rows as usize * w].to_vec();
    }
    let w = size.width as usize;
    let span = rows + 2 * g;
    let mut grid = vec![0u8; (span as usize + 2) * w];
    for r in 0..span {
        let row = (first + size.rows - g + r) % size.rows;
        for c in 0..size.width {
            grid[(r as usize + 1) * w + c as usize] = seed(row, c);
        }
    }
    let mut next = grid.clone();
    for _ in 0..g {
        step(&grid, &mut next, span, w);
        core::mem::swap(&mut grid, &mut next);
    }
    drop(next);
    grid.truncate((g + rows + 1) as usize * w);
    grid.drain(..(g as usize + 1) * w);
    grid
}

/// Each core compares its rows with a serial run of them between zero
/// halos, as they stay without puts; returns what was checked.
fn verify_alone(rma: &mut Rma<'_, Platform>, mine: &[u8], size: Size) -> Result<String, String> {
    let (first, rows) = rows_of(size, rma.size(), rma.rank());
    let w = size.width as usize;
    let wrong = differences(mine, &serial(size, first, rows, false), first, w);
    agree(rma, wrong, "the serial run of their core's rows")?;
    Ok(String::from(
        "puts removed, only post/start/complete/wait: every core's rows verified against a serial run of them between zero halos",
    ))
}

/// Rows `first..first + rows` after the generations of `size`, on one
/// core: with `wrap`, the halos are copies of the other end's rows (the
/// whole torus when the rows are all of them); without, they stay zero.
fn serial(size: Size, first: u32, rows: u32, wrap: bool) -> Vec<u8> {
    let w = size.width as usize;
    let r = rows as usize;
    let mut grid = seeded(size, first, rows);
    let mut next = grid.clone();
    for _ in 0..size.generations {
        if wrap {
            grid.copy_within(r * w..(r + 1) * w, 0);
            grid.copy_within(w..2 * w, (r + 1) * w);
        }
        step(&grid, &mut next, rows, w);
        core::mem::swap(&mut grid, &mut next);
    }
    grid.truncate((r + 1) * w);
    grid.drain(..w);
    grid
}

/// A window's statistics summed over all cores.
fn sum_over_cores(rma: &mut Rma<'_, Platform>, s: WindowStats) -> Result<WindowStats, String> {
    let mut v = s.to_array();
    rma.comm()
        .allreduce(&mut v, ReduceOp::Sum)
        .map_err(|e| format!("allreduce: {e}"))?;
    Ok(WindowStats::from_array(v))
}
