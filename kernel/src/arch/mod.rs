// SPDX-License-Identifier: MIT OR Apache-2.0
//! Processor support. The SCC core is a P54C, so only 32-bit x86 exists here.

pub mod x86;
