// SPDX-License-Identifier: MIT OR Apache-2.0
//! Each core says who it is, then all meet in a barrier.

use crate::support::{communicator, print_identity};
use alloc::string::String;
use kernel::Platform;

pub fn run(platform: &Platform, (): ()) -> Result<(), String> {
    print_identity(platform);
    communicator(platform)?.barrier();
    if platform.core().index() == 0 {
        kernel::println!("barrier passed by {} cores", platform.cores());
    }
    Ok(())
}
