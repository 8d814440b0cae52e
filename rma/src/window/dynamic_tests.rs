// SPDX-License-Identifier: MIT OR Apache-2.0
//! Dynamic windows on the mock: attach, detach and access by address in
//! every kind of epoch, with every transferred element checked, and every
//! misuse error.

use std::vec::Vec;

use super::*;
use crate::epoch::{Assert, LockType};
use crate::hal::mock::Mock;
use crate::{AccumulateOp, ErrorClass};

fn rma(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// The value rank `owner` holds at `index` of its memory `which` in round
/// `round`.
fn value(owner: u32, which: u32, index: u32, round: u32) -> u32 {
    (owner << 24 | which << 16 | index << 4 | round).wrapping_mul(2_654_435_761)
}

fn values(owner: u32, which: u32, len: u32, round: u32) -> Vec<u32> {
    (0..len).map(|i| value(owner, which, i, round)).collect()
}

/// Stores `data` into `memory` from byte 0, as the program's stores.
fn store(rma: &mut Rma<'_, Mock>, memory: Memory, data: &[u32]) {
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    rma.memory_write(memory, 0, &bytes).unwrap();
}

/// Loads `len` words of `memory` from byte 0.
fn load(rma: &mut Rma<'_, Mock>, memory: Memory, len: usize) -> Vec<u32> {
    let mut bytes = std::vec![0u8; 4 * len];
    rma.memory_read(memory, 0, &mut bytes).unwrap();
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Every rank's address of `memory`, by rank.
fn addresses(rma: &mut Rma<'_, Mock>, memory: Memory) -> Vec<u32> {
    let mine = rma.address(memory).unwrap().to_le_bytes();
    let mut all = std::vec![0u8; 4 * rma.size() as usize];
    rma.comm().allgather(&mine, &mut all).unwrap();
    all.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn class<T: core::fmt::Debug>(r: Result<T, RmaError>) -> ErrorClass {
    r.unwrap_err().class()
}

#[test]
fn addresses_are_offsets_in_the_popshm() {
    Mock::run(1, |hal| {
        let mut rma = rma(hal);
        let a = rma.alloc_mem(100).unwrap();
        let b = rma.alloc_mem(5000).unwrap();
        let c = rma.alloc_mem(1).unwrap();
        assert_eq!(rma.address(a), Ok(0));
        assert_eq!(rma.address(b), Ok(4096));
        assert_eq!(rma.address(c), Ok(3 * 4096));
        rma.free_mem(c).unwrap();
        let e = rma.address(c).unwrap_err();
        assert_eq!(e, RmaError::UnknownMemory { memory: c.id() });
        assert_eq!(e.class(), ErrorClass::Base);
        rma.free_mem(b).unwrap();
        rma.free_mem(a).unwrap();
    });
}

#[test]
fn fence_epochs_reach_attached_memory_by_address() {
    for n in [1, 2, 3] {
        Mock::run(n, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            let (left, right) = ((me + n - 1) % n, (me + 1) % n);
            let win = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
            let a = rma.attributes(win).unwrap();
            assert_eq!(
                (a.size, a.disp_unit, a.flavor, a.offset),
                (0, 1, Flavor::Dynamic, 0)
            );
            assert_eq!(a.model, MemoryModel::Separate);
            assert_eq!(rma.size_of(win, right), Ok(0));
            assert_eq!(rma.disp_unit_of(win, right), Ok(1));
            // Two memories, the second not page-sized: 24 words.
            let first = rma.alloc_mem(64).unwrap();
            let second = rma.alloc_mem(96).unwrap();
            store(&mut rma, first, &values(me, 1, 16, 0));
            store(&mut rma, second, &values(me, 2, 24, 0));
            rma.attach(win, first).unwrap();
            rma.attach(win, second).unwrap();
            let firsts = addresses(&mut rma, first);
            let seconds = addresses(&mut rma, second);
            for round in 1..3 {
                rma.fence(win, Assert::NONE).unwrap();
                // Into the right neighbour's first memory, from word 4.
                let data = values(me, 1, 8, round);
                rma.put(win, right, firsts[right as usize] + 16, &data)
                    .unwrap();
                // The left neighbour's second memory, words 20..24.
                let mut got = [0u32; 4];
                rma.get(win, left, seconds[left as usize] + 80, &mut got)
                    .unwrap();
                let want = values(left, 2, 24, round - 1);
                assert_eq!(got, want[20..24], "round {round}: get from {left}");
                rma.fence(win, Assert::NONE).unwrap();
                let mut mine = load(&mut rma, first, 16);
                let mut want = values(me, 1, 16, 0);
                want[4..12].copy_from_slice(&values(left, 1, 8, round));
                assert_eq!(mine, want, "round {round}: put from {left}");
                // Each rank sums 1 into every word of its right
                // neighbour's second memory.
                rma.accumulate(
                    win,
                    right,
                    seconds[right as usize],
                    &[1; 24],
                    AccumulateOp::Sum,
                )
                .unwrap();
                rma.fence(win, Assert::NONE).unwrap();
                mine = load(&mut rma, second, 24);
                let want: Vec<u32> = values(me, 2, 24, round - 1)
                    .iter()
                    .map(|v| v.wrapping_add(1))
                    .collect();
                assert_eq!(mine, want, "round {round}: accumulate from {left}");
                store(&mut rma, second, &values(me, 2, 24, round));
                rma.fence(win, Assert::NOSUCCEED).unwrap();
            }
            let s = rma.stats(win).unwrap();
            assert_eq!((s.puts, s.gets, s.accumulates), (2, 2, 2));
            rma.comm().barrier();
            rma.detach(win, first).unwrap();
            rma.detach(win, second).unwrap();
            rma.free_mem(second).unwrap();
            rma.free_mem(first).unwrap();
            rma.free(win).unwrap();
            assert_eq!(rma.popshm_left(), rma.popshm().bytes(), "memory came back");
        });
    }
}

#[test]
fn passive_and_pscw_epochs_and_atomics_on_a_dynamic_window() {
    Mock::run(4, |hal| {
        let mut rma = rma(hal);
        let (me, n) = (rma.rank(), rma.size());
        let right = (me + 1) % n;
        let win = rma
            .create_dynamic::<u64>(WindowOptions::new().memory_type(MemoryType::Ncm))
            .unwrap();
        assert_eq!(rma.attributes(win).unwrap().model, MemoryModel::Unified);
        // Rank 0's counter, every rank's slots.
        let counter = rma.alloc_mem(8).unwrap();
        let slots = rma.alloc_mem(8 * n).unwrap();
        let zeros = std::vec![0u8; 8 * n as usize];
        rma.memory_write(counter, 0, &[0; 8]).unwrap();
        rma.memory_write(slots, 0, &zeros).unwrap();
        rma.attach(win, slots).unwrap();
        if me == 0 {
            rma.attach(win, counter).unwrap();
        }
        let counters = addresses(&mut rma, counter);
        let slot_of = addresses(&mut rma, slots);
        rma.comm().barrier();
        // lock_all: atomics on rank 0's counter, puts into every slot.
        rma.lock_all(win, Assert::NONE).unwrap();
        let mut seen = Vec::new();
        for _ in 0..5 {
            seen.push(
                rma.fetch_and_op(win, 0, counters[0], 1, AccumulateOp::Sum)
                    .unwrap(),
            );
        }
        for target in 0..n {
            let at = slot_of[target as usize] + 8 * me;
            rma.put(win, target, at, &[u64::from(me) << 32 | 7])
                .unwrap();
        }
        rma.flush_all(win).unwrap();
        rma.unlock_all(win).unwrap();
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        rma.comm().barrier();
        rma.lock(win, LockType::Shared, 0, Assert::NONE).unwrap();
        let total = rma
            .fetch_and_op(win, 0, counters[0], 0, AccumulateOp::NoOp)
            .unwrap();
        rma.unlock(win, 0).unwrap();
        assert_eq!(total, 5 * u64::from(n));
        let mut got = std::vec![0u64; n as usize];
        rma.lock(win, LockType::Exclusive, right, Assert::NONE)
            .unwrap();
        rma.get(win, right, slot_of[right as usize], &mut got)
            .unwrap();
        let want: Vec<u64> = (0..n).map(|o| u64::from(o) << 32 | 7).collect();
        assert_eq!(got, want, "slots of {right}");
        // Compare and swap and request-based put and get, in the same
        // exclusive epoch.
        let slot = slot_of[right as usize] + 8 * me;
        let old = rma
            .compare_and_swap(win, right, slot, 99, u64::from(me) << 32 | 7)
            .unwrap();
        assert_eq!(old, u64::from(me) << 32 | 7);
        let put = rma.rput(win, right, slot, &[100 + u64::from(me)]).unwrap();
        rma.wait_request(win, put).unwrap();
        let mut back = [0u64];
        let get = rma.rget(win, right, slot, &mut back).unwrap();
        rma.wait_request(win, get).unwrap();
        assert_eq!(back, [100 + u64::from(me)]);
        rma.unlock(win, right).unwrap();
        rma.comm().barrier();
        // PSCW: each rank exposes to its left neighbour, which puts into
        // its slot 0.
        let left = (me + n - 1) % n;
        let from_left = rma.comm().group().incl(&[left]).unwrap();
        let to_right = rma.comm().group().incl(&[right]).unwrap();
        rma.post(win, &from_left, Assert::NONE).unwrap();
        rma.start(win, &to_right, Assert::NONE).unwrap();
        rma.put(
            win,
            right,
            slot_of[right as usize],
            &[0xABCD_0000 + u64::from(me)],
        )
        .unwrap();
        rma.complete(win).unwrap();
        rma.wait(win).unwrap();
        // Slot k of this rank: the left neighbour's PSCW put in slot 0, its
        // rput in its own slot, rank k's lock_all put in the others.
        let mut mine = std::vec![0u8; 8 * n as usize];
        rma.memory_read(slots, 0, &mut mine).unwrap();
        let mine: Vec<u64> = mine
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let want: Vec<u64> = (0..n)
            .map(|k| match k {
                0 => 0xABCD_0000 + u64::from(left),
                k if k == left => 100 + u64::from(left),
                k => u64::from(k) << 32 | 7,
            })
            .collect();
        assert_eq!(mine, want);
        rma.comm().barrier();
        rma.free(win).unwrap();
        // The window's memory is the caller's again.
        rma.free_mem(slots).unwrap();
        rma.free_mem(counter).unwrap();
    });
}

#[test]
fn memory_attached_inside_an_epoch_is_found_and_detached_memory_refused() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let other = 1 - me;
        let win = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        let first = rma.alloc_mem(16).unwrap();
        store(&mut rma, first, &values(me, 1, 4, 0));
        rma.attach(win, first).unwrap();
        let firsts = addresses(&mut rma, first);
        rma.lock_all(win, Assert::NONE).unwrap();
        // The origin reads the target's table now ...
        let mut got = [0u32; 4];
        rma.get(win, other, firsts[other as usize], &mut got)
            .unwrap();
        assert_eq!(got.to_vec(), values(other, 1, 4, 0));
        rma.comm().barrier();
        // ... the target attaches more and sends its address ...
        let second = rma.alloc_mem(16).unwrap();
        store(&mut rma, second, &values(me, 2, 4, 0));
        rma.attach(win, second).unwrap();
        let address = rma.address(second).unwrap();
        let mut theirs = [0u8; 4];
        rma.comm()
            .sendrecv(other, &address.to_le_bytes(), other, &mut theirs)
            .unwrap();
        let theirs = u32::from_le_bytes(theirs);
        // ... and the origin, in the same epoch, finds it.
        rma.get(win, other, theirs + 4, &mut got[..3]).unwrap();
        assert_eq!(got[..3], values(other, 2, 4, 0)[1..]);
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        // Detached (no access under way: after the barrier), then refused
        // by the target itself at once and by the origin in its next epoch.
        rma.detach(win, second).unwrap();
        rma.comm().barrier();
        rma.lock_all(win, Assert::NONE).unwrap();
        let e = rma.get(win, other, theirs, &mut got).unwrap_err();
        assert_eq!(
            e,
            RmaError::Unattached {
                call: "get",
                window: win.id(),
                target: other,
                address: u64::from(theirs),
                len: 16
            }
        );
        let own = rma.put(win, me, address, &[1]).unwrap_err();
        assert_eq!(own.class(), ErrorClass::RmaRange);
        // The first is still there.
        rma.get(win, other, firsts[other as usize], &mut got)
            .unwrap();
        assert_eq!(got.to_vec(), values(other, 1, 4, 0));
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        rma.free_mem(second).unwrap();
        rma.free(win).unwrap();
        rma.free_mem(first).unwrap();
    });
}

