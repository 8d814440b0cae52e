// SPDX-License-Identifier: MIT OR Apache-2.0
//! Derived datatypes: MPI's constructors over rma's [`rma::Datatype`],
//! built on bytes (`Datatype<u8>`: a predefined type of `s` bytes is `s`
//! contiguous bytes), with the predefined type their elements share when
//! they all share one (what an accumulate combines them as).
//!
//! A committed type is used by the one-sided calls (its layout goes to
//! rma's typed put, get and accumulate at the origin and the target) and by
//! the point-to-point calls and the collectives (packed before a send,
//! unpacked as a receive completes). `MPI_Fetch_and_op` and
//! `MPI_Compare_and_swap` take predefined types only, as MPI says.

use alloc::borrow::Cow;
use alloc::format;
use alloc::vec::Vec;
use core::ffi::c_int;

use rma::{Block, Committed, Datatype as Layout, StructBlock};

use crate::codes::combiner;

use super::*;

/// The first handle of a derived type (below it: the predefined ones).
pub(super) const FIRST_TYPE: c_int = 64;

/// A type made by a constructor.
pub(super) struct Derived {
    /// Its layout in bytes.
    layout: Layout<u8>,
    /// Its runs, once committed.
    committed: Option<Committed<u8>>,
    /// The predefined type of all its elements (`MPI_BYTE` if they mix
    /// types: `mixed`).
    base: Datatype,
    /// Whether its elements are of several predefined types (a struct's):
    /// then nothing combines them, in accumulates or reductions.
    mixed: bool,
    /// What `MPI_Type_get_envelope` gives: the numbers of integers,
    /// addresses and datatypes its constructor took, and its combiner.
    envelope: [c_int; 4],
}

/// A type as a call takes it: predefined, or derived and committed.
pub(super) enum Ty<'s> {
    Basic(Datatype),
    Derived(&'s Committed<u8>, Datatype),
}

impl Ty<'_> {
    /// The predefined type of its elements.
    pub(super) fn base(&self) -> Datatype {
        match self {
            Self::Basic(t) | Self::Derived(_, t) => *t,
        }
    }

    /// The type if it is predefined and without padding: `count` of its
    /// elements are `count` times its size in bytes, one run.
    pub(super) fn plain(&self) -> Option<Datatype> {
        match self {
            Self::Basic(t) if t.size() == t.extent() => Some(*t),
            _ => None,
        }
    }
}

/// The layout of predefined type `ty`: its bytes (for `MPI_SHORT_INT`,
/// the short's and the int's, the padding between them left out).
fn bytes_layout(ty: Datatype) -> Layout<u8> {
    let blocks: Vec<Block> = ty
        .runs()
        .map(|(at, len)| Block::new(len, i64::from(at)))
        .collect();
    match blocks[..] {
        [_] => Layout::contiguous(ty.size(), &Layout::element()),
        _ => Layout::hindexed(&blocks, &Layout::element()),
    }
    .expect("a few bytes fit")
}

/// The type `handle` names, for a call: a predefined type, or a committed
/// derived one.
pub(super) fn type_of(types: &[Option<Derived>], handle: c_int) -> Result<Ty<'_>, Failure> {
    if let Some(t) = Datatype::from_handle(handle) {
        return Ok(Ty::Basic(t));
    }
    let d = derived_in(types, handle)?;
    match &d.committed {
        Some(c) => Ok(Ty::Derived(c, d.base)),
        None => Err(Failure::new(
            Class::Type,
            format!("datatype {handle} is not committed (MPI_Type_commit)"),
        )),
    }
}

/// The derived type `handle` names.
fn derived(state: &State, handle: c_int) -> Result<&Derived, Failure> {
    derived_in(&state.types, handle)
}

