// SPDX-License-Identifier: GPL-2.0-or-later
//! The fast path's caches of translations, with nothing of QEMU in them:
//! which virtual pages hold private memory, and which physical line a
//! virtual line of a fast private page maps to. The callbacks keep one of
//! each in a `static` and ask them before QEMU or the engine.
//!
//! Both are direct-mapped tables of words, read and written by the one
//! vCPU thread only (hence relaxed atomics: they are `static`s), and
//! forgotten whenever the guest could change its mappings, as a TLB is.

use std::sync::atomic::{AtomicU64, Ordering};

use chip::MemoryType;
use emu::engine::PrivatePage;
use emu::model::paging::PageType;

/// The bytes of a cache line.
pub(crate) const CACHE_LINE: u32 = chip::CACHE_LINE as u32;
/// The offset bits of a 4 KiB page's address.
pub(crate) const PAGE_OFFSET: u32 = 0xfff;

/// A [`PrivatePage`] packed below a page's address: bit 0 modelled, bit 1
/// fast ([`PrivatePage::fast`]), bit 2 PWT, bits 3-5 the memory type's
/// index in [`MemoryType::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageFlags(pub(crate) u32);

impl PageFlags {
    const MODELLED: u32 = 1;
    const FAST: u32 = 2;
    const PWT: u32 = 4;
    const TYPE_SHIFT: u32 = 3;

    /// `page`'s flags.
    pub(crate) fn pack(page: PrivatePage) -> Self {
        match page {
            PrivatePage::Unmodelled => Self(0),
            PrivatePage::Modelled(t) => {
                let ty = MemoryType::ALL
                    .iter()
                    .position(|&m| m == t.memory_type)
                    .expect("every type is in ALL") as u32;
                Self(
                    Self::MODELLED
                        | if page.fast() { Self::FAST } else { 0 }
                        | if t.write_through { Self::PWT } else { 0 }
                        | ty << Self::TYPE_SHIFT,
                )
            }
        }
    }

    /// The flags below the page address in `known`.
    #[inline(always)]
    pub(crate) fn of(known: u32) -> Self {
        Self(known & PAGE_OFFSET)
    }

    /// Whether the page is modelled ([`PrivatePage::Modelled`]).
    pub(crate) fn modelled(self) -> bool {
        self.0 & Self::MODELLED != 0
    }

    /// Whether the page is fast ([`PrivatePage::fast`]).
    #[inline(always)]
    pub(crate) fn fast(self) -> bool {
        self.0 & Self::FAST != 0
    }

    /// The page's type, if modelled.
    pub(crate) fn page_type(self) -> PageType {
        PageType {
            memory_type: MemoryType::ALL[(self.0 >> Self::TYPE_SHIFT) as usize & 7],
            write_through: self.0 & Self::PWT != 0,
        }
    }
}

/// Slots of [`PrivatePages`].
const PRIVATE_SLOTS: usize = 1024;

/// Virtual pages known to hold private memory, so that most accesses skip
/// asking QEMU for their physical address (the plugin's largest cost per
/// access) and the engine how to treat them. Direct-mapped: slot
/// `page % PRIVATE_SLOTS` holds `page + 1` in its high half, and in its
/// low half the physical page's address with what [`PrivatePage`] the
/// engine found it to be below it ([`PageFlags`]).
#[derive(Debug)]
pub(crate) struct PrivatePages([AtomicU64; PRIVATE_SLOTS]);

impl PrivatePages {
    /// A table that knows no page.
    pub(crate) const fn new() -> Self {
        Self([const { AtomicU64::new(0) }; PRIVATE_SLOTS])
    }

    /// The slot of virtual page `page`.
    #[inline(always)]
    fn slot(&self, page: u32) -> &AtomicU64 {
        &self.0[page as usize % PRIVATE_SLOTS]
    }

    /// What the table knows of `vaddr`'s page, if its slot holds it: the
    /// physical page and its [`PageFlags`] below it.
    #[inline(always)]
    pub(crate) fn known(&self, vaddr: u64) -> Option<u32> {
        let page = (vaddr >> 12) as u32;
        let known = self.slot(page).load(Ordering::Relaxed);
        ((known >> 32) as u32 == page.wrapping_add(1)).then_some(known as u32)
    }

    /// `vaddr`'s page maps to physical page `frame` (its address), which
    /// is `kind`; returns what [`PrivatePages::known`] now says of it.
    pub(crate) fn remember(&self, vaddr: u64, frame: u32, kind: PrivatePage) -> u32 {
        let page = (vaddr >> 12) as u32;
        let known = u64::from(page.wrapping_add(1)) << 32
            | u64::from(frame & !PAGE_OFFSET | PageFlags::pack(kind).0);
        self.slot(page).store(known, Ordering::Relaxed);
        known as u32
    }

    /// Forgets every page.
    pub(crate) fn forget(&self) {
        for slot in &self.0 {
            slot.store(0, Ordering::Relaxed);
        }
    }
}

