// SPDX-License-Identifier: MIT OR Apache-2.0
//! Uncached (NCM) memory needs no cache maintenance: a store by one core is
//! what the other core's next load returns.
//!
//! Cores 0 and 1 play [`ROUNDS`] rounds of ping-pong through LSM without
//! any CL1INVMB, WBINVD or write-combine flush. In each round core 0 writes
//! a message (data words, then the round number in its first word); core 1
//! waits for the round number, checks the data, and answers the same way.
//! A load that returned an older value would show as wrong data or as a
//! round that never arrives. Core 0 prints the summary.

use alloc::format;
use alloc::string::String;

use crate::support::pair::Pair;
use kernel::Platform;
use kernel::platform::scc::SharedBytes;

/// Round trips.
const ROUNDS: u32 = 1000;
/// Words per message: a whole line, the first being the round number.
const WORDS: u32 = 8;
/// Offsets in LSM page 0 of core 0's and core 1's messages, away from the
/// steps' words.
const MESSAGE: [u32; 2] = [0x2000, 0x2020];
/// Polls before a round that has not arrived counts as lost: far longer
/// than a round takes.
const POLLS: u32 = 2000;

/// Word `word` of `from`'s message in round `round`.
fn data(from: u32, round: u32, word: u32) -> u32 {
    (from << 28) ^ round.wrapping_mul(0x9E37_79B9) ^ word
}

fn send(lsm: SharedBytes, from: u32, round: u32) {
    let message = MESSAGE[from as usize];
    for word in 1..WORDS {
        lsm.write_u32(message + 4 * word, data(from, round, word));
    }
    // Last: whoever sees the round number must see the data too.
    lsm.write_u32(message, round);
}

fn receive(platform: &Platform, lsm: SharedBytes, from: u32, round: u32) -> Result<(), String> {
    let message = MESSAGE[from as usize];
    let seen = platform.wait_at_most(POLLS, || {
        let seen = lsm.read_u32(message);
        (seen == round).then_some(())
    });
    if seen.is_none() {
        return Err(format!(
            "round {round}: core {from}'s message never arrived (its round word holds {}): an uncached store stayed invisible",
            lsm.read_u32(message)
        ));
    }
    for word in 1..WORDS {
        let (found, expected) = (lsm.read_u32(message + 4 * word), data(from, round, word));
        if found != expected {
            return Err(format!(
                "round {round}: word {word} of core {from}'s message holds {found:#010x}, expected {expected:#010x}: an older uncached store was read"
            ));
        }
    }
    Ok(())
}

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let Some(pair) = Pair::new(platform, "ncm-fresh")? else {
        return Ok(());
    };
    let lsm = platform.lsm(0);
    let (me, other) = if pair.is_writer() { (0, 1) } else { (1, 0) };
    for round in 1..=ROUNDS {
        if me == 0 {
            send(lsm, me, round);
            receive(platform, lsm, other, round)?;
        } else {
            receive(platform, lsm, other, round)?;
            send(lsm, me, round);
        }
    }
    // Core 0 got the last answer, so core 1 has checked every message.
    if me == 0 {
        kernel::println!(
            "ncm-fresh: {ROUNDS} round trips of {WORDS}-word messages, every value seen at once, no cache maintenance"
        );
    }
    Ok(())
}
