// SPDX-License-Identifier: MIT OR Apache-2.0
//! Betweenness centrality on the global address space (SSCA#2 kernel 4,
//! the irregular-manycore thesis's third kernel), by Brandes' algorithm
//! from `sources` sources over SSCA#2's R-MAT graph of `2^scale`
//! vertices and `edge-factor × 2^scale` directed edges ([`gas::graph`]).
//!
//! Every core makes every edge (edge `k` from the seed and `k` alone, no
//! communication) and keeps the out- and in-edges of the whole graph; in
//! the parallel part it walks only the edges of the vertices it owns (the
//! elements of its part of the global arrays). Three global `u64` arrays
//! of one layout (`dist`, `over`) hold each vertex's level + 1, its
//! shortest-path count σ and its dependency δ (fixed point, 32 fraction
//! bits). For each source:
//! - forward, level by level: every core scans its part for the frontier,
//!   shares it among its `tasks` tasks, and each task visits every
//!   out-edge `u → w` of its vertices: claims `w` for the next level and,
//!   if `w` is on it, adds σ(u) to σ(w). `variant=atomic`: a
//!   compare-and-swap of the level, a fetch-and-add of σ; `variant=lock`:
//!   get and put of both under the lock of `w`'s block of `block`
//!   vertices;
//! - backward, from the deepest level up: for each own vertex `w` and
//!   each in-edge `v → w` with `v` one level up, a task reads σ(v) and adds
//!   `⌊σ(v)(1 + δ(w))/σ(w)⌋` to δ(v) (fetch-and-add, or get and put under
//!   `v`'s lock);
//! - each core adds δ of its vertices (the source's aside) to their
//!   centrality, which it keeps, and clears its part of the arrays.
//!
//! A level ends with a flush and a barrier. The terms are integers, so
//! their sums do not depend on the order the cores add them in: every
//! core checks its part of the centrality bit for bit against a serial
//! fixed-point Brandes computation of the same graph, and within
//! [`gas::graph::tolerance`] of a serial `f64` one. Results: `BENCH
//! gas-bc cores=<p> tasks=<t> variant=<v> dist=<d> ops=<m> cycles=<c>`
//! from every core (`m` the mean out-edges traversed per core, summed
//! over the sources; `c` the modelled cycles of all the sources), and from
//! core 0 a summary, the least and most edges and cycles in flushes and
//! barriers of a core, the lock statistics and the request hot spots.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};

use gas::exec::Executor;
use gas::graph::{self, Csr, Rmat, share};
use gas::{Counters, Gas, GlobalArray, GlobalPtr, relative_std_dev};
use kernel::Platform;
use kernel::chip::settings::{Choice, choice, integer};
use rma::comm::ReduceOp;

use super::bfs::Variant;
use super::{Dist, Over, all_requests, hot_spots, space, summed};
use crate::bench::emit;

kernel::chip::settings! {
    /// gas-bc's settings.
    pub struct Settings {
        /// log2 of the vertex count (SSCA#2's SCALE)
        scale: u32 = integer(2..=20, "8"),
        /// edges per vertex (SSCA#2: 8)
        edge_factor: u32 = integer(1..=64, "8"),
        /// source vertices of the centrality (the thesis: 256)
        sources: u32 = integer(1..=1 << 20, "4"),
        /// atomic: compare-and-swap and fetch-and-add; lock: get and put under a lock per vertex block
        variant: Variant = choice::<Variant>("atomic"),
        /// lock: vertices per lock
        block: u32 = integer(1..=1 << 20, "16"),
        /// tasks per core
        tasks: u32 = integer(1..=64, "4"),
        /// how the arrays' lines are spread over the cores: block, cyclic or hashed
        dist: Dist = choice::<Dist>("hashed"),
        /// owners in rank order, or interleaved over the memory controllers
        over: Over = choice::<Over>("owners"),
        /// seed of the graph and of the sources
        seed: u32 = integer(0..=u32::MAX as u64, "1"),
    }
}

/// The global arrays of one computation and the graph.
struct Shared<'a, 'h> {
    platform: &'a Platform,
    gas: &'a Gas<'h, Platform>,
    level: &'a GlobalArray<u64>,
    sigma: &'a GlobalArray<u64>,
    delta: &'a GlobalArray<u64>,
    locks: &'a GlobalArray<u32>,
    out: &'a Csr,
    inn: &'a Csr,
    s: &'a Settings,
    /// Cycles this core spent in [`sync`].
    waited: Cell<u64>,
}

