// SPDX-License-Identifier: MIT OR Apache-2.0
//! Synchronisation: fence, post/start/complete/wait, lock/unlock and
//! flush as an origin, and the lock queue as a target.

use alloc::vec::Vec;

use super::window::{Holders, LockEpoch, MsgWindow, Op, Waiter};
use super::wire::{EXCLUSIVE, Header, Kind, LOCK, SHARED, UNLOCK};
use super::{LockMode, MsgRma, sync_error};
use crate::comm::{Group, check_rank};
use crate::hal::Hal;
use crate::{LockType, RmaError};

/// How the last op a sync call sends is marked.
#[derive(Debug, Clone, Copy)]
enum Last {
    /// Not at all (fence, complete, flush).
    Plain,
    /// `UNLOCK`: the lock epoch ends with it.
    Unlock,
    /// `LOCK|UNLOCK`: lock, op and unlock in one message.
    LockUnlock(LockType),
}

impl<'h, H: Hal> MsgRma<'h, H> {
    /// Fence (collective): ends the access and exposure epoch of the
    /// previous fence and opens the next.
    pub fn fence(&mut self, window: MsgWindow) -> Result<(), RmaError> {
        let w = self.win(window)?;
        if w.start.is_some() || w.exposure.is_some() || !w.locks.is_empty() {
            return Err(sync_error(
                "fence",
                window.0,
                "a PSCW or lock epoch is open on this window",
            ));
        }
        let ops = core::mem::take(&mut self.win_mut(window.0)?.queued);
        // In queue order, so ops to one target keep their order.
        for op in ops {
            self.send(window.0, op.target, op.header.encode(&op.payload))?;
        }
        let done = Header::new(Kind::FenceDone, window.0).encode(&[]);
        for peer in 0..self.size() {
            self.send(window.0, peer, done.clone())?;
        }
        let w = self.win_mut(window.0)?;
        w.fences += 1;
        let k = w.fences;
        self.wait_until("fence", window.0, |w| {
            w.fence_done.iter().all(|&d| d >= k) && !w.gets_pending()
        })?;
        self.win_mut(window.0)?.fence_open = true;
        Ok(())
    }

    /// Opens an exposure epoch for the origins in `group`: sends each a
    /// `Post`.
    pub fn post(&mut self, window: MsgWindow, group: &Group) -> Result<(), RmaError> {
        self.check_group(group)?;
        if self.win(window)?.exposure.is_some() {
            return Err(sync_error(
                "post",
                window.0,
                "an exposure epoch is open already",
            ));
        }
        let post = Header::new(Kind::Post, window.0).encode(&[]);
        for &origin in group.members() {
            self.send(window.0, origin, post.clone())?;
        }
        self.win_mut(window.0)?.exposure = Some(group.members().to_vec());
        Ok(())
    }

    /// Opens an access epoch to the targets in `group`; sends nothing (the
    /// posts are awaited in [`complete`](Self::complete), as in CH3).
    pub fn start(&mut self, window: MsgWindow, group: &Group) -> Result<(), RmaError> {
        self.check_group(group)?;
        let w = self.win(window)?;
        let problem = if w.start.is_some() {
            Some("a start epoch is open already")
        } else if !w.locks.is_empty() {
            Some("a lock epoch is open")
        } else if !w.queued.is_empty() {
            Some("the fence epoch has operations not yet fenced")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(sync_error("start", window.0, problem));
        }
        let w = self.win_mut(window.0)?;
        w.fence_open = false;
        w.start = Some(group.members().to_vec());
        Ok(())
    }

    /// Ends the start epoch: as each target's `Post` arrives, sends it the
    /// queued ops and `Complete`; then waits for the get replies.
    pub fn complete(&mut self, window: MsgWindow) -> Result<(), RmaError> {
        let Some(targets) = self.win(window)?.start.clone() else {
            return Err(sync_error("complete", window.0, "no start epoch is open"));
        };
        let mut left = targets;
        while !left.is_empty() {
            let mut i = 0;
            while i < left.len() {
                let t = left[i];
                let w = self.win_mut(window.0)?;
                if w.posts[t as usize] == 0 {
                    i += 1;
                    continue;
                }
                w.posts[t as usize] -= 1;
                self.flush_ops(window.0, t, Last::Plain)?;
                let complete = Header::new(Kind::Complete, window.0).encode(&[]);
                self.send(window.0, t, complete)?;
                left.swap_remove(i);
            }
            if !left.is_empty() {
                let waiting = left.clone();
                self.wait_until("complete", window.0, |w| {
                    waiting.iter().any(|&t| w.posts[t as usize] > 0)
                })?;
            }
        }
        self.wait_until("complete", window.0, |w| !w.gets_pending())?;
        self.win_mut(window.0)?.start = None;
        Ok(())
    }

