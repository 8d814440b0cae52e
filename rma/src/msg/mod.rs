// SPDX-License-Identifier: MIT OR Apache-2.0
//! A message-based one-sided baseline in the style of RCKMPI (MPICH CH3
//! over the MPB channel): operations and synchronisation travel as
//! messages through [`Comm`], and the TARGET applies them in its progress
//! loop. It exists to be compared with the memory-based layers
//! ([`active`](crate::active), [`passive`](crate::passive)), which never
//! need the target's help.
//!
//! # Model
//! A window is a `Vec<u8>` owned by its target ([`MsgRma::local`]);
//! origins never touch it. As in CH3, operations are queued at the origin
//! and leave at the synchronisation call that ends the epoch. A target
//! serves messages only while it is inside a call that progresses:
//! [`fence`](MsgRma::fence), [`complete`](MsgRma::complete) (waiting for
//! posts), [`wait`](MsgRma::wait), [`unlock`](MsgRma::unlock),
//! [`create`](MsgRma::create), [`free`](MsgRma::free), [`flush`](MsgRma::flush)
//! or [`progress`](MsgRma::progress) (a send whose buffer is busy only
//! takes arrivals into the channel's inbox). Hence passive
//! target is not passive: a lock on a rank that computes without calling
//! into this layer waits until it does. That is the point of the baseline.
//!
//! # Messages
//! Every message is a 20-byte header of five little-endian words, then a
//! payload (word 0 holds four bytes: kind, flags, lock type, element type):
//!
//! | kind | fields used | payload | meaning |
//! |---|---|---|---|
//! | 1 `Create` | window, len = size | - | window creation: the sender's window size |
//! | 2 `Free` | window | - | the sender frees the window |
//! | 3 `Put` | window, offset, flags, lock | data | write data at offset |
//! | 4 `Get` | window, offset, len, id, flags, lock | - | read len bytes, answer with `GetReply` |
//! | 5 `Accumulate` | window, offset, dtype, flags, lock | values | add values element-wise (SUM) |
//! | 6 `GetReply` | window, id, flags (`DONE`) | data | a get's data; `DONE`: its lock epoch is complete too |
//! | 7 `FenceDone` | window | - | the sender's fence: all its ops to the receiver precede this |
//! | 8 `Post` | window | - | target to origin: exposure epoch open (PSCW) |
//! | 9 `Complete` | window | - | origin to target: all its ops of the access epoch precede this |
//! | 10 `LockRequest` | window, lock | - | enqueue the sender in the lock queue |
//! | 11 `LockGranted` | window | - | the sender's request reached the head and was granted |
//! | 12 `Unlock` | window | - | release a granted lock whose epoch has no ops left (immediate mode, or after a flush) |
//! | 13 `UnlockDone` | window | - | the lock epoch's last op is applied and the lock released |
//!
//! Flags: `LOCK` (1) = this op also requests the lock of type `lock`
//! (0 shared, 1 exclusive); `UNLOCK` (2) = release the sender's lock after
//! applying it and answer `UnlockDone` (or `GetReply` with `DONE`);
//! `DONE` (4) as above. Element types: 1 = u32, 2 = u64, 3 = f64.
//! Messages between two ranks keep their order ([`Comm`] is FIFO per
//! pair), which every rule below relies on. Messages for a window the
//! receiver has not created yet wait until it does.
//!
//! # Synchronisation
//! - **Fence** (collective): send the queued ops, then `FenceDone` to every
//!   rank; progress until the `k`-th `FenceDone` of every rank (`k` = this
//!   rank's fence count) and every get reply arrived. Ops of the next epoch
//!   that arrive while a slower rank still is in its fence are applied at
//!   once: they could only conflict with accesses of that next epoch.
//!   Per rank and fence: ops + get replies + `n` `FenceDone` (one to self).
//! - **PSCW**: `post` sends `Post` to each origin; `start` only records
//!   the group; `complete` waits for each target's `Post`, sends its ops
//!   and `Complete`, then waits for get replies; `wait` progresses until
//!   a `Complete` from every origin arrived.
//! - **Lock/unlock**: the target keeps a strict FIFO lock queue (no reader
//!   or writer preference): a request is granted when it is at the head
//!   and compatible with the holders; a release grants from the head on.
//!   [`LockMode::Default`] (CH3's deferred lock): `lock` sends nothing;
//!   `unlock` with no ops sends nothing (and so does not synchronise), with
//!   one op sends it with `LOCK|UNLOCK` (lock, op and unlock in one
//!   message) and waits for `UnlockDone`/`GetReply+DONE`, with more ops
//!   sends `LockRequest`, waits for `LockGranted`, sends the ops with
//!   `UNLOCK` on the last and waits for the done. [`LockMode::Immediate`]:
//!   `lock` sends `LockRequest`; `unlock` waits for `LockGranted`, then
//!   sends the ops with `UNLOCK` on the last and waits for the done, or,
//!   without ops, an explicit `Unlock` (no answer).
//!
//!   A lock on the caller's own window takes a place in its queue directly
//!   (no `LockRequest`; the grant is a message to self). [`flush`](MsgRma::flush)
//!   takes a deferred lock (request, grant), sends the queued ops and a
//!   0-byte `Get` whose reply proves the earlier ops are applied; the epoch
//!   then ends with the ops and `UNLOCK`, or an explicit `Unlock`.
//!
//! Messages per lock epoch on a remote target, origin's and target's
//! together (the test `message_counts_of_the_lock_modes` checks them):
//!
//! | epoch | default | immediate |
//! |---|---|---|
//! | no ops | 0 | 3: request, grant, unlock |
//! | 1 op | 2: lock+op+unlock, done | 4: request, grant, op+unlock, done |
//! | k ops | k + 3: request, grant, ops, done | k + 3: the same |
//!
//! plus a reply per get that is not the last op (a last get's reply
//! carries `DONE` in place of `UnlockDone`). Fence: per rank, its ops, its
//! get replies and `n` `FenceDone` (one to itself). PSCW per epoch: a
//! `Post` per origin, the ops and a `Complete` per target, get replies.
//! Headers are 20 bytes (RCKMPI's are 32). [`MsgStats`] counts messages
//! and bytes per window, and which of them were a target's answers.
//!
//! # Deadlock in the immediate mode
//! Immediate mode takes the lock at `lock`, so an origin that holds (or is
//! queued for) one target's lock while it waits in `unlock` for another's
//! creates hold-and-wait: two origins that lock two targets in opposite
//! orders wait for each other forever, although both keep progressing
//! (test `immediate_mode_deadlocks_on_crossed_locks`, caught by
//! [`MsgOptions::stall_limit`]). Default mode takes a lock only inside
//! `unlock` (or `flush`) and releases it before `unlock` returns, so
//! without flush an origin never holds one lock while waiting for another,
//! and the same program completes.
//!
//! The paper's lock microbenchmark (one lock at a time, empty epochs, a
//! random target and lock type) has no such cycle, and here it runs to the
//! end in both modes on 8 cores (test
//! `random_lock_mix_with_accumulates_completes_in_both_modes`): every wait
//! of this layer serves all sources, and a send whose buffer is busy
//! takes arrivals into the inbox ([`Comm::send_progressing`]). So the
//! deadlock the paper reports beyond 2 processes does not follow from the
//! lock protocol. It needs a rank that stops serving while others wait for
//! it, e.g. one that left the benchmark loop for a call that does not
//! progress RMA messages (here: a rank that computes without calling
//! [`progress`](MsgRma::progress); test
//! `a_passive_target_that_does_not_poll_stalls_its_origins`), which is the
//! paper's own suspicion ("missing message progress").
//!
//! A channel whose sends wait for the buffer without receiving
//! ([`MsgOptions::blocking_sends`]) is not the explanation either: with it,
//! every rank's second back-to-back send waits for a rank that waits in
//! its own, so on 3 or more ranks window creation itself deadlocks, and 2
//! ranks get through (test
//! `sends_without_receive_progress_deadlock_already_at_window_creation`);
//! RCKMPI, which passed MPICH's fence and PSCW tests, cannot work that way.
#![forbid(unsafe_code)]

