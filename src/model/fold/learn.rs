//! Learning what a site changes per response (SPEC §14): a page fetched twice, both copies cut
//! into tokens (`scan`) and compared (Myers' diff, the `similar` crate), and every
//! difference turned into a rule ([`super::rules`]):
//!
//! - children of one element in another order (a shuffled "related" box): that element's
//!   children are hashed in any order from then on — nothing is masked;
//! - otherwise each changed word becomes "a word of this shape at this place", and each
//!   changed attribute value "a value of this shape for this attribute of this element".
//!
//! Two copies that differ in more than `MAX_CHANGED` (half) of their tokens teach nothing: such a
//! page is not one page served twice with a few per-request parts.

use std::time::{Duration, Instant};

use hashbrown::HashMap;
use similar::{Algorithm, DiffTag, capture_diff_slices_deadline};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::rules::{SiteRules, place, shape, value_place};
use super::scan::{Attr, Sink, scan};

/// Share of tokens (per mille) that may differ between the two copies: a page whose every
/// second token changes is not one page served twice.
const MAX_CHANGED: usize = 500;

/// How long one comparison may take before it gives up (a pathological page).
const DEADLINE: Duration = Duration::from_secs(2);

/// How far up from a difference an element whose children were reordered is looked for.
const CLIMB: usize = 4;

/// What a token can teach.
#[derive(Debug, Clone, Copy)]
enum Teach {
    /// Nothing (a tag: its name is structure).
    Nothing,
    /// A word: its element path, place and shape.
    Word { path: u64, place: u64, shape: u64 },
    /// An attribute value: its place and shape.
    Value { place: u64, shape: u64 },
}

/// One token of a page.
#[derive(Debug, Clone, Copy)]
struct Tok {
    /// What it is, for the comparison.
    key: u64,
    /// The start token of the element it is in (`usize::MAX`: none).
    parent: usize,
    /// For a start tag: the index of its last token (its end tag, or itself).
    last: usize,
    /// For a start tag: its element's path.
    path: u64,
    teach: Teach,
}

/// A page as tokens.
#[derive(Default)]
struct Recorder {
    toks: Vec<Tok>,
    open: Vec<usize>,
}

impl Recorder {
    fn parent(&self) -> usize {
        self.open.last().copied().unwrap_or(usize::MAX)
    }

    fn push(&mut self, key: u64, path: u64, teach: Teach) -> usize {
        let parent = self.parent();
        self.toks.push(Tok {
            key,
            parent,
            last: self.toks.len(),
            path,
            teach,
        });
        self.toks.len() - 1
    }
}

impl Sink for Recorder {
    fn start(&mut self, name: &str, attrs: &[Attr<'_>], path: u64, opens: bool) {
        let at = self.push(
            xxh3_64_with_seed(name.as_bytes(), path),
            path,
            Teach::Nothing,
        );
        self.open.push(at);
        for a in attrs {
            let key = xxh3_64_with_seed(a.value.as_bytes(), value_place(path, a.name));
            let teach = Teach::Value {
                place: value_place(path, a.name),
                shape: shape(a.value),
            };
            self.push(key, path, teach);
        }
        if !opens {
            self.open.pop();
            let last = self.toks.len() - 1;
            self.toks[at].last = last;
        }
    }

    fn end(&mut self, name: &str, path: u64) {
        let Some(at) = self.open.pop() else {
            return;
        };
        self.push(
            xxh3_64_with_seed(name.as_bytes(), !path),
            path,
            Teach::Nothing,
        );
        let last = self.toks.len() - 1;
        self.toks[at].last = last;
    }

    fn text(&mut self, run: &str, path: u64) {
        let mut previous: Option<&str> = None;
        for word in run.split_whitespace() {
            let teach = Teach::Word {
                path,
                place: place(path, previous),
                shape: shape(word),
            };
            self.push(xxh3_64_with_seed(word.as_bytes(), path), path, teach);
            previous = Some(word);
        }
    }
}

fn tokens(html: &str) -> Vec<Tok> {
    let mut r = Recorder::default();
    scan(html, &mut r);
    r.toks
}

/// The rules two copies of one page teach (empty when they are equal, or too different).
pub fn learn(one: &str, two: &str) -> SiteRules {
    let a = tokens(one);
    let b = tokens(two);
    let mut rules = SiteRules::default();
    let (ka, kb): (Vec<u64>, Vec<u64>) = (
        a.iter().map(|t| t.key).collect(),
        b.iter().map(|t| t.key).collect(),
    );
    let ops =
        capture_diff_slices_deadline(Algorithm::Myers, &ka, &kb, Some(Instant::now() + DEADLINE));
    let mut to_b = vec![usize::MAX; a.len()];
    let mut changed = 0;
    for op in &ops {
        let (tag, ra, rb) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            for (i, j) in ra.zip(rb) {
                to_b[i] = j;
            }
        } else {
            changed += ra.len().max(rb.len());
        }
    }
    if changed == 0 || changed * 1000 > a.len().max(b.len()).max(1) * MAX_CHANGED {
        return rules;
    }
    let mut children_a = HashMap::new();
    let mut children_b = HashMap::new();
    for op in &ops {
        let (tag, ra, _) = op.as_tag_tuple();
        if tag != DiffTag::Equal
            && let Some(path) = reordered(
                &a,
                &b,
                &to_b,
                ra.start,
                ra.end,
                &mut children_a,
                &mut children_b,
            )
        {
            rules.unordered.insert(path);
        }
    }
    for op in &ops {
        let (tag, ra, rb) = op.as_tag_tuple();
        // A reordered element explains every difference inside it.
        if tag == DiffTag::Equal
            || inside_unordered(&a, ra.start, &rules)
            || inside_unordered(&b, rb.start, &rules)
        {
            continue;
        }
        for t in a[ra].iter().chain(&b[rb]) {
            match t.teach {
                Teach::Word { path, place, shape } => rules.add_word_at(path, place, shape),
                Teach::Value { place, shape } => {
                    rules.values.insert((place, shape));
                }
                Teach::Nothing => {}
            }
        }
    }
    rules
}

