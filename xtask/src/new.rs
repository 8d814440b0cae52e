// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask new`: a new app on the kernel library, from a template;
//! with `--lang c`, a C program over MPI.
//!
//! An app is a binary crate for the guest target that depends on the
//! `kernel` and `rma` crates and lists its programs with
//! `kernel::programs!`. Given a bare name, the app goes to `apps/NAME`,
//! where the workspace picks it up; given a path outside the workspace, it
//! becomes a workspace of its own that uses this checkout's kernel and rma
//! by path, with this checkout's lock file so that it builds with the same
//! dependency versions. `cargo xtask run --app DIR` builds and boots it.
//!
//! A C app is a directory of `.c` files and nothing else: `cargo xtask
//! run --app DIR` compiles them all and links them against MPI, the C
//! runtime and the kernel, as `run --c` does. It can go anywhere but
//! `apps/`, where cargo takes every directory for a crate.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};

use crate::build::{BUILTIN, workspace_root};

/// The program the template holds: the hello-rma example of the README and of the book's "Your own program".
const MAIN: &str = r#"//! NAME: an app on the emulated SCC's kernel library.
#![no_std]
#![no_main]

use kernel::{AppResult, Platform};
use rma::comm::Comm;
use rma::{Assert, Rma, WindowOptions};

kernel::programs! {
    /// every core puts its rank into its right neighbour's window under a fence and checks what it received
    "NAME" => hello,
}

fn hello(platform: &Platform, (): ()) -> AppResult {
    let mut rma = Rma::new(Comm::new(platform)?)?;
    let (me, n) = (rma.rank(), rma.size());
    let win = rma.allocate::<u32>(1, WindowOptions::new())?;
    rma.fence(win, Assert::NOPRECEDE)?;
    rma.put(win, (me + 1) % n, 0, &[me])?;
    rma.fence(win, Assert::NOSUCCEED)?;
    let mut got = [0];
    rma.local_read(win, 0, &mut got)?;
    kernel::println!("rank {me} of {n} received {}", got[0]);
    if got[0] != (me + n - 1) % n {
        return Err("the value received is not the left neighbour's rank".into());
    }
    Ok(rma.free(win)?)
}
"#;

/// The C template's program, `NAME.c`: the same exchange as [`MAIN`]'s,
/// over MPI.
const MAIN_C: &str = r#"/* NAME: an MPI program for the emulated SCC's cores. Every rank puts
 * its rank into its right neighbour's window under a fence and checks
 * what it received. Boot it with `cargo xtask run --app DIR --cores 4`;
 * the words after `--` reach main's argv. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *received;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &received, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    int got = *received;
    printf("rank %d of %d received %d\n", rank, size, got);
    MPI_Win_free(&win);
    MPI_Finalize();
    if (got != (rank + size - 1) % size) {
        fprintf(stderr, "rank %d: the value received is not the left neighbour's rank\n", rank);
        return 1;
    }
    return 0;
}
"#;

/// The language of a new app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Lang {
    /// A crate on the kernel library and rma.
    #[default]
    Rust,
    /// C over MPI (mpi.h), with the C runtime.
    C,
}

/// Makes the app `name` in `lang` (a bare name: `apps/NAME` for Rust, or
/// for C the directory NAME here; or a path) and returns its directory.
pub fn new_app(name: &str, lang: Lang) -> Result<PathBuf> {
    match lang {
        Lang::Rust => new_rust_app(name),
        Lang::C => new_c_app(name),
    }
}

/// Makes the C app at `path`: the directory, holding `NAME.c`.
fn new_c_app(path: &str) -> Result<PathBuf> {
    let root = workspace_root();
    let dir = std::path::absolute(path).with_context(|| format!("no directory for {path}"))?;
    let package = new_name(&dir)?;
    ensure!(
        dir.parent() != Some(&root.join("apps")),
        "{}: a C app cannot go to apps/, where cargo takes every directory for a crate: \
         give a path elsewhere",
        dir.display()
    );
    fs::create_dir_all(&dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let file = dir.join(format!("{package}.c"));
    fs::write(&file, MAIN_C.replace("NAME", &package))
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok(dir)
}

/// Makes the Rust app `name` (a bare name: `apps/NAME`; or a path) and
/// returns its directory.
fn new_rust_app(name: &str) -> Result<PathBuf> {
    let root = workspace_root();
    let given = Path::new(name);
    let in_tree = given.components().count() == 1;
    let dir = if in_tree {
        root.join("apps").join(name)
    } else {
        std::path::absolute(given).with_context(|| format!("no directory for {name}"))?
    };
    let package = new_name(&dir)?;
    if !in_tree && dir.starts_with(root) && dir.parent() != Some(&root.join("apps")) {
        bail!(
            "{}: inside this workspace an app goes to apps/NAME (give just the name)",
            dir.display()
        );
    }
    let inside = dir.starts_with(root);
    let manifest = if inside {
        format!(
            "[package]\nname = \"{package}\"\nversion.workspace = true\nedition.workspace = true\n\
             rust-version.workspace = true\nlicense.workspace = true\npublish = false\n\n\
             [dependencies]\nkernel.workspace = true\nrma.workspace = true\n"
        )
    } else {
        let path = |p: &str| root.join(p).display().to_string();
        format!(
            "[package]\nname = \"{package}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nkernel = {{ path = \"{}\" }}\nrma = {{ path = \"{}\" }}\n\n\
             # An app of its own, outside the checkout its kernel comes from.\n[workspace]\n",
            path("kernel"),
            path("rma")
        )
    };
    fs::create_dir_all(dir.join("src"))
        .and_then(|()| fs::create_dir_all(dir.join(".cargo")))
        .with_context(|| format!("cannot make {}", dir.display()))?;
    let write = |file: &str, text: &str| {
        fs::write(dir.join(file), text)
            .with_context(|| format!("cannot write {}", dir.join(file).display()))
    };
    write("Cargo.toml", &manifest)?;
    write("src/main.rs", &MAIN.replace("NAME", &package))?;
    write(
        ".cargo/config.toml",
        "# The app runs on the emulated cores: cargo builds it for the guest target.\n\
         # `cargo xtask run --app DIR` builds and boots it.\n\
         [build]\ntarget = \"i586-unknown-linux-gnu\"\n",
    )?;
    if !inside {
        fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))
            .with_context(|| format!("cannot copy the lock file to {}", dir.display()))?;
    }
    Ok(dir)
}

