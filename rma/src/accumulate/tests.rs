// SPDX-License-Identifier: MIT OR Apache-2.0
//! Accumulates, atomics and requests on the mock: every operation on every
//! type against a sequential reference, exact results from 8 cores, a CAS
//! mutex and a lock-free list, ordering, and every misuse error.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::vec::Vec;

use chip::MemoryType;

use super::*;
use crate::comm::Comm;
use crate::epoch::{Assert, LockType};
use crate::hal::mock::Mock;
use crate::window::WindowOptions;
use crate::{ErrorClass, Request};

fn rma(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// Test values of each type: zeros, negatives, large ones.
trait Sample: Accumulable + Debug {
    fn sample(i: u32) -> Self;
}

macro_rules! sample_int {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn sample(i: u32) -> Self {
                // Every 5th zero (the logical operations), the rest spread
                // over the type's range, negative ones included.
                if i % 5 == 0 { 0 } else { (i.wrapping_mul(2_654_435_761) >> 3) as $t }
            }
        }
    )*};
}
sample_int!(u8, i8, u16, i16, u32, i32, u64, i64);

macro_rules! sample_float {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn sample(i: u32) -> Self {
                (i % 17) as $t * 0.75 - 5.0
            }
        }
    )*};
}
sample_float!(f32, f64);

#[test]
fn operations_combine_as_mpi_defines_them() {
    use AccumulateOp::*;
    let c = u8::combine;
    assert_eq!(c(Sum, 250, 10), 4, "wraps");
    assert_eq!(c(Prod, 16, 17), 16, "wraps");
    assert_eq!((c(Min, 3, 9), c(Max, 3, 9)), (3, 9));
    assert_eq!(
        (c(Band, 0b1100, 0b1010), c(Bor, 0b1100, 0b1010)),
        (0b1000, 0b1110)
    );
    assert_eq!(c(Bxor, 0b1100, 0b1010), 0b0110);
    assert_eq!((c(Land, 7, 2), c(Land, 7, 0)), (1, 0));
    assert_eq!((c(Lor, 0, 2), c(Lor, 0, 0)), (1, 0));
    assert_eq!((c(Lxor, 3, 2), c(Lxor, 3, 0)), (0, 1));
    assert_eq!((c(Replace, 3, 9), c(NoOp, 3, 9)), (9, 3));
    assert_eq!(i16::combine(Min, -4, 2), -4);
    assert_eq!(i64::combine(Sum, i64::MAX, 1), i64::MIN);
    assert_eq!(f64::combine(Prod, 1.5, -2.0), -3.0);
    assert_eq!(f32::combine(Max, f32::NAN, 1.0), 1.0);
    assert_eq!(f64::combine(Replace, 1.0, 2.0), 2.0);
    assert_eq!(AccumulateOp::ALL.len(), 14);
    assert_eq!(Lxor.mpi_name(), "MPI_LXOR");
    assert!(Band.integer_only() && !Sum.integer_only() && !NoOp.integer_only());
}

/// Every operation `T` supports, through accumulate, get_accumulate and
/// fetch_and_op (compare_and_swap too for integers), each checked against
/// the sequential result; long enough for several guard chunks.
fn every_operation<T: Sample>(rma: &mut Rma<'_, Mock>, ty: MemoryType) {
    const LEN: u32 = 2 * CHUNK as u32 + 11;
    let (me, n) = (rma.rank(), rma.size());
    let target = (me + 1) % n;
    let win = rma
        .allocate::<T>(LEN, WindowOptions::new().memory_type(ty))
        .unwrap();
    let reference = |a: &[T], b: &[T], op| -> Vec<T> {
        a.iter()
            .zip(b)
            .map(|(&t, &o)| T::combine(op, t, o))
            .collect()
    };
    let mut got = vec![T::sample(0); LEN as usize];
    for (k, op) in AccumulateOp::ALL.into_iter().enumerate() {
        if (op.integer_only() && !T::INTEGER) || op.pair_only() {
            continue;
        }
        let k = k as u32;
        let initial: Vec<T> = (0..LEN).map(|i| T::sample(i + 100 * k + me)).collect();
        let data: Vec<T> = (0..LEN).map(|i| T::sample(3 * i + 7 * k + 1)).collect();
        rma.lock(win, LockType::Exclusive, target, Assert::NONE)
            .unwrap();
        if op != AccumulateOp::NoOp {
            rma.put(win, target, 0, &initial).unwrap();
            rma.accumulate(win, target, 0, &data, op).unwrap();
            rma.get(win, target, 0, &mut got).unwrap();
            assert_eq!(got, reference(&initial, &data, op), "accumulate {op:?}");
        }
        // get_accumulate from displacement 1: the old values come back.
        rma.put(win, target, 0, &initial).unwrap();
        let mut old = vec![T::sample(0); LEN as usize - 1];
        let origin = if op == AccumulateOp::NoOp {
            &[][..]
        } else {
            &data[1..]
        };
        rma.get_accumulate(win, target, 1, origin, &mut old, op)
            .unwrap();
        assert_eq!(old, initial[1..], "get_accumulate {op:?} result");
        rma.get(win, target, 0, &mut got).unwrap();
        let mut want = initial.clone();
        if op != AccumulateOp::NoOp {
            want[1..].copy_from_slice(&reference(&initial[1..], &data[1..], op));
        }
        assert_eq!(got, want, "get_accumulate {op:?} target");
        // fetch_and_op on the last element.
        let last = LEN - 1;
        let before = want[last as usize];
        let fetched = rma.fetch_and_op(win, target, last, data[0], op).unwrap();
        assert_eq!(fetched, before, "fetch_and_op {op:?}");
        let mut one = [T::sample(0)];
        rma.get(win, target, last, &mut one).unwrap();
        assert_eq!(one[0], T::combine(op, before, data[0]));
        rma.unlock(win, target).unwrap();
    }
    if T::INTEGER {
        rma.lock(win, LockType::Exclusive, target, Assert::NONE)
            .unwrap();
        let (a, b) = (T::sample(1), T::sample(2));
        rma.put(win, target, 5, &[a]).unwrap();
        // No swap: the compare value differs.
        assert_eq!(rma.compare_and_swap(win, target, 5, b, b).unwrap(), a);
        let mut one = [T::sample(0)];
        rma.get(win, target, 5, &mut one).unwrap();
        assert_eq!(one[0], a);
        assert_eq!(rma.compare_and_swap(win, target, 5, b, a).unwrap(), a);
        rma.get(win, target, 5, &mut one).unwrap();
        assert_eq!(one[0], b, "swapped");
        rma.unlock(win, target).unwrap();
    }
    rma.comm().barrier();
    rma.free(win).unwrap();
}

