// SPDX-License-Identifier: MIT OR Apache-2.0
//! A deliberate crash: the highest-numbered core recurses without end,
//! while the others wait in a barrier that never completes. The recursion
//! runs into the guard page below the stack, and the run must end with a
//! report of a stack overflow naming the core and the recursing function.

use alloc::string::String;
use core::hint::black_box;

use crate::support::communicator;
use kernel::Platform;

/// Calls itself `depth` times, each frame holding 64 words the optimiser
/// cannot drop or turn into a loop.
#[inline(never)]
fn recurse(depth: u32) -> u32 {
    let frame = black_box([depth; 64]);
    if depth == 0 {
        return frame[1];
    }
    recurse(depth - 1).wrapping_add(black_box(frame)[63])
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    if platform.core().index() as u32 == platform.cores() - 1 {
        kernel::println!("recursing without end");
        // Some 270 bytes a frame: a million frames are far more than any stack.
        let sum = recurse(black_box(1_000_000));
        return Err(alloc::format!(
            "a million nested calls returned {sum} without a stack overflow"
        ));
    }
    communicator(platform)?.barrier();
    Err("the barrier passed although one core crashed".into())
}
