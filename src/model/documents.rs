//! What a node is (SPEC §19): an HTML page or a document, told by the answer's Content-Type
//! with `Documents = yes` — never by the URL's extension, which only decides, with
//! `Documents = no`, which URLs are not asked for at all.

/// A node's type: nodes.csv's `Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum NodeType {
    /// An HTML page.
    #[default]
    Html,
    /// `application/pdf`.
    Pdf,
    /// `application/msword`.
    Doc,
    /// Word's OpenXML document.
    Docx,
    /// `application/vnd.ms-excel`.
    Xls,
    /// Excel's OpenXML workbook.
    Xlsx,
    /// `application/vnd.ms-powerpoint`.
    Ppt,
    /// PowerPoint's OpenXML presentation.
    Pptx,
    /// OpenDocument text.
    Odt,
    /// OpenDocument spreadsheet.
    Ods,
    /// OpenDocument presentation.
    Odp,
    /// `application/rtf` (or `text/rtf`).
    Rtf,
}

/// Every type, in the order of their codes.
pub const NODE_TYPES: [NodeType; 12] = [
    NodeType::Html,
    NodeType::Pdf,
    NodeType::Doc,
    NodeType::Docx,
    NodeType::Xls,
    NodeType::Xlsx,
    NodeType::Ppt,
    NodeType::Pptx,
    NodeType::Odt,
    NodeType::Ods,
    NodeType::Odp,
    NodeType::Rtf,
];

/// Content-Type essences of documents, with their types.
const MEDIA_TYPES: [(&str, NodeType); 13] = [
    ("application/pdf", NodeType::Pdf),
    ("application/msword", NodeType::Doc),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        NodeType::Docx,
    ),
    ("application/vnd.ms-excel", NodeType::Xls),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        NodeType::Xlsx,
    ),
    ("application/vnd.ms-powerpoint", NodeType::Ppt),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        NodeType::Pptx,
    ),
    ("application/vnd.oasis.opendocument.text", NodeType::Odt),
    (
        "application/vnd.oasis.opendocument.spreadsheet",
        NodeType::Ods,
    ),
    (
        "application/vnd.oasis.opendocument.presentation",
        NodeType::Odp,
    ),
    ("application/rtf", NodeType::Rtf),
    ("text/rtf", NodeType::Rtf),
    // Servers that name the vendor type of PDF (seen on old IIS sites).
    ("application/x-pdf", NodeType::Pdf),
];

impl NodeType {
    /// The word nodes.csv writes.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeType::Html => "html",
            NodeType::Pdf => "pdf",
            NodeType::Doc => "doc",
            NodeType::Docx => "docx",
            NodeType::Xls => "xls",
            NodeType::Xlsx => "xlsx",
            NodeType::Ppt => "ppt",
            NodeType::Pptx => "pptx",
            NodeType::Odt => "odt",
            NodeType::Ods => "ods",
            NodeType::Odp => "odp",
            NodeType::Rtf => "rtf",
        }
    }

    /// The type nodes.csv's word names.
    pub fn parse(word: &str) -> Option<NodeType> {
        NODE_TYPES.into_iter().find(|t| t.as_str() == word)
    }

    /// Its code in page records (0: html).
    pub fn code(self) -> u8 {
        NODE_TYPES.iter().position(|t| *t == self).unwrap_or(0) as u8
    }

    /// The type of a code, if it is one.
    pub fn from_code(code: u8) -> Option<NodeType> {
        NODE_TYPES.get(usize::from(code)).copied()
    }

    /// The document type of an answer's Content-Type header (`None`: not a document).
    pub fn of_content_type(content_type: &str) -> Option<NodeType> {
        let essence = content_type.split(';').next().unwrap_or("").trim();
        MEDIA_TYPES
            .iter()
            .find(|(m, _)| m.eq_ignore_ascii_case(essence))
            .map(|(_, t)| *t)
    }

    /// Whether it is a document (not an HTML page).
    pub fn is_document(self) -> bool {
        self != NodeType::Html
    }
}

/// Whether a URL's file extension (lower case) is a document's: with `Documents = yes` such
/// a URL is asked for, and its answer's Content-Type decides what it is.
pub fn is_document_extension(ext: &str) -> bool {
    NODE_TYPES.iter().skip(1).any(|t| t.as_str() == ext)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_name_documents_with_parameters_and_any_case() {
        assert_eq!(
            NodeType::of_content_type("Application/PDF; name=x.pdf"),
            Some(NodeType::Pdf)
        );
        assert_eq!(
            NodeType::of_content_type(
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            ),
            Some(NodeType::Xlsx)
        );
        assert_eq!(NodeType::of_content_type("text/rtf"), Some(NodeType::Rtf));
        assert_eq!(NodeType::of_content_type("text/html"), None);
        assert_eq!(NodeType::of_content_type("application/zip"), None);
        assert_eq!(NodeType::of_content_type("image/png"), None);
    }

    #[test]
    fn codes_and_words_go_both_ways() {
        for t in NODE_TYPES {
            assert_eq!(NodeType::from_code(t.code()), Some(t));
            assert_eq!(NodeType::parse(t.as_str()), Some(t));
        }
        assert_eq!(NodeType::from_code(12), None);
        assert!(is_document_extension("pdf"));
        assert!(is_document_extension("pptx"));
        assert!(!is_document_extension("html"));
        assert!(!is_document_extension("png"));
    }
}
