// SPDX-License-Identifier: MIT OR Apache-2.0
//! Graphs for SSCA#2 kernel 4 (betweenness centrality): the R-MAT
//! generator, adjacency in compressed rows, and serial Brandes
//! computations to check a parallel one against. Pure functions.
//!
//! # The generator
//!
//! [`Rmat`] follows the SSCA#2 v2.2 scalable data generator:
//! `2^scale` vertices, `edge_factor × 2^scale` directed edges (SSCA#2:
//! 8), each placed by `scale` recursive choices of a quadrant of the
//! adjacency matrix with probabilities a = 0.55, b = 0.1, c = 0.1,
//! d = 0.25 ([`QUADRANT_PERCENT`], SSCA#2's values), then both ends
//! relabelled by a permutation of the vertices (SSCA#2 permutes the
//! vertex numbers so that the hubs are not the low numbers; here a fixed
//! bijection of the seed, [`Rmat::relabel`]). Edge `k` comes from a
//! generator seeded with the seed and `k` alone, so any core makes any
//! edge without the others. Self-loops and repeated edges stay, as in
//! SSCA#2. Left out: SSCA#2's edge weights (kernel 4 here counts every
//! edge) and its small per-level noise on the probabilities.
//!
//! # Betweenness in fixed point
//!
//! Brandes' dependency `δ(v) = Σ σ(v)/σ(w) · (1 + δ(w))` over the
//! successors `w` of `v` is held in fixed point with [`FRACTION_BITS`]
//! fraction bits, each term rounded down by [`share`]. Integer sums do
//! not depend on their order, so cores that add terms in any order get
//! the same bits as the serial [`brandes_fixed`]. Each term is at most
//! one unit of the last place low; a vertex's error stays below the
//! number of edges in units of the last place for each source, because
//! `Σ σ(v)/σ(w)` over the predecessors `v` of `w` is 1 and the errors
//! do not grow on the way back. [`tolerance`] adds that bound to a
//! relative margin for the floating-point [`brandes_f64`].

use alloc::vec;
use alloc::vec::Vec;

/// The R-MAT quadrant probabilities in percent: a (top left), b (top
/// right), c (bottom left), d (bottom right), SSCA#2 v2.2's 0.55, 0.1,
/// 0.1, 0.25.
pub const QUADRANT_PERCENT: [u32; 4] = [55, 10, 10, 25];

/// Fraction bits of a fixed-point dependency or centrality.
pub const FRACTION_BITS: u32 = 32;

/// 1 in fixed point.
pub const ONE: u64 = 1 << FRACTION_BITS;

/// A small generator (xorshift, multiplied on output), seeded per edge.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // splitmix64's finaliser, so neighbouring seeds start apart.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Self((z ^ (z >> 31)) | 1)
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

/// The R-MAT graph of SSCA#2: see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rmat {
    /// log2 of the vertex count.
    pub scale: u32,
    /// Edges per vertex.
    pub edge_factor: u32,
    /// Seed of the edges and of the relabelling.
    pub seed: u32,
}

impl Rmat {
    /// The vertex count, `2^scale`.
    pub fn vertices(&self) -> u32 {
        1 << self.scale
    }

    /// The edge count, `edge_factor × 2^scale`.
    pub fn edges(&self) -> u64 {
        u64::from(self.edge_factor) << self.scale
    }

    /// Edge `k` before relabelling: `(from, to)`.
    pub fn raw_edge(&self, k: u64) -> (u32, u32) {
        let mut rng = Rng::new((u64::from(self.seed) << 40) ^ k ^ 0x55A2_0000_0000_0000);
        let [a, b, c, _] = QUADRANT_PERCENT;
        let (mut from, mut to) = (0u32, 0u32);
        for _ in 0..self.scale {
            let r = rng.below(100);
            let (row, col) = if r < a {
                (0, 0)
            } else if r < a + b {
                (0, 1)
            } else if r < a + b + c {
                (1, 0)
            } else {
                (1, 1)
            };
            from = from << 1 | row;
            to = to << 1 | col;
        }
        (from, to)
    }

    /// Edge `k` (`k < edges()`): `(from, to)`.
    pub fn edge(&self, k: u64) -> (u32, u32) {
        let (from, to) = self.raw_edge(k);
        (self.relabel(from), self.relabel(to))
    }

