// SPDX-License-Identifier: MIT OR Apache-2.0
//! Register offsets of the configuration register block and the FPGA bank.

use crate::{ChipError, CoreId, LUT_ENTRIES};

/// Offsets inside a tile's configuration register block (sccsys.h). Per-core
/// registers are listed by core number `z` on the tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrbLayout {
    /// Bytes in the block.
    pub size: u32,
    /// GLCFG of core `z` (interrupt pins, among others).
    pub glcfg: &'static [u32],
    /// L2CFG of core `z`.
    pub l2cfg: &'static [u32],
    /// MYTILEID: reads as the reading core's [`crate::TileIdRegister`].
    pub my_tile_id: u32,
    /// LOCK of core `z`: its test-and-set register.
    pub lock: &'static [u32],
    /// LUT of core `z`: [`LUT_ENTRIES`] entries of [`CrbLayout::LUT_STRIDE`] bytes.
    pub lut: &'static [u32],
}

impl CrbLayout {
    /// Distance between registers of a table (LUT entries are 8 bytes apart).
    pub const LUT_STRIDE: u32 = 8;

    /// The SCC's block: GLCFG0/1 0x010/0x018, L2CFG0/1 0x020/0x028, MYTILEID
    /// 0x100, LOCK0/1 0x200/0x400, LUT0/1 0x800/0x1000, 8 KiB in all.
    pub const SCC: CrbLayout = CrbLayout {
        size: 0x2000,
        glcfg: &[0x010, 0x018],
        l2cfg: &[0x020, 0x028],
        my_tile_id: 0x100,
        lock: &[0x200, 0x400],
        lut: &[0x800, 0x1000],
    };

    /// The registers silicon does not let a store change, by name and
    /// offset: MYTILEID. A store to one is ignored.
    pub fn read_only(&self) -> [(&'static str, u32); 1] {
        [("MYTILEID", self.my_tile_id)]
    }

    /// The read-only register ([`CrbLayout::read_only`]) whose word holds
    /// byte `offset` of the block, by name and offset, if one does.
    pub fn read_only_at(&self, offset: u32) -> Option<(&'static str, u32)> {
        self.read_only()
            .into_iter()
            .find(|&(_, at)| (at..at + 4).contains(&offset))
    }

    /// Offset of entry `index` of the LUT of core `z`.
    pub fn lut_entry(&self, z: u8, index: usize) -> u32 {
        self.lut[z as usize] + index as u32 * Self::LUT_STRIDE
    }

    pub(crate) fn check(&self, cores_per_tile: u8) -> Result<(), ChipError> {
        let n = cores_per_tile as usize;
        let per_core = [self.glcfg, self.l2cfg, self.lock, self.lut];
        if per_core.iter().any(|regs| regs.len() != n) {
            return Err(ChipError::CrbLayout);
        }
        let lut_bytes = LUT_ENTRIES as u32 * Self::LUT_STRIDE;
        let singles = per_core[..3]
            .iter()
            .flat_map(|r| r.iter())
            .chain([&self.my_tile_id]);
        let fits = singles.into_iter().all(|&o| o + 4 <= self.size)
            && self.lut.iter().all(|&o| o + lut_bytes <= self.size);
        if fits {
            Ok(())
        } else {
            Err(ChipError::CrbLayout)
        }
    }
}

/// Offsets inside the FPGA register bank (sccKit 1.4 and later).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FpgaLayout {
    /// Bytes mapped.
    pub size: u32,
    /// Global timestamp counter, low 32 bits.
    pub gtsc_lo: u32,
    /// Global timestamp counter, high 32 bits.
    pub gtsc_hi: u32,
    /// Atomic increment register of counter 0; counters are 8 bytes apart.
    pub atomic_inc: u32,
    /// Atomic increment registers in the bank.
    pub atomic_counters: u32,
    /// First of the emulator's call registers ([`EmuCall`]): offsets
    /// sccKit's register map leaves unused, which only the emulator
    /// answers (a stated choice: silicon has nothing there).
    pub emu_calls: u32,
}

