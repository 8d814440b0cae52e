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

pub use catalog::{DEFAULT_PROGRAM, PROGRAMS, Param, ParamError, ProgramInfo};

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

/// Whether `program` takes the setting `name=value`, or an error naming
/// what it takes.
pub fn check_param(program: &ProgramInfo, name: &str, value: &str) -> Result<()> {
    match program.check_param(name, value) {
        Ok(_) => Ok(()),
        Err(ParamError::Unknown) if program.params.is_empty() => {
            bail!(
                "program `{}` takes no --param (given {name}={value})",
                program.name
            )
        }
        Err(ParamError::Unknown) => bail!(
            "program `{}` has no setting `{name}`; its settings are: {}",
            program.name,
            program
                .params
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(ParamError::BadValue(param)) => bail!(
            "--param {name}={value}: `{name}` of program `{}` must be one of {}",
            program.name,
            param.values.join(", ")
        ),
    }
}

/// Parses `NAME=VALUE` as given to `--param`.
pub fn parse_param(text: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((name, value))
            if !name.is_empty()
                && !value.is_empty()
                && !text.contains(char::is_whitespace)
                && !value.contains('=') =>
        {
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => bail!("`{text}` is not NAME=VALUE (one `=`, no spaces)"),
    }
}

/// Every program with its description and settings, for messages and
/// `--help`.
pub fn list() -> String {
    let width = PROGRAMS.iter().map(|p| p.name.len()).max().unwrap_or(0);
    PROGRAMS.iter().fold(String::new(), |mut out, p| {
        let _ = writeln!(out, "  {:width$}  {}", p.name, p.about);
        for param in p.params {
            let _ = writeln!(
                out,
                "  {:width$}    --param {}={} (default {}): {}",
                "",
                param.name,
                param.values.join("|"),
                param.default,
                param.about
            );
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_has_a_valid_default_and_settings_are_checked() {
        for p in PROGRAMS {
            for param in p.params {
                assert!(
                    param.values.contains(&param.default),
                    "{}: {}",
                    p.name,
                    param.name
                );
                check_param(p, param.name, param.default).unwrap();
                let bad = check_param(p, param.name, "no-such-value").unwrap_err();
                assert!(bad.to_string().contains("must be one of"), "{bad}");
            }
            let unknown = check_param(p, "no-such-setting", "1").unwrap_err();
            assert!(unknown.to_string().contains(p.name), "{unknown}");
        }
        assert_eq!(
            parse_param("scheme=gbh").unwrap(),
            ("scheme".into(), "gbh".into())
        );
        for bad in ["scheme", "=gbh", "scheme=", "a=b=c", "a =b"] {
            assert!(parse_param(bad).is_err(), "{bad}");
        }
    }

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
