// SPDX-License-Identifier: MIT OR Apache-2.0
//! The window database: synchronisation data and window descriptions in
//! the legacy shared memory (LSM), accessed uncached only.
//!
//! Where a window's records lie is a per-window option ([`Database`]):
//! - [`Database::Distributed`] (the default; thesis 3.3, "distributed
//!   window database"): each core's record in the LSM page of its own
//!   memory controller, so the cores of one controller share its page
//!   and the mesh traffic spreads over all four;
//! - [`Database::Centralized`] (the thesis's first attempt, 3.4.5): every
//!   core's record in controller 0's page, so all synchronisation of the
//!   window crowds one controller and the mesh links towards it.
//!
//! POPSHM entries are always in the core's own controller's page.
//!
//! Layout of rma's bytes ([`LSM_RMA`]) of each controller's LSM page, one
//! 32-byte line per item, so no two writers share a line:
//!
//! | offset from `LSM_RMA.start` | what | written by |
//! |---|---|---|
//! | 0x000 | word 0: offset of the next free record (0: none handed out yet) | any core it serves, holding the allocation TSR |
//! | 0x020 + 32k | POPSHM entry of the controller's `k`-th core: magic, controller, first page, pages | that core |
//! | [`RECORDS`].. | window records, [`RECORD_BYTES`] each | see below |
//!
//! A window record of core `c` for one window:
//! - line 0 (written by `c`): magic, the window's offset in the POPSHM
//!   that holds it, its size in bytes, its displacement unit, for a
//!   dynamic window the offset of `c`'s attachment table at the record's
//!   controller (0 for other windows), and whose POPSHM holds the part:
//!   0 for `c`'s own, else that core's number + 1 (a part of a
//!   contiguous shared window lies in its rank 0's);
//! - line 1: the match vector: bit `t` of word `t / 32` set means rank `t`
//!   has posted to `c` (written under `c`'s TSR by `t` and by `c`);
//! - line 2: byte 0, the 8-bit completion counter (written by `c` at post
//!   and by origins under `c`'s TSR);
//! - line 3: word 0, GBH's local lock counter of `c`'s part (bit 0: held
//!   exclusively; bits 1-31: shared holders), changed by any origin under
//!   `c`'s TSR ([`crate::passive`]);
//! - line 4: word 0, GBH's global counter, used in rank 0's record only
//!   (bits 0-15: exclusive lockers, bits 16-31: `lock_all` holders),
//!   changed under rank 0's TSR;
//! - line 5: MCS-WP's lock of `c`'s part ([`crate::passive::mcs`]), one
//!   word each: the state (bit 0 `WFLAG1`, bit 1 `WFLAG2`, bit 2 `RFLAG`,
//!   bits 3-31 the reader count), the reader stack's head, the writer
//!   queue's tail and its head; the first three changed by any origin
//!   under `c`'s TSR, the head stored by the writer that sets it;
//! - from line 6 ([`NODES`]), one MCS-WP queue node per core of the run
//!   ([`record_bytes`]) of `c` as an origin, 8 bytes each, node `t` for its locks on rank `t`: word 0
//!   `next` (a writer's successor, stored by that successor), word 1
//!   `blocked` (polled by `c` only, cleared by whoever wakes it). Node
//!   references are ranks + 1, 0 for nil. `c` writes both words before it
//!   publishes the node, so they are not cleared with the record.
//!
//! An attachment table of core `c` for one dynamic window
//! ([`table_bytes`], at the controller of `c`'s record of the window)
//! lists the memory `c` attached, written
//! by `c` only, read by origins to check their accesses:
//! - line 0: word 0, the sequence number, odd while `c` changes the
//!   table (a reader that finds it odd, or changed after it read the
//!   entries, reads again); word 1, the number of entries; word 2, where
//!   the table moved (0 while it has not); word 3, the entries it has room
//!   for;
//! - from line 1, that many entries of 12 bytes: the address accesses
//!   name the attached memory by (its first byte's; the POPSHM offset
//!   unless [`super::Rma::attach_at`] gave another), its bytes, and its
//!   offset in `c`'s POPSHM.
//!
//! The first table takes a record's bytes ([`first_table_entries`]). When
//! it is full, `c` writes every entry into a table twice as large at the
//! same controller, then the new table's offset into word 2 of the old
//! one ([`move_table`]): a reader that finds it there reads the new table
//! and keeps reading there. Old tables stay the window's until it is
//! freed (a reader may still look at one); grown tables' bytes are not
//! reused.
//!
//! Allocating a record takes the TSR of the even-numbered core next to the
//! controller that will hold it (core 0 of the tile the controller hangs
//! off), as in the thesis (3.3). Records are never returned to the shared
//! allocator; a core reuses the records of its own freed windows, but only
//! for a window whose placement puts its record at the same controller.
#![forbid(unsafe_code)]

