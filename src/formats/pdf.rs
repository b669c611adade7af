//! A PDF's out-links and text (SPEC §19), read with lopdf: its link annotations (`/Subtype
//! /Link` whose action is a `URI`), each with the annotation's own text (`/Contents`) as its
//! anchor, and the text of its pages as far as `max_text_bytes`.
//!
//! A PDF comes from the web: damaged, truncated or built to hurt. lopdf checks reference
//! cycles and nesting and bounds what one stream may inflate to; this module bounds the
//! rest it can (links and text kept, pages read) and turns a panic inside lopdf into an
//! error. What lopdf keeps of a file in memory is not bounded here: the crawl reads PDFs in
//! a child process with limits of its own (`crawl::parse::pdf_child`).

use lopdf::{Dictionary, Document, LoadOptions, Object};

/// One link annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfLink {
    /// The `URI` action's target, as written.
    pub uri: String,
    /// The annotation's `/Contents` text (empty: none).
    pub anchor: String,
}

/// What a PDF gives the crawl.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PdfContent {
    /// Its link annotations in page order.
    pub links: Vec<PdfLink>,
    /// Its pages' text, as lopdf extracts it (raw whitespace), at most about
    /// `max_text_bytes` (empty when not asked for).
    pub text: String,
    /// Pages it has.
    pub pages: u32,
}

/// How much of a PDF is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// The most bytes one stream may inflate to.
    pub max_stream_bytes: usize,
    /// Text is read until it has this many bytes (0: no text).
    pub max_text_bytes: usize,
    /// The most links kept.
    pub max_links: usize,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_stream_bytes: 64 << 20,
            max_text_bytes: 0,
            max_links: 100_000,
        }
    }
}

/// Why a PDF gives nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdfError {
    /// lopdf could not load it (damaged, truncated, encrypted, a stream over the bound).
    #[error("unreadable PDF ({0})")]
    Unreadable(String),
    /// lopdf panicked on it.
    #[error("unreadable PDF (the reader failed: {0})")]
    ReaderFailed(String),
}

/// Reads `body`'s link annotations and (with `limits.max_text_bytes` > 0) text.
pub fn read(body: &[u8], limits: PdfLimits) -> Result<PdfContent, PdfError> {
    std::panic::catch_unwind(|| read_unguarded(body, limits)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(PdfError::ReaderFailed(what))
    })
}

fn read_unguarded(body: &[u8], limits: PdfLimits) -> Result<PdfContent, PdfError> {
    // lopdf rebuilds what it can of a truncated file (the objects before the cut): a cut
    // file is damaged, and a damaged document has no links (SPEC §19).
    let tail = &body[body.len().saturating_sub(1024)..];
    if memchr::memmem::find(tail, b"%%EOF").is_none() {
        return Err(PdfError::Unreadable(
            "truncated: no %%EOF at its end".into(),
        ));
    }
    let options = LoadOptions {
        max_decompressed_size: Some(limits.max_stream_bytes),
        ..LoadOptions::default()
    };
    let doc = Document::load_mem_with_options(body, options)
        .map_err(|e| PdfError::Unreadable(e.to_string()))?;
    let pages = doc.get_pages();
    // A page tree that loops or lost pages: lopdf skips what it cannot walk, a damaged
    // document has no links.
    let count = doc
        .catalog()
        .ok()
        .and_then(|c| c.get(b"Pages").ok())
        .and_then(|p| resolve(&doc, p).ok().flatten())
        .and_then(|p| p.as_dict().ok())
        .and_then(|p| p.get(b"Count").ok())
        .and_then(|c| c.as_i64().ok());
    if count.is_some_and(|c| c != pages.len() as i64) {
        return Err(PdfError::Unreadable(format!(
            "damaged page tree: /Count {} but {} pages",
            count.unwrap_or(0),
            pages.len()
        )));
    }
    let mut content = PdfContent {
        pages: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        ..PdfContent::default()
    };
    for (&number, &page) in &pages {
        if content.links.len() < limits.max_links {
            let annotations = doc.get_page_annotations(page).unwrap_or_default();
            for annotation in annotations {
                if let Some(link) = uri_link(&doc, annotation)? {
                    content.links.push(link);
                }
                if content.links.len() >= limits.max_links {
                    break;
                }
            }
        }
        if content.text.len() < limits.max_text_bytes {
            // A page whose text cannot be read costs its own text, not the document's.
            if let Ok(text) = doc.extract_text_with_limit(&[number], limits.max_stream_bytes) {
                content.text.push_str(&text);
                content.text.push('\n');
            }
        }
    }
    // The caller collapses whitespace and cuts at its own limit: four times the limit of
    // raw text is enough for that and bounds a last page of megabytes.
    let cut = limits.max_text_bytes.saturating_mul(4);
    if content.text.len() > cut {
        let at = (0..=cut)
            .rev()
            .find(|&i| content.text.is_char_boundary(i))
            .unwrap_or(0);
        content.text.truncate(at);
    }
    Ok(content)
}

/// The link of a `/Link` annotation whose action (`/A`) is a `URI` action; an error for a
/// reference that loops.
fn uri_link(doc: &Document, annotation: &Dictionary) -> Result<Option<PdfLink>, PdfError> {
    let is_link = entry(doc, annotation, b"Subtype")?
        .and_then(|s| s.as_name().ok())
        .is_some_and(|s| s == b"Link");
    let Some(action) = entry(doc, annotation, b"A")?.and_then(|a| a.as_dict().ok()) else {
        return Ok(None);
    };
    let is_uri = entry(doc, action, b"S")?
        .and_then(|s| s.as_name().ok())
        .is_some_and(|s| s == b"URI");
    let uri = entry(doc, action, b"URI")?.and_then(|u| u.as_str().ok());
    let (true, true, Some(uri)) = (is_link, is_uri, uri) else {
        return Ok(None);
    };
    // URIs are 7-bit ASCII (PDF 32000 §12.6.4.7); a UTF-8 one is read as it is written.
    let uri = String::from_utf8_lossy(uri).trim().to_owned();
    if uri.is_empty() {
        return Ok(None);
    }
    let anchor = entry(doc, annotation, b"Contents")?
        .and_then(|c| lopdf::decode_text_string(c).ok())
        .unwrap_or_default();
    Ok(Some(PdfLink { uri, anchor }))
}

/// A dictionary's entry `key`, resolved.
fn entry<'a>(
    doc: &'a Document,
    dict: &'a Dictionary,
    key: &[u8],
) -> Result<Option<&'a Object>, PdfError> {
    match dict.get(key) {
        Ok(value) => resolve(doc, value),
        Err(_) => Ok(None),
    }
}

/// `object`, or what it refers to (`None`: a reference to nothing, which costs its own
/// annotation); a reference that loops is damage.
fn resolve<'a>(doc: &'a Document, object: &'a Object) -> Result<Option<&'a Object>, PdfError> {
    match doc.dereference(object) {
        Ok((_, o)) => Ok(Some(o)),
        Err(lopdf::Error::ReferenceCycle(id)) => Err(PdfError::Unreadable(format!(
            "a reference loop at object {} {}",
            id.0, id.1
        ))),
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_truncated_files_are_errors_not_panics() {
        assert!(read(b"", PdfLimits::default()).is_err());
        assert!(read(b"%PDF-1.4\n1 0 obj <<", PdfLimits::default()).is_err());
        assert!(read(&[0xff; 4096], PdfLimits::default()).is_err());
    }
}
