// SPDX-License-Identifier: MIT OR Apache-2.0
//! Collectives over `MPI_COMM_WORLD` (rma's communicator) and
//! `MPI_COMM_SELF`.
//!
//! Buffers of any committed type: the data of a derived type (or of a
//! predefined one with padding, `MPI_SHORT_INT`) travels packed, read
//! from and written to the bytes its type map picks ([`TypeMap`]), as in
//! point-to-point calls; a displacement counts in extents of its type.
//! Reductions on a derived type take a predefined operation on the
//! predefined type all its elements share.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::{c_int, c_void};

use super::datatypes::{self, Ty, type_of};
use super::*;
use crate::loc::Loc;

/// Where the data of `count` elements of a type lies in a buffer, for a
/// collective that reads or writes them.
struct TypeMap {
    /// (offset, length) from the buffer's start, in the type's order.
    pieces: Vec<(usize, usize)>,
    /// Bytes of data: the pieces' lengths summed.
    size: usize,
}

impl TypeMap {
    /// `count` elements of the type `handle` (predefined, or derived and
    /// committed).
    fn of(state: &State, count: c_int, handle: c_int) -> Result<Self, Failure> {
        let ty = type_of(&state.types, handle)?;
        Ok(Self {
            pieces: datatypes::pieces_of(&ty, count)?,
            size: datatypes::size_of(&ty, count)?,
        })
    }

    /// The data at `buf`, packed.
    fn read(&self, buf: *const c_void) -> Result<Vec<u8>, Failure> {
        datatypes::gather(buf, &self.pieces, self.size)
    }

    /// Writes `data`, which must be as long as the data, into `buf`;
    /// bytes between the pieces stay as they were.
    fn write(&self, buf: *mut c_void, data: &[u8]) -> Outcome {
        if data.len() != self.size {
            return Err(Failure::new(
                Class::Truncate,
                format!(
                    "{} bytes of data arrived for a buffer of {} bytes of data",
                    data.len(),
                    self.size
                ),
            ));
        }
        if buf.is_null() && self.size > 0 {
            return Err(Failure::new(Class::Buffer, "a null buffer"));
        }
        // SAFETY: MPI's receive buffer holds every byte its type picks,
        // and nothing else reaches them during the call.
        unsafe { datatypes::unpack(data, buf, &self.pieces) };
        Ok(())
    }
}

/// How far apart consecutive elements of the type `handle` lie: the unit
/// of the irregular collectives' displacements.
fn extent_of(state: &State, handle: c_int) -> Result<usize, Failure> {
    Ok(match type_of(&state.types, handle)? {
        Ty::Basic(t) => t.extent() as usize,
        Ty::Derived(c, _) => c.shape().extent as usize,
    })
}

/// The element type a reduction on `count` elements of the type `handle`
/// works on, and where their data lies if it must be packed: none for a
/// predefined type (reduced in place, padding and all); for a derived
/// type, its elements' predefined type and map. Only a predefined
/// operation reduces a derived type, and only one of a type without
/// padding between its value and index.
fn reduction_of(
    state: &State,
    count: c_int,
    handle: c_int,
    op: c_int,
) -> Result<(Datatype, Option<TypeMap>), Failure> {
    let base = match type_of(&state.types, handle)? {
        Ty::Basic(t) => return Ok((t, None)),
        Ty::Derived(_, base) => base,
    };
    datatypes::refuse_mixed(&state.types, handle, "reduced")?;
    if super::ops::user_op(state, op)?.is_some() {
        return Err(Failure::new(
            Class::Op,
            "an operation of MPI_Op_create on a derived datatype is not supported: \
             reduce its predefined type instead",
        ));
    }
    if base.size() != base.extent() {
        return Err(Failure::new(
            Class::Type,
            format!(
                "a derived datatype of {} (which holds padding) does not reduce",
                base.name()
            ),
        ));
    }
    Ok((base, Some(TypeMap::of(state, count, handle)?)))
}

/// `MPI_Barrier`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Barrier(comm: c_int) -> c_int {
    with_state("MPI_Barrier", comm, |state| {
        // Programs order stores and puts on windows of program memory by
        // barriers too: both copies of each are reconciled around it.
        super::private::each_window_shadow(state, super::private::Shadow::publish);
        if let Target::Comm(c) = comm_of(state, comm)? {
            c.barrier();
        }
        super::private::each_window_shadow(state, super::private::Shadow::pull);
        Ok(())
    })
}

