// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runs that never lose a result: live runs keep their memory whatever
//! else shares the machine, a hung core is named, odd paths work, a run
//! that cannot have room says so before it boots, and no input panics.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use system_tests::{Outcome, RunConfig, boot_with, processes_using, transcript, xtask_binary};

/// The run directories (`scc-chip-*`) in `parent`.
fn run_dirs(parent: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(parent)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("scc-chip-"))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `unshare --pid --fork --mount-proc` works here (root, or user
/// namespaces allowed, and util-linux installed).
fn unshare_works() -> bool {
    Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A run in another PID namespace sharing the run directories' parent
/// sweeps the directories of killed runs, never the directory of a live
/// run it cannot see: liveness is the directory's lock, not a process id
/// in `/proc`.
#[test]
fn a_run_in_another_pid_namespace_keeps_off_a_live_runs_memory() {
    if !unshare_works() {
        eprintln!("skipped: `unshare --pid --fork --mount-proc` is not available here");
        return;
    }
    let parent = tempfile::tempdir().unwrap();

    // The victim hangs until its timeout, so it is alive for certain
    // while the other run sweeps; at the timeout every core is stopped
    // with SIGTERM and writes its report.
    let victim = RunConfig {
        stats: true,
        timeout: Duration::from_secs(25),
        run_dir: Some(parent.path().to_owned()),
        ..RunConfig::new(2, "hang")
    };
    let started = Instant::now();
    let victim = thread::spawn(move || boot_with(&victim));
    let deadline = Instant::now() + Duration::from_secs(20);
    while run_dirs(parent.path()).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the victim's directory never appeared"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let live = run_dirs(parent.path());
    // Left by a run killed with SIGKILL: nobody holds its lock.
    let dead = parent.path().join("scc-chip-killed");
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(dead.join("chip.mem"), b"left behind").unwrap();

    let other = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc"])
        .arg(xtask_binary())
        .args(["run", "--cores", "1", "--program", "identity", "--run-dir"])
        .arg(parent.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&other.stdout);
    assert!(
        other.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&other.stderr)
    );
    assert!(
        said.contains("removed the chip memory left by 1 killed run(s)"),
        "{said}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "the other run ended after the victim's timeout: the test proves nothing"
    );
    assert!(!dead.exists(), "the killed run's directory is still there");
    assert_eq!(live.len(), 1);
    assert!(
        live[0].join("chip.mem").exists(),
        "the live run lost its memory"
    );

    let report = victim.join().unwrap();
    let all = transcript(&report);
    assert!(matches!(report.outcome, Outcome::TimedOut { .. }), "{all}");
    assert_eq!(report.missing_reports(), Vec::<u32>::new(), "{all}");
    assert!(!live[0].exists());
}

/// One core that loops forever holds back the others, which wait for it
/// at a barrier: the timeout report names it, its clock and where it was.
#[test]
fn a_looping_core_is_named_as_the_one_the_others_wait_for() {
    let config = RunConfig {
        timeout: Duration::from_secs(8),
        ..RunConfig::new(4, "hang")
    };
    let report = boot_with(&config);
    let all = transcript(&report);
    assert_eq!(
        report.outcome,
        Outcome::TimedOut {
            unfinished: vec![0, 1, 2, 3]
        },
        "{all}"
    );
    let stall = report.stall.as_ref().expect("a stall with modelled time");
    let holders: Vec<u32> = stall.holding.iter().map(|h| h.core).collect();
    assert_eq!(holders, [3], "{all}");
    assert_eq!(stall.waiting, [0, 1, 2], "{all}");
    assert_ne!(stall.holding[0].pc, 0, "{all}");
    let text = report.to_string();
    assert!(text.contains("core 3 holds the others back"), "{text}");
    assert!(text.contains("core(s) 0, 1, 2 wait for it"), "{text}");
    // Under it, where its EIP is: in the program's loop.
    let place: Vec<&str> = text
        .lines()
        .skip_while(|line| !line.starts_with("core 3 holds the others back"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .collect();
    assert!(
        place.first().is_some_and(|line| line.starts_with("  at ")),
        "{text}"
    );
    assert!(
        place
            .iter()
            .any(|line| line.contains("programs::hang::run (apps/programs/src/hang.rs:")),
        "{text}"
    );
}

/// A run boots and reads symbols from its own copy of the image: an image
/// rebuilt (here: overwritten) while it runs changes neither.
#[test]
fn a_run_reads_its_own_copy_of_the_image_whatever_is_rebuilt_meanwhile() {
    let built = xtask::build(false).expect("the image builds");
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("programs");
    std::fs::copy(&built.kernel, &image).unwrap();
    let artifacts = xtask::Artifacts {
        kernel: image.clone(),
        plugin: built.plugin,
    };
    let qemu = xtask::qemu::ensure().expect("QEMU");
    let config = RunConfig {
        timeout: Duration::from_secs(8),
        ..RunConfig::new(4, "hang")
    };
    let run = thread::spawn(move || xtask::boot(&config, &artifacts, &qemu));
    thread::sleep(Duration::from_secs(4));
    std::fs::write(&image, b"rebuilt: no longer the image that booted").unwrap();
    let report = run.join().unwrap().expect("the run boots");
    let text = report.to_string();
    assert!(
        matches!(report.outcome, Outcome::TimedOut { .. }),
        "{}",
        transcript(&report)
    );
    assert!(
        text.contains("programs::hang::run (apps/programs/src/hang.rs:"),
        "{text}"
    );
}

/// A QEMU stopped with SIGSTOP stalls the others at the quantum: the
/// timeout report names it as the core whose clock stopped.
#[test]
fn a_stopped_core_is_named_as_the_one_holding_the_others_back() {
    let parent = tempfile::tempdir().unwrap();
    let config = RunConfig {
        timeout: Duration::from_secs(12),
        run_dir: Some(parent.path().to_owned()),
        ..RunConfig::new(4, "bench-private")
    };
    let run = thread::spawn(move || boot_with(&config));
    // Core 1's QEMU: its plugin options name the run directory and core=1.
    let deadline = Instant::now() + Duration::from_secs(30);
    let pid = loop {
        assert!(Instant::now() < deadline, "core 1's QEMU never started");
        let found = run_dirs(parent.path()).first().and_then(|dir| {
            processes_using(dir).into_iter().find(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                    let c = String::from_utf8_lossy(&c);
                    c.contains(",core=1,") && c.contains("qemu")
                })
            })
        });
        if let Some(pid) = found {
            break pid;
        }
        thread::sleep(Duration::from_millis(20));
    };
    // Let it boot and start its work, then stop it: a few seconds, as a
    // loaded host (other tests' QEMUs beside) can take more than one to
    // bring it into the image, whose address the report is to name.
    thread::sleep(Duration::from_secs(3));
    // SAFETY: kill only sends a signal to a QEMU of this test's run.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGSTOP) }, 0);
    let report = run.join().unwrap();
    let all = transcript(&report);
    assert!(matches!(report.outcome, Outcome::TimedOut { .. }), "{all}");
    let stall = report.stall.as_ref().expect("a stall with modelled time");
    let holders: Vec<u32> = stall.holding.iter().map(|h| h.core).collect();
    assert_eq!(holders, [1], "{all}");
    assert!(
        stall.holding[0].still_for >= Duration::from_secs(5),
        "{all}"
    );
    let text = report.to_string();
    assert!(text.contains("core 1 holds the others back"), "{text}");
    // Its EIP at its last sync point is in the image: the report says where.
    let under = text
        .lines()
        .skip_while(|line| !line.starts_with("core 1 holds the others back"))
        .nth(1);
    assert!(
        under.is_some_and(|line| line.starts_with("  at ")),
        "{text}"
    );
}

