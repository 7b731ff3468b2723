//! An out-of-core shuffle of `(key, id)` records under a memory budget: group records by key,
//! turn every group (a *bucket*) into candidate pairs, and the pairs into clusters. It is stages
//! 3-5 of `textreuse dedup` (band keys -> near-duplicate clusters) and the candidate stage of
//! `textreuse reuse`, and it is usable alone for any "join on a shared key" that does not fit in
//! memory.
//!
//! A record is `(key, id)`: a MinHash band key and a sentence id packed as `doc << 32 | idx`.
//! Two sentences are candidates when they share a band key, so the shuffle groups records by key
//! (a *bucket* is the sorted, de-duplicated ids of one key), every bucket becomes pairs, and the
//! pairs become clusters through `textreuse-unionfind`.
//!
//! ```
//! use textreuse_shuffle::ShuffleBuilder;
//!
//! let mut shuffle = ShuffleBuilder::new().mem_budget(1 << 20).max_bucket(100).build()?;
//! // (band key, sentence id): sentences 1, 2 and 3 share keys, 4 is alone.
//! for (key, id) in [(0xaa, 2), (0xbb, 4), (0xaa, 1), (0xcc, 3), (0xcc, 2)] {
//!     shuffle.push(key, id)?;
//! }
//! let (clusters, stats) = shuffle.finish()?.into_clusters(2)?;
//! assert_eq!(clusters.len(), 1);
//! assert_eq!(clusters.get(0).unwrap().members(), &[1, 2, 3]);
//! assert_eq!((stats.records, stats.buckets, stats.candidate_pairs), (5, 3, 2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`RecordSorter`] is an external sort of `(u64, u64)` records under a memory budget: records
//!   go into an in-memory buffer of at most `budget / 16` records, *partitioned* on arrival into
//!   256 partitions by a byte of the key (the top byte for band keys, which are well-mixed
//!   hashes; the byte below the largest id for pair keys, which are sentence ids). When the
//!   buffer is full its partitions are sorted in parallel on rayon (a radix sort per partition,
//!   see `src/radix.rs`) and written, in partition order, to a temporary directory as a *run*
//!   (raw little-endian `key, id` pairs, 16 bytes a record, written through a 1 MiB buffer).
//!   [`RecordSorter::finish`] returns [`SortedRecords`], a k-way merge (binary heap) of the runs
//!   and the in-memory tail that yields records in `(key, id)` order without duplicates. More
//!   than 64 runs are first merged 64 at a time, so open files and read buffers stay bounded.
//! * Partitions are key ranges, so every run is range-partitioned by key: that is the layout a
//!   distributed shuffle would exchange. When nothing was spilled, [`Shuffle::finish`] turns the
//!   partitions into pairs in parallel (their keys are disjoint); after a spill each run knows
//!   where its partitions start, so ranges of 8 partitions are k-way merged in parallel, each
//!   from its own slices of the runs (64 KiB read buffer per run and range).
//! * [`Shuffle`] composes the stages: [`Shuffle::push`] feeds band-key records to one sorter;
//!   [`Shuffle::finish`] merges them into buckets, turns each bucket into pairs
//!   ([`PairMode`]; in [`PairMode::All`] buckets larger than `max_bucket` are capped to their
//!   first `max_bucket` ids, and the ids left out are counted), and feeds the pairs to a second sorter, which de-duplicates them (a pair shared by several bands
//!   is reported once). The result, [`PairStream`], yields the distinct candidate pairs `(a, b)`,
//!   `a < b`, in ascending order; [`PairStream::into_clusters`] unions them into clusters.
//! * [`BoundedClustering`] unions pairs in memory while union-find's peak fits in a budget, and
//!   beyond it computes the connected components on disk ([`Components`]: passes of the
//!   external sort over the edges, the large-star and small-star steps of Kiveris et al.); the
//!   clusters are the same either way ([`ClusterList`]).
//!
//! # Star pairs or all pairs
//!
//! By default ([`PairMode::Star`]) a bucket `m0 < m1 < ... < mk` emits the `k` pairs `(m0, mi)`:
//! a spanning star. For clustering that is sufficient, because the connected components of the
//! stars are exactly the components of the complete graphs on the buckets, and it is linear in
//! the bucket size. [`PairMode::All`] emits all `k (k + 1) / 2` pairs; it is needed only when a
//! caller wants the exact list of sentence pairs that share a band (for instance to check each
//! pair's edit distance individually); the bucket cap keeps the cost per bucket at most
//! `max_bucket^2 / 2` pairs, and [`ShuffleStats::bucket_ids_left_out`] counts the ids it left
//! out, so nothing is lost silently. Stars need no cap: every member of a bucket, however large,
//! is clustered.
//!
//! # Determinism
//!
//! Everything downstream of [`Shuffle::push`] depends only on the multiset of records: runs are
//! sorted by the total order on `(key, id)`, the merge yields that order however the records were
//! split into runs, the cap keeps the smallest ids, and cluster ids are smallest members. So the
//! pairs, clusters and counts are identical for every memory budget and thread count (only
//! `runs` and `bytes_spilled` in [`ShuffleStats`] depend on the budget).
//!
//! # Performance
//!
//! Memory: the record buffer is at most the budget; the merge adds 256 KiB of read buffer per run
//! (at most 64 runs at once; 64 KiB per run and range in the parallel merge, four ranges open)
//! and the pairs of the 32 partitions being turned into pairs at a time (after a spill, the four ranges of a wave
//! hand them over in rounds of at most a 256th of the budget in pairs each (16 Ki to 256 Ki
//! pairs: 1 to 16 MiB in flight however many pairs the records make); in memory, at most one pair per record of those partitions); the
//! pair sorter gets whatever part of the
//! budget the records do not hold, but at least a sixteenth of the budget (so when the records
//! stayed in memory and fill the budget, the peak can reach 17/16 of it). Disk: every record is
//! written once when the budget is exceeded (16 bytes a record, plus a second pass only beyond 64
//! runs). Measured numbers are in `docs/performance.md` under
//! "shuffle and unionfind" (the bench program `shuffle_bench` of `benches/`); the criterion bench `dedup/stages3_5`
//! (`benches/benches/dedup.rs`) times this crate alone on a million sentences' band keys.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::iter::FusedIterator;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use textreuse_unionfind::{Clustering, Clusters, UnionFindError};