use alloc::vec::Vec;

use chip::{CACHE_LINE, Chip, CoreId};

use crate::RmaError;
use crate::hal::{DramPages, LSM_RMA, Lsm, Topology, Tsr, Wait};

const LINE: u32 = CACHE_LINE as u32;
/// The allocation word.
pub const ALLOC: u32 = LSM_RMA.start;
/// The first POPSHM entry.
pub const POPSHM_TABLE: u32 = LSM_RMA.start + LINE;
/// POPSHM entries per controller.
pub const POPSHM_ENTRIES: u32 = 63;
/// The first record.
pub const RECORDS: u32 = POPSHM_TABLE + POPSHM_ENTRIES * LINE;
/// Offset of MCS-WP's lock words in a record.
pub const MCS_LOCK: u32 = 5 * LINE;
/// Offset of the first MCS-WP queue node in a record.
pub const NODES: u32 = 6 * LINE;
/// Bytes per MCS-WP queue node.
pub const NODE_BYTES: u32 = 8;
/// Bytes of the largest window record: one with a queue node for each of
/// [`MATCH_BITS`] ranks. A run's records have a node per core of the run
/// ([`record_bytes`]).
pub const RECORD_BYTES: u32 = NODES + MATCH_BITS * NODE_BYTES;
/// Offset of the match vector in a record.
pub const MATCH: u32 = LINE;
/// Offset of the completion counter in a record.
pub const COUNTER: u32 = 2 * LINE;
/// Offset of GBH's local lock counter in a record.
pub const LOCK: u32 = 3 * LINE;
/// Offset of GBH's global counter in a record (rank 0's only).
pub const GLOBAL: u32 = 4 * LINE;
/// Ranks a match vector has bits for.
pub const MATCH_BITS: u32 = LINE * 8;
/// Offset of the attachment table's location in a record.
const TABLE: u32 = 16;
/// Offset of the core whose POPSHM holds the part, in a record.
const HOME: u32 = 20;

/// Bytes of a window record in a run of `cores` cores: the fixed lines
/// and a queue node for each core (a window has at most that many ranks),
/// whole lines.
pub const fn record_bytes(cores: u32) -> u32 {
    NODES + (cores * NODE_BYTES).next_multiple_of(LINE)
}

/// Memory regions the first attachment table of a dynamic window lists
/// in a run of `cores` cores: it takes a record's bytes, so freed records
/// and first tables serve each other. A full table grows
/// ([`table_bytes`], [`move_table`]).
pub const fn first_table_entries(cores: u32) -> u32 {
    (record_bytes(cores) - LINE) / ENTRY
}

/// Bytes of an attachment table's entry: address, bytes, offset.
const ENTRY: u32 = 12;

/// Bytes of an attachment table that lists `entries` regions.
pub const fn table_bytes(entries: u32) -> u32 {
    LINE + ENTRY * entries
}

/// Marks a valid POPSHM entry ("POPS").
const POPSHM_MAGIC: u32 = 0x504F_5053;
/// Marks a valid window record ("WIND").
const RECORD_MAGIC: u32 = 0x5749_4E44;

const _: () = assert!(RECORDS.is_multiple_of(LINE) && RECORDS < LSM_RMA.end);
const _: () = assert!(RECORD_BYTES.is_multiple_of(LINE) && record_bytes(1).is_multiple_of(LINE));

/// Where a record lies: a controller's LSM page and the offset there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The controller.
    pub controller: usize,
    /// Offset of the record in the controller's LSM page.
    pub offset: u32,
}

impl Record {
    /// The match-vector word holding `rank`'s bit, and the bit.
    pub const fn match_word(self, rank: u32) -> (u32, u32) {
        (self.offset + MATCH + rank / 32 * 4, 1 << (rank % 32))
    }

