// SPDX-License-Identifier: MIT OR Apache-2.0
//! Trace events in modelled time: what a traced run records, per core.
//!
//! A guest traces rma's calls ([`Op`], begin and end, with window, target
//! and bytes) by storing an event's [`Event::word`] into the emulator's
//! [`EmuCall::Trace`](crate::EmuCall::Trace) register, after its argument
//! into [`EmuCall::TraceArg`](crate::EmuCall::TraceArg); the emulator adds
//! its own (CL1INVMB, WBINVD, modelled waits) and stamps each with the
//! core's modelled clock. At exit every core writes its [`Record`]s, and
//! the run tool turns them into a trace-event file for Perfetto.

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Op {
    /// The guest turned tracing on: the first event of a trace.
    Tracing = 0,
    /// rma's put.
    Put = 1,
    /// rma's get.
    Get = 2,
    /// accumulate.
    Accumulate = 3,
    /// get_accumulate.
    GetAccumulate = 4,
    /// fetch_and_op.
    FetchAndOp = 5,
    /// compare_and_swap.
    CompareAndSwap = 6,
    /// fence.
    Fence = 7,
    /// post.
    Post = 8,
    /// start.
    Start = 9,
    /// complete.
    Complete = 10,
    /// wait.
    Wait = 11,
    /// lock.
    Lock = 12,
    /// unlock.
    Unlock = 13,
    /// lock_all.
    LockAll = 14,
    /// unlock_all.
    UnlockAll = 15,
    /// flush and flush_all.
    Flush = 16,
    /// sync.
    Sync = 17,
    /// CL1INVMB (recorded by the emulator).
    Cl1invmb = 32,
    /// WBINVD (recorded by the emulator).
    Wbinvd = 33,
    /// A wait in modelled time for a polled value to change (recorded by
    /// the emulator): a TSR, a lock word, a flag.
    Waiting = 34,
    /// A counter of the chip moved since the core's last sample (recorded
    /// by the emulator at sync points): [`Event::window`] holds the
    /// [`Counter`], [`Event::target`] the tile or controller, the record's
    /// argument how much it moved.
    Counter = 35,
}

/// What an [`Op::Counter`] event counts, for one core: the run tool sums
/// the cores into one track per resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Counter {
    /// Bytes to and from a tile's MPB.
    MpbBytes = 0,
    /// Bytes to and from a memory controller's DRAM.
    McBytes = 1,
    /// Cycles queued for a tile's MPB.
    MpbWait = 2,
    /// Cycles queued for a memory controller.
    McWait = 3,
}

impl Counter {
    /// Every counter.
    pub const ALL: [Counter; 4] = [Self::MpbBytes, Self::McBytes, Self::MpbWait, Self::McWait];

    /// What the resource is called in a track's name (then its index).
    pub const fn resource(self) -> &'static str {
        match self {
            Self::MpbBytes | Self::MpbWait => "MPB tile",
            Self::McBytes | Self::McWait => "MC",
        }
    }

    /// What the track counts.
    pub const fn unit(self) -> &'static str {
        match self {
            Self::MpbBytes | Self::McBytes => "bytes",
            Self::MpbWait | Self::McWait => "queueing cycles",
        }
    }

    /// The counter `code` names, if one.
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|c| *c as u8 == code)
    }
}

impl Op {
    /// Every op, for decoding.
    pub const ALL: [Op; 22] = [
        Self::Tracing,
        Self::Put,
        Self::Get,
        Self::Accumulate,
        Self::GetAccumulate,
        Self::FetchAndOp,
        Self::CompareAndSwap,
        Self::Fence,
        Self::Post,
        Self::Start,
        Self::Complete,
        Self::Wait,
        Self::Lock,
        Self::Unlock,
        Self::LockAll,
        Self::UnlockAll,
        Self::Flush,
        Self::Sync,
        Self::Cl1invmb,
        Self::Wbinvd,
        Self::Waiting,
        Self::Counter,
    ];

