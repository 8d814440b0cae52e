// SPDX-License-Identifier: GPL-2.0-or-later
//! What one core's chip model reports at exit, the file that carries it to
//! xtask, and the tables xtask prints from the reports of a run.
//!
//! At QEMU exit the plugin of core `N` writes [`CoreReport::write`] into
//! the run's private directory (the one holding the chip memory) as
//! `core-NN.report`; xtask reads every core's file with
//! [`CoreReport::read`] before it removes the directory. A core that was
//! killed before it exited writes no file, which is not an error.
//!
//! # File format
//!
//! JSON: an object with `format` (`"scc-core-report"`) and `version` (the
//! layout's version, [`VERSION`]), then the fields of [`CoreReport`] by
//! name: `core`, `stats` (every counter of `CoreStats` by field name; the
//! per-tile, per-controller and per-class counters as lists),
//! `tsr` (pairs of register and counters), `checker`, `stale_reads`,
//! `stale` (each kept stale read's fields), `read_only_writes` and
//! `read_only` (each kept store to a read-only register). A file cut short by a crash is
//! not valid JSON and is refused; so are unknown fields, lists of the
//! wrong length, and reports whose parts disagree (a stale read by another
//! core, more kept than counted).
//!
//! The file is written to a temporary name and renamed, so a reader never
//! sees half of one.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chip::{Chip, MemoryType};

use crate::model::latency::{Class, Resource};
use crate::model::mesh::{DIRECTIONS, Link};
use crate::model::stats::{CoreStats, MAX_CONTROLLERS, MAX_TILES};
use crate::model::tsr::TsrStats;
use crate::{Error, Result};

/// Stale reads a core's report keeps in full; the rest are only counted.
pub const STALE_KEPT: usize = 16;

/// Distinct stores to read-only registers a core's report keeps; the rest
/// are only counted.
pub const READ_ONLY_KEPT: usize = 16;

/// What every report file says it is.
const FORMAT: &str = "scc-core-report";

/// The version of the file's layout: a reader refuses other versions.
pub const VERSION: u32 = 7;

/// A report file: what it is, and the report.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportFile {
    format: String,
    version: u32,
    #[serde(flatten)]
    report: CoreReport,
}

/// What one core's chip model saw during a run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CoreReport {
    /// The core.
    pub core: u32,
    /// Its memory-system counters.
    pub stats: CoreStats,
    /// This core's operations on each test-and-set register it touched, by
    /// register index (the index of the core owning the register), in
    /// ascending order.
    pub tsr: Vec<(u32, TsrStats)>,
    /// Whether the coherence checker was on.
    pub checker: bool,
    /// Reads that returned data differing from memory (0 when the checker is off).
    pub stale_reads: u64,
    /// The first of them, at most [`STALE_KEPT`].
    pub stale: Vec<StaleRead>,
    /// Stores to read-only registers (MYTILEID): silicon ignores them, and
    /// so does the emulator, which undoes them.
    pub read_only_writes: u64,
    /// The first distinct ones (register and instruction), at most
    /// [`READ_ONLY_KEPT`], each with its count.
    pub read_only: Vec<ReadOnlyWrite>,
}

/// Stores of one instruction to one read-only register.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadOnlyWrite {
    /// The register and its block, e.g. `MYTILEID of its own CRB`.
    pub register: String,
    /// Address of the guest instruction that stored.
    pub insn: u32,
    /// Stores it made there.
    pub count: u64,
}

impl ReadOnlyWrite {
    /// The warning the run prints for these stores by `core`.
    pub fn warning(&self, core: u32) -> String {
        let times = if self.count == 1 {
            "once".to_owned()
        } else {
            format!("{} times", self.count)
        };
        format!(
            "warning: core {core} wrote read-only register {} {times}, at instruction {:#010x}: \
             the chip ignores such stores, and so did the emulator",
            self.register, self.insn
        )
    }
}

/// A read that returned data other than what memory held: the reading
/// core's caches or views kept a line another core had changed since.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaleRead {
    /// The core that read.
    pub reader: u32,
    /// Core-physical address of the read.
    pub paddr: u32,
    /// What the address reached, e.g. `MPB of tile 3 + 0x40`.
    pub target: String,
    /// Address of the guest instruction that read.
    pub insn: u32,
    /// Bytes read (1..=8).
    pub len: u32,
    /// The value the core read (little-endian, `len` bytes).
    pub read: u64,
    /// The value memory held.
    pub memory: u64,
    /// The core whose write to that line the reader missed, if known.
    pub writer: Option<u32>,
}

impl CoreReport {
    /// An empty report of `core`: no accesses, nothing stale.
    pub fn new(core: u32, checker: bool) -> Self {
        Self {
            core,
            stats: CoreStats::default(),
            tsr: Vec::new(),
            checker,
            stale_reads: 0,
            stale: Vec::new(),
            read_only_writes: 0,
            read_only: Vec::new(),
        }
    }

    /// Where core `core`'s report lies in the run directory `dir`.
    pub fn path(dir: &Path, core: u32) -> PathBuf {
        dir.join(format!("core-{core:02}.report"))
    }

