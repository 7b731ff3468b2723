//! The engine: [`Dedup`], built by [`DedupBuilder`], runs stages 1-8 over a stream of sources
//! and delivers clusters to a [`Sink`].
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use textreuse_corpus::files::OutputSet;
use textreuse_corpus::{Document, InputError, Progress, Source, Stage};
use textreuse_minhash::{Signer, SignerBuilder, Target, TextSigner};
use textreuse_shingle::Shingler;
use textreuse_shingle::units::{KeptSentences, SentenceFilter, Unit};
use textreuse_shuffle::{
    self as shuffle, BoundedClustering, ClusterList, PairMode, ShuffleBuilder, ShuffleStats,
};
use textreuse_simhash::{ParagraphFingerprinter, SimHasher, TableSearch};
use textreuse_unionfind::Clusters;

#[cfg(doc)]
use crate::article_pairs::MAX_CLUSTER_ARTICLES;
use crate::classify::ClusterType;
use crate::cluster::{Cluster, Keep, Member, within_edit_distance};
use crate::features::unit_simhash;
use crate::pipeline::{DEFAULT_BATCH, DocumentPipeline};
use crate::projection::{EmbeddingProjection, Vectors};
use crate::sink::{ArticlePairRow, OutputDir, Sink};
use crate::spill::SpillArray;
use crate::summaries::ClusterCounts;
use crate::tally::ArticleTally;
use crate::text_store::{DocMeta, TextReader, TextStore};
use crate::{Error, MemoryPlan, ProjectionStats, Stats};
use textreuse_embed::Corpus;

/// The default number of rows of `article-pairs.tsv` (the top pairs by shared clusters).
pub const DEFAULT_MAX_ARTICLE_PAIRS: usize = 100_000;

/// The default largest Hamming distance of a SimHash candidate pair ([`Method::SimHash`]).
pub const DEFAULT_MAX_HAMMING: u32 = 3;

/// How candidate pairs are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Method {
    /// MinHash band keys through the shuffle (the default).
    #[default]
    MinHash,
    /// 64-bit SimHash fingerprints, all pairs within `max_hamming` bits by the exact
    /// permuted-table search. Sentences are fingerprinted by their shingle set
    /// ([`sentence_simhash`](crate::features::sentence_simhash)); paragraphs and documents by
    /// the weighted paragraph fingerprint
    /// ([`ParagraphFingerprinter`]: their longest sentences weighted by keyword frequency,
    /// length and position, after Wang, Liu and Jia).
    SimHash {
        /// Largest Hamming distance of a candidate pair (at most 64; default 3).
        max_hamming: u32,
    },
    /// Meng and Zheng's random projection over word embeddings: each unit cleaned into words,
    /// the mean of their word vectors projected onto `D` random hyperplanes, pairs within `T`
    /// bits found by the sliding window over `Q` bit permutations, clustered with union-find.
    /// The parameters and the vectors (trained on the run's units by default, or given) are
    /// [`DedupBuilder::projection`]'s ([`EmbeddingProjection`]).
    RandomProjection,
}

impl Method {
    /// `minhash`, `simhash` or `rp-embed`, as `stats.json` records it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::MinHash => "minhash",
            Method::SimHash { .. } => "simhash",
            Method::RandomProjection => "rp-embed",
        }
    }
}

/// The options of a [`Dedup`] run; [`DedupBuilder::new`] gives the research defaults. Setters
/// take and return `&mut Self`; [`DedupBuilder::build`] checks every option.
///
/// ```
/// use textreuse_dedup::Dedup;
///
/// let dedup = Dedup::builder()
///     .mem_budget(512 << 20)
///     .max_bucket(100)
///     .max_edit(0.25)
///     .build()?;
/// assert!(Dedup::builder().max_edit(1.5).build().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct DedupBuilder {
    signer: Option<Signer>,
    unit: Unit,
    shingle: Option<usize>,
    min_shingles: Option<usize>,
    max_shingles: Option<usize>,
    threshold: Option<f64>,
    target: Option<Target>,
    keep: Keep,
    verify: bool,
    mem_budget: Option<u64>,
    max_memory: Option<u64>,
    spill_everything: bool,
    max_bucket: usize,
    max_edit: Option<f64>,
    tmp_dir: Option<PathBuf>,
    batch: usize,
    method: Method,
    projection: EmbeddingProjection,
    max_article_pairs: usize,
}

impl Default for DedupBuilder {
    fn default() -> Self {
        DedupBuilder::new()
    }
}

impl DedupBuilder {
    /// The research defaults: 12-character shingles, sentences of 75..=600 shingles, the unit's
    /// signer ([`SignerBuilder::for_unit`]: for sentences the Weissman preset, N = 20, K = 10,
    /// M = 10, drawn bands, seed 1123456), a 2 GiB shuffle budget,
    /// buckets capped at 100, no edit-distance filter, MinHash candidates, 100,000 article pairs.
    pub fn new() -> DedupBuilder {
        DedupBuilder {
            signer: None,
            unit: Unit::Sentence,
            shingle: None,
            min_shingles: None,
            max_shingles: None,
            threshold: None,
            target: None,
            keep: Keep::First,
            verify: false,
            mem_budget: None,
            max_memory: None,
            spill_everything: false,
            max_bucket: shuffle::DEFAULT_MAX_BUCKET,
            max_edit: None,
            tmp_dir: None,
            batch: DEFAULT_BATCH,
            method: Method::MinHash,
            projection: EmbeddingProjection::new(),
            max_article_pairs: DEFAULT_MAX_ARTICLE_PAIRS,
        }
    }

    /// The MinHash signer (default [`Signer::new`], or the one [`DedupBuilder::threshold`]
    /// picks). An explicit signer wins over a threshold.
    pub fn signer(&mut self, signer: Signer) -> &mut Self {
        self.signer = Some(signer);
        self
    }

    /// What is compared: sentences (default), paragraphs or whole documents. The shingle-count
    /// bounds default to the unit's ([`Unit::default_filter`]), and so does the signer
    /// ([`SignerBuilder::for_unit`]: OPH for paragraphs and documents).
    pub fn unit(&mut self, unit: Unit) -> &mut Self {
        self.unit = unit;
        self
    }

    /// Shingle length in characters (default 12; at least 1).
    pub fn shingle(&mut self, chars: usize) -> &mut Self {
        self.shingle = Some(chars);
        self
    }

    /// Keep units with at least this many shingles, counted on the text as written (default:
    /// 75 for sentences, 20 for paragraphs and documents).
    pub fn min_shingles(&mut self, n: usize) -> &mut Self {
        self.min_shingles = Some(n);
        self
    }

    /// Keep units with at most this many shingles (default: 600 for sentences, no bound for
    /// paragraphs and documents; `usize::MAX` for no bound).
    pub fn max_shingles(&mut self, n: usize) -> &mut Self {
        self.max_shingles = Some(n);
        self
    }