    /// The name a trace shows.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Tracing => "tracing",
            Self::Put => "put",
            Self::Get => "get",
            Self::Accumulate => "accumulate",
            Self::GetAccumulate => "get_accumulate",
            Self::FetchAndOp => "fetch_and_op",
            Self::CompareAndSwap => "compare_and_swap",
            Self::Fence => "fence",
            Self::Post => "post",
            Self::Start => "start",
            Self::Complete => "complete",
            Self::Wait => "wait",
            Self::Lock => "lock",
            Self::Unlock => "unlock",
            Self::LockAll => "lock_all",
            Self::UnlockAll => "unlock_all",
            Self::Flush => "flush",
            Self::Sync => "sync",
            Self::Cl1invmb => "CL1INVMB",
            Self::Wbinvd => "WBINVD",
            Self::Waiting => "waiting",
            Self::Counter => "counter",
        }
    }
}

/// Where an event sits in its op's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Phase {
    /// The op starts.
    Begin = 0,
    /// The op is over.
    End = 1,
    /// A moment, no span.
    Instant = 2,
}

/// One event as the guest stores it: op, phase, window and target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Event {
    /// What happened.
    pub op: Op,
    /// Begin, end, or a moment.
    pub phase: Phase,
    /// The window's id, if any ([`Event::NONE8`] if none; ids above 254
    /// show as none).
    pub window: u8,
    /// The target rank, if any ([`Event::NONE16`] if none).
    pub target: u16,
}

impl Event {
    /// No window.
    pub const NONE8: u8 = u8::MAX;
    /// No target.
    pub const NONE16: u16 = u16::MAX;

    /// `op` at `phase` without window or target.
    pub const fn bare(op: Op, phase: Phase) -> Self {
        Self {
            op,
            phase,
            window: Self::NONE8,
            target: Self::NONE16,
        }
    }

    /// The 32-bit word the guest stores: target in bits 16-31, window in
    /// 8-15, phase in 6-7, op in 0-5.
    pub const fn word(self) -> u32 {
        (self.target as u32) << 16
            | (self.window as u32) << 8
            | (self.phase as u32) << 6
            | (self.op as u32 & 0x3F)
    }

    /// The event `word` holds, if it is one.
    pub fn from_word(word: u32) -> Option<Self> {
        let op = Op::ALL.into_iter().find(|o| *o as u32 == word & 0x3F)?;
        let phase = match (word >> 6) & 3 {
            0 => Phase::Begin,
            1 => Phase::End,
            2 => Phase::Instant,
            _ => return None,
        };
        Some(Self {
            op,
            phase,
            window: (word >> 8) as u8,
            target: (word >> 16) as u16,
        })
    }
}

/// One event of a core's trace file: its modelled time, the event's word
/// and its argument (bytes moved, or 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The core's modelled clock, in core cycles.
    pub cycles: u64,
    /// [`Event::word`].
    pub word: u32,
    /// Bytes the op moved, or 0.
    pub arg: u32,
}

impl Record {
    /// Bytes per record in a trace file (little-endian cycles, word, arg).
    pub const BYTES: usize = 16;

    /// The record as stored.
    pub fn to_bytes(self) -> [u8; Self::BYTES] {
        let mut b = [0; Self::BYTES];
        b[..8].copy_from_slice(&self.cycles.to_le_bytes());
        b[8..12].copy_from_slice(&self.word.to_le_bytes());
        b[12..].copy_from_slice(&self.arg.to_le_bytes());
        b
    }

    /// A record read back.
    pub fn from_bytes(b: [u8; Self::BYTES]) -> Self {
        let word = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let mut cycles = [0; 8];
        cycles.copy_from_slice(&b[..8]);
        Self {
            cycles: u64::from_le_bytes(cycles),
            word: word(8),
            arg: word(12),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_survive_their_word() {
        for op in Op::ALL {
            for phase in [Phase::Begin, Phase::End, Phase::Instant] {
                let e = Event {
                    op,
                    phase,
                    window: 7,
                    target: 47,
                };
                assert_eq!(Event::from_word(e.word()), Some(e));
            }
        }
        let bare = Event::bare(Op::Fence, Phase::Begin);
        assert_eq!(Event::from_word(bare.word()), Some(bare));
        assert_eq!(Event::from_word(0x3F), None);
        assert_eq!(Event::from_word(3 << 6), None);
    }

    #[test]
    fn records_survive_their_bytes() {
        let r = Record {
            cycles: 1 << 40 | 5,
            word: Event::bare(Op::Put, Phase::End).word(),
            arg: 4096,
        };
        assert_eq!(Record::from_bytes(r.to_bytes()), r);
    }
}
