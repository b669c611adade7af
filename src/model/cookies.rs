//! A site's cookie jar (SPEC §14, `Cookies`): what the site's servers set with `Set-Cookie`
//! (on any answer, redirects included) is sent back on the site's later requests, as a browser
//! would — RFC 6265's domain, path, expiry and `Secure` rules, kept by `cookie_store`. Servers
//! that need it: a cookie wall (a request without its cookie is sent to a check page that sets
//! it and back — a redirect loop for a client without cookies) and Java-style servers that
//! write a fresh `;jsessionid=` into every link until the cookie comes back. One jar per site:
//! a cookie is never sent to another site, whatever its `Domain`.
//!
//! The jar is saved with the crawl's state (its bytes travel with a page's record), so a
//! continued crawl goes on in the same session.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use cookie_store::{Cookie, CookieStore, StoreAction};
use parking_lot::Mutex;
use url::Url;

/// A cookie whose name and value are longer than this is dropped: the size RFC 6265 §6.1 asks
/// a client to keep at least, and where browsers stop.
pub(crate) const MAX_COOKIE_BYTES: usize = 4096;
/// Cookies kept per domain (RFC 6265 §6.1's 50, as browsers): past it, the oldest goes.
pub(crate) const MAX_COOKIES_PER_DOMAIN: usize = 50;
/// Cookies kept in a site's jar (RFC 6265 §6.1's 3,000): past it, the oldest goes.
pub(crate) const MAX_COOKIES: usize = 3000;
/// Bytes of names and values a jar keeps (past it, the oldest go): the jar is saved with a
/// page's record whenever it changes, so its size bounds what a page costs the state — 3,000
/// cookies of 4 KB would be 12 MB a page.
pub(crate) const MAX_JAR_BYTES: usize = 256 * 1024;
/// The longest `Cookie` header sent: cookies past it (in RFC 6265 §5.4's order, longest path
/// then oldest first) are left out of the request. Apache's and nginx's default limit for one
/// header line is ~8 KiB: a longer header is refused with 400 or 431, so sending it would only
/// lose the page — and a request must never fail for its own headers.
pub(crate) const MAX_COOKIE_HEADER: usize = 8000;

/// Why saved cookies could not be read back.
#[derive(Debug, thiserror::Error)]
#[error("saved cookies are unreadable: {0}")]
pub struct CookieError(String);

/// A cookie's place in the store: domain, path, name.
type Key = (String, String, String);

/// The store, and when each of its cookies was created (RFC 6265 keeps a cookie's creation
/// time when it is replaced): the oldest go first when a bound is passed.
#[derive(Debug, Default)]
struct Inner {
    store: CookieStore,
    /// Each cookie's creation number and size (name and value).
    born: HashMap<Key, (u64, usize)>,
    next: u64,
    /// The sizes summed.
    bytes: usize,
}

impl Inner {
    fn key(cookie: &Cookie<'_>) -> Key {
        (
            String::from(&cookie.domain),
            String::from(&cookie.path),
            cookie.name().to_owned(),
        )
    }

    /// The creation order of a store read back: the saved order is not kept, so the cookies
    /// are numbered as they come.
    fn of(store: CookieStore) -> Inner {
        let mut inner = Inner {
            store,
            ..Inner::default()
        };
        let keys: Vec<(Key, usize)> = inner
            .store
            .iter_any()
            .map(|c| (Inner::key(c), Inner::size(c)))
            .collect();
        for (key, size) in keys {
            inner.add(key, size);
        }
        inner.bound();
        inner
    }

    fn size(cookie: &Cookie<'_>) -> usize {
        cookie.name().len() + cookie.value().len()
    }

    /// Counts a cookie stored anew (or replaced: it keeps its creation number).
    fn add(&mut self, key: Key, size: usize) {
        let next = self.next;
        let entry = self.born.entry(key).or_insert((next, 0));
        if entry.0 == next {
            self.next += 1;
        }
        self.bytes = self.bytes - entry.1 + size;
        entry.1 = size;
    }

