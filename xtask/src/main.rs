// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask`: build, boot and test the emulated SCC.

use std::num::NonZeroU64;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use xtask::{Mode, Model, RunConfig, RunReport, Time, WtReads};

/// Build, boot and test the emulated Intel SCC (48 P54C cores) or another chip of the chip crate, one QEMU per core.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", version, after_help = ENVIRONMENT)]
enum Cli {
    /// Build the image of the built-in programs (the kernel linked in) and the QEMU plugin (release), without running them.
    ///
    /// Also writes the mpicc and mpiexec scripts (see `cargo xtask mpi-env`).
    Build,
    /// Boot N emulated cores, each running the same program, and report how they ended.
    ///
    /// Every serial line is printed as `[core NN] <line>`. The run ends with
    /// exit status 0 only if every core reports success; the first core that
    /// fails, or the timeout, ends it with a report naming the core and the
    /// reason, and stops every other core. Ctrl-C stops the run (status
    /// 130; SIGTERM: 143; SIGHUP: 129).
    /// The tables asked for with --stats and --check-coherence come before
    /// the last line, which says how the run ended.
    #[command(
        after_help = "Programs: `cargo xtask programs` lists the built-in ones with their \
        settings, `cargo xtask programs --app DIR` an app's."
    )]
    Run(RunArgs),
    /// List the programs of the built-in image or of an app, with their settings.
    ///
    /// The list is read from the image itself, where the app declares its
    /// programs (`kernel::programs!`); the image is built first.
    Programs {
        /// The app's directory [default: the built-in programs].
        #[arg(long, value_name = "DIR")]
        app: Option<PathBuf>,
    },
    /// Make a new app from a template: apps/NAME, or the directory PATH names.
    ///
    /// The app is a crate on the kernel library and rma whose one program,
    /// NAME, has every core put its rank into its right neighbour's window
    /// under a fence and check what it received. Boot it with
    /// `cargo xtask run --app apps/NAME --cores 4`.
    ///
    /// With `--lang c`, the app is the directory NAME|PATH (relative to the
    /// current directory, anywhere but apps/) holding NAME.c: the same
    /// program in C over MPI. Boot it with `cargo xtask run --app PATH
    /// --cores 4`, which compiles every .c file there.
    New {
        /// A name (the app goes to apps/NAME) or a path outside this workspace;
        /// for C, a path.
        #[arg(value_name = "NAME|PATH")]
        name: String,
        /// The app's language.
        #[arg(long, value_enum, default_value_t)]
        lang: xtask::new::Lang,
    },
    /// Run the benchmark suite: tables, CSV, SVG plots and a Markdown report under target/bench/ (or --out).
    ///
    /// Each SET is an experiment or `all` (the default: every one). An
    /// experiment runs kernel programs (whose `BENCH` result lines are
    /// pooled into tables and plots in modelled SCC time) or measures the
    /// emulator in host time. Each experiment's tables are printed in the
    /// OSU text format (one two-column table per setting) and written to
    /// DIR/<experiment>.txt, with <experiment>.csv (the summary),
    /// <experiment>-samples.csv (every raw sample, with its run and core)
    /// and <experiment>*.svg beside them; the report
    /// (DIR/report.md unless --report says otherwise) ties
    /// them together. A failed run, a malformed BENCH line or an experiment
    /// without results is listed in the report and makes the exit status 1,
    /// once everything else is written.
    #[command(after_help = format!("Experiments:\n{}", bench_list()))]
    Bench(BenchArgs),
    /// Run every test: host tests, the lint checks (as `lint`), then the
    /// system tests booted on 1 to 48 cores.
    Test,
    /// Check the project's habits: cargo fmt, clippy (host and guest crates)
    /// and rustdoc, each without warnings.
    Lint,
    /// Build the book (the chapters in docs/, listed in docs/SUMMARY.md) into target/book with mdBook.
    ///
    /// mdBook is installed with `cargo install` if it is missing, printing
    /// the command, unless SCC_NO_INSTALL is set.
    Doc,
    /// Compile and link C programs over MPI for the cores, as MPICH's and Open MPI's mpicc do.
    ///
    /// Sources (.c) are compiled with the flags `run --c` uses (32-bit,
    /// freestanding, `-std=c11 -O2 -g -Wall`, with mpi.h and the C
    /// runtime's headers); the flags given come after those, so a given
    /// -O or -std wins. With -c each source becomes an object (-o, or
    /// NAME.o in the current directory); otherwise the sources, objects
    /// (.o) and archives (.a) are linked with libmpi.a (MPI, the C runtime
    /// and the kernel) into the image at -o (default a.out), which
    /// `cargo xtask mpiexec` boots.
    ///
    /// Flags taken: -c, -o FILE, -I DIR, -D NAME[=VALUE], -U NAME, -O,
    /// -O0..3, -Os, -Og, -Oz, -Ofast, -g, -gLEVEL, -std=..., -W... (warnings),
    /// -w, -pedantic, -ansi, -f... (code generation), -MD, -MMD, -MP,
    /// -MF/-MT/-MQ, -L DIR, -l NAME (libNAME.a from a -L directory; -lm,
    /// -lc and -lmpi are in libmpi.a already), -m32 and -static (the
    /// default). Refused, with the reason: -shared, -fPIC, -fpie, -pie,
    /// -m64, -march=, -mtune=, -pthread, -fopenmp, -fstack-protector*,
    /// -fsanitize=*, -Wl,..., -Xlinker, -Wa,..., -Wp,..., -E, -S, -x,
    /// -nostdinc, -nostdlib, and any other flag.
    #[command(
        disable_help_flag = true,
        after_help = "Example:
  cargo xtask mpicc -c ring.c -DROUNDS=3
  cargo xtask mpicc ring.o util.c -o ring
  cargo xtask mpiexec -n 4 ring ARGS

