// SPDX-License-Identifier: GPL-2.0-or-later
//! Configuration registers: test-and-set register counts, the global
//! timestamp the FPGA bank latches on a read, who wrote each LUT entry,
//! and stores to read-only registers, which are undone and reported.

use chip::{Chip, CoreId, EMU_SIGNATURE, EmuCall, RAU_PRESENT, RauRegister, Target, TileId};

use super::GuestAccess;
use crate::chipmem::{Layout, LutWrite, crb_reset_word, lut_write_offset};
use crate::model::hierarchy::Kind;
use crate::model::tsr::TsrStats;
use crate::report::{CoreReport, READ_ONLY_KEPT, ReadOnlyWrite};
use crate::shm::Mapping;

/// One core's side of the chip's registers: where they are, and what the
/// core did to them. The registers' values live in G, which the engine
/// owns and lends to the methods that change it.
#[derive(Debug)]
pub(super) struct Registers {
    /// The chip the run models.
    chip: &'static Chip,
    /// The core whose accesses these are.
    core: CoreId,
    /// Where each register block lies in G.
    layout: Layout,
    /// Offset in G of this core's LUT registers in its tile's CRB.
    lut_registers: u64,
    /// Who last wrote each LUT entry of each core
    /// ([`crate::chipmem::lut_writes_path`]).
    lut_writes: Mapping,
    /// Per core of the chip, the operations this core made on that core's
    /// test-and-set register.
    tsr: Vec<TsrStats>,
    /// Stores to read-only registers, all undone.
    read_only_writes: u64,
    /// The first [`READ_ONLY_KEPT`] distinct stores to read-only
    /// registers, each with its count.
    read_only: Vec<ReadOnlyWrite>,
    /// Instruction and address of the last access, if it was a register
    /// load: a store by the same instruction to the same address next is
    /// the second half of a locked exchange.
    last_load: Option<(u32, u32)>,
}

impl Registers {
    /// `core`'s registers in a run laid out as `layout`, recording LUT
    /// writes in `lut_writes` ([`crate::chipmem::lut_writes_path`]).
    pub(super) fn new(
        chip: &'static Chip,
        core: CoreId,
        layout: Layout,
        lut_writes: Mapping,
    ) -> Self {
        let tile = chip.tile_of(core);
        Self {
            chip,
            core,
            layout,
            lut_registers: layout.crb(tile) + u64::from(chip.crb.lut_entry(chip.z_of(core), 0)),
            lut_writes,
            tsr: vec![TsrStats::default(); chip.cores() as usize],
            read_only_writes: 0,
            read_only: Vec::new(),
            last_load: None,
        }
    }

    /// Offset in G of this core's LUT entry `entry` (the register in its
    /// tile's CRB, where the LUT in force lives).
    pub(super) fn lut_register(&self, entry: usize) -> u64 {
        self.lut_registers + u64::from(chip::CrbLayout::LUT_STRIDE) * entry as u64
    }

    /// Whether register access `a`, to the register at `offset` of G in
    /// `target`, is the store half of a locked exchange: a store to a
    /// test-and-set register by the instruction that just loaded it. On
    /// silicon the exchange is one read, so the store costs nothing more.
    pub(super) fn exchange_half(&mut self, a: &GuestAccess, target: Target, offset: u64) -> bool {
        let half = a.kind == Kind::Store
            && self.last_load == Some((a.insn, a.paddr))
            && self.tsr_owner(target, offset).is_some();
        self.last_load = (a.kind == Kind::Load).then_some((a.insn, a.paddr));
        half
    }

