// SPDX-License-Identifier: GPL-2.0-or-later
//! The mesh: where a LUT target sits, and the routers a request crosses
//! to reach it under dimension-ordered (XY) routing.
//!
//! A request leaves the core through its tile's router, travels along x
//! first and then along y (thesis 1.1), and leaves the destination router
//! through the port of its target: the tile's MPB or CRB, or a router
//! port where a memory controller or the system interface hangs. So it
//! crosses `hops + 1` routers. The SCC's tile has no bypass from a core to
//! its own MPB ("a documented hardware bug prevents a network bypass",
//! thesis 1.4): the local MPB is one router away, not zero.

use chip::{Chip, Target, TileCoord};

/// The router whose port serves `target`, if the target is on the mesh.
pub fn router_of(chip: &Chip, target: Target) -> Option<TileCoord> {
    match target {
        Target::Mpb(tile) | Target::Crb(tile) => Some(chip.tile_coord(tile)),
        Target::Dram { controller, .. } => chip
            .memory_controllers
            .get(controller)
            .map(|mc| mc.port.tile),
        Target::Fpga => Some(chip.system_interface.tile),
        Target::Nothing => None,
    }
}

/// The routers an XY-routed packet crosses from `from` to `to`, both ends
/// included: x changes first, then y.
pub fn route(from: TileCoord, to: TileCoord) -> impl Iterator<Item = TileCoord> {
    let step = |a: u8, b: u8| if b > a { a + 1 } else { a - 1 };
    let mut at = Some(from);
    std::iter::from_fn(move || {
        let here = at?;
        at = if here.x != to.x {
            Some(TileCoord {
                x: step(here.x, to.x),
                y: here.y,
            })
        } else if here.y != to.y {
            Some(TileCoord {
                x: here.x,
                y: step(here.y, to.y),
            })
        } else {
            None
        };
        Some(here)
    })
}

/// Routers crossed one way from `from` to `to`: the hops plus the first
/// router (there is no bypass, not even to the tile's own MPB).
pub fn routers(chip: &Chip, from: TileCoord, to: TileCoord) -> u32 {
    chip.hops(from, to) + 1
}

#[cfg(test)]
mod tests {
    use chip::SCC;
    use proptest::prelude::*;

    use super::*;

    fn coord() -> impl Strategy<Value = TileCoord> {
        (0..SCC.mesh_x, 0..SCC.mesh_y).prop_map(|(x, y)| TileCoord { x, y })
    }

    proptest! {
        #[test]
        fn a_route_goes_x_first_one_router_at_a_time(from in coord(), to in coord()) {
            let path: Vec<TileCoord> = route(from, to).collect();
            prop_assert_eq!(path.len() as u32, routers(&SCC, from, to));
            prop_assert_eq!(path[0], from);
            prop_assert_eq!(*path.last().unwrap(), to);
            for w in path.windows(2) {
                let d = w[0].x.abs_diff(w[1].x) + w[0].y.abs_diff(w[1].y);
                prop_assert_eq!(d, 1, "neighbouring routers");
            }
            // Once y moves, x no longer does.
            let turn = path.iter().position(|p| p.x == to.x).unwrap();
            prop_assert!(path[turn..].iter().all(|p| p.x == to.x));
            prop_assert!(path[..=turn].iter().all(|p| p.y == from.y));
        }
    }

    #[test]
    fn the_local_mpb_is_one_router_away_and_the_far_corner_nine() {
        let t0 = SCC.tile(0).unwrap();
        let t23 = SCC.tile(23).unwrap();
        let here = SCC.tile_coord(t0);
        assert_eq!(router_of(&SCC, Target::Mpb(t0)), Some(here));
        assert_eq!(routers(&SCC, here, here), 1);
        let far = router_of(&SCC, Target::Mpb(t23)).unwrap();
        assert_eq!(routers(&SCC, here, far), 9);
        // Controller 3 hangs off router (5,2); the FPGA off (3,0).
        let mc3 = router_of(
            &SCC,
            Target::Dram {
                controller: 3,
                page: 0,
            },
        )
        .unwrap();
        assert_eq!((mc3.x, mc3.y), (5, 2));
        assert_eq!(
            router_of(&SCC, Target::Fpga),
            Some(TileCoord { x: 3, y: 0 })
        );
        assert_eq!(router_of(&SCC, Target::Nothing), None);
    }

    #[test]
    fn the_8x8_chip_routes_to_its_own_controllers_and_interface() {
        let chip = &chip::MESH8X8;
        // Tile 63 is (7,7): 14 hops from (0,0), 15 routers.
        let corner = router_of(chip, Target::Mpb(chip.tile(63).unwrap())).unwrap();
        assert_eq!((corner.x, corner.y), (7, 7));
        let origin = TileCoord { x: 0, y: 0 };
        assert_eq!(routers(chip, origin, corner), 15);
        assert_eq!(route(origin, corner).count(), 15);
        // Controller 6 hangs off the north port of router (4,7); the
        // system interface off the west port of (0,0).
        let mc6 = router_of(
            chip,
            Target::Dram {
                controller: 6,
                page: 0,
            },
        )
        .unwrap();
        assert_eq!((mc6.x, mc6.y), (4, 7));
        assert_eq!(router_of(chip, Target::Fpga), Some(origin));
    }
}
