// SPDX-License-Identifier: MIT OR Apache-2.0
//! C programs on the cores (`tests/c/`), built with `--c` against mpi.h,
//! libmpi.a and the C runtime: the environment and collectives,
//! point-to-point communication and communicators, one-sided
//! communication with window memory reached through a pointer, windows
//! on every kind of program memory, message-based windows, the MPI
//! standard's chapter 11 examples, the stencil over MPI windows (against
//! the Rust stencil's cells), and every way a program ends. The programs check their own data and abort on the
//! first wrong value; the tests check that every core got through, with
//! no stale read.

use system_tests::{CoreExit, assert_clean_success, assert_failed_because_of, boot_c, transcript};

/// Every core printed `line`, with its rank and the run's size.
fn every_rank_printed(report: &system_tests::RunReport, cores: u32, line: impl Fn(u32) -> String) {
    for core in 0..cores {
        let want = line(core);
        assert!(
            report.serial(core).iter().any(|l| l.ends_with(&want)),
            "core {core} did not print {want:?}:\n{}",
            transcript(report)
        );
    }
}

#[test]
fn the_environment_errors_and_collectives_work_from_c_on_3_and_8_cores() {
    for cores in [3, 8] {
        let report = boot_c(cores, "environment", &["one", "two words"]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: environment checks passed")
        });
    }
}

#[test]
fn the_environment_errors_and_collectives_work_from_c_on_1_core() {
    let report = boot_c(1, "environment", &["one", "two words"]);
    assert_clean_success(&report, 1);
}

#[test]
fn one_sided_communication_from_c_moves_the_right_data_on_5_cores() {
    let report = boot_c(5, "one_sided", &[]);
    assert_clean_success(&report, 5);
    every_rank_printed(&report, 1, |_| {
        "one-sided checks passed on 5 ranks".to_owned()
    });
}

#[test]
fn one_sided_communication_from_c_moves_the_right_data_on_48_cores() {
    let report = boot_c(48, "one_sided", &[]);
    assert_clean_success(&report, 48);
    every_rank_printed(&report, 1, |_| {
        "one-sided checks passed on 48 ranks".to_owned()
    });
}

#[test]
fn windows_on_statics_stack_heap_part_of_a_block_and_no_memory_move_the_right_data() {
    for cores in [2, 3, 4] {
        let report = boot_c(cores, "window_memory", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: window memory checks passed")
        });
    }
}

#[test]
fn message_based_windows_move_the_right_data_in_every_epoch_and_refuse_what_they_lack() {
    for cores in [1, 2, 4] {
        let report = boot_c(cores, "message_windows", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: message-based window checks passed")
        });
    }
}

#[test]
fn comm_split_type_shares_among_all_and_comm_create_makes_a_subgroups_communicator() {
    for cores in [1, 3, 4] {
        let report = boot_c(cores, "split_create", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: split_type and create checks passed")
        });
    }
}

#[test]
fn point_to_point_communicators_and_irregular_collectives_work_from_c() {
    for cores in [1, 5, 16] {
        let report = boot_c(cores, "point_to_point", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: point-to-point checks passed")
        });
    }
}

#[test]
fn derived_datatypes_carry_their_data_through_messages_collectives_puts_gets_and_accumulates() {
    for cores in [1, 3, 4] {
        let report = boot_c(cores, "datatypes", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: datatype checks passed")
        });
    }
}

#[test]
fn the_calls_of_mpichs_test_harness_work_from_c() {
    for cores in [2, 3, 4] {
        let report = boot_c(cores, "mtest_calls", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| format!("rank {r}: mtest calls ok"));
    }
}

#[test]
fn the_mpi_standards_chapter_11_examples_run_in_c() {
    for cores in [1, 2, 12] {
        let report = boot_c(cores, "mpi_examples", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, 1, |_| {
            format!("MPI-3.1 chapter 11 examples passed on {cores} ranks")
        });
    }
}

