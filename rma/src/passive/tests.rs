// SPDX-License-Identifier: MIT OR Apache-2.0
//! Passive-target epochs on the mock: data checked after every put and
//! get, readers sharing, and every misuse error (the exact counter under
//! exclusive locks runs on both layers, in `one_sided/tests.rs`).

use std::time::Duration;
use std::vec::Vec;

use chip::MemoryType;

use super::*;
use crate::ErrorClass;
use crate::comm::{Comm, Group};
use crate::epoch::Assert;
use crate::hal::mock::Mock;
use crate::hal::{Lsm, Topology};
use crate::window::WindowOptions;

fn rma(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

fn value(owner: u32, index: u32, round: u32) -> u32 {
    (owner << 24 | index << 4 | round).wrapping_mul(2_654_435_761)
}

const SCHEMES: [LockScheme; 3] = [LockScheme::Gbh, LockScheme::GbhBackoff, LockScheme::McsWp];

/// The word that counts `target`'s shared holders under `scheme`, and
/// what one holder adds to it.
fn reader_count(rma: &Rma<'_, Mock>, scheme: LockScheme, id: u32, target: u32) -> (u32, u32) {
    let record = rma.record(id, target);
    let word = if scheme == LockScheme::McsWp {
        mcs::Lock::of(rma.hal.participant(target), record).read(rma.hal, mcs::Word::State)
    } else {
        rma.hal.lsm_read_u32(record.controller, record.lock())
    };
    let one = if scheme == LockScheme::McsWp {
        mcs::RC_INCR
    } else {
        gbh::SHARED_ONE
    };
    (word, one)
}

#[test]
fn puts_and_gets_inside_lock_epochs_move_the_data() {
    for scheme in SCHEMES {
        for n in [1, 2, 3, 8] {
            Mock::run(n, |hal| {
                let mut rma = rma(hal);
                let me = rma.rank();
                let options = WindowOptions::new().lock_scheme(scheme);
                let win = rma.allocate::<u32>(16 * n, options).unwrap();
                for round in 0..3 {
                    for step in 0..n {
                        let target = (me + step) % n;
                        rma.lock(win, LockType::Exclusive, target, Assert::NONE)
                            .unwrap();
                        let data: Vec<u32> = (0..16).map(|i| value(me, i, round)).collect();
                        rma.put(win, target, me * 16, &data).unwrap();
                        let mut got = [0u32; 16];
                        rma.get(win, target, me * 16, &mut got).unwrap();
                        assert_eq!(got.as_slice(), data, "get after put to {target}");
                        rma.unlock(win, target).unwrap();
                    }
                    rma.comm().barrier();
                    // Every rank's slot of every target now holds its round.
                    for origin in 0..n {
                        let target = (me + origin) % n;
                        rma.lock(win, LockType::Shared, target, Assert::NONE)
                            .unwrap();
                        let mut got = [0u32; 16];
                        rma.get(win, target, origin * 16, &mut got).unwrap();
                        for (i, &v) in got.iter().enumerate() {
                            assert_eq!(v, value(origin, i as u32, round), "{origin} at {target}");
                        }
                        rma.unlock(win, target).unwrap();
                    }
                    rma.comm().barrier();
                }
                let s = rma.stats(win).unwrap();
                assert_eq!((s.locks, s.unlocks), (6 * u64::from(n), 6 * u64::from(n)));
                assert_eq!((s.puts, s.gets), (3 * u64::from(n), 6 * u64::from(n)));
                rma.free(win).unwrap();
            });
        }
    }
}

#[test]
fn shared_locks_admit_several_readers_at_once() {
    for scheme in SCHEMES {
        shared_locks_admit_several_readers_with(scheme);
    }
}

fn shared_locks_admit_several_readers_with(scheme: LockScheme) {
    let n = 6;
    Mock::run(n, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let options = WindowOptions::new().lock_scheme(scheme);
        let win = rma.allocate::<u32>(8, options).unwrap();
        if me == 0 {
            rma.lock(win, LockType::Exclusive, 0, Assert::NONE).unwrap();
            rma.put(win, 0, 0, &[7; 8]).unwrap();
            rma.unlock(win, 0).unwrap();
        }
        rma.comm().barrier();
        // Every rank holds a shared lock on rank 0 across the barrier: if
        // readers excluded each other, the barrier would never end.
        rma.lock(win, LockType::Shared, 0, Assert::NONE).unwrap();
        rma.comm().barrier();
        let (count, one) = reader_count(&rma, scheme, win.id(), 0);
        assert_eq!(
            count,
            n * one,
            "{scheme:?}: every reader counted, no writer"
        );
        let mut got = [0u32; 8];
        rma.get(win, 0, 0, &mut got).unwrap();
        assert_eq!(got, [7; 8]);
        rma.comm().barrier();
        rma.unlock(win, 0).unwrap();
        // The same with lock_all, which is shared on every rank.
        rma.lock_all(win, Assert::NONE).unwrap();
        rma.comm().barrier();
        if scheme == LockScheme::McsWp {
            let (count, one) = reader_count(&rma, scheme, win.id(), (me + 1) % n);
            assert_eq!(count, n * one, "lock_all holds every rank shared");
        }
        rma.get(win, (me + 1) % n, 0, &mut got).unwrap();
        rma.flush_all(win).unwrap();
        rma.flush_local_all(win).unwrap();
        rma.flush_local(win, 0).unwrap();
        rma.sync(win).unwrap();
        rma.comm().barrier();
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        let global = rma.record(win.id(), 0);
        assert_eq!(hal.lsm_read_u32(global.controller, global.global()), 0);
        assert_eq!(reader_count(&rma, scheme, win.id(), 0).0, 0);
        let record = rma.record(win.id(), me);
        let lock = mcs::Lock::of(hal.core(), record);
        for word in [
            mcs::Word::ReaderHead,
            mcs::Word::WriterTail,
            mcs::Word::WriterHead,
        ] {
            assert_eq!(lock.read(hal, word), mcs::NIL, "{word:?} left set");
        }
        rma.free(win).unwrap();
    });
}

