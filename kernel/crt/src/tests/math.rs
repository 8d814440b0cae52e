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
