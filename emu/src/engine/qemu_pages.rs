// SPDX-License-Identifier: GPL-2.0-or-later
//! Where QEMU shows each LUT page to the guest in this process, and
//! showing a new target there when a LUT entry changes: the core's view
//! for memory, G for registers.

use std::fs::File;
use std::path::PathBuf;

use chip::{Chip, CoreId, LUT_PAGE_SIZE, Target};

use crate::chipmem::{Backing, Layout};
use crate::shm;
use crate::{Error, Result};

/// Where QEMU shows one LUT page to the guest, for remapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HostPage {
    /// Address of the page in this process.
    host: usize,
    /// Bytes QEMU maps there: a LUT page, or less (the own MPB).
    len: usize,
    /// Whether QEMU mapped the page from the core's view (cacheable
    /// regions) rather than from G.
    view: bool,
}

/// The LUT pages QEMU shows one core, and the files it shows them from.
#[derive(Debug)]
pub(super) struct QemuPages {
    /// The chip the run models.
    chip: &'static Chip,
    /// The core QEMU runs.
    core: CoreId,
    /// Where each region of the chip lies in G and the views.
    layout: Layout,
    /// The run's directory, which errors about its files name.
    dir: PathBuf,
    /// G's file, which QEMU maps at register pages.
    g_file: File,
    /// This core's view's file, which QEMU maps at cacheable pages.
    own_view: File,
    /// Per LUT entry, where QEMU shows its page in this process (`None`:
    /// no device there); found at the first LUT write that needs it.
    pages: Option<Vec<Option<HostPage>>>,
}

impl QemuPages {
    /// `core`'s pages in a run laid out as `layout` in `dir`, shown from
    /// G's file `g_file` and the core's view's file `own_view`.
    pub(super) fn new(
        chip: &'static Chip,
        core: CoreId,
        layout: Layout,
        dir: PathBuf,
        (g_file, own_view): (File, File),
    ) -> Self {
        Self {
            chip,
            core,
            layout,
            dir,
            g_file,
            own_view,
            pages: None,
        }
    }

    /// Makes QEMU show `target`, what LUT entry `entry` reaches now
    /// (`None`: nothing), at the entry's page. Memory shows only at pages
    /// made for memory, registers only at pages made for registers.
    pub(super) fn show(&mut self, entry: u8, target: Option<Target>) -> Result<()> {
        let Some(page) = self.page(entry)? else {
            return Ok(()); // no device there: accesses are reported
        };
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
    fn page(&mut self, entry: u8) -> Result<Option<HostPage>> {
        if self.pages.is_none() {
            let maps =
                std::fs::read_to_string("/proc/self/maps").map_err(Error::io("/proc/self/maps"))?;
            self.pages = Some(self.find(&maps)?);
        }
        Ok(self.pages.as_ref().and_then(|p| p[usize::from(entry)]))
    }

    /// Per LUT entry, where `maps` (a `/proc/<pid>/maps` text) shows the
    /// mapping QEMU made of its page: every shared region mapped whole
    /// from its place in the view (cacheable regions) or in G.
    fn find(&self, maps: &str) -> Result<Vec<Option<HostPage>>> {
        use std::os::unix::fs::MetadataExt;
        let id = |f: &File| f.metadata().map(|m| (m.dev(), m.ino()));
        let (vdev, vino) = id(&self.own_view).map_err(Error::io(&self.dir))?;
        let (gdev, gino) = id(&self.g_file).map_err(Error::io(&self.dir))?;
        let view_maps = shm::mappings_of(maps, vdev, vino);
        let g_maps = shm::mappings_of(maps, gdev, gino);
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

    /// An error stopping the core, for `reason`.
    fn stop(&self, reason: impl std::fmt::Display) -> Error {
        Error::Model(format!("core {}: {reason}", self.core.index()))
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use chip::SCC;

    use super::*;
    use crate::chipmem::{self, ChipMemory};

    fn pages(dir: &std::path::Path) -> QemuPages {
        let memory = ChipMemory::create(dir, &SCC, 1).unwrap();
        let core = SCC.core(0).unwrap();
        let open =
            |path: &std::path::Path| File::options().read(true).write(true).open(path).unwrap();
        let files = (open(memory.path()), open(&chipmem::view_path(dir, core)));
        QemuPages::new(&SCC, core, *memory.layout(), dir.to_owned(), files)
    }

    /// A `/proc/<pid>/maps` line mapping `len` bytes of `file` from
    /// `offset` at `host`.
    fn maps_line(file: &File, host: usize, len: u64, offset: u64) -> String {
        let m = file.metadata().unwrap();
        let (major, minor) = (libc::major(m.dev()), libc::minor(m.dev()));
        format!(
            "{host:x}-{:x} rw-s {offset:08x} {major:02x}:{minor:02x} {} /run/file\n",
            host + len as usize,
            m.ino()
        )
    }

    #[test]
    fn pages_are_found_where_qemu_mapped_their_regions() {
        let dir = tempfile::tempdir().unwrap();
        let p = pages(dir.path());
        let mpb = SCC
            .shared_regions()
            .find(|r| r.base == SCC.mpb_base(SCC.tile(0).unwrap()))
            .expect("tile 0's MPB is a shared region");
        let crb = SCC
            .shared_regions()
            .find(|r| !r.kind.is_cacheable())
            .expect("a register region");
        let mpb_offset = p.layout.offset(mpb.kind, p.core);
        let crb_offset = p.layout.offset(crb.kind, p.core);
        let maps = maps_line(&p.own_view, 0x7000_0000, u64::from(mpb.size), mpb_offset)
            + &maps_line(&p.g_file, 0x9000_0000, u64::from(crb.size), crb_offset)
            // A mapping of G at the MPB's offset is not the MPB's page.
            + &maps_line(&p.g_file, 0xA000_0000, u64::from(mpb.size), mpb_offset);
        let found = p.find(&maps).unwrap();
        let mpb_entry = Chip::lut_index(mpb.base);
        assert_eq!(
            found[mpb_entry],
            Some(HostPage {
                host: 0x7000_0000,
                len: mpb.size.min(LUT_PAGE_SIZE) as usize,
                view: true,
            })
        );
        let crb_page = found[Chip::lut_index(crb.base)].expect("the registers' page");
        assert_eq!((crb_page.host, crb_page.view), (0x9000_0000, false));
        // Regions QEMU did not map have no page.
        let unmapped = SCC
            .shared_regions()
            .find(|r| r.kind.is_cacheable() && r.base != mpb.base && r.size == mpb.size)
            .expect("another tile's MPB");
        assert_eq!(found[Chip::lut_index(unmapped.base)], None);
    }

    #[test]
    fn memory_is_not_shown_at_a_page_made_for_registers() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = pages(dir.path());
        let crb = SCC
            .shared_regions()
            .find(|r| !r.kind.is_cacheable())
            .expect("a register region");
        let entry = Chip::lut_index(crb.base) as u8;
        p.pages = Some(vec![None; chip::LUT_ENTRIES]);
        p.pages.as_mut().unwrap()[usize::from(entry)] = Some(HostPage {
            host: 0x1000,
            len: 0x1000,
            view: false,
        });
        let mpb = Target::Mpb(SCC.tile(0).unwrap());
        let error = p.show(entry, Some(mpb)).unwrap_err().to_string();
        assert!(
            error.contains("shows memory only at entries made for memory"),
            "{error}"
        );
        // Nothing there, or no page: nothing to show.
        p.show(entry, None).unwrap();
        p.show(entry + 1, Some(mpb)).unwrap();
    }
}
