// SPDX-License-Identifier: MIT OR Apache-2.0
//! The shared regions an emulated core sees, in the order the emulator
//! attaches them.
//!
//! Under QEMU each region is one PCI shared-memory device; the emulator
//! attaches them in exactly this order, so the guest's platform code can
//! pair the i-th device it finds on the bus with the i-th region here and
//! move its BAR to the region's core-physical base.

use crate::{Chip, LUT_PAGE_SIZE, TileId};

/// What a shared region holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedRegionKind {
    /// Legacy shared memory page at controller `n`.
    Lsm(usize),
    /// A tile's message passing buffer.
    Mpb(TileId),
    /// The core's own tile's MPB, again, at the own-MPB entry.
    OwnMpb,
    /// A tile's configuration register block.
    Crb(TileId),
    /// The core's own tile's CRB, at the own-CRB entry.
    OwnCrb,
    /// The FPGA register bank.
    Fpga,
}

/// One shared region: what it is, where the core sees it, how large it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedRegion {
    /// Contents.
    pub kind: SharedRegionKind,
    /// Core-physical base address.
    pub base: u32,
    /// Bytes (a power of two, as PCI BARs require).
    pub size: u32,
}

impl Chip {
    /// Every shared region, in attachment order: LSM pages, tile MPBs, own
    /// MPB, tile CRBs, own CRB, FPGA bank.
    pub fn shared_regions(&self) -> impl Iterator<Item = SharedRegion> + '_ {
        let lsm = (0..self.memory_controllers.len()).map(|m| SharedRegion {
            kind: SharedRegionKind::Lsm(m),
            base: self.lsm_base(m),
            size: LUT_PAGE_SIZE,
        });
        let mpbs = self.all_tiles().map(|t| SharedRegion {
            kind: SharedRegionKind::Mpb(t),
            base: self.mpb_base(t),
            size: self.mpb_bytes_per_tile,
        });
        let own_mpb = SharedRegion {
            kind: SharedRegionKind::OwnMpb,
            base: self.own_mpb_base(),
            size: self.mpb_bytes_per_tile,
        };
        let crbs = self.all_tiles().map(|t| SharedRegion {
            kind: SharedRegionKind::Crb(t),
            base: self.crb_base(t),
            size: self.crb.size,
        });
        let own_crb = SharedRegion {
            kind: SharedRegionKind::OwnCrb,
            base: self.own_crb_base(),
            size: self.crb.size,
        };
        let fpga = SharedRegion {
            kind: SharedRegionKind::Fpga,
            base: self.fpga_base(),
            size: self.fpga.size,
        };
        lsm.chain(mpbs)
            .chain([own_mpb])
            .chain(crbs)
            .chain([own_crb, fpga])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SCC;
    use crate::tests::{BIG, MINI};

    #[test]
    fn scc_has_55_regions_each_a_power_of_two_at_an_aligned_base() {
        let regions: Vec<_> = SCC.shared_regions().collect();
        assert_eq!(regions.len(), 4 + 24 + 1 + 24 + 1 + 1);
        for chip in [SCC, MINI, BIG] {
            for r in chip.shared_regions() {
                assert!(r.size.is_power_of_two(), "{r:?}");
                assert_eq!(r.base % r.size, 0, "{r:?}");
            }
        }
        assert_eq!(regions[4].base, 0xC000_0000);
        assert_eq!(regions[28].kind, SharedRegionKind::OwnMpb);
        assert_eq!(regions[54].kind, SharedRegionKind::Fpga);
    }
}
