// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask bench calibrate`: the timing model read back, and how far
//! contended results move with the quantum.
//!
//! - Primitives: the `timing` program times each primitive from inside the
//!   emulated chip (L1 and L2 hits, CL1INVMB, WBINVD, the MPB at every
//!   distance, DRAM near and far, a test-and-set register's acquire and
//!   release) and prints `latency <what>: measured <m> expected <e> cycles`
//!   against `chip::Timing`; a primitive more than [`TOLERANCE`] cycles off
//!   its table entry is a failure.
//! - Contention across quanta: the lock/unlock benchmark on [`LOCK_CORES`]
//!   cores at quanta of 1,000 to 100,000 cycles, each measurement's median
//!   per quantum and their spread (largest over smallest median, minus
//!   one). Modelled time should not depend on the quantum; the spread shows
//!   how much it still does.

use anyhow::Result;

use super::protocol::Pool;
use super::samples::RawSample;
use super::stats::Summary;
use super::table::{Table, num};
use super::{Ctx, Section, csv};
use crate::run::RunConfig;

/// Largest difference, in core cycles, between a primitive's modelled cost
/// and its table entry (the `timing` program's own tolerance).
const TOLERANCE: u64 = 2;

/// Cores of the primitives' run: one core sees every distance from tile 0.
const TIMING_CORES: u32 = 2;

/// Cores of the contention runs.
const LOCK_CORES: u32 = 8;

/// Quanta of the contention runs, in core cycles.
const QUANTA: [u64; 3] = [1_000, 10_000, 100_000];

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
    contention(ctx, &mut section)?;
    section.notes.push(format!(
        "Primitives come from core 0 of `cargo xtask run --cores {TIMING_CORES} --program timing`; \
         contention from `cargo xtask run --cores {LOCK_CORES} --program bench-lock --param scale=quick \
         --param layer=rma --quantum Q` for Q in {QUANTA:?}. Spread across host load is not \
         measured here."
    ));
    Ok(section)
}

fn primitives(ctx: &mut Ctx<'_>, section: &mut Section) -> Result<()> {
    let report = ctx.boot(RunConfig::new(TIMING_CORES, "timing"))?;
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
    table.notes.push(format!(
        "core cycles at 533 MHz; a difference of more than {TOLERANCE} cycles fails"
    ));
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
        let ok = p.measured.abs_diff(p.expected) <= TOLERANCE;
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

fn contention(ctx: &mut Ctx<'_>, section: &mut Section) -> Result<()> {
    // Per measurement (its keys), the median at each quantum.
    let mut medians: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    for (q, &quantum) in QUANTA.iter().enumerate() {
        let config = RunConfig {
            params: vec![
                ("scale".into(), "quick".into()),
                ("layer".into(), "rma".into()),
            ],
            mode: super::host::timed(quantum),
            ..RunConfig::new(LOCK_CORES, "bench-lock")
        };
        let report = ctx.boot(config)?;
        let what = format!("bench-lock on {LOCK_CORES} cores, quantum {quantum}");
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
                    let mut m = vec![None; QUANTA.len()];
                    m[q] = median;
                    medians.push((name, m));
                }
            }
        }
    }
    let mut header = vec!["measurement".to_owned()];
    header.extend(QUANTA.iter().map(|q| format!("Q={q} (µs)")));
    header.push("spread %".to_owned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(
        format!("Lock/unlock medians on {LOCK_CORES} processes across quanta (modelled time)"),
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
            (Some(lo), Some(hi)) if lo > 0.0 && known.len() == QUANTA.len() => {
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
