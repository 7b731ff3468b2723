//! The counts of a run: [`Stats`], the one definition of `stats.json` (written by the dedup
//! sink and the Spark backend, read by the report).
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::summaries::{ABOVE_SIZES, ArticleChains, ClusterCounts, SizeSummary};

/// Wall time of each stage in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StageTimes {
    /// Stages 1-2 (reading, cleaning, splitting, signing) and pushing records.
    pub sentences_and_signatures: f64,
    /// Stages 3-5 (merge, buckets, pairs, union-find).
    pub shuffle_and_clusters: f64,
    /// Stage 7.
    pub edit_filter: f64,
    /// Stages 6 and 8 and delivering the clusters and article pairs to the sink.
    pub text_classify_write: f64,
}

/// The numbers of a run (what `stats.json` holds), given to [`Sink::finish`](crate::Sink::finish)
/// and returned by [`Dedup::run`](crate::Dedup::run).
///
/// It is the schema of `stats.json`: [`Stats::to_json`] writes it (the sink of `textreuse
/// dedup` and the Spark backend), and it reads back with serde (the report); a field missing
/// from an older file reads as its default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Stats {
    /// The unit compared: `sentence`, `paragraph` or `document`.
    pub unit: String,
    /// How candidates were found: `minhash` (band keys), `simhash` (fingerprints within a
    /// Hamming distance) or `rp-embed` (random projection of mean word vectors, parameters in
    /// `projection`); with the last two the MinHash fields below are unused for candidates
    /// (members' `similarity` is still the MinHash estimate).
    pub method: String,
    /// The MinHash parameters: the scheme (`drawn`, `disjoint` or `oph`), N, K, M (planned
    /// when a threshold was given and no signer).
    pub scheme: String,
    /// Hash functions N (bins for `oph`).
    pub hashes: usize,
    /// Rows K per band.
    pub rows: usize,
    /// Bands M.
    pub bands: usize,
    /// The seed of the hash functions (with N, K and M it fixes the S-curve of drawn bands).
    pub seed: u64,
    /// The shingle-count filter's minimum (OPH's S-curve depends on set sizes).
    pub min_shingles: usize,
    /// The Jaccard threshold given, if any.
    pub threshold: Option<f64>,
    /// Whether members' exact Jaccard similarity was computed (and duplicates below the
    /// threshold dropped).
    pub verified: bool,
    /// The representative rule: `first`, `earliest` or `longest`.
    pub keep: String,
    /// Input documents.
    pub documents: u64,
    /// Units (sentences, paragraphs or documents) in them. The names `sentences`,
    /// `sentences_kept` and `clustered_sentences` are kept for every unit.
    pub sentences: u64,
    /// Units within the shingle-count filter.
    pub sentences_kept: u64,
    /// Bad files and records reported and skipped, and damaged parts of dumps read past.
    pub input_problems: u64,
    /// Band-key records (SimHash: fingerprints).
    pub band_key_records: u64,
    /// Distinct band keys.
    pub buckets: u64,
    /// Buckets larger than `max_bucket` with the edit filter on (all pairs are formed only
    /// then); they contributed the pairs of their first `max_bucket` sentences.
    pub buckets_capped: u64,
    /// Sentences those buckets left out of the edit-distance check (0 without the filter: star
    /// pairs are never capped).
    pub bucket_ids_left_out: u64,
    /// Distinct candidate pairs.
    pub candidate_pairs: u64,
    /// Candidate pairs kept by the edit-distance filter (equal to `candidate_pairs` without it).
    pub pairs_after_edit_filter: u64,
    /// Bytes the shuffle spilled to disk.
    pub bytes_spilled: u64,
    /// Clusters (two or more members).
    pub clusters: u64,
    /// Units in clusters.
    pub clustered_sentences: u64,
    /// Units listed in `duplicates.jsonl`: every member but the representative (with
    /// verification, those at or above the threshold).
    pub duplicates: u64,
    /// Distinct articles (document ids) with a clustered sentence.
    pub distinct_articles: u64,
    /// Cluster size -> number of clusters.
    pub cluster_size_histogram: BTreeMap<usize, u64>,
    /// Cluster type -> number of clusters.
    pub types: BTreeMap<String, u64>,
    /// Distinct texts (as written, told apart by 64-bit fingerprints) among the clustered
    /// units: each cluster's distinct member texts, summed over clusters. Equal texts have equal
    /// band keys (or SimHash fingerprints), so they share a cluster and are counted once.
    pub distinct_clustered_texts: u64,
    /// Article-pair links: for each cluster, the pairs of its distinct articles (`n (n - 1) /
    /// 2` for `n` articles), summed over clusters; a pair of articles that shares three
    /// clusters counts three times.
    pub article_pair_links: u64,
    /// `s` -> the article-pair links of clusters of more than `s` units
    /// ([`ABOVE_SIZES`](crate::summaries::ABOVE_SIZES)).
    pub article_pair_links_above: BTreeMap<usize, u64>,
    /// Percentiles and shares of the cluster sizes, derived from the fields above by
    /// [`Stats::summarize`].
    pub cluster_sizes: SizeSummary,
    /// Articles connected by shared clusters ([`article_chains`](crate::summaries::article_chains)).
    pub article_chains: ArticleChains,
    /// Wall time per stage.
    pub seconds: StageTimes,
    /// The random projection over word embeddings (`method` `rp-embed` only; absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection: Option<ProjectionStats>,
}

