// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask conformance osu-one-sided`: the OSU micro-benchmarks'
//! one-sided programs (`mpi/one-sided` of an OSU source tree, or
//! `c/mpi/one-sided` in releases 7 and later) built unmodified with
//! `cargo xtask mpicc` and booted on 2 cores in every window and
//! synchronisation mode each program offers.
//!
//! The programs are the `*_PROGRAMS` of the directory's `Makefile.am`
//! (all of them: the conditional ones need MPI 3, which the library is),
//! each built from its `NAME_SOURCES` (the C files, with the file's own
//! variables such as `$(UTILITIES)` expanded: `osu_1sc.c` in 5.3,
//! `../../util/osu_util*.c` later). Each source is compiled once.
//!
//! The modes are what each program's usage says: it is booted once with
//! `-h`, and the items of its `win_option` and `sync_option` lists are the
//! values of `-w` and `-s` it is then run with, every pair of them. The
//! usage's `-i ITER` and `-x ITER` options, where it lists them, are given
//! [`ITERATIONS`] and [`WARMUP`], so that the small sizes take little host
//! time; the sizes above the program's large-message bound keep its own
//! counts (release 5.3 has no option for them, nor for the largest size,
//! which is 4 MiB).
//!
//! A run passes when every core exits successfully, core 0 printed its
//! size and latency (or bandwidth) rows, and the coherence checker
//! counted no stale read. A run that reaches its time limit without
//! failing is a timeout, not a pass, with the last row it printed (its
//! cores, stopped with SIGTERM, still report the stale reads they saw).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};

use super::{
    Expect, Options, Recipe, Row, Runner, Suite, Verdict, commit_text, finish, judge_by,
    makefile_assignments, parse_makefile_am, prepare, program_lines, run_jobs, stale_of, table,
};
use crate::{Outcome, RunReport, build};

/// The processes of every program: OSU's one-sided benchmarks are
/// between two.
pub const PROCESSES: u32 = 2;

/// What `-i` is given, where the usage lists it: timed iterations of each
/// size up to the program's large-message bound (OSU's default is 10000).
pub const ITERATIONS: u32 = 10;

/// What `-x` is given, where the usage lists it: warm-up iterations (OSU's
/// default is 100).
pub const WARMUP: u32 = 2;

/// The largest message size, given as `-m 1:MAX_SIZE` where the usage
/// lists `-m` (OSU 5.4 on; OSU's default goes to 4 MiB). A bandwidth
/// program keeps a window of 64 messages in a buffer and in the window:
/// 256 KiB messages make 16 MiB of each, which a core's heap (at
/// `--memory-mib 256`) and its 64 MiB of window memory hold; 4 MiB ones
/// would need 256 MiB of each.
pub const MAX_SIZE: u32 = 256 * 1024;

/// The directories of a tree that may hold the one-sided programs:
/// releases up to 6 have `mpi/`, later ones `c/mpi/`.
const DIRS: &[&str] = &["mpi/one-sided", "c/mpi/one-sided"];

/// The one-sided programs' directory in the tree `osu` (the one holding
/// `Makefile.am`). Bad input gets an error saying what is missing.
pub fn locate(osu: &Path) -> Result<PathBuf> {
    ensure!(
        osu.is_dir(),
        "--osu {}: no such directory (give the top of an OSU micro-benchmarks source tree)",
        osu.display()
    );
    DIRS.iter()
        .map(|d| osu.join(d))
        .find(|d| d.join("Makefile.am").is_file())
        .with_context(|| {
            format!(
                "--osu {}: no mpi/one-sided/Makefile.am (nor c/mpi/one-sided/Makefile.am) there: \
                 not an OSU micro-benchmarks source tree (give the directory holding OSU's mpi/)",
                osu.display()
            )
        })
}

