// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two-level 32-bit paging with 4 KiB pages and the SCC memory types.
//!
//! Every page carries its memory type in PCD, PWT and PMB (PTE bit 7, the
//! Pentium's PSE position; see `chip::MemoryType`). Large pages would turn
//! bit 7 of a directory entry into "page size", so CR4.PSE stays off and
//! everything is mapped with 4 KiB pages. The kernel maps physical memory
//! at the same virtual address (identity), so a core-physical address from
//! the chip definition is also the pointer to use.
//!
//! The entry format and the split of an address into table indices are
//! pure functions, built and tested on the host too; [`AddressSpace`],
//! which writes the tables through raw pointers and loads CR3, is x86-only.

use chip::MemoryType;
use x86::bits32::paging::{PAddr, PDEntry, PDFlags, PTEntry, PTFlags};
#[cfg(target_arch = "x86")]
use x86::controlregs::{Cr0, Cr4, cr0, cr0_write, cr3_write, cr4, cr4_write};

#[cfg(target_arch = "x86")]
use super::instructions::invlpg;

/// Bytes in a page.
pub const PAGE_SIZE: u32 = 4096;
/// Entries in a page directory or a page table.
const ENTRIES: usize = 1024;

/// Why a mapping could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    /// No free frame for a page table.
    OutOfFrames,
    /// The page at this address is mapped already.
    AlreadyMapped(u32),
    /// The page at this address is not mapped.
    NotMapped(u32),
    /// Start or length is not a multiple of the page size, or the range wraps.
    BadRange {
        /// First byte.
        start: u32,
        /// Bytes.
        len: u32,
    },
}

impl core::fmt::Display for MapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::OutOfFrames => f.write_str("out of page frames for page tables"),
            Self::AlreadyMapped(a) => write!(f, "page {a:#010x} is mapped twice"),
            Self::NotMapped(a) => write!(f, "page {a:#010x} is not mapped"),
            Self::BadRange { start, len } => {
                write!(
                    f,
                    "range {start:#010x}+{len:#x} is not page-aligned or wraps"
                )
            }
        }
    }
}

/// What a mapped page allows besides reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only: a write faults, in the kernel too (CR0.WP is set).
    ReadOnly,
    /// Reads and writes.
    ReadWrite,
}

/// The page-table entry that maps the page at physical `frame` with
/// memory type `ty` and access `access`: present, supervisor only, and
/// PCD, PWT and PMB as `ty` selects them.
///
/// # Panics
/// If `frame` is not page-aligned.
pub fn page_entry(frame: u32, ty: MemoryType, access: Access) -> PTEntry {
    assert!(
        frame.is_multiple_of(PAGE_SIZE),
        "frame {frame:#010x} is not page-aligned"
    );
    let mut flags = PTFlags::P | PTFlags::from_bits_truncate(ty.pte_bits());
    flags.set(PTFlags::RW, access == Access::ReadWrite);
    PTEntry::new(PAddr(frame), flags)
}

/// The page-directory entry for the page table at physical `table`:
/// present and writable, so that each page's own entry alone decides
/// whether it may be written. PCD and PWT stay clear (the table is cached
/// like the rest of private RAM) and so does bit 7, which would make the
/// entry a 4 MiB page if CR4.PSE were on.
///
/// # Panics
/// If `table` is not page-aligned.
pub fn directory_entry(table: u32) -> PDEntry {
    assert!(
        table.is_multiple_of(PAGE_SIZE),
        "page table {table:#010x} is not page-aligned"
    );
    PDEntry::new(PAddr(table), PDFlags::P | PDFlags::RW)
}

/// The page-directory index (bits 31-22) and the page-table index (bits
/// 21-12) of virtual address `virt`.
pub fn indices(virt: u32) -> (usize, usize) {
    let virt = virt as usize;
    (virt >> 22, (virt >> 12) & (ENTRIES - 1))
}

/// The pages of `[start, start + len)`, lowest first.
///
/// # Errors
/// [`MapError::BadRange`] if `start` or `len` is not a multiple of the
/// page size, or the range runs past the end of the 32-bit address space
/// (it may end exactly there).
pub fn pages(start: u32, len: u32) -> Result<impl Iterator<Item = u32> + Clone, MapError> {
    let aligned = start.is_multiple_of(PAGE_SIZE) && len.is_multiple_of(PAGE_SIZE);
    let fits = len == 0 || start.checked_add(len - 1).is_some();
    if !(aligned && fits) {
        return Err(MapError::BadRange { start, len });
    }
    Ok((0..len / PAGE_SIZE).map(move |page| start + page * PAGE_SIZE))
}

