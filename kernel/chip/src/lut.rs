// SPDX-License-Identifier: MIT OR Apache-2.0
//! LUT entries: where a 16 MiB page of core-physical memory goes on the mesh.

use crate::{AddressMap, Chip, CoreId, LUT_ENTRIES, Port, Subdest, TileCoord, TileId};

/// One 22-bit LUT entry, LSB first: `address:10 | subdest:3 | x:4 | y:4 | bypass:1`.
///
/// `address` is the 16 MiB page number at the destination: with the 24
/// offset bits of the core-physical address it forms the 34-bit system
/// address (thesis 1.3, sccsys.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LutEntry {
    /// Page number at the destination (10 bits).
    pub address: u16,
    /// Destination port.
    pub subdest: Subdest,
    /// Destination router.
    pub tile: TileCoord,
    /// The local-bypass bit; the SCC cannot use it (a hardware bug, thesis 1.4).
    pub bypass: bool,
}

/// What a LUT entry reaches, in terms of the chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Page `page` of the DRAM behind memory controller `controller`.
    Dram {
        /// Index into [`Chip::memory_controllers`].
        controller: usize,
        /// Page number there.
        page: u16,
    },
    /// A tile's message passing buffer.
    Mpb(TileId),
    /// A tile's configuration register block.
    Crb(TileId),
    /// The FPGA register bank behind the system interface.
    Fpga,
    /// Nothing this chip has: a core port, a router port without a device,
    /// or a router outside the mesh.
    Nothing,
}

impl LutEntry {
    /// Mask of the bits an entry occupies.
    pub const MASK: u32 = (1 << 22) - 1;

    /// An entry that reaches nothing (all bits zero: core 0 of tile (0,0)).
    pub const UNUSED: LutEntry = LutEntry::decode(0);

    /// An entry to `port`, page `address` there.
    pub const fn new(port: Port, address: u16) -> Self {
        Self {
            address: address & 0x3FF,
            subdest: port.subdest,
            tile: port.tile,
            bypass: false,
        }
    }

    /// The register value.
    pub const fn encode(self) -> u32 {
        (self.address as u32 & 0x3FF)
            | ((self.subdest as u32) << 10)
            | ((self.tile.x as u32 & 0xF) << 13)
            | ((self.tile.y as u32 & 0xF) << 17)
            | ((self.bypass as u32) << 21)
    }

    /// The entry a register value holds; bits above 21 are ignored.
    pub const fn decode(raw: u32) -> Self {
        Self {
            address: (raw & 0x3FF) as u16,
            subdest: Subdest::from_code(((raw >> 10) & 7) as u8),
            tile: TileCoord {
                x: ((raw >> 13) & 0xF) as u8,
                y: ((raw >> 17) & 0xF) as u8,
            },
            bypass: (raw >> 21) & 1 == 1,
        }
    }

    /// The 34-bit system address of `offset` (low 24 bits) within this entry's page.
    pub const fn system_address(self, offset: u32) -> u64 {
        ((self.address as u64) << 24) | (offset as u64 & 0xFF_FFFF)
    }
}

impl Chip {
    /// What `entry` reaches on this chip.
    pub fn target_of(&self, entry: LutEntry) -> Target {
        let Ok(tile) = self.tile_at(entry.tile) else {
            return Target::Nothing;
        };
        match entry.subdest {
            Subdest::Mpb => Target::Mpb(tile),
            Subdest::Crb => Target::Crb(tile),
            Subdest::Core0 | Subdest::Core1 => Target::Nothing,
            _ => {
                let port = Port {
                    tile: entry.tile,
                    subdest: entry.subdest,
                };
                if let Some(controller) = self
                    .memory_controllers
                    .iter()
                    .position(|mc| mc.port == port)
                {
                    Target::Dram {
                        controller,
                        page: entry.address,
                    }
                } else if port == self.system_interface {
                    Target::Fpga
                } else {
                    Target::Nothing
                }
            }
        }
    }

    /// The LUT `core` boots with.
    ///
    /// Private pages: the cores a controller serves, in id order, each own
    /// `private_pages()` consecutive pages from page 0; the thesis gives the
    /// counts, not this numbering, which is ours. LSM: one page per
    /// controller, after all private pages ([`Chip::lsm_page_number`]).
    /// Entries the map does not name reach nothing.
    pub fn default_lut(&self, core: CoreId) -> [LutEntry; LUT_ENTRIES] {
        let map = &self.address_map;
        let mut lut = [LutEntry::UNUSED; LUT_ENTRIES];
        let tile = self.tile_of(core);
        let mc = self.controller_of(tile);
        let mc_port = self.memory_controllers[mc].port;
        let rank_at_mc = self.rank_at_controller(core);
        let first_page = rank_at_mc * map.private_pages();
        for (k, entry) in map.private.iter().flat_map(|r| r.iter()).enumerate() {
            lut[entry as usize] = LutEntry::new(mc_port, (first_page + k as u32) as u16);
        }
        for (m, controller) in self.memory_controllers.iter().enumerate() {
            lut[map.lsm.first as usize + m] =
                LutEntry::new(controller.port, self.lsm_page_number(m) as u16);
        }
        for t in self.all_tiles() {
            let coord = self.tile_coord(t);
            lut[map.mpb_first as usize + t.index()] = LutEntry::new(
                Port {
                    tile: coord,
                    subdest: Subdest::Mpb,
                },
                0,
            );
            lut[map.crb_first as usize + t.index()] = LutEntry::new(
                Port {
                    tile: coord,
                    subdest: Subdest::Crb,
                },
                0,
            );
        }
        let own = self.tile_coord(tile);
        lut[map.own_mpb as usize] = LutEntry::new(
            Port {
                tile: own,
                subdest: Subdest::Mpb,
            },
            0,
        );
        lut[map.own_crb as usize] = LutEntry::new(
            Port {
                tile: own,
                subdest: Subdest::Crb,
            },
            0,
        );
        lut[map.fpga as usize] = LutEntry::new(self.system_interface, 0);
        lut
    }