/// The root `root` of a communicator of `size` ranks.
fn root_of(root: c_int, size: u32) -> Result<u32, Failure> {
    u32::try_from(root)
        .ok()
        .filter(|&r| r < size)
        .ok_or_else(|| {
            Failure::new(
                Class::Root,
                format!("root {root} is not a rank of the {size}"),
            )
        })
}

/// `MPI_Bcast`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Bcast(
    buffer: *mut c_void,
    count: c_int,
    ty: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Bcast", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        if let Some(plain) = type_of(&state.types, ty)?.plain() {
            // In place.
            let len = bytes_of(count, plain)?;
            // SAFETY: MPI's buffer of `count` elements, this call's alone.
            let buf = unsafe { output(buffer, len) }?;
            if let Target::Comm(c) = comm_of(state, comm)? {
                c.bcast(root, buf)?;
            }
            return Ok(());
        }
        let map = TypeMap::of(state, count, ty)?;
        let mut data = if me == root {
            map.read(buffer)?
        } else {
            vec![0; map.size]
        };
        if let Target::Comm(c) = comm_of(state, comm)? {
            c.bcast(root, &mut data)?;
        }
        if me == root {
            return Ok(());
        }
        map.write(buffer, &data)
    })
}

/// `values` reduced element-wise over the ranks of `comm` with `op`, as
/// elements of `ty` (a combination [`Op::reduces`] takes), in place.
fn allreduce_bytes(comm: Target<'_>, values: &mut [u8], ty: Datatype, op: Op) -> Outcome {
    let Target::Comm(comm) = comm else {
        return Ok(()); // One rank: the values are the result.
    };
    let native = matches!(
        ty.element(),
        Kind::I32 | Kind::U32 | Kind::I64 | Kind::U64 | Kind::F32 | Kind::F64
    );
    match op.reduce_op() {
        Some(reduce) if native => match ty.element() {
            Kind::I32 => allreduce_as::<i32>(comm, values, reduce),
            Kind::U32 => allreduce_as::<u32>(comm, values, reduce),
            Kind::I64 => allreduce_as::<i64>(comm, values, reduce),
            Kind::U64 => allreduce_as::<u64>(comm, values, reduce),
            Kind::F32 => allreduce_as::<f32>(comm, values, reduce),
            _ => allreduce_as::<f64>(comm, values, reduce),
        },
        _ => allreduce_folded(comm, values, ty, op),
    }
}

/// An allreduce rma has no reduction for (an operation other than sum,
/// min and max, or 8- and 16-bit elements): every rank's values gathered,
/// then combined in rank order as the one-sided accumulate combines them,
/// so every rank gets the same bits.
fn allreduce_folded(
    comm: &mut Comm<'static, Platform>,
    values: &mut [u8],
    ty: Datatype,
    op: Op,
) -> Outcome {
    let acc = accumulate_op_of(op)?;
    let all = allgather_var(Target::Comm(comm), values)?;
    as_element!(ty.element(), ty, T => {
        let mut result = elements::<T>(&all[0])?;
        for theirs in &all[1..] {
            for (r, v) in result.iter_mut().zip(elements::<T>(theirs)?) {
                *r = T::combine(acc, *r, v);
            }
        }
        write_back(&result, values);
        Ok(())
    })
}

/// The reduction of `values` over `comm` with operation handle `op`: a
/// predefined operation, or one of `MPI_Op_create` (`ty` and `handle` are
/// the datatype and its handle, which a user function is given). A
/// predefined operation must take `ty` ([`Op::reduces`]), on one rank
/// too; `MPI_MINLOC` and `MPI_MAXLOC` gather every rank's pairs and
/// reduce them in rank order ([`Loc`]).
fn reduce_any(
    state: &mut State,
    comm: c_int,
    values: &mut [u8],
    ty: Datatype,
    handle: c_int,
    op: c_int,
) -> Outcome {
    if let Some(user) = super::ops::user_op(state, op)? {
        let all = allgather_var(comm_of(state, comm)?, values)?;
        return super::ops::fold(user, &all, values, ty, handle);
    }
    let op = operation(op)?;
    if !op.reduces(ty) {
        return Err(Failure::new(Class::Op, op.refusal(ty)));
    }
    if let Some(loc) = Loc::new(op, ty) {
        let all = allgather_var(comm_of(state, comm)?, values)?;
        loc.fold(&all, values);
        return Ok(());
    }
    allreduce_bytes(comm_of(state, comm)?, values, ty, op)
}

