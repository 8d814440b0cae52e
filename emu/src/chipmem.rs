// SPDX-License-Identifier: GPL-2.0-or-later
//! The chip's shared memory: one sparse file that every core's QEMU maps.
//!
//! Everything the cores of one chip share lives in a single file,
//! `chip.mem`, in a directory private to the run. Each QEMU instance shows
//! parts of it to its guest as shared-memory PCI devices (see
//! [`crate::launch`]), so a store by one core is seen by every other core
//! that maps the same bytes. One file rather than one per region keeps the
//! run's state in one place and lets the plugin later map all of it at once.
//!
//! # Layout
//!
//! In this order, each part starting at a multiple of 4 KiB (QEMU maps file
//! parts at page granularity):
//!
//! | part | count | size of each |
//! |---|---|---|
//! | legacy shared memory page | one per memory controller | 16 MiB (one LUT page) |
//! | MPB | one per tile | one LUT page, of which `chip.mpb_bytes_per_tile` are used |
//! | CRB | one per tile | one LUT page, of which `chip.crb.size` are used |
//! | own-CRB view | one per core | `chip.crb.size` |
//! | FPGA register bank | one per core | `chip.fpga.size` |
//!
//! Tile MPBs and CRBs lie one LUT page apart, as they do in the core's
//! address space, so that one device can show several tiles at once (see
//! `chip::SharedRegionKind`). The file is created with its full length but
//! written only where registers need a value: it costs a few pages of real
//! memory, not the 830 MiB of its length.
//!
//! # Registers at start
//!
//! [`ChipMemory::create`] gives every tile's CRB the values silicon has
//! after reset: each test-and-set register free, each core's LUT holding
//! the chip's default layout (so the guest can read it back and reprogram
//! it), and MYTILEID holding the tile's identity.
//!
//! # Deliberate difference: the own-CRB view is a per-core copy
//!
//! On silicon MYTILEID answers with the identity of the core that reads it,
//! so both cores of a tile read different values at the same address. A
//! shared file cannot do that. In this first, coherent version each core's
//! own-CRB entry (`0xF8000000` on the SCC) therefore shows a per-core copy
//! of its tile's CRB, made at start, whose MYTILEID is that core's own. The
//! guest reads its identity there, and uses the tile-CRB addresses for the
//! registers that must be shared (test-and-set registers and LUTs): a write
//! through the own-CRB view reaches no other core. The MYTILEID of the
//! shared tile CRB holds the value of the tile's core 0. This goes away once
//! the plugin models register reads itself.
//!
//! # Deliberate difference: the FPGA bank is a per-core copy
//!
//! The global timestamp registers answer with the reading core's modelled
//! time ([`crate::timing`]), so, like MYTILEID, they cannot be one shared
//! word: each core's QEMU shows its own copy of the bank, where its plugin
//! writes the time. The bank's atomic increment registers, which would have
//! to be shared, are neither modelled nor used.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use chip::{Chip, CoreId, SharedRegionKind, Target, TileId, TileIdRegister};

use crate::{Error, Result};

/// Alignment of every part of the file: QEMU maps file ranges by page.
const PAGE: u64 = 4096;

/// Where each part of a chip's shared memory lies in `chip.mem`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    chip: Chip,
    lsm: u64,
    lsm_stride: u64,
    mpb: u64,
    mpb_stride: u64,
    crb: u64,
    crb_stride: u64,
    own_crb: u64,
    own_crb_stride: u64,
    fpga: u64,
    fpga_stride: u64,
    popshm: u64,
    size: u64,
}

