// SPDX-License-Identifier: MIT OR Apache-2.0
//! Host-time benchmark: the token ring of `ring`, for many laps, with a
//! payload checked on every hop.
//!
//! The token is a payload of 16 words in the first two MPB lines rma leaves
//! to programs, and a hop count in the third: the flag in a line of its
//! own, as SCC message passing keeps it, so the payload lines have left the
//! write-combine buffer before the count is written. A core waits for the
//! hop count it expects in its own MPB, checks the payload the sender
//! derived from that count, and writes the next token into the next core's
//! MPB, with the SCC's discipline: CL1INVMB before reading MPB data and
//! before writing it, the payload before the hop count, and a write-combine
//! buffer flush after. A stale or torn token fails the run.
//!
//! A lap costs a hop per core, and on a large ring each hop costs more:
//! the next core has waited a whole lap and sleeps up to 2 ms between
//! polls. So the laps shrink with the square of the core count (see
//! [`laps`]), which keeps a run to a few seconds of plain QEMU on 2 cores
//! and on 48. `cargo xtask bench overhead` runs it plain and modeled to
//! measure what the model costs on MPB traffic.

use alloc::format;
use alloc::string::String;

use rma::comm::PROGRAM_LINES;

use kernel::Platform;

/// Bytes in a line, as an MPB offset.
const LINE: u32 = kernel::chip::CACHE_LINE as u32;

/// Laps of a ring of `cores` cores: 10000 on 2 cores, 50 on 48.
const fn laps(cores: u32) -> u32 {
    let laps = 40_000 / (cores * cores);
    if laps < 50 {
        50
    } else if laps > 10_000 {
        10_000
    } else {
        laps
    }
}

/// Payload words: two whole lines.
const PAYLOAD: u32 = 2 * LINE / 4;

/// The hop count: the first word of the line after the payload.
const HOPS: u32 = PROGRAM_LINES + 2 * LINE;

/// Offset of payload word `j`.
const fn payload(j: u32) -> u32 {
    PROGRAM_LINES + 4 * j
}

/// Payload word `j` of the token whose hop count is `hops`.
const fn expected(hops: u32, j: u32) -> u32 {
    hops.wrapping_mul(0x9E37_79B9) ^ j
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let me = platform.core().index() as u32;
    let cores = platform.cores();
    let laps = laps(cores);
    let next = platform.mpb(platform.participant((me + 1) % cores));
    let own = platform.own_mpb();

    let receive = |hops: u32| -> Result<(), String> {
        platform.wait_for(|| {
            platform.invalidate_mpbt();
            (own.read_u32(HOPS) == hops).then_some(())
        });
        for j in 0..PAYLOAD {
            let word = own.read_u32(payload(j));
            if word != expected(hops, j) {
                return Err(format!(
                    "hop {hops}: payload word {j} is {word:#x}, not {:#x}",
                    expected(hops, j)
                ));
            }
        }
        Ok(())
    };
    let pass = |hops: u32| {
        platform.invalidate_mpbt();
        // The payload lines, then the count's line: writing it pushes the
        // last payload line out of the write-combine buffer, so whoever
        // sees the count sees the payload too.
        for j in 0..PAYLOAD {
            next.write_u32(payload(j), expected(hops, j));
        }
        next.write_u32(HOPS, hops);
        platform.flush_wcb();
    };

    // Core k receives hop lap * cores + k; core 0 receives the end of each
    // lap, hop (lap + 1) * cores, and starts the next.
    for lap in 0..laps {
        if me == 0 {
            pass(lap * cores + 1);
            receive((lap + 1) * cores)?;
        } else {
            receive(lap * cores + me)?;
            pass(lap * cores + me + 1);
        }
    }
    if me == 0 {
        kernel::println!(
            "bench-mpb: {laps} laps of {cores} cores, {} hops of {} bytes, every payload checked",
            laps * cores,
            PAYLOAD * 4
        );
    }
    Ok(())
}
