// SPDX-License-Identifier: GPL-2.0-or-later
//! The memory type of a guest access, read from the guest's page tables.
//!
//! The SCC takes the memory type of every 4 KiB page from its page-table
//! entry: PCD, PWT and PMB (bit 7, the Pentium's PSE/PAT position; see
//! `chip::MemoryType`). QEMU's memory callbacks give the virtual and the
//! physical address of an access but not the PTE, so the model walks the
//! guest's two-level 32-bit tables itself, from CR3, and caches what it
//! found in a small TLB. Like the CPU's TLB, it is flushed only by a CR3
//! write (everything) and `invlpg` (one page): a guest that changes a PTE
//! without invalidating keeps the old type, as on silicon.
//!
//! Choices, for what the thesis and the Pentium manual leave open:
//! - **Paging off** (CR0.PG = 0): there are no PTEs, so no PMB and no PCD:
//!   every access is DCM, as the kernel's private memory is. The kernel
//!   turns paging on before it touches any shared region.
//! - **Directory entries**: CR4.PSE is off on the SCC (bit 7 is PMB), so a
//!   directory entry always points to a page table and its own PCD/PWT only
//!   govern caching of that table, not of the page.
//! - **A walk that finds no present entry** is reported as an error: the
//!   guest took a page fault on that access, so QEMU never reports it as a
//!   completed memory access; seeing one is a model bug worth naming.

use chip::MemoryType;
use chip::PTE_PWT;

/// Bit of a directory or table entry: the entry is present.
const PRESENT: u32 = 1 << 0;
/// Bits of an entry that hold the physical frame.
const FRAME: u32 = !0xFFF;
/// CR0 bit that turns paging on.
const CR0_PG: u32 = 1 << 31;

/// What the page tables say about one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageType {
    /// How the page is cached.
    pub memory_type: MemoryType,
    /// The raw PWT bit: L1 write-through also for DCM pages.
    pub write_through: bool,
}

impl PageType {
    /// The type of every access while paging is off.
    pub const PAGING_OFF: PageType = PageType {
        memory_type: MemoryType::Dcm,
        write_through: false,
    };

    fn from_pte(pte: u32) -> Self {
        Self {
            memory_type: MemoryType::from_pte(pte),
            write_through: pte & PTE_PWT != 0,
        }
    }
}

/// Why a walk found no page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WalkError {
    /// The directory entry for the address is not present.
    #[error("virtual {vaddr:#010x}: page directory entry {index} (CR3 {cr3:#010x}) is not present")]
    NoTable {
        /// The address walked.
        vaddr: u32,
        /// CR3 at the time.
        cr3: u32,
        /// Directory index.
        index: u32,
    },
    /// The table entry for the address is not present.
    #[error("virtual {vaddr:#010x}: page table entry {index} (table {table:#010x}) is not present")]
    NoPage {
        /// The address walked.
        vaddr: u32,
        /// Physical address of the page table.
        table: u32,
        /// Table index.
        index: u32,
    },
}

/// Walks the two-level tables at `cr3` for `vaddr`, reading guest-physical
/// words with `read`.
pub fn walk(cr3: u32, vaddr: u32, mut read: impl FnMut(u32) -> u32) -> Result<PageType, WalkError> {
    let directory = cr3 & FRAME;
    let dir_index = vaddr >> 22;
    let pde = read(directory + dir_index * 4);
    if pde & PRESENT == 0 {
        return Err(WalkError::NoTable {
            vaddr,
            cr3,
            index: dir_index,
        });
    }
    let table = pde & FRAME;
    let table_index = (vaddr >> 12) & 0x3FF;
    let pte = read(table + table_index * 4);
    if pte & PRESENT == 0 {
        return Err(WalkError::NoPage {
            vaddr,
            table,
            index: table_index,
        });
    }
    Ok(PageType::from_pte(pte))
}

/// Entries in the [`Tlb`]: direct-mapped by virtual page number.
pub const TLB_ENTRIES: usize = 64;

/// Counters of a [`Tlb`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TlbStats {
    /// Lookups answered from the TLB.
    pub hits: u64,
    /// Lookups that walked the tables.
    pub walks: u64,
    /// Whole flushes (CR3 writes).
    pub flushes: u64,
    /// Single-page invalidations (`invlpg`).
    pub invalidations: u64,
}