    /// Removes the oldest cookies past [`MAX_COOKIES_PER_DOMAIN`] a domain, [`MAX_COOKIES`]
    /// in all and [`MAX_JAR_BYTES`].
    fn bound(&mut self) {
        let mut per_domain: HashMap<&str, usize> = HashMap::new();
        for (domain, _, _) in self.born.keys() {
            *per_domain.entry(domain).or_default() += 1;
        }
        let over: Vec<String> = per_domain
            .into_iter()
            .filter(|&(_, n)| n > MAX_COOKIES_PER_DOMAIN)
            .map(|(d, _)| d.to_owned())
            .collect();
        for domain in over {
            let mut of_domain: Vec<(u64, Key)> = self
                .born
                .iter()
                .filter(|(k, _)| k.0 == domain)
                .map(|(k, &(b, _))| (b, k.clone()))
                .collect();
            of_domain.sort_unstable();
            let extra = of_domain.len() - MAX_COOKIES_PER_DOMAIN;
            for (_, key) in of_domain.into_iter().take(extra) {
                self.remove(&key);
            }
        }
        if self.born.len() > MAX_COOKIES || self.bytes > MAX_JAR_BYTES {
            let mut all: Vec<(u64, Key)> = self
                .born
                .iter()
                .map(|(k, &(b, _))| (b, k.clone()))
                .collect();
            all.sort_unstable();
            for (_, key) in all {
                if self.born.len() <= MAX_COOKIES && self.bytes <= MAX_JAR_BYTES {
                    break;
                }
                self.remove(&key);
            }
        }
    }

    fn remove(&mut self, key: &Key) {
        self.store.remove(&key.0, &key.1, &key.2);
        if let Some((_, size)) = self.born.remove(key) {
            self.bytes -= size;
        }
    }
}

/// One site's cookies, shared by the site's downloads.
#[derive(Debug, Default)]
pub struct Jar {
    inner: Mutex<Inner>,
    /// Bumped by every cookie stored: a saved copy with a lower number is older.
    generation: AtomicU64,
}

/// A jar's cookies as saved with the crawl's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedJar {
    /// The jar's generation when saved: of two copies, the higher is the newer.
    pub generation: u64,
    /// The cookies (`cookie_store`'s JSON).
    pub bytes: Vec<u8>,
}

/// What an answer's `Set-Cookie` headers did to a jar.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stored {
    /// Names of the cookies set or removed (`;`-separated, in header order), for the common
    /// log; empty when none.
    pub names: String,
    /// The jar's generation after them (0: unchanged).
    pub generation: u64,
}

