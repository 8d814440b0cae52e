// SPDX-License-Identifier: MIT OR Apache-2.0
//! Cores, tiles, mesh coordinates and the MYTILEID register encoding.

use crate::{Chip, ChipError};

/// A core, numbered as the SCC numbers them: `(x + mesh_x * y) * cores_per_tile + z`.
///
/// Only a [`Chip`] makes one (it knows how many cores exist), so a `CoreId`
/// in hand is always a core of the chip it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoreId(pub(crate) u8);

/// Which port of the destination router an access leaves by (sccsys.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Subdest {
    /// Core 0 of the tile.
    Core0 = 0,
    /// Core 1 of the tile.
    Core1 = 1,
    /// The tile's configuration register block.
    Crb = 2,
    /// The tile's message passing buffer.
    Mpb = 3,
    /// East router port (a memory controller on the SCC's east edge).
    PeriEast = 4,
    /// South router port (the system interface on the SCC).
    PeriSouth = 5,
    /// West router port (a memory controller on the SCC's west edge).
    PeriWest = 6,
    /// North router port.
    PeriNorth = 7,
}

impl Subdest {
    const ALL: [Subdest; 8] = [
        Self::Core0,
        Self::Core1,
        Self::Crb,
        Self::Mpb,
        Self::PeriEast,
        Self::PeriSouth,
        Self::PeriWest,
        Self::PeriNorth,
    ];

    /// The subdestination with code `code` (only the low 3 bits count).
    pub const fn from_code(code: u8) -> Self {
        Self::ALL[(code & 7) as usize]
    }
}

/// A tile, numbered `x + mesh_x * y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TileId(pub(crate) u8);

/// A router position on the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileCoord {
    /// Column, 0 at the west edge.
    pub x: u8,
    /// Row, 0 at the south edge.
    pub y: u8,
}

/// A destination port on a router: where a memory controller, the system
/// interface, or a tile's own MPB/CRB is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Port {
    /// The router.
    pub tile: TileCoord,
    /// Which of its ports.
    pub subdest: Subdest,
}

impl Port {
    /// A port on router `(x, y)`.
    pub const fn new(x: u8, y: u8, subdest: Subdest) -> Self {
        Self {
            tile: TileCoord { x, y },
            subdest,
        }
    }
}

/// A rectangle of tiles: `x..x+width`, `y..y+height`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRect {
    /// West edge.
    pub x: u8,
    /// South edge.
    pub y: u8,
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
}

impl TileRect {
    /// The rectangle with corner `(x, y)` and the given size.
    pub const fn new(x: u8, y: u8, width: u8, height: u8) -> Self {
        Self {
            x,
            y,
            width,
            height,
        }
    }

    /// Whether `tile` lies inside.
    pub const fn contains(&self, tile: TileCoord) -> bool {
        tile.x >= self.x
            && tile.x < self.x + self.width
            && tile.y >= self.y
            && tile.y < self.y + self.height
    }

    pub(crate) const fn fits_in(&self, mesh_x: u8, mesh_y: u8) -> bool {
        self.width > 0
            && self.height > 0
            && self.x as u16 + self.width as u16 <= mesh_x as u16
            && self.y as u16 + self.height as u16 <= mesh_y as u16
    }
}

/// A DDR memory controller: the router port it hangs off, and the tiles
/// whose private memory (and one LSM page) it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryController {
    /// Where it attaches.
    pub port: Port,
    /// The tiles it serves.
    pub serves: TileRect,
}

/// The MYTILEID register value: `y:4 | x:4 | z:3` from bit 10 down to bit 0
/// (sccsys.h: `0…0_00000yyy_yxxxxzzz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileIdRegister(pub u32);

impl TileIdRegister {
    /// Encodes tile `(x, y)`, core `z` on it.
    pub const fn new(tile: TileCoord, z: u8) -> Self {
        Self(((tile.y as u32 & 0xF) << 7) | ((tile.x as u32 & 0xF) << 3) | (z as u32 & 0x7))
    }

    /// The tile coordinates.
    pub const fn tile(self) -> TileCoord {
        TileCoord {
            x: ((self.0 >> 3) & 0xF) as u8,
            y: ((self.0 >> 7) & 0xF) as u8,
        }
    }

    /// The core number on the tile.
    pub const fn z(self) -> u8 {
        (self.0 & 0x7) as u8
    }
}

impl CoreId {
    /// The number, `0..chip.cores()`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl core::fmt::Display for CoreId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "core {}", self.0)
    }
}

impl TileId {
    /// The number, `0..chip.tiles()`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl Chip {
    /// The core numbered `n`, or why there is none.
    pub const fn core(&self, n: u32) -> Result<CoreId, ChipError> {
        if n < self.cores() {
            Ok(CoreId(n as u8))
        } else {
            Err(ChipError::CoreOutOfRange {
                core: n,
                cores: self.cores(),
            })
        }
    }

    /// The tile numbered `n`, or why there is none.
    pub const fn tile(&self, n: u32) -> Result<TileId, ChipError> {
        if n < self.tiles() {
            Ok(TileId(n as u8))
        } else {
            Err(ChipError::TileOutOfRange {
                tile: n,
                tiles: self.tiles(),
            })
        }
    }

    /// All cores in id order.
    pub fn all_cores(&self) -> impl Iterator<Item = CoreId> + use<> {
        (0..self.cores()).map(|n| CoreId(n as u8))
    }

    /// All tiles in id order.
    pub fn all_tiles(&self) -> impl Iterator<Item = TileId> + use<> {
        (0..self.tiles()).map(|n| TileId(n as u8))
    }

