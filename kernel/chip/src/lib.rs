// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one definition of a non-cache-coherent many-core chip.
//!
//! Everything that kernel, rma and emu must agree on about the hardware lives
//! here, as data: the mesh and its tiles, where the memory controllers sit,
//! the default LUT layout and the core-physical address map it gives, the LUT
//! entry format, the configuration-register (CRB) and FPGA-bank offsets, and
//! the memory types a page can have. [`SCC`] describes the Intel Single-Chip
//! Cloud Computer; another chip of the same family (a different mesh, other
//! controller positions, another address map) is another [`Chip`] value, not
//! a code change. [`Chip::validate`] says whether such a value is consistent.
//!
//! Sources: the SCC facts come from the SCC one-sided thesis (topology,
//! caches, LUT, MPB, TSR, memory types) and from public SCC system software
//! (sccLinux `sccsys.h`, RCCE and BareMichael `scc.h`) for register offsets
//! and encodings; each item cites where it comes from.
#![cfg_attr(not(test), no_std)]
#![warn(missing_docs)]

#[cfg(any(test, feature = "alloc"))]
extern crate alloc;

mod address;
#[cfg(any(test, feature = "alloc"))]
pub mod args;
mod atomics;
mod emulated;
mod lut;
mod memtype;
#[cfg(any(test, feature = "alloc"))]
mod options;
mod pages;
mod registers;
pub mod settings;
#[cfg(any(test, feature = "alloc"))]
pub mod stats;
mod timing;
mod topology;
pub mod trace;

pub use address::{AddressMap, EntryRange, LUT_ENTRIES, LUT_PAGE_SHIFT, LUT_PAGE_SIZE};
pub use atomics::{AtomicOp, RAU_PRESENT, RauCommand, RauError, RauRegister, RemoteAtomics};
pub use emulated::{
    ARGS_START, EXIT_PORT, GUEST_ENDS_RUN, GUEST_FAILURE, GUEST_SUCCESS, RegionPart, SharedRegion,
    SharedRegionKind,
};
pub use lut::{LutEntry, Target};
pub use memtype::{MemoryType, PTE_PCD, PTE_PMB, PTE_PWT};
#[cfg(any(test, feature = "alloc"))]
pub use options::{
    DEFAULT_QUANTUM, DEFAULT_SEED, Mode, Model, OptionKey, OptionsError, PluginOptions, Time,
    WtReads,
};
pub use pages::{DramPages, MapError};
pub use registers::{CrbLayout, EMU_SIGNATURE, EmuCall, FpgaLayout, TsrProtocol};
pub use timing::{Timing, reads_back};
pub use topology::{
    CoreId, MemoryController, Port, Subdest, TileCoord, TileId, TileIdRegister, TileRect,
};

/// Size of a cache line and of a write-combine buffer on the SCC (thesis 1.2, 1.5).
pub const CACHE_LINE: usize = 32;

/// Most cores a chip may have: a [`CoreId`] is one byte. The emulator's
/// per-core tables (line holders, watchers, clocks) are sized for this many.
pub const MAX_CORES: u32 = 256;

/// Every chip the layers can run, found by name ([`Chip::name`],
/// [`find_chip`]); the first is the default.
pub static CHIPS: &[Chip] = &[SCC, MESH8X8];

/// The chip a run emulates and an image boots on unless told otherwise.
pub const DEFAULT_CHIP: &Chip = &CHIPS[0];

/// The chip of [`CHIPS`] called `name`.
pub fn find_chip(name: &str) -> Option<&'static Chip> {
    CHIPS.iter().find(|c| c.name == name)
}

/// The names of [`CHIPS`], for messages: "scc, mesh8x8".
pub fn chip_names() -> impl core::fmt::Display {
    struct Names;
    impl core::fmt::Display for Names {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            for (i, chip) in CHIPS.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(chip.name)?;
            }
            Ok(())
        }
    }
    Names
}

