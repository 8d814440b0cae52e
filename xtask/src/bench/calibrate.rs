// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask bench calibrate`: the timing model read back, and how far
//! contended results move with the quantum.
//!
//! - Primitives: the `timing` program times each primitive from inside the
//!   emulated chip (L1 and L2 hits, CL1INVMB, WBINVD, a clock read, loads
//!   from and stores to the MPB at every distance, DRAM behind each
//!   controller, stores to DRAM alone, one more before a load and a third
//!   with both write buffers full, a WCB flush, a test-and-set register's
//!   acquire and release) and prints
//!   `latency <what>: measured <m> expected <e> cycles (clock crossings
//!   +<c> -<s>)` against `chip::Timing`; a primitive off its table entry
//!   is a failure, give or take the crossings between the core's clock
//!   and the mesh's (a cycle at most per mesh round trip timed, `+c`, or
//!   subtracted, `-s`).
//! - Each one-sided call against its access-only bound: `timing` on one
//!   core makes each call `CALLS` times and prints the last one's cycles
//!   (put, get and accumulate of 8 bytes, an exclusive and a shared GBH
//!   lock/unlock pair, a fence, post, start, complete and wait; MPBT-WT
//!   windows, the core its own target). Then once per call, the same run
//!   with that call made once more (`extra`): the difference of core 0's
//!   chip-model counters is the call's instructions and cycles (a PSCW
//!   round's for post, start, complete and wait together). The bound is
//!   what the accesses the call's algorithm must make cost by the table
//!   (`chip::Timing`), nothing for instructions: each access at its
//!   latency on core 0 (a store taken by the write-combine buffer, or the
//!   store that flushes it, one cycle; CL1INVMB 15; a test-and-set
//!   register access of its own tile 51; a DRAM word behind controller 0
//!   76, uncached LSM words and MPBT-WT window reads alike, as MPBT-WT
//!   reads bypass L1). The accesses are counted from the algorithms in
//!   `rma` with the coherence actions MPBT-WT requires ([`CALL_BOUNDS`]).
//! - An uncontended lock/unlock pair broken into its accesses: the
//!   difference of core 0's counters between the run with one exclusive
//!   pair more and the one without, per latency class: its accesses,
//!   their stall cycles, what the table says they cost, and the
//!   instruction issue cycles left over. A class whose stall differs from
//!   its accesses at their table cost is a failure, by more than a cycle
//!   per access where the accesses cross between the clocks.
//! - Contention across quanta and host load: the lock/unlock benchmark on
//!   `LOCK_CORES` cores at quanta of 1,000 to 100,000 cycles, and at the
//!   middle quantum again beside two busy host processes; each
//!   measurement's median per run and their spread (largest over smallest
//!   median, minus one). Modelled time should depend on neither; the
//!   spread shows how much it still does.

use std::process::{Child, Command};

use anyhow::Result;
use chip::Chip;
use emu::model::latency::{CLASSES, Class};
use emu::model::stats::CoreStats;

use super::protocol::Pool;
use super::samples::RawSample;
use super::stats::Summary;
use super::table::{Table, num};
use super::{Ctx, Section, csv};
use crate::run::RunConfig;

/// Times the `timing` program makes each one-sided call: the caches are
/// warm by the last one.
const CALLS: u32 = 8;

/// Cores of the primitives' run: one core sees every distance from tile 0.
const TIMING_CORES: u32 = 2;

/// Cores of the contention runs.
const LOCK_CORES: u32 = 8;

/// Quanta of the contention runs, in core cycles.
const QUANTA: [u64; 3] = [1_000, 10_000, 100_000];

/// The quantum of the contention run beside busy host processes.
const LOADED_QUANTUM: u64 = 10_000;

/// Busy host processes beside the loaded contention run: as many as the
/// 2-core hosts the suite is measured on have hardware threads.
const BUSY_PROCESSES: usize = 2;

/// One primitive as the `timing` program printed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Primitive {
    /// What was timed.
    pub what: String,
    /// Its modelled cost, in core cycles.
    pub measured: u64,
    /// The timing table's entry.
    pub expected: u64,
    /// Mesh round trips timed, each of which may add a cycle as it crosses
    /// between the core's clock and the mesh's.
    pub crossed: u64,
    /// Mesh round trips subtracted, each of which may take one off.
    pub subtracted: u64,
}

