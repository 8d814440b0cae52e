// SPDX-License-Identifier: MIT OR Apache-2.0
//! OpenSHMEM's programming model for Rust programs: one PE per core, a
//! symmetric heap, typed puts, gets and atomics, and the same consistency
//! recipes as the C library's routines (`rma/shmem`), over the services.
//! Generic over rma's HAL, so it runs on the cores and on the host's mock
//! alike.
//!
//! The heap is one dsm region in blocks, [`HEAP_BYTES`] per PE, cached in
//! L1 only, in one scope. A symmetric array ([`Sym`]) is an offset in
//! every PE's part, the same on every PE because every PE allocates and
//! frees in the same order ([`crate::heap`]).
//!
//! The consistency model, in dsm's terms:
//! - a put, `p` or atomic is in the target's memory when it returns;
//! - [`Spmd::quiet`] releases: `sync_write` of the heap's scope;
//! - [`Spmd::barrier_all`] = `sync_write`, barrier, `sync_read`;
//!   [`Spmd::sync_all`] = barrier, `sync_read`;
//! - [`Spmd::wait_until`] invalidates before every read of the variable;
//! - a get reads the target's memory.

use alloc::vec;
use core::fmt;
use core::marker::PhantomData;

use crate::{Attribute, Distribution, Dsm, DsmError, Lock, LockKind, Region, Scope};
use rma::comm::Element;
use rma::hal::RmaHal;
use rma::{Accumulable, AccumulateOp, Rma};

use crate::heap::{Heap, HeapError, MIN_ALIGN};

/// Bytes of each PE's symmetric heap.
pub const HEAP_BYTES: u32 = 1 << 20;

/// A symmetric array of `T`: the same offset and length on every PE.
#[derive(Debug)]
pub struct Sym<T> {
    offset: u32,
    len: u32,
    element: PhantomData<T>,
}

impl<T> Clone for Sym<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Sym<T> {}

impl<T> Sym<T> {
    /// Elements in it.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// What went wrong in a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpmdError {
    /// The services underneath refused or failed.
    Dsm(DsmError),
    /// The symmetric heap refused an allocation or a free.
    Heap(HeapError),
    /// A PE outside the run.
    Pe {
        /// The call.
        call: &'static str,
        /// The PE named.
        pe: u32,
        /// The run's PEs.
        n: u32,
    },
    /// Elements outside a symmetric array.
    Range {
        /// The call.
        call: &'static str,
        /// The first element.
        at: u32,
        /// Elements asked for.
        count: u32,
        /// The array's elements.
        len: u32,
    },
}

impl fmt::Display for SpmdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpmdError::Dsm(e) => write!(f, "{e}"),
            SpmdError::Heap(e) => write!(f, "{e}"),
            SpmdError::Pe { call, pe, n } => {
                write!(f, "{call}: PE {pe} is not in the run (PEs 0 to {})", n - 1)
            }
            SpmdError::Range {
                call,
                at,
                count,
                len,
            } => write!(
                f,
                "{call}: elements {at}..{} lie outside the array of {len}",
                u64::from(*at) + u64::from(*count)
            ),
        }
    }
}

impl core::error::Error for SpmdError {}

impl From<DsmError> for SpmdError {
    fn from(e: DsmError) -> Self {
        SpmdError::Dsm(e)
    }
}

impl From<HeapError> for SpmdError {
    fn from(e: HeapError) -> Self {
        SpmdError::Heap(e)
    }
}

/// One PE: its services, its symmetric heap and the heap's allocator.
#[derive(Debug)]
pub struct Spmd<'h, H: RmaHal> {
    dsm: Dsm<'h, H>,
    /// The heap: a region of `n * HEAP_BYTES`, in blocks.
    heap: Region,
    /// The heap's scope.
    scope: Scope,
    /// Offsets of the arrays given out.
    alloc: Heap,
}

impl<'h, H: RmaHal> Spmd<'h, H> {
    /// Starts the PE, collectively over `rma`'s communicator: the
    /// services, then the symmetric heap.
    ///
    /// Return values: `Err(Dsm(..))` if the services or the heap cannot
    /// be made.
    pub fn new(rma: Rma<'h, H>) -> Result<Self, SpmdError> {
        let mut dsm = Dsm::new(rma)?;
        // Unzeroed: every array is zeroed when it is allocated.
        let (heap, _) = dsm.alloc_unzeroed(
            dsm.size() * HEAP_BYTES,
            Distribution::Block,
            Attribute::L1Only,
        )?;
        let scope = dsm.scope(&[heap])?;
        Ok(Self {
            dsm,
            heap,
            scope,
            alloc: Heap::new(HEAP_BYTES),
        })
    }

