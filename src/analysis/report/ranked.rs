//! The pages a site's measures rank highest (nodes.csv's `PageRank` and `Harmonic`, SPEC
//! §17), for the report's tables beside the most linked pages.

use std::path::Path;

use super::read::{TOP_LINKED, has_column};

/// The measures the report ranks pages by: nodes.csv's column, the table's heading, and the
/// decimals shown.
pub(crate) const RANKED_BY: [(&str, &str, usize); 2] = [
    ("PageRank", "Highest PageRank", 5),
    ("Harmonic", "Highest harmonic centrality", 1),
];

/// A page among those a measure ranks highest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranked {
    pub(crate) value: f64,
    pub(crate) title: String,
    pub(crate) url: String,
}

/// Which measures of [`RANKED_BY`] `folder`'s nodes.csv has (none when it was written before
/// the measures).
pub(super) fn ranked_columns(folder: &Path) -> [bool; RANKED_BY.len()] {
    RANKED_BY.map(|(column, _, _)| has_column(folder, "nodes.csv", column))
}

/// Each measure's values, read in the same pass over nodes.csv as its levels (the file is
/// the site's largest but one): `?PageRank`, `?Harmonic` after the columns read beside them.
pub(super) const RANKED_COLUMNS: [&str; RANKED_BY.len()] = ["?PageRank", "?Harmonic"];

/// A measure's value as nodes.csv writes it (an empty or damaged cell counts as 0).
pub(super) fn ranked_value(cell: &str) -> f64 {
    cell.trim().parse::<f64>().unwrap_or(0.0)
}

/// The rows (0-based) of the [`TOP_LINKED`] highest of `values`, as (index, value), highest
/// first (among equals the page found first).
pub(super) fn highest(values: &[f64]) -> Vec<(u32, f64)> {
    first_by(values.len(), |a, b| {
        values[*b as usize]
            .total_cmp(&values[*a as usize])
            .then(a.cmp(b))
    })
    .into_iter()
    .map(|i| (i, values[i as usize]))
    .collect()
}

/// The first [`TOP_LINKED`] of the indices `0..n` in the order `by`, in that order.
pub(super) fn first_by(n: usize, by: impl Fn(&u32, &u32) -> std::cmp::Ordering) -> Vec<u32> {
    crate::base::best::best_by((0..n as u32).collect(), TOP_LINKED, by)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranked_columns_are_the_measures_optional() {
        for ((column, _, _), named) in RANKED_BY.iter().zip(RANKED_COLUMNS) {
            assert_eq!(named.strip_prefix('?'), Some(*column));
        }
    }

    #[test]
    fn highest_first_then_the_page_found_first() {
        let v = [0.1, 0.5, 0.2, 0.5, 0.0];
        assert_eq!(
            highest(&v),
            [(1, 0.5), (3, 0.5), (2, 0.2), (0, 0.1), (4, 0.0)]
        );
        let many: Vec<f64> = (0..30).map(f64::from).collect();
        let top = highest(&many);
        assert_eq!(top.len(), TOP_LINKED);
        assert_eq!(top[0], (29, 29.0));
    }
}
