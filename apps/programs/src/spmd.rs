// SPDX-License-Identifier: MIT OR Apache-2.0
//! OpenSHMEM's model from Rust (`dsm::spmd`), every value checked on
//! every PE: puts of a block to the right neighbour, gets from the left
//! one, an atomic counter every PE adds to, one compare-and-swap winner,
//! a token passed around the ring with `wait_until` (data first, released,
//! then the flag), and a read-modify-write of a plain element under each
//! kind of lock (ticket, GBH with back-off, MCS-WP, hierarchical).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use dsm::spmd::{Spmd, Sym};
use dsm::LockKind;
use kernel::Platform;
use rma::{AccumulateOp, LockScheme};

use crate::support::osc::{Checks, conclude, open};

/// Elements of each PE's block.
const BLOCK: u32 = 64;
/// Additions of each PE to the counter, and rounds under each lock.
const ROUNDS: u32 = 20;

/// Element `i` of the block PE `pe` sends.
fn element(pe: u32, i: u32) -> u64 {
    (u64::from(pe) << 32) | (u64::from(i) * 7 + 1)
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let rma = open(platform)?;
    let mut s = Spmd::new(rma).map_err(|e| format!("spmd: {e}"))?;
    let mut checks = Checks::default();
    let e = |doing: &'static str| move |e: dsm::spmd::SpmdError| format!("{doing}: {e}");
    let (n, me) = (s.n_pes(), s.my_pe());
    let (left, right) = ((me + n - 1) % n, (me + 1) % n);

    // Blocks around the ring, put to the right and got from the left.
    let block: Sym<u64> = s.alloc(BLOCK).map_err(e("alloc"))?;
    let mine: Vec<u64> = (0..BLOCK).map(|i| element(me, i)).collect();
    s.put(block, 0, &mine, right).map_err(e("put"))?;
    s.barrier_all().map_err(e("barrier_all"))?;
    let mut got = vec![0u64; BLOCK as usize];
    s.get(&mut got, block, 0, me).map_err(e("get"))?;
    let want: Vec<u64> = (0..BLOCK).map(|i| element(left, i)).collect();
    checks.same(&got, &want, || "the block from the left".into());
    s.get(&mut got, block, 0, left).map_err(e("get"))?;
    let want: Vec<u64> = (0..BLOCK).map(|i| element((left + n - 1) % n, i)).collect();
    checks.same(&got, &want, || "the left neighbour's block".into());

    // A counter on PE 0 that every PE adds to, then one swap winner.
    let counter: Sym<u32> = s.alloc(1).map_err(e("alloc"))?;
    for _ in 0..ROUNDS {
        s.atomic(counter, 0, 1u32, AccumulateOp::Sum, 0)
            .map_err(e("atomic"))?;
    }
    s.barrier_all().map_err(e("barrier_all"))?;
    let total = s.g(counter, 0, 0).map_err(e("g"))?;
    checks.check(total == n * ROUNDS, || format!("counter {total}, not {}", n * ROUNDS));
    s.barrier_all().map_err(e("barrier_all"))?;
    let won = s
        .compare_swap(counter, 0, n * ROUNDS, me + 1, 0)
        .map_err(e("compare_swap"))?
        == n * ROUNDS;
    s.barrier_all().map_err(e("barrier_all"))?;
    let winner = s.g(counter, 0, 0).map_err(e("g"))?;
    checks.check(!won || winner == me + 1, || {
        format!("PE {me} swapped, but the counter holds {winner}")
    });

    // A token around the ring: data, released, then the flag.
    let token: Sym<u64> = s.alloc(2).map_err(e("alloc"))?;
    let flag: Sym<u32> = s.alloc(1).map_err(e("alloc"))?;
    let pass = |s: &mut Spmd<'_, Platform>, value: u64| -> Result<(), String> {
        s.put(token, 0, &[value, !value], right).map_err(e("put"))?;
        s.quiet().map_err(e("quiet"))?;
        s.p(flag, 0, 1u32, right).map_err(e("p"))
    };
    if me == 0 {
        pass(&mut s, 1)?;
    }
    s.wait_until(flag, 0, |f| f == 1).map_err(e("wait_until"))?;
    let mut held = [0u64; 2];
    s.get(&mut held, token, 0, me).map_err(e("get"))?;
    let expected = if me == 0 { u64::from(n) } else { u64::from(me) };
    checks.check(held == [expected, !expected], || {
        format!("token {held:?}, not {expected} and its complement")
    });
    if me != 0 {
        pass(&mut s, held[0] + 1)?;
    }
    s.barrier_all().map_err(e("barrier_all"))?;

    // A plain read-modify-write under each kind of lock.
    let kinds = [
        LockKind::Ticket,
        LockKind::Rma(LockScheme::GbhBackoff),
        LockKind::Rma(LockScheme::McsWp),
        LockKind::Hierarchical,
    ];
    let sums: Sym<u32> = s.alloc(kinds.len() as u32).map_err(e("alloc"))?;
    for (k, &kind) in kinds.iter().enumerate() {
        let lock = s.lock_new(kind).map_err(e("lock_new"))?;
        for _ in 0..ROUNDS {
            s.set_lock(lock).map_err(e("set_lock"))?;
            let v = s.g(sums, k as u32, 0).map_err(e("g"))?;
            s.p(sums, k as u32, v + 1, 0).map_err(e("p"))?;
            s.clear_lock(lock).map_err(e("clear_lock"))?;
        }
    }
    s.barrier_all().map_err(e("barrier_all"))?;
    let mut totals = vec![0u32; kinds.len()];
    s.get(&mut totals, sums, 0, 0).map_err(e("get"))?;
    checks.same(&totals, &vec![n * ROUNDS; kinds.len()], || {
        "the sums under each lock".into()
    });
    if me == 0 {
        kernel::println!("spmd stats: {}", s.dsm().stats());
    }
    s.free(block).map_err(e("free"))?;
    s.free(counter).map_err(e("free"))?;
    s.free(token).map_err(e("free"))?;
    s.free(flag).map_err(e("free"))?;
    s.free(sums).map_err(e("free"))?;
    let mut rma = s.finish().map_err(e("finish"))?;
    conclude(
        &mut rma,
        &checks,
        "spmd",
        "ring puts and gets, an atomic counter, one swap winner, a token passed with wait_until, sums under ticket, GBH, MCS-WP and hierarchical locks",
    )
}
