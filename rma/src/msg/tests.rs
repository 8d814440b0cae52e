// SPDX-License-Identifier: MIT OR Apache-2.0
//! The message-based layer on the mock: the lock protocols count their
//! messages, the immediate mode's hold-and-wait deadlock is caught by the
//! stall limit, and misuse is reported. The scenarios it shares with the
//! memory-based layer (data moved in fence, PSCW and lock epochs, sums,
//! an exact counter, untorn reads) run on both, in `one_sided/tests.rs`.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::vec::Vec;

use super::wire::HEADER;
use super::*;
use crate::comm::{Comm, Group};
use crate::hal::mock::Mock;
use crate::{ErrorClass, LockType};

const MODES: [LockMode; 2] = [LockMode::Default, LockMode::Immediate];

/// The stall limit of the tests that expect a stall: the mock's clock is
/// the host's (nanoseconds), so it must be long enough that a thread a
/// busy host did not run for a while is not taken for one that stalls
/// (100 ms was not, with some fifty processes running on 2 cores).
const STALL_LIMIT: Option<u64> = Some(2_000_000_000);

fn rma(hal: &Mock, mode: LockMode) -> MsgRma<'_, Mock> {
    let comm = Comm::new(hal).expect("the SCC layout fits");
    MsgRma::new(
        comm,
        MsgOptions {
            mode,
            ..MsgOptions::default()
        },
    )
}

/// Bytes that differ with writer, owner, round and position.
fn pattern(from: u32, to: u32, round: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i as u32 ^ (from * 131 + to * 17 + round * 7919)).wrapping_mul(2_654_435_761) as u8
        })
        .collect()
}

/// A small deterministic random sequence per rank.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
}

#[test]
fn message_counts_of_the_lock_modes() {
    for mode in MODES {
        let origin_done = AtomicBool::new(false);
        Mock::run(2, |hal| {
            let mut r = rma(hal, mode);
            let win = r.create(64).unwrap();
            if r.rank() == 1 {
                // The target only serves: it polls as a computing rank would.
                while !origin_done.load(Ordering::SeqCst) {
                    r.progress().unwrap();
                }
                r.fence(win).unwrap();
                r.free(win).unwrap();
                return;
            }
            // (sent by the origin, received by it) per epoch.
            let mut epoch = |ops: usize, get_last: bool| {
                let before = r.stats(win).unwrap();
                r.lock(win, LockType::Exclusive, 1).unwrap();
                for k in 0..ops {
                    if get_last && k + 1 == ops {
                        r.get(win, 1, 0, 8).unwrap();
                    } else {
                        r.put(win, 1, 8 * k as u32, &[k as u8; 8]).unwrap();
                    }
                }
                r.unlock(win, 1).unwrap();
                let after = r.stats(win).unwrap();
                (
                    after.messages_sent - before.messages_sent,
                    after.messages_received - before.messages_received,
                )
            };
            let counts = [
                epoch(0, false),
                epoch(1, false),
                epoch(1, true),
                epoch(3, false),
                epoch(3, true),
            ];
            let expected = match mode {
                // Empty: nothing. One op: lock+op+unlock, done (or the
                // get's reply). k ops: request, ops; grant, done.
                LockMode::Default => [(0, 0), (1, 1), (1, 1), (4, 2), (4, 2)],
                // Request and unlock; grant. Request, ops; grant, done.
                LockMode::Immediate => [(2, 1), (2, 2), (2, 2), (4, 2), (4, 2)],
            };
            assert_eq!(counts, expected, "{mode:?}");
            let stats = r.stats(win).unwrap();
            assert_eq!(stats.messages_to_self, 0);
            assert!(stats.bytes_sent >= stats.messages_sent * HEADER as u64);
            origin_done.store(true, Ordering::SeqCst);
            r.fence(win).unwrap();
            r.free(win).unwrap();
        });
    }
}

