// SPDX-License-Identifier: MIT OR Apache-2.0
//! Whatever way a run ends, no QEMU of it and no chip memory outlive it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;

use system_tests::{assert_cleaned_up, boot, boot_ok};

#[test]
fn nothing_is_left_after_a_successful_run() {
    let report = boot_ok(8, "identity");
    assert_cleaned_up(&report.chip_memory);
}

#[test]
fn nothing_is_left_after_a_failed_run() {
    let report = boot(4, "page-fault");
    assert!(!report.success());
    assert_cleaned_up(&report.chip_memory);
}

/// Builds the xtask binary and returns its path.
fn xtask_binary() -> PathBuf {
    let mut build = xtask::cargo();
    build.args(["build", "--quiet", "-p", "xtask"]);
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "building xtask failed");
    xtask::build::target_dir().join("debug/xtask")
}

#[test]
fn nothing_is_left_after_ctrl_c() {
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

    // The run names its chip memory first; interrupt once a core has spoken.
    let booting = stdout.next().expect("a first line").unwrap();
    let chip_memory = PathBuf::from(
        booting
            .rsplit_once("chip memory ")
            .unwrap_or_else(|| panic!("no chip memory in {booting:?}"))
            .1,
    );
    let mut seen = vec![booting];
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
    let sent = unsafe { libc::kill(xtask.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);

    seen.extend(stdout.map(Result::unwrap));
    let status = xtask.wait().unwrap();
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(130), "{seen:#?}\n{stderr}");
    assert!(
        seen.last().is_some_and(|l| l.starts_with("interrupted")),
        "{seen:#?}\n{stderr}"
    );
    assert_cleaned_up(&chip_memory);
}