impl Layout {
    /// The layout for `chip`, which must be valid ([`Chip::validate`]).
    pub fn new(chip: &Chip) -> Self {
        let stride = |bytes: u32| u64::from(bytes).next_multiple_of(PAGE);
        let lsm_stride = stride(chip::LUT_PAGE_SIZE);
        // Tiles are a LUT page apart so that a device can span several.
        let mpb_stride = lsm_stride;
        let crb_stride = lsm_stride;
        let own_crb_stride = stride(chip.crb.size);
        let tiles = u64::from(chip.tiles());
        let lsm = 0;
        let mpb = lsm + chip.memory_controllers.len() as u64 * lsm_stride;
        let crb = mpb + tiles * mpb_stride;
        let own_crb = crb + tiles * crb_stride;
        let fpga = own_crb + u64::from(chip.cores()) * own_crb_stride;
        let fpga_stride = stride(chip.fpga.size);
        // The free-entry devices start at distinct offsets (see `offset`),
        // which must lie inside the file too.
        let shareable_span = u64::from(chip.address_map.shareable.len()) * lsm_stride;
        let popshm = (fpga + u64::from(chip.cores()) * fpga_stride).max(shareable_span);
        let popshm_pages: u64 = (0..chip.memory_controllers.len())
            .map(|mc| u64::from(chip.shared_dram_pages(mc) - 1))
            .sum();
        let size = popshm + popshm_pages * lsm_stride;
        Self {
            chip: *chip,
            lsm,
            lsm_stride,
            mpb,
            mpb_stride,
            crb,
            crb_stride,
            own_crb,
            own_crb_stride,
            fpga,
            fpga_stride,
            popshm,
            size,
        }
    }

    /// The chip this layout is for.
    pub fn chip(&self) -> &Chip {
        &self.chip
    }

    /// Length of the whole file in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Offset of the legacy shared memory page of memory controller `mc`.
    pub fn lsm(&self, mc: usize) -> u64 {
        self.lsm + mc as u64 * self.lsm_stride
    }

    /// Offset of tile `tile`'s MPB.
    pub fn mpb(&self, tile: TileId) -> u64 {
        self.mpb + tile.index() as u64 * self.mpb_stride
    }

    /// Where the MPBs of all tiles lie: from the first tile's to the end of
    /// the last one's stride.
    pub fn mpbs(&self) -> std::ops::Range<u64> {
        self.mpb..self.crb
    }

    /// Offset of tile `tile`'s CRB, the one all cores share.
    pub fn crb(&self, tile: TileId) -> u64 {
        self.crb + tile.index() as u64 * self.crb_stride
    }

    /// Offset of `core`'s own-CRB view (see the module doc).
    pub fn own_crb(&self, core: CoreId) -> u64 {
        self.own_crb + core.index() as u64 * self.own_crb_stride
    }

    /// Offset of `core`'s copy of the FPGA register bank (see the module doc).
    pub fn fpga(&self, core: CoreId) -> u64 {
        self.fpga + core.index() as u64 * self.fpga_stride
    }

    /// Offset of DRAM page `page` behind controller `mc`, if the emulator
    /// shares it: the LSM page and the POPSHM pages that follow it
    /// ([`Chip::popshm`]); private pages are each core's own QEMU RAM.
    pub fn dram(&self, mc: usize, page: u16) -> Option<u64> {
        let lsm = self.chip.lsm_page_number(mc);
        let index = u32::from(page).checked_sub(lsm)?;
        if index == 0 {
            return Some(self.lsm(mc));
        }
        if index >= self.chip.shared_dram_pages(mc) {
            return None;
        }
        let before: u64 = (0..mc)
            .map(|m| u64::from(self.chip.shared_dram_pages(m) - 1))
            .sum();
        Some(self.popshm + (before + u64::from(index - 1)) * self.lsm_stride)
    }

    /// What lies at `offset` of the chip memory, in words for a report:
    /// the part (an MPB, a controller's DRAM, a register block) and the
    /// byte in it.
    pub fn describe(&self, offset: u64) -> String {
        let part = |base: u64, stride: u64| ((offset - base) / stride, (offset - base) % stride);
        if offset < self.mpb {
            let (mc, byte) = part(self.lsm, self.lsm_stride);
            format!("the LSM page of memory controller {mc}, byte {byte:#x}")
        } else if offset < self.crb {
            let (tile, byte) = part(self.mpb, self.mpb_stride);
            format!("the MPB of tile {tile}, byte {byte:#x}")
        } else if offset < self.own_crb {
            let (tile, byte) = part(self.crb, self.crb_stride);
            format!("the register block of tile {tile}, byte {byte:#x}")
        } else if offset < self.fpga {
            let (core, byte) = part(self.own_crb, self.own_crb_stride);
            format!("core {core}'s own register block, byte {byte:#x}")
        } else if offset < self.popshm {
            let (core, byte) = part(self.fpga, self.fpga_stride);
            format!("core {core}'s FPGA register bank, byte {byte:#x}")
        } else {
            let (mut index, byte) = part(self.popshm, self.lsm_stride);
            for mc in 0..self.chip.memory_controllers.len() {
                let pages = u64::from(self.chip.shared_dram_pages(mc) - 1);
                if index < pages {
                    let page = u64::from(self.chip.lsm_page_number(mc)) + 1 + index;
                    return format!(
                        "shared DRAM of memory controller {mc}, LUT page {page}, byte {byte:#x}"
                    );
                }
                index -= pages;
            }
            format!("byte {offset:#x} of the chip memory, past its end")
        }
    }

