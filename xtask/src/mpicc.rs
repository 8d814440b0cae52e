// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo xtask mpicc`: a gcc-like compiler driver for C programs over
//! MPI on the cores, for Makefiles. It compiles with the flags `--c`
//! compiles with ([`crate::build::compile_command`]) and links the same
//! image ([`crate::build::link_command`]); `cargo xtask mpiexec` boots it.
//! [`write_scripts`] makes `mpicc` and `mpiexec` commands of them.
//! `cargo xtask oshcc` is the same driver for OpenSHMEM programs
//! ([`Library::Shmem`]): it links `libshmem.a` instead of `libmpi.a`.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};

use crate::build;

/// What the command line asks of mpicc.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mpicc {
    /// `-c`: compile each source to an object, do not link.
    pub compile_only: bool,
    /// `-o FILE`.
    pub output: Option<PathBuf>,
    /// Flags passed to every compilation, in order.
    pub cflags: Vec<String>,
    /// The files, in order: sources, objects and archives.
    pub inputs: Vec<PathBuf>,
    /// `-L DIR`, where `-l NAME` looks for `libNAME.a`.
    pub lib_dirs: Vec<PathBuf>,
    /// `-l NAME`, in order.
    pub libs: Vec<String>,
    /// The library the image is linked with.
    pub library: Library,
}

/// The library a C program is linked with: both hold the kernel and the
/// C runtime, and one programming model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Library {
    /// `libmpi.a` (`rma/mpi`), for `mpi.h`.
    #[default]
    Mpi,
    /// `libshmem.a` (`rma/shmem`), for `shmem.h`.
    Shmem,
}

impl Library {
    /// Builds the library for the guest; its path.
    pub fn build(self, quiet: bool) -> Result<PathBuf> {
        match self {
            Library::Mpi => build::build_libmpi(quiet),
            Library::Shmem => build::build_libshmem(quiet),
        }
    }
}

/// The libraries `libmpi.a` and `libshmem.a` already hold (`sma` is
/// OpenSHMEM's usual library name): `-l` of these does nothing.
pub const BUILTIN_LIBS: &[&str] = &["mpi", "c", "m", "sma"];

/// Why a flag is refused, for flags gcc knows that make no sense for the
/// cores.
fn refusal(flag: &str) -> Option<&'static str> {
    let reason = match flag {
        "-shared" | "-fpic" | "-fPIC" | "-fpie" | "-fPIE" | "-pie" | "-rdynamic" => {
            "the image is one static executable at fixed addresses"
        }
        "-m64" | "-mx32" => "the cores are 32-bit Pentiums (P54C); code is built with -m32",
        "-pthread" | "-fopenmp" => "a core runs one thread: parallelism is MPI ranks",
        "-E" | "-S" | "-M" | "-MM" => "mpicc compiles (-c) and links only",
        "-Xlinker" => "the link is fixed: the kernel's linker script and libmpi.a",
        "-x" => "mpicc compiles C sources (.c) only",
        "-nostdinc" | "-nostdlib" | "-nodefaultlibs" | "-nostartfiles" => {
            "the C runtime's headers and libmpi.a are always used"
        }
        _ if flag.starts_with("-Wl,") => {
            "the link is fixed: the kernel's linker script and libmpi.a"
        }
        _ if flag.starts_with("-Wa,") || flag.starts_with("-Wp,") => {
            "options for the assembler or preprocessor alone are not passed on"
        }
        _ if flag.starts_with("-fstack-protector") => {
            "the cores' C runtime has no stack protector; a guard page below the stack \
             catches overflows"
        }
        _ if flag.starts_with("-fsanitize") => "the cores have no sanitizer runtime",
        _ if flag.starts_with("-march=") || flag.starts_with("-mtune=") => {
            "the target is fixed: -m32 -march=pentium"
        }
        _ => return None,
    };
    Some(reason)
}

/// Whether `flag` is an optimisation level gcc takes: `-O`, `-O0` to
/// `-O3`, `-Os`, `-Og`, `-Oz`, `-Ofast`.
fn is_optimisation(flag: &str) -> bool {
    matches!(
        flag,
        "-O" | "-O0" | "-O1" | "-O2" | "-O3" | "-Os" | "-Og" | "-Oz" | "-Ofast"
    )
}