/// The derived type `handle` names among `types`.
fn derived_in(types: &[Option<Derived>], handle: c_int) -> Result<&Derived, Failure> {
    usize::try_from(handle - FIRST_TYPE)
        .ok()
        .and_then(|i| types.get(i))
        .and_then(Option::as_ref)
        .ok_or_else(|| Failure::new(Class::Type, format!("{handle} names no datatype")))
}

/// An old type for a constructor: its byte layout and element type.
fn old_of(state: &State, handle: c_int) -> Result<(Layout<u8>, Datatype, bool), Failure> {
    match Datatype::from_handle(handle) {
        Some(t) => Ok((bytes_layout(t), t, false)),
        None => {
            let d = derived(state, handle)?;
            Ok((d.layout.clone(), d.base, d.mixed))
        }
    }
}

/// Whether `handle` names a derived type whose elements mix predefined
/// types ([`Derived::mixed`]), for a call that combines elements: then
/// it fails, naming `what` it is.
pub(super) fn refuse_mixed(types: &[Option<Derived>], handle: c_int, what: &str) -> Outcome {
    match derived_in(types, handle) {
        Ok(d) if d.mixed => Err(Failure::new(
            Class::Type,
            format!(
                "the {what} type ({handle}) mixes predefined types (a struct's), which no \
                 operation combines"
            ),
        )),
        _ => Ok(()),
    }
}

/// Keeps a new type and writes its handle.
fn keep(
    state: &mut State,
    layout: Layout<u8>,
    (base, mixed): (Datatype, bool),
    envelope: [c_int; 4],
    newtype: *mut c_int,
) -> Outcome {
    state.types.push(Some(Derived {
        layout,
        committed: None,
        base,
        mixed,
        envelope,
    }));
    let handle = FIRST_TYPE + state.types.len() as c_int - 1;
    store(newtype, handle)
}

/// `n` ints of C's array.
fn ints(array: *const c_int, n: c_int, what: &str) -> Result<Vec<c_int>, Failure> {
    let n = usize::try_from(n).map_err(|_| Failure::new(Class::Count, format!("{n} {what}")))?;
    // SAFETY: MPI's array of `n` ints.
    let bytes = unsafe { input(array.cast(), 4 * n) }?;
    Ok(bytes
        .chunks_exact(4)
        .map(|b| c_int::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// A count from C.
fn count_of(count: c_int, what: &str) -> Result<u32, Failure> {
    u32::try_from(count)
        .map_err(|_| Failure::new(Class::Count, format!("{what} {count} is negative")))
}

/// `MPI_Type_contiguous`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_contiguous(count: c_int, oldtype: c_int, newtype: *mut c_int) -> c_int {
    with_state("MPI_Type_contiguous", codes::comm::WORLD, |state| {
        let (old, base, mixed) = old_of(state, oldtype)?;
        let layout = Layout::contiguous(count_of(count, "count")?, &old)?;
        keep(
            state,
            layout,
            (base, mixed),
            [1, 0, 1, combiner::CONTIGUOUS],
            newtype,
        )
    })
}

/// `MPI_Type_vector` (the stride in extents of the old type).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_vector(
    count: c_int,
    blocklength: c_int,
    stride: c_int,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    with_state("MPI_Type_vector", codes::comm::WORLD, |state| {
        let (old, base, mixed) = old_of(state, oldtype)?;
        let layout = Layout::vector(
            count_of(count, "count")?,
            count_of(blocklength, "block length")?,
            i64::from(stride),
            &old,
        )?;
        keep(
            state,
            layout,
            (base, mixed),
            [3, 0, 1, combiner::VECTOR],
            newtype,
        )
    })
}

/// `MPI_Type_create_hvector` (the stride in bytes).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_create_hvector(
    count: c_int,
    blocklength: c_int,
    stride: isize,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    with_state("MPI_Type_create_hvector", codes::comm::WORLD, |state| {
        let (old, base, mixed) = old_of(state, oldtype)?;
        let layout = Layout::hvector(
            count_of(count, "count")?,
            count_of(blocklength, "block length")?,
            stride as i64,
            &old,
        )?;
        keep(
            state,
            layout,
            (base, mixed),
            [2, 1, 1, combiner::HVECTOR],
            newtype,
        )
    })
}