/// The emulator's call registers, at [`FpgaLayout::emu_calls`] plus the
/// discriminant: a guest that runs under the emulator's modelled time
/// tells it, with a 32-bit store, what its next accesses mean, so that
/// cores meet in modelled-time order and a waiting core's time passes as
/// if it had spun. A store here takes no modelled time; silicon has
/// nothing at these offsets, so a kernel uses them only after
/// [`EmuCall::Signature`] read back [`EMU_SIGNATURE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum EmuCall {
    /// Read: [`EMU_SIGNATURE`] while the emulator models time, else 0.
    Signature = 0x00,
    /// The next access synchronises (a test-and-set register, a flag's
    /// release): it happens once every other core's clock passed this
    /// core's, ties broken by core number.
    Order = 0x04,
    /// A poll of a wait begins: ordered as [`EmuCall::Order`], and the
    /// shared lines its loads reach are watched until the next
    /// [`EmuCall::Wait`], [`EmuCall::Done`] or poll. Until then, the
    /// poll's accesses all count as made at its start: an
    /// [`EmuCall::Order`] inside it orders nothing more.
    Poll = 0x08,
    /// The poll found nothing: the core waits in modelled time for a
    /// watched line to change, as if it repeated the poll at the poll's
    /// own period, and resumes at the first repetition that sees it. The
    /// value stored is the core's stack pointer, which the emulator
    /// publishes for a run tool's backtrace of the wait.
    Wait = 0x0C,
    /// The core idles for the stored number of core cycles, as a spin on
    /// its clock would.
    Pause = 0x10,
    /// Latches this core's own clock into [`EmuCall::ClockLo`] and
    /// [`EmuCall::ClockHi`]: the latch and the two reads cost what the
    /// P54C's RDTSC costs (`Timing::clock_read`).
    ClockLatch = 0x14,
    /// Low 32 bits of the latched clock.
    ClockLo = 0x18,
    /// High 32 bits of the latched clock.
    ClockHi = 0x1C,
    /// The poll is over without a wait (it found what it waited for, or
    /// the wait gives up): the core's accesses are its own again.
    Done = 0x20,
    /// The argument of the next [`EmuCall::Trace`]: bytes the op moved.
    TraceArg = 0x24,
    /// Records a trace event ([`crate::trace::Event::word`]) at this
    /// core's modelled time; the first one turns the emulator's own
    /// events on too (CL1INVMB, WBINVD, waits).
    Trace = 0x28,
    /// The core's program is over and it is about to end its run: its
    /// counters and clock stand as they are. What it executes until QEMU
    /// stops it (the instructions after the exit port's write, which run
    /// or not as the host schedules QEMU's main loop) is not counted.
    Exit = 0x2C,
}

/// What [`EmuCall::Signature`] reads under the emulator's modelled time
/// ("SCCE").
pub const EMU_SIGNATURE: u32 = u32::from_le_bytes(*b"SCCE");

impl EmuCall {
    /// Every call register, in offset order.
    pub const ALL: [EmuCall; 12] = [
        Self::Signature,
        Self::Order,
        Self::Poll,
        Self::Wait,
        Self::Pause,
        Self::ClockLatch,
        Self::ClockLo,
        Self::ClockHi,
        Self::Done,
        Self::TraceArg,
        Self::Trace,
        Self::Exit,
    ];

    /// The call register at `offset` from [`FpgaLayout::emu_calls`].
    pub fn at(offset: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|c| *c as u32 == offset)
    }
}

impl FpgaLayout {
    /// The SCC's bank: GTSC at 0x8224/0x8228, 96 atomic counters from 0xE000
    /// (`ATOMIC_CNT_INC(x) = (x<48 ? 0xE000 : 0xF000) + (x%48)*8`).
    pub const SCC: FpgaLayout = FpgaLayout {
        size: 0x1_0000,
        gtsc_lo: 0x8224,
        gtsc_hi: 0x8228,
        atomic_inc: 0xE000,
        atomic_counters: 96,
        emu_calls: 0xC000,
    };

    /// Offset of the emulator's call register `call`.
    pub const fn emu_call(&self, call: EmuCall) -> u32 {
        self.emu_calls + call as u32
    }

