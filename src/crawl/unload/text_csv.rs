//! text.csv (`PageText = yes`, SPEC §19): `Id,Words,Text`, a row per node of nodes.csv, its
//! text read back from the crawl's text spool ([`crate::crawl::data::text_spool`]). A node
//! whose text the spool lacks (a page of a crawl begun with `PageText = no`) has 0 words and
//! an empty text.

use std::io::{self, Write};
use std::path::Path;

use crate::crawl::data::SiteGraph;
use crate::crawl::data::text_spool::{SpoolReader, TextSpool};
use crate::formats::gephi_csv::CsvOut;

/// Writes `g`'s text.csv from the spool in `spool_folder`.
pub(super) fn write_text(
    g: &SiteGraph<'_>,
    spool_folder: &Path,
    w: &mut dyn Write,
) -> io::Result<()> {
    let path = TextSpool::file_of(spool_folder, &g.origin());
    let mut spool = SpoolReader::open(&path, g.nodes().len(), |url| g.node_index_of(url))?;
    let mut csv = CsvOut::new(w, &["Id", "Words", "Text"])?;
    for i in 0..g.nodes().len() {
        let text = spool.text(i)?;
        csv.num(i + 1)?;
        match text {
            Some(t) => csv.num(t.words)?.text(&t.text)?,
            None => csv.num(0)?.empty()?,
        };
        csv.end()?;
    }
    csv.finish()
}
