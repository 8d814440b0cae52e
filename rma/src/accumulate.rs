// SPDX-License-Identifier: MIT OR Apache-2.0
//! Accumulate, get_accumulate, fetch_and_op and compare_and_swap: MPI's
//! atomic read-modify-writes of target window elements, on a chip with
//! neither cache coherence nor atomic memory operations.
//!
//! # The guard
//!
//! Every call of this family on target `t` does its read-modify-write
//! while holding `t`'s test-and-set register (TSR): the one hardware
//! primitive the SCC has that excludes other cores (thesis mapping of the
//! direct accumulate: "TS_acquire; CL1INVMB; load, op, store; flush WCB;
//! TS_release"). A lock word in memory would need the TSR anyway to be
//! taken atomically, so the register itself is the cheaper guard. It is
//! the register GBH's counters of `t`'s part and PSCW's match and
//! completion words of `t` use too; those hold it for a few uncached
//! accesses, the guard for one call's elements (so a lock or PSCW call on
//! `t` may wait for a whole accumulate, see below), and none of them
//! while holding another TSR: inside the guard run only the coherence
//! actions, the copies through the window mapping (which may remap a LUT
//! entry, touching no TSR) and the operation itself. No TSR is ever taken
//! while one is held, so no cycle of waiters can form.
//!
//! Inside the guard, for the memory type the target is reached with (the
//! window's remote type, or its local type when the target is this core,
//! which then goes through its local mapping as its loads and stores do):
//! [`acquire_actions`] first, made safe by [`guard_invalidation`] (MPBT-WT:
//! flush the write-combine buffer, CL1INVMB, so no stale line is read),
//! then the loads, the operation and the stores, then [`release_actions`]
//! (MPBT-WT: flush the write-combine buffer; MPBT-WB also write L1 back) so
//! the next holder reads the new values. NCM needs neither. A window made
//! with [`Coherence::Disabled`](crate::Coherence::Disabled) skips the
//! actions as its synchronisation calls do.
//!
//! # Atomicity and ordering
//!
//! MPI makes accumulates atomic per element only, which allows more: a
//! call holds the guard once for all it does at its target (one TSR
//! acquire and one set of coherence actions per call, however many
//! elements and runs its layouts have), and reads, combines and writes
//! the elements [`CHUNK`] at a time through a buffer on the stack, piece
//! by piece in order. Giving the guard up between chunks instead would let
//! a lock or another origin's accumulate on the same target in after one
//! chunk rather than after the whole call, at the price of a TSR handoff
//! and the coherence actions per chunk, and of the calls' chunks
//! interleaving, so that each call waits for others' chunks between its
//! own. On 16 cores all accumulating 256 `u64` onto every rank
//! (`bench-accumulate --param scale=quick`, three runs pooled), one hold
//! per 64 elements made the mean call 10 % (accumulate) and 5 %
//! (get_accumulate) slower and the 90th percentile 20 % slower than one
//! hold per call; its slowest call was faster (1.1 against 2.1 million
//! cycles), as a call that loses the TSR waits for whole calls then.
//!
//! Each call has written its elements and released the guard when it
//! returns, so accumulates from one origin to one target are ordered as
//! MPI requires by default (a REPLACE and then a SUM to the same element
//! give `origin2 + origin1`).
//!
//! # The remote atomic unit
//!
//! On a chip with a remote atomic unit at its memory controllers
//! ([`crate::hal::RemoteAtomic`], `chip::RemoteAtomics`), the calls of this
//! family do each element's read-modify-write at the unit instead, one
//! request per element, without the TSR: a sum on integers is a fetch-add,
//! `MPI_REPLACE` a swap, `MPI_NO_OP` a fetch-add of 0, compare_and_swap a
//! compare-swap, and every other operation (floating point, MIN, MAX,
//! bitwise, pairs) a compare-swap loop that starts from a fetch-add of 0.
//! The unit serves a target's part ([`Rma::unit_serves`]) when:
//!
//! - the platform's unit answers ([`crate::hal::RemoteAtomic::dram_atomics`]);
//! - the elements are 4 or 8 bytes, aligned at the target (its part's
//!   offset and displacement unit are multiples of the element's size) and
//!   the window is not dynamic, so every element of the part takes the
//!   same path in every call;
//! - the window's local and remote memory types keep no modified line in a
//!   cache (NCM, NCM+WCB, MPBT-WT): a line written back later would
//!   overwrite the unit's write. DCM and MPBT-WB windows keep the guard.
//!
//! Before its requests a call runs the same acquire actions as the guard
//! (MPBT-WT: flush the write-combine buffer, CL1INVMB), so its own earlier
//! writes are in memory first and it holds no stale copy of the line
//! after. The unit writes memory, not caches: the release actions have
//! nothing to push. Atomicity is per element, with respect to every other
//! call of the family on the window, as MPI requires.
//!
//! As with the thesis's hardware atomics, the atomicity holds only with
//! respect to other calls of this family (on any window whose part on `t`
//! is guarded by the same TSR): a put or a local store to the same element
//! may interleave with an accumulate, as MPI allows it to.
//!
//! Operations ([`AccumulateOp`]) and element types ([`Accumulable`]) follow
//! MPI: bitwise and logical operations on integers only (`MPI_ERR_OP` on
//! floating point), `MPI_NO_OP` only in get_accumulate and fetch_and_op
//! (`MPI_ERR_OP` elsewhere), compare_and_swap on integers only
//! (`MPI_ERR_TYPE`). The calls are allowed in the same access epochs as put
//! and get, and check their arguments as put does.
#![forbid(unsafe_code)]

use chip::MemoryType;

use crate::RmaError;
use chip::trace::Op;

