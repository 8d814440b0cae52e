// SPDX-License-Identifier: MIT OR Apache-2.0
//! math.h compared with Rust's (correctly rounded, exact) f64 operations.

use super::ffi::*;
use super::format::SplitMix;
use super::hooks::lock;

/// Equal bits, or both NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

const SPECIAL: [f64; 16] = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.5,
    -2.5,
    2.5,
    0.49999999999999994,
    4503599627370495.5,
    1e300,
    -1e-300,
    5e-324,
    f64::MAX,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

#[test]
fn exact_functions_match_rust() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0040);
    let values = SPECIAL.into_iter().chain((0..50_000).map(|_| rng.double()));
    for x in values {
        // SAFETY: pure functions.
        unsafe {
            assert!(same(crt_fabs(x), x.abs()), "fabs({x:e})");
            assert!(same(crt_floor(x), x.floor()), "floor({x:e})");
            assert!(same(crt_ceil(x), x.ceil()), "ceil({x:e})");
            assert!(same(crt_trunc(x), x.trunc()), "trunc({x:e})");
            assert!(same(crt_round(x), x.round()), "round({x:e})");
            assert!(same(crt_sqrt(x), x.sqrt()), "sqrt({x:e})");
            assert!(
                same(crt_copysign(1.0, x), 1f64.copysign(x)),
                "copysign(1, {x:e})"
            );
            let f = x as f32;
            assert!(crt_fabsf(f).to_bits() == f.abs().to_bits() || f.is_nan());
            assert!(
                crt_sqrtf(f).to_bits() == f.sqrt().to_bits() || f.sqrt().is_nan(),
                "sqrtf({f:e})"
            );
        }
    }
}

#[test]
fn fmod_is_exact() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0041);
    for i in 0..50_000 {
        let (x, y) = if i < 256 {
            (SPECIAL[i % 16], SPECIAL[i / 16])
        } else {
            (rng.double(), rng.double())
        };
        set_errno(0);
        // SAFETY: a pure function (apart from errno).
        let r = unsafe { crt_fmod(x, y) };
        assert!(
            same(r, x % y),
            "fmod({x:e}, {y:e}) = {r:e}, not {:e}",
            x % y
        );
        let domain = !x.is_nan() && !y.is_nan() && (x.is_infinite() || y == 0.0);
        assert_eq!(
            errno(),
            if domain { 33 } else { 0 },
            "errno of fmod({x:e}, {y:e})"
        );
    }
}

/// The distance from `a` to `b` in units of `b`'s last place.
fn ulps(a: f64, b: f64) -> f64 {
    let ulp = if b == 0.0 {
        f64::from_bits(1)
    } else {
        f64::from_bits(b.abs().to_bits() + 1) - b.abs()
    };
    (a - b).abs() / ulp
}

#[test]
fn sin_and_cos_on_the_x87() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0042);
    // Exact cases first, then random arguments of every size below 2^63.
    // SAFETY: pure functions.
    unsafe {
        assert!(same(crt_sin(0.0), 0.0) && same(crt_sin(-0.0), -0.0));
        assert_eq!(crt_cos(0.0), 1.0);
        assert!(ulps(crt_sin(1.0), 1f64.sin()) <= 1.0);
        assert!(ulps(crt_cos(1.0), 1f64.cos()) <= 1.0);
        assert!(ulps(crt_sin(std::f64::consts::FRAC_PI_6), 0.5) <= 1.0);
    }
    for i in 0..50_000 {
        let scale = [1.0, 8.0, 1e3, 1e6, 1e12, 1e18][i % 6];
        let x = (unit(&mut rng) * 2.0 - 1.0) * scale;
        // SAFETY: pure functions.
        let (s, c) = unsafe { (crt_sin(x), crt_cos(x)) };
        // One ulp of rounding, and the x87's reduction by a 66-bit pi.
        let allowed = |r: f64| r.abs() * 2f64.powi(-52) + x.abs() * 2f64.powi(-62) + 1e-300;
        assert!(
            (s - x.sin()).abs() <= allowed(x.sin()),
            "sin({x:e}) = {s:e}, not {:e}",
            x.sin()
        );
        assert!(
            (c - x.cos()).abs() <= allowed(x.cos()),
            "cos({x:e}) = {c:e}, not {:e}",
            x.cos()
        );
    }
    for x in [9.3e18, -1e19, 1e300, f64::MAX] {
        // SAFETY: pure functions.
        let (s, c) = unsafe { (crt_sin(x), crt_cos(x)) };
        assert!(
            (-1.0..=1.0).contains(&s) && (-1.0..=1.0).contains(&c),
            "{x:e}: {s} {c}"
        );
        assert!(
            (s * s + c * c - 1.0).abs() < 1e-15,
            "sin^2 + cos^2 of {x:e}"
        );
    }
    for x in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        set_errno(0);
        // SAFETY: pure functions (apart from errno).
        let (s, c) = unsafe { (crt_sin(x), crt_cos(x)) };
        assert!(s.is_nan() && c.is_nan(), "sin and cos of {x}");
        assert_eq!(errno(), if x.is_nan() { 0 } else { 33 }, "errno of {x}");
    }
}

#[test]
fn exp_on_the_x87() {
    let _g = lock();
    let mut rng = SplitMix(0x5eed_0043);
    // SAFETY: pure functions.
    unsafe {
        assert_eq!(crt_exp(0.0), 1.0);
        assert_eq!(crt_exp(-0.0), 1.0);
        assert!(ulps(crt_exp(1.0), std::f64::consts::E) <= 1.0);
        assert_eq!(crt_exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(crt_exp(f64::INFINITY), f64::INFINITY);
        assert!(crt_exp(f64::NAN).is_nan());
    }
    for i in 0..50_000 {
        let scale = [1.0, 1e-8, 30.0, 700.0][i % 4];
        let x = (unit(&mut rng) * 2.0 - 1.0) * scale;
        // SAFETY: a pure function.
        let e = unsafe { crt_exp(x) };
        assert!(
            ulps(e, x.exp()) <= 1.0,
            "exp({x:e}) = {e:e}, not {:e}",
            x.exp()
        );
    }
    for (x, overflow) in [
        (709.79, true),
        (1e10, true),
        (-745.2, false),
        (-1e10, false),
    ] {
        set_errno(0);
        // SAFETY: a pure function (apart from errno).
        let e = unsafe { crt_exp(x) };
        assert_eq!(e, if overflow { f64::INFINITY } else { 0.0 }, "exp({x})");
        assert_eq!(errno(), 34, "errno of exp({x})");
    }
    // SAFETY: a pure function (apart from errno).
    let sub = unsafe { crt_exp(-740.0) };
    assert!(sub > 0.0 && sub < f64::MIN_POSITIVE && ulps(sub, (-740f64).exp()) <= 1.0);
}

/// A double uniform in [0, 1).
fn unit(rng: &mut SplitMix) -> f64 {
    (rng.next_u64() >> 11) as f64 * 2f64.powi(-53)
}
