// SPDX-License-Identifier: MIT OR Apache-2.0
//! The irregular-manycore thesis's analytical model of a global address
//! space (its chapter 6, equations 6.1 to 6.3), fed with primitive costs
//! measured on the emulated chip, predicting the rate of pointer chasing
//! (`gas-chase`) for each configuration the benchmark runs.
//!
//! The thesis's model, with `T` tasks per core, `I_sw` cycles of a task's
//! own work between global requests, a share `K_r` of requests to other
//! nodes (`K_l = 1 - K_r` to its own), `D_net` the network latency a
//! switch can hide, `D_csw` a context switch and `D_m` a local access:
//!
//! - (6.1) `Rate_low = T / (I_sw + K_r (D_net + D_csw/2) + K_l D_m)`
//! - (6.2) `Rate_sat = 1 / (I_sw + K_r D_csw + K_l D_m)`
//! - (6.3) `T_th = (I_sw + K_r (D_net + D_csw/2) + K_l D_m) / (I_sw + K_r D_csw + K_l D_m)`
//!
//! and its simulator's memory-controller contention, an M/G/1 queue:
//! `W = lambda E(x^2) / (2 (1 - rho))` (Pollaczek-Khinchin).
//!
//! On the SCC a core moves a get's data itself: there is no engine to
//! leave a request to, so no latency is left for a switch to hide
//! (`D_net` = 0) and a remote access stalls the core as a local one does.
//! With `D_net` = 0, `T_th` < 1: a core is saturated with one task, and
//! (6.2) holds for every task count. A reference costs the core
//!
//! `I_sw + K_l G_local + K_r G_remote + (S_T - S_1) + W`,
//!
//! where `G_local` and `G_remote` are the measured split-phase gets (each
//! awaited in a one-task executor, so they include the one-task yield
//! `S_1`), `S_T` the cost of a poll among `T` tasks, and `W` the mean
//! wait at the memory controllers. Every get reads DRAM: the model places
//! the requests on the controllers as the run places the parts (each
//! owner's part behind its tile's controller, lines hashed evenly over
//! the owners, so `K_l = 1/p` on `p` cores), and solves the rate and the
//! waits together (a fixed point).
//!
//! The controller's service time `x` is the time it paces one line at:
//! the largest of tCCD, tRRD and a quarter of tFAW (JEDEC DDR3-800, as
//! `chip::Timing` gives them), taken as deterministic (`E(x^2) = x^2`).
//! This is a stated assumption: the emulator's controller model
//! (`emu::model::dram`) schedules banks and rows, which the model does
//! not follow.
//!
//! Nothing here is fitted to the emulator's rates: the inputs are the
//! primitives the program measures on one core before its sweep.
//!
//! BFS (`gas-bfs`, [`bfs`]) is level-synchronous: a level ends at a
//! barrier, so it takes as long as its busiest core. The model is given
//! the workload (each core's edges per level, which the program prints)
//! and predicts a level as `E_max c + F`: `E_max` the most edges a core
//! visits in it, `F` a level's fixed work and end (`bfs-level`,
//! `bfs-barrier`), and `c` the cycles of an edge:
//!
//! `c = V + (S_T - S_1) + W_reg + W_lock`,
//!
//! with `V` a whole visit's cycles per edge on one core alone (its own
//! work and its claim, a compare-and-swap or a lock, a get and a
//! release), and the waits of the two kinds of servers a claim meets,
//! each an M/D/1 queue (Pollaczek-Khinchin with `E(x^2) = x^2`):
//!
//! - `W_reg`, at the test-and-set register of the claimed word's owner:
//!   every claim takes one (`atomic`: the level's) or two (`lock`: the
//!   lock's take and its release) registers of the `o` cores that own
//!   such words, uniformly (the lock words fill only a few lines, so `o`
//!   can be far below `p`), so each of them sees `p r / (c o)` requests a
//!   cycle and holds each for `h`. On a chip whose remote atomic unit does
//!   the compare-and-swaps, a claim takes no register (`r` = 0); the
//!   unit's own queue at the controller is left out (a stated
//!   simplification: its service is about 60 core cycles). The
//!   hold `h` is a stated assumption: one uncontended take and release of
//!   a register (`bfs-tsr`), the travel of its grant and its release,
//!   which the register is held across; the word's read inside is taken
//!   as short against it.
//! - `W_lock` (`lock` only), at the vertex blocks' `L` locks, which a
//!   task takes by compare-and-swap and, finding one held, retries after
//!   a yield. A holder keeps its lock across its get's yield, while the
//!   core's other `T - 1` tasks each run a segment of about a visit's
//!   cycles per edge: a lock is held for `H = hold + (T - 1) V` (`hold`
//!   measured, `bfs-hold`: the get and the release). Each lock sees
//!   `p / (c L)` claims a cycle, so it is held a share `rho = p H / (c L)`
//!   of the time. Taking attempts as independent, a claim fails
//!   `rho / (1 - rho)` times on average, each a failed attempt's cycles
//!   (`bfs-attempt`): `W_lock = a rho / (1 - rho)`.
//!
//! `c` is the one solution of `c = V + (S_T - S_1) + W_reg(c) + W_lock(c)`
//! (the right side falls as `c` grows), found by bisection.

