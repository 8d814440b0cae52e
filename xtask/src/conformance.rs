// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask conformance SUITE`: an MPI implementation's test or
//! benchmark programs built unmodified with `cargo xtask mpicc`, booted as
//! `cargo xtask mpiexec -n N --check-coherence` boots them, and reported
//! as a Markdown table. What the suites share (the work directory, the
//! builds and their errors, the boots and their logs, the verdict on a
//! run, the parallel jobs, the table) is here; [`osu`] holds what only
//! the OSU one-sided benchmarks need.
//!
//! `mpich-rma` is MPICH's one-sided test suite (`test/mpi/rma` of an
//! MPICH source tree), built with MPICH's own harness
//! (`test/mpi/util/mtest.c`).
//!
//! The suite's list is `test/mpi/rma/testlist` (or `testlist.in`, the
//! list MPICH's configure turns into it: its `@...@` lines are skipped).
//! Each line is `NAME NP [KEY=VALUE ...]`: `arg=` gives an argument of
//! the program, `timeLimit=` its seconds, `xfail=` marks it expected to
//! fail (with the reason), `env=` names an environment variable (the cores
//! have none: skipped), `mpiversion=` the MPI version it needs (skipped
//! above MPI 3.1), `mem=` the GiB it needs (recorded). A program is built
//! from `NAME.c` unless `test/mpi/rma/Makefile.am` names its sources
//! (`NAME_SOURCES`) and preprocessor flags (`NAME_CPPFLAGS`), as MPICH's
//! build does; it is linked with `util/mtest.c` (and `mtest_common.c` and
//! `mtest_single.c` where the tree has them) against `include/` and a
//! `mpitestconf.h` that says what MPICH's configure would find on the
//! cores. Programs that need threads, MPI-IO, MPICH's DTPools library or
//! more cores than the chip has are skipped, with the reason.
//!
//! A test passes when every core exits successfully, some core printed
//! ` No Errors` (MPICH's mark of success) and the coherence checker
//! counted no stale read.

pub mod osu;
pub mod sos;

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

use crate::{App, Mode, Model, Outcome, RunConfig, RunReport, Time, WtReads, build, mpicc};

/// The suites the command knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    /// MPICH's one-sided tests: `test/mpi/rma`.
    MpichRma,
    /// The OSU micro-benchmarks' one-sided programs: `mpi/one-sided`.
    OsuOneSided,
    /// Sandia OpenSHMEM's unit tests (`openshmem-org/tests-sos`):
    /// `test/unit`.
    SosUnit,
}

impl Suite {
    /// The suite's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::MpichRma => "mpich-rma",
            Self::OsuOneSided => "osu-one-sided",
            Self::SosUnit => "sos-unit",
        }
    }

    /// What a row of its table is.
    pub fn noun(self) -> &'static str {
        match self {
            Self::MpichRma => "tests",
            Self::OsuOneSided => "runs",
            Self::SosUnit => "tests",
        }
    }

    /// The flag that gives the suite's source tree.
    pub fn tree_flag(self) -> &'static str {
        match self {
            Self::MpichRma => "--mpich",
            Self::OsuOneSided => "--osu",
            Self::SosUnit => "--sos",
        }
    }
}

/// What to run and where the table goes.
#[derive(Debug, Clone)]
pub struct Options {
    /// The suite's source tree: MPICH's (it holds
    /// `test/mpi/rma/testlist`) or OSU's (it holds `mpi/one-sided`).
    pub tree: PathBuf,
    /// The Markdown table's file.
    pub out: PathBuf,
    /// Where objects, images and logs go.
    pub work: PathBuf,
    /// Tests built and run at once.
    pub jobs: usize,
    /// Only these tests or programs (by the list's names); every one when
    /// empty.
    pub only: Vec<String>,
    /// The chip.
    pub chip: &'static chip::Chip,
    /// KiB of each core's stack.
    pub stack_kib: u32,
    /// MiB of each core's private RAM (the heap is half of it).
    pub memory_mib: u32,
    /// The time limit of a run without its own (`timeLimit=`): `None`
    /// for the run's default ([`RunConfig::default_timeout`]).
    pub timeout: Option<Duration>,
    /// Each run's time limit (a test's `timeLimit=`, else
    /// [`Options::timeout`]) is multiplied by this, as MPICH's
    /// `MPITEST_TIMEOUT_MULTIPLIER` does.
    pub timeout_multiplier: u32,
    /// Raised by Ctrl-C: no new test starts.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// One line of the test list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The program's name.
    pub name: String,
    /// Its process count.
    pub np: u32,
    /// `arg=`: its arguments, in order.
    pub args: Vec<String>,
    /// `timeLimit=`: seconds.
    pub time_limit: Option<u64>,
    /// `xfail=`: why it is expected to fail.
    pub xfail: Option<String>,
    /// `env=`: environment variables it needs.
    pub env: Vec<String>,
    /// `mpiversion=`: the MPI version it needs.
    pub mpi_version: Option<String>,
    /// `mem=` and any other key, as written.
    pub other: Vec<String>,
}

/// How a program is built, from `Makefile.am`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recipe {
    /// `NAME_SOURCES`: the C sources, relative to the suite's directory.
    pub sources: Vec<String>,
    /// `NAME_CPPFLAGS`, without automake's variables.
    pub cppflags: Vec<String>,
}