    /// Writes this report to [`CoreReport::path`] in `dir`, replacing any
    /// earlier one at once (through a temporary file and a rename).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = Self::path(dir, self.core);
        let temporary = path.with_extension("report.partial");
        fs::write(&temporary, self.to_json()).map_err(Error::io(&temporary))?;
        fs::rename(&temporary, &path).map_err(Error::io(&path))
    }

    /// Reads core `core`'s report from `dir`: `None` if there is none (the
    /// core did not reach its exit), an error naming the file and line if it
    /// is not a valid report of that core.
    pub fn read(dir: &Path, core: u32) -> Result<Option<Self>> {
        let path = Self::path(dir, core);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path)(e)),
        };
        let malformed = |(line, message)| Error::Report {
            path: path.clone(),
            line,
            message,
        };
        Self::parse(&text, core).map(Some).map_err(malformed)
    }

    /// The report as its file holds it (see the module doc).
    pub fn to_json(&self) -> String {
        let file = ReportFile {
            format: FORMAT.to_owned(),
            version: VERSION,
            report: self.clone(),
        };
        serde_json::to_string_pretty(&file).expect("a report is plain data")
    }

    /// Reads the file format as the report of core `expected`; an error
    /// is the 1-based line and what is wrong with it.
    fn parse(text: &str, expected: u32) -> Result<Self, (usize, String)> {
        let file: ReportFile =
            serde_json::from_str(text).map_err(|e| (e.line().max(1), e.to_string()))?;
        let last = text.lines().count().max(1);
        if file.format != FORMAT || file.version != VERSION {
            return Err((
                1,
                format!(
                    "a {} version {} file, not {FORMAT} version {VERSION}",
                    file.format, file.version
                ),
            ));
        }
        let report = file.report;
        if report.core != expected {
            return Err((
                1,
                format!("a report of core {}, not of core {expected}", report.core),
            ));
        }
        report.check().map_err(|message| (last, message))?;
        Ok(report)
    }

    /// What must hold between the parts of a report.
    fn check(&self) -> Result<(), String> {
        if !self.checker && (self.stale_reads != 0 || !self.stale.is_empty()) {
            return Err("stale reads reported with the checker off".into());
        }
        if self.stale.len() > STALE_KEPT {
            return Err(format!(
                "{} stale reads kept, at most {STALE_KEPT} may be",
                self.stale.len()
            ));
        }
        if (self.stale.len() as u64) > self.stale_reads {
            return Err(format!(
                "{} stale reads kept but only {} counted",
                self.stale.len(),
                self.stale_reads
            ));
        }
        if self.read_only.len() > READ_ONLY_KEPT {
            return Err(format!(
                "{} stores to read-only registers kept, at most {READ_ONLY_KEPT} may be",
                self.read_only.len()
            ));
        }
        let kept: u64 = self.read_only.iter().map(|w| w.count).sum();
        if kept > self.read_only_writes {
            return Err(format!(
                "{kept} stores to read-only registers kept but only {} counted",
                self.read_only_writes
            ));
        }
        for (i, (reg, _)) in self.tsr.iter().enumerate() {
            if self.tsr[..i].iter().any(|(r, _)| r == reg) {
                return Err(format!("TSR {reg} is listed twice"));
            }
        }
        if let Some(s) = self.stale.iter().find(|s| !(1..=8).contains(&s.len)) {
            return Err(format!("len={}: a read is 1 to 8 bytes", s.len));
        }
        if let Some(s) = self.stale.iter().find(|s| s.reader != self.core) {
            return Err(format!(
                "a stale read by core {} in the report of core {}",
                s.reader, self.core
            ));
        }
        Ok(())
    }
}

/// Number of entries [`counters`] returns.
const STAT_FIELDS: usize = 33;

/// Every counter of [`CoreStats`]; single counters as one-element slices,
/// so arrays and scalars are summed the same way. A field added to
/// `CoreStats` must be added here: the round-trip test builds a
/// `CoreStats` naming every field, so it stops compiling until it is.
fn counters(s: &mut CoreStats) -> [&mut [u64]; STAT_FIELDS] {
    use std::slice::from_mut;
    [
        &mut s.loads,
        &mut s.stores,
        from_mut(&mut s.l1_hits),
        from_mut(&mut s.l1_misses),
        from_mut(&mut s.l2_hits),
        from_mut(&mut s.l2_misses),
        from_mut(&mut s.fills),
        from_mut(&mut s.write_backs),
        from_mut(&mut s.drops),
        from_mut(&mut s.write_throughs),
        from_mut(&mut s.wcb_flushes),
        from_mut(&mut s.cl1invmb),
        from_mut(&mut s.wbinvd),
        from_mut(&mut s.invd),
        from_mut(&mut s.tsr_ops),
        from_mut(&mut s.rau_ops),
        &mut s.mpb_bytes,
        &mut s.mc_bytes,
        &mut s.router_bytes,
        &mut s.mpb_wait,
        &mut s.crb_wait,
        &mut s.mc_wait,
        &mut s.link_wait,
        &mut s.busy,
        from_mut(&mut s.cycles),
        from_mut(&mut s.insns),
        from_mut(&mut s.idle_cycles),
        &mut s.class_cycles,
        &mut s.class_count,
        from_mut(&mut s.quantum_sleeps),
        from_mut(&mut s.order_waits),
        from_mut(&mut s.modelled_polls),
        from_mut(&mut s.future_reads),
    ]
}

/// A table of right-aligned columns, each as wide as its widest cell.
struct Grid {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Grid {
    fn new(header: impl IntoIterator<Item = String>) -> Self {
        Self {
            header: header.into_iter().collect(),
            rows: Vec::new(),
        }
    }

