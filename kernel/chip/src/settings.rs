// SPDX-License-Identifier: MIT OR Apache-2.0
//! Programs and their typed settings, declared once.
//!
//! A program for the cores is declared by a [`Declaration`]: its name, one
//! line on what it does, and its settings. Each setting has a name, a line
//! of help, a [`Kind`] (a whole number in a range, a number of bytes, or
//! one of a list of names, `on`/`off` included) and a default. A program's
//! settings are one struct made by [`settings!`](crate::settings!): the
//! macro writes the struct, its [`Settings::LIST`] and its parser from one
//! list of fields, so the help, the checks and the values cannot disagree.
//! Names come from the types themselves through [`Choice`], never from
//! strings repeated elsewhere.
//!
//! The declarations of an image travel to the host inside it, in the
//! section [`SECTION`] written by [`encode`]; the run tool reads them back
//! with `decode` (feature `alloc`) to list, check and explain an image's programs before
//! it boots anything. Both sides check given settings with [`check`].

use core::fmt;
use core::ops::RangeInclusive;

/// A type whose values a setting names: `NAMES[i]` names `ALL[i]`.
pub trait Choice: Sized + Copy + 'static {
    /// Every value, in the order the names list them.
    const ALL: &'static [Self];
    /// The name of each value of [`Choice::ALL`], as the command line gives it.
    const NAMES: &'static [&'static str];
}

impl Choice for bool {
    const ALL: &'static [Self] = &[false, true];
    const NAMES: &'static [&'static str] = &["off", "on"];
}

/// The name of `value` among `T`'s names.
pub fn name_of<T: Choice + PartialEq>(value: T) -> &'static str {
    T::ALL
        .iter()
        .position(|v| *v == value)
        .map_or("?", |i| T::NAMES[i])
}

/// The names a [`Kind::Choice`] setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names<'a> {
    /// As declared: a list.
    List(&'a [&'a str]),
    /// As `decode` reads them: in the section's format, each name after
    /// its length (checked by `decode`).
    Encoded(&'a [u8]),
}

impl<'a> Names<'a> {
    /// Each name in order.
    pub fn iter(self) -> impl Iterator<Item = &'a str> {
        let (list, mut encoded): (&'a [&'a str], &'a [u8]) = match self {
            Self::List(list) => (list, &[]),
            Self::Encoded(encoded) => (&[], encoded),
        };
        let decoded = core::iter::from_fn(move || {
            let (len, rest) = encoded.split_first_chunk::<4>()?;
            let (name, rest) = rest.split_at_checked(u32::from_le_bytes(*len) as usize)?;
            encoded = rest;
            core::str::from_utf8(name).ok()
        });
        list.iter().copied().chain(decoded)
    }

    /// Where `name` is in the list.
    pub fn position(self, name: &str) -> Option<usize> {
        self.iter().position(|n| n == name)
    }
}

impl fmt::Display for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// What values a setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A whole number in `min..=max`, in decimal.
    Integer {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
    },
    /// A number of bytes in `min..=max`: decimal, optionally followed by
    /// `K` or `KiB` (times 1024) or `M` or `MiB` (times 1024²).
    Bytes {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
    },
    /// A number of cores in `min..=max`, in decimal, and at most the run's
    /// core count ([`check_cores`]).
    Cores {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
    },
    /// One of these names.
    Choice(Names<'a>),
    /// A list of words of any text, as [`words`] writes them onto the
    /// command line (a C program's `argv`).
    Words,
}

impl Kind<'_> {
    /// The value `text` stands for: the number, or the index of the name;
    /// `None` if this kind does not take it.
    pub fn value(&self, text: &str) -> Option<u64> {
        match *self {
            Self::Integer { min, max } | Self::Cores { min, max } => {
                parse_number(text.as_bytes(), false).filter(|n| (min..=max).contains(n))
            }
            Self::Bytes { min, max } => {
                parse_number(text.as_bytes(), true).filter(|n| (min..=max).contains(n))
            }
            Self::Choice(names) => names.position(text).map(|i| i as u64),
            Self::Words => words::count(text).map(u64::from),
        }
    }
}

impl fmt::Display for Kind<'_> {
    /// What the kind takes, as help and errors say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Integer { min, max } => write!(f, "a whole number in {min}..={max}"),
            Self::Cores { min, max } => write!(
                f,
                "a number of cores in {min}..={max}, at most the run's core count"
            ),
            Self::Bytes { min, max } => write!(
                f,
                "a number of bytes in {min}..={max} (suffix K, KiB, M or MiB allowed)"
            ),
            Self::Choice(names) => write!(f, "one of {names}"),
            Self::Words => write!(f, "a list of words written by chip::settings::words"),
        }
    }
}

