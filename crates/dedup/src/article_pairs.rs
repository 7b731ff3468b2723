//! `article-pairs.tsv`: the article pairs that share the most clusters.
//!
//! Every cluster is a sorted list of distinct articles; a pair of articles *shares* a cluster
//! when both are in its list. [`top_article_pairs`] returns the `k` pairs that share the most
//! clusters, ties broken by `(a, b)`, without a map from every pair to its count: a cluster of
//! `n` articles makes `n (n - 1) / 2` pairs, and a corpus of template clusters makes tens of
//! millions of distinct pairs of which only the top rows are written.
//!
//! ```
//! use textreuse_dedup::article_pairs::{ArticlePair, top_article_pairs};
//!
//! // Three clusters over articles 0..4 (dense indices), as flat lists with bounds.
//! let lists = [0, 1, 2, /**/ 0, 1, /**/ 1, 2, 3];
//! let bounds = [0, 3, 5, 8];
//! let top = top_article_pairs(&lists, &bounds, 4, 2);
//! assert_eq!(
//!     top,
//!     [
//!         ArticlePair { shared: 2, a: 0, b: 1 },
//!         ArticlePair { shared: 2, a: 1, b: 2 },
//!     ]
//! );
//! ```
//!
//! # Performance
//!
//! The lists are inverted (for each article `a`, the places where it occurs); then each worker
//! takes a range of articles `a` and counts, in a dense array over all articles, how many lists
//! hold each `b > a` after `a`. The array is reset through the list of touched entries, so the
//! work is the number of pairs (quadratic in the articles of a cluster, which is why the caller
//! leaves out clusters of more than [`MAX_CLUSTER_ARTICLES`]) and the memory is 16 bytes per
//! list entry plus 4 bytes per article per worker, instead of a hash map entry per distinct pair.
//! Each worker keeps at most `2k` candidate rows, pruned by selection, and skips a pair outright
//! once it cannot enter its top `k`.
use std::cmp::Reverse;
use std::ops::Range;

use rayon::prelude::*;

use textreuse_corpus::DocId;

use crate::ArticlePairRow;

/// Clusters spanning more articles than this are left out of `article-pairs.tsv`: giant
/// template clusters say little about article pairs and cost quadratic work.
pub const MAX_CLUSTER_ARTICLES: usize = 200;

/// One row of `article-pairs.tsv`, in the caller's article indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArticlePair {
    /// The number of lists (clusters) that hold both articles.
    pub shared: u32,
    /// The smaller article index.
    pub a: u32,
    /// The larger article index.
    pub b: u32,
}

impl ArticlePair {
    /// The output order: most shared clusters first, then ascending `(a, b)`.
    fn key(&self) -> (Reverse<u32>, u32, u32) {
        (Reverse(self.shared), self.a, self.b)
    }
}

/// The `k` best rows offered so far.
pub(crate) struct TopPairs {
    k: usize,
    /// Rows are collected up to this many, then pruned back to `k`.
    limit: usize,
    rows: Vec<ArticlePair>,
    /// The `k`-th best row after the last pruning: a row after it can never be in the top `k`.
    worst: Option<ArticlePair>,
}

impl TopPairs {
    pub(crate) fn new(k: usize) -> TopPairs {
        TopPairs {
            k,
            // Amortized constant work per offered row, whatever `k` is.
            limit: k.saturating_add(k.max(1024)),
            rows: Vec::new(),
            worst: None,
        }
    }

    #[inline]
    pub(crate) fn offer(&mut self, row: ArticlePair) {
        if self.k == 0 || self.worst.is_some_and(|w| row.key() > w.key()) {
            return;
        }
        self.rows.push(row);
        if self.rows.len() >= self.limit {
            self.prune();
        }
    }

    fn prune(&mut self) {
        if self.k > 0 && self.rows.len() > self.k {
            self.rows
                .select_nth_unstable_by_key(self.k - 1, ArticlePair::key);
            self.rows.truncate(self.k);
            self.worst = Some(self.rows[self.k - 1]);
        }
    }

    pub(crate) fn into_sorted(mut self) -> Vec<ArticlePair> {
        self.prune();
        self.rows.sort_unstable_by_key(ArticlePair::key);
        self.rows
    }
}

/// The index in `articles` (the distinct clustered documents, sorted) of each of `pair_docs`,
/// in parallel: the article lists that [`article_pair_rows`] and
/// [`article_chains`](crate::summaries::article_chains) take.
///
/// # Panics
///
/// When a document of `pair_docs` is not in `articles`.
pub fn article_indices(articles: &[&DocId], pair_docs: &[DocId]) -> Vec<u32> {
    pair_docs
        .par_iter()
        .map(|doc| {
            let i = articles
                .binary_search(&doc)
                .expect("every clustered document is an article");
            u32::try_from(i).expect("at most 2^32 documents (checked in stage 1)")
        })
        .collect()
}

