// SPDX-License-Identifier: MIT OR Apache-2.0
//! Pointer chasing on the global address space (the irregular-manycore
//! thesis's first kernel): a global array of `length` `u32` "pointers"
//! (element indices) forming one chain through every element, shuffled by
//! `passes` riffle passes (each element goes to a left or a right list
//! with probability 1/2, then the right list is appended to the left; 0
//! passes means log2(length), the thesis's number). Every task walks the
//! whole chain, one dependent remote get after the other, each a
//! split-phase get awaited at once, so a core has as many gets in flight
//! as it has tasks, and switches task at every get.
//!
//! Each core builds the chain itself (same seed, same chain), puts the
//! `next` of the elements it owns into its part, and after a barrier runs
//! (after one untimed get from every core's part, which maps it) a
//! sweep over tasks per core (1, 2, 4, ... up to `tasks`). Task `t` of
//! core `c` starts at a different element of the chain; every get is
//! checked against the serial chain (its value must be the element after
//! the current one), and a walk must be back at its start after exactly
//! `length` steps, having seen every element once (a bitmap). Results:
//! `BENCH gas-chase cores=<p> tasks=<t> dist=<d> over=<s> ops=<r>
//! cycles=<c>` from every core (its gets and the modelled cycles of its
//! walks), and from core 0 a context-switch line per task count (`BENCH
//! gas-switch tasks=<t> polls=<n> cycles=<c>`) and a summary with the
//! requests per target and per controller and their relative standard
//! deviation (per mille).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::Cell;

use gas::exec::Executor;
use gas::{Gas, GlobalArray};
use kernel::Platform;
use kernel::chip::settings::{Choice, choice, integer};

use super::{Dist, Over, all_requests, hot_spots, space, task_counts, time_switches};
use crate::bench::{Rng, emit};

kernel::chip::settings! {
    /// gas-chase's settings.
    pub struct Settings {
        /// elements of the chain (the thesis: 1048576)
        length: u32 = integer(2..=1 << 20, "4096"),
        /// riffle passes shuffling the chain; 0: log2(length)
        passes: u32 = integer(0..=64, "0"),
        /// most tasks per core: the run sweeps 1, 2, 4, ... up to it
        tasks: u32 = integer(1..=64, "4"),
        /// how the chain's lines are spread over the cores: block, cyclic or hashed
        dist: Dist = choice::<Dist>("hashed"),
        /// owners in rank order, or interleaved over the memory controllers
        over: Over = choice::<Over>("owners"),
        /// seed of the shuffle
        seed: u32 = integer(0..=u32::MAX as u64, "1"),
    }
}

/// The chain's order: `0..n` after `passes` riffle passes.
pub fn riffled(n: u32, passes: u32, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n).collect();
    let mut rng = Rng::new(seed);
    let mut right = Vec::with_capacity(n as usize);
    for _ in 0..passes {
        let mut left = 0;
        right.clear();
        let mut bits = 0;
        for i in 0..n as usize {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            let e = order[i];
            if bits & 1 == 0 {
                order[left] = e;
                left += 1;
            } else {
                right.push(e);
            }
            bits >>= 1;
        }
        order[left..].copy_from_slice(&right);
    }
    order
}

/// `next[e]`: the element after `e` in `order`, the last one closing the
/// cycle.
fn successors(order: &[u32]) -> Vec<u32> {
    let mut next = vec![0; order.len()];
    for (k, &e) in order.iter().enumerate() {
        next[e as usize] = order[(k + 1) % order.len()];
    }
    next
}

