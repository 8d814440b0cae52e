// SPDX-License-Identifier: MIT OR Apache-2.0
//! A store to a read-only register: each core writes MYTILEID through its
//! own-CRB entry, where it reads its identity, and through its tile's CRB,
//! then reads both back. The chip ignores such stores, so both must still
//! hold what they held before; the emulator ignores them too, and warns.

use alloc::format;
use alloc::string::String;

use kernel::Platform;

/// What each core tries to write.
const JUNK: u32 = 0x5A5A_5A5A;

/// Reads the register at core-physical `address`, writes `JUNK` to it and
/// reads it back, expecting what it held before.
fn write_and_check(address: u32, what: &str) -> Result<(), String> {
    let register = address as *mut u32;
    // SAFETY: `address` is MYTILEID in a CRB, an aligned word the kernel
    // maps uncached for the whole run; silicon ignores the store.
    let (want, read) = unsafe {
        let want = register.read_volatile();
        register.write_volatile(JUNK);
        (want, register.read_volatile())
    };
    if read != want {
        return Err(format!(
            "MYTILEID through {what} reads {read:#x} after a store of {JUNK:#x}, \
             not the {want:#x} it held: the store to a read-only register took effect"
        ));
    }
    Ok(())
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let chip = platform.chip();
    let offset = chip.crb.my_tile_id;
    write_and_check(chip.own_crb_base() + offset, "the own-CRB entry")?;
    let tile = chip.tile_of(platform.core());
    write_and_check(chip.crb_base(tile) + offset, "the tile's CRB")?;
    kernel::println!("tile-id-write: MYTILEID unchanged after stores through both entries");
    Ok(())
}
