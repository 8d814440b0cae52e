// SPDX-License-Identifier: MIT OR Apache-2.0
//! Synchronisation: locks, barriers and counters. None of them moves data
//! between caches and memory; a model puts [`Dsm::sync_write`] before a
//! release and [`Dsm::sync_read`] after an acquire (see the crate's
//! documentation).
//!
//! A lock is taken one of three ways ([`LockKind`]):
//!
//! - **Ticket** (the default): two words of the control region, the next
//!   ticket and the ticket served. Taking it is one fetch-and-increment
//!   of the first (rma's atomic under the test-and-set register of the
//!   region's core) and polls of the second until it shows the ticket;
//!   giving it up increments the second. Cores get the lock in the order
//!   they asked.
//! - **rma's passive-target locks**: the lock is an exclusive lock of its
//!   home rank on a window of its own, taken with the window's
//!   [`LockScheme`]. GBH and GBH with back-off spin on a counter guarded
//!   by the home core's test-and-set register; MCS-WP queues the waiters,
//!   each polling its own node. The home of lock `i` is rank `i` modulo
//!   the run's size, so locks spread over the cores' memory. The window
//!   is uncached and holds no data: its lock calls make no cache action
//!   either.
//! - **Hierarchical** (a cohort lock): a ticket lock word per tile, in the
//!   shared memory of the tile's first rank, in front of a global ticket
//!   lock. A core takes its tile's lock first, so only one core per tile
//!   competes for the global one. A holder that sees another core of its
//!   tile waiting hands it the global lock with the tile's, without
//!   giving it up, at most [`COHORT_PASSES`] times in a row (a stated
//!   bound: then the other tiles' cores get their turn).
//!
//! The barrier is rma's, whose arrival flags lie in every core's MPB.

use rma::hal::RmaHal;
use rma::{AccumulateOp, Assert, LockScheme, LockType, Window, WindowOptions};

use chip::MemoryType;

use crate::region::{Attribute, Distribution, Region};
use crate::{Dsm, DsmError, LINE, MAX_COUNTERS, MAX_LOCKS, MAX_SCOPES};

/// What taking a ticket adds to a lock word.
const WORD_NEXT: u32 = 1 << 16;

/// Times in a row a hierarchical lock's holder hands the global lock to
/// another core of its tile (a stated bound on how long the other tiles
/// wait behind one tile).
pub const COHORT_PASSES: u32 = 8;

/// Bytes into a tile's line of a hierarchical lock: its ticket lock word,
/// then whether the global lock came with the tile's (1) and how many
/// times in a row it did.
const COHORT_PASSED: u32 = 4;
const COHORT_RUN: u32 = 8;

/// A lock's handle: the same on every core for the same allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lock(pub u32);

/// A counter's handle: the same on every core for the same allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Counter(pub u32);

/// How a lock is taken (see the module's docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LockKind {
    /// A ticket lock over a fetch-and-increment in the control region.
    #[default]
    Ticket,
    /// rma's passive-target lock with this scheme, on a window of the
    /// lock's own.
    Rma(LockScheme),
    /// A ticket lock per tile in front of a global ticket lock, the
    /// global one handed on within a tile.
    Hierarchical,
}

impl LockKind {
    /// Its name, for errors.
    fn name(self) -> &'static str {
        match self {
            LockKind::Ticket => "ticket",
            LockKind::Rma(LockScheme::Gbh) => "GBH",
            LockKind::Rma(LockScheme::GbhBackoff) => "GBH with back-off",
            LockKind::Rma(LockScheme::McsWp) => "MCS-WP",
            LockKind::Hierarchical => "hierarchical",
        }
    }
}

/// Where a lock allocated on this core lies, by its kind.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// Its two control words.
    Ticket,
    /// Its window, its home rank and the window's scheme.
    Rma {
        window: Window<u32>,
        home: u32,
        scheme: LockScheme,
    },
    /// The region of its tiles' lines, and this core's tile's line in it
    /// (its global ticket lock is in the control words).
    Cohort { region: Region, line: u32 },
}

impl Place {
    /// The kind of lock that lies here.
    fn kind(self) -> LockKind {
        match self {
            Place::Ticket => LockKind::Ticket,
            Place::Rma { scheme, .. } => LockKind::Rma(scheme),
            Place::Cohort { .. } => LockKind::Hierarchical,
        }
    }
}

/// A lock allocated on this core: where it lies (and so how it is taken)
/// and whether this core holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LockState {
    place: Place,
    held: bool,
}

impl LockState {
    /// rma's lock's window, to free at the end.
    pub(crate) fn window(&self) -> Option<Window<u32>> {
        match self.place {
            Place::Rma { window, .. } => Some(window),
            _ => None,
        }
    }
}

