//! The result CSV files: comma-separated with a header row, UTF-8, every text field quoted,
//! numbers bare, control characters (which also break GEXF) removed from text. Two dialects:
//! - **Gephi** (nodes.csv, edges.csv: the files Gephi imports): Gephi's spreadsheet importer
//!   treats `\` as an escape character, so a literal backslash is written `\\`;
//! - **plain RFC 4180** (external_links.csv, bad_links.csv, duplicates.csv, yield.csv,
//!   summary.csv: files read by pandas, R, Python's csv): only `"` is doubled, so `C:\path` reads back as written.

use std::io::{self, Write};

/// Writes one CSV file row by row. Rows are assembled in a buffer written out in chunks of
/// 128 KiB (call [`CsvOut::finish`] at the end): result files of big sites have
/// millions of rows, and a write call per field through `dyn Write`, then the copy of every row
/// into a `BufWriter`, showed in the profile.
pub struct CsvOut<'a> {
    w: &'a mut dyn Write,
    line: Vec<u8>,
    fields: usize,
    /// Backslashes are doubled (the Gephi dialect).
    gephi: bool,
}

impl std::fmt::Debug for CsvOut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvOut").finish_non_exhaustive()
    }
}

impl<'a> CsvOut<'a> {
    /// Starts a file for Gephi with its header row (names written bare).
    pub fn new(w: &'a mut dyn Write, header: &[&str]) -> io::Result<Self> {
        Self::start(w, header, true)
    }

    /// Starts a plain RFC 4180 file with its header row (names written bare).
    pub fn plain(w: &'a mut dyn Write, header: &[&str]) -> io::Result<Self> {
        Self::start(w, header, false)
    }

    /// Goes on with a plain RFC 4180 file whose header is written (rows appended a batch at a
    /// time).
    pub fn plain_rows(w: &'a mut dyn Write) -> Self {
        CsvOut {
            w,
            line: Vec::with_capacity(CHUNK + 4096),
            fields: 0,
            gephi: false,
        }
    }

    fn start(w: &'a mut dyn Write, header: &[&str], gephi: bool) -> io::Result<Self> {
        w.write_all(header.join(",").as_bytes())?;
        w.write_all(b"\n")?;
        Ok(CsvOut {
            w,
            line: Vec::with_capacity(CHUNK + 4096),
            fields: 0,
            gephi,
        })
    }

    fn sep(&mut self) {
        if self.fields > 0 {
            self.line.push(b',');
        }
        self.fields += 1;
    }

    /// A quoted text field.
    pub fn text(&mut self, s: &str) -> io::Result<&mut Self> {
        self.sep();
        quote_into(s, self.gephi, &mut self.line);
        Ok(self)
    }

    /// A bare numeric field.
    pub fn num(&mut self, n: impl itoa::Integer) -> io::Result<&mut Self> {
        self.sep();
        self.line
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
        Ok(self)
    }

    /// A bare field already formatted (a decimal number).
    pub fn raw(&mut self, s: &str) -> io::Result<&mut Self> {
        self.sep();
        self.line.extend_from_slice(s.as_bytes());
        Ok(self)
    }

    /// An empty field.
    pub fn empty(&mut self) -> io::Result<&mut Self> {
        self.sep();
        Ok(self)
    }

    /// Ends the row.
    pub fn end(&mut self) -> io::Result<()> {
        self.line.push(b'\n');
        self.fields = 0;
        if self.line.len() >= CHUNK {
            self.w.write_all(&self.line)?;
            self.line.clear();
        }
        Ok(())
    }

    /// Writes the rows still buffered.
    pub fn finish(mut self) -> io::Result<()> {
        let r = self.w.write_all(&self.line);
        self.line.clear();
        r
    }
}

impl Drop for CsvOut<'_> {
    fn drop(&mut self) {
        debug_assert!(
            self.line.is_empty() || std::thread::panicking(),
            "CsvOut dropped with rows not written: call finish()"
        );
    }
}

/// Rows are written in chunks of at least this many bytes: more than the `BufWriter` of
/// `write_atomic` holds, so they go to the file without being copied again.
pub(crate) const CHUNK: usize = 128 * 1024;