/// A decimal number, with a binary-unit suffix if `units` allows one.
/// `const` so that defaults are checked when the program is compiled.
const fn parse_number(text: &[u8], units: bool) -> Option<u64> {
    let mut value: u64 = 0;
    let mut i = 0;
    while i < text.len() && text[i].is_ascii_digit() {
        value = match value.checked_mul(10) {
            Some(v) => match v.checked_add((text[i] - b'0') as u64) {
                Some(v) => v,
                None => return None,
            },
            None => return None,
        };
        i += 1;
    }
    if i == 0 {
        return None;
    }
    let (_, rest) = text.split_at(i);
    let factor: u64 = match rest {
        [] => 1,
        b"K" | b"KiB" if units => 1 << 10,
        b"M" | b"MiB" if units => 1 << 20,
        _ => return None,
    };
    value.checked_mul(factor)
}

/// Whether two strings are equal, in `const` context.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A setting's kind and default, as [`Setting::new`] takes them; made by
/// [`integer`], [`bytes`] or [`choice`], which check the default when the
/// program is compiled.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    kind: Kind<'static>,
    default: &'static str,
}

/// A whole number in `range`, `default` when not given.
///
/// # Panics
/// At compile time in a `const`, if `default` is not a number in `range`.
pub const fn integer(range: RangeInclusive<u64>, default: &'static str) -> Spec {
    let (min, max) = (*range.start(), *range.end());
    match parse_number(default.as_bytes(), false) {
        Some(n) if n >= min && n <= max => {}
        _ => panic!("the default of an integer setting must lie in its range"),
    }
    Spec {
        kind: Kind::Integer { min, max },
        default,
    }
}

/// A number of cores in `range` and at most the run's core count,
/// `default` when not given.
///
/// # Panics
/// At compile time in a `const`, if `default` is not a number in `range`.
pub const fn cores(range: RangeInclusive<u64>, default: &'static str) -> Spec {
    match integer(range, default) {
        Spec {
            kind: Kind::Integer { min, max },
            default,
        } => Spec {
            kind: Kind::Cores { min, max },
            default,
        },
        _ => unreachable!(),
    }
}

/// A number of bytes in `range`, `default` when not given.
///
/// # Panics
/// At compile time in a `const`, if `default` is not a size in `range`.
pub const fn bytes(range: RangeInclusive<u64>, default: &'static str) -> Spec {
    let (min, max) = (*range.start(), *range.end());
    match parse_number(default.as_bytes(), true) {
        Some(n) if n >= min && n <= max => {}
        _ => panic!("the default of a size setting must lie in its range"),
    }
    Spec {
        kind: Kind::Bytes { min, max },
        default,
    }
}

/// One of `T`'s names, `default` when not given.
///
/// # Panics
/// At compile time in a `const`, if `default` is not one of `T::NAMES`, or
/// if `T` names a different number of values than it has.
pub const fn choice<T: Choice>(default: &'static str) -> Spec {
    assert!(
        T::NAMES.len() == T::ALL.len(),
        "a Choice needs one name per value"
    );
    let mut i = 0;
    while i < T::NAMES.len() {
        if same(T::NAMES[i], default) {
            return Spec {
                kind: Kind::Choice(Names::List(T::NAMES)),
                default,
            };
        }
        i += 1;
    }
    panic!("the default of a choice setting must be one of its names")
}

/// A list of words ([`Kind::Words`]), none when not given.
pub const fn word_list() -> Spec {
    Spec {
        kind: Kind::Words,
        default: words::NONE,
    }
}

/// The command-line form of a [`Kind::Words`] setting: a list of words
/// of any text but NUL (a C program's arguments) as one blank-free value.
///
/// The form is the number of words in decimal, then each word after a
/// `,`, with every byte other than an ASCII letter, digit or one of
/// `-._~/+@:` written as `%` and two upper-case hex digits: `0` is no
/// word, `2,a%20b,c` is `a b` and `c`, `1,` is one empty word.
pub mod words {
    /// No word.
    pub const NONE: &str = "0";

    /// Whether `byte` stands for itself.
    const fn plain(byte: u8) -> bool {
        byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/' | b'+' | b'@' | b':')
    }

    /// The value of hex digit `d` (upper-case only: one spelling per word).
    const fn hex(d: u8) -> Option<u8> {
        match d {
            b'0'..=b'9' => Some(d - b'0'),
            b'A'..=b'F' => Some(d - b'A' + 10),
            _ => None,
        }
    }