/// A test's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every core succeeded, the suite's mark of success was printed, no
    /// stale read.
    Pass,
    /// Why it failed.
    Fail(String),
    /// It failed, as `xfail=` says it does: why it failed.
    ExpectedFail(String),
    /// It ran out of time without failing: what it had done by then. Not
    /// a pass, as the run did not finish.
    Timeout(String),
    /// Why it was not run.
    Skip(String),
}

impl Verdict {
    fn word(&self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail(_) => "**fail**",
            Self::ExpectedFail(_) => "xfail",
            Self::Timeout(_) => "timeout",
            Self::Skip(_) => "skipped",
        }
    }

    fn reason(&self) -> &str {
        match self {
            Self::Pass => "",
            Self::Fail(r) | Self::ExpectedFail(r) | Self::Timeout(r) | Self::Skip(r) => r,
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone)]
pub struct Row {
    /// What was run: the suite's own first columns (MPICH's test, process
    /// count and arguments; OSU's program, window and synchronisation).
    pub what: Vec<String>,
    /// What came of it.
    pub verdict: Verdict,
    /// Stale reads the checker counted, when the test ran and its cores
    /// reported them.
    pub stale: Option<u64>,
    /// Host seconds of the run, when the test ran.
    pub seconds: Option<f64>,
}

/// The counts of a finished suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Tests that passed.
    pub pass: usize,
    /// Tests that failed.
    pub fail: usize,
    /// Tests that failed as `xfail=` said.
    pub xfail: usize,
    /// Tests that ran out of time without failing.
    pub timeout: usize,
    /// Tests not run.
    pub skip: usize,
}

impl Counts {
    /// The counts of `rows`.
    pub fn of(rows: &[Row]) -> Self {
        let mut counts = Self::default();
        for row in rows {
            match row.verdict {
                Verdict::Pass => counts.pass += 1,
                Verdict::Fail(_) => counts.fail += 1,
                Verdict::ExpectedFail(_) => counts.xfail += 1,
                Verdict::Timeout(_) => counts.timeout += 1,
                Verdict::Skip(_) => counts.skip += 1,
            }
        }
        counts
    }

    /// `3 pass, 1 fail, 1 expected failures (xfail), 2 timed out, 1
    /// skipped`: expected failures and timeouts only when there are any.
    pub fn summary(&self) -> String {
        let mut text = format!("{} pass, {} fail", self.pass, self.fail);
        if self.xfail > 0 {
            let _ = write!(text, ", {} expected failures (xfail)", self.xfail);
        }
        if self.timeout > 0 {
            let _ = write!(text, ", {} timed out", self.timeout);
        }
        let _ = write!(text, ", {} skipped", self.skip);
        text
    }
}

/// The assignments of a `Makefile.am`, continuation lines joined, in
/// order: the variable, whether it was `+=`, and its words. Conditionals
/// (`if`/`else`/`endif`) are ignored: every branch counts.
pub fn makefile_assignments(text: &str) -> Vec<(String, bool, Vec<String>)> {
    let joined = text.replace("\\\n", " ");
    let mut found = Vec::new();
    for line in joined.lines() {
        if line.starts_with('\t') || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((left, right)) = line.split_once('=') else {
            continue;
        };
        let append = left.trim_end().ends_with('+');
        let name = left.trim().trim_end_matches('+').trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            continue;
        }
        let words = right.split_whitespace().map(str::to_owned).collect();
        found.push((name.to_owned(), append, words));
    }
    found
}

/// `words` with each `$(VAR)` or `${VAR}` that `variables` defines
/// replaced by its words (themselves expanded), and every other variable
/// (automake's, configure's) left out.
fn expand(words: &[String], variables: &BTreeMap<String, Vec<String>>, depth: u32) -> Vec<String> {
    let mut out = Vec::new();
    for word in words {
        let name = word
            .strip_prefix("$(")
            .and_then(|w| w.strip_suffix(')'))
            .or_else(|| word.strip_prefix("${").and_then(|w| w.strip_suffix('}')));
        match name {
            Some(name) => {
                if let Some(value) = variables.get(name).filter(|_| depth < 8) {
                    out.extend(expand(value, variables, depth + 1));
                }
            }
            None if word.contains('$') => {}
            None => out.push(word.clone()),
        }
    }
    out
}

/// The suite's directory in the tree `mpich`, and its list: `testlist`,
/// else `testlist.in`. Bad input gets an error saying what is missing.
pub fn locate(mpich: &Path) -> Result<(PathBuf, PathBuf)> {
    ensure!(
        mpich.is_dir(),
        "--mpich {}: no such directory (give the top of an MPICH source tree)",
        mpich.display()
    );
    let dir = mpich.join("test/mpi/rma");
    let list = ["testlist", "testlist.in"]
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
        .with_context(|| {
            format!(
                "--mpich {}: no test/mpi/rma/testlist (nor testlist.in) there: not an MPICH \
                 source tree (give the directory holding MPICH's test/)",
                mpich.display()
            )
        })?;
    let mtest = mpich.join("test/mpi/util/mtest.c");
    ensure!(
        mtest.is_file(),
        "--mpich {}: no test/mpi/util/mtest.c, MPICH's test harness, which every test links with",
        mpich.display()
    );
    Ok((dir, list))
}

