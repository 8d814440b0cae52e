// SPDX-License-Identifier: MIT OR Apache-2.0
//! time.h on the clock hook.

use std::sync::atomic::Ordering;

use super::ffi::*;
use super::hooks::{CLOCK_NS, lock};

#[test]
fn clocks_read_the_hook() {
    let _g = lock();
    CLOCK_NS.store(1_234_567_891_234, Ordering::Relaxed);
    // SAFETY: valid out-pointers.
    unsafe {
        assert_eq!(
            crt_clock(),
            1_234_567_891,
            "microseconds: CLOCKS_PER_SEC is 10^6"
        );
        let mut t = 0;
        assert_eq!(crt_time(&raw mut t), 1234);
        assert_eq!(t, 1234);
        assert_eq!(crt_time(std::ptr::null_mut()), 1234);
        for id in [0, 1, 2] {
            let mut ts = Timespec::default();
            assert_eq!(crt_clock_gettime(id, &raw mut ts), 0);
            assert_eq!(
                ts,
                Timespec {
                    tv_sec: 1234,
                    tv_nsec: 567_891_234
                }
            );
            assert_eq!(crt_clock_getres(id, &raw mut ts), 0);
            assert_eq!(
                ts,
                Timespec {
                    tv_sec: 0,
                    tv_nsec: 1
                }
            );
        }
        let mut ts = Timespec::default();
        set_errno(0);
        assert_eq!(crt_clock_gettime(7, &raw mut ts), -1);
        assert_eq!(errno(), 22);
        set_errno(0);
        assert_eq!(crt_clock_getres(-1, &raw mut ts), -1);
        assert_eq!(errno(), 22);
        CLOCK_NS.store(5_000_999_999, Ordering::Relaxed);
        assert_eq!(crt_clock_gettime(1, &raw mut ts), 0);
        assert_eq!(
            ts,
            Timespec {
                tv_sec: 5,
                tv_nsec: 999_999
            }
        );
        assert_eq!(crt_clock(), 5_000_999);
        assert_eq!(crt_difftime(10, 4), 6.0);
        assert_eq!(crt_difftime(i64::MIN, i64::MAX), -(2f64.powi(64)));
    }
    CLOCK_NS.store(0, Ordering::Relaxed);
}

#[test]
fn gettimeofday_reads_the_hook_in_microseconds() {
    let _g = lock();
    CLOCK_NS.store(5_000_999_999, Ordering::Relaxed);
    let mut tv = Timeval::default();
    // SAFETY: a valid out-pointer; the time zone is not written.
    unsafe {
        assert_eq!(crt_gettimeofday(&raw mut tv, std::ptr::null_mut()), 0);
    }
    assert_eq!(
        tv,
        Timeval {
            tv_sec: 5,
            tv_usec: 999
        }
    );
}
