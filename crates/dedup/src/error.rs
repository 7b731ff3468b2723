//! The error type of a dedup run.
use std::path::PathBuf;

use textreuse_embed::EmbedError;
use textreuse_simhash::SimHashError;
use textreuse_unionfind::UnionFindError;

use textreuse_corpus::{InputError, OutputError};
use textreuse_shuffle::ShuffleError;

/// Why a dedup run (or building one) failed. Each variant says how to recover.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An option of [`DedupBuilder`](crate::DedupBuilder) is out of range. Recover by changing
    /// the option the message names.
    #[error("invalid option {option}: {message}")]
    InvalidOption {
        /// The option (as the builder method is called).
        option: &'static str,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// [`DedupBuilder::max_memory`](crate::DedupBuilder::max_memory) is below the fixed cost
    /// of a run ([`MemoryPlan::MINIMUM`](crate::MemoryPlan::MINIMUM)); nothing was read.
    /// Recover by raising it to at least `minimum` bytes (or by setting no bound).
    #[error(
        "a memory bound of {max_memory} bytes is below the minimum of {minimum} bytes ({} MiB) \
         that any run needs (the program, its pipeline and file buffers, the smallest budget \
         of the sorts): raise it to at least {minimum} bytes",
        minimum >> 20
    )]
    MemoryTooSmall {
        /// The bound given.
        max_memory: u64,
        /// The smallest bound accepted.
        minimum: u64,
    },
    /// An input could not be read; see [`InputError`] for which one and where.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The shuffle failed (its spill files could not be written or read). Recover by pointing
    /// the spill directory ([`DedupBuilder::tmp_dir`](crate::DedupBuilder::tmp_dir)) at a file
    /// system with space, or by raising the memory budget.
    #[error(transparent)]
    Shuffle(#[from] ShuffleError),
    /// The SimHash search failed (see [`SimHashError`]).
    #[error("SimHash search failed")]
    SimHash(#[from] SimHashError),
    /// Word vectors could not be trained or used (see [`EmbedError`]): the method is
    /// [`Method::RandomProjection`](crate::Method::RandomProjection).
    #[error("word vectors: {0}")]
    Embed(#[from] EmbedError),
    /// Clustering saw more distinct sentences than union-find supports. Recover by splitting the
    /// input.
    #[error(transparent)]
    UnionFind(#[from] UnionFindError),
    /// A temporary file could not be written or read back: the kept sentences' texts, or a spill
    /// file (the index of those texts, SimHash's fingerprints or the edit filter's pairs under
    /// a memory bound). Recover by pointing
    /// [`DedupBuilder::tmp_dir`](crate::DedupBuilder::tmp_dir) at a writable file system with
    /// space.
    #[error("{what} in {}", dir.display())]
    TextStore {
        /// What was being done.
        what: &'static str,
        /// The directory of the file.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The spill files of stage 8's article tally (under a memory bound) could not be written
    /// or read back. Recover by pointing [`DedupBuilder::tmp_dir`](crate::DedupBuilder::tmp_dir)
    /// at a writable file system with space, or by raising the bound.
    #[error("{what} (article tally in {})", dir.display())]
    ArticleTally {
        /// What was being done.
        what: &'static str,
        /// The directory of the file.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The input has more than 2^32 documents, so sentence ids (`seq << 32 | idx`) would
    /// overflow. Recover by splitting the input into runs.
    #[error("more than 2^32 documents: sentence ids would overflow (split the input)")]
    TooManyDocuments,
    /// The output directory could not be prepared or replaced
    /// ([`OutputSet`](textreuse_corpus::files::OutputSet)); the error names it. Recover by choosing a new
    /// or empty directory on a writable file system with space.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The [`Sink`](crate::Sink) failed; its error is the source. Recover as that error says
    /// (for the output files: a writable directory with space).
    #[error("cannot deliver the results")]
    Sink(#[source] Box<dyn std::error::Error + Send + Sync>),
}
