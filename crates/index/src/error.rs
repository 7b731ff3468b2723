//! Why an index operation failed.
use std::io;
use std::path::PathBuf;

/// Why an index operation failed, and what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file of the index failed (the index is unchanged: nothing is
    /// committed before its files are written and synced). Fix the path, permissions or free
    /// space and retry.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The directory holds no index (no `MANIFEST`). Create one with `textreuse index create`
    /// or [`IndexWriter::create`](crate::IndexWriter::create).
    #[error("{0}: not an index (no MANIFEST); create one with `textreuse index create`")]
    NotAnIndex(PathBuf),
    /// [`IndexWriter::create`](crate::IndexWriter::create) found an index already there. Open
    /// it, or choose another directory.
    #[error("{0}: an index already exists here; open it, or remove the directory first")]
    Exists(PathBuf),
    /// [`IndexWriter::create`](crate::IndexWriter::create) found files but no `MANIFEST` in
    /// the directory, and created nothing. If it held an index, its manifest is lost (a new
    /// index there would delete the segment files): restore `MANIFEST` from a backup. To start
    /// a new index, use an empty or new directory.
    #[error(
        "{path}: the directory is not empty ({entries} entries, e.g. {example}) and has no \
         MANIFEST; if it held an index, its MANIFEST is lost: restore it from a backup (a new \
         index here would delete the segment files); to start a new index, use an empty or new \
         directory"
    )]
    NotEmpty {
        /// The directory.
        path: PathBuf,
        /// How many entries it holds.
        entries: usize,
        /// One of them (a segment file if there is one).
        example: String,
    },
    /// Another process (or another writer in this one) is writing to the index: one writer at a
    /// time. Wait for it to finish; the lock is released when it exits, even if it crashes.
    #[error(
        "{path}: the index is locked by another writer{holder}; wait for it to finish (the lock \
         is released when that process exits)"
    )]
    Locked {
        /// The index directory.
        path: PathBuf,
        /// Who holds it, as that writer recorded it (`" (pid 123: textreuse index add)"`).
        holder: String,
    },
    /// A file of the index is damaged or of another format version. Restore the index from a
    /// copy, or rebuild it.
    #[error(
        "{path}: damaged index file: {what}; restore the index from a copy or rebuild it \
         (`textreuse index verify DIR` checks every file)"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The index was written by an earlier build, in a format this one does not read. Rebuild
    /// it with this build (create it again and add the documents).
    #[error(
        "{path}: written by an earlier build (index format {version}); this build reads format \
         {current}: rebuild the index with it (create, then add the documents again)"
    )]
    OldFormat {
        /// The file.
        path: PathBuf,
        /// Its format version.
        version: u32,
        /// The version this build reads.
        current: u32,
    },
    /// [`IndexWriter::max_memory`](crate::IndexWriter::max_memory) or
    /// [`Index::max_memory`](crate::Index::max_memory) is below the fixed cost of a run
    /// ([`MemoryPlan::MINIMUM`](crate::MemoryPlan::MINIMUM)); nothing was read. Recover by
    /// raising it to at least `minimum` bytes (or by setting no bound).
    #[error(
        "a memory bound of {max_memory} bytes is below the minimum of {minimum} bytes ({} MiB) \
         that any index run needs (the program, its input readers, the chunk of documents in \
         flight, the smallest batch): raise it to at least {minimum} bytes",
        minimum >> 20
    )]
    MemoryTooSmall {
        /// The bound given.
        max_memory: u64,
        /// The smallest bound accepted.
        minimum: u64,
    },
    /// [`Index::max_memory`](crate::Index::max_memory): the pages that one query on each
    /// thread may touch of this index (two faults of up to 64 KiB per band and segment) do not
    /// fit in half the pages' share of the bound; nothing was read. Recover by raising the
    /// bound to at least `minimum` bytes, or by compacting the index (fewer segments), or by
    /// querying on fewer threads.
    #[error(
        "a memory bound of {max_memory} bytes is below the {minimum} bytes ({} MiB) that \
         queries of this index need ({segments} segments, whose pages a query on each thread \
         may touch before they are given back): raise it, or compact the index to fewer \
         segments, or use fewer threads",
        minimum.div_ceil(1 << 20)
    )]
    QueryMemoryTooSmall {
        /// The bound given.
        max_memory: u64,
        /// The smallest bound accepted for this index at this thread count.
        minimum: u64,
        /// The index's segments.
        segments: usize,
    },
    /// The writer's memory budget ([`IndexWriter::memory_budget`](crate::IndexWriter::memory_budget))
    /// does not fit in the batch's share of its memory bound. Recover by giving a smaller
    /// budget, or none (the batch then gets its share).
    #[error(
        "a batch budget of {batch} bytes does not fit in its share of the memory bound of \
         {max_memory} bytes ({share} bytes: half of what is left after the fixed cost); give a \
         smaller one, or none to use the share"
    )]
    BatchTooLarge {
        /// The batch budget given.
        batch: u64,
        /// The batch's share of the bound.
        share: u64,
        /// The bound.
        max_memory: u64,
    },
    /// [`IndexWriter::compact`](crate::IndexWriter::compact) under a memory bound: merging the
    /// whole index needs more memory for its tables than the merges' share of the bound, so
    /// nothing was written. Recover by compacting with a bound of at least `bound` bytes (or
    /// none); queries answer the same on the uncompacted index.
    #[error(
        "compacting {docs} documents needs about {needed} bytes for the merge's tables, more \
         than their share of the memory bound ({share} bytes); nothing was written: compact \
         with a bound of at least {bound} bytes ({} MiB), or none",
        bound.div_ceil(1 << 20)
    )]
    MergeTooLarge {
        /// Documents of the segments to merge.
        docs: u64,
        /// The memory the merge's tables need.
        needed: u64,
        /// Their share of the bound.
        share: u64,
        /// The smallest bound whose share would hold them.
        bound: u64,
    },
    /// A file the manifest lists is missing: the index is damaged (a file deleted by hand or
    /// lost with a disk). Restore the directory from a copy, or rebuild the index.
    #[error(
        "{path}: damaged index: {file}, listed in its MANIFEST, is missing; restore the index \
         from a copy or rebuild it"
    )]
    Missing {
        /// The index directory.
        path: PathBuf,
        /// The missing file's name.
        file: String,
    },
    /// The writer's `LOCK` file was deleted or replaced while it was writing, so another
    /// writer may have been let in: nothing was committed. Make sure only one writer runs,
    /// reopen the index and make the changes again.
    #[error(
        "{path}: the LOCK file was deleted or replaced while this writer ran, so another writer \
         may have changed the index; nothing was committed: make sure one writer runs at a \
         time, then reopen the index and make the changes again"
    )]
    LockLost {
        /// The index directory.
        path: PathBuf,
    },
    /// The manifest on disk is not the commit this writer started from: another writer
    /// committed meanwhile. Nothing was committed; reopen the index and make the changes
    /// again.
    #[error(
        "{path}: another writer committed (generation {found} on disk, {expected} expected); \
         nothing was committed: reopen the index and make the changes again"
    )]
    Conflict {
        /// The index directory.
        path: PathBuf,
        /// The generation this writer started from.
        expected: u64,
        /// The generation on disk.
        found: u64,
    },
    /// The parameters are invalid; fix them.
    #[error("invalid index parameters: {0}")]
    Params(String),
    /// A signature of the wrong length: it must have the index's number of hash functions.
    #[error("a signature of {got} minhashes given to an index of {expected} hash functions")]
    SignatureLength {
        /// The index's number of hash functions.
        expected: usize,
        /// The signature's length.
        got: usize,
    },
    /// The unit needs stored texts (verification, `check --index`) and the index was created
    /// without them. Rebuild it with texts stored.
    #[error("the index stores no texts (created with store_text off); {0} needs them")]
    NoText(&'static str),
    /// A containment threshold outside `0..=1` (or NaN) was given to
    /// [`Index::query_containment`](crate::Index::query_containment); pass a fraction (0.8:
    /// documents holding at least 80% of the query).
    #[error("the containment threshold must be within 0..=1, not {0}")]
    Threshold(f64),
    /// A segment would hold more than 4 billion entries, documents or band-key records: commit
    /// more often (a smaller memory budget).
    #[error("a segment cannot hold more than 2^32 - 1 {0}; commit more often")]
    TooLarge(&'static str),
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, what: impl Into<String>) -> Error {
        Error::Corrupt {
            path: path.into(),
            what: what.into(),
        }
    }
}
