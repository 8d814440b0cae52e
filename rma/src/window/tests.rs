// SPDX-License-Identifier: MIT OR Apache-2.0
//! Windows, put/get, fence and PSCW on the mock, with every transferred
//! element checked, and every misuse error (PSCW between neighbours with
//! every memory type runs on both layers, in `one_sided/tests.rs`).

use std::vec::Vec;

use chip::{EntryRange, MemoryType};

use super::*;
use crate::comm::Group;
use crate::datatype::Vector;
use crate::epoch::Assert;
use crate::hal::SharedDram;
use crate::hal::mock::Mock;
use crate::{Coherence, ErrorClass};

fn rma(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// The value rank `owner` holds at `index` of a window in round `round`.
fn value(owner: u32, index: u32, round: u32) -> u32 {
    (owner << 24 | index << 4 | round).wrapping_mul(2_654_435_761)
}

#[test]
fn fence_epochs_move_data_between_all_ranks() {
    for n in [1, 2, 3, 8] {
        Mock::run(n, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            // Each rank exposes n slots of 16 elements; sizes differ per rank.
            let len = 16 * n + me;
            let win = rma.allocate::<u32>(len, WindowOptions::new()).unwrap();
            assert_eq!(rma.size_of(win, me).unwrap(), len * 4);
            for round in 0..3 {
                rma.fence(win, Assert::NONE).unwrap();
                for target in 0..n {
                    let data: Vec<u32> = (0..16).map(|i| value(me, i, round)).collect();
                    rma.put(win, target, me * 16, &data).unwrap();
                }
                rma.fence(win, Assert::NONE).unwrap();
                for origin in 0..n {
                    let mut got = [0u32; 16];
                    rma.local_read(win, origin * 16, &mut got).unwrap();
                    for (i, &v) in got.iter().enumerate() {
                        assert_eq!(v, value(origin, i as u32, round), "put from {origin}");
                    }
                    // The same through get, from every target.
                    let target = (me + origin) % n;
                    rma.get(win, target, origin * 16, &mut got).unwrap();
                    for (i, &v) in got.iter().enumerate() {
                        assert_eq!(v, value(origin, i as u32, round), "get from {target}");
                    }
                }
            }
            rma.fence(win, Assert::NOSUCCEED).unwrap();
            let s = rma.stats(win).unwrap();
            assert_eq!(s.puts, 3 * u64::from(n));
            assert_eq!(s.gets, 3 * u64::from(n));
            assert_eq!(s.bytes_put, 3 * u64::from(n) * 64);
            assert_eq!(s.fences, 7);
            rma.free(win).unwrap();
            assert_eq!(rma.popshm_left(), rma.popshm().bytes(), "memory came back");
        });
    }
}

#[test]
fn fence_epochs_reach_every_rank_on_the_8x8_chip() {
    // 50 ranks on 17 tiles of four controllers, each window in two POPSHM
    // pages, mapped through its 40 free LUT entries (fewer than ranks:
    // mappings are evicted and made again).
    let chip = &chip::MESH8X8;
    let n = 50;
    Mock::run_on(chip, n, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        assert_eq!(rma.popshm().count, chip.address_map.popshm_pages);
        let win = rma.allocate::<u32>(16 * n, WindowOptions::new()).unwrap();
        rma.fence(win, Assert::NOPRECEDE).unwrap();
        for target in 0..n {
            let data: Vec<u32> = (0..16).map(|i| value(me, i, target)).collect();
            rma.put(win, target, me * 16, &data).unwrap();
        }
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        assert!(rma.lut_entries_in_use() <= chip.address_map.shareable.len() as usize);
        for origin in 0..n {
            let mut got = [0u32; 16];
            rma.local_read(win, origin * 16, &mut got).unwrap();
            for (i, &v) in got.iter().enumerate() {
                assert_eq!(v, value(origin, i as u32, me), "put from {origin}");
            }
        }
        rma.free(win).unwrap();
    });
}

#[test]
fn element_types_and_displacement_units() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let f = rma.allocate::<f64>(10, WindowOptions::new()).unwrap();
        let bytes = rma
            .allocate::<u8>(100, WindowOptions::new().disp_unit(10))
            .unwrap();
        assert_eq!(rma.disp_unit_of(f, other).unwrap(), 8);
        assert_eq!(rma.disp_unit_of(bytes, other).unwrap(), 10);
        rma.fence(f, Assert::NONE).unwrap();
        rma.fence(bytes, Assert::NONE).unwrap();
        rma.put(f, other, 3, &[1.5 + f64::from(me), -0.25]).unwrap();
        // Displacement 7 of unit 10: byte 70.
        rma.put(bytes, other, 7, &[me as u8 + 1, 0xEE, 0x11])
            .unwrap();
        rma.fence(f, Assert::NONE).unwrap();
        rma.fence(bytes, Assert::NONE).unwrap();
        let mut got = [0.0; 10];
        rma.local_read(f, 0, &mut got).unwrap();
        assert_eq!(got[3..5], [1.5 + f64::from(other), -0.25]);
        assert_eq!(got[5], 0.0, "untouched");
        let mut b = [0u8; 5];
        rma.local_read(bytes, 69, &mut b).unwrap();
        assert_eq!(b, [0, other as u8 + 1, 0xEE, 0x11, 0]);
        rma.fence(f, Assert::NOSUCCEED).unwrap();
        rma.fence(bytes, Assert::NOSUCCEED).unwrap();
        rma.free(bytes).unwrap();
        rma.free(f).unwrap();
    });
}

#[test]
fn strided_puts_and_gets_land_where_the_layouts_say() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let win = rma.allocate::<u16>(64, WindowOptions::new()).unwrap();
        let initial: Vec<u16> = (0..64).map(|i| 1000 + i).collect();
        rma.local_write(win, 0, &initial).unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        // A column of 4 blocks of 2, 8 apart, from a contiguous buffer.
        let data: Vec<u16> = (0..8).map(|i| (me as u16 + 1) * 100 + i).collect();
        rma.put_vector(
            win,
            other,
            1,
            &data,
            Vector::contiguous(8),
            Vector::new(4, 2, 8),
        )
        .unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut all = [0u16; 64];
        rma.local_read(win, 0, &mut all).unwrap();
        let mut expected = initial.clone();
        for k in 0..4 {
            for j in 0..2 {
                expected[1 + 8 * k + j] = (other as u16 + 1) * 100 + (2 * k + j) as u16;
            }
        }
        assert_eq!(&all[..], &expected[..]);
        // Get the same column back, into every third element of a buffer.
        let mut buf = [0u16; 24];
        rma.get_vector(
            win,
            other,
            1,
            &mut buf,
            Vector::new(8, 1, 3),
            Vector::new(4, 2, 8),
        )
        .unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        for (i, &got) in buf.iter().enumerate() {
            let want = if i % 3 == 0 {
                (me as u16 + 1) * 100 + (i / 3) as u16
            } else {
                0
            };
            assert_eq!(got, want, "element {i}");
        }
        rma.free(win).unwrap();
    });
}