/// Where an address space takes the frames for its directory and tables.
///
/// # Safety
/// Every frame [`FrameSource::allocate_zeroed`] returns must be a zeroed,
/// page-aligned frame of RAM at its identity address that nothing else
/// uses and that is never handed out again: the address space keeps its
/// tables there and writes them through raw pointers.
#[cfg(target_arch = "x86")]
pub unsafe trait FrameSource {
    /// One zeroed frame, or `None` when none is left.
    fn allocate_zeroed(&mut self) -> Option<*mut u8>;
}

/// A page directory and the tables below it, all in identity-mapped frames.
#[cfg(target_arch = "x86")]
#[derive(Debug)]
pub struct AddressSpace {
    directory: *mut [PDEntry; ENTRIES],
    /// Whether CR3 points at this directory, so that changes must flush
    /// the TLB entries of the pages they touch.
    active: bool,
}

#[cfg(target_arch = "x86")]
impl AddressSpace {
    /// An empty address space.
    pub fn new(frames: &mut impl FrameSource) -> Result<Self, MapError> {
        let directory = frames.allocate_zeroed().ok_or(MapError::OutOfFrames)?;
        Ok(Self {
            directory: directory.cast(),
            active: false,
        })
    }

    /// Maps `[start, start + len)` to the same physical addresses with memory type `ty`.
    pub fn map_identity(
        &mut self,
        frames: &mut impl FrameSource,
        start: u32,
        len: u32,
        ty: MemoryType,
    ) -> Result<(), MapError> {
        self.map(frames, start, start, len, ty)
    }

    /// Maps `[virt, virt + len)` to `[phys, phys + len)` with memory type
    /// `ty`, readable and writable.
    ///
    /// Every page of the range must be unmapped: nothing is mapped unless
    /// all of them are, and a new mapping never changes what an address
    /// already in use reaches. In the active address space the TLB entry
    /// of each new page is flushed, so that no translation or memory type
    /// cached for it earlier (by the CPU or the chip model) survives.
    pub fn map(
        &mut self,
        frames: &mut impl FrameSource,
        virt: u32,
        phys: u32,
        len: u32,
        ty: MemoryType,
    ) -> Result<(), MapError> {
        let virt_pages = pages(virt, len)?;
        let phys_pages = pages(phys, len)?;
        if let Some(page) = virt_pages.clone().find(|&page| self.is_mapped(page)) {
            return Err(MapError::AlreadyMapped(page));
        }
        for (page, frame) in virt_pages.zip(phys_pages) {
            let table = self.table_for(frames, page)?;
            let (_, index) = indices(page);
            // SAFETY: `table` is a page table this address space owns; the
            // kernel holds no reference into it, and the entry was not
            // present, so no address in use changes meaning.
            unsafe { (*table)[index] = page_entry(frame, ty, Access::ReadWrite) };
            if self.active {
                invlpg(page);
            }
        }
        Ok(())
    }

    /// Points the pages of `[virt, virt + len)`, every one of them mapped
    /// already, at `[phys, phys + len)` with memory type `ty`, readable and
    /// writable: the addresses keep working, reaching other memory. In the
    /// active address space the TLB entry of each page is flushed.
    ///
    /// Nothing changes unless every page of the range is mapped
    /// ([`MapError::NotMapped`] names the first that is not).
    pub fn remap(
        &mut self,
        virt: u32,
        phys: u32,
        len: u32,
        ty: MemoryType,
    ) -> Result<(), MapError> {
        let virt_pages = pages(virt, len)?;
        let phys_pages = pages(phys, len)?;
        if let Some(page) = virt_pages.clone().find(|&page| !self.is_mapped(page)) {
            return Err(MapError::NotMapped(page));
        }
        for (page, frame) in virt_pages.zip(phys_pages) {
            self.rewrite(page, |_| page_entry(frame, ty, Access::ReadWrite));
        }
        Ok(())
    }

    /// Whether the page at `addr` is mapped.
    fn is_mapped(&self, addr: u32) -> bool {
        self.entry(addr).is_some()
    }

    /// The page-table entry of the page at `addr`, if the page is mapped.
    fn entry(&self, addr: u32) -> Option<PTEntry> {
        let (directory, index) = indices(addr);
        // SAFETY: the directory frame belongs to this address space alone.
        let entry = unsafe { (*self.directory)[directory] };
        if !entry.is_present() {
            return None;
        }
        let table = entry.address().as_u32() as *const [PTEntry; ENTRIES];
        // SAFETY: a present directory entry of this space points at one of
        // its page tables, identity-mapped like all kernel frames.
        let pte = unsafe { (*table)[index] };
        pte.is_present().then_some(pte)
    }