use crate::coherence::{Actions, acquire_actions, guard_invalidation, release_actions};
use crate::comm::Element;
use crate::datatype::{Counted, Layout, Vector, zip_runs};
use crate::hal::RmaHal;
use crate::hal::Span;
use crate::hal::{AtomicOp, RauCommand};
use crate::ops::{
    Call, Kind, byte_at, bytes, call, check_buffer, check_elements, check_overlap, len_u32,
};
use crate::request::Request;
use crate::transfer::{PROC_NULL, Sides, Transfer};
use crate::window::{Rma, Window};
pub use crate::x87::X87;

/// Elements read, combined and written at a time under the guard: up to
/// 512 bytes (64 `f64`), the stack buffer they pass through.
pub const CHUNK: usize = 64;

pub(crate) const ACCUMULATE: Call = call!("accumulate");
pub(crate) const GET_ACCUMULATE: Call = call!("get_accumulate");
pub(crate) const RACCUMULATE: Call = call!("raccumulate");
pub(crate) const RGET_ACCUMULATE: Call = call!("rget_accumulate");
const FETCH_AND_OP: Call = call!("fetch_and_op");
const COMPARE_AND_SWAP: Call = call!("compare_and_swap");

/// The operations of accumulate and its relatives (`MPI_Op`s valid in
/// one-sided calls). Each combines a target element with an origin
/// element into the target's new value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccumulateOp {
    /// `MPI_SUM`: target + origin (integers wrap around).
    Sum,
    /// `MPI_PROD`: target × origin (integers wrap around).
    Prod,
    /// `MPI_MIN`: the smaller (floats: a NaN operand is ignored).
    Min,
    /// `MPI_MAX`: the larger (floats: a NaN operand is ignored).
    Max,
    /// `MPI_BAND`: bitwise and (integers only).
    Band,
    /// `MPI_BOR`: bitwise or (integers only).
    Bor,
    /// `MPI_BXOR`: bitwise exclusive or (integers only).
    Bxor,
    /// `MPI_LAND`: 1 if both are non-zero, else 0 (integers only).
    Land,
    /// `MPI_LOR`: 1 if either is non-zero, else 0 (integers only).
    Lor,
    /// `MPI_LXOR`: 1 if exactly one is non-zero, else 0 (integers only).
    Lxor,
    /// `MPI_REPLACE`: the origin element (an atomic put).
    Replace,
    /// `MPI_NO_OP`: the target element stays (an atomic get); only in
    /// get_accumulate and fetch_and_op.
    NoOp,
    /// `MPI_MAXLOC`: the pair with the larger value, the smaller index on
    /// a tie (value-index pairs, [`Loc`], only).
    MaxLoc,
    /// `MPI_MINLOC`: the pair with the smaller value, the smaller index on
    /// a tie (value-index pairs only).
    MinLoc,
}

impl AccumulateOp {
    /// Every operation.
    pub const ALL: [AccumulateOp; 14] = [
        Self::Sum,
        Self::Prod,
        Self::Min,
        Self::Max,
        Self::Band,
        Self::Bor,
        Self::Bxor,
        Self::Land,
        Self::Lor,
        Self::Lxor,
        Self::Replace,
        Self::NoOp,
        Self::MaxLoc,
        Self::MinLoc,
    ];

    /// The MPI name.
    pub const fn mpi_name(self) -> &'static str {
        match self {
            Self::Sum => "MPI_SUM",
            Self::Prod => "MPI_PROD",
            Self::Min => "MPI_MIN",
            Self::Max => "MPI_MAX",
            Self::Band => "MPI_BAND",
            Self::Bor => "MPI_BOR",
            Self::Bxor => "MPI_BXOR",
            Self::Land => "MPI_LAND",
            Self::Lor => "MPI_LOR",
            Self::Lxor => "MPI_LXOR",
            Self::Replace => "MPI_REPLACE",
            Self::NoOp => "MPI_NO_OP",
            Self::MaxLoc => "MPI_MAXLOC",
            Self::MinLoc => "MPI_MINLOC",
        }
    }

    /// Whether MPI defines the operation on value-index pairs only.
    pub const fn pair_only(self) -> bool {
        matches!(self, Self::MaxLoc | Self::MinLoc)
    }

    /// Whether the operation applies to value-index pairs.
    pub const fn for_pairs(self) -> bool {
        matches!(
            self,
            Self::MaxLoc | Self::MinLoc | Self::Replace | Self::NoOp
        )
    }

    /// Whether MPI defines the operation on integer types only.
    pub const fn integer_only(self) -> bool {
        matches!(
            self,
            Self::Band | Self::Bor | Self::Bxor | Self::Land | Self::Lor | Self::Lxor
        )
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An element type accumulates apply to: `u8`, `i8`, `u16`, `i16`, `u32`,
/// `i32`, `u64`, `i64`, `f32`, `f64` and [`X87`] (C's `long double`), and the value-index pairs
/// [`Loc`] of `i32`, `i64`, `f32` and `f64` (MPI's `MPI_2INT`,
/// `MPI_LONG_INT`, `MPI_FLOAT_INT`, `MPI_DOUBLE_INT`) for MAXLOC and
/// MINLOC. Sealed: the operations and their checks are defined for these
/// only.
pub trait Accumulable: Element + PartialEq + sealed::Sealed {
    /// The type's name, for messages.
    const NAME: &'static str;
    /// Whether it is an integer type (bitwise and logical operations,
    /// compare_and_swap).
    const INTEGER: bool;
    /// Whether it is a value-index pair (MAXLOC and MINLOC, and only
    /// those with REPLACE and NO_OP).
    const PAIR: bool = false;

    /// `target op origin`: the target's new value. An operation the type
    /// does not support (callers refuse it first) leaves `target`.
    fn combine(op: AccumulateOp, target: Self, origin: Self) -> Self;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Accumulable for $t {
            const NAME: &'static str = stringify!($t);
            const INTEGER: bool = true;
            // Inlined into the accumulate loops instantiated in other crates.
            #[inline]
            fn combine(op: AccumulateOp, target: Self, origin: Self) -> Self {
                let (t, o) = (target != 0, origin != 0);
                match op {
                    AccumulateOp::Sum => target.wrapping_add(origin),
                    AccumulateOp::Prod => target.wrapping_mul(origin),
                    AccumulateOp::Min => target.min(origin),
                    AccumulateOp::Max => target.max(origin),
                    AccumulateOp::Band => target & origin,
                    AccumulateOp::Bor => target | origin,
                    AccumulateOp::Bxor => target ^ origin,
                    AccumulateOp::Land => Self::from(t && o),
                    AccumulateOp::Lor => Self::from(t || o),
                    AccumulateOp::Lxor => Self::from(t != o),
                    AccumulateOp::Replace => origin,
                    AccumulateOp::NoOp | AccumulateOp::MaxLoc | AccumulateOp::MinLoc => target,
                }
            }
        }
    )*};
}