/// A whole chip, described as data.
///
/// Field values for the SCC are in [`SCC`]; the doc of each field says what
/// constrains it, and [`Chip::validate`] checks those constraints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chip {
    /// Short name, used in messages.
    pub name: &'static str,
    /// Tiles along x (at most 16: LUT entries hold 4 bits of x).
    pub mesh_x: u8,
    /// Tiles along y (at most 16).
    pub mesh_y: u8,
    /// Cores on each tile (at most 8: MYTILEID holds 3 bits of core number).
    pub cores_per_tile: u8,
    /// Message passing buffer per tile, in bytes; split evenly between its cores.
    pub mpb_bytes_per_tile: u32,
    /// The memory controllers, each with the tiles it serves.
    pub memory_controllers: &'static [MemoryController],
    /// Where the system interface (FPGA register bank) attaches to the mesh.
    pub system_interface: Port,
    /// Core-physical address map, as LUT entries.
    pub address_map: AddressMap,
    /// Configuration register block offsets.
    pub crb: CrbLayout,
    /// FPGA register bank offsets.
    pub fpga: FpgaLayout,
    /// How a core takes and releases its test-and-set register.
    pub tsr_protocol: TsrProtocol,
    /// Clocks and latencies, each with its source.
    pub timing: Timing,
    /// The remote atomic unit, if the chip has one: where it sits, where
    /// each core's request registers are, its service time.
    pub remote_atomics: Option<RemoteAtomics>,
}

/// The Intel SCC: 24 tiles on a 6x4 mesh, two P54C cores each, four DDR3
/// memory controllers on the west and east edges (thesis 1.1, 1.10).
pub const SCC: Chip = Chip {
    name: "scc",
    mesh_x: 6,
    mesh_y: 4,
    cores_per_tile: 2,
    // 16 KiB per tile, 8 KiB per core (thesis 1.4; sccsys.h SCC_MPB_SIZE).
    mpb_bytes_per_tile: 16 * 1024,
    // Six tiles each: at most two apart in x and one in y (thesis 1.1); the
    // controllers hang off the west/east ports of routers (0,0), (5,0), (0,2),
    // (5,2), which is also where the four LSM pages live (thesis 1.10).
    memory_controllers: &[
        MemoryController {
            port: Port::new(0, 0, Subdest::PeriWest),
            serves: TileRect::new(0, 0, 3, 2),
        },
        MemoryController {
            port: Port::new(5, 0, Subdest::PeriEast),
            serves: TileRect::new(3, 0, 3, 2),
        },
        MemoryController {
            port: Port::new(0, 2, Subdest::PeriWest),
            serves: TileRect::new(0, 2, 3, 2),
        },
        MemoryController {
            port: Port::new(5, 2, Subdest::PeriEast),
            serves: TileRect::new(3, 2, 3, 2),
        },
    ],
    // sccKit attaches the system FPGA to the south port of router (3,0).
    system_interface: Port::new(3, 0, Subdest::PeriSouth),
    address_map: AddressMap::SCC,
    crb: CrbLayout::SCC,
    fpga: FpgaLayout::SCC,
    tsr_protocol: TsrProtocol::SCC,
    timing: Timing::SCC,
    // The SCC's only atomic primitive is the test-and-set register.
    remote_atomics: None,
};