    /// The Jaccard similarity that counts as a duplicate (0 < t < 1). Without an explicit
    /// [`DedupBuilder::signer`], the scheme, rows K and bands M are the cheapest that meet the
    /// target ([`textreuse_minhash::plan`]; by default [`Target::new`]`(t)`: 99% of pairs at or
    /// above `t` found, at most 1% of pairs at `max(t - 0.4, t / 6)` made candidates, for units
    /// of the filter's minimum shingle count, choosing among all schemes); with
    /// [`DedupBuilder::verify`], pairs whose exact Jaccard is below `t` are not duplicates.
    /// Recorded in `stats.json`.
    pub fn threshold(&mut self, t: f64) -> &mut Self {
        self.threshold = Some(t);
        self
    }

    /// What the planner must meet when a [`DedupBuilder::threshold`] picks the signer (its
    /// recall, candidate rate, set sizes, schemes, bits and seed; its `threshold` is replaced by
    /// the builder's). Default: [`Target::new`] with `min_set` the unit's minimum shingle count.
    pub fn target(&mut self, target: Target) -> &mut Self {
        self.target = Some(target);
        self
    }

    /// Which member of each cluster is kept, the others being its duplicates (default
    /// [`Keep::First`]).
    pub fn keep(&mut self, keep: Keep) -> &mut Self {
        self.keep = keep;
        self
    }

    /// Computes the exact Jaccard similarity (of the normalized shingle sets) of each member to
    /// its cluster's representative, and drops members below the threshold from the
    /// duplicates (the threshold of [`DedupBuilder::threshold`], else the signer's
    /// [`threshold_estimate`](Signer::threshold_estimate) `(1/M)^(1/K)`). Default off.
    pub fn verify(&mut self, verify: bool) -> &mut Self {
        self.verify = verify;
        self
    }

    /// The shuffle's memory budget in bytes (default 2 GiB, or with
    /// [`DedupBuilder::max_memory`] the sorts' share of it; at least 1 KiB); beyond it sorted
    /// runs spill to disk. With a `max_memory` it must fit in the sorts' share
    /// ([`MemoryPlan`]), and a smaller one leaves the rest of the share unused.
    pub fn mem_budget(&mut self, bytes: u64) -> &mut Self {
        self.mem_budget = Some(bytes);
        self
    }

    /// Bounds the peak resident memory of the run to `bytes` (default: no bound; at least
    /// [`MemoryPlan::MINIMUM`], else [`build`](DedupBuilder::build) returns
    /// [`Error::MemoryTooSmall`]). The fixed cost of a run is taken off first, and what is
    /// left is shared out: the sorts' budget, the text store's index (which moves to a
    /// temporary file when its share is full), stage 5's clusters and stage 8's article tally
    /// (both on disk past their shares), the chunks of stages 6-8; see [`MemoryPlan`]
    /// for the shares and for the structures not held to one yet. The results are the same at
    /// any bound.
    pub fn max_memory(&mut self, bytes: u64) -> &mut Self {
        self.max_memory = Some(bytes);
        self
    }

    /// Spills everything that can spill from its first entry, whatever the bound: the sorts
    /// get 4 KiB, the text store's index goes to disk, stage 5's clusters are computed on disk
    /// from the first pair, the pipeline's batches and stages 6-8 and the output take one
    /// document or member at a time. Slow; for tests that check that
    /// every spill path gives the results of an in-memory run (default off).
    pub fn spill_everything(&mut self, on: bool) -> &mut Self {
        self.spill_everything = on;
        self
    }

    /// A bucket with more sentences contributes only its first `n` (by id) (default 100; at
    /// least 2; `usize::MAX` for no cap).
    pub fn max_bucket(&mut self, n: usize) -> &mut Self {
        self.max_bucket = n;
        self
    }

    /// Keep only candidate pairs whose normalized edit distance is at most `d` (0..=1), and
    /// cluster those (stage 7). Default: no filter.
    pub fn max_edit(&mut self, d: f64) -> &mut Self {
        self.max_edit = Some(d);
        self
    }

    /// Removes the edit-distance filter.
    pub fn no_edit_filter(&mut self) -> &mut Self {
        self.max_edit = None;
        self
    }

    /// Where spill files and the sentence text file go (default: the system temporary
    /// directory).
    pub fn tmp_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.tmp_dir = Some(dir.into());
        self
    }

    /// Documents per parallel batch of stages 1-2 (default 512; at least 1).
    pub fn batch(&mut self, documents: usize) -> &mut Self {
        self.batch = documents;
        self
    }

    /// MinHash (default), SimHash or random-projection candidates.
    pub fn method(&mut self, method: Method) -> &mut Self {
        self.method = method;
        self
    }

    /// The parameters and word vectors of [`Method::RandomProjection`] (default
    /// [`EmbeddingProjection::new`]: vectors trained on the run's units, `D = 100`, `Q = 10`,
    /// `B = 10`, `T = 5`). Unused by the other methods.
    pub fn projection(&mut self, projection: EmbeddingProjection) -> &mut Self {
        self.projection = projection;
        self
    }

    /// Rows of the article-pair ranking (default 100,000).
    pub fn max_article_pairs(&mut self, n: usize) -> &mut Self {
        self.max_article_pairs = n;
        self
    }

    /// Checks the options and builds the engine. [`Error::InvalidOption`] names the option to
    /// change.
    pub fn build(&self) -> Result<Dedup, Error> {
        let invalid = |option, message: String| Err(Error::InvalidOption { option, message });
        let mut filter = self.unit.default_filter();
        filter.shingle = self.shingle.unwrap_or(filter.shingle);
        filter.min_shingles = self.min_shingles.unwrap_or(filter.min_shingles);
        filter.max_shingles = self.max_shingles.unwrap_or(filter.max_shingles);
        if filter.shingle == 0 {
            return invalid("shingle", "must be at least 1 character".into());
        }
        if filter.min_shingles > filter.max_shingles {
            return invalid(
                "min_shingles",
                format!(
                    "{} is above max_shingles {}: nothing would be kept",
                    filter.min_shingles, filter.max_shingles
                ),
            );
        }
        if let Some(t) = self.threshold
            && !(t > 0.0 && t < 1.0)
        {
            return invalid(
                "threshold",
                format!("must be between 0 and 1 (exclusive), got {t}"),
            );
        }
        let signer = match (&self.signer, self.threshold) {
            (Some(signer), _) => signer.clone(),
            (None, Some(t)) => {
                let mut target = self.target.clone().unwrap_or_else(|| Target {
                    min_set: filter.min_shingles.max(1),
                    ..Target::new(t)
                });
                target.threshold = t;
                let plan = textreuse_minhash::plan(&target).map_err(|e| Error::InvalidOption {
                    option: "threshold",
                    message: format!("no signer for it: {e}"),
                })?;
                plan.builder().build().map_err(|e| Error::InvalidOption {
                    option: "target",
                    message: format!("the planned signer is invalid: {e}"),
                })?
            }
            (None, None) => SignerBuilder::for_unit(self.unit)
                .build()
                .expect("the presets are valid"),
        };
        if let Some(d) = self.max_edit
            && !(0.0..=1.0).contains(&d)
        {
            return invalid("max_edit", format!("must be between 0 and 1, got {d}"));
        }
        if self.batch == 0 {
            return invalid("batch", "must be at least 1 document".into());
        }
        // The bound is checked first: nothing is read when it is too small.
        let mut memory = match self.max_memory {
            Some(bound) => MemoryPlan::bounded(bound, self.mem_budget)?,
            None => MemoryPlan::unbounded(self.mem_budget.unwrap_or(shuffle::DEFAULT_MEM_BUDGET)),
        };
        if self.spill_everything {
            memory.sorts = 4 << 10;
            memory.text_index = 0;
            memory.components = 0;
            memory.article_tally = 0;
            memory.chunk_members = 1;
            memory.batch_bytes = 1;
        }
        let mut shuffle = ShuffleBuilder::new();
        shuffle.mem_budget(memory.sorts).max_bucket(self.max_bucket);
        if self.max_edit.is_some() {
            // Every pair that shares a band is checked, not only a star.
            shuffle.pair_mode(PairMode::All);
        }
        if let Some(dir) = &self.tmp_dir {
            shuffle.tmp_dir(dir);
        }
        // Checks the budget and the cap now, not after reading the input.
        shuffle.check()?;
        let search = match self.method {
            Method::MinHash | Method::RandomProjection => None,
            Method::SimHash { max_hamming } => Some(TableSearch::new(max_hamming)?),
        };
        let projection = (self.method == Method::RandomProjection).then(|| self.projection.clone());
        let similarity_threshold = self
            .threshold
            .unwrap_or_else(|| signer.threshold_estimate());
        Ok(Dedup {
            signer,
            filter,
            unit: self.unit,
            keep: self.keep,
            verify: self.verify,
            threshold: self.threshold,
            similarity_threshold,
            paragraphs: ParagraphFingerprinter::new(),
            shuffle,
            max_edit: self.max_edit,
            tmp_dir: self.tmp_dir.clone(),
            batch: self.batch,
            search,
            projection,
            max_article_pairs: self.max_article_pairs,
            memory,
        })
    }
}