#[test]
fn misuse_of_dynamic_windows_is_refused() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let other = 1 - me;
        let win = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        let plain = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        let memory = rma.alloc_mem(16).unwrap();
        // Attach and detach on another flavor.
        let e = rma.attach(plain, memory).unwrap_err();
        assert_eq!(e.class(), ErrorClass::RmaFlavor);
        assert_eq!(
            e.to_string(),
            format!(
                "MPI_ERR_RMA_FLAVOR: attach on window {}: only a window made by create_dynamic \
                 allows it",
                plain.id()
            )
        );
        assert_eq!(class(rma.detach(plain, memory)), ErrorClass::RmaFlavor);
        // Local access to a dynamic window.
        let e = rma.local_read(win, 0, &mut [0]).unwrap_err();
        assert_eq!(e.class(), ErrorClass::RmaFlavor);
        assert!(
            e.to_string().contains("memory_read and memory_write"),
            "{e}"
        );
        assert_eq!(class(rma.local_write(win, 0, &[1])), ErrorClass::RmaFlavor);
        assert_eq!(class(rma.shared_query(win, 0)), ErrorClass::RmaFlavor);
        // Twice, and detaching what is not attached.
        let e = rma.detach(win, memory).unwrap_err();
        assert_eq!(e.class(), ErrorClass::RmaAttach);
        assert_eq!(
            e.to_string(),
            format!(
                "MPI_ERR_RMA_ATTACH: detach on window {}: memory {} is not attached to it",
                win.id(),
                memory.id()
            )
        );
        rma.attach(win, memory).unwrap();
        let e = rma.attach(win, memory).unwrap_err();
        assert_eq!(
            e,
            RmaError::Attach {
                call: "attach",
                window: win.id(),
                memory: memory.id(),
                problem: "is attached to it already"
            }
        );
        // Attached memory cannot be freed; it can still be read and written.
        let e = rma.free_mem(memory).unwrap_err();
        assert_eq!(
            e,
            RmaError::MemoryInUse {
                memory: memory.id(),
                window: win.id()
            }
        );
        store(&mut rma, memory, &[5, 6, 7, 8]);
        // Unknown memory and windows.
        let gone = rma.alloc_mem(8).unwrap();
        rma.free_mem(gone).unwrap();
        assert_eq!(
            rma.attach(win, gone),
            Err(RmaError::UnknownMemory { memory: gone.id() })
        );
        assert_eq!(class(rma.detach(win, gone)), ErrorClass::Base);
        let address = rma.address(memory).unwrap();
        let theirs = addresses(&mut rma, memory)[other as usize];
        // Accesses at an address no memory has (past the POPSHM's size:
        // addresses are the owner's, not offsets), outside attached
        // memory, across its end.
        rma.fence(win, Assert::NONE).unwrap();
        let e = rma.get(win, other, u32::MAX - 1, &mut [0]).unwrap_err();
        assert_eq!(
            e,
            RmaError::Unattached {
                call: "get",
                window: win.id(),
                target: other,
                address: u64::from(u32::MAX - 1),
                len: 4,
            }
        );
        let e = rma.put(win, other, theirs + 4096, &[1]).unwrap_err();
        assert_eq!(e.class(), ErrorClass::RmaRange);
        assert_eq!(
            e.to_string(),
            format!(
                "MPI_ERR_RMA_RANGE: put on window {}: bytes {}..{} of rank {other} lie in no \
                 memory it attached to the window",
                win.id(),
                theirs + 4096,
                theirs + 4100
            )
        );
        assert_eq!(
            class(rma.get(win, other, theirs + 12, &mut [0, 0])),
            ErrorClass::RmaRange
        );
        assert_eq!(
            class(rma.put(win, me, address + 16, &[0])),
            ErrorClass::RmaRange
        );
        // Inside: the last word, and nothing at all.
        let mut got = [0];
        rma.get(win, other, theirs + 12, &mut got).unwrap();
        assert_eq!(got, [8]);
        rma.get(win, other, theirs + 4096, &mut []).unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        // A dynamic window's displacement unit is 1.
        let e = rma
            .create_dynamic::<u32>(WindowOptions::new().disp_unit(4))
            .unwrap_err();
        assert_eq!(e.class(), ErrorClass::Disp);
        assert_eq!(
            e.to_string(),
            "MPI_ERR_DISP: displacement unit 4 (a dynamic window's displacements are \
             addresses: it must be 1)"
        );
        let unit_one = rma
            .create_dynamic::<u32>(WindowOptions::new().disp_unit(1))
            .unwrap();
        rma.free(unit_one).unwrap();
        rma.comm().barrier();
        rma.free(plain).unwrap();
        rma.free(win).unwrap();
        // Freeing the window detached it.
        assert_eq!(class(rma.attach(win, memory)), ErrorClass::Win);
        rma.free_mem(memory).unwrap();
    });
}