    /// Offset of the bytes that back region `kind` as `core` sees it.
    ///
    /// A region of several tiles or controllers starts at its first one;
    /// the own MPB is the same bytes as the core's tile MPB (an alias); the
    /// own CRB is the core's own view.
    pub fn offset(&self, kind: SharedRegionKind, core: CoreId) -> u64 {
        let tile = |n: u32| self.chip.tile(n).expect("regions name tiles of their chip");
        match kind {
            SharedRegionKind::Lsm { first, .. } => self.lsm(first as usize),
            // Shown at boot: any bytes (accesses are refused until a LUT
            // entry points there, and the plugin then remaps the page), at
            // a distinct offset per device so the plugin can tell QEMU's
            // mappings apart.
            SharedRegionKind::Shareable { first, .. } => u64::from(first) * self.lsm_stride,
            SharedRegionKind::Mpb { first, .. } => self.mpb(tile(first)),
            SharedRegionKind::OwnMpb => self.mpb(self.chip.tile_of(core)),
            SharedRegionKind::Crb { first, .. } => self.crb(tile(first)),
            SharedRegionKind::OwnCrb => self.own_crb(core),
            SharedRegionKind::Fpga => self.fpga(core),
        }
    }
}

/// What backs a LUT target in the run's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backing {
    /// Memory a core may cache (an LSM page, an MPB): at this offset of the
    /// chip memory (G) and, identically placed, of every core's view.
    Memory {
        /// Offset of the target's first byte.
        offset: u64,
    },
    /// Registers (a CRB, the FPGA bank): at this offset of the chip memory
    /// only; they are never cached.
    Registers {
        /// Offset of the target's first byte.
        offset: u64,
    },
    /// Nothing the emulator holds: another core's private DRAM, or a DRAM
    /// page outside the shared ones, or no device at all.
    Unbacked,
}

impl Layout {
    /// Where the page `target` lies in the run's files, as `core` sees it
    /// (the FPGA bank is a per-core copy).
    pub fn backing(&self, target: Target, core: CoreId) -> Backing {
        match target {
            Target::Dram { controller, page } => match self.dram(controller, page) {
                Some(offset) => Backing::Memory { offset },
                None => Backing::Unbacked,
            },
            Target::Nothing => Backing::Unbacked,
            Target::Mpb(tile) => Backing::Memory {
                offset: self.mpb(tile),
            },
            Target::Crb(tile) => Backing::Registers {
                offset: self.crb(tile),
            },
            Target::Fpga => Backing::Registers {
                offset: self.fpga(core),
            },
        }
    }
}

/// Core `core`'s view of the chip memory: a file as long as `chip.mem`
/// whose cacheable parts the core's QEMU shows (see [`crate::launch`]).
pub fn view_path(dir: &Path, core: CoreId) -> PathBuf {
    dir.join(format!("view-{:02}.mem", core.index()))
}

/// Core `core`'s private RAM, a file so that the plugin can read the
/// guest's page tables; created empty, QEMU sizes it.
pub fn ram_path(dir: &Path, core: CoreId) -> PathBuf {
    dir.join(format!("ram-{:02}.mem", core.index()))
}

/// The directory of cached lines: one record per 32-byte line of the chip
/// memory ([`record_words`] words), naming the cores whose caches hold the
/// line, its lock and the last core that wrote it.
pub fn directory_path(dir: &Path) -> PathBuf {
    dir.join("directory.mem")
}

/// When each 32-byte line of the chip memory was last written, in
/// modelled core cycles (one 64-bit word per line, [`stamps_size`]): a
/// core that reads the line cannot have read it earlier (`crate::timing`).
pub fn stamps_path(dir: &Path) -> PathBuf {
    dir.join("stamps.mem")
}

/// Which cores wait on each 32-byte line of the chip memory, one bit per
/// core (one record per line, as the directory): a store to a watched
/// line is ordered and wakes them (`crate::timing`).
pub fn watchers_path(dir: &Path) -> PathBuf {
    dir.join("watchers.mem")
}

