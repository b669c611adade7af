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

/// A kind's rows kept (the first [`LISTED`]) and how many it has, or why its file is unread.
type List = Result<(Vec<Vec<Cell>>, u64), String>;

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

/// Writes the section into `h`, from the files in `dir`: each file read once, its rows
/// dealt to the kinds they are (pages.csv can have millions of rows).
pub(crate) fn section(h: &mut String, dir: &Path) {
    h.push_str("<h2 id=\"pages\">Pages added, removed, renamed and changed</h2>");
    let mut lists: Vec<List> = KINDS.iter().map(|_| Ok((Vec::new(), 0))).collect();
    for file in ["pages.csv", "renamed.csv"] {
        let kinds: Vec<usize> = (0..KINDS.len())
            .filter(|&k| KINDS[k].file == file)
            .collect();
        if let Err(why) = read(dir, file, &kinds, &mut lists) {
            for &k in &kinds {
                lists[k] = Err(why.clone());
            }
        }
    }
    for (kind, list) in KINDS.iter().zip(lists) {
        let (rows, total) = match list {
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

/// Reads `file` once, keeping the first [`LISTED`] rows of each of `kinds` (indices into
/// [`KINDS`]) in `lists`, and counting them all.
fn read(dir: &Path, file: &str, kinds: &[usize], lists: &mut [List]) -> Result<(), String> {
    let mut rdr = csv::Reader::from_path(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    let header = rdr.headers().map_err(|e| format!("{file}: {e}"))?.clone();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("{file}: no {name} column"))
    };
    // Per kind: the Change value its rows have (renamed.csv: every row) and its columns.
    let mut wanted = Vec::with_capacity(kinds.len());
    for &k in kinds {
        let kind = &KINDS[k];
        let change = match kind.change {
            Some(value) => Some((at("Change")?, value)),
            None => None,
        };
        let columns = kind
            .columns
            .iter()
            .map(|c| at(c))
            .collect::<Result<Vec<_>, _>>()?;
        wanted.push((k, change, columns));
    }
    for record in rdr.records() {
        let record = record.map_err(|e| format!("{file}: {e}"))?;
        let Some((k, _, columns)) = wanted
            .iter()
            .find(|(_, change, _)| change.is_none_or(|(i, v)| record.get(i) == Some(v)))
        else {
            continue;
        };
        let Ok((rows, total)) = &mut lists[*k] else {
            continue;
        };
        *total += 1;
        if rows.len() < LISTED {
            rows.push(
                columns
                    .iter()
                    .map(|&i| Cell::Text(record.get(i).unwrap_or("").to_owned()))
                    .collect(),
            );
        }
    }
    Ok(())
}