#[test]
fn a_full_attachment_table_grows_and_origins_follow_it() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let win = rma.create_dynamic::<u8>(WindowOptions::new()).unwrap();
        // Memories of 0 bytes take no POPSHM; enough to grow the table
        // twice.
        let first = database::first_table_entries(crate::hal::Topology::cores(hal));
        let memories: Vec<Memory> = (0..2 * first).map(|_| rma.alloc_mem(0).unwrap()).collect();
        let early = rma.alloc_mem(4).unwrap();
        rma.memory_write(early, 0, &[me as u8 + 10; 4]).unwrap();
        rma.attach(win, early).unwrap();
        // The other rank reads the first table before it grows.
        let theirs_early = addresses(&mut rma, early)[1 - me as usize];
        rma.lock_all(win, Assert::NONE).unwrap();
        let mut got = [0u8; 4];
        rma.get(win, 1 - me, theirs_early, &mut got).unwrap();
        assert_eq!(got, [11 - me as u8; 4]);
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        for &m in &memories {
            rma.attach(win, m).unwrap();
        }
        let one_more = rma.alloc_mem(4).unwrap();
        rma.memory_write(one_more, 0, &[me as u8 + 1; 4]).unwrap();
        rma.attach(win, one_more).unwrap();
        // The other rank follows its old copy's table to the grown one.
        let theirs = addresses(&mut rma, one_more)[1 - me as usize];
        rma.lock_all(win, Assert::NONE).unwrap();
        rma.get(win, 1 - me, theirs, &mut got).unwrap();
        assert_eq!(got, [2 - me as u8; 4]);
        rma.get(win, 1 - me, theirs_early, &mut got).unwrap();
        assert_eq!(got, [11 - me as u8; 4]);
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        rma.free(win).unwrap();
        rma.free_mem(one_more).unwrap();
        rma.free_mem(early).unwrap();
        for m in memories.into_iter().rev() {
            rma.free_mem(m).unwrap();
        }
    });
}