/// Who last wrote each LUT entry of each core, so that a core stopped at
/// a bad entry can name the writer, which may be another core: one 64-bit
/// [`LutWrite`] word per entry, core by core ([`lut_writes_size`]), 0 for
/// an entry no core wrote since reset.
pub fn lut_writes_path(dir: &Path) -> PathBuf {
    dir.join("lut-writes.mem")
}

/// Bytes of the LUT writes file for `chip`.
pub fn lut_writes_size(chip: &Chip) -> u64 {
    u64::from(chip.cores()) * chip::LUT_ENTRIES as u64 * 8
}

/// Offset of the word of entry `entry` of `core`'s LUT in the LUT writes file.
pub fn lut_write_offset(core: CoreId, entry: usize) -> u64 {
    (core.index() * chip::LUT_ENTRIES + entry) as u64 * 8
}

/// The last write of a LUT entry, as the LUT writes file keeps it in one
/// word: the instruction (bits 32-63), the value the entry took (bits
/// 10-31, the 22 bits of a LUT entry) and the writing core plus one (bits
/// 0-9; 0: nobody).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LutWrite {
    /// The core that wrote.
    pub writer: u32,
    /// Address of its instruction.
    pub insn: u32,
    /// What the entry held after the write.
    pub value: u32,
}

impl LutWrite {
    /// The word for this write.
    pub fn pack(self) -> u64 {
        u64::from(self.insn) << 32
            | u64::from(self.value & chip::LutEntry::MASK) << 10
            | u64::from(self.writer + 1) & 0x3FF
    }

    /// The write a word holds, if any.
    pub fn unpack(word: u64) -> Option<Self> {
        let writer = (word & 0x3FF) as u32;
        (writer != 0).then(|| Self {
            writer: writer - 1,
            insn: (word >> 32) as u32,
            value: (word >> 10) as u32 & chip::LutEntry::MASK,
        })
    }
}

/// The reset value of the register word at `offset` of tile `tile`'s CRB,
/// or of `own`'s own-CRB view of it when given.
pub fn crb_reset_word(chip: &Chip, tile: TileId, own: Option<CoreId>, offset: u32) -> u32 {
    let mut crb = tile_crb(chip, tile);
    if let Some(core) = own {
        put_u32(&mut crb, chip.crb.my_tile_id, chip.tile_id_register(core).0);
    }
    let at = (offset & !3) as usize;
    u32::from_le_bytes(crb[at..at + 4].try_into().expect("4 bytes"))
}

/// Bytes of the stamps file for a chip memory of `size` bytes: a word per line.
pub fn stamps_size(size: u64) -> u64 {
    size / chip::CACHE_LINE as u64 * 8
}

/// Words of a line's record in the directory and the watchers file: one
/// of flags, then one bit per core of `chip`.
pub fn record_words(chip: &Chip) -> u64 {
    1 + u64::from(chip.cores().div_ceil(64))
}

/// Bytes of the directory (and of the watchers file) for `layout`.
pub fn records_size(layout: &Layout) -> u64 {
    stamps_size(layout.size()) * record_words(layout.chip())
}

/// Where core `c`'s bit lies in a line's record of the directory or the
/// watchers file: the word (after the flags) and the bit in it.
pub fn record_bit(c: usize) -> (u64, u64) {
    (1 + c as u64 / 64, 1 << (c % 64))
}

/// The lines (offsets in the chip memory) core `core` watches in the
/// watchers file in `dir` for a run of `chip`: what a waiting core waits
/// to see written. Reads only the parts of the (sparse) file that hold
/// data.
pub fn watched_lines(dir: &Path, chip: &Chip, core: u32) -> std::io::Result<Vec<u64>> {
    use std::os::fd::AsRawFd;
    let file = File::open(watchers_path(dir))?;
    let len = file.metadata()?.len();
    let record = record_words(chip) * 8;
    let (word, bit) = record_bit(core as usize);
    let mut lines = Vec::new();
    let mut at = 0;
    while at < len {
        // SAFETY: lseek on a descriptor this function owns; it moves only
        // the file's offset, which nothing else here uses.
        let data = unsafe { libc::lseek(file.as_raw_fd(), at as libc::off_t, libc::SEEK_DATA) };
        if data < 0 {
            break; // ENXIO: no data beyond `at`
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(file.as_raw_fd(), data, libc::SEEK_HOLE) };
        let (start, end) = (
            data as u64 / record * record,
            (hole.max(data) as u64).min(len),
        );
        let mut bytes = vec![0u8; (end - start) as usize];
        file.read_exact_at(&mut bytes, start)?;
        for (i, r) in bytes.chunks_exact(record as usize).enumerate() {
            let at = (word * 8) as usize;
            let bits = u64::from_le_bytes(r[at..at + 8].try_into().expect("8 bytes"));
            if bits & bit != 0 {
                lines.push((start / record + i as u64) * chip::CACHE_LINE as u64);
            }
        }
        at = end.max(start + record);
    }
    Ok(lines)
}

