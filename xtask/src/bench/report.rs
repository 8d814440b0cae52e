// SPDX-License-Identifier: MIT OR Apache-2.0
//! The report (`target/bench/report.md` by default): every experiment of a suite run in one
//! Markdown file, with what was run, where and when.

use std::fmt::Write as _;
use std::process::Command;
use std::time::SystemTime;

use percent_encoding::{AsciiSet, CONTROLS, percent_encode};

use super::Section;
use crate::qemu::Qemu;

/// What the report says about the run as a whole.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunInfo {
    /// The command line.
    pub command: String,
    /// Whether `--quick` was given.
    pub quick: bool,
    /// When the suite started, UTC.
    pub date: String,
    /// The machine: name, CPU, cores, kernel.
    pub host: String,
    /// The git commit, `-dirty` if the tree had changes.
    pub commit: String,
    /// QEMU's version.
    pub qemu: String,
}

impl RunInfo {
    /// Finds out what it can; what it cannot is `unknown`.
    pub fn gather(command: &str, quick: bool, started: SystemTime, qemu: &Qemu) -> Self {
        let read = |path: &str| {
            std::fs::read_to_string(path)
                .map(|s| s.trim().to_owned())
                .unwrap_or_else(|_| "unknown".to_owned())
        };
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown CPU".to_owned());
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let git = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(crate::workspace_root())
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        };
        let commit = match (git(&["rev-parse", "HEAD"]), git(&["status", "--porcelain"])) {
            (Some(c), Some(s)) if !s.is_empty() => format!("{c}-dirty"),
            (Some(c), _) => c,
            _ => "unknown".to_owned(),
        };
        Self {
            command: command.to_owned(),
            quick,
            date: utc(started),
            host: format!(
                "{} ({cpu}, {cores} hardware threads, Linux {})",
                read("/proc/sys/kernel/hostname"),
                read("/proc/sys/kernel/osrelease")
            ),
            commit,
            qemu: qemu.version.to_string(),
        }
    }
}

/// `time` as `YYYY-MM-DD hh:mm:ss UTC`.
pub fn utc(time: SystemTime) -> String {
    let secs = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// What is percent-encoded in a link target, besides controls and
/// non-ASCII bytes: what ends or splits a Markdown link destination
/// (space, `(`, `)`, `<`, `>`), escapes and entities (`\`, `&`), what a URL
/// reads as a fragment, query or escape (`#`, `?`, `%`), what would make
/// the first part of a relative link a scheme (`:`), and the rest of what
/// a URL path may not hold as is.
const LINK: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'&')
    .add(b'(')
    .add(b')')
    .add(b':')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// `name`, one file or directory name (bytes, as a path holds them), as
/// it can stand in a Markdown link's target: percent-encoded.
pub fn link_target(name: &[u8]) -> String {
    percent_encode(name, LINK).to_string()
}

