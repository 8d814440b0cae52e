// SPDX-License-Identifier: MIT OR Apache-2.0
//! A read through a LUT entry that reaches nothing: on silicon it would
//! hang the core or return garbage, so the emulator stops the core and
//! names the entry. Reaching the end of this program is the failure.

use alloc::format;
use alloc::string::String;

use chip::{AddressMap, MemoryType};

use kernel::Scc;

/// A free entry no program points anywhere, unused since reset: the 19th
/// of the chip's free entries (150 on the SCC).
fn entry(chip: &chip::Chip) -> u8 {
    chip.address_map.shareable.first + 18
}

pub fn run(scc: &Scc, (): ()) -> Result<(), String> {
    if scc.core().index() != 0 {
        return Ok(());
    }
    let entry = entry(scc.chip());
    let base = AddressMap::entry_base(entry);
    let page = scc
        .map_free_entry(base, 4096, MemoryType::Ncm)
        .map_err(|e| format!("mapping LUT entry {entry}: {e}"))?;
    let value = page.read_u32(0);
    Err(format!(
        "read {value:#x} through LUT entry {entry}, which reaches nothing, and was not stopped"
    ))
}