#[test]
fn a_writer_waits_for_a_holder_and_backs_off() {
    for scheme in [LockScheme::GbhBackoff, LockScheme::McsWp] {
        a_writer_waits_for_a_holder_with(scheme);
    }
}

fn a_writer_waits_for_a_holder_with(scheme: LockScheme) {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let options = WindowOptions::new().lock_scheme(scheme);
        let win = rma.allocate::<u32>(1, options).unwrap();
        if me == 0 {
            rma.lock(win, LockType::Shared, 0, Assert::NONE).unwrap();
            rma.comm().barrier();
            // Rank 1 tries its exclusive lock meanwhile, and fails.
            std::thread::sleep(Duration::from_millis(50));
        } else {
            rma.comm().barrier();
            rma.lock(win, LockType::Exclusive, 0, Assert::NONE).unwrap();
            rma.put(win, 0, 0, &[5]).unwrap();
            rma.unlock(win, 0).unwrap();
            let s = rma.stats(win).unwrap();
            if scheme == LockScheme::McsWp {
                // The last reader out wakes the queued writer.
                assert!(s.polls > 0, "no node polls under a held lock: {s:?}");
                assert_eq!(s.backoffs, 0);
            } else {
                assert!(s.backoffs > 0, "no back-off under a held lock: {s:?}");
            }
            assert!(s.wait_cycles > 0);
        }
        if me == 0 {
            rma.unlock(win, 0).unwrap();
        }
        rma.comm().barrier();
        rma.free(win).unwrap();
    });
}

#[test]
fn a_get_after_a_get_drops_what_the_first_left_in_l1() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let wt = rma.allocate::<u32>(1, WindowOptions::new()).unwrap();
        let ncm = rma
            .allocate::<u32>(1, WindowOptions::new().memory_type(MemoryType::Ncm))
            .unwrap();
        let other = 1 - rma.rank();
        let mut got = [0];
        for win in [wt, ncm] {
            rma.lock_all(win, Assert::NONE).unwrap();
            let before = rma.stats(win).unwrap().invalidations;
            // The lock dropped every line: the first get needs nothing more.
            rma.get(win, other, 0, &mut got).unwrap();
            let first = rma.stats(win).unwrap().invalidations - before;
            // The polls of a flag: each later get drops the line the one
            // before left, flush or not.
            for _ in 0..3 {
                rma.get(win, other, 0, &mut got).unwrap();
                rma.flush(win, other).unwrap();
            }
            let polls = rma.stats(win).unwrap().invalidations - before - first;
            rma.unlock_all(win).unwrap();
            if win == wt {
                assert_eq!((first, polls), (0, 3));
            } else {
                // Nothing of an NCM window is ever cached.
                assert_eq!((first, polls), (0, 0));
            }
        }
        rma.comm().barrier();
        rma.free(wt).unwrap();
        rma.free(ncm).unwrap();
    });
}

