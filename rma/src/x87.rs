// SPDX-License-Identifier: MIT OR Apache-2.0
//! Arithmetic on C's `long double` as gcc -m32 stores it ([`X87`]): the
//! x87's 80-bit extended format, a 64-bit significand with an explicit
//! integer bit, then the sign and a 15-bit exponent (bias 16383).
//!
//! The cores are P54Cs, whose FPU is an x87: on x86 (the guest) and
//! x86_64 (a host running the tests) the sum and the product are the
//! x87's own `fadd` and `fmul` on the values loaded whole (`fld tbyte`)
//! and stored whole (`fstp tbyte`), rounded as the FPU's control word
//! says: to nearest, ties to even, with a 64-bit significand (0x037f,
//! the word the processor starts with and `fninit` sets: the kernel never
//! changes it, and Linux gives it to every process). No conversion
//! to `f64` happens, so values such as 1 + 2⁻⁶⁰ keep their low bits.
//!
//! Elsewhere [`soft`] computes the same results in software (round to
//! nearest even, denormals, infinities and NaNs as the x87 gives them for
//! valid operands); on x86_64 its tests compare it with the FPU.
//!
//! This module holds rma's only `unsafe` code: the one `asm!` block.

/// A C `long double` as gcc -m32 stores it: the x87 80-bit extended value
/// (a 64-bit significand with its integer bit, then the sign and a 15-bit
/// exponent) in 10 bytes, then 2 bytes of padding: 12 bytes
/// (`MPI_LONG_DOUBLE`). It compares exactly (no conversion to `f64`,
/// which would make distinct values tie), for MIN and MAX and for
/// `MPI_LONG_DOUBLE_INT`'s MAXLOC and MINLOC (`Loc<X87>`); a NaN compares
/// with nothing, and the zeros are equal. SUM and PROD are the x87's own
/// (the `x87` module).
#[derive(Debug, Clone, Copy)]
pub struct X87(pub [u8; 12]);

impl X87 {
    /// (negative, magnitude) of a value that is not a NaN, the magnitude
    /// ordered as the values' absolute values are.
    pub(crate) fn key(&self) -> Option<(bool, u128)> {
        let b = &self.0;
        let significand = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let top = u16::from_le_bytes([b[8], b[9]]);
        let exponent = top & 0x7fff;
        if exponent == 0x7fff && significand << 1 != 0 {
            return None;
        }
        let magnitude = (u128::from(exponent) << 64) | u128::from(significand);
        Some((top & 0x8000 != 0 && magnitude != 0, magnitude))
    }
}

impl PartialEq for X87 {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(core::cmp::Ordering::Equal)
    }
}

impl PartialOrd for X87 {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        let ((a_neg, a), (b_neg, b)) = (self.key()?, other.key()?);
        Some(match (a_neg, b_neg) {
            (false, false) => a.cmp(&b),
            (true, true) => b.cmp(&a),
            (true, false) => core::cmp::Ordering::Less,
            (false, true) => core::cmp::Ordering::Greater,
        })
    }
}

/// An x87 operation on two operands: both loaded whole, `$op` (which
/// pops one), the result stored whole.
macro_rules! x87_binary {
    ($(#[$doc:meta])* $name:ident, $op:literal) => {
        $(#[$doc])*
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        pub(crate) fn $name(a: X87, b: X87) -> X87 {
            let mut out = X87([0; 12]);
            // SAFETY: the three pointers are valid for 10 bytes (each
            // `X87` holds 12): `fld tbyte ptr` reads 10 bytes at `a` and at
            // `b`, `fstp tbyte ptr` writes 10 at `out`, which nothing else
            // borrows. The two loads push the x87 register stack and the
            // operation (`faddp` or `fmulp`) and `fstp` pop both again, so
            // the stack is as it was (empty, as the ABI wants it at a
            // call); the registers it used are declared clobbered. No
            // flags are touched (`preserves_flags`) and the stack pointer
            // is not.
            unsafe {
                core::arch::asm!(
                    "fld tbyte ptr [{a}]",
                    "fld tbyte ptr [{b}]",
                    $op,
                    "fstp tbyte ptr [{out}]",
                    a = in(reg) a.0.as_ptr(),
                    b = in(reg) b.0.as_ptr(),
                    out = in(reg) out.0.as_mut_ptr(),
                    out("st(0)") _,
                    out("st(1)") _,
                    options(nostack, preserves_flags),
                );
            }
            out.0[10..].fill(0);
            out
        }
    };
}

x87_binary!(
    /// `a + b`, rounded to the 64-bit significand.
    sum,
    "faddp st(1), st"
);
x87_binary!(
    /// `a × b`, rounded to the 64-bit significand.
    product,
    "fmulp st(1), st"
);

/// `a + b` in software, where there is no x87.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) fn sum(a: X87, b: X87) -> X87 {
    soft::sum(a, b)
}

/// `a × b` in software, where there is no x87.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) fn product(a: X87, b: X87) -> X87 {
    soft::product(a, b)
}

