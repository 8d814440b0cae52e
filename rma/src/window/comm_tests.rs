// SPDX-License-Identifier: MIT OR Apache-2.0
//! Windows on communicators made from others, on the mock: rows and
//! columns at once, fence, PSCW and lock epochs on each, with every
//! transferred element checked, and the misuse errors.

use std::vec::Vec;

use super::*;
use crate::comm::{Group, ReduceOp, UNDEFINED};
use crate::epoch::{Assert, LockType};
use crate::hal::mock::Mock;
use crate::{AccumulateOp, ErrorClass, LockScheme};

fn rma(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// The value world rank `owner` writes at `index` in round `round`.
fn value(owner: u32, index: u32, round: u32) -> u32 {
    (owner << 24 | index << 4 | round).wrapping_mul(2_654_435_761)
}

#[test]
fn windows_on_rows_and_columns_move_data_at_the_same_time() {
    // 3 rows of 4: rows have 4 ranks, columns 3.
    Mock::run(12, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let (r, c) = (me / 4, me % 4);
        let mut row = rma.comm().split(Some(r), c as i32).unwrap().unwrap();
        let mut col = rma.comm().split(Some(c), r as i32).unwrap().unwrap();
        let rw = rma
            .allocate_on::<u32>(&mut row, 16 * 4, WindowOptions::new())
            .unwrap();
        let cw = rma
            .allocate_on::<u64>(&mut col, 3, WindowOptions::new())
            .unwrap();
        assert_eq!((rma.rank_in(rw), rma.size_in(rw)), (Ok(c), Ok(4)));
        assert_eq!((rma.rank_in(cw), rma.size_in(cw)), (Ok(r), Ok(3)));
        assert_eq!(rma.group(rw).unwrap(), row.group());
        assert_eq!(rma.group(cw).unwrap().members(), [c, 4 + c, 8 + c]);
        assert_eq!(rma.size_of(cw, 2), Ok(24));
        assert_eq!(
            rma.size_of(cw, 3).unwrap_err(),
            RmaError::Rank {
                role: "window rank",
                rank: 3,
                size: 3
            }
        );
        for round in 0..4 {
            rma.fence(rw, Assert::NONE).unwrap();
            rma.fence(cw, Assert::NONE).unwrap();
            // Rows: every rank puts 16 values into slot `c` of each rank.
            for target in 0..4 {
                let data: Vec<u32> = (0..16).map(|i| value(me, i, round)).collect();
                rma.put(rw, target, c * 16, &data).unwrap();
            }
            // Columns: every rank adds to element `round % 3` of each rank.
            for target in 0..3 {
                rma.accumulate(
                    cw,
                    target,
                    round % 3,
                    &[u64::from(me) + 1],
                    AccumulateOp::Sum,
                )
                .unwrap();
            }
            rma.fence(rw, Assert::NONE).unwrap();
            rma.fence(cw, Assert::NONE).unwrap();
            for origin in 0..4 {
                let world = r * 4 + origin;
                let mut got = [0u32; 16];
                rma.local_read(rw, origin * 16, &mut got).unwrap();
                let expected: Vec<u32> = (0..16).map(|i| value(world, i, round)).collect();
                assert_eq!(got[..], expected[..], "row put from {world}");
                let target = (c + origin) % 4;
                rma.get(rw, target, origin * 16, &mut got).unwrap();
                assert_eq!(got[..], expected[..], "row get from rank {target}");
            }
            let mut sums = [0u64; 3];
            rma.local_read(cw, 0, &mut sums).unwrap();
            // Column c holds world ranks c, 4 + c, 8 + c: each added me + 1.
            let per_round = u64::from(3 * c + 12 + 3);
            for (k, &s) in sums.iter().enumerate() {
                let rounds = (0..=round).filter(|x| x % 3 == k as u32).count() as u64;
                assert_eq!(s, rounds * per_round, "column sum {k} after round {round}");
            }
        }
        rma.fence(rw, Assert::NOSUCCEED).unwrap();
        rma.fence(cw, Assert::NOSUCCEED).unwrap();
        // The program's communicators were not disturbed, and freeing them
        // leaves the windows working.
        let mut v = [me];
        row.allreduce(&mut v, ReduceOp::Sum).unwrap();
        assert_eq!(v, [16 * r + 6]);
        row.free();
        col.free();
        rma.fence(rw, Assert::NONE).unwrap();
        rma.put(rw, (c + 1) % 4, 0, &[me]).unwrap();
        rma.fence(rw, Assert::NOSUCCEED).unwrap();
        let mut got = [0];
        rma.local_read(rw, 0, &mut got).unwrap();
        assert_eq!(got, [r * 4 + (c + 3) % 4]);
        rma.free(cw).unwrap();
        rma.free(rw).unwrap();
        assert_eq!(rma.size_in(rw).unwrap_err().class(), ErrorClass::Win);
    });
}

