//! Text reuse at corpus scale: every reused passage within one corpus, or between a corpus and
//! another (web pages against Wikipedia, suspicious documents against sources).
//!
//! The job, after the text-reuse research this toolkit rebuilds:
//!
//! 1. **Chunk.** Each document is cut into paragraph chunks ([`chunk_spans`]: at least
//!    `min_words` words of [`ReuseBuilder::chunks`], long paragraphs cut into pieces).
//! 2. **Candidates** ([`Candidates`]). By default each chunk's heaviest tf-idf terms go into an
//!    inverted index, built in blocks that fit the memory budget; chunk pairs sharing terms are
//!    scored by the dot product of those pruned vectors, and each chunk nominates the documents
//!    of its best-scoring chunks. This finds paraphrased, translated and
//!    summarised reuse (PAN 2013: candidate recall 0.97 to 0.999 and 0.89 for summaries, at 50
//!    candidates per document). [`Candidates::MinHash`] instead gives chunks MinHash band keys
//!    of word n-grams, exactly as the plagiarism checker's
//!    [`MemoryIndex`](textreuse_index::MemoryIndex) signs them, through the
//!    out-of-core [shuffle](textreuse_shuffle): near-verbatim reuse only. Within one
//!    corpus every pair of documents can be a candidate; with `against`, only pairs with one
//!    document on each side.
//! 3. **Align and classify.** Each candidate pair is aligned ([`Aligner`]) on all cores and
//!    each passage classified as content or structure reuse ([`profile`]); the results reach a
//!    [`ReuseSink`] in candidate order ([`ReuseOutputDir`] writes `reuse.jsonl`, `pairs.tsv`,
//!    `documents.tsv`, `stats.json` and the corpus view `corpus.json` ([`CorpusView`]: the
//!    article graph, the distributions of length and similarity, the top pairs);
//!    [`PanOutput`] writes PAN detection files; [`web::WebStudy`] aggregates web pages reusing
//!    Wikipedia by website, with the attribution check and the revenue model, into
//!    `websites.tsv`, `websites.json` and `revenue.json`). Each
//!    document is tokenized once per run: its tokens go to a temporary file beside the
//!    sorts' ([`ReuseBuilder::tmp_dir`]), about the size of its text, and are read back
//!    ([`Prepared::decode`]) for its later pairs.
//!
//! Results are the same for every thread count and memory budget: sums run in a fixed order,
//! ties break by document number, candidates are visited in document order, and the parallel
//! alignment is collected in that order.
//!
//! [`ReuseBuilder::max_memory`] bounds the peak resident memory of a run over a
//! [`DocumentStore`]: [`MemoryPlan`] gives the sorts and index blocks, the alignment's parts,
//! the stored texts' mapped pages and the per-document arrays each a share, and says what is
//! not bounded yet.
//!
//! The plagiarism checker of `textreuse check` (one suspicious document at a time against a
//! corpus indexed with MinHash band keys, in memory or on disk) is [`Checker`] ([`check`]).
//!
//! The tf-idf search's steps are also public one at a time ([`Reuse::document_terms`],
//! [`Reuse::chunk_vectors`], [`Reuse::pick_documents`], [`Reuse::align_pair`], the output
//! formats [`write_case_lines`], [`write_pair_row`] and [`DocumentTable`]), for an engine that
//! distributes them: the Python package's Spark job runs them as `mapInArrow` kernels and
//! writes the same files byte for byte.
//!
//! ```
//! use textreuse_corpus::Document;
//! use textreuse_reuse::Reuse;
//!
//! let shared = "Honey bees live in large colonies with a single queen, thousands of workers \
//!               and a few hundred drones, and they store honey in wax combs for the winter.";
//! let corpus = vec![
//!     Document::new(1, "Bees", format!("{shared}\n\nBees visit flowers for nectar and pollen.")),
//!     Document::new(2, "Wasps", "Wasps build paper nests from chewed wood fibre every spring."),
//!     Document::new(3, "Hives", format!("Keeping bees is an old craft.\n\n{shared}")),
//! ];
//! let mut found = Vec::new();
//! let stats = Reuse::builder().min_passage_len(60).build()?.run(&corpus, None, &mut found)?;
//! assert_eq!(stats.candidate_pairs, 1);
//! let pair = &found[0];
//! assert_eq!((pair.source, pair.suspicious), (0, 2)); // documents 1 and 3
//! assert!(pair.cases[0].suspicious.len() >= shared.len() - 10);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// The crate README's snippet runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod candidates;
pub mod check;
pub mod classify;
mod doc_array;
mod graph;
mod memory;
mod output;
mod store;
mod tfidf;
mod tokens;
pub mod view;
pub mod web;

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
/// The languages alignment can stem and drop stopwords in ([`ReuseBuilder::language`]).
pub use textreuse_align::Language;
/// A document tokenized once for the alignment of all its pairs ([`Reuse::prepare`]).
pub use textreuse_align::Prepared;
use textreuse_align::{Aligner, DEFAULT_MIN_PASSAGE_LEN};
use textreuse_corpus::Document;
use textreuse_corpus::{NoProgress, Progress, Stage};
use textreuse_minhash::{Signer, SignerConfig};
use textreuse_shingle::{ChunkConfig, chunk_spans, word_shingles};
// Band buckets with more chunks contribute the pairs of their first DEFAULT_MAX_BUCKET
// (boilerplate paragraphs shared by thousands of documents would otherwise cost millions of
// pairs): the shuffle's own default cap.
use textreuse_shuffle::{
    DEFAULT_MAX_BUCKET, MIN_MEM_BUDGET, PairMode, ShuffleBuilder, ShuffleError,
};

use candidates::{CandidateList, CandidateWriter};
pub use check::{CheckError, Checker};
pub use classify::{Classifier, ReuseKind, ReuseProfile, Topics, profile};
pub use memory::MemoryPlan;
pub use output::{
    DocumentTable, PAIRS_HEADER, PanOutput, ReuseOutputDir, write_case_lines, write_pair_row,
};
pub use store::{DocumentStore, DocumentStoreBuilder};
pub use tfidf::ChunkMatch;
use tokens::TokenFile;
pub use view::{CaseView, CorpusSummary, CorpusView, CorpusViewBuilder};

/// Chunk pairs two documents must share to be aligned.
pub const DEFAULT_MIN_SHARED: u32 = 1;
/// Terms of each chunk's tf-idf vector kept for the candidate search.
pub const DEFAULT_TERMS: usize = 20;
/// Documents each chunk nominates as candidates (those with its best-scoring chunks).
pub const DEFAULT_TOP_DOCS: usize = 5;
/// Terms in more chunks than this are skipped by the tf-idf candidate search.
pub const DEFAULT_MAX_TERM_POSTINGS: usize = 200;
/// The lowest score (dot product of two chunks' pruned tf-idf vectors) that nominates a
/// document: none by default, so that summaries are found.
pub const DEFAULT_MIN_SCORE: f32 = 0.0;
/// The aligner's second extension from shared word n-grams ([`ReuseBuilder::fallback_ngram`]):
/// off by default here, unlike in the aligner
/// ([`textreuse_align::DEFAULT_FALLBACK_NGRAM`]), for its cost at corpus scale.
pub const DEFAULT_REUSE_FALLBACK_NGRAM: Option<usize> = None;
/// Documents chunked and signed per parallel batch.
const SIGN_BATCH: usize = 1024;
/// Candidate pairs aligned per parallel batch (the results of one batch are held at once;
/// each document of a batch is made ready once for its pairs there: tokenized the first time
/// a batch needs it, read back from the run's tokens on disk after that).
pub const ALIGN_BATCH: usize = 1024;
/// The text a batch of pairs tokenizes at once, at most (unless one pair's two documents are
/// longer): tokenized, a text takes about five times its size, so long documents cut the batch
/// into parts instead of filling memory.
pub const PREPARED_TEXT_BYTES: usize = 32 << 20;