/// The chip memory file of one run.
#[derive(Debug)]
pub struct ChipMemory {
    path: PathBuf,
    layout: Layout,
    file: File,
}

impl ChipMemory {
    /// Name of the file inside the directory given to [`ChipMemory::create`].
    pub const FILE_NAME: &'static str = "chip.mem";

    /// Creates `dir/chip.mem` for `chip` (which must be valid) with every
    /// register at its reset value, the views of cores `0..cores` and the
    /// directory, all sparse. Refuses to overwrite an existing file: it may
    /// belong to a running chip.
    pub fn create(dir: &Path, chip: &Chip, cores: u32) -> Result<Self> {
        let path = dir.join(Self::FILE_NAME);
        let layout = Layout::new(chip);
        let file = create_sparse(&path, layout.size)?;
        for core in chip.all_cores().take(cores as usize) {
            create_sparse(&view_path(dir, core), layout.size)?;
            // Empty: QEMU gives it the RAM's size.
            create_sparse(&ram_path(dir, core), 0)?;
        }
        create_sparse(&directory_path(dir), records_size(&layout))?;
        create_sparse(&lut_writes_path(dir), lut_writes_size(chip))?;
        create_sparse(&crate::timing::clocks_path(dir), crate::timing::FILE_SIZE)?;
        create_sparse(&stamps_path(dir), stamps_size(layout.size))?;
        create_sparse(&watchers_path(dir), records_size(&layout))?;
        let memory = Self { path, layout, file };
        memory.write_registers()?;
        Ok(memory)
    }

