// SPDX-License-Identifier: MIT OR Apache-2.0
//! Global pointers and distributions.
//!
//! A global array of `len` elements is cut into lines of `line`
//! elements (a cache line's worth: 32 bytes on the SCC). Lines, not
//! elements, are what a distribution places, so an element never shares
//! its line with another owner's (no false sharing between owners):
//! - [`Distribution::Block`]: owner `k` holds one run of consecutive
//!   lines, the `k`-th of `owners` equal runs (the last may be short);
//! - [`Distribution::Cyclic`]: line `l` goes to owner `l mod owners`;
//! - [`Distribution::Hashed`]: lines are first permuted by a fixed
//!   pseudo-random bijection of `0..lines`, then placed cyclically, so
//!   regular strides do not map to one owner and every owner still holds
//!   the same number of lines (plus or minus one).
//!
//! [`Spread`] says which rank the `k`-th owner slot is: rank `k`
//! ([`Spread::Owners`]), or ranks taken one memory controller after the
//! other ([`Spread::Controllers`]), so consecutive lines of a cyclic or
//! hashed array also alternate between controllers.

use alloc::vec::Vec;

/// An element of the global address space: the rank whose part holds it
/// and its index (in elements) in that part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalPtr {
    /// The owning rank.
    pub owner: u32,
    /// The element's index in the owner's part.
    pub offset: u32,
}

/// How lines are placed on owners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// Equal runs of consecutive lines.
    Block,
    /// Line `l` on owner slot `l mod owners`.
    Cyclic,
    /// Lines permuted pseudo-randomly, then cyclic.
    Hashed,
}

impl Distribution {
    /// Every distribution, in the order of [`Distribution::NAMES`].
    pub const ALL: [Self; 3] = [Self::Block, Self::Cyclic, Self::Hashed];
    /// Their names.
    pub const NAMES: [&'static str; 3] = ["block", "cyclic", "hashed"];

    /// The distribution called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|&n| n == name)
            .map(|i| Self::ALL[i])
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// Which rank each owner slot is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// Slot `k` is rank `k`.
    Owners,
    /// Slots go round the memory controllers: slot 0 is the first rank of
    /// the first controller, slot 1 the first rank of the next, and so on.
    Controllers,
}

/// Why a layout cannot be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutError {
    /// No owners.
    NoOwners,
    /// A line of 0 elements.
    EmptyLine,
    /// An owner's part would not fit a `u32` index.
    TooLarge,
}

impl core::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoOwners => write!(f, "a global array needs at least one owner"),
            Self::EmptyLine => write!(f, "a line needs at least one element"),
            Self::TooLarge => write!(f, "an owner's part would exceed 2^32 elements"),
        }
    }
}

/// Where every element of one global array lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    dist: Distribution,
    len: u64,
    line: u32,
    lines: u64,
    /// Lines per owner slot (the most any slot holds).
    per_slot: u64,
    /// The rank of each owner slot.
    ranks: Vec<u32>,
    /// The slot of each rank.
    slots: Vec<u32>,
}

impl Layout {
    /// A layout of `len` elements in lines of `line` over `owners` ranks,
    /// rank `r` at memory controller `controllers[r]`.
    ///
    /// Return values: `Err` for no owners (an empty `controllers`), an
    /// empty line or parts beyond `u32` indices.
    pub fn new(
        dist: Distribution,
        spread: Spread,
        len: u64,
        line: u32,
        controllers: &[u32],
    ) -> Result<Self, LayoutError> {
        let owners = controllers.len() as u32;
        if owners == 0 {
            return Err(LayoutError::NoOwners);
        }
        if line == 0 {
            return Err(LayoutError::EmptyLine);
        }
        let lines = len.div_ceil(u64::from(line));
        let per_slot = lines.div_ceil(u64::from(owners));
        if per_slot * u64::from(line) > u64::from(u32::MAX) {
            return Err(LayoutError::TooLarge);
        }
        let ranks = match spread {
            Spread::Owners => (0..owners).collect(),
            Spread::Controllers => interleave(controllers),
        };
        let mut slots = alloc::vec![0; owners as usize];
        for (slot, &rank) in ranks.iter().enumerate() {
            slots[rank as usize] = slot as u32;
        }
        Ok(Self {
            dist,
            len,
            line,
            lines,
            per_slot,
            ranks,
            slots,
        })
    }

    /// The distribution.
    pub fn distribution(&self) -> Distribution {
        self.dist
    }

