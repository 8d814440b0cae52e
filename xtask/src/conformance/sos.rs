// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask conformance sos-unit`: the unit tests of Sandia
//! OpenSHMEM's test suite (`test/unit` of `openshmem-org/tests-sos`), built
//! unmodified with `cargo xtask oshcc` and booted as `cargo xtask oshrun
//! -n NP --check-coherence` boots them.
//!
//! The programs are the `check_PROGRAMS` of `test/unit/Makefile.am`, in
//! order. Those inside a conditional run when the condition holds on the
//! cores ([`CONDITIONS`]); the others are skipped with the reason (C++,
//! Fortran, threads, the profiling interface). A program is built from
//! `NAME.c`, or its `NAME_SOURCES`, with its `NAME_CFLAGS` and
//! `NAME_CPPFLAGS` and `-I test/include`, as the suite's build does with
//! `EXTERNAL_TESTS`. Each is booted on `NPROCS` cores (the file's `NPROCS
//! ?= N`, 2 in the suite).
//!
//! The programs print what went wrong and exit with a non-zero status (or
//! call `shmem_global_exit`) on failure, and print nothing in particular
//! on success: a test passes when every core exits successfully and the
//! coherence checker counted no stale read. A run that reaches its time
//! limit without failing is a timeout, counted apart.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};

use super::{
    Expect, Options, Row, Runner, Suite, Verdict, commit_text, finish, judge_by,
    makefile_assignments, prepare, run_jobs, stale_of, table,
};
use crate::{Outcome, RunReport, build};

/// The process count when `Makefile.am` sets no `NPROCS` (the suite's own
/// default).
pub const DEFAULT_PROCESSES: u32 = 2;

/// Automake conditionals of the suite's `Makefile.am`: whether each holds
/// for a build for the cores, and why the programs it guards are not run
/// when it does not. A conditional not listed does not hold.
pub const CONDITIONS: &[(&str, bool, &str)] = &[
    (
        "USE_PMI_MPI",
        false,
        "runs only with MPI's process manager, which the cores do not use",
    ),
    (
        "ENABLE_PROFILING",
        false,
        "needs the profiling interface (pshmem_ names), which the library does not have",
    ),
    (
        "HAVE_CXX",
        false,
        "a C++ program: the cores have no C++ runtime",
    ),
    (
        "HAVE_FORTRAN",
        false,
        "a Fortran program: there is no Fortran compiler for the cores",
    ),
    (
        "HAVE_LONG_FORTRAN_HEADER",
        false,
        "a Fortran program: there is no Fortran compiler for the cores",
    ),
    (
        "HAVE_PTHREADS",
        false,
        "needs threads (pthreads): a core runs one thread",
    ),
];

/// One program of `check_PROGRAMS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Its name.
    pub name: String,
    /// Why it is not run (a conditional that does not hold), if it is not.
    pub skip: Option<String>,
}

/// Whether `condition` (`NAME` or `!NAME`) holds on the cores, and why
/// not when it does not.
pub fn condition(condition: &str) -> Result<(), String> {
    let (negated, name) = match condition.strip_prefix('!') {
        Some(name) => (true, name),
        None => (false, condition),
    };
    let known = CONDITIONS.iter().find(|(n, _, _)| *n == name);
    let holds = known.is_some_and(|(_, holds, _)| *holds) != negated;
    if holds {
        return Ok(());
    }
    Err(match known {
        Some((_, _, why)) if !negated => (*why).to_owned(),
        _ => format!(
            "built only when configure's conditional {condition} holds, which it does not here"
        ),
    })
}

/// The programs of `check_PROGRAMS` in `Makefile.am`, in order, once
/// each, with the conditionals (`if`, `else`, `endif`) around each
/// assignment decided by [`condition`].
pub fn programs(makefile_am: &str) -> Vec<Program> {
    let joined = makefile_am.replace("\\\n", " ");
    let mut stack: Vec<String> = Vec::new();
    let mut found: Vec<Program> = Vec::new();
    for line in joined.lines() {
        if line.starts_with('\t') || line.trim_start().starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        match words.next() {
            Some("if") => {
                stack.push(words.next().unwrap_or("").to_owned());
                continue;
            }
            Some("else") => {
                if let Some(top) = stack.last_mut() {
                    *top = match top.strip_prefix('!') {
                        Some(name) => name.to_owned(),
                        None => format!("!{top}"),
                    };
                }
                continue;
            }
            Some("endif") => {
                stack.pop();
                continue;
            }
            _ => {}
        }
        let Some((left, right)) = line.split_once('=') else {
            continue;
        };
        if left.trim().trim_end_matches('+').trim() != "check_PROGRAMS" {
            continue;
        }
        let skip = stack.iter().find_map(|c| condition(c).err());
        for name in right.split_whitespace().filter(|w| !w.contains('$')) {
            if !found.iter().any(|p| p.name == name) {
                found.push(Program {
                    name: name.to_owned(),
                    skip: skip.clone(),
                });
            }
        }
    }
    found
}

