// SPDX-License-Identifier: GPL-2.0-or-later
//! What differs between two boots of the same chip running the same
//! program, drawn from the run's seed.
//!
//! Silicon never runs a program twice the same way, even when the program
//! cannot tell: clocks start at different phases, the cores leave reset at
//! different moments, and arbiters meet simultaneous requests in an order
//! their state decides. Without any of it, cores that poll with fixed
//! periods fall into lock-step with each other, and a contended result
//! depends on where that lock-step happens to fall: moving unrelated code
//! moves it. The model draws these quantities from a seed
//! ([`chip::Time::On`]'s `seed`), so that a run is still the same for the
//! same seed, and a benchmark can take its medians over several seeds and
//! show their spread.
//!
//! | what | drawn | source |
//! |---|---|---|
//! | where each mesh access of a core meets the mesh clock | uniform over one mesh cycle, per access | the tile and the mesh are separate clock domains (533 and 800 MHz, \[thesis\] 1.8); a request waits for the mesh's next edge and its reply for the core's next ([`crossing`]) |
//! | each memory controller's refresh phase | uniform over `dram_refresh_interval_ns` | \[JEDEC\] refreshes come every tREFI from the controller's own start; their phases are not documented |
//! | the moment each core leaves reset | uniform over `reset_spread_ns` | \[SCC forum\]: released core by core, "a finite skew between cores" |
//! | which of two cores that order at the same cycle goes first | a fresh draw per cycle and pair | the arbiters' state (round-robin) is not modelled |
//!
//! An access's phase is drawn for the access (the core's how-manieth mesh
//! access it is, or for an access of a poll its place in the poll:
//! [`MeshAccess`]), not computed from the core's clock: the clock at an
//! access holds waits charged when they become known, whose moment, not
//! sum, may follow the host, and a cost that followed the clock's exact
//! value would carry that into the results. Drawn per access, the phases
//! have the distribution the two clocks give them (a stated
//! simplification: on silicon, with clocks in a fixed ratio, successive
//! accesses' phases are related).
//!
//! The draws are SplitMix64 (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014) of the seed, the
//! quantity and its index: every core computes the same values on its
//! own, with nothing shared.

use chip::Timing;

/// The quantities a draw is for: each draws from its own stream.
#[derive(Debug, Clone, Copy)]
enum Stream {
    AccessPhase = 1,
    RefreshPhase = 2,
    ResetRelease = 3,
    Arbitration = 4,
    PollPhase = 5,
}

/// Which of a core's mesh accesses a phase is drawn for.
///
/// A poll is made as often as the host's timing decides (a store that
/// lands between a poll's read and its wait makes the core poll once
/// more; the modelled time is the same either way): its accesses are
/// named by the poll, not counted with the others, so that the accesses
/// after it draw the same phases in every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshAccess {
    /// The core's `n`th mesh access outside polls (from 0).
    Counted(u64),
    /// The `n`th mesh access (from 0) of the poll that began at cycle
    /// `start`.
    Polled {
        /// When the poll began.
        start: u64,
        /// The access's place in the poll.
        n: u64,
    },
}

/// The variation of one run, from its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variation {
    seed: u64,
}

impl Variation {
    /// The variation of a run with `seed`.
    pub const fn new(seed: u64) -> Self {
        Self { seed }
    }

    /// A draw for `index` of `stream`.
    fn draw(self, stream: Stream, index: u64) -> u64 {
        let key = mix(self.seed ^ mix((stream as u64) << 56 ^ index));
        mix(key)
    }

    /// How long mesh access `access` of core `core` waits for the mesh
    /// clock's next edge, in `1/(core_mhz·mesh_mhz)` µs (a core cycle is
    /// `mesh_mhz` of them, a mesh cycle `core_mhz`).
    pub fn access_phase(self, t: &Timing, core: u32, access: MeshAccess) -> u64 {
        let draw = match access {
            MeshAccess::Counted(n) => self.draw(Stream::AccessPhase, mix(u64::from(core)) ^ n),
            MeshAccess::Polled { start, n } => {
                self.draw(Stream::PollPhase, mix(mix(u64::from(core)) ^ start) ^ n)
            }
        };
        draw % u64::from(t.core_mhz).max(1)
    }

    /// Where in its refresh interval controller `controller` is at time
    /// 0, in core cycles.
    pub fn refresh_phase(self, t: &Timing, controller: usize) -> u64 {
        match t.dram_refresh_interval() {
            0 => 0,
            every => self.draw(Stream::RefreshPhase, controller as u64) % every,
        }
    }

    /// The core cycle at which core `core` leaves reset.
    pub fn reset_release(self, t: &Timing, core: u32) -> u64 {
        match t.reset_spread() {
            0 => 0,
            spread => self.draw(Stream::ResetRelease, u64::from(core)) % spread,
        }
    }

    /// Whether core `a` goes before core `b` when both order at cycle
    /// `at`. For each `at` this is a total order of the cores, the same on
    /// every core, and a different one from cycle to cycle.
    pub fn goes_first(self, at: u64, a: u32, b: u32) -> bool {
        let rank = |c: u32| {
            let key = self.draw(Stream::Arbitration, mix(at) ^ u64::from(c));
            (key, c)
        };
        rank(a) < rank(b)
    }
}