#[test]
fn random_lock_mix_with_accumulates_completes_in_both_modes() {
    const ROUNDS: u32 = 150;
    for mode in MODES {
        let added: Vec<AtomicU64> = (0..8).map(|_| AtomicU64::new(0)).collect();
        Mock::run(8, |hal| {
            let mut r = rma(hal, mode);
            let (me, n) = (r.rank(), r.size());
            let win = r.create(8).unwrap();
            let mut random = Lcg(u64::from(me) * 77 + 1);
            let before = r.stats(win).unwrap();
            let (mut empty, mut to_self) = (0, 0);
            for _ in 0..ROUNDS {
                let target = random.next() % n;
                to_self += u32::from(target == me);
                let ty = if random.next().is_multiple_of(2) {
                    LockType::Shared
                } else {
                    LockType::Exclusive
                };
                r.lock(win, ty, target).unwrap();
                if random.next().is_multiple_of(2) {
                    r.accumulate(win, target, 0, &[u64::from(me) + 1]).unwrap();
                    added[target as usize].fetch_add(u64::from(me) + 1, Ordering::SeqCst);
                } else {
                    empty += 1;
                }
                r.unlock(win, target).unwrap();
            }
            let after = r.stats(win).unwrap();
            // Messages this rank sent as an origin (not its answers as a target).
            let sent = |s: MsgStats| s.messages_sent + s.messages_to_self - s.replies_sent;
            let expected = match mode {
                // One merged message per epoch with an op, none otherwise.
                LockMode::Default => ROUNDS - empty,
                // Request (none to self: a local queue entry) and unlock or op.
                LockMode::Immediate => 2 * ROUNDS - to_self,
            };
            assert_eq!(sent(after) - sent(before), u64::from(expected), "{mode:?}");
            r.fence(win).unwrap();
            let value = u64::from_le_bytes(r.local(win).unwrap().try_into().unwrap());
            // Everyone's accumulates to us preceded their FenceDone.
            assert_eq!(value, added[me as usize].load(Ordering::SeqCst), "{mode:?}");
            r.free(win).unwrap();
        });
    }
}

#[test]
fn immediate_mode_deadlocks_on_crossed_locks() {
    // Each rank locks itself, then the other, and unlocks the other
    // first: in the immediate mode each holds its own lock while it waits
    // for the other's. The default mode takes locks only inside unlock.
    for mode in MODES {
        let ready = AtomicU32::new(0);
        let results = Mock::run(2, |hal| {
            let comm = Comm::new(hal).unwrap();
            let mut r = MsgRma::new(
                comm,
                MsgOptions {
                    mode,
                    stall_limit: STALL_LIMIT,
                    ..MsgOptions::default()
                },
            );
            let (me, other) = (r.rank(), 1 - r.rank());
            let win = r.create(16).unwrap();
            r.lock(win, LockType::Exclusive, me).unwrap();
            // Both own locks are taken (immediate mode) before either
            // request for the other's can arrive.
            ready.fetch_add(1, Ordering::SeqCst);
            while ready.load(Ordering::SeqCst) < 2 {
                std::thread::yield_now();
            }
            r.lock(win, LockType::Exclusive, other).unwrap();
            r.put(win, other, 8 * me, &pattern(me, other, 0, 8))
                .unwrap();
            r.put(win, me, 8 * me, &pattern(me, me, 0, 8)).unwrap();
            let result = r.unlock(win, other).and_then(|()| r.unlock(win, me));
            if result.is_ok() {
                r.fence(win).unwrap();
                let theirs = (8 * other) as usize;
                assert!(r.local(win).unwrap()[theirs..theirs + 8] == pattern(other, me, 0, 8));
                r.free(win).unwrap();
            }
            result
        });
        match mode {
            LockMode::Default => assert_eq!(results, [Ok(()), Ok(())]),
            LockMode::Immediate => {
                for result in results {
                    let e = result.unwrap_err();
                    assert_eq!(e.class(), ErrorClass::RmaSync);
                    assert!(matches!(e, RmaError::Sync { call: "unlock", .. }), "{e:?}");
                }
            }
        }
    }
}