/// The name of the app a new directory `dir` holds: its last component,
/// which must suit a package ([`check_name`]); `dir` must not exist yet.
fn new_name(dir: &Path) -> Result<String> {
    let package = dir
        .file_name()
        .and_then(|n| n.to_str())
        .with_context(|| format!("{} names no directory", dir.display()))?
        .to_owned();
    check_name(&package)?;
    ensure!(
        !dir.exists(),
        "{} exists already: choose another name",
        dir.display()
    );
    Ok(package)
}

/// Whether `name` can name a package and an image: lower-case letters,
/// digits, `-` and `_`, starting with a letter, and not the built-in app's.
fn check_name(name: &str) -> Result<()> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    ensure!(
        valid,
        "`{name}` cannot name an app: use lower-case letters, digits, `-` and `_`, starting with a letter"
    );
    ensure!(
        !["kernel", "rma", "chip", "emu", "xtask", BUILTIN].contains(&name),
        "`{name}` is the name of one of this workspace's crates: choose another"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_suit_a_package() {
        for good in ["hello", "my-app2", "a_b"] {
            check_name(good).unwrap();
        }
        for bad in ["Hello", "2app", "", "a b", "kernel", "programs"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    /// The README and the book show the template's program, which
    /// `tests/tests/apps.rs` boots: they must show it as it is.
    #[test]
    fn the_hello_example_of_the_readme_and_the_book_is_the_template() {
        let program = MAIN[MAIN.find("kernel::programs!").unwrap()..].replace("NAME", "hello");
        for doc in ["README.md", "docs/programs.md"] {
            let text = fs::read_to_string(workspace_root().join(doc)).unwrap();
            assert!(
                text.contains(&program),
                "{doc} does not show the template's program as `cargo xtask new` writes it:\n{program}"
            );
        }
    }

    #[test]
    fn an_app_outside_the_workspace_is_a_workspace_of_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_app(tmp.path().join("hello").to_str().unwrap(), Lang::Rust).unwrap();
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"hello\""), "{manifest}");
        assert!(manifest.contains("[workspace]"), "{manifest}");
        let kernel = workspace_root().join("kernel").display().to_string();
        assert!(manifest.contains(&kernel), "{manifest}");
        let main = fs::read_to_string(dir.join("src/main.rs")).unwrap();
        assert!(main.contains("\"hello\" => hello"), "{main}");
        assert!(dir.join("Cargo.lock").is_file());
        let again = new_app(dir.to_str().unwrap(), Lang::Rust)
            .unwrap_err()
            .to_string();
        assert!(again.contains("exists already"), "{again}");
    }

    #[test]
    fn a_c_app_is_a_directory_holding_its_named_c_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = new_app(tmp.path().join("ring-c").to_str().unwrap(), Lang::C).unwrap();
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["ring-c.c"]);
        let main = fs::read_to_string(dir.join("ring-c.c")).unwrap();
        assert!(main.starts_with("/* ring-c: an MPI program"), "{main}");
        assert!(main.contains("#include <mpi.h>"), "{main}");
        let again = new_app(dir.to_str().unwrap(), Lang::C)
            .unwrap_err()
            .to_string();
        assert!(again.contains("exists already"), "{again}");
        let bad = new_app(tmp.path().join("Ring").to_str().unwrap(), Lang::C).unwrap_err();
        assert!(bad.to_string().contains("cannot name an app"), "{bad}");
    }

    #[test]
    fn a_c_app_is_refused_where_cargo_looks_for_crates() {
        let dir = workspace_root().join("apps/some-c-app");
        let err = new_app(dir.to_str().unwrap(), Lang::C).unwrap_err();
        assert!(err.to_string().contains("cannot go to apps/"), "{err}");
        assert!(!dir.exists());
    }
}
