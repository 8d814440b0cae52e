// SPDX-License-Identifier: MIT OR Apache-2.0
//! Synchronisation: ticket locks, barriers and counters. None of them
//! moves data between caches and memory; a model puts
//! [`Dsm::sync_write`] before a release and [`Dsm::sync_read`] after an
//! acquire (see the crate's documentation).
//!
//! A ticket lock is two words of the control region: the next ticket and
//! the ticket served. Taking it is one fetch-and-increment of the first
//! (rma's atomic under the test-and-set register of the region's core)
//! and polls of the second until it shows the ticket; giving it up
//! increments the second. Cores get the lock in the order they asked.
//! The barrier is rma's, whose arrival flags lie in every core's MPB.

use rma::AccumulateOp;
use rma::hal::RmaHal;

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

    /// Allocates a lock, free. Every core allocates its locks in the same
    /// order; no message is sent.
    ///
    /// Return values: `Err(Exhausted)` past [`MAX_LOCKS`].
    pub fn lock_new(&mut self) -> Result<Lock, DsmError> {
        let id = self.locks.len() as u32;
        if id >= MAX_LOCKS {
            return Err(DsmError::Exhausted {
                what: "lock",
                max: MAX_LOCKS,
            });
        }
        self.locks.push(false);
        Ok(Lock(id))
    }

    /// The control words of `lock`: next ticket, ticket served.
    fn lock_words(&self, lock: Lock) -> Result<(u32, u32), DsmError> {
        if lock.0 as usize >= self.locks.len() {
            return Err(DsmError::Exhausted {
                what: "lock (this one was never allocated here)",
                max: self.locks.len() as u32,
            });
        }
        let next = MAX_SCOPES + 2 * lock.0;
        Ok((Self::control_at(next), Self::control_at(next + 1)))
    }

    /// Takes `lock`, waiting (in modelled time, without spinning on the
    /// host) until it is this core's turn.
    ///
    /// Return values: `Err(Rma(..))` if a control word cannot be reached.
    pub fn lock(&mut self, lock: Lock) -> Result<(), DsmError> {
        let start = self.now();
        let (next, served) = self.lock_words(lock)?;
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
        self.locks[lock.0 as usize] = true;
        self.record_acquire(start, polls);
        Ok(())
    }

    /// Takes `lock` if it is free; whether it did.
    ///
    /// Return values: as [`Dsm::lock`].
    pub fn try_lock(&mut self, lock: Lock) -> Result<bool, DsmError> {
        let start = self.now();
        let (next, served) = self.lock_words(lock)?;
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
            self.locks[lock.0 as usize] = true;
        }
        self.stats.lock.record(start, self.now());
        Ok(got)
    }

    /// Gives `lock` up, to the next core in line.
    ///
    /// Return values: `Err(NotHeld)` if this core does not hold it.
    pub fn unlock(&mut self, lock: Lock) -> Result<(), DsmError> {
        let start = self.now();
        let (_, served) = self.lock_words(lock)?;
        if !self.locks[lock.0 as usize] {
            return Err(DsmError::NotHeld(lock.0));
        }
        self.locks[lock.0 as usize] = false;
        self.rma
            .fetch_and_op(self.control, 0, served, 1u32, AccumulateOp::Sum)?;
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
