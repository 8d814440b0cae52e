// SPDX-License-Identifier: MIT OR Apache-2.0
//! The services on rma's mock HAL (host threads as cores): data through
//! every distribution, the timestamp skip, ticket locks that count
//! exactly, counters, and errors that name what was wrong.

use std::sync::atomic::{AtomicU32, Ordering};
use std::vec::Vec;

use rma::comm::Comm;
use rma::hal::mock::Mock;
use rma::{AccumulateOp, LockScheme};

use super::*;

fn dsm(hal: &Mock) -> Dsm<'_, Mock> {
    Dsm::new(Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits"))
        .expect("control region")
}

fn byte(writer: u32, i: u32) -> u8 {
    (writer.wrapping_mul(131) ^ i.wrapping_mul(7)) as u8
}

const DISTRIBUTIONS: [Distribution; 4] = [
    Distribution::OnCore(1),
    Distribution::Block,
    Distribution::Cyclic,
    Distribution::Hashed,
];

#[test]
fn every_distribution_moves_every_byte_and_spreads_them_as_it_says() {
    for n in [2, 3, 5] {
        let counts = Mock::run(n, |hal| {
            let mut d = dsm(hal);
            let me = d.rank();
            let mut spread = Vec::new();
            for dist in DISTRIBUTIONS {
                // Not a multiple of the line, nor of the ranks.
                let size = 1000;
                let (r, granted) = d.alloc(size, dist, Attribute::L1Only).unwrap();
                assert_eq!(granted.memory_type, MemoryType::MpbtWt);
                let scope = d.scope(&[r]).unwrap();
                // Each rank writes its stripe of 200 bytes (ranks past 4
                // write none), across line and part boundaries.
                let stripe: Vec<u8> = (0..200).map(|i| byte(me, i)).collect();
                if me < 5 {
                    d.write(r, me * 200, &stripe).unwrap();
                }
                d.sync_write(scope).unwrap();
                d.barrier();
                d.sync_read(scope).unwrap();
                let mut all = vec![0u8; size as usize];
                d.read(r, 0, &mut all).unwrap();
                for (i, b) in all.iter().enumerate() {
                    let i = i as u32;
                    let writer = i / 200;
                    let want = if writer < n { byte(writer, i % 200) } else { 0 };
                    assert_eq!(*b, want, "{dist:?} byte {i} on {n} ranks");
                }
                let mut per_rank = vec![0u32; n as usize];
                for off in 0..size {
                    let (rank, _) = d.locate(r, off).unwrap();
                    per_rank[rank as usize] += 1;
                }
                spread.push(per_rank);
                d.barrier();
            }
            spread
        });
        let spread = &counts[0];
        assert_eq!(spread[0][1], 1000, "on core 1: all there");
        // Block: equal whole-line parts, the last one shorter.
        let block = 1000u32.div_ceil(n).div_ceil(LINE) * LINE;
        assert_eq!(spread[1][0], block.min(1000));
        // Cyclic and hashed: lines spread evenly (within one line).
        for s in &spread[2..] {
            let (lo, hi) = (s.iter().min().unwrap(), s.iter().max().unwrap());
            assert!(hi - lo <= LINE, "{s:?}");
        }
    }
}

#[test]
fn hashed_lines_are_a_permutation_unlike_cyclic() {
    Mock::run(3, |hal| {
        let mut d = dsm(hal);
        let (c, _) = d
            .alloc(64 * LINE, Distribution::Cyclic, Attribute::Uncached)
            .unwrap();
        let (h, _) = d
            .alloc(64 * LINE, Distribution::Hashed, Attribute::Uncached)
            .unwrap();
        let mut places = std::collections::HashSet::new();
        let mut differ = 0;
        for line in 0..64 {
            let at = d.locate(h, line * LINE).unwrap();
            assert!(places.insert(at), "two lines at {at:?}");
            if at != d.locate(c, line * LINE).unwrap() {
                differ += 1;
            }
        }
        assert!(differ > 32, "hashed lies like cyclic: {differ}");
    });
}

