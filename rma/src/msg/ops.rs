// SPDX-License-Identifier: MIT OR Apache-2.0
//! Put, get and accumulate: queued at the origin until the epoch ends,
//! and applied by the target as their messages arrive.

use alloc::vec::Vec;

use super::window::{MsgWindow, Op};
use super::wire::{DONE, Header, Kind, UNLOCK};
use super::{MsgRma, sync_error};
use crate::RmaError;
use crate::comm::{ReduceOp, Reducible, check_rank};
use crate::hal::Hal;

/// A get whose data is available through [`MsgRma::take`] once the epoch
/// that issued it has completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GetHandle {
    window: u32,
    id: u32,
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

impl<'h, H: Hal> MsgRma<'h, H> {
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

    /// Applies an op to this rank's window and answers a get; with
    /// `UNLOCK`, also tells the origin its epoch is done (the caller
    /// releases the lock).
    pub(super) fn apply(&mut self, src: u32, h: Header, payload: &[u8]) -> Result<(), RmaError> {
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