/// The first pairs of `pairs` whose distinct documents have at most `cap` bytes of text
/// together ([`PREPARED_TEXT_BYTES`] without a memory bound; `len` gives a document's), at
/// least one pair: returns their number and leaves their documents in `ids`, ascending.
fn prepared_part(
    pairs: &[((u32, u32), u32)],
    len: impl Fn(u32) -> usize,
    cap: usize,
    ids: &mut Vec<u32>,
) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut bytes = 0;
    ids.clear();
    let mut n = 0;
    for &((a, b), _) in pairs {
        let new: usize = [a, b]
            .iter()
            .filter(|d| !seen.contains(*d))
            .map(|&d| len(d))
            .sum();
        if n > 0 && bytes + new > cap {
            break;
        }
        bytes += new;
        for d in [a, b] {
            if seen.insert(d) {
                ids.push(d);
            }
        }
        n += 1;
    }
    ids.sort_unstable();
    n
}

/// What went wrong in a reuse run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReuseError {
    /// A parameter is out of range.
    #[error("{0}")]
    Parameter(String),
    /// The shuffle failed (spill files, budget).
    #[error(transparent)]
    Shuffle(#[from] ShuffleError),
    /// [`ReuseBuilder::max_memory`] is below the fixed cost of a run
    /// ([`MemoryPlan::MINIMUM`]); nothing was read. Recover by raising it to at least
    /// `minimum` bytes (or by setting no bound).
    #[error(
        "a memory bound of {max_memory} bytes is below the minimum of {minimum} bytes ({} MiB) \
         that any run needs (the program, its file buffers, the smallest shares of the sorts, \
         the alignment and the mapped texts): raise it to at least {minimum} bytes",
        minimum >> 20
    )]
    MemoryTooSmall {
        /// The bound given.
        max_memory: u64,
        /// The smallest bound accepted.
        minimum: u64,
    },
    /// The sink could not take a result (a full disk, a closed pipe).
    #[error("writing the results: {0}")]
    Sink(#[source] std::io::Error),
    /// More chunks than 32-bit numbers.
    #[error("more than 2^32 - 1 chunks: split the corpus, or raise --min-words")]
    TooManyChunks,
    /// More documents than 32-bit numbers.
    #[error("{0} documents: at most 2^32 - 1 per run (split the corpus)")]
    TooManyDocuments(usize),
    /// The candidate pairs' temporary file could not be written or read.
    #[error("the candidate pairs' temporary file in {} (is there space? --tmp picks another directory)", dir.display())]
    Candidates {
        /// The directory of the file.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A temporary file of per-document arrays (past their share of the memory bound) could
    /// not be written or read.
    #[error("a temporary file of per-document arrays in {} (is there space? --tmp picks another directory)", dir.display())]
    Arrays {
        /// The directory of the file.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The tokenized documents' temporary file could not be written or read.
    #[error("the tokenized documents' temporary file in {} (is there space? --tmp picks another directory)", dir.display())]
    Tokens {
        /// The directory of the file.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// How candidate document pairs are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Candidates {
    /// Each chunk's `terms` heaviest tf-idf terms; chunk pairs scored by their shared terms'
    /// weights; each chunk nominates the `top_docs` documents of its best-scoring chunks.
    /// Finds paraphrased, translated and summarised reuse (the default).
    #[default]
    TfIdf,
    /// Chunk pairs sharing a MinHash band key of word n-grams; document pairs with at least
    /// `min_shared` of them. Finds near-verbatim reuse only.
    MinHash,
}

impl Candidates {
    /// The name in `stats.json` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Candidates::TfIdf => "tfidf",
            Candidates::MinHash => "minhash",
        }
    }
}

impl std::str::FromStr for Candidates {
    type Err = String;

    fn from_str(s: &str) -> Result<Candidates, String> {
        match s {
            "tfidf" => Ok(Candidates::TfIdf),
            "minhash" => Ok(Candidates::MinHash),
            _ => Err(format!(
                "unknown candidate method {s:?}: use tfidf or minhash"
            )),
        }
    }
}

/// The options of [`Reuse`].
#[derive(Clone, Debug)]
pub struct ReuseBuilder {
    chunks: ChunkConfig,
    signer: SignerConfig,
    min_shared: u32,
    min_passage_len: usize,
    shuffle: ShuffleBuilder,
    mem_budget: Option<u64>,
    max_memory: Option<u64>,
    spill_everything: bool,
    max_bucket: usize,
    align: bool,
    candidates: Candidates,
    terms: usize,
    top_docs: usize,
    max_postings: usize,
    min_score: f32,
    language: Language,
    detect_language: bool,
    fallback_ngram: Option<usize>,
    synonyms: bool,
    classifier: Classifier,
}

impl Default for Reuse {
    fn default() -> Self {
        Reuse::new()
    }
}

impl Default for ReuseBuilder {
    fn default() -> Self {
        ReuseBuilder::new()
    }
}

impl ReuseBuilder {
    /// The plagiarism checker's chunking and signing ([`ChunkConfig::default`]: word 2-grams,
    /// chunks of at least 20 words; [`SignerConfig::chunks`]: K = 2 rows, M = 30 disjoint
    /// bands), the aligner's default passage length, pairs sharing
    /// at least one chunk pair, buckets capped at 100 chunks, dedup's shuffle budget.
    pub fn new() -> ReuseBuilder {
        let mut shuffle = ShuffleBuilder::new();
        shuffle
            .pair_mode(PairMode::All)
            .max_bucket(DEFAULT_MAX_BUCKET);
        ReuseBuilder {
            chunks: ChunkConfig::default(),
            signer: SignerConfig::chunks(),
            min_shared: DEFAULT_MIN_SHARED,
            min_passage_len: DEFAULT_MIN_PASSAGE_LEN,
            shuffle,
            mem_budget: None,
            max_memory: None,
            spill_everything: false,
            max_bucket: DEFAULT_MAX_BUCKET,
            align: true,
            candidates: Candidates::default(),
            terms: DEFAULT_TERMS,
            top_docs: DEFAULT_TOP_DOCS,
            max_postings: DEFAULT_MAX_TERM_POSTINGS,
            min_score: DEFAULT_MIN_SCORE,
            language: Language::English,
            detect_language: false,
            fallback_ngram: DEFAULT_REUSE_FALLBACK_NGRAM,
            synonyms: textreuse_align::DEFAULT_SYNONYMS,
            classifier: Classifier::default(),
        }
    }

    /// What classes each passage as content or structure reuse ([`Classifier::default`]
    /// unless set: [`Classifier::Learned`], the fitted model; [`Classifier::Rules`] are the
    /// rules it was fitted over, [`Classifier::Thesis`] the thesis's H1 and H2).
    pub fn classifier(&mut self, classifier: Classifier) -> &mut Self {
        self.classifier = classifier;
        self
    }

    /// The aligner's second extension from shared word n-grams where the first found no
    /// passage ([`AlignerBuilder::fallback_ngram`](textreuse_align::AlignerBuilder::fallback_ngram)).
    /// Off by default here, unlike in the aligner: on the PAN 2013 corpus run as a corpus,
    /// 4-grams raise plagdet from 0.9017 to 0.9041 but alignment's CPU time by about 37 %,
    /// since nearly every candidate pair has no passage and every word of both documents is
    /// looked at again (docs/reuse.md in the repository has the measurements).
    pub fn fallback_ngram(&mut self, n: Option<usize>) -> &mut Self {
        self.fallback_ngram = n;
        self
    }

    /// Whether alignment matches English words with their WordNet synonyms (default
    /// [`textreuse_align::DEFAULT_SYNONYMS`], on; see
    /// [`AlignerBuilder::synonyms`](textreuse_align::AlignerBuilder::synonyms)).
    pub fn synonyms(&mut self, on: bool) -> &mut Self {
        self.synonyms = on;
        self
    }

    /// The language alignment stems and drops stopwords in (default English; see
    /// [`AlignerBuilder::language`](textreuse_align::AlignerBuilder::language)).
    pub fn language(&mut self, language: Language) -> &mut Self {
        self.language = language;
        self
    }

    /// Detect each candidate pair's language from its suspicious (corpus) document instead,
    /// falling back to [`ReuseBuilder::language`] when unsure (default false; see
    /// [`AlignerBuilder::detect_language`](textreuse_align::AlignerBuilder::detect_language)).
    pub fn detect_language(&mut self, yes: bool) -> &mut Self {
        self.detect_language = yes;
        self
    }

    /// Whether candidate pairs are aligned (default). Without, the sink gets every candidate
    /// pair with no passages: the candidate stage alone, to measure or to feed another aligner.
    pub fn align(&mut self, yes: bool) -> &mut Self {
        self.align = yes;
        self
    }

    /// How candidate pairs are found (default [`Candidates::TfIdf`]).
    pub fn candidates(&mut self, method: Candidates) -> &mut Self {
        self.candidates = method;
        self
    }

    /// tf-idf: terms kept per chunk (at least 1).
    pub fn terms(&mut self, n: usize) -> &mut Self {
        self.terms = n;
        self
    }

    /// tf-idf: documents each chunk nominates (at least 1).
    pub fn top_docs(&mut self, k: usize) -> &mut Self {
        self.top_docs = k;
        self
    }

    /// tf-idf: terms in more chunks than this are skipped (at least 2).
    pub fn max_postings(&mut self, n: usize) -> &mut Self {
        self.max_postings = n;
        self
    }

    /// tf-idf: the lowest chunk score (0 to 1) that nominates a document. Raising it cuts the
    /// candidates, and so the alignment time, at the cost of reuse that is edited or fills
    /// only part of a chunk: on PAN 2013, 0.1 halves the candidates and keeps 0.95 to 0.995
    /// recall but 0.80 for summaries; 0.2 keeps 0.95 for copies only.
    pub fn min_score(&mut self, score: f32) -> &mut Self {
        self.min_score = score;
        self
    }

    /// How documents are cut into chunks ([`ChunkConfig::min_words`], for both candidate
    /// methods) and how a chunk is shingled for MinHash ([`ChunkConfig::ngram`]); default
    /// [`ChunkConfig::default`].
    pub fn chunks(&mut self, chunks: ChunkConfig) -> &mut Self {
        self.chunks = chunks;
        self
    }

    /// MinHash: the chunks' signer (default [`SignerConfig::chunks`], the checker's).
    pub fn signer(&mut self, signer: SignerConfig) -> &mut Self {
        self.signer = signer;
        self
    }

    /// MinHash: chunk pairs two documents must share to be aligned (at least 1).
    pub fn min_shared(&mut self, n: u32) -> &mut Self {
        self.min_shared = n.max(1);
        self
    }

    /// Passages shorter than this many bytes on either side are dropped.
    pub fn min_passage_len(&mut self, n: usize) -> &mut Self {
        self.min_passage_len = n;
        self
    }

    /// The memory budget in bytes: the MinHash shuffle's, or the tf-idf index blocks' (default
    /// [`textreuse_shuffle::DEFAULT_MEM_BUDGET`], or with [`ReuseBuilder::max_memory`] the
    /// sorts' share of it). With a `max_memory` it is the budget of the sorts and index blocks
    /// together and must fit in their share ([`MemoryPlan`]).
    pub fn mem_budget(&mut self, bytes: u64) -> &mut Self {
        self.mem_budget = Some(bytes);
        self.shuffle.mem_budget(bytes);
        self
    }

    /// Bounds the peak resident memory of a run over stored documents
    /// ([`Reuse::run_stored`]) to `bytes` (default: no bound; at least
    /// [`MemoryPlan::MINIMUM`], else [`build`](ReuseBuilder::build) returns
    /// [`ReuseError::MemoryTooSmall`]). The fixed cost of a run is taken off first, and what
    /// is left is shared out: the sorts and the tf-idf index blocks, the parts of the
    /// alignment batches, the mapped pages of the stored texts, the per-document arrays (the
    /// stores take theirs from
    /// [`DocumentStoreBuilder::max_offsets_memory`] with [`MemoryPlan::store_offsets`]); see
    /// [`MemoryPlan`] for the shares and for the structures not held to one yet. The results
    /// are the same at any bound.
    pub fn max_memory(&mut self, bytes: u64) -> &mut Self {
        self.max_memory = Some(bytes);
        self
    }

    /// Spills everything that can spill from its first entry, whatever the bound: the sorts
    /// and index blocks get a few KiB, each candidate pair is aligned in a part of its own,
    /// the stored texts' pages are handed back after every read, the per-document arrays
    /// are in temporary files (the stores' too when built with
    /// [`MemoryPlan::store_offsets`], 0 here), and so is every row of `documents.tsv` (with
    /// [`MemoryPlan::documents`], 0 here). Slow; for tests that
    /// check that the results do not depend on the memory (default false).
    pub fn spill_everything(&mut self, yes: bool) -> &mut Self {
        self.spill_everything = yes;
        self
    }

    /// How the memory is shared out ([`MemoryPlan::bounded`] or the unbounded plan).
    fn memory(&self) -> Result<MemoryPlan, ReuseError> {
        let mut plan = match self.max_memory {
            Some(bytes) => MemoryPlan::bounded(bytes, self.mem_budget)?,
            None => MemoryPlan::unbounded(self.shuffle.budget()),
        };
        if self.spill_everything {
            // Six times the smallest budget: each of the tf-idf sorts gets one, the blocks four.
            plan.sorts = 6 * MIN_MEM_BUDGET;
            plan.align_text = 1;
            plan.align_caches = 0;
            plan.mapped_texts = 0;
            plan.doc_arrays = 0;
            plan.documents = 0;
            plan.articles = 0;
        }
        Ok(plan)
    }

    /// Where the shuffle spills (default: the system temporary directory).
    pub fn tmp_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.shuffle.tmp_dir(dir);
        self
    }

    /// MinHash: buckets with more chunks contribute the pairs of their first `n` (at least 2).
    pub fn max_bucket(&mut self, n: usize) -> &mut Self {
        self.max_bucket = n;
        self.shuffle.max_bucket(n);
        self
    }

    fn tfidf(&self, plan: &MemoryPlan) -> tfidf::TfIdfOptions {
        // Without a bound the index block takes the budget, the two sorts of picks a quarter
        // each; with one, the three share the sorts' share: two thirds and a sixth each.
        let (budget, sorter) = match plan.is_bounded() {
            false => (plan.sorts, plan.sorts / 4),
            true => (plan.sorts / 3 * 2, plan.sorts / 6),
        };
        tfidf::TfIdfOptions {
            min_words: self.chunks.min_words,
            terms: self.terms,
            top_docs: self.top_docs,
            max_postings: self.max_postings,
            min_score: self.min_score,
            budget,
            bounded: plan.is_bounded(),
            sorter: {
                let mut sorts = self.shuffle.clone();
                sorts.mem_budget(sorter.max(MIN_MEM_BUDGET));
                sorts
            },
            first_chunk_share: plan.doc_array_share(memory::FIRST_CHUNK_BYTES),
            postings_share: plan.doc_array_share(memory::POSTINGS_OF_DOC_BYTES),
        }
    }

    /// The budgets of the MinHash shuffle and of the sort of chunk pairs into document pairs.
    fn minhash_sorts(&self, plan: &MemoryPlan) -> (ShuffleBuilder, ShuffleBuilder) {
        let (shuffle, pairs) = match plan.is_bounded() {
            false => (plan.sorts, plan.sorts / 4),
            true => (plan.sorts / 4 * 3, plan.sorts / 4),
        };
        let mut a = self.shuffle.clone();
        a.mem_budget(shuffle.max(MIN_MEM_BUDGET));
        let mut b = self.shuffle.clone();
        b.mem_budget(pairs.max(MIN_MEM_BUDGET));
        (a, b)
    }

    /// Checks the options and builds the job.
    pub fn build(&self) -> Result<Reuse, ReuseError> {
        if self.chunks.ngram == 0 {
            return Err(ReuseError::Parameter("ngram must be at least 1".into()));
        }
        if self.terms == 0 || self.top_docs == 0 {
            return Err(ReuseError::Parameter(
                "terms and top_docs must be at least 1".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.min_score) {
            return Err(ReuseError::Parameter(format!(
                "min_score {} is not between 0 and 1",
                self.min_score
            )));
        }
        if self.max_postings < 2 {
            return Err(ReuseError::Parameter(
                "max_postings must be at least 2 (a term in one chunk pairs nothing)".into(),
            ));
        }
        self.shuffle.check()?;
        let memory = self.memory()?;
        let signer = self
            .signer
            .build()
            .map_err(|e| ReuseError::Parameter(e.to_string()))?;
        let mut aligner = Aligner::builder();
        aligner
            .min_passage_len(self.min_passage_len)
            .language(self.language)
            .detect_language(self.detect_language)
            .fallback_ngram(self.fallback_ngram)
            .synonyms(self.synonyms);
        if memory.align_caches != u64::MAX {
            // The threads of the pool the run's stages use tokenize; each keeps a cache.
            let per_thread = memory.align_caches / rayon::current_num_threads().max(1) as u64;
            aligner.cache_memory(usize::try_from(per_thread).unwrap_or(usize::MAX));
        }
        let aligner = aligner
            .build()
            .map_err(|e| ReuseError::Parameter(e.to_string()))?;
        Ok(Reuse {
            options: self.clone(),
            memory,
            signer,
            aligner,
        })
    }
}

/// The corpus-scale reuse job (see the crate docs).
#[derive(Debug)]
pub struct Reuse {
    options: ReuseBuilder,
    memory: MemoryPlan,
    signer: Signer,
    aligner: Aligner,
}

/// One reused passage: where it is in both documents, how similar, what kind.
#[derive(Clone, Debug, PartialEq)]
pub struct ReuseCase {
    /// Character range in the suspicious (reusing) document.
    pub suspicious: Range<usize>,
    /// Character range in the source document.
    pub source: Range<usize>,
    /// Byte range in the suspicious document's text.
    pub suspicious_bytes: Range<usize>,
    /// Byte range in the source document's text.
    pub source_bytes: Range<usize>,
    /// The alignment's similarity of the two passages.
    pub score: f64,
    /// The case's measures (word n-gram and entity Jaccard similarities, shares, lengths in
    /// words) and its kind: content, structure or unclassified reuse.
    pub profile: ReuseProfile,
}

impl ReuseCase {
    /// Content, structure or unclassified reuse.
    pub fn kind(&self) -> ReuseKind {
        self.profile.kind
    }
}

/// A candidate pair and what its alignment found. Within one corpus the earlier document is
/// the source; against another corpus, the corpus's document is the suspicious one.
#[derive(Clone, Copy, Debug)]
pub struct PairResult<'a> {
    /// The suspicious document's number (corpus documents first, then `against`'s) and its
    /// id, title and provenance (its `text` is empty when the run read a [`DocumentStore`]:
    /// the texts are in [`PairResult::texts`]).
    pub suspicious: (usize, &'a Document),
    /// The source document's number, id, title and provenance.
    pub source: (usize, &'a Document),
    /// The texts of the suspicious and the source document.
    pub texts: (&'a str, &'a str),
    /// What links the two: with tf-idf, the chunks of either that nominated the other; with
    /// MinHash, the chunk pairs sharing a band key.
    pub support: u32,
    /// The reused passages (possibly none: the candidate was not confirmed).
    pub cases: &'a [ReuseCase],
}

/// Receives the results of a run in candidate order, then the counts.
pub trait ReuseSink {
    /// One aligned candidate pair.
    fn pair(&mut self, pair: &PairResult<'_>) -> std::io::Result<()>;

    /// The run's counts, after the last pair.
    fn finish(&mut self, stats: &ReuseStats) -> std::io::Result<()> {
        let _ = stats;
        Ok(())
    }
}

/// A pair's result as [`Vec<FoundPair>`] collects it.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundPair {
    /// The suspicious document's number.
    pub suspicious: usize,
    /// The source document's number.
    pub source: usize,
    /// What links the two ([`PairResult::support`]).
    pub support: u32,
    /// The passages.
    pub cases: Vec<ReuseCase>,
}

/// Collects the pairs with at least one passage.
impl ReuseSink for Vec<FoundPair> {
    fn pair(&mut self, pair: &PairResult<'_>) -> std::io::Result<()> {
        if !pair.cases.is_empty() {
            self.push(FoundPair {
                suspicious: pair.suspicious.0,
                source: pair.source.0,
                support: pair.support,
                cases: pair.cases.to_vec(),
            });
        }
        Ok(())
    }
}

/// A sink that may be absent: `None` takes every result and does nothing.
impl<S: ReuseSink> ReuseSink for Option<S> {
    fn pair(&mut self, pair: &PairResult<'_>) -> std::io::Result<()> {
        match self {
            Some(sink) => sink.pair(pair),
            None => Ok(()),
        }
    }

    fn finish(&mut self, stats: &ReuseStats) -> std::io::Result<()> {
        match self {
            Some(sink) => sink.finish(stats),
            None => Ok(()),
        }
    }
}

/// Both sinks get every result.
impl<A: ReuseSink, B: ReuseSink> ReuseSink for (A, B) {
    fn pair(&mut self, pair: &PairResult<'_>) -> std::io::Result<()> {
        self.0.pair(pair)?;
        self.1.pair(pair)
    }

    fn finish(&mut self, stats: &ReuseStats) -> std::io::Result<()> {
        self.0.finish(stats)?;
        self.1.finish(stats)
    }
}

/// The counts of a run (`stats.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ReuseStats {
    /// The candidate method, `tfidf` or `minhash`.
    pub candidates: &'static str,
    /// tf-idf: terms kept per chunk.
    pub terms: usize,
    /// tf-idf: documents each chunk nominates.
    pub top_docs: usize,
    /// tf-idf: the postings cap.
    pub max_postings: usize,
    /// tf-idf: the lowest nominating score.
    pub min_score: f32,
    /// MinHash: word n-gram length.
    pub ngram: usize,
    /// Rows K per band key.
    pub rows: usize,
    /// Band keys M per chunk.
    pub bands: usize,
    /// The hash seed.
    pub seed: u64,
    /// Fewest words per chunk.
    pub min_words: usize,
    /// Chunk pairs needed to align a document pair.
    pub min_shared: u32,
    /// Shortest passage in bytes.
    pub min_passage_len: usize,
    /// The alignment language's ISO 639-1 code, or `auto` when detected per pair.
    pub lang: String,
    /// The word n-gram size of alignment's second extension, `null` when off.
    pub fallback_ngram: Option<usize>,
    /// Whether alignment matched English words with their synonyms.
    pub synonyms: bool,
    /// The classifier of the passages: `rules`, `learned` or `thesis`.
    pub classifier: &'static str,
    /// The bucket cap.
    pub max_bucket: usize,
    /// Documents of the corpus.
    pub documents: u64,
    /// Documents of the other corpus (0 within one corpus).
    pub against_documents: u64,
    /// Chunks signed (MinHash) or with a weighted term (tf-idf).
    pub chunks: u64,
    /// tf-idf: distinct terms of both corpora.
    pub distinct_terms: u64,
    /// tf-idf: `(term, chunk)` entries of the pruned vectors.
    pub term_records: u64,
    /// tf-idf: terms in more than `max_postings` chunks, skipped.
    pub terms_over_cap: u64,
    /// tf-idf: blocks the index side was cut into to fit the memory budget (each one more pass
    /// over the query chunks).
    pub index_blocks: u64,
    /// MinHash: band-key records through the shuffle.
    pub band_key_records: u64,
    /// Distinct band keys.
    pub buckets: u64,
    /// Buckets larger than the cap.
    pub buckets_capped: u64,
    /// Chunks those buckets left out of their pairs.
    pub bucket_ids_left_out: u64,
    /// MinHash: distinct chunk pairs sharing a band key (same-document pairs included);
    /// tf-idf: chunk pairs scored (sharing a term under the cap).
    pub chunk_pairs: u64,
    /// Candidate document pairs: the pairs aligned.
    pub candidate_pairs: u64,
    /// Candidate pairs with at least one passage.
    pub pairs_with_reuse: u64,
    /// Passages found.
    pub cases: u64,
    /// Passages by kind.
    pub content_cases: u64,
    /// Structure-reuse passages.
    pub structure_cases: u64,
    /// Passages the classifier's rules leave to neither kind.
    pub unclassified_cases: u64,
    /// Passages the evidence does not support as reuse (reported, marked `spurious`).
    pub spurious_cases: u64,
    /// Bytes the sorts spilled: the MinHash shuffle and its sort of document pairs, or the
    /// tf-idf sorts of nominations and pairs.
    pub bytes_spilled: u64,
    /// Times the mapped pages of the stored texts were handed back to the operating system
    /// under a memory bound ([`MemoryPlan::mapped_texts`]); not in `stats.json`, which is the
    /// same at every bound.
    #[serde(skip)]
    pub text_releases: u64,
    /// Parts the alignment batches were cut into ([`MemoryPlan::align_text`]); not in
    /// `stats.json`.
    #[serde(skip)]
    pub align_parts: u64,
    /// Per-document arrays kept in temporary files past their shares of the memory bound
    /// ([`MemoryPlan::doc_arrays`]): the stores' offsets, the tf-idf stage's first chunks
    /// and posting counts, the tokens' places; not in `stats.json`.
    #[serde(skip)]
    pub doc_arrays_on_disk: u64,
    /// Wall time per stage.
    pub seconds: ReuseSeconds,
}

impl ReuseStats {
    /// Counts one passage of this kind.
    pub fn count(&mut self, kind: ReuseKind) {
        match kind {
            ReuseKind::Content => self.content_cases += 1,
            ReuseKind::Structure => self.structure_cases += 1,
            ReuseKind::Unclassified => self.unclassified_cases += 1,
            ReuseKind::Spurious => self.spurious_cases += 1,
        }
    }
}

/// Wall time of each stage in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReuseSeconds {
    /// Chunking and signing, pushing records.
    pub chunk_and_sign: f64,
    /// tf-idf: document frequencies, chunk vectors, both sorts and the picks; MinHash: the
    /// shuffle and counting document pairs.
    pub candidates: f64,
    /// Aligning, classifying and delivering to the sink.
    pub align_and_write: f64,
}

impl Reuse {
    /// The options, to change.
    pub fn builder() -> ReuseBuilder {
        ReuseBuilder::new()
    }

    /// How the run's memory is shared out ([`ReuseBuilder::max_memory`]).
    pub fn memory(&self) -> &MemoryPlan {
        &self.memory
    }

    /// The job with the default options.
    pub fn new() -> Reuse {
        ReuseBuilder::new()
            .build()
            .expect("the default options are valid")
    }

    /// Finds every reused passage within `corpus` (`against: None`) or between `corpus` and
    /// `against` (the corpus's documents as the suspicious side), delivering each candidate
    /// pair to `sink`.
    pub fn run(
        &self,
        corpus: &[Document],
        against: Option<&[Document]>,
        sink: &mut dyn ReuseSink,
    ) -> Result<ReuseStats, ReuseError> {
        self.run_with_progress(corpus, against, sink, &NoProgress)
    }

    /// [`Reuse::run`], telling `progress` how the long stages go ([`Stage::ScoreChunks`],
    /// [`Stage::AlignPairs`]) and logging a line when the candidates are known.
    pub fn run_with_progress(
        &self,
        corpus: &[Document],
        against: Option<&[Document]>,
        sink: &mut dyn ReuseSink,
        progress: &dyn Progress,
    ) -> Result<ReuseStats, ReuseError> {
        let docs = InMemory {
            corpus,
            other: against.unwrap_or(&[]),
        };
        self.run_on(&docs, against.is_some(), sink, progress)
    }

    /// [`Reuse::run_with_progress`] over documents whose texts are on disk
    /// ([`DocumentStore`]): memory holds their ids, titles and provenance, not their texts.
    /// The results are the same as from the documents in memory.
    pub fn run_stored(
        &self,
        corpus: &DocumentStore,
        against: Option<&DocumentStore>,
        sink: &mut dyn ReuseSink,
        progress: &dyn Progress,
    ) -> Result<ReuseStats, ReuseError> {
        // Each side's mapped pages are handed back once the run has read its half of the share.
        let docs = Stored {
            corpus,
            against,
            mapped: match (against, self.memory.mapped_texts) {
                (_, u64::MAX) => u64::MAX,
                (Some(_), share) => share / 2,
                (None, share) => share,
            },
        };
        let releases = || corpus.releases() + against.map_or(0, DocumentStore::releases);
        let before = releases();
        let stats = self.run_on(&docs, against.is_some(), sink, progress);
        stats.map(|mut stats| {
            stats.text_releases = releases() - before;
            stats.doc_arrays_on_disk += [Some(corpus), against]
                .into_iter()
                .flatten()
                .filter(|s| s.offsets_on_disk())
                .count() as u64;
            stats
        })
    }

    fn run_on(
        &self,
        docs: &dyn Corpus,
        against: bool,
        sink: &mut dyn ReuseSink,
        progress: &dyn Progress,
    ) -> Result<ReuseStats, ReuseError> {
        let o = &self.options;
        let (n_corpus, n_other) = docs.sizes();
        let total = n_corpus + n_other;
        if total >= u32::MAX as usize {
            return Err(ReuseError::TooManyDocuments(total));
        }
        let mut stats = self.new_stats(n_corpus as u64, n_other as u64);

        // Stages 1 and 2: candidate document pairs.
        let text = |i: usize| docs.text(i);
        let pairs = match o.candidates {
            Candidates::TfIdf => tfidf::candidates(
                total,
                n_corpus,
                against,
                &text,
                &o.tfidf(&self.memory),
                &mut stats,
                progress,
            )?,
            Candidates::MinHash => {
                self.minhash_candidates(total, n_corpus, against, &text, &mut stats)?
            }
        };
        let mut candidates = pairs;
        stats.candidate_pairs = candidates.len();
        progress.log(&format!(
            "{} chunks, {} candidate pairs ({:.1} per document) in {:.1} s",
            stats.chunks,
            stats.candidate_pairs,
            stats.candidate_pairs as f64 / n_corpus.max(1) as f64,
            stats.seconds.chunk_and_sign + stats.seconds.candidates
        ));
        self.warn_unbounded(&stats, progress);

        // Stage 3: align, classify, deliver in candidate order.
        let started = Instant::now();
        if o.align {
            progress.start(Stage::AlignPairs, Some(stats.candidate_pairs));
        }
        let mut batch = Vec::with_capacity(ALIGN_BATCH);
        let mut ids = Vec::new();
        // Each document is tokenized once for the run, then read back from disk.
        let mut tokens = o
            .align
            .then(|| {
                let share = self.memory.doc_array_share(memory::TOKEN_PLACE_BYTES);
                TokenFile::new(o.shuffle.spill_parent(), total, share)
            })
            .transpose()?;
        stats.doc_arrays_on_disk += u64::from(tokens.as_ref().is_some_and(TokenFile::on_disk));
        while candidates.next_batch(&mut batch, ALIGN_BATCH)? {
            let mut rest = &batch[..];
            while !rest.is_empty() {
                // Each document of the part is tokenized once, for all its pairs there.
                let len = if o.align {
                    prepared_part(
                        rest,
                        |i| docs.part_cost(i as usize),
                        self.memory.align_text,
                        &mut ids,
                    )
                } else {
                    ids.clear();
                    rest.len()
                };
                let (part, next) = rest.split_at(len);
                rest = next;
                stats.align_parts += 1;
                let prepared: Vec<Prepared<'_>> = ids
                    .par_iter()
                    .map(|&i| {
                        let text = docs.text(i as usize);
                        let stored = match &tokens {
                            Some(t) => t.get(i as usize, text)?,
                            None => None,
                        };
                        Ok(stored.unwrap_or_else(|| self.prepare(text)))
                    })
                    .collect::<Result<_, ReuseError>>()?;
                if let Some(t) = &mut tokens {
                    t.put(ids.iter().map(|&i| i as usize).zip(&prepared))?;
                }
                let doc =
                    |i: usize| &prepared[ids.binary_search(&(i as u32)).expect("in the part")];
                let found: Vec<Vec<ReuseCase>> = part
                    .par_iter()
                    .map(|&((a, b), _)| {
                        if !o.align {
                            return Vec::new();
                        }
                        let (susp, src) = roles(a as usize, b as usize, against);
                        let (source, suspicious) = (doc(src), doc(susp));
                        let passages = self.aligner.align_prepared(source, suspicious);
                        if passages.is_empty() {
                            // Most candidates: their titles are not read from the store.
                            return Vec::new();
                        }
                        let titles = (docs.topic(src), docs.topic(susp));
                        let titles = Some((&*titles.0, &*titles.1));
                        self.cases(passages, source, suspicious, titles)
                    })
                    .collect();
                for (&((a, b), shared), cases) in part.iter().zip(&found) {
                    let (susp, src) = roles(a as usize, b as usize, against);
                    if !cases.is_empty() {
                        stats.pairs_with_reuse += 1;
                    }
                    stats.cases += cases.len() as u64;
                    for c in cases {
                        stats.count(c.kind());
                    }
                    sink.pair(&PairResult {
                        suspicious: (susp, &docs.info(susp)),
                        source: (src, &docs.info(src)),
                        texts: (docs.text(susp), docs.text(src)),
                        support: shared,
                        cases,
                    })
                    .map_err(ReuseError::Sink)?;
                }
                if o.align {
                    progress.advance(part.len() as u64);
                }
            }
        }
        if let Some(t) = &tokens {
            progress.finish();
            let (n, bytes) = t.size();
            progress.log(&format!(
                "{n} documents tokenized once, {:.1} MB of tokens on disk",
                bytes as f64 / 1e6
            ));
        }
        stats.seconds.align_and_write = started.elapsed().as_secs_f64();
        sink.finish(&stats).map_err(ReuseError::Sink)?;
        Ok(stats)
    }

    /// Logs a warning when the structures without a share of the memory bound that are known
    /// before alignment (per distinct term; [`MemoryPlan`]) take more than what the bound
    /// leaves them.
    fn warn_unbounded(&self, stats: &ReuseStats, progress: &dyn Progress) {
        if !self.memory.is_bounded() {
            return;
        }
        let estimate = stats.distinct_terms * memory::BYTES_PER_TERM;
        if estimate > self.memory.unbounded {
            progress.log(&format!(
                "warning: the terms' document frequencies take about {} MiB, more than the {} \
                 MiB the memory bound leaves them: they are not bounded yet, so the peak may \
                 pass the bound (docs/performance.md)",
                estimate >> 20,
                self.memory.unbounded >> 20
            ));
        }
    }

    /// The counts of a run over `documents` (and `against_documents`) before it starts: its
    /// options, every count zero. What [`Reuse::run`] fills in, and what an engine running the
    /// steps elsewhere fills in to write the same `stats.json`.
    pub fn new_stats(&self, documents: u64, against_documents: u64) -> ReuseStats {
        let o = &self.options;
        ReuseStats {
            candidates: o.candidates.name(),
            terms: o.terms,
            top_docs: o.top_docs,
            max_postings: o.max_postings,
            min_score: o.min_score,
            ngram: o.chunks.ngram,
            rows: o.signer.rows,
            bands: o.signer.bands,
            seed: o.signer.seed,
            min_words: o.chunks.min_words,
            min_shared: o.min_shared,
            min_passage_len: o.min_passage_len,
            lang: if o.detect_language {
                "auto".to_string()
            } else {
                o.language.code().to_string()
            },
            fallback_ngram: o.fallback_ngram,
            synonyms: o.synonyms,
            classifier: o.classifier.as_str(),
            max_bucket: o.max_bucket,
            documents,
            against_documents,
            ..ReuseStats::default()
        }
    }

    /// The distinct terms of a document (keys of its words of at least three characters,
    /// ascending): the first step of the tf-idf search done elsewhere, whose counts over all
    /// documents are the document frequencies [`Reuse::chunk_vectors`] takes.
    pub fn document_terms(text: &str) -> Vec<u64> {
        tfidf::document_terms(text)
    }

    /// The tf-idf vectors of a document's chunks, pruned to the heaviest `terms` (chunks
    /// without a weighted term left out), for a distributed search: `df` gives a term's
    /// document frequency among `documents` documents. The same vectors [`Reuse::run`]
    /// computes, in no particular term order.
    ///
    /// ```
    /// use textreuse_reuse::Reuse;
    ///
    /// use textreuse_shingle::ChunkConfig;
    ///
    /// let job = Reuse::builder().chunks(ChunkConfig { min_words: 3, ..ChunkConfig::default() }).build()?;
    /// let text = "Bees store honey in combs.\n\nWasps build paper nests.";
    /// let vectors = job.chunk_vectors(text, |_| 1, 2);
    /// assert_eq!(vectors.len(), 2);
    /// let norm: f32 = vectors[0].iter().map(|(_, w)| w * w).sum();
    /// assert!((norm - 1.0).abs() < 1e-5);
    /// # Ok::<(), textreuse_reuse::ReuseError>(())
    /// ```
    pub fn chunk_vectors(
        &self,
        text: &str,
        df: impl Fn(u64) -> u32,
        documents: u64,
    ) -> Vec<Vec<(u64, f32)>> {
        let o = &self.options;
        tfidf::chunk_vectors(text, df, documents as f64, o.chunks.min_words, o.terms)
    }

    /// One query chunk's nominations from its weight products with other chunks (the join of
    /// its vector's terms with theirs, terms over the postings cap and the chunk's own
    /// document left out, in any order): the `top_docs` documents with the best-scoring
    /// chunks, of at least `min_score`, as `(document, score)` best first, and the number of
    /// chunks scored. Sums run in term order and ties break by document number, as in
    /// [`Reuse::run`].
    pub fn pick_documents(&self, matches: &mut [ChunkMatch]) -> (u64, Vec<(u32, f32)>) {
        tfidf::pick_documents(
            matches,
            &self.options.tfidf(&self.memory),
            &mut Default::default(),
        )
    }

    /// MinHash candidates: `(a < b)` with the chunk pairs sharing a band key, at least
    /// `min_shared`.
    fn minhash_candidates<'d>(
        &self,
        total: usize,
        n_corpus: usize,
        against: bool,
        text: &(dyn Fn(usize) -> &'d str + Sync),
        stats: &mut ReuseStats,
    ) -> Result<CandidateList, ReuseError> {
        // Stage 1: chunk and sign.
        let started = Instant::now();
        let (shuffle, pair_sort) = self.options.minhash_sorts(&self.memory);
        let mut shuffle = shuffle.build()?;
        for first in (0..total).step_by(SIGN_BATCH) {
            let last = (first + SIGN_BATCH).min(total);
            let batch: Vec<(u64, Vec<(u64, u64)>)> = (first..last)
                .into_par_iter()
                .map(|i| self.records(i as u64, text(i)))
                .collect();
            for (chunks, records) in batch {
                stats.chunks += chunks;
                shuffle.push_slice(&records)?;
            }
        }
        stats.seconds.chunk_and_sign = started.elapsed().as_secs_f64();

        // Stage 2: chunk pairs -> document pairs.
        let started = Instant::now();
        let mut stream = shuffle.finish()?;
        // Each chunk pair as `(document pair, its two chunk numbers)`: sorted (and spilled
        // beyond its budget), a document pair's records are its chunk pairs.
        let mut pairs = pair_sort.build_sorter()?;
        while let Some((a, b)) = stream.next_pair()? {
            // Ids are `doc << 32 | chunk` and a < b, so a's document comes first.
            let (da, db) = ((a >> 32) as u32, (b >> 32) as u32);
            if da == db || (against && (db as usize) < n_corpus) {
                continue;
            }
            if against && (da as usize) >= n_corpus {
                continue;
            }
            pairs.push(
                u64::from(da) << 32 | u64::from(db),
                a << 32 | (b & 0xffff_ffff),
            )?;
        }
        let shuffled = stream.stats();
        stats.band_key_records = shuffled.records;
        stats.buckets = shuffled.buckets;
        stats.buckets_capped = shuffled.buckets_capped;
        stats.bucket_ids_left_out = shuffled.bucket_ids_left_out;
        stats.chunk_pairs = shuffled.candidate_pairs;
        drop(stream);
        let mut sorted = pairs.finish()?;
        let mut list = CandidateWriter::new(self.options.shuffle.spill_parent())?;
        let mut chunks = Vec::new();
        while let Some(pair) = sorted.next_group(&mut chunks)? {
            let shared = u32::try_from(chunks.len()).unwrap_or(u32::MAX);
            if shared >= self.options.min_shared {
                list.push(((pair >> 32) as u32, pair as u32), shared)?;
            }
        }
        stats.bytes_spilled = shuffled.bytes_spilled + sorted.bytes_spilled();
        stats.seconds.candidates = started.elapsed().as_secs_f64();
        list.finish()
    }

    /// The chunks of document `doc` and its `(band key, doc << 32 | chunk)` records.
    fn records(&self, doc: u64, text: &str) -> (u64, Vec<(u64, u64)>) {
        let o = &self.options;
        let mut spans = Vec::new();
        chunk_spans(text, o.chunks.min_words, &mut spans);
        let (mut keys, mut shingles) = (Vec::new(), Vec::new());
        let mut mins = vec![0u64; self.signer.hashes()];
        let mut bands = vec![0u64; self.signer.bands()];
        let mut records = Vec::with_capacity(spans.len() * bands.len());
        let mut chunk = 0u64;
        for span in spans {
            if chunk > u32::MAX as u64 {
                break;
            }
            if !word_shingles(&text[span], o.chunks.ngram, &mut keys, &mut shingles)
                || self.signer.sign_into(&shingles, &mut mins).is_err()
            {
                continue;
            }
            self.signer.band_keys_into(&mins, &mut bands);
            let id = doc << 32 | chunk;
            records.extend(bands.iter().map(|&key| (key, id)));
            chunk += 1;
        }
        (chunk, records)
    }

    /// The passages of `suspicious` reused from `source`, classified: the alignment of one
    /// candidate pair.
    pub fn align_pair(&self, source: &str, suspicious: &str) -> Vec<ReuseCase> {
        let suspicious = self.aligner.prepare(suspicious);
        self.align_prepared_pair(&self.aligner.prepare(source), &suspicious, None)
    }

    /// [`Reuse::align_pair`] on documents tokenized once by [`Reuse::prepare`] for all the
    /// pairs they are in.
    /// `titles` are the source's and the suspicious document's titles, which the classifier
    /// compares ([`Classifier::profile_titled`]); [`Reuse::run`] passes them.
    pub fn align_prepared_pair(
        &self,
        source: &Prepared<'_>,
        suspicious: &Prepared<'_>,
        titles: Option<(&str, &str)>,
    ) -> Vec<ReuseCase> {
        let passages = self.aligner.align_prepared(source, suspicious);
        self.cases(passages, source, suspicious, titles)
    }

    /// The aligned passages of a pair as classified cases.
    fn cases(
        &self,
        passages: Vec<textreuse_align::Passage>,
        source: &Prepared<'_>,
        suspicious: &Prepared<'_>,
        titles: Option<(&str, &str)>,
    ) -> Vec<ReuseCase> {
        let (src_text, susp_text) = (source.text(), suspicious.text());
        passages
            .into_iter()
            .map(|p| {
                let (s, t) = p.char_ranges(src_text, susp_text);
                let profile = self.options.classifier.profile_titled(
                    &src_text[p.source.clone()],
                    &susp_text[p.suspicious.clone()],
                    src_text.len(),
                    susp_text.len(),
                    titles,
                );
                ReuseCase {
                    suspicious: t,
                    source: s,
                    suspicious_bytes: p.suspicious,
                    source_bytes: p.source,
                    score: p.score,
                    profile,
                }
            })
            .collect()
    }

    /// A document tokenized for [`Reuse::align_prepared_pair`], by this job's alignment
    /// settings.
    pub fn prepare<'t>(&self, text: &'t str) -> Prepared<'t> {
        self.aligner.prepare(text)
    }
}

