// SPDX-License-Identifier: MIT OR Apache-2.0
//! `MPI_MINLOC` and `MPI_MAXLOC` on the pair types (MPI-3.1 5.9.4): each
//! element is a value and an int index laid out as gcc -m32 lays out
//! `struct { T value; int index; }` ([`Datatype::pair`]); the result
//! keeps the smallest (largest) value, and of equal values the smallest
//! index. Plain work on bytes, so the host tests check it.

use core::cmp::Ordering;

use crate::codes::{Datatype, Op, Pair, Value};

/// A reduction by `MPI_MINLOC` or `MPI_MAXLOC` on one pair type.
#[derive(Debug, Clone, Copy)]
pub struct Loc {
    /// `MPI_MAXLOC` (else `MPI_MINLOC`).
    max: bool,
    /// The pair type's layout.
    pair: Pair,
    /// Its extent: where the next element starts.
    extent: usize,
}

impl Loc {
    /// The reduction `op` makes on `ty`: `Some` for `MPI_MINLOC` and
    /// `MPI_MAXLOC` on a pair type.
    pub fn new(op: Op, ty: Datatype) -> Option<Self> {
        let max = match op {
            Op::Minloc => false,
            Op::Maxloc => true,
            _ => return None,
        };
        Some(Self {
            max,
            pair: ty.pair()?,
            extent: ty.extent() as usize,
        })
    }

    /// Reduces every rank's elements (`all`, in rank order, each as many
    /// as `out` holds) into `out`. Element by element, the ranks' pairs
    /// are taken in rank order, each compared with the best so far: a
    /// smaller value (`MPI_MINLOC`) or a larger one (`MPI_MAXLOC`)
    /// replaces it, an equal value gives the smaller index. A value that
    /// does not compare (a NaN, on either side) leaves the best as it is,
    /// so every rank gets the same bits. Only the values and indices of
    /// `out` are written: its padding stays as it was.
    pub fn fold<B: AsRef<[u8]>>(&self, all: &[B], out: &mut [u8]) {
        let Some((first, rest)) = all.split_first() else {
            return;
        };
        let (value_bytes, at) = (
            self.pair.value.bytes() as usize,
            self.pair.index_at as usize,
        );
        let index_of = |e: &[u8]| i32::from_le_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]]);
        for (k, out) in out.chunks_exact_mut(self.extent).enumerate() {
            let span = k * self.extent..(k + 1) * self.extent;
            let mut best = &first.as_ref()[span.clone()];
            let mut index = index_of(best);
            for theirs in rest.iter().map(|b| &b.as_ref()[span.clone()]) {
                match (compare(self.pair.value, theirs, best), self.max) {
                    (Some(Ordering::Less), false) | (Some(Ordering::Greater), true) => {
                        best = theirs;
                        index = index_of(theirs);
                    }
                    (Some(Ordering::Equal), _) => index = index.min(index_of(theirs)),
                    _ => {}
                }
            }
            out[..value_bytes].copy_from_slice(&best[..value_bytes]);
            out[at..at + 4].copy_from_slice(&index.to_le_bytes());
        }
    }
}

/// How value `a` compares with value `b`, both of `value` at the start of
/// their bytes; `None` if they do not compare (a NaN).
fn compare(value: Value, a: &[u8], b: &[u8]) -> Option<Ordering> {
    let word = |e: &[u8]| [e[0], e[1], e[2], e[3]];
    let dword = |e: &[u8]| [e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]];
    match value {
        Value::I16 => Some(i16::from_le_bytes([a[0], a[1]]).cmp(&i16::from_le_bytes([b[0], b[1]]))),
        Value::I32 => Some(i32::from_le_bytes(word(a)).cmp(&i32::from_le_bytes(word(b)))),
        Value::F32 => f32::from_le_bytes(word(a)).partial_cmp(&f32::from_le_bytes(word(b))),
        Value::F64 => f64::from_le_bytes(dword(a)).partial_cmp(&f64::from_le_bytes(dword(b))),
        Value::X87 => Some(x87_key(a)?.cmp(&x87_key(b)?)),
    }
}

