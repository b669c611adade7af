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