/// `MPI_Type_indexed` (displacements in extents of the old type).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_indexed(
    count: c_int,
    blocklengths: *const c_int,
    displacements: *const c_int,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    with_state("MPI_Type_indexed", codes::comm::WORLD, |state| {
        let (old, base, mixed) = old_of(state, oldtype)?;
        let lens = ints(blocklengths, count, "block lengths")?;
        let disps = ints(displacements, count, "displacements")?;
        let blocks = lens
            .iter()
            .zip(&disps)
            .map(|(&l, &d)| Ok(Block::new(count_of(l, "block length")?, i64::from(d))))
            .collect::<Result<Vec<_>, Failure>>()?;
        let layout = Layout::indexed(&blocks, &old)?;
        keep(
            state,
            layout,
            (base, mixed),
            [2 * count + 1, 0, 1, combiner::INDEXED],
            newtype,
        )
    })
}

/// `MPI_Type_create_indexed_block`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_create_indexed_block(
    count: c_int,
    blocklength: c_int,
    displacements: *const c_int,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    with_state(
        "MPI_Type_create_indexed_block",
        codes::comm::WORLD,
        |state| {
            let (old, base, mixed) = old_of(state, oldtype)?;
            let disps: Vec<i64> = ints(displacements, count, "displacements")?
                .into_iter()
                .map(i64::from)
                .collect();
            let layout =
                Layout::indexed_block(count_of(blocklength, "block length")?, &disps, &old)?;
            keep(
                state,
                layout,
                (base, mixed),
                [count + 2, 0, 1, combiner::INDEXED_BLOCK],
                newtype,
            )
        },
    )
}

/// `MPI_ORDER_C` and `MPI_ORDER_FORTRAN`.
const ORDER_C: c_int = 56;
const ORDER_FORTRAN: c_int = 57;

/// `MPI_Type_create_hindexed` (displacements in bytes).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_create_hindexed(
    count: c_int,
    blocklengths: *const c_int,
    displacements: *const isize,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    with_state("MPI_Type_create_hindexed", codes::comm::WORLD, |state| {
        let (old, base, mixed) = old_of(state, oldtype)?;
        let lens = ints(blocklengths, count, "block lengths")?;
        let disps = addresses(displacements, count)?;
        let blocks = lens
            .iter()
            .zip(&disps)
            .map(|(&l, &d)| Ok(Block::new(count_of(l, "block length")?, d as i64)))
            .collect::<Result<Vec<_>, Failure>>()?;
        let layout = Layout::hindexed(&blocks, &old)?;
        keep(
            state,
            layout,
            (base, mixed),
            [count + 1, count, 1, combiner::HINDEXED],
            newtype,
        )
    })
}

/// `n` byte displacements (`MPI_Aint`) of C's array.
fn addresses(array: *const isize, n: c_int) -> Result<Vec<isize>, Failure> {
    let n =
        usize::try_from(n).map_err(|_| Failure::new(Class::Count, format!("{n} displacements")))?;
    // SAFETY: MPI's array of `n` displacements.
    let bytes = unsafe { input(array.cast(), n * core::mem::size_of::<isize>()) }?;
    Ok(bytes
        .chunks_exact(core::mem::size_of::<isize>())
        .map(|b| isize::from_le_bytes(b.try_into().expect("one isize")))
        .collect())
}

/// How gcc -m32 aligns a value of predefined type `t` inside a struct:
/// to its size, but at most 4 bytes (a double, a long long and a long
/// double sit at multiples of 4); a pair to its int.
fn alignment(t: Datatype) -> u64 {
    u64::from(t.size().min(4)).max(1)
}