impl<'h, H: RmaHal> Dsm<'h, H> {
    /// Counts an acquisition that began at `start` and polled `polls`
    /// times: a wait if it polled at all, and the lock service's time.
    fn record_acquire(&mut self, start: u64, polls: u64) {
        let end = self.now();
        if polls > 0 {
            self.stats.lock_waits += 1;
            self.stats.lock_wait_cycles += end.saturating_sub(start);
        }
        self.stats.lock.record(start, end);
    }

    /// Allocates a ticket lock, free. Every core allocates its locks in
    /// the same order; no message is sent.
    ///
    /// Return values: `Err(Exhausted)` past [`MAX_LOCKS`].
    pub fn lock_new(&mut self) -> Result<Lock, DsmError> {
        self.lock_new_kind(LockKind::Ticket)
    }

    /// Allocates a lock taken as `kind` says, free. Every core allocates
    /// its locks in the same order. A ticket lock sends no message; the
    /// others are collective, every core calling it: one of rma's makes
    /// the lock's window, a hierarchical one a region of a line per rank.
    ///
    /// Return values: `Err(Exhausted)` past [`MAX_LOCKS`]; `Err(Rma(..))`
    /// if the lock's window or region cannot be made.
    pub fn lock_new_kind(&mut self, kind: LockKind) -> Result<Lock, DsmError> {
        let id = self.locks.len() as u32;
        if id >= MAX_LOCKS {
            return Err(DsmError::Exhausted {
                what: "lock",
                max: MAX_LOCKS,
            });
        }
        let place = match kind {
            LockKind::Ticket => Place::Ticket,
            LockKind::Rma(scheme) => {
                let options = WindowOptions::new()
                    .memory_type(MemoryType::Ncm)
                    .lock_scheme(scheme);
                let window = self.rma.allocate::<u32>(1, options)?;
                Place::Rma {
                    window,
                    home: id % self.size(),
                    scheme,
                }
            }
            LockKind::Hierarchical => {
                // A line per rank, on that rank; a tile's is its first
                // rank's.
                let (region, _) =
                    self.alloc(self.size() * LINE, Distribution::Block, Attribute::Uncached)?;
                let tile = self.tile(self.rank())?;
                let first = (0..self.size())
                    .find(|&r| self.tile(r).is_ok_and(|t| t == tile))
                    .unwrap_or(self.rank());
                Place::Cohort {
                    region,
                    line: first * LINE,
                }
            }
        };
        self.locks.push(LockState { place, held: false });
        Ok(Lock(id))
    }

    /// The state of `lock`.
    fn lock_state(&self, lock: Lock) -> Result<LockState, DsmError> {
        self.locks
            .get(lock.0 as usize)
            .copied()
            .ok_or(DsmError::Exhausted {
                what: "lock (this one was never allocated here)",
                max: self.locks.len() as u32,
            })
    }

    /// Cores of this core's tile that took a ticket of hierarchical lock
    /// `lock` beyond the one served: those waiting in line, for tests.
    #[cfg(test)]
    pub(crate) fn tile_waiters(&mut self, lock: Lock) -> Result<u32, DsmError> {
        let Place::Cohort { region, line } = self.lock_state(lock)?.place else {
            return Ok(0);
        };
        let word: u32 = self.atomic(region, line, 0, AccumulateOp::NoOp)?;
        let taken = (word >> 16).wrapping_sub(word & 0xffff) & 0xffff;
        Ok(taken.saturating_sub(1))
    }

    /// The control words of ticket lock `lock`: next ticket, ticket
    /// served.
    fn lock_words(lock: Lock) -> (u32, u32) {
        let next = MAX_SCOPES + 2 * lock.0;
        (Self::control_at(next), Self::control_at(next + 1))
    }

    /// Takes `lock`, waiting (in modelled time, without spinning on the
    /// host) until it is this core's turn.
    ///
    /// Return values: `Err(Rma(..))` if a control word, the lock's window
    /// or its tile's line cannot be reached.
    pub fn lock(&mut self, lock: Lock) -> Result<(), DsmError> {
        let start = self.now();
        let state = self.lock_state(lock)?;
        let polls = match state.place {
            Place::Ticket => self.take_ticket(lock)?,
            Place::Rma { window, home, .. } => {
                let before = self.rma.stats(window)?;
                self.rma
                    .lock(window, LockType::Exclusive, home, Assert::NONE)?;
                let after = self.rma.stats(window)?;
                (after.polls + after.backoffs) - (before.polls + before.backoffs)
            }
            Place::Cohort { region, line } => {
                let local = self.take_word(region, line)?;
                // Read and cleared under the tile's lock: whether its last
                // holder handed the global lock on with it.
                let passed: u32 =
                    self.atomic(region, line + COHORT_PASSED, 0, AccumulateOp::Replace)?;
                local
                    + if passed == 1 {
                        0
                    } else {
                        self.take_ticket(lock)?
                    }
            }
        };
        self.locks[lock.0 as usize].held = true;
        self.record_acquire(start, polls);
        Ok(())
    }

