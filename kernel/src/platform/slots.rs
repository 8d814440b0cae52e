// SPDX-License-Identifier: MIT OR Apache-2.0
//! Which of the free LUT entries hold a mapping of shareable DRAM, and
//! which 4 KiB pages of each mapping the page tables show yet.
//!
//! A mapping (rma's `SharedDram`) takes consecutive free entries
//! (132-190 on the SCC), one per 16 MiB page. Its 4 KiB pages are mapped
//! the first time an access touches them: a 64 MiB POPSHM mapping costs
//! page-table entries only for the bytes a window really uses. The page
//! tables themselves are taken when the mapping is made, so an access
//! never runs out of frames. This table is bookkeeping only; writing the
//! LUT and the page tables is [`super::Platform`]'s job, under its lock.

use alloc::vec::Vec;

use chip::DramPages;
use chip::{EntryRange, LUT_PAGE_SIZE, MemoryType};

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
    /// A word of the bitmap at a time, skipping words with no page mapped:
    /// a 16 MiB entry has 4096 pages, of which a window maps a few.
    pub fn mapped_pages(&self) -> impl Iterator<Item = u32> + '_ {
        self.mapped
            .iter()
            .enumerate()
            .filter(|&(_, &bits)| bits != 0)
            .flat_map(|(word, &bits)| {
                let mut left = bits;
                core::iter::from_fn(move || {
                    (left != 0).then(|| {
                        let bit = left.trailing_zeros();
                        left &= left - 1;
                        word as u32 * 32 + bit
                    })
                })
            })
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
        let last = u32::from(slot).checked_add(count.max(1) - 1)?;
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

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;

    /// The free entries of the SCC (132-190).
    const FREE: EntryRange = EntryRange::new(132, 190);

    fn pages(count: u32) -> DramPages {
        DramPages {
            controller: 0,
            first: 0x100,
            count,
        }
    }

    #[test]
    fn indices_count_from_the_first_free_entry() {
        let slots = Slots::new(FREE);
        assert_eq!(slots.indices(132, 1), Some(0..1));
        assert_eq!(slots.indices(140, 4), Some(8..12));
        assert_eq!(slots.indices(187, 4), Some(55..59), "up to the last entry");
        assert_eq!(slots.indices(132, 59), Some(0..59), "every entry");
    }

    #[test]
    fn entries_outside_the_free_range_have_no_indices() {
        let slots = Slots::new(FREE);
        assert_eq!(slots.indices(131, 1), None, "before the range");
        assert_eq!(slots.indices(191, 1), None, "after it");
        assert_eq!(slots.indices(131, 4), None, "starting before it");
        assert_eq!(slots.indices(188, 4), None, "running past its end");
        assert_eq!(slots.indices(132, 60), None, "more entries than it has");
        assert_eq!(slots.indices(190, u32::MAX), None, "a count past 32 bits");
    }

    #[test]
    fn the_first_taken_entry_is_found_and_free_ones_are_not() {
        let mut slots = Slots::new(FREE);
        let all = slots.indices(132, 59).unwrap();
        assert_eq!(slots.first_taken(all.clone()), None);
        slots.insert(140, pages(3), MemoryType::MpbtWb);
        assert_eq!(slots.first_taken(all), Some(140));
        assert_eq!(slots.first_taken(slots.indices(136, 6).unwrap()), Some(140));
        assert_eq!(slots.first_taken(slots.indices(142, 2).unwrap()), Some(142));
        assert_eq!(slots.first_taken(slots.indices(132, 8).unwrap()), None);
        assert_eq!(slots.first_taken(slots.indices(143, 4).unwrap()), None);
    }

    #[test]
    fn a_mapping_is_found_at_its_first_entry_only() {
        let mut slots = Slots::new(FREE);
        slots.insert(150, pages(2), MemoryType::Ncm);
        let mapping = slots.get_mut(150).expect("a mapping starts at 150");
        assert_eq!((mapping.pages, mapping.ty), (pages(2), MemoryType::Ncm));
        assert_eq!(mapping.bytes(), 2 * LUT_PAGE_SIZE);
        assert!(slots.get_mut(151).is_none(), "its second entry starts none");
        assert!(slots.get_mut(149).is_none());
        assert!(slots.get_mut(10).is_none(), "below the range");
        assert!(slots.get_mut(255).is_none(), "above the range");
    }

    #[test]
    fn removing_a_mapping_frees_exactly_its_entries() {
        let mut slots = Slots::new(FREE);
        slots.insert(140, pages(3), MemoryType::MpbtWb);
        slots.insert(143, pages(1), MemoryType::Ncm);
        assert!(slots.remove(141).is_none(), "141 starts no mapping");
        assert_eq!(slots.first_taken(slots.indices(141, 1).unwrap()), Some(141));
        let removed = slots.remove(140).expect("the mapping at 140");
        assert_eq!(removed.pages, pages(3));
        assert_eq!(slots.first_taken(slots.indices(132, 11).unwrap()), None);
        assert_eq!(
            slots.first_taken(slots.indices(132, 59).unwrap()),
            Some(143)
        );
        assert!(slots.remove(140).is_none(), "removed once");
        assert!(slots.remove(100).is_none(), "below the range");
        slots.insert(140, pages(3), MemoryType::Dcm);
        assert_eq!(slots.get_mut(140).unwrap().ty, MemoryType::Dcm, "reused");
    }

    #[test]
    fn a_mapping_records_each_of_its_pages_once_mapped() {
        let mut mapping = Mapping::new(pages(2), MemoryType::MpbtWb);
        let last = 2 * PAGES_PER_ENTRY - 1;
        assert_eq!(mapping.mapped_pages().count(), 0);
        for page in [0, 31, 32, 4096, last] {
            assert!(!mapping.is_mapped(page));
            mapping.set_mapped(page);
            assert!(mapping.is_mapped(page));
        }
        mapping.set_mapped(31);
        let mapped: Vec<u32> = mapping.mapped_pages().collect();
        assert_eq!(mapped, [0, 31, 32, 4096, last]);
        assert!(!mapping.is_mapped(1) && !mapping.is_mapped(33) && !mapping.is_mapped(last - 1));
    }
}
