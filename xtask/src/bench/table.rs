// SPDX-License-Identifier: MIT OR Apache-2.0
//! Text tables in the style of the OSU micro-benchmarks: `#` lines saying
//! what was measured, a `#` header line, then aligned columns, so that the
//! output reads like the OSU and IMB output the literature quotes and
//! plotting tools that skip `#` lines read it as data.

use std::fmt;

/// One table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// What it measures: the first line, `# OSU MPI-style <title>`.
    pub title: String,
    /// Further `#` lines: units, how the values were summarised.
    pub notes: Vec<String>,
    /// The column names.
    pub header: Vec<String>,
    /// The cells, row by row, as many as header names.
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

    fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
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
            out += &format!("| {} |\n", row.join(" | "));
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
        let line = |f: &mut fmt::Formatter<'_>, lead: &str, cells: &[String]| -> fmt::Result {
            let mut text = lead.to_owned();
            for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
                if i == 0 {
                    text += &format!("{cell:<w$}");
                } else {
                    text += &format!("  {cell:>w$}");
                }
            }
            writeln!(f, "{}", text.trim_end())
        };
        line(f, "# ", &self.header)?;
        for row in &self.rows {
            line(f, "  ", row)?;
        }
        Ok(())
    }
}

/// A number with `digits` decimals, or `-` for a value that is not finite.
pub fn num(value: f64, digits: usize) -> String {
    if value.is_finite() {
        format!("{value:.digits$}")
    } else {
        "-".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_under_a_hash_header() {
        let mut t = Table::new("Put Latency Test", &["Size", "Latency (us)"]);
        t.notes.push("median of 10 samples".into());
        t.rows.push(vec!["1".into(), "1.50".into()]);
        t.rows.push(vec!["1024".into(), "12.25".into()]);
        assert_eq!(
            t.to_string(),
            "# OSU MPI-style Put Latency Test\n\
             # median of 10 samples\n\
             # Size  Latency (us)\n  \
             1             1.50\n  \
             1024         12.25\n"
        );
        assert_eq!(
            t.markdown(),
            "| Size | Latency (us) |\n|---|---:|\n| 1 | 1.50 |\n| 1024 | 12.25 |\n"
        );
        assert_eq!(num(f64::NAN, 2), "-");
        assert_eq!(num(2.0, 1), "2.0");
    }
}