/// SplitMix64's output function: a bijection of 64-bit words that mixes
/// every input bit into every output bit.
const fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The core cycles beyond [`Timing::mesh_to_core`] that a round trip of
/// `mesh` mesh cycles takes when its request waits `to_edge`
/// ([`Variation::access_phase`]) for the mesh clock's next edge, and its
/// reply, `mesh` mesh cycles later, for the core clock's next: 0 or 1;
/// nothing without a mesh part. A core cycle starts on a core edge, so
/// the reply's wait is the rounding up to whole core cycles.
pub fn crossing(t: &Timing, to_edge: u64, mesh: u64) -> u64 {
    if mesh == 0 {
        return 0;
    }
    let (core, mesh_mhz) = (u64::from(t.core_mhz), u64::from(t.mesh_mhz));
    // In 1/(core·mesh) µs: a core cycle is `mesh_mhz` units, a mesh cycle
    // `core` units.
    (to_edge % core + mesh * core).div_ceil(mesh_mhz) - t.mesh_to_core(mesh)
}

#[cfg(test)]
mod tests {
    use chip::SCC;

    use super::*;

    const T: Timing = SCC.timing;

    #[test]
    fn a_seed_gives_the_same_draws_and_another_seed_others() {
        let (a, b) = (Variation::new(1), Variation::new(2));
        assert_eq!(a, Variation::new(1));
        let phases = |v: Variation| {
            (0..24)
                .map(|k| v.access_phase(&T, 3, MeshAccess::Counted(k)))
                .collect::<Vec<_>>()
        };
        assert_eq!(phases(a), phases(Variation::new(1)));
        assert_ne!(phases(a), phases(b));
        let releases = |v: Variation| (0..48).map(|c| v.reset_release(&T, c)).collect::<Vec<_>>();
        assert_ne!(releases(a), releases(b));
        assert!(releases(a).iter().all(|&r| r < T.reset_spread()));
        assert!(phases(a).iter().all(|&p| p < u64::from(T.core_mhz)));
        let refresh = |v: Variation| (0..4).map(|c| v.refresh_phase(&T, c)).collect::<Vec<_>>();
        assert_ne!(refresh(a), refresh(b));
        assert!(refresh(a).iter().all(|&r| r < T.dram_refresh_interval()));
    }

    #[test]
    fn draws_spread_over_their_range() {
        let v = Variation::new(0);
        let releases: Vec<u64> = (0..4800).map(|c| v.reset_release(&T, c)).collect();
        let spread = T.reset_spread();
        let low = releases.iter().filter(|&&r| r < spread / 2).count();
        assert!(
            (2000..2800).contains(&low),
            "{low} of 4800 in the lower half"
        );
    }

    #[test]
    fn arbitration_is_a_total_order_that_changes_with_the_cycle() {
        let v = Variation::new(9);
        let mut firsts = std::collections::BTreeSet::new();
        for at in 0..64 {
            for a in 0..8 {
                assert!(!v.goes_first(at, a, a));
                for b in 0..8 {
                    if a != b {
                        assert_ne!(v.goes_first(at, a, b), v.goes_first(at, b, a));
                    }
                    for c in 0..8 {
                        if v.goes_first(at, a, b) && v.goes_first(at, b, c) {
                            assert!(v.goes_first(at, a, c), "transitive");
                        }
                    }
                }
            }
            firsts.insert((0..8).find(|&a| (0..8).all(|b| a == b || v.goes_first(at, a, b))));
        }
        assert!(firsts.len() > 4, "the first core changes: {firsts:?}");
    }

    #[test]
    fn a_crossing_adds_at_most_a_core_cycle_and_sometimes_none() {
        let mesh = T.round_trip_mesh(3) + u64::from(T.memctl_mesh_cycles);
        let v = Variation::new(4);
        let extras: Vec<u64> = (0..2000)
            .map(|k| crossing(&T, v.access_phase(&T, 0, MeshAccess::Counted(k)), mesh))
            .collect();
        assert!(extras.iter().all(|&e| e <= 1));
        let ones = extras.iter().filter(|&&e| e == 1).count();
        // One core cycle is 800/533 units of the mesh's: the reply's wait
        // rounds up past a core cycle for a share of the phases.
        assert!(
            (100..1900).contains(&ones),
            "{ones} of 2000 took a cycle more"
        );
        assert_eq!(crossing(&T, 5, 0), 0, "no mesh, no crossing");
    }

    #[test]
    fn a_crossing_follows_the_two_clocks() {
        // 2 and 3 MHz: a core cycle is 3 units, a mesh cycle 2; mesh edges
        // at even units.
        let t = Timing {
            core_mhz: 2,
            mesh_mhz: 3,
            ..T
        };
        // One mesh cycle is 2/3 of a core cycle: 1 core cycle when the
        // request meets a mesh edge at once, and 1 too when it waits a
        // unit for it (3 units, a core cycle).
        assert_eq!(t.mesh_to_core(1), 1);
        assert_eq!(crossing(&t, 0, 1), 0);
        assert_eq!(crossing(&t, 1, 1), 0);
        // Three mesh cycles (6 units, 2 core cycles exactly): a request
        // that waits a unit for the edge ends at 7, and its reply waits
        // for the core's edge at 9: 3 core cycles.
        assert_eq!(t.mesh_to_core(3), 2);
        assert_eq!(crossing(&t, 0, 3), 0);
        assert_eq!(crossing(&t, 1, 3), 1);
    }
}