/// A second chip of the family, differing from the SCC in every dimension
/// the layers depend on (not a real product; the SCC's clocks and
/// latencies): 64 tiles on an 8x8 mesh, three cores each (192 cores),
/// 16 KiB of MPB per core, eight memory controllers on the south and
/// north edges, each serving a 2x4 block of tiles, the system interface
/// on the west port of router (0,0), 16 private pages per core, 40 free
/// LUT entries and two POPSHM pages per core. It has a remote atomic unit
/// at each memory controller and each MPB ([`RemoteAtomics::MESH8X8`]).
pub const MESH8X8: Chip = Chip {
    name: "mesh8x8",
    mesh_x: 8,
    mesh_y: 8,
    cores_per_tile: 3,
    mpb_bytes_per_tile: 3 * 16 * 1024,
    memory_controllers: &[
        MemoryController {
            port: Port::new(1, 0, Subdest::PeriSouth),
            serves: TileRect::new(0, 0, 2, 4),
        },
        MemoryController {
            port: Port::new(3, 0, Subdest::PeriSouth),
            serves: TileRect::new(2, 0, 2, 4),
        },
        MemoryController {
            port: Port::new(5, 0, Subdest::PeriSouth),
            serves: TileRect::new(4, 0, 2, 4),
        },
        MemoryController {
            port: Port::new(7, 0, Subdest::PeriSouth),
            serves: TileRect::new(6, 0, 2, 4),
        },
        MemoryController {
            port: Port::new(0, 7, Subdest::PeriNorth),
            serves: TileRect::new(0, 4, 2, 4),
        },
        MemoryController {
            port: Port::new(2, 7, Subdest::PeriNorth),
            serves: TileRect::new(2, 4, 2, 4),
        },
        MemoryController {
            port: Port::new(4, 7, Subdest::PeriNorth),
            serves: TileRect::new(4, 4, 2, 4),
        },
        MemoryController {
            port: Port::new(6, 7, Subdest::PeriNorth),
            serves: TileRect::new(6, 4, 2, 4),
        },
    ],
    system_interface: Port::new(0, 0, Subdest::PeriWest),
    // Tile-indexed ranges on aligned blocks, so that each is one shared
    // region of the emulator; entries 195-252 reach nothing.
    address_map: AddressMap {
        private: &[EntryRange::new(0, 15), EntryRange::new(255, 255)],
        lsm: EntryRange::new(16, 23),
        shareable: EntryRange::new(24, 63),
        popshm_pages: 2,
        mpb_first: 64,
        crb_first: 128,
        own_mpb: 192,
        own_crb: 193,
        fpga: 194,
        platform: EntryRange::new(253, 254),
    },
    // The SCC's block with a third core's registers after the second's.
    crb: CrbLayout {
        size: 0x2000,
        glcfg: &[0x010, 0x018, 0x030],
        l2cfg: &[0x020, 0x028, 0x038],
        my_tile_id: 0x100,
        lock: &[0x200, 0x400, 0x600],
        lut: &[0x800, 0x1000, 0x1800],
    },
    fpga: FpgaLayout::SCC,
    tsr_protocol: TsrProtocol::SCC,
    timing: Timing::SCC,
    remote_atomics: Some(RemoteAtomics::MESH8X8),
};

/// What is wrong with a [`Chip`] value or with an argument checked against one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChipError {
    /// A mesh dimension is 0 or larger than the LUT entry format can address.
    MeshSize {
        /// Tiles along x.
        x: u8,
        /// Tiles along y.
        y: u8,
    },
    /// Cores per tile is 0 or larger than MYTILEID can encode.
    CoresPerTile(u8),
    /// The chip has more than [`MAX_CORES`] cores.
    Cores(u32),
    /// The MPB per tile is not a multiple of `cores * CACHE_LINE`, or exceeds a LUT page.
    MpbSize(u32),
    /// There are no memory controllers, or more than the address map has LSM pages for.
    MemoryControllerCount(usize),
    /// A controller's port or domain lies (partly) outside the mesh.
    ControllerOutsideMesh(usize),
    /// A tile is served by no controller, or by more than one.
    TileDomain {
        /// The tile.
        tile: TileCoord,
        /// How many controllers claim it.
        controllers: usize,
    },
    /// The system interface port lies outside the mesh.
    SystemInterfaceOutsideMesh,
    /// Two parts of the address map claim the same LUT entry, or a part runs past entry 255.
    LutEntryConflict(u16),
    /// The CRB layout does not give one register of each per-core kind per core, or a
    /// register lies outside the block.
    CrbLayout,
    /// A core id is not below the chip's core count.
    CoreOutOfRange {
        /// The id given.
        core: u32,
        /// The chip's core count.
        cores: u32,
    },
    /// A MYTILEID value names no core of this chip.
    TileIdRegister(u32),
    /// The private pages of a controller's cores plus its LSM page exceed what a LUT entry's
    /// 10-bit page number reaches.
    DramPages {
        /// The controller.
        controller: usize,
        /// The 16 MiB pages it would need.
        pages: u32,
    },
    /// A clock of [`Chip::timing`] is zero, or its DRAM has no banks.
    Clocks,
    /// The remote atomic unit sits nowhere, or its request registers do
    /// not lie whole and aligned in the system bank.
    RemoteAtomics {
        /// Their offset in the system bank.
        registers: u32,
    },
    /// A tile id is not below the chip's tile count.
    TileOutOfRange {
        /// The id given.
        tile: u32,
        /// The chip's tile count.
        tiles: u32,
    },
}

