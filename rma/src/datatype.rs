// SPDX-License-Identifier: MIT OR Apache-2.0
//! Derived datatypes for the one-sided operations: MPI's type
//! constructors over one element type, committed once into the runs of
//! consecutive elements they pick.
//!
//! A [`Datatype<T>`] describes which elements of `T` a buffer (or a
//! target window from a displacement) holds, in which order, as MPI's
//! derived types built from one basic type do: [`Datatype::element`] is
//! the basic type, and [`contiguous`](Datatype::contiguous),
//! [`vector`](Datatype::vector), [`hvector`](Datatype::hvector),
//! [`indexed`](Datatype::indexed), [`hindexed`](Datatype::hindexed),
//! [`indexed_block`](Datatype::indexed_block),
//! [`subarray`](Datatype::subarray) (any number of dimensions, C order)
//! and [`structure`](Datatype::structure) (blocks of types of the same
//! element at byte displacements) build new types from old ones, nested
//! to any depth. Every place is a whole element, so byte strides and
//! displacements must be multiples of the element's size
//! ([`RmaError::Unaligned`] otherwise).
//!
//! Each type has MPI's bounds ([`Shape`]): its size in elements, its
//! lower bound and extent (copies of a type follow each other one extent
//! apart, as in a count of them or a block of an enclosing type) and its
//! true lower bound and extent (the elements it actually picks). All are
//! counted in elements of `T`, not bytes. A subarray's extent is the whole
//! array's; a structure's bounds get no alignment padding, every block
//! being of the same element.
//!
//! [`Datatype::commit`] flattens a type once into its [`Run`]s, in the
//! order the type lists its elements, adjacent runs merged, and says
//! whether it picks some element twice. The [`Committed<T>`] type is what
//! the operations take, as a count of copies ([`Committed::times`]):
//! [`Rma::put_typed`](crate::Rma::put_typed),
//! [`get_typed`](crate::Rma::get_typed),
//! [`accumulate_typed`](crate::Rma::accumulate_typed),
//! [`get_accumulate_typed`](crate::Rma::get_accumulate_typed) and their
//! request forms. They pair the runs of the origin and the target and copy
//! each piece contiguous on both sides as one block; the strided calls
//! ([`Rma::put_vector`](crate::Rma::put_vector) and its relatives) go
//! through the same pairing with a [`Vector`] as a one-run layout.
#![forbid(unsafe_code)]

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::RmaError;
use crate::comm::Element;

/// Which elements a layout picks: `count` blocks of `blocklen`
/// consecutive elements, block `k` starting `k * stride` elements from the
/// first (MPI's vector type). A contiguous layout is one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vector {
    /// Blocks.
    pub count: u32,
    /// Elements per block.
    pub blocklen: u32,
    /// Elements from one block's start to the next (at least `blocklen`).
    pub stride: u32,
}

impl Vector {
    /// `len` consecutive elements.
    pub const fn contiguous(len: u32) -> Self {
        Self {
            count: 1,
            blocklen: len,
            stride: len,
        }
    }

    /// `count` blocks of `blocklen` elements, `stride` elements apart.
    pub const fn new(count: u32, blocklen: u32, stride: u32) -> Self {
        Self {
            count,
            blocklen,
            stride,
        }
    }

    /// Elements picked.
    pub const fn elements(&self) -> u64 {
        self.count as u64 * self.blocklen as u64
    }

    /// Elements from the first picked to one past the last.
    pub const fn extent(&self) -> u64 {
        if self.count == 0 || self.blocklen == 0 {
            0
        } else {
            (self.count as u64 - 1) * self.stride as u64 + self.blocklen as u64
        }
    }

    /// The layout the copying engine takes.
    pub(crate) fn layout(self) -> Layout<'static> {
        Layout::vector(self)
    }
}

#[cfg(test)]
mod tests;

/// The most runs a committed type may hold (16 bytes each): a type that
/// would need more is refused by [`Datatype::commit`] before anything is
/// allocated.
pub const MAX_RUNS: usize = 1 << 22;

/// Consecutive elements a committed type picks: `len` elements from
/// element `start` (relative to the start of the buffer, or to the
/// target displacement; negative below it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Run {
    /// First element.
    pub start: i64,
    /// Elements.
    pub len: u64,
}

impl Run {
    /// One past the last element.
    fn end(self) -> i64 {
        self.start + self.len as i64
    }
}

