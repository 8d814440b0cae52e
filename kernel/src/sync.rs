// SPDX-License-Identifier: MIT OR Apache-2.0
//! A barrier for all cores of a run, on a test-and-set register and MPB flags.
//!
//! Arrival is counted in the first core's MPB under that core's TSR; the
//! last to arrive resets the count and writes the new epoch into a flag
//! line in every core's own MPB, where each waiting core polls locally.
//! The CL1INVMB and write-combine flushes are where SCC code needs them:
//! invalidate before reading MPB data another core wrote, and before
//! writing a line this core may hold in L1 (a write-back MPBT hit would
//! otherwise stay in L1); flush the write-combine buffer before anything
//! that must come after the writes (releasing the TSR, or returning).

use crate::platform::Scc;

/// Offsets of the MPB lines the kernel's own protocols use, in each core's
/// half of its tile's MPB.
pub mod mpb_lines {
    /// Ring token: hops so far (0 = no token), then the running sum.
    pub const RING_TOKEN: u32 = 0;
    /// Barrier epoch the last arriver published.
    pub const BARRIER_FLAG: u32 = 32;
    /// Arrival count, used in the first core's MPB only.
    pub const BARRIER_COUNT: u32 = 64;
}

use mpb_lines::{BARRIER_COUNT, BARRIER_FLAG};

/// One core's side of the barrier.
#[derive(Debug, Default)]
pub struct Barrier {
    epoch: u32,
}

impl Barrier {
    /// A barrier none of whose epochs has passed yet.
    pub const fn new() -> Self {
        Self { epoch: 0 }
    }

    /// Returns once every core of the run has called `wait` as often as this one.
    pub fn wait(&mut self, scc: &Scc) {
        self.epoch += 1;
        let root = scc.participant(0);
        let count = scc.mpb(root);

        scc.tsr_acquire(root);
        scc.invalidate_mpbt();
        let arrived = count.read_u32(BARRIER_COUNT) + 1;
        let last = arrived == scc.cores();
        scc.invalidate_mpbt();
        count.write_u32(BARRIER_COUNT, if last { 0 } else { arrived });
        scc.flush_wcb();
        scc.tsr_release(root);

        if last {
            for n in 0..scc.cores() {
                scc.mpb(scc.participant(n))
                    .write_u32(BARRIER_FLAG, self.epoch);
            }
            scc.flush_wcb();
        } else {
            let flag = scc.own_mpb();
            scc.wait_for(|| {
                scc.invalidate_mpbt();
                (flag.read_u32(BARRIER_FLAG) == self.epoch).then_some(())
            });
        }
    }
}
