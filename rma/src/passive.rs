// SPDX-License-Identifier: MIT OR Apache-2.0
//! Passive-target synchronisation: lock/unlock, lock_all/unlock_all,
//! flush, flush_local, flush_all, flush_local_all and sync, with three
//! lock schemes of the passive-target reference (Christgau & Schnor),
//! chosen per window ([`LockScheme`] in [`WindowOptions`](crate::WindowOptions)):
//! the GBH best-effort scheme of foMPI (1.3), with or without exponential
//! back-off, and MCS-WP, Mellor-Crummey and Scott's reader-writer queue
//! lock with writer preference (1.4, [`mcs`]).
//!
//! Every rank must create a window with the same scheme: window creation
//! exchanges only where each rank's record lies, so a mismatch is not
//! detected, and ranks locking with different schemes do not exclude
//! each other.
//!
//! GBH's lock data lives in the distributed window database
//! ([`crate::window::database`]): in the uncached LSM page of the owner's
//! memory controller, each counter in a line of its own, every
//! read-modify-write under the owner's test-and-set register ([`gbh`]):
//! - the local counter of each rank's part: bit 0 set while it is locked
//!   exclusively, bits 1-31 count shared holders;
//! - the global counter, in rank 0's record: bits 0-15 count exclusive
//!   lockers (also while they try), bits 16-31 `lock_all` holders.
//!
//! The steps:
//! - exclusive lock of `t`: add one to the global exclusive part; if no
//!   `lock_all` is held and `t`'s local counter is 0, set its exclusive bit
//!   and return; otherwise undo the increment, back off, retry;
//! - shared lock of `t`: add one shared holder to `t`'s counter; if the
//!   exclusive bit was set, undo and retry (the undo-and-retry of the SCC
//!   version, not foMPI's re-reading spin);
//! - exclusive unlock: clear the bit (by subtraction, so shared attempts in
//!   flight keep their counts), then take one from the global exclusive
//!   part; shared unlock: take one shared holder away;
//! - lock_all: add one to the global `lock_all` part, then wait until the
//!   exclusive part is 0; unlock_all takes it away again.
//!
//! GBH is best effort: no order among waiting writers, and a stream of
//! readers can hold a writer off indefinitely. With back-off
//! ([`LockScheme::GbhBackoff`]) a failed attempt waits 1 µs of the HAL's
//! [`Clock`](crate::hal::Clock) (the chip's core clock: 533 cycles on the
//! SCC; the emulator's clock is modelled time; the mock's counts
//! nanoseconds, so its µs is shorter), doubling per consecutive failure up
//! to [`BACKOFF_CAP_US`] (the reference gives no cap; this one is ours).
//! `MPI_MODE_NOCHECK` skips the counters altogether, as MPI allows.
//!
//! MCS-WP ([`LockScheme::McsWp`], [`mcs`]) keeps one lock per (window,
//! target) in the target's record and one queue node per (origin, target)
//! in the origin's record; waiters poll their own node only, and writers
//! are served in FIFO order before readers that arrive after them. The
//! paper's MCS-WP has no `lock_all`; ours takes a shared MCS-WP lock on
//! every rank in ascending rank order and gives them back in unlock_all.
//! That cannot deadlock as long as every lock epoch that holds several
//! targets at once also locked them in ascending rank order (the usual
//! rule for nested locks: a cycle of waits needs someone who locked a
//! higher rank first). It costs one lock and one unlock per rank; a
//! `lock_all` waits behind writers queued on any rank (writer preference).
//!
//! Coherence ([`crate::coherence`]): lock and lock_all acquire (CL1INVMB
//! after the lock is held, guarded by a flush, so gets and local loads see
//! what earlier holders wrote); unlock, unlock_all, flush and flush_all
//! release the remote mappings' writes (flush the write-combine buffer)
//! before the lock is given up; a lock, unlock or flush of this core's own
//! rank also covers the local mapping. flush_local and flush_local_all do
//! no cache action: a put has copied its origin buffer and a get filled it
//! when the call returns. sync releases and acquires the local window.
//! The memory types decide which of the actions run (NCM: none); they are
//! the same for every scheme.
//!
//! Accumulates and atomics are in [`crate::accumulate`], the
//! request-based operations in [`crate::request`]; the distributed hash
//! table built on these locks is [`crate::dht`].
#![forbid(unsafe_code)]

use chip::trace::Op;

