//! One sitemap file read (sitemaps.org protocol 0.9): a `<urlset>` of `<url>` entries, a
//! `<sitemapindex>` of `<sitemap>` entries, or a plain list of URLs one per line. Read as a
//! stream: a malformed file gives what came before the fault, with the fault named.

use quick_xml::Reader;
use quick_xml::events::{BytesRef, Event};

/// What a sitemap file lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Pages (`<urlset>`, or a text file of URLs).
    Pages,
    /// Other sitemap files (`<sitemapindex>`).
    Index,
}

/// One sitemap file, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// What it lists; `None` when it is no sitemap at all (`error` says what it is).
    pub(crate) kind: Option<Kind>,
    /// `(loc, lastmod)` of its entries, in order, at most the limit given; `lastmod` empty
    /// when absent.
    pub(crate) entries: Vec<(String, String)>,
    /// Entries past the limit, counted and not kept.
    pub(crate) over_limit: usize,
    /// What is wrong with it (malformed XML, with the byte where it went wrong; not a
    /// sitemap); what came before is in `entries`.
    pub(crate) error: Option<String>,
}

/// The text of a `<loc>` or `<lastmod>` kept at most (the protocol caps a URL at 2,048).
const MAX_FIELD: usize = 8 * 1024;

/// Reads `body` (decompressed), keeping at most `limit` entries.
pub(crate) fn parse(body: &[u8], limit: usize) -> Parsed {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'<') => parse_xml(body, limit),
        Some(_) => parse_text(body, limit),
        None => Parsed {
            kind: None,
            entries: Vec::new(),
            over_limit: 0,
            error: Some("empty".into()),
        },
    }
}

/// A text sitemap: one absolute URL per line (UTF-8). A file whose lines are not URLs is not
/// a sitemap.
fn parse_text(body: &[u8], limit: usize) -> Parsed {
    let text = String::from_utf8_lossy(body);
    let mut parsed = Parsed {
        kind: Some(Kind::Pages),
        entries: Vec::new(),
        over_limit: 0,
        error: None,
    };
    let mut other = 0usize;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let lower = line.get(..8).unwrap_or(line).to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            other += 1;
            continue;
        }
        if parsed.entries.len() < limit {
            parsed.entries.push((clip(line).to_owned(), String::new()));
        } else {
            parsed.over_limit += 1;
        }
    }
    if parsed.entries.is_empty() && parsed.over_limit == 0 {
        parsed.kind = None;
        parsed.error = Some("not a sitemap: neither XML nor a list of URLs".into());
    } else if other > 0 {
        parsed.error = Some(format!(
            "{other} lines of this text sitemap are not URLs (skipped)"
        ));
    }
    parsed
}

/// Which field of an entry the text read belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Loc,
    LastMod,
}

/// The entry being read.
#[derive(Debug, Default)]
struct Entry {
    loc: String,
    lastmod: String,
    field: Option<Field>,
}

impl Entry {
    fn push(&mut self, s: &str) {
        let target = match self.field {
            Some(Field::Loc) => &mut self.loc,
            Some(Field::LastMod) => &mut self.lastmod,
            None => return,
        };
        if target.len() + s.len() <= MAX_FIELD {
            target.push_str(s);
        }
    }

    /// An entity or character reference in a field (`&amp;` in a URL's query).
    fn push_ref(&mut self, r: &BytesRef<'_>) {
        if self.field.is_none() {
            return;
        }
        let resolved = match r.resolve_char_ref() {
            Ok(Some(c)) => Some(c),
            Ok(None) => match &*r.xml10_content() {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => None,
            },
            Err(_) => None,
        };
        match resolved {
            Some(c) => self.push(c.encode_utf8(&mut [0; 4])),
            None => {
                let name = r.xml10_content();
                self.push(&format!("&{name};"));
            }
        }
    }
}

/// An XML sitemap or sitemap index. Only `<loc>` and `<lastmod>` directly inside an entry
/// count (an image extension's `<image:loc>` is deeper); namespaces are not checked, as
/// search engines do not.
fn parse_xml(body: &[u8], limit: usize) -> Parsed {
    let mut parsed = Parsed {
        kind: None,
        entries: Vec::new(),
        over_limit: 0,
        error: None,
    };
    let mut reader = Reader::from_reader(body);
    let mut depth = 0usize;
    let mut entry = Entry::default();
    loop {
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                parsed.error = Some(format!(
                    "malformed XML at byte {}: {e}",
                    reader.error_position()
                ));
                break;
            }
        };
        match event {
            Event::Start(e) => {
                depth += 1;
                let name = e.local_name();
                let name = name.as_ref();
                match depth {
                    1 => {
                        parsed.kind = match name {
                            "urlset" => Some(Kind::Pages),
                            "sitemapindex" => Some(Kind::Index),
                            _ => {
                                parsed.error =
                                    Some(format!("not a sitemap: its root element is <{name}>"));
                                break;
                            }
                        };
                    }
                    2 => entry = Entry::default(),
                    3 if is_entry_field(&parsed, name, "loc") => entry.field = Some(Field::Loc),
                    3 if is_entry_field(&parsed, name, "lastmod") => {
                        entry.field = Some(Field::LastMod);
                    }
                    _ => {}
                }
            }
            Event::Empty(e) if depth == 0 => {
                let name = e.local_name();
                parsed.kind = match name.as_ref() {
                    "urlset" => Some(Kind::Pages),
                    "sitemapindex" => Some(Kind::Index),
                    _ => None,
                };
                break;
            }
            Event::Text(t) => entry.push(&t.xml10_content()),
            Event::CData(t) => entry.push(&t.xml10_content()),
            Event::GeneralRef(r) => entry.push_ref(&r),
            Event::End(_) => {
                match depth {
                    3 => entry.field = None,
                    2 if parsed.kind.is_some() => {
                        let loc = entry.loc.trim();
                        if !loc.is_empty() {
                            if parsed.entries.len() < limit {
                                parsed
                                    .entries
                                    .push((loc.to_owned(), entry.lastmod.trim().to_owned()));
                            } else {
                                parsed.over_limit += 1;
                            }
                        }
                        entry = Entry::default();
                    }
                    _ => {}
                }
                depth = depth.saturating_sub(1);
            }
            Event::Eof => {
                if parsed.kind.is_none() && parsed.error.is_none() {
                    parsed.error = Some("not a sitemap: no XML element".into());
                } else if depth > 0 && parsed.error.is_none() {
                    parsed.error = Some(format!(
                        "malformed XML: the file ends inside an element (byte {})",
                        reader.buffer_position()
                    ));
                }
                break;
            }
            _ => {}
        }
    }
    parsed
}

