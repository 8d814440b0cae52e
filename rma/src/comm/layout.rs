// SPDX-License-Identifier: MIT OR Apache-2.0
//! Which 32-byte lines of each core's MPB half hold what.
//!
//! Every line that another core writes has exactly one writer at a time,
//! and no two writers share a line: a line is the unit of L1 caching and
//! of the write-combine buffer, so two writers on one line could clobber
//! each other's bytes when a whole line is written back.
//!
//! | lines | bytes (SCC) | what | written by |
//! |---|---|---|---|
//! | 0-3 | 0x000-0x07f | free for programs; rma never touches them | the program |
//! | 4 | 0x080-0x09f | central barrier: arrival count (word 0), used in rank 0's half only | any core, holding rank 0's TSR |
//! | 5 | 0x0a0-0x0bf | central barrier: release sense (word 0) | the last core to arrive |
//! | 6-15 | 0x0c0-0x1ff | dissemination barrier: episode of round `k` in line `6 + k` (word 0) | rank `(me - 2^k) mod n` |
//! | 16 + p | 0x200 + 32p | peer line of rank `p`: channel words, see below | rank `p` |
//! | 16 + me | 0x200 + 32me | this core's own peer line: word 0 is the highest communicator context it took part in | this core |
//! | 16 + cores.. | 0x800-0x1fff | channel data buffer: this core's outgoing chunk | this core |
//!
//! A peer line of rank `p` in core `c`'s half holds:
//! - word 0: chunks `p` has put in its data buffer for `c`, counted since boot;
//! - word 1: chunks of `c`'s that `p` has consumed, counted since boot;
//! - word 2: byte length of the message the latest chunk from `p` belongs to;
//! - word 3: context of that message, shifted left by one, with bit 0 set
//!   for a collective's message: context 0 is the communicator of every
//!   core, each communicator made from another has a fresh number.
//!
//! Ranks here are world ranks (core indices): a communicator of a subset
//! of the cores uses the same lines, and its messages carry its context.
//!
//! The MPB starts zeroed, so all counts start at 0. Ten dissemination
//! rounds cover 1024 cores; the peer lines and the data buffer scale with
//! the chip's core count.

use chip::{CACHE_LINE, Chip};

use crate::RmaError;

/// Bytes in a line, as an MPB offset.
pub const LINE: u32 = CACHE_LINE as u32;
/// Offset of the lines programs may use.
pub const PROGRAM_LINES: u32 = 0;
/// Number of lines programs may use.
pub const PROGRAM_LINE_COUNT: u32 = 4;
/// Central barrier arrival count (in rank 0's half).
pub const CENTRAL_COUNT: u32 = 4 * LINE;
/// Central barrier release sense.
pub const CENTRAL_SENSE: u32 = 5 * LINE;
/// First dissemination round flag.
pub const DISSEMINATION: u32 = 6 * LINE;
/// Dissemination rounds the layout has lines for.
pub const DISSEMINATION_ROUNDS_MAX: u32 = 10;
/// First peer line.
pub const PEER_LINES: u32 = DISSEMINATION + DISSEMINATION_ROUNDS_MAX * LINE;
/// Word offsets inside a peer line.
pub const PEER_SENT: u32 = 0;
/// Chunks consumed (acknowledgements).
pub const PEER_ACKED: u32 = 4;
/// Length of the message being sent.
pub const PEER_LENGTH: u32 = 8;
/// Context of the message being sent.
pub const PEER_CONTEXT: u32 = 12;

// Every cross-core flag sits on its own line.
const _: () = assert!(PROGRAM_LINES + PROGRAM_LINE_COUNT * LINE <= CENTRAL_COUNT);
const _: () = assert!(PEER_CONTEXT + 4 <= LINE);
const _: () = assert!(PEER_LINES.is_multiple_of(LINE));

/// The layout for one chip: where the data buffer starts and how large it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Offset of the data buffer.
    pub data: u32,
    /// Bytes in the data buffer: the largest chunk.
    pub data_bytes: u32,
}

impl Layout {
    /// The layout for `chip`.
    ///
    /// Return values: `Err(MpbTooSmall)` if a core's MPB half cannot hold a
    /// peer line per core plus at least one line of data, or the chip has
    /// more cores than the dissemination lines cover.
    pub fn for_chip(chip: &Chip) -> Result<Self, RmaError> {
        let bytes = chip.mpb_bytes_per_core();
        let data = PEER_LINES + chip.cores() * LINE;
        let needed = data + LINE;
        if bytes < needed || chip.cores() > 1 << DISSEMINATION_ROUNDS_MAX {
            return Err(RmaError::MpbTooSmall { bytes, needed });
        }
        Ok(Self {
            data,
            data_bytes: bytes - data,
        })
    }

    /// Offset of the peer line of rank `peer`.
    pub const fn peer(&self, peer: u32) -> u32 {
        PEER_LINES + peer * LINE
    }

    /// Offset of the word in core `me`'s own half (its own peer line, which
    /// the channel never uses) holding the highest context it took part in.
    pub const fn last_context(&self, me: u32) -> u32 {
        self.peer(me)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scc_layout_matches_the_table() {
        let layout = Layout::for_chip(&chip::SCC).unwrap();
        assert_eq!(PEER_LINES, 0x200);
        assert_eq!(layout.peer(47), 0x200 + 47 * 32);
        assert_eq!(layout.data, 0x800);
        assert_eq!(layout.data_bytes, 6 * 1024);
    }

    #[test]
    fn a_chip_with_too_little_mpb_is_refused() {
        let mut chip = chip::SCC;
        chip.mpb_bytes_per_tile = 2 * 2048;
        assert_eq!(
            Layout::for_chip(&chip),
            Err(RmaError::MpbTooSmall {
                bytes: 2048,
                needed: 2048 + 32
            })
        );
    }
}