#[cfg(test)]
mod tests;
mod wire;

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;

use wire::{DONE, EXCLUSIVE, HEADER, Header, Kind, LOCK, SHARED, UNLOCK};

use crate::comm::{Comm, Group, ReduceOp, Reducible, check_rank};
use crate::hal::Hal;
use crate::{LockType, RmaError};

/// When the lock of a lock/unlock epoch is requested (RCKMPI's two modes,
/// MPICH's `MPIR_CVAR_CH3_RMA_LOCK_IMMED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LockMode {
    /// Deferred to `unlock`; an empty epoch sends nothing and a single op
    /// travels together with lock and unlock in one message.
    #[default]
    Default,
    /// Requested at `lock`; `unlock` waits for the grant and releases with
    /// the last op or an explicit unlock message.
    Immediate,
}

/// Settings of a [`MsgRma`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MsgOptions {
    /// Lock protocol.
    pub mode: LockMode,
    /// If set, a wait that sees no message arrive for this many clock
    /// cycles fails with `Err(Sync)` instead of waiting on: how tests and
    /// benchmarks detect a deadlock without hanging. A failed `unlock`,
    /// `flush` or `wait` can be called again and continues where it
    /// stopped; after a failed `fence`, `complete`, `create` or `free` the
    /// window is unusable.
    pub stall_limit: Option<u64>,
    /// Sends of up to one data buffer wait for the buffer without taking
    /// arrivals ([`Comm::try_send`] in a loop) in place of
    /// [`Comm::send_progressing`]: a channel without receive progress in
    /// its sends, to show what that does to the lock protocols (module
    /// doc). Longer messages use the blocking [`Comm::send`].
    pub blocking_sends: bool,
}

