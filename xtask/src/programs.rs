// SPDX-License-Identifier: MIT OR Apache-2.0
//! The programs of an image, read from the image itself, and the checks on
//! what `cargo xtask run` asks of them.
//!
//! An app declares its programs once (`kernel::programs!`); the kernel
//! library writes the declarations into the image's
//! [`chip::settings::SECTION`], and [`Catalog::read`] reads them
//! back. The help, the checks of `--program` and `--param`, and the
//! kernel's own checks at boot therefore all come from that one list, for
//! the built-in programs and for an app outside the tree alike.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};
use chip::Chip;
use chip::settings::{self, Decoded, SECTION, check, decode, position};
use object::{Object, ObjectSection};

use crate::build::App;

/// The declarations of an image's programs.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The image they were read from.
    image: PathBuf,
    /// Its section, checked by [`decode`] when read.
    section: Vec<u8>,
    /// Its entry point.
    entry: u32,
}

impl Catalog {
    /// Reads the declarations out of `image`, an ELF built on the kernel
    /// library.
    pub fn read(image: &Path) -> Result<Self> {
        let bytes = std::fs::read(image)
            .with_context(|| format!("cannot read the image {}", image.display()))?;
        let elf = object::File::parse(&*bytes)
            .with_context(|| format!("{} is not an ELF image", image.display()))?;
        let Some(section) = elf.section_by_name(SECTION) else {
            bail!(
                "{} declares no programs (no {SECTION} section): is it built on the kernel \
                 library, with `kernel::programs!`?",
                image.display()
            );
        };
        let section = section
            .data()
            .with_context(|| format!("cannot read {SECTION} in {}", image.display()))?
            .to_vec();
        let entry = u32::try_from(elf.entry()).with_context(|| {
            format!(
                "{} is entered at {:#x}, beyond the 32-bit address space of the cores",
                image.display(),
                elf.entry()
            )
        })?;
        let catalog = Self {
            image: image.to_owned(),
            section,
            entry,
        };
        let programs = decode(&catalog.section)
            .map_err(|e| anyhow::anyhow!("{SECTION} in {}: {e}", image.display()))?;
        if programs.is_empty() {
            bail!("{} declares no programs", image.display());
        }
        Ok(catalog)
    }

    /// The image's entry point, where the cores' modelled time starts
    /// (`emu::launch::Launch::entry`).
    pub fn entry(&self) -> u32 {
        self.entry
    }

    /// The image's programs, in the order the app lists them.
    pub fn programs(&self) -> Vec<Decoded<'_>> {
        decode(&self.section).expect("checked when read")
    }

    /// The program called `name`, or the first when `None`; an error
    /// listing every program if there is none of that name.
    pub fn find(&self, name: Option<&str>) -> Result<Decoded<'_>> {
        let mut programs = self.programs();
        match position(programs.iter().map(|p| p.name), name) {
            Some(i) => Ok(programs.swap_remove(i)),
            None => bail!(
                "unknown program `{}`; the programs of {} are:\n{}",
                name.unwrap_or_default(),
                self.image.display(),
                self.list().trim_end()
            ),
        }
    }

    /// Checks that `program` (the first when `None`) exists and takes
    /// `params` on a run of `cores` cores; returns its name.
    pub fn check(
        &self,
        program: Option<&str>,
        params: &[(String, String)],
        cores: u32,
    ) -> Result<String> {
        let found = self.find(program)?;
        let given: Vec<(&str, &str)> = params
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let checked = check(&found.settings, &given)
            .and_then(|()| settings::check_cores(&found.settings, &given, cores));
        if let Err(e) = checked {
            bail!("program `{}`: {e}", found.name);
        }
        Ok(found.name.to_owned())
    }

    /// Every program with its description and settings, for messages and
    /// `cargo xtask programs`.
    pub fn list(&self) -> String {
        let programs = self.programs();
        let width = programs.iter().map(|p| p.name.len()).max().unwrap_or(0);
        programs.iter().fold(String::new(), |mut out, p| {
            let _ = writeln!(out, "  {:width$}  {}", p.name, p.about);
            for s in &p.settings {
                let _ = writeln!(
                    out,
                    "  {:width$}    --param {}=… ({}; default {}): {}",
                    "", s.name, s.kind, s.default, s.about
                );
            }
            out
        })
    }
}

