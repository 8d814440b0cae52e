// SPDX-License-Identifier: GPL-2.0-or-later
//! Live LUTs: a LUT entry written by anyone takes effect at this core's next
//! access through it; cached lines move with the page, and QEMU shows the
//! new target's memory.

use super::*;

/// Where QEMU shows one LUT page to the guest, for remapping.
#[derive(Debug, Clone, Copy)]
pub(super) struct HostPage {
    /// Address of the page in this process.
    pub(super) host: usize,
    /// Bytes QEMU maps there: a LUT page, or less (the own MPB).
    pub(super) len: usize,
    /// Whether QEMU mapped the page from the core's view (cacheable
    /// regions) rather than from G.
    pub(super) view: bool,
}

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
        self.show(entry, base)
    }

    /// Makes QEMU show the current target of `entry` at its page.
    pub(super) fn show(&mut self, entry: u8, base: u32) -> Result<()> {
        let Some(page) = self.host_page(entry)? else {
            return Ok(()); // no device there: accesses are reported
        };
        let target = self.translator.lut().translate(base).ok().map(|t| t.target);
        let (file, offset) = match target.map(|t| self.layout.backing(t, self.core)) {
            Some(Backing::Memory { offset }) if page.view => (&self.own_view, offset),
            Some(Backing::Registers { offset }) if !page.view => (&self.g_file, offset),
            Some(Backing::Memory { .. } | Backing::Registers { .. }) => {
                return Err(self.stop(format_args!(
                    "LUT entry {entry} now points at {:?}: the emulator shows memory only at \
                     entries made for memory and registers only at entries made for registers",
                    target.expect("matched a backing")
                )));
            }
            // Nothing there: every access is reported.
            Some(Backing::Unbacked) | None => return Ok(()),
        };
        // SAFETY: `page.host` is QEMU's mapping of this LUT page of guest
        // memory, `page.len` bytes, found in this process's maps; nothing
        // here references it.
        unsafe { shm::remap(page.host, page.len, file, offset) }
            .map_err(|e| self.stop(format_args!("remapping LUT entry {entry}: {e}")))
    }

    /// Where QEMU maps LUT page `entry` in this process, found once in
    /// `/proc/self/maps`.
    pub(super) fn host_page(&mut self, entry: u8) -> Result<Option<HostPage>> {
        if self.host_pages.is_none() {
            self.host_pages = Some(self.find_host_pages()?);
        }
        Ok(self.host_pages.as_ref().and_then(|p| p[usize::from(entry)]))
    }

    pub(super) fn find_host_pages(&self) -> Result<Vec<Option<HostPage>>> {
        use std::os::unix::fs::MetadataExt;
        let maps =
            std::fs::read_to_string("/proc/self/maps").map_err(Error::io("/proc/self/maps"))?;
        let id = |f: &File| f.metadata().map(|m| (m.dev(), m.ino()));
        let (vdev, vino) = id(&self.own_view).map_err(Error::io(&self.dir))?;
        let (gdev, gino) = id(&self.g_file).map_err(Error::io(&self.dir))?;
        let view_maps = shm::mappings_of(&maps, vdev, vino);
        let g_maps = shm::mappings_of(&maps, gdev, gino);
        let mut pages = vec![None; chip::LUT_ENTRIES];
        for region in self.chip.shared_regions() {
            let view = region.kind.is_cacheable();
            let offset = self.layout.offset(region.kind, self.core);
            let candidates = if view { &view_maps } else { &g_maps };
            let Some(&(start, _, _)) = candidates
                .iter()
                .find(|&&(s, e, o)| o == offset && e - s == region.size as usize)
            else {
                continue;
            };
            // A region smaller than a LUT page (the own MPB) is one page.
            let len = region.size.min(LUT_PAGE_SIZE);
            for i in 0..region.size.div_ceil(LUT_PAGE_SIZE) {
                let entry = Chip::lut_index(region.base) + i as usize;
                pages[entry] = Some(HostPage {
                    host: start + (i * LUT_PAGE_SIZE) as usize,
                    len: len as usize,
                    view,
                });
            }
        }
        Ok(pages)
    }
}
