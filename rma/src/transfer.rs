// SPDX-License-Identifier: MIT OR Apache-2.0
//! One description of a one-sided operation: which window, whose part,
//! from which displacement, the places each side picks, and whether the
//! call completes when it returns or as a request.
//!
//! Put, get, accumulate and get_accumulate take a [`Transfer`] and their
//! data ([`Rma::put_with`](crate::window::Rma::put_with) and its
//! relatives); every named form (`put`, `put_vector`, `put_typed`,
//! `rput`, `rput_typed`, ...) is that call with a [`Transfer`] built for
//! it, so the checks and the copy of each operation are written once. The
//! MPI binding builds a [`Transfer`] from its datatypes and a flag for
//! the request forms.
#![forbid(unsafe_code)]

use crate::datatype::{Counted, Layout, Vector};
use crate::window::Window;

/// The target rank of an operation that does nothing (`MPI_PROC_NULL`):
/// put, get, the accumulate family and their request forms return at once,
/// touching no buffer (fetch_and_op and compare_and_swap return the
/// element type's zero), and check only the window handle. The epoch must
/// still be ended as it was opened.
pub const PROC_NULL: u32 = u32::MAX;

/// The places an operation picks at both sides.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Sides<'l> {
    /// Consecutive elements at both sides, as many as the origin buffer
    /// holds: one copy, and no layout to check.
    Contiguous,
    /// What each side's layout picks; the `k`-th place of one pairs with
    /// the `k`-th of the other.
    Laid {
        origin: Layout<'l>,
        target: Layout<'l>,
    },
}

/// When an operation is complete at the origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Completion {
    /// When its call returns (`MPI_Put` and its relatives).
    Blocking,
    /// When a wait or test on the request its call returns retires it
    /// (`MPI_Rput` and its relatives); only in a passive-target epoch.
    Request,
}

/// One put, get, accumulate or get_accumulate, described once: `window`,
/// the part of rank `target`, from displacement `disp` (in the window's
/// displacement unit), the places both sides pick, and its
/// [`Completion`].
#[derive(Debug, Clone, Copy)]
pub struct Transfer<'l, T> {
    pub(crate) window: Window<T>,
    pub(crate) target: u32,
    pub(crate) disp: u32,
    pub(crate) sides: Sides<'l>,
    pub(crate) completion: Completion,
}

impl<'l, T> Transfer<'l, T> {
    /// Consecutive elements at both sides: as many as the origin buffer
    /// holds (for get_accumulate, the result buffer).
    pub fn contiguous(window: Window<T>, target: u32, disp: u32) -> Self {
        Self {
            window,
            target,
            disp,
            sides: Sides::Contiguous,
            completion: Completion::Blocking,
        }
    }

    /// The elements `origin` picks from the origin buffer, to or from the
    /// places `target_layout` picks in the target's window (MPI's vector
    /// types).
    pub fn vector(
        window: Window<T>,
        target: u32,
        disp: u32,
        origin: Vector,
        target_layout: Vector,
    ) -> Self {
        Self::laid(
            window,
            target,
            disp,
            origin.layout(),
            target_layout.layout(),
        )
    }

    /// The elements `origin` picks from the origin buffer, to or from the
    /// places `target_type` picks in the target's window (MPI's derived
    /// datatypes).
    pub fn typed(
        window: Window<T>,
        target: u32,
        disp: u32,
        origin: Counted<'l, T>,
        target_type: Counted<'l, T>,
    ) -> Self {
        Self::laid(window, target, disp, origin.layout(), target_type.layout())
    }

    fn laid(
        window: Window<T>,
        target: u32,
        disp: u32,
        origin: Layout<'l>,
        target_layout: Layout<'l>,
    ) -> Self {
        Self {
            window,
            target,
            disp,
            sides: Sides::Laid {
                origin,
                target: target_layout,
            },
            completion: Completion::Blocking,
        }
    }

    /// The same operation as a request (`MPI_Rput` and its relatives).
    pub fn request(self) -> Self {
        self.completing(Completion::Request)
    }

    /// The same operation completing as `completion` says.
    pub fn completing(self, completion: Completion) -> Self {
        Self { completion, ..self }
    }

    /// The window's number.
    pub(crate) fn id(&self) -> u32 {
        self.window.id()
    }

    /// `blocking`, or `request` for a request: what names the call in
    /// errors.
    pub(crate) fn pick<C>(&self, blocking: C, request: C) -> C {
        match self.completion {
            Completion::Blocking => blocking,
            Completion::Request => request,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;
    use crate::comm::Comm;
    use crate::epoch::{Assert, LockType};
    use crate::hal::mock::Mock;
    use crate::window::{Rma, WindowOptions};
    use crate::{AccumulateOp, Datatype, ErrorClass};

    fn rma(hal: &Mock) -> Rma<'_, Mock> {
        Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
    }

    #[test]
    fn one_description_serves_every_operation_blocking_or_as_a_request() {
        Mock::run(2, |hal| {
            let mut rma = rma(hal);
            let (me, other) = (rma.rank(), 1 - rma.rank());
            let win = rma.allocate::<u32>(64, WindowOptions::new()).unwrap();
            let data: Vec<u32> = (0..16).map(|i| me * 100 + i).collect();
            // Every second element of `data` to the first 8 places.
            let every_second =
                Transfer::vector(win, other, 0, Vector::new(8, 1, 2), Vector::contiguous(8));
            rma.lock(win, LockType::Exclusive, other, Assert::NONE)
                .unwrap();
            assert!(rma.put_with(every_second, &data).unwrap().is_none());
            let request = rma.put_with(every_second.request(), &data).unwrap();
            let request = request.expect("a request form returns its request");
            rma.wait_request(win, request).unwrap();
            let mut got = [0u32; 8];
            let whole = Transfer::contiguous(win, other, 0);
            let request = rma.get_with(whole.request(), &mut got).unwrap();
            assert!(request.is_some());
            let expected: Vec<u32> = (0..8).map(|i| me * 100 + 2 * i).collect();
            assert_eq!(got.as_slice(), expected, "the get sees the strided put");
            // Accumulate through a derived type: 8 ones onto the places.
            let ones = Datatype::<u32>::element().commit().unwrap();
            let eight = Transfer::typed(win, other, 0, ones.times(8), ones.times(8));
            rma.accumulate_with(eight, &[1; 8], AccumulateOp::Sum)
                .unwrap();
            let mut old = [0u32; 8];
            rma.get_accumulate_with(
                whole.completing(Completion::Request),
                &[0; 8],
                &mut old,
                None,
                AccumulateOp::NoOp,
            )
            .unwrap()
            .expect("a request");
            let plus_one: Vec<u32> = expected.iter().map(|v| v + 1).collect();
            assert_eq!(old.as_slice(), plus_one, "get_accumulate reads the sums");
            rma.unlock(win, other).unwrap();
            // Outside a passive-target epoch the request form is refused
            // under its own name, the blocking form under its own.
            let e = rma.put_with(whole.request(), &data[..1]).unwrap_err();
            assert_eq!(e.class(), ErrorClass::RmaSync);
            assert!(e.to_string().contains("rput on window"), "{e}");
            let e = rma.put_with(whole, &data[..1]).unwrap_err();
            assert!(e.to_string().contains("put on window"), "{e}");
            let s = rma.stats(win).unwrap();
            assert_eq!((s.requests, s.puts, s.gets, s.accumulates), (3, 2, 1, 2));
            rma.comm().barrier();
            rma.free(win).unwrap();
        });
    }
}