    /// The completion counter's byte.
    pub const fn counter(self) -> u32 {
        self.offset + COUNTER
    }

    /// GBH's local lock counter's word.
    pub const fn lock(self) -> u32 {
        self.offset + LOCK
    }

    /// GBH's global counter's word (meaningful in rank 0's record).
    pub const fn global(self) -> u32 {
        self.offset + GLOBAL
    }

    /// The first of MCS-WP's four lock words.
    pub const fn mcs_lock(self) -> u32 {
        self.offset + MCS_LOCK
    }

    /// The MCS-WP queue node of this record's core for its locks on
    /// `target`.
    pub const fn node(self, target: u32) -> u32 {
        self.offset + NODES + target * NODE_BYTES
    }
}

/// What a record says about its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowInfo {
    /// Offset of the window in the POPSHM that holds it ([`Self::home`]).
    pub offset: u32,
    /// Bytes.
    pub size: u32,
    /// Displacement unit.
    pub disp_unit: u32,
    /// Offset of the attachment table of a dynamic window at the record's
    /// controller; 0 for other windows.
    pub table: u32,
    /// The core whose POPSHM holds the part, as its number + 1; 0 for the
    /// record's own core. A contiguous shared window's parts all lie in
    /// the POPSHM of its rank 0.
    pub home: u32,
}

/// Where a window's records lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Database {
    /// Each core's record at its own memory controller.
    #[default]
    Distributed,
    /// Every core's record at controller 0.
    Centralized,
}

/// The names a program's `database` setting gives.
impl chip::settings::Choice for Database {
    const ALL: &'static [Self] = &[Self::Distributed, Self::Centralized];
    const NAMES: &'static [&'static str] = &["distributed", "centralized"];
}

impl Database {
    /// The controller whose LSM holds `core`'s records of a window with
    /// this placement.
    pub fn controller(self, chip: &Chip, core: CoreId) -> usize {
        match self {
            Self::Distributed => controller_of(chip, core),
            Self::Centralized => 0,
        }
    }
}

/// The controller whose LSM holds `core`'s POPSHM entry (and its records
/// in the distributed database).
pub fn controller_of(chip: &Chip, core: CoreId) -> usize {
    chip.controller_of(chip.tile_of(core))
}

/// The core whose TSR guards record allocation at `controller`.
pub fn allocation_lock(chip: &Chip, controller: usize) -> CoreId {
    let port = chip.memory_controllers[controller].port;
    let tile = chip
        .tile_at(port.tile)
        .expect("a validated chip's controllers attach to its tiles");
    chip.core_on(tile, 0).expect("every tile has a core 0")
}

/// `Err(NoMemory)` unless the chip's controllers serve few enough cores
/// for the POPSHM table and the run has few enough for a match vector.
pub fn check_fits(chip: &Chip, cores: u32) -> Result<(), RmaError> {
    let most = (0..chip.memory_controllers.len())
        .map(|mc| chip.cores_served(mc))
        .max()
        .unwrap_or(0);
    if most > POPSHM_ENTRIES {
        return Err(RmaError::NoMemory {
            what: "window database POPSHM table entries",
            requested: most.into(),
            available: POPSHM_ENTRIES.into(),
        });
    }
    if cores > MATCH_BITS {
        return Err(RmaError::NoMemory {
            what: "match vector bits",
            requested: cores.into(),
            available: MATCH_BITS.into(),
        });
    }
    Ok(())
}

fn popshm_entry(chip: &Chip, core: CoreId) -> (usize, u32) {
    (
        controller_of(chip, core),
        POPSHM_TABLE + chip.rank_at_controller(core) * LINE,
    )
}

/// Publishes this core's POPSHM location.
pub fn publish_popshm<H: Topology + Lsm>(hal: &H, pages: DramPages) {
    let (mc, at) = popshm_entry(hal.chip(), hal.core());
    hal.lsm_write_u32(mc, at + 4, pages.controller as u32);
    hal.lsm_write_u32(mc, at + 8, pages.first.into());
    hal.lsm_write_u32(mc, at + 12, pages.count);
    hal.lsm_write_u32(mc, at, POPSHM_MAGIC);
}

