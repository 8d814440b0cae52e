// SPDX-License-Identifier: MIT OR Apache-2.0
//! The hash table on the mock's 8 cores: disjoint concurrent inserts found
//! by everyone with the right values, absent keys absent, a full part
//! refused, and inserts racing lookups without a torn or invented value,
//! under both GBH schemes.

use std::collections::HashMap;
use std::vec::Vec;

use chip::MemoryType;

use super::*;
use crate::ErrorClass;
use crate::LockScheme;
use crate::comm::Comm;
use crate::hal::mock::Mock;

const SCHEMES: [LockScheme; 2] = [LockScheme::Gbh, LockScheme::GbhBackoff];

fn rma(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// Key `i` of core `core`: disjoint between cores, never 0.
fn key(core: u32, i: u32) -> u64 {
    ((u64::from(core) + 1) << 32) | (u64::from(i) + 1)
}

fn value(key: u64, version: u32, bytes: u32) -> Vec<u8> {
    let mut v = vec![0; bytes as usize];
    fill_value(key, version, &mut v);
    v
}

#[test]
fn hashing_spreads_keys_over_ranks_and_slots() {
    let (ranks, slots) = (48, 64);
    let mut per_rank = [0u32; 48];
    let mut per_slot = [0u32; 64];
    for k in 1..=48_000u64 {
        let (r, s) = locate(k, ranks, slots);
        assert!(r < ranks && s < slots);
        per_rank[r as usize] += 1;
        per_slot[s as usize] += 1;
    }
    // 1000 keys per rank, 750 per slot on average.
    assert!(
        per_rank.iter().all(|&n| (850..1150).contains(&n)),
        "{per_rank:?}"
    );
    assert!(
        per_slot.iter().all(|&n| (620..880).contains(&n)),
        "{per_slot:?}"
    );
    assert_eq!(locate(7, 1, 1), (0, 0));
    assert_eq!(hash(0x1234), hash(0x1234));
}

#[test]
fn values_name_their_key_and_version_and_torn_ones_are_caught() {
    for bytes in [1, 4, 32, 512, 1024] {
        let v = value(9, 77, bytes);
        assert_eq!(value_version(9, &v), Some(77));
        if bytes >= 32 {
            assert_eq!(value_version(10, &v), None, "another key's value");
            let mut torn = v.clone();
            let newer = value(9, 78, bytes);
            torn[bytes as usize / 2..].copy_from_slice(&newer[bytes as usize / 2..]);
            assert_eq!(value_version(9, &torn), None, "half old, half new");
        }
    }
}

#[test]
fn disjoint_concurrent_inserts_are_found_by_every_core() {
    const KEYS: u32 = 24;
    let n = 8;
    for scheme in SCHEMES {
        for bytes in [32, 512] {
            Mock::run(n, |hal| {
                let mut rma = rma(hal);
                let me = rma.rank();
                let config = DhtConfig::new(64, bytes).lock_scheme(scheme);
                let mut dht = Dht::new(&mut rma, config).unwrap();
                assert_eq!(dht.entry_bytes(), (8 + bytes).next_multiple_of(32));
                for i in 0..KEYS {
                    let k = key(me, i);
                    dht.insert(&mut rma, k, &value(k, 1, bytes)).unwrap();
                }
                rma.comm().barrier();
                let mut buf = vec![0; bytes as usize];
                for core in 0..n {
                    for i in 0..KEYS {
                        let k = key(core, i);
                        assert!(dht.lookup(&mut rma, k, &mut buf).unwrap(), "{k:#x}");
                        assert_eq!(buf, value(k, 1, bytes), "{scheme:?}: value of {k:#x}");
                    }
                }
                // Absent keys: other key ranges, untouched buffer.
                buf.fill(0xAA);
                for i in 0..KEYS {
                    let k = key(100 + me, i);
                    assert!(!dht.lookup(&mut rma, k, &mut buf).unwrap(), "{k:#x}");
                }
                assert!(buf.iter().all(|&b| b == 0xAA));
                let s = dht.stats();
                assert_eq!((s.inserts, s.updates, s.full), (KEYS.into(), 0, 0));
                assert_eq!(s.lookups, u64::from((n + 1) * KEYS));
                assert_eq!(s.found, u64::from(n * KEYS));
                assert!(s.probes >= s.lookups + s.inserts, "{s:?}");
                let w = rma.stats(dht.window()).unwrap();
                assert_eq!(w.locks, w.unlocks);
                assert_eq!(w.locks, s.lookups + s.inserts + 1, "one lock to clear");
                rma.comm().barrier();
                dht.free(&mut rma).unwrap();
            });
        }
    }
}

#[test]
fn an_insert_of_a_present_key_replaces_its_value() {
    Mock::run(2, |hal| {
        let mut rma = rma(hal);
        let mut dht = Dht::new(&mut rma, DhtConfig::new(8, 40)).unwrap();
        let k = key(0, 5);
        if rma.rank() == 0 {
            dht.insert(&mut rma, k, &value(k, 1, 40)).unwrap();
            dht.insert(&mut rma, k, &value(k, 2, 40)).unwrap();
            let s = dht.stats();
            assert_eq!((s.inserts, s.updates), (2, 1));
            assert!(s.last_write_cycles <= s.write_cycles);
        }
        rma.comm().barrier();
        let mut buf = [0; 40];
        assert!(dht.lookup(&mut rma, k, &mut buf).unwrap());
        assert_eq!(value_version(k, &buf), Some(2));
        rma.comm().barrier();
        dht.free(&mut rma).unwrap();
    });
}

#[test]
fn a_reader_contending_with_a_holding_writer_gets_in_after_the_write() {
    for scheme in SCHEMES {
        Mock::run(2, |hal| {
            let mut rma = rma(hal);
            let config = DhtConfig::new(8, 64).lock_scheme(scheme);
            let mut dht = Dht::new(&mut rma, config).unwrap();
            let k = dht.keys_on(0, 1, 1)[0];
            if rma.rank() == 0 {
                dht.insert(&mut rma, k, &value(k, 1, 64)).unwrap();
            }
            rma.comm().barrier();
            if rma.rank() == 0 {
                let mut called = false;
                dht.insert_holding(&mut rma, k, &value(k, 2, 64), |rma| {
                    rma.comm().barrier();
                    // Rank 1 tries its shared lock meanwhile, and fails.
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    called = true;
                })
                .unwrap();
                assert!(called);
                assert_eq!(dht.stats().updates, 1);
            } else {
                rma.comm().barrier();
                let mut buf = [0; 64];
                assert!(dht.lookup(&mut rma, k, &mut buf).unwrap());
                assert_eq!(value_version(k, &buf), Some(2), "{scheme:?}");
                let w = rma.stats(dht.window()).unwrap();
                assert!(w.wait_cycles > 0, "{w:?}");
            }
            rma.comm().barrier();
            dht.free(&mut rma).unwrap();
        });
    }
}

#[test]
fn a_full_part_and_bad_arguments_are_refused_and_the_lock_is_given_back() {
    for scheme in SCHEMES {
        Mock::run(2, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            let config = DhtConfig::new(4, 32).lock_scheme(scheme);
            let mut dht = Dht::new(&mut rma, config).unwrap();
            // Rank 1 fills rank 0's part, then overflows it.
            let keys = dht.keys_on(0, 1, 5);
            assert_eq!(keys.len(), 5);
            assert!(keys.iter().all(|&k| dht.locate(k).0 == 0));
            assert!(dht.keys_on(2, 1, 1).is_empty());
            if me == 1 {
                for &k in &keys[..4] {
                    dht.insert(&mut rma, k, &value(k, 1, 32)).unwrap();
                }
                let e = dht.insert(&mut rma, keys[4], &value(keys[4], 1, 32));
                let e = e.unwrap_err();
                assert_eq!(e.class(), ErrorClass::NoMem);
                assert_eq!(
                    e.to_string(),
                    "MPI_ERR_NO_MEM: dht slots in the owner's part: 1 asked for, 0 left"
                );
                assert_eq!(dht.stats().full, 1);
                // A key already there still takes a new value.
                dht.insert(&mut rma, keys[0], &value(keys[0], 2, 32))
                    .unwrap();
            }
            rma.comm().barrier();
            // The lock was given back: rank 0 locks its part and reads.
            let mut buf = [0; 32];
            assert!(!dht.lookup(&mut rma, keys[4], &mut buf).unwrap());
            assert!(dht.lookup(&mut rma, keys[0], &mut buf).unwrap());
            assert_eq!(value_version(keys[0], &buf), Some(2));
            // Probing an absent key in a full part reads every slot.
            let before = dht.stats().probes;
            assert!(!dht.lookup(&mut rma, keys[4], &mut buf).unwrap());
            assert_eq!(dht.stats().probes - before, 4);

            let e = dht.insert(&mut rma, 0, &buf).unwrap_err();
            assert_eq!(e.class(), ErrorClass::Arg);
            assert_eq!(e.to_string(), "MPI_ERR_ARG: dht key: 0 marks a free slot");
            let e = dht.lookup(&mut rma, 3, &mut [0; 31]).unwrap_err();
            assert_eq!(
                e.to_string(),
                "MPI_ERR_ARG: dht lookup buffer has length 31, expected 32"
            );
            dht.insert(&mut rma, 3, &[0; 33]).unwrap_err();
            let w = rma.stats(dht.window()).unwrap();
            assert_eq!(w.locks, w.unlocks);
            rma.comm().barrier();
            dht.free(&mut rma).unwrap();
        });
    }
    Mock::run(1, |hal| {
        let mut rma = rma(hal);
        let e = Dht::new(&mut rma, DhtConfig::new(0, 32)).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Arg);
    });
}

