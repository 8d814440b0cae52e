// SPDX-License-Identifier: MIT OR Apache-2.0
//! The channel and every collective on the mock, on 1, 2, 3, 8 and 48
//! cores, with every byte checked.

use std::sync::atomic::{AtomicU32, Ordering};
use std::vec::Vec;

use super::*;
use crate::ErrorClass;
use crate::hal::Wait;
use crate::hal::mock::Mock;

const CORES: [u32; 5] = [1, 2, 3, 8, 48];
/// Around the chunk size, a whole MPB half, and many chunks.
const SIZES: [usize; 8] = [0, 1, 31, 32, 33, 6 * 1024 + 1, 8 * 1024, 100 * 1024];

/// Bytes that differ with sender, receiver, size and position.
fn payload(from: u32, to: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32 ^ (from * 131 + to * 17 + len as u32)).wrapping_mul(2_654_435_761) as u8)
        .map(|b| b ^ (i_hash(from, to) as u8))
        .collect()
}

fn i_hash(from: u32, to: u32) -> u32 {
    from.wrapping_mul(0x9E37_79B9) ^ to
}

fn comm(hal: &Mock) -> Comm<'_, Mock> {
    Comm::new(hal).expect("the SCC layout fits")
}

#[test]
fn messages_of_every_size_arrive_intact_from_and_to_rank_0() {
    for n in CORES {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            let me = c.rank();
            for len in SIZES {
                if me == 0 {
                    for peer in 0..n {
                        c.send(peer, &payload(0, peer, len)).unwrap();
                    }
                }
                let mut buf = std::vec![0xAA; len];
                assert_eq!(c.recv(0, &mut buf), Ok(len));
                assert!(
                    buf == payload(0, me, len),
                    "{n} cores: {len} bytes 0 -> {me}"
                );
                c.send(0, &payload(me, 0, len)).unwrap();
                if me == 0 {
                    for peer in 0..n {
                        let mut buf = std::vec![0x55; len + 3];
                        assert_eq!(c.recv(peer, &mut buf), Ok(len));
                        assert!(
                            buf[..len] == payload(peer, 0, len),
                            "{len} bytes {peer} -> 0"
                        );
                        assert_eq!(buf[len..], [0x55; 3], "bytes past the message untouched");
                    }
                }
            }
        });
    }
}

#[test]
fn ping_pong_between_the_farthest_ranks() {
    for n in CORES {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            let (me, other) = (c.rank(), n - 1 - c.rank());
            if me != 0 && me != n - 1 {
                return;
            }
            for round in 0..100u32 {
                let len = (round as usize * 97) % 9000;
                let mut buf = std::vec![0; len];
                if n == 1 {
                    // Ping-pong with oneself: the message comes straight back.
                    c.send(me, &payload(round, me, len)).unwrap();
                    c.recv(me, &mut buf).unwrap();
                    assert!(buf == payload(round, me, len), "round {round}");
                } else if me == 0 {
                    c.send(other, &payload(round, me, len)).unwrap();
                    c.recv(other, &mut buf).unwrap();
                    assert!(buf == payload(round + 1, other, len), "round {round}");
                } else {
                    c.recv(other, &mut buf).unwrap();
                    assert!(buf == payload(round, other, len), "round {round}");
                    c.send(other, &payload(round + 1, me, len)).unwrap();
                }
            }
        });
    }
}

#[test]
fn all_to_all_and_ring_exchanges_of_large_messages_do_not_deadlock() {
    for n in CORES {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            let me = c.rank();
            // Pairwise all-to-all: in step s, send to me + s, receive from me - s.
            for len in [0, 33, 20 * 1024] {
                for step in 0..n {
                    let (to, from) = ((me + step) % n, (me + n - step) % n);
                    let mut buf = std::vec![0; len];
                    assert_eq!(
                        c.sendrecv(to, &payload(me, to, len), from, &mut buf),
                        Ok(len)
                    );
                    assert!(buf == payload(from, me, len), "{len} bytes {from} -> {me}");
                }
            }
            // Everyone sends right first, then receives from the left:
            // messages within one data buffer do not wait for the receiver.
            let len = c.layout().data_bytes as usize;
            let (right, left) = ((me + 1) % n, (me + n - 1) % n);
            c.send(right, &payload(me, right, len)).unwrap();
            let mut buf = std::vec![0; len];
            c.recv(left, &mut buf).unwrap();
            assert!(buf == payload(left, me, len));
        });
    }
}