fn every_type(rma: &mut Rma<'_, Mock>, ty: MemoryType) {
    every_operation::<u8>(rma, ty);
    every_operation::<i8>(rma, ty);
    every_operation::<u16>(rma, ty);
    every_operation::<i16>(rma, ty);
    every_operation::<u32>(rma, ty);
    every_operation::<i32>(rma, ty);
    every_operation::<u64>(rma, ty);
    every_operation::<i64>(rma, ty);
    every_operation::<f32>(rma, ty);
    every_operation::<f64>(rma, ty);
}

#[test]
fn every_operation_on_every_type_gives_the_sequential_result() {
    // One core: the target is this core, through its local mapping.
    Mock::run(1, |hal| every_type(&mut rma(hal), MemoryType::MpbtWt));
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        for ty in [MemoryType::MpbtWt, MemoryType::Ncm, MemoryType::MpbtWb] {
            every_type(&mut rma, ty);
        }
    });
}

#[test]
fn sums_from_eight_cores_into_shared_elements_are_exact() {
    const LEN: u32 = 150;
    const ROUNDS: u32 = 20;
    let n = 8;
    for ty in [MemoryType::MpbtWt, MemoryType::Ncm, MemoryType::MpbtWb] {
        Mock::run(n, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            let options = WindowOptions::new().memory_type(ty);
            let ints = rma.allocate::<u64>(LEN, options).unwrap();
            let floats = rma.allocate::<f64>(LEN, options).unwrap();
            // Shared locks (lock_all) admit every origin at once, so only
            // the guard keeps the sums exact.
            rma.lock_all(ints, Assert::NONE).unwrap();
            rma.lock_all(floats, Assert::NONE).unwrap();
            for round in 0..ROUNDS {
                let data: Vec<u64> = (0..LEN)
                    .map(|i| u64::from(me + 1) * (i + 1) as u64)
                    .collect();
                let halves: Vec<f64> = (0..LEN).map(|i| f64::from(i) * 0.5).collect();
                for target in [0, (me + round) % n] {
                    rma.accumulate(ints, target, 0, &data, AccumulateOp::Sum)
                        .unwrap();
                    rma.accumulate(floats, target, 0, &halves, AccumulateOp::Sum)
                        .unwrap();
                }
            }
            rma.unlock_all(ints).unwrap();
            rma.unlock_all(floats).unwrap();
            rma.comm().barrier();
            // Rank 0 gets every round of every origin, and the rotating
            // target adds each origin's round where it lands.
            let mut landed = 0u64;
            for origin in 0..n {
                for round in 0..ROUNDS {
                    landed += u64::from(me == 0) + u64::from((origin + round) % n == me);
                }
            }
            let mut got = vec![0u64; LEN as usize];
            rma.local_read(ints, 0, &mut got).unwrap();
            let mut floats_got = vec![0f64; LEN as usize];
            rma.local_read(floats, 0, &mut floats_got).unwrap();
            // Every (origin, round) that landed here added (origin+1)*(i+1).
            let mut weight = 0u64;
            for origin in 0..n {
                for round in 0..ROUNDS {
                    let times = u64::from(me == 0) + u64::from((origin + round) % n == me);
                    weight += times * u64::from(origin + 1);
                }
            }
            for i in 0..LEN as usize {
                assert_eq!(
                    got[i],
                    weight * (i as u64 + 1),
                    "{ty:?} element {i} at {me}"
                );
                assert_eq!(
                    floats_got[i],
                    landed as f64 * i as f64 * 0.5,
                    "{ty:?} f64 {i}"
                );
            }
            let s = rma.stats(ints).unwrap();
            assert_eq!(s.accumulates, 2 * u64::from(ROUNDS));
            assert_eq!(s.bytes_accumulated, 2 * u64::from(ROUNDS * LEN) * 8);
            rma.comm().barrier();
            rma.free(floats).unwrap();
            rma.free(ints).unwrap();
        });
    }
}

