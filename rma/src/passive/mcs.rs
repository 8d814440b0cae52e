// SPDX-License-Identifier: MIT OR Apache-2.0
//! MCS-WP: Mellor-Crummey and Scott's reader-writer queue lock with writer
//! preference, one lock per (window, target), on the SCC's uncached LSM
//! and test-and-set registers, as the passive-target reference sketches it
//! (Christgau & Schnor, 1.4); what the loom checks drive directly.
//!
//! Placement ([`crate::window::database`]): the lock `L` of rank `t`'s part
//! lies in `t`'s record, in the LSM of `t`'s controller; every
//! read-modify-write of its words (fetch-and-store, fetch-and-or,
//! fetch-and-and, add, compare-and-swap) is a read and a write under `t`'s
//! TSR. The queue node of origin `o` for target `t` lies in `o`'s record,
//! in the LSM of `o`'s controller, so a waiter polls only its own node (an
//! uncached read near itself, through the HAL's [`Wait`]). Nodes are named
//! by rank + 1 (0 is nil), not by address: each core maps the LSM itself.
//!
//! The lock: a state word (bit 0 [`WFLAG1`]: a writer is interested or
//! active; bit 1 [`WFLAG2`]: no more readers may enter for it; bit 2
//! [`RFLAG`]: a group of readers waits to be admitted; bits 3-31 the count
//! of admitted readers, [`RC_INCR`] each), the head of a stack of waiting
//! readers, and the tail and head of the FIFO queue of writers.
//!
//! - A writer appends its node to the writer queue. The first in line
//!   becomes the head writer ([`Mcs`]'s `set_next_writer`): it sets
//!   `WFLAG1`, closes the reader window with `WFLAG2` and may go when no
//!   reader is admitted; otherwise it waits on its node.
//! - A reader pushes its node on the reader stack; the first of a group
//!   sets `RFLAG` and, if no writer is interested, admits the group
//!   (`unblock_readers`): it counts one reader, takes the whole stack and
//!   wakes its top, which counts and wakes the next, and so on.
//! - A leaving writer hands the lock straight to the next writer, leaving
//!   the readers waiting; the last writer clears `WFLAG1|WFLAG2` and admits
//!   the waiting readers.
//! - The last reader to leave while `WFLAG2` is set wakes the head writer.
//!
//! # Which published form, and where ours differs
//! The reference's pseudo-code is its own reconstruction, named after the
//! flags of Intel TBB's `reader_writer_lock`, which calls itself "loosely
//! adapted" from Mellor-Crummey and Scott's pseudo-code of the
//! writer-preference queue lock (PPoPP 1991; `rw.html#s_wp` of their
//! pseudo-code pages). We checked it against TBB's published source
//! (`src/tbb/reader_writer_lock.cpp`, TBB 4.x, 2005-2012). Of Mellor-Crummey
//! and Scott's pseudo-code page only the opening part (the centralised
//! reader- and writer-preference locks) could be read; the queue-based
//! writer-preference section itself was not available to us. The
//! reference's reconstruction matches TBB's blocking paths step for step;
//! the hand-off between the head writer and the readers is therefore our
//! own, derived below and model-checked (`hal::loom`'s `mcs` checks).
//!
//! Where ours differs from the reference (and TBB), and why:
//! 1. **The head writer's wait for readers spins on its own node, not on
//!    `L.state`.** The reference waits "until state & WFLAG2" and then
//!    "until state < RC_INCR" on the lock word at the target, which would
//!    have every head writer poll the target's controller, against the
//!    paper's local spinning. Ours: `set_next_writer` sets `WFLAG1`; if
//!    the old state had `RFLAG`, a group of readers is being admitted and
//!    its `unblock_readers` (whose add comes after our or) closes the
//!    window, so `set_next_writer` returns; otherwise it sets `WFLAG2`
//!    itself and reads the reader count in the same atomic. The reader
//!    count and `WFLAG2` live in one word, so of the or that sets `WFLAG2`
//!    and the last reader's decrement exactly one sees the other: if the
//!    or sees count 0, the writer goes; else the reader that takes the
//!    count from 1 to 0 and sees `WFLAG2` wakes the head writer (the
//!    original's "local-only spinning, the last reader wakes the writer").
//!    While a group is admitted the count stays above 0 until its last
//!    member is counted: each member counts the next before waking it.
//! 2. **`unblock_readers` decides `WFLAG2` from its add's old value**, not
//!    from a second read of the state as the reference and TBB do: the
//!    old value has `WFLAG1` exactly when `set_next_writer`'s or came
//!    first and saw `RFLAG`, so exactly one of the two sets `WFLAG2`.
//! 3. **A leaving writer does not wait for readers on behalf of the next
//!    writer.** In TBB, the last writer that finds a successor still
//!    linking itself in runs `set_next_writer` for it, spinning on the
//!    state until the readers it has just admitted leave: `MPI_Win_unlock`
//!    would block on other processes' read epochs. Ours returns after
//!    waking the successor or leaving the wake to the last reader; the
//!    only wait left in unlock is for the successor's `next` link, on the
//!    leaving writer's own node.
//! 4. **`end_read` is a fetch-and-add**, and wakes the head writer as in 1.
//! 5. **A reader keeps its stack successor in a local variable**: only it
//!    reads it, so the node holds `next` for writers only.
//! 6. **Nodes are fixed, one per (origin, target) per window**, not one
//!    per lock call as in TBB: a node is free again when unlock returns
//!    (a writer's successor links itself before the writer's unlock reads
//!    `next` or fails its compare-and-swap, and every wake of a node
//!    happens before its owner's lock returns).
//! 7. TBB's non-blocking `try_lock` paths are left out: MPI has no try-lock.
//!
//! Writer preference holds for a writer that has linked itself into the
//! queue: readers arriving after that wait until the queue is empty. As
//! in the reference and TBB, a writer that swapped itself into the tail
//! but has not yet linked behind a leaving writer can be overtaken by
//! the readers that writer admits. Readers can starve under a continuous
//! stream of writers.
#![forbid(unsafe_code)]