#[test]
fn lookups_racing_inserts_see_whole_inserted_values_or_nothing() {
    const ROUNDS: u32 = 12;
    const KEYS: u32 = 6;
    const BYTES: u32 = 512;
    let n = 8;
    for (scheme, ty) in [
        (LockScheme::Gbh, MemoryType::MpbtWt),
        (LockScheme::GbhBackoff, MemoryType::MpbtWt),
        (LockScheme::GbhBackoff, MemoryType::Ncm),
    ] {
        Mock::run(n, |hal| {
            let mut rma = rma(hal);
            let me = rma.rank();
            let options = WindowOptions::new().lock_scheme(scheme).memory_type(ty);
            let mut dht = Dht::new(&mut rma, DhtConfig::new(64, BYTES).options(options)).unwrap();
            // Even-numbered keys are inserted (version = round + 1), odd
            // ones never are.
            let written = |core: u32, i: u32| key(core, 2 * i);
            let never = |core: u32, i: u32| key(core, 2 * i + 1);
            let mut seen: HashMap<u64, u32> = HashMap::new();
            let mut buf = vec![0; BYTES as usize];
            let mut x = 0x2545_F491_4F6C_DD1D_u64 ^ u64::from(me);
            for round in 0..ROUNDS {
                for i in 0..KEYS {
                    let k = written(me, i);
                    dht.insert(&mut rma, k, &value(k, round + 1, BYTES))
                        .unwrap();
                    // A few lookups of random keys of random cores.
                    for _ in 0..3 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let (core, j) = ((x % u64::from(n)) as u32, (x >> 8) as u32 % KEYS);
                        let k = never(core, j);
                        assert!(!dht.lookup(&mut rma, k, &mut buf).unwrap(), "{k:#x}");
                        let k = written(core, j);
                        if dht.lookup(&mut rma, k, &mut buf).unwrap() {
                            let v = value_version(k, &buf);
                            let v = v.unwrap_or_else(|| panic!("torn value of {k:#x}"));
                            assert!((1..=ROUNDS).contains(&v), "{k:#x}: version {v}");
                            let last = seen.insert(k, v).unwrap_or(0);
                            assert!(v >= last, "{k:#x} went back from {last} to {v}");
                            if core == me {
                                assert_eq!(v, round + 1 - u32::from(j > i), "own key");
                            }
                        } else {
                            assert!(!seen.contains_key(&k), "{k:#x} disappeared");
                            assert!(core != me || j > i || round > 0, "own key missing");
                        }
                    }
                }
            }
            rma.comm().barrier();
            for core in 0..n {
                for i in 0..KEYS {
                    let k = written(core, i);
                    assert!(dht.lookup(&mut rma, k, &mut buf).unwrap());
                    assert_eq!(buf, value(k, ROUNDS, BYTES), "final value of {k:#x}");
                }
            }
            let s = dht.stats();
            assert_eq!(s.inserts, u64::from(ROUNDS * KEYS));
            assert_eq!(s.updates, u64::from((ROUNDS - 1) * KEYS));
            rma.comm().barrier();
            dht.free(&mut rma).unwrap();
        });
    }
}
