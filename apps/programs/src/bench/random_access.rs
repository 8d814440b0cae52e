// SPDX-License-Identifier: MIT OR Apache-2.0
//! HPCC RandomAccess (GUPS), the read-modify-write case study of the
//! InfiniBand thesis (Ch. 7): a table of u64 words spread over the
//! processes' parts of one window, and every process XORs its share of
//! HPCC's random stream into the table's words.
//!
//! The stream is HPCC's: `ran = (ran << 1) ^ (ran < 0 as i64 ? POLY : 0)`,
//! process `r` of a round starting `r * updates` elements after the
//! round's start ([`starts`], HPCC_starts), each round after the last
//! one's elements for all cores and the first 64 (powers of two) left
//! out, so the processes of a round walk disjoint pieces of one sequence
//! and no two rounds repeat one. `ran`
//! picks its word at random from the whole table: the owner from its high
//! 32 bits (scaled into `0..procs`, as the process count need not be a
//! power of two), the word in the owner's part from its low
//! [`TABLE_BITS`] bits.
//!
//! Variants (`variant=`), each update a `BXOR` of `ran` into its word:
//! - `accumulate` (HPCC_ACC): shared lock, one-element accumulate, unlock;
//! - `fetch-and-op`: shared lock, fetch_and_op, unlock (MPI-3's atomic);
//! - `lock-put` (the naive direct update, GMP made atomic): exclusive lock,
//!   get, flush, XOR, put, unlock;
//! - `accumulate-batched` (HPCC_ACC_AGG): updates wait in per-target
//!   buckets of up to [`BUCKET`]; a full bucket, or the fullest once
//!   [`BUFFERED`] updates wait (HPCC's limit), goes out as one shared lock
//!   epoch of accumulates, and the rest at the end.
//!
//! Accumulates are atomic per element, so shared locks suffice; the
//! lock-put update is atomic through its exclusive lock. Process counts
//! 1..48 within one run (ranks beyond the count sit the round out in the
//! barrier). Each process times its whole batch: result lines `BENCH
//! random-access procs=<p> variant=<v> ops=<updates> cycles=<c>`; the host
//! turns them into updates per second of all processes together.
//!
//! Every round is checked exactly: XOR commutes, so after it each owner
//! regenerates the round's whole stream, XORs the updates aimed at its
//! part into the initial table (word `g` of the table holds `g`, as in
//! HPCC) and compares word by word. HPCC allows 1 % of updates to go
//! wrong; with atomic updates none may, and a wrong word fails the run.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::{AccumulateOp, Assert, LockType, Rma, Window, WindowOptions};

use super::{Scale, counts_up_to, emit, timed};
use crate::support::osc::{fail, open};
use kernel::Platform;
use kernel::chip::settings::{Choice, choice};

/// How one update reaches its word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Accumulate,
    FetchAndOp,
    LockPut,
    AccumulateBatched,
}

/// The variants, with their names in the keys and the `variant` setting.
impl Choice for Variant {
    const ALL: &'static [Self] = &[
        Self::Accumulate,
        Self::FetchAndOp,
        Self::LockPut,
        Self::AccumulateBatched,
    ];
    const NAMES: &'static [&'static str] = &[
        "accumulate",
        "fetch-and-op",
        "lock-put",
        "accumulate-batched",
    ];
}

/// The variants a run measures: one, or all of them in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variants {
    /// Each in turn.
    All,
    /// Only this one.
    Only(Variant),
}

/// `all`, then each variant's name.
const VARIANTS_NAMES: [&str; 5] = {
    let mut names = ["all"; 5];
    let mut i = 0;
    while i < Variant::NAMES.len() {
        names[i + 1] = Variant::NAMES[i];
        i += 1;
    }
    names
};

impl Choice for Variants {
    const ALL: &'static [Self] = &[
        Self::All,
        Self::Only(Variant::Accumulate),
        Self::Only(Variant::FetchAndOp),
        Self::Only(Variant::LockPut),
        Self::Only(Variant::AccumulateBatched),
    ];
    const NAMES: &'static [&'static str] = &VARIANTS_NAMES;
}

kernel::chip::settings! {
    /// bench-random-access's settings.
    pub struct Settings {
        /// full: the report's sizes and iterations; quick: a few of each (cargo xtask bench --quick)
        scale: Scale = choice::<Scale>("full"),
        /// how an update reaches its word: accumulate or fetch_and_op (BXOR) under a shared lock, get + put under an exclusive lock, or accumulates batched per target (up to 64, 1024 waiting in all); all: each in turn
        variant: Variants = choice::<Variants>("all"),
    }
}

/// Words per process: 2^TABLE_BITS (32 KiB of POPSHM).
const TABLE_BITS: u32 = 12;
const TABLE_WORDS: u32 = 1 << TABLE_BITS;

/// Most updates one bucket of `accumulate-batched` holds.
const BUCKET: usize = 64;

/// Most updates `accumulate-batched` keeps waiting in all buckets: HPCC's
/// limit on buffered updates.
const BUFFERED: usize = 1024;