    /// Calls `word` with each word's bytes, one at a time, in order, and
    /// `end` after each word; the number of words, or `None` if `text` is
    /// not in the form (or holds a NUL).
    fn walk(text: &str, mut byte: impl FnMut(u8), mut end: impl FnMut()) -> Option<u32> {
        let Some((count, mut rest)) = text.split_once(',').map(|(c, r)| (c, r.as_bytes())) else {
            return (text == NONE).then_some(0);
        };
        if count.is_empty()
            || !count.bytes().all(|b| b.is_ascii_digit())
            || (count.len() > 1 && count.starts_with('0'))
        {
            return None;
        }
        let count: u32 = count.parse().ok().filter(|&n| n > 0)?;
        for i in 0..count {
            let mut at = 0;
            while at < rest.len() && rest[at] != b',' {
                let b = match rest[at] {
                    b'%' => {
                        let hi = hex(*rest.get(at + 1)?)?;
                        let lo = hex(*rest.get(at + 2)?)?;
                        at += 2;
                        hi << 4 | lo
                    }
                    b if plain(b) => b,
                    _ => return None,
                };
                if b == 0 {
                    return None;
                }
                byte(b);
                at += 1;
            }
            end();
            let last = i + 1 == count;
            match (last, rest.get(at)) {
                (true, None) => {}
                (false, Some(b',')) => rest = &rest[at + 1..],
                _ => return None,
            }
        }
        Some(count)
    }

    /// How many words `text` holds, or `None` if it is not in the form.
    pub fn count(text: &str) -> Option<u32> {
        walk(text, |_| {}, || {})
    }

    /// The words `text` holds, each as its bytes, or `None` if it is not
    /// in the form.
    #[cfg(any(test, feature = "alloc"))]
    pub fn decode(text: &str) -> Option<alloc::vec::Vec<alloc::vec::Vec<u8>>> {
        use core::cell::RefCell;
        let words = RefCell::new(alloc::vec![alloc::vec::Vec::new()]);
        walk(
            text,
            |b| {
                words
                    .borrow_mut()
                    .last_mut()
                    .expect("one word open")
                    .push(b)
            },
            || words.borrow_mut().push(alloc::vec::Vec::new()),
        )?;
        let mut words = words.into_inner();
        words.pop();
        Some(words)
    }

    /// `words` in the form, or the first word holding a NUL (which no C
    /// string can hold).
    #[cfg(any(test, feature = "alloc"))]
    pub fn encode<'w>(words: &[&'w str]) -> Result<alloc::string::String, &'w str> {
        use core::fmt::Write;
        let mut text = alloc::format!("{}", words.len());
        for word in words {
            if word.contains('\0') {
                return Err(word);
            }
            text.push(',');
            for b in word.bytes() {
                if plain(b) {
                    text.push(b as char);
                } else {
                    // Writing into a String cannot fail.
                    let _ = write!(text, "%{b:02X}");
                }
            }
        }
        Ok(text)
    }
}

/// A setting a program takes on the command line, with its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting<'a> {
    /// Its name.
    pub name: &'a str,
    /// One line on what it changes.
    pub about: &'a str,
    /// The values it takes.
    pub kind: Kind<'a>,
    /// The value when none is given.
    pub default: &'a str,
}

impl Setting<'static> {
    /// The setting `name`, with help `about` (leading blanks dropped, as
    /// doc comments have them) and the kind and default of `spec`.
    pub const fn new(name: &'static str, about: &'static str, spec: Spec) -> Self {
        Self {
            name,
            about: about.trim_ascii_start(),
            kind: spec.kind,
            default: spec.default,
        }
    }
}

/// A type holding a setting's value: its parser.
pub trait Value: Sized {
    /// The value `text` stands for under `kind`.
    fn from_text(text: &str, kind: &Kind<'_>) -> Option<Self>;
}

macro_rules! number_values {
    ($($ty:ty),*) => {$(
        impl Value for $ty {
            fn from_text(text: &str, kind: &Kind<'_>) -> Option<Self> {
                match kind {
                    Kind::Integer { .. } | Kind::Bytes { .. } | Kind::Cores { .. } => {
                        kind.value(text).and_then(|n| Self::try_from(n).ok())
                    }
                    Kind::Choice(_) | Kind::Words => None,
                }
            }
        }
    )*};
}
number_values!(u8, u16, u32, u64, usize);

impl<T: Choice> Value for T {
    fn from_text(text: &str, kind: &Kind<'_>) -> Option<Self> {
        match kind {
            Kind::Choice(_) => T::NAMES.iter().position(|n| *n == text).map(|i| T::ALL[i]),
            Kind::Integer { .. } | Kind::Bytes { .. } | Kind::Cores { .. } | Kind::Words => None,
        }
    }
}

/// A program's settings as one value: made by [`settings!`](crate::settings!).
pub trait Settings: Sized {
    /// Every setting, in declaration order.
    const LIST: &'static [Setting<'static>];
    /// The value the settings `given` (checked by [`check`] or not) and
    /// the defaults of the rest make.
    fn parse<'a>(given: &[(&'a str, &'a str)]) -> Result<Self, SettingError<'a, 'static>>;
}