`cargo xtask mpi-env` writes target/mpi/bin/mpicc and mpiexec, for `make CC=...`."
    )]
    Mpicc(DriverArgs),
    /// Boot a program `cargo xtask mpicc` linked on N cores, as `cargo xtask run` boots one.
    ///
    /// Every core runs PROG's main with argv PROG's file name, then ARGS.
    /// The run flags are `cargo xtask run`'s (they come before PROG), and
    /// so are the output and the exit status.
    #[command(alias = "oshrun")]
    Mpiexec(MpiexecArgs),
    /// Compile and link C programs over OpenSHMEM (shmem.h) for the cores: `cargo xtask mpicc`, linking libshmem.a.
    ///
    /// The flags are mpicc's. The image is booted with `cargo xtask oshrun`
    /// (another name of `mpiexec`), with the same run flags
    /// (--check-coherence, --stats, --trace).
    #[command(
        disable_help_flag = true,
        after_help = "Example:
  cargo xtask oshcc ring.c -o ring
  cargo xtask oshrun -n 4 --check-coherence ring"
    )]
    Oshcc(DriverArgs),
    /// Build and run a conformance suite of an MPI implementation's tests or benchmarks, unmodified, and write a table of the results.
    ///
    /// `mpich-rma`: MPICH's one-sided tests, `test/mpi/rma` of the MPICH
    /// source tree at --mpich (nothing is fetched). Every line of its
    /// `testlist` (or `testlist.in`) is one test: the program (its sources
    /// and -D flags from `Makefile.am`) is built with `cargo xtask mpicc`
    /// and MPICH's own harness (`test/mpi/util/mtest.c`), and booted on the
    /// line's process count as `cargo xtask mpiexec -n NP
    /// --check-coherence` boots it, with the line's `arg=` arguments and
    /// `timeLimit=` seconds. A test passes when every core succeeds, " No
    /// Errors" is printed and no read was stale; `xfail=` lines that fail
    /// count as expected failures. Tests that need threads, MPI-IO,
    /// MPICH's DTPools library, environment variables or more cores than
    /// the chip has are skipped, with the reason.
    ///
    /// `osu-one-sided`: the OSU micro-benchmarks' one-sided programs,
    /// `mpi/one-sided` (or `c/mpi/one-sided`) of the OSU source tree at
    /// --osu. Every program of its `Makefile.am` is built from the sources
    /// it names with `cargo xtask mpicc`, booted once with -h to read its
    /// usage, then run on 2 cores in every -w window mode with every -s
    /// synchronisation mode that usage lists, with `-i 10 -x 2` (small
    /// iteration counts: host time) and, where the usage lists `-m`,
    /// `-m 1:262144` (messages up to 256 KiB: a bandwidth program's 64 of
    /// them fit a core's heap and window memory), for --timeout (else
    /// run's default, 180 s) times --timeout-multiplier. A run passes when every core succeeds,
    /// the size rows are printed and no read was stale; one that runs out
    /// of time without failing is a timeout (with its last row), not a
    /// pass.
    ///
    /// `sos-unit`: Sandia OpenSHMEM's unit tests, `test/unit` of the
    /// tests-sos tree at --sos. Every C program of its `check_PROGRAMS`
    /// (those under a configure conditional that does not hold on the
    /// cores, C++, Fortran, threads, profiling, are skipped with the
    /// reason) is built with `cargo xtask oshcc -I test/include` and its
    /// `NAME_CFLAGS`, and booted on `NPROCS` cores (2) as `cargo xtask
    /// oshrun -n 2 --check-coherence` boots it. A test passes when every
    /// core exits successfully and no read was stale; a timeout is counted
    /// apart.
    ///
    /// The table (what was run, result, stale reads, reason) goes to
    /// --out; objects, images and each run's log go to --work. The exit
    /// status is 0 whatever the tests did: the table is the report.
    Conformance(ConformanceArgs),
    /// Write target/mpi/bin/mpicc and target/mpi/bin/mpiexec: scripts that run `cargo xtask mpicc` and `mpiexec` from any directory (for `make CC=...`).
    ///
    /// `cargo xtask build` writes them too. Each runs this workspace's
    /// xtask binary, which any `cargo xtask` command rebuilds.
    MpiEnv,
}