use std::collections::BTreeMap;

/// The primitive costs of pointer chasing, in core cycles.
#[derive(Debug, Clone, PartialEq)]
pub struct Primitives {
    /// A split-phase get of an element this core owns, awaited.
    pub get_local: f64,
    /// A split-phase get of an element another core owns, awaited.
    pub get_remote: f64,
    /// A walk's own work per step, without its get (`I_sw`).
    pub step: f64,
    /// A poll among `T` tasks (`S_T`), by task count.
    pub switch: BTreeMap<u32, f64>,
}

/// Where the parts lie: for each memory controller, how many of the run's
/// cores have their part behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Owners behind each controller, by controller.
    pub owners: Vec<u32>,
    /// A controller's service time per line, in core cycles.
    pub service: f64,
}

/// What the model predicts for one configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    /// Core cycles per reference, queueing included.
    pub cycles: f64,
    /// Of those, the mean wait at the controllers.
    pub wait: f64,
    /// The busiest controller's utilisation.
    pub utilisation: f64,
}

/// The cycles a reference costs a core with `tasks` tasks, and their
/// split, on `placement`'s cores; `None` if a primitive is missing (no
/// switch cost measured for `tasks` or for 1).
pub fn chase(p: &Primitives, placement: &Placement, tasks: u32) -> Option<Prediction> {
    let cores: u32 = placement.owners.iter().sum();
    if cores == 0 {
        return None;
    }
    let local = 1.0 / f64::from(cores);
    let switch = p.switch.get(&tasks)? - p.switch.get(&1)?;
    let base = p.step + local * p.get_local + (1.0 - local) * p.get_remote + switch;
    // The fixed point of the rate and the waits it causes: the waits grow
    // with the rate, which falls as they grow, so iteration from no wait
    // converges (monotonically, from above).
    let x = placement.service;
    let mut wait = 0.0;
    let mut utilisation = 0.0;
    for _ in 0..100 {
        let cycles = base + wait;
        let mut next = 0.0;
        utilisation = 0.0;
        for &owners in &placement.owners {
            // Every core makes 1/cycles references a cycle, owners/cores
            // of them to this controller.
            let lambda = f64::from(owners) / cycles;
            let rho = lambda * x;
            if rho >= 1.0 {
                return Some(Prediction {
                    cycles: f64::INFINITY,
                    wait: f64::INFINITY,
                    utilisation: rho,
                });
            }
            utilisation = f64::max(utilisation, rho);
            let w = lambda * x * x / (2.0 * (1.0 - rho));
            next += f64::from(owners) / f64::from(cores) * w;
        }
        if (next - wait).abs() < 1e-9 {
            wait = next;
            break;
        }
        wait = next;
    }
    Some(Prediction {
        cycles: base + wait,
        wait,
        utilisation,
    })
}

/// The primitive costs of BFS, in core cycles (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct BfsPrimitives {
    /// A whole visit's cycles per edge, one task alone (`V`).
    pub visit: f64,
    /// A level's fixed work and end (`F`).
    pub level: f64,
    /// A register's hold (`h`): one uncontended take and release.
    pub register: f64,
    /// Registers a claim takes (`r`).
    pub registers_per_claim: f64,
    /// Cores owning the words claims take registers for (`o`).
    pub owners: f64,
    /// The vertex blocks' locks, for claims that take one.
    pub locks: Option<LockCosts>,
    /// A poll among `T` tasks (`S_T`), by task count.
    pub switch: BTreeMap<u32, f64>,
}

