// SPDX-License-Identifier: MIT OR Apache-2.0
//! The write-combine buffer holds a core's MPB stores back until it is
//! flushed.
//!
//! Core 0 writes a word of core 1's MPB half without flushing: the store
//! misses L1 and waits in core 0's write-combine buffer, so core 1, reading
//! with CL1INVMB before every read, must still get the old value. Once core
//! 0 flushes the buffer (a write to another line), core 1 must get the new
//! value. Core 1 prints the summary.

use alloc::string::String;
use rma::comm::PROGRAM_LINES;

use crate::support::pair::{Pair, unexpected};
use kernel::Platform;

/// Bytes in a line, as an MPB offset.
const LINE: u32 = kernel::chip::CACHE_LINE as u32;

/// The word: third program line of core 1's MPB half.
const WORD: u32 = PROGRAM_LINES + 2 * LINE;
const OLD: u32 = 0x3333_3333;
const NEW: u32 = 0x4444_4444;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let Some(mut pair) = Pair::new(platform, "wcb")? else {
        return Ok(());
    };
    let line = platform.mpb(platform.participant(1));
    if pair.is_writer() {
        line.write_u32(WORD, OLD);
        platform.flush_wcb();
        pair.step();
        // Core 1 checks it sees OLD.
        pair.step();
        // Not cached here (never loaded), so the store goes to the buffer
        // and stays there: the steps' uncached stores do not flush it.
        platform.invalidate_mpbt();
        line.write_u32(WORD, NEW);
        pair.step();
        // Core 1 reads while the buffer holds NEW.
        pair.step();
        platform.flush_wcb();
        pair.step();
        return Ok(());
    }
    let own = platform.own_mpb();
    let read = || {
        platform.invalidate_mpbt();
        own.read_u32(WORD)
    };
    pair.step();
    let first = read();
    if first != OLD {
        return Err(unexpected(
            "core 1's first read",
            first,
            OLD,
            "core 0's first write, flushed, must be in the MPB",
        ));
    }
    pair.step();
    // Core 0 writes NEW into its buffer.
    pair.step();
    let buffered = read();
    if buffered != OLD {
        return Err(unexpected(
            "core 1's read while core 0 had not flushed",
            buffered,
            OLD,
            "core 0's store must wait in its write-combine buffer until a flush",
        ));
    }
    pair.step();
    // Core 0 flushes.
    pair.step();
    let flushed = read();
    if flushed != NEW {
        return Err(unexpected(
            "core 1's read after core 0's flush",
            flushed,
            NEW,
            "the flush must write the buffer to the MPB",
        ));
    }
    kernel::println!(
        "wcb: core 1 read {buffered:#010x} while core 0's write of {NEW:#010x} sat in its write-combine buffer, and {flushed:#010x} after the flush"
    );
    Ok(())
}
