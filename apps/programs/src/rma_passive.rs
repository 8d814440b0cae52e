// SPDX-License-Identifier: MIT OR Apache-2.0
//! Passive-target synchronisation and atomics on every core, with the lock
//! scheme the `scheme` setting names, every value checked:
//!
//! 1. **Lock mix**: rounds of random targets and lock types. Under an
//!    exclusive lock an origin puts a block whose words all carry one
//!    value, naming itself and the round, and gets it back; under a shared
//!    lock it gets a block, whose words must all be equal (no torn block
//!    while a reader holds the lock) and name a writer that really wrote
//!    that target.
//! 2. **fetch_and_op counter** on rank 0 from every core in a lock_all
//!    epoch: the final count is exact and every fetched value is distinct.
//! 3. **compare_and_swap**: a mutex on rank 0 guarding a plain get/put
//!    counter (exact at the end), and a lock-free list: every core pushes
//!    nodes kept in its own window part onto a head on rank 0 with
//!    compare_and_swap; rank 0 walks the list and finds every node once.
//! 4. **accumulate**: every core adds to every rank's elements (SUM on u64
//!    and f64, MAX on u64) in a lock_all epoch; each target's elements are
//!    exact.
//!    MAXLOC of value-index pairs from every core onto rank 0 keeps the
//!    largest value and, on ties, the lowest rank.
//! 5. **Misuse**: passive-target, request and atomics errors, each checked
//!    for its MPI class and message start.
//! 6. **A polled flag** (3 cores or more), for each memory type a window
//!    can have: in a lock_all epoch rank 2 polls rank 0's flag with get
//!    and flush while rank 1 puts 1 into it and flushes; rank 2 must see
//!    the 1: a get reads the target's memory as it is when the get runs,
//!    not a line an earlier get left in L1.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::{AccumulateOp, Assert, ErrorClass, Loc, LockScheme, LockType, Rma, WindowOptions};

use crate::bench::Rng;
use crate::support::osc::{Checks, conclude, fail, open};
use kernel::Platform;
use kernel::chip::MemoryType;
use kernel::chip::settings::{choice, name_of};
use rma::hal::Clock;

/// Words in a block of the lock mix.
const BLOCK: u32 = 16;
/// Rounds of the lock mix per core.
const MIX_ROUNDS: u32 = 40;
/// fetch_and_op increments per core.
const INCREMENTS: u64 = 25;
/// Entries of the compare_and_swap mutex per core.
const MUTEX_ROUNDS: u32 = 5;
/// The first bound of the mutex's back-off, in core cycles (about a
/// guarded compare_and_swap).
const MUTEX_BACKOFF_FIRST: u32 = 1000;
/// The largest bound of the mutex's back-off, in core cycles.
const MUTEX_BACKOFF_CAP: u32 = 64_000;
/// Nodes each core pushes onto the list.
const NODES: u32 = 4;
/// Elements each core accumulates into every rank.
const ACC_LEN: u32 = 8;

kernel::chip::settings! {
    /// rma-passive's settings.
    pub struct Settings {
        /// the lock scheme of every window
        scheme: LockScheme = choice::<LockScheme>("gbh-backoff"),
    }
}

pub fn run(platform: &Platform, settings: Settings) -> Result<(), String> {
    let mut rma = open(platform)?;
    let options = WindowOptions::new().lock_scheme(settings.scheme);
    let mut checks = Checks::default();
    lock_mix(&mut rma, &mut checks, options)?;
    counter(&mut rma, &mut checks, options)?;
    mutex(platform, &mut rma, &mut checks, options)?;
    list(&mut rma, &mut checks, options)?;
    accumulate(&mut rma, &mut checks, options)?;
    maxloc(&mut rma, &mut checks, options)?;
    misuse(&mut rma, &mut checks, options)?;
    polled_flag(platform, &mut rma, &mut checks, options)?;
    conclude(
        &mut rma,
        &checks,
        "rma-passive",
        &format!(
            "lock mix, fetch_and_op counter, compare_and_swap mutex and list, accumulate, misuse, a polled flag per memory type; scheme {}",
            name_of(settings.scheme)
        ),
    )
}

