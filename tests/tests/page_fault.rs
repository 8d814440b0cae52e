// SPDX-License-Identifier: MIT OR Apache-2.0
//! A core that faults ends the whole run, and the report names it.

use system_tests::{CoreExit, assert_failed_because_of, boot, hex, transcript};

/// The error code, EIP and CR2 of an exception line for a page fault on `core`.
fn page_fault(line: &str, core: u32) -> Option<(u32, u32, u32)> {
    let rest = line.strip_prefix(&format!(
        "EXCEPTION on core {core}: page fault (vector 14), error code "
    ))?;
    let (code, rest) = hex(rest)?;
    let (eip, rest) = hex(rest.strip_prefix(", EIP ")?)?;
    let (cr2, rest) = hex(rest.strip_prefix(", CR2 ")?)?;
    rest.is_empty().then_some((code, eip, cr2))
}

#[test]
fn exception_lines_are_parsed() {
    let line =
        "EXCEPTION on core 7: page fault (vector 14), error code 0x0, EIP 0x1034a2, CR2 0xbf000000";
    assert_eq!(page_fault(line, 7), Some((0, 0x1034a2, 0xbf00_0000)));
    assert_eq!(page_fault(line, 6), None);
    assert_eq!(page_fault(&format!("{line} and more"), 7), None);
}

#[test]
fn a_page_fault_on_core_7_of_8_fails_the_run_naming_it() {
    let report = boot(8, "page-fault");
    let all = transcript(&report);
    // The others were waiting for core 7 in a barrier, and were stopped.
    assert_failed_because_of(
        &report,
        7,
        CoreExit::GuestFailure,
        "core 7 failed: the guest reported failure",
    );
    let faults: Vec<_> = report
        .serial(7)
        .iter()
        .filter_map(|line| page_fault(line, 7))
        .collect();
    assert_eq!(faults.len(), 1, "{all}");
    let (_, eip, cr2) = faults[0];
    assert_eq!(cr2, 0xBF00_0000, "{all}");
    // Under the exception line, the report says where EIP is: in the
    // program's function (the read itself may be inlined from core).
    let text = report.to_string();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.starts_with("  [core 07] EXCEPTION on core 7: page fault"))
        .unwrap_or_else(|| panic!("no exception line in the report:\n{text}"));
    assert!(
        lines[at + 1].starts_with(&format!("            {eip:#010x} at ")),
        "{text}"
    );
    let place: Vec<&str> = lines[at + 1..]
        .iter()
        .take_while(|line| !line.starts_with("  [core"))
        .copied()
        .collect();
    assert!(
        place.iter().any(
            |line| line.contains("programs::page_fault::run (apps/programs/src/page_fault.rs:")
        ),
        "{text}"
    );
}
