// SPDX-License-Identifier: MIT OR Apache-2.0
//! Building the two things a run boots: the image (an app on the kernel
//! library: the built-in programs, or an app of the user's) and the plugin.

use std::env;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

/// The guest's target: the prebuilt 32-bit target builds a bare-metal P54C
/// kernel on the stable toolchain (see `.cargo/config.toml`).
/// The flags C code for the cores is compiled with, from the C runtime's
/// one list (`kernel/crt/cflags.rs`, which its build script includes too):
/// included, not taken from the crate, so that building xtask does not
/// build the C runtime.
pub mod cflags {
    include!("../../kernel/crt/cflags.rs");
}

pub const KERNEL_TARGET: &str = "i586-unknown-linux-gnu";

/// The app a run boots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum App {
    /// The built-in programs (`apps/programs`).
    #[default]
    Builtin,
    /// The app whose crate is in this directory.
    Dir(PathBuf),
    /// A C program: these source files, compiled and linked against
    /// `libmpi.a` (`rma/mpi`: MPI, the C runtime and the kernel).
    C(Vec<PathBuf>),
    /// An image already linked, as `cargo xtask mpicc` links one: booted
    /// as it is.
    Image(PathBuf),
}

/// The package of the built-in programs, and the name of its image.
pub const BUILTIN: &str = "programs";

/// What [`build`] produced.
#[derive(Debug, Clone)]
pub struct Artifacts {
    /// The image (the app's ELF, the kernel linked in), for QEMU's `-kernel`.
    pub kernel: PathBuf,
    /// The plugin shared object, for QEMU's `-plugin`.
    pub plugin: PathBuf,
}

/// The workspace this xtask belongs to.
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
}

/// The workspace's target directory, where nested builds put their output.
pub fn target_dir() -> PathBuf {
    workspace_root().join("target")
}

/// A `cargo` command that runs in the workspace root with the environment
/// of the cargo that started this xtask removed.
///
/// The outer cargo exports `CARGO_*` and `RUST*` variables (target
/// directory, flags, the package being built) that would leak into a nested
/// build and change what it builds or where: `RUSTFLAGS`, say, would replace
/// the kernel's flags from `.cargo/config.toml`. What describes the
/// installation is kept: `CARGO_HOME` and every `RUSTUP_*` variable. Above
/// all `RUSTUP_TOOLCHAIN`: rustc runs in each dependency's source directory,
/// outside this workspace, where `rust-toolchain.toml` cannot be found, so
/// without it the nested build would use the default toolchain, which may
/// lack the guest target.
pub fn cargo() -> Command {
    nested(env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

/// `program` (found on `PATH` unless a path) run as [`cargo`] runs: in the
/// workspace root, with the same environment, so that a rustup proxy such
/// as `rustc` or `rustup` picks the toolchain the nested cargo uses.
pub fn nested(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    command.current_dir(workspace_root());
    for (key, _) in env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let installation = key == "CARGO_HOME" || key.starts_with("RUSTUP_");
        if (key.starts_with("CARGO") || key.starts_with("RUST")) && !installation {
            command.env_remove(key);
        }
    }
    command
}

/// Runs `command`, failing with `what` if it does not succeed.
pub(crate) fn run_command(mut command: Command, what: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("{what}: could not start {:?}", command.get_program()))?;
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

/// Whether `libdir`, a target's library directory (`rustc --print
/// target-libdir`), holds the target's standard library: its core crate,
/// `libcore-<hash>.rlib`, which every crate for the target needs.
pub fn has_core(libdir: &Path) -> bool {
    fs::read_dir(libdir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let name = entry.file_name();
            let name = name.as_bytes();
            name.starts_with(b"libcore-")
                && name.ends_with(b".rlib")
                && entry.file_type().is_ok_and(|t| !t.is_dir())
        })
    })
}

/// The rustup command that installs a target's standard library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddTarget {
    /// rustup's arguments; it runs in the workspace root, as [`cargo`] does.
    pub args: Vec<String>,
    /// The command as a user would type it.
    pub shown: String,
}