    /// Register access `a` to `offset` of G in `target`, done: a load of
    /// the FPGA bank's global timestamp (low word) latches `now`, the
    /// core's clock with timing on, into `g` for the guest's next reads;
    /// an operation on a test-and-set register is counted. Returns whether
    /// it was one (the store half of an exchange is not).
    pub(super) fn access(
        &mut self,
        g: &Mapping,
        a: GuestAccess,
        target: Target,
        offset: u64,
        now: Option<u64>,
    ) -> bool {
        if target == Target::Fpga {
            let bank = self.layout.fpga(self.core);
            let gtsc = u64::from(self.chip.fpga.gtsc_lo);
            if a.kind == Kind::Load
                && offset == bank + gtsc
                && let Some(now) = now.map(|now| now.saturating_sub(u64::from(a.rest)))
            {
                // Latched for the guest's next reads of GTSC_HI and GTSC_LO.
                g.store_u32(bank + gtsc, now as u32);
                g.store_u32(bank + u64::from(self.chip.fpga.gtsc_hi), (now >> 32) as u32);
            }
            return false;
        }
        let Some(owner) = self.tsr_owner(target, offset) else {
            return false;
        };
        let protocol = self.chip.tsr_protocol;
        let stats = &mut self.tsr[owner.index()];
        let value = a.value as u8;
        match a.kind {
            Kind::Load if value == protocol.free => stats.acquires += 1,
            Kind::Load => stats.failed += 1,
            Kind::Store if value == protocol.free => stats.releases += 1,
            Kind::Store => return false, // the store half of an exchange
        }
        true
    }

    /// A store to byte `in_crb` of tile `tile`'s CRB (through the own-CRB
    /// entry if `own`), already done in `g`: a LUT write is recorded for whoever
    /// reads that LUT, and a store to a read-only register is undone, as
    /// silicon ignores it, and counted.
    pub(super) fn crb_store(
        &mut self,
        g: &Mapping,
        a: GuestAccess,
        tile: TileId,
        in_crb: u32,
        own: bool,
    ) {
        let chip = self.chip;
        let block = if own {
            self.layout.own_crb(self.core)
        } else {
            self.layout.crb(tile)
        };
        let lut_bytes = chip::LUT_ENTRIES as u32 * chip::CrbLayout::LUT_STRIDE;
        if let Some(z) = chip
            .crb
            .lut
            .iter()
            .position(|&first| (first..first + lut_bytes).contains(&in_crb))
        {
            let entry = ((in_crb - chip.crb.lut[z]) / chip::CrbLayout::LUT_STRIDE) as usize;
            let owner = chip
                .all_cores()
                .find(|&c| chip.tile_of(c) == tile && usize::from(chip.z_of(c)) == z);
            // Through the own-CRB entry, only the core's own LUT takes
            // effect (`Engine::after_store`).
            if let Some(owner) = owner.filter(|&o| !own || o == self.core) {
                let at = chip.crb.lut_entry(z as u8, entry);
                let write = LutWrite {
                    writer: self.core.index() as u32,
                    insn: a.insn,
                    value: g.load_u32(block + u64::from(at)),
                };
                self.lut_writes
                    .store(lut_write_offset(owner, entry), write.pack());
            }
            return;
        }
        let Some((name, at)) = chip.crb.read_only_at(in_crb) else {
            return;
        };
        let reset = crb_reset_word(chip, tile, own.then_some(self.core), at);
        g.store_u32(block + u64::from(at), reset);
        let register = if own {
            format!("{name} of its own CRB")
        } else {
            format!("{name} of the CRB of tile {}", tile.index())
        };
        self.read_only_writes += 1;
        if let Some(kept) = self
            .read_only
            .iter_mut()
            .find(|w| w.insn == a.insn && w.register == register)
        {
            kept.count += 1;
        } else if self.read_only.len() < READ_ONLY_KEPT {
            self.read_only.push(ReadOnlyWrite {
                register,
                insn: a.insn,
                count: 1,
            });
        }
    }