impl core::fmt::Display for ChipError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::MeshSize { x, y } => write!(f, "mesh {x}x{y}: each side must be 1..=16 tiles"),
            Self::CoresPerTile(n) => write!(f, "{n} cores per tile: must be 1..=8"),
            Self::Cores(n) => write!(f, "{n} cores: a chip has at most {MAX_CORES}"),
            Self::MpbSize(n) => write!(
                f,
                "MPB of {n} bytes per tile: must be a non-zero multiple of cores x {CACHE_LINE} bytes within 16 MiB"
            ),
            Self::MemoryControllerCount(n) => write!(
                f,
                "{n} memory controllers: need at least one and at most one per LSM LUT entry"
            ),
            Self::ControllerOutsideMesh(i) => {
                write!(f, "memory controller {i}: port or domain outside the mesh")
            }
            Self::TileDomain { tile, controllers } => write!(
                f,
                "tile ({}, {}) is served by {controllers} memory controllers: must be exactly 1",
                tile.x, tile.y
            ),
            Self::SystemInterfaceOutsideMesh => {
                f.write_str("system interface port outside the mesh")
            }
            Self::LutEntryConflict(e) => write!(
                f,
                "LUT entry {e} is claimed twice by the address map, or lies past entry 255"
            ),
            Self::CrbLayout => f.write_str(
                "CRB layout: per-core registers must match cores per tile and fit in the block",
            ),
            Self::CoreOutOfRange { core, cores } => {
                write!(
                    f,
                    "core {core} does not exist: the chip has cores 0..={}",
                    cores - 1
                )
            }
            Self::TileIdRegister(v) => {
                write!(f, "MYTILEID value {v:#x} names no core of this chip")
            }
            Self::DramPages { controller, pages } => write!(
                f,
                "memory controller {controller} would need {pages} pages of 16 MiB: a LUT entry reaches 1024"
            ),
            Self::Clocks => f.write_str(
                "timing: the core, mesh and DRAM clocks and the DRAM's banks must not be zero",
            ),
            Self::RemoteAtomics { registers } => write!(
                f,
                "remote atomic unit: it must sit at the controllers or the MPBs, and its {} bytes \
                 of request registers at {registers:#x} must lie word-aligned in the system bank",
                RauRegister::BLOCK
            ),
            Self::TileOutOfRange { tile, tiles } => {
                write!(
                    f,
                    "tile {tile} does not exist: the chip has tiles 0..={}",
                    tiles - 1
                )
            }
        }
    }
}

impl core::error::Error for ChipError {}

/// A run's core count that the chip cannot hold: none, or more than it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreCount {
    /// The count asked for.
    pub cores: u32,
    /// The chip's name.
    pub chip: &'static str,
    /// Its number of cores.
    pub max: u32,
}

impl core::fmt::Display for CoreCount {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Self { cores, chip, max } = *self;
        write!(f, "{cores} cores: the ")?;
        for c in chip.chars() {
            write!(f, "{}", c.to_ascii_uppercase())?;
        }
        write!(f, " has {max}, so choose 1..={max}")
    }
}

impl core::error::Error for CoreCount {}

impl Chip {
    /// `cores` if a run can have that many of this chip's cores (`0..cores`):
    /// the one check of a run's core count, which boot arguments and
    /// plugin options both make.
    pub const fn run_cores(&self, cores: u32) -> Result<u32, CoreCount> {
        if cores == 0 || cores > self.cores() {
            Err(CoreCount {
                cores,
                chip: self.name,
                max: self.cores(),
            })
        } else {
            Ok(cores)
        }
    }

    /// Number of tiles.
    pub const fn tiles(&self) -> u32 {
        self.mesh_x as u32 * self.mesh_y as u32
    }

    /// Number of cores.
    pub const fn cores(&self) -> u32 {
        self.tiles() * self.cores_per_tile as u32
    }

    /// Bytes of MPB that belong to each core.
    pub const fn mpb_bytes_per_core(&self) -> u32 {
        self.mpb_bytes_per_tile / self.cores_per_tile as u32
    }

