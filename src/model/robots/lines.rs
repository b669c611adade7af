//! Splits a robots.txt body into `key: value` records, the way Google's reference parser
//! (robots.cc) does: UTF-8 BOM skipped, LF / CR / CRLF line ends, `#` comments, lines capped
//! at 8 × 2083 bytes, a missing colon tolerated when the line has exactly two words, frequent
//! key typos accepted. Both robots flavours share this tokenizer.

/// Longest line kept, in bytes; the rest of a longer line is dropped (Google: 2083 × 8 − 1).
const MAX_LINE_LEN: usize = 2083 * 8 - 1;

/// The directive a line carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    UserAgent,
    Allow,
    Disallow,
    CrawlDelay,
    Sitemap,
    Unknown,
}

/// One `key: value` record. `value` is raw bytes: robots.txt need not be UTF-8.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    pub(crate) key: Key,
    pub(crate) value: &'a [u8],
}

/// Calls `f` for every record of `body`, in order.
pub(crate) fn for_each_record<'a>(body: &'a [u8], mut f: impl FnMut(Record<'a>)) {
    const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
    let mut start = 0;
    // Skip a BOM, or any prefix of one, at the very start.
    while start < BOM.len() && body.get(start) == Some(&BOM[start]) {
        start += 1;
    }
    let body = &body[start..];
    let mut line_start = 0;
    let mut last_was_cr = false;
    for (i, &b) in body.iter().enumerate() {
        if b == b'\n' || b == b'\r' {
            let is_crlf_tail = i == line_start && last_was_cr && b == b'\n';
            if !is_crlf_tail {
                emit(&body[line_start..i], &mut f);
            }
            line_start = i + 1;
            last_was_cr = b == b'\r';
        }
    }
    emit(&body[line_start..], &mut f);
}

fn emit<'a>(line: &'a [u8], f: &mut impl FnMut(Record<'a>)) {
    let mut line = &line[..line.len().min(MAX_LINE_LEN)];
    // The reference parser works on C strings: a NUL ends the line.
    if let Some(nul) = line.iter().position(|&b| b == 0) {
        line = &line[..nul];
    }
    if let Some(hash) = line.iter().position(|&b| b == b'#') {
        line = &line[..hash];
    }
    let line = trim(line);
    if line.is_empty() {
        return;
    }
    let (key, value) = match line.iter().position(|&b| b == b':') {
        Some(colon) => (trim(&line[..colon]), trim(&line[colon + 1..])),
        None => {
            // Some people forget the colon: accept whitespace instead, but only when the line
            // is exactly two words.
            let Some(ws) = line.iter().position(|&b| b == b' ' || b == b'\t') else {
                return;
            };
            let value = trim(&line[ws..]);
            if value.iter().any(|&b| b == b' ' || b == b'\t') {
                return;
            }
            (&line[..ws], value)
        }
    };
    f(Record {
        key: parse_key(key),
        value,
    });
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() || *first == 0x0B {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() || *last == 0x0B {
            s = rest;
        } else {
            break;
        }
    }
    s
}

fn starts_with_ci(s: &[u8], prefix: &str) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Google matches key *prefixes* case-insensitively and forgives frequent typos; we add the
/// crawl-delay spellings seen in the wild.
fn parse_key(key: &[u8]) -> Key {
    let any = |names: &[&str]| names.iter().any(|n| starts_with_ci(key, n));
    if any(&["user-agent", "useragent", "user agent"]) {
        Key::UserAgent
    } else if any(&["allow"]) {
        Key::Allow
    } else if any(&[
        "disallow",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
    ]) {
        Key::Disallow
    } else if any(&["crawl-delay", "crawl delay", "crawldelay", "crawl_delay"]) {
        Key::CrawlDelay
    } else if any(&["sitemap", "site-map"]) {
        Key::Sitemap
    } else {
        Key::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(body: &[u8]) -> Vec<(Key, String)> {
        let mut out = Vec::new();
        for_each_record(body, |r| {
            out.push((r.key, String::from_utf8_lossy(r.value).into_owned()))
        });
        out
    }

    #[test]
    fn line_ends_comments_bom_and_missing_colon() {
        let body = b"\xEF\xBB\xBFUser-agent: a\r\nDisallow: /x # no\rallow /y\n\nfoo bar baz\nSitemap: http://s";
        assert_eq!(
            records(body),
            vec![
                (Key::UserAgent, "a".into()),
                (Key::Disallow, "/x".into()),
                (Key::Allow, "/y".into()),
                (Key::Sitemap, "http://s".into()),
            ]
        );
    }

    #[test]
    fn long_lines_are_cut() {
        let mut body = b"disallow: /".to_vec();
        body.extend(std::iter::repeat_n(b'a', 20_000));
        let recs = records(&body);
        assert_eq!(recs[0].1.len(), MAX_LINE_LEN - "disallow: ".len());
    }
}
