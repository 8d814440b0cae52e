// SPDX-License-Identifier: GPL-2.0-or-later
//! The one error type of this crate.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong in `emu`: creating or opening the chip
/// memory, reading the plugin's options, and reading the cores' reports.
///
/// Each message is written for the person who started QEMU: the plugin
/// prints it as `emu: <message>` and QEMU refuses to start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file operation on the chip memory failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The chip memory file does not have the size the chip's layout needs:
    /// it was made for another chip, or it is not a chip memory file.
    #[error("{path}: {actual} bytes, but chip {chip} needs a chip memory file of {expected} bytes")]
    MemSize {
        /// The file.
        path: PathBuf,
        /// The chip whose layout was expected.
        chip: &'static str,
        /// Bytes the layout needs.
        expected: u64,
        /// Bytes the file has.
        actual: u64,
    },
    /// A plugin argument is not of the form `key=value`.
    #[error("option `{0}` is not of the form key=value")]
    Malformed(String),
    /// A plugin option that this plugin does not know.
    #[error("unknown option `{key}` (valid options: {})", valid.join(", "))]
    UnknownKey {
        /// The key given.
        key: String,
        /// The keys this plugin accepts.
        valid: &'static [&'static str],
    },
    /// A plugin option given twice.
    #[error("option `{0}` is given more than once")]
    DuplicateKey(&'static str),
    /// A required plugin option is missing.
    #[error("option `{0}=` is missing")]
    MissingKey(&'static str),
    /// A plugin option that must be a number is not one.
    #[error("option `{key}={value}`: not a number")]
    NotANumber {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
    },
    /// A plugin option that must be one of a few words is none of them.
    #[error("option `{key}={value}`: must be one of {}", choices.join(", "))]
    NotAChoice {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
        /// The words it may be.
        choices: &'static [&'static str],
    },
    /// A plugin option that must be `on` or `off` is neither.
    #[error("option `{key}={value}`: must be on or off")]
    NotOnOff {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
    },
    /// `chip=` names no known chip.
    #[error("unknown chip `{name}` (known chips: {})", known.join(", "))]
    UnknownChip {
        /// The name given.
        name: String,
        /// The names of the chips this crate knows.
        known: Vec<&'static str>,
    },
    /// `cores=` is 0 or larger than the chip.
    #[error("cores={cores}: chip {chip} has 1..={max} cores")]
    CoreCount {
        /// The count given.
        cores: u32,
        /// The chip.
        chip: &'static str,
        /// The chip's core count.
        max: u32,
    },
    /// `core=` is not one of the `cores=` cores that run.
    #[error("core={core}: a run of cores={cores} has cores 0..={}", cores - 1)]
    CoreOutOfRange {
        /// The core given.
        core: u32,
        /// The number of cores in the run.
        cores: u32,
    },
    /// A core's report file (see [`crate::report`]) is not a valid report.
    #[error("{path}, line {line}: {message}")]
    Report {
        /// The file.
        path: PathBuf,
        /// The line that is wrong, from 1 (for something missing: the line
        /// where it should have come before).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The chip model cannot go on with this core: the guest did something
    /// the chip would not let it do unnoticed (an access through a LUT entry
    /// that reaches nothing), or a file of the run is not what it must be.
    #[error("{0}")]
    Model(String),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Io`] about `path`; for `map_err`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}