    /// This PE's number.
    pub fn my_pe(&self) -> u32 {
        self.dsm.rank()
    }

    /// The run's PEs.
    pub fn n_pes(&self) -> u32 {
        self.dsm.size()
    }

    /// The services underneath, for locks, counters and statistics.
    pub fn dsm(&mut self) -> &mut Dsm<'h, H> {
        &mut self.dsm
    }

    /// Allocates a symmetric array of `len` elements, zeroed, collectively
    /// (every PE with the same `len`, in the same order): its handle is
    /// the same on every PE. Ends with a barrier, as `shmem_calloc`.
    ///
    /// Return values: `Err(Heap(Full))` if this PE's heap has no room.
    pub fn alloc<T: Element>(&mut self, len: u32) -> Result<Sym<T>, SpmdError> {
        let bytes = u64::from(len) * T::BYTES as u64;
        let offset = self.alloc.alloc(bytes.max(1), u64::from(MIN_ALIGN))?;
        let sym = Sym {
            offset,
            len,
            element: PhantomData,
        };
        let zeros = vec![0u8; bytes as usize];
        let at = self.at(self.my_pe(), offset);
        self.dsm.write(self.heap, at, &zeros)?;
        self.barrier_all()?;
        Ok(sym)
    }

    /// Frees `sym`, collectively, after a barrier (as `shmem_free`).
    ///
    /// Return values: `Err(Heap(NotAllocated))` if it was freed already.
    pub fn free<T>(&mut self, sym: Sym<T>) -> Result<(), SpmdError> {
        self.barrier_all()?;
        self.alloc.free(sym.offset)?;
        Ok(())
    }

    /// Writes `src` into elements `at..` of `dest` on `pe`; in `pe`'s
    /// memory when it returns.
    ///
    /// Return values: `Err(Pe)`; `Err(Range)`.
    pub fn put<T: Element>(
        &mut self,
        dest: Sym<T>,
        at: u32,
        src: &[T],
        pe: u32,
    ) -> Result<(), SpmdError> {
        let byte = self.element("put", dest, at, src.len(), pe)?;
        let mut bytes = vec![0u8; src.len() * T::BYTES];
        for (value, out) in src.iter().zip(bytes.chunks_exact_mut(T::BYTES)) {
            value.write_le(out);
        }
        self.dsm.write(self.heap, byte, &bytes)?;
        self.dsm.rma().hal().flush_wcb();
        Ok(())
    }

    /// Reads elements `at..` of `src` on `pe` into `dest`.
    ///
    /// Return values: as [`Spmd::put`].
    pub fn get<T: Element>(
        &mut self,
        dest: &mut [T],
        src: Sym<T>,
        at: u32,
        pe: u32,
    ) -> Result<(), SpmdError> {
        let byte = self.element("get", src, at, dest.len(), pe)?;
        let mut bytes = vec![0u8; dest.len() * T::BYTES];
        self.dsm.read(self.heap, byte, &mut bytes)?;
        for (value, b) in dest.iter_mut().zip(bytes.chunks_exact(T::BYTES)) {
            *value = T::read_le(b);
        }
        Ok(())
    }

    /// Element `at` of `dest` on `pe` becomes `value` (`shmem_p`).
    ///
    /// Return values: as [`Spmd::put`].
    pub fn p<T: Element>(
        &mut self,
        dest: Sym<T>,
        at: u32,
        value: T,
        pe: u32,
    ) -> Result<(), SpmdError> {
        self.put(dest, at, &[value], pe)
    }

    /// Element `at` of `src` on `pe` (`shmem_g`).
    ///
    /// Return values: as [`Spmd::put`].
    pub fn g<T: Element + Default>(
        &mut self,
        src: Sym<T>,
        at: u32,
        pe: u32,
    ) -> Result<T, SpmdError> {
        let mut value = [T::default()];
        self.get(&mut value, src, at, pe)?;
        Ok(value[0])
    }

    /// Replaces element `at` of `dest` on `pe` with `old op value`
    /// atomically, and returns `old` (`NoOp` fetches, `Replace` swaps,
    /// `Sum` adds).
    ///
    /// Return values: as [`Spmd::put`].
    pub fn atomic<T: Accumulable>(
        &mut self,
        dest: Sym<T>,
        at: u32,
        value: T,
        op: AccumulateOp,
        pe: u32,
    ) -> Result<T, SpmdError> {
        let byte = self.element("atomic", dest, at, 1, pe)?;
        Ok(self.dsm.atomic(self.heap, byte, value, op)?)
    }

    /// Stores `value` in element `at` of `dest` on `pe` if it equals
    /// `compare`, atomically; returns the element as it was.
    ///
    /// Return values: as [`Spmd::put`].
    pub fn compare_swap<T: Accumulable>(
        &mut self,
        dest: Sym<T>,
        at: u32,
        compare: T,
        value: T,
        pe: u32,
    ) -> Result<T, SpmdError> {
        let byte = self.element("compare_swap", dest, at, 1, pe)?;
        Ok(self.dsm.compare_swap(self.heap, byte, compare, value)?)
    }

    /// Release: what this PE wrote into the heap is visible everywhere.
    ///
    /// Return values: `Err(Dsm(..))` if the release fails.
    pub fn quiet(&mut self) -> Result<(), SpmdError> {
        Ok(self.dsm.sync_write(self.scope)?)
    }

    /// Every PE arrives; then this PE's reads see what was released.
    ///
    /// Return values: as [`Spmd::quiet`].
    pub fn sync_all(&mut self) -> Result<(), SpmdError> {
        self.dsm.barrier();
        Ok(self.dsm.sync_read(self.scope)?)
    }

    /// [`Spmd::quiet`], then [`Spmd::sync_all`].
    ///
    /// Return values: as [`Spmd::quiet`].
    pub fn barrier_all(&mut self) -> Result<(), SpmdError> {
        self.quiet()?;
        self.sync_all()
    }

    /// Allocates a lock taken as `kind` says ([`Dsm::lock_new_kind`]):
    /// every PE in the same order.
    ///
    /// Return values: as [`Dsm::lock_new_kind`].
    pub fn lock_new(&mut self, kind: LockKind) -> Result<Lock, SpmdError> {
        Ok(self.dsm.lock_new_kind(kind)?)
    }

    /// Acquires `lock`: takes it, then this PE's reads see what its last
    /// holder released (`shmem_set_lock`).
    ///
    /// Return values: as [`Dsm::lock`].
    pub fn set_lock(&mut self, lock: Lock) -> Result<(), SpmdError> {
        self.dsm.lock(lock)?;
        Ok(self.dsm.sync_read(self.scope)?)
    }

    /// Releases `lock`: what this PE wrote is visible everywhere, then the
    /// lock goes to the next PE (`shmem_clear_lock`).
    ///
    /// Return values: as [`Dsm::unlock`].
    pub fn clear_lock(&mut self, lock: Lock) -> Result<(), SpmdError> {
        self.dsm.sync_write(self.scope)?;
        Ok(self.dsm.unlock(lock)?)
    }

    /// Waits until `ready` holds of element `at` of this PE's `var`,
    /// reading it fresh (after an invalidation) each time; returns it.
    ///
    /// Return values: as [`Spmd::put`].
    pub fn wait_until<T: Element + Default>(
        &mut self,
        var: Sym<T>,
        at: u32,
        mut ready: impl FnMut(T) -> bool,
    ) -> Result<T, SpmdError> {
        let me = self.my_pe();
        let byte = self.element("wait_until", var, at, 1, me)?;
        let hal = self.dsm.rma().hal();
        let heap = self.heap;
        let dsm = &mut self.dsm;
        let mut bytes = vec![0u8; T::BYTES];
        hal.wait_for(|| {
            dsm.invalidate();
            match dsm.read(heap, byte, &mut bytes) {
                Ok(()) => {
                    let value = T::read_le(&bytes);
                    ready(value).then_some(Ok(value))
                }
                Err(e) => Some(Err(SpmdError::from(e))),
            }
        })
    }

    /// Ends the PE, collectively: a barrier, then the services end and
    /// the layer underneath comes back.
    ///
    /// Return values: as [`Dsm::finish`].
    pub fn finish(mut self) -> Result<Rma<'h, H>, SpmdError> {
        self.barrier_all()?;
        Ok(self.dsm.finish()?)
    }

    /// The region byte of heap offset `offset` on `pe`.
    fn at(&self, pe: u32, offset: u32) -> u32 {
        pe * HEAP_BYTES + offset
    }

    /// The region byte of elements `at..at + count` of `sym` on `pe`,
    /// checked.
    fn element<T: Element>(
        &self,
        call: &'static str,
        sym: Sym<T>,
        at: u32,
        count: usize,
        pe: u32,
    ) -> Result<u32, SpmdError> {
        let n = self.n_pes();
        if pe >= n {
            return Err(SpmdError::Pe { call, pe, n });
        }
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        if u64::from(at) + u64::from(count) > u64::from(sym.len) {
            return Err(SpmdError::Range {
                call,
                at,
                count,
                len: sym.len,
            });
        }
        Ok(self.at(pe, sym.offset) + at * T::BYTES as u32)
    }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use rma::comm::Comm;
    use rma::hal::mock::Mock;

    use super::*;

    fn spmd(hal: &Mock) -> Spmd<'_, Mock> {
        Spmd::new(Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits"))
            .expect("services and heap")
    }

    #[test]
    fn puts_gets_and_atomics_reach_every_pe_and_a_flag_wakes_its_waiter() {
        let n = 4;
        Mock::run(n, |hal| {
            let mut s = spmd(hal);
            let me = s.my_pe();
            let slots: Sym<u64> = s.alloc(n).unwrap();
            let counter: Sym<u32> = s.alloc(1).unwrap();
            let flag: Sym<u32> = s.alloc(1).unwrap();
            // Every PE writes its slot on every PE.
            for pe in 0..n {
                s.p(slots, me, u64::from(me) * 1000 + u64::from(pe), pe)
                    .unwrap();
            }
            s.barrier_all().unwrap();
            let mut got = vec![0u64; n as usize];
            s.get(&mut got, slots, 0, me).unwrap();
            let want: Vec<u64> = (0..n)
                .map(|w| u64::from(w) * 1000 + u64::from(me))
                .collect();
            assert_eq!(got, want);
            assert_eq!(
                s.g(slots, 1, (me + 1) % n).unwrap(),
                1000 + u64::from((me + 1) % n)
            );
            // A counter on PE 0 that every PE adds to.
            for _ in 0..10 {
                s.atomic(counter, 0, 1u32, AccumulateOp::Sum, 0).unwrap();
            }
            s.barrier_all().unwrap();
            assert_eq!(s.g(counter, 0, 0).unwrap(), 10 * n);
            s.barrier_all().unwrap();
            // Exactly one PE swaps the counter.
            let seen = s.compare_swap(counter, 0, 10 * n, 7, 0).unwrap();
            s.barrier_all().unwrap();
            assert_eq!(s.g(counter, 0, 0).unwrap(), 7);
            // The last PE puts data to PE 0, releases it, then raises PE 0's
            // flag; PE 0 waits for the flag and then sees the data.
            if me == n - 1 {
                s.put(slots, 0, &[42, 43], 0).unwrap();
                s.quiet().unwrap();
                s.p(flag, 0, 1u32, 0).unwrap();
            }
            if me == 0 {
                assert_eq!(s.wait_until(flag, 0, |f| f == 1).unwrap(), 1);
                let mut data = [0u64; 2];
                s.get(&mut data, slots, 0, 0).unwrap();
                assert_eq!(data, [42, 43]);
            }
            // A read-modify-write of a plain element, under a
            // hierarchical lock: exact.
            let lock = s.lock_new(LockKind::Hierarchical).unwrap();
            for _ in 0..5 {
                s.set_lock(lock).unwrap();
                let v = s.g(counter, 0, 0).unwrap();
                s.p(counter, 0, v + 1, 0).unwrap();
                s.clear_lock(lock).unwrap();
            }
            s.barrier_all().unwrap();
            assert_eq!(s.g(counter, 0, 0).unwrap(), 7 + 5 * n);
            s.free(flag).unwrap();
            s.free(counter).unwrap();
            s.free(slots).unwrap();
            s.finish().unwrap();
            seen == 10 * n
        })
        .into_iter()
        .filter(|&swapped| swapped)
        .count()
        .eq(&1)
        .then_some(())
        .expect("exactly one PE swapped");
    }

    #[test]
    fn bad_pes_ranges_and_frees_are_named() {
        Mock::run(2, |hal| {
            let mut s = spmd(hal);
            let a: Sym<u32> = s.alloc(4).unwrap();
            assert_eq!(
                s.p(a, 0, 1, 2).unwrap_err().to_string(),
                "put: PE 2 is not in the run (PEs 0 to 1)"
            );
            assert_eq!(
                s.put(a, 3, &[1, 2], 0).unwrap_err().to_string(),
                "put: elements 3..5 lie outside the array of 4"
            );
            let mut two = [0u32; 2];
            assert!(matches!(
                s.get(&mut two, a, 4, 1),
                Err(SpmdError::Range { call: "get", .. })
            ));
            s.free(a).unwrap();
            assert!(matches!(
                s.free(a),
                Err(SpmdError::Heap(HeapError::NotAllocated(_)))
            ));
            let big: Result<Sym<u8>, _> = s.alloc(HEAP_BYTES + 1);
            assert!(matches!(big, Err(SpmdError::Heap(HeapError::Full { .. }))));
            s.finish().unwrap();
        });
    }
}
