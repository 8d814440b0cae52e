// SPDX-License-Identifier: MIT OR Apache-2.0
//! Statistics that a layer in the guest keeps itself (the shared-memory
//! services, say) and reports at the end of a run that asked for them
//! (`stats=on` on the kernel's command line, `cargo xtask run --stats`):
//! one serial line per row,
//!
//! ```text
//! STATS <table> <row> <key>=<value> ...
//! ```
//!
//! `<table>` and `<row>` are words (no blank, no `=`), the keys words, the
//! values unsigned decimals. The run tool gathers every core's rows into
//! one table per name, a row per core and row name, beside the chip
//! model's counters.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

/// The first word of a statistics line.
pub const PREFIX: &str = "STATS";

/// One row of a table of statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<'a> {
    /// The table's name.
    pub table: &'a str,
    /// The row's name.
    pub row: &'a str,
    /// Its values, in the order written.
    pub values: Vec<(&'a str, u64)>,
}

impl<'a> Row<'a> {
    /// The line that reports this row (see the module docs).
    ///
    /// Return values: `Err(word)` with a name that is not a word.
    pub fn line(&self) -> Result<String, &'a str> {
        let mut line = String::from(PREFIX);
        for name in [self.table, self.row] {
            word(name)?;
            line.push(' ');
            line.push_str(name);
        }
        for &(key, value) in &self.values {
            word(key)?;
            // Writing into a String cannot fail.
            let _ = write!(line, " {key}={value}");
        }
        Ok(line)
    }

    /// The row a line reports, or `None` if the line is not a
    /// statistics line (does not start with [`PREFIX`] and a blank).
    ///
    /// Return values: `Some(Err(word))` with the first word that is not
    /// as the module docs say.
    pub fn parse(line: &'a str) -> Option<Result<Self, &'a str>> {
        let rest = line.strip_prefix(PREFIX)?.strip_prefix(' ')?;
        let mut words = rest.split(' ');
        let mut name = || match words.next() {
            Some(w) if word(w).is_ok() => Ok(w),
            Some(w) => Err(w),
            None => Err(line),
        };
        let (table, row) = match (name(), name()) {
            (Ok(t), Ok(r)) => (t, r),
            (Err(w), _) | (_, Err(w)) => return Some(Err(w)),
        };
        let mut values = Vec::new();
        for w in words {
            match w
                .split_once('=')
                .and_then(|(k, v)| Some((k, v.parse::<u64>().ok()?)))
            {
                Some((k, v)) if word(k).is_ok() => values.push((k, v)),
                _ => return Some(Err(w)),
            }
        }
        Some(Ok(Self { table, row, values }))
    }
}

/// `Ok` if `text` is a word: not empty, no blank, no `=`.
fn word(text: &str) -> Result<(), &str> {
    if text.is_empty() || text.contains(char::is_whitespace) || text.contains('=') {
        Err(text)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn a_row_reads_back_from_its_line() {
        let row = Row {
            table: "dsm",
            row: "sync_read",
            values: vec![("calls", 3), ("total_cycles", 1200)],
        };
        let line = row.line().unwrap();
        assert_eq!(line, "STATS dsm sync_read calls=3 total_cycles=1200");
        assert_eq!(Row::parse(&line), Some(Ok(row)));
    }

    #[test]
    fn other_lines_are_not_rows_and_bad_words_are_named() {
        assert_eq!(Row::parse("[core 01] STATS"), None);
        assert_eq!(Row::parse("STATISTICS dsm x"), None);
        assert_eq!(Row::parse("STATS dsm"), Some(Err("STATS dsm")));
        assert_eq!(Row::parse("STATS dsm read calls=x"), Some(Err("calls=x")));
        assert_eq!(Row::parse("STATS dsm read calls"), Some(Err("calls")));
        let bad = Row {
            table: "a b",
            row: "r",
            values: vec![],
        };
        assert_eq!(bad.line(), Err("a b"));
    }
}
