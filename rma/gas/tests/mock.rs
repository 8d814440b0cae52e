// SPDX-License-Identifier: MIT OR Apache-2.0
//! Global arrays on rma's host mock: every operation's data checked, on
//! 4 threads as cores.

use gas::exec::{Executor, yield_now};
use gas::{Distribution, Gas, Spread};
use rma::Rma;
use rma::comm::Comm;
use rma::hal::mock::Mock;

const LEN: u64 = 1000;

fn gas(hal: &Mock) -> Gas<'_, Mock> {
    Gas::new(Rma::new(Comm::new(hal).unwrap()).unwrap())
}

#[test]
fn blocking_operations_on_every_distribution() {
    Mock::run(4, |hal| {
        let g = gas(hal);
        let (me, n) = (g.rank(), g.size());
        for dist in Distribution::ALL {
            let a = g.allocate::<u32>(LEN, dist, Spread::Controllers).unwrap();
            // Each rank puts its share, every rank adds 1 to everything.
            for i in (u64::from(me)..LEN).step_by(n as usize) {
                g.put(&a, i, i as u32 * 10).unwrap();
            }
            g.flush_and_barrier(&a).unwrap();
            for i in 0..LEN {
                assert_eq!(g.get(&a, i).unwrap(), i as u32 * 10, "{dist:?} {i}");
            }
            g.barrier();
            for i in 0..LEN {
                g.fetch_add(&a, i, 1).unwrap();
            }
            g.flush_and_barrier(&a).unwrap();
            for i in 0..LEN {
                assert_eq!(g.get(&a, i).unwrap(), i as u32 * 10 + n, "{dist:?} {i}");
            }
            g.barrier();
            // One rank wins each swap.
            let won = (0..LEN)
                .filter(|&i| {
                    let want = i as u32 * 10 + n;
                    g.compare_swap(&a, i, u32::MAX - me, want).unwrap() == want
                })
                .count() as u64;
            let mut total = [won];
            g.rma()
                .comm()
                .allreduce(&mut total, rma::comm::ReduceOp::Sum)
                .unwrap();
            assert_eq!(total[0], LEN);
            assert!(matches!(
                g.get(&a, LEN),
                Err(gas::space::GasError::Index {
                    index: LEN,
                    len: LEN
                })
            ));
            g.free(a).unwrap();
        }
        // Per distribution: this rank's puts, then 4 * LEN gets, adds, gets
        // and swaps; the bad index is refused before it is counted.
        let puts = (u64::from(me)..LEN).step_by(n as usize).count() as u64;
        let c = g.counters();
        assert_eq!(c.total(), 3 * (puts + 4 * LEN));
        assert_eq!(c.controllers().iter().sum::<u64>(), c.total());
    });
}

#[test]
fn split_phase_tasks_keep_operations_in_flight_and_locks_exclude() {
    Mock::run(4, |hal| {
        let g = gas(hal);
        let n = g.size();
        let a = g
            .allocate::<u64>(64, Distribution::Hashed, Spread::Owners)
            .unwrap();
        // Locked read-modify-writes go to another array: they exclude each
        // other, not the atomics.
        let b = g
            .allocate::<u64>(16, Distribution::Block, Spread::Owners)
            .unwrap();
        let locks = g
            .allocate::<u32>(4, Distribution::Cyclic, Spread::Owners)
            .unwrap();
        let mut ex = Executor::new();
        for t in 0..8u64 {
            let (g, a, b, locks) = (&g, &a, &b, &locks);
            ex.spawn(async move {
                // Split-phase adds: all issued, then all awaited.
                let hs: Vec<_> = (0..64)
                    .map(|i| g.fetch_add_nb(a, i, t + 1).unwrap())
                    .collect();
                for h in hs {
                    h.await.unwrap();
                }
                // A non-atomic increment under lock (i % 4).
                for i in 0..16u64 {
                    g.acquire(locks, i % 4).await.unwrap();
                    let v = g.get_nb(b, i).unwrap().await.unwrap();
                    yield_now().await;
                    g.put_nb(b, i, v + 1).unwrap().await.unwrap();
                    g.release(locks, i % 4).unwrap();
                }
            });
        }
        ex.run();
        drop(ex);
        assert_eq!(g.most_in_flight(), 64 * 8);
        g.flush_and_barrier(&a).unwrap();
        let sum: u64 = (1..=8).sum::<u64>() * u64::from(n);
        for i in 0..64 {
            assert_eq!(g.get(&a, i).unwrap(), sum, "element {i}");
        }
        for i in 0..16 {
            assert_eq!(
                g.get(&b, i).unwrap(),
                8 * u64::from(n),
                "locked element {i}"
            );
        }
        let l = g.lock_stats();
        assert_eq!(l.acquisitions, 16 * 8);
        assert_eq!(l.attempts.total(), l.acquisitions + l.spins);
        assert!(l.spins > 0, "tasks on one core contend for the same locks");
        assert!(matches!(
            g.release(&locks, 0),
            Err(gas::space::GasError::NotHeld { lock: 0, found: 0 })
        ));
        g.free(locks).unwrap();
        g.free(b).unwrap();
        g.free(a).unwrap();
    });
}

#[test]
fn a_core_writes_and_reads_its_whole_part() {
    Mock::run(4, |hal| {
        let g = gas(hal);
        let me = g.rank();
        let a = g
            .allocate::<u64>(LEN, Distribution::Hashed, Spread::Owners)
            .unwrap();
        let part = a.layout().part_len();
        let mine: Vec<u64> = (0..part)
            .map(|o| u64::from(me) << 32 | u64::from(o))
            .collect();
        g.put_part(&a, me, 0, &mine).unwrap();
        g.flush_and_barrier(&a).unwrap();
        // Every element reads as its owner wrote it.
        for i in 0..LEN {
            let p = a.layout().locate(i);
            let want = u64::from(p.owner) << 32 | u64::from(p.offset);
            assert_eq!(g.get(&a, i).unwrap(), want, "element {i}");
        }
        let mut back = vec![0u64; part as usize];
        g.get_part(&a, me, 0, &mut back).unwrap();
        assert_eq!(back, mine);
        g.barrier();
        g.free(a).unwrap();
    });
}