    /// Offset of atomic increment register `n` (`n < atomic_counters`); its
    /// initialisation register follows 4 bytes later.
    pub const fn atomic_counter(&self, n: u32) -> u32 {
        self.atomic_inc + (n / 48) * 0x1000 + (n % 48) * 8
    }
}

/// The test-and-set register protocol (thesis 1.6, sccsys.h).
///
/// On silicon a read returns `free` once and atomically leaves `taken`
/// behind; any write releases. Under QEMU a plain read cannot have a side
/// effect, so on the emulator the platform layer takes a TSR by atomically
/// exchanging `taken` in (old value `free` means acquired) and releases it
/// by writing `free`. Both ways meet the same register values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TsrProtocol {
    /// Value of a free register (the low bit set on the SCC).
    pub free: u8,
    /// Value left behind by a successful acquire.
    pub taken: u8,
}

impl TsrProtocol {
    /// The SCC: free reads 1, taken reads 0.
    pub const SCC: TsrProtocol = TsrProtocol { free: 1, taken: 0 };
}

impl crate::Chip {
    /// Offset, inside its tile's CRB, of the test-and-set register of `core`.
    pub const fn tsr_offset(&self, core: CoreId) -> u32 {
        self.crb.lock[self.z_of(core) as usize]
    }

    /// Core-physical address of `core`'s test-and-set register, through its tile's CRB entry.
    pub const fn tsr_addr(&self, core: CoreId) -> u32 {
        self.crb_base(self.tile_of(core)) + self.tsr_offset(core)
    }

    /// Core-physical address of entry `index` of `core`'s LUT, through its tile's CRB entry.
    pub fn lut_entry_addr(&self, core: CoreId, index: usize) -> u32 {
        self.crb_base(self.tile_of(core)) + self.crb.lut_entry(self.z_of(core), index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SCC;

    #[test]
    fn scc_crb_offsets_match_sccsys() {
        let crb = CrbLayout::SCC;
        assert_eq!(crb.lut_entry(0, 0), 0x800);
        assert_eq!(crb.lut_entry(0, 255), 0xFF8);
        assert_eq!(crb.lut_entry(1, 0), 0x1000);
        assert_eq!(crb.lut_entry(1, 255), 0x17F8);
        assert_eq!(crb.check(2), Ok(()));
        assert_eq!(crb.check(3), Err(ChipError::CrbLayout));
        assert_eq!(crb.read_only_at(0x102), Some(("MYTILEID", 0x100)));
        assert_eq!(crb.read_only_at(0x104), None);
        assert_eq!(crb.read_only_at(0x800), None);
        let small = CrbLayout {
            size: 0x1000,
            ..CrbLayout::SCC
        };
        assert_eq!(small.check(2), Err(ChipError::CrbLayout));
    }

    #[test]
    fn tsr_and_lut_addresses_go_through_the_tile_crb() {
        let c0 = SCC.core(0).unwrap();
        let c47 = SCC.core(47).unwrap();
        assert_eq!(SCC.tsr_addr(c0), 0xE000_0200);
        assert_eq!(SCC.tsr_addr(c47), 0xF700_0400);
        assert_eq!(SCC.lut_entry_addr(c47, 255), 0xF700_17F8);
    }

    #[test]
    fn fpga_offsets_match_sccsys() {
        let f = FpgaLayout::SCC;
        assert_eq!(f.atomic_counter(0), 0xE000);
        assert_eq!(f.atomic_counter(47), 0xE000 + 47 * 8);
        assert_eq!(f.atomic_counter(48), 0xF000);
        assert_eq!(f.atomic_counter(95), 0xF000 + 47 * 8);
        assert!(f.atomic_counter(95) + 8 <= f.size);
        assert!(f.gtsc_hi + 4 <= f.size);
        let last = EmuCall::ALL[EmuCall::ALL.len() - 1];
        assert!(f.emu_call(last) + 4 <= f.size);
        // Clear of the timestamp and the atomic counters.
        assert!(f.emu_calls > f.gtsc_hi && f.emu_call(last) < f.atomic_inc);
        for c in EmuCall::ALL {
            assert_eq!(EmuCall::at(c as u32), Some(c));
        }
        assert_eq!(EmuCall::at(2), None);
    }
}