#[test]
fn attributes_are_granted_their_memory_types_and_never_l2() {
    let want = [
        (Attribute::Uncached, MemoryType::Ncm),
        (Attribute::WriteCombined, MemoryType::NcmWcb),
        (Attribute::L1Only, MemoryType::MpbtWt),
        (Attribute::Cached, MemoryType::MpbtWb),
    ];
    Mock::run(2, |hal| {
        let mut d = dsm(hal);
        for (attribute, ty) in want {
            let (r, g) = d.alloc(64, Distribution::Block, attribute).unwrap();
            assert_eq!((g.attribute, g.memory_type, g.l2), (attribute, ty, false));
            assert_eq!(d.region_info(r).unwrap(), (64, g));
            let mapping = d.map_local(r).unwrap();
            assert_eq!(hal.mapping_type(mapping.slot), Some(ty));
        }
    });
}

#[test]
fn sync_read_invalidates_only_when_the_scope_was_released_into() {
    let stats = Mock::run(3, |hal| {
        let mut d = dsm(hal);
        let me = d.rank();
        let (r, _) = d
            .alloc(3 * LINE, Distribution::Block, Attribute::L1Only)
            .unwrap();
        let (other, _) = d
            .alloc(LINE, Distribution::OnCore(0), Attribute::L1Only)
            .unwrap();
        let scope = d.scope(&[r]).unwrap();
        let quiet = d.scope(&[other]).unwrap();
        // Round 1: rank 0 releases into the scope; everyone else must
        // invalidate once, and then not again while nothing changes.
        if me == 0 {
            d.write(r, 0, &[7; 4]).unwrap();
            d.sync_write(scope).unwrap();
        }
        d.barrier();
        d.sync_read(scope).unwrap();
        let after_first = d.stats().invalidations;
        d.sync_read(scope).unwrap();
        d.sync_read(quiet).unwrap();
        let mut four = [0u8; 4];
        d.read(r, 0, &mut four).unwrap();
        assert_eq!(four, [7; 4]);
        d.barrier();
        // Round 2: rank 2 releases; rank 0 and 1 invalidate once more.
        if me == 2 {
            d.write(r, 4, &[9; 4]).unwrap();
            d.sync_write(scope).unwrap();
        }
        d.barrier();
        d.sync_read(scope).unwrap();
        d.read(r, 4, &mut four).unwrap();
        assert_eq!(four, [9; 4]);
        (me, after_first, *d.stats())
    });
    for (me, after_first, s) in stats {
        // Rank 0 released with the timestamp where it had seen it, so it
        // has nothing stale: it skips its first sync_read.
        let first = u64::from(me != 0);
        assert_eq!(after_first, first, "rank {me}");
        let second = u64::from(me != 2);
        assert_eq!(s.invalidations, first + second, "rank {me}: {s}");
        assert_eq!(s.sync_read.calls, 4);
        assert_eq!(
            s.skipped_invalidations,
            4 - first - second,
            "rank {me}: {s}"
        );
        let released = u64::from(me == 0 || me == 2);
        assert_eq!(s.sync_write.calls, released);
        // A release flushes the WCB, and so does every invalidation
        // first (nothing buffered may be lost).
        assert_eq!(s.flushes, released + s.invalidations, "rank {me}: {s}");
    }
}

#[test]
fn with_enforcement_off_the_consistency_calls_are_counted_and_do_nothing() {
    let stats = Mock::run(2, |hal| {
        let mut d = dsm(hal);
        let me = d.rank();
        let (r, _) = d
            .alloc(2 * LINE, Distribution::Block, Attribute::L1Only)
            .unwrap();
        let scope = d.scope(&[r]).unwrap();
        assert_eq!(d.enforcement(), Enforcement::On);
        d.set_enforcement(Enforcement::Off);
        d.barrier();
        if me == 0 {
            d.write(r, LINE, &[5; 4]).unwrap();
            d.sync_write(scope).unwrap();
        }
        d.barrier();
        d.sync_read(scope).unwrap();
        d.invalidate();
        let off = *d.stats();
        // Back on: rank 0's release now moves the timestamp, and rank 1
        // invalidates for it.
        d.set_enforcement(Enforcement::On);
        d.barrier();
        if me == 0 {
            d.sync_write(scope).unwrap();
        }
        d.barrier();
        d.sync_read(scope).unwrap();
        let mut four = [0u8; 4];
        d.read(r, LINE, &mut four).unwrap();
        assert_eq!(four, [5; 4]);
        (me, off, *d.stats())
    });
    for (me, off, on) in stats {
        assert_eq!(off.sync_write.calls, u64::from(me == 0), "rank {me}");
        assert_eq!(off.sync_read.calls, 1, "rank {me}");
        assert_eq!(
            (off.flushes, off.invalidations, off.skipped_invalidations),
            (0, 0, 0),
            "rank {me}: {off}"
        );
        assert_eq!(on.invalidations, u64::from(me == 1), "rank {me}: {on}");
        assert!(on.flushes > 0, "rank {me}: {on}");
    }
}