/// `NPROCS ?= N` (or `=`) of `Makefile.am`, else [`DEFAULT_PROCESSES`].
pub fn processes(makefile_am: &str) -> u32 {
    makefile_assignments(makefile_am)
        .into_iter()
        .filter(|(name, _, _)| name.trim_end_matches('?').trim() == "NPROCS")
        .filter_map(|(_, _, words)| words.first()?.parse().ok())
        .next_back()
        .unwrap_or(DEFAULT_PROCESSES)
}

/// How a program is built: its C sources and its flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recipe {
    /// `NAME_SOURCES` (C files), else `NAME.c`.
    pub sources: Vec<String>,
    /// `NAME_CFLAGS` then `NAME_CPPFLAGS`, without automake's variables.
    pub flags: Vec<String>,
}

/// The recipe of every program `Makefile.am` gives one for.
pub fn recipes(makefile_am: &str) -> BTreeMap<String, Recipe> {
    let mut recipes: BTreeMap<String, Recipe> = BTreeMap::new();
    for (name, _, words) in makefile_assignments(makefile_am) {
        let words = words.into_iter().filter(|w| !w.contains('$'));
        if let Some(program) = name.strip_suffix("_SOURCES") {
            recipes
                .entry(program.to_owned())
                .or_default()
                .sources
                .extend(words.filter(|w| w.ends_with(".c")));
        } else if let Some(program) = name
            .strip_suffix("_CFLAGS")
            .or_else(|| name.strip_suffix("_CPPFLAGS"))
            .filter(|p| !p.starts_with("AM"))
        {
            recipes
                .entry(program.to_owned())
                .or_default()
                .flags
                .extend(words);
        }
    }
    recipes
}

/// The recipe of `name`: `Makefile.am`'s, `NAME.c` when it names no
/// sources.
fn recipe_of(name: &str, recipes: &BTreeMap<String, Recipe>) -> Recipe {
    let mut recipe = recipes.get(name).cloned().unwrap_or_default();
    if recipe.sources.is_empty() {
        recipe.sources.push(format!("{name}.c"));
    }
    recipe
}

/// The unit tests' directory and the suite's include directory in the
/// tree `sos`. Bad input gets an error saying what is missing.
pub fn locate(sos: &Path) -> Result<(PathBuf, PathBuf)> {
    ensure!(
        sos.is_dir(),
        "--sos {}: no such directory (give the top of a tests-sos tree)",
        sos.display()
    );
    let unit = sos.join("test/unit");
    ensure!(
        unit.join("Makefile.am").is_file(),
        "--sos {}: no test/unit/Makefile.am there: not a tests-sos tree \
         (give the directory holding test/)",
        sos.display()
    );
    Ok((unit, sos.join("test/include")))
}

/// tests-sos programs say nothing in particular on success: any line
/// counts as said, none is quiet (the first line is the complaint).
const SOS: Expect = Expect {
    mark: |_| true,
    quiet: |_| false,
    missing: "",
};

/// The verdict on a finished run: a pass when every core succeeded (or
/// one ended the run of all successfully) and no read was stale; a timeout without another failure is
/// [`Verdict::Timeout`]; otherwise the reasons ([`judge_by`]).
pub fn verdict(report: &RunReport, limit_seconds: u64) -> Verdict {
    let stale = report.stale_reads();
    match report.outcome {
        _ if report.outcome.succeeded() && stale == 0 => Verdict::Pass,
        _ if report.outcome.succeeded() => Verdict::Fail(format!("{stale} stale read(s)")),
        Outcome::TimedOut { .. } if stale == 0 => {
            let mut reason = format!("timeout after {limit_seconds} s");
            if !report.missing_reports().is_empty() {
                reason.push_str(" (stale reads not counted: a core wrote no report)");
            }
            Verdict::Timeout(reason)
        }
        _ => judge_by(report, &SOS),
    }
}

