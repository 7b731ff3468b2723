//! The summaries Weissman's papers report beside the clusters, as `stats.json` holds them
//! ([`Stats`](crate::Stats)): distinct texts among the clustered units, cluster-size percentiles
//! and shares ([`SizeSummary`]), the share of units and of article-pair links in clusters above
//! a size, and article chains ([`ArticleChains`]: articles connected by shared clusters, the
//! first paper's Figure 4).
//!
//! `textreuse dedup` and the Spark backend both compute them with these functions: the
//! per-cluster counts ([`ClusterCounts`]) add up over any split of the clusters, the size
//! summary is derived from the histogram ([`Stats::summarize`](crate::Stats::summarize)), and
//! the chains come from the article lists the article-pair ranking already keeps
//! ([`article_chains`]).
//!
//! ```
//! use textreuse_corpus::DocId;
//! use textreuse_dedup::summaries::article_chains;
//!
//! // Three clusters: {a, b}, {b, c}, {d, e}: two chains, a-b-c and d-e.
//! let ids: Vec<DocId> = (1u64..=5).map(DocId::from).collect();
//! let articles: Vec<&DocId> = ids.iter().collect();
//! let docs = [1u64, 2, /**/ 2, 3, /**/ 4, 5].map(DocId::from);
//! let lists = textreuse_dedup::article_pairs::article_indices(&articles, &docs);
//! let chains = article_chains(&articles, &lists, &[0, 2, 4, 6], 0, |d| format!("Page {d}"));
//! assert_eq!(chains.chains, 2);
//! assert_eq!(chains.largest[0].articles, 3);
//! assert_eq!(chains.largest[0].members[0].title, "Page 2"); // in two clusters: listed first
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use textreuse_corpus::DocId;
use textreuse_unionfind::UnionFind;

#[cfg(doc)]
use crate::article_pairs::MAX_CLUSTER_ARTICLES;
use crate::cluster::Cluster;

/// The sizes `s` of [`SizeSummary::share_of_clusters_at_most`]: the first paper's 10, 20, 30.
pub const AT_MOST_SIZES: [usize; 3] = [10, 20, 30];

/// The sizes `s` of the shares of units and of article-pair links in clusters of more than `s`
/// units.
pub const ABOVE_SIZES: [usize; 2] = [10, 100];

/// The chains listed in [`ArticleChains::largest`].
pub const LARGEST_CHAINS: usize = 5;

/// The articles listed per chain ([`Chain::members`]).
pub const CHAIN_ARTICLES: usize = 10;

/// What one cluster adds to the summaries; every field adds up over clusters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterCounts {
    /// Members.
    pub units: usize,
    /// Distinct member texts, as written (by 64-bit [`fingerprint`](textreuse_hash::fingerprint)).
    pub distinct_texts: u64,
    /// Distinct documents.
    pub articles: u64,
}

impl ClusterCounts {
    /// The counts of `cluster` (its members sorted by document, as [`Cluster::new`] sorts them).
    ///
    /// ```
    /// use textreuse_dedup::{Cluster, Member};
    /// use textreuse_dedup::summaries::ClusterCounts;
    ///
    /// let c = Cluster::new(0, vec![
    ///     Member::new(0, 1, "A", "The same sentence."),
    ///     Member::new(1, 1, "A", "The same sentence."),
    ///     Member::new(2 << 32, 2, "B", "The same sentence!"),
    /// ]);
    /// let counts = ClusterCounts::of(&c);
    /// assert_eq!((counts.units, counts.distinct_texts, counts.articles), (3, 2, 2));
    /// assert_eq!(counts.article_pairs(), 1);
    /// ```
    pub fn of(cluster: &Cluster) -> ClusterCounts {
        let mut texts: Vec<u64> = cluster
            .members
            .iter()
            .map(|m| textreuse_hash::fingerprint(m.text.as_bytes()))
            .collect();
        texts.sort_unstable();
        texts.dedup();
        let articles = 1 + cluster
            .members
            .windows(2)
            .filter(|w| w[0].doc != w[1].doc)
            .count() as u64;
        ClusterCounts {
            units: cluster.len(),
            distinct_texts: texts.len() as u64,
            articles: if cluster.is_empty() { 0 } else { articles },
        }
    }

    /// The article-pair links of the cluster: pairs of its distinct articles, `n (n - 1) / 2`.
    pub fn article_pairs(&self) -> u64 {
        self.articles * self.articles.saturating_sub(1) / 2
    }
}