impl Jar {
    /// The `Cookie` header for a request to `url`, if the jar has cookies for it: in RFC 6265
    /// §5.4's order (longer paths first, then older first), at most [`MAX_COOKIE_HEADER`]
    /// bytes.
    pub fn header_for(&self, url: &Url) -> Option<String> {
        let inner = self.inner.lock();
        // RFC 6265 §5.4: longer paths first, then older first.
        let mut matched: Vec<(usize, u64, &Cookie<'static>)> = inner
            .store
            .matches(url)
            .into_iter()
            .map(|c| {
                let born = inner.born.get(&Inner::key(c)).map_or(u64::MAX, |b| b.0);
                (usize::MAX - c.path.len(), born, c)
            })
            .collect();
        matched.sort_unstable_by_key(|&(path, born, _)| (path, born));
        let mut header = String::new();
        for (_, _, c) in matched {
            let (name, value) = (c.name(), c.value());
            let sep = if header.is_empty() { 0 } else { 2 };
            if header.len() + sep + name.len() + 1 + value.len() > MAX_COOKIE_HEADER {
                continue;
            }
            if sep > 0 {
                header.push_str("; ");
            }
            header.push_str(name);
            header.push('=');
            header.push_str(value);
        }
        (!header.is_empty()).then_some(header)
    }

    /// Stores the cookies of an answer to `url` (its `Set-Cookie` header values). Cookies the
    /// RFC refuses (a `Domain` the host is not in, `Secure` over http) and cookies over
    /// [`MAX_COOKIE_BYTES`] are left out; past the jar's bounds the oldest cookies go.
    pub fn store<S: AsRef<str>>(&self, url: &Url, set_cookies: &[S]) -> Stored {
        if set_cookies.is_empty() {
            return Stored::default();
        }
        let mut inner = self.inner.lock();
        let mut out = Stored::default();
        for raw in set_cookies {
            let raw = raw.as_ref();
            let Ok(cookie) = Cookie::parse(raw, url) else {
                continue;
            };
            if cookie.name().len() + cookie.value().len() > MAX_COOKIE_BYTES {
                continue;
            }
            let cookie = cookie.into_owned();
            let (key, size) = (Inner::key(&cookie), Inner::size(&cookie));
            let done = inner.store.insert(cookie, url);
            match done {
                Ok(StoreAction::Inserted | StoreAction::UpdatedExisting) => inner.add(key, size),
                // An expired cookie is gone: it no longer counts toward the bounds.
                Ok(StoreAction::ExpiredExisting) => inner.remove(&key),
                Err(_) => continue,
            }
            if !out.names.is_empty() {
                out.names.push(';');
            }
            let name = raw.split(['=', ';']).next().unwrap_or_default().trim();
            out.names.push_str(name);
        }
        inner.bound();
        if !out.names.is_empty() {
            out.generation = self.generation.fetch_add(1, Ordering::Relaxed) + 1;
        }
        out
    }

    /// The jar as bytes (every cookie, session cookies included: a continued crawl is the
    /// same visit), with its generation.
    pub fn save(&self) -> SavedJar {
        let inner = self.inner.lock();
        let mut bytes = Vec::new();
        // Writing JSON into a Vec cannot fail; an empty jar is what is left if it did.
        let _ = cookie_store::serde::json::save_incl_expired_and_nonpersistent(
            &inner.store,
            &mut bytes,
        );
        SavedJar {
            generation: self.generation.load(Ordering::Relaxed),
            bytes,
        }
    }

    /// Replaces the jar's cookies with saved ones (cookies expired since are dropped when a
    /// request is matched; a saved jar past the bounds is cut to them), unless the jar holds
    /// newer ones already.
    pub fn restore(&self, saved: &SavedJar) -> Result<(), CookieError> {
        let loaded = cookie_store::serde::json::load_all(saved.bytes.as_slice())
            .map_err(|e| CookieError(e.to_string()))?;
        let mut inner = self.inner.lock();
        if self.generation.load(Ordering::Relaxed) <= saved.generation {
            *inner = Inner::of(loaded);
            self.generation.store(saved.generation, Ordering::Relaxed);
        }
        Ok(())
    }

    /// How many cookies it holds (expired ones included until they are replaced).
    pub fn len(&self) -> usize {
        self.inner.lock().store.iter_any().count()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn a_cookie_goes_back_to_its_domain_and_path_only() {
        let jar = Jar::default();
        let set = jar.store(
            &u("http://a.test/shop/cart"),
            &["sid=1; Path=/", "wall=ok", "bad=1; Domain=other.test"],
        );
        assert_eq!(set.names, "sid;wall");
        assert_eq!(set.generation, 1);
        let h = jar.header_for(&u("http://a.test/shop/x")).unwrap();
        assert!(
            h.contains("sid=1") && h.contains("wall=ok") && !h.contains("bad"),
            "{h}"
        );
        // Without a Path, a cookie's path is the directory of the URL that set it.
        assert_eq!(
            jar.header_for(&u("http://a.test/other")).as_deref(),
            Some("sid=1")
        );
        assert_eq!(jar.header_for(&u("http://b.test/shop/x")), None);
        // A host-only cookie is not sent to a subdomain.
        assert_eq!(jar.header_for(&u("http://sub.a.test/shop/x")), None);
    }

    #[test]
    fn secure_expired_and_removed_cookies_are_not_sent() {
        let jar = Jar::default();
        jar.store(
            &u("https://a.test/"),
            &["s=1; Secure", "old=1; Max-Age=0", "keep=1"],
        );
        assert_eq!(
            jar.header_for(&u("http://a.test/")).as_deref(),
            Some("keep=1")
        );
        let h = jar.header_for(&u("https://a.test/")).unwrap();
        assert!(
            h.contains("s=1") && h.contains("keep=1") && !h.contains("old"),
            "{h}"
        );
        let removed = jar.store(&u("https://a.test/"), &["keep=; Max-Age=0"]);
        assert_eq!(removed.names, "keep");
        assert_eq!(
            jar.header_for(&u("https://a.test/")).as_deref(),
            Some("s=1")
        );
        assert_eq!(
            jar.store(&u("http://a.test/"), &[] as &[&str]),
            Stored::default()
        );
    }

    #[test]
    fn a_saved_jar_comes_back_with_its_session_cookies_unless_newer_ones_are_held() {
        let jar = Jar::default();
        jar.store(&u("http://a.test/"), &["JSESSIONID=abc; Path=/; HttpOnly"]);
        let saved = jar.save();
        let again = Jar::default();
        again.restore(&saved).unwrap();
        assert_eq!(
            again.header_for(&u("http://a.test/x")).as_deref(),
            Some("JSESSIONID=abc")
        );
        // A jar that changed since keeps its cookies.
        jar.store(&u("http://a.test/"), &["JSESSIONID=def; Path=/"]);
        jar.restore(&saved).unwrap();
        assert_eq!(
            jar.header_for(&u("http://a.test/x")).as_deref(),
            Some("JSESSIONID=def")
        );
        let torn = SavedJar {
            generation: 1,
            bytes: b"{not json".to_vec(),
        };
        assert!(Jar::default().restore(&torn).is_err());
    }

    #[test]
    fn the_jar_is_bounded_as_browsers_bound_it() {
        let jar = Jar::default();
        // A cookie over 4096 bytes is dropped; one of 4096 is kept.
        let big = format!("big={}", "x".repeat(MAX_COOKIE_BYTES));
        let fits = format!("fits={}", "x".repeat(MAX_COOKIE_BYTES - 4));
        let set = jar.store(&u("http://a.test/"), &[big.as_str(), fits.as_str()]);
        assert_eq!(set.names, "fits");
        assert_eq!(jar.len(), 1);
        // 60 cookies on one domain: the 50 newest stay.
        let many: Vec<String> = (0..60).map(|i| format!("c{i}=v; Path=/")).collect();
        jar.store(&u("http://a.test/"), &many);
        assert_eq!(jar.len(), MAX_COOKIES_PER_DOMAIN);
        let h = jar.header_for(&u("http://a.test/")).unwrap();
        assert!(
            !h.contains("fits=")
                && !h.contains("c9=")
                && h.contains("c10=v")
                && h.contains("c59=v"),
            "{h}"
        );
        // The header never passes its bound, whatever the jar holds.
        let jar = Jar::default();
        let six: Vec<String> = (0..6)
            .map(|i| format!("k{i}={}; Path=/", "y".repeat(3500)))
            .collect();
        jar.store(&u("http://a.test/"), &six);
        assert_eq!(jar.len(), 6);
        let h = jar.header_for(&u("http://a.test/page")).unwrap();
        assert!(
            h.len() <= MAX_COOKIE_HEADER && h.starts_with("k0="),
            "{}",
            h.len()
        );
        // Longer paths first.
        jar.store(&u("http://a.test/deep/x"), &["deep=1; Path=/deep"]);
        assert!(
            jar.header_for(&u("http://a.test/deep/x"))
                .unwrap()
                .starts_with("deep=1; k0=")
        );
    }

    #[test]
    fn thousands_of_cookies_over_many_domains_stay_at_3000_and_saved_jars_are_cut_too() {
        let jar = Jar::default();
        for d in 0..80 {
            let url = u(&format!("http://h{d}.a.test/"));
            let set: Vec<String> = (0..45)
                .map(|i| format!("n{i}=v; Domain=h{d}.a.test"))
                .collect();
            jar.store(&url, &set);
        }
        assert_eq!(jar.len(), MAX_COOKIES);
        // The oldest domains' cookies went first.
        assert_eq!(jar.header_for(&u("http://h0.a.test/")), None);
        assert!(jar.header_for(&u("http://h79.a.test/")).is_some());
        // Expired cookies leave the jar (and the count).
        jar.store(
            &u("http://h79.a.test/"),
            &["n0=; Domain=h79.a.test; Max-Age=0"],
        );
        assert_eq!(jar.len(), MAX_COOKIES - 1);
        let saved = jar.save();
        let again = Jar::default();
        again.restore(&saved).unwrap();
        assert_eq!(again.len(), MAX_COOKIES - 1);
    }

    #[test]
    fn a_jar_keeps_at_most_its_bytes_and_a_replaced_cookie_keeps_its_age() {
        let jar = Jar::default();
        // 100 domains of 40 cookies of 4 KB: 16 MB offered, at most MAX_JAR_BYTES kept.
        for d in 0..100 {
            let url = u(&format!("http://h{d}.a.test/"));
            let set: Vec<String> = (0..40)
                .map(|i| format!("n{i}={}; Domain=h{d}.a.test", "v".repeat(4000)))
                .collect();
            jar.store(&url, &set);
        }
        assert!(jar.inner.lock().bytes <= MAX_JAR_BYTES);
        assert_eq!(jar.len(), MAX_JAR_BYTES / 4002);
        assert!(jar.save().bytes.len() < 2 * MAX_JAR_BYTES);
        // Replacing the oldest cookie keeps it the oldest: it goes first.
        let jar = Jar::default();
        let url = u("http://a.test/");
        let set: Vec<String> = (0..50).map(|i| format!("c{i}=1")).collect();
        jar.store(&url, &set);
        jar.store(&url, &["c0=2"]);
        jar.store(&url, &["new=1"]);
        let h = jar.header_for(&url).unwrap();
        assert!(
            !h.contains("c0=") && h.contains("c1=1") && h.contains("new=1"),
            "{h}"
        );
    }
}
