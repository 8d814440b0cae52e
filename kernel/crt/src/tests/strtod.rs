// SPDX-License-Identifier: MIT OR Apache-2.0
//! strtod, strtof and atof compared with glibc: value bits, end pointer
//! and errno, on edge cases and many random inputs.

use std::ffi::{CStr, CString, c_char};
use std::format;
use std::string::String;

use super::ffi::*;
use super::format::{SplitMix, text};
use super::hooks::lock;

/// (bits, bytes consumed, errno) of ours and of glibc's strtod.
fn both_strtod(s: &CStr) -> ((u64, isize, i32), (u64, isize, i32)) {
    let mut end: *mut c_char = std::ptr::null_mut();
    set_errno(0);
    // SAFETY: a NUL-terminated string and a place for the end pointer.
    let ours = unsafe { crt_strtod(s.as_ptr(), &raw mut end) };
    // SAFETY: end points into s.
    let ours = (
        ours.to_bits(),
        unsafe { end.offset_from(s.as_ptr()) },
        errno(),
    );
    // SAFETY: the host's errno location is valid for this thread.
    unsafe { *libc::__errno_location() = 0 };
    // SAFETY: as for ours.
    let theirs = unsafe { libc::strtod(s.as_ptr(), &raw mut end) };
    // SAFETY: as above.
    let theirs = (
        theirs.to_bits(),
        unsafe { end.offset_from(s.as_ptr()) },
        unsafe { *libc::__errno_location() },
    );
    (ours, theirs)
}

/// Asserts ours and glibc's strtod agree on s (NaN payloads aside).
fn same_strtod(s: &str) {
    let c = CString::new(s).unwrap();
    let (mut ours, mut theirs) = both_strtod(&c);
    if f64::from_bits(ours.0).is_nan() && f64::from_bits(theirs.0).is_nan() {
        ours.0 &= 1 << 63;
        theirs.0 &= 1 << 63;
    }
    assert_eq!(
        ours,
        theirs,
        "strtod({s:?}): ours {:e}, glibc {:e}",
        f64::from_bits(ours.0),
        f64::from_bits(theirs.0)
    );
}

/// Asserts ours and glibc's strtof agree on s.
fn same_strtof(s: &str) {
    let c = CString::new(s).unwrap();
    let mut end1: *mut c_char = std::ptr::null_mut();
    let mut end2: *mut c_char = std::ptr::null_mut();
    set_errno(0);
    // SAFETY: a NUL-terminated string and a place for the end pointer.
    let a = unsafe { crt_strtof(c.as_ptr(), &raw mut end1) };
    let e1 = errno();
    // SAFETY: the host's errno location is valid for this thread.
    unsafe { *libc::__errno_location() = 0 };
    // SAFETY: as above.
    let b = unsafe { libc::strtof(c.as_ptr(), &raw mut end2) };
    // SAFETY: as above.
    let e2 = unsafe { *libc::__errno_location() };
    // NaN payloads (glibc keeps nan(123)'s) aside, only the sign counts.
    let bits = |x: f32| {
        if x.is_nan() {
            x.to_bits() & (1 << 31) | 1
        } else {
            x.to_bits()
        }
    };
    assert_eq!(
        (bits(a), end1, e1),
        (bits(b), end2, e2),
        "strtof({s:?}): {a:e} vs {b:e}"
    );
}

/// glibc's %.*g of v.
fn glibc_g(prec: i32, v: f64) -> String {
    let mut buf = [0u8; 64];
    // SAFETY: 64 bytes is room for %.*g with prec <= 40.
    unsafe { libc::snprintf(buf.as_mut_ptr().cast(), 64, c"%.*g".as_ptr(), prec, v) };
    text(&buf)
}