/// The dedup engine: clusters of near-duplicate sentences (or paragraphs, or documents:
/// [`DedupBuilder::unit`]; "sentence" below reads "unit" then).
///
/// Stage by stage:
///
/// 1. documents -> sentences ([`KeptSentences`]), kept when their character shingle count (on
///    the sentence as written) is within `min_shingles..=max_shingles`; their character offsets
///    in the document are counted on the way;
/// 2. sentences -> `(band key, sentence id)` records ([`TextSigner`]: normalized, shingled,
///    signed, one key per band). Stages 1-2 run on the [`DocumentPipeline`];
/// 3. the shuffle groups records by key under the memory budget, spilling sorted runs;
/// 4. buckets -> distinct candidate pairs, large buckets capped to their first `max_bucket` ids;
/// 5. pairs -> clusters (union-find, cluster id = smallest member id);
/// 6. clusters -> sentence text: kept sentences (and their character offsets) and each
///    document's id, title and origin are written to a temporary file during stage 1 and read
///    back by offset, so memory holds an index of 12 bytes per kept sentence and 16 per
///    document (moved to disk too beyond its share of [`DedupBuilder::max_memory`]);
/// 7. optional ([`DedupBuilder::max_edit`]): keep only candidate pairs whose normalized
///    Levenshtein distance is at most `max_edit` (buckets then emit all their pairs instead of
///    a star, so every pair that shares a band is checked), and re-cluster;
/// 8. classify each cluster ([`classify`](crate::classify)), pick its representative
///    ([`DedupBuilder::keep`]) and score each member against it ([`Cluster::score`]: the
///    estimated Jaccard similarity, and with [`DedupBuilder::verify`] the exact one), rank the
///    article pairs.
///
/// Stages 6 and 8 run in parallel over chunks of clusters, delivered in cluster-id order, so the
/// results are the same for any thread count and memory budget. Sentence ids are
/// `seq << 32 | idx`, where `seq` is the document's position in the input (so the same page in
/// two dumps gets two ids) and `idx` the sentence's index in its document.
///
/// ```
/// use textreuse_corpus::{Document, NoProgress};
/// use textreuse_dedup::{Collect, Dedup};
///
/// let text = "The old mill on the river was built in 1820 and still grinds grain for the village bakery.";
/// let docs = vec![
///     Document::new(1, "Mill", text),
///     Document::new(2, "Village", format!("A different sentence opens this page. {text}")),
/// ];
/// let dedup = Dedup::builder().min_shingles(10).build()?;
/// let mut results = Collect::default();
/// let stats = dedup.run_documents(docs, &mut results, &NoProgress)?;
/// assert_eq!(stats.clusters, 1);
/// let cluster = &results.clusters[0];
/// assert_eq!(cluster.members.len(), 2);
/// assert_eq!((&cluster.members[0].doc, &cluster.members[1].doc), (&1.into(), &2.into()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Dedup {
    signer: Signer,
    filter: SentenceFilter,
    unit: Unit,
    keep: Keep,
    verify: bool,
    /// The threshold given, if any (recorded in `stats.json`).
    threshold: Option<f64>,
    /// The threshold `--verify` applies: the given one, else the S-curve midpoint.
    similarity_threshold: f64,
    paragraphs: ParagraphFingerprinter,
    shuffle: ShuffleBuilder,
    max_edit: Option<f64>,
    tmp_dir: Option<PathBuf>,
    batch: usize,
    /// `Some` for [`Method::SimHash`].
    search: Option<TableSearch>,
    /// `Some` for [`Method::RandomProjection`].
    projection: Option<EmbeddingProjection>,
    max_article_pairs: usize,
    memory: MemoryPlan,
}

impl Default for Dedup {
    fn default() -> Self {
        Dedup::new()
    }
}

/// Pairs per progress report in stages 4-5 (a report per pair would cost more than the union).
const PROGRESS_STEP: u64 = 1 << 16;

/// The output of stages 1-2.
struct Signed {
    texts: TextStore,
    /// MinHash: the band-key records.
    shuffle: shuffle::Shuffle,
    /// SimHash: `(fingerprint, sentence id)`.
    fingerprints: Fingerprints,
    /// Random projection: the cleaned words of every kept unit, and the unit ids in the same
    /// order.
    words: Corpus,
    word_ids: Vec<u64>,
}

/// SimHash: `(fingerprint, unit id)` of every kept unit, in a vector without a memory bound;
/// under one, within half the sorts' share (the shuffle of band keys is not used) and past it in
/// a temporary file, 16 bytes each.
enum Fingerprints {
    Memory(Vec<(u64, u64)>),
    Bounded(SpillArray<16>),
}