/// No settings.
impl Settings for () {
    const LIST: &'static [Setting<'static>] = &[];
    fn parse<'a>(given: &[(&'a str, &'a str)]) -> Result<Self, SettingError<'a, 'static>> {
        check(Self::LIST, given)
    }
}

/// The value of `name`, one of `list`, from `given` or its default; for
/// the parsers [`settings!`](crate::settings!) writes.
///
/// # Panics
/// If `list` has no setting `name`: the macro only asks for its own.
pub fn value<'a, T: Value>(
    list: &'static [Setting<'static>],
    name: &str,
    given: &[(&'a str, &'a str)],
) -> Result<T, SettingError<'a, 'static>> {
    let setting = list
        .iter()
        .find(|s| s.name == name)
        .expect("a setting of this list");
    match given.iter().find(|(n, _)| *n == name) {
        Some(&(_, text)) => T::from_text(text, &setting.kind).ok_or(SettingError::BadValue {
            setting: *setting,
            value: text,
        }),
        None => Ok(T::from_text(setting.default, &setting.kind)
            .expect("defaults are checked when the program is compiled")),
    }
}

/// Whether `given` (name and value pairs) are settings of `list`, each
/// given once, each with a value its kind takes.
pub fn check<'a, 's>(
    list: &'s [Setting<'s>],
    given: &[(&'a str, &'a str)],
) -> Result<(), SettingError<'a, 's>> {
    for (i, &(name, value)) in given.iter().enumerate() {
        if given[..i].iter().any(|(n, _)| *n == name) {
            return Err(SettingError::Twice { name });
        }
        let Some(setting) = list.iter().find(|s| s.name == name) else {
            return Err(SettingError::Unknown {
                name,
                value,
                known: list,
            });
        };
        if setting.kind.value(value).is_none() {
            return Err(SettingError::BadValue {
                setting: *setting,
                value,
            });
        }
    }
    Ok(())
}

/// Whether the core counts among `given` (settings of `list` that [`check`]
/// took) are at most `cores`, the run's core count.
pub fn check_cores<'a, 's>(
    list: &'s [Setting<'s>],
    given: &[(&'a str, &'a str)],
    cores: u32,
) -> Result<(), SettingError<'a, 's>> {
    for &(name, value) in given {
        let Some(setting) = list.iter().find(|s| s.name == name) else {
            continue;
        };
        if let Kind::Cores { .. } = setting.kind
            && setting
                .kind
                .value(value)
                .is_some_and(|n| n > u64::from(cores))
        {
            return Err(SettingError::MoreThanCores {
                setting: *setting,
                value,
                cores,
            });
        }
    }
    Ok(())
}

/// Why given settings were refused. `'a` is the given text's lifetime,
/// `'s` the declaration's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingError<'a, 's> {
    /// The program has no setting of that name.
    Unknown {
        /// The name given.
        name: &'a str,
        /// The value given.
        value: &'a str,
        /// The settings it has.
        known: &'s [Setting<'s>],
    },
    /// The setting was given twice.
    Twice {
        /// Its name.
        name: &'a str,
    },
    /// The setting does not take that value.
    BadValue {
        /// The setting.
        setting: Setting<'s>,
        /// The value given.
        value: &'a str,
    },
    /// A core-count setting asks for more cores than the run has.
    MoreThanCores {
        /// The setting.
        setting: Setting<'s>,
        /// The value given.
        value: &'a str,
        /// The run's core count.
        cores: u32,
    },
}

impl fmt::Display for SettingError<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown {
                name,
                value,
                known: [],
            } => {
                write!(f, "unknown setting {name}={value}: the program takes none")
            }
            Self::Unknown { name, value, known } => {
                write!(f, "unknown setting {name}={value}; the settings are: ")?;
                for (i, s) in known.iter().enumerate() {
                    write!(f, "{}{}", if i > 0 { ", " } else { "" }, s.name)?;
                }
                Ok(())
            }
            Self::Twice { name } => write!(f, "setting {name} is given twice"),
            Self::BadValue { setting, value } => {
                write!(
                    f,
                    "{}={value}: {} must be {}",
                    setting.name, setting.name, setting.kind
                )
            }
            Self::MoreThanCores {
                setting,
                value,
                cores,
            } => write!(
                f,
                "{}={value}: the run has only {cores} core(s); boot at least {value} or ask for fewer",
                setting.name
            ),
        }
    }
}