#[test]
fn a_freed_dynamic_window_s_record_and_table_serve_the_next() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let other = 1 - me;
        let memory = rma.alloc_mem(8).unwrap();
        store(&mut rma, memory, &[me, me + 10]);
        let theirs = addresses(&mut rma, memory)[other as usize];
        let first = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        let records = [
            rma.record(first.id(), me),
            rma.dynamic_mut(first.id()).first_table(),
        ];
        rma.attach(first, memory).unwrap();
        rma.comm().barrier();
        rma.free(first).unwrap();
        // The next windows take the freed record and table; the dynamic
        // one starts with an empty table.
        let plain = rma.allocate::<u32>(2, WindowOptions::new()).unwrap();
        let second = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        let mut taken = [
            rma.record(plain.id(), me),
            rma.record(second.id(), me),
            rma.dynamic_mut(second.id()).first_table(),
        ];
        taken.sort_by_key(|r| r.offset);
        assert!(records.iter().all(|r| taken.contains(r)), "{taken:?}");
        rma.fence(second, Assert::NONE).unwrap();
        assert_eq!(
            class(rma.get(second, other, theirs, &mut [0])),
            ErrorClass::RmaRange
        );
        rma.comm().barrier();
        rma.attach(second, memory).unwrap();
        rma.comm().barrier();
        let mut got = [0; 2];
        rma.get(second, other, theirs, &mut got).unwrap();
        assert_eq!(got, [other, other + 10]);
        rma.fence(second, Assert::NOSUCCEED).unwrap();
        rma.free(second).unwrap();
        rma.free(plain).unwrap();
        rma.free_mem(memory).unwrap();
    });
}

