// SPDX-License-Identifier: MIT OR Apache-2.0
//! Scenarios written once over [`OneSided`] and run on both layers on the
//! mock: fence and PSCW epochs moving every byte, sums in fence epochs,
//! an exact counter under exclusive locks and readers that never see a
//! half-written block. Each layer's run also checks what only it counts.

use std::vec;
use std::vec::Vec;

use chip::MemoryType;

use super::*;
use crate::comm::ReduceOp;
use crate::hal::mock::Mock;
use crate::msg::{LockMode, MsgOptions};
use crate::{ErrorClass, LockScheme};

const MODES: [LockMode; 2] = [LockMode::Default, LockMode::Immediate];

const SCHEMES: [LockScheme; 3] = [LockScheme::Gbh, LockScheme::GbhBackoff, LockScheme::McsWp];

/// The memory-based layer.
fn memory(hal: &Mock) -> Rma<'_, Mock> {
    Rma::new(Comm::new(hal).expect("layout fits")).expect("database fits")
}

/// The message-based layer in lock mode `mode`.
fn message(hal: &Mock, mode: LockMode) -> MsgRma<'_, Mock> {
    let options = MsgOptions {
        mode,
        ..MsgOptions::default()
    };
    MsgRma::new(Comm::new(hal).expect("layout fits"), options)
}

/// A byte window of the memory-based layer with `options`.
fn bytes(rma: &mut Rma<'_, Mock>, len: u32, options: WindowOptions) -> Window<u8> {
    rma.allocate(len, options).unwrap()
}

/// Bytes that differ with writer, owner, round and position.
fn pattern(from: u32, to: u32, round: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i as u32 ^ (from * 131 + to * 17 + round * 7919)).wrapping_mul(2_654_435_761) as u8
        })
        .collect()
}

/// Bytes of a ring window: the owner's own, then its left neighbour's puts.
const OWN: usize = 40;
const RING_PUT: usize = 8 * 1024;
const RING: u32 = (OWN + RING_PUT) as u32;

/// Fence epochs in a ring, three rounds: each rank stores its own bytes,
/// puts into its right neighbour and gets its left neighbour's own bytes,
/// and finds its left neighbour's put in its window.
fn fence_ring<'h, L: OneSided<'h>>(layer: &mut L, win: L::Window) {
    let (me, n) = (layer.rank(), layer.size());
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    assert_eq!(layer.size_of(win, right), Ok(RING));
    layer.fence(win, Assert::NOPRECEDE).unwrap();
    for round in 0..3 {
        layer
            .local_write(win, 0, &pattern(me, me, round, OWN))
            .unwrap();
        layer.fence(win, Assert::NONE).unwrap();
        layer
            .put(win, right, OWN as u32, &pattern(me, right, round, RING_PUT))
            .unwrap();
        let mut theirs = vec![0; OWN];
        let get = layer.get(win, left, 0, &mut theirs).unwrap();
        layer.fence(win, Assert::NONE).unwrap();
        layer.finish_get(get, &mut theirs).unwrap();
        assert_eq!(theirs, pattern(left, left, round, OWN), "round {round}");
        let mut put = vec![0; RING_PUT];
        layer.local_read(win, OWN as u32, &mut put).unwrap();
        assert!(
            put == pattern(left, me, round, RING_PUT),
            "{n} cores round {round}: put {left} -> {me}"
        );
    }
    layer.fence(win, Assert::NOSUCCEED).unwrap();
}

#[test]
fn fence_ring_puts_and_gets_carry_their_bytes_on_the_memory_layer() {
    for n in [1, 4, 8] {
        Mock::run(n, |hal| {
            let mut rma = memory(hal);
            let win = rma.allocate_bytes(RING).unwrap();
            fence_ring(&mut rma, win);
            let s = rma.stats(win).unwrap();
            assert_eq!((s.puts, s.gets), (3, 3));
            assert_eq!(s.bytes_put, 3 * RING_PUT as u64);
            OneSided::free(&mut rma, win).unwrap();
        });
    }
}

#[test]
fn fence_ring_puts_and_gets_carry_their_bytes_on_the_message_layer() {
    for n in [1, 4, 8] {
        Mock::run(n, |hal| {
            let mut msg = message(hal, LockMode::Default);
            let win = msg.allocate_bytes(RING).unwrap();
            fence_ring(&mut msg, win);
            let stats = msg.stats(win).unwrap();
            assert_eq!((stats.puts, stats.gets), (3, 3));
            assert_eq!(
                stats.ops_applied, 6,
                "each rank is the target of 3 puts and 3 gets"
            );
            OneSided::free(&mut msg, win).unwrap();
            assert_eq!(
                msg.local(win).map(drop),
                Err(RmaError::UnknownWindow { window: win.id() })
            );
        });
    }
}