/// The arguments of a compiler driver (mpicc, oshcc), which it parses
/// itself as gcc's.
#[derive(Debug, Args)]
struct DriverArgs {
    /// gcc-like flags and files (.c, .o, .a).
    #[arg(
        value_name = "FLAGS|FILES",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true
    )]
    args: Vec<String>,
}

#[derive(Debug, Args)]
struct MpiexecArgs {
    /// Cores to boot (ranks): cores 0..N of the chip.
    #[arg(short = 'n', value_name = "N", value_parser = parse_cores)]
    n: u32,
    #[command(flatten)]
    flags: RunFlags,
    /// The image `cargo xtask mpicc` linked, then the arguments of its main.
    #[arg(
        value_name = "PROG [ARGS]",
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    command: Vec<String>,
}

#[derive(Debug, Args)]
struct ConformanceArgs {
    /// The suite.
    #[arg(value_enum)]
    suite: xtask::conformance::Suite,
    /// mpich-rma: the top of an MPICH source tree (it holds
    /// test/mpi/rma/testlist or testlist.in, and test/mpi/util/mtest.c).
    #[arg(long, value_name = "PATH")]
    mpich: Option<PathBuf>,
    /// osu-one-sided: the top of an OSU micro-benchmarks source tree (it
    /// holds mpi/one-sided/Makefile.am, or c/mpi/one-sided/ from release
    /// 7).
    #[arg(long, value_name = "PATH")]
    osu: Option<PathBuf>,
    /// sos-unit: the top of a tests-sos tree (openshmem-org/tests-sos; it
    /// holds test/unit/Makefile.am and test/include).
    #[arg(long, value_name = "PATH")]
    sos: Option<PathBuf>,
    /// Tests (runs) built and run at once; each boots its process count of
    /// QEMUs.
    #[arg(long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Run only these tests (names as the list spells them; every line of
    /// each) or OSU programs (every mode of each).
    #[arg(long, value_name = "NAME", num_args = 1..)]
    only: Vec<String>,
    /// The Markdown table's file [default: target/conformance/SUITE.md].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Where objects, images and run logs go [default:
    /// target/conformance/SUITE/].
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    /// The chip to emulate (as `run --chip`).
    #[arg(long, value_name = "NAME", default_value = chip::DEFAULT_CHIP.name, value_parser = xtask::parse_chip)]
    chip: &'static chip::Chip,
    /// KiB of each core's stack (as `run --stack-kib`); the default is
    /// Linux's usual 8 MiB limit, which MPICH's tests assume (arrays on
    /// the stack).
    #[arg(long, value_name = "N", default_value_t = 8192)]
    stack_kib: u32,
    /// MiB of each core's private RAM (as `run --memory-mib`; the heap is
    /// half of it): more than `run`'s default, as some tests stage
    /// datatypes of a million elements.
    #[arg(long, value_name = "N", default_value_t = 256)]
    memory_mib: u32,
    /// The time limit of every test without its own `timeLimit=` (every
    /// OSU run), in seconds, in place of run's default (180 s up to 48
    /// cores).
    #[arg(long, value_name = "S")]
    timeout: Option<u64>,
    /// Multiply every test's time limit (its `timeLimit=`, else run's
    /// default or --timeout) by N, as MPICH's
    /// MPITEST_TIMEOUT_MULTIPLIER does: for a slow or busy host.
    #[arg(long, value_name = "N", default_value_t = 1)]
    timeout_multiplier: u32,
}

