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