impl Primitive {
    /// Whether the modelled cost is the table's, give or take the
    /// clocks' crossings.
    pub fn matches(&self) -> bool {
        chip::reads_back(self.measured, self.expected, self.crossed, self.subtracted)
    }
}

/// The primitive in one serial line, if it is a `latency ...` line.
pub fn parse_primitive(line: &str) -> Option<Primitive> {
    let rest = line.strip_prefix("latency ")?;
    let (what, numbers) = rest.rsplit_once(": measured ")?;
    let (measured, rest) = numbers.split_once(" expected ")?;
    let (expected, crossings) = rest.split_once(" cycles (clock crossings +")?;
    let (crossed, subtracted) = crossings.strip_suffix(')')?.split_once(" -")?;
    Some(Primitive {
        what: what.to_owned(),
        measured: measured.parse().ok()?,
        expected: expected.parse().ok()?,
        crossed: crossed.parse().ok()?,
        subtracted: subtracted.parse().ok()?,
    })
}

/// The experiment.
pub fn calibrate(ctx: &mut Ctx<'_>) -> Result<Section> {
    let mut section = Section::new(super::experiments::experiment("calibrate"));
    primitives(ctx, &mut section)?;
    calls(ctx, &mut section)?;
    contention(ctx, &mut section)?;
    section.notes.push(format!(
        "Primitives come from core 0 of `cargo xtask run --cores {TIMING_CORES} --program timing`; \
         the calls from `cargo xtask run --cores 1 --program timing --param calls={CALLS}`, \
         their instructions and the pair's breakdown from the difference between that and the \
         same with `--param extra=CALL`; contention from `cargo xtask run --cores {LOCK_CORES} --program \
         bench-lock --param scale=quick --param layer=rma --quantum Q` for Q in {QUANTA:?}, and \
         at Q = {LOADED_QUANTUM} beside {BUSY_PROCESSES} busy host processes (`sh -c 'while :; do :; \
         done'`)."
    ));
    Ok(section)
}

/// A `timing` run's configuration on `cores` cores, making each call
/// [`CALLS`] times and `extra` (a name of its `extra` setting) once more.
fn timing_run(cores: u32, extra: &str) -> RunConfig {
    RunConfig {
        params: vec![
            ("calls".into(), CALLS.to_string()),
            ("extra".into(), extra.into()),
        ],
        ..RunConfig::new(cores, "timing")
    }
}

/// Core 0's chip-model counters in a run, if it reported them.
fn core0_stats(report: &crate::run::RunReport) -> Option<CoreStats> {
    report.reports.first()?.as_ref().map(|r| r.stats)
}

/// Times the primitives.
fn primitives(ctx: &mut Ctx<'_>, section: &mut Section) -> Result<()> {
    let report = ctx.boot(timing_run(TIMING_CORES, "none"))?;
    let what = format!("timing on {TIMING_CORES} cores");
    // Failed or not, the lines it printed are tabled.
    section.record(&what, &report);
    let mut table = Table::new(
        "Modelled cost of each primitive against the timing table (modelled time)",
        &[
            "primitive",
            "modelled (cycles)",
            "table (cycles)",
            "difference",
            "ok",
        ],
    );
    table.notes.push(
        "core cycles at 533 MHz; any difference fails beyond the clocks' crossings (a cycle \
             at most per mesh round trip timed, and per round trip subtracted)"
            .into(),
    );
    for p in report.serial(0).iter().filter_map(|l| parse_primitive(l)) {
        section.samples.push(RawSample {
            keys: vec![("primitive".into(), p.what.clone())],
            values: vec![
                ("cycles".into(), p.measured.to_string()),
                ("table cycles".into(), p.expected.to_string()),
            ],
            run: section.last_run(),
            core: Some(0),
        });
        let ok = p.matches();
        if !ok {
            section.failures.push(format!(
                "{}: modelled {} cycles, the table says {}",
                p.what, p.measured, p.expected
            ));
        }
        table.rows.push(vec![
            p.what,
            p.measured.to_string(),
            p.expected.to_string(),
            (p.measured as i64 - p.expected as i64).to_string(),
            if ok { "yes" } else { "NO" }.to_owned(),
        ]);
    }
    if table.rows.is_empty() {
        section
            .failures
            .push(format!("{what}: no `latency` line on core 0"));
    }
    section.csv = Some(csv::write(&table.header, &table.rows));
    section.modeled.push(table);
    Ok(())
}

