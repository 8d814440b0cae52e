// SPDX-License-Identifier: MIT OR Apache-2.0
//! Message-based windows: `MPI_Win_allocate` with the info key
//! `scc_one_sided` = `messages` makes a window whose operations travel as
//! messages that the target applies, rma's message layer (`rma::msg`, in
//! the style of RCKMPI's CH3 one-sided) behind MPI's calls. It is the
//! SCC thesis's message-based one-sided baseline, for programs (NAS FT)
//! that compare it with the windows in shared memory.
//!
//! - **Memory.** The window is the target's own heap memory (the layer's
//!   buffer), which no other core reads or writes: the target applies
//!   every put and accumulate and answers every get itself.
//! - **Messages.** The layer runs on a duplicate of the window's
//!   communicator, so its messages never meet the program's own
//!   (point-to-point calls match in their communicator's context).
//! - **Progress.** Operations are queued at the origin and leave at the
//!   call that ends their epoch. A target serves messages only inside its
//!   own window calls that wait (`MPI_Win_fence`, `MPI_Win_wait`,
//!   `MPI_Win_complete`, `MPI_Win_unlock`, `MPI_Win_flush`,
//!   `MPI_Win_free`) and in `MPI_Win_sync`, which serves what has
//!   arrived. A lock on a target that computes without calling them
//!   waits until it does, as with RCKMPI.
//! - **Calls.** Put and get with any committed datatypes (one message per
//!   contiguous piece at the target), accumulate with `MPI_SUM` on
//!   contiguous `MPI_INT`, `MPI_UNSIGNED`, `MPI_INT32_T`, `MPI_UINT32_T`,
//!   `MPI_LONG_LONG`, `MPI_UNSIGNED_LONG_LONG`, `MPI_INT64_T`,
//!   `MPI_UINT64_T` or `MPI_DOUBLE` (what the layer adds), fence,
//!   post/start/complete/wait, lock/unlock, lock_all/unlock_all, the
//!   flushes and sync. The others (`MPI_Win_test`, request-based calls,
//!   get_accumulate, fetch-and-op, compare-and-swap, other accumulates)
//!   fail with `MPI_ERR_UNSUPPORTED_OPERATION` naming the window's kind.
//! - **Displacements** count in the target's displacement unit, which
//!   the ranks exchange when the window is made.

use alloc::format;
use alloc::vec::Vec;
use core::ffi::{c_int, c_void};

use rma::LockType;
use rma::comm::{Comm, Group};
use rma::msg::{GetHandle, MsgOptions, MsgRma, MsgWindow};

use super::datatypes::{self, Ty, byte_layout};
use super::*;

/// The info key that chooses a window's kind, and its values.
pub(super) const KEY: &str = "scc_one_sided";
/// The default: windows in shared memory that origins reach themselves.
pub(super) const DIRECT: &str = "direct";
/// Windows whose operations the target applies from messages.
pub(super) const MESSAGES: &str = "messages";

/// Stretches of origin memory, in order: where the bytes of one
/// message come from or go to.
type Parts = Vec<(*mut u8, usize)>;

/// The contiguous pieces of a transfer at the target, each its byte
/// offset in the target's window and the origin's stretches that go there.
type Pieces = Vec<(u32, Parts)>;

/// One message-based window on this process.
pub(super) struct MsgWin {
    /// The layer, on its own duplicate of the window's communicator.
    layer: MsgRma<'static, Platform>,
    /// The window in it.
    window: MsgWindow,
    /// Every rank's displacement unit.
    units: Vec<u32>,
    /// Gets whose data arrives when their epoch ends, and where it goes.
    gets: Vec<(GetHandle, Parts)>,
}

impl core::fmt::Debug for MsgWin {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MsgWin")
            .field("window", &self.window)
            .field("units", &self.units)
            .field("pending gets", &self.gets.len())
            .finish()
    }
}

/// Whether info `handle` asks for a message-based window.
pub(super) fn wanted(state: &State, handle: c_int) -> Result<bool, Failure> {
    if handle == codes::info::NULL {
        return Ok(false);
    }
    match super::info::value_of(state, handle, KEY)? {
        None | Some(DIRECT) => Ok(false),
        Some(MESSAGES) => Ok(true),
        Some(other) => Err(Failure::new(
            Class::InfoValue,
            format!("{KEY}={other}: the values are {DIRECT}, {MESSAGES}"),
        )),
    }
}

/// The failure of a call a message-based window does not take.
pub(super) fn not_taken(win: c_int) -> Failure {
    Failure::new(
        Class::Unsupported,
        format!(
            "window {win} is message-based ({KEY}={MESSAGES}), which takes put, get, accumulate \
             with MPI_SUM on 32- and 64-bit integers and MPI_DOUBLE, fence, post/start/complete/\
             wait, lock/unlock, lock_all/unlock_all, the flushes and sync"
        ),
    )
}