#[test]
fn ticket_locks_make_an_unprotected_increment_exact_and_count_waits() {
    let n = 4;
    let rounds = 25;
    let stats = Mock::run(n, |hal| {
        let mut d = dsm(hal);
        let (r, _) = d
            .alloc(LINE, Distribution::OnCore(2), Attribute::L1Only)
            .unwrap();
        let scope = d.scope(&[r]).unwrap();
        let lock = d.lock_new().unwrap();
        for _ in 0..rounds {
            // Acquire recipe: lock, then sync_read; release: sync_write,
            // then unlock.
            d.lock(lock).unwrap();
            d.sync_read(scope).unwrap();
            let mut v = [0u8; 4];
            d.read(r, 0, &mut v).unwrap();
            let next = u32::from_le_bytes(v) + 1;
            d.write(r, 0, &next.to_le_bytes()).unwrap();
            d.sync_write(scope).unwrap();
            d.unlock(lock).unwrap();
        }
        d.barrier();
        d.sync_read(scope).unwrap();
        let mut v = [0u8; 4];
        d.read(r, 0, &mut v).unwrap();
        assert_eq!(u32::from_le_bytes(v), n * rounds);
        assert_eq!(d.unlock(lock), Err(DsmError::NotHeld(0)));
        assert_eq!(
            d.unlock(lock).unwrap_err().to_string(),
            "lock 0 is not held"
        );
        *d.stats()
    });
    for s in stats {
        assert_eq!(s.lock.calls, u64::from(rounds));
        assert_eq!(s.unlock.calls, u64::from(rounds));
        assert!(s.lock.max_cycles >= s.lock.total_cycles / s.lock.calls);
    }
}

/// Cores inside each of the locks' critical sections.
static INSIDE: [AtomicU32; 4] = [const { AtomicU32::new(0) }; 4];

#[test]
fn rmas_and_hierarchical_locks_keep_one_core_inside_and_an_increment_exact() {
    let n = 4;
    let rounds = 20;
    let kinds = [
        LockKind::Rma(LockScheme::Gbh),
        LockKind::Rma(LockScheme::GbhBackoff),
        LockKind::Rma(LockScheme::McsWp),
        LockKind::Hierarchical,
    ];
    let stats = Mock::run(n, |hal| {
        let mut d = dsm(hal);
        let (r, _) = d
            .alloc(LINE * 4, Distribution::OnCore(3), Attribute::L1Only)
            .unwrap();
        let scope = d.scope(&[r]).unwrap();
        // A ticket lock first, so that the rma locks' homes are ranks 1 to 3.
        // Two cores per tile: the hierarchical lock hands its global lock
        // on within a tile.
        let ticket = d.lock_new().unwrap();
        let locks: Vec<Lock> = kinds.iter().map(|&k| d.lock_new_kind(k).unwrap()).collect();
        for _ in 0..rounds {
            for (i, &lock) in locks.iter().enumerate() {
                d.lock(lock).unwrap();
                // Alone inside, however long it stays.
                assert_eq!(INSIDE[i].fetch_add(1, Ordering::SeqCst), 0, "lock {i}");
                d.sync_read(scope).unwrap();
                let at = i as u32 * LINE;
                let mut v = [0u8; 4];
                d.read(r, at, &mut v).unwrap();
                std::thread::sleep(std::time::Duration::from_micros(200));
                let next = u32::from_le_bytes(v) + 1;
                d.write(r, at, &next.to_le_bytes()).unwrap();
                d.sync_write(scope).unwrap();
                INSIDE[i].fetch_sub(1, Ordering::SeqCst);
                d.unlock(lock).unwrap();
            }
        }
        // Two kinds held at once, one inside the other.
        d.lock(ticket).unwrap();
        d.lock(locks[2]).unwrap();
        d.unlock(locks[2]).unwrap();
        d.unlock(ticket).unwrap();
        d.barrier();
        d.sync_read(scope).unwrap();
        for i in 0..kinds.len() as u32 {
            let mut v = [0u8; 4];
            d.read(r, i * LINE, &mut v).unwrap();
            assert_eq!(u32::from_le_bytes(v), n * rounds, "lock {i}");
        }
        assert_eq!(d.unlock(locks[0]), Err(DsmError::NotHeld(1)));
        assert_eq!(
            d.try_lock(locks[2]).unwrap_err().to_string(),
            "try_lock: MCS-WP locks have no such call"
        );
        assert_eq!(
            d.try_lock(locks[3]).unwrap_err().to_string(),
            "try_lock: hierarchical locks have no such call"
        );
        let stats = *d.stats();
        d.finish().unwrap();
        stats
    });
    for s in &stats {
        assert_eq!(s.lock.calls, u64::from(rounds) * 4 + 2);
        assert_eq!(s.unlock.calls, s.lock.calls);
        assert!(s.lock_waits <= s.lock.calls);
    }
    // Whether cores of a tile met at the lock here depends on how the
    // host schedules the threads: the next test makes one meet.
}