impl Fingerprints {
    fn push_slice(&mut self, records: &[(u64, u64)]) -> Result<(), Error> {
        match self {
            Fingerprints::Memory(v) => v.extend_from_slice(records),
            Fingerprints::Bounded(array) => {
                for &(fp, id) in records {
                    array.push_pair(fp, id)?;
                }
            }
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        match self {
            Fingerprints::Memory(v) => v.len() as u64,
            Fingerprints::Bounded(array) => array.len(),
        }
    }
}

/// The output of stages 3-5 (and 7).
struct Candidates {
    clustering: BoundedClustering,
    /// The candidate pairs, kept for stage 7 (empty without the edit filter).
    pairs: Vec<(u64, u64)>,
    /// Under a memory bound, the candidate pairs of the MinHash and SimHash paths kept for
    /// stage 7 instead: in a quarter of the components' share, then in a temporary file.
    spilled_pairs: Option<SpillArray<16>>,
}

impl Candidates {
    /// The pairs a search found in memory: kept for stage 7 (ascending) or joined.
    fn found(
        &mut self,
        pairs: impl Iterator<Item = (u64, u64)>,
        keep_pairs: bool,
    ) -> Result<(), Error> {
        self.pairs.extend(pairs.map(|(a, b)| (a.min(b), a.max(b))));
        self.pairs.sort_unstable();
        if !keep_pairs {
            for &(a, b) in &self.pairs {
                self.clustering.union(a, b)?;
            }
            self.pairs = Vec::new();
        }
        Ok(())
    }

    /// Keeps a candidate pair for stage 7.
    fn keep(&mut self, a: u64, b: u64) -> Result<(), Error> {
        match &mut self.spilled_pairs {
            Some(array) => array.push_pair(a, b),
            None => {
                self.pairs.push((a, b));
                Ok(())
            }
        }
    }
}

/// What stages 6-8 count of the delivered clusters: their types and the article tally.
struct Counted {
    types: BTreeMap<&'static str, u64>,
    tally: ArticleTally,
}

impl Dedup {
    /// An engine with the research defaults ([`DedupBuilder::new`]).
    pub fn new() -> Dedup {
        DedupBuilder::new()
            .build()
            .expect("the default options are valid")
    }

    /// A builder with the research defaults.
    pub fn builder() -> DedupBuilder {
        DedupBuilder::new()
    }

    /// The signer of stage 2.
    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    /// The [`TextSigner`] stage 2 signs every kept sentence with: this engine's signer and
    /// shingle length. What it computes for a text is what the engine buckets the text by.
    ///
    /// ```
    /// use textreuse_dedup::Dedup;
    /// use textreuse_minhash::{Signer, Target, TextSigner};
    ///
    /// let text = "The old mill on the river was built in 1820 and still grinds grain today.";
    /// let mine = TextSigner::new(&Signer::new()).band_keys(text).map(<[u64]>::to_vec);
    /// let engine = Dedup::new();
    /// assert_eq!(engine.text_signer().band_keys(text).map(<[u64]>::to_vec), mine);
    /// ```
    pub fn text_signer(&self) -> TextSigner<'_> {
        TextSigner::new(&self.signer).shingle_chars(self.filter.shingle)
    }

    /// How the run's memory is shared out ([`DedupBuilder::max_memory`]).
    pub fn memory(&self) -> &MemoryPlan {
        &self.memory
    }

    /// Where spill files and the text store go ([`DedupBuilder::tmp_dir`]; `None`: the system
    /// temporary directory).
    pub fn tmp_dir(&self) -> Option<&Path> {
        self.tmp_dir.as_deref()
    }

    /// The unit filter of stage 1.
    pub fn filter(&self) -> &SentenceFilter {
        &self.filter
    }

    /// The unit compared (sentences, paragraphs or documents).
    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// The representative rule.
    pub fn keep(&self) -> Keep {
        self.keep
    }

    /// Runs stages 1-8 over `sources` (in input order; see [`Inputs`](textreuse_corpus::Inputs) for
    /// files), delivers the clusters, article pairs and counts to `sink`, tells `progress` how
    /// it goes, and returns the counts.
    pub fn run<I, S>(
        &self,
        sources: I,
        sink: &mut S,
        progress: &dyn Progress,
    ) -> Result<Stats, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
        S: Sink + ?Sized,
    {
        let mut stats = Stats {
            unit: self.unit.as_str().into(),
            method: if self.search.is_some() {
                "simhash"
            } else if self.projection.is_some() {
                "rp-embed"
            } else {
                "minhash"
            }
            .into(),
            scheme: self.signer.scheme().as_str().into(),
            hashes: self.signer.hashes(),
            rows: self.signer.rows(),
            bands: self.signer.bands(),
            seed: self.signer.seed(),
            min_shingles: self.filter.min_shingles,
            threshold: self.threshold,
            verified: self.verify,
            keep: self.keep.as_str().into(),
            ..Stats::default()
        };
        let signed = self.sentences_and_signatures(sources, progress, &mut stats)?;
        let texts = signed.texts.into_reader(self.memory.mapped_texts)?;
        let candidates = self.candidate_clusters(
            signed.shuffle,
            signed.fingerprints,
            (signed.words, signed.word_ids),
            progress,
            &mut stats,
        )?;
        let clustering = self.edit_filter(candidates, &texts, progress, &mut stats)?;
        let started = Instant::now();
        let clusters = self.list_clusters(clustering, progress, &mut stats)?;
        let tally = self.deliver_clusters(clusters, &texts, sink, progress, &mut stats)?;
        self.log_tally(&tally, progress);
        let rows = self.article_pairs(tally, &texts, &mut stats)?;
        drop(texts);
        sink.article_pairs(rows).map_err(sink_error)?;
        stats.summarize();
        stats.seconds.text_classify_write = started.elapsed().as_secs_f64();
        sink.finish(&stats).map_err(sink_error)?;
        Ok(stats)
    }

    /// [`Dedup::run`] over documents a program holds.
    pub fn run_documents<S>(
        &self,
        documents: impl IntoIterator<Item = Document>,
        sink: &mut S,
        progress: &dyn Progress,
    ) -> Result<Stats, Error>
    where
        S: Sink + ?Sized,
    {
        self.run(
            documents.into_iter().map(|d| Ok(Source::Text(d))),
            sink,
            progress,
        )
    }

    /// [`Dedup::run`] writing `clusters.jsonl`, `duplicates.jsonl`, `article-pairs.tsv` and
    /// `stats.json` into `dir` ([`OutputDir`]) as one [`OutputSet`]: `dir` is checked before
    /// any input is read (an existing `dir` may hold only those files), and its old files are
    /// replaced by the new ones at once at the end; a failed or interrupted run leaves them as
    /// they were.
    pub fn run_to_dir<I>(
        &self,
        sources: I,
        dir: impl Into<PathBuf>,
        progress: &dyn Progress,
    ) -> Result<Stats, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
    {
        let dir: PathBuf = dir.into();
        let set = OutputSet::create(&dir, OutputDir::FILES)?;
        let mut sink = OutputDir::new(set.dir()).batch_members(self.memory.chunk_members);
        let stats = self.run(sources, &mut sink, progress)?;
        set.commit()?;
        Ok(stats)
    }

