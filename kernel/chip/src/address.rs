// SPDX-License-Identifier: MIT OR Apache-2.0
//! The core-physical address map: which LUT entries do what.
//!
//! A core-physical address selects LUT entry `addr >> 24`; each entry covers
//! one 16 MiB page (thesis 1.3). The map below is the default one every core
//! boots with (thesis Table 2.1, and sccsys.h for the exact entries).

use crate::{Chip, ChipError, CoreId, TileId};

/// Entries per LUT: one per 16 MiB of the 4 GiB core-physical space.
pub const LUT_ENTRIES: usize = 256;
/// Bits of a core-physical address below the LUT index.
pub const LUT_PAGE_SHIFT: u32 = 24;
/// Bytes covered by one LUT entry.
pub const LUT_PAGE_SIZE: u32 = 1 << LUT_PAGE_SHIFT;

/// An inclusive range of LUT entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRange {
    /// First entry.
    pub first: u8,
    /// Last entry (inclusive).
    pub last: u8,
}

impl EntryRange {
    /// Entries `first..=last`.
    pub const fn new(first: u8, last: u8) -> Self {
        Self { first, last }
    }

    /// How many entries.
    pub const fn len(&self) -> u32 {
        self.last as u32 + 1 - self.first as u32
    }

    /// Never true: a range holds at least its first entry.
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// Whether `entry` is in the range.
    pub const fn contains(&self, entry: u8) -> bool {
        entry >= self.first && entry <= self.last
    }

    /// The entries, in order.
    pub fn iter(&self) -> impl Iterator<Item = u8> + use<> {
        self.first..=self.last
    }
}

/// Which LUT entries serve which purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressMap {
    /// Private memory, in the order its pages are numbered at the core's controller.
    pub private: &'static [EntryRange],
    /// Legacy shared memory: entry `lsm.first + m` is one page at controller `m`.
    pub lsm: EntryRange,
    /// Entries left free for shareable DRAM and remote window mappings.
    pub shareable: EntryRange,
    /// Pages of shareable DRAM each core owns behind its own controller
    /// (the thesis's POPSHM, four 16 MiB pages by default): numbered after
    /// the controller's LSM page, in the order of the cores it serves.
    pub popshm_pages: u32,
    /// MPB of tile `t` at entry `mpb_first + t`.
    pub mpb_first: u8,
    /// The core's own tile's MPB.
    pub own_mpb: u8,
    /// CRB of tile `t` at entry `crb_first + t`.
    pub crb_first: u8,
    /// The core's own tile's CRB.
    pub own_crb: u8,
    /// The FPGA register bank behind the system interface.
    pub fpga: u8,
    /// Entries the core's own platform uses, reaching no chip memory: on
    /// the SCC, 253 parks the emulator's unused device registers and 254
    /// holds the local APIC at its architectural address 0xFEE00000.
    pub platform: EntryRange,
}

impl AddressMap {
    /// The SCC's default map: private 0-40 and 255, LSM 128-131, free 132-190,
    /// MPBs 192-215, own MPB 216, CRBs 224-247, own CRB 248, FPGA 249
    /// (thesis Table 2.1 and 1.10; the table's "191-215" is read as 192-215,
    /// as the addresses 0xC0..0xD7 require).
    pub const SCC: AddressMap = AddressMap {
        private: &[EntryRange::new(0, 40), EntryRange::new(255, 255)],
        lsm: EntryRange::new(128, 131),
        shareable: EntryRange::new(132, 190),
        popshm_pages: 4,
        mpb_first: 192,
        own_mpb: 216,
        crb_first: 224,
        own_crb: 248,
        fpga: 249,
        platform: EntryRange::new(253, 254),
    };

    /// Base core-physical address of a LUT entry's page.
    pub const fn entry_base(entry: u8) -> u32 {
        (entry as u32) << LUT_PAGE_SHIFT
    }

    /// Number of private 16 MiB pages per core.
    pub fn private_pages(&self) -> u32 {
        self.private.iter().map(EntryRange::len).sum()
    }