    /// Opens the chip memory file at `path`, checking that it has the size
    /// of `chip`'s layout.
    pub fn open(path: &Path, chip: &Chip) -> Result<Self> {
        let layout = Layout::new(chip);
        let file = File::options()
            .read(true)
            .write(true)
            .open(path)
            .map_err(Error::io(path))?;
        let actual = file.metadata().map_err(Error::io(path))?.len();
        if actual != layout.size {
            return Err(Error::MemSize {
                path: path.to_owned(),
                chip: chip.name,
                expected: layout.size,
                actual,
            });
        }
        Ok(Self {
            path: path.to_owned(),
            layout,
            file,
        })
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where each part lies in it.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn write_registers(&self) -> Result<()> {
        let chip = &self.layout.chip;
        let write = |offset: u64, bytes: &[u8]| {
            self.file
                .write_all_at(bytes, offset)
                .map_err(Error::io(&self.path))
        };
        for tile in chip.all_tiles() {
            let mut crb = tile_crb(chip, tile);
            write(self.layout.crb(tile), &crb)?;
            for core in chip.all_cores().filter(|&c| chip.tile_of(c) == tile) {
                put_u32(&mut crb, chip.crb.my_tile_id, chip.tile_id_register(core).0);
                write(self.layout.own_crb(core), &crb)?;
            }
        }
        Ok(())
    }
}

/// A new file of `len` zero bytes that takes no memory until written.
fn create_sparse(path: &Path, len: u64) -> Result<File> {
    let file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(Error::io(path))?;
    file.set_len(len).map_err(Error::io(path))?;
    Ok(file)
}

/// The reset contents of tile `tile`'s CRB: free test-and-set registers,
/// default LUTs, and MYTILEID of the tile's core 0.
fn tile_crb(chip: &Chip, tile: TileId) -> Vec<u8> {
    let layout = &chip.crb;
    let mut crb = vec![0; layout.size as usize];
    for core in chip.all_cores().filter(|&c| chip.tile_of(c) == tile) {
        let z = chip.z_of(core);
        crb[layout.lock[usize::from(z)] as usize] = chip.tsr_protocol.free;
        for (index, entry) in chip.default_lut(core).iter().enumerate() {
            put_u32(&mut crb, layout.lut_entry(z, index), entry.encode());
        }
    }
    let tile_id = TileIdRegister::new(chip.tile_coord(tile), 0);
    put_u32(&mut crb, layout.my_tile_id, tile_id.0);
    crb
}

/// Stores `value` little-endian at `offset`, as the P54C stores a word.
fn put_u32(bytes: &mut [u8], offset: u32, value: u32) {
    let at = offset as usize;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use chip::{CrbLayout, SCC};

    use super::*;

    fn read_u32(memory: &ChipMemory, offset: u64) -> u32 {
        let mut word = [0; 4];
        memory.file.read_exact_at(&mut word, offset).unwrap();
        u32::from_le_bytes(word)
    }

    /// The parts of `chip`'s layout, sorted, once checked to be page
    /// aligned, apart and inside the file.
    fn checked_parts(chip: &Chip) -> (Layout, Vec<(u64, u64)>) {
        let layout = Layout::new(chip);
        let mut parts: Vec<(u64, u64)> = (0..chip.memory_controllers.len())
            .map(|mc| (layout.lsm(mc), u64::from(chip::LUT_PAGE_SIZE)))
            .chain(chip.all_tiles().flat_map(|t| {
                [
                    (layout.mpb(t), u64::from(chip.mpb_bytes_per_tile)),
                    (layout.crb(t), u64::from(chip.crb.size)),
                ]
            }))
            .chain(
                chip.all_cores()
                    .map(|c| (layout.own_crb(c), u64::from(chip.crb.size))),
            )
            .chain(
                chip.all_cores()
                    .map(|c| (layout.fpga(c), u64::from(chip.fpga.size))),
            )
            .collect();
        parts.sort();
        for pair in parts.windows(2) {
            assert!(pair[0].0 + pair[0].1 <= pair[1].0, "{pair:?}");
        }
        assert!(parts.iter().all(|(offset, _)| offset % PAGE == 0));
        let (last, len) = parts[parts.len() - 1];
        assert!(layout.size() >= last + len);
        (layout, parts)
    }

    #[test]
    fn parts_are_page_aligned_and_do_not_overlap() {
        let (layout, parts) = checked_parts(&SCC);
        assert_eq!(parts.len(), 4 + 24 + 24 + 48 + 48);
        // 4 LSM pages, 24 MPB and 24 CRB pages, 48 own CRBs of 8 KiB and 48
        // FPGA banks of 64 KiB fit in the 59 pages the free-entry devices span;
        // the 4 POPSHM pages of each of the 48 cores follow.
        assert_eq!(layout.size(), (59 + 48 * 4) << 24);
    }

    #[test]
    fn the_8x8_chips_parts_are_apart_too() {
        let chip = &chip::MESH8X8;
        let (layout, parts) = checked_parts(chip);
        assert_eq!(parts.len(), 8 + 64 + 64 + 192 + 192);
        // Its 192 cores' two POPSHM pages each follow the parts.
        assert!(layout.size() >= (192 * 2) << 24);
        // A line's record: a word of flags and three of cores (the SCC's
        // 48 cores need one).
        assert_eq!((record_words(chip), record_words(&SCC)), (4, 2));
        assert_eq!(records_size(&layout), layout.size() / 32 * 8 * 4);
        every_region_of_every_core_has_its_bytes_on(chip);
    }

    #[test]
    fn every_region_of_every_core_has_its_bytes_in_the_file() {
        every_region_of_every_core_has_its_bytes_on(&SCC);
        // Both cores of a tile share its MPB but not their own-CRB views.
        let layout = Layout::new(&SCC);
        let (c0, c1) = (SCC.core(6).unwrap(), SCC.core(7).unwrap());
        let own_mpb = SharedRegionKind::OwnMpb;
        assert_eq!(layout.offset(own_mpb, c0), layout.offset(own_mpb, c1));
        let own_crb = SharedRegionKind::OwnCrb;
        assert_ne!(layout.offset(own_crb, c0), layout.offset(own_crb, c1));
    }

    /// Every part of every region each core of `chip` maps lands on the
    /// bytes of what it shows.
    fn every_region_of_every_core_has_its_bytes_on(chip: &Chip) {
        let layout = Layout::new(chip);
        for core in chip.all_cores() {
            let tile = chip.tile_of(core);
            for region in chip.shared_regions() {
                let offset = layout.offset(region.kind, core);
                assert_eq!(offset % PAGE, 0);
                assert!(offset + u64::from(region.size) <= layout.size());
                // Every part the guest maps lands on the bytes of what it shows.
                let parts: Vec<_> = region
                    .parts(chip)
                    .map(|p| offset + u64::from(p.base - region.base))
                    .collect();
                let expected: Vec<_> = match region.kind {
                    SharedRegionKind::Shareable { .. } => vec![],
                    SharedRegionKind::Lsm { first, count } => (first..first + count)
                        .map(|mc| layout.lsm(mc as usize))
                        .collect(),
                    SharedRegionKind::Mpb { first, count } => (first..first + count)
                        .map(|t| layout.mpb(chip.tile(t).unwrap()))
                        .collect(),
                    SharedRegionKind::OwnMpb => vec![layout.mpb(tile)],
                    SharedRegionKind::Crb { first, count } => (first..first + count)
                        .map(|t| layout.crb(chip.tile(t).unwrap()))
                        .collect(),
                    SharedRegionKind::OwnCrb => vec![layout.own_crb(core)],
                    SharedRegionKind::Fpga => vec![layout.fpga(core)],
                };
                assert_eq!(parts, expected, "{core} {region:?}");
            }
        }
    }

    /// Checks every register [`ChipMemory::create`] initialises in the CRB
    /// at `base`, which shows MYTILEID `tile_id`.
    fn check_crb(memory: &ChipMemory, tile: TileId, base: u64, tile_id: u32) {
        let crb: &CrbLayout = &SCC.crb;
        assert_eq!(read_u32(memory, base + u64::from(crb.my_tile_id)), tile_id);
        for core in SCC.all_cores().filter(|&c| SCC.tile_of(c) == tile) {
            let z = SCC.z_of(core);
            let lock = base + u64::from(crb.lock[usize::from(z)]);
            assert_eq!(read_u32(memory, lock), u32::from(SCC.tsr_protocol.free));
            for (index, entry) in SCC.default_lut(core).iter().enumerate() {
                let at = base + u64::from(crb.lut_entry(z, index));
                assert_eq!(read_u32(memory, at), entry.encode(), "{core} entry {index}");
            }
        }
    }

    #[test]
    fn create_initialises_every_crb_and_every_own_view() {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 2).unwrap();
        let layout = *memory.layout();
        assert_eq!(memory.path(), dir.path().join("chip.mem"));
        assert_eq!(memory.file.metadata().unwrap().len(), layout.size());
        for tile in SCC.all_tiles() {
            let tile_id = TileIdRegister::new(SCC.tile_coord(tile), 0).0;
            check_crb(&memory, tile, layout.crb(tile), tile_id);
        }
        for core in SCC.all_cores() {
            let tile = SCC.tile_of(core);
            let own = layout.own_crb(core);
            check_crb(&memory, tile, own, SCC.tile_id_register(core).0);
            assert_eq!(
                SCC.core_from_tile_id(TileIdRegister(read_u32(
                    &memory,
                    own + u64::from(SCC.crb.my_tile_id)
                ))),
                Ok(core)
            );
        }
        // A free lock is one byte: the rest of its word stays 0.
        let lock = layout.crb(SCC.tile(3).unwrap()) + u64::from(SCC.crb.lock[1]);
        assert_eq!(read_u32(&memory, lock), 1);
        // Everything else (LSM, MPBs, FPGA bank) starts zeroed.
        assert_eq!(read_u32(&memory, layout.lsm(2) + 0x40), 0);
        assert_eq!(read_u32(&memory, layout.mpb(SCC.tile(23).unwrap())), 0);
        assert_eq!(read_u32(&memory, layout.fpga(SCC.core(1).unwrap())), 0);
    }