    /// Every edge, in order.
    pub fn all_edges(&self) -> Vec<(u32, u32)> {
        (0..self.edges()).map(|k| self.edge(k)).collect()
    }

    /// The vertex permutation: a bijection of `0..2^scale` (multiplications
    /// by odd numbers and xor-shifts modulo `2^scale`, constants from the
    /// seed).
    pub fn relabel(&self, v: u32) -> u32 {
        if self.scale == 0 {
            return 0;
        }
        let mask = if self.scale >= 32 {
            u32::MAX
        } else {
            (1 << self.scale) - 1
        };
        let mut rng = Rng::new(u64::from(self.seed) ^ 0x7E1A_BE10_0000_0000);
        let (m1, m2) = (rng.next_u64() as u32 | 1, rng.next_u64() as u32 | 1);
        let add = rng.next_u64() as u32;
        let shift = self.scale.div_ceil(2);
        let mut x = v.wrapping_mul(m1).wrapping_add(add) & mask;
        x ^= x >> shift;
        x.wrapping_mul(m2) & mask
    }
}

/// Adjacency in compressed rows: the neighbours of `v` are
/// `targets[offsets[v]..offsets[v + 1]]`, in edge order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    /// The out-edges (`reverse` false) or in-edges (`reverse` true) of
    /// `vertices` vertices. Every end must be below `vertices`.
    pub fn new(vertices: u32, edges: &[(u32, u32)], reverse: bool) -> Self {
        let key = |&(f, t): &(u32, u32)| if reverse { (t, f) } else { (f, t) };
        let mut offsets = vec![0u32; vertices as usize + 1];
        for e in edges {
            offsets[key(e).0 as usize + 1] += 1;
        }
        for v in 0..vertices as usize {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets.clone();
        let mut targets = vec![0u32; edges.len()];
        for e in edges {
            let (v, w) = key(e);
            targets[next[v as usize] as usize] = w;
            next[v as usize] += 1;
        }
        Self { offsets, targets }
    }

    /// The vertex count.
    pub fn vertices(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// The neighbours of `v`.
    pub fn of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The number of neighbours of `v`.
    pub fn degree(&self, v: u32) -> u32 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }
}

/// `count` distinct sources with at least one out-edge, drawn from a
/// generator seeded with `seed` (as SSCA#2 draws its kernel-4 sources at
/// random); `None` if the graph has fewer such vertices.
pub fn sources(out: &Csr, count: u32, seed: u32) -> Option<Vec<u32>> {
    let n = out.vertices();
    let eligible = (0..n).filter(|&v| out.degree(v) > 0).count() as u32;
    if count > eligible {
        return None;
    }
    let mut rng = Rng::new(u64::from(seed) ^ 0x50C0_0000_0000_0000);
    let mut taken = vec![false; n as usize];
    let mut picked = Vec::with_capacity(count as usize);
    while (picked.len() as u32) < count {
        let v = rng.below(n);
        if out.degree(v) > 0 && !taken[v as usize] {
            taken[v as usize] = true;
            picked.push(v);
        }
    }
    Some(picked)
}

/// `v`'s share of successor `w`'s dependency in fixed point:
/// `⌊σ(v) · (1 + δ(w)) / σ(w)⌋`, with `σ(v) ≤ σ(w)` (a predecessor's
/// paths are some of its successor's), so it is at most `ONE + δ(w)`.
pub fn share(sigma_v: u64, sigma_w: u64, delta_w: u64) -> u64 {
    (u128::from(sigma_v) * (u128::from(ONE) + u128::from(delta_w)) / u128::from(sigma_w)) as u64
}

/// Why a serial computation stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// A shortest-path count does not fit a `u64`.
    PathCountOverflow {
        /// The source.
        source: u32,
        /// The vertex.
        vertex: u32,
    },
    /// A fixed-point centrality does not fit a `u64`.
    CentralityOverflow {
        /// The vertex.
        vertex: u32,
    },
}

impl core::fmt::Display for GraphError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::PathCountOverflow { source, vertex } => write!(
                f,
                "from source {source}, the shortest paths to vertex {vertex} number more than 2^64"
            ),
            Self::CentralityOverflow { vertex } => {
                write!(
                    f,
                    "the centrality of vertex {vertex} passes 2^{}",
                    64 - FRACTION_BITS
                )
            }
        }
    }
}

