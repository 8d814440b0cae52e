// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run asks of each core's kernel, as one typed value: the chip,
//! how many cores take part, which program they run and its settings, and
//! the size of each core's stack.
//!
//! One image boots on every chip of [`CHIPS`](crate::CHIPS): the run
//! names the chip on the command line (`chip=NAME`), and the kernel takes
//! every number of the hardware from that chip.
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

use crate::{ARGS_START, Chip, CoreCount, DEFAULT_CHIP, chip_names, find_chip};

/// A run's arguments to the kernel of each of its cores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootArgs<'a> {
    chip: &'static Chip,
    cores: u32,
    program: Option<&'a str>,
    settings: Vec<(&'a str, &'a str)>,
    trace: bool,
    stats: bool,
    stack_kib: u32,
}

/// KiB of each core's stack unless a run asks for another size: what the
/// kernel had before the size became a setting, and enough for every
/// built-in program and the MPI test programs.
pub const DEFAULT_STACK_KIB: u32 = 64;

/// Longest command line the kernel reads from its loader, in bytes: the
/// image's path, a space, then what [`BootArgs::to_args`] writes. A
/// longer one is refused at boot, so a run tool refuses it before.
pub const COMMAND_LINE_MAX: usize = 1024;

/// The largest stack a run may ask for, in KiB. A core has 32 MiB of
/// private RAM (`emu::launch::DEFAULT_MEMORY_MIB`); the kernel heap takes
/// 16 MiB of it and the image, page tables and the program's own frames
/// some MiB more, so 8 MiB is what is surely left for the stack.
pub const MAX_STACK_KIB: u32 = 8 * 1024;

/// Checks a stack size in KiB: at least one page, whole 4 KiB pages (the
/// kernel maps it page by page, with an unmapped guard page below), and at
/// most [`MAX_STACK_KIB`].
pub fn check_stack_kib(kib: u32) -> Result<(), StackError> {
    if kib == 0 {
        Err(StackError::Zero)
    } else if !kib.is_multiple_of(4) {
        Err(StackError::NotPages(kib))
    } else if kib > MAX_STACK_KIB {
        Err(StackError::TooLarge(kib))
    } else {
        Ok(())
    }
}

/// Why a stack size was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackError {
    /// No stack at all.
    Zero,
    /// Not a multiple of the 4 KiB page.
    NotPages(u32),
    /// More than [`MAX_STACK_KIB`].
    TooLarge(u32),
}

impl fmt::Display for StackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Zero => f.write_str("a core needs a stack of at least 4 KiB"),
            Self::NotPages(kib) => {
                write!(f, "{kib} KiB is not a whole number of 4 KiB pages")
            }
            Self::TooLarge(kib) => write!(
                f,
                "{kib} KiB is more than a core's RAM leaves for the stack ({MAX_STACK_KIB} KiB at most)"
            ),
        }
    }
}