/// Per slot, a virtual line of a fast private page ([`PrivatePage::fast`])
/// and the physical line it maps to, as `(vline | 1) << 32 | pline` (0:
/// none), so that the fast path finds it without translating the address.
/// Slot `vline / CACHE_LINE % SETS`, one per set of L1 (`SETS` of them):
/// L1 has no more sets than a page has lines, so the slot is also the
/// physical line's set, and the slots can name each set's most recently
/// used line. A slot only says what the line maps to: whether it is L1's
/// most recently used one, L1's MRU table says.
#[derive(Debug)]
pub(crate) struct VirtualLines<const SETS: usize>([AtomicU64; SETS]);

impl<const SETS: usize> VirtualLines<SETS> {
    const FITS: () = assert!(
        SETS * CACHE_LINE as usize <= 4096,
        "L1's set of a line is within the page offset"
    );

    /// A table that knows no line.
    pub(crate) const fn new() -> Self {
        let () = Self::FITS;
        Self([const { AtomicU64::new(0) }; SETS])
    }

    /// The index of `vaddr`'s slot: the set of L1 its physical line is in.
    #[inline(always)]
    pub(crate) fn set(vaddr: u32) -> usize {
        (vaddr / CACHE_LINE) as usize % SETS
    }

    /// The physical line `vaddr`'s line maps to, if its slot holds it.
    #[inline(always)]
    pub(crate) fn known(&self, vaddr: u32) -> Option<u32> {
        let known = self.0[Self::set(vaddr)].load(Ordering::Relaxed);
        ((known >> 32) as u32 == vaddr & !(CACHE_LINE - 1) | 1).then_some(known as u32)
    }

    /// The line of `vaddr`, on a fast private page, maps to the line of
    /// `paddr`.
    #[inline(always)]
    pub(crate) fn remember(&self, vaddr: u32, paddr: u32) {
        let (vline, pline) = (vaddr & !(CACHE_LINE - 1), paddr & !(CACHE_LINE - 1));
        self.0[Self::set(vaddr)].store(
            u64::from(vline | 1) << 32 | u64::from(pline),
            Ordering::Relaxed,
        );
    }

    /// Forgets every line.
    pub(crate) fn forget(&self) {
        for slot in &self.0 {
            slot.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_flags_keep_what_the_engine_found() {
        assert!(!PageFlags::pack(PrivatePage::Unmodelled).modelled());
        for memory_type in MemoryType::ALL {
            for write_through in [false, true] {
                let t = PageType {
                    memory_type,
                    write_through,
                };
                let page = PrivatePage::Modelled(t);
                let flags = PageFlags::pack(page);
                assert!(flags.modelled());
                assert_eq!(flags.fast(), page.fast());
                assert_eq!(flags.page_type(), t);
                assert_eq!(flags.0 & !PAGE_OFFSET, 0, "below the page address");
                assert_eq!(PageFlags::of(0x1234_5000 | flags.0), flags);
            }
        }
        assert!(PageFlags::pack(PrivatePage::Modelled(PageType::PAGING_OFF)).fast());
    }

    #[test]
    fn a_private_page_is_known_until_its_slot_is_taken_or_forgotten() {
        let pages = PrivatePages::new();
        let fast = PrivatePage::Modelled(PageType::PAGING_OFF);
        assert_eq!(pages.known(0x4000_1234), None);
        let known = pages.remember(0x4000_1234, 0x0020_1000, fast);
        assert_eq!(pages.known(0x4000_1FFF), Some(known));
        assert_eq!(known & !PAGE_OFFSET, 0x0020_1000);
        assert!(PageFlags::of(known).fast());
        // Page 0 is known as page 0, not as an empty slot.
        let zero = pages.remember(0x0000_0010, 0, PrivatePage::Unmodelled);
        assert_eq!(pages.known(0), Some(zero));
        assert!(!PageFlags::of(zero).modelled());
        // A page PRIVATE_SLOTS pages on takes the slot.
        let next = 0x4000_1000 + (PRIVATE_SLOTS as u64) * 4096;
        pages.remember(next, 0x0030_0000, fast);
        assert_eq!(pages.known(0x4000_1234), None);
        assert!(pages.known(next).is_some());
        pages.forget();
        assert_eq!(pages.known(next), None);
        assert_eq!(pages.known(0), None);
    }

    #[test]
    fn a_virtual_line_is_known_by_its_set_until_another_line_takes_it() {
        let lines = VirtualLines::<128>::new();
        assert_eq!(lines.known(0x8000_0040), None);
        lines.remember(0x8000_0044, 0x0010_0047);
        assert_eq!(lines.known(0x8000_005F), Some(0x0010_0040));
        assert_eq!(VirtualLines::<128>::set(0x8000_0040), 2);
        // The next line is in the next set; a page on, the same set.
        assert_eq!(lines.known(0x8000_0060), None);
        lines.remember(0x8000_1040, 0x0020_0040);
        assert_eq!(lines.known(0x8000_0040), None);
        assert_eq!(lines.known(0x8000_1040), Some(0x0020_0040));
        lines.forget();
        assert_eq!(lines.known(0x8000_1040), None);
        // Line 0 is known as line 0, not as an empty slot.
        lines.remember(0, 0x20);
        assert_eq!(lines.known(4), Some(0x20));
    }
}
