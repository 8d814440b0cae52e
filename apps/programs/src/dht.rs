// SPDX-License-Identifier: MIT OR Apache-2.0
//! The distributed hash table of the passive-target reference (3.5) on
//! rma's [`rma::dht`]: lookups under a shared lock and get, inserts under
//! an exclusive lock and put, on the owning core's part of one window.
//!
//! Settings: `scheme` (the window's lock scheme), `size` (bytes per
//! value), `memory` (the window's memory type: uncached by default, as the
//! reference keeps the table's data in uncached DRAM "accessed with
//! uncached memory operations"; rma's default MPBT-WT as an option) and
//! `mode`:
//! - `verify`: every core inserts [`KEYS_PER_CORE`] keys, meets the
//!   others in a barrier and looks up every other core's keys, checking
//!   every value byte; then every core replaces its values with a second
//!   version and the lookups are repeated (a reader whose lock did not drop
//!   its cached lines would read the first version); last, keys nobody
//!   inserted must be absent. Core 0 prints the summed checks and its own
//!   statistics.
//! - `bench`: the reference's writer-impact measurement. Core 0, the
//!   writer, stores [`RUNS`] values under keys that live in its own part
//!   while `readers` cores look them up, and prints the cycles of each
//!   write's put and unlock (the metric of the reference; modelled SCC
//!   core cycles, `rma::hal::Clock`) in one `BENCH dht-writer ...` line.
//!   As in the reference the writer gets the lock first: in each run it
//!   takes the exclusive lock while the readers wait in a barrier, meets
//!   them there, waits `settle` µs so that they are contending for the
//!   lock (polling its counter, backing off as the scheme says), then puts
//!   the value and unlocks, timed. The reference gives no such wait; 10 µs
//!   is a stated assumption (about twenty uncontended lock attempts), and
//!   the benchmark suite sweeps it to show how much it matters. Each reader looks the run's key up
//!   again and again until it reads the new value (the write is over; any
//!   value but the old or the new one fails a check), and everyone meets
//!   in a barrier before the next run. Readers are chosen by `placement`:
//!   `close` takes cores 1-5 and 12-17 (core 0's memory controller
//!   domain), `distant` cores 6-11 and 18-23 (the next controller's); with
//!   0 or 47 readers there is no choice. Cores that do not read only meet
//!   the others in the barriers. After the last run the readers stop.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use rma::chip::MemoryType;
use rma::dht::{Dht, DhtConfig, DhtStats, fill_value, value_version};
use rma::hal::Clock;
use rma::{LockScheme, WindowOptions};

use kernel::Platform;
use kernel::chip::settings::{Choice, bytes, choice, integer, name_of};

use crate::support::osc::{Checks, conclude, fail, open, stats_line};

/// Keys each core inserts in `verify`.
const KEYS_PER_CORE: u32 = 8;
/// Entries per core's part in `verify`: room for the keys' uneven spread.
const VERIFY_SLOTS: u32 = 32;
/// Timed writes in `bench`: the reference takes the median of 101.
pub const RUNS: usize = 101;
/// Keys in core 0's part the writer cycles through, and the readers read.
const BENCH_KEYS: usize = 16;
/// Entries per core's part in `bench`.
const BENCH_SLOTS: u32 = 32;
/// Readers nearest core 0 (its memory controller's domain), in the order
/// they are taken.
const CLOSE: [u32; 11] = [1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17];
/// Readers at the next memory controller, in the order they are taken.
const DISTANT: [u32; 12] = [6, 7, 8, 9, 10, 11, 18, 19, 20, 21, 22, 23];

/// Key `i` of core `core`: disjoint between cores, never 0.
fn key(core: u32, i: u32) -> u64 {
    ((u64::from(core) + 1) << 32) | (u64::from(i) + 1)
}

/// What the program does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every core inserts and checks every other core's keys.
    Verify,
    /// Core 0 writes while readers look up: the writer-impact measurement.
    Bench,
}

impl Choice for Mode {
    const ALL: &'static [Self] = &[Self::Verify, Self::Bench];
    const NAMES: &'static [&'static str] = &["verify", "bench"];
}

/// Where the readers of `bench` are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// At core 0's memory controller: [`CLOSE`].
    Close,
    /// At the next controller: [`DISTANT`].
    Distant,
}

impl Choice for Placement {
    const ALL: &'static [Self] = &[Self::Close, Self::Distant];
    const NAMES: &'static [&'static str] = &["close", "distant"];
}

