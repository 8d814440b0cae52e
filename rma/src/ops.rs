// SPDX-License-Identifier: MIT OR Apache-2.0
//! Put and get: plain copies between this core's buffer and the target's
//! window, through the target's POPSHM mapped into a free LUT entry. No
//! message, no involvement of the target (thesis 4.5: zero copy, truly
//! one-sided). Elements whose memory already holds their little-endian
//! bytes (every primitive type on the little-endian cores) are copied
//! straight from and into the caller's buffer; others pass through a
//! small stack buffer to become those bytes.
//!
//! The layouts at either side are contiguous, a [`Vector`], or a count of
//! a committed [datatype](crate::datatype); all three are copied by one
//! engine, which pairs the runs of the origin and the target and copies
//! each piece contiguous on both sides as one block.
//!
//! Each call checks, in this order: the window handle, the target rank,
//! the access epoch (and the target's membership in the start group, or
//! among the locked targets of a lock epoch), the
//! layouts, and that the access lies inside the target's window. In a
//! start epoch the call then waits until the target has posted (the
//! trigger-only scheme, thesis 3.3): the local copy of the match vector
//! first, the uncached vector in the LSM after.
#![forbid(unsafe_code)]

use crate::RmaError;
use chip::trace::Op;

use crate::active::pscw;
use crate::coherence::{acquire_actions, guard_invalidation};
use crate::comm::{Element, check_rank};
use crate::datatype::{Counted, Layout, Vector, zip_runs};
use crate::epoch::{AccessEpoch, Check};
use crate::hal::RmaHal;
use crate::hal::Span;
use crate::request::Request;
use crate::transfer::{PROC_NULL, Sides, Transfer};
use crate::window::{Rma, Window};

/// What kind of operation [`Rma::finish`] counts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Put,
    Get,
    /// accumulate and get_accumulate (also request-based).
    Accumulate,
    /// fetch_and_op and compare_and_swap.
    Atomic,
}

/// The side of an operation whose memory it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Origin,
    Target,
}

/// The names a call's errors use, and the side it writes.
#[derive(Debug)]
pub(crate) struct Call {
    pub name: &'static str,
    pub target: &'static str,
    pub origin_layout: &'static str,
    pub target_layout: &'static str,
    pub result_layout: &'static str,
    pub origin_buffer: &'static str,
    pub writes: Side,
}

impl Call {
    /// What a trace calls the operation ([`chip::trace::Op`]).
    pub(crate) fn op(&self) -> Op {
        match self.name {
            "put" | "rput" => Op::Put,
            "get" | "rget" => Op::Get,
            "get_accumulate" | "rget_accumulate" => Op::GetAccumulate,
            "fetch_and_op" => Op::FetchAndOp,
            "compare_and_swap" => Op::CompareAndSwap,
            _ => Op::Accumulate,
        }
    }
}

/// The [`Call`] named `$name`, writing the target unless told otherwise.
macro_rules! call {
    ($name:literal) => {
        $crate::ops::call!($name, Target)
    };
    ($name:literal, $writes:ident) => {
        $crate::ops::Call {
            name: $name,
            target: concat!($name, " target"),
            origin_layout: concat!($name, " origin layout"),
            target_layout: concat!($name, " target layout"),
            result_layout: concat!($name, " result layout"),
            origin_buffer: concat!($name, " origin buffer"),
            writes: $crate::ops::Side::$writes,
        }
    };
}
pub(crate) use call;

pub(crate) const PUT: Call = call!("put");
pub(crate) const GET: Call = call!("get", Origin);
pub(crate) const RPUT: Call = call!("rput");
pub(crate) const RGET: Call = call!("rget", Origin);