#[test]
fn a_thousand_barriers_alternating_algorithms_hold_everyone() {
    for n in CORES {
        let entered: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        let stats = Mock::run(n, |hal| {
            let mut c = comm(hal);
            let me = c.rank() as usize;
            for episode in 1..=1000u32 {
                entered[me].store(episode, Ordering::SeqCst);
                let algorithm = if episode % 3 == 0 {
                    BarrierAlgorithm::Central
                } else {
                    BarrierAlgorithm::Dissemination
                };
                c.barrier_with(algorithm);
                for (rank, e) in entered.iter().enumerate() {
                    let e = e.load(Ordering::SeqCst);
                    assert!(
                        e == episode || e == episode + 1,
                        "{n} cores: rank {me} left barrier {episode} ({algorithm:?}) while rank {rank} was at {e}"
                    );
                }
            }
            c.stats()
        });
        assert!(stats.iter().all(|s| s.barriers == 1000));
    }
}

#[test]
fn bcast_from_every_root() {
    for n in CORES {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            for root in [0, n / 2, n - 1] {
                for len in [0, 5, 10 * 1024] {
                    let mut buf = if c.rank() == root {
                        payload(root, 0, len)
                    } else {
                        std::vec![0; len]
                    };
                    c.bcast(root, &mut buf).unwrap();
                    assert!(
                        buf == payload(root, 0, len),
                        "{n} cores: root {root}, {len} bytes"
                    );
                }
            }
        });
    }
}

#[test]
fn allgather_puts_every_block_in_rank_order() {
    for n in CORES {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            for len in [0, 1, 33, 7000] {
                let mut all = std::vec![0; n as usize * len];
                c.allgather(&payload(c.rank(), 99, len), &mut all).unwrap();
                for r in 0..n {
                    assert!(
                        all[r as usize * len..][..len] == payload(r, 99, len),
                        "{n} cores: block {r} of {len} bytes"
                    );
                }
            }
        });
    }
}

#[test]
fn allreduce_sum_min_max_over_integers_and_floats() {
    for n in CORES {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            let r = c.rank();
            let ranks = 0..n;

            let mut v = [r + 1, 1000 - r, r * r];
            c.allreduce(&mut v, ReduceOp::Sum).unwrap();
            assert_eq!(
                v,
                [
                    ranks.clone().map(|r| r + 1).sum::<u32>(),
                    ranks.clone().map(|r| 1000 - r).sum(),
                    ranks.clone().map(|r| r * r).sum()
                ]
            );

            let mut v = [u64::from(r) << 40, 7 + u64::from(r % 3)];
            c.allreduce(&mut v, ReduceOp::Max).unwrap();
            assert_eq!(v, [u64::from(n - 1) << 40, 7 + u64::from((n - 1).min(2))]);
            let mut v = [u64::from(r) << 40, 7 + u64::from(r % 3)];
            c.allreduce(&mut v, ReduceOp::Min).unwrap();
            assert_eq!(v, [0, 7]);

            // Halves add up exactly, so the sum is known to the last bit.
            let mut v = [f64::from(r) + 0.5, -f64::from(r)];
            c.allreduce(&mut v, ReduceOp::Sum).unwrap();
            let total: f64 = ranks.clone().map(|r| f64::from(r) + 0.5).sum();
            assert_eq!(v, [total, -f64::from(n * (n - 1) / 2)]);
            let mut v = [f64::from(r) * 1.5 - 3.0];
            c.allreduce(&mut v, ReduceOp::Min).unwrap();
            assert_eq!(v, [-3.0]);
            let mut v = [f64::from(r) * 1.5 - 3.0];
            c.allreduce(&mut v, ReduceOp::Max).unwrap();
            assert_eq!(v, [f64::from(n - 1) * 1.5 - 3.0]);

            // More elements than one data buffer holds.
            let mut v: Vec<u32> = (0..3000).map(|i| i * (r + 1)).collect();
            c.allreduce(&mut v, ReduceOp::Sum).unwrap();
            let factor: u32 = ranks.map(|r| r + 1).sum();
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 * factor));
        });
    }
}

