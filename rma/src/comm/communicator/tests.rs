// SPDX-License-Identifier: MIT OR Apache-2.0
//! Communicators made from communicators, on the mock: who ends up where,
//! collectives and messages on several at once, and every misuse.

use std::sync::atomic::{AtomicU32, Ordering};
use std::vec::Vec;

use super::super::{BarrierAlgorithm, Comm, ReduceOp};
use super::{MAX_CONTEXT, UNDEFINED};
use crate::hal::Topology;
use crate::hal::mock::Mock;
use crate::{ErrorClass, RmaError};

fn world(hal: &Mock) -> Comm<'_, Mock> {
    Comm::new(hal).expect("the SCC layout fits")
}

/// Bytes that differ with sender, receiver, a tag and position.
fn payload(from: u32, to: u32, tag: u32, len: usize) -> Vec<u8> {
    (0..len as u32)
        .map(|i| {
            (i ^ from.wrapping_mul(0x9E37_79B9) ^ (to << 8) ^ (tag << 16))
                .wrapping_mul(2_654_435_761) as u8
        })
        .collect()
}

#[test]
fn split_makes_rows_and_columns_ordered_by_key_then_rank() {
    // 12 ranks as 3 rows of 4; rank 11 joins no row.
    Mock::run(12, |hal| {
        let mut w = world(hal);
        let me = w.rank();
        let (row, col) = (me / 4, me % 4);
        let color = if me == 11 { UNDEFINED } else { Some(row) };
        let rows = w.split(color, col as i32).unwrap();
        // Columns ordered by descending row: key decides before the rank.
        let cols = w.split(Some(col), -(row as i32)).unwrap().unwrap();

        match rows {
            None => assert_eq!(me, 11),
            Some(r) => {
                let expected: Vec<u32> = (row * 4..row * 4 + 4).filter(|&m| m != 11).collect();
                assert_eq!(r.members(), expected);
                assert_eq!((r.rank(), r.size()), (col, expected.len() as u32));
                assert_eq!(r.group().members(), expected);
                assert_eq!(r.group().rank(), Some(col));
                assert_eq!(r.world_rank(r.rank()), Ok(me));
                assert_eq!(r.core(r.rank()), Ok(hal.participant(me)));
                assert!(!r.is_world());
            }
        }
        let expected = [8 + col, 4 + col, col];
        assert_eq!(cols.members(), expected);
        assert_eq!(cols.rank(), 2 - row);
        assert_eq!(cols.size(), 3);
        // Both splits made one context each, shared by their disjoint parts.
        assert_eq!(cols.context(), 2);
        // Equal keys keep the parent's order.
        let same = w.split(Some(0), 0).unwrap().unwrap();
        assert_eq!(same.members(), (0..12).collect::<Vec<_>>());
        assert_eq!(same.rank(), me);
    });
}

#[test]
fn collectives_on_disjoint_communicators_run_at_once_and_stay_apart() {
    for n in [2, 5, 8, 48] {
        Mock::run(n, |hal| {
            let mut w = world(hal);
            let me = w.rank();
            // Three interleaved parts: rank r is in part r % 3.
            let mut part = w.split(Some(me % 3), 0).unwrap().unwrap();
            let members: Vec<u32> = (0..n).filter(|r| r % 3 == me % 3).collect();
            assert_eq!(part.members(), members);
            for round in 0..20u32 {
                let root = round % part.size();
                let mut buf = if part.rank() == root {
                    payload(
                        members[root as usize],
                        me % 3,
                        round,
                        100 + round as usize * 300,
                    )
                } else {
                    std::vec![0; 100 + round as usize * 300]
                };
                part.bcast(root, &mut buf).unwrap();
                assert!(buf == payload(members[root as usize], me % 3, round, buf.len()));

                let mut sum = [me as u64 + u64::from(round), 1];
                part.allreduce(&mut sum, ReduceOp::Sum).unwrap();
                let expected: u64 = members.iter().map(|&m| u64::from(m + round)).sum();
                assert_eq!(sum, [expected, members.len() as u64]);

                let mut all = std::vec![0; 8 * members.len()];
                part.allgather(&payload(me, 0, round, 8), &mut all).unwrap();
                for (k, &m) in members.iter().enumerate() {
                    assert_eq!(all[8 * k..8 * k + 8], payload(m, 0, round, 8));
                }
                let algorithm = if round % 2 == 0 {
                    BarrierAlgorithm::Central
                } else {
                    BarrierAlgorithm::Dissemination
                };
                part.barrier_with(algorithm);
                // The parent's collectives go on between the parts'.
                let mut max = [me];
                w.allreduce(&mut max, ReduceOp::Max).unwrap();
                assert_eq!(max, [n - 1]);
            }
            assert_eq!(part.stats().barriers, 20);
        });
    }
}