/// The rows of `article-pairs.tsv`: the `k` pairs of `articles` that share the most clusters,
/// most shared first, ties by ascending document ids.
///
/// `articles` are the distinct documents of the clusters, sorted; `lists[bounds[i]..bounds[i +
/// 1]]` are the indices in `articles` ([`article_indices`]), ascending, of the distinct
/// documents of the `i`-th cluster that counts (at most [`MAX_CLUSTER_ARTICLES`]); `title` gives
/// a document's title. `textreuse dedup` and the Spark backend both rank with this function.
///
/// # Panics
///
/// When an index of `lists` is not below `articles.len()`, or `bounds` is not ascending within
/// `lists`.
pub fn article_pair_rows(
    articles: &[&DocId],
    lists: &[u32],
    bounds: &[usize],
    k: usize,
    title: impl Fn(&DocId) -> String,
) -> Vec<ArticlePairRow> {
    let top = top_article_pairs(lists, bounds, articles.len(), k);
    top.iter()
        .map(|row| {
            let (a, b) = (articles[row.a as usize], articles[row.b as usize]);
            ArticlePairRow {
                shared_clusters: row.shared as u64,
                doc_a: a.clone(),
                title_a: title(a),
                doc_b: b.clone(),
                title_b: title(b),
            }
        })
        .collect()
}

/// The `k` article pairs that share the most lists, most shared first, ties by ascending
/// `(a, b)`.
///
/// `lists[bounds[i]..bounds[i + 1]]` is the `i`-th list: strictly ascending article indices below
/// `articles`. Pairs are counted exactly as a map from every pair to its count would count them;
/// the result does not depend on the number of threads.
///
/// # Panics
///
/// When `bounds` is not ascending or out of the range of `lists`, or an index is not below
/// `articles` (the caller builds both).
pub fn top_article_pairs(
    lists: &[u32],
    bounds: &[usize],
    articles: usize,
    k: usize,
) -> Vec<ArticlePair> {
    if k == 0 || articles == 0 {
        return Vec::new();
    }
    // Invert the lists: for each article `a`, the ranges of `lists` that follow it in a list
    // (its partners `b > a`), grouped by `a` with a counting sort.
    let mut first = vec![0usize; articles + 1];
    for w in bounds.windows(2) {
        for &a in lists[w[0]..w[1]].iter().rev().skip(1) {
            first[a as usize + 1] += 1;
        }
    }
    for i in 0..articles {
        first[i + 1] += first[i];
    }
    let mut cursor = first.clone();
    let mut after = vec![(0usize, 0usize); first[articles]];
    for w in bounds.windows(2) {
        for p in w[0]..w[1].saturating_sub(1) {
            let c = &mut cursor[lists[p] as usize];
            after[*c] = (p + 1, w[1]);
            *c += 1;
        }
    }
    drop(cursor);
    let pairs_of = |a: usize| -> usize {
        after[first[a]..first[a + 1]]
            .iter()
            .map(|&(s, e)| e - s)
            .sum()
    };
    let parts = balanced_ranges(articles, rayon::current_num_threads() * 8, &pairs_of);
    let tops: Vec<Vec<ArticlePair>> = parts
        .into_par_iter()
        .map(|range| {
            let mut count = vec![0u32; articles];
            let mut touched: Vec<u32> = Vec::new();
            let mut top = TopPairs::new(k);
            for a in range {
                for &(s, e) in &after[first[a]..first[a + 1]] {
                    for &b in &lists[s..e] {
                        let c = &mut count[b as usize];
                        if *c == 0 {
                            touched.push(b);
                        }
                        // A count reaches 2^32 only with more than 2^32 clusters.
                        *c = c.saturating_add(1);
                    }
                }
                for &b in &touched {
                    let shared = std::mem::take(&mut count[b as usize]);
                    top.offer(ArticlePair {
                        shared,
                        a: a as u32,
                        b,
                    });
                }
                touched.clear();
            }
            top.into_sorted()
        })
        .collect();
    // Every pair was counted by exactly one part (the one holding its `a`).
    let mut top = TopPairs::new(k);
    for row in tops.into_iter().flatten() {
        top.offer(row);
    }
    top.into_sorted()
}

