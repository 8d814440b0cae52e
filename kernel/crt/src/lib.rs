// SPDX-License-Identifier: MIT OR Apache-2.0
//! A small C runtime (a libc subset) for C programs on the bare-metal
//! 32-bit cores.
//!
//! The C sources (`c/`) and headers (`include/`) are the library; this
//! crate only builds them (`build.rs`) and links them: an image that
//! depends on `crt` gets the C library. C programs are compiled with
//! `gcc -m32 -march=pentium -fno-pic -fstack-clash-protection
//! -ffreestanding -fno-builtin -nostdinc -I kernel/crt/include`
//! (`cflags.rs`).
//!
//! # What is there
//! - `stdio.h`: `printf`, `fprintf`, `sprintf`, `snprintf` and their `v`
//!   forms, `puts`, `fputs`, `putchar`, `fputc`, `putc`, `fwrite`,
//!   `fflush`, `setvbuf`, `setbuf`, `perror`; streams `stdout`
//!   (line-buffered, or as `setvbuf` says) and `stderr` (unbuffered).
//!   Conversions `d i u o x X c s p % f F e E g G a A`,
//!   flags `- + space # 0`, width and precision (also `*`), lengths
//!   `hh h l ll z j t L`; floating output is correctly rounded at every
//!   precision (ties to even).
//! - `string.h`/`strings.h`: the `str*` functions, `memchr`, `strerror`,
//!   `strcasecmp`, `strncasecmp`. `memcpy`, `memmove`, `memset`,
//!   `memcmp` are only declared: the kernel defines them.
//! - `stdlib.h`: `malloc`, `calloc`, `realloc`, `free`, `aligned_alloc`,
//!   `posix_memalign` (16-byte alignment, or more when asked); `strtol`
//!   family, `strtod`, `strtof`, `ato*` (correctly rounded, decimal and
//!   hexadecimal, `inf`/`nan`); `abs`, `div` families; `qsort`, `bsearch`;
//!   `rand`, `srand`; `exit`, `_Exit`, `abort`, `atexit`; `getenv`
//!   (always `NULL`).
//! - `ctype.h` (ASCII), `assert.h`, `errno.h` (a plain global),
//!   `unistd.h`/`getopt.h` (`getopt`), `time.h` (`clock`, `time`,
//!   `difftime`, `clock_gettime`, `clock_getres`), `math.h` (`fabs`,
//!   `sqrt`, `floor`, `ceil`, `trunc`, `round`, `fmod`, `copysign`; `sin`,
//!   `cos`, `exp` on the x87),
//!   `inttypes.h` (format macros, `strtoimax`, `imaxdiv`), and the
//!   freestanding headers `stddef.h`, `stdint.h`, `stdbool.h`,
//!   `stdarg.h`, `limits.h`, `float.h`.
//!
//! # What is not
//! No input (no `stdin`, `scanf`, `fgets`, `getchar`), no files other
//! than `stdout` and `stderr` (no `fopen`; `setvbuf` ignores the buffer
//! it is given), no locales (`setlocale`),
//! no wide or multibyte characters (`wchar.h`, `%ls`), no `%n` and no
//! positional arguments (`%1$d`) in formats, no transcendental maths
//! beyond `sin`, `cos` and `exp` (no `log`, `pow`, `tan`, ...), no calendar time (`gmtime`,
//! `strftime`), no signals, no `setjmp`, no `strtold`. `%L` arguments
//! are rounded to double before formatting.
//!
//! # Hooks
//! The library reaches its environment only through five functions,
//! declared in `include/crt_hooks.h` and defined on the guest by this
//! crate's `guest` module, over the kernel: `__crt_write` (bytes to
//! stdout or stderr: the console), `__crt_alloc` and `__crt_free` (the
//! kernel heap), `__crt_exit` (the end of the core's run) and
//! `__crt_clock_ns` (modelled nanoseconds). The same module runs C's
//! `main` (`run_main`, the program of a C image, with `argv` from the
//! command line as `Arguments`). The host tests define their own hooks.
//!
//! # Host tests
//! Built for the host, the same C sources are compiled with every public
//! name `name` renamed `crt_name` (see `build.rs`), and the tests below
//! compare them with the host's C library.
#![no_std]
#![warn(missing_docs)]

#[cfg(target_arch = "x86")]
extern crate alloc;
#[cfg(test)]
extern crate std;

include!("../cflags.rs");

#[cfg(target_arch = "x86")]
mod guest;
#[cfg(target_arch = "x86")]
pub use guest::{Arguments, check_at_success, end_every_core, end_line, platform, run_main};

// The tests run on the host only: the guest build has no renamed library.
#[cfg(all(test, not(target_arch = "x86")))]
mod tests;