integer!(u8, i8, u16, i16, u32, i32, u64, i64);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Accumulable for $t {
            const NAME: &'static str = stringify!($t);
            const INTEGER: bool = false;
            #[inline]
            fn combine(op: AccumulateOp, target: Self, origin: Self) -> Self {
                match op {
                    AccumulateOp::Sum => target + origin,
                    AccumulateOp::Prod => target * origin,
                    AccumulateOp::Min => target.min(origin),
                    AccumulateOp::Max => target.max(origin),
                    AccumulateOp::Replace => origin,
                    _ => target,
                }
            }
        }
    )*};
}

float!(f32, f64);

/// A value and its index, as MPI's MAXLOC and MINLOC combine them
/// (`MPI_2INT`, `MPI_LONG_INT`, `MPI_FLOAT_INT`, `MPI_DOUBLE_INT`): stored
/// as the value then the index, little-endian, without padding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loc<V> {
    /// The value compared.
    pub value: V,
    /// Where it came from (a rank, an element's position).
    pub index: i32,
}

macro_rules! loc {
    ($($t:ty),*) => {$(
        impl Element for Loc<$t> {
            const BYTES: usize = <$t as Element>::BYTES + 4;
            fn write_le(self, out: &mut [u8]) {
                let (value, index) = out.split_at_mut(<$t as Element>::BYTES);
                self.value.write_le(value);
                self.index.write_le(index);
            }
            fn read_le(bytes: &[u8]) -> Self {
                let (value, index) = bytes.split_at(<$t as Element>::BYTES);
                Self {
                    value: <$t as Element>::read_le(value),
                    index: i32::read_le(index),
                }
            }
        }
        impl sealed::Sealed for Loc<$t> {}
        impl Accumulable for Loc<$t> {
            const NAME: &'static str = concat!("Loc<", stringify!($t), ">");
            const INTEGER: bool = false;
            const PAIR: bool = true;
            fn combine(op: AccumulateOp, target: Self, origin: Self) -> Self {
                let tie = target.value == origin.value;
                let origin_wins = match op {
                    AccumulateOp::MaxLoc => origin.value > target.value,
                    AccumulateOp::MinLoc => origin.value < target.value,
                    AccumulateOp::Replace => return origin,
                    _ => return target,
                };
                if origin_wins {
                    origin
                } else if tie {
                    Self {
                        index: target.index.min(origin.index),
                        ..target
                    }
                } else {
                    target
                }
            }
        }
    )*};
}

loc!(i32, i64, f32, f64, X87);

/// An element of MPI's `MPI_SHORT_INT` as C lays it out: a short, 2 bytes
/// of padding, then the int (8 bytes). Combined as a [`Loc<i16>`] would be
/// (MAXLOC, MINLOC, REPLACE, NO_OP); the padding of the target's element
/// is kept, whatever the origin's holds, so only the short and the int
/// are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShortLoc {
    /// The value compared.
    pub value: i16,
    /// The padding between the value and the index, as it lies in memory.
    pub pad: [u8; 2],
    /// Where it came from.
    pub index: i32,
}

impl Element for ShortLoc {
    const BYTES: usize = 8;
    fn write_le(self, out: &mut [u8]) {
        out[..2].copy_from_slice(&self.value.to_le_bytes());
        out[2..4].copy_from_slice(&self.pad);
        out[4..8].copy_from_slice(&self.index.to_le_bytes());
    }
    fn read_le(bytes: &[u8]) -> Self {
        Self {
            value: i16::from_le_bytes([bytes[0], bytes[1]]),
            pad: [bytes[2], bytes[3]],
            index: i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]),
        }
    }
}

impl sealed::Sealed for ShortLoc {}
impl Accumulable for ShortLoc {
    const NAME: &'static str = "ShortLoc";
    const INTEGER: bool = false;
    const PAIR: bool = true;
    fn combine(op: AccumulateOp, target: Self, origin: Self) -> Self {
        let pair = |l: Self| Loc {
            value: i32::from(l.value),
            index: l.index,
        };
        let out = <Loc<i32> as Accumulable>::combine(op, pair(target), pair(origin));
        Self {
            // A value of either side: it fits.
            value: out.value as i16,
            pad: target.pad,
            index: out.index,
        }
    }
}

impl Element for X87 {
    const BYTES: usize = 12;
    fn write_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.0);
    }
    fn read_le(bytes: &[u8]) -> Self {
        let mut value = [0; 12];
        value.copy_from_slice(bytes);
        Self(value)
    }
}

