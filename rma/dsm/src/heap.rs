// SPDX-License-Identifier: MIT OR Apache-2.0
//! The symmetric heap's allocator: offsets in each PE's part of the
//! heap. Every PE makes the same calls in the same order (OpenSHMEM's
//! `shmem_malloc` and `shmem_free` are collective), and the allocator is
//! deterministic, so an object gets the same offset on every PE: the
//! offset is what a put or get sends. First fit over a sorted free list,
//! neighbours merged on free.

use alloc::vec::Vec;
use core::fmt;

/// Bytes every block is aligned to at least: the SCC's cache line, so two
/// objects never share a line (a whole-line write-back of one cannot
/// clobber the other).
pub const MIN_ALIGN: u32 = 32;

/// A symmetric heap of `size` bytes.
#[derive(Debug, Clone)]
pub struct Heap {
    size: u32,
    /// Free runs (offset, bytes), sorted by offset, never adjacent.
    free: Vec<(u32, u32)>,
    /// Blocks given out (offset, bytes).
    used: Vec<(u32, u32)>,
}

/// Why an allocation or free was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapError {
    /// No free run holds the bytes asked for.
    Full {
        /// Bytes asked for.
        requested: u64,
        /// The largest free run.
        largest: u32,
        /// The heap's bytes.
        size: u32,
    },
    /// An alignment that is not a power of two.
    Alignment(u64),
    /// A free of an offset no block starts at.
    NotAllocated(u32),
}

impl fmt::Display for HeapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeapError::Full {
                requested,
                largest,
                size,
            } => write!(
                f,
                "{requested} bytes do not fit in the symmetric heap ({size} bytes per PE, \
                 largest free run {largest})"
            ),
            HeapError::Alignment(a) => write!(f, "alignment {a} is not a power of two"),
            HeapError::NotAllocated(at) => write!(
                f,
                "offset {at} of the symmetric heap is not the start of an allocated block"
            ),
        }
    }
}

impl Heap {
    /// An empty heap of `size` bytes.
    pub fn new(size: u32) -> Self {
        Self {
            size,
            free: alloc::vec![(0, size)],
            used: Vec::new(),
        }
    }

    /// Takes `bytes` (at least one line's worth, whole lines) aligned to
    /// `align` (at least [`MIN_ALIGN`]); the offset.
    ///
    /// Return values: `Err(Alignment)`; `Err(Full)`.
    pub fn alloc(&mut self, bytes: u64, align: u64) -> Result<u32, HeapError> {
        if !align.is_power_of_two() {
            return Err(HeapError::Alignment(align));
        }
        let align = align.max(u64::from(MIN_ALIGN));
        let full = HeapError::Full {
            requested: bytes,
            largest: self.free.iter().map(|r| r.1).max().unwrap_or(0),
            size: self.size,
        };
        let want = bytes.max(1).div_ceil(u64::from(MIN_ALIGN)) * u64::from(MIN_ALIGN);
        for i in 0..self.free.len() {
            let (at, len) = self.free[i];
            let start = u64::from(at).div_ceil(align) * align;
            let end = start + want;
            if end > u64::from(at) + u64::from(len) {
                continue;
            }
            let (start, end) = (start as u32, end as u32);
            let mut pieces = Vec::new();
            if start > at {
                pieces.push((at, start - at));
            }
            if end < at + len {
                pieces.push((end, at + len - end));
            }
            self.free.splice(i..=i, pieces);
            self.used.push((start, end - start));
            return Ok(start);
        }
        Err(full)
    }

    /// Gives back the block at `at`.
    ///
    /// Return values: `Err(NotAllocated)`.
    pub fn free(&mut self, at: u32) -> Result<(), HeapError> {
        let i = self
            .used
            .iter()
            .position(|b| b.0 == at)
            .ok_or(HeapError::NotAllocated(at))?;
        let (at, len) = self.used.swap_remove(i);
        let pos = self.free.partition_point(|r| r.0 < at);
        self.free.insert(pos, (at, len));
        // Merge with the next, then with the previous.
        if pos + 1 < self.free.len() && self.free[pos].0 + self.free[pos].1 == self.free[pos + 1].0
        {
            self.free[pos].1 += self.free[pos + 1].1;
            self.free.remove(pos + 1);
        }
        if pos > 0 && self.free[pos - 1].0 + self.free[pos - 1].1 == self.free[pos].0 {
            self.free[pos - 1].1 += self.free[pos].1;
            self.free.remove(pos);
        }
        Ok(())
    }

    /// The bytes of the block at `at`, if one starts there.
    pub fn block(&self, at: u32) -> Option<u32> {
        self.used.iter().find(|b| b.0 == at).map(|b| b.1)
    }

    /// Bytes free in all.
    pub fn free_bytes(&self) -> u64 {
        self.free.iter().map(|r| u64::from(r.1)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_line_aligned_disjoint_and_merge_back() {
        let mut h = Heap::new(4096);
        let a = h.alloc(1, 1).unwrap();
        let b = h.alloc(100, 8).unwrap();
        let c = h.alloc(64, 256).unwrap();
        assert_eq!((a, b), (0, 32));
        assert_eq!(c % 256, 0);
        assert_eq!(h.block(b), Some(128));
        h.free(b).unwrap();
        h.free(a).unwrap();
        h.free(c).unwrap();
        assert_eq!(h.free_bytes(), 4096);
        assert_eq!(h.free, vec![(0, 4096)]);
    }

    #[test]
    fn the_same_calls_give_the_same_offsets() {
        let run = || {
            let mut h = Heap::new(1 << 16);
            let mut out = Vec::new();
            let mut live = Vec::new();
            for i in 0..200u64 {
                if i % 3 == 2 {
                    let at = live.remove((i as usize * 7) % live.len());
                    h.free(at).unwrap();
                } else {
                    let at = h.alloc(i * 13 % 500, 1 << (i % 8)).unwrap();
                    out.push(at);
                    live.push(at);
                }
            }
            out
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn errors_name_what_was_wrong() {
        let mut h = Heap::new(1024);
        assert_eq!(h.alloc(8, 3), Err(HeapError::Alignment(3)));
        h.alloc(1000, 1).unwrap();
        assert_eq!(
            h.alloc(64, 1).unwrap_err().to_string(),
            "64 bytes do not fit in the symmetric heap (1024 bytes per PE, largest free run 0)"
        );
        assert_eq!(
            h.free(32).unwrap_err().to_string(),
            "offset 32 of the symmetric heap is not the start of an allocated block"
        );
    }
}
