// SPDX-License-Identifier: GPL-2.0-or-later
//! Address translation for one core: the page types its page tables give
//! (the TLB, CR0 and CR3) and where its LUT sends a core-physical address
//! (the LUT in force, the entries that alias one another, and the line of
//! G an address reaches).

use std::fs::File;
use std::path::PathBuf;

use chip::{CACHE_LINE, Chip, CoreId};

use crate::chipmem::{Backing, Layout};
use crate::model::lut::Lut;
use crate::model::paging::{PageType, Tlb};
use crate::shm::Mapping;
use crate::{Error, Result};

const LINE: u64 = CACHE_LINE as u64;
/// CR0's paging bit.
const CR0_PG: u32 = 1 << 31;

/// One core's translation state.
#[derive(Debug)]
pub(super) struct Translator {
    /// The chip the run models.
    chip: &'static Chip,
    /// The core translated for.
    core: CoreId,
    /// Where each region of the chip lies in G.
    layout: Layout,
    /// The core's LUT as in force at its last access.
    lut: Lut,
    /// Pairs of LUT entries that reach the same page (the own-MPB entry
    /// and the tile's MPB entry, or a free entry pointed at memory another
    /// entry reaches), kept current on every LUT write so that releasing a
    /// line need not search the whole LUT.
    aliases: Vec<(u8, u8)>,
    /// Page types read from the guest's page tables, until flushed.
    tlb: Tlb,
    /// The guest's CR0 as last written (bit 31: paging on).
    cr0: u32,
    /// The guest's CR3 as last written: its page directory.
    cr3: u32,
    /// The core's private RAM file ([`crate::chipmem::ram_path`]), where
    /// its page tables are.
    ram_path: PathBuf,
    /// That RAM, mapped the first time paging is on.
    ram: Option<Mapping>,
}

impl Translator {
    /// The translation `core` boots with: its default LUT, paging off.
    /// Its page tables are in the RAM file at `ram_path`.
    pub(super) fn new(
        chip: &'static Chip,
        core: CoreId,
        layout: Layout,
        ram_path: PathBuf,
    ) -> Self {
        let mut translator = Self {
            chip,
            core,
            layout,
            lut: Lut::new(chip, core),
            aliases: Vec::new(),
            tlb: Tlb::new(),
            cr0: 0,
            cr3: 0,
            ram_path,
            ram: None,
        };
        translator.find_aliases();
        translator
    }

    /// The LUT in force.
    pub(super) fn lut(&self) -> &Lut {
        &self.lut
    }

    /// LUT entry `entry` now holds register value `raw`.
    pub(super) fn write_lut(&mut self, entry: u8, raw: u32) {
        self.lut.write_raw(entry, raw);
        self.find_aliases();
    }

    /// The pairs of LUT entries that reach the same page.
    #[cfg(test)]
    pub(super) fn aliases(&self) -> &[(u8, u8)] {
        &self.aliases
    }

    /// The other LUT entries that reach the page of `entry`.
    pub(super) fn aliases_of(&self, entry: u8) -> impl Iterator<Item = u8> + '_ {
        self.aliases.iter().filter_map(move |&(a, b)| match entry {
            e if e == a => Some(b),
            e if e == b => Some(a),
            _ => None,
        })
    }

    /// Recomputes [`Translator::aliases`] from the LUT in force.
    fn find_aliases(&mut self) {
        // Only entries that reach shared memory can alias a cached line
        // (unused entries all hold the same value and reach nothing).
        let memory: Vec<u8> = (0..chip::LUT_ENTRIES)
            .map(|e| e as u8)
            .filter(|&e| {
                let target = self.chip.target_of(self.lut.entry(e));
                matches!(
                    self.layout.backing(target, self.core),
                    Backing::Memory { .. }
                )
            })
            .collect();
        self.aliases.clear();
        for (i, &a) in memory.iter().enumerate() {
            for &b in &memory[i + 1..] {
                if self.lut.entry(a) == self.lut.entry(b) {
                    self.aliases.push((a, b));
                }
            }
        }
    }

    /// The offset in G (and every view) of the line of `paddr`, which must
    /// reach memory.
    pub(super) fn system_line(&self, paddr: u32) -> Result<u64> {
        let t = self.lut.translate(paddr).map_err(|e| self.stop(e))?;
        match self.layout.backing(t.target, self.core) {
            Backing::Memory { offset } => Ok((offset + u64::from(t.offset)) & !(LINE - 1)),
            _ => Err(self.stop(format_args!(
                "a cached line at {paddr:#010x} now translates to {:?}, which is not memory",
                t.target
            ))),
        }
    }

    /// The guest writes `value` to control register `cr`: a CR3 write, or
    /// paging going on or off, flushes the TLB.
    pub(super) fn write_cr(&mut self, cr: u8, value: u32) {
        match cr {
            0 => {
                if (self.cr0 ^ value) & CR0_PG != 0 {
                    self.tlb.flush();
                }
                self.cr0 = value;
            }
            3 => {
                self.cr3 = value;
                self.tlb.flush();
            }
            _ => {}
        }
    }

    /// The guest executes `invlpg`: every page type is forgotten (the
    /// operand is not decoded; a full flush is always safe).
    pub(super) fn invlpg(&mut self) {
        self.tlb.flush();
    }

    /// The type of the page of `vaddr`: from the TLB, or the guest's page
    /// tables (in its RAM, mapped the first time paging is on).
    pub(super) fn page_type(&mut self, vaddr: u32) -> Result<PageType> {
        if self.cr0 & CR0_PG != 0 && self.ram.is_none() {
            let path = &self.ram_path;
            let file = File::options()
                .read(true)
                .write(true)
                .open(path)
                .map_err(Error::io(path))?;
            let len = file.metadata().map_err(Error::io(path))?.len();
            self.ram = Some(Mapping::new(&file, len).map_err(Error::io(path))?);
        }
        let ram = &self.ram;
        let read = |pa: u32| match ram {
            Some(ram) if u64::from(pa) + 4 <= ram.len() => ram.load_u32(u64::from(pa)),
            _ => 0,
        };
        let core = self.core.index();
        self.tlb
            .page_type(self.cr0, self.cr3, vaddr, read)
            .map_err(|e| Error::Model(format!("core {core}: {e}")))
    }

    /// An error stopping the core, for `reason`.
    fn stop(&self, reason: impl std::fmt::Display) -> Error {
        Error::Model(format!("core {}: {reason}", self.core.index()))
    }
}