/// Splits `0..n` into at most `parts` contiguous ranges of about equal total `weight`.
fn balanced_ranges(n: usize, parts: usize, weight: &dyn Fn(usize) -> usize) -> Vec<Range<usize>> {
    let total: usize = (0..n).map(weight).sum();
    let target = total / parts.max(1) + 1;
    let mut out = Vec::new();
    let mut start = 0;
    let mut sum = 0;
    for i in 0..n {
        sum += weight(i);
        if sum >= target {
            out.push(start..i + 1);
            start = i + 1;
            sum = 0;
        }
    }
    if start < n {
        out.push(start..n);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    /// The straightforward count: a map from every pair to its count, sorted.
    fn naive(lists: &[Vec<u32>], k: usize) -> Vec<ArticlePair> {
        let mut counts: HashMap<(u32, u32), u32> = HashMap::new();
        for list in lists {
            for (i, &a) in list.iter().enumerate() {
                for &b in &list[i + 1..] {
                    *counts.entry((a, b)).or_insert(0) += 1;
                }
            }
        }
        let mut rows: Vec<ArticlePair> = counts
            .into_iter()
            .map(|((a, b), shared)| ArticlePair { shared, a, b })
            .collect();
        rows.sort_unstable_by_key(ArticlePair::key);
        rows.truncate(k);
        rows
    }

    fn flatten(lists: &[Vec<u32>]) -> (Vec<u32>, Vec<usize>) {
        let mut flat = Vec::new();
        let mut bounds = vec![0];
        for list in lists {
            flat.extend_from_slice(list);
            bounds.push(flat.len());
        }
        (flat, bounds)
    }

    /// Lists of distinct ascending articles below `articles`, some empty or of one article.
    fn lists(articles: u32) -> impl Strategy<Value = Vec<Vec<u32>>> {
        prop::collection::vec(
            prop::collection::btree_set(0..articles, 0..12)
                .prop_map(|set| set.into_iter().collect::<Vec<u32>>()),
            0..60,
        )
    }

    proptest! {
        #[test]
        fn matches_the_naive_count(lists in lists(40), k in 0usize..50) {
            let (flat, bounds) = flatten(&lists);
            prop_assert_eq!(top_article_pairs(&flat, &bounds, 40, k), naive(&lists, k));
        }

        #[test]
        fn does_not_depend_on_the_thread_count(lists in lists(30), k in 1usize..2000) {
            let (flat, bounds) = flatten(&lists);
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            let three = pool.install(|| top_article_pairs(&flat, &bounds, 30, k));
            let one = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap()
                .install(|| top_article_pairs(&flat, &bounds, 30, k));
            prop_assert_eq!(three, one);
        }
    }

    /// Many ties at the cut: the selection keeps the smallest `(a, b)` among equal counts, also
    /// across the pruning of the candidate rows (more than `k + 1024` rows).
    #[test]
    fn ties_at_the_cut_go_to_the_smallest_pairs() {
        // One list over 80 articles: 3,160 pairs, all shared once; two more lists make the pairs
        // of 0..10 and of 70..80 shared twice.
        let lists = vec![
            (0..80).collect::<Vec<u32>>(),
            (0..10).collect(),
            (70..80).collect(),
        ];
        let (flat, bounds) = flatten(&lists);
        for k in [1, 45, 90, 91, 100, 2000, 3160, 5000] {
            let top = top_article_pairs(&flat, &bounds, 80, k);
            assert_eq!(top, naive(&lists, k), "k = {k}");
            assert_eq!(top.len(), k.min(3160));
        }
        let top = top_article_pairs(&flat, &bounds, 80, 91);
        assert_eq!(
            top[89],
            ArticlePair {
                shared: 2,
                a: 78,
                b: 79
            }
        );
        assert_eq!(
            top[90],
            ArticlePair {
                shared: 1,
                a: 0,
                b: 10
            }
        );
    }

    #[test]
    fn nothing_to_count() {
        assert!(top_article_pairs(&[], &[0], 0, 10).is_empty());
        assert!(top_article_pairs(&[3], &[0, 1], 5, 10).is_empty());
        assert!(top_article_pairs(&[0, 1], &[0, 2], 2, 0).is_empty());
    }

    #[test]
    fn balanced_ranges_cover_everything_once() {
        let weight = |i: usize| if i < 5 { 100 } else { 1 };
        let ranges = balanced_ranges(50, 4, &weight);
        assert!(ranges.len() <= 4 + 1, "{ranges:?}");
        let covered: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
        assert_eq!(covered, (0..50).collect::<Vec<_>>());
        assert!(balanced_ranges(0, 4, &weight).is_empty());
    }
}
