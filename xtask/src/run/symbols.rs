// SPDX-License-Identifier: MIT OR Apache-2.0
//! Where the code addresses a report prints lie in the image the run
//! booted: function (demangled), source file and line from the image's
//! DWARF debug information, with the frames the code was inlined into,
//! else the nearest function symbol.
//!
//! A run loads the image once, after its cores are gone, and looks up
//! every address its report will print ([`CodeMap::load`]); the report
//! then prints each address as before, followed by where it lies:
//!
//! ```text
//! at core::ptr::read_volatile (/rustc/.../library/core/src/ptr/mod.rs:2091)
//!   inlined into programs::page_fault::run (apps/programs/src/page_fault.rs:17)
//! ```
//!
//! Files inside the workspace are named relative to its root. An address
//! outside the image's code, or one neither the debug information nor the
//! symbol table knows, has no place and is printed raw.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use addr2line::gimli::{self, EndianSlice, RunTimeEndian};
use anyhow::{Context as _, Result, anyhow};
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

/// One function a code address lies in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The function, demangled; for an address found only in the symbol
    /// table, the symbol with the offset into it (`exception_common+0x5`).
    pub function: Option<String>,
    /// The source file, relative to the workspace root if inside it.
    pub file: Option<String>,
    /// The line in `file`.
    pub line: Option<u32>,
}

/// Where a code address lies: the innermost function first, then each
/// function it was inlined into, out to the one the code belongs to. For
/// an inlined frame, file and line are where the frame before it was
/// inlined (the call site).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// The frames, innermost first; never empty in a [`CodeMap`].
    pub frames: Vec<Frame>,
}

impl Place {
    /// One line per frame: `at FUNCTION (FILE:LINE)` for the innermost,
    /// `  inlined into FUNCTION (FILE:LINE)` for each one around it. A
    /// frame without a known function reads `??`; one without a file has
    /// no parenthesis.
    pub fn lines(&self) -> Vec<String> {
        self.frames
            .iter()
            .enumerate()
            .map(|(i, frame)| {
                let lead = if i == 0 { "at" } else { "  inlined into" };
                format!("{lead} {frame}")
            })
            .collect()
    }
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.function.as_deref().unwrap_or("??"))?;
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, " ({file}:{line})"),
            (Some(file), None) => write!(f, " ({file})"),
            (None, _) => Ok(()),
        }
    }
}

/// The places of a run's code addresses, looked up in its image once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeMap {
    places: BTreeMap<u64, Place>,
}

impl CodeMap {
    /// Reads the ELF file `image` and looks up each of `addresses`; files
    /// under `root` are named relative to it. An image without debug
    /// information still gives its function symbols.
    pub fn load(
        image: &Path,
        root: &Path,
        addresses: impl IntoIterator<Item = u64>,
    ) -> Result<Self> {
        let data =
            std::fs::read(image).with_context(|| format!("cannot read {}", image.display()))?;
        let symbols = Symbols::parse(&data, root)
            .with_context(|| format!("cannot read the symbols of {}", image.display()))?;
        let places = addresses
            .into_iter()
            .filter_map(|address| Some((address, symbols.place(address)?)))
            .collect();
        Ok(Self { places })
    }

    /// Where `address` lies, if the image knows.
    pub fn place(&self, address: u64) -> Option<&Place> {
        self.places.get(&address)
    }

    /// The lines [`Place::lines`] gives for `address`; none if the image
    /// does not know it.
    pub fn lines(&self, address: u64) -> Vec<String> {
        self.place(address).map(Place::lines).unwrap_or_default()
    }
}

impl FromIterator<(u64, Place)> for CodeMap {
    /// A map of the given places, by address.
    fn from_iter<I: IntoIterator<Item = (u64, Place)>>(places: I) -> Self {
        Self {
            places: places.into_iter().collect(),
        }
    }
}

/// Code addresses in a line of guest or QEMU output that the report
/// prints: the hexadecimal number after `EIP ` (the kernel's exception
/// reports) or `instruction ` (the chip model's reasons for stopping a
/// core), in the order they appear.
pub fn code_addresses(line: &str) -> Vec<u64> {
    let mut found = Vec::new();
    for label in ["EIP 0x", "instruction 0x"] {
        for (at, _) in line.match_indices(label) {
            let digits = &line[at + label.len()..];
            let end = digits
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(digits.len());
            if let Ok(address) = u64::from_str_radix(&digits[..end], 16) {
                found.push((at, address));
            }
        }
    }
    found.sort_unstable();
    found.into_iter().map(|(_, address)| address).collect()
}

type Reader<'d> = EndianSlice<'d, RunTimeEndian>;

