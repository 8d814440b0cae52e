// SPDX-License-Identifier: MIT OR Apache-2.0
//! The chip this image runs on: every layer of the kernel takes the chip's
//! numbers from here.

use chip::Chip;

/// The chip this image runs on.
pub const CHIP: &Chip = &chip::SCC;