/// The x87's sum and product in integer arithmetic: the operands
/// unpacked into sign, exponent and significand, the exact result kept
/// with guard bits, then rounded to nearest (ties to even) into 64 bits.
#[cfg_attr(any(target_arch = "x86", target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod soft {
    use super::X87;

    /// The largest biased exponent, of infinities and NaNs.
    const MAX_EXP: i32 = 0x7fff;
    /// The x87's default NaN ("real indefinite"), for ∞ − ∞ and 0 × ∞.
    const INDEFINITE: (bool, i32, u64) = (true, MAX_EXP, 0xc000_0000_0000_0000);

    /// A value taken apart: sign, biased exponent, significand.
    fn unpack(x: X87) -> (bool, i32, u64) {
        let b = x.0;
        let significand = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let top = u16::from_le_bytes([b[8], b[9]]);
        (top & 0x8000 != 0, i32::from(top & 0x7fff), significand)
    }

    fn pack((negative, exponent, significand): (bool, i32, u64)) -> X87 {
        let mut out = [0; 12];
        out[..8].copy_from_slice(&significand.to_le_bytes());
        let top = (exponent as u16 & 0x7fff) | if negative { 0x8000 } else { 0 };
        out[8..10].copy_from_slice(&top.to_le_bytes());
        X87(out)
    }

    fn is_nan((_, e, m): (bool, i32, u64)) -> bool {
        e == MAX_EXP && m << 1 != 0
    }

    /// The NaN an operation with NaN operand(s) gives: the one with the
    /// larger significand, made quiet, as the x87 picks.
    fn nan(a: (bool, i32, u64), b: (bool, i32, u64)) -> X87 {
        let quiet = |(s, e, m): (bool, i32, u64)| (s, e, m | 0xc000_0000_0000_0000);
        pack(match (is_nan(a), is_nan(b)) {
            (true, true) if (b.2 << 1) > (a.2 << 1) => quiet(b),
            (true, _) => quiet(a),
            _ => quiet(b),
        })
    }

    /// The value `wide × 2^(exponent − 16383 − 127)` (so `exponent` is
    /// the biased exponent when bit 127 of `wide` is the leading one),
    /// rounded to nearest even into the format (denormals below
    /// the smallest normal, infinity above the largest).
    fn round(negative: bool, mut exponent: i32, mut wide: u128) -> X87 {
        if wide == 0 {
            return pack((negative, 0, 0));
        }
        // Normalise: the leading bit at 127.
        let shift = wide.leading_zeros() as i32;
        wide <<= shift;
        exponent -= shift;
        if exponent <= 0 {
            // A denormal (exponent 0, no integer bit): shift right, keeping
            // the bits shifted out as a sticky bit.
            let by = (1 - exponent) as u32;
            wide = if by >= 128 {
                u128::from(wide != 0)
            } else {
                (wide >> by) | u128::from(wide << (128 - by) != 0)
            };
            exponent = 0;
        }
        let mut significand = (wide >> 64) as u64;
        let rest = wide as u64;
        let half = 1u64 << 63;
        if rest > half || (rest == half && significand & 1 == 1) {
            let (next, carry) = significand.overflowing_add(1);
            significand = next;
            if carry {
                significand = half;
                exponent += 1;
            } else if exponent == 0 && significand & half != 0 {
                exponent = 1; // A denormal rounded up into the normals.
            }
        }
        if exponent >= MAX_EXP {
            return pack((negative, MAX_EXP, half));
        }
        pack((negative, exponent, significand))
    }

    /// A finite operand's exponent as the value's: denormals (exponent 0)
    /// scale as exponent 1.
    fn scale(e: i32) -> i32 {
        e.max(1)
    }

    /// `a + b`.
    pub(crate) fn sum(a: X87, b: X87) -> X87 {
        let (x, y) = (unpack(a), unpack(b));
        if is_nan(x) || is_nan(y) {
            return nan(x, y);
        }
        match (x.1 == MAX_EXP, y.1 == MAX_EXP) {
            (true, true) if x.0 != y.0 => return pack(INDEFINITE),
            (true, _) => return a,
            (_, true) => return b,
            _ => {}
        }
        if x.2 == 0 && y.2 == 0 {
            // Zeros: −0 only if both are.
            return pack((x.0 && y.0, 0, 0));
        }
        // The larger magnitude first; each significand at bits 126..63 of
        // a u128, the other shifted right by the exponents' difference
        // with a sticky bit.
        let (big, small) = if (scale(x.1), x.2) >= (scale(y.1), y.2) {
            (x, y)
        } else {
            (y, x)
        };
        let wide_big = u128::from(big.2) << 63;
        let gap = (scale(big.1) - scale(small.1)) as u32;
        let wide_small = u128::from(small.2) << 63;
        let wide_small = match gap {
            0 => wide_small,
            1..127 => (wide_small >> gap) | u128::from(wide_small << (128 - gap) != 0),
            _ => u128::from(wide_small != 0),
        };
        let (negative, wide) = if big.0 == small.0 {
            (big.0, wide_big + wide_small)
        } else {
            (big.0, wide_big - wide_small)
        };
        if wide == 0 {
            return pack((false, 0, 0)); // x − x is +0 when rounding to nearest.
        }
        // The integer bit of big sits at 126: the result's exponent, with
        // the leading bit at 127, is big's + 1.
        round(negative, scale(big.1) + 1, wide)
    }

    /// `a × b`.
    pub(crate) fn product(a: X87, b: X87) -> X87 {
        let (x, y) = (unpack(a), unpack(b));
        if is_nan(x) || is_nan(y) {
            return nan(x, y);
        }
        let negative = x.0 != y.0;
        let (x_inf, y_inf) = (x.1 == MAX_EXP, y.1 == MAX_EXP);
        if x_inf || y_inf {
            if (!x_inf && x.2 == 0) || (!y_inf && y.2 == 0) {
                return pack(INDEFINITE);
            }
            return pack((negative, MAX_EXP, 1 << 63));
        }
        let wide = u128::from(x.2) * u128::from(y.2);
        // The product of the integer bits sits at bit 126 (for normal
        // operands): value = wide × 2^(ex + ey − 2·16383 − 126).
        round(negative, scale(x.1) + scale(y.1) - 16383 + 1, wide)
    }
}

#[cfg(test)]
mod tests;