    /// Stages 1-2: documents -> kept sentences (texts stored) -> band-key records (or SimHash
    /// fingerprints).
    fn sentences_and_signatures<I>(
        &self,
        sources: I,
        progress: &dyn Progress,
        stats: &mut Stats,
    ) -> Result<Signed, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
    {
        let started = Instant::now();
        let simhasher = SimHasher::new();
        let mut out = Signed {
            texts: TextStore::new(self.tmp_dir.as_deref(), self.memory.text_index)?,
            shuffle: self.shuffle.build()?,
            fingerprints: match self.memory.max_memory {
                None => Fingerprints::Memory(Vec::new()),
                Some(_) => {
                    Fingerprints::Bounded(SpillArray::new(self.memory.sorts / 2, &self.spill_dir()))
                }
            },
            words: Corpus::new(),
            word_ids: Vec::new(),
        };
        let (mut sentences, mut kept) = (0u64, 0u64);
        let simhash = self.search.is_some();
        let projection = self.projection.is_some();
        let read = DocumentPipeline::new()
            .batch(self.batch)
            .batch_bytes(self.memory.batch_bytes)
            .run_pieces(
                sources,
                progress,
                || self.text_signer(),
                |signer, seq, doc, piece: &mut SignedPiece| {
                    self.sign_document(&doc, seq, signer, &simhasher, piece);
                    // The document moves along; the kept units are spans into its text.
                    piece.docs.push(doc);
                },
                |first_seq, piece| {
                    sentences += piece.sentences;
                    kept += piece.kept.len() as u64;
                    let (mut start, mut words) = (0, 0);
                    for (seq, (doc, &end)) in
                        (first_seq..).zip(piece.docs.iter().zip(&piece.kept_ends))
                    {
                        out.texts.push_doc(seq, &doc.id, &doc.title, &doc.origin)?;
                        let units = &piece.kept[start..end];
                        for k in units {
                            out.texts.push(
                                seq << 32 | k.idx as u64,
                                &doc.text[k.span.clone()],
                                k.chars.clone(),
                            )?;
                        }
                        if projection {
                            for (k, &n) in units.iter().zip(&piece.word_counts[start..end]) {
                                out.words.push(&piece.words[words..words + n as usize]);
                                out.word_ids.push(seq << 32 | k.idx as u64);
                                words += n as usize;
                            }
                        }
                        start = end;
                    }
                    if simhash {
                        out.fingerprints.push_slice(&piece.records)?;
                    } else if !projection {
                        out.shuffle.push_slice(&piece.records)?;
                    }
                    piece.clear();
                    Ok(())
                },
            )?;
        stats.documents = read.documents;
        stats.input_problems = read.input_problems;
        stats.sentences = sentences;
        stats.sentences_kept = kept;
        stats.band_key_records = if simhash {
            out.fingerprints.len()
        } else if projection {
            out.words.len() as u64
        } else {
            out.shuffle.len()
        };
        stats.seconds.sentences_and_signatures = started.elapsed().as_secs_f64();
        progress.log(&format!(
            "stages 1-2: {} documents, {} sentences, {} kept, {} band-key records in {:.1}s",
            stats.documents,
            stats.sentences,
            stats.sentences_kept,
            stats.band_key_records,
            stats.seconds.sentences_and_signatures
        ));
        if out.texts.spilled() {
            progress.log(&format!(
                "the index of the sentence text file passed its {} bytes of memory and was \
                 moved to disk",
                self.memory.text_index
            ));
        }
        Ok(out)
    }

    /// Stages 1-2 for one document, on a rayon worker: its results are appended to `piece`.
    fn sign_document(
        &self,
        doc: &Document,
        seq: u64,
        signer: &mut TextSigner<'_>,
        simhasher: &SimHasher,
        piece: &mut SignedPiece,
    ) {
        let mut scratch = Vec::new();
        let mut sentences = KeptSentences::with_unit(&doc.text, seq, &self.filter, self.unit);
        for s in sentences.by_ref() {
            if let Some(projection) = &self.projection {
                projection.words(s.text, &mut scratch);
                piece.word_counts.push(scratch.len() as u32);
                piece.words.append(&mut scratch);
            } else if self.search.is_some() {
                let shingler: &mut Shingler = signer.shingler();
                let fp = unit_simhash(self.unit, s.text, shingler, simhasher, &self.paragraphs);
                let Some(fp) = fp else {
                    continue; // too short to fingerprint
                };
                piece.records.push((fp, s.id));
            } else {
                let Some(keys) = signer.band_keys(s.text) else {
                    continue;
                };
                piece.records.extend(keys.iter().map(|&k| (k, s.id)));
            }
            piece.kept.push(KeptUnit {
                idx: s.idx,
                span: s.span,
                chars: s.chars,
            });
        }
        piece.sentences += sentences.sentences_seen();
        piece.kept_ends.push(piece.kept.len());
    }

