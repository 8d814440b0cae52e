// SPDX-License-Identifier: MIT OR Apache-2.0
//! The calls of `mpi.h` this library does not carry out yet.

use core::ffi::c_int;

use super::*;

/// The code of a call this library does not carry out yet.
fn unsupported(call: &str) -> c_int {
    finish(
        call,
        codes::comm::WORLD,
        Err(Failure::new(
            Class::Unsupported,
            "not supported by this MPI library yet",
        )),
    )
}

/// Defines each call as one that fails with
/// `MPI_ERR_UNSUPPORTED_OPERATION`, naming itself. Their arguments are
/// not read: in the i386 C calling convention the caller pushes and pops
/// them, so a definition without parameters serves every prototype of
/// `mpi.h` that returns an `int`.
macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "`: not supported yet.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> c_int {
            unsupported(stringify!($name))
        }
    )*};
}

unsupported!(
    MPI_Pack,
    MPI_Unpack,
    MPI_Pack_size,
    MPI_Bsend,
    MPI_Rsend,
    MPI_Issend,
    MPI_Sendrecv_replace,
    MPI_Request_free,
    MPI_Cancel,
    MPI_Testany,
    MPI_Waitsome,
    MPI_Testsome,
    MPI_Scan,
    MPI_Exscan,
    MPI_Reduce_scatter,
    MPI_Reduce_scatter_block,
    MPI_Ibarrier,
    MPI_Ibcast,
    MPI_Iallreduce,
);