impl<H: RmaHal> Rma<'_, H> {
    /// Writes `data` into `target`'s window from displacement `disp`
    /// (`MPI_Put` with contiguous types).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Rank)` for a target
    /// outside the window (not a rank of its communicator); `Err(Sync)` without an access epoch;
    /// `Err(NotInGroup)` for a target outside the start group;
    /// `Err(Range)` for bytes outside the target's window (for a dynamic
    /// window, whose displacements are addresses, outside the target's
    /// POPSHM) and `Err(Unattached)` for bytes of a dynamic window's
    /// target in no memory it attached ([`crate::window::dynamic`]).
    pub fn put<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
    ) -> Result<(), RmaError> {
        self.put_at(&PUT, Transfer::contiguous(window, target, disp), data)
    }

    /// Reads `buf.len()` elements of `target`'s window from displacement
    /// `disp` into `buf` (`MPI_Get` with contiguous types). The data is
    /// there when the access epoch ends (here already when the call
    /// returns, but MPI promises it only then).
    ///
    /// Return values: as [`Rma::put`].
    pub fn get<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        buf: &mut [T],
    ) -> Result<(), RmaError> {
        self.get_at(&GET, Transfer::contiguous(window, target, disp), buf)
    }

    /// Writes the elements `origin` picks from `data` to the places
    /// `target_layout` picks in `target`'s window from displacement `disp`
    /// (`MPI_Put` with vector types). Both layouts pick the same number of
    /// elements, in order.
    ///
    /// Return values: as [`Rma::put`], plus `Err(BufferLength)` if the
    /// layouts pick different numbers of elements or `origin` reaches past
    /// `data`, and `Err(BadLayout)` for overlapping blocks.
    pub fn put_vector<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Vector,
        target_layout: Vector,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::vector(window, target, disp, origin, target_layout);
        self.put_at(&PUT, transfer, data)
    }

    /// Writes the elements `origin` picks from `data` to the places
    /// `target_type` picks in `target`'s window from displacement `disp`
    /// (`MPI_Put` with derived datatypes): the `k`-th element `origin`
    /// picks goes to the `k`-th place `target_type` picks. Pieces
    /// contiguous at both sides are copied as one block.
    ///
    /// Return values: as [`Rma::put`], plus `Err(BufferLength)` if the
    /// two pick different numbers of elements or `origin` reaches past
    /// `data`, `Err(BadLayout)` if `origin` reaches below `data`'s first
    /// element or `target_type` picks some place twice, and `Err(Range)`
    /// if `target_type` reaches outside the target's window (below it too).
    pub fn put_typed<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Counted<'_, T>,
        target_type: Counted<'_, T>,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type);
        self.put_at(&PUT, transfer, data)
    }

    /// Reads the places `target_layout` picks in `target`'s window from
    /// displacement `disp` into the elements `origin` picks in `buf`
    /// (`MPI_Get` with vector types).
    ///
    /// Return values: as [`Rma::put_vector`].
    pub fn get_vector<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        buf: &mut [T],
        origin: Vector,
        target_layout: Vector,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::vector(window, target, disp, origin, target_layout);
        self.get_at(&GET, transfer, buf)
    }

    /// Reads the places `target_type` picks in `target`'s window from
    /// displacement `disp` into the elements `origin` picks in `buf`
    /// (`MPI_Get` with derived datatypes), in order.
    ///
    /// Return values: as [`Rma::put_typed`], except that `Err(BadLayout)`
    /// refuses an `origin` that picks some element twice (the side a get
    /// writes); a `target_type` may.
    pub fn get_typed<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        buf: &mut [T],
        origin: Counted<'_, T>,
        target_type: Counted<'_, T>,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type);
        self.get_at(&GET, transfer, buf)
    }

    /// The put `transfer` describes, of the elements it picks from `data`:
    /// [`Rma::put`], [`Rma::put_vector`] or [`Rma::put_typed`] as its
    /// places say, or their request forms ([`Rma::rput`]), which return
    /// the request.
    ///
    /// Return values: as the form it is.
    pub fn put_with<T: Element>(
        &mut self,
        transfer: Transfer<'_, T>,
        data: &[T],
    ) -> Result<Option<Request>, RmaError> {
        let call = transfer.pick(&PUT, &RPUT);
        self.as_completion(call.name, transfer, |rma| rma.put_at(call, transfer, data))
    }

    /// The get `transfer` describes, into the elements it picks in `buf`:
    /// [`Rma::get`], [`Rma::get_vector`] or [`Rma::get_typed`], or their
    /// request forms ([`Rma::rget`]).
    ///
    /// Return values: as the form it is.
    pub fn get_with<T: Element>(
        &mut self,
        transfer: Transfer<'_, T>,
        buf: &mut [T],
    ) -> Result<Option<Request>, RmaError> {
        let call = transfer.pick(&GET, &RGET);
        self.as_completion(call.name, transfer, |rma| rma.get_at(call, transfer, buf))
    }

    /// [`Rma::put`] as a request (`MPI_Rput`), in a passive-target epoch.
    ///
    /// Return values: as [`Rma::put`]; `Err(Sync)` outside a
    /// passive-target epoch.
    pub fn rput<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::contiguous(window, target, disp).request();
        self.requested(RPUT.name, transfer, |rma| rma.put_at(&RPUT, transfer, data))
    }

    /// [`Rma::get`] as a request (`MPI_Rget`): `buf` holds the data when
    /// the call returns.
    ///
    /// Return values: as [`Rma::rput`].
    pub fn rget<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        buf: &mut [T],
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::contiguous(window, target, disp).request();
        self.requested(RGET.name, transfer, |rma| rma.get_at(&RGET, transfer, buf))
    }

    /// [`Rma::put_typed`] as a request (`MPI_Rput` with derived
    /// datatypes), in a passive-target epoch.
    ///
    /// Return values: as [`Rma::put_typed`]; `Err(Sync)` outside a
    /// passive-target epoch.
    pub fn rput_typed<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Counted<'_, T>,
        target_type: Counted<'_, T>,
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type).request();
        self.requested(RPUT.name, transfer, |rma| rma.put_at(&RPUT, transfer, data))
    }

    /// [`Rma::get_typed`] as a request (`MPI_Rget` with derived
    /// datatypes): `buf` holds the data when the call returns.
    ///
    /// Return values: as [`Rma::get_typed`]; `Err(Sync)` outside a
    /// passive-target epoch.
    pub fn rget_typed<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        buf: &mut [T],
        origin: Counted<'_, T>,
        target_type: Counted<'_, T>,
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type).request();
        self.requested(RGET.name, transfer, |rma| rma.get_at(&RGET, transfer, buf))
    }

    /// The one copy of every put, its errors naming `call`.
    pub(crate) fn put_at<T: Element>(
        &mut self,
        call: &Call,
        transfer: Transfer<'_, T>,
        data: &[T],
    ) -> Result<(), RmaError> {
        let Transfer {
            window,
            target,
            disp,
            sides,
            ..
        } = transfer;
        let id = window.id();
        if target == PROC_NULL {
            return self.window(id).map(|_| ());
        }
        match sides {
            Sides::Contiguous => {
                // One copy, none of a layout's checks.
                let len = len_u32(data.len(), call.origin_buffer)?;
                let bytes = u64::from(len) * T::BYTES as u64;
                let _span = Span::begin(self.hal, call.op(), id, Some(target), bytes);
                let offset = self.begin_contiguous(call, id, target, disp, bytes)?;
                let ty = self.window(id)?.options.remote_type;
                self.write_elements(id, target, ty, offset, data)?;
                self.finish(id, Kind::Put, bytes);
            }
            Sides::Laid {
                origin,
                target: places,
            } => {
                let bytes = bytes::<T>(&origin);
                let _span = Span::begin(self.hal, call.op(), id, Some(target), bytes);
                let offset = self.begin::<T>(call, id, target, disp, data.len(), origin, places)?;
                let ty = self.window(id)?.options.remote_type;
                for ([o, t], n) in zip_runs([origin, places]) {
                    let elements = &data[o as usize..][..n as usize];
                    self.write_elements(id, target, ty, byte_at::<T>(offset, t), elements)?;
                }
                self.finish(id, Kind::Put, bytes);
            }
        }
        Ok(())
    }

    /// The one copy of every get, its errors naming `call`.
    pub(crate) fn get_at<T: Element>(
        &mut self,
        call: &Call,
        transfer: Transfer<'_, T>,
        buf: &mut [T],
    ) -> Result<(), RmaError> {
        let Transfer {
            window,
            target,
            disp,
            sides,
            ..
        } = transfer;
        let id = window.id();
        if target == PROC_NULL {
            return self.window(id).map(|_| ());
        }
        match sides {
            Sides::Contiguous => {
                let len = len_u32(buf.len(), call.origin_buffer)?;
                let bytes = u64::from(len) * T::BYTES as u64;
                let _span = Span::begin(self.hal, call.op(), id, Some(target), bytes);
                let offset = self.begin_contiguous(call, id, target, disp, bytes)?;
                let ty = self.fresh_get(id);
                self.read_elements(id, target, ty, offset, buf)?;
                self.finish(id, Kind::Get, bytes);
            }
            Sides::Laid {
                origin,
                target: places,
            } => {
                let bytes = bytes::<T>(&origin);
                let _span = Span::begin(self.hal, call.op(), id, Some(target), bytes);
                let offset = self.begin::<T>(call, id, target, disp, buf.len(), origin, places)?;
                let ty = self.fresh_get(id);
                for ([o, t], n) in zip_runs([origin, places]) {
                    let elements = &mut buf[o as usize..][..n as usize];
                    self.read_elements(id, target, ty, byte_at::<T>(offset, t), elements)?;
                }
                self.finish(id, Kind::Get, bytes);
            }
        }
        Ok(())
    }

    /// Makes the get about to run on window `id` read the target's memory
    /// as it is now: if an earlier get may have left lines of a target in
    /// L1, they are dropped first (CL1INVMB, guarded as every
    /// invalidation is), since their target may have changed them since.
    /// Returns the memory type the get reads through. Without it, a core
    /// polling a flag with get and flush would read its first copy
    /// forever on an MPBT type: neither the get nor the flush would drop
    /// it.
    pub(crate) fn fresh_get(&mut self, id: u32) -> chip::MemoryType {
        let ty = self
            .window(id)
            .expect("begin checked the window")
            .options
            .remote_type;
        let acquire = acquire_actions(ty);
        if acquire.invalidate {
            if self.remote_lines {
                let types = self.types(id);
                self.coherence(id, guard_invalidation(acquire, &types));
            }
            self.remote_lines = true;
        }
        ty
    }

    /// Checks an operation and waits for the target's post in a start
    /// epoch; returns the byte offset of displacement `disp` in the
    /// target's window (in a dynamic window, where the address `disp`
    /// names lies in the target's POPSHM).
    #[allow(clippy::too_many_arguments)] // one operation's full description
    pub(crate) fn begin<T: Element>(
        &mut self,
        call: &Call,
        id: u32,
        target: u32,
        disp: u32,
        buffer: usize,
        origin: Layout<'_>,
        target_layout: Layout<'_>,
    ) -> Result<u64, RmaError> {
        let w = self.window(id)?;
        check_rank(call.target, target, w.ranks.size())?;
        Check {
            call: call.name,
            window: id,
        }
        .operation(&w.access, target)?;
        check_layouts(call, buffer, &origin, &target_layout)?;
        let offset = u64::from(disp) * u64::from(w.remotes[target as usize].info.disp_unit);
        let (first, len) = target_bytes::<T>(offset, &target_layout);
        let shift = self.enter(call, id, target, first, len)?;
        shifted(call, id, target, offset, shift, len)
    }

    /// [`Rma::begin`] for `bytes` contiguous bytes at both sides, which
    /// have no layout to check.
    pub(crate) fn begin_contiguous(
        &mut self,
        call: &Call,
        id: u32,
        target: u32,
        disp: u32,
        bytes: u64,
    ) -> Result<u64, RmaError> {
        let w = self.window(id)?;
        check_rank(call.target, target, w.ranks.size())?;
        Check {
            call: call.name,
            window: id,
        }
        .operation(&w.access, target)?;
        let offset = u64::from(disp) * u64::from(w.remotes[target as usize].info.disp_unit);
        // Below 2^64: a u32 displacement times a u32 unit.
        let shift = self.enter(call, id, target, offset as i64, bytes)?;
        shifted(call, id, target, offset, shift, bytes)
    }

    /// The checks of [`Rma::begin`] after the layouts': `len` bytes from
    /// byte `first` inside the target's window, then in a start epoch the
    /// wait for the target's post, and in a dynamic window, memory the
    /// target attached (at addresses it chose: [`Rma::attach_at`]), whose
    /// bytes lie in its POPSHM. Returns how far the bytes lie from
    /// `first` in the target's part: 0 but in a dynamic window.
    fn enter(
        &mut self,
        call: &Call,
        id: u32,
        target: u32,
        first: i64,
        len: u64,
    ) -> Result<i64, RmaError> {
        let w = self.window(id)?;
        let dynamic = w.dynamic.is_some();
        if !dynamic || first < 0 {
            self.check_range(call.name, id, target, first, len)?;
        }
        let w = self.window(id)?;
        if matches!(w.access, AccessEpoch::Start { .. }) {
            let record = w.remotes[w.ranks.rank as usize].record;
            let hal = self.hal;
            let w = self.window_mut(id)?;
            let start = hal.cycles();
            let polls = pscw::await_post(hal, record, &mut w.seen, target);
            if polls > 0 {
                w.stats.polls += polls;
                w.stats.wait_cycles += hal.cycles().saturating_sub(start);
            }
        }
        if dynamic {
            if len == 0 {
                // Reaches no byte, at whatever address.
                return Ok(0);
            }
            // After the post: what the target attached before it counts.
            let at = self.check_attached(call.name, id, target, first as u64, len)?;
            self.check_range(call.name, id, target, at as i64, len)?;
            return Ok(at as i64 - first);
        }
        Ok(0)
    }

    /// Counts a finished operation in the epoch and the statistics.
    pub(crate) fn finish(&mut self, id: u32, kind: Kind, bytes: u64) {
        let w = self.window_mut(id).expect("begin checked the window");
        match &mut w.access {
            AccessEpoch::Refence => w.access = AccessEpoch::Fence { operations: 1 },
            AccessEpoch::Fence { operations } => *operations += 1,
            _ => {}
        }
        let s = &mut w.stats;
        match kind {
            Kind::Put => {
                s.puts += 1;
                s.bytes_put += bytes;
            }
            Kind::Get => {
                s.gets += 1;
                s.bytes_got += bytes;
            }
            Kind::Accumulate => {
                s.accumulates += 1;
                s.bytes_accumulated += bytes;
            }
            Kind::Atomic => {
                s.atomics += 1;
                s.bytes_accumulated += bytes;
            }
        }
    }
}

