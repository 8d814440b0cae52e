// SPDX-License-Identifier: GPL-2.0-or-later
//! The plugin's options:
//! `core=<n>,cores=<N>,chip=<name>,check=on|off,quantum=<cycles>|off,queues=on|off,wt-reads=silicon|ideal,mem=<path>`.
//!
//! QEMU hands a plugin its options as separate `key=value` strings. All of
//! them are required, and all are checked before the core starts, so that
//! a wrong command line stops QEMU with a reason instead of emulating the
//! wrong chip.

use std::path::Path;

use chip::{Chip, CoreId};

use crate::chipmem::ChipMemory;
use crate::{Error, Result};

/// Every option, in the order messages list them; all but `check`,
/// `quantum`, `queues` and `wt-reads` are required.
pub const KEYS: &[&str] = &[
    "core", "cores", "chip", "check", "quantum", "queues", "wt-reads", "mem",
];

/// How loads from MPBT-WT pages behave: `silicon` (uncached, as the thesis
/// measured, 1.5; the default) or `ideal` (cached in L1, as documented).
pub const WT_READS: [&str; 2] = ["silicon", "ideal"];

/// The checked options of one core's plugin.
#[derive(Debug)]
pub struct PluginOptions {
    /// The chip being emulated.
    pub chip: &'static Chip,
    /// The core this QEMU is.
    pub core: CoreId,
    /// How many cores of the chip run.
    pub cores: u32,
    /// Whether every cached read is checked against memory.
    pub check: bool,
    /// Modelled time: each core's clock, kept within this many core cycles
    /// of the slowest running core ([`crate::timing`]); `None`: no timing.
    pub quantum: Option<u64>,
    /// Modelled time: whether requests queue at the resources they reach
    /// (memory controllers, MPBs, register blocks). Off, every resource
    /// serves at once, and the run's modelled times no longer depend on
    /// the order in which the host ran the cores ([`crate::timing`]).
    pub queues: bool,
    /// Whether loads from MPBT-WT pages bypass L1, as on silicon
    /// ([`crate::model::hierarchy::Config::mpbt_wt_reads_uncached`]).
    pub mpbt_wt_reads_uncached: bool,
    /// The run's chip memory, opened and checked against the chip.
    pub memory: ChipMemory,
}

impl PluginOptions {
    /// Reads and checks the `key=value` strings QEMU passed.
    pub fn parse<I>(args: I) -> Result<Self>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut values: [Option<String>; KEYS.len()] = Default::default();
        for arg in args {
            let arg = arg.as_ref();
            let (key, value) = arg
                .split_once('=')
                .ok_or_else(|| Error::Malformed(arg.to_owned()))?;
            let slot = KEYS
                .iter()
                .position(|k| *k == key)
                .ok_or_else(|| Error::UnknownKey {
                    key: key.to_owned(),
                    valid: KEYS,
                })?;
            if values[slot].replace(value.to_owned()).is_some() {
                return Err(Error::DuplicateKey(KEYS[slot]));
            }
        }
        // Only the checker, timing, the queues and the MPBT-WT read
        // behaviour may be left out: the first two are off unless asked
        // for, requests queue, loads from MPBT-WT pages behave as on
        // silicon.
        let mut values = KEYS.iter().zip(values).map(|(key, value)| match value {
            None if *key == "check" || *key == "quantum" => Ok("off".to_owned()),
            None if *key == "queues" => Ok("on".to_owned()),
            None if *key == "wt-reads" => Ok(WT_READS[0].to_owned()),
            value => value.ok_or(Error::MissingKey(key)),
        });
        let mut next = || values.next().expect("one value per key");
        let (core, cores, chip, check, quantum, queues, wt_reads, mem) = (
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
            next()?,
        );
        let mpbt_wt_reads_uncached = match WT_READS.iter().position(|v| *v == wt_reads) {
            Some(i) => i == 0,
            None => {
                return Err(Error::NotAChoice {
                    key: "wt-reads",
                    value: wt_reads,
                    choices: &WT_READS,
                });
            }
        };
        let quantum = match quantum.as_str() {
            "off" => None,
            q => Some(q.parse::<u64>().map_err(|_| Error::NotANumber {
                key: "quantum",
                value: quantum.clone(),
            })?),
        };
        let check = on_off("check", check)?;
        let queues = on_off("queues", queues)?;

        let chip = crate::find_chip(&chip).ok_or_else(|| Error::UnknownChip {
            name: chip,
            known: crate::CHIPS.iter().map(|c| c.name).collect(),
        })?;
        let core = number("core", &core)?;
        let cores = number("cores", &cores)?;
        if cores == 0 || cores > chip.cores() {
            return Err(Error::CoreCount {
                cores,
                chip: chip.name,
                max: chip.cores(),
            });
        }
        if core >= cores {
            return Err(Error::CoreOutOfRange { core, cores });
        }
        let core = chip
            .core(core)
            .expect("core < cores <= the chip's core count");
        let memory = ChipMemory::open(Path::new(&mem), chip)?;
        Ok(Self {
            chip,
            core,
            cores,
            check,
            quantum,
            queues,
            mpbt_wt_reads_uncached,
            memory,
        })
    }
}

fn on_off(key: &'static str, value: String) -> Result<bool> {
    match value.as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(Error::NotOnOff { key, value }),
    }
}

