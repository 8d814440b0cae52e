// SPDX-License-Identifier: MIT OR Apache-2.0
//! Puts the workspace's linker script where the linker finds it for every
//! image built on this library: a copy named `scc-kernel.ld` in a directory
//! on the library search path, which a dependency's build script passes on
//! to the final link. `.cargo/config.toml` names it with
//! `-Tscc-kernel.ld` for the guest target.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let script = PathBuf::from(manifest).join("../linker.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86") {
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::copy(&script, out.join("scc-kernel.ld"))
        .unwrap_or_else(|e| panic!("cannot copy {}: {e}", script.display()));
    println!("cargo:rustc-link-search=native={}", out.display());
}
