// SPDX-License-Identifier: MIT OR Apache-2.0
//! The guest programs, from the kernel's own catalog, and the checks on
//! what `cargo xtask run` is asked to boot.
//!
//! The catalog is compiled in from the kernel's source rather than copied,
//! so a program added there is known here at once, and an unknown name is
//! refused before anything is built.

use std::fmt::Write;

use anyhow::{Result, bail};

#[path = "../../kernel/src/programs/catalog.rs"]
mod catalog;

pub use catalog::{DEFAULT_PROGRAM, PROGRAMS, ProgramInfo};

use crate::CHIP;

/// The program called `name`, or an error listing every program.
pub fn find_program(name: &str) -> Result<&'static ProgramInfo> {
    match catalog::find(name) {
        Some(program) => Ok(program),
        None => bail!(
            "unknown program `{name}`; the programs are:\n{}",
            list().trim_end()
        ),
    }
}

/// `cores` if that many cores of the chip can run, or an error naming the range.
pub fn check_cores(cores: u32) -> Result<u32> {
    let max = CHIP.cores();
    if (1..=max).contains(&cores) {
        Ok(cores)
    } else {
        bail!(
            "{cores} cores: the {} has {max}, so choose 1..={max}",
            CHIP.name.to_uppercase()
        )
    }
}

/// Every program with its description, one per line, for messages and `--help`.
pub fn list() -> String {
    let width = PROGRAMS.iter().map(|p| p.name.len()).max().unwrap_or(0);
    PROGRAMS.iter().fold(String::new(), |mut out, p| {
        let _ = writeln!(out, "  {:width$}  {}", p.name, p.about);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_is_found_and_the_default_exists() {
        for p in PROGRAMS {
            assert_eq!(find_program(p.name).unwrap().name, p.name);
        }
        assert!(find_program(DEFAULT_PROGRAM).is_ok());
    }

    #[test]
    fn an_unknown_program_is_refused_with_the_list() {
        let message = find_program("nosuch").unwrap_err().to_string();
        assert!(message.starts_with("unknown program `nosuch`"), "{message}");
        for p in PROGRAMS {
            assert!(
                message.contains(p.name) && message.contains(p.about),
                "{message}"
            );
        }
    }

    #[test]
    fn core_counts_outside_the_chip_are_refused() {
        assert_eq!(check_cores(1).unwrap(), 1);
        assert_eq!(check_cores(48).unwrap(), 48);
        for bad in [0, 49] {
            let message = check_cores(bad).unwrap_err().to_string();
            assert_eq!(
                message,
                format!("{bad} cores: the SCC has 48, so choose 1..=48")
            );
        }
    }
}
