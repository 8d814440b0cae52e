// SPDX-License-Identifier: MIT OR Apache-2.0
//! Compiles the C runtime (`c/*.c`) into a static library the crate links,
//! so an image that depends on `crt` gets the C library.
//!
//! For the guest (the 32-bit x86 target the kernel builds for) the sources
//! are built with the system gcc as freestanding 32-bit Pentium code, with
//! only our headers (`include/`): `-m32 -march=pentium -ffreestanding
//! -fno-pic -fno-builtin -nostdinc -fno-stack-protector -O2`, and every
//! warning an error.
//!
//! For the host (the unit tests in `src/lib.rs`) the same sources are
//! built with the same strictness for the host's own target, still with
//! only our headers (`-nostdinc -I include`, so the host's headers cannot
//! hide a gap in ours), and with `-include test/rename.h`, which renames
//! every public symbol `name` to `crt_name`. The test binary links the
//! host's C library too (Rust's std needs it): without the renaming, our
//! `printf` or `malloc` would clash with the host's, or silently replace
//! them for the whole test process. Renamed, the tests call ours as
//! `crt_printf` and the host's as `printf`, and compare the two.

use std::path::{Path, PathBuf};

include!("cflags.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let include = manifest.join("include");
    let c_dir = manifest.join("c");
    let rename = manifest.join("test").join("rename.h");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cflags.rs");
    for dir in [&include, &c_dir, &manifest.join("test")] {
        println!("cargo:rerun-if-changed={}", dir.display());
    }

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&c_dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", c_dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    sources.sort();
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
    }

    let guest = std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86");
    let mut build = cc::Build::new();
    build
        .files(&sources)
        .include(&include)
        .std("c11")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true);
    for flag in FREESTANDING_CFLAGS {
        build.flag(flag);
    }
    if guest {
        // The system gcc, not a cross compiler cc might look for by the
        // target's name: gcc -m32 builds for the guest.
        build.compiler("gcc").archiver("ar").pic(false);
        for flag in TARGET_CFLAGS {
            build.flag(flag);
        }
    } else {
        // The tests' own C helpers (long double arguments, va_list, the
        // assert macro), which Rust cannot express.
        let helpers = manifest.join("test").join("helpers.c");
        println!("cargo:rerun-if-changed={}", helpers.display());
        build.file(helpers).flag("-include").flag(path_str(&rename));
    }
    build.compile("crt");
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("the crate lives at a UTF-8 path")
}