/// `MPI_Type_create_struct`: blocks of their own types at byte
/// displacements. Its elements' predefined type is theirs if they share
/// one; a struct that mixes types moves in messages, collectives, puts
/// and gets, and fails in accumulates and reductions. Its extent is
/// rounded up to the largest alignment of its members' predefined types,
/// as the C compiler pads the struct (MPI's epsilon), so that an array of
/// the C struct is an array of the type.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_create_struct(
    count: c_int,
    blocklengths: *const c_int,
    displacements: *const isize,
    types: *const c_int,
    newtype: *mut c_int,
) -> c_int {
    with_state("MPI_Type_create_struct", codes::comm::WORLD, |state| {
        let lens = ints(blocklengths, count, "block lengths")?;
        let disps = addresses(displacements, count)?;
        let handles = ints(types, count, "types")?;
        let olds = handles
            .iter()
            .map(|&h| old_of(state, h))
            .collect::<Result<Vec<_>, Failure>>()?;
        let blocks = olds
            .iter()
            .zip(lens.iter().zip(&disps))
            .map(|((old, _, _), (&l, &d))| {
                Ok(StructBlock {
                    len: count_of(l, "block length")?,
                    disp: d as i64,
                    ty: old,
                })
            })
            .collect::<Result<Vec<_>, Failure>>()?;
        let layout = Layout::structure(&blocks)?;
        let align = olds
            .iter()
            .map(|&(_, b, m)| if m { 4 } else { alignment(b) })
            .max()
            .unwrap_or(1);
        let shape = layout.shape();
        let layout = match shape.extent % align {
            0 => layout,
            r => Layout::resized(&layout, shape.lb, shape.extent + (align - r))?,
        };
        let first = olds.first().map_or(Datatype::Byte, |(_, b, _)| *b);
        let mixed = olds.iter().any(|&(_, b, m)| m || b != first);
        let base = if mixed { Datatype::Byte } else { first };
        keep(
            state,
            layout,
            (base, mixed),
            [count + 1, count, count, combiner::STRUCT],
            newtype,
        )
    })
}

/// `MPI_Type_create_resized`: `oldtype` with lower bound `lb` and extent
/// `extent`, in bytes.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_create_resized(
    oldtype: c_int,
    lb: isize,
    extent: isize,
    newtype: *mut c_int,
) -> c_int {
    with_state("MPI_Type_create_resized", codes::comm::WORLD, |state| {
        let (old, base, mixed) = old_of(state, oldtype)?;
        let extent = u64::try_from(extent)
            .map_err(|_| Failure::new(Class::Arg, format!("extent {extent} is negative")))?;
        let layout = Layout::resized(&old, lb as i64, extent)?;
        keep(
            state,
            layout,
            (base, mixed),
            [0, 2, 1, combiner::RESIZED],
            newtype,
        )
    })
}

/// `MPI_Type_create_subarray`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_create_subarray(
    ndims: c_int,
    sizes: *const c_int,
    subsizes: *const c_int,
    starts: *const c_int,
    order: c_int,
    oldtype: c_int,
    newtype: *mut c_int,
) -> c_int {
    with_state("MPI_Type_create_subarray", codes::comm::WORLD, |state| {
        let (old, base, mixed) = old_of(state, oldtype)?;
        let dims = |array, what| -> Result<Vec<u32>, Failure> {
            ints(array, ndims, what)?
                .into_iter()
                .map(|v| count_of(v, what))
                .collect()
        };
        let (mut sizes, mut subsizes, mut starts) = (
            dims(sizes, "sizes")?,
            dims(subsizes, "subsizes")?,
            dims(starts, "starts")?,
        );
        match order {
            ORDER_C => {}
            // Fortran's first dimension varies fastest: C's last.
            ORDER_FORTRAN => {
                sizes.reverse();
                subsizes.reverse();
                starts.reverse();
            }
            other => {
                return Err(Failure::new(
                    Class::Arg,
                    format!("order {other} is not MPI_ORDER_C or MPI_ORDER_FORTRAN"),
                ));
            }
        }
        let layout = Layout::subarray(&sizes, &subsizes, &starts, &old)?;
        keep(
            state,
            layout,
            (base, mixed),
            [3 * ndims + 2, 0, 1, combiner::SUBARRAY],
            newtype,
        )
    })
}

