// SPDX-License-Identifier: MIT OR Apache-2.0
//! The small stdlib.h functions: abs and div families, qsort, bsearch,
//! rand, getenv.

use std::ffi::{c_int, c_void};
use std::vec::Vec;

use super::ffi::*;
use super::format::SplitMix;
use super::hooks::{is_child, lock, run_child};

#[test]
fn abs_and_div_families() {
    let _g = lock();
    // SAFETY: pure functions with valid arguments.
    unsafe {
        assert_eq!((crt_abs(-5), crt_abs(5), crt_abs(0)), (5, 5, 0));
        assert_eq!(crt_labs(i64::MIN + 1), i64::MAX);
        assert_eq!(crt_llabs(-7), 7);
        assert_eq!(crt_imaxabs(-9), 9);
        for (n, d) in [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (i32::MAX, 1)] {
            assert_eq!(
                crt_div(n, d),
                DivT {
                    quot: n / d,
                    rem: n % d
                },
                "div({n}, {d})"
            );
            let (n, d) = (i64::from(n) * 1_000_000_007, i64::from(d));
            assert_eq!(
                crt_ldiv(n, d),
                LdivT {
                    quot: n / d,
                    rem: n % d
                }
            );
            assert_eq!(
                crt_lldiv(n, d),
                LldivT {
                    quot: n / d,
                    rem: n % d
                }
            );
            assert_eq!(
                crt_imaxdiv(n, d),
                LldivT {
                    quot: n / d,
                    rem: n % d
                }
            );
        }
    }
}

unsafe extern "C" fn cmp_i32(a: *const c_void, b: *const c_void) -> c_int {
    // SAFETY: qsort and bsearch pass pointers to elements (i32 here).
    let (a, b) = unsafe { (a.cast::<i32>().read(), b.cast::<i32>().read()) };
    a.cmp(&b) as c_int
}

/// A 24-byte record ordered by its key, to sort elements wider than words.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    key: u64,
    payload: [u32; 4],
}

unsafe extern "C" fn cmp_record(a: *const c_void, b: *const c_void) -> c_int {
    // SAFETY: elements are Records.
    let (a, b) = unsafe { (&*a.cast::<Record>(), &*b.cast::<Record>()) };
    a.key.cmp(&b.key) as c_int
}

unsafe extern "C" fn cmp_u8(a: *const c_void, b: *const c_void) -> c_int {
    // SAFETY: elements are bytes.
    let (a, b) = unsafe { (a.cast::<u8>().read(), b.cast::<u8>().read()) };
    c_int::from(a) - c_int::from(b)
}

#[test]
fn qsort_sorts_like_rust() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0050);
    for n in (0..200).chain([1000, 4097]) {
        let mut v: Vec<i32> = (0..n).map(|_| (rng.next_u64() % 100) as i32 - 50).collect();
        let mut expected = v.clone();
        expected.sort();
        // SAFETY: v holds n i32s.
        unsafe { crt_qsort(v.as_mut_ptr().cast(), v.len(), 4, cmp_i32) };
        assert_eq!(v, expected, "n = {n}");
        let mut r: Vec<Record> = (0..n)
            .map(|i| Record {
                key: rng.next_u64() % 1000,
                payload: [i as u32; 4],
            })
            .collect();
        let mut expected = r.clone();
        expected.sort_by_key(|x| x.key);
        // SAFETY: r holds n Records.
        unsafe {
            crt_qsort(
                r.as_mut_ptr().cast(),
                r.len(),
                size_of::<Record>(),
                cmp_record,
            )
        };
        assert_eq!(
            r.iter().map(|x| x.key).collect::<Vec<_>>(),
            expected.iter().map(|x| x.key).collect::<Vec<_>>()
        );
        assert!(
            r.iter()
                .all(|x| x.payload.iter().all(|&p| p == x.payload[0])),
            "records move whole"
        );
        let mut b: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        let mut expected = b.clone();
        expected.sort();
        // SAFETY: b holds n bytes.
        unsafe { crt_qsort(b.as_mut_ptr().cast(), b.len(), 1, cmp_u8) };
        assert_eq!(b, expected);
    }
}