#[test]
fn pscw_with_many_origins_self_and_subgroups() {
    Mock::run(5, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let win = rma.allocate::<u32>(5, WindowOptions::new()).unwrap();
        let world = rma.comm().group();
        // Rank 0 is the target of everyone (itself included); odd ranks
        // also target rank 4 in a second window epoch.
        for round in 0..3 {
            if me == 0 {
                rma.post(win, &world, Assert::NONE).unwrap();
            }
            rma.start(win, &world.incl(&[0]).unwrap(), Assert::NOCHECK)
                .unwrap();
            rma.put(win, 0, me, &[value(me, 0, round)]).unwrap();
            rma.complete(win).unwrap();
            if me == 0 {
                rma.wait(win).unwrap();
                let mut got = [0; 5];
                rma.local_read(win, 0, &mut got).unwrap();
                for (o, &v) in got.iter().enumerate() {
                    assert_eq!(v, value(o as u32, 0, round));
                }
            }
            let odd = world.incl(&[1, 3]).unwrap();
            if me == 4 {
                rma.post(win, &odd, Assert::NOSTORE).unwrap();
                while !rma.test(win).unwrap() {
                    std::thread::yield_now();
                }
                let mut got = [0; 2];
                rma.local_read(win, 1, &mut got).unwrap();
                assert_eq!(got, [value(1, 1, round), 0]);
                rma.local_read(win, 3, &mut got[..1]).unwrap();
                assert_eq!(got[0], value(3, 1, round));
            } else if me % 2 == 1 {
                rma.start(win, &world.incl(&[4]).unwrap(), Assert::NONE)
                    .unwrap();
                rma.put(win, 4, me, &[value(me, 1, round)]).unwrap();
                rma.complete(win).unwrap();
            }
            rma.comm().barrier();
        }
        rma.free(win).unwrap();
    });
}

#[test]
fn a_post_for_a_later_epoch_waits_for_it() {
    // Rank 1 posts for the second epoch of rank 0 before rank 0's first
    // epoch (with rank 2) is over: rank 0's first complete must not take
    // it, and each target must see exactly its own epoch's data.
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let win = rma.allocate::<u32>(1, WindowOptions::new()).unwrap();
        let world = rma.comm().group();
        let origin = world.incl(&[0]).unwrap();
        for round in 0..20 {
            match me {
                0 => {
                    for target in [2, 1] {
                        rma.start(win, &world.incl(&[target]).unwrap(), Assert::NONE)
                            .unwrap();
                        rma.put(win, target, 0, &[value(target, 0, round)]).unwrap();
                        rma.complete(win).unwrap();
                    }
                }
                _ => {
                    rma.post(win, &origin, Assert::NONE).unwrap();
                    rma.wait(win).unwrap();
                    let mut got = [0];
                    rma.local_read(win, 0, &mut got).unwrap();
                    assert_eq!(got[0], value(me, 0, round), "round {round}");
                }
            }
        }
        rma.comm().barrier();
        rma.free(win).unwrap();
    });
}

#[test]
fn memory_is_read_and_written_outside_its_windows() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank() as u8, 1 - rma.rank());
        let memory = rma.alloc_mem(5000).unwrap();
        // Stores before the window: the window finds them.
        rma.memory_write(memory, 4094, &[me + 1, me + 2, me + 3])
            .unwrap();
        let options = WindowOptions::new().memory_type(MemoryType::MpbtWb);
        let win = rma.create::<u8>(memory, options).unwrap();
        let mut got = [0; 3];
        rma.local_read(win, 4094, &mut got).unwrap();
        assert_eq!(got, [me + 1, me + 2, me + 3]);
        // While a window uses it, the window's calls reach it.
        assert_eq!(
            rma.memory_read(memory, 0, &mut got),
            Err(RmaError::MemoryInUse {
                memory: memory.id(),
                window: win.id()
            })
        );
        rma.fence(win, Assert::NONE).unwrap();
        rma.put(win, other, 10, &[40 + me; 4]).unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(win).unwrap();
        // After the window is freed the memory holds what was put (MPI
        // lets the program read it).
        let mut after = [0; 6];
        rma.memory_read(memory, 9, &mut after).unwrap();
        let theirs = 40 + other as u8;
        assert_eq!(after, [0, theirs, theirs, theirs, theirs, 0]);
        let past = rma.memory_read(memory, 4998, &mut after).unwrap_err();
        assert_eq!(past.class(), ErrorClass::RmaRange);
        assert_eq!(
            std::string::ToString::to_string(&past),
            std::format!(
                "MPI_ERR_RMA_RANGE: memory_read: bytes 4998..5004 of memory {} of 5000 bytes",
                memory.id()
            )
        );
        rma.free_mem(memory).unwrap();
        assert_eq!(
            rma.memory_write(memory, 0, &[1]),
            Err(RmaError::UnknownMemory {
                memory: memory.id()
            })
        );
    });
}

#[test]
fn windows_on_alloc_mem_and_memory_reuse() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let other = 1 - rma.rank();
        let a = rma.alloc_mem(100).unwrap();
        let b = rma.alloc_mem(5000).unwrap();
        assert_eq!(rma.popshm_left(), rma.popshm().bytes() - 3 * 4096);
        let options = WindowOptions::new().memory_type(MemoryType::MpbtWb);
        let win = rma.create::<u8>(b, options).unwrap();
        assert_eq!(rma.options(win).unwrap(), options);
        assert_eq!(rma.size_of(win, other).unwrap(), 5000);
        // A second window over the same memory: they overlap, as MPI allows.
        let view = rma.create::<u32>(b, WindowOptions::new()).unwrap();
        assert_eq!(
            rma.attributes(view).unwrap().offset,
            rma.attributes(win).unwrap().offset
        );
        // Memory in use cannot be freed, until every window over it is.
        assert_eq!(
            rma.free_mem(b),
            Err(RmaError::MemoryInUse {
                memory: b.id(),
                window: view.id()
            })
        );
        rma.free(view).unwrap();
        assert_eq!(
            rma.free_mem(b),
            Err(RmaError::MemoryInUse {
                memory: b.id(),
                window: win.id()
            })
        );
        rma.fence(win, Assert::NONE).unwrap();
        rma.put(win, other, 4990, &[7; 10]).unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let mut got = [0; 11];
        rma.local_read(win, 4989, &mut got).unwrap();
        assert_eq!(got, [0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]);
        rma.free(win).unwrap();
        // a lies below b: freeing a alone gives nothing back, then both do.
        rma.free_mem(a).unwrap();
        assert_eq!(rma.popshm_left(), rma.popshm().bytes() - 3 * 4096);
        rma.free_mem(b).unwrap();
        assert_eq!(rma.popshm_left(), rma.popshm().bytes());
        assert_eq!(
            rma.free_mem(b),
            Err(RmaError::UnknownMemory { memory: b.id() })
        );
        let e = rma.create::<u8>(a, WindowOptions::new()).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Base);
    });
}

