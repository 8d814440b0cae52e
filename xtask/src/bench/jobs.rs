// SPDX-License-Identifier: MIT OR Apache-2.0
//! The suite as a list of independent jobs.
//!
//! A job is one run of a result-line program (a program on a core count
//! with its settings) or one whole host experiment (which boots what it
//! needs and measures host time). Every job has an ID that stays the same
//! from one command to the next, as long as the registry does:
//!
//! - a result-line run is `<experiment>-<k>`: the first experiment of the
//!   registry that reads it, and its place (from 1) among that
//!   experiment's runs, in the order the experiment lists them (program
//!   by program, then core count by core count). Experiments that read
//!   the lines of the same run (put latency and bandwidth, say) share the
//!   job, whichever of them is chosen. Each such run is made once per
//!   seed of the chip's variation ([`seeds`]): with the first seed its ID
//!   is as above, with seed `s` after it `<experiment>-<k>-seed<s>`;
//! - a host experiment is its own name.
//!
//! `--quick` has its own list (other core counts and settings): a job's
//! ID names a job of one list only, so `--run-one` and `--list-runs`
//! take `--quick` as the suite does.

use std::path::Path;

use anyhow::{Result, bail};

use super::{CProgram, Experiment, Kind, REGISTRY, TIMEOUT};

/// The seeds of the chip's variation (`cargo xtask run --seed`) every
/// result-line run is made with: three for the suite, so that its medians
/// pool three boots of the chip and the report shows their spread; one
/// for `--quick`.
pub fn seeds(quick: bool) -> &'static [u64] {
    const SUITE: [u64; 3] = [chip::DEFAULT_SEED, 1, 2];
    if quick { &SUITE[..1] } else { &SUITE }
}

/// One job of the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// Its ID (see the module docs).
    pub id: String,
    /// What it runs.
    pub work: Work,
}

/// What a job runs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Work {
    /// A result-line program.
    Lines {
        /// The program.
        program: String,
        /// Its core count.
        cores: u32,
        /// Its settings.
        params: Vec<(String, String)>,
        /// MiB of each core's RAM; `None`: the default (also what a
        /// result written before the setting existed reads as).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        memory_mib: Option<u32>,
        /// The seed of the chip's variation (what a result written before
        /// seeds existed reads as: the default).
        #[serde(default)]
        seed: u64,
    },
    /// A host experiment, by name.
    Host(String),
}

/// The setting of a run that names the chip it boots (`cargo xtask run
/// --chip`) rather than a program setting: absent, the default chip.
pub const CHIP: &str = "chip";

/// A run's settings apart: the chip its [`CHIP`] setting names, if any,
/// and the program's settings.
pub fn split_chip(params: &[(String, String)]) -> (Option<&str>, Vec<(String, String)>) {
    let chip = params
        .iter()
        .find(|(k, _)| k == CHIP)
        .map(|(_, v)| v.as_str());
    let rest = params.iter().filter(|(k, _)| k != CHIP).cloned().collect();
    (chip, rest)
}

impl Work {
    /// What it runs, in a few words.
    pub fn describe(&self) -> String {
        match self {
            Self::Lines {
                program,
                cores,
                seed,
                ..
            } => {
                if *seed == chip::DEFAULT_SEED {
                    format!("{program} on {cores} core(s)")
                } else {
                    format!("{program} on {cores} core(s), seed {seed}")
                }
            }
            Self::Host(name) => format!("host experiment {name}"),
        }
    }

    /// Whether it measures host time, so that nothing else may run
    /// beside it.
    pub fn is_host(&self) -> bool {
        matches!(self, Self::Host(_))
    }
}

impl Job {
    /// The `cargo xtask run` command that repeats a result-line run, or
    /// the `cargo xtask bench` command of a host experiment.
    pub fn command(&self, quick: bool) -> String {
        match &self.work {
            Work::Lines {
                program,
                cores,
                params,
                memory_mib,
                seed,
            } => {
                let c = CProgram::find(program);
                let what = match c {
                    Some(c) => format!("--c {}", c.files.join(" ")),
                    None => format!("--program {program}"),
                };
                let mut command = format!(
                    "cargo xtask run --cores {cores} {what} --timeout {}",
                    TIMEOUT.as_secs()
                );
                let (chip, params) = split_chip(params);
                if let Some(chip) = chip {
                    command.push_str(&format!(" --chip {chip}"));
                }
                if let Some(mib) = memory_mib {
                    command.push_str(&format!(" --memory-mib {mib}"));
                }
                if *seed != chip::DEFAULT_SEED {
                    command.push_str(&format!(" --seed {seed}"));
                }
                match c {
                    Some(c) => {
                        // The registry's arguments are checked before any
                        // run ([`super::check_programs`]).
                        let words = c.arguments(&params).unwrap_or_default();
                        if !words.is_empty() {
                            command.push_str(&format!(" -- {}", words.join(" ")));
                        }
                    }
                    None => {
                        for (k, v) in &params {
                            command.push_str(&format!(" --param {k}={v}"));
                        }
                    }
                }
                command
            }
            Work::Host(name) => {
                format!(
                    "cargo xtask bench {name}{}",
                    if quick { " --quick" } else { "" }
                )
            }
        }
    }