    /// Ends the exposure epoch: progresses until every origin's
    /// `Complete` arrived (and with it all its ops were applied).
    pub fn wait(&mut self, window: MsgWindow) -> Result<(), RmaError> {
        let Some(origins) = self.win(window)?.exposure.clone() else {
            return Err(sync_error("wait", window.0, "no exposure epoch is open"));
        };
        self.wait_until("wait", window.0, |w| {
            origins.iter().all(|&o| w.completes[o as usize] > 0)
        })?;
        let w = self.win_mut(window.0)?;
        for &o in &origins {
            w.completes[o as usize] -= 1;
        }
        w.exposure = None;
        Ok(())
    }

    /// Opens a lock epoch on `target`; in the immediate mode, sends the
    /// lock request now.
    pub fn lock(&mut self, window: MsgWindow, ty: LockType, target: u32) -> Result<(), RmaError> {
        check_rank("lock target", target, self.size())?;
        let w = self.win(window)?;
        if w.locks.contains_key(&target) {
            return Err(RmaError::Lock {
                call: "lock",
                window: window.0,
                rank: target,
                problem: "is locked by this core already",
            });
        }
        let problem = if w.start.is_some() {
            Some("a start epoch is open")
        } else if !w.queued.is_empty() && w.locks.is_empty() {
            Some("the fence epoch has operations not yet fenced")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(sync_error("lock", window.0, problem));
        }
        let immediate = self.options.mode == LockMode::Immediate;
        let w = self.win_mut(window.0)?;
        w.fence_open = false;
        w.locks.insert(
            target,
            LockEpoch {
                ty,
                requested: immediate,
                acquired: false,
                awaiting_done: false,
            },
        );
        if self.options.mode == LockMode::Immediate {
            self.request_lock(window.0, target, ty)?;
        }
        Ok(())
    }

    /// Asks `target` for its lock: a `LockRequest`, or, for this rank's
    /// own lock, a place in its queue at once (the grant still comes as a
    /// message to self, so every wait looks the same).
    fn request_lock(&mut self, window: u32, target: u32, ty: LockType) -> Result<(), RmaError> {
        let me = self.rank();
        if target != me {
            return self.send(window, target, lock_request(window, ty));
        }
        let w = self.win_mut(window)?;
        w.stats.lock_requests_served += 1;
        w.queue.push_back(Waiter {
            origin: me,
            exclusive: ty == LockType::Exclusive,
            merged: None,
        });
        self.grant(window)
    }

    /// Ends the lock epoch on `target`: sends the queued ops with the lock
    /// protocol of the mode (module doc) and waits until they are applied.
    pub fn unlock(&mut self, window: MsgWindow, target: u32) -> Result<(), RmaError> {
        check_rank("unlock target", target, self.size())?;
        let Some(epoch) = self.win(window)?.locks.get(&target).copied() else {
            return Err(RmaError::Lock {
                call: "unlock",
                window: window.0,
                rank: target,
                problem: "is not locked by this core",
            });
        };
        let w = self.win(window)?;
        let ops = w.queued.iter().filter(|op| op.target == target).count();
        let mut epoch = epoch;
        if !epoch.acquired && !epoch.awaiting_done {
            match (self.options.mode, ops) {
                (LockMode::Default, 0) => {}
                (LockMode::Default, 1) => {
                    self.flush_ops(window.0, target, Last::LockUnlock(epoch.ty))?;
                    epoch.awaiting_done = true;
                    self.set_epoch(window.0, target, epoch)?;
                }
                _ => self.acquire(window.0, target, &mut epoch)?,
            }
        }
        if epoch.acquired && !epoch.awaiting_done {
            if ops == 0 {
                let unlock = Header::new(Kind::Unlock, window.0).encode(&[]);
                self.send(window.0, target, unlock)?;
            } else {
                self.flush_ops(window.0, target, Last::Unlock)?;
                epoch.awaiting_done = true;
                self.set_epoch(window.0, target, epoch)?;
            }
        }
        if epoch.awaiting_done {
            self.await_unlock_done(window.0, target)?;
        }
        self.win_mut(window.0)?.locks.remove(&target);
        Ok(())
    }

    /// Completes the ops queued for `target` in the lock epoch without
    /// ending it (MPI_Win_flush): takes the lock if it was deferred, sends
    /// the ops and a 0-byte get, whose reply proves every earlier op is
    /// applied (the target applies a sender's messages in order). Gets
    /// issued before can be [`take`](Self::take)n afterwards; a
    /// read-modify-write is get, flush, put, unlock.
    pub fn flush(&mut self, window: MsgWindow, target: u32) -> Result<(), RmaError> {
        check_rank("flush target", target, self.size())?;
        let Some(epoch) = self.win(window)?.locks.get(&target).copied() else {
            return Err(RmaError::Lock {
                call: "flush",
                window: window.0,
                rank: target,
                problem: "is not locked by this core",
            });
        };
        let mut epoch = epoch;
        if !epoch.acquired {
            self.acquire(window.0, target, &mut epoch)?;
        }
        let marker = self.get(window, target, 0, 0)?;
        let w = self.win_mut(window.0)?;
        w.stats.gets -= 1;
        let ids = self.flush_ops(window.0, target, Last::Plain)?;
        self.wait_until("flush", window.0, |w| {
            ids.iter()
                .all(|id| w.gets.get(id).is_none_or(Option::is_some))
        })?;
        self.take(marker).map(drop)
    }

