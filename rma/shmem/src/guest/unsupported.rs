// SPDX-License-Identifier: MIT OR Apache-2.0
//! Routines `shmem.h` declares that this library does not carry out:
//! each ends the run with a report naming itself. They are defined
//! without parameters: in the i386 C calling convention the caller
//! pushes and pops the arguments, so one definition serves every
//! prototype.

use super::fail;

/// Defines each routine as one that fails, naming itself.
macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "`: not supported.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> ! {
            fail(format_args!(
                "{}: not supported by this OpenSHMEM library",
                stringify!($name)
            ))
        }
    )*};
}

unsupported!(
    shmem_barrier,
    shmem_sync,
    shmem_broadcast32,
    shmem_broadcast64,
    shmem_collect32,
    shmem_collect64,
    shmem_fcollect32,
    shmem_fcollect64,
    shmem_alltoall32,
    shmem_alltoall64,
    shmem_alltoalls32,
    shmem_alltoalls64,
    shmem_int_sum_to_all,
    shmem_long_sum_to_all,
    shmem_double_sum_to_all,
    shmem_int_max_to_all,
    shmem_double_max_to_all,
);

/// `shmem_pcontrol`: a hint to a profiling library; there is none, so it
/// does nothing (as OpenSHMEM says without one). Defined without
/// parameters, as the routines above.
#[unsafe(no_mangle)]
pub extern "C" fn shmem_pcontrol() {}