    fn row(&mut self, first: impl Into<String>, values: impl IntoIterator<Item = u64>) {
        let mut row = vec![first.into()];
        row.extend(values.into_iter().map(|v| v.to_string()));
        self.rows.push(row);
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut widths: Vec<usize> = self.header.iter().map(String::len).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.len());
            }
        }
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
                let gap = if i == 0 { "" } else { "  " };
                write!(f, "{gap}{cell:>w$}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// The statistics tables of a run on `chip`, from the reports the cores
/// wrote (a core without a report has no row):
///
/// - per core: loads and stores by memory type, L1 and L2 hits and misses,
///   write-combine buffer flushes, CL1INVMB, TSR operations;
/// - per core: bytes moved to or from each tile's MPB and the DRAM behind
///   each memory controller (only the chip's tiles and controllers);
/// - summed over the cores: bytes forwarded by each tile's router, laid
///   out as the mesh (row `y`, column `x`, the top row the highest y);
/// - with modelled time: per core, cycles at exit, instructions, cycles
///   waiting for other cores, quantum sleeps, and stall cycles and accesses
///   per latency class; per core, cycles waited for each resource some
///   core waited for (MPBs, register blocks, controllers, mesh links), and
///   the links' waits summed over the cores per router they leave, laid out
///   as the mesh;
/// - per test-and-set register, summed over the cores: acquires, failed
///   attempts, releases, releases of a free register.
///
/// Each ends with a row `all` summing the cores.
pub fn stats_table_for<'a>(chip: &'a Chip, reports: &'a [CoreReport]) -> impl fmt::Display + 'a {
    StatsTables { chip, reports }
}

struct StatsTables<'a> {
    chip: &'a Chip,
    reports: &'a [CoreReport],
}

impl fmt::Display for StatsTables<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reports.is_empty() {
            return writeln!(f, "statistics: no core wrote a report");
        }
        // Every chip fits the tables (`model::stats`' test of the chips).
        let tiles = (self.chip.tiles() as usize).min(MAX_TILES);
        let controllers = self.chip.memory_controllers.len().min(MAX_CONTROLLERS);

        let mut total = CoreStats::default();
        for r in self.reports {
            add(&mut total, &r.stats);
        }
        let rows = self
            .reports
            .iter()
            .map(|r| (r.core.to_string(), &r.stats))
            .chain([("all".to_owned(), &total)]);

        let mut header = vec!["core".to_owned()];
        for ty in MemoryType::ALL {
            header.push(format!("{} ld", ty.name()));
            header.push(format!("{} st", ty.name()));
        }
        header.extend(
            [
                "L1 hit",
                "L1 miss",
                "L2 hit",
                "L2 miss",
                "WCB flush",
                "CL1INVMB",
                "TSR ops",
                "RAU ops",
            ]
            .map(String::from),
        );
        let mut accesses = Grid::new(header);
        for (name, s) in rows.clone() {
            let by_type = s.loads.iter().zip(&s.stores).flat_map(|(l, st)| [*l, *st]);
            let rest = [
                s.l1_hits,
                s.l1_misses,
                s.l2_hits,
                s.l2_misses,
                s.wcb_flushes,
                s.cl1invmb,
                s.tsr_ops,
                s.rau_ops,
            ];
            accesses.row(name, by_type.chain(rest));
        }
        writeln!(
            f,
            "memory accesses per core, by memory type, and cache events:"
        )?;
        write!(f, "{accesses}")?;

        let header = std::iter::once("core".to_owned())
            .chain((0..tiles).map(|t| format!("MPB{t}")))
            .chain((0..controllers).map(|m| format!("MC{m}")));
        let mut bytes = Grid::new(header);
        for (name, s) in rows {
            let mpb = s.mpb_bytes[..tiles].iter().copied();
            bytes.row(name, mpb.chain(s.mc_bytes[..controllers].iter().copied()));
        }
        writeln!(
            f,
            "\nbytes per core to or from the MPB of each tile (MPBn) and the DRAM behind each memory controller (MCn):"
        )?;
        write!(f, "{bytes}")?;

        let routers = self.mesh(|i| total.router_bytes.get(i).copied().unwrap_or(0));
        writeln!(
            f,
            "\nbytes forwarded by the router of each tile, all cores, as the mesh lies (y up):"
        )?;
        write!(f, "{routers}")?;

        if self.reports.iter().any(|r| r.stats.cycles > 0) {
            let mhz = u64::from(self.chip.timing.core_mhz);
            let header = [
                "core",
                "cycles",
                "us",
                "instructions",
                "waiting",
                "sleeps",
                "ordered",
                "polls",
                "future",
            ]
            .map(String::from)
            .into_iter()
            .chain(Class::ALL.iter().map(|c| c.name().to_owned()));
            let mut time = Grid::new(header);
            let mut counts = Grid::new(
                std::iter::once("core".to_owned())
                    .chain(Class::ALL.iter().map(|c| c.name().to_owned())),
            );
            for (name, s) in rows_of(self.reports, &total) {
                let head = [
                    s.cycles,
                    s.cycles / mhz.max(1),
                    s.insns,
                    s.idle_cycles,
                    s.quantum_sleeps,
                    s.order_waits,
                    s.modelled_polls,
                    s.future_reads,
                ];
                time.row(name.clone(), head.into_iter().chain(s.class_cycles));
                counts.row(name, s.class_count);
            }
            writeln!(
                f,
                "\nmodelled time per core at {mhz} MHz (the row `all` sums): cycles at exit, \
                 instructions, cycles waiting for other cores, quantum sleeps, accesses that waited to be ordered after other cores', \
                 polls a wait made in modelled time, reads of data written later in modelled time (unordered), \
                 and stall cycles beyond an L1 hit per latency class:"
            )?;
            write!(f, "{time}")?;
            writeln!(f, "\naccesses per core and latency class:")?;
            write!(f, "{counts}")?;

            // Queueing per resource: only those some core waited for.
            let width = usize::from(self.chip.mesh_x).max(1);
            let links = (0..tiles * DIRECTIONS).map(Link::from_index).map(|l| {
                let (x, y) = (l.router % width, l.router / width);
                let name = format!("L({x},{y}){}", l.direction.letter());
                (name, Resource::Link(l))
            });
            let resources = (0..tiles)
                .map(|t| (format!("MPB{t}"), Resource::Mpb(t)))
                .chain((0..tiles).map(|t| (format!("CRB{t}"), Resource::Crb(t))))
                .chain((0..controllers).map(|m| (format!("MC{m}"), Resource::Controller(m))))
                .chain(links)
                .filter(|(_, r)| total.wait(*r) > 0)
                .collect::<Vec<_>>();
            if resources.is_empty() {
                writeln!(
                    f,
                    "\nno core waited for a busy MPB, register block, memory controller or mesh link"
                )?;
            } else {
                let mut waits = Grid::new(
                    std::iter::once("core".to_owned())
                        .chain(resources.iter().map(|(name, _)| name.clone())),
                );
                for (name, s) in rows_of(self.reports, &total) {
                    waits.row(name, resources.iter().map(|(_, r)| s.wait(*r)));
                }
                writeln!(
                    f,
                    "\ncycles per core waiting for each busy resource (one access at a time): a tile's \
                     MPB (MPBn) or register block with its test-and-set registers (CRBn), a memory \
                     controller (MCn), the mesh link out of router (x,y) to the east, west, north \
                     or south (L(x,y)E, W, N, S); resources nobody waited for are left out:"
                )?;
                write!(f, "{waits}")?;
            }
            let out_of = |router: usize| {
                (0..DIRECTIONS)
                    .map(|d| total.link_wait[router * DIRECTIONS + d])
                    .sum::<u64>()
            };
            if (0..tiles).any(|r| out_of(r) > 0) {
                let links = self.mesh(|i| if i < tiles { out_of(i) } else { 0 });
                writeln!(
                    f,
                    "\ncycles waited for the links out of the router of each tile, all cores, \
                     as the mesh lies (y up):"
                )?;
                write!(f, "{links}")?;
            }
        }

        let mut registers: BTreeMap<u32, TsrStats> = BTreeMap::new();
        for (reg, t) in self.reports.iter().flat_map(|r| &r.tsr) {
            let sum = registers.entry(*reg).or_default();
            sum.acquires += t.acquires;
            sum.failed += t.failed;
            sum.releases += t.releases;
            sum.free_releases += t.free_releases;
        }
        if registers.is_empty() {
            return writeln!(f, "\nno test-and-set register was used");
        }
        let header = ["TSR", "acquires", "failed", "releases", "free releases"];
        let mut table = Grid::new(header.map(String::from));
        for (reg, t) in &registers {
            table.row(
                reg.to_string(),
                [t.acquires, t.failed, t.releases, t.free_releases],
            );
        }
        writeln!(
            f,
            "\ntest-and-set registers (by owning core), summed over the cores that used them:"
        )?;
        write!(f, "{table}")
    }
}

