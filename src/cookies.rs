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

use std::sync::atomic::{AtomicU64, Ordering};

use cookie_store::{CookieStore, StoreAction};
use parking_lot::Mutex;
use url::Url;

/// Why saved cookies could not be read back.
#[derive(Debug, thiserror::Error)]
#[error("saved cookies are unreadable: {0}")]
pub struct CookieError(String);

/// One site's cookies, shared by the site's downloads.
#[derive(Debug, Default)]
pub struct Jar {
    store: Mutex<CookieStore>,
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
    /// The `Cookie` header for a request to `url`, if the jar has cookies for it.
    pub fn header_for(&self, url: &Url) -> Option<String> {
        let store = self.store.lock();
        let mut header = String::new();
        for (name, value) in store.get_request_values(url) {
            if !header.is_empty() {
                header.push_str("; ");
            }
            header.push_str(name);
            header.push('=');
            header.push_str(value);
        }
        (!header.is_empty()).then_some(header)
    }

    /// Stores the cookies of an answer to `url` (its `Set-Cookie` header values). Cookies the
    /// RFC refuses (a `Domain` the host is not in, `Secure` over http) are left out.
    pub fn store<S: AsRef<str>>(&self, url: &Url, set_cookies: &[S]) -> Stored {
        if set_cookies.is_empty() {
            return Stored::default();
        }
        let mut store = self.store.lock();
        let mut out = Stored::default();
        for raw in set_cookies {
            let raw = raw.as_ref();
            let done = store.parse(raw, url);
            if matches!(
                done,
                Ok(StoreAction::Inserted
                    | StoreAction::UpdatedExisting
                    | StoreAction::ExpiredExisting)
            ) {
                if !out.names.is_empty() {
                    out.names.push(';');
                }
                let name = raw.split(['=', ';']).next().unwrap_or_default().trim();
                out.names.push_str(name);
            }
        }
        if !out.names.is_empty() {
            out.generation = self.generation.fetch_add(1, Ordering::Relaxed) + 1;
        }
        out
    }

    /// The jar as bytes (every cookie, session cookies included: a continued crawl is the
    /// same visit), with its generation.
    pub fn save(&self) -> SavedJar {
        let store = self.store.lock();
        let mut bytes = Vec::new();
        // Writing JSON into a Vec cannot fail; an empty jar is what is left if it did.
        let _ = cookie_store::serde::json::save_incl_expired_and_nonpersistent(&store, &mut bytes);
        SavedJar {
            generation: self.generation.load(Ordering::Relaxed),
            bytes,
        }
    }

    /// Replaces the jar's cookies with saved ones (cookies expired since are dropped when a
    /// request is matched), unless the jar holds newer ones already.
    pub fn restore(&self, saved: &SavedJar) -> Result<(), CookieError> {
        let loaded = cookie_store::serde::json::load_all(saved.bytes.as_slice())
            .map_err(|e| CookieError(e.to_string()))?;
        let mut store = self.store.lock();
        if self.generation.load(Ordering::Relaxed) <= saved.generation {
            *store = loaded;
            self.generation.store(saved.generation, Ordering::Relaxed);
        }
        Ok(())
    }

    /// How many cookies it holds (expired ones included until they are replaced).
    pub fn len(&self) -> usize {
        self.store.lock().iter_any().count()
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
}