/// A type's bounds, in elements (MPI's size, lower bound, extent, true
/// lower bound and true extent, counted in elements of the type's element
/// instead of bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Elements the type picks (an element picked twice counts twice).
    pub size: u64,
    /// Lower bound: where the type's span starts.
    pub lb: i64,
    /// Extent: the distance between consecutive copies of the type.
    pub extent: u64,
    /// The first element the type picks (0 if it picks none).
    pub true_lb: i64,
    /// From the first element picked to one past the last (0 if none).
    pub true_extent: u64,
}

impl Shape {
    /// The basic type: one element.
    const ELEMENT: Self = Self {
        size: 1,
        lb: 0,
        extent: 1,
        true_lb: 0,
        true_extent: 1,
    };

    /// Upper bound (fits `i64`: constructors check it).
    fn ub(&self) -> i64 {
        self.lb + self.extent as i64
    }

    /// One past the last element picked.
    fn true_ub(&self) -> i64 {
        self.true_lb + self.true_extent as i64
    }
}

/// One block of an [`indexed`](Datatype::indexed) or
/// [`hindexed`](Datatype::hindexed) type: `len` copies of the old type,
/// the first at `disp` (in extents of the old type for indexed, in bytes
/// for hindexed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block {
    /// Copies of the old type.
    pub len: u32,
    /// Displacement of the first copy.
    pub disp: i64,
}

impl Block {
    /// `len` copies at `disp`.
    pub const fn new(len: u32, disp: i64) -> Self {
        Self { len, disp }
    }
}

/// One block of a [`structure`](Datatype::structure): `len` copies of
/// `ty`, the first `disp` bytes from the start.
#[derive(Debug)]
pub struct StructBlock<'a, T> {
    /// Copies of `ty`.
    pub len: u32,
    /// Displacement of the first copy, in bytes.
    pub disp: i64,
    /// The block's type.
    pub ty: &'a Datatype<T>,
}

impl<T> Clone for StructBlock<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for StructBlock<'_, T> {}

impl<'a, T> StructBlock<'a, T> {
    /// `len` copies of `ty` from byte `disp`.
    pub const fn new(len: u32, disp: i64, ty: &'a Datatype<T>) -> Self {
        Self { len, disp, ty }
    }
}

/// A derived datatype of elements `T`: which elements it picks, in which
/// order, and its bounds. Build it with the constructors, nest it in
/// others, and [`commit`](Self::commit) it for the operations.
#[derive(Debug, Clone, PartialEq)]
pub struct Datatype<T> {
    node: Node<T>,
    shape: Shape,
    element: PhantomData<fn() -> T>,
}

/// How a type is built from older ones. Displacements and strides are in
/// elements here, whatever unit the constructor took.
#[derive(Debug, Clone, PartialEq)]
enum Node<T> {
    /// One element.
    Element,
    /// `count` blocks of `blocklen` copies of `old`, block `j` starting at
    /// `j * stride` (contiguous, vector, hvector).
    Vector {
        count: u32,
        blocklen: u32,
        stride: i64,
        old: Box<Datatype<T>>,
    },
    /// Blocks of copies of `old` (indexed, hindexed, indexed_block).
    Indexed {
        blocks: Vec<Block>,
        old: Box<Datatype<T>>,
    },
    /// The part `starts..starts + subsizes` of an array of `sizes` copies
    /// of `old`, in C order.
    Subarray {
        sizes: Vec<u32>,
        subsizes: Vec<u32>,
        starts: Vec<u32>,
        old: Box<Datatype<T>>,
    },
    /// Blocks of copies of their own types.
    Struct { blocks: Vec<(Block, Datatype<T>)> },
}

/// The problem of a type whose places or bounds do not fit 64 bits.
const OVERFLOW: &str = "places elements beyond what 64 bits count";

/// The bounds of a type as its blocks are added.
#[derive(Default)]
struct Bounds {
    /// Lower and upper bound over the blocks' copies.
    marks: Option<(i64, i64)>,
    /// First and one past the last element picked.
    data: Option<(i64, i64)>,
}

impl Bounds {
    /// Adds `copies` copies of a type of shape `old`, the first at `disp`,
    /// each one extent after the previous. `None` on overflow.
    fn add(&mut self, disp: i64, copies: u64, old: &Shape) -> Option<()> {
        if copies == 0 {
            return Some(());
        }
        let last = disp.checked_add(
            i64::try_from(copies - 1)
                .ok()?
                .checked_mul(old.extent as i64)?,
        )?;
        widen(
            &mut self.marks,
            disp.checked_add(old.lb)?,
            last.checked_add(old.ub())?,
        );
        if old.size > 0 {
            widen(
                &mut self.data,
                disp.checked_add(old.true_lb)?,
                last.checked_add(old.true_ub())?,
            );
        }
        Some(())
    }

