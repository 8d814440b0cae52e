// SPDX-License-Identifier: MIT OR Apache-2.0
//! The book's Slurm recipe (`docs/benchmarks.md`), run for real: a single-node Slurm cluster on
//! this host (Debian's `slurmctld`, `slurmd` and `slurm-client`, installed
//! with apt if missing) runs a few quick benchmark sets as a job array of
//! `--list-runs` commands, `--collect` makes their tables, and every
//! modelled result matches a local `cargo xtask bench` of the same sets.
//!
//! The cluster is the test's own: its `slurm.conf`, state, spool and logs
//! live in a temporary directory, its daemons listen on ports free when it
//! starts and authenticate nothing (`auth/none`, so no munge daemon is
//! started), and a guard cancels its jobs and stops its daemons however
//! the test ends. The packages stay installed (on a host with systemd,
//! Debian starts the munge service they depend on; the test does not use
//! it). It skips, saying why, where it cannot run: not root, no apt, the
//! packages do not install, a Slurm daemon already runs, or its daemons do
//! not come up.

use std::fs;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use system_tests::processes_using;
use xtask::bench::jobs::shell_word;

/// Quick sets whose five runs take about 30 s of host time on 2 idle
/// cores, in the registry's order (the order `--collect` reports in),
/// each giving the same samples run after run. Not the put and get
/// sets: their run (`bench-put-get` on 2 cores) gives different samples
/// from one run to the next today.
const SETS: &[&str] = &["pscw-sync", "load-store", "barrier"];

/// How long the job array, and then the local suite run, may take before
/// the test gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// The Slurm commands the test needs, from the three packages.
const BINARIES: &[&str] = &[
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "squeue",
    "scancel",
];

fn skip(why: &str) {
    eprintln!("skipped: {why}");
}

/// Where `name` is on `PATH` (or in an sbin directory,
/// which a root shell may lack on `PATH`).
fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/bin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn read_lossy(path: &Path) -> String {
    fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_else(|e| format!("(cannot read {}: {e})", path.display()))
}

