// SPDX-License-Identifier: MIT OR Apache-2.0
//! Collectives on the channel: binomial-tree broadcast and reduction, ring
//! allgather. Every rank of the communicator takes part, in the same order
//! of calls; their messages travel apart from the program's
//! (the collective plane of `channel.rs`).

use alloc::vec;

use super::Comm;
use super::channel::Plane;
use super::reduce::{ReduceOp, Reducible};
use crate::RmaError;
use crate::hal::Hal;

impl<H: Hal> Comm<'_, H> {
    /// Copies `root`'s `buf` into every rank's `buf` (all the same length),
    /// along a binomial tree: `log2 n` steps.
    ///
    /// Return values: `Err(Root)` if `root` is not a rank (on every rank,
    /// before anything moves); `Err(BufferLength)` on a rank whose buffer
    /// length differs from the root's (it still forwards what it got, so
    /// the others do not hang).
    pub fn bcast(&mut self, root: u32, buf: &mut [u8]) -> Result<(), RmaError> {
        if root >= self.size {
            return Err(RmaError::Root {
                root,
                size: self.size,
            });
        }
        let n = self.size;
        let relative = (self.rank + n - root) % n;
        let mut result = Ok(());
        // Receive from the parent: the rank that differs in the lowest set bit.
        let mut mask = 1;
        while mask < n {
            if relative & mask != 0 {
                let parent = (relative - mask + root) % n;
                result = match self.recv_in(Plane::Collective, parent, buf) {
                    Ok(len) if len == buf.len() => Ok(()),
                    Ok(len) | Err(RmaError::Truncate { sent: len, .. }) => {
                        Err(RmaError::BufferLength {
                            what: "bcast buffer",
                            len: buf.len(),
                            expected: len,
                        })
                    }
                    Err(e) => Err(e),
                };
                break;
            }
            mask <<= 1;
        }
        // Forward to the children below that bit.
        mask >>= 1;
        while mask > 0 {
            if relative + mask < n {
                let child = (relative + mask + root) % n;
                self.send_in(Plane::Collective, child, buf)?;
            }
            mask >>= 1;
        }
        result
    }

    /// Gathers every rank's `mine` (all the same length) into `all` on every
    /// rank, rank `r`'s block at `r * mine.len()`: `n - 1` ring steps,
    /// each sending one block right while receiving one from the left.
    ///
    /// Return values: `Err(BufferLength)` if `all` is not `size` times
    /// `mine`, or a block from another rank has a different length.
    pub fn allgather(&mut self, mine: &[u8], all: &mut [u8]) -> Result<(), RmaError> {
        let block = mine.len();
        let n = self.size as usize;
        if all.len() != n * block {
            return Err(RmaError::BufferLength {
                what: "allgather output",
                len: all.len(),
                expected: n * block,
            });
        }
        let me = self.rank as usize;
        all[me * block..][..block].copy_from_slice(mine);
        let right = ((me + 1) % n) as u32;
        let left = ((me + n - 1) % n) as u32;
        let mut outgoing = vec![0; block];
        for step in 0..n.saturating_sub(1) {
            let send = (me + n - step) % n;
            let recv = (me + 2 * n - step - 1) % n;
            outgoing.copy_from_slice(&all[send * block..][..block]);
            let got = self.sendrecv_in(
                Plane::Collective,
                right,
                &outgoing,
                left,
                &mut all[recv * block..][..block],
            );
            match got {
                Ok(len) if len == block => {}
                Ok(len) | Err(RmaError::Truncate { sent: len, .. }) => {
                    return Err(RmaError::BufferLength {
                        what: "allgather block",
                        len: block,
                        expected: len,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Replaces `values` on every rank by the element-wise reduction of all
    /// ranks' `values` (all the same length): a binomial-tree reduction to
    /// rank 0 in rank order, then a broadcast, so every rank gets the same
    /// bits even for floating point.
    ///
    /// Return values: `Err(BufferLength)` if the lengths differ between ranks.
    pub fn allreduce<T: Reducible>(
        &mut self,
        values: &mut [T],
        op: ReduceOp,
    ) -> Result<(), RmaError> {
        let width = T::BYTES;
        let mut acc = vec![0u8; values.len() * width];
        for (v, out) in values.iter().zip(acc.chunks_exact_mut(width)) {
            v.write_le(out);
        }
        let mut other = vec![0u8; acc.len()];
        let (n, me) = (self.size, self.rank);
        let mut result = Ok(());
        let mut mask = 1;
        // Reduce: at each level the lower rank of a pair receives the upper
        // one's partial result, which covers higher ranks, and appends it.
        while mask < n {
            if me & mask != 0 {
                self.send_in(Plane::Collective, me - mask, &acc)?;
                break;
            }
            if me + mask < n {
                match self.recv_in(Plane::Collective, me + mask, &mut other) {
                    Ok(len) if len == other.len() => {
                        for (a, b) in acc.chunks_exact_mut(width).zip(other.chunks_exact(width)) {
                            T::reduce(op, T::read_le(a), T::read_le(b)).write_le(a);
                        }
                    }
                    Ok(len) | Err(RmaError::Truncate { sent: len, .. }) => {
                        result = Err(RmaError::BufferLength {
                            what: "allreduce values (bytes)",
                            len: acc.len(),
                            expected: len,
                        });
                    }
                    Err(e) => return Err(e),
                }
            }
            mask <<= 1;
        }
        self.bcast(0, &mut acc)?;
        result?;
        for (v, bytes) in values.iter_mut().zip(acc.chunks_exact(width)) {
            *v = T::read_le(bytes);
        }
        Ok(())
    }
}