impl<'a> BootArgs<'a> {
    /// The arguments for `cores` cores of `chip` (1 up to its size)
    /// running `program` (`None`: the image's first) with `settings`
    /// (name and value pairs, each name once, neither holding blanks,
    /// the name no `=`).
    pub fn new(
        chip: &'static Chip,
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
            chip,
            cores,
            program,
            settings,
            trace: false,
            stats: false,
            stack_kib: DEFAULT_STACK_KIB,
        })
    }

    /// The same, with stacks of `kib` KiB ([`check_stack_kib`]; `stack_kib=N`
    /// on the command line).
    pub fn with_stack_kib(self, kib: u32) -> Result<Self, ArgsError<'a>> {
        check_stack_kib(kib).map_err(ArgsError::Stack)?;
        Ok(Self {
            stack_kib: kib,
            ..self
        })
    }

    /// KiB of each core's stack: [`DEFAULT_STACK_KIB`] unless set.
    pub fn stack_kib(&self) -> u32 {
        self.stack_kib
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

    /// The same, with the run's statistics asked for (`stats=on` on the
    /// command line): layers that keep their own (the shared-memory
    /// services) report them at the end, for `cargo xtask run --stats`.
    pub fn with_stats(self, stats: bool) -> Self {
        Self { stats, ..self }
    }

    /// Whether the run asked for statistics.
    pub fn stats(&self) -> bool {
        self.stats
    }

    /// The chip the cores are of.
    pub fn chip(&self) -> &'static Chip {
        self.chip
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
    /// first), then `chip=NAME`, `cores=N`, `program=NAME`, `trace=on`,
    /// `stats=on`, `stack_kib=N` (only when not [`DEFAULT_STACK_KIB`]) and each setting
    /// as `NAME=VALUE`.
    pub fn to_args(&self) -> String {
        let mut line = String::from(ARGS_START.trim_start());
        // Writing into a String cannot fail.
        let _ = write!(line, "chip={} cores={}", self.chip.name, self.cores);
        if let Some(program) = self.program {
            let _ = write!(line, " program={program}");
        }
        if self.trace {
            line.push_str(" trace=on");
        }
        if self.stats {
            line.push_str(" stats=on");
        }
        if self.stack_kib != DEFAULT_STACK_KIB {
            let _ = write!(line, " stack_kib={}", self.stack_kib);
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
    /// `chip=`, the chip is [`DEFAULT_CHIP`]; without `cores=`, every core
    /// of the chip takes part; without `stack_kib=`, stacks are
    /// [`DEFAULT_STACK_KIB`].
    pub fn parse(cmdline: &'a str) -> Result<Self, ArgsError<'a>> {
        let args = cmdline
            .rsplit_once(ARGS_START)
            .map_or(cmdline, |(_, args)| args);
        let mut chip = None;
        let mut cores = None;
        let mut program = None;
        let mut trace = None;
        let mut stats = None;
        let mut stack_kib = None;
        let mut settings = Vec::new();
        for (name, value) in args.split_whitespace().filter_map(|w| w.split_once('=')) {
            match name {
                "chip" if chip.is_none() => {
                    chip = Some(find_chip(value).ok_or(ArgsError::UnknownChip { value })?);
                }
                "cores" if cores.is_none() => {
                    cores = Some(value.parse().map_err(|_| ArgsError::NotCores { value })?);
                }
                "program" if program.is_none() => program = Some(value),
                "trace" if trace.is_none() => trace = Some(on_off(name, value)?),
                "stats" if stats.is_none() => stats = Some(on_off(name, value)?),
                "stack_kib" if stack_kib.is_none() => {
                    stack_kib = Some(value.parse().map_err(|_| ArgsError::NotKib { value })?);
                }
                _ => settings.push((name, value)),
            }
        }
        let chip = chip.unwrap_or(DEFAULT_CHIP);
        Self::new(chip, cores.unwrap_or(chip.cores()), program, settings)?
            .traced(trace.unwrap_or(false))
            .with_stats(stats.unwrap_or(false))
            .with_stack_kib(stack_kib.unwrap_or(DEFAULT_STACK_KIB))
    }
}

/// Names the kernel itself reads, which no program setting may take.
const RESERVED: [&str; 6] = ["chip", "cores", "program", "trace", "stats", "stack_kib"];

/// `on` or `off` as given for `name`.
fn on_off<'a>(name: &'a str, value: &'a str) -> Result<bool, ArgsError<'a>> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(ArgsError::NotOnOff { name, value }),
    }
}

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
    /// `chip=` names none of [`CHIPS`](crate::CHIPS).
    UnknownChip {
        /// What was given.
        value: &'a str,
    },
    /// `cores=` with something other than a number.
    NotCores {
        /// What was given.
        value: &'a str,
    },
    /// `trace=` or `stats=` with something other than `on` or `off`.
    NotOnOff {
        /// The name.
        name: &'a str,
        /// What was given.
        value: &'a str,
    },
    /// `stack_kib=` with something other than a number.
    NotKib {
        /// What was given.
        value: &'a str,
    },
    /// A stack size [`check_stack_kib`] refuses.
    Stack(StackError),
    /// A name given twice (`chip`, `cores`, `program`, `trace`, `stats`
    /// and `stack_kib` count as given).
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
            Self::UnknownChip { value } => {
                write!(
                    f,
                    "chip={value}: unknown chip (known chips: {})",
                    chip_names()
                )
            }
            Self::NotCores { value } => write!(f, "cores={value}: not a number of cores"),
            Self::NotKib { value } => write!(f, "stack_kib={value}: not a number of KiB"),
            Self::Stack(error) => write!(f, "stack_kib: {error}"),
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
    use crate::{MESH8X8, SCC};

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
        assert_eq!(
            line,
            "-- chip=scc cores=16 program=dht scheme=mcs-wp size=4K"
        );
        // QEMU puts the image path first; it may hold blanks and `=`.
        let cmdline = alloc::format!("/tmp/a b=c/kernel {line}");
        assert_eq!(BootArgs::parse(&cmdline).unwrap(), args);
        let bare = BootArgs::new(&SCC, 1, None, vec![]).unwrap();
        assert_eq!(BootArgs::parse(&bare.to_args()).unwrap(), bare);
        let traced = bare.clone().traced(true);
        assert_eq!(traced.to_args(), "-- chip=scc cores=1 trace=on");
        assert_eq!(BootArgs::parse(&traced.to_args()).unwrap(), traced);
        let counted = bare.clone().with_stats(true);
        assert_eq!(counted.to_args(), "-- chip=scc cores=1 stats=on");
        assert!(BootArgs::parse(&counted.to_args()).unwrap().stats());
        assert!(!BootArgs::parse("-- stats=off").unwrap().stats());
        assert_eq!(
            BootArgs::parse("-- stats=1").unwrap_err().to_string(),
            "stats=1: must be on or off"
        );
        assert_eq!(
            BootArgs::parse("-- trace=yes").unwrap_err().to_string(),
            "trace=yes: must be on or off"
        );
    }

    #[test]
    fn the_stack_size_survives_the_command_line() {
        let bare = BootArgs::new(&SCC, 2, Some("ring"), vec![]).unwrap();
        assert_eq!(bare.stack_kib(), DEFAULT_STACK_KIB);
        assert!(
            !bare.to_args().contains("stack_kib"),
            "the default is not written"
        );
        let big = bare.clone().with_stack_kib(256).unwrap();
        assert_eq!(
            big.to_args(),
            "-- chip=scc cores=2 program=ring stack_kib=256"
        );
        assert_eq!(BootArgs::parse(&big.to_args()).unwrap(), big);
        let traced = big.traced(true).to_args();
        assert_eq!(BootArgs::parse(&traced).unwrap().stack_kib(), 256);
        assert_eq!(
            BootArgs::parse("-- x=1").unwrap().stack_kib(),
            DEFAULT_STACK_KIB
        );
    }

    #[test]
    fn bad_stack_sizes_are_refused() {
        let message = |cmdline| BootArgs::parse(cmdline).unwrap_err().to_string();
        assert_eq!(
            message("-- stack_kib=0"),
            "stack_kib: a core needs a stack of at least 4 KiB"
        );
        assert_eq!(
            message("-- stack_kib=6"),
            "stack_kib: 6 KiB is not a whole number of 4 KiB pages"
        );
        assert_eq!(
            message("-- stack_kib=8196"),
            "stack_kib: 8196 KiB is more than a core's RAM leaves for the stack (8192 KiB at most)"
        );
        assert_eq!(
            message("-- stack_kib=x"),
            "stack_kib=x: not a number of KiB"
        );
        assert_eq!(
            message("-- stack_kib=4 stack_kib=8"),
            "stack_kib is given twice"
        );
        assert_eq!(check_stack_kib(4), Ok(()));
        assert_eq!(check_stack_kib(MAX_STACK_KIB), Ok(()));
        let error = BootArgs::new(&SCC, 2, None, vec![("stack_kib", "8")]).unwrap_err();
        assert_eq!(error, ArgsError::Twice { name: "stack_kib" });
    }

    #[test]
    fn a_kernel_booted_by_hand_runs_on_every_core() {
        let args = BootArgs::parse("kernel quiet program=ring").unwrap();
        assert_eq!(args.cores(), 48);
        assert_eq!(args.program(), Some("ring"));
        assert!(args.settings().is_empty());
    }

    #[test]
    fn the_chip_is_named_on_the_command_line() {
        let args = BootArgs::new(&MESH8X8, 128, Some("comm"), vec![]).unwrap();
        assert_eq!(args.to_args(), "-- chip=mesh8x8 cores=128 program=comm");
        let line = args.to_args();
        let parsed = BootArgs::parse(&line).unwrap();
        assert_eq!(parsed.chip(), &MESH8X8);
        assert_eq!(parsed, args);
        // Without `chip=`, the default chip; without `cores=`, all of its cores.
        assert_eq!(BootArgs::parse("-- chip=mesh8x8").unwrap().cores(), 192);
        let message = |cmdline| BootArgs::parse(cmdline).unwrap_err().to_string();
        assert_eq!(
            message("-- chip=nosuch cores=2"),
            "chip=nosuch: unknown chip (known chips: scc, mesh8x8)"
        );
        assert_eq!(
            message("-- chip=mesh8x8 cores=193"),
            "193 cores: the MESH8X8 has 192, so choose 1..=192"
        );
        assert_eq!(message("-- chip=scc chip=scc"), "chip is given twice");
        let error = BootArgs::new(&SCC, 2, None, vec![("chip", "scc")]).unwrap_err();
        assert_eq!(error, ArgsError::Twice { name: "chip" });
    }

    #[test]
    fn the_core_count_is_checked_against_the_chip() {
        let message = |cmdline| BootArgs::parse(cmdline).unwrap_err().to_string();
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
        let message = |cmdline| BootArgs::parse(cmdline).unwrap_err().to_string();
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
