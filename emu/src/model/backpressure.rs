// SPDX-License-Identifier: GPL-2.0-or-later
//! Back-pressure from a busy register block into its router: what makes a
//! test-and-set register that many cores spin on slow down everything
//! that passes the router of its tile.
//!
//! # The mechanism
//!
//! A tile's register block serves one request at a time
//! ([`super::queue`], `crb_mesh_cycles` each). Its requests come from the
//! router's tile port, which hands them to the mesh interface unit (MIU);
//! the MIU holds [`chip::Timing::miu_queue_packets`] of them, the one in
//! service included. The others wait where they are: in the router's input
//! ports, each packet in a virtual channel (VC) of its own, up to
//! [`chip::Timing::router_request_vcs`] per port for requests. Replies
//! travel in other VCs and are never held by requests.
//!
//! The router's allocator serves its input ports in turn (a wave-front
//! allocator with rotating priority, \[JSSC\]), so the requests waiting for
//! the register block drain from every port that holds them alike, and
//! stay spread over the ports in equal shares. Once a port's request VCs
//! are all held by them, a request arriving at that port for anywhere else
//! (the router's memory controller, the tile's MPB, the next router) finds
//! no free VC: it waits on the link until one frees. With `e` requests
//! held in the router's `P` input ports, its port frees a VC at each of the
//! register block's services that reaches the port, one in `P`; the
//! register block's requests that arrive behind it on the same port take
//! the VCs freed before its turn. It goes on once the backlog beyond what
//! the ports hold with a VC to spare has drained: `e − P·(V − 1)` services
//! ([`crossing_wait`]). With the MIU's requests, the backlog a crossing
//! request feels is what exceeds [`chip::Timing::router_hold`].
//!
//! The backlog is the register block's queue as [`super::queue::wait`]
//! gives it for a request arriving at that moment: from the loads of its
//! calendar alone, so the same whatever order the host runs the cores in,
//! and never more than one request per other core (each core has one
//! access outstanding). A core that waits behind it is charged the wait
//! as one for the register block (`Class::CrbWait`): the register block
//! is what it waits for.
//!
//! What is left out (stated assumptions of the model): the shares of the
//! ports are taken equal, where the cores that spin sit decides them on
//! silicon; a backlog larger than a router holds fills the ports of the
//! routers before it too (tree saturation), which is not modelled beyond
//! the hot router; an MPB or a memory controller that many cores crowd
//! backs up into its router the same way, which is not modelled either.
//!
//! A request to the register block itself waits in its queue, behind the
//! whole backlog ([`super::queue`]): not again here.

use chip::{Chip, Target, TileCoord, Timing};

use super::mesh;

/// A router a request packet passes on its way: the register block of its
/// tile may hold it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossing {
    /// The router's tile (its register block's).
    pub tile: usize,
    /// Core cycles from issue until the request reaches the router.
    pub arrival: u64,
    /// Requests for the tile's register block the MIU and the router hold
    /// before this one is held up ([`Timing::router_hold`]).
    pub hold: u64,
}

/// The input ports of router `at` that carry requests: one per
/// neighbouring router, and the tile's. (A memory controller's or the
/// system interface's port sends replies only.)
pub fn request_ports(chip: &Chip, at: TileCoord) -> u32 {
    let (x, y) = (u32::from(at.x), u32::from(at.y));
    let (w, h) = (u32::from(chip.mesh_x), u32::from(chip.mesh_y));
    let neighbours =
        u32::from(x > 0) + u32::from(x + 1 < w) + u32::from(y > 0) + u32::from(y + 1 < h);
    neighbours + 1
}

/// The cycles a request waits at a router whose register block's queue
/// would make a request of its own wait `backlog` cycles, `service`
/// cycles each, when the MIU and the router hold `hold` of them before the
/// request's port is full: the services beyond those (the module's docs).
pub fn crossing_wait(backlog: u64, service: u64, hold: u64) -> u64 {
    backlog.saturating_sub(hold.saturating_mul(service))
}

/// The routers a request from router `here` to `target` passes whose
/// register block may hold it up, with when it reaches each, `miu` core
/// cycles after issue to leave the core: every router of its XY route,
/// the first included, but the register block's own router for a request
/// to that register block (which queues there instead).
pub fn crossings(chip: &Chip, here: TileCoord, target: Target, miu: u64) -> Vec<Crossing> {
    let t: &Timing = &chip.timing;
    let Some(there) = mesh::router_of(chip, target) else {
        return Vec::new();
    };
    if target == Target::Fpga {
        return Vec::new(); // charged as a multiple of a register access
    }
    mesh::route(here, there)
        .enumerate()
        .filter(|&(_, at)| !(matches!(target, Target::Crb(tile) if chip.tile_coord(tile) == at)))
        .filter_map(|(i, at)| {
            let tile = chip.tile_at(at).ok()?;
            Some(Crossing {
                tile: tile.index(),
                arrival: miu + t.mesh_to_core(i as u64 * u64::from(t.router_mesh_cycles)),
                hold: t.router_hold(request_ports(chip, at)),
            })
        })
        .collect()
}

/// The crossings of every access one core makes, per target, computed
/// once.
#[derive(Debug, Clone)]
pub struct Crossings {
    /// Per tile: an MPB access.
    mpb: Vec<Vec<Crossing>>,
    /// Per tile: a register access.
    crb: Vec<Vec<Crossing>>,
    /// Per controller: a DRAM access.
    dram: Vec<Vec<Crossing>>,
}

