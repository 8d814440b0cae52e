// SPDX-License-Identifier: MIT OR Apache-2.0
//! A HAL on `loom`'s model-checked atomics, for exhaustive checks of the
//! barriers on two cores: loom runs the program under every interleaving
//! (up to a preemption bound) and every weak-memory outcome its atomics
//! allow. A wait that can never end shows as a model exceeding its branch
//! limit. Three cores are left to the threaded mock: with spinning waits
//! their interleavings take minutes even at one preemption.
//!
//! Only the MPB words the barriers and the communicator's start-up touch
//! exist: words 0-2 of lines 0-15 and of the peer lines of the run's
//! ranks. Each access is an acquire load or a release store, as in the
//! [mock](super::mock). The cache operations do nothing, so these checks
//! cover the synchronisation logic (counts, senses, episodes, reuse), not
//! the placement of CL1INVMB and flushes.
#![forbid(unsafe_code)]

use std::vec::Vec;

use chip::{Chip, CoreId};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::{CacheControl, Clock, Mpb, MpbHalf, Topology, Tsr, Wait};
use crate::comm::layout::{LINE, PEER_LINES};

/// Words modelled per line.
const WORDS: u32 = 3;
/// Lines before the peer lines.
const FIXED_LINES: u32 = PEER_LINES / LINE;

/// What the cores of one model run share.
#[derive(Debug)]
pub struct Chip0 {
    cores: u32,
    words: Vec<AtomicU32>,
    tsr: Vec<AtomicBool>,
}

/// One core of a loom-checked chip.
#[derive(Debug, Clone)]
pub struct LoomHal {
    shared: Arc<Chip0>,
    core: CoreId,
}

impl LoomHal {
    /// The cores of a run of `cores`, each to be moved into its thread.
    pub fn cores(cores: u32) -> Vec<LoomHal> {
        let lines = FIXED_LINES + cores;
        let shared = Arc::new(Chip0 {
            cores,
            words: (0..cores * lines * WORDS)
                .map(|_| AtomicU32::new(0))
                .collect(),
            tsr: (0..cores).map(|_| AtomicBool::new(false)).collect(),
        });
        chip::SCC
            .all_cores()
            .take(cores as usize)
            .map(|core| LoomHal {
                shared: shared.clone(),
                core,
            })
            .collect()
    }

    fn half_core(&self, half: MpbHalf) -> CoreId {
        match half {
            MpbHalf::Own => self.core,
            MpbHalf::Of(core) => core,
        }
    }

    fn word(&self, half: MpbHalf, offset: u32) -> &AtomicU32 {
        let core = self.half_core(half);
        let cores = self.shared.cores;
        assert!(offset.is_multiple_of(4) && (core.index() as u32) < cores);
        let (line, word) = (offset / LINE, offset % LINE / 4);
        assert!(
            line < FIXED_LINES + cores && word < WORDS,
            "MPB offset {offset:#x} is not modelled"
        );
        let index = (core.index() as u32 * (FIXED_LINES + cores) + line) * WORDS + word;
        &self.shared.words[index as usize]
    }
}

impl Topology for LoomHal {
    fn chip(&self) -> &'static Chip {
        &chip::SCC
    }

    fn core(&self) -> CoreId {
        self.core
    }

    fn cores(&self) -> u32 {
        self.shared.cores
    }
}

impl Mpb for LoomHal {
    fn mpb_read_u32(&self, half: MpbHalf, offset: u32) -> u32 {
        self.word(half, offset).load(Ordering::Acquire)
    }

    fn mpb_write_u32(&self, half: MpbHalf, offset: u32, value: u32) {
        self.word(half, offset).store(value, Ordering::Release);
    }

    fn mpb_read(&self, _: MpbHalf, offset: u32, _: &mut [u8]) {
        panic!("the loom HAL models flags only, not data at {offset:#x}");
    }

    fn mpb_write(&self, _: MpbHalf, offset: u32, _: &[u8]) {
        panic!("the loom HAL models flags only, not data at {offset:#x}");
    }
}

impl Tsr for LoomHal {
    fn tsr_acquire(&self, owner: CoreId) {
        let tsr = &self.shared.tsr[owner.index()];
        self.wait_for(|| {
            tsr.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .ok()
                .map(drop)
        });
    }

    fn tsr_release(&self, owner: CoreId) {
        self.shared.tsr[owner.index()].store(false, Ordering::Release);
    }
}

impl CacheControl for LoomHal {
    fn invalidate_mpbt(&self) {}

    fn flush_wcb(&self) {}
}

impl Wait for LoomHal {
    /// Yields to loom's scheduler between polls, so a spinning core lets
    /// the others run.
    fn wait_for<T>(&self, mut ready: impl FnMut() -> Option<T>) -> T {
        loop {
            if let Some(value) = ready() {
                return value;
            }
            loom::thread::yield_now();
        }
    }
}

impl Clock for LoomHal {
    /// Time does not exist in a model run.
    fn cycles(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use loom::sync::atomic::AtomicU32;

    use super::*;
    use crate::comm::{BarrierAlgorithm, Comm};

    /// Runs `barriers` on `cores` model cores; after each one, every core
    /// checks that all others entered it and none is past the next.
    fn check(cores: u32, barriers: &'static [BarrierAlgorithm], preemptions: usize) {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(preemptions);
        // Every poll of a spinning core is a scheduling branch.
        model.max_branches = 100_000;

        model.check(move || {
            let entered: Arc<Vec<AtomicU32>> =
                Arc::new((0..cores).map(|_| AtomicU32::new(0)).collect());
            let threads: Vec<_> = LoomHal::cores(cores)
                .into_iter()
                .map(|hal| {
                    let entered = entered.clone();
                    loom::thread::spawn(move || {
                        let mut comm = Comm::new(&hal).expect("layout fits");
                        let me = comm.rank() as usize;
                        for (episode, &algorithm) in (1..).zip(barriers) {
                            entered[me].store(episode, Ordering::SeqCst);
                            comm.barrier_with(algorithm);
                            for e in entered.iter() {
                                let e = e.load(Ordering::SeqCst);
                                assert!(
                                    e == episode || e == episode + 1,
                                    "left barrier {episode} ({algorithm:?}) while a core was at {e}"
                                );
                            }
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().expect("model core");
            }
        });
    }

    #[test]
    fn central_barrier_twice_on_two_cores() {
        use BarrierAlgorithm::Central;
        check(2, &[Central, Central], 2);
    }

    #[test]
    fn dissemination_barrier_twice_on_two_cores() {
        use BarrierAlgorithm::Dissemination;
        check(2, &[Dissemination; 2], 2);
    }

    #[test]
    fn alternating_algorithms_on_two_cores() {
        use BarrierAlgorithm::{Central, Dissemination};
        check(2, &[Dissemination, Central], 2);
    }
}