#[test]
fn dynamic_windows_on_a_sub_communicator() {
    Mock::run(4, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let mut half = rma.comm().split(Some(me % 2), me as i32).unwrap().unwrap();
        let win = rma
            .create_dynamic_on::<u32>(&mut half, WindowOptions::new())
            .unwrap();
        assert_eq!((rma.rank_in(win), rma.size_in(win)), (Ok(me / 2), Ok(2)));
        let memory = rma.alloc_mem(4).unwrap();
        store(&mut rma, memory, &[me * 100]);
        rma.attach(win, memory).unwrap();
        // The partner in the window: world rank me ^ 2.
        let mine = rma.address(memory).unwrap().to_le_bytes();
        let mut all = [0u8; 8];
        half.allgather(&mine, &mut all).unwrap();
        let partner = 1 - me / 2;
        let at = u32::from_le_bytes(all[4 * partner as usize..][..4].try_into().unwrap());
        rma.lock(win, LockType::Exclusive, partner, Assert::NONE)
            .unwrap();
        let mut got = [0];
        rma.get(win, partner, at, &mut got).unwrap();
        rma.unlock(win, partner).unwrap();
        assert_eq!(got, [(me ^ 2) * 100]);
        assert_eq!(class(rma.get(win, 2, at, &mut got)), ErrorClass::Rank);
        half.barrier();
        rma.free(win).unwrap();
        rma.free_mem(memory).unwrap();
        half.free();
    });
}

