//! What one site of the network is (`NetworkUnit`): a registrable domain by the Public Suffix
//! List (ICANN and private sections, compiled into the `psl` crate) — `lib.uni.edu` and
//! `www.uni.edu` are `uni.edu`, `a.b.co.uk` is `b.co.uk`, `x.y.spb.ru` is `y.spb.ru` — or each
//! host. A host without a registrable domain (an IP address, a dotless name, a public suffix
//! itself) is its own unit.

use std::net::IpAddr;

/// Whether a unit's name can be a public web site's: it has a dot or is an IP address. A
/// name without one (`sec0` from a `//sec0/…` link, `intranet`) is an intranet's host or a
/// broken link's, which no one outside can crawl.
pub(crate) fn is_public_name(name: &str) -> bool {
    let host = name.rsplit("://").next().unwrap_or(name);
    let host = host.split(['/', ':']).next().unwrap_or(host);
    host.contains('.') || host.starts_with('[') || host.parse::<std::net::IpAddr>().is_ok()
}

/// The registrable domain of `host` (lower case, as in URLs), or the host itself when it has
/// none. The report's "registrable domains" are these too.
pub(crate) fn registrable_domain(host: &str) -> &str {
    let bare = host.trim_end_matches('.');
    if bare.starts_with('[') || bare.parse::<IpAddr>().is_ok() || !bare.contains('.') {
        return host;
    }
    psl::domain_str(bare).unwrap_or(host)
}

/// How hosts are grouped into the network's sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// By registrable domain (`NetworkUnit = domain`, the default).
    Domain,
    /// Each host (`NetworkUnit = host`).
    Host,
}

impl Unit {
    /// The unit `host` belongs to.
    pub fn of(self, host: &str) -> &str {
        match self {
            Unit::Domain => registrable_domain(host),
            Unit::Host => host,
        }
    }
}

/// The classes of the accompanying set by how many targets link to a site (`NetworkSubsets`):
/// each class from one lower bound to the next, the last open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subsets {
    bounds: Vec<u32>,
}

impl Subsets {
    /// Classes from `bounds` (at least 1, ascending; settings check them).
    pub fn new(bounds: &[u32]) -> Self {
        Subsets {
            bounds: bounds.to_vec(),
        }
    }

    /// The class of a site linked by `targets` targets (`None` below the first bound).
    pub fn class_of(&self, targets: u32) -> Option<usize> {
        self.bounds.iter().rposition(|&b| b <= targets)
    }

    /// Each class's name, in order: `1`, `2-4`, `5-9`, `10+` for the bounds 1, 2, 5, 10.
    pub fn names(&self) -> Vec<String> {
        self.bounds
            .iter()
            .enumerate()
            .map(|(i, &lo)| match self.bounds.get(i + 1) {
                Some(&next) if next == lo + 1 => lo.to_string(),
                Some(&next) => format!("{lo}-{}", next - 1),
                None => format!("{lo}+"),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_by_the_public_suffix_list_and_hosts_without_one() {
        for (host, domain) in [
            ("lib.uni.edu", "uni.edu"),
            ("a.b.co.uk", "b.co.uk"),
            ("x.y.spb.ru", "y.spb.ru"),
            ("www.uni.test", "uni.test"),
            ("10.1.2.3", "10.1.2.3"),
            ("[::1]", "[::1]"),
            ("intranet", "intranet"),
            ("co.uk", "co.uk"),
        ] {
            assert_eq!(Unit::Domain.of(host), domain, "{host}");
            assert_eq!(Unit::Host.of(host), host);
        }
    }

    #[test]
    fn the_default_subsets_are_1_2_to_4_5_to_9_and_10_up() {
        let s = Subsets::new(&[1, 2, 5, 10]);
        assert_eq!(s.names(), ["1", "2-4", "5-9", "10+"]);
        let classes: Vec<Option<usize>> = [0, 1, 2, 4, 5, 9, 10, 400]
            .iter()
            .map(|&n| s.class_of(n))
            .collect();
        assert_eq!(
            classes,
            [
                None,
                Some(0),
                Some(1),
                Some(1),
                Some(2),
                Some(2),
                Some(3),
                Some(3)
            ]
        );
        assert_eq!(Subsets::new(&[3]).names(), ["3+"]);
    }
}
