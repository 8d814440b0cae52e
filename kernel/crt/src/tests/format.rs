// SPDX-License-Identifier: MIT OR Apache-2.0
//! Formatted output compared with the host's glibc: every conversion, flag
//! combination, width and precision, and many random values.

use std::ffi::{
    CString, c_char, c_double, c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong,
};
use std::string::String;
use std::vec::Vec;
use std::{format, vec};

use proptest::prelude::*;

use super::ffi::*;
use super::hooks::lock;

/// The text up to the first NUL.
pub fn text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Formats with ours and with glibc into 8 KiB buffers, and asserts both
/// give the same text and count.
macro_rules! same {
    ($fmt:expr $(, $arg:expr)* $(,)?) => {{
        let fmt: &str = &$fmt;
        let cfmt = CString::new(fmt).unwrap();
        let mut ours = vec![0u8; 8192];
        let mut theirs = vec![0u8; 8192];
        // SAFETY: buffers of the given length; the arguments match the format.
        let n1 = unsafe { crt_snprintf(ours.as_mut_ptr().cast(), ours.len(), cfmt.as_ptr() $(, $arg)*) };
        // SAFETY: as above.
        let n2 = unsafe { libc::snprintf(theirs.as_mut_ptr().cast(), theirs.len(), cfmt.as_ptr() $(, $arg)*) };
        assert_eq!((n1, text(&ours)), (n2, text(&theirs)), "format {fmt:?}");
    }};
}

/// Formats with ours only.
macro_rules! ours {
    ($fmt:expr $(, $arg:expr)* $(,)?) => {{
        let cfmt = CString::new($fmt).unwrap();
        let mut buf = vec![0u8; 8192];
        // SAFETY: a buffer of the given length; the arguments match the format.
        let n = unsafe { crt_snprintf(buf.as_mut_ptr().cast(), buf.len(), cfmt.as_ptr() $(, $arg)*) };
        (n, text(&buf))
    }};
}

/// Every subset of the five flags.
fn flag_sets() -> Vec<String> {
    let flags = ['-', '+', ' ', '#', '0'];
    (0..32u32)
        .map(|mask| {
            (0..5)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| flags[i])
                .collect()
        })
        .collect()
}

/// SplitMix64: a seeded generator for bulk comparisons.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below n.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A double of a mix of kinds: any bits, values of moderate size, short
    /// decimals, and values at and next to powers of ten and two.
    pub fn double(&mut self) -> f64 {
        match self.below(5) {
            0 => f64::from_bits(self.next_u64()),
            1 => {
                let m = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                m * 10f64.powi(self.below(40) as i32 - 20)
            }
            2 => {
                let digits = self.below(1_000_000) as f64;
                digits / 10f64.powi(self.below(8) as i32)
            }
            3 => {
                let p = 10f64.powi(self.below(600) as i32 - 300);
                let step = self.below(5) as i64 - 2;
                f64::from_bits((p.to_bits() as i64 + step) as u64)
            }
            _ => f64::from_bits(self.next_u64() & 0x800f_ffff_ffff_ffff),
        }
    }
}

#[test]
fn integers_every_flag_width_and_precision() {
    let _g = lock();
    let values: [c_int; 10] = [
        0,
        1,
        -1,
        7,
        42,
        -42,
        255,
        0x1234_abcd,
        c_int::MAX,
        c_int::MIN,
    ];
    for conv in ["d", "i", "u", "o", "x", "X"] {
        for flags in flag_sets() {
            for width in ["", "1", "6", "25"] {
                for prec in ["", ".", ".0", ".1", ".4", ".22"] {
                    let fmt = format!("[%{flags}{width}{prec}{conv}]");
                    for v in values {
                        same!(fmt, v);
                    }
                }
            }
        }
    }
}

