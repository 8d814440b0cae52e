// SPDX-License-Identifier: MIT OR Apache-2.0
//! Running the suite's jobs (one at a time, several at once, or one per
//! command on other machines) and making the report from their results.
//!
//! Every job leaves its result file ([`super::results`]); the sections
//! are always made from those results, whether they were produced by this
//! command, by an earlier one (`--resume`, `--only-failed`) or by
//! `--run-one` commands elsewhere (`--collect`). An experiment's files
//! and the report are written as soon as every run it reads has ended, so
//! that an interrupted suite leaves what it finished.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result, bail};

use super::jobs::{self, Job, Work};
use super::progress::Progress;
use super::protocol::Pool;
use super::report::{self, RunInfo};
use super::results::{self, CoreLines, Produced, RunResult, Status};
use super::usage::{self, Usage};
use super::{
    CProgram, Ctx, Experiment, Kind, Output, REGISTRY, RunConfig, Section, SuiteOutcome, TIMEOUT,
    failure, host_time, interrupted, lines_section, samples, select,
};
use crate::build::{self, App, Artifacts};
use crate::programs::Catalog;
use crate::qemu::{self, Qemu};
use crate::run::HostLoad;

/// Which of the chosen experiments' runs a suite command makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rerun {
    /// Every one.
    All,
    /// Those whose results are not complete in the output directory.
    Resume,
    /// Those whose result there records a failure.
    OnlyFailed,
}

/// How a suite command runs.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The `--quick` scale.
    pub quick: bool,
    /// Which runs it makes.
    pub rerun: Rerun,
    /// How many runs go at once (checked by [`jobs::check_parallel`]).
    pub parallel: usize,
}

/// What a job needs to run.
#[derive(Debug)]
struct Env<'a> {
    quick: bool,
    dir: &'a Path,
    images: &'a Images,
    qemu: &'a Qemu,
    interrupt: Option<Arc<AtomicBool>>,
    info: &'a RunInfo,
}

/// The images runs boot.
#[derive(Debug)]
struct Images {
    /// The built-in programs' (host experiments boot these too).
    builtin: Artifacts,
    /// Each C program's ([`CProgram`]) that a job to run needs, by name.
    c: BTreeMap<&'static str, Artifacts>,
}

impl Images {
    /// The image `work` boots.
    fn of(&self, work: &Work) -> &Artifacts {
        match work {
            Work::Lines { program, .. } => self.c.get(program.as_str()).unwrap_or(&self.builtin),
            Work::Host(_) => &self.builtin,
        }
    }
}

/// Builds the built-in image and the C programs `jobs` run, checks the
/// registry's programs against them and finds QEMU: what every run
/// needs.
fn prepare(jobs: &[&Job]) -> Result<(Images, Qemu)> {
    let builtin = build::build(false)?;
    super::check_programs(&Catalog::read(&builtin.kernel)?)?;
    let mut c = BTreeMap::new();
    for job in jobs {
        if let Work::Lines { program, .. } = &job.work
            && let Some(program) = CProgram::find(program)
            && !c.contains_key(program.name)
        {
            let artifacts = build::build_app(&App::C(program.paths()), false)
                .with_context(|| format!("building the C program {}", program.name))?;
            c.insert(program.name, artifacts);
        }
    }
    let qemu = qemu::ensure()?;
    Ok((Images { builtin, c }, qemu))
}

