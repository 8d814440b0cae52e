// SPDX-License-Identifier: GPL-2.0-or-later
//! Live LUTs: a LUT entry written by anyone takes effect at this core's next
//! access through it; cached lines move with the page, and QEMU shows the
//! new target's memory ([`super::qemu_pages`]).

use chip::{CACHE_LINE, LUT_PAGE_SIZE, LutEntry};

use super::{Engine, Result};

impl Engine {
    /// Notices a write to this core's LUT entry `entry` (by anyone, through
    /// any address) since the last access.
    pub(super) fn follow_remote_lut_write(&mut self, entry: usize) -> Result<()> {
        let raw = self.shared.g().load_u32(self.registers.lut_register(entry)) & LutEntry::MASK;
        if raw != self.translator.lut().entry(entry as u8).encode() {
            self.lut_changed(entry as u8, raw)?;
        }
        Ok(())
    }

    /// Entry `entry` now holds `raw`: cached lines of the page move with
    /// it, and QEMU shows the new target.
    pub(super) fn lut_changed(&mut self, entry: u8, raw: u32) -> Result<()> {
        let base = u32::from(entry) * LUT_PAGE_SIZE;
        let in_page = |line: u32| line / LUT_PAGE_SIZE == u32::from(entry);
        let mut lines: Vec<u32> = self
            .memory
            .l1()
            .lines()
            .chain(self.memory.l2().lines())
            .map(|v| v.line)
            .filter(|&l| in_page(l))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let old: Vec<(u32, [u8; CACHE_LINE])> = lines
            .iter()
            .filter_map(|&l| {
                let s = self.system_line(l).ok()?;
                Some((l, self.shared.own_line(s)))
            })
            .collect();
        for &(l, _) in &old {
            if let Ok(s) = self.system_line(l) {
                self.shared.refresh(s, 0);
            }
        }
        self.translator.write_lut(entry, raw);
        for (l, data) in old {
            if let Ok(s) = self.system_line(l) {
                self.shared.hold_with(s, &data);
            }
        }
        let target = self.translator.lut().translate(base).ok().map(|t| t.target);
        self.qemu_pages.show(entry, target)
    }
}
