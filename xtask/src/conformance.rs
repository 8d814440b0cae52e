// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask conformance mpich-rma`: MPICH's one-sided test suite
//! (`test/mpi/rma` of an MPICH source tree) built unmodified with
//! `cargo xtask mpicc` and MPICH's own harness (`test/mpi/util/mtest.c`),
//! booted as `cargo xtask mpiexec -n N --check-coherence` boots it, and
//! reported as a Markdown table.
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
}

/// What to run and where the table goes.
#[derive(Debug, Clone)]
pub struct Options {
    /// The MPICH source tree (it holds `test/mpi/rma/testlist`).
    pub mpich: PathBuf,
    /// The Markdown table's file.
    pub out: PathBuf,
    /// Where objects, images and logs go.
    pub work: PathBuf,
    /// Tests built and run at once.
    pub jobs: usize,
    /// Only these tests (by the list's names); every one when empty.
    pub only: Vec<String>,
    /// The chip.
    pub chip: &'static chip::Chip,
    /// KiB of each core's stack.
    pub stack_kib: u32,
    /// MiB of each core's private RAM (the heap is half of it).
    pub memory_mib: u32,
    /// Each test's time limit (`timeLimit=`, else the run's default) is
    /// multiplied by this, as MPICH's `MPITEST_TIMEOUT_MULTIPLIER` does.
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
    /// Every core succeeded, ` No Errors` was printed, no stale read.
    Pass,
    /// Why it failed.
    Fail(String),
    /// It failed, as `xfail=` says it does: why it failed.
    ExpectedFail(String),
    /// Why it was not run.
    Skip(String),
}