/// `MPI_Type_commit`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_commit(datatype: *mut c_int) -> c_int {
    with_state("MPI_Type_commit", codes::comm::WORLD, |state| {
        if datatype.is_null() {
            return Err(Failure::new(Class::Arg, "a null datatype pointer"));
        }
        // SAFETY: C passes a pointer to its datatype handle.
        let handle = unsafe { datatype.read() };
        if Datatype::from_handle(handle).is_some() {
            return Ok(()); // Predefined types are committed.
        }
        derived(state, handle)?;
        let entry = state.types[(handle - FIRST_TYPE) as usize]
            .as_mut()
            .expect("found above");
        if entry.committed.is_none() {
            entry.committed = Some(entry.layout.commit()?);
        }
        Ok(())
    })
}

/// `MPI_Type_free`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_free(datatype: *mut c_int) -> c_int {
    with_state("MPI_Type_free", codes::comm::WORLD, |state| {
        if datatype.is_null() {
            return Err(Failure::new(Class::Arg, "a null datatype pointer"));
        }
        // SAFETY: C passes a pointer to its datatype handle.
        let handle = unsafe { datatype.read() };
        if Datatype::from_handle(handle).is_some() {
            return Err(Failure::new(
                Class::Type,
                "a predefined datatype cannot be freed",
            ));
        }
        derived(state, handle)?;
        state.types[(handle - FIRST_TYPE) as usize] = None;
        store(datatype, codes::DATATYPE_NULL)
    })
}

/// `MPI_Type_size`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_size(datatype: c_int, size: *mut c_int) -> c_int {
    with_state("MPI_Type_size", codes::comm::WORLD, |state| {
        let bytes = match Datatype::from_handle(datatype) {
            Some(t) => u64::from(t.size()),
            None => derived(state, datatype)?.layout.shape().size,
        };
        store(size, bytes as c_int)
    })
}

/// `MPI_Type_get_extent`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_get_extent(
    datatype: c_int,
    lb: *mut isize,
    extent: *mut isize,
) -> c_int {
    with_state("MPI_Type_get_extent", codes::comm::WORLD, |state| {
        let (l, e) = match Datatype::from_handle(datatype) {
            Some(t) => (0, t.extent() as isize),
            None => {
                let shape = derived(state, datatype)?.layout.shape();
                (shape.lb as isize, shape.extent as isize)
            }
        };
        store(lb, l)?;
        store(extent, e)
    })
}

/// `MPI_Type_get_true_extent`: where the bytes the type picks start and
/// how far they reach, whatever its bounds.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_get_true_extent(
    datatype: c_int,
    true_lb: *mut isize,
    true_extent: *mut isize,
) -> c_int {
    with_state("MPI_Type_get_true_extent", codes::comm::WORLD, |state| {
        let (l, e) = match Datatype::from_handle(datatype) {
            Some(t) => {
                let runs: Vec<(u32, u32)> = t.runs().collect();
                let first = runs.first().map_or(0, |r| r.0);
                let end = runs.last().map_or(0, |r| r.0 + r.1);
                (first as isize, (end - first) as isize)
            }
            None => {
                let shape = derived(state, datatype)?.layout.shape();
                (shape.true_lb as isize, shape.true_extent as isize)
            }
        };
        store(true_lb, l)?;
        store(true_extent, e)
    })
}

/// Bytes of data of `count` copies of `ty` (its size times `count`).
pub(super) fn size_of(ty: &Ty<'_>, count: c_int) -> Result<usize, Failure> {
    let count = count_of(count, "count")?;
    let size = match ty {
        Ty::Basic(t) => u64::from(t.size()),
        Ty::Derived(c, _) => c.shape().size,
    };
    Ok((size * u64::from(count)) as usize)
}