const EDGE_CASES: &[&str] = &[
    "0",
    "-0",
    "+0",
    "0.0",
    "  \t\n-0.0e10",
    "1",
    "-1",
    "1.5",
    ".5",
    "5.",
    "-.5e-1",
    "1e",
    "1e+",
    "1e-",
    "1ex",
    "1.e5",
    "0x",
    "0x.",
    "0xg",
    "0x.p1",
    ".",
    "-.",
    "+.e1",
    "",
    "   ",
    "e5",
    "abc",
    "-",
    "+",
    "123abc",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "1e308",
    "1e309",
    "-1e309",
    "1e400",
    "1e-400",
    "-1e-400",
    "1e-320",
    "4.9406564584124654e-324",
    "2.4703282292062327e-324",
    "2.4703282292062328e-324",
    "2.2250738585072011e-308",
    "2.2250738585072012e-308",
    "2.2250738585072014e-308",
    "9007199254740993",
    "9007199254740995",
    "9007199254740993.0000000000000000000000000000001",
    "0.1",
    "0.2",
    "0.3",
    "3.14159265358979323846",
    "123456789012345678901234567890",
    "1e23",
    "8.98846567431158e307",
    "0.000000000000000000001e21",
    "00000000000000000000000000001",
    "1000000000000000000000000000000000e-33",
    "7.038531e-26",
    "inf",
    "INF",
    "-inf",
    "+Inf",
    "infinity",
    "-INFINITY",
    "infinit",
    "infx",
    "in",
    "nan",
    "-nan",
    "NaN",
    "nan()",
    "nan(123)",
    "nan(abc_DEF)",
    "nan(",
    "nan(12",
    "nan(a b)",
    "nanx",
    "na",
    "0x1p0",
    "0x1P-1",
    "0X1.8p1",
    "0x.8p1",
    "0x1.fffffffffffffp1023",
    "0x1.fffffffffffff8p1023",
    "0x1p1024",
    "0x1p-1022",
    "0x1p-1074",
    "0x1p-1075",
    "0x1.8p-1075",
    "0x1.0000000000001p-1075",
    "0x1p-1076",
    "0x0.0000000000001p-1022",
    "0x1.00000000000008p0",
    "0x1.00000000000018p0",
    "0x1.000000000000080000000001p0",
    "0x1.ffffffffffffffffffffp0",
    "0x123456789abcdef0123p0",
    "-0x1.abcp+10",
    "0x1p",
    "0x1p+",
    "0x1pz",
    "0xABCDEF.abcdefp-20",
    "0x0",
    "-0x0p0",
    "1e2147483648",
    "1e-2147483649",
    "1e99999999999999999999",
    "0e99999",
    "0.0000e-99999",
];

#[test]
fn strtod_edge_cases() {
    let _g = lock();
    for s in EDGE_CASES {
        same_strtod(s);
        same_strtof(s);
    }
}

#[test]
fn strtod_long_inputs_round_exactly() {
    let _g = lock();
    // Halfway between 1 and its successor, then just above and below.
    let half = "1.00000000000000011102230246251565404236316680908203125";
    same_strtod(half);
    same_strtod(&format!("{half}000000000000000000000000000000001"));
    same_strtod("1.00000000000000011102230246251565404236316680908203124999999999999999");
    // The smallest subnormal's halfway point, exactly and with more digits.
    let tiny = format!(
        "2.{}e-324",
        "4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125"
    );
    same_strtod(&tiny);
    same_strtod(&format!("{}1e-324", &tiny[..tiny.len() - 5]));
    same_strtod(&format!("0.{}1", "0".repeat(2000)));
    same_strtod(&format!("{}.5", "9".repeat(400)));
    same_strtod(&format!("{}e-1000", "1".repeat(1000)));
}

#[test]
fn printed_doubles_read_back_exactly() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0010);
    for _ in 0..30_000 {
        let v = rng.double();
        if !v.is_finite() {
            continue;
        }
        let s = glibc_g(17, v);
        let c = CString::new(s.as_str()).unwrap();
        // SAFETY: a NUL-terminated string.
        let back = unsafe { crt_strtod(c.as_ptr(), std::ptr::null_mut()) };
        assert_eq!(back.to_bits(), v.to_bits(), "strtod({s:?})");
        same_strtod(&glibc_g(rng.below(17) as i32 + 1, v));
    }
}