#[test]
fn accesses_across_a_16_mib_page_and_lut_eviction() {
    Mock::run(4, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        // Two LUT entries for three targets' windows and the own one.
        rma.set_lut_entries(EntryRange::new(150, 151)).unwrap();
        let big = LUT_PAGE_SIZE + 128;
        let win = rma.allocate::<u8>(big, WindowOptions::new()).unwrap();
        let data = |rank: u32, round: u8| -> Vec<u8> {
            (0..40).map(|i| i ^ (rank as u8 * 50) ^ round).collect()
        };
        // 40 bytes per rank from 16 MiB - 70: rank 1's cross the page end.
        let disp = |rank: u32| LUT_PAGE_SIZE - 70 + 40 * rank;
        rma.fence(win, Assert::NONE).unwrap();
        for round in 0..3u8 {
            for target in 0..4 {
                rma.put(win, target, disp(me), &data(me, round)).unwrap();
                let mut back = [0u8; 40];
                rma.get(win, target, disp(me), &mut back).unwrap();
                assert_eq!(&back[..], &data(me, round)[..], "own bytes at {target}");
                assert!(rma.lut_entries_in_use() <= 2);
            }
            rma.fence(win, Assert::NONE).unwrap();
            for origin in 0..4 {
                let mut got = [0u8; 40];
                rma.local_read(win, disp(origin), &mut got).unwrap();
                assert_eq!(&got[..], &data(origin, round)[..], "from {origin}");
            }
            rma.fence(win, Assert::NONE).unwrap();
        }
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let s = rma.stats(win).unwrap();
        assert!(s.evictions > 0 && s.mappings > 2, "{s:?}");
        rma.free(win).unwrap();
        assert_eq!(
            rma.set_lut_entries(EntryRange::new(120, 140))
                .unwrap_err()
                .class(),
            ErrorClass::Arg
        );
    });
}

#[test]
fn a_pinned_own_part_stays_mapped_while_others_are_evicted() {
    Mock::run(4, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        // Two LUT entries: one pinned for the own part, one for the rest.
        rma.set_lut_entries(EntryRange::new(150, 151)).unwrap();
        let win = rma.allocate::<u32>(64, WindowOptions::new()).unwrap();
        let pinned = rma.pin_part(win, me).unwrap();
        assert_eq!(pinned.len, 256);
        assert!((150..=151).contains(&pinned.slot));
        assert_eq!(
            rma.pin_part(win, me).unwrap(),
            pinned,
            "a second call, the same mapping"
        );
        rma.fence(win, Assert::NONE).unwrap();
        for target in (0..4).filter(|&t| t != me) {
            rma.put(win, target, me, &[value(me, target, 0)]).unwrap();
        }
        rma.fence(win, Assert::NONE).unwrap();
        assert_eq!(rma.pin_part(win, me).unwrap(), pinned, "never evicted");
        let mut got = [0u32; 4];
        rma.local_read(win, 0, &mut got).unwrap();
        for origin in (0..4).filter(|&o| o != me) {
            assert_eq!(got[origin as usize], value(origin, me, 0), "from {origin}");
        }
        assert!(rma.stats(win).unwrap().evictions > 0);
        // The rest of page 0, then a part in page 1: with the other entry
        // pinned for it, nothing is left to evict.
        let filler = rma
            .allocate::<u8>(LUT_PAGE_SIZE - 4096, WindowOptions::new())
            .unwrap();
        let other = rma.allocate::<u8>(64, WindowOptions::new()).unwrap();
        let second = rma.pin_part(other, me).unwrap();
        assert_ne!(second.slot, pinned.slot);
        rma.fence(other, Assert::NONE).unwrap();
        let err = rma.put(other, (me + 1) % 4, 0, &[1u8]).unwrap_err();
        assert_eq!(err.class(), ErrorClass::NoMem, "{err}");
        rma.fence(other, Assert::NOSUCCEED).unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(other).unwrap();
        rma.free(filler).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn every_part_of_a_shared_window_can_be_pinned_and_only_there() {
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let shared = rma.allocate_shared::<u32>(4, WindowOptions::new()).unwrap();
        let parts: Vec<_> = (0..3).map(|r| rma.pin_part(shared, r).unwrap()).collect();
        for (r, part) in parts.iter().enumerate() {
            assert_eq!(part.len, 16);
            assert_eq!(
                rma.pin_part(shared, r as u32).unwrap(),
                *part,
                "the same mapping again"
            );
        }
        assert_eq!(
            rma.pin_part(shared, 3).unwrap_err().class(),
            ErrorClass::Rank
        );
        let plain = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        rma.pin_part(plain, me).unwrap();
        let err = rma.pin_part(plain, (me + 1) % 3).unwrap_err();
        assert_eq!(err.class(), ErrorClass::RmaFlavor, "{err}");
        rma.free(plain).unwrap();
        rma.free(shared).unwrap();
    });
}

#[test]
fn pinned_memory_is_the_window_made_on_it_and_is_let_go_when_freed() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        // One LUT entry: pinned, it leaves none for another target.
        rma.set_lut_entries(EntryRange::new(150, 150)).unwrap();
        let memory = rma.alloc_mem(64).unwrap();
        let pinned = rma.pin_memory(memory).unwrap();
        assert_eq!((pinned.slot, pinned.len), (150, 64));
        assert_eq!(
            rma.pin_memory(memory).unwrap(),
            pinned,
            "the same mapping again"
        );
        let win = rma.create::<u8>(memory, WindowOptions::new()).unwrap();
        assert_eq!(
            rma.pin_part(win, me).unwrap(),
            pinned,
            "the window's own part, through it"
        );
        rma.fence(win, Assert::NONE).unwrap();
        let err = rma.put(win, other, 0, &[1u8]).unwrap_err();
        assert_eq!(err.class(), ErrorClass::NoMem, "{err}");
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(win).unwrap();
        rma.free_mem(memory).unwrap();
        // Freed: the entry maps the other core's part now.
        let win = rma.allocate::<u8>(64, WindowOptions::new()).unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        rma.put(win, other, me, &[7u8]).unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut got = [0u8];
        rma.local_read(win, other, &mut got).unwrap();
        assert_eq!(got[0], 7);
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn a_part_across_a_16_mib_page_cannot_be_pinned() {
    Mock::run(1, |hal| {
        let mut rma = rma(hal);
        let first = rma
            .allocate::<u8>(LUT_PAGE_SIZE - 4096, WindowOptions::new())
            .unwrap();
        let across = rma.allocate::<u8>(8192, WindowOptions::new()).unwrap();
        assert!(rma.pin_part(first, 0).is_ok());
        let err = rma.pin_part(across, 0).unwrap_err();
        assert_eq!(err.class(), ErrorClass::NoMem, "{err}");
        assert!(err.to_string().contains("16 MiB"), "{err}");
        rma.free(across).unwrap();
        rma.free(first).unwrap();
    });
}

