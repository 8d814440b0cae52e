// SPDX-License-Identifier: MIT OR Apache-2.0
// The flags C code for the cores is compiled with: the C runtime itself
// (build.rs), its 32-bit test programs (src/tests) and C programs
// (`cargo xtask run --c`). Read with `include!` by build.rs and by xtask
// (`xtask::build::cflags`, which so does not build this crate), and
// exported by the library, so there is one list.

/// Flags for code that sees only our headers and no C library or runtime
/// of the host's: the C runtime's own for the host tests too.
pub const FREESTANDING_CFLAGS: &[&str] = &[
    "-ffreestanding",
    "-fno-builtin",
    "-nostdinc",
    "-fno-stack-protector",
];

/// Flags that make gcc build for the cores: 32-bit Pentium code at fixed
/// addresses. `-fstack-clash-protection` has a function whose frame is
/// larger than a page touch each page as it grows the stack, as Rust's
/// stack probes do: an overflow then faults in the guard page below the
/// stack, in that function, rather than writing past it unnoticed.
pub const TARGET_CFLAGS: &[&str] = &[
    "-m32",
    "-march=pentium",
    "-fno-pic",
    "-fstack-clash-protection",
];
