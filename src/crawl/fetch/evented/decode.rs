//! A body's `Content-Encoding` undone, within the cap: the decoders stop one byte past it, so
//! a compression bomb costs its cap and no more (as in the blocking client).

use std::io::Read;

use crate::crawl::fetch::FetchError;

/// Decodes `raw` as `encoding` says (gzip, br, deflate; anything else is taken as it is),
/// reading at most `cap` decoded bytes: more is `TooLarge`, or — `truncate` — cut off.
pub(super) fn decode(
    raw: Vec<u8>,
    encoding: Option<&str>,
    cap: u64,
    truncate: bool,
) -> Result<Vec<u8>, FetchError> {
    let mut body = Vec::new();
    let read = match encoding {
        Some("gzip" | "x-gzip") => flate2::read::MultiGzDecoder::new(&raw[..])
            .take(cap + 1)
            .read_to_end(&mut body),
        Some("br") => brotli_decompressor::Decompressor::new(&raw[..], 4096)
            .take(cap + 1)
            .read_to_end(&mut body),
        // Servers send `deflate` zlib-wrapped (RFC 9110 §8.4.1.2).
        Some("deflate") => flate2::read::ZlibDecoder::new(&raw[..])
            .take(cap + 1)
            .read_to_end(&mut body),
        _ => {
            body = raw;
            Ok(body.len())
        }
    };
    if let Err(e) = read {
        // A robots.txt cut off while compressed: what decoded is what there is.
        if !truncate || body.is_empty() {
            return Err(FetchError::BadResponse(format!(
                "corrupt compressed body: {e}"
            )));
        }
    }
    if body.len() as u64 > cap {
        if !truncate {
            return Err(FetchError::TooLarge(cap));
        }
        body.truncate(cap as usize);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn bodies_are_decoded_within_their_cap() {
        let page = b"<p>hello</p>".repeat(100);
        assert_eq!(
            decode(gzip(&page), Some("gzip"), 10_000, false).unwrap(),
            page
        );
        assert_eq!(decode(page.clone(), None, 10_000, false).unwrap(), page);
        // A bomb: a megabyte of zeros in a thousand bytes stops one byte past the cap.
        let bomb = gzip(&vec![0; 1 << 20]);
        assert!(bomb.len() < 2048);
        assert_eq!(
            decode(bomb.clone(), Some("gzip"), 4096, false),
            Err(FetchError::TooLarge(4096))
        );
        assert_eq!(decode(bomb, Some("gzip"), 4096, true).unwrap().len(), 4096);
        let e = decode(b"not gzip".to_vec(), Some("gzip"), 100, false).unwrap_err();
        assert!(matches!(e, FetchError::BadResponse(_)), "{e:?}");
    }
}