#[test]
fn coherence_actions_follow_the_memory_type_and_assertions() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let world = rma.comm().group();
        let peer = world.incl(&[other]).unwrap();
        let counts = |rma: &Rma<'_, Mock>, w| {
            let s = rma.stats(w).unwrap();
            (s.write_backs, s.flushes, s.invalidations)
        };
        let wt = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        // post: flush; start: flush + CL1INVMB; complete: flush; wait: CL1INVMB.
        rma.post(wt, &peer, Assert::NONE).unwrap();
        assert_eq!(counts(&rma, wt), (0, 1, 0));
        rma.start(wt, &peer, Assert::NONE).unwrap();
        assert_eq!(counts(&rma, wt), (0, 2, 1));
        rma.put(wt, other, 0, &[me]).unwrap();
        rma.complete(wt).unwrap();
        assert_eq!(counts(&rma, wt), (0, 3, 1));
        // wait flushes before CL1INVMB, so a read after it cannot miss a
        // store still in the write-combine buffer.
        rma.wait(wt).unwrap();
        assert_eq!(counts(&rma, wt), (0, 4, 2));
        // NOSTORE skips post's flush, NOPUT wait's invalidation.
        rma.post(wt, &peer, Assert::NOSTORE | Assert::NOPUT)
            .unwrap();
        rma.start(wt, &peer, Assert::NONE).unwrap();
        rma.complete(wt).unwrap();
        rma.wait(wt).unwrap();
        assert_eq!(counts(&rma, wt), (0, 6, 3));
        // fence: flush, barrier, CL1INVMB; with assertions less.
        rma.fence(wt, Assert::NONE).unwrap();
        assert_eq!(counts(&rma, wt), (0, 7, 4));
        rma.fence(wt, Assert::NOSTORE | Assert::NOPUT).unwrap();
        assert_eq!(counts(&rma, wt), (0, 8, 5), "own puts and next epoch still");
        rma.fence(
            wt,
            Assert::NOSTORE | Assert::NOPRECEDE | Assert::NOPUT | Assert::NOSUCCEED,
        )
        .unwrap();
        assert_eq!(counts(&rma, wt), (0, 8, 5), "nothing at all");
        rma.free(wt).unwrap();

        // NCM needs nothing; MPBT-WB writes back; disabled does nothing.
        for (options, expected) in [
            (WindowOptions::new().memory_type(MemoryType::Ncm), (0, 0, 0)),
            (
                WindowOptions::new().memory_type(MemoryType::MpbtWb),
                (2, 2, 2),
            ),
            (
                WindowOptions::new().coherence(Coherence::Disabled),
                (0, 0, 0),
            ),
        ] {
            let w = rma.allocate::<u32>(4, options).unwrap();
            rma.fence(w, Assert::NONE).unwrap();
            rma.put(w, other, 1, &[me + 10]).unwrap();
            rma.fence(w, Assert::NOSUCCEED).unwrap();
            assert_eq!(counts(&rma, w), expected, "{options:?}");
            let mut got = [0];
            rma.local_read(w, 1, &mut got).unwrap();
            assert_eq!(got[0], other + 10, "the mock is coherent either way");
            rma.free(w).unwrap();
        }
    });
}