/// The environment variables xtask reads, for `--help`.
const ENVIRONMENT: &str = "Environment:
  SCC_NO_INSTALL=1  never install QEMU: where it is missing or too old, stop with the
                    command that installs it (as root, xtask would run that command)
  TMPDIR            where run directories go when /dev/shm has too little room
                    (default /tmp; `run --run-dir` chooses one place instead)";

#[derive(Debug, Args)]
struct RunArgs {
    /// Cores to boot: cores 0..N of the chip [default: all of them, 48 on
    /// the SCC].
    #[arg(long, value_name = "N", value_parser = parse_cores)]
    cores: Option<u32>,
    /// Program every core runs [default: the app's first; the built-in
    /// image's is ring]. `cargo xtask programs` lists them.
    #[arg(long, value_name = "NAME")]
    program: Option<String>,
    /// Boot this app (a crate on the kernel library, made with `cargo
    /// xtask new`, or a directory of C files, made with `cargo xtask new
    /// --lang c`) instead of the built-in programs.
    #[arg(long, value_name = "DIR")]
    app: Option<PathBuf>,
    /// A setting of the program (repeatable); `cargo xtask programs`
    /// shows which programs take which, and their defaults.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = xtask::parse_param)]
    params: Vec<(String, String)>,
    /// Boot a C program instead: compile these files with the system's gcc
    /// (32-bit, freestanding, with mpi.h and the C runtime's headers) and
    /// link them against MPI, the C runtime and the kernel. Every core runs
    /// its main(argc, argv).
    #[arg(long = "c", value_name = "FILE.c", num_args = 1.., conflicts_with_all = ["app", "program"])]
    c_files: Vec<PathBuf>,
    /// Arguments for the C program's main, after its name in argv.
    #[arg(last = true, value_name = "ARGS")]
    c_args: Vec<String>,
    #[command(flatten)]
    flags: RunFlags,
}

/// How a run goes and what it reports: the flags `run` and `mpiexec` share.
#[derive(Debug, Args)]
struct RunFlags {
    /// The chip to emulate (`scc`, the Intel SCC, or `mesh8x8`, an 8x8
    /// mesh of 192 cores: `chip::CHIPS`); the same image boots on each.
    #[arg(long, value_name = "NAME", default_value = chip::DEFAULT_CHIP.name, value_parser = xtask::parse_chip)]
    chip: &'static chip::Chip,
    /// KiB of each core's stack (whole 4 KiB pages, at most 8192). A guard
    /// page below it catches an overflow: the core fails with "stack
    /// overflow", naming the function.
    #[arg(long, value_name = "N", default_value_t = chip::args::DEFAULT_STACK_KIB)]
    stack_kib: u32,
    /// MiB of each core's private RAM, 32 to 512; the kernel's heap is
    /// half of it. The stencil's full-scale grids need more than the
    /// default.
    #[arg(long, value_name = "N", default_value_t = emu::launch::DEFAULT_MEMORY_MIB)]
    memory_mib: u32,
    /// Seconds the run may take, build excluded, before it is stopped
    /// [default: 180 up to 48 cores, growing with the square of the core
    /// count beyond: 1280 for 128 cores].
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    timeout: Option<u64>,
    /// Turn on the chip model's coherence checker and list, at the end, the
    /// reads that returned stale data (they do not change the exit status).
    #[arg(long)]
    check_coherence: bool,
    /// Print the chip model's statistics at the end: accesses and cache
    /// events per core, bytes per MPB and memory controller, test-and-set
    /// registers.
    #[arg(long)]
    stats: bool,
    /// Run without the chip model (no plugin) on coherent shared memory, as
    /// plain QEMU: the baseline for overhead measurements.
    #[arg(long, conflicts_with_all = ["check_coherence", "stats"])]
    plain: bool,
    /// Modelled SCC time: no core's clock runs more than this many core
    /// cycles ahead of the slowest running core.
    #[arg(long, value_name = "CYCLES", default_value_t = emu::timing::DEFAULT_QUANTUM,
          value_parser = clap::value_parser!(u64).range(1..),
          conflicts_with_all = ["plain", "no_timing"])]
    quantum: u64,
    /// The seed of what differs between two boots of the chip and the
    /// program cannot see: where each access meets the mesh's clock,
    /// each memory controller's refresh phase, the moment each core leaves
    /// reset, and the order in which arbiters meet simultaneous requests.
    /// The same seed gives the same modelled time; another seed shows how
    /// much a result depends on them.
    #[arg(long, value_name = "N", default_value_t = chip::DEFAULT_SEED,
          conflicts_with_all = ["plain", "no_timing"])]
    seed: u64,
    /// Run the chip model without modelled time (the global timestamp
    /// reads 0 and the kernel's clock falls back to the host's rdtsc).
    #[arg(long, conflicts_with = "plain")]
    no_timing: bool,
    /// Loads from MPBT-WT pages fill L1, as Intel documents the memory
    /// type, instead of bypassing it as the thesis measured on silicon
    /// (reads at NCM speed, never stale; the default).
    #[arg(long, conflicts_with = "plain")]
    ideal_wt_reads: bool,
    /// Modelled time without queues: every memory controller, MPB and
    /// register block serves each request at once: contention for them is
    /// no longer modelled.
    #[arg(long, conflicts_with_all = ["plain", "no_timing"])]
    no_queues: bool,
    /// Make the run's directory (its chip memory, private to this user,
    /// removed at the end) in DIR [default: /dev/shm, or the temporary
    /// directory when /dev/shm has too little room].
    #[arg(long, value_name = "DIR")]
    run_dir: Option<PathBuf>,
    /// Start core CORE paused, with QEMU's gdb stub on a unix socket in the
    /// run directory, and print the `gdb` command that attaches to it with
    /// the image's symbols. The other cores wait for it; the run has no
    /// timeout while it is debugged.
    #[arg(long, value_name = "CORE")]
    gdb: Option<u32>,
    /// Print every core's QEMU command line before it starts.
    #[arg(long)]
    print_qemu: bool,
    /// Write the run's statistics to FILE as JSON: every core's chip-model
    /// report (the counters --stats tables, per-resource waits, TSR
    /// operations, stale reads), the outcome and the host time.
    #[arg(long, value_name = "FILE", conflicts_with = "plain")]
    stats_json: Option<PathBuf>,
    /// Trace rma's calls (put, get, accumulate, fence, PSCW, lock, flush,
    /// ... with window, target and bytes) and the chip's CL1INVMB, WBINVD
    /// and modelled waits, one track per core in modelled time, and write
    /// them to FILE as trace-event JSON: open it in ui.perfetto.dev.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["plain", "no_timing"])]
    trace: Option<PathBuf>,
    /// Keep the run directory afterwards (chip memory, each core's RAM, the
    /// chip model's per-core reports), renamed scc-kept-*, and say where;
    /// removing it is yours to do.
    #[arg(long)]
    keep_run_dir: bool,
}

