//! textreuse: locality-sensitive hashing and text-reuse detection.
//!
//! This crate holds no logic: it re-exports the toolkit's libraries under short names, so one
//! dependency gives you all of them.
//!
// The example needs the `minhash` module.
#![cfg_attr(
    feature = "minhash",
    doc = r#"
```
use textreuse::minhash::{Signer, TextSigner};

let signer = Signer::new();
// Normalized 12-character shingles, signed, cut into band keys: the dedup recipe.
let mut text_signer = TextSigner::new(&signer);
let keys = text_signer
    .band_keys("Near-duplicate sentences share band keys, whatever their case.")
    .ok_or("shorter than one shingle")?;
assert_eq!(keys.len(), 10);
# Ok::<(), Box<dyn std::error::Error>>(())
```
"#
)]
//!
//! # Overview
//!
//! * [`hash`]: multiply-shift hash families drawn from a seed, and stable 64-bit fingerprints of
//!   byte strings (what shingles become).
//! * [`minhash`]: the [`Signer`](minhash::Signer): MinHash signatures, band keys, the exact
//!   collision curves of drawn and disjoint bands and of one-permutation hashing, and a planner
//!   that picks the cheapest configuration for a target.
//! * [`shingle`]: normalization, sentence splitting, character shingles, word n-grams, chunks,
//!   byte-to-character offsets.
//! * [`simhash`]: random-projection signatures (SimHash), paragraph fingerprints (Wang, Liu and
//!   Jia's documents as sets of paragraph fingerprints, their cosine and the search for similar
//!   documents) and Hamming-distance search (exact permuted tables, approximate sliding window).
//! * [`embed`]: word vectors (word2vec text and binary, GloVe, fastText readers and writers),
//!   the sentence cleaning and mean sentence vectors of Meng and Zheng's random projection, and
//!   deterministic skip-gram training on a corpus (`textreuse dedup --method rp-embed`).
//! * [`unionfind`]: dense union-find and deterministic clusters over sparse ids.
//! * [`wikidump`]: streaming Wikipedia XML dump reader (bz2, multistream) and wikitext cleaner.
//! * [`corpus`]: documents, ids and provenance; every input format (dumps, JSON Lines, plain
//!   text, Parquet, WARC; compressed or not) as one stream ([`Inputs`](corpus::Inputs));
//!   progress; output directories that change as one and the one atomic file write.
//! * [`shuffle`]: the out-of-core shuffle: `(key, id)` records sorted under a memory budget,
//!   buckets -> candidate pairs -> clusters.
//! * [`dedup`]: the dedup engine: [`Dedup`](dedup::Dedup) runs the whole pipeline (documents
//!   -> sentences -> band keys -> out-of-core shuffle -> clusters, classified) and delivers
//!   clusters to a [`Sink`](dedup::Sink) (a `Vec`, or the three output files).
//! * [`index`]: a persistent, incremental LSH index on disk: build it once, then add, query
//!   ([`Index`](index::Index)), remove and compact later ([`IndexWriter`](index::IndexWriter)),
//!   with the dedup units and provenance; crash-safe, one writer at a time. Beside it
//!   [`MemoryIndex`](index::MemoryIndex), the plagiarism checker's chunk index in memory.
//! * [`align`]: passage-level text alignment (PAN style) and the PAN evaluator, over text only.
//! * [`reuse`]: text reuse at corpus scale: every reused passage within a corpus or between
//!   two ([`Reuse`](reuse::Reuse)): candidate pairs from the chunks' tf-idf terms (or MinHash
//!   band keys) through the out-of-core sort of [`shuffle`], alignment of the pairs in parallel,
//!   classification (content or structure reuse, [`profile`](reuse::profile)); and the
//!   plagiarism checker of `textreuse check` ([`Checker`](reuse::Checker); see also
//!   `examples/plagiarism_checker.rs`).
//! * [`report`]: self-contained HTML reports with SVG plots: of a dedup run's outputs
//!   ([`DedupReport`](report::DedupReport)), of a plagiarism check
//!   ([`CheckReport`](report::CheckReport)), and S-curves ([`SCurvePlot`](report::SCurvePlot)).
//!
//! # Crate features
//!
//! Each module is behind the feature of its name; all are on by default. A program that needs
//! only part of the toolkit turns the defaults off and names what it uses:
//!
//! ```toml
//! [dependencies]
//! textreuse = { version = "0.1", default-features = false, features = ["minhash"] }
//! ```
//!
//! compiles `textreuse-minhash` and what it builds on (`textreuse-shingle`, `textreuse-hash`),
//! and none of parquet, arrow, the HTML extractor (dom_smoothie) or plotters.
//!
//! * `hash`, `unionfind`, `wikidump`, `align`, `shingle`, `simhash`, `embed`, `minhash`, `corpus`,
//!   `shuffle`: the module of that name (the libraries it depends on are compiled, not
//!   re-exported).
//! * `dedup`, `index`, `reuse`: the job's module, with `corpus` and `minhash` (the jobs take
//!   documents and signers).
//! * `report`: the HTML reports, with `minhash`; compiles plotters.
//! * `parquet`: Parquet inputs in `corpus` (and every job that reads inputs), and the Parquet
//!   copies of `dedup::rewrite`; compiles parquet and arrow.
//! * `warc`: WARC and WET inputs in `corpus`, the main content of HTML pages extracted;
//!   compiles warc and dom_smoothie.
//!
//! Every output that must be the same on every machine (fingerprints, signatures, band keys) is
//! defined by the toolkit's own code and seed and pinned by known-answer tests.
#![deny(missing_docs)]
#![no_std]