/// What installs `target`'s standard library when `libdir`, its library
/// directory, lacks it ([`has_core`]); `None` when it is there. The
/// command is for `toolchain` (the value of `RUSTUP_TOOLCHAIN`, which the
/// nested cargo keeps) if there is one, and otherwise for the toolchain
/// `rust-toolchain.toml` picks in the workspace root, where it runs.
pub fn add_target(target: &str, libdir: &Path, toolchain: Option<&str>) -> Option<AddTarget> {
    if has_core(libdir) {
        return None;
    }
    let mut args: Vec<String> = ["target", "add", target].map(String::from).into();
    let shown = match toolchain {
        Some(toolchain) => {
            args.extend(["--toolchain".to_owned(), toolchain.to_owned()]);
            format!("rustup {}", args.join(" "))
        }
        None => format!(
            "cd {} && rustup {}",
            workspace_root().display(),
            args.join(" ")
        ),
    };
    Some(AddTarget { args, shown })
}

/// The library directory of `target` in the toolchain the nested cargo
/// uses, as its rustc says.
fn target_libdir(target: &str) -> Result<PathBuf> {
    let mut rustc = nested("rustc");
    rustc.args(["--print", "target-libdir", "--target", target]);
    let shown = format!("rustc --print target-libdir --target {target}");
    let output = rustc.output().with_context(|| {
        format!("could not run `{shown}` to find the {target} standard library")
    })?;
    ensure!(
        output.status.success(),
        "`{shown}` failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr).trim()
    );
    Ok(PathBuf::from(OsStr::from_bytes(output.stdout.trim_ascii())))
}

/// Makes sure the toolchain the nested cargo uses has `target`'s standard
/// library, which rustup installs with the toolchain only when it installs
/// the toolchain itself from `rust-toolchain.toml`. If it is missing,
/// `rustup target add` adds it, printing the command first; without
/// rustup, or if that fails, the error gives the command.
pub fn ensure_target(target: &str) -> Result<()> {
    let libdir = target_libdir(target)?;
    let toolchain = env::var("RUSTUP_TOOLCHAIN").ok().filter(|t| !t.is_empty());
    let Some(add) = add_target(target, &libdir, toolchain.as_deref()) else {
        return Ok(());
    };
    let missing = format!(
        "the toolchain has no standard library for {target} (no libcore-*.rlib in {})",
        libdir.display()
    );
    eprintln!("{missing}: installing it with: {}", add.shown);
    let mut rustup = nested("rustup");
    rustup.args(&add.args);
    let status = match rustup.status() {
        Ok(status) => status,
        Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
            "{missing}, and rustup is not on PATH to install it.\n\
             Install the target for this toolchain, with rustup:\n  {}",
            add.shown
        ),
        Err(e) => bail!(
            "{missing}, and rustup could not be started ({e}).\n\
             Install the target with:\n  {}",
            add.shown
        ),
    };
    ensure!(
        status.success(),
        "{missing}, and installing it failed ({status}).\nInstall it with:\n  {}",
        add.shown
    );
    ensure!(
        has_core(&libdir),
        "`{}` succeeded, but {} still has no libcore-*.rlib",
        add.shown,
        libdir.display()
    );
    Ok(())
}

/// Builds the built-in programs' image for the guest target and the
/// plugin for the host ([`build_app`] of [`App::Builtin`]).
pub fn build(quiet: bool) -> Result<Artifacts> {
    build_app(&App::Builtin, quiet)
}

/// Builds `app`'s image for the guest target and the plugin for the host,
/// both in release mode (a debug kernel boots 48 cores far slower),
/// installing the guest target's standard library first if the toolchain
/// lacks it ([`ensure_target`]). With `quiet`, cargo prints only errors.
pub fn build_app(app: &App, quiet: bool) -> Result<Artifacts> {
    if !matches!(app, App::Image(_)) {
        ensure_target(KERNEL_TARGET)
            .with_context(|| format!("the kernel is built for {KERNEL_TARGET}"))?;
    }
    let kernel = match app {
        App::Builtin => {
            let mut image = cargo();
            image.args([
                "build",
                "-p",
                BUILTIN,
                "--release",
                "--target",
                KERNEL_TARGET,
            ]);
            image.args(quiet.then_some("--quiet"));
            run_command(image, "building the kernel and the built-in programs")?;
            target_dir()
                .join(KERNEL_TARGET)
                .join("release")
                .join(BUILTIN)
        }
        App::Dir(dir) => build_dir(dir, quiet)?,
        App::C(files) => {
            build_libmpi(quiet)?;
            build_c(files)?
        }
        App::Image(image) => {
            ensure!(
                image.is_file(),
                "{}: no such image (`cargo xtask mpicc ... -o FILE` links one)",
                image.display()
            );
            image.clone()
        }
    };
    let quiet = quiet.then_some("--quiet");
    let mut plugin = cargo();
    plugin.args(["build", "-p", "emu-plugin", "--release"]);
    plugin.args(quiet);
    run_command(plugin, "building the plugin")?;

    let target = target_dir();
    let artifacts = Artifacts {
        kernel,
        plugin: target.join("release/libemu_plugin.so"),
    };
    for path in [&artifacts.kernel, &artifacts.plugin] {
        ensure!(
            path.is_file(),
            "the build did not produce {}",
            path.display()
        );
    }
    Ok(artifacts)
}

