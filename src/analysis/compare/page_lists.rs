//! The compare report's lists of the pages added, removed, renamed and changed between the
//! first and the last crawl (issue 68): every one for a small study, the first
//! [`LISTED`] of a kind for a large one with a link to the file that has them all. Read back
//! from the files the comparison wrote (pages.csv, renamed.csv in DIR), so the report says
//! what the files say.

use std::fmt::Write as _;
use std::path::Path;

use crate::analysis::report::html::{Cell, escape, group, table};

/// Pages listed of each kind.
pub(crate) const LISTED: usize = 100;

/// One kind of change: its heading, the file and the rows' columns it is read from.
struct Kind {
    title: &'static str,
    id: &'static str,
    file: &'static str,
    /// pages.csv's `Change` value the rows have (renamed.csv: every row).
    change: Option<&'static str>,
    columns: &'static [&'static str],
    header: &'static [&'static str],
}

const KINDS: [Kind; 4] = [
    Kind {
        title: "Added",
        id: "pages-added",
        file: "pages.csv",
        change: Some("added"),
        columns: &["Site", "Url", "NewLevel"],
        header: &["site", "page", "level"],
    },
    Kind {
        title: "Removed",
        id: "pages-removed",
        file: "pages.csv",
        change: Some("removed"),
        columns: &["Site", "Url", "OldLevel"],
        header: &["site", "page", "level"],
    },
    Kind {
        title: "Renamed",
        id: "pages-renamed",
        file: "renamed.csv",
        change: None,
        columns: &["Site", "OldUrl", "NewUrl"],
        header: &["site", "was", "is"],
    },
    Kind {
        title: "Changed",
        id: "pages-changed",
        file: "pages.csv",
        change: Some("changed"),
        columns: &["Site", "Url", "NewLevel"],
        header: &["site", "page", "level"],
    },
];

/// Writes the section into `h`, from the files in `dir`.
pub(crate) fn section(h: &mut String, dir: &Path) {
    h.push_str("<h2 id=\"pages\">Pages added, removed, renamed and changed</h2>");
    for kind in &KINDS {
        let (rows, total) = match read(dir, kind) {
            Ok(r) => r,
            Err(why) => {
                let _ = write!(
                    h,
                    "<h3>{}</h3><p class=\"problem\">{}</p>",
                    kind.title,
                    escape(&why)
                );
                continue;
            }
        };
        let _ = write!(h, "<h3>{} ({})</h3>", kind.title, group(total));
        if total == 0 {
            let _ = write!(h, "<p class=\"note\" id=\"{}-none\">None.</p>", kind.id);
            continue;
        }
        h.push_str(&table(kind.id, kind.header, &rows, true));
        if total > rows.len() as u64 {
            let _ = write!(
                h,
                "<p class=\"note\">The first {} of {}; all in <a href=\"{f}\">{f}</a>.</p>",
                rows.len(),
                group(total),
                f = kind.file
            );
        }
    }
}

/// The first [`LISTED`] rows of a kind, and how many there are.
fn read(dir: &Path, kind: &Kind) -> Result<(Vec<Vec<Cell>>, u64), String> {
    let path = dir.join(kind.file);
    let mut rdr = csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", kind.file))?;
    let header = rdr
        .headers()
        .map_err(|e| format!("{}: {e}", kind.file))?
        .clone();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("{}: no {name} column", kind.file))
    };
    let change = kind.change.map(|_| at("Change")).transpose()?;
    let columns = kind
        .columns
        .iter()
        .map(|c| at(c))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut rows, mut total) = (Vec::new(), 0u64);
    for record in rdr.records() {
        let record = record.map_err(|e| format!("{}: {e}", kind.file))?;
        if let (Some(i), Some(want)) = (change, kind.change)
            && record.get(i) != Some(want)
        {
            continue;
        }
        total += 1;
        if rows.len() < LISTED {
            rows.push(
                columns
                    .iter()
                    .map(|&i| Cell::Text(record.get(i).unwrap_or("").to_owned()))
                    .collect(),
            );
        }
    }
    Ok((rows, total))
}
