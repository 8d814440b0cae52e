// SPDX-License-Identifier: MIT OR Apache-2.0
//! Host-time benchmark: a loop over private memory, nothing shared.
//!
//! The core sweeps a buffer of private words, larger than L1 and smaller
//! than L2, loading and storing every word on each pass: about 500 million
//! accesses, each one through QEMU's memory path (and the chip model's,
//! when it runs). Then every word is checked against what the passes must
//! have added. `cargo xtask bench overhead` runs it on one core, plain and
//! modeled, to measure what the model costs on private memory.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use kernel::Platform;

/// Words in the buffer: 64 KiB.
const WORDS: u32 = 16 * 1024;

/// Passes over the buffer: 2 * WORDS * PASSES, about 500 million, loads
/// and stores in all (a few seconds of plain QEMU).
const PASSES: u32 = 15_000;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let mut words: Vec<u32> = (0..WORDS).collect();
    let base = words.as_mut_ptr();
    for pass in 0..PASSES {
        for i in 0..WORDS as usize {
            // SAFETY: `i` is inside `words`, which nothing else borrows
            // while the loop runs. Volatile, so that every load and store
            // happens rather than being folded or vectorised away.
            unsafe {
                let word = base.add(i);
                word.write_volatile(word.read_volatile().wrapping_add(pass));
            }
        }
    }
    // Each word i now holds i + (0 + 1 + ... + PASSES - 1).
    let added = PASSES * (PASSES - 1) / 2;
    let mut checksum = 0u32;
    for (i, &word) in (0u32..).zip(&words) {
        if word != i.wrapping_add(added) {
            return Err(format!(
                "word {i} holds {word:#x}, not {:#x}",
                i.wrapping_add(added)
            ));
        }
        checksum = checksum.wrapping_add(word);
    }
    kernel::println!(
        "bench-private: core {}: {} loads and stores on {} KiB of private memory, every word checked, checksum {checksum:#010x}",
        platform.core().index(),
        2 * u64::from(WORDS) * u64::from(PASSES),
        WORDS * 4 / 1024
    );
    Ok(())
}
