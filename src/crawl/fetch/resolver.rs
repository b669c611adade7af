//! Which address a host name goes to: the `Resolve` overrides (curl's `--resolve`), IP
//! literals as they are, and everything else through the system resolver, cached.
//!
//! Why a cache: ureq resolves the host before it looks in its connection pool, on every
//! request, and with a timeout set it does so on a freshly spawned thread. Uncached, a crawl
//! spawned one thread and made one system lookup per page (50,000 of each on the benchmark
//! site, a tenth of the downloaders' CPU).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dashmap::DashMap;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

use crate::crawl::settings::ResolveEntry;

/// How long a successful lookup is reused. The system resolver does not report the record's
/// TTL; five minutes follows a moved site soon enough and costs one lookup per site per five
/// minutes. Failures are not cached: retries with back-off are the right answer to those.
const LOOKUP_TTL: Duration = Duration::from_secs(300);

/// The resolver every per-site agent shares (cloning shares the cache).
#[derive(Debug, Clone)]
pub(super) struct CachingResolver {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// The `Resolve` entries, shared with the settings, and their positions sorted by host: a
    /// test web or a benchmark lists thousands (a map of copies cost ~100 bytes a host; this
    /// costs 4), and every request looks here first, by binary search.
    overrides: Arc<[ResolveEntry]>,
    by_host: Box<[u32]>,
    /// The wildcard entries (`*.test`), as (`.test`, position), longest domain first: few.
    under: Box<[(Box<str>, u32)]>,
    cache: DashMap<(Box<str>, u16), Lookup>,
    system: DefaultResolver,
}

#[derive(Debug)]
struct Lookup {
    addrs: Vec<SocketAddr>,
    until: Instant,
}

impl CachingResolver {
    /// A resolver applying `overrides` before the system resolver.
    pub(super) fn new(overrides: Arc<[ResolveEntry]>) -> Self {
        let mut by_host: Vec<u32> = (0..overrides.len() as u32).collect();
        // Stable: a host's entries keep the order they were written in.
        by_host.sort_by(|&a, &b| overrides[a as usize].host.cmp(&overrides[b as usize].host));
        let mut under: Vec<(Box<str>, u32)> = by_host
            .iter()
            .filter_map(|&i| {
                let domain = overrides[i as usize].host.strip_prefix('*')?;
                Some((domain.into(), i))
            })
            .collect();
        // The most specific domain first (`*.a.test` before `*.test`); stable, so a domain's
        // entries keep their written order.
        under.sort_by_key(|(d, _)| std::cmp::Reverse(d.len()));
        CachingResolver {
            shared: Arc::new(Shared {
                overrides,
                by_host: by_host.into_boxed_slice(),
                under: under.into_boxed_slice(),
                cache: DashMap::new(),
                system: DefaultResolver::default(),
            }),
        }
    }

    /// The address `Resolve` gives `host` on `port`: its first entry for that port or any;
    /// without one, the first of the most specific wildcard (`*.test`) it falls under.
    fn overridden(&self, host: &str, port: u16) -> Option<IpAddr> {
        let s = &self.shared;
        let entry = |i: &u32| &s.overrides[*i as usize];
        let first = s.by_host.partition_point(|i| entry(i).host.as_str() < host);
        let exact = s.by_host[first..]
            .iter()
            .map(entry)
            .take_while(|e| e.host == host)
            .find(|e| e.port.is_none_or(|p| p == port));
        exact
            .or_else(|| {
                s.under
                    .iter()
                    .filter(|(domain, _)| host.ends_with(&**domain) && host.len() > domain.len())
                    .map(|(_, i)| entry(i))
                    .find(|e| e.port.is_none_or(|p| p == port))
            })
            .map(|e| e.addr)
    }

    /// The addresses of `host` on `port` if they are known without asking the system
    /// resolver (an override, an IP literal, a fresh cached lookup): a loop of many requests
    /// cannot wait for a lookup.
    pub(super) fn known(&self, host: &str, port: u16) -> Option<Vec<SocketAddr>> {
        let host = host.to_ascii_lowercase();
        if let Some(addr) = self.overridden(&host, port) {
            return Some(vec![SocketAddr::new(addr, port)]);
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Some(vec![SocketAddr::new(ip, port)]);
        }
        let hit = self.shared.cache.get(&(host.into_boxed_str(), port))?;
        (hit.until > Instant::now()).then(|| hit.addrs.clone())
    }

    fn answer(&self, addrs: impl IntoIterator<Item = SocketAddr>) -> ResolvedSocketAddrs {
        let mut out = self.empty();
        for a in addrs {
            if out.try_push(a).is_err() {
                break;
            }
        }
        out
    }
}

