//! A character trie of domain labels, as the domain-name filter paper keeps both its
//! common-label database and its key-domain database (Wen et al. 2014, §2.1.5): a lookup
//! costs one step per character of the label, whatever the number of labels stored.

/// A set of labels (lower-case ASCII or punycode, as URL hosts are).
#[derive(Debug, Clone, Default)]
pub(crate) struct LabelTrie {
    /// Node 0 is the root; each node's children by byte, sorted.
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, Default)]
struct Node {
    children: Vec<(u8, u32)>,
    end: bool,
}

impl LabelTrie {
    /// An empty set.
    pub(crate) fn new() -> Self {
        LabelTrie {
            nodes: vec![Node::default()],
        }
    }

    /// Adds `label` (an empty label is ignored).
    pub(crate) fn insert(&mut self, label: &str) {
        if label.is_empty() {
            return;
        }
        let mut at = 0usize;
        for &b in label.as_bytes() {
            let next = match self.nodes[at].children.binary_search_by_key(&b, |c| c.0) {
                Ok(i) => self.nodes[at].children[i].1 as usize,
                Err(i) => {
                    let id = self.nodes.len();
                    self.nodes.push(Node::default());
                    self.nodes[at].children.insert(i, (b, id as u32));
                    id
                }
            };
            at = next;
        }
        self.nodes[at].end = true;
    }

    /// Whether `label` is in the set.
    pub(crate) fn contains(&self, label: &str) -> bool {
        let mut at = 0usize;
        for &b in label.as_bytes() {
            match self.nodes[at].children.binary_search_by_key(&b, |c| c.0) {
                Ok(i) => at = self.nodes[at].children[i].1 as usize,
                Err(_) => return false,
            }
        }
        !label.is_empty() && self.nodes[at].end
    }

    /// Whether any label of `host` (dot-separated) is in the set.
    pub(crate) fn any_label_of(&self, host: &str) -> bool {
        host.split('.').any(|l| self.contains(l))
    }

    /// The labels, sorted (what the tests compare with the paper's figure).
    #[cfg(test)]
    fn labels(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut path = Vec::new();
        self.walk(0, &mut path, &mut out);
        out
    }

    #[cfg(test)]
    fn walk(&self, at: usize, path: &mut Vec<u8>, out: &mut Vec<String>) {
        if self.nodes[at].end {
            out.push(String::from_utf8_lossy(path).into_owned());
        }
        for &(b, next) in &self.nodes[at].children {
            path.push(b);
            self.walk(next as usize, path, out);
            path.pop();
        }
    }
}

impl<'a> FromIterator<&'a str> for LabelTrie {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut t = LabelTrie::new();
        for l in iter {
            t.insert(l);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_labels_sharing_prefixes_apart() {
        // The paper's figure 3: a, b, ab, abd, bcd, hf, hfm.
        let t: LabelTrie = ["a", "b", "ab", "abd", "bcd", "hf", "hfm"]
            .into_iter()
            .collect();
        for l in ["a", "b", "ab", "abd", "bcd", "hf", "hfm"] {
            assert!(t.contains(l), "{l}");
        }
        for l in ["", "abc", "bc", "h", "hfmx", "c"] {
            assert!(!t.contains(l), "{l}");
        }
        assert_eq!(t.labels(), ["a", "ab", "abd", "b", "bcd", "hf", "hfm"]);
        assert!(t.any_label_of("x.hf.y"));
        assert!(!t.any_label_of("x.hfx.y"));
    }
}