    /// Elements of the array.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The owners.
    pub fn owners(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// Elements every owner's part has room for (the same for all).
    pub fn part_len(&self) -> u32 {
        (self.per_slot * u64::from(self.line)) as u32
    }

    /// Where element `index` lives.
    ///
    /// # Panics
    /// If `index` is not below [`Layout::len`].
    pub fn locate(&self, index: u64) -> GlobalPtr {
        assert!(index < self.len, "element {index} of {}", self.len);
        let line = index / u64::from(self.line);
        let within = index % u64::from(self.line);
        let owners = u64::from(self.owners());
        let (slot, slot_line) = match self.dist {
            Distribution::Block => (line / self.per_slot, line % self.per_slot),
            Distribution::Cyclic => (line % owners, line / owners),
            Distribution::Hashed => {
                let l = permute(line, self.lines);
                (l % owners, l / owners)
            }
        };
        GlobalPtr {
            owner: self.ranks[slot as usize],
            offset: (slot_line * u64::from(self.line) + within) as u32,
        }
    }

    /// The element at `ptr`, or `None` if no element lives there (the
    /// padding at the end of a part).
    pub fn index_of(&self, ptr: GlobalPtr) -> Option<u64> {
        let slot = u64::from(*self.slots.get(ptr.owner as usize)?);
        let slot_line = u64::from(ptr.offset / self.line);
        if slot_line >= self.per_slot {
            return None;
        }
        let owners = u64::from(self.owners());
        let line = match self.dist {
            Distribution::Block => slot * self.per_slot + slot_line,
            Distribution::Cyclic => slot_line * owners + slot,
            Distribution::Hashed => {
                let l = slot_line * owners + slot;
                if l >= self.lines {
                    return None;
                }
                unpermute(l, self.lines)
            }
        };
        let index = line * u64::from(self.line) + u64::from(ptr.offset % self.line);
        (index < self.len).then_some(index)
    }
}

/// The ranks in controller-interleaved order: the first rank of each
/// controller (controllers in increasing order), then the second, ...
fn interleave(controllers: &[u32]) -> Vec<u32> {
    let mut ids: Vec<u32> = controllers.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut queues: Vec<Vec<u32>> = ids
        .iter()
        .map(|&c| {
            (0..controllers.len() as u32)
                .filter(|&r| controllers[r as usize] == c)
                .collect()
        })
        .collect();
    for q in &mut queues {
        q.reverse();
    }
    let mut ranks = Vec::with_capacity(controllers.len());
    while ranks.len() < controllers.len() {
        for q in &mut queues {
            if let Some(r) = q.pop() {
                ranks.push(r);
            }
        }
    }
    ranks
}

/// Bits to hold values below `n` (at least 2).
fn bits_for(n: u64) -> u32 {
    (64 - (n.max(4) - 1).leading_zeros()).max(2)
}

/// A bijection of `0..2^bits`: a multiply by an odd constant, an add and
/// a xor-shift, each invertible modulo `2^bits`.
fn mix(x: u64, bits: u32) -> u64 {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let x = x
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x632B_E5AB)
        & mask;
    x ^ (x >> bits.div_ceil(2))
}

/// The inverse of [`mix`].
fn unmix(y: u64, bits: u32) -> u64 {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    // Undo the xor-shift by `s >= bits / 2`: one more shift suffices.
    let s = bits.div_ceil(2);
    let x = y ^ (y >> s);
    let x = x.wrapping_sub(0x632B_E5AB) & mask;
    x.wrapping_mul(inverse_odd(0x9E37_79B9_7F4A_7C15)) & mask
}

/// The inverse of an odd `a` modulo 2^64 (Newton's iteration).
const fn inverse_odd(a: u64) -> u64 {
    let mut x = a;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
        i += 1;
    }
    x
}

/// A pseudo-random bijection of `0..n`: a bijection of the next power of
/// two (multiply, add, xor-shift) applied again until `x` falls below `n`
/// (cycle walking).
pub fn permute(x: u64, n: u64) -> u64 {
    let bits = bits_for(n);
    let mut y = mix(x, bits);
    while y >= n {
        y = mix(y, bits);
    }
    y
}

