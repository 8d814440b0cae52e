// SPDX-License-Identifier: MIT OR Apache-2.0
//! An optional remote atomic unit: fetch-add, swap and compare-swap
//! done at the memory that holds the word, in one mesh transaction.
//!
//! The SCC has none (its only atomic primitive is the test-and-set
//! register). A chip that has one says so in [`crate::Chip::remote_atomics`]:
//! where the units sit (at each memory controller, at each tile's MPB, or
//! both), where each core's request registers are, and how long a unit
//! takes between its read and its write.
//!
//! # The request registers
//!
//! Each core has its own block of eight 32-bit registers in the system
//! bank (the FPGA LUT entry, mapped uncached), at
//! [`RemoteAtomics::registers`]. A request is:
//!
//! 1. stores of the operand ([`RauRegister::OperandLo`], `OperandHi`) and,
//!    for a compare-swap, the value compared ([`RauRegister::CompareLo`],
//!    `CompareHi`);
//! 2. a store of the command ([`RauCommand::encode`]: operation and width)
//!    to [`RauRegister::Command`];
//! 3. a store of the word's core-physical address to
//!    [`RauRegister::Address`]: this sends the request;
//! 4. loads of the old value from [`RauRegister::ResultLo`] (and
//!    `ResultHi` for 8 bytes).
//!
//! The address goes through the issuing core's LUT, as a load would. The
//! word must be aligned to its width and lie in memory a unit serves.
//! [`RauRegister::Present`] reads [`RAU_PRESENT`] where the unit answers.
//!
//! # Timing
//!
//! The registers sit in the core's mesh interface: filling them and
//! reading the result cost no more than the instructions (a stated
//! assumption). The request is one mesh transaction, as the
//! irregular-manycore thesis's simulated unit is (its section 1.5: "one
//! network transaction carrying address + increment"). At the target the
//! unit reads the word, operates for [`RemoteAtomics::service_mesh_cycles`]
//! and writes it back: "two accesses to the memory with one cycle in the
//! middle" (same section). The reply leaves after the write.
//!
//! So an uncontended operation at a memory controller `n` routers away
//! costs [`crate::Timing::dram_access`]`(n)` plus the service and a second
//! controller latency ([`crate::Timing::memctl_mesh_cycles`]), in mesh
//! cycles. At an MPB it costs [`crate::Timing::mpb_access`]`(n)` plus the
//! service and one more MPB port time
//! ([`crate::Timing::mpb_port_mesh_cycles`]). The controller or MPB is busy
//! for both accesses and the service, so operations from several cores
//! queue there.

use crate::Timing;

/// Where a chip's remote atomic units sit and how they are reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteAtomics {
    /// A unit at each memory controller: it serves the shared DRAM behind
    /// that controller (the LSM page and the shareable pages).
    pub controllers: bool,
    /// A unit at each tile's MPB.
    pub mpbs: bool,
    /// Offset in the system bank ([`crate::FpgaLayout`]) of each core's
    /// request registers ([`RauRegister`]).
    pub registers: u32,
    /// Mesh cycles the unit takes between its read of the word and its
    /// write. The irregular-manycore thesis's simulator (section 1.5):
    /// "one cycle in the middle".
    pub service_mesh_cycles: u32,
}

/// What the request registers read at [`RauRegister::Present`] while a
/// unit answers them ("RAU!"). Anything else: no unit.
pub const RAU_PRESENT: u32 = u32::from_le_bytes(*b"RAU!");

/// The registers of a core's request block, by offset from
/// [`RemoteAtomics::registers`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum RauRegister {
    /// The operand, low 32 bits: the addend, or the new value.
    OperandLo = 0x00,
    /// The operand, high 32 bits (8-byte operations).
    OperandHi = 0x04,
    /// The value compared, low 32 bits (compare-swap).
    CompareLo = 0x08,
    /// The value compared, high 32 bits.
    CompareHi = 0x0C,
    /// The operation and width ([`RauCommand::encode`]).
    Command = 0x10,
    /// A store of a core-physical address sends the request for the
    /// word there.
    Address = 0x14,
    /// The word's old value, low 32 bits.
    ResultLo = 0x18,
    /// The word's old value, high 32 bits.
    ResultHi = 0x1C,
    /// Reads [`RAU_PRESENT`] where a unit answers.
    Present = 0x20,
}

impl RauRegister {
    /// Every register, in offset order.
    pub const ALL: [RauRegister; 9] = [
        Self::OperandLo,
        Self::OperandHi,
        Self::CompareLo,
        Self::CompareHi,
        Self::Command,
        Self::Address,
        Self::ResultLo,
        Self::ResultHi,
        Self::Present,
    ];

    /// Bytes of the block.
    pub const BLOCK: u32 = 0x24;