kernel::chip::settings! {
    /// dht's settings.
    pub struct Settings {
        /// how the window's locks are taken: GBH, GBH with exponential back-off, or MCS-WP (queue lock, writer preference)
        scheme: LockScheme = choice::<LockScheme>("gbh-backoff"),
        /// verify: every core inserts keys and checks every other core's; bench: core 0 writes 101 entries of its part while readers look them up, printing the put+unlock cycles
        mode: Mode = choice::<Mode>("verify"),
        /// bytes per value
        size: u32 = bytes(4..=4096, "32"),
        /// bench: cores that look up core 0's entries while it writes (0, 1 to 11 close or 12 distant, or 47)
        readers: u32 = integer(0..=47, "11"),
        /// bench: readers on cores 1-5 and 12-17 (core 0's memory controller) or on cores 6-11 and 18-23 (the next one); no difference for 0 or 47 readers
        placement: Placement = choice::<Placement>("close"),
        /// the table window's memory type: ncm (uncached, as the reference) or another of dcm, ncm-wcb, mpbt-wb, mpbt-wt
        memory: MemoryType = choice::<MemoryType>("ncm"),
        /// bench: µs the writer waits, holding the lock, after letting the readers go and before its timed put (the reference gives none; 10 is a stated assumption)
        settle: u32 = integer(0..=10_000, "10"),
    }
}

pub fn run(platform: &Platform, settings: Settings) -> Result<(), String> {
    match settings.mode {
        Mode::Verify => verify(platform, settings),
        Mode::Bench => bench(platform, settings),
    }
}

/// The table window's options: its lock scheme and memory type.
fn window_options(scheme: LockScheme, memory: MemoryType) -> WindowOptions {
    WindowOptions::new().lock_scheme(scheme).memory_type(memory)
}

fn value(key: u64, version: u32, size: u32) -> Vec<u8> {
    let mut v = vec![0; size as usize];
    fill_value(key, version, &mut v);
    v
}

/// One line of a table's statistics on this core.
fn dht_line(s: &DhtStats) -> String {
    format!(
        "{} inserts ({} updates, {} refused as full), {} lookups ({} found), {} probes, {} cycles in puts and unlocks",
        s.inserts, s.updates, s.full, s.lookups, s.found, s.probes, s.write_cycles
    )
}

fn verify(platform: &Platform, settings: Settings) -> Result<(), String> {
    let Settings {
        scheme,
        size,
        memory,
        ..
    } = settings;
    let mut rma = open(platform)?;
    let (n, me) = (rma.size(), rma.rank());
    let config = DhtConfig::new(VERIFY_SLOTS, size).options(window_options(scheme, memory));
    let mut dht = Dht::new(&mut rma, config).map_err(fail("making the table"))?;
    let mut checks = Checks::default();
    let mut buf = vec![0; size as usize];
    for version in 1..=2 {
        for i in 0..KEYS_PER_CORE {
            let k = key(me, i);
            dht.insert(&mut rma, k, &value(k, version, size))
                .map_err(fail("insert"))?;
        }
        rma.comm().barrier();
        for other in (1..n).map(|d| (me + d) % n) {
            for i in 0..KEYS_PER_CORE {
                let k = key(other, i);
                let found = dht.lookup(&mut rma, k, &mut buf).map_err(fail("lookup"))?;
                let got = found.then(|| value_version(k, &buf));
                checks.check(got == Some(Some(version)), || {
                    format!(
                        "key {k:#x} of core {other} on core {}: {} (version {version} inserted)",
                        dht.locate(k).0,
                        match got {
                            None => String::from("not found"),
                            Some(None) => String::from("a value that is not the key's"),
                            Some(Some(v)) => format!("version {v}"),
                        }
                    )
                });
            }
        }
        rma.comm().barrier();
    }
    for i in 0..KEYS_PER_CORE {
        let k = key(n + me, i);
        let found = dht.lookup(&mut rma, k, &mut buf).map_err(fail("lookup"))?;
        checks.check(!found, || format!("key {k:#x} found, never inserted"));
    }
    let stats = dht.stats();
    let window = rma.stats(dht.window()).map_err(fail("statistics"))?;
    conclude(
        &mut rma,
        &checks,
        "dht",
        &format!(
            "scheme={} size={size} memory={}: {KEYS_PER_CORE} keys inserted per core in {VERIFY_SLOTS} slots per core, every other core's found with every value byte right, twice (the second time replaced); keys never inserted absent",
            name_of(scheme),
            name_of(memory)
        ),
    )?;
    if me == 0 {
        kernel::println!("dht core 0: {}", dht_line(&stats));
        kernel::println!("dht window (core 0): {}", stats_line(&window));
    }
    rma.comm().barrier();
    dht.free(&mut rma).map_err(fail("freeing the table"))
}