#[test]
fn pscw_on_a_communicator_takes_groups_of_processes() {
    Mock::run(6, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        // Odd and even world ranks; in each, ranks in reverse world order.
        let mut half = rma
            .comm()
            .split(Some(me % 2), -(me as i32))
            .unwrap()
            .unwrap();
        let win = rma
            .allocate_on::<u32>(&mut half, 8, WindowOptions::new())
            .unwrap();
        let (wr, n) = (half.rank(), half.size());
        // The others in the window, as a group of processes of the run.
        let others = half.group().excl(&[wr]).unwrap();
        for round in 0..3 {
            rma.post(win, &others, Assert::NONE).unwrap();
            rma.start(win, &others, Assert::NONE).unwrap();
            for target in (0..n).filter(|&t| t != wr) {
                rma.put(win, target, wr, &[value(me, target, round)])
                    .unwrap();
            }
            rma.complete(win).unwrap();
            rma.wait(win).unwrap();
            let mut got = [0u32; 3];
            rma.local_read(win, 0, &mut got).unwrap();
            for origin in (0..n).filter(|&o| o != wr) {
                let world = half.world_rank(origin).unwrap();
                assert_eq!(got[origin as usize], value(world, wr, round));
            }
        }
        // A group with a process outside the window.
        let stranger = Group::world(6, me).unwrap().incl(&[(me + 1) % 6]).unwrap();
        assert_eq!(
            rma.post(win, &stranger, Assert::NONE).unwrap_err(),
            RmaError::NotMember {
                call: "post",
                of: "the window",
                process: (me + 1) % 6
            }
        );
        let e = rma.start(win, &stranger, Assert::NONE).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Group);
        assert_eq!(
            e.to_string(),
            format!(
                "MPI_ERR_GROUP: start: process {} of the run is not a member of the window",
                (me + 1) % 6
            )
        );
        // A target rank of the run that is no rank of the window.
        rma.fence(win, Assert::NONE).unwrap();
        assert_eq!(
            rma.put(win, 3, 0, &[1]).unwrap_err(),
            RmaError::Rank {
                role: "put target",
                rank: 3,
                size: 3
            }
        );
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn lock_epochs_on_disjoint_windows_count_under_each_scheme() {
    for scheme in [LockScheme::Gbh, LockScheme::GbhBackoff, LockScheme::McsWp] {
        Mock::run(7, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            // {0, 1, 2} and {3, 4, 5, 6}: rank 0 of each is its counter.
            let mut part = rma
                .comm()
                .split(Some(u32::from(me >= 3)), 0)
                .unwrap()
                .unwrap();
            let options = WindowOptions::new().lock_scheme(scheme);
            let win = rma.allocate_on::<u32>(&mut part, 2, options).unwrap();
            let n = part.size();
            for _ in 0..10 {
                rma.lock(win, LockType::Exclusive, 0, Assert::NONE).unwrap();
                let mut old = [0u32];
                rma.get(win, 0, 0, &mut old).unwrap();
                rma.flush(win, 0).unwrap();
                rma.put(win, 0, 0, &[old[0] + 1]).unwrap();
                rma.unlock(win, 0).unwrap();
                rma.lock(win, LockType::Shared, n - 1, Assert::NONE)
                    .unwrap();
                rma.fetch_and_op(win, n - 1, 1, 1u32, AccumulateOp::Sum)
                    .unwrap();
                rma.unlock(win, n - 1).unwrap();
            }
            part.barrier();
            rma.lock_all(win, Assert::NONE).unwrap();
            let (mut first, mut last) = ([0u32; 2], [0u32; 2]);
            rma.get(win, 0, 0, &mut first).unwrap();
            rma.get(win, n - 1, 0, &mut last).unwrap();
            rma.unlock_all(win).unwrap();
            let total = 10 * n;
            let expected_first = if n == 1 { [total, total] } else { [total, 0] };
            assert_eq!(first, expected_first, "{scheme:?}: the counter of rank 0");
            assert_eq!(last[1], total, "{scheme:?}: the fetch_and_op count");
            part.barrier();
            rma.free(win).unwrap();
        });
    }
}