/// Reads `core`'s published POPSHM location.
///
/// Return values: `Err(Database)` if the entry is missing or malformed.
pub fn read_popshm<H: Topology + Lsm>(hal: &H, core: CoreId) -> Result<DramPages, RmaError> {
    let chip = hal.chip();
    let (mc, at) = popshm_entry(chip, core);
    let bad = RmaError::Database {
        what: "POPSHM entry",
        core: core.index() as u32,
    };
    if hal.lsm_read_u32(mc, at) != POPSHM_MAGIC {
        return Err(bad);
    }
    let controller = hal.lsm_read_u32(mc, at + 4) as usize;
    let first = hal.lsm_read_u32(mc, at + 8);
    let count = hal.lsm_read_u32(mc, at + 12);
    if controller >= chip.memory_controllers.len() || first > 0x3FF || count == 0 {
        return Err(bad);
    }
    Ok(DramPages {
        controller,
        first: first as u16,
        count,
    })
}

/// Takes a fresh record for this core at the controller `placement`
/// names ([`record_bytes`] of the run's cores).
///
/// Return values: `Err(NoMemory)` when that controller's database is full.
pub fn allocate_record<H: Topology + Lsm + Tsr>(
    hal: &H,
    placement: Database,
) -> Result<Record, RmaError> {
    let controller = placement.controller(hal.chip(), hal.core());
    allocate(hal, controller, record_bytes(hal.cores()))
}

/// Takes a fresh attachment table for `entries` regions at `controller`.
///
/// Return values: `Err(NoMemory)` when that controller's database is full.
pub fn allocate_table<H: Topology + Lsm + Tsr>(
    hal: &H,
    controller: usize,
    entries: u32,
) -> Result<Record, RmaError> {
    allocate(hal, controller, table_bytes(entries))
}

/// Takes `bytes` (whole lines) of `controller`'s database.
fn allocate<H: Topology + Lsm + Tsr>(
    hal: &H,
    controller: usize,
    bytes: u32,
) -> Result<Record, RmaError> {
    let bytes = bytes.next_multiple_of(LINE);
    let lock = allocation_lock(hal.chip(), controller);
    hal.tsr_acquire(lock);
    let next = match hal.lsm_read_u32(controller, ALLOC) {
        0 => RECORDS,
        n => n,
    };
    let fits = u64::from(next) + u64::from(bytes) <= u64::from(LSM_RMA.end);
    if fits {
        hal.lsm_write_u32(controller, ALLOC, next + bytes);
    }
    hal.tsr_release(lock);
    if !fits {
        return Err(RmaError::NoMemory {
            what: "window database bytes (records and attachment tables)",
            requested: bytes.into(),
            available: (LSM_RMA.end - next).into(),
        });
    }
    Ok(Record {
        controller,
        offset: next,
    })
}

/// Fills `record` for a new window: its description, an empty match
/// vector, a zero completion counter and, with `locks`, free locks.
///
/// Every line of the record is then read once as a poll, while no other
/// core knows the record: under modelled time, stores to a line are
/// ordered among the cores only once some poll has read it, so the first
/// poll of a word other cores store to (PSCW's match vector and completion
/// counter, GBH's global counter in `lock_all`, an MCS-WP queue node)
/// would see another core's store from after its start, or miss it, by
/// host order.
pub fn write_record<H: Topology + Lsm + Wait>(
    hal: &H,
    record: Record,
    info: WindowInfo,
    locks: bool,
) {
    let mc = record.controller;
    for word in 0..MATCH_BITS / 32 {
        hal.lsm_write_u32(mc, record.offset + MATCH + 4 * word, 0);
    }
    hal.lsm_write_u32(mc, record.counter(), 0);
    const _: () = assert!(MATCH_BITS / 8 == LINE && MATCH.is_multiple_of(LINE));
    // A window made with no_locks is never locked: its lock words stay as
    // they are.
    if locks {
        hal.lsm_write_u32(mc, record.lock(), 0);
        hal.lsm_write_u32(mc, record.global(), 0);
        for word in 0..4 {
            hal.lsm_write_u32(mc, record.mcs_lock() + 4 * word, 0);
        }
    }
    hal.lsm_write_u32(mc, record.offset + 4, info.offset);
    hal.lsm_write_u32(mc, record.offset + 8, info.size);
    hal.lsm_write_u32(mc, record.offset + 12, info.disp_unit);
    hal.lsm_write_u32(mc, record.offset + TABLE, info.table);
    hal.lsm_write_u32(mc, record.offset + HOME, info.home);
    hal.lsm_write_u32(mc, record.offset, RECORD_MAGIC);
    read_as_polls(hal, record, record_bytes(hal.cores()));
}