    /// Requests the lock unless that happened already, and waits for the
    /// grant; the epoch's record follows each step.
    fn acquire(&mut self, window: u32, target: u32, epoch: &mut LockEpoch) -> Result<(), RmaError> {
        if !epoch.requested {
            self.request_lock(window, target, epoch.ty)?;
            epoch.requested = true;
            self.set_epoch(window, target, *epoch)?;
        }
        self.await_grant(window, target)?;
        epoch.acquired = true;
        self.set_epoch(window, target, *epoch)
    }

    fn set_epoch(&mut self, window: u32, target: u32, epoch: LockEpoch) -> Result<(), RmaError> {
        self.win_mut(window)?.locks.insert(target, epoch);
        Ok(())
    }

    fn await_grant(&mut self, window: u32, target: u32) -> Result<(), RmaError> {
        let t = target as usize;
        self.wait_until("unlock", window, |w| w.grants[t] > 0)?;
        self.win_mut(window)?.grants[t] -= 1;
        Ok(())
    }

    fn await_unlock_done(&mut self, window: u32, target: u32) -> Result<(), RmaError> {
        let t = target as usize;
        self.wait_until("unlock", window, |w| w.unlock_done[t] > 0)?;
        self.win_mut(window)?.unlock_done[t] -= 1;
        Ok(())
    }

    /// Sends the ops queued for `target`, in order, the last one marked as
    /// `last` says; returns the numbers of the gets among them.
    fn flush_ops(&mut self, window: u32, target: u32, last: Last) -> Result<Vec<u32>, RmaError> {
        let w = self.win_mut(window)?;
        let (mine, rest): (Vec<Op>, Vec<Op>) = core::mem::take(&mut w.queued)
            .into_iter()
            .partition(|op| op.target == target);
        w.queued = rest;
        let final_op = mine.len().saturating_sub(1);
        let mut gets = Vec::new();
        for (i, mut op) in mine.into_iter().enumerate() {
            if i == final_op {
                match last {
                    Last::Plain => {}
                    Last::Unlock => op.header.flags |= UNLOCK,
                    Last::LockUnlock(ty) => {
                        op.header.flags |= LOCK | UNLOCK;
                        op.header.lock = lock_byte(ty);
                    }
                }
            }
            if op.header.kind == Kind::Get {
                gets.push(op.header.id);
            }
            self.send(window, target, op.header.encode(&op.payload))?;
        }
        Ok(gets)
    }

    fn check_group(&self, group: &Group) -> Result<(), RmaError> {
        if group.world_size() != self.size() {
            return Err(RmaError::GroupMismatch {
                first: group.world_size(),
                second: self.size(),
            });
        }
        Ok(())
    }

    /// Drops `origin`'s hold on this rank's lock.
    pub(super) fn release(&mut self, window: u32, origin: u32) -> Result<(), RmaError> {
        let w = self.win_mut(window)?;
        w.holders = match w.holders {
            Holders::Exclusive(o) if o == origin => Holders::None,
            Holders::Shared(1) => Holders::None,
            Holders::Shared(k) if k > 1 => Holders::Shared(k - 1),
            _ => {
                return Err(RmaError::Lock {
                    call: "progress",
                    window,
                    rank: origin,
                    problem: "released a lock it does not hold",
                });
            }
        };
        Ok(())
    }

    /// Grants queued requests from the head on while they are compatible
    /// with the holders (strict FIFO). A merged lock-op-unlock request is
    /// applied and released on the spot.
    pub(super) fn grant(&mut self, window: u32) -> Result<(), RmaError> {
        loop {
            let w = self.win_mut(window)?;
            let Some(head) = w.queue.front() else {
                return Ok(());
            };
            w.holders = match (w.holders, head.exclusive) {
                (Holders::None, true) => Holders::Exclusive(head.origin),
                (Holders::None, false) => Holders::Shared(1),
                (Holders::Shared(k), false) => Holders::Shared(k + 1),
                _ => return Ok(()),
            };
            let waiter = w.queue.pop_front().expect("the head is there");
            match waiter.merged {
                Some(message) => {
                    let (h, payload) = Header::decode(&message).expect("decoded before queueing");
                    self.apply(waiter.origin, h, payload)?;
                    self.release(window, waiter.origin)?;
                }
                None => {
                    let granted = Header::new(Kind::LockGranted, window).encode(&[]);
                    self.send(window, waiter.origin, granted)?;
                }
            }
        }
    }
}

fn lock_byte(ty: LockType) -> u8 {
    match ty {
        LockType::Exclusive => EXCLUSIVE,
        LockType::Shared => SHARED,
    }
}

fn lock_request(window: u32, ty: LockType) -> Vec<u8> {
    let mut h = Header::new(Kind::LockRequest, window);
    h.lock = lock_byte(ty);
    h.encode(&[])
}
