// SPDX-License-Identifier: MIT OR Apache-2.0
//! The command line refuses bad arguments before it builds or boots anything.

use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("the xtask binary runs")
}

/// Runs `args`, expects a failure whose message contains `expected`, and
/// checks that no build was started (a nested cargo would print its
/// progress to the same standard error).
fn refused(args: &[&str], expected: &str) {
    let out = xtask(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded: {stderr}");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
    for progress in ["Compiling", "Finished", "booting"] {
        assert!(
            !stderr.contains(progress),
            "{args:?} started a build: {stderr}"
        );
    }
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
}

#[test]
fn zero_cores_are_refused() {
    refused(
        &["run", "--cores", "0"],
        "0 cores: the SCC has 48, so choose 1..=48",
    );
}

#[test]
fn more_cores_than_the_chip_are_refused() {
    refused(
        &["run", "--cores", "49"],
        "49 cores: the SCC has 48, so choose 1..=48",
    );
    refused(
        &["run", "--cores", "many"],
        "`many` is not a number of cores",
    );
    refused(
        &["run", "--chip", "mesh8x8", "--cores", "193"],
        "193 cores: the MESH8X8 has 192, so choose 1..=192",
    );
}

#[test]
fn an_unknown_chip_is_refused_with_the_known_ones() {
    refused(
        &["run", "--chip", "nosuch"],
        "unknown chip `nosuch` (known chips: scc, mesh8x8)",
    );
}

#[test]
fn a_repeated_setting_is_refused() {
    refused(
        &[
            "run",
            "--program",
            "dht",
            "--param",
            "scheme=gbh",
            "--param",
            "scheme=mcs-wp",
        ],
        "scheme is given twice",
    );
}

#[test]
fn a_zero_timeout_is_refused() {
    refused(&["run", "--timeout", "0"], "--timeout <S>");
}

#[test]
fn plain_runs_refuse_the_chip_model_flags() {
    for flag in ["--stats", "--check-coherence"] {
        refused(&["run", "--plain", flag], "cannot be used with");
    }
}

#[test]
fn a_quantum_without_modelled_time_is_refused() {
    for flag in ["--plain", "--no-timing"] {
        refused(&["run", flag, "--quantum", "1000"], "cannot be used with");
    }
}

#[test]
fn unknown_benchmark_sets_are_refused() {
    refused(
        &["bench", "speed"],
        "unknown benchmark set `speed`; the sets are: all, put-latency,",
    );
}

#[test]
fn unusable_benchmark_outputs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, file) = (tmp.path().join("a dir"), tmp.path().join("a file"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(&file, "").unwrap();
    let (out, dir, file) = (
        tmp.path().to_str().unwrap(),
        dir.to_str().unwrap(),
        file.to_str().unwrap(),
    );
    refused(
        &["bench", "--quick", "--out", out, "--report", dir],
        &format!("the report {dir} is a directory"),
    );
    refused(
        &["bench", "--quick", "--out", file],
        &format!("the output directory {file} (--out) exists and is not a directory"),
    );
    refused(
        &["bench", "--quick", "--out", &format!("{file}/sub")],
        &format!("cannot be created: {file} is not a directory"),
    );
    refused(
        &[
            "bench",
            "--quick",
            "--out",
            out,
            "--report",
            &format!("{file}/r.md"),
        ],
        &format!("the report {file}/r.md cannot be written: {file} is not a directory"),
    );
}

#[test]
fn run_help_names_the_options_and_where_programs_are_listed() {
    let out = xtask(&["run", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        [
            "--chip <NAME>",
            "--cores <N>",
            "--timeout <S>",
            "--stats",
            "--check-coherence",
            "--plain"
        ]
        .iter()
        .all(|option| help.contains(option)),
        "{help}"
    );
    // The programs are read from the image: another command lists them.
    assert!(help.contains("`cargo xtask programs`"), "{help}");
}

#[test]
fn help_names_the_environment_variables() {
    let out = xtask(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("SCC_NO_INSTALL=1  never install QEMU"),
        "{help}"
    );
}

#[test]
fn every_command_has_help() {
    for command in [
        "build", "run", "test", "bench", "mpicc", "mpiexec", "mpi-env",
    ] {
        let out = xtask(&[command, "--help"]);
        assert!(out.status.success(), "{command} --help");
        assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: cargo xtask"));
    }
}

#[test]
fn a_debugged_core_must_be_in_the_run() {
    refused(
        &["run", "--cores", "2", "--gdb", "2"],
        "--gdb 2: the run has cores 0..=1, so choose one of them",
    );
}

#[test]
fn mpicc_refuses_flags_that_mean_nothing_on_the_cores_naming_them() {
    for (args, expected) in [
        (
            &["mpicc", "-fPIC", "a.c"][..],
            "mpicc: -fPIC is not supported: the image is one static executable",
        ),
        (
            &["mpicc", "-shared", "a.o", "-o", "liba.so"],
            "mpicc: -shared is not supported",
        ),
        (
            &["mpicc", "-m64", "a.c"],
            "mpicc: -m64 is not supported: the cores are 32-bit",
        ),
        (
            &["mpicc", "-pthread", "a.c"],
            "mpicc: -pthread is not supported: a core runs one thread",
        ),
        (
            &["mpicc", "a.o", "-Wl,--as-needed"],
            "mpicc: -Wl,--as-needed is not supported: the link is fixed",
        ),
        (
            &["mpicc", "-march=native", "a.c"],
            "mpicc: -march=native is not supported: the target is fixed",
        ),
        (
            &["mpicc", "-fsanitize=address", "a.c"],
            "mpicc: -fsanitize=address is not supported",
        ),
        (
            &["mpicc", "-E", "a.c"],
            "mpicc: -E is not supported: mpicc compiles (-c) and links only",
        ),
        (
            &["mpicc", "--frobnicate", "a.c"],
            "mpicc: unknown or unsupported flag --frobnicate",
        ),
        (
            &["mpicc", "main.cpp"],
            "mpicc: main.cpp: not a C source (.c)",
        ),
        (
            &["mpicc", "-c", "a.c", "b.c", "-o", "x.o"],
            "mpicc: -o with -c and 2 sources",
        ),
        (
            &["mpicc", "a.o", "-lfoo"],
            "mpicc: -lfoo: no libfoo.a in the -L directories (none given)",
        ),
        (&["mpicc", "-O2"], "mpicc: no input files"),
    ] {
        refused(args, expected);
    }
}

#[test]
fn mpicc_names_a_missing_source_and_mpiexec_a_missing_image() {
    let out = xtask(&["mpicc", "-c", "/nonexistent/a.c", "-o", "/nonexistent/a.o"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("compiling /nonexistent/a.c failed"),
        "{out:?}"
    );
    refused(
        &["mpiexec", "-n", "2", "/nonexistent/prog"],
        "mpiexec: /nonexistent/prog: no such image",
    );
    // The core count is checked before anything is built: with an
    // existing file for the image, the count alone is wrong.
    refused(
        &["mpiexec", "-n", "0", env!("CARGO_BIN_EXE_xtask")],
        "0 cores: the SCC has 48",
    );
    refused(&["mpiexec", "/nonexistent/prog"], "-n <N>");
}
