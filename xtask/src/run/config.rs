// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a run is asked to do: [`RunConfig`], checked before anything is built.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Result, bail};
use chip::args::{BootArgs, COMMAND_LINE_MAX};
use chip::{Chip, Mode};

use crate::build::App;

/// What to run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The chip emulated, one of [`chip::CHIPS`]: [`chip::DEFAULT_CHIP`]
    /// unless chosen.
    pub chip: &'static Chip,
    /// Cores to boot: cores `0..cores` of the chip.
    pub cores: u32,
    /// The app whose image boots: the built-in programs by default.
    pub app: App,
    /// The program every core runs; `None`: the app's first.
    pub program: Option<String>,
    /// Its settings, `(name, value)`: those not given keep the defaults
    /// the app declares.
    pub params: Vec<(String, String)>,
    /// KiB of each core's stack, which has an unmapped guard page below it
    /// (a run that overflows it fails with "stack overflow"):
    /// [`chip::args::DEFAULT_STACK_KIB`] unless chosen.
    pub stack_kib: u32,
    /// MiB of each core's private RAM, half of which is the kernel's heap:
    /// [`emu::launch::DEFAULT_MEMORY_MIB`] unless chosen, at most
    /// [`emu::launch::MAX_MEMORY_MIB`].
    pub memory_mib: u32,
    /// Longest the run may take, build excluded.
    pub timeout: Duration,
    /// Print every serial line as `[core NN] <line>` while the run goes on.
    pub echo: bool,
    /// When set (by a signal handler, say), the run stops as interrupted.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// With or without the chip model, and what it does: its coherence
    /// checker (every core counts the reads that return data other than
    /// memory holds, and reports them), its MPBT-WT reads, modelled time.
    /// By default ([`Mode::default`]) the model runs, since it is what
    /// makes the emulator an SCC, with modelled time; [`Mode::Plain`] is
    /// plain QEMU on coherent shared memory, the baseline of overhead
    /// measurements.
    pub mode: Mode,
    /// Have every core report the chip model's statistics
    /// ([`super::report::RunReport::stats_table`]); needs the chip model.
    pub stats: bool,
    /// Write the run's statistics (every core's chip-model report, the
    /// outcome, the host time) to this file as JSON; needs the chip model.
    pub stats_json: Option<PathBuf>,
    /// Start this core paused, with QEMU's gdb stub on a unix socket in the
    /// run directory, and print the `gdb` command that attaches to it. The
    /// run then has no timeout: a debugger decides how long it takes.
    pub gdb: Option<u32>,
    /// Print each core's QEMU command line before it starts.
    pub print_qemu: bool,
    /// Trace rma's calls and the chip's cache actions and waits in
    /// modelled time, and write them to this file as trace-event JSON
    /// (Perfetto opens it). Needs modelled time.
    pub trace: Option<PathBuf>,
    /// Keep the run directory (chip memory, each core's RAM, the plugin's
    /// reports) after the run, renamed `scc-kept-*`; [`super::report::RunReport::kept`]
    /// says where.
    pub keep_run_dir: bool,
    /// Where the run's directory (its chip memory) is made; `None`: in
    /// `/dev/shm`, or in the temporary directory when `/dev/shm` has too
    /// little room.
    pub run_dir: Option<PathBuf>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            chip: chip::DEFAULT_CHIP,
            cores: chip::DEFAULT_CHIP.cores(),
            app: App::Builtin,
            program: None,
            params: Vec::new(),
            stack_kib: chip::args::DEFAULT_STACK_KIB,
            memory_mib: emu::launch::DEFAULT_MEMORY_MIB,
            timeout: Self::default_timeout(chip::DEFAULT_CHIP.cores()),
            echo: true,
            interrupt: None,
            mode: Mode::default(),
            stats: false,
            stats_json: None,
            gdb: None,
            print_qemu: false,
            keep_run_dir: false,
            trace: None,
            run_dir: None,
        }
    }
}

impl RunConfig {
    /// The timeout of a run of `cores` cores unless one is given: three
    /// minutes up to 48 cores (48 cores of `comm`, the heaviest built-in
    /// program, take 45-60 s of a 2-core host busy with other work),
    /// growing beyond with the square of the count (each core's share of
    /// the host shrinks with the count, and collectives do more work per
    /// core): 21 minutes 20 s for 128 cores.
    pub fn default_timeout(cores: u32) -> Duration {
        const BASE: f64 = 180.0;
        let scale = (f64::from(cores) / 48.0).max(1.0);
        Duration::from_secs_f64((BASE * scale * scale).round())
    }

    /// `program` on `cores` cores, with the default timeout and no echo.
    pub fn new(cores: u32, program: &str) -> Self {
        Self {
            cores,
            timeout: Self::default_timeout(cores),
            program: Some(program.to_owned()),
            echo: false,
            ..Self::default()
        }
    }