#[test]
fn a_window_on_some_ranks_leaves_the_others_out() {
    // Two of eight ranks make rma over their own communicator; the rest
    // do nothing at all after the split.
    Mock::run(8, |hal| {
        let mut world = Comm::new(hal).unwrap();
        let me = world.rank();
        let color = if me == 2 || me == 5 {
            Some(0)
        } else {
            UNDEFINED
        };
        let Some(pair) = world.split(color, 0).unwrap() else {
            return;
        };
        let mut rma = Rma::new(pair).unwrap();
        assert_eq!(rma.size(), 2);
        let other = 1 - rma.rank();
        let win = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        assert_eq!(rma.group(win).unwrap().members(), [2, 5]);
        rma.fence(win, Assert::NONE).unwrap();
        rma.put(win, other, 1, &[value(me, 1, 0), value(me, 2, 0)])
            .unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut got = [0; 4];
        rma.local_read(win, 0, &mut got).unwrap();
        let from = 7 - me;
        assert_eq!(got, [0, value(from, 1, 0), value(from, 2, 0), 0]);
        // Shared and created windows on the pair, too.
        let shared = rma.allocate_shared::<u32>(2, WindowOptions::new()).unwrap();
        let memory = rma.alloc_mem(8).unwrap();
        let mut comm = rma.comm().dup().unwrap();
        let created = rma
            .create_on::<u32>(&mut comm, memory, WindowOptions::new())
            .unwrap();
        assert_eq!(rma.attributes(created).unwrap().flavor, Flavor::Create);
        rma.fence(created, Assert::NONE).unwrap();
        rma.put(created, other, 0, &[me * 3]).unwrap();
        rma.fence(created, Assert::NOSUCCEED).unwrap();
        rma.local_read(created, 0, &mut got[..1]).unwrap();
        assert_eq!(got[0], from * 3);
        rma.free(created).unwrap();
        rma.free_mem(memory).unwrap();
        rma.free(shared).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn a_shared_window_on_a_communicator_is_shared_by_its_processes() {
    Mock::run(5, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let mut trio = rma.comm().split((me < 3).then_some(0), 0).unwrap();
        let Some(trio) = trio.as_mut() else {
            return;
        };
        let win = rma
            .allocate_shared_on::<u32>(trio, 4, WindowOptions::new())
            .unwrap();
        let n = trio.size();
        let right = rma.shared_query(win, (me + 1) % n).unwrap();
        assert_eq!(
            rma.shared_query(win, n).unwrap_err(),
            RmaError::Rank {
                role: "shared_query rank",
                rank: 3,
                size: 3
            }
        );
        rma.lock_all(win, Assert::NOCHECK).unwrap();
        rma.shared_store(win, right, 2, &[500 + me]).unwrap();
        rma.sync(win).unwrap();
        trio.barrier();
        rma.sync(win).unwrap();
        let mine = rma.shared_query(win, me).unwrap();
        let mut got = [0; 4];
        rma.shared_load(win, mine, 0, &mut got).unwrap();
        assert_eq!(got, [0, 0, 500 + (me + n - 1) % n, 0]);
        rma.unlock_all(win).unwrap();
        trio.barrier();
        rma.free(win).unwrap();
    });
}
