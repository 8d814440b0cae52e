// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask conformance mpich-rma` on a tiny fake MPICH tree made in a
//! temporary directory: a test list with a program that passes (its `-D`
//! flag from `Makefile.am`, its argument from `arg=`), one that fails, one
//! that fails as `xfail=` says, and one that needs more cores than the
//! chip has; a small `util/mtest.c` prints MPICH's verdicts. The table
//! must say which passed, which failed and why, and what was skipped. A
//! path that is not an MPICH tree is refused with a clear error.
//!
//! `cargo xtask conformance osu-one-sided` on a fake OSU tree: two
//! programs in `mpi/one-sided/Makefile.am`, built with a utility source
//! named through a variable, whose usage offers two window and two sync
//! modes; one program fails under one of the sync modes. A path without
//! `mpi/one-sided` is refused.
//!
//! `cargo xtask conformance sos-unit` on a fake tests-sos tree: a program
//! that passes (its header from `test/include`, its `-D` from
//! `NAME_CFLAGS`), one that fails with a message and exit status 1, and
//! one under `if HAVE_PTHREADS`, skipped. A path without
//! `test/unit/Makefile.am` is refused.

use std::fs;
use std::path::{Path, PathBuf};
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
/// Runs `cargo xtask conformance SUITE TREE_FLAG root` with its table and
/// work directory in `root`, checks that it succeeded, and returns the
/// table's path and what it printed.
fn run_harness(root: &Path, suite: &str, tree_flag: &str) -> (PathBuf, String, String) {
    let out = root.join("table.md");
    let output = Command::new(xtask_binary())
        .args(["conformance", suite, tree_flag])
        .arg(root)
        .arg("--out")
        .arg(&out)
        .arg("--work")
        .arg(root.join("work"))
        .output()
        .expect("xtask starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (out, stdout, stderr)
}

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
    let (out, stdout, stderr) = run_harness(root, "mpich-rma", "--mpich");
    assert!(
        stdout.contains("4 tests: 1 pass, 1 fail, 1 expected failures (xfail), 1 skipped"),
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

/// The usage and option parsing the fake OSU programs share (in the
/// tree's `util/`, as later OSU releases keep theirs).
const OPTS_H: &str = r#"#include <mpi.h>
int parse(int argc, char **argv, const char **win, const char **sync, int *iters);
void usage(void);
MPI_Win make_window(const char *win, char **base);
"#;

const OPTS_C: &str = r#"#include "opts.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
void usage(void)
{
    printf("Usage: prog [options]\n");
    printf("  -w <win_option>\n");
    printf("            <win_option> is one of:\n");
    printf("            create            use MPI_Win_create\n");
    printf("            allocate          use MPI_Win_allocate\n");
    printf("\n");
    printf("  -s <sync_option>\n");
    printf("            fence             use MPI_Win_fence\n");
    printf("            lock              use MPI_Win_lock/unlock\n");
    printf("\n");
    printf("  -i ITER       timed iterations\n");
}
/* 1 for -h, 0 otherwise, -1 on a bad option. */
int parse(int argc, char **argv, const char **win, const char **sync, int *iters)
{
    int c;
    while ((c = getopt(argc, argv, "hw:s:i:")) != -1) {
        if (c == 'h') return 1;
        else if (c == 'w') *win = optarg;
        else if (c == 's') *sync = optarg;
        else if (c == 'i') *iters = atoi(optarg);
        else return -1;
    }
    return 0;
}
MPI_Win make_window(const char *win, char **base)
{
    MPI_Win w;
    if (strcmp(win, "allocate") == 0) {
        MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, base, &w);
    } else {
        *base = malloc(64);
        MPI_Win_create(*base, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    }
    return w;
}
"#;

/// Puts 1, 2 and 4 bytes from rank 0 into rank 1's window in the mode
/// asked, checks them, and prints a row per size; `broken` fails in
/// lock mode.
const FAKE_LAT_C: &str = r##"#include "opts.h"
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    const char *win = "create", *sync = "fence";
    int iters = 0, rank, size, errs = 0;
    char *base, data[4] = {1, 2, 3, 4};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int asked = parse(argc, argv, &win, &sync, &iters);
    if (asked != 0) {
        if (rank == 0) usage();
        MPI_Finalize();
        return asked == 1 ? 0 : 1;
    }
#ifdef BROKEN
    if (strcmp(sync, "lock") == 0) {
        if (rank == 0) printf("broken: lock mode is not written\n");
        MPI_Finalize();
        /* Rank 0 alone fails, so the report is its complaint, whichever
         * core ends first. */
        return rank == 0 ? 1 : 0;
    }
#endif
    if (iters != 10) {
        if (rank == 0) printf("fake: -i 10 missing\n");
        errs++;
    }
    MPI_Win w = make_window(win, &base);
    if (rank == 0) printf("# Fake Latency Test\n# Size   Latency (us)\n");
    for (size = 1; size <= 4; size *= 2) {
        memset(base, 0, 64);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        if (strcmp(sync, "lock") == 0) {
            if (rank == 0) {
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w);
                MPI_Put(data, size, MPI_CHAR, 1, 0, size, MPI_CHAR, w);
                MPI_Win_unlock(1, w);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
            MPI_Win_unlock(rank, w);
        } else {
            MPI_Win_fence(0, w);
            if (rank == 0) MPI_Put(data, size, MPI_CHAR, 1, 0, size, MPI_CHAR, w);
            MPI_Win_fence(0, w);
        }
        if (rank == 1 && memcmp(base, data, size) != 0) {
            printf("fake: size %d arrived wrong\n", size);
            errs++;
        }
        if (rank == 0) printf("%-10d%20.2f\n", size, (MPI_Wtime() - start) * 1e6);
    }
    MPI_Win_free(&w);
    MPI_Finalize();
    return errs ? 1 : 0;
}
"##;

#[test]
fn the_osu_harness_runs_every_mode_the_usage_lists_and_reports_a_failing_one() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    write(
        root,
        "mpi/one-sided/Makefile.am",
        "one_sided_PROGRAMS = fake_lat\nif MPI3_LIBRARY\n    one_sided_PROGRAMS += broken\nendif\n\
         UTILITIES = ../../util/opts.c ../../util/opts.h\n\
         fake_lat_SOURCES = fake_lat.c $(UTILITIES)\nbroken_SOURCES = broken.c $(UTILITIES)\n",
    );
    write(root, "mpi/one-sided/fake_lat.c", FAKE_LAT_C);
    write(
        root,
        "mpi/one-sided/broken.c",
        &format!("#define BROKEN 1\n{FAKE_LAT_C}"),
    );
    write(root, "util/opts.h", OPTS_H);
    write(root, "util/opts.c", OPTS_C);
    let (out, stdout, stderr) = run_harness(root, "osu-one-sided", "--osu");
    assert!(
        stdout.contains("8 runs: 6 pass, 2 fail, 0 skipped"),
        "{stdout}\n{stderr}"
    );
    let table = fs::read_to_string(&out).unwrap();
    for window in ["create", "allocate"] {
        for sync in ["fence", "lock"] {
            let row = format!("| fake_lat | {window} | {sync} | pass | 0 |  |");
            assert!(table.contains(&row), "no `{row}`:\n{table}");
        }
        let row = format!("| broken | {window} | fence | pass | 0 |  |");
        assert!(table.contains(&row), "no `{row}`:\n{table}");
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| broken | {window} | lock | **fail** |")))
            .unwrap_or_else(|| panic!("no failing broken {window} lock row:\n{table}"));
        assert!(row.contains("broken: lock mode is not written"), "{table}");
    }
}

