//! Charset decoding and link extraction (with 80 characters of context and the body text),
//! then resolving every link: never panics, and every anchor, context, title and body stays
//! within its size cap and free of control characters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rccrawler::crawl::parse::{charset, links};
use rccrawler::model::url_norm::normalize;

fuzz_target!(|data: &[u8]| {
    let (text, _) = charset::decode(data, Some("text/html"), None);
    let mut extracted = links::Extracted::default();
    let wanted = links::Wanted {
        context: 80,
        body_text: true,
        agent: "rccrawler",
    };
    links::extract_into(&text, &mut extracted, wanted);
    let base = url::Url::parse("http://a.test/dir/page.html").expect("a valid base");
    for link in extracted.links() {
        assert!(link.anchor.len() <= 1000 && !link.anchor.chars().any(char::is_control));
        assert!(link.context.chars().count() <= 80 && !link.context.chars().any(char::is_control));
        let _ = normalize(&base, link.href);
    }
    assert!(extracted.title.len() <= 1000);
    assert!(extracted.body.len() <= links::MAX_BODY_BYTES);
    assert!(!extracted.body.chars().any(char::is_control));
});
