// SPDX-License-Identifier: MIT OR Apache-2.0
//! Barrier latency per algorithm against the core count: every core times
//! each of a run of back-to-back barriers, for rma's central (TSR counter)
//! and dissemination barriers. The host runs it on several core counts;
//! result lines `BENCH barrier algorithm=<a> procs=<n>`, pooled over cores.
//!
//! Check: a barrier must not let a core through before every core arrived.
//! Before each barrier every core writes the barrier's number into its own
//! line of its MPB (one word for odd barriers, one for even ones, so that
//! no core writes a word again before every core read it); after it, a
//! core reads a random other core's word, which must hold that number.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use rma::comm::BarrierAlgorithm;
use rma::comm::PROGRAM_LINES;

use super::{Rng, Scaled, emit};
use crate::support::communicator;
use kernel::Platform;

pub fn run(platform: &Platform, settings: Scaled) -> Result<(), String> {
    let mut comm = communicator(platform)?;
    let (n, me) = (comm.size(), comm.rank());
    let rounds: u32 = settings.scale.pick(100, 1000);
    let mut rng = Rng::new(u64::from(me));
    let mark = PROGRAM_LINES;
    let mut episode = 0u32;
    for (algorithm, name) in [
        (BarrierAlgorithm::Central, "central"),
        (BarrierAlgorithm::Dissemination, "dissemination"),
    ] {
        let mut samples = Vec::with_capacity(rounds as usize);
        for _ in 0..rounds {
            episode += 1;
            // The mark leaves the write-combine buffer before the barrier.
            platform.invalidate_mpbt();
            platform.own_mpb().write_u32(mark + 4 * (episode % 2), episode);
            platform.flush_wcb();
            let start = platform.now();
            comm.barrier_with(algorithm);
            samples.push(platform.now() - start);
            if n > 1 {
                let other = (me + 1 + rng.below(n - 1)) % n;
                platform.invalidate_mpbt();
                let seen = platform
                    .mpb(platform.participant(other))
                    .read_u32(mark + 4 * (episode % 2));
                if seen != episode {
                    return Err(format!(
                        "{name} barrier {episode}: core {other} had only reached barrier {seen}"
                    ));
                }
            }
        }
        emit(
            "barrier",
            &format!("algorithm={name} procs={n}"),
            None,
            &samples,
        );
    }
    if me == 0 {
        kernel::println!(
            "bench-barrier: {rounds} barriers per algorithm on {n} cores, each checked"
        );
    }
    Ok(())
}
