// SPDX-License-Identifier: MIT OR Apache-2.0
//! The built-in programs: tests of the chip model, rma's test programs and
//! the benchmark suite's programs, as one app on the kernel library.
//!
//! Each program is a module with an entry `fn run(&Platform, Settings) ->
//! AppResult`; its settings, if any, are a struct declared with
//! [`kernel::chip::settings!`] beside it. To add one, write the module
//! and list it below: the list is the only place that names programs, and
//! the run tool reads it back from the image.
//!
//! The crate is a guest: built for the host (as `cargo clippy
//! --workspace` does), it is only a `main` that says so.
#![cfg_attr(target_arch = "x86", no_std, no_main)]
#![warn(missing_docs)]
#![deny(dead_code)]

/// Built for the host, the programs have no kernel to run on.
#[cfg(not(target_arch = "x86"))]
fn main() {
    eprintln!(
        "programs: the built-in programs run on the emulated chip, not the host: \
         `cargo xtask run --program NAME` builds and boots them"
    );
    std::process::exit(2);
}

/// Keeps `items` for the guest target only.
macro_rules! on_the_chip {
    ($($item:item)*) => {
        $(#[cfg(target_arch = "x86")] $item)*
    };
}

on_the_chip! {
extern crate alloc;

mod bench;
mod bench_mpb;
mod bench_private;
mod comm;
mod dht;
mod irregular;
mod hang;
mod identity;
mod lut;
mod lut_remap;
mod lut_unset;
mod ncm_fresh;
mod page_fault;
mod ring;
mod ring_stale;
mod rma_comm;
mod rma_datatypes;
mod rma_errors;
mod rma_fence;
mod rma_mpi_examples;
mod rma_passive;
mod rma_pscw;
mod rma_shared;
mod rma_transpose;
mod selftest;
mod shared_dram;
mod spmd;
mod stack_overflow;
mod stale_mpbt;
mod stencil;
mod support;
mod tile_id_write;
mod timing;
mod triple_fault;
mod tsr_counter;
mod wcb;
mod write_back;

kernel::programs! {
    /// identity, a token around a ring of all cores through the MPBs, a barrier, a summary
    "ring" => ring::run,
    /// each core prints its id and tile coordinates, then meets the others in a barrier
    "identity" => identity::run,
    /// rma's MPB channel, both barriers, bcast, allgather and allreduce on every core, results
    /// checked
    "comm" => comm::run,
    /// every core adds 1 to a shared uncached counter 1000 times under a test-and-set register
    "tsr-counter" => tsr_counter::run,
    /// each core reads its LUT back through the CRB and checks the default layout
    "lut" => lut::run,
    /// each core checks kernel parts that only run on the target: frames, paging, heap and its guard
    /// words, MPB access, CL1INVMB, timer, TSR
    "selftest" => selftest::run,
    /// core 1 caches an MPB line, core 0 writes it: core 1 reads the stale value until CL1INVMB
    "stale-mpbt" => stale_mpbt::run,
    /// core 0's MPB store waits in its write-combine buffer, unseen by core 1, until flushed
    "wcb" => wcb::run,
    /// core 0's store into a cached line stays unseen by core 1 until WBINVD (MPBT) or an L2
    /// eviction (DCM)
    "write-back" => write_back::run,
    /// cores 0 and 1 ping-pong 1000 uncached messages without cache maintenance, data checked
    "ncm-fresh" => ncm_fresh::run,
    /// core 0 points a free LUT entry at one tile's MPB, then another's: each access goes where the
    /// entry points
    "lut-remap" => lut_remap::run,
    /// core 0 reads through a LUT entry that reaches nothing: the emulator must stop it, naming the
    /// entry
    "lut-unset" => lut_unset::run,
    /// core 1 points an entry of core 0's LUT at core 0's private DRAM, and core 0 reads through
    /// it: the emulator must stop core 0, naming the entry and core 1's write
    "lut-unset-remote" => lut_unset::run_remote,
    /// each core writes the read-only MYTILEID through its own-CRB entry and its tile's CRB: both
    /// must read back unchanged, and the run warns of each store
    "tile-id-write" => tile_id_write::run,
    /// the ring with its waiting cores polling without CL1INVMB: must fail, reporting a stale line
    "ring-stale" => ring_stale::run,
    /// each core maps its own and its neighbour's POPSHM through free LUT entries (MPBT-WT, then
    /// NCM) and the LSM: every refusal, pattern and reply checked
    "shared-dram" => shared_dram::run,
    /// rma windows under fence: neighbour puts and gets in consecutive epochs for each memory type,
    /// 1000 small puts in one epoch, empty epochs; every value checked
    "rma-fence" => rma_fence::run,
    /// rma post/start/complete/wait with overlapping groups (origins +1 and +2, targets -1 and -2),
    /// an epoch without operations, empty groups; every value checked
    "rma-pscw" => rma_pscw::run,
    /// rma-pscw with the coherence actions disabled: must fail, the target's cached lines hiding
    /// what origins put
    "rma-pscw-stale" => rma_pscw::run_stale,
    /// a distributed matrix transposed with strided puts under fence and back with strided gets;
    /// every element checked
    "rma-transpose" => rma_transpose::run,
    /// rma datatypes in a transpose, a halo exchange, records and accumulates; every value checked
    "rma-datatypes" => rma_datatypes::run,
    /// every misuse of rma windows and epochs, each checked for its MPI error class and message,
    /// then a working epoch
    "rma-errors" => rma_errors::run,
    /// passive target on every core: a random lock mix without torn blocks, a fetch_and_op counter,
    /// a compare_and_swap mutex and lock-free list, accumulate from every core, misuse errors;
    /// every value checked
    "rma-passive" => rma_passive::run,
    /// the examples of MPI-3.1's chapter 11 (11.1 to 11.23: fence, PSCW, locks, flush, sync, atomics,
    /// shared windows, requests, dynamic windows) translated to rma; every value checked
    "rma-mpi-examples" => rma_mpi_examples::run,
    /// a shared window (allocate_shared) on every memory type: every core stores into every
    /// core's part directly, syncs, and finds what the others stored in its own; every value checked
    "rma-shared" => rma_shared::run,
    /// the cores as a 2D grid split into row and column communicators: collectives on each,
    /// fence epochs on row and column windows at once, lock epochs, a PSCW epoch, misuse
    /// refused, create, dup and free; every value checked
    "rma-comm" => rma_comm::run,
    /// a 2D cellular automaton (9-point stencil, the thesis's 2400x8192 torus whatever the core
    /// count) with halo rows exchanged by put under PSCW, every core's rows verified against a
    /// serial run, with per-window statistics; benchmark lines: each generation's time on the
    /// slowest core
    "stencil" => stencil::run,
    /// the passive-target distributed hash table: inserts under exclusive locks, lookups under
    /// shared ones, every value checked (mode=verify), or core 0's write times while readers look
    /// up its entries (mode=bench, BENCH lines)
    "dht" => dht::run,
    /// each core times L1, L2 and MPB accesses at every distance (core 0 also near and far DRAM and
    /// a TSR round trip) with the global timestamp and checks them against the chip's timing table
    "timing" => timing::run,
    /// the highest-numbered core touches unmapped memory: the run must fail naming it
    "page-fault" => page_fault::run,
    /// the highest-numbered core loops forever while the others wait for it: the run must time out
    /// naming it
    "hang" => hang::run,
    /// the highest-numbered core shuts its CPU down without reporting: the run must fail naming it
    "triple-fault" => triple_fault::run,
    /// the highest-numbered core recurses without end: the run must fail with a stack overflow
    /// naming it and the function
    "stack-overflow" => stack_overflow::run,
    /// benchmark: about 500 million loads and stores over 64 KiB of private memory, every word
    /// checked
    "bench-private" => bench_private::run,
    /// benchmark: a 64-byte token around the ring through the MPBs, 10000 laps on 2 cores to 50 on
    /// 48, every payload checked
    "bench-mpb" => bench_mpb::run,
    /// benchmark on 2 cores: put and get latency and bandwidth, 1 B to 1 MiB, under fence, PSCW and
    /// lock epochs for each window memory type, and two-sided send/recv; every transfer checked
    "bench-put-get" => bench::put_get::run,
    /// benchmark: PSCW synchronisation latency, one origin and k targets, empty epochs, each of
    /// start, complete, post and wait timed
    "bench-pscw" => bench::pscw::run,
    /// benchmark: empty lock/unlock pairs on random targets, 100/50/0 % shared, 2..N processes, per
    /// lock scheme; a counter under each scheme checked exact
    "bench-lock" => bench::lock::run,
    /// benchmark on core 0: 4-byte load and store loops over buffers of 1 KiB to 1 MiB of shareable
    /// DRAM, for each memory type; stores read back
    "bench-load-store" => bench::load_store::run,
    /// benchmark: back-to-back barriers of each algorithm, each timed and checked for a core let
    /// through early
    "bench-barrier" => bench::barrier::run,
    /// benchmark: 1..N cores each read their own part of core 0's shareable DRAM, every line a fill
    /// from controller 0; the controller's bandwidth per round, every sum checked
    "bench-dram-bandwidth" => bench::dram_bandwidth::run,
    /// benchmark: core 0 computes while k origins put into its window under locks; its compute time
    /// against k, every slot checked
    "bench-overlap" => bench::overlap::run,
    /// benchmark: HPCC RandomAccess, XOR updates of random words of a table spread over 1..N
    /// processes' windows, per update variant; every table word checked exact after every round
    "bench-random-access" => bench::random_access::run,
    /// benchmark: accumulate, get_accumulate and fetch_and_op from 1..N processes onto every rank,
    /// each call timed; every value and every returned old value checked
    "bench-accumulate" => bench::accumulate::run,
    /// OpenSHMEM's model from Rust (dsm::spmd): ring puts and gets, an atomic counter, a
    /// compare-and-swap winner, a token passed with wait_until, sums under every kind of lock
    "spmd" => spmd::run,
    /// pointer chasing on the global address space: one riffle-shuffled chain, every task of every
    /// core walks all of it by split-phase gets, tasks per core swept; every step checked (BENCH)
    "gas-chase" => irregular::chase::run,
    /// BFS on the global address space: a uniform random graph, levels claimed by compare-and-swap
    /// or under vertex-block locks by several tasks per core; levels checked against a serial BFS
    /// (BENCH)
    "gas-bfs" => irregular::bfs::run,
    /// betweenness centrality (SSCA#2 kernel 4) on the global address space: Brandes' algorithm
    /// from some sources of an R-MAT graph, path counts and dependencies added by atomics or under
    /// locks; every core's centrality checked against a serial computation (BENCH)
    "gas-bc" => irregular::bc::run,
    /// benchmark: cores 0..=n take core 0's test-and-set register in turn, a fixed critical
    /// section each, for 1..N-1 spinners; each acquire and release timed, a counter checked exact
    "bench-tsr" => bench::tsr::run,
}
}
