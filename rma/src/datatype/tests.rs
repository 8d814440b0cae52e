// SPDX-License-Identifier: MIT OR Apache-2.0
//! Datatypes: every constructor's runs and bounds against a naive
//! element-by-element expansion (exhaustive over small arguments, and
//! random nested types), the pairing of runs, and every constructor's
//! refusal. The operations that take them are tested on the mock in
//! `transfers.rs`.

use std::collections::BTreeSet;
use std::string::ToString;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::ErrorClass;

mod transfers;

/// Bytes of the element the tests build types of (`u32`).
const B: i64 = 4;

/// A datatype as the tests describe it, built with the constructors and
/// expanded naively. Byte arguments (`Hvector`, `Hindexed`, `Struct`) are
/// in bytes.
#[derive(Debug, Clone)]
enum Spec {
    Element,
    Contiguous(u32, Box<Spec>),
    Vector(u32, u32, i64, Box<Spec>),
    Hvector(u32, u32, i64, Box<Spec>),
    Indexed(Vec<Block>, Box<Spec>),
    Hindexed(Vec<Block>, Box<Spec>),
    IndexedBlock(u32, Vec<i64>, Box<Spec>),
    /// Sizes, subsizes, starts.
    Subarray(Vec<(u32, u32, u32)>, Box<Spec>),
    Struct(Vec<(u32, i64, Spec)>),
}

impl Spec {
    fn build(&self) -> Datatype<u32> {
        let e = Datatype::element();
        match self {
            Self::Element => Ok(e),
            Self::Contiguous(n, old) => Datatype::contiguous(*n, &old.build()),
            Self::Vector(c, b, s, old) => Datatype::vector(*c, *b, *s, &old.build()),
            Self::Hvector(c, b, s, old) => Datatype::hvector(*c, *b, *s, &old.build()),
            Self::Indexed(blocks, old) => Datatype::indexed(blocks, &old.build()),
            Self::Hindexed(blocks, old) => Datatype::hindexed(blocks, &old.build()),
            Self::IndexedBlock(b, d, old) => Datatype::indexed_block(*b, d, &old.build()),
            Self::Subarray(dims, old) => {
                let sizes: Vec<u32> = dims.iter().map(|d| d.0).collect();
                let subsizes: Vec<u32> = dims.iter().map(|d| d.1).collect();
                let starts: Vec<u32> = dims.iter().map(|d| d.2).collect();
                Datatype::subarray(&sizes, &subsizes, &starts, &old.build())
            }
            Self::Struct(blocks) => {
                let types: Vec<Datatype<u32>> = blocks.iter().map(|b| b.2.build()).collect();
                let blocks: Vec<StructBlock<'_, u32>> = blocks
                    .iter()
                    .zip(&types)
                    .map(|(b, ty)| StructBlock::new(b.0, b.1, ty))
                    .collect();
                Datatype::structure(&blocks)
            }
        }
        .expect("the tests' types are valid")
    }
}

/// A type's elements in order and its bounds, from MPI's definitions:
/// each copy of an old type at a position contributes its elements, and
/// its lower and upper bound as markers.
#[derive(Debug, Default)]
struct Naive {
    elements: Vec<i64>,
    marks: Option<(i64, i64)>,
}

impl Naive {
    fn lb(&self) -> i64 {
        self.marks.map_or(0, |m| m.0)
    }

    fn ub(&self) -> i64 {
        self.marks.map_or(0, |m| m.1)
    }

    fn extent(&self) -> i64 {
        self.ub() - self.lb()
    }