/// Cluster sizes summarized: percentiles, and shares of clusters, units and article-pair links
/// by size. Derived from `cluster_size_histogram`, `clustered_sentences` and the article-pair
/// links by [`Stats::summarize`](crate::Stats::summarize).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SizeSummary {
    /// The median cluster size: the smallest size `s` with at least half the clusters of size
    /// `s` or less (nearest rank; 0 without clusters).
    pub p50: usize,
    /// The same for 90% of the clusters.
    pub p90: usize,
    /// The same for 99% of the clusters.
    pub p99: usize,
    /// The largest cluster size.
    pub max: usize,
    /// `s` -> the share of clusters of at most `s` units ([`AT_MOST_SIZES`]).
    pub share_of_clusters_at_most: BTreeMap<usize, f64>,
    /// `s` -> the share of clustered units that are in clusters of more than `s` units
    /// ([`ABOVE_SIZES`]).
    pub share_of_units_in_clusters_above: BTreeMap<usize, f64>,
    /// `s` -> the share of article-pair links that come from clusters of more than `s` units
    /// ([`ABOVE_SIZES`]; see `Stats::article_pair_links`).
    pub share_of_article_pair_links_in_clusters_above: BTreeMap<usize, f64>,
}

impl SizeSummary {
    /// The summary of a histogram (size -> clusters) and the article-pair links (all, and
    /// `s` -> those in clusters of more than `s` units).
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use textreuse_dedup::summaries::SizeSummary;
    ///
    /// // Eight clusters of 2, one of 12, one of 150.
    /// let histogram = BTreeMap::from([(2, 8), (12, 1), (150, 1)]);
    /// let s = SizeSummary::of(&histogram, 0, &BTreeMap::new());
    /// assert_eq!((s.p50, s.p90, s.p99, s.max), (2, 12, 150, 150));
    /// assert_eq!(s.share_of_clusters_at_most[&10], 0.8);
    /// assert_eq!(s.share_of_units_in_clusters_above[&10], 162.0 / 178.0);
    /// assert_eq!(s.share_of_units_in_clusters_above[&100], 150.0 / 178.0);
    /// ```
    pub fn of(
        histogram: &BTreeMap<usize, u64>,
        article_pair_links: u64,
        links_above: &BTreeMap<usize, u64>,
    ) -> SizeSummary {
        let clusters: u64 = histogram.values().sum();
        let units: u64 = histogram.iter().map(|(&s, &n)| s as u64 * n).sum();
        let share = |part: u64, whole: u64| {
            if whole == 0 {
                0.0
            } else {
                part as f64 / whole as f64
            }
        };
        // Nearest rank: the smallest size whose cumulative count reaches ceil(q * clusters).
        let percentile = |q: u64| -> usize {
            let rank = (q * clusters).div_ceil(100);
            let mut seen = 0;
            for (&size, &n) in histogram {
                seen += n;
                if seen >= rank.max(1) {
                    return size;
                }
            }
            0
        };
        SizeSummary {
            p50: percentile(50),
            p90: percentile(90),
            p99: percentile(99),
            max: histogram.keys().next_back().copied().unwrap_or(0),
            share_of_clusters_at_most: AT_MOST_SIZES
                .iter()
                .map(|&s| {
                    (
                        s,
                        share(histogram.range(..=s).map(|(_, n)| n).sum(), clusters),
                    )
                })
                .collect(),
            share_of_units_in_clusters_above: ABOVE_SIZES
                .iter()
                .map(|&s| {
                    let above = histogram.range(s + 1..).map(|(&k, &n)| k as u64 * n).sum();
                    (s, share(above, units))
                })
                .collect(),
            share_of_article_pair_links_in_clusters_above: ABOVE_SIZES
                .iter()
                .map(|&s| {
                    let above = links_above.get(&s).copied().unwrap_or(0);
                    (s, share(above, article_pair_links))
                })
                .collect(),
        }
    }
}

/// Article chains: the connected components of the graph whose nodes are the clustered
/// articles (document ids) and whose edges join two articles that share a cluster; a chain has
/// two or more articles. Clusters of more than [`MAX_CLUSTER_ARTICLES`] articles are left out,
/// as the article-pair ranking leaves them out (giant templates would join everything).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ArticleChains {
    /// Chains (components of two or more articles).
    pub chains: u64,
    /// Articles in chains.
    pub articles: u64,
    /// Clusters of more than [`MAX_CLUSTER_ARTICLES`] articles, left out.
    pub clusters_left_out: u64,
    /// Chain size (articles) -> number of chains.
    pub size_histogram: BTreeMap<usize, u64>,
    /// The [`LARGEST_CHAINS`] largest chains, most articles first (ties: the one holding the
    /// smallest document id first).
    pub largest: Vec<Chain>,
}

/// One chain of [`ArticleChains::largest`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Chain {
    /// Its articles.
    pub articles: u64,
    /// The clusters that link them (of two or more articles).
    pub clusters: u64,
    /// Up to [`CHAIN_ARTICLES`] of its articles: those in the most clusters, ties by document
    /// id.
    pub members: Vec<ChainArticle>,
}