impl sealed::Sealed for X87 {}
impl Accumulable for X87 {
    const NAME: &'static str = "X87";
    const INTEGER: bool = false;
    /// The sum and product by the x87 (the `x87` module); MIN and MAX by
    /// the exact comparison, a NaN operand ignored as for `f64`.
    fn combine(op: AccumulateOp, target: Self, origin: Self) -> Self {
        // The origin if it lies on the `wins` side of the target, or if
        // the target is a NaN.
        let pick = |wins: core::cmp::Ordering| match origin.partial_cmp(&target) {
            Some(o) if o == wins => origin,
            Some(_) => target,
            None if target.key().is_none() => origin,
            None => target,
        };
        match op {
            AccumulateOp::Sum => crate::x87::sum(target, origin),
            AccumulateOp::Prod => crate::x87::product(target, origin),
            AccumulateOp::Max => pick(core::cmp::Ordering::Greater),
            AccumulateOp::Min => pick(core::cmp::Ordering::Less),
            AccumulateOp::Replace => origin,
            _ => target,
        }
    }
}

/// The element type's zero.
fn zero<T: Element>() -> T {
    T::read_le(&[0; 16][..T::BYTES])
}

/// `Err(Op)` unless `call` may apply `op` to `T`; `no_op` says whether
/// the call accepts `MPI_NO_OP`.
fn check_op<T: Accumulable>(
    call: &Call,
    window: u32,
    op: AccumulateOp,
    no_op: bool,
) -> Result<(), RmaError> {
    let problem = if op == AccumulateOp::NoOp && !no_op {
        "is allowed only in get_accumulate, rget_accumulate and fetch_and_op"
    } else if op.integer_only() && !T::INTEGER {
        "is defined for integer types only"
    } else if op.pair_only() && !T::PAIR {
        "is defined for value-index pairs (Loc) only"
    } else if T::PAIR && !op.for_pairs() {
        "is not defined for value-index pairs (MAXLOC, MINLOC, REPLACE and NO_OP are)"
    } else {
        return Ok(());
    };
    Err(RmaError::Op {
        call: call.name,
        window,
        op: op.mpi_name(),
        ty: T::NAME,
        problem,
    })
}

/// The guarded read-modify-write, apart from windows and epochs: what the
/// loom checks drive directly.
pub mod guard {
    use chip::CoreId;

    use super::{Accumulable, AccumulateOp};
    use crate::RmaError;
    use crate::hal::Tsr;

    /// Target memory's coherence actions, as the guard's holder runs them.
    pub trait Coherent {
        /// Drops what may be stale, before the first read.
        fn acquire(&mut self);
        /// Makes the writes visible, before the guard is given up.
        fn release(&mut self);
    }

    /// Target memory as the guard's holder reaches it.
    pub trait Target<T>: Coherent {
        /// Reads `buf.len()` elements from byte `at`.
        fn read(&mut self, at: u64, buf: &mut [T]) -> Result<(), RmaError>;
        /// Writes `data` at byte `at`.
        fn write(&mut self, at: u64, data: &[T]) -> Result<(), RmaError>;
    }

    /// Under `owner`'s TSR: acquires, runs `body` (the read-modify-writes
    /// of one hold, [`modify`]), releases. The TSR is given up on errors
    /// too.
    pub fn hold<H: Tsr, M: Coherent, R>(
        hal: &H,
        owner: CoreId,
        memory: &mut M,
        body: impl FnOnce(&mut M) -> Result<R, RmaError>,
    ) -> Result<R, RmaError> {
        hal.tsr_acquire(owner);
        memory.acquire();
        let done = body(memory);
        memory.release();
        hal.tsr_release(owner);
        done
    }

    /// Inside a [`hold`]: reads `buf.len()` elements at `at` into `buf`,
    /// lets `modify` turn them into the new values (it returns whether to
    /// write them), writes.
    pub fn modify<T, M: Target<T>>(
        memory: &mut M,
        at: u64,
        buf: &mut [T],
        modify: impl FnOnce(&mut [T]) -> bool,
    ) -> Result<(), RmaError> {
        memory.read(at, buf)?;
        if modify(buf) {
            memory.write(at, buf)?;
        }
        Ok(())
    }

    /// [`modify`] in a [`hold`] of its own.
    pub fn read_modify_write<H: Tsr, T, M: Target<T>>(
        hal: &H,
        owner: CoreId,
        memory: &mut M,
        at: u64,
        buf: &mut [T],
        change: impl FnOnce(&mut [T]) -> bool,
    ) -> Result<(), RmaError> {
        hold(hal, owner, memory, |m| modify(m, at, buf, change))
    }

    /// Replaces the element at `at` with `old op value`; returns `old`.
    pub fn fetch_and_op<H: Tsr, T: Accumulable, M: Target<T>>(
        hal: &H,
        owner: CoreId,
        memory: &mut M,
        at: u64,
        value: T,
        op: AccumulateOp,
    ) -> Result<T, RmaError> {
        let mut cell = [value];
        let mut old = value;
        read_modify_write(hal, owner, memory, at, &mut cell, |c| {
            old = c[0];
            c[0] = T::combine(op, old, value);
            op != AccumulateOp::NoOp
        })?;
        Ok(old)
    }

    /// Replaces the element at `at` with `value` if it equals `compare`;
    /// returns the element as it was.
    pub fn compare_and_swap<H: Tsr, T: Accumulable, M: Target<T>>(
        hal: &H,
        owner: CoreId,
        memory: &mut M,
        at: u64,
        value: T,
        compare: T,
    ) -> Result<T, RmaError> {
        let mut cell = [value];
        let mut old = value;
        read_modify_write(hal, owner, memory, at, &mut cell, |c| {
            old = c[0];
            let swap = old == compare;
            if swap {
                c[0] = value;
            }
            swap
        })?;
        Ok(old)
    }
}

/// One target's part of a window, reached with the memory type and
/// coherence actions the guard uses.
struct Through<'r, 'h, H: RmaHal> {
    rma: &'r mut Rma<'h, H>,
    id: u32,
    target: u32,
    ty: MemoryType,
    acquire: Actions,
    release: Actions,
}

impl<H: RmaHal> guard::Coherent for Through<'_, '_, H> {
    fn acquire(&mut self) {
        self.rma.coherence(self.id, self.acquire);
    }

    fn release(&mut self) {
        self.rma.coherence(self.id, self.release);
    }
}