    /// The memory type and physical page of the page at `addr`, if mapped.
    pub fn translate(&self, addr: u32) -> Option<(u32, MemoryType)> {
        let pte = self.entry(addr)?;
        let ty = MemoryType::from_pte(pte.flags().bits());
        Some((pte.address().as_u32(), ty))
    }

    /// Rewrites the entry of the mapped page `page` with `f`, then drops its
    /// TLB entry if this space is active.
    fn rewrite(&mut self, page: u32, f: impl FnOnce(PTEntry) -> PTEntry) {
        let (directory, index) = indices(page);
        // SAFETY: the directory frame belongs to this address space alone.
        let dir = unsafe { (*self.directory)[directory] };
        debug_assert!(dir.is_present(), "rewrite of an unmapped page {page:#x}");
        let table = dir.address().as_u32() as *mut [PTEntry; ENTRIES];
        // SAFETY: `table` is a page table of this space (identity-mapped
        // kernel frame) and the kernel holds no reference into it. The
        // callers own what the page reaches and change its meaning on
        // purpose; the TLB flush below makes the change take effect.
        unsafe { (*table)[index] = f((*table)[index]) };
        if self.active {
            invlpg(page);
        }
    }

    /// Makes sure page tables exist for every page of `[virt, virt +
    /// len)`, so that mapping those pages later needs no frames. Tables
    /// made before a failure stay (empty, and used by the next mapping).
    pub fn reserve_tables(
        &mut self,
        frames: &mut impl FrameSource,
        virt: u32,
        len: u32,
    ) -> Result<(), MapError> {
        // One table per 4 MiB the range touches.
        let table_span = PAGE_SIZE * ENTRIES as u32;
        if pages(virt, len)?.next().is_none() {
            return Ok(());
        }
        let last = virt + (len - PAGE_SIZE);
        for table in virt / table_span..=last / table_span {
            self.table_for(frames, table * table_span)?;
        }
        Ok(())
    }

    /// Makes every mapped page of `[virt, virt + len)` allow `access`;
    /// pages not mapped are skipped.
    pub fn set_access(&mut self, virt: u32, len: u32, access: Access) -> Result<(), MapError> {
        for page in pages(virt, len)? {
            if self.is_mapped(page) {
                self.rewrite(page, |entry| {
                    let mut flags = entry.flags();
                    flags.set(PTFlags::RW, access == Access::ReadWrite);
                    PTEntry::new(entry.address(), flags)
                });
            }
        }
        Ok(())
    }

    /// Removes the mapping of every page of `[virt, virt + len)`; pages not
    /// mapped are skipped. Page tables stay, for the next mapping.
    pub fn unmap(&mut self, virt: u32, len: u32) -> Result<(), MapError> {
        for page in pages(virt, len)? {
            if self.is_mapped(page) {
                self.rewrite(page, |_| PTEntry(0));
            }
        }
        Ok(())
    }

    fn table_for(
        &mut self,
        frames: &mut impl FrameSource,
        addr: u32,
    ) -> Result<*mut [PTEntry; ENTRIES], MapError> {
        let (directory, _) = indices(addr);
        // SAFETY: the directory frame belongs to this address space alone.
        let entry = unsafe { &mut (*self.directory)[directory] };
        if !entry.is_present() {
            let table = frames.allocate_zeroed().ok_or(MapError::OutOfFrames)?;
            *entry = directory_entry(table as u32);
        }
        Ok(entry.address().as_u32() as *mut [PTEntry; ENTRIES])
    }

    /// Switches to this address space and turns paging on (PSE off, write
    /// protection on so the kernel cannot write read-only pages either).
    /// The double-fault task is given the same page directory.
    ///
    /// # Safety
    /// Everything the kernel uses from now on (code, stack, data, page
    /// tables, devices) must be mapped at its identity address.
    pub unsafe fn activate(&mut self) {
        // SAFETY: the caller guarantees the identity mappings; CR4.PSE off keeps
        // PTE bit 7 free for the SCC's PMB.
        unsafe {
            cr4_write(cr4() - Cr4::CR4_ENABLE_PSE);
            cr3_write(self.directory as u64);
            super::gdt::set_page_directory(self.directory as u32);
            cr0_write(cr0() | Cr0::CR0_ENABLE_PAGING | Cr0::CR0_WRITE_PROTECT);
        }
        self.active = true;
    }
}

#[cfg(test)]
mod tests {
    use chip::{PTE_PCD, PTE_PMB, PTE_PWT};

    use super::*;

