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

    #[test]
    fn errors_are_relative_to_the_emulator() {
        assert_eq!(error(110.0, 100.0), 10.0);
        assert_eq!(error(75.0, 100.0), -25.0);
    }
}