/// Installs the Slurm packages with apt if a command is missing; the
/// reason to skip if that cannot be done.
fn install_slurm() -> Result<(), String> {
    let missing: Vec<&str> = BINARIES
        .iter()
        .copied()
        .filter(|b| find(b).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let Some(apt) = find("apt-get") else {
        return Err(format!(
            "{} missing and there is no apt-get to install Slurm with",
            missing.join(", ")
        ));
    };
    eprintln!(
        "{} missing: installing slurmctld, slurmd and slurm-client with apt-get",
        missing.join(", ")
    );
    let install = || {
        Command::new(&apt)
            .args(["install", "-y", "--no-install-recommends"])
            .args(["slurmctld", "slurmd", "slurm-client"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output()
    };
    let mut out = install().map_err(|e| format!("cannot run apt-get: {e}"))?;
    if !out.status.success() {
        // The package lists may be missing or stale on a fresh machine.
        let _ = Command::new(&apt).arg("update").output();
        out = install().map_err(|e| format!("cannot run apt-get: {e}"))?;
    }
    if !out.status.success() {
        return Err(format!(
            "`apt-get install slurmctld slurmd slurm-client` failed ({}):\n{}",
            out.status,
            tail(&String::from_utf8_lossy(&out.stderr), 10)
        ));
    }
    match BINARIES.iter().find(|b| find(b).is_none()) {
        Some(b) => Err(format!("{b} is still missing after installing Slurm")),
        None => Ok(()),
    }
}

/// A Slurm daemon already running on this host, as `name (pid)`.
fn running_daemon() -> Option<String> {
    let entries = fs::read_dir("/proc").ok()?;
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find_map(|pid| {
            let comm = fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
            let comm = comm.trim();
            ["slurmctld", "slurmd", "slurmctld-wlm", "slurmd-wlm"]
                .contains(&comm)
                .then(|| format!("{comm} (pid {pid})"))
        })
}

/// A TCP port nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// The test's Slurm cluster: its directory and its two daemons. Dropping
/// it cancels every job, ends what they left and stops the daemons, then
/// removes the directory.
struct Cluster {
    daemons: Vec<(&'static str, Child)>,
    conf: PathBuf,
    /// Declared last: removed after the daemons have stopped.
    dir: tempfile::TempDir,
}

impl Cluster {
    /// Writes the configuration for this host and starts `slurmctld` and
    /// `slurmd` in the foreground; the reason to skip if they do not
    /// come up.
    fn start() -> Result<Cluster, String> {
        let dir = tempfile::Builder::new()
            .prefix("scc-slurm-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary directory: {e}"))?;
        let root = dir.path();
        for sub in ["state", "spool"] {
            fs::create_dir(root.join(sub)).expect("a directory in the test's own");
        }
        // The host's CPUs and memory as slurmd itself counts them.
        let probe = Command::new(find("slurmd").unwrap_or_else(|| "slurmd".into()))
            .arg("-C")
            .output()
            .map_err(|e| format!("cannot run `slurmd -C`: {e}"))?;
        let probed = String::from_utf8_lossy(&probe.stdout);
        let Some(node) = probed.lines().find(|l| l.starts_with("NodeName=")) else {
            return Err(format!(
                "`slurmd -C` gave no NodeName line ({}): {probed}{}",
                probe.status,
                String::from_utf8_lossy(&probe.stderr)
            ));
        };
        let hardware = node.split_once(' ').map_or("", |(_, rest)| rest);
        let r = root.display();
        let conf = format!(
            "ClusterName=scc-test\n\
             SlurmctldHost=localhost\n\
             SlurmctldPort={ctld}\n\
             SlurmdPort={d}\n\
             AuthType=auth/none\n\
             CredType=cred/none\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             StateSaveLocation={r}/state\n\
             SlurmdSpoolDir={r}/spool\n\
             SlurmctldPidFile={r}/slurmctld.pid\n\
             SlurmdPidFile={r}/slurmd.pid\n\
             SlurmctldLogFile={r}/slurmctld.log\n\
             SlurmdLogFile={r}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             JobCompType=jobcomp/none\n\
             SwitchType=switch/none\n\
             MpiDefault=none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\n\
             ReturnToService=2\n\
             NodeName=localhost {hardware} State=UNKNOWN\n\
             PartitionName=bench Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
            ctld = free_port(),
            d = free_port(),
        );
        let conf_path = root.join("slurm.conf");
        fs::write(&conf_path, conf).expect("slurm.conf written");
        let mut cluster = Cluster {
            daemons: Vec::new(),
            conf: conf_path.clone(),
            dir,
        };
        for (name, args) in [
            ("slurmctld", &["-D"][..]),
            ("slurmd", &["-D", "-N", "localhost"][..]),
        ] {
            let out = fs::File::create(cluster.dir.path().join(format!("{name}.out")))
                .expect("a log file");
            let child = cluster
                .command(name)
                .args(args)
                .arg("-f")
                .arg(&conf_path)
                .stdin(Stdio::null())
                .stdout(out.try_clone().expect("a log file"))
                .stderr(out)
                .spawn()
                .map_err(|e| format!("cannot start {name}: {e}"))?;
            cluster.daemons.push((name, child));
        }
        // Up once the node is idle in its partition.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            for (name, child) in &mut cluster.daemons {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!(
                        "{name} exited at start ({status}):\n{}",
                        cluster_logs(cluster.dir.path())
                    ));
                }
            }
            let state = cluster.command("sinfo").args(["-h", "-o", "%T"]).output();
            if let Ok(state) = state
                && String::from_utf8_lossy(&state.stdout).trim() == "idle"
            {
                return Ok(cluster);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the node did not become idle within 60 s:\n{}",
                    cluster_logs(cluster.dir.path())
                ));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// `program` with this cluster's configuration and no Slurm variables
    /// of an enclosing job.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(find(program).unwrap_or_else(|| program.into()));
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("SLURM_") {
                command.env_remove(key);
            }
        }
        command.env("SLURM_CONF", &self.conf);
        command
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The jobs (array jobs once each) the controller still has.
    fn jobs(&self) -> Vec<String> {
        let Ok(out) = self.command("squeue").args(["-h", "-o", "%F"]).output() else {
            return Vec::new();
        };
        let mut ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        ids.dedup();
        ids
    }
}

