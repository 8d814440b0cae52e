// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two cores in lock step through uncached words in LSM, for the programs
//! that show what the caches and the write-combine buffer do.
//!
//! Those programs compare what one core's L1 or write-combine buffer holds
//! with what another core wrote, so the cores must take turns without
//! rma's barriers: a barrier executes CL1INVMB and flushes the
//! write-combine buffer, erasing the very state the program examines.
//! Uncached (NCM) loads and stores allocate no cache line and bypass the
//! write-combine buffer, so a step leaves both cores' caches as they were.

use alloc::format;
use alloc::string::String;

use kernel::Platform;
use kernel::platform::scc::SharedBytes;

/// Offset in LSM page 0 of core 0's step count; core 1's is a line further.
const STEP_WORDS: u32 = 0x1000;
/// Bytes between the two step words: each on its own line.
const STEP_STRIDE: u32 = chip::CACHE_LINE as u32;

/// Cores 0 and 1 of a run, taking turns.
pub struct Pair<'a> {
    platform: &'a Platform,
    lsm: SharedBytes,
    me: u32,
    step: u32,
}

impl<'a> Pair<'a> {
    /// This core's side of the pair, or `None` on cores other than 0 and 1,
    /// which take no part. Fails if the run has fewer than two cores.
    pub fn new(platform: &'a Platform, program: &str) -> Result<Option<Self>, String> {
        if platform.cores() < 2 {
            return Err(format!("{program} needs at least 2 cores"));
        }
        let me = platform.core().index() as u32;
        Ok((me < 2).then(|| Self {
            platform,
            lsm: platform.lsm(0),
            me,
            step: 0,
        }))
    }

    /// Whether this is core 0, the one that writes.
    pub fn is_writer(&self) -> bool {
        self.me == 0
    }

    /// Ends this core's part of the current step and waits until the other
    /// core has ended its part too; both cores call it equally often.
    pub fn step(&mut self) {
        self.step += 1;
        let other = STEP_WORDS + (1 - self.me) * STEP_STRIDE;
        self.lsm
            .write_u32(STEP_WORDS + self.me * STEP_STRIDE, self.step);
        let step = self.step;
        self.platform
            .wait_for(|| (self.lsm.read_u32(other) >= step).then_some(()));
    }
}

/// The error for a word that did not hold what the program expected.
pub fn unexpected(what: &str, found: u32, expected: u32, meaning: &str) -> String {
    format!("{what}: read {found:#010x}, expected {expected:#010x} ({meaning})")
}
