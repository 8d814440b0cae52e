// SPDX-License-Identifier: MIT OR Apache-2.0
//! Windows of the message-based layer: their handles, their state on each
//! rank (memory, epochs, queued operations, the lock queue) and their
//! creation and freeing.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

use super::wire::{Header, Kind};
use super::{MsgRma, sync_error};
use crate::comm::check_rank;
use crate::hal::Hal;
use crate::{LockType, RmaError};

/// One window of the message-based layer, as a handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MsgWindow(pub(super) u32);

impl MsgWindow {
    /// The window's number (the same on every rank).
    pub fn id(self) -> u32 {
        self.0
    }
}

/// Traffic of one window on one rank, so benchmarks can show what the
/// message-based layer costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MsgStats {
    /// Messages sent to other ranks (through the MPB).
    pub messages_sent: u64,
    /// Bytes of those messages, headers included.
    pub bytes_sent: u64,
    /// Messages to this rank itself (a local queue, not the MPB).
    pub messages_to_self: u64,
    /// Of the messages sent (to others or self), those this rank sent as
    /// a target: grants, get replies and unlock dones.
    pub replies_sent: u64,
    /// Messages received for this window, from self included.
    pub messages_received: u64,
    /// Bytes of those messages, headers included.
    pub bytes_received: u64,
    /// Puts issued.
    pub puts: u64,
    /// Gets issued.
    pub gets: u64,
    /// Accumulates issued.
    pub accumulates: u64,
    /// Operations applied to this rank's window as a target.
    pub ops_applied: u64,
    /// Lock requests this rank put in its queue as a target.
    pub lock_requests_served: u64,
}

/// An operation queued at the origin until the epoch ends.
#[derive(Debug)]
pub(super) struct Op {
    pub(super) target: u32,
    pub(super) header: Header,
    pub(super) payload: Vec<u8>,
}

/// Who holds a target's lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holders {
    None,
    Shared(u32),
    Exclusive(u32),
}

/// A lock request waiting in the target's queue.
#[derive(Debug)]
pub(super) struct Waiter {
    pub(super) origin: u32,
    pub(super) exclusive: bool,
    /// The op of a merged lock-op-unlock message, applied when granted.
    pub(super) merged: Option<Vec<u8>>,
}

/// A lock epoch of this rank as an origin.
#[derive(Debug, Clone, Copy)]
pub(super) struct LockEpoch {
    pub(super) ty: LockType,
    /// The request left (immediate mode, or a deferred lock being taken).
    pub(super) requested: bool,
    /// The grant arrived, so unlock must release explicitly.
    pub(super) acquired: bool,
    /// The epoch's last message left; only its done is awaited. With the
    /// two flags above, an unlock or flush that failed on the stall limit
    /// can be called again and continues where it stopped.
    pub(super) awaiting_done: bool,
}

/// One window's state on one rank: its memory as a target, its epochs as
/// an origin, and counts of the control messages that arrived.
#[derive(Debug)]
pub(super) struct Win {
    pub(super) data: Vec<u8>,
    pub(super) sizes: Vec<u32>,
    pub(super) creates: u32,
    pub(super) frees: u32,
    /// A fence opened an access epoch.
    pub(super) fence_open: bool,
    /// Fences this rank entered.
    pub(super) fences: u32,
    /// `FenceDone` per source, since creation.
    pub(super) fence_done: Vec<u32>,
    /// Targets of the open start epoch.
    pub(super) start: Option<Vec<u32>>,
    /// Origins of the open exposure epoch.
    pub(super) exposure: Option<Vec<u32>>,
    /// `Post` per target, not yet consumed by a `complete`.
    pub(super) posts: Vec<u32>,
    /// `Complete` per origin, not yet consumed by a `wait`.
    pub(super) completes: Vec<u32>,
    pub(super) locks: BTreeMap<u32, LockEpoch>,
    /// `LockGranted` per target, not yet consumed.
    pub(super) grants: Vec<u32>,
    /// `UnlockDone` (or `GetReply` with `DONE`) per target, not yet consumed.
    pub(super) unlock_done: Vec<u32>,
    pub(super) queued: Vec<Op>,
    /// Gets issued and their data once it arrived.
    pub(super) gets: BTreeMap<u32, Option<Vec<u8>>>,
    pub(super) next_get: u32,
    pub(super) holders: Holders,
    pub(super) queue: VecDeque<Waiter>,
    pub(super) stats: MsgStats,
}