#[test]
fn a_fetch_and_op_counter_from_eight_cores_hands_out_every_value_once() {
    const ROUNDS: u32 = 100;
    let n = 8;
    let fetched = Mock::run(n, |hal| {
        let mut rma = rma(hal);
        let win = rma.allocate::<u32>(2, WindowOptions::new()).unwrap();
        rma.lock_all(win, Assert::NONE).unwrap();
        let mine: Vec<u32> = (0..ROUNDS)
            .map(|_| {
                rma.fetch_and_op(win, n - 1, 1, 1, AccumulateOp::Sum)
                    .unwrap()
            })
            .collect();
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        if rma.rank() == n - 1 {
            let mut c = [0u32; 2];
            rma.local_read(win, 0, &mut c).unwrap();
            assert_eq!(c, [0, n * ROUNDS], "final count");
        }
        let s = rma.stats(win).unwrap();
        assert_eq!((s.atomics, s.bytes_accumulated), (100, 400));
        rma.comm().barrier();
        rma.free(win).unwrap();
        mine
    });
    let all: BTreeSet<u32> = fetched.iter().flatten().copied().collect();
    assert_eq!(all, (0..n * ROUNDS).collect(), "every value fetched once");
    for mine in &fetched {
        assert!(
            mine.windows(2).all(|w| w[0] < w[1]),
            "one origin's increase"
        );
    }
}

#[test]
fn a_compare_and_swap_mutex_protects_a_plain_counter() {
    const ROUNDS: u32 = 30;
    let n = 8;
    Mock::run(n, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        // The mutex at rank 0, the counter at the last rank.
        let win = rma.allocate::<i32>(2, WindowOptions::new()).unwrap();
        let (mutex, counter) = (0, n - 1);
        rma.lock_all(win, Assert::NONE).unwrap();
        let mine = me as i32 + 1;
        for _ in 0..ROUNDS {
            while rma.compare_and_swap(win, mutex, 0, mine, 0).unwrap() != 0 {
                std::thread::yield_now();
            }
            let mut c = [0];
            rma.get(win, counter, 1, &mut c).unwrap();
            rma.put(win, counter, 1, &[c[0] + 1]).unwrap();
            rma.flush(win, counter).unwrap();
            assert_eq!(
                rma.compare_and_swap(win, mutex, 0, 0, mine).unwrap(),
                mine,
                "the mutex was held by this core"
            );
        }
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        if me == counter {
            let mut c = [0; 2];
            rma.local_read(win, 0, &mut c).unwrap();
            assert_eq!(c[1], (n * ROUNDS) as i32);
        }
        rma.comm().barrier();
        rma.free(win).unwrap();
    });
}

#[test]
fn a_lock_free_list_built_on_compare_and_swap_holds_every_node_once() {
    // Node k of rank r has id r * NODES + k + 1 and its next pointer at
    // element 1 + k of r's window; the head is element 0 of rank 0's.
    const NODES: u32 = 12;
    let n = 8;
    Mock::run(n, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let win = rma
            .allocate::<u32>(1 + NODES, WindowOptions::new())
            .unwrap();
        rma.lock_all(win, Assert::NONE).unwrap();
        for k in 0..NODES {
            let id = me * NODES + k + 1;
            let mut head = rma.fetch_and_op(win, 0, 0, 0, AccumulateOp::NoOp).unwrap();
            loop {
                rma.put(win, me, 1 + k, &[head]).unwrap();
                rma.flush(win, me).unwrap();
                let seen = rma.compare_and_swap(win, 0, 0, id, head).unwrap();
                if seen == head {
                    break;
                }
                head = seen;
            }
        }
        rma.flush_all(win).unwrap();
        rma.comm().barrier();
        if me == 0 {
            let mut ids = BTreeSet::new();
            let mut at = [0u32];
            rma.get(win, 0, 0, &mut at).unwrap();
            while at[0] != 0 {
                assert!(ids.insert(at[0]), "node {} twice", at[0]);
                let (owner, k) = ((at[0] - 1) / NODES, (at[0] - 1) % NODES);
                rma.get(win, owner, 1 + k, &mut at).unwrap();
            }
            assert_eq!(ids, (1..=n * NODES).collect());
        }
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        rma.free(win).unwrap();
    });
}

#[test]
fn accumulates_from_one_origin_are_ordered_and_vector_layouts_work() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let win = rma.allocate::<i32>(32, WindowOptions::new()).unwrap();
        // Accumulates are allowed in fence epochs as put is.
        rma.fence(win, Assert::NONE).unwrap();
        if me == 1 {
            rma.accumulate(win, other, 0, &[5], AccumulateOp::Replace)
                .unwrap();
            rma.accumulate(win, other, 0, &[3], AccumulateOp::Sum)
                .unwrap();
            rma.accumulate(win, other, 1, &[3], AccumulateOp::Sum)
                .unwrap();
            rma.accumulate(win, other, 1, &[5], AccumulateOp::Replace)
                .unwrap();
            // Every other element of 2..18 gets 10*k, then doubled.
            let data: Vec<i32> = (0..8).map(|k| 10 * k).collect();
            let column = Vector::new(8, 1, 2);
            let all = Vector::contiguous(8);
            rma.accumulate_vector(win, other, 2, &data, all, column, AccumulateOp::Sum)
                .unwrap();
            rma.accumulate_vector(win, other, 2, &[2; 8], all, column, AccumulateOp::Prod)
                .unwrap();
        }
        rma.fence(win, Assert::NONE).unwrap();
        if me == 0 {
            let mut got = [0; 20];
            rma.local_read(win, 0, &mut got).unwrap();
            assert_eq!(got[..2], [8, 5], "REPLACE then SUM, SUM then REPLACE");
            for k in 0..8 {
                assert_eq!(got[2 + 2 * k], 20 * k as i32);
                assert_eq!(got[3 + 2 * k], 0, "between the blocks");
            }
        }
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn the_guard_does_the_coherence_actions_of_the_memory_type() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let other = 1 - rma.rank();
        let wt = rma.allocate::<u32>(200, WindowOptions::new()).unwrap();
        let ncm = rma
            .allocate::<u32>(200, WindowOptions::new().memory_type(MemoryType::Ncm))
            .unwrap();
        let wb = rma
            .allocate::<u32>(200, WindowOptions::new().memory_type(MemoryType::MpbtWb))
            .unwrap();
        let counts = |rma: &Rma<'_, Mock>, w| {
            let s = rma.stats(w).unwrap();
            (s.write_backs, s.flushes, s.invalidations)
        };
        for win in [wt, ncm, wb] {
            rma.lock(win, LockType::Shared, other, Assert::NONE)
                .unwrap();
        }
        let before = [counts(&rma, wt), counts(&rma, ncm), counts(&rma, wb)];
        for win in [wt, ncm, wb] {
            // 150 elements: three chunks, one hold of the guard.
            rma.accumulate(win, other, 0, &[1; 150], AccumulateOp::Sum)
                .unwrap();
            rma.fetch_and_op(win, other, 0, 1, AccumulateOp::Sum)
                .unwrap();
        }
        let delta = |now: (u64, u64, u64), then: (u64, u64, u64)| {
            (now.0 - then.0, now.1 - then.1, now.2 - then.2)
        };
        // MPBT-WT: flush + CL1INVMB before, flush after, per hold.
        assert_eq!(delta(counts(&rma, wt), before[0]), (0, 4, 2));
        assert_eq!(delta(counts(&rma, ncm), before[1]), (0, 0, 0));
        // MPBT-WB: write back + flush + CL1INVMB before, both after.
        assert_eq!(delta(counts(&rma, wb), before[2]), (4, 4, 2));
        // 70 runs of one element: one hold, not one per run.
        let before = counts(&rma, wt);
        let (origin, strided) = (Vector::contiguous(70), Vector::new(70, 1, 2));
        rma.accumulate_vector(wt, other, 0, &[1; 70], origin, strided, AccumulateOp::Sum)
            .unwrap();
        assert_eq!(delta(counts(&rma, wt), before), (0, 2, 1));
        for win in [wt, ncm, wb] {
            rma.unlock(win, other).unwrap();
        }
        rma.comm().barrier();
        for win in [wb, ncm, wt] {
            rma.free(win).unwrap();
        }
    });
}