/// A call's line of a `timing` run: what was timed and its cycles on
/// core 0's clock.
pub fn parse_call(line: &str) -> Option<(String, u64)> {
    let rest = line.strip_prefix("call ")?;
    let (what, rest) = rest.rsplit_once("): ")?;
    let cycles = rest.split_once(" cycles")?.0.parse().ok()?;
    Some((format!("{what})"), cycles))
}

/// The accesses one call's algorithm must make, per latency class, with
/// the coherence actions of an MPBT-WT window, on one core that is its
/// own target (its test-and-set register, its records in the LSM and its
/// window all behind its own tile and memory controller).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallBound {
    /// How the `timing` program's line names the call (its start).
    pub call: &'static str,
    /// The `extra` setting that makes it once more, if it has its own.
    pub extra: Option<&'static str>,
    /// Accesses per class.
    pub accesses: &'static [(Class, u64)],
}

/// Every call `timing` times, with its accesses:
/// - put 8 B: the two word stores into the window, taken by the
///   write-combine buffer.
/// - get 8 B: the guard of the invalidation an earlier get needs (a
///   flushing store), CL1INVMB, the two word loads from DRAM.
/// - accumulate 8 B: the target's test-and-set register taken and given
///   back, the guarded invalidation (flush, CL1INVMB), two word loads and
///   two word stores, the release's flush.
/// - exclusive GBH pair: four atomic updates of the global and the local
///   counter (each a register round trip and a DRAM load and store), the
///   lock's flush and CL1INVMB, the unlock's flush.
/// - shared GBH pair: two updates of the local counter, the same actions.
/// - fence alone: the release's flush and the acquire's CL1INVMB (the
///   barrier of one core makes no access).
/// - post: the completion counter's store, the match bit set under the
///   origin's register (load, store), the local window's release (flush).
/// - start: the guarded invalidation (flush, CL1INVMB).
/// - complete: the release's flush, the match vector's load, the bit
///   cleared under this core's register (load, store), the counter
///   decremented under the target's (load, store).
/// - wait: the counter's load, the guarded invalidation (flush, CL1INVMB).
pub const CALL_BOUNDS: [CallBound; 10] = [
    CallBound {
        call: "put 8 B",
        extra: Some("put"),
        accesses: &[(Class::Wcb, 2)],
    },
    CallBound {
        call: "get 8 B",
        extra: Some("get"),
        accesses: &[(Class::Wcb, 1), (Class::CacheOp, 1), (Class::Dram, 2)],
    },
    CallBound {
        call: "accumulate 8 B",
        extra: Some("accumulate"),
        accesses: &[
            (Class::Register, 2),
            (Class::Wcb, 4),
            (Class::CacheOp, 1),
            (Class::Dram, 2),
        ],
    },
    CallBound {
        call: "lock/unlock pair, exclusive",
        extra: Some("lock-exclusive"),
        accesses: &[
            (Class::Register, 8),
            (Class::Dram, 8),
            (Class::Wcb, 2),
            (Class::CacheOp, 1),
        ],
    },
    CallBound {
        call: "lock/unlock pair, shared",
        extra: Some("lock-shared"),
        accesses: &[
            (Class::Register, 4),
            (Class::Dram, 4),
            (Class::Wcb, 2),
            (Class::CacheOp, 1),
        ],
    },
    CallBound {
        call: "fence",
        extra: Some("fence"),
        accesses: &[(Class::Wcb, 1), (Class::CacheOp, 1)],
    },
    CallBound {
        call: "post",
        extra: None,
        accesses: &[(Class::Register, 2), (Class::Dram, 3), (Class::Wcb, 1)],
    },
    CallBound {
        call: "start",
        extra: None,
        accesses: &[(Class::Wcb, 1), (Class::CacheOp, 1)],
    },
    CallBound {
        call: "complete",
        extra: None,
        accesses: &[(Class::Register, 4), (Class::Dram, 5), (Class::Wcb, 1)],
    },
    CallBound {
        call: "wait",
        extra: None,
        accesses: &[(Class::Dram, 1), (Class::Wcb, 1), (Class::CacheOp, 1)],
    },
];