impl Crossings {
    /// Those of `core` of `chip`.
    pub fn new(chip: &Chip, core: chip::CoreId) -> Self {
        let t = chip.timing;
        let here = chip.tile_coord(chip.tile_of(core));
        let miu = u64::from(t.miu_mpb);
        let per_tile = |target: fn(chip::TileId) -> Target| {
            chip.all_tiles()
                .map(|tile| crossings(chip, here, target(tile), miu))
                .collect()
        };
        Self {
            mpb: per_tile(Target::Mpb),
            crb: per_tile(Target::Crb),
            dram: (0..chip.memory_controllers.len())
                .map(|controller| {
                    let target = Target::Dram {
                        controller,
                        page: 0,
                    };
                    crossings(chip, here, target, u64::from(t.miu_dram))
                })
                .collect(),
        }
    }

    /// The routers a request to `target` passes whose register block may
    /// hold it up (none for the FPGA or no target).
    pub fn of(&self, target: Target) -> &[Crossing] {
        let way = match target {
            Target::Mpb(tile) => self.mpb.get(tile.index()),
            Target::Crb(tile) => self.crb.get(tile.index()),
            Target::Dram { controller, .. } => self.dram.get(controller),
            Target::Fpga | Target::Nothing => None,
        };
        way.map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use chip::SCC;

    use super::*;
    use crate::model::queue::{self, Load};

    fn at(x: u8, y: u8) -> TileCoord {
        TileCoord { x, y }
    }

    #[test]
    fn a_router_takes_requests_from_its_neighbours_and_its_tile() {
        assert_eq!(request_ports(&SCC, at(0, 0)), 3, "a corner");
        assert_eq!(request_ports(&SCC, at(2, 0)), 4, "an edge");
        assert_eq!(request_ports(&SCC, at(2, 1)), 5, "inside");
        assert_eq!(request_ports(&SCC, at(5, 3)), 3);
    }

    #[test]
    fn a_request_is_held_up_only_by_the_backlog_beyond_what_the_router_holds() {
        let t = SCC.timing;
        let s = t.crb_service();
        // Corner router: the MIU's one, and three of four VCs in each of
        // three ports.
        let hold = t.router_hold(3);
        assert_eq!(hold, 1 + 3 * 3);
        assert_eq!(crossing_wait(hold * s, s, hold), 0, "ports full, none over");
        assert_eq!(crossing_wait(0, s, hold), 0);
        // Each request beyond drains ahead of it: one service each.
        assert_eq!(crossing_wait((hold + 1) * s, s, hold), s);
        assert_eq!(crossing_wait((hold + 30) * s, s, hold), 30 * s);
        // Inside the mesh five ports hold more.
        assert!(t.router_hold(5) > hold);
    }

    #[test]
    fn many_cores_spinning_on_one_register_block_hold_up_requests_through_its_router() {
        // 47 cores each poll the register block once every 70 cycles:
        // more than it serves, so its queue holds one request per other
        // core. A request through its router waits for those beyond what
        // the router holds; with few cores, for nothing.
        let t = SCC.timing;
        let s = t.crb_service();
        let hold = t.router_hold(3);
        let spin = |cores: u64| {
            let per_bucket = cores * 32 / 70;
            let loads = vec![
                Load {
                    requests: per_bucket,
                    cores,
                };
                queue::HISTORY + 1
            ];
            let backlog = queue::wait(&loads, 0, s, 32);
            crossing_wait(backlog, s, hold)
        };
        assert_eq!(spin(4), 0);
        assert_eq!(spin(10), 0);
        let many = spin(47);
        assert_eq!(many, (46 - hold) * s);
        assert!(spin(30) < many && spin(30) > 0, "{}", spin(30));
    }

    #[test]
    fn a_request_passes_every_router_of_its_way_but_its_register_blocks_own() {
        let core0 = SCC.core(0).unwrap();
        let c = Crossings::new(&SCC, core0);
        let t = SCC.timing;
        // Core 0 (0,0) to tile 2 (2,0): routers (0,0), (1,0), (2,0).
        let mpb = c.of(Target::Mpb(SCC.tile(2).unwrap()));
        let tiles: Vec<usize> = mpb.iter().map(|x| x.tile).collect();
        assert_eq!(tiles, [0, 1, 2]);
        assert_eq!(mpb[0].arrival, u64::from(t.miu_mpb));
        // 4 mesh cycles a router: 2.67 and 5.33 core cycles, 3 and 6.
        assert_eq!(mpb[1].arrival, u64::from(t.miu_mpb) + 3);
        assert_eq!(mpb[2].arrival, u64::from(t.miu_mpb) + 6);
        assert_eq!(mpb[2].hold, t.router_hold(4));
        let crb = c.of(Target::Crb(SCC.tile(2).unwrap()));
        let tiles: Vec<usize> = crb.iter().map(|x| x.tile).collect();
        assert_eq!(tiles, [0, 1], "not its own register block again");
        // The own tile's register block: no router to be held up at.
        assert!(c.of(Target::Crb(SCC.tile(0).unwrap())).is_empty());
        // Controller 0 hangs off router (0,0): its requests pass tile 0's.
        let dram = c.of(Target::Dram {
            controller: 0,
            page: 0,
        });
        assert_eq!(dram.len(), 1);
        assert_eq!((dram[0].tile, dram[0].arrival), (0, u64::from(t.miu_dram)));
        assert!(c.of(Target::Fpga).is_empty());
        assert!(c.of(Target::Nothing).is_empty());
    }
}