/// What a serial Brandes computation found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Betweenness {
    /// Each vertex's centrality in fixed point ([`FRACTION_BITS`]).
    pub centrality: Vec<u64>,
    /// Out-edges scanned by the forward searches: every out-edge of
    /// every vertex reached, once per source.
    pub edges: u64,
    /// The most levels of one search (the source's level counts).
    pub levels: u32,
}

/// One breadth-first search with path counts.
struct Search {
    /// Each vertex's level + 1, 0 if unreached.
    level: Vec<u32>,
    /// Each vertex's shortest paths from the source.
    sigma: Vec<u64>,
    /// The vertices in the order reached.
    order: Vec<u32>,
}

/// The search from `s`.
fn search(out: &Csr, s: u32) -> Result<Search, GraphError> {
    let n = out.vertices() as usize;
    let (mut level, mut sigma) = (vec![0u32; n], vec![0u64; n]);
    level[s as usize] = 1;
    sigma[s as usize] = 1;
    let mut order = vec![s];
    let mut at = 0;
    while at < order.len() {
        let v = order[at];
        at += 1;
        for &w in out.of(v) {
            let wi = w as usize;
            if level[wi] == 0 {
                level[wi] = level[v as usize] + 1;
                order.push(w);
            }
            if level[wi] == level[v as usize] + 1 {
                sigma[wi] = sigma[wi].checked_add(sigma[v as usize]).ok_or(
                    GraphError::PathCountOverflow {
                        source: s,
                        vertex: w,
                    },
                )?;
            }
        }
    }
    Ok(Search {
        level,
        sigma,
        order,
    })
}

/// Brandes' algorithm from each of `sources` over the out-edges `out`, in
/// fixed point with [`share`]: the centrality the parallel computation
/// must match bit for bit.
///
/// Return values: `Err` when a path count or a centrality overflows.
pub fn brandes_fixed(out: &Csr, sources: &[u32]) -> Result<Betweenness, GraphError> {
    let n = out.vertices() as usize;
    let mut centrality = vec![0u64; n];
    let (mut edges, mut levels) = (0u64, 0u32);
    for &s in sources {
        let Search {
            level,
            sigma,
            order,
        } = search(out, s)?;
        let mut delta = vec![0u64; n];
        for &v in order.iter().rev() {
            let vi = v as usize;
            edges += u64::from(out.degree(v));
            levels = levels.max(level[vi]);
            for &w in out.of(v) {
                let wi = w as usize;
                if level[wi] == level[vi] + 1 {
                    delta[vi] = delta[vi].wrapping_add(share(sigma[vi], sigma[wi], delta[wi]));
                }
            }
            if v != s {
                centrality[vi] = centrality[vi]
                    .checked_add(delta[vi])
                    .ok_or(GraphError::CentralityOverflow { vertex: v })?;
            }
        }
    }
    Ok(Betweenness {
        centrality,
        edges,
        levels,
    })
}

/// Brandes' algorithm from each of `sources` in `f64`.
///
/// Return values: `Err` when a path count overflows a `u64`.
pub fn brandes_f64(out: &Csr, sources: &[u32]) -> Result<Vec<f64>, GraphError> {
    let n = out.vertices() as usize;
    let mut centrality = vec![0f64; n];
    for &s in sources {
        let Search {
            level,
            sigma,
            order,
        } = search(out, s)?;
        let mut delta = vec![0f64; n];
        for &v in order.iter().rev() {
            let vi = v as usize;
            for &w in out.of(v) {
                let wi = w as usize;
                if level[wi] == level[vi] + 1 {
                    delta[vi] += sigma[vi] as f64 / sigma[wi] as f64 * (1.0 + delta[wi]);
                }
            }
            if v != s {
                centrality[vi] += delta[vi];
            }
        }
    }
    Ok(centrality)
}

/// The largest difference allowed between a fixed-point centrality and
/// the `f64` one of value `exact`, for `sources` sources over `edges`
/// edges: one unit of the last place per edge and source (the rounding
/// down of [`share`], see the [module docs](self)), plus `1e-9` of
/// the value for the `f64` rounding.
pub fn tolerance(sources: u32, edges: u64, exact: f64) -> f64 {
    (f64::from(sources) * edges as f64) / ONE as f64 + 1e-9 * (1.0 + exact.abs())
}