/// The `extra` setting of a whole PSCW round (post, start, complete and
/// wait, which have none of their own).
const PSCW_EXTRA: &str = "pscw";

impl CallBound {
    /// The call's bound on core 0: each access at its table latency (an L1
    /// hit plus [`table_stall`]).
    pub fn cycles(&self, chip: &Chip) -> u64 {
        let l1 = u64::from(chip.timing.l1_hit);
        self.accesses
            .iter()
            .map(|&(class, n)| n * (l1 + table_stall(chip, class).unwrap_or(0)))
            .sum()
    }

    /// The accesses, as "2 CRB/TSR + 3 DRAM".
    pub fn describe(&self) -> String {
        describe(self.accesses.iter().copied())
    }
}

/// Accesses per class as "2 CRB/TSR + 3 DRAM".
fn describe(accesses: impl Iterator<Item = (Class, u64)>) -> String {
    let parts: Vec<String> = accesses
        .filter(|&(_, n)| n > 0)
        .map(|(class, n)| format!("{n} {}", class.name()))
        .collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(" + ")
    }
}

/// What one access of `class` stalls core 0 beyond an L1 hit, by the
/// table, for a lock on a core of its own tile (whose registers, MPB and
/// memory controller are core 0's own): `None` for a class whose cost
/// depends on more than that, or that is not an access.
pub fn table_stall(chip: &Chip, class: Class) -> Option<u64> {
    let t = &chip.timing;
    let l1 = u64::from(t.l1_hit);
    let tile = chip.tile(0).ok()?;
    let here = chip.tile_coord(tile);
    let port = chip.memory_controllers[chip.controller_of(tile)].port.tile;
    let routers = |to| chip.hops(here, to) + 1;
    match class {
        Class::L1
        | Class::Wcb
        | Class::MpbWait
        | Class::CrbWait
        | Class::LinkWait
        | Class::Buffered => Some(0),
        Class::L2 => Some(u64::from(t.l2_hit) - l1),
        Class::MpbLocal | Class::Register => Some(t.mpb_access(routers(here)) - l1),
        Class::Dram => Some(t.dram_access(routers(port)) - l1),
        Class::CacheOp => Some(u64::from(t.cl1invmb) - l1),
        Class::Clock => Some(u64::from(t.clock_read) - t.clock_read_issue()),
        Class::MpbRemote
        | Class::MemctlWait
        | Class::Fpga
        | Class::WriteBack
        | Class::BufferWait
        | Class::Crossing
        | Class::Atomic => None,
    }
}

/// One class of the pair's breakdown: accesses, stall cycles, and what
/// the table makes of the accesses (`None`: not checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassShare {
    /// The latency class.
    pub class: Class,
    /// Accesses (or operations) of the class.
    pub count: u64,
    /// Their stall cycles beyond an L1 hit.
    pub cycles: u64,
    /// The table's stall per access, where it is fixed.
    pub table: Option<u64>,
}

impl ClassShare {
    /// Whether the stall is its accesses at their table cost exactly, or
    /// the class is not checked. The clocks' crossing is a class of its
    /// own: a difference of two runs could not tell it apart, since the
    /// accesses after the extra call cross at other phases.
    pub fn matches(&self) -> bool {
        self.table.is_none_or(|t| self.cycles == self.count * t)
    }
}

/// What `after` counted beyond `before`, per class with any access or
/// cycle, and the cycles in all.
pub fn breakdown(chip: &Chip, before: &CoreStats, after: &CoreStats) -> (Vec<ClassShare>, u64) {
    let shares = (0..CLASSES)
        .map(|i| ClassShare {
            class: Class::ALL[i],
            count: after.class_count[i].saturating_sub(before.class_count[i]),
            cycles: after.class_cycles[i].saturating_sub(before.class_cycles[i]),
            table: table_stall(chip, Class::ALL[i]),
        })
        .filter(|s| s.count > 0 || s.cycles > 0)
        .collect();
    (shares, after.cycles.saturating_sub(before.cycles))
}