#[test]
fn request_based_operations_move_the_data_inside_passive_epochs_only() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let win = rma.allocate::<u32>(64, WindowOptions::new()).unwrap();
        let data: Vec<u32> = (0..32).map(|i| me * 1000 + i).collect();
        rma.lock(win, LockType::Exclusive, other, Assert::NONE)
            .unwrap();
        let put = rma.rput(win, other, 0, &data).unwrap();
        let mut got = [0u32; 32];
        let get = rma.rget(win, other, 0, &mut got).unwrap();
        assert_eq!(got.as_slice(), data, "rget sees the rput");
        let acc = rma
            .raccumulate(win, other, 0, &[1; 32], AccumulateOp::Sum)
            .unwrap();
        let mut old = [0u32; 32];
        let fetch = rma
            .rget_accumulate(win, other, 0, &[2; 32], &mut old, AccumulateOp::Sum)
            .unwrap();
        for (i, &v) in old.iter().enumerate() {
            assert_eq!(v, me * 1000 + i as u32 + 1);
        }
        rma.wait_request(win, put).unwrap();
        assert!(rma.test_request(win, get).unwrap());
        rma.wait_request(win, fetch).unwrap();
        assert!(rma.test_request(win, acc).unwrap());
        rma.unlock(win, other).unwrap();
        // Complete at the origin when the call returned; waiting after the
        // epoch is fine.
        rma.lock_all(win, Assert::NONE).unwrap();
        let late = rma.rget(win, other, 0, &mut got).unwrap();
        rma.unlock_all(win).unwrap();
        for (i, &v) in got.iter().enumerate() {
            assert_eq!(v, me * 1000 + i as u32 + 3);
        }
        rma.wait_request(win, late).unwrap();
        let s = rma.stats(win).unwrap();
        assert_eq!((s.requests, s.puts, s.gets, s.accumulates), (5, 1, 2, 2));
        rma.comm().barrier();
        rma.free(win).unwrap();
    });
}

