// SPDX-License-Identifier: MIT OR Apache-2.0
//! PCI configuration space through the PC's I/O ports (mechanism #1), just
//! enough to find the shared-memory devices and place their BARs.

use x86::io::{inl, outl};

const CONFIG_ADDRESS: u16 = 0xCF8;
const CONFIG_DATA: u16 = 0xCFC;

/// Offset of the command register (low half) and status register.
const COMMAND: u8 = 0x04;
bitflags::bitflags! {
    /// The command register (PCI local bus spec 6.2.2), as far as it is used here.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct Command: u16 {
        /// The function answers memory accesses to its BARs.
        const MEMORY_SPACE = 1 << 1;
    }
}
/// Offset of the header-type byte's dword (cache line size, latency, header type, BIST).
const HEADER_TYPE_DWORD: u8 = 0x0C;
/// Header type bit: the device has functions beyond 0.
const MULTI_FUNCTION: u32 = 1 << 23;

/// One function of a device on bus 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PciFunction {
    /// Device (slot) number, 0..32.
    pub device: u8,
    /// Function number, 0..8.
    pub function: u8,
}

impl PciFunction {
    fn address(self, offset: u8) -> u32 {
        0x8000_0000
            | (u32::from(self.device) << 11)
            | (u32::from(self.function) << 8)
            | u32::from(offset & 0xFC)
    }

    /// Reads the configuration dword at `offset`.
    pub fn read(self, offset: u8) -> u32 {
        // SAFETY: 0xCF8/0xCFC are the PC's PCI configuration ports; an access
        // to an absent function reads all ones and has no effect.
        unsafe {
            outl(CONFIG_ADDRESS, self.address(offset));
            inl(CONFIG_DATA)
        }
    }

    /// Writes the configuration dword at `offset`.
    pub fn write(self, offset: u8, value: u32) {
        // SAFETY: as for `read`; callers only write registers they own (BARs, command).
        unsafe {
            outl(CONFIG_ADDRESS, self.address(offset));
            outl(CONFIG_DATA, value);
        }
    }

    /// Vendor and device id.
    pub fn id(self) -> (u16, u16) {
        let id = self.read(0);
        (id as u16, (id >> 16) as u16)
    }

    /// Turns memory decoding of all the function's BARs on or off.
    pub fn set_memory_decoding(self, on: bool) {
        // The status register shares the dword; its bits clear when written
        // with 1, so only the command half is written back.
        let mut command = Command::from_bits_retain(self.read(COMMAND) as u16);
        command.set(Command::MEMORY_SPACE, on);
        self.write(COMMAND, u32::from(command.bits()));
    }

    /// Size in bytes of the 64-bit memory BAR at `offset` (and `offset + 4`).
    pub fn bar64_size(self, offset: u8) -> u64 {
        let (low, high) = (self.read(offset), self.read(offset + 4));
        self.write(offset, u32::MAX);
        self.write(offset + 4, u32::MAX);
        let mask = (u64::from(self.read(offset + 4)) << 32) | u64::from(self.read(offset) & !0xF);
        self.write(offset, low);
        self.write(offset + 4, high);
        (!mask).wrapping_add(1)
    }

    /// Places the 64-bit memory BAR at `offset` at `base`.
    pub fn set_bar64(self, offset: u8, base: u32) {
        self.write(offset, base);
        self.write(offset + 4, 0);
    }

    /// Places the 32-bit memory BAR at `offset` at `base`.
    pub fn set_bar32(self, offset: u8, base: u32) {
        self.write(offset, base);
    }
}

/// Every function present on bus 0, in device.function order.
pub fn bus0() -> impl Iterator<Item = PciFunction> {
    (0..32u8).flat_map(|device| {
        let first = PciFunction {
            device,
            function: 0,
        };
        let functions = match first.id().0 {
            0xFFFF => 0,
            _ if first.read(HEADER_TYPE_DWORD) & MULTI_FUNCTION != 0 => 8,
            _ => 1,
        };
        (0..functions)
            .map(move |function| PciFunction { device, function })
            .filter(|f| f.id().0 != 0xFFFF)
    })
}