/// Every rank adds to every rank's u32 at byte 0, u64 at byte 4 and f64
/// at byte 12 in one fence epoch; the sums are exact.
fn fence_sums<'h, L: OneSided<'h>>(layer: &mut L) {
    let (me, n) = (layer.rank(), layer.size());
    let win = layer.allocate_bytes(4 + 8 + 8).unwrap();
    layer.local_write(win, 0, &[0; 20]).unwrap();
    layer.fence(win, Assert::NONE).unwrap();
    for target in 0..n {
        layer.accumulate_sum(win, target, 0, &[me + 1]).unwrap();
        layer
            .accumulate_sum(win, target, 4, &[u64::from(me) << 40])
            .unwrap();
        layer
            .accumulate_sum(win, target, 12, &[f64::from(me) + 0.5])
            .unwrap();
    }
    layer.fence(win, Assert::NOSUCCEED).unwrap();
    let mut bytes = [0; 20];
    layer.local_read(win, 0, &mut bytes).unwrap();
    let sum: u32 = (1..=n).sum();
    assert_eq!(u32::from_le_bytes(bytes[..4].try_into().unwrap()), sum);
    let sum: u64 = (0..u64::from(n)).map(|k| k << 40).sum();
    assert_eq!(u64::from_le_bytes(bytes[4..12].try_into().unwrap()), sum);
    let sum: f64 = (0..n).map(|k| f64::from(k) + 0.5).sum();
    assert_eq!(f64::from_le_bytes(bytes[12..].try_into().unwrap()), sum);
    layer.free(win).unwrap();
}

#[test]
fn fence_accumulates_sum_exactly_on_every_type_on_the_memory_layer() {
    Mock::run(6, |hal| fence_sums(&mut memory(hal)));
}

#[test]
fn fence_accumulates_sum_exactly_on_every_type_on_the_message_layer() {
    Mock::run(6, |hal| fence_sums(&mut message(hal, LockMode::Default)));
}

/// PSCW rounds between neighbours in a ring of 300-byte windows: bytes
/// 0..100 come from the left, 100..200 from the right, 200..300 are the
/// owner's, which its right neighbour gets.
fn pscw_neighbours<'h, L: OneSided<'h>>(layer: &mut L, win: L::Window, rounds: u32) {
    let (me, n) = (layer.rank(), layer.size());
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    let neighbours = layer.comm().group().incl(&[left, right]).unwrap();
    for round in 0..rounds {
        layer
            .local_write(win, 200, &pattern(me, me, round, 100))
            .unwrap();
        layer.post(win, &neighbours, Assert::NONE).unwrap();
        layer.start(win, &neighbours, Assert::NONE).unwrap();
        layer
            .put(win, right, 0, &pattern(me, right, round, 100))
            .unwrap();
        layer
            .put(win, left, 100, &pattern(me, left, round, 100))
            .unwrap();
        let mut theirs = vec![0; 100];
        let get = layer.get(win, right, 200, &mut theirs).unwrap();
        layer.complete(win).unwrap();
        layer.finish_get(get, &mut theirs).unwrap();
        assert_eq!(theirs, pattern(right, right, round, 100), "round {round}");
        layer.wait(win).unwrap();
        let mut local = vec![0; 200];
        layer.local_read(win, 0, &mut local).unwrap();
        assert!(
            local[..100] == pattern(left, me, round, 100),
            "round {round}"
        );
        assert!(
            local[100..] == pattern(right, me, round, 100),
            "round {round}"
        );
    }
}

#[test]
fn pscw_between_neighbours_moves_every_byte_on_the_memory_layer_with_every_memory_type() {
    for ty in MemoryType::ALL {
        Mock::run(6, |hal| {
            let mut rma = memory(hal);
            let win = bytes(&mut rma, 300, WindowOptions::new().memory_type(ty));
            pscw_neighbours(&mut rma, win, 4);
            let s = rma.stats(win).unwrap();
            assert_eq!((s.posts, s.starts, s.completes, s.waits), (4, 4, 4, 4));
            assert_eq!((s.puts, s.gets), (8, 4), "{ty:?}");
            rma.free(win).unwrap();
        });
    }
}

