// SPDX-License-Identifier: MIT OR Apache-2.0
//! Typed access to this core's own part of a window, as a program uses
//! MPI's window memory with loads and stores: [`Rma::local`] gives a
//! [`LocalView`], which reads and writes elements in place, one at a time
//! or a slice at a time, through the core's local mapping of its part with
//! the window's local memory type.
//!
//! The view's loads and stores are the program's own, so MPI's rules on
//! window memory apply to them as they are (MPI-3.1 11.7): they may be
//! made outside any epoch; what another process put shows after the epoch
//! that exposed it ended (a fence, wait, or the unlock seen by a
//! [`Rma::sync`] in a passive epoch); what the view stores shows to others
//! after the next fence, post or unlock releases it (on a write-combine
//! type the stores wait in the buffer until then). No Rust reference into
//! window memory is handed out: other cores write it behind the
//! compiler's back, so every access is a copy through the mapping.
//!
//! The view borrows the [`Rma`] mutably, so no epoch can open or close
//! while it lives: the program's accesses and the layer's synchronisation
//! stay in the order the program wrote them.

use alloc::vec::Vec;

use super::{Rma, Window};
use crate::RmaError;
use crate::comm::Element;
use crate::hal::RmaHal;

/// This core's own part of a window, element by element
/// ([`Rma::local`]).
#[derive(Debug)]
pub struct LocalView<'r, 'h, H: RmaHal, T: Element> {
    rma: &'r mut Rma<'h, H>,
    window: Window<T>,
    len: u32,
}

impl<'h, H: RmaHal> Rma<'h, H> {
    /// A view of this core's own part of `window`, to load and store its
    /// elements in place ([`LocalView`]; the module docs say when what is
    /// stored and put shows).
    ///
    /// Return values: `Err(UnknownWindow)`; `Err(Flavor)` for a dynamic
    /// window (its attached memory is reached with
    /// [`Rma::memory_read`] and [`Rma::memory_write`]).
    pub fn local<T: Element>(
        &mut self,
        window: Window<T>,
    ) -> Result<LocalView<'_, 'h, H, T>, RmaError> {
        let w = self.window_with_memory("local", window.id)?;
        let bytes = w.remotes[w.ranks.rank as usize].info.size;
        Ok(LocalView {
            len: bytes / T::BYTES as u32,
            rma: self,
            window,
        })
    }
}

impl<H: RmaHal, T: Element> LocalView<'_, '_, H, T> {
    /// Elements in the part (whole ones: a part whose bytes are not a
    /// multiple of the element's ends with a few bytes the view leaves
    /// alone).
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the part holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `index`.
    ///
    /// Return values: `Err(Range)` past the end.
    pub fn get(&mut self, index: u32) -> Result<T, RmaError> {
        let mut one = [zero::<T>()];
        self.read(index, &mut one)?;
        Ok(one[0])
    }

    /// Stores `value` as element `index`.
    ///
    /// Return values: `Err(Range)` past the end.
    pub fn set(&mut self, index: u32, value: T) -> Result<(), RmaError> {
        self.write(index, &[value])
    }

    /// Replaces element `index` by `f` of it, and returns the new value:
    /// a load and a store of this core, not an atomic operation (other
    /// processes' accumulates to the same element in the same epoch race
    /// with it, as with any local store).
    ///
    /// Return values: `Err(Range)` past the end.
    pub fn update(&mut self, index: u32, f: impl FnOnce(T) -> T) -> Result<T, RmaError> {
        let value = f(self.get(index)?);
        self.set(index, value)?;
        Ok(value)
    }

    /// Loads `buf.len()` elements from element `index` on.
    ///
    /// Return values: `Err(Range)` if they do not all lie in the part.
    pub fn read(&mut self, index: u32, buf: &mut [T]) -> Result<(), RmaError> {
        self.rma.local_read(self.window, index, buf)
    }

    /// Stores `data` from element `index` on.
    ///
    /// Return values: `Err(Range)` if they do not all lie in the part.
    pub fn write(&mut self, index: u32, data: &[T]) -> Result<(), RmaError> {
        self.rma.local_write(self.window, index, data)
    }

    /// Stores `value` into every element.
    pub fn fill(&mut self, value: T) -> Result<(), RmaError> {
        /// Elements stored per call: a stack buffer's worth.
        const CHUNK: u32 = 64;
        let chunk = [value; CHUNK as usize];
        let mut at = 0;
        while at < self.len {
            let n = (self.len - at).min(CHUNK);
            self.write(at, &chunk[..n as usize])?;
            at += n;
        }
        Ok(())
    }

    /// Every element, loaded into a vector.
    pub fn to_vec(&mut self) -> Result<Vec<T>, RmaError> {
        let mut all = alloc::vec![zero::<T>(); self.len as usize];
        self.read(0, &mut all)?;
        Ok(all)
    }
}

/// The element whose bytes are all zero: a value to load into.
fn zero<T: Element>() -> T {
    const { assert!(T::BYTES <= 32, "elements of at most 32 bytes") };
    T::read_le(&[0u8; 32][..T::BYTES])
}