/// Runs the experiments named `names` as `options` say, printing each
/// one's tables as it is complete, and writes every file as `output`
/// says. `command` is the command line for the report. An interrupted run
/// ends it with an error, after the finished experiments are written.
pub fn run_suite(
    names: &[String],
    options: Options,
    output: &Output,
    interrupt: Option<Arc<AtomicBool>>,
    command: &str,
) -> Result<SuiteOutcome> {
    let quick = options.quick;
    let chosen = select(names)?;
    let started = SystemTime::now();
    let all = jobs::all(quick);
    let needed = jobs::needed(&chosen, quick);
    let (images, qemu) = prepare(&needed.iter().collect::<Vec<_>>())?;
    // Before any file is written, so the commit is not `-dirty` from them.
    let info = report::RunInfo::gather(command, quick, started, &qemu);
    let dir = &output.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;

    let mut results = BTreeMap::new();
    let mut absent = BTreeMap::new();
    let mut to_run: Vec<&Job> = Vec::new();
    for job in &needed {
        let status = results::status(dir, job, quick);
        let run = match (options.rerun, &status) {
            (Rerun::All, _) => true,
            (Rerun::Resume, Status::Complete(_)) => false,
            (Rerun::Resume, _) => true,
            (Rerun::OnlyFailed, Status::Failed(_)) => true,
            (Rerun::OnlyFailed, _) => false,
        };
        if run {
            to_run.push(job);
            continue;
        }
        match status {
            Status::Complete(r) | Status::Failed(r) => {
                results.insert(job.id.clone(), *r);
            }
            Status::Missing => {
                absent.insert(job.id.clone(), "not run yet".to_owned());
            }
            Status::Unusable(why) => {
                absent.insert(job.id.clone(), why);
            }
        }
    }
    let progress = Progress::new(to_run.len());
    if to_run.len() < needed.len() {
        progress.note(&format!(
            "bench: {} of {} runs to make; the others' results are read from {}",
            to_run.len(),
            needed.len(),
            dir.join("runs").display()
        ));
    }
    let mut writer = Writer {
        output,
        info: &info,
        quick,
        all: &all,
        chosen: chosen.iter().map(|e| (*e, None)).collect(),
        progress: &progress,
    };
    let mut pending: Vec<String> = to_run.iter().map(|j| j.id.clone()).collect();
    writer.settle(&results, &absent, &pending)?;

    let env = Env {
        quick,
        dir,
        images: &images,
        qemu: &qemu,
        interrupt: interrupt.clone(),
        info: &info,
    };
    let mut done = |result: RunResult| -> Result<()> {
        results::write(dir, &result)?;
        progress.finish(
            &result.id,
            result.seconds,
            result.samples(),
            result.failure.as_deref(),
        );
        pending.retain(|p| *p != result.id);
        results.insert(result.id.clone(), result);
        writer.settle(&results, &absent, &pending)
    };
    // Host-time experiments run alone: other runs beside them would
    // change what they measure.
    let ran = if options.parallel > 1 {
        let (host, lines): (Vec<&Job>, Vec<&Job>) = to_run.iter().partition(|j| j.work.is_host());
        execute(&lines, options.parallel, &env, &progress, &mut done)
            .and_then(|()| execute(&host, 1, &env, &progress, &mut done))
    } else {
        execute(&to_run, 1, &env, &progress, &mut done)
    };
    if let Err(error) = ran {
        // The report still gets a row for every experiment chosen: the
        // runs that did not end say why.
        let why = if interrupted(&interrupt) {
            "not finished: the suite was interrupted (`--resume` runs it)".to_owned()
        } else {
            format!("not run: the suite stopped: {error:#}")
        };
        for id in pending {
            absent.insert(id, why.clone());
        }
        writer.finish(&results, &absent)?;
        return Err(error);
    }
    writer.finish(&results, &absent)
}

