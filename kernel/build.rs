// SPDX-License-Identifier: MIT OR Apache-2.0
//! Hands the workspace's linker script to the kernel binary by absolute
//! path, so the build works from any directory.

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let script = std::path::Path::new(&manifest).join("../linker.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-link-arg-bins=-T{}", script.display());
}
