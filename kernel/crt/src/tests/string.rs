// SPDX-License-Identifier: MIT OR Apache-2.0
//! string.h and strings.h compared with glibc.

use std::ffi::{CStr, CString, c_char, c_int};
use std::string::String;
use std::vec::Vec;

use super::ffi::*;
use super::format::SplitMix;
use super::hooks::lock;

/// The sign of a comparison result.
fn sign(v: c_int) -> c_int {
    v.signum()
}

/// Offset of a result pointer from base, or None for NULL.
fn offset(p: *const c_char, base: *const c_char) -> Option<isize> {
    // SAFETY: non-null results point into base's string.
    (!p.is_null()).then(|| unsafe { p.offset_from(base) })
}

/// Strings over a small alphabet, so that searches hit and miss.
fn random_string(rng: &mut SplitMix, max: u64) -> CString {
    let alphabet = b"abcAB \x80\xff";
    let s: Vec<u8> = (0..rng.below(max))
        .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
        .collect();
    CString::new(s).unwrap()
}

#[test]
fn searches_and_comparisons_match_glibc() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0030);
    for _ in 0..20_000 {
        let a = random_string(&mut rng, 12);
        let b = random_string(&mut rng, 4);
        let n = rng.below(14) as usize;
        let c = [b'a', b'B', b' ', 0x80, 0xff, 0, b'z'][rng.below(7) as usize] as c_int;
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        // SAFETY: NUL-terminated strings; lengths within them or bounded by NUL.
        unsafe {
            assert_eq!(crt_strlen(pa), libc::strlen(pa));
            assert_eq!(crt_strnlen(pa, n), libc::strnlen(pa, n));
            assert_eq!(
                sign(crt_strcmp(pa, pb)),
                sign(libc::strcmp(pa, pb)),
                "{a:?} {b:?}"
            );
            assert_eq!(sign(crt_strcoll(pa, pb)), sign(libc::strcmp(pa, pb)));
            assert_eq!(sign(crt_strncmp(pa, pb, n)), sign(libc::strncmp(pa, pb, n)));
            assert_eq!(
                sign(crt_strcasecmp(pa, pb)),
                sign(libc::strcasecmp(pa, pb)),
                "{a:?} {b:?}"
            );
            assert_eq!(
                sign(crt_strncasecmp(pa, pb, n)),
                sign(libc::strncasecmp(pa, pb, n))
            );
            assert_eq!(
                offset(crt_strchr(pa, c), pa),
                offset(libc::strchr(pa, c), pa),
                "{a:?} {c}"
            );
            assert_eq!(
                offset(crt_strrchr(pa, c), pa),
                offset(libc::strrchr(pa, c), pa)
            );
            assert_eq!(
                offset(crt_strstr(pa, pb), pa),
                offset(libc::strstr(pa, pb), pa),
                "{a:?} {b:?}"
            );
            assert_eq!(crt_strspn(pa, pb), libc::strspn(pa, pb));
            assert_eq!(crt_strcspn(pa, pb), libc::strcspn(pa, pb));
            assert_eq!(
                offset(crt_strpbrk(pa, pb), pa),
                offset(libc::strpbrk(pa, pb), pa)
            );
            let len = libc::strlen(pa) + 1;
            let m = n.min(len);
            assert_eq!(
                offset(crt_memchr(pa.cast(), c, m).cast(), pa),
                offset(libc::memchr(pa.cast(), c, m).cast(), pa)
            );
        }
    }
}

