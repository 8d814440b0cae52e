// SPDX-License-Identifier: MIT OR Apache-2.0
//! complex.h: the parts, the conjugate and the absolute value, against
//! the host's C library. A `double _Complex` is passed as two doubles,
//! as a `#[repr(C)]` pair of them is on x86-64.

/// `double _Complex`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
struct C64 {
    re: f64,
    im: f64,
}

/// `float _Complex`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
struct C32 {
    re: f32,
    im: f32,
}

unsafe extern "C" {
    fn crt_creal(z: C64) -> f64;
    fn crt_cimag(z: C64) -> f64;
    fn crt_crealf(z: C32) -> f32;
    fn crt_cimagf(z: C32) -> f32;
    fn crt_conj(z: C64) -> C64;
    fn crt_conjf(z: C32) -> C32;
    fn crt_cabs(z: C64) -> f64;
    fn crt_cabsf(z: C32) -> f32;
    fn cabs(z: C64) -> f64;
    fn crt__muldc3(a: f64, b: f64, c: f64, d: f64) -> C64;
    fn crt__divdc3(a: f64, b: f64, c: f64, d: f64) -> C64;
    fn crt__mulsc3(a: f32, b: f32, c: f32, d: f32) -> C32;
    fn crt__divsc3(a: f32, b: f32, c: f32, d: f32) -> C32;
    fn crt_copysignf(x: f32, y: f32) -> f32;
}

#[test]
fn parts_and_conjugates() {
    let z = C64 { re: 1.5, im: -2.25 };
    let w = C32 { re: -3.0, im: 0.5 };
    // SAFETY: plain functions of values.
    unsafe {
        assert_eq!((crt_creal(z), crt_cimag(z)), (1.5, -2.25));
        assert_eq!((crt_crealf(w), crt_cimagf(w)), (-3.0, 0.5));
        assert_eq!(crt_conj(z), C64 { re: 1.5, im: 2.25 });
        assert_eq!(crt_conjf(w), C32 { re: -3.0, im: -0.5 });
    }
}

#[test]
fn absolute_values_match_the_host_without_overflow() {
    let cases = [
        (3.0, 4.0),
        (0.0, 0.0),
        (-1e300, 1e300),
        (1e-310, -1e-310),
        (f64::INFINITY, 1.0),
        (2.0, -0.0),
    ];
    for (re, im) in cases {
        let z = C64 { re, im };
        // SAFETY: plain functions of values.
        let (ours, theirs) = unsafe { (crt_cabs(z), cabs(z)) };
        assert!(
            ours == theirs || ((ours - theirs) / theirs).abs() < 1e-15,
            "cabs({re}, {im}): {ours} vs {theirs}"
        );
    }
    // SAFETY: as above.
    assert_eq!(unsafe { crt_cabsf(C32 { re: 3.0, im: 4.0 }) }, 5.0);
}

#[test]
fn multiplication_and_division_as_gcc_calls_them() {
    // SAFETY: plain functions of values.
    unsafe {
        assert_eq!(crt__muldc3(1.0, 2.0, 3.0, 4.0), C64 { re: -5.0, im: 10.0 });
        assert_eq!(crt__mulsc3(0.0, 1.0, 0.0, 1.0), C32 { re: -1.0, im: 0.0 });
        assert_eq!(crt__divdc3(-5.0, 10.0, 3.0, 4.0), C64 { re: 1.0, im: 2.0 });
        assert_eq!(crt__divsc3(1.0, 0.0, 0.0, 2.0), C32 { re: 0.0, im: -0.5 });
        // Annex G: an infinite operand gives an infinite product, not NaN.
        let inf = crt__muldc3(f64::INFINITY, f64::NAN, 1.0, 1.0);
        assert!(inf.re.is_infinite() || inf.im.is_infinite(), "{inf:?}");
        // A finite number over zero is infinite.
        let big = crt__divdc3(1.0, 1.0, 0.0, 0.0);
        assert!(big.re.is_infinite() && big.im.is_infinite(), "{big:?}");
        // Smith's scaling: no overflow in the intermediate products.
        let q = crt__divdc3(1e300, 1e300, 1e300, 1e300);
        assert_eq!(q, C64 { re: 1.0, im: 0.0 });
        assert_eq!(crt_copysignf(2.0, -0.0), -2.0);
    }
}