#[test]
fn integer_length_modifiers() {
    let _g = lock();
    for flags in ["", "#", "+", "-8", "08", ".3"] {
        same!(
            format!("%{flags}hhd %{flags}hhu %{flags}hhx"),
            300 as c_int,
            511 as c_int,
            -1 as c_int
        );
        same!(
            format!("%{flags}hhi|%{flags}hho"),
            -200 as c_int,
            0x1ff as c_int
        );
        same!(
            format!("%{flags}hd %{flags}hu %{flags}hX"),
            70000 as c_int,
            -1 as c_int,
            0x12345 as c_int
        );
        same!(
            format!("%{flags}ld %{flags}lu %{flags}lx"),
            c_long::MIN,
            c_ulong::MAX,
            0xdead_beef as c_ulong
        );
        same!(
            format!("%{flags}lld %{flags}llu %{flags}llo"),
            c_longlong::MIN,
            c_ulonglong::MAX,
            c_ulonglong::MAX
        );
        same!(
            format!("%{flags}qd %{flags}qx"),
            -5 as c_longlong,
            1u64 << 40
        );
        same!(
            format!("%{flags}zu %{flags}zd %{flags}zx"),
            usize::MAX,
            -1isize,
            usize::MAX
        );
        same!(
            format!("%{flags}jd %{flags}ju %{flags}jx"),
            i64::MIN,
            u64::MAX,
            1u64 << 63
        );
        same!(format!("%{flags}td %{flags}tx"), isize::MIN, -1isize);
        same!(format!("%{flags}u %{flags}x"), c_uint::MAX, c_uint::MAX);
    }
}

#[test]
fn strings_chars_pointers_and_percent() {
    let _g = lock();
    let hello = c"hello, world";
    let empty = c"";
    let null: *const c_char = std::ptr::null();
    let ptr = 0x1234_5678usize as *const c_char;
    for flags in ["", "-", "0", "+", " ", "#"] {
        for width in ["", "3", "20"] {
            for prec in ["", ".", ".0", ".3", ".5", ".6", ".30"] {
                let spec = format!("%{flags}{width}{prec}");
                same!(format!("[{spec}s]"), hello.as_ptr());
                same!(format!("[{spec}s]"), empty.as_ptr());
                same!(format!("[{spec}s]"), null);
                if !prec.is_empty() {
                    continue;
                }
                same!(format!("[{spec}c]"), b'x' as c_int);
                same!(format!("[{spec}c]"), 0x141 as c_int);
                same!(format!("[{spec}p]"), ptr);
                same!(format!("[{spec}p]"), null);
            }
        }
    }
    same!("100%% sure, %d%%", 5 as c_int);
    same!("%5%|%-5%|");
    same!("plain text, no conversions");
    same!("%lc", b'A' as c_int);
    same!("%lf|%le|%lg|%lE|%la", 1.5, 2.5, 3.5, 4.5, 5.5);
    same!("%'d|%'.2f|%'x", 1_234_567 as c_int, 1234.5, 65535 as c_uint);
}

#[test]
fn star_width_and_precision() {
    let _g = lock();
    for w in [-12, -1, 0, 1, 9] {
        for p in [-3, 0, 2, 8] {
            same!("[%*d]", w as c_int, 42 as c_int);
            same!("[%*.*d]", w as c_int, p as c_int, -42 as c_int);
            same!("[%.*f]", p as c_int, 2.5625 as c_double);
            same!("[%*.*e]", w as c_int, p as c_int, -0.000123 as c_double);
            same!("[%-*.*s]", w as c_int, p as c_int, c"abcdef".as_ptr());
        }
    }
}

/// Values for the exhaustive float format grid.
const FLOATS: [f64; 32] = [
    0.0,
    -0.0,
    1.0,
    0.5,
    1.5,
    2.5,
    -3.5,
    0.125,
    0.1,
    0.05,
    0.15,
    0.25,
    2.0 / 3.0,
    9.5,
    999_999.5,
    9.999_999_5,
    1e-5,
    123_456_789.0,
    1e15 + 0.3,
    1e21,
    1e22,
    1e100,
    1e-300,
    5e-324,
    2.225_073_858_507_201e-308,
    f64::MAX,
    f64::MIN_POSITIVE,
    -1234.5678,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    -f64::NAN,
];

#[test]
fn floats_every_flag_width_and_precision() {
    let _g = lock();
    for conv in ["f", "F", "e", "E", "g", "G", "a", "A"] {
        for flags in flag_sets() {
            for width in ["", "12", "40"] {
                for prec in ["", ".", ".0", ".1", ".3", ".10", ".17", ".25"] {
                    let fmt = format!("[%{flags}{width}{prec}{conv}]");
                    for v in FLOATS {
                        if flags.contains('#') && (conv == "g" || conv == "G") {
                            same_as_defined_g(&flags, width, prec, conv, v);
                        } else {
                            same!(fmt, v);
                        }
                    }
                }
            }
        }
    }
}