#[test]
fn pscw_between_neighbours_moves_every_byte_on_the_message_layer() {
    Mock::run(6, |hal| {
        let mut msg = message(hal, LockMode::Default);
        let win = msg.create(300).unwrap();
        pscw_neighbours(&mut msg, win, 4);
        let stats = msg.stats(win).unwrap();
        // Per round: 2 posts, 3 ops, 2 completes and a get reply; and
        // the window's 5 creation messages.
        assert_eq!(stats.messages_sent - stats.replies_sent, 4 * 7 + 5);
        assert_eq!(stats.replies_sent, 4);
        msg.free(win).unwrap();
    });
}

/// Every rank adds one, `rounds` times, to the counters (u32 at byte 4) of
/// the first rank, the last and one that rotates, each under an exclusive
/// lock (get, flush, put, unlock); every counter then equals the
/// increments aimed at it (summed over the ranks with an allreduce).
fn exclusive_counter<'h, L: OneSided<'h>>(layer: &mut L, win: L::Window, rounds: u32) {
    let (me, n) = (layer.rank(), layer.size());
    layer.local_write(win, 0, &[0; 8]).unwrap();
    layer.fence(win, Assert::NOSUCCEED).unwrap();
    let mut aimed = vec![0u32; n as usize];
    for i in 0..rounds {
        for target in [0, n - 1, (me + i) % n] {
            layer
                .lock(win, LockType::Exclusive, target, Assert::NONE)
                .unwrap();
            let mut c = [0; 4];
            layer.get_flushed(win, target, 4, &mut c).unwrap();
            let value = u32::from_le_bytes(c);
            assert!(
                value < 3 * rounds * n,
                "counter of {target} read as {value}"
            );
            layer
                .put(win, target, 4, &(value + 1).to_le_bytes())
                .unwrap();
            layer.unlock(win, target).unwrap();
            aimed[target as usize] += 1;
        }
    }
    // Every rank serves the others' increments until all are done; the
    // barrier keeps the channel free of the layer's messages for the
    // allreduce.
    layer.fence(win, Assert::NOSUCCEED).unwrap();
    layer.comm().barrier();
    layer.comm().allreduce(&mut aimed, ReduceOp::Sum).unwrap();
    let mut c = [0; 4];
    layer.lock(win, LockType::Shared, me, Assert::NONE).unwrap();
    layer.local_read(win, 4, &mut c).unwrap();
    layer.unlock(win, me).unwrap();
    assert_eq!(
        u32::from_le_bytes(c),
        aimed[me as usize],
        "increments on {me}"
    );
}

#[test]
fn an_exclusive_counter_from_8_cores_is_exact_on_the_memory_layer() {
    const ROUNDS: u32 = 10;
    for (scheme, ty) in [
        (LockScheme::Gbh, MemoryType::MpbtWt),
        (LockScheme::GbhBackoff, MemoryType::MpbtWt),
        (LockScheme::GbhBackoff, MemoryType::Ncm),
        (LockScheme::Gbh, MemoryType::MpbtWb),
        (LockScheme::McsWp, MemoryType::MpbtWt),
        (LockScheme::McsWp, MemoryType::Ncm),
    ] {
        Mock::run(8, |hal| {
            let mut rma = memory(hal);
            let options = WindowOptions::new().lock_scheme(scheme).memory_type(ty);
            let win = bytes(&mut rma, 8, options);
            exclusive_counter(&mut rma, win, ROUNDS);
            let s = rma.stats(win).unwrap();
            assert_eq!(s.flush_calls, 3 * u64::from(ROUNDS), "{scheme:?} on {ty:?}");
            rma.comm().barrier();
            rma.free(win).unwrap();
        });
    }
}

#[test]
fn an_exclusive_counter_from_8_cores_is_exact_on_the_message_layer_in_both_modes() {
    for mode in MODES {
        Mock::run(8, |hal| {
            let mut msg = message(hal, mode);
            let win = msg.create(8).unwrap();
            exclusive_counter(&mut msg, win, 4);
            msg.free(win).unwrap();
        });
    }
}