    /// The same on `chip`.
    pub fn on(self, chip: &'static Chip) -> Self {
        Self { chip, ..self }
    }

    /// Checks the core count, the settings' form, and that the flags
    /// agree. Whether the program exists and takes the settings is checked
    /// against the image, once built ([`crate::programs::Catalog::check`]).
    pub fn check(&self) -> Result<()> {
        if let Err(e) = chip::args::check_stack_kib(self.stack_kib) {
            bail!("--stack-kib {}: {e}", self.stack_kib);
        }
        let (least, most) = (emu::launch::DEFAULT_MEMORY_MIB, emu::launch::MAX_MEMORY_MIB);
        if !(least..=most).contains(&self.memory_mib) {
            bail!(
                "--memory-mib {}: a core's RAM must be {least} to {most} MiB",
                self.memory_mib
            );
        }
        self.boot_args(self.program.as_deref())?;
        if self.trace.is_some() && self.mode.quantum().is_none() {
            bail!(
                "a trace is in modelled time: --trace needs the chip model with timing, not \
                 --plain or --no-timing"
            );
        }
        if let Some(core) = self.gdb
            && core >= self.cores
        {
            bail!(
                "--gdb {core}: the run has cores 0..={}, so choose one of them",
                self.cores - 1
            );
        }
        if self.mode == Mode::Plain && (self.stats || self.stats_json.is_some()) {
            bail!(
                "a plain run has no chip model, so it has no statistics: --plain cannot be \
                 combined with --stats or --stats-json"
            );
        }
        for (flag, file) in [("--trace", &self.trace), ("--stats-json", &self.stats_json)] {
            if let Some(file) = file {
                check_output(flag, file)?;
            }
        }
        if let Some(dir) = &self.run_dir {
            match std::fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => bail!("--run-dir {}: not a directory", dir.display()),
                Err(e) => bail!("--run-dir {}: {e}", dir.display()),
            }
        }
        Ok(())
    }

    /// What every core's kernel is told, for `program`.
    pub fn boot_args<'a>(&'a self, program: Option<&'a str>) -> Result<BootArgs<'a>> {
        let settings = self
            .params
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let args = BootArgs::new(self.chip, self.cores, program, settings)
            .and_then(|args| args.with_stack_kib(self.stack_kib))
            .map(|args| args.traced(self.trace.is_some()).with_stats(self.stats))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let line = emu::launch::kernel_command_line(&args).len();
        if line > COMMAND_LINE_MAX {
            bail!(
                "the program and its settings make a kernel command line of {line} bytes, \
                 more than the {COMMAND_LINE_MAX} the kernel reads: shorten them (a C \
                 program's arguments count)"
            );
        }
        Ok(args)
    }

    /// The program's name as messages give it.
    pub fn program_name(&self) -> &str {
        self.program.as_deref().unwrap_or("(the app's first)")
    }

    /// Whether the chip model's coherence checker runs.
    pub fn checks_coherence(&self) -> bool {
        self.mode.model().is_some_and(|model| model.check)
    }

    pub(super) fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::SeqCst))
    }
}