/// The checkout and the run directory may have spaces, commas and `=` in
/// their paths: QEMU's option strings and the kernel's command line carry
/// them whole.
#[test]
fn paths_with_spaces_commas_and_equals_signs_work() {
    let built = xtask::build(true).unwrap();
    let odd = tempfile::tempdir().unwrap();
    let checkout = odd.path().join("a clone, with=odd chars");
    std::fs::create_dir(&checkout).unwrap();
    let artifacts = xtask::Artifacts {
        kernel: checkout.join("kernel image=1,2"),
        plugin: checkout.join("lib emu,plugin=x.so"),
    };
    std::fs::copy(&built.kernel, &artifacts.kernel).unwrap();
    std::fs::copy(&built.plugin, &artifacts.plugin).unwrap();
    let run_parent = odd.path().join("run dir,x=y");
    std::fs::create_dir(&run_parent).unwrap();
    let qemu = xtask::qemu::ensure().unwrap();
    let config = RunConfig {
        mode: system_tests::CHECKED,
        run_dir: Some(run_parent.clone()),
        ..RunConfig::new(4, "ring")
    };
    let report = xtask::boot(&config, &artifacts, &qemu).unwrap();
    assert!(report.success(), "{}", transcript(&report));
    assert_eq!(report.missing_reports(), Vec::<u32>::new());
    assert!(report.chip_memory.starts_with(&run_parent));
    assert!(run_dirs(&run_parent).is_empty());
}

/// A run directory on a file system too small for the run (Docker's
/// default /dev/shm is 64 MiB) is refused before anything boots, with
/// how much is needed and how to get it.
#[test]
fn a_run_directory_without_room_is_refused_before_booting() {
    let mount = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64m", "tmpfs"])
        .arg(mount.path())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a small tmpfs here (not root?)");
        return;
    }
    let config = RunConfig {
        run_dir: Some(mount.path().to_owned()),
        ..RunConfig::new(48, "identity")
    };
    let outcome = xtask::run(&config);
    let _ = Command::new("umount").arg(mount.path()).status();
    let message = format!("{:#}", outcome.expect_err("48 cores do not fit in 64 MiB"));
    let need = xtask::room_needed(48, config.mode, config.memory_mib).div_ceil(1 << 20);
    assert!(
        message.starts_with(&format!(
            "not enough room for the chip memory: this run may need {need} MiB, but {} has 64 MiB free",
            mount.path().display()
        )),
        "{message}"
    );
    assert!(
        message.ends_with("Point --run-dir at a file system with room"),
        "{message}"
    );
}

/// A timeout as long as a u64 of seconds means no timeout, not a panic.
#[test]
fn the_longest_timeout_is_no_timeout() {
    let config = RunConfig {
        timeout: Duration::from_secs(u64::MAX),
        ..RunConfig::new(2, "identity")
    };
    let report = boot_with(&config);
    assert!(report.success(), "{}", transcript(&report));
}

/// A setting that counts cores is checked against the run's cores before
/// anything boots, with the kernel's own check behind it.
#[test]
fn a_core_count_setting_beyond_the_runs_cores_is_refused_before_boot() {
    let config = RunConfig {
        params: vec![("procs".to_owned(), "5".to_owned())],
        ..RunConfig::new(2, "stencil")
    };
    let error = xtask::run(&config).expect_err("5 processes on 2 cores");
    assert_eq!(
        error.to_string(),
        "program `stencil`: procs=5: the run has only 2 core(s); boot at least 5 or ask for fewer"
    );
}