#[test]
fn random_decimal_strings_match_glibc() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0011);
    for _ in 0..30_000 {
        let digits = 1 + rng.below(40) as usize;
        let mut s = String::new();
        if rng.below(3) == 0 {
            s.push('-');
        }
        let point = rng.below(digits as u64 + 1) as usize;
        for i in 0..digits {
            if i == point {
                s.push('.');
            }
            s.push(char::from(b'0' + rng.below(10) as u8));
        }
        if rng.below(4) != 0 {
            s += &format!("e{}", rng.below(680) as i64 - 350);
        }
        same_strtod(&s);
        same_strtof(&s);
    }
}

/// The exact value m * 2^e2 rounded to a format of `mbits` explicit
/// significand bits and `ebits` exponent bits, to nearest with ties to
/// even: the test's own reference for hexadecimal input (glibc 2.36's
/// strtof rounds some subnormal hexadecimal input wrongly: it reads
/// 0x5b77.4ecp-141, which is 5994318.75 times 2^-149, as 5994318 times
/// 2^-149).
fn reference_bits(m: u128, e2: i64, mbits: u32, ebits: u32) -> u64 {
    if m == 0 {
        return 0;
    }
    let bias = (1i64 << (ebits - 1)) - 1;
    let emin = 1 - bias;
    let msb = 127 - i64::from(m.leading_zeros());
    let e = msb + e2;
    let inf = ((1u64 << ebits) - 1) << mbits;
    if e > bias {
        return inf;
    }
    // The exponent of the last kept bit.
    let lsb = (e.max(emin)) - i64::from(mbits);
    let drop = lsb - e2;
    let mut kept = if drop <= 0 {
        m << (-drop)
    } else if drop > 127 {
        0
    } else {
        let rem = m & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        let q = m >> drop;
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    let mut e = e.max(emin);
    if kept >> (mbits + 1) != 0 {
        kept >>= 1;
        e += 1;
    }
    if e > bias {
        return inf;
    }
    if kept >> mbits == 0 {
        return kept as u64; // subnormal (or zero)
    }
    (kept as u64 & ((1u64 << mbits) - 1)) | (((e + bias) as u64) << mbits)
}

#[test]
fn random_hex_strings_round_exactly() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0012);
    for _ in 0..10_000 {
        let digits = 1 + rng.below(24) as usize;
        let mut s = String::from("0x");
        for _ in 0..digits {
            s.push(char::from_digit(rng.below(16) as u32, 16).unwrap());
        }
        if rng.below(2) == 0 {
            s.insert(2 + rng.below(digits as u64) as usize, '.');
        }
        let p = rng.below(2300) as i64 - 1150;
        s += &format!("p{p}");
        let hex: String = s[2..]
            .chars()
            .filter(|&c| c != '.' && c != 'p')
            .take(digits)
            .collect();
        let m = u128::from_str_radix(&hex, 16).unwrap();
        let frac_digits = s
            .find('.')
            .map_or(0, |dot| (s.find('p').unwrap() - dot - 1) as i64);
        let e2 = p - 4 * frac_digits;
        let c = CString::new(s.as_str()).unwrap();
        // SAFETY: NUL-terminated strings.
        let (d, f) = unsafe {
            (
                crt_strtod(c.as_ptr(), std::ptr::null_mut()),
                crt_strtof(c.as_ptr(), std::ptr::null_mut()),
            )
        };
        assert_eq!(d.to_bits(), reference_bits(m, e2, 52, 11), "strtod({s:?})");
        assert_eq!(
            u64::from(f.to_bits()),
            reference_bits(m, e2, 23, 8),
            "strtof({s:?})"
        );
        same_strtod(&s);
    }
}

#[test]
fn atof_reads_a_prefix() {
    let _g = lock();
    // SAFETY: NUL-terminated strings.
    unsafe {
        assert_eq!(crt_atof(c"  -12.5e1xyz".as_ptr()), -125.0);
        assert_eq!(crt_atof(c"junk".as_ptr()), 0.0);
        assert_eq!(crt_atof(c"0x10".as_ptr()), 16.0);
    }
}
