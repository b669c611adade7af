//! URL resolution and normalization: never panics, and a normal form is a fixed point.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rccrawler::url_norm::{NormUrl, normalize};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (base, href) = text.split_once('\n').unwrap_or(("http://a.test/b/c?d=e", text));
    let Ok(base) = url::Url::parse(base) else { return };
    if let Ok(n) = normalize(&base, href) {
        let again = NormUrl::parse(n.as_str()).expect("a normal form parses");
        assert_eq!(again, n, "normalizing twice changed {n}");
        let _ = n.path_and_query();
    }
});
