//! What the crawl's objects are: a site and the run's sites, a URL and its rules, the URL filters, robots.txt, sitemaps, cookies, one page one node (duplicate rules), link qualifiers, hosts.txt's path rules, the budget rules.

pub mod bandit;
pub(crate) mod cookies;
pub mod fold;
pub mod link_attrs;
pub(crate) mod path_rules;
pub mod robots;
pub mod site;
pub(crate) mod sites;
pub mod sitemap;
pub(crate) mod url_filter;
pub mod url_norm;
pub(crate) mod url_rules;
