// SPDX-License-Identifier: MIT OR Apache-2.0
//! Breadth-first search on the global address space (the
//! irregular-manycore thesis's second kernel): a uniform random graph of
//! `vertices` vertices, each with an out-degree uniform in
//! `1..=max-degree` and uniform destinations (vertex `v`'s edges come from
//! a generator seeded with `seed` and `v`, so any core makes any vertex's
//! edges alike). The level array is a global array (0: not reached, else
//! level + 1); level by level, every core scans its own part for the
//! frontier, shares it among its `tasks` tasks, and each task visits every
//! edge of its vertices:
//! - `variant=atomic`: a split-phase compare-and-swap of the destination's
//!   level from 0 to the next level;
//! - `variant=lock`: the lock of the destination's block of `block`
//!   vertices (a global array of lock words, taken by compare-and-swap; a
//!   failed attempt yields to the other tasks), a get of its level, a put
//!   of the next one if it was 0, the release.
//!
//! A level ends with a flush and a barrier; the search ends when a level
//! reaches no vertex. Every core then checks its part of the level array
//! against a serial BFS of the whole graph, and the vertices reached
//! against the serial count. Results: `BENCH gas-bfs cores=<p>
//! tasks=<t> variant=<v> dist=<d> ops=<m> cycles=<c>` from every
//! core (`m` the mean edges per core, the modelled cycles of its search), and from
//! core 0 a summary with the lock spins per acquisition, the lock attempts
//! per target and the requests per target and controller with their
//! relative standard deviations (per mille).
//!
//! For the analytical model (`xtask/src/bench/model.rs`), every core also
//! prints each level's edges and cycles (`BENCH gas-bfs-level ... rank=<r>
//! level=<k> ops=<edges> cycles=<c>`: the workload), and core 0 the
//! primitives it measured alone before the search ([`primitives`]).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};

use gas::exec::Executor;
use gas::{Counters, Gas, GlobalArray, GlobalPtr, relative_std_dev};
use kernel::Platform;
use kernel::chip::settings::{Choice, choice, integer};
use rma::comm::ReduceOp;

use super::{Dist, Over, all_requests, hot_spots, space, summed, time_switches};
use crate::bench::{Rng, emit};

/// How a task claims a vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Compare-and-swap on the level.
    Atomic,
    /// Get and put under the vertex block's lock.
    Lock,
}

impl Choice for Variant {
    const ALL: &'static [Self] = &[Self::Atomic, Self::Lock];
    const NAMES: &'static [&'static str] = &["atomic", "lock"];
}

kernel::chip::settings! {
    /// gas-bfs's settings.
    pub struct Settings {
        /// vertices of the graph (the thesis: 100000)
        vertices: u32 = integer(2..=1 << 20, "2048"),
        /// out-degrees are uniform in 1..=max-degree (the thesis: 80)
        max_degree: u32 = integer(1..=1000, "80"),
        /// atomic: compare-and-swap on the level array; lock: get and put under a lock per vertex block
        variant: Variant = choice::<Variant>("atomic"),
        /// lock: vertices per lock
        block: u32 = integer(1..=1 << 20, "16"),
        /// tasks per core
        tasks: u32 = integer(1..=64, "4"),
        /// how the level array's lines are spread over the cores: block, cyclic or hashed
        dist: Dist = choice::<Dist>("hashed"),
        /// owners in rank order, or interleaved over the memory controllers
        over: Over = choice::<Over>("owners"),
        /// seed of the graph
        seed: u32 = integer(0..=u32::MAX as u64, "1"),
    }
}

/// The edges of vertex `v`.
fn edges(v: u32, vertices: u32, max_degree: u32, seed: u32) -> Vec<u32> {
    let mut rng = Rng::new((u64::from(seed) << 32) ^ u64::from(v) ^ 0x5151_0000_0000_0000);
    let degree = 1 + rng.below(max_degree);
    (0..degree).map(|_| rng.below(vertices)).collect()
}

