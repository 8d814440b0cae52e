// SPDX-License-Identifier: MIT OR Apache-2.0
//! OpenSHMEM C programs (`tests/c/shmem/`), built with `cargo xtask
//! oshcc` against shmem.h and libshmem.a and booted under the coherence
//! checker: every routine's data checked by the program on 2, 8 and 48
//! PEs (48 on request: minutes of host time), under both readings of
//! MPBT-WT loads (uncached as measured on silicon, and filling L1 as
//! documented, where a missing invalidation would show). A Jacobi solver
//! and the stencil, checked against runs alone, with no stale read; both
//! and the producer and consumer again without the library's consistency
//! actions (an incoherent run, still right with uncached loads, and
//! faster); both with plain loads
//! instead of `shmem_signal_wait_until`, and a producer and consumer
//! with plain loads instead of `shmem_int_wait_until`, whose stale reads
//! the checker names. Global and static variables as symmetric objects
//! (`globals.c`) on 2 and 8 PEs. Teams, contexts, signals, non-blocking
//! atomics, multi-variable waits, alltoalls and the C11 generic routines
//! (`teams_ctx.c`) on 2 and 4 PEs. And the same model from Rust
//! (`dsm::spmd`, the `spmd` program), every value checked, on 2 and 8
//! PEs.

use std::path::{Path, PathBuf};
use std::process::Command;

use system_tests::{
    CHECKED, Mode, Model, Outcome, RunConfig, RunReport, WtReads, assert_clean_success, boot_with,
    timeout_for, transcript, xtask_binary,
};

/// Builds `tests/c/shmem/NAME.c` with `oshcc` and `flags` into `dir`;
/// the image's path.
fn oshcc(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("c/shmem")
        .join(format!("{name}.c"));
    compile(&source, flags, &dir.join(name))
}

/// Builds `source` with `oshcc` and `flags` into `image`, which it returns.
fn compile(source: &Path, flags: &[&str], image: &Path) -> PathBuf {
    let out = Command::new(xtask_binary())
        .arg("oshcc")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(image)
        .output()
        .expect("xtask starts");
    assert!(
        out.status.success(),
        "oshcc {} failed:\n{}\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    image.to_owned()
}

/// Boots `image` on `cores` cores under the checker, MPBT-WT loads as
/// `wt_reads` says.
fn boot(image: &Path, cores: u32, wt_reads: WtReads) -> RunReport {
    boot_args(image, cores, wt_reads, &[])
}

/// [`boot`], with `args` after the program's name in `argv`.
fn boot_args(image: &Path, cores: u32, wt_reads: WtReads, args: &[&str]) -> RunReport {
    let Mode::Modelled(model) = CHECKED else {
        unreachable!("the checked mode is modelled")
    };
    let name = image.file_name().unwrap().to_str().unwrap();
    boot_with(&RunConfig {
        mode: Mode::Modelled(Model { wt_reads, ..model }),
        timeout: timeout_for(cores),
        app: xtask::App::Image(image.to_owned()),
        params: vec![
            xtask::argv_param(
                name,
                &args.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
            )
            .unwrap(),
        ],
        ..RunConfig::new(cores, "main")
    })
}

/// Every PE printed a line ending in `line(pe)`.
fn every_pe_printed(report: &RunReport, cores: u32, line: impl Fn(u32) -> String) {
    for pe in 0..cores {
        let want = line(pe);
        assert!(
            report.serial(pe).iter().any(|l| l.ends_with(&want)),
            "PE {pe} did not print {want:?}:\n{}",
            transcript(report)
        );
    }
}

fn every_routine_checks_its_data_on(cores: u32, wt_reads: &[WtReads]) {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "basic", &[]);
    for &wt in wt_reads {
        let report = boot(&image, cores, wt);
        assert_clean_success(&report, cores);
        every_pe_printed(&report, cores, |pe| {
            format!("PE {pe} of {cores}: openshmem checks passed")
        });
        assert!(
            report
                .serial(0)
                .iter()
                .any(|l| l.contains("shmem stats: lock waits")),
            "PE 0 printed no statistics:\n{}",
            transcript(&report)
        );
    }
}

#[test]
fn every_routine_checks_its_data_on_2_pes_with_no_stale_read() {
    every_routine_checks_its_data_on(2, &[WtReads::Silicon, WtReads::Ideal]);
}

#[test]
fn every_routine_checks_its_data_on_8_pes_with_no_stale_read() {
    every_routine_checks_its_data_on(8, &[WtReads::Ideal]);
}