#[test]
fn every_misuse_is_refused_with_its_class_and_a_message_naming_it() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let win = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        let floats = rma.allocate::<f32>(4, WindowOptions::new()).unwrap();
        let other = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        let fail = |e: RmaError, class| {
            assert_eq!(e.class(), class, "{e}");
            e.to_string()
        };
        // Without an epoch.
        assert_eq!(
            fail(
                rma.accumulate(win, 1, 0, &[1], AccumulateOp::Sum)
                    .unwrap_err(),
                ErrorClass::RmaSync
            ),
            "MPI_ERR_RMA_SYNC: accumulate on window 0: no access epoch is open \
             (call fence or start)"
        );
        fail(
            rma.fetch_and_op(win, 1, 0, 1, AccumulateOp::Sum)
                .unwrap_err(),
            ErrorClass::RmaSync,
        );
        assert_eq!(
            fail(rma.rput(win, 1, 0, &[1]).unwrap_err(), ErrorClass::RmaSync),
            "MPI_ERR_RMA_SYNC: rput on window 0: no passive-target epoch is open \
             (call lock or lock_all first)"
        );
        // Requests are refused in fence epochs too.
        rma.fence(win, Assert::NONE).unwrap();
        assert_eq!(
            fail(
                rma.rget(win, 1, 0, &mut [0]).unwrap_err(),
                ErrorClass::RmaSync
            ),
            "MPI_ERR_RMA_SYNC: rget on window 0: no passive-target epoch is open \
             (call lock or lock_all first)"
        );
        fail(
            rma.raccumulate(win, 1, 0, &[1], AccumulateOp::Sum)
                .unwrap_err(),
            ErrorClass::RmaSync,
        );
        fail(
            rma.rget_accumulate(win, 1, 0, &[1], &mut [0], AccumulateOp::Sum)
                .unwrap_err(),
            ErrorClass::RmaSync,
        );
        rma.fence(win, Assert::NOSUCCEED).unwrap();

        // Operations and types.
        rma.lock(win, LockType::Shared, 1, Assert::NONE).unwrap();
        rma.lock(floats, LockType::Shared, 1, Assert::NONE).unwrap();
        assert_eq!(
            fail(
                rma.accumulate(floats, 1, 0, &[1.0], AccumulateOp::Band)
                    .unwrap_err(),
                ErrorClass::Op
            ),
            "MPI_ERR_OP: accumulate on window 1: MPI_BAND on f32 is defined for integer types only"
        );
        assert_eq!(
            fail(
                rma.accumulate(win, 1, 0, &[1], AccumulateOp::NoOp)
                    .unwrap_err(),
                ErrorClass::Op
            ),
            "MPI_ERR_OP: accumulate on window 0: MPI_NO_OP on u32 is allowed only in \
             get_accumulate, rget_accumulate and fetch_and_op"
        );
        assert_eq!(
            fail(
                rma.raccumulate(win, 1, 0, &[1], AccumulateOp::NoOp)
                    .unwrap_err(),
                ErrorClass::Op
            ),
            "MPI_ERR_OP: raccumulate on window 0: MPI_NO_OP on u32 is allowed only in \
             get_accumulate, rget_accumulate and fetch_and_op"
        );
        assert_eq!(
            fail(
                rma.fetch_and_op(floats, 1, 0, 1.0, AccumulateOp::Lxor)
                    .unwrap_err(),
                ErrorClass::Op
            ),
            "MPI_ERR_OP: fetch_and_op on window 1: MPI_LXOR on f32 is defined for integer \
             types only"
        );
        fail(
            rma.get_accumulate(floats, 1, 0, &[1.0], &mut [0.0], AccumulateOp::Bor)
                .unwrap_err(),
            ErrorClass::Op,
        );
        assert_eq!(
            fail(
                rma.compare_and_swap(floats, 1, 0, 1.0, 0.0).unwrap_err(),
                ErrorClass::Type
            ),
            "MPI_ERR_TYPE: compare_and_swap on window 1: f32 is not an integer type \
             (compare_and_swap compares integers only)"
        );
        // NO_OP is fine where MPI allows it, floats included.
        rma.fetch_and_op(floats, 1, 0, 0.0, AccumulateOp::NoOp)
            .unwrap();
        rma.get_accumulate(floats, 1, 0, &[], &mut [0.0; 4], AccumulateOp::NoOp)
            .unwrap();

        // Arguments.
        assert_eq!(
            fail(
                rma.accumulate(win, 1, 2, &[1, 2, 3], AccumulateOp::Sum)
                    .unwrap_err(),
                ErrorClass::RmaRange
            ),
            "MPI_ERR_RMA_RANGE: accumulate on window 0: bytes 8..20 of rank 1's window \
             of 16 bytes"
        );
        fail(
            rma.fetch_and_op(win, 1, 4, 1, AccumulateOp::Sum)
                .unwrap_err(),
            ErrorClass::RmaRange,
        );
        assert_eq!(
            fail(
                rma.compare_and_swap(win, 2, 0, 1, 0).unwrap_err(),
                ErrorClass::Rank
            ),
            "MPI_ERR_RANK: compare_and_swap target 2 is not a rank of a group of 2"
        );
        assert_eq!(
            fail(
                rma.get_accumulate(win, 1, 0, &[1, 2], &mut [0], AccumulateOp::Sum)
                    .unwrap_err(),
                ErrorClass::Arg
            ),
            "MPI_ERR_ARG: get_accumulate result buffer (as the origin buffer) has length 1, \
             expected 2"
        );
        assert_eq!(
            fail(
                rma.compare_and_swap(win, 0, 0, 1, 0).unwrap_err(),
                ErrorClass::RmaSync
            ),
            "MPI_ERR_RMA_SYNC: compare_and_swap on window 0: rank 0 is not locked in this \
             passive-target epoch (call lock first)"
        );
        fail(
            rma.accumulate_vector(
                win,
                1,
                0,
                &[1, 2],
                Vector::contiguous(2),
                Vector::new(2, 2, 1),
                AccumulateOp::Sum,
            )
            .unwrap_err(),
            ErrorClass::Arg,
        );

        // Requests.
        let r = rma.rput(win, 1, 0, &[1]).unwrap();
        rma.wait_request(win, r).unwrap();
        assert_eq!(
            fail(rma.wait_request(win, r).unwrap_err(), ErrorClass::Request),
            "MPI_ERR_REQUEST: wait_request on window 0: request 0 is not pending \
             (a wait or test completed it already)"
        );
        fail(rma.test_request(win, r).unwrap_err(), ErrorClass::Request);
        let r = rma.rput(win, 1, 0, &[1]).unwrap();
        assert_eq!(
            fail(rma.test_request(other, r).unwrap_err(), ErrorClass::Request),
            "MPI_ERR_REQUEST: test_request on window 2: request 1 was made on another window"
        );
        assert_eq!((r.id(), r.window()), (1, 0));
        assert!(rma.test_request(win, r).unwrap());
        let forged: Request = r;
        fail(
            rma.wait_request(win, forged).unwrap_err(),
            ErrorClass::Request,
        );
        rma.unlock(floats, 1).unwrap();
        rma.unlock(win, 1).unwrap();

        rma.comm().barrier();
        rma.free(other).unwrap();
        rma.free(floats).unwrap();
        let stale = win;
        rma.free(win).unwrap();
        assert_eq!(
            rma.accumulate(stale, 1, 0, &[1], AccumulateOp::NoOp)
                .unwrap_err()
                .class(),
            ErrorClass::Win
        );
    });
}

