// SPDX-License-Identifier: MIT OR Apache-2.0
//! An MPBT line in L1 goes stale: nothing tells a core that another wrote
//! the line it caches, until it drops its MPBT lines with CL1INVMB.
//!
//! Core 1 loads a word of its MPB half, which caches the line in its L1.
//! Core 0 then writes a new value there and flushes its write-combine
//! buffer, so memory holds the new value. Core 1 reads again without
//! CL1INVMB and must get the old value from its L1; after CL1INVMB it must
//! get the new one. Core 1 prints the summary.

use alloc::string::String;
use rma::comm::PROGRAM_LINES;

use crate::support::pair::{Pair, unexpected};
use kernel::Platform;

/// Bytes in a line, as an MPB offset.
const LINE: u32 = kernel::chip::CACHE_LINE as u32;

/// The word: second program line of core 1's MPB half.
const WORD: u32 = PROGRAM_LINES + LINE;
const OLD: u32 = 0x1111_1111;
const NEW: u32 = 0x2222_2222;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let Some(mut pair) = Pair::new(platform, "stale-mpbt")? else {
        return Ok(());
    };
    let line = platform.mpb(platform.participant(1));
    if pair.is_writer() {
        line.write_u32(WORD, OLD);
        platform.flush_wcb();
        pair.step();
        // Core 1 caches the line.
        pair.step();
        // Not cached here, so the store goes to the write-combine buffer,
        // which the flush empties into the MPB.
        platform.invalidate_mpbt();
        line.write_u32(WORD, NEW);
        platform.flush_wcb();
        pair.step();
        return Ok(());
    }
    let own = platform.own_mpb();
    pair.step();
    platform.invalidate_mpbt();
    let first = own.read_u32(WORD);
    if first != OLD {
        return Err(unexpected(
            "core 1's first read",
            first,
            OLD,
            "core 0's first write, flushed, must be in the MPB",
        ));
    }
    pair.step();
    // Core 0 writes NEW and flushes it.
    pair.step();
    let cached = own.read_u32(WORD);
    platform.invalidate_mpbt();
    let fresh = own.read_u32(WORD);
    if cached != OLD {
        return Err(unexpected(
            "core 1's read without CL1INVMB",
            cached,
            OLD,
            "the stale copy in its L1; reading the new value means its L1 did not keep the line",
        ));
    }
    if fresh != NEW {
        return Err(unexpected(
            "core 1's read after CL1INVMB",
            fresh,
            NEW,
            "core 0's flushed write; CL1INVMB must drop the stale line",
        ));
    }
    kernel::println!(
        "stale-mpbt: core 1 read {cached:#010x} from its cached MPB line after core 0 wrote {NEW:#010x} (stale), and {fresh:#010x} after CL1INVMB"
    );
    Ok(())
}