    /// The command that runs this job alone and leaves its result in
    /// `out` (`--run-one`), for `--list-runs`.
    pub fn run_one_command(&self, quick: bool, out: &Path) -> String {
        format!(
            "cargo xtask bench --run-one {}{} --out {}",
            self.id,
            if quick { " --quick" } else { "" },
            shell_word(&out.to_string_lossy())
        )
    }
}

/// `word` as one word of a POSIX shell command line: as it is if it holds
/// nothing the shell reads specially, else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The result-line runs experiment `e` reads, in its order, each with
/// its place among them (from 1) and its seed: run by run of the
/// experiment, core count by core count, seed by seed ([`seeds`]); none
/// for a host experiment.
fn lines_works(e: &Experiment, quick: bool) -> Vec<(usize, Work)> {
    let Kind::Lines { runs, .. } = &e.kind else {
        return Vec::new();
    };
    let mut works = Vec::new();
    for run in *runs {
        let (cores, params) = if quick {
            (run.quick_cores, run.quick_params)
        } else {
            (run.cores, run.params)
        };
        for &cores in cores {
            let place = works.len() / seeds(quick).len() + 1;
            for &seed in seeds(quick) {
                let work = Work::Lines {
                    program: run.program.to_owned(),
                    cores,
                    params: params
                        .iter()
                        .map(|&(k, v)| (k.to_owned(), v.to_owned()))
                        .collect(),
                    memory_mib: run.memory_mib,
                    seed,
                };
                works.push((place, work));
            }
        }
    }
    works
}

/// Every job of the registry, in registry order, each once.
pub fn all(quick: bool) -> Vec<Job> {
    let mut jobs: Vec<Job> = Vec::new();
    for e in REGISTRY {
        if matches!(e.kind, Kind::Host(_)) {
            jobs.push(Job {
                id: e.name.to_owned(),
                work: Work::Host(e.name.to_owned()),
            });
            continue;
        }
        for (place, work) in lines_works(e, quick) {
            if !jobs.iter().any(|j| j.work == work) {
                let id = match work {
                    Work::Lines { seed, .. } if seed != seeds(quick)[0] => {
                        format!("{}-{place}-seed{seed}", e.name)
                    }
                    _ => format!("{}-{place}", e.name),
                };
                jobs.push(Job { id, work });
            }
        }
    }
    jobs
}

/// The IDs of the jobs experiment `e` reads, in its order, out of `all`.
pub fn of_experiment(e: &Experiment, quick: bool, all: &[Job]) -> Vec<String> {
    let works = match &e.kind {
        Kind::Host(_) => vec![Work::Host(e.name.to_owned())],
        Kind::Lines { .. } => lines_works(e, quick).into_iter().map(|(_, w)| w).collect(),
    };
    works
        .iter()
        .map(|w| {
            all.iter()
                .find(|j| &j.work == w)
                .map(|j| j.id.clone())
                .expect("every run of the registry is a job")
        })
        .collect()
}

/// The jobs the experiments `chosen` need, in registry order, each once.
pub fn needed(chosen: &[&Experiment], quick: bool) -> Vec<Job> {
    let all = all(quick);
    let ids: Vec<String> = chosen
        .iter()
        .flat_map(|e| of_experiment(e, quick, &all))
        .collect();
    all.into_iter().filter(|j| ids.contains(&j.id)).collect()
}

/// The job `id` of the list for `quick`; an unknown ID is an error that
/// says where the IDs are listed.
pub fn find(id: &str, quick: bool) -> Result<Job> {
    match all(quick).into_iter().find(|j| j.id == id) {
        Some(job) => Ok(job),
        None => bail!(
            "no benchmark run `{id}`{}; `cargo xtask bench --list-runs{}` lists them",
            if quick { " with --quick" } else { "" },
            if quick { " --quick" } else { "" }
        ),
    }
}

