// SPDX-License-Identifier: MIT OR Apache-2.0
//! Active-target synchronisation: fence, and post/start/complete/wait
//! (PSCW) as the thesis's trigger-only scheme (Algorithms 1 and 2).
//!
//! PSCW keeps, per window and core, a match vector and an 8-bit
//! completion counter in the distributed window database
//! ([`crate::window::database`]), read and written uncached only:
//! - post: set the counter to the number of origins, then, holding each
//!   origin's TSR, set this core's bit in that origin's match vector;
//! - start: bookkeeping only, it never waits;
//! - put/get: wait until the target's bit is set, looking at the local
//!   cacheable copy of the match vector first;
//! - complete: wait for every target's bit, clear them (holding this core's
//!   own TSR, since posts set bits of the same word under it), then,
//!   holding each target's TSR, decrement its counter;
//! - wait: poll the own counter until it is 0.
//!
//! A bit is cleared before the counter it answers is decremented, and the
//! target posts again only after its wait saw 0, so a post of a later
//! epoch always finds its bit clear, and a complete consumes only the
//! bits of its own start group: a post from a later epoch arriving early
//! (the Open MPI `sm` bug the thesis found, 3.2) stays for that epoch.
//!
//! The coherence actions of each call are in [`crate::coherence`].
#![forbid(unsafe_code)]

use alloc::vec::Vec;

use chip::trace::Op;

use crate::RmaError;
use crate::coherence::{Actions, Coherence, acquire_actions, guard_invalidation, release_actions};
use crate::comm::Group;
use crate::epoch::{AccessEpoch, Assert, Check, ExposureEpoch, reuse};
use crate::hal::RmaHal;
use crate::hal::Span;
use crate::window::database::Record;
use crate::window::{Rma, Window};

/// The synchronisation steps of PSCW on the window database, apart from
/// windows and epochs: what the loom checks drive directly.
pub mod pscw {
    use chip::CoreId;

    use crate::hal::{Lsm, Tsr, Wait};
    use crate::window::database::Record;

    /// Algorithm 1, post: the own completion counter to the number of
    /// origins, then this core's bit (`me`) in each origin's match vector
    /// (`origins`: its core and its record), under that origin's TSR.
    pub fn post<H: Lsm + Tsr>(
        hal: &H,
        me: u32,
        mine: Record,
        origins: impl ExactSizeIterator<Item = (CoreId, Record)>,
    ) {
        let count = u8::try_from(origins.len()).expect("post checked the group size");
        hal.lsm_write(mine.controller, mine.counter(), &[count]);
        for (core, record) in origins {
            let (word, bit) = record.match_word(me);
            hal.tsr_acquire(core);
            let v = hal.lsm_read_u32(record.controller, word);
            hal.lsm_write_u32(record.controller, word, v | bit);
            hal.tsr_release(core);
        }
    }

    /// Waits until `target` has posted to this core: its bit in the local
    /// copy `seen`, else in the match vector of `mine` (uncached), which
    /// then updates the copy. Returns the polls that found it unset.
    pub fn await_post<H: Lsm + Wait>(hal: &H, mine: Record, seen: &mut [u32], target: u32) -> u64 {
        let (index, bit) = ((target / 32) as usize, 1 << (target % 32));
        if seen[index] & bit != 0 {
            return 0;
        }
        let (word, _) = mine.match_word(target);
        let mut polls = 0;
        let v = hal.wait_for(|| {
            let v = hal.lsm_read_u32(mine.controller, word);
            if v & bit != 0 {
                Some(v)
            } else {
                polls += 1;
                None
            }
        });
        seen[index] |= v;
        polls
    }