    #[test]
    fn shared_dram_pages_have_distinct_places_and_private_pages_none() {
        let layout = Layout::new(&SCC);
        let mut seen = std::collections::BTreeSet::new();
        for core in SCC.all_cores() {
            let (mc, first) = SCC.popshm(core);
            for k in 0..SCC.address_map.popshm_pages as u16 {
                let offset = layout.dram(mc, first + k).unwrap();
                assert!(offset + u64::from(chip::LUT_PAGE_SIZE) <= layout.size());
                assert!(offset >= layout.fpga(SCC.core(47).unwrap()) + u64::from(SCC.fpga.size));
                assert!(seen.insert(offset), "{core} page {k}");
            }
        }
        assert_eq!(seen.len(), 48 * 4);
        for mc in 0..4 {
            let lsm = SCC.lsm_page_number(mc) as u16;
            assert_eq!(layout.dram(mc, lsm), Some(layout.lsm(mc)));
            assert_eq!(layout.dram(mc, 0), None, "private memory is not shared");
            assert_eq!(layout.dram(mc, lsm + 49), None, "beyond the POPSHM pages");
        }
    }

    #[test]
    fn an_offset_is_described_by_the_part_it_lies_in() {
        let layout = Layout::new(&SCC);
        let tile = SCC.tile(5).unwrap();
        assert_eq!(
            layout.describe(layout.mpb(tile) + 0x2040),
            "the MPB of tile 5, byte 0x2040"
        );
        assert_eq!(
            layout.describe(layout.lsm(2) + 8),
            "the LSM page of memory controller 2, byte 0x8"
        );
        assert_eq!(
            layout.describe(layout.crb(tile) + 0x800),
            "the register block of tile 5, byte 0x800"
        );
        let (mc, first) = SCC.popshm(SCC.core(47).unwrap());
        let page = layout.dram(mc, first + 1).unwrap();
        assert_eq!(
            layout.describe(page + 0x20),
            format!(
                "shared DRAM of memory controller {mc}, LUT page {}, byte 0x20",
                first + 1
            )
        );
    }