/// The serial BFS from vertex 0: each vertex's level + 1, 0 if unreached.
fn serial(vertices: u32, max_degree: u32, seed: u32) -> Vec<u32> {
    let mut level = vec![0u32; vertices as usize];
    level[0] = 1;
    let mut frontier = vec![0u32];
    let mut d = 1;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &u in &frontier {
            for w in edges(u, vertices, max_degree, seed) {
                if level[w as usize] == 0 {
                    level[w as usize] = d + 1;
                    next.push(w);
                }
            }
        }
        frontier = next;
        d += 1;
    }
    level
}

/// What a core's tasks did in one level.
#[derive(Debug, Default)]
struct Tally {
    edges: Cell<u64>,
    reached: Cell<u64>,
    failure: RefCell<Option<String>>,
}

pub fn run(platform: &Platform, s: Settings) -> Result<(), String> {
    let gas = space(platform)?;
    let (me, cores) = (gas.rank(), gas.size());
    let n = s.vertices;
    let (dist, over) = (s.dist.0, s.over.0);
    let level: GlobalArray<u32> = gas
        .allocate(u64::from(n), dist, over)
        .map_err(|e| format!("allocating the level array of {n} vertices: {e}"))?;
    let locks: GlobalArray<u32> = gas
        .allocate(u64::from(n.div_ceil(s.block)), gas::Distribution::Cyclic, over)
        .map_err(|e| format!("allocating {} locks: {e}", n.div_ceil(s.block)))?;
    if level.layout().locate(0).owner == me {
        gas.put(&level, 0, 1)
            .map_err(|e| format!("storing the root's level: {e}"))?;
    }
    gas.flush_and_barrier(&level)
        .map_err(|e| format!("publishing the root: {e}"))?;
    // One untimed get from every part of both arrays first: the first
    // access to a part maps it (a LUT entry), which is no part of the
    // search's rate (as in gas-chase).
    let mut first = [0u32];
    for owner in 0..cores {
        gas.get_part(&level, owner, 0, &mut first)
            .map_err(|e| format!("the first get from core {owner}'s part: {e}"))?;
        gas.get_part(&locks, owner, 0, &mut first)
            .map_err(|e| format!("the first get from core {owner}'s locks: {e}"))?;
    }
    barrier_primitive(platform, &gas, &level, &s)?;
    gas.clear_counters();
    let part = level.layout().part_len();
    let mut mine = vec![0u32; part as usize];
    let tally = Tally::default();
    let mut reached_all = 1u64;
    let mut depth = 1;
    // Each level's edges and cycles on this core.
    let mut levels: Vec<(u64, u64)> = Vec::new();
    let begin = platform.now();
    loop {
        let level_begin = platform.now();
        let edges_before = tally.edges.get();
        gas.get_part(&level, me, 0, &mut mine)
            .map_err(|e| format!("reading the own part at level {depth}: {e}"))?;
        let frontier: Vec<u32> = (0..part)
            .filter(|&off| mine[off as usize] == depth)
            .filter_map(|offset| level.layout().index_of(GlobalPtr { owner: me, offset }))
            .map(|v| v as u32)
            .collect();
        tally.reached.set(0);
        let mut ex = Executor::new();
        for t in 0..s.tasks {
            let (gas, level, locks, tally, frontier) = (&gas, &level, &locks, &tally, &frontier);
            ex.spawn(async move {
                let mine = frontier.iter().skip(t as usize).step_by(s.tasks as usize);
                for &u in mine {
                    if let Err(e) = visit(gas, level, locks, &s, u, depth + 1, tally).await {
                        *tally.failure.borrow_mut() = Some(format!("task {t}, vertex {u}: {e}"));
                        return;
                    }
                }
            });
        }
        ex.run();
        drop(ex);
        if let Some(e) = tally.failure.borrow_mut().take() {
            return Err(e);
        }
        gas.flush_and_barrier(&level)
            .map_err(|e| format!("ending level {depth}: {e}"))?;
        let reached = summed(&gas, &[tally.reached.get()])?[0];
        levels.push((
            tally.edges.get() - edges_before,
            platform.now() - level_begin,
        ));
        if reached == 0 {
            break;
        }
        reached_all += reached;
        depth += 1;
    }
    let cycles = platform.now() - begin;
    let name = Variant::NAMES[usize::from(s.variant == Variant::Lock)];
    // Checks against the serial search.
    let want = serial(n, s.max_degree, s.seed);
    gas.get_part(&level, me, 0, &mut mine)
        .map_err(|e| format!("reading the own part: {e}"))?;
    for (offset, &got) in mine.iter().enumerate() {
        let at = GlobalPtr { owner: me, offset: offset as u32 };
        match level.layout().index_of(at) {
            Some(v) if got != want[v as usize] => {
                return Err(format!(
                    "vertex {v}: level+1 {got}, the serial search says {}",
                    want[v as usize]
                ));
            }
            None if got != 0 => return Err(format!("padding {at:?} holds {got}")),
            _ => {}
        }
    }
    let serial_reached = want.iter().filter(|&&l| l != 0).count() as u64;
    if reached_all != serial_reached {
        return Err(format!(
            "{reached_all} vertices reached, the serial search reaches {serial_reached}"
        ));
    }
    let edges_all = summed(&gas, &[tally.edges.get()])?[0];
    // ops: the mean per core, so that ops times cores is every edge (a
    // key of this core's own count would split the rows by core).
    emit(
        "gas-bfs",
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
    for (k, &(edges, level_cycles)) in levels.iter().enumerate() {
        emit(
            "gas-bfs-level",
            &format!(
                "cores={cores} tasks={} variant={name} dist={}{} rank={me} level={} ops={edges}",
                s.tasks,
                dist.name(),
                super::chip_key(platform),
                k + 1
            ),
            None,
            &[level_cycles],
        );
    }
    let slowest = {
        let mut v = [cycles];
        gas.rma()
            .comm()
            .allreduce(&mut v, ReduceOp::Max)
            .map_err(|e| format!("the slowest core: {e}"))?;
        v[0]
    };
    let locks_now = gas.lock_stats();
    let acq_spins = summed(&gas, &[locks_now.acquisitions, locks_now.spins])?;
    let mut attempts = Counters::new(gas.controller_of());
    attempts.add(&summed(&gas, locks_now.attempts.targets())?);
    let all = all_requests(&gas, &gas.counters())?;
    // The model's primitives, on core 0 alone, now that the search is
    // over and checked: every claim of a visit now fails, as most of a
    // search's do.
    if me == 0 {
        primitives(platform, &gas, &level, &locks, &s)?;
    }
    gas.barrier();
    gas.free(locks).map_err(|e| format!("freeing the locks: {e}"))?;
    gas.free(level).map_err(|e| format!("freeing the level array: {e}"))?;
    if me == 0 {
        // Spins per acquisition in thousandths.
        let milli = (acq_spins[1] * 1000).checked_div(acq_spins[0]).unwrap_or(0);
        let spins = format!("{}.{:03}", milli / 1000, milli % 1000);
        kernel::println!(
            "gas-bfs: {cores} cores, {} tasks each, variant={name}, {n} vertices (degree 1..={}), {} levels, {reached_all} reached, {edges_all} edges in {slowest} cycles on the slowest core; levels identical to the serial search",
            s.tasks,
            s.max_degree,
            depth
        );
        kernel::println!(
            "gas-bfs: locks: {} acquisitions, {spins} spins per acquisition, attempts {} (rsd {} per mille over targets); {}",
            acq_spins[0],
            attempts.total(),
            relative_std_dev(attempts.targets()),
            hot_spots(&all, gas.controller_of())
        );
    }
    Ok(())
}

/// Vertices whose claims are timed for the analytical model.
const PRIMITIVE_VERTICES: u32 = 64;

/// The primitive costs the analytical model of BFS takes
/// (`xtask/src/bench/model.rs`), measured on core 0 alone while the others
/// wait at a barrier, as `gas-chase` measures its own:
/// - `BENCH gas-model what=bfs-edge`: a visit's own work per edge (the
///   edges made, counted and looped over, the claim replaced by a value
///   ready at once), over [`PRIMITIVE_VERTICES`] vertices spread over the
///   graph (`ops=` edges);
/// - `what=bfs-claim`: one claim of the run's variant, awaited in a
///   one-task executor, for each of those vertices (so local and remote
///   ones in the run's mix): `atomic`, a compare-and-swap that fails, as
///   most of a search's do (the level is never the value it expects);
///   `lock`, the vertex's lock taken, its level got, the lock given back;
/// - `what=bfs-hold` (`lock` only): of those, the cycles the lock was
///   held (the get and the release), with `locks=` the number of locks;
/// - `what=bfs-attempt` (`lock` only): a failed attempt at a lock (a
///   compare-and-swap of a lock word that is held);
/// - `what=bfs-tsr`: the registers of the claimed words' owners taken
///   and given back alone, with `owners=` the number of cores owning
///   words that claims take registers for and `registers=` how many a
///   claim takes (none where the chip's remote atomic unit does the
///   compare-and-swaps);
/// - `what=bfs-level`: a level's own work outside its visits (the own
///   part got and scanned for the frontier);
/// - `gas-switch` for one task and the run's tasks (a poll among them).
fn primitives(
    platform: &Platform,
    gas: &Gas<'_, Platform>,
    level: &GlobalArray<u32>,
    locks: &GlobalArray<u32>,
    s: &Settings,
) -> Result<(), String> {
    let cores = gas.size();
    let n = s.vertices;
    let sample: Vec<u32> = (0..PRIMITIVE_VERTICES.min(n))
        .map(|k| (u64::from(k) * u64::from(n) / u64::from(PRIMITIVE_VERTICES.min(n))) as u32)
        .collect();
    let name = Variant::NAMES[usize::from(s.variant == Variant::Lock)];
    let keys = |what: &str| {
        format!(
            "what={what} cores={cores} tasks={} variant={name} dist={}{}",
            s.tasks,
            s.dist.0.name(),
            super::chip_key(platform)
        )
    };
    // A visit's own work, the claim ready at once.
    let begin = platform.now();
    let edges = gas::exec::block_on(async {
        let mut count = 0u64;
        for &u in &sample {
            for w in edges(u, n, s.max_degree, s.seed) {
                count += 1;
                let old = core::future::ready(core::hint::black_box(w)).await;
                core::hint::black_box(old);
            }
        }
        count
    });
    let cycles = platform.now() - begin;
    emit("gas-model", &format!("{} ops={edges}", keys("bfs-edge")), None, &[cycles]);
    // Whole visits of the sample's vertices, as a task with no other task
    // beside it makes them.
    let scratch = Tally::default();
    let mut ex = Executor::new();
    ex.spawn(async {
        for &u in &sample {
            if let Err(e) = visit(gas, level, locks, s, u, u32::MAX - 1, &scratch).await {
                *scratch.failure.borrow_mut() = Some(format!("timing visits: vertex {u}: {e}"));
                return;
            }
        }
    });
    let begin = platform.now();
    ex.run();
    let cycles = platform.now() - begin;
    drop(ex);
    if let Some(e) = scratch.failure.borrow_mut().take() {
        return Err(e);
    }
    emit(
        "gas-model",
        &format!("{} ops={}", keys("bfs-visit"), scratch.edges.get()),
        None,
        &[cycles],
    );
    // One claim per vertex of the sample.
    let claims: Cell<Vec<u64>> = Cell::new(Vec::new());
    let holds: Cell<Vec<u64>> = Cell::new(Vec::new());
    let failure: RefCell<Option<String>> = RefCell::new(None);
    let mut ex = Executor::new();
    ex.spawn(async {
        let (mut claim, mut hold) = (Vec::new(), Vec::new());
        for &w in &sample {
            let w64 = u64::from(w);
            let begin = platform.now();
            let outcome = match s.variant {
                Variant::Atomic => match gas.compare_swap_nb(level, w64, 1, u32::MAX) {
                    Ok(handle) => handle.await.map(|_| ()).map_err(|e| format!("{e}")),
                    Err(e) => Err(format!("{e}")),
                },
                Variant::Lock => {
                    let lock = u64::from(w / s.block);
                    match gas.acquire(locks, lock).await {
                        Ok(_) => {
                            let held = platform.now();
                            let got = match gas.get_nb(level, w64) {
                                Ok(handle) => handle.await.map_err(|e| format!("{e}")),
                                Err(e) => Err(format!("{e}")),
                            };
                            let released = gas.release(locks, lock).map_err(|e| format!("{e}"));
                            hold.push(platform.now() - held);
                            got.and(released).map(|_| ())
                        }
                        Err(e) => Err(format!("{e}")),
                    }
                }
            };
            claim.push(platform.now() - begin);
            if let Err(e) = outcome {
                *failure.borrow_mut() = Some(format!("timing a claim of vertex {w}: {e}"));
                return;
            }
        }
        claims.set(claim);
        holds.set(hold);
    });
    ex.run();
    drop(ex);
    if let Some(e) = failure.borrow_mut().take() {
        return Err(e);
    }
    emit("gas-model", &keys("bfs-claim"), None, &claims.take());
    let holds = holds.take();
    if !holds.is_empty() {
        let count = n.div_ceil(s.block);
        emit("gas-model", &format!("{} locks={count}", keys("bfs-hold")), None, &holds);
        // A failed attempt at a lock: a compare-and-swap of a lock word this
        // core holds.
        let mut attempts = Vec::new();
        for &w in &sample {
            let lock = u64::from(w / s.block);
            let taken = gas::exec::block_on(gas.acquire(locks, lock))
                .map_err(|e| format!("timing an attempt at lock {lock}: {e}"))?;
            core::hint::black_box(taken);
            let begin = platform.now();
            let found = gas
                .compare_swap(locks, lock, 1, 0)
                .map_err(|e| format!("timing an attempt at lock {lock}: {e}"))?;
            attempts.push(platform.now() - begin);
            gas.release(locks, lock)
                .map_err(|e| format!("timing an attempt at lock {lock}: {e}"))?;
            if found != 1 {
                return Err(format!("lock {lock} held by this core read {found}"));
            }
        }
        emit("gas-model", &keys("bfs-attempt"), None, &attempts);
    }
    // The owners' test-and-set registers taken and given back alone; and
    // how many cores own the words claims take registers for (the lock
    // words, a few lines of them, or the levels).
    let mut owners: Vec<u32> = match s.variant {
        Variant::Atomic => (0..u64::from(n)).map(|v| level.layout().locate(v).owner).collect(),
        Variant::Lock => (0..u64::from(n.div_ceil(s.block)))
            .map(|l| locks.layout().locate(l).owner)
            .collect(),
    };
    owners.sort_unstable();
    owners.dedup();
    // The registers a claim takes: none where the chip's remote atomic
    // unit does the compare-and-swaps.
    let registers = match (platform.has_remote_atomics(), s.variant) {
        (true, _) => 0,
        (false, Variant::Atomic) => 1,
        (false, Variant::Lock) => 2,
    };
    let mut pairs = Vec::new();
    for &w in &sample {
        let owner = level.layout().locate(u64::from(w)).owner;
        let core = rma::hal::Topology::participant(platform, owner);
        let begin = platform.now();
        rma::hal::Tsr::tsr_acquire(platform, core);
        rma::hal::Tsr::tsr_release(platform, core);
        pairs.push(platform.now() - begin);
    }
    emit(
        "gas-model",
        &format!(
            "{} owners={} registers={registers}",
            keys("bfs-tsr"),
            owners.len()
        ),
        None,
        &pairs,
    );
    // A level's own work: the own part got and scanned.
    let part = level.layout().part_len();
    let mut mine = vec![0u32; part as usize];
    let begin = platform.now();
    gas.get_part(level, 0, 0, &mut mine)
        .map_err(|e| format!("timing a level: {e}"))?;
    let frontier = (0..part)
        .filter(|&off| mine[off as usize] == 1)
        .filter_map(|offset| level.layout().index_of(GlobalPtr { owner: 0, offset }))
        .count();
    core::hint::black_box(frontier);
    let cycles = platform.now() - begin;
    emit("gas-model", &keys("bfs-level"), None, &[cycles]);
    for tasks in [1, s.tasks] {
        let (polls, cycles) = time_switches(platform, tasks);
        emit("gas-switch", &format!("tasks={tasks} polls={polls}"), None, &[cycles]);
    }
    Ok(())
}

/// Times of rounds of a level's end on all cores (a flush, a barrier and
/// the sum of the reached counts), the model's barrier primitive:
/// `BENCH gas-model what=bfs-barrier` from core 0.
fn barrier_primitive(
    platform: &Platform,
    gas: &Gas<'_, Platform>,
    level: &GlobalArray<u32>,
    s: &Settings,
) -> Result<(), String> {
    const ROUNDS: usize = 8;
    let mut samples = Vec::with_capacity(ROUNDS);
    gas.barrier();
    for _ in 0..ROUNDS {
        let begin = platform.now();
        gas.flush_and_barrier(level)
            .map_err(|e| format!("timing a level's end: {e}"))?;
        summed(gas, &[0])?;
        samples.push(platform.now() - begin);
    }
    if gas.rank() == 0 {
        let name = Variant::NAMES[usize::from(s.variant == Variant::Lock)];
        emit(
            "gas-model",
            &format!(
                "what=bfs-barrier cores={} tasks={} variant={name} dist={}{}",
                gas.size(),
                s.tasks,
                s.dist.0.name(),
                super::chip_key(platform)
            ),
            None,
            &samples,
        );
    }
    Ok(())
}

/// Visits every edge of `u`, claiming unreached destinations for level
/// `next` (level + 1 stored).
async fn visit(
    gas: &Gas<'_, Platform>,
    level: &GlobalArray<u32>,
    locks: &GlobalArray<u32>,
    s: &Settings,
    u: u32,
    next: u32,
    tally: &Tally,
) -> Result<(), String> {
    for w in edges(u, s.vertices, s.max_degree, s.seed) {
        tally.edges.set(tally.edges.get() + 1);
        let w64 = u64::from(w);
        let claimed = match s.variant {
            Variant::Atomic => {
                let old = gas
                    .compare_swap_nb(level, w64, next, 0)
                    .map_err(|e| format!("swap of {w}: {e}"))?
                    .await
                    .map_err(|e| format!("swap of {w}: {e}"))?;
                if old != 0 && old > next {
                    return Err(format!("vertex {w} was at level+1 {old}, beyond {next}"));
                }
                old == 0
            }
            Variant::Lock => {
                let lock = u64::from(w / s.block);
                gas.acquire(locks, lock)
                    .await
                    .map_err(|e| format!("lock {lock}: {e}"))?;
                let old = gas
                    .get_nb(level, w64)
                    .map_err(|e| format!("get of {w}: {e}"))?
                    .await
                    .map_err(|e| format!("get of {w}: {e}"))?;
                if old == 0 {
                    gas.put(level, w64, next)
                        .map_err(|e| format!("put of {w}: {e}"))?;
                } else if old > next {
                    return Err(format!("vertex {w} was at level+1 {old}, beyond {next}"));
                }
                gas.release(locks, lock)
                    .map_err(|e| format!("lock {lock}: {e}"))?;
                old == 0
            }
        };
        if claimed {
            tally.reached.set(tally.reached.get() + 1);
        }
    }
    Ok(())
}
