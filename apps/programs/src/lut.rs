// SPDX-License-Identifier: MIT OR Apache-2.0
//! Each core reads its 256 LUT entries back through its tile's CRB and
//! compares them with the chip definition's default layout.

use alloc::format;
use alloc::string::String;

use chip::LUT_ENTRIES;

use kernel::Platform;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let expected = platform.chip().default_lut(platform.core());
    for (index, want) in expected.iter().enumerate() {
        let found = platform.lut_entry(platform.core(), index);
        if found != *want {
            return Err(format!(
                "LUT entry {index} holds {:#08x} ({found:?}), the default layout has {:#08x} ({want:?})",
                found.encode(),
                want.encode()
            ));
        }
    }
    kernel::println!("lut: {LUT_ENTRIES} entries match the default layout");
    Ok(())
}