#[test]
fn proc_null_targets_do_nothing_and_requests_complete_all_at_once() {
    use crate::PROC_NULL;
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let other = 1 - rma.rank();
        let win = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        let second = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        rma.local_write(win, 0, &[7; 4]).unwrap();
        rma.fence(win, Assert::NOPRECEDE).unwrap();
        // Every operation to PROC_NULL returns at once, touching nothing.
        rma.put(win, PROC_NULL, 0, &[1; 4]).unwrap();
        let mut got = [9; 4];
        rma.get(win, PROC_NULL, 0, &mut got).unwrap();
        assert_eq!(got, [9; 4]);
        rma.accumulate(win, PROC_NULL, 0, &[1; 4], AccumulateOp::Sum)
            .unwrap();
        let mut old = [5; 4];
        rma.get_accumulate(win, PROC_NULL, 0, &[1; 4], &mut old, AccumulateOp::Sum)
            .unwrap();
        assert_eq!(old, [5; 4]);
        assert_eq!(
            rma.fetch_and_op(win, PROC_NULL, 0, 1, AccumulateOp::Sum)
                .unwrap(),
            0
        );
        assert_eq!(rma.compare_and_swap(win, PROC_NULL, 0, 1, 7).unwrap(), 0);
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let mut mine = [0; 4];
        rma.local_read(win, 0, &mut mine).unwrap();
        assert_eq!(mine, [7; 4], "nothing reached the window");
        assert_eq!(rma.stats(win).unwrap().puts, 0);
        rma.comm().barrier();

        // Requests of two windows, completed together.
        rma.lock_all(win, Assert::NONE).unwrap();
        rma.lock_all(second, Assert::NONE).unwrap();
        let requests = [
            rma.rput(win, other, 0, &[1]).unwrap(),
            rma.rget(second, other, 0, &mut got[..1]).unwrap(),
            rma.rput(win, PROC_NULL, 0, &[1]).unwrap(),
        ];
        let twice = [requests[0], requests[0]];
        let e = rma.wait_all(&twice).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Request, "{e}");
        assert!(e.to_string().contains("is given twice"), "{e}");
        assert!(rma.test_all(&requests).unwrap());
        let e = rma.wait_all(&requests[1..]).unwrap_err();
        assert!(e.to_string().contains("is not pending"), "{e}");
        rma.unlock_all(second).unwrap();
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        rma.free(second).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn maxloc_and_minloc_keep_the_best_pair_and_the_lowest_index_on_ties() {
    use crate::Loc;
    fn at<V>(value: V, index: i32) -> Loc<V> {
        Loc { value, index }
    }
    let max = |t, o| Loc::<f64>::combine(AccumulateOp::MaxLoc, t, o);
    assert_eq!(max(at(1.0, 3), at(2.0, 7)), at(2.0, 7));
    assert_eq!(max(at(2.0, 3), at(1.0, 7)), at(2.0, 3));
    assert_eq!(max(at(2.0, 7), at(2.0, 3)), at(2.0, 3));
    let min = |t, o| Loc::<i32>::combine(AccumulateOp::MinLoc, t, o);
    assert_eq!(min(at(5, 1), at(-5, 9)), at(-5, 9));
    assert_eq!(min(at(5, 9), at(5, 1)), at(5, 1));
    assert_eq!(Loc::<f64>::BYTES, 12);
    let mut bytes = [0; 12];
    at(1.5f64, -2).write_le(&mut bytes);
    assert_eq!(Loc::<f64>::read_le(&bytes), at(1.5, -2));

    // From every rank into rank 0: the maximum, and on ties the lowest rank.
    Mock::run(4, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let win = rma.allocate::<Loc<i64>>(2, WindowOptions::new()).unwrap();
        rma.lock_all(win, Assert::NONE).unwrap();
        if me == 0 {
            rma.put(win, 0, 0, &[at(i64::MIN, -1), at(i64::MAX, -1)])
                .unwrap();
        }
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        rma.lock_all(win, Assert::NONE).unwrap();
        // Values 10, 20, 20, 10: the maximum 20 first comes from rank 1.
        let value = if me == 1 || me == 2 { 20 } else { 10 };
        rma.accumulate(win, 0, 0, &[at(value, me as i32)], AccumulateOp::MaxLoc)
            .unwrap();
        rma.accumulate(win, 0, 1, &[at(value, me as i32)], AccumulateOp::MinLoc)
            .unwrap();
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        if me == 0 {
            let mut got = [at(0, 0); 2];
            rma.lock(win, LockType::Shared, 0, Assert::NONE).unwrap();
            rma.get(win, 0, 0, &mut got).unwrap();
            rma.unlock(win, 0).unwrap();
            assert_eq!(got, [at(20, 1), at(10, 0)]);
            // A pair takes no arithmetic, and a number no MAXLOC.
            rma.lock(win, LockType::Exclusive, 0, Assert::NONE).unwrap();
            let e = rma
                .accumulate(win, 0, 0, &[at(1, 1)], AccumulateOp::Sum)
                .unwrap_err();
            assert_eq!(e.class(), ErrorClass::Op);
            assert!(
                e.to_string()
                    .contains("is not defined for value-index pairs"),
                "{e}"
            );
            rma.unlock(win, 0).unwrap();
        }
        let numbers = rma.allocate::<u32>(1, WindowOptions::new()).unwrap();
        rma.lock_all(numbers, Assert::NONE).unwrap();
        let e = rma
            .accumulate(numbers, 0, 0, &[1], AccumulateOp::MaxLoc)
            .unwrap_err();
        assert!(e.to_string().contains("MPI_MAXLOC"), "{e}");
        assert!(
            e.to_string().contains("value-index pairs (Loc) only"),
            "{e}"
        );
        rma.unlock_all(numbers).unwrap();
        rma.comm().barrier();
        rma.free(numbers).unwrap();
        rma.free(win).unwrap();
    });
}