/// The one-sided calls against their bounds, and the exclusive pair
/// broken into its accesses.
fn calls(ctx: &mut Ctx<'_>, section: &mut Section) -> Result<()> {
    // One core alone: no other core to wait for, so two runs differ by
    // the extra call only.
    let extras = CALL_BOUNDS
        .iter()
        .filter_map(|b| b.extra)
        .chain([PSCW_EXTRA]);
    let mut runs = Vec::new();
    for extra in ["none"].into_iter().chain(extras) {
        let run = ctx.boot(timing_run(1, extra))?;
        let what = format!("timing on 1 core, extra={extra}");
        if !section.record(&what, &run) {
            return Ok(());
        }
        let Some(stats) = core0_stats(&run) else {
            section
                .failures
                .push(format!("{what}: core 0 reported no chip-model counters"));
            return Ok(());
        };
        runs.push((extra, stats, run));
    }
    let chip = chip::DEFAULT_CHIP;
    let (_, base, report) = &runs[0];
    let extra = |name: &str| {
        runs.iter()
            .find(|(e, _, _)| *e == name)
            .map(|(_, stats, _)| stats.insns.saturating_sub(base.insns))
    };
    let lines: Vec<(String, u64)> = report
        .serial(0)
        .iter()
        .filter_map(|l| parse_call(l))
        .collect();
    let mut table = Table::new(
        "Each one-sided call against its access-only bound (modelled time)",
        &[
            "call",
            "instructions",
            "cycles",
            "bound (cycles)",
            "bound's accesses",
            "cycles / bound",
        ],
    );
    table.notes.push(format!(
        "core 0 alone, the last of {CALLS} calls on its own MPBT-WT window; cycles on its clock \
         (one clock read included); instructions from the counters' difference with one call \
         more, untimed (a whole PSCW round for post, start, complete and wait); bound = the accesses \
         the algorithm must make at their table latency, instructions free"
    ));
    for bound in &CALL_BOUNDS {
        let Some((what, cycles)) = lines.iter().find(|(w, _)| w.starts_with(bound.call)) else {
            section.failures.push(format!(
                "timing printed no line for the call {}",
                bound.call
            ));
            continue;
        };
        let insns = bound.extra.and_then(extra);
        let b = bound.cycles(chip);
        section.samples.push(RawSample {
            keys: vec![("call".into(), what.clone())],
            values: vec![
                ("cycles".into(), cycles.to_string()),
                (
                    "instructions".into(),
                    insns.map_or(String::new(), |i| i.to_string()),
                ),
                ("bound cycles".into(), b.to_string()),
            ],
            run: section.last_run(),
            core: Some(0),
        });
        table.rows.push(vec![
            what.clone(),
            insns.map_or("-".to_owned(), |i| i.to_string()),
            cycles.to_string(),
            b.to_string(),
            bound.describe(),
            num(*cycles as f64 / b as f64, 1),
        ]);
    }
    if let Some(insns) = extra(PSCW_EXTRA) {
        let parts = CALL_BOUNDS.iter().filter(|b| b.extra.is_none());
        let cycles: u64 = parts
            .clone()
            .filter_map(|p| lines.iter().find(|(w, _)| w.starts_with(p.call)))
            .map(|(_, c)| c)
            .sum();
        let b: u64 = parts.clone().map(|p| p.cycles(chip)).sum();
        let mut sum = [0u64; CLASSES];
        for p in parts {
            for &(class, n) in p.accesses {
                sum[class as usize] += n;
            }
        }
        table.rows.push(vec![
            "PSCW round (post, start, complete, wait)".to_owned(),
            insns.to_string(),
            cycles.to_string(),
            b.to_string(),
            describe(Class::ALL.iter().map(|&c| (c, sum[c as usize]))),
            num(cycles as f64 / b as f64, 1),
        ]);
    }
    section.modeled.push(table);
    if let Some((_, after, _)) = runs.iter().find(|(e, _, _)| *e == "lock-exclusive") {
        lock_pair(section, base, after, &lines);
    }
    Ok(())
}

