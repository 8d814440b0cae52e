// SPDX-License-Identifier: MIT OR Apache-2.0
// The flags C code for the cores is compiled with: the C runtime itself
// (build.rs), its 32-bit test programs (src/tests) and C programs
// (`cargo xtask run --c`). Read by build.rs with `include!` and exported
// by the library, so there is one list.

/// Flags for code that sees only our headers and no C library or runtime
/// of the host's: the C runtime's own for the host tests too.
pub const FREESTANDING_CFLAGS: &[&str] = &[
    "-ffreestanding",
    "-fno-builtin",
    "-nostdinc",
    "-fno-stack-protector",
];

/// Flags that make gcc build for the cores: 32-bit Pentium code at fixed
/// addresses.
pub const TARGET_CFLAGS: &[&str] = &["-m32", "-march=pentium", "-fno-pic"];
