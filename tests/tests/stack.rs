// SPDX-License-Identifier: MIT OR Apache-2.0
//! Memory misuse that used to go unnoticed ends the run with a report
//! that says what happened: a stack overflow (the guard page below the
//! stack), a heap overrun (the guard word after each block, checked at
//! free) and a write into code (mapped read-only). Each names the core,
//! and the report places the faulting instruction in the right function.

use system_tests::{
    CoreExit, RunReport, assert_clean_success, assert_failed_because_of, boot, boot_c, boot_with,
    c_config, hex, lines_starting, transcript,
};

/// The number after `label` in `line`.
fn number_after(line: &str, label: &str) -> Option<u32> {
    let (_, rest) = line.split_once(label)?;
    hex(rest).map(|(value, _)| value)
}

/// Checks that core `core` failed alone, printing one line that starts
/// with `start`, and that the run's report places that line's EIP in
/// `place` (a function and its file, as the symbol lookup prints them).
/// Returns the line.
fn assert_fault(report: &RunReport, core: u32, start: &str, place: &str) -> String {
    let all = transcript(report);
    assert_failed_because_of(
        report,
        core,
        CoreExit::GuestFailure,
        &format!("core {core} failed: the guest reported failure"),
    );
    let lines = lines_starting(report, core, start);
    assert_eq!(lines.len(), 1, "no single line `{start}...`:\n{all}");
    let line = lines[0].to_owned();
    let eip = number_after(&line, "EIP ").unwrap_or_else(|| panic!("no EIP in {line}"));
    let text = report.to_string();
    let report_lines: Vec<&str> = text.lines().collect();
    let at = report_lines
        .iter()
        .position(|l| *l == format!("  [core {core:02}] {line}"))
        .unwrap_or_else(|| panic!("the line is not in the report:\n{text}"));
    assert!(
        report_lines[at + 1].starts_with(&format!("            {eip:#010x} at ")),
        "{text}"
    );
    let placed = report_lines[at + 1..]
        .iter()
        .take_while(|l| !l.starts_with("  [core"))
        .any(|l| l.contains(place));
    assert!(placed, "EIP {eip:#x} is not placed in {place}:\n{text}");
    line
}

/// Checks that a stack overflow line reports a double fault whose CR2 is
/// in the guard page just below the stack the next line names.
fn assert_overflow_in_guard(report: &RunReport, core: u32, line: &str) {
    let all = transcript(report);
    let advice = lines_starting(report, core, "  the stack (64 KiB at ");
    assert_eq!(advice.len(), 1, "{all}");
    assert!(advice[0].ends_with("is full: a run gets a larger one with --stack-kib"));
    let bottom = number_after(advice[0], " at ").unwrap();
    let cr2 = number_after(line, "CR2 ").unwrap();
    assert!(
        (bottom - 4096..bottom).contains(&cr2),
        "CR2 {cr2:#x} is not in the guard page below {bottom:#x}:\n{all}"
    );
}

#[test]
fn endless_recursion_in_rust_is_a_stack_overflow_naming_the_core_and_function() {
    let report = boot(2, "stack-overflow");
    let line = assert_fault(
        &report,
        1,
        "EXCEPTION on core 1: stack overflow: double fault (vector 8), EIP ",
        "programs::stack_overflow::recurse (apps/programs/src/stack_overflow.rs:",
    );
    assert_overflow_in_guard(&report, 1, &line);
}

#[test]
fn a_100_kib_local_array_in_c_overflows_the_default_stack_in_its_function() {
    let report = boot_c(2, "faults", &["array"]);
    let line = assert_fault(
        &report,
        1,
        "EXCEPTION on core 1: stack overflow: ",
        "use_array (tests/c/faults.c:",
    );
    assert_overflow_in_guard(&report, 1, &line);
}

#[test]
fn a_100_kib_local_array_in_c_fits_a_256_kib_stack() {
    let report = boot_with(&system_tests::RunConfig {
        stack_kib: 256,
        ..c_config(2, "faults", &["array"])
    });
    assert_clean_success(&report, 2);
    assert_eq!(
        lines_starting(&report, 1, "rank 1: array sum "),
        ["rank 1: array sum 200"],
        "{}",
        transcript(&report)
    );
}

#[test]
fn endless_recursion_in_c_is_a_stack_overflow_in_the_recursing_function() {
    let report = boot_c(2, "faults", &["recurse"]);
    let line = assert_fault(
        &report,
        1,
        "EXCEPTION on core 1: stack overflow: ",
        "recurse (tests/c/faults.c:",
    );
    assert_overflow_in_guard(&report, 1, &line);
}

#[test]
fn a_write_of_4_kib_past_malloc_16_is_reported_at_free_naming_the_block() {
    let report = boot_c(2, "faults", &["heap"]);
    let all = transcript(&report);
    assert_failed_because_of(
        &report,
        1,
        CoreExit::GuestFailure,
        "core 1 failed: the guest reported failure",
    );
    let given = lines_starting(&report, 1, "rank 1: malloc(16) = ");
    assert_eq!(given.len(), 1, "{all}");
    let block = number_after(given[0], "= ").unwrap();
    let failed = lines_starting(&report, 1, "FAILED: heap overrun: ");
    assert_eq!(failed.len(), 1, "{all}");
    // The guard word right after the 16 bytes reads what memset wrote.
    let expected = format!(
        "FAILED: heap overrun: the 16-byte allocation at {block:#x} was written past its end \
         (its guard word at {:#x} reads 0x78787878, not 0x",
        block + 16
    );
    assert!(failed[0].starts_with(&expected), "{all}");
    assert!(
        failed[0].ends_with("), found when it was freed (free or realloc)"),
        "{all}"
    );
    assert!(
        lines_starting(&report, 1, "rank 1: freed").is_empty(),
        "{all}"
    );
}

#[test]
fn a_write_into_code_is_a_page_fault_saying_so() {
    let report = boot_c(2, "faults", &["code"]);
    let all = transcript(&report);
    let line = assert_fault(
        &report,
        1,
        "EXCEPTION on core 1: page fault (vector 14), error code 0x3, EIP ",
        "write_code (tests/c/faults.c:",
    );
    let target = lines_starting(&report, 1, "rank 1: writing to code at ");
    assert_eq!(target.len(), 1, "{all}");
    let code = number_after(target[0], " at ").unwrap();
    assert!(
        line.ends_with(&format!(
            ", CR2 {code:#x}: a write to read-only code/data (.text, .rodata)"
        )),
        "{all}"
    );
    assert!(
        lines_starting(&report, 1, "rank 1: wrote").is_empty(),
        "{all}"
    );
}