impl StatsTables<'_> {
    /// A value per router (`value` of its tile index, `x + mesh_x * y`),
    /// laid out as the mesh: row `y`, column `x`, the top row the highest y.
    fn mesh(&self, value: impl Fn(usize) -> u64) -> Grid {
        let width = usize::from(self.chip.mesh_x);
        let mut grid = Grid::new(
            std::iter::once("y \\ x".to_owned()).chain((0..width).map(|x| x.to_string())),
        );
        for y in (0..usize::from(self.chip.mesh_y)).rev() {
            grid.row(y.to_string(), (0..width).map(|x| value(x + y * width)));
        }
        grid
    }
}

/// One row per report, then `all`.
fn rows_of<'a>(
    reports: &'a [CoreReport],
    total: &'a CoreStats,
) -> impl Iterator<Item = (String, &'a CoreStats)> {
    reports
        .iter()
        .map(|r| (r.core.to_string(), &r.stats))
        .chain([("all".to_owned(), total)])
}

/// Adds every counter of `s` to `total`.
fn add(total: &mut CoreStats, s: &CoreStats) {
    let mut s = *s;
    for (sum, v) in counters(total).into_iter().zip(counters(&mut s)) {
        for (a, b) in sum.iter_mut().zip(v.iter()) {
            *a += b;
        }
    }
}

/// What the coherence checker found in a run: the count with a break-down
/// by core, then each stale read the cores kept, one line each, identical
/// ones once with their count ([`collapse`]):
///
/// ```text
/// coherence checker: 3 stale reads (core 1: 1, core 5: 2)
/// core 5 read 0x00000000 at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x00000007, written by core 3 (2 times)
/// ```
pub fn coherence_summary(reports: &[CoreReport]) -> impl fmt::Display + '_ {
    coherence_summary_with(reports, &|_| Vec::new())
}

/// [`coherence_summary`] with lines about each stale read's instruction
/// under it, indented by two spaces: `code` gives them for an instruction
/// address (where it lies in the program, say), or none.
pub fn coherence_summary_with<'a>(
    reports: &'a [CoreReport],
    code: &'a dyn Fn(u32) -> Vec<String>,
) -> impl fmt::Display + 'a {
    CoherenceSummary { reports, code }
}

/// The distinct stale reads of `stale`, each with how many times it
/// occurs there, in the order of first occurrence. Reads are identical
/// when every field is: reader, address, target, instruction, length,
/// value read, value in memory and writer (the line each prints).
pub fn collapse(stale: &[StaleRead]) -> Vec<(&StaleRead, usize)> {
    let mut distinct: Vec<(&StaleRead, usize)> = Vec::new();
    for read in stale {
        match distinct.iter_mut().find(|(seen, _)| *seen == read) {
            Some((_, count)) => *count += 1,
            None => distinct.push((read, 1)),
        }
    }
    distinct
}