/// One window of the message-based layer, as a handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MsgWindow(u32);

impl MsgWindow {
    /// The window's number (the same on every rank).
    pub fn id(self) -> u32 {
        self.0
    }
}

/// A get whose data is available through [`MsgRma::take`] once the epoch
/// that issued it has completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GetHandle {
    window: u32,
    id: u32,
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

/// Element types an accumulate adds (MPI_SUM on u32, u64 and f64).
pub trait AccElement: Reducible {
    /// Code in the `dtype` byte of the header.
    const CODE: u8;
}

impl AccElement for u32 {
    const CODE: u8 = 1;
}
impl AccElement for u64 {
    const CODE: u8 = 2;
}
impl AccElement for f64 {
    const CODE: u8 = 3;
}

/// An operation queued at the origin until the epoch ends.
#[derive(Debug)]
struct Op {
    target: u32,
    header: Header,
    payload: Vec<u8>,
}

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

/// Who holds a target's lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holders {
    None,
    Shared(u32),
    Exclusive(u32),
}

/// A lock request waiting in the target's queue.
#[derive(Debug)]
struct Waiter {
    origin: u32,
    exclusive: bool,
    /// The op of a merged lock-op-unlock message, applied when granted.
    merged: Option<Vec<u8>>,
}

/// A lock epoch of this rank as an origin.
#[derive(Debug, Clone, Copy)]
struct LockEpoch {
    ty: LockType,
    /// The request left (immediate mode, or a deferred lock being taken).
    requested: bool,
    /// The grant arrived, so unlock must release explicitly.
    acquired: bool,
    /// The epoch's last message left; only its done is awaited. With the
    /// two flags above, an unlock or flush that failed on the stall limit
    /// can be called again and continues where it stopped.
    awaiting_done: bool,
}