impl MsgWin {
    /// Makes a window of `size` bytes with displacement unit `unit` on
    /// `comm` (collective), on a duplicate of it.
    pub(super) fn make(
        comm: &mut Comm<'static, Platform>,
        size: u32,
        unit: u32,
    ) -> Result<Self, Failure> {
        let mut own = comm.dup()?;
        let mut units = alloc::vec![0u8; 4 * own.size() as usize];
        own.allgather(&unit.to_le_bytes(), &mut units)?;
        let units = units
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut layer = MsgRma::new(own, MsgOptions::default());
        let window = layer.create(size)?;
        Ok(Self {
            layer,
            window,
            units,
            gets: Vec::new(),
        })
    }

    /// Where this rank's window memory starts: the program loads and
    /// stores there between epochs.
    pub(super) fn base(&mut self) -> Result<*mut u8, Failure> {
        Ok(self.layer.local_mut(self.window)?.as_mut_ptr())
    }

    /// The group of the window's processes.
    pub(super) fn group(&mut self) -> Group {
        self.layer.comm().group()
    }

    /// MPI's group `g` (world ranks) as ranks of the window's
    /// communicator, which the layer's epochs take.
    fn ranks_of(&mut self, g: &Group) -> Result<Group, Failure> {
        let comm = self.layer.comm();
        let mut ranks = Vec::with_capacity(g.members().len());
        for &m in g.members() {
            ranks.push(comm.rank_of_world(m).ok_or_else(|| {
                Failure::new(
                    Class::Group,
                    format!("process {m} of the group is not in the window's communicator"),
                )
            })?);
        }
        Ok(Group::world(comm.size(), comm.rank())?.incl(&ranks)?)
    }

    /// Frees the window (collective).
    pub(super) fn free(mut self) -> Outcome {
        Ok(self.layer.free(self.window)?)
    }

    /// The byte offset of displacement `disp` in `target`'s window.
    fn offset(&self, target: u32, disp: isize) -> Result<u32, Failure> {
        let unit = *self
            .units
            .get(target as usize)
            .ok_or_else(|| Failure::new(Class::Rank, format!("rank {target}")))?;
        u32::try_from(disp)
            .ok()
            .and_then(|d| d.checked_mul(unit))
            .ok_or_else(|| Failure::new(Class::Disp, format!("target displacement {disp}")))
    }