    /// The register at `offset` from the block's start.
    pub fn at(offset: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|r| *r as u32 == offset)
    }
}

/// What a unit does to the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// Adds the operand (wrapping).
    FetchAdd,
    /// Writes the operand.
    Swap,
    /// Writes the operand if the word equals the value compared.
    CompareSwap,
}

impl AtomicOp {
    /// The word's new value, from its old one, or `None` if it stays.
    pub const fn apply(self, old: u64, operand: u64, compare: u64, bytes: u32) -> Option<u64> {
        let mask = if bytes >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * bytes)) - 1
        };
        let (old, operand, compare) = (old & mask, operand & mask, compare & mask);
        match self {
            Self::FetchAdd => Some(old.wrapping_add(operand) & mask),
            Self::Swap => Some(operand),
            Self::CompareSwap if old == compare => Some(operand),
            Self::CompareSwap => None,
        }
    }

    /// Short name, for messages and tables.
    pub const fn name(self) -> &'static str {
        match self {
            Self::FetchAdd => "fetch-add",
            Self::Swap => "swap",
            Self::CompareSwap => "compare-swap",
        }
    }
}

/// A command: the operation and the width of the word, 4 or 8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RauCommand {
    /// The operation.
    pub op: AtomicOp,
    /// Bytes of the word: 4 or 8.
    pub bytes: u32,
}

/// Why a command word or a request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RauError {
    /// The command register holds no known operation and width.
    Command(u32),
    /// The word is not aligned to its width.
    Unaligned {
        /// Its core-physical address.
        addr: u32,
        /// Its width.
        bytes: u32,
    },
}

impl core::fmt::Display for RauError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::Command(raw) => write!(
                f,
                "remote atomic command {raw:#x}: the low byte must be 1 (fetch-add), 2 (swap) or \
                 3 (compare-swap) and the next 4 or 8 (bytes)"
            ),
            Self::Unaligned { addr, bytes } => write!(
                f,
                "remote atomic on {bytes} bytes at {addr:#010x}: the word must be aligned to its width"
            ),
        }
    }
}

impl core::error::Error for RauError {}

impl RauCommand {
    /// The command register's value: the operation in bits 0-7 (1
    /// fetch-add, 2 swap, 3 compare-swap), the bytes in bits 8-15.
    pub const fn encode(self) -> u32 {
        let op = match self.op {
            AtomicOp::FetchAdd => 1,
            AtomicOp::Swap => 2,
            AtomicOp::CompareSwap => 3,
        };
        op | self.bytes << 8
    }

    /// The command a register value holds.
    pub const fn decode(raw: u32) -> Result<Self, RauError> {
        let op = match raw & 0xFF {
            1 => AtomicOp::FetchAdd,
            2 => AtomicOp::Swap,
            3 => AtomicOp::CompareSwap,
            _ => return Err(RauError::Command(raw)),
        };
        let bytes = (raw >> 8) & 0xFF;
        if raw >> 16 != 0 || (bytes != 4 && bytes != 8) {
            return Err(RauError::Command(raw));
        }
        Ok(Self { op, bytes })
    }

    /// `Ok` if a word at `addr` can take this command.
    pub const fn check(self, addr: u32) -> Result<(), RauError> {
        if !addr.is_multiple_of(self.bytes) {
            return Err(RauError::Unaligned {
                addr,
                bytes: self.bytes,
            });
        }
        Ok(())
    }
}

impl RemoteAtomics {
    /// Units at every memory controller and every MPB, the request
    /// registers at 0xD000 of the system bank (clear of the timestamp,
    /// the emulator's calls and the atomic counters), one mesh cycle of
    /// service (the thesis's).
    pub const MESH8X8: RemoteAtomics = RemoteAtomics {
        controllers: true,
        mpbs: true,
        registers: 0xD000,
        service_mesh_cycles: 1,
    };

    /// Mesh cycles a unit at a memory controller adds at the controller to
    /// a DRAM access: its service and the write's controller latency.
    pub const fn controller_extra_mesh(&self, t: &Timing) -> u64 {
        self.service_mesh_cycles as u64 + t.memctl_mesh_cycles as u64
    }

    /// Mesh cycles a unit at an MPB adds to an MPB access: its service and
    /// the write's port time.
    pub const fn mpb_extra_mesh(&self, t: &Timing) -> u64 {
        self.service_mesh_cycles as u64 + t.mpb_port_mesh_cycles as u64
    }

    /// Core cycles of an uncontended operation at a memory controller
    /// across `routers` routers: a DRAM access
    /// ([`Timing::dram_access`]), plus the service and a second controller
    /// latency, the mesh cycles rounded up once.
    pub const fn controller_access(&self, t: &Timing, routers: u32) -> u64 {
        t.miu_dram as u64
            + t.mesh_to_core(
                t.round_trip_mesh(routers)
                    + t.memctl_mesh_cycles as u64
                    + self.controller_extra_mesh(t),
            )
    }

