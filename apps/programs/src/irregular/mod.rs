// SPDX-License-Identifier: MIT OR Apache-2.0
//! Irregular applications on the global address space of the `gas`
//! crate: [`chase`] (pointer chasing), [`bfs`] (breadth-first search
//! on a uniform random graph) and [`bc`] (betweenness centrality, SSCA#2
//! kernel 4, on an R-MAT graph), with what they share: the distribution
//! settings, opening the space, task counts, the hot-spot summary.


pub mod bc;
pub mod bfs;
pub mod chase;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use gas::exec::{Executor, yield_now};
use gas::{Counters, Distribution, Gas, Spread, relative_std_dev};
use kernel::Platform;
use kernel::chip::settings::Choice;
use rma::comm::ReduceOp;

use crate::support::osc::open;

/// [`Distribution`], as a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dist(pub Distribution);

impl Choice for Dist {
    const ALL: &'static [Self] = &[
        Self(Distribution::Block),
        Self(Distribution::Cyclic),
        Self(Distribution::Hashed),
    ];
    const NAMES: &'static [&'static str] = &Distribution::NAMES;
}

/// [`Spread`], as a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Over(pub Spread);

impl Choice for Over {
    const ALL: &'static [Self] = &[Self(Spread::Owners), Self(Spread::Controllers)];
    const NAMES: &'static [&'static str] = &["owners", "controllers"];
}

/// The global address space over all cores of the run.
pub fn space(platform: &Platform) -> Result<Gas<'_, Platform>, String> {
    Ok(Gas::new(open(platform)?))
}

/// The `chip=` key of a BENCH line, with its leading space, on a chip
/// other than the default one (whose lines have none, as before chips
/// could differ): a run on `mesh8x8` is another row of the benchmark.
pub fn chip_key(platform: &Platform) -> String {
    let chip = platform.chip();
    if chip == kernel::chip::DEFAULT_CHIP {
        String::new()
    } else {
        format!(" chip={}", chip.name)
    }
}

/// Task counts of a sweep up to `most`: the powers of two below it, then
/// `most`.
pub fn task_counts(most: u32) -> Vec<u32> {
    let mut counts: Vec<u32> = (0..).map(|k| 1 << k).take_while(|&t| t < most).collect();
    counts.push(most);
    counts
}

/// `counts` summed over all cores.
pub fn summed(gas: &Gas<'_, Platform>, counts: &[u64]) -> Result<Vec<u64>, String> {
    let mut all = counts.to_vec();
    gas.rma()
        .comm()
        .allreduce(&mut all, ReduceOp::Sum)
        .map_err(|e| format!("summing counters: {e}"))?;
    Ok(all)
}

/// The requests of every core to each target, summed, as counters.
pub fn all_requests(gas: &Gas<'_, Platform>, mine: &Counters) -> Result<Counters, String> {
    let mut all = Counters::new(gas.controller_of());
    all.add(&summed(gas, mine.targets())?);
    Ok(all)
}

/// `requests=<total> target-rsd=<per mille> controller-rsd=<per mille>`
/// (only the controllers that hold a part count).
pub fn hot_spots(all: &Counters, controller_of: &[u32]) -> String {
    let used: Vec<u64> = all
        .controllers()
        .iter()
        .enumerate()
        .filter(|&(c, _)| controller_of.contains(&(c as u32)))
        .map(|(_, &n)| n)
        .collect();
    format!(
        "requests={} target-rsd={} controller-rsd={}",
        all.total(),
        relative_std_dev(all.targets()),
        relative_std_dev(&used)
    )
}

/// Yields per task when timing a context switch.
const SWITCH_YIELDS: u32 = 200;

/// Times `tasks` tasks that only yield, [`SWITCH_YIELDS`] times each:
/// `(polls, cycles)`; a poll is one switch into a task and back out.
pub fn time_switches(platform: &Platform, tasks: u32) -> (u64, u64) {
    let mut ex = Executor::new();
    for _ in 0..tasks {
        ex.spawn(async {
            for _ in 0..SWITCH_YIELDS {
                yield_now().await;
            }
        });
    }
    let start = platform.now();
    let polls = ex.run();
    (polls, platform.now() - start)
}