/// The memory types of recently used pages of one core.
#[derive(Debug, Clone)]
pub struct Tlb {
    entries: [Option<(u32, PageType)>; TLB_ENTRIES],
    stats: TlbStats,
}

impl Default for Tlb {
    fn default() -> Self {
        Self::new()
    }
}

impl Tlb {
    /// An empty TLB.
    pub const fn new() -> Self {
        Self {
            entries: [None; TLB_ENTRIES],
            stats: TlbStats {
                hits: 0,
                walks: 0,
                flushes: 0,
                invalidations: 0,
            },
        }
    }

    fn slot(page: u32) -> usize {
        page as usize % TLB_ENTRIES
    }

    /// The type of the page holding `vaddr`, from the TLB or by walking
    /// the tables at `cr3` (then remembered). With paging off (per `cr0`)
    /// everything is [`PageType::PAGING_OFF`] and nothing is remembered.
    pub fn page_type(
        &mut self,
        cr0: u32,
        cr3: u32,
        vaddr: u32,
        read: impl FnMut(u32) -> u32,
    ) -> Result<PageType, WalkError> {
        if cr0 & CR0_PG == 0 {
            return Ok(PageType::PAGING_OFF);
        }
        let page = vaddr >> 12;
        let slot = &mut self.entries[Self::slot(page)];
        if let Some((cached, page_type)) = *slot
            && cached == page
        {
            self.stats.hits += 1;
            return Ok(page_type);
        }
        self.stats.walks += 1;
        let page_type = walk(cr3, vaddr, read)?;
        *slot = Some((page, page_type));
        Ok(page_type)
    }

    /// Forgets everything: the guest wrote CR3.
    pub fn flush(&mut self) {
        self.entries = [None; TLB_ENTRIES];
        self.stats.flushes += 1;
    }

    /// Forgets the page holding `vaddr`: the guest executed `invlpg`.
    pub fn invalidate(&mut self, vaddr: u32) {
        let page = vaddr >> 12;
        let slot = &mut self.entries[Self::slot(page)];
        if slot.is_some_and(|(cached, _)| cached == page) {
            *slot = None;
        }
        self.stats.invalidations += 1;
    }

    /// The counters so far.
    pub fn stats(&self) -> TlbStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use chip::{PTE_PCD, PTE_PMB};

    use super::*;

    const CR0_PAGING: u32 = CR0_PG | 1;
    const DIRECTORY: u32 = 0x1000;
    const TABLE: u32 = 0x2000;

    /// Guest-physical memory with one directory and one table mapping the
    /// first 4 MiB; `pte(page)` gives each page's entry.
    struct Memory(Vec<u32>);

    impl Memory {
        fn new(pte: impl Fn(u32) -> u32) -> Self {
            let mut words = vec![0; 0x3000 / 4];
            words[(DIRECTORY / 4) as usize] = TABLE | PRESENT | 0x2;
            for page in 0..1024 {
                words[(TABLE / 4 + page) as usize] = pte(page);
            }
            Self(words)
        }

        fn read(&self) -> impl FnMut(u32) -> u32 + '_ {
            |addr| self.0.get((addr / 4) as usize).copied().unwrap_or(0)
        }