/// The parameters and counts of a random projection over word embeddings
/// ([`Method::RandomProjection`](crate::Method::RandomProjection)).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ProjectionStats {
    /// `trained` (on the run's units) or `file`.
    pub vectors: String,
    /// The dimension of the word vectors.
    pub dim: usize,
    /// Whether words were stemmed.
    pub stemmed: bool,
    /// Whether the corpus's mean word vector was subtracted from the unit vectors.
    pub centered: bool,
    /// The signature width `D`.
    pub bits: u32,
    /// Bit permutations `Q`.
    pub permutations: u32,
    /// The window `B`.
    pub window: u32,
    /// The Hamming threshold `T`.
    pub max_hamming: u32,
    /// The seed of the hyperplanes and permutations (and of the training).
    pub seed: u64,
    /// Distinct cleaned words of the kept units.
    pub vocabulary: u64,
    /// Of those, the words with a vector.
    pub words_with_vector: u64,
    /// Kept units none of whose words has a vector: not signed, never in a cluster.
    pub units_without_vector: u64,
    /// Seconds spent training (0 with a vector file).
    pub training_seconds: f64,
}

impl Stats {
    /// The fields of `stats.json` that [`Stats::summarize`] derives from the others (a driver
    /// that fills the rest calls it instead of computing them).
    pub const DERIVED: &'static [&'static str] = &["cluster_sizes"];

    /// Adds one cluster's counts to `distinct_clustered_texts` and the article-pair links.
    /// (`clusters`, `clustered_sentences` and the histogram are counted by the driver.)
    pub fn add_cluster_counts(&mut self, counts: ClusterCounts) {
        self.distinct_clustered_texts += counts.distinct_texts;
        let links = counts.article_pairs();
        self.article_pair_links += links;
        for s in ABOVE_SIZES {
            let above = self.article_pair_links_above.entry(s).or_insert(0);
            if counts.units > s {
                *above += links;
            }
        }
    }

    /// Fills in the derived fields ([`Stats::DERIVED`]): `cluster_sizes` from the histogram
    /// and the article-pair links, and a zero for each size of
    /// [`ABOVE_SIZES`](crate::summaries::ABOVE_SIZES) the links lack.
    pub fn summarize(&mut self) {
        for s in ABOVE_SIZES {
            self.article_pair_links_above.entry(s).or_insert(0);
        }
        self.cluster_sizes = SizeSummary::of(
            &self.cluster_size_histogram,
            self.article_pair_links,
            &self.article_pair_links_above,
        );
    }

    /// `stats.json` as the sink writes it: pretty-printed JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("stats serialize");
        text.push('\n');
        text
    }
}