    /// Who left entry `entry` of this core's LUT as it is, holding `raw`,
    /// for the report of an access the entry stopped: the core and
    /// instruction of the last write, or that it holds its value from
    /// reset.
    pub(super) fn lut_writer(&self, entry: usize, raw: u32) -> String {
        let offset = lut_write_offset(self.core, entry);
        // The writer records its write just after its store: a core that
        // saw the new value at once may have to wait for the record.
        let mut write = LutWrite::unpack(self.lut_writes.load(offset));
        for _ in 0..100 {
            if write.is_some_and(|w| w.value == raw) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            write = LutWrite::unpack(self.lut_writes.load(offset));
        }
        let reset = self.chip.default_lut(self.core)[entry].encode();
        match write {
            Some(w) if w.value == raw => format!(
                "; core {} wrote LUT entry {entry} last, at instruction {:#010x}",
                w.writer, w.insn
            ),
            None if raw == reset => {
                format!("; LUT entry {entry} holds its value from reset: no core wrote it")
            }
            Some(w) => format!(
                "; LUT entry {entry} was last seen written by core {} (value {:#08x}), at \
                 instruction {:#010x}",
                w.writer, w.value, w.insn
            ),
            None => format!("; no write of LUT entry {entry} was seen, yet it differs from reset"),
        }
    }

    /// The emulator call whose register is at `offset` of G, in `target`,
    /// if it is one: in this core's FPGA bank, from `FpgaLayout::emu_calls`.
    pub(super) fn emu_call_at(&self, target: Target, offset: u64) -> Option<EmuCall> {
        if target != Target::Fpga {
            return None;
        }
        let in_bank = offset.checked_sub(self.layout.fpga(self.core))?;
        let call = in_bank.checked_sub(u64::from(self.chip.fpga.emu_calls))?;
        EmuCall::at(u32::try_from(call).ok()?)
    }

    /// The register of this core's remote atomic request block at
    /// `offset` of G, in `target`, if it is one: in this core's system
    /// bank, at `chip::RemoteAtomics::registers`, on a chip with the unit.
    pub(super) fn rau_register_at(&self, target: Target, offset: u64) -> Option<RauRegister> {
        if target != Target::Fpga {
            return None;
        }
        let rau = self.chip.remote_atomics?;
        let in_bank = offset.checked_sub(self.layout.fpga(self.core))?;
        let at = in_bank.checked_sub(u64::from(rau.registers))?;
        RauRegister::at(u32::try_from(at).ok()?)
    }

    /// Offset in G of this core's remote atomic register `reg`.
    fn rau_offset(&self, reg: RauRegister) -> Option<u64> {
        let rau = self.chip.remote_atomics?;
        Some(self.layout.fpga(self.core) + u64::from(rau.registers) + reg as u64)
    }

    /// Marks this core's remote atomic request block in `g` as answered
    /// ([`RAU_PRESENT`]), on a chip with the unit.
    pub(super) fn sign_rau(&self, g: &Mapping) {
        if let Some(at) = self.rau_offset(RauRegister::Present) {
            g.store_u32(at, RAU_PRESENT);
        }
    }

    /// The request this core's registers in `g` hold: the command
    /// register's raw value, the operand and the value compared.
    pub(super) fn rau_request(&self, g: &Mapping) -> (u32, u64, u64) {
        let word = |reg| self.rau_offset(reg).map_or(0, |at| g.load_u32(at));
        let wide = |lo, hi| u64::from(word(lo)) | u64::from(word(hi)) << 32;
        (
            word(RauRegister::Command),
            wide(RauRegister::OperandLo, RauRegister::OperandHi),
            wide(RauRegister::CompareLo, RauRegister::CompareHi),
        )
    }

    /// Puts an operation's old value into this core's result registers
    /// in `g`, where the guest's next loads find it.
    pub(super) fn rau_result(&self, g: &Mapping, old: u64) {
        if let Some(at) = self.rau_offset(RauRegister::ResultLo) {
            g.store_u32(at, old as u32);
            g.store_u32(at + 4, (old >> 32) as u32);
        }
    }

    /// The core whose test-and-set register is at `offset` of G, in
    /// `target`, if it is one.
    pub(super) fn tsr_owner(&self, target: Target, offset: u64) -> Option<CoreId> {
        let Target::Crb(tile) = target else {
            return None;
        };
        let chip = self.chip;
        let in_crb = (offset - self.layout.crb(tile)) as u32;
        chip.all_cores()
            .filter(|&c| chip.tile_of(c) == tile)
            .find(|&c| chip.crb.lock[usize::from(chip.z_of(c))] == in_crb)
    }