#[test]
fn floating_point_sums_are_identical_on_every_rank() {
    let sums = Mock::run(8, |hal| {
        let mut c = comm(hal);
        let mut v = [
            0.1 * f64::from(c.rank() + 1),
            1e16 / f64::from(c.rank() + 1),
        ];
        c.allreduce(&mut v, ReduceOp::Sum).unwrap();
        v.map(f64::to_bits)
    });
    assert!(sums.iter().all(|s| *s == sums[0]));
}

#[test]
fn a_new_communicator_continues_where_the_last_one_stopped() {
    for n in [1, 2, 3, 8] {
        Mock::run(n, |hal| {
            for round in 0..3u32 {
                let mut c = comm(hal);
                let me = c.rank();
                c.barrier_with(BarrierAlgorithm::Central);
                c.barrier_with(BarrierAlgorithm::Dissemination);
                let (right, left) = ((me + 1) % n, (me + n - 1) % n);
                c.send(right, &payload(round, right, 100)).unwrap();
                let mut buf = [0; 100];
                c.recv(left, &mut buf).unwrap();
                assert!(buf[..] == payload(round, me, 100)[..], "round {round}");
            }
        });
    }
}

#[test]
fn bad_ranks_and_roots_are_refused_before_anything_moves() {
    Mock::run(3, |hal| {
        let mut c = comm(hal);
        let e = c.send(3, &[1]).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Rank);
        assert_eq!(
            std::string::ToString::to_string(&e),
            "MPI_ERR_RANK: send destination 3 is not a rank of a group of 3"
        );
        assert_eq!(
            c.recv(7, &mut [0]).unwrap_err(),
            RmaError::Rank {
                role: "receive source",
                rank: 7,
                size: 3
            }
        );
        assert_eq!(
            c.sendrecv(0, &[], 3, &mut []).unwrap_err().class(),
            ErrorClass::Rank
        );
        assert_eq!(
            c.bcast(3, &mut [0; 4]).unwrap_err(),
            RmaError::Root { root: 3, size: 3 }
        );
        assert_eq!(
            c.allgather(&[1, 2], &mut [0; 5]).unwrap_err(),
            RmaError::BufferLength {
                what: "allgather output",
                len: 5,
                expected: 6
            }
        );
        assert_eq!(
            c.recv(c.rank(), &mut [0]).unwrap_err(),
            RmaError::RecvFromSelfWithoutMessage
        );
        // Nothing was sent by the failed calls: the channel still works.
        c.barrier();
        let me = c.rank();
        c.send((me + 1) % 3, &[me as u8]).unwrap();
        let mut b = [9];
        assert_eq!(c.recv((me + 2) % 3, &mut b), Ok(1));
        assert_eq!(b, [((me + 2) % 3) as u8]);
    });
}

#[test]
fn a_truncated_message_is_consumed_and_the_next_one_arrives() {
    for n in [1, 2] {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            let other = n - 1 - c.rank();
            // Rank 0 sends two messages to the last rank (itself on one core).
            if c.rank() == 0 {
                c.send(other, &payload(1, 2, 10_000)).unwrap();
                c.send(other, &[7; 3]).unwrap();
            }
            if c.rank() != n - 1 {
                return;
            }
            let mut small = [0; 100];
            assert_eq!(
                c.recv(other, &mut small),
                Err(RmaError::Truncate {
                    sender: other,
                    sent: 10_000,
                    capacity: 100
                })
            );
            assert_eq!(small[..], payload(1, 2, 10_000)[..100]);
            assert_eq!(c.recv(other, &mut small), Ok(3));
            assert_eq!(small[..3], [7; 3]);
        });
    }
}

#[test]
fn mismatched_collective_lengths_are_reported_not_hung() {
    Mock::run(3, |hal| {
        let mut c = comm(hal);
        let mut buf = std::vec![1; if c.rank() == 2 { 4 } else { 8 }];
        let result = c.bcast(0, &mut buf);
        if c.rank() == 2 {
            assert_eq!(
                result,
                Err(RmaError::BufferLength {
                    what: "bcast buffer",
                    len: 4,
                    expected: 8
                })
            );
        } else {
            assert_eq!(result, Ok(()));
        }
    });
}

