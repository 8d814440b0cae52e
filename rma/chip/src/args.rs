// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run asks of each core's kernel, as one typed value: how many
//! cores take part, which program they run and its settings.
//!
//! The run tool makes a [`BootArgs`] and writes it with
//! [`BootArgs::to_args`] onto the kernel's command line; the kernel reads
//! it back with [`BootArgs::parse`]. Both go through [`BootArgs::new`],
//! where the core count is checked against the chip, once. Settings are
//! checked against the program's declaration by
//! [`check`](crate::settings::check), on both sides.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

use crate::{ARGS_START, Chip, CoreCount};

/// A run's arguments to the kernel of each of its cores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootArgs<'a> {
    cores: u32,
    program: Option<&'a str>,
    settings: Vec<(&'a str, &'a str)>,
    trace: bool,
}

impl<'a> BootArgs<'a> {
    /// The arguments for `cores` cores of `chip` (1 up to its size)
    /// running `program` (`None`: the image's first) with `settings`
    /// (name and value pairs, each name once, neither holding blanks,
    /// the name no `=`).
    pub fn new(
        chip: &Chip,
        cores: u32,
        program: Option<&'a str>,
        settings: Vec<(&'a str, &'a str)>,
    ) -> Result<Self, ArgsError<'a>> {
        chip.run_cores(cores).map_err(ArgsError::Cores)?;
        if let Some(program) = program {
            word(program, false)?;
        }
        for (i, &(name, value)) in settings.iter().enumerate() {
            word(name, false)?;
            word(value, true)?;
            if RESERVED.contains(&name) || settings[..i].iter().any(|(n, _)| *n == name) {
                return Err(ArgsError::Twice { name });
            }
        }
        Ok(Self {
            cores,
            program,
            settings,
            trace: false,
        })
    }

    /// The same, with rma's calls traced in modelled time (`trace=on` on
    /// the command line; [`crate::trace`]).
    pub fn traced(self, trace: bool) -> Self {
        Self { trace, ..self }
    }

    /// Whether rma's calls are traced.
    pub fn trace(&self) -> bool {
        self.trace
    }

    /// Cores taking part: `0..cores`.
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// The program named, if one is.
    pub fn program(&self) -> Option<&'a str> {
        self.program
    }

    /// The program's settings given, as name and value pairs.
    pub fn settings(&self) -> &[(&'a str, &'a str)] {
        &self.settings
    }

    /// The command line the kernel reads: [`ARGS_START`] (without its
    /// leading blank, which separates it from the image path QEMU puts
    /// first), then `cores=N`, `program=NAME` and each setting as
    /// `NAME=VALUE`.
    pub fn to_args(&self) -> String {
        let mut line = String::from(ARGS_START.trim_start());
        // Writing into a String cannot fail.
        let _ = write!(line, "cores={}", self.cores);
        if let Some(program) = self.program {
            let _ = write!(line, " program={program}");
        }
        if self.trace {
            line.push_str(" trace=on");
        }
        for (name, value) in &self.settings {
            let _ = write!(line, " {name}={value}");
        }
        line
    }

    /// Reads what [`BootArgs::to_args`] wrote from a kernel's command line.
    ///
    /// QEMU puts the image's path first, and a path may hold spaces and
    /// `=`; only what follows the last [`ARGS_START`] is read. Without it
    /// (a kernel booted by hand), words without `=` are skipped. Without
    /// `cores=`, every core of the chip takes part.
    pub fn parse(cmdline: &'a str, chip: &Chip) -> Result<Self, ArgsError<'a>> {
        let args = cmdline
            .rsplit_once(ARGS_START)
            .map_or(cmdline, |(_, args)| args);
        let mut cores = None;
        let mut program = None;
        let mut trace = None;
        let mut settings = Vec::new();
        for (name, value) in args.split_whitespace().filter_map(|w| w.split_once('=')) {
            match name {
                "cores" if cores.is_none() => {
                    cores = Some(value.parse().map_err(|_| ArgsError::NotCores { value })?);
                }
                "program" if program.is_none() => program = Some(value),
                "trace" if trace.is_none() => {
                    trace = Some(match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(ArgsError::NotOnOff { name, value }),
                    });
                }
                _ => settings.push((name, value)),
            }
        }
        Ok(
            Self::new(chip, cores.unwrap_or(chip.cores()), program, settings)?
                .traced(trace.unwrap_or(false)),
        )
    }
}

/// Names the kernel itself reads, which no program setting may take.
const RESERVED: [&str; 3] = ["cores", "program", "trace"];

