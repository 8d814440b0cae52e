// SPDX-License-Identifier: MIT OR Apache-2.0
//! Global arrays over rma windows.
//!
//! [`Gas`] owns a core's [`Rma`] (shared by its tasks through a
//! `RefCell`: they run on one core, one at a time). Each
//! [`GlobalArray`] is one window, every rank's part in its own POPSHM
//! (so behind the memory controller of its tile), with room for
//! [`Layout::part_len`] elements; the array is open for access from
//! allocation to [`Gas::free`] in one passive-target epoch (`lock_all`).
//! Every element access is counted against its target rank and that
//! rank's controller ([`Counters`]).
//!
//! Access is blocking ([`Gas::get`], [`Gas::put`], [`Gas::fetch_add`],
//! [`Gas::compare_swap`]) or split-phase (`*_nb`): the operation is issued
//! as an rma request (`rget`, `rput`, `rget_accumulate`) and a
//! [`Handle`] returned, a future that retires the request when awaited.
//! The SCC has no DMA engine, so the core moves the data while issuing
//! and the request is complete when issued; the handle's first poll yields
//! the core to the other tasks all the same, so each task's operations are
//! issued before any task waits, as they would be on a machine whose
//! network completes them later. `compare_swap_nb` has no request form in
//! MPI: it swaps when issued and the handle only yields.
//!
//! Locks ([`Gas::acquire`], [`Gas::release`]) are words of a global
//! `u32` array taken by compare-and-swap from 0 to 1; a task whose attempt
//! fails yields to the others before it tries again. Their statistics
//! ([`LockStats`]) count attempts per target and spins per acquisition.
//! A put is flushed (complete at its target) before it returns, and a
//! release is one more atomic after it, so what a task wrote under a lock
//! is at its target before the lock is free.

use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use rma::hal::RmaHal;
use rma::{Accumulable, AccumulateOp, Assert, Request, Rma, RmaError, Window, WindowOptions};

use crate::counters::Counters;
use crate::dist::{Distribution, Layout, LayoutError, Spread};

/// Bytes of a cache line: what a distribution keeps whole.
pub const LINE_BYTES: u32 = 32;

/// Why a global-address-space call failed.
#[derive(Debug)]
pub enum GasError {
    /// rma refused the operation.
    Rma(RmaError),
    /// The array cannot be laid out.
    Layout(LayoutError),
    /// An element index past the end.
    Index {
        /// The index.
        index: u64,
        /// The array's length.
        len: u64,
    },
    /// A lock released that was not held.
    NotHeld {
        /// The lock's index.
        lock: u64,
        /// What its word held.
        found: u32,
    },
}

impl core::fmt::Display for GasError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Rma(e) => write!(f, "{e}"),
            Self::Layout(e) => write!(f, "{e}"),
            Self::Index { index, len } => {
                write!(f, "element {index} of a global array of {len}")
            }
            Self::NotHeld { lock, found } => {
                write!(
                    f,
                    "lock {lock} released but not held (its word is {found}, not 1)"
                )
            }
        }
    }
}

impl From<RmaError> for GasError {
    fn from(e: RmaError) -> Self {
        Self::Rma(e)
    }
}

impl From<LayoutError> for GasError {
    fn from(e: LayoutError) -> Self {
        Self::Layout(e)
    }
}

/// A global array: one window and where its elements live.
#[derive(Debug)]
pub struct GlobalArray<T> {
    window: Window<T>,
    layout: Layout,
}

impl<T> GlobalArray<T> {
    /// Where its elements live.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Its window.
    pub fn window(&self) -> Window<T>
    where
        Window<T>: Copy,
    {
        self.window
    }
}

/// Lock statistics of one core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockStats {
    /// Locks taken.
    pub acquisitions: u64,
    /// Failed attempts (each followed by a yield) before they were taken.
    pub spins: u64,
    /// Attempts, successful or not, per target rank.
    pub attempts: Counters,
}

/// One core's view of the global address space.
pub struct Gas<'h, H: RmaHal> {
    rma: RefCell<Rma<'h, H>>,
    controller_of: Vec<u32>,
    counters: RefCell<Counters>,
    locks: RefCell<LockStats>,
    in_flight: Cell<u32>,
    most_in_flight: Cell<u32>,
}

impl<H: RmaHal> core::fmt::Debug for Gas<'_, H> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gas")
            .field("controller_of", &self.controller_of)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