#[cfg(test)]
mod tests {
    use chip::{PTE_PCD, SCC};

    use super::*;
    use crate::chipmem::ChipMemory;
    use chip::LUT_PAGE_SIZE;

    const PAGE_DIRECTORY: u32 = 0x1000;
    const PAGE_TABLE: u32 = 0x2000;
    const PRESENT_WRITABLE: u32 = 0b11;

    /// Core 0 of a one-core run of the SCC, its RAM holding page tables
    /// that map tile 0's MPB with `flags`.
    fn translator(flags: u32) -> (tempfile::TempDir, Translator, Mapping) {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 1).unwrap();
        let core = SCC.core(0).unwrap();
        let path = crate::chipmem::ram_path(dir.path(), core);
        let file = File::options().read(true).write(true).open(&path).unwrap();
        file.set_len(1 << 20).unwrap();
        let ram = Mapping::new(&file, 1 << 20).unwrap();
        let mpb = SCC.mpb_base(SCC.tile(0).unwrap());
        ram.store_u32(
            u64::from(PAGE_DIRECTORY + (mpb >> 22) * 4),
            PAGE_TABLE | PRESENT_WRITABLE,
        );
        ram.store_u32(
            u64::from(PAGE_TABLE + ((mpb >> 12) & 0x3FF) * 4),
            mpb | PRESENT_WRITABLE | flags,
        );
        let t = Translator::new(&SCC, core, *memory.layout(), path);
        (dir, t, ram)
    }

    #[test]
    fn the_own_mpb_entry_aliases_its_tiles_mpb_until_one_is_moved() {
        let (_dir, mut t, _ram) = translator(0);
        let tile0 = Chip::lut_index(SCC.mpb_base(SCC.tile(0).unwrap())) as u8;
        let own = SCC.address_map.own_mpb;
        // Core 0 is on tile 0: its own-MPB entry and entry 192 reach one page.
        assert_eq!(t.aliases(), [(tile0, own)]);
        assert_eq!(t.aliases_of(own).collect::<Vec<_>>(), [tile0]);
        assert_eq!(t.aliases_of(tile0).collect::<Vec<_>>(), [own]);
        // Both reach the same line of G.
        let offset = 0x40;
        assert_eq!(
            t.system_line(u32::from(own) * LUT_PAGE_SIZE + offset)
                .unwrap(),
            t.system_line(u32::from(tile0) * LUT_PAGE_SIZE + offset + 5)
                .unwrap()
        );
        // The own-MPB entry pointed at tile 1's MPB aliases that instead.
        let tile1 = tile0 + 1;
        t.write_lut(own, t.lut().entry(tile1).encode());
        assert_eq!(t.aliases(), [(tile1, own)]);
        assert_eq!(t.aliases_of(tile0).count(), 0);
    }

    #[test]
    fn a_line_that_reaches_no_memory_has_no_system_line() {
        let (_dir, t, _ram) = translator(0);
        let crb = SCC.crb_base(SCC.tile(0).unwrap());
        let error = t.system_line(crb).unwrap_err().to_string();
        assert!(error.contains("core 0: a cached line at"), "{error}");
    }

    #[test]
    fn page_types_come_from_the_tables_with_paging_on_until_flushed() {
        let (_dir, mut t, ram) = translator(PTE_PCD);
        let mpb = SCC.mpb_base(SCC.tile(0).unwrap());
        assert_eq!(t.page_type(mpb).unwrap(), PageType::PAGING_OFF);
        t.write_cr(3, PAGE_DIRECTORY);
        t.write_cr(0, CR0_PG);
        let uncached = t.page_type(mpb).unwrap();
        assert_ne!(uncached, PageType::PAGING_OFF);
        // The tables change; the TLB keeps the old type until invlpg.
        let pte = u64::from(PAGE_TABLE + ((mpb >> 12) & 0x3FF) * 4);
        ram.store_u32(pte, mpb | PRESENT_WRITABLE);
        assert_eq!(t.page_type(mpb).unwrap(), uncached);
        t.invlpg();
        let cached = t.page_type(mpb).unwrap();
        assert_ne!(cached, uncached);
        // Paging off: no tables.
        t.write_cr(0, 0);
        assert_eq!(t.page_type(mpb).unwrap(), PageType::PAGING_OFF);
    }
}
