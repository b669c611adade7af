//! The sites table's columns that say something only in some crawls: hosts and TLP (a domain
//! filter, scopes over several hosts), sitemap pages and orphans, the shares of nofollow, ugc
//! and sponsored links, rendered pages and the share of arcs only scripts make (SPEC §18) —
//! each with its note above the table.

use super::html::Cell;
use super::read::SummaryRow;

/// The sites table's columns that say something only in some crawls.
pub(super) struct Extra {
    /// Hosts and TLP: with a domain filter, or where a scope spans hosts.
    multi_host: bool,
    /// Sitemaps were read (`Sitemaps = yes`).
    sitemaps: bool,
    /// Some external links are marked nofollow, ugc or sponsored (issue 68).
    marked: bool,
    /// Pages were rendered (`Render = auto` or `all`, SPEC §18).
    rendered: bool,
    /// Some site looks script-built and was not rendered.
    script_built: bool,
    /// Documents were nodes (`Documents = yes`, SPEC §19).
    documents: bool,
}

impl Extra {
    pub(super) fn of(rows: &[SummaryRow], rel: &[[u64; 3]], domain_filter: bool) -> Self {
        Extra {
            multi_host: domain_filter || rows.iter().any(|r| r.hosts > 1),
            sitemaps: rows.iter().any(|r| r.sitemap.is_some()),
            marked: rel.iter().any(|r| r.iter().any(|&n| n > 0)),
            rendered: rows.iter().any(|r| r.render.is_some()),
            script_built: rows.iter().any(|r| r.script_built),
            documents: rows.iter().any(|r| r.documents.is_some()),
        }
    }

    pub(super) fn notes(&self) -> String {
        let mut notes = String::new();
        if self.sitemaps {
            notes.push_str(
                " Sitemap pages: the pages a site's sitemaps list; orphans: those no link reaches.",
            );
        }
        if self.marked {
            notes.push_str(
                " nofollow, ugc, sponsored %: the share of the site's external links whose rel says so.",
            );
        }
        if self.rendered {
            notes.push_str(
                " Rendered: pages read from the DOM a browser rendered; script-only arcs %: the \
                 share of the site's internal links (arcs) that only the rendered pages have — \
                 what a crawler reading the HTML alone does not see.",
            );
        }
        if self.documents {
            notes.push_str(
                " documents: the site's nodes that are documents (PDF, Word, Excel, PowerPoint, \
                 OpenDocument, RTF), counted among its pages, and how many of each type.",
            );
        }
        if self.script_built {
            notes.push_str(
                " script-built: the site's home page looks built by scripts (an empty \
                 application root, a noscript asking for JavaScript, many script bytes for few \
                 links) and was not rendered: its graph may lack what scripts build \
                 (Render = auto reads it).",
            );
        }
        notes
    }

    pub(super) fn header(&self, header: &mut Vec<&'static str>) {
        if self.multi_host {
            header.extend(["hosts", "TLP"]);
        }
        if self.sitemaps {
            header.extend(["sitemap pages", "orphans"]);
        }
        if self.marked {
            header.extend(["nofollow %", "ugc %", "sponsored %"]);
        }
        if self.rendered {
            header.extend(["rendered", "script-only arcs %"]);
        }
        if self.documents {
            header.extend(["documents", "document types"]);
        }
    }

    pub(super) fn cells(&self, r: &SummaryRow, rel: &[u64; 3], row: &mut Vec<Cell>) {
        let empty = || Cell::Text(String::new());
        if self.multi_host {
            row.extend([Cell::int(r.hosts), Cell::dec(r.tlp, 1)]);
        }
        if self.sitemaps {
            match r.sitemap {
                Some((urls, orphans)) => row.extend([Cell::int(urls), Cell::int(orphans)]),
                None => row.extend([empty(), empty()]),
            }
        }
        if self.marked {
            // Of the site's external links (its external_links.csv rows).
            let share = |n: u64| match r.external_links {
                0 => empty(),
                all => Cell::dec(100.0 * n as f64 / all as f64, 1),
            };
            row.extend(rel.iter().map(|&n| share(n)));
        }
        if self.rendered {
            match (r.render, r.arcs) {
                (Some((pages, _)), 0) => row.extend([Cell::int(pages), empty()]),
                (Some((pages, script_only)), arcs) => row.extend([
                    Cell::int(pages),
                    Cell::dec(100.0 * script_only as f64 / arcs as f64, 1),
                ]),
                (None, _) => row.extend([empty(), empty()]),
            }
        }
        if self.documents {
            match &r.documents {
                Some((n, types)) => row.extend([Cell::int(*n), Cell::Text(types.clone())]),
                None => row.extend([empty(), empty()]),
            }
        }
    }
}