/// One window's state on one rank: its memory as a target, its epochs as
/// an origin, and counts of the control messages that arrived.
#[derive(Debug)]
struct Win {
    data: Vec<u8>,
    sizes: Vec<u32>,
    creates: u32,
    frees: u32,
    /// A fence opened an access epoch.
    fence_open: bool,
    /// Fences this rank entered.
    fences: u32,
    /// `FenceDone` per source, since creation.
    fence_done: Vec<u32>,
    /// Targets of the open start epoch.
    start: Option<Vec<u32>>,
    /// Origins of the open exposure epoch.
    exposure: Option<Vec<u32>>,
    /// `Post` per target, not yet consumed by a `complete`.
    posts: Vec<u32>,
    /// `Complete` per origin, not yet consumed by a `wait`.
    completes: Vec<u32>,
    locks: BTreeMap<u32, LockEpoch>,
    /// `LockGranted` per target, not yet consumed.
    grants: Vec<u32>,
    /// `UnlockDone` (or `GetReply` with `DONE`) per target, not yet consumed.
    unlock_done: Vec<u32>,
    queued: Vec<Op>,
    /// Gets issued and their data once it arrived.
    gets: BTreeMap<u32, Option<Vec<u8>>>,
    next_get: u32,
    holders: Holders,
    queue: VecDeque<Waiter>,
    stats: MsgStats,
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

    fn gets_pending(&self) -> bool {
        self.gets.values().any(Option::is_none)
    }
}

/// One rank's end of the message-based one-sided layer. It owns the
/// communicator: every message on it must belong to this layer while
/// windows exist, since the channel has no tags.
#[derive(Debug)]
pub struct MsgRma<'h, H: Hal> {
    comm: Comm<'h, H>,
    options: MsgOptions,
    windows: BTreeMap<u32, Win>,
    next_window: u32,
    /// Messages for windows this rank has not created yet, in arrival order.
    early: Vec<(u32, Vec<u8>)>,
}

impl<'h, H: Hal> MsgRma<'h, H> {
    /// The layer on top of `comm`.
    pub fn new(comm: Comm<'h, H>, options: MsgOptions) -> Self {
        Self {
            comm,
            options,
            windows: BTreeMap::new(),
            next_window: 0,
            early: Vec::new(),
        }
    }

    /// This rank.
    pub fn rank(&self) -> u32 {
        self.comm.rank()
    }

    /// Number of ranks.
    pub fn size(&self) -> u32 {
        self.comm.size()
    }

    /// The settings.
    pub fn options(&self) -> MsgOptions {
        self.options
    }