#[test]
fn every_misuse_is_refused_with_its_class() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let (me, other) = (rma.rank(), 1 - rma.rank());
        let world = rma.comm().group();
        let peer = world.incl(&[other]).unwrap();
        let win = rma.allocate::<u32>(8, WindowOptions::new()).unwrap();
        let class = |r: Result<(), RmaError>| r.unwrap_err().class();

        // Operations outside an epoch, and epoch calls out of order.
        let e = rma.put(win, other, 0, &[1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "MPI_ERR_RMA_SYNC: put on window 0: no access epoch is open (call fence or start)"
        );
        assert_eq!(class(rma.get(win, other, 0, &mut [0])), ErrorClass::RmaSync);
        assert_eq!(class(rma.complete(win)), ErrorClass::RmaSync);
        assert_eq!(class(rma.wait(win)), ErrorClass::RmaSync);
        assert_eq!(class(rma.test(win).map(drop)), ErrorClass::RmaSync);

        // Wrong assertions.
        let e = rma.fence(win, Assert::NOCHECK).unwrap_err();
        assert_eq!(
            e.to_string(),
            "MPI_ERR_ASSERT: fence does not accept MPI_MODE_NOCHECK"
        );
        assert_eq!(
            class(rma.post(win, &peer, Assert::NOSUCCEED)),
            ErrorClass::Assert
        );
        assert_eq!(
            class(rma.start(win, &peer, Assert::NOPUT)),
            ErrorClass::Assert
        );

        // Inside a start epoch.
        rma.post(win, &peer, Assert::NONE).unwrap();
        rma.start(win, &peer, Assert::NONE).unwrap();
        assert_eq!(
            class(rma.start(win, &peer, Assert::NONE)),
            ErrorClass::RmaSync
        );
        assert_eq!(
            class(rma.post(win, &peer, Assert::NONE)),
            ErrorClass::RmaSync
        );
        assert_eq!(class(rma.fence(win, Assert::NONE)), ErrorClass::RmaSync);
        assert_eq!(class(rma.free(win)), ErrorClass::RmaSync);
        let e = rma.put(win, me, 0, &[1]).unwrap_err();
        assert_eq!(
            e,
            RmaError::NotInGroup {
                call: "put",
                window: 0,
                rank: me,
                group: "start group"
            }
        );
        let e = rma.put(win, 2, 0, &[1]).unwrap_err();
        assert_eq!(
            e,
            RmaError::Rank {
                role: "put target",
                rank: 2,
                size: 2
            }
        );
        let e = rma.put(win, other, 7, &[1, 2]).unwrap_err();
        assert_eq!(
            e,
            RmaError::Range {
                call: "put",
                window: 0,
                target: other,
                offset: 28,
                len: 8,
                size: 32
            }
        );
        assert_eq!(e.class(), ErrorClass::RmaRange);
        assert_eq!(
            e.to_string(),
            std::format!(
                "MPI_ERR_RMA_RANGE: put on window 0: bytes 28..36 of rank {other}'s window of 32 bytes"
            )
        );
        assert_eq!(
            class(rma.get(win, other, 8, &mut [0])),
            ErrorClass::RmaRange
        );
        let e = rma
            .put_vector(
                win,
                other,
                0,
                &[1, 2, 3],
                Vector::contiguous(3),
                Vector::contiguous(2),
            )
            .unwrap_err();
        assert!(
            matches!(
                e,
                RmaError::BufferLength {
                    len: 2,
                    expected: 3,
                    ..
                }
            ),
            "{e}"
        );
        let e = rma
            .put_vector(
                win,
                other,
                0,
                &[1, 2],
                Vector::new(2, 1, 2),
                Vector::contiguous(2),
            )
            .unwrap_err();
        assert!(
            matches!(
                e,
                RmaError::BufferLength {
                    len: 2,
                    expected: 3,
                    ..
                }
            ),
            "{e}"
        );
        let e = rma
            .get_vector(
                win,
                other,
                0,
                &mut [0; 4],
                Vector::contiguous(4),
                Vector::new(2, 2, 1),
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "MPI_ERR_ARG: get target layout: blocks overlap (stride below blocklen)"
        );
        rma.put(win, other, 0, &[1]).unwrap();
        rma.complete(win).unwrap();
        // Inside a post epoch.
        assert_eq!(class(rma.fence(win, Assert::NONE)), ErrorClass::RmaSync);
        assert_eq!(
            class(rma.post(win, &peer, Assert::NONE)),
            ErrorClass::RmaSync
        );
        assert_eq!(class(rma.free(win)), ErrorClass::RmaSync);
        rma.wait(win).unwrap();

        // A fence epoch: NOPRECEDE after operations, start/free with operations.
        rma.fence(win, Assert::NONE).unwrap();
        rma.put(win, other, 0, &[1]).unwrap();
        assert_eq!(
            rma.fence(win, Assert::NOPRECEDE).unwrap_err(),
            RmaError::NoPrecedeViolated {
                window: 0,
                operations: 1
            }
        );
        assert_eq!(
            class(rma.start(win, &peer, Assert::NONE)),
            ErrorClass::RmaSync
        );
        assert_eq!(class(rma.free(win)), ErrorClass::RmaSync);
        assert_eq!(class(rma.wait(win)), ErrorClass::RmaSync);
        assert_eq!(class(rma.complete(win)), ErrorClass::RmaSync);
        rma.fence(win, Assert::NONE).unwrap();
        // A fence without operations may be followed by start and post.
        rma.post(win, &peer, Assert::NONE).unwrap();
        rma.start(win, &peer, Assert::NONE).unwrap();
        rma.complete(win).unwrap();
        rma.wait(win).unwrap();

        // Groups of another run, local access out of range.
        let foreign = Group::world(3, 0).unwrap();
        assert_eq!(
            class(rma.post(win, &foreign, Assert::NONE)),
            ErrorClass::Group
        );
        assert_eq!(
            class(rma.start(win, &foreign, Assert::NONE)),
            ErrorClass::Group
        );
        assert_eq!(
            class(rma.local_write(win, 7, &[1, 2])),
            ErrorClass::RmaRange
        );
        assert_eq!(class(rma.local_read(win, 9, &mut [])), ErrorClass::RmaRange);
        assert_eq!(rma.size_of(win, 2).unwrap_err().class(), ErrorClass::Rank);

        // A freed window.
        rma.free(win).unwrap();
        let e = rma.put(win, other, 0, &[1]).unwrap_err();
        assert_eq!(e, RmaError::UnknownWindow { window: 0 });
        assert_eq!(
            e.to_string(),
            "MPI_ERR_WIN: window 0 does not exist (freed or never created)"
        );
        assert_eq!(class(rma.fence(win, Assert::NONE)), ErrorClass::Win);
        assert_eq!(class(rma.free(win)), ErrorClass::Win);
        assert_eq!(rma.stats(win).unwrap_err().class(), ErrorClass::Win);

        // Too much memory.
        let too_much = (rma.popshm().bytes() / 4) as u32 + 1;
        let e = rma
            .allocate::<u32>(too_much, WindowOptions::new())
            .unwrap_err();
        assert_eq!(e.class(), ErrorClass::NoMem);
        assert_eq!(class(rma.alloc_mem(u32::MAX).map(drop)), ErrorClass::NoMem);
    });
}

#[test]
fn a_failed_creation_fails_everywhere_and_leaves_nothing() {
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let left = rma.popshm_left();
        let unit = if me == 1 { 0 } else { 4 };
        let e = rma
            .allocate::<u32>(4, WindowOptions::new().disp_unit(unit))
            .unwrap_err();
        if me == 1 {
            assert_eq!(
                e,
                RmaError::DispUnit {
                    disp_unit: 0,
                    allowed: "it must be at least 1"
                }
            );
            assert_eq!(e.class(), ErrorClass::Disp);
        } else {
            assert_eq!(
                e,
                RmaError::PeerFailed {
                    call: "allocate",
                    rank: 1
                }
            );
        }
        assert_eq!(rma.popshm_left(), left);
        // The next window works, and reuses the record.
        let win = rma.allocate::<u32>(4, WindowOptions::new()).unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        rma.put(win, (me + 1) % 3, 0, &[me]).unwrap();
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        let mut got = [0];
        rma.local_read(win, 0, &mut got).unwrap();
        assert_eq!(got[0], (me + 2) % 3);
        rma.free(win).unwrap();
    });
}