// The READMEs' Rust snippets are compiled and run as doctests of this crate, when the features
// they use are on.
#[cfg(all(doctest, feature = "dedup"))]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

#[cfg(all(doctest, feature = "minhash", feature = "shingle"))]
#[doc = include_str!("../README.md")]
struct FacadeReadmeDoctests;

#[cfg(all(doctest, feature = "index"))]
#[doc = include_str!("../../index/README.md")]
struct IndexReadmeDoctests;

// So are the Rust snippets of the index and report guides.
#[cfg(all(doctest, feature = "index"))]
#[doc = include_str!("../../../docs/index.md")]
struct IndexGuideDoctests;

#[cfg(all(doctest, feature = "dedup", feature = "report"))]
#[doc = include_str!("../../../docs/reports.md")]
struct ReportsGuideDoctests;

#[cfg(feature = "align")]
#[doc(inline)]
pub use textreuse_align as align;

#[cfg(feature = "corpus")]
#[doc(inline)]
pub use textreuse_corpus as corpus;

#[cfg(feature = "dedup")]
#[doc(inline)]
pub use textreuse_dedup as dedup;

#[cfg(feature = "hash")]
#[doc(inline)]
pub use textreuse_hash as hash;

#[cfg(feature = "index")]
#[doc(inline)]
pub use textreuse_index as index;

#[cfg(feature = "minhash")]
#[doc(inline)]
pub use textreuse_minhash as minhash;

#[cfg(feature = "report")]
#[doc(inline)]
pub use textreuse_report as report;

#[cfg(feature = "reuse")]
#[doc(inline)]
pub use textreuse_reuse as reuse;

#[cfg(feature = "shingle")]
#[doc(inline)]
pub use textreuse_shingle as shingle;

#[cfg(feature = "shuffle")]
#[doc(inline)]
pub use textreuse_shuffle as shuffle;

#[cfg(feature = "simhash")]
#[doc(inline)]
pub use textreuse_simhash as simhash;

#[cfg(feature = "embed")]
#[doc(inline)]
pub use textreuse_embed as embed;

#[cfg(feature = "unionfind")]
#[doc(inline)]
pub use textreuse_unionfind as unionfind;

#[cfg(feature = "wikidump")]
#[doc(inline)]
pub use textreuse_wikidump as wikidump;