/// The programs `Makefile.am` builds: the words of its `*_PROGRAMS`
/// (with `+=`, in every branch of its conditionals), in order, once each.
pub fn programs(makefile_am: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _, words) in makefile_assignments(makefile_am) {
        if !name.ends_with("_PROGRAMS") {
            continue;
        }
        for word in words {
            if !word.contains('$') && !names.contains(&word) {
                names.push(word);
            }
        }
    }
    names
}

/// What a program's usage (its `-h` output) offers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usage {
    /// The values of `-w`, in the usage's order.
    pub windows: Vec<String>,
    /// The values of `-s`, in the usage's order.
    pub syncs: Vec<String>,
    /// Whether it lists `-i` (timed iterations).
    pub iterations: bool,
    /// Whether it lists `-x` (warm-up iterations).
    pub warmup: bool,
    /// Whether it lists `-m` (the message sizes).
    pub sizes: bool,
}

/// Which list of options a usage line opens, if it opens one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    Window,
    Sync,
}

/// Reads a usage text: the lists that follow a line naming `win_option`
/// or `sync_option` (OSU 5's `-w <win_option>` then `<win_option> can be
/// any of the follows:`, or `osu_get_acc_latency`'s `win_option:`), whose
/// items are lines of a value then, after spaces, `use ...`; and the
/// lines that start with `-i`, `-x` or `-m`.
pub fn parse_usage(text: &str) -> Usage {
    let mut usage = Usage::default();
    let mut list = None;
    for line in text.lines() {
        let trimmed = line.trim();
        let option = trimmed
            .split(|c: char| c.is_whitespace() || c == ',')
            .next()
            .unwrap_or("");
        match option {
            "-i" => usage.iterations = true,
            "-x" => usage.warmup = true,
            "-m" => usage.sizes = true,
            _ => {}
        }
        let lower = trimmed.to_ascii_lowercase();
        let item = trimmed
            .split_once(char::is_whitespace)
            .and_then(|(value, rest)| {
                let value_like = !value.is_empty()
                    && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                (value_like && rest.trim_start().starts_with("use ")).then_some(value)
            });
        match (item, list) {
            (Some(value), Some(List::Window)) => usage.windows.push(value.to_owned()),
            (Some(value), Some(List::Sync)) => usage.syncs.push(value.to_owned()),
            (Some(_), None) => {}
            (None, _) => {
                if trimmed.is_empty() {
                    list = None;
                } else if lower.contains("win_option") || lower.contains("win-option") {
                    list = Some(List::Window);
                } else if lower.contains("sync_option") || lower.contains("sync-option") {
                    list = Some(List::Sync);
                }
            }
        }
    }
    usage
}

/// One run of a program: its window and synchronisation mode (`None`
/// where the usage offers none: the program's default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The program.
    pub program: String,
    /// `-w`.
    pub window: Option<String>,
    /// `-s`.
    pub sync: Option<String>,
    /// Every argument.
    pub args: Vec<String>,
}

/// Every window mode of `usage` with every synchronisation mode, window
/// by window, each with `-i`, `-x` and `-m` where the usage lists them.
pub fn matrix(program: &str, usage: &Usage) -> Vec<Case> {
    let windows: Vec<Option<&String>> = if usage.windows.is_empty() {
        vec![None]
    } else {
        usage.windows.iter().map(Some).collect()
    };
    let syncs: Vec<Option<&String>> = if usage.syncs.is_empty() {
        vec![None]
    } else {
        usage.syncs.iter().map(Some).collect()
    };
    let mut cases = Vec::new();
    for window in &windows {
        for sync in &syncs {
            let mut args = Vec::new();
            if let Some(w) = window {
                args.extend(["-w".to_owned(), (*w).clone()]);
            }
            if let Some(s) = sync {
                args.extend(["-s".to_owned(), (*s).clone()]);
            }
            if usage.iterations {
                args.extend(["-i".to_owned(), ITERATIONS.to_string()]);
            }
            if usage.warmup {
                args.extend(["-x".to_owned(), WARMUP.to_string()]);
            }
            if usage.sizes {
                args.extend(["-m".to_owned(), format!("1:{MAX_SIZE}")]);
            }
            cases.push(Case {
                program: program.to_owned(),
                window: window.cloned(),
                sync: sync.cloned(),
                args,
            });
        }
    }
    cases
}

