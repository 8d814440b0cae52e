// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask run --gdb CORE`: that core starts paused with QEMU's gdb
//! stub, the run prints the command that attaches to it, and gdb, in batch
//! mode, stops at a breakpoint in a program and reads a variable there
//! while the other core waits. Skipped, with a message, where gdb is not
//! installed.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

use system_tests::xtask_binary;

/// The run under test: stopped if the test fails before it ends (it has
/// no timeout while a core is debugged), with SIGTERM, so that it stops
/// its QEMUs and removes its directory.
struct Run(Child);

impl Drop for Run {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-TERM", &self.0.id().to_string()])
                .status();
            let _ = self.0.wait();
        }
    }
}

#[test]
fn gdb_stops_a_core_at_a_breakpoint_and_reads_a_variable() {
    if Command::new("gdb").arg("--version").output().is_err() {
        eprintln!("skipped: gdb is not installed (the Debian package `gdb` provides it)");
        return;
    }
    let mut run = Run(Command::new(xtask_binary())
        .args(["run", "--cores", "2", "--program", "identity", "--gdb", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap());
    let mut stdout = BufReader::new(run.0.stdout.take().unwrap());
    let mut said = String::new();
    let mut command = None;
    let mut line = String::new();
    while command.is_none() && stdout.read_line(&mut line).unwrap() > 0 {
        said.push_str(&line);
        if let Some(gdb) = line.trim().strip_prefix("gdb -ex 'target remote ") {
            command = Some(gdb.to_owned());
        }
        line.clear();
    }
    let command = command.unwrap_or_else(|| panic!("no gdb command in:\n{said}"));
    assert!(said.contains("core 1 is paused for gdb"), "{said}");
    // `<socket>' <image>`: neither path holds a quote or a blank here.
    let (socket, image) = command.split_once("' ").unwrap();
    let gdb = Command::new("gdb")
        .arg("-batch")
        .args(["-ex", &format!("target remote {socket}")])
        .args(["-ex", "break programs::identity::run"])
        .args(["-ex", "continue"])
        .args(["-ex", "print platform.core"])
        .args(["-ex", "continue"])
        .arg(image)
        .output()
        .unwrap();
    let gdb_out = String::from_utf8_lossy(&gdb.stdout);
    assert!(
        gdb_out.contains("Breakpoint 1, programs::identity::run"),
        "{gdb_out}\n{}",
        String::from_utf8_lossy(&gdb.stderr)
    );
    assert!(gdb_out.contains("identity.rs"), "{gdb_out}");
    // The variable: the core the breakpoint stopped, as the program sees it.
    assert!(gdb_out.contains("CoreId (1)"), "{gdb_out}");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = run.0.wait().unwrap();
    assert!(status.success(), "{said}{rest}");
    assert!(
        rest.contains("[core 01] identity core=1") && rest.contains("all 2 cores exited"),
        "{rest}"
    );
}
