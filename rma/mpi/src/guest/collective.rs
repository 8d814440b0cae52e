// SPDX-License-Identifier: MIT OR Apache-2.0
//! Collectives over `MPI_COMM_WORLD` (rma's communicator) and
//! `MPI_COMM_SELF`.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::{c_int, c_void};

use super::*;
use crate::loc::Loc;

/// `MPI_Barrier`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Barrier(comm: c_int) -> c_int {
    with_state("MPI_Barrier", comm, |state| {
        if let Target::Comm(c) = comm_of(state, comm)? {
            c.barrier();
        }
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
        let len = bytes_of(count, datatype(ty)?)?;
        // SAFETY: MPI's buffer of `count` elements, this call's alone.
        let buf = unsafe { output(buffer, len) }?;
        match comm_of(state, comm)? {
            Target::Comm(c) => {
                let root = root_of(root, c.size())?;
                Ok(c.bcast(root, buf)?)
            }
            Target::Own => root_of(root, 1).map(drop),
        }
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
    comm: &mut Comm<'static, Scc>,
    values: &mut [u8],
    ty: Datatype,
    op: Op,
) -> Outcome {
    let acc = accumulate_op_of(op)?;
    let all = allgather_var(Target::Comm(comm), values)?;
    as_element!(ty.element(), ty, T => {
        let mut result = elements::<T>(&all[0]);
        for theirs in &all[1..] {
            for (r, v) in result.iter_mut().zip(elements::<T>(theirs)) {
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
    comm: &mut Comm<'static, Scc>,
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
        let ty = datatype(ty)?;
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
        let ty = datatype(ty)?;
        let len = bytes_of(count, ty)?;
        let (me, n) = rank_of(state, comm)?;
        let root = root_of(root, n)?;
        let mut values = vec![0u8; len];
        let source = if sendbuf == IN_PLACE && me == root {
            recvbuf.cast_const()
        } else {
            sendbuf
        };
        // SAFETY: MPI's send buffer (or the root's receive buffer in
        // place) of `count` elements.
        values.copy_from_slice(unsafe { input(source, len) }?);
        reduce_any(state, comm, &mut values, ty, handle, op)?;
        if me == root {
            // SAFETY: the root's receive buffer of `count` elements.
            unsafe { output(recvbuf, len) }?.copy_from_slice(&values);
        }
        Ok(())
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
        let block = bytes_of(recvcount, datatype(recvtype)?)?;
        let (me, n) = rank_of(state, comm)?;
        let mine = own_block(sendbuf, sendcount, sendtype, recvbuf, block, me)?;
        // SAFETY: MPI's receive buffer of `n` blocks.
        let all = unsafe { output(recvbuf, block * n as usize) }?;
        match comm_of(state, comm)? {
            Target::Comm(c) => Ok(c.allgather(&mine, all)?),
            Target::Own => {
                all.copy_from_slice(&mine);
                Ok(())
            }
        }
    })
}

/// This rank's block of a gather: its send buffer, or its block of the
/// receive buffer in place; `block` bytes either way.
fn own_block(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    block: usize,
    me: u32,
) -> Result<Vec<u8>, Failure> {
    if sendbuf == IN_PLACE {
        // SAFETY: this rank's block of MPI's receive buffer.
        let own = unsafe {
            input(
                recvbuf
                    .cast_const()
                    .cast::<u8>()
                    .wrapping_add(block * me as usize)
                    .cast(),
                block,
            )
        }?;
        return Ok(own.to_vec());
    }
    let len = bytes_of(sendcount, datatype(sendtype)?)?;
    if len != block {
        return Err(Failure::new(
            Class::Truncate,
            format!("{len} bytes sent per rank, {block} received"),
        ));
    }
    // SAFETY: MPI's send buffer of `sendcount` elements.
    Ok(unsafe { input(sendbuf, len) }?.to_vec())
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
        // Only the root's receive arguments count; the others' block size
        // is their send size.
        let block = if me == root {
            bytes_of(recvcount, datatype(recvtype)?)?
        } else {
            bytes_of(sendcount, datatype(sendtype)?)?
        };
        let mine = own_block(sendbuf, sendcount, sendtype, recvbuf, block, me)?;
        let mut all = vec![0u8; block * n as usize];
        match comm_of(state, comm)? {
            Target::Comm(c) => c.allgather(&mine, &mut all)?,
            Target::Own => all.copy_from_slice(&mine),
        }
        if me == root {
            // SAFETY: the root's receive buffer of `n` blocks.
            unsafe { output(recvbuf, all.len()) }?.copy_from_slice(&all);
        }
        Ok(())
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
/// `ty`) say, each after its length (4 bytes): what one rank sends in the
/// irregular collectives.
fn pack_blocks(
    buf: *const c_void,
    counts: *const c_int,
    displs: *const c_int,
    ty: c_int,
    n: u32,
) -> Result<Vec<u8>, Failure> {
    let size = datatype(ty)?.extent() as usize;
    let counts = counts_of(counts, n as usize, "count")?;
    let displs = counts_of(displs, n as usize, "displacement")?;
    let mut packed = Vec::new();
    for (c, d) in counts.iter().zip(&displs) {
        let at = buf.cast::<u8>().wrapping_add(d * size);
        // SAFETY: MPI's buffer holds each block its counts and
        // displacements name.
        let block = unsafe { input(at.cast(), c * size) }?;
        packed.extend_from_slice(&(block.len() as u32).to_le_bytes());
        packed.extend_from_slice(block);
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

/// Writes `block` at element `displ` of `recvbuf` (elements `size` bytes
/// apart).
fn put_block(recvbuf: *mut c_void, displ: usize, size: usize, block: &[u8]) -> Outcome {
    let at = recvbuf.cast::<u8>().wrapping_add(displ * size);
    // SAFETY: MPI's receive buffer holds the block at its displacement.
    unsafe { output(at.cast(), block.len()) }?.copy_from_slice(block);
    Ok(())
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
            let block = bytes_of(sendcount, datatype(sendtype)?)?;
            // SAFETY: the root's send buffer of `n` blocks.
            unsafe { input(sendbuf, block * n as usize) }?.to_vec()
        } else {
            Vec::new()
        };
        let all = bcast_var(comm_of(state, comm)?, root, all)?;
        let block = all.len() / n as usize;
        if me == root && recvbuf.cast_const() == IN_PLACE {
            return Ok(());
        }
        let want = bytes_of(recvcount, datatype(recvtype)?)?;
        if want != block {
            return Err(Failure::new(
                Class::Truncate,
                format!("the root sends {block} bytes per rank, this rank receives {want}"),
            ));
        }
        let mine = &all[me as usize * block..(me as usize + 1) * block];
        put_block(recvbuf, 0, 1, mine)
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
            pack_blocks(sendbuf, sendcounts, displs, sendtype, n)?
        } else {
            Vec::new()
        };
        let packed = bcast_var(comm_of(state, comm)?, root, packed)?;
        let mine = block_of(&packed, me);
        if me == root && recvbuf.cast_const() == IN_PLACE {
            return Ok(());
        }
        let room = bytes_of(recvcount, datatype(recvtype)?)?;
        if mine.len() > room {
            return Err(Failure::new(
                Class::Truncate,
                format!("{} bytes for this rank, {room} received", mine.len()),
            ));
        }
        put_block(recvbuf, 0, 1, mine)
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
            let len = bytes_of(sendcount, datatype(sendtype)?)?;
            // SAFETY: MPI's send buffer of `sendcount` elements.
            unsafe { input(sendbuf, len) }?.to_vec()
        };
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        if me == root {
            unpack_v(
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
    all: &[Vec<u8>],
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    skip: Option<u32>,
) -> Outcome {
    let size = datatype(recvtype)?.extent() as usize;
    let counts = counts_of(recvcounts, all.len(), "receive count")?;
    let displs = counts_of(displs, all.len(), "displacement")?;
    for (r, block) in all.iter().enumerate() {
        if skip == Some(r as u32) {
            continue;
        }
        if block.len() != counts[r] * size {
            return Err(Failure::new(
                Class::Truncate,
                format!(
                    "rank {r} sent {} bytes, {} expected",
                    block.len(),
                    counts[r] * size
                ),
            ));
        }
        put_block(recvbuf, displs[r], size, block)?;
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
            let size = datatype(recvtype)?.extent() as usize;
            let count = counts_of(recvcounts, n as usize, "receive count")?[me as usize];
            let displ = counts_of(displs, n as usize, "displacement")?[me as usize];
            let at = recvbuf.cast_const().cast::<u8>().wrapping_add(displ * size);
            // SAFETY: this rank's block of MPI's receive buffer.
            unsafe { input(at.cast(), count * size) }?.to_vec()
        } else {
            let len = bytes_of(sendcount, datatype(sendtype)?)?;
            // SAFETY: MPI's send buffer of `sendcount` elements.
            unsafe { input(sendbuf, len) }?.to_vec()
        };
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        unpack_v(&all, recvbuf, recvcounts, displs, recvtype, None)
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
        let block = bytes_of(recvcount, datatype(recvtype)?)?;
        let mine = if sendbuf == IN_PLACE {
            // SAFETY: MPI's receive buffer of `n` blocks, sent from in place.
            unsafe { input(recvbuf.cast_const(), block * n as usize) }?.to_vec()
        } else {
            let sent = bytes_of(sendcount, datatype(sendtype)?)?;
            if sent != block {
                return Err(Failure::new(
                    Class::Truncate,
                    format!("{sent} bytes sent per rank, {block} received"),
                ));
            }
            // SAFETY: MPI's send buffer of `n` blocks.
            unsafe { input(sendbuf, block * n as usize) }?.to_vec()
        };
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        for (r, theirs) in all.iter().enumerate() {
            let start = me as usize * block;
            put_block(recvbuf, r, block, &theirs[start..start + block])?;
        }
        Ok(())
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
        let mine = pack_blocks(sendbuf, sendcounts, sdispls, sendtype, n)?;
        let all = allgather_var(comm_of(state, comm)?, &mine)?;
        let blocks: Vec<Vec<u8>> = all
            .iter()
            .map(|packed| block_of(packed, me).to_vec())
            .collect();
        unpack_v(&blocks, recvbuf, recvcounts, rdispls, recvtype, None)
    })
}