    /// The shape of a type of `size` elements with these bounds.
    fn shape(self, size: u64) -> Option<Shape> {
        let (lb, ub) = self.marks.unwrap_or((0, 0));
        let (true_lb, true_ub) = match self.data {
            Some(data) if size > 0 => data,
            _ => (0, 0),
        };
        Some(Shape {
            size,
            lb,
            extent: extent(lb, ub)?,
            true_lb,
            true_extent: extent(true_lb, true_ub)?,
        })
    }
}

fn widen(bounds: &mut Option<(i64, i64)>, lo: i64, hi: i64) {
    *bounds = Some(match *bounds {
        Some((l, h)) => (l.min(lo), h.max(hi)),
        None => (lo, hi),
    });
}

/// `hi - lo` if it fits `i64` (so `lo + extent` never overflows).
fn extent(lo: i64, hi: i64) -> Option<u64> {
    hi.checked_sub(lo).map(|e| e as u64)
}

/// `bytes` in elements of `T`: `Err(Unaligned)` naming `what` unless a
/// whole number of them.
fn elements_of<T: Element>(what: &'static str, bytes: i64) -> Result<i64, RmaError> {
    let element = T::BYTES as i64;
    if bytes % element != 0 {
        return Err(RmaError::Unaligned {
            what,
            bytes,
            element: T::BYTES as u32,
        });
    }
    Ok(bytes / element)
}

/// `Err(BadLayout)` naming the constructor `what`, for an overflow.
fn overflow(what: &'static str) -> RmaError {
    RmaError::BadLayout {
        what,
        problem: OVERFLOW,
    }
}

impl<T: Element> Datatype<T> {
    /// The basic type: one element of `T`.
    pub const fn element() -> Self {
        Self {
            node: Node::Element,
            shape: Shape::ELEMENT,
            element: PhantomData,
        }
    }

    /// `count` copies of `old`, one extent apart (`MPI_Type_contiguous`).
    ///
    /// Return values: `Err(BadLayout)` if the type places elements beyond
    /// what 64 bits count.
    pub fn contiguous(count: u32, old: &Self) -> Result<Self, RmaError> {
        Self::strided("contiguous", 1, count, 0, old)
    }

    /// `count` blocks of `blocklen` copies of `old`, block `k` starting
    /// `k * stride` extents of `old` from the first (`MPI_Type_vector`).
    /// The stride may be negative.
    ///
    /// Return values: as [`Datatype::contiguous`].
    pub fn vector(count: u32, blocklen: u32, stride: i64, old: &Self) -> Result<Self, RmaError> {
        let stride = stride
            .checked_mul(old.shape.extent as i64)
            .ok_or(overflow("vector"))?;
        Self::strided("vector", count, blocklen, stride, old)
    }

    /// As [`Datatype::vector`] with the stride in bytes
    /// (`MPI_Type_create_hvector`).
    ///
    /// Return values: as [`Datatype::contiguous`], plus `Err(Unaligned)`
    /// if `stride` is not a multiple of the element's size.
    pub fn hvector(count: u32, blocklen: u32, stride: i64, old: &Self) -> Result<Self, RmaError> {
        let stride = elements_of::<T>("hvector stride", stride)?;
        Self::strided("hvector", count, blocklen, stride, old)
    }

    /// Blocks of copies of `old`, each at its displacement in extents of
    /// `old` (`MPI_Type_indexed`). Displacements may be negative and in any
    /// order; the type lists the blocks' elements in the order given.
    ///
    /// Return values: as [`Datatype::contiguous`].
    pub fn indexed(blocks: &[Block], old: &Self) -> Result<Self, RmaError> {
        Self::scaled("indexed", blocks.iter().copied(), old)
    }

    /// As [`Datatype::indexed`] with the displacements in bytes
    /// (`MPI_Type_create_hindexed`).
    ///
    /// Return values: as [`Datatype::contiguous`], plus `Err(Unaligned)`
    /// if a displacement is not a multiple of the element's size.
    pub fn hindexed(blocks: &[Block], old: &Self) -> Result<Self, RmaError> {
        let blocks = blocks
            .iter()
            .map(|b| {
                Ok(Block::new(
                    b.len,
                    elements_of::<T>("hindexed displacement", b.disp)?,
                ))
            })
            .collect::<Result<Vec<_>, RmaError>>()?;
        Self::indexed_elements("hindexed", blocks, old)
    }