use radix::{PARTS, Partitioned};

/// Bytes per record in memory and on disk (`key` and `id`, two little-endian `u64`s).
pub const RECORD_BYTES: u64 = 16;

/// The smallest accepted memory budget (1 KiB: tiny budgets are for tests that force spilling).
pub const MIN_MEM_BUDGET: u64 = 1 << 10;

/// The default memory budget (2 GiB).
pub const DEFAULT_MEM_BUDGET: u64 = 2 << 30;

/// The default bucket cap (the research's: the first 100 ids of a larger bucket).
pub const DEFAULT_MAX_BUCKET: usize = 100;

/// The most runs merged at once; more runs are merged in passes first.
const MAX_FAN_IN: usize = 64;

/// Read buffer per run during the merge.
const READ_BUFFER: usize = 256 << 10;

/// The pair sorter's budget is at least `budget / PAIR_BUDGET_FLOOR`, even when the records
/// held in memory leave less.
const PAIR_BUDGET_FLOOR: u64 = 16;

/// Records per write block when spilling.
const WRITE_BLOCK_RECORDS: usize = 1 << 16;

/// The error type of the shuffle stages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShuffleError {
    /// The memory budget is below [`MIN_MEM_BUDGET`]. Recover by passing a larger budget.
    #[error("memory budget of {budget} bytes is too small (the minimum is {min} bytes)")]
    BudgetTooSmall {
        /// The budget that was given.
        budget: u64,
        /// The minimum, [`MIN_MEM_BUDGET`].
        min: u64,
    },
    /// The bucket cap must be at least 2 (a smaller cap would emit no pairs at all). Recover by
    /// passing a larger cap, or `usize::MAX` for none.
    #[error("bucket cap must be at least 2, got {max_bucket}")]
    InvalidMaxBucket {
        /// The cap that was given.
        max_bucket: usize,
    },
    /// The temporary directory for spilled runs could not be created. Recover by pointing the
    /// spill directory (`--tmp`) at a writable file system.
    #[error("cannot create a spill directory in {}", path.display())]
    TempDir {
        /// The parent directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Writing or reading a spilled run failed (disk full, file removed). Recover by freeing disk
    /// space (about 16 bytes per record) or choosing another spill directory.
    #[error("I/O error on spill file {}", path.display())]
    Spill {
        /// The run file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A spilled run ended in the middle of a record (it was truncated by someone else). Recover
    /// by running again with a private spill directory.
    #[error("spill file {} is truncated", path.display())]
    Truncated {
        /// The run file.
        path: PathBuf,
    },
    /// The clustering stage saw more distinct ids than union-find supports.
    #[error(transparent)]
    UnionFind(#[from] UnionFindError),
}

/// Counts reported by the shuffle stages (the `stats.json` numbers of stages 3-5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ShuffleStats {
    /// Band-key records pushed.
    pub records: u64,
    /// Distinct keys (buckets), singletons included.
    pub buckets: u64,
    /// Buckets larger than the cap in [`PairMode::All`], which contributed only the pairs of their
    /// first `max_bucket` ids (stars are never capped).
    pub buckets_capped: u64,
    /// Ids those buckets left out (beyond their first `max_bucket`).
    pub bucket_ids_left_out: u64,
    /// Pairs emitted by the buckets before de-duplication.
    pub pairs_emitted: u64,
    /// Distinct candidate pairs (complete once the [`PairStream`] is exhausted).
    pub candidate_pairs: u64,
    /// Bytes written to spill files by both sorters.
    pub bytes_spilled: u64,
    /// Runs written by both sorters (intermediate merge passes included).
    pub runs: u64,
}

/// The options of [`RecordSorter`] and [`Shuffle`].
///
/// ```
/// use textreuse_shuffle::{PairMode, ShuffleBuilder};
///
/// let shuffle = ShuffleBuilder::new()
///     .mem_budget(64 << 20)
///     .max_bucket(100)
///     .pair_mode(PairMode::Star)
///     .tmp_dir(std::env::temp_dir())
///     .build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ShuffleBuilder {
    mem_budget: u64,
    tmp_dir: Option<PathBuf>,
    max_bucket: usize,
    pair_mode: PairMode,
}