/// A fixed-point value as a float.
pub fn to_f64(fixed: u64) -> f64 {
    fixed as f64 / ONE as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(n: u32, edges: &[(u32, u32)]) -> Csr {
        Csr::new(n, edges, false)
    }

    fn all(n: u32) -> Vec<u32> {
        (0..n).collect()
    }

    #[test]
    fn a_path_has_its_inner_vertices_between() {
        // 0 → 1 → 2 → 3: vertex 1 lies on (0,2) and (0,3), 2 on (0,3)
        // and (1,3).
        let g = csr(4, &[(0, 1), (1, 2), (2, 3)]);
        let b = brandes_fixed(&g, &all(4)).unwrap();
        assert_eq!(b.centrality, vec![0, 2 * ONE, 2 * ONE, 0]);
        assert_eq!(b.edges, 3 + 2 + 1);
        assert_eq!(b.levels, 4);
        assert_eq!(brandes_f64(&g, &all(4)).unwrap(), vec![0.0, 2.0, 2.0, 0.0]);
    }

    #[test]
    fn a_star_has_its_centre_between_every_pair_of_leaves() {
        // Centre 0 and leaves 1..=4, both ways: 4 × 3 ordered pairs.
        let edges: Vec<_> = (1..=4).flat_map(|l| [(0, l), (l, 0)]).collect();
        let g = csr(5, &edges);
        let b = brandes_fixed(&g, &all(5)).unwrap();
        assert_eq!(b.centrality, vec![12 * ONE, 0, 0, 0, 0]);
    }

    #[test]
    fn two_equal_paths_share_the_pair() {
        // 0 → {1, 2} → 3: each middle vertex carries half of (0, 3).
        let g = csr(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let b = brandes_fixed(&g, &[0]).unwrap();
        assert_eq!(b.centrality, vec![0, ONE / 2, ONE / 2, 0]);
        // A repeated edge is a second path.
        let g = csr(4, &[(0, 1), (0, 2), (1, 3), (1, 3), (2, 3)]);
        let b = brandes_fixed(&g, &[0]).unwrap();
        assert_eq!(
            b.centrality,
            vec![0, 2 * (ONE / 3), ONE / 3, 0],
            "2/3 and 1/3 rounded down per term"
        );
    }

    /// All-pairs betweenness by definition: `σ_st(v) = σ_sv σ_vt` when
    /// `d(s,v) + d(v,t) = d(s,t)`.
    fn by_definition(g: &Csr, sources: &[u32]) -> Vec<f64> {
        let n = g.vertices();
        let table: Vec<(Vec<u32>, Vec<u64>)> = (0..n)
            .map(|s| {
                let r = search(g, s).unwrap();
                (r.level, r.sigma)
            })
            .collect();
        let mut c = vec![0f64; n as usize];
        for &s in sources {
            let (ls, ss) = &table[s as usize];
            for t in (0..n).filter(|&t| t != s && ls[t as usize] != 0) {
                for v in (0..n).filter(|&v| v != s && v != t && ls[v as usize] != 0) {
                    let (lv, sv) = &table[v as usize];
                    let (dsv, dvt) = (ls[v as usize] - 1, lv[t as usize]);
                    if dvt != 0 && dsv + dvt - 1 == ls[t as usize] - 1 {
                        c[v as usize] +=
                            (ss[v as usize] * sv[t as usize]) as f64 / ss[t as usize] as f64;
                    }
                }
            }
        }
        c
    }

    #[test]
    fn brandes_matches_the_definition_on_small_rmat_graphs() {
        for seed in 0..6 {
            let r = Rmat {
                scale: 5,
                edge_factor: 3,
                seed,
            };
            let g = csr(r.vertices(), &r.all_edges());
            let want = by_definition(&g, &all(r.vertices()));
            let float = brandes_f64(&g, &all(r.vertices())).unwrap();
            let fixed = brandes_fixed(&g, &all(r.vertices())).unwrap();
            for v in 0..r.vertices() as usize {
                assert!((float[v] - want[v]).abs() < 1e-9, "{seed} {v}");
                let got = to_f64(fixed.centrality[v]);
                let tol = tolerance(r.vertices(), r.edges(), want[v]);
                assert!(got <= want[v] + 1e-9 && want[v] - got <= tol, "{seed} {v}");
            }
        }
    }

    #[test]
    fn dependencies_sum_to_the_path_lengths() {
        // Σ_v δ_s(v) over v ≠ s is Σ_t (d(s,t) − 1) over the t reached.
        let r = Rmat {
            scale: 9,
            edge_factor: 8,
            seed: 3,
        };
        let g = csr(r.vertices(), &r.all_edges());
        let src = sources(&g, 16, 1).unwrap();
        let float = brandes_f64(&g, &src).unwrap();
        let fixed = brandes_fixed(&g, &src).unwrap();
        let mut hops = 0u64;
        for &s in &src {
            let level = search(&g, s).unwrap().level;
            hops += level
                .iter()
                .filter(|&&l| l > 1)
                .map(|&l| u64::from(l - 2))
                .sum::<u64>();
        }
        let sum: f64 = float.iter().sum();
        assert!(
            (sum - hops as f64).abs() < 1e-6 * hops as f64,
            "{sum} {hops}"
        );
        for (v, (&f, &x)) in float.iter().zip(&fixed.centrality).enumerate() {
            let tol = tolerance(16, r.edges(), f);
            assert!((to_f64(x) - f).abs() <= tol, "{v}");
        }
        assert!(fixed.levels > 2 && fixed.edges > 0);
    }

    #[test]
    fn edges_are_deterministic_in_range_and_independent() {
        let r = Rmat {
            scale: 10,
            edge_factor: 8,
            seed: 7,
        };
        let edges = r.all_edges();
        assert_eq!(edges.len() as u64, r.edges());
        assert!(edges.iter().all(|&(f, t)| f < 1024 && t < 1024));
        for k in [0u64, 1, 500, 8191] {
            assert_eq!(r.edge(k), edges[k as usize]);
        }
        let other = Rmat { seed: 8, ..r };
        assert_ne!(other.all_edges(), edges);
    }

    #[test]
    fn quadrants_follow_the_ssca2_probabilities() {
        // The top-level quadrant of 200,000 raw edges: within 0.5
        // percentage points of a, b, c, d (the standard error is below
        // 0.12 points).
        let r = Rmat {
            scale: 6,
            edge_factor: 1,
            seed: 1,
        };
        let mut count = [0u32; 4];
        let k = 200_000u32;
        for e in 0..k {
            let (f, t) = r.raw_edge(u64::from(e));
            count[((f >> 5) * 2 + (t >> 5)) as usize] += 1;
        }
        for (q, &c) in count.iter().enumerate() {
            let permille = c * 1000 / k;
            let want = QUADRANT_PERCENT[q] * 10;
            assert!(permille.abs_diff(want) <= 5, "quadrant {q}: {permille} ‰");
        }
    }

    #[test]
    fn relabelling_is_a_bijection() {
        for scale in 0..=12 {
            for seed in [0, 1, 99] {
                let r = Rmat {
                    scale,
                    edge_factor: 1,
                    seed,
                };
                let mut seen = vec![false; r.vertices() as usize];
                for v in 0..r.vertices() {
                    let w = r.relabel(v);
                    assert!(!seen[w as usize], "{scale} {seed} {v}");
                    seen[w as usize] = true;
                }
            }
        }
    }

    #[test]
    fn compressed_rows_keep_edge_order() {
        let e = [(2, 0), (0, 1), (2, 1), (0, 3)];
        let out = Csr::new(4, &e, false);
        assert_eq!(out.of(0), &[1, 3]);
        assert_eq!(out.of(1), &[] as &[u32]);
        assert_eq!(out.of(2), &[0, 1]);
        let inn = Csr::new(4, &e, true);
        assert_eq!(inn.of(1), &[0, 2]);
        assert_eq!(inn.degree(3), 1);
    }

    #[test]
    fn sources_are_distinct_and_have_out_edges() {
        let r = Rmat {
            scale: 8,
            edge_factor: 8,
            seed: 1,
        };
        let g = csr(r.vertices(), &r.all_edges());
        let s = sources(&g, 64, 5).unwrap();
        assert_eq!(s, sources(&g, 64, 5).unwrap());
        let mut sorted = s.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 64);
        assert!(s.iter().all(|&v| g.degree(v) > 0));
        assert_eq!(sources(&csr(3, &[(0, 1)]), 2, 0), None);
    }
}