impl Win {
    fn new(size: u32, bytes: u32, me: u32) -> Self {
        let n = size as usize;
        let mut sizes = alloc::vec![0; n];
        sizes[me as usize] = bytes;
        Self {
            data: alloc::vec![0; bytes as usize],
            sizes,
            creates: 0,
            frees: 0,
            fence_open: false,
            fences: 0,
            fence_done: alloc::vec![0; n],
            start: None,
            exposure: None,
            posts: alloc::vec![0; n],
            completes: alloc::vec![0; n],
            locks: BTreeMap::new(),
            grants: alloc::vec![0; n],
            unlock_done: alloc::vec![0; n],
            queued: Vec::new(),
            gets: BTreeMap::new(),
            next_get: 0,
            holders: Holders::None,
            queue: VecDeque::new(),
            stats: MsgStats::default(),
        }
    }

    pub(super) fn gets_pending(&self) -> bool {
        self.gets.values().any(Option::is_none)
    }
}

impl<'h, H: Hal> MsgRma<'h, H> {
    pub(super) fn win(&self, window: MsgWindow) -> Result<&Win, RmaError> {
        self.windows
            .get(&window.0)
            .ok_or(RmaError::UnknownWindow { window: window.0 })
    }

    pub(super) fn win_mut(&mut self, window: u32) -> Result<&mut Win, RmaError> {
        self.windows
            .get_mut(&window)
            .ok_or(RmaError::UnknownWindow { window })
    }

    /// Creates a window of `bytes` zeroed bytes on every rank (collective;
    /// sizes may differ per rank). Each rank sends `Create` with its size
    /// to every other and progresses until it has everyone's.
    pub fn create(&mut self, bytes: u32) -> Result<MsgWindow, RmaError> {
        let id = self.next_window;
        self.next_window += 1;
        let (me, n) = (self.rank(), self.size());
        self.windows.insert(id, Win::new(n, bytes, me));
        let mut create = Header::new(Kind::Create, id);
        create.len = bytes;
        for peer in (0..n).filter(|&p| p != me) {
            self.send(id, peer, create.encode(&[]))?;
        }
        let (early, later): (Vec<_>, Vec<_>) = core::mem::take(&mut self.early)
            .into_iter()
            .partition(|(_, m)| Header::decode(m).is_some_and(|(h, _)| h.window == id));
        self.early = later;
        for (src, message) in early {
            self.dispatch(src, message)?;
        }
        self.wait_until("create", id, |w| w.creates == n - 1)?;
        Ok(MsgWindow(id))
    }

    /// Frees a window (collective): no epoch of this rank may be open.
    /// Each rank sends `Free` to every other and progresses until it has
    /// everyone's, so nobody still needs this rank's window afterwards.
    pub fn free(&mut self, window: MsgWindow) -> Result<(), RmaError> {
        let w = self.win(window)?;
        let problem = if w.start.is_some() {
            Some("a start epoch is open")
        } else if w.exposure.is_some() {
            Some("an exposure epoch is open")
        } else if !w.locks.is_empty() {
            Some("a lock epoch is open")
        } else if !w.queued.is_empty() {
            Some("operations are queued")
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(sync_error("free", window.0, problem));
        }
        let (me, n) = (self.rank(), self.size());
        let free = Header::new(Kind::Free, window.0);
        for peer in (0..n).filter(|&p| p != me) {
            self.send(window.0, peer, free.encode(&[]))?;
        }
        self.wait_until("free", window.0, |w| w.frees == n - 1)?;
        self.windows.remove(&window.0);
        Ok(())
    }

    /// This rank's window memory (its own accesses between epochs).
    pub fn local(&self, window: MsgWindow) -> Result<&[u8], RmaError> {
        Ok(&self.win(window)?.data)
    }

    /// This rank's window memory, to write.
    pub fn local_mut(&mut self, window: MsgWindow) -> Result<&mut [u8], RmaError> {
        Ok(&mut self.win_mut(window.0)?.data)
    }

    /// Bytes of `rank`'s window.
    pub fn size_of(&self, window: MsgWindow, rank: u32) -> Result<u32, RmaError> {
        check_rank("window owner", rank, self.size())?;
        Ok(self.win(window)?.sizes[rank as usize])
    }

    /// Whether no origin holds this rank's lock of the window.
    #[cfg(test)]
    pub(crate) fn unlocked(&self, window: MsgWindow) -> Result<bool, RmaError> {
        Ok(self.win(window)?.holders == Holders::None)
    }

    /// The window's traffic on this rank so far.
    pub fn stats(&self, window: MsgWindow) -> Result<MsgStats, RmaError> {
        Ok(self.win(window)?.stats)
    }
}
