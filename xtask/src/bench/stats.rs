// SPDX-License-Identifier: MIT OR Apache-2.0
//! Medians and quartiles of pooled samples.
//!
//! Quantiles interpolate linearly between order statistics (Hyndman and
//! Fan's type 7, the default of R and NumPy): of `n` sorted samples
//! `x[0..n]`, the `p`-quantile is `x[j] + (h - j)·(x[j+1] - x[j])` with
//! `h = (n - 1)·p` and `j = ⌊h⌋`. So the median of an even count is the
//! mean of the middle two, the quartiles of `1, 2, 3, 4` are 1.75 and 3.25,
//! and one sample is its own every quantile.

/// A summary of samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many.
    pub n: usize,
    /// The smallest.
    pub min: f64,
    /// The first quartile.
    pub q1: f64,
    /// The median.
    pub median: f64,
    /// The third quartile.
    pub q3: f64,
    /// The largest.
    pub max: f64,
    /// The arithmetic mean.
    pub mean: f64,
}

/// The `p`-quantile (0 ≤ p ≤ 1) of sorted `x` (not empty), type 7.
pub fn quantile(x: &[f64], p: f64) -> f64 {
    assert!(!x.is_empty(), "the quantile of no samples");
    let h = (x.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let j = h.floor() as usize;
    match x.get(j + 1) {
        Some(next) => x[j] + (h - j as f64) * (next - x[j]),
        None => x[j],
    }
}

impl Summary {
    /// The summary of `samples`, or `None` if there are none.
    pub fn of(samples: impl IntoIterator<Item = f64>) -> Option<Self> {
        let mut x: Vec<f64> = samples.into_iter().collect();
        if x.is_empty() {
            return None;
        }
        x.sort_by(f64::total_cmp);
        Some(Self {
            n: x.len(),
            min: x[0],
            q1: quantile(&x, 0.25),
            median: quantile(&x, 0.5),
            q3: quantile(&x, 0.75),
            max: x[x.len() - 1],
            mean: x.iter().sum::<f64>() / x.len() as f64,
        })
    }

    /// The summary of integer samples.
    pub fn of_u64(samples: &[u64]) -> Option<Self> {
        Self::of(samples.iter().map(|&s| s as f64))
    }

    /// Every value divided by `d` (cycles to microseconds, say).
    pub fn scaled(self, d: f64) -> Self {
        Self {
            n: self.n,
            min: self.min / d,
            q1: self.q1 / d,
            median: self.median / d,
            q3: self.q3 / d,
            max: self.max / d,
            mean: self.mean / d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_interpolate_between_order_statistics() {
        let s = Summary::of_u64(&[4, 1, 3, 2]).unwrap();
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 1.75, 2.5, 3.25, 4.0)
        );
        assert_eq!(s.mean, 2.5);
        let s = Summary::of_u64(&[5, 1, 3]).unwrap();
        assert_eq!((s.q1, s.median, s.q3), (2.0, 3.0, 4.0));
        let one = Summary::of_u64(&[7]).unwrap();
        assert_eq!((one.q1, one.median, one.q3, one.n), (7.0, 7.0, 7.0, 1));
        assert_eq!(Summary::of_u64(&[]), None);
        let us = Summary::of_u64(&[533, 1066]).unwrap().scaled(533.0);
        assert_eq!((us.min, us.median, us.max), (1.0, 1.5, 2.0));
        assert_eq!(quantile(&[0.0, 10.0], 0.9), 9.0);
    }
}