    /// What a put or get of `count` of `o` at `origin` against `tcount` of
    /// `t` at `disp` in `target`'s window moves: the target's rank and,
    /// per contiguous piece there, its byte offset in the window and the
    /// origin's stretches that go with it; `None` for `MPI_PROC_NULL`.
    fn pieces(
        &self,
        origin: *mut u8,
        (count, o): (c_int, &Ty<'_>),
        target: c_int,
        disp: isize,
        (tcount, t): (c_int, &Ty<'_>),
    ) -> Result<Option<(u32, Pieces)>, Failure> {
        let Some(target) = rank_of(target)? else {
            return Ok(None);
        };
        let at = self.offset(target, disp)?;
        let pieces = matched(origin, (count, o), (tcount, t))?
            .into_iter()
            .map(|(offset, parts)| {
                at.checked_add(offset).map(|o| (o, parts)).ok_or_else(|| {
                    Failure::new(
                        Class::Disp,
                        format!("target displacement {disp}: beyond 4 GiB"),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((target, pieces)))
    }

    /// Puts the origin's bytes (`origin`, `count` of `o`) into `target`'s
    /// window at `disp` as `tcount` of `t`: one message per piece at the
    /// target.
    pub(super) fn put(
        &mut self,
        (origin, count, o): (*const c_void, c_int, &Ty<'_>),
        target: c_int,
        disp: isize,
        (tcount, t): (c_int, &Ty<'_>),
    ) -> Outcome {
        let origin = origin.cast_mut().cast();
        let Some((target, pieces)) = self.pieces(origin, (count, o), target, disp, (tcount, t))?
        else {
            return Ok(());
        };
        for (at, parts) in pieces {
            let mut data = Vec::with_capacity(parts.iter().map(|&(_, l)| l).sum());
            for (p, len) in parts {
                // SAFETY: MPI's origin buffer holds every byte its type picks.
                data.extend_from_slice(unsafe { input(p.cast(), len) }?);
            }
            self.layer.put(self.window, target, at, &data)?;
        }
        Ok(())
    }

    /// Gets `tcount` of `t` from `target`'s window at `disp` into the
    /// origin's buffer; the bytes are there when the epoch ends.
    pub(super) fn get(
        &mut self,
        (origin, count, o): (*mut c_void, c_int, &Ty<'_>),
        target: c_int,
        disp: isize,
        (tcount, t): (c_int, &Ty<'_>),
    ) -> Outcome {
        let Some((target, pieces)) =
            self.pieces(origin.cast(), (count, o), target, disp, (tcount, t))?
        else {
            return Ok(());
        };
        for (at, parts) in pieces {
            let len = parts.iter().map(|&(_, l)| l).sum::<usize>() as u32;
            let handle = self.layer.get(self.window, target, at, len)?;
            self.gets.push((handle, parts));
        }
        Ok(())
    }

    /// Accumulates with `MPI_SUM` (the one operation the layer applies)
    /// `count` contiguous elements of predefined type `ty` into `target`'s
    /// window at `disp`.
    pub(super) fn accumulate(
        &mut self,
        (origin, count, ty): (*const c_void, c_int, &Ty<'_>),
        target: c_int,
        disp: isize,
        (tcount, tty): (c_int, &Ty<'_>),
        op: c_int,
    ) -> Outcome {
        let (Ty::Basic(t), Ty::Basic(tt)) = (ty, tty) else {
            return Err(Failure::new(
                Class::Type,
                "a message-based window accumulates predefined types only",
            ));
        };
        if t != tt || count != tcount {
            return Err(Failure::new(
                Class::Type,
                "a message-based window accumulates the same predefined type and count at both sides",
            ));
        }
        if super::operation(op)? != codes::Op::Sum {
            return Err(not_taken_op());
        }
        let Some(target) = rank_of(target)? else {
            return Ok(());
        };
        let at = self.offset(target, disp)?;
        let bytes = bytes_of(count, *t)?;
        // SAFETY: MPI's origin buffer of `count` elements.
        let data = unsafe { input(origin, bytes) }?;
        let (w, layer) = (self.window, &mut self.layer);
        match t {
            Datatype::Int | Datatype::Unsigned | Datatype::Int32 | Datatype::Uint32 => {
                let values: Vec<u32> = data
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                layer.accumulate(w, target, at, &values)?;
            }
            Datatype::LongLong
            | Datatype::UnsignedLongLong
            | Datatype::Int64
            | Datatype::Uint64 => {
                let values: Vec<u64> = data
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect();
                layer.accumulate(w, target, at, &values)?;
            }
            Datatype::Double => {
                let values: Vec<f64> = data
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect();
                layer.accumulate(w, target, at, &values)?;
            }
            _ => return Err(not_taken_op()),
        }
        Ok(())
    }

    /// Copies the data of every get whose epoch has ended to its origin
    /// buffer.
    fn deliver(&mut self) -> Outcome {
        for (handle, parts) in core::mem::take(&mut self.gets) {
            let data = self.layer.take(handle)?;
            let mut at = 0;
            for (p, len) in parts {
                // SAFETY: MPI's origin buffer holds every byte its type picks.
                unsafe { output(p.cast(), len) }?.copy_from_slice(&data[at..at + len]);
                at += len;
            }
        }
        Ok(())
    }

    /// `MPI_Win_fence`.
    pub(super) fn fence(&mut self) -> Outcome {
        self.layer.fence(self.window)?;
        self.deliver()
    }

    /// `MPI_Win_post`.
    pub(super) fn post(&mut self, group: &Group) -> Outcome {
        let g = self.ranks_of(group)?;
        Ok(self.layer.post(self.window, &g)?)
    }

    /// `MPI_Win_start`.
    pub(super) fn start(&mut self, group: &Group) -> Outcome {
        let g = self.ranks_of(group)?;
        Ok(self.layer.start(self.window, &g)?)
    }

    /// `MPI_Win_complete`.
    pub(super) fn complete(&mut self) -> Outcome {
        self.layer.complete(self.window)?;
        self.deliver()
    }

    /// `MPI_Win_wait`.
    pub(super) fn wait(&mut self) -> Outcome {
        Ok(self.layer.wait(self.window)?)
    }

    /// `MPI_Win_lock`.
    pub(super) fn lock(&mut self, ty: LockType, target: c_int) -> Outcome {
        match rank_of(target)? {
            Some(t) => Ok(self.layer.lock(self.window, ty, t)?),
            None => Ok(()),
        }
    }

    /// `MPI_Win_unlock`.
    pub(super) fn unlock(&mut self, target: c_int) -> Outcome {
        if let Some(t) = rank_of(target)? {
            self.layer.unlock(self.window, t)?;
        }
        self.deliver()
    }

    /// `MPI_Win_lock_all`: a shared lock on every rank.
    pub(super) fn lock_all(&mut self) -> Outcome {
        for t in 0..self.layer.size() {
            self.layer.lock(self.window, LockType::Shared, t)?;
        }
        Ok(())
    }

    /// `MPI_Win_unlock_all`.
    pub(super) fn unlock_all(&mut self) -> Outcome {
        for t in 0..self.layer.size() {
            self.layer.unlock(self.window, t)?;
        }
        self.deliver()
    }

    /// `MPI_Win_flush` (and `MPI_Win_flush_local`, which it more than
    /// does): every operation to `target` is applied.
    pub(super) fn flush(&mut self, target: c_int) -> Outcome {
        if let Some(t) = rank_of(target)? {
            self.layer.flush(self.window, t)?;
        }
        self.deliver()
    }

    /// `MPI_Win_flush_all` (and `MPI_Win_flush_local_all`).
    pub(super) fn flush_all(&mut self) -> Outcome {
        for t in 0..self.layer.size() {
            self.layer.flush(self.window, t)?;
        }
        self.deliver()
    }

    /// `MPI_Win_sync`: serves the messages that have arrived.
    pub(super) fn sync(&mut self) -> Outcome {
        Ok(self.layer.progress()?)
    }
}

/// `MPI_ERR_OP` for an accumulate the layer does not apply.
fn not_taken_op() -> Failure {
    Failure::new(
        Class::Op,
        format!(
            "a message-based window ({KEY}={MESSAGES}) accumulates with MPI_SUM on contiguous \
             MPI_INT, MPI_UNSIGNED, MPI_INT32_T, MPI_UINT32_T, MPI_LONG_LONG, \
             MPI_UNSIGNED_LONG_LONG, MPI_INT64_T, MPI_UINT64_T and MPI_DOUBLE only"
        ),
    )
}

/// A target rank from C; `None` for `MPI_PROC_NULL`, which does nothing.
fn rank_of(rank: c_int) -> Result<Option<u32>, Failure> {
    match rank {
        -1 => Ok(None),
        r => u32::try_from(r)
            .map(Some)
            .map_err(|_| Failure::new(Class::Rank, format!("rank {r}"))),
    }
}

/// `pieces` with each run of adjacent ones joined into one (a predefined
/// type's count of elements is one piece per element): one message per
/// contiguous stretch of the target, not per element.
fn coalesced(pieces: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(pieces.len());
    for (at, len) in pieces.into_iter().filter(|&(_, l)| l > 0) {
        match out.last_mut() {
            Some((start, run)) if *start + *run == at => *run += len,
            _ => out.push((at, len)),
        }
    }
    out
}

/// The target's contiguous pieces (offset from the displacement) with
/// the origin bytes each takes, in order: `count` of `o` at `origin`
/// against `tcount` of `t`, which must hold as many bytes.
fn matched(
    origin: *mut u8,
    (count, o): (c_int, &Ty<'_>),
    (tcount, t): (c_int, &Ty<'_>),
) -> Result<Pieces, Failure> {
    let (ol, tl) = (byte_layout(o)?, byte_layout(t)?);
    let origin_pieces = coalesced(datatypes::pieces(&ol, count)?);
    let target_pieces = coalesced(datatypes::pieces(&tl, tcount)?);
    let (bytes, tbytes) = (
        origin_pieces.iter().map(|&(_, l)| l).sum::<usize>(),
        target_pieces.iter().map(|&(_, l)| l).sum::<usize>(),
    );
    if bytes != tbytes {
        return Err(Failure::new(
            Class::Count,
            format!("the origin has {bytes} bytes, the target {tbytes}"),
        ));
    }
    if bytes > 0 && origin.is_null() {
        return Err(Failure::new(
            Class::Buffer,
            "a null origin buffer (MPI_BOTTOM) on a message-based window",
        ));
    }
    let mut out: Pieces = Vec::with_capacity(target_pieces.len());
    let mut source = origin_pieces.into_iter().filter(|&(_, l)| l > 0);
    let mut current: Option<(usize, usize)> = None;
    for (toffset, tlen) in target_pieces.into_iter().filter(|&(_, l)| l > 0) {
        let toffset = u32::try_from(toffset)
            .map_err(|_| Failure::new(Class::Disp, "a target piece beyond 4 GiB"))?;
        let mut parts = Vec::new();
        let mut need = tlen;
        while need > 0 {
            let (at, len) = match current.take() {
                Some(piece) => piece,
                None => source
                    .next()
                    .expect("the origin has as many bytes as the target"),
            };
            let take = len.min(need);
            parts.push((origin.wrapping_add(at), take));
            if take < len {
                current = Some((at + take, len - take));
            }
            need -= take;
        }
        out.push((toffset, parts));
    }
    Ok(out)
}