#[test]
fn lock_and_unlock_do_the_coherence_actions_of_the_memory_type() {
    Mock::run(1, |hal| {
        let mut rma = rma(hal);
        let wt = rma.allocate::<u32>(1, WindowOptions::new()).unwrap();
        let ncm = rma
            .allocate::<u32>(1, WindowOptions::new().memory_type(MemoryType::Ncm))
            .unwrap();
        for win in [wt, ncm] {
            rma.lock(win, LockType::Exclusive, 0, Assert::NONE).unwrap();
            rma.put(win, 0, 0, &[1]).unwrap();
            rma.unlock(win, 0).unwrap();
        }
        let s = rma.stats(wt).unwrap();
        // Lock: flush before CL1INVMB; unlock: flush.
        assert_eq!((s.flushes, s.invalidations, s.write_backs), (2, 1, 0));
        let s = rma.stats(ncm).unwrap();
        assert_eq!((s.flushes, s.invalidations, s.write_backs), (0, 0, 0));
        assert_eq!((s.locks, s.unlocks), (1, 1));
        // NOCHECK takes no lock: the counters stay 0.
        rma.lock(wt, LockType::Exclusive, 0, Assert::NOCHECK)
            .unwrap();
        let r = rma.record(wt.id(), 0);
        assert_eq!(hal.lsm_read_u32(r.controller, r.lock()), 0);
        rma.unlock(wt, 0).unwrap();
        assert_eq!(hal.lsm_read_u32(r.controller, r.lock()), 0);
    });
}

#[test]
fn every_misuse_is_an_rma_sync_error_naming_what_was_wrong() {
    for scheme in SCHEMES {
        every_misuse_is_an_error_with(scheme);
    }
}

