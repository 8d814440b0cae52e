// SPDX-License-Identifier: MIT OR Apache-2.0
//! Put and get: plain copies between this core's buffer and the target's
//! window, through the target's POPSHM mapped into a free LUT entry. No
//! message, no involvement of the target (thesis 4.5: zero copy, truly
//! one-sided); elements pass through a small stack buffer only to become
//! little-endian bytes.
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
use crate::epoch::{AccessEpoch, Check};
use crate::hal::RmaHal;
use crate::hal::Span;
use crate::window::{Rma, Window};

/// Which elements a layout picks: `count` blocks of `blocklen`
/// consecutive elements, block `k` starting `k * stride` elements from the
/// first (MPI's vector type). A contiguous layout is one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vector {
    /// Blocks.
    pub count: u32,
    /// Elements per block.
    pub blocklen: u32,
    /// Elements from one block's start to the next (at least `blocklen`).
    pub stride: u32,
}

impl Vector {
    /// `len` consecutive elements.
    pub const fn contiguous(len: u32) -> Self {
        Self {
            count: 1,
            blocklen: len,
            stride: len,
        }
    }

    /// `count` blocks of `blocklen` elements, `stride` elements apart.
    pub const fn new(count: u32, blocklen: u32, stride: u32) -> Self {
        Self {
            count,
            blocklen,
            stride,
        }
    }

    /// Elements picked.
    pub const fn elements(&self) -> u64 {
        self.count as u64 * self.blocklen as u64
    }

    /// Elements from the first picked to one past the last.
    pub const fn extent(&self) -> u64 {
        if self.count == 0 || self.blocklen == 0 {
            0
        } else {
            (self.count as u64 - 1) * self.stride as u64 + self.blocklen as u64
        }
    }

    fn check(&self, what: &'static str) -> Result<(), RmaError> {
        if self.count > 1 && self.stride < self.blocklen {
            return Err(RmaError::BadLayout {
                what,
                problem: "blocks overlap (stride below blocklen)",
            });
        }
        Ok(())
    }

    /// Start of the `k`-th block, in elements.
    fn block(&self, k: u32) -> u64 {
        u64::from(k) * u64::from(self.stride)
    }
}

/// Runs of elements that are contiguous in both layouts: (origin element,
/// target element, elements), in order.
pub(crate) fn runs(origin: Vector, target: Vector) -> impl Iterator<Item = (u64, u64, u64)> {
    let (mut ob, mut oi, mut tb, mut ti) = (0u32, 0u32, 0u32, 0u32);
    core::iter::from_fn(move || {
        if origin.blocklen == 0 || target.blocklen == 0 || ob >= origin.count || tb >= target.count
        {
            return None;
        }
        let n = (origin.blocklen - oi).min(target.blocklen - ti);
        let run = (
            origin.block(ob) + u64::from(oi),
            target.block(tb) + u64::from(ti),
            u64::from(n),
        );
        oi += n;
        ti += n;
        if oi == origin.blocklen {
            (ob, oi) = (ob + 1, 0);
        }
        if ti == target.blocklen {
            (tb, ti) = (tb + 1, 0);
        }
        Some(run)
    })
}

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

