// SPDX-License-Identifier: MIT OR Apache-2.0
//! How the kernel maps the chip's shared regions: the memory type of each
//! kind, and the write-combine flush lines at the end of LSM page 0.

use chip::{Chip, MemoryType, SharedRegionKind};

use crate::arch::x86::paging::PAGE_SIZE;

/// The memory type SCC software gives each shared region: MPBs are MPBT
/// (L1 only, write-combined), registers and the LSM are uncached.
pub fn memory_type(kind: SharedRegionKind) -> MemoryType {
    match kind {
        SharedRegionKind::Mpb { .. } | SharedRegionKind::OwnMpb => MemoryType::MpbtWb,
        SharedRegionKind::Lsm { .. }
        | SharedRegionKind::Shareable { .. }
        | SharedRegionKind::Crb { .. }
        | SharedRegionKind::OwnCrb
        | SharedRegionKind::Fpga => MemoryType::Ncm,
    }
}

/// Bytes at the end of LSM page 0 that hold one write-combine-buffer flush
/// line per core, mapped MPBT so a write there pushes the buffer out.
pub fn wcb_flush_area_bytes(chip: &Chip) -> u32 {
    (chip.cores() * chip::CACHE_LINE as u32).next_multiple_of(PAGE_SIZE)
}

/// The LUT entry whose 16 MiB of virtual addresses the kernel uses for
/// aliases (pages that reach shared memory at a core-physical address
/// other than their own): the first one the chip's map gives no purpose,
/// so no identity mapping uses it. Before that, the local APIC at
/// `local_apic` must lie in an entry the chip leaves to the platform.
///
/// Return values: `Err(what)` naming what the map leaves no entry for.
pub fn alias_entry(chip: &Chip, local_apic: u32) -> Result<u8, &'static str> {
    let apic_entry = (local_apic >> chip::LUT_PAGE_SHIFT) as u8;
    if !chip.address_map.platform.contains(apic_entry) {
        return Err("the local APIC");
    }
    chip.unused_entry().ok_or("the kernel's alias window")
}

#[cfg(test)]
mod tests {
    use chip::{CACHE_LINE, LUT_PAGE_SIZE};

    use super::*;

    /// The local APIC's architectural address (`arch::x86::timer`).
    const LOCAL_APIC: u32 = 0xFEE0_0000;

    #[test]
    fn every_chip_leaves_the_platform_its_entries() {
        assert_eq!(alias_entry(&chip::SCC, LOCAL_APIC), Ok(41));
        assert_eq!(alias_entry(&chip::MESH8X8, LOCAL_APIC), Ok(195));
        for chip in chip::CHIPS {
            let entry = alias_entry(chip, LOCAL_APIC).unwrap();
            let base = chip::AddressMap::entry_base(entry);
            assert!(
                chip.shared_regions()
                    .all(|r| r.base + (r.size - 1) < base || r.base > base + (LUT_PAGE_SIZE - 1)),
                "{}",
                chip.name
            );
        }
        let mut chip = chip::SCC;
        chip.address_map.platform = chip::EntryRange::new(253, 253);
        assert_eq!(alias_entry(&chip, LOCAL_APIC), Err("the local APIC"));
    }

    #[test]
    fn mpbs_are_mpbt_and_every_other_region_uncached() {
        let (mut mpbs, mut others) = (0, 0);
        for region in chip::CHIPS.iter().flat_map(|c| c.shared_regions()) {
            let ty = memory_type(region.kind);
            if matches!(
                region.kind,
                SharedRegionKind::Mpb { .. } | SharedRegionKind::OwnMpb
            ) {
                assert_eq!(ty, MemoryType::MpbtWb, "{:?}", region.kind);
                mpbs += 1;
            } else {
                assert_eq!(ty, MemoryType::Ncm, "{:?}", region.kind);
                others += 1;
            }
        }
        assert!(
            mpbs > 0 && others > 0,
            "{mpbs} MPB and {others} other regions"
        );
    }

    #[test]
    fn the_flush_area_is_the_fewest_pages_that_hold_a_line_per_core() {
        for chip in chip::CHIPS {
            let lines = chip.cores() * CACHE_LINE as u32;
            let bytes = wcb_flush_area_bytes(chip);
            assert!(bytes.is_multiple_of(PAGE_SIZE));
            assert!(
                bytes >= lines && bytes - lines < PAGE_SIZE,
                "{bytes} for {lines}"
            );
            assert!(bytes < LUT_PAGE_SIZE, "LSM page 0 keeps room for data");
        }
    }
}