    /// Blocks of `blocklen` copies of `old` at `disps`, in extents of
    /// `old` (`MPI_Type_create_indexed_block`).
    ///
    /// Return values: as [`Datatype::contiguous`].
    pub fn indexed_block(blocklen: u32, disps: &[i64], old: &Self) -> Result<Self, RmaError> {
        let blocks = disps.iter().map(|&d| Block::new(blocklen, d));
        Self::scaled("indexed_block", blocks, old)
    }

    /// `old` with lower bound `lb` and extent `extent`, in elements
    /// (`MPI_Type_create_resized`): it picks the same elements, and copies
    /// of it lie `extent` apart.
    ///
    /// Return values: `Err(BadLayout)` if its upper bound does not fit 64
    /// bits.
    pub fn resized(old: &Self, lb: i64, extent: u64) -> Result<Self, RmaError> {
        i64::try_from(extent)
            .ok()
            .and_then(|e| lb.checked_add(e))
            .ok_or(overflow("resized"))?;
        Ok(Self {
            node: old.node.clone(),
            shape: Shape {
                lb,
                extent,
                ..old.shape
            },
            element: PhantomData,
        })
    }

    /// The part of an array of `sizes` copies of `old` (C order: the last
    /// dimension varies fastest) that starts at `starts` and spans
    /// `subsizes` in each dimension (`MPI_Type_create_subarray`). Its
    /// lower bound is 0 and its extent the whole array's.
    ///
    /// Return values: `Err(BadLayout)` without dimensions;
    /// `Err(BufferLength)` if `subsizes` or `starts` have another number
    /// of dimensions than `sizes`; `Err(Subarray)` for a part that does
    /// not fit its dimension; and as [`Datatype::contiguous`].
    pub fn subarray(
        sizes: &[u32],
        subsizes: &[u32],
        starts: &[u32],
        old: &Self,
    ) -> Result<Self, RmaError> {
        if sizes.is_empty() {
            return Err(RmaError::BadLayout {
                what: "subarray",
                problem: "has no dimensions",
            });
        }
        for (what, given) in [
            ("subarray subsizes (one per dimension of sizes)", subsizes),
            ("subarray starts (one per dimension of sizes)", starts),
        ] {
            if given.len() != sizes.len() {
                return Err(RmaError::BufferLength {
                    what,
                    len: given.len(),
                    expected: sizes.len(),
                });
            }
        }
        for (d, ((&size, &subsize), &start)) in sizes.iter().zip(subsizes).zip(starts).enumerate() {
            if u64::from(start) + u64::from(subsize) > u64::from(size) {
                return Err(RmaError::Subarray {
                    dimension: d as u32,
                    size,
                    subsize,
                    start,
                });
            }
        }
        let shape = (|| {
            let extent = old.shape.extent as i64;
            let mut copies = 1i64;
            for &s in sizes {
                copies = copies.checked_mul(i64::from(s))?;
            }
            let ub = copies.checked_mul(extent)?;
            let mut bounds = Bounds {
                marks: Some((0, ub)),
                data: None,
            };
            let picked = subsizes
                .iter()
                .try_fold(1u64, |n, &s| n.checked_mul(u64::from(s)))?;
            if picked > 0 {
                // The first and the last copy picked bound the elements.
                let first = linear(sizes, starts.iter().map(|&s| i64::from(s)))?;
                let last = linear(
                    sizes,
                    starts
                        .iter()
                        .zip(subsizes)
                        .map(|(&s, &n)| i64::from(s) + i64::from(n) - 1),
                )?;
                bounds.add(first.checked_mul(extent)?, 1, &old.shape)?;
                bounds.add(last.checked_mul(extent)?, 1, &old.shape)?;
                bounds.marks = Some((0, ub));
            }
            bounds.shape(picked.checked_mul(old.shape.size)?)
        })()
        .ok_or(overflow("subarray"))?;
        Ok(Self {
            node: Node::Subarray {
                sizes: sizes.to_vec(),
                subsizes: subsizes.to_vec(),
                starts: starts.to_vec(),
                old: Box::new(old.clone()),
            },
            shape,
            element: PhantomData,
        })
    }