/// Checks the layouts of an operation reading or writing `buffer`
/// elements at the origin: no overlap where the call writes (a
/// [`Vector`]'s anywhere), the same number of elements at both sides, and
/// the origin inside its buffer.
fn check_layouts(
    call: &Call,
    buffer: usize,
    origin: &Layout<'_>,
    target: &Layout<'_>,
) -> Result<(), RmaError> {
    check_overlap(call.origin_layout, origin, call.writes == Side::Origin)?;
    check_overlap(call.target_layout, target, call.writes == Side::Target)?;
    check_elements(
        "target layout elements (as the origin layout picks)",
        target,
        origin.elements(),
    )?;
    check_buffer(
        call.origin_layout,
        "origin buffer elements (as the origin layout spans)",
        origin,
        buffer,
    )
}

/// `Err(BadLayout)` naming `what` if `layout` picks some element twice
/// and the call `writes` through it (or it is a [`Vector`]).
pub(crate) fn check_overlap(
    what: &'static str,
    layout: &Layout<'_>,
    writes: bool,
) -> Result<(), RmaError> {
    if layout.overlaps() && (writes || layout.overlap.anywhere) {
        return Err(RmaError::BadLayout {
            what,
            problem: layout.overlap.problem,
        });
    }
    Ok(())
}