/// The x87 value of `v` (a normal `f64` or a zero), with its significand's
/// lowest bit set when `nudge`.
fn x87(v: f64, nudge: bool) -> X87 {
    let bits = v.to_bits();
    let sign = ((bits >> 63) as u16) << 15;
    let (exponent, significand) = if v == 0.0 {
        (0u16, 0u64)
    } else {
        let e = ((bits >> 52) & 0x7ff) as i32 - 1023 + 16383;
        (e as u16, (1 << 63) | ((bits & ((1 << 52) - 1)) << 11))
    };
    let significand = significand | u64::from(nudge);
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&significand.to_le_bytes());
    out[8..10].copy_from_slice(&(sign | exponent).to_le_bytes());
    out[10..].copy_from_slice(&[0xaa, 0x55]);
    X87(out)
}

#[test]
fn x87_long_doubles_compare_exactly_and_maxloc_takes_the_larger() {
    use core::cmp::Ordering::*;
    assert_eq!(x87(1.0, false).partial_cmp(&x87(2.0, false)), Some(Less));
    assert_eq!(x87(-2.0, false).partial_cmp(&x87(-1.0, false)), Some(Less));
    assert_eq!(x87(-1.0, false).partial_cmp(&x87(0.5, false)), Some(Less));
    assert_eq!(x87(0.0, false), x87(-0.0, false));
    // One ulp of the 64-bit significand: equal as f64, not as x87.
    assert_eq!(x87(1.0, true).partial_cmp(&x87(1.0, false)), Some(Greater));
    assert_eq!(x87(-1.0, true).partial_cmp(&x87(-1.0, false)), Some(Less));
    let mut nan = x87(1.0, false);
    nan.0[8] = 0xff;
    nan.0[9] = 0x7f;
    nan.0[0] = 1;
    assert_eq!(nan.partial_cmp(&x87(1.0, false)), None);
    let a = Loc {
        value: x87(3.0, false),
        index: 4,
    };
    let b = Loc {
        value: x87(3.0, true),
        index: 9,
    };
    let max = <Loc<X87> as Accumulable>::combine(AccumulateOp::MaxLoc, a, b);
    assert_eq!((max.value, max.index), (b.value, 9));
    let min = <Loc<X87> as Accumulable>::combine(AccumulateOp::MinLoc, b, a);
    assert_eq!((min.value, min.index), (a.value, 4));
    let tie = <Loc<X87> as Accumulable>::combine(AccumulateOp::MaxLoc, b, Loc { index: 2, ..b });
    assert_eq!(tie.index, 2);
    // The bytes go through unchanged, padding and all.
    let mut bytes = [0u8; 16];
    a.write_le(&mut bytes);
    assert_eq!(&bytes[..12], &a.value.0);
    assert_eq!(<Loc<X87> as Element>::read_le(&bytes), a);
}

#[test]
fn short_locs_combine_as_pairs_and_keep_the_targets_padding() {
    let t = ShortLoc {
        value: -3,
        pad: [0xAA, 0xBB],
        index: 4,
    };
    let o = ShortLoc {
        value: 7,
        pad: [1, 2],
        index: 9,
    };
    let max = <ShortLoc as Accumulable>::combine(AccumulateOp::MaxLoc, t, o);
    assert_eq!((max.value, max.pad, max.index), (7, [0xAA, 0xBB], 9));
    let min = <ShortLoc as Accumulable>::combine(AccumulateOp::MinLoc, t, o);
    assert_eq!(min, t);
    let tie =
        <ShortLoc as Accumulable>::combine(AccumulateOp::MinLoc, t, ShortLoc { index: 1, ..t });
    assert_eq!((tie.value, tie.index), (-3, 1));
    let replaced = <ShortLoc as Accumulable>::combine(AccumulateOp::Replace, t, o);
    assert_eq!(
        (replaced.value, replaced.pad, replaced.index),
        (7, [0xAA, 0xBB], 9)
    );
    assert_eq!(
        <ShortLoc as Accumulable>::combine(AccumulateOp::NoOp, t, o),
        t
    );
    // The bytes: the short, the padding, then the int.
    let mut bytes = [0u8; 8];
    t.write_le(&mut bytes);
    assert_eq!(bytes, [0xFD, 0xFF, 0xAA, 0xBB, 4, 0, 0, 0]);
    assert_eq!(<ShortLoc as Element>::read_le(&bytes), t);
    // Only the pair operations apply.
    assert!(check_op::<ShortLoc>(&ACCUMULATE, 0, AccumulateOp::Sum, false).is_err());
    assert!(check_op::<ShortLoc>(&ACCUMULATE, 0, AccumulateOp::MaxLoc, false).is_ok());
}

#[test]
fn every_operation_on_every_type_gives_the_sequential_result_with_the_remote_atomic_unit() {
    // 4- and 8-byte elements of NCM and MPBT-WT windows go through the
    // unit; the others, and MPBT-WB windows, keep the guard.
    Mock::run_on(&chip::MESH8X8, 2, |hal| {
        let mut rma = rma(hal);
        for ty in [MemoryType::MpbtWt, MemoryType::Ncm, MemoryType::MpbtWb] {
            every_type(&mut rma, ty);
        }
        assert!(hal.remote_atomics() > 0);
    });
}