/// Where the bytes of `count` copies of `ty` lie from the buffer's
/// start: (offset, length) pairs in the type's order; one for a
/// predefined type without padding.
pub(super) fn pieces_of(ty: &Ty<'_>, count: c_int) -> Result<Vec<(usize, usize)>, Failure> {
    match ty {
        Ty::Basic(t) if ty.plain().is_some() => Ok(alloc::vec![(0, bytes_of(count, *t)?)]),
        Ty::Basic(t) => {
            let extent = t.extent() as usize;
            let count = count_of(count, "count")? as usize;
            let mut out = heap_vec(count.saturating_mul(t.runs().count()), "its pieces")?;
            out.extend((0..count).flat_map(|k| {
                t.runs()
                    .map(move |(at, len)| (k * extent + at as usize, len as usize))
            }));
            Ok(out)
        }
        Ty::Derived(c, _) => pieces(c, count),
    }
}

/// Where the bytes of `count` copies of committed `ty` lie from the
/// buffer's start: (offset, length) pairs in the type's order.
pub(super) fn pieces(ty: &Committed<u8>, count: c_int) -> Result<Vec<(usize, usize)>, Failure> {
    let count = count_of(count, "count")?;
    let extent = ty.shape().extent as i64;
    let mut out = heap_vec(ty.runs().len().saturating_mul(count as usize), "its pieces")?;
    for k in 0..i64::from(count) {
        for run in ty.runs() {
            let start = k * extent + run.start;
            let start = usize::try_from(start).map_err(|_| {
                Failure::new(
                    Class::Type,
                    "a datatype that reaches below its buffer's start is not supported",
                )
            })?;
            out.push((start, run.len as usize));
        }
    }
    Ok(out)
}

/// The bytes `count` copies of committed `ty` pick from the buffer at
/// `buf`, as (address, length) pairs in the type's order: for a buffer
/// that [`pieces`] cannot describe from its start, because the type
/// reaches below it (a negative lower bound) or `buf` is `MPI_BOTTOM`
/// (null) and the displacements are addresses (`MPI_Get_address`).
pub(super) fn addressed_pieces(
    buf: *const c_void,
    ty: &Committed<u8>,
    count: c_int,
) -> Result<Vec<(usize, usize)>, Failure> {
    let count = count_of(count, "count")?;
    let extent = ty.shape().extent as i64;
    let base = buf as usize as i64;
    let mut out = heap_vec(ty.runs().len().saturating_mul(count as usize), "its pieces")?;
    for k in 0..i64::from(count) {
        for run in ty.runs() {
            // Addresses above 2 GiB are negative `MPI_Aint`s: an address
            // is the displacement's bits, taken modulo the address space.
            let at = (base + k * extent + run.start).rem_euclid(1 << usize::BITS.min(63));
            let address = usize::try_from(at)
                .ok()
                .filter(|a| a.checked_add(run.len as usize).is_some() && *a != 0)
                .ok_or_else(|| {
                    Failure::new(
                        Class::Type,
                        format!(
                            "a datatype that picks bytes at address {at:#x}, outside memory \
                             (buffer {buf:p})"
                        ),
                    )
                })?;
            out.push((address, run.len as usize));
        }
    }
    Ok(out)
}