use crate::RmaError;
use crate::coherence::{Actions, acquire_actions, guard_invalidation, release_actions};
use crate::comm::check_rank;
use crate::epoch::{AccessEpoch, Assert, Check, LockType, Locked, reuse};
use crate::hal::RmaHal;
use crate::hal::Span;
use crate::window::{Rma, Window};

/// How a window's locks are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LockScheme {
    /// GBH best effort: a failed attempt retries at once.
    Gbh,
    /// GBH with exponential back-off: a failed attempt waits 1 µs, doubled
    /// per consecutive failure. The reference's best scheme for lock/unlock
    /// latency, hence the default.
    #[default]
    GbhBackoff,
    /// MCS-WP: a reader-writer queue lock with writer preference; waiters
    /// poll their own queue node ([`mcs`]).
    McsWp,
}

/// The names a program's `scheme` setting gives.
impl chip::settings::Choice for LockScheme {
    const ALL: &'static [Self] = &[Self::Gbh, Self::GbhBackoff, Self::McsWp];
    const NAMES: &'static [&'static str] = &["gbh", "gbh-backoff", "mcs-wp"];
}

/// The longest back-off wait, in µs.
pub const BACKOFF_CAP_US: u64 = 1024;

pub mod mcs;

/// GBH's steps on the lock counters, apart from windows and epochs: what
/// the loom checks drive directly.
pub mod gbh {
    use chip::CoreId;

    use crate::hal::{Clock, Lsm, Tsr, Wait};
    use crate::window::database::Record;

    /// Local counter: the exclusive bit.
    pub const EXCLUSIVE: u32 = 1;
    /// Local counter: one shared holder.
    pub const SHARED_ONE: u32 = 2;
    /// Global counter: one exclusive locker.
    pub const EXCLUSIVE_ONE: u32 = 1;
    /// Global counter: one `lock_all` holder.
    pub const LOCK_ALL_ONE: u32 = 1 << 16;
    /// Global counter: the exclusive part.
    pub const EXCLUSIVE_PART: u32 = LOCK_ALL_ONE - 1;

