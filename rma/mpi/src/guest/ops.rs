// SPDX-License-Identifier: MIT OR Apache-2.0
//! User-defined reduction operations (`MPI_Op_create`): the reductions
//! gather every rank's values and combine them with the user's function
//! in rank order, so a function that is associative but not commutative
//! gets MPI's order, and every rank the same bits. The one-sided
//! accumulates take predefined operations only, as MPI says.

use alloc::format;
use core::ffi::{c_int, c_void};

use super::*;

/// C's `MPI_User_function`.
pub(super) type UserFunction = unsafe extern "C" fn(
    invec: *mut c_void,
    inoutvec: *mut c_void,
    len: *mut c_int,
    datatype: *mut c_int,
);

/// An operation made by `MPI_Op_create`.
#[derive(Clone, Copy)]
pub(super) struct UserOp {
    function: UserFunction,
}

/// The first handle of a user-defined operation (below it: the
/// predefined ones).
const FIRST_OP: c_int = 32;

/// The user-defined operation `op` names; `None` for a predefined one.
pub(super) fn user_op(state: &State, op: c_int) -> Result<Option<UserOp>, Failure> {
    if op < FIRST_OP {
        return Ok(None);
    }
    state
        .ops
        .get((op - FIRST_OP) as usize)
        .copied()
        .flatten()
        .map(Some)
        .ok_or_else(|| Failure::new(Class::Op, format!("{op} names no operation")))
}

/// Combines every rank's values (`all`, in rank order) with `op` into
/// `out`: `all[0] op (all[1] op (... op all[n-1]))`, each step the user's
/// function with the left operand as `invec` and the running result as
/// `inoutvec`.
pub(super) fn fold(
    op: UserOp,
    all: &[alloc::vec::Vec<u8>],
    out: &mut [u8],
    ty: Datatype,
    handle: c_int,
) -> Outcome {
    let Some((last, rest)) = all.split_last() else {
        return Ok(());
    };
    out.copy_from_slice(last);
    let mut len = (out.len() / ty.extent() as usize) as c_int;
    let mut handle = handle;
    for theirs in rest.iter().rev() {
        let mut left = theirs.clone();
        // SAFETY: the user's function, as MPI calls it: `len` elements of
        // `datatype` in each buffer, which live through the call.
        unsafe {
            (op.function)(
                left.as_mut_ptr().cast(),
                out.as_mut_ptr().cast(),
                &mut len,
                &mut handle,
            );
        }
    }
    Ok(())
}

/// `MPI_Op_create`: `commute` is not used (the order is always MPI's).
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Op_create(
    function: Option<UserFunction>,
    _commute: c_int,
    op: *mut c_int,
) -> c_int {
    with_state("MPI_Op_create", codes::comm::WORLD, |state| {
        let function = function.ok_or_else(|| Failure::new(Class::Arg, "a null function"))?;
        state.ops.push(Some(UserOp { function }));
        store(op, FIRST_OP + state.ops.len() as c_int - 1)
    })
}

/// `MPI_OP_NULL`.
const OP_NULL: c_int = 0;

/// `MPI_Op_free`.
#[unsafe(no_mangle)]
pub extern "C" fn MPI_Op_free(op: *mut c_int) -> c_int {
    with_state("MPI_Op_free", codes::comm::WORLD, |state| {
        if op.is_null() {
            return Err(Failure::new(Class::Arg, "a null operation pointer"));
        }
        // SAFETY: C passes a pointer to its operation handle.
        let handle = unsafe { op.read() };
        if user_op(state, handle)?.is_none() {
            return Err(Failure::new(
                Class::Op,
                "a predefined operation cannot be freed",
            ));
        }
        state.ops[(handle - FIRST_OP) as usize] = None;
        store(op, OP_NULL)
    })
}