    /// Blocks of copies of their own types, each at a byte displacement
    /// (`MPI_Type_create_struct` with every type of the element `T`).
    ///
    /// Return values: as [`Datatype::hindexed`].
    pub fn structure(blocks: &[StructBlock<'_, T>]) -> Result<Self, RmaError> {
        let mut bounds = Bounds::default();
        let mut size = Some(0u64);
        let mut kept = Vec::with_capacity(blocks.len());
        for b in blocks {
            let disp = elements_of::<T>("struct displacement", b.disp)?;
            let copies = u64::from(b.len);
            bounds
                .add(disp, copies, &b.ty.shape)
                .ok_or(overflow("struct"))?;
            size = size.and_then(|s| s.checked_add(copies.checked_mul(b.ty.shape.size)?));
            kept.push((Block::new(b.len, disp), b.ty.clone()));
        }
        let shape = size.and_then(|s| bounds.shape(s));
        Ok(Self {
            node: Node::Struct { blocks: kept },
            shape: shape.ok_or(overflow("struct"))?,
            element: PhantomData,
        })
    }

    /// Vector-like types with the stride in elements.
    fn strided(
        what: &'static str,
        count: u32,
        blocklen: u32,
        stride: i64,
        old: &Self,
    ) -> Result<Self, RmaError> {
        let copies = u64::from(blocklen);
        let shape = (|| {
            let mut bounds = Bounds::default();
            if count > 0 {
                // The blocks lie in order, so the first and the last bound
                // them all.
                bounds.add(0, copies, &old.shape)?;
                bounds.add(
                    i64::from(count - 1).checked_mul(stride)?,
                    copies,
                    &old.shape,
                )?;
            }
            let size = u64::from(count)
                .checked_mul(copies)?
                .checked_mul(old.shape.size)?;
            bounds.shape(size)
        })()
        .ok_or(overflow(what))?;
        Ok(Self {
            node: Node::Vector {
                count,
                blocklen,
                stride,
                old: Box::new(old.clone()),
            },
            shape,
            element: PhantomData,
        })
    }

    /// Indexed-like types with displacements in extents of `old`.
    fn scaled(
        what: &'static str,
        blocks: impl Iterator<Item = Block>,
        old: &Self,
    ) -> Result<Self, RmaError> {
        let extent = old.shape.extent as i64;
        let blocks = blocks
            .map(|b| Some(Block::new(b.len, b.disp.checked_mul(extent)?)))
            .collect::<Option<Vec<_>>>()
            .ok_or(overflow(what))?;
        Self::indexed_elements(what, blocks, old)
    }

    /// Indexed-like types with displacements in elements.
    fn indexed_elements(
        what: &'static str,
        blocks: Vec<Block>,
        old: &Self,
    ) -> Result<Self, RmaError> {
        let shape = (|| {
            let mut bounds = Bounds::default();
            let mut copies = 0u64;
            for b in &blocks {
                bounds.add(b.disp, u64::from(b.len), &old.shape)?;
                copies = copies.checked_add(u64::from(b.len))?;
            }
            bounds.shape(copies.checked_mul(old.shape.size)?)
        })()
        .ok_or(overflow(what))?;
        Ok(Self {
            node: Node::Indexed {
                blocks,
                old: Box::new(old.clone()),
            },
            shape,
            element: PhantomData,
        })
    }

    /// The type's bounds.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Flattens the type into its runs (`MPI_Type_commit`), in the order
    /// the type lists its elements, adjacent runs merged.
    ///
    /// Return values: `Err(NoMemory)` if it would take more than
    /// [`MAX_RUNS`] runs, or more memory than the heap has left.
    pub fn commit(&self) -> Result<Committed<T>, RmaError> {
        let runs = self.flatten()?;
        let mut sorted = Vec::new();
        sorted
            .try_reserve_exact(runs.len())
            .map_err(|_| runs_no_memory(runs.len() as u128))?;
        sorted.extend_from_slice(&runs);
        sorted.sort_unstable_by_key(|r| r.start);
        // Sorted by start, any overlap shows between neighbours.
        let overlapping = sorted.windows(2).any(|w| w[1].start < w[0].end());
        Ok(Committed {
            runs,
            shape: self.shape,
            overlapping,
            element: PhantomData,
        })
    }

    /// The runs of one copy.
    fn flatten(&self) -> Result<Vec<Run>, RmaError> {
        let mut out = Runs::default();
        match &self.node {
            Node::Element => out.push(0, 1),
            Node::Vector {
                count,
                blocklen,
                stride,
                old,
            } => {
                let child = old.flatten()?;
                let copies = u64::from(*blocklen);
                let abut = Some(*stride) == (copies as i64).checked_mul(old.shape.extent as i64);
                if copies == 0 || child.is_empty() {
                    // Nothing picked, however many blocks.
                } else if dense(&child, &old.shape) && abut {
                    // The blocks follow each other without a gap: one run.
                    out.copies(&child, &old.shape, 0, u64::from(*count) * copies);
                } else {
                    out.reserve(u128::from(*count) * per_block(&child, &old.shape, copies))?;
                    for k in 0..i64::from(*count) {
                        out.copies(&child, &old.shape, k * stride, copies);
                    }
                }
            }
            Node::Indexed { blocks, old } => {
                let child = old.flatten()?;
                out.reserve(
                    blocks
                        .iter()
                        .map(|b| per_block(&child, &old.shape, u64::from(b.len)))
                        .sum(),
                )?;
                for b in blocks {
                    out.copies(&child, &old.shape, b.disp, u64::from(b.len));
                }
            }
            Node::Subarray {
                sizes,
                subsizes,
                starts,
                old,
            } => {
                let child = old.flatten()?;
                subarray_runs(&mut out, sizes, subsizes, starts, &child, &old.shape)?;
            }
            Node::Struct { blocks } => {
                let children = blocks
                    .iter()
                    .map(|(_, ty)| ty.flatten())
                    .collect::<Result<Vec<_>, _>>()?;
                out.reserve(
                    blocks
                        .iter()
                        .zip(&children)
                        .map(|((b, ty), child)| per_block(child, &ty.shape, u64::from(b.len)))
                        .sum(),
                )?;
                for ((b, ty), child) in blocks.iter().zip(&children) {
                    out.copies(child, &ty.shape, b.disp, u64::from(b.len));
                }
            }
        }
        Ok(out.runs)
    }
}

/// `index`'s position in an array of `sizes` in C order, in copies.
fn linear(sizes: &[u32], index: impl Iterator<Item = i64>) -> Option<i64> {
    sizes.iter().zip(index).try_fold(0i64, |at, (&size, i)| {
        at.checked_mul(i64::from(size))?.checked_add(i)
    })
}

/// The runs of a subarray: the dimensions from the first one whose part
/// is followed only by whole dimensions on form one block of copies, and
/// the blocks follow the remaining outer dimensions' indices in C order.
fn subarray_runs(
    out: &mut Runs,
    sizes: &[u32],
    subsizes: &[u32],
    starts: &[u32],
    child: &[Run],
    old: &Shape,
) -> Result<(), RmaError> {
    let n = sizes.len();
    let mut inner = n - 1;
    while inner > 0 && subsizes[inner] == sizes[inner] {
        inner -= 1;
    }
    // Copies from one index of dimension `inner` to the next.
    let step: u64 = sizes[inner + 1..].iter().map(|&s| u64::from(s)).product();
    let copies = u64::from(subsizes[inner]) * step;
    let blocks = subsizes[..inner]
        .iter()
        .fold(1u128, |n, &s| n.saturating_mul(u128::from(s)));
    if copies == 0 || blocks == 0 || child.is_empty() {
        return Ok(());
    }
    out.reserve(blocks.saturating_mul(per_block(child, old, copies)))?;
    let extent = old.extent as i64;
    let mut index: Vec<u32> = vec![0; inner];
    loop {
        let at = starts
            .iter()
            .enumerate()
            .map(|(d, &s)| i64::from(s) + index.get(d).map_or(0, |&i| i64::from(i)));
        // Within the array: the constructor checked the bounds.
        let first = linear(&sizes[..=inner], at).expect("inside the array");
        out.copies(child, old, first * step as i64 * extent, copies);
        // The next index in C order, or done.
        let mut d = inner;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            index[d] += 1;
            if index[d] < subsizes[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Whether `runs` are one run covering the whole extent of `shape`, so
/// that copies of it join into one.
fn dense(runs: &[Run], shape: &Shape) -> bool {
    matches!(runs, [r] if r.start == shape.lb && r.len == shape.extent)
}

/// Runs `copies` copies of a type with `runs` add at most.
fn per_block(runs: &[Run], shape: &Shape, copies: u64) -> u128 {
    if copies == 0 || runs.is_empty() {
        0
    } else if dense(runs, shape) {
        1
    } else {
        u128::from(copies) * runs.len() as u128
    }
}

/// The error of a heap without room for `runs` runs.
fn runs_no_memory(runs: u128) -> RmaError {
    let bytes = runs.saturating_mul(core::mem::size_of::<Run>() as u128);
    RmaError::NoMemory {
        what: "the heap, for a datatype's runs",
        requested: u64::try_from(bytes).unwrap_or(u64::MAX),
        available: 0,
    }
}

/// Runs being collected, adjacent ones merged.
#[derive(Default)]
struct Runs {
    runs: Vec<Run>,
}

impl Runs {
    /// `Err(NoMemory)` unless `more` runs would fit [`MAX_RUNS`] and the
    /// heap has room for them.
    fn reserve(&mut self, more: u128) -> Result<(), RmaError> {
        let total = self.runs.len() as u128 + more;
        if total > MAX_RUNS as u128 {
            return Err(RmaError::NoMemory {
                what: "committed datatype runs",
                requested: u64::try_from(total).unwrap_or(u64::MAX),
                available: MAX_RUNS as u64,
            });
        }
        self.runs
            .try_reserve(more as usize)
            .map_err(|_| runs_no_memory(total))
    }

    fn push(&mut self, start: i64, len: u64) {
        if len == 0 {
            return;
        }
        match self.runs.last_mut() {
            Some(last) if last.end() == start => last.len += len,
            _ => self.runs.push(Run { start, len }),
        }
    }

    /// `copies` copies of a type with `runs` and `shape`, the first at
    /// `disp`.
    fn copies(&mut self, runs: &[Run], shape: &Shape, disp: i64, copies: u64) {
        if copies == 0 || runs.is_empty() {
            return;
        }
        if dense(runs, shape) {
            self.push(disp + shape.lb, copies * shape.extent);
            return;
        }
        let extent = shape.extent as i64;
        for k in 0..copies as i64 {
            for r in runs {
                self.push(disp + k * extent + r.start, r.len);
            }
        }
    }
}

/// A committed datatype: its runs, bounds, and whether it picks some
/// element twice. Operations take it as a count of copies
/// ([`Committed::times`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Committed<T> {
    runs: Vec<Run>,
    shape: Shape,
    overlapping: bool,
    element: PhantomData<fn() -> T>,
}

impl<T> Committed<T> {
    /// The runs of one copy, in the order the type lists its elements,
    /// adjacent ones merged.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The type's bounds.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Whether the type picks some element more than once: it cannot
    /// describe where an operation writes.
    pub fn overlapping(&self) -> bool {
        self.overlapping
    }

    /// `count` copies of the type, one extent apart: what an operation
    /// takes at the origin or the target (MPI's count and datatype).
    pub fn times(&self, count: u32) -> Counted<'_, T> {
        Counted { ty: self, count }
    }
}

/// `count` copies of a committed type, one extent apart: an operation's
/// layout at the origin or the target.
#[derive(Debug)]
pub struct Counted<'a, T> {
    ty: &'a Committed<T>,
    count: u32,
}

impl<T> Clone for Counted<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Counted<'_, T> {}

impl<'a, T> Counted<'a, T> {
    /// The type.
    pub fn datatype(&self) -> &'a Committed<T> {
        self.ty
    }

