// SPDX-License-Identifier: MIT OR Apache-2.0
//! One interface for one-sided communication, [`OneSided`], implemented by
//! the memory-based layer ([`Rma`]) and by the message-based baseline
//! ([`MsgRma`]): code written once over it runs on either, so a benchmark
//! or a test compares the two layers with the same program.
//!
//! The trait has the operations both layers provide with the same
//! meaning, on windows of bytes, named after MPI's calls. Each layer keeps
//! its own richer interface (typed windows, datatypes, atomics and
//! `lock_all` on [`Rma`]; statistics, lock modes and explicit progress on
//! [`MsgRma`]); the trait's methods are thin wrappers over it.
//!
//! ```
//! use rma::{Assert, OneSided, RmaError};
//!
//! /// Every rank puts its rank into its right neighbour's window and reads
//! /// what its left neighbour put; runs on `Rma` and `MsgRma` alike.
//! fn ring<'h, L: OneSided<'h>>(layer: &mut L) -> Result<u8, RmaError> {
//!     let (me, n) = (layer.rank(), layer.size());
//!     let win = layer.allocate_bytes(1)?;
//!     layer.fence(win, Assert::NONE)?;
//!     layer.put(win, (me + 1) % n, 0, &[me as u8])?;
//!     layer.fence(win, Assert::NOSUCCEED)?;
//!     let mut left = [0u8];
//!     layer.local_read(win, 0, &mut left)?;
//!     layer.free(win)?;
//!     Ok(left[0])
//! }
//! ```
//!
//! # Semantics
//! - **Windows** are bytes; offsets count bytes (a displacement unit of 1).
//!   [`allocate_bytes`](OneSided::allocate_bytes) and
//!   [`free`](OneSided::free) are collective over the layer's ranks.
//! - **Puts and accumulates** may reuse their origin buffer when the call
//!   returns. They are complete at the target when the epoch that issued
//!   them ends (fence, complete, unlock) or after a flush of their target.
//! - **Gets** complete at the same points. A get's bytes are in the
//!   caller's buffer once the get is complete and
//!   [`finish_get`](OneSided::finish_get) has been called with its
//!   handle and the same buffer; before that the buffer's contents are
//!   unspecified (the memory-based layer fills it during the call, the
//!   message-based one in `finish_get`).
//!   [`get_flushed`](OneSided::get_flushed) does get, flush and
//!   `finish_get` at once inside a lock epoch.
//! - **Local accesses** ([`local_read`](OneSided::local_read),
//!   [`local_write`](OneSided::local_write)) are the owner's loads and
//!   stores of its own window, under MPI's separate memory model: what it
//!   stores reaches others after its next fence, post or unlock of itself;
//!   what others put shows once the epoch that exposed it ended (under a
//!   lock of its own window for passive-target epochs).
//! - **Progress**: the message-based layer's target applies operations
//!   only inside its own calls into the layer, so an origin's epoch
//!   completes only while its targets call in. Code written over the
//!   trait ends a passive-target phase with a collective call, e.g. a
//!   fence, in which every rank serves the others until all are done, and
//!   keeps whatever progress a computing target needs explicit
//!   ([`MsgRma::progress`]), as it is not part of the trait.
//! - **Assertions** are MPI's (`MPI_MODE_*`): both layers refuse the ones
//!   a call does not take; the message-based layer otherwise ignores them.
//! - **Errors** are each layer's [`RmaError`]s.

#[cfg(test)]
mod tests;

use core::fmt::Debug;

use crate::comm::{Comm, Group};
use crate::hal::{Hal, RmaHal};
use crate::msg::{AccElement, GetHandle, MsgRma, MsgWindow};
use crate::{Accumulable, AccumulateOp, Assert, LockType, Rma, RmaError, Window, WindowOptions};