    /// Stages 3-5: records -> buckets -> candidate pairs -> clusters (or, with the edit filter,
    /// the pairs kept for stage 7).
    fn candidate_clusters(
        &self,
        shuffle: shuffle::Shuffle,
        fingerprints: Fingerprints,
        (words, word_ids): (Corpus, Vec<u64>),
        progress: &dyn Progress,
        stats: &mut Stats,
    ) -> Result<Candidates, Error> {
        let started = Instant::now();
        let keep_pairs = self.max_edit.is_some();
        let bounded_pairs = keep_pairs && self.memory.max_memory.is_some();
        let mut out = Candidates {
            clustering: self.clustering(0)?,
            pairs: Vec::new(),
            spilled_pairs: None,
        };
        if bounded_pairs {
            // The pairs take a quarter of the components' share, union-find the rest.
            let quarter = self.memory.components / 4;
            out.spilled_pairs = Some(SpillArray::new(quarter, &self.spill_dir()));
            out.clustering =
                BoundedClustering::new(self.memory.components - quarter, 0, self.tmp_dir.clone())?;
        }
        let shuffle_stats: ShuffleStats = if let Some(projection) = &self.projection {
            drop(shuffle);
            let trained = Instant::now();
            let vectors = projection.embeddings(&words)?;
            let training_seconds = match projection.vectors() {
                Vectors::Train(_) => trained.elapsed().as_secs_f64(),
                _ => 0.0,
            };
            let signatures = projection.signatures(&words, &vectors)?;
            let found = projection.pairs(&signatures)?;
            out.found(
                found
                    .iter()
                    .map(|p| (word_ids[p.a as usize], word_ids[p.b as usize])),
                keep_pairs,
            )?;
            let search = projection.search();
            let known = vectors.encoder(words.vocabulary()).known_words();
            stats.projection = Some(ProjectionStats {
                vectors: projection.vectors().as_str().into(),
                dim: vectors.dim(),
                stemmed: projection.stems(),
                centered: projection.centers(),
                bits: projection.bits(),
                permutations: search.permutations(),
                window: search.window(),
                max_hamming: search.max_hamming(),
                seed: projection.seed(),
                vocabulary: words.vocabulary().len() as u64,
                words_with_vector: known as u64,
                units_without_vector: (words.len() - signatures.len()) as u64,
                training_seconds,
            });
            progress.log(&format!(
                "random projection: {} of {} words with a vector ({}), {} units signed, {} \
                 without a vector",
                known,
                words.vocabulary().len(),
                projection.vectors().as_str(),
                signatures.len(),
                words.len() - signatures.len()
            ));
            let mut stats = ShuffleStats::default();
            stats.records = signatures.len() as u64;
            stats.candidate_pairs = found.len() as u64;
            stats
        } else if let Some(search) = &self.search {
            drop(shuffle);
            match fingerprints {
                Fingerprints::Bounded(array) => {
                    self.simhash_bounded(search, array, &mut out, keep_pairs)?
                }
                Fingerprints::Memory(fingerprints) => {
                    let fps: Vec<u64> = fingerprints.iter().map(|&(fp, _)| fp).collect();
                    let found = search.pairs(&fps)?;
                    out.found(
                        found
                            .iter()
                            .map(|p| (fingerprints[p.a as usize].1, fingerprints[p.b as usize].1)),
                        keep_pairs,
                    )?;
                    let mut stats = ShuffleStats::default();
                    stats.records = fps.len() as u64;
                    stats.candidate_pairs = found.len() as u64;
                    stats
                }
            }
        } else {
            progress.start(Stage::MergeRecords, Some(shuffle.len()));
            let mut stream = shuffle.finish_with_progress(&mut |n| progress.advance(n))?;
            progress.finish();
            if !keep_pairs {
                // About one new id per distinct pair (pairs share members).
                let hint = stream.len_hint().unwrap_or(0).min(1 << 26) as usize;
                out.clustering = self.clustering(hint)?;
            }
            progress.start(Stage::ClusterPairs, None);
            let mut unreported = 0u64;
            while let Some((a, b)) = stream.next_pair()? {
                if keep_pairs {
                    out.keep(a, b)?;
                } else {
                    out.clustering.union(a, b)?;
                }
                unreported += 1;
                if unreported == PROGRESS_STEP {
                    progress.advance(unreported);
                    unreported = 0;
                }
            }
            progress.advance(unreported);
            progress.finish();
            stream.stats()
        };
        if out.spilled_pairs.is_some() {
            // The paths that collect their pairs in memory (random projection) hand them over.
            for (a, b) in std::mem::take(&mut out.pairs) {
                out.keep(a, b)?;
            }
        }
        stats.buckets = shuffle_stats.buckets;
        stats.buckets_capped = shuffle_stats.buckets_capped;
        stats.bucket_ids_left_out = shuffle_stats.bucket_ids_left_out;
        stats.candidate_pairs = shuffle_stats.candidate_pairs;
        stats.pairs_after_edit_filter = shuffle_stats.candidate_pairs;
        stats.bytes_spilled = shuffle_stats.bytes_spilled;
        stats.seconds.shuffle_and_clusters = started.elapsed().as_secs_f64();
        progress.log(&format!(
            "stages 3-5: {} buckets, {} candidate pairs, {} bytes spilled in {:.1}s",
            stats.buckets,
            stats.candidate_pairs,
            stats.bytes_spilled,
            stats.seconds.shuffle_and_clusters
        ));
        if stats.buckets_capped > 0 {
            progress.log(&format!(
                "warning: {} buckets had more than max_bucket sentences: {} sentences in them \
                 were not checked by the edit-distance filter (raise --max-bucket to check them)",
                stats.buckets_capped, stats.bucket_ids_left_out
            ));
        }
        Ok(out)
    }

    /// Stages 3-5 of SimHash under a memory bound: the table search of
    /// [`TableSearch::pairs`] with each table sorted by an external sort (half the sorts'
    /// share) instead of in memory, and each pair found joined at once (or kept for the edit
    /// filter). The same pairs, so the same clusters.
    fn simhash_bounded(
        &self,
        search: &TableSearch,
        fingerprints: SpillArray<16>,
        out: &mut Candidates,
        keep_pairs: bool,
    ) -> Result<ShuffleStats, Error> {
        let fingerprints = fingerprints.into_reader()?;
        let n = fingerprints.len();
        let mut found = 0u64;
        let mut spilled = 0u64;
        let mut pair = |a: u64, b: u64, out: &mut Candidates| -> Result<(), Error> {
            found += 1;
            let (a, b) = (a.min(b), a.max(b));
            if keep_pairs {
                out.keep(a, b)?;
            } else {
                out.clustering.union(a, b)?;
            }
            Ok(())
        };
        let tables = search.tables(n as usize);
        if tables.is_empty() {
            // Within 64 bits or more every pair is a pair.
            let mut ids = Vec::new();
            fingerprints.for_each_pair(|_, id| {
                ids.push(id);
                Ok(())
            })?;
            for (i, &a) in ids.iter().enumerate() {
                for &b in &ids[i + 1..] {
                    pair(a, b, out)?;
                }
            }
        }
        let mut sorters = self.shuffle.clone();
        sorters.mem_budget((self.memory.sorts / 2).max(shuffle::MIN_MEM_BUDGET));
        let mut run: Vec<(u64, u64)> = Vec::new();
        for table in &tables {
            let mut sorter = sorters.build_sorter()?;
            fingerprints.for_each_pair(|fp, id| Ok(sorter.push(table.permute(fp), id)?))?;
            let mut sorted = sorter.finish()?;
            // Runs of equal prefix, compared pairwise as in memory.
            let mut compare = |run: &[(u64, u64)], out: &mut Candidates| -> Result<(), Error> {
                for (i, &(x, a)) in run.iter().enumerate() {
                    for &(y, b) in &run[i + 1..] {
                        if table.reports(x, y).is_some() {
                            pair(a, b, out)?;
                        }
                    }
                }
                Ok(())
            };
            while let Some((key, id)) = sorted.next_record()? {
                if run
                    .first()
                    .is_some_and(|&(k, _)| table.prefix(k) != table.prefix(key))
                {
                    compare(&run, out)?;
                    run.clear();
                }
                run.push((key, id));
            }
            compare(&run, out)?;
            run.clear();
            spilled += sorted.bytes_spilled();
        }
        let mut stats = ShuffleStats::default();
        stats.records = n;
        stats.candidate_pairs = found;
        stats.bytes_spilled = spilled;
        Ok(stats)
    }

