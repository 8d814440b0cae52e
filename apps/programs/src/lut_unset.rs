// SPDX-License-Identifier: MIT OR Apache-2.0
//! A read through a LUT entry that reaches nothing: on silicon it would
//! hang the core or return garbage, so the emulator stops the core and
//! names the entry, and who wrote it. Reaching the end of this program is
//! the failure.
//!
//! [`run`]: core 0 reads through an entry nobody wrote since reset.
//! [`run_remote`]: core 1 points an entry of core 0's LUT at core 0's own
//! private DRAM, which the emulator does not share, through their tile's
//! CRB; core 0 then reads through it.

use alloc::format;
use alloc::string::String;

use chip::{AddressMap, CoreId, MemoryType};

use crate::support::communicator;
use kernel::Platform;

/// A free entry no program points anywhere, unused since reset: the 19th
/// of the chip's free entries (150 on the SCC).
fn entry(chip: &chip::Chip) -> u8 {
    chip.address_map.shareable.first + 18
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    if platform.core().index() != 0 {
        return Ok(());
    }
    let entry = entry(platform.chip());
    let base = AddressMap::entry_base(entry);
    let page = platform
        .map_free_entry(base, 4096, MemoryType::Ncm)
        .map_err(|e| format!("mapping LUT entry {entry}: {e}"))?;
    let value = page.read_u32(0);
    Err(format!(
        "read {value:#x} through LUT entry {entry}, which reaches nothing, and was not stopped"
    ))
}

/// The free entry [`run_remote`] makes bad: the 20th (151 on the SCC).
fn remote_entry(chip: &chip::Chip) -> u8 {
    chip.address_map.shareable.first + 19
}

/// Points entry `entry` of `core`'s LUT at that core's private DRAM page 1,
/// through its tile's CRB: a write of another core's LUT that no kernel
/// call makes.
#[inline(never)]
fn point_at_private_dram(platform: &Platform, core: CoreId, entry: u8) {
    let private = platform.chip().default_lut(core)[1].encode();
    let register = platform.chip().lut_entry_addr(core, usize::from(entry)) as *mut u32;
    // SAFETY: an aligned LUT register in a CRB, which the kernel maps
    // uncached for the whole run; core 0 reaches nothing through the
    // entry before this write, and only this program's read after it.
    unsafe { register.write_volatile(private) };
}

pub fn run_remote(platform: &Platform, (): ()) -> Result<(), String> {
    let chip = platform.chip();
    let entry = remote_entry(chip);
    let mut comm = communicator(platform)?;
    if platform.core().index() == 1 {
        point_at_private_dram(platform, platform.participant(0), entry);
    }
    comm.barrier();
    if platform.core().index() == 0 {
        let base = AddressMap::entry_base(entry);
        let page = platform
            .map_free_entry(base, 4096, MemoryType::Ncm)
            .map_err(|e| format!("mapping LUT entry {entry}: {e}"))?;
        let value = page.read_u32(0);
        return Err(format!(
            "read {value:#x} through LUT entry {entry}, which core 1 pointed at this core's \
             private DRAM, and was not stopped"
        ));
    }
    // Never passed: core 0 is stopped first.
    comm.barrier();
    Err("the second barrier passed although core 0 was to be stopped".into())
}
