// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask doc`: the book in `docs/`, built with mdBook into
//! `target/book`, and the checks that keep it whole.
//!
//! The book's chapters are the Markdown files of `docs/`, listed in
//! `docs/SUMMARY.md`; the README is its front door. The host tests below
//! check what a reader would trip over: a chapter missing from the
//! summary, and a relative link (in the README or any chapter) to a file
//! that does not exist. The Rust examples of the porting guide and of the
//! one-sided chapter run as the system-tests crate's doctests; the hello
//! example is the template `cargo xtask new` writes ([`crate::new`]).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};

use crate::build::{run_command, target_dir, workspace_root};
use crate::qemu::NO_INSTALL;

/// The mdBook release the book is built with, installed with
/// `cargo install` where none is found.
pub const MDBOOK_VERSION: &str = "0.4.52";

/// The book's sources, relative to the workspace.
pub const BOOK_DIR: &str = "docs";

/// Builds the book into `target/book`, installing mdBook first if it is
/// missing (unless [`NO_INSTALL`] says not to); returns the book's index.
pub fn build() -> Result<PathBuf> {
    let mdbook = ensure_mdbook()?;
    let mut command = Command::new(&mdbook);
    command
        .arg("build")
        .arg(workspace_root().join(BOOK_DIR))
        .arg("--dest-dir")
        .arg(target_dir().join("book"));
    run_command(command, "building the book (mdbook build docs)")?;
    Ok(target_dir().join("book/index.html"))
}

/// The `mdbook` to run: one on `PATH`, else the one `cargo install`
/// leaves in cargo's bin directory, installed now if there is none.
fn ensure_mdbook() -> Result<PathBuf> {
    let installed = cargo_bin().join("mdbook");
    for candidate in [PathBuf::from("mdbook"), installed.clone()] {
        if Command::new(&candidate)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Ok(candidate);
        }
    }
    let install = format!("cargo install mdbook --version {MDBOOK_VERSION} --locked");
    if env::var_os(NO_INSTALL).is_some_and(|v| !v.is_empty() && v != "0") {
        bail!(
            "mdBook is missing and {NO_INSTALL} is set, so xtask does not install it: run `{install}`"
        );
    }
    eprintln!("mdBook is missing; installing it: {install}");
    let mut command = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.args(["install", "mdbook", "--version", MDBOOK_VERSION, "--locked"]);
    run_command(command, "installing mdBook")?;
    Ok(installed)
}

/// Where `cargo install` puts programs: `$CARGO_HOME/bin`, else
/// `~/.cargo/bin`.
fn cargo_bin() -> PathBuf {
    env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
        .join("bin")
}

/// The targets of the inline links in `markdown` (`[text](target)`),
/// outside code blocks and code spans, each without its `#fragment`.
pub fn link_targets(markdown: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold no links.
        let text: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split('#').next().unwrap_or_default();
            if !target.is_empty() {
                targets.push(target.to_owned());
            }
            rest = &after[end..];
        }
    }
    targets
}

/// Whether `target` is a link to a file of the repository (not a web
/// address or an e-mail).
pub fn is_local(target: &str) -> bool {
    !target.contains("://") && !target.starts_with("mailto:")
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// Every Markdown file of the book.
    fn chapters() -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = fs::read_dir(workspace_root().join(BOOK_DIR))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        files
    }

    #[test]
    fn links_are_found_outside_code() {
        let md = "See [a](a.md#x) and [b](https://x.org).\n`[c](c.md)`\n```\n[d](d.md)\n```\n";
        assert_eq!(link_targets(md), ["a.md", "https://x.org"]);
        assert!(is_local("a.md") && !is_local("https://x.org"));
    }

    #[test]
    fn every_chapter_is_in_the_summary() {
        let summary = fs::read_to_string(workspace_root().join("docs/SUMMARY.md")).unwrap();
        let listed = link_targets(&summary);
        for chapter in chapters() {
            let name = chapter.file_name().unwrap().to_str().unwrap();
            if name != "SUMMARY.md" {
                assert!(
                    listed.iter().any(|l| l == name),
                    "docs/{name} is not in docs/SUMMARY.md"
                );
            }
        }
    }

    #[test]
    fn relative_links_of_the_readme_and_the_book_name_files_that_exist() {
        let mut files = chapters();
        files.push(workspace_root().join("README.md"));
        let mut broken = Vec::new();
        for file in files {
            let text = fs::read_to_string(&file).unwrap();
            let dir = file.parent().unwrap();
            for target in link_targets(&text).into_iter().filter(|t| is_local(t)) {
                let decoded = target.replace("%20", " ");
                if !dir.join(&decoded).exists() {
                    broken.push(format!("{}: {target}", file.display()));
                }
            }
        }
        assert!(
            broken.is_empty(),
            "links to no file:\n{}",
            broken.join("\n")
        );
    }
}