fn allreduce_as<T: Reducible>(
    comm: &mut Comm<'static, Platform>,
    bytes: &mut [u8],
    op: ReduceOp,
) -> Outcome {
    let mut values: Vec<T> = bytes.chunks_exact(T::BYTES).map(T::read_le).collect();
    comm.allreduce(&mut values, op)?;
    for (v, out) in values.into_iter().zip(bytes.chunks_exact_mut(T::BYTES)) {
        v.write_le(out);
    }
    Ok(())
}

/// `MPI_Allreduce` (`MPI_IN_PLACE` allowed).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Allreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    ty: c_int,
    op: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Allreduce", comm, |state| {
        let handle = ty;
        let (ty, map) = reduction_of(state, count, handle, op)?;
        if let Some(map) = map {
            let source = if sendbuf == IN_PLACE {
                recvbuf.cast_const()
            } else {
                sendbuf
            };
            let mut values = map.read(source)?;
            reduce_any(state, comm, &mut values, ty, handle, op)?;
            return map.write(recvbuf, &values);
        }
        let len = bytes_of(count, ty)?;
        // SAFETY: MPI's receive buffer of `count` elements.
        let out = unsafe { output(recvbuf, len) }?;
        if sendbuf != IN_PLACE {
            // SAFETY: MPI's send buffer of `count` elements, apart from the
            // receive buffer.
            out.copy_from_slice(unsafe { input(sendbuf, len) }?);
        }
        reduce_any(state, comm, out, ty, handle, op)
    })
}

/// `MPI_Reduce` (`MPI_IN_PLACE` at the root allowed): an allreduce whose
/// result only the root keeps, so it costs what `MPI_Allreduce` costs.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Reduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    count: c_int,
    ty: c_int,
    op: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Reduce", comm, |state| {
        let handle = ty;
        let (ty, map) = reduction_of(state, count, handle, op)?;
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        let source = if sendbuf == IN_PLACE && me == root {
            recvbuf.cast_const()
        } else {
            sendbuf
        };
        let mut values = match &map {
            Some(map) => map.read(source)?,
            // SAFETY: MPI's send buffer (or the root's receive buffer in
            // place) of `count` elements.
            None => unsafe { input(source, bytes_of(count, ty)?) }?.to_vec(),
        };
        reduce_any(state, comm, &mut values, ty, handle, op)?;
        if me != root {
            return Ok(());
        }
        match map {
            Some(map) => map.write(recvbuf, &values),
            None => {
                // SAFETY: the root's receive buffer of `count` elements.
                unsafe { output(recvbuf, values.len()) }?.copy_from_slice(&values);
                Ok(())
            }
        }
    })
}

/// `MPI_Allgather` (`MPI_IN_PLACE` allowed): every rank's block, in rank
/// order, on every rank.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Allgather", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let blocks = Blocks::of(state, recvcount, recvtype, n)?;
        let mine = own_block(state, sendbuf, sendcount, sendtype, recvbuf, &blocks, me)?;
        let mut all = vec![0u8; blocks.map.size * n as usize];
        match comm_of(state, comm)? {
            Target::Comm(c) => c.allgather(&mine, &mut all)?,
            Target::Own => all.copy_from_slice(&mine),
        }
        blocks.write_all(recvbuf, &all, None)
    })
}

/// The `n` equal blocks of a receive buffer of the regular collectives:
/// `count` elements of a type per rank, rank `r`'s at `r` times their
/// extent.
struct Blocks {
    /// One block's data.
    map: TypeMap,
    /// Bytes from one block to the next.
    stride: usize,
    /// Blocks.
    n: u32,
}

