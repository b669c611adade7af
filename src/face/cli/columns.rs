//! Console tables whose columns line up under their headers whatever the values' widths
//! (`rccrawler status`): each column as wide as its widest cell, counted in characters.

/// How a column's cells are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// The table's lines: the header, then a line per row; two spaces between columns, the
/// last column not padded.
pub(crate) fn lines(columns: &[(&str, Align)], rows: &[Vec<String>]) -> Vec<String> {
    let width = |i: usize| {
        rows.iter()
            .filter_map(|r| r.get(i))
            .map(|c| c.chars().count())
            .chain([columns[i].0.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns.len()).map(width).collect();
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut out = String::new();
        for (i, cell) in cells.enumerate().take(columns.len()) {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            let last = i + 1 == columns.len();
            match columns[i].1 {
                Align::Right => {
                    out.push_str(&" ".repeat(pad));
                    out.push_str(cell);
                }
                Align::Left => {
                    out.push_str(cell);
                    if !last {
                        out.push_str(&" ".repeat(pad));
                    }
                }
            }
        }
        out
    };
    let mut out = vec![line(&mut columns.iter().map(|c| c.0))];
    out.extend(rows.iter().map(|r| line(&mut r.iter().map(String::as_str))));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_under_their_headers() {
        let rows = vec![
            vec![
                "http://a-very-long-site-name.example.org:8080".to_owned(),
                "12345".to_owned(),
                "done".to_owned(),
            ],
            vec![
                "http://b.test".to_owned(),
                "7".to_owned(),
                "crawling".to_owned(),
            ],
        ];
        let l = lines(
            &[
                ("site", Align::Left),
                ("pages", Align::Right),
                ("state", Align::Left),
            ],
            &rows,
        );
        // Every line's second column ends where the header's does.
        let end = l[0].find("pages").unwrap() + "pages".len();
        assert_eq!(l[1][..end].trim_end(), l[1][..end].to_owned());
        assert!(l[1][..end].ends_with("12345"), "{l:?}");
        assert!(l[2][..end].ends_with('7'), "{l:?}");
        let state = l[0].find("state").unwrap();
        assert_eq!(l[1].find("done"), Some(state));
        assert_eq!(l[2].find("crawling"), Some(state));
        assert!(!l[1].ends_with(' '));
    }
}