/// The reader cores for `readers` and `placement` on a run of `n` cores.
fn reader_cores(readers: u32, placement: Placement, n: u32) -> Result<Vec<u32>, String> {
    let cores: Vec<u32> = match readers {
        0 => Vec::new(),
        47 => (1..48).collect(),
        r => {
            let order: &[u32] = match placement {
                Placement::Close => &CLOSE,
                Placement::Distant => &DISTANT,
            };
            order.iter().copied().take(r as usize).collect()
        }
    };
    if cores.len() != readers as usize || cores.iter().any(|&c| c >= n) {
        return Err(format!(
            "dht: readers={readers} placement={} needs cores up to {}, the run has {n}",
            name_of(placement),
            cores.iter().max().map_or(readers, |&c| c.max(readers))
        ));
    }
    Ok(cores)
}

fn bench(platform: &Platform, settings: Settings) -> Result<(), String> {
    let Settings {
        scheme,
        size,
        readers,
        placement,
        memory,
        settle,
        ..
    } = settings;
    let mut rma = open(platform)?;
    let (n, me) = (rma.size(), rma.rank());
    let reader_cores = reader_cores(readers, placement, n)?;
    let reading = reader_cores.contains(&me);
    let config = DhtConfig::new(BENCH_SLOTS, size).options(window_options(scheme, memory));
    let mut dht = Dht::new(&mut rma, config).map_err(fail("making the table"))?;
    let keys = dht.keys_on(0, 1, BENCH_KEYS);
    let settle_cycles = u64::from(platform.chip().timing.core_mhz) * u64::from(settle);
    let mut checks = Checks::default();
    // Warm-up: the writer stores every key once (version 1), mapping its
    // part and giving the readers something to find from the start.
    if me == 0 {
        for &k in &keys {
            dht.insert(&mut rma, k, &value(k, 1, size))
                .map_err(fail("warm-up insert"))?;
        }
    }
    rma.comm().barrier();
    let mut samples = Vec::with_capacity(RUNS);
    let mut buf = vec![0; size as usize];
    for run in 0..RUNS {
        let k = keys[run % keys.len()];
        let new = run as u32 + 2;
        // The version of the key's previous write (1: the warm-up's).
        let old = if run < keys.len() {
            1
        } else {
            new - keys.len() as u32
        };
        if me == 0 {
            // Lock, then let the readers start and spin before the write.
            dht.insert_holding(&mut rma, k, &value(k, new, size), |rma| {
                rma.comm().barrier();
                let t0 = platform.cycles();
                while platform.cycles() - t0 < settle_cycles {}
            })
            .map_err(fail("writer insert"))?;
            samples.push(dht.stats().last_write_cycles);
        } else {
            rma.comm().barrier();
            // Read until the new value shows: the write is over.
            if reading {
                loop {
                    let found = dht.lookup(&mut rma, k, &mut buf).map_err(fail("lookup"))?;
                    let got = found.then(|| value_version(k, &buf)).flatten();
                    checks.check(got == Some(old) || got == Some(new), || {
                        format!(
                            "key {k:#x} in run {run}: read {got:?}, expected version {old} or {new}"
                        )
                    });
                    if got == Some(new) {
                        break;
                    }
                }
            }
        }
        rma.comm().barrier();
    }
    if me == 0 {
        let cycles: Vec<String> = samples.iter().map(|c| format!("{c}")).collect();
        kernel::println!(
            "BENCH dht-writer scheme={} readers={readers} size={size} placement={} memory={} settle={} cycles={}",
            name_of(scheme),
            name_of(placement),
            name_of(memory),
            settle,
            cycles.join(",")
        );
    }
    let stats = dht.stats();
    conclude(
        &mut rma,
        &checks,
        "dht",
        &format!(
            "bench: core 0 wrote {RUNS} values of {size} bytes in its part while {readers} readers ({}) looked them up; every value read whole, the old or the new",
            name_of(placement)
        ),
    )?;
    let mut lookups = [stats.lookups as u32];
    rma.comm()
        .allreduce(&mut lookups, rma::comm::ReduceOp::Sum)
        .map_err(fail("summing lookups"))?;
    if me == 0 {
        kernel::println!(
            "dht bench: {} lookups by the readers; writer: {}",
            lookups[0],
            dht_line(&stats)
        );
    }
    rma.comm().barrier();
    dht.free(&mut rma).map_err(fail("freeing the table"))
}