/// The whole report; `links` goes before the name of every file it links
/// to (their directory relative to the report's, already encoded as
/// [`link_target`] does, with `/` after each part).
pub fn markdown(info: &RunInfo, sections: &[Section], links: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# SCC emulator benchmarks\n");
    let _ = writeln!(out, "- command: `{}`", info.command);
    let _ = writeln!(
        out,
        "- parameters: {}",
        if info.quick {
            "--quick (one run per measurement, seed 0, smaller cases)"
        } else {
            "full (every benchmark program's run made with seeds 0, 1 and 2 of the chip's variation)"
        }
    );
    let _ = writeln!(out, "- date: {}", info.date);
    let _ = writeln!(out, "- host: {}", info.host);
    let _ = writeln!(out, "- git commit: {}", info.commit);
    let _ = writeln!(out, "- QEMU: {}", info.qemu);
    let mhz = chip::DEFAULT_CHIP.timing.core_mhz;
    let _ = writeln!(
        out,
        "\nModelled SCC time is in core cycles of the emulated chip ({mhz} MHz, so µs = cycles / {mhz}); \
         host time is wall time on the machine above. The two are kept in separate tables.\n"
    );
    let _ = writeln!(
        out,
        "Raw data: every sample (`<experiment>-samples.csv`), each run's record (`runs/<ID>.json`) \
         and its serial log (`logs/<ID>.log`) are written beside the report. A copy kept in a \
         repository holds the report, the text tables, the summaries, the plots and the run \
         records as one archive, `runs.tar.xz` (`tar -cJf runs.tar.xz runs`). At the commit \
         above, `mkdir DIR && tar -xJf runs.tar.xz -C DIR && cargo xtask bench --collect DIR` \
         makes the samples, the tables and the plots again.\n"
    );
    let _ = writeln!(out, "| experiment | result | host time |");
    let _ = writeln!(out, "|---|---|---:|");
    for s in sections {
        let result = if s.failures.is_empty() {
            "ok".to_owned()
        } else {
            format!("**{} failure(s)**", s.failures.len())
        };
        let _ = writeln!(
            out,
            "| [{}](#{}) | {result} | {:.1} s |",
            s.name,
            anchor(&s.title, s.name.as_str()),
            s.seconds
        );
    }
    for s in sections {
        let _ = writeln!(out, "\n## {} (`{}`)\n", s.title, s.name);
        let _ = writeln!(out, "{}\n", s.about);
        if !s.modeled.is_empty() {
            let _ = writeln!(out, "### Modelled SCC (chip time and counters)\n");
            for t in &s.modeled {
                let _ = writeln!(out, "{}\n", t.title);
                for n in &t.notes {
                    let _ = writeln!(out, "_{n}_  ");
                }
                let _ = writeln!(out, "\n{}", t.markdown());
            }
        }
        if !s.svgs.is_empty() {
            for (file, _) in &s.svgs {
                let target = link_target(file.as_bytes());
                let _ = writeln!(out, "![{file}]({links}{target})\n");
            }
        }
        if !s.host.is_empty() {
            let _ = writeln!(out, "### Host time\n");
            for t in &s.host {
                let _ = writeln!(out, "{}\n", t.title);
                for n in &t.notes {
                    let _ = writeln!(out, "_{n}_  ");
                }
                let _ = writeln!(out, "\n{}", t.markdown());
            }
        }
        for n in &s.notes {
            let _ = writeln!(out, "{n}\n");
        }
        let file = |name: String, what: &str| {
            format!("[{name}]({links}{}) ({what})", link_target(name.as_bytes()))
        };
        let mut files = vec![file(format!("{}.txt", s.name), "text tables")];
        if s.csv.is_some() {
            files.push(file(format!("{}.csv", s.name), "summary"));
        }
        if !s.samples.is_empty() {
            // Not a link: raw data stays beside the report where it was
            // made, and a copy kept in a repository leaves it out.
            files.push(format!("`{}` (every sample)", s.samples_file()));
        }
        let _ = writeln!(out, "Files: {}\n", files.join(", "));
        if !s.runs.is_empty() {
            let _ = writeln!(
                out,
                "Runs, numbered as in the `run` column of the samples (each command repeats its run; \
                 host time, build excluded, with the host's load average over the last minute \
                 where it was recorded):\n"
            );
            for (i, r) in s.runs.iter().enumerate() {
                let _ = writeln!(out, "{}. {r}", i + 1);
            }
            out.push('\n');
        }
        let _ = writeln!(out, "Experiment took {:.1} s of host time.\n", s.seconds);
        if !s.failures.is_empty() {
            let _ = writeln!(out, "**Failed:**\n");
            for f in &s.failures {
                let _ = writeln!(out, "- {f}");
            }
            out.push('\n');
        }
    }
    out.push_str(&model_parameters(&chip::DEFAULT_CHIP.timing));
    out
}