/// How many jobs may run at once: `jobs`, refused when the host has fewer
/// hardware threads (`available`), as the runs would then share cores and
/// their timings suffer.
pub fn check_parallel(jobs: usize, available: usize) -> Result<usize> {
    if jobs == 0 {
        bail!("--jobs 0: at least one run must go at a time");
    }
    if jobs > available {
        bail!(
            "--jobs {jobs}: this host has {available} hardware thread(s), so at most --jobs \
             {available}; runs sharing cores would slow each other (every run boots one QEMU \
             per emulated core, so fewer jobs than threads is often better)"
        );
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_run_is_one_job_with_a_stable_id() {
        for quick in [false, true] {
            let jobs = all(quick);
            // The same list every time.
            assert_eq!(jobs, all(quick));
            let mut ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), jobs.len(), "an ID twice");
            // Every experiment's runs are jobs; shared runs once.
            for e in REGISTRY {
                let of = of_experiment(e, quick, &jobs);
                assert!(!of.is_empty(), "{}", e.name);
            }
        }
        let jobs = all(true);
        assert_eq!(jobs[0].id, "put-latency-1");
        // put-bw reads put-latency's runs: no job of its own.
        assert!(!jobs.iter().any(|j| j.id.starts_with("put-bw-")));
        let put_bw = super::super::select(&["put-bw".into()]).unwrap();
        let needed = needed(&put_bw, true);
        assert!(needed.iter().all(|j| j.id.starts_with("put-latency-")));
        assert!(jobs.iter().any(|j| j.id == "emulator-speed"));
        // IDs name jobs of their own list.
        assert_eq!(
            find("barrier-3", true).unwrap().work.describe(),
            "bench-barrier on 16 core(s)"
        );
        assert_eq!(
            find("barrier-3", false).unwrap().work.describe(),
            "bench-barrier on 8 core(s)"
        );
        let e = find("barrier-99", true).unwrap_err().to_string();
        assert_eq!(
            e,
            "no benchmark run `barrier-99` with --quick; `cargo xtask bench --list-runs --quick` lists them"
        );
    }

    #[test]
    fn one_command_per_run() {
        let jobs = needed(&super::super::select(&["barrier".into()]).unwrap(), true);
        let out = Path::new("/shared/bench results");
        let lines: Vec<String> = jobs.iter().map(|j| j.run_one_command(true, out)).collect();
        assert_eq!(
            lines,
            [
                "cargo xtask bench --run-one barrier-1 --quick --out '/shared/bench results'",
                "cargo xtask bench --run-one barrier-2 --quick --out '/shared/bench results'",
                "cargo xtask bench --run-one barrier-3 --quick --out '/shared/bench results'",
            ]
        );
        assert!(
            jobs[0]
                .command(true)
                .starts_with("cargo xtask run --cores 2 --program bench-barrier --timeout 900"),
            "{}",
            jobs[0].command(true)
        );
        let ft = needed(&super::super::select(&["nas-ft".into()]).unwrap(), true);
        assert_eq!(
            ft[2].command(true),
            "cargo xtask run --cores 4 --c apps/nas-ft/ft.c --timeout 900 -- T pscw-dcm keep-going"
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("target/bench"), "target/bench");
    }

    #[test]
    fn a_run_on_another_chip_says_so_with_the_chip_flag_not_a_program_setting() {
        let jobs = needed(&super::super::select(&["gas-bfs".into()]).unwrap(), true);
        let on_mesh: Vec<String> = jobs
            .iter()
            .map(|j| j.command(true))
            .filter(|c| c.contains("--chip"))
            .collect();
        assert_eq!(on_mesh.len(), 4, "{on_mesh:?}");
        for command in &on_mesh {
            assert!(
                command.starts_with(
                    "cargo xtask run --cores 4 --program gas-bfs --timeout 900 --chip mesh8x8 \
                     --param variant="
                ),
                "{command}"
            );
            assert!(!command.contains("--param chip"), "{command}");
        }
        let params = [("chip", "mesh8x8"), ("tasks", "4")].map(|(k, v)| (k.into(), v.into()));
        let (chip, rest) = split_chip(&params);
        assert_eq!(chip, Some("mesh8x8"));
        assert_eq!(rest, [("tasks".to_owned(), "4".to_owned())]);
        assert_eq!(split_chip(&rest), (None, rest.clone()));
    }

    #[test]
    fn jobs_are_checked_against_the_hosts_threads() {
        assert_eq!(check_parallel(1, 1).unwrap(), 1);
        assert_eq!(check_parallel(4, 8).unwrap(), 4);
        assert_eq!(
            check_parallel(0, 8).unwrap_err().to_string(),
            "--jobs 0: at least one run must go at a time"
        );
        let e = check_parallel(9, 8).unwrap_err().to_string();
        assert!(
            e.starts_with("--jobs 9: this host has 8 hardware thread(s), so at most --jobs 8"),
            "{e}"
        );
    }
}