    /// Core cycles of an uncontended operation at an MPB across `routers`
    /// routers: an MPB access ([`Timing::mpb_access`]) plus the service
    /// and one more port time.
    pub const fn mpb_access(&self, t: &Timing, routers: u32) -> u64 {
        t.miu_mpb as u64 + t.mesh_to_core(t.round_trip_mesh(routers) + self.mpb_extra_mesh(t))
    }

    /// Whether the request block lies in a system bank of `fpga_size`
    /// bytes, and the unit sits somewhere.
    pub const fn is_valid(&self, fpga_size: u32) -> bool {
        (self.controllers || self.mpbs)
            && self.registers.is_multiple_of(4)
            && self.registers as u64 + RauRegister::BLOCK as u64 <= fpga_size as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FpgaLayout, SCC};

    #[test]
    fn commands_round_trip_and_bad_ones_are_refused() {
        for op in [AtomicOp::FetchAdd, AtomicOp::Swap, AtomicOp::CompareSwap] {
            for bytes in [4, 8] {
                let c = RauCommand { op, bytes };
                assert_eq!(RauCommand::decode(c.encode()), Ok(c));
            }
        }
        assert_eq!(
            RauCommand::decode(0x0401).map(|c| c.op),
            Ok(AtomicOp::FetchAdd)
        );
        for raw in [0, 0x0404, 0x0201, 0x0801 | 1 << 16] {
            assert_eq!(RauCommand::decode(raw), Err(RauError::Command(raw)));
        }
        let c = RauCommand {
            op: AtomicOp::Swap,
            bytes: 8,
        };
        assert_eq!(c.check(0x1000_0008), Ok(()));
        let e = c.check(0x1000_0004).unwrap_err();
        extern crate std;
        use std::string::ToString;
        assert!(e.to_string().contains("0x10000004"), "{e}");
    }

    #[test]
    fn operations_wrap_at_their_width_and_compare_swap_only_on_a_match() {
        let add = AtomicOp::FetchAdd;
        assert_eq!(add.apply(u32::MAX as u64, 2, 0, 4), Some(1));
        assert_eq!(add.apply(u32::MAX as u64, 2, 0, 8), Some(1 << 32 | 1));
        assert_eq!(add.apply(u64::MAX, 1, 0, 8), Some(0));
        assert_eq!(AtomicOp::Swap.apply(5, 9, 0, 4), Some(9));
        let cas = AtomicOp::CompareSwap;
        assert_eq!(cas.apply(5, 9, 5, 4), Some(9));
        assert_eq!(cas.apply(5, 9, 6, 4), None);
        // Only the word's bytes are compared.
        assert_eq!(cas.apply(5, 9, 1 << 32 | 5, 4), Some(9));
    }

    #[test]
    fn an_operation_costs_one_access_plus_the_service_and_the_second_access() {
        let t = SCC.timing;
        let u = RemoteAtomics::MESH8X8;
        // One router: 8 + 46 + 1 + 46 = 101 mesh cycles, 67.3 core cycles:
        // 68, after the 40 of the mesh interface.
        assert_eq!(u.controller_access(&t, 1), 40 + 68);
        assert!(u.controller_access(&t, 1) > t.dram_access(1));
        // 8 + 1 + 4 = 13 mesh cycles: 8.7, 9.
        assert_eq!(u.mpb_access(&t, 1), 45 + 9);
        // Each router more is two hops of 4 mesh cycles, as for any access.
        for n in 1..9 {
            let step = u.controller_access(&t, n + 1) - u.controller_access(&t, n);
            assert!((5..=6).contains(&step), "{n}: {step}");
        }
    }

    #[test]
    fn the_request_block_fits_the_system_bank_clear_of_its_other_registers() {
        let u = RemoteAtomics::MESH8X8;
        let f = FpgaLayout::SCC;
        assert!(u.is_valid(f.size));
        let block = u.registers..u.registers + RauRegister::BLOCK;
        let last_call = f.emu_call(crate::EmuCall::ALL[crate::EmuCall::ALL.len() - 1]);
        assert!(block.start > last_call && block.end <= f.atomic_inc);
        assert!(!block.contains(&f.gtsc_lo) && !block.contains(&f.gtsc_hi));
        for r in RauRegister::ALL {
            assert_eq!(RauRegister::at(r as u32), Some(r));
            assert!((r as u32) < RauRegister::BLOCK);
        }
        assert_eq!(RauRegister::at(2), None);
        assert!(
            !RemoteAtomics {
                registers: f.size - 4,
                ..u
            }
            .is_valid(f.size)
        );
        assert!(
            !RemoteAtomics {
                controllers: false,
                mpbs: false,
                ..u
            }
            .is_valid(f.size)
        );
    }
}
