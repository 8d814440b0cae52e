// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run is asked to do: [`RunConfig`], checked before anything is built.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Result, bail};
use emu::launch::Mode;

use crate::CHIP;
use crate::programs::{DEFAULT_PROGRAM, check_cores, check_param, find_program};

/// Whether a run with no flag asking for or against the chip model loads
/// it: it does, since the model is what makes the emulator an SCC; `plain`
/// turns it off (coherent shared memory at plain QEMU's speed).
const MODELED_BY_DEFAULT: bool = true;

/// What to run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Cores to boot: cores `0..cores` of the chip.
    pub cores: u32,
    /// The program every core runs.
    pub program: String,
    /// Its settings, `(name, value)`: those not given keep the catalog's
    /// defaults.
    pub params: Vec<(String, String)>,
    /// Longest the run may take, build excluded.
    pub timeout: Duration,
    /// Print every serial line as `[core NN] <line>` while the run goes on.
    pub echo: bool,
    /// When set (by a signal handler, say), the run stops as interrupted.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Turn on the chip model's coherence checker: every core counts the
    /// reads that return data other than memory holds, and reports them.
    pub check_coherence: bool,
    /// Run the chip model so that every core reports its statistics
    /// ([`RunReport::stats_table`]).
    pub stats: bool,
    /// Run without the chip model (no plugin), on coherent shared memory:
    /// plain QEMU, the baseline of overhead measurements. Excludes the two
    /// flags above.
    pub plain: bool,
    /// With the chip model: modelled SCC time, each core kept within this
    /// many core cycles of the slowest running core (`emu::timing`); `None`
    /// turns timing off (no clocks, the global timestamp reads 0).
    pub quantum: Option<u64>,
    /// With the chip model: loads from MPBT-WT pages are cached in L1, as
    /// documented, instead of uncached as the thesis measured on silicon.
    pub ideal_wt_reads: bool,
    /// With modelled time: requests do not queue at the resources they
    /// reach (memory controllers, MPBs, register blocks), so that the
    /// modelled times do not depend on host scheduling (`emu::timing`).
    pub no_queues: bool,
    /// Where the run's directory (its chip memory) is made; `None`: in
    /// `/dev/shm`, or in the temporary directory when `/dev/shm` has too
    /// little room.
    pub run_dir: Option<PathBuf>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            cores: CHIP.cores(),
            program: DEFAULT_PROGRAM.to_owned(),
            params: Vec::new(),
            timeout: Duration::from_secs(60),
            echo: true,
            interrupt: None,
            check_coherence: false,
            stats: false,
            plain: false,
            quantum: Some(emu::timing::DEFAULT_QUANTUM),
            ideal_wt_reads: false,
            no_queues: false,
            run_dir: None,
        }
    }
}

impl RunConfig {
    /// `program` on `cores` cores, with the default timeout and no echo.
    pub fn new(cores: u32, program: &str) -> Self {
        Self {
            cores,
            program: program.to_owned(),
            echo: false,
            ..Self::default()
        }
    }

    /// Checks the core count, the program name, and that the flags agree.
    pub fn check(&self) -> Result<()> {
        check_cores(self.cores)?;
        let program = find_program(&self.program)?;
        for (i, (name, value)) in self.params.iter().enumerate() {
            check_param(program, name, value)?;
            if let Some((_, first)) = self.params[..i].iter().find(|(n, _)| n == name) {
                bail!(
                    "--param {name} is given twice ({name}={first} and {name}={value}): \
                     give each setting once"
                );
            }
        }
        if self.plain && (self.check_coherence || self.stats || self.ideal_wt_reads) {
            bail!(
                "a plain run has no chip model, so it has no coherence checker, no statistics \
                 and no MPBT-WT reads to choose: --plain cannot be combined with \
                 --check-coherence, --stats or --ideal-wt-reads"
            );
        }
        if self.no_queues && (self.plain || self.quantum.is_none()) {
            bail!(
                "queues are part of modelled time: --no-queues needs the chip model with \
                 timing, not --plain or --no-timing"
            );
        }
        Ok(())
    }

    /// With or without the chip model, and whether its checker is on.
    pub fn mode(&self) -> Mode {
        let modeled = !self.plain && (self.check_coherence || self.stats || MODELED_BY_DEFAULT);
        if modeled {
            Mode::Modeled {
                check: self.check_coherence,
            }
        } else {
            Mode::Plain
        }
    }

    pub(super) fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_are_checked() {
        assert!(RunConfig::default().check().is_ok());
        let twice = RunConfig {
            params: vec![
                ("scheme".into(), "gbh".into()),
                ("mode".into(), "bench".into()),
                ("scheme".into(), "mcs-wp".into()),
            ],
            ..RunConfig::new(4, "dht")
        };
        assert_eq!(
            twice.check().unwrap_err().to_string(),
            "--param scheme is given twice (scheme=gbh and scheme=mcs-wp): give each setting once"
        );
        assert!(RunConfig::new(0, "ring").check().is_err());
        assert!(RunConfig::new(8, "nosuch").check().is_err());
        for (check_coherence, stats) in [(true, false), (false, true), (true, true)] {
            let config = RunConfig {
                plain: true,
                check_coherence,
                stats,
                ..RunConfig::default()
            };
            let message = config.check().unwrap_err().to_string();
            assert!(
                message.contains(
                    "--plain cannot be combined with --check-coherence, --stats or --ideal-wt-reads"
                ),
                "{message}"
            );
        }
        let unqueued = |plain, quantum| RunConfig {
            no_queues: true,
            plain,
            quantum,
            ..RunConfig::default()
        };
        assert!(unqueued(false, Some(1000)).check().is_ok());
        for config in [unqueued(true, Some(1000)), unqueued(false, None)] {
            let message = config.check().unwrap_err().to_string();
            assert!(message.contains("--no-queues needs the chip model with timing"));
        }
    }

    #[test]
    fn the_flags_choose_the_mode() {
        let config = |plain, check_coherence, stats| RunConfig {
            plain,
            check_coherence,
            stats,
            ..RunConfig::default()
        };
        assert_eq!(config(true, false, false).mode(), Mode::Plain);
        assert_eq!(
            config(false, true, false).mode(),
            Mode::Modeled { check: true }
        );
        assert_eq!(
            config(false, false, true).mode(),
            Mode::Modeled { check: false }
        );
        let default = if MODELED_BY_DEFAULT {
            Mode::Modeled { check: false }
        } else {
            Mode::Plain
        };
        assert_eq!(config(false, false, false).mode(), default);
    }
}