/// The flags C programs are compiled with for the guest, beside the C
/// runtime's own ([`cflags::TARGET_CFLAGS`], [`cflags::FREESTANDING_CFLAGS`]):
/// C11, optimised, with debug information and warnings.
pub const PROGRAM_CFLAGS: &[&str] = &["-std=c11", "-O2", "-g", "-Wall"];

/// Builds `libmpi.a` (MPI, the C runtime and the kernel) for the guest
/// and returns its path.
pub fn build_libmpi(quiet: bool) -> Result<PathBuf> {
    build_library("mpi", "MPI, the C runtime and the kernel", quiet)
}

/// Builds `libshmem.a` (OpenSHMEM over dsm, the C runtime and the
/// kernel) for the guest and returns its path.
pub fn build_libshmem(quiet: bool) -> Result<PathBuf> {
    build_library("shmem", "OpenSHMEM, the C runtime and the kernel", quiet)
}

/// Builds the static library of `package` for the guest, installing the
/// guest target's standard library first if the toolchain lacks it
/// ([`ensure_target`]), and returns the path of `lib<package>.a`.
fn build_library(package: &str, holds: &str, quiet: bool) -> Result<PathBuf> {
    ensure_target(KERNEL_TARGET)
        .with_context(|| format!("lib{package}.a is built for {KERNEL_TARGET}"))?;
    let mut library = cargo();
    library.args([
        "build",
        "-p",
        package,
        "--release",
        "--target",
        KERNEL_TARGET,
    ]);
    library.args(quiet.then_some("--quiet"));
    run_command(library, &format!("building lib{package}.a ({holds})"))?;
    Ok(target_dir()
        .join(KERNEL_TARGET)
        .join(format!("release/lib{package}.a")))
}

/// The gcc command that compiles C for the cores: [`cflags::TARGET_CFLAGS`],
/// [`cflags::FREESTANDING_CFLAGS`], [`PROGRAM_CFLAGS`], then `extra` (a
/// user's flags: gcc takes the last `-O` and `-std`, so theirs win over
/// the defaults), then the include directories of the C runtime, of
/// `mpi.h` and of `shmem.h`. The caller adds `-c`, the source and `-o`.
pub fn compile_command(extra: &[String]) -> Command {
    let root = workspace_root();
    let mut compile = Command::new("gcc");
    compile
        .args(cflags::TARGET_CFLAGS)
        .args(cflags::FREESTANDING_CFLAGS)
        .args(PROGRAM_CFLAGS)
        .args(extra);
    compile.arg("-I").arg(root.join("kernel/crt/include"));
    compile.arg("-I").arg(root.join("rma/mpi/include"));
    compile.arg("-I").arg(root.join("rma/shmem/include"));
    compile
}

/// The gcc command that links `inputs` (objects and archives, in order)
/// with `library` (`libmpi.a`, [`build_libmpi`], or `libshmem.a`) and the
/// kernel's linker script into the image `out`; with `libshmem.a`, also
/// `rma/shmem/symmetric.ld`, which gathers the program's variables in a
/// section `shmem_init` makes symmetric.
pub fn link_command(inputs: &[PathBuf], library: &Path, out: &Path) -> Command {
    let mut link = Command::new("gcc");
    link.args(["-m32", "-nostdlib", "-static", "-no-pie"]);
    link.args([
        "-Wl,--build-id=none",
        "-Wl,--gc-sections",
        "-Wl,-z,noexecstack",
    ]);
    if library.file_name().is_some_and(|name| name == "libshmem.a") {
        // The program's variables in pages of their own, which shmem_init
        // makes symmetric (a script of INSERT, given before the one it
        // adds to).
        link.arg("-T")
            .arg(workspace_root().join("rma/shmem/symmetric.ld"));
    }
    link.arg("-T").arg(workspace_root().join("linker.ld"));
    link.args(inputs).arg(library);
    link.arg("-o").arg(out);
    link
}

