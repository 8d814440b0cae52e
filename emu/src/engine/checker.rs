// SPDX-License-Identifier: GPL-2.0-or-later
//! The coherence checker: a shared load that returned other bytes than
//! memory holds is a stale read, kept with the write it missed.

use super::*;

impl Engine {
    pub(super) fn check_load(&mut self, a: &GuestAccess, access: &Access) -> Result<()> {
        let value = a.value.to_le_bytes();
        for p in access.parts() {
            if !matches!(p.outcome, Outcome::L1 | Outcome::L2) {
                continue; // read from memory: fresh by the invariant
            }
            let line = p.addr & !(CACHE_LINE as u32 - 1);
            let dirty = [self.memory.l1().peek(line), self.memory.l2().peek(line)]
                .iter()
                .any(|s| s.is_some_and(|s| s.dirty));
            if dirty {
                continue; // the core's own newer data
            }
            let wcb = self.memory.wcb_mask(line);
            let s = self.system_line(line)?;
            let at = (p.addr - line) as usize;
            let mut memory = [0; CACHE_LINE];
            self.g.read(s, &mut memory);
            let from = (p.addr - a.paddr) as usize;
            let stale = (0..p.len as usize)
                .any(|i| wcb & (1 << (at + i)) == 0 && memory[at + i] != value[from + i]);
            if !stale {
                continue;
            }
            self.stale_reads += 1;
            if self.stale.len() < STALE_KEPT {
                // Memory's bytes where this part was read, the rest as read.
                let mut held = value;
                held[from..from + p.len as usize].copy_from_slice(&memory[at..at + p.len as usize]);
                let writer = (self.directory.flags(s) & WRITER) as u32;
                let t = self.lut.translate(a.paddr).map_err(|e| self.stop(e))?;
                self.stale.push(StaleRead {
                    reader: self.core.index() as u32,
                    paddr: a.paddr,
                    target: describe(self.chip, t.target, t.offset),
                    insn: a.insn,
                    len: a.len,
                    read: a.value,
                    memory: u64::from_le_bytes(held),
                    writer: writer.checked_sub(1),
                });
            }
        }
        Ok(())
    }
}