use chip::CoreId;

use crate::hal::{Lsm, Tsr, Wait};
use crate::window::database::Record;

/// State: a writer is interested or active.
pub const WFLAG1: u32 = 0x1;
/// State: writers are interested and no more readers may enter.
pub const WFLAG2: u32 = 0x2;
/// State: a group of readers waits to be admitted.
pub const RFLAG: u32 = 0x4;
/// State: one admitted reader.
pub const RC_INCR: u32 = 0x8;
/// A nil node reference.
pub const NIL: u32 = 0;

/// The words of a lock, as offsets from its first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// Flags and reader count.
    State = 0,
    /// The top of the stack of waiting readers.
    ReaderHead = 4,
    /// The last writer in the queue.
    WriterTail = 8,
    /// The writer that holds or is next to get the lock.
    WriterHead = 12,
}

/// One MCS-WP lock: its words in the LSM and the core whose TSR guards them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lock {
    /// The target, whose TSR guards the words.
    pub owner: CoreId,
    /// The controller whose LSM page holds them.
    pub controller: usize,
    /// Offset of the state word there.
    pub offset: u32,
}

impl Lock {
    /// The lock of `owner`'s part, in its record.
    pub const fn of(owner: CoreId, record: Record) -> Self {
        Self {
            owner,
            controller: record.controller,
            offset: record.mcs_lock(),
        }
    }

    /// Reads a word (one uncached load, no TSR).
    pub fn read<H: Lsm>(self, hal: &H, word: Word) -> u32 {
        hal.lsm_read_u32(self.controller, self.offset + word as u32)
    }

    /// Stores a word without the TSR: for `WriterHead`, which only the
    /// writer that owns the queue's head stores.
    fn store<H: Lsm>(self, hal: &H, word: Word, value: u32) {
        hal.lsm_write_u32(self.controller, self.offset + word as u32, value);
    }