impl Blocks {
    fn of(state: &State, count: c_int, handle: c_int, n: u32) -> Result<Self, Failure> {
        let count_elements = usize::try_from(count)
            .map_err(|_| Failure::new(Class::Count, format!("count {count} is negative")))?;
        Ok(Self {
            map: TypeMap::of(state, count, handle)?,
            stride: count_elements * extent_of(state, handle)?,
            n,
        })
    }

    /// Block `r` of `buf`.
    fn at(&self, buf: *const c_void, r: u32) -> *const c_void {
        buf.cast::<u8>()
            .wrapping_add(self.stride * r as usize)
            .cast()
    }

    /// Every block of `buf`, packed, in rank order.
    fn read_all(&self, buf: *const c_void) -> Result<Vec<u8>, Failure> {
        let mut out = Vec::with_capacity(self.map.size * self.n as usize);
        for r in 0..self.n {
            out.extend_from_slice(&self.map.read(self.at(buf, r))?);
        }
        Ok(out)
    }

    /// Writes `all`, every block's data in rank order, into `buf` (but
    /// block `skip`, in place).
    fn write_all(&self, buf: *mut c_void, all: &[u8], skip: Option<u32>) -> Outcome {
        for (r, data) in (0..self.n).zip(all.chunks_exact(self.map.size.max(1))) {
            if skip != Some(r) {
                self.map.write(self.at(buf, r).cast_mut(), data)?;
            }
        }
        Ok(())
    }
}

/// This rank's block of a gather, packed: its send buffer's data, or its
/// block of the receive buffer in place; as long as a block's data
/// either way.
fn own_block(
    state: &State,
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    blocks: &Blocks,
    me: u32,
) -> Result<Vec<u8>, Failure> {
    if sendbuf == IN_PLACE {
        return blocks.map.read(blocks.at(recvbuf.cast_const(), me));
    }
    let mine = TypeMap::of(state, sendcount, sendtype)?.read(sendbuf)?;
    if mine.len() != blocks.map.size {
        return Err(Failure::new(
            Class::Truncate,
            format!(
                "{} bytes of data sent per rank, {} received",
                mine.len(),
                blocks.map.size
            ),
        ));
    }
    Ok(mine)
}

/// `MPI_Gather` (`MPI_IN_PLACE` at the root allowed): an allgather whose
/// result only the root keeps.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Gather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Gather", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        // Only the root's receive arguments count; the others' block is
        // their send buffer's data.
        let blocks = if me == root {
            Blocks::of(state, recvcount, recvtype, n)?
        } else {
            Blocks::of(state, sendcount, sendtype, n)?
        };
        let mine = own_block(state, sendbuf, sendcount, sendtype, recvbuf, &blocks, me)?;
        let mut all = vec![0u8; blocks.map.size * n as usize];
        match comm_of(state, comm)? {
            Target::Comm(c) => c.allgather(&mine, &mut all)?,
            Target::Own => all.copy_from_slice(&mine),
        }
        if me != root {
            return Ok(());
        }
        blocks.write_all(recvbuf, &all, (sendbuf == IN_PLACE).then_some(me))
    })
}

// The irregular collectives and the all-to-alls, built on rma's allgather
// and bcast (which travel apart from point-to-point messages): each rank
// receives every rank's contribution, padded to the longest, and keeps
// what MPI gives it. The data is MPI's; the bytes moved, and so the
// modelled time, are those of an allgather or bcast of everything.

/// Every rank's `mine`, in rank order, on every rank of `comm`.
fn allgather_var(comm: Target<'_>, mine: &[u8]) -> Result<Vec<Vec<u8>>, Failure> {
    let Target::Comm(comm) = comm else {
        return Ok(vec![mine.to_vec()]);
    };
    let n = comm.size() as usize;
    let mut lengths = vec![0u8; 4 * n];
    comm.allgather(&(mine.len() as u32).to_le_bytes(), &mut lengths)?;
    let lengths: Vec<usize> = lengths
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .collect();
    let longest = lengths.iter().copied().max().unwrap_or(0);
    let mut padded = mine.to_vec();
    padded.resize(longest, 0);
    let mut all = vec![0u8; longest * n];
    comm.allgather(&padded, &mut all)?;
    Ok(lengths
        .iter()
        .enumerate()
        .map(|(r, &len)| all[r * longest..r * longest + len].to_vec())
        .collect())
}