/// The cluster's logs, for a message.
fn cluster_logs(dir: &Path) -> String {
    ["slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"]
        .iter()
        .map(|f| format!("--- {f}\n{}", tail(&read_lossy(&dir.join(f)), 20)))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let jobs = self.jobs();
            if jobs.is_empty() || Instant::now() > deadline {
                break;
            }
            let _ = self.command("scancel").args(&jobs).output();
            std::thread::sleep(Duration::from_secs(1));
        }
        // What the jobs started that outlived them (commands naming the
        // test's directory), then the daemons, the node first.
        let daemons: Vec<u32> = self.daemons.iter().map(|(_, c)| c.id()).collect();
        for pid in processes_using(self.dir.path()) {
            if pid != std::process::id() && !daemons.contains(&pid) {
                // SAFETY: sends a signal to a process the test's jobs started.
                unsafe { libc::kill(pid.cast_signed(), libc::SIGKILL) };
            }
        }
        for (name, child) in self.daemons.iter_mut().rev() {
            // SAFETY: asks the test's own child to stop.
            unsafe { libc::kill(child.id().cast_signed(), libc::SIGTERM) };
            let deadline = Instant::now() + Duration::from_secs(15);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(100));
            }
            if matches!(child.try_wait(), Ok(None)) {
                eprintln!("{name} did not stop on SIGTERM within 15 s: killing it");
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// The book's Slurm recipe, its paths those of this test: the
/// workspace, and `dir` for everything else; `--list-runs` of [`SETS`]
/// at the quick scale.
fn recipe(dir: &Path) -> String {
    let readme = read_lossy(&xtask::workspace_root().join("docs/benchmarks.md"));
    let start = readme
        .find("With a Slurm job array")
        .expect("the benchmarks chapter (docs/benchmarks.md) has a Slurm recipe");
    let block = &readme[start..];
    let block = &block[block.find("```sh\n").expect("its sh block") + 6..];
    let block = &block[..block.find("```").expect("its end")];
    let list = "cargo xtask bench --list-runs";
    assert_eq!(block.matches(list).count(), 1, "{block}");
    let workspace = xtask::workspace_root().to_string_lossy();
    // The recipe's task command is in single quotes: its paths cannot be.
    assert_eq!(
        shell_word(&workspace),
        workspace,
        "the workspace's path needs quoting, which the book's recipe does not do"
    );
    let shared = dir.to_str().expect("a UTF-8 temporary directory");
    assert_eq!(
        shell_word(shared),
        shared,
        "a temporary directory without quotes"
    );
    block
        .replace("/shared/scc", &workspace)
        .replace("/shared", shared)
        .replace(
            list,
            &format!("cargo xtask bench --quick {} --list-runs", SETS.join(" ")),
        )
}

/// The lines of `report` under its "Modelled SCC" headings: the modelled
/// tables, without the host times of its summary and of each run.
fn modelled_sections(report: &str) -> Vec<&str> {
    let mut keep = false;
    report
        .lines()
        .filter(|line| {
            if line.starts_with('#') {
                keep = line.starts_with("### Modelled SCC");
            } else if line.starts_with("Files:") || line.starts_with("Runs,") {
                keep = false;
            }
            keep
        })
        .collect()
}

/// A run's result without where, when and how fast it ran.
fn modelled_result(path: &Path) -> serde_json::Value {
    let mut value: serde_json::Value =
        serde_json::from_str(&read_lossy(path)).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let object = value.as_object_mut().expect("a result is an object");
    for host in ["info", "seconds", "load"] {
        assert!(object.remove(host).is_some(), "{path:?} has no {host}");
    }
    value
}

/// The names of the files directly in `dir`.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir:?}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| dir.join(n).is_file())
        .collect();
    names.sort();
    names
}