/// `cores` if that many cores of `chip` can run, or an error naming the
/// range ([`chip::Chip::run_cores`], the one check of a core count).
pub fn check_cores(chip: &Chip, cores: u32) -> Result<u32> {
    Ok(chip.run_cores(cores)?)
}

/// The chip of [`chip::CHIPS`] called `name`, or an error listing them.
pub fn parse_chip(name: &str) -> Result<&'static Chip> {
    match chip::find_chip(name) {
        Some(chip) => Ok(chip),
        None => bail!(
            "unknown chip `{name}` (known chips: {})",
            chip::chip_names()
        ),
    }
}

/// The app in `dir`: a crate ([`App::Dir`], with a `Cargo.toml`), or a C
/// app (`cargo xtask new --lang c`): the `.c` files directly in the
/// directory, in name order ([`App::C`]).
pub fn app_in(dir: PathBuf) -> Result<App> {
    if dir.join("Cargo.toml").is_file() {
        return Ok(App::Dir(dir));
    }
    let entries = std::fs::read_dir(&dir)
        .with_context(|| format!("--app {}: not a directory that can be read", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("--app {}: cannot list it", dir.display()))?
            .path();
        if path.extension().is_some_and(|e| e == "c") && path.is_file() {
            files.push(path);
        }
    }
    ensure!(
        !files.is_empty(),
        "--app {}: neither a Cargo.toml nor .c files there (`cargo xtask new NAME` makes \
         an app, `cargo xtask new --lang c PATH` a C one)",
        dir.display()
    );
    files.sort();
    Ok(App::C(files))
}

/// The app a run boots and the program's settings, from `run`'s options:
/// `--app DIR` ([`app_in`]), or `--c FILE.c...`, or the built-in
/// programs. A C program gets `argv` as its `args` setting: its name (the
/// C app's directory's, or the first file's), then `args`, the words
/// after `--`.
pub fn app_of(
    dir: Option<PathBuf>,
    c_files: Vec<PathBuf>,
    args: &[String],
    mut params: Vec<(String, String)>,
) -> Result<(App, Vec<(String, String)>)> {
    let (files, name) = match dir {
        Some(dir) => match app_in(dir.clone())? {
            App::C(files) => (files, dir.file_name().map(ToOwned::to_owned)),
            app => {
                ensure!(
                    args.is_empty(),
                    "arguments after -- ({}) are for a C program's main: {} is a Rust app",
                    args.join(" "),
                    dir.display()
                );
                return Ok((app, params));
            }
        },
        None if c_files.is_empty() => {
            ensure!(
                args.is_empty(),
                "arguments after -- ({}) are for a C program's main: give its files with --c",
                args.join(" ")
            );
            return Ok((App::Builtin, params));
        }
        None => {
            let stem = c_files[0].file_stem().map(ToOwned::to_owned);
            (c_files, stem)
        }
    };
    ensure!(
        !params.iter().any(|(name, _)| name == "args"),
        "--param args=...: a C program's arguments go after --"
    );
    let name = name.as_deref().and_then(|s| s.to_str()).context(
        "the C program's name (its first file's, or its app's directory's) is not valid UTF-8",
    )?;
    params.push(argv_param(name, args)?);
    Ok((App::C(files), params))
}

/// The `args` setting that gives a C program's `main` the argv `name`,
/// then `args`.
pub fn argv_param(name: &str, args: &[String]) -> Result<(String, String)> {
    let mut words = vec![name];
    words.extend(args.iter().map(String::as_str));
    let value = chip::settings::words::encode(&words).map_err(|word| {
        anyhow::anyhow!("argument {word:?} holds a NUL byte, which C cannot pass")
    })?;
    Ok(("args".to_owned(), value))
}