/// 48 PEs take minutes of host time (401 s on a loaded 2-core host), so
/// this one runs on request:
/// `cargo test -p system-tests --test openshmem -- --ignored`.
#[test]
#[ignore = "minutes of host time: run with --ignored"]
fn every_routine_checks_its_data_on_48_pes_with_no_stale_read() {
    every_routine_checks_its_data_on(48, &[WtReads::Ideal]);
}

#[test]
fn global_and_static_variables_are_symmetric_on_2_and_8_pes_with_no_stale_read() {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "globals", &[]);
    for (cores, wt) in [
        (2, WtReads::Silicon),
        (2, WtReads::Ideal),
        (8, WtReads::Ideal),
    ] {
        let report = boot(&image, cores, wt);
        assert_clean_success(&report, cores);
        every_pe_printed(&report, cores, |pe| {
            format!("PE {pe} of {cores}: globals checks passed")
        });
    }
}

#[test]
fn teams_contexts_signals_and_generic_routines_check_their_data_on_2_and_4_pes() {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "teams_ctx", &[]);
    for (cores, wt) in [(2, WtReads::Silicon), (4, WtReads::Ideal)] {
        let report = boot(&image, cores, wt);
        assert_clean_success(&report, cores);
        every_pe_printed(&report, cores, |pe| {
            format!("PE {pe} of {cores}: teams and contexts checks passed")
        });
    }
}

/// The line PE 0 of `report` printed that starts with `start`.
fn line_of(report: &RunReport, start: &str) -> String {
    report
        .serial(0)
        .iter()
        .find_map(|l| l.find(start).map(|at| l[at..].to_owned()))
        .unwrap_or_else(|| panic!("PE 0 printed no {start:?}:\n{}", transcript(report)))
}

#[test]
fn the_jacobi_solver_matches_the_grid_run_alone_on_2_and_8_pes() {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "jacobi", &[]);
    // 2 PEs converge; 8 PEs' taller grid stops at the iteration limit.
    for (cores, iterations) in [(2, 125), (8, 200)] {
        let report = boot(&image, cores, WtReads::Ideal);
        assert_clean_success(&report, cores);
        let line = line_of(&report, "jacobi: ");
        assert!(
            line.starts_with(&format!(
                "jacobi: {cores} PEs, {iterations} iterations, heat "
            )),
            "{line}"
        );
    }
}

#[test]
fn the_stencil_matches_the_serial_run_and_the_c_stencil_over_mpi_on_2_and_8_pes() {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "stencil", &[]);
    for cores in [2, 8] {
        let report = boot(&image, cores, WtReads::Ideal);
        assert_clean_success(&report, cores);
        // The same live cells as tests/c/stencil.c and the Rust program.
        let want = format!(
            "stencil over OpenSHMEM: 192x256 torus, 10 generations on {cores} PEs: 11218 of \
             49152 cells alive, verified against a serial run"
        );
        assert_eq!(line_of(&report, "stencil over"), want);
    }
}

/// The consistency overhead line of `report` for `program` on `cores`:
/// the enforced and the incoherent time, in microseconds.
fn overhead_of(report: &RunReport, program: &str, cores: u32) -> (f64, f64) {
    let line = line_of(report, "consistency overhead: ");
    let start = format!("consistency overhead: {program} on {cores} PEs: ");
    let rest = line
        .strip_prefix(&start)
        .unwrap_or_else(|| panic!("{line}"));
    let number = |text: &str| -> f64 { text.split(' ').next().unwrap().parse().unwrap() };
    let (enforced, incoherent) = rest.split_once(" us enforced, ").expect("two times");
    (number(enforced), number(incoherent))
}

#[test]
fn the_programs_stay_right_without_consistency_actions_and_are_faster_so() {
    let dir = tempfile::tempdir().unwrap();
    for program in ["stencil", "jacobi", "producer_consumer"] {
        let image = oshcc(dir.path(), program, &[]);
        let cores = 4;
        // The incoherent run is right only where no load can be stale:
        // MPBT-WT loads read uncached, as on silicon.
        let report = boot_args(&image, cores, WtReads::Silicon, &["overhead"]);
        assert_clean_success(&report, cores);
        let (enforced, incoherent) = overhead_of(&report, program, cores);
        assert!(
            incoherent > 0.0 && incoherent < enforced,
            "{program}: {enforced} us enforced, {incoherent} incoherent"
        );
    }
}

