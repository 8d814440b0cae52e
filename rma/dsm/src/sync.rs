// SPDX-License-Identifier: MIT OR Apache-2.0
//! Synchronisation: locks, barriers and counters. None of them moves data
//! between caches and memory; a model puts [`Dsm::sync_write`] before a
//! release and [`Dsm::sync_read`] after an acquire (see the crate's
//! documentation).
//!
//! A lock is taken one of two ways ([`LockKind`]):
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
//!
//! The barrier is rma's, whose arrival flags lie in every core's MPB.

use rma::hal::RmaHal;
use rma::{AccumulateOp, Assert, LockScheme, LockType, Window, WindowOptions};

use chip::MemoryType;

use crate::region::Region;
use crate::{Dsm, DsmError, MAX_COUNTERS, MAX_LOCKS, MAX_SCOPES};

/// What taking a ticket adds to a lock word.
const WORD_NEXT: u32 = 1 << 16;

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
}

impl LockKind {
    /// Its name, for errors.
    fn name(self) -> &'static str {
        match self {
            LockKind::Ticket => "ticket",
            LockKind::Rma(LockScheme::Gbh) => "GBH",
            LockKind::Rma(LockScheme::GbhBackoff) => "GBH with back-off",
            LockKind::Rma(LockScheme::McsWp) => "MCS-WP",
        }
    }
}

/// A lock allocated on this core: how it is taken and whether this core
/// holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LockState {
    /// For rma's locks, the lock's window and its home rank.
    window: Option<(Window<u32>, u32)>,
    kind: LockKind,
    held: bool,
}

impl LockState {
    /// rma's lock's window, to free at the end.
    pub(crate) fn window(&self) -> Option<Window<u32>> {
        self.window.map(|(w, _)| w)
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
    /// its locks in the same order. A ticket lock sends no message; one of
    /// rma's is collective, every core calling it: it makes the lock's
    /// window.
    ///
    /// Return values: `Err(Exhausted)` past [`MAX_LOCKS`]; `Err(Rma(..))`
    /// if the lock's window cannot be made.
    pub fn lock_new_kind(&mut self, kind: LockKind) -> Result<Lock, DsmError> {
        let id = self.locks.len() as u32;
        if id >= MAX_LOCKS {
            return Err(DsmError::Exhausted {
                what: "lock",
                max: MAX_LOCKS,
            });
        }
        let window = match kind {
            LockKind::Ticket => None,
            LockKind::Rma(scheme) => {
                let options = WindowOptions::new()
                    .memory_type(MemoryType::Ncm)
                    .lock_scheme(scheme);
                let window = self.rma.allocate::<u32>(1, options)?;
                Some((window, id % self.size()))
            }
        };
        self.locks.push(LockState {
            window,
            kind,
            held: false,
        });
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

    /// The control words of ticket lock `lock`: next ticket, ticket
    /// served.
    fn lock_words(lock: Lock) -> (u32, u32) {
        let next = MAX_SCOPES + 2 * lock.0;
        (Self::control_at(next), Self::control_at(next + 1))
    }

    /// Takes rma's lock of `home` on `window`: an exclusive passive-target
    /// lock, counting a wait if rma's scheme polled or backed off.
    fn lock_rma(&mut self, window: Window<u32>, home: u32, start: u64) -> Result<(), DsmError> {
        let before = self.rma.stats(window)?;
        self.rma
            .lock(window, LockType::Exclusive, home, Assert::NONE)?;
        let after = self.rma.stats(window)?;
        let polls = (after.polls + after.backoffs) - (before.polls + before.backoffs);
        self.record_acquire(start, polls);
        Ok(())
    }

    /// Takes `lock`, waiting (in modelled time, without spinning on the
    /// host) until it is this core's turn.
    ///
    /// Return values: `Err(Rma(..))` if a control word cannot be reached.
    pub fn lock(&mut self, lock: Lock) -> Result<(), DsmError> {
        let start = self.now();
        let state = self.lock_state(lock)?;
        if let Some((window, home)) = state.window {
            self.lock_rma(window, home, start)?;
            self.locks[lock.0 as usize].held = true;
            return Ok(());
        }
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
        self.locks[lock.0 as usize].held = true;
        self.record_acquire(start, polls);
        Ok(())
    }

    /// Takes ticket lock `lock` if it is free; whether it did.
    ///
    /// Return values: as [`Dsm::lock`]; `Err(Unsupported)` for one of
    /// rma's locks, which MPI's passive target gives no way to try.
    pub fn try_lock(&mut self, lock: Lock) -> Result<bool, DsmError> {
        let start = self.now();
        let state = self.lock_state(lock)?;
        if state.window.is_some() {
            return Err(DsmError::Unsupported {
                call: "try_lock",
                what: state.kind.name(),
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
        match state.window {
            Some((window, home)) => self.rma.unlock(window, home)?,
            None => {
                let (_, served) = Self::lock_words(lock);
                self.rma
                    .fetch_and_op(self.control, 0, served, 1u32, AccumulateOp::Sum)?;
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
        self.record_acquire(start, polls);
        Ok(())
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
        loop {
            let now: u32 = self.atomic(region, offset, 0, AccumulateOp::NoOp)?;
            if now >> 16 == now & 0xffff {
                return Err(DsmError::NotHeld(offset));
            }
            // The served half wraps without carrying into the next half.
            let new = (now & !0xffff) | (now.wrapping_add(1) & 0xffff);
            if self.compare_swap(region, offset, now, new)? == now {
                break;
            }
        }
        self.stats.unlock.record(start, self.now());
        Ok(())
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
