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
//!   `latency <what>: measured <m> expected <e> cycles` against
//!   `chip::Timing`; a primitive off its table entry is a failure.
//! - An uncontended lock/unlock pair broken into its accesses: `timing`
//!   again with one pair more (`PAIRS` + 1); the difference of core 0's
//!   chip-model counters between the two runs is one more pair of the timed
//!   loop, per latency class: its accesses, their stall cycles, what the
//!   table says they cost, and the instruction issue cycles left over. A
//!   class whose stall differs from its accesses at their table cost is a
//!   failure.
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

/// Lock/unlock pairs of the first breakdown run: the caches are warm by
/// the last one.
const PAIRS: u32 = 8;

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
}

/// The primitive in one serial line, if it is a `latency ...` line.
pub fn parse_primitive(line: &str) -> Option<Primitive> {
    let rest = line.strip_prefix("latency ")?;
    let (what, numbers) = rest.rsplit_once(": measured ")?;
    let (measured, rest) = numbers.split_once(" expected ")?;
    let expected = rest.strip_suffix(" cycles")?;
    Some(Primitive {
        what: what.to_owned(),
        measured: measured.parse().ok()?,
        expected: expected.parse().ok()?,
    })
}

/// The experiment.
pub fn calibrate(ctx: &mut Ctx<'_>) -> Result<Section> {
    let mut section = Section::new(super::experiments::experiment("calibrate"));
    primitives(ctx, &mut section)?;
    lock_pair(ctx, &mut section)?;
    contention(ctx, &mut section)?;
    section.notes.push(format!(
        "Primitives come from core 0 of `cargo xtask run --cores {TIMING_CORES} --program timing`; \
         the pair's breakdown from the difference between `cargo xtask run --cores 1 --program \
         timing --param pairs={PAIRS}` and the same with `--param pairs={}`; contention from `cargo xtask run --cores {LOCK_CORES} --program \
         bench-lock --param scale=quick --param layer=rma --quantum Q` for Q in {QUANTA:?}, and \
         at Q = {LOADED_QUANTUM} beside {BUSY_PROCESSES} busy host processes (`sh -c 'while :; do :; \
         done'`).",
        PAIRS + 1
    ));
    Ok(section)
}

/// A `timing` run's configuration on `cores` cores with `pairs`
/// lock/unlock pairs.
fn timing_run(cores: u32, pairs: u32) -> RunConfig {
    RunConfig {
        params: vec![("pairs".into(), pairs.to_string())],
        ..RunConfig::new(cores, "timing")
    }
}

/// Core 0's chip-model counters in a run, if it reported them.
fn core0_stats(report: &crate::run::RunReport) -> Option<CoreStats> {
    report.reports.first()?.as_ref().map(|r| r.stats)
}

/// Times the primitives.
fn primitives(ctx: &mut Ctx<'_>, section: &mut Section) -> Result<()> {
    let report = ctx.boot(timing_run(TIMING_CORES, PAIRS))?;
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
    table
        .notes
        .push("core cycles at 533 MHz; any difference fails".into());
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
        let ok = p.measured == p.expected;
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

/// The pair's line of a `timing` run: its cycles on core 0's clock.
pub fn parse_pair(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("lock/unlock pair ")?;
    let (_, rest) = rest.split_once("): ")?;
    rest.split_once(" cycles")?.0.parse().ok()
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
        | Class::BufferWait => None,
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
    /// Whether the stall is its accesses at their table cost (or the
    /// class is not checked).
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

/// The uncontended lock/unlock pair, broken into its accesses.
fn lock_pair(ctx: &mut Ctx<'_>, section: &mut Section) -> Result<()> {
    // One core alone: no other core to wait for, so the two runs differ
    // by the extra pair only.
    let mut counters = Vec::new();
    let mut report = None;
    for pairs in [PAIRS, PAIRS + 1] {
        let run = ctx.boot(timing_run(1, pairs))?;
        let what = format!("timing on 1 core, {pairs} lock/unlock pairs");
        if !section.record(&what, &run) {
            return Ok(());
        }
        counters.push(core0_stats(&run));
        report = Some(run);
    }
    let (Some(report), [Some(before), Some(after)]) = (report, counters.as_slice()) else {
        section
            .failures
            .push("lock/unlock breakdown: core 0 reported no chip-model counters".into());
        return Ok(());
    };
    let measured = report.serial(0).iter().find_map(|l| parse_pair(l));
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
         counters of one more iteration of its timed loop (the pair, two clock reads, the loop); \
         stall = core cycles beyond an L1 hit; MC-wait holds DRAM refresh (no other core's requests), \
         not checked. The program's clock gave the pair {} cycles.",
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
    Ok(())
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
    fn the_pairs_line_is_read() {
        assert_eq!(
            parse_pair(
                "lock/unlock pair (GBH, exclusive, uncontended, on core 1's window): 3716 cycles, the last of 9"
            ),
            Some(3716)
        );
        assert_eq!(parse_pair("lock/unlock pair (GBH): many cycles"), None);
        assert_eq!(
            parse_pair("latency L1 hit: measured 1 expected 1 cycles"),
            None
        );
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
        after.class_cycles[at(Class::Dram)] = 601;
        after.class_count[at(Class::MemctlWait)] = 1;
        after.class_cycles[at(Class::MemctlWait)] = 297;
        after.cycles = 4000;
        let (shares, total) = breakdown(chip, &before, &after);
        assert_eq!(total, 4000);
        let names: Vec<&str> = shares.iter().map(|s| s.class.name()).collect();
        assert_eq!(names, ["DRAM", "MC-wait", "CRB/TSR"]);
        let ok: Vec<bool> = shares.iter().map(ClassShare::matches).collect();
        // One cycle too many at DRAM fails; the refresh is not checked.
        assert_eq!(ok, [false, true, true]);
    }

    #[test]
    fn the_timing_programs_lines_are_read() {
        assert_eq!(
            parse_primitive(
                "latency TSR round trip (acquire and release): measured 102 expected 102 cycles"
            ),
            Some(Primitive {
                what: "TSR round trip (acquire and release)".into(),
                measured: 102,
                expected: 102
            })
        );
        assert_eq!(
            parse_primitive("latency MPB 3 hops (tile 3): measured 70 expected 69 cycles")
                .map(|p| (p.measured, p.expected)),
            Some((70, 69))
        );
        for other in [
            "timing self-check passed: 16 latencies",
            "latency x: measured many expected 3 cycles",
            "latency x: measured 3 expected 3",
        ] {
            assert_eq!(parse_primitive(other), None, "{other}");
        }
    }
}