/// Compiles the C sources `files` with the system's gcc and links them
/// against `libmpi.a` with the kernel's linker script; returns the image.
/// Each set of files gets a directory of its own under the target
/// directory (named after the first file and a hash of all their paths),
/// so runs of different programs do not meet.
fn build_c(files: &[PathBuf]) -> Result<PathBuf> {
    ensure!(!files.is_empty(), "--c: no C source file given");
    let mut sources = Vec::new();
    for file in files {
        ensure!(
            file.extension().is_some_and(|e| e == "c"),
            "--c {}: not a C source file (FILE.c)",
            file.display()
        );
        sources.push(
            fs::canonicalize(file)
                .with_context(|| format!("--c {}: no such file", file.display()))?,
        );
    }
    let stem = sources[0]
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("program")
        .to_owned();
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&sources, &mut hasher);
    let dir = target_dir().join("c-programs").join(format!(
        "{stem}-{:016x}",
        std::hash::Hasher::finish(&hasher)
    ));
    fs::create_dir_all(&dir).with_context(|| format!("cannot make {}", dir.display()))?;
    // Runs of the same files at once (two terminals, parallel tests) build
    // one at a time, and the image appears whole (a rename), never half
    // written under a run that reads it.
    let lock = fs::File::create(dir.join(".lock"))
        .and_then(|f| f.lock().map(|()| f))
        .with_context(|| format!("cannot lock {}", dir.display()))?;
    let mut objects = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let object = dir.join(format!("{i}.o"));
        let mut compile = compile_command(&[]);
        compile.current_dir(&dir);
        compile.arg("-c").arg(source).arg("-o").arg(&object);
        run_tool(compile, &format!("compiling {}", source.display()))?;
        objects.push(object);
    }
    let image = dir.join(&stem);
    let linked = dir.join(format!(".{stem}.linking"));
    let library = target_dir().join(KERNEL_TARGET).join("release/libmpi.a");
    let mut link = link_command(&objects, &library, &linked);
    link.current_dir(&dir);
    run_tool(link, &format!("linking {}", image.display()))?;
    fs::rename(&linked, &image)
        .with_context(|| format!("cannot move the image to {}", image.display()))?;
    drop(lock);
    Ok(image)
}

/// Runs a compiler or linker; its messages go to the terminal.
pub fn run_tool(mut command: Command, what: &str) -> Result<()> {
    let status = match command.status() {
        Ok(status) => status,
        Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
            "{what}: gcc is not installed (C programs are built with the system's gcc and its \
             32-bit support: on Debian or Ubuntu, apt-get install gcc-multilib)"
        ),
        Err(e) => bail!("{what}: could not start {command:?}: {e}"),
    };
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

/// One line of cargo's JSON output: the parts that name a built executable.
#[derive(Debug, serde::Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    executable: Option<PathBuf>,
}

