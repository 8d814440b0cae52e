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
//!
//! # Code
//! As the memory-based layer is split: `window.rs` (window handles, each
//! window's state on a rank and its records: queued ops, lock epochs, the
//! lock queue; creation and freeing), `ops.rs` (put, get, accumulate and
//! their application at the target), `epoch.rs` (fence, PSCW, lock,
//! unlock and flush, and the target's lock queue), `progress.rs` (sending,
//! waiting while serving every arrival, and handling each message) and
//! `wire.rs` (the header).
#![forbid(unsafe_code)]

mod epoch;
mod ops;
mod progress;
#[cfg(test)]
mod tests;
mod window;
mod wire;

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

pub use ops::{AccElement, GetHandle};
use window::Win;
pub use window::{MsgStats, MsgWindow};
use wire::HEADER;

use crate::RmaError;
use crate::comm::Comm;
use crate::hal::Hal;

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

    /// The platform.
    pub fn hal(&self) -> &'h H {
        self.comm.hal()
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
}

fn sync_error(call: &'static str, window: u32, problem: &'static str) -> RmaError {
    RmaError::Sync {
        call,
        window,
        problem,
    }
}

const _: () = assert!(HEADER == 20);
