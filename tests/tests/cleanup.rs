// SPDX-License-Identifier: MIT OR Apache-2.0
//! Whatever way a run ends, no QEMU of it and no chip memory outlive it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::Duration;

use system_tests::{
    CoreExit, Outcome, RunConfig, assert_cleaned_up, boot, boot_ok, transcript, xtask_binary,
};

#[test]
fn nothing_is_left_after_a_successful_run() {
    let report = boot_ok(8, "identity");
    assert_cleaned_up(&report.chip_memory);
}

#[test]
fn a_kept_run_directory_holds_the_reports_and_only_it_is_left() {
    let config = RunConfig {
        keep_run_dir: true,
        stats: true,
        ..RunConfig::new(2, "identity")
    };
    let report = system_tests::boot_with(&config);
    assert!(report.success(), "{}", transcript(&report));
    let kept = report
        .kept
        .clone()
        .expect("the run says where it kept its directory");
    let name = kept.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("scc-kept-"), "{name}");
    for file in ["core-00.report", "core-01.report", "chip.mem", "ram-00.mem"] {
        assert!(kept.join(file).is_file(), "{file} in {}", kept.display());
    }
    // Only the renamed directory is left: the run's own name is gone.
    assert_cleaned_up(&report.chip_memory);
    std::fs::remove_dir_all(&kept).unwrap();
}

#[test]
fn nothing_is_left_after_a_failed_run() {
    let report = boot(4, "page-fault");
    assert!(!report.success());
    assert_cleaned_up(&report.chip_memory);
}

#[test]
fn a_timeout_names_the_unfinished_cores_and_leaves_nothing() {
    // No QEMU boots a kernel in 50 ms, so every core is still running.
    let config = RunConfig {
        timeout: Duration::from_millis(50),
        ..RunConfig::new(4, "identity")
    };
    let report = xtask::run(&config).unwrap();
    assert_eq!(
        report.outcome,
        Outcome::TimedOut {
            unfinished: vec![0, 1, 2, 3]
        },
        "{}",
        transcript(&report)
    );
    assert_ne!(report.exit_code(), 0);
    assert!(
        report
            .to_string()
            .contains("4 of 4 cores had not finished: 0, 1, 2, 3")
    );
    assert_cleaned_up(&report.chip_memory);
}

#[test]
fn a_qemu_that_cannot_start_is_reported_with_its_messages() {
    let mut artifacts = xtask::build(true).unwrap();
    artifacts.plugin.set_file_name("libno_such_plugin.so");
    let qemu = xtask::qemu::ensure().unwrap();
    let report = xtask::boot(&RunConfig::new(2, "identity"), &artifacts, &qemu).unwrap();
    let all = transcript(&report);
    // Both cores fail the same way; whichever is seen first is reported.
    let Outcome::CoreFailed { core, exit } = report.outcome else {
        panic!("a core should have failed:\n{all}");
    };
    assert!(matches!(exit, CoreExit::QemuError { .. }), "{all}");
    let stderr = &report.cores[core as usize].stderr;
    assert!(
        stderr.iter().any(|l| l.contains("libno_such_plugin.so")),
        "{all}"
    );
    let messages = format!("QEMU's messages for core {core}:");
    assert!(report.to_string().contains(&messages), "{all}");
    assert_cleaned_up(&report.chip_memory);
}

/// Starts a 48-core run with the xtask binary, sends `signal` to xtask
/// alone once a core has spoken, and checks the exit status and that
/// nothing is left, and that QEMU's own farewell on that signal is not
/// shown as news.
fn nothing_is_left_after(signal: libc::c_int, status: i32) {
    let mut xtask = Command::new(xtask_binary())
        .args(["run", "--cores", "48", "--program", "identity"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask starts");
    let stderr = xtask.stderr.take().unwrap();
    let stderr = thread::spawn(move || std::io::read_to_string(stderr).unwrap());
    let mut stdout = BufReader::new(xtask.stdout.take().unwrap()).lines();

    // The run names its chip memory before booting (after, perhaps, a line
    // about leftovers of killed runs); interrupt once a core has spoken.
    let mut seen = Vec::new();
    let chip_memory = loop {
        let line = stdout
            .next()
            .expect("a line naming the chip memory")
            .unwrap();
        let named = line
            .strip_prefix("booting ")
            .and_then(|rest| rest.rsplit_once("chip memory "))
            .map(|(_, path)| PathBuf::from(path));
        seen.push(line);
        if let Some(path) = named {
            break path;
        }
    };
    for line in stdout.by_ref() {
        let line = line.unwrap();
        let spoke = line.starts_with("[core ");
        seen.push(line);
        if spoke {
            break;
        }
    }
    assert!(chip_memory.exists(), "{seen:?}");
    // SAFETY: kill only sends a signal to the child this test started.
    let sent = unsafe { libc::kill(xtask.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0);

    seen.extend(stdout.map(Result::unwrap));
    let exit = xtask.wait().unwrap();
    let stderr = stderr.join().unwrap();
    assert_eq!(exit.code(), Some(status), "{seen:#?}\n{stderr}");
    assert!(
        seen.last().is_some_and(|l| l.starts_with("interrupted")),
        "{seen:#?}\n{stderr}"
    );
    assert!(
        !seen.iter().any(|l| l.contains("terminating on signal")),
        "{seen:#?}"
    );
    assert_cleaned_up(&chip_memory);
}

#[test]
fn nothing_is_left_after_ctrl_c() {
    nothing_is_left_after(libc::SIGINT, 130);
}

#[test]
fn sigterm_stops_a_run_with_status_143_and_leaves_nothing() {
    nothing_is_left_after(libc::SIGTERM, 143);
}

#[test]
fn a_closed_terminal_stops_a_run_with_status_129_and_leaves_nothing() {
    nothing_is_left_after(libc::SIGHUP, 129);
}

#[test]
fn an_interrupt_during_the_build_stops_the_run_before_it_boots() {
    let flag = Arc::new(AtomicBool::new(true));
    let config = RunConfig {
        interrupt: Some(flag),
        ..RunConfig::new(2, "identity")
    };
    let error = xtask::run(&config).expect_err("an interrupted run must not boot");
    assert_eq!(error.to_string(), "interrupted before booting");
}

/// A benchmark suite interrupted half-way still writes its report, with a
/// row for every experiment chosen: the interrupted one names the runs
/// that did not finish and why.
#[test]
fn an_interrupted_suite_reports_the_experiment_it_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bench");
    let output = xtask::bench::Output::new(Some(out.clone()), None).unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    // Interrupt once the first of barrier's runs has its result: the
    // second (8 cores) is under way or about to be.
    let first = xtask::bench::results::path(&out, "barrier-1");
    let raise = Arc::clone(&flag);
    let watcher = thread::spawn(move || {
        while !first.exists() {
            thread::sleep(Duration::from_millis(20));
        }
        raise.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let options = xtask::bench::Options {
        quick: true,
        rerun: xtask::bench::Rerun::All,
        parallel: 1,
    };
    let sets = ["barrier".to_owned(), "pscw-sync".to_owned()];
    let error = xtask::bench::run_suite(&sets, options, &output, Some(flag), "test")
        .expect_err("an interrupted suite ends in an error");
    watcher.join().unwrap();
    assert!(error.to_string().contains("interrupted"), "{error:#}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for set in sets {
        assert!(report.contains(&format!("| [{set}](#")), "{set}: {report}");
    }
    assert!(
        report.contains(
            "run barrier-2 (bench-barrier on 8 core(s)): not finished: the suite was interrupted"
        ),
        "{report}"
    );
}