fn every_misuse_is_an_error_with(scheme: LockScheme) {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let options = WindowOptions::new().lock_scheme(scheme);
        let win = rma.allocate::<u32>(4, options).unwrap();
        let sync = |e: RmaError| {
            assert_eq!(e.class(), ErrorClass::RmaSync, "{e}");
            e.to_string()
        };
        assert_eq!(
            sync(rma.unlock(win, 1).unwrap_err()),
            "MPI_ERR_RMA_SYNC: unlock on window 0: rank 1 is not locked by this core \
             (no passive-target epoch is open)"
        );
        assert_eq!(
            sync(rma.flush(win, 1).unwrap_err()),
            "MPI_ERR_RMA_SYNC: flush on window 0: no passive-target epoch is open \
             (call lock or lock_all first)"
        );
        sync(rma.flush_all(win).unwrap_err());
        sync(rma.flush_local_all(win).unwrap_err());
        sync(rma.sync(win).unwrap_err());
        sync(rma.unlock_all(win).unwrap_err());

        rma.lock(win, LockType::Shared, 1, Assert::NONE).unwrap();
        assert_eq!(
            sync(
                rma.lock(win, LockType::Exclusive, 1, Assert::NONE)
                    .unwrap_err()
            ),
            "MPI_ERR_RMA_SYNC: lock on window 0: rank 1 is already locked by this core \
             (call unlock first)"
        );
        assert_eq!(
            sync(rma.put(win, 0, 0, &[1]).unwrap_err()),
            "MPI_ERR_RMA_SYNC: put on window 0: rank 0 is not locked in this \
             passive-target epoch (call lock first)"
        );
        sync(rma.get(win, 0, 0, &mut [0]).unwrap_err());
        assert_eq!(
            sync(rma.flush(win, 0).unwrap_err()),
            "MPI_ERR_RMA_SYNC: flush on window 0: rank 0 is not locked in this \
             passive-target epoch (call lock first)"
        );
        sync(rma.flush_local(win, 0).unwrap_err());
        assert_eq!(
            sync(rma.unlock(win, 0).unwrap_err()),
            "MPI_ERR_RMA_SYNC: unlock on window 0: rank 0 is not locked by this core \
             (other targets are)"
        );
        assert_eq!(
            sync(rma.fence(win, Assert::NONE).unwrap_err()),
            "MPI_ERR_RMA_SYNC: fence on window 0: a passive-target epoch is open \
             (call unlock or unlock_all first)"
        );
        let all = Group::world(2, rma.rank()).unwrap();
        sync(rma.start(win, &all, Assert::NONE).unwrap_err());
        assert_eq!(
            sync(rma.complete(win).unwrap_err()),
            "MPI_ERR_RMA_SYNC: complete on window 0: the access epoch was opened by lock \
             or lock_all, not by start"
        );
        assert_eq!(
            sync(rma.lock_all(win, Assert::NONE).unwrap_err()),
            "MPI_ERR_RMA_SYNC: lock_all on window 0: a lock epoch is open \
             (unlock every target first)"
        );
        assert_eq!(
            sync(rma.unlock_all(win).unwrap_err()),
            "MPI_ERR_RMA_SYNC: unlock_all on window 0: the epoch was opened by lock, \
             not by lock_all (call unlock per target)"
        );
        sync(rma.free(win).unwrap_err());
        // A second target joins the epoch, and both can be flushed.
        rma.lock(win, LockType::Shared, 0, Assert::NONE).unwrap();
        rma.put(win, 0, 0, &[1]).unwrap();
        rma.flush(win, 0).unwrap();
        rma.flush_all(win).unwrap();
        rma.unlock(win, 1).unwrap();
        rma.unlock(win, 0).unwrap();
        sync(rma.put(win, 0, 0, &[1]).unwrap_err());

        rma.lock_all(win, Assert::NONE).unwrap();
        assert_eq!(
            sync(
                rma.lock(win, LockType::Shared, 0, Assert::NONE)
                    .unwrap_err()
            ),
            "MPI_ERR_RMA_SYNC: lock on window 0: a lock_all epoch is open \
             (call unlock_all first)"
        );
        sync(rma.lock_all(win, Assert::NONE).unwrap_err());
        assert_eq!(
            sync(rma.unlock(win, 0).unwrap_err()),
            "MPI_ERR_RMA_SYNC: unlock on window 0: the epoch was opened by lock_all \
             (call unlock_all, not unlock)"
        );
        sync(rma.fence(win, Assert::NONE).unwrap_err());
        rma.unlock_all(win).unwrap();

        // Passive epochs are refused inside active-target ones.
        rma.fence(win, Assert::NONE).unwrap();
        rma.put(win, 1, 0, &[1]).unwrap();
        sync(
            rma.lock(win, LockType::Shared, 0, Assert::NONE)
                .unwrap_err(),
        );
        sync(rma.lock_all(win, Assert::NONE).unwrap_err());
        rma.fence(win, Assert::NONE).unwrap();
        // A fence epoch without operations may turn into a lock epoch.
        rma.lock(win, LockType::Shared, 0, Assert::NONE).unwrap();
        rma.unlock(win, 0).unwrap();
        rma.start(win, &all, Assert::NONE).unwrap();
        assert_eq!(
            sync(
                rma.lock(win, LockType::Shared, 0, Assert::NONE)
                    .unwrap_err()
            ),
            "MPI_ERR_RMA_SYNC: lock on window 0: a start access epoch is open \
             (call complete first)"
        );
        sync(rma.lock_all(win, Assert::NONE).unwrap_err());
        rma.post(win, &all, Assert::NONE).unwrap();
        rma.complete(win).unwrap();
        rma.wait(win).unwrap();

        // Arguments.
        let e = rma
            .lock(win, LockType::Shared, 0, Assert::NOPUT)
            .unwrap_err();
        assert_eq!(e.class(), ErrorClass::Assert);
        assert_eq!(
            e.to_string(),
            "MPI_ERR_ASSERT: lock does not accept MPI_MODE_NOPUT"
        );
        let e = rma
            .lock(win, LockType::Shared, 2, Assert::NONE)
            .unwrap_err();
        assert_eq!(e.class(), ErrorClass::Rank);
        assert_eq!(
            rma.lock_all(win, Assert::NOSTORE).unwrap_err().class(),
            ErrorClass::Assert
        );
        let stale = win;
        rma.comm().barrier();
        rma.free(win).unwrap();
        assert_eq!(
            rma.lock(stale, LockType::Shared, 0, Assert::NONE)
                .unwrap_err()
                .class(),
            ErrorClass::Win
        );
    });
}