/// The documents of a run, numbered corpus first: texts for the stages, the rest for the sinks.
trait Corpus: Sync {
    /// The number of the corpus's documents and of the other side's.
    fn sizes(&self) -> (usize, usize);
    fn text(&self, i: usize) -> &str;
    /// What the document costs a part of an alignment batch, in bytes of text (without
    /// reading it): its length, and for mapped texts under a memory bound also the pages that
    /// aligning it maps in (which are not handed back while the part is aligned).
    fn part_cost(&self, i: usize) -> usize {
        self.text(i).len()
    }
    /// The document's id, title and provenance (its text may be left empty).
    fn info(&self, i: usize) -> Cow<'_, Document>;

    /// The document's title as a topic ([`topic_title`]).
    fn topic(&self, i: usize) -> Cow<'_, str> {
        match self.info(i) {
            Cow::Borrowed(d) => Cow::Borrowed(topic_title(d)),
            Cow::Owned(d) => Cow::Owned(topic_title(&d).to_string()),
        }
    }
}

struct InMemory<'a> {
    corpus: &'a [Document],
    other: &'a [Document],
}

impl InMemory<'_> {
    fn doc(&self, i: usize) -> &Document {
        match self.corpus.get(i) {
            Some(d) => d,
            None => &self.other[i - self.corpus.len()],
        }
    }
}