/// HPCC's primitive polynomial and the period of its stream.
const POLY: u64 = 7;
const PERIOD: u64 = 1_317_624_576_693_539_401;

/// The stream's first elements, 1 to 2^63, all land on word 0 of their
/// owners: no round uses them.
const POWERS_OF_TWO: u64 = 64;

/// The element after `ran` in HPCC's stream.
fn next(ran: u64) -> u64 {
    (ran << 1) ^ if (ran as i64) < 0 { POLY } else { 0 }
}

/// Element `n` of HPCC's stream (HPCC_starts): the stream starts at 1 and
/// doubling `n` is a squaring in GF(2)[x] mod POLY, so this takes
/// `log2(n)` steps instead of `n`.
fn starts(n: u64) -> u64 {
    let n = n % PERIOD;
    if n == 0 {
        return 1;
    }
    // powers[j]: the element 2j steps from the start, to square with.
    let mut powers = [0u64; 64];
    let mut temp = 1;
    for p in powers.iter_mut() {
        *p = temp;
        temp = next(next(temp));
    }
    let mut bit = 63 - n.leading_zeros();
    let mut ran = 2;
    while bit > 0 {
        let mut squared = 0;
        for (j, p) in powers.iter().enumerate() {
            if (ran >> j) & 1 != 0 {
                squared ^= p;
            }
        }
        ran = squared;
        bit -= 1;
        if (n >> bit) & 1 != 0 {
            ran = next(ran);
        }
    }
    ran
}

/// `Err` if [`starts`] does not land where stepping the stream does.
fn check_starts() -> Result<(), String> {
    let mut ran = 1;
    for n in 0..=1000 {
        if starts(n) != ran {
            return Err(format!(
                "HPCC_starts({n}) is {:#x}, but {n} steps from 1 give {ran:#x}",
                starts(n)
            ));
        }
        ran = next(ran);
    }
    Ok(())
}

/// The owner of `ran`'s word among `procs` processes and the word in its
/// part.
fn place(ran: u64, procs: u32) -> (u32, u32) {
    let owner = ((ran >> 32) * u64::from(procs)) >> 32;
    (owner as u32, (ran as u32) & (TABLE_WORDS - 1))
}

/// The table part of rank `rank` before a round: word `g` of the whole
/// table holds `g`.
fn initial_part(rank: u32) -> Vec<u64> {
    let first = u64::from(rank) * u64::from(TABLE_WORDS);
    (first..first + u64::from(TABLE_WORDS)).collect()
}

/// The process counts of a run on `cores` cores.
fn process_counts(scale: Scale, cores: u32) -> Vec<u32> {
    let full = [1, 2, 4, 8, 16, 32, 48];
    counts_up_to(scale, &[2, 8, 16], &full, cores, true)
}

/// Updates each process makes in a round of `variant`. Few, to keep a
/// 48-core run within minutes of host time; lock-put's exclusive locks
/// serialise it, so it makes half as many.
fn updates_per_process(scale: Scale, variant: Variant) -> u32 {
    let updates = scale.pick(32, 64);
    if variant == Variant::LockPut {
        updates / 2
    } else {
        updates
    }
}

/// One round: `procs` processes, `updates` each, through `variant`.
#[derive(Debug, Clone, Copy)]
struct Round {
    procs: u32,
    updates: u32,
    variant: Variant,
    /// Where the stream of rank 0 starts.
    stream: u64,
}

impl Round {
    /// The first element of `rank`'s updates.
    fn start_of(&self, rank: u32) -> u64 {
        starts(self.stream + u64::from(rank) * u64::from(self.updates))
    }
}