#[test]
fn bsearch_finds_every_element_and_nothing_else() {
    let _g = lock();
    let v: Vec<i32> = (0..101).map(|i| i * 3).collect();
    for n in [0, 1, 2, 100, 101] {
        for key in -2..310 {
            // SAFETY: v holds at least n sorted i32s.
            let p =
                unsafe { crt_bsearch((&raw const key).cast(), v.as_ptr().cast(), n, 4, cmp_i32) };
            let expected = v[..n].iter().position(|&x| x == key);
            // SAFETY: a non-null result points into v.
            let got =
                (!p.is_null()).then(|| unsafe { p.cast::<i32>().offset_from(v.as_ptr()) } as usize);
            assert_eq!(got, expected, "key {key} in {n}");
        }
    }
}

/// The documented generator: state = state * 6364136223846793005 +
/// 1442695040888963407, output the top 31 bits.
fn model(state: &mut u64) -> c_int {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*state >> 33) as c_int
}

#[test]
fn rand_is_the_documented_lcg() {
    let _g = lock();
    for seed in [0u32, 1, 42, u32::MAX] {
        // SAFETY: plain calls.
        unsafe { crt_srand(seed) };
        let mut state = u64::from(seed);
        for _ in 0..1000 {
            // SAFETY: plain call.
            let r = unsafe { crt_rand() };
            assert_eq!(r, model(&mut state));
            assert!((0..=0x7fff_ffff).contains(&r));
        }
    }
}

#[test]
fn child_rand_default_seed() {
    if is_child("tests::misc::child_rand_default_seed") {
        let mut state = 1u64;
        // SAFETY: plain calls, before any srand in this process.
        let ok = (0..10).all(|_| unsafe { crt_rand() } == model(&mut state));
        // SAFETY: ends the child with the result.
        unsafe { crt_exit(if ok { 0 } else { 1 }) };
    }
}

#[test]
fn rand_starts_as_after_srand_1() {
    let out = run_child("tests::misc::child_rand_default_seed");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn getenv_finds_nothing() {
    let _g = lock();
    // SAFETY: NUL-terminated names.
    unsafe {
        assert!(crt_getenv(c"PATH".as_ptr()).is_null());
        assert!(crt_getenv(c"".as_ptr()).is_null());
    }
}

#[test]
fn every_public_symbol_is_renamed_on_the_host() {
    // The host library must define nothing under a C library name: such a
    // symbol would replace the host's in the whole test process.
    let archive = std::path::Path::new(env!("OUT_DIR")).join("libcrt.a");
    let out = std::process::Command::new("nm")
        .args(["--defined-only", "--extern-only", "--format=posix"])
        .arg(&archive)
        .output()
        .expect("nm runs");
    assert!(out.status.success());
    let text = std::string::String::from_utf8(out.stdout).unwrap();
    let symbols: Vec<&str> = text
        .lines()
        .filter(|l| !l.ends_with(':') && !l.is_empty())
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert!(
        symbols.contains(&"crt_printf") && symbols.contains(&"crt_errno"),
        "{symbols:?}"
    );
    let stray: Vec<&&str> = symbols
        .iter()
        .filter(|s| !s.starts_with("crt_") && !s.starts_with("__crt_"))
        .collect();
    assert!(stray.is_empty(), "not renamed: {stray:?}");
}

#[test]
fn page_size() {
    let _g = lock();
    // SAFETY: functions without pointer arguments.
    unsafe {
        assert_eq!(crt_getpagesize(), 4096);
        set_errno(0);
        assert_eq!(crt_sysconf(30), 4096, "_SC_PAGESIZE");
        assert_eq!(errno(), 0);
        assert_eq!(crt_sysconf(0), -1, "an unknown name");
        assert_eq!(errno(), 22, "EINVAL");
    }
}