/// Checks that the tables, files and run results in `slurm` (collected)
/// and `local` (a suite run) hold the same modelled results.
fn assert_same_modelled_results(slurm: &Path, local: &Path) {
    let names = files(local);
    assert_eq!(files(slurm), names, "the files of {slurm:?} and {local:?}");
    for name in &names {
        let (a, b) = (slurm.join(name), local.join(name));
        if name == "report.md" {
            let (a, b) = (read_lossy(&a), read_lossy(&b));
            let modelled = modelled_sections(&b);
            assert!(modelled.len() > SETS.len(), "{b}");
            assert_eq!(
                modelled_sections(&a),
                modelled,
                "the modelled tables of report.md"
            );
        } else {
            // Tables, CSV files and plots, all of modelled time.
            let (a_text, b_text) = (read_lossy(&a), read_lossy(&b));
            if let Some((x, y)) = a_text.lines().zip(b_text.lines()).find(|(x, y)| x != y) {
                panic!("{a:?} and {b:?} differ:\n{x}\n{y}");
            }
            assert_eq!(a_text, b_text, "{a:?} and {b:?} differ");
        }
    }
    let runs = files(&local.join("runs"));
    assert_eq!(files(&slurm.join("runs")), runs);
    for run in &runs {
        assert_eq!(
            modelled_result(&slurm.join("runs").join(run)),
            modelled_result(&local.join("runs").join(run)),
            "the results of {run}"
        );
    }
}

/// Checks that the runs whose results are in `dir` ran one after the
/// other: each started (to the second, as its result records) no earlier
/// than the one before it had run for as long as it took.
fn assert_one_at_a_time(dir: &Path) {
    let mut runs: Vec<(String, String, u64, f64)> = files(&dir.join("runs"))
        .iter()
        .map(|run| {
            let result: serde_json::Value =
                serde_json::from_str(&read_lossy(&dir.join("runs").join(run))).unwrap();
            let started = result["info"]["date"].as_str().unwrap_or_default();
            let seconds = result["seconds"].as_f64().unwrap_or(f64::NAN);
            eprintln!("slurm: {run} started {started}, ran {seconds:.1} s");
            // "YYYY-MM-DD HH:MM:SS UTC": the day, and the second in it.
            let (day, time) = started.split_once(' ').unwrap_or_default();
            let second = time
                .get(..8)
                .unwrap_or_default()
                .split(':')
                .map(|f| {
                    f.parse::<u64>()
                        .unwrap_or_else(|_| panic!("{run}: {started}"))
                })
                .fold(0, |s, f| s * 60 + f);
            (run.clone(), day.to_owned(), second, seconds)
        })
        .collect();
    runs.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
    for pair in runs.windows(2) {
        let ((run, day, start, seconds), (next, next_day, next_start, _)) = (&pair[0], &pair[1]);
        if day == next_day {
            let end = *start + *seconds as u64;
            assert!(
                *next_start >= end,
                "{next} started while {run} ran: not one run at a time"
            );
        }
    }
}