/// Whether element `name` at an entry's top level is its `field` (`<url><loc>` in a urlset,
/// `<sitemap><loc>` in an index).
fn is_entry_field(parsed: &Parsed, name: &str, field: &str) -> bool {
    parsed.kind.is_some() && name == field
}

/// At most [`MAX_FIELD`] bytes of `s`, cut at a character boundary.
fn clip(s: &str) -> &str {
    if s.len() <= MAX_FIELD {
        return s;
    }
    let mut end = MAX_FIELD;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(p: &Parsed) -> Vec<(&str, &str)> {
        p.entries
            .iter()
            .map(|(l, m)| (l.as_str(), m.as_str()))
            .collect()
    }

    #[test]
    fn a_urlset_gives_its_locations_and_dates_and_nothing_deeper() {
        let body = br#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc> http://a.test/x?y=1&amp;z=2 </loc><lastmod>2024-05-01</lastmod>
    <image:image><image:loc>http://cdn.test/i.png</image:loc></image:image></url>
  <url><loc><![CDATA[http://a.test/c]]></loc></url>
  <url><lastmod>2024</lastmod></url>
  <url><loc>http://a.test/&#x41;</loc></url>
</urlset>"#;
        let p = parse(body, 10);
        assert_eq!(p.kind, Some(Kind::Pages));
        assert_eq!(p.error, None);
        assert_eq!(
            entries(&p),
            [
                ("http://a.test/x?y=1&z=2", "2024-05-01"),
                ("http://a.test/c", ""),
                ("http://a.test/A", ""),
            ]
        );
    }

    #[test]
    fn an_index_lists_sitemaps() {
        let body = b"\xEF\xBB\xBF<sitemapindex><sitemap><loc>http://a.test/s1.xml.gz</loc>\
            <lastmod>2024-01-01T00:00:00Z</lastmod></sitemap></sitemapindex>";
        let p = parse(body, 10);
        assert_eq!(p.kind, Some(Kind::Index));
        assert_eq!(
            entries(&p),
            [("http://a.test/s1.xml.gz", "2024-01-01T00:00:00Z")]
        );
    }

    #[test]
    fn entries_past_the_limit_are_counted_not_kept() {
        let mut body = String::from("<urlset>");
        for i in 0..7 {
            body.push_str(&format!("<url><loc>http://a.test/{i}</loc></url>"));
        }
        body.push_str("</urlset>");
        let p = parse(body.as_bytes(), 5);
        assert_eq!(p.entries.len(), 5);
        assert_eq!(p.over_limit, 2);
    }

    #[test]
    fn broken_xml_keeps_what_came_before_and_says_where() {
        let p = parse(
            b"<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.test/2</lo></url>",
            10,
        );
        assert_eq!(entries(&p), [("http://a.test/1", "")]);
        let error = p.error.unwrap();
        assert!(error.starts_with("malformed XML at byte"), "{error}");
        let cut = parse(b"<urlset><url><loc>http://a.test/1</loc></url><url><lo", 10);
        assert_eq!(entries(&cut), [("http://a.test/1", "")]);
        assert!(cut.error.is_some());
    }

    #[test]
    fn html_and_other_roots_are_not_sitemaps() {
        let p = parse(
            b"<!DOCTYPE html>\n<html><body><a href=/x>x</a></body></html>",
            10,
        );
        assert_eq!(p.kind, None);
        assert_eq!(
            p.error.as_deref(),
            Some("not a sitemap: its root element is <html>")
        );
        assert_eq!(parse(b"  ", 10).kind, None);
        assert_eq!(parse(b"<urlset/>", 10).kind, Some(Kind::Pages));
        assert!(parse(b"{\"json\": 1}", 10).error.is_some());
    }

    #[test]
    fn a_text_sitemap_is_a_url_per_line() {
        let p = parse(b"http://a.test/1\r\n\r\nHTTPS://a.test/2\nnot a url\n", 10);
        assert_eq!(p.kind, Some(Kind::Pages));
        assert_eq!(
            entries(&p),
            [("http://a.test/1", ""), ("HTTPS://a.test/2", "")]
        );
        assert!(p.error.unwrap().starts_with("1 lines"));
    }
}