/// The locks of BFS's `lock` claims, in core cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LockCosts {
    /// How many locks (`L`).
    pub count: f64,
    /// How long a claim holds one, itself alone (`hold`).
    pub hold: f64,
    /// A failed attempt at one (`a`).
    pub attempt: f64,
}

/// What the model predicts for one BFS run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BfsPrediction {
    /// Core cycles of the search.
    pub cycles: f64,
    /// Cycles of an edge, waits included (`c`).
    pub edge: f64,
    /// Of those, the wait at the registers.
    pub register_wait: f64,
    /// Of those, the wait at the vertex blocks' locks.
    pub lock_wait: f64,
}

/// The cycles of a BFS on `cores` cores with `tasks` tasks each whose
/// levels' busiest cores visit `busiest` edges (one entry per level);
/// `None` if a switch cost is missing, or a server saturates.
pub fn bfs(p: &BfsPrimitives, cores: u32, tasks: u32, busiest: &[u64]) -> Option<BfsPrediction> {
    let switch = p.switch.get(&tasks)? - p.switch.get(&1)?;
    let base = p.visit + switch;
    let cores = f64::from(cores);
    // The waits of an edge of `c` cycles, or None where a server saturates.
    let waits = |c: f64| -> Option<(f64, f64)> {
        let rho = cores * p.registers_per_claim * p.register / (c * p.owners);
        let lock = match p.locks {
            Some(l) => {
                let held = l.hold + f64::from(tasks - 1) * p.visit;
                let rho = cores * held / (c * l.count);
                (rho < 1.0).then(|| l.attempt * rho / (1.0 - rho))?
            }
            None => 0.0,
        };
        (rho < 1.0).then(|| {
            (
                p.registers_per_claim * rho * p.register / (2.0 * (1.0 - rho)),
                lock,
            )
        })
    };
    // c - base - W(c) rises with c: bisect between a c where a server
    // saturates (or base) and one past the root.
    let excess = |c: f64| waits(c).map(|(r, l)| c - base - r - l);
    let (mut low, mut high) = (base, 2.0 * base);
    while !excess(high).is_some_and(|e| e > 0.0) {
        high *= 2.0;
        if high > 1e12 {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        match excess(mid) {
            Some(e) if e > 0.0 => high = mid,
            _ => low = mid,
        }
    }
    let edge = high;
    let (register_wait, lock_wait) = waits(edge)?;
    let cycles = busiest.iter().map(|&e| e as f64 * edge + p.level).sum();
    Some(BfsPrediction {
        cycles,
        edge,
        register_wait,
        lock_wait,
    })
}

/// The relative error of `predicted` against `emulated`, in percent.
pub fn error(predicted: f64, emulated: f64) -> f64 {
    (predicted - emulated) / emulated * 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn primitives() -> Primitives {
        Primitives {
            get_local: 1000.0,
            get_remote: 2000.0,
            step: 50.0,
            switch: BTreeMap::from([(1, 40.0), (2, 45.0), (4, 48.0)]),
        }
    }

    #[test]
    fn an_idle_controller_adds_nothing_and_the_shares_weigh_the_gets() {
        let placement = Placement {
            owners: vec![4],
            service: 0.0,
        };
        let one = chase(&primitives(), &placement, 1).unwrap();
        // 50 + 1/4 of 1000 + 3/4 of 2000.
        assert_eq!(one.cycles, 1800.0);
        assert_eq!(one.wait, 0.0);
        // More tasks add only what a poll among them costs beyond one.
        let four = chase(&primitives(), &placement, 4).unwrap();
        assert_eq!(four.cycles, 1808.0);
        assert!(chase(&primitives(), &placement, 3).is_none());
    }

    #[test]
    fn the_wait_is_pollaczek_khinchin_at_the_rate_it_leaves() {
        // One controller, 2 cores, service 100: solve
        // c = 1550 + w, w = lambda x^2 / (2 (1 - lambda x)), lambda = 2/c.
        let placement = Placement {
            owners: vec![2],
            service: 100.0,
        };
        let p = chase(&primitives(), &placement, 1).unwrap();
        let lambda = 2.0 / p.cycles;
        let w = lambda * 100.0 * 100.0 / (2.0 * (1.0 - lambda * 100.0));
        assert!((p.wait - w).abs() < 1e-6, "{p:?}");
        assert!((p.cycles - (1550.0 + w)).abs() < 1e-6);
        assert!((p.utilisation - lambda * 100.0).abs() < 1e-9);
        // Spreading the cores over two controllers waits less.
        let spread = Placement {
            owners: vec![1, 1],
            service: 100.0,
        };
        assert!(chase(&primitives(), &spread, 1).unwrap().wait < p.wait);
    }

    #[test]
    fn a_saturated_controller_predicts_no_finite_rate() {
        let placement = Placement {
            owners: vec![48],
            service: 100.0,
        };
        let p = chase(&primitives(), &placement, 1).unwrap();
        assert!(p.cycles.is_infinite() && p.utilisation >= 1.0);
    }

    fn bfs_primitives(locks: Option<LockCosts>) -> BfsPrimitives {
        BfsPrimitives {
            visit: 1000.0,
            level: 5000.0,
            register: 100.0,
            registers_per_claim: if locks.is_some() { 2.0 } else { 1.0 },
            owners: 4.0,
            locks,
            switch: BTreeMap::from([(1, 40.0), (4, 50.0)]),
        }
    }

    #[test]
    fn a_bfs_level_takes_its_busiest_cores_edges_and_its_fixed_work() {
        let p = bfs_primitives(None);
        let b = bfs(&p, 4, 4, &[0, 10, 100]).unwrap();
        // An edge: 1000 + (50 - 40), and the register's wait at the rate
        // it leaves: 4 cores on 4 owners, rho = 100 / c, W = rho 100 / (2
        // (1 - rho)).
        let rho = 100.0 / b.edge;
        let w = rho * 100.0 / (2.0 * (1.0 - rho));
        assert!((b.register_wait - w).abs() < 1e-6, "{b:?}");
        assert!((b.edge - (1010.0 + w)).abs() < 1e-6, "{b:?}");
        assert_eq!(b.lock_wait, 0.0);
        assert!((b.cycles - (110.0 * b.edge + 3.0 * 5000.0)).abs() < 1e-3);
        assert!(bfs(&p, 4, 2, &[1]).is_none(), "no switch cost for 2 tasks");
    }

    #[test]
    fn a_lock_is_retried_as_often_as_it_is_found_held() {
        let costs = LockCosts {
            count: 32.0,
            hold: 500.0,
            attempt: 300.0,
        };
        let p = bfs_primitives(Some(costs));
        let b = bfs(&p, 16, 1, &[100]).unwrap();
        // One task: a lock is held for `hold` alone.
        let rho = 16.0 * 500.0 / (b.edge * 32.0);
        assert!(
            (b.lock_wait - 300.0 * rho / (1.0 - rho)).abs() < 1e-6,
            "{b:?}"
        );
        assert!((b.edge - (1000.0 + b.register_wait + b.lock_wait)).abs() < 1e-6);
        // Four tasks hold it across the others' segments: more retries.
        let four = bfs(&p, 16, 4, &[100]).unwrap();
        let rho4 = 16.0 * (500.0 + 3.0 * 1000.0) / (four.edge * 32.0);
        assert!((four.lock_wait - 300.0 * rho4 / (1.0 - rho4)).abs() < 1e-6);
        assert!(four.lock_wait > 3.0 * b.lock_wait, "{four:?} {b:?}");
        // More locks, fewer retries; fewer cores, fewer retries.
        let many = LockCosts {
            count: 256.0,
            ..costs
        };
        assert!(
            bfs(&bfs_primitives(Some(many)), 16, 1, &[100])
                .unwrap()
                .lock_wait
                < b.lock_wait
        );
        assert!(bfs(&p, 4, 1, &[100]).unwrap().lock_wait < b.lock_wait);
        // A lock claim takes two registers: more register wait.
        let atomic = bfs(&bfs_primitives(None), 16, 1, &[100]).unwrap();
        assert!(b.register_wait > atomic.register_wait);
    }

    #[test]
    fn errors_are_relative_to_the_emulator() {
        assert_eq!(error(110.0, 100.0), 10.0);
        assert_eq!(error(75.0, 100.0), -25.0);
    }
}