/// The names a call's errors use.
#[derive(Debug)]
pub(crate) struct Call {
    pub name: &'static str,
    pub target: &'static str,
    pub origin_layout: &'static str,
    pub target_layout: &'static str,
    pub origin_buffer: &'static str,
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

/// The [`Call`] named `$name`.
macro_rules! call {
    ($name:literal) => {
        $crate::ops::Call {
            name: $name,
            target: concat!($name, " target"),
            origin_layout: concat!($name, " origin layout"),
            target_layout: concat!($name, " target layout"),
            origin_buffer: concat!($name, " origin buffer"),
        }
    };
}
pub(crate) use call;

pub(crate) const PUT: Call = call!("put");
pub(crate) const GET: Call = call!("get");
pub(crate) const RPUT: Call = call!("rput");
pub(crate) const RGET: Call = call!("rget");

impl<H: RmaHal> Rma<'_, H> {
    /// Writes `data` into `target`'s window from displacement `disp`
    /// (`MPI_Put` with contiguous types).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Rank)` for a target
    /// outside the run; `Err(Sync)` without an access epoch;
    /// `Err(NotInGroup)` for a target outside the start group;
    /// `Err(Range)` for bytes outside the target's window.
    pub fn put<T: Element>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
    ) -> Result<(), RmaError> {
        self.put_as(&PUT, window, target, disp, data)
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
        self.get_as(&GET, window, target, disp, buf)
    }

    /// [`Rma::put`], its errors naming `call`.
    pub(crate) fn put_as<T: Element>(
        &mut self,
        call: &Call,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
    ) -> Result<(), RmaError> {
        let layout = Vector::contiguous(len_u32(data.len(), call.origin_buffer)?);
        self.put_vector_as(call, window, target, disp, data, layout, layout)
    }

    /// [`Rma::get`], its errors naming `call`.
    pub(crate) fn get_as<T: Element>(
        &mut self,
        call: &Call,
        window: Window<T>,
        target: u32,
        disp: u32,
        buf: &mut [T],
    ) -> Result<(), RmaError> {
        let layout = Vector::contiguous(len_u32(buf.len(), call.origin_buffer)?);
        self.get_vector_as(call, window, target, disp, buf, layout, layout)
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
        self.put_vector_as(&PUT, window, target, disp, data, origin, target_layout)
    }

    #[allow(clippy::too_many_arguments)] // put_vector's, and the call's name
    fn put_vector_as<T: Element>(
        &mut self,
        call: &Call,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Vector,
        target_layout: Vector,
    ) -> Result<(), RmaError> {
        let bytes = origin.elements() * T::BYTES as u64;
        let _span = Span::begin(self.hal, call.op(), window.id(), Some(target), bytes);
        let offset = self.begin::<T>(
            call,
            window.id(),
            target,
            disp,
            data.len(),
            origin,
            target_layout,
        )?;
        let ty = self.window(window.id())?.options.remote_type;
        for (o, t, n) in runs(origin, target_layout) {
            let elements = &data[o as usize..(o + n) as usize];
            self.write_elements(
                window.id(),
                target,
                ty,
                offset + t * T::BYTES as u64,
                elements,
            )?;
        }
        self.finish(window.id(), Kind::Put, origin.elements() * T::BYTES as u64);
        Ok(())
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
        self.get_vector_as(&GET, window, target, disp, buf, origin, target_layout)
    }

    #[allow(clippy::too_many_arguments)] // get_vector's, and the call's name
    fn get_vector_as<T: Element>(
        &mut self,
        call: &Call,
        window: Window<T>,
        target: u32,
        disp: u32,
        buf: &mut [T],
        origin: Vector,
        target_layout: Vector,
    ) -> Result<(), RmaError> {
        let bytes = origin.elements() * T::BYTES as u64;
        let _span = Span::begin(self.hal, call.op(), window.id(), Some(target), bytes);
        let offset = self.begin::<T>(
            call,
            window.id(),
            target,
            disp,
            buf.len(),
            origin,
            target_layout,
        )?;
        let ty = self.fresh_get(window.id());
        for (o, t, n) in runs(origin, target_layout) {
            let elements = &mut buf[o as usize..(o + n) as usize];
            self.read_elements(
                window.id(),
                target,
                ty,
                offset + t * T::BYTES as u64,
                elements,
            )?;
        }
        self.finish(window.id(), Kind::Get, origin.elements() * T::BYTES as u64);
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
    /// target's window.
    #[allow(clippy::too_many_arguments)] // one operation's full description
    pub(crate) fn begin<T: Element>(
        &mut self,
        call: &Call,
        id: u32,
        target: u32,
        disp: u32,
        buffer: usize,
        origin: Vector,
        target_layout: Vector,
    ) -> Result<u64, RmaError> {
        let size = self.size();
        let w = self.window(id)?;
        check_rank(call.target, target, size)?;
        Check {
            call: call.name,
            window: id,
        }
        .operation(&w.access, target)?;
        origin.check(call.origin_layout)?;
        target_layout.check(call.target_layout)?;
        if origin.elements() != target_layout.elements() {
            return Err(RmaError::BufferLength {
                what: "target layout elements (as the origin layout picks)",
                len: target_layout.elements() as usize,
                expected: origin.elements() as usize,
            });
        }
        if origin.extent() > buffer as u64 {
            return Err(RmaError::BufferLength {
                what: "origin buffer elements (as the origin layout spans)",
                len: buffer,
                expected: origin.extent() as usize,
            });
        }
        let remote = w.remotes[target as usize];
        let element = T::BYTES as u64;
        let offset = u64::from(disp) * u64::from(remote.info.disp_unit);
        let len = target_layout.extent() * element;
        self.check_range(call.name, id, target, offset as i64, len)?;
        if matches!(w.access, AccessEpoch::Start { .. }) {
            let me = self.comm.rank();
            let record = w.remotes[me as usize].record;
            let hal = self.hal;
            let w = self.window_mut(id)?;
            let start = hal.cycles();
            let polls = pscw::await_post(hal, record, &mut w.seen, target);
            if polls > 0 {
                w.stats.polls += polls;
                w.stats.wait_cycles += hal.cycles().saturating_sub(start);
            }
        }
        Ok(offset)
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

/// `len` as a `u32` element count.
pub(crate) fn len_u32(len: usize, what: &'static str) -> Result<u32, RmaError> {
    u32::try_from(len).map_err(|_| RmaError::BufferLength {
        what,
        len,
        expected: u32::MAX as usize,
    })
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;

    #[test]
    fn runs_pair_up_elements_of_both_layouts() {
        let all: Vec<_> = runs(Vector::contiguous(6), Vector::new(3, 2, 5)).collect();
        assert_eq!(all, [(0, 0, 2), (2, 5, 2), (4, 10, 2)]);
        let all: Vec<_> = runs(Vector::new(2, 3, 4), Vector::new(3, 2, 2)).collect();
        assert_eq!(all, [(0, 0, 2), (2, 2, 1), (4, 3, 1), (5, 4, 2)]);
        assert_eq!(
            runs(Vector::contiguous(0), Vector::contiguous(0)).count(),
            0
        );
        assert_eq!(Vector::new(3, 2, 5).extent(), 12);
        assert_eq!(Vector::new(0, 2, 5).extent(), 0);
        assert!(Vector::new(2, 3, 2).check("x").is_err());
        assert!(Vector::new(1, 3, 0).check("x").is_ok());
    }
}
