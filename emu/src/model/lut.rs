// SPDX-License-Identifier: GPL-2.0-or-later
//! One core's live LUT: the translation from core-physical to system
//! addresses in force at this moment (thesis 1.3).
//!
//! Its 256 entries sit in the core's tile CRB and are writable at run time;
//! a write takes effect for the very next access. The caches work on
//! core-physical addresses, so the plugin translates a line when it moves
//! it (fill, write-back, write-through, WCB flush), not when it was cached:
//! a line evicted after a LUT write goes to the new target, as on silicon.
//!
//! An address whose entry reaches nothing is an error that names the entry
//! and the reason, never a guess.

use chip::{Chip, CoreId, LUT_ENTRIES, LUT_PAGE_SIZE, LutEntry, Subdest, Target, TileCoord};

/// Where a core-physical address goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    /// The LUT entry used.
    pub entry: u8,
    /// What the entry reaches.
    pub target: Target,
    /// Offset inside the target's 16 MiB page.
    pub offset: u32,
    /// The 34-bit system address (page number from the entry, offset from
    /// the address).
    pub system: u64,
}

/// Why an address has no target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LutError {
    /// The entry names a router outside the mesh.
    #[error(
        "core-physical {addr:#010x}: LUT entry {entry} ({raw:#08x}) names router ({x}, {y}), outside the mesh"
    )]
    OutsideMesh {
        /// The address translated.
        addr: u32,
        /// The entry.
        entry: u8,
        /// Its register value.
        raw: u32,
        /// Router x.
        x: u8,
        /// Router y.
        y: u8,
    },
    /// The entry names a core port: the chip has no memory behind it (the
    /// value of a never-written entry).
    #[error(
        "core-physical {addr:#010x}: LUT entry {entry} ({raw:#08x}) names core port {subdest:?} of router ({x}, {y}), which has no memory behind it (an unused entry)"
    )]
    CorePort {
        /// The address translated.
        addr: u32,
        /// The entry.
        entry: u8,
        /// Its register value.
        raw: u32,
        /// The port.
        subdest: Subdest,
        /// Router x.
        x: u8,
        /// Router y.
        y: u8,
    },
    /// The entry names a router port with no device attached.
    #[error(
        "core-physical {addr:#010x}: LUT entry {entry} ({raw:#08x}) names port {subdest:?} of router ({x}, {y}), where no memory controller or system interface is attached"
    )]
    NoDevice {
        /// The address translated.
        addr: u32,
        /// The entry.
        entry: u8,
        /// Its register value.
        raw: u32,
        /// The port.
        subdest: Subdest,
        /// Router x.
        x: u8,
        /// Router y.
        y: u8,
    },
    /// The offset lies beyond the device the entry reaches (an MPB, a CRB
    /// or the FPGA bank is smaller than a 16 MiB page).
    #[error(
        "core-physical {addr:#010x}: offset {offset:#x} lies beyond the {size:#x} bytes of {target:?} reached through LUT entry {entry}"
    )]
    BeyondDevice {
        /// The address translated.
        addr: u32,
        /// The entry.
        entry: u8,
        /// What the entry reaches.
        target: Target,
        /// Offset in the page.
        offset: u32,
        /// Bytes the device has.
        size: u32,
    },
}

/// A core's LUT.
#[derive(Debug, Clone)]
pub struct Lut {
    chip: &'static Chip,
    entries: [LutEntry; LUT_ENTRIES],
}

impl Lut {
    /// The LUT `core` boots with.
    pub fn new(chip: &'static Chip, core: CoreId) -> Self {
        Self {
            chip,
            entries: chip.default_lut(core),
        }
    }

    /// Entry `index`.
    pub fn entry(&self, index: u8) -> LutEntry {
        self.entries[usize::from(index)]
    }

    /// Writes entry `index`; in force for the next translation.
    pub fn write(&mut self, index: u8, entry: LutEntry) {
        self.entries[usize::from(index)] = entry;
    }

    /// Writes entry `index` with a register value, as a guest store to the
    /// CRB does (bits above the 22 of an entry are ignored).
    pub fn write_raw(&mut self, index: u8, raw: u32) {
        self.write(index, LutEntry::decode(raw));
    }

    /// Where `addr` goes now.
    pub fn translate(&self, addr: u32) -> Result<Translation, LutError> {
        let index = Chip::lut_index(addr);
        let entry = index as u8;
        let e = self.entries[index];
        let raw = e.encode();
        let offset = addr % LUT_PAGE_SIZE;
        let TileCoord { x, y } = e.tile;
        let target = self.chip.target_of(e);
        let size = match target {
            Target::Dram { .. } => LUT_PAGE_SIZE,
            Target::Mpb(_) => self.chip.mpb_bytes_per_tile,
            Target::Crb(_) => self.chip.crb.size,
            Target::Fpga => self.chip.fpga.size,
            Target::Nothing => {
                let subdest = e.subdest;
                return Err(if self.chip.tile_at(e.tile).is_err() {
                    LutError::OutsideMesh {
                        addr,
                        entry,
                        raw,
                        x,
                        y,
                    }
                } else if matches!(subdest, Subdest::Core0 | Subdest::Core1) {
                    LutError::CorePort {
                        addr,
                        entry,
                        raw,
                        subdest,
                        x,
                        y,
                    }
                } else {
                    LutError::NoDevice {
                        addr,
                        entry,
                        raw,
                        subdest,
                        x,
                        y,
                    }
                });
            }
        };
        if offset >= size {
            return Err(LutError::BeyondDevice {
                addr,
                entry,
                target,
                offset,
                size,
            });
        }
        Ok(Translation {
            entry,
            target,
            offset,
            system: e.system_address(offset),
        })
    }
}