/// `%#g` as C11 7.21.6.1 defines it, from glibc's `%e` and `%f`: glibc
/// 2.36 drops the zeros `#` must keep when rounding adds a digit (it
/// prints 999999.5 as `1.e+06` for `%#g`; the standard's `%#.5e` is
/// `1.00000e+06`).
fn same_as_defined_g(flags: &str, width: &str, prec: &str, conv: &str, v: f64) {
    let p: i32 = match prec {
        "" => 6,
        "." => 0,
        _ => prec[1..].parse().unwrap(),
    };
    let p = p.max(1);
    let mut buf = [0u8; 512];
    let e_fmt = CString::new(format!("%.{}e", p - 1)).unwrap();
    // SAFETY: 512 bytes of room for one double's %e.
    unsafe { libc::snprintf(buf.as_mut_ptr().cast(), 512, e_fmt.as_ptr(), v) };
    let e_text = text(&buf);
    let x: i32 = e_text
        .rsplit_once('e')
        .map_or(0, |(_, x)| x.parse().unwrap_or(0));
    let (upper, lower) = if conv == "G" { ("E", "F") } else { ("e", "f") };
    let defined = if !v.is_finite() || (p > x && x >= -4) {
        format!(
            "[%{flags}{width}.{}{lower}]",
            if v.is_finite() { p - 1 - x } else { p }
        )
    } else {
        format!("[%{flags}{width}.{}{upper}]", p - 1)
    };
    let mut theirs = vec![0u8; 8192];
    let cdef = CString::new(defined).unwrap();
    // SAFETY: 8 KiB of room.
    let n2 = unsafe { libc::snprintf(theirs.as_mut_ptr().cast(), theirs.len(), cdef.as_ptr(), v) };
    let fmt = format!("[%{flags}{width}{prec}{conv}]");
    assert_eq!(
        ours!(fmt.as_str(), v),
        (n2, text(&theirs)),
        "format {fmt:?} of {v:e}"
    );
}

#[test]
fn floats_at_huge_precision_are_exact() {
    let _g = lock();
    for v in [
        5e-324,
        1e-300,
        0.1,
        1e300,
        f64::MAX,
        2.0f64.powi(-1074) * 3.0,
        1.0 / 3.0,
    ] {
        same!("%.1100f", v);
        same!("%.800e", v);
        same!("%.770g", v);
        same!("%#.40g", v);
        same!("%.40a", v);
    }
}

#[test]
fn random_doubles_match_glibc() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0001);
    for _ in 0..20_000 {
        let v = rng.double();
        let p = rng.below(21) as c_int;
        same!("%.17g", v);
        same!("%g", v);
        same!("%.*e", p, v);
        same!("%.*g", p, v);
        same!("%a", v);
        let hex_prec = rng.below(15) as c_int;
        same!("%.*a", hex_prec, v);
        if v.abs() < 1e40 {
            let fixed_prec = p + rng.below(30) as c_int;
            same!("%.*f", fixed_prec, v);
        }
    }
}

#[test]
fn random_integers_match_glibc() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0002);
    let flags = flag_sets();
    for _ in 0..20_000 {
        let v = rng.next_u64() >> rng.below(64);
        let f = &flags[rng.below(32) as usize];
        let w = rng.below(25);
        let p = rng.below(25);
        same!(
            format!("%{f}{w}.{p}lld|%{f}{w}llu|%{f}{w}.{p}llx|%{f}llo"),
            v as i64,
            v,
            v,
            v
        );
        same!(
            format!("%{f}{w}d|%{f}.{p}u|%{f}X"),
            v as c_int,
            v as c_uint,
            v as c_uint
        );
    }
}

#[test]
fn long_double_arguments_are_formatted_as_doubles() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0003);
    for i in 0..2000 {
        let v = if let Some(&v) = FLOATS.get(i) {
            v
        } else {
            rng.double()
        };
        for fmt in [
            c"%Lf",
            c"%.20Le",
            c"%Lg",
            c"%.17Lg",
            c"%+12.3LF",
            c"%LE",
            c"%LG",
        ] {
            let mut ours = [0u8; 512];
            let mut theirs = [0u8; 512];
            // SAFETY: buffers of the given length; the helpers pass one long double.
            let (n1, n2) = unsafe {
                (
                    crt_test_format_long_double(ours.as_mut_ptr().cast(), 512, fmt.as_ptr(), v),
                    crt_test_glibc_format_long_double(
                        theirs.as_mut_ptr().cast(),
                        512,
                        fmt.as_ptr(),
                        v,
                    ),
                )
            };
            assert_eq!((n1, text(&ours)), (n2, text(&theirs)), "{fmt:?} of {v:e}");
        }
    }
}

