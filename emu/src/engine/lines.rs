// SPDX-License-Identifier: GPL-2.0-or-later
//! Per-line records shared by every core of a run: for each 32-byte line
//! of G, a word of flags and then one bit per core of the chip. The
//! directory keeps the cores that hold the line (flags: its lock and its
//! last writer), the watchers file the cores waiting on it (flags: whether
//! a poll ever read it). A record has as many core words as the chip
//! needs ([`crate::chipmem::record_words`]), so a chip of up to
//! [`chip::MAX_CORES`] cores fits, and a core touches only its own word.

use crate::chipmem;
use crate::shm::Mapping;

/// Words of a set of cores: one bit for each core a chip may have.
const SET_WORDS: usize = (chip::MAX_CORES as usize).div_ceil(64);

/// A set of cores of the run, one bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct CoreSet([u64; SET_WORDS]);

impl CoreSet {
    /// Whether core `c` is in the set.
    pub(super) fn contains(&self, c: usize) -> bool {
        self.0[c / 64] & (1 << (c % 64)) != 0
    }

    /// The set without core `c`.
    pub(super) fn without(mut self, c: usize) -> Self {
        self.0[c / 64] &= !(1 << (c % 64));
        self
    }

    /// Whether the set is empty.
    pub(super) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The cores in either set.
    pub(super) fn union(mut self, other: Self) -> Self {
        for (w, o) in self.0.iter_mut().zip(other.0) {
            *w |= o;
        }
        self
    }

    /// The cores, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..SET_WORDS * 64)
            .filter(|&c| self.contains(c))
            .map(|c| c as u32)
    }
}

/// The records of one shared file: `words` words per line of G.
#[derive(Debug)]
pub(super) struct LineRecords {
    /// The shared file, mapped.
    map: Mapping,
    /// Words per record: one of flags, then the cores'.
    words: u64,
}

impl LineRecords {
    /// The records in `map`, `words` words per line (a word of flags and
    /// `words - 1` of cores).
    pub(super) fn new(map: Mapping, words: u64) -> Self {
        assert!(words >= 2, "a record has a word of flags and one of cores");
        Self { map, words }
    }

    /// Offset of the flags word of the record of line `s` of G.
    fn flags_at(&self, s: u64) -> u64 {
        s / chip::CACHE_LINE as u64 * 8 * self.words
    }

    /// Offset of the word holding core `c`'s bit, and the bit.
    fn core_at(&self, s: u64, c: usize) -> (u64, u64) {
        let (word, bit) = chipmem::record_bit(c);
        debug_assert!(word < self.words, "core {c} beyond the record");
        (self.flags_at(s) + 8 * word, bit)
    }

    /// The flags of line `s`.
    pub(super) fn flags(&self, s: u64) -> u64 {
        self.map.load(self.flags_at(s))
    }

    /// Sets `bits` of line `s`'s flags; returns the flags before.
    pub(super) fn set_flags(&self, s: u64, bits: u64) -> u64 {
        self.map.fetch_or(self.flags_at(s), bits)
    }

    /// Clears `bits` of line `s`'s flags.
    pub(super) fn clear_flags(&self, s: u64, bits: u64) {
        self.map.fetch_and_not(self.flags_at(s), bits);
    }

    /// Replaces the flags `mask` of line `s` with those of `value`.
    pub(super) fn update_flags(&self, s: u64, mask: u64, value: u64) {
        self.map.update(self.flags_at(s), mask, value);
    }

    /// Adds core `c` to line `s`'s cores.
    pub(super) fn insert(&self, s: u64, c: usize) {
        let (at, bit) = self.core_at(s, c);
        self.map.fetch_or(at, bit);
    }

    /// Removes core `c` from line `s`'s cores.
    pub(super) fn remove(&self, s: u64, c: usize) {
        let (at, bit) = self.core_at(s, c);
        self.map.fetch_and_not(at, bit);
    }

    /// Line `s`'s cores (each word read atomically, the words one after
    /// the other).
    pub(super) fn cores(&self, s: u64) -> CoreSet {
        let mut set = CoreSet::default();
        let first = self.flags_at(s) + 8;
        for (i, word) in set.0.iter_mut().take(self.words as usize - 1).enumerate() {
            *word = self.map.load(first + 8 * i as u64);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(lines: u64, words: u64) -> (tempfile::TempDir, LineRecords) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records.mem");
        let file = std::fs::File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        let len = lines * 8 * words;
        file.set_len(len).unwrap();
        let map = Mapping::new(&file, len).unwrap();
        (dir, LineRecords::new(map, words))
    }

    #[test]
    fn cores_beyond_the_first_word_have_their_own_bits() {
        // 192 cores: three words of cores per line.
        let (_dir, r) = records(4, 4);
        let line = 2 * chip::CACHE_LINE as u64;
        for c in [0, 63, 64, 127, 191] {
            r.insert(line, c);
        }
        let set = r.cores(line);
        assert_eq!(set.iter().collect::<Vec<_>>(), [0, 63, 64, 127, 191]);
        assert!(r.cores(line - chip::CACHE_LINE as u64).is_empty());
        assert!(r.cores(line + chip::CACHE_LINE as u64).is_empty());
        r.remove(line, 64);
        assert!(!r.cores(line).contains(64) && r.cores(line).contains(127));
        assert_eq!(set.without(191).iter().last(), Some(127));
        // The flags are a word of their own.
        assert_eq!(r.set_flags(line, 1 << 63), 0);
        r.update_flags(line, 0xFF, 7);
        assert_eq!(r.flags(line), (1 << 63) | 7);
        r.clear_flags(line, 1 << 63);
        assert_eq!(r.flags(line), 7);
        assert_eq!(r.cores(line).iter().count(), 4);
    }

    #[test]
    fn sets_unite() {
        let mut a = CoreSet::default();
        let mut b = CoreSet::default();
        a.0[0] = 1;
        b.0[3] = 1 << 63;
        let all = a.union(b);
        assert_eq!(all.iter().collect::<Vec<_>>(), [0, 255]);
        assert!(CoreSet::default().is_empty() && !all.is_empty());
    }
}
