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
//! use textreuse_dedup::{Cluster, Dedup, Document, NoProgress};
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
//!   takes documents; [`Dedup::run_to_dir`] writes `textreuse dedup`'s four files.
//! * Inputs: [`Inputs`] reads files, directories and stdin in order (dumps through
//!   `textreuse-wikidump`, JSON Lines and Parquet with [`JsonFields`], plain text; gzip, zstd or
//!   bzip2 compressed, except Parquet; recognized by content) as a stream of [`Source`]s;
//!   [`Document`] is one document. The `parquet` module also copies a Parquet file without
//!   some rows (`parquet::write_without_rows`).
//! * Results: [`Sink`] receives each [`Cluster`] (its [`Member`]s and [`ClusterType`]), the
//!   top [`ArticlePairRow`]s and the [`Stats`]. [`Collect`] and `Vec<Cluster>` keep them in
//!   memory; [`OutputDir`] writes `clusters.jsonl`, `duplicates.jsonl`, `article-pairs.tsv` and
//!   `stats.json`; [`rewrite`] copies the inputs without their duplicates. [`files`] makes a
//!   run's output directory change as one ([`files::OutputSet`]) and keeps its temporary files
//!   in one directory removed on every exit path ([`files::RunDir`]).
//! * Units and provenance: [`Unit`] (sentence, paragraph, document); each [`Member`] has its
//!   [`DocId`] as written, its [`Origin`] (input, line, dump revision and timestamp), character
//!   offsets, and its similarity to the representative its cluster keeps ([`Keep`]).
//! * The stages as building blocks, for other drivers (the CLI's `sentences` and `simhash`, the
//!   Python package's Spark backend, the benches): [`features`] (the sentence filter, kept
//!   sentences with their ids, SimHash of a sentence), [`pipeline`] (the parallel, ordered
//!   stage 1-2 driver), [`records`] (the sentence records of `textreuse sentences`, and reading
//!   a file of them in byte ranges), [`shuffle`] (the external sort, buckets, pairs, clusters),
//!   [`classify`], [`article_pairs`], [`within_edit_distance`].
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
//! budget; memory is bounded by the budget plus 12 bytes per kept sentence and 8 per document
//! (`docs/performance.md`, "dedup").
//!
//! # Crate features
//!
//! * `parquet` (default): Parquet inputs and the `parquet` module, through the `parquet` and
//!   `arrow-*` crates (no async runtime). Without it a Parquet input is reported as an
//!   [`InputError::Format`] and skipped, and the build skips compiling those crates.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod article_pairs;
pub mod classify;
mod cluster;
mod error;
pub mod features;
pub mod files;
pub mod input;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod pipeline;
mod progress;
pub mod records;
pub mod rewrite;
mod run;
pub mod shuffle;
mod sink;
pub mod source;
mod stats;
mod text_store;
#[cfg(feature = "warc")]
mod warc;

/// Where in source paths the decoders this crate catches panics of live: the `parquet` crate
/// (and `arrow`, under it) panics on some damaged pages, which [`Inputs`] reports as that file's
/// damage. A front end's panic hook may keep quiet about panics located there.
pub const CAUGHT_PANICS: &[&str] = &["/parquet-", "/arrow-"];

pub use classify::ClusterType;
pub use cluster::{Cluster, Keep, Member, within_edit_distance};
pub use error::{Error, error_chain};
pub use features::Unit;
pub use input::{DocId, Document, InputError, JsonFields, Origin};
pub use progress::{NoProgress, Progress, Stage};
pub use run::{DEFAULT_MAX_ARTICLE_PAIRS, DEFAULT_MAX_HAMMING, Dedup, DedupBuilder, Method};
pub use sink::{ArticlePairRow, Collect, OutputDir, OutputError, Sink, Tee, TeeError};
pub use source::{Inputs, Source};
pub use stats::{StageTimes, Stats};