/// `"…"` with `"` doubled, `\` doubled and control characters removed.
pub fn quote(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    quote_into(s, true, &mut out);
    // Only whole characters were copied, so this is UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

/// [`quote`] appended to a byte buffer (backslashes doubled if `gephi`). Most fields need no
/// change: they are copied whole.
fn quote_into(s: &str, gephi: bool, out: &mut Vec<u8>) {
    out.push(b'"');
    // 0xC2 starts the UTF-8 form of the C1 controls (U+0080..U+009F) and of other characters,
    // which the slow path tells apart.
    let plain = !s
        .bytes()
        .any(|b| b < 0x20 || matches!(b, b'"' | b'\\' | 0x7F | 0xC2));
    if plain {
        out.extend_from_slice(s.as_bytes());
    } else {
        let mut tmp = [0u8; 4];
        for ch in s.chars() {
            match ch {
                '"' => out.extend_from_slice(b"\"\""),
                '\\' if gephi => out.extend_from_slice(b"\\\\"),
                c if c.is_control() => {}
                c => out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes()),
            }
        }
    }
    out.push(b'"');
}

/// A field of nodes.csv or edges.csv as Gephi reads it: `\\` is one backslash; a backslash before anything else would
/// be taken as an escape, and control characters break the import.
pub fn gephi_unescape(field: &str) -> Result<String, String> {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\\') => out.push('\\'),
                other => return Err(format!("a lone backslash before {other:?} in {field:?}")),
            },
            c if c.is_control() => return Err(format!("a control character in {field:?}")),
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_bytes() {
        let mut buf = Vec::new();
        {
            let mut csv = CsvOut::new(&mut buf, &["Id", "Label", "Level"]).unwrap();
            csv.num(1)
                .unwrap()
                .text("http://a.test/")
                .unwrap()
                .num(0)
                .unwrap()
                .end()
                .unwrap();
            csv.num(2)
                .unwrap()
                .text("say \"hi\", C:\\dir\n\u{7}ok")
                .unwrap()
                .empty()
                .unwrap()
                .end()
                .unwrap();
            csv.finish().unwrap();
        }
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "Id,Label,Level\n1,\"http://a.test/\",0\n2,\"say \"\"hi\"\", C:\\\\dirok\",\n"
        );
    }

    #[test]
    fn the_plain_dialect_keeps_backslashes() {
        let mut buf = Vec::new();
        {
            let mut csv = CsvOut::plain(&mut buf, &["A", "B"]).unwrap();
            csv.text("say \"hi\", C:\\dir\n\u{7}ok")
                .unwrap()
                .num(3)
                .unwrap()
                .end()
                .unwrap();
            csv.finish().unwrap();
        }
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text, "A,B\n\"say \"\"hi\"\", C:\\dirok\",3\n");
        // What Python's csv and pandas do: RFC 4180, no escape character.
        let mut rdr = csv::Reader::from_reader(text.as_bytes());
        let row = rdr.records().next().unwrap().unwrap();
        assert_eq!(&row[0], "say \"hi\", C:\\dirok");
    }

    #[test]
    fn leading_empty_field_and_raw() {
        let mut buf = Vec::new();
        {
            let mut csv = CsvOut::new(&mut buf, &["A", "B"]).unwrap();
            csv.empty().unwrap().raw("1.5").unwrap().end().unwrap();
            csv.finish().unwrap();
        }
        assert_eq!(String::from_utf8(buf).unwrap(), "A,B\n,1.5\n");
    }

    #[test]
    fn quoting_fast_and_slow_paths_agree() {
        for s in [
            "plain é ü 日本",
            "tab\there",
            "c1 \u{85} next",
            "nbsp\u{a0}ok",
            "\u{7f}del",
            "q\"b\\",
        ] {
            let slow: String = s
                .chars()
                .filter(|c| !c.is_control())
                .flat_map(|c| match c {
                    '"' => vec!['"', '"'],
                    '\\' => vec!['\\', '\\'],
                    c => vec![c],
                })
                .collect();
            assert_eq!(quote(s), format!("\"{slow}\""), "{s:?}");
        }
    }
}