    /// Algorithm 2, complete: waits for every target's post, clears their
    /// bits (under `me`'s TSR, and in `seen`), then decrements each
    /// target's completion counter under its TSR. `targets`: rank, core
    /// and record of each. Returns the polls that found a bit unset.
    pub fn complete<H: Lsm + Tsr + Wait>(
        hal: &H,
        me: CoreId,
        mine: Record,
        seen: &mut [u32],
        targets: impl Iterator<Item = (u32, CoreId, Record)> + Clone,
    ) -> u64 {
        let mut polls = 0;
        let mut any = false;
        for (rank, _, _) in targets.clone() {
            polls += await_post(hal, mine, seen, rank);
            any = true;
        }
        // The bits of word `index` of the match vector to clear.
        let clear = |index: usize| {
            targets
                .clone()
                .filter(|&(rank, _, _)| (rank / 32) as usize == index)
                .fold(0u32, |mask, (rank, _, _)| mask | 1 << (rank % 32))
        };
        if any {
            hal.tsr_acquire(me);
            for index in 0..seen.len() {
                let mask = clear(index);
                if mask != 0 {
                    let (word, _) = mine.match_word(index as u32 * 32);
                    let v = hal.lsm_read_u32(mine.controller, word);
                    hal.lsm_write_u32(mine.controller, word, v & !mask);
                }
            }
            hal.tsr_release(me);
        }
        for (index, s) in seen.iter_mut().enumerate() {
            *s &= !clear(index);
        }
        for (_, core, record) in targets {
            hal.tsr_acquire(core);
            let mut count = [0];
            hal.lsm_read(record.controller, record.counter(), &mut count);
            hal.lsm_write(
                record.controller,
                record.counter(),
                &[count[0].wrapping_sub(1)],
            );
            hal.tsr_release(core);
        }
        polls
    }

    /// Whether every origin has completed: the own counter is 0.
    pub fn test<H: Lsm>(hal: &H, mine: Record) -> bool {
        let mut count = [0];
        hal.lsm_read(mine.controller, mine.counter(), &mut count);
        count[0] == 0
    }

    /// Algorithm 2, wait: polls the own counter until it is 0. Returns the
    /// polls that found it above.
    pub fn wait<H: Lsm + Wait>(hal: &H, mine: Record) -> u64 {
        let mut polls = 0;
        hal.wait_for(|| {
            if test(hal, mine) {
                Some(())
            } else {
                polls += 1;
                None
            }
        });
        polls
    }
}

/// Most origins a post may name: the completion counter has eight bits.
pub const MAX_POST_GROUP: u32 = u8::MAX as u32;