impl Verdict {
    fn word(&self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail(_) => "**fail**",
            Self::ExpectedFail(_) => "xfail",
            Self::Skip(_) => "skipped",
        }
    }

    fn reason(&self) -> &str {
        match self {
            Self::Pass => "",
            Self::Fail(r) | Self::ExpectedFail(r) | Self::Skip(r) => r,
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone)]
pub struct Row {
    /// The list's line.
    pub entry: Entry,
    /// What came of it.
    pub verdict: Verdict,
    /// Stale reads the checker counted, when the test ran.
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
                Verdict::Skip(_) => counts.skip += 1,
            }
        }
        counts
    }
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
/// only) and `_CPPFLAGS` (without `$(...)` variables).
pub fn parse_makefile_am(text: &str) -> BTreeMap<String, Recipe> {
    let joined = text.replace("\\\n", " ");
    let mut recipes: BTreeMap<String, Recipe> = BTreeMap::new();
    for line in joined.lines() {
        let Some((left, right)) = line.split_once('=') else {
            continue;
        };
        let left = left.trim().trim_end_matches('+').trim();
        let words = right
            .split_whitespace()
            .filter(|w| !w.starts_with("$("))
            .map(str::to_owned);
        if let Some(program) = left.strip_suffix("_SOURCES") {
            let recipe = recipes.entry(program.to_owned()).or_default();
            recipe.sources.extend(words.filter(|w| w.ends_with(".c")));
        } else if let Some(program) = left.strip_suffix("_CPPFLAGS") {
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
    let Suite::MpichRma = suite;
    ensure!(options.jobs >= 1, "--jobs must be at least 1");
    ensure!(
        options.timeout_multiplier >= 1,
        "--timeout-multiplier must be at least 1"
    );
    let mpich = fs::canonicalize(&options.mpich)
        .with_context(|| format!("--mpich {}: no such directory", options.mpich.display()))?;
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

    fs::create_dir_all(&options.work)
        .with_context(|| format!("cannot make {}", options.work.display()))?;
    let work = fs::canonicalize(&options.work)?;
    if let Some(parent) = options.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).with_context(|| format!("cannot make {}", parent.display()))?;
    }
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
    let jobs: Vec<(usize, &Entry)> = entries.iter().enumerate().collect();
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; entries.len()]);
    let queue = Mutex::new(jobs.into_iter().collect::<VecDeque<_>>());
    let total = entries.len();
    let done = Mutex::new(0usize);
    let ctx = Harness {
        dir: &dir,
        mpich: &mpich,
        work: &work,
        mtest: &mtest,
        options,
    };
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.min(total) {
            scope.spawn(|| {
                loop {
                    if interrupted(options) {
                        return;
                    }
                    let Some((index, entry)) = queue.lock().expect("queue").pop_front() else {
                        return;
                    };
                    let program = &programs[&entry.name];
                    let row = ctx.test(index, entry, program);
                    let mut count = done.lock().expect("count");
                    *count += 1;
                    println!(
                        "[{}/{total}] {} -n {}{}: {}{}",
                        *count,
                        entry.name,
                        entry.np,
                        entry
                            .args
                            .iter()
                            .map(|a| format!(" {a}"))
                            .collect::<String>(),
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
    // Interrupted, the tests that did not finish are skipped, and the
    // table says so.
    let stopped = interrupted(options);
    let rows: Vec<Row> = rows
        .into_inner()
        .expect("rows")
        .into_iter()
        .zip(&entries)
        .map(|(row, entry)| {
            row.unwrap_or_else(|| Row {
                entry: entry.clone(),
                verdict: Verdict::Skip("not run: the run was interrupted".to_owned()),
                stale: None,
                seconds: None,
            })
        })
        .collect();
    let table = table(&mpich, &list, &rows, options);
    fs::write(&options.out, table)
        .with_context(|| format!("cannot write {}", options.out.display()))?;
    if stopped {
        bail!(
            "interrupted: the table in {} lists the tests not run as skipped",
            options.out.display()
        );
    }
    Ok(rows)
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

/// What every test needs.
struct Harness<'a> {
    dir: &'a Path,
    mpich: &'a Path,
    work: &'a Path,
    mtest: &'a [PathBuf],
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

impl Harness<'_> {
    /// Builds (once) and runs one line of the list.
    fn test(&self, index: usize, entry: &Entry, program: &Program) -> Row {
        let mut row = Row {
            entry: entry.clone(),
            verdict: Verdict::Pass,
            stale: None,
            seconds: None,
        };
        if let Some(reason) = skip_reason(entry, &program.text, self.options.chip) {
            row.verdict = Verdict::Skip(reason);
            return row;
        }
        let image = {
            let mut image = program.image.lock().expect("image");
            image
                .get_or_insert_with(|| self.build(&entry.name, &program.recipe))
                .clone()
        };
        let verdict = match image {
            Err(reason) => Verdict::Fail(reason),
            Ok(image) => match self.boot(index, entry, &image) {
                Err(e) => Verdict::Fail(format!("could not run: {e:#}")),
                Ok(report) => {
                    row.stale = Some(report.stale_reads());
                    row.seconds = Some(report.elapsed.as_secs_f64());
                    judge(&report)
                }
            },
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
        let dir = self.work.join("programs");
        fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let image = dir.join(name);
        let log = dir.join(format!("{name}.build.log"));
        let _ = fs::remove_file(&log);
        for source in &recipe.sources {
            if !self.dir.join(source).is_file() {
                return Err(format!("build: no source {source} in test/mpi/rma"));
            }
        }
        let mut args = include_flags(self.mpich, self.work);
        args.extend(recipe.cppflags.iter().cloned());
        args.extend(
            recipe
                .sources
                .iter()
                .map(|s| self.dir.join(s).display().to_string()),
        );
        args.extend(self.mtest.iter().map(|o| o.display().to_string()));
        args.extend(["-o".to_owned(), image.display().to_string()]);
        let built = mpicc::parse(&args).and_then(|m| m.run_logging(Some(&log)));
        match built {
            Ok(_) => Ok(image),
            Err(e) => Err(match first_error(&log) {
                Some(line) => format!("build: {line}"),
                None => format!("build: {e:#}"),
            }),
        }
    }

    /// Boots `image` as `cargo xtask mpiexec -n NP --check-coherence`
    /// does, and keeps its serial output and report in a log.
    fn boot(&self, index: usize, entry: &Entry, image: &Path) -> Result<RunReport> {
        let params = vec![crate::argv_param(&entry.name, &entry.args)?];
        let timeout = entry
            .time_limit
            .map_or_else(|| RunConfig::default_timeout(entry.np), Duration::from_secs)
            * self.options.timeout_multiplier;
        let config = RunConfig {
            chip: self.options.chip,
            cores: entry.np,
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
        let mut log = String::new();
        for core in &report.cores {
            for line in &core.serial {
                let _ = writeln!(log, "[core {:02}] {line}", core.core);
            }
        }
        let _ = writeln!(log, "{}", report.coherence_summary());
        let _ = writeln!(
            log,
            "{report}\n(host time with the build: {:.1} s)",
            started.elapsed().as_secs_f64()
        );
        let path = self.work.join("logs").join(format!(
            "{:03}-{}-n{}.log",
            index + 1,
            entry.name,
            entry.np
        ));
        fs::create_dir_all(path.parent().expect("a log has a directory"))?;
        fs::write(&path, log)?;
        Ok(report)
    }
}

/// Whether a line of a core's serial output is the kernel's, not the
/// program's.
fn kernel_line(line: &str) -> bool {
    line.starts_with("program main:") || line.starts_with("setting args=")
}

/// Whether a line is MPICH's mark of success.
fn no_errors(line: &str) -> bool {
    line.trim() == "No Errors"
}

/// The verdict on a finished run.
pub fn judge(report: &RunReport) -> Verdict {
    let program_lines = |core: usize| {
        report.cores[core]
            .serial
            .iter()
            .map(String::as_str)
            .filter(|l| !kernel_line(l) && !l.trim().is_empty())
    };
    // The first line that is not MPICH's success, with the next when it
    // ends in a colon (a panic's place, then its message).
    let first_complaint = |core: usize| {
        let mut lines = program_lines(core).skip_while(|l| no_errors(l));
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
            let said = (0..report.cores.len()).any(|c| program_lines(c).any(no_errors));
            if !said {
                let line = (0..report.cores.len()).find_map(first_complaint);
                reasons.push(match line {
                    Some(l) => format!("no \" No Errors\": {}", l.trim()),
                    None => "no \" No Errors\": the program printed nothing".to_owned(),
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

/// The commit of `mpich` when it is a git work tree.
fn commit_of(mpich: &Path) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(mpich)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Escapes `text` for a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown table of `rows`.
pub fn table(mpich: &Path, list: &Path, rows: &[Row], options: &Options) -> String {
    let counts = Counts::of(rows);
    let mut text = String::new();
    let _ = writeln!(text, "# MPICH one-sided tests (`test/mpi/rma`)\n");
    let _ = writeln!(
        text,
        "MPICH tree: `{}` (commit {}); list: `{}`; chip: {}; each test booted as \
         `cargo xtask mpiexec -n NP --check-coherence --stack-kib {} --memory-mib {}` boots \
         it, its time limit times {}.\n",
        mpich.display(),
        commit_of(mpich).map_or_else(
            || "unknown: not a git work tree".to_owned(),
            |c| format!("`{c}`")
        ),
        list.file_name().unwrap_or_default().to_string_lossy(),
        options.chip.name,
        options.stack_kib,
        options.memory_mib,
        options.timeout_multiplier
    );
    let _ = writeln!(
        text,
        "{} tests: {} pass, {} fail, {} expected failures (xfail), {} skipped.\n",
        rows.len(),
        counts.pass,
        counts.fail,
        counts.xfail,
        counts.skip
    );
    let _ = writeln!(
        text,
        "| test | np | arguments | result | stale reads | reason |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|");
    for row in rows {
        let e = &row.entry;
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&e.name),
            e.np,
            cell(&e.args.join(" ")),
            row.verdict.word(),
            row.stale.map_or_else(|| "-".to_owned(), |s| s.to_string()),
            cell(row.verdict.reason())
        );
    }
    text
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