/// What a core's tasks did in one level.
#[derive(Debug, Default)]
struct Tally {
    edges: Cell<u64>,
    reached: Cell<u64>,
    failure: RefCell<Option<String>>,
}

/// An own vertex: its offset in the part and its number.
#[derive(Debug, Clone, Copy)]
struct Own {
    offset: u32,
    vertex: u32,
}

pub fn run(platform: &Platform, s: Settings) -> Result<(), String> {
    let gas = space(platform)?;
    let (me, cores) = (gas.rank(), gas.size());
    let rmat = Rmat {
        scale: s.scale,
        edge_factor: s.edge_factor,
        seed: s.seed,
    };
    let n = rmat.vertices();
    let edges = rmat.all_edges();
    let out = Csr::new(n, &edges, false);
    let inn = Csr::new(n, &edges, true);
    drop(edges);
    let sources = graph::sources(&out, s.sources, s.seed).ok_or_else(|| {
        let with = (0..n).filter(|&v| out.degree(v) > 0).count();
        format!(
            "{} sources asked for, but only {with} of the {n} vertices have an out-edge",
            s.sources
        )
    })?;
    let (dist, over) = (s.dist.0, s.over.0);
    let array = |what: &str| {
        gas.allocate::<u64>(u64::from(n), dist, over)
            .map_err(|e| format!("allocating the {what} array of {n} vertices: {e}"))
    };
    let (level, sigma, delta) = (
        array("level")?,
        array("path-count")?,
        array("dependency")?,
    );
    let lock_count = n.div_ceil(s.block);
    let locks: GlobalArray<u32> = gas
        .allocate(u64::from(lock_count), gas::Distribution::Cyclic, over)
        .map_err(|e| format!("allocating {lock_count} locks: {e}"))?;
    let part = level.layout().part_len();
    let own: Vec<Own> = (0..part)
        .filter_map(|offset| {
            level
                .layout()
                .index_of(GlobalPtr { owner: me, offset })
                .map(|v| Own {
                    offset,
                    vertex: v as u32,
                })
        })
        .collect();
    let sh = Shared {
        platform,
        gas: &gas,
        level: &level,
        sigma: &sigma,
        delta: &delta,
        locks: &locks,
        out: &out,
        inn: &inn,
        s: &s,
        waited: Cell::new(0),
    };
    let mut centrality = vec![0u64; part as usize];
    let mut edges_mine = 0u64;
    let mut deepest = 0u32;
    gas.barrier();
    gas.clear_counters();
    let begin = platform.now();
    for &source in &sources {
        let (edges, levels) = one_source(&sh, &own, source, &mut centrality)
            .map_err(|e| format!("source {source}: {e}"))?;
        edges_mine += edges;
        deepest = deepest.max(levels);
    }
    let cycles = platform.now() - begin;
    let name = Variant::NAMES[usize::from(s.variant == Variant::Lock)];
    // Checks against the serial computations.
    let want = graph::brandes_fixed(&out, &sources).map_err(|e| format!("serial Brandes: {e}"))?;
    let float = graph::brandes_f64(&out, &sources).map_err(|e| format!("serial Brandes: {e}"))?;
    let mut worst = 0f64;
    for o in &own {
        let (got, v) = (centrality[o.offset as usize], o.vertex);
        if got != want.centrality[v as usize] {
            return Err(format!(
                "vertex {v}: centrality {got} (fixed point), the serial computation says {}",
                want.centrality[v as usize]
            ));
        }
        let exact = float[v as usize];
        let off = (graph::to_f64(got) - exact).abs();
        if off > graph::tolerance(s.sources, rmat.edges(), exact) {
            return Err(format!(
                "vertex {v}: centrality {} is {off:e} from the f64 computation's {exact}",
                graph::to_f64(got)
            ));
        }
        worst = worst.max(off);
    }
    let edges_all = summed(&gas, &[edges_mine])?[0];
    if edges_all != want.edges {
        return Err(format!(
            "{edges_all} edges traversed, the serial computation traverses {}",
            want.edges
        ));
    }
    if deepest != want.levels {
        return Err(format!(
            "{deepest} levels at most, the serial computation has {}",
            want.levels
        ));
    }
    emit(
        "gas-bc",
        &format!(
            "cores={cores} tasks={} variant={name} dist={}{} ops={}",
            s.tasks,
            dist.name(),
            super::chip_key(platform),
            edges_all / u64::from(cores)
        ),
        None,
        &[cycles],
    );
    // The slowest core's time; the least and most edges and cycles in
    // flushes and barriers of a core.
    let extreme = |v: u64, op: ReduceOp| -> Result<u64, String> {
        let mut v = [v];
        gas.rma()
            .comm()
            .allreduce(&mut v, op)
            .map_err(|e| format!("reducing over the cores: {e}"))?;
        Ok(v[0])
    };
    let slowest = extreme(cycles, ReduceOp::Max)?;
    let edges_spread = (
        extreme(edges_mine, ReduceOp::Min)?,
        extreme(edges_mine, ReduceOp::Max)?,
    );
    let waited = sh.waited.get();
    let waited_spread = (
        extreme(waited, ReduceOp::Min)?,
        extreme(waited, ReduceOp::Max)?,
    );
    let locks_now = gas.lock_stats();
    let acq_spins = summed(&gas, &[locks_now.acquisitions, locks_now.spins])?;
    let mut attempts = Counters::new(gas.controller_of());
    attempts.add(&summed(&gas, locks_now.attempts.targets())?);
    let all = all_requests(&gas, &gas.counters())?;
    gas.free(locks).map_err(|e| format!("freeing the locks: {e}"))?;
    for (what, a) in [("level", level), ("path-count", sigma), ("dependency", delta)] {
        gas.free(a)
            .map_err(|e| format!("freeing the {what} array: {e}"))?;
    }
    if me == 0 {
        let (top, most) = want
            .centrality
            .iter()
            .enumerate()
            .max_by_key(|&(v, &c)| (c, core::cmp::Reverse(v)))
            .map(|(v, &c)| (v, graph::to_f64(c)))
            .unwrap_or((0, 0.0));
        let milli = (acq_spins[1] * 1000).checked_div(acq_spins[0]).unwrap_or(0);
        let spins = format!("{}.{:03}", milli / 1000, milli % 1000);
        kernel::println!(
            "gas-bc: {cores} cores, {} tasks each, variant={name}, R-MAT scale {} ({n} vertices, {} edges), {} sources, {deepest} levels at most, {edges_all} edges traversed in {slowest} cycles on the slowest core; centrality identical to the serial Brandes computation (largest {most:.3} at vertex {top})",
            s.tasks,
            s.scale,
            rmat.edges(),
            s.sources
        );
        kernel::println!(
            "gas-bc: out-edges per core {}..={}; cycles in flushes and barriers per core {}..={} ({} to {} per cent of the slowest core's)",
            edges_spread.0,
            edges_spread.1,
            waited_spread.0,
            waited_spread.1,
            waited_spread.0 * 100 / slowest.max(1),
            waited_spread.1 * 100 / slowest.max(1)
        );
        kernel::println!(
            "gas-bc: locks: {} acquisitions, {spins} spins per acquisition, attempts {} (rsd {} per mille over targets); {}",
            acq_spins[0],
            attempts.total(),
            relative_std_dev(attempts.targets()),
            hot_spots(&all, gas.controller_of())
        );
    }
    // Every core's largest distance from the f64 centrality, for the log.
    kernel::println!(
        "gas-bc: core {me}: {} vertices checked, at most {worst:e} from the f64 computation",
        own.len()
    );
    Ok(())
}