#[test]
fn a_mapping_the_platform_refuses_is_reported() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let other = 1 - rma.rank();
        // The program holds entry 160 itself; rma may use only that one.
        let page = crate::hal::DramPages {
            count: 1,
            ..rma.popshm()
        };
        crate::hal::SharedDram::map_shared(hal, 160, page, MemoryType::Ncm).unwrap();
        rma.set_lut_entries(EntryRange::new(160, 160)).unwrap();
        let win = rma.allocate::<u32>(1, WindowOptions::new()).unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let e = rma.put(win, other, 0, &[1]).unwrap_err();
        assert_eq!(e, RmaError::Map(crate::hal::MapError::InUse { slot: 160 }));
        assert_eq!(e.class(), ErrorClass::Intern);
        assert_eq!(
            e.to_string(),
            "MPI_ERR_INTERN: the platform refused a mapping: LUT entry 160 already holds a mapping"
        );
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn all_48_cores_fence_and_pscw() {
    Mock::run(48, |hal| {
        let mut rma = rma(hal);
        let (me, n) = (rma.rank(), rma.size());
        let win = rma.allocate::<u32>(n, WindowOptions::new()).unwrap();
        rma.fence(win, Assert::NOPRECEDE).unwrap();
        rma.put(win, (me + 7) % n, me, &[value(me, 0, 0)]).unwrap();
        rma.fence(win, Assert::NONE).unwrap();
        let mut got = [0];
        let from = (me + n - 7) % n;
        rma.local_read(win, from, &mut got).unwrap();
        assert_eq!(got[0], value(from, 0, 0));
        rma.fence(win, Assert::NOSUCCEED).unwrap();
        // Everyone posts to everyone and puts into everyone.
        let world = rma.comm().group();
        rma.post(win, &world, Assert::NONE).unwrap();
        rma.start(win, &world, Assert::NONE).unwrap();
        for t in 0..n {
            rma.put(win, t, me, &[value(me, t, 1)]).unwrap();
        }
        rma.complete(win).unwrap();
        rma.wait(win).unwrap();
        let mut all = std::vec![0; n as usize];
        rma.local_read(win, 0, &mut all).unwrap();
        for (o, &v) in all.iter().enumerate() {
            assert_eq!(v, value(o as u32, me, 1));
        }
        rma.free(win).unwrap();
    });
}

#[test]
fn centralized_windows_keep_every_record_at_controller_0_and_work() {
    use crate::epoch::LockType;
    use crate::hal::Topology;
    use crate::passive::LockScheme;
    use database::{Database, controller_of};

    const ROUNDS: u32 = 5;
    for scheme in [LockScheme::GbhBackoff, LockScheme::McsWp] {
        // Cores 0-15 hang off controllers 0 and 1.
        Mock::run(16, |hal| {
            let mut rma = rma(hal);
            let (me, n) = (rma.rank(), rma.size());
            let chip = hal.chip();
            let options = WindowOptions::new().lock_scheme(scheme);
            let central = rma
                .allocate::<u32>(4, options.database(Database::Centralized))
                .unwrap();
            let spread = rma.allocate::<u32>(4, options).unwrap();
            assert_eq!(rma.options(spread).unwrap().database, Database::Distributed);
            for rank in 0..n {
                let own = controller_of(chip, hal.participant(rank));
                assert_eq!(rma.record(central.id(), rank).controller, 0);
                assert_eq!(rma.record(spread.id(), rank).controller, own);
            }
            assert!((0..n).any(|r| rma.record(spread.id(), r).controller != 0));

            // PSCW around the ring on the centralized window.
            let (left, right) = ((me + n - 1) % n, (me + 1) % n);
            let world = rma.comm().group();
            let from_left = world.incl(&[left]).unwrap();
            let to_right = world.incl(&[right]).unwrap();
            for round in 0..ROUNDS {
                rma.post(central, &from_left, Assert::NONE).unwrap();
                rma.start(central, &to_right, Assert::NONE).unwrap();
                rma.put(central, right, 0, &[value(me, 0, round)]).unwrap();
                rma.complete(central).unwrap();
                rma.wait(central).unwrap();
                let mut got = [0];
                rma.local_read(central, 0, &mut got).unwrap();
                assert_eq!(got[0], value(left, 0, round), "{scheme:?} round {round}");
            }
            rma.comm().barrier();

            // A counter at ranks 0 and n - 1 under exclusive locks.
            for _ in 0..ROUNDS {
                for target in [0, n - 1] {
                    rma.lock(central, LockType::Exclusive, target, Assert::NONE)
                        .unwrap();
                    let mut c = [0u32];
                    rma.get(central, target, 1, &mut c).unwrap();
                    rma.put(central, target, 1, &[c[0] + 1]).unwrap();
                    rma.unlock(central, target).unwrap();
                }
            }
            rma.comm().barrier();
            for target in [0, n - 1] {
                rma.lock(central, LockType::Shared, target, Assert::NONE)
                    .unwrap();
                let mut c = [0u32];
                rma.get(central, target, 1, &mut c).unwrap();
                assert_eq!(c[0], n * ROUNDS, "{scheme:?}, target {target}");
                rma.unlock(central, target).unwrap();
            }
            rma.comm().barrier();

            // Freed records come back only where the new window's
            // placement wants them.
            let freed = [rma.record(central.id(), me), rma.record(spread.id(), me)];
            rma.free(central).unwrap();
            rma.free(spread).unwrap();
            let again = rma
                .allocate::<u32>(4, options.database(Database::Centralized))
                .unwrap();
            let record = rma.record(again.id(), me);
            assert_eq!(record.controller, 0);
            if controller_of(chip, hal.core()) != 0 {
                assert_eq!(record, freed[0], "the freed centralized record reused");
            }
            let spread_again = rma.allocate::<u32>(4, options).unwrap();
            let record = rma.record(spread_again.id(), me);
            assert_eq!(record.controller, controller_of(chip, hal.core()));
            assert!(freed.contains(&record), "a freed record reused");
            for rank in 0..n {
                assert_eq!(rma.record(again.id(), rank).controller, 0);
            }
            rma.free(again).unwrap();
            rma.free(spread_again).unwrap();
        });
    }
}

#[test]
fn attributes_say_size_unit_flavor_model_and_group() {
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let me = rma.rank();
        let allocated = rma
            .allocate::<u32>(4 + me, WindowOptions::new().disp_unit(2))
            .unwrap();
        let memory = rma.alloc_mem(64).unwrap();
        let created = rma
            .create::<u64>(memory, WindowOptions::new().memory_type(MemoryType::Ncm))
            .unwrap();
        let a = rma.attributes(allocated).unwrap();
        assert_eq!((a.size, a.disp_unit), (4 * (4 + me), 2));
        assert_eq!(
            (a.flavor, a.model),
            (Flavor::Allocate, MemoryModel::Separate)
        );
        let c = rma.attributes(created).unwrap();
        assert_eq!((c.size, c.disp_unit), (64, 8));
        assert_eq!((c.flavor, c.model), (Flavor::Create, MemoryModel::Unified));
        assert_ne!(a.offset, c.offset);
        let group = rma.group(allocated).unwrap();
        assert_eq!((group.size(), group.rank()), (3, Some(me)));
        assert_eq!(group.members(), &[0, 1, 2]);
        rma.free(created).unwrap();
        rma.free(allocated).unwrap();
        let gone = rma.attributes(allocated).unwrap_err();
        assert_eq!(gone.class(), ErrorClass::Win);
        rma.free_mem(memory).unwrap();
    });
}