#[test]
fn epoch_misuse_is_reported_not_panicked() {
    Mock::run(2, |hal| {
        let mut r = rma(hal, LockMode::Immediate);
        let me = r.rank();
        let win = r.create(16).unwrap();
        let class = |e: RmaError| e.class();
        assert_eq!(
            r.put(win, 1, 0, &[1]).map_err(class),
            Err(ErrorClass::RmaSync)
        );
        assert_eq!(r.unlock(win, 1).map_err(class), Err(ErrorClass::RmaSync));
        assert_eq!(r.flush(win, 1).map_err(class), Err(ErrorClass::RmaSync));
        assert_eq!(r.complete(win).map_err(class), Err(ErrorClass::RmaSync));
        assert_eq!(r.wait(win).map_err(class), Err(ErrorClass::RmaSync));
        assert_eq!(
            r.lock(win, LockType::Shared, 2).map_err(class),
            Err(ErrorClass::Rank)
        );
        let nobody = MsgWindow(99);
        assert_eq!(r.fence(nobody).map_err(class), Err(ErrorClass::Win));

        let only_me = Group::world(2, me).unwrap().incl(&[me]).unwrap();
        r.start(win, &only_me).unwrap();
        assert!(matches!(
            r.put(win, 1 - me, 0, &[1]),
            Err(RmaError::NotInGroup { rank, .. }) if rank == 1 - me
        ));
        assert_eq!(
            r.start(win, &only_me).map_err(class),
            Err(ErrorClass::RmaSync)
        );
        assert_eq!(r.fence(win).map_err(class), Err(ErrorClass::RmaSync));
        assert_eq!(r.free(win).map_err(class), Err(ErrorClass::RmaSync));
        r.post(win, &only_me).unwrap();
        r.put(win, me, 0, &[7; 16]).unwrap();
        assert!(matches!(
            r.put(win, me, 1, &[7; 16]),
            Err(RmaError::Range {
                offset: 1,
                len: 16,
                size: 16,
                ..
            })
        ));
        r.complete(win).unwrap();
        r.wait(win).unwrap();
        assert_eq!(r.local(win).unwrap(), &[7; 16]);

        r.lock(win, LockType::Exclusive, me).unwrap();
        assert_eq!(
            r.lock(win, LockType::Shared, me).map_err(class),
            Err(ErrorClass::RmaSync)
        );
        let got = r.get(win, me, 0, 4).unwrap();
        assert_eq!(r.take(got).map_err(class), Err(ErrorClass::RmaSync));
        r.unlock(win, me).unwrap();
        assert_eq!(r.take(got), Ok(std::vec![7; 4]));
        assert_eq!(r.take(got).map_err(class), Err(ErrorClass::RmaSync));
        let message = std::format!("{}", r.unlock(win, me).unwrap_err());
        assert!(
            message.contains("unlock") && message.contains("window 0"),
            "{message}"
        );
        r.free(win).unwrap();
    });
}

#[test]
fn a_passive_target_that_does_not_poll_stalls_its_origins() {
    for mode in MODES {
        let stalled = AtomicBool::new(false);
        Mock::run(2, |hal| {
            let comm = Comm::new(hal).unwrap();
            let mut r = MsgRma::new(
                comm,
                MsgOptions {
                    mode,
                    stall_limit: STALL_LIMIT,
                    ..MsgOptions::default()
                },
            );
            let win = r.create(8).unwrap();
            if r.rank() == 1 {
                // Computing, not calling into the layer: nothing is served.
                while !stalled.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                r.fence(win).unwrap();
                assert_eq!(r.local(win).unwrap(), &[5; 8], "{mode:?}");
            } else {
                r.lock(win, LockType::Exclusive, 1).unwrap();
                r.put(win, 1, 0, &[5; 8]).unwrap();
                let e = r.unlock(win, 1).unwrap_err();
                assert!(matches!(e, RmaError::Sync { call: "unlock", .. }), "{e:?}");
                stalled.store(true, Ordering::SeqCst);
                // The target now serves (in its fence): the retry completes.
                r.unlock(win, 1).unwrap();
                r.fence(win).unwrap();
            }
            r.free(win).unwrap();
        });
    }
}

#[test]
fn sends_without_receive_progress_deadlock_already_at_window_creation() {
    // Creation sends a message to every other rank back to back: with a
    // send that waits for its buffer without taking arrivals, the second
    // send of every rank waits for a rank that waits in its own second
    // send. Two ranks send one message each and get through, locks too.
    for n in [2, 3, 4] {
        let results = Mock::run(n, |hal| {
            let comm = Comm::new(hal).unwrap();
            let mut r = MsgRma::new(
                comm,
                MsgOptions {
                    mode: LockMode::Immediate,
                    stall_limit: STALL_LIMIT,
                    blocking_sends: true,
                },
            );
            let (me, other) = (r.rank(), (r.rank() + 1) % n);
            let win = r.create(8)?;
            r.lock(win, LockType::Exclusive, other)?;
            r.put(win, other, 0, &[me as u8 + 1; 8])?;
            r.unlock(win, other)?;
            r.fence(win)?;
            assert_eq!(r.local(win)?, &[other as u8 + 1; 8]);
            r.free(win)
        });
        for result in results {
            if n == 2 {
                assert_eq!(result, Ok(()));
            } else {
                assert!(
                    matches!(result, Err(RmaError::Sync { call: "send", .. })),
                    "{n} ranks: {result:?}"
                );
            }
        }
    }
}