#[test]
fn a_hierarchical_lock_is_handed_on_to_a_core_of_the_tile_in_line() {
    // Cores 0 and 1 share a tile. Core 0 holds the lock until core 1 is
    // in line behind it, then unlocks: the global lock stays in the tile.
    static HELD: AtomicU32 = AtomicU32::new(0);
    let stats = Mock::run(2, |hal| {
        let mut d = dsm(hal);
        let lock = d.lock_new_kind(LockKind::Hierarchical).unwrap();
        if d.rank() == 0 {
            d.lock(lock).unwrap();
            HELD.store(1, Ordering::SeqCst);
            while d.tile_waiters(lock).unwrap() == 0 {
                std::thread::yield_now();
            }
            d.unlock(lock).unwrap();
        } else {
            while HELD.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            d.lock(lock).unwrap();
            assert_eq!(d.tile_waiters(lock).unwrap(), 0);
            d.unlock(lock).unwrap();
        }
        d.barrier();
        let stats = *d.stats();
        d.finish().unwrap();
        stats
    });
    assert_eq!(
        stats[0].lock_handoffs, 1,
        "core 0 passed it on within the tile"
    );
    assert_eq!(
        stats[1].lock_handoffs, 0,
        "nobody was in line behind core 1"
    );
}

#[test]
fn try_lock_takes_a_free_lock_only() {
    Mock::run(2, |hal| {
        let mut d = dsm(hal);
        let lock = d.lock_new().unwrap();
        if d.rank() == 0 {
            assert!(d.try_lock(lock).unwrap());
        }
        d.barrier();
        if d.rank() == 1 {
            assert!(!d.try_lock(lock).unwrap());
        }
        d.barrier();
        if d.rank() == 0 {
            d.unlock(lock).unwrap();
        }
        d.barrier();
        if d.rank() == 1 {
            assert!(d.try_lock(lock).unwrap());
            d.unlock(lock).unwrap();
        }
    });
}

#[test]
fn counters_and_atomics_are_exact() {
    let n = 5;
    Mock::run(n, |hal| {
        let mut d = dsm(hal);
        let c = d.counter_new().unwrap();
        let (r, _) = d
            .alloc(n * 8, Distribution::Block, Attribute::Uncached)
            .unwrap();
        for i in 0..10 {
            d.counter_add(c, 1).unwrap();
            // Each rank adds to every rank's u64, and ors a bit into a u32.
            for t in 0..n {
                let (at, _) = (t * 8, i);
                d.atomic(r, at, 3u64, AccumulateOp::Sum).unwrap();
            }
        }
        d.barrier();
        assert_eq!(d.counter_read(c).unwrap(), 10 * n);
        for t in 0..n {
            let v: u64 = d.atomic(r, t * 8, 0u64, AccumulateOp::NoOp).unwrap();
            assert_eq!(v, u64::from(30 * n));
        }
        d.barrier();
        if d.rank() == 0 {
            let old: u32 = d.compare_swap(r, 0, 30 * n, 1).unwrap();
            assert_eq!(old, 30 * n);
            let old: u32 = d.compare_swap(r, 0, 30 * n, 2).unwrap();
            assert_eq!(old, 1, "a failed compare leaves the value");
        }
    });
}