    /// Checks every constraint the rest of the system relies on.
    pub fn validate(&self) -> Result<(), ChipError> {
        if !(1..=16).contains(&self.mesh_x) || !(1..=16).contains(&self.mesh_y) {
            return Err(ChipError::MeshSize {
                x: self.mesh_x,
                y: self.mesh_y,
            });
        }
        if !(1..=8).contains(&self.cores_per_tile) {
            return Err(ChipError::CoresPerTile(self.cores_per_tile));
        }
        if self.cores() > MAX_CORES {
            return Err(ChipError::Cores(self.cores()));
        }
        let line_per_core = self.cores_per_tile as u32 * CACHE_LINE as u32;
        if self.mpb_bytes_per_tile == 0
            || !self.mpb_bytes_per_tile.is_multiple_of(line_per_core)
            || self.mpb_bytes_per_tile > LUT_PAGE_SIZE
        {
            return Err(ChipError::MpbSize(self.mpb_bytes_per_tile));
        }
        let controllers = self.memory_controllers.len();
        if controllers == 0 || controllers > self.address_map.lsm.len() as usize {
            return Err(ChipError::MemoryControllerCount(controllers));
        }
        for (i, mc) in self.memory_controllers.iter().enumerate() {
            if !self.contains(mc.port.tile) || !mc.serves.fits_in(self.mesh_x, self.mesh_y) {
                return Err(ChipError::ControllerOutsideMesh(i));
            }
        }
        for t in 0..self.tiles() {
            let tile = self.tile_coord(TileId(t as u8));
            let claims = self
                .memory_controllers
                .iter()
                .filter(|mc| mc.serves.contains(tile))
                .count();
            if claims != 1 {
                return Err(ChipError::TileDomain {
                    tile,
                    controllers: claims,
                });
            }
        }
        if !self.contains(self.system_interface.tile) {
            return Err(ChipError::SystemInterfaceOutsideMesh);
        }
        self.address_map.check(self.tiles())?;
        for controller in 0..controllers {
            let pages = self.lsm_page_number(controller) + self.shared_dram_pages(controller);
            if pages > 1 << 10 {
                return Err(ChipError::DramPages { controller, pages });
            }
        }
        self.crb.check(self.cores_per_tile)?;
        if !self.timing.is_valid() {
            return Err(ChipError::Clocks);
        }
        if let Some(rau) = self.remote_atomics
            && !rau.is_valid(self.fpga.size)
        {
            return Err(ChipError::RemoteAtomics {
                registers: rau.registers,
            });
        }
        Ok(())
    }

