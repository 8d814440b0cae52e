// SPDX-License-Identifier: MIT OR Apache-2.0
//! The shared regions an emulated core sees, in the order the emulator
//! attaches them.
//!
//! Under QEMU each region is one PCI shared-memory device; the emulator
//! attaches them in exactly this order, so the guest's platform code can
//! pair the i-th device it finds on the bus with the i-th region here and
//! move its BAR to the region's core-physical base.
//!
//! Every device costs boot time (QEMU rebuilds its memory map each time the
//! guest enables one), so neighbouring LUT pages of one kind share a device:
//! a region spans as many consecutive pages as a naturally aligned
//! power-of-two block allows (PCI BARs must be), e.g. the SCC's 24 tile MPBs
//! become one region for tiles 0-15 and one for tiles 16-23. Only the bytes
//! each page really has ([`SharedRegion::parts`]) are meant to be mapped.

use crate::{Chip, LUT_PAGE_SHIFT, LUT_PAGE_SIZE};

/// What starts the kernel's arguments on its command line: QEMU puts the
/// image path first (it may hold spaces and `=`), then what `-append`
/// says; the kernel reads only what follows the last occurrence of this.
pub const ARGS_START: &str = " -- ";

/// I/O port of the emulator's exit device (`isa-debug-exit`): the guest
/// writes a byte there to end its QEMU, which exits with `(byte << 1) | 1`.
pub const EXIT_PORT: u16 = 0xF4;

/// Byte the guest writes to [`EXIT_PORT`] when its program succeeded.
pub const GUEST_SUCCESS: u8 = 0x10;

/// Byte the guest writes to [`EXIT_PORT`] when its program failed.
pub const GUEST_FAILURE: u8 = 0x11;

/// Byte the guest writes to [`EXIT_PORT`] when its program ends the run of
/// every core successfully (`shmem_global_exit(0)`): the run tool stops
/// the other cores wherever they are and counts the run a success.
pub const GUEST_ENDS_RUN: u8 = 0x12;

/// What a shared region holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedRegionKind {
    /// The LSM pages of controllers `first..first + count`, one LUT page each.
    Lsm {
        /// First controller.
        first: u32,
        /// Controllers covered.
        count: u32,
    },
    /// The free LUT entries `first..first + count` (counted from the
    /// address map's first shareable entry): nothing at boot; the emulator
    /// shows there whatever memory the core's LUT points them at.
    Shareable {
        /// First entry, relative to the first shareable one.
        first: u32,
        /// Entries covered.
        count: u32,
    },
    /// The MPBs of tiles `first..first + count`, one LUT page apart.
    Mpb {
        /// First tile.
        first: u32,
        /// Tiles covered.
        count: u32,
    },
    /// The core's own tile's MPB, again, at the own-MPB entry.
    OwnMpb,
    /// The CRBs of tiles `first..first + count`, one LUT page apart.
    Crb {
        /// First tile.
        first: u32,
        /// Tiles covered.
        count: u32,
    },
    /// The core's own tile's CRB, at the own-CRB entry.
    OwnCrb,
    /// The FPGA register bank.
    Fpga,
}

impl SharedRegionKind {
    /// Whether the region holds memory a core may cache (LSM pages and
    /// MPBs), as opposed to registers, which are always accessed uncached.
    /// The emulator gives each core its own, non-coherent view of cacheable
    /// regions.
    pub const fn is_cacheable(self) -> bool {
        matches!(
            self,
            Self::Lsm { .. } | Self::Shareable { .. } | Self::Mpb { .. } | Self::OwnMpb
        )
    }
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

/// A run of bytes inside a region that holds something: one LSM page, one
/// tile's MPB or CRB, an own alias, the FPGA bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionPart {
    /// Core-physical base address.
    pub base: u32,
    /// Bytes.
    pub bytes: u32,
}

