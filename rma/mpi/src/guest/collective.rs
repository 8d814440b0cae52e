// SPDX-License-Identifier: MIT OR Apache-2.0
//! Collectives over `MPI_COMM_WORLD` (rma's communicator) and
//! `MPI_COMM_SELF`.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::{c_int, c_void};

use super::*;

/// `MPI_Barrier`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Barrier(comm: c_int) -> c_int {
    with_state("MPI_Barrier", comm, |state| {
        if let Target::World(c) = comm_of(state, comm)? {
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
            Target::World(c) => {
                let root = root_of(root, c.size())?;
                Ok(c.bcast(root, buf)?)
            }
            Target::Own => root_of(root, 1).map(drop),
        }
    })
}

/// `values` reduced element-wise over the ranks of `comm` with `op`, as
/// elements of `kind`, in place.
fn allreduce_bytes(comm: Target<'_>, values: &mut [u8], ty: Datatype, op: Op) -> Outcome {
    let Target::World(comm) = comm else {
        return Ok(()); // One rank: the values are the result.
    };
    let Some(reduce) = op.reduce_op() else {
        return Err(Failure::new(
            Class::Op,
            format!(
                "{} is not supported yet (MPI_SUM, MPI_MIN and MPI_MAX are)",
                op.name()
            ),
        ));
    };
    match ty.element() {
        Kind::I32 => allreduce_as::<i32>(comm, values, reduce),
        Kind::U32 => allreduce_as::<u32>(comm, values, reduce),
        Kind::I64 => allreduce_as::<i64>(comm, values, reduce),
        Kind::U64 => allreduce_as::<u64>(comm, values, reduce),
        Kind::F32 => allreduce_as::<f32>(comm, values, reduce),
        Kind::F64 => allreduce_as::<f64>(comm, values, reduce),
        Kind::Bytes | Kind::I16 => Err(Failure::new(
            Class::Op,
            format!("{} on {} is not supported yet", op.name(), ty.name()),
        )),
    }
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
        let ty = datatype(ty)?;
        let op = operation(op)?;
        let len = bytes_of(count, ty)?;
        // SAFETY: MPI's receive buffer of `count` elements.
        let out = unsafe { output(recvbuf, len) }?;
        if sendbuf != IN_PLACE {
            // SAFETY: MPI's send buffer of `count` elements, apart from the
            // receive buffer.
            out.copy_from_slice(unsafe { input(sendbuf, len) }?);
        }
        allreduce_bytes(comm_of(state, comm)?, out, ty, op)
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
        let ty = datatype(ty)?;
        let op = operation(op)?;
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
        allreduce_bytes(comm_of(state, comm)?, &mut values, ty, op)?;
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
            Target::World(c) => Ok(c.allgather(&mine, all)?),
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
            Target::World(c) => c.allgather(&mine, &mut all)?,
            Target::Own => all.copy_from_slice(&mine),
        }
        if me == root {
            // SAFETY: the root's receive buffer of `n` blocks.
            unsafe { output(recvbuf, all.len()) }?.copy_from_slice(&all);
        }
        Ok(())
    })
}
