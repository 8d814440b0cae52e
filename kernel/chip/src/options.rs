// SPDX-License-Identifier: MIT OR Apache-2.0
//! How the emulator runs a chip ([`Mode`]), and the options that tell one
//! core's chip model so ([`PluginOptions`]).
//!
//! A run is plain QEMU or QEMU with the chip model, a plugin in each core's
//! QEMU; the model may check coherence, choose how loads from MPBT-WT pages
//! behave, and keep modelled time, with or without queues at the shared
//! resources. The types say only what means something: a plain run has no
//! quantum, and queues exist only with modelled time.
//!
//! QEMU hands the plugin its options as separate `key=value` strings:
//! `core=<n>,cores=<N>,chip=<name>,check=on|off,quantum=<cycles>|off,queues=on|off,seed=<n>,wt-reads=silicon|ideal,entry=<address>,mem=<path>`.
//! [`PluginOptions::to_args`] writes them and [`PluginOptions::parse`]
//! reads and checks them, so that a wrong command line stops QEMU with a
//! reason instead of emulating the wrong chip. Opening the chip memory
//! file the options name is the emulator's matter (`emu::options`).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::num::NonZeroU64;

use crate::{Chip, CoreCount, CoreId, chip_names, find_chip};

/// The default quantum of modelled time, in core cycles (about 188 µs at
/// 533 MHz): on the 48-core MPB ring it models the same cycles as quanta a
/// hundred times smaller (within about 1 %) at a fraction of their host
/// time (`cargo xtask bench quantum`, `docs/modelled-time.md`).
pub const DEFAULT_QUANTUM: u64 = 100_000;

/// The seed of a run that names none ([`Time::On`]).
pub const DEFAULT_SEED: u64 = 0;

/// How a run emulates the chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// No plugin: coherent shared memory at plain QEMU's speed, the
    /// baseline the model's overhead is measured against.
    Plain,
    /// The plugin models the memory system (and, if asked, time) as
    /// non-coherent as the chip's.
    Modelled(Model),
}

impl Default for Mode {
    /// With the chip model, as [`Model::DEFAULT`]: the model is what makes
    /// the emulator the chip.
    fn default() -> Self {
        Self::Modelled(Model::DEFAULT)
    }
}

impl Mode {
    /// The chip model's settings, unless the run is plain.
    pub const fn model(self) -> Option<Model> {
        match self {
            Self::Plain => None,
            Self::Modelled(model) => Some(model),
        }
    }

    /// The quantum of modelled time, if the run models time.
    pub const fn quantum(self) -> Option<NonZeroU64> {
        match self {
            Self::Plain => None,
            Self::Modelled(model) => model.time.quantum(),
        }
    }

    /// This mode with the chip's variation drawn from `seed`
    /// ([`Time::On`]); a mode without modelled time has none to draw.
    pub const fn with_seed(self, seed: u64) -> Self {
        match self {
            Self::Modelled(Model {
                check,
                wt_reads,
                time: Time::On {
                    quantum, queues, ..
                },
            }) => Self::Modelled(Model {
                check,
                wt_reads,
                time: Time::On {
                    quantum,
                    queues,
                    seed,
                },
            }),
            other => other,
        }
    }
}

/// What the chip model does besides keeping each core's caches as
/// non-coherent as the chip's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Model {
    /// Whether every cached read is checked against memory: the cores
    /// count the reads that return data memory no longer holds.
    pub check: bool,
    /// How loads from MPBT-WT pages behave.
    pub wt_reads: WtReads,
    /// Modelled time, or none.
    pub time: Time,
}

impl Model {
    /// What a run does unless told otherwise: no checker, MPBT-WT reads as
    /// on silicon, modelled time within [`DEFAULT_QUANTUM`] with queues.
    pub const DEFAULT: Self = Self {
        check: false,
        wt_reads: WtReads::Silicon,
        time: Time::DEFAULT,
    };
}