    /// Present, writable, user, accessed, dirty, global: the bits besides
    /// the memory type that an entry may carry.
    const P: u32 = 1 << 0;
    const RW: u32 = 1 << 1;
    const OTHER: u32 = (1 << 2) | (1 << 5) | (1 << 6) | (1 << 8);

    #[test]
    fn a_page_entry_holds_the_frame_and_the_memory_type_bits() {
        let frame = 0x8123_4000;
        for ty in MemoryType::ALL {
            let entry = page_entry(frame, ty, Access::ReadWrite).0;
            assert_eq!(entry & !0xFFF, frame, "{}", ty.name());
            assert_eq!(entry & (PTE_PCD | PTE_PWT | PTE_PMB), ty.pte_bits());
            assert_eq!(MemoryType::from_pte(entry), ty);
        }
    }

    #[test]
    fn each_memory_type_sets_its_own_pcd_pwt_and_pmb() {
        let bits = |ty| page_entry(0, ty, Access::ReadWrite).0 & (PTE_PCD | PTE_PWT | PTE_PMB);
        assert_eq!(bits(MemoryType::Dcm), 0);
        assert_eq!(bits(MemoryType::Ncm), PTE_PCD);
        assert_eq!(bits(MemoryType::NcmWcb), PTE_PCD | PTE_PMB);
        assert_eq!(bits(MemoryType::MpbtWb), PTE_PMB);
        assert_eq!(bits(MemoryType::MpbtWt), PTE_PMB | PTE_PWT);
    }

    #[test]
    fn a_page_entry_is_present_and_writable_only_when_asked() {
        let writable = page_entry(0x1000, MemoryType::MpbtWb, Access::ReadWrite).0;
        let read_only = page_entry(0x1000, MemoryType::MpbtWb, Access::ReadOnly).0;
        assert_eq!(writable & (P | RW), P | RW);
        assert_eq!(read_only & (P | RW), P);
        assert_eq!((writable | read_only) & OTHER, 0, "user, A, D or G set");
        assert_eq!(writable, read_only | RW);
    }

    #[test]
    #[should_panic(expected = "not page-aligned")]
    fn a_page_entry_refuses_an_unaligned_frame() {
        page_entry(0x1800, MemoryType::Dcm, Access::ReadWrite);
    }

    #[test]
    fn a_directory_entry_points_at_its_table_present_and_writable() {
        let entry = directory_entry(0x0012_3000).0;
        assert_eq!(entry, 0x0012_3000 | P | RW);
        // Bit 7 (PMB in a page entry) is the page-size bit here: never set.
        assert_eq!(entry & PTE_PMB, 0);
    }

    #[test]
    #[should_panic(expected = "not page-aligned")]
    fn a_directory_entry_refuses_an_unaligned_table() {
        directory_entry(0x0012_3004);
    }

    #[test]
    fn an_address_splits_into_directory_and_table_index() {
        assert_eq!(indices(0), (0, 0));
        assert_eq!(indices(0x0000_0FFF), (0, 0));
        assert_eq!(indices(0x0000_1000), (0, 1));
        assert_eq!(indices(0x003F_F000), (0, 1023));
        assert_eq!(indices(0x0040_0000), (1, 0));
        assert_eq!(indices(0x8123_4567), (0x204, 0x234));
        assert_eq!(indices(0xFFFF_FFFF), (1023, 1023));
        for virt in [0x0040_1000, 0xC000_0000, 0xFEE0_0000, 0x1234_5000] {
            let (directory, table) = indices(virt);
            assert_eq!(((directory << 22) | (table << 12)) as u32, virt);
        }
    }

    #[test]
    fn the_pages_of_a_range_are_every_page_in_it() {
        let got: alloc::vec::Vec<u32> = pages(0x3000, 3 * PAGE_SIZE).unwrap().collect();
        assert_eq!(got, [0x3000, 0x4000, 0x5000]);
        assert_eq!(pages(0x3000, 0).unwrap().count(), 0);
        let last: alloc::vec::Vec<u32> = pages(0xFFFF_E000, 2 * PAGE_SIZE).unwrap().collect();
        assert_eq!(
            last,
            [0xFFFF_E000, 0xFFFF_F000],
            "the last page of the address space"
        );
    }

    #[test]
    fn a_range_that_is_unaligned_or_wraps_has_no_pages() {
        for (start, len) in [
            (0x3800, PAGE_SIZE),
            (0x3000, 0x800),
            (0xFFFF_F000, 2 * PAGE_SIZE),
            (0x2000, 0xFFFF_F000),
        ] {
            let error = pages(start, len).err();
            assert_eq!(error, Some(MapError::BadRange { start, len }));
        }
    }
}
