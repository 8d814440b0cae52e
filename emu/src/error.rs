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
    /// The plugin's options are wrong ([`chip::PluginOptions::parse`]).
    #[error("{0}")]
    Options(#[from] chip::OptionsError),
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