    /// The tile a core sits on.
    pub const fn tile_of(&self, core: CoreId) -> TileId {
        TileId(core.0 / self.cores_per_tile)
    }

    /// The core's number on its tile (`z`).
    pub const fn z_of(&self, core: CoreId) -> u8 {
        core.0 % self.cores_per_tile
    }

    /// Mesh coordinates of a tile.
    pub const fn tile_coord(&self, tile: TileId) -> TileCoord {
        TileCoord {
            x: tile.0 % self.mesh_x,
            y: tile.0 / self.mesh_x,
        }
    }

    /// The tile at `coord`, or why there is none.
    pub const fn tile_at(&self, coord: TileCoord) -> Result<TileId, ChipError> {
        if coord.x < self.mesh_x && coord.y < self.mesh_y {
            Ok(TileId(coord.x + coord.y * self.mesh_x))
        } else {
            Err(ChipError::TileOutOfRange {
                tile: coord.x as u32 + coord.y as u32 * self.mesh_x as u32,
                tiles: self.tiles(),
            })
        }
    }

    /// The core `z` of tile `tile`.
    pub const fn core_on(&self, tile: TileId, z: u8) -> Result<CoreId, ChipError> {
        self.core(tile.0 as u32 * self.cores_per_tile as u32 + z as u32)
    }

    /// What the core reads from MYTILEID.
    pub const fn tile_id_register(&self, core: CoreId) -> TileIdRegister {
        TileIdRegister::new(self.tile_coord(self.tile_of(core)), self.z_of(core))
    }

    /// The core a MYTILEID value names, or why it names none on this chip.
    pub const fn core_from_tile_id(&self, reg: TileIdRegister) -> Result<CoreId, ChipError> {
        let z = reg.z();
        match self.tile_at(reg.tile()) {
            Ok(tile) if z < self.cores_per_tile => self.core_on(tile, z),
            _ => Err(ChipError::TileIdRegister(reg.0)),
        }
    }

    /// Index into [`Chip::memory_controllers`] of the controller serving `tile`.
    pub fn controller_of(&self, tile: TileId) -> usize {
        let coord = self.tile_coord(tile);
        self.memory_controllers
            .iter()
            .position(|mc| mc.serves.contains(coord))
            .expect("validated chip: every tile has a controller")
    }

    /// Router hops between two tiles under dimension-ordered (XY) routing.
    pub const fn hops(&self, from: TileCoord, to: TileCoord) -> u32 {
        from.x.abs_diff(to.x) as u32 + from.y.abs_diff(to.y) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SCC;
    use crate::tests::{BIG, MINI};

    #[test]
    fn core_tile_and_mytileid_agree_for_every_core() {
        for chip in [SCC, MINI, BIG, crate::MESH8X8] {
            for core in chip.all_cores() {
                let tile = chip.tile_of(core);
                let coord = chip.tile_coord(tile);
                let z = chip.z_of(core);
                assert_eq!(chip.tile_at(coord), Ok(tile));
                assert_eq!(chip.core_on(tile, z), Ok(core));
                let reg = chip.tile_id_register(core);
                assert_eq!(reg.tile(), coord);
                assert_eq!(reg.z(), z);
                assert_eq!(
                    chip.core_from_tile_id(reg),
                    Ok(core),
                    "{}: {core}",
                    chip.name
                );
            }
        }
    }

    #[test]
    fn scc_numbering_matches_the_rcce_formula() {
        // pid = (x + 6*y)*2 + z (RCCE / sccsys.h).
        let core = SCC.core(29).unwrap();
        let coord = SCC.tile_coord(SCC.tile_of(core));
        assert_eq!((coord.x, coord.y, SCC.z_of(core)), (2, 2, 1));
        // y=2, x=2, z=1: 0b0001_0001_0001.
        assert_eq!(SCC.tile_id_register(core), TileIdRegister(0b001_0001_0001));
        assert_eq!(
            SCC.tile_id_register(SCC.core(47).unwrap()).0,
            (3 << 7) | (5 << 3) | 1
        );
    }

    #[test]
    fn out_of_range_ids_are_refused() {
        assert_eq!(
            SCC.core(48),
            Err(ChipError::CoreOutOfRange {
                core: 48,
                cores: 48
            })
        );
        assert_eq!(
            SCC.tile(24),
            Err(ChipError::TileOutOfRange {
                tile: 24,
                tiles: 24
            })
        );
        assert!(
            SCC.core_from_tile_id(TileIdRegister::new(TileCoord { x: 6, y: 0 }, 0))
                .is_err()
        );
        assert!(
            SCC.core_from_tile_id(TileIdRegister::new(TileCoord { x: 0, y: 0 }, 2))
                .is_err()
        );
    }

    #[test]
    fn each_scc_controller_serves_twelve_cores() {
        let mut per_mc = [0; 4];
        for core in SCC.all_cores() {
            per_mc[SCC.controller_of(SCC.tile_of(core))] += 1;
        }
        assert_eq!(per_mc, [12; 4]);
        // Tile (2,1) is two hops from (0,0) in x and one in y; it belongs to (0,0).
        assert_eq!(SCC.controller_of(SCC.tile(2 + 6).unwrap()), 0);
        assert_eq!(SCC.controller_of(SCC.tile(23).unwrap()), 3);
    }

    #[test]
    fn hops_are_manhattan_distance() {
        let a = TileCoord { x: 0, y: 0 };
        let b = TileCoord { x: 5, y: 3 };
        assert_eq!(SCC.hops(a, b), 8);
        assert_eq!(SCC.hops(b, b), 0);
    }
}