#[test]
fn bad_arguments_are_named() {
    Mock::run(2, |hal| {
        let mut d = dsm(hal);
        assert_eq!(
            d.alloc(8, Distribution::OnCore(2), Attribute::Uncached),
            Err(DsmError::Distribution { rank: 2, size: 2 })
        );
        let (r, _) = d
            .alloc(16, Distribution::Block, Attribute::Uncached)
            .unwrap();
        let e = d.write(r, 10, &[0; 8]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "write: bytes 10..18 lie outside the region of 16 bytes"
        );
        let e = d.atomic(r, 2, 0u32, AccumulateOp::Sum).unwrap_err();
        assert_eq!(
            e.to_string(),
            "atomic: offset 2 is not a multiple of the element's 4 bytes"
        );
        d.free(r).unwrap();
        assert_eq!(d.read(r, 0, &mut [0; 1]), Err(DsmError::UnknownRegion(0)));
        for _ in 0..MAX_LOCKS {
            d.lock_new().unwrap();
        }
        assert_eq!(
            d.lock_new().unwrap_err().to_string(),
            "every lock is allocated already (64 per run)"
        );
        assert!(d.tile(1).is_ok());
        assert!(d.tile(2).is_err());
        d.finish().unwrap();
    });
}

#[test]
fn an_unzeroed_region_moves_data_as_a_zeroed_one() {
    Mock::run(3, |hal| {
        let mut d = dsm(hal);
        let me = d.rank();
        let (r, g) = d
            .alloc_unzeroed(3 * 256, Distribution::Block, Attribute::L1Only)
            .unwrap();
        assert_eq!(g.memory_type, MemoryType::MpbtWt);
        let scope = d.scope(&[r]).unwrap();
        let mine: Vec<u8> = (0..256).map(|i| byte(me, i)).collect();
        d.write(r, me * 256, &mine).unwrap();
        d.sync_write(scope).unwrap();
        d.barrier();
        d.sync_read(scope).unwrap();
        for owner in 0..3 {
            let mut buf = vec![0u8; 256];
            d.read(r, owner * 256, &mut buf).unwrap();
            assert!(
                buf.iter()
                    .enumerate()
                    .all(|(i, b)| *b == byte(owner, i as u32))
            );
            assert_eq!(d.locate(r, owner * 256).unwrap(), (owner, 0));
        }
    });
}

#[test]
fn lock_words_in_a_region_make_an_increment_exact() {
    let n = 4;
    let rounds = 20;
    let stats = Mock::run(n, |hal| {
        let mut d = dsm(hal);
        let (r, _) = d
            .alloc(2 * LINE, Distribution::OnCore(3), Attribute::L1Only)
            .unwrap();
        let scope = d.scope(&[r]).unwrap();
        for _ in 0..rounds {
            d.lock_word(r, 0).unwrap();
            d.sync_read(scope).unwrap();
            let mut v = [0u8; 4];
            d.read(r, LINE, &mut v).unwrap();
            d.write(r, LINE, &(u32::from_le_bytes(v) + 1).to_le_bytes())
                .unwrap();
            d.sync_write(scope).unwrap();
            d.unlock_word(r, 0).unwrap();
        }
        d.barrier();
        let mut v = [0u8; 4];
        d.read(r, LINE, &mut v).unwrap();
        assert_eq!(u32::from_le_bytes(v), n * rounds);
        assert_eq!(d.unlock_word(r, 0), Err(DsmError::NotHeld(0)));
        d.barrier();
        if d.rank() == 0 {
            assert!(d.try_lock_word(r, 0).unwrap());
            assert!(!d.try_lock_word(r, 0).unwrap());
            d.unlock_word(r, 0).unwrap();
        }
        *d.stats()
    });
    for s in stats {
        assert!(s.lock.calls >= u64::from(rounds));
        assert!(s.lock_waits <= s.lock.calls);
    }
}
