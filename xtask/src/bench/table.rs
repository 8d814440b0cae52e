// SPDX-License-Identifier: MIT OR Apache-2.0
//! Text tables in the layout of the OSU micro-benchmarks: a `# OSU ...`
//! title line, further `#` lines saying what was measured (OSU's
//! `# Window creation: ...`, `# Synchronization: ...`), a `#` header line,
//! then the rows, the first column left-aligned in 10 characters and the
//! others right-aligned in 20, as OSU prints `%-10d%20.2f`. Tools that read
//! OSU output, and plotting tools that skip `#` lines, read them as data.
//!
//! An empty cell is a value that is missing: `-` in the text and in
//! Markdown, empty in CSV.

use std::fmt;

/// What a missing value shows as in text and Markdown.
pub const MISSING: &str = "-";

/// Width of the first column, as OSU prints it.
const FIRST_WIDTH: usize = 10;

/// Width of every other column, OSU's `FIELD_WIDTH`.
const FIELD_WIDTH: usize = 20;

/// A cell as text shows it.
fn shown(cell: &str) -> &str {
    if cell.is_empty() { MISSING } else { cell }
}

/// One table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// What it measures: the first line, `# OSU MPI-style <title>`.
    pub title: String,
    /// Further `#` lines: units, how the values were summarised.
    pub notes: Vec<String>,
    /// The column names.
    pub header: Vec<String>,
    /// The cells, row by row, as many as header names; empty when missing.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table.
    pub fn new(title: impl Into<String>, header: &[&str]) -> Self {
        Self {
            title: title.into(),
            notes: Vec::new(),
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Each column's width in the text: at least OSU's, and one space
    /// more than its widest cell (the header's first with its `# `).
    fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self
            .header
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let h = h.chars().count();
                if i == 0 {
                    FIRST_WIDTH.max(h + 3)
                } else {
                    FIELD_WIDTH.max(h + 1)
                }
            })
            .collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(shown(cell).chars().count() + 1);
            }
        }
        widths
    }

    /// The table in Markdown, for the report.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        out += &format!("| {} |\n", self.header.join(" | "));
        let rule: Vec<&str> = (0..self.header.len())
            .map(|i| if i == 0 { "---" } else { "---:" })
            .collect();
        out += &format!("|{}|\n", rule.join("|"));
        for row in &self.rows {
            let cells: Vec<&str> = row.iter().map(|c| shown(c)).collect();
            out += &format!("| {} |\n", cells.join(" | "));
        }
        out
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# OSU MPI-style {}", self.title)?;
        for note in &self.notes {
            writeln!(f, "# {note}")?;
        }
        let widths = self.widths();
        let line = |f: &mut fmt::Formatter<'_>, cells: &[&str]| -> fmt::Result {
            let mut text = String::new();
            for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
                if i == 0 {
                    text += &format!("{cell:<w$}");
                } else {
                    text += &format!("{cell:>w$}");
                }
            }
            writeln!(f, "{}", text.trim_end())
        };
        let mut header: Vec<&str> = self.header.iter().map(String::as_str).collect();
        let first = format!("# {}", header.first().copied().unwrap_or_default());
        if let Some(h) = header.first_mut() {
            *h = &first;
        }
        line(f, &header)?;
        for row in &self.rows {
            let cells: Vec<&str> = row.iter().map(|c| shown(c)).collect();
            line(f, &cells)?;
        }
        Ok(())
    }
}

/// A number with `digits` decimals, or an empty cell for a value that is
/// not finite.
pub fn num(value: f64, digits: usize) -> String {
    if value.is_finite() {
        format!("{value:.digits$}")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_as_osu_prints_them() {
        let mut t = Table::new("Put Latency Test", &["Size", "Latency (us)"]);
        t.notes.push("median of 10 samples".into());
        t.rows.push(vec!["1".into(), "1.50".into()]);
        t.rows.push(vec!["1024".into(), "12.25".into()]);
        t.rows.push(vec!["2048".into(), String::new()]);
        assert_eq!(
            t.to_string(),
            "# OSU MPI-style Put Latency Test\n\
             # median of 10 samples\n\
             # Size            Latency (us)\n\
             1                         1.50\n\
             1024                     12.25\n\
             2048                         -\n"
        );
        // OSU's own `%-10s%20s` header and `%-10d%20.2f` rows.
        let lines: Vec<String> = t.to_string().lines().map(str::to_owned).collect();
        assert_eq!(lines[2], format!("{:<10}{:>20}", "# Size", "Latency (us)"));
        assert_eq!(lines[4], format!("{:<10}{:>20.2}", 1024, 12.25));
        assert_eq!(
            t.markdown(),
            "| Size | Latency (us) |\n|---|---:|\n| 1 | 1.50 |\n| 1024 | 12.25 |\n| 2048 | - |\n"
        );
        assert_eq!(num(f64::NAN, 2), "");
        assert_eq!(num(2.0, 1), "2.0");
    }

    #[test]
    fn wide_cells_keep_a_space_between_columns() {
        let mut t = Table::new("T", &["program", "a column header wider than 20"]);
        t.rows.push(vec!["identity-finished".into(), "1".into()]);
        let text = t.to_string();
        let lines: Vec<&str> = text.lines().collect();
        // The first column one wider than its widest cell, the second one
        // wider than its header.
        assert_eq!(
            lines[1],
            format!("{:<18}{:>30}", "# program", "a column header wider than 20")
        );
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["identity-finished", "1"]
        );
    }
}