impl Corpus for InMemory<'_> {
    fn sizes(&self) -> (usize, usize) {
        (self.corpus.len(), self.other.len())
    }

    fn text(&self, i: usize) -> &str {
        &self.doc(i).text
    }

    fn info(&self, i: usize) -> Cow<'_, Document> {
        Cow::Borrowed(self.doc(i))
    }
}

struct Stored<'a> {
    corpus: &'a DocumentStore,
    against: Option<&'a DocumentStore>,
    /// Bytes read from a store before its mapped pages are handed back (`u64::MAX`: never, no
    /// bound).
    mapped: u64,
}

impl Stored<'_> {
    fn at(&self, i: usize) -> (&DocumentStore, usize) {
        match self.against {
            Some(other) if i >= self.corpus.len() => (other, i - self.corpus.len()),
            _ => (self.corpus, i),
        }
    }
}

impl Corpus for Stored<'_> {
    fn sizes(&self) -> (usize, usize) {
        (
            self.corpus.len(),
            self.against.map_or(0, DocumentStore::len),
        )
    }

    fn text(&self, i: usize) -> &str {
        let (store, j) = self.at(i);
        let text = store.text(j);
        store.release_past(self.mapped);
        text
    }

    fn part_cost(&self, i: usize) -> usize {
        let (store, j) = self.at(i);
        let len = store.text_len(j);
        if self.mapped == u64::MAX {
            return len;
        }
        // The part's share is six times its text (the text and its tokens, five times it); the
        // mapped windows come out of the same share.
        len + (store.text_window_bytes(j) / memory::ALIGN_BYTES_PER_TEXT_BYTE) as usize
    }

    fn info(&self, i: usize) -> Cow<'_, Document> {
        let (store, j) = self.at(i);
        let info = store.info(j);
        store.release_past(self.mapped);
        Cow::Owned(info)
    }
}

