// SPDX-License-Identifier: MIT OR Apache-2.0
//! SCC memory types and their page-table bits (thesis 1.5).

/// PTE bit 3: L1 write-through.
pub const PTE_PWT: u32 = 1 << 3;
/// PTE bit 4: caching disabled.
pub const PTE_PCD: u32 = 1 << 4;
/// PTE bit 7 (PSE/PAT on other x86): the SCC's message-buffer type. Reads
/// skip L2 and tag the L1 line MPBT; writes go through the write-combine
/// buffer (sccsys.h: `_PAGE_PMB == _PAGE_PSE`). CR4.PSE must stay off.
pub const PTE_PMB: u32 = 1 << 7;

/// How a 4 KiB page is cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryType {
    /// Definitely cacheable: L1 and L2 write-back. Ordinary private memory.
    Dcm,
    /// Non-cacheable: every access goes to memory.
    Ncm,
    /// Non-cacheable, but writes combine in the write-combine buffer.
    NcmWcb,
    /// Message-buffer type, L1 write-back: cached in L1 only, tagged MPBT so
    /// CL1INVMB drops it; a modified line leaves only when evicted.
    MpbtWb,
    /// Message-buffer type, L1 write-through: cached in L1 only, writes go
    /// through the write-combine buffer.
    MpbtWt,
}

impl MemoryType {
    /// All types, in declaration order.
    pub const ALL: [MemoryType; 5] = [
        Self::Dcm,
        Self::Ncm,
        Self::NcmWcb,
        Self::MpbtWb,
        Self::MpbtWt,
    ];

    /// The PTE bits (PCD, PWT, PMB) that select this type.
    pub const fn pte_bits(self) -> u32 {
        match self {
            Self::Dcm => 0,
            Self::Ncm => PTE_PCD,
            Self::NcmWcb => PTE_PCD | PTE_PMB,
            Self::MpbtWb => PTE_PMB,
            Self::MpbtWt => PTE_PMB | PTE_PWT,
        }
    }

    /// The type a PTE gives. PCD wins over everything; PWT without PMB keeps
    /// DCM (L2 stays write-back, the thesis calls it "hardly useful"), so the
    /// raw PWT bit must be read separately where the L1 policy matters.
    pub const fn from_pte(pte: u32) -> Self {
        let pcd = pte & PTE_PCD != 0;
        let pmb = pte & PTE_PMB != 0;
        let pwt = pte & PTE_PWT != 0;
        match (pcd, pmb, pwt) {
            (true, false, _) => Self::Ncm,
            (true, true, _) => Self::NcmWcb,
            (false, true, false) => Self::MpbtWb,
            (false, true, true) => Self::MpbtWt,
            (false, false, _) => Self::Dcm,
        }
    }

    /// Short name, as the thesis writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Dcm => "DCM",
            Self::Ncm => "NCM",
            Self::NcmWcb => "NCM+WCB",
            Self::MpbtWb => "MPBT-WB",
            Self::MpbtWt => "MPBT-WT",
        }
    }

    /// Whether writes pass through the write-combine buffer.
    pub const fn uses_wcb(self) -> bool {
        matches!(self, Self::NcmWcb | Self::MpbtWb | Self::MpbtWt)
    }
}

/// The names a program's memory-type setting gives.
impl crate::settings::Choice for MemoryType {
    const ALL: &'static [Self] = &Self::ALL;
    const NAMES: &'static [&'static str] = &["dcm", "ncm", "ncm-wcb", "mpbt-wb", "mpbt-wt"];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips_through_its_pte_bits() {
        for t in MemoryType::ALL {
            assert_eq!(MemoryType::from_pte(t.pte_bits()), t, "{}", t.name());
            // Other PTE bits (present, writable, accessed, dirty, frame) do not matter.
            assert_eq!(MemoryType::from_pte(t.pte_bits() | 0xFFFF_F063), t);
        }
    }

    #[test]
    fn bit_positions_are_the_scc_ones() {
        assert_eq!(MemoryType::MpbtWb.pte_bits(), 0x80);
        assert_eq!(MemoryType::MpbtWt.pte_bits(), 0x88);
        assert_eq!(MemoryType::Ncm.pte_bits(), 0x10);
        assert_eq!(MemoryType::NcmWcb.pte_bits(), 0x90);
        assert_eq!(MemoryType::from_pte(PTE_PWT), MemoryType::Dcm);
        assert_eq!(MemoryType::from_pte(PTE_PCD | PTE_PWT), MemoryType::Ncm);
    }
}