/// The exclusive lock/unlock pair broken into its accesses: what `after`
/// counted beyond `before`.
fn lock_pair(
    section: &mut Section,
    before: &CoreStats,
    after: &CoreStats,
    lines: &[(String, u64)],
) {
    let measured = lines
        .iter()
        .find(|(w, _)| w.starts_with("lock/unlock pair, exclusive"))
        .map(|(_, c)| *c);
    let chip = chip::DEFAULT_CHIP;
    let (shares, total) = breakdown(chip, before, after);
    let mut table = Table::new(
        "An uncontended lock/unlock pair broken into its accesses (modelled time)",
        &[
            "class",
            "accesses",
            "stall (cycles)",
            "table stall per access",
            "ok",
        ],
    );
    table.notes.push(format!(
        "core 0, alone, takes and gives back an exclusive GBH lock on its own part of a window; the \
         counters of one more pair, untimed; \
         stall = core cycles beyond an L1 hit; MC-wait holds DRAM refresh (no other core's requests) \
         and crossing the cycles mesh accesses took crossing the clocks, neither checked. The program's clock gave the pair {} cycles.",
        measured.map_or("no".to_owned(), |c| c.to_string())
    ));
    let mut stalls = 0;
    for share in &shares {
        stalls += share.cycles;
        if !share.matches() {
            section.failures.push(format!(
                "lock/unlock pair: {} stalled {} cycles in {} accesses, the table says {} each",
                share.class.name(),
                share.cycles,
                share.count,
                share.table.unwrap_or(0)
            ));
        }
        table.rows.push(vec![
            share.class.name().to_owned(),
            share.count.to_string(),
            share.cycles.to_string(),
            share.table.map_or("-".to_owned(), |t| t.to_string()),
            if share.table.is_none() {
                "-"
            } else if share.matches() {
                "yes"
            } else {
                "NO"
            }
            .to_owned(),
        ]);
    }
    let insns = after.insns.saturating_sub(before.insns);
    let idle = after.idle_cycles.saturating_sub(before.idle_cycles);
    if idle > 0 {
        table.rows.push(vec![
            "waiting".to_owned(),
            String::new(),
            idle.to_string(),
            String::new(),
            String::new(),
        ]);
    }
    table.rows.push(vec![
        format!("instruction issue ({insns} instructions)"),
        String::new(),
        total.saturating_sub(stalls + idle).to_string(),
        String::new(),
        String::new(),
    ]);
    table.rows.push(vec![
        "total".to_owned(),
        String::new(),
        total.to_string(),
        String::new(),
        String::new(),
    ]);
    section.modeled.push(table);
}

/// Processes that keep host CPUs busy until dropped: the load beside
/// which modelled time must not move.
#[derive(Debug)]
pub struct Busy(Vec<Child>);