/// Flushes this core's puts to the arrays and meets the other cores.
fn sync(sh: &Shared<'_, '_>, what: &str) -> Result<(), String> {
    let start = sh.platform.now();
    for a in [sh.level, sh.sigma, sh.delta] {
        sh.gas
            .rma()
            .flush_all(a.window())
            .map_err(|e| format!("{what}: {e}"))?;
    }
    sh.gas.barrier();
    sh.waited.set(sh.waited.get() + sh.platform.now() - start);
    Ok(())
}

/// Runs `ex`'s tasks and returns the first failure of `tally`.
fn finish(ex: Executor<'_>, tally: &Tally) -> Result<(), String> {
    let mut ex = ex;
    ex.run();
    drop(ex);
    match tally.failure.borrow_mut().take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Brandes' algorithm from `source`: adds this core's vertices'
/// dependencies to `centrality`; returns the out-edges this core
/// traversed and the levels of the search.
fn one_source(
    sh: &Shared<'_, '_>,
    own: &[Own],
    source: u32,
    centrality: &mut [u64],
) -> Result<(u64, u32), String> {
    let (gas, me) = (sh.gas, sh.gas.rank());
    let part = sh.level.layout().part_len() as usize;
    if sh.level.layout().locate(u64::from(source)).owner == me {
        gas.put(sh.level, u64::from(source), 1)
            .and_then(|()| gas.put(sh.sigma, u64::from(source), 1))
            .map_err(|e| format!("storing the source: {e}"))?;
    }
    sync(sh, "publishing the source")?;
    let (mut lv, mut sg, mut dl) = (vec![0u64; part], vec![0u64; part], vec![0u64; part]);
    // Own vertices of each level (index 0: level 1, the source's).
    let mut levels: Vec<Vec<Own>> = Vec::new();
    let tally = Tally::default();
    let mut depth = 1u64;
    loop {
        gas.get_part(sh.level, me, 0, &mut lv)
            .and_then(|()| gas.get_part(sh.sigma, me, 0, &mut sg))
            .map_err(|e| format!("reading the own part at level {depth}: {e}"))?;
        let frontier: Vec<Own> = own
            .iter()
            .copied()
            .filter(|o| lv[o.offset as usize] == depth)
            .collect();
        tally.reached.set(0);
        let mut ex = Executor::new();
        for t in 0..sh.s.tasks {
            let (tally, frontier, sg) = (&tally, &frontier, &sg);
            ex.spawn(async move {
                let mine = frontier.iter().skip(t as usize).step_by(sh.s.tasks as usize);
                for o in mine {
                    let sigma_u = sg[o.offset as usize];
                    if let Err(e) = forward(sh, o.vertex, sigma_u, depth + 1, tally).await {
                        *tally.failure.borrow_mut() =
                            Some(format!("task {t}, vertex {}: {e}", o.vertex));
                        return;
                    }
                }
            });
        }
        finish(ex, &tally)?;
        levels.push(frontier);
        sync(sh, &format!("ending level {depth}"))?;
        if summed(gas, &[tally.reached.get()])?[0] == 0 {
            break;
        }
        depth += 1;
    }
    // σ is final now; δ of a level is final once the level below is done.
    gas.get_part(sh.sigma, me, 0, &mut sg)
        .map_err(|e| format!("reading the own path counts: {e}"))?;
    for d in (2..=depth).rev() {
        gas.get_part(sh.delta, me, 0, &mut dl)
            .map_err(|e| format!("reading the own dependencies at level {d}: {e}"))?;
        let mut ex = Executor::new();
        for t in 0..sh.s.tasks {
            let (tally, frontier, sg, dl) = (&tally, &levels[d as usize - 1], &sg, &dl);
            ex.spawn(async move {
                let mine = frontier.iter().skip(t as usize).step_by(sh.s.tasks as usize);
                for o in mine {
                    let (sw, dw) = (sg[o.offset as usize], dl[o.offset as usize]);
                    if let Err(e) = backward(sh, o.vertex, sw, dw, d - 1).await {
                        *tally.failure.borrow_mut() =
                            Some(format!("task {t}, vertex {}: {e}", o.vertex));
                        return;
                    }
                }
            });
        }
        finish(ex, &tally)?;
        sync(sh, &format!("ending the way back at level {d}"))?;
    }
    gas.get_part(sh.delta, me, 0, &mut dl)
        .map_err(|e| format!("reading the own dependencies: {e}"))?;
    for o in own {
        let i = o.offset as usize;
        if lv[i] != 0 && o.vertex != source {
            centrality[i] = centrality[i]
                .checked_add(dl[i])
                .ok_or_else(|| format!("the centrality of vertex {} overflows", o.vertex))?;
        }
    }
    // Clear the own parts for the next source.
    let zero = vec![0u64; part];
    for a in [sh.level, sh.sigma, sh.delta] {
        gas.put_part(a, me, 0, &zero)
            .map_err(|e| format!("clearing the own part: {e}"))?;
    }
    sync(sh, "clearing the arrays")?;
    Ok((tally.edges.get(), depth as u32))
}

/// Visits every out-edge of `u` (σ(u) = `sigma_u`, on level `next - 1`):
/// claims unreached destinations for level `next` and adds σ(u) to the
/// path count of every destination on it.
async fn forward(
    sh: &Shared<'_, '_>,
    u: u32,
    sigma_u: u64,
    next: u64,
    tally: &Tally,
) -> Result<(), String> {
    let gas = sh.gas;
    for &w in sh.out.of(u) {
        tally.edges.set(tally.edges.get() + 1);
        let w64 = u64::from(w);
        let old = match sh.s.variant {
            Variant::Atomic => {
                let old = gas
                    .compare_swap_nb(sh.level, w64, next, 0)
                    .map_err(|e| format!("swap of {w}: {e}"))?
                    .await
                    .map_err(|e| format!("swap of {w}: {e}"))?;
                if old == 0 || old == next {
                    gas.fetch_add_nb(sh.sigma, w64, sigma_u)
                        .map_err(|e| format!("add to {w}: {e}"))?
                        .await
                        .map_err(|e| format!("add to {w}: {e}"))?;
                }
                old
            }
            Variant::Lock => {
                let lock = u64::from(w / sh.s.block);
                gas.acquire(sh.locks, lock)
                    .await
                    .map_err(|e| format!("lock {lock}: {e}"))?;
                let old = gas
                    .get_nb(sh.level, w64)
                    .map_err(|e| format!("get of {w}: {e}"))?
                    .await
                    .map_err(|e| format!("get of {w}: {e}"))?;
                if old == 0 || old == next {
                    let count = gas
                        .get_nb(sh.sigma, w64)
                        .map_err(|e| format!("get of {w}: {e}"))?
                        .await
                        .map_err(|e| format!("get of {w}: {e}"))?;
                    if old == 0 {
                        gas.put(sh.level, w64, next)
                            .map_err(|e| format!("put of {w}: {e}"))?;
                    }
                    gas.put(sh.sigma, w64, count.wrapping_add(sigma_u))
                        .map_err(|e| format!("put of {w}: {e}"))?;
                }
                gas.release(sh.locks, lock)
                    .map_err(|e| format!("lock {lock}: {e}"))?;
                old
            }
        };
        if old > next {
            return Err(format!("vertex {w} was at level+1 {old}, beyond {next}"));
        }
        if old == 0 {
            tally.reached.set(tally.reached.get() + 1);
        }
    }
    Ok(())
}

/// Adds `w`'s share to the dependency of every in-neighbour of `w` on
/// level `up` (level + 1 stored); σ(w) = `sigma_w`, δ(w) = `delta_w`.
async fn backward(
    sh: &Shared<'_, '_>,
    w: u32,
    sigma_w: u64,
    delta_w: u64,
    up: u64,
) -> Result<(), String> {
    let gas = sh.gas;
    for &v in sh.inn.of(w) {
        let v64 = u64::from(v);
        let at = gas
            .get_nb(sh.level, v64)
            .map_err(|e| format!("get of {v}: {e}"))?
            .await
            .map_err(|e| format!("get of {v}: {e}"))?;
        if at != up {
            continue;
        }
        let sigma_v = gas
            .get_nb(sh.sigma, v64)
            .map_err(|e| format!("get of {v}: {e}"))?
            .await
            .map_err(|e| format!("get of {v}: {e}"))?;
        if sigma_v == 0 || sigma_v > sigma_w {
            return Err(format!(
                "vertex {v} counts {sigma_v} paths, its successor {w} {sigma_w}"
            ));
        }
        let term = share(sigma_v, sigma_w, delta_w);
        match sh.s.variant {
            Variant::Atomic => {
                gas.fetch_add_nb(sh.delta, v64, term)
                    .map_err(|e| format!("add to {v}: {e}"))?
                    .await
                    .map_err(|e| format!("add to {v}: {e}"))?;
            }
            Variant::Lock => {
                let lock = u64::from(v / sh.s.block);
                gas.acquire(sh.locks, lock)
                    .await
                    .map_err(|e| format!("lock {lock}: {e}"))?;
                let old = gas
                    .get_nb(sh.delta, v64)
                    .map_err(|e| format!("get of {v}: {e}"))?
                    .await
                    .map_err(|e| format!("get of {v}: {e}"))?;
                gas.put(sh.delta, v64, old.wrapping_add(term))
                    .map_err(|e| format!("put of {v}: {e}"))?;
                gas.release(sh.locks, lock)
                    .map_err(|e| format!("lock {lock}: {e}"))?;
            }
        }
    }
    Ok(())
}