pub fn run(platform: &Platform, s: Settings) -> Result<(), String> {
    let gas = space(platform)?;
    let (me, cores) = (gas.rank(), gas.size());
    let n = s.length;
    let passes = if s.passes == 0 { 31 - n.leading_zeros() } else { s.passes };
    let order = riffled(n, passes, u64::from(s.seed));
    let next = successors(&order);
    // Position of each element in the chain, to spread the starts.
    let (dist, over) = (s.dist.0, s.over.0);
    let chain: GlobalArray<u32> = gas
        .allocate(u64::from(n), dist, over)
        .map_err(|e| format!("allocating the chain of {n} elements: {e}"))?;
    for i in 0..u64::from(n) {
        if chain.layout().locate(i).owner == me {
            gas.put(&chain, i, next[i as usize])
                .map_err(|e| format!("storing element {i}: {e}"))?;
        }
    }
    gas.flush_and_barrier(&chain)
        .map_err(|e| format!("publishing the chain: {e}"))?;
    // One untimed get from every part first: the first access to a part
    // maps it (a LUT entry), which is no part of a walk's rate.
    let mut first = [0u32];
    for owner in 0..cores {
        gas.get_part(&chain, owner, 0, &mut first)
            .map_err(|e| format!("the first get from core {owner}'s part: {e}"))?;
    }
    if me == 0 {
        primitives(platform, &gas, &chain, &next)?;
    }
    gas.clear_counters();
    for tasks in task_counts(s.tasks) {
        let failure: Cell<Option<String>> = Cell::new(None);
        let mut ex = Executor::new();
        for t in 0..tasks {
            let k = u64::from(me * tasks + t) * u64::from(n) / u64::from(cores * tasks);
            let start = order[k as usize];
            let (gas, chain, next, failure) = (&gas, &chain, &next, &failure);
            ex.spawn(async move {
                if let Err(e) = walk(gas, chain, next, start).await {
                    failure.set(Some(format!("task {t} of {tasks} from element {start}: {e}")));
                }
            });
        }
        gas.barrier();
        let begin = platform.now();
        ex.run();
        let cycles = platform.now() - begin;
        drop(ex);
        if let Some(e) = failure.take() {
            return Err(e);
        }
        let refs = u64::from(tasks) * u64::from(n);
        emit(
            "gas-chase",
            &format!(
                "cores={cores} tasks={tasks} dist={} over={} ops={refs}",
                dist.name(),
                Over::NAMES[usize::from(over == gas::Spread::Controllers)]
            ),
            None,
            &[cycles],
        );
        let slowest = summed_max(&gas, cycles)?;
        if me == 0 {
            let (polls, switch) = time_switches(platform, tasks);
            emit(
                "gas-switch",
                &format!("tasks={tasks} polls={polls}"),
                None,
                &[switch],
            );
            kernel::println!(
                "gas-chase: {tasks} tasks per core: {} references in {slowest} cycles on the slowest core; a switch {} cycles",
                refs * u64::from(cores),
                switch / polls.max(1)
            );
        }
    }
    let all = all_requests(&gas, &gas.counters())?;
    let total = u64::from(n) * u64::from(cores) * task_counts(s.tasks).iter().map(|&t| u64::from(t)).sum::<u64>();
    if all.total() != total {
        return Err(format!("{} requests counted, {total} made", all.total()));
    }
    gas.barrier();
    gas.free(chain).map_err(|e| format!("freeing the chain: {e}"))?;
    if me == 0 {
        kernel::println!(
            "gas-chase: {cores} cores, chain of {n} after {passes} riffle passes, dist={}: every walk checked, each element once in chain order; {}",
            dist.name(),
            hot_spots(&all, gas.controller_of())
        );
    }
    Ok(())
}

/// Gets timed per kind for the analytical model.
const PRIMITIVE_GETS: usize = 64;