    /// Stage 7: keeps the candidate pairs within the edit distance and clusters them (without
    /// the filter, the clustering of stages 3-5 as it is).
    fn edit_filter(
        &self,
        candidates: Candidates,
        texts: &TextReader,
        progress: &dyn Progress,
        stats: &mut Stats,
    ) -> Result<BoundedClustering, Error> {
        let Candidates {
            mut clustering,
            pairs,
            spilled_pairs,
        } = candidates;
        let Some(max_edit) = self.max_edit else {
            return Ok(clustering);
        };
        let started = Instant::now();
        if let Some(array) = spilled_pairs {
            let kept = self.edit_filter_bounded(array, max_edit, texts, &mut clustering)?;
            stats.pairs_after_edit_filter = kept;
            stats.seconds.edit_filter = started.elapsed().as_secs_f64();
            progress.log(&format!(
                "stage 7: {} of {} pairs within edit distance {max_edit} in {:.1}s",
                stats.pairs_after_edit_filter, stats.candidate_pairs, stats.seconds.edit_filter
            ));
            return Ok(clustering);
        }
        let mut ids: Vec<u64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let loaded: HashMap<u64, String> = ids
            .iter()
            .map(|&id| Ok((id, texts.get(id)?.text)))
            .collect::<Result<_, Error>>()?;
        let keep: Vec<bool> = pairs
            .par_iter()
            .map(|(a, b)| within_edit_distance(&loaded[a], &loaded[b], max_edit))
            .collect();
        let mut kept = 0u64;
        for (&(a, b), keep) in pairs.iter().zip(keep) {
            if keep {
                clustering.union(a, b)?;
                kept += 1;
            }
        }
        stats.pairs_after_edit_filter = kept;
        stats.seconds.edit_filter = started.elapsed().as_secs_f64();
        progress.log(&format!(
            "stage 7: {} of {} pairs within edit distance {max_edit} in {:.1}s",
            stats.pairs_after_edit_filter, stats.candidate_pairs, stats.seconds.edit_filter
        ));
        Ok(clustering)
    }

    /// Stage 7 under a memory bound: the pairs read back from their spill array, their texts
    /// loaded a batch at a time (at most half the sorts' share of text, which the shuffle no
    /// longer uses), each batch's pairs compared in parallel and the kept ones joined. The
    /// same pairs kept as in memory. Returns how many.
    fn edit_filter_bounded(
        &self,
        pairs: SpillArray<16>,
        max_edit: f64,
        texts: &TextReader,
        clustering: &mut BoundedClustering,
    ) -> Result<u64, Error> {
        let pairs = pairs.into_reader()?;
        let share = (self.memory.sorts / 2).max(1);
        let mut kept = 0u64;
        let (mut batch, mut loaded, mut bytes) = (Vec::new(), HashMap::new(), 0u64);
        let mut flush = |batch: &mut Vec<(u64, u64)>,
                         loaded: &mut HashMap<u64, String>,
                         clustering: &mut BoundedClustering|
         -> Result<(), Error> {
            let keep: Vec<bool> = batch
                .par_iter()
                .map(|(a, b)| within_edit_distance(&loaded[a], &loaded[b], max_edit))
                .collect();
            for (&(a, b), keep) in batch.iter().zip(keep) {
                if keep {
                    clustering.union(a, b)?;
                    kept += 1;
                }
            }
            batch.clear();
            loaded.clear();
            Ok(())
        };
        pairs.for_each_pair(|a, b| {
            for id in [a, b] {
                if let std::collections::hash_map::Entry::Vacant(e) = loaded.entry(id) {
                    let text = texts.get(id)?.text;
                    bytes += text.len() as u64;
                    e.insert(text);
                }
            }
            batch.push((a, b));
            if bytes > share {
                flush(&mut batch, &mut loaded, clustering)?;
                bytes = 0;
            }
            Ok(())
        })?;
        flush(&mut batch, &mut loaded, clustering)?;
        Ok(kept)
    }

    /// Where spill arrays go: `--tmp`, else the system's temporary directory.
    fn spill_dir(&self) -> PathBuf {
        self.tmp_dir.clone().unwrap_or_else(std::env::temp_dir)
    }

    /// Stage 5's clustering under the plan's share: in memory while union-find fits in it,
    /// then on disk; with room for `capacity` ids.
    fn clustering(&self, capacity: usize) -> Result<BoundedClustering, Error> {
        Ok(BoundedClustering::new(
            self.memory.components,
            capacity,
            self.tmp_dir.clone(),
        )?)
    }

    /// The end of stage 5: lists the clusters (or, when union-find passed its share of the
    /// bound, computes the connected components on disk and says so).
    fn list_clusters(
        &self,
        clustering: BoundedClustering,
        progress: &dyn Progress,
        stats: &mut Stats,
    ) -> Result<ClusterList, Error> {
        let started = Instant::now();
        let moved_at = clustering.moved_at();
        let clusters = clustering.finish()?;
        if let (ClusterList::Disk(stream), Some(ids)) = (&clusters, moved_at) {
            stats.bytes_spilled += stream.bytes_spilled();
            progress.log(&format!(
                "stage 5: union-find passed its {} MiB of the memory bound at {ids} ids; the \
                 connected components were computed on disk ({} passes, {} bytes spilled) in \
                 {:.1}s",
                self.memory.components >> 20,
                stream.passes(),
                stream.bytes_spilled(),
                started.elapsed().as_secs_f64()
            ));
        }
        Ok(clusters)
    }

    /// Stages 6 and 8: fetches the members' texts and classifies the clusters in parallel, a
    /// chunk at a time, and delivers them to the sink in cluster-id order, counting them.
    fn deliver_clusters<S: Sink + ?Sized>(
        &self,
        clusters: ClusterList,
        texts: &TextReader,
        sink: &mut S,
        progress: &dyn Progress,
        stats: &mut Stats,
    ) -> Result<ArticleTally, Error> {
        let mut counted = Counted {
            types: ClusterType::ALL.iter().map(|t| (t.as_str(), 0)).collect(),
            tally: ArticleTally::new(self.memory.article_tally, self.tmp_dir.clone()),
        };
        let mut deliver = |clusters: &Clusters, chunk: std::ops::Range<usize>| {
            self.deliver_chunk(clusters, chunk, texts, sink, stats, &mut counted)
        };
        match clusters {
            ClusterList::Memory(clusters) => {
                progress.start(Stage::WriteClusters, Some(clusters.len() as u64));
                let mut start = 0;
                while start < clusters.len() {
                    let mut end = start;
                    let mut members = 0;
                    while end < clusters.len()
                        && (end == start || members < self.memory.chunk_members)
                    {
                        members += clusters.get(end).map_or(0, |c| c.len());
                        end += 1;
                    }
                    deliver(&clusters, start..end)?;
                    progress.advance((end - start) as u64);
                    start = end;
                }
            }
            ClusterList::Disk(mut stream) => {
                // The same chunks, read from disk.
                progress.start(Stage::WriteClusters, None);
                let mut chunk = Clusters::new();
                while stream.next_clusters(self.memory.chunk_members, &mut chunk)? {
                    deliver(&chunk, 0..chunk.len())?;
                    progress.advance(chunk.len() as u64);
                }
            }
        }
        progress.finish();
        let Counted { types, tally } = counted;
        stats.types = types.into_iter().map(|(t, n)| (t.to_string(), n)).collect();
        Ok(tally)
    }

