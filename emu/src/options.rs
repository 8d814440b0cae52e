// SPDX-License-Identifier: GPL-2.0-or-later
//! The plugin's options, with the chip memory they name opened.
//!
//! The options themselves, their keys, defaults and checks, are
//! [`chip::PluginOptions`]; this adds what needs the host: opening the
//! chip memory file and checking it against the chip. All of it happens
//! before the core starts, so that a wrong command line stops QEMU with a
//! reason instead of emulating the wrong chip.

use std::path::Path;

use chip::PluginOptions;

use crate::Result;
use crate::chipmem::ChipMemory;

/// What one core's plugin starts from.
#[derive(Debug)]
pub struct PluginSetup {
    /// Its checked options.
    pub options: PluginOptions,
    /// The run's chip memory, opened and checked against the chip.
    pub memory: ChipMemory,
}

impl PluginSetup {
    /// Reads and checks the `key=value` strings QEMU passed
    /// ([`PluginOptions::parse`]), then opens the chip memory they name.
    pub fn parse<I>(args: I) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let options = PluginOptions::parse(args)?;
        let memory = ChipMemory::open(Path::new(options.mem()), options.chip())?;
        Ok(Self { options, memory })
    }
}

#[cfg(test)]
mod tests {
    use chip::{OptionKey, OptionsError, SCC};
    use tempfile::TempDir;

    use super::*;
    use crate::Error;

    /// A directory with a chip memory file for the SCC.
    fn chip_dir() -> (TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 1).unwrap();
        let mem = memory.path().to_str().unwrap().to_owned();
        (dir, mem)
    }

    fn parse(args: &[&str]) -> Result<PluginSetup> {
        PluginSetup::parse(args)
    }

    #[test]
    fn the_options_name_the_memory_that_is_opened() {
        let (_dir, mem) = chip_dir();
        let mem_arg = format!("mem={mem}");
        let setup = parse(&["core=47", "cores=48", "chip=scc", &mem_arg]).unwrap();
        assert_eq!(setup.options.core(), SCC.core(47).unwrap());
        assert_eq!(setup.memory.path(), Path::new(&mem));
    }

    #[test]
    fn wrong_options_are_refused_before_the_memory_is_looked_at() {
        let err = parse(&["core=0", "cores=2", "chip=scc"]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Options(OptionsError::MissingKey(OptionKey::Mem))
            ),
            "{err}"
        );
        assert_eq!(err.to_string(), "option `mem=` is missing");
    }

    #[test]
    fn chip_memory_must_exist_and_fit_the_chip() {
        let (dir, mem) = chip_dir();
        let missing = dir.path().join("missing.mem");
        let missing_arg = format!("mem={}", missing.display());
        let err = parse(&["core=0", "cores=2", "chip=scc", &missing_arg]).unwrap_err();
        assert!(
            matches!(err, Error::Io { ref path, .. } if *path == missing),
            "{err}"
        );
        assert!(err.to_string().contains("No such file"), "{err}");

        std::fs::File::options()
            .write(true)
            .open(&mem)
            .unwrap()
            .set_len(1 << 20)
            .unwrap();
        let mem_arg = format!("mem={mem}");
        let err = parse(&["core=0", "cores=2", "chip=scc", &mem_arg]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::MemSize {
                    actual: 1048576,
                    ..
                }
            ),
            "{err}"
        );
    }
}