/// The primitive costs the analytical model of pointer chasing takes
/// (`xtask/src/bench/model.rs`), measured on core 0 alone while the
/// others wait at the sweep's first barrier, as the irregular-manycore
/// thesis characterised its prototype (one core active, each primitive in
/// a loop): `BENCH gas-model what=get-local` and `what=get-remote`, the
/// cycles of each of [`PRIMITIVE_GETS`] split-phase gets of elements this
/// core owns and of elements spread over the others, each awaited in a
/// one-task executor as a walk with one task awaits it; `what=step`, the
/// cycles of a walk's own work over the whole chain with the get replaced
/// by a local lookup awaited at once (`ops=` steps). The cost of a switch between tasks
/// is `gas-switch`'s.
fn primitives(
    platform: &Platform,
    gas: &Gas<'_, Platform>,
    chain: &GlobalArray<u32>,
    next: &[u32],
) -> Result<(), String> {
    let (me, cores) = (gas.rank(), gas.size());
    let n = next.len() as u64;
    let owner = |i: u64| chain.layout().locate(i).owner;
    let local: Vec<u64> = (0..n).filter(|&i| owner(i) == me).take(PRIMITIVE_GETS).collect();
    // Every (n / PRIMITIVE_GETS)-th element owned by another core: the
    // walk's mix of distances.
    let stride = (n / PRIMITIVE_GETS as u64).max(1);
    let remote: Vec<u64> = (0..n)
        .step_by(stride as usize)
        .filter(|&i| owner(i) != me)
        .take(PRIMITIVE_GETS)
        .collect();
    for (what, elements) in [("get-local", &local), ("get-remote", &remote)] {
        if elements.is_empty() {
            continue;
        }
        let samples: Cell<Vec<u64>> = Cell::new(Vec::new());
        let failure: Cell<Option<String>> = Cell::new(None);
        let mut ex = Executor::new();
        ex.spawn(async {
            let mut times = Vec::with_capacity(elements.len());
            for &i in elements.iter() {
                let begin = platform.now();
                let got = match gas.get_nb(chain, i) {
                    Ok(handle) => handle.await,
                    Err(e) => Err(e),
                };
                times.push(platform.now() - begin);
                match got {
                    Ok(v) if v == next[i as usize] => {}
                    Ok(v) => failure.set(Some(format!("element {i} read {v}"))),
                    Err(e) => failure.set(Some(format!("get of element {i}: {e}"))),
                }
            }
            samples.set(times);
        });
        ex.run();
        if let Some(e) = failure.take() {
            return Err(format!("timing {what}: {e}"));
        }
        emit("gas-model", &format!("what={what} cores={cores}"), None, &samples.take());
    }
    // The walk's own work per step, the get replaced by a local lookup
    // awaited as the get is (a future that is ready at once), so that the
    // step keeps its state across the await as the walk's does.
    let n = next.len();
    let begin = platform.now();
    gas::exec::block_on(async {
        let mut seen = vec![0u64; n.div_ceil(64)];
        let mut at = 0u32;
        for step in 0..n {
            let bit = 1u64 << (at % 64);
            if seen[at as usize / 64] & bit != 0 {
                return Err(format!("timing a step: element {at} visited twice (step {step})"));
            }
            seen[at as usize / 64] |= bit;
            let got = core::future::ready(core::hint::black_box(next[at as usize])).await;
            if got != next[at as usize] {
                return Err(format!("timing a step: element {at} read {got}"));
            }
            at = got;
        }
        Ok(())
    })?;
    let cycles = platform.now() - begin;
    emit(
        "gas-model",
        &format!("what=step cores={cores} ops={n}"),
        None,
        &[cycles],
    );
    Ok(())
}

/// The largest of every core's `value`.
fn summed_max(gas: &Gas<'_, Platform>, value: u64) -> Result<u64, String> {
    let mut v = [value];
    gas.rma()
        .comm()
        .allreduce(&mut v, rma::comm::ReduceOp::Max)
        .map_err(|e| format!("the slowest core: {e}"))?;
    Ok(v[0])
}

/// One task's walk of the whole chain from `start`, every step checked.
async fn walk(
    gas: &Gas<'_, Platform>,
    chain: &GlobalArray<u32>,
    next: &[u32],
    start: u32,
) -> Result<(), String> {
    let n = next.len();
    let mut seen = vec![0u64; n.div_ceil(64)];
    let mut at = start;
    for step in 0..n {
        let bit = 1u64 << (at % 64);
        if seen[at as usize / 64] & bit != 0 {
            return Err(format!("element {at} visited twice (step {step})"));
        }
        seen[at as usize / 64] |= bit;
        let got = gas
            .get_nb(chain, u64::from(at))
            .map_err(|e| format!("get of element {at}: {e}"))?
            .await
            .map_err(|e| format!("get of element {at}: {e}"))?;
        if got != next[at as usize] {
            return Err(format!(
                "element {at} points to {got}, the chain says {}",
                next[at as usize]
            ));
        }
        at = got;
    }
    if at != start {
        return Err(format!("after {n} steps at {at}, not back at {start}"));
    }
    Ok(())
}