impl<'h, H: RmaHal> Gas<'h, H> {
    /// The global address space over `rma`'s ranks.
    pub fn new(rma: Rma<'h, H>) -> Self {
        let hal = rma.hal();
        let controller_of: Vec<u32> = (0..rma.size())
            .map(|r| hal.chip().controller_of(hal.tile_of(hal.participant(r))) as u32)
            .collect();
        let counters = Counters::new(&controller_of);
        Self {
            rma: RefCell::new(rma),
            locks: RefCell::new(LockStats {
                acquisitions: 0,
                spins: 0,
                attempts: counters.clone(),
            }),
            counters: RefCell::new(counters),
            controller_of,
            in_flight: Cell::new(0),
            most_in_flight: Cell::new(0),
        }
    }

    /// This core's rank.
    pub fn rank(&self) -> u32 {
        self.rma.borrow().rank()
    }

    /// The ranks.
    pub fn size(&self) -> u32 {
        self.rma.borrow().size()
    }

    /// The memory controller of each rank's part.
    pub fn controller_of(&self) -> &[u32] {
        &self.controller_of
    }

    /// The rma layer, for what this one does not wrap (collectives).
    ///
    /// # Panics
    /// If a task holds it already (tasks never hold it across an await).
    pub fn rma(&self) -> core::cell::RefMut<'_, Rma<'h, H>> {
        self.rma.borrow_mut()
    }

    /// A barrier of all ranks.
    pub fn barrier(&self) {
        self.rma.borrow_mut().comm().barrier();
    }

    /// Requests counted so far.
    pub fn counters(&self) -> Counters {
        self.counters.borrow().clone()
    }

    /// Lock statistics so far.
    pub fn lock_stats(&self) -> LockStats {
        self.locks.borrow().clone()
    }

    /// Most split-phase operations in flight at once so far.
    pub fn most_in_flight(&self) -> u32 {
        self.most_in_flight.get()
    }

    /// Zeroes the request and lock counters.
    pub fn clear_counters(&self) {
        self.counters.borrow_mut().clear();
        let mut l = self.locks.borrow_mut();
        l.acquisitions = 0;
        l.spins = 0;
        l.attempts.clear();
        self.most_in_flight.set(0);
    }

    /// Allocates a global array of `len` elements, zeroed, collectively:
    /// every rank must call it with the same arguments. Lines of
    /// [`LINE_BYTES`] stay on one owner.
    ///
    /// Return values: `Err(Layout)` if it cannot be laid out; rma's errors
    /// of `allocate` (`NoMemory` when a part does not fit the POPSHM) and
    /// `lock_all`.
    pub fn allocate<T: Accumulable>(
        &self,
        len: u64,
        dist: Distribution,
        spread: Spread,
    ) -> Result<GlobalArray<T>, GasError> {
        let line = (LINE_BYTES / T::BYTES as u32).max(1);
        let layout = Layout::new(dist, spread, len, line, &self.controller_of)?;
        let mut rma = self.rma.borrow_mut();
        let window = rma.allocate::<T>(layout.part_len(), WindowOptions::new())?;
        rma.lock_all(window, Assert::NONE)?;
        Ok(GlobalArray { window, layout })
    }

    /// Ends the array's epoch and frees it, collectively.
    ///
    /// Return values: rma's errors of `unlock_all` and `free`.
    pub fn free<T>(&self, array: GlobalArray<T>) -> Result<(), GasError> {
        let mut rma = self.rma.borrow_mut();
        rma.unlock_all(array.window)?;
        rma.comm().barrier();
        rma.free(array.window)?;
        Ok(())
    }

    /// Completes every put of this core to `array` at its targets, then
    /// meets the other ranks in a barrier: after it every rank reads what
    /// any wrote before.
    ///
    /// Return values: rma's errors of `flush_all`.
    pub fn flush_and_barrier<T>(&self, array: &GlobalArray<T>) -> Result<(), GasError> {
        let mut rma = self.rma.borrow_mut();
        rma.flush_all(array.window)?;
        rma.comm().barrier();
        Ok(())
    }

    /// Where element `index` lives, counted as one request to it.
    fn target<T>(&self, array: &GlobalArray<T>, index: u64) -> Result<(u32, u32), GasError> {
        if index >= array.layout.len() {
            return Err(GasError::Index {
                index,
                len: array.layout.len(),
            });
        }
        let p = array.layout.locate(index);
        self.counters.borrow_mut().record(p.owner);
        Ok((p.owner, p.offset))
    }