    /// A counter word in the LSM and the core whose TSR guards it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Counter {
        /// The core whose TSR guards the word.
        pub owner: CoreId,
        /// The controller whose LSM page holds it.
        pub controller: usize,
        /// Its offset there.
        pub offset: u32,
    }

    impl Counter {
        /// The local counter of `owner`'s part, in its record.
        pub const fn local(owner: CoreId, record: Record) -> Self {
            Self {
                owner,
                controller: record.controller,
                offset: record.lock(),
            }
        }

        /// The global counter, in rank 0's record (`owner` is rank 0's core).
        pub const fn global(owner: CoreId, record: Record) -> Self {
            Self {
                owner,
                controller: record.controller,
                offset: record.global(),
            }
        }

        /// Reads the word (one uncached load, no TSR).
        pub fn read<H: Lsm>(self, hal: &H) -> u32 {
            hal.lsm_read_u32(self.controller, self.offset)
        }

        /// Adds `delta` (wrapping) under the owner's TSR; the old value.
        pub fn fetch_add<H: Lsm + Tsr>(self, hal: &H, delta: u32) -> u32 {
            hal.tsr_acquire(self.owner);
            let old = self.read(hal);
            hal.lsm_write_u32(self.controller, self.offset, old.wrapping_add(delta));
            hal.tsr_release(self.owner);
            old
        }

        /// Subtracts `delta` (wrapping) under the owner's TSR; the old value.
        pub fn fetch_sub<H: Lsm + Tsr>(self, hal: &H, delta: u32) -> u32 {
            self.fetch_add(hal, delta.wrapping_neg())
        }

        /// Stores `new` if the word is `expected`, under the owner's TSR;
        /// whether it did.
        pub fn compare_and_swap<H: Lsm + Tsr>(self, hal: &H, expected: u32, new: u32) -> bool {
            hal.tsr_acquire(self.owner);
            let swap = self.read(hal) == expected;
            if swap {
                hal.lsm_write_u32(self.controller, self.offset, new);
            }
            hal.tsr_release(self.owner);
            swap
        }
    }

    /// What a failed lock attempt does before the next.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Backoff {
        /// Retry at once (GBH best effort).
        None,
        /// Wait `delay` clock cycles, doubling up to `cap` per failure.
        Exponential {
            /// The next wait.
            delay: u64,
            /// The longest wait.
            cap: u64,
        },
        /// One call of the platform's wait: for model checks, whose
        /// scheduler must see a spinning core give way.
        Yield,
    }

    impl Backoff {
        /// Waits after a failed attempt; whether it waited on the clock.
        pub fn pause<H: Wait + Clock>(&mut self, hal: &H) -> bool {
            match self {
                Self::None => false,
                Self::Yield => {
                    let mut first = true;
                    hal.wait_for(|| (!core::mem::take(&mut first)).then_some(()));
                    false
                }
                Self::Exponential { delay, cap } => {
                    let d = *delay;
                    hal.pause(d);
                    *delay = d.saturating_mul(2).min(*cap);
                    true
                }
            }
        }
    }

    /// Takes an exclusive lock on the part whose counter is `local`.
    /// Returns the back-off waits it made.
    pub fn lock_exclusive<H: Lsm + Tsr + Wait + Clock>(
        hal: &H,
        global: Counter,
        local: Counter,
        mut backoff: Backoff,
    ) -> u64 {
        let mut waits = 0;
        loop {
            let old = global.fetch_add(hal, EXCLUSIVE_ONE);
            if old & !EXCLUSIVE_PART == 0 && local.compare_and_swap(hal, 0, EXCLUSIVE) {
                return waits;
            }
            global.fetch_sub(hal, EXCLUSIVE_ONE);
            waits += u64::from(backoff.pause(hal));
        }
    }

    /// Gives an exclusive lock back.
    pub fn unlock_exclusive<H: Lsm + Tsr>(hal: &H, global: Counter, local: Counter) {
        local.fetch_sub(hal, EXCLUSIVE);
        global.fetch_sub(hal, EXCLUSIVE_ONE);
    }

    /// Takes a shared lock on the part whose counter is `local`. Returns
    /// the back-off waits it made.
    pub fn lock_shared<H: Lsm + Tsr + Wait + Clock>(
        hal: &H,
        local: Counter,
        mut backoff: Backoff,
    ) -> u64 {
        let mut waits = 0;
        loop {
            if local.fetch_add(hal, SHARED_ONE) & EXCLUSIVE == 0 {
                return waits;
            }
            local.fetch_sub(hal, SHARED_ONE);
            waits += u64::from(backoff.pause(hal));
        }
    }

    /// Gives a shared lock back.
    pub fn unlock_shared<H: Lsm + Tsr>(hal: &H, local: Counter) {
        local.fetch_sub(hal, SHARED_ONE);
    }

    /// Takes a shared lock on every part: announces it in the global
    /// counter, then waits until no exclusive locker is left (new ones
    /// see the announcement and step back).
    pub fn lock_all<H: Lsm + Tsr + Wait>(hal: &H, global: Counter) {
        global.fetch_add(hal, LOCK_ALL_ONE);
        hal.wait_for(|| (global.read(hal) & EXCLUSIVE_PART == 0).then_some(()));
    }

    /// Gives a `lock_all` back.
    pub fn unlock_all<H: Lsm + Tsr>(hal: &H, global: Counter) {
        global.fetch_sub(hal, LOCK_ALL_ONE);
    }
}

