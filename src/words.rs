//! Counts in sentences people read: `1 scope`, `2 scopes` (issue 49: "1 scopes", "1 pages").

/// `n` and its noun, singular for one: `count(1, "scope")` is `1 scope`, `count(3, "scope")`
/// `3 scopes` (the plural adds an `s`; [`count_with`] names another).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` and its noun, with the plural given: `count_with(2, "URL", "URLs")`.
pub fn count_with(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { singular } else { plural })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(count(1u32, "scope"), "1 scope");
        assert_eq!(count(0u32, "scope"), "0 scopes");
        assert_eq!(count(12u64, "page"), "12 pages");
        assert_eq!(count_with(1u32, "entry", "entries"), "1 entry");
        assert_eq!(count_with(2u32, "entry", "entries"), "2 entries");
    }
}