#[test]
fn barriers_on_a_communicator_hold_its_ranks_only() {
    let n = 9;
    let entered: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    Mock::run(n, |hal| {
        let mut w = world(hal);
        let me = w.rank();
        // Ranks 0..6 in one communicator; 6..9 never take part.
        let Some(mut c) = w.split((me < 6).then_some(0), 0).unwrap() else {
            return;
        };
        for episode in 1..=200u32 {
            entered[me as usize].store(episode, Ordering::SeqCst);
            let algorithm = if episode % 3 == 0 {
                BarrierAlgorithm::Central
            } else {
                BarrierAlgorithm::Dissemination
            };
            c.barrier_with(algorithm);
            for (rank, e) in entered.iter().enumerate().take(6) {
                let e = e.load(Ordering::SeqCst);
                assert!(
                    e == episode || e == episode + 1,
                    "rank {me} left barrier {episode} while rank {rank} was at {e}"
                );
            }
        }
    });
    assert!(entered[6..].iter().all(|e| e.load(Ordering::SeqCst) == 0));
}

#[test]
fn messages_of_communicators_that_share_ranks_never_mix() {
    Mock::run(3, |hal| {
        let mut w = world(hal);
        let me = w.rank();
        let mut a = w.dup().unwrap();
        let mut b = w.split(Some(0), -(me as i32)).unwrap().unwrap();
        assert_ne!(a.context(), b.context());
        assert_eq!(b.rank(), 2 - me);
        // Long messages (several chunks) and short ones, sent in one order
        // and received in the opposite one.
        let long = 3 * w.layout().data_bytes as usize + 5;
        if me == 0 {
            w.send(1, &payload(0, 1, 1, long)).unwrap();
            a.send(1, &payload(0, 1, 2, 10)).unwrap();
            b.send(1, &payload(0, 1, 3, long)).unwrap(); // b's rank 1 is world 1
            a.send(1, &payload(0, 1, 4, 0)).unwrap();
            w.send(0, &payload(0, 0, 5, 7)).unwrap();
            a.send(0, &payload(0, 0, 6, 9)).unwrap();
            let mut buf = [0; 9];
            assert_eq!(a.recv(0, &mut buf), Ok(9));
            assert_eq!(buf[..], payload(0, 0, 6, 9));
            let mut buf = [0; 7];
            assert_eq!(w.recv(0, &mut buf), Ok(7));
            assert_eq!(buf[..], payload(0, 0, 5, 7));
        } else if me == 1 {
            let mut buf = std::vec![0; long];
            assert_eq!(b.recv(2, &mut buf), Ok(long)); // b's rank 2 is world 0
            assert!(buf == payload(0, 1, 3, long));
            let mut buf = [0; 10];
            assert_eq!(a.recv(0, &mut buf), Ok(10));
            assert_eq!(buf[..], payload(0, 1, 2, 10));
            // try_recv_any of a communicator returns its messages only.
            let got = loop {
                if let Some(m) = a.try_recv_any() {
                    break m;
                }
            };
            assert_eq!(got, (0, Ok(std::vec![])));
            assert_eq!(b.try_recv_any(), None);
            let mut buf = std::vec![0; long];
            assert_eq!(w.recv(0, &mut buf), Ok(long));
            assert!(buf == payload(0, 1, 1, long));
            assert_eq!(w.try_recv_any(), None);
        }
        w.barrier();
        // Sources are named by rank in the communicator that received.
        if me == 2 {
            b.send(1, &[42]).unwrap(); // b's rank 1 is world 1
        } else if me == 1 {
            let got = loop {
                if let Some(m) = b.try_recv_any() {
                    break m;
                }
            };
            assert_eq!(got, (0, Ok(std::vec![42])), "world 2 is rank 0 of b");
        }
    });
}