#[test]
fn a_random_mix_of_shared_and_exclusive_locks_never_shows_a_torn_block() {
    // Exclusive holders write a block of equal elements (in two puts, so a
    // reader inside would see it half done); shared holders, and lock_all
    // holders on every rank, check that every element of the block is
    // equal.
    const BLOCK: usize = 32;
    for scheme in SCHEMES {
        let n = 8;
        Mock::run(n, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            let options = WindowOptions::new().lock_scheme(scheme);
            let win = rma.allocate::<u32>(BLOCK as u32, options).unwrap();
            let mut seed = 0x9E37_79B9u32 ^ me.wrapping_mul(0x85EB_CA6B);
            let mut next = move || {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                seed
            };
            for round in 0..60 {
                let target = next() % n;
                let mut got = [0u32; BLOCK];
                // lock_all with MCS-WP only: GBH's waits until no exclusive
                // locker is counted, which 7 cores retrying keep from
                // happening for seconds (best effort, as documented).
                if scheme == LockScheme::McsWp && next() % 8 == 0 {
                    rma.lock_all(win, Assert::NONE).unwrap();
                    for t in 0..n {
                        rma.get(win, t, 0, &mut got).unwrap();
                        assert!(
                            got.iter().all(|&v| v == got[0]),
                            "torn block at {t}: {got:?}"
                        );
                    }
                    rma.unlock_all(win).unwrap();
                    continue;
                }
                if next() % 2 == 0 {
                    rma.lock(win, LockType::Exclusive, target, Assert::NONE)
                        .unwrap();
                    let stamp = me << 16 | round;
                    rma.put(win, target, 0, &[stamp; BLOCK / 2]).unwrap();
                    rma.flush(win, target).unwrap();
                    rma.put(win, target, BLOCK as u32 / 2, &[stamp; BLOCK / 2])
                        .unwrap();
                    rma.get(win, target, 0, &mut got).unwrap();
                    assert_eq!(got, [stamp; BLOCK], "own write under an exclusive lock");
                } else {
                    rma.lock(win, LockType::Shared, target, Assert::NONE)
                        .unwrap();
                    rma.get(win, target, 0, &mut got).unwrap();
                    assert!(
                        got.iter().all(|&v| v == got[0]),
                        "torn block at {target}: {got:?}"
                    );
                }
                rma.unlock(win, target).unwrap();
            }
            rma.comm().barrier();
            rma.free(win).unwrap();
        });
    }
}

#[test]
fn a_window_made_with_no_locks_refuses_locks_and_leaves_its_lock_words_alone() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        // A record freed with a mark in its lock word, which the next
        // window reuses.
        let first = rma.allocate::<u32>(1, WindowOptions::new()).unwrap();
        let record = rma.record(first.id(), me);
        rma.hal
            .lsm_write_u32(record.controller, record.lock(), 0xBEEF);
        rma.free(first).unwrap();
        let options = WindowOptions::new().no_locks(true);
        let win = rma.allocate::<u32>(1, options).unwrap();
        assert!(rma.options(win).unwrap().no_locks);
        assert_eq!(rma.record(win.id(), me), record, "the record is reused");
        // Its lock word was not set up: the mark is still there.
        let before = rma.hal.lsm_read_u32(record.controller, record.lock());
        assert_eq!(before, 0xBEEF);
        for e in [
            rma.lock(win, LockType::Shared, 0, Assert::NONE)
                .unwrap_err(),
            rma.lock_all(win, Assert::NOCHECK).unwrap_err(),
        ] {
            assert_eq!(e.class(), ErrorClass::RmaSync, "{e}");
            assert!(
                e.to_string()
                    .ends_with("the window was made with no_locks, so it has no locks"),
                "{e}"
            );
        }
        assert_eq!(
            rma.hal.lsm_read_u32(record.controller, record.lock()),
            before
        );
        // Fence epochs work as ever.
        rma.fence(win, Assert::NOPRECEDE).unwrap();
        rma.put(win, 1 - me, 0, &[me + 1]).unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let mut got = [0];
        rma.local_read(win, 0, &mut got).unwrap();
        assert_eq!(got, [2 - me]);
        rma.free(win).unwrap();
    });
}