    /// Checks that no entry is claimed twice and tile-indexed ranges fit `tiles` tiles.
    pub(crate) fn check(&self, tiles: u32) -> Result<(), ChipError> {
        self.claimed(tiles).map(|_| ())
    }

    /// Which entries some part of the map claims, for a chip of `tiles`
    /// tiles; an entry claimed twice, or past the last, is an error.
    fn claimed(&self, tiles: u32) -> Result<[bool; LUT_ENTRIES], ChipError> {
        let mut claimed = [false; LUT_ENTRIES];
        let mut claim = |first: u32, count: u32| -> Result<(), ChipError> {
            for e in first..first + count {
                let slot = claimed
                    .get_mut(e as usize)
                    .ok_or(ChipError::LutEntryConflict(e as u16))?;
                if core::mem::replace(slot, true) {
                    return Err(ChipError::LutEntryConflict(e as u16));
                }
            }
            Ok(())
        };
        for r in self.private {
            claim(r.first as u32, r.len())?;
        }
        claim(self.lsm.first as u32, self.lsm.len())?;
        claim(self.shareable.first as u32, self.shareable.len())?;
        claim(self.mpb_first as u32, tiles)?;
        claim(self.own_mpb as u32, 1)?;
        claim(self.crb_first as u32, tiles)?;
        claim(self.own_crb as u32, 1)?;
        claim(self.fpga as u32, 1)?;
        claim(self.platform.first as u32, self.platform.len())?;
        Ok(claimed)
    }
}

impl Chip {
    /// Core-physical base of tile `tile`'s MPB.
    pub const fn mpb_base(&self, tile: TileId) -> u32 {
        AddressMap::entry_base(self.address_map.mpb_first + tile.0)
    }

    /// Core-physical address of `core`'s half of its tile's MPB, reached through the tile's entry.
    pub const fn core_mpb_base(&self, core: crate::CoreId) -> u32 {
        self.mpb_base(self.tile_of(core)) + self.z_of(core) as u32 * self.mpb_bytes_per_core()
    }

    /// Core-physical base of the own tile's MPB.
    pub const fn own_mpb_base(&self) -> u32 {
        AddressMap::entry_base(self.address_map.own_mpb)
    }

    /// Core-physical base of tile `tile`'s configuration register block.
    pub const fn crb_base(&self, tile: TileId) -> u32 {
        AddressMap::entry_base(self.address_map.crb_first + tile.0)
    }

    /// Core-physical base of the own tile's CRB.
    pub const fn own_crb_base(&self) -> u32 {
        AddressMap::entry_base(self.address_map.own_crb)
    }

    /// Core-physical base of the FPGA register bank.
    pub const fn fpga_base(&self) -> u32 {
        AddressMap::entry_base(self.address_map.fpga)
    }

    /// Core-physical base of the legacy shared memory page at controller `mc`.
    pub const fn lsm_base(&self, mc: usize) -> u32 {
        AddressMap::entry_base(self.address_map.lsm.first + mc as u8)
    }

    /// Page number (10-bit LUT address) of controller `mc`'s LSM page: right
    /// after the private pages of all the cores it serves.
    pub fn lsm_page_number(&self, mc: usize) -> u32 {
        self.cores_served(mc) * self.address_map.private_pages()
    }

    /// How many cores controller `mc` serves.
    pub fn cores_served(&self, mc: usize) -> u32 {
        let served = self.memory_controllers[mc].serves;
        served.width as u32 * served.height as u32 * self.cores_per_tile as u32
    }

    /// `core`'s place among the cores its controller serves, in id order.
    pub fn rank_at_controller(&self, core: CoreId) -> u32 {
        let mc = self.controller_of(self.tile_of(core));
        self.all_cores()
            .filter(|c| self.controller_of(self.tile_of(*c)) == mc)
            .position(|c| c == core)
            .expect("a core is served by its own controller") as u32
    }

    /// Where `core`'s shareable pages (POPSHM) lie: its controller and the
    /// first of its [`AddressMap::popshm_pages`] consecutive page numbers,
    /// which follow the controller's LSM page.
    pub fn popshm(&self, core: CoreId) -> (usize, u16) {
        let mc = self.controller_of(self.tile_of(core));
        let first = self.lsm_page_number(mc)
            + 1
            + self.rank_at_controller(core) * self.address_map.popshm_pages;
        (mc, first as u16)
    }

