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
//!
//! Between two neighbouring routers run two links, one each way
//! ([`Link`]); a packet crosses one per hop ([`links`]). The reply to a
//! request is routed XY from the target back to the core, so it crosses
//! other links than the request did unless the two share a row or a
//! column.

use chip::{Chip, Target, TileCoord};

use super::stats::MAX_TILES;

/// A way out of a router to a neighbouring one, as the mesh lies (y up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards x + 1.
    East = 0,
    /// Towards x − 1.
    West = 1,
    /// Towards y + 1.
    North = 2,
    /// Towards y − 1.
    South = 3,
}

/// Directions out of a router.
pub const DIRECTIONS: usize = 4;

/// Most links a chip may have, as [`Link::index`] counts them: one per
/// direction out of each of [`MAX_TILES`] routers (those at the mesh's
/// edge lead nowhere and are never used).
pub const MAX_LINKS: usize = DIRECTIONS * MAX_TILES;

impl Direction {
    /// Every direction, in index order.
    pub const ALL: [Direction; DIRECTIONS] = [
        Direction::East,
        Direction::West,
        Direction::North,
        Direction::South,
    ];

    /// One letter, for tables.
    pub const fn letter(self) -> char {
        match self {
            Direction::East => 'E',
            Direction::West => 'W',
            Direction::North => 'N',
            Direction::South => 'S',
        }
    }
}

/// A directed link between two neighbouring routers: the one out of the
/// router of tile `router` (`x + mesh_x * y`) towards `direction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Link {
    /// The router it leaves, by tile index.
    pub router: usize,
    /// Where it goes.
    pub direction: Direction,
}

impl Link {
    /// The link from router `from` to its neighbour `to` of `chip`.
    ///
    /// # Panics
    ///
    /// If the two are not neighbours.
    pub fn between(chip: &Chip, from: TileCoord, to: TileCoord) -> Self {
        let direction = match (to.x.cmp(&from.x), to.y.cmp(&from.y)) {
            (std::cmp::Ordering::Greater, std::cmp::Ordering::Equal) => Direction::East,
            (std::cmp::Ordering::Less, std::cmp::Ordering::Equal) => Direction::West,
            (std::cmp::Ordering::Equal, std::cmp::Ordering::Greater) => Direction::North,
            (std::cmp::Ordering::Equal, std::cmp::Ordering::Less) => Direction::South,
            _ => panic!("{from:?} and {to:?} are not neighbours"),
        };
        assert_eq!(chip.hops(from, to), 1, "{from:?} and {to:?}");
        Self {
            router: usize::from(from.x) + usize::from(from.y) * usize::from(chip.mesh_x),
            direction,
        }
    }

    /// Its number among [`MAX_LINKS`]: `DIRECTIONS * router + direction`.
    pub const fn index(self) -> usize {
        DIRECTIONS * self.router + self.direction as usize
    }

    /// The link of number `i` (the inverse of [`Link::index`]).
    pub const fn from_index(i: usize) -> Self {
        Self {
            router: i / DIRECTIONS,
            direction: Direction::ALL[i % DIRECTIONS],
        }
    }
}

/// The links an XY-routed packet crosses from router `from` to router
/// `to` of `chip`, in order: one per hop, none if the two are one.
pub fn links(chip: &Chip, from: TileCoord, to: TileCoord) -> impl Iterator<Item = Link> + '_ {
    route(from, to)
        .zip(route(from, to).skip(1))
        .map(|(a, b)| Link::between(chip, a, b))
}

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
        fn a_packet_crosses_one_link_per_hop_each_from_where_the_last_ended(
            from in coord(),
            to in coord(),
        ) {
            let there: Vec<Link> = links(&SCC, from, to).collect();
            let path: Vec<TileCoord> = route(from, to).collect();
            prop_assert_eq!(there.len() as u32, SCC.hops(from, to));
            let width = usize::from(SCC.mesh_x);
            for (l, w) in there.iter().zip(path.windows(2)) {
                prop_assert_eq!(l.router, usize::from(w[0].x) + usize::from(w[0].y) * width);
                prop_assert_eq!(*l, Link::between(&SCC, w[0], w[1]));
                prop_assert_eq!(Link::from_index(l.index()), *l);
                prop_assert!(l.index() < MAX_LINKS);
            }
            // No link twice, and the way back crosses the opposite
            // directions' links when it retraces the way there.
            let mut seen = there.clone();
            seen.sort_by_key(|l| l.index());
            seen.dedup();
            prop_assert_eq!(seen.len(), there.len());
            let back: Vec<Link> = links(&SCC, to, from).collect();
            prop_assert!(back.iter().all(|b| !there.contains(b)), "a link is one way");
            if from.x == to.x || from.y == to.y {
                // Along one row or column the way back retraces the way
                // there, router by router.
                let reversed: Vec<TileCoord> = path.iter().rev().copied().collect();
                for (b, w) in back.iter().zip(reversed.windows(2)) {
                    prop_assert_eq!(*b, Link::between(&SCC, w[0], w[1]));
                }
                prop_assert_eq!(back.len(), there.len());
            }
        }

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
    fn links_are_numbered_by_router_and_direction() {
        let at = |x, y| TileCoord { x, y };
        let east = Link::between(&SCC, at(1, 0), at(2, 0));
        assert_eq!((east.router, east.direction), (1, Direction::East));
        assert_eq!(east.index(), 4);
        let south = Link::between(&SCC, at(0, 3), at(0, 2));
        assert_eq!((south.router, south.direction), (18, Direction::South));
        assert_eq!(Link::from_index(south.index()), south);
        // (0,0) to (2,1): east twice, then north; back: west twice from
        // (2,1), along the other row, then south.
        let there: Vec<_> = links(&SCC, at(0, 0), at(2, 1)).map(Link::index).collect();
        assert_eq!(there, [0, 4, 4 * 2 + 2]);
        let back: Vec<_> = links(&SCC, at(2, 1), at(0, 0)).collect();
        assert_eq!(
            back,
            [
                Link::between(&SCC, at(2, 1), at(1, 1)),
                Link::between(&SCC, at(1, 1), at(0, 1)),
                Link::between(&SCC, at(0, 1), at(0, 0)),
            ]
        );
        assert_eq!(links(&SCC, at(3, 2), at(3, 2)).count(), 0);
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