#[derive(Debug, Args)]
struct BenchArgs {
    /// Experiments to run, or `all` (see the list below).
    #[arg(value_name = "SET", value_parser = parse_set)]
    sets: Vec<String>,
    /// One run per measurement (seed 0) instead of three (seeds 0, 1 and 2
    /// of the chip's variation), and smaller cases: quicker, noisier.
    #[arg(long)]
    quick: bool,
    /// Directory for the tables, CSV files and plots [default: target/bench].
    /// Each run also leaves its result in DIR/runs/<ID>.json and its serial
    /// log in DIR/logs/<ID>.log.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Where the Markdown report goes [default: DIR/report.md]. It links to
    /// the files in DIR relatively, so DIR must be its directory or below.
    /// Both are checked before anything is built or run.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Skip the runs whose results are complete in DIR (a whole
    /// DIR/runs/<ID>.json of the same run and scale, recording no failure,
    /// written when the run ended) and make the others; the tables are
    /// made from every result.
    #[arg(long, conflicts_with_all = ["only_failed", "run_one", "collect", "list_runs"])]
    resume: bool,
    /// Make again only the runs whose result in DIR records a failure; the
    /// tables are made from every result.
    #[arg(long, conflicts_with_all = ["run_one", "collect", "list_runs"])]
    only_failed: bool,
    /// Make N runs at once (at most the host's hardware threads). Host-time
    /// experiments still run alone, after the others.
    #[arg(long, value_name = "N", default_value_t = 1, conflicts_with_all = ["run_one", "collect", "list_runs"])]
    jobs: usize,
    /// Print one command per run the SETs need, each `cargo xtask bench
    /// --run-one ID ... --out DIR`, for GNU parallel or a Slurm job array;
    /// then `--collect DIR` makes the report. Runs nothing.
    #[arg(long, conflicts_with_all = ["run_one", "collect", "report"])]
    list_runs: bool,
    /// Make only the run ID (as --list-runs prints it; give --quick as it
    /// does) and leave its result and log in DIR, without tables or report.
    /// The exit status is 1 if the run failed.
    #[arg(long, value_name = "ID", conflicts_with_all = ["collect", "report", "sets"])]
    run_one: Option<String>,
    /// Make the tables, files and report from the results in DIR/runs
    /// (left by --run-one), for the SETs given or else every experiment
    /// with a result; a run without a result is a failure. Runs nothing.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "quick"])]
    collect: Option<PathBuf>,
}