/// Boots the `-DSTALE` build of `program` on 2 PEs, MPBT-WT loads filling
/// L1: the checker names stale reads in `arrived`, the plain loads of a
/// signal the other PE wrote. (How many halos came too late, and so
/// whether cells end up wrong, varies from run to run: which core's store
/// reaches memory first within a quantum is the host's order.)
fn without_signal_wait_until_the_checker_names_the_stale_signals(program: &str) {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), program, &["-DSTALE"]);
    let report = boot(&image, 2, WtReads::Ideal);
    assert!(report.success(), "{}", transcript(&report));
    assert!(report.stale_reads() > 0, "{}", transcript(&report));
    let summary = report.coherence_summary();
    assert!(
        summary.lines().any(|l| {
            (l.starts_with("core 0 read ") && l.contains("written by core 1"))
                || (l.starts_with("core 1 read ") && l.contains("written by core 0"))
        }),
        "{summary}"
    );
    assert!(
        summary.contains("at arrived (tests/c/shmem/consistency.h:")
            && summary.contains(&format!("inlined into main (tests/c/shmem/{program}.c:")),
        "{summary}"
    );
    every_pe_printed(&report, 2, |_| {
        format!(
            " of {} halos not seen in time",
            match program {
                "stencil" => 20,
                _ => 125,
            }
        )
    });
}

#[test]
fn the_stencil_without_signal_wait_until_reads_stale_signals_the_checker_names() {
    without_signal_wait_until_the_checker_names_the_stale_signals("stencil");
}

#[test]
fn the_jacobi_solver_without_signal_wait_until_reads_stale_signals_the_checker_names() {
    without_signal_wait_until_the_checker_names_the_stale_signals("jacobi");
}

#[test]
fn the_services_statistics_appear_in_the_stats_tables_when_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "jacobi", &[]);
    let quiet = boot(&image, 2, WtReads::Ideal);
    assert_clean_success(&quiet, 2);
    assert_eq!(quiet.guest_stats(), "", "{}", transcript(&quiet));
    let report = boot_with(&RunConfig {
        stats: true,
        timeout: timeout_for(2),
        app: xtask::App::Image(image.clone()),
        params: vec![xtask::argv_param("jacobi", &[]).unwrap()],
        ..RunConfig::new(2, "main")
    });
    assert_clean_success(&report, 2);
    let table = report.guest_stats();
    assert!(
        table.starts_with("\nstatistics the guest's `dsm` layer kept, per core:\ncore  dsm "),
        "{table}"
    );
    // Each PE's barriers (20 iterations and more) and its consistency row.
    for pe in 0..2 {
        let calls = |row: &str| -> Option<u64> {
            let line = table.lines().find(|l| {
                l.split_whitespace()
                    .take(2)
                    .eq([pe.to_string().as_str(), row])
            })?;
            line.split_whitespace().nth(2)?.parse().ok()
        };
        assert!(calls("barrier").is_some_and(|n| n >= 20), "{table}");
        assert!(calls("consistency").is_some(), "{table}");
    }
    assert!(
        report.stats_table().ends_with(&table),
        "{}",
        report.stats_table()
    );
}

#[test]
fn a_consumer_that_waits_with_wait_until_reads_no_stale_data_on_2_and_8_pes() {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "producer_consumer", &[]);
    for cores in [2, 8] {
        let report = boot(&image, cores, WtReads::Ideal);
        assert_clean_success(&report, cores);
        for pe in (1..cores).step_by(2) {
            let want = format!("PE {pe}: consumed 40 values from PE {}", pe - 1);
            assert!(
                report.serial(pe).iter().any(|l| l.ends_with(&want)),
                "{}",
                transcript(&report)
            );
        }
    }
}

#[test]
fn without_wait_until_the_checker_names_the_consumers_stale_reads() {
    let dir = tempfile::tempdir().unwrap();
    let image = oshcc(dir.path(), "producer_consumer", &["-DSTALE"]);
    let report = boot(&image, 2, WtReads::Ideal);
    assert!(report.success(), "{}", transcript(&report));
    let consumer = report.serial(1).join("\n");
    assert!(
        consumer.contains("PE 1: flag not seen after")
            && !consumer.contains(" 0 of 40 values stale"),
        "the consumer saw the flag or fresh data:\n{}",
        transcript(&report)
    );
    assert!(report.stale_reads() > 0, "{}", transcript(&report));
    let summary = report.coherence_summary();
    // The checker names the reader, the writer and the line of the read.
    assert!(
        summary
            .lines()
            .any(|l| l.starts_with("core 1 read 0x00000000 at ") && l.contains("written by core 0")),
        "{summary}"
    );
    assert!(
        summary.contains("at main (tests/c/shmem/producer_consumer.c:"),
        "{summary}"
    );
    // Nobody but the consumer read stale data.
    assert!(
        !summary.lines().any(|l| l.starts_with("core 0 read ")),
        "{summary}"
    );
}