/// The live cells the line of core 0 that contains `marker` reports, as
/// `N of M cells alive`.
fn live_cells(report: &system_tests::RunReport, marker: &str) -> String {
    let line = report
        .serial(0)
        .iter()
        .find(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no line with {marker:?}:\n{}", transcript(report)));
    let end = line.find(" cells alive").expect("a count of live cells");
    let start = line[..end].rfind(['(', ':']).expect("the count's start") + 1;
    line[start..end].trim().to_owned()
}

#[test]
fn the_c_stencil_over_mpi_windows_gives_the_rust_stencils_cells() {
    for cores in [3, 8] {
        let c = boot_c(cores, "stencil", &[]);
        assert_clean_success(&c, cores);
        let rust = system_tests::boot_with(&xtask::RunConfig {
            mode: system_tests::CHECKED,
            params: vec![("scale".to_owned(), "quick".to_owned())],
            ..xtask::RunConfig::new(cores, "stencil")
        });
        assert_clean_success(&rust, cores);
        let (from_c, from_rust) = (
            live_cells(&c, "stencil in C: 192x256 torus, 10 generations"),
            live_cells(&rust, "stencil: 192x256 torus, 10 generations"),
        );
        assert_eq!(
            from_c,
            from_rust,
            "{}\n{}",
            transcript(&c),
            transcript(&rust)
        );
    }
}

/// The last line core `core` printed that starts with `FAILED:`.
fn failure(report: &system_tests::RunReport, core: u32) -> String {
    report
        .serial(core)
        .iter()
        .rev()
        .find_map(|l| l.find("FAILED:").map(|i| l[i..].to_owned()))
        .unwrap_or_else(|| panic!("core {core} printed no failure:\n{}", transcript(report)))
}

#[test]
fn returning_from_main_runs_the_atexit_handlers_and_writes_out_stdout() {
    let report = boot_c(2, "endings", &["return"]);
    assert_clean_success(&report, 2);
    every_rank_printed(&report, 2, |r| {
        format!("rank {r}: bufferedrank {r}: atexit handler ran")
    });
}

#[test]
fn a_nonzero_exit_status_fails_the_run_naming_the_core_and_the_status() {
    let report = boot_c(2, "endings", &["exit", "3"]);
    assert_failed_because_of(&report, 1, CoreExit::GuestFailure, "core 1 failed");
    assert_eq!(
        failure(&report, 1),
        "FAILED: the C program exited with status 3"
    );
    // What it printed before, buffered, came out first, on a line of its own.
    assert!(
        report
            .serial(1)
            .iter()
            .any(|l| l.ends_with("rank 1: bufferedrank 1: atexit handler ran")),
        "{}",
        transcript(&report)
    );
}

#[test]
fn a_fatal_mpi_error_names_the_call_and_what_was_wrong() {
    let report = boot_c(2, "endings", &["fatal"]);
    assert_failed_because_of(&report, 0, CoreExit::GuestFailure, "core 0 failed");
    assert_eq!(
        failure(&report, 0),
        "FAILED: MPI_Bcast: root 7 is not a rank of the 2 (MPI_ERR_ROOT)"
    );
    assert!(
        report
            .serial(0)
            .iter()
            .any(|l| l.ends_with("rank 0: buffered")),
        "the buffered output came out before the report:\n{}",
        transcript(&report)
    );
}

#[test]
fn a_program_that_ends_without_mpi_finalize_fails_the_run() {
    let report = boot_c(2, "endings", &["nofinalize"]);
    assert_failed_because_of(&report, 1, CoreExit::GuestFailure, "core 1 failed");
    assert_eq!(
        failure(&report, 1),
        "FAILED: the program ended without calling MPI_Finalize after MPI_Init"
    );
}

#[test]
fn a_message_never_received_is_named_at_mpi_finalize() {
    let report = boot_c(2, "endings", &["unreceived"]);
    assert_clean_success(&report, 2);
    let warning = "warning: MPI_Finalize: a message from rank 0 with tag 9 (4 bytes, on \
                   MPI_COMM_WORLD) was never received";
    assert!(
        report.serial(0).iter().any(|l| l == warning),
        "{}",
        transcript(&report)
    );
    assert!(
        !report.serial(1).iter().any(|l| l.starts_with("warning")),
        "{}",
        transcript(&report)
    );
}

#[test]
fn mpi_abort_and_a_failed_assert_end_the_run() {
    let report = boot_c(3, "endings", &["abort"]);
    assert_failed_because_of(&report, 2, CoreExit::GuestFailure, "core 2 failed");
    assert_eq!(failure(&report, 2), "FAILED: MPI_Abort with error code 42");

    let report = boot_c(2, "endings", &["assert"]);
    assert_failed_because_of(&report, 0, CoreExit::GuestFailure, "core 0 failed");
    assert_eq!(
        failure(&report, 0),
        "FAILED: the C program exited with status 134"
    );
    assert!(
        transcript(&report).contains("Assertion failed: rank != 0 && \"rank 0 asserts\""),
        "{}",
        transcript(&report)
    );
}

#[test]
fn a_c_file_that_does_not_compile_is_reported_before_anything_boots() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.c");
    std::fs::write(&bad, "int main(void) { return undefined_name; }\n").unwrap();
    let (app, params) = xtask::app_of(None, vec![bad.clone()], &[], Vec::new()).unwrap();
    let config = xtask::RunConfig {
        app,
        params,
        ..xtask::RunConfig::new(1, "main")
    };
    let message = format!("{:#}", xtask::run(&config).unwrap_err());
    assert!(
        message.contains("compiling") && message.contains("bad.c"),
        "{message}"
    );

    let missing = tmp.path().join("missing.c");
    let (app, params) = xtask::app_of(None, vec![missing], &[], Vec::new()).unwrap();
    let config = xtask::RunConfig {
        app,
        params,
        ..xtask::RunConfig::new(1, "main")
    };
    let message = format!("{:#}", xtask::run(&config).unwrap_err());
    assert!(message.contains("missing.c: no such file"), "{message}");
}

#[test]
fn calls_mpichs_one_sided_tests_make_work_from_c_on_1_and_3_cores() {
    for cores in [1, 3] {
        let report = boot_c(cores, "rma_extras", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| format!("rank {r}: rma extras ok"));
    }
}

#[test]
fn a_heap_without_room_fails_the_call_with_mpi_err_no_mem_on_2_cores() {
    let report = boot_c(2, "no_memory", &[]);
    assert_clean_success(&report, 2);
    every_rank_printed(&report, 2, |r| format!("rank {r}: out of memory reported"));
}

#[test]
fn long_doubles_fetch_accumulate_and_reduce_with_their_low_bits_from_c() {
    for cores in [1, 3, 4] {
        let report = boot_c(cores, "long_double", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: long double checks passed")
        });
    }
}

#[test]
fn a_shared_windows_parts_are_contiguous_unless_alloc_shared_noncontig_from_c() {
    for cores in [1, 4, 5] {
        let report = boot_c(cores, "shared_contiguous", &[]);
        assert_clean_success(&report, cores);
        every_rank_printed(&report, cores, |r| {
            format!("rank {r} of {cores}: shared window placement checks passed")
        });
    }
}
