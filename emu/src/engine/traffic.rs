// SPDX-License-Identifier: GPL-2.0-or-later
//! Where each access's bytes went: per tile's MPB, per memory controller,
//! and per router along the mesh route, for the statistics.

use super::*;

impl Engine {
    /// Counts `bytes` at every router between this core's tile and the
    /// router serving `target`: on the reply's route (target to core) if
    /// `inbound`, else on the request's (core to target).
    pub(super) fn count_route(&mut self, target: Target, bytes: u64, inbound: bool) {
        let Some(there) = mesh::router_of(self.chip, target) else {
            return;
        };
        let here = self.chip.tile_coord(self.chip.tile_of(self.core));
        let (from, to) = if inbound {
            (there, here)
        } else {
            (here, there)
        };
        let width = usize::from(self.chip.mesh_x);
        let counters = &mut self.memory.stats_mut().router_bytes;
        for r in mesh::route(from, to) {
            if let Some(c) = counters.get_mut(usize::from(r.x) + usize::from(r.y) * width) {
                *c += bytes;
            }
        }
    }

    /// Counts the mesh traffic of the parts of `access` that went to
    /// `target` without filling a line: uncached loads and stores written
    /// through (fills, write-backs and WCB flushes are counted as their
    /// events are applied).
    pub(super) fn count_uncached_parts(&mut self, access: &Access, target: Target) {
        let line_of = |addr: u32| addr & !(CACHE_LINE as u32 - 1);
        for p in access.parts() {
            let filled = access
                .events
                .iter()
                .any(|e| matches!(*e, Event::Fill { line } if line == line_of(p.addr)));
            if p.outcome == Outcome::Memory && !filled {
                self.count_route(target, u64::from(p.len), access.kind == Kind::Load);
            }
        }
    }

    /// Counts the mesh traffic of a line that enters or leaves the caches
    /// (`inbound` for a fill), going to wherever the LUT maps it now.
    pub(super) fn count_line(&mut self, line: u32, bytes: u64, inbound: bool) {
        if let Ok(t) = self.translator.lut().translate(line) {
            self.count_route(t.target, bytes, inbound);
        }
    }
}