/// Runs `jobs`, `parallel` at a time, handing each result to `done` as it
/// comes. The first error (an interrupted run, a QEMU that would not
/// start, a file that cannot be written) stops taking new jobs; the ones
/// under way end and are handed over, then the error is returned.
fn execute(
    jobs: &[&Job],
    parallel: usize,
    env: &Env<'_>,
    progress: &Progress,
    done: &mut dyn FnMut(RunResult) -> Result<()>,
) -> Result<()> {
    let queue = Mutex::new(jobs.iter().copied().collect::<VecDeque<&Job>>());
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(jobs.len()) {
            let (tx, queue, stop) = (tx.clone(), &queue, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                    let Some(job) = next else { break };
                    progress.start(&job.id, &job.work.describe());
                    let result = run_job(job, env, progress);
                    if tx.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut first_error = None;
        for result in rx {
            if let Err(e) = result.and_then(&mut *done) {
                stop.store(true, Ordering::SeqCst);
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    })
}

/// Runs `job`: its old result file removed, its serial log written as it
/// goes. An interrupted run is an error.
fn run_job(job: &Job, env: &Env<'_>, progress: &Progress) -> Result<RunResult> {
    results::forget(env.dir, &job.id)?;
    let log = results::log_path(env.dir, &job.id);
    let logs = log.parent().expect("a log is in logs/");
    std::fs::create_dir_all(logs).with_context(|| format!("cannot create {}", logs.display()))?;
    std::fs::write(&log, "").with_context(|| format!("cannot write {}", log.display()))?;
    let mut ctx = Ctx {
        quick: env.quick,
        out: env.dir,
        artifacts: env.images.of(&job.work),
        qemu: env.qemu,
        interrupt: env.interrupt.clone(),
        log: Some(log),
        progress,
    };
    let clock = Instant::now();
    let load_start = HostLoad::now();
    let mut usage = None;
    let (failure, produced) = match &job.work {
        Work::Lines {
            program,
            cores,
            params,
            memory_mib,
            seed,
        } => {
            let mut config = RunConfig::new(*cores, program);
            config.mode = config.mode.with_seed(*seed);
            config.timeout = TIMEOUT;
            let (chip, params) = super::jobs::split_chip(params);
            if let Some(name) = chip {
                config.chip = chip::find_chip(name).with_context(|| {
                    format!(
                        "{}: unknown chip {name} (known chips: {})",
                        job.id,
                        chip::chip_names()
                    )
                })?;
            }
            match CProgram::find(program) {
                Some(c) => {
                    config.app = App::C(c.paths());
                    config.program = None;
                    config.params = c.run_params(&params)?;
                }
                None => config.params = params,
            }
            if let Some(mib) = memory_mib {
                config.memory_mib = *mib;
            }
            let report = ctx.boot(config)?;
            let failure = (!report.success()).then(|| failure(&job.work.describe(), &report));
            let lines = report
                .cores
                .iter()
                .map(|c| CoreLines::of(c.core, &c.serial))
                .collect();
            usage = Usage::of(&report.reports, report.chip.memory_controllers.len());
            (failure, Produced::Lines(lines))
        }
        Work::Host(name) => {
            let e = experiment(name)?;
            let Kind::Host(f) = &e.kind else {
                bail!("{name} is not a host experiment");
            };
            let section = match f(&mut ctx) {
                Ok(s) => s,
                Err(err) if interrupted(&env.interrupt) => return Err(err),
                Err(err) => {
                    let mut s = Section::new(e);
                    s.failures.push(format!("{err:#}"));
                    s
                }
            };
            let failure = match section.failures.as_slice() {
                [] => None,
                [one] => Some(one.clone()),
                [first, rest @ ..] => Some(format!("{first} (and {} more)", rest.len())),
            };
            (failure, Produced::Host(Box::new(section)))
        }
    };
    let seconds = clock.elapsed().as_secs_f64();
    let load = HostLoad::ending_now(load_start);
    Ok(RunResult::new(
        job,
        env.quick,
        env.info.clone(),
        seconds,
        load,
        failure,
        produced,
    )
    .with_usage(usage))
}

fn experiment(name: &str) -> Result<&'static Experiment> {
    REGISTRY
        .iter()
        .find(|e| e.name == name)
        .with_context(|| format!("no experiment `{name}` in the registry"))
}

/// Runs the one job `id` at scale `quick` and leaves its result and log
/// in `dir`, for `--list-runs`'s commands; no tables, no report.
pub fn run_one(
    id: &str,
    quick: bool,
    dir: &Path,
    interrupt: Option<Arc<AtomicBool>>,
    command: &str,
) -> Result<RunResult> {
    let job = jobs::find(id, quick)?;
    let started = SystemTime::now();
    let (images, qemu) = prepare(&[&job])?;
    let info = report::RunInfo::gather(command, quick, started, &qemu);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let env = Env {
        quick,
        dir,
        images: &images,
        qemu: &qemu,
        interrupt,
        info: &info,
    };
    let progress = Progress::new(1);
    progress.start(&job.id, &job.work.describe());
    let result = run_job(&job, &env, &progress)?;
    results::write(dir, &result)?;
    progress.finish(
        &result.id,
        result.seconds,
        result.samples(),
        result.failure.as_deref(),
    );
    Ok(result)
}

/// One `cargo xtask bench --run-one` command per run the experiments
/// `names` need, each leaving its result in `dir` (made absolute, as the
/// commands may run elsewhere).
pub fn list_runs(names: &[String], quick: bool, dir: &Path) -> Result<Vec<String>> {
    let chosen = select(names)?;
    let dir =
        std::path::absolute(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
    Ok(jobs::needed(&chosen, quick)
        .iter()
        .map(|j| j.run_one_command(quick, &dir))
        .collect())
}

/// Makes the tables, files and report of the results in `output.dir`
/// (left there by `--run-one` commands), for the experiments `names`, or
/// with none every experiment one of whose runs has a result. Every
/// result must be of one scale and of a run the registry has.
pub fn collect(names: &[String], output: &Output, command: &str) -> Result<SuiteOutcome> {
    let dir = &output.dir;
    let found = results::read_all(dir)?;
    if found.is_empty() {
        bail!(
            "no results in {}: `cargo xtask bench --list-runs --out {}` lists the commands that leave them",
            dir.join("runs").display(),
            dir.display()
        );
    }
    let quick = found[0].quick;
    if let Some(other) = found.iter().find(|r| r.quick != quick) {
        bail!(
            "{} holds results with and without --quick ({} and {}): collect one scale at a time",
            dir.join("runs").display(),
            found[0].id,
            other.id
        );
    }
    let all = jobs::all(quick);
    for r in &found {
        if !all.iter().any(|j| j.id == r.id && j.work == r.work) {
            bail!(
                "{}: run {} ({}) is not a run of this registry{}: results of another version? \
                 Remove it or collect with that version",
                results::path(dir, &r.id).display(),
                r.id,
                r.work.describe(),
                if quick { " with --quick" } else { "" }
            );
        }
    }
    let results: BTreeMap<String, RunResult> =
        found.into_iter().map(|r| (r.id.clone(), r)).collect();
    let chosen = if names.is_empty() {
        REGISTRY
            .iter()
            .filter(|e| {
                jobs::of_experiment(e, quick, &all)
                    .iter()
                    .any(|id| results.contains_key(id))
            })
            .collect()
    } else {
        select(names)?
    };
    let info = merged_info(command, quick, results.values().map(|r| &r.info));
    let progress = Progress::with_bar(0, false);
    let writer = Writer {
        output,
        info: &info,
        quick,
        all: &all,
        chosen: chosen.iter().map(|e| (*e, None)).collect(),
        progress: &progress,
    };
    writer.finish(&results, &BTreeMap::new())
}

/// What the report says of results made by several commands: `command`,
/// the earliest date, and every host, commit and QEMU, each once.
fn merged_info<'a>(
    command: &str,
    quick: bool,
    infos: impl Iterator<Item = &'a RunInfo> + Clone,
) -> RunInfo {
    let distinct = |field: fn(&RunInfo) -> &String| {
        let mut seen: Vec<&str> = Vec::new();
        for i in infos.clone() {
            if !seen.contains(&field(i).as_str()) {
                seen.push(field(i));
            }
        }
        seen.join("; ")
    };
    RunInfo {
        command: command.to_owned(),
        quick,
        date: infos
            .clone()
            .map(|i| i.date.clone())
            .min()
            .unwrap_or_default(),
        host: distinct(|i| &i.host),
        commit: distinct(|i| &i.commit),
        qemu: distinct(|i| &i.qemu),
    }
}

/// Experiment `e`'s section from the results of its runs; a run without
/// one is a failure saying why (`absent`, else that none was found).
pub fn section_of(
    e: &Experiment,
    quick: bool,
    all: &[Job],
    results: &BTreeMap<String, RunResult>,
    absent: &BTreeMap<String, String>,
) -> Section {
    let why = |id: &str| {
        absent
            .get(id)
            .cloned()
            .unwrap_or_else(|| "no result file".to_owned())
    };
    let ids = jobs::of_experiment(e, quick, all);
    let job = |id: &String| all.iter().find(|j| &j.id == id).expect("a job of the list");
    match &e.kind {
        Kind::Host(_) => {
            let id = &ids[0];
            match results.get(id) {
                Some(r) => {
                    let Produced::Host(s) = &r.produced else {
                        let mut s = Section::new(e);
                        s.failures.push(format!("run {id} holds result lines"));
                        return s;
                    };
                    let mut s = (**s).clone();
                    s.seconds = r.seconds;
                    if s.failures.is_empty() {
                        s.failures.extend(r.failure.clone());
                    }
                    s
                }
                None => {
                    let mut s = Section::new(e);
                    s.failures.push(format!("run {id}: {}", why(id)));
                    s
                }
            }
        }
        Kind::Lines { view, .. } => {
            let mut pool = Pool::default();
            let (mut runs, mut failures, mut seconds) = (Vec::new(), Vec::new(), 0.0);
            let mut usages = Vec::new();
            for (n, id) in ids.iter().enumerate() {
                let job = job(id);
                let command = job.command(quick);
                if let Work::Lines { seed, .. } = job.work {
                    pool.seed_run(n + 1, seed);
                }
                match results.get(id) {
                    Some(r) => {
                        let time = host_time(r.seconds, r.load);
                        runs.push(format!("`{command}` (run {id}): {time}"));
                        seconds += r.seconds;
                        failures.extend(r.failure.clone());
                        if let (Some(u), Work::Lines { params, seed, .. }) = (r.usage, &job.work)
                            && *seed == chip::DEFAULT_SEED
                        {
                            let settings: Vec<String> =
                                params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                            let run = format!("{} {}", job.work.describe(), settings.join(" "));
                            usages.push((run.trim_end().to_owned(), u));
                        }
                        if let Produced::Lines(cores) = &r.produced {
                            for c in cores {
                                for (number, text) in &c.lines {
                                    pool.add_numbered(n + 1, c.core, *number, text);
                                }
                            }
                        }
                    }
                    None => {
                        runs.push(format!("`{command}` (run {id}): no result"));
                        failures.push(format!("run {id} ({}): {}", job.work.describe(), why(id)));
                    }
                }
            }
            let mut section = lines_section(
                e,
                view,
                &pool,
                f64::from(chip::DEFAULT_CHIP.timing.core_mhz),
            );
            section.modeled.extend(super::irregular::model_tables(
                e.name,
                &pool,
                chip::DEFAULT_CHIP,
            ));
            if super::irregular::shows_usage(e.name) {
                section.modeled.extend(usage::table(&usages));
            }
            section.runs = runs;
            section.seconds = seconds;
            failures.append(&mut section.failures);
            section.failures = failures;
            section
        }
    }
}

/// Writes each chosen experiment's files once every run it reads has
/// ended, and the report with every experiment written so far.
struct Writer<'a> {
    output: &'a Output,
    info: &'a RunInfo,
    quick: bool,
    all: &'a [Job],
    /// The chosen experiments, in order, with their sections once written.
    chosen: Vec<(&'static Experiment, Option<Section>)>,
    progress: &'a Progress,
}

impl Writer<'_> {
    /// Writes the experiments none of whose runs is in `pending`, and the
    /// report, if any was new.
    fn settle(
        &mut self,
        results: &BTreeMap<String, RunResult>,
        absent: &BTreeMap<String, String>,
        pending: &[String],
    ) -> Result<()> {
        let mut new = false;
        for i in 0..self.chosen.len() {
            let e = self.chosen[i].0;
            let ready = self.chosen[i].1.is_none()
                && jobs::of_experiment(e, self.quick, self.all)
                    .iter()
                    .all(|id| !pending.contains(id));
            if ready {
                let section = section_of(e, self.quick, self.all, results, absent);
                self.write_section(&section)?;
                self.chosen[i].1 = Some(section);
                new = true;
            }
        }
        if new {
            self.write_report()?;
        }
        Ok(())
    }

    /// Writes every experiment not yet written and the report.
    fn finish(
        mut self,
        results: &BTreeMap<String, RunResult>,
        absent: &BTreeMap<String, String>,
    ) -> Result<SuiteOutcome> {
        self.settle(results, absent, &[])?;
        self.write_report()?;
        Ok(SuiteOutcome {
            sections: self.chosen.into_iter().filter_map(|(_, s)| s).collect(),
            report: self.output.report.clone(),
        })
    }

    fn write_section(&self, section: &Section) -> Result<()> {
        let dir = &self.output.dir;
        let text = section.text();
        self.progress.print(&text);
        for f in &section.failures {
            self.progress
                .note(&format!("{}: failed: {f}", section.name));
        }
        write(&dir.join(format!("{}.txt", section.name)), &text)?;
        if let Some(csv) = &section.csv {
            write(&dir.join(format!("{}.csv", section.name)), csv)?;
        }
        if !section.samples.is_empty() {
            write(
                &dir.join(section.samples_file()),
                &samples::write(&section.name, &section.samples),
            )?;
        }
        for (file, svg) in &section.svgs {
            write(&dir.join(file), svg)?;
        }
        Ok(())
    }

    fn write_report(&self) -> Result<()> {
        let report = &self.output.report;
        if let Some(parent) = report.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let sections: Vec<Section> = self.chosen.iter().filter_map(|(_, s)| s.clone()).collect();
        let links = self.output.link_prefix()?;
        write(report, &report::markdown(self.info, &sections, &links))
    }
}