    /// One copy of `old` at `at`.
    fn add(&mut self, old: &Naive, at: i64) {
        self.elements.extend(old.elements.iter().map(|e| e + at));
        let (lo, hi) = (at + old.lb(), at + old.ub());
        self.marks = Some(self.marks.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
    }
}

fn naive(spec: &Spec) -> Naive {
    let mut n = Naive::default();
    match spec {
        Spec::Element => {
            n.elements.push(0);
            n.marks = Some((0, 1));
        }
        Spec::Contiguous(count, old) => {
            let old = naive(old);
            for i in 0..i64::from(*count) {
                n.add(&old, i * old.extent());
            }
        }
        Spec::Vector(count, blocklen, stride, old)
        | Spec::Hvector(count, blocklen, stride, old) => {
            let old = naive(old);
            let stride = match spec {
                Spec::Vector(..) => stride * old.extent(),
                _ => stride / B,
            };
            for j in 0..i64::from(*count) {
                for i in 0..i64::from(*blocklen) {
                    n.add(&old, j * stride + i * old.extent());
                }
            }
        }
        Spec::Indexed(blocks, old) | Spec::Hindexed(blocks, old) => {
            let old = naive(old);
            for b in blocks {
                let disp = match spec {
                    Spec::Indexed(..) => b.disp * old.extent(),
                    _ => b.disp / B,
                };
                for i in 0..i64::from(b.len) {
                    n.add(&old, disp + i * old.extent());
                }
            }
        }
        Spec::IndexedBlock(blocklen, disps, old) => {
            let old = naive(old);
            for d in disps {
                for i in 0..i64::from(*blocklen) {
                    n.add(&old, (d + i) * old.extent());
                }
            }
        }
        Spec::Subarray(dims, old) => {
            let old = naive(old);
            // Every index of the part, in C order (the last fastest).
            let mut indices = vec![Vec::new()];
            for &(_, sub, start) in dims {
                indices = indices
                    .into_iter()
                    .flat_map(|prefix: Vec<i64>| {
                        (start..start + sub).map(move |i| {
                            let mut p = prefix.clone();
                            p.push(i64::from(i));
                            p
                        })
                    })
                    .collect();
            }
            for index in indices {
                let at = dims
                    .iter()
                    .zip(&index)
                    .fold(0, |at, (d, &i)| at * i64::from(d.0) + i);
                n.add(&old, at * old.extent());
            }
            let all: i64 = dims.iter().map(|d| i64::from(d.0)).product();
            n.marks = Some((0, all * old.extent()));
        }
        Spec::Struct(blocks) => {
            for (len, disp, ty) in blocks {
                let old = naive(ty);
                for i in 0..i64::from(*len) {
                    n.add(&old, disp / B + i * old.extent());
                }
            }
        }
    }
    n
}

/// The elements of `runs`, in order.
fn expand(runs: impl IntoIterator<Item = Run>) -> Vec<i64> {
    runs.into_iter()
        .flat_map(|r| r.start..r.start + r.len as i64)
        .collect()
}

/// Checks a committed type against the naive expansion of its spec.
fn check_against_naive(spec: &Spec) -> Result<(), TestCaseError> {
    let ty = spec.build();
    let want = naive(spec);
    let committed = ty.commit().expect("small types commit");
    let runs = committed.runs();
    prop_assert_eq!(
        expand(runs.iter().copied()),
        want.elements.clone(),
        "{:?}",
        spec
    );
    for r in runs {
        prop_assert!(r.len > 0, "an empty run in {:?}", runs);
    }
    for w in runs.windows(2) {
        prop_assert!(w[0].end() != w[1].start, "unmerged runs {:?}", runs);
    }
    let shape = committed.shape();
    prop_assert_eq!(shape, ty.shape());
    prop_assert_eq!(shape.size, want.elements.len() as u64);
    prop_assert_eq!((shape.lb, shape.extent), (want.lb(), want.extent() as u64));
    let (true_lb, true_ub) = match (want.elements.iter().min(), want.elements.iter().max()) {
        (Some(&lo), Some(&hi)) => (lo, hi + 1),
        _ => (0, 0),
    };
    prop_assert_eq!(
        (shape.true_lb, shape.true_extent),
        (true_lb, (true_ub - true_lb) as u64)
    );
    let distinct: BTreeSet<i64> = want.elements.iter().copied().collect();
    prop_assert_eq!(
        committed.overlapping(),
        distinct.len() != want.elements.len()
    );
    Ok(())
}

fn check(spec: Spec) {
    check_against_naive(&spec).unwrap();
}

fn e() -> Box<Spec> {
    Box::new(Spec::Element)
}

/// Old types the exhaustive tests nest: an element, a dense pair, a
/// type with a gap and a type with a negative lower bound.
fn olds() -> Vec<Spec> {
    vec![
        Spec::Element,
        Spec::Contiguous(2, e()),
        Spec::Vector(2, 1, 3, e()),
        Spec::Hindexed(vec![Block::new(1, -8), Block::new(2, 4)], e()),
    ]
}

#[test]
fn vectors_and_hvectors_match_the_naive_expansion() {
    for old in olds().into_iter().map(Box::new) {
        for count in 0..4 {
            for blocklen in 0..4 {
                for stride in -4..=4 {
                    check(Spec::Vector(count, blocklen, stride, old.clone()));
                    check(Spec::Hvector(count, blocklen, stride * B, old.clone()));
                }
            }
            check(Spec::Contiguous(count, old.clone()));
        }
    }
}

#[test]
fn indexed_types_match_the_naive_expansion() {
    let blocks: Vec<Block> = (0..3)
        .flat_map(|len| (-3..=3).map(move |disp| Block::new(len, disp)))
        .collect();
    for old in olds().into_iter().map(Box::new) {
        for a in &blocks {
            check(Spec::Indexed(vec![*a], old.clone()));
            for b in &blocks {
                check(Spec::Indexed(vec![*a, *b], old.clone()));
                let bytes = vec![Block::new(a.len, a.disp * B), Block::new(b.len, b.disp * B)];
                check(Spec::Hindexed(bytes, old.clone()));
                check(Spec::IndexedBlock(a.len, vec![a.disp, b.disp], old.clone()));
            }
        }
        check(Spec::Indexed(vec![], old.clone()));
        check(Spec::IndexedBlock(2, vec![], old.clone()));
    }
}

#[test]
fn subarrays_match_the_naive_expansion() {
    // Every part of every array of up to 3x3, and of some of 3 dimensions.
    let parts = |size: u32| {
        (0..=size).flat_map(move |sub| (0..=size - sub).map(move |start| (size, sub, start)))
    };
    for old in olds().into_iter().map(Box::new) {
        for rows in 1..=3 {
            for cols in 1..=3 {
                for r in parts(rows) {
                    check(Spec::Subarray(vec![r], old.clone()));
                    for c in parts(cols) {
                        check(Spec::Subarray(vec![r, c], old.clone()));
                    }
                }
            }
        }
        for a in parts(2) {
            for b in parts(3) {
                for c in parts(2) {
                    check(Spec::Subarray(vec![a, b, c], old.clone()));
                }
            }
        }
    }
}

#[test]
fn structures_match_the_naive_expansion() {
    let types = olds();
    for (i, a) in types.iter().enumerate() {
        for b in &types[i..] {
            for len in 0..3 {
                for disp in -3..=3 {
                    check(Spec::Struct(vec![
                        (2, 0, a.clone()),
                        (len, disp * B, b.clone()),
                    ]));
                }
            }
        }
    }
    check(Spec::Struct(vec![]));
}

#[test]
fn shapes_are_mpi_bounds_in_elements() {
    let e = Datatype::<f64>::element();
    assert_eq!(
        e.shape(),
        Shape {
            size: 1,
            lb: 0,
            extent: 1,
            true_lb: 0,
            true_extent: 1
        }
    );
    // A column of a 4x4 matrix, and the transpose built from it: each
    // copy one element further, so the whole matrix is one extent.
    let column = Datatype::vector(4, 1, 4, &e).unwrap();
    assert_eq!((column.shape().size, column.shape().extent), (4, 13));
    let transpose = Datatype::hvector(4, 1, 8, &column).unwrap();
    assert_eq!((transpose.shape().size, transpose.shape().extent), (16, 16));
    // A subarray spans the whole array, whatever part it picks.
    let middle = Datatype::subarray(&[4, 5], &[2, 2], &[1, 2], &e).unwrap();
    assert_eq!(
        middle.shape(),
        Shape {
            size: 4,
            lb: 0,
            extent: 20,
            true_lb: 7,
            true_extent: 7
        }
    );
    // A negative stride puts the lower bound below the first block.
    let down = Datatype::vector(3, 2, -4, &e).unwrap();
    assert_eq!((down.shape().lb, down.shape().extent), (-8, 10));
    let committed = down.commit().unwrap();
    assert_eq!(
        committed.runs(),
        [
            Run { start: 0, len: 2 },
            Run { start: -4, len: 2 },
            Run { start: -8, len: 2 }
        ]
    );
    assert!(!committed.overlapping());
    let c = committed.times(3);
    assert_eq!((c.count(), c.datatype().shape().size), (3, 6));
}

#[test]
fn dense_types_commit_into_one_run_without_walking_their_copies() {
    let e = Datatype::<u8>::element();
    let huge = Datatype::contiguous(1 << 31, &Datatype::contiguous(1 << 31, &e).unwrap()).unwrap();
    assert_eq!(
        huge.commit().unwrap().runs(),
        [Run {
            start: 0,
            len: 1 << 62
        }]
    );
    // Blocks that abut, and a subarray whose inner dimensions are whole.
    let abutting = Datatype::vector(u32::MAX, 3, 3, &e).unwrap();
    assert_eq!(abutting.commit().unwrap().runs().len(), 1);
    // Empty blocks are not walked either.
    let empty = Datatype::contiguous(0, &e).unwrap();
    for ty in [
        Datatype::vector(u32::MAX, 0, 1, &e).unwrap(),
        Datatype::vector(u32::MAX, 1, 2, &empty).unwrap(),
        Datatype::subarray(&[1 << 30, 1 << 30], &[1 << 30, 1], &[0, 0], &empty).unwrap(),
    ] {
        let committed = ty.commit().unwrap();
        assert!(committed.runs().is_empty());
        assert_eq!(committed.shape().size, 0);
    }
    let rows = Datatype::subarray(
        &[1 << 20, 1 << 10, 8],
        &[1 << 19, 1 << 10, 8],
        &[5, 0, 0],
        &e,
    )
    .unwrap();
    assert_eq!(
        rows.commit().unwrap().runs(),
        [Run {
            start: 5 << 13,
            len: 1 << 32
        }]
    );
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    let leaf = Just(Spec::Element);
    leaf.prop_recursive(3, 24, 3, |inner| {
        let boxed = inner.clone().prop_map(Box::new);
        let blocks = prop::collection::vec((0u32..3, -4i64..5), 0..4);
        prop_oneof![
            (0u32..4, boxed.clone()).prop_map(|(n, o)| Spec::Contiguous(n, o)),
            (0u32..4, 0u32..3, -4i64..5, boxed.clone())
                .prop_map(|(c, b, s, o)| Spec::Vector(c, b, s, o)),
            (0u32..4, 0u32..3, -6i64..7, boxed.clone()).prop_map(|(c, b, s, o)| Spec::Hvector(
                c,
                b,
                s * B,
                o
            )),
            (blocks.clone(), boxed.clone()).prop_map(|(bs, o)| {
                Spec::Indexed(bs.into_iter().map(|(l, d)| Block::new(l, d)).collect(), o)
            }),
            (blocks, boxed.clone()).prop_map(|(bs, o)| {
                Spec::Hindexed(
                    bs.into_iter().map(|(l, d)| Block::new(l, d * B)).collect(),
                    o,
                )
            }),
            (
                0u32..3,
                prop::collection::vec(-4i64..5, 0..4),
                boxed.clone()
            )
                .prop_map(|(b, d, o)| Spec::IndexedBlock(b, d, o)),
            (
                prop::collection::vec((1u32..4, 0u32..4, 0u32..4), 1..4),
                boxed.clone()
            )
                .prop_map(|(dims, o)| {
                    let dims = dims
                        .into_iter()
                        .map(|(size, a, b)| {
                            let sub = a % (size + 1);
                            (size, sub, b % (size - sub + 1))
                        })
                        .collect();
                    Spec::Subarray(dims, o)
                }),
            prop::collection::vec((0u32..3, -6i64..7, inner), 0..3).prop_map(|bs| {
                Spec::Struct(bs.into_iter().map(|(l, d, t)| (l, d * B, t)).collect())
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Nested types of every constructor commit into exactly the elements
    /// the naive expansion lists, with its bounds.
    #[test]
    fn nested_types_match_the_naive_expansion(spec in spec_strategy()) {
        check_against_naive(&spec)?;
    }

    /// The pieces of two layouts cover, in order, exactly the pairs of
    /// their elements, each piece contiguous at both sides; the pairing
    /// ends with the shorter layout.
    #[test]
    fn pieces_pair_the_elements_of_both_layouts(
        a in spec_strategy(),
        b in spec_strategy(),
        c in spec_strategy(),
        counts in (0u32..3, 0u32..3, 0u32..3),
    ) {
        let (ta, tb, tc) = (a.build().commit().unwrap(), b.build().commit().unwrap(), c.build().commit().unwrap());
        let layouts = [ta.times(counts.0).layout(), tb.times(counts.1).layout(), tc.times(counts.2).layout()];
        let naive_of = |spec: &Spec, count: u32| {
            let n = naive(spec);
            let mut all = Naive::default();
            for k in 0..i64::from(count) {
                all.add(&n, k * n.extent());
            }
            all.elements
        };
        let want = [naive_of(&a, counts.0), naive_of(&b, counts.1), naive_of(&c, counts.2)];
        let shortest = want.iter().map(Vec::len).min().unwrap();
        let mut got: [Vec<i64>; 3] = Default::default();
        for (at, n) in zip_runs(layouts) {
            prop_assert!(n > 0);
            for (g, start) in got.iter_mut().zip(at) {
                g.extend(start..start + n as i64);
            }
        }
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!(&g[..], &w[..shortest]);
        }
        for (layout, w) in layouts.iter().zip(&want) {
            prop_assert_eq!(layout.elements(), w.len() as u128);
            let (lo, hi) = layout.span();
            match (w.iter().min(), w.iter().max()) {
                (Some(&l), Some(&h)) => prop_assert_eq!((lo, hi), (i128::from(l), i128::from(h) + 1)),
                _ => prop_assert_eq!((lo, hi), (0, 0)),
            }
            // Exactly when some element is picked twice, interleaved
            // copies included (compared place by place).
            let distinct: BTreeSet<i64> = w.iter().copied().collect();
            prop_assert_eq!(layout.overlaps(), distinct.len() != w.len());
        }
    }
}

#[test]
fn interleaved_copies_overlap_only_where_they_share_an_element() {
    let e = Datatype::<u32>::element();
    // A column of a 100x100 matrix resized to one element: 100 copies
    // are the matrix transposed, every element once (MPICH's transpose2).
    let column = Datatype::vector(100, 1, 100, &e).unwrap();
    let column1 = Datatype::resized(&column, 0, 1).unwrap().commit().unwrap();
    assert!(!column1.times(100).layout().overlaps());
    assert!(!column1.times(1).layout().overlaps());
    // Two elements a column: the second copy's first is the first's
    // second.
    let pairs = Datatype::vector(2, 1, 1, &e).unwrap();
    let pairs1 = Datatype::resized(&pairs, 0, 1).unwrap().commit().unwrap();
    assert!(pairs1.times(2).layout().overlaps());
    assert!(!pairs1.times(1).layout().overlaps());
}

#[test]
fn constructors_refuse_what_cannot_be_a_type_of_whole_elements() {
    let e = Datatype::<u32>::element();
    let err = Datatype::hvector(2, 1, 6, &e).unwrap_err();
    assert_eq!(
        err,
        RmaError::Unaligned {
            what: "hvector stride",
            bytes: 6,
            element: 4
        }
    );
    assert_eq!(err.class(), ErrorClass::Type);
    assert_eq!(
        err.to_string(),
        "MPI_ERR_TYPE: hvector stride of 6 bytes is not a multiple of the element size (4 bytes)"
    );
    assert_eq!(
        Datatype::hindexed(&[Block::new(1, 0), Block::new(1, -2)], &e)
            .unwrap_err()
            .to_string(),
        "MPI_ERR_TYPE: hindexed displacement of -2 bytes is not a multiple of the element size \
         (4 bytes)"
    );
    assert_eq!(
        Datatype::structure(&[StructBlock::new(1, 9, &e)])
            .unwrap_err()
            .to_string(),
        "MPI_ERR_TYPE: struct displacement of 9 bytes is not a multiple of the element size \
         (4 bytes)"
    );
    // Multiples are fine, negative ones too.
    Datatype::hvector(2, 1, -8, &e).unwrap();

    let err = Datatype::subarray(&[4, 4], &[2, 3], &[1, 2], &e).unwrap_err();
    assert_eq!(
        err,
        RmaError::Subarray {
            dimension: 1,
            size: 4,
            subsize: 3,
            start: 2
        }
    );
    assert_eq!(err.class(), ErrorClass::Arg);
    assert_eq!(
        err.to_string(),
        "MPI_ERR_ARG: subarray dimension 1: 3 elements from 2 reach past its 4"
    );
    assert_eq!(
        Datatype::subarray(&[], &[], &[], &e)
            .unwrap_err()
            .to_string(),
        "MPI_ERR_ARG: subarray: has no dimensions"
    );
    assert_eq!(
        Datatype::subarray(&[4, 4], &[2], &[0, 0], &e)
            .unwrap_err()
            .to_string(),
        "MPI_ERR_ARG: subarray subsizes (one per dimension of sizes) has length 1, expected 2"
    );
    assert_eq!(
        Datatype::subarray(&[4, 4], &[2, 2], &[0, 0, 0], &e)
            .unwrap_err()
            .to_string(),
        "MPI_ERR_ARG: subarray starts (one per dimension of sizes) has length 3, expected 2"
    );

    // Places or sizes beyond 64 bits.
    let err = Datatype::vector(3, 1, i64::MAX / 2 + 1, &e).unwrap_err();
    assert_eq!(
        err.to_string(),
        "MPI_ERR_ARG: vector: places elements beyond what 64 bits count"
    );
    let wide = Datatype::contiguous(1 << 31, &e).unwrap();
    let widest = Datatype::contiguous(1 << 31, &wide).unwrap();
    assert_eq!(widest.shape().extent, 1 << 62);
    assert_eq!(
        Datatype::contiguous(2, &widest).unwrap_err(),
        RmaError::BadLayout {
            what: "contiguous",
            problem: OVERFLOW
        }
    );
    assert_eq!(
        Datatype::indexed(&[Block::new(1, i64::MIN), Block::new(1, i64::MAX)], &e).unwrap_err(),
        RmaError::BadLayout {
            what: "indexed",
            problem: OVERFLOW
        }
    );
    assert_eq!(
        Datatype::indexed_block(1, &[i64::MAX], &wide).unwrap_err(),
        RmaError::BadLayout {
            what: "indexed_block",
            problem: OVERFLOW
        }
    );
    assert_eq!(
        Datatype::subarray(&[u32::MAX, u32::MAX, u32::MAX], &[1, 1, 1], &[0, 0, 0], &e)
            .unwrap_err(),
        RmaError::BadLayout {
            what: "subarray",
            problem: OVERFLOW
        }
    );
    assert_eq!(
        Datatype::structure(&[StructBlock::new(2, 0, &widest)]).unwrap_err(),
        RmaError::BadLayout {
            what: "struct",
            problem: OVERFLOW
        }
    );

    // Too many runs to commit: refused before anything is allocated.
    let sparse = Datatype::vector(1 << 11, 1, 2, &e).unwrap();
    let err = Datatype::vector(1 << 12, 1, 2, &sparse)
        .unwrap()
        .commit()
        .unwrap_err();
    assert_eq!(err.class(), ErrorClass::NoMem);
    assert_eq!(
        err.to_string(),
        "MPI_ERR_NO_MEM: committed datatype runs: 8388608 asked for, 4194304 left"
    );
}

#[test]
fn a_resized_type_picks_the_same_elements_and_its_copies_lie_one_new_extent_apart() {
    // Two u32s with a gap of one: data 0 and 2, extent 3.
    let old = Datatype::<u32>::vector(2, 1, 2, &Datatype::element()).unwrap();
    let wide = Datatype::resized(&old, 0, 5).unwrap();
    let shape = wide.shape();
    assert_eq!((shape.lb, shape.extent, shape.size), (0, 5, 2));
    assert_eq!((shape.true_lb, shape.true_extent), (0, 3));
    let one = wide.commit().unwrap();
    assert_eq!(expand(one.runs().iter().copied()), [0, 2]);
    // Three copies: each one new extent after the last.
    let three = Datatype::contiguous(3, &wide).unwrap().commit().unwrap();
    assert_eq!(expand(three.runs().iter().copied()), [0, 2, 5, 7, 10, 12]);
    // Narrowed to an extent of 2, the second copy's first element is the
    // first copy's last.
    let narrow = Datatype::resized(&old, 0, 2).unwrap();
    let two = Datatype::contiguous(2, &narrow).unwrap().commit().unwrap();
    assert_eq!(expand(two.runs().iter().copied()), [0, 2, 2, 4]);
    assert!(two.overlapping());
    // A bound beyond 64 bits is refused.
    assert!(Datatype::resized(&old, i64::MAX, 2).is_err());
}
