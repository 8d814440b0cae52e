// SPDX-License-Identifier: MIT OR Apache-2.0
//! Hot-spot counters: requests per target rank and per memory
//! controller, and how evenly they fall (relative standard deviation:
//! 0 when every target gets as many, higher the more a few get most).

use alloc::vec;
use alloc::vec::Vec;

/// Requests counted per target and per controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counters {
    targets: Vec<u64>,
    controllers: Vec<u64>,
    controller_of: Vec<u32>,
}

impl Counters {
    /// Zero counts for ranks `0..controller_of.len()`, rank `r` behind
    /// controller `controller_of[r]`.
    pub fn new(controller_of: &[u32]) -> Self {
        let controllers = controller_of
            .iter()
            .map(|&c| c as usize + 1)
            .max()
            .unwrap_or(0);
        Self {
            targets: vec![0; controller_of.len()],
            controllers: vec![0; controllers],
            controller_of: controller_of.to_vec(),
        }
    }

    /// Counts one request to `target`.
    ///
    /// # Panics
    /// If `target` is not one of the ranks.
    pub fn record(&mut self, target: u32) {
        self.targets[target as usize] += 1;
        self.controllers[self.controller_of[target as usize] as usize] += 1;
    }

    /// Requests per target rank.
    pub fn targets(&self) -> &[u64] {
        &self.targets
    }

    /// Requests per memory controller.
    pub fn controllers(&self) -> &[u64] {
        &self.controllers
    }

    /// All requests.
    pub fn total(&self) -> u64 {
        self.targets.iter().sum()
    }

    /// Adds `other`'s counts (of the same ranks) to these.
    pub fn add(&mut self, other: &[u64]) {
        for (r, &n) in other.iter().enumerate().take(self.targets.len()) {
            self.targets[r] += n;
            self.controllers[self.controller_of[r] as usize] += n;
        }
    }

    /// Sets every count to 0.
    pub fn clear(&mut self) {
        self.targets.iter_mut().for_each(|n| *n = 0);
        self.controllers.iter_mut().for_each(|n| *n = 0);
    }
}

/// The relative standard deviation of `counts` (population standard
/// deviation over the mean), in per mille; 0 for no counts or a mean of 0.
pub fn relative_std_dev(counts: &[u64]) -> u64 {
    if counts.is_empty() {
        return 0;
    }
    let n = counts.len() as u128;
    let sum: u128 = counts.iter().map(|&c| u128::from(c)).sum();
    if sum == 0 {
        return 0;
    }
    // var * n^2 = n * sum(c^2) - sum^2; rsd = sqrt(var) / mean
    //           = sqrt(n * sum(c^2) - sum^2) / sum.
    let squares: u128 = counts.iter().map(|&c| u128::from(c) * u128::from(c)).sum();
    let spread = n * squares - sum * sum;
    // Per mille: sqrt(spread * 10^6) / sum, rounded to nearest.
    let root = isqrt(spread * 1_000_000);
    ((root + sum / 2) / sum) as u64
}

/// The integer square root (the largest `r` with `r * r <= x`).
fn isqrt(x: u128) -> u128 {
    if x < 2 {
        return x;
    }
    let mut r = 1u128 << (128 - x.leading_zeros()).div_ceil(2);
    loop {
        let next = (r + x / r) / 2;
        if next >= r {
            break;
        }
        r = next;
    }
    while r * r > x {
        r -= 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_roots_are_exact() {
        for x in 0..10_000u128 {
            let r = isqrt(x);
            assert!(r * r <= x && (r + 1) * (r + 1) > x, "{x} {r}");
        }
        assert_eq!(
            isqrt(u128::from(u64::MAX) * u128::from(u64::MAX)),
            u128::from(u64::MAX)
        );
    }

    #[test]
    fn relative_std_dev_in_per_mille() {
        assert_eq!(relative_std_dev(&[]), 0);
        assert_eq!(relative_std_dev(&[0, 0]), 0);
        assert_eq!(relative_std_dev(&[5, 5, 5]), 0);
        // mean 2, deviations 1: sd 1, rsd 500 per mille.
        assert_eq!(relative_std_dev(&[1, 3]), 500);
        // All on one of 4: mean 1, sd sqrt(3): 1732 per mille.
        assert_eq!(relative_std_dev(&[4, 0, 0, 0]), 1732);
    }

    #[test]
    fn counts_per_target_and_controller() {
        let mut c = Counters::new(&[0, 0, 1, 3]);
        for t in [0, 1, 2, 2, 3, 3, 3] {
            c.record(t);
        }
        assert_eq!(c.targets(), [1, 1, 2, 3]);
        assert_eq!(c.controllers(), [2, 2, 0, 3]);
        assert_eq!(c.total(), 7);
        c.add(&[1, 0, 0, 0]);
        assert_eq!(c.controllers(), [3, 2, 0, 3]);
        c.clear();
        assert_eq!(c.total(), 0);
    }
}
