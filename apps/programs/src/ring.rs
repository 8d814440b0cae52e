// SPDX-License-Identifier: MIT OR Apache-2.0
//! The default program: a token travels once around a ring of all cores.
//!
//! Each core waits for the token in its own MPB, adds its number plus one
//! to the running sum and writes the token into the next core's MPB. The
//! first core starts it and checks what comes back: as many hops as cores,
//! and the sum 1 + 2 + ... + N.

use alloc::format;
use alloc::string::String;

use rma::comm::BarrierAlgorithm;
use rma::comm::PROGRAM_LINES;

use crate::support::{communicator, print_identity};
use kernel::Platform;

/// The token: hops so far (0 = no token), then the running sum, in the
/// first of the MPB lines rma leaves to programs.
const HOPS: u32 = PROGRAM_LINES;
const SUM: u32 = PROGRAM_LINES + 4;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    print_identity(platform);
    let me = platform.core().index() as u32;
    let cores = platform.cores();
    let next = platform.mpb(platform.participant((me + 1) % cores));
    let own = platform.own_mpb();
    let mut comm = communicator(platform)?;

    let wait_for_token = || {
        platform.wait_for(|| {
            platform.invalidate_mpbt();
            let hops = own.read_u32(HOPS);
            (hops != 0).then(|| (hops, own.read_u32(SUM)))
        })
    };
    let pass_token = |hops: u32, sum: u32| {
        // The sum goes first: whoever sees the hop count sees the sum too.
        platform.invalidate_mpbt();
        next.write_u32(SUM, sum);
        next.write_u32(HOPS, hops);
        platform.flush_wcb();
    };

    if me == 0 {
        pass_token(1, 1);
        let (hops, sum) = wait_for_token();
        let expected = cores * (cores + 1) / 2;
        comm.barrier_with(BarrierAlgorithm::Central);
        kernel::println!(
            "ring summary: {cores} cores, token made {hops} hops, sum {sum} (expected {expected}), barrier passed"
        );
        if hops != cores || sum != expected {
            return Err(format!(
                "the token came back with {hops} hops and sum {sum}"
            ));
        }
    } else {
        let (hops, sum) = wait_for_token();
        pass_token(hops + 1, sum + me + 1);
        comm.barrier_with(BarrierAlgorithm::Central);
    }
    Ok(())
}
