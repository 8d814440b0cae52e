// SPDX-License-Identifier: MIT OR Apache-2.0
//! Stores to read-only registers: ignored, as silicon ignores them, and
//! reported once each.

use system_tests::{assert_clean_success, boot, lines_starting, transcript};

/// Each of two cores writes MYTILEID through its own-CRB entry and its
/// tile's CRB and reads it back unchanged; the run succeeds, with one
/// warning per store naming the register, the core and the instruction,
/// which the report places in the program.
#[test]
fn stores_to_mytileid_are_ignored_and_each_is_warned_of_once_with_its_place() {
    let report = boot(2, "tile-id-write");
    assert_clean_success(&report, 2);
    let all = transcript(&report);
    for core in 0..2 {
        assert_eq!(
            lines_starting(&report, core, "tile-id-write: "),
            ["tile-id-write: MYTILEID unchanged after stores through both entries"],
            "{all}"
        );
    }
    let warnings = report.warnings();
    assert_eq!(warnings.len(), 4, "{all}");
    let text = report.to_string();
    for (i, warning) in warnings.iter().enumerate() {
        let core = i / 2;
        let register = if i % 2 == 0 {
            "MYTILEID of its own CRB".to_owned()
        } else {
            "MYTILEID of the CRB of tile 0".to_owned()
        };
        let start = format!(
            "warning: core {core} wrote read-only register {register} once, at instruction 0x"
        );
        assert!(warning.starts_with(&start), "{all}");
        assert!(
            warning.ends_with(": the chip ignores such stores, and so did the emulator"),
            "{all}"
        );
        let insn = &warning[start.len()..start.len() + 8];
        let at = text
            .find(warning.as_str())
            .unwrap_or_else(|| panic!("{all}"));
        let place = format!("{warning}\n  0x{insn} at ");
        assert!(text[at..].starts_with(&place), "{all}");
        let placed = text[at..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("  "));
        assert!(
            placed
                .into_iter()
                .any(|l| l
                    .contains("programs::tile_id_write::run (apps/programs/src/tile_id_write.rs:")),
            "{all}"
        );
    }
}