/// Parses oshcc's command line (without the command's name): mpicc's,
/// linking `libshmem.a`; errors name oshcc ([`as_oshcc`]).
pub fn parse_oshcc(args: &[String]) -> Result<Mpicc> {
    let mut oshcc = parse(args).map_err(as_oshcc)?;
    oshcc.library = Library::Shmem;
    Ok(oshcc)
}

/// An error of the driver as oshcc reports it: naming oshcc, not mpicc.
pub fn as_oshcc(e: anyhow::Error) -> anyhow::Error {
    anyhow::anyhow!("{}", format!("{e:#}").replace("mpicc: ", "oshcc: "))
}

/// Parses mpicc's command line (without the command's name).
pub fn parse(args: &[String]) -> Result<Mpicc> {
    let mut mpicc = Mpicc::default();
    let mut args = args.iter();
    // The value of `flag`: the rest of the word, or the next word.
    fn value<'a>(
        flag: &str,
        rest: &'a str,
        args: &mut std::slice::Iter<'a, String>,
    ) -> Result<&'a str> {
        if !rest.is_empty() {
            return Ok(rest);
        }
        match args.next() {
            Some(v) => Ok(v),
            None => bail!("mpicc: {flag} needs a value"),
        }
    }
    while let Some(arg) = args.next() {
        let arg = arg.as_str();
        if let Some(reason) = refusal(arg) {
            bail!("mpicc: {arg} is not supported: {reason}");
        }
        if !arg.starts_with('-') || arg == "-" {
            let path = Path::new(arg);
            match path.extension().and_then(OsStr::to_str) {
                Some("c" | "o" | "a") => mpicc.inputs.push(path.to_owned()),
                _ => bail!(
                    "mpicc: {arg}: not a C source (.c), an object (.o) or an archive (.a); \
                     mpicc compiles C only"
                ),
            }
            continue;
        }
        match arg {
            "-c" => mpicc.compile_only = true,
            "-m32" | "-static" => {}
            "-g" | "-w" | "-pedantic" | "-pedantic-errors" | "-ansi" | "-MD" | "-MMD" | "-MP" => {
                mpicc.cflags.push(arg.to_owned())
            }
            "-MF" | "-MT" | "-MQ" => {
                let v = value(arg, "", &mut args)?;
                mpicc.cflags.extend([arg.to_owned(), v.to_owned()]);
            }
            _ if is_optimisation(arg) => mpicc.cflags.push(arg.to_owned()),
            _ if arg.starts_with("-o") => {
                let v = value("-o", &arg[2..], &mut args)?;
                ensure!(mpicc.output.is_none(), "mpicc: -o is given twice");
                mpicc.output = Some(PathBuf::from(v));
            }
            _ if arg.starts_with("-I") || arg.starts_with("-D") || arg.starts_with("-U") => {
                let v = value(&arg[..2], &arg[2..], &mut args)?;
                mpicc.cflags.push(format!("{}{v}", &arg[..2]));
            }
            _ if arg.starts_with("-L") => {
                let v = value("-L", &arg[2..], &mut args)?;
                mpicc.lib_dirs.push(PathBuf::from(v));
            }
            _ if arg.starts_with("-l") => {
                let v = value("-l", &arg[2..], &mut args)?;
                mpicc.libs.push(v.to_owned());
            }
            _ if arg.starts_with("-std=")
                || arg.starts_with("-W")
                || arg.starts_with("-f")
                || (arg.starts_with("-g") && arg.len() > 2) =>
            {
                mpicc.cflags.push(arg.to_owned())
            }
            _ => bail!(
                "mpicc: unknown or unsupported flag {arg} (`cargo xtask mpicc --help` lists \
                 the flags it takes)"
            ),
        }
    }
    ensure!(!mpicc.inputs.is_empty(), "mpicc: no input files");
    Ok(mpicc)
}

impl Mpicc {
    /// The C sources among the inputs.
    fn sources(&self) -> impl Iterator<Item = &PathBuf> {
        self.inputs
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
    }