fn write(path: &Path, content: &str) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, content).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(host: &str) -> RunInfo {
        RunInfo {
            command: "cargo xtask bench --run-one".into(),
            quick: true,
            date: format!("2026-01-0{} 00:00:00 UTC", host.len() % 9),
            host: host.into(),
            commit: "abc".into(),
            qemu: "10.0.0".into(),
        }
    }

    /// A result of job `id` at the quick scale whose core 0 printed
    /// `lines`.
    fn lines_result(id: &str, lines: &[&str], host: &str) -> RunResult {
        let job = jobs::find(id, true).unwrap();
        let serial: Vec<String> = std::iter::once("boot".to_owned())
            .chain(lines.iter().map(|l| (*l).to_owned()))
            .collect();
        RunResult::new(
            &job,
            true,
            info(host),
            2.0,
            HostLoad {
                start: Some(0.5),
                end: Some(1.25),
            },
            None,
            Produced::Lines(vec![CoreLines::of(0, &serial)]),
        )
    }

    #[test]
    fn collect_makes_the_tables_a_suite_run_makes() {
        let results = [
            lines_result(
                "barrier-1",
                &["BENCH barrier procs=2 algo=central cycles=533,1066,1599"],
                "a",
            ),
            lines_result(
                "barrier-2",
                &["BENCH barrier procs=8 algo=central cycles=2132,2665"],
                "bb",
            ),
        ];
        let quick = true;
        let all = jobs::all(quick);
        let barrier = select(&["barrier".into()]).unwrap()[0];
        let in_memory: BTreeMap<String, RunResult> =
            results.iter().map(|r| (r.id.clone(), r.clone())).collect();
        // As a suite run makes it once every run has ended; barrier-3 did
        // not run.
        let absent = BTreeMap::from([("barrier-3".to_owned(), "not run yet".to_owned())]);
        let suite = section_of(barrier, quick, &all, &in_memory, &absent);
        assert_eq!(
            suite.failures,
            ["run barrier-3 (bench-barrier on 16 core(s)): not run yet"]
        );
        assert_eq!(suite.seconds, 4.0);
        assert!(suite.runs[0].ends_with(
            "(run barrier-1): 2.00 s host (load average 0.50 at the start, 1.25 at the end)"
        ));
        assert!(suite.runs[2].ends_with("(run barrier-3): no result"));

        // The same results as --run-one leaves them, collected.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        for r in &results {
            results::write(&dir, r).unwrap();
        }
        let output = Output::new(Some(dir.clone()), None).unwrap();
        let outcome = collect(&[], &output, "cargo xtask bench --collect out").unwrap();
        // Only the experiment with results.
        assert_eq!(outcome.sections.len(), 1);
        let collected = &outcome.sections[0];
        assert_eq!(collected.modeled, suite.modeled);
        assert_eq!(collected.osu, suite.osu);
        assert_eq!(collected.csv, suite.csv);
        assert_eq!(collected.samples, suite.samples);
        assert_eq!(collected.svgs, suite.svgs);
        assert_eq!(collected.runs, suite.runs);
        assert_eq!(
            collected.failures,
            ["run barrier-3 (bench-barrier on 16 core(s)): no result file"]
        );
        assert_eq!(collected.modeled[0].rows.len(), 2);
        // And its files and report are written.
        assert_eq!(
            std::fs::read_to_string(dir.join("barrier.csv")).unwrap(),
            suite.csv.clone().unwrap()
        );
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains("cargo xtask bench --collect out"), "{md}");
        assert!(md.contains("a; bb"), "both hosts named: {md}");
    }

    #[test]
    fn collect_refuses_mixed_or_foreign_results() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_owned();
        let output = Output::new(Some(dir.clone()), None).unwrap();
        let e = collect(&[], &output, "c").unwrap_err().to_string();
        assert!(e.starts_with("cannot read"), "{e}");

        results::write(&dir, &lines_result("barrier-1", &[], "a")).unwrap();
        let mut full = lines_result("barrier-2", &[], "a");
        full.quick = false;
        full.work = jobs::find("barrier-2", false).unwrap().work;
        results::write(&dir, &full).unwrap();
        let e = collect(&[], &output, "c").unwrap_err().to_string();
        assert!(e.contains("holds results with and without --quick"), "{e}");

        let mut foreign = lines_result("barrier-2", &[], "a");
        foreign.id = "barrier-99".into();
        results::forget(&dir, "barrier-2").unwrap();
        results::write(&dir, &foreign).unwrap();
        let e = collect(&[], &output, "c").unwrap_err().to_string();
        assert!(
            e.contains("run barrier-99 (bench-barrier on 8 core(s)) is not a run of this registry"),
            "{e}"
        );

        // A file cut short is an error too, naming it.
        results::forget(&dir, "barrier-99").unwrap();
        std::fs::write(results::path(&dir, "barrier-2"), "{\"format\":").unwrap();
        let e = format!("{:#}", collect(&[], &output, "c").unwrap_err());
        assert!(
            e.contains("barrier-2.json is not a whole result file"),
            "{e}"
        );
    }
}