#[test]
fn statistics_count_messages_bytes_and_chunks() {
    let stats = Mock::run(2, |hal| {
        let mut c = comm(hal);
        if c.rank() == 0 {
            c.send(1, &[0; 13_000]).unwrap();
        } else {
            c.recv(0, &mut [0; 13_000]).unwrap();
        }
        c.barrier();
        c.stats()
    });
    assert_eq!(
        (
            stats[0].messages_sent,
            stats[0].bytes_sent,
            stats[0].chunks_sent
        ),
        (1, 13_000, 3)
    );
    assert_eq!(
        (
            stats[1].messages_received,
            stats[1].bytes_received,
            stats[1].barriers
        ),
        (1, 13_000, 1)
    );
}

#[test]
fn try_recv_any_returns_every_message_once_in_order_per_source() {
    for n in [1, 2, 3, 8] {
        Mock::run(n, |hal| {
            let mut c = comm(hal);
            let me = c.rank();
            assert_eq!(c.try_recv_any(), None, "nothing sent yet");
            c.barrier();
            // Everyone sends three messages (one of several chunks) to everyone.
            let lens = [5usize, 13 * 1024, 0];
            let mut expected: Vec<usize> = std::vec![0; n as usize];
            let mut got = 0;
            for (k, len) in lens.into_iter().enumerate() {
                for step in 0..n {
                    let to = (me + step) % n;
                    let mut msg = payload(me, to, len);
                    msg.extend_from_slice(&[k as u8]);
                    // Progressing sends: nobody posts receives for these.
                    c.send_progressing(to, &msg).unwrap();
                }
            }
            while got < lens.len() * n as usize {
                let Some((src, msg)) = c.try_recv_any() else {
                    continue;
                };
                let msg = msg.unwrap();
                let k = expected[src as usize];
                assert_eq!(msg.last(), Some(&(k as u8)), "order from {src}");
                assert!(
                    msg[..msg.len() - 1] == payload(src, me, lens[k]),
                    "{src} -> {me}"
                );
                expected[src as usize] += 1;
                got += 1;
            }
            assert_eq!(c.try_recv_any(), None, "each message once");
            c.barrier();
        });
    }
}

#[test]
fn progressing_sends_in_a_ring_of_large_messages_do_not_deadlock() {
    // Plain sends of two messages longer than the data buffer to the right
    // without receiving would wait forever for the left neighbour.
    Mock::run(6, |hal| {
        let mut c = comm(hal);
        let (me, n) = (c.rank(), c.size());
        let (right, left) = ((me + 1) % n, (me + n - 1) % n);
        let len = 3 * c.layout().data_bytes as usize + 7;
        for k in 0..2 {
            c.send_progressing(right, &payload(me + k, right, len))
                .unwrap();
        }
        for k in 0..2 {
            let mut buf = std::vec![0; len];
            assert_eq!(c.recv(left, &mut buf), Ok(len));
            assert!(buf == payload(left + k, me, len), "message {k} from {left}");
        }
    });
}

#[test]
fn a_receive_finishes_a_message_try_recv_any_began() {
    Mock::run(2, |hal| {
        let mut c = comm(hal);
        let len = 4 * c.layout().data_bytes as usize;
        if c.rank() == 0 {
            c.send(1, &payload(0, 1, len)).unwrap();
            c.send(1, &payload(7, 1, 10)).unwrap();
        } else {
            // Take the first chunk only, then hand over to recv.
            while !c.partial_from(0) {
                assert_eq!(c.try_recv_any(), None);
            }
            let mut buf = std::vec![0; len];
            assert_eq!(c.recv(0, &mut buf), Ok(len));
            assert!(buf == payload(0, 1, len));
            let mut buf = std::vec![0; 10];
            assert_eq!(c.recv(0, &mut buf), Ok(10));
            assert!(buf == payload(7, 1, 10));
            assert_eq!(c.stats().messages_received, 2);
        }
    });
}