    /// The LUT entry a core-physical address selects.
    pub const fn lut_index(addr: u32) -> usize {
        (addr >> crate::LUT_PAGE_SHIFT) as usize
    }

    /// Core-physical base address of LUT entry `index`.
    pub const fn lut_page_base(index: u8) -> u32 {
        AddressMap::entry_base(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SCC;
    use crate::tests::{BIG, MINI};

    #[test]
    fn encode_decode_round_trips_every_field() {
        for raw in [0u32, 1, 0x3FF, 0x3FF_FFF, 0x155_555, 0x2AA_AAA, 0x123_456] {
            assert_eq!(LutEntry::decode(raw).encode(), raw);
        }
        let e = LutEntry {
            address: 0x2A5,
            subdest: Subdest::PeriWest,
            tile: TileCoord { x: 5, y: 3 },
            bypass: true,
        };
        assert_eq!(
            e.encode(),
            0x2A5 | (6 << 10) | (5 << 13) | (3 << 17) | (1 << 21)
        );
        assert_eq!(LutEntry::decode(e.encode()), e);
        assert_eq!(LutEntry::decode(e.encode() | 0xFFC0_0000), e);
    }

    #[test]
    fn system_address_joins_page_and_offset() {
        let e = LutEntry::new(Port::new(0, 0, Subdest::PeriWest), 504);
        assert_eq!(e.system_address(0x12_3456), (504u64 << 24) | 0x12_3456);
        assert_eq!(e.system_address(0xFF12_3456), (504u64 << 24) | 0x12_3456);
    }

    #[test]
    fn default_scc_lut_reaches_what_the_address_map_says() {
        let core = SCC.core(29).unwrap(); // tile (2,2), z=1, controller at (0,2)
        let lut = SCC.default_lut(core);
        let target = |addr: u32| SCC.target_of(lut[Chip::lut_index(addr)]);
        for t in SCC.all_tiles() {
            assert_eq!(target(SCC.mpb_base(t)), Target::Mpb(t));
            assert_eq!(target(SCC.crb_base(t)), Target::Crb(t));
        }
        let own = SCC.tile_of(core);
        assert_eq!(target(SCC.own_mpb_base()), Target::Mpb(own));
        assert_eq!(target(SCC.own_crb_base()), Target::Crb(own));
        assert_eq!(target(SCC.fpga_base()), Target::Fpga);
        for m in 0..4 {
            assert_eq!(
                target(SCC.lsm_base(m)),
                Target::Dram {
                    controller: m,
                    page: 504
                }
            );
        }
        // Core 29 is the 6th core (index 5) in id order behind controller 2.
        assert_eq!(
            target(0),
            Target::Dram {
                controller: 2,
                page: 5 * 42
            }
        );
        assert_eq!(
            target(40 << 24),
            Target::Dram {
                controller: 2,
                page: 5 * 42 + 40
            }
        );
        assert_eq!(
            target(0xFF00_0000),
            Target::Dram {
                controller: 2,
                page: 5 * 42 + 41
            }
        );
        for free in AddressMap::SCC.shareable.iter() {
            assert_eq!(
                SCC.target_of(lut[free as usize]),
                Target::Nothing,
                "entry {free}"
            );
        }
    }

    #[test]
    fn private_pages_never_overlap_between_cores() {
        for chip in [SCC, MINI, BIG] {
            let mut seen = std::collections::HashSet::new();
            for core in chip.all_cores() {
                let lut = chip.default_lut(core);
                for r in chip.address_map.private {
                    for e in r.iter() {
                        let Target::Dram { controller, page } = chip.target_of(lut[e as usize])
                        else {
                            panic!("{}: private entry {e} of {core} is not DRAM", chip.name);
                        };
                        assert!(
                            seen.insert((controller, page)),
                            "{}: page shared",
                            chip.name
                        );
                        assert!(page < chip.lsm_page_number(controller) as u16);
                    }
                }
            }
        }
    }

    #[test]
    fn entries_to_nowhere_are_recognised() {
        assert_eq!(SCC.target_of(LutEntry::UNUSED), Target::Nothing);
        let outside = LutEntry::new(Port::new(6, 0, Subdest::Mpb), 0);
        assert_eq!(SCC.target_of(outside), Target::Nothing);
        let no_device = LutEntry::new(Port::new(2, 2, Subdest::PeriNorth), 0);
        assert_eq!(SCC.target_of(no_device), Target::Nothing);
    }
}