/// `data` (meaningful at `root` only) on every rank of `comm`, whatever
/// its length.
fn bcast_var(comm: Target<'_>, root: u32, data: Vec<u8>) -> Result<Vec<u8>, Failure> {
    let Target::Comm(comm) = comm else {
        return Ok(data);
    };
    let mut len = (data.len() as u32).to_le_bytes();
    comm.bcast(root, &mut len)?;
    let mut all = data;
    all.resize(u32::from_le_bytes(len) as usize, 0);
    comm.bcast(root, &mut all)?;
    Ok(all)
}

/// `n` counts (or displacements) from C's array, in elements.
fn counts_of(counts: *const c_int, n: usize, what: &str) -> Result<Vec<usize>, Failure> {
    // SAFETY: MPI's array of one int per rank.
    let bytes = unsafe { input(counts.cast(), 4 * n) }?;
    bytes
        .chunks_exact(4)
        .map(|b| {
            let c = c_int::from_le_bytes([b[0], b[1], b[2], b[3]]);
            usize::try_from(c)
                .map_err(|_| Failure::new(Class::Count, format!("{what} {c} is negative")))
        })
        .collect()
}

/// The `n` blocks of `buf` that `counts` and `displs` (in elements of
/// the type `ty`, and its extents) say, each's data packed after its
/// length (4 bytes): what one rank sends in the irregular collectives.
fn pack_blocks(
    state: &State,
    buf: *const c_void,
    counts: *const c_int,
    displs: *const c_int,
    ty: c_int,
    n: u32,
) -> Result<Vec<u8>, Failure> {
    let extent = extent_of(state, ty)?;
    let counts = counts_of(counts, n as usize, "count")?;
    let displs = counts_of(displs, n as usize, "displacement")?;
    let mut packed = Vec::new();
    for (&c, d) in counts.iter().zip(&displs) {
        let at = buf.cast::<u8>().wrapping_add(d * extent);
        let block = TypeMap::of(state, c as c_int, ty)?.read(at.cast())?;
        packed.extend_from_slice(&(block.len() as u32).to_le_bytes());
        packed.extend_from_slice(&block);
    }
    Ok(packed)
}

/// Block `k` of what [`pack_blocks`] packed.
fn block_of(packed: &[u8], k: u32) -> &[u8] {
    let mut at = 0;
    for _ in 0..k {
        at += 4 + u32::from_le_bytes([packed[at], packed[at + 1], packed[at + 2], packed[at + 3]])
            as usize;
    }
    let len =
        u32::from_le_bytes([packed[at], packed[at + 1], packed[at + 2], packed[at + 3]]) as usize;
    &packed[at + 4..at + 4 + len]
}

/// `MPI_Scatter` (`MPI_IN_PLACE` at the root allowed).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Scatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Scatter", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        let all = if me == root {
            Blocks::of(state, sendcount, sendtype, n)?.read_all(sendbuf)?
        } else {
            Vec::new()
        };
        let all = bcast_var(comm_of(state, comm)?, root, all)?;
        let block = all.len() / n as usize;
        if me == root && recvbuf.cast_const() == IN_PLACE {
            return Ok(());
        }
        let map = TypeMap::of(state, recvcount, recvtype)?;
        if map.size != block {
            return Err(Failure::new(
                Class::Truncate,
                format!(
                    "the root sends {block} bytes of data per rank, this rank receives {}",
                    map.size
                ),
            ));
        }
        map.write(
            recvbuf,
            &all[me as usize * block..(me as usize + 1) * block],
        )
    })
}

/// `MPI_Scatterv`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Scatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Scatterv", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        // The root packs each rank's block after its length.
        let packed = if me == root {
            pack_blocks(state, sendbuf, sendcounts, displs, sendtype, n)?
        } else {
            Vec::new()
        };
        let packed = bcast_var(comm_of(state, comm)?, root, packed)?;
        let mine = block_of(&packed, me);
        if me == root && recvbuf.cast_const() == IN_PLACE {
            return Ok(());
        }
        let map = TypeMap::of(state, recvcount, recvtype)?;
        if mine.len() != map.size {
            return Err(Failure::new(
                Class::Truncate,
                format!(
                    "{} bytes of data for this rank, {} received",
                    mine.len(),
                    map.size
                ),
            ));
        }
        map.write(recvbuf, mine)
    })
}