/// `Err(BufferLength)` naming `what` unless `layout` picks `expected`
/// elements.
pub(crate) fn check_elements(
    what: &'static str,
    layout: &Layout<'_>,
    expected: u128,
) -> Result<(), RmaError> {
    if layout.elements() != expected {
        return Err(RmaError::BufferLength {
            what,
            len: saturate(layout.elements()),
            expected: saturate(expected),
        });
    }
    Ok(())
}

/// `Err(BadLayout)` naming `name` if `layout` reaches below a buffer's
/// first element, `Err(BufferLength)` naming `what` if it reaches past its
/// `len` elements.
pub(crate) fn check_buffer(
    name: &'static str,
    what: &'static str,
    layout: &Layout<'_>,
    len: usize,
) -> Result<(), RmaError> {
    let (lo, hi) = layout.span();
    if lo < 0 {
        return Err(RmaError::BadLayout {
            what: name,
            problem: "reaches below the buffer's first element (a negative lower bound)",
        });
    }
    if hi > len as i128 {
        return Err(RmaError::BufferLength {
            what,
            len,
            expected: saturate(hi as u128),
        });
    }
    Ok(())
}

fn saturate(n: u128) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The bytes of a target window `layout` reaches from byte `offset`: the
/// first (negative below the window; saturated) and how many.
fn target_bytes<T: Element>(offset: u64, layout: &Layout<'_>) -> (i64, u64) {
    let (lo, hi) = layout.span();
    let element = T::BYTES as i128;
    let first = i128::from(offset) + lo * element;
    let first = i64::try_from(first).unwrap_or(if first < 0 { i64::MIN } else { i64::MAX });
    (
        first,
        u64::try_from((hi - lo) * element).unwrap_or(u64::MAX),
    )
}