impl Busy {
    /// Starts `n` busy loops (`sh -c 'while :; do :; done'`).
    pub fn start(n: usize) -> Result<Self> {
        let mut busy = Self(Vec::new());
        for _ in 0..n {
            busy.0.push(
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()?,
            );
        }
        Ok(busy)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn contention(ctx: &mut Ctx<'_>, section: &mut Section) -> Result<()> {
    // Per measurement (its keys), the median at each quantum.
    let mut medians: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    let runs = QUANTA.iter().map(|&q| (q, false));
    let runs: Vec<(u64, bool)> = runs.chain([(LOADED_QUANTUM, true)]).collect();
    for (q, &(quantum, loaded)) in runs.iter().enumerate() {
        let busy = if loaded {
            Some(Busy::start(BUSY_PROCESSES)?)
        } else {
            None
        };
        let config = RunConfig {
            params: vec![
                ("scale".into(), "quick".into()),
                ("layer".into(), "rma".into()),
            ],
            mode: super::host::timed(quantum),
            ..RunConfig::new(LOCK_CORES, "bench-lock")
        };
        let report = ctx.boot(config)?;
        drop(busy);
        let load = if loaded {
            ", beside busy processes"
        } else {
            ""
        };
        let what = format!("bench-lock on {LOCK_CORES} cores, quantum {quantum}{load}");
        if !section.record(&what, &report) {
            continue;
        }
        let mut pool = Pool::default();
        for core in &report.cores {
            pool.add_serial(section.last_run(), core.core, &core.serial);
        }
        section.failures.extend(pool.errors.iter().cloned());
        let rows = pool.rows("lock-unlock");
        let mut samples = super::raw_samples(&super::key_names(&rows), &rows);
        for s in &mut samples {
            s.keys.insert(0, ("quantum".into(), quantum.to_string()));
            s.keys.insert(
                1,
                ("host".into(), if loaded { "busy" } else { "idle" }.into()),
            );
        }
        section.samples.append(&mut samples);
        for row in rows {
            if row.key("procs") != Some(&LOCK_CORES.to_string()) {
                continue;
            }
            let name = row
                .keys
                .iter()
                .filter(|(k, _)| k != "procs")
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            let median = Summary::of_u64(&row.cycles()).map(|s| s.median);
            match medians.iter_mut().find(|(n, _)| *n == name) {
                Some((_, m)) => m[q] = median,
                None => {
                    let mut m = vec![None; runs.len()];
                    m[q] = median;
                    medians.push((name, m));
                }
            }
        }
    }
    let mut header = vec!["measurement".to_owned()];
    header.extend(runs.iter().map(|&(q, loaded)| {
        if loaded {
            format!("Q={q}, busy host (µs)")
        } else {
            format!("Q={q} (µs)")
        }
    }));
    header.push("spread %".to_owned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(
        format!(
            "Lock/unlock medians on {LOCK_CORES} processes across quanta and host load (modelled time)"
        ),
        &header,
    );
    table
        .notes
        .push("median µs per quantum; spread = largest / smallest median - 1".into());
    let mhz = chip::DEFAULT_CHIP.timing.core_mhz as f64;
    for (name, m) in medians {
        let mut row = vec![name];
        row.extend(
            m.iter()
                .map(|v| v.map_or(String::new(), |c| num(c / mhz, 2))),
        );
        let known: Vec<f64> = m.iter().flatten().copied().collect();
        let spread = match (
            known.iter().copied().reduce(f64::min),
            known.iter().copied().reduce(f64::max),
        ) {
            (Some(lo), Some(hi)) if lo > 0.0 && known.len() == runs.len() => {
                num((hi / lo - 1.0) * 100.0, 1)
            }
            _ => String::new(),
        };
        row.push(spread);
        table.rows.push(row);
    }
    section.modeled.push(table);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_calls_line_is_read() {
        assert_eq!(
            parse_call(
                "call lock/unlock pair, exclusive (GBH, MPBT-WT, on core 1's window): 3716 cycles, the last of 8"
            ),
            Some((
                "lock/unlock pair, exclusive (GBH, MPBT-WT, on core 1's window)".to_owned(),
                3716
            ))
        );
        assert_eq!(parse_call("call fence (GBH): many cycles"), None);
        assert_eq!(
            parse_call("latency L1 hit: measured 1 expected 1 cycles"),
            None
        );
    }

    #[test]
    fn a_calls_bound_is_its_accesses_at_table_latency() {
        let chip = chip::DEFAULT_CHIP;
        let bound = |call: &str| {
            CALL_BOUNDS
                .iter()
                .find(|b| b.call == call)
                .map(|b| b.cycles(chip))
        };
        // Two stores into the write-combine buffer.
        assert_eq!(bound("put 8 B"), Some(2));
        // A flush, CL1INVMB (15) and two DRAM words at 76.
        assert_eq!(bound("get 8 B"), Some(1 + 15 + 2 * 76));
        // Eight register accesses at 51, eight DRAM words, two flushes, CL1INVMB.
        assert_eq!(
            bound("lock/unlock pair, exclusive"),
            Some(8 * 51 + 8 * 76 + 2 + 15)
        );
        assert_eq!(
            CALL_BOUNDS[2].describe(),
            "2 CRB/TSR + 4 WCB + 1 cache-op + 2 DRAM"
        );
        // Every call with a line of its own has a bound.
        assert!(CALL_BOUNDS.iter().all(|b| b.cycles(chip) > 0));
    }

    #[test]
    fn the_table_stalls_are_the_scc_figures_less_an_l1_hit() {
        let chip = chip::DEFAULT_CHIP;
        // 51-cycle own-tile MPB and register accesses, 76-cycle DRAM at
        // controller 0, CL1INVMB 15, a clock read 7 of which 2 issue.
        assert_eq!(table_stall(chip, Class::Register), Some(50));
        assert_eq!(table_stall(chip, Class::MpbLocal), Some(50));
        assert_eq!(table_stall(chip, Class::Dram), Some(75));
        assert_eq!(table_stall(chip, Class::L2), Some(17));
        assert_eq!(table_stall(chip, Class::CacheOp), Some(14));
        assert_eq!(table_stall(chip, Class::Clock), Some(5));
        assert_eq!(table_stall(chip, Class::CrbWait), Some(0));
        assert_eq!(table_stall(chip, Class::MemctlWait), None);
    }

    #[test]
    fn the_breakdown_is_the_difference_and_checks_each_class() {
        let chip = chip::DEFAULT_CHIP;
        let before = CoreStats::default();
        let mut after = CoreStats::default();
        let at = |c: Class| Class::ALL.iter().position(|&k| k == c).unwrap();
        after.class_count[at(Class::Register)] = 8;
        after.class_cycles[at(Class::Register)] = 400;
        after.class_count[at(Class::Dram)] = 8;
        after.class_cycles[at(Class::Dram)] = 8 * 75 + 1;
        after.class_count[at(Class::MemctlWait)] = 1;
        after.class_cycles[at(Class::MemctlWait)] = 297;
        after.class_count[at(Class::Crossing)] = 9;
        after.class_cycles[at(Class::Crossing)] = 9;
        after.cycles = 4000;
        let (shares, total) = breakdown(chip, &before, &after);
        assert_eq!(total, 4000);
        let names: Vec<&str> = shares.iter().map(|s| s.class.name()).collect();
        assert_eq!(names, ["DRAM", "MC-wait", "CRB/TSR", "crossing"]);
        let ok: Vec<bool> = shares.iter().map(ClassShare::matches).collect();
        // One cycle too many at DRAM fails (the clocks' crossing is its
        // own class); the refresh and the crossings are not checked.
        assert_eq!(ok, [false, true, true, true]);
        after.class_cycles[at(Class::Dram)] = 8 * 75;
        let (shares, _) = breakdown(chip, &before, &after);
        assert!(shares.iter().all(ClassShare::matches), "{shares:?}");
        after.class_cycles[at(Class::Dram)] = 8 * 75 - 1;
        let (shares, _) = breakdown(chip, &before, &after);
        assert!(!shares[0].matches());
    }

    #[test]
    fn the_timing_programs_lines_are_read() {
        assert_eq!(
            parse_primitive(
                "latency TSR round trip (acquire and release): measured 103 expected 102 cycles (clock crossings +2 -0)"
            ),
            Some(Primitive {
                what: "TSR round trip (acquire and release)".into(),
                measured: 103,
                expected: 102,
                crossed: 2,
                subtracted: 0,
            })
        );
        let p = |line: &str| parse_primitive(line).unwrap();
        assert!(p("latency a: measured 103 expected 102 cycles (clock crossings +2 -0)").matches());
        assert!(
            !p("latency a: measured 105 expected 102 cycles (clock crossings +2 -0)").matches()
        );
        assert!(
            !p("latency a: measured 101 expected 102 cycles (clock crossings +2 -0)").matches()
        );
        assert!(p("latency a: measured 100 expected 102 cycles (clock crossings +3 -2)").matches());
        assert!(p("latency L1: measured 1 expected 1 cycles (clock crossings +0 -0)").matches());
        assert!(!p("latency L1: measured 2 expected 1 cycles (clock crossings +0 -0)").matches());
        for other in [
            "timing self-check passed: 16 latencies",
            "latency x: measured many expected 3 cycles (clock crossings +0 -0)",
            "latency x: measured 3 expected 3 cycles",
            "latency x: measured 3 expected 3",
        ] {
            assert_eq!(parse_primitive(other), None, "{other}");
        }
    }
}