impl<H: RmaHal> Rma<'_, H> {
    /// Runs `actions` for window `id` unless its coherence is disabled.
    pub(crate) fn coherence(&mut self, id: u32, actions: Actions) {
        let hal = self.hal;
        let w = self.window_mut(id).expect("callers checked the window");
        if w.options.coherence == Coherence::Enabled {
            actions.run(hal, &mut w.stats);
            if actions.invalidate {
                self.remote_lines = false;
            }
        }
    }

    /// Every memory type the window's mappings use, for
    /// [`guard_invalidation`].
    pub(crate) fn types(&self, id: u32) -> [chip::MemoryType; 2] {
        let o = self.window(id).expect("callers checked the window").options;
        [o.local_type, o.remote_type]
    }

    /// The ranks in window `id` of `group`'s members, in the group's
    /// order, into `list`: `group` names processes of the run (as MPI's
    /// groups do), and each is translated to its rank in the window.
    ///
    /// Return values: `Err(GroupMismatch)` unless `group` is drawn from
    /// this run; `Err(NotMember)` for a member outside the window.
    fn members(
        &self,
        call: &'static str,
        id: u32,
        group: &Group,
        list: &mut Vec<u32>,
    ) -> Result<(), RmaError> {
        let cores = self.hal.cores();
        if group.world_size() != cores {
            return Err(RmaError::GroupMismatch {
                first: group.world_size(),
                second: cores,
            });
        }
        let world = &self.ranks(id).world;
        list.clear();
        for &process in group.members() {
            let rank = world
                .iter()
                .position(|&w| w == process)
                .ok_or(RmaError::NotMember {
                    call,
                    of: "the window",
                    process,
                })?;
            list.push(rank as u32);
        }
        Ok(())
    }

    pub(crate) fn record(&self, id: u32, rank: u32) -> Record {
        self.window(id).expect("callers checked the window").remotes[rank as usize].record
    }

    /// Ends one epoch and opens the next on every rank of the window
    /// (`MPI_Win_fence`): releases this core's writes, waits for every
    /// rank of the window (a barrier of its communicator), drops what may
    /// be stale. Assertions skip work: `NOSTORE` the
    /// release of local stores, `NOPRECEDE` that of this core's puts,
    /// `NOPUT` the invalidation of the local window, `NOSUCCEED` that of
    /// remote lines; with both `NOPRECEDE` and `NOSUCCEED` the barrier too
    /// (the fence then neither ends nor opens an epoch).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Assert)` for `NOCHECK`;
    /// `Err(Sync)` inside a PSCW epoch; `Err(NoPrecedeViolated)` if
    /// `NOPRECEDE` is asserted after operations. Errors return before the
    /// barrier.
    pub fn fence<T>(&mut self, window: Window<T>, assert: Assert) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Fence, window.id(), None, 0);
        let id = window.id();
        assert.check(
            "fence",
            Assert::NOSTORE | Assert::NOPUT | Assert::NOPRECEDE | Assert::NOSUCCEED,
        )?;
        let w = self.window(id)?;
        Check {
            call: "fence",
            window: id,
        }
        .fence(&w.access, &w.exposure)?;
        if let (true, AccessEpoch::Fence { operations }) =
            (assert.contains(Assert::NOPRECEDE), &w.access)
        {
            return Err(RmaError::NoPrecedeViolated {
                window: id,
                operations: *operations,
            });
        }
        let (local, remote) = (w.options.local_type, w.options.remote_type);
        let mut release = Actions::NONE;
        if !assert.contains(Assert::NOSTORE) {
            release = release.union(release_actions(local));
        }
        if !assert.contains(Assert::NOPRECEDE) {
            release = release.union(release_actions(remote));
        }
        self.coherence(id, release);
        if !assert.contains(Assert::NOPRECEDE | Assert::NOSUCCEED) {
            let start = self.hal.cycles();
            self.window_comm(id).barrier();
            let cycles = self.hal.cycles().saturating_sub(start);
            self.window_mut(id)?.stats.wait_cycles += cycles;
        }
        let mut acquire = Actions::NONE;
        if !assert.contains(Assert::NOPUT) {
            acquire = acquire.union(acquire_actions(local));
        }
        if !assert.contains(Assert::NOSUCCEED) {
            acquire = acquire.union(acquire_actions(remote));
        }
        let mut acquire = guard_invalidation(acquire, &self.types(id));
        // Nothing was written since the release: what it pushed out is out.
        acquire.flush &= !release.flush;
        acquire.write_back &= !release.write_back;
        self.coherence(id, acquire);
        let w = self.window_mut(id)?;
        if assert.contains(Assert::NOSUCCEED) {
            w.access = AccessEpoch::None;
            w.exposure = ExposureEpoch::None;
        } else {
            w.access = AccessEpoch::Refence;
            w.exposure = ExposureEpoch::Refence;
        }
        w.stats.fences += 1;
        Ok(())
    }

    /// Opens an exposure epoch for the origins in `group`
    /// (`MPI_Win_post`): releases the local window (unless `NOSTORE`),
    /// then tells each origin. Never waits for the origins.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Assert)` for `NOPRECEDE`
    /// or `NOSUCCEED`; `Err(Sync)` while an exposure epoch is open;
    /// `Err(GroupMismatch)` for a group of another run; `Err(NotMember)`
    /// for a group with a process outside the window; `Err(GroupTooLarge)`
    /// beyond [`MAX_POST_GROUP`] origins. Groups name processes of the
    /// run; each is translated to its rank in the window.
    pub fn post<T>(
        &mut self,
        window: Window<T>,
        group: &Group,
        assert: Assert,
    ) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Post, window.id(), None, 0);
        let id = window.id();
        assert.check("post", Assert::NOCHECK | Assert::NOSTORE | Assert::NOPUT)?;
        let w = self.window(id)?;
        Check {
            call: "post",
            window: id,
        }
        .post(&w.exposure)?;
        let local = w.options.local_type;
        let mut origins = reuse(&mut self.window_mut(id)?.spare.origins);
        self.members("post", id, group, &mut origins)?;
        if origins.len() as u32 > MAX_POST_GROUP {
            return Err(RmaError::GroupTooLarge {
                call: "post",
                size: origins.len() as u32,
                max: MAX_POST_GROUP,
            });
        }
        if !assert.contains(Assert::NOSTORE) {
            self.coherence(id, release_actions(local));
        }
        let hal = self.hal;
        let w = self.window(id)?;
        let me = w.ranks.rank;
        let cores = origins
            .iter()
            .map(|&o| (w.ranks.cores[o as usize], w.remotes[o as usize].record));
        let start = hal.cycles();
        pscw::post(hal, me, w.remotes[me as usize].record, cores);
        let w = self.window_mut(id)?;
        w.stats.wait_cycles += hal.cycles().saturating_sub(start);
        w.exposure = ExposureEpoch::Post {
            origins,
            noput: assert.contains(Assert::NOPUT),
        };
        w.stats.posts += 1;
        Ok(())
    }

    /// Opens an access epoch to the targets in `group` (`MPI_Win_start`):
    /// flushes and invalidates what earlier epochs left in the cache, and
    /// returns without waiting; each put or get waits for its target's
    /// post (trigger-only).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Assert)` for anything but
    /// `NOCHECK`; `Err(Sync)` while an access epoch is open (but a fence's
    /// without operations); `Err(GroupMismatch)`; `Err(NotMember)`, as for
    /// [`Rma::post`].
    pub fn start<T>(
        &mut self,
        window: Window<T>,
        group: &Group,
        assert: Assert,
    ) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Start, window.id(), None, 0);
        let id = window.id();
        assert.check("start", Assert::NOCHECK)?;
        let w = self.window(id)?;
        Check {
            call: "start",
            window: id,
        }
        .start(&w.access)?;
        let remote = w.options.remote_type;
        let mut targets = reuse(&mut self.window_mut(id)?.spare.targets);
        self.members("start", id, group, &mut targets)?;
        let acquire = guard_invalidation(acquire_actions(remote), &self.types(id));
        self.coherence(id, acquire);
        let w = self.window_mut(id)?;
        w.access = AccessEpoch::Start { targets };
        w.stats.starts += 1;
        Ok(())
    }

    /// Ends the access epoch (`MPI_Win_complete`): releases this core's
    /// puts, waits for every target's post, then tells each target.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Sync)` without a start
    /// epoch.
    pub fn complete<T>(&mut self, window: Window<T>) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Complete, window.id(), None, 0);
        let id = window.id();
        let w = self.window(id)?;
        Check {
            call: "complete",
            window: id,
        }
        .complete(&w.access)?;
        let remote = w.options.remote_type;
        self.coherence(id, release_actions(remote));
        let hal = self.hal;
        let w = self.window_mut(id)?;
        let AccessEpoch::Start { targets } = core::mem::take(&mut w.access) else {
            unreachable!("checked above");
        };
        let (ranks, remotes) = (&w.ranks, &w.remotes);
        let mine = remotes[ranks.rank as usize].record;
        let cores = targets
            .iter()
            .map(|&t| (t, ranks.cores[t as usize], remotes[t as usize].record));
        let start = hal.cycles();
        w.stats.polls += pscw::complete(hal, hal.core(), mine, &mut w.seen, cores);
        w.stats.wait_cycles += hal.cycles().saturating_sub(start);
        w.spare.targets = targets;
        w.stats.completes += 1;
        Ok(())
    }

    /// Ends the exposure epoch (`MPI_Win_wait`): waits until every origin
    /// completed, then invalidates the local window (unless post asserted
    /// `NOPUT`), so loads see what was put.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Sync)` without a post
    /// epoch.
    pub fn wait<T>(&mut self, window: Window<T>) -> Result<(), RmaError> {
        let _span = Span::begin(self.hal, Op::Wait, window.id(), None, 0);
        let id = window.id();
        self.check_wait("wait", id)?;
        let hal = self.hal;
        let mine = self.record(id, self.window_rank(id));
        let start = hal.cycles();
        let polls = pscw::wait(hal, mine);
        let w = self.window_mut(id)?;
        w.stats.polls += polls;
        w.stats.wait_cycles += hal.cycles().saturating_sub(start);
        self.end_exposure(id);
        Ok(())
    }

    /// Ends the exposure epoch if every origin has completed
    /// (`MPI_Win_test`): `true` then, as after [`Rma::wait`]; `false` and
    /// nothing changed otherwise.
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Sync)` without a post
    /// epoch.
    pub fn test<T>(&mut self, window: Window<T>) -> Result<bool, RmaError> {
        let id = window.id();
        self.check_wait("test", id)?;
        if !pscw::test(self.hal, self.record(id, self.window_rank(id))) {
            self.window_mut(id)?.stats.polls += 1;
            return Ok(false);
        }
        self.end_exposure(id);
        Ok(true)
    }

    fn check_wait(&self, call: &'static str, id: u32) -> Result<(), RmaError> {
        let w = self.window(id)?;
        Check { call, window: id }.wait(&w.exposure)
    }

    fn end_exposure(&mut self, id: u32) {
        let w = self.window(id).expect("checked by the caller");
        let noput = matches!(w.exposure, ExposureEpoch::Post { noput: true, .. });
        if !noput {
            let acquire =
                guard_invalidation(acquire_actions(w.options.local_type), &self.types(id));
            self.coherence(id, acquire);
        }
        let w = self.window_mut(id).expect("checked by the caller");
        if let ExposureEpoch::Post { origins, .. } = core::mem::take(&mut w.exposure) {
            w.spare.origins = origins;
        }
        w.stats.waits += 1;
    }
}