/// Whether the token at `at` (or, past the end, the last) sits in an element whose children
/// are unordered.
fn inside_unordered(t: &[Tok], at: usize, rules: &SiteRules) -> bool {
    let Some(last) = t.len().checked_sub(1) else {
        return false;
    };
    let mut e = t[at.min(last)].parent;
    while e != usize::MAX {
        if rules.unordered.contains(&t[e].path) {
            return true;
        }
        e = t[e].parent;
    }
    false
}

/// The path of an element around `a[from..to]` (up to [`CLIMB`] levels out) whose children are
/// the same in both copies, in another order.
fn reordered(
    a: &[Tok],
    b: &[Tok],
    to_b: &[usize],
    from: usize,
    to: usize,
    memo_a: &mut HashMap<usize, Vec<u64>>,
    memo_b: &mut HashMap<usize, Vec<u64>>,
) -> Option<u64> {
    let mut e = enclosing(a, from, to)?;
    for _ in 0..CLIMB {
        let eb = to_b[e];
        if eb != usize::MAX && a[e].path == b[eb].path {
            let ca = memo_a.entry(e).or_insert_with(|| children(a, e)).clone();
            let cb = memo_b.entry(eb).or_insert_with(|| children(b, eb)).clone();
            if ca != cb {
                let (mut sa, mut sb) = (ca, cb);
                sa.sort_unstable();
                sb.sort_unstable();
                if sa == sb {
                    return Some(a[e].path);
                }
            }
        }
        e = a[e].parent;
        if e == usize::MAX {
            return None;
        }
    }
    None
}

/// The start token of the innermost element that holds `a[from..to]` (for an empty range, the
/// element at `from`).
fn enclosing(a: &[Tok], from: usize, to: usize) -> Option<usize> {
    let first = *a.get(from.min(a.len().checked_sub(1)?))?;
    let mut e = first.parent;
    while e != usize::MAX {
        if e < from && a[e].last >= to.saturating_sub(1).max(from) {
            return Some(e);
        }
        e = a[e].parent;
    }
    None
}

/// The digests of an element's children (each child element's tokens, or a loose token).
fn children(t: &[Tok], e: usize) -> Vec<u64> {
    let mut out = Vec::new();
    let mut i = e + 1;
    // Attribute values of the element itself come first: they are not children.
    while i <= t[e].last && t[i].parent == e && matches!(t[i].teach, Teach::Value { .. }) {
        i += 1;
    }
    let end = t[e].last;
    while i < end {
        let last = if t[i].parent == e && t[i].last > i {
            t[i].last
        } else {
            i
        };
        let mut h = 0u64;
        for tok in &t[i..=last] {
            h = xxh3_64_with_seed(&tok.key.to_le_bytes(), h);
        }
        out.push(h);
        i = last + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_or_unrelated_copies_teach_nothing() {
        let p = "<body><p>one two three</p></body>";
        assert!(learn(p, p).is_empty());
        assert!(
            learn(
                p,
                "<body><div>something else entirely, many words</div></body>"
            )
            .is_empty()
        );
    }

    #[test]
    fn a_changed_time_and_token_become_rules_of_their_place_and_shape() {
        let page = |t: &str, id: &str| {
            format!(
                "<body><h1>Title of the page</h1><p>Body text that stays the same in both</p>\
                 <footer data-rid={id}>Generated at {t} by node 3</footer></body>"
            )
        };
        let rules = learn(&page("10:00:01", "abc"), &page("10:00:02", "xyz"));
        assert_eq!(rules.words.len(), 1, "{rules:?}");
        assert_eq!(rules.values.len(), 1);
        assert!(rules.unordered.is_empty());
    }

    #[test]
    fn a_shuffled_list_is_an_unordered_element() {
        let page = |items: &[&str]| {
            let lis: String = items
                .iter()
                .map(|i| format!("<li><a href=/{i}>{i}</a></li>"))
                .collect();
            format!(
                "<body><p>Some words of the article itself here</p><ul class=r>{lis}</ul></body>"
            )
        };
        let rules = learn(&page(&["a", "b", "c", "d"]), &page(&["c", "a", "d", "b"]));
        assert_eq!(rules.unordered.len(), 1, "{rules:?}");
        assert!(
            rules.words.is_empty() && rules.values.is_empty(),
            "{rules:?}"
        );
    }
}
