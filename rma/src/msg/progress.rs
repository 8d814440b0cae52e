// SPDX-License-Identifier: MIT OR Apache-2.0
//! Progress: sending the layer's messages, waiting for a condition while
//! serving every message that arrives, and handling each one.

use alloc::vec::Vec;

use super::MsgRma;
use super::window::{Waiter, Win};
use super::wire::{DONE, EXCLUSIVE, Header, Kind, LOCK, UNLOCK};
use crate::RmaError;
use crate::hal::Hal;

impl<'h, H: Hal> MsgRma<'h, H> {
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
            self.dispatch(src, message?)?;
        }
        Ok(())
    }

    /// Sends one message of `window`, counting it.
    pub(super) fn send(
        &mut self,
        window: u32,
        dest: u32,
        message: Vec<u8>,
    ) -> Result<(), RmaError> {
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
    pub(super) fn wait_until(
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
                if let Err(e) = message.and_then(|m| self.dispatch(src, m)) {
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
    pub(super) fn dispatch(&mut self, src: u32, message: Vec<u8>) -> Result<(), RmaError> {
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
}