#[test]
fn truncation_keeps_the_count_and_terminates() {
    let _g = lock();
    for n in 0..12usize {
        let mut ours = [0xaau8; 16];
        let mut theirs = [0xaau8; 16];
        let fmt = c"%s=%d";
        // SAFETY: n <= 16 bytes of room; the arguments match the format.
        let (n1, n2) = unsafe {
            (
                crt_snprintf(
                    ours.as_mut_ptr().cast(),
                    n,
                    fmt.as_ptr(),
                    c"value".as_ptr(),
                    12345 as c_int,
                ),
                libc::snprintf(
                    theirs.as_mut_ptr().cast(),
                    n,
                    fmt.as_ptr(),
                    c"value".as_ptr(),
                    12345 as c_int,
                ),
            )
        };
        assert_eq!(n1, 11);
        assert_eq!((n1, ours), (n2, theirs), "n = {n}");
    }
    // SAFETY: n = 0 writes nothing, so a null buffer is allowed.
    let n = unsafe { crt_snprintf(std::ptr::null_mut(), 0, c"%d".as_ptr(), 123_456 as c_int) };
    assert_eq!(n, 6);
}

#[test]
fn unsupported_conversions_are_written_literally() {
    let _g = lock();
    let mut count: c_int = 7;
    assert_eq!(ours!("a%nb", &raw mut count), (4, "a%nb".into()));
    assert_eq!(count, 7, "%n stores nothing");
    assert_eq!(ours!("x%yz%d", 5 as c_int), (5, "x%yz5".into()));
    assert_eq!(ours!("%ls|%d", 9 as c_int), (5, "%ls|9".into()));
    assert_eq!(ours!("100%"), (4, "100%".into()));
    assert_eq!(ours!("%-5"), (3, "%-5".into()));
}

#[test]
fn sprintf_vsprintf_and_inttypes_macros() {
    let _g = lock();
    let mut buf = [0u8; 64];
    // SAFETY: 64 bytes is room for the output; the arguments match.
    let n = unsafe {
        crt_sprintf(
            buf.as_mut_ptr().cast(),
            c"%s-%05.1f".as_ptr(),
            c"pi".as_ptr(),
            2.5625,
        )
    };
    assert_eq!((n, text(&buf)), (8, "pi-002.6".into()));
    // SAFETY: as above.
    let n = unsafe {
        crt_test_vsprintf(
            buf.as_mut_ptr().cast(),
            c"%x:%c".as_ptr(),
            255 as c_int,
            b'q' as c_int,
        )
    };
    assert_eq!((n, text(&buf)), (4, "ff:q".into()));
    let mut buf = [0u8; 128];
    // SAFETY: 128 bytes of room.
    let n = unsafe { crt_test_int64_format(buf.as_mut_ptr().cast(), 128, i64::MIN, u64::MAX) };
    let expected = format!(
        "{} {} {:x} {:X} {} {:o}",
        i64::MIN,
        u64::MAX,
        u64::MAX,
        u64::MAX,
        i64::MIN,
        u64::MAX
    );
    assert_eq!((n as usize, text(&buf)), (expected.len(), expected));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_double_any_precision(bits: u64, prec in 0..45i32, conv in 0..7usize, flags in 0..32usize) {
        let _g = lock();
        let conv = ["f", "e", "E", "g", "G", "a", "A"][conv];
        let f = &flag_sets()[flags];
        let v = f64::from_bits(bits);
        if f.contains('#') && (conv == "g" || conv == "G") {
            same_as_defined_g(f, "", &format!(".{prec}"), conv, v);
        } else if conv != "f" || v.abs() < 1e60 {
            same!(format!("%{f}.*{conv}"), prec as c_int, v);
        }
    }
}

#[test]
fn counts_past_int_max_are_eoverflow() {
    let _g = lock();
    set_errno(0);
    // SAFETY: n = 0 writes nothing; the arguments match the format.
    let n = unsafe {
        crt_snprintf(
            std::ptr::null_mut(),
            0,
            c"%2147483647d%d".as_ptr(),
            1 as c_int,
            2 as c_int,
        )
    };
    assert_eq!((n, errno()), (-1, 75));
    set_errno(0);
    // SAFETY: as above.
    let n = unsafe {
        crt_snprintf(
            std::ptr::null_mut(),
            0,
            c"%2147483646d%d".as_ptr(),
            1 as c_int,
            2 as c_int,
        )
    };
    assert_eq!((n, errno()), (c_int::MAX, 0));
}
