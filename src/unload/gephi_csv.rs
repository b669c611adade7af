//! CSV the way Gephi's spreadsheet importer reads it: comma-separated with a header row,
//! UTF-8, every text field quoted, numbers bare. Gephi treats `\` as an escape character, so a
//! literal backslash is written `\\`; control characters (which also break GEXF) are removed
//! from text.

use std::fmt::Display;
use std::io::{self, Write};

/// Writes one CSV file row by row.
pub struct CsvOut<'a> {
    w: &'a mut dyn Write,
    first: bool,
}

impl std::fmt::Debug for CsvOut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvOut").finish_non_exhaustive()
    }
}

impl<'a> CsvOut<'a> {
    /// Starts a file with its header row (names written bare).
    pub fn new(w: &'a mut dyn Write, header: &[&str]) -> io::Result<Self> {
        w.write_all(header.join(",").as_bytes())?;
        w.write_all(b"\n")?;
        Ok(CsvOut { w, first: true })
    }

    fn sep(&mut self) -> io::Result<()> {
        if !self.first {
            self.w.write_all(b",")?;
        }
        self.first = false;
        Ok(())
    }

    /// A quoted text field.
    pub fn text(&mut self, s: &str) -> io::Result<&mut Self> {
        self.sep()?;
        self.w.write_all(quote(s).as_bytes())?;
        Ok(self)
    }

    /// A bare numeric field.
    pub fn num(&mut self, n: impl Display) -> io::Result<&mut Self> {
        self.sep()?;
        write!(self.w, "{n}")?;
        Ok(self)
    }

    /// An empty field.
    pub fn empty(&mut self) -> io::Result<&mut Self> {
        self.sep()?;
        Ok(self)
    }

    /// Ends the row.
    pub fn end(&mut self) -> io::Result<()> {
        self.w.write_all(b"\n")?;
        self.first = true;
        Ok(())
    }
}

/// `"…"` with `"` doubled, `\` doubled and control characters removed.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\"\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
        }
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "Id,Label,Level\n1,\"http://a.test/\",0\n2,\"say \"\"hi\"\", C:\\\\dirok\",\n"
        );
    }
}