#[test]
fn memory_attached_before_a_post_is_found_by_the_start_epoch() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let win = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        let memory = rma.alloc_mem(8).unwrap();
        store(&mut rma, memory, &[0, 0]);
        // Its address is known before it is attached.
        let at = addresses(&mut rma, memory)[0];
        let other = rma.comm().group().incl(&[1 - me]).unwrap();
        if me == 0 {
            // The target attaches late, then posts.
            std::thread::sleep(std::time::Duration::from_millis(50));
            rma.attach(win, memory).unwrap();
            rma.post(win, &other, Assert::NONE).unwrap();
            rma.wait(win).unwrap();
            assert_eq!(load(&mut rma, memory, 2), [0, 0xFEED]);
        } else {
            // The origin's put waits for the post, then finds the memory.
            rma.start(win, &other, Assert::NONE).unwrap();
            rma.put(win, 0, at + 4, &[0xFEED]).unwrap();
            rma.complete(win).unwrap();
        }
        rma.comm().barrier();
        rma.free(win).unwrap();
        rma.free_mem(memory).unwrap();
    });
}

#[test]
fn an_access_may_span_memories_adjacent_at_their_addresses_and_in_the_popshm() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let other = 1 - me;
        let win = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        // Two halves of one array, attached apart, as MPICH's tests do;
        // consecutive allocations lie one after the other in the POPSHM.
        // (Whole pages: allocations are rounded up to MEMORY_ALIGN.)
        let page = MEMORY_ALIGN;
        let words = page / 4;
        let (low, high) = (rma.alloc_mem(page).unwrap(), rma.alloc_mem(page).unwrap());
        // And two with a gap between them in the POPSHM.
        let apart = rma.alloc_mem(page).unwrap();
        let gap = rma.alloc_mem(page).unwrap();
        let beyond = rma.alloc_mem(page).unwrap();
        for (i, m) in [low, high, apart, beyond].into_iter().enumerate() {
            store(&mut rma, m, &values(me, i as u32, words, 0));
        }
        let at = |rank: u32| 0xC000_0000 + 0x10_0000 * rank;
        rma.attach_at(win, low, at(me)).unwrap();
        rma.attach_at(win, high, at(me) + page).unwrap();
        rma.attach_at(win, apart, at(me) + 4 * page).unwrap();
        rma.attach_at(win, beyond, at(me) + 5 * page).unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut got = [0u32; 8];
        rma.get(win, other, at(other) + page - 16, &mut got)
            .unwrap();
        assert_eq!(
            class(rma.get(win, other, at(other) + 5 * page - 16, &mut [0; 8])),
            ErrorClass::RmaRange,
            "adjacent addresses, a gap in the POPSHM"
        );
        assert_eq!(
            class(rma.get(win, other, at(other) + 2 * page - 16, &mut [0; 8])),
            ErrorClass::RmaRange,
            "past the second half: nothing attached there"
        );
        rma.fence(win, Assert::NONE).unwrap();
        assert_eq!(got[..4], values(other, 0, words, 0)[words as usize - 4..]);
        assert_eq!(got[4..], values(other, 1, words, 0)[..4]);
        // A put across the seam lands in both.
        rma.put(win, other, at(other) + page - 4, &[7, 8]).unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        assert_eq!(load(&mut rma, low, words as usize)[words as usize - 1], 7);
        assert_eq!(load(&mut rma, high, words as usize)[0], 8);
        for m in [low, high, apart, beyond] {
            rma.detach(win, m).unwrap();
        }
        rma.free(win).unwrap();
        for m in [low, high, apart, gap, beyond] {
            rma.free_mem(m).unwrap();
        }
    });
}