/// Runs `sos-unit` as `options` say, writes the table and returns its
/// rows.
pub fn run(options: &Options) -> Result<Vec<Row>> {
    let sos = fs::canonicalize(&options.tree)
        .with_context(|| format!("--sos {}: no such directory", options.tree.display()))?;
    let (dir, include) = locate(&sos)?;
    let makefile = dir.join("Makefile.am");
    let text = fs::read_to_string(&makefile)
        .with_context(|| format!("cannot read {}", makefile.display()))?;
    let mut list = programs(&text);
    ensure!(
        !list.is_empty(),
        "{}: names no check_PROGRAMS",
        makefile.display()
    );
    for name in &options.only {
        ensure!(
            list.iter().any(|p| &p.name == name),
            "--only {name}: no such program in {}",
            makefile.display()
        );
    }
    if !options.only.is_empty() {
        list.retain(|p| options.only.contains(&p.name));
    }
    let np = processes(&text);
    let recipes = recipes(&text);
    let work = prepare(options)?;
    let runner = Runner {
        work: &work,
        options,
    };
    println!(
        "conformance: {} programs from {}, work in {}",
        list.len(),
        makefile.display(),
        work.display()
    );
    build::build_libshmem(true)?;
    let limit = options.limit(np) * options.timeout_multiplier;
    let rows = run_jobs(
        options,
        &list,
        |p| p.name.clone(),
        |p| vec![p.name.clone(), np.to_string()],
        |index, program| {
            let mut row = Row {
                what: vec![program.name.clone(), np.to_string()],
                verdict: Verdict::Pass,
                stale: None,
                seconds: None,
            };
            if let Some(reason) = &program.skip {
                row.verdict = Verdict::Skip(reason.clone());
                return row;
            }
            let recipe = recipe_of(&program.name, &recipes);
            let image = build_one(&runner, &dir, &include, &program.name, &recipe);
            row.verdict = match image {
                Err(reason) => Verdict::Fail(reason),
                Ok(image) => {
                    let log = format!("{:03}-{}", index + 1, program.name);
                    match runner.boot(&log, &image, np, &program.name, &[], limit) {
                        Err(e) => Verdict::Fail(format!("could not run: {e:#}")),
                        Ok(report) => {
                            row.stale = stale_of(&report);
                            row.seconds = Some(report.elapsed.as_secs_f64());
                            verdict(&report, limit.as_secs())
                        }
                    }
                }
            };
            row
        },
    );
    let preamble = format!(
        "# tests-sos unit tests (`test/unit`)\n\n\
         tests-sos tree: `{}` (commit {}); chip: {}; each program built with `cargo xtask oshcc \
         -I test/include` and booted as `cargo xtask oshrun -n {np} --check-coherence \
         --stack-kib {} --memory-mib {}` boots it, for {} s.\n",
        sos.display(),
        commit_text(&sos),
        options.chip.name,
        options.stack_kib,
        options.memory_mib,
        limit.as_secs()
    );
    let table = table(&preamble, Suite::SosUnit.noun(), &["program", "PEs"], &rows);
    finish(options, &table)?;
    Ok(rows)
}