/// An image's debug information and symbol table, parsed.
struct Symbols<'d> {
    dwarf: addr2line::Context<Reader<'d>>,
    /// Function symbols by address: (address, size, name).
    functions: Vec<(u64, u64, &'d str)>,
    /// Address ranges of the executable sections.
    code: Vec<Range<u64>>,
    root: &'d Path,
}

impl<'d> Symbols<'d> {
    fn parse(data: &'d [u8], root: &'d Path) -> Result<Self> {
        let file = object::File::parse(data)?;
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let section = |id: gimli::SectionId| -> Result<Reader<'d>, gimli::Error> {
            // A missing or compressed section reads as empty: compressed
            // debug information is not supported, and rustc writes none.
            let data = match file
                .section_by_name(id.name())
                .map(|s| s.uncompressed_data())
            {
                Some(Ok(Cow::Borrowed(data))) => data,
                _ => &[],
            };
            Ok(EndianSlice::new(data, endian))
        };
        let dwarf = gimli::Dwarf::load(section)?;
        let dwarf = addr2line::Context::from_dwarf(dwarf)
            .map_err(|e| anyhow!("its debug information is malformed: {e}"))?;
        let mut functions: Vec<(u64, u64, &'d str)> = file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Text && s.is_definition())
            .filter_map(|s| Some((s.address(), s.size(), s.name().ok()?)))
            .filter(|(_, _, name)| !name.is_empty())
            .collect();
        functions.sort_unstable();
        let code = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .map(|s| s.address()..s.address() + s.size())
            .collect();
        Ok(Self {
            dwarf,
            functions,
            code,
            root,
        })
    }

    /// Where `address` lies: from the debug information, else from the
    /// function symbol that holds it; `None` outside the code.
    fn place(&self, address: u64) -> Option<Place> {
        if !self.code.iter().any(|r| r.contains(&address)) {
            return None;
        }
        let frames = self.frames(address);
        if !frames.is_empty() {
            return Some(Place { frames });
        }
        let function = self.symbol(address)?;
        Some(Place {
            frames: vec![Frame {
                function: Some(function),
                file: None,
                line: None,
            }],
        })
    }

    /// The debug information's frames of `address`, innermost first;
    /// empty if it has none (or cannot be read there).
    fn frames(&self, address: u64) -> Vec<Frame> {
        let mut frames = Vec::new();
        let Ok(mut iter) = self.dwarf.find_frames(address).skip_all_loads() else {
            return frames;
        };
        while let Ok(Some(frame)) = iter.next() {
            let function = frame
                .function
                .as_ref()
                .and_then(|name| name.demangle().ok())
                .map(Cow::into_owned);
            let location = frame.location.as_ref();
            let file = location
                .and_then(|l| l.file)
                .map(|file| self.relative(file));
            let line = location.and_then(|l| l.line);
            if function.is_some() || file.is_some() {
                frames.push(Frame {
                    function,
                    file,
                    line,
                });
            }
        }
        frames
    }

    /// The function symbol holding `address`, demangled, with the offset
    /// into it when not at its start. A symbol without a size (an
    /// assembly label) holds everything up to the next one.
    fn symbol(&self, address: u64) -> Option<String> {
        let after = self
            .functions
            .partition_point(|(start, _, _)| *start <= address);
        let &(start, size, name) = self.functions[..after].last()?;
        if size != 0 && address - start >= size {
            return None;
        }
        let name = addr2line::demangle_auto(Cow::Borrowed(name), None);
        Some(match address - start {
            0 => name.into_owned(),
            offset => format!("{name}+{offset:#x}"),
        })
    }

