// SPDX-License-Identifier: MIT OR Apache-2.0
//! A core that dies without a word (a triple fault shuts its CPU down, and
//! `-no-reboot` turns that into QEMU exiting with 0) still ends the whole
//! run, and the report names it from how its QEMU exited.

use system_tests::{CoreExit, assert_failed_because_of, boot};

#[test]
fn a_triple_fault_on_core_3_of_4_fails_the_run_naming_it() {
    let report = boot(4, "triple-fault");
    // The others were waiting for core 3 in a barrier, and were stopped.
    assert_failed_because_of(
        &report,
        3,
        CoreExit::Reset,
        "core 3 failed: the guest reset the machine",
    );
}
