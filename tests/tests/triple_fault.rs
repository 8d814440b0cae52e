// SPDX-License-Identifier: MIT OR Apache-2.0
//! A core that dies without a word (a triple fault shuts its CPU down, and
//! `-no-reboot` turns that into QEMU exiting with 0) still ends the whole
//! run, and the report names it from how its QEMU exited.

use system_tests::{CoreExit, Outcome, assert_cleaned_up, boot, transcript};

#[test]
fn a_triple_fault_on_core_3_of_4_fails_the_run_naming_it() {
    let report = boot(4, "triple-fault");
    let all = transcript(&report);
    assert_eq!(
        report.outcome,
        Outcome::CoreFailed {
            core: 3,
            exit: CoreExit::Reset
        },
        "{all}"
    );
    assert_ne!(report.exit_code(), 0);
    assert!(
        report
            .to_string()
            .starts_with("core 3 failed: the guest reset the machine"),
        "{all}"
    );
    // The others were waiting for core 3 in a barrier, and were stopped.
    for core in &report.cores[..3] {
        assert_eq!(
            core.exit, None,
            "core {} ended by itself:\n{all}",
            core.core
        );
    }
    assert_cleaned_up(&report.chip_memory);
}
