// SPDX-License-Identifier: MIT OR Apache-2.0
//! Platform init: every shared-memory device's BAR moved to its region's
//! SCC address and mapped, then the core's identity read from MYTILEID.

use chip::{AddressMap, Chip, MemoryType, SharedRegion};

use super::pci::{self, PciFunction};
use super::regions::{memory_type, wcb_flush_area_bytes};
use super::scc;
use crate::arch::x86::paging::{AddressSpace, MapError, PAGE_SIZE};
use crate::mm::FrameAllocator;

/// PCI ids of QEMU's `ivshmem-plain` device.
const IVSHMEM: (u16, u16) = (0x1AF4, 0x1110);
/// Configuration offset of ivshmem's shared-memory BAR (BAR2, 64-bit).
const SHARED_MEMORY_BAR: u8 = 0x18;
/// Configuration offset of ivshmem's register BAR (BAR0, 256 bytes).
const REGISTER_BAR: u8 = 0x10;
/// Where the unused register BARs are parked, one 4 KiB slot each: the
/// first of the platform's own LUT entries, which no chip region uses, so
/// they never overlap a region the firmware may have put there.
fn register_bar_parking(chip: &Chip) -> u32 {
    AddressMap::entry_base(chip.address_map.platform.first)
}

/// Why the platform could not be brought up.
#[derive(Debug)]
pub enum PlatformError {
    /// The number of shared-memory devices differs from the chip's regions.
    RegionCount {
        /// Devices on the bus.
        found: usize,
        /// Regions the chip has.
        expected: usize,
    },
    /// A device's BAR size differs from its region's size.
    RegionSize {
        /// Region index.
        index: usize,
        /// The region.
        region: SharedRegion,
        /// BAR size found.
        found: u64,
    },
    /// A mapping failed.
    Map(MapError),
    /// MYTILEID names no core of the chip.
    Identity(chip::ChipError),
    /// The chip's address map leaves the platform no room for something it needs.
    AddressMap {
        /// The chip.
        chip: &'static str,
        /// What needs room.
        what: &'static str,
    },
}

impl core::fmt::Display for PlatformError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::RegionCount { found, expected } => write!(
                f,
                "found {found} shared-memory devices on the PCI bus, the chip needs {expected}"
            ),
            Self::RegionSize {
                index,
                region,
                found,
            } => write!(
                f,
                "shared-memory device {index} ({:?} at {:#010x}) is {found} bytes, expected {}",
                region.kind, region.base, region.size
            ),
            Self::Map(e) => write!(f, "paging: {e}"),
            Self::Identity(e) => write!(f, "identity: {e}"),
            Self::AddressMap { chip, what } => {
                write!(
                    f,
                    "chip {chip}: its address map leaves no LUT entry for {what}"
                )
            }
        }
    }
}

impl From<MapError> for PlatformError {
    fn from(e: MapError) -> Self {
        Self::Map(e)
    }
}

/// Checks that `chip`'s address map leaves the platform the LUT entries
/// it needs ([`super::alias_entry`]).
pub fn check_chip(chip: &'static Chip) -> Result<(), PlatformError> {
    super::alias_entry(chip, crate::arch::x86::timer::LOCAL_APIC_BASE)
        .map(|_| ())
        .map_err(|what| PlatformError::AddressMap {
            chip: chip.name,
            what,
        })
}

/// Moves every shared-memory BAR to its SCC address and maps it.
pub fn attach_shared_regions(
    chip: &'static Chip,
    space: &mut AddressSpace,
    frames: &mut FrameAllocator,
) -> Result<(), PlatformError> {
    let mut devices = heapless::Vec::<PciFunction, 64>::new();
    let expected = chip.shared_regions().count();
    for function in pci::bus0().filter(|f| f.id() == IVSHMEM) {
        if devices.push(function).is_err() {
            return Err(PlatformError::RegionCount {
                found: devices.len() + 1,
                expected,
            });
        }
    }
    if devices.len() != expected {
        return Err(PlatformError::RegionCount {
            found: devices.len(),
            expected,
        });
    }
    // Firmware may have put BARs anywhere; nothing decodes while they move.
    devices.iter().for_each(|d| d.set_memory_decoding(false));
    for (index, (device, region)) in devices.iter().zip(chip.shared_regions()).enumerate() {
        let found = device.bar64_size(SHARED_MEMORY_BAR);
        if found != u64::from(region.size) {
            return Err(PlatformError::RegionSize {
                index,
                region,
                found,
            });
        }
        device.set_bar64(SHARED_MEMORY_BAR, region.base);
        device.set_bar32(
            REGISTER_BAR,
            register_bar_parking(chip) + index as u32 * PAGE_SIZE,
        );
        map_region(chip, space, frames, region)?;
    }
    devices.iter().for_each(|d| d.set_memory_decoding(true));
    Ok(())
}

/// Maps the parts of a region that hold something; the rest of its BAR
/// stays unmapped, so a stray access faults instead of reaching nothing.
fn map_region(
    chip: &Chip,
    space: &mut AddressSpace,
    frames: &mut FrameAllocator,
    region: SharedRegion,
) -> Result<(), MapError> {
    let ty = memory_type(region.kind);
    for part in region.parts(chip) {
        let bytes = part.bytes.next_multiple_of(PAGE_SIZE);
        if part.base == chip.lsm_base(0) {
            let flush = wcb_flush_area_bytes(chip);
            space.map_identity(frames, part.base, bytes - flush, ty)?;
            space.map_identity(frames, part.base + bytes - flush, flush, MemoryType::MpbtWb)?;
        } else {
            space.map_identity(frames, part.base, bytes, ty)?;
        }
    }
    Ok(())
}

/// Reads MYTILEID through the own-CRB entry: the core's identity.
pub fn identify(chip: &'static Chip) -> Result<chip::CoreId, PlatformError> {
    let value = scc::read_register(chip.own_crb_base() + chip.crb.my_tile_id);
    chip.core_from_tile_id(chip::TileIdRegister(value))
        .map_err(PlatformError::Identity)
}
