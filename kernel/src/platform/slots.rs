// SPDX-License-Identifier: MIT OR Apache-2.0
//! Which of the free LUT entries hold a mapping of shareable DRAM, and
//! which 4 KiB pages of each mapping the page tables show yet.
//!
//! A mapping ([`rma::hal::SharedDram`]) takes consecutive free entries
//! (132-190 on the SCC), one per 16 MiB page. Its 4 KiB pages are mapped
//! the first time an access touches them: a 64 MiB POPSHM mapping costs
//! page-table entries only for the bytes a window really uses. The page
//! tables themselves are taken when the mapping is made, so an access
//! never runs out of frames. This table is bookkeeping only; writing the
//! LUT and the page tables is [`super::Scc`]'s job, under its lock.

use alloc::vec::Vec;

use chip::{EntryRange, LUT_PAGE_SIZE, MemoryType};
use rma::hal::DramPages;

use crate::arch::x86::paging::PAGE_SIZE;

/// Pages of 4 KiB in one LUT entry's 16 MiB.
const PAGES_PER_ENTRY: u32 = LUT_PAGE_SIZE / PAGE_SIZE;

/// One mapping: what it reaches, its memory type, the pages mapped so far.
#[derive(Debug)]
pub struct Mapping {
    /// The DRAM pages its entries point at.
    pub pages: DramPages,
    /// The memory type of every page.
    pub ty: MemoryType,
    /// One bit per 4 KiB page: set once the page tables map it.
    mapped: Vec<u32>,
}

impl Mapping {
    fn new(pages: DramPages, ty: MemoryType) -> Self {
        let bits = pages.count * PAGES_PER_ENTRY;
        Self {
            pages,
            ty,
            mapped: alloc::vec![0; bits.div_ceil(32) as usize],
        }
    }

    /// Bytes the mapping covers.
    pub fn bytes(&self) -> u32 {
        self.pages.count * LUT_PAGE_SIZE
    }

    /// Whether 4 KiB page `page` (counted from the mapping's start) is mapped.
    pub fn is_mapped(&self, page: u32) -> bool {
        self.mapped[(page / 32) as usize] & (1 << (page % 32)) != 0
    }

    /// Records that page `page` is mapped now.
    pub fn set_mapped(&mut self, page: u32) {
        self.mapped[(page / 32) as usize] |= 1 << (page % 32);
    }

    /// The pages mapped so far, as page numbers from the mapping's start.
    pub fn mapped_pages(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.pages.count * PAGES_PER_ENTRY).filter(|&p| self.is_mapped(p))
    }
}

/// The free entries and the mappings that hold them.
#[derive(Debug)]
pub struct Slots {
    range: EntryRange,
    /// Per entry of `range`: the mapping it starts, if any.
    starts: Vec<Option<Mapping>>,
    /// Per entry of `range`: whether a mapping holds it.
    taken: Vec<bool>,
}

impl Slots {
    /// All entries of `range` free.
    pub fn new(range: EntryRange) -> Self {
        let n = range.len() as usize;
        Self {
            range,
            starts: (0..n).map(|_| None).collect(),
            taken: alloc::vec![false; n],
        }
    }

    /// The entries `slot..slot + count` as indices into the table, if they
    /// all lie in the free range.
    pub fn indices(&self, slot: u8, count: u32) -> Option<core::ops::Range<usize>> {
        let last = u32::from(slot) + count.max(1) - 1;
        (self.range.contains(slot) && last <= u32::from(self.range.last)).then(|| {
            let first = usize::from(slot - self.range.first);
            first..first + count.max(1) as usize
        })
    }

    /// The first entry of `entries` a mapping holds.
    pub fn first_taken(&self, entries: core::ops::Range<usize>) -> Option<u8> {
        entries
            .into_iter()
            .find(|&i| self.taken[i])
            .map(|i| self.range.first + i as u8)
    }

    /// Records a mapping of `pages` with type `ty` from `slot`; the entries
    /// must be free ([`Slots::first_taken`]).
    pub fn insert(&mut self, slot: u8, pages: DramPages, ty: MemoryType) {
        let entries = self
            .indices(slot, pages.count)
            .expect("entries checked by the caller");
        self.taken[entries.clone()]
            .iter_mut()
            .for_each(|t| *t = true);
        self.starts[entries.start] = Some(Mapping::new(pages, ty));
    }

    /// The mapping that starts at `slot`, if any.
    pub fn get_mut(&mut self, slot: u8) -> Option<&mut Mapping> {
        let i = usize::from(slot.checked_sub(self.range.first)?);
        self.starts.get_mut(i)?.as_mut()
    }

    /// Removes the mapping that starts at `slot`, freeing its entries.
    pub fn remove(&mut self, slot: u8) -> Option<Mapping> {
        let i = usize::from(slot.checked_sub(self.range.first)?);
        let mapping = self.starts.get_mut(i)?.take()?;
        self.taken[i..i + mapping.pages.count as usize]
            .iter_mut()
            .for_each(|t| *t = false);
        Some(mapping)
    }
}