impl<T: Element, H: RmaHal> guard::Target<T> for Through<'_, '_, H> {
    fn read(&mut self, at: u64, buf: &mut [T]) -> Result<(), RmaError> {
        // What it reads may stay in L1 after the guard: a later get drops it.
        if self.acquire.invalidate {
            self.rma.remote_lines = true;
        }
        self.rma
            .read_elements(self.id, self.target, self.ty, at, buf)
    }

    fn write(&mut self, at: u64, data: &[T]) -> Result<(), RmaError> {
        self.rma
            .write_elements(self.id, self.target, self.ty, at, data)
    }
}

/// What one element's update at the remote atomic unit does.
#[derive(Debug, Clone, Copy)]
enum Update<T> {
    /// `old op value`.
    Op(AccumulateOp, T),
    /// `value` if the element equals `compare`.
    CompareSwap {
        /// The new value.
        value: T,
        /// The value compared.
        compare: T,
    },
}

/// An element's little-endian bytes as a word of the unit.
fn word_of<T: Element>(value: T) -> u64 {
    let mut bytes = [0; 8];
    value.write_le(&mut bytes[..T::BYTES]);
    u64::from_le_bytes(bytes)
}

/// The element a word of the unit holds.
fn element_of<T: Element>(word: u64) -> T {
    T::read_le(&word.to_le_bytes()[..T::BYTES])
}

/// Whether memory of type `ty` may hold a modified line in a cache, which
/// a write-back would put over the unit's write.
fn keeps_modified_lines(ty: MemoryType) -> bool {
    matches!(ty, MemoryType::Dcm | MemoryType::MpbtWb)
}

impl<'h, H: RmaHal> Rma<'h, H> {
    /// Whether the remote atomic unit serves the elements of `target`'s
    /// part of window `id` (see the [module docs](self), "The remote atomic
    /// unit"): the same answer for every element of the part, in every
    /// call.
    pub fn unit_serves<T: Element>(&self, id: u32, target: u32) -> bool {
        let bytes = T::BYTES as u32;
        // The chip's answer first: on a chip without a unit (the SCC) the
        // call costs a test of one flag, not a window lookup.
        if !self.hal.dram_atomics() || !(bytes == 4 || bytes == 8) {
            return false;
        }
        let Ok(w) = self.window(id) else {
            return false;
        };
        let Some(part) = w.remotes.get(target as usize) else {
            return false;
        };
        w.dynamic.is_none()
            && !keeps_modified_lines(w.options.local_type)
            && !keeps_modified_lines(w.options.remote_type)
            && part.info.offset.is_multiple_of(bytes)
            && part.info.disp_unit.is_multiple_of(bytes)
    }

    /// Where the unit's requests for `target`'s part of window `id` go,
    /// after the guard's acquire actions for the memory type the part is
    /// reached with (see the [module docs](self)): the window, the target
    /// and that type.
    fn unit_place(&mut self, id: u32, target: u32) -> (u32, u32, MemoryType) {
        let through = self.through(id, target);
        let (ty, acquire) = (through.ty, through.acquire);
        self.coherence(id, acquire);
        (id, target, ty)
    }

    /// One request to the unit for the element at byte `at` of `target`'s
    /// part of window `id`, reached with `ty`: `command` with `operand` and
    /// `compare`. Returns the element's old value.
    fn unit_request<T: Element>(
        &mut self,
        (id, target, ty): (u32, u32, MemoryType),
        at: u64,
        command: AtomicOp,
        operand: u64,
        compare: u64,
    ) -> Result<u64, RmaError> {
        let command = RauCommand {
            op: command,
            bytes: T::BYTES as u32,
        };
        let mut old = None;
        self.pieces(id, target, ty, at, T::BYTES, |hal, slot, within, _, _| {
            old = hal.shared_atomic(slot, within, command, operand, compare);
        })?;
        Ok(old.expect("unit_serves checked the unit"))
    }

    /// `update` of the element at byte `at` of `target`'s part of window
    /// `id` (reached with `ty`) at the remote atomic unit; returns the
    /// element as it was. An operation the unit has no request for is a
    /// compare-swap loop from the value a fetch-add of 0 reads.
    fn unit_update<T: Accumulable>(
        &mut self,
        place: (u32, u32, MemoryType),
        at: u64,
        update: Update<T>,
    ) -> Result<T, RmaError> {
        let direct = match update {
            Update::CompareSwap { value, compare } => {
                Some((AtomicOp::CompareSwap, word_of(value), word_of(compare)))
            }
            Update::Op(AccumulateOp::Sum, value) if T::INTEGER && !T::PAIR => {
                Some((AtomicOp::FetchAdd, word_of(value), 0))
            }
            Update::Op(AccumulateOp::Replace, value) => Some((AtomicOp::Swap, word_of(value), 0)),
            Update::Op(AccumulateOp::NoOp, _) => Some((AtomicOp::FetchAdd, 0, 0)),
            Update::Op(..) => None,
        };
        if let Some((op, operand, compare)) = direct {
            let old = self.unit_request::<T>(place, at, op, operand, compare)?;
            return Ok(element_of(old));
        }
        let Update::Op(op, value) = update else {
            unreachable!("a compare-swap is one request")
        };
        let mut seen = self.unit_request::<T>(place, at, AtomicOp::FetchAdd, 0, 0)?;
        loop {
            let old: T = element_of(seen);
            let new = word_of(T::combine(op, old, value));
            if new == seen {
                return Ok(old);
            }
            let found = self.unit_request::<T>(place, at, AtomicOp::CompareSwap, new, seen)?;
            if found == seen {
                return Ok(old);
            }
            seen = found;
        }
    }

