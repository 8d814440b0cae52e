// SPDX-License-Identifier: MIT OR Apache-2.0
//! Public MPI test programs vendored in `tests/vendor/` with their
//! licences, unmodified, run as the conformance harness runs whole
//! suites, under the coherence checker: six of MPICH's one-sided tests
//! (`tests/vendor/mpich`) through `cargo xtask conformance mpich-rma`,
//! each with MPICH's own `mtest.c`, and two of the OSU micro-benchmarks'
//! one-sided latency programs (`tests/vendor/osu`) through `cargo xtask
//! conformance osu-one-sided`, in every window and synchronisation mode.
//! Every run must pass with no stale read.

use std::path::Path;
use std::process::Command;

use system_tests::xtask_binary;

/// Runs `cargo xtask conformance SUITE` with `args` on the vendored tree
/// `dir` (`--tree-flag` names it) and returns what it printed and its
/// table, after checking that it succeeded.
fn conformance(suite: &str, tree_flag: &str, dir: &str, args: &[&str]) -> (String, String) {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("vendor")
        .join(dir);
    let work = tempfile::tempdir().unwrap();
    let table = work.path().join("table.md");
    let output = Command::new(xtask_binary())
        .args(["conformance", suite, "--jobs", "1", tree_flag])
        .arg(&tree)
        .args(args)
        .arg("--out")
        .arg(&table)
        .arg("--work")
        .arg(work.path().join("work"))
        .output()
        .expect("xtask starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let table = std::fs::read_to_string(&table)
        .unwrap_or_else(|e| panic!("no table ({e}):\n{stdout}\n{stderr}"));
    (stdout, table)
}

#[test]
fn the_vendored_mpich_tests_pass_with_mpichs_own_harness() {
    let (stdout, table) = conformance("mpich-rma", "--mpich", "mpich", &[]);
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| test "))
        .collect();
    // The six lines of the vendored test list.
    assert_eq!(rows.len(), 6, "{stdout}\n{table}");
    for row in rows {
        assert!(row.contains("| pass | 0 |"), "{row}\n{table}");
    }
}

#[test]
fn the_vendored_osu_programs_pass_in_every_window_and_sync_mode() {
    let (_, table) = conformance(
        "osu-one-sided",
        "--osu",
        "osu",
        &["--only", "osu_put_latency", "osu_fop_latency"],
    );
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| osu_")).collect();
    // osu_put_latency: 3 window modes times 6 synchronisation modes.
    assert!(rows.len() > 18, "{table}");
    for program in ["osu_put_latency", "osu_fop_latency"] {
        assert!(
            rows.iter()
                .any(|r| r.starts_with(&format!("| {program} |"))),
            "{table}"
        );
    }
    for row in &rows {
        assert!(row.contains("| pass | 0 |"), "{row}\n{table}");
    }
}
