// SPDX-License-Identifier: MIT OR Apache-2.0
//! pthread.h for the one thread a core runs.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

use super::ffi::*;
use super::hooks::lock;

/// EAGAIN, ESRCH, EDEADLK, EBUSY and EPERM as Linux numbers them.
const EAGAIN: i32 = 11;
const ESRCH: i32 = 3;
const EDEADLK: i32 = 35;
const EBUSY: i32 = 16;
const EPERM: i32 = 1;

unsafe extern "C" fn never(_: *mut c_void) -> *mut c_void {
    unreachable!("no thread starts")
}

static ONCE_RUNS: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn count_once() {
    ONCE_RUNS.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn no_second_thread_starts_and_the_first_is_itself() {
    let _g = lock();
    // SAFETY: valid pointers throughout.
    unsafe {
        let me = crt_pthread_self();
        assert_eq!(crt_pthread_equal(me, crt_pthread_self()), 1);
        assert_eq!(crt_pthread_equal(me, me + 1), 0);
        let mut other = 0;
        assert_eq!(
            crt_pthread_create(
                &raw mut other,
                std::ptr::null(),
                Some(never),
                std::ptr::null_mut()
            ),
            EAGAIN
        );
        assert_eq!(crt_pthread_join(me, std::ptr::null_mut()), EDEADLK);
        assert_eq!(crt_pthread_join(me + 7, std::ptr::null_mut()), ESRCH);
    }
}

#[test]
fn a_mutex_is_taken_and_given_back_and_misuse_is_refused() {
    let _g = lock();
    let mut m = Mutex { locked: 7 };
    // SAFETY: a valid mutex.
    unsafe {
        assert_eq!(crt_pthread_mutex_init(&raw mut m, std::ptr::null()), 0);
        assert_eq!(m.locked, 0);
        assert_eq!(crt_pthread_mutex_unlock(&raw mut m), EPERM);
        assert_eq!(crt_pthread_mutex_lock(&raw mut m), 0);
        assert_eq!(crt_pthread_mutex_lock(&raw mut m), EDEADLK);
        assert_eq!(crt_pthread_mutex_trylock(&raw mut m), EBUSY);
        assert_eq!(crt_pthread_mutex_destroy(&raw mut m), EBUSY);
        assert_eq!(crt_pthread_mutex_unlock(&raw mut m), 0);
        assert_eq!(crt_pthread_mutex_trylock(&raw mut m), 0);
        assert_eq!(crt_pthread_mutex_unlock(&raw mut m), 0);
        assert_eq!(crt_pthread_mutex_destroy(&raw mut m), 0);
    }
}

#[test]
fn once_runs_its_function_once() {
    let _g = lock();
    let mut once = 0;
    ONCE_RUNS.store(0, Ordering::Relaxed);
    // SAFETY: a valid once-control.
    unsafe {
        assert_eq!(crt_pthread_once(&raw mut once, count_once), 0);
        assert_eq!(crt_pthread_once(&raw mut once, count_once), 0);
    }
    assert_eq!(ONCE_RUNS.load(Ordering::Relaxed), 1);
}
