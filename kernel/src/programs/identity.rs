// SPDX-License-Identifier: MIT OR Apache-2.0
//! Each core says who it is, then all meet in a barrier.

use super::{ProgramResult, print_identity};
use crate::platform::Scc;
use crate::sync::Barrier;

pub fn run(scc: &Scc) -> ProgramResult {
    print_identity(scc);
    Barrier::new().wait(scc);
    if scc.core().index() == 0 {
        crate::println!("barrier passed by {} cores", scc.cores());
    }
    Ok(())
}