/// An article of a [`Chain`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChainArticle {
    /// The document id.
    pub doc: DocId,
    /// Its title (that of its first member in output order, as in `article-pairs.tsv`).
    pub title: String,
    /// The clusters (of two or more articles, at most [`MAX_CLUSTER_ARTICLES`]) it is in.
    pub clusters: u64,
}

/// The article chains of the clusters' article lists, as the article-pair ranking takes them
/// ([`article_pair_rows`](crate::article_pairs::article_pair_rows)): `articles` the distinct
/// clustered documents, sorted; `lists[bounds[i]..bounds[i + 1]]` the indices in `articles`
/// ([`article_indices`](crate::article_pairs::article_indices)) of the distinct documents of
/// the `i`-th cluster of at most [`MAX_CLUSTER_ARTICLES`]; `left_out` the clusters of more
/// articles; `title` a document's title. Memory: 12 bytes per article.
///
/// # Panics
///
/// When an index of `lists` is not below `articles.len()`, or `bounds` is not ascending within
/// `lists`.
pub fn article_chains(
    articles: &[&DocId],
    lists: &[u32],
    bounds: &[usize],
    left_out: u64,
    title: impl Fn(&DocId) -> String,
) -> ArticleChains {
    let n = u32::try_from(articles.len()).expect("at most 2^32 documents");
    let mut uf = UnionFind::new(n);
    // Clusters (of two or more articles) per article.
    let mut in_clusters = vec![0u32; articles.len()];
    let mut firsts: Vec<u32> = Vec::new();
    for w in bounds.windows(2) {
        let list = &lists[w[0]..w[1]];
        if list.len() < 2 {
            continue;
        }
        let first = list[0];
        firsts.push(first);
        for &a in list {
            in_clusters[a as usize] += 1;
            uf.union(first, a);
        }
    }
    // Clusters per chain, by root.
    let mut chain_clusters = vec![0u32; articles.len()];
    for &a in &firsts {
        chain_clusters[uf.find(a) as usize] += 1;
    }
    let mut out = ArticleChains {
        clusters_left_out: left_out,
        ..ArticleChains::default()
    };
    // Each chain once, at its smallest article (the first met in index order).
    let mut seen = vec![false; articles.len()];
    let mut heads: Vec<(u32, u32)> = Vec::new(); // (size, smallest article)
    for a in 0..n {
        let root = uf.find(a);
        let size = uf.set_size(root);
        if size < 2 || std::mem::replace(&mut seen[root as usize], true) {
            continue;
        }
        out.chains += 1;
        out.articles += size as u64;
        *out.size_histogram.entry(size as usize).or_insert(0) += 1;
        heads.push((size, a));
    }
    heads.sort_unstable_by_key(|&(size, a)| (std::cmp::Reverse(size), a));
    heads.truncate(LARGEST_CHAINS);
    for (size, head) in heads {
        let root = uf.find(head);
        let mut members: Vec<u32> = (head..n).filter(|&a| uf.find(a) == root).collect();
        members.sort_by_key(|&a| (std::cmp::Reverse(in_clusters[a as usize]), a));
        members.truncate(CHAIN_ARTICLES);
        out.largest.push(Chain {
            articles: size as u64,
            clusters: chain_clusters[root as usize] as u64,
            members: members
                .into_iter()
                .map(|a| {
                    let doc = articles[a as usize];
                    ChainArticle {
                        doc: doc.clone(),
                        title: title(doc),
                        clusters: in_clusters[a as usize] as u64,
                    }
                })
                .collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Member;

    fn chains_of(lists: &[&[u64]], left_out: u64) -> ArticleChains {
        let mut ids: Vec<DocId> = lists
            .iter()
            .flat_map(|l| l.iter().map(|&d| d.into()))
            .collect();
        ids.sort();
        ids.dedup();
        let articles: Vec<&DocId> = ids.iter().collect();
        let mut flat: Vec<DocId> = Vec::new();
        let mut bounds = vec![0];
        for l in lists {
            flat.extend(l.iter().map(|&d| DocId::from(d)));
            bounds.push(flat.len());
        }
        let flat = crate::article_pairs::article_indices(&articles, &flat);
        article_chains(&articles, &flat, &bounds, left_out, |d| format!("T{d}"))
    }

    #[test]
    fn chains_are_the_components_of_two_or_more_articles() {
        // 1-2-3-4 through three clusters; 7-8 twice; 5 alone in a one-article cluster; 9-10.
        let c = chains_of(
            &[&[1, 2], &[2, 3], &[3, 4], &[5], &[7, 8], &[7, 8], &[9, 10]],
            3,
        );
        assert_eq!(c.chains, 3);
        assert_eq!(c.articles, 8);
        assert_eq!(c.clusters_left_out, 3);
        assert_eq!(c.size_histogram, BTreeMap::from([(2, 2), (4, 1)]));
        let sizes: Vec<(u64, u64)> = c.largest.iter().map(|c| (c.articles, c.clusters)).collect();
        // Ties by the smallest document: 7-8 before 9-10.
        assert_eq!(sizes, [(4, 3), (2, 2), (2, 1)]);
        let first: Vec<(String, u64)> = c.largest[0]
            .members
            .iter()
            .map(|m| (m.title.clone(), m.clusters))
            .collect();
        let want = [("T2", 2), ("T3", 2), ("T1", 1), ("T4", 1)];
        assert_eq!(first, want.map(|(t, n)| (t.to_string(), n)));
        assert_eq!(c.largest[1].members[0].doc, 7);
    }

    #[test]
    fn at_most_five_chains_of_ten_articles_are_listed() {
        let big: Vec<u64> = (100..130).collect();
        let mut lists: Vec<&[u64]> = vec![&big];
        let pairs: Vec<[u64; 2]> = (0..8).map(|i| [2 * i, 2 * i + 1]).collect();
        lists.extend(pairs.iter().map(|p| &p[..]));
        let c = chains_of(&lists, 0);
        assert_eq!(c.chains, 9);
        assert_eq!(c.largest.len(), LARGEST_CHAINS);
        assert_eq!(c.largest[0].articles, 30);
        assert_eq!(c.largest[0].members.len(), CHAIN_ARTICLES);
        // All in one cluster: by document id.
        assert_eq!(c.largest[0].members[9].doc, 109);
        assert_eq!(c.largest[1].members[0].doc, 0);
    }

    #[test]
    fn no_chains_without_lists() {
        assert_eq!(chains_of(&[], 0), ArticleChains::default());
        assert_eq!(chains_of(&[&[4]], 0).chains, 0);
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let h = BTreeMap::from([(2, 50), (3, 40), (5, 9), (40, 1)]);
        let s = SizeSummary::of(&h, 0, &BTreeMap::new());
        assert_eq!((s.p50, s.p90, s.p99, s.max), (2, 3, 5, 40));
        let h = BTreeMap::from([(2, 51), (3, 49)]);
        assert_eq!(SizeSummary::of(&h, 0, &BTreeMap::new()).p50, 2);
        let h = BTreeMap::from([(2, 49), (3, 51)]);
        assert_eq!(SizeSummary::of(&h, 0, &BTreeMap::new()).p50, 3);
        // One cluster: every percentile is its size.
        let s = SizeSummary::of(&BTreeMap::from([(7, 1)]), 0, &BTreeMap::new());
        assert_eq!((s.p50, s.p99, s.max), (7, 7, 7));
    }

    #[test]
    fn shares_by_size() {
        // 6 clusters of 2, 2 of 15, 1 of 25, 1 of 200: 12 + 30 + 25 + 200 = 267 units.
        let h = BTreeMap::from([(2, 6), (15, 2), (25, 1), (200, 1)]);
        let links = BTreeMap::from([(10, 30), (100, 10)]);
        let s = SizeSummary::of(&h, 40, &links);
        assert_eq!(s.share_of_clusters_at_most[&10], 0.6);
        assert_eq!(s.share_of_clusters_at_most[&20], 0.8);
        assert_eq!(s.share_of_clusters_at_most[&30], 0.9);
        assert_eq!(s.share_of_units_in_clusters_above[&10], 255.0 / 267.0);
        assert_eq!(s.share_of_units_in_clusters_above[&100], 200.0 / 267.0);
        assert_eq!(s.share_of_article_pair_links_in_clusters_above[&10], 0.75);
        assert_eq!(s.share_of_article_pair_links_in_clusters_above[&100], 0.25);
    }

    #[test]
    fn nothing_to_summarize() {
        let s = SizeSummary::of(&BTreeMap::new(), 0, &BTreeMap::new());
        assert_eq!((s.p50, s.p90, s.p99, s.max), (0, 0, 0, 0));
        assert_eq!(s.share_of_clusters_at_most.len(), AT_MOST_SIZES.len());
        assert!(
            s.share_of_units_in_clusters_above
                .values()
                .all(|&v| v == 0.0)
        );
    }

    #[test]
    fn cluster_counts() {
        let c = Cluster::new(
            5,
            vec![
                Member::new(5, 1, "A", "Alpha beta."),
                Member::new(6, 1, "A", "Alpha beta."),
                Member::new(1 << 32, 2, "B", "Alpha beta."),
                Member::new(2 << 32, 3, "C", "Alpha  beta."),
            ],
        );
        let counts = ClusterCounts::of(&c);
        assert_eq!(
            counts,
            ClusterCounts {
                units: 4,
                distinct_texts: 2,
                articles: 3
            }
        );
        assert_eq!(counts.article_pairs(), 3);
    }
}