#[test]
fn the_accumulate_info_keys_are_kept_and_change_no_result() {
    assert_eq!(AccumulateOrdering::default().value(), "rar,raw,war,waw");
    assert_eq!(AccumulateOrdering::NONE.value(), "none");
    assert_eq!(
        (AccumulateOrdering::RAW | AccumulateOrdering::WAW).value(),
        "raw,waw"
    );
    assert_eq!(AccumulateOps::default().value(), "same_op_no_op");
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let n = rma.size();
        let options = WindowOptions::new()
            .accumulate_ordering(AccumulateOrdering::NONE)
            .accumulate_ops(AccumulateOps::SameOp);
        let win = rma.allocate::<u64>(1, options).unwrap();
        assert_eq!(rma.options(win).unwrap(), options);
        let plain = rma.allocate::<u64>(1, WindowOptions::new()).unwrap();
        let kept = rma.options(plain).unwrap();
        assert_eq!(
            (kept.accumulate_ordering, kept.accumulate_ops),
            (AccumulateOrdering::ALL, AccumulateOps::SameOpNoOp)
        );
        // Without ordering promised, every core's sums still all land.
        rma.lock_all(win, Assert::NONE).unwrap();
        for _ in 0..10 {
            rma.accumulate(win, 0, 0, &[1], crate::AccumulateOp::Sum)
                .unwrap();
        }
        rma.unlock_all(win).unwrap();
        rma.comm().barrier();
        let mut total = [0];
        rma.lock_all(win, Assert::NONE).unwrap();
        rma.get(win, 0, 0, &mut total).unwrap();
        rma.unlock_all(win).unwrap();
        assert_eq!(total, [10 * u64::from(n)]);
        rma.comm().barrier();
        rma.free(plain).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn a_window_made_on_a_shared_part_puts_where_the_shared_window_loads() {
    for noncontig in [false, true] {
        a_window_on_a_shared_part(noncontig);
    }
}

/// [`a_window_made_on_a_shared_part_puts_where_the_shared_window_loads`]
/// with the parts contiguous in rank 0's POPSHM or each in its own.
fn a_window_on_a_shared_part(noncontig: bool) {
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let (me, n) = (rma.rank(), rma.size());
        let options = WindowOptions::new().alloc_shared_noncontig(noncontig);
        let shared = rma.allocate_shared::<u32>(2, options).unwrap();
        let memory = rma.window_memory(shared).unwrap().expect("a part");
        assert_eq!(memory.len(), 8);
        let second = rma.create::<u32>(memory, WindowOptions::new()).unwrap();
        // Rank 0 puts into rank 1's part through the second window, and
        // rank 2 loads it through the shared one.
        rma.lock_all(shared, Assert::NOCHECK).unwrap();
        if me == 0 {
            rma.lock(second, crate::epoch::LockType::Exclusive, 1, Assert::NONE)
                .unwrap();
            rma.put(second, 1, 1, &[0xfeed]).unwrap();
            rma.unlock(second, 1).unwrap();
        }
        rma.comm().barrier();
        rma.sync(shared).unwrap();
        let part = rma.shared_query(shared, 1).unwrap();
        let mut got = [0; 2];
        rma.shared_load(shared, part, 0, &mut got).unwrap();
        assert_eq!(got, [0, 0xfeed], "rank {me} of {n}");
        rma.unlock_all(shared).unwrap();
        // The shared window goes first, as MPICH's tests free them: its
        // memory stays the second window's until that one goes too.
        let left = rma.popshm_left();
        rma.free(shared).unwrap();
        assert_eq!(
            rma.popshm_left(),
            left,
            "still spanned by the second window"
        );
        rma.lock(second, crate::epoch::LockType::Shared, 1, Assert::NONE)
            .unwrap();
        let mut again = [0; 2];
        rma.get(second, 1, 0, &mut again).unwrap();
        rma.unlock(second, 1).unwrap();
        assert_eq!(again, [0, 0xfeed]);
        rma.free(second).unwrap();
        // Only rank 0's POPSHM holds a contiguous window.
        if noncontig || me == 0 {
            assert!(
                rma.popshm_left() > left,
                "freed with the last window over it"
            );
        } else {
            assert_eq!(rma.popshm_left(), left, "none of this rank's POPSHM");
        }
        let dynamic = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        assert_eq!(rma.window_memory(dynamic).unwrap(), None);
        rma.free(dynamic).unwrap();
    });
}

/// Rank `r`'s part of the window in
/// [`a_shared_windows_parts_follow_each_other_in_rank_0s_memory_unless_noncontig`]:
/// parts of differing sizes, one empty.
const PART_LEN: [u32; 4] = [3, 1, 0, 2];

#[test]
fn a_shared_windows_parts_follow_each_other_in_rank_0s_memory_unless_noncontig() {
    for noncontig in [false, true] {
        Mock::run(4, |hal| {
            let mut rma = rma(hal);
            let (me, n) = (rma.rank(), rma.size());
            let left = rma.popshm_left();
            let options = WindowOptions::new().alloc_shared_noncontig(noncontig);
            let win = rma
                .allocate_shared::<u32>(PART_LEN[me as usize], options)
                .unwrap();
            let taken = left - rma.popshm_left();
            let total: u32 = PART_LEN.iter().sum::<u32>() * 4;
            let want = match (noncontig, me, PART_LEN[me as usize]) {
                (false, 0, _) => u64::from(total.next_multiple_of(MEMORY_ALIGN)),
                (false, _, _) | (true, _, 0) => 0,
                (true, _, _) => u64::from(MEMORY_ALIGN),
            };
            assert_eq!(taken, want, "rank {me}'s POPSHM, noncontig {noncontig}");
            // Each rank fills its part, through its mapping, and syncs.
            let mine = rma.shared_query(win, me).unwrap();
            assert_eq!(mine.size, PART_LEN[me as usize] * 4);
            let data: Vec<u32> = (0..PART_LEN[me as usize])
                .map(|i| value(me, i, 0))
                .collect();
            rma.lock_all(win, Assert::NOCHECK).unwrap();
            rma.shared_store(win, mine, 0, &data).unwrap();
            rma.sync(win).unwrap();
            rma.comm().barrier();
            rma.sync(win).unwrap();
            let maps: Vec<LocalMapping> = (0..n).map(|r| rma.pin_part(win, r).unwrap()).collect();
            let every: Vec<u32> = (0..n)
                .flat_map(|r| (0..PART_LEN[r as usize]).map(move |i| value(r, i, 0)))
                .collect();
            if noncontig {
                // Each part in its own rank's POPSHM: a mapping of its own.
                assert_ne!(maps[0].slot, maps[1].slot);
                assert_ne!(maps[1].slot, maps[3].slot);
                assert_eq!(rma.contiguous_block(win).unwrap(), None);
            } else {
                assert_eq!(
                    rma.contiguous_block(win).unwrap(),
                    Some((maps[0].offset, total))
                );
                // One mapping: each part where the previous one ends, and
                // every rank's data read in one go from rank 0's start.
                for r in 1..n as usize {
                    assert_eq!(maps[r].slot, maps[0].slot, "rank {r}'s part");
                    assert_eq!(maps[r].offset, maps[r - 1].offset + maps[r - 1].len);
                }
                let mut bytes = std::vec![0u8; total as usize];
                hal.shared_read(maps[0].slot, maps[0].offset, &mut bytes);
                let got: Vec<u32> = bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                assert_eq!(got, every, "rank {me} reads the parts in a row");
            }
            // Whichever the placement, each part holds its rank's data.
            for r in 0..n {
                let part = rma.shared_query(win, r).unwrap();
                let mut got = std::vec![0; PART_LEN[r as usize] as usize];
                rma.shared_load(win, part, 0, &mut got).unwrap();
                let want: Vec<u32> = (0..PART_LEN[r as usize]).map(|i| value(r, i, 0)).collect();
                assert_eq!(got, want, "rank {me} loads rank {r}'s part");
            }
            rma.unlock_all(win).unwrap();
            rma.free(win).unwrap();
            assert_eq!(rma.popshm_left(), left, "freed with the window");
        });
    }
}

