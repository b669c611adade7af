//! Test webs whose sites yield external links as real sites do, each in its own way: a footer
//! of the same partner links on every page (new once, then never), a link list deep in the
//! site, a site that starts paying late, a steady one, one with nothing at all.

use std::time::Duration;

use rccrawler::base::loopback::Resp;

use super::TestWeb;

/// How a site's pages link out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The same 5 partner links on every page.
    Footer,
    /// 40 links on a single page at level 3.
    DeepList,
    /// Nothing in its first half, then 3 new links a page.
    LateStarter,
    /// One new link a page.
    Steady,
    /// No external link.
    Barren,
}

/// The profiles of [`install`]'s sites, in order.
pub const PROFILES: [Profile; 5] = [
    Profile::Footer,
    Profile::DeepList,
    Profile::LateStarter,
    Profile::Steady,
    Profile::Barren,
];

/// Pages per site.
pub const PAGES: usize = 40;

/// The external links of page `i` (breadth-first number) of a site with `profile`.
fn external(host: &str, profile: Profile, i: usize, level: u32) -> Vec<String> {
    let link = |n: usize| format!("http://out.test/{host}/{n}");
    match profile {
        Profile::Footer => (0..5).map(link).collect(),
        Profile::DeepList if level == 3 && i.is_multiple_of(7) => {
            (0..40).map(|n| link(i * 100 + n)).collect()
        }
        Profile::DeepList => Vec::new(),
        Profile::LateStarter if i >= PAGES / 2 => (0..3).map(|n| link(i * 10 + n)).collect(),
        Profile::LateStarter => Vec::new(),
        Profile::Steady => vec![link(i)],
        Profile::Barren => Vec::new(),
    }
}

/// Page `i` (breadth-first number) of a site with `profile`, answering after `delay`: a tree
/// where page i links to pages 3i+1..3i+3 (so breadth-first order is page order), each page
/// also linking home. Its path is `/` for page 0, `/p{i}` otherwise.
pub fn page(host: &str, profile: Profile, i: usize, delay: Duration) -> Resp {
    let mut level = 0;
    let mut up = i;
    while up > 0 {
        up = (up - 1) / 3;
        level += 1;
    }
    let mut html = format!("<title>{host} {i}</title><a href=/>home</a>");
    for c in 3 * i + 1..=3 * i + 3 {
        if c < PAGES {
            html.push_str(&format!("<a href=/p{c}>p{c}</a>"));
        }
    }
    for e in external(host, profile, i, level) {
        html.push_str(&format!("<a href={e}>out</a>"));
    }
    Resp::html(html.into_bytes()).delayed(delay)
}

/// Installs one site of `PAGES` pages ([`page`]).
pub fn install_site(web: &TestWeb, host: &str, profile: Profile, delay: Duration) {
    for i in 0..PAGES {
        let path = if i == 0 {
            "/".to_owned()
        } else {
            format!("/p{i}")
        };
        web.set(host, &path, page(host, profile, i, delay));
    }
}

/// Installs a site of each profile on `hosts` (in order), each answer taking `delay`.
pub fn install(web: &TestWeb, hosts: &[&str], delay: Duration) {
    for (host, profile) in hosts.iter().zip(PROFILES) {
        install_site(web, host, profile, delay);
    }
}