    /// Takes ticket lock `lock`'s ticket and polls until it is served;
    /// returns the polls it made.
    fn take_ticket(&mut self, lock: Lock) -> Result<u64, DsmError> {
        let (next, served) = Self::lock_words(lock);
        let control = self.control;
        let ticket = self
            .rma
            .fetch_and_op(control, 0, next, 1u32, AccumulateOp::Sum)?;
        let hal = self.rma.hal();
        let rma = &mut self.rma;
        let mut polls = 0u64;
        let outcome =
            hal.wait_for(
                || match rma.fetch_and_op(control, 0, served, 0u32, AccumulateOp::NoOp) {
                    Ok(now) if now == ticket => Some(Ok(())),
                    Ok(_) => {
                        polls += 1;
                        None
                    }
                    Err(e) => Some(Err(e)),
                },
            );
        outcome?;
        Ok(polls)
    }

    /// Serves ticket lock `lock`'s next ticket.
    fn give_ticket(&mut self, lock: Lock) -> Result<(), DsmError> {
        let (_, served) = Self::lock_words(lock);
        self.rma
            .fetch_and_op(self.control, 0, served, 1u32, AccumulateOp::Sum)?;
        Ok(())
    }

    /// Takes ticket lock `lock` if it is free; whether it did.
    ///
    /// Return values: as [`Dsm::lock`]; `Err(Unsupported)` for one of
    /// rma's locks, which MPI's passive target gives no way to try, and
    /// for a hierarchical one.
    pub fn try_lock(&mut self, lock: Lock) -> Result<bool, DsmError> {
        let start = self.now();
        let state = self.lock_state(lock)?;
        if !matches!(state.place, Place::Ticket) {
            return Err(DsmError::Unsupported {
                call: "try_lock",
                what: state.place.kind().name(),
            });
        }
        let (next, served) = Self::lock_words(lock);
        let control = self.control;
        let now = self
            .rma
            .fetch_and_op(control, 0, served, 0u32, AccumulateOp::NoOp)?;
        // The lock is free when the next ticket is the one served: take
        // that ticket if nobody took it since.
        let old = self
            .rma
            .compare_and_swap(control, 0, next, now.wrapping_add(1), now)?;
        let got = old == now;
        if got {
            self.locks[lock.0 as usize].held = true;
        }
        self.stats.lock.record(start, self.now());
        Ok(got)
    }

    /// Gives `lock` up, to the next core in line.
    ///
    /// Return values: `Err(NotHeld)` if this core does not hold it.
    pub fn unlock(&mut self, lock: Lock) -> Result<(), DsmError> {
        let start = self.now();
        let state = self.lock_state(lock)?;
        if !state.held {
            return Err(DsmError::NotHeld(lock.0));
        }
        self.locks[lock.0 as usize].held = false;
        match state.place {
            Place::Ticket => self.give_ticket(lock)?,
            Place::Rma { window, home, .. } => self.rma.unlock(window, home)?,
            Place::Cohort { region, line } => {
                let word: u32 = self.atomic(region, line, 0, AccumulateOp::NoOp)?;
                // Tickets taken beyond this core's: cores of the tile in line.
                let waiting = (word >> 16).wrapping_sub(word & 0xffff) & 0xffff > 1;
                let run: u32 = self.atomic(region, line + COHORT_RUN, 0, AccumulateOp::NoOp)?;
                if waiting && run < COHORT_PASSES {
                    self.atomic(region, line + COHORT_RUN, run + 1, AccumulateOp::Replace)?;
                    self.atomic(region, line + COHORT_PASSED, 1u32, AccumulateOp::Replace)?;
                    self.stats.lock_handoffs += 1;
                } else {
                    self.atomic(region, line + COHORT_RUN, 0u32, AccumulateOp::Replace)?;
                    self.give_ticket(lock)?;
                }
                self.give_word(region, line)?;
            }
        }
        self.stats.unlock.record(start, self.now());
        Ok(())
    }

    /// Takes the ticket lock in the 32-bit word at byte `offset` of
    /// `region` (zero when free: the next ticket in its upper 16 bits, the
    /// ticket served in its lower 16), for locks that live in a program's
    /// data, as OpenSHMEM's do. As [`Dsm::lock`], with the word changed
    /// by the region's atomics; up to 65535 cores may wait at once.
    ///
    /// Return values: as [`Dsm::atomic`].
    pub fn lock_word(&mut self, region: Region, offset: u32) -> Result<(), DsmError> {
        let start = self.now();
        let polls = self.take_word(region, offset)?;
        self.record_acquire(start, polls);
        Ok(())
    }

