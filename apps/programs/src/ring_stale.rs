// SPDX-License-Identifier: MIT OR Apache-2.0
//! The default ring (`ring.rs`) with one mistake: a core waiting for the
//! token polls its MPB line without CL1INVMB. Its first poll brings the
//! empty line into L1 and every later poll reads that copy, so on a
//! non-coherent chip the token never seems to arrive.
//!
//! So that this is certain rather than a race with the token, every core
//! reads its empty token line once (its L1 now holds it) and says so in an
//! uncached word in LSM; core 0 starts the token once all have, and the
//! others start waiting for it then (a barrier would invalidate the lines). No core waits forever: after [`POLLS`]
//! polls it invalidates and looks once more. A token found then was there
//! all along, and the core fails reporting a stale line. No token means
//! its predecessor never passed it (stuck the same way), so it keeps
//! polling for a few more rounds before failing too. The first core to
//! fail is thus one whose predecessor did pass the token: core 1.

use alloc::format;
use alloc::string::String;

use rma::comm::BarrierAlgorithm;
use rma::comm::PROGRAM_LINES;

use crate::support::{communicator, print_identity};
use kernel::Platform;

/// The token, as in `ring.rs`: hops so far (0 = no token), then the sum.
const HOPS: u32 = PROGRAM_LINES;
const SUM: u32 = PROGRAM_LINES + 4;
/// Offset in LSM page 0 of core 0's "my token line is cached" word; core
/// `n`'s is `4 n` bytes further.
const CACHED: u32 = 0x3000;
/// Polls before a core looks with CL1INVMB whether the token is there:
/// seconds, against milliseconds for the token to go around.
const POLLS: u32 = 1000;
/// Rounds of [`POLLS`] a core waits for a predecessor that never passed
/// the token, before failing.
const ROUNDS: u32 = 6;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    print_identity(platform);
    let me = platform.core().index() as u32;
    let cores = platform.cores();
    let prev = (me + cores - 1) % cores;
    let next = platform.mpb(platform.participant((me + 1) % cores));
    let own = platform.own_mpb();
    let lsm = platform.lsm(0);
    let mut comm = communicator(platform)?;

    // Cache the empty token line, then tell core 0.
    let _ = own.read_u32(HOPS);
    lsm.write_u32(CACHED + 4 * me, 1);

    let wait_for_token = || -> Result<(u32, u32), String> {
        for _ in 0..ROUNDS {
            // The mistake: no CL1INVMB before reading the line.
            let token = platform.wait_at_most(POLLS, || {
                let hops = own.read_u32(HOPS);
                (hops != 0).then(|| (hops, own.read_u32(SUM)))
            });
            if let Some(token) = token {
                return Ok(token);
            }
            platform.invalidate_mpbt();
            let hops = own.read_u32(HOPS);
            if hops != 0 {
                return Err(format!(
                    "stale: the token from core {prev} (hop {hops}) is in this core's MPB, but {POLLS} polls without CL1INVMB kept reading the empty line cached in L1"
                ));
            }
        }
        Err(format!(
            "no token from core {prev} after {} polls: it never passed it",
            ROUNDS * POLLS
        ))
    };
    let pass_token = |hops: u32, sum: u32| {
        // The sum goes first: whoever sees the hop count sees the sum too.
        platform.invalidate_mpbt();
        next.write_u32(SUM, sum);
        next.write_u32(HOPS, hops);
        platform.flush_wcb();
    };

    // Every core waits until all have cached their line, so that the
    // polls' time limits count from when core 0 can start the token,
    // however long each core took to boot (cores behind a busier memory
    // controller take longer).
    platform.wait_for(|| {
        (0..cores)
            .all(|n| lsm.read_u32(CACHED + 4 * n) == 1)
            .then_some(())
    });
    if me == 0 {
        pass_token(1, 1);
        let (hops, sum) = wait_for_token()?;
        let expected = cores * (cores + 1) / 2;
        comm.barrier_with(BarrierAlgorithm::Central);
        kernel::println!(
            "ring-stale summary: {cores} cores, token made {hops} hops, sum {sum} (expected {expected}), barrier passed"
        );
        if hops != cores || sum != expected {
            return Err(format!(
                "the token came back with {hops} hops and sum {sum}"
            ));
        }
    } else {
        let (hops, sum) = wait_for_token()?;
        pass_token(hops + 1, sum + me + 1);
        comm.barrier_with(BarrierAlgorithm::Central);
    }
    Ok(())
}