    /// Copies of it.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The layout the operations copy.
    pub(crate) fn layout(self) -> Layout<'a> {
        let shape = self.ty.shape;
        Layout {
            runs: Places::Many(&self.ty.runs),
            count: u64::from(self.count),
            extent: shape.extent as i64,
            size: shape.size,
            true_lb: shape.true_lb,
            true_ub: shape.true_ub(),
            overlapping: self.ty.overlapping,
            overlap: Overlap {
                problem: "places overlap (some element picked twice)",
                anywhere: false,
            },
        }
    }
}

/// What a layout's overlapping places are called, and where an operation
/// refuses them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Overlap {
    /// The problem, for `BadLayout`.
    pub problem: &'static str,
    /// Whether they are refused at either side ([`Vector`]s), or only at
    /// the side the operation writes (datatypes, as MPI says).
    pub anywhere: bool,
}

/// The runs of one copy of a layout.
#[derive(Debug, Clone, Copy)]
enum Places<'a> {
    One(Run),
    Many(&'a [Run]),
}

impl Places<'_> {
    fn len(&self) -> usize {
        match self {
            Self::One(_) => 1,
            Self::Many(runs) => runs.len(),
        }
    }

    fn get(&self, i: usize) -> Run {
        match self {
            Self::One(run) => *run,
            Self::Many(runs) => runs[i],
        }
    }
}