    /// Reads element `index`.
    ///
    /// Return values: `Err(Index)` past the end; rma's errors of `get`.
    pub fn get<T: Accumulable>(&self, array: &GlobalArray<T>, index: u64) -> Result<T, GasError> {
        let (owner, offset) = self.target(array, index)?;
        let mut v = [T::read_le(&[0; 16][..T::BYTES])];
        self.rma
            .borrow_mut()
            .get(array.window, owner, offset, &mut v)?;
        Ok(v[0])
    }

    /// Reads `buf.len()` elements of `owner`'s part from `offset` (its
    /// own part, for a scan of what it holds); counted as one request.
    ///
    /// Return values: rma's errors of `get`.
    pub fn get_part<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        owner: u32,
        offset: u32,
        buf: &mut [T],
    ) -> Result<(), GasError> {
        self.counters.borrow_mut().record(owner);
        self.rma
            .borrow_mut()
            .get(array.window, owner, offset, buf)?;
        Ok(())
    }

    /// Writes `buf` into `owner`'s part from `offset` (its own part, to
    /// reset what it holds), complete at the owner on return; counted as
    /// one request.
    ///
    /// Return values: rma's errors of `put` and `flush`.
    pub fn put_part<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        owner: u32,
        offset: u32,
        buf: &[T],
    ) -> Result<(), GasError> {
        self.counters.borrow_mut().record(owner);
        let mut rma = self.rma.borrow_mut();
        rma.put(array.window, owner, offset, buf)?;
        rma.flush(array.window, owner)?;
        Ok(())
    }

    /// Writes `value` into element `index`, complete at its target on
    /// return.
    ///
    /// Return values: `Err(Index)`; rma's errors of `put` and `flush`.
    pub fn put<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        index: u64,
        value: T,
    ) -> Result<(), GasError> {
        let (owner, offset) = self.target(array, index)?;
        let mut rma = self.rma.borrow_mut();
        rma.put(array.window, owner, offset, &[value])?;
        rma.flush(array.window, owner)?;
        Ok(())
    }

    /// Adds `value` to element `index` atomically and returns the old
    /// value.
    ///
    /// Return values: `Err(Index)`; rma's errors of `fetch_and_op`.
    pub fn fetch_add<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        index: u64,
        value: T,
    ) -> Result<T, GasError> {
        let (owner, offset) = self.target(array, index)?;
        let old = self.rma.borrow_mut().fetch_and_op(
            array.window,
            owner,
            offset,
            value,
            AccumulateOp::Sum,
        )?;
        Ok(old)
    }

    /// Stores `value` in element `index` if it holds `expected`,
    /// atomically, and returns what it held (the swap happened if that is
    /// `expected`).
    ///
    /// Return values: `Err(Index)`; rma's errors of `compare_and_swap`.
    pub fn compare_swap<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        index: u64,
        value: T,
        expected: T,
    ) -> Result<T, GasError> {
        let (owner, offset) = self.target(array, index)?;
        let old =
            self.rma
                .borrow_mut()
                .compare_and_swap(array.window, owner, offset, value, expected)?;
        Ok(old)
    }

    fn issued<T>(
        &self,
        window: Window<T>,
        request: Option<Request>,
        owner: Option<u32>,
        value: T,
    ) -> Handle<'_, 'h, H, T> {
        let n = self.in_flight.get() + 1;
        self.in_flight.set(n);
        self.most_in_flight.set(self.most_in_flight.get().max(n));
        Handle {
            gas: self,
            window,
            request,
            flush: owner,
            value: Some(value),
            yielded: false,
        }
    }

    /// [`Gas::get`], split-phase: the value when the handle is awaited.
    ///
    /// Return values: `Err(Index)`; rma's errors of `rget`.
    pub fn get_nb<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        index: u64,
    ) -> Result<Handle<'_, 'h, H, T>, GasError> {
        let (owner, offset) = self.target(array, index)?;
        let mut v = [T::read_le(&[0; 16][..T::BYTES])];
        let r = self
            .rma
            .borrow_mut()
            .rget(array.window, owner, offset, &mut v)?;
        Ok(self.issued(array.window, Some(r), None, v[0]))
    }

    /// [`Gas::put`], split-phase: complete at the target when the handle
    /// is awaited (its output is the value put).
    ///
    /// Return values: `Err(Index)`; rma's errors of `rput`.
    pub fn put_nb<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        index: u64,
        value: T,
    ) -> Result<Handle<'_, 'h, H, T>, GasError> {
        let (owner, offset) = self.target(array, index)?;
        let r = self
            .rma
            .borrow_mut()
            .rput(array.window, owner, offset, &[value])?;
        Ok(self.issued(array.window, Some(r), Some(owner), value))
    }

    /// [`Gas::fetch_add`], split-phase (`rget_accumulate` with a sum):
    /// the old value when the handle is awaited.
    ///
    /// Return values: `Err(Index)`; rma's errors of `rget_accumulate`.
    pub fn fetch_add_nb<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        index: u64,
        value: T,
    ) -> Result<Handle<'_, 'h, H, T>, GasError> {
        let (owner, offset) = self.target(array, index)?;
        let mut old = [value];
        let r = self.rma.borrow_mut().rget_accumulate(
            array.window,
            owner,
            offset,
            &[value],
            &mut old,
            AccumulateOp::Sum,
        )?;
        Ok(self.issued(array.window, Some(r), None, old[0]))
    }

    /// [`Gas::compare_swap`], split-phase: swapped when issued (MPI has
    /// no request form of it), the old value when the handle is awaited.
    ///
    /// Return values: as [`Gas::compare_swap`].
    pub fn compare_swap_nb<T: Accumulable>(
        &self,
        array: &GlobalArray<T>,
        index: u64,
        value: T,
        expected: T,
    ) -> Result<Handle<'_, 'h, H, T>, GasError> {
        let old = self.compare_swap(array, index, value, expected)?;
        Ok(self.issued(array.window, None, None, old))
    }

    /// Takes lock `index` of `locks` (0 free, 1 held), yielding to the
    /// other tasks after each failed attempt; returns the failed attempts.
    ///
    /// Return values: `Err(Index)`; rma's errors of `compare_and_swap`.
    pub async fn acquire(&self, locks: &GlobalArray<u32>, index: u64) -> Result<u64, GasError> {
        let owner = locks
            .layout
            .locate(index.min(locks.layout.len().saturating_sub(1)))
            .owner;
        let mut spins = 0;
        loop {
            self.locks.borrow_mut().attempts.record(owner);
            if self.compare_swap(locks, index, 1, 0)? == 0 {
                let mut l = self.locks.borrow_mut();
                l.acquisitions += 1;
                l.spins += spins;
                return Ok(spins);
            }
            spins += 1;
            crate::exec::yield_now().await;
        }
    }

    /// Frees lock `index` of `locks`, which this core holds.
    ///
    /// Return values: `Err(NotHeld)` if its word was not 1; as
    /// [`Gas::compare_swap`].
    pub fn release(&self, locks: &GlobalArray<u32>, index: u64) -> Result<(), GasError> {
        match self.compare_swap(locks, index, 0, 1)? {
            1 => Ok(()),
            found => Err(GasError::NotHeld { lock: index, found }),
        }
    }
}

