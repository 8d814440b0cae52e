// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mutual exclusion through a test-and-set register: every core adds 1 to
//! an uncached counter in shared memory [`ITERATIONS`] times while holding
//! the first core's TSR. Any lost update shows in the total.

use alloc::format;
use alloc::string::String;

use rma::comm::BarrierAlgorithm;

use crate::support::communicator;
use kernel::Platform;

/// Increments per core.
const ITERATIONS: u32 = 1000;
/// Offset of the counter in the LSM page of controller 0.
const COUNTER: u32 = 0;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    let counter = platform.lsm(0);
    let owner = platform.participant(0);
    let mut comm = communicator(platform)?;
    if platform.core() == owner {
        counter.write_u32(COUNTER, 0);
    }
    comm.barrier_with(BarrierAlgorithm::Central);
    for _ in 0..ITERATIONS {
        platform.tsr_acquire(owner);
        let value = counter.read_u32(COUNTER);
        counter.write_u32(COUNTER, value + 1);
        platform.tsr_release(owner);
    }
    comm.barrier_with(BarrierAlgorithm::Central);
    if platform.core() == owner {
        let total = counter.read_u32(COUNTER);
        let expected = ITERATIONS * platform.cores();
        kernel::println!("tsr counter = {total} (expected {expected})");
        if total != expected {
            return Err(format!("{} increments were lost", expected.abs_diff(total)));
        }
    }
    Ok(())
}
