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

#[test]
fn the_vendored_mpich_tests_pass_with_mpichs_own_harness() {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor/mpich");
    let work = tempfile::tempdir().unwrap();
    let table = work.path().join("table.md");
    let output = Command::new(xtask_binary())
        .args(["conformance", "mpich-rma", "--jobs", "1", "--mpich"])
        .arg(&tree)
        .arg("--out")
        .arg(&table)
        .arg("--work")
        .arg(work.path().join("work"))
        .output()
        .expect("xtask starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let table = std::fs::read_to_string(&table).unwrap();
    assert!(
        stdout.contains("6 tests: 6 pass, 0 fail, 0 expected failures, 0 skipped"),
        "{stdout}\n{stderr}\n{table}"
    );
    for line in table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| test "))
    {
        assert!(line.contains("| pass | 0 |"), "{line}\n{table}");
    }
}

#[test]
fn the_vendored_osu_programs_pass_in_every_window_and_sync_mode() {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor/osu");
    let work = tempfile::tempdir().unwrap();
    let table = work.path().join("table.md");
    let output = Command::new(xtask_binary())
        .args(["conformance", "osu-one-sided", "--jobs", "1", "--osu"])
        .arg(&tree)
        .args(["--only", "osu_put_latency", "osu_fop_latency", "--out"])
        .arg(&table)
        .arg("--work")
        .arg(work.path().join("work"))
        .output()
        .expect("xtask starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let table = std::fs::read_to_string(&table).unwrap();
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
