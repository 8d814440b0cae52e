// SPDX-License-Identifier: MIT OR Apache-2.0
//! The strtol family and ato* compared with glibc: value, end pointer and
//! errno for every base, signs, prefixes, spaces and overflow.

use std::ffi::{CString, c_char, c_int};
use std::format;
use std::string::String;

use super::ffi::*;
use super::format::SplitMix;
use super::hooks::lock;

/// Runs ours and glibc's conversion `$f` on s in base, comparing value,
/// end offset and errno.
macro_rules! same_conv {
    ($ours:ident, $theirs:path, $s:expr, $base:expr) => {{
        let c = CString::new($s).unwrap();
        let mut e1: *mut c_char = std::ptr::null_mut();
        let mut e2: *mut c_char = std::ptr::null_mut();
        set_errno(0);
        // SAFETY: a NUL-terminated string and a place for the end pointer.
        let a = unsafe { $ours(c.as_ptr(), &raw mut e1, $base) };
        let err1 = errno();
        // SAFETY: the host's errno location is valid for this thread.
        unsafe { *libc::__errno_location() = 0 };
        // SAFETY: as above.
        let b = unsafe { $theirs(c.as_ptr(), &raw mut e2, $base) };
        // SAFETY: as above.
        let err2 = unsafe { *libc::__errno_location() };
        // SAFETY: both end pointers point into c.
        let (o1, o2) = unsafe { (e1.offset_from(c.as_ptr()), e2.offset_from(c.as_ptr())) };
        assert_eq!(
            (a, o1, err1),
            (b, o2, err2),
            "{}({:?}, {})",
            stringify!($ours),
            $s,
            $base
        );
    }};
}

unsafe extern "C" {
    fn strtoll(s: *const c_char, end: *mut *mut c_char, base: c_int) -> i64;
    fn strtoull(s: *const c_char, end: *mut *mut c_char, base: c_int) -> u64;
}

/// Checks all four conversions on s in base.
fn all_four(s: &str, base: c_int) {
    same_conv!(crt_strtol, libc::strtol, s, base);
    same_conv!(crt_strtoul, libc::strtoul, s, base);
    same_conv!(crt_strtoll, strtoll, s, base);
    same_conv!(crt_strtoull, strtoull, s, base);
    same_conv!(crt_strtoimax, strtoll, s, base);
    same_conv!(crt_strtoumax, strtoull, s, base);
}

const CASES: &[&str] = &[
    "0",
    "-0",
    "+0",
    "1",
    "-1",
    "42",
    "  \t\n\x0b\x0c\r 42",
    "+-1",
    "-+1",
    " - 1",
    "",
    "   ",
    "-",
    "+",
    "abc",
    "12abc",
    "0x",
    "0X",
    "0x1f",
    "0XfF",
    "-0x10",
    "0xg",
    "0x 1",
    "0b101",
    "0777",
    "0778",
    "08",
    "09",
    "z",
    "Z",
    "zz",
    "-zz",
    "1z",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551615",
    "-18446744073709551616",
    "99999999999999999999999999999",
    "-99999999999999999999999999999",
    "0x7fffffffffffffff",
    "0x8000000000000000",
    "0xffffffffffffffff",
    "0x10000000000000000",
    "1111111111111111111111111111111111111111111111111111111111111111",
    "11111111111111111111111111111111111111111111111111111111111111111",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "000000000000000000000000000000000000000000000123",
    "1 2",
    "7fffffff",
    "zzzzzzzzzzzzz",
    "3w5e11264sgsf",
    "3w5e11264sgsg",
];

#[test]
fn every_base_and_edge_case_matches_glibc() {
    let _g = lock();
    for s in CASES {
        for base in [0, 2, 3, 8, 10, 16, 36] {
            all_four(s, base);
        }
    }
}

#[test]
fn invalid_bases_are_einval() {
    let _g = lock();
    // glibc leaves the end pointer unset here; ours sets it to the string,
    // as for any other failed conversion.
    for base in [-1, 1, 37, 100] {
        set_errno(0);
        let mut end: *mut c_char = std::ptr::null_mut();
        let s = c"  123";
        // SAFETY: a NUL-terminated string and a place for the end pointer.
        let v = unsafe { crt_strtol(s.as_ptr(), &raw mut end, base) };
        assert_eq!((v, end.cast_const(), errno()), (0, s.as_ptr(), 22));
    }
}

#[test]
fn random_numbers_in_random_bases_match_glibc() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0020);
    let digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    for _ in 0..20_000 {
        let base = [0, 2, 8, 10, 16, 36, 7, 25][rng.below(8) as usize];
        let mut s = String::new();
        for _ in 0..rng.below(3) {
            s.push(' ');
        }
        match rng.below(4) {
            0 => s.push('-'),
            1 => s.push('+'),
            _ => {}
        }
        if rng.below(4) == 0 {
            s += "0x";
        }
        for _ in 0..rng.below(25) {
            s.push(digits.as_bytes()[rng.below(digits.len() as u64) as usize] as char);
        }
        all_four(&s, base);
    }
}

#[test]
fn ato_family_reads_decimal_prefixes() {
    let _g = lock();
    // SAFETY: NUL-terminated strings.
    unsafe {
        assert_eq!(crt_atoi(c"  -123xyz".as_ptr()), -123);
        assert_eq!(crt_atoi(c"0x10".as_ptr()), 0);
        assert_eq!(crt_atoi(c"010".as_ptr()), 10);
        assert_eq!(crt_atol(c"+9223372036854775807".as_ptr()), i64::MAX);
        assert_eq!(crt_atoll(c"-9223372036854775808".as_ptr()), i64::MIN);
        assert_eq!(crt_atoi(c"junk".as_ptr()), 0);
    }
    let s = format!("{}", i32::MAX);
    let c = CString::new(s).unwrap();
    // SAFETY: a NUL-terminated string.
    assert_eq!(unsafe { crt_atoi(c.as_ptr()) }, i32::MAX);
}
