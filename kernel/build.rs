// SPDX-License-Identifier: MIT OR Apache-2.0
//! Hands the workspace's linker script to the 32-bit kernel image by
//! absolute path, so the build works from any directory. Host builds (the
//! placeholder binary) link normally.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86") {
        return;
    }
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let script = std::path::Path::new(&manifest).join("../linker.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-link-arg-bins=-T{}", script.display());
}