#[test]
fn try_send_publishes_only_into_a_free_buffer() {
    Mock::run(3, |hal| {
        let mut c = comm(hal);
        let big = std::vec![0; c.layout().data_bytes as usize + 1];
        assert_eq!(
            c.try_send(1, &big).map_err(|e| e.class()),
            Err(ErrorClass::Arg)
        );
        assert_eq!(
            c.try_send(3, &[]).map_err(|e| e.class()),
            Err(ErrorClass::Rank)
        );
        match c.rank() {
            0 => {
                assert_eq!(c.try_send(1, &payload(0, 1, 40)), Ok(true));
                // Rank 1 has not taken it (it waits in the barrier): the
                // buffer is busy, for rank 2 too.
                assert_eq!(c.try_send(2, &payload(0, 2, 40)), Ok(false));
                c.barrier();
                assert_eq!(
                    c.try_send(0, &payload(0, 0, 3)),
                    Ok(true),
                    "self needs no buffer"
                );
                let mut buf = std::vec![0; 3];
                assert_eq!(c.recv(0, &mut buf), Ok(3));
                c.send(2, &[]).unwrap(); // waits until rank 1 took its message
                while !c.try_send(2, &payload(0, 2, 40)).unwrap() {}
            }
            1 => {
                c.barrier();
                let mut buf = std::vec![0; 40];
                assert_eq!(c.recv(0, &mut buf), Ok(40));
                assert!(buf == payload(0, 1, 40));
            }
            _ => {
                c.barrier();
                let mut buf = std::vec![0; 40];
                assert_eq!(c.recv(0, &mut buf), Ok(0));
                assert_eq!(c.recv(0, &mut buf), Ok(40));
                assert!(buf == payload(0, 2, 40));
            }
        }
    });
}

#[test]
fn the_channel_and_collectives_run_on_the_8x8_chip() {
    // 130 ranks of 192, three to a tile, 16 KiB of MPB each: a larger
    // chunk than the SCC's, and peer lines for every rank.
    let chip = &chip::MESH8X8;
    let n = 130;
    let results = Mock::run_on(chip, n, |hal| {
        let mut c = comm(hal);
        assert_eq!(c.layout(), Layout::for_chip(chip).unwrap());
        let me = c.rank();
        let (next, prev) = ((me + 1) % n, (me + n - 1) % n);
        // More than one chunk: a send waits for its receiver, so even
        // ranks send first and odd ranks receive first (n is even).
        let len = 20 * 1024 + me as usize;
        let mut buf = std::vec![0; 20 * 1024 + n as usize];
        if me.is_multiple_of(2) {
            c.send(next, &payload(me, next, len)).unwrap();
        }
        let got = c.recv(prev, &mut buf).unwrap();
        if me % 2 == 1 {
            c.send(next, &payload(me, next, len)).unwrap();
        }
        assert_eq!(got, 20 * 1024 + prev as usize);
        assert!(buf[..got] == payload(prev, me, got), "{prev} -> {me}");
        c.barrier();
        let mut v = [u64::from(me)];
        c.allreduce(&mut v, ReduceOp::Sum).unwrap();
        v[0]
    });
    assert_eq!(results, std::vec![u64::from(n * (n - 1) / 2); n as usize]);
    assert!(
        Layout::for_chip(chip).unwrap().data_bytes
            > Layout::for_chip(&chip::SCC).unwrap().data_bytes
    );
}

#[test]
fn a_transpose_of_progressing_sends_wakes_every_waiting_receiver() {
    // NAS FT's two-sided transpose as the MPI library makes it: every rank
    // sends pieces of several chunks to every other with progressing
    // sends, then waits, taking messages in with `try_recv_any`, until all
    // of its pieces are in. A wait sleeps until a line its last poll read
    // is written (the emulator's rule), so that poll must read the line of
    // every source that may still send.
    const PLANES: usize = 3;
    const ROUNDS: usize = 3;
    let n = 8;
    Mock::run_watching(n, |hal| {
        let mut c = comm(hal);
        let me = c.rank();
        let len = 16 * 1024 + 4;
        for round in 0..ROUNDS {
            for plane in 0..PLANES {
                for i in 1..n {
                    let to = (me + i) % n;
                    let mut msg = payload(me, to, len);
                    msg[0] = plane as u8;
                    msg[1] = round as u8;
                    c.send_progressing(to, &msg).unwrap();
                }
            }
            let mut got = std::vec![0usize; n as usize];
            let expected = PLANES * (n as usize - 1);
            hal.wait_for(|| {
                while let Some((src, msg)) = c.try_recv_any() {
                    let msg = msg.unwrap();
                    let mut want = payload(src, me, len);
                    want[0] = got[src as usize] as u8;
                    want[1] = round as u8;
                    assert!(
                        msg == want,
                        "round {round}: piece {} {src} -> {me}",
                        got[src as usize]
                    );
                    got[src as usize] += 1;
                }
                (got.iter().sum::<usize>() == expected).then_some(())
            });
            c.barrier();
        }
    });
}