/// What one atomic of each kind on `T` at rank 0's part of a window of
/// type `ty` made: the operations of the remote atomic units and the
/// test-and-set registers taken, each call's result checked.
fn atomics_made<T: Accumulable + From<u8> + Debug>(
    rma: &mut Rma<'_, Mock>,
    hal: &Mock,
    ty: MemoryType,
) -> (u64, u64) {
    let win = rma
        .allocate::<T>(4, WindowOptions::new().memory_type(ty))
        .unwrap();
    rma.lock_all(win, Assert::NONE).unwrap();
    // The memory of an earlier window may be reused: clear it.
    rma.put(win, 0, 0, &[T::from(0); 4]).unwrap();
    rma.flush(win, 0).unwrap();
    let (units, tsrs) = (hal.remote_atomics(), hal.tsr_acquires());
    let t = |v: u8| T::from(v);
    assert_eq!(
        rma.fetch_and_op(win, 0, 1, t(5), AccumulateOp::Sum)
            .unwrap(),
        t(0)
    );
    assert_eq!(rma.compare_and_swap(win, 0, 1, t(9), t(5)).unwrap(), t(5));
    assert_eq!(rma.compare_and_swap(win, 0, 1, t(7), t(5)).unwrap(), t(9));
    rma.accumulate(win, 0, 2, &[t(3), t(4)], AccumulateOp::Max)
        .unwrap();
    let mut old = [t(0); 2];
    rma.get_accumulate(win, 0, 2, &[t(1), t(6)], &mut old, AccumulateOp::Replace)
        .unwrap();
    assert_eq!(old, [t(3), t(4)]);
    let made = (hal.remote_atomics() - units, hal.tsr_acquires() - tsrs);
    let mut got = [t(0); 4];
    rma.get(win, 0, 0, &mut got).unwrap();
    assert_eq!(got, [t(0), t(9), t(1), t(6)]);
    rma.unlock_all(win).unwrap();
    rma.free(win).unwrap();
    made
}

#[test]
fn atomics_use_the_remote_atomic_unit_where_the_chip_has_one_and_the_guard_elsewhere() {
    // On the 8x8 chip: fetch_and_op and each compare_and_swap are one
    // request; accumulate with MAX is a fetch-add of 0 and a compare-swap
    // per element; get_accumulate with REPLACE a swap per element. No
    // test-and-set register is taken.
    Mock::run_on(&chip::MESH8X8, 1, |hal| {
        let rma = &mut rma(hal);
        assert_eq!(
            atomics_made::<u32>(rma, hal, MemoryType::Ncm),
            (1 + 2 + 4 + 2, 0)
        );
        assert_eq!(atomics_made::<u64>(rma, hal, MemoryType::MpbtWt), (9, 0));
        assert_eq!(atomics_made::<i32>(rma, hal, MemoryType::NcmWcb), (9, 0));
        // Elements the unit does not take, or a memory type that keeps
        // modified lines in L1: the guard, one TSR for each of the five calls.
        assert_eq!(atomics_made::<u16>(rma, hal, MemoryType::Ncm), (0, 5));
        assert_eq!(atomics_made::<u32>(rma, hal, MemoryType::MpbtWb), (0, 5));
    });
    // The SCC has no unit.
    Mock::run(1, |hal| {
        let rma = &mut rma(hal);
        assert_eq!(atomics_made::<u32>(rma, hal, MemoryType::Ncm), (0, 5));
    });
}

#[test]
fn sums_and_swaps_from_eight_cores_through_the_remote_atomic_unit_lose_nothing() {
    const ROUNDS: u64 = 50;
    let n = 8;
    let fetched = Mock::run_on(&chip::MESH8X8, n, |hal| {
        let mut rma = rma(hal);
        let me = u64::from(rma.rank());
        let win = rma.allocate::<u64>(4, WindowOptions::new()).unwrap();
        rma.lock_all(win, Assert::NONE).unwrap();
        let mut mine = Vec::new();
        for round in 0..ROUNDS {
            // Element 0: a counter every core fetches from; element 1: sums
            // by accumulate and fetch_and_op mixed; element 2: a maximum.
            mine.push(rma.fetch_and_op(win, 0, 0, 1, AccumulateOp::Sum).unwrap());
            if round % 2 == 0 {
                rma.accumulate(win, 0, 1, &[me + 1], AccumulateOp::Sum)
                    .unwrap();
            } else {
                rma.fetch_and_op(win, 0, 1, me + 1, AccumulateOp::Sum)
                    .unwrap();
            }
            rma.accumulate(win, 0, 2, &[me * 1000 + round], AccumulateOp::Max)
                .unwrap();
        }
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        if me == 0 {
            let mut got = [0u64; 4];
            rma.local_read(win, 0, &mut got).unwrap();
            let cores = u64::from(n);
            assert_eq!(got[0], cores * ROUNDS, "counter");
            assert_eq!(got[1], ROUNDS * cores * (cores + 1) / 2, "sums");
            assert_eq!(got[2], (cores - 1) * 1000 + ROUNDS - 1, "maximum");
            assert_eq!(got[3], 0);
        }
        // A request per counter, per sum, and at least one per maximum.
        assert!(
            hal.remote_atomics() >= 3 * ROUNDS,
            "{}",
            hal.remote_atomics()
        );
        rma.comm().barrier();
        rma.free(win).unwrap();
        mine
    });
    let all: BTreeSet<u64> = fetched.iter().flatten().copied().collect();
    assert_eq!(
        all,
        (0..u64::from(n) * ROUNDS).collect(),
        "every value once"
    );
}