/// Rank 1 writes whole blocks of one value under an exclusive lock of rank
/// 0's window; the other ranks read it in two halves under a shared lock
/// and never see two values. Rank 0 only serves, in the last fence.
fn whole_blocks<'h, L: OneSided<'h>>(layer: &mut L, win: L::Window, len: usize) {
    let me = layer.rank();
    if me == 0 {
        layer.local_write(win, 0, &vec![1; len]).unwrap();
    }
    layer.fence(win, Assert::NOSUCCEED).unwrap();
    let half = len / 2;
    for round in 0..10u8 {
        if me == 1 {
            layer
                .lock(win, LockType::Exclusive, 0, Assert::NONE)
                .unwrap();
            layer.put(win, 0, 0, &vec![round + 2; len]).unwrap();
            layer.unlock(win, 0).unwrap();
        } else if me != 0 {
            layer.lock(win, LockType::Shared, 0, Assert::NONE).unwrap();
            let (mut a, mut b) = (vec![0; half], vec![0; half]);
            let get_a = layer.get(win, 0, 0, &mut a).unwrap();
            let get_b = layer.get(win, 0, half as u32, &mut b).unwrap();
            layer.unlock(win, 0).unwrap();
            layer.finish_get(get_a, &mut a).unwrap();
            layer.finish_get(get_b, &mut b).unwrap();
            assert!(a.iter().chain(&b).all(|&x| x == a[0]), "torn read");
            assert!((1..12).contains(&a[0]));
        }
    }
    layer.fence(win, Assert::NOSUCCEED).unwrap();
}

#[test]
fn shared_readers_never_see_a_half_written_block_on_the_memory_layer() {
    for scheme in SCHEMES {
        Mock::run(6, |hal| {
            let mut rma = memory(hal);
            let win = bytes(&mut rma, 512, WindowOptions::new().lock_scheme(scheme));
            whole_blocks(&mut rma, win, 512);
            rma.free(win).unwrap();
        });
    }
}

#[test]
fn shared_readers_never_see_a_half_written_block_on_the_message_layer() {
    for mode in MODES {
        Mock::run(6, |hal| {
            let mut msg = message(hal, mode);
            let win = msg.create(512).unwrap();
            whole_blocks(&mut msg, win, 512);
            assert!(msg.unlocked(win).unwrap(), "{mode:?}");
            msg.free(win).unwrap();
        });
    }
}

/// What the trait adds to each layer: local accesses inside the window
/// only, assertions a call does not take refused, a get completed by a
/// flush. Returns a get completed in a lock epoch of this rank, not yet
/// finished, of 4 bytes.
fn misuse<'h, L: OneSided<'h>>(layer: &mut L) -> (L::Window, L::Get) {
    let me = layer.rank();
    let win = layer.allocate_bytes(16).unwrap();
    let class = |e: RmaError| e.class();
    assert_eq!(
        layer.local_write(win, 8, &[1; 9]).map_err(class),
        Err(ErrorClass::RmaRange)
    );
    assert_eq!(
        layer.local_read(win, 17, &mut []).map_err(class),
        Err(ErrorClass::RmaRange)
    );
    layer.local_write(win, 0, &[3; 16]).unwrap();
    assert_eq!(
        layer.fence(win, Assert::NOCHECK).map_err(class),
        Err(ErrorClass::Assert)
    );
    assert_eq!(
        layer
            .lock(win, LockType::Shared, me, Assert::NOSTORE)
            .map_err(class),
        Err(ErrorClass::Assert)
    );
    layer.lock(win, LockType::Shared, me, Assert::NONE).unwrap();
    let mut got = [0; 4];
    layer.get_flushed(win, me, 12, &mut got).unwrap();
    assert_eq!(got, [3; 4]);
    let get = layer.get(win, me, 0, &mut got).unwrap();
    layer.flush(win, me).unwrap();
    (win, get)
}

#[test]
fn misuse_of_the_trait_is_refused_on_the_memory_layer() {
    Mock::run(2, |hal| {
        let mut rma = memory(hal);
        let (win, get) = misuse(&mut rma);
        let me = rma.rank();
        rma.finish_get(get, &mut [0; 4]).unwrap();
        rma.unlock(win, me).unwrap();
        rma.free(win).unwrap();
    });
}

#[test]
fn misuse_of_the_trait_is_refused_on_the_message_layer() {
    Mock::run(2, |hal| {
        let mut msg = message(hal, LockMode::Immediate);
        let (win, get) = misuse(&mut msg);
        let me = msg.rank();
        assert!(matches!(
            msg.finish_get(get, &mut [0; 5]),
            Err(RmaError::BufferLength {
                len: 5,
                expected: 4,
                ..
            })
        ));
        msg.unlock(win, me).unwrap();
        msg.free(win).unwrap();
    });
}
