// SPDX-License-Identifier: MIT OR Apache-2.0
//! A HAL on `loom`'s model-checked atomics, for exhaustive checks of the
//! barriers, PSCW, GBH's locks and MCS-WP on two and three cores: loom
//! runs the program under every interleaving (up to a preemption bound) and every
//! weak-memory outcome its atomics allow. A wait that can never end shows as a model exceeding its branch
//! limit. With spinning waits, three cores take minutes even at one
//! preemption; the three-core PSCW checks therefore block waiting cores
//! until something changes ([`LoomHal::blocking_cores`]), and the barriers
//! on three cores are left to the threaded mock.
//!
//! Only the MPB words the barriers and the communicator's start-up touch
//! exist: words 0-2 of lines 0-15 and of the peer lines of the run's
//! ranks. Of the LSM, only what PSCW and the locks touch exists: the
//! match-vector word, the completion-counter word, GBH's two lock-counter
//! words, MCS-WP's four lock words and the run's MCS-WP nodes of one
//! window record per core, core `k`'s at [`record`]`(k)` of controller 0. Each access is an acquire load or a release store, as in
//! the [mock](crate::hal::mock). The cache operations do nothing, so these checks
//! cover the synchronisation logic (counts, senses, episodes, reuse), not
//! the placement of CL1INVMB and flushes.
#![forbid(unsafe_code)]

use std::vec::Vec;

use chip::{Chip, CoreId};
use loom::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use loom::sync::{Arc, Condvar, Mutex};

use crate::comm::layout::{LINE, PEER_LINES};
use crate::hal::{CacheControl, Clock, Lsm, Mpb, MpbHalf, Topology, Tsr, Wait};
use crate::window::database::{
    COUNTER, GLOBAL, LOCK, MATCH, MCS_LOCK, NODE_BYTES, NODES, RECORD_BYTES, RECORDS, Record,
};

/// Words modelled per line.
const WORDS: u32 = 3;
/// LSM words modelled per window record before the nodes: match vector,
/// completion counter, GBH's local and global lock counters, MCS-WP's
/// four lock words.
const FIXED_RECORD_WORDS: u32 = 8;

/// LSM words modelled per window record of a run of `cores`: the fixed
/// ones and two per MCS-WP node.
const fn words_per_record(cores: u32) -> u32 {
    FIXED_RECORD_WORDS + 2 * cores
}
/// Lines before the peer lines.
const FIXED_LINES: u32 = PEER_LINES / LINE;

/// What the cores of one model run share.
#[derive(Debug)]
pub struct Chip0 {
    cores: u32,
    words: Vec<AtomicU32>,
    tsr: Vec<AtomicBool>,
    /// Match-vector, counter and lock words of each core's record.
    lsm: Vec<AtomicU32>,
    /// For [`LoomHal::blocking_cores`]: a count of LSM writes and TSR
    /// releases, and the waiters it wakes.
    signal: Option<(Mutex<u64>, Condvar)>,
}