/// What one side of an operation picks: `count` copies of one copy's
/// runs, copy `k` shifted by `k * extent` elements. A [`Vector`] is one
/// run repeated at its stride; a counted datatype its committed runs
/// repeated at its extent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'a> {
    runs: Places<'a>,
    count: u64,
    extent: i64,
    /// Elements per copy.
    size: u64,
    /// First and one past the last element of one copy.
    true_lb: i64,
    true_ub: i64,
    /// Whether one copy picks some element twice.
    overlapping: bool,
    pub overlap: Overlap,
}

impl<'a> Layout<'a> {
    /// `count` blocks of `blocklen` elements, `stride` apart.
    pub(crate) fn vector(v: Vector) -> Layout<'static> {
        let run = Run {
            start: 0,
            len: u64::from(v.blocklen),
        };
        Layout {
            runs: Places::One(run),
            count: u64::from(v.count),
            extent: i64::from(v.stride),
            size: run.len,
            true_lb: 0,
            true_ub: run.end(),
            overlapping: false,
            overlap: Overlap {
                problem: "blocks overlap (stride below blocklen)",
                anywhere: true,
            },
        }
    }

    /// Elements picked.
    pub(crate) fn elements(&self) -> u128 {
        u128::from(self.size) * u128::from(self.count)
    }

    /// The first element picked and one past the last (0 and 0 if none).
    pub(crate) fn span(&self) -> (i128, i128) {
        if self.elements() == 0 {
            return (0, 0);
        }
        let last = i128::from(self.count - 1) * i128::from(self.extent);
        (
            i128::from(self.true_lb) + last.min(0),
            i128::from(self.true_ub) + last.max(0),
        )
    }

    /// Whether some element is picked twice. Copies closer than one
    /// copy's true extent may interleave without sharing an element (a
    /// column type resized to one element's extent, as a transpose takes
    /// it): their places are then sorted and compared, unless they are
    /// more than [`MAX_RUNS`] or the heap has no room for them, when they
    /// count as overlapping.
    pub(crate) fn overlaps(&self) -> bool {
        if self.elements() == 0 {
            return false;
        }
        if self.overlapping {
            return true;
        }
        let interleaved = self.count > 1
            && i128::from(self.true_ub) - i128::from(self.true_lb) > i128::from(self.extent);
        interleaved && !self.places_apart()
    }

    /// Whether no two places of every copy share an element, checked
    /// place by place.
    fn places_apart(&self) -> bool {
        let total = u128::from(self.count) * self.runs.len() as u128;
        if total > MAX_RUNS as u128 {
            return false;
        }
        let mut all: Vec<Run> = Vec::new();
        if all.try_reserve_exact(total as usize).is_err() {
            return false;
        }
        all.extend(self.runs());
        all.sort_unstable_by_key(|r| r.start);
        all.windows(2).all(|w| w[1].start >= w[0].end())
    }

    /// The runs of all copies in order, adjacent ones merged.
    fn runs(self) -> impl Iterator<Item = Run> + 'a {
        let (places, count, extent) = match self.runs {
            // Copies of one run as long as the extent form one run.
            Places::One(r) | Places::Many(&[r]) if r.len == self.extent as u64 => {
                let all = Run {
                    start: r.start,
                    len: r.len * self.count,
                };
                (Places::One(all), 1, 0)
            }
            p => (p, self.count, self.extent),
        };
        // Copies of nothing are not walked.
        let count = if places.len() == 0 || self.size == 0 {
            0
        } else {
            count
        };
        let (mut copy, mut index, mut pending) = (0u64, 0usize, None::<Run>);
        core::iter::from_fn(move || {
            loop {
                if copy == count {
                    return pending.take();
                }
                let r = places.get(index);
                let r = Run {
                    start: r.start + copy as i64 * extent,
                    len: r.len,
                };
                index += 1;
                if index == places.len() {
                    (copy, index) = (copy + 1, 0);
                }
                match pending {
                    _ if r.len == 0 => {}
                    Some(p) if p.end() == r.start => {
                        pending = Some(Run {
                            start: p.start,
                            len: p.len + r.len,
                        });
                    }
                    p => {
                        pending = Some(r);
                        if p.is_some() {
                            return p;
                        }
                    }
                }
            }
        })
    }
}

/// Pieces contiguous in every one of `layouts` at once: the element each
/// starts at in each layout, and its length, in order. Layouts picking
/// different numbers of elements end with the shortest.
pub(crate) fn zip_runs<const N: usize>(
    layouts: [Layout<'_>; N],
) -> impl Iterator<Item = ([i64; N], u64)> {
    let mut runs = layouts.map(Layout::runs);
    let mut left = [Run { start: 0, len: 0 }; N];
    core::iter::from_fn(move || {
        for (run, next) in left.iter_mut().zip(&mut runs) {
            if run.len == 0 {
                *run = next.next()?;
            }
        }
        let n = left.iter().map(|r| r.len).min()?;
        let at = left.map(|r| r.start);
        for r in &mut left {
            r.start += n as i64;
            r.len -= n;
        }
        Some((at, n))
    })
}