#[test]
fn a_shared_window_is_loaded_and_stored_directly_and_synced() {
    Mock::run(3, |hal| {
        let mut rma = rma(hal);
        let (me, n) = (rma.rank(), rma.size());
        let win = rma.allocate_shared::<u32>(4, WindowOptions::new()).unwrap();
        assert_eq!(rma.attributes(win).unwrap().flavor, Flavor::Shared);
        let right = rma.shared_query(win, (me + 1) % n).unwrap();
        assert_eq!((right.size, right.disp_unit), (16, 4));
        rma.lock_all(win, Assert::NOCHECK).unwrap();
        // Each stores into its right neighbour's part, then all sync.
        rma.shared_store(win, right, 1, &[100 + me]).unwrap();
        rma.sync(win).unwrap();
        rma.comm().barrier();
        rma.sync(win).unwrap();
        let mine = rma.shared_query(win, me).unwrap();
        let mut got = [0; 4];
        rma.shared_load(win, mine, 0, &mut got).unwrap();
        assert_eq!(got, [0, 100 + (me + n - 1) % n, 0, 0]);
        let past = rma.shared_load(win, right, 4, &mut got[..1]).unwrap_err();
        assert_eq!(past.class(), ErrorClass::RmaRange);
        rma.unlock_all(win).unwrap();
        // Other flavors have no shared parts.
        let plain = rma.allocate::<u32>(1, WindowOptions::new()).unwrap();
        let e = rma.shared_query(plain, 0).unwrap_err();
        assert_eq!(e.class(), ErrorClass::RmaFlavor);
        assert_eq!(
            e.to_string(),
            format!(
                "MPI_ERR_RMA_FLAVOR: shared_query on window {}: only a window made by \
                 allocate_shared allows it",
                plain.id()
            )
        );
        rma.comm().barrier();
        rma.free(plain).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn a_local_view_initialises_the_part_in_place_and_reads_what_others_put() {
    for ty in MemoryType::ALL {
        Mock::run(3, |hal| {
            let mut rma = rma(hal);
            let (me, n) = (rma.rank(), rma.size());
            let win = rma
                .allocate::<u32>(40, WindowOptions::new().memory_type(ty))
                .unwrap();
            // In place, outside any epoch: every element, then a few.
            let mut view = rma.local(win).unwrap();
            assert_eq!((view.len(), view.is_empty()), (40, false));
            view.fill(me * 1000).unwrap();
            view.set(3, 7).unwrap();
            assert_eq!(view.update(3, |v| v * 6).unwrap(), 42);
            assert_eq!(view.get(3).unwrap(), 42);
            assert_eq!(view.get(39).unwrap(), me * 1000);
            rma.fence(win, Assert::NONE).unwrap();
            // What the view stored is what the others get.
            let right = (me + 1) % n;
            let mut got = [0; 40];
            rma.get(win, right, 0, &mut got).unwrap();
            rma.fence(win, Assert::NONE).unwrap();
            for (i, &v) in got.iter().enumerate() {
                let want = if i == 3 { 42 } else { right * 1000 };
                assert_eq!(v, want, "{ty:?}: element {i} of rank {right}");
            }
            // What the others put shows through the view once the epoch
            // that exposed it ends.
            let left = (me + n - 1) % n;
            rma.put(win, right, 10, &[100 + me, 200 + me]).unwrap();
            rma.fence(win, Assert::NONE).unwrap();
            let mut view = rma.local(win).unwrap();
            let mut two = [0; 2];
            view.read(10, &mut two).unwrap();
            assert_eq!(two, [100 + left, 200 + left], "{ty:?}");
            let all = view.to_vec().unwrap();
            assert_eq!(all.len(), 40);
            assert_eq!(
                (all[3], all[10], all[11], all[12]),
                (42, 100 + left, 200 + left, me * 1000)
            );
            view.write(38, &[1, 2]).unwrap();
            assert_eq!(view.get(38).unwrap() + view.get(39).unwrap(), 3);
            rma.fence(win, Assert::NONE).unwrap();
            rma.free(win).unwrap();
        });
    }
}

#[test]
fn a_local_view_refuses_what_lies_outside_the_part_and_dynamic_windows() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        // 10 bytes: two whole u32 elements, two bytes the view leaves alone.
        let memory = rma.alloc_mem(10).unwrap();
        let win = rma.create::<u32>(memory, WindowOptions::new()).unwrap();
        let mut view = rma.local(win).unwrap();
        assert_eq!(view.len(), 2);
        view.write(0, &[5, 6]).unwrap();
        assert_eq!(view.to_vec().unwrap(), [5, 6]);
        for e in [
            view.get(2).unwrap_err(),
            view.set(2, 1).unwrap_err(),
            view.write(1, &[1, 2]).unwrap_err(),
            view.read(3, &mut [0]).unwrap_err(),
        ] {
            assert_eq!(e.class(), ErrorClass::RmaRange, "{e}");
        }
        let f64s = rma.allocate::<f64>(3, WindowOptions::new()).unwrap();
        let mut view = rma.local(f64s).unwrap();
        view.fill(0.5).unwrap();
        view.set(1, -2.25).unwrap();
        assert_eq!(view.to_vec().unwrap(), [0.5, -2.25, 0.5]);
        let dynamic = rma.create_dynamic::<u32>(WindowOptions::new()).unwrap();
        let e = rma.local(dynamic).unwrap_err();
        assert_eq!(e.class(), ErrorClass::RmaFlavor, "{e}");
        rma.free(dynamic).unwrap();
        rma.free(f64s).unwrap();
        rma.free(win).unwrap();
        rma.free_mem(memory).unwrap();
    });
}
