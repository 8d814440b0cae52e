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

unsupported!(MPI_Win_create_dynamic);
