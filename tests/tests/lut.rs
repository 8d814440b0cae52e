// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every core's LUT, read back through its tile's CRB, holds the default
//! layout the chip definition gives.

use chip::Chip;
use system_tests::{
    CHIP, CoreExit, assert_failed_because_of, boot, boot_ok_on, boot_on, lines_starting, transcript,
};

/// Boots `lut` on `cores` cores of `chip`: each finds its default layout.
fn lut_on(chip: &'static Chip, cores: u32) {
    let report = boot_ok_on(chip, cores, "lut");
    for core in 0..cores {
        assert_eq!(
            lines_starting(&report, core, "lut: "),
            ["lut: 256 entries match the default layout"],
            "core {core}:\n{}",
            transcript(&report)
        );
    }
}

#[test]
fn lut_on_48_cores_reads_back_the_default_layout() {
    lut_on(CHIP, CHIP.cores());
}

#[test]
fn lut_on_24_cores_of_the_8x8_chip_reads_back_its_layout() {
    lut_on(&chip::MESH8X8, 24);
}

/// Boots `lut-unset` on one core of `chip`: the model stops it at its
/// read through free entry `entry` (the chip's 19th), which it names, and
/// says no core wrote the entry.
fn unset_on(chip: &'static Chip, entry: u8) {
    let report = boot_on(chip, 1, "lut-unset");
    assert_failed_because_of(
        &report,
        0,
        CoreExit::StoppedByModel,
        "core 0 failed: the chip model stopped it (its reason is below)",
    );
    assert_eq!(
        report.cores[0].stderr,
        [format!(
            "emu: core 0: core-physical {:#010x}: LUT entry {entry} (0x000000) names core port \
          Core0 of router (0, 0), which has no memory behind it (an unused entry); LUT entry \
          {entry} holds its value from reset: no core wrote it",
            u32::from(entry) << 24
        )],
        "{}",
        transcript(&report)
    );
}

#[test]
fn a_read_through_a_lut_entry_that_reaches_nothing_stops_the_core_naming_it() {
    unset_on(CHIP, 150);
}

#[test]
fn the_8x8_chip_stops_a_read_through_its_unused_entry_too() {
    unset_on(&chip::MESH8X8, 42);
}

/// Core 1 points entry 151 of core 0's LUT at core 0's private DRAM; core
/// 0 reads through it: the model stops core 0, naming the entry, core 1
/// and core 1's store, which the report places in the program.
#[test]
fn a_read_through_an_entry_another_core_wrote_names_the_writer_and_its_instruction() {
    let report = boot(2, "lut-unset-remote");
    assert_failed_because_of(
        &report,
        0,
        CoreExit::StoppedByModel,
        "core 0 failed: the chip model stopped it (its reason is below)",
    );
    let all = transcript(&report);
    let [line] = report.cores[0].stderr.as_slice() else {
        panic!("one reason expected:\n{all}");
    };
    let start = "emu: core 0: Load at 0x97000000 (instruction 0x";
    let middle = "): LUT entry 151 targets Dram { controller: 0, page: 1 }, memory the emulator \
                  does not share; core 1 wrote LUT entry 151 last, at instruction 0x";
    assert!(line.starts_with(start) && line.contains(middle), "{all}");
    let writer = &line[line.find(middle).unwrap() + middle.len()..];
    assert_eq!(writer.len(), 8, "{all}");
    let text = report.to_string();
    let place = format!("    0x{writer} at ");
    let at = text.find(&place).unwrap_or_else(|| panic!("{all}"));
    assert!(
        text[at..].contains("inlined into programs::lut_unset::point_at_private_dram (apps/programs/src/lut_unset.rs:"),
        "{all}"
    );
}