impl Resolver for CachingResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let Some(authority) = uri.authority() else {
            return self.shared.system.resolve(uri, config, timeout);
        };
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let port = authority
            .port_u16()
            .unwrap_or(if uri.scheme_str() == Some("https") {
                443
            } else {
                80
            });
        let shared = &self.shared;
        // Overrides, literals and fresh cached lookups: the same answers `DT1`'s loop reads.
        if let Some(addrs) = self.known(&host, port) {
            return Ok(self.answer(addrs));
        }
        let key = (host.into_boxed_str(), port);
        let now = Instant::now();
        // Any failure of the system resolver means the name does not resolve (ureq reports
        // some of them as I/O errors).
        let found = match shared.system.resolve(uri, config, timeout) {
            Err(ureq::Error::Io(_)) => return Err(ureq::Error::HostNotFound),
            other => other?,
        };
        shared.cache.insert(
            key,
            Lookup {
                addrs: found.iter().copied().collect(),
                until: now + LOOKUP_TTL,
            },
        );
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn resolve(r: &CachingResolver, uri: &str) -> Result<Vec<SocketAddr>, ureq::Error> {
        let uri: Uri = uri.parse().unwrap();
        let config = ureq::config::Config::default();
        r.resolve(&uri, &config, NextTimeout::default())
            .map(|a| a.iter().copied().collect())
    }

    /// 127.0.0.`d`.
    fn ip(d: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, d))
    }

    /// A `Resolve` entry: `host` (on `port`, or any) at 127.0.0.`d`.
    fn entry(host: &str, port: Option<u16>, d: u8) -> ResolveEntry {
        ResolveEntry {
            host: host.into(),
            port,
            addr: ip(d),
        }
    }

    #[test]
    fn a_hosts_entries_are_found_among_thousands_in_the_order_written() {
        let mut entries: Vec<ResolveEntry> = (0..3000)
            .map(|i| entry(&format!("s{}.test", (i * 7919) % 3000), None, 1))
            .collect();
        let c = |port, d| entry("c.test", port, d);
        entries.insert(1000, c(Some(81), 3));
        entries.insert(10, c(None, 4));
        entries.push(c(Some(82), 5));
        let r = CachingResolver::new(entries.into());
        // The first entry written that applies: c.test's port-less line comes first.
        assert_eq!(r.overridden("c.test", 81), Some(ip(4)));
        assert_eq!(r.overridden("c.test", 82), Some(ip(4)));
        assert_eq!(r.overridden("s2999.test", 80), Some(ip(1)));
        assert_eq!(r.overridden("s0.test", 80), Some(ip(1)));
        assert_eq!(r.overridden("d.test", 80), None);
        assert_eq!(r.overridden("b.test", 80), None);
        let r = CachingResolver::new(Arc::from([c(Some(81), 3), c(None, 4)]));
        assert_eq!(r.overridden("c.test", 81), Some(ip(3)));
        assert_eq!(r.overridden("c.test", 9), Some(ip(4)));
    }

    #[test]
    fn a_wildcard_maps_every_host_under_its_domain_and_a_host_s_own_entry_comes_first() {
        let e = entry;
        let r = CachingResolver::new(Arc::from([
            e("*.test", None, 1),
            e("b.test", None, 2),
            e("*.a.test", Some(81), 3),
            e("*.a.test", None, 4),
        ]));
        assert_eq!(r.overridden("s999999-t3.test", 80), Some(ip(1)));
        assert_eq!(r.overridden("x.y.test", 80), Some(ip(1)));
        assert_eq!(r.overridden("b.test", 80), Some(ip(2)));
        // The most specific domain, then the first entry for the port.
        assert_eq!(r.overridden("sub.a.test", 81), Some(ip(3)));
        assert_eq!(r.overridden("sub.a.test", 80), Some(ip(4)));
        assert_eq!(r.overridden("a.test", 80), Some(ip(1)));
        // Not the domain itself, nor a name that merely ends like it.
        assert_eq!(r.overridden("test", 80), None);
        assert_eq!(r.overridden("atest", 80), None);
        assert_eq!(r.overridden("a.example", 80), None);
        assert_eq!(
            resolve(&r, "http://S1.test:8080/").unwrap(),
            vec!["127.0.0.1:8080".parse().unwrap()]
        );
        assert!(r.shared.cache.is_empty());
    }

    #[test]
    fn overrides_then_literals_then_cached_lookups() {
        let r = CachingResolver::new(Arc::from([
            entry("a.test", None, 1),
            entry("b.test", Some(8080), 2),
        ]));
        assert_eq!(
            resolve(&r, "http://A.test:81/x").unwrap(),
            vec!["127.0.0.1:81".parse().unwrap()]
        );
        assert_eq!(
            resolve(&r, "http://b.test:8080/").unwrap(),
            vec!["127.0.0.2:8080".parse().unwrap()]
        );
        assert_eq!(
            resolve(&r, "https://[::1]/").unwrap(),
            vec!["[::1]:443".parse().unwrap()]
        );
        assert!(
            r.shared.cache.is_empty(),
            "overrides and literals need no cache"
        );
        // `localhost` goes to the system resolver, once.
        let first = resolve(&r, "http://localhost:9/").unwrap();
        assert!(!first.is_empty());
        assert_eq!(r.shared.cache.len(), 1);
        assert_eq!(resolve(&r, "http://localhost:9/").unwrap(), first);
        assert_eq!(r.shared.cache.len(), 1);
        // Known without a lookup: overrides, literals, and what a lookup cached.
        assert_eq!(
            r.known("A.test", 81),
            Some(vec!["127.0.0.1:81".parse().unwrap()])
        );
        assert_eq!(r.known("::1", 80), Some(vec!["[::1]:80".parse().unwrap()]));
        assert_eq!(r.known("localhost", 9), Some(first));
        assert_eq!(r.known("localhost", 10), None, "never looked up");
    }

    #[test]
    fn unknown_names_are_host_not_found_and_not_cached() {
        let r = CachingResolver::new(Arc::from([]));
        let e = resolve(&r, "http://no-such-host.invalid/").unwrap_err();
        assert!(matches!(e, ureq::Error::HostNotFound), "{e:?}");
        assert!(r.shared.cache.is_empty());
    }
}
