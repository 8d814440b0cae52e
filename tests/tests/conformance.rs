// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask conformance mpich-rma` on a tiny fake MPICH tree made in a
//! temporary directory: a test list with a program that passes (its `-D`
//! flag from `Makefile.am`, its argument from `arg=`), one that fails, one
//! that fails as `xfail=` says, and one that needs more cores than the
//! chip has; a small `util/mtest.c` prints MPICH's verdicts. The table
//! must say which passed, which failed and why, and what was skipped. A
//! path that is not an MPICH tree is refused with a clear error.

use std::fs;
use std::path::Path;
use std::process::Command;

use system_tests::xtask_binary;

const MPITEST_H: &str = r#"#include "mpitestconf.h"
#include <mpi.h>
void MTest_Init(int *argc, char ***argv);
void MTest_Finalize(int errs);
"#;

const MTEST_C: &str = r#"#include "mpitest.h"
#include <stdio.h>
#ifndef HAVE_MPI_WIN_CREATE
#error "the harness's mpitestconf.h is missing"
#endif
void MTest_Init(int *argc, char ***argv) { MPI_Init(argc, argv); }
void MTest_Finalize(int errs)
{
    int rank, all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all)
            printf(" Found %d errors\n", all);
        else
            printf(" No Errors\n");
    }
}
"#;

/// Puts each rank into its right neighbour's window under a fence, adds
/// VALUE (from Makefile.am) and the argument, and checks what arrived.
const GOOD_C: &str = r#"#include "mpitest.h"
#include <stdio.h>
#include <string.h>
#ifndef VALUE
#error "VALUE comes from good_CPPFLAGS in Makefile.am"
#endif
int main(int argc, char **argv)
{
    int rank, size, errs = 0, *slot;
    MPI_Win win;
    MTest_Init(&argc, &argv);
    if (argc != 2 || strcmp(argv[1], "-x=3") != 0) {
        printf("good: argument missing\n");
        errs++;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &slot, &win);
    int value = rank + VALUE;
    MPI_Win_fence(0, win);
    MPI_Put(&value, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (*slot != (rank + size - 1) % size + VALUE) {
        printf("good: rank %d received %d\n", rank, *slot);
        errs++;
    }
    MPI_Win_free(&win);
    MTest_Finalize(errs);
    MPI_Finalize();
    return 0;
}
"#;

const BAD_C: &str = r#"#include "mpitest.h"
#include <stdio.h>
int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    printf("bad: expected 1 got 2\n");
    MTest_Finalize(1);
    MPI_Finalize();
    return 0;
}
"#;

/// Writes `text` to `dir/path`, making the directories.
fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn the_harness_reports_a_passing_a_failing_and_a_skipped_test_of_a_fake_mpich_tree() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    write(
        root,
        "test/mpi/rma/testlist",
        "# a fake suite\ngood 3 arg=-x=3 timeLimit=120\nbad 1\nknown 1 xfail=ticket/1\nhuge 64\n",
    );
    write(
        root,
        "test/mpi/rma/Makefile.am",
        "noinst_PROGRAMS = good bad \\\n  known huge\n\
         good_CPPFLAGS = -DVALUE=7 $(AM_CPPFLAGS)\nknown_SOURCES = bad.c\nhuge_SOURCES = bad.c\n",
    );
    write(root, "test/mpi/rma/good.c", GOOD_C);
    write(root, "test/mpi/rma/bad.c", BAD_C);
    write(root, "test/mpi/include/mpitest.h", MPITEST_H);
    write(root, "test/mpi/util/mtest.c", MTEST_C);
    let out = root.join("table.md");
    let output = Command::new(xtask_binary())
        .args(["conformance", "mpich-rma", "--mpich"])
        .arg(root)
        .arg("--out")
        .arg(&out)
        .arg("--work")
        .arg(root.join("work"))
        .output()
        .expect("xtask starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("4 tests: 1 pass, 1 fail, 1 expected failures, 1 skipped"),
        "{stdout}\n{stderr}"
    );
    let table = fs::read_to_string(&out).unwrap();
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{table}"))
            .to_owned()
    };
    assert_eq!(row("good"), "| good | 3 | -x=3 | pass | 0 |  |", "{table}");
    let bad = row("bad");
    assert!(
        bad.starts_with("| bad | 1 |  | **fail** | 0 |") && bad.contains("bad: expected 1 got 2"),
        "{table}"
    );
    let known = row("known");
    assert!(
        known.contains("| xfail |") && known.contains("(xfail: ticket/1)"),
        "{table}"
    );
    let huge = row("huge");
    assert!(
        huge.contains("| skipped | - |") && huge.contains("needs 64 processes"),
        "{table}"
    );
    assert!(
        table.contains("4 tests: 1 pass, 1 fail, 1 expected failures (xfail), 1 skipped."),
        "{table}"
    );
}

#[test]
fn a_path_without_the_test_list_is_refused() {
    let tree = tempfile::tempdir().unwrap();
    let output = Command::new(xtask_binary())
        .args(["conformance", "mpich-rma", "--mpich"])
        .arg(tree.path())
        .output()
        .expect("xtask starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr
            .contains("no test/mpi/rma/testlist (nor testlist.in) there: not an MPICH source tree"),
        "{stderr}"
    );
}