    /// The communicator underneath, for its statistics and for two-sided
    /// traffic while no window exists (or that no rank interleaves with
    /// this layer's messages).
    pub fn comm(&mut self) -> &mut Comm<'h, H> {
        &mut self.comm
    }

    /// The communicator back.
    pub fn into_comm(self) -> Comm<'h, H> {
        self.comm
    }

    fn win(&self, window: MsgWindow) -> Result<&Win, RmaError> {
        self.windows
            .get(&window.0)
            .ok_or(RmaError::UnknownWindow { window: window.0 })
    }

    fn win_mut(&mut self, window: u32) -> Result<&mut Win, RmaError> {
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

    /// The window's traffic on this rank so far.
    pub fn stats(&self, window: MsgWindow) -> Result<MsgStats, RmaError> {
        Ok(self.win(window)?.stats)
    }

    /// Checks that an op may go to `target` in the open access epoch and
    /// fits its window.
    fn check_access(
        &self,
        call: &'static str,
        window: MsgWindow,
        target: u32,
        offset: u32,
        len: usize,
    ) -> Result<(), RmaError> {
        check_rank("target", target, self.size())?;
        let w = self.win(window)?;
        if !w.locks.contains_key(&target) {
            match &w.start {
                Some(targets) if !targets.contains(&target) => {
                    return Err(RmaError::NotInGroup {
                        call,
                        window: window.0,
                        rank: target,
                        group: "start group",
                    });
                }
                Some(_) => {}
                None if w.fence_open => {}
                None => {
                    return Err(RmaError::Lock {
                        call,
                        window: window.0,
                        rank: target,
                        problem: "is in no access epoch of this core (no fence, start or lock)",
                    });
                }
            }
        }
        let size = u64::from(w.sizes[target as usize]);
        if u64::from(offset) + len as u64 > size {
            return Err(RmaError::Range {
                call,
                window: window.0,
                target,
                offset: i64::from(offset),
                len: len as u64,
                size,
            });
        }
        Ok(())
    }

    /// Queues a put of `data` at byte `offset` of `target`'s window; it
    /// leaves at the call that ends the epoch.
    pub fn put(
        &mut self,
        window: MsgWindow,
        target: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<(), RmaError> {
        self.check_access("put", window, target, offset, data.len())?;
        let mut header = Header::new(Kind::Put, window.0);
        header.offset = offset;
        let w = self.win_mut(window.0)?;
        w.stats.puts += 1;
        w.queued.push(Op {
            target,
            header,
            payload: data.to_vec(),
        });
        Ok(())
    }

    /// Queues a get of `len` bytes at `offset` of `target`'s window; its
    /// data is available through [`take`](Self::take) after the epoch.
    pub fn get(
        &mut self,
        window: MsgWindow,
        target: u32,
        offset: u32,
        len: u32,
    ) -> Result<GetHandle, RmaError> {
        self.check_access("get", window, target, offset, len as usize)?;
        let w = self.win_mut(window.0)?;
        let id = w.next_get;
        w.next_get = w.next_get.wrapping_add(1);
        let mut header = Header::new(Kind::Get, window.0);
        header.offset = offset;
        header.len = len;
        header.id = id;
        w.stats.gets += 1;
        w.gets.insert(id, None);
        w.queued.push(Op {
            target,
            header,
            payload: Vec::new(),
        });
        Ok(GetHandle {
            window: window.0,
            id,
        })
    }

    /// Queues an accumulate (MPI_SUM) of `values` into the elements at
    /// byte `offset` of `target`'s window.
    pub fn accumulate<T: AccElement>(
        &mut self,
        window: MsgWindow,
        target: u32,
        offset: u32,
        values: &[T],
    ) -> Result<(), RmaError> {
        let len = values.len() * T::BYTES;
        self.check_access("accumulate", window, target, offset, len)?;
        let mut payload = alloc::vec![0; len];
        for (value, out) in values.iter().zip(payload.chunks_exact_mut(T::BYTES)) {
            value.write_le(out);
        }
        let mut header = Header::new(Kind::Accumulate, window.0);
        header.offset = offset;
        header.dtype = T::CODE;
        let w = self.win_mut(window.0)?;
        w.stats.accumulates += 1;
        w.queued.push(Op {
            target,
            header,
            payload,
        });
        Ok(())
    }

    /// The data of a get whose epoch has completed (once).
    ///
    /// Return values: `Err(Sync)` if the epoch has not completed yet or the
    /// data was taken already.
    pub fn take(&mut self, get: GetHandle) -> Result<Vec<u8>, RmaError> {
        let w = self.win_mut(get.window)?;
        match w.gets.get(&get.id) {
            Some(Some(_)) => Ok(w.gets.remove(&get.id).flatten().expect("present")),
            Some(None) => Err(sync_error(
                "take",
                get.window,
                "the get's epoch has not completed yet",
            )),
            None => Err(sync_error(
                "take",
                get.window,
                "the get's data was taken already",
            )),
        }
    }

    /// Serves the messages that have arrived, without waiting: what a
    /// target must call while it computes, or origins wait for its locks.
    /// One call serves at most as many messages as there are ranks (about
    /// one poll of every source, as one MPI_Test polls the channel once):
    /// origins that answer each reply with their next request at once
    /// would otherwise keep it serving and never let it return.
    pub fn progress(&mut self) -> Result<(), RmaError> {
        for _ in 0..self.size() {
            let Some((src, message)) = self.comm.try_recv_any() else {
                break;
            };
            self.dispatch(src, message)?;
        }
        Ok(())
    }

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

    /// Sends one message of `window`, counting it.
    fn send(&mut self, window: u32, dest: u32, message: Vec<u8>) -> Result<(), RmaError> {
        let me = self.rank();
        if let Some(w) = self.windows.get_mut(&window) {
            if matches!(
                Header::decode(&message).map(|(h, _)| h.kind),
                Some(Kind::LockGranted | Kind::GetReply | Kind::UnlockDone)
            ) {
                w.stats.replies_sent += 1;
            }
            if dest == me {
                w.stats.messages_to_self += 1;
            } else {
                w.stats.messages_sent += 1;
                w.stats.bytes_sent += message.len() as u64;
            }
        }
        if !self.options.blocking_sends {
            return self.comm.send_progressing(dest, &message);
        }
        if message.len() > self.comm.layout().data_bytes as usize {
            return self.comm.send(dest, &message);
        }
        let hal = self.comm.hal();
        let limit = self.options.stall_limit;
        let start = hal.cycles();
        hal.wait_for(|| match self.comm.try_send(dest, &message) {
            Ok(true) => Some(Ok(())),
            Err(e) => Some(Err(e)),
            Ok(false) if limit.is_some_and(|l| hal.cycles().saturating_sub(start) > l) => {
                Some(Err(RmaError::Sync {
                    call: "send",
                    window,
                    problem: "the data buffer was not freed within the stall limit: its receiver does not take messages (deadlock?)",
                }))
            }
            Ok(false) => None,
        })
    }

    /// Progresses until `done` holds for the window's state. With a stall
    /// limit, fails once no message arrived for that many cycles.
    fn wait_until(
        &mut self,
        call: &'static str,
        window: u32,
        mut done: impl FnMut(&Win) -> bool,
    ) -> Result<(), RmaError> {
        let hal = self.comm.hal();
        let limit = self.options.stall_limit;
        let mut last = hal.cycles();
        hal.wait_for(|| {
            let mut any = false;
            while let Some((src, message)) = self.comm.try_recv_any() {
                any = true;
                if let Err(e) = self.dispatch(src, message) {
                    return Some(Err(e));
                }
            }
            match self.windows.get(&window) {
                None => return Some(Err(RmaError::UnknownWindow { window })),
                Some(w) if done(w) => return Some(Ok(())),
                Some(_) => {}
            }
            let now = hal.cycles();
            if any {
                last = now;
            } else if limit.is_some_and(|l| now.saturating_sub(last) > l) {
                return Some(Err(RmaError::Sync {
                    call,
                    window,
                    problem: "no message arrived within the stall limit: the ranks it waits for wait too (deadlock) or do not progress",
                }));
            }
            None
        })
    }

    /// Handles one message from `src`.
    fn dispatch(&mut self, src: u32, message: Vec<u8>) -> Result<(), RmaError> {
        let Some((h, payload)) = Header::decode(&message) else {
            return Err(RmaError::Database {
                what: "message-based RMA header",
                core: src,
            });
        };
        if !self.windows.contains_key(&h.window) {
            if h.window >= self.next_window {
                self.early.push((src, message));
                return Ok(());
            }
            return Err(RmaError::UnknownWindow { window: h.window });
        }
        let s = src as usize;
        let w = self.win_mut(h.window)?;
        w.stats.messages_received += 1;
        w.stats.bytes_received += message.len() as u64;
        match h.kind {
            Kind::Create => {
                w.sizes[s] = h.len;
                w.creates += 1;
            }
            Kind::Free => w.frees += 1,
            Kind::GetReply => {
                w.gets.insert(h.id, Some(payload.to_vec()));
                if h.flags & DONE != 0 {
                    w.unlock_done[s] += 1;
                }
            }
            Kind::FenceDone => w.fence_done[s] += 1,
            Kind::Post => w.posts[s] += 1,
            Kind::Complete => w.completes[s] += 1,
            Kind::LockGranted => w.grants[s] += 1,
            Kind::UnlockDone => w.unlock_done[s] += 1,
            Kind::LockRequest => {
                w.stats.lock_requests_served += 1;
                w.queue.push_back(Waiter {
                    origin: src,
                    exclusive: h.lock == EXCLUSIVE,
                    merged: None,
                });
                self.grant(h.window)?;
            }
            Kind::Unlock => {
                self.release(h.window, src)?;
                self.grant(h.window)?;
            }
            Kind::Put | Kind::Get | Kind::Accumulate if h.flags & LOCK != 0 => {
                w.stats.lock_requests_served += 1;
                w.queue.push_back(Waiter {
                    origin: src,
                    exclusive: h.lock == EXCLUSIVE,
                    merged: Some(message),
                });
                self.grant(h.window)?;
            }
            Kind::Put | Kind::Get | Kind::Accumulate => {
                self.apply(src, h, payload)?;
                if h.flags & UNLOCK != 0 {
                    self.release(h.window, src)?;
                    self.grant(h.window)?;
                }
            }
        }
        Ok(())
    }

    /// Applies an op to this rank's window and answers a get; with
    /// `UNLOCK`, also tells the origin its epoch is done (the caller
    /// releases the lock).
    fn apply(&mut self, src: u32, h: Header, payload: &[u8]) -> Result<(), RmaError> {
        let me = self.rank();
        let w = self.win_mut(h.window)?;
        let len = match h.kind {
            Kind::Get => h.len as usize,
            _ => payload.len(),
        };
        let at = h.offset as usize;
        if at + len > w.data.len() {
            return Err(RmaError::Range {
                call: "progress",
                window: h.window,
                target: me,
                offset: at as i64,
                len: len as u64,
                size: w.data.len() as u64,
            });
        }
        w.stats.ops_applied += 1;
        let target = &mut w.data[at..at + len];
        let mut reply = None;
        match h.kind {
            Kind::Put => target.copy_from_slice(payload),
            Kind::Accumulate => match h.dtype {
                1 => sum::<u32>(target, payload),
                2 => sum::<u64>(target, payload),
                3 => sum::<f64>(target, payload),
                _ => {
                    return Err(RmaError::Database {
                        what: "accumulate element type",
                        core: src,
                    });
                }
            },
            _ => {
                let mut answer = Header::new(Kind::GetReply, h.window);
                answer.id = h.id;
                if h.flags & UNLOCK != 0 {
                    answer.flags = DONE;
                }
                reply = Some(answer.encode(target));
            }
        }
        match reply {
            Some(reply) => self.send(h.window, src, reply),
            None if h.flags & UNLOCK != 0 => {
                let done = Header::new(Kind::UnlockDone, h.window).encode(&[]);
                self.send(h.window, src, done)
            }
            None => Ok(()),
        }
    }

    /// Drops `origin`'s hold on this rank's lock.
    fn release(&mut self, window: u32, origin: u32) -> Result<(), RmaError> {
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
    fn grant(&mut self, window: u32) -> Result<(), RmaError> {
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

fn sync_error(call: &'static str, window: u32, problem: &'static str) -> RmaError {
    RmaError::Sync {
        call,
        window,
        problem,
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

/// `target[i] += values[i]` over elements of type `T`.
fn sum<T: AccElement>(target: &mut [u8], values: &[u8]) {
    for (t, v) in target
        .chunks_exact_mut(T::BYTES)
        .zip(values.chunks_exact(T::BYTES))
    {
        T::reduce(ReduceOp::Sum, T::read_le(t), T::read_le(v)).write_le(t);
    }
}

const _: () = assert!(HEADER == 20);
