// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bandwidth of one memory controller against the number of cores
//! streaming from its memory: every core of the run reads its own part
//! of core 0's shareable DRAM (POPSHM, behind controller 0), a word at a
//! time, each line missing to DRAM. The host runs it on several core
//! counts; result lines `BENCH dram-bandwidth procs=<n> bytes=<b>`, where
//! a sample is one round on core 0, from a barrier before the cores'
//! sweeps to a barrier after them, and `bytes` what all `n` cores read in
//! it.
//!
//! The parts are mapped MPBT write-back: L1 caches their lines and L2
//! does not, and the MPBT lines are invalidated before each sweep, so
//! every line of every sweep is a fill from the controller.
//!
//! Check: each core writes a pattern of its own into its part before the
//! rounds; every sweep sums what it read, which must be the pattern's sum.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use rma::chip::MemoryType;
use rma::hal::DramPages;

use super::{Scaled, emit};
use crate::support::communicator;
use kernel::Platform;
use kernel::platform::scc::SharedBytes;

pub fn run(platform: &Platform, settings: Scaled) -> Result<(), String> {
    let mut comm = communicator(platform)?;
    let (n, me) = (comm.size(), comm.rank());
    let part: u32 = settings.scale.pick(8, 16) << 10;
    let rounds: u32 = settings.scale.pick(5, 21);
    let chip = platform.chip();
    let slot = chip.address_map.shareable.first;
    let mut pages = DramPages::popshm(chip, platform.participant(0));
    pages.count = 1;
    platform.map_shared_dram(slot, pages, MemoryType::MpbtWb)
        .map_err(|e| format!("mapping core 0's POPSHM page: {e:?}"))?;
    let at = me * part;
    let area = platform.shared_dram(slot, at, part as usize);
    let words = part / 4;
    let mut expected = 0u32;
    for i in 0..words {
        area.write_u32(at + 4 * i, word(me, i));
        expected = expected.wrapping_add(word(me, i));
    }
    platform.flush_wcb();
    platform.write_back_l1();
    let mut samples = Vec::with_capacity(rounds as usize);
    for round in 0..rounds {
        platform.invalidate_mpbt();
        comm.barrier();
        let start = platform.now();
        let sum = sweep(area, at, words);
        comm.barrier();
        samples.push(platform.now() - start);
        if sum != expected {
            return Err(format!(
                "core {me}, round {round}: its {part} bytes sum to {sum:#x}, expected {expected:#x}"
            ));
        }
    }
    platform.unmap_shared_dram(slot);
    if me == 0 {
        emit(
            "dram-bandwidth",
            &format!("procs={n}"),
            Some(u64::from(n * part)),
            &samples,
        );
        kernel::println!(
            "bench-dram-bandwidth: {n} cores read {part} bytes each from controller {} in {rounds} rounds, every sum checked",
            pages.controller
        );
    }
    Ok(())
}

/// The word core `core` writes at index `i` of its part.
fn word(core: u32, i: u32) -> u32 {
    (core << 24 ^ i).wrapping_mul(0x9E37_79B9)
}

/// Loads `words` words from `at` up; their sum, so the loads stay.
#[inline(never)]
fn sweep(area: SharedBytes, at: u32, words: u32) -> u32 {
    let p: *const u32 = area.as_ptr().wrapping_add(at as usize).cast();
    let mut sum = 0u32;
    for i in 0..words as usize {
        // SAFETY: `shared_dram` mapped the pages of the part's `4 * words`
        // bytes from `at`, within the mapped LUT page, and `at` is a
        // multiple of the part's size, so the words are aligned.
        sum = sum.wrapping_add(unsafe { p.add(i).read_volatile() });
    }
    sum
}