/// Where core `k`'s window record lies in the model.
pub fn record(k: u32) -> Record {
    Record {
        controller: 0,
        offset: RECORDS + k * RECORD_BYTES,
    }
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
        Self::make(cores, false)
    }

    /// As [`LoomHal::cores`], but a waiting core blocks until an LSM write
    /// or a TSR release instead of spinning: loom then explores the orders
    /// of the protocol's steps rather than of poll iterations, which makes
    /// three cores tractable. The lock behind the wake-up orders memory
    /// too, so such runs check the protocol's logic (which post a complete
    /// consumes, when a wait may end), not its weak-memory orderings.
    pub fn blocking_cores(cores: u32) -> Vec<LoomHal> {
        Self::make(cores, true)
    }

    fn make(cores: u32, blocking: bool) -> Vec<LoomHal> {
        let lines = FIXED_LINES + cores;
        let shared = Arc::new(Chip0 {
            cores,
            words: (0..cores * lines * WORDS)
                .map(|_| AtomicU32::new(0))
                .collect(),
            tsr: (0..cores).map(|_| AtomicBool::new(false)).collect(),
            lsm: (0..words_per_record(cores) * cores)
                .map(|_| AtomicU32::new(0))
                .collect(),
            signal: blocking.then(|| (Mutex::new(0), Condvar::new())),
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

impl LoomHal {
    /// Wakes blocked waiters, in blocking mode.
    fn signal(&self) {
        if let Some((count, wake)) = &self.shared.signal {
            *count.lock().expect("no model core panics holding it") += 1;
            wake.notify_all();
        }
    }

    /// The modelled LSM word holding byte `offset` of controller 0.
    fn lsm_word(&self, controller: usize, offset: u32) -> &AtomicU32 {
        assert_eq!(controller, 0, "the loom HAL models controller 0 only");
        let at = offset
            .checked_sub(RECORDS)
            .expect("LSM offset below the records");
        let (k, within) = (at / RECORD_BYTES, at % RECORD_BYTES);
        let word = match within {
            MATCH => 0,
            _ if (COUNTER..COUNTER + 4).contains(&within) => 1,
            LOCK => 2,
            GLOBAL => 3,
            _ if (MCS_LOCK..MCS_LOCK + 16).contains(&within) && within.is_multiple_of(4) => {
                4 + (within - MCS_LOCK) / 4
            }
            _ if (NODES..NODES + NODE_BYTES * self.shared.cores).contains(&within)
                && within.is_multiple_of(4) =>
            {
                FIXED_RECORD_WORDS + (within - NODES) / 4
            }
            _ => panic!("LSM offset {offset:#x} is not modelled"),
        };
        &self.shared.lsm[(words_per_record(self.shared.cores) * k + word) as usize]
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
        self.signal();
    }
}

/// Uncached accesses, in program order: acquire loads, release stores.
impl Lsm for LoomHal {
    fn lsm_read_u32(&self, controller: usize, offset: u32) -> u32 {
        self.lsm_word(controller, offset).load(Ordering::Acquire)
    }

    fn lsm_write_u32(&self, controller: usize, offset: u32, value: u32) {
        self.lsm_word(controller, offset)
            .store(value, Ordering::Release);
        self.signal();
    }

    fn lsm_read(&self, controller: usize, offset: u32, buf: &mut [u8]) {
        let word = self.lsm_word(controller, offset).load(Ordering::Acquire);
        let first = (offset % 4) as usize;
        assert!(first + buf.len() <= 4, "the loom HAL reads within one word");
        buf.copy_from_slice(&word.to_le_bytes()[first..first + buf.len()]);
    }

    fn lsm_write(&self, controller: usize, offset: u32, data: &[u8]) {
        let first = (offset % 4) as usize;
        assert!(
            first + data.len() <= 4,
            "the loom HAL writes within one word"
        );
        let _ = self.lsm_word(controller, offset).fetch_update(
            Ordering::AcqRel,
            Ordering::Acquire,
            |old| {
                let mut bytes = old.to_le_bytes();
                bytes[first..first + data.len()].copy_from_slice(data);
                Some(u32::from_le_bytes(bytes))
            },
        );
        self.signal();
    }
}

impl CacheControl for LoomHal {
    fn invalidate_mpbt(&self) {}

    fn flush_wcb(&self) {}
}

impl Wait for LoomHal {
    /// Yields to loom's scheduler between polls, so a spinning core lets
    /// the others run; in blocking mode, sleeps until the next signal.
    fn wait_for<T>(&self, mut ready: impl FnMut() -> Option<T>) -> T {
        loop {
            let seen = self
                .shared
                .signal
                .as_ref()
                .map(|(count, _)| *count.lock().expect("no model core panics holding it"));
            if let Some(value) = ready() {
                return value;
            }
            match (&self.shared.signal, seen) {
                (Some((count, wake)), Some(seen)) => {
                    let mut now = count.lock().expect("no model core panics holding it");
                    while *now == seen {
                        now = wake.wait(now).expect("no model core panics holding it");
                    }
                }
                _ => loom::thread::yield_now(),
            }
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

/// PSCW's matching (Algorithms 1 and 2 on the window database) under
/// every interleaving: window data is a relaxed atomic per target, so a
/// target reads what its origin put only if the synchronisation orders it.
#[cfg(test)]
mod pscw {
    use loom::sync::atomic::AtomicU32;

    use super::*;
    use crate::active::pscw;

    /// Core `k`'s model HAL, record and core id.
    fn core(hal: &LoomHal) -> (u32, Record, CoreId) {
        let k = hal.core().index() as u32;
        (k, record(k), hal.core())
    }

    /// One origin epoch of `origin` on `target`: start (nothing), put
    /// `value` once the target posted, complete.
    fn origin_epoch(hal: &LoomHal, seen: &mut [u32], target: u32, cell: &AtomicU32, value: u32) {
        let (_, mine, me) = core(hal);
        pscw::await_post(hal, mine, seen, target);
        cell.store(value, Ordering::Relaxed);
        let t = hal.participant(target);
        pscw::complete(
            hal,
            me,
            mine,
            seen,
            [(target, t, record(target))].into_iter(),
        );
    }

    /// One exposure epoch of a target for `origin`: post, wait, then the
    /// data must be `value`.
    fn target_epoch(hal: &LoomHal, origin: u32, cell: &AtomicU32, value: u32) {
        let (k, mine, _) = core(hal);
        let o = hal.participant(origin);
        pscw::post(hal, k, mine, [(o, record(origin))].into_iter());
        pscw::wait(hal, mine);
        assert_eq!(
            cell.load(Ordering::Relaxed),
            value,
            "core {k} read stale window data"
        );
    }

    fn model(preemptions: usize, body: impl Fn() + Sync + Send + 'static) {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(preemptions);
        model.max_branches = 100_000;
        model.check(body);
    }

    #[test]
    fn two_epochs_back_to_back_on_two_cores() {
        model(2, || {
            let cell = Arc::new(AtomicU32::new(0));
            let mut hals = LoomHal::cores(2).into_iter();
            let (origin, target) = (hals.next().unwrap(), hals.next().unwrap());
            let c = cell.clone();
            let t = loom::thread::spawn(move || {
                for round in 1..=2 {
                    target_epoch(&target, 0, &c, round);
                }
            });
            let mut seen = [0];
            for round in 1..=2 {
                origin_epoch(&origin, &mut seen, 1, &cell, round);
            }
            assert_eq!(seen, [0], "complete cleared the local copy");
            t.join().unwrap();
        });
    }

    #[test]
    fn a_post_of_a_later_epoch_arriving_early_waits_for_it() {
        // Core 0 accesses core 1, then core 2; core 2 posts at once, so its
        // post may land while core 0's first epoch is still open. (A
        // complete that took any post for its target's, as a per-origin
        // post counter does, deadlocks here: core 1's post then finds its
        // counter already decremented.) Preemption bound 2 passes too, in
        // minutes rather than seconds.
        model(1, || {
            let cells: Arc<[AtomicU32; 3]> = Arc::new(core::array::from_fn(|_| AtomicU32::new(0)));
            let mut hals = LoomHal::blocking_cores(3).into_iter();
            let origin = hals.next().unwrap();
            let targets: Vec<_> = hals
                .map(|hal| {
                    let cells = cells.clone();
                    loom::thread::spawn(move || {
                        let k = hal.core().index();
                        target_epoch(&hal, 0, &cells[k], k as u32 * 10);
                    })
                })
                .collect();
            let mut seen = [0];
            origin_epoch(&origin, &mut seen, 1, &cells[1], 10);
            origin_epoch(&origin, &mut seen, 2, &cells[2], 20);
            for t in targets {
                t.join().unwrap();
            }
        });
    }

    /// The same program with Open MPI `sm`'s matching (thesis 3.2): a post
    /// adds 1 to a per-origin counter, and an access epoch takes as many
    /// posts as its group has members, whoever sent them. Core 2's early
    /// post then opens core 0's epoch with core 1, which is not exposed:
    /// loom finds the interleaving, so the check above has teeth.
    #[test]
    #[should_panic(expected = "deadlock")]
    fn a_per_origin_post_counter_fails_the_same_check() {
        fn counted_post(hal: &LoomHal, mine: Record, origin: u32) {
            let o = record(origin);
            hal.lsm_write(mine.controller, mine.counter(), &[1]);
            let (word, _) = o.match_word(0);
            hal.tsr_acquire(hal.participant(origin));
            let v = hal.lsm_read_u32(o.controller, word);
            hal.lsm_write_u32(o.controller, word, v + 1);
            hal.tsr_release(hal.participant(origin));
        }
        fn counted_epoch(hal: &LoomHal, target: u32, cell: &AtomicU32, value: u32) {
            let (_, mine, me) = core(hal);
            let (word, _) = mine.match_word(0);
            hal.wait_for(|| (hal.lsm_read_u32(mine.controller, word) > 0).then_some(()));
            hal.tsr_acquire(me);
            let v = hal.lsm_read_u32(mine.controller, word);
            hal.lsm_write_u32(mine.controller, word, v - 1);
            hal.tsr_release(me);
            cell.store(value, Ordering::Relaxed);
            let t = record(target);
            hal.tsr_acquire(hal.participant(target));
            let mut count = [0];
            hal.lsm_read(t.controller, t.counter(), &mut count);
            hal.lsm_write(t.controller, t.counter(), &[count[0].wrapping_sub(1)]);
            hal.tsr_release(hal.participant(target));
        }
        model(1, || {
            let cells: Arc<[AtomicU32; 3]> = Arc::new(core::array::from_fn(|_| AtomicU32::new(0)));
            let mut hals = LoomHal::blocking_cores(3).into_iter();
            let origin = hals.next().unwrap();
            let targets: Vec<_> = hals
                .map(|hal| {
                    let cells = cells.clone();
                    loom::thread::spawn(move || {
                        let (k, mine, _) = core(&hal);
                        counted_post(&hal, mine, 0);
                        pscw::wait(&hal, mine);
                        let got = cells[k as usize].load(Ordering::Relaxed);
                        assert_eq!(got, k * 10, "core {k} read stale window data");
                    })
                })
                .collect();
            counted_epoch(&origin, 1, &cells[1], 10);
            counted_epoch(&origin, 2, &cells[2], 20);
            for t in targets {
                t.join().unwrap();
            }
        });
    }

    #[test]
    fn two_origins_on_one_target() {
        // Algorithm 2's counter: the target's wait ends only after both
        // origins completed, whatever the order.
        model(1, || {
            let cells: Arc<[AtomicU32; 3]> = Arc::new(core::array::from_fn(|_| AtomicU32::new(0)));
            let mut hals = LoomHal::blocking_cores(3).into_iter();
            let target = hals.next().unwrap();
            let origins: Vec<_> = hals
                .map(|hal| {
                    let cells = cells.clone();
                    loom::thread::spawn(move || {
                        let k = hal.core().index();
                        origin_epoch(&hal, &mut [0], 0, &cells[k], k as u32);
                    })
                })
                .collect();
            let (k, mine, _) = core(&target);
            let both = [
                (target.participant(1), record(1)),
                (target.participant(2), record(2)),
            ];
            pscw::post(&target, k, mine, both.iter().copied());
            pscw::wait(&target, mine);
            assert_eq!(cells[1].load(Ordering::Relaxed), 1);
            assert_eq!(cells[2].load(Ordering::Relaxed), 2);
            for o in origins {
                o.join().unwrap();
            }
        });
    }
}

/// GBH's counters ([`crate::passive::gbh`]) under every interleaving: the
/// window data is a relaxed atomic, so a holder reads what the previous one
/// wrote only if the lock orders it. Failed attempts give way through the
/// platform's wait ([`Backoff::Yield`]), as loom must see a spinning core
/// yield.
#[cfg(test)]
mod gbh {
    use loom::sync::atomic::AtomicU32;

    use super::*;
    use crate::passive::gbh::{self, Backoff, Counter};

    /// The global counter and the local counter of core 0's part.
    fn counters(hal: &LoomHal) -> (Counter, Counter) {
        let owner = hal.participant(0);
        (
            Counter::global(owner, record(0)),
            Counter::local(owner, record(0)),
        )
    }

    fn model(preemptions: usize, body: impl Fn() + Sync + Send + 'static) {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(preemptions);
        model.max_branches = 100_000;
        model.check(body);
    }

    /// One exclusive critical section: nobody else inside, and a
    /// read-modify-write of the data that a second holder would spoil.
    fn exclusive(hal: &LoomHal, inside: &AtomicU32, data: &AtomicU32) {
        let (global, local) = counters(hal);
        gbh::lock_exclusive(hal, global, local, Backoff::Yield);
        assert_eq!(inside.swap(1, Ordering::Relaxed), 0, "two holders inside");
        let v = data.load(Ordering::Relaxed);
        data.store(v + 1, Ordering::Relaxed);
        inside.store(0, Ordering::Relaxed);
        gbh::unlock_exclusive(hal, global, local);
    }

    #[test]
    fn exclusive_locks_exclude_each_other_on_two_cores() {
        model(2, || {
            let shared = Arc::new((AtomicU32::new(0), AtomicU32::new(0)));
            let mut hals = LoomHal::cores(2).into_iter();
            let (a, b) = (hals.next().unwrap(), hals.next().unwrap());
            let s = shared.clone();
            let t = loom::thread::spawn(move || exclusive(&b, &s.0, &s.1));
            exclusive(&a, &shared.0, &shared.1);
            t.join().unwrap();
            assert_eq!(shared.1.load(Ordering::Relaxed), 2, "an update was lost");
            let (global, local) = counters(&a);
            assert_eq!(
                (global.read(&a), local.read(&a)),
                (0, 0),
                "counters left set"
            );
        });
    }

    #[test]
    fn shared_locks_admit_two_readers_at_once() {
        // Each reader waits inside its lock for the other to be inside too:
        // a shared lock that excluded readers would deadlock here.
        model(2, || {
            let inside: Arc<[AtomicU32; 2]> = Arc::new(core::array::from_fn(|_| AtomicU32::new(0)));
            let threads: Vec<_> = LoomHal::cores(2)
                .into_iter()
                .map(|hal| {
                    let inside = inside.clone();
                    loom::thread::spawn(move || {
                        let me = hal.core().index();
                        let (_, local) = counters(&hal);
                        gbh::lock_shared(&hal, local, Backoff::Yield);
                        inside[me].store(1, Ordering::Release);
                        hal.wait_for(|| {
                            (inside[1 - me].load(Ordering::Acquire) == 1).then_some(())
                        });
                        gbh::unlock_shared(&hal, local);
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
        });
    }

    #[test]
    fn a_writer_excludes_two_readers_on_three_cores() {
        // Core 0 writes the data twice under one exclusive lock; readers on
        // cores 1 and 2 must see both writes or neither.
        model(1, || {
            let shared = Arc::new((AtomicU32::new(0), AtomicU32::new(0)));
            let mut hals = LoomHal::cores(3).into_iter();
            let writer = hals.next().unwrap();
            let readers: Vec<_> = hals
                .map(|hal| {
                    let s = shared.clone();
                    loom::thread::spawn(move || {
                        let (_, local) = counters(&hal);
                        gbh::lock_shared(&hal, local, Backoff::Yield);
                        let (x, y) = (s.0.load(Ordering::Relaxed), s.1.load(Ordering::Relaxed));
                        assert_eq!(x, y, "a reader saw a writer's half-done update");
                        gbh::unlock_shared(&hal, local);
                    })
                })
                .collect();
            let (global, local) = counters(&writer);
            gbh::lock_exclusive(&writer, global, local, Backoff::Yield);
            shared.0.store(1, Ordering::Relaxed);
            shared.1.store(1, Ordering::Relaxed);
            gbh::unlock_exclusive(&writer, global, local);
            for r in readers {
                r.join().unwrap();
            }
            assert_eq!((global.read(&writer), local.read(&writer)), (0, 0));
        });
    }

    #[test]
    fn lock_all_excludes_an_exclusive_lock_on_two_cores() {
        model(2, || {
            let shared = Arc::new((AtomicU32::new(0), AtomicU32::new(0)));
            let mut hals = LoomHal::cores(2).into_iter();
            let (a, b) = (hals.next().unwrap(), hals.next().unwrap());
            let s = shared.clone();
            let t = loom::thread::spawn(move || exclusive(&b, &s.0, &s.1));
            let (global, _) = counters(&a);
            gbh::lock_all(&a, global);
            let before = shared.1.load(Ordering::Relaxed);
            assert_eq!(shared.0.load(Ordering::Relaxed), 0, "a writer is inside");
            assert_eq!(shared.1.load(Ordering::Relaxed), before, "a writer wrote");
            gbh::unlock_all(&a, global);
            t.join().unwrap();
            assert_eq!(global.read(&a), 0);
        });
    }
}

/// The accumulate guard ([`crate::accumulate::guard`]) under every
/// interleaving: fetch_and_op's read-modify-write of a relaxed atomic is
/// atomic only if the target's TSR orders the holders, so the final value
/// and the fetched ones show any lost update.
#[cfg(test)]
mod accumulate {
    use loom::sync::atomic::AtomicU32;

    use super::*;
    use crate::RmaError;
    use crate::accumulate::AccumulateOp;
    use crate::accumulate::guard::{self, Coherent, Target};

    /// One element of target memory. The coherence actions do nothing:
    /// loom checks the guard's exclusion and ordering, not the caches.
    struct Element<'a>(&'a AtomicU32);

    impl Coherent for Element<'_> {
        fn acquire(&mut self) {}

        fn release(&mut self) {}
    }

    impl Target<u32> for Element<'_> {
        fn read(&mut self, at: u64, buf: &mut [u32]) -> Result<(), RmaError> {
            assert_eq!((at, buf.len()), (0, 1));
            buf[0] = self.0.load(Ordering::Relaxed);
            Ok(())
        }

        fn write(&mut self, at: u64, data: &[u32]) -> Result<(), RmaError> {
            assert_eq!((at, data.len()), (0, 1));
            self.0.store(data[0], Ordering::Relaxed);
            Ok(())
        }
    }

    /// `hals` each add 1 to a counter guarded by core 0's TSR; every
    /// fetched value is distinct and the count is exact.
    fn counter(hals: Vec<LoomHal>) {
        let cell = Arc::new(AtomicU32::new(0));
        let n = hals.len() as u32;
        let owner = hals[0].participant(0);
        let threads: Vec<_> = hals
            .into_iter()
            .map(|hal| {
                let cell = cell.clone();
                loom::thread::spawn(move || {
                    guard::fetch_and_op(&hal, owner, &mut Element(&cell), 0, 1, AccumulateOp::Sum)
                        .unwrap()
                })
            })
            .collect();
        let mut fetched: Vec<u32> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        fetched.sort_unstable();
        assert_eq!(fetched, (0..n).collect::<Vec<_>>(), "a value fetched twice");
        assert_eq!(cell.load(Ordering::Relaxed), n, "an update was lost");
    }

    #[test]
    fn fetch_and_op_is_atomic_on_two_cores() {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(|| counter(LoomHal::cores(2)));
    }

    #[test]
    fn fetch_and_op_is_atomic_on_three_cores() {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(2);
        model.max_branches = 100_000;
        model.check(|| counter(LoomHal::blocking_cores(3)));
    }
}

/// MCS-WP ([`crate::passive::mcs`]) under every interleaving, on core 0's
/// lock: writers exclude everyone, readers share, a writer that queued
/// or closed the reader window goes before readers that come later, and
/// no wake-up is lost (a lost one leaves its core polling for ever, which
/// loom reports as a model past its branch limit). Window data is relaxed
/// atomics, so a holder sees the previous holder's writes only if the
/// lock orders them; occupancy is sequentially consistent, so overlap is
/// seen whatever the lock orders.
#[cfg(test)]
mod mcs {
    use loom::sync::atomic::AtomicU32;

    use super::*;
    use crate::passive::mcs::{Lock, Mcs, NIL, Node, RC_INCR, WFLAG2, Word};

    /// Core `hal`'s view of the lock of core 0's part.
    fn queue(hal: &LoomHal) -> Mcs<impl Fn(u32) -> Node> {
        Mcs {
            lock: Lock::of(hal.participant(0), record(0)),
            rank: hal.core().index() as u32,
            node_of: |rank| Node::of(record(rank), 0),
        }
    }

    /// What the critical sections share.
    #[derive(Default)]
    struct Room {
        writers: AtomicU32,
        readers: AtomicU32,
        /// Entry tickets, in the order holders came in.
        order: AtomicU32,
        data: AtomicU32,
    }

    impl Room {
        /// One exclusive section: alone, and a read-modify-write that a
        /// second holder would spoil. Returns its ticket.
        fn write(&self, hal: &LoomHal) -> u32 {
            let q = queue(hal);
            q.lock_exclusive(hal);
            assert_eq!(self.writers.swap(1, Ordering::SeqCst), 0, "two writers in");
            assert_eq!(self.readers.load(Ordering::SeqCst), 0, "a reader in");
            let ticket = self.order.fetch_add(1, Ordering::SeqCst);
            let v = self.data.load(Ordering::Relaxed);
            self.data.store(v + 1, Ordering::Relaxed);
            self.writers.store(0, Ordering::SeqCst);
            q.unlock_exclusive(hal);
            ticket
        }

        /// One shared section: no writer in, and the data as a whole
        /// writer left it. Returns its ticket.
        fn read(&self, hal: &LoomHal) -> u32 {
            let q = queue(hal);
            q.lock_shared(hal);
            self.readers.fetch_add(1, Ordering::SeqCst);
            assert_eq!(self.writers.load(Ordering::SeqCst), 0, "a writer in");
            let ticket = self.order.fetch_add(1, Ordering::SeqCst);
            self.readers.fetch_sub(1, Ordering::SeqCst);
            q.unlock_shared(hal);
            ticket
        }
    }

    /// Every lock word is back to 0: the record can be reused.
    fn assert_free(hal: &LoomHal) {
        let lock = queue(hal).lock;
        for word in [
            Word::State,
            Word::ReaderHead,
            Word::WriterTail,
            Word::WriterHead,
        ] {
            assert_eq!(lock.read(hal, word), 0, "{word:?} left set");
        }
    }

    fn model(preemptions: usize, body: impl Fn() + Sync + Send + 'static) {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(preemptions);
        model.max_branches = 100_000;
        model.check(body);
    }

    /// Runs `each` on `cores` model cores sharing one room (cores that
    /// block while they wait if `blocking`, [`LoomHal::blocking_cores`]);
    /// then checks the lock is free and returns the room.
    fn run(
        cores: u32,
        blocking: bool,
        each: impl Fn(&LoomHal, &Room) + Send + Sync + 'static,
    ) -> Arc<Room> {
        let room = Arc::new(Room::default());
        let each = Arc::new(each);
        let hals = if blocking {
            LoomHal::blocking_cores(cores)
        } else {
            LoomHal::cores(cores)
        };
        let mut hals = hals.into_iter();
        let first = hals.next().unwrap();
        let threads: Vec<_> = hals
            .map(|hal| {
                let (room, each) = (room.clone(), each.clone());
                loom::thread::spawn(move || each(&hal, &room))
            })
            .collect();
        each(&first, &room);
        for t in threads {
            t.join().unwrap();
        }
        assert_free(&first);
        room
    }

    #[test]
    fn exclusive_locks_exclude_each_other_on_two_cores() {
        model(2, || {
            let room = run(2, false, |hal, room| {
                room.write(hal);
            });
            assert_eq!(room.data.load(Ordering::Relaxed), 2, "an update was lost");
        });
    }

    #[test]
    fn shared_locks_admit_two_readers_at_once() {
        // Each reader waits inside its lock for the other to be inside too:
        // a shared lock that excluded readers would never let both in.
        model(2, || {
            let inside: Arc<[AtomicU32; 2]> = Arc::new(core::array::from_fn(|_| AtomicU32::new(0)));
            run(2, false, move |hal, _| {
                let me = hal.core().index();
                let q = queue(hal);
                q.lock_shared(hal);
                inside[me].store(1, Ordering::Release);
                hal.wait_for(|| (inside[1 - me].load(Ordering::Acquire) == 1).then_some(()));
                q.unlock_shared(hal);
            });
        });
    }

    #[test]
    fn a_writer_and_a_reader_swap_roles_on_two_cores() {
        // Core 0 writes then reads, core 1 reads then writes: every
        // hand-over between the two kinds, and each node used twice.
        model(2, || {
            let room = run(2, false, |hal, room| {
                if hal.core().index() == 0 {
                    room.write(hal);
                    room.read(hal);
                } else {
                    room.read(hal);
                    room.write(hal);
                }
            });
            assert_eq!(room.data.load(Ordering::Relaxed), 2);
        });
    }

    #[test]
    fn a_writer_excludes_two_readers_on_three_cores() {
        model(1, || {
            run(3, false, |hal, room| {
                if hal.core().index() == 0 {
                    room.write(hal);
                } else {
                    room.read(hal);
                }
            });
        });
    }

    #[test]
    fn two_writers_and_a_reader_on_three_cores() {
        model(1, || {
            let room = run(3, false, |hal, room| {
                if hal.core().index() == 2 {
                    room.read(hal);
                } else {
                    room.write(hal);
                }
            });
            assert_eq!(room.data.load(Ordering::Relaxed), 2);
        });
    }

    #[test]
    fn a_queued_writer_goes_before_a_later_reader() {
        // Core 0 holds the lock exclusively; core 1 queues behind it; once
        // core 1 is linked into the queue, core 2 asks for a shared lock.
        // Core 0 lets go once core 1 is linked: core 1 must come next.
        // Cores block while they wait (waits on test flags would then
        // miss their wake-up, so every wait here is on the LSM).
        model(1, || {
            let tickets: Arc<[AtomicU32; 3]> =
                Arc::new(core::array::from_fn(|_| AtomicU32::new(u32::MAX)));
            let t = tickets.clone();
            run(3, true, move |hal, room| {
                let me = hal.core().index();
                let linked = || {
                    let node = queue(hal).node_of;
                    hal.wait_for(|| (node(0).next(hal) != NIL).then_some(()));
                };
                let ticket = match me {
                    0 => {
                        let q = queue(hal);
                        q.lock_exclusive(hal);
                        linked();
                        let ticket = room.order.fetch_add(1, Ordering::SeqCst);
                        q.unlock_exclusive(hal);
                        ticket
                    }
                    1 => {
                        // Core 0 is in the queue (its reference is 1).
                        let lock = queue(hal).lock;
                        hal.wait_for(|| (lock.read(hal, Word::WriterTail) == 1).then_some(()));
                        room.write(hal)
                    }
                    _ => {
                        linked();
                        room.read(hal)
                    }
                };
                t[me].store(ticket, Ordering::SeqCst);
            });
            let [a, b, c] = [0, 1, 2].map(|i| tickets[i].load(Ordering::SeqCst));
            assert!(
                a < b && b < c,
                "entry order {a} {b} {c}: the reader overtook"
            );
        });
    }

    #[test]
    fn a_writer_waiting_for_readers_goes_before_a_later_reader() {
        // Core 0 holds a shared lock; core 1 asks for an exclusive one and
        // closes the reader window; then core 2 asks for a shared lock.
        // Core 0 lets go once core 2 saw the window closed (so it cannot
        // miss it): core 1 must come next. Cores block while they wait.
        model(1, || {
            let seen = Arc::new(AtomicU32::new(0));
            let tickets: Arc<[AtomicU32; 3]> =
                Arc::new(core::array::from_fn(|_| AtomicU32::new(u32::MAX)));
            let t = tickets.clone();
            run(3, true, move |hal, room| {
                let me = hal.core().index();
                let closed = || {
                    let lock = queue(hal).lock;
                    hal.wait_for(|| (lock.read(hal, Word::State) & WFLAG2 != 0).then_some(()));
                };
                let ticket = match me {
                    0 => {
                        let q = queue(hal);
                        q.lock_shared(hal);
                        closed();
                        hal.wait_for(|| (seen.load(Ordering::SeqCst) == 1).then_some(()));
                        let state = q.lock.read(hal, Word::State);
                        assert_eq!(state / RC_INCR, 1, "one reader counted: {state:#x}");
                        let ticket = room.order.fetch_add(1, Ordering::SeqCst);
                        q.unlock_shared(hal);
                        ticket
                    }
                    1 => {
                        // Core 0 holds its shared lock.
                        let lock = queue(hal).lock;
                        hal.wait_for(|| (lock.read(hal, Word::State) >= RC_INCR).then_some(()));
                        room.write(hal)
                    }
                    _ => {
                        closed();
                        seen.store(1, Ordering::SeqCst);
                        room.read(hal)
                    }
                };
                t[me].store(ticket, Ordering::SeqCst);
            });
            let [a, b, c] = [0, 1, 2].map(|i| tickets[i].load(Ordering::SeqCst));
            assert!(
                a < b && b < c,
                "entry order {a} {b} {c}: the reader overtook"
            );
        });
    }
}