impl SharedRegion {
    /// The parts of the region that hold something, lowest first.
    pub fn parts(&self, chip: &Chip) -> impl Iterator<Item = RegionPart> + use<> {
        let (count, bytes) = match self.kind {
            SharedRegionKind::Lsm { count, .. } => (count, LUT_PAGE_SIZE),
            // Mapped page by page once a LUT entry points somewhere.
            SharedRegionKind::Shareable { .. } => (0, 0),
            SharedRegionKind::Mpb { count, .. } => (count, chip.mpb_bytes_per_tile),
            SharedRegionKind::Crb { count, .. } => (count, chip.crb.size),
            SharedRegionKind::OwnMpb => (1, chip.mpb_bytes_per_tile),
            SharedRegionKind::OwnCrb => (1, chip.crb.size),
            SharedRegionKind::Fpga => (1, chip.fpga.size),
        };
        let base = self.base;
        (0..count).map(move |i| RegionPart {
            base: base + i * LUT_PAGE_SIZE,
            bytes,
        })
    }
}

/// Splits `count` LUT pages from entry `first` into naturally aligned
/// power-of-two blocks, as `(offset in pages, pages)`.
fn aligned_blocks(first: u32, count: u32) -> impl Iterator<Item = (u32, u32)> {
    let mut done = 0;
    core::iter::from_fn(move || {
        let left = count - done;
        if left == 0 {
            return None;
        }
        let entry = first + done;
        let alignment = 1 << entry.trailing_zeros().min(31);
        let pages = alignment.min(1 << left.ilog2());
        let block = (done, pages);
        done += pages;
        Some(block)
    })
}

impl Chip {
    /// Every shared region, in attachment order: LSM pages, free entries,
    /// tile MPBs, own MPB, tile CRBs, own CRB, FPGA bank.
    pub fn shared_regions(&self) -> impl Iterator<Item = SharedRegion> + '_ {
        let map = &self.address_map;
        let group = move |first_entry: u8, count: u32, kind: fn(u32, u32) -> SharedRegionKind| {
            aligned_blocks(u32::from(first_entry), count).map(move |(offset, pages)| SharedRegion {
                kind: kind(offset, pages),
                base: (u32::from(first_entry) + offset) << LUT_PAGE_SHIFT,
                size: pages * LUT_PAGE_SIZE,
            })
        };
        let controllers = self.memory_controllers.len() as u32;
        let lsm = group(map.lsm.first, controllers, |first, count| {
            SharedRegionKind::Lsm { first, count }
        });
        let shareable = group(map.shareable.first, map.shareable.len(), |first, count| {
            SharedRegionKind::Shareable { first, count }
        });
        let mpbs = group(map.mpb_first, self.tiles(), |first, count| {
            SharedRegionKind::Mpb { first, count }
        });
        let crbs = group(map.crb_first, self.tiles(), |first, count| {
            SharedRegionKind::Crb { first, count }
        });
        let own_mpb = SharedRegion {
            kind: SharedRegionKind::OwnMpb,
            base: self.own_mpb_base(),
            size: self.mpb_bytes_per_tile.next_power_of_two(),
        };
        let own_crb = SharedRegion {
            kind: SharedRegionKind::OwnCrb,
            base: self.own_crb_base(),
            size: self.crb.size.next_power_of_two(),
        };
        let fpga = SharedRegion {
            kind: SharedRegionKind::Fpga,
            base: self.fpga_base(),
            size: self.fpga.size.next_power_of_two(),
        };
        lsm.chain(shareable)
            .chain(mpbs)
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
    fn aligned_blocks_cover_the_range_exactly() {
        let blocks: Vec<_> = aligned_blocks(192, 24).collect();
        assert_eq!(blocks, [(0, 16), (16, 8)]);
        assert_eq!(aligned_blocks(128, 4).collect::<Vec<_>>(), [(0, 4)]);
        assert_eq!(
            aligned_blocks(100, 48).collect::<Vec<_>>(),
            [(0, 4), (4, 8), (12, 16), (28, 16), (44, 4)]
        );
        for first in 0..64 {
            for count in 0..40 {
                let mut next = 0;
                for (offset, pages) in aligned_blocks(first, count) {
                    assert_eq!(offset, next);
                    assert!(pages.is_power_of_two());
                    assert_eq!((first + offset) % pages, 0, "{first}+{offset}: {pages}");
                    next += pages;
                }
                assert_eq!(next, count);
            }
        }
    }

