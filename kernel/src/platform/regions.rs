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

#[cfg(test)]
mod tests {
    use chip::{CACHE_LINE, LUT_PAGE_SIZE};

    use super::*;
    use crate::target::CHIP;

    #[test]
    fn mpbs_are_mpbt_and_every_other_region_uncached() {
        let (mut mpbs, mut others) = (0, 0);
        for region in CHIP.shared_regions() {
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
        let lines = CHIP.cores() * CACHE_LINE as u32;
        let bytes = wcb_flush_area_bytes(CHIP);
        assert!(bytes.is_multiple_of(PAGE_SIZE));
        assert!(
            bytes >= lines && bytes - lines < PAGE_SIZE,
            "{bytes} for {lines}"
        );
        assert!(bytes < LUT_PAGE_SIZE, "LSM page 0 keeps room for data");
    }
}