/// Parses a test list: one `NAME NP [KEY=VALUE ...]` per line, `#`
/// comments, and configure's `@...@` lines left out.
pub fn parse_testlist(text: &str) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.contains('@') {
            continue;
        }
        let mut words = line.split_whitespace();
        let name = words
            .next()
            .expect("a non-empty line has a word")
            .to_owned();
        let np = words.next().with_context(|| {
            format!("testlist line {}: {name} has no process count", number + 1)
        })?;
        let np: u32 = np.parse().with_context(|| {
            format!(
                "testlist line {}: {name}: `{np}` is not a process count",
                number + 1
            )
        })?;
        let mut entry = Entry {
            name,
            np,
            args: Vec::new(),
            time_limit: None,
            xfail: None,
            env: Vec::new(),
            mpi_version: None,
            other: Vec::new(),
        };
        for word in words {
            match word.split_once('=') {
                Some(("arg", value)) => entry.args.push(value.to_owned()),
                Some(("timeLimit", value)) => {
                    entry.time_limit = Some(value.parse().with_context(|| {
                        format!("testlist line {}: timeLimit={value}", number + 1)
                    })?);
                }
                Some(("xfail", value)) => entry.xfail = Some(value.to_owned()),
                Some(("env", value)) => entry.env.push(value.to_owned()),
                Some(("mpiversion", value)) => entry.mpi_version = Some(value.to_owned()),
                _ => entry.other.push(word.to_owned()),
            }
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// The recipes of `Makefile.am`: each program's `_SOURCES` (C files
/// only) and `_CPPFLAGS`, with the file's own variables expanded
/// (`$(UTILITIES)`) and automake's left out.
pub fn parse_makefile_am(text: &str) -> BTreeMap<String, Recipe> {
    let assignments = makefile_assignments(text);
    let mut variables: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, append, words) in &assignments {
        let value = variables.entry(name.clone()).or_default();
        if !append {
            value.clear();
        }
        value.extend(words.iter().cloned());
    }
    let mut recipes: BTreeMap<String, Recipe> = BTreeMap::new();
    for (name, _, words) in &assignments {
        let words = expand(words, &variables, 0);
        if let Some(program) = name.strip_suffix("_SOURCES") {
            let recipe = recipes.entry(program.to_owned()).or_default();
            recipe
                .sources
                .extend(words.into_iter().filter(|w| w.ends_with(".c")));
        } else if let Some(program) = name.strip_suffix("_CPPFLAGS") {
            recipes
                .entry(program.to_owned())
                .or_default()
                .cppflags
                .extend(words);
        }
    }
    recipes
}

/// The recipe of `name`: `Makefile.am`'s, with `NAME.c` when it names no
/// sources.
fn recipe_of(name: &str, recipes: &BTreeMap<String, Recipe>) -> Recipe {
    let mut recipe = recipes.get(name).cloned().unwrap_or_default();
    if recipe.sources.is_empty() {
        recipe.sources.push(format!("{name}.c"));
    }
    recipe
}

/// Why `entry` (built from `sources`' text) is not run on `chip`, if it
/// is not.
pub fn skip_reason(entry: &Entry, sources: &str, chip: &chip::Chip) -> Option<String> {
    if entry.np > chip.cores() {
        return Some(format!(
            "needs {} processes; the chip ({}) has {} cores",
            entry.np,
            chip.name,
            chip.cores()
        ));
    }
    if sources.contains("dtpools.h") || sources.contains("mtest_dtp.h") {
        return Some(
            "needs MPICH's DTPools library (test/mpi/dtpools, built by MPICH's configure), \
             which this harness does not build"
                .to_owned(),
        );
    }
    if sources.contains("MTest_Start_thread")
        || sources.contains("pthread_create")
        || sources.contains("MPI_THREAD_MULTIPLE")
    {
        return Some("needs threads: a core runs one".to_owned());
    }
    if sources.contains("MPI_File_") {
        return Some("needs MPI-IO, which the library does not have".to_owned());
    }
    if !entry.env.is_empty() {
        return Some(format!(
            "needs environment variables ({}), which the cores do not have",
            entry.env.join(", ")
        ));
    }
    if let Some(version) = &entry.mpi_version {
        let needed: Vec<u32> = version.split('.').filter_map(|p| p.parse().ok()).collect();
        if needed > vec![3, 1] {
            return Some(format!("needs MPI {version}; the library is MPI 3.1"));
        }
    }
    None
}