    /// Replaces a word by `f` of it under the owner's TSR; the old value.
    fn update<H: Lsm + Tsr>(self, hal: &H, word: Word, f: impl FnOnce(u32) -> u32) -> u32 {
        hal.tsr_acquire(self.owner);
        let old = self.read(hal, word);
        self.store(hal, word, f(old));
        hal.tsr_release(self.owner);
        old
    }

    fn fetch_and_store<H: Lsm + Tsr>(self, hal: &H, word: Word, new: u32) -> u32 {
        self.update(hal, word, |_| new)
    }

    fn fetch_or<H: Lsm + Tsr>(self, hal: &H, bits: u32) -> u32 {
        self.update(hal, Word::State, |s| s | bits)
    }

    fn fetch_and<H: Lsm + Tsr>(self, hal: &H, bits: u32) -> u32 {
        self.update(hal, Word::State, |s| s & bits)
    }

    fn fetch_add<H: Lsm + Tsr>(self, hal: &H, delta: u32) -> u32 {
        self.update(hal, Word::State, |s| s.wrapping_add(delta))
    }

    fn compare_and_swap<H: Lsm + Tsr>(self, hal: &H, word: Word, old: u32, new: u32) -> bool {
        self.update(hal, word, |v| if v == old { new } else { v }) == old
    }
}

/// One queue node: `{next, blocked}` in its origin's LSM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// The controller whose LSM page holds it.
    pub controller: usize,
    /// Offset of its `next` word there; `blocked` follows.
    pub offset: u32,
}

impl Node {
    /// The node of `record`'s core for its locks on `target`.
    pub const fn of(record: Record, target: u32) -> Self {
        Self {
            controller: record.controller,
            offset: record.node(target),
        }
    }

    /// The successor writer (a reference, [`NIL`] if none yet).
    pub fn next<H: Lsm>(self, hal: &H) -> u32 {
        hal.lsm_read_u32(self.controller, self.offset)
    }

    fn set_next<H: Lsm>(self, hal: &H, next: u32) {
        hal.lsm_write_u32(self.controller, self.offset, next);
    }

    /// Whether the owner still waits.
    pub fn blocked<H: Lsm>(self, hal: &H) -> bool {
        hal.lsm_read_u32(self.controller, self.offset + 4) != 0
    }

    fn set_blocked<H: Lsm>(self, hal: &H, blocked: bool) {
        hal.lsm_write_u32(self.controller, self.offset + 4, blocked.into());
    }
}

/// One origin's view of one lock: the lock, the origin's rank and where
/// each rank's node for this lock's target lies.
#[derive(Debug, Clone, Copy)]
pub struct Mcs<F> {
    /// The lock.
    pub lock: Lock,
    /// This origin's rank.
    pub rank: u32,
    /// The node of a rank for this lock.
    pub node_of: F,
}

impl<F: Fn(u32) -> Node> Mcs<F> {
    fn me(&self) -> u32 {
        self.rank + 1
    }

    fn mine(&self) -> Node {
        (self.node_of)(self.rank)
    }

    fn node(&self, reference: u32) -> Node {
        let rank = reference
            .checked_sub(1)
            .expect("a nil node reference is never followed");
        (self.node_of)(rank)
    }

    /// Polls this origin's node until someone clears `blocked`; the polls
    /// that found it set.
    fn wait_unblocked<H: Lsm + Wait>(&self, hal: &H) -> u64 {
        let mine = self.mine();
        let mut polls = 0;
        hal.wait_for(|| {
            if mine.blocked(hal) {
                polls += 1;
                None
            } else {
                Some(())
            }
        });
        polls
    }

    /// Takes the lock exclusively. Returns the polls of this origin's node
    /// that found it still blocked.
    pub fn lock_exclusive<H: Lsm + Tsr + Wait>(&self, hal: &H) -> u64 {
        let mine = self.mine();
        // Both words before the node is published: a waker may come at once.
        mine.set_next(hal, NIL);
        mine.set_blocked(hal, true);
        let pred = self.lock.fetch_and_store(hal, Word::WriterTail, self.me());
        if pred != NIL {
            self.node(pred).set_next(hal, self.me());
        } else if self.set_next_writer(hal, self.me()) {
            return 0;
        }
        self.wait_unblocked(hal)
    }