impl<H: RmaHal> Rma<'_, H> {
    fn global_counter(&self, id: u32) -> gbh::Counter {
        gbh::Counter::global(self.core_of(id, 0), self.record(id, 0))
    }

    fn local_counter(&self, id: u32, rank: u32) -> gbh::Counter {
        gbh::Counter::local(self.core_of(id, rank), self.record(id, rank))
    }

    /// GBH's back-off of the window's scheme (`None` for MCS-WP).
    fn backoff(&self, id: u32) -> Result<gbh::Backoff, RmaError> {
        let us = u64::from(self.hal.chip().timing.core_mhz);
        Ok(match self.window(id)?.options.lock_scheme {
            LockScheme::Gbh | LockScheme::McsWp => gbh::Backoff::None,
            LockScheme::GbhBackoff => gbh::Backoff::Exponential {
                delay: us,
                cap: us * BACKOFF_CAP_US,
            },
        })
    }

    fn scheme(&self, id: u32) -> LockScheme {
        self.window(id)
            .expect("callers checked the window")
            .options
            .lock_scheme
    }

    /// This core's view of the MCS-WP lock of `target`'s part.
    fn mcs(&self, id: u32, target: u32) -> mcs::Mcs<impl Fn(u32) -> mcs::Node + '_> {
        let w = self.window(id).expect("callers checked the window");
        let remotes = &w.remotes;
        mcs::Mcs {
            lock: mcs::Lock::of(
                w.ranks.cores[target as usize],
                remotes[target as usize].record,
            ),
            rank: w.ranks.rank,
            node_of: move |rank: u32| mcs::Node::of(remotes[rank as usize].record, target),
        }
    }

    /// Takes a lock on `target` with the window's scheme; the GBH back-off
    /// waits and the MCS-WP node polls it made.
    fn take(&self, id: u32, kind: LockType, target: u32) -> Result<(u64, u64), RmaError> {
        if self.scheme(id) == LockScheme::McsWp {
            let q = self.mcs(id, target);
            let polls = match kind {
                LockType::Exclusive => q.lock_exclusive(self.hal),
                LockType::Shared => q.lock_shared(self.hal),
            };
            return Ok((0, polls));
        }
        let backoff = self.backoff(id)?;
        let local = self.local_counter(id, target);
        let waits = match kind {
            LockType::Exclusive => {
                gbh::lock_exclusive(self.hal, self.global_counter(id), local, backoff)
            }
            LockType::Shared => gbh::lock_shared(self.hal, local, backoff),
        };
        Ok((waits, 0))
    }

    /// Gives a lock on `target` back with the window's scheme.
    fn give_back(&self, id: u32, kind: LockType, target: u32) {
        if self.scheme(id) == LockScheme::McsWp {
            let q = self.mcs(id, target);
            match kind {
                LockType::Exclusive => q.unlock_exclusive(self.hal),
                LockType::Shared => q.unlock_shared(self.hal),
            }
            return;
        }
        let local = self.local_counter(id, target);
        match kind {
            LockType::Exclusive => {
                gbh::unlock_exclusive(self.hal, self.global_counter(id), local);
            }
            LockType::Shared => gbh::unlock_shared(self.hal, local),
        }
    }

    /// What a passive-target call does for the remote mappings, plus the
    /// local one if `target` is this core (or `None`: every rank).
    fn passive_actions(
        &self,
        id: u32,
        target: Option<u32>,
        of: fn(chip::MemoryType) -> Actions,
    ) -> Actions {
        let o = self.window(id).expect("callers checked the window").options;
        let mut actions = of(o.remote_type);
        if target.is_none_or(|t| t == self.window_rank(id)) {
            actions = actions.union(of(o.local_type));
        }
        guard_invalidation(actions, &self.types(id))
    }

    /// Opens (or extends) a passive-target access epoch by locking
    /// `target`'s part of the window (`MPI_Win_lock`): takes the lock with
    /// the window's [`LockScheme`] (GBH's counters, waiting as the scheme
    /// says, or MCS-WP's queues), then drops stale lines.
    /// `Assert::NOCHECK` promises no conflicting lock and skips the lock.
    /// A lock of [`PROC_NULL`](crate::PROC_NULL) does nothing, as MPICH
    /// takes it: it opens no epoch, and its unlock and flushes do nothing.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Assert)` for anything but
    /// `NOCHECK`; `Err(Rank)` for a target outside the window; `Err(Lock)` if
    /// this core holds `target` locked already; `Err(Sync)` in a fence epoch
    /// with operations, a start epoch or a lock_all epoch.
    pub fn lock<T>(
        &mut self,
        window: Window<T>,
        kind: LockType,
        target: u32,
        assert: Assert,
    ) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Lock, window.id(), Some(target), 0);
        let id = window.id();
        assert.check("lock", Assert::NOCHECK)?;
        let w = self.window(id)?;
        if target == crate::PROC_NULL {
            return Ok(());
        }
        if w.options.no_locks {
            return Err(RmaError::Sync {
                call: "lock",
                window: id,
                problem: "the window was made with no_locks, so it has no locks",
            });
        }
        check_rank("lock target", target, w.ranks.size())?;
        Check {
            call: "lock",
            window: id,
        }
        .lock(&w.access, target)?;
        let taken = !assert.contains(Assert::NOCHECK);
        let start = self.hal.cycles();
        let (waits, polls) = if taken {
            self.take(id, kind, target)?
        } else {
            (0, 0)
        };
        let cycles = self.hal.cycles().saturating_sub(start);
        let acquire = self.passive_actions(id, Some(target), acquire_actions);
        self.coherence(id, acquire);
        let w = self.window_mut(id)?;
        let locked = Locked {
            rank: target,
            kind,
            taken,
        };
        match &mut w.access {
            AccessEpoch::Lock { targets } => targets.push(locked),
            access => {
                let mut targets = reuse(&mut w.spare.locked);
                targets.push(locked);
                *access = AccessEpoch::Lock { targets };
            }
        }
        w.stats.locks += 1;
        w.stats.backoffs += waits;
        w.stats.polls += polls;
        w.stats.wait_cycles += cycles;
        Ok(())
    }

    /// Unlocks `target` (`MPI_Win_unlock`): completes this core's
    /// operations on it (releasing the writes), then gives the lock up.
    /// The epoch ends with the last locked target. An unlock of
    /// [`PROC_NULL`](crate::PROC_NULL) does nothing.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Rank)`; `Err(Lock)` if
    /// this core does not hold `target` locked; `Err(Sync)` in a lock_all
    /// epoch.
    pub fn unlock<T>(&mut self, window: Window<T>, target: u32) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Unlock, window.id(), Some(target), 0);
        let id = window.id();
        let w = self.window(id)?;
        if target == crate::PROC_NULL {
            return Ok(());
        }
        check_rank("unlock target", target, w.ranks.size())?;
        let check = Check {
            call: "unlock",
            window: id,
        };
        check.unlock(&w.access, target)?;
        let locked = w.access.locked(target).expect("checked above");
        let release = self.passive_actions(id, Some(target), release_actions);
        self.coherence(id, release);
        if locked.taken {
            self.give_back(id, locked.kind, target);
        }
        let w = self.window_mut(id)?;
        if let AccessEpoch::Lock { targets } = &mut w.access {
            targets.retain(|l| l.rank != target);
            if targets.is_empty()
                && let AccessEpoch::Lock { targets } = core::mem::take(&mut w.access)
            {
                w.spare.locked = targets;
            }
        }
        w.stats.unlocks += 1;
        Ok(())
    }

    /// Opens a passive-target epoch to every rank with shared locks
    /// (`MPI_Win_lock_all`), then drops stale lines. GBH announces it in
    /// the global counter and waits until no exclusive lock is held;
    /// MCS-WP takes a shared lock on every rank in ascending rank order
    /// (see the module docs for when that can deadlock).
    /// `Assert::NOCHECK` skips the locks.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Assert)` for anything but
    /// `NOCHECK`; `Err(Sync)` while another access epoch is open (but a
    /// fence's without operations).
    pub fn lock_all<T>(&mut self, window: Window<T>, assert: Assert) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::LockAll, window.id(), None, 0);
        let id = window.id();
        assert.check("lock_all", Assert::NOCHECK)?;
        let w = self.window(id)?;
        if w.options.no_locks {
            return Err(RmaError::Sync {
                call: "lock_all",
                window: id,
                problem: "the window was made with no_locks, so it has no locks",
            });
        }
        Check {
            call: "lock_all",
            window: id,
        }
        .lock_all(&w.access)?;
        let taken = !assert.contains(Assert::NOCHECK);
        let start = self.hal.cycles();
        let mut polls = 0;
        if taken && self.scheme(id) == LockScheme::McsWp {
            for target in 0..self.window_size(id) {
                polls += self.mcs(id, target).lock_shared(self.hal);
            }
        } else if taken {
            gbh::lock_all(self.hal, self.global_counter(id));
        }
        let cycles = self.hal.cycles().saturating_sub(start);
        let acquire = self.passive_actions(id, None, acquire_actions);
        self.coherence(id, acquire);
        let w = self.window_mut(id)?;
        w.access = AccessEpoch::LockAll { taken };
        w.stats.locks += 1;
        w.stats.polls += polls;
        w.stats.wait_cycles += cycles;
        Ok(())
    }

    /// Ends a lock_all epoch (`MPI_Win_unlock_all`): completes this core's
    /// operations on every rank, then gives the locks up.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Sync)` without a lock_all
    /// epoch.
    pub fn unlock_all<T>(&mut self, window: Window<T>) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::UnlockAll, window.id(), None, 0);
        let id = window.id();
        let w = self.window(id)?;
        Check {
            call: "unlock_all",
            window: id,
        }
        .unlock_all(&w.access)?;
        let taken = matches!(w.access, AccessEpoch::LockAll { taken: true });
        let release = self.passive_actions(id, None, release_actions);
        self.coherence(id, release);
        if taken && self.scheme(id) == LockScheme::McsWp {
            for target in 0..self.window_size(id) {
                self.mcs(id, target).unlock_shared(self.hal);
            }
        } else if taken {
            gbh::unlock_all(self.hal, self.global_counter(id));
        }
        let w = self.window_mut(id)?;
        w.access = AccessEpoch::None;
        w.stats.unlocks += 1;
        Ok(())
    }

    fn check_flush(&self, call: &'static str, id: u32, target: u32) -> Result<(), RmaError> {
        let w = self.window(id)?;
        check_rank(call, target, w.ranks.size())?;
        Check { call, window: id }.flush(&w.access, target)
    }

    fn check_passive(&self, call: &'static str, id: u32) -> Result<(), RmaError> {
        let w = self.window(id)?;
        Check { call, window: id }.passive(&w.access)
    }

    fn count_flush(&mut self, id: u32) -> Result<(), RmaError> {
        self.window_mut(id)?.stats.flush_calls += 1;
        Ok(())
    }

    /// Completes this core's operations on `target` at the target
    /// (`MPI_Win_flush`), keeping the lock: releases the writes. A flush
    /// of [`PROC_NULL`](crate::PROC_NULL) does nothing.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Rank)`; `Err(Lock)` if
    /// `target` is not locked in this lock epoch; `Err(Sync)` without a
    /// passive-target epoch.
    pub fn flush<T>(&mut self, window: Window<T>, target: u32) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Flush, window.id(), Some(target), 0);
        let id = window.id();
        if target == crate::PROC_NULL {
            return self.window(id).map(|_| ());
        }
        self.check_flush("flush", id, target)?;
        let release = self.passive_actions(id, Some(target), release_actions);
        self.coherence(id, release);
        self.count_flush(id)
    }

    /// Completes this core's operations on `target` locally
    /// (`MPI_Win_flush_local`): nothing is left to do, since puts and gets
    /// are done with their origin buffers when they return.
    ///
    /// Return values: as [`Rma::flush`].
    pub fn flush_local<T>(&mut self, window: Window<T>, target: u32) -> Result<(), RmaError> {
        let id = window.id();
        if target == crate::PROC_NULL {
            return self.window(id).map(|_| ());
        }
        self.check_flush("flush_local", id, target)?;
        self.count_flush(id)
    }

    /// Completes this core's operations on every rank at the targets
    /// (`MPI_Win_flush_all`).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Sync)` without a
    /// passive-target epoch.
    pub fn flush_all<T>(&mut self, window: Window<T>) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Flush, window.id(), None, 0);
        let id = window.id();
        self.check_passive("flush_all", id)?;
        let release = self.passive_actions(id, None, release_actions);
        self.coherence(id, release);
        self.count_flush(id)
    }

    /// Completes this core's operations on every rank locally
    /// (`MPI_Win_flush_local_all`): as [`Rma::flush_local`], nothing is
    /// left to do.
    ///
    /// Return values: as [`Rma::flush_all`].
    pub fn flush_local_all<T>(&mut self, window: Window<T>) -> Result<(), RmaError> {
        let id = window.id();
        self.check_passive("flush_local_all", id)?;
        self.count_flush(id)
    }

    /// Synchronises the private and public copies of this core's window
    /// (`MPI_Win_sync`): releases local stores, then drops stale lines of
    /// the local mapping so loads see what others put; for a shared window
    /// ([`Rma::allocate_shared`]) the same for every part this core loads
    /// and stores.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Sync)` without a
    /// passive-target epoch.
    pub fn sync<T>(&mut self, window: Window<T>) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Sync, window.id(), None, 0);
        let id = window.id();
        self.check_passive("sync", id)?;
        let w = self.window(id)?;
        let local = w.options.local_type;
        let mut actions = release_actions(local).union(acquire_actions(local));
        if w.flavor == crate::window::Flavor::Shared {
            // Loads and stores reach other processes' parts through the
            // remote mapping: its lines and buffered stores too.
            let remote = w.options.remote_type;
            actions = actions
                .union(release_actions(remote))
                .union(acquire_actions(remote));
        }
        let actions = guard_invalidation(actions, &self.types(id));
        self.coherence(id, actions);
        self.count_flush(id)
    }
}

#[cfg(test)]
mod tests;