fn parse_set(value: &str) -> Result<String> {
    xtask::bench::select(&[value.to_owned()])?;
    Ok(value.to_owned())
}

/// One line per registered experiment: its name and title.
fn bench_list() -> String {
    let mut text = format!("  {:<16} every experiment below, in this order\n", "all");
    for e in xtask::bench::REGISTRY {
        text += &format!("  {:<16} {}\n", e.name, e.title);
    }
    text
}

/// A number of cores; whether the chip has that many is checked with the
/// chip ([`RunConfig::check`]).
fn parse_cores(value: &str) -> Result<u32> {
    value
        .parse()
        .with_context(|| format!("`{value}` is not a number of cores"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let interrupt = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicUsize::new(0));
    match main_with(cli, &interrupt, &signal) {
        Ok(code) => code,
        // Whatever was under way when the signal came, it has stopped by now.
        Err(e) if interrupt.load(Ordering::SeqCst) => {
            eprintln!("{e:#}\ninterrupted");
            ExitCode::from(signal_status(&signal))
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The exit status after the signal recorded in `signal`: 128 plus its
/// number, as a shell reports a command that signal ended.
fn signal_status(signal: &AtomicUsize) -> u8 {
    let number = signal.load(Ordering::SeqCst);
    u8::try_from(128 + number).unwrap_or(130)
}

/// The run mode the flags ask for; clap has refused the combinations that
/// mean nothing (`--plain` with any flag of the chip model, `--no-queues`
/// with `--no-timing`).
fn mode_of(args: &RunFlags) -> Mode {
    if args.plain {
        return Mode::Plain;
    }
    let time = if args.no_timing {
        Time::Off
    } else {
        Time::On {
            quantum: NonZeroU64::new(args.quantum).expect("clap refuses a quantum of 0"),
            queues: !args.no_queues,
            seed: args.seed,
        }
    };
    Mode::Modelled(Model {
        check: args.check_coherence,
        wt_reads: if args.ideal_wt_reads {
            WtReads::Ideal
        } else {
            WtReads::Silicon
        },
        time,
    })
}

/// `cargo xtask bench`, whichever way it is asked to run.
fn bench(args: BenchArgs, interrupt: &Arc<AtomicBool>) -> Result<ExitCode> {
    let interrupt = Some(Arc::clone(interrupt));
    let command = std::iter::once("cargo xtask".to_owned())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    if args.list_runs {
        let out = args
            .out
            .unwrap_or_else(|| xtask::build::target_dir().join("bench"));
        for line in xtask::bench::list_runs(&args.sets, args.quick, &out)? {
            println!("{line}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(id) = &args.run_one {
        let output = xtask::bench::Output::new(args.out, None)?;
        let result = xtask::bench::run_one(id, args.quick, &output.dir, interrupt, &command)?;
        println!(
            "result written to {}",
            xtask::bench::results::path(&output.dir, id).display()
        );
        return Ok(match &result.failure {
            None => ExitCode::SUCCESS,
            Some(f) => {
                eprintln!("failed: {id}: {f}");
                ExitCode::FAILURE
            }
        });
    }
    let outcome = if let Some(dir) = args.collect {
        let output = xtask::bench::Output::new(Some(dir), args.report)?;
        xtask::bench::collect(&args.sets, &output, &command)?
    } else {
        let available = std::thread::available_parallelism().map_or(1, |n| n.get());
        let parallel = xtask::bench::jobs::check_parallel(args.jobs, available)?;
        let rerun = if args.resume {
            xtask::bench::Rerun::Resume
        } else if args.only_failed {
            xtask::bench::Rerun::OnlyFailed
        } else {
            xtask::bench::Rerun::All
        };
        let options = xtask::bench::Options {
            quick: args.quick,
            rerun,
            parallel,
        };
        let output = xtask::bench::Output::new(args.out, args.report)?;
        xtask::bench::run_suite(&args.sets, options, &output, interrupt, &command)?
    };
    println!("report written to {}", outcome.report.display());
    let failures = outcome.failures();
    if failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &failures {
            eprintln!("failed: {f}");
        }
        eprintln!("error: {} failure(s), see the report", failures.len());
        Ok(ExitCode::FAILURE)
    }
}

/// Writes the `mpicc` and `mpiexec` scripts, which run this binary.
fn write_scripts() -> Result<PathBuf> {
    let me = std::env::current_exe().context("cannot find the xtask binary's path")?;
    xtask::mpicc::write_scripts(&me)
}

/// Boots `app` as `flags` say on `cores` cores (all of the chip's when
/// `None`) and reports as `cargo xtask run` does; the exit status is the
/// run's.
fn run(
    flags: RunFlags,
    cores: Option<u32>,
    app: xtask::App,
    program: Option<String>,
    params: Vec<(String, String)>,
    interrupt: &Arc<AtomicBool>,
    signal: &Arc<AtomicUsize>,
) -> Result<ExitCode> {
    let mode = mode_of(&flags);
    let cores = cores.unwrap_or(flags.chip.cores());
    let config = RunConfig {
        chip: flags.chip,
        cores,
        app,
        program,
        params,
        stack_kib: flags.stack_kib,
        memory_mib: flags.memory_mib,
        timeout: flags
            .timeout
            .map_or_else(|| RunConfig::default_timeout(cores), Duration::from_secs),
        echo: true,
        interrupt: Some(Arc::clone(interrupt)),
        mode,
        stats: flags.stats,
        stats_json: flags.stats_json,
        gdb: flags.gdb,
        print_qemu: flags.print_qemu,
        keep_run_dir: flags.keep_run_dir,
        trace: flags.trace,
        run_dir: flags.run_dir,
    };
    let report: RunReport = xtask::run(&config)?;
    for error in &report.report_errors {
        eprintln!("warning: {error}");
    }
    if config.stats {
        println!("{}", report.stats_table());
    }
    if config.checks_coherence() {
        println!("{}", report.coherence_summary());
    }
    if let Some(dir) = &report.kept {
        println!(
            "run directory kept: {} (remove it with `rm -r {}`)",
            dir.display(),
            dir.display()
        );
    }
    println!("{report}");
    for error in &report.output_errors {
        eprintln!("error: {error}");
    }
    // Stale reads alone do not fail the run: the outcome and the outputs
    // decide.
    Ok(ExitCode::from(match report.outcome {
        xtask::Outcome::Interrupted => signal_status(signal),
        _ => report.exit_code(),
    }))
}

fn main_with(cli: Cli, interrupt: &Arc<AtomicBool>, signal: &Arc<AtomicUsize>) -> Result<ExitCode> {
    // SIGINT, SIGTERM and SIGHUP only raise a flag (and record which came): the run
    // then stops its QEMU instances and removes the chip memory on its
    // ordinary way out.
    // SIGHUP too: a closed terminal must not leave the chip memory behind.
    // The number is recorded before the flag is raised.
    for number in [SIGINT, SIGTERM, SIGHUP] {
        signal_hook::flag::register_usize(number, Arc::clone(signal), number as usize)
            .and_then(|_| signal_hook::flag::register(number, Arc::clone(interrupt)))
            .context("cannot install the signal handlers")?;
    }
    match cli {
        Cli::Build => {
            let artifacts = xtask::build(false)?;
            println!("image: {}", artifacts.kernel.display());
            println!("plugin: {}", artifacts.plugin.display());
            let dir = write_scripts()?;
            println!("mpicc and mpiexec: {}", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        Cli::Run(args) => {
            let (app, params) = xtask::app_of(args.app, args.c_files, &args.c_args, args.params)?;
            run(
                args.flags,
                args.cores,
                app,
                args.program,
                params,
                interrupt,
                signal,
            )
        }
        Cli::Mpicc(DriverArgs { args }) => {
            if wants_help(&args) {
                return print_help_of("mpicc");
            }
            xtask::mpicc::parse(&args)?.run()?;
            Ok(ExitCode::SUCCESS)
        }
        Cli::Oshcc(DriverArgs { args }) => {
            if wants_help(&args) {
                return print_help_of("oshcc");
            }
            xtask::mpicc::parse_oshcc(&args)?
                .run()
                .map_err(xtask::mpicc::as_oshcc)?;
            Ok(ExitCode::SUCCESS)
        }
        Cli::Mpiexec(args) => {
            let (program, words) = args.command.split_first().expect("clap requires PROG");
            let image = PathBuf::from(program);
            let image = std::fs::canonicalize(&image)
                .with_context(|| format!("mpiexec: {program}: no such image (`cargo xtask mpicc -o {program} ...` links one)"))?;
            let name = image
                .file_name()
                .and_then(|n| n.to_str())
                .context("mpiexec: the program's name is not valid UTF-8")?;
            let params = vec![xtask::argv_param(name, words)?];
            let app = xtask::App::Image(image.clone());
            run(
                args.flags,
                Some(args.n),
                app,
                None,
                params,
                interrupt,
                signal,
            )
        }
        Cli::MpiEnv => {
            let dir = write_scripts()?;
            println!("wrote {0}/mpicc and {0}/mpiexec", dir.display());
            println!("use them: export PATH={}:$PATH", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        Cli::Bench(args) => bench(args, interrupt),
        Cli::Conformance(args) => {
            let suite = args.suite;
            let name = suite.name();
            let (tree, other) = match suite {
                xtask::conformance::Suite::MpichRma => (
                    args.mpich,
                    args.osu
                        .map(|_| "--osu")
                        .or(args.sos.as_ref().map(|_| "--sos")),
                ),
                xtask::conformance::Suite::OsuOneSided => (
                    args.osu,
                    args.mpich
                        .map(|_| "--mpich")
                        .or(args.sos.as_ref().map(|_| "--sos")),
                ),
                xtask::conformance::Suite::SosUnit => (
                    args.sos,
                    args.mpich.map(|_| "--mpich").or(args.osu.map(|_| "--osu")),
                ),
            };
            if let Some(flag) = other {
                bail!(
                    "{flag} is not a flag of {name}: give its tree with {}",
                    suite.tree_flag()
                );
            }
            let Some(tree) = tree else {
                bail!(
                    "{name} needs {} PATH: the suite's source tree",
                    suite.tree_flag()
                );
            };
            let base = xtask::build::target_dir().join("conformance");
            let options = xtask::conformance::Options {
                tree,
                out: args.out.unwrap_or_else(|| base.join(format!("{name}.md"))),
                work: args.work.unwrap_or_else(|| base.join(name)),
                jobs: args.jobs,
                only: args.only,
                chip: args.chip,
                stack_kib: args.stack_kib,
                memory_mib: args.memory_mib,
                timeout: args.timeout.map(std::time::Duration::from_secs),
                timeout_multiplier: args.timeout_multiplier,
                interrupt: Some(Arc::clone(interrupt)),
            };
            let rows = xtask::conformance::run(suite, &options)?;
            let counts = xtask::conformance::Counts::of(&rows);
            println!(
                "{} {}: {}; table written to {}",
                rows.len(),
                suite.noun(),
                counts.summary(),
                options.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Cli::Programs { app } => {
            let app = app.map_or(Ok(xtask::App::Builtin), xtask::app_in)?;
            let artifacts = xtask::build_app(&app, true)?;
            let catalog = xtask::Catalog::read(&artifacts.kernel)?;
            println!("Programs of {}:", artifacts.kernel.display());
            print!("{}", catalog.list());
            Ok(ExitCode::SUCCESS)
        }
        Cli::New { name, lang } => {
            let dir = xtask::new::new_app(&name, lang)?;
            println!("made the app {}", dir.display());
            println!(
                "boot it: cargo xtask run --app {} --cores 4",
                dir.strip_prefix(xtask::workspace_root())
                    .unwrap_or(&dir)
                    .display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Cli::Test => {
            xtask::test()?;
            println!("all tests passed");
            Ok(ExitCode::SUCCESS)
        }
        Cli::Lint => {
            xtask::lint()?;
            println!("formatting, clippy and rustdoc: no warnings");
            Ok(ExitCode::SUCCESS)
        }
        Cli::Doc => {
            let index = xtask::book::build()?;
            println!("the book: {}", index.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Whether a compiler driver's own arguments (which clap does not parse)
/// ask for its help.
fn wants_help(args: &[String]) -> bool {
    args.iter().any(|a| a == "--help" || a == "-h")
}

/// Prints the long help of the command `name` (a compiler driver, whose
/// arguments clap leaves to it) as `cargo xtask NAME --help` would.
fn print_help_of(name: &str) -> Result<ExitCode> {
    let mut cli = <Cli as clap::CommandFactory>::command();
    let command = cli
        .find_subcommand_mut(name)
        .unwrap_or_else(|| panic!("{name} is a command"));
    let mut command = command.clone().bin_name(format!("cargo xtask {name}"));
    command.print_long_help()?;
    Ok(ExitCode::SUCCESS)
}