#[test]
fn copies_and_concatenations() {
    let _g = lock();
    // SAFETY: the buffers are large enough for every copy below.
    unsafe {
        let mut buf = [0x55u8 as c_char; 32];
        let d = buf.as_mut_ptr();
        assert_eq!(crt_strcpy(d, c"hello".as_ptr()), d);
        assert_eq!(CStr::from_ptr(d), c"hello");
        assert_eq!(crt_strcat(d, c", world".as_ptr()), d);
        assert_eq!(CStr::from_ptr(d), c"hello, world");
        assert_eq!(crt_strncat(d, c"!!!".as_ptr(), 2), d);
        assert_eq!(CStr::from_ptr(d), c"hello, world!!");
        crt_strncat(d, c"".as_ptr(), 5);
        assert_eq!(CStr::from_ptr(d), c"hello, world!!");
        let mut buf = [0x55u8 as c_char; 12];
        let d = buf.as_mut_ptr();
        assert_eq!(crt_strncpy(d, c"abc".as_ptr(), 8), d);
        assert_eq!(
            &buf[..9].iter().map(|&c| c as u8).collect::<Vec<_>>(),
            b"abc\0\0\0\0\0\x55",
            "pads with NUL to n"
        );
        crt_strncpy(buf.as_mut_ptr(), c"abcdefgh".as_ptr(), 4);
        assert_eq!(
            &buf[..5].iter().map(|&c| c as u8).collect::<Vec<_>>(),
            b"abcd\0",
            "no terminator past n"
        );
    }
}

#[test]
fn strdup_and_strndup_allocate_copies() {
    let _g = lock();
    // SAFETY: the results are live copies, freed once.
    unsafe {
        let p = crt_strdup(c"duplicate me".as_ptr());
        assert_eq!(CStr::from_ptr(p), c"duplicate me");
        crt_free(p.cast());
        let p = crt_strndup(c"duplicate me".as_ptr(), 9);
        assert_eq!(CStr::from_ptr(p), c"duplicate");
        crt_free(p.cast());
        let p = crt_strndup(c"ab".as_ptr(), 9);
        assert_eq!(CStr::from_ptr(p), c"ab");
        crt_free(p.cast());
    }
}

#[test]
fn strtok_and_strtok_r_split_tokens() {
    let _g = lock();
    let tokens = |s: &str, delims: &CStr, reentrant: bool| -> Vec<String> {
        let mut owned = CString::new(s).unwrap().into_bytes_with_nul();
        let mut out = Vec::new();
        let mut save: *mut c_char = std::ptr::null_mut();
        let mut next = owned.as_mut_ptr().cast::<c_char>();
        loop {
            // SAFETY: a writable NUL-terminated string, then NULL to continue.
            let t = unsafe {
                if reentrant {
                    crt_strtok_r(next, delims.as_ptr(), &raw mut save)
                } else {
                    crt_strtok(next, delims.as_ptr())
                }
            };
            if t.is_null() {
                break;
            }
            // SAFETY: tokens are NUL-terminated inside owned.
            out.push(unsafe { CStr::from_ptr(t) }.to_string_lossy().into_owned());
            next = std::ptr::null_mut();
        }
        out
    };
    for reentrant in [false, true] {
        assert_eq!(tokens("  a,b ,,c  ", c" ,", reentrant), ["a", "b", "c"]);
        assert_eq!(tokens("", c" ", reentrant), Vec::<String>::new());
        assert_eq!(tokens(",,,", c",", reentrant), Vec::<String>::new());
        assert_eq!(tokens("one", c",", reentrant), ["one"]);
        assert_eq!(tokens("x-y", c"", reentrant), ["x-y"]);
    }
}

#[test]
fn strerror_matches_glibc_for_every_defined_errno() {
    let _g = lock();
    for e in [
        0, 1, 2, 4, 5, 9, 11, 12, 13, 14, 16, 17, 22, 28, 33, 34, 38, 75, 84, 95, 110,
    ] {
        // SAFETY: both return static strings.
        let (ours, theirs) = unsafe {
            (
                CStr::from_ptr(crt_strerror(e)),
                CStr::from_ptr(libc::strerror(e)),
            )
        };
        assert_eq!(ours, theirs, "errno {e}");
    }
    // SAFETY: a static string.
    let unknown = unsafe { CStr::from_ptr(crt_strerror(9999)) };
    assert_eq!(unknown, c"Unknown error");
}
