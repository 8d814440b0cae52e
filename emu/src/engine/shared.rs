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

    /// One operation of the remote atomic unit on the `bytes`-byte word at
    /// byte `at` of line `s` of G, under the line's lock, so that no other
    /// core's operation, publish or refresh of the line comes between its
    /// read and its write: `op` turns the old value into the new one, or
    /// leaves it (`None`). A new value goes to G and into the view of every
    /// core that does not hold the line, with this core as the line's last
    /// writer, as [`SharedLines::publish`] does; `before` runs under the
    /// lock before it moves (to stamp the line's time). Returns the old
    /// value and whether it was written.
    pub(super) fn atomic(
        &self,
        s: u64,
        at: usize,
        bytes: usize,
        op: impl FnOnce(u64) -> Option<u64>,
        before: impl FnOnce(u32),
    ) -> (u64, bool) {
        assert!(
            at + bytes <= CACHE_LINE && bytes <= 8,
            "a word of {bytes} bytes at {at} of a line"
        );
        self.lock(s);
        let line = self.g.read_line(s);
        let mut old = [0; 8];
        old[..bytes].copy_from_slice(&line[at..at + bytes]);
        let old = u64::from_le_bytes(old);
        let new = op(old);
        if let Some(new) = new {
            let mask = (((1u64 << bytes) - 1) << at) as u32;
            before(mask);
            let mut data = [0; CACHE_LINE];
            data[at..at + bytes].copy_from_slice(&new.to_le_bytes()[..bytes]);
            self.g.write_masked(s, &data, mask);
            self.directory.update_flags(s, WRITER, self.me as u64 + 1);
            let holders = self.directory.cores(s);
            for (c, view) in self.views.iter().enumerate() {
                if !holders.contains(c) {
                    view.write_masked(s, &data, mask);
                }
            }
        }
        self.unlock(s);
        (old, new.is_some())
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
    fn an_atomic_operation_writes_memory_and_the_views_but_a_holders_as_its_core() {
        let (_dir, [c0, c1]) = two_cores();
        let s = 0xC0;
        c1.publish(s, &line(0), FULL_LINE, || {});
        c1.hold(s);
        let mut stamped = 0;
        let add = |v: u64| Some(v + 0x0102_0304_0506_0708);
        let (old, written) = c0.atomic(s, 8, 8, add, |mask| stamped = mask);
        assert_eq!((old, written), (0, true));
        assert_eq!(stamped, 0xFF << 8);
        let g = c0.g().read_line(s);
        assert_eq!(g[8..16], 0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(g[..8], [0; 8]);
        assert_eq!(c0.own_line(s), g);
        // Core 1 holds the line: its view is stale, and core 0 wrote it last.
        assert_eq!(c1.own_line(s), line(0));
        assert_eq!(c1.writer(s), Some(0));
        // An operation that leaves the word writes nothing.
        let (old, written) = c1.atomic(s, 8, 4, |_| None, |_| panic!("nothing to stamp"));
        assert_eq!((old, written), (0x0506_0708, false));
        assert_eq!(c1.writer(s), Some(0));
    }

    #[test]
    fn atomic_operations_of_two_cores_on_one_word_lose_nothing() {
        let (_dir, cores) = two_cores();
        let s = 0x100;
        std::thread::scope(|scope| {
            for c in &cores {
                scope.spawn(move || {
                    for _ in 0..10_000 {
                        c.atomic(s, 4, 4, |v| Some(v + 1), |_| {});
                    }
                });
            }
        });
        let g = cores[0].g().read_line(s);
        assert_eq!(u32::from_le_bytes(g[4..8].try_into().unwrap()), 20_000);
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
