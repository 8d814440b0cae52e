// SPDX-License-Identifier: MIT OR Apache-2.0
//! Apps: how a binary crate on this kernel declares its programs.
//!
//! An app lists its programs once with [`programs!`](crate::programs!):
//! each program's name, its help (the doc comment) and its entry, a
//! function `fn(&Platform, S) -> Result<(), E>` whose settings type `S` comes
//! from [`chip::settings!`] (or is `()`) and whose error `E` is an
//! [`AppError`] ([`AppResult`]) or converts into one, as `String` does. From that one list the macro makes the
//! table the kernel dispatches on and the declarations the run tool reads
//! out of the image (section [`chip::settings::SECTION`]) to list the
//! programs and check settings before booting. A program listed without
//! an entry does not compile, and an entry nobody lists is dead code.

use alloc::string::{String, ToString};
use core::fmt::Display;

use chip::settings::{Declaration, Setting, Settings};

/// What a program returns: `Err` carries the reason it failed.
pub type AppResult = Result<(), AppError>;

/// Why a program failed: any error with a message converts into it, so
/// `?` works on rma's errors, on strings and on the kernel's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppError(String);

impl AppError {
    /// The reason, as the run's report prints it.
    pub fn message(&self) -> &str {
        &self.0
    }
}

/// Not `Display` itself, so that this covers every error that is.
impl<E: Display> From<E> for AppError {
    fn from(error: E) -> Self {
        Self(error.to_string())
    }
}

/// A program's entry as the kernel calls it, on platform `P`: with the
/// settings the command line gave, as name and value pairs, still to be
/// parsed.
pub type Entry<P> = fn(&'static P, &[(&str, &str)]) -> AppResult;

/// An app's programs, as [`programs!`](crate::programs!) lists them. `P`
/// is the platform they run on: the kernel's `Platform`.
#[derive(Debug)]
pub struct Program<P: 'static> {
    /// Its name, help and settings.
    pub declaration: Declaration<'static>,
    /// Its entry.
    pub entry: Entry<P>,
}

/// The settings `run` takes; for [`programs!`](crate::programs!).
pub const fn settings_of<P, S: Settings, E>(
    _run: fn(&'static P, S) -> Result<(), E>,
) -> &'static [Setting<'static>] {
    S::LIST
}

/// Parses `given` into `run`'s settings and calls it; for
/// [`programs!`](crate::programs!). A program may fail with an
/// [`AppError`] or anything that converts into one (a `String`, say).
pub fn call<P, S: Settings, E: Into<AppError>>(
    run: fn(&'static P, S) -> Result<(), E>,
    platform: &'static P,
    given: &[(&str, &str)],
) -> AppResult {
    run(platform, S::parse(given)?).map_err(Into::into)
}

/// The declarations of `programs`, `N` of them; for
/// [`programs!`](crate::programs!).
///
/// # Panics
/// If `N` is not the number of programs, or there are none.
pub const fn declarations<P: 'static, const N: usize>(
    programs: &[Program<P>],
) -> [Declaration<'static>; N] {
    assert!(
        N == programs.len() && N > 0,
        "an app declares at least one program"
    );
    let mut out = [programs[0].declaration; N];
    let mut i = 1;
    while i < N {
        out[i] = programs[i].declaration;
        i += 1;
    }
    out
}

/// The program called `name` (the first without a name), or the message
/// naming the programs there are.
#[cfg(any(target_arch = "x86", test))]
pub(crate) fn find<'a, P: 'static>(
    programs: &'a [Program<P>],
    name: Option<&str>,
) -> Result<&'a Program<P>, String> {
    use core::fmt::Write;
    let names = programs.iter().map(|p| p.declaration.name);
    match chip::settings::position(names, name) {
        Some(i) => Ok(&programs[i]),
        None => Err(match name {
            None => "(the image has none)".into(),
            Some(name) => {
                let mut known = alloc::format!("{name}; the programs are:");
                for p in programs {
                    let _ = write!(known, " {}", p.declaration.name);
                }
                known
            }
        }),
    }
}

