// SPDX-License-Identifier: GPL-2.0-or-later
//! Where each access's bytes went on the mesh, for the statistics: per
//! router along the XY route between a core's tile and what it reached.

use chip::{CACHE_LINE, Chip, CoreId, Target};

use crate::model::hierarchy::{Access, Event, Outcome};
use crate::model::mesh;

/// One core's routes on the mesh, for counting the bytes each router
/// passes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Routes {
    /// The chip the run models.
    chip: &'static Chip,
    /// The router of the core's tile.
    here: chip::TileCoord,
}

impl Routes {
    /// `core`'s routes on `chip`'s mesh.
    pub(super) fn new(chip: &'static Chip, core: CoreId) -> Self {
        Self {
            chip,
            here: chip.tile_coord(chip.tile_of(core)),
        }
    }

    /// Counts `bytes` in `counters` (one per router, row by row) at every
    /// router between this core's tile and the router serving `target`:
    /// on the reply's route (target to core) if `inbound`, else on the
    /// request's (core to target).
    pub(super) fn count(&self, counters: &mut [u64], target: Target, bytes: u64, inbound: bool) {
        let Some(there) = mesh::router_of(self.chip, target) else {
            return;
        };
        let (from, to) = if inbound {
            (there, self.here)
        } else {
            (self.here, there)
        };
        let width = usize::from(self.chip.mesh_x);
        for r in mesh::route(from, to) {
            if let Some(c) = counters.get_mut(usize::from(r.x) + usize::from(r.y) * width) {
                *c += bytes;
            }
        }
    }
}

/// The bytes of each part of `access` that went to memory without filling
/// a line: uncached loads and stores written through (fills, write-backs
/// and WCB flushes are counted as their events are applied).
pub(super) fn uncached_parts(access: &Access) -> impl Iterator<Item = u32> + '_ {
    let line_of = |addr: u32| addr & !(CACHE_LINE as u32 - 1);
    access.parts().iter().filter_map(move |p| {
        let filled = access
            .events
            .iter()
            .any(|e| matches!(*e, Event::Fill { line } if line == line_of(p.addr)));
        (p.outcome == Outcome::Memory && !filled).then_some(p.len)
    })
}

#[cfg(test)]
mod tests {
    use chip::{MemoryType, SCC};

    use super::*;

    #[test]
    fn bytes_are_counted_at_every_router_of_the_xy_route() {
        // Core 0 is on tile 0, at (0, 0); tile 23 is at (5, 3).
        let routes = Routes::new(&SCC, SCC.core(0).unwrap());
        let mut counters = vec![0; SCC.tiles() as usize];
        let far = Target::Mpb(SCC.tile(23).unwrap());
        routes.count(&mut counters, far, 32, false);
        let at = |x: usize, y: usize| counters[x + 6 * y];
        // X first: along row 0, then up column 5.
        for x in 0..6 {
            assert_eq!(at(x, 0), 32, "router ({x}, 0)");
        }
        for y in 1..4 {
            assert_eq!(at(5, y), 32, "router (5, {y})");
        }
        assert_eq!(counters.iter().sum::<u64>(), 9 * 32);
        // The reply routes XY from the target: along row 3, then down
        // column 0.
        let mut back = vec![0; SCC.tiles() as usize];
        routes.count(&mut back, far, 1, true);
        assert_eq!(back.iter().sum::<u64>(), 9);
        assert_eq!(back[0], 1);
        assert_eq!(back[6 * 3], 1, "router (0, 3) is on the reply's route");
        // Nothing on the mesh: nothing counted.
        routes.count(&mut back, Target::Nothing, 1, true);
        assert_eq!(back.iter().sum::<u64>(), 9);
    }

    #[test]
    fn only_parts_from_memory_that_filled_no_line_are_uncached() {
        use crate::model::hierarchy::{Config, CoreMemory};
        let mut memory = CoreMemory::new(Config::SCC).unwrap();
        // An uncached load across a line boundary: two parts from memory.
        let ncm = memory.load(0x1000_001E, 4, MemoryType::Ncm);
        assert_eq!(uncached_parts(&ncm).collect::<Vec<_>>(), [2, 2]);
        // A cached load that misses fills its line: not uncached.
        let dcm = memory.load(0x2000_0000, 4, MemoryType::Dcm);
        assert_eq!(uncached_parts(&dcm).count(), 0);
        // Now it hits L1: nothing reaches memory.
        let hit = memory.load(0x2000_0004, 4, MemoryType::Dcm);
        assert_eq!(uncached_parts(&hit).count(), 0);
    }
}