    /// `file` relative to the workspace root if inside it.
    fn relative(&self, file: &str) -> String {
        match Path::new(file).strip_prefix(self.root) {
            Ok(inside) => inside.display().to_string(),
            Err(_) => file.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(function: Option<&str>, file: Option<&str>, line: Option<u32>) -> Frame {
        Frame {
            function: function.map(String::from),
            file: file.map(String::from),
            line,
        }
    }

    #[test]
    fn a_place_reads_one_line_per_frame_innermost_first() {
        let place = Place {
            frames: vec![
                frame(
                    Some("core::ptr::read_volatile"),
                    Some("/rustc/x/library/core/src/ptr/mod.rs"),
                    Some(2091),
                ),
                frame(
                    Some("programs::page_fault::run"),
                    Some("apps/programs/src/page_fault.rs"),
                    Some(17),
                ),
            ],
        };
        assert_eq!(
            place.lines(),
            [
                "at core::ptr::read_volatile (/rustc/x/library/core/src/ptr/mod.rs:2091)",
                "  inlined into programs::page_fault::run (apps/programs/src/page_fault.rs:17)",
            ]
        );
        let partial = Place {
            frames: vec![
                frame(Some("exception_common+0x5"), None, None),
                frame(None, Some("kernel/src/lib.rs"), None),
            ],
        };
        assert_eq!(
            partial.lines(),
            [
                "at exception_common+0x5",
                "  inlined into ?? (kernel/src/lib.rs)"
            ]
        );
    }

    #[test]
    fn code_addresses_are_found_after_their_labels_in_order() {
        assert_eq!(
            code_addresses(
                "EXCEPTION on core 7: page fault (vector 14), error code 0x0, EIP 0x1034a2, CR2 0xbf000000"
            ),
            [0x1034a2]
        );
        assert_eq!(
            code_addresses(
                "emu: core 0: Load at 0x96000000 (instruction 0x00102345): LUT entry 150 targets x, EIP 0x10"
            ),
            [0x102345, 0x10]
        );
        assert_eq!(
            code_addresses("EIP 0x, instruction 0xzz, 0x1234"),
            [0u64; 0]
        );
    }

    /// A function of this test binary that is surely not inlined, to look
    /// up.
    #[inline(never)]
    fn a_function_to_look_up() -> u32 {
        std::hint::black_box(7)
    }

    /// The address of [`a_function_to_look_up`] in this test binary's
    /// file (not where it is loaded), from its symbol table.
    fn address_of_the_function_to_look_up(data: &[u8]) -> u64 {
        let file = object::File::parse(data).unwrap();
        let found: Vec<u64> = file
            .symbols()
            .filter(|s| {
                s.name().is_ok_and(|name| {
                    addr2line::demangle_auto(Cow::Borrowed(name), None)
                        .ends_with("symbols::tests::a_function_to_look_up")
                })
            })
            .map(|s| s.address())
            .collect();
        assert_eq!(found.len(), 1, "{found:x?}");
        found[0]
    }

    #[test]
    fn an_address_of_this_test_binary_names_its_function_file_and_line() {
        assert_eq!(a_function_to_look_up(), 7);
        let binary = std::env::current_exe().unwrap();
        let data = std::fs::read(&binary).unwrap();
        let start = address_of_the_function_to_look_up(&data);
        let root = crate::workspace_root();
        let code = CodeMap::load(&binary, root, [start, start + 1, 0, u64::MAX]).unwrap();

        let place = code.place(start).expect("the function is in the code");
        let outer = place.frames.last().unwrap();
        assert_eq!(
            outer.function.as_deref(),
            Some("xtask::run::symbols::tests::a_function_to_look_up"),
            "{place:?}"
        );
        assert_eq!(
            outer.file.as_deref(),
            Some("xtask/src/run/symbols.rs"),
            "{place:?}"
        );
        let line = outer.line.expect("a line");
        let source = include_str!("symbols.rs");
        let text = source.lines().nth(line as usize - 1).unwrap();
        assert!(
            text.contains("fn a_function_to_look_up"),
            "line {line}: {text}"
        );
        assert_eq!(
            code.lines(start)[0],
            format!(
                "at xtask::run::symbols::tests::a_function_to_look_up (xtask/src/run/symbols.rs:{line})"
            )
        );
        // Inside the function, still the function.
        let inside = code.place(start + 1).expect("inside the function");
        assert_eq!(inside.frames.last().unwrap().function, outer.function);
        // Outside the code, nothing: such an address is printed raw.
        assert_eq!(code.place(0), None);
        assert_eq!(code.place(u64::MAX), None);
        assert!(code.lines(0).is_empty());
    }

    #[test]
    fn the_symbol_table_names_code_the_debug_information_does_not_cover() {
        let binary = std::env::current_exe().unwrap();
        let data = std::fs::read(&binary).unwrap();
        let start = address_of_the_function_to_look_up(&data);
        let root = Path::new("/nowhere");
        let symbols = Symbols::parse(&data, root).unwrap();
        let name = "xtask::run::symbols::tests::a_function_to_look_up";
        assert_eq!(symbols.symbol(start).as_deref(), Some(name));
        assert_eq!(
            symbols.symbol(start + 2).as_deref(),
            Some(&*format!("{name}+0x2"))
        );
        // Files outside the root keep their full path.
        let place = symbols.place(start).unwrap();
        let file = place.frames.last().unwrap().file.clone().unwrap();
        assert!(
            file.starts_with('/') && file.ends_with("xtask/src/run/symbols.rs"),
            "{file}"
        );
    }

    #[test]
    fn a_missing_image_is_an_error_naming_it() {
        let e = CodeMap::load(Path::new("/nonexistent/image"), Path::new("/"), [1]).unwrap_err();
        assert!(
            format!("{e:#}").starts_with("cannot read /nonexistent/image"),
            "{e:#}"
        );
        let text = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(text.path(), "not an ELF file").unwrap();
        let e = CodeMap::load(text.path(), Path::new("/"), [1]).unwrap_err();
        assert!(
            format!("{e:#}").starts_with("cannot read the symbols of"),
            "{e:#}"
        );
    }
}
