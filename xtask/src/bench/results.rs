// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every job's result, one file each under the output directory.
//!
//! A job (see [`super::jobs`]) leaves `DIR/runs/<ID>.json` and its serial
//! log `DIR/logs/<ID>.log`. The result file holds what the tables are made
//! of: for a result-line run, the `BENCH` lines of every core with their
//! serial line numbers; for a host experiment, its whole section. It also
//! says which job it is, at which scale (`--quick` or not), where and when
//! it ran, its host seconds and why it failed, if it did.
//!
//! A job's results are **complete** when `DIR/runs/<ID>.json` parses as a
//! whole as this format (its `format` and `version`, no unknown field),
//! names the same job (ID, scale, and program, core count and settings or
//! host experiment) and records no failure. The file is written only when
//! a job has ended, under a temporary name that is then renamed over
//! `<ID>.json`, and a job's old file is removed when it starts: a job that
//! was interrupted, or a file cut short, is never complete.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::Section;
use super::jobs::{Job, Work};
use super::protocol::{self, parse_line};
use super::report::RunInfo;
use super::usage::Usage;
use crate::run::HostLoad;

/// The `format` of a result file.
pub const FORMAT: &str = "scc-bench-run";
/// Its version.
pub const VERSION: u32 = 1;

/// What one job left.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The job's ID.
    pub id: String,
    /// Whether it ran with `--quick`.
    pub quick: bool,
    /// What it ran.
    pub work: Work,
    /// Where and when it ran, and the command that ran it.
    pub info: RunInfo,
    /// Host seconds it took.
    pub seconds: f64,
    /// The host's load when it started and ended (absent from results
    /// written before it was recorded).
    #[serde(default)]
    pub load: Option<HostLoad>,
    /// Why it failed, if it did.
    pub failure: Option<String>,
    /// What it produced.
    pub produced: Produced,
    /// How busy it kept the chip's resources, for a result-line run whose
    /// every core wrote its report (absent from results written before
    /// it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// What a job produced.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Produced {
    /// Each core's `BENCH` lines.
    Lines(Vec<CoreLines>),
    /// A host experiment's section.
    Host(Box<Section>),
}

/// One core's `BENCH` lines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreLines {
    /// The core.
    pub core: u32,
    /// Each line with its number in the core's serial output, from 1.
    pub lines: Vec<(usize, String)>,
}

impl CoreLines {
    /// The lines of `serial` that are result lines (well-formed or not).
    pub fn of(core: u32, serial: &[String]) -> Self {
        Self {
            core,
            lines: serial
                .iter()
                .enumerate()
                .filter(|(_, l)| !matches!(parse_line(l), Ok(None)))
                .map(|(n, l)| (n + 1, l.clone()))
                .collect(),
        }
    }
}

impl RunResult {
    /// The result of `job` at scale `quick`.
    pub fn new(
        job: &Job,
        quick: bool,
        info: RunInfo,
        seconds: f64,
        load: HostLoad,
        failure: Option<String>,
        produced: Produced,
    ) -> Self {
        Self {
            format: FORMAT.to_owned(),
            version: VERSION,
            id: job.id.clone(),
            quick,
            work: job.work.clone(),
            info,
            seconds,
            load: Some(load),
            failure,
            produced,
            usage: None,
        }
    }

    /// This result with `usage` recorded.
    pub fn with_usage(self, usage: Option<Usage>) -> Self {
        Self { usage, ..self }
    }

    /// The samples it holds: the values of its well-formed `cycles=`
    /// lists, or its section's samples.
    pub fn samples(&self) -> usize {
        match &self.produced {
            Produced::Lines(cores) => cores
                .iter()
                .flat_map(|c| &c.lines)
                .filter_map(|(_, l)| protocol::parse_line(l).ok().flatten())
                .map(|l| l.cycles.len())
                .sum(),
            Produced::Host(section) => section.samples.len(),
        }
    }
}

/// Where job `id`'s result file is.
pub fn path(dir: &Path, id: &str) -> PathBuf {
    dir.join("runs").join(format!("{id}.json"))
}

/// Where job `id`'s serial log is.
pub fn log_path(dir: &Path, id: &str) -> PathBuf {
    dir.join("logs").join(format!("{id}.log"))
}

/// Removes job `id`'s result file, if there is one: it is starting again.
pub fn forget(dir: &Path, id: &str) -> Result<()> {
    let file = path(dir, id);
    match std::fs::remove_file(&file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", file.display()))
        }
        _ => Ok(()),
    }
}

/// Writes `result` to its file at once: under a temporary name, flushed
/// to the disk, then renamed over the file.
pub fn write(dir: &Path, result: &RunResult) -> Result<()> {
    let file = path(dir, &result.id);
    let runs = file.parent().expect("a result file is in runs/");
    std::fs::create_dir_all(runs).with_context(|| format!("cannot create {}", runs.display()))?;
    let json = serde_json::to_string_pretty(result).context("cannot encode a result")?;
    let temporary = runs.join(format!(".{}.json.partial", result.id));
    let written = (|| {
        use std::io::Write as _;
        let mut f = std::fs::File::create(&temporary)?;
        f.write_all(json.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&temporary, &file)
    })();
    written.with_context(|| format!("cannot write {}", file.display()))
}

