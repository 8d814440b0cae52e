// SPDX-License-Identifier: MIT OR Apache-2.0
//! Apps: how a binary crate on this kernel declares its programs.
//!
//! An app lists its programs once with [`programs!`](crate::programs!):
//! each program's name, its help (the doc comment) and its entry, a
//! function `fn(&Scc, S) -> Result<(), E>` whose settings type `S` comes
//! from [`chip::settings!`] (or is `()`) and whose error `E` is an
//! [`AppError`] ([`AppResult`]) or converts into one, as `String` does. From that one list the macro makes the
//! table the kernel dispatches on and the declarations the run tool reads
//! out of the image (section [`chip::settings::SECTION`]) to list the
//! programs and check settings before booting. A program listed without
//! an entry does not compile, and an entry nobody lists is dead code.

use alloc::string::{String, ToString};
use core::fmt::Display;

use chip::settings::{Declaration, Setting, Settings};

use crate::platform::Scc;

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

/// A program's entry as the kernel calls it: with the settings the
/// command line gave, as name and value pairs, still to be parsed.
pub type Entry = fn(&Scc, &[(&str, &str)]) -> AppResult;

/// An app's programs, as [`programs!`](crate::programs!) lists them.
#[derive(Debug, Clone, Copy)]
pub struct Program {
    /// Its name, help and settings.
    pub declaration: Declaration<'static>,
    /// Its entry.
    pub entry: Entry,
}

/// The settings `run` takes; for [`programs!`](crate::programs!).
pub const fn settings_of<S: Settings, E>(
    _run: fn(&Scc, S) -> Result<(), E>,
) -> &'static [Setting<'static>] {
    S::LIST
}

/// Parses `given` into `run`'s settings and calls it; for
/// [`programs!`](crate::programs!). A program may fail with an
/// [`AppError`] or anything that converts into one (a `String`, say).
pub fn call<S: Settings, E: Into<AppError>>(
    run: fn(&Scc, S) -> Result<(), E>,
    scc: &Scc,
    given: &[(&str, &str)],
) -> AppResult {
    run(scc, S::parse(given)?).map_err(Into::into)
}

/// The declarations of `programs`, `N` of them; for
/// [`programs!`](crate::programs!).
pub const fn declarations<const N: usize>(programs: &[Program]) -> [Declaration<'static>; N] {
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

/// Declares an app's programs: for each, its doc comment (one line on
/// what it shows: the run tool's help), its name and its entry.
///
/// ```ignore
/// kernel::programs! {
///     /// Every core puts its rank into its right neighbour's window.
///     "hello" => hello,
/// }
/// fn hello(scc: &kernel::Scc, (): ()) -> kernel::AppResult { Ok(()) }
/// ```
///
/// The first program is the one a command line without `program=` runs.
/// Use it once per image.
#[macro_export]
macro_rules! programs {
    ( $( $(#[doc = $doc:literal])+ $name:literal => $run:path ),+ $(,)? ) => {
        const _: () = {
            const PROGRAMS: &[$crate::app::Program] = &[ $(
                $crate::app::Program {
                    declaration: $crate::chip::settings::Declaration {
                        name: $name,
                        about: concat!($($doc),+).trim_ascii_start(),
                        settings: $crate::app::settings_of($run),
                    },
                    entry: {
                        fn entry(
                            scc: &$crate::Scc,
                            given: &[(&str, &str)],
                        ) -> $crate::AppResult {
                            $crate::app::call($run, scc, given)
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
            fn __scc_app_programs() -> &'static [$crate::app::Program] {
                PROGRAMS
            }
        };
    };
}
