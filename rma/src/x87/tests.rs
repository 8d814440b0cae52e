// SPDX-License-Identifier: MIT OR Apache-2.0
use super::*;
use crate::{Accumulable, AccumulateOp};

/// The value (−1)^negative × significand × 2^(exponent − 16383 − 63).
fn x87(negative: bool, exponent: u16, significand: u64) -> X87 {
    let mut out = [0; 12];
    out[..8].copy_from_slice(&significand.to_le_bytes());
    out[8..10].copy_from_slice(&(exponent | if negative { 0x8000 } else { 0 }).to_le_bytes());
    X87(out)
}

const ONE: u64 = 1 << 63;
const BIAS: u16 = 16383;

#[test]
fn sums_and_products_keep_the_bits_f64_drops() {
    // 1 + 2^-60: f64 (53 bits) rounds it to 1.
    let tiny = x87(false, BIAS, ONE | 1 << 3);
    let one = x87(false, BIAS, ONE);
    type Op = fn(X87, X87) -> X87;
    let both: [(Op, Op); 2] = [(sum, product), (soft::sum, soft::product)];
    for (sum, product) in both {
        // 2 + 2^-60.
        assert_eq!(sum(tiny, one).0, x87(false, BIAS + 1, ONE | 1 << 2).0);
        // (1 + 2^-60) - 1 = 2^-60, exactly.
        let minus_one = x87(true, BIAS, ONE);
        assert_eq!(sum(tiny, minus_one).0, x87(false, BIAS - 60, ONE).0);
        // (1 + 2^-60)^2 = 1 + 2^-59 + 2^-120, rounded to 1 + 2^-59.
        assert_eq!(product(tiny, tiny).0, x87(false, BIAS, ONE | 1 << 4).0);
        // 3 × -0.5 = -1.5.
        let three = x87(false, BIAS + 1, ONE | 1 << 62);
        let half = x87(true, BIAS - 1, ONE);
        assert_eq!(product(three, half).0, x87(true, BIAS, ONE | 1 << 62).0);
        // Ties go to even: 1 + 2^-64 is halfway between 1 and 1 + 2^-63.
        let half_ulp = x87(false, BIAS - 64, ONE);
        assert_eq!(sum(one, half_ulp).0, one.0);
        let odd = x87(false, BIAS, ONE | 1);
        assert_eq!(sum(odd, half_ulp).0, x87(false, BIAS, ONE | 2).0);
        // x - x is +0; the largest value doubled is infinity.
        assert_eq!(
            sum(tiny, x87(true, BIAS, ONE | 1 << 3)).0,
            x87(false, 0, 0).0
        );
        let big = x87(false, 0x7ffe, u64::MAX);
        assert_eq!(sum(big, big).0, x87(false, 0x7fff, ONE).0);
    }
}

#[test]
fn accumulate_ops_on_long_doubles() {
    let a = x87(false, BIAS, ONE | 1 << 3); // 1 + 2^-60
    let b = x87(false, BIAS + 1, ONE); // 2
    let combine = <X87 as Accumulable>::combine;
    assert_eq!(
        combine(AccumulateOp::Sum, a, b).0,
        x87(false, BIAS + 1, ONE | 1 << 62 | 1 << 2).0
    );
    assert_eq!(
        combine(AccumulateOp::Prod, a, b).0,
        x87(false, BIAS + 1, ONE | 1 << 3).0
    );
    assert_eq!(combine(AccumulateOp::Max, a, b).0, b.0);
    assert_eq!(combine(AccumulateOp::Min, a, b).0, a.0);
    // Apart by one ulp of the 64-bit significand: f64 would tie them.
    let one = x87(false, BIAS, ONE);
    assert_eq!(combine(AccumulateOp::Max, one, a).0, a.0);
    assert_eq!(combine(AccumulateOp::Min, a, one).0, one.0);
    assert_eq!(combine(AccumulateOp::Replace, a, b).0, b.0);
    assert_eq!(combine(AccumulateOp::NoOp, a, b).0, a.0);
    // A NaN operand of MIN and MAX is ignored, as for f64.
    let nan = x87(false, 0x7fff, ONE | 1 << 62);
    assert_eq!(combine(AccumulateOp::Max, nan, a).0, a.0);
    assert_eq!(combine(AccumulateOp::Min, a, nan).0, a.0);
    const { assert!(!<X87 as Accumulable>::INTEGER) };
}

/// A valid encoding from random bits: a zero, a denormal, a normal (its
/// integer bit set) or an infinity.
#[cfg(target_arch = "x86_64")]
fn valid(negative: bool, exponent: u16, significand: u64) -> X87 {
    match exponent & 0x7fff {
        0 => x87(negative, 0, significand & !ONE),
        0x7fff => x87(negative, 0x7fff, ONE),
        e => x87(negative, e, significand | ONE),
    }
}

#[cfg(target_arch = "x86_64")]
mod against_the_fpu {
    use super::*;
    use proptest::prelude::*;

    /// Exponents near each other (so sums round), anywhere, or at the
    /// edges (denormals, overflow).
    fn exponent() -> impl Strategy<Value = u16> {
        prop_oneof![16380u16..16390, 0u16..0x8000, 0u16..70, 0x7fc0u16..0x8000]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn software_sum_and_product_match_the_x87(
            (sa, ea, ma) in (any::<bool>(), exponent(), any::<u64>()),
            (sb, eb, mb) in (any::<bool>(), exponent(), any::<u64>()),
        ) {
            let (a, b) = (valid(sa, ea, ma), valid(sb, eb, mb));
            prop_assert_eq!(soft::sum(a, b).0, sum(a, b).0, "{:?} + {:?}", a, b);
            prop_assert_eq!(soft::product(a, b).0, product(a, b).0, "{:?} × {:?}", a, b);
        }
    }
}
