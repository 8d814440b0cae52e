// SPDX-License-Identifier: GPL-2.0-or-later
//! The coherence checker: a shared load that returned other bytes than
//! memory holds is a stale read, kept with the write it missed.
//!
//! The engine finds what a load read and what G holds there (the data
//! path's business); the checker decides whether that is stale, counts
//! it, and keeps the first [`STALE_KEPT`] for the report.

use chip::CACHE_LINE;

use crate::Result;
use crate::report::{CoreReport, STALE_KEPT, StaleRead};

/// The checker's state: whether it is on and what it found.
#[derive(Debug)]
pub(super) struct Checker {
    /// Whether the checker is on: shared loads are compared with G.
    on: bool,
    /// Stale reads found.
    stale_reads: u64,
    /// The first [`STALE_KEPT`] stale reads, for the report.
    stale: Vec<StaleRead>,
}

/// One part of a load (the bytes it read in one line), as the checker
/// compares it with memory.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadPart<'a> {
    /// The bytes the load returned, little-endian, as QEMU reported them.
    pub(super) value: &'a [u8; 8],
    /// Where this part's bytes start in `value`.
    pub(super) from: usize,
    /// Where they start in their line.
    pub(super) at: usize,
    /// How many bytes the part read.
    pub(super) len: usize,
    /// The bytes of the line the write-combine buffer holds (bit i: byte
    /// i), which are the core's own newer data.
    pub(super) wcb: u32,
    /// The line as memory (G) holds it.
    pub(super) memory: &'a [u8; CACHE_LINE],
}

impl ReadPart<'_> {
    /// Whether a byte the part read, outside those the write-combine
    /// buffer holds, differs from memory.
    pub(super) fn stale(&self) -> bool {
        (0..self.len).any(|i| {
            self.wcb & (1 << (self.at + i)) == 0
                && self.memory[self.at + i] != self.value[self.from + i]
        })
    }

    /// The load's value with memory's bytes where this part read, the
    /// rest as read: what the load would have returned had it been fresh.
    pub(super) fn held(&self) -> u64 {
        let mut held = *self.value;
        held[self.from..self.from + self.len]
            .copy_from_slice(&self.memory[self.at..self.at + self.len]);
        u64::from_le_bytes(held)
    }
}

impl Checker {
    /// A checker, on if `on`, that found nothing yet.
    pub(super) fn new(on: bool) -> Self {
        Self {
            on,
            stale_reads: 0,
            stale: Vec::new(),
        }
    }

    /// Whether the checker is on.
    pub(super) fn on(&self) -> bool {
        self.on
    }

    /// Counts a stale read; while fewer than [`STALE_KEPT`] are kept,
    /// keeps the one `describe` makes (asked for only then). An error of
    /// `describe` comes back after the read is counted.
    pub(super) fn found(&mut self, describe: impl FnOnce() -> Result<StaleRead>) -> Result<()> {
        self.stale_reads += 1;
        if self.stale.len() < STALE_KEPT {
            self.stale.push(describe()?);
        }
        Ok(())
    }

    /// Writes what the checker found into `report`.
    pub(super) fn report(&self, report: &mut CoreReport) {
        report.stale_reads = self.stale_reads;
        report.stale = self.stale.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(reader: u32) -> StaleRead {
        StaleRead {
            reader,
            paddr: 0xC000_0000,
            target: "MPB of tile 0 + 0x0".to_owned(),
            insn: 0x1000,
            len: 4,
            read: 1,
            memory: 2,
            writer: Some(1),
        }
    }

    #[test]
    fn a_part_is_stale_where_it_differs_outside_the_wcb() {
        let mut memory = [0; CACHE_LINE];
        memory[8..12].copy_from_slice(&[1, 2, 3, 4]);
        let value = [1, 2, 3, 4, 0, 0, 0, 0];
        let part = |wcb: u32, at: usize| ReadPart {
            value: &value,
            from: 0,
            at,
            len: 4,
            wcb,
            memory: &memory,
        };
        assert!(!part(0, 8).stale(), "the same bytes are fresh");
        assert!(part(0, 4).stale(), "other bytes are stale");
        assert!(!part(0xF0, 4).stale(), "the WCB's bytes are the core's own");
        assert!(part(0x70, 4).stale(), "one byte outside the WCB differs");
    }

    #[test]
    fn what_memory_held_replaces_the_parts_bytes_only() {
        let mut memory = [0; CACHE_LINE];
        memory[30..32].copy_from_slice(&[0xAA, 0xBB]);
        let value = [1, 2, 3, 4, 5, 6, 7, 8];
        // The second part of a load across lines, from byte 6 of the value.
        let part = ReadPart {
            value: &value,
            from: 6,
            at: 30,
            len: 2,
            wcb: 0,
            memory: &memory,
        };
        assert!(part.stale());
        assert_eq!(
            part.held(),
            u64::from_le_bytes([1, 2, 3, 4, 5, 6, 0xAA, 0xBB])
        );
    }

    #[test]
    fn every_stale_read_counts_and_the_first_are_kept() {
        let mut checker = Checker::new(true);
        assert!(checker.on() && !Checker::new(false).on());
        for r in 0..STALE_KEPT as u32 + 3 {
            checker.found(|| Ok(read(r))).unwrap();
        }
        let mut report = CoreReport::new(0, true);
        checker.report(&mut report);
        assert_eq!(report.stale_reads, STALE_KEPT as u64 + 3);
        assert_eq!(report.stale.len(), STALE_KEPT);
        assert_eq!(report.stale[STALE_KEPT - 1].reader, STALE_KEPT as u32 - 1);
        // Once full, nothing more is described.
        checker
            .found(|| panic!("described past the kept reads"))
            .unwrap();
    }

    #[test]
    fn a_read_that_cannot_be_described_still_counts() {
        let mut checker = Checker::new(true);
        let error = checker.found(|| Err(crate::Error::Model("no target".to_owned())));
        assert!(error.is_err());
        let mut report = CoreReport::new(0, true);
        checker.report(&mut report);
        assert_eq!((report.stale_reads, report.stale.len()), (1, 0));
    }
}
