//! Heads with more header lines than the HTTP parser takes. ureq-proto (under both
//! downloaders) parses at most [`PARSER_HEADERS`] header lines, a compile-time constant; a
//! server that sets a thousand cookies (27 KB of head, well within the head's byte bound)
//! would lose its page as "too many headers". Browsers bound a head by its size, not its line
//! count, and keep a bounded number of cookies per site (RFC 6265 §6.1 asks for at least 50).
//! So a head over the count is rewritten before the parser sees it: every other header kept,
//! in order, and the first `Set-Cookie` lines that fit. A head whose other headers alone are
//! over the count stays an error.

/// The header lines ureq-proto parses.
pub(crate) const PARSER_HEADERS: usize = ureq_proto::client::MAX_RESPONSE_HEADERS;

/// The header lines read to rewrite a head: a 64 KiB head holds at most this many (`a:\r\n`).
const MOST_HEADERS: usize = 16 * 1024;

/// What [`fit`] found at the start of the input.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// A whole head within the count, a head beyond help, or no head: leave it to the parser.
    Unchanged,
    /// Part of a head, within the count so far: the parser waits for the rest itself.
    Partial,
    /// Part of a head already over the count: the parser would fail on it now, so the rest
    /// must be read before it sees the head.
    NeedMore,
    /// The whole head rewritten to fit; it replaces the input's first `used` bytes.
    Rewritten {
        /// Bytes of the input the head took.
        used: usize,
        /// The head to parse instead (status line, headers, blank line).
        head: Vec<u8>,
    },
}

/// Whether `input` starts with a head of more than [`PARSER_HEADERS`] lines, and if it does
/// and its other headers fit, the head rewritten to fit.
/// Counted first, without parsing: most heads are far within the count and cost a scan.
pub(crate) fn fit(input: &[u8]) -> Fit {
    // A head ends with an empty line (httparse takes bare `\n` line ends too): one pass that
    // stops there.
    let mut lines = 0;
    let mut end = None;
    for (i, &b) in input.iter().enumerate() {
        if b != b'\n' {
            continue;
        }
        lines += 1;
        let next = &input[i + 1..];
        if next.starts_with(b"\n") || next.starts_with(b"\r\n") {
            end = Some(i);
            break;
        }
    }
    // The status line's line end, then one per header.
    let within = lines <= PARSER_HEADERS + 1;
    match (end, within) {
        (Some(_), true) => return Fit::Unchanged,
        (None, true) => return Fit::Partial,
        (None, false) => return Fit::NeedMore,
        (Some(_), false) => {}
    }
    let mut headers = vec![httparse::EMPTY_HEADER; lines.min(MOST_HEADERS)];
    let mut response = httparse::Response::new(&mut headers);
    let used = match response.parse(input) {
        Ok(httparse::Status::Complete(used)) => used,
        Ok(httparse::Status::Partial) | Err(_) => return Fit::Unchanged,
    };
    if response.headers.len() <= PARSER_HEADERS {
        return Fit::Unchanged;
    }
    let is_cookie = |h: &httparse::Header<'_>| h.name.eq_ignore_ascii_case("set-cookie");
    let others = response.headers.iter().filter(|h| !is_cookie(h)).count();
    let (Some(mut cookies_left), Some(version), Some(code)) = (
        PARSER_HEADERS.checked_sub(others),
        response.version,
        response.code,
    ) else {
        return Fit::Unchanged;
    };
    let mut head = Vec::with_capacity(used);
    head.extend_from_slice(
        format!(
            "HTTP/1.{version} {code} {}\r\n",
            response.reason.unwrap_or_default()
        )
        .as_bytes(),
    );
    for h in response.headers.iter() {
        if is_cookie(h) {
            if cookies_left == 0 {
                continue;
            }
            cookies_left -= 1;
        }
        head.extend_from_slice(h.name.as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(h.value);
        head.extend_from_slice(b"\r\n");
    }
    head.extend_from_slice(b"\r\n");
    Fit::Rewritten { used, head }
}

#[cfg(test)]
#[allow(clippy::panic)] // tests may panic on unexpected results
mod tests {
    use super::*;

    fn head(cookies: usize, others: usize) -> Vec<u8> {
        let mut h = b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n".to_vec();
        for i in 0..cookies {
            h.extend_from_slice(format!("Set-Cookie: c{i}=v{i}; Path=/\r\n").as_bytes());
        }
        for i in 0..others {
            h.extend_from_slice(format!("x-{i}: y\r\n").as_bytes());
        }
        h.extend_from_slice(b"content-length: 5\r\n\r\nhello");
        h
    }

    #[test]
    fn a_head_within_the_count_is_left_alone() {
        assert_eq!(fit(&head(10, 0)), Fit::Unchanged);
        assert_eq!(fit(&head(PARSER_HEADERS - 2, 0)), Fit::Unchanged);
        assert_eq!(fit(&head(10, 0)[..60]), Fit::Partial);
    }

    #[test]
    fn a_thousand_cookies_keep_the_other_headers_and_the_first_cookies() {
        let input = head(1000, 0);
        let Fit::Rewritten { used, head: out } = fit(&input) else {
            panic!("not rewritten");
        };
        assert_eq!(&input[used..], b"hello");
        let text = String::from_utf8(out).expect("ascii");
        assert!(text.starts_with("HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n"));
        assert!(text.ends_with("content-length: 5\r\n\r\n"));
        assert_eq!(text.matches("Set-Cookie").count(), PARSER_HEADERS - 2);
        assert!(text.contains("c0=v0") && !text.contains("c999=v999"));
        // What the parser under the downloaders reads from it.
        let mut headers = [httparse::EMPTY_HEADER; PARSER_HEADERS];
        let parsed = httparse::Response::new(&mut headers).parse(text.as_bytes());
        assert!(matches!(parsed, Ok(httparse::Status::Complete(_))));
    }

    #[test]
    fn too_many_other_headers_and_incomplete_heads_stay_as_they_are() {
        assert_eq!(fit(&head(0, PARSER_HEADERS + 5)), Fit::Unchanged);
        let input = head(1000, 0);
        assert_eq!(fit(&input[..input.len() - 30]), Fit::NeedMore);
        assert_eq!(fit(b"<html>not a head</html>\r\n\r\n"), Fit::Unchanged);
    }
}