/// Declares a program's settings as one struct: each field is a setting
/// of the same name, with its doc comment as help and a [`Spec`]
/// ([`integer`], [`bytes`] or [`choice`]) giving its kind and default.
///
/// ```
/// use chip::settings::{Settings, choice, integer};
/// chip::settings! {
///     /// The settings of a demonstration.
///     pub struct Demo {
///         /// How many rounds.
///         rounds: u32 = integer(1..=100, "10"),
///         /// Whether to print each round.
///         verbose: bool = choice::<bool>("off"),
///     }
/// }
/// let demo = Demo::parse(&[("rounds", "3")]).unwrap();
/// assert_eq!(demo, Demo { rounds: 3, verbose: false });
/// assert_eq!(Demo::LIST[0].about, "How many rounds.");
/// ```
#[macro_export]
macro_rules! settings {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $field:ident : $ty:ty = $spec:expr
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis struct $name {
            $( $(#[doc = $doc])+ pub $field: $ty, )*
        }

        impl $crate::settings::Settings for $name {
            const LIST: &'static [$crate::settings::Setting<'static>] = &[
                $( $crate::settings::Setting::new(
                    stringify!($field),
                    concat!($($doc),+),
                    $spec,
                ), )*
            ];

            fn parse<'a>(
                given: &[(&'a str, &'a str)],
            ) -> ::core::result::Result<Self, $crate::settings::SettingError<'a, 'static>> {
                $crate::settings::check(Self::LIST, given)?;
                ::core::result::Result::Ok(Self {
                    $( $field: $crate::settings::value(Self::LIST, stringify!($field), given)?, )*
                })
            }
        }
    };
}

/// A program as the run tool knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declaration<'a> {
    /// Name given to `cargo xtask run --program`.
    pub name: &'a str,
    /// One line on what it shows.
    pub about: &'a str,
    /// The settings it takes.
    pub settings: &'a [Setting<'a>],
}

/// Where the program a command line names is among an app's programs,
/// given their `names` in declaration order: the one called `name`, or the
/// first when no name is given. The kernel and the run tool both choose
/// with it.
pub fn position<'a>(mut names: impl Iterator<Item = &'a str>, name: Option<&str>) -> Option<usize> {
    match name {
        None => names.next().map(|_| 0),
        Some(name) => names.position(|n| n == name),
    }
}

/// The ELF section an image's declarations are in ([`encode`]).
pub const SECTION: &str = ".scc_programs";

/// What the section starts with: its format and version.
pub const MAGIC: &[u8; 8] = b"SCCPROG1";

/// Kind tags in the encoding.
const INTEGER: u8 = 1;
const BYTES: u8 = 2;
const CORES: u8 = 5;
const CHOICE: u8 = 3;
const WORDS: u8 = 4;

/// Bytes [`encode`] writes for `programs`.
///
/// The format: [`MAGIC`], then the number of programs; per program its
/// name, about and number of settings; per setting its name, about,
/// default and kind: a tag, then for numbers `min` and `max` (u64), for
/// choices the number of names and each name. Counts are u32, strings a
/// u32 length and UTF-8 bytes, all little-endian.
pub const fn encoded_len(programs: &[Declaration<'_>]) -> usize {
    let mut len = MAGIC.len() + 4;
    let mut p = 0;
    while p < programs.len() {
        let program = &programs[p];
        len += 4 + program.name.len() + 4 + program.about.len() + 4;
        let mut s = 0;
        while s < program.settings.len() {
            let setting = &program.settings[s];
            len += 4 + setting.name.len() + 4 + setting.about.len() + 4 + setting.default.len();
            len += 1 + match setting.kind {
                Kind::Integer { .. } | Kind::Bytes { .. } | Kind::Cores { .. } => 16,
                Kind::Words => 0,
                Kind::Choice(Names::List(names)) => {
                    let mut n = 4;
                    let mut i = 0;
                    while i < names.len() {
                        n += 4 + names[i].len();
                        i += 1;
                    }
                    n
                }
                Kind::Choice(Names::Encoded(_)) => panic!("only declared names are encoded"),
            };
            s += 1;
        }
        p += 1;
    }
    len
}

/// A `const` writer for [`encode`].
struct Writer<const N: usize> {
    bytes: [u8; N],
    at: usize,
}

impl<const N: usize> Writer<N> {
    const fn put(mut self, bytes: &[u8]) -> Self {
        let mut i = 0;
        while i < bytes.len() {
            self.bytes[self.at] = bytes[i];
            self.at += 1;
            i += 1;
        }
        self
    }

    const fn count(self, n: usize) -> Self {
        self.put(&(n as u32).to_le_bytes())
    }

    const fn text(self, s: &str) -> Self {
        self.count(s.len()).put(s.as_bytes())
    }
}

/// `programs` in the section's format ([`encoded_len`]); `N` must be
/// `encoded_len(programs)`.
///
/// # Panics
/// At compile time in a `const`, if `N` is not that length.
pub const fn encode<const N: usize>(programs: &[Declaration<'_>]) -> [u8; N] {
    assert!(
        N == encoded_len(programs),
        "N must be encoded_len(programs)"
    );
    let mut w = Writer {
        bytes: [0; N],
        at: 0,
    };
    w = w.put(MAGIC).count(programs.len());
    let mut p = 0;
    while p < programs.len() {
        let program = &programs[p];
        w = w
            .text(program.name)
            .text(program.about)
            .count(program.settings.len());
        let mut s = 0;
        while s < program.settings.len() {
            let setting = &program.settings[s];
            w = w
                .text(setting.name)
                .text(setting.about)
                .text(setting.default);
            w = match setting.kind {
                Kind::Integer { min, max } => w
                    .put(&[INTEGER])
                    .put(&min.to_le_bytes())
                    .put(&max.to_le_bytes()),
                Kind::Bytes { min, max } => w
                    .put(&[BYTES])
                    .put(&min.to_le_bytes())
                    .put(&max.to_le_bytes()),
                Kind::Cores { min, max } => w
                    .put(&[CORES])
                    .put(&min.to_le_bytes())
                    .put(&max.to_le_bytes()),
                Kind::Words => w.put(&[WORDS]),
                Kind::Choice(Names::List(names)) => {
                    w = w.put(&[CHOICE]).count(names.len());
                    let mut i = 0;
                    while i < names.len() {
                        w = w.text(names[i]);
                        i += 1;
                    }
                    w
                }
                Kind::Choice(Names::Encoded(_)) => panic!("only declared names are encoded"),
            };
            s += 1;
        }
        p += 1;
    }
    w.bytes
}

/// A program read back by [`decode`]; [`Decoded::declaration`] views it
/// as a [`Declaration`].
#[cfg(any(test, feature = "alloc"))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// Its name.
    pub name: &'a str,
    /// One line on what it shows.
    pub about: &'a str,
    /// Its settings.
    pub settings: alloc::vec::Vec<Setting<'a>>,
}

#[cfg(any(test, feature = "alloc"))]
impl Decoded<'_> {
    /// This program as a declaration.
    pub fn declaration(&self) -> Declaration<'_> {
        Declaration {
            name: self.name,
            about: self.about,
            settings: &self.settings,
        }
    }
}