#[test]
fn a_collective_never_takes_a_message_the_program_sent() {
    Mock::run(4, |hal| {
        let mut w = world(hal);
        let me = w.rank();
        let mut c = w.split(Some(me % 2), 0).unwrap().unwrap();
        let other = 1 - c.rank();
        // Each sends to its partner, then runs collectives, then receives.
        c.send(other, &payload(me, other, 7, 40)).unwrap();
        c.barrier();
        c.barrier_with(BarrierAlgorithm::Central);
        let mut v = if c.rank() == 0 { [9, 8, 7] } else { [0; 3] };
        c.bcast(0, &mut v).unwrap();
        assert_eq!(v, [9, 8, 7]);
        let mut buf = [0; 40];
        assert_eq!(c.recv(other, &mut buf), Ok(40));
        let from = c.world_rank(other).unwrap();
        assert_eq!(buf[..], payload(from, other, 7, 40)[..]);
        // And the world's collectives do not take it either.
        c.send(other, &[1, 2, 3]).unwrap();
        w.barrier();
        let mut buf = [0; 3];
        assert_eq!(c.recv(other, &mut buf), Ok(3));
        assert_eq!(buf, [1, 2, 3]);
    });
}

#[test]
fn a_barrier_after_a_send_to_another_member_does_not_deadlock() {
    for n in [4, 7] {
        Mock::run(n, |hal| {
            let mut w = world(hal);
            let mut c = w.dup().unwrap();
            let (me, size) = (c.rank(), c.size());
            // Each sends to the rank two ahead, which is no partner of the
            // first dissemination round, then waits in barriers before
            // anyone receives.
            let to = (me + 2) % size;
            c.send(to, &payload(me, to, 0, 100)).unwrap();
            c.barrier();
            c.barrier_with(BarrierAlgorithm::Central);
            let mut v = [1u64];
            c.allreduce(&mut v, ReduceOp::Sum).unwrap();
            assert_eq!(v, [u64::from(size)]);
            let from = (me + size - 2) % size;
            let mut buf = [0; 100];
            assert_eq!(c.recv(from, &mut buf), Ok(100));
            assert_eq!(buf[..], payload(from, me, 0, 100)[..]);
        });
    }
}

#[test]
fn create_makes_a_communicator_of_a_group_in_its_order() {
    Mock::run(6, |hal| {
        let mut w = world(hal);
        let me = w.rank();
        let group = w.group().incl(&[4, 1, 3]).unwrap();
        let c = w.create(&group).unwrap();
        match (me, c) {
            (4 | 1 | 3, Some(mut c)) => {
                assert_eq!(c.members(), [4, 1, 3]);
                assert_eq!(Some(c.rank()), group.rank());
                let mut sum = [me];
                c.allreduce(&mut sum, ReduceOp::Sum).unwrap();
                assert_eq!(sum, [8]);
                // A communicator of a communicator: its group is drawn
                // from the run, so ranks translate to the parent's.
                let sub = c.group().excl(&[0]).unwrap();
                assert_eq!(sub.members(), [1, 3]);
                assert_eq!(
                    sub.translate_ranks(&[0, 1], &c.group()).unwrap(),
                    [Some(1), Some(2)]
                );
                let inner = c.create(&sub).unwrap();
                assert_eq!(inner.is_some(), me != 4);
                if let Some(mut inner) = inner {
                    assert_eq!(inner.size(), 2);
                    assert!(inner.context() > c.context());
                    inner.barrier();
                    inner.free();
                }
                c.free();
            }
            (0 | 2 | 5, None) => {}
            (me, c) => panic!("rank {me} got {:?}", c.map(|c| c.members().to_vec())),
        }
        // An empty group makes no communicator anywhere.
        let empty = w.group().excl(&(0..6).collect::<Vec<_>>()).unwrap();
        assert!(w.create(&empty).unwrap().is_none());
        w.barrier();
    });
}

