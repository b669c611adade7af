//! What links and pages say about themselves (SPEC §17): a link's `rel` qualifiers
//! (`nofollow`, `ugc`, `sponsored`) and a page's robots directives (`<meta name="robots">`
//! and the `X-Robots-Tag` header). The graph records them and lets the study choose; with
//! `FollowNofollow = no` the crawl also obeys them, as Nutch and crawler4j do.

use std::fmt;

/// A link's `rel` qualifiers: the three that ask search engines not to pass credit through
/// it. Other `rel` tokens (`noopener`, `external`, …) say nothing about the link's weight and
/// are not kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rel(u8);

impl Rel {
    /// No qualifier.
    pub const NONE: Rel = Rel(0);
    /// `nofollow`.
    pub const NOFOLLOW: Rel = Rel(1);
    /// `ugc` (user-generated content).
    pub const UGC: Rel = Rel(2);
    /// `sponsored` (advertising).
    pub const SPONSORED: Rel = Rel(4);
    /// Not a `rel` token: the link is in the DOM a browser rendered and not in the HTML the
    /// server sent (SPEC §18; edges.csv and external_links.csv `ScriptOnly`). Kept with the
    /// qualifiers because it travels with each link the same way.
    pub const SCRIPT_ONLY: Rel = Rel(8);
    /// The bits a [`Rel`] uses: it fits in four.
    pub const BITS: u32 = 4;

    /// The qualifiers of a `rel` attribute's value: tokens separated by ASCII whitespace,
    /// any case (`rel="NoFollow ugc"`).
    pub fn parse(value: &str) -> Rel {
        let mut rel = 0;
        for token in value.split_ascii_whitespace() {
            for (name, bit) in NAMES {
                if token.eq_ignore_ascii_case(name) {
                    rel |= bit.0;
                }
            }
        }
        Rel(rel)
    }

    /// From its bits (as [`Self::bits`] gave them; bits beyond the three are dropped).
    pub fn from_bits(bits: u32) -> Rel {
        Rel((bits & 0b1111) as u8)
    }

    /// Its bits.
    pub fn bits(self) -> u32 {
        u32::from(self.0)
    }

    /// Whether the link carries any of the three: edges.csv's `Nofollow` counts these links,
    /// and `FollowNofollow = no` does not follow them (search engines treat `ugc` and
    /// `sponsored` as kinds of `nofollow`).
    pub fn is_nofollow(self) -> bool {
        self.0 & 0b111 != 0
    }

    /// Whether the link is only in the rendered DOM (see [`Rel::SCRIPT_ONLY`]).
    pub fn is_script_only(self) -> bool {
        self.0 & Rel::SCRIPT_ONLY.0 != 0
    }

    /// These qualifiers and `other`'s.
    pub fn with(self, other: Rel) -> Rel {
        Rel(self.0 | other.0)
    }
}

const NAMES: [(&str, Rel); 3] = [
    ("nofollow", Rel::NOFOLLOW),
    ("ugc", Rel::UGC),
    ("sponsored", Rel::SPONSORED),
];