#[test]
fn a_path_without_the_one_sided_programs_is_refused() {
    let tree = tempfile::tempdir().unwrap();
    let output = Command::new(xtask_binary())
        .args(["conformance", "osu-one-sided", "--osu"])
        .arg(tree.path())
        .output()
        .expect("xtask starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("no mpi/one-sided/Makefile.am (nor c/mpi/one-sided/Makefile.am) there"),
        "{stderr}"
    );
    let output = Command::new(xtask_binary())
        .args(["conformance", "osu-one-sided"])
        .output()
        .expect("xtask starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("osu-one-sided needs --osu PATH"),
        "{stderr}"
    );
}

/// A ring put over the symmetric heap, checked; VALUE from good_CFLAGS,
/// RING from test/include/ring.h.
const SOS_GOOD_C: &str = r#"#include <shmem.h>
#include <stdio.h>
#include "ring.h"
#ifndef VALUE
#error "VALUE comes from good_CFLAGS in Makefile.am"
#endif
int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *slot = shmem_malloc(sizeof(int));
    shmem_int_p(slot, me + VALUE, RING(me, n));
    shmem_barrier_all();
    int ok = *slot == (me + n - 1) % n + VALUE;
    if (!ok) printf("good: PE %d received %d\n", me, *slot);
    shmem_free(slot);
    shmem_finalize();
    return ok ? 0 : 1;
}
"#;

const SOS_BAD_C: &str = r#"#include <shmem.h>
#include <stdio.h>
int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1) printf("bad: expected 1, got 2\n");
    shmem_finalize();
    return me == 1;
}
"#;

#[test]
fn the_sos_harness_reports_a_passing_a_failing_and_a_skipped_test_of_a_fake_tree() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    write(
        root,
        "test/unit/Makefile.am",
        "check_PROGRAMS = \\\n\tgood \\\n\tbad\n\nif HAVE_PTHREADS\ncheck_PROGRAMS += \\\n\tmt\nendif\n\n\
         NPROCS ?= 2\ngood_CFLAGS = -DVALUE=7\nmt_SOURCES = good.c\n",
    );
    write(root, "test/unit/good.c", SOS_GOOD_C);
    write(root, "test/unit/bad.c", SOS_BAD_C);
    write(
        root,
        "test/include/ring.h",
        "#define RING(me, n) (((me) + 1) % (n))\n",
    );
    let (out, stdout, stderr) = run_harness(root, "sos-unit", "--sos");
    assert!(
        stdout.contains("3 tests: 1 pass, 1 fail, 1 skipped"),
        "{stdout}\n{stderr}"
    );
    let table = fs::read_to_string(&out).unwrap();
    assert!(table.contains("| good | 2 | pass | 0 |  |"), "{table}");
    let bad = table
        .lines()
        .find(|l| l.starts_with("| bad | 2 | **fail** | 0 |"))
        .unwrap_or_else(|| panic!("no failing bad row:\n{table}"));
    assert!(
        bad.contains("core 1 failed") && bad.contains("bad: expected 1, got 2"),
        "{table}"
    );
    let mt = table
        .lines()
        .find(|l| l.starts_with("| mt | 2 | skipped | - |"))
        .unwrap_or_else(|| panic!("no skipped mt row:\n{table}"));
    assert!(mt.contains("threads"), "{table}");
}

#[test]
fn a_path_without_the_unit_tests_is_refused() {
    let tree = tempfile::tempdir().unwrap();
    let output = Command::new(xtask_binary())
        .args(["conformance", "sos-unit", "--sos"])
        .arg(tree.path())
        .output()
        .expect("xtask starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("no test/unit/Makefile.am there"),
        "{stderr}"
    );
}
