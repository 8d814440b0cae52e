// SPDX-License-Identifier: MIT OR Apache-2.0
//! A deliberate crash: the highest-numbered core reads memory that is not
//! mapped, while the others wait in a barrier that never completes. The
//! run must end with a report naming the faulting core.

use crate::support::communicator;
use alloc::string::String;
use kernel::Platform;

/// LUT entry 191: in the free range, never mapped at boot.
const UNMAPPED: u32 = 0xBF00_0000;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    if platform.core().index() as u32 == platform.cores() - 1 {
        kernel::println!("reading unmapped address {UNMAPPED:#x}");
        // SAFETY: deliberately faults; the page-fault handler ends the run.
        let value = unsafe { (UNMAPPED as *const u32).read_volatile() };
        return Err(alloc::format!(
            "read {value:#x} from an unmapped address without a fault"
        ));
    }
    communicator(platform)?.barrier();
    Err("the barrier passed although one core crashed".into())
}