    /// `target`'s part of window `id` as the guard's holder reaches it:
    /// through the local mapping if it is this core's.
    fn through(&mut self, id: u32, target: u32) -> Through<'_, 'h, H> {
        let o = self.window(id).expect("begin checked the window").options;
        let ty = if target == self.window_rank(id) {
            o.local_type
        } else {
            o.remote_type
        };
        let acquire = guard_invalidation(acquire_actions(ty), &self.types(id));
        Through {
            rma: self,
            id,
            target,
            ty,
            acquire,
            release: release_actions(ty),
        }
    }

    /// Combines `data` into `target`'s window from displacement `disp`,
    /// element by element with `op`, atomically per element
    /// (`MPI_Accumulate` with contiguous types).
    ///
    /// Return values: as [`Rma::put`], plus `Err(Op)` for `MPI_NO_OP` or
    /// an integer-only operation on a floating-point type.
    pub fn accumulate<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        op: AccumulateOp,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::contiguous(window, target, disp);
        self.accumulate_at(&ACCUMULATE, transfer, data, op)
    }

    /// Combines the elements `origin` picks from `data` into the places
    /// `target_layout` picks in `target`'s window from displacement `disp`
    /// (`MPI_Accumulate` with vector types).
    ///
    /// Return values: as [`Rma::put_vector`], plus `Err(Op)` as
    /// [`Rma::accumulate`].
    #[allow(clippy::too_many_arguments)] // put_vector's, and the operation
    pub fn accumulate_vector<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Vector,
        target_layout: Vector,
        op: AccumulateOp,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::vector(window, target, disp, origin, target_layout);
        self.accumulate_at(&ACCUMULATE, transfer, data, op)
    }

    /// Combines the elements `origin` picks from `data` into the places
    /// `target_type` picks in `target`'s window from displacement `disp`
    /// with `op`, in order, atomically per element (`MPI_Accumulate` with
    /// derived datatypes).
    ///
    /// Return values: as [`Rma::put_typed`], plus `Err(Op)` as
    /// [`Rma::accumulate`].
    #[allow(clippy::too_many_arguments)] // put_typed's, and the operation
    pub fn accumulate_typed<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Counted<'_, T>,
        target_type: Counted<'_, T>,
        op: AccumulateOp,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type);
        self.accumulate_at(&ACCUMULATE, transfer, data, op)
    }

    /// Reads `result.len()` elements of `target`'s window from
    /// displacement `disp` into `result` and combines `data` into them
    /// with `op`, atomically per element (`MPI_Get_accumulate` with
    /// contiguous types): `result` receives the values from before. With
    /// [`AccumulateOp::NoOp`] `data` is ignored (an atomic get);
    /// otherwise it has as many elements as `result`.
    ///
    /// Return values: as [`Rma::accumulate`] (`MPI_NO_OP` allowed), plus
    /// `Err(BufferLength)` if `data` and `result` differ in length.
    pub fn get_accumulate<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        result: &mut [T],
        op: AccumulateOp,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::contiguous(window, target, disp);
        self.get_accumulate_at(&GET_ACCUMULATE, transfer, data, result, None, op)
    }

    /// Reads the places `target_type` picks in `target`'s window from
    /// displacement `disp` into the elements `result_type` picks in
    /// `result`, and combines the elements `origin` picks from `data` into
    /// them with `op`, in order, atomically per element
    /// (`MPI_Get_accumulate` with derived datatypes): `result` receives
    /// the values from before. With [`AccumulateOp::NoOp`], `data` and
    /// `origin` are ignored (an atomic get).
    ///
    /// Return values: as [`Rma::accumulate_typed`] (`MPI_NO_OP` allowed),
    /// plus, for the result: `Err(BadLayout)` if `result_type` picks some
    /// element twice or reaches below `result`'s first, and
    /// `Err(BufferLength)` if it picks another number of elements than
    /// `target_type` or reaches past `result`.
    #[allow(clippy::too_many_arguments)] // MPI_Get_accumulate's arguments
    pub fn get_accumulate_typed<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Counted<'_, T>,
        result: &mut [T],
        result_type: Counted<'_, T>,
        target_type: Counted<'_, T>,
        op: AccumulateOp,
    ) -> Result<(), RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type);
        self.get_accumulate_at(
            &GET_ACCUMULATE,
            transfer,
            data,
            result,
            Some(result_type),
            op,
        )
    }

    /// The accumulate `transfer` describes, of the elements it picks from
    /// `data`: [`Rma::accumulate`], [`Rma::accumulate_vector`] or
    /// [`Rma::accumulate_typed`] as its places say, or their request forms
    /// ([`Rma::raccumulate`]), which return the request.
    ///
    /// Return values: as the form it is.
    pub fn accumulate_with<T: Accumulable>(
        &mut self,
        transfer: Transfer<'_, T>,
        data: &[T],
        op: AccumulateOp,
    ) -> Result<Option<Request>, RmaError> {
        let call = transfer.pick(&ACCUMULATE, &RACCUMULATE);
        self.as_completion(call.name, transfer, |rma| {
            rma.accumulate_at(call, transfer, data, op)
        })
    }

    /// The get_accumulate `transfer` describes: the old values of the
    /// places it picks at the target go to the elements `result_type`
    /// picks in `result` (with `None`, to as many consecutive elements),
    /// and the elements it picks from `data` are combined into them:
    /// [`Rma::get_accumulate`] or [`Rma::get_accumulate_typed`], or their
    /// request forms ([`Rma::rget_accumulate`]).
    ///
    /// Return values: as the form it is.
    pub fn get_accumulate_with<T: Accumulable>(
        &mut self,
        transfer: Transfer<'_, T>,
        data: &[T],
        result: &mut [T],
        result_type: Option<Counted<'_, T>>,
        op: AccumulateOp,
    ) -> Result<Option<Request>, RmaError> {
        let call = transfer.pick(&GET_ACCUMULATE, &RGET_ACCUMULATE);
        self.as_completion(call.name, transfer, |rma| {
            rma.get_accumulate_at(call, transfer, data, result, result_type, op)
        })
    }

    /// [`Rma::accumulate`] as a request (`MPI_Raccumulate`).
    ///
    /// Return values: as [`Rma::accumulate`]; `Err(Sync)` outside a
    /// passive-target epoch.
    pub fn raccumulate<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        op: AccumulateOp,
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::contiguous(window, target, disp).request();
        self.requested(RACCUMULATE.name, transfer, |rma| {
            rma.accumulate_at(&RACCUMULATE, transfer, data, op)
        })
    }

    /// [`Rma::get_accumulate`] as a request (`MPI_Rget_accumulate`):
    /// `result` holds the old values when the call returns.
    ///
    /// Return values: as [`Rma::get_accumulate`]; `Err(Sync)` outside a
    /// passive-target epoch.
    pub fn rget_accumulate<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        result: &mut [T],
        op: AccumulateOp,
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::contiguous(window, target, disp).request();
        self.requested(RGET_ACCUMULATE.name, transfer, |rma| {
            rma.get_accumulate_at(&RGET_ACCUMULATE, transfer, data, result, None, op)
        })
    }

    /// [`Rma::accumulate_typed`] as a request (`MPI_Raccumulate` with
    /// derived datatypes).
    ///
    /// Return values: as [`Rma::accumulate_typed`]; `Err(Sync)` outside a
    /// passive-target epoch.
    #[allow(clippy::too_many_arguments)] // accumulate_typed's
    pub fn raccumulate_typed<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Counted<'_, T>,
        target_type: Counted<'_, T>,
        op: AccumulateOp,
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type).request();
        self.requested(RACCUMULATE.name, transfer, |rma| {
            rma.accumulate_at(&RACCUMULATE, transfer, data, op)
        })
    }

    /// [`Rma::get_accumulate_typed`] as a request
    /// (`MPI_Rget_accumulate` with derived datatypes): `result` holds the
    /// old values when the call returns.
    ///
    /// Return values: as [`Rma::get_accumulate_typed`]; `Err(Sync)`
    /// outside a passive-target epoch.
    #[allow(clippy::too_many_arguments)] // get_accumulate_typed's
    pub fn rget_accumulate_typed<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        data: &[T],
        origin: Counted<'_, T>,
        result: &mut [T],
        result_type: Counted<'_, T>,
        target_type: Counted<'_, T>,
        op: AccumulateOp,
    ) -> Result<Request, RmaError> {
        let transfer = Transfer::typed(window, target, disp, origin, target_type).request();
        self.requested(RGET_ACCUMULATE.name, transfer, |rma| {
            let result_type = Some(result_type);
            rma.get_accumulate_at(&RGET_ACCUMULATE, transfer, data, result, result_type, op)
        })
    }

    /// Every accumulate, its errors naming `call`.
    pub(crate) fn accumulate_at<T: Accumulable>(
        &mut self,
        call: &Call,
        transfer: Transfer<'_, T>,
        data: &[T],
        op: AccumulateOp,
    ) -> Result<(), RmaError> {
        let (origin, places) = match transfer.sides {
            Sides::Contiguous => {
                let layout = Vector::contiguous(len_u32(data.len(), call.origin_buffer)?).layout();
                (layout, layout)
            }
            Sides::Laid { origin, target } => (origin, target),
        };
        self.combine(call, transfer, data, origin, places, op, None)
    }

    /// Every get_accumulate, its errors naming `call`.
    pub(crate) fn get_accumulate_at<T: Accumulable>(
        &mut self,
        call: &Call,
        transfer: Transfer<'_, T>,
        data: &[T],
        result: &mut [T],
        result_type: Option<Counted<'_, T>>,
        op: AccumulateOp,
    ) -> Result<(), RmaError> {
        let (origin, places) = match transfer.sides {
            Sides::Contiguous => {
                if op != AccumulateOp::NoOp && data.len() != result.len() {
                    return Err(RmaError::BufferLength {
                        what: "get_accumulate result buffer (as the origin buffer)",
                        len: result.len(),
                        expected: data.len(),
                    });
                }
                let layout =
                    Vector::contiguous(len_u32(result.len(), call.origin_buffer)?).layout();
                (layout, layout)
            }
            Sides::Laid { origin, target } => (origin, target),
        };
        let result_places = match result_type {
            Some(ty) => ty.layout(),
            None => {
                let len = usize::try_from(places.elements()).unwrap_or(usize::MAX);
                Vector::contiguous(len_u32(len, call.result_layout)?).layout()
            }
        };
        let result = Some((result, result_places));
        self.combine(call, transfer, data, origin, places, op, result)
    }

    /// Replaces the element at displacement `disp` of `target`'s window
    /// with `old op value` atomically and returns `old`
    /// (`MPI_Fetch_and_op`). With [`AccumulateOp::NoOp`] it only reads.
    ///
    /// Return values: as [`Rma::put`], plus `Err(Op)` for an integer-only
    /// operation on a floating-point type.
    pub fn fetch_and_op<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        value: T,
        op: AccumulateOp,
    ) -> Result<T, RmaError> {
        let id = window.id();
        if target == PROC_NULL {
            return self.window(id).map(|_| zero::<T>());
        }
        let _span = Span::begin(self.hal, Op::FetchAndOp, id, Some(target), T::BYTES as u64);
        self.window(id)?;
        check_op::<T>(&FETCH_AND_OP, id, op, true)?;
        let one = Vector::contiguous(1).layout();
        let at = self.begin::<T>(&FETCH_AND_OP, id, target, disp, 1, one, one)?;
        let old = if self.unit_serves::<T>(id, target) {
            let place = self.unit_place(id, target);
            self.unit_update(place, at, Update::Op(op, value))?
        } else {
            let (hal, owner) = (self.hal, self.core_of(id, target));
            guard::fetch_and_op(hal, owner, &mut self.through(id, target), at, value, op)?
        };
        self.finish(id, Kind::Atomic, T::BYTES as u64);
        Ok(old)
    }

    /// Replaces the element at displacement `disp` of `target`'s window
    /// with `value` if it equals `compare`, atomically, and returns the
    /// element as it was (`MPI_Compare_and_swap`): the swap happened if
    /// that equals `compare`.
    ///
    /// Return values: as [`Rma::put`], plus `Err(Type)` for a
    /// floating-point type.
    pub fn compare_and_swap<T: Accumulable>(
        &mut self,
        window: Window<T>,
        target: u32,
        disp: u32,
        value: T,
        compare: T,
    ) -> Result<T, RmaError> {
        let id = window.id();
        if target == PROC_NULL {
            return self.window(id).map(|_| zero::<T>());
        }
        let _span = Span::begin(
            self.hal,
            Op::CompareAndSwap,
            id,
            Some(target),
            T::BYTES as u64,
        );
        self.window(id)?;
        if !T::INTEGER {
            return Err(RmaError::Type {
                call: COMPARE_AND_SWAP.name,
                window: id,
                ty: T::NAME,
                problem: "is not an integer type (compare_and_swap compares integers only)",
            });
        }
        let one = Vector::contiguous(1).layout();
        let at = self.begin::<T>(&COMPARE_AND_SWAP, id, target, disp, 1, one, one)?;
        let old = if self.unit_serves::<T>(id, target) {
            let place = self.unit_place(id, target);
            self.unit_update(place, at, Update::CompareSwap { value, compare })?
        } else {
            let (hal, owner) = (self.hal, self.core_of(id, target));
            let mut through = self.through(id, target);
            guard::compare_and_swap(hal, owner, &mut through, at, value, compare)?
        };
        self.finish(id, Kind::Atomic, T::BYTES as u64);
        Ok(old)
    }

    /// Every accumulate: checks, then chunk by chunk under the guard, at
    /// the places `target_layout` picks from `transfer`'s displacement.
    /// With a result buffer and its layout, the old values go to the
    /// places it picks (and `data` is not read for `MPI_NO_OP`).
    #[allow(clippy::too_many_arguments)] // one operation's full description
    pub(crate) fn combine<T: Accumulable>(
        &mut self,
        call: &Call,
        transfer: Transfer<'_, T>,
        data: &[T],
        origin: Layout<'_>,
        target_layout: Layout<'_>,
        op: AccumulateOp,
        result: Option<(&mut [T], Layout<'_>)>,
    ) -> Result<(), RmaError> {
        let (id, target, disp) = (transfer.id(), transfer.target, transfer.disp);
        if target == PROC_NULL {
            return self.window(id).map(|_| ());
        }
        let moved = match &result {
            Some((_, places)) if op == AccumulateOp::NoOp => bytes::<T>(places),
            _ => bytes::<T>(&origin),
        };
        let _span = Span::begin(self.hal, call.op(), id, Some(target), moved);
        self.window(id)?;
        check_op::<T>(call, id, op, result.is_some())?;
        let (mut result, places) = match result {
            Some((buf, places)) => {
                check_overlap(call.result_layout, &places, true)?;
                check_elements(
                    "result layout elements (as the target layout picks)",
                    &places,
                    target_layout.elements(),
                )?;
                check_buffer(
                    call.result_layout,
                    "result buffer elements (as the result layout spans)",
                    &places,
                    buf.len(),
                )?;
                (Some(buf), places)
            }
            None => (None, origin),
        };
        // MPI_NO_OP reads no origin data: the result's layout stands in.
        let (origin, buffer) = match &result {
            Some(r) if op == AccumulateOp::NoOp => (places, r.len()),
            _ => (origin, data.len()),
        };
        let offset = self.begin::<T>(call, id, target, disp, buffer, origin, target_layout)?;
        if self.unit_serves::<T>(id, target) {
            let place = self.unit_place(id, target);
            for ([o, r, t], n) in zip_runs([origin, places, target_layout]) {
                for k in 0..n {
                    let (o, r) = ((o as u64 + k) as usize, (r as u64 + k) as usize);
                    let at = byte_at::<T>(offset, t + k as i64);
                    // MPI_NO_OP reads no origin data: `data` may be empty.
                    let value = data.get(o).copied().unwrap_or(zero::<T>());
                    let old = self.unit_update(place, at, Update::Op(op, value))?;
                    if let Some(result) = result.as_deref_mut() {
                        result[r] = old;
                    }
                }
            }
            self.finish(id, Kind::Accumulate, bytes::<T>(&origin));
            return Ok(());
        }
        let (hal, owner) = (self.hal, self.core_of(id, target));
        let zero = zero::<T>();
        let mut scratch = [zero; CHUNK];
        let mut through = self.through(id, target);
        if target_layout.elements() > 0 {
            // One hold for the whole call, pieces in order, each read,
            // combined and written CHUNK elements at a time.
            guard::hold(hal, owner, &mut through, |memory| {
                for ([o, r, t], n) in zip_runs([origin, places, target_layout]) {
                    let mut done = 0;
                    while done < n {
                        let m = (n - done).min(CHUNK as u64) as usize;
                        let (o, r) = ((o as u64 + done) as usize, (r as u64 + done) as usize);
                        let at = byte_at::<T>(offset, t + done as i64);
                        let result = result.as_deref_mut();
                        guard::modify(memory, at, &mut scratch[..m], |v| {
                            if let Some(result) = result {
                                result[r..r + m].copy_from_slice(v);
                            }
                            if op == AccumulateOp::NoOp {
                                return false;
                            }
                            for (v, &x) in v.iter_mut().zip(&data[o..o + m]) {
                                *v = T::combine(op, *v, x);
                            }
                            true
                        })?;
                        done += m as u64;
                    }
                }
                Ok(())
            })?;
        }
        self.finish(id, Kind::Accumulate, bytes::<T>(&origin));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