impl Default for ShuffleBuilder {
    fn default() -> Self {
        ShuffleBuilder::new()
    }
}

impl ShuffleBuilder {
    /// The defaults: a [`DEFAULT_MEM_BUDGET`] budget, the system temporary directory, a cap of
    /// [`DEFAULT_MAX_BUCKET`] and star pairs.
    pub fn new() -> ShuffleBuilder {
        ShuffleBuilder {
            mem_budget: DEFAULT_MEM_BUDGET,
            tmp_dir: None,
            max_bucket: DEFAULT_MAX_BUCKET,
            pair_mode: PairMode::Star,
        }
    }

    /// The memory budget in bytes for buffered records (at least [`MIN_MEM_BUDGET`]).
    pub fn mem_budget(&mut self, bytes: u64) -> &mut Self {
        self.mem_budget = bytes;
        self
    }

    /// The memory budget in bytes.
    pub fn budget(&self) -> u64 {
        self.mem_budget
    }

    /// The directory under which spill directories are created, if one was set ([`tmp_dir`]).
    ///
    /// [`tmp_dir`]: ShuffleBuilder::tmp_dir
    pub fn spill_parent(&self) -> Option<&Path> {
        self.tmp_dir.as_deref()
    }

    /// The directory under which a private spill directory is created (default: the system
    /// temporary directory). Nothing is created unless the budget is exceeded.
    pub fn tmp_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.tmp_dir = Some(dir.into());
        self
    }

    /// In [`PairMode::All`], a bucket with more ids contributes only the pairs of its `n`
    /// smallest (at least 2; `usize::MAX` for no cap); the ids left out are counted. Star pairs
    /// are never capped.
    pub fn max_bucket(&mut self, n: usize) -> &mut Self {
        self.max_bucket = n;
        self
    }

    /// Star or all pairs per bucket (see the module docs).
    pub fn pair_mode(&mut self, mode: PairMode) -> &mut Self {
        self.pair_mode = mode;
        self
    }

    /// Checks the options: the budget is at least [`MIN_MEM_BUDGET`] and the cap at least 2.
    pub fn check(&self) -> Result<(), ShuffleError> {
        if self.mem_budget < MIN_MEM_BUDGET {
            return Err(ShuffleError::BudgetTooSmall {
                budget: self.mem_budget,
                min: MIN_MEM_BUDGET,
            });
        }
        if self.max_bucket < 2 {
            return Err(ShuffleError::InvalidMaxBucket {
                max_bucket: self.max_bucket,
            });
        }
        Ok(())
    }

    /// A record sorter with this budget and spill directory.
    pub fn build_sorter(&self) -> Result<RecordSorter, ShuffleError> {
        if self.mem_budget < MIN_MEM_BUDGET {
            return Err(ShuffleError::BudgetTooSmall {
                budget: self.mem_budget,
                min: MIN_MEM_BUDGET,
            });
        }
        Ok(RecordSorter::with_budget(
            self.mem_budget,
            self.tmp_dir.clone(),
            u64::BITS,
        ))
    }

    /// The shuffle (stages 3-5).
    pub fn build(&self) -> Result<Shuffle, ShuffleError> {
        self.check()?;
        Ok(Shuffle {
            records: self.build_sorter()?,
            max_id: 0,
            options: self.clone(),
        })
    }
}

/// How a bucket becomes pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PairMode {
    /// `(smallest id, other)` for every other id: linear, sufficient for clustering.
    #[default]
    Star,
    /// Every pair of ids in the bucket: the exact pair list, quadratic in the bucket size.
    All,
}

mod components;
mod pairs;
mod radix;
mod sort;
#[cfg(test)]
mod tests;

pub use components::{BoundedClustering, ClusterList, ComponentStream, Components};
pub use pairs::{PairStream, Shuffle};
pub use sort::{RecordSorter, SortedRecords};