/// The bytes `pieces` ([`addressed_pieces`]) pick, in their order.
///
/// # Safety
/// Every piece must be readable memory, as MPI promises of the bytes an
/// origin buffer's type picks.
pub(super) unsafe fn gather_addressed(pieces: &[(usize, usize)]) -> Result<Vec<u8>, Failure> {
    let mut out = heap_buffer(pieces.iter().map(|&(_, l)| l).sum())?;
    for &(address, len) in pieces {
        // SAFETY: as the caller promises.
        let bytes = unsafe {
            core::slice::from_raw_parts(core::ptr::with_exposed_provenance::<u8>(address), len)
        };
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// Writes `packed` into the bytes `pieces` ([`addressed_pieces`]) pick,
/// in their order.
///
/// # Safety
/// Every piece must be writable memory that nothing else reaches, as MPI
/// promises of the bytes a receiving buffer's type picks.
pub(super) unsafe fn scatter_addressed(packed: &[u8], pieces: &[(usize, usize)]) {
    let mut at = 0;
    for &(address, len) in pieces {
        // SAFETY: as the caller promises.
        let bytes = unsafe {
            core::slice::from_raw_parts_mut(
                core::ptr::with_exposed_provenance_mut::<u8>(address),
                len,
            )
        };
        bytes.copy_from_slice(&packed[at..at + len]);
        at += len;
    }
}

/// The bytes one past the last `pieces` reaches: the buffer they need.
pub(super) fn span(pieces: &[(usize, usize)]) -> usize {
    pieces.iter().map(|(s, l)| s + l).max().unwrap_or(0)
}

/// `head` followed by `count` copies of `ty` at `buf`, packed, in one
/// buffer taken from the heap (`MPI_ERR_NO_MEM` if it has not room).
pub(super) fn pack_after(
    head: &[u8],
    buf: *const c_void,
    count: c_int,
    ty: &Ty<'_>,
) -> Result<Vec<u8>, Failure> {
    let pieces = pieces_of(ty, count)?;
    let mut out = heap_buffer(head.len() + size_of(ty, count)?)?;
    out.extend_from_slice(head);
    gather_into(&mut out, buf, &pieces)?;
    Ok(out)
}

/// The `size` bytes `pieces` pick at `buf`, in their order.
pub(super) fn gather(
    buf: *const c_void,
    pieces: &[(usize, usize)],
    size: usize,
) -> Result<Vec<u8>, Failure> {
    let mut out = heap_buffer(size)?;
    gather_into(&mut out, buf, pieces)?;
    Ok(out)
}

/// Appends the bytes `pieces` pick at `buf` to `out`, in their order.
fn gather_into(out: &mut Vec<u8>, buf: *const c_void, pieces: &[(usize, usize)]) -> Outcome {
    // SAFETY: MPI's buffer holds every byte the pieces pick.
    let all = unsafe { input(buf, span(pieces)) }?;
    for &(s, l) in pieces {
        out.extend_from_slice(&all[s..s + l]);
    }
    Ok(())
}

/// An empty vector with room for `len` values, or `MPI_ERR_NO_MEM`
/// naming `what` (of a datatype) when the heap has not that much left.
fn heap_vec<V>(len: usize, what: &str) -> Result<Vec<V>, Failure> {
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| {
        Failure::new(
            Class::NoMem,
            format!(
                "{} bytes of heap for a datatype's layout ({what}), beyond what is left",
                len.saturating_mul(core::mem::size_of::<V>())
            ),
        )
    })?;
    Ok(out)
}

/// An empty buffer with room for `bytes`, or `MPI_ERR_NO_MEM` when the
/// heap has not that much left (instead of the allocator's panic).
pub(super) fn heap_buffer(bytes: usize) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    out.try_reserve_exact(bytes).map_err(|_| {
        Failure::new(
            Class::NoMem,
            format!("{bytes} bytes of heap to stage the data, beyond what is left"),
        )
    })?;
    Ok(out)
}

/// `count` copies of `ty` at `buf` filled from `data` in order, as far as
/// it goes; the bytes written.
///
/// # Safety
/// `buf` must hold every byte `count` copies of `ty` pick, and nothing
/// else may reach them meanwhile (MPI's receive buffer).
pub(super) unsafe fn unpack(data: &[u8], buf: *mut c_void, pieces: &[(usize, usize)]) -> usize {
    let mut done = 0;
    for &(s, l) in pieces {
        let n = l.min(data.len() - done);
        if n == 0 {
            break;
        }
        // SAFETY: as the caller promises.
        unsafe {
            core::ptr::copy_nonoverlapping(data[done..].as_ptr(), buf.cast::<u8>().add(s), n);
        }
        done += n;
    }
    done
}

