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
    shmem_ctx_create,
    shmem_ctx_destroy,
    shmem_team_split_strided,
    shmem_team_split_2d,
    shmem_team_destroy,
    shmem_team_get_config,
    shmem_team_translate_pe,
    shmem_team_create_ctx,
    shmem_ctx_get_team,
    shmem_malloc_with_hints,
    shmem_putmem_signal,
    shmem_putmem_signal_nbi,
    shmem_signal_fetch,
    shmem_signal_wait_until,
    shmem_int_wait_until_all,
    shmem_int_wait_until_any,
    shmem_int_wait_until_some,
    shmem_int_wait_until_all_vector,
    shmem_int_test_all,
    shmem_int_test_any,
    shmem_int_test_some,
    shmem_int_atomic_fetch_nbi,
    shmem_int_atomic_fetch_add_nbi,
    shmem_int_atomic_compare_swap_nbi,
    shmem_pcontrol,
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
    shmem_alltoallsmem,
    shmem_int_sum_to_all,
    shmem_long_sum_to_all,
    shmem_double_sum_to_all,
    shmem_int_max_to_all,
    shmem_double_max_to_all,
);