/// One-sided communication (MPI-3's RMA) on windows of bytes, as the
/// memory-based [`Rma`] and the message-based [`MsgRma`] both provide
/// it. Method names are MPI's; the module documentation says when
/// operations complete and what a target must do for them to.
pub trait OneSided<'h> {
    /// The platform underneath.
    type Hal: Hal + 'h;
    /// A window handle (`MPI_Win`), the same number on every rank.
    type Window: Copy + PartialEq + Debug;
    /// A get in flight: its bytes reach the caller's buffer through
    /// [`finish_get`](Self::finish_get) once it is complete.
    type Get: Debug;

    /// This rank (`MPI_Comm_rank`).
    fn rank(&self) -> u32;

    /// Number of ranks (`MPI_Comm_size`).
    fn size(&self) -> u32;

    /// The platform, e.g. for its clock.
    fn hal(&self) -> &'h Self::Hal;

    /// The communicator underneath, for barriers and collectives. On the
    /// message-based layer its channel also carries the layer's messages:
    /// use it for messages only while no rank may still send the layer's
    /// (after a fence and a barrier, say).
    fn comm(&mut self) -> &mut Comm<'h, Self::Hal>;

    /// Makes a window of `bytes` bytes on every rank, collectively
    /// (`MPI_Win_allocate` with a displacement unit of 1); sizes may
    /// differ per rank. Its contents are unspecified until its owner
    /// writes them (zero on the message-based layer).
    fn allocate_bytes(&mut self, bytes: u32) -> Result<Self::Window, RmaError>;

    /// Frees a window, collectively (`MPI_Win_free`); no epoch of this
    /// rank may be open on it.
    fn free(&mut self, window: Self::Window) -> Result<(), RmaError>;

    /// Bytes of `rank`'s window.
    fn size_of(&self, window: Self::Window, rank: u32) -> Result<u32, RmaError>;

    /// Reads this rank's own window from byte `offset` into `buf`: the
    /// owner's loads of its window memory.
    fn local_read(
        &mut self,
        window: Self::Window,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<(), RmaError>;

    /// Writes `data` into this rank's own window from byte `offset`: the
    /// owner's stores to its window memory.
    fn local_write(
        &mut self,
        window: Self::Window,
        offset: u32,
        data: &[u8],
    ) -> Result<(), RmaError>;

    /// Writes `data` into `target`'s window from byte `offset` (`MPI_Put`
    /// of `MPI_BYTE`s).
    fn put(
        &mut self,
        window: Self::Window,
        target: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<(), RmaError>;

    /// Reads `buf.len()` bytes of `target`'s window from byte `offset`
    /// (`MPI_Get` of `MPI_BYTE`s). The bytes are in `buf` after the get
    /// completed and [`finish_get`](Self::finish_get) was called with the
    /// returned handle and the same buffer.
    fn get(
        &mut self,
        window: Self::Window,
        target: u32,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<Self::Get, RmaError>;

    /// Delivers a completed get's bytes into `buf`, the buffer given to
    /// [`get`](Self::get).
    ///
    /// Return values: `Err(Sync)` if the get's epoch has not completed
    /// (message-based layer); `Err(BufferLength)` if `buf` is not as long
    /// as the get.
    fn finish_get(&mut self, get: Self::Get, buf: &mut [u8]) -> Result<(), RmaError>;

    /// Adds `values` element-wise into `target`'s window from byte
    /// `offset` (`MPI_Accumulate` with `MPI_SUM` on `u32`, `u64` or `f64`),
    /// atomically per element.
    fn accumulate_sum<T: AccElement + Accumulable>(
        &mut self,
        window: Self::Window,
        target: u32,
        offset: u32,
        values: &[T],
    ) -> Result<(), RmaError>;

    /// Ends the fence epoch of the previous fence and, unless `assert`
    /// holds `NOSUCCEED`, opens the next (`MPI_Win_fence`), collectively.
    fn fence(&mut self, window: Self::Window, assert: Assert) -> Result<(), RmaError>;

    /// Opens an exposure epoch for the origins in `group`
    /// (`MPI_Win_post`).
    fn post(&mut self, window: Self::Window, group: &Group, assert: Assert)
    -> Result<(), RmaError>;

    /// Opens an access epoch to the targets in `group` (`MPI_Win_start`).
    fn start(
        &mut self,
        window: Self::Window,
        group: &Group,
        assert: Assert,
    ) -> Result<(), RmaError>;

    /// Ends the access epoch of [`start`](Self::start)
    /// (`MPI_Win_complete`): its operations are complete at the origin.
    fn complete(&mut self, window: Self::Window) -> Result<(), RmaError>;

    /// Ends the exposure epoch of [`post`](Self::post) once every origin
    /// completed (`MPI_Win_wait`): their operations are in this window.
    fn wait(&mut self, window: Self::Window) -> Result<(), RmaError>;

    /// Opens a lock epoch on `target` with a lock of type `ty`
    /// (`MPI_Win_lock`).
    fn lock(
        &mut self,
        window: Self::Window,
        ty: LockType,
        target: u32,
        assert: Assert,
    ) -> Result<(), RmaError>;

    /// Ends the lock epoch on `target` (`MPI_Win_unlock`): its operations
    /// are complete at the origin and at the target.
    fn unlock(&mut self, window: Self::Window, target: u32) -> Result<(), RmaError>;

    /// Completes the lock epoch's operations on `target` so far, at the
    /// origin and at the target, keeping the lock (`MPI_Win_flush`).
    fn flush(&mut self, window: Self::Window, target: u32) -> Result<(), RmaError>;

    /// A get completed at once inside a lock epoch on `target`:
    /// [`get`](Self::get), [`flush`](Self::flush) and
    /// [`finish_get`](Self::finish_get); the bytes are in `buf` when it
    /// returns.
    fn get_flushed(
        &mut self,
        window: Self::Window,
        target: u32,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<(), RmaError> {
        let get = self.get(window, target, offset, buf)?;
        self.flush(window, target)?;
        self.finish_get(get, buf)
    }
}

/// The memory-based layer on its byte windows (`Window<u8>`, whose
/// displacement unit must be 1, the default): every call is the layer's
/// own. A get reads the target's memory during the call, so its handle is
/// `()` and [`finish_get`](OneSided::finish_get) only checks the buffer.
impl<'h, H: RmaHal + 'h> OneSided<'h> for Rma<'h, H> {
    type Hal = H;
    type Window = Window<u8>;
    type Get = ();

    #[inline]
    fn rank(&self) -> u32 {
        Rma::rank(self)
    }

    #[inline]
    fn size(&self) -> u32 {
        Rma::size(self)
    }

    #[inline]
    fn hal(&self) -> &'h H {
        Rma::hal(self)
    }

    #[inline]
    fn comm(&mut self) -> &mut Comm<'h, H> {
        Rma::comm(self)
    }

    #[inline]
    fn allocate_bytes(&mut self, bytes: u32) -> Result<Window<u8>, RmaError> {
        self.allocate(bytes, WindowOptions::new())
    }

    #[inline]
    fn free(&mut self, window: Window<u8>) -> Result<(), RmaError> {
        Rma::free(self, window)
    }

    #[inline]
    fn size_of(&self, window: Window<u8>, rank: u32) -> Result<u32, RmaError> {
        Rma::size_of(self, window, rank)
    }

    #[inline]
    fn local_read(
        &mut self,
        window: Window<u8>,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<(), RmaError> {
        Rma::local_read(self, window, offset, buf)
    }

    #[inline]
    fn local_write(
        &mut self,
        window: Window<u8>,
        offset: u32,
        data: &[u8],
    ) -> Result<(), RmaError> {
        Rma::local_write(self, window, offset, data)
    }

    #[inline]
    fn put(
        &mut self,
        window: Window<u8>,
        target: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<(), RmaError> {
        Rma::put(self, window, target, offset, data)
    }

    #[inline]
    fn get(
        &mut self,
        window: Window<u8>,
        target: u32,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<(), RmaError> {
        Rma::get(self, window, target, offset, buf)
    }

    #[inline]
    fn finish_get(&mut self, (): (), _buf: &mut [u8]) -> Result<(), RmaError> {
        Ok(())
    }

    #[inline]
    fn accumulate_sum<T: AccElement + Accumulable>(
        &mut self,
        window: Window<u8>,
        target: u32,
        offset: u32,
        values: &[T],
    ) -> Result<(), RmaError> {
        // A window is untyped memory: its bytes taken as elements `T`, at
        // byte displacements (its unit is 1).
        self.accumulate(window.retype(), target, offset, values, AccumulateOp::Sum)
    }

    #[inline]
    fn fence(&mut self, window: Window<u8>, assert: Assert) -> Result<(), RmaError> {
        Rma::fence(self, window, assert)
    }

    #[inline]
    fn post(&mut self, window: Window<u8>, group: &Group, assert: Assert) -> Result<(), RmaError> {
        Rma::post(self, window, group, assert)
    }

    #[inline]
    fn start(&mut self, window: Window<u8>, group: &Group, assert: Assert) -> Result<(), RmaError> {
        Rma::start(self, window, group, assert)
    }

    #[inline]
    fn complete(&mut self, window: Window<u8>) -> Result<(), RmaError> {
        Rma::complete(self, window)
    }

    #[inline]
    fn wait(&mut self, window: Window<u8>) -> Result<(), RmaError> {
        Rma::wait(self, window)
    }

    #[inline]
    fn lock(
        &mut self,
        window: Window<u8>,
        ty: LockType,
        target: u32,
        assert: Assert,
    ) -> Result<(), RmaError> {
        Rma::lock(self, window, ty, target, assert)
    }

    #[inline]
    fn unlock(&mut self, window: Window<u8>, target: u32) -> Result<(), RmaError> {
        Rma::unlock(self, window, target)
    }

    #[inline]
    fn flush(&mut self, window: Window<u8>, target: u32) -> Result<(), RmaError> {
        Rma::flush(self, window, target)
    }
}

/// The message-based layer: every call is the layer's own. A get's handle
/// is its [`GetHandle`]; [`finish_get`](OneSided::finish_get) takes its
/// data ([`MsgRma::take`]) into the buffer. Assertions are checked
/// against the ones each call takes, as the memory-based layer checks
/// them, and then ignored.
impl<'h, H: Hal + 'h> OneSided<'h> for MsgRma<'h, H> {
    type Hal = H;
    type Window = MsgWindow;
    type Get = GetHandle;

    #[inline]
    fn rank(&self) -> u32 {
        MsgRma::rank(self)
    }

    #[inline]
    fn size(&self) -> u32 {
        MsgRma::size(self)
    }

    #[inline]
    fn hal(&self) -> &'h H {
        MsgRma::hal(self)
    }

    #[inline]
    fn comm(&mut self) -> &mut Comm<'h, H> {
        MsgRma::comm(self)
    }

    #[inline]
    fn allocate_bytes(&mut self, bytes: u32) -> Result<MsgWindow, RmaError> {
        self.create(bytes)
    }

    #[inline]
    fn free(&mut self, window: MsgWindow) -> Result<(), RmaError> {
        MsgRma::free(self, window)
    }

    #[inline]
    fn size_of(&self, window: MsgWindow, rank: u32) -> Result<u32, RmaError> {
        MsgRma::size_of(self, window, rank)
    }

    #[inline]
    fn local_read(
        &mut self,
        window: MsgWindow,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<(), RmaError> {
        let at = local_range(self, "local_read", window, offset, buf.len())?;
        buf.copy_from_slice(&self.local(window)?[at]);
        Ok(())
    }

    #[inline]
    fn local_write(&mut self, window: MsgWindow, offset: u32, data: &[u8]) -> Result<(), RmaError> {
        let at = local_range(self, "local_write", window, offset, data.len())?;
        self.local_mut(window)?[at].copy_from_slice(data);
        Ok(())
    }

    #[inline]
    fn put(
        &mut self,
        window: MsgWindow,
        target: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<(), RmaError> {
        MsgRma::put(self, window, target, offset, data)
    }

    #[inline]
    fn get(
        &mut self,
        window: MsgWindow,
        target: u32,
        offset: u32,
        buf: &mut [u8],
    ) -> Result<GetHandle, RmaError> {
        let len = u32::try_from(buf.len()).map_err(|_| RmaError::BufferLength {
            what: "get buffer",
            len: buf.len(),
            expected: u32::MAX as usize,
        })?;
        MsgRma::get(self, window, target, offset, len)
    }

    #[inline]
    fn finish_get(&mut self, get: GetHandle, buf: &mut [u8]) -> Result<(), RmaError> {
        let data = self.take(get)?;
        if data.len() != buf.len() {
            return Err(RmaError::BufferLength {
                what: "get buffer",
                len: buf.len(),
                expected: data.len(),
            });
        }
        buf.copy_from_slice(&data);
        Ok(())
    }

    #[inline]
    fn accumulate_sum<T: AccElement + Accumulable>(
        &mut self,
        window: MsgWindow,
        target: u32,
        offset: u32,
        values: &[T],
    ) -> Result<(), RmaError> {
        self.accumulate(window, target, offset, values)
    }

    #[inline]
    fn fence(&mut self, window: MsgWindow, assert: Assert) -> Result<(), RmaError> {
        check_assert(
            assert,
            "fence",
            Assert::NOSTORE | Assert::NOPUT | Assert::NOPRECEDE | Assert::NOSUCCEED,
        )?;
        MsgRma::fence(self, window)
    }

    #[inline]
    fn post(&mut self, window: MsgWindow, group: &Group, assert: Assert) -> Result<(), RmaError> {
        check_assert(
            assert,
            "post",
            Assert::NOCHECK | Assert::NOSTORE | Assert::NOPUT,
        )?;
        MsgRma::post(self, window, group)
    }

    #[inline]
    fn start(&mut self, window: MsgWindow, group: &Group, assert: Assert) -> Result<(), RmaError> {
        check_assert(assert, "start", Assert::NOCHECK)?;
        MsgRma::start(self, window, group)
    }

    #[inline]
    fn complete(&mut self, window: MsgWindow) -> Result<(), RmaError> {
        MsgRma::complete(self, window)
    }

    #[inline]
    fn wait(&mut self, window: MsgWindow) -> Result<(), RmaError> {
        MsgRma::wait(self, window)
    }

    #[inline]
    fn lock(
        &mut self,
        window: MsgWindow,
        ty: LockType,
        target: u32,
        assert: Assert,
    ) -> Result<(), RmaError> {
        check_assert(assert, "lock", Assert::NOCHECK)?;
        MsgRma::lock(self, window, ty, target)
    }

    #[inline]
    fn unlock(&mut self, window: MsgWindow, target: u32) -> Result<(), RmaError> {
        MsgRma::unlock(self, window, target)
    }

    #[inline]
    fn flush(&mut self, window: MsgWindow, target: u32) -> Result<(), RmaError> {
        MsgRma::flush(self, window, target)
    }
}

/// Refuses the assertions `call` does not take, as the memory-based layer
/// does; no assertion, the usual case, costs a comparison.
#[inline(always)]
fn check_assert(assert: Assert, call: &'static str, allowed: Assert) -> Result<(), RmaError> {
    if assert == Assert::NONE {
        return Ok(());
    }
    assert.check(call, allowed)
}

/// The bytes `len` bytes at `offset` of this rank's message-based window
/// are, or `Err(Range)` naming `call` if they lie outside it.
fn local_range<H: Hal>(
    msg: &MsgRma<'_, H>,
    call: &'static str,
    window: MsgWindow,
    offset: u32,
    len: usize,
) -> Result<core::ops::Range<usize>, RmaError> {
    let me = msg.rank();
    let size = msg.size_of(window, me)?;
    if u64::from(offset) + len as u64 > u64::from(size) {
        return Err(RmaError::Range {
            call,
            window: window.id(),
            target: me,
            offset: i64::from(offset),
            len: len as u64,
            size: u64::from(size),
        });
    }
    let at = offset as usize;
    Ok(at..at + len)
}