    /// Takes the ticket lock word at `offset` of `region`; returns the
    /// polls it made.
    fn take_word(&mut self, region: Region, offset: u32) -> Result<u64, DsmError> {
        let word: u32 = self.atomic(region, offset, WORD_NEXT, AccumulateOp::Sum)?;
        let ticket = word >> 16;
        let hal = self.rma.hal();
        let mut polls = 0u64;
        hal.wait_for(
            || match self.atomic(region, offset, 0u32, AccumulateOp::NoOp) {
                Ok(now) if now & 0xffff == ticket => Some(Ok(())),
                Ok(_) => {
                    polls += 1;
                    None
                }
                Err(e) => Some(Err(e)),
            },
        )?;
        Ok(polls)
    }

    /// Takes the lock word at `offset` of `region` if it is free; whether
    /// it did.
    ///
    /// Return values: as [`Dsm::lock_word`].
    pub fn try_lock_word(&mut self, region: Region, offset: u32) -> Result<bool, DsmError> {
        let start = self.now();
        let now: u32 = self.atomic(region, offset, 0, AccumulateOp::NoOp)?;
        let got = now >> 16 == now & 0xffff
            && self.compare_swap(region, offset, now, now.wrapping_add(WORD_NEXT))? == now;
        self.stats.lock.record(start, self.now());
        Ok(got)
    }

    /// Serves the next ticket of the lock word at `offset` of `region`.
    ///
    /// Return values: `Err(NotHeld)` (with the offset) if the lock is
    /// free; as [`Dsm::atomic`].
    pub fn unlock_word(&mut self, region: Region, offset: u32) -> Result<(), DsmError> {
        let start = self.now();
        self.give_word(region, offset)?;
        self.stats.unlock.record(start, self.now());
        Ok(())
    }

    /// Serves the next ticket of the lock word at `offset` of `region`.
    fn give_word(&mut self, region: Region, offset: u32) -> Result<(), DsmError> {
        loop {
            let now: u32 = self.atomic(region, offset, 0, AccumulateOp::NoOp)?;
            if now >> 16 == now & 0xffff {
                return Err(DsmError::NotHeld(offset));
            }
            // The served half wraps without carrying into the next half.
            let new = (now & !0xffff) | (now.wrapping_add(1) & 0xffff);
            if self.compare_swap(region, offset, now, new)? == now {
                return Ok(());
            }
        }
    }

    /// Waits until every core of the run has called it (rma's barrier).
    pub fn barrier(&mut self) {
        let start = self.now();
        self.rma.comm().barrier();
        self.stats.barrier.record(start, self.now());
    }

    /// Allocates a counter, at 0. Every core allocates its counters in
    /// the same order; no message is sent.
    ///
    /// Return values: `Err(Exhausted)` past [`MAX_COUNTERS`].
    pub fn counter_new(&mut self) -> Result<Counter, DsmError> {
        if self.counters >= MAX_COUNTERS {
            return Err(DsmError::Exhausted {
                what: "counter",
                max: MAX_COUNTERS,
            });
        }
        self.counters += 1;
        Ok(Counter(self.counters - 1))
    }

    /// Adds `delta` (wrapping) to `counter` atomically; the old value.
    ///
    /// Return values: `Err(Exhausted)` for a counter never allocated here.
    pub fn counter_add(&mut self, counter: Counter, delta: u32) -> Result<u32, DsmError> {
        self.counter_op(counter, delta, AccumulateOp::Sum)
    }

    /// The value of `counter`.
    ///
    /// Return values: as [`Dsm::counter_add`].
    pub fn counter_read(&mut self, counter: Counter) -> Result<u32, DsmError> {
        self.counter_op(counter, 0, AccumulateOp::NoOp)
    }

    /// Sets `counter` to `value`; the old value.
    ///
    /// Return values: as [`Dsm::counter_add`].
    pub fn counter_set(&mut self, counter: Counter, value: u32) -> Result<u32, DsmError> {
        self.counter_op(counter, value, AccumulateOp::Replace)
    }

    /// `op` on `counter`'s word.
    fn counter_op(
        &mut self,
        counter: Counter,
        value: u32,
        op: AccumulateOp,
    ) -> Result<u32, DsmError> {
        if counter.0 >= self.counters {
            return Err(DsmError::Exhausted {
                what: "counter (this one was never allocated here)",
                max: self.counters,
            });
        }
        let start = self.now();
        let word = Self::control_at(MAX_SCOPES + 2 * MAX_LOCKS + counter.0);
        let old = self.rma.fetch_and_op(self.control, 0, word, value, op)?;
        self.stats.counter.record(start, self.now());
        Ok(old)
    }
}