impl Default for Model {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How loads from MPBT-WT pages behave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WtReads {
    /// Uncached, as the thesis measured on silicon (1.5): reads at NCM
    /// speed, never stale.
    #[default]
    Silicon,
    /// Cached in L1, as Intel documents the memory type.
    Ideal,
}

impl WtReads {
    /// Both, in the order messages list them.
    pub const ALL: [Self; 2] = [Self::Silicon, Self::Ideal];

    /// The value of the `wt-reads=` option.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Silicon => "silicon",
            Self::Ideal => "ideal",
        }
    }

    /// The behaviour called `name` ([`WtReads::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == name)
    }
}

/// Modelled time: each core's clock, kept within a quantum of the slowest
/// running core's (`emu::timing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Time {
    /// No clocks: the global timestamp reads 0 and the guest's clock falls
    /// back to the host's.
    Off,
    /// Clocks kept in step.
    On {
        /// No core's clock runs more than this many core cycles ahead of
        /// the slowest running core's.
        quantum: NonZeroU64,
        /// Whether requests queue at the resources they reach (memory
        /// controllers, MPBs, register blocks). Without queues every
        /// resource serves at once: contention is not modelled (a DRAM
        /// refresh, which is not contention, still delays a request).
        queues: bool,
        /// What differs between two boots of the chip that the program
        /// cannot see (clock phases, the cores' release from reset, the
        /// arbiters' order: `emu::model::variation`), drawn from this
        /// number. The same seed gives the same modelled time.
        seed: u64,
    },
}

impl Time {
    /// What a run does unless told otherwise: on, within
    /// [`DEFAULT_QUANTUM`], with queues.
    pub const DEFAULT: Self = Self::On {
        quantum: NonZeroU64::new(DEFAULT_QUANTUM).expect("the default quantum is not 0"),
        queues: true,
        seed: DEFAULT_SEED,
    };

    /// The quantum, if time is on.
    pub const fn quantum(self) -> Option<NonZeroU64> {
        match self {
            Self::Off => None,
            Self::On { quantum, .. } => Some(quantum),
        }
    }
}

impl Default for Time {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The value of an option that is on.
const ON: &str = "on";
/// The value of an option that is off (`quantum=` is off too).
const OFF: &str = "off";

/// A key of the plugin's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OptionKey {
    /// `core=<n>`: the core this QEMU is.
    Core,
    /// `cores=<N>`: how many cores of the chip run (cores `0..N`).
    Cores,
    /// `chip=<name>`: the chip, one of [`CHIPS`](crate::CHIPS).
    Chip,
    /// `check=on|off`: [`Model::check`]; off if left out.
    Check,
    /// `quantum=<cycles>|off`: [`Time`]; off if left out.
    Quantum,
    /// `queues=on|off`: whether requests queue ([`Time::On`]); only with a
    /// quantum, on if left out.
    Queues,
    /// `seed=<n>`: the seed of the chip's variation ([`Time::On`]); only
    /// with a quantum, [`DEFAULT_SEED`] if left out.
    Seed,
    /// `wt-reads=silicon|ideal`: [`WtReads`]; silicon if left out.
    WtReads,
    /// `entry=<address>`: the booted image's entry point, in hexadecimal
    /// (`0x` first) or decimal ([`PluginOptions::entry`]); modelled time
    /// starts at reset if left out.
    Entry,
    /// `mem=<path>`: the run's chip memory file.
    Mem,
}

impl OptionKey {
    /// Every key, in the order [`PluginOptions::to_args`] writes them and
    /// messages list them.
    pub const ALL: [Self; 10] = [
        Self::Core,
        Self::Cores,
        Self::Chip,
        Self::Check,
        Self::Quantum,
        Self::Queues,
        Self::Seed,
        Self::WtReads,
        Self::Entry,
        Self::Mem,
    ];