#[test]
fn dup_has_the_same_ranks_and_a_context_of_its_own() {
    Mock::run(4, |hal| {
        let mut w = world(hal);
        let mut half = w.split(Some(w.rank() / 2), 0).unwrap().unwrap();
        let mut d = half.dup().unwrap();
        assert_eq!(d.members(), half.members());
        assert_eq!(d.rank(), half.rank());
        assert_eq!(d.context(), half.context() + 1);
        let other = 1 - d.rank();
        d.send(other, &[d.rank() as u8 + 10]).unwrap();
        // The data buffer holds d's message until the partner takes it:
        // a progressing send takes the partner's into the inbox meanwhile.
        half.send_progressing(other, &[half.rank() as u8 + 20])
            .unwrap();
        let mut b = [0];
        assert_eq!(half.recv(other, &mut b), Ok(1));
        assert_eq!(b, [other as u8 + 20]);
        assert_eq!(d.recv(other, &mut b), Ok(1));
        assert_eq!(b, [other as u8 + 10]);
        d.free();
        half.free();
        // Contexts are never reused: a new communicator after frees
        // gets the next one, and so does one made by a new Comm::new.
        let next = w.dup().unwrap();
        assert_eq!(next.context(), 3);
        drop((next, w));
        let mut again = world(hal);
        assert_eq!(again.dup().unwrap().context(), 4);
    });
}

#[test]
fn contexts_of_communicators_that_share_a_core_differ() {
    Mock::run(6, |hal| {
        let mut w = world(hal);
        let me = w.rank();
        // Disjoint parts of one split share a context...
        let lo = w.split(Some(me / 3), 0).unwrap().unwrap();
        let mut all = [0u8; 24];
        w.allgather(&lo.context().to_le_bytes(), &mut all).unwrap();
        assert!(all.chunks_exact(4).all(|c| c == lo.context().to_le_bytes()));
        // ...a later one on part of the cores takes a higher one, and a
        // split of the whole then skips past it on every rank.
        let mut lo = lo;
        let pair = lo.split((lo.rank() < 2).then_some(0), 0).unwrap();
        if let Some(p) = &pair {
            assert_eq!(p.context(), lo.context() + 1);
        }
        let cross = w.split(Some(me % 3), 0).unwrap().unwrap();
        assert_eq!(cross.context(), lo.context() + 2);
    });
}