    #[test]
    fn every_region_is_a_power_of_two_holding_its_parts() {
        for chip in crate::CHIPS.iter().chain([&MINI, &BIG]) {
            for region in chip.shared_regions() {
                assert!(region.size.is_power_of_two(), "{}: {region:?}", chip.name);
                for part in region.parts(chip) {
                    assert!(part.base >= region.base, "{}: {region:?}", chip.name);
                    assert!(part.base + part.bytes <= region.base + (region.size - 1) + 1);
                }
            }
        }
        // 48 KiB of MPB per tile: the own-MPB device is 64 KiB, of which
        // the tile's 48 KiB hold something.
        let own = crate::MESH8X8
            .shared_regions()
            .find(|r| r.kind == SharedRegionKind::OwnMpb)
            .unwrap();
        assert_eq!(own.size, 64 * 1024);
        let parts: Vec<_> = own.parts(&crate::MESH8X8).collect();
        assert_eq!(
            parts,
            [RegionPart {
                base: own.base,
                bytes: 48 * 1024
            }]
        );
    }

    #[test]
    fn scc_needs_sixteen_devices() {
        use SharedRegionKind::*;
        let regions: Vec<_> = SCC.shared_regions().collect();
        let kinds: Vec<_> = regions.iter().map(|r| r.kind).collect();
        let shareable = [
            (0, 4),
            (4, 8),
            (12, 16),
            (28, 16),
            (44, 8),
            (52, 4),
            (56, 2),
            (58, 1),
        ]
        .map(|(first, count)| Shareable { first, count });
        let mut expected = vec![Lsm { first: 0, count: 4 }];
        expected.extend(shareable);
        expected.extend([
            Mpb {
                first: 0,
                count: 16,
            },
            Mpb {
                first: 16,
                count: 8,
            },
            OwnMpb,
            Crb {
                first: 0,
                count: 16,
            },
            Crb {
                first: 16,
                count: 8,
            },
            OwnCrb,
            Fpga,
        ]);
        assert_eq!(kinds, expected);
        // The free entries 132-190 are covered exactly, from 0x8400_0000.
        assert_eq!((regions[1].base, regions[1].size), (0x8400_0000, 64 << 20));
        assert_eq!(regions[8].base + regions[8].size, 0xBF00_0000);
        assert_eq!(regions[1].parts(&SCC).count(), 0);
        assert_eq!((regions[9].base, regions[9].size), (0xC000_0000, 256 << 20));
        assert_eq!(
            (regions[10].base, regions[10].size),
            (0xD000_0000, 128 << 20)
        );
        assert_eq!(
            (regions[11].base, regions[11].size),
            (0xD800_0000, 16 << 10)
        );
        assert_eq!(
            (regions[13].base, regions[13].size),
            (0xF000_0000, 128 << 20)
        );
    }

    #[test]
    fn regions_are_aligned_powers_of_two_and_parts_match_the_address_map() {
        for chip in [SCC, MINI, BIG] {
            let mut mpbs = Vec::new();
            let mut crbs = Vec::new();
            for region in chip.shared_regions() {
                assert!(region.size.is_power_of_two(), "{region:?}");
                assert_eq!(region.base % region.size, 0, "{region:?}");
                for part in region.parts(&chip) {
                    assert!(
                        part.base - region.base + part.bytes <= region.size,
                        "{part:?}"
                    );
                    match region.kind {
                        SharedRegionKind::Mpb { .. } => mpbs.push(part.base),
                        SharedRegionKind::Crb { .. } => crbs.push(part.base),
                        _ => {}
                    }
                }
            }
            let want_mpbs: Vec<_> = chip.all_tiles().map(|t| chip.mpb_base(t)).collect();
            let want_crbs: Vec<_> = chip.all_tiles().map(|t| chip.crb_base(t)).collect();
            assert_eq!(mpbs, want_mpbs, "{}", chip.name);
            assert_eq!(crbs, want_crbs, "{}", chip.name);
        }
    }
}