#[cfg(test)]
mod tests {
    use chip::{Port, SCC};
    use proptest::prelude::*;

    use super::*;

    fn core(n: u32) -> CoreId {
        SCC.core(n).unwrap()
    }

    #[test]
    fn the_boot_lut_reaches_the_default_map() {
        let lut = Lut::new(&SCC, core(5));
        let t = lut.translate(0xC000_2010).unwrap();
        assert_eq!(t.entry, 0xC0);
        assert_eq!(t.target, Target::Mpb(SCC.tile(0).unwrap()));
        assert_eq!((t.offset, t.system), (0x2010, 0x2010));
        let lsm = lut.translate(0x8100_0040).unwrap();
        assert_eq!(
            lsm.target,
            Target::Dram {
                controller: 1,
                page: 504
            }
        );
        assert_eq!(lsm.system, (504 << 24) | 0x40);
    }

    #[test]
    fn a_write_takes_effect_for_the_next_translation() {
        let mut lut = Lut::new(&SCC, core(0));
        let free = 140u8;
        assert!(lut.translate(0x8C00_0000).is_err());
        // Point the free entry at core 47's MPB tile and then at LSM page of controller 3.
        lut.write(free, LutEntry::new(Port::new(5, 3, Subdest::Mpb), 0));
        assert_eq!(
            lut.translate(0x8C00_0100).unwrap().target,
            Target::Mpb(SCC.tile(23).unwrap())
        );
        lut.write_raw(
            free,
            LutEntry::new(Port::new(5, 2, Subdest::PeriEast), 504).encode() | 0xFFC0_0000,
        );
        assert_eq!(
            lut.translate(0x8C00_0100).unwrap().target,
            Target::Dram {
                controller: 3,
                page: 504
            }
        );
        assert_eq!(lut.entry(free).address, 504);
    }

    #[test]
    fn entries_to_nothing_are_named_with_the_reason() {
        let mut lut = Lut::new(&SCC, core(0));
        let e = lut.translate(0x8400_0000).unwrap_err();
        assert!(matches!(e, LutError::CorePort { entry: 132, .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "core-physical 0x84000000: LUT entry 132 (0x000000) names core port Core0 of router (0, 0), which has no memory behind it (an unused entry)"
        );
        lut.write(133, LutEntry::new(Port::new(7, 0, Subdest::Mpb), 0));
        assert!(matches!(
            lut.translate(0x8500_0000),
            Err(LutError::OutsideMesh {
                entry: 133,
                x: 7,
                y: 0,
                ..
            })
        ));
        lut.write(134, LutEntry::new(Port::new(2, 1, Subdest::PeriNorth), 0));
        assert!(matches!(
            lut.translate(0x8600_0000),
            Err(LutError::NoDevice { entry: 134, .. })
        ));
        // 16 KiB of MPB behind a 16 MiB page.
        let e = lut.translate(0xC000_4000).unwrap_err();
        assert!(matches!(
            e,
            LutError::BeyondDevice {
                entry: 192,
                offset: 0x4000,
                size: 0x4000,
                ..
            }
        ));
        assert!(e.to_string().contains("beyond the 0x4000 bytes"), "{e}");
    }

    proptest! {
        /// Any entry value, any address: the translation is what the entry
        /// format says, or an error naming that entry; never a success for
        /// an entry the chip says reaches nothing.
        #[test]
        fn translation_follows_the_entry_format(raw in 0u32..(1 << 22), addr in any::<u32>(), c in 0u32..48) {
            let mut lut = Lut::new(&SCC, core(c));
            let index = (addr >> 24) as u8;
            lut.write_raw(index, raw);
            let entry = LutEntry::decode(raw);
            match lut.translate(addr) {
                Ok(t) => {
                    prop_assert_eq!(t.entry, index);
                    prop_assert_eq!(t.system, (u64::from(raw & 0x3FF) << 24) | u64::from(addr & 0xFF_FFFF));
                    prop_assert_eq!(t.target, SCC.target_of(entry));
                    prop_assert_ne!(t.target, Target::Nothing);
                }
                Err(e) => {
                    let named = match e {
                        LutError::OutsideMesh { entry, .. }
                        | LutError::CorePort { entry, .. }
                        | LutError::NoDevice { entry, .. }
                        | LutError::BeyondDevice { entry, .. } => entry,
                    };
                    prop_assert_eq!(named, index);
                    let nothing = SCC.target_of(entry) == Target::Nothing;
                    prop_assert_eq!(nothing, !matches!(e, LutError::BeyondDevice { .. }));
                }
            }
            // Other entries are untouched.
            let other = index.wrapping_add(1);
            prop_assert_eq!(lut.entry(other), SCC.default_lut(core(c))[usize::from(other)]);
        }
    }
}
