//! A persistent, incremental MinHash LSH index: build it once, then add, query, remove and
//! compact later, from Rust, the `textreuse index` command or Python.
//!
//! An index maps the band keys of units (sentences, paragraphs, documents, or the plagiarism
//! checker's chunks: [`IndexUnit`]) to entries that keep where each unit came from (document
//! id, title, input, record, character offsets) and a short signature for estimating
//! similarity. [`IndexWriter`] adds documents (or bare signatures) and removes them by id;
//! [`Index`] answers queries: a text's units, or a signature, with their matches, ranked by
//! estimated Jaccard similarity and optionally verified exactly against the stored texts. It
//! also answers two questions about whole documents: the `k` most similar to a query
//! ([`Index::query_top_k`], datasketch's `MinHashLSHForest`), and those that contain most of a
//! query text ([`Index::query_containment`], datasketch's `MinHashLSHEnsemble`), both among
//! the documents sharing a band key with the query (what banded LSH can see).
//!
//! ```
//! use textreuse_corpus::Document;
//! use textreuse_index::{Index, IndexUnit, IndexWriter, Params, QueryOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let mut writer = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence))?;
//! let s = "The old mill on the river was built in 1820 and still grinds grain for the bakery in the town.";
//! writer.add(&Document::new("mill", "Mill", format!("{s} It is open on Sundays.")))?;
//! writer.commit()?;
//! drop(writer); // releases the lock
//!
//! // Later, in another process: what in a new text is already indexed?
//! let index = Index::open(dir.path())?;
//! let options = QueryOptions::new().verify(true);
//! let units = index.query_text(&s.to_uppercase(), &options)?;
//! let m = &units[0].matches[0];
//! assert_eq!((m.id.to_string().as_str(), m.chars.clone()), ("mill", 0..94));
//! assert_eq!(m.jaccard, Some(1.0)); // normalization ignores case
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Beside the persistent index, [`MemoryIndex`] is the plagiarism checker's chunk index held in
//! memory (built from a corpus for one run). Both retrieve candidate source documents of a query
//! text with one shared tally and ranking ([`MemoryIndex::candidates`],
//! [`Index::candidate_documents`] of an [`IndexUnit::Chunk`] index), so the two find the same
//! [`Candidate`]s; top-k and containment queries rank the same tally
//! ([`MemoryIndex::query_top_k`], [`MemoryIndex::query_containment`]).
//!
//! [`BandTables`] (band bytes to caller-numbered entries), [`KeyedBandTables`] (the same over
//! the caller's `u64` keys) and [`BandBloom`] (one Bloom filter per band) are plain in-memory
//! LSH tables: the cores of the Python package's `textreuse.compat` classes (datasketch's
//! `MinHashLSH`, `MinHashLSHForest`, `MinHashLSHBloom`; rensa's `RMinHashLSH`).
//!
//! # On disk
//!
//! A directory of immutable, memory-mapped segment files and a `MANIFEST` (JSON) naming the
//! committed ones. Every commit writes its new files, syncs them, and then replaces the
//! manifest atomically (write, sync, rename, sync the directory): a crash at any point, even
//! `kill -9`, leaves the index at its last commit, and the next writer deletes what the
//! interrupted one left. Removals are deletion files beside their segment; compaction merges
//! all segments into one without them. One writer at a time holds `LOCK` (an OS file lock,
//! released when its process exits, however it exits); readers take no lock and see the
//! commit they opened. Why this design and not an embedded B-tree store, and what it costs,
//! is in `docs/index.md`.
//!
//! Segments hold, per entry, `M` band-key records of 8 bytes, its signature (`N` minhashes cut
//! to [`Params::signature_bytes`], 2 by default) and 12 bytes of offsets, plus each document's
//! id, title and origin (and text, unless [`Params::store_text`] is off). Queries touch a few
//! pages per segment, so an index larger than memory works: the OS pages it in and out.
//!
//! # Matching `textreuse dedup`
//!
//! Units, shingles and signatures are exactly the dedup pipeline's (the same [`Recipe`]
//! ingredients: [`textreuse_shingle::units::KeptSentences`] and
//! [`textreuse_minhash::TextSigner`]), so a query finds what `dedup` would pair: two units
//! share a band key in the index exactly when they share one in `dedup` (keys are compared on
//! their top 48 bits; see the `segment` notes in `docs/index.md`).
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

mod bands;
mod blocks;
mod bloom;
mod candidates;
mod doc;
mod error;
mod fault;
// Behind a feature, not only `#[doc(hidden)]`: without it the code is not compiled, so no
// user can come to depend on it and no build of the library can forge checksums. Unit tests
// compile it too, so that `cargo test` runs its tests.
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
mod index;
mod keyed;
mod memory;
mod params;
mod partitions;
mod plan;
mod resident;
mod run;
mod segment;

pub use bands::{BandError, BandTables};
pub use bloom::{BandBloom, BloomError};
pub use candidates::{Candidate, DEFAULT_MAX_QUERY_BUCKET, unit_containment};
pub use doc::StoredDoc;
pub use error::Error;
pub use index::{
    DEFAULT_MEMORY_BUDGET, DocumentQuery, Index, IndexStats, IndexWriter, MAX_SEGMENTS, MERGE_RUN,
    Match, Query, QueryOptions, UnitMatches,
};
pub use keyed::KeyedBandTables;
pub use memory::{ChunkRef, MemoryIndex, MemoryIndexBuilder, MemoryIndexError};
pub use params::{DEFAULT_SIGNATURE_BYTES, IndexUnit, Params, Recipe, SignedUnit};
pub use partitions::optimal_partitions;
pub use plan::MemoryPlan;
pub use run::RunStats;