/// Reads every line of the `bytes` at `at` once, as polls: under modelled
/// time, stores to a line are ordered among the cores only once some poll
/// has read it. For words other cores will poll and store to, while no
/// other core knows them yet.
fn read_as_polls<H: Lsm + Wait>(hal: &H, at: Record, bytes: u32) {
    let lines = bytes.div_ceil(LINE);
    for first in (0..lines).step_by(POLL_LINES as usize) {
        hal.read_ordered(|| {
            for line in first..lines.min(first + POLL_LINES) {
                hal.lsm_read_u32(at.controller, at.offset + line * LINE);
            }
        });
    }
}

/// Lines read in one poll by [`read_as_polls`]: well below the lines a
/// poll can watch under the emulator (64).
const POLL_LINES: u32 = 32;

/// Marks `record` as describing no window.
pub fn clear_record<H: Lsm>(hal: &H, record: Record) {
    hal.lsm_write_u32(record.controller, record.offset, 0);
}

/// Reads the window `core` described in `record`.
///
/// Return values: `Err(Database)` if the record is not a valid one.
pub fn read_record<H: Lsm + Topology>(
    hal: &H,
    core: CoreId,
    record: Record,
) -> Result<WindowInfo, RmaError> {
    let mc = record.controller;
    let valid = record.offset >= RECORDS
        && record.offset + record_bytes(hal.cores()) <= LSM_RMA.end
        && hal.lsm_read_u32(mc, record.offset) == RECORD_MAGIC;
    if !valid {
        return Err(RmaError::Database {
            what: "window record",
            core: core.index() as u32,
        });
    }
    Ok(WindowInfo {
        offset: hal.lsm_read_u32(mc, record.offset + 4),
        size: hal.lsm_read_u32(mc, record.offset + 8),
        disp_unit: hal.lsm_read_u32(mc, record.offset + 12),
        table: hal.lsm_read_u32(mc, record.offset + TABLE),
        home: hal.lsm_read_u32(mc, record.offset + HOME),
    })
}

/// A memory region of an attachment table: the address accesses name
/// its first byte by, its bytes, and its offset in the owner's POPSHM.
pub type Region = (u32, u32, u32);

/// Empties the attachment table at `table`, with room for `entries`,
/// sequence number `sequence` (even). Its lines are then read once as
/// polls, before other cores know the table: they poll it while its owner
/// attaches and detaches ([`write_record`] says why).
pub fn clear_table<H: Lsm + Wait>(hal: &H, table: Record, entries: u32, sequence: u32) {
    hal.lsm_write_u32(table.controller, table.offset + 4, 0);
    hal.lsm_write_u32(table.controller, table.offset + 8, 0);
    hal.lsm_write_u32(table.controller, table.offset + 12, entries);
    hal.lsm_write_u32(table.controller, table.offset, sequence);
    read_as_polls(hal, table, table_bytes(entries));
}

/// Tells readers of the full table `old` that it moved to `new` (at the
/// same controller), which lists every region already.
pub fn move_table<H: Lsm>(hal: &H, old: Record, new: Record) {
    debug_assert_eq!(old.controller, new.controller);
    hal.lsm_write_u32(old.controller, old.offset + 8, new.offset);
}

/// What a reader found in an attachment table ([`read_table`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRead {
    /// The sequence number it knew: nothing changed.
    Known(u32),
    /// A new sequence number, and the regions listed under it.
    Changed(u32, Vec<Region>),
    /// The table moved to this offset at its controller.
    Moved(u32),
}