    /// The key as written before the `=`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Core => "core",
            Self::Cores => "cores",
            Self::Chip => "chip",
            Self::Check => "check",
            Self::Quantum => "quantum",
            Self::Queues => "queues",
            Self::Seed => "seed",
            Self::WtReads => "wt-reads",
            Self::Entry => "entry",
            Self::Mem => "mem",
        }
    }

    /// Whether the options must give it: the others have a meaning when
    /// left out.
    pub const fn is_required(self) -> bool {
        matches!(self, Self::Core | Self::Cores | Self::Chip | Self::Mem)
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for OptionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What is wrong with the plugin's options. Each message is written for
/// the person who started QEMU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionsError {
    /// An argument is not of the form `key=value`.
    Malformed(String),
    /// A key this plugin does not know.
    UnknownKey(String),
    /// A key given twice.
    DuplicateKey(OptionKey),
    /// A required key is missing ([`OptionKey::is_required`]).
    MissingKey(OptionKey),
    /// A value that must be a number is not one.
    NotANumber {
        /// The key.
        key: OptionKey,
        /// The value given.
        value: String,
    },
    /// A value that must be `on` or `off` is neither.
    NotOnOff {
        /// The key.
        key: OptionKey,
        /// The value given.
        value: String,
    },
    /// `wt-reads=` names none of [`WtReads::ALL`].
    UnknownWtReads(String),
    /// `quantum=0`: no clock could move.
    ZeroQuantum,
    /// `queues=` or `seed=` is given without modelled time, which has them.
    WithoutTime {
        /// The key.
        key: OptionKey,
        /// The value given.
        value: String,
    },
    /// `chip=` names none of [`CHIPS`](crate::CHIPS).
    UnknownChip(String),
    /// `cores=` is 0 or larger than the chip.
    CoreCount(CoreCount),
    /// `core=` is not one of the `cores=` cores that run.
    CoreOutOfRange {
        /// The core given.
        core: u32,
        /// The number of cores in the run.
        cores: u32,
    },
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// `items`' names joined by `, `.
        fn list<T>(
            f: &mut fmt::Formatter<'_>,
            items: impl IntoIterator<Item = T>,
            name: impl Fn(T) -> &'static str,
        ) -> fmt::Result {
            for (i, item) in items.into_iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(name(item))?;
            }
            Ok(())
        }
        match self {
            Self::Malformed(arg) => write!(f, "option `{arg}` is not of the form key=value"),
            Self::UnknownKey(key) => {
                write!(f, "unknown option `{key}` (valid options: ")?;
                list(f, OptionKey::ALL, OptionKey::name)?;
                f.write_str(")")
            }
            Self::DuplicateKey(key) => write!(f, "option `{key}` is given more than once"),
            Self::MissingKey(key) => write!(f, "option `{key}=` is missing"),
            Self::NotANumber { key, value } => write!(f, "option `{key}={value}`: not a number"),
            Self::NotOnOff { key, value } => {
                write!(f, "option `{key}={value}`: must be on or off")
            }
            Self::UnknownWtReads(value) => {
                write!(
                    f,
                    "option `{}={value}`: must be one of ",
                    OptionKey::WtReads
                )?;
                list(f, WtReads::ALL, WtReads::name)
            }
            Self::ZeroQuantum => write!(
                f,
                "option `{}=0`: must be at least 1 cycle, or off",
                OptionKey::Quantum
            ),
            Self::WithoutTime { key, value } => write!(
                f,
                "option `{key}={value}`: part of modelled time, which needs `{}=<cycles>`",
                OptionKey::Quantum
            ),
            Self::UnknownChip(name) => {
                write!(f, "unknown chip `{name}` (known chips: {})", chip_names())
            }
            Self::CoreCount(count) => write!(f, "cores={}: {count}", count.cores),
            Self::CoreOutOfRange { core, cores } => write!(
                f,
                "core={core}: a run of cores={cores} has cores 0..={}",
                cores - 1
            ),
        }
    }
}

impl core::error::Error for OptionsError {}

/// One core's plugin options: what its chip model must know, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginOptions {
    chip: &'static Chip,
    core: CoreId,
    cores: u32,
    model: Model,
    entry: Option<u32>,
    mem: String,
}

