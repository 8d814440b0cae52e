// SPDX-License-Identifier: MIT OR Apache-2.0
//! CSV as RFC 4180 writes it: a header row, comma-separated fields, a
//! field quoted (with its quotes doubled) when it holds a comma, a quote or
//! a line break.

/// One field, quoted if it must be.
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The rows under `header`, one line each.
pub fn write(header: &[String], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let fields: Vec<String> = row.iter().map(|f| field(f)).collect();
        out += &fields.join(",");
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        let header = vec!["a".to_owned(), "b".to_owned()];
        let rows = vec![
            vec!["1".to_owned(), "x,y".to_owned()],
            vec!["say \"hi\"".to_owned(), String::new()],
        ];
        assert_eq!(
            write(&header, &rows),
            "a,b\n1,\"x,y\"\n\"say \"\"hi\"\"\",\n"
        );
    }
}