/// What MPICH's configure would write in `mpitestconf.h` for the cores.
const MPITESTCONF: &str = "/* Written by `cargo xtask conformance`: what MPICH's configure finds
 * on the cores (freestanding C11 over this project's MPI 3.1). */
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
";

/// The harness files of `util/` linked into every test, those the tree
/// has (`mtest.c` is required; newer trees split it).
const MTEST_FILES: &[&str] = &["mtest.c", "mtest_common.c", "mtest_single.c"];

/// Runs the suite as `options` say, writes the table and returns its rows.
pub fn run(suite: Suite, options: &Options) -> Result<Vec<Row>> {
    ensure!(options.jobs >= 1, "--jobs must be at least 1");
    ensure!(
        options.timeout_multiplier >= 1,
        "--timeout-multiplier must be at least 1"
    );
    ensure!(
        options.timeout != Some(Duration::ZERO),
        "--timeout must be at least 1 second"
    );
    match suite {
        Suite::MpichRma => run_mpich(options),
        Suite::OsuOneSided => osu::run(options),
        Suite::SosUnit => sos::run(options),
    }
}

/// `mpich-rma`: every line of the test list.
fn run_mpich(options: &Options) -> Result<Vec<Row>> {
    let mpich = fs::canonicalize(&options.tree)
        .with_context(|| format!("--mpich {}: no such directory", options.tree.display()))?;
    let (dir, list) = locate(&mpich)?;
    let text =
        fs::read_to_string(&list).with_context(|| format!("cannot read {}", list.display()))?;
    let mut entries = parse_testlist(&text)?;
    ensure!(!entries.is_empty(), "{}: no tests listed", list.display());
    if !options.only.is_empty() {
        for name in &options.only {
            ensure!(
                entries.iter().any(|e| &e.name == name),
                "--only {name}: no such test in {}",
                list.display()
            );
        }
        entries.retain(|e| options.only.contains(&e.name));
    }
    let makefile = dir.join("Makefile.am");
    let recipes = match fs::read_to_string(&makefile) {
        Ok(text) => parse_makefile_am(&text),
        Err(_) => BTreeMap::new(),
    };

    let work = prepare(options)?;
    println!(
        "conformance: {} tests from {}, work in {}",
        entries.len(),
        list.display(),
        work.display()
    );
    let mtest = build_mtest(&mpich, &work)?;
    build::build_libmpi(true)?;

    // Each program is built once, however many lines run it.
    let mut programs: BTreeMap<String, Program> = BTreeMap::new();
    for entry in &entries {
        if programs.contains_key(&entry.name) {
            continue;
        }
        let recipe = recipe_of(&entry.name, &recipes);
        let text: String = recipe
            .sources
            .iter()
            .filter_map(|s| fs::read_to_string(dir.join(s)).ok())
            .collect();
        programs.insert(
            entry.name.clone(),
            Program {
                recipe,
                text,
                image: Mutex::new(None),
            },
        );
    }
    let ctx = Harness {
        dir: &dir,
        mpich: &mpich,
        mtest: &mtest,
        runner: Runner {
            work: &work,
            options,
        },
    };
    let rows = run_jobs(
        options,
        &entries,
        |entry| {
            format!(
                "{} -n {}{}",
                entry.name,
                entry.np,
                entry
                    .args
                    .iter()
                    .map(|a| format!(" {a}"))
                    .collect::<String>()
            )
        },
        mpich_what,
        |index, entry| ctx.test(index, entry, &programs[&entry.name]),
    );
    let table = table(
        &mpich_preamble(&mpich, &list, options),
        Suite::MpichRma.noun(),
        &["test", "np", "arguments"],
        &rows,
    );
    finish(options, &table)?;
    Ok(rows)
}

impl Options {
    /// The time limit of a run of `np` cores without its own, before the
    /// multiplier: [`Options::timeout`], else the run's default.
    pub fn limit(&self, np: u32) -> Duration {
        self.timeout
            .unwrap_or_else(|| RunConfig::default_timeout(np))
    }
}

/// The first cells of a test list line's row.
fn mpich_what(entry: &Entry) -> Vec<String> {
    vec![
        entry.name.clone(),
        entry.np.to_string(),
        entry.args.join(" "),
    ]
}

/// Makes the work directory and the table's; returns the work directory,
/// absolute.
fn prepare(options: &Options) -> Result<PathBuf> {
    fs::create_dir_all(&options.work)
        .with_context(|| format!("cannot make {}", options.work.display()))?;
    if let Some(parent) = options.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).with_context(|| format!("cannot make {}", parent.display()))?;
    }
    Ok(fs::canonicalize(&options.work)?)
}

/// Runs `one` on every job, `options.jobs` at once, printing each result
/// as it comes (`label` names the job); returns the rows in the jobs'
/// order. Interrupted, the jobs not finished are skipped rows (`what`
/// gives their first cells).
fn run_jobs<J: Sync>(
    options: &Options,
    jobs: &[J],
    label: impl Fn(&J) -> String + Sync,
    what: impl Fn(&J) -> Vec<String>,
    one: impl Fn(usize, &J) -> Row + Sync,
) -> Vec<Row> {
    let total = jobs.len();
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; total]);
    let queue = Mutex::new(jobs.iter().enumerate().collect::<VecDeque<_>>());
    let done = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.min(total) {
            scope.spawn(|| {
                loop {
                    if interrupted(options) {
                        return;
                    }
                    let Some((index, job)) = queue.lock().expect("queue").pop_front() else {
                        return;
                    };
                    let row = one(index, job);
                    let mut count = done.lock().expect("count");
                    *count += 1;
                    println!(
                        "[{}/{total}] {}: {}{}",
                        *count,
                        label(job),
                        row.verdict.word().trim_matches('*'),
                        match row.verdict.reason() {
                            "" => String::new(),
                            r => format!(": {r}"),
                        }
                    );
                    rows.lock().expect("rows")[index] = Some(row);
                }
            });
        }
    });
    rows.into_inner()
        .expect("rows")
        .into_iter()
        .zip(jobs)
        .map(|(row, job)| {
            row.unwrap_or_else(|| Row {
                what: what(job),
                verdict: Verdict::Skip("not run: the run was interrupted".to_owned()),
                stale: None,
                seconds: None,
            })
        })
        .collect()
}