    /// Where `-l NAME` is: nowhere for a library `libmpi.a` holds
    /// ([`BUILTIN_LIBS`]), else `libNAME.a` in the first `-L` directory
    /// that has it.
    fn find_lib(&self, name: &str) -> Result<Option<PathBuf>> {
        if BUILTIN_LIBS.contains(&name) {
            return Ok(None);
        }
        let file = format!("lib{name}.a");
        match self
            .lib_dirs
            .iter()
            .map(|d| d.join(&file))
            .find(|p| p.is_file())
        {
            Some(path) => Ok(Some(path)),
            None => bail!(
                "mpicc: -l{name}: no {file} in the -L directories ({}); the cores link only \
                 static archives built for them (libc, libm and libmpi are in libmpi.a \
                 already)",
                if self.lib_dirs.is_empty() {
                    "none given".to_owned()
                } else {
                    self.lib_dirs
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        }
    }

    /// Compiles, and links unless `-c`; returns the files made.
    pub fn run(&self) -> Result<Vec<PathBuf>> {
        self.run_logging(None)
    }

    /// [`Mpicc::run`], with gcc's output (warnings, errors) appended to
    /// the file `log` instead of shown, when `log` is given.
    pub fn run_logging(&self, log: Option<&Path>) -> Result<Vec<PathBuf>> {
        if self.compile_only {
            return self.compile_only(log);
        }
        let libs = self
            .libs
            .iter()
            .map(|l| self.find_lib(l))
            .collect::<Result<Vec<_>>>()?;
        let output = self
            .output
            .clone()
            .unwrap_or_else(|| PathBuf::from("a.out"));
        let scratch = tempfile::Builder::new()
            .prefix("mpicc-")
            .tempdir()
            .context("mpicc: cannot make a temporary directory")?;
        let mut inputs = Vec::new();
        for (i, input) in self.inputs.iter().enumerate() {
            if input.extension().is_some_and(|e| e == "c") {
                let stem = input.file_stem().unwrap_or_default().to_string_lossy();
                let object = scratch.path().join(format!("{i}-{stem}.o"));
                self.compile(input, &object, log)?;
                inputs.push(object);
            } else {
                ensure!(input.is_file(), "mpicc: {}: no such file", input.display());
                inputs.push(input.clone());
            }
        }
        inputs.extend(libs.into_iter().flatten());
        let library = self.library.build(true)?;
        let link = build::link_command(&inputs, &library, &output);
        run_tool(link, &format!("linking {}", output.display()), log)?;
        Ok(vec![output])
    }

    /// `-c`: each source to its object (`-o`, or its name with `.o` in
    /// the current directory).
    fn compile_only(&self, log: Option<&Path>) -> Result<Vec<PathBuf>> {
        let sources: Vec<_> = self.sources().collect();
        ensure!(!sources.is_empty(), "mpicc: -c: no C source (.c) given");
        ensure!(
            self.output.is_none() || sources.len() == 1,
            "mpicc: -o with -c and {} sources: one object cannot hold them all",
            sources.len()
        );
        for other in self.inputs.iter().filter(|p| !sources.contains(p)) {
            eprintln!(
                "mpicc: warning: {}: linker input unused with -c",
                other.display()
            );
        }
        let mut made = Vec::new();
        for source in sources {
            let object = match &self.output {
                Some(out) => out.clone(),
                None => PathBuf::from(source.file_stem().unwrap_or_default()).with_extension("o"),
            };
            self.compile(source, &object, log)?;
            made.push(object);
        }
        Ok(made)
    }

    fn compile(&self, source: &Path, object: &Path, log: Option<&Path>) -> Result<()> {
        let mut compile = build::compile_command(&self.cflags);
        compile.arg("-c").arg(source).arg("-o").arg(object);
        run_tool(compile, &format!("compiling {}", source.display()), log)
    }
}

/// [`build::run_tool`], with the tool's output appended to `log` when
/// one is given.
fn run_tool(mut command: std::process::Command, what: &str, log: Option<&Path>) -> Result<()> {
    if let Some(log) = log {
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("mpicc: cannot open the log {}", log.display()))?;
        let copy = file
            .try_clone()
            .with_context(|| format!("mpicc: cannot share the log {}", log.display()))?;
        command.stdout(copy).stderr(file);
    }
    build::run_tool(command, what)
}

/// The directory [`write_scripts`] writes to: `target/mpi/bin`.
pub fn scripts_dir() -> PathBuf {
    build::target_dir().join("mpi/bin")
}

/// Writes `mpicc` and `mpiexec` into [`scripts_dir`]: shell scripts that
/// run `xtask` (the binary at `xtask`) with `mpicc` or `mpiexec` and
/// their arguments, from any directory. Returns the directory.
pub fn write_scripts(xtask: &Path) -> Result<PathBuf> {
    let dir = scripts_dir();
    fs::create_dir_all(&dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let quoted = format!("'{}'", xtask.display().to_string().replace('\'', r"'\''"));
    for command in ["mpicc", "mpiexec"] {
        let path = dir.join(command);
        let text = format!(
            "#!/bin/sh\n\
             # `cargo xtask {command}` for Makefiles and scripts; written by\n\
             # `cargo xtask mpi-env` (and `cargo xtask build`).\n\
             exec {quoted} {command} \"$@\"\n"
        );
        let partial = dir.join(format!(".{command}.writing"));
        fs::write(&partial, text).with_context(|| format!("cannot write {}", path.display()))?;
        fs::set_permissions(&partial, fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", path.display()))?;
        fs::rename(&partial, &path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn oshcc_takes_mpiccs_flags_links_libshmem_and_names_itself() {
        let o = parse_oshcc(&words("-O3 -c ring.c")).unwrap();
        assert_eq!(o.library, Library::Shmem);
        assert!(o.compile_only);
        assert_eq!(parse(&words("ring.c")).unwrap().library, Library::Mpi);
        let e = parse_oshcc(&words("-shared ring.c")).unwrap_err();
        assert!(
            format!("{e:#}").starts_with("oshcc: -shared is not supported"),
            "{e:#}"
        );
    }

    #[test]
    fn gcc_flags_are_taken_in_both_spellings() {
        let m = parse(&words(
            "-c -O0 -g -std=c99 -Wextra -Wno-unused -I inc -Iother -D N=3 -DM -U X \
             -fno-strict-aliasing a.c -o a.o",
        ))
        .unwrap();
        assert!(m.compile_only);
        assert_eq!(m.output, Some(PathBuf::from("a.o")));
        assert_eq!(
            m.cflags,
            words(
                "-O0 -g -std=c99 -Wextra -Wno-unused -Iinc -Iother -DN=3 -DM -UX \
                 -fno-strict-aliasing"
            )
        );
        assert_eq!(m.inputs, [PathBuf::from("a.c")]);

        let m = parse(&words("a.o b.o lib.a -L d -Le -lm -lfoo -oprog -m32")).unwrap();
        assert!(!m.compile_only);
        assert_eq!(m.output, Some(PathBuf::from("prog")));
        assert_eq!(m.lib_dirs, [PathBuf::from("d"), PathBuf::from("e")]);
        assert_eq!(m.libs, ["m", "foo"]);
        assert_eq!(m.inputs.len(), 3);
    }

    #[test]
    fn flags_that_mean_nothing_on_the_cores_are_refused_by_name() {
        for (line, expected) in [
            (
                "-fPIC a.c",
                "-fPIC is not supported: the image is one static",
            ),
            ("-shared a.o", "-shared is not supported"),
            ("-m64 a.c", "-m64 is not supported: the cores are 32-bit"),
            (
                "-pthread a.c",
                "-pthread is not supported: a core runs one thread",
            ),
            (
                "-Wl,-rpath,x a.o",
                "-Wl,-rpath,x is not supported: the link is fixed",
            ),
            ("-march=native a.c", "-march=native is not supported"),
            ("-S a.c", "-S is not supported"),
            (
                "--frobnicate a.c",
                "unknown or unsupported flag --frobnicate",
            ),
            ("a.cpp", "a.cpp: not a C source"),
            ("-o", "-o needs a value"),
            ("-O2", "no input files"),
            ("-o x -o y a.c", "-o is given twice"),
        ] {
            let e = parse(&words(line)).unwrap_err().to_string();
            assert!(e.contains(expected), "{line}: {e}");
        }
    }

    #[test]
    fn libraries_are_found_in_the_directories_given() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("libfoo.a"), "").unwrap();
        let mut m = parse(&words("a.o -lm -lfoo")).unwrap();
        assert_eq!(m.find_lib("m").unwrap(), None);
        let e = m.find_lib("foo").unwrap_err().to_string();
        assert!(
            e.contains("-lfoo: no libfoo.a in the -L directories (none given)"),
            "{e}"
        );
        m.lib_dirs.push(dir.path().to_owned());
        assert_eq!(
            m.find_lib("foo").unwrap(),
            Some(dir.path().join("libfoo.a"))
        );
    }

    #[test]
    fn several_sources_cannot_share_one_object() {
        let m = parse(&words("-c a.c b.c -o x.o")).unwrap();
        let e = m.run().unwrap_err().to_string();
        assert!(e.contains("-o with -c and 2 sources"), "{e}");
    }
}