/// Changes the attachment table at `table`, whose sequence number is
/// `sequence` (even), to list `regions`, of which those at `changed`
/// differ from what it lists; returns the new sequence number.
pub fn write_table<H: Lsm>(
    hal: &H,
    table: Record,
    sequence: u32,
    regions: &[Region],
    changed: core::ops::Range<usize>,
) -> u32 {
    let mc = table.controller;
    debug_assert!(
        sequence.is_multiple_of(2)
            && regions.len() <= hal.lsm_read_u32(mc, table.offset + 12) as usize
    );
    hal.lsm_write_u32(mc, table.offset, sequence.wrapping_add(1));
    for (k, &(address, bytes, offset)) in regions
        .iter()
        .enumerate()
        .take(changed.end)
        .skip(changed.start)
    {
        let at = table.offset + LINE + ENTRY * k as u32;
        hal.lsm_write_u32(mc, at, address);
        hal.lsm_write_u32(mc, at + 4, bytes);
        hal.lsm_write_u32(mc, at + 8, offset);
    }
    hal.lsm_write_u32(mc, table.offset + 4, regions.len() as u32);
    let next = sequence.wrapping_add(2);
    hal.lsm_write_u32(mc, table.offset, next);
    next
}

/// Reads the attachment table at `table` once, as a poll: `None` if its
/// owner was changing it (read again); else what it found ([`TableRead`]).
pub fn read_table<H: Lsm>(hal: &H, table: Record, known: u32) -> Option<TableRead> {
    let mc = table.controller;
    let sequence = hal.lsm_read_u32(mc, table.offset);
    if !sequence.is_multiple_of(2) {
        return None;
    }
    match hal.lsm_read_u32(mc, table.offset + 8) {
        0 => {}
        moved => return Some(TableRead::Moved(moved)),
    }
    if sequence == known {
        return Some(TableRead::Known(sequence));
    }
    let room = hal.lsm_read_u32(mc, table.offset + 12);
    let count = hal.lsm_read_u32(mc, table.offset + 4).min(room);
    let regions = (0..count)
        .map(|k| {
            let at = table.offset + LINE + ENTRY * k;
            (
                hal.lsm_read_u32(mc, at),
                hal.lsm_read_u32(mc, at + 4),
                hal.lsm_read_u32(mc, at + 8),
            )
        })
        .collect();
    (hal.lsm_read_u32(mc, table.offset) == sequence)
        .then_some(TableRead::Changed(sequence, regions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hal::SharedDram;
    use crate::hal::mock::Mock;

    /// A core of a mock run that notes the LSM lines it reads inside
    /// [`Wait::read_ordered`].
    struct Polled<'a> {
        hal: &'a Mock,
        inside: core::cell::Cell<bool>,
        lines: core::cell::RefCell<std::collections::BTreeSet<(usize, u32)>>,
    }

    impl<'a> Polled<'a> {
        fn new(hal: &'a Mock) -> Self {
            Self {
                hal,
                inside: core::cell::Cell::new(false),
                lines: core::cell::RefCell::new(std::collections::BTreeSet::new()),
            }
        }

        fn note(&self, controller: usize, offset: u32) {
            if self.inside.get() {
                self.lines.borrow_mut().insert((controller, offset / LINE));
            }
        }
    }

    impl Topology for Polled<'_> {
        fn chip(&self) -> &'static Chip {
            self.hal.chip()
        }
        fn core(&self) -> CoreId {
            self.hal.core()
        }
        fn cores(&self) -> u32 {
            self.hal.cores()
        }
    }

    impl Lsm for Polled<'_> {
        fn lsm_read_u32(&self, controller: usize, offset: u32) -> u32 {
            self.note(controller, offset);
            self.hal.lsm_read_u32(controller, offset)
        }
        fn lsm_write_u32(&self, controller: usize, offset: u32, value: u32) {
            self.hal.lsm_write_u32(controller, offset, value);
        }
        fn lsm_read(&self, controller: usize, offset: u32, buf: &mut [u8]) {
            self.note(controller, offset);
            self.hal.lsm_read(controller, offset, buf);
        }
        fn lsm_write(&self, controller: usize, offset: u32, data: &[u8]) {
            self.hal.lsm_write(controller, offset, data);
        }
    }

    impl Wait for Polled<'_> {
        fn wait_for<T>(&self, ready: impl FnMut() -> Option<T>) -> T {
            self.hal.wait_for(ready)
        }
        fn read_ordered<T>(&self, read: impl FnOnce() -> T) -> T {
            self.inside.set(true);
            let value = read();
            self.inside.set(false);
            value
        }
    }

    /// The lines of the `bytes` at `at`, as [`Polled`] notes them.
    fn lines_of(at: Record, bytes: u32) -> std::collections::BTreeSet<(usize, u32)> {
        let first = at.offset / LINE;
        (first..first + bytes.div_ceil(LINE))
            .map(|line| (at.controller, line))
            .collect()
    }

    #[test]
    fn a_new_record_has_every_line_read_in_a_poll() {
        // 48 cores: 18 lines, more than one poll's share.
        let lines = Mock::run(48, |hal| {
            let polled = Polled::new(hal);
            let record = allocate_record(hal, Database::Distributed).unwrap();
            let info = WindowInfo {
                offset: 0,
                size: 64,
                disp_unit: 1,
                table: 0,
                home: 0,
            };
            write_record(&polled, record, info, true);
            (
                polled.lines.into_inner(),
                lines_of(record, record_bytes(48)),
            )
        });
        for (read, expected) in lines {
            assert_eq!(read, expected);
        }
    }

    #[test]
    fn a_cleared_table_has_every_line_read_in_a_poll() {
        let lines = Mock::run(2, |hal| {
            let polled = Polled::new(hal);
            // 200 entries: 76 lines, more than two polls' share.
            let table = allocate_table(hal, 0, 200).unwrap();
            clear_table(&polled, table, 200, 0);
            (polled.lines.into_inner(), lines_of(table, table_bytes(200)))
        });
        for (read, expected) in lines {
            assert_eq!(read, expected);
        }
    }

    #[test]
    fn the_allocation_lock_is_core_0_of_the_controller_s_tile() {
        let platform = &chip::SCC;
        let locks: std::vec::Vec<usize> = (0..4)
            .map(|mc| allocation_lock(platform, mc).index())
            .collect();
        // Controllers at tiles (0,0), (5,0), (0,2), (5,2): tiles 0, 5, 12, 17.
        assert_eq!(locks, [0, 10, 24, 34]);
        assert!(check_fits(platform, 48).is_ok());
    }

    #[test]
    fn records_are_distinct_per_controller_and_round_trip() {
        let records = Mock::run(24, |hal| {
            let mine: std::vec::Vec<Record> = (0..5)
                .map(|_| allocate_record(hal, Database::Distributed).unwrap())
                .collect();
            for (i, &r) in mine.iter().enumerate() {
                let info = WindowInfo {
                    offset: 4096 * i as u32,
                    size: hal.rank() * 100 + i as u32,
                    disp_unit: 4,
                    table: RECORDS + i as u32,
                    home: i as u32,
                };
                write_record(hal, r, info, true);
                assert_eq!(read_record(hal, hal.core(), r), Ok(info));
            }
            publish_popshm(hal, hal.popshm());
            assert_eq!(read_popshm(hal, hal.core()), Ok(hal.popshm()));
            mine
        });
        let mut all: std::vec::Vec<(usize, u32)> = records
            .iter()
            .flatten()
            .map(|r| (r.controller, r.offset))
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 120, "no record handed out twice");
    }

    #[test]
    fn centralized_records_all_lie_at_controller_0() {
        let records = Mock::run(48, |hal| {
            let central: std::vec::Vec<Record> = (0..3)
                .map(|_| allocate_record(hal, Database::Centralized).unwrap())
                .collect();
            let own = allocate_record(hal, Database::Distributed).unwrap();
            assert_eq!(own.controller, controller_of(hal.chip(), hal.core()));
            for (i, &r) in central.iter().enumerate() {
                let info = WindowInfo {
                    offset: 4096 * i as u32,
                    size: hal.rank() * 100 + i as u32,
                    disp_unit: 1,
                    table: 0,
                    home: 0,
                };
                write_record(hal, r, info, true);
                assert_eq!(read_record(hal, hal.core(), r), Ok(info));
            }
            (central, own)
        });
        let mut central: std::vec::Vec<u32> = std::vec::Vec::new();
        for (records, _) in &records {
            for r in records {
                assert_eq!(r.controller, 0, "a centralized record elsewhere");
                central.push(r.offset);
            }
        }
        central.sort();
        central.dedup();
        assert_eq!(central.len(), 3 * 48, "no record handed out twice");
        // Every controller got distributed records, and controller 0's
        // share never overlaps the centralized ones.
        let mut controllers: std::vec::Vec<usize> =
            records.iter().map(|(_, own)| own.controller).collect();
        controllers.dedup();
        controllers.sort();
        controllers.dedup();
        assert_eq!(controllers, [0, 1, 2, 3]);
        for (_, own) in records.iter().filter(|(_, own)| own.controller == 0) {
            assert!(central.binary_search(&own.offset).is_err());
        }
    }

    #[test]
    fn a_full_database_is_reported() {
        Mock::run(1, |hal| {
            let bytes = record_bytes(1);
            assert_eq!(bytes, 7 * LINE, "six lines and one line of nodes");
            hal.lsm_write_u32(0, ALLOC, LSM_RMA.end - bytes - 32);
            let last = allocate_record(hal, Database::Distributed).unwrap();
            assert_eq!(last.offset, LSM_RMA.end - bytes - 32);
            let e = allocate_record(hal, Database::Distributed).unwrap_err();
            assert_eq!(
                e,
                RmaError::NoMemory {
                    what: "window database bytes (records and attachment tables)",
                    requested: bytes.into(),
                    available: 32,
                }
            );
            assert_eq!(e.class(), crate::ErrorClass::NoMem);
        });
    }

    #[test]
    fn missing_entries_are_reported_with_their_core() {
        Mock::run(1, |hal| {
            let e = read_popshm(hal, hal.core()).unwrap_err();
            assert_eq!(
                e.to_string(),
                "MPI_ERR_INTERN: the window database holds no valid POPSHM entry of core 0"
            );
            let r = Record {
                controller: 0,
                offset: RECORDS,
            };
            assert!(read_record(hal, hal.core(), r).is_err());
        });
    }

    #[test]
    fn attachment_tables_round_trip_and_a_change_under_way_is_read_again() {
        Mock::run(1, |hal| {
            let table = allocate_record(hal, Database::Distributed).unwrap();
            let entries = first_table_entries(hal.cores());
            clear_table(hal, table, entries, 0);
            assert_eq!(
                read_table(hal, table, u32::MAX),
                Some(TableRead::Changed(0, vec![]))
            );
            let regions = [(0, 12, 0), (8192, 4096, 8192), (1 << 30, 1, 65536)];
            let sequence = write_table(hal, table, 0, &regions, 0..3);
            assert_eq!(sequence, 2);
            let read = read_table(hal, table, 0);
            assert_eq!(read, Some(TableRead::Changed(2, regions.to_vec())));
            assert_eq!(read_table(hal, table, 2), Some(TableRead::Known(2)));
            // The first entry gone, the last moved into its place: only
            // that entry is written again.
            let fewer = [(1 << 30, 1, 65536), (8192, 4096, 8192)];
            assert_eq!(write_table(hal, table, 2, &fewer, 0..1), 4);
            assert_eq!(
                read_table(hal, table, 2),
                Some(TableRead::Changed(4, fewer.to_vec()))
            );
            // A change under way: odd.
            hal.lsm_write_u32(table.controller, table.offset, 5);
            assert_eq!(read_table(hal, table, 4), None);
            // A full table holds its entries.
            let full: std::vec::Vec<Region> =
                (0..entries).map(|k| (4096 * k, k + 1, 8 * k)).collect();
            let sequence = write_table(hal, table, 6, &full, 0..full.len());
            let read = read_table(hal, table, sequence - 2).unwrap();
            assert_eq!(read, TableRead::Changed(sequence, full.clone()));
            // It moves to a table twice as large, which readers find.
            let grown = allocate_table(hal, table.controller, 2 * entries).unwrap();
            clear_table(hal, grown, 2 * entries, sequence);
            let more: std::vec::Vec<Region> =
                (0..=entries).map(|k| (4096 * k, k + 1, 8 * k)).collect();
            let after = write_table(hal, grown, sequence, &more, 0..more.len());
            move_table(hal, table, grown);
            assert_eq!(
                read_table(hal, table, sequence),
                Some(TableRead::Moved(grown.offset))
            );
            assert_eq!(
                read_table(hal, grown, sequence),
                Some(TableRead::Changed(after, more))
            );
            assert!(grown.offset + table_bytes(2 * entries) <= LSM_RMA.end);
        });
    }
}
