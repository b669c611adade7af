//! Which pages are rendered (SPEC §18). `all`: every page. `auto`: a page with no script is
//! never rendered (nothing would run); else each site is sampled by URL shape — the first
//! pages of a shape (its first path segment, its depth, its extension) are rendered and their
//! rendered links compared with the raw ones; a shape whose sample differed is rendered from
//! then on, one whose two first pages did not is not. Once a site has rendered
//! [`SITE_SAMPLE`] pages and none differed, it is plain: no new shape is sampled. A page whose
//! HTML looks script-built ([`ScriptSigns::looks_script_built`]) is rendered whatever its
//! shape says.

use std::collections::HashMap;

use parking_lot::Mutex;
use url::Url;

use super::RenderMode;
use super::score::ScriptSigns;
use crate::base::ids::SiteId;

/// Pages of one shape rendered without a difference before the shape is left raw.
pub const SHAPE_SAMPLE: u8 = 2;

/// Pages of a site rendered without a difference before the site is taken as plain.
pub const SITE_SAMPLE: u32 = 12;

/// The decisions of one crawl.
#[derive(Debug, Default)]
pub struct RenderPlan {
    mode: RenderMode,
    sites: Mutex<HashMap<SiteId, SitePlan>>,
}

#[derive(Debug, Default)]
struct SitePlan {
    sampled: u32,
    differed: bool,
    shapes: HashMap<String, Shape>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Pages rendered so far, none different.
    Sampling(u8),
    /// Its sample showed no difference.
    Same,
    /// A page of it had links only scripts make.
    Differs,
}

impl RenderPlan {
    /// The plan for `Render = mode`.
    pub fn new(mode: RenderMode) -> Self {
        RenderPlan {
            mode,
            sites: Mutex::default(),
        }
    }

    /// `Render`.
    pub fn mode(&self) -> RenderMode {
        self.mode
    }

    /// Whether page `url` of `site`, whose HTML shows `signs` and `links` links, is rendered.
    pub fn wants(&self, site: SiteId, url: &Url, signs: &ScriptSigns, links: usize) -> bool {
        match self.mode {
            RenderMode::No => false,
            RenderMode::All => true,
            RenderMode::Auto => {
                if signs.scripts == 0 {
                    return false;
                }
                if signs.looks_script_built(links) {
                    return true;
                }
                let mut sites = self.sites.lock();
                let plan = sites.entry(site).or_default();
                match plan.shapes.get(&shape(url)) {
                    Some(Shape::Differs) => true,
                    Some(Shape::Same) => false,
                    Some(Shape::Sampling(_)) | None => plan.differed || plan.sampled < SITE_SAMPLE,
                }
            }
        }
    }

    /// What rendering page `url` of `site` showed: whether its rendered links differ from the
    /// raw ones.
    pub fn learn(&self, site: SiteId, url: &Url, differs: bool) {
        if self.mode != RenderMode::Auto {
            return;
        }
        let mut sites = self.sites.lock();
        let plan = sites.entry(site).or_default();
        plan.sampled += 1;
        plan.differed |= differs;
        let entry = plan.shapes.entry(shape(url)).or_insert(Shape::Sampling(0));
        *entry = match (*entry, differs) {
            (_, true) | (Shape::Differs, _) => Shape::Differs,
            (Shape::Sampling(n), false) if n + 1 >= SHAPE_SAMPLE => Shape::Same,
            (Shape::Sampling(n), false) => Shape::Sampling(n + 1),
            (Shape::Same, false) => Shape::Same,
        };
    }

    /// The site is written: its decisions are not needed again.
    pub fn forget(&self, site: SiteId) {
        self.sites.lock().remove(&site);
    }
}

/// A URL's shape: its first path segment, its number of segments and its last segment's
/// extension (`/std/collections/struct.HashMap.html` → `std/3/html`); a query adds `?`.
pub fn shape(url: &Url) -> String {
    let path = url.path();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let first = if segments.len() > 1 { segments[0] } else { "" };
    let extension = segments
        .last()
        .and_then(|s| s.rsplit_once('.'))
        .map_or("", |(_, e)| e);
    let query = if url.query().is_some() { "?" } else { "" };
    format!("{first}/{}/{extension}{query}", segments.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    const SCRIPTED: ScriptSigns = ScriptSigns {
        scripts: 1,
        script_bytes: 10,
        empty_root: false,
        noscript_asks: false,
        builds_elements: false,
    };

    #[test]
    fn shapes() {
        assert_eq!(shape(&url("http://a.test/")), "/0/");
        assert_eq!(
            shape(&url("http://a.test/std/collections/struct.HashMap.html")),
            "std/3/html"
        );
        assert_eq!(shape(&url("http://a.test/about.html")), "/1/html");
        assert_eq!(shape(&url("http://a.test/p/7?x=1")), "p/2/?");
    }

    #[test]
    fn a_shape_whose_sample_differs_is_rendered_one_that_does_not_is_left() {
        let plan = RenderPlan::new(RenderMode::Auto);
        let site = SiteId(0);
        let (news, about) = (
            url("http://a.test/news/1.html"),
            url("http://a.test/about/x.html"),
        );
        assert!(plan.wants(site, &news, &SCRIPTED, 10));
        plan.learn(site, &news, true);
        assert!(plan.wants(site, &url("http://a.test/news/2.html"), &SCRIPTED, 10));
        for _ in 0..SHAPE_SAMPLE {
            assert!(plan.wants(site, &about, &SCRIPTED, 10));
            plan.learn(site, &about, false);
        }
        assert!(!plan.wants(site, &url("http://a.test/about/y.html"), &SCRIPTED, 10));
        // A page with no script is never rendered; one that looks script-built always is.
        assert!(!plan.wants(site, &news, &ScriptSigns::default(), 10));
        let shell = ScriptSigns {
            empty_root: true,
            ..SCRIPTED
        };
        assert!(plan.wants(site, &url("http://a.test/about/z.html"), &shell, 0));
    }

    #[test]
    fn a_plain_site_stops_sampling() {
        let plan = RenderPlan::new(RenderMode::Auto);
        let site = SiteId(1);
        for i in 0..SITE_SAMPLE {
            let u = url(&format!("http://a.test/s{i}/p.html"));
            assert!(plan.wants(site, &u, &SCRIPTED, 10));
            plan.learn(site, &u, false);
        }
        assert!(!plan.wants(site, &url("http://a.test/new/p.html"), &SCRIPTED, 10));
        assert!(RenderPlan::new(RenderMode::All).wants(
            site,
            &url("http://a.test/"),
            &ScriptSigns::default(),
            3
        ));
        assert!(!RenderPlan::new(RenderMode::No).wants(site, &url("http://a.test/"), &SCRIPTED, 0));
    }
}