    /// Marks this core's FPGA bank in `g` as the emulator's (timing on).
    pub(super) fn sign_fpga_bank(&self, g: &Mapping) {
        let at =
            self.layout.fpga(self.core) + u64::from(self.chip.fpga.emu_call(EmuCall::Signature));
        g.store_u32(at, EMU_SIGNATURE);
    }

    /// Latches clock reading `now` into this core's emulator call
    /// registers in `g` ([`EmuCall::ClockLatch`]), where the guest reads
    /// it ([`EmuCall::ClockLo`], [`EmuCall::ClockHi`]).
    pub(super) fn latch_clock(&self, g: &Mapping, now: u64) {
        let bank = self.layout.fpga(self.core);
        let fpga = self.chip.fpga;
        g.store_u32(
            bank + u64::from(fpga.emu_call(EmuCall::ClockLo)),
            now as u32,
        );
        g.store_u32(
            bank + u64::from(fpga.emu_call(EmuCall::ClockHi)),
            (now >> 32) as u32,
        );
    }

    /// Writes the counts into `report`: the test-and-set registers used,
    /// and the stores to read-only registers.
    pub(super) fn report(&self, report: &mut CoreReport) {
        report.tsr = self
            .tsr
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != TsrStats::default())
            .map(|(i, s)| (i as u32, *s))
            .collect();
        report.read_only_writes = self.read_only_writes;
        report.read_only = self.read_only.clone();
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use chip::SCC;

    use super::*;
    use crate::chipmem::{self, ChipMemory};