/// Why a section could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// It does not start with [`MAGIC`]: another format or version.
    Magic,
    /// It ends inside an item.
    Truncated,
    /// A string is not UTF-8.
    Text,
    /// An unknown kind tag.
    Kind(u8),
    /// Bytes follow the last program.
    Trailing,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Magic => write!(
                f,
                "it does not start with {:?}: built by another version of the kernel?",
                core::str::from_utf8(MAGIC).unwrap_or("?")
            ),
            Self::Truncated => write!(f, "it ends inside a declaration"),
            Self::Text => write!(f, "a name or help text is not valid"),
            Self::Kind(tag) => write!(f, "unknown kind of setting {tag}"),
            Self::Trailing => write!(f, "bytes follow the last program"),
        }
    }
}

/// A reader for [`decode`].
#[cfg(any(test, feature = "alloc"))]
struct Reader<'a> {
    bytes: &'a [u8],
}

#[cfg(any(test, feature = "alloc"))]
impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() < n {
            return Err(DecodeError::Truncated);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<usize, DecodeError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    fn u64(&mut self) -> Result<u64, DecodeError> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    fn text(&mut self) -> Result<&'a str, DecodeError> {
        let n = self.u32()?;
        core::str::from_utf8(self.take(n)?).map_err(|_| DecodeError::Text)
    }
}

