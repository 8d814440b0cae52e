// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two-level 32-bit paging with 4 KiB pages and the SCC memory types.
//!
//! Every page carries its memory type in PCD, PWT and PMB (PTE bit 7, the
//! Pentium's PSE position; see `chip::MemoryType`). Large pages would turn
//! bit 7 of a directory entry into "page size", so CR4.PSE stays off and
//! everything is mapped with 4 KiB pages. The kernel maps physical memory
//! at the same virtual address (identity), so a core-physical address from
//! the chip definition is also the pointer to use.

use chip::MemoryType;
use x86::bits32::paging::{PAddr, PDEntry, PDFlags, PTEntry, PTFlags};
use x86::controlregs::{Cr0, Cr4, cr0, cr0_write, cr3_write, cr4, cr4_write};

use super::instructions::invlpg;

/// Bytes in a page.
pub const PAGE_SIZE: u32 = 4096;
const ENTRIES: usize = 1024;

/// Why a mapping could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    /// No free frame for a page table.
    OutOfFrames,
    /// The page at this address is mapped already.
    AlreadyMapped(u32),
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
            Self::BadRange { start, len } => {
                write!(
                    f,
                    "range {start:#010x}+{len:#x} is not page-aligned or wraps"
                )
            }
        }
    }
}

/// Where an address space takes the frames for its directory and tables.
///
/// # Safety
/// Every frame [`FrameSource::allocate_zeroed`] returns must be a zeroed,
/// page-aligned frame of RAM at its identity address that nothing else
/// uses and that is never handed out again: the address space keeps its
/// tables there and writes them through raw pointers.
pub unsafe trait FrameSource {
    /// One zeroed frame, or `None` when none is left.
    fn allocate_zeroed(&mut self) -> Option<*mut u8>;
}

/// A page directory and the tables below it, all in identity-mapped frames.
#[derive(Debug)]
pub struct AddressSpace {
    directory: *mut [PDEntry; ENTRIES],
    /// Whether CR3 points at this directory, so that changes must flush
    /// the TLB entries of the pages they touch.
    active: bool,
}

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

    /// Maps `[virt, virt + len)` to `[phys, phys + len)` with memory type `ty`.
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
        let range = |start: u32| {
            start
                .checked_add(len)
                .filter(|_| start.is_multiple_of(PAGE_SIZE) && len.is_multiple_of(PAGE_SIZE))
                .ok_or(MapError::BadRange { start, len })
        };
        let end = range(virt)?;
        range(phys)?;
        if let Some(page) = (virt..end)
            .step_by(PAGE_SIZE as usize)
            .find(|&page| self.is_mapped(page))
        {
            return Err(MapError::AlreadyMapped(page));
        }
        let flags = PTFlags::P | PTFlags::RW | PTFlags::from_bits_truncate(ty.pte_bits());
        for (page, frame) in (virt..end)
            .step_by(PAGE_SIZE as usize)
            .zip((phys..).step_by(PAGE_SIZE as usize))
        {
            let table = self.table_for(frames, page)?;
            let index = (page as usize >> 12) & (ENTRIES - 1);
            // SAFETY: `table` is a page table this address space owns; the
            // kernel holds no reference into it, and the entry was not
            // present, so no address in use changes meaning.
            unsafe { (*table)[index] = PTEntry::new(PAddr(frame), flags) };
            if self.active {
                invlpg(page);
            }
        }
        Ok(())
    }

    /// Whether the page at `addr` is mapped.
    fn is_mapped(&self, addr: u32) -> bool {
        self.entry(addr).is_some()
    }

    /// The page-table entry of the page at `addr`, if the page is mapped.
    fn entry(&self, addr: u32) -> Option<PTEntry> {
        // SAFETY: the directory frame belongs to this address space alone.
        let entry = unsafe { (*self.directory)[addr as usize >> 22] };
        if !entry.is_present() {
            return None;
        }
        let table = entry.address().as_u32() as *const [PTEntry; ENTRIES];
        // SAFETY: a present directory entry of this space points at one of
        // its page tables, identity-mapped like all kernel frames.
        let pte = unsafe { (*table)[(addr as usize >> 12) & (ENTRIES - 1)] };
        pte.is_present().then_some(pte)
    }

    /// The memory type and physical page of the page at `addr`, if mapped.
    pub fn translate(&self, addr: u32) -> Option<(u32, MemoryType)> {
        let pte = self.entry(addr)?;
        let ty = MemoryType::from_pte(pte.flags().bits());
        Some((pte.address().as_u32(), ty))
    }

    /// The pages of `[virt, virt + len)`, checked like [`AddressSpace::map`]'s.
    fn pages(virt: u32, len: u32) -> Result<impl Iterator<Item = u32>, MapError> {
        let end = virt
            .checked_add(len)
            .filter(|_| virt.is_multiple_of(PAGE_SIZE) && len.is_multiple_of(PAGE_SIZE))
            .ok_or(MapError::BadRange { start: virt, len })?;
        Ok((virt..end).step_by(PAGE_SIZE as usize))
    }

    /// Rewrites the entry of the mapped page `page` with `f`, then drops its
    /// TLB entry if this space is active.
    fn rewrite(&mut self, page: u32, f: impl FnOnce(PTEntry) -> PTEntry) {
        // SAFETY: the directory frame belongs to this address space alone.
        let dir = unsafe { (*self.directory)[page as usize >> 22] };
        debug_assert!(dir.is_present(), "rewrite of an unmapped page {page:#x}");
        let table = dir.address().as_u32() as *mut [PTEntry; ENTRIES];
        let index = (page as usize >> 12) & (ENTRIES - 1);
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
        if Self::pages(virt, len)?.next().is_none() {
            return Ok(());
        }
        let last = virt + (len - PAGE_SIZE);
        for table in virt / table_span..=last / table_span {
            self.table_for(frames, table * table_span)?;
        }
        Ok(())
    }

    /// Removes the mapping of every page of `[virt, virt + len)`; pages not
    /// mapped are skipped. Page tables stay, for the next mapping.
    pub fn unmap(&mut self, virt: u32, len: u32) -> Result<(), MapError> {
        for page in Self::pages(virt, len)? {
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
        // SAFETY: the directory frame belongs to this address space alone.
        let entry = unsafe { &mut (*self.directory)[addr as usize >> 22] };
        if !entry.is_present() {
            let table = frames.allocate_zeroed().ok_or(MapError::OutOfFrames)?;
            *entry = PDEntry::new(PAddr(table as u32), PDFlags::P | PDFlags::RW);
        }
        Ok(entry.address().as_u32() as *mut [PTEntry; ENTRIES])
    }

    /// Switches to this address space and turns paging on (PSE off, write
    /// protection on so the kernel cannot write read-only pages either).
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
            cr0_write(cr0() | Cr0::CR0_ENABLE_PAGING | Cr0::CR0_WRITE_PROTECT);
        }
        self.active = true;
    }
}
