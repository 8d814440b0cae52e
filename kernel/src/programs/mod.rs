// SPDX-License-Identifier: MIT OR Apache-2.0
//! Programs every core of a run executes; the command line names one.
//!
//! To add one: write `fn run(scc: &Scc) -> ProgramResult` in a new module,
//! list it in `catalog.rs` (so `cargo xtask run --program` knows it) and
//! in `by_name` below.

mod bench;
mod bench_mpb;
mod bench_private;
pub mod catalog;
mod comm;
mod dht;
mod hang;
mod identity;
mod lut;
mod lut_remap;
mod lut_unset;
mod ncm_fresh;
mod osc;
mod page_fault;
mod pair;
mod ring;
mod ring_stale;
mod rma_errors;
mod rma_fence;
mod rma_passive;
mod rma_pscw;
mod rma_transpose;
mod selftest;
mod shared_dram;
mod stale_mpbt;
mod stencil;
mod timing;
mod triple_fault;
mod tsr_counter;
mod wcb;
mod write_back;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use rma::comm::Comm;

use crate::platform::Scc;

/// The running program and the settings its command line gave, set once
/// before it starts.
static SETTINGS: spin::Once<(&'static catalog::ProgramInfo, Vec<(&'static str, String)>)> =
    spin::Once::new();

/// Records the running program and the settings the command line gave
/// (once, at start).
pub fn set_params(program: &'static catalog::ProgramInfo, params: Vec<(&'static str, String)>) {
    SETTINGS.call_once(|| (program, params));
}

/// The value of the running program's setting `name`: the one the command
/// line gave, or the catalog's default.
///
/// # Panics
/// If the program does not declare `name` in the catalog, or runs without
/// [`set_params`]: bugs in the program, not in its input (the command line
/// is checked at start).
pub fn param(name: &str) -> &'static str {
    let (program, given) = SETTINGS.get().expect("settings recorded at start");
    match given.iter().find(|(n, _)| *n == name) {
        Some((_, value)) => value,
        None => {
            program
                .param(name)
                .unwrap_or_else(|| panic!("program {} declares no setting {name}", program.name))
                .default
        }
    }
}

/// What a program returns: `Err` carries the reason it failed.
pub type ProgramResult = Result<(), String>;

/// The entry point of the program called `name`, if the catalog lists it.
pub fn by_name(name: &str) -> Option<fn(&Scc) -> ProgramResult> {
    let entry: fn(&Scc) -> ProgramResult = match catalog::find(name)?.name {
        "ring" => ring::run,
        "identity" => identity::run,
        "comm" => comm::run,
        "tsr-counter" => tsr_counter::run,
        "lut" => lut::run,
        "page-fault" => page_fault::run,
        "triple-fault" => triple_fault::run,
        "hang" => hang::run,
        "selftest" => selftest::run,
        "stale-mpbt" => stale_mpbt::run,
        "wcb" => wcb::run,
        "write-back" => write_back::run,
        "ncm-fresh" => ncm_fresh::run,
        "lut-remap" => lut_remap::run,
        "lut-unset" => lut_unset::run,
        "ring-stale" => ring_stale::run,
        "shared-dram" => shared_dram::run,
        "rma-fence" => rma_fence::run,
        "rma-pscw" => rma_pscw::run,
        "rma-pscw-stale" => rma_pscw::run_stale,
        "rma-transpose" => rma_transpose::run,
        "rma-errors" => rma_errors::run,
        "rma-passive" => rma_passive::run,
        "stencil" => stencil::run,
        "dht" => dht::run,
        "timing" => timing::run,
        "bench-private" => bench_private::run,
        "bench-mpb" => bench_mpb::run,
        "bench-put-get" => bench::put_get::run,
        "bench-pscw" => bench::pscw::run,
        "bench-lock" => bench::lock::run,
        "bench-load-store" => bench::load_store::run,
        "bench-barrier" => bench::barrier::run,
        "bench-overlap" => bench::overlap::run,
        "bench-random-access" => bench::random_access::run,
        listed => panic!("program {listed} is in the catalog but has no entry point"),
    };
    Some(entry)
}

/// This core's communicator over all cores of the run (rma's channel,
/// barriers and collectives).
pub fn communicator(scc: &Scc) -> Result<Comm<'_, Scc>, String> {
    Comm::new(scc).map_err(|e| e.to_string())
}

/// Prints the line every core of an identity-checking run prints.
pub fn print_identity(scc: &Scc) {
    let chip = scc.chip();
    let tile = chip.tile_of(scc.core());
    let coord = chip.tile_coord(tile);
    crate::println!(
        "identity core={} tile={} x={} y={} z={}",
        scc.core().index(),
        tile.index(),
        coord.x,
        coord.y,
        chip.z_of(scc.core())
    );
}