/// The byte of the target window element `t` of a layout lies at, from
/// byte `offset` (begin checked that it lies inside).
pub(crate) fn byte_at<T: Element>(offset: u64, t: i64) -> u64 {
    offset
        .checked_add_signed(t * T::BYTES as i64)
        .expect("begin checked the range")
}

/// The bytes `layout` picks (at most `u64::MAX`: begin checks that they
/// fit a buffer).
pub(crate) fn bytes<T: Element>(layout: &Layout<'_>) -> u64 {
    u64::try_from(layout.elements())
        .unwrap_or(u64::MAX)
        .saturating_mul(T::BYTES as u64)
}

/// `len` as a `u32` element count.
pub(crate) fn len_u32(len: usize, what: &'static str) -> Result<u32, RmaError> {
    u32::try_from(len).map_err(|_| RmaError::BufferLength {
        what,
        len,
        expected: u32::MAX as usize,
    })
}

/// `offset` moved by `shift` ([`Rma::enter`]'s); a target layout that
/// starts past its displacement may leave it below the target's first
/// byte: `Err(Range)`.
fn shifted(
    call: &Call,
    window: u32,
    target: u32,
    offset: u64,
    shift: i64,
    len: u64,
) -> Result<u64, RmaError> {
    offset.checked_add_signed(shift).ok_or(RmaError::Range {
        call: call.name,
        window,
        target,
        offset: offset as i64 + shift,
        len,
        size: 0,
    })
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;

    fn pieces(origin: Vector, target: Vector) -> Vec<(i64, i64, u64)> {
        zip_runs([origin.layout(), target.layout()])
            .map(|([o, t], n)| (o, t, n))
            .collect()
    }

    #[test]
    fn vector_runs_pair_up_elements_of_both_layouts() {
        let all = pieces(Vector::contiguous(6), Vector::new(3, 2, 5));
        assert_eq!(all, [(0, 0, 2), (2, 5, 2), (4, 10, 2)]);
        let all = pieces(Vector::new(2, 3, 4), Vector::new(3, 2, 3));
        assert_eq!(all, [(0, 0, 2), (2, 3, 1), (4, 4, 1), (5, 6, 2)]);
        assert!(pieces(Vector::contiguous(0), Vector::contiguous(0)).is_empty());
        assert!(pieces(Vector::new(u32::MAX, 0, 1), Vector::new(u32::MAX, 0, 0)).is_empty());
        // Blocks that abut form one run.
        assert_eq!(
            pieces(Vector::new(3, 2, 2), Vector::contiguous(6)),
            [(0, 0, 6)]
        );
        assert_eq!(Vector::new(3, 2, 5).extent(), 12);
        assert_eq!(Vector::new(3, 2, 5).layout().span(), (0, 12));
        assert_eq!(Vector::new(0, 2, 5).extent(), 0);
        assert_eq!(Vector::new(0, 2, 5).layout().span(), (0, 0));
        assert!(Vector::new(2, 3, 2).layout().overlaps());
        assert!(!Vector::new(1, 3, 0).layout().overlaps());
        assert!(!Vector::new(2, 0, 0).layout().overlaps());
    }
}