/// The title of a document as the classifier reads it, a topic ([`Classifier::profile_titled`]):
/// empty (unknown) when the title is only the name of the file the document was read from, as
/// for plain-text corpora such as PAN's (`suspicious-document00001`).
///
/// ```
/// use textreuse_corpus::Document;
/// use textreuse_reuse::topic_title;
///
/// let mut page = Document::new(1, "Frostburg, Maryland", "...");
/// page.origin.source = Some("enwiki.xml.bz2".into());
/// assert_eq!(topic_title(&page), "Frostburg, Maryland");
/// let mut file = Document::new(1, "suspicious-document00001", "...");
/// file.origin.source = Some("susp/suspicious-document00001.txt".into());
/// assert_eq!(topic_title(&file), "");
/// ```
pub fn topic_title(doc: &Document) -> &str {
    let stem = doc
        .origin
        .source
        .as_deref()
        .and_then(|s| std::path::Path::new(s).file_stem())
        .and_then(|s| s.to_str());
    if stem == Some(doc.title.as_str()) {
        ""
    } else {
        &doc.title
    }
}

/// `(suspicious, source)` of the document pair `a < b`: within one corpus the later document
/// reuses the earlier; against another corpus, the corpus's document (numbered first) is the
/// suspicious one.
fn roles(a: usize, b: usize, against: bool) -> (usize, usize) {
    if against { (a, b) } else { (b, a) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_documents_cut_a_batch_into_parts() {
        let pairs = [
            ((0, 1), 1),
            ((0, 2), 1),
            ((1, 2), 1),
            ((2, 3), 1),
            ((3, 4), 1),
        ];
        let mb = |n: usize| n << 20;
        let mut ids = Vec::new();
        // Small documents: one part, each document once.
        let cap = PREPARED_TEXT_BYTES;
        assert_eq!(prepared_part(&pairs, |_| 100, cap, &mut ids), 5);
        assert_eq!(ids, [0, 1, 2, 3, 4]);
        // 10 MiB each: documents 0, 1, 2 fit (30 MiB), document 3 would pass the cap.
        assert_eq!(prepared_part(&pairs, |_| mb(10), cap, &mut ids), 3);
        assert_eq!(ids, [0, 1, 2]);
        // A pair longer than the cap is a part of its own.
        assert_eq!(prepared_part(&pairs[3..], |_| mb(40), cap, &mut ids), 1);
        assert_eq!(ids, [2, 3]);
        // A smaller cap (a memory bound's) cuts sooner.
        assert_eq!(prepared_part(&pairs, |_| mb(10), mb(20), &mut ids), 1);
        assert_eq!(ids, [0, 1]);
    }
}