/// Declares an app's programs: for each, its doc comment (one line on
/// what it shows: the run tool's help), its name and its entry.
///
/// ```ignore
/// kernel::programs! {
///     /// Every core puts its rank into its right neighbour's window.
///     "hello" => hello,
/// }
/// fn hello(scc: &kernel::Platform, (): ()) -> kernel::AppResult { Ok(()) }
/// ```
///
/// The first program is the one a command line without `program=` runs.
/// Use it once per image.
#[macro_export]
macro_rules! programs {
    ( $( $(#[doc = $doc:literal])+ $name:literal => $run:path ),+ $(,)? ) => {
        const _: () = {
            const PROGRAMS: &[$crate::app::Program<$crate::Platform>] = &[ $(
                $crate::app::Program {
                    declaration: $crate::chip::settings::Declaration {
                        name: $name,
                        about: concat!($($doc),+).trim_ascii_start(),
                        settings: $crate::app::settings_of($run),
                    },
                    entry: {
                        fn entry(
                            platform: &'static $crate::Platform,
                            given: &[(&str, &str)],
                        ) -> $crate::AppResult {
                            $crate::app::call($run, platform, given)
                        }
                        entry
                    },
                },
            )+ ];
            const DECLARATIONS: [$crate::chip::settings::Declaration<'static>; PROGRAMS.len()] =
                $crate::app::declarations(PROGRAMS);
            /// The declarations, for the run tool to read from the image.
            #[used]
            #[unsafe(link_section = ".scc_programs")]
            static SECTION: [u8; $crate::chip::settings::encoded_len(&DECLARATIONS)] =
                $crate::chip::settings::encode(&DECLARATIONS);

            /// The kernel's way to this app's programs.
            #[unsafe(no_mangle)]
            fn __scc_app_programs() -> &'static [$crate::app::Program<$crate::Platform>] {
                PROGRAMS
            }
        };
    };
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::String;

    use chip::settings::{choice, integer};

    use super::*;

    chip::settings! {
        /// The settings of a test program.
        struct Rounds {
            /// How many rounds.
            rounds: u32 = integer(1..=10, "3"),
            /// Whether to fail.
            fail: bool = choice::<bool>("off"),
        }
    }

    /// Adds the platform's number to the rounds; fails when asked to.
    fn counted(base: &u32, settings: Rounds) -> Result<(), String> {
        match settings.fail {
            true => Err(format!("failed after {}", base + settings.rounds)),
            false => Ok(()),
        }
    }

    fn plain(_: &u32, (): ()) -> AppResult {
        Ok(())
    }

    fn program(name: &'static str) -> Program<u32> {
        Program {
            declaration: Declaration {
                name,
                about: "A test program.",
                settings: &[],
            },
            entry: |platform, given| call(plain, platform, given),
        }
    }

    #[test]
    fn without_a_name_the_first_program_is_found() {
        let programs = [program("one"), program("two")];
        let found = find(&programs, None).unwrap();
        assert_eq!(found.declaration.name, "one");
    }

    #[test]
    fn a_program_is_found_by_its_name() {
        let programs = [program("one"), program("two"), program("three")];
        let found = find(&programs, Some("two")).unwrap();
        assert!(core::ptr::eq(found, &programs[1]));
    }

    #[test]
    fn an_unknown_name_is_answered_with_the_programs_there_are() {
        let programs = [program("one"), program("two")];
        let message = find(&programs, Some("three")).unwrap_err();
        assert_eq!(message, "three; the programs are: one two");
    }

    #[test]
    fn an_image_without_programs_says_so() {
        let none: [Program<u32>; 0] = [];
        assert_eq!(find(&none, None).unwrap_err(), "(the image has none)");
        assert!(find(&none, Some("one")).is_err());
    }

    #[test]
    fn declarations_are_copied_in_order() {
        let programs = [program("one"), program("two"), program("three")];
        let names = declarations::<u32, 3>(&programs).map(|d| d.name);
        assert_eq!(names, ["one", "two", "three"]);
    }

    #[test]
    #[should_panic(expected = "at least one program")]
    fn declarations_of_a_wrong_count_are_refused() {
        declarations::<u32, 1>(&[program("one"), program("two")]);
    }

    #[test]
    #[should_panic(expected = "at least one program")]
    fn an_app_without_programs_is_refused() {
        declarations::<u32, 0>(&[]);
    }

    #[test]
    fn a_program_gets_its_settings_and_its_platform() {
        assert_eq!(settings_of(counted), Rounds::LIST);
        assert_eq!(settings_of(counted)[0].name, "rounds");
        assert!(settings_of(plain).is_empty());
        assert_eq!(call(counted, &1, &[]), Ok(()));
        let failed = call(counted, &1, &[("rounds", "5"), ("fail", "on")]);
        assert_eq!(failed.unwrap_err().message(), "failed after 6");
        let default = call(counted, &1, &[("fail", "on")]);
        assert_eq!(default.unwrap_err().message(), "failed after 4");
    }

    #[test]
    fn settings_that_do_not_parse_fail_the_program() {
        let wrong = call(counted, &0, &[("rounds", "11")]).unwrap_err();
        assert!(wrong.message().contains("rounds"), "{}", wrong.message());
        let unknown = call(plain, &0, &[("rounds", "1")]).unwrap_err();
        assert!(
            unknown.message().contains("rounds"),
            "{}",
            unknown.message()
        );
    }

    #[test]
    fn an_entry_calls_its_program() {
        let entry = program("one").entry;
        assert_eq!(entry(&7, &[]), Ok(()));
        assert!(entry(&7, &[("x", "1")]).is_err());
    }
}