/// `MPI_Gatherv` (`MPI_IN_PLACE` at the root allowed).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Gatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Gatherv", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        let mine = if me == root && sendbuf == IN_PLACE {
            Vec::new()
        } else {
            TypeMap::of(state, sendcount, sendtype)?.read(sendbuf)?
        };
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        if me == root {
            unpack_v(
                state,
                &all,
                recvbuf,
                recvcounts,
                displs,
                recvtype,
                (sendbuf == IN_PLACE).then_some(me),
            )?;
        }
        Ok(())
    })
}

/// Writes each rank's block of `all` into `recvbuf` at its displacement
/// (but `skip`'s, in place), checking it against its count.
fn unpack_v(
    state: &State,
    all: &[Vec<u8>],
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    skip: Option<u32>,
) -> Outcome {
    let extent = extent_of(state, recvtype)?;
    let counts = counts_of(recvcounts, all.len(), "receive count")?;
    let displs = counts_of(displs, all.len(), "displacement")?;
    for (r, block) in all.iter().enumerate() {
        if skip == Some(r as u32) {
            continue;
        }
        let map = TypeMap::of(state, counts[r] as c_int, recvtype)?;
        if block.len() != map.size {
            return Err(Failure::new(
                Class::Truncate,
                format!(
                    "rank {r} sent {} bytes of data, {} expected",
                    block.len(),
                    map.size
                ),
            ));
        }
        map.write(
            recvbuf.cast::<u8>().wrapping_add(displs[r] * extent).cast(),
            block,
        )?;
    }
    Ok(())
}

/// `MPI_Allgatherv` (`MPI_IN_PLACE` allowed).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Allgatherv", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let mine = if sendbuf == IN_PLACE {
            let extent = extent_of(state, recvtype)?;
            let count = counts_of(recvcounts, n as usize, "receive count")?[me as usize];
            let displ = counts_of(displs, n as usize, "displacement")?[me as usize];
            let at = recvbuf
                .cast_const()
                .cast::<u8>()
                .wrapping_add(displ * extent);
            TypeMap::of(state, count as c_int, recvtype)?.read(at.cast())?
        } else {
            TypeMap::of(state, sendcount, sendtype)?.read(sendbuf)?
        };
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        unpack_v(state, &all, recvbuf, recvcounts, displs, recvtype, None)
    })
}

/// `MPI_Alltoall`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Alltoall", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        let blocks = Blocks::of(state, recvcount, recvtype, n)?;
        let block = blocks.map.size;
        let mine = if sendbuf == IN_PLACE {
            // MPI's receive buffer of `n` blocks, sent from in place.
            blocks.read_all(recvbuf.cast_const())?
        } else {
            let sent = Blocks::of(state, sendcount, sendtype, n)?;
            if sent.map.size != block {
                return Err(Failure::new(
                    Class::Truncate,
                    format!(
                        "{} bytes of data sent per rank, {block} received",
                        sent.map.size
                    ),
                ));
            }
            sent.read_all(sendbuf)?
        };
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        let start = me as usize * block;
        let mut mine = Vec::with_capacity(block * n as usize);
        for theirs in &all {
            mine.extend_from_slice(&theirs[start..start + block]);
        }
        blocks.write_all(recvbuf, &mine, None)
    })
}

/// `MPI_Alltoallv`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    with_state("MPI_Alltoallv", comm, |state| {
        let (me, n) = rank_of(state, comm)?;
        if sendbuf == IN_PLACE {
            return Err(Failure::new(
                Class::Arg,
                "MPI_IN_PLACE is not supported here yet",
            ));
        }
        // Each rank's blocks for every rank.
        let mine = pack_blocks(state, sendbuf, sendcounts, sdispls, sendtype, n)?;
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        let blocks: Vec<Vec<u8>> = all
            .iter()
            .map(|packed| block_of(packed, me).to_vec())
            .collect();
        unpack_v(state, &blocks, recvbuf, recvcounts, rdispls, recvtype, None)
    })
}