#[test]
fn memory_attached_at_chosen_addresses_is_reached_there() {
    for n in [1, 3] {
        Mock::run(n, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            let (left, right) = ((me + n - 1) % n, (me + 1) % n);
            let win = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
            let memory = rma.alloc_mem(64).unwrap();
            let other = rma.alloc_mem(32).unwrap();
            store(&mut rma, memory, &values(me, 1, 16, 0));
            store(&mut rma, other, &values(me, 2, 8, 0));
            // Far past the POPSHM, different on every rank, known to
            // every rank before the attach.
            let at = |rank: u32| 0xC000_0000 + 0x1000 * rank;
            rma.attach_at(win, memory, at(me)).unwrap();
            // The other memory stays at its offset.
            rma.attach(win, other).unwrap();
            let others = addresses(&mut rma, other);
            // Overlapping addresses are refused; the last byte is 2^32 - 1.
            let third = rma.alloc_mem(8).unwrap();
            assert_eq!(
                class(rma.attach_at(win, third, at(me) + 60)),
                ErrorClass::RmaAttach
            );
            assert!(rma.attach_at(win, third, u32::MAX - 3).is_err());
            rma.fence(win, Assert::NONE).unwrap();
            let data = values(me, 3, 4, 1);
            rma.put(win, right, at(right) + 8, &data).unwrap();
            let mut got = [0u32; 6];
            rma.get(win, left, at(left) + 40, &mut got).unwrap();
            let mut second = [0u32; 2];
            rma.get(win, left, others[left as usize] + 24, &mut second)
                .unwrap();
            // Across the end of the memory at its address: refused.
            assert_eq!(
                class(rma.get(win, left, at(left) + 60, &mut [0, 0])),
                ErrorClass::RmaRange
            );
            rma.fence(win, Assert::NONE).unwrap();
            assert_eq!(&got[..], &values(left, 1, 16, 0)[10..]);
            assert_eq!(&second[..], &values(left, 2, 8, 0)[6..]);
            let mut mine = values(me, 1, 16, 0);
            mine[2..6].copy_from_slice(&values(left, 3, 4, 1));
            assert_eq!(load(&mut rma, memory, 16), mine);
            rma.detach(win, memory).unwrap();
            rma.fence(win, Assert::NONE).unwrap();
            // Detached: the address reaches nothing.
            assert_eq!(
                class(rma.get(win, left, at(left), &mut [0])),
                ErrorClass::RmaRange
            );
            rma.fence(win, Assert::NOSUCCEED).unwrap();
            rma.detach(win, other).unwrap();
            rma.free(win).unwrap();
            for m in [memory, other, third] {
                rma.free_mem(m).unwrap();
            }
        });
    }
}