struct CoherenceSummary<'a> {
    reports: &'a [CoreReport],
    code: &'a dyn Fn(u32) -> Vec<String>,
}

impl fmt::Display for CoherenceSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let checked: Vec<&CoreReport> = self.reports.iter().filter(|r| r.checker).collect();
        if checked.is_empty() {
            return writeln!(f, "coherence checker: off (no core report had it on)");
        }
        let total: u64 = checked.iter().map(|r| r.stale_reads).sum();
        let plural = if total == 1 { "" } else { "s" };
        write!(f, "coherence checker: {total} stale read{plural}")?;
        let by_core: Vec<String> = checked
            .iter()
            .filter(|r| r.stale_reads > 0)
            .map(|r| format!("core {}: {}", r.core, r.stale_reads))
            .collect();
        if !by_core.is_empty() {
            write!(f, " ({})", by_core.join(", "))?;
        }
        writeln!(f)?;
        for r in &checked {
            for (s, count) in collapse(&r.stale) {
                write!(f, "{s}")?;
                if count > 1 {
                    write!(f, " ({count} times)")?;
                }
                writeln!(f)?;
                for line in (self.code)(s.insn) {
                    writeln!(f, "  {line}")?;
                }
            }
            let untold = r.stale_reads - r.stale.len() as u64;
            if untold > 0 {
                writeln!(f, "core {}: {untold} more not kept", r.core)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for StaleRead {
    /// One line: who read what where, and what memory held.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.len as usize * 2;
        write!(
            f,
            "core {} read {:#0w$x} at {:#010x} ({}), instruction {:#010x}; memory holds {:#0w$x}",
            self.reader,
            self.read,
            self.paddr,
            self.target,
            self.insn,
            self.memory,
            w = digits + 2
        )?;
        if let Some(w) = self.writer {
            write!(f, ", written by core {w}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stats whose every counter differs, naming every field so that a
    /// field added to `CoreStats` must be added to the file format too.
    fn stats() -> CoreStats {
        let mut mpb_bytes = [0; MAX_TILES];
        let mut mc_bytes = [0; MAX_CONTROLLERS];
        let router_bytes = std::array::from_fn(|i| 5000 + i as u64);
        for (i, b) in mpb_bytes.iter_mut().enumerate() {
            *b = 1000 + i as u64;
        }
        for (i, b) in mc_bytes.iter_mut().enumerate() {
            *b = 2000 + i as u64;
        }
        CoreStats {
            loads: [1, 2, 3, 4, 5],
            stores: [6, 7, 8, 9, 10],
            l1_hits: 11,
            l1_misses: 12,
            l2_hits: 13,
            l2_misses: 14,
            fills: 15,
            write_backs: 16,
            drops: 17,
            write_throughs: 18,
            wcb_flushes: 19,
            cl1invmb: 20,
            wbinvd: 21,
            invd: 22,
            tsr_ops: u64::MAX,
            rau_ops: 30,
            mpb_bytes,
            mc_bytes,
            router_bytes,
            mpb_wait: std::array::from_fn(|i| 6000 + i as u64),
            crb_wait: std::array::from_fn(|i| 7000 + i as u64),
            mc_wait: std::array::from_fn(|i| 8000 + i as u64),
            link_wait: std::array::from_fn(|i| 9000 + i as u64),
            busy: std::array::from_fn(|i| 11000 + i as u64),
            cycles: 23,
            insns: 24,
            idle_cycles: 25,
            class_cycles: std::array::from_fn(|i| 3000 + i as u64),
            class_count: std::array::from_fn(|i| 4000 + i as u64),
            quantum_sleeps: 26,
            order_waits: 27,
            modelled_polls: 28,
            future_reads: 29,
        }
    }

    fn stale(reader: u32, len: u32, writer: Option<u32>) -> StaleRead {
        StaleRead {
            reader,
            paddr: 0xC000_0040,
            target: "MPB of tile 0 + 0x40".into(),
            insn: 0x0010_2345,
            len,
            read: 0,
            memory: 7,
            writer,
        }
    }

    fn report() -> CoreReport {
        let tsr = |acquires, failed, releases, free_releases| TsrStats {
            acquires,
            failed,
            releases,
            free_releases,
        };
        CoreReport {
            core: 5,
            stats: stats(),
            tsr: vec![(0, tsr(3, 4, 3, 0)), (47, tsr(1, 0, 2, 1))],
            checker: true,
            stale_reads: 40,
            stale: vec![
                stale(5, 4, Some(3)),
                StaleRead {
                    target: "odd \\ target\nwith target= and spaces ".into(),
                    read: u64::MAX,
                    memory: 0x0102_0304_0506_0708,
                    ..stale(5, 8, None)
                },
            ],
            read_only_writes: 4,
            read_only: vec![ReadOnlyWrite {
                register: "MYTILEID of its own CRB".into(),
                insn: 0x0010_2345,
                count: 3,
            }],
        }
    }

    #[test]
    fn reports_round_trip_through_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let original = report();
        original.write(dir.path()).unwrap();
        assert_eq!(
            CoreReport::path(dir.path(), 5),
            dir.path().join("core-05.report")
        );
        let text = fs::read_to_string(CoreReport::path(dir.path(), 5)).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["format"], "scc-core-report");
        assert_eq!(json["version"], VERSION);
        assert_eq!(json["core"], 5);
        assert_eq!(json["stats"]["router_bytes"][2], 5002);
        assert_eq!(
            json["stats"]["router_bytes"].as_array().unwrap().len(),
            MAX_TILES
        );
        assert_eq!(json["tsr"][1][0], 47);
        assert_eq!(json["stale"][0]["target"], "MPB of tile 0 + 0x40");
        assert_eq!(json["read_only"][0]["register"], "MYTILEID of its own CRB");
        assert_eq!(CoreReport::read(dir.path(), 5).unwrap(), Some(original));

        let empty = CoreReport::new(47, false);
        empty.write(dir.path()).unwrap();
        assert_eq!(CoreReport::read(dir.path(), 47).unwrap(), Some(empty));
        // Only the two reports are left: the temporary files were renamed.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_core_without_a_report_has_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(CoreReport::read(dir.path(), 3).unwrap(), None);
    }

    /// The error that reading `text` as core 5's report gives.
    fn error_of(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = CoreReport::path(dir.path(), 5);
        fs::write(&path, text).unwrap();
        let e = CoreReport::read(dir.path(), 5).unwrap_err();
        let message = e.to_string();
        let prefix = format!("{}, line ", path.display());
        assert!(message.starts_with(&prefix), "{message}");
        message[prefix.len()..].to_owned()
    }

    /// The good report's file with `edit` applied to its JSON.
    fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut json: serde_json::Value = serde_json::from_str(&report().to_json()).unwrap();
        edit(&mut json);
        serde_json::to_string_pretty(&json).unwrap()
    }

    #[test]
    fn malformed_files_are_refused_naming_the_problem() {
        let good = report().to_json();
        let cases: Vec<(String, &str)> = vec![
            (
                edited(|j| j["version"] = 5.into()),
                "a scc-core-report version 5 file, not scc-core-report version 7",
            ),
            (
                edited(|j| j["format"] = "other".into()),
                "a other version 7 file",
            ),
            (
                edited(|j| j["core"] = 6.into()),
                "a report of core 6, not of core 5",
            ),
            (
                edited(|j| j["checker"] = "yes".into()),
                "invalid type: string \"yes\", expected a boolean",
            ),
            (
                edited(|j| j["stats"]["l1_hits"] = "1x".into()),
                "invalid type: string \"1x\"",
            ),
            (
                edited(|j| j["stats"]["loads"] = serde_json::json!([1, 2, 3, 4])),
                "invalid length 4, expected 5 values",
            ),
            (
                edited(|j| {
                    j["stats"]
                        .as_object_mut()
                        .unwrap()
                        .remove("l2_hits")
                        .map(drop)
                        .unwrap()
                }),
                "missing field `l2_hits`",
            ),
            (edited(|j| j["extra"] = 1.into()), "unknown field `extra`"),
            (
                edited(|j| j["tsr"][1][0] = 0.into()),
                "TSR 0 is listed twice",
            ),
            (
                edited(|j| j["stale"][0]["len"] = 9.into()),
                "len=9: a read is 1 to 8 bytes",
            ),
            (
                edited(|j| j["stale"][0]["reader"] = 4.into()),
                "a stale read by core 4 in the report of core 5",
            ),
            (
                edited(|j| j["stale_reads"] = 1.into()),
                "2 stale reads kept but only 1 counted",
            ),
            (
                edited(|j| j["read_only_writes"] = 2.into()),
                "3 stores to read-only registers kept but only 2 counted",
            ),
            (
                edited(|j| j["read_only"][0]["core"] = 2.into()),
                "unknown field `core`",
            ),
            (
                edited(|j| j["checker"] = false.into()),
                "stale reads reported with the checker off",
            ),
            (good[..good.len() / 2].to_owned(), "EOF while parsing"),
            (String::new(), "EOF while parsing"),
        ];
        for (text, expected) in cases {
            let message = error_of(&text);
            assert!(
                message.contains(expected),
                "expected `{expected}` in `{message}`"
            );
        }
        // The good text itself is fine.
        assert!(CoreReport::parse(&good, 5).is_ok());
    }

    #[test]
    fn more_stale_reads_than_kept_are_refused() {
        let mut r = CoreReport::new(5, true);
        r.stale = vec![stale(5, 4, None); STALE_KEPT + 1];
        r.stale_reads = 100;
        let e = CoreReport::parse(&r.to_json(), 5).unwrap_err();
        assert_eq!(e.1, "17 stale reads kept, at most 16 may be");
        r.stale.pop();
        assert_eq!(CoreReport::parse(&r.to_json(), 5).unwrap(), r);
    }

    #[test]
    fn a_store_to_a_read_only_register_warns_naming_core_register_and_instruction() {
        let mut w = report().read_only[0].clone();
        assert_eq!(
            w.warning(5),
            "warning: core 5 wrote read-only register MYTILEID of its own CRB 3 times, at \
             instruction 0x00102345: the chip ignores such stores, and so did the emulator"
        );
        w.count = 1;
        assert!(w.warning(5).contains(" CRB once, at "));
    }

    #[test]
    fn stale_reads_read_as_one_line_each() {
        assert_eq!(
            stale(5, 4, Some(3)).to_string(),
            "core 5 read 0x00000000 at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x00000007, written by core 3"
        );
        let byte = StaleRead {
            read: 0xAB,
            memory: 0x1,
            ..stale(2, 1, None)
        };
        assert_eq!(
            byte.to_string(),
            "core 2 read 0xab at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x01"
        );
    }

    #[test]
    fn the_coherence_summary_counts_by_core_and_lists_what_was_kept() {
        let mut a = CoreReport::new(1, true);
        a.stale_reads = 3;
        a.stale = vec![stale(1, 4, Some(0))];
        let b = CoreReport::new(2, true);
        let mut c = CoreReport::new(3, true);
        c.stale_reads = 1;
        c.stale = vec![stale(3, 2, None)];
        let text = coherence_summary(&[a, b, c]).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "coherence checker: 4 stale reads (core 1: 3, core 3: 1)",
                "core 1 read 0x00000000 at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x00000007, written by core 0",
                "core 1: 2 more not kept",
                "core 3 read 0x0000 at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x0007",
            ]
        );
        let clean = coherence_summary(&[CoreReport::new(0, true)]).to_string();
        assert_eq!(clean, "coherence checker: 0 stale reads\n");
        let off = coherence_summary(&[CoreReport::new(0, false)]).to_string();
        assert!(off.starts_with("coherence checker: off"), "{off}");
    }

    #[test]
    fn identical_stale_reads_collapse_in_order_of_first_occurrence() {
        let a = stale(1, 4, Some(0));
        let other_writer = stale(1, 4, Some(2));
        let other_insn = StaleRead {
            insn: 0x0010_2400,
            ..a.clone()
        };
        let other_value = StaleRead {
            read: 5,
            ..a.clone()
        };
        let kept = [
            a.clone(),
            other_writer.clone(),
            a.clone(),
            other_insn.clone(),
            a.clone(),
            other_writer.clone(),
            other_value.clone(),
        ];
        assert_eq!(
            collapse(&kept),
            [
                (&a, 3),
                (&other_writer, 2),
                (&other_insn, 1),
                (&other_value, 1)
            ]
        );
        assert_eq!(collapse(&[]), []);
    }

    #[test]
    fn the_coherence_summary_counts_identical_reads_and_shows_where_they_were() {
        let mut r = CoreReport::new(1, true);
        r.stale = vec![stale(1, 4, Some(0)); STALE_KEPT];
        r.stale.push(stale(1, 4, Some(2)));
        r.stale_reads = 925;
        let code = |insn: u32| match insn {
            0x0010_2345 => vec![
                "at read_u32 (kernel/src/platform/scc.rs:69)".to_owned(),
                "  inlined into run (apps/programs/src/ring_stale.rs:57)".to_owned(),
            ],
            _ => Vec::new(),
        };
        let text = coherence_summary_with(std::slice::from_ref(&r), &code).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "coherence checker: 925 stale reads (core 1: 925)",
                "core 1 read 0x00000000 at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x00000007, written by core 0 (16 times)",
                "  at read_u32 (kernel/src/platform/scc.rs:69)",
                "    inlined into run (apps/programs/src/ring_stale.rs:57)",
                "core 1 read 0x00000000 at 0xc0000040 (MPB of tile 0 + 0x40), instruction 0x00102345; memory holds 0x00000007, written by core 2",
                "  at read_u32 (kernel/src/platform/scc.rs:69)",
                "    inlined into run (apps/programs/src/ring_stale.rs:57)",
                "core 1: 908 more not kept",
            ]
        );
        // Without code lines, the same reads and counts.
        let plain = coherence_summary(std::slice::from_ref(&r)).to_string();
        assert_eq!(plain.lines().count(), 4, "{plain}");
        assert!(plain.contains("written by core 0 (16 times)\n"), "{plain}");
    }

    /// The rows of the table that follows the line starting with `title`,
    /// as cells.
    fn table<'t>(text: &'t str, title: &str) -> Vec<Vec<&'t str>> {
        text.lines()
            .skip_while(|l| !l.starts_with(title))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| l.split_whitespace().collect())
            .collect()
    }

    #[test]
    fn modelled_time_is_tabled_only_when_a_core_has_a_clock() {
        let untimed = stats_table_for(&chip::SCC, &[CoreReport::new(0, false)]).to_string();
        assert!(!untimed.contains("modelled time"), "{untimed}");
        let mut a = CoreReport::new(0, false);
        a.stats.cycles = 5330;
        a.stats.insns = 5000;
        a.stats.class_cycles[Class::L2 as usize] = 17;
        a.stats.class_count[Class::L2 as usize] = 1;
        let mut b = CoreReport::new(1, false);
        b.stats.cycles = 1066;
        let text = stats_table_for(&chip::SCC, &[a, b]).to_string();
        let time = table(&text, "modelled time per core");
        assert_eq!(
            time[0][..6],
            ["core", "cycles", "us", "instructions", "waiting", "sleeps"]
        );
        assert_eq!(time[1][..4], ["0", "5330", "10", "5000"]);
        assert_eq!(time[2][..3], ["1", "1066", "2"]);
        assert_eq!(time[3][..3], ["all", "6396", "12"]);
        let counts = table(&text, "accesses per core and latency class");
        assert_eq!(counts[1][..3], ["0", "0", "1"], "one L2 access");
        assert!(text.contains("no core waited for a busy MPB"), "{text}");
        assert!(!text.contains("cycles waited for the links"), "{text}");
    }

    #[test]
    fn queueing_is_tabled_for_the_resources_someone_waited_for() {
        let mut a = CoreReport::new(0, false);
        a.stats.cycles = 100;
        a.stats.crb_wait[0] = 40;
        a.stats.mpb_wait[5] = 7;
        let mut b = CoreReport::new(1, false);
        b.stats.cycles = 100;
        b.stats.crb_wait[0] = 2;
        b.stats.mc_wait[3] = 9;
        // Tile 7 is (1,1): its links to the north and the west.
        let north = Link {
            router: 7,
            direction: crate::model::mesh::Direction::North,
        };
        b.stats.link_wait[north.index()] = 3;
        a.stats.link_wait[4 * 7 + 1] = 2;
        let text = stats_table_for(&chip::SCC, &[a, b]).to_string();
        let waits = table(&text, "cycles per core waiting for each busy resource");
        assert_eq!(
            waits[0],
            ["core", "MPB5", "CRB0", "MC3", "L(1,1)W", "L(1,1)N"]
        );
        assert_eq!(waits[1], ["0", "7", "40", "0", "2", "0"]);
        assert_eq!(waits[2], ["1", "0", "2", "9", "0", "3"]);
        assert_eq!(waits[3], ["all", "7", "42", "9", "2", "3"]);
        let mesh = table(&text, "cycles waited for the links out of the router");
        assert_eq!(mesh.len(), 1 + 4, "{text}");
        // Row y = 1 is the third from the top.
        assert_eq!(mesh[3], ["1", "0", "5", "0", "0", "0", "0"]);
        assert_eq!(mesh[1][1..], ["0"; 6]);
    }

    #[test]
    fn the_stats_tables_show_each_core_and_the_sum() {
        let mut a = CoreReport::new(0, false);
        a.stats = stats();
        a.tsr = vec![(
            0,
            TsrStats {
                acquires: 2,
                failed: 1,
                releases: 2,
                free_releases: 0,
            },
        )];
        let mut b = CoreReport::new(7, false);
        b.stats.loads[3] = 100;
        b.stats.mpb_bytes[23] = 64;
        b.stats.mpb_bytes[24] = 1; // beyond the SCC's tiles: not shown
        b.stats.mc_bytes[3] = 32;
        b.tsr = vec![
            (
                0,
                TsrStats {
                    acquires: 1,
                    failed: 5,
                    releases: 1,
                    free_releases: 1,
                },
            ),
            (
                3,
                TsrStats {
                    acquires: 1,
                    ..TsrStats::default()
                },
            ),
        ];
        let text = stats_table_for(&chip::SCC, &[a, b]).to_string();

        let accesses = table(&text, "memory accesses per core");
        assert_eq!(accesses.len(), 4, "{text}");
        assert_eq!(accesses[0][..3], ["core", "DCM", "ld"]);
        assert_eq!(accesses[1][..4], ["0", "1", "6", "2"]);
        assert_eq!(accesses[2][0], "7");
        assert_eq!(accesses[2][7], "100", "MPBT-WB loads of core 7");
        assert_eq!(accesses[3][0], "all");
        assert_eq!(accesses[3][7], "104");
        let last = accesses[1].len() - 1;
        assert_eq!(accesses[1][last - 1], "18446744073709551615", "TSR ops");
        assert_eq!(accesses[1][last], "30", "RAU ops");
        let header = text.lines().nth(1).unwrap();
        for h in [
            "L1 hit",
            "L1 miss",
            "L2 hit",
            "L2 miss",
            "WCB flush",
            "CL1INVMB",
            "TSR ops",
            "RAU ops",
        ] {
            assert!(header.contains(h), "{header}");
        }
        assert_eq!(
            text.lines().nth(1).unwrap().len(),
            text.lines().nth(2).unwrap().len(),
            "columns line up:\n{text}"
        );

        let bytes = table(&text, "bytes per core");
        assert_eq!(
            bytes[0].len(),
            1 + 24 + 4,
            "SCC tiles and controllers: {text}"
        );
        assert_eq!(bytes[0][24], "MPB23");
        assert_eq!(bytes[0][28], "MC3");
        assert_eq!(bytes[1][1], "1000");
        assert_eq!(bytes[2][24], "64");
        assert_eq!(bytes[2][28], "32");
        assert_eq!(bytes[3][24], "1087");

        let tsr = table(&text, "test-and-set registers");
        assert_eq!(
            tsr,
            [
                vec!["TSR", "acquires", "failed", "releases", "free", "releases"],
                vec!["0", "3", "6", "3", "1"],
                vec!["3", "1", "0", "0", "0"],
            ]
        );
    }

    #[test]
    fn the_stats_tables_follow_the_chip_and_say_when_there_is_nothing() {
        let small = Chip {
            mesh_x: 2,
            mesh_y: 1,
            memory_controllers: &chip::SCC.memory_controllers[..1],
            ..chip::SCC
        };
        let text = stats_table_for(&small, &[CoreReport::new(0, false)]).to_string();
        let bytes = table(&text, "bytes per core");
        assert_eq!(bytes[0], ["core", "MPB0", "MPB1", "MC0"]);
        assert!(
            text.ends_with("\nno test-and-set register was used\n"),
            "{text}"
        );
        assert_eq!(
            stats_table_for(&chip::SCC, &[]).to_string(),
            "statistics: no core wrote a report\n"
        );
    }

    #[test]
    fn the_stats_tables_draw_an_8x8_mesh() {
        let chip = &chip::MESH8X8;
        let mut a = CoreReport::new(100, false);
        a.stats.mpb_bytes[63] = 96;
        a.stats.mc_bytes[7] = 32;
        // Tile 57 is (1,7), on the top row; tile 6 is (6,0), on the bottom.
        a.stats.router_bytes[57] = 5;
        a.stats.router_bytes[6] = 3;
        let text = stats_table_for(chip, &[a]).to_string();
        let bytes = table(&text, "bytes per core");
        assert_eq!(bytes[0].len(), 1 + 64 + 8, "{text}");
        assert_eq!((bytes[0][64], bytes[0][72]), ("MPB63", "MC7"));
        assert_eq!((bytes[1][64], bytes[1][72]), ("96", "32"));
        let mesh = table(&text, "bytes forwarded by the router");
        assert_eq!(mesh.len(), 1 + 8, "{text}");
        assert_eq!(
            mesh[0],
            ["y", "\\", "x", "0", "1", "2", "3", "4", "5", "6", "7"]
        );
        assert_eq!(mesh[1][..3], ["7", "0", "5"]);
        assert_eq!(mesh[8][..1], ["0"]);
        assert_eq!(mesh[8][7], "3");
    }
}
