//! The textreuse dedup engine: clusters of near-duplicate sentences across large corpora, on
//! one machine, deterministically.
//!
//! Documents (Wikipedia dumps, JSON Lines, Parquet, plain text, or values a program holds) are
//! split into sentences; each kept sentence is normalized, shingled and signed with MinHash, and
//! its band keys go through an out-of-core shuffle that groups them under a memory budget;
//! sentences that share a band key are candidate pairs, union-find joins them into clusters, and
//! each cluster is classified (identical, template, copyedit, factual drift, reference, other)
//! and delivered to a [`Sink`] as a value.
//!
//! ```
//! use textreuse_corpus::{Document, NoProgress};
//! use textreuse_dedup::{Cluster, Dedup};
//!
//! let sentence = "The old mill on the river was built in 1820 and still grinds grain for the bakery.";
//! let docs = vec![
//!     Document::new(10, "Mill", format!("{sentence} It is open on Sundays.")),
//!     // The same sentence in lower case: normalization makes the signatures equal.
//!     Document::new(11, "River", sentence.to_lowercase()),
//!     Document::new(12, "Bakery", "Nothing in common with the others, not a single sentence."),
//! ];
//! let dedup = Dedup::builder().min_shingles(20).build()?;
//! let mut clusters: Vec<Cluster> = Vec::new();
//! let stats = dedup.run_documents(docs, &mut clusters, &NoProgress)?;
//! assert_eq!(stats.documents, 3);
//! assert_eq!(clusters.len(), 1);
//! let docs: Vec<String> = clusters[0].members.iter().map(|m| m.doc.to_string()).collect();
//! assert_eq!(docs, ["10", "11"]);
//! println!("{} cluster: {}", clusters[0].kind.as_str(), clusters[0].to_json());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`Dedup`], built by [`DedupBuilder`]: the engine (stages 1-8, documented on [`Dedup`]).
//!   [`Dedup::run`] takes sources, a [`Sink`] and a [`Progress`]; [`Dedup::run_documents`]
//!   takes documents; [`Dedup::run_to_dir`] writes `textreuse dedup`'s five files.
//! * Inputs and provenance come from `textreuse-corpus`: [`Inputs`] reads files, directories
//!   and stdin as a stream of [`Source`]s, [`Document`] is one document, with its [`DocId`] as
//!   written and its [`Origin`]; a run reports to a [`Progress`]; [`OutputSet`] and
//!   [`RunDir`] are its output and temporary directories.
//! * Results: [`Sink`] receives each [`Cluster`] (its [`Member`]s and [`ClusterType`]), the
//!   top [`ArticlePairRow`]s and the [`Stats`]. [`Collect`] and `Vec<Cluster>` keep them in
//!   memory; [`OutputDir`] writes `clusters.jsonl`, `duplicates.jsonl`, `article-pairs.tsv` and
//!   `stats.json`; [`rewrite`] copies the inputs without their duplicates.
//! * Units: [`Unit`] (sentence, paragraph, document) and the kept units of a document
//!   ([`KeptSentences`]) come from `textreuse-shingle`; each [`Member`] has its document id, its
//!   origin, character offsets, and its similarity to the representative its cluster keeps
//!   ([`Keep`]).
//! * The stages as building blocks, for other drivers (the CLI's `sentences` and `simhash`, the
//!   Python package's Spark backend, the benches): [`features`] (the signer of a run's options,
//!   SimHash of a unit), [`pipeline`] (the parallel, ordered stage 1-2 driver), [`records`] (the
//!   sentence records of `textreuse sentences`, and reading a file of them in byte ranges),
//!   [`classify`], [`article_pairs`], [`within_edit_distance`]; the shuffle (the external sort,
//!   buckets, pairs, clusters) is its own crate, `textreuse-shuffle` ([`ShuffleBuilder`]).
//! * [`summaries`]: the summaries the seed research reports, in [`Stats`]: distinct clustered
//!   texts, cluster-size percentiles and shares, and article chains (articles linked by shared
//!   clusters).
//! * [`study`]: the tuning study of the seed research's first paper
//!   ([`study::TuningStudy`]): per shingle length and rows `K`, the candidate pairs of a
//!   corpus's sentences split by edit distance into good and bad, with the false-positive rate
//!   and the time of each setting (`textreuse tune --study`).
//!
//! Signatures and band keys come from [`textreuse_minhash::TextSigner`], the one text ->
//! band keys recipe, so what a program signs equals what the engine buckets by.
//!
//! # Determinism
//!
//! The same inputs and options give the same clusters, article pairs and counts (except the
//! seconds) for any thread count and memory budget: records are ordered by sentence ids
//! (`seq << 32 | idx`: input position of the document, index of the sentence), runs merge in
//! that total order, bucket caps keep the smallest ids, and a cluster's id is its smallest
//! member.
//!
//! # Performance
//!
//! On 2 cores stages 1-5 run about 500,000 sentences a second from JSON Lines, and the shuffle
//! takes full English Wikipedia's 1.4 billion band-key records in 2.5 minutes under a 4 GB
//! budget. [`DedupBuilder::max_memory`] bounds the peak memory of the whole run
//! ([`MemoryPlan`]: the sorts, the text store's index, union-find (past its share the clusters
//! are computed on disk), the article-pair tally and ranking (past their share sorted on disk)
//! and the output batches get shares and spill beyond them); without it memory is the sorts'
//! budget plus the text store's index (12 bytes per kept sentence, 16 per document) plus
//! union-find and the tally, plus the text store's file, memory-mapped while stages 6-8 read it
//! when it is at most 1 GiB (`docs/performance.md`, "dedup").
//!
//! # Crate features
//!
//! * `parquet` (default): Parquet inputs (`textreuse-corpus/parquet`), and [`rewrite`] copies
//!   Parquet inputs without their duplicates. Without it a Parquet input is reported as an
//!   [`InputError::Format`] and skipped, and the build skips compiling parquet and arrow.
//! * `warc` (default): WARC and WET inputs (`textreuse-corpus/warc`).
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

#[cfg(doc)]
use textreuse_corpus::files::{OutputSet, RunDir};
#[cfg(doc)]
use textreuse_corpus::{DocId, Document, InputError, Inputs, Origin, Progress, Source};
#[cfg(doc)]
use textreuse_shingle::units::{KeptSentences, Unit};
#[cfg(doc)]
use textreuse_shuffle::ShuffleBuilder;

pub mod article_pairs;
pub mod classify;
mod cluster;
pub mod contradictions;
mod error;
pub mod features;
mod memory;
pub mod pipeline;
pub mod projection;
pub mod records;
pub mod rewrite;
mod run;
mod sink;
mod spill;
mod stats;
pub mod study;
pub mod summaries;
mod tally;
mod text_store;

pub use classify::ClusterType;
pub use cluster::{Cluster, Keep, Member, within_edit_distance};
pub use error::Error;
pub use memory::MemoryPlan;
pub use run::{DEFAULT_MAX_ARTICLE_PAIRS, DEFAULT_MAX_HAMMING, Dedup, DedupBuilder, Method};
pub use sink::{ArticlePairRow, Collect, OutputDir, Sink, Tee, TeeError};
pub use stats::{ProjectionStats, StageTimes, Stats};