/// Parses `NAME=VALUE` as given to `--param`.
pub fn parse_param(text: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((name, value))
            if !name.is_empty()
                && !value.is_empty()
                && !text.contains(char::is_whitespace)
                && !value.contains('=') =>
        {
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => bail!("`{text}` is not NAME=VALUE (one `=`, no spaces)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_c_program_gets_its_name_and_the_words_after_the_separator_as_argv() {
        let files = vec![PathBuf::from("dir/ring.c"), PathBuf::from("util.c")];
        let args = ["-n".to_owned(), "3 4".to_owned()];
        let (app, params) = app_of(None, files.clone(), &args, vec![]).unwrap();
        assert_eq!(app, App::C(files.clone()));
        assert_eq!(params, [("args".to_owned(), "3,ring,-n,3%204".to_owned())]);
        let words = chip::settings::words::decode(&params[0].1).unwrap();
        assert_eq!(words, [&b"ring"[..], b"-n", b"3 4"]);

        let given = vec![("args".to_owned(), "1,x".to_owned())];
        let err = app_of(None, files.clone(), &[], given).unwrap_err();
        assert!(err.to_string().contains("go after --"), "{err}");
        let err = app_of(None, files, &["a\0b".to_owned()], vec![]).unwrap_err();
        assert!(err.to_string().contains("NUL"), "{err}");
    }

    #[test]
    fn arguments_after_the_separator_need_a_c_program() {
        let (app, _) = app_of(None, vec![], &[], vec![]).unwrap();
        assert_eq!(app, App::Builtin);
        let err = app_of(None, vec![], &["x".to_owned()], vec![]).unwrap_err();
        assert!(err.to_string().contains("--c"), "{err}");
    }

    #[test]
    fn a_c_app_is_its_directory_s_c_files_and_its_program_is_named_after_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("stencil");
        std::fs::create_dir(&dir).unwrap();
        for file in ["util.c", "main.c", "notes.txt"] {
            std::fs::write(dir.join(file), "").unwrap();
        }
        let (app, params) = app_of(Some(dir.clone()), vec![], &["-v".to_owned()], vec![]).unwrap();
        assert_eq!(app, App::C(vec![dir.join("main.c"), dir.join("util.c")]));
        assert_eq!(params, [("args".to_owned(), "2,stencil,-v".to_owned())]);

        // A crate's directory is a Rust app, whose programs take no argv.
        std::fs::write(dir.join("Cargo.toml"), "").unwrap();
        let (app, _) = app_of(Some(dir.clone()), vec![], &[], vec![]).unwrap();
        assert_eq!(app, App::Dir(dir.clone()));
        let err = app_of(Some(dir), vec![], &["-v".to_owned()], vec![]).unwrap_err();
        assert!(err.to_string().contains("is a Rust app"), "{err}");

        let missing = app_in(tmp.path().join("none")).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("not a directory that can be read"),
            "{missing}"
        );
    }

    #[test]
    fn settings_are_name_value_pairs() {
        assert_eq!(
            parse_param("scheme=gbh").unwrap(),
            ("scheme".into(), "gbh".into())
        );
        for bad in ["scheme", "=gbh", "scheme=", "a=b=c", "a =b"] {
            assert!(parse_param(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn core_counts_outside_the_chip_are_refused() {
        assert_eq!(check_cores(&chip::SCC, 1).unwrap(), 1);
        assert_eq!(check_cores(&chip::SCC, 48).unwrap(), 48);
        for bad in [0, 49] {
            let message = check_cores(&chip::SCC, bad).unwrap_err().to_string();
            assert_eq!(
                message,
                format!("{bad} cores: the SCC has 48, so choose 1..=48")
            );
        }
        assert_eq!(check_cores(&chip::MESH8X8, 128).unwrap(), 128);
        assert_eq!(
            check_cores(&chip::MESH8X8, 193).unwrap_err().to_string(),
            "193 cores: the MESH8X8 has 192, so choose 1..=192"
        );
    }

    #[test]
    fn chips_are_chosen_by_name() {
        assert_eq!(parse_chip("mesh8x8").unwrap(), &chip::MESH8X8);
        assert_eq!(parse_chip("scc").unwrap(), &chip::SCC);
        assert_eq!(
            parse_chip("nosuch").unwrap_err().to_string(),
            "unknown chip `nosuch` (known chips: scc, mesh8x8)"
        );
    }

    #[test]
    fn an_image_without_declarations_is_refused() {
        // The host binary running this test is an ELF without the section.
        let me = std::env::current_exe().unwrap();
        let message = Catalog::read(&me).unwrap_err().to_string();
        assert!(message.contains("declares no programs"), "{message}");
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("text");
        std::fs::write(&text, "not an image").unwrap();
        let message = Catalog::read(&text).unwrap_err().to_string();
        assert!(message.contains("is not an ELF image"), "{message}");
    }
}