/// Writes the table; interrupted, says so as an error, the table written.
fn finish(options: &Options, table: &str) -> Result<()> {
    fs::write(&options.out, table)
        .with_context(|| format!("cannot write {}", options.out.display()))?;
    if interrupted(options) {
        bail!(
            "interrupted: the table in {} lists the tests not run as skipped",
            options.out.display()
        );
    }
    Ok(())
}

fn interrupted(options: &Options) -> bool {
    options
        .interrupt
        .as_ref()
        .is_some_and(|i| i.load(Ordering::SeqCst))
}

/// A program of the list: how it is built, its sources' text (for the
/// skip checks), and its image once built (or why it could not be).
#[derive(Debug)]
struct Program {
    recipe: Recipe,
    text: String,
    image: Mutex<Option<Result<PathBuf, String>>>,
}

/// What every MPICH test needs.
struct Harness<'a> {
    dir: &'a Path,
    mpich: &'a Path,
    mtest: &'a [PathBuf],
    runner: Runner<'a>,
}

/// Builds and boots programs in the work directory, for either suite.
struct Runner<'a> {
    work: &'a Path,
    options: &'a Options,
}

/// The include directories of a test's compilation: the generated
/// configuration first, then MPICH's `test/mpi/include`.
fn include_flags(mpich: &Path, work: &Path) -> Vec<String> {
    vec![
        format!("-I{}", work.join("include").display()),
        format!("-I{}", mpich.join("test/mpi/include").display()),
        format!("-I{}", mpich.join("test/mpi/rma").display()),
    ]
}

/// Writes the generated headers and compiles MPICH's harness; returns its
/// objects.
fn build_mtest(mpich: &Path, work: &Path) -> Result<Vec<PathBuf>> {
    let include = work.join("include");
    fs::create_dir_all(&include)?;
    fs::write(include.join("mpitestconf.h"), MPITESTCONF)?;
    // configure writes mtest_mpix.h with MPIX declarations MPICH has and
    // others lack: none here.
    fs::write(
        include.join("mtest_mpix.h"),
        "/* Written by `cargo xtask conformance`: no MPIX extensions. */\n",
    )?;
    let objects = work.join("mtest");
    fs::create_dir_all(&objects)?;
    let log = work.join("mtest.log");
    let _ = fs::remove_file(&log);
    let mut made = Vec::new();
    for file in MTEST_FILES {
        let source = mpich.join("test/mpi/util").join(file);
        if !source.is_file() {
            continue;
        }
        let object = objects.join(file).with_extension("o");
        let mut args = vec!["-c".to_owned(), "-w".to_owned()];
        args.extend(include_flags(mpich, work));
        args.extend([
            source.display().to_string(),
            "-o".to_owned(),
            object.display().to_string(),
        ]);
        mpicc::parse(&args)?
            .run_logging(Some(&log))
            .with_context(|| {
                format!(
                    "building MPICH's harness: {}",
                    first_error(&log).unwrap_or_default()
                )
            })?;
        made.push(object);
    }
    Ok(made)
}

/// What gcc's output in `log` says went wrong: the symbols the link
/// missed, else the first line that reports an error, else its first
/// line.
fn first_error(log: &Path) -> Option<String> {
    let text = fs::read_to_string(log).ok()?;
    let mut missing: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once("undefined reference to `"))
        .filter_map(|(_, rest)| rest.split('\'').next())
        .collect();
    missing.sort_unstable();
    missing.dedup();
    if !missing.is_empty() {
        return Some(format!("undefined reference to {}", missing.join(", ")));
    }
    text.lines()
        .find(|l| l.contains("error") && !l.starts_with("collect2"))
        .or_else(|| text.lines().next())
        .map(|l| l.trim().to_owned())
}

