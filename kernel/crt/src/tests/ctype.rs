// SPDX-License-Identifier: MIT OR Apache-2.0
//! ctype.h compared with glibc's "C" locale for EOF and every byte.

use std::ffi::c_int;

use super::ffi::*;
use super::hooks::lock;

#[test]
fn every_class_matches_the_c_locale() {
    let _g = lock();
    type Class = unsafe extern "C" fn(c_int) -> c_int;
    let pairs: [(&str, Class, Class); 14] = [
        ("isalnum", crt_isalnum, libc::isalnum),
        ("isalpha", crt_isalpha, libc::isalpha),
        ("isblank", crt_isblank, libc::isblank),
        ("iscntrl", crt_iscntrl, libc::iscntrl),
        ("isdigit", crt_isdigit, libc::isdigit),
        ("isgraph", crt_isgraph, libc::isgraph),
        ("islower", crt_islower, libc::islower),
        ("isprint", crt_isprint, libc::isprint),
        ("ispunct", crt_ispunct, libc::ispunct),
        ("isspace", crt_isspace, libc::isspace),
        ("isupper", crt_isupper, libc::isupper),
        ("isxdigit", crt_isxdigit, libc::isxdigit),
        ("tolower", crt_tolower, libc::tolower),
        ("toupper", crt_toupper, libc::toupper),
    ];
    for (name, ours, theirs) in pairs {
        for c in -1..=255 {
            // SAFETY: EOF and unsigned char values are valid arguments.
            let (a, b) = unsafe { (ours(c), theirs(c)) };
            if name.starts_with("to") {
                assert_eq!(a, b, "{name}({c})");
            } else {
                assert_eq!(a != 0, b != 0, "{name}({c})");
            }
        }
    }
}