/// The report's last section: every value of the chip's timing table, and
/// where each value's source and the model's stated assumptions are.
fn model_parameters(timing: &chip::Timing) -> String {
    let mut out = String::from("\n## Model parameters\n\n");
    out.push_str(
        "The chip's timing table (`chip::Timing`) at this commit. Each value's source is its \
         comment in `kernel/chip/src/timing.rs`: [thesis], [JSSC], [EAS], [Pentium], [PSR], [SDM], \
         [JEDEC], [SCC forum], or none, a stated assumption. The model's other assumptions are \
         stated where they are made: queueing between known loads (Poisson arrivals within a \
         bucket, a window of history buckets: `emu/src/model/queue.rs`), DDR3 banks and bus \
         (`emu/src/model/dram.rs`), the P54C's write buffers (`emu/src/model/write_buffer.rs`), \
         register-block back-pressure and its router's virtual channels \
         (`emu/src/model/backpressure.rs`), and the seed's draws of clock phases, refresh \
         phases, release from reset and arbitration (`emu/src/model/variation.rs`).\n\n",
    );
    out.push_str("| parameter | value |\n|---|---:|\n");
    let debug = format!("{timing:#?}");
    for line in debug.lines() {
        if let Some((name, value)) = line.trim().trim_end_matches(',').split_once(": ") {
            let _ = writeln!(out, "| `{name}` | {value} |");
        }
    }
    out
}

/// GitHub's anchor of a `## title (`name`)` heading.
fn anchor(title: &str, name: &str) -> String {
    format!("{title} {name}")
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn dates_are_utc_civil_dates() {
        let at = |s| utc(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(at(951_782_400 + 3661), "2000-02-29 01:01:01 UTC");
        assert_eq!(at(1_798_761_599), "2026-12-31 23:59:59 UTC");
    }

    #[test]
    fn link_targets_are_percent_encoded() {
        assert_eq!(
            link_target(b"put-latency_bw.v2.svg"),
            "put-latency_bw.v2.svg"
        );
        assert_eq!(
            link_target("my results (1)%<>#?.txt".as_bytes()),
            "my%20results%20%281%29%25%3C%3E%23%3F.txt"
        );
        assert_eq!(link_target("résumé".as_bytes()), "r%C3%A9sum%C3%A9");
        assert_eq!(
            link_target(b"a\\b[c]`d&e:f\xff"),
            "a%5Cb%5Bc%5D%60d%26e%3Af%FF"
        );
        assert_eq!(link_target(b"tab\tnewline\n"), "tab%09newline%0A");
    }

    #[test]
    fn the_report_links_through_encoded_targets() {
        let info = RunInfo {
            command: "c".into(),
            quick: true,
            date: "d".into(),
            host: "h".into(),
            commit: "c".into(),
            qemu: "q".into(),
        };
        let s = Section {
            name: "overhead".into(),
            title: "Overhead".into(),
            csv: Some(String::new()),
            svgs: vec![("overhead (ratio).svg".into(), String::new())],
            ..Section::default()
        };
        let md = markdown(&info, &[s], "my%20results/");
        assert!(
            md.contains("![overhead (ratio).svg](my%20results/overhead%20%28ratio%29.svg)"),
            "{md}"
        );
        assert!(
            md.contains(
                "Files: [overhead.txt](my%20results/overhead.txt) (text tables), \
                 [overhead.csv](my%20results/overhead.csv) (summary)\n"
            ),
            "{md}"
        );
    }

    #[test]
    fn failures_show_in_the_summary_and_the_section() {
        let info = RunInfo {
            command: "cargo xtask bench x".into(),
            quick: false,
            date: "d".into(),
            host: "h".into(),
            commit: "c".into(),
            qemu: "q".into(),
        };
        let s = Section {
            name: "mesh-heatmap".into(),
            title: "Mesh traffic".into(),
            failures: vec!["stencil on 48 core(s): core 3 failed".into()],
            ..Section::default()
        };
        let md = markdown(&info, &[s], "results/");
        assert!(
            md.contains("| [mesh-heatmap](#mesh-traffic-mesh-heatmap) | **1 failure(s)** |"),
            "{md}"
        );
        assert!(
            md.contains("**Failed:**\n\n- stencil on 48 core(s): core 3 failed\n"),
            "{md}"
        );
        assert!(md.contains("- parameters: full"));
        // The timing table closes the report, one row per value.
        assert!(md.contains("\n## Model parameters\n"), "{md}");
        assert!(md.contains("| `core_mhz` | 533 |\n"), "{md}");
        assert!(md.contains("| `reset_spread_ns` | 1000 |\n"), "{md}");
        assert!(
            md.contains("Files: [mesh-heatmap.txt](results/mesh-heatmap.txt) (text tables)\n"),
            "{md}"
        );
    }
}
