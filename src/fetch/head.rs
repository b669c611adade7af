//! What the walk reads of an answer's status line and headers ([`Head`]), and what a page's
//! headers say about its body ([`Declared`]), for both downloaders.

use super::client::Response;

/// What a page's headers say about its body: its type, and the robots directives of its
/// `X-Robots-Tag` headers (SPEC §17).
#[derive(Debug, Clone, Default)]
pub(crate) struct Declared {
    /// `Content-Type`.
    pub(crate) content_type: Option<String>,
    /// Every `X-Robots-Tag` value, one per line.
    pub(crate) robots_tag: Option<String>,
}

impl Declared {
    /// What a response of the blocking client declares.
    pub(crate) fn of(response: &Response) -> Self {
        Declared {
            content_type: response.content_type.clone(),
            robots_tag: response.robots_tag.clone(),
        }
    }
}

/// What the walk needs of an answer's status line and headers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head<'r> {
    /// Status code.
    pub(crate) status: u16,
    /// `Location`.
    pub(crate) location: Option<&'r str>,
    /// `Content-Type`.
    pub(crate) content_type: Option<&'r str>,
    /// `Retry-After`.
    pub(crate) retry_after: Option<&'r str>,
    /// Every `Set-Cookie` value.
    pub(crate) set_cookies: &'r [String],
}

impl<'r> Head<'r> {
    /// The head of a response of the blocking client.
    pub(crate) fn of(response: &'r Response) -> Self {
        Head {
            status: response.status,
            location: response.location.as_deref(),
            content_type: response.content_type.as_deref(),
            retry_after: response.retry_after.as_deref(),
            set_cookies: &response.set_cookies,
        }
    }
}
