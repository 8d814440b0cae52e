// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask mpicc` and `mpiexec` as a user's build runs them: sources
//! compiled one at a time with `-c` (a `-D` and an `-I` include
//! directory), linked with `-o` from the objects, booted with `mpiexec
//! -n 3`; and the same program built by a Makefile through the
//! `target/mpi/bin/mpicc` script (`tests/c/mpicc/`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use system_tests::xtask_binary;

/// `tests/c/mpicc`, the test's sources, header and Makefile.
fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("c/mpicc")
}

/// Runs `command` in `dir` and expects it to succeed; returns its output.
fn succeeds(mut command: Command, dir: &Path) -> Output {
    command.current_dir(dir);
    let shown = format!("{command:?}");
    let out = command.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{shown} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `xtask` with `args`.
fn xtask(xtask: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(xtask);
    command.args(args);
    command
}

/// Boots `image` with `mpiexec -n CORES` and checks that every rank
/// printed its greeting: the number `base + 10 * rank` (`base` from the
/// `-D`, the word from the header), what its left neighbour sent, and argv.
fn check_run(xtask_path: &Path, dir: &Path, image: &str, cores: u32, base: u32) {
    let n = cores.to_string();
    let out = succeeds(
        xtask(
            xtask_path,
            &["mpiexec", "-n", &n, "--timeout", "120", image, "two words"],
        ),
        dir,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for rank in 0..cores {
        let left = (rank + cores - 1) % cores;
        let want = format!(
            "[core {rank:02}] rank {rank} of {cores}: greetings {}, received {}, argv {image} two words",
            base + 10 * rank,
            base + 10 * left
        );
        assert!(
            stdout.lines().any(|l| l == want),
            "no line {want:?}:\n{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!("all {cores} cores exited successfully")),
        "{stdout}"
    );
}

#[test]
fn objects_compiled_separately_link_into_an_image_mpiexec_boots_on_3_cores() {
    let xtask_path = xtask_binary();
    let src = sources();
    let dir = tempfile::tempdir().unwrap();
    let include = src.join("include");
    let greet = src.join("greet.c");
    let ring = src.join("ring.c");
    // `-c` with `-o`, separate `-D NAME=VALUE` and `-I DIR` words.
    succeeds(
        xtask(
            &xtask_path,
            &[
                "mpicc",
                "-c",
                "-O0",
                "-D",
                "GREETING_BASE=3",
                "-I",
                include.to_str().unwrap(),
                greet.to_str().unwrap(),
                "-o",
                "greet-obj.o",
            ],
        ),
        dir.path(),
    );
    // `-c` without `-o` (ring.o in the current directory), joined `-I`.
    succeeds(
        xtask(
            &xtask_path,
            &[
                "mpicc",
                "-c",
                &format!("-I{}", include.display()),
                "-std=c99",
                "-Wextra",
                ring.to_str().unwrap(),
            ],
        ),
        dir.path(),
    );
    assert!(dir.path().join("ring.o").is_file());
    succeeds(
        xtask(
            &xtask_path,
            &["mpicc", "ring.o", "greet-obj.o", "-lm", "-o", "greeter"],
        ),
        dir.path(),
    );
    check_run(&xtask_path, dir.path(), "greeter", 3, 3);
}

#[test]
fn a_makefile_builds_the_program_with_the_mpicc_script() {
    if Command::new("make").arg("--version").output().is_err() {
        println!("skipped: make is not installed");
        return;
    }
    let xtask_path = xtask_binary();
    let dir = tempfile::tempdir().unwrap();
    succeeds(xtask(&xtask_path, &["mpi-env"]), dir.path());
    let bin = xtask::build::target_dir().join("mpi/bin");
    let src = sources();
    let mut make = Command::new("make");
    make.arg("-f")
        .arg(src.join("Makefile"))
        .arg(format!("SRC={}", src.display()))
        .arg(format!("CC={}", bin.join("mpicc").display()));
    let out = succeeds(make, dir.path());
    let log = String::from_utf8_lossy(&out.stdout);
    // make's built-in rules: one compilation per source, then the link.
    assert!(log.contains("-DGREETING_BASE=7"), "{log}");
    assert!(dir.path().join("ring").is_file(), "{log}");
    // The mpiexec script boots it; the Makefile's define reaches rank 1.
    let mut mpiexec = Command::new(bin.join("mpiexec"));
    mpiexec.args(["-n", "2", "--timeout", "120", "ring", "two words"]);
    let out = succeeds(mpiexec, dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l == "[core 01] rank 1 of 2: greetings 17, received 7, argv ring two words"),
        "{stdout}"
    );
}
