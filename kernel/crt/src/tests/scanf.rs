// SPDX-License-Identifier: MIT OR Apache-2.0
//! sscanf compared with glibc's: the count it returns and every value it
//! stores, for integers of each length and base, floating point, strings,
//! characters, scan sets, `%n`, suppression, widths, literal text and
//! input that ends early.

use std::ffi::{CString, c_char, c_double, c_float, c_int, c_long, c_longlong, c_short, c_uint};

use super::ffi::*;

unsafe extern "C" {
    fn sscanf(s: *const c_char, fmt: *const c_char, ...) -> c_int;
}

/// The values one format stores: an int, an unsigned, a long long, a
/// short, a double, a float, two strings and the characters consumed.
#[derive(Debug, Default, PartialEq)]
struct Stored {
    count: c_int,
    i: c_int,
    u: c_uint,
    ll: c_longlong,
    h: c_short,
    d: c_double,
    f: c_float,
    s1: [u8; 16],
    s2: [u8; 16],
    n: c_int,
    l: c_long,
}

/// Runs `$f` (ours or glibc's) on `$s` with `$fmt`, which must take the
/// arguments in the order `$order` names them.
macro_rules! scan {
    ($f:ident, $s:expr, $fmt:expr, $($field:ident),*) => {{
        let s = CString::new($s).unwrap();
        let fmt = CString::new($fmt).unwrap();
        let mut out = Stored::default();
        // SAFETY: each argument points at a field of the type its
        // conversion stores; the strings have 16 bytes, more than the
        // widths the formats give them.
        out.count = unsafe {
            $f(s.as_ptr(), fmt.as_ptr(), $(scan!(@arg out, $field)),*)
        };
        out
    }};
    (@arg $out:ident, s1) => { $out.s1.as_mut_ptr() };
    (@arg $out:ident, s2) => { $out.s2.as_mut_ptr() };
    (@arg $out:ident, $field:ident) => { &raw mut $out.$field };
}

/// Ours and glibc's agree on `$s` and `$fmt`.
macro_rules! same {
    ($s:expr, $fmt:expr, $($field:ident),*) => {{
        let ours = scan!(crt_sscanf, $s, $fmt, $($field),*);
        let theirs = scan!(sscanf, $s, $fmt, $($field),*);
        assert_eq!(ours, theirs, "sscanf({:?}, {:?})", $s, $fmt);
        ours
    }};
}

#[test]
fn integers_of_every_base_and_length_match_glibc() {
    let got = same!("  -42 17 0x1f -7", "%d %u %lli %hd", i, u, ll, h);
    assert_eq!(
        (got.count, got.i, got.u, got.ll, got.h),
        (4, -42, 17, 31, -7)
    );
    same!("0755 ff -0x10 99", "%i %x %i %ld", i, u, ll, l);
    same!("12345678", "%3d%2u%lld", i, u, ll);
    same!("4294967295 -1", "%u %d", u, i);
    same!("9223372036854775807", "%lld", ll);
    same!("+12 -0", "%d %u", i, u);
}

#[test]
fn floats_strings_characters_and_sets_match_glibc() {
    same!("3.25 -1e3", "%lf %f", d, f);
    same!("inf 0x1p4", "%lf %f", d, f);
    same!("hello world", "%15s %15s", s1, s2);
    same!("abcdef", "%3c%2s", s1, s2);
    same!("abc123def", "%15[a-z]%d%15[^\n]", s1, i, s2);
    same!("x-y]z", "%15[]x-y]%15s", s1, s2);
    same!("key = 12", "%15s = %d%n", s1, i, n);
}

#[test]
fn suppression_literals_and_early_ends_match_glibc() {
    same!("1 2 3", "%*d %d %n%d", i, n, u);
    same!("a=5,b=6", "a=%d,b=%u", i, u);
    same!("a=5;b=6", "a=%d,b=%u", i, u);
    same!("", "%d", i);
    same!("   ", "%d %u", i, u);
    same!("7", "%d %u", i, u);
    same!("x", "%d", i);
    same!("", "abc%d", i);
    same!("50%", "%d%%", i);
    same!("12 34", "%d%n %d", i, n, u);
}