fn number(key: &'static str, value: &str) -> Result<u32> {
    value.parse().map_err(|_| Error::NotANumber {
        key,
        value: value.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use chip::SCC;
    use tempfile::TempDir;

    use super::*;

    /// A directory with a chip memory file for the SCC.
    fn chip_dir() -> (TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let memory = ChipMemory::create(dir.path(), &SCC, 1).unwrap();
        let mem = memory.path().to_str().unwrap().to_owned();
        (dir, mem)
    }

    fn parse(args: &[&str]) -> Result<PluginOptions> {
        PluginOptions::parse(args)
    }

    fn message(args: &[&str]) -> String {
        parse(args).unwrap_err().to_string()
    }

    #[test]
    fn valid_options_are_read() {
        let (_dir, mem) = chip_dir();
        let mem_arg = format!("mem={mem}");
        let options = parse(&["core=47", "cores=48", "chip=scc", &mem_arg]).unwrap();
        assert_eq!(options.chip, &SCC);
        assert_eq!(options.core, SCC.core(47).unwrap());
        assert_eq!(options.cores, 48);
        assert_eq!(options.memory.path(), Path::new(&mem));
        // Order does not matter.
        let options = parse(&[&mem_arg, "chip=scc", "cores=1", "core=0"]).unwrap();
        assert!(!options.check, "the checker is off unless asked for");
        let options = parse(&[&mem_arg, "chip=scc", "cores=1", "core=0", "check=on"]).unwrap();
        assert!(options.check);
        assert_eq!(
            message(&[&mem_arg, "chip=scc", "cores=1", "core=0", "check=yes"]),
            "option `check=yes`: must be on or off"
        );
        assert_eq!((options.core.index(), options.cores), (0, 1));
        assert_eq!(options.quantum, None, "timing is off unless asked for");
        let timed = [
            mem_arg.as_str(),
            "chip=scc",
            "cores=1",
            "core=0",
            "quantum=5000",
        ];
        assert_eq!(parse(&timed).unwrap().quantum, Some(5000));
        assert!(options.queues, "requests queue unless told not to");
        let unqueued = [&mem_arg, "chip=scc", "cores=1", "core=0", "queues=off"];
        assert!(!parse(&unqueued).unwrap().queues);
        assert_eq!(
            message(&[&mem_arg, "chip=scc", "cores=1", "core=0", "queues=no"]),
            "option `queues=no`: must be on or off"
        );
        assert!(
            options.mpbt_wt_reads_uncached,
            "silicon's MPBT-WT reads by default"
        );
        let ideal = [&mem_arg, "chip=scc", "cores=1", "core=0", "wt-reads=ideal"];
        assert!(!parse(&ideal).unwrap().mpbt_wt_reads_uncached);
        assert_eq!(
            message(&[&mem_arg, "chip=scc", "cores=1", "core=0", "wt-reads=fast"]),
            "option `wt-reads=fast`: must be one of silicon, ideal"
        );
        assert_eq!(
            message(&[&mem_arg, "chip=scc", "cores=1", "core=0", "quantum=soon"]),
            "option `quantum=soon`: not a number"
        );
    }

    #[test]
    fn unknown_key_lists_the_valid_ones() {
        assert_eq!(
            message(&["core=0", "cpus=4"]),
            "unknown option `cpus` (valid options: core, cores, chip, check, quantum, queues, wt-reads, mem)"
        );
    }

    #[test]
    fn malformed_and_duplicate_options_are_refused() {
        assert_eq!(
            message(&["core"]),
            "option `core` is not of the form key=value"
        );
        assert_eq!(
            message(&["core=1", "core=2"]),
            "option `core` is given more than once"
        );
    }

    #[test]
    fn each_missing_key_is_named() {
        let (_dir, mem) = chip_dir();
        let mem_arg = format!("mem={mem}");
        let all = ["core=0", "cores=2", "chip=scc", mem_arg.as_str()];
        let required = KEYS
            .iter()
            .filter(|k| !["check", "quantum", "queues", "wt-reads"].contains(k));
        for (i, key) in required.enumerate() {
            let mut args = all.to_vec();
            args.remove(i);
            assert_eq!(message(&args), format!("option `{key}=` is missing"));
        }
    }

    #[test]
    fn numbers_must_be_numbers() {
        let (_dir, mem) = chip_dir();
        let mem_arg = format!("mem={mem}");
        assert_eq!(
            message(&["core=one", "cores=2", "chip=scc", &mem_arg]),
            "option `core=one`: not a number"
        );
        assert_eq!(
            message(&["core=0", "cores=-2", "chip=scc", &mem_arg]),
            "option `cores=-2`: not a number"
        );
    }

    #[test]
    fn core_counts_must_fit_the_chip() {
        let (_dir, mem) = chip_dir();
        let mem_arg = format!("mem={mem}");
        assert_eq!(
            message(&["core=0", "cores=0", "chip=scc", &mem_arg]),
            "cores=0: chip scc has 1..=48 cores"
        );
        assert_eq!(
            message(&["core=0", "cores=49", "chip=scc", &mem_arg]),
            "cores=49: chip scc has 1..=48 cores"
        );
        assert_eq!(
            message(&["core=8", "cores=8", "chip=scc", &mem_arg]),
            "core=8: a run of cores=8 has cores 0..=7"
        );
    }

    #[test]
    fn unknown_chip_lists_the_known_ones() {
        let (_dir, mem) = chip_dir();
        let mem_arg = format!("mem={mem}");
        assert_eq!(
            message(&["core=0", "cores=2", "chip=scc2", &mem_arg]),
            "unknown chip `scc2` (known chips: scc)"
        );
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