/// Builds the app whose crate is in `dir` and returns its image. Its
/// output goes under the workspace's target directory. An app outside the
/// workspace gets the workspace's guest-target flags (the linker script
/// among them) with `--config`; one inside finds them itself.
fn build_dir(dir: &Path, quiet: bool) -> Result<PathBuf> {
    let dir = fs::canonicalize(dir)
        .with_context(|| format!("--app {}: no such directory", dir.display()))?;
    let manifest = dir.join("Cargo.toml");
    ensure!(
        manifest.is_file(),
        "--app {}: no Cargo.toml there (`cargo xtask new NAME` makes an app)",
        dir.display()
    );
    let mut image = cargo();
    image.current_dir(&dir);
    image.arg("build");
    image.arg("--manifest-path").arg(&manifest);
    image.args(["--release", "--target", KERNEL_TARGET]);
    image.args(["--message-format", "json-render-diagnostics"]);
    image.arg("--target-dir").arg(target_dir().join("apps"));
    if !dir.starts_with(workspace_root()) {
        image
            .arg("--config")
            .arg(workspace_root().join(".cargo/config.toml"));
    }
    if quiet {
        image.arg("--quiet");
    }
    image.stderr(std::process::Stdio::inherit());
    let what = format!("building the app in {}", dir.display());
    let output = image
        .output()
        .with_context(|| format!("{what}: could not start cargo"))?;
    ensure!(output.status.success(), "{what} failed ({})", output.status);
    let mut images = Vec::new();
    for line in output.stdout.split(|&b| b == b'\n') {
        if let Ok(Message {
            reason,
            executable: Some(path),
        }) = serde_json::from_slice(line)
            && reason == "compiler-artifact"
        {
            images.push(path);
        }
    }
    match images.as_slice() {
        [image] => Ok(image.clone()),
        [] => bail!("{what}: it built no binary (an app is a binary crate)"),
        _ => bail!(
            "{what}: it built {} binaries ({}); an app has one",
            images.len(),
            images
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"));
    }

    #[test]
    fn nested_cargo_does_not_inherit_the_outer_build() {
        // Cargo runs this test with CARGO_MANIFEST_DIR, CARGO_PKG_NAME, ... set.
        assert!(env::var_os("CARGO_PKG_NAME").is_some());
        let command = cargo();
        let removed: Vec<_> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(key, _)| key.to_str().unwrap().to_owned())
            .collect();
        assert!(removed.iter().any(|k| k == "CARGO_PKG_NAME"), "{removed:?}");
        assert!(removed.iter().any(|k| k == "CARGO_MANIFEST_DIR"));
        assert!(
            !removed
                .iter()
                .any(|k| k == "CARGO_HOME" || k.starts_with("RUSTUP_"))
        );
        assert!(
            removed
                .iter()
                .all(|k| k.starts_with("CARGO") || k.starts_with("RUST"))
        );
        assert_eq!(command.get_current_dir(), Some(workspace_root()));
        // rustc and rustup run the same way, so they see the same toolchain.
        let rustc = nested("rustc");
        assert_eq!(rustc.get_program(), "rustc");
        assert_eq!(rustc.get_current_dir(), Some(workspace_root()));
        let envs = |c: &Command| {
            c.get_envs()
                .map(|(k, v)| (k.to_owned(), v.map(OsStr::to_owned)))
                .collect::<Vec<_>>()
        };
        assert_eq!(envs(&rustc), envs(&command));
    }

    const TARGET: &str = "i586-unknown-linux-gnu";
    const TOOLCHAIN: &str = "1.95.0-x86_64-unknown-linux-gnu";

    #[test]
    fn a_target_without_its_core_library_is_added_with_rustup() {
        let libdir = tempfile::tempdir().unwrap();
        let add = AddTarget {
            args: ["target", "add", TARGET, "--toolchain", TOOLCHAIN]
                .map(String::from)
                .into(),
            shown: format!("rustup target add {TARGET} --toolchain {TOOLCHAIN}"),
        };
        let missing = libdir.path().join("missing");
        assert_eq!(
            add_target(TARGET, &missing, Some(TOOLCHAIN)),
            Some(add.clone())
        );
        assert_eq!(
            add_target(TARGET, libdir.path(), Some(TOOLCHAIN)),
            Some(add.clone())
        );
        // Other crates, metadata only or a directory of that name are not it.
        for name in [
            "libstd-0a1b2c.rlib",
            "libcore-0a1b2c.rmeta",
            "libcore.rlib.d",
        ] {
            fs::write(libdir.path().join(name), "").unwrap();
        }
        fs::create_dir(libdir.path().join("libcore-dir.rlib")).unwrap();
        assert_eq!(
            add_target(TARGET, libdir.path(), Some(TOOLCHAIN)),
            Some(add)
        );
        fs::write(libdir.path().join("libcore-0a1b2c3d4e5f.rlib"), "").unwrap();
        assert!(has_core(libdir.path()));
        assert_eq!(add_target(TARGET, libdir.path(), Some(TOOLCHAIN)), None);
        assert_eq!(add_target(TARGET, libdir.path(), None), None);
    }

    #[test]
    fn without_a_toolchain_name_rustup_runs_in_the_workspace() {
        let libdir = tempfile::tempdir().unwrap();
        let add = add_target(TARGET, libdir.path(), None).unwrap();
        assert_eq!(add.args, ["target", "add", TARGET]);
        assert_eq!(
            add.shown,
            format!(
                "cd {} && rustup target add {TARGET}",
                workspace_root().display()
            )
        );
    }

    #[test]
    fn rustc_names_the_target_library_directory() {
        // Whether the target is installed or not, rustc names its directory.
        let libdir = target_libdir(KERNEL_TARGET).unwrap();
        assert!(
            libdir.ends_with(format!("lib/rustlib/{KERNEL_TARGET}/lib")),
            "{}",
            libdir.display()
        );
        let e = target_libdir("no-such-target").unwrap_err().to_string();
        assert!(
            e.starts_with("`rustc --print target-libdir --target no-such-target` failed"),
            "{e}"
        );
    }
}
