// SPDX-License-Identifier: MIT OR Apache-2.0
//! A deliberate hang: the highest-numbered core loops forever in private
//! memory, while the others wait in a barrier that never completes. The
//! run must time out naming the looping core as the one the others wait
//! for.

use crate::support::communicator;
use alloc::string::String;
use kernel::Platform;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    if platform.core().index() as u32 == platform.cores() - 1 {
        kernel::println!("looping forever");
        let mut spins: u32 = 0;
        loop {
            // Volatile, so the loop is not folded away.
            // SAFETY: `spins` is a live local; reading and writing it
            // through a pointer to it is sound.
            unsafe {
                let p = &raw mut spins;
                p.write_volatile(p.read_volatile().wrapping_add(1));
            }
        }
    }
    communicator(platform)?.barrier();
    Err("the barrier passed although one core never reached it".into())
}