    /// The first LUT entry the address map gives no purpose: it reaches
    /// nothing, so a platform may use its 16 MiB of virtual addresses for
    /// mappings of its own (the kernel's aliases). `None` if the map claims
    /// every entry, or is inconsistent ([`Chip::validate`]).
    pub fn unused_entry(&self) -> Option<u8> {
        let claimed = self.address_map.claimed(self.tiles()).ok()?;
        claimed.iter().position(|c| !c).map(|e| e as u8)
    }

    /// Pages of shared DRAM at controller `mc`: its LSM page and the
    /// POPSHM pages of the cores it serves, from [`Chip::lsm_page_number`].
    pub fn shared_dram_pages(&self, mc: usize) -> u32 {
        1 + self.cores_served(mc) * self.address_map.popshm_pages
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SCC;

    #[test]
    fn scc_addresses_match_sccsys() {
        let tile = |n| SCC.tile(n).unwrap();
        assert_eq!(SCC.mpb_base(tile(0)), 0xC000_0000);
        assert_eq!(SCC.mpb_base(tile(23)), 0xD700_0000);
        assert_eq!(SCC.own_mpb_base(), 0xD800_0000);
        assert_eq!(SCC.crb_base(tile(0)), 0xE000_0000);
        assert_eq!(SCC.crb_base(tile(23)), 0xF700_0000);
        assert_eq!(SCC.own_crb_base(), 0xF800_0000);
        assert_eq!(SCC.fpga_base(), 0xF900_0000);
        assert_eq!(SCC.lsm_base(0), 0x8000_0000);
        assert_eq!(SCC.lsm_base(3), 0x8300_0000);
        // MPB_ADDR(core) = 0xC0000000 + (core/2)*0x1000000 + (core%2)*0x2000.
        for core in SCC.all_cores() {
            let n = core.index() as u32;
            assert_eq!(
                SCC.core_mpb_base(core),
                0xC000_0000 + (n / 2) * 0x0100_0000 + (n % 2) * 0x2000
            );
        }
    }

    #[test]
    fn scc_map_counts_match_the_thesis() {
        let map = AddressMap::SCC;
        assert_eq!(map.private_pages(), 42); // 672 MiB of private memory
        assert_eq!(map.shareable.len(), 59);
        // 12 cores x 42 pages, then the LSM page: 8064 MiB into each controller.
        assert_eq!(SCC.lsm_page_number(0), 504);
    }

    #[test]
    fn the_first_entry_without_a_purpose_is_found() {
        // SCC: private 0-40, then nothing until the LSM at 128.
        assert_eq!(SCC.unused_entry(), Some(41));
        // The second chip's tile ranges end at 194; 195-252 reach nothing.
        assert_eq!(crate::MESH8X8.unused_entry(), Some(195));
        let mut full = SCC;
        full.address_map.shareable = EntryRange::new(132, 191);
        const PRIVATE: &[EntryRange] = &[
            EntryRange::new(0, 127),
            EntryRange::new(217, 223),
            EntryRange::new(250, 252),
            EntryRange::new(255, 255),
        ];
        full.address_map.private = PRIVATE;
        assert_eq!(full.unused_entry(), None);
    }

    #[test]
    fn overlapping_maps_are_refused() {
        let mut map = AddressMap::SCC;
        map.fpga = 248;
        assert_eq!(map.check(24), Err(ChipError::LutEntryConflict(248)));
        let mut map = AddressMap::SCC;
        map.crb_first = 240;
        assert_eq!(map.check(24), Err(ChipError::LutEntryConflict(255)));
        let mut map = AddressMap::SCC;
        const PRIVATE: &[EntryRange] = &[EntryRange::new(0, 40)];
        map.private = PRIVATE;
        map.crb_first = 250;
        assert_eq!(map.check(24), Err(ChipError::LutEntryConflict(256)));
    }
}