#[test]
fn bad_groups_are_refused_on_every_rank_and_nothing_is_made() {
    Mock::run(4, |hal| {
        let mut w = world(hal);
        let me = w.rank();
        let mut half = w.split(Some(me / 2), 0).unwrap().unwrap();
        let pair_base = (me / 2) * 2;

        // A group naming a process outside the parent.
        let outside = w.group().incl(&[pair_base, (pair_base + 2) % 4]).unwrap();
        let e = half.create(&outside).unwrap_err();
        assert_eq!(
            e,
            RmaError::NotMember {
                call: "comm_create",
                of: "the parent communicator",
                process: (pair_base + 2) % 4
            }
        );
        assert_eq!(e.class(), ErrorClass::Group);
        assert_eq!(
            std::string::ToString::to_string(&e),
            std::format!(
                "MPI_ERR_GROUP: comm_create: process {} of the run is not a member of the parent communicator",
                (pair_base + 2) % 4
            )
        );

        // A group of a run of another size, on one rank only: it gets
        // GroupMismatch, the others PeerFailed naming it.
        let group = if me == 3 {
            crate::comm::Group::world(8, 3).unwrap()
        } else {
            w.group()
        };
        match (me, w.create(&group)) {
            (3, Err(e)) => assert_eq!(
                e,
                RmaError::GroupMismatch {
                    first: 8,
                    second: 4
                }
            ),
            (_, Err(e)) => assert_eq!(
                e,
                RmaError::PeerFailed {
                    call: "comm_create",
                    rank: 3
                }
            ),
            (me, Ok(_)) => panic!("rank {me} made a communicator"),
        }

        // Ranks that pass different (valid) groups.
        let group = w
            .group()
            .incl(if me == 2 { &[0, 2] } else { &[0, 1] })
            .unwrap();
        assert_eq!(
            w.create(&group).unwrap_err(),
            RmaError::DifferentGroups {
                call: "comm_create",
                rank: 2
            }
        );
        // The same members in another order, and a group of another size:
        // compared exactly, not by a digest.
        let group = w
            .group()
            .incl(if me == 1 { &[1, 0] } else { &[0, 1] })
            .unwrap();
        assert_eq!(
            w.create(&group).unwrap_err(),
            RmaError::DifferentGroups {
                call: "comm_create",
                rank: 1
            }
        );
        let group = w
            .group()
            .incl(if me == 3 { &[0, 1, 3] } else { &[0, 1] })
            .unwrap();
        assert_eq!(
            w.create(&group).unwrap_err(),
            RmaError::DifferentGroups {
                call: "comm_create",
                rank: 3
            }
        );

        // Ranks out of range of the communicator, not of the run.
        assert_eq!(
            half.send(2, &[1]).unwrap_err(),
            RmaError::Rank {
                role: "send destination",
                rank: 2,
                size: 2
            }
        );
        assert_eq!(half.recv(3, &mut []).unwrap_err().class(), ErrorClass::Rank);
        assert_eq!(
            half.bcast(2, &mut [0]).unwrap_err(),
            RmaError::Root { root: 2, size: 2 }
        );
        assert_eq!(
            half.world_rank(2).unwrap_err(),
            RmaError::Rank {
                role: "communicator rank",
                rank: 2,
                size: 2
            }
        );
        assert_eq!(half.core(5).unwrap_err().class(), ErrorClass::Rank);

        // After all that, both still work, and nothing half-made lingers.
        let mut v = [me];
        half.allreduce(&mut v, ReduceOp::Sum).unwrap();
        assert_eq!(v, [pair_base * 2 + 1]);
        let ok = w.create(&w.group()).unwrap().unwrap();
        assert_eq!(ok.members(), [0, 1, 2, 3]);
    });
}

#[test]
fn running_out_of_contexts_is_refused_on_every_rank() {
    Mock::run(3, |hal| {
        let mut w = world(hal);
        // One rank has taken part in the last context there is.
        if w.rank() == 1 {
            let layout = w.layout;
            w.channel
                .borrow_mut()
                .set_last_context(hal, layout, MAX_CONTEXT);
        }
        w.barrier();
        let e = w.split(Some(0), 0).unwrap_err();
        assert_eq!(e, RmaError::NoContext { call: "comm_split" });
        assert_eq!(e.class(), ErrorClass::Intern);
        assert_eq!(
            w.dup().unwrap_err(),
            RmaError::NoContext { call: "comm_dup" }
        );
        assert_eq!(
            w.create(&w.group()).unwrap_err(),
            RmaError::NoContext {
                call: "comm_create"
            }
        );
        // The channel itself is unharmed.
        let mut v = [1u32];
        w.allreduce(&mut v, ReduceOp::Sum).unwrap();
        assert_eq!(v, [3]);
    });
}