impl Runner<'_> {
    /// Runs `cargo xtask mpicc ARGS -o OUTPUT` (or `-c ARGS -o OUTPUT`
    /// when `compile_only`), gcc's output in `OUTPUT.build.log`; the
    /// error is the first error gcc reported.
    fn mpicc(&self, args: &[String], output: &Path, compile_only: bool) -> Result<(), String> {
        self.driver(mpicc::parse, args, output, compile_only)
    }

    /// Runs `cargo xtask oshcc ARGS -o OUTPUT` (compiles and links against
    /// `libshmem.a`), as [`Runner::mpicc`] runs mpicc.
    fn oshcc(&self, args: &[String], output: &Path) -> Result<(), String> {
        self.driver(mpicc::parse_oshcc, args, output, false)
    }

    /// Runs the compiler driver `parse` makes of `args` (mpicc or oshcc).
    fn driver(
        &self,
        parse: fn(&[String]) -> Result<mpicc::Mpicc>,
        args: &[String],
        output: &Path,
        compile_only: bool,
    ) -> Result<(), String> {
        let dir = output.parent().expect("an output has a directory");
        fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let mut log = output.as_os_str().to_owned();
        log.push(".build.log");
        let log = PathBuf::from(log);
        let _ = fs::remove_file(&log);
        let mut all = Vec::new();
        if compile_only {
            all.push("-c".to_owned());
        }
        all.extend(args.iter().cloned());
        all.extend(["-o".to_owned(), output.display().to_string()]);
        let built = parse(&all).and_then(|m| m.run_logging(Some(&log)));
        built.map(|_| ()).map_err(|e| match first_error(&log) {
            Some(line) => format!("build: {line}"),
            None => format!("build: {e:#}"),
        })
    }

    /// Boots `image` on `np` cores as `cargo xtask mpiexec -n NP
    /// --check-coherence` does, `argv` `name` then `args`, for `timeout`;
    /// keeps every core's serial output and the report in
    /// `logs/LOG.log`.
    fn boot(
        &self,
        log: &str,
        image: &Path,
        np: u32,
        name: &str,
        args: &[String],
        timeout: Duration,
    ) -> Result<RunReport> {
        let params = vec![crate::argv_param(name, args)?];
        let config = RunConfig {
            chip: self.options.chip,
            cores: np,
            app: App::Image(image.to_path_buf()),
            program: None,
            params,
            stack_kib: self.options.stack_kib,
            memory_mib: self.options.memory_mib,
            timeout,
            echo: false,
            interrupt: self.options.interrupt.clone(),
            mode: Mode::Modelled(Model {
                check: true,
                wt_reads: WtReads::Silicon,
                time: Time::On {
                    quantum: std::num::NonZeroU64::new(emu::timing::DEFAULT_QUANTUM)
                        .expect("the default quantum is not 0"),
                    queues: true,
                    seed: chip::DEFAULT_SEED,
                },
            }),
            stats: false,
            stats_json: None,
            gdb: None,
            print_qemu: false,
            trace: None,
            keep_run_dir: false,
            run_dir: None,
        };
        let started = Instant::now();
        let report = crate::run(&config)?;
        let mut text = String::new();
        for core in &report.cores {
            for line in &core.serial {
                let _ = writeln!(text, "[core {:02}] {line}", core.core);
            }
        }
        let _ = writeln!(text, "{}", report.coherence_summary());
        let _ = writeln!(
            text,
            "{report}\n(host time with the build: {:.1} s)",
            started.elapsed().as_secs_f64()
        );
        let path = self.work.join("logs").join(format!("{log}.log"));
        fs::create_dir_all(path.parent().expect("a log has a directory"))?;
        fs::write(&path, text)?;
        Ok(report)
    }
}

impl Harness<'_> {
    /// Builds (once) and runs one line of the list.
    fn test(&self, index: usize, entry: &Entry, program: &Program) -> Row {
        let mut row = Row {
            what: mpich_what(entry),
            verdict: Verdict::Pass,
            stale: None,
            seconds: None,
        };
        if let Some(reason) = skip_reason(entry, &program.text, self.runner.options.chip) {
            row.verdict = Verdict::Skip(reason);
            return row;
        }
        let image = {
            let mut image = program.image.lock().expect("image");
            image
                .get_or_insert_with(|| self.build(&entry.name, &program.recipe))
                .clone()
        };
        let timeout = entry
            .time_limit
            .map_or_else(|| self.runner.options.limit(entry.np), Duration::from_secs)
            * self.runner.options.timeout_multiplier;
        let log = format!("{:03}-{}-n{}", index + 1, entry.name, entry.np);
        let verdict = match image {
            Err(reason) => Verdict::Fail(reason),
            Ok(image) => {
                match self
                    .runner
                    .boot(&log, &image, entry.np, &entry.name, &entry.args, timeout)
                {
                    Err(e) => Verdict::Fail(format!("could not run: {e:#}")),
                    Ok(report) => {
                        row.stale = stale_of(&report);
                        row.seconds = Some(report.elapsed.as_secs_f64());
                        judge(&report)
                    }
                }
            }
        };
        row.verdict = match (verdict, &entry.xfail) {
            (Verdict::Fail(reason), Some(why)) => {
                Verdict::ExpectedFail(format!("{reason} (xfail: {why})"))
            }
            (verdict, _) => verdict,
        };
        row
    }

    /// Compiles and links `name` with `cargo xtask mpicc`; the error is
    /// the first error gcc reported.
    fn build(&self, name: &str, recipe: &Recipe) -> Result<PathBuf, String> {
        for source in &recipe.sources {
            if !self.dir.join(source).is_file() {
                return Err(format!("build: no source {source} in test/mpi/rma"));
            }
        }
        let mut args = include_flags(self.mpich, self.runner.work);
        args.extend(recipe.cppflags.iter().cloned());
        args.extend(
            recipe
                .sources
                .iter()
                .map(|s| self.dir.join(s).display().to_string()),
        );
        args.extend(self.mtest.iter().map(|o| o.display().to_string()));
        let image = self.runner.work.join("programs").join(name);
        self.runner.mpicc(&args, &image, false)?;
        Ok(image)
    }
}