impl PluginOptions {
    /// The options of `core` in a run of `cores` cores of `chip` (cores
    /// `0..cores`), its model doing as `model` says, on the chip memory
    /// file `mem`. `chip` must be one of [`CHIPS`](crate::CHIPS), as the plugin finds it
    /// by name.
    pub fn new(
        chip: &'static Chip,
        core: CoreId,
        cores: u32,
        model: Model,
        mem: String,
    ) -> Result<Self, OptionsError> {
        if find_chip(chip.name) != Some(chip) {
            return Err(OptionsError::UnknownChip(chip.name.into()));
        }
        check_cores(chip, core.index() as u32, cores)?;
        Ok(Self {
            chip,
            core,
            cores,
            model,
            entry: None,
            mem,
        })
    }

    /// These options, for a core that boots an image entered at `entry`
    /// ([`PluginOptions::entry`]).
    pub fn with_entry(self, entry: u32) -> Self {
        Self {
            entry: Some(entry),
            ..self
        }
    }

    /// The booted image's entry point, if the options name it. Modelled
    /// time starts when the core first executes it: the firmware that
    /// runs before (QEMU's, which the chip does not have) takes none, so
    /// that how long it takes on the host, which its timer loops depend
    /// on, cannot move any core's clock. Without it, time starts at reset.
    pub fn entry(&self) -> Option<u32> {
        self.entry
    }

    /// The chip being emulated.
    pub fn chip(&self) -> &'static Chip {
        self.chip
    }

    /// The core this QEMU is.
    pub fn core(&self) -> CoreId {
        self.core
    }

    /// How many cores of the chip run (cores `0..cores`).
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// What the chip model does.
    pub fn model(&self) -> Model {
        self.model
    }

    /// The run's chip memory file.
    pub fn mem(&self) -> &str {
        &self.mem
    }

    /// The `key=value` strings, one per key in the order of
    /// [`OptionKey::ALL`]; `queues=` and `seed=` only with modelled time, `entry=`
    /// only when the options name one.
    pub fn to_args(&self) -> Vec<String> {
        let on_off = |on: bool| if on { ON } else { OFF };
        let Model {
            check,
            wt_reads,
            time,
        } = self.model;
        OptionKey::ALL
            .into_iter()
            .filter_map(|key| {
                let value = match key {
                    OptionKey::Core => self.core.index().to_string(),
                    OptionKey::Cores => self.cores.to_string(),
                    OptionKey::Chip => self.chip.name.into(),
                    OptionKey::Check => on_off(check).into(),
                    OptionKey::Quantum => match time {
                        Time::Off => OFF.into(),
                        Time::On { quantum, .. } => quantum.to_string(),
                    },
                    OptionKey::Queues => match time {
                        Time::Off => return None,
                        Time::On { queues, .. } => on_off(queues).into(),
                    },
                    OptionKey::Seed => match time {
                        Time::Off => return None,
                        Time::On { seed, .. } => seed.to_string(),
                    },
                    OptionKey::WtReads => wt_reads.name().into(),
                    OptionKey::Entry => format!("{:#x}", self.entry?),
                    OptionKey::Mem => self.mem.clone(),
                };
                Some(format!("{key}={value}"))
            })
            .collect()
    }

    /// Reads and checks the `key=value` strings QEMU passed, in any order.
    /// Only [`OptionKey::is_required`] keys must be given; the others mean,
    /// when left out: no checker, no modelled time, queues and
    /// [`DEFAULT_SEED`] (with modelled time), MPBT-WT reads as on silicon, time from reset.
    pub fn parse<I>(args: I) -> Result<Self, OptionsError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut values: [Option<String>; OptionKey::ALL.len()] = Default::default();
        for arg in args {
            let arg = arg.as_ref();
            let (name, value) = arg
                .split_once('=')
                .ok_or_else(|| OptionsError::Malformed(arg.into()))?;
            let key =
                OptionKey::from_name(name).ok_or_else(|| OptionsError::UnknownKey(name.into()))?;
            if values[key as usize].replace(value.into()).is_some() {
                return Err(OptionsError::DuplicateKey(key));
            }
        }
        if let Some(key) = OptionKey::ALL
            .into_iter()
            .find(|&key| key.is_required() && values[key as usize].is_none())
        {
            return Err(OptionsError::MissingKey(key));
        }
        let mut take = |key: OptionKey| values[key as usize].take();
        let required = |value: Option<String>| value.expect("required keys are given");
        let (core, cores, chip) = (
            required(take(OptionKey::Core)),
            required(take(OptionKey::Cores)),
            required(take(OptionKey::Chip)),
        );
        let (check, quantum, queues, seed, wt_reads, entry, mem) = (
            take(OptionKey::Check),
            take(OptionKey::Quantum),
            take(OptionKey::Queues),
            take(OptionKey::Seed),
            take(OptionKey::WtReads),
            take(OptionKey::Entry),
            required(take(OptionKey::Mem)),
        );

        let core = number(OptionKey::Core, core)?;
        let cores = number(OptionKey::Cores, cores)?;
        let chip = find_chip(&chip).ok_or(OptionsError::UnknownChip(chip))?;
        let check = check.map_or(Ok(false), |v| on_off(OptionKey::Check, v))?;
        let quantum = match quantum {
            None => None,
            Some(off) if off == OFF => None,
            Some(q) => {
                let n = q.parse::<u64>().map_err(|_| OptionsError::NotANumber {
                    key: OptionKey::Quantum,
                    value: q,
                })?;
                Some(NonZeroU64::new(n).ok_or(OptionsError::ZeroQuantum)?)
            }
        };
        let time = match quantum {
            None => {
                let given = [(OptionKey::Queues, queues), (OptionKey::Seed, seed)];
                if let Some((key, Some(value))) = given.into_iter().find(|(_, v)| v.is_some()) {
                    return Err(OptionsError::WithoutTime { key, value });
                }
                Time::Off
            }
            Some(quantum) => Time::On {
                quantum,
                queues: queues.map_or(Ok(true), |v| on_off(OptionKey::Queues, v))?,
                seed: seed.map_or(Ok(DEFAULT_SEED), |v| {
                    v.parse().map_err(|_| OptionsError::NotANumber {
                        key: OptionKey::Seed,
                        value: v,
                    })
                })?,
            },
        };
        let wt_reads = match wt_reads {
            None => WtReads::default(),
            Some(v) => WtReads::from_name(&v).ok_or(OptionsError::UnknownWtReads(v))?,
        };
        let entry = entry.map(|v| address(OptionKey::Entry, v)).transpose()?;
        check_cores(chip, core, cores)?;
        let core = chip
            .core(core)
            .expect("core < cores <= the chip's core count");
        let model = Model {
            check,
            wt_reads,
            time,
        };
        Ok(Self {
            chip,
            core,
            cores,
            model,
            entry,
            mem,
        })
    }
}