/// Checks, before anything boots, that the run can write `file`, the
/// output of `flag`: its directory exists and takes a new file, and it is
/// not a directory. A file already there is overwritten at the end.
fn check_output(flag: &str, file: &Path) -> Result<()> {
    let parent = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if file.is_dir() {
        bail!("{flag} {}: a directory, not a file", file.display());
    }
    if !parent.is_dir() {
        bail!(
            "{flag} {}: the directory {} does not exist",
            file.display(),
            parent.display()
        );
    }
    if let Err(e) = tempfile::NamedTempFile::new_in(parent) {
        bail!(
            "{flag} {}: cannot write in {}: {e}",
            file.display(),
            parent.display()
        );
    }
    if file.exists()
        && let Err(e) = std::fs::OpenOptions::new().append(true).open(file)
    {
        bail!("{flag} {}: cannot overwrite it: {e}", file.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use chip::Model;

    use super::*;

    #[test]
    fn the_default_timeout_is_three_minutes_up_to_48_cores_and_grows_with_the_square_beyond() {
        for cores in [1, 2, 48] {
            assert_eq!(RunConfig::default_timeout(cores), Duration::from_secs(180));
        }
        assert_eq!(RunConfig::default_timeout(96), Duration::from_secs(720));
        assert_eq!(RunConfig::default_timeout(128), Duration::from_secs(1280));
        assert_eq!(
            RunConfig::new(128, "comm").timeout,
            Duration::from_secs(1280)
        );
    }

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
            "scheme is given twice"
        );
        assert_eq!(
            RunConfig::new(0, "ring").check().unwrap_err().to_string(),
            "0 cores: the SCC has 48, so choose 1..=48"
        );
        let plain_stats = RunConfig {
            mode: Mode::Plain,
            stats: true,
            ..RunConfig::default()
        };
        let message = plain_stats.check().unwrap_err().to_string();
        assert!(
            message.contains("--plain cannot be combined with --stats"),
            "{message}"
        );
        assert!(
            RunConfig {
                mode: Mode::Plain,
                ..RunConfig::default()
            }
            .check()
            .is_ok()
        );
    }

    #[test]
    fn outputs_and_the_run_directory_are_checked_before_anything_boots() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nosuch");
        let with = |trace: Option<PathBuf>, stats_json: Option<PathBuf>, run_dir| {
            RunConfig {
                trace,
                stats_json,
                run_dir,
                ..RunConfig::new(2, "ring")
            }
            .check()
            .map_err(|e| e.to_string())
        };
        let file = dir.path().join("out.json");
        assert!(with(Some(file.clone()), Some(file.clone()), None).is_ok());
        assert!(!file.exists(), "a check leaves nothing behind");
        let err = with(Some(missing.join("t.json")), None, None).unwrap_err();
        assert_eq!(
            err,
            format!(
                "--trace {}/t.json: the directory {} does not exist",
                missing.display(),
                missing.display()
            )
        );
        let err = with(None, Some(dir.path().to_owned()), None).unwrap_err();
        assert!(err.ends_with(": a directory, not a file"), "{err}");
        let err = with(None, None, Some(missing.clone())).unwrap_err();
        assert!(
            err.starts_with(&format!("--run-dir {}: ", missing.display())),
            "{err}"
        );
        assert!(err.contains("No such file"), "{err}");
        std::fs::write(&file, "").unwrap();
        let err = with(None, None, Some(file.clone())).unwrap_err();
        assert!(err.ends_with("not a directory"), "{err}");
        // Root writes anywhere: a read-only directory is checked only for others.
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            use std::os::unix::fs::PermissionsExt;
            let ro = dir.path().join("ro");
            std::fs::create_dir(&ro).unwrap();
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
            let err = with(None, Some(ro.join("s.json")), None).unwrap_err();
            assert!(err.contains("cannot write in"), "{err}");
        }
    }

    #[test]
    fn ram_sizes_outside_the_range_are_refused_naming_the_flag() {
        let with = |memory_mib| RunConfig {
            memory_mib,
            ..RunConfig::new(2, "ring")
        };
        for bad in [16, 513] {
            assert_eq!(
                with(bad).check().unwrap_err().to_string(),
                format!("--memory-mib {bad}: a core's RAM must be 32 to 512 MiB")
            );
        }
        assert!(with(32).check().is_ok());
        assert!(with(512).check().is_ok());
        assert_eq!(RunConfig::default().memory_mib, 32);
    }

    #[test]
    fn bad_stack_sizes_are_refused_naming_the_flag() {
        let with = |stack_kib| RunConfig {
            stack_kib,
            ..RunConfig::new(2, "ring")
        };
        let message = |kib| with(kib).check().unwrap_err().to_string();
        assert_eq!(
            message(0),
            "--stack-kib 0: a core needs a stack of at least 4 KiB"
        );
        assert_eq!(
            message(10),
            "--stack-kib 10: 10 KiB is not a whole number of 4 KiB pages"
        );
        assert!(
            message(1 << 20)
                .starts_with("--stack-kib 1048576: 1048576 KiB is more than a core's RAM leaves")
        );
        assert!(with(256).check().is_ok());
        let args = with(256);
        let line = args.boot_args(Some("ring")).unwrap().to_args();
        assert!(line.ends_with(" stack_kib=256"), "{line}");
        assert_eq!(RunConfig::default().stack_kib, 64);
    }

    #[test]
    fn a_command_line_longer_than_the_kernel_reads_is_refused_before_boot() {
        let with = |len: usize| RunConfig {
            params: vec![("args".to_owned(), "x".repeat(len))],
            ..RunConfig::new(2, "main")
        };
        let fixed =
            emu::launch::kernel_command_line(&with(1).boot_args(Some("main")).unwrap()).len() - 1;
        assert!(with(COMMAND_LINE_MAX - fixed).check().is_ok());
        let message = with(COMMAND_LINE_MAX - fixed + 1)
            .check()
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            format!(
                "the program and its settings make a kernel command line of {} bytes, more \
                 than the 1024 the kernel reads: shorten them (a C program's arguments count)",
                COMMAND_LINE_MAX + 1
            )
        );
    }

    #[test]
    fn runs_model_the_chip_and_its_time_by_default() {
        let config = RunConfig::new(2, "ring");
        assert_eq!(config.mode, Mode::default());
        assert_eq!(
            config.mode.quantum().map(|q| q.get()),
            Some(emu::timing::DEFAULT_QUANTUM)
        );
        assert!(!config.checks_coherence());
        let checked = RunConfig {
            mode: Mode::Modelled(Model {
                check: true,
                ..Model::DEFAULT
            }),
            ..config
        };
        assert!(checked.checks_coherence());
    }
}
