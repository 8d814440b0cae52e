// SPDX-License-Identifier: GPL-2.0-or-later
//! Configuration registers: test-and-set register counts, the global
//! timestamp the FPGA bank latches on a read, who wrote each LUT entry,
//! and stores to read-only registers, which are undone and reported.

use super::*;
use crate::chipmem::{LutWrite, crb_reset_word, lut_write_offset};
use crate::report::{READ_ONLY_KEPT, ReadOnlyWrite};

impl Engine {
    pub(super) fn register_access(&mut self, a: GuestAccess, target: Target, offset: u64) {
        if target == Target::Fpga {
            let bank = self.layout.fpga(self.core);
            let gtsc = u64::from(self.chip.fpga.gtsc_lo);
            if a.kind == Kind::Load
                && offset == bank + gtsc
                && let Some(now) = self.now().map(|now| now.saturating_sub(u64::from(a.rest)))
            {
                // Latched for the guest's next reads of GTSC_HI and GTSC_LO.
                self.g.store_u32(bank + gtsc, now as u32);
                self.g
                    .store_u32(bank + u64::from(self.chip.fpga.gtsc_hi), (now >> 32) as u32);
            }
            return;
        }
        let Some(owner) = self.tsr_owner(target, offset) else {
            return;
        };
        let protocol = self.chip.tsr_protocol;
        let stats = &mut self.tsr[owner.index()];
        let value = a.value as u8;
        match a.kind {
            Kind::Load if value == protocol.free => stats.acquires += 1,
            Kind::Load => stats.failed += 1,
            Kind::Store if value == protocol.free => stats.releases += 1,
            Kind::Store => return, // the store half of an exchange
        }
        self.memory.stats_mut().tsr_ops += 1;
    }

    /// A store to byte `in_crb` of tile `tile`'s CRB (through the own-CRB
    /// entry if `own`), already done: a LUT write is recorded for whoever
    /// reads that LUT, and a store to a read-only register is undone, as
    /// silicon ignores it, and counted.
    pub(super) fn crb_store(&mut self, a: GuestAccess, tile: chip::TileId, in_crb: u32, own: bool) {
        let chip = self.chip;
        let g = if own {
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
                    value: self.g.load_u32(g + u64::from(at)),
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
        self.g.store_u32(g + u64::from(at), reset);
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

    /// Who left entry `entry` of this core's LUT as it is, for the report
    /// of an access the entry stopped: the core and instruction of the
    /// last write, or that it holds its value from reset.
    pub(super) fn lut_writer(&self, entry: usize) -> String {
        let raw = self.translator.lut().entry(entry as u8).encode();
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
    pub(super) fn emu_call_at(&self, target: Target, offset: u64) -> Option<chip::EmuCall> {
        if target != Target::Fpga {
            return None;
        }
        let in_bank = offset.checked_sub(self.layout.fpga(self.core))?;
        let call = in_bank.checked_sub(u64::from(self.chip.fpga.emu_calls))?;
        chip::EmuCall::at(u32::try_from(call).ok()?)
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
}
