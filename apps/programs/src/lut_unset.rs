// SPDX-License-Identifier: MIT OR Apache-2.0
//! A read through a LUT entry that reaches nothing: on silicon it would
//! hang the core or return garbage, so the emulator stops the core and
//! names the entry. Reaching the end of this program is the failure.

use alloc::format;
use alloc::string::String;

use chip::{AddressMap, MemoryType};

use kernel::Scc;

/// A free entry no program points anywhere: unused since reset.
const ENTRY: u8 = 150;

pub fn run(scc: &Scc, (): ()) -> Result<(), String> {
    if scc.core().index() != 0 {
        return Ok(());
    }
    let base = AddressMap::entry_base(ENTRY);
    let page = scc
        .map_free_entry(base, 4096, MemoryType::Ncm)
        .map_err(|e| format!("mapping LUT entry {ENTRY}: {e}"))?;
    let value = page.read_u32(0);
    Err(format!(
        "read {value:#x} through LUT entry {ENTRY}, which reaches nothing, and was not stopped"
    ))
}
