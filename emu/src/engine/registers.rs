// SPDX-License-Identifier: GPL-2.0-or-later
//! Configuration registers: test-and-set register counts and the global
//! timestamp the FPGA bank latches on a read.

use super::*;

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