/// The size of a result row: a line of two numbers, a size in bytes and
/// a latency or bandwidth (`1024      56.78`).
pub fn row_size(line: &str) -> Option<u64> {
    let mut words = line.split_whitespace();
    let size = words.next()?.parse().ok()?;
    words.next()?.parse::<f64>().ok()?;
    words.next().is_none().then_some(size)
}

/// Whether a line says nothing of a failure: a row or a `#` header.
fn quiet(line: &str) -> bool {
    row_size(line).is_some() || line.trim_start().starts_with('#')
}

/// OSU's programs print a row per size.
const OSU: Expect = Expect {
    mark: |line| row_size(line).is_some(),
    quiet,
    missing: "no size rows",
};

/// The verdict on a finished run: [`judge_by`] the rows, but a timeout
/// with no other failure is [`Verdict::Timeout`], with the last row
/// printed.
pub fn verdict(report: &RunReport, limit_seconds: u64) -> Verdict {
    if let Outcome::TimedOut { .. } = report.outcome {
        let last = (0..report.cores.len())
            .flat_map(|c| program_lines(report, c).filter_map(row_size))
            .max();
        let mut reason = match last {
            Some(size) => format!("timeout after {limit_seconds} s, after the {size} B row"),
            None => format!("timeout after {limit_seconds} s, before any row"),
        };
        let stale = report.stale_reads();
        if stale > 0 {
            reason.push_str(&format!("; {stale} stale read(s)"));
            return Verdict::Fail(reason);
        }
        if !report.missing_reports().is_empty() {
            reason.push_str(" (stale reads not counted: a core wrote no report)");
        }
        return Verdict::Timeout(reason);
    }
    judge_by(report, &OSU)
}

/// A program's build: its image, or why it has none.
type Image = Result<PathBuf, String>;