    #[test]
    fn the_lines_a_core_watches_are_found_in_the_sparse_watchers_file() {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 3).unwrap();
        let layout = memory.layout;
        let file = File::options()
            .read(true)
            .write(true)
            .open(watchers_path(dir.path()))
            .unwrap();
        let record = record_words(&SCC) * 8;
        let watch = |line: u64, core: usize| {
            let (word, bit) = record_bit(core);
            let at = line / chip::CACHE_LINE as u64 * record + word * 8;
            let mut old = [0u8; 8];
            file.read_exact_at(&mut old, at).unwrap();
            let bits = u64::from_le_bytes(old) | bit;
            file.write_all_at(&bits.to_le_bytes(), at).unwrap();
        };
        let flag = layout.mpb(SCC.tile(0).unwrap()) + 0x40;
        let far = layout.dram(3, SCC.lsm_page_number(3) as u16).unwrap() + 0x1000;
        watch(flag, 1);
        watch(far, 1);
        watch(far, 2);
        assert_eq!(watched_lines(dir.path(), &SCC, 1).unwrap(), [far, flag]);
        assert_eq!(watched_lines(dir.path(), &SCC, 2).unwrap(), [far]);
        assert!(watched_lines(dir.path(), &SCC, 0).unwrap().is_empty());
    }

    #[test]
    fn the_file_is_sparse() {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 2).unwrap();
        use std::os::unix::fs::MetadataExt;
        let allocated = memory.file.metadata().unwrap().blocks() * 512;
        assert!(allocated < 4 << 20, "{allocated} bytes allocated");
    }

    #[test]
    fn create_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        ChipMemory::create(dir.path(), &SCC, 2).unwrap();
        let err = ChipMemory::create(dir.path(), &SCC, 2).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
    }

    #[test]
    fn open_checks_the_size() {
        let dir = tempfile::tempdir().unwrap();
        let created = ChipMemory::create(dir.path(), &SCC, 2).unwrap();
        let opened = ChipMemory::open(created.path(), &SCC).unwrap();
        assert_eq!(opened.layout(), created.layout());

        created.file.set_len(4096).unwrap();
        let err = ChipMemory::open(created.path(), &SCC).unwrap_err();
        assert!(
            matches!(err, Error::MemSize { expected, actual: 4096, .. } if expected == created.layout().size()),
            "{err}"
        );
        assert!(
            err.to_string().contains("4096 bytes, but chip scc needs"),
            "{err}"
        );

        let missing = dir.path().join("nothing-here");
        let err = ChipMemory::open(&missing, &SCC).unwrap_err();
        assert!(
            err.to_string().starts_with(missing.to_str().unwrap()),
            "{err}"
        );
    }
}