#[test]
fn lock_unlock_and_flushes_of_proc_null_do_nothing() {
    for scheme in SCHEMES {
        Mock::run(2, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            let options = WindowOptions::new().lock_scheme(scheme);
            let win = rma.allocate::<u32>(4, options).unwrap();
            rma.local_write(win, 0, &[7; 4]).unwrap();
            rma.comm().barrier();
            // Outside any epoch: lock, operations, flushes and unlock of
            // PROC_NULL all succeed and touch nothing.
            rma.lock(win, LockType::Exclusive, crate::PROC_NULL, Assert::NONE)
                .unwrap();
            rma.put(win, crate::PROC_NULL, 0, &[1; 4]).unwrap();
            let mut got = [9u32; 4];
            rma.get(win, crate::PROC_NULL, 0, &mut got).unwrap();
            assert_eq!(got, [9; 4], "a get of PROC_NULL leaves the buffer");
            rma.flush(win, crate::PROC_NULL).unwrap();
            rma.flush_local(win, crate::PROC_NULL).unwrap();
            rma.unlock(win, crate::PROC_NULL).unwrap();
            // No epoch was opened: a put to a real rank is still refused.
            let e = rma.put(win, 1 - me, 0, &[1]).unwrap_err();
            assert_eq!(e.class(), ErrorClass::RmaSync, "{e}");
            // Inside a real lock epoch, PROC_NULL's calls leave it open.
            rma.lock(win, LockType::Shared, 1 - me, Assert::NONE)
                .unwrap();
            rma.lock(win, LockType::Shared, crate::PROC_NULL, Assert::NONE)
                .unwrap();
            rma.flush(win, crate::PROC_NULL).unwrap();
            rma.unlock(win, crate::PROC_NULL).unwrap();
            rma.get(win, 1 - me, 0, &mut got).unwrap();
            assert_eq!(got, [7; 4]);
            rma.unlock(win, 1 - me).unwrap();
            // A bad assert or window is still an error.
            let e = rma
                .lock(win, LockType::Shared, crate::PROC_NULL, Assert::NOPUT)
                .unwrap_err();
            assert_eq!(e.class(), ErrorClass::Assert);
            let s = rma.stats(win).unwrap();
            assert_eq!((s.locks, s.unlocks), (1, 1));
            rma.comm().barrier();
            let stale = win;
            rma.free(win).unwrap();
            let e = rma.flush(stale, crate::PROC_NULL).unwrap_err();
            assert_eq!(e.class(), ErrorClass::Win);
            let e = rma.unlock(stale, crate::PROC_NULL).unwrap_err();
            assert_eq!(e.class(), ErrorClass::Win);
        });
    }
}

#[test]
fn request_operations_on_proc_null_need_no_epoch() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let win = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        rma.local_write(win, 0, &[5; 4]).unwrap();
        rma.lock(win, LockType::Exclusive, crate::PROC_NULL, Assert::NONE)
            .unwrap();
        let r = rma.rput(win, crate::PROC_NULL, 0, &[1; 4]).unwrap();
        rma.wait_request(win, r).unwrap();
        let mut got = [3u32; 4];
        let r = rma.rget(win, crate::PROC_NULL, 0, &mut got).unwrap();
        rma.wait_request(win, r).unwrap();
        assert_eq!(got, [3; 4]);
        rma.unlock(win, crate::PROC_NULL).unwrap();
        // A real target still needs a passive-target epoch.
        let e = rma.rput(win, 0, 0, &[1]).unwrap_err();
        assert_eq!(e.class(), ErrorClass::RmaSync);
        rma.comm().barrier();
        let mut mine = [0u32; 4];
        rma.local_read(win, 0, &mut mine).unwrap();
        assert_eq!(mine, [5; 4]);
        rma.free(win).unwrap();
    });
}
