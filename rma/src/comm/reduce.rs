// SPDX-License-Identifier: MIT OR Apache-2.0
//! Element types that travel as bytes, and the reduction operations.

/// A plain value that travels through the MPB as its little-endian bytes.
pub trait Element: Copy {
    /// Bytes per value.
    const BYTES: usize;
    /// Writes the value into `out` (exactly [`BYTES`](Self::BYTES) long).
    fn write_le(self, out: &mut [u8]);
    /// Reads a value from `bytes` (exactly [`BYTES`](Self::BYTES) long).
    fn read_le(bytes: &[u8]) -> Self;
    /// `values` as their little-endian bytes, in place, where memory
    /// already holds them so (a primitive on a little-endian target):
    /// copies then move them without staging. `None`: convert each.
    fn le_bytes(values: &[Self]) -> Option<&[u8]> {
        let _ = values;
        None
    }
    /// As [`Element::le_bytes`], for writing values in place.
    fn le_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
        let _ = values;
        None
    }
}

/// The reduction operations of [`Comm::allreduce`](super::Comm::allreduce).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (integers wrap around).
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

/// An element type the reduction operations apply to.
pub trait Reducible: Element {
    /// `a op b`. Callers combine in rank order, so non-associative
    /// arithmetic (floating point) gives the same result on every rank.
    fn reduce(op: ReduceOp, a: Self, b: Self) -> Self;
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const BYTES: usize = core::mem::size_of::<$t>();
            // Inlined into callers in other crates: copy loops call these
            // once per element.
            #[inline]
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("one element's bytes"))
            }
            #[inline]
            fn le_bytes(values: &[Self]) -> Option<&[u8]> {
                cfg!(target_endian = "little").then(|| bytemuck::cast_slice(values))
            }
            #[inline]
            fn le_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
                cfg!(target_endian = "little").then(|| bytemuck::cast_slice_mut(values))
            }
        }
    )*};
}

element!(u8, i8, u16, i16, u32, u64, i32, i64, f32, f64);

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Reducible for $t {
            fn reduce(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                }
            }
        }
    )*};
}

integer!(u32, u64, i32, i64);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Reducible for $t {
            /// Min and max ignore a NaN operand, as IEEE 754 minNum/maxNum do.
            fn reduce(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => a + b,
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                }
            }
        }
    )*};
}

float!(f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_bytes() {
        let mut b = [0u8; 8];
        (-2.5f64).write_le(&mut b);
        assert_eq!(f64::read_le(&b), -2.5);
        0xDEAD_BEEF_u32.write_le(&mut b[..4]);
        assert_eq!(b[..4], [0xEF, 0xBE, 0xAD, 0xDE]);
    }

    #[test]
    fn operations_do_what_they_say() {
        assert_eq!(u32::reduce(ReduceOp::Sum, u32::MAX, 2), 1);
        assert_eq!(i64::reduce(ReduceOp::Min, -3, 2), -3);
        assert_eq!(u64::reduce(ReduceOp::Max, 3, 9), 9);
        assert_eq!(f64::reduce(ReduceOp::Max, f64::NAN, 1.0), 1.0);
    }
}