    fn contains(&self, tile: TileCoord) -> bool {
        tile.x < self.mesh_x && tile.y < self.mesh_y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popshm_pages_follow_the_lsm_page_in_core_order() {
        // Controller 0 serves 12 cores; its LSM page is 12 * 42 = 504.
        let c0 = SCC.core(0).unwrap();
        assert_eq!(SCC.popshm(c0), (0, 505));
        let second = SCC
            .all_cores()
            .filter(|c| SCC.controller_of(SCC.tile_of(*c)) == 0)
            .nth(1)
            .unwrap();
        assert_eq!(SCC.popshm(second), (0, 509));
        assert_eq!(SCC.shared_dram_pages(0), 1 + 12 * 4);
        for mc in 0..SCC.memory_controllers.len() {
            let mut pages: Vec<u16> = SCC
                .all_cores()
                .filter(|c| SCC.controller_of(SCC.tile_of(*c)) == mc)
                .map(|c| SCC.popshm(c).1)
                .collect();
            pages.sort();
            let lsm = SCC.lsm_page_number(mc) as u16;
            assert_eq!(pages, (0..12).map(|i| lsm + 1 + 4 * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn scc_is_valid_and_has_48_cores_on_24_tiles() {
        assert_eq!(SCC.validate(), Ok(()));
        assert_eq!(SCC.tiles(), 24);
        assert_eq!(SCC.cores(), 48);
        assert_eq!(SCC.mpb_bytes_per_core(), 8192);
    }

    #[test]
    fn broken_chips_are_refused_with_the_reason() {
        let mut chip = SCC;
        chip.mesh_x = 17;
        assert_eq!(chip.validate(), Err(ChipError::MeshSize { x: 17, y: 4 }));

        let mut chip = SCC;
        chip.cores_per_tile = 0;
        assert_eq!(chip.validate(), Err(ChipError::CoresPerTile(0)));

        let mut chip = SCC;
        chip.mpb_bytes_per_tile = 100;
        assert_eq!(chip.validate(), Err(ChipError::MpbSize(100)));

        let mut chip = SCC;
        chip.timing.dram_banks = 0;
        assert_eq!(chip.validate(), Err(ChipError::Clocks));

        // Request registers past the end of the system bank.
        let mut chip = MESH8X8;
        let registers = chip.fpga.size - 8;
        chip.remote_atomics = Some(RemoteAtomics {
            registers,
            ..RemoteAtomics::MESH8X8
        });
        assert_eq!(chip.validate(), Err(ChipError::RemoteAtomics { registers }));

        // Without the controller at (5,2), its six tiles have no memory.
        let mut chip = SCC;
        chip.memory_controllers = &SCC.memory_controllers[..3];
        assert_eq!(
            chip.validate(),
            Err(ChipError::TileDomain {
                tile: TileCoord { x: 3, y: 2 },
                controllers: 0
            })
        );

        // A larger mesh needs more MPB entries than 192..=215 leaves before the own-MPB entry.
        let mut chip = SCC;
        chip.mesh_x = 8;
        const ONE_MC: &[MemoryController] = &[MemoryController {
            port: Port::new(0, 0, Subdest::PeriWest),
            serves: TileRect::new(0, 0, 8, 4),
        }];
        chip.memory_controllers = ONE_MC;
        assert_eq!(chip.validate(), Err(ChipError::LutEntryConflict(216)));

        // 96 cores behind one controller with 42 private pages and 2 POPSHM
        // pages each, plus the LSM page, do not fit in 1024 pages.
        let mut chip = BIG;
        const PRIVATE_42: &[EntryRange] = &[EntryRange::new(0, 41)];
        chip.address_map.private = PRIVATE_42;
        chip.address_map.lsm = EntryRange::new(42, 43);
        chip.address_map.shareable = EntryRange::new(44, 99);
        assert_eq!(
            chip.validate(),
            Err(ChipError::DramPages {
                controller: 0,
                pages: 96 * 42 + 1 + 96 * 2
            })
        );
    }

    #[test]
    fn error_messages_name_the_problem() {
        extern crate std;
        use std::string::ToString;
        let e = ChipError::CoreOutOfRange {
            core: 48,
            cores: 48,
        };
        assert_eq!(
            e.to_string(),
            "core 48 does not exist: the chip has cores 0..=47"
        );
    }

    /// A second chip, written as data only: a 2x2 mesh with one controller.
    pub(crate) const MINI: Chip = Chip {
        name: "mini",
        mesh_x: 2,
        mesh_y: 2,
        cores_per_tile: 2,
        mpb_bytes_per_tile: 16 * 1024,
        memory_controllers: &[MemoryController {
            port: Port::new(0, 0, Subdest::PeriWest),
            serves: TileRect::new(0, 0, 2, 2),
        }],
        system_interface: Port::new(1, 0, Subdest::PeriSouth),
        address_map: AddressMap::SCC,
        crb: CrbLayout::SCC,
        fpga: FpgaLayout::SCC,
        tsr_protocol: TsrProtocol::SCC,
        timing: Timing::SCC,
        remote_atomics: None,
    };

    /// A larger one: 8x6 tiles with four cores each, which needs its own address map.
    pub(crate) const BIG: Chip = Chip {
        name: "big",
        mesh_x: 8,
        mesh_y: 6,
        cores_per_tile: 4,
        mpb_bytes_per_tile: 32 * 1024,
        memory_controllers: &[
            MemoryController {
                port: Port::new(0, 0, Subdest::PeriWest),
                serves: TileRect::new(0, 0, 4, 6),
            },
            MemoryController {
                port: Port::new(7, 0, Subdest::PeriEast),
                serves: TileRect::new(4, 0, 4, 6),
            },
        ],
        system_interface: Port::new(3, 0, Subdest::PeriSouth),
        address_map: AddressMap {
            private: &[EntryRange::new(0, 7)],
            lsm: EntryRange::new(16, 17),
            shareable: EntryRange::new(18, 99),
            popshm_pages: 2,
            mpb_first: 100,
            own_mpb: 148,
            crb_first: 160,
            own_crb: 208,
            fpga: 209,
            platform: EntryRange::new(253, 254),
        },
        crb: CrbLayout {
            size: 0x4000,
            glcfg: &[0x010, 0x018, 0x030, 0x038],
            l2cfg: &[0x020, 0x028, 0x060, 0x068],
            my_tile_id: 0x100,
            lock: &[0x200, 0x400, 0x600, 0x700],
            lut: &[0x800, 0x1000, 0x2000, 0x3000],
        },
        fpga: FpgaLayout::SCC,
        tsr_protocol: TsrProtocol::SCC,
        timing: Timing::SCC,
        remote_atomics: None,
    };

    #[test]
    fn the_second_chip_differs_from_the_scc_in_every_dimension() {
        let (a, b) = (SCC, MESH8X8);
        assert_eq!(b.validate(), Ok(()));
        assert_eq!((b.mesh_x, b.mesh_y, b.tiles(), b.cores()), (8, 8, 64, 192));
        assert_ne!((a.mesh_x, a.mesh_y), (b.mesh_x, b.mesh_y));
        assert_ne!(a.cores_per_tile, b.cores_per_tile);
        assert_ne!(a.mpb_bytes_per_core(), b.mpb_bytes_per_core());
        assert_eq!(b.mpb_bytes_per_core(), 16 * 1024);
        assert_ne!(a.memory_controllers, b.memory_controllers);
        assert_eq!(b.memory_controllers.len(), 8);
        assert_ne!(a.address_map.shareable.len(), b.address_map.shareable.len());
        assert_ne!(a.address_map.popshm_pages, b.address_map.popshm_pages);
        // Each controller serves 8 tiles of 3 cores; core 100 is the fifth
        // of those (tile 33 = (1,4)) that controller 4 serves.
        for mc in 0..8 {
            assert_eq!(b.cores_served(mc), 24);
        }
        let core = b.core(100).unwrap();
        assert_eq!(b.controller_of(b.tile_of(core)), 4);
        let lsm = b.lsm_page_number(4);
        assert_eq!(lsm, 24 * 17);
        let rank = b.rank_at_controller(core);
        assert_eq!(b.popshm(core), (4, (lsm + 1 + 2 * rank) as u16));
    }

    #[test]
    fn the_scc_has_no_remote_atomic_unit_and_the_second_chip_has_one_everywhere() {
        assert_eq!(SCC.remote_atomics, None);
        let rau = MESH8X8.remote_atomics.expect("mesh8x8 has the unit");
        assert!(rau.controllers && rau.mpbs);
        assert_eq!(rau.service_mesh_cycles, 1);
        // The request block lies in the system bank, where the emulator's
        // per-core copy of it is.
        assert!(rau.registers + RauRegister::BLOCK <= MESH8X8.fpga.size);
    }

    #[test]
    fn chips_are_found_by_name_and_listed() {
        extern crate std;
        use std::string::ToString;
        assert_eq!(find_chip("mesh8x8"), Some(&MESH8X8));
        assert_eq!(find_chip("nosuch"), None);
        assert_eq!(DEFAULT_CHIP, &SCC);
        assert_eq!(chip_names().to_string(), "scc, mesh8x8");
        for chip in CHIPS {
            assert_eq!(chip.validate(), Ok(()), "{}", chip.name);
        }
    }

    #[test]
    fn a_chip_of_more_cores_than_a_core_id_names_is_refused() {
        let mut chip = BIG;
        chip.cores_per_tile = 6;
        assert_eq!(chip.validate(), Err(ChipError::Cores(288)));
    }

    #[test]
    fn other_chips_are_expressible_as_data() {
        assert_eq!(MINI.validate(), Ok(()));
        assert_eq!(MINI.cores(), 8);
        assert_eq!(BIG.validate(), Ok(()));
        assert_eq!(BIG.cores(), 192);
        assert_eq!(BIG.mpb_bytes_per_core(), 8192);
    }
}
