// SPDX-License-Identifier: MIT OR Apache-2.0
//! Each core says who it is, then all meet in a barrier.

use super::{ProgramResult, communicator, print_identity};
use crate::platform::Scc;

pub fn run(scc: &Scc) -> ProgramResult {
    print_identity(scc);
    communicator(scc)?.barrier();
    if scc.core().index() == 0 {
        crate::println!("barrier passed by {} cores", scc.cores());
    }
    Ok(())
}