/// The declarations [`encode`] wrote into `bytes`.
#[cfg(any(test, feature = "alloc"))]
pub fn decode(bytes: &[u8]) -> Result<alloc::vec::Vec<Decoded<'_>>, DecodeError> {
    let mut r = Reader { bytes };
    if r.take(MAGIC.len()).map_err(|_| DecodeError::Magic)? != MAGIC {
        return Err(DecodeError::Magic);
    }
    let mut programs = alloc::vec::Vec::new();
    for _ in 0..r.u32()? {
        let name = r.text()?;
        let about = r.text()?;
        let mut settings = alloc::vec::Vec::new();
        for _ in 0..r.u32()? {
            let name = r.text()?;
            let about = r.text()?;
            let default = r.text()?;
            let kind = match r.take(1)?[0] {
                INTEGER => Kind::Integer {
                    min: r.u64()?,
                    max: r.u64()?,
                },
                BYTES => Kind::Bytes {
                    min: r.u64()?,
                    max: r.u64()?,
                },
                CORES => Kind::Cores {
                    min: r.u64()?,
                    max: r.u64()?,
                },
                CHOICE => {
                    // The names stay where they are, each after its length,
                    // checked here once.
                    let count = r.u32()?;
                    let start = r.bytes;
                    let mut len = 0;
                    for _ in 0..count {
                        len += 4 + r.text()?.len();
                    }
                    Kind::Choice(Names::Encoded(&start[..len]))
                }
                WORDS => Kind::Words,
                tag => return Err(DecodeError::Kind(tag)),
            };
            settings.push(Setting {
                name,
                about,
                kind,
                default,
            });
        }
        programs.push(Decoded {
            name,
            about,
            settings,
        });
    }
    if !r.bytes.is_empty() {
        return Err(DecodeError::Trailing);
    }
    Ok(programs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_travel_as_one_blank_free_value() {
        let cases: &[&[&str]] = &[
            &[],
            &[""],
            &["a b", "c"],
            &["100%", "x=y,z", "é\t\n"],
            &["", ""],
        ];
        for &list in cases {
            let text = words::encode(list).unwrap();
            assert!(
                !text.contains(char::is_whitespace) && !text.is_empty(),
                "{text}"
            );
            let back = words::decode(&text).unwrap();
            let back: alloc::vec::Vec<&str> = back
                .iter()
                .map(|w| core::str::from_utf8(w).unwrap())
                .collect();
            assert_eq!(back, list, "{text}");
            assert_eq!(words::count(&text), Some(list.len() as u32));
            assert_eq!(Kind::Words.value(&text), Some(list.len() as u64));
        }
        assert_eq!(words::encode(&["a b", "c"]).unwrap(), "2,a%20b,c");
        assert_eq!(words::encode(&["a", "b\0"]), Err("b\0"));
    }

    #[test]
    fn text_not_in_the_words_form_is_refused() {
        for bad in [
            "", "x", "00", "01,a", "1", "1,a,b", "2,a", "1,a b", "1,%2", "1,%zz", "1,%2a", "1,%00",
            "0,",
        ] {
            assert_eq!(words::count(bad), None, "{bad:?}");
            assert_eq!(words::decode(bad), None, "{bad:?}");
        }
        assert_eq!(Kind::Words.value("x"), None);
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Colour {
        Red,
        Green,
    }

    impl Choice for Colour {
        const ALL: &'static [Self] = &[Self::Red, Self::Green];
        const NAMES: &'static [&'static str] = &["red", "green"];
    }

    crate::settings! {
        /// Settings for the tests.
        struct Demo {
            /// How many.
            count: u32 = integer(1..=47, "11"),
            /// Bytes per value,
            /// on two lines.
            size: usize = bytes(4..=(1 << 20), "32"),
            /// The colour.
            colour: Colour = choice::<Colour>("green"),
            /// Loud or not.
            loud: bool = choice::<bool>("on"),
        }
    }

    crate::settings! {
        /// A core count, for the tests.
        struct Procs {
            /// Processes, 0 for every core.
            procs: u32 = cores(0..=255, "0"),
        }
    }

    const PROGRAMS: &[Declaration<'static>] = &[
        Declaration {
            name: "plain",
            about: "no settings",
            settings: &[],
        },
        Declaration {
            name: "demo",
            about: "all kinds",
            settings: Demo::LIST,
        },
        Declaration {
            name: "procs",
            about: "a core count",
            settings: Procs::LIST,
        },
    ];

    #[test]
    fn a_core_count_is_at_most_the_runs_cores() {
        let list = Procs::LIST;
        assert_eq!(Procs::parse(&[("procs", "5")]).unwrap().procs, 5);
        assert_eq!(check_cores(list, &[("procs", "5")], 8), Ok(()));
        assert_eq!(check_cores(list, &[("procs", "2")], 2), Ok(()));
        assert_eq!(check_cores(list, &[], 1), Ok(()));
        assert_eq!(
            check_cores(list, &[("procs", "5")], 2)
                .unwrap_err()
                .to_string(),
            "procs=5: the run has only 2 core(s); boot at least 5 or ask for fewer"
        );
        // Other kinds are not core counts.
        assert_eq!(check_cores(Demo::LIST, &[("count", "40")], 2), Ok(()));
        assert_eq!(
            list[0].kind.to_string(),
            "a number of cores in 0..=255, at most the run's core count"
        );
    }

    #[test]
    fn defaults_fill_what_is_not_given() {
        assert_eq!(
            Demo::parse(&[]).unwrap(),
            Demo {
                count: 11,
                size: 32,
                colour: Colour::Green,
                loud: true
            }
        );
        assert_eq!(
            Demo::parse(&[("size", "4KiB"), ("colour", "red"), ("loud", "off")]).unwrap(),
            Demo {
                count: 11,
                size: 4096,
                colour: Colour::Red,
                loud: false
            }
        );
        assert_eq!(Demo::parse(&[("size", "1M")]).unwrap().size, 1 << 20);
    }

    #[test]
    fn the_doc_comment_is_the_help() {
        assert_eq!(Demo::LIST[0].name, "count");
        assert_eq!(Demo::LIST[0].about, "How many.");
        assert_eq!(Demo::LIST[1].about, "Bytes per value, on two lines.");
        assert_eq!(
            Demo::LIST[2].kind,
            Kind::Choice(Names::List(&["red", "green"]))
        );
    }

    #[test]
    fn bad_settings_are_named() {
        let message = |given: &[(&str, &str)]| Demo::parse(given).unwrap_err().to_string();
        assert_eq!(
            message(&[("count", "48")]),
            "count=48: count must be a whole number in 1..=47"
        );
        assert_eq!(
            message(&[("count", "-1")]),
            "count=-1: count must be a whole number in 1..=47"
        );
        assert_eq!(
            message(&[("count", "99999999999999999999999")]),
            "count=99999999999999999999999: count must be a whole number in 1..=47"
        );
        assert_eq!(
            message(&[("size", "2M")]),
            "size=2M: size must be a number of bytes in 4..=1048576 (suffix K, KiB, M or MiB allowed)"
        );
        assert_eq!(
            message(&[("count", "1K")]),
            "count=1K: count must be a whole number in 1..=47"
        );
        assert_eq!(
            message(&[("colour", "blue")]),
            "colour=blue: colour must be one of red, green"
        );
        assert_eq!(
            message(&[("shape", "round")]),
            "unknown setting shape=round; the settings are: count, size, colour, loud"
        );
        assert_eq!(
            message(&[("loud", "on"), ("loud", "off")]),
            "setting loud is given twice"
        );
        assert_eq!(
            <()>::parse(&[("x", "1")]).unwrap_err().to_string(),
            "unknown setting x=1: the program takes none"
        );
    }

    #[test]
    fn names_come_from_the_type() {
        assert_eq!(name_of(Colour::Green), "green");
        assert_eq!(name_of(true), "on");
        assert_eq!(
            Colour::from_text("red", &Demo::LIST[2].kind),
            Some(Colour::Red)
        );
    }

    #[test]
    fn declarations_survive_the_section() {
        const LEN: usize = encoded_len(PROGRAMS);
        const BYTES: [u8; LEN] = encode(PROGRAMS);
        let decoded = decode(&BYTES).unwrap();
        assert_eq!(decoded.len(), 3);
        for (back, sent) in decoded.iter().zip(PROGRAMS) {
            let back = back.declaration();
            assert_eq!((back.name, back.about), (sent.name, sent.about));
            assert_eq!(back.settings.len(), sent.settings.len());
            for (b, s) in back.settings.iter().zip(sent.settings) {
                assert_eq!((b.name, b.about, b.default), (s.name, s.about, s.default));
                match (b.kind, s.kind) {
                    (Kind::Choice(b), Kind::Choice(s)) => {
                        assert!(b.iter().eq(s.iter()));
                        assert_eq!(b.to_string(), s.to_string());
                    }
                    (b, s) => assert_eq!(b, s),
                }
            }
        }
        // A decoded declaration checks settings as the declared one does.
        let demo = decoded[1].declaration();
        assert_eq!(check(demo.settings, &[("colour", "green")]), Ok(()));
        assert_eq!(
            check(demo.settings, &[("colour", "blue")])
                .unwrap_err()
                .to_string(),
            "colour=blue: colour must be one of red, green"
        );
    }

    #[test]
    fn damaged_sections_are_refused() {
        const LEN: usize = encoded_len(PROGRAMS);
        const BYTES: [u8; LEN] = encode(PROGRAMS);
        assert_eq!(decode(b"SCCPROG0"), Err(DecodeError::Magic));
        assert_eq!(decode(b"SCC"), Err(DecodeError::Magic));
        assert_eq!(decode(&BYTES[..LEN - 1]), Err(DecodeError::Truncated));
        let mut longer = BYTES.to_vec();
        longer.push(0);
        assert_eq!(decode(&longer), Err(DecodeError::Trailing));
    }

    #[test]
    fn the_named_program_or_the_first_is_chosen() {
        let names = ["ring", "dht"];
        assert_eq!(position(names.into_iter(), None), Some(0));
        assert_eq!(position(names.into_iter(), Some("dht")), Some(1));
        assert_eq!(position(names.into_iter(), Some("x")), None);
        assert_eq!(position([].into_iter(), None), None);
    }

    #[test]
    fn numbers_parse_as_documented() {
        assert_eq!(parse_number(b"0", false), Some(0));
        assert_eq!(parse_number(b"", false), None);
        assert_eq!(parse_number(b"K", true), None);
        assert_eq!(parse_number(b"2K", true), Some(2048));
        assert_eq!(parse_number(b"3MiB", true), Some(3 << 20));
        assert_eq!(parse_number(b"3MB", true), None);
        assert_eq!(parse_number(b"3 K", true), None);
        assert_eq!(parse_number(b"18446744073709551615", false), Some(u64::MAX));
        assert_eq!(parse_number(b"18446744073709551616", false), None);
        assert_eq!(parse_number(b"18014398509481984K", true), None);
    }
}