/// Builds the C program `text` with `oshcc` in `dir`, boots it on one
/// core, and expects it to fail with a report holding each of `wants`.
fn fails_naming(dir: &Path, name: &str, text: &str, wants: &[&str]) {
    let source = dir.join(format!("{name}.c"));
    std::fs::write(&source, text).unwrap();
    let image = compile(&source, &[], &dir.join(name));
    let report = boot(&image, 1, WtReads::Silicon);
    assert!(!report.success(), "{}", transcript(&report));
    let text = transcript(&report);
    for want in wants {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
}

#[test]
fn a_stack_address_as_a_symmetric_address_and_an_unsupported_routine_are_named() {
    let dir = tempfile::tempdir().unwrap();
    fails_naming(
        dir.path(),
        "stack_put",
        "#include <shmem.h>\nint main(void) {\n    int x;\n    shmem_init();\n    \
         int v = 1;\n    shmem_int_put(&x, &v, 1, 0);\n    shmem_finalize();\n    return 0;\n}\n",
        &[
            "FAILED: shmem_int_put: dest 0x",
            "is not a symmetric object",
            "the program's global and static variables",
        ],
    );
    fails_naming(
        dir.path(),
        "unsupported",
        "#include <shmem.h>\nint main(void) {\n    shmem_init();\n    \
         shmem_broadcast32();\n    shmem_finalize();\n    return 0;\n}\n",
        &["FAILED: shmem_broadcast32: not supported by this OpenSHMEM library"],
    );
    fails_naming(
        dir.path(),
        "bad_pe",
        "#include <shmem.h>\nint main(void) {\n    shmem_init();\n    \
         int *p = shmem_malloc(4);\n    shmem_int_p(p, 1, 3);\n    shmem_finalize();\n    return 0;\n}\n",
        &["FAILED: shmem_int_p: PE 3 is not in the run (PEs 0 to 0)"],
    );
}

/// A program in which PE 0 calls `shmem_global_exit(STATUS)` while the
/// others wait in a barrier (as tests-sos's `global_exit`).
const GLOBAL_EXIT: &str = "#include <stdio.h>\n#include <stdlib.h>\n#include <sys/wait.h>\n\
     #include <shmem.h>\nint main(void) {\n    shmem_init();\n    if (shmem_my_pe() == 0) {\n        \
     printf(\"PE 0 ends the run\\n\");\n        shmem_global_exit(STATUS);\n        abort();\n    }\n    \
     shmem_barrier_all();\n    shmem_finalize();\n    return 0;\n}\n";

#[test]
fn shmem_global_exit_with_0_ends_every_pe_s_run_successfully_and_with_another_status_fails() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("global_exit.c");
    std::fs::write(&source, GLOBAL_EXIT).unwrap();
    for status in [0, 3] {
        let image = compile(
            &source,
            &[&format!("-DSTATUS={status}")],
            &dir.path().join(format!("global_exit_{status}")),
        );
        let report = boot(&image, 4, WtReads::Silicon);
        let text = transcript(&report);
        assert!(text.contains("PE 0 ends the run"), "{text}");
        if status == 0 {
            assert_eq!(report.outcome, Outcome::Ended { core: 0 }, "{text}");
            assert!(report.success() && report.exit_code() == 0, "{text}");
            assert!(
                text.contains("core 0 ended the run of all 4 cores successfully"),
                "{text}"
            );
        } else {
            assert!(!report.success(), "{text}");
            assert!(
                text.contains("FAILED: shmem_global_exit with status 3"),
                "{text}"
            );
        }
    }
}

/// The `spmd` program on `cores` PEs under the checker: every check passes
/// and no read is stale.
fn spmd_on(cores: u32) {
    let report = system_tests::boot(cores, "spmd");
    assert_clean_success(&report, cores);
    system_tests::assert_summary(
        &report,
        &format!(
            "spmd: {cores} cores, {} checks, 0 failed: ring puts and gets, an atomic counter, one swap winner, a token passed with wait_until, sums under ticket, GBH, MCS-WP and hierarchical locks",
            6 * cores
        ),
    );
}

#[test]
fn the_model_from_rust_checks_its_data_on_2_and_8_pes_with_no_stale_read() {
    spmd_on(2);
    spmd_on(8);
}
