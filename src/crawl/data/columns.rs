//! The per-page columns of a site graph, in one table: nodes.csv writes them after `Id` and
//! `Label` (its header names), graph.gexf as typed node attributes, and PgDM's
//! `rccrawler_pages` table as its columns (SPEC §4: graph.gexf carries every per-page column
//! of nodes.csv). A new per-page fact is a row here, its value on [`SiteGraph`], and (for
//! PgDM) a schema migration adding the column.

use super::SiteGraph;
use super::graph::Node;

/// A page's value in one column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell<'a> {
    /// A count, a level, a size.
    Int(u64),
    /// Text (a URL, a title, a host).
    Text(&'a str),
    /// A 128-bit content hash, written as 32 hexadecimal digits.
    Hash(u128),
    /// A 64-bit digest, written as 16 hexadecimal digits.
    Digest(u64),
    /// No value: an empty field, no GEXF attribute value, SQL `NULL` (an orphan's level).
    Empty,
}

/// What kind of values a column holds (GEXF's attribute type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `integer`.
    Integer,
    /// `string`.
    Text,
}

impl Kind {
    /// The GEXF attribute type.
    pub fn gexf(self) -> &'static str {
        match self {
            Kind::Integer => "integer",
            Kind::Text => "string",
        }
    }
}

/// One per-page column.
#[derive(Debug, Clone, Copy)]
pub struct NodeColumn {
    /// nodes.csv's header, and the GEXF attribute's title.
    pub name: &'static str,
    /// The GEXF attribute's id.
    pub gexf_id: &'static str,
    /// The column of PgDM's `rccrawler_pages`.
    pub sql: &'static str,
    /// Integers or text.
    pub kind: Kind,
    /// The value of a page.
    pub value: for<'a> fn(&SiteGraph<'a>, &Node) -> Cell<'a>,
}

const fn column(
    name: &'static str,
    gexf_id: &'static str,
    sql: &'static str,
    kind: Kind,
    value: for<'a> fn(&SiteGraph<'a>, &Node) -> Cell<'a>,
) -> NodeColumn {
    NodeColumn {
        name,
        gexf_id,
        sql,
        kind,
        value,
    }
}

/// Counts are far below `u64::MAX`; a wider one saturates.
fn int(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The columns after `Id` and `Label`, in nodes.csv's order.
pub const NODE_COLUMNS: &[NodeColumn] = &[
    column("Level", "level", "level", Kind::Integer, |_, n| {
        match n.level() {
            Some(l) => Cell::Int(u64::from(l)),
            None => Cell::Empty,
        }
    }),
    column("Title", "title", "title", Kind::Text, |g, n| {
        Cell::Text(g.title(n))
    }),
    column(
        "OutDegree",
        "outdegree",
        "out_degree",
        Kind::Integer,
        |g, n| Cell::Int(int(g.out_degree(n))),
    ),
    column(
        "InDegree",
        "indegree",
        "in_degree",
        Kind::Integer,
        |g, n| Cell::Int(int(g.in_degree(n))),
    ),
    column(
        "ExternalLinks",
        "externallinks",
        "external_links",
        Kind::Integer,
        |g, n| Cell::Int(int(g.external_link_count(n))),
    ),
    column("Bytes", "bytes", "bytes", Kind::Integer, |g, n| {
        Cell::Int(u64::from(g.bytes(n)))
    }),
    column(
        "ContentHash",
        "contenthash",
        "content_hash",
        Kind::Text,
        |g, n| Cell::Hash(g.content_hash(n)),
    ),
    // The text a person reads on the page, outside navigation, headers, footers and forms
    // (SPEC §14's text digest), for a page with parts that change per response: equal for two
    // answers that differ only in those parts (a token, a time in the footer, a shuffled box),
    // so `rccrawler compare` tells a changed page on a dynamic site by it. On a page whose
    // bytes are the page (a static site's), the hash of all its visible text (what is between
    // its tags; with `Duplicates = exact`, every page's): an href or a class changed is no
    // text changed. Empty: too little text on a page with parts that change per response.
    column(
        "TextHash",
        "texthash",
        "text_hash",
        Kind::Text,
        |g, n| match g.text_hash(n) {
            0 => Cell::Empty,
            h => Cell::Digest(h),
        },
    ),
    column("Canonical", "canonical", "canonical", Kind::Text, |g, n| {
        Cell::Text(g.canonical(n))
    }),
    column("Robots", "robots", "robots", Kind::Text, |g, n| {
        Cell::Text(g.robots(n))
    }),
    column("Host", "host", "host", Kind::Text, |g, n| {
        Cell::Text(g.host(n))
    }),
    // How the page came into the graph: `link`, or `sitemap` for an orphan a sitemap listed
    // (`SitemapSeeds`, SPEC §17).
    column("Source", "source", "source", Kind::Text, |_, n| {
        Cell::Text(if n.level().is_some() {
            "link"
        } else {
            "sitemap"
        })
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ids_and_sql_columns_are_distinct_and_match() {
        let mut seen = std::collections::HashSet::new();
        for c in NODE_COLUMNS {
            assert!(seen.insert(c.name), "{} twice", c.name);
            assert_eq!(c.gexf_id, c.name.to_ascii_lowercase(), "{}", c.name);
            assert!(c.sql.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'));
        }
    }
}