/// Checks that `text` fits in a command line word: not empty, no blank,
/// and, unless it is a `value`, no `=`.
fn word(text: &str, value: bool) -> Result<(), ArgsError<'_>> {
    if text.is_empty() || text.contains(char::is_whitespace) || (!value && text.contains('=')) {
        Err(ArgsError::Word { text })
    } else {
        Ok(())
    }
}

/// Why boot arguments were refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgsError<'a> {
    /// More cores than the chip has, or none.
    Cores(CoreCount),
    /// `cores=` with something other than a number.
    NotCores {
        /// What was given.
        value: &'a str,
    },
    /// `trace=` with something other than `on` or `off`.
    NotOnOff {
        /// The name.
        name: &'a str,
        /// What was given.
        value: &'a str,
    },
    /// A name given twice (`cores`, `program` and `trace` count as given).
    Twice {
        /// The name.
        name: &'a str,
    },
    /// A name or value that a command line cannot carry.
    Word {
        /// The text.
        text: &'a str,
    },
}

impl fmt::Display for ArgsError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cores(count) => write!(f, "{count}"),
            Self::NotCores { value } => write!(f, "cores={value}: not a number of cores"),
            Self::NotOnOff { name, value } => write!(f, "{name}={value}: must be on or off"),
            Self::Twice { name } => write!(f, "{name} is given twice"),
            Self::Word { text } => write!(
                f,
                "`{text}` cannot be passed on the command line: it is empty or holds a blank (or `=` in a name)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;

    use super::*;
    use crate::SCC;

    #[test]
    fn arguments_survive_the_command_line() {
        let args = BootArgs::new(
            &SCC,
            16,
            Some("dht"),
            vec![("scheme", "mcs-wp"), ("size", "4K")],
        )
        .unwrap();
        let line = args.to_args();
        assert_eq!(line, "-- cores=16 program=dht scheme=mcs-wp size=4K");
        // QEMU puts the image path first; it may hold blanks and `=`.
        let cmdline = alloc::format!("/tmp/a b=c/kernel {line}");
        assert_eq!(BootArgs::parse(&cmdline, &SCC).unwrap(), args);
        let bare = BootArgs::new(&SCC, 1, None, vec![]).unwrap();
        assert_eq!(BootArgs::parse(&bare.to_args(), &SCC).unwrap(), bare);
        let traced = bare.traced(true);
        assert_eq!(traced.to_args(), "-- cores=1 trace=on");
        assert_eq!(BootArgs::parse(&traced.to_args(), &SCC).unwrap(), traced);
        assert_eq!(
            BootArgs::parse("-- trace=yes", &SCC)
                .unwrap_err()
                .to_string(),
            "trace=yes: must be on or off"
        );
    }

    #[test]
    fn a_kernel_booted_by_hand_runs_on_every_core() {
        let args = BootArgs::parse("kernel quiet program=ring", &SCC).unwrap();
        assert_eq!(args.cores(), 48);
        assert_eq!(args.program(), Some("ring"));
        assert!(args.settings().is_empty());
    }

    #[test]
    fn the_core_count_is_checked_against_the_chip() {
        let message = |cmdline| BootArgs::parse(cmdline, &SCC).unwrap_err().to_string();
        assert_eq!(
            message("-- cores=49"),
            "49 cores: the SCC has 48, so choose 1..=48"
        );
        assert_eq!(
            message("-- cores=0"),
            "0 cores: the SCC has 48, so choose 1..=48"
        );
        assert_eq!(message("-- cores=x"), "cores=x: not a number of cores");
    }

    #[test]
    fn repeated_and_unwritable_words_are_refused() {
        let message = |cmdline| BootArgs::parse(cmdline, &SCC).unwrap_err().to_string();
        assert_eq!(message("-- cores=2 cores=3"), "cores is given twice");
        assert_eq!(message("-- program=a program=b"), "program is given twice");
        assert_eq!(message("-- a=1 a=2"), "a is given twice");
        let error = BootArgs::new(&SCC, 2, Some("ring"), vec![("a", "x y")]).unwrap_err();
        assert_eq!(error, ArgsError::Word { text: "x y" });
        let error = BootArgs::new(&SCC, 2, Some("ring"), vec![("a=b", "1")]).unwrap_err();
        assert_eq!(error, ArgsError::Word { text: "a=b" });
        let error = BootArgs::new(&SCC, 2, Some(""), vec![]).unwrap_err();
        assert_eq!(error, ArgsError::Word { text: "" });
        let error = BootArgs::new(&SCC, 2, None, vec![("cores", "3")]).unwrap_err();
        assert_eq!(error, ArgsError::Twice { name: "cores" });
    }
}