/// MAXLOC from every core onto rank 0's pair: the largest value, and the
/// lowest rank among those that hold it.
fn maxloc(rma: &mut Rma<'_, Platform>, c: &mut Checks, options: WindowOptions) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    // Values repeat, so ties happen: rank r offers (3 r) mod 4.
    let offer = |r: u32| Loc {
        value: f64::from((3 * r) % 4),
        index: r as i32,
    };
    let win = rma
        .allocate::<Loc<f64>>(1, options)
        .map_err(fail("allocating the pair"))?;
    rma.local_write(
        win,
        0,
        &[Loc {
            value: f64::MIN,
            index: -1,
        }],
    )
    .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    rma.accumulate(win, 0, 0, &[offer(me)], AccumulateOp::MaxLoc)
        .map_err(fail("MAXLOC accumulate"))?;
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    if me == 0 {
        let best = (0..n)
            .map(offer)
            .fold(None::<Loc<f64>>, |best, o| match best {
                Some(b) if b.value >= o.value => Some(b),
                _ => Some(o),
            });
        let mut got = [Loc {
            value: 0.0,
            index: 0,
        }];
        rma.lock(win, LockType::Shared, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.get(win, 0, 0, &mut got).map_err(fail("get"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
        c.check(Some(got[0]) == best, || {
            format!("MAXLOC: rank 0 holds {:?}, expected {best:?}", got[0])
        });
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the pair"))
}

/// Polls section 6's poller makes before it gives up on seeing the put.
const MAX_POLLS: u32 = 20_000;

/// µs section 6's writer waits before its put, so that the poller reads
/// the flag before it changes.
const WRITER_DELAY_US: u64 = 20;

/// Section 6: a flag polled with get and flush sees a flushed put, on
/// every memory type a window can have. Nothing but the polls runs on the
/// poller between its first read of the flag and the put (a barrier would
/// drop its cached lines, hiding a get that reads an old line).
fn polled_flag(
    platform: &Platform,
    rma: &mut Rma<'_, Platform>,
    c: &mut Checks,
    options: WindowOptions,
) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    if n < 3 {
        return Ok(());
    }
    let (target, writer, poller) = (0, 1, 2);
    for ty in [
        MemoryType::MpbtWt,
        MemoryType::MpbtWb,
        MemoryType::Ncm,
        MemoryType::NcmWcb,
    ] {
        let win = rma
            .allocate::<u32>(1, options.memory_type(ty))
            .map_err(fail("allocating the flag"))?;
        rma.local_write(win, 0, &[0]).map_err(fail("local write"))?;
        rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
        rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
        rma.comm().barrier();
        if me == writer {
            let wait = u64::from(platform.chip().timing.core_mhz) * WRITER_DELAY_US;
            let t0 = platform.cycles();
            while platform.cycles() - t0 < wait {}
            rma.put(win, target, 0, &[1]).map_err(fail("put"))?;
            rma.flush(win, target).map_err(fail("flush"))?;
        }
        if me == poller {
            let mut flag = [0];
            let mut polls = 0;
            while flag[0] == 0 && polls < MAX_POLLS {
                rma.get(win, target, 0, &mut flag).map_err(fail("get"))?;
                rma.flush(win, target).map_err(fail("flush"))?;
                polls += 1;
            }
            c.check(flag[0] == 1, || {
                format!(
                    "polled flag ({ty:?}): read {} after {polls} polls with get and flush, \
                     the writer's flushed 1 never",
                    flag[0]
                )
            });
        }
        rma.unlock_all(win).map_err(fail("unlock_all"))?;
        rma.comm().barrier();
        rma.free(win).map_err(fail("freeing the flag"))?;
    }
    Ok(())
}

/// The value origin `o` writes in round `r`: never 0.
fn block_value(origin: u32, round: u32) -> u32 {
    (origin + 1) << 16 | (round + 1)
}

fn lock_mix(rma: &mut Rma<'_, Platform>, c: &mut Checks, options: WindowOptions) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let win = rma
        .allocate::<u32>(BLOCK, options)
        .map_err(fail("allocating the mix window"))?;
    rma.local_write(win, 0, &[0; BLOCK as usize])
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    let mut rng = Rng::new(0x5EED ^ u64::from(me));
    let mut block = [0u32; BLOCK as usize];
    for round in 0..MIX_ROUNDS {
        let target = rng.below(n);
        if rng.percent(50) {
            rma.lock(win, LockType::Exclusive, target, Assert::NONE)
                .map_err(fail("lock exclusive"))?;
            let v = block_value(me, round);
            rma.put(win, target, 0, &[v; BLOCK as usize])
                .map_err(fail("put"))?;
            rma.flush(win, target).map_err(fail("flush"))?;
            rma.get(win, target, 0, &mut block).map_err(fail("get"))?;
            rma.unlock(win, target).map_err(fail("unlock"))?;
            c.same(&block, &[v; BLOCK as usize], || {
                format!("round {round}: block of core {target} read back under an exclusive lock")
            });
        } else {
            rma.lock(win, LockType::Shared, target, Assert::NONE)
                .map_err(fail("lock shared"))?;
            rma.get(win, target, 0, &mut block).map_err(fail("get"))?;
            rma.unlock(win, target).map_err(fail("unlock"))?;
            let first = block[0];
            let writer = first >> 16;
            c.check(
                block.iter().all(|&w| w == first) && (first == 0 || writer <= n),
                || format!("round {round}: torn or foreign block of core {target} under a shared lock: {block:x?}"),
            );
        }
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the mix window"))
}

fn counter(rma: &mut Rma<'_, Platform>, c: &mut Checks, options: WindowOptions) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let win = rma
        .allocate::<u64>(1, options)
        .map_err(fail("allocating the counter"))?;
    rma.local_write(win, 0, &[0]).map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    let mut fetched = Vec::new();
    for _ in 0..INCREMENTS {
        fetched.push(
            rma.fetch_and_op(win, 0, 0, 1u64, AccumulateOp::Sum)
                .map_err(fail("fetch_and_op"))?,
        );
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    // Every fetched value, everywhere: distinct and exactly 0..total.
    let mine: Vec<u8> = fetched.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut all = vec![0u8; mine.len() * n as usize];
    rma.comm()
        .allgather(&mine, &mut all)
        .map_err(fail("allgather"))?;
    let total = INCREMENTS * u64::from(n);
    if me == 0 {
        let mut values: Vec<u64> = all
            .chunks(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        values.sort_unstable();
        c.check(values.iter().copied().eq(0..total), || {
            format!("fetch_and_op: the {total} fetched values are not 0..{total}")
        });
        let mut last = [0u64];
        rma.lock(win, LockType::Shared, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.local_read(win, 0, &mut last)
            .map_err(fail("local read"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
        c.check(last[0] == total, || {
            format!("fetch_and_op counter is {}, expected {total}", last[0])
        });
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the counter"))
}

/// A spin lock of compare_and_swap on rank 0's word. A failed attempt
/// backs off for a random time below a bound that doubles up to
/// [`MUTEX_BACKOFF_CAP`] cycles: attempts that retry at once hold rank 0's
/// guard in turn, and two such spinners can fall into step and keep the
/// holder from ever releasing (modelled time has none of silicon's timing
/// noise to break the step).
fn mutex(
    platform: &Platform,
    rma: &mut Rma<'_, Platform>,
    c: &mut Checks,
    options: WindowOptions,
) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let mut rng = Rng::new(0x3D7E ^ u64::from(me));
    // Word 0: the mutex (0 free, else holder + 1); word 1: the counter.
    let win = rma
        .allocate::<u32>(2, options)
        .map_err(fail("allocating the mutex"))?;
    rma.local_write(win, 0, &[0, 0])
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    for _ in 0..MUTEX_ROUNDS {
        let mut bound = MUTEX_BACKOFF_FIRST;
        while rma
            .compare_and_swap(win, 0, 0, me + 1, 0)
            .map_err(fail("compare_and_swap"))?
            != 0
        {
            platform.pause(u64::from(rng.below(bound)));
            bound = (bound * 2).min(MUTEX_BACKOFF_CAP);
        }
        let mut count = [0u32];
        rma.get(win, 0, 1, &mut count).map_err(fail("get"))?;
        rma.put(win, 0, 1, &[count[0] + 1]).map_err(fail("put"))?;
        rma.flush(win, 0).map_err(fail("flush"))?;
        let held = rma
            .compare_and_swap(win, 0, 0, 0, me + 1)
            .map_err(fail("compare_and_swap"))?;
        c.check(held == me + 1, || {
            format!("mutex released by core {me} was held by {held}")
        });
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    if me == 0 {
        let mut words = [0u32; 2];
        rma.lock(win, LockType::Shared, 0, Assert::NONE)
            .map_err(fail("lock"))?;
        rma.local_read(win, 0, &mut words)
            .map_err(fail("local read"))?;
        rma.unlock(win, 0).map_err(fail("unlock"))?;
        c.check(words == [0, MUTEX_ROUNDS * n], || {
            format!(
                "after the mutex rounds: mutex {} and counter {}, expected 0 and {}",
                words[0],
                words[1],
                MUTEX_ROUNDS * n
            )
        });
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the mutex"))
}

/// A list link: 0 is the end, else `(rank + 1) << 32 | node`.
fn link(rank: u32, node: u32) -> u64 {
    u64::from(rank + 1) << 32 | u64::from(node)
}

fn list(rma: &mut Rma<'_, Platform>, c: &mut Checks, options: WindowOptions) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    // Element 0: the head (used on rank 0); then per node: key, next.
    let win = rma
        .allocate::<u64>(1 + 2 * NODES, options)
        .map_err(fail("allocating the list"))?;
    rma.local_write(win, 0, &vec![0; 1 + 2 * NODES as usize])
        .map_err(fail("local write"))?;
    rma.fence(win, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
    for node in 0..NODES {
        let key = link(me, node) ^ 0xABCD_0000_0000;
        let mut head = rma
            .fetch_and_op(win, 0, 0, 0u64, AccumulateOp::NoOp)
            .map_err(fail("fetch_and_op"))?;
        loop {
            rma.put(win, me, 1 + 2 * node, &[key, head])
                .map_err(fail("put"))?;
            rma.flush(win, me).map_err(fail("flush"))?;
            let seen = rma
                .compare_and_swap(win, 0, 0, link(me, node), head)
                .map_err(fail("compare_and_swap"))?;
            if seen == head {
                break;
            }
            head = seen;
        }
    }
    rma.unlock_all(win).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    if me == 0 {
        let mut seen = vec![false; (n * NODES) as usize];
        rma.lock_all(win, Assert::NONE).map_err(fail("lock_all"))?;
        let mut at = rma
            .fetch_and_op(win, 0, 0, 0u64, AccumulateOp::NoOp)
            .map_err(fail("fetch_and_op"))?;
        let mut walked = 0;
        while at != 0 && walked <= n * NODES {
            let (rank, node) = ((at >> 32) as u32 - 1, at as u32);
            if rank >= n || node >= NODES {
                c.check(false, || format!("list link {at:#x} points nowhere"));
                break;
            }
            let mut entry = [0u64; 2];
            rma.get(win, rank, 1 + 2 * node, &mut entry)
                .map_err(fail("get"))?;
            c.check(entry[0] == at ^ 0xABCD_0000_0000, || {
                format!("list node {at:#x} has key {:#x}", entry[0])
            });
            let slot = &mut seen[(rank * NODES + node) as usize];
            c.check(!*slot, || format!("list node {at:#x} reached twice"));
            *slot = true;
            at = entry[1];
            walked += 1;
        }
        rma.unlock_all(win).map_err(fail("unlock_all"))?;
        c.check(seen.iter().all(|&s| s), || {
            format!("the list holds {walked} of {} nodes", n * NODES)
        });
    }
    rma.comm().barrier();
    rma.free(win).map_err(fail("freeing the list"))
}

fn accumulate(
    rma: &mut Rma<'_, Platform>,
    c: &mut Checks,
    options: WindowOptions,
) -> Result<(), String> {
    let (n, me) = (rma.size(), rma.rank());
    let ints = rma
        .allocate::<u64>(2 * ACC_LEN, options)
        .map_err(fail("allocating the u64 window"))?;
    let floats = rma
        .allocate::<f64>(ACC_LEN, options)
        .map_err(fail("allocating the f64 window"))?;
    rma.local_write(ints, 0, &vec![0; 2 * ACC_LEN as usize])
        .map_err(fail("local write"))?;
    rma.local_write(floats, 0, &vec![0.0; ACC_LEN as usize])
        .map_err(fail("local write"))?;
    rma.fence(ints, Assert::NOSUCCEED).map_err(fail("fence"))?;
    rma.fence(floats, Assert::NOSUCCEED)
        .map_err(fail("fence"))?;
    let mine = u64::from(me) + 1;
    rma.lock_all(ints, Assert::NONE).map_err(fail("lock_all"))?;
    rma.lock_all(floats, Assert::NONE)
        .map_err(fail("lock_all"))?;
    for k in 0..n {
        let target = (me + k) % n;
        rma.accumulate(
            ints,
            target,
            0,
            &vec![mine; ACC_LEN as usize],
            AccumulateOp::Sum,
        )
        .map_err(fail("accumulate"))?;
        rma.accumulate(
            ints,
            target,
            ACC_LEN,
            &vec![mine; ACC_LEN as usize],
            AccumulateOp::Max,
        )
        .map_err(fail("accumulate"))?;
        rma.accumulate(
            floats,
            target,
            0,
            &vec![mine as f64; ACC_LEN as usize],
            AccumulateOp::Sum,
        )
        .map_err(fail("accumulate"))?;
    }
    rma.unlock_all(ints).map_err(fail("unlock_all"))?;
    rma.unlock_all(floats).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    let sum = u64::from(n) * (u64::from(n) + 1) / 2;
    let mut got = vec![0u64; 2 * ACC_LEN as usize];
    let mut got_f = vec![0.0f64; ACC_LEN as usize];
    rma.lock(ints, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_read(ints, 0, &mut got)
        .map_err(fail("local read"))?;
    rma.unlock(ints, me).map_err(fail("unlock"))?;
    rma.lock(floats, LockType::Shared, me, Assert::NONE)
        .map_err(fail("lock"))?;
    rma.local_read(floats, 0, &mut got_f)
        .map_err(fail("local read"))?;
    rma.unlock(floats, me).map_err(fail("unlock"))?;
    let mut want = vec![sum; ACC_LEN as usize];
    want.extend(vec![u64::from(n); ACC_LEN as usize]);
    c.same(&got, &want, || {
        "u64 SUM and MAX accumulated from every core".into()
    });
    c.same(&got_f, &vec![sum as f64; ACC_LEN as usize], || {
        "f64 SUM accumulated from every core".into()
    });
    rma.comm().barrier();
    rma.free(floats).map_err(fail("freeing"))?;
    rma.free(ints).map_err(fail("freeing"))
}

fn misuse(rma: &mut Rma<'_, Platform>, c: &mut Checks, options: WindowOptions) -> Result<(), String> {
    use ErrorClass::{Op, Request as Req, RmaSync as S, Type};
    let (n, me) = (rma.size(), rma.rank());
    let other = (me + 1) % n;
    let win = rma
        .allocate::<u32>(4, options)
        .map_err(fail("allocating a window"))?;
    let floats = rma
        .allocate::<f64>(4, options)
        .map_err(fail("allocating a window"))?;
    let w = win.id();
    let sync = |call: &str| format!("MPI_ERR_RMA_SYNC: {call} on window {w}: ");
    c.refused(rma.unlock(win, other), S, &sync("unlock"));
    c.refused(rma.flush(win, other), S, &sync("flush"));
    c.refused(rma.rput(win, other, 0, &[1]), S, &sync("rput"));
    c.refused(rma.unlock_all(win), S, &sync("unlock_all"));
    rma.lock(win, LockType::Shared, other, Assert::NONE)
        .map_err(fail("lock"))?;
    c.refused(
        rma.lock(win, LockType::Shared, other, Assert::NONE),
        S,
        &sync("lock"),
    );
    c.refused(rma.lock_all(win, Assert::NONE), S, &sync("lock_all"));
    c.refused(rma.fence(win, Assert::NONE), S, &sync("fence"));
    if n > 1 {
        c.refused(rma.put(win, me, 0, &[1]), S, &sync("put"));
    }
    let request = rma.rget(win, other, 0, &mut [0u32]).map_err(fail("rget"))?;
    let id = request.id();
    rma.wait_request(win, request)
        .map_err(fail("wait_request"))?;
    c.refused(
        rma.wait_request(win, request),
        Req,
        &format!("MPI_ERR_REQUEST: wait_request on window {w}: request {id}"),
    );
    rma.unlock(win, other).map_err(fail("unlock"))?;
    rma.lock_all(floats, Assert::NONE)
        .map_err(fail("lock_all"))?;
    let f = floats.id();
    c.refused(
        rma.accumulate(floats, other, 0, &[1.0], AccumulateOp::Band),
        Op,
        &format!("MPI_ERR_OP: accumulate on window {f}: MPI_BAND on f64"),
    );
    c.refused(
        rma.compare_and_swap(floats, other, 0, 1.0, 0.0),
        Type,
        &format!("MPI_ERR_TYPE: compare_and_swap on window {f}: f64"),
    );
    c.refused(
        rma.accumulate(floats, other, 0, &[1.0], AccumulateOp::NoOp),
        Op,
        &format!("MPI_ERR_OP: accumulate on window {f}: MPI_NO_OP"),
    );
    rma.unlock_all(floats).map_err(fail("unlock_all"))?;
    rma.comm().barrier();
    rma.free(floats).map_err(fail("freeing"))?;
    rma.free(win).map_err(fail("freeing"))
}