    /// Core `core`'s registers in a run of 2 cores of the SCC, with G.
    fn registers(core: u32) -> (tempfile::TempDir, Registers, Mapping) {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 2).unwrap();
        let map = |path: &std::path::Path, len: u64| {
            let file = File::options().read(true).write(true).open(path).unwrap();
            Mapping::new(&file, len).unwrap()
        };
        let layout = *memory.layout();
        let g = map(memory.path(), layout.size());
        let lut_writes = map(
            &chipmem::lut_writes_path(dir.path()),
            chipmem::lut_writes_size(&SCC),
        );
        let core = SCC.core(core).unwrap();
        (dir, Registers::new(&SCC, core, layout, lut_writes), g)
    }

    fn access(kind: Kind, paddr: u32, value: u64) -> GuestAccess {
        GuestAccess {
            kind,
            vaddr: paddr,
            paddr,
            len: 1,
            value,
            insn: 0x1234,
            rest: 0,
        }
    }

    /// Where core `owner`'s test-and-set register is in G, in its tile's CRB.
    fn tsr_of(r: &Registers, owner: u32) -> (Target, u64) {
        let owner = SCC.core(owner).unwrap();
        let tile = SCC.tile_of(owner);
        let offset = r.layout.crb(tile) + u64::from(SCC.crb.lock[usize::from(SCC.z_of(owner))]);
        (Target::Crb(tile), offset)
    }

    #[test]
    fn the_owner_of_a_test_and_set_register_is_found_in_its_tiles_crb() {
        let (_dir, r, _g) = registers(0);
        for owner in [0, 1, 47] {
            let (target, offset) = tsr_of(&r, owner);
            assert_eq!(r.tsr_owner(target, offset), SCC.core(owner).ok());
            assert_eq!(r.tsr_owner(target, offset + 4), None);
        }
        assert_eq!(r.tsr_owner(Target::Fpga, 0), None);
    }

    #[test]
    fn operations_on_test_and_set_registers_are_counted_per_owner() {
        let (_dir, mut r, g) = registers(0);
        let free = u64::from(SCC.tsr_protocol.free);
        let (target, offset) = tsr_of(&r, 1);
        let paddr = SCC.tsr_addr(SCC.core(1).unwrap());
        // A load that finds it free acquires it; one that does not, fails.
        assert!(r.access(&g, access(Kind::Load, paddr, free), target, offset, None));
        assert!(r.access(
            &g,
            access(Kind::Load, paddr, free ^ 1),
            target,
            offset,
            None
        ));
        // A store of the free value releases it; the store half of an
        // exchange is not an operation of its own.
        assert!(r.access(&g, access(Kind::Store, paddr, free), target, offset, None));
        assert!(!r.access(
            &g,
            access(Kind::Store, paddr, free ^ 1),
            target,
            offset,
            None
        ));
        let mut report = CoreReport::new(0, false);
        r.report(&mut report);
        let stats = TsrStats {
            acquires: 1,
            failed: 1,
            releases: 1,
            free_releases: 0,
        };
        assert_eq!(report.tsr, [(1, stats)]);
    }

    #[test]
    fn a_store_by_the_instruction_that_loaded_a_tsr_is_the_second_half_of_an_exchange() {
        let (_dir, mut r, _g) = registers(0);
        let (target, offset) = tsr_of(&r, 0);
        let paddr = SCC.tsr_addr(SCC.core(0).unwrap());
        let load = access(Kind::Load, paddr, 0);
        let store = access(Kind::Store, paddr, 0);
        assert!(!r.exchange_half(&load, target, offset));
        assert!(r.exchange_half(&store, target, offset));
        // Not after a store, nor by another instruction.
        assert!(!r.exchange_half(&store, target, offset));
        r.exchange_half(&load, target, offset);
        let other = GuestAccess {
            insn: 0x5678,
            ..store
        };
        assert!(!r.exchange_half(&other, target, offset));
    }

    #[test]
    fn a_load_of_the_global_timestamp_latches_the_clock_less_the_rest_of_its_block() {
        let (_dir, mut r, g) = registers(1);
        let bank = r.layout.fpga(r.core);
        let lo = bank + u64::from(SCC.fpga.gtsc_lo);
        let hi = bank + u64::from(SCC.fpga.gtsc_hi);
        let load = GuestAccess {
            rest: 5,
            ..access(Kind::Load, 0, 0)
        };
        assert!(!r.access(&g, load, Target::Fpga, lo, Some((7 << 32) + 105)));
        assert_eq!((g.load_u32(hi), g.load_u32(lo)), (7, 100));
        // With timing off nothing is latched.
        assert!(!r.access(&g, load, Target::Fpga, lo, None));
        assert_eq!(g.load_u32(lo), 100);
    }

    #[test]
    fn a_store_to_a_read_only_register_is_undone_and_counted_once_per_instruction() {
        let (_dir, mut r, g) = registers(0);
        let tile = SCC.tile(0).unwrap();
        let (name, at) = SCC.crb.read_only()[0];
        let offset = r.layout.crb(tile) + u64::from(at);
        let before = g.load_u32(offset);
        for insn in [0x10, 0x10, 0x20] {
            g.store_u32(offset, !before);
            let store = GuestAccess {
                insn,
                ..access(Kind::Store, 0, 0)
            };
            r.crb_store(&g, store, tile, at, false);
            assert_eq!(g.load_u32(offset), before);
        }
        let mut report = CoreReport::new(0, false);
        r.report(&mut report);
        assert_eq!(report.read_only_writes, 3);
        let kept: Vec<_> = report.read_only.iter().map(|w| (w.insn, w.count)).collect();
        assert_eq!(kept, [(0x10, 2), (0x20, 1)]);
        assert_eq!(
            report.read_only[0].register,
            format!("{name} of the CRB of tile 0")
        );
    }

    #[test]
    fn a_lut_write_is_recorded_for_the_entrys_owner_and_named_after() {
        let (_dir, mut r, g) = registers(0);
        let entry = 200;
        let tile = SCC.tile(0).unwrap();
        let at = SCC.crb.lut_entry(0, entry);
        let raw = 0x1234;
        g.store_u32(r.layout.crb(tile) + u64::from(at), raw);
        assert_eq!(r.lut_register(entry), r.layout.crb(tile) + u64::from(at));
        r.crb_store(&g, access(Kind::Store, 0, 0), tile, at, false);
        let said = r.lut_writer(entry, raw);
        assert!(
            said.contains("core 0 wrote LUT entry 200 last, at instruction 0x00001234"),
            "{said}"
        );
        let reset = SCC.default_lut(SCC.core(0).unwrap())[0].encode();
        assert!(r.lut_writer(0, reset).contains("from reset"));
    }
}