/// An x87 80-bit extended value (a 64-bit significand with an explicit
/// integer bit, then the sign and a 15-bit biased exponent) as a number
/// that orders as the values do; `None` for a NaN. Both zeros are 0. A
/// denormal or pseudo-denormal (exponent 0) has the value of exponent 1
/// with its significand, which keeps the order across the two.
fn x87_key(bytes: &[u8]) -> Option<i128> {
    let significand = u64::from_le_bytes([
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
    ]);
    let top = u16::from_le_bytes([bytes[8], bytes[9]]);
    let (negative, exponent) = (top & 0x8000 != 0, top & 0x7fff);
    if exponent == 0x7fff && significand != 1 << 63 {
        return None; // A NaN (or an encoding the x87 refuses).
    }
    if significand == 0 {
        return Some(0);
    }
    let magnitude = (i128::from(exponent.max(1)) << 64) | i128::from(significand);
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pair of `ty`: `value`'s bytes, the index, the padding 0xee.
    fn pair(ty: Datatype, value: &[u8], index: i32) -> Vec<u8> {
        let p = ty.pair().unwrap();
        let mut e = vec![0xee; ty.extent() as usize];
        e[..value.len()].copy_from_slice(value);
        e[p.index_at as usize..][..4].copy_from_slice(&index.to_le_bytes());
        e
    }

    /// `ranks`' single elements folded with `op`, into a buffer of 0x55.
    fn fold(op: Op, ty: Datatype, ranks: &[Vec<u8>]) -> Vec<u8> {
        let mut out = vec![0x55; ty.extent() as usize];
        Loc::new(op, ty).unwrap().fold(ranks, &mut out);
        out
    }

    fn int_pairs(ty: Datatype, pairs: &[(i32, i32)]) -> Vec<Vec<u8>> {
        pairs
            .iter()
            .map(|&(v, i)| pair(ty, &v.to_le_bytes(), i))
            .collect()
    }

    #[test]
    fn minloc_keeps_the_smallest_value_and_of_equal_ones_the_smallest_index() {
        let ranks = int_pairs(Datatype::TwoInt, &[(5, 0), (3, 7), (9, 2), (3, 4), (4, 1)]);
        assert_eq!(
            fold(Op::Minloc, Datatype::TwoInt, &ranks),
            [3, 0, 0, 0, 4, 0, 0, 0]
        );
        assert_eq!(
            fold(Op::Maxloc, Datatype::TwoInt, &ranks),
            [9, 0, 0, 0, 2, 0, 0, 0]
        );
        // The tie is found whichever rank comes first.
        let ranks = int_pairs(Datatype::LongInt, &[(-8, 6), (-8, 2), (-8, 9)]);
        assert_eq!(
            fold(Op::Minloc, Datatype::LongInt, &ranks)[4..],
            2i32.to_le_bytes()
        );
        assert_eq!(
            fold(Op::Maxloc, Datatype::LongInt, &ranks)[4..],
            2i32.to_le_bytes()
        );
    }

    #[test]
    fn every_element_reduces_on_its_own() {
        let ty = Datatype::TwoInt;
        let rank = |pairs: &[(i32, i32)]| int_pairs(ty, pairs).concat();
        let ranks = [rank(&[(1, 10), (8, 10)]), rank(&[(2, 11), (8, 5)])];
        let mut out = vec![0; 16];
        Loc::new(Op::Minloc, ty).unwrap().fold(&ranks, &mut out);
        assert_eq!(out, rank(&[(1, 10), (8, 5)]));
        Loc::new(Op::Maxloc, ty).unwrap().fold(&ranks, &mut out);
        assert_eq!(out, rank(&[(2, 11), (8, 5)]));
    }

    #[test]
    fn short_int_compares_signed_shorts_and_leaves_the_padding_alone() {
        let ty = Datatype::ShortInt;
        let ranks: Vec<Vec<u8>> = [(-2i16, 3), (7, 1), (-300, 8), (7, 0)]
            .iter()
            .map(|&(v, i)| pair(ty, &v.to_le_bytes(), i))
            .collect();
        let want = |v: i16, i: i32| {
            let mut e = vec![0x55; 8];
            e[..2].copy_from_slice(&v.to_le_bytes());
            e[4..].copy_from_slice(&i.to_le_bytes());
            e
        };
        assert_eq!(fold(Op::Minloc, ty, &ranks), want(-300, 8));
        assert_eq!(fold(Op::Maxloc, ty, &ranks), want(7, 0));
    }

    #[test]
    fn floats_and_doubles_compare_as_numbers() {
        let ty = Datatype::FloatInt;
        let ranks: Vec<Vec<u8>> = [(-0.5f32, 4), (-1.5, 9), (2.25, 3), (-1.5, 1)]
            .iter()
            .map(|&(v, i)| pair(ty, &v.to_le_bytes(), i))
            .collect();
        assert_eq!(
            fold(Op::Minloc, ty, &ranks),
            pair_of(ty, &(-1.5f32).to_le_bytes(), 1)
        );
        assert_eq!(
            fold(Op::Maxloc, ty, &ranks),
            pair_of(ty, &2.25f32.to_le_bytes(), 3)
        );

        let ty = Datatype::DoubleInt;
        assert_eq!(
            ty.extent(),
            12,
            "a double is aligned to 4 in an i386 struct"
        );
        let ranks: Vec<Vec<u8>> = [
            (1e300f64, 2),
            (-1e-300, 5),
            (f64::INFINITY, 7),
            (-0.0, 1),
            (0.0, 0),
        ]
        .iter()
        .map(|&(v, i)| pair(ty, &v.to_le_bytes(), i))
        .collect();
        assert_eq!(
            fold(Op::Minloc, ty, &ranks),
            pair_of(ty, &(-1e-300f64).to_le_bytes(), 5)
        );
        assert_eq!(
            fold(Op::Maxloc, ty, &ranks),
            pair_of(ty, &f64::INFINITY.to_le_bytes(), 7)
        );
        // -0 and +0 are equal: the first rank's value, the smaller index.
        let zeros = &ranks[3..];
        assert_eq!(
            fold(Op::Minloc, ty, zeros),
            pair_of(ty, &(-0.0f64).to_le_bytes(), 0)
        );
    }

    /// A pair as [`Loc::fold`] writes it into a buffer of 0x55.
    fn pair_of(ty: Datatype, value: &[u8], index: i32) -> Vec<u8> {
        let mut e = pair(ty, value, index);
        let p = ty.pair().unwrap();
        e[value.len()..p.index_at as usize].fill(0x55);
        e
    }

    #[test]
    fn a_nan_leaves_the_best_so_far() {
        let ty = Datatype::FloatInt;
        let ranks: Vec<Vec<u8>> = [(1.0f32, 0), (f32::NAN, 1), (0.5, 2)]
            .iter()
            .map(|&(v, i)| pair(ty, &v.to_le_bytes(), i))
            .collect();
        assert_eq!(
            fold(Op::Minloc, ty, &ranks),
            pair_of(ty, &0.5f32.to_le_bytes(), 2)
        );
        assert_eq!(
            fold(Op::Maxloc, ty, &ranks),
            pair_of(ty, &1.0f32.to_le_bytes(), 0)
        );
    }

    /// `v` as the x87's extended format in 12 bytes: `v`'s bits moved
    /// over (exact for every double), the padding 0.
    fn x87(v: f64) -> [u8; 12] {
        let bits = v.to_bits();
        let (negative, exponent, fraction) =
            (bits >> 63, (bits >> 52) & 0x7ff, bits & ((1 << 52) - 1));
        let (exponent, significand) = match exponent {
            0 if fraction == 0 => (0, 0),
            0 => {
                // A double's denormal, f * 2^-1074: normalised.
                let shift = fraction.leading_zeros();
                (16383 + 63 - 1074 - u64::from(shift), fraction << shift)
            }
            0x7ff => (0x7fff, (1 << 63) | (fraction << 11)),
            e => (e + 16383 - 1023, (1 << 63) | (fraction << 11)),
        };
        let mut out = [0; 12];
        out[..8].copy_from_slice(&significand.to_le_bytes());
        out[8..10].copy_from_slice(&((negative << 15) as u16 | exponent as u16).to_le_bytes());
        out
    }

    #[test]
    fn long_doubles_compare_as_x87_extended_values() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.0,
            -f64::MIN_POSITIVE,
            -5e-324,
            0.0,
            5e-324,
            1e-310,
            f64::MIN_POSITIVE,
            0.75,
            1.0,
            1.5,
            2.0,
            1e300,
            f64::INFINITY,
        ];
        for (i, &a) in values.iter().enumerate() {
            for (j, &b) in values.iter().enumerate() {
                assert_eq!(
                    compare(Value::X87, &x87(a), &x87(b)),
                    Some(i.cmp(&j)),
                    "{a} against {b}"
                );
            }
        }
        assert_eq!(
            compare(Value::X87, &x87(-0.0), &x87(0.0)),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(Value::X87, &x87(f64::NAN), &x87(1.0)), None);
        // A pseudo-denormal (exponent 0, integer bit set) equals the
        // normal number of exponent 1 with its significand.
        let mut pseudo = x87(0.0);
        pseudo[..8].copy_from_slice(&(1u64 << 63).to_le_bytes());
        let mut normal = pseudo;
        normal[8] = 1;
        assert_eq!(compare(Value::X87, &pseudo, &normal), Some(Ordering::Equal));

        let ty = Datatype::LongDoubleInt;
        let ranks: Vec<Vec<u8>> = [(2.5, 4), (-7.0, 6), (2.5, 1), (-7.0, 3)]
            .iter()
            .map(|&(v, i)| pair(ty, &x87(v), i))
            .collect();
        assert_eq!(fold(Op::Minloc, ty, &ranks), pair(ty, &x87(-7.0), 3));
        assert_eq!(fold(Op::Maxloc, ty, &ranks), pair(ty, &x87(2.5), 1));
    }

    #[test]
    fn only_minloc_and_maxloc_on_pair_types_make_one() {
        for ty in Datatype::ALL {
            for op in Op::ALL {
                let loc = matches!(op, Op::Minloc | Op::Maxloc) && ty.pair().is_some();
                assert_eq!(
                    Loc::new(op, ty).is_some(),
                    loc,
                    "{} on {}",
                    op.name(),
                    ty.name()
                );
                if loc || ty.pair().is_some() || matches!(op, Op::Minloc | Op::Maxloc) {
                    assert_eq!(op.reduces(ty), loc, "{} on {}", op.name(), ty.name());
                }
            }
        }
        assert!(Op::Sum.reduces(Datatype::Double) && Op::Bxor.reduces(Datatype::Char));
        assert!(!Op::Band.reduces(Datatype::Float) && !Op::Replace.reduces(Datatype::Int));
        assert!(Op::Prod.reduces(Datatype::LongDouble) && Op::Max.reduces(Datatype::LongDouble));
        assert!(!Op::Bor.reduces(Datatype::LongDouble) && !Op::Land.reduces(Datatype::LongDouble));
        assert_eq!(
            Op::Minloc.refusal(Datatype::Int),
            "MPI_MINLOC is not a reduction on MPI_INT (it takes the pair types MPI_2INT, \
             MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT and MPI_LONG_DOUBLE_INT)"
        );
        assert_eq!(
            Op::Sum.refusal(Datatype::DoubleInt),
            "MPI_SUM is not a reduction on MPI_DOUBLE_INT (a pair type reduces with MPI_MINLOC \
             and MPI_MAXLOC only)"
        );
    }
}
