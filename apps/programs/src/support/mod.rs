// SPDX-License-Identifier: MIT OR Apache-2.0
//! What several programs share: the communicator over all cores, the
//! identity line, the checks and errors of one-sided programs ([`osc`])
//! and two cores exchanging through the MPBs ([`pair`]).

pub mod osc;
pub mod pair;

use alloc::string::{String, ToString};

use kernel::Platform;
use rma::comm::Comm;

/// This core's communicator over all cores of the run (rma's channel,
/// barriers and collectives).
pub fn communicator(platform: &Platform) -> Result<Comm<'_, Platform>, String> {
    Comm::new(platform).map_err(|e| e.to_string())
}

/// Prints the line every core of an identity-checking run prints.
pub fn print_identity(platform: &Platform) {
    let chip = platform.chip();
    let tile = chip.tile_of(platform.core());
    let coord = chip.tile_coord(tile);
    kernel::println!(
        "identity core={} tile={} x={} y={} z={}",
        platform.core().index(),
        tile.index(),
        coord.x,
        coord.y,
        chip.z_of(platform.core())
    );
}