        fn set_pte(&mut self, page: u32, value: u32) {
            self.0[(TABLE / 4 + page) as usize] = value;
        }
    }

    fn present(page: u32, ty: MemoryType) -> u32 {
        (page << 12) | PRESENT | 0x2 | ty.pte_bits()
    }

    #[test]
    fn every_memory_type_comes_from_its_pte_bits() {
        let memory = Memory::new(|page| present(page, MemoryType::ALL[page as usize % 5]));
        for page in 0..10u32 {
            let found = walk(DIRECTORY, page << 12 | 0x123, memory.read()).unwrap();
            assert_eq!(
                found.memory_type,
                MemoryType::ALL[page as usize % 5],
                "page {page}"
            );
        }
        // DCM with PWT: DCM, but L1 write-through.
        let memory = Memory::new(|page| (page << 12) | PRESENT | PTE_PWT);
        let found = walk(DIRECTORY, 0x5000, memory.read()).unwrap();
        assert_eq!(
            found,
            PageType {
                memory_type: MemoryType::Dcm,
                write_through: true
            }
        );
        // The directory entry's own cache bits do not matter.
        let mut memory = Memory::new(|page| present(page, MemoryType::MpbtWb));
        memory.0[(DIRECTORY / 4) as usize] |= PTE_PCD | PTE_PMB;
        assert_eq!(
            walk(DIRECTORY, 0x7000, memory.read()).unwrap().memory_type,
            MemoryType::MpbtWb
        );
    }

    #[test]
    fn missing_entries_are_named() {
        let memory = Memory::new(|page| {
            if page == 3 {
                0
            } else {
                present(page, MemoryType::Dcm)
            }
        });
        assert_eq!(
            walk(DIRECTORY, 0x3004, memory.read()),
            Err(WalkError::NoPage {
                vaddr: 0x3004,
                table: TABLE,
                index: 3
            })
        );
        assert_eq!(
            walk(DIRECTORY, 0x8040_0000, memory.read()),
            Err(WalkError::NoTable {
                vaddr: 0x8040_0000,
                cr3: DIRECTORY,
                index: 0x201
            })
        );
        let message = walk(DIRECTORY, 0x3004, memory.read())
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "virtual 0x00003004: page table entry 3 (table 0x00002000) is not present"
        );
    }

    #[test]
    fn paging_off_is_dcm_without_a_walk() {
        let mut tlb = Tlb::new();
        let no_memory = |_: u32| -> u32 { panic!("no walk with paging off") };
        assert_eq!(
            tlb.page_type(1, 0, 0xC000_0000, no_memory),
            Ok(PageType::PAGING_OFF)
        );
        assert_eq!(tlb.stats(), TlbStats::default());
    }

    #[test]
    fn a_changed_pte_is_seen_only_after_invlpg_or_a_cr3_write() {
        let mut memory = Memory::new(|page| present(page, MemoryType::Ncm));
        let mut tlb = Tlb::new();
        let ty = |tlb: &mut Tlb, memory: &Memory| {
            tlb.page_type(CR0_PAGING, DIRECTORY, 0x5010, memory.read())
                .unwrap()
                .memory_type
        };
        assert_eq!(ty(&mut tlb, &memory), MemoryType::Ncm);
        memory.set_pte(5, present(5, MemoryType::MpbtWt));
        assert_eq!(
            ty(&mut tlb, &memory),
            MemoryType::Ncm,
            "stale until invalidated, as on silicon"
        );
        tlb.invalidate(0x5FFF);
        assert_eq!(ty(&mut tlb, &memory), MemoryType::MpbtWt);
        memory.set_pte(5, present(5, MemoryType::Dcm));
        tlb.invalidate(0x6000); // another page: no effect on page 5
        assert_eq!(ty(&mut tlb, &memory), MemoryType::MpbtWt);
        tlb.flush();
        assert_eq!(ty(&mut tlb, &memory), MemoryType::Dcm);
        assert_eq!(
            tlb.stats(),
            TlbStats {
                hits: 2,
                walks: 3,
                flushes: 1,
                invalidations: 2
            }
        );
    }

    #[test]
    fn pages_sharing_a_slot_replace_each_other() {
        let memory = Memory::new(|page| present(page, MemoryType::ALL[page as usize % 2]));
        let mut tlb = Tlb::new();
        let far = (TLB_ENTRIES as u32) << 12; // same slot as page 0
        let page_type =
            |tlb: &mut Tlb, vaddr| tlb.page_type(CR0_PAGING, DIRECTORY, vaddr, memory.read());
        assert_eq!(page_type(&mut tlb, 0).unwrap().memory_type, MemoryType::Dcm);
        assert_eq!(
            page_type(&mut tlb, far).unwrap().memory_type,
            MemoryType::Dcm
        );
        assert_eq!(
            page_type(&mut tlb, far + 0x1000).unwrap().memory_type,
            MemoryType::Ncm
        );
        assert_eq!(page_type(&mut tlb, 0).unwrap().memory_type, MemoryType::Dcm);
        assert_eq!(tlb.stats().walks, 4);
    }
}
