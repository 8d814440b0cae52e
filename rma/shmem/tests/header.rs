// SPDX-License-Identifier: MIT OR Apache-2.0
//! `shmem.h` declares exactly the routines the library defines: every
//! function of the header is defined (typed ones by the macro invocations
//! that name them, the others by `extern "C" fn`, a few in the header
//! itself), and every routine the library defines is declared. The C11
//! generic macros are left out: they name typed routines.

use std::collections::BTreeSet;
use std::path::Path;

/// The identifiers starting with `shmem_` or `shmemx_` in `text`.
fn names(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("shmem_") || w.starts_with("shmemx_"))
}

/// The functions `shmem.h` declares.
fn declared() -> BTreeSet<String> {
    let header =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/shmem.h"))
            .unwrap();
    let mut out = BTreeSet::new();
    for line in header.lines() {
        // The C11 generic macros are not routines of the library.
        if line.starts_with("#define") {
            continue;
        }
        let code = line.split("/*").next().unwrap();
        // A declaration: NAME followed by its parameter list.
        for (i, _) in code.match_indices('(') {
            if let Some(name) = names(&code[..i]).last()
                && code[..i].trim_end().ends_with(name)
            {
                out.insert(name.to_owned());
            }
        }
    }
    out
}

/// The routines the library's sources define: names in the typed macro
/// invocations, in `fn` items and in the unsupported list, and the
/// header's own `static inline` functions (the `long double` `p` and
/// `g`).
fn defined() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/guest");
    let mut out = BTreeSet::new();
    let header =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/shmem.h"))
            .unwrap();
    for line in header.lines().filter(|l| l.starts_with("static inline ")) {
        let name = line.split('(').next().unwrap();
        out.extend(names(name).last().map(str::to_owned));
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let code = line.trim_start();
            if code.starts_with("//") || code.starts_with("#[doc") {
                continue;
            }
            let item = code.contains("extern \"C\" fn ")
                || code.ends_with(");") && code.contains("!(")
                || code.starts_with("shmem_") && code.ends_with(',');
            if item {
                let code = code.split('"').step_by(2).collect::<Vec<_>>().join(" ");
                out.extend(names(&code).map(str::to_owned));
            }
        }
    }
    out
}

#[test]
fn the_header_and_the_library_name_the_same_routines() {
    let (declared, defined) = (declared(), defined());
    assert!(declared.len() > 500, "{} declared", declared.len());
    let missing: Vec<_> = declared.difference(&defined).collect();
    assert!(missing.is_empty(), "declared, not defined: {missing:?}");
    let undeclared: Vec<_> = defined.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "defined, not declared: {undeclared:?}"
    );
}