pub fn run(platform: &Platform, settings: Settings) -> Result<(), String> {
    check_starts()?;
    let mut rma = open(platform)?;
    let (n, me) = (rma.size(), rma.rank());
    let variants: Vec<(Variant, &str)> = Variant::ALL
        .iter()
        .zip(Variant::NAMES)
        .map(|(&variant, &name)| (variant, name))
        .filter(|&(variant, _)| {
            settings.variant == Variants::All || settings.variant == Variants::Only(variant)
        })
        .collect();
    let counts = process_counts(settings.scale, n);
    let win = rma
        .allocate::<u64>(TABLE_WORDS, WindowOptions::new())
        .map_err(fail("allocating the table window"))?;
    let mut stream = POWERS_OF_TWO;
    for &(variant, name) in &variants {
        let updates = updates_per_process(settings.scale, variant);
        for &procs in &counts {
            let round = Round {
                procs,
                updates,
                variant,
                stream,
            };
            stream += u64::from(n) * u64::from(updates);
            reset_part(&mut rma, win)?;
            rma.comm().barrier();
            if me < procs {
                let (result, cycles) = timed(platform, || update_all(&mut rma, win, &round));
                result.map_err(|e| format!("{name} on {procs} processes: {e}"))?;
                let keys = format!("procs={procs} variant={name} ops={updates}");
                emit("random-access", &keys, None, &[cycles]);
            }
            rma.comm().barrier();
            if me < procs {
                check_part(&mut rma, win, &round, name)?;
            }
        }
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the table window"))?;
    if me == 0 {
        kernel::println!(
            "bench-random-access: {TABLE_WORDS} table words per process, {} process counts, variants {}; every table word exact after every round",
            counts.len(),
            variants
                .iter()
                .map(|&(variant, name)| format!(
                    "{name} ({} updates per process)",
                    updates_per_process(settings.scale, variant)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// Writes this core's table part back to its initial values, under its
/// own exclusive lock.
fn reset_part(rma: &mut Rma<'_, Platform>, win: Window<u64>) -> Result<(), String> {
    let me = rma.rank();
    rma.lock(win, LockType::Exclusive, me, Assert::NONE)
        .map_err(fail("locking the own part"))?;
    rma.local_write(win, 0, &initial_part(me))
        .map_err(fail("resetting the table"))?;
    rma.unlock(win, me).map_err(fail("unlocking the own part"))
}

/// This core's updates of `round`.
fn update_all(
    rma: &mut Rma<'_, Platform>,
    win: Window<u64>,
    round: &Round,
) -> Result<(), rma::RmaError> {
    let mut ran = round.start_of(rma.rank());
    let mut buckets: Vec<Vec<(u32, u64)>> = vec![Vec::new(); round.procs as usize];
    let mut waiting = 0;
    for _ in 0..round.updates {
        ran = next(ran);
        let (target, word) = place(ran, round.procs);
        match round.variant {
            Variant::Accumulate => {
                rma.lock(win, LockType::Shared, target, Assert::NONE)?;
                rma.accumulate(win, target, word, &[ran], AccumulateOp::Bxor)?;
                rma.unlock(win, target)?;
            }
            Variant::FetchAndOp => {
                rma.lock(win, LockType::Shared, target, Assert::NONE)?;
                rma.fetch_and_op(win, target, word, ran, AccumulateOp::Bxor)?;
                rma.unlock(win, target)?;
            }
            Variant::LockPut => {
                rma.lock(win, LockType::Exclusive, target, Assert::NONE)?;
                let mut value = [0u64];
                rma.get(win, target, word, &mut value)?;
                // MPI gives the get's data only once it is flushed.
                rma.flush(win, target)?;
                rma.put(win, target, word, &[value[0] ^ ran])?;
                rma.unlock(win, target)?;
            }
            Variant::AccumulateBatched => {
                let bucket = &mut buckets[target as usize];
                bucket.push((word, ran));
                waiting += 1;
                let full = if bucket.len() == BUCKET {
                    Some(target)
                } else if waiting == BUFFERED {
                    fullest(&buckets)
                } else {
                    None
                };
                if let Some(t) = full {
                    waiting -= send_bucket(rma, win, t, &mut buckets[t as usize])?;
                }
            }
        }
    }
    for (t, bucket) in buckets.iter_mut().enumerate() {
        if !bucket.is_empty() {
            send_bucket(rma, win, t as u32, bucket)?;
        }
    }
    Ok(())
}

/// The target whose bucket holds the most updates.
fn fullest(buckets: &[Vec<(u32, u64)>]) -> Option<u32> {
    (0..buckets.len() as u32).max_by_key(|&t| buckets[t as usize].len())
}

/// Applies `bucket`'s updates on `target` in one shared lock epoch and
/// empties it: how many it held.
fn send_bucket(
    rma: &mut Rma<'_, Platform>,
    win: Window<u64>,
    target: u32,
    bucket: &mut Vec<(u32, u64)>,
) -> Result<usize, rma::RmaError> {
    rma.lock(win, LockType::Shared, target, Assert::NONE)?;
    for &(word, ran) in bucket.iter() {
        rma.accumulate(win, target, word, &[ran], AccumulateOp::Bxor)?;
    }
    rma.unlock(win, target)?;
    let sent = bucket.len();
    bucket.clear();
    Ok(sent)
}

/// Compares this core's table part with the initial one XORed with every
/// update of `round` aimed at it.
fn check_part(
    rma: &mut Rma<'_, Platform>,
    win: Window<u64>,
    round: &Round,
    name: &str,
) -> Result<(), String> {
    let me = rma.rank();
    let mut expected = initial_part(me);
    for rank in 0..round.procs {
        let mut ran = round.start_of(rank);
        for _ in 0..round.updates {
            ran = next(ran);
            let (owner, word) = place(ran, round.procs);
            if owner == me {
                expected[word as usize] ^= ran;
            }
        }
    }
    let mut part = vec![0u64; TABLE_WORDS as usize];
    rma.lock(win, LockType::Shared, me, Assert::NONE)
        .map_err(fail("locking the own part"))?;
    rma.local_read(win, 0, &mut part)
        .map_err(fail("reading the table"))?;
    rma.unlock(win, me)
        .map_err(fail("unlocking the own part"))?;
    match part
        .iter()
        .zip(&expected)
        .position(|(got, want)| got != want)
    {
        None => Ok(()),
        Some(word) => Err(format!(
            "{name} on {} processes: word {word} of core {me}'s part (table word {}) is {:#x}, expected {:#x}",
            round.procs,
            u64::from(me) * u64::from(TABLE_WORDS) + word as u64,
            part[word],
            expected[word]
        )),
    }
}