    /// Makes `writer` the head writer and closes the reader window for it.
    /// Returns whether it may go now (no reader admitted); if not, the
    /// last admitted reader to leave wakes it.
    fn set_next_writer<H: Lsm + Tsr>(&self, hal: &H, writer: u32) -> bool {
        // Before WFLAG1: whoever sees WFLAG2 later reads the head.
        self.lock.store(hal, Word::WriterHead, writer);
        if self.lock.fetch_or(hal, WFLAG1) & RFLAG != 0 {
            // A group's admission is under way; its unblock_readers will
            // see WFLAG1 and set WFLAG2 with the group counted.
            return false;
        }
        self.lock.fetch_or(hal, WFLAG2) < RC_INCR
    }

    /// Gives an exclusive lock back: to the next writer if one is linked,
    /// else to the waiting readers.
    pub fn unlock_exclusive<H: Lsm + Tsr + Wait>(&self, hal: &H) {
        let mine = self.mine();
        // A writer may be linking itself in at this moment.
        let next = hal.read_ordered(|| mine.next(hal));
        if next != NIL {
            // Writer to writer: the flags stay set, readers keep waiting.
            self.lock.store(hal, Word::WriterHead, next);
            self.node(next).set_blocked(hal, false);
            return;
        }
        if self.lock.fetch_and(hal, !(WFLAG1 | WFLAG2)) & RFLAG != 0 {
            self.unblock_readers(hal);
        }
        self.lock.store(hal, Word::WriterHead, NIL);
        if self
            .lock
            .compare_and_swap(hal, Word::WriterTail, self.me(), NIL)
        {
            return;
        }
        // A writer swapped itself in behind us and is about to link.
        let next = hal.wait_for(|| {
            let next = mine.next(hal);
            (next != NIL).then_some(next)
        });
        if self.set_next_writer(hal, next) {
            self.node(next).set_blocked(hal, false);
        }
    }

    /// Takes the lock shared. Returns the polls of this origin's node that
    /// found it still blocked.
    pub fn lock_shared<H: Lsm + Tsr + Wait>(&self, hal: &H) -> u64 {
        let mine = self.mine();
        mine.set_blocked(hal, true);
        let next = self.lock.fetch_and_store(hal, Word::ReaderHead, self.me());
        if next == NIL && self.lock.fetch_or(hal, RFLAG) & (WFLAG1 | WFLAG2) == 0 {
            self.unblock_readers(hal);
        }
        let polls = self.wait_unblocked(hal);
        if next != NIL {
            // Counted before it is woken, so the count stays above 0
            // until the group's last member is in.
            self.lock.fetch_add(hal, RC_INCR);
            self.node(next).set_blocked(hal, false);
        }
        polls
    }

    /// Admits the waiting group of readers: counts its top, closes the
    /// window if a writer became interested meanwhile, wakes the top.
    fn unblock_readers<H: Lsm + Tsr>(&self, hal: &H) {
        let old = self.lock.fetch_add(hal, RC_INCR - RFLAG);
        if old & (WFLAG1 | WFLAG2) == WFLAG1 {
            self.lock.fetch_or(hal, WFLAG2);
        }
        let head = self.lock.fetch_and_store(hal, Word::ReaderHead, NIL);
        self.node(head).set_blocked(hal, false);
    }

    /// Gives a shared lock back; the last reader out wakes a head writer
    /// that closed the window.
    pub fn unlock_shared<H: Lsm + Tsr>(&self, hal: &H) {
        let old = self.lock.fetch_add(hal, RC_INCR.wrapping_neg());
        if old & !(RC_INCR - 1) == RC_INCR && old & WFLAG2 != 0 {
            let writer = self.lock.read(hal, Word::WriterHead);
            self.node(writer).set_blocked(hal, false);
        }
    }
}