/// The stale reads of a run, when every core reported its count (a
/// timeout stops the cores before they report), or when those that
/// reported counted some.
pub fn stale_of(report: &RunReport) -> Option<u64> {
    let stale = report.stale_reads();
    (stale > 0 || report.missing_reports().is_empty()).then_some(stale)
}

/// Whether a line of a core's serial output is the kernel's, not the
/// program's.
fn kernel_line(line: &str) -> bool {
    line.starts_with("program main:") || line.starts_with("setting args=")
}

/// The lines core `core` printed itself: not the kernel's, not blank.
fn program_lines(report: &RunReport, core: usize) -> impl Iterator<Item = &str> {
    report.cores[core]
        .serial
        .iter()
        .map(String::as_str)
        .filter(|l| !kernel_line(l) && !l.trim().is_empty())
}

/// What a suite's programs print on success.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    /// Whether a line is (part of) the mark of success.
    pub mark: fn(&str) -> bool,
    /// Whether a line says nothing of a failure (the mark, headers).
    pub quiet: fn(&str) -> bool,
    /// The failure when no core printed the mark.
    pub missing: &'static str,
}

/// Whether a line is MPICH's mark of success.
fn no_errors(line: &str) -> bool {
    line.trim() == "No Errors"
}

/// MPICH's tests print ` No Errors`.
const MPICH: Expect = Expect {
    mark: no_errors,
    quiet: no_errors,
    missing: "no \" No Errors\"",
};

/// The verdict on a finished MPICH test.
pub fn judge(report: &RunReport) -> Verdict {
    judge_by(report, &MPICH)
}

/// The verdict on a finished run whose programs print what `expect`
/// says: a pass when every core succeeded, some core printed the mark and
/// the checker counted no stale read; else the reasons.
pub fn judge_by(report: &RunReport, expect: &Expect) -> Verdict {
    // The first line that is not quiet, with the next when it ends in a
    // colon (a panic's place, then its message).
    let first_complaint = |core: usize| {
        let mut lines = program_lines(report, core).filter(|l| !(expect.quiet)(l));
        let first = lines.next()?;
        Some(match lines.next() {
            Some(next) if first.trim_end().ends_with(':') => {
                format!("{} {}", first.trim(), next.trim())
            }
            _ => first.to_owned(),
        })
    };
    let stale = report.stale_reads();
    let mut reasons = Vec::new();
    if report.outcome == Outcome::Interrupted {
        return Verdict::Skip("not finished: the run was interrupted".to_owned());
    }
    match &report.outcome {
        Outcome::Success => {
            let said =
                (0..report.cores.len()).any(|c| program_lines(report, c).any(|l| (expect.mark)(l)));
            if !said {
                let line = (0..report.cores.len()).find_map(first_complaint);
                reasons.push(match line {
                    Some(l) => format!("{}: {}", expect.missing, l.trim()),
                    None => format!("{}: the program printed nothing", expect.missing),
                });
            }
        }
        Outcome::CoreFailed { core, exit } => {
            let line = first_complaint(*core as usize)
                .or_else(|| (0..report.cores.len()).find_map(first_complaint));
            reasons.push(match line {
                Some(l) => format!("core {core} failed ({exit}): {}", l.trim()),
                None => format!("core {core} failed ({exit})"),
            });
        }
        _ => {
            let first = report.to_string();
            let first = first.lines().next().unwrap_or("").trim().to_owned();
            let line = (0..report.cores.len()).find_map(first_complaint);
            reasons.push(match line {
                Some(l) => format!("{first}; first output: {}", l.trim()),
                None => first,
            });
        }
    }
    if stale > 0 {
        reasons.push(format!("{stale} stale read(s)"));
    }
    if reasons.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail(reasons.join("; "))
    }
}

/// The commit of `tree` when it is a git work tree.
fn commit_of(tree: &Path) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(tree)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `` `COMMIT` `` of `tree`, or why it is unknown.
fn commit_text(tree: &Path) -> String {
    commit_of(tree).map_or_else(
        || "unknown: not a git work tree".to_owned(),
        |c| format!("`{c}`"),
    )
}

/// Escapes `text` for a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// What the MPICH table says above its rows.
fn mpich_preamble(mpich: &Path, list: &Path, options: &Options) -> String {
    format!(
        "# MPICH one-sided tests (`test/mpi/rma`)\n\n\
         MPICH tree: `{}` (commit {}); list: `{}`; chip: {}; each test booted as \
         `cargo xtask mpiexec -n NP --check-coherence --stack-kib {} --memory-mib {}` boots \
         it, its time limit times {}.\n",
        mpich.display(),
        commit_text(mpich),
        list.file_name().unwrap_or_default().to_string_lossy(),
        options.chip.name,
        options.stack_kib,
        options.memory_mib,
        options.timeout_multiplier
    )
}

