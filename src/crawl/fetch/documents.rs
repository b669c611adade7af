//! What the downloaders decide of documents (SPEC §19): which answers are read as documents,
//! and the reason a document too large to read is a bad link for.

use super::FetchOptions;
use crate::model::documents::NodeType;

/// The document type of an answer with `content_type`, when documents are nodes
/// (`Documents = yes`); `None` for a page or anything else.
pub(crate) fn document_type(
    options: &FetchOptions,
    content_type: Option<&str>,
) -> Option<NodeType> {
    options
        .documents
        .then(|| content_type.and_then(NodeType::of_content_type))
        .flatten()
}

/// The bad link's reason for a document longer than `limit` bytes (`MaxDocumentBytes`).
pub(crate) fn too_large(limit: u64) -> String {
    format!("document over MaxDocumentBytes ({limit} bytes)")
}

/// The bad link's reason when a document's head declares a body over `MaxDocumentBytes`: it
/// is not downloaded at all (`None`: no length, or within the limit).
pub(crate) fn declared_too_large(options: &FetchOptions, declared: Option<u64>) -> Option<String> {
    let limit = options.max_document_bytes;
    declared
        .is_some_and(|n| n > limit)
        .then(|| too_large(limit))
}

/// Why a body could not be read: a document past its limit says which limit.
pub(crate) fn failure_reason(document: Option<NodeType>, e: &super::FetchError) -> String {
    match (document, e) {
        (Some(_), super::FetchError::TooLarge(n)) => too_large(*n),
        _ => e.to_string(),
    }
}

/// The error a document refused at its head is archived with: `document` is set past the
/// head only then (a walk whose answer is read has gone on to its body).
pub(crate) fn refused(
    document: Option<NodeType>,
    options: &FetchOptions,
) -> Option<super::FetchError> {
    document.map(|_| super::FetchError::TooLarge(options.max_document_bytes))
}