/// The inverse of [`permute`].
pub fn unpermute(y: u64, n: u64) -> u64 {
    let bits = bits_for(n);
    let mut x = unmix(y, bits);
    while x >= n {
        x = unmix(x, bits);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn layout(dist: Distribution, spread: Spread, len: u64, line: u32, owners: u32) -> Layout {
        let controllers: Vec<u32> = (0..owners).map(|r| (r / 3) % 4).collect();
        Layout::new(dist, spread, len, line, &controllers).unwrap()
    }

    #[test]
    fn mix_and_permute_are_bijections() {
        for bits in [2, 3, 7, 16] {
            let n = 1u64 << bits;
            let image: HashSet<u64> = (0..n).map(|x| mix(x, bits)).collect();
            assert_eq!(image.len() as u64, n);
            for x in 0..n {
                assert_eq!(unmix(mix(x, bits), bits), x, "bits {bits} x {x}");
            }
        }
        for n in [1, 2, 3, 5, 100, 1000, 4097] {
            let image: HashSet<u64> = (0..n).map(|x| permute(x, n)).collect();
            assert_eq!(image.len() as u64, n, "n {n}");
            assert!(image.iter().all(|&y| y < n));
            for x in 0..n {
                assert_eq!(unpermute(permute(x, n), n), x);
            }
        }
    }

    #[test]
    fn every_layout_is_a_bijection_onto_its_parts() {
        for dist in Distribution::ALL {
            for spread in [Spread::Owners, Spread::Controllers] {
                for (len, line, owners) in [(1, 8, 1), (1000, 8, 7), (4096, 8, 48), (333, 1, 5)] {
                    let l = layout(dist, spread, len, line, owners);
                    let mut seen = HashSet::new();
                    let mut per_owner = vec![0u32; owners as usize];
                    for i in 0..len {
                        let p = l.locate(i);
                        assert!(
                            p.owner < owners && p.offset < l.part_len(),
                            "{dist:?} {i} {p:?}"
                        );
                        assert!(seen.insert(p), "{dist:?} {i} lands on {p:?} twice");
                        assert_eq!(l.index_of(p), Some(i), "{dist:?} {spread:?} {i}");
                        per_owner[p.owner as usize] += 1;
                    }
                    // Nothing lives in the unused places.
                    for o in 0..owners {
                        for off in 0..l.part_len() {
                            let p = GlobalPtr {
                                owner: o,
                                offset: off,
                            };
                            assert_eq!(l.index_of(p).is_some(), seen.contains(&p));
                        }
                    }
                    if dist != Distribution::Block {
                        let lines_per = |n: u32| n.div_ceil(line);
                        let max = per_owner.iter().map(|&n| lines_per(n)).max().unwrap();
                        let min = per_owner.iter().map(|&n| lines_per(n)).min().unwrap();
                        assert!(max - min <= 1, "{dist:?} unbalanced: {per_owner:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn lines_stay_whole_and_distributions_place_as_documented() {
        let b = layout(Distribution::Block, Spread::Owners, 64, 4, 4);
        assert_eq!(b.part_len(), 16);
        assert_eq!(
            b.locate(17),
            GlobalPtr {
                owner: 1,
                offset: 1
            }
        );
        let c = layout(Distribution::Cyclic, Spread::Owners, 64, 4, 4);
        assert_eq!(
            c.locate(5),
            GlobalPtr {
                owner: 1,
                offset: 1
            }
        );
        assert_eq!(
            c.locate(17),
            GlobalPtr {
                owner: 0,
                offset: 5
            }
        );
        let h = layout(Distribution::Hashed, Spread::Owners, 4096, 8, 16);
        for line in 0..512u64 {
            let first = h.locate(line * 8);
            for k in 1..8 {
                let p = h.locate(line * 8 + k);
                assert_eq!((p.owner, p.offset), (first.owner, first.offset + k as u32));
            }
        }
        // A stride of 16 lines hits one owner under cyclic, many hashed.
        let owners = |l: &Layout| {
            (0..32u64)
                .map(|k| l.locate(k * 16 * 8).owner)
                .collect::<HashSet<_>>()
                .len()
        };
        let c = layout(Distribution::Cyclic, Spread::Owners, 4096, 8, 16);
        assert_eq!(owners(&c), 1);
        assert!(owners(&h) >= 8, "{}", owners(&h));
    }

    #[test]
    fn controllers_spread_interleaves() {
        // Ranks 0-2 on controller 0, 3-5 on 1, 6-8 on 2, 9-11 on 3.
        let l = layout(Distribution::Cyclic, Spread::Controllers, 96, 1, 12);
        let first: Vec<u32> = (0..8).map(|i| l.locate(i).owner).collect();
        assert_eq!(first, [0, 3, 6, 9, 1, 4, 7, 10]);
        assert_eq!(interleave(&[1, 0, 1, 0, 2]), [1, 0, 4, 3, 2]);
    }

    #[test]
    fn bad_layouts_are_refused_by_name() {
        assert_eq!(
            Layout::new(Distribution::Block, Spread::Owners, 10, 8, &[]),
            Err(LayoutError::NoOwners)
        );
        assert_eq!(
            Layout::new(Distribution::Block, Spread::Owners, 10, 0, &[0]),
            Err(LayoutError::EmptyLine)
        );
        assert_eq!(
            Layout::new(Distribution::Block, Spread::Owners, 1 << 40, 8, &[0]),
            Err(LayoutError::TooLarge)
        );
        assert_eq!(
            Distribution::from_name("hashed"),
            Some(Distribution::Hashed)
        );
        assert_eq!(Distribution::from_name("random"), None);
    }
}