/// The Markdown table of `rows`: `preamble`, the counts (of `noun`),
/// then a row each: the suite's columns (`columns` their headings), the
/// result, the stale reads and the reason.
pub fn table(preamble: &str, noun: &str, columns: &[&str], rows: &[Row]) -> String {
    let counts = Counts::of(rows);
    let mut text = String::new();
    let _ = writeln!(text, "{preamble}");
    let _ = writeln!(text, "{} {noun}: {}.\n", rows.len(), counts.summary());
    let mut heading: Vec<&str> = columns.to_vec();
    heading.extend(["result", "stale reads", "reason"]);
    let _ = writeln!(text, "| {} |", heading.join(" | "));
    let _ = writeln!(text, "|{}", "---|".repeat(heading.len()));
    for row in rows {
        let mut cells: Vec<String> = row.what.iter().map(|c| cell(c)).collect();
        cells.push(row.verdict.word().to_owned());
        cells.push(row.stale.map_or_else(|| "-".to_owned(), |s| s.to_string()));
        cells.push(cell(row.verdict.reason()));
        let _ = writeln!(text, "| {} |", cells.join(" | "));
    }
    text
}

/// A run's report for the suites' unit tests: `outcome`, each core's
/// serial lines, and, for a run with the chip model, `stale` stale reads
/// counted on core 0 (`None`: a plain run, without reports).
#[cfg(test)]
pub(crate) fn test_report(
    outcome: crate::Outcome,
    serial: &[&[&str]],
    stale: Option<u64>,
) -> crate::RunReport {
    crate::RunReport {
        chip: chip::DEFAULT_CHIP,
        outcome,
        cores: (0u32..)
            .zip(serial)
            .map(|(core, lines)| crate::CoreReport {
                core,
                serial: lines.iter().map(|l| (*l).to_owned()).collect(),
                stderr: Vec::new(),
                exit: None,
                first_line: None,
            })
            .collect(),
        elapsed: std::time::Duration::from_secs(1),
        load: Default::default(),
        chip_memory: std::path::PathBuf::from("/dev/shm/x/chip.mem"),
        kept: None,
        mode: crate::Mode::Plain,
        reports: (0u32..)
            .take(serial.len())
            .map(|core| {
                let stale = stale?;
                let mut r = emu::report::CoreReport::new(core, true);
                if core == 0 {
                    r.stale_reads = stale;
                }
                Some(r)
            })
            .collect(),
        report_errors: Vec::new(),
        output_errors: Vec::new(),
        stall: None,
        notes: Vec::new(),
        code: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_testlist_gives_counts_arguments_limits_and_expected_failures() {
        let list = "# comment\n\nfoo 2\nbar 4 arg=-a arg=-b=1 timeLimit=30 xfail=ticket12 mem=4.0\n\
                    @skipped@ 3\nbaz 1 env=X=1 mpiversion=4.0\n";
        let entries = parse_testlist(list).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].name, "foo");
        assert_eq!(entries[0].np, 2);
        assert_eq!(entries[1].args, ["-a", "-b=1"]);
        assert_eq!(entries[1].time_limit, Some(30));
        assert_eq!(entries[1].xfail.as_deref(), Some("ticket12"));
        assert_eq!(entries[1].other, ["mem=4.0"]);
        assert_eq!(entries[2].env, ["X=1"]);
        assert_eq!(entries[2].mpi_version.as_deref(), Some("4.0"));
        let chip = chip::DEFAULT_CHIP;
        assert!(
            skip_reason(&entries[2], "", chip)
                .unwrap()
                .contains("environment")
        );
        assert!(parse_testlist("foo two\n").is_err());
        assert!(parse_testlist("foo\n").is_err());
    }

    #[test]
    fn makefile_am_gives_sources_and_flags() {
        let am = "noinst_PROGRAMS = a \\\n  b\n\
                  b_SOURCES = x.c \\\n  x.h\nb_CPPFLAGS = -DONE -DTWO $(AM_CPPFLAGS)\n\
                  c_LDADD = $(LDADD) -lm\n";
        let recipes = parse_makefile_am(am);
        assert_eq!(recipes["b"].sources, ["x.c"]);
        assert_eq!(recipes["b"].cppflags, ["-DONE", "-DTWO"]);
        assert_eq!(recipe_of("a", &recipes).sources, ["a.c"]);
        assert!(recipe_of("a", &recipes).cppflags.is_empty());
    }

    #[test]
    fn programs_the_cores_cannot_run_are_skipped_with_the_reason() {
        let chip = chip::DEFAULT_CHIP;
        let mut entry = parse_testlist("t 2\n").unwrap().remove(0);
        assert_eq!(skip_reason(&entry, "int main(void) {}", chip), None);
        assert!(
            skip_reason(&entry, "#include \"mtest_dtp.h\"", chip)
                .unwrap()
                .contains("DTPools")
        );
        assert!(
            skip_reason(&entry, "pthread_create(", chip)
                .unwrap()
                .contains("threads")
        );
        assert!(
            skip_reason(&entry, "MPI_File_open(", chip)
                .unwrap()
                .contains("MPI-IO")
        );
        entry.np = chip.cores() + 1;
        assert!(skip_reason(&entry, "", chip).unwrap().contains("cores"));
    }

    #[test]
    fn a_tree_without_the_list_is_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let e = locate(dir.path()).unwrap_err().to_string();
        assert!(e.contains("no test/mpi/rma/testlist"), "{e}");
        let e = locate(&dir.path().join("none")).unwrap_err().to_string();
        assert!(e.contains("no such directory"), "{e}");
    }
}
