// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shareable DRAM as LUT entries see it: a run of 16 MiB pages behind one
//! memory controller, and why a platform refuses to map one.

use core::fmt;

use crate::{Chip, CoreId, LUT_PAGE_SIZE};

/// Consecutive 16 MiB pages of the DRAM behind one memory controller: what
/// consecutive LUT entries point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DramPages {
    /// The controller, an index into [`Chip::memory_controllers`].
    pub controller: usize,
    /// The first page number there (the 10-bit address of a LUT entry).
    pub first: u16,
    /// How many pages (at least 1).
    pub count: u32,
}

impl DramPages {
    /// The shareable pages `core` owns (the thesis's POPSHM):
    /// [`Chip::popshm`] and [`AddressMap::popshm_pages`](crate::AddressMap).
    pub fn popshm(chip: &Chip, core: CoreId) -> Self {
        let (controller, first) = chip.popshm(core);
        Self {
            controller,
            first,
            count: chip.address_map.popshm_pages,
        }
    }

    /// Bytes the pages cover.
    pub const fn bytes(&self) -> u64 {
        self.count as u64 * LUT_PAGE_SIZE as u64
    }
}

/// Why a platform refused to map shareable DRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    /// Entries `slot..slot + count` are not all among the entries the
    /// chip's map leaves free ([`AddressMap::shareable`](crate::AddressMap)).
    NotFree {
        /// The first entry asked for.
        slot: u8,
        /// How many entries.
        count: u32,
    },
    /// An entry of the range already holds a mapping.
    InUse {
        /// The entry.
        slot: u8,
    },
    /// The pages are not shareable DRAM (a controller's LSM page and the
    /// POPSHM pages after it), or `count` is 0.
    NotShareable(DramPages),
    /// The platform has no memory left for the page tables of the mapping.
    NoMemory,
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFree { slot, count } => {
                write!(f, "LUT entries {slot}+{count} are not all free entries")
            }
            Self::InUse { slot } => write!(f, "LUT entry {slot} already holds a mapping"),
            Self::NotShareable(p) => write!(
                f,
                "{} pages from page {} of controller {} are not shareable DRAM",
                p.count, p.first, p.controller
            ),
            Self::NoMemory => f.write_str("no memory left for page tables"),
        }
    }
}