/// Reads one result file; an error says what is wrong with it.
pub fn read(file: &Path) -> Result<RunResult> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let result: RunResult = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a whole result file", file.display()))?;
    if result.format != FORMAT || result.version != VERSION {
        bail!(
            "{}: format {} version {}, not {FORMAT} version {VERSION}",
            file.display(),
            result.format,
            result.version
        );
    }
    Ok(result)
}

/// Where a job stands in an output directory.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// No result file.
    Missing,
    /// A result file that cannot be read as a whole, or is another job's
    /// (another scale, other settings): why.
    Unusable(String),
    /// A result that records a failure.
    Failed(Box<RunResult>),
    /// A complete result (see the module docs).
    Complete(Box<RunResult>),
}

/// Where `job` at scale `quick` stands in `dir`.
pub fn status(dir: &Path, job: &Job, quick: bool) -> Status {
    let file = path(dir, &job.id);
    if !file.exists() {
        return Status::Missing;
    }
    let result = match read(&file) {
        Ok(r) => r,
        Err(e) => return Status::Unusable(format!("{e:#}")),
    };
    if result.id != job.id || result.work != job.work || result.quick != quick {
        return Status::Unusable(format!(
            "{} is of {} ({}{}), not of this run ({}{})",
            file.display(),
            result.id,
            result.work.describe(),
            if result.quick { ", --quick" } else { "" },
            job.work.describe(),
            if quick { ", --quick" } else { "" },
        ));
    }
    if result.failure.is_some() {
        Status::Failed(Box::new(result))
    } else {
        Status::Complete(Box::new(result))
    }
}

/// Every result file in `dir/runs`, by file name; a file that cannot be
/// read is an error.
pub fn read_all(dir: &Path) -> Result<Vec<RunResult>> {
    let runs = dir.join("runs");
    let entries = std::fs::read_dir(&runs).with_context(|| {
        format!(
            "cannot read {}: no results there (`--run-one ID --out {}` leaves them)",
            runs.display(),
            dir.display()
        )
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", runs.display()))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".json") && !name.starts_with('.') {
            files.push(entry.path());
        }
    }
    files.sort();
    files.iter().map(|f| read(f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn info() -> RunInfo {
        RunInfo {
            command: "cargo xtask bench --run-one barrier-1 --quick".into(),
            quick: true,
            date: "2026-01-01 00:00:00 UTC".into(),
            host: "test host".into(),
            commit: "abc".into(),
            qemu: "10.0.0".into(),
        }
    }

    fn job() -> Job {
        super::super::jobs::find("barrier-1", true).unwrap()
    }

    fn result(failure: Option<String>) -> RunResult {
        let serial = vec![
            "booting".to_owned(),
            "BENCH barrier procs=2 algo=central cycles=10,20".to_owned(),
            "BENCH broken".to_owned(),
        ];
        RunResult::new(
            &job(),
            true,
            info(),
            1.5,
            HostLoad::default(),
            failure,
            Produced::Lines(vec![CoreLines::of(0, &serial)]),
        )
    }

    #[test]
    fn only_a_whole_successful_result_of_the_same_job_is_complete() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let job = job();
        assert_eq!(status(dir, &job, true), Status::Missing);

        let ok = result(None);
        let Produced::Lines(cores) = &ok.produced else {
            unreachable!()
        };
        assert_eq!(cores[0].lines[0].0, 2, "serial line numbers are kept");
        assert_eq!(cores[0].lines.len(), 2, "only result lines are kept");
        assert_eq!(ok.samples(), 2);
        write(dir, &ok).unwrap();
        assert_eq!(
            status(dir, &job, true),
            Status::Complete(Box::new(ok.clone()))
        );
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.join("runs")).unwrap().collect();
        assert_eq!(names.len(), 1);

        // The same ID at the other scale is another job.
        assert!(matches!(status(dir, &job, false), Status::Unusable(_)));

        // A file cut short is not complete.
        let file = path(dir, &job.id);
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, &text[..text.len() / 2]).unwrap();
        let Status::Unusable(why) = status(dir, &job, true) else {
            panic!("a partial file is complete")
        };
        assert!(why.contains("is not a whole result file"), "{why}");
        // Nor is an empty one, or one of another format.
        std::fs::write(&file, "").unwrap();
        assert!(matches!(status(dir, &job, true), Status::Unusable(_)));
        std::fs::write(&file, text.replace(FORMAT, "other")).unwrap();
        assert!(matches!(status(dir, &job, true), Status::Unusable(_)));

        // A failed run is not complete either.
        let failed = result(Some("core 1 failed".into()));
        write(dir, &failed).unwrap();
        assert_eq!(status(dir, &job, true), Status::Failed(Box::new(failed)));

        // Starting again removes it.
        forget(dir, &job.id).unwrap();
        assert_eq!(status(dir, &job, true), Status::Missing);
        forget(dir, &job.id).unwrap();
    }
}