    /// Stages 6 and 8 for the clusters `chunk` of `clusters`: fetched and classified in
    /// parallel, delivered in order.
    fn deliver_chunk<S: Sink + ?Sized>(
        &self,
        clusters: &Clusters,
        chunk: std::ops::Range<usize>,
        texts: &TextReader,
        sink: &mut S,
        stats: &mut Stats,
        counted: &mut Counted,
    ) -> Result<(), Error> {
        let Counted { types, tally } = counted;
        let chunk: Vec<(Cluster, ClusterCounts)> = chunk
            .into_par_iter()
            .map_init(
                || self.text_signer(),
                |signer, i| {
                    let cluster = clusters.get(i).expect("index below len");
                    let cluster =
                        self.fetch_cluster(cluster.id(), cluster.members(), texts, signer)?;
                    let counts = ClusterCounts::of(&cluster);
                    Ok((cluster, counts))
                },
            )
            .collect::<Result<_, Error>>()?;
        for (cluster, counts) in chunk {
            stats.add_cluster_counts(counts);
            *types
                .get_mut(cluster.kind.as_str())
                .expect("all types counted") += 1;
            stats.clusters += 1;
            stats.clustered_sentences += cluster.len() as u64;
            stats.duplicates += cluster.duplicates().count() as u64;
            *stats
                .cluster_size_histogram
                .entry(cluster.len())
                .or_insert(0) += 1;
            tally.cluster(&cluster.members)?;
            sink.cluster(cluster).map_err(sink_error)?;
        }
        Ok(())
    }

    /// Says when the article tally passed its share of the bound and was ranked on disk.
    fn log_tally(&self, tally: &ArticleTally, progress: &dyn Progress) {
        if let Some(articles) = tally.moved_at() {
            progress.log(&format!(
                "stage 8: the article tally passed its {} MiB of the memory bound at {articles} \
                 articles; the article pairs and chains were ranked on disk",
                self.memory.article_tally >> 20
            ));
        }
    }

    /// Stages 6 and 8 for one cluster: fetches its members' texts, builds (sorts, classifies)
    /// it, picks its representative and estimates (and with `verify` computes) each member's
    /// similarity to it.
    fn fetch_cluster(
        &self,
        id: u64,
        ids: &[u64],
        texts: &TextReader,
        signer: &mut TextSigner<'_>,
    ) -> Result<Cluster, Error> {
        // Members ascend by id, so a document's members are read one after the other, and
        // its metadata once: cloned for all but its last member, which takes it.
        let mut members = Vec::with_capacity(ids.len());
        for doc_ids in ids.chunk_by(|a, b| a >> 32 == b >> 32) {
            let mut doc = Some(texts.doc(doc_ids[0] >> 32)?);
            for (i, &id) in doc_ids.iter().enumerate() {
                let unit = texts.get(id)?;
                let DocMeta {
                    id: doc,
                    title,
                    origin,
                } = if i + 1 == doc_ids.len() {
                    doc.take().expect("taken by the last member only")
                } else {
                    doc.clone().expect("taken by the last member only")
                };
                members.push(Member {
                    id,
                    doc,
                    title,
                    text: unit.text,
                    origin,
                    start: unit.chars.start,
                    end: unit.chars.end,
                    similarity: None,
                    jaccard: None,
                });
            }
        }
        let mut cluster = Cluster::new(id, members);
        cluster.score(
            self.keep,
            signer,
            self.verify.then_some(self.similarity_threshold),
        );
        Ok(cluster)
    }

    /// Stage 8's ranking: the article pairs that share the most clusters (clusters of more than
    /// [`MAX_CLUSTER_ARTICLES`] articles, giant templates, are not counted), and the article
    /// chains of the same lists: in memory, or on disk when the tally passed its share
    /// ([`ArticleTally`]).
    fn article_pairs(
        &self,
        tally: ArticleTally,
        texts: &TextReader,
        stats: &mut Stats,
    ) -> Result<Vec<ArticlePairRow>, Error> {
        let meta = |seq: u32| {
            let meta = texts.doc(u64::from(seq))?;
            Ok((meta.id, meta.title))
        };
        tally.rank(self.max_article_pairs, meta, stats)
    }
}

/// The output of stages 1-2 for a piece of consecutive documents
/// ([`DocumentPipeline::run_pieces`]): flat buffers, emptied and filled again, so signing a
/// document allocates nothing once they have grown.
#[derive(Default)]
struct SignedPiece {
    /// The documents, which the kept spans point into.
    docs: Vec<Document>,
    /// Sentences (units) seen in them.
    sentences: u64,
    /// Kept units, document after document.
    kept: Vec<KeptUnit>,
    /// Per document, the end of its units in `kept`.
    kept_ends: Vec<usize>,
    /// MinHash: `(band key, id)`; SimHash: `(fingerprint, id)`.
    records: Vec<(u64, u64)>,
    /// Random projection: the cleaned words of the kept units, flat, and how many each has.
    words: Vec<String>,
    word_counts: Vec<u32>,
}

/// The most bytes of buffers a [`SignedPiece`] keeps when it is emptied: a piece that grew
/// beyond (very long documents) gives its buffers back, so that what the pieces waiting to be
/// filled again hold stays bounded (at most about 7 batches of 4 pieces a worker thread: 56
/// MiB with 2 threads, only if every piece once held such documents). Pieces of ordinary
/// documents or sentences stay under it (64 documents of 40 sentences: about 0.6 MiB). A
/// smaller bound costs more than it saves: at 256 KiB those pieces were made again each time,
/// and the allocator's churn raised the peak RSS of a run over 2M sentences by 40 MiB.
const PIECE_KEEP_BYTES: usize = 1 << 20;

impl SignedPiece {
    /// Empties the piece, keeping its buffers up to [`PIECE_KEEP_BYTES`].
    fn clear(&mut self) {
        let held = self.records.capacity() * std::mem::size_of::<(u64, u64)>()
            + self.kept.capacity() * std::mem::size_of::<KeptUnit>()
            + self.kept_ends.capacity() * std::mem::size_of::<usize>()
            + self.words.capacity() * std::mem::size_of::<String>()
            + self.word_counts.capacity() * std::mem::size_of::<u32>()
            + self.docs.capacity() * std::mem::size_of::<Document>();
        if held > PIECE_KEEP_BYTES {
            *self = SignedPiece::default();
            return;
        }
        self.docs.clear();
        self.sentences = 0;
        self.kept.clear();
        self.kept_ends.clear();
        self.records.clear();
        self.words.clear();
        self.word_counts.clear();
    }
}

/// A kept unit of a document: its index, byte span and character span.
struct KeptUnit {
    idx: u32,
    span: std::ops::Range<usize>,
    chars: std::ops::Range<u64>,
}

fn sink_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> Error {
    Error::Sink(Box::new(e))
}