/// Runs `command`, killing its process group after `timeout`; its status
/// and what it printed on both outputs, or why it did not end.
fn run_with_timeout(mut command: Command, log: &Path, timeout: Duration) -> Result<bool, String> {
    let out = fs::File::create(log).expect("a log file");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("a log file"))
        .stderr(out)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("waiting works") {
            return Ok(status.success());
        }
        if Instant::now() > deadline {
            // SAFETY: ends the process group the test made for `child`.
            unsafe { libc::kill(-child.id().cast_signed(), libc::SIGKILL) };
            let _ = child.wait();
            return Err(format!("still running after {} s", timeout.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_slurm_job_array_of_listed_runs_collects_the_local_suites_modelled_results() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return skip("installing and running Slurm's daemons needs root");
    }
    if let Some(daemon) = running_daemon() {
        return skip(&format!(
            "{daemon} already runs on this host; this test starts a Slurm cluster of its own \
             and leaves other ones alone"
        ));
    }
    let started = Instant::now();
    if let Err(why) = install_slurm() {
        return skip(&why);
    }
    let cluster = match Cluster::start() {
        Ok(cluster) => cluster,
        Err(why) => return skip(&format!("the test's Slurm daemons did not start: {why}")),
    };
    eprintln!(
        "slurm: single-node cluster up in {} ({:.1} s, installing included)",
        cluster.path().display(),
        started.elapsed().as_secs_f64()
    );

    // The recipe in the workspace, as typed there, with cargo on PATH for
    // the tasks (sbatch passes them this environment).
    let recipe = recipe(cluster.path());
    eprintln!("slurm: running\n{recipe}");
    let mut sh = xtask::build::nested("sh");
    sh.args(["-e", "-x", "-c", &recipe]);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SLURM_") {
            sh.env_remove(key);
        }
    }
    sh.env("SLURM_CONF", &cluster.conf);
    if let Some(cargo) = std::env::var_os("CARGO") {
        let bin = Path::new(&cargo).parent().expect("cargo's directory");
        let path = std::env::var_os("PATH").unwrap_or_default();
        let paths = std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&path));
        sh.env("PATH", std::env::join_paths(paths).expect("a PATH"));
    }
    let log = cluster.path().join("recipe.log");
    let array = Instant::now();
    let ran = run_with_timeout(sh, &log, RUN_TIMEOUT);
    let array_seconds = array.elapsed().as_secs_f64();
    if ran != Ok(true) {
        let mut tasks = String::new();
        let mut outs: Vec<PathBuf> = fs::read_dir(cluster.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".out"))
            .collect();
        outs.sort();
        for out in outs {
            tasks += &format!("--- {}\n{}\n", out.display(), tail(&read_lossy(&out), 30));
        }
        panic!(
            "the Slurm recipe of docs/benchmarks.md {}:\n{}\n{tasks}{}",
            match ran {
                Ok(_) => "failed".to_owned(),
                Err(e) => e,
            },
            read_lossy(&log),
            cluster_logs(cluster.path())
        );
    }
    let listed = read_lossy(&cluster.path().join("runs.txt"));
    eprintln!(
        "slurm: {} runs as a job array, collected, in {array_seconds:.1} s",
        listed.lines().count()
    );
    assert!(listed.lines().count() >= 4, "{listed}");
    assert!(cluster.jobs().is_empty(), "jobs left after sbatch --wait");
    assert_one_at_a_time(&cluster.path().join("bench"));

    // The same sets in one local suite run.
    let local = cluster.path().join("local");
    let suite = Instant::now();
    let mut bench = xtask::cargo();
    bench
        .args(["xtask", "bench", "--quick"])
        .args(SETS)
        .arg("--out")
        .arg(&local);
    let log = cluster.path().join("local.log");
    let ran = run_with_timeout(bench, &log, RUN_TIMEOUT);
    assert_eq!(ran, Ok(true), "the local suite run:\n{}", read_lossy(&log));
    eprintln!(
        "slurm: the same sets run locally in {:.1} s",
        suite.elapsed().as_secs_f64()
    );

    assert_same_modelled_results(&cluster.path().join("bench"), &local);

    let dir = cluster.path().to_path_buf();
    drop(cluster);
    assert!(!dir.exists(), "{dir:?} left behind");
    assert_eq!(running_daemon(), None, "a Slurm daemon left running");
    eprintln!("slurm: whole test {:.1} s", started.elapsed().as_secs_f64());
}