/// The layout of `count` copies of `ty` as elements `T` (its base type):
/// every piece spelled out, for rma's typed accumulates.
pub(super) fn element_layout<T: rma::comm::Element>(
    ty: &Ty<'_>,
    count: c_int,
) -> Result<Committed<T>, Failure> {
    let size = T::BYTES;
    let pieces = pieces_of(ty, count)?;
    if ty.base() == Datatype::ShortInt {
        return short_int_layout(&pieces);
    }
    let mut blocks = heap_vec(pieces.len(), "its blocks")?;
    blocks.extend(
        pieces
            .iter()
            .map(|&(s, l)| Block::new((l / size) as u32, s as i64)),
    );
    Ok(Layout::<T>::hindexed(&blocks, &Layout::element())?.commit()?)
}

/// The layout in whole `MPI_SHORT_INT` elements (8 bytes, padding and
/// all) of `pieces`, the bytes of a type of them: each element a short at
/// some place, then its int 4 bytes on.
fn short_int_layout<T: rma::comm::Element>(
    pieces: &[(usize, usize)],
) -> Result<Committed<T>, Failure> {
    let bad = || Failure::new(Class::Type, "MPI_SHORT_INT's bytes are not in their places");
    let mut blocks = heap_vec(pieces.len(), "its blocks")?;
    // (piece, bytes of it taken)
    let (mut i, mut taken) = (0, 0);
    let mut take = |want: usize, at: Option<usize>| -> Result<Option<usize>, Failure> {
        while i < pieces.len() && taken == pieces[i].1 {
            (i, taken) = (i + 1, 0);
        }
        let Some(&(start, len)) = pieces.get(i) else {
            return if at.is_none() { Ok(None) } else { Err(bad()) };
        };
        let here = start + taken;
        if len - taken < want || at.is_some_and(|a| a != here) {
            return Err(bad());
        }
        taken += want;
        Ok(Some(here))
    };
    while let Some(e) = take(2, None)? {
        take(4, Some(e + 4))?;
        blocks.push(Block::new(1, e as i64));
    }
    Ok(Layout::<T>::hindexed(&blocks, &Layout::element())?.commit()?)
}

/// The byte layout of `count` copies of `ty`, for rma's typed put and
/// get: a derived type's own (not copied: it may be large).
pub(super) fn byte_layout<'t>(ty: &Ty<'t>) -> Result<Cow<'t, Committed<u8>>, Failure> {
    match ty {
        Ty::Basic(t) => Ok(Cow::Owned(bytes_layout(*t).commit()?)),
        Ty::Derived(c, _) => Ok(Cow::Borrowed(*c)),
    }
}

/// `MPI_Type_get_envelope`: `MPI_COMBINER_NAMED` for a predefined type;
/// for a derived one, its constructor's combiner and the numbers of
/// integers, addresses and datatypes it took (MPI-3.1 table 4.1).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Type_get_envelope(
    datatype: c_int,
    num_integers: *mut c_int,
    num_addresses: *mut c_int,
    num_datatypes: *mut c_int,
    combiner: *mut c_int,
) -> c_int {
    with_state("MPI_Type_get_envelope", codes::comm::WORLD, |state| {
        let [ints, addresses, types, made_by] = match Datatype::from_handle(datatype) {
            Some(_) => [0, 0, 0, combiner::NAMED],
            None => derived(state, datatype)?.envelope,
        };
        store(num_integers, ints)?;
        store(num_addresses, addresses)?;
        store(num_datatypes, types)?;
        store(combiner, made_by)
    })
}
