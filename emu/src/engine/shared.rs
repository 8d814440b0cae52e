// SPDX-License-Identifier: GPL-2.0-or-later
//! The run's shared memory as one core moves bytes in it: G, every
//! core's view, and the directory of lines, with the line lock that keeps
//! a publish and a refresh from crossing (see the module docs of
//! [`super`]).

use chip::CACHE_LINE;

use super::lines::LineRecords;
use crate::shm::Mapping;

/// Directory flag locking the line while its bytes move between G and
/// the views.
const LOCKED: u64 = 1 << 63;
/// Directory flags naming the last writer, plus one (0: nobody yet).
const WRITER: u64 = u32::MAX as u64;
/// A mask of every byte of a line.
pub(super) const FULL_LINE: u32 = u32::MAX;

/// G, the views and the directory, as core `me` reaches them.
#[derive(Debug)]
pub(super) struct SharedLines {
    /// G, the chip memory (`chip.mem`): what the chip's memory and
    /// registers hold.
    g: Mapping,
    /// Every running core's view V_c, by core index: what its loads
    /// return.
    views: Vec<Mapping>,
    /// Per line of G: its lock, last writer and holders.
    directory: LineRecords,
    /// The index of this core.
    me: usize,
}

impl SharedLines {
    /// Core `me`'s access to G, the `views` of the run's cores and the
    /// `directory`.
    pub(super) fn new(g: Mapping, views: Vec<Mapping>, directory: LineRecords, me: usize) -> Self {
        Self {
            g,
            views,
            directory,
            me,
        }
    }

    /// G, for reading and for the registers it holds.
    pub(super) fn g(&self) -> &Mapping {
        &self.g
    }

    /// This core's view of line `s`.
    pub(super) fn own_line(&self, s: u64) -> [u8; CACHE_LINE] {
        self.views[self.me].read_line(s)
    }

    /// The core that last wrote line `s` to G, if any did.
    pub(super) fn writer(&self, s: u64) -> Option<u32> {
        ((self.directory.flags(s) & WRITER) as u32).checked_sub(1)
    }

    /// This core holds line `s` from now on: publishes leave its view
    /// alone.
    pub(super) fn hold(&self, s: u64) {
        self.directory.insert(s, self.me);
    }

    /// This core holds line `s` again, whose bytes in its view become
    /// `data` (what its cache kept while the line was away).
    pub(super) fn hold_with(&self, s: u64, data: &[u8; CACHE_LINE]) {
        self.directory.insert(s, self.me);
        self.views[self.me].write_masked(s, data, FULL_LINE);
    }

    /// The bytes `mask` of `data` go to G at line `s` and into the view of
    /// every core that does not hold the line, under the line's lock;
    /// `before` runs under the lock before the bytes move (to stamp the
    /// line's time).
    pub(super) fn publish(
        &self,
        s: u64,
        data: &[u8; CACHE_LINE],
        mask: u32,
        before: impl FnOnce(),
    ) {
        self.lock(s);
        before();
        self.g.write_masked(s, data, mask);
        self.directory.update_flags(s, WRITER, self.me as u64 + 1);
        let holders = self.directory.cores(s);
        for (c, view) in self.views.iter().enumerate() {
            if !holders.contains(c) {
                view.write_masked(s, data, mask);
            }
        }
        self.unlock(s);
    }

    /// This core's view of line `s` takes G's bytes again, except `keep`,
    /// under the line's lock; with nothing kept, the core stops holding
    /// the line.
    pub(super) fn refresh(&self, s: u64, keep: u32) {
        self.lock(s);
        if keep == 0 {
            self.directory.remove(s, self.me);
        }
        let data = self.g.read_line(s);
        self.views[self.me].write_masked(s, &data, !keep);
        self.unlock(s);
    }

    /// Takes the lock of line `s` of G. Held for a few hundred
    /// nanoseconds; with more instances than host cores the holder may be
    /// descheduled, so waiting yields.
    fn lock(&self, s: u64) {
        let mut spins = 0u32;
        while self.directory.set_flags(s, LOCKED) & LOCKED != 0 {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Releases the lock of line `s`.
    fn unlock(&self, s: u64) {
        self.directory.clear_flags(s, LOCKED);
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::path::Path;

    use chip::SCC;

    use super::*;
    use crate::chipmem::{self, ChipMemory};

    /// Cores 0 and 1 of a run of 2 cores of the SCC, each with its access
    /// to the run's shared memory.
    fn two_cores() -> (tempfile::TempDir, [SharedLines; 2]) {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 2).unwrap();
        let layout = *memory.layout();
        let map = |path: &Path, len: u64| {
            let file = File::options().read(true).write(true).open(path).unwrap();
            Mapping::new(&file, len).unwrap()
        };
        let core = |me: usize| {
            let views = SCC
                .all_cores()
                .take(2)
                .map(|c| map(&chipmem::view_path(dir.path(), c), layout.size()))
                .collect();
            let directory = LineRecords::new(
                map(
                    &chipmem::directory_path(dir.path()),
                    chipmem::records_size(&layout),
                ),
                chipmem::record_words(&SCC),
            );
            SharedLines::new(map(memory.path(), layout.size()), views, directory, me)
        };
        let cores = [core(0), core(1)];
        (dir, cores)
    }

    fn line(byte: u8) -> [u8; CACHE_LINE] {
        [byte; CACHE_LINE]
    }

    #[test]
    fn a_publish_reaches_memory_and_every_view_but_a_holders() {
        let (_dir, [c0, c1]) = two_cores();
        let s = 0x40;
        assert_eq!(c0.writer(s), None);
        let mut stamped = false;
        c0.publish(s, &line(1), FULL_LINE, || stamped = true);
        assert!(stamped);
        assert_eq!(c0.g().read_line(s), line(1));
        assert_eq!((c0.own_line(s), c1.own_line(s)), (line(1), line(1)));
        assert_eq!(c1.writer(s), Some(0));
        // Core 1 holds the line: its view keeps the old bytes.
        c1.hold(s);
        c0.publish(s, &line(2), 0xF, || {});
        assert_eq!(c1.own_line(s), line(1));
        assert_eq!(c0.own_line(s)[..4], [2; 4]);
        assert_eq!(c0.own_line(s)[4..], [1; CACHE_LINE - 4]);
        // Refreshed, it sees memory and holds the line no more.
        c1.refresh(s, 0);
        assert_eq!(c1.own_line(s), c0.g().read_line(s));
        c0.publish(s, &line(3), FULL_LINE, || {});
        assert_eq!(c1.own_line(s), line(3));
    }

    #[test]
    fn a_refresh_keeps_the_bytes_asked_and_the_line_held() {
        let (_dir, [c0, c1]) = two_cores();
        let s = 0x80;
        c1.hold_with(s, &line(9));
        c0.publish(s, &line(4), FULL_LINE, || {});
        assert_eq!(c1.own_line(s), line(9));
        c1.refresh(s, 0xFF);
        let mut expected = line(4);
        expected[..8].copy_from_slice(&[9; 8]);
        assert_eq!(c1.own_line(s), expected);
        // Still a holder: a publish leaves its view alone.
        c0.publish(s, &line(5), FULL_LINE, || {});
        assert_eq!(c1.own_line(s), expected);
        assert_eq!(c1.writer(s), Some(0));
    }
}