/// A split-phase operation in flight: awaiting it yields the core once,
/// then retires the rma request (and, for a put, flushes it to its
/// target) and gives the operation's value.
#[must_use = "a split-phase operation must be awaited to retire its request"]
pub struct Handle<'g, 'h, H: RmaHal, T> {
    gas: &'g Gas<'h, H>,
    window: Window<T>,
    request: Option<Request>,
    flush: Option<u32>,
    value: Option<T>,
    yielded: bool,
}

impl<H: RmaHal, T> core::fmt::Debug for Handle<'_, '_, H, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Handle")
            .field("request", &self.request)
            .field("yielded", &self.yielded)
            .finish_non_exhaustive()
    }
}

impl<H: RmaHal, T: Copy + Unpin> Future for Handle<'_, '_, H, T>
where
    Window<T>: Copy,
{
    type Output = Result<T, GasError>;

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if !this.yielded {
            this.yielded = true;
            return Poll::Pending;
        }
        let Some(value) = this.value.take() else {
            panic!("a split-phase handle polled after it completed");
        };
        this.gas.in_flight.set(this.gas.in_flight.get() - 1);
        let mut rma = this.gas.rma.borrow_mut();
        if let Some(r) = this.request {
            rma.wait_request(this.window, r)?;
        }
        if let Some(owner) = this.flush {
            rma.flush(this.window, owner)?;
        }
        Poll::Ready(Ok(value))
    }
}