/// Checks that a run of `cores` cores fits `chip` and has `core`.
fn check_cores(chip: &'static Chip, core: u32, cores: u32) -> Result<(), OptionsError> {
    chip.run_cores(cores).map_err(OptionsError::CoreCount)?;
    if core >= cores {
        return Err(OptionsError::CoreOutOfRange { core, cores });
    }
    Ok(())
}

fn on_off(key: OptionKey, value: String) -> Result<bool, OptionsError> {
    match value.as_str() {
        ON => Ok(true),
        OFF => Ok(false),
        _ => Err(OptionsError::NotOnOff { key, value }),
    }
}

fn number(key: OptionKey, value: String) -> Result<u32, OptionsError> {
    value
        .parse()
        .map_err(|_| OptionsError::NotANumber { key, value })
}

/// A 32-bit address, in hexadecimal with `0x` first or in decimal.
fn address(key: OptionKey, value: String) -> Result<u32, OptionsError> {
    let parsed = match value.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => value.parse(),
    };
    parsed.map_err(|_| OptionsError::NotANumber { key, value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CHIPS, SCC};

    const MEM: &str = "/run/chip.mem";

    fn parse(args: &[&str]) -> Result<PluginOptions, OptionsError> {
        PluginOptions::parse(args)
    }

    fn message(args: &[&str]) -> String {
        parse(args).unwrap_err().to_string()
    }

    /// The required options of core `core` of a run of `cores` SCC cores,
    /// then `more`.
    fn with<'a>(more: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["core=0", "cores=1", "chip=scc", "mem=/run/chip.mem"];
        args.extend(more);
        args
    }

    fn quantum(q: u64) -> NonZeroU64 {
        NonZeroU64::new(q).unwrap()
    }

    #[test]
    fn chips_are_valid_and_found_by_name() {
        for chip in CHIPS {
            assert_eq!(chip.validate(), Ok(()), "{}", chip.name);
            assert_eq!(find_chip(chip.name), Some(chip));
        }
        assert_eq!(find_chip("scc"), Some(&SCC));
        assert_eq!(find_chip("SCC"), None);
    }

    #[test]
    fn keys_index_their_own_slot() {
        for (i, key) in OptionKey::ALL.into_iter().enumerate() {
            assert_eq!(key as usize, i, "{key}");
            assert_eq!(OptionKey::from_name(key.name()), Some(key));
        }
    }

    #[test]
    fn the_defaults_model_time_as_on_silicon() {
        assert_eq!(
            Mode::default(),
            Mode::Modelled(Model {
                check: false,
                wt_reads: WtReads::Silicon,
                time: Time::On {
                    quantum: quantum(DEFAULT_QUANTUM),
                    queues: true,
                    seed: DEFAULT_SEED,
                },
            })
        );
        assert_eq!(Mode::default().quantum(), Some(quantum(DEFAULT_QUANTUM)));
        assert_eq!(Mode::Plain.quantum(), None);
        assert_eq!(Mode::Plain.model(), None);
        assert_eq!(Mode::default().model(), Some(Model::default()));
        let seeded = Mode::default().with_seed(5);
        assert_eq!(
            seeded.model().map(|m| m.time),
            Some(Time::On {
                quantum: quantum(DEFAULT_QUANTUM),
                queues: true,
                seed: 5,
            })
        );
        assert_eq!(Mode::Plain.with_seed(5), Mode::Plain);
    }

    #[test]
    fn options_survive_the_command_line() {
        let times = [
            Time::Off,
            Time::DEFAULT,
            Time::On {
                quantum: quantum(1),
                queues: false,
                seed: 7,
            },
            Time::On {
                quantum: quantum(u64::MAX),
                queues: true,
                seed: u64::MAX,
            },
        ];
        for (core, cores) in [(0, 1), (5, 48), (47, 48)] {
            for check in [false, true] {
                for wt_reads in WtReads::ALL {
                    for time in times {
                        for mem in [MEM, "/tmp/a,b=c/chip.mem", ""] {
                            let model = Model {
                                check,
                                wt_reads,
                                time,
                            };
                            let options = PluginOptions::new(
                                &SCC,
                                SCC.core(core).unwrap(),
                                cores,
                                model,
                                mem.into(),
                            )
                            .unwrap();
                            let args = options.to_args();
                            assert_eq!(parse_strings(&args), Ok(options.clone()), "{args:?}");
                            assert_eq!(options.model(), model);
                            assert_eq!(options.mem(), mem);
                            assert_eq!(options.entry(), None);
                            for entry in [0, 0x10_0000, u32::MAX] {
                                let options = options.clone().with_entry(entry);
                                let args = options.to_args();
                                assert_eq!(parse_strings(&args), Ok(options), "{args:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    fn parse_strings(args: &[String]) -> Result<PluginOptions, OptionsError> {
        PluginOptions::parse(args)
    }

    #[test]
    fn options_are_written_in_key_order() {
        let model = Model {
            check: true,
            wt_reads: WtReads::Ideal,
            time: Time::On {
                quantum: quantum(5000),
                queues: false,
                seed: 3,
            },
        };
        let options =
            PluginOptions::new(&SCC, SCC.core(5).unwrap(), 48, model, MEM.into()).unwrap();
        assert_eq!(
            options.to_args(),
            [
                "core=5",
                "cores=48",
                "chip=scc",
                "check=on",
                "quantum=5000",
                "queues=off",
                "seed=3",
                "wt-reads=ideal",
                "mem=/run/chip.mem"
            ]
        );
        // Without modelled time there are no queues to speak of.
        let untimed = Model {
            time: Time::Off,
            ..Model::DEFAULT
        };
        let options =
            PluginOptions::new(&SCC, SCC.core(0).unwrap(), 1, untimed, MEM.into()).unwrap();
        assert_eq!(
            options.to_args(),
            [
                "core=0",
                "cores=1",
                "chip=scc",
                "check=off",
                "quantum=off",
                "wt-reads=silicon",
                "mem=/run/chip.mem"
            ]
        );
    }

    #[test]
    fn the_entry_is_an_address_in_hexadecimal_or_decimal() {
        let entry = |value: &str| {
            let arg = format!("entry={value}");
            parse(&with(&[&arg])).map(|o| o.entry())
        };
        assert_eq!(entry("0x100000"), Ok(Some(0x10_0000)));
        assert_eq!(entry("1048576"), Ok(Some(0x10_0000)));
        assert_eq!(entry("0xffffffff"), Ok(Some(u32::MAX)));
        assert_eq!(parse(&with(&[])).map(|o| o.entry()), Ok(None));
        for bad in ["", "0x", "0x100000000", "4294967296", "100000h", "-1"] {
            assert_eq!(
                entry(bad),
                Err(OptionsError::NotANumber {
                    key: OptionKey::Entry,
                    value: bad.into()
                })
            );
        }
        assert_eq!(
            message(&with(&["entry=main"])),
            "option `entry=main`: not a number"
        );
    }

    #[test]
    fn valid_options_are_read() {
        let options = parse(&["core=47", "cores=48", "chip=scc", "mem=/run/chip.mem"]).unwrap();
        assert_eq!(options.chip(), &SCC);
        assert_eq!(options.core(), SCC.core(47).unwrap());
        assert_eq!(options.cores(), 48);
        assert_eq!(options.mem(), MEM);
        // Order does not matter.
        let options = parse(&["mem=/run/chip.mem", "chip=scc", "cores=1", "core=0"]).unwrap();
        assert_eq!((options.core().index(), options.cores()), (0, 1));
        assert_eq!(
            options.model(),
            Model {
                check: false,
                wt_reads: WtReads::Silicon,
                time: Time::Off,
            },
            "no checker and no timing unless asked for, silicon's MPBT-WT reads"
        );
        assert!(parse(&with(&["check=on"])).unwrap().model().check);
        assert!(!parse(&with(&["check=off"])).unwrap().model().check);
        assert_eq!(
            parse(&with(&["quantum=5000"])).unwrap().model().time,
            Time::On {
                quantum: quantum(5000),
                queues: true,
                seed: DEFAULT_SEED,
            },
            "requests queue unless told not to, with the default seed"
        );
        assert_eq!(
            parse(&with(&["quantum=5000", "seed=18446744073709551615"]))
                .unwrap()
                .model()
                .time,
            Time::On {
                quantum: quantum(5000),
                queues: true,
                seed: u64::MAX,
            }
        );
        assert_eq!(
            parse(&with(&["quantum=5000", "queues=off"]))
                .unwrap()
                .model()
                .time,
            Time::On {
                quantum: quantum(5000),
                queues: false,
                seed: DEFAULT_SEED,
            }
        );
        assert_eq!(
            parse(&with(&["quantum=off"])).unwrap().model().time,
            Time::Off
        );
        assert_eq!(
            parse(&with(&["wt-reads=ideal"])).unwrap().model().wt_reads,
            WtReads::Ideal
        );
        assert_eq!(
            parse(&with(&["wt-reads=silicon"]))
                .unwrap()
                .model()
                .wt_reads,
            WtReads::Silicon
        );
    }

    #[test]
    fn values_must_be_of_their_kind() {
        assert_eq!(
            message(&with(&["check=yes"])),
            "option `check=yes`: must be on or off"
        );
        assert_eq!(
            message(&with(&["quantum=10", "queues=no"])),
            "option `queues=no`: must be on or off"
        );
        assert_eq!(
            message(&with(&["wt-reads=fast"])),
            "option `wt-reads=fast`: must be one of silicon, ideal"
        );
        assert_eq!(
            message(&with(&["quantum=soon"])),
            "option `quantum=soon`: not a number"
        );
        assert_eq!(
            message(&with(&["quantum=0"])),
            "option `quantum=0`: must be at least 1 cycle, or off"
        );
        for (key, value) in [
            (OptionKey::Queues, "on"),
            (OptionKey::Queues, "off"),
            (OptionKey::Seed, "1"),
        ] {
            let arg = format!("{key}={value}");
            assert_eq!(
                parse(&with(&[&arg])),
                Err(OptionsError::WithoutTime {
                    key,
                    value: value.into()
                })
            );
            assert_eq!(
                message(&with(&["quantum=off", &arg])),
                format!("option `{arg}`: part of modelled time, which needs `quantum=<cycles>`")
            );
        }
        assert_eq!(
            message(&with(&["quantum=10", "seed=-1"])),
            "option `seed=-1`: not a number"
        );
    }

    #[test]
    fn unknown_key_lists_the_valid_ones() {
        assert_eq!(
            message(&["core=0", "cpus=4"]),
            "unknown option `cpus` (valid options: core, cores, chip, check, quantum, queues, seed, wt-reads, entry, mem)"
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
        assert_eq!(
            parse(&with(&["quantum=1", "quantum=1"])),
            Err(OptionsError::DuplicateKey(OptionKey::Quantum))
        );
    }

    #[test]
    fn each_missing_key_is_named() {
        let all = ["core=0", "cores=2", "chip=scc", "mem=/run/chip.mem"];
        let required: Vec<OptionKey> = OptionKey::ALL
            .into_iter()
            .filter(|k| k.is_required())
            .collect();
        assert_eq!(
            required,
            [
                OptionKey::Core,
                OptionKey::Cores,
                OptionKey::Chip,
                OptionKey::Mem
            ]
        );
        for (i, key) in required.into_iter().enumerate() {
            let mut args = all.to_vec();
            args.remove(i);
            assert_eq!(message(&args), format!("option `{key}=` is missing"));
        }
    }

    #[test]
    fn numbers_must_be_numbers() {
        assert_eq!(
            message(&["core=one", "cores=2", "chip=scc", "mem=m"]),
            "option `core=one`: not a number"
        );
        assert_eq!(
            message(&["core=0", "cores=-2", "chip=scc", "mem=m"]),
            "option `cores=-2`: not a number"
        );
    }

    #[test]
    fn core_counts_must_fit_the_chip() {
        assert_eq!(
            message(&["core=0", "cores=0", "chip=scc", "mem=m"]),
            "cores=0: 0 cores: the SCC has 48, so choose 1..=48"
        );
        assert_eq!(
            message(&["core=0", "cores=49", "chip=scc", "mem=m"]),
            "cores=49: 49 cores: the SCC has 48, so choose 1..=48"
        );
        assert_eq!(
            message(&["core=8", "cores=8", "chip=scc", "mem=m"]),
            "core=8: a run of cores=8 has cores 0..=7"
        );
        let new = |core, cores| {
            PluginOptions::new(
                &SCC,
                SCC.core(core).unwrap(),
                cores,
                Model::DEFAULT,
                MEM.into(),
            )
        };
        assert_eq!(
            new(0, 49),
            Err(OptionsError::CoreCount(CoreCount {
                cores: 49,
                chip: "scc",
                max: 48
            }))
        );
        assert_eq!(
            new(0, 0).unwrap_err().to_string(),
            "cores=0: 0 cores: the SCC has 48, so choose 1..=48"
        );
        assert_eq!(
            new(8, 8),
            Err(OptionsError::CoreOutOfRange { core: 8, cores: 8 })
        );
    }

    #[test]
    fn unknown_chip_lists_the_known_ones() {
        assert_eq!(
            message(&["core=0", "cores=2", "chip=scc2", "mem=m"]),
            "unknown chip `scc2` (known chips: scc, mesh8x8)"
        );
        // A chip the plugin could not find by name has no options.
        let mini = &crate::tests::MINI;
        assert_eq!(
            PluginOptions::new(mini, mini.core(0).unwrap(), 1, Model::DEFAULT, MEM.into()),
            Err(OptionsError::UnknownChip("mini".into()))
        );
    }
}