/// Runs `osu-one-sided` as `options` say, writes the table and returns
/// its rows.
pub fn run(options: &Options) -> Result<Vec<Row>> {
    let osu = fs::canonicalize(&options.tree)
        .with_context(|| format!("--osu {}: no such directory", options.tree.display()))?;
    let dir = locate(&osu)?;
    let makefile = dir.join("Makefile.am");
    let text = fs::read_to_string(&makefile)
        .with_context(|| format!("cannot read {}", makefile.display()))?;
    let mut names = programs(&text);
    ensure!(
        !names.is_empty(),
        "{}: names no programs (no *_PROGRAMS)",
        makefile.display()
    );
    for name in &options.only {
        ensure!(
            names.contains(name),
            "--only {name}: no such program in {} (it builds {})",
            makefile.display(),
            names.join(", ")
        );
    }
    if !options.only.is_empty() {
        names.retain(|n| options.only.contains(n));
    }
    let recipes = parse_makefile_am(&text);
    let work = prepare(options)?;
    let runner = Runner {
        work: &work,
        options,
    };
    println!(
        "conformance: {} programs from {}, work in {}",
        names.len(),
        makefile.display(),
        work.display()
    );
    build::build_libmpi(true)?;

    // Each source once, then each program linked from its objects.
    let includes = include_dirs(&dir, &recipes);
    let mut objects: BTreeMap<String, Image> = BTreeMap::new();
    let mut images: BTreeMap<String, Image> = BTreeMap::new();
    for name in &names {
        let sources = recipes
            .get(name)
            .map(|r| r.sources.clone())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| vec![format!("{name}.c")]);
        let mut linked = Vec::new();
        let mut failed = None;
        for source in &sources {
            let object = objects
                .entry(source.clone())
                .or_insert_with(|| compile(&runner, &dir, &includes, source))
                .clone();
            match object {
                Ok(object) => linked.push(object.display().to_string()),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let image = match failed {
            Some(e) => Err(e),
            None => {
                let image = work.join("programs").join(name);
                runner.mpicc(&linked, &image, false).map(|()| image)
            }
        };
        println!(
            "built {name}: {}",
            match &image {
                Ok(_) => "ok".to_owned(),
                Err(e) => e.clone(),
            }
        );
        images.insert(name.clone(), image);
    }

    // Each built program's usage, then every mode it offers.
    let limit = options.limit(PROCESSES) * options.timeout_multiplier;
    let mut jobs: Vec<Job> = Vec::new();
    for name in &names {
        match &images[name] {
            Err(e) => jobs.push(Job::Failed(name.clone(), e.clone())),
            Ok(image) => match usage_of(&runner, name, image, limit) {
                Err(e) => jobs.push(Job::Failed(name.clone(), e)),
                Ok(usage) if usage.syncs.is_empty() => jobs.push(Job::Failed(
                    name.clone(),
                    "its usage (-h) lists no sync_option (-s) values".to_owned(),
                )),
                Ok(usage) => {
                    println!(
                        "{name}: -w {}; -s {}",
                        if usage.windows.is_empty() {
                            "(none listed)".to_owned()
                        } else {
                            usage.windows.join("|")
                        },
                        usage.syncs.join("|")
                    );
                    jobs.extend(
                        matrix(name, &usage)
                            .into_iter()
                            .map(|case| Job::Run(case, image.clone())),
                    );
                }
            },
        }
    }
    let rows = run_jobs(
        options,
        &jobs,
        Job::label,
        Job::what,
        |index, job| match job {
            Job::Failed(_, reason) => Row {
                what: job.what(),
                verdict: Verdict::Fail(reason.clone()),
                stale: None,
                seconds: None,
            },
            Job::Run(case, image) => {
                let log = format!(
                    "{:03}-{}-{}-{}",
                    index + 1,
                    case.program,
                    case.window.as_deref().unwrap_or("default"),
                    case.sync.as_deref().unwrap_or("default")
                );
                let mut row = Row {
                    what: job.what(),
                    verdict: Verdict::Pass,
                    stale: None,
                    seconds: None,
                };
                row.verdict =
                    match runner.boot(&log, image, PROCESSES, &case.program, &case.args, limit) {
                        Err(e) => Verdict::Fail(format!("could not run: {e:#}")),
                        Ok(report) => {
                            row.stale = stale_of(&report);
                            row.seconds = Some(report.elapsed.as_secs_f64());
                            verdict(&report, limit.as_secs())
                        }
                    };
                row
            }
        },
    );
    let preamble = format!(
        "# OSU one-sided benchmarks (`{}`)\n\n\
         OSU tree: `{}` (commit {}); chip: {}; each program booted on {PROCESSES} cores as \
         `cargo xtask mpiexec -n {PROCESSES} --check-coherence --stack-kib {} --memory-mib {}` \
         boots it, with `-w` and `-s` as its usage (`-h`) lists them{}, for {} s each.\n",
        dir.strip_prefix(&osu).unwrap_or(&dir).display(),
        osu.display(),
        commit_text(&osu),
        options.chip.name,
        options.stack_kib,
        options.memory_mib,
        format_args!(", and `-i {ITERATIONS} -x {WARMUP}` where it lists them"),
        limit.as_secs()
    );
    let table = table(
        &preamble,
        Suite::OsuOneSided.noun(),
        &["program", "-w", "-s"],
        &rows,
    );
    finish(options, &table)?;
    Ok(rows)
}

/// A row to make: a run, or a program that could not be run at all.
enum Job {
    /// A mode of a built program.
    Run(Case, PathBuf),
    /// A program that did not build or whose usage could not be read.
    Failed(String, String),
}

impl Job {
    fn what(&self) -> Vec<String> {
        match self {
            Self::Run(case, _) => vec![
                case.program.clone(),
                case.window.clone().unwrap_or_else(|| "-".to_owned()),
                case.sync.clone().unwrap_or_else(|| "-".to_owned()),
            ],
            Self::Failed(name, _) => vec![name.clone(), "-".to_owned(), "-".to_owned()],
        }
    }

    fn label(&self) -> String {
        match self {
            Self::Run(case, _) => format!("{} {}", case.program, case.args.join(" ")),
            Self::Failed(name, _) => name.clone(),
        }
    }
}

/// The include directories of every compilation: the programs'
/// directory, then the directory of each source `Makefile.am` names
/// elsewhere (`../../util`, where later releases keep `osu_util.h`, which
/// automake reaches through `AM_CFLAGS = -I${top_srcdir}/util`).
fn include_dirs(dir: &Path, recipes: &BTreeMap<String, Recipe>) -> Vec<String> {
    let mut dirs = vec![dir.to_path_buf()];
    for source in recipes.values().flat_map(|r| &r.sources) {
        if let Some(parent) = dir.join(source).parent()
            && parent.is_dir()
        {
            let parent = fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
            if !dirs.contains(&parent) {
                dirs.push(parent);
            }
        }
    }
    dirs.iter().map(|d| format!("-I{}", d.display())).collect()
}

/// Compiles `source` (relative to `dir`) once, with `includes`.
fn compile(runner: &Runner<'_>, dir: &Path, includes: &[String], source: &str) -> Image {
    let path = dir.join(source);
    if !path.is_file() {
        return Err(format!(
            "build: no source {source} in {} (Makefile.am names it)",
            dir.display()
        ));
    }
    let mut args = includes.to_vec();
    args.push(path.display().to_string());
    let stem: String = source
        .trim_start_matches("../")
        .trim_end_matches(".c")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let object = runner.work.join("objects").join(format!("{stem}.o"));
    runner.mpicc(&args, &object, true).map(|()| object)
}

/// Boots `image` with `-h` and reads its usage from core 0's output.
fn usage_of(
    runner: &Runner<'_>,
    name: &str,
    image: &Path,
    limit: std::time::Duration,
) -> Result<Usage, String> {
    let report = runner
        .boot(
            &format!("usage-{name}"),
            image,
            PROCESSES,
            name,
            &["-h".to_owned()],
            limit,
        )
        .map_err(|e| format!("usage (-h): could not run: {e:#}"))?;
    let text: String = program_lines(&report, 0)
        .map(|l| format!("{l}\n"))
        .collect();
    let usage = parse_usage(&text);
    // The usage counts even when the program then exits with failure:
    // OSU 5.3's option string gives -h an argument, so -h alone is a bad
    // option, answered with the usage and status 1.
    if usage.syncs.is_empty() && !report.success() {
        return Err(format!("usage (-h): {}", judge_by(&report, &OSU).reason()));
    }
    Ok(usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of OSU 5.3's `mpi/one-sided/Makefile.am`, written anew.
    const AM_53: &str = "one_sideddir = $(pkglibexecdir)/mpi/one-sided\n\
        one_sided_PROGRAMS = lat bw\n\n\
        if MPI3_LIBRARY\n    one_sided_PROGRAMS += cas\nendif\n\n\
        lat_SOURCES = lat.c common.c common.h\nbw_SOURCES = bw.c common.c common.h\n\
        cas_SOURCES = cas.c common.c common.h\n";

    /// The shape of later releases': the utilities through a variable.
    const AM_59: &str = "AUTOMAKE_OPTIONS = subdir-objects\n\
        SUFFIXES = .cu .cpp\n.cu.cpp:\n\t$(NVCC) $(NVCFLAGS) --output-file $@.ii $<\n\
        one_sided_PROGRAMS = lat \\\n    bw\n\
        UTILITIES = ../../util/u.c ../../util/u.h\nif CUDA_KERNELS\nUTILITIES += ../../util/k.cu\nendif\n\
        lat_SOURCES = lat.c $(UTILITIES)\nbw_SOURCES = bw.c ${UTILITIES}\n";

    #[test]
    fn the_programs_and_their_sources_come_from_makefile_am() {
        assert_eq!(programs(AM_53), ["lat", "bw", "cas"]);
        let recipes = parse_makefile_am(AM_53);
        assert_eq!(recipes["cas"].sources, ["cas.c", "common.c"]);
        assert_eq!(programs(AM_59), ["lat", "bw"]);
        let recipes = parse_makefile_am(AM_59);
        assert_eq!(recipes["lat"].sources, ["lat.c", "../../util/u.c"]);
        assert_eq!(recipes["bw"].sources, ["bw.c", "../../util/u.c"]);
        assert!(programs("CFLAGS = -O2\n").is_empty());
    }

    /// Usage text in the form of OSU 5.3's `osu_1sc.c`, for a program of
    /// active synchronisation only.
    const USAGE_53: &str = "Usage: prog [options] \noptions:\n  -d <type>       device\n\n\
        \x20 -w <win_option>\n            <win_option> can be any of the follows:\n\
        \x20           create            use MPI_Win_create to create\n\
        \x20           allocate          use MPI_Win_allocate to create\n\
        \x20           dynamic           use MPI_Win_create_dynamic to create\n\n\
        \x20 -s <sync_option>\n            <sync_option> can be any of the follows:\n\
        \x20           pscw              use Post/Start/Complete/Wait\n\
        \x20           fence             use MPI_Win_fence\n\n\
        \x20 -x ITER       warmup (default 100)\n  -i ITER       iterations (default 10000)\n\
        \x20 -h            print this help message\n";

    /// In the form of OSU 5.8's `osu_util.c` (some lines left out).
    const USAGE_58: &str = "Usage: osu_put_latency [options]\nOptions:\n\n\
        \x20 -w --win-option <win_option>\n            <win_option> can be any of the follows:\n\
        \x20           create            use MPI_Win_create to create an MPI Window object\n\
        \x20           allocate          use MPI_Win_allocate to create an MPI Window object\n\n\
        \x20 -s, --sync-option <sync_option>\n            <sync_option> can be any of the follows:\n\
        \x20           pscw              use Post/Start/Complete/Wait synchronization calls \n\
        \x20           lock_all          use MPI_Win_lock_all/unlock_all synchronization calls\n\n\
        \x20 -m, --message-size          [MIN:]MAX  set the minimum and/or the maximum message size\n\
        \x20 -x, --warmup ITER           number of warmup iterations to skip before timing\n\
        \x20 -i, --iterations ITER       number of iterations for timing (default 10000)\n\
        \x20 -h, --help                  print this help message\n";

    /// In the form of `osu_get_acc_latency`'s own usage.
    const USAGE_OWN: &str = "Usage: ./prog -w <win_option>  -s < sync_option> [-x ITER] [-i ITER]\n\
        \x20 -x ITER       warmup\n  -i ITER       iterations\n\nwin_option:\n\
        \x20 create            use MPI_Win_create\n\nsync_option:\n\
        \x20 lock              use MPI_Win_lock/unlock\n  flush_local       use MPI_Win_flush_local\n\n";

    #[test]
    fn the_usage_gives_the_window_and_sync_modes() {
        let usage = parse_usage(USAGE_53);
        assert_eq!(usage.windows, ["create", "allocate", "dynamic"]);
        assert_eq!(usage.syncs, ["pscw", "fence"]);
        assert!(usage.iterations && usage.warmup);
        assert!(!usage.sizes);
        let usage = parse_usage(USAGE_OWN);
        assert_eq!(usage.windows, ["create"]);
        assert_eq!(usage.syncs, ["lock", "flush_local"]);
        assert!(usage.iterations && usage.warmup);
        let usage = parse_usage(USAGE_58);
        assert_eq!(usage.windows, ["create", "allocate"]);
        assert_eq!(usage.syncs, ["pscw", "lock_all"]);
        assert!(usage.iterations && usage.warmup && usage.sizes);
        assert_eq!(
            matrix("p", &usage)[0].args,
            [
                "-w", "create", "-s", "pscw", "-i", "10", "-x", "2", "-m", "1:262144"
            ]
        );
        assert_eq!(parse_usage("Usage: prog\n"), Usage::default());
    }

    #[test]
    fn the_matrix_is_every_window_with_every_sync() {
        let cases = matrix("p", &parse_usage(USAGE_53));
        assert_eq!(cases.len(), 6);
        assert_eq!(
            cases[0].args,
            ["-w", "create", "-s", "pscw", "-i", "10", "-x", "2"]
        );
        assert_eq!(cases[1].window.as_deref(), Some("create"));
        assert_eq!(cases[1].sync.as_deref(), Some("fence"));
        assert_eq!(cases[5].window.as_deref(), Some("dynamic"));
        // No window list (an MPI 2 build): the default window only.
        let usage = Usage {
            syncs: vec!["lock".to_owned()],
            ..Usage::default()
        };
        let cases = matrix("p", &usage);
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].window, None);
        assert_eq!(cases[0].args, ["-s", "lock"]);
    }

    #[test]
    fn rows_are_a_size_and_a_number() {
        assert_eq!(row_size("1024                     56.78"), Some(1024));
        assert_eq!(row_size("0 6.81"), Some(0));
        assert_eq!(row_size("# Size            Latency (us)"), None);
        assert_eq!(row_size("1024"), None);
        assert_eq!(row_size("1024 56.78 3"), None);
        assert!(quiet("# OSU MPI_Put Latency Test"));
        assert!(!quiet("Assertion failed"));
    }

    #[test]
    fn a_tree_without_the_one_sided_programs_is_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let e = locate(dir.path()).unwrap_err().to_string();
        assert!(e.contains("no mpi/one-sided/Makefile.am"), "{e}");
        let e = locate(&dir.path().join("none")).unwrap_err().to_string();
        assert!(e.contains("no such directory"), "{e}");
        fs::create_dir_all(dir.path().join("c/mpi/one-sided")).unwrap();
        fs::write(dir.path().join("c/mpi/one-sided/Makefile.am"), AM_59).unwrap();
        assert_eq!(
            locate(dir.path()).unwrap(),
            dir.path().join("c/mpi/one-sided")
        );
    }

    /// A plain run's report: `outcome`, each core's serial lines.
    fn report(outcome: Outcome, serial: &[&[&str]]) -> RunReport {
        crate::conformance::test_report(outcome, serial, None)
    }

    #[test]
    fn the_verdict_needs_the_rows_and_tells_a_timeout_from_a_failure() {
        let rows: &[&str] = &["# OSU Test", "# Size  Latency (us)", "0  6.81", "1  7.55"];
        assert_eq!(
            verdict(&report(Outcome::Success, &[rows, &[]]), 40),
            Verdict::Pass
        );
        let Verdict::Fail(reason) = verdict(
            &report(Outcome::Success, &[&["# OSU Test", "bad window"], &[]]),
            40,
        ) else {
            panic!("a run without rows passed");
        };
        assert_eq!(reason, "no size rows: bad window");
        let timed_out = Outcome::TimedOut {
            unfinished: vec![0, 1],
        };
        assert_eq!(
            verdict(&report(timed_out.clone(), &[rows, &[]]), 40),
            Verdict::Timeout("timeout after 40 s, after the 1 B row".to_owned())
        );
        assert_eq!(
            verdict(&report(timed_out, &[&["# OSU Test"], &[]]), 40),
            Verdict::Timeout("timeout after 40 s, before any row".to_owned())
        );
        let failed = Outcome::CoreFailed {
            core: 1,
            exit: crate::CoreExit::QemuError { status: 1 },
        };
        let Verdict::Fail(reason) = verdict(&report(failed, &[rows, &["assertion failed"]]), 40)
        else {
            panic!("a failed core passed");
        };
        assert!(
            reason.starts_with("core 1 failed") && reason.ends_with("assertion failed"),
            "{reason}"
        );
    }
}