impl fmt::Display for Rel {
    /// The qualifiers in a fixed order, separated by spaces (`nofollow ugc`); nothing when
    /// there is none.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (name, bit) in NAMES {
            if self.0 & bit.0 != 0 {
                if !first {
                    f.write_str(" ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

/// Directives with a value after a colon (`max-snippet:50`): what comes before their colon
/// is not a user agent's name.
const VALUED: [&str; 4] = [
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "unavailable_after",
];

/// Longest directive list kept for one page: an `X-Robots-Tag` is the server's text, and
/// nodes.csv is not the place for a kilobyte of it.
const MAX_DIRECTIVES_BYTES: usize = 256;

/// A page's robots directives, as nodes.csv's `Robots` writes them: lower case, each once,
/// in the order met (meta tags first, then headers), comma-separated; `none` written as the
/// two it stands for (`noindex,nofollow`), so that a study filtering on `nofollow` finds it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Robots {
    text: String,
}

impl Robots {
    /// The directives of `<meta name="robots">` or `<meta name="AGENT">` contents
    /// (`metas`, each a comma-separated list) and of `X-Robots-Tag` header values
    /// (`headers`), keeping those for every crawler and for `agent` (our robots.txt product
    /// token, any case). A header's directives may be prefixed by the crawler they are for
    /// (`X-Robots-Tag: googlebot: noindex`); a prefix holds until the next one.
    pub fn gather<'a>(
        metas: impl IntoIterator<Item = &'a str>,
        headers: impl IntoIterator<Item = &'a str>,
        agent: &str,
    ) -> Robots {
        let mut robots = Robots::default();
        for content in metas {
            for item in content.split(',') {
                robots.add(item);
            }
        }
        for value in headers {
            let mut ours = true;
            for item in value.split(',') {
                let item = match for_agent(item) {
                    Some((name, rest)) => {
                        ours = name.eq_ignore_ascii_case(agent);
                        rest
                    }
                    None => item,
                };
                if ours {
                    robots.add(item);
                }
            }
        }
        robots
    }

    /// A page's directives as [`Self::as_str`] gave them (read back from the crawl's records).
    pub fn from_text(text: &str) -> Robots {
        Robots {
            text: text.to_owned(),
        }
    }

    fn add(&mut self, item: &str) {
        // Lower case, runs of spaces as one, none beside a value's colon (`max-snippet: 20`).
        let words: Vec<String> = item
            .split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let item = words.join(" ").replace(": ", ":").replace(" :", ":");
        match item.as_str() {
            "" => {}
            "none" => {
                self.push("noindex");
                self.push("nofollow");
            }
            _ => self.push(&item),
        }
    }

    fn push(&mut self, directive: &str) {
        if self.text.split(',').any(|d| d == directive)
            || self.text.len() + directive.len() + 1 > MAX_DIRECTIVES_BYTES
        {
            return;
        }
        if !self.text.is_empty() {
            self.text.push(',');
        }
        self.text.push_str(directive);
    }

    /// The directives, comma-separated (empty: none).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the page asks that its links not be followed (`nofollow`, or `none`).
    pub fn is_nofollow(&self) -> bool {
        is_nofollow(&self.text)
    }
}

/// Whether a [`Robots::as_str`] text holds `nofollow`.
pub fn is_nofollow(directives: &str) -> bool {
    directives.split(',').any(|d| d == "nofollow")
}

/// `name: rest` when an item of an `X-Robots-Tag` starts with the name of the crawler it is
/// for: a single word before a colon that is not a directive taking a value.
fn for_agent(item: &str) -> Option<(&str, &str)> {
    let (name, rest) = item.split_once(':')?;
    let name = name.trim();
    let word = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    (word && !VALUED.iter().any(|v| name.eq_ignore_ascii_case(v))).then_some((name, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rel_reads_the_three_qualifiers_in_any_case_and_order() {
        assert_eq!(Rel::parse("NoFollow ugc").to_string(), "nofollow ugc");
        assert_eq!(
            Rel::parse(" sponsored\tNOFOLLOW ").to_string(),
            "nofollow sponsored"
        );
        assert_eq!(Rel::parse("UGC").to_string(), "ugc");
        assert!(Rel::parse("ugc").is_nofollow());
        assert!(Rel::parse("Sponsored").is_nofollow());
        // Other tokens, and the qualifiers glued to others, are not the qualifiers.
        for value in [
            "",
            "noopener noreferrer",
            "external",
            "nofollowed",
            "no-follow",
            "nofollow,ugc",
        ] {
            assert_eq!(Rel::parse(value), Rel::NONE, "{value}");
        }
        let all = Rel::parse("sponsored ugc nofollow");
        assert_eq!(Rel::from_bits(all.bits()), all);
        assert_eq!(all.bits(), 7);
    }

    #[test]
    fn robots_directives_are_gathered_from_meta_tags_and_headers() {
        let r = Robots::gather(["NOINDEX, NoFollow", "noindex"], [], "rccrawler");
        assert_eq!(r.as_str(), "noindex,nofollow");
        assert!(r.is_nofollow());
        let none = Robots::gather(["None"], [], "rccrawler");
        assert_eq!(none.as_str(), "noindex,nofollow");
        let index = Robots::gather(["index, follow", " "], [], "rccrawler");
        assert_eq!(index.as_str(), "index,follow");
        assert!(!index.is_nofollow());
        assert_eq!(Robots::gather([], [], "rccrawler").as_str(), "");
    }

    #[test]
    fn a_header_for_another_crawler_is_not_ours() {
        let r = Robots::gather(
            [],
            [
                "googlebot: nofollow",
                "RCCrawler: noindex",
                "noarchive",
                "otherbot: none, rccrawler: nosnippet",
            ],
            "rccrawler",
        );
        assert_eq!(r.as_str(), "noindex,noarchive,nosnippet");
        assert!(!r.is_nofollow());
        // A directive with a value is not a crawler's name.
        let r = Robots::gather(
            [],
            ["max-snippet: 20, unavailable_after: 25 Jun 2010 15:00:00 PST"],
            "rccrawler",
        );
        assert_eq!(
            r.as_str(),
            "max-snippet:20,unavailable_after:25 jun 2010 15:00:00 pst"
        );
    }

    #[test]
    fn directives_are_bounded() {
        let long = "x".repeat(100);
        let many: Vec<String> = (0..20).map(|i| format!("{long}{i}")).collect();
        let r = Robots::gather(many.iter().map(String::as_str), [], "a");
        assert!(r.as_str().len() <= MAX_DIRECTIVES_BYTES);
        assert_eq!(r.as_str().split(',').count(), 2);
    }
}