/// Compiles and links `name` with `cargo xtask oshcc`; the error is the
/// first error gcc reported.
fn build_one(
    runner: &Runner<'_>,
    dir: &Path,
    include: &Path,
    name: &str,
    recipe: &Recipe,
) -> Result<PathBuf, String> {
    for source in &recipe.sources {
        if !dir.join(source).is_file() {
            return Err(format!("build: no source {source} in test/unit"));
        }
    }
    let mut args = vec![format!("-I{}", include.display())];
    args.extend(recipe.flags.iter().cloned());
    args.extend(
        recipe
            .sources
            .iter()
            .map(|s| dir.join(s).display().to_string()),
    );
    let image = runner.work.join("programs").join(name);
    runner.oshcc(&args, &image)?;
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of tests-sos's `test/unit/Makefile.am`, written anew.
    const AM: &str = "check_PROGRAMS = \\\n\thello \\\n\tpi\n\n\
        if !USE_PMI_MPI\ncheck_PROGRAMS += \\\n\tglobal_exit\nendif\n\n\
        if ENABLE_PROFILING\ncheck_PROGRAMS += \\\n\tcoverage_p\nendif\n\n\
        if HAVE_FORTRAN\ncheck_PROGRAMS += hello_f\nif !HAVE_LONG_FORTRAN_HEADER\n\
        check_PROGRAMS += info_f\nendif\nendif\n\n\
        if HAVE_PTHREADS\ncheck_PROGRAMS += mt\nelse\ncheck_PROGRAMS += single\nendif\n\n\
        if SOMETHING_ELSE\ncheck_PROGRAMS += odd\nendif\n\n\
        TESTS = $(check_PROGRAMS)\n\nNPROCS ?= 2\nLOG_COMPILER = $(TEST_RUNNER)\n\
        coverage_p_SOURCES = coverage.c\ncoverage_p_CFLAGS = -DTEST_PSHMEM\n\
        funneled_SOURCES = query.c\nfunneled_CFLAGS = -DENABLE_THREADS\n\
        mt_CFLAGS = $(PTHREAD_CFLAGS)\nAM_CPPFLAGS = -I$(top_srcdir)/test/include\n";

    #[test]
    fn the_programs_and_their_conditions_come_from_makefile_am() {
        let list = programs(AM);
        let names: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "hello",
                "pi",
                "global_exit",
                "coverage_p",
                "hello_f",
                "info_f",
                "mt",
                "single",
                "odd"
            ]
        );
        let skip = |name: &str| list.iter().find(|p| p.name == name).unwrap().skip.clone();
        assert_eq!(skip("hello"), None);
        assert_eq!(skip("global_exit"), None);
        assert_eq!(skip("single"), None);
        assert!(skip("coverage_p").unwrap().contains("profiling"));
        assert!(skip("hello_f").unwrap().contains("Fortran"));
        assert!(skip("info_f").unwrap().contains("Fortran"));
        assert!(skip("mt").unwrap().contains("threads"));
        assert!(skip("odd").unwrap().contains("SOMETHING_ELSE"));
    }

    #[test]
    fn sources_flags_and_the_process_count_come_from_makefile_am() {
        assert_eq!(processes(AM), 2);
        assert_eq!(processes("NPROCS = 4\n"), 4);
        assert_eq!(processes("CFLAGS = -O2\n"), DEFAULT_PROCESSES);
        let recipes = recipes(AM);
        let coverage = recipe_of("coverage_p", &recipes);
        assert_eq!(coverage.sources, ["coverage.c"]);
        assert_eq!(coverage.flags, ["-DTEST_PSHMEM"]);
        assert_eq!(recipe_of("funneled", &recipes).flags, ["-DENABLE_THREADS"]);
        assert!(recipe_of("mt", &recipes).flags.is_empty());
        assert_eq!(recipe_of("hello", &recipes).sources, ["hello.c"]);
        assert!(!recipes.contains_key("AM"));
    }

    #[test]
    fn a_tree_without_the_unit_tests_is_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let e = locate(dir.path()).unwrap_err().to_string();
        assert!(e.contains("no test/unit/Makefile.am"), "{e}");
        let e = locate(&dir.path().join("none")).unwrap_err().to_string();
        assert!(e.contains("no such directory"), "{e}");
    }

    /// A modelled run's report: `outcome`, each core's serial lines, and
    /// `stale` stale reads counted on core 0.
    fn report(outcome: Outcome, serial: &[&[&str]], stale: u64) -> RunReport {
        crate::conformance::test_report(outcome, serial, Some(stale))
    }

    #[test]
    fn the_verdict_is_every_core_succeeding_without_stale_reads() {
        assert_eq!(
            verdict(&report(Outcome::Success, &[&[], &[]], 0), 40),
            Verdict::Pass
        );
        assert_eq!(
            verdict(&report(Outcome::Success, &[&["x"], &[]], 3), 40),
            Verdict::Fail("3 stale read(s)".to_owned())
        );
        // shmem_global_exit(0) on core 0 ends the run of both.
        assert_eq!(
            verdict(&report(Outcome::Ended { core: 0 }, &[&[], &[]], 0), 40),
            Verdict::Pass
        );
        let timed_out = Outcome::TimedOut {
            unfinished: vec![0, 1],
        };
        assert!(matches!(
            verdict(&report(timed_out, &[&[], &[]], 0), 40),
            Verdict::Timeout(r) if r.starts_with("timeout after 40 s")
        ));
        let failed = Outcome::CoreFailed {
            core: 1,
            exit: crate::CoreExit::QemuError { status: 1 },
        };
        let Verdict::Fail(reason) = verdict(
            &report(failed, &[&[], &["Error: got 2, expected 1"]], 0),
            40,
        ) else {
            panic!("a failed core passed");
        };
        assert!(
            reason.starts_with("core 1 failed") && reason.ends_with("Error: got 2, expected 1"),
            "{reason}"
        );
    }
}
