// SPDX-License-Identifier: MIT OR Apache-2.0
//! Each core says who it is, then all meet in a barrier.

use crate::support::{communicator, print_identity};
use alloc::string::String;
use kernel::Scc;

pub fn run(scc: &Scc, (): ()) -> Result<(), String> {
    print_identity(scc);
    communicator(scc)?.barrier();
    if scc.core().index() == 0 {
        kernel::println!("barrier passed by {} cores", scc.cores());
    }
    Ok(())
}
