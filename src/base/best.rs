//! The first `n` of many items in an order, without sorting them all: the tables and lists
//! people read show the largest sites, the most linked pages or the busiest queues of
//! thousands or millions (a partial selection, then a sort of the `n` kept).

use std::cmp::Ordering;

/// The first `n` of `items` in the order `by`, in that order (all of them when there are no
/// more than `n`).
pub(crate) fn best_by<T>(mut items: Vec<T>, n: usize, by: impl Fn(&T, &T) -> Ordering) -> Vec<T> {
    if n == 0 {
        items.clear();
    } else if items.len() > n {
        items.select_nth_unstable_by(n - 1, &by);
        items.truncate(n);
    }
    items.sort_by(by);
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_n_in_order_ties_as_the_order_says() {
        let v = vec![(3, 'a'), (9, 'b'), (3, 'c'), (7, 'd'), (9, 'e')];
        let by = |a: &(i32, char), b: &(i32, char)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        assert_eq!(best_by(v.clone(), 3, by), [(9, 'b'), (9, 'e'), (7, 'd')]);
        assert_eq!(best_by(v.clone(), 10, by).len(), 5);
        assert_eq!(best_by(v.clone(), 5, by)[4], (3, 'c'));
        assert!(best_by(v, 0, by).is_empty());
    }
}
