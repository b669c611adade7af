//! Key domains (SPEC §6, Wen et al. 2014 §2.1.4): what of a seed's host names the
//! organisation, so that a link whose host carries it is in the seed's scope —
//! `mil.news.sina.com.cn` is in the scope of `www.sina.com.cn`, whose key domain is `sina`.
//!
//! Two ways to find them (`KeyDomainSource`):
//! - **Labels**, the paper's: the host's labels minus the common ones (`CommonDomainLabels`).
//!   Its weakness is a label the list lacks: `www.spbu.spb.ru` without `spb` in the list
//!   makes `spb` a key domain and every `*.spb.ru` host part of the scope. Two guards: the
//!   top-level label is never a key domain (`www.uni.fi` does not put every `.fi` host in
//!   scope), and an IP address has none (its scope is the seed site alone).
//! - **PublicSuffix**: the one label left of the host's public suffix, from the Public Suffix
//!   List compiled into the `psl` crate: `www.spbu.spb.ru` → `spbu`, `news.bbc.co.uk` → `bbc`.

use std::net::IpAddr;

use super::trie::LabelTrie;

/// Where key domains come from (`KeyDomainSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyDomainSource {
    /// The host's labels minus the common ones (the paper's).
    Labels,
    /// The label left of the public suffix.
    PublicSuffix,
}

/// Derives key domains from seed hosts.
#[derive(Debug, Clone)]
pub(crate) struct KeyDomains {
    source: KeyDomainSource,
    common: LabelTrie,
}

impl KeyDomains {
    /// With `source`, and `common` labels for [`KeyDomainSource::Labels`].
    pub(crate) fn new<'a>(
        source: KeyDomainSource,
        common: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        KeyDomains {
            source,
            common: common
                .into_iter()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str)
                .collect(),
        }
    }

    /// The key domains of `host` (lower-case, as in URLs), in label order.
    pub(crate) fn of(&self, host: &str) -> Vec<String> {
        let host = host.trim_end_matches('.');
        if host.is_empty() || host.parse::<IpAddr>().is_ok() || host.starts_with('[') {
            return Vec::new();
        }
        match self.source {
            KeyDomainSource::Labels => {
                let labels: Vec<&str> = host.split('.').collect();
                let last = labels.len().saturating_sub(1);
                let mut out: Vec<String> = Vec::new();
                for (i, l) in labels.iter().enumerate() {
                    let keep = (i < last || labels.len() == 1) && !self.common.contains(l);
                    if keep && !l.is_empty() && !out.iter().any(|o| o == l) {
                        out.push((*l).to_owned());
                    }
                }
                out
            }
            KeyDomainSource::PublicSuffix => psl::domain_str(host)
                .and_then(|d| d.split('.').next())
                .filter(|l| !l.is_empty())
                .map(|l| vec![l.to_owned()])
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::setting_keys::COMMON_DOMAIN_LABELS;

    fn paper() -> KeyDomains {
        KeyDomains::new(
            KeyDomainSource::Labels,
            "www,com,cn,edu,org,gov,net".split(','),
        )
    }

    #[test]
    fn the_papers_examples() {
        let k = paper();
        assert_eq!(k.of("www.sina.com.cn"), ["sina"]);
        // Its experiment: the seeds' key domains are 163, souhu, uestc and ctbu.
        let seeds = [
            "www.163.com",
            "www.souhu.com",
            "www.uestc.edu.cn",
            "www.ctbu.edu.cn",
        ];
        let keys: Vec<String> = seeds.iter().flat_map(|h| k.of(h)).collect();
        assert_eq!(keys, ["163", "souhu", "uestc", "ctbu"]);
        let trie: LabelTrie = keys.iter().map(String::as_str).collect();
        assert!(!trie.any_label_of("mil.news.sina.com.cn"));
        let sina: LabelTrie = k.of("www.sina.com.cn").iter().map(String::as_str).collect();
        assert!(sina.any_label_of("mil.news.sina.com.cn"));
        assert!(!sina.any_label_of("www.sohu.com"));
    }

    #[test]
    fn labels_misfire_on_public_suffixes_and_the_list_guards() {
        let k = paper();
        // Without spb and ru in the list, both look like names: every *.spb.ru host would be
        // in scope (the top-level guard removes ru, not spb).
        assert_eq!(k.of("www.spbu.spb.ru"), ["spbu", "spb"]);
        assert_eq!(k.of("news.bbc.co.uk"), ["news", "bbc", "co"]);
        let shipped = KeyDomains::new(KeyDomainSource::Labels, COMMON_DOMAIN_LABELS.split(','));
        assert_eq!(shipped.of("www.spbu.spb.ru"), ["spbu"]);
        assert_eq!(shipped.of("www.uni.fi"), ["uni"], "never the top level");
        assert_eq!(shipped.of("127.0.0.1"), Vec::<String>::new());
        assert_eq!(shipped.of("localhost"), ["localhost"]);
    }

    #[test]
    fn the_public_suffix_list_finds_the_registrable_name() {
        let k = KeyDomains::new(KeyDomainSource::PublicSuffix, [""]);
        assert_eq!(k.of("www.spbu.spb.ru"), ["spbu"]);
        assert_eq!(k.of("news.bbc.co.uk"), ["bbc"]);
        assert_eq!(k.of("www.sina.com.cn"), ["sina"]);
        assert_eq!(k.of("mil.news.sina.com.cn"), ["sina"]);
        // An unknown top level (the tests' .test) counts as one label.
        assert_eq!(k.of("lib.uni.test"), ["uni"]);
        assert_eq!(k.of("co.uk"), Vec::<String>::new(), "a suffix names nobody");
    }
}
