// SPDX-License-Identifier: MIT OR Apache-2.0
//! Apps on the kernel library: a new app made from the template, in Rust
//! or in C, builds and runs on 4 cores through the command line; an image's own declarations
//! decide which programs and settings a run may ask for; and every
//! benchmark experiment asks only for what the built-in image declares.

use std::process::Command;

use system_tests::{lines_starting, transcript, xtask_binary};
use xtask::{App, Catalog, RunConfig};

/// Boots the template's program of the app in `dir` on 4 cores with
/// `flags`, checks that every rank received its left neighbour's rank and
/// the run succeeded, and returns what it printed.
fn run_hello(xtask: &std::path::Path, dir: &std::path::Path, flags: &[&str]) -> String {
    let run = Command::new(xtask)
        .args(["run", "--app", dir.to_str().unwrap(), "--cores", "4"])
        .args(flags)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for rank in 0..4 {
        let left = (rank + 3) % 4;
        let line = format!("[core {rank:02}] rank {rank} of 4 received {left}");
        assert!(stdout.contains(&line), "{line}:\n{stdout}");
    }
    assert!(
        stdout.contains("all 4 cores exited successfully"),
        "{stdout}"
    );
    stdout
}

#[test]
fn a_new_app_from_the_template_runs_on_4_cores() {
    let xtask = xtask_binary();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hello");
    let made = Command::new(&xtask)
        .args(["new", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let stdout = run_hello(&xtask, &dir, &[]);
    assert!(stdout.contains("[core 00] program hello: every core puts its rank"));

    // The app's own program list, read from its image.
    let listed = Command::new(&xtask)
        .args(["programs", "--app", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&listed.stdout);
    assert!(list.contains("  hello  every core puts its rank"), "{list}");
    assert!(!list.contains("  ring "), "{list}");

    // It has no program of the built-in image.
    let config = RunConfig {
        app: App::Dir(dir),
        ..RunConfig::new(4, "ring")
    };
    let message = format!("{:#}", xtask::run(&config).unwrap_err());
    assert!(message.contains("unknown program `ring`"), "{message}");
    assert!(message.contains("  hello "), "{message}");
}

#[test]
fn a_new_c_app_from_the_template_runs_on_4_cores() {
    let xtask = xtask_binary();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("hello-c");
    let made = Command::new(&xtask)
        .args(["new", "--lang", "c", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    assert!(dir.join("hello-c.c").is_file());
    let stdout = run_hello(&xtask, &dir, &["--check-coherence"]);
    assert!(
        stdout.contains("coherence checker: 0 stale reads"),
        "{stdout}"
    );

    // Its one program is the C program's main.
    let listed = Command::new(&xtask)
        .args(["programs", "--app", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&listed.stdout);
    assert!(list.contains("  main  the C program's main"), "{list}");

    // A directory with neither a crate nor C files is no app.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run = Command::new(&xtask)
        .args(["run", "--app", empty.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains("neither a Cargo.toml nor .c files there"),
        "{stderr}"
    );
}

/// Removes an app made inside the workspace and puts the lock file back,
/// whether the test passed or not.
struct InTree {
    dir: std::path::PathBuf,
    lock: std::path::PathBuf,
    locked: Vec<u8>,
}

impl Drop for InTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::write(&self.lock, &self.locked);
    }
}

#[test]
fn cargo_xtask_new_makes_a_workspace_app_that_runs() {
    let xtask = xtask_binary();
    let root = xtask::workspace_root();
    let name = format!("hello-test-{}", std::process::id());
    let lock = root.join("Cargo.lock");
    let _guard = InTree {
        dir: root.join("apps").join(&name),
        locked: std::fs::read(&lock).unwrap(),
        lock,
    };
    let made = Command::new(&xtask).args(["new", &name]).output().unwrap();
    let said = String::from_utf8_lossy(&made.stdout);
    assert!(made.status.success(), "{made:?}");
    let app = format!("apps/{name}");
    assert!(
        said.contains(&format!("cargo xtask run --app {app} --cores 4")),
        "{said}"
    );
    let run = Command::new(&xtask)
        .current_dir(root)
        .args(["run", "--app", &app, "--cores", "4"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("[core 03] rank 3 of 4 received 2"),
        "{stdout}"
    );
}

#[test]
fn programs_and_settings_are_checked_against_the_image() {
    let message = format!(
        "{:#}",
        xtask::run(&RunConfig::new(2, "nosuch")).unwrap_err()
    );
    assert!(message.starts_with("unknown program `nosuch`"), "{message}");
    for program in ["ring", "identity", "tsr-counter", "dht", "bench-lock"] {
        assert!(message.contains(&format!("\n  {program} ")), "{message}");
    }
    let bad = |params: &[(&str, &str)]| {
        let config = RunConfig {
            params: params
                .iter()
                .map(|&(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            ..RunConfig::new(2, "dht")
        };
        format!("{:#}", xtask::run(&config).unwrap_err())
    };
    assert_eq!(
        bad(&[("size", "2")]),
        "program `dht`: size=2: size must be a number of bytes in 4..=4096 \
         (suffix K, KiB, M or MiB allowed)"
    );
    assert_eq!(
        bad(&[("scheme", "ticket")]),
        "program `dht`: scheme=ticket: scheme must be one of gbh, gbh-backoff, mcs-wp"
    );
    assert!(bad(&[("colour", "red")]).contains(
        "unknown setting colour=red; the settings are: scheme, mode, size, readers, placement"
    ));
}

#[test]
fn a_size_between_the_listed_ones_runs() {
    let config = RunConfig {
        params: vec![("size".into(), "256".into())],
        ..RunConfig::new(2, "dht")
    };
    let report = system_tests::boot_with(&config);
    system_tests::assert_clean_success(&report, 2);
    assert_eq!(
        lines_starting(&report, 0, "setting size="),
        ["setting size=256 (bytes per value)"],
        "{}",
        transcript(&report)
    );
}

#[test]
fn the_benchmark_suite_asks_only_for_declared_programs_and_settings() {
    let artifacts = xtask::build(true).unwrap();
    let catalog = Catalog::read(&artifacts.kernel).unwrap();
    xtask::bench::check_programs(&catalog).unwrap();
}
