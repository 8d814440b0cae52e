// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mutual exclusion through a test-and-set register: every core adds 1 to
//! an uncached counter in shared memory [`ITERATIONS`] times while holding
//! the first core's TSR. Any lost update shows in the total.

use alloc::format;
use alloc::string::String;

use rma::comm::BarrierAlgorithm;

use crate::support::communicator;
use kernel::Scc;

/// Increments per core.
const ITERATIONS: u32 = 1000;
/// Offset of the counter in the LSM page of controller 0.
const COUNTER: u32 = 0;

pub fn run(scc: &Scc, (): ()) -> Result<(), String> {
    let counter = scc.lsm(0);
    let owner = scc.participant(0);
    let mut comm = communicator(scc)?;
    if scc.core() == owner {
        counter.write_u32(COUNTER, 0);
    }
    comm.barrier_with(BarrierAlgorithm::Central);
    for _ in 0..ITERATIONS {
        scc.tsr_acquire(owner);
        let value = counter.read_u32(COUNTER);
        counter.write_u32(COUNTER, value + 1);
        scc.tsr_release(owner);
    }
    comm.barrier_with(BarrierAlgorithm::Central);
    if scc.core() == owner {
        let total = counter.read_u32(COUNTER);
        let expected = ITERATIONS * scc.cores();
        kernel::println!("tsr counter = {total} (expected {expected})");
        if total != expected {
            return Err(format!("{} increments were lost", expected.abs_diff(total)));
        }
    }
    Ok(())
}
